/* dsn.h - where to connect: URI / libpq strings, flags, MySQL option
 * files and environment, merged by each ecosystem's precedence rules.
 * Functions returning int give 0 on success, -1 with a message in err. */
#ifndef DBTOP_DSN_H
#define DBTOP_DSN_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/sample.h"

/* TLS of the connection, by MySQL's --ssl-mode names (libpq's sslmode in
 * brackets). SSL_MODE_UNSET: the client library's default. */
enum ssl_mode {
	SSL_MODE_BAD = -1,    /* an option file gave a value that is none of these */
	SSL_MODE_UNSET = 0,
	SSL_MODE_DISABLED,    /* (disable) no TLS */
	SSL_MODE_PREFERRED,   /* (prefer) TLS when the server offers it, unverified */
	SSL_MODE_REQUIRED,    /* (require) TLS or no connection, unverified */
	SSL_MODE_VERIFY_CA,   /* (verify-ca) and the certificate signed by the CA */
	SSL_MODE_VERIFY_IDENTITY, /* (verify-full) and naming the host */
};

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
	enum ssl_mode ssl_mode;
	char *ssl_ca;     /* CA certificate file (PEM) */
	char *ssl_cert;   /* client certificate file */
	char *ssl_key;    /* its private key file */
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
 * file cannot be opened, OPTION_FILE_UNSAFE when it is world-writable (not
 * read, as the mysql client does: err says so; a world-writable included
 * file is skipped with that warning on stderr). */
#define OPTION_FILE_UNSAFE (-2)
int target_read_option_file(struct target *t, const char *path, bool keep_set,
			    char *err, size_t errlen);

/* Parse a TLS mode: MySQL's names (DISABLED, PREFERRED, REQUIRED,
 * VERIFY_CA, VERIFY_IDENTITY) or libpq's (disable, prefer, require,
 * verify-ca, verify-full), any case, '-' or '_'. SSL_MODE_BAD if none. */
enum ssl_mode target_ssl_mode_parse(const char *s);

/* The name of a mode for an engine: MySQL's for MySQL, libpq's sslmode
 * value for PostgreSQL; NULL for SSL_MODE_UNSET / SSL_MODE_BAD. */
const char *target_ssl_mode_name(enum ssl_mode m, enum engine e);

/* The mode in force for MySQL: the one given, else VERIFY_CA when a CA
 * file was given (as MySQL's client does), else SSL_MODE_UNSET (the
 * library's default). */
enum ssl_mode target_ssl_mode_effective(const struct target *t);

/* Build t->label ("host:port", socket path, or service name). */
void target_make_label(struct target *t);

/* Blank the password in a command-line argument in place (so that ps does
 * not show it). Returns true when something was scrubbed. */
bool target_scrub_arg(char *arg);

#endif
