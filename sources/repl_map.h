/* repl_map.h - replication rows to struct repl (core/repl.h): PostgreSQL's
 * pg_stat_replication, MySQL / MariaDB semi-sync status and variables in
 * both naming eras (rpl_semi_sync_master_* and, from MySQL 8.0.26,
 * rpl_semi_sync_source_*). Pure functions, tested on recorded rows. */
#ifndef DBTOP_REPL_MAP_H
#define DBTOP_REPL_MAP_H

#include <stdbool.h>

#include "../core/caps.h"
#include "../core/repl.h"

/* Columns of pg_repl_sql(). */
enum {
	PGR_NAME, PGR_ADDR, PGR_STATE, PGR_SYNC, PGR_SENT, PGR_WRITE, PGR_FLUSH, PGR_REPLAY,
	PGR_WRITE_LAG, PGR_FLUSH_LAG, PGR_REPLAY_LAG, PGR_REPLY, PGR__COUNT
};
/* The standbys query (reply_time from PostgreSQL 12; the WAL position of
 * a standby itself is its last received one, for cascades). */
const char *pg_repl_sql(const struct caps *c);
/* Start a PostgreSQL read into r. */
void repl_pg_begin(struct repl *r);
/* One row of pg_repl_sql() (cells NULL for SQL NULL). */
void repl_pg_row(struct repl *r, const char *const cell[PGR__COUNT]);

/* Start a MySQL / MariaDB read into r (status every refresh; the
 * variables only when vars is set). */
void repl_my_begin(struct repl *r, bool vars);
/* True for a status or variable name repl_my_* takes. */
bool repl_my_status_name(const char *name);
bool repl_my_var_name(const char *name);
/* One SHOW GLOBAL STATUS / SHOW GLOBAL VARIABLES row. */
void repl_my_status(struct repl *r, const char *name, const char *value);
void repl_my_var(struct repl *r, const char *name, const char *value);
/* After the rows: r->kind stays REPL_NONE when the server has no semi-sync
 * at all (MySQL without the plugin or component). */
void repl_my_finish(struct repl *r);

#endif
