/* mysql_map.h - turning MySQL / MariaDB result rows into caps and counters.
 * Pure functions (no client library), so recorded result fixtures of MySQL 8
 * and MariaDB can be tested without a server. */
#ifndef DBTOP_MYSQL_MAP_H
#define DBTOP_MYSQL_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "source.h"
#include "../util/util.h"

#define MY_REDO_EVENT "wait/io/file/innodb/innodb_log_file"
#define MY_BINLOG_EVENT "wait/io/file/sql/binlog"
#define MY_COMMIT_EVENT "statement/sql/commit"
/* prepared statements run through the binary protocol: no digest row */
#define MY_EXECUTE_EVENT "statement/com/Execute"
/* pseudo event names of dbtop's statement totals query rows */
#define MY_STMTS_ROW "dbtop:stmts"
#define MY_OWN_STMTS_ROW "dbtop:own_stmts"

/* From SELECT VERSION(), @@version_comment, @@performance_schema, @@log_bin. */
void mysql_caps_version(struct caps *c, const char *version, const char *comment,
			const char *perf_schema, const char *log_bin);
/* One row of USER_PRIVILEGES.PRIVILEGE_TYPE for the current account. */
void mysql_caps_privilege(struct caps *c, const char *priv);
/* One row of setup_instruments (NAME, ENABLED, TIMED). */
void mysql_caps_instrument(struct caps *c, const char *name, const char *enabled,
			   const char *timed);
/* After the probe: decide sources and write the notes. ps_error is the
 * error text when performance_schema could not be read (else NULL). */
void mysql_caps_finish(struct caps *c, bool has_os_log_fsyncs, const char *ps_error);

/* One SHOW GLOBAL STATUS row into out; Uptime goes to *uptime. */
void mysql_map_status(struct sample *out, const char *name, const char *value,
		      uint64_t *uptime);
/* One file_summary_by_event_name row (EVENT_NAME, COUNT_MISC, SUM_TIMER_MISC ps),
 * or the statement/sql/commit row of events_statements_summary_global_by_event_name
 * (EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT ps). */
void mysql_map_file(struct sample *out, const struct caps *c, const char *event,
		    const char *count_misc, const char *sum_timer_misc);
struct wait_set;
/* The wait summaries count nothing: n of the consumers they need are off
 * (named in off, "a and b"); ws's note says so and how to switch them on. */
void mysql_waits_stopped(struct wait_set *ws, const char *off, int n);
/* After all rows: stamp epochs and derive the generic counters. */
void mysql_map_finish(struct sample *out, const struct caps *c, uint64_t epoch);

/* Columns of mysql_digest_sql(). */
enum {
	MYD_SCHEMA, MYD_DIGEST, MYD_COUNT, MYD_TIMER, MYD_LOCK, MYD_ERRORS, MYD_ROWS,
	MYD_EXAMINED, MYD_FIRST, MYD_LAST, MYD_LAST_RAW, MYD_P95, MYD__COUNT
};
struct digest_set;
/* The digest query: rows whose LAST_SEEN is at or after since ("" for
 * all). Writes into buf; returns buf. since must be a server timestamp
 * string as returned in MYD_LAST_RAW (validated: digits, '-', ':', ' ', '.'). */
char *mysql_digest_sql(const struct caps *c, const char *since, char *buf, size_t len);
/* One digest row into set (cells may be NULL; MYD_P95 absent before MySQL 8). */
void mysql_map_digest(struct digest_set *set, const char *const cell[MYD__COUNT], int ncells);

/* Digest histograms (MySQL 8 events_statements_histogram_by_digest):
 * read for at most MY_HIST_MAX digests per refresh, the ones of the
 * digest read that took the most time since the previous read. */
#define MY_HIST_MAX 24
#define MY_HIST_TABLE "events_statements_histogram_by_digest"

/* One row of the probe of information_schema.COLUMNS (TABLE_NAME,
 * COLUMN_NAME) of the digest summary and histogram tables. */
void mysql_caps_digest_column(struct caps *c, const char *table, const char *column);

/* SUM_TIMER_WAIT of every digest at its previous read, to rank digests by
 * their time since then (keys kept as 64-bit hashes). */
struct my_hist_pick {
	struct hmap ns;          /* key hash -> uint64_t ns (zeroed: ready) */
};
void mysql_hist_pick_free(struct my_hist_pick *p);
/* Remember the time of every row of set and add an empty histogram to set
 * for each of the (at most max) rows with a digest that took the most
 * time since their previous read (a row not seen before, or reset: its
 * whole time), largest first; rows that took none are left out. Returns
 * the number chosen. */
size_t mysql_hist_choose(struct my_hist_pick *p, struct digest_set *set, size_t max);
/* Columns of mysql_hist_sql(). */
enum { MYH_SCHEMA, MYH_DIGEST, MYH_BUCKET, MYH_HIGH, MYH_COUNT, MYH__COUNT };
struct strbuf;
/* The histogram query for the digests of set->hist (one statement, only
 * buckets with a count) into b; false (b empty) when there is none. */
bool mysql_hist_sql(const struct digest_set *set, struct strbuf *b);
/* One histogram row into the histogram of its key in set (rows of other
 * digests, or with unparsable numbers, are ignored). */
void mysql_map_hist(struct digest_set *set, const char *const cell[MYH__COUNT]);

/* Parse an unsigned decimal; false when NULL or not a number. */
bool parse_u64(const char *s, uint64_t *out);

#endif
