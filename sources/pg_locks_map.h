/* pg_locks_map.h - PostgreSQL lock waits: the SQL that reads them and the
 * mapper of its rows into a struct lock_set (model/locks.h). Pure (no
 * libpq), so rows recorded from PostgreSQL 13-18 can be unit-tested
 * (tests/unit/test_locks_pg.c, tests/fixtures/locks-pg-*.txt).
 *
 * Use, once per refresh:
 *
 *  1. Gate. Add PG_LOCKS_GATE_SQL as one more select-list item of a
 *     query of the refresh (sources/pg.c runs it as a statement of its own). It is
 *     the number of sessions waiting on a heavyweight lock (wait event type
 *     'Lock', as pg_stat_activity shows it); pg_locks_waiting() turns its
 *     cell into a number for lock_set.waiting. Other users' sessions count
 *     only when the role is a member of pg_monitor (pg_read_all_stats):
 *     without it their wait event type is not shown. For such a role (or
 *     a superuser) PG_LOCKS_GATE_LOCKS_SQL counts the same from pg_locks,
 *     at another cost (sources/pace.h's form_pick chooses).
 *     When it is 0: lock_set.status = LOCKS_IDLE, do not run step 2.
 *
 *  2. Lock query, only when the gate is > 0. Either
 *       pg_locks_sql_timed(buf, len, version_num, timeout_ms)
 *     which writes "SET LOCAL statement_timeout = <ms>; <query>": sent as
 *     one simple-protocol query string it runs as one implicit
 *     transaction, so the time limit applies to the lock query and ends
 *     with it. It returns two results: the SET (no rows), then the rows.
 *     Or, inside a transaction of the backend's own,
 *       BEGIN; SET LOCAL statement_timeout = <ms>; pg_locks_sql(v); COMMIT
 *     Running pg_locks_sql(v) alone is bounded only by the session's
 *     statement_timeout. version_num is server_version_num (caps.version_num):
 *     pg_locks.waitstart is read from PostgreSQL 14 on; on 13 the wait time
 *     is approximated (see PGL_W_WAIT_S).
 *     A timeout (SQLSTATE 57014) means lock_set.status = LOCKS_TIMED_OUT.
 *     Or in two parts a refresh apart, where one statement costs the server
 *     more than a refresh may spend: pg_locks_sql_timed(..., true) (the
 *     edges, no scan of the sessions), then pg_locks_who_sql() (the
 *     sessions they name), and pg_locks_join() in place of step 3's rows.
 *
 *  3. Rows. For every row of the result call pg_locks_map_row(ls, cells,
 *     ncells) with the row's cells as C strings (NULL for SQL NULL, e.g.
 *     PQgetisnull ? NULL : PQgetvalue), in the result's order; then set
 *     ls->status = LOCKS_READ, ls->query_ms, and call lock_set_analyse(ls).
 *     The query returns at most PG_LOCKS_ROW_LIMIT + 1 rows: the one past
 *     the limit only tells the mapper that the answer was cut, and it
 *     writes so in ls->note (the edges kept are those nearest the roots).
 *
 * The edges, found in one pass over pg_locks:
 *   - hard: each waiting lock of pid W with each granted lock on the same
 *     target (all ten target columns, NULL-safe) held by another lock
 *     group B whose mode conflicts with W's request; held = B's mode (B
 *     holding two conflicting modes gives two rows). Cost linear in the
 *     waiting locks: 500 sessions queued for one row give 500 rows.
 *   - only for a waiter with no hard edge, pg_blocking_pids(W) says why it
 *     waits (it queues behind a waiting request, e.g. a reader behind a
 *     waiting LOCK TABLE ... ACCESS EXCLUSIVE): for each pid B in it, B's
 *     lock on the same target that conflicts with W's request:
 *       - B's request only queues ahead of W: a soft edge, held = the mode
 *         B asked for, soft = t;
 *       - B holds it after all (pg_locks and pg_blocking_pids are two
 *         snapshots): a hard edge as above;
 *       - B's lock not seen: still one row, held = '', so that no wait is
 *         lost.
 *     A waiter with a hard edge gets no soft edges: the requests queued
 *     ahead of it are not listed (each waiter in a queue of n would add
 *     up to n - 1 of them), its holders are.
 * Parallel workers' locks count as their leader's (as pg_blocking_pids
 * reports leaders); a prepared transaction is blocker pid 0.
 * Order: by the depth of the blocker below its root (edges whose blocker
 * does not wait first; depth known up to 8), then each waiter's first
 * edge before its others, hard before soft, then waiter and blocker pid.
 */
#ifndef DBTOP_PG_LOCKS_MAP_H
#define DBTOP_PG_LOCKS_MAP_H

#include <stdbool.h>
#include <stddef.h>

struct lock_set;

/* Columns of the lock query, in order. Times are seconds (decimal text). */
enum {
	PGL_WAITER,      /* pid W of the waiting session */
	PGL_BLOCKER,     /* pid B blocking it (0: a prepared transaction) */
	PGL_LOCKTYPE,    /* pg_locks.locktype: relation, transactionid, tuple, advisory, ... */
	PGL_OBJECT,      /* relation name, "transaction 123 on public.t", "advisory 42", ... */
	PGL_LOCK_DATA,   /* "ctid (0,1)", "page 3", or "" */
	PGL_REQUESTED,   /* W's mode, e.g. ShareLock */
	PGL_HELD,        /* B's mode (held, or queued when soft), "" when not seen */
	PGL_SOFT,        /* t: B only queues ahead of W */
	PGL_W_USER,      /* pg_stat_activity of W: usename */
	PGL_W_STATE,     /* state: active, idle in transaction, ... */
	PGL_W_STATE_S,   /* s since state_change */
	PGL_W_XACT_S,    /* s since xact_start */
	PGL_W_WAIT_S,    /* s since pg_locks.waitstart (PG14+); PG13: since state_change
	                  * while active (the statement's age: an upper bound) */
	PGL_W_BACKEND,   /* backend_type */
	PGL_W_QUERY,     /* query (current, or the last one when idle) */
	PGL_B_USER,      /* the same for B */
	PGL_B_STATE,     /* "prepared transaction" for pid 0 */
	PGL_B_STATE_S,
	PGL_B_XACT_S,
	PGL_B_BACKEND,
	PGL_B_QUERY,
	/* the sessions' identity (struct session_ident), microseconds since the
	 * epoch as PG_US() computes them; recorded rows without these columns
	 * leave the identity unknown */
	PGL_W_START_US,  /* backend_start */
	PGL_W_XACT_US,   /* xact_start, NULL: no transaction */
	PGL_W_QUERY_US,  /* query_start */
	PGL_B_START_US,
	PGL_B_XACT_US,
	PGL_B_QUERY_US,
	PGL__COUNT
};

/* A timestamptz column as whole microseconds since the epoch (bigint):
 * what the lock query reads and pg_act compares, computed alike. */
#define PG_US(col) "(extract(epoch FROM " col ") * 1000000)::bigint"

/* Heavyweight lock modes, numbered 1..8 by array_position, and for each
 * the modes it conflicts with as a bit mask (bit k-1 for mode k):
 * 1x{8}, 2x{7,8}, 3x{5-8}, 4x{4-8}, 5x{3,4,6,7,8}, 6x{3-8}, 7x{2-8}, 8xall.
 * Modes outside the list (SIReadLock) conflict with nothing. */
#define PGL_MODES \
	"ARRAY['AccessShareLock','RowShareLock','RowExclusiveLock','ShareUpdateExclusiveLock'," \
	"'ShareLock','ShareRowExclusiveLock','ExclusiveLock','AccessExclusiveLock']"
#define PGL_CONFLICTS "(ARRAY[128,192,240,248,236,252,254,255])"

/* The target of lock a equals that of lock b: all ten columns, NULL-safe
 * (after the text key tk, which the planner can hash on). */
#define PGL_SAME_TARGET(a, b) \
	" " a ".tk = " b ".tk AND " a ".locktype = " b ".locktype" \
	" AND " a ".database IS NOT DISTINCT FROM " b ".database" \
	" AND " a ".relation IS NOT DISTINCT FROM " b ".relation" \
	" AND " a ".page IS NOT DISTINCT FROM " b ".page" \
	" AND " a ".tuple IS NOT DISTINCT FROM " b ".tuple" \
	" AND " a ".virtualxid IS NOT DISTINCT FROM " b ".virtualxid" \
	" AND " a ".transactionid IS NOT DISTINCT FROM " b ".transactionid" \
	" AND " a ".classid IS NOT DISTINCT FROM " b ".classid" \
	" AND " a ".objid IS NOT DISTINCT FROM " b ".objid" \
	" AND " a ".objsubid IS NOT DISTINCT FROM " b ".objsubid"
/* Lock b's mode conflicts with the mode lock w asks for. */
#define PGL_CONFLICT(w, b) " AND (" PGL_CONFLICTS "[" w ".m] & (1 << (" b ".m - 1))) <> 0"

/* pg_locks k as the lock graph and the session list's blockers join it
 * (the CTE a, pg_stat_activity, names the parallel workers' leaders): the
 * ten target columns, pid, mode, granted, then extra (select-list items
 * ending in a comma, or ""), gpid (the pid pg_blocking_pids reports for
 * the lock's holder: a parallel worker's leader; 0 for a prepared
 * transaction, whose locks have no pid), m (the mode's number) and tk (the
 * target as text, an equality the planner can hash on; the exact
 * NULL-safe comparison follows it). */
#define PGL_LOCKS_SQL(extra) \
	" SELECT k.locktype, k.database, k.relation, k.page, k.tuple, k.virtualxid, k.transactionid," \
	" k.classid, k.objid, k.objsubid, k.pid, k.mode, k.granted," extra \
	" coalesce(pw.leader_pid, k.pid, 0) AS gpid, array_position(" PGL_MODES ", k.mode) AS m," \
	" concat_ws(' ', k.locktype, k.database, k.relation, k.page, k.tuple, k.virtualxid," \
	" k.transactionid, k.classid, k.objid, k.objsubid) AS tk" \
	" FROM pg_locks k LEFT JOIN a pw ON pw.pid = k.pid AND pw.backend_type = 'parallel worker'"
/* The hard edges over PGL_LOCKS_SQL's rows l, as the FROM and WHERE of a
 * select: each waiting lock w with each granted lock bl of another lock
 * group on the same target whose mode conflicts with w's request. Linear
 * in the waiting locks: 500 sessions queued for one row give 500 rows. */
/* clang-format off */
#define PGL_HARD_EDGES \
	" FROM l w JOIN l bl ON" \
	PGL_SAME_TARGET("bl", "w") \
	" AND bl.granted AND bl.gpid <> w.gpid" \
	PGL_CONFLICT("w", "bl") \
	" WHERE NOT w.granted AND w.pid IS NOT NULL"
/* clang-format on */

/* Edges the lock query returns at most (it asks for one row more, to tell
 * a cut answer from a full one). */
#define PG_LOCKS_ROW_LIMIT 5000

/* The gate: an expression (a scalar subquery, bigint) for the select list
 * of a query run every refresh. The per-backend function, not the view:
 * pg_stat_activity makes every column of every session (its query text,
 * its client address, the joins to pg_database and pg_authid) to count
 * one (psql's clock, medians: 7 sessions 0.07 against 0.21 ms; 280
 * sessions 0.25-0.3 against 3-4 ms; 2,500 idle sessions even, 11-22 ms
 * each, where the part both share, the copy of every session's status
 * and each session's process looked up, is the cost). Both take the
 * sessions' status once per statement and find each session's wait in
 * the same place, so they count the same; the auxiliary processes (whose
 * wait event the function does not show up to PostgreSQL 13) do not queue
 * for the relation and row locks the graph shows. */
#define PG_LOCKS_GATE_SQL \
	"(SELECT count(*) FROM pg_stat_get_backend_idset() b WHERE pg_stat_get_backend_wait_event_type(b) = 'Lock')"
/* The same count from pg_locks: a session waits for one heavyweight lock
 * at a time, its one request not granted (a fast-path or a prepared
 * transaction's lock is always granted, a predicate lock too). Every
 * user's waits show there, so it stands in for the gate only for a role
 * that sees every session's wait (pg_monitor, superuser). Its cost grows
 * with the locks held, not with the sessions: 2,500 idle sessions
 * 0.64-1.37 ms against the gate's 11-22 ms (bench/RESULTS.md). */
#define PG_LOCKS_GATE_LOCKS_SQL "(SELECT count(*) FROM pg_locks WHERE NOT granted)"

/* Sessions waiting, from the gate's cell (0 for NULL or not a number). */
unsigned pg_locks_waiting(const char *cell);

/* The lock query for server_version_num version_num (one SELECT, no
 * time limit of its own; static text). */
const char *pg_locks_sql(long version_num);

/* The lock query in two statements, for a server where one costs more
 * than a refresh may spend (pg_stat_activity of thousands of sessions):
 * pg_locks_edges_sql() is the lock query without the sessions (no scan of
 * pg_stat_activity; the columns of each session NULL, a parallel worker's
 * lock its own), read first; pg_locks_who_sql() then reads the sessions of
 * those edges, and pg_locks_join() maps both into a lock_set as one
 * answer of the lock query would be. */
const char *pg_locks_edges_sql(long version_num);
/* The pane's note while the first of the two reads waits for the second. */
#define PG_LOCKS_TWO_READS_NOTE "read in two parts: the waits now, who waits and who blocks at the next refresh"

/* "SET LOCAL statement_timeout = <timeout_ms>; " + pg_locks_sql() (or
 * pg_locks_edges_sql() when edges) into buf; returns buf, or NULL when
 * len is too small (8 KiB is enough). timeout_ms < 1 is taken as 1. */
char *pg_locks_sql_timed(char *buf, size_t len, long version_num, long timeout_ms, bool edges);

/* Columns of pg_locks_who_sql(), in order. */
enum {
	PGLW_PID,
	PGLW_LEADER,  /* leader_pid: a parallel worker's leader, else NULL (or its own pid) */
	PGLW_WAITING, /* t: it waits for a heavyweight lock now (wait_event_type 'Lock') */
	PGLW_USER,    /* as PGL_W_USER .. PGL_W_XACT_S, PGL_W_BACKEND, PGL_W_QUERY */
	PGLW_STATE,
	PGLW_STATE_S,
	PGLW_XACT_S,
	PGLW_BACKEND,
	PGLW_QUERY,
	PGLW_START_US,
	PGLW_XACT_US,
	PGLW_QUERY_US,
	PGLW__COUNT
};

/* The sessions of edges (n rows of pg_locks_edges_sql(), PGL__COUNT
 * cells each, row-major): "SET LOCAL statement_timeout = <timeout_ms>; "
 * and a SELECT of pg_stat_activity for the waiters and blockers named
 * into out (one scan of every session, as the one-statement query's;
 * a blocking parallel worker's leader is found only when it is named
 * too, as it is when it holds the same lock). Returns
 * the number of sessions asked for (0: none, out untouched). */
struct strbuf;
size_t pg_locks_who_sql(struct strbuf *out, const char *const *edges, size_t n, long timeout_ms);

/* The lock_set of edges (as above) and of who (m rows of
 * pg_locks_who_sql(), PGLW__COUNT cells each, any order), row by row as
 * pg_locks_map_row() would map the one-statement answer: each session
 * from its row of who; an edge whose waiter no longer waits for a lock,
 * or whose waiter or blocker has gone (no row), left out (the two reads
 * are a refresh apart); a parallel worker that blocks named as its
 * leader when who has the leader's row (the same edge from two workers
 * of one leader kept once). A waiter's wait is as of who's read: on
 * PostgreSQL 13 (v13) an active waiter's state's age, later the wait
 * the edges read plus dt, the s between the two reads (it still waits). */
void pg_locks_join(struct lock_set *ls, const char *const *edges, size_t n, const char *const *who, size_t m, bool v13,
		   double dt);

/* One row of the lock query into ls: both sessions (added when new; user,
 * state, state_s, trx_age_s, query; wait_s for the waiter) and one edge
 * (object, lock_type, requested, held, lock_data, soft). cell[i] is column
 * i (PGL_*), NULL for SQL NULL; columns at or past ncells count as NULL.
 * A row without a valid waiter or blocker pid, or with waiter == blocker,
 * adds nothing. A row that comes when ls already holds PG_LOCKS_ROW_LIMIT
 * edges is the query's row past its limit: it adds nothing, and ls->note
 * (when still empty) says that the answer was cut. Strings are sanitised
 * for the terminal. */
void pg_locks_map_row(struct lock_set *ls, const char *const *cell, int ncells);

#endif
