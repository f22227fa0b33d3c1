/* sessions_map.h - the session list: the SQL that reads it on each engine
 * and the mappers of its rows into a struct session_set
 * (model/sessions.h), and the checks an explain makes before any SQL.
 * Pure (no client library), so rows recorded from MySQL 8, MariaDB and
 * PostgreSQL can be unit-tested (tests/unit/test_sessions.c,
 * tests/fixtures/sessions-*.txt).
 *
 * Use, once per refresh, only while the list is wanted:
 *   PostgreSQL: sessions_pg_sql_timed(buf, len, version_num, timeout_ms),
 *     sent as one simple-protocol string ("SET LOCAL statement_timeout =
 *     <ms>; SELECT ..."): the SET, then the rows. For every row
 *     sessions_pg_row(ss, cells, ncells); then sessions_pg_finish(ss, user).
 *   MySQL / MariaDB: sessions_my_sql(flavour, priv_process), one SELECT
 *     (the caller bounds it as its other reads: max_statement_time /
 *     MAX_EXECUTION_TIME). For every row sessions_my_row(ss, flavour,
 *     cells, ncells); then sessions_my_finish(ss, priv_process, user).
 * The lists come ordered by id. At most SESSIONS_ROW_LIMIT + 1 rows are asked
 * for: the one past the limit only tells that the list was cut (note).
 */
#ifndef DBTOP_SESSIONS_MAP_H
#define DBTOP_SESSIONS_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/sample.h"

struct session_set;

#define SESSIONS_ROW_LIMIT 20000
#define SESSIONS_LIMIT_TEXT "20001" /* SESSIONS_ROW_LIMIT + 1, in a statement */

/* Columns of the PostgreSQL query (pg_stat_activity), in order. Times in
 * seconds (decimal text), identity in microseconds since the epoch. */
enum {
	SPG_PID,
	SPG_USER,      /* usename */
	SPG_DB,        /* datname */
	SPG_ADDR,      /* host(client_addr), NULL for a socket / background */
	SPG_PORT,      /* client_port: -1 on a Unix socket */
	SPG_APP,       /* application_name */
	SPG_TYPE,      /* backend_type */
	SPG_STATE,     /* NULL when hidden (another role without pg_read_all_stats) */
	SPG_WAIT_TYPE, /* wait_event_type */
	SPG_WAIT,      /* wait_event */
	SPG_STATE_S,   /* now() - state_change */
	SPG_XACT_S,    /* now() - xact_start */
	SPG_QUERY_S,   /* now() - query_start */
	SPG_QUERY,     /* query: "<insufficient privilege>" when hidden */
	SPG_QUERY_ID,  /* query_id (14+, compute_query_id), NULL else */
	SPG_USERID,    /* usesysid, datid: with query_id the digests' key */
	SPG_DBID,
	SPG_BLOCKERS,     /* Lock wait only: its lock's holders, else pg_blocking_pids: "{12,34}" */
	SPG_START_US,     /* backend_start */
	SPG_XACT_US,      /* xact_start */
	SPG_QUERY_US,     /* query_start */
	SPG_SELF,         /* t: pid = pg_backend_pid() */
	SPG_IDLE_UNREAD,  /* summary row only (pid NULL): idle sessions counted, not listed */
	SPG_LOCK_WAITING, /* summary row only: sessions with wait_event_type = 'Lock' (the lock gate) */
	SPG__COUNT
};

/* The PostgreSQL query for server_version_num version_num (static text):
 * one scan of pg_stat_activity; its rows, then one summary row (pid NULL:
 * SPG_IDLE_UNREAD, SPG_LOCK_WAITING). idle: every session listed; else
 * client backends in state idle are only counted (session_set.idle_unread). */
const char *sessions_pg_sql(long version_num, bool idle);
/* "SET LOCAL statement_timeout = <ms>; " + sessions_pg_sql() into buf;
 * NULL when len is too small (4 KiB is enough). */
char *sessions_pg_sql_timed(char *buf, size_t len, long version_num, long timeout_ms, bool idle);
/* One row (the summary row sets ss->idle_unread); cells past ncells count
 * as NULL. */
void sessions_pg_row(struct session_set *ss, const char *const *cell, int ncells);
/* Note after the last row: the rows set SESS_PARTIAL when some sessions'
 * state was hidden; the note then says "GRANT pg_read_all_stats TO user". */
void sessions_pg_finish(struct session_set *ss, const char *user);

/* Columns of the MySQL / MariaDB query, in order (both flavours; NULL
 * where a flavour has no such column). */
enum {
	SMY_ID,          /* PROCESSLIST ID / threads.PROCESSLIST_ID */
	SMY_USER,
	SMY_HOST,        /* "localhost" (socket) or "addr:port" */
	SMY_DB,
	SMY_COMMAND,     /* Sleep, Query, Execute, Daemon, Binlog Dump, ... */
	SMY_TIME,        /* s in this command (integer) */
	SMY_TIME_MS,     /* MariaDB TIME_MS (ms, decimal); NULL on MySQL */
	SMY_STATE,       /* PROCESSLIST STATE ("Sending data", "Waiting for table metadata lock") */
	SMY_INFO,        /* the current statement (PROCESSLIST INFO / events_statements_current SQL_TEXT) */
	SMY_STMT_DONE,   /* MySQL: "1" when SQL_TEXT is the last, finished statement; NULL on MariaDB */
	SMY_STMT_S,      /* MySQL: s the current statement has run (TIMER_WAIT); NULL on MariaDB */
	SMY_QUERY_ID,    /* MariaDB QUERY_ID; NULL on MySQL */
	SMY_TRX_ID,      /* INNODB_TRX.trx_id, NULL: no transaction */
	SMY_TRX_STATE,   /* trx_state: RUNNING, LOCK WAIT, ... */
	SMY_TRX_STARTED, /* "YYYY-MM-DD hh:mm:ss" */
	SMY_TRX_AGE_S,   /* s since trx_started, on the server's clock */
	SMY_TYPE,        /* MySQL threads.TYPE (FOREGROUND / BACKGROUND); NULL on MariaDB */
	SMY_WAIT_EVENT,  /* MySQL events_waits_current.EVENT_NAME while waiting; NULL on MariaDB */
	SMY_SCHEMA,      /* MySQL events_statements_current CURRENT_SCHEMA (the digest's schema) */
	SMY_DIGEST,      /* MySQL events_statements_current DIGEST */
	SMY_PROGRAM,     /* MySQL session_connect_attrs program_name; NULL on MariaDB */
	SMY_SELF,        /* "1": dbtop's own connection */
	SMY__COUNT
};

/* The MySQL / MariaDB query (static text): MySQL 8
 * performance_schema.threads + events_statements_current +
 * events_waits_current (+ INNODB_TRX with PROCESS); MariaDB
 * information_schema.PROCESSLIST alone, not sorted (sessions_my_finish
 * sorts by id), its transactions read first by sessions_my_trx_sql() and
 * merged into each row (sessions_my_trx_fill). */
const char *sessions_my_sql(enum flavour fl, bool priv_process);
/* MariaDB with PROCESS: INNODB_TRX (thread id, trx_id, trx_state,
 * trx_started, age in s), read before the process list; NULL otherwise. */
const char *sessions_my_trx_sql(enum flavour fl, bool priv_process);
struct my_trx {
	long long thread;
	char *cell[4];           /* trx_id, trx_state, trx_started, age (owned) */
};
struct my_trx_set {
	struct my_trx *t;
	size_t n, cap;
};
/* One row of sessions_my_trx_sql(); then sort once, and fill each process
 * list row's SMY_TRX_* cells (cell: SMY__COUNT pointers, into the set). */
void sessions_my_trx_add(struct my_trx_set *ts, const char *const *cell, int ncells);
void sessions_my_trx_sort(struct my_trx_set *ts);
void sessions_my_trx_fill(const struct my_trx_set *ts, const char **cell);
void sessions_my_trx_free(struct my_trx_set *ts);
/* A row sessions_my_row would class SC_IDLE (sleeping, no transaction, a
 * client's, not dbtop's own): what the source only counts
 * (session_set.idle_unread) while the screen hides idle sessions. */
bool sessions_my_idle(const char *const *cell, int ncells);
/* The row waits for a metadata lock: STATE LIKE 'Waiting for%metadata
 * lock', the MariaDB metadata-lock check's own predicate
 * (mysql_locks_mdl_count_sql), so a whole list read counts them. */
bool sessions_my_mdl_wait(const char *const *cell, int ncells);
void sessions_my_row(struct session_set *ss, enum flavour fl, const char *const *cell, int ncells);
/* Status and note: SESS_PARTIAL with "GRANT PROCESS ON *.* TO <user>"
 * without PROCESS (each user sees only their own sessions then). */
void sessions_my_finish(struct session_set *ss, enum flavour fl, bool priv_process, const char *user);

struct session_ident;
/* The statement that ends a session (term) or cancels its statement, as
 * the backend runs it and the confirmation shows it: PostgreSQL
 * pg_terminate_backend(id) / pg_cancel_backend(id) (run in a SELECT that
 * checks the backend's identity); MariaDB KILL QUERY ID q for a cancel whose
 * statement's QUERY_ID is known; else KILL id / KILL QUERY id. */
void session_act_sql(bool pg, bool maria, bool term, long long id, const struct session_ident *who, char *out,
		     size_t n);
/* Explain's checks before any SQL. What an explain may plan: SELECT,
 * INSERT, UPDATE, DELETE, REPLACE, MERGE, VALUES, TABLE (WITH ... and
 * parentheses leading to those), one statement (a trailing ';' is fine;
 * literals and comments are skipped when looking for another). Returns
 * true, or false with why in err. */
bool explain_text_ok(const char *q, char *err, size_t elen);
/* Highest $n parameter in a PostgreSQL statement (outside literals,
 * quoted names and comments), 0 when none. */
/* PostgreSQL texts refused before any SQL: control characters but \n \t
 * \r (where two lexers could part), Unicode-escaped names (U&"...", any
 * name spelt unseen), calls of the *_to_xml functions (STABLE, they run
 * SQL while the planner estimates). False with err set. */
bool explain_pg_text_safe(const char *q, char *err, size_t elen);
int explain_pg_params(const char *q);
/* The EXPLAIN for PostgreSQL server_version_num version_num into buf:
 * "EXPLAIN <q>", or "EXPLAIN (GENERIC_PLAN) <q>" for a statement with
 * parameters on 16+; on older servers false with why in err ("PostgreSQL
 * 15 cannot plan a statement with parameters ($1...) without their
 * values; GENERIC_PLAN needs 16"). Trailing ';' dropped. */
bool explain_pg_sql(char *buf, size_t len, const char *q, long version_num, char *err, size_t elen);

/* One row of a tabular plan (MySQL 8 EXPLAIN FOR CONNECTION, MariaDB SHOW
 * EXPLAIN FOR: the column names first, then each row) appended to out as
 * "cell | cell | ...\n": NULL as "NULL", each cell sanitised and cut at
 * 255 bytes. */
struct strbuf;
void explain_table_row(struct strbuf *out, const char *const *cell, unsigned ncells);

#endif
