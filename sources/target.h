/* target.h - where to connect: URI / libpq strings, flags, MySQL option
 * files and environment, merged by each ecosystem's precedence rules.
 * Functions returning int give 0 on success, -1 with a message in err. */
#ifndef DBTOP_TARGET_H
#define DBTOP_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "sample.h"

struct target {
	enum engine engine;
	char *host;       /* NULL: default (MySQL: localhost socket) */
	char *user;
	char *password;   /* secret: never printed; freed with secret_free */
	char *socket;     /* MySQL socket file, or PostgreSQL socket directory */
	char *database;
	int port;         /* 0: default */
	char *pg_conninfo;/* PostgreSQL URI or key=value string, as given */
	char *defaults_file; /* MySQL --defaults-file */
	double connect_timeout; /* s */
	char label[128];  /* host label for display, no secrets */
};

void target_init(struct target *t);
void target_free(struct target *t);

/* Parse TARGET (mysql://, mariadb://, postgres://, postgresql:// URI or a
 * libpq key=value string) into t; fields already set in t (from flags) are
 * kept. Returns -1 on a malformed target. */
int target_parse(struct target *t, const char *spec, char *err, size_t errlen);

/* Parse a mysql:// or mariadb:// URI only. */
int target_parse_mysql_uri(struct target *t, const char *uri, char *err, size_t errlen);

/* Decide the engine when no scheme said it (port, socket name, PG env).
 * Returns -1 when it cannot tell. */
int target_guess_engine(struct target *t, char *err, size_t errlen);

/* MySQL: fill unset fields from option files ([client] then [dbtop]
 * groups of ~/.my.cnf, or only --defaults-file when given) and then from
 * the environment (MYSQL_PWD, MYSQL_HOST, MYSQL_TCP_PORT, MYSQL_UNIX_PORT).
 * Returns -1 when an explicitly named defaults file cannot be read. */
int target_apply_mysql_defaults(struct target *t, char *err, size_t errlen);

/* Read one option file into t, for the groups [client] and [dbtop]; keys
 * already set by the caller's higher-precedence sources are not replaced
 * when keep_set is true. Follows !include / !includedir. Returns -1 if the
 * file cannot be opened. */
int target_read_option_file(struct target *t, const char *path, bool keep_set,
			    char *err, size_t errlen);

/* Build t->label ("host:port", socket path, or service name). */
void target_make_label(struct target *t);

/* Blank the password in a command-line argument in place (so that ps does
 * not show it). Returns true when something was scrubbed. */
bool target_scrub_arg(char *arg);

#endif
