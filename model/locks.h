/* locks.h - one snapshot of lock waits (who waits for whom, on what) and
 * its analysis into chains: roots, depth, cycles, sessions blocked per
 * root. Filled by the backends (sources/mysql_locks_map.c, sources/pg_locks_map.c)
 * from rows of their lock tables; read by the locks pane, the JSON output
 * and recordings. No database or curses headers here. */
#ifndef DBTOP_LOCKS_H
#define DBTOP_LOCKS_H

#include <stdbool.h>
#include <stddef.h>

#define LOCK_QUERY_MAX 1024      /* bytes of statement text kept per session */
#define LOCK_NOTE_LEN 240

/* What tells a session from a later one with the same id, as the lock
 * query read it: x / c act only while the server still shows the same
 * (sources/pg.c pg_act, sources/mysql.c my_act). PostgreSQL pids are
 * reused; a pooled MySQL / MariaDB connection keeps its id across
 * transactions. Times are the server's. */
#define SESSION_TRX_ID_LEN 24
#define SESSION_TIME_LEN 24
struct session_ident {
	bool known;              /* read with the session (false: a recording or
				  * a lock query without these columns) */
	/* PostgreSQL: pg_stat_activity, microseconds since the epoch, 0 when NULL */
	long long start_us;      /* backend_start */
	long long xact_us;       /* xact_start: 0 when no transaction is open */
	long long stmt_us;       /* query_start: the current or last statement */
	/* MySQL / MariaDB: information_schema.INNODB_TRX and PROCESSLIST */
	char trx_id[SESSION_TRX_ID_LEN];       /* trx_id; "" when no transaction
						* (MariaDB: "0" for any read-only one) */
	char trx_started[SESSION_TIME_LEN];    /* trx_started, "YYYY-MM-DD hh:mm:ss" */
	long long query_id;      /* MariaDB PROCESSLIST.QUERY_ID of the current or
				  * last statement (a server-wide counter); 0: unknown
				  * (MySQL has no such column) */
};

/* A session taking part in a wait: a waiter, a blocker or both. */
struct lock_session {
	long long id;            /* MySQL processlist id / PostgreSQL pid */
	char user[64];
	char state[48];          /* "idle in transaction", "active", "Sleep", "Query", ... */
	double state_s;          /* s in that state, NaN when unknown */
	double trx_age_s;        /* s since its transaction began, NaN when none/unknown */
	double wait_s;           /* s waiting for a lock, NaN when it does not wait */
	bool query_is_last;      /* query is the last statement of an idle session */
	char *query;             /* current or last statement, sanitised, owned; may be NULL */
	struct session_ident ident;
	/* analysis (lock_set_analyse) */
	bool waits;              /* waiter in at least one edge */
	bool blocks;             /* blocker in at least one edge */
	bool is_root;            /* blocks, and does not wait (or heads a cycle) */
	bool in_cycle;           /* part of a wait cycle (a deadlock in progress) */
	int root;                /* index of its chain's root, -1 when not in a chain */
	int depth;               /* 0 for a root, else the shortest distance to its root */
	int blocked;             /* roots: sessions waiting on it, directly or not */
	int root_samples;        /* roots: samples in a row it has headed a chain in the same
				  * transaction, this one included (lock_set_carry); 0: not known */
};

/* One waiter -> blocker pair and the two locks involved. */
struct lock_edge {
	int waiter, blocker;     /* indexes into sessions */
	char object[160];        /* schema.table.index, or relation / object name */
	char lock_type[24];      /* RECORD, TABLE, METADATA, relation, transactionid, tuple, ... */
	char requested[48];      /* mode the waiter asked for, e.g. X,GAP,INSERT_INTENTION, ShareLock */
	char held[48];           /* mode the blocker holds (or has queued, see soft) */
	char lock_data[96];      /* row / key the lock is on, or "" */
	bool soft;               /* PG: the blocker only queues ahead, holds nothing that conflicts */
	/* analysis */
	int root;                /* session index of the chain's root */
	int depth;               /* waiter's depth below the root (1 for a direct waiter) */
	bool cycle;              /* the edge is on a wait cycle */
};

/* What was (or was not) read this sample. */
enum lock_status {
	LOCKS_IDLE = 0,    /* nothing waits: lock tables not queried */
	LOCKS_READ,        /* lock tables read: sessions/edges valid */
	LOCKS_TIMED_OUT,   /* the lock query hit its time limit */
	LOCKS_UNAVAILABLE, /* cannot be read here: note says why and how to fix */
	LOCKS_PENDING,     /* sessions wait, the graph's first read is still to come (note);
				  * with waiting 0: not even counted yet (lock_set_counted) */
};

struct text_cache; /* util/redact.h */

struct lock_set {
	enum lock_status status;
	unsigned waiting;        /* sessions waiting on a lock by the cheap check */
	double query_ms;         /* time the lock query took, ms (0 when not queried) */
	double age_s;            /* 0: read for this sample; else s since the graph was read
				  * (paced under --server-budget; note says so) */
	double gate_age_s;       /* 0: every part of the waiting count is this sample's; else s
				  * since its costliest part was read (MySQL / MariaDB: the
				  * metadata-lock check, paced under --server-budget) */
	char note[LOCK_NOTE_LEN]; /* why unavailable / partial, sanitised; "" when none */
	struct lock_session *s;
	size_t ns, cap_s;
	struct lock_edge *e;
	size_t ne, cap_e;
	/* analysis */
	int nroots;
	int ncycles;             /* sessions found on cycles */
	/* while the source fills it: the source's statement texts kept once
	 * per text (borrowed, NULL outside the read) */
	struct text_cache *texts;
};

struct lock_set *lock_set_new(void);
void lock_set_free(struct lock_set *ls);
struct lock_set *lock_set_copy(const struct lock_set *ls);

/* Index of session id, adding it (fields unknown: NaN / "") when new. */
int lock_session_get(struct lock_set *ls, long long id);
/* Set a session's statement (sanitised, cut at LOCK_QUERY_MAX). */
void lock_session_query(struct lock_session *s, const char *q, bool is_last);
/* The same through the text cache tc (NULL: none). */
void lock_session_query_from(struct lock_session *s, struct text_cache *tc, const char *q, bool is_last);
/* Add an edge waiter -> blocker (session ids, both added as sessions when
 * new); returns it for the lock fields (all ""), or NULL when waiter ==
 * blocker. One edge per pair of locks: a blocker holding two conflicting
 * locks gives two edges. */
struct lock_edge *lock_edge_add(struct lock_set *ls, long long waiter, long long blocker);

/* Compute roots, depths, cycles and counts; sorts nothing. */
void lock_set_analyse(struct lock_set *ls);

/* Carry from the sample before (prev, NULL: none) how many samples in a
 * row each root of ls has headed a chain (root_samples): the same session
 * (id, and its start where the server tells) in the same transaction.
 * After lock_set_analyse; a graph not read before leaves 0 (not known). */
void lock_set_carry(struct lock_set *ls, const struct lock_set *prev);

/* The rows of the tree view in display order: each root (one seen in this
 * sample only after those seen longer: a chain that lives less than a
 * refresh, a commit holding its row locks a moment, does not take the top
 * from one that lasts; then most sessions blocked first, then longest
 * transaction), then its waiters depth-first;
 * cycles without a root after them. Each row names a session and the edge
 * that brought it there (-1 for roots). Returns the row count; rows is
 * owned by the caller (free). */
struct lock_row {
	int session;
	int edge;                /* edge whose waiter is this session, -1 for a root */
	int depth;               /* indentation level */
	bool repeat;             /* seen above already (many-to-many, cycle): not expanded */
};
size_t lock_tree_rows(const struct lock_set *ls, struct lock_row **rows);

struct strbuf;
/* The JSON members for --batch: ,"locks_status":"...","locks_waiting":N,
 * "locks":[one object per edge] (null when ls is NULL). Statement texts
 * are cut at 200 bytes. */
void lock_set_json(const struct lock_set *ls, struct strbuf *out);
const char *lock_status_name(enum lock_status st);
/* The waiting count was read: false for the screen's first two samples of
 * a PostgreSQL connection, whose gate waits with the graph (LOCKS_PENDING,
 * waiting 0: a staged first frame does not pay a scan of every session
 * for a count its graph cannot show yet). */
bool lock_set_counted(const struct lock_set *ls);

/* Plain-words state of a session: "idle in transaction 42s", "active 3.1s". */
void lock_state_text(const struct lock_session *s, char *out, size_t len);

/* The lock wait time per second of an interval of dt s, ms/s, from a
 * counter of wait time that grows by a wait's whole length when it ends
 * (MySQL / MariaDB Innodb_row_lock_time: ms, the counter's delta / dt)
 * and the counts around it: was sessions waiting at its start, now at its
 * end, begun waits begun in it (NaN: not known; then that bound is not
 * applied). A pile-up that waits on adds nothing to the counter, and its
 * end adds minutes at once: no more than every session that could wait
 * in the interval (was + begun) waiting all of it, no less than those
 * waiting now that did not begin in it (now - begun) waiting all of it. */
double lock_wait_ms_bounded(double ms, double was, double now, double begun);
/* The longest lock wait of the sessions in root r's chain, s (NaN: none known). */
double lock_chain_wait(const struct lock_set *ls, int r);
/* A blocker idle in its transaction LOCK_IDLE_LONG_S is not a client
 * between two statements, even one starved of CPU on a saturated host
 * (seen: 2-4 s): the findings' idle-root-blocker asks that much of it on a
 * busy host. The finding rests on what a read of the graph saw, not on a
 * graph kept under --server-budget ("as long as it has lasted since": a
 * pgbench client seen idle 2 s, kept 12 s, is no proof of 14 s). So a kept
 * graph is read again once one of its root blockers, seen idle in its
 * transaction LOCK_IDLE_SEEN_S or more, would have reached
 * LOCK_IDLE_LONG_S: lock_set_idle_recheck gives when, s after the read
 * (INFINITY: no such blocker). */
#define LOCK_IDLE_LONG_S 10.0
#define LOCK_IDLE_SEEN_S 1.0
double lock_set_idle_recheck(const struct lock_set *ls);
/* A root blocker idle in its transaction (PostgreSQL's "idle in
 * transaction", "... (aborted)"; MySQL / MariaDB maps Sleep with an open
 * transaction to the same words) blocking someone. */
bool lock_session_idle_blocker(const struct lock_session *s);
/* The session is committing: running COMMIT (pgbench's END), or in the
 * server's commit step (MySQL / MariaDB state "Commit", "Waiting for
 * ... commit"). Its row locks are held until its log flush ends: a chain
 * it heads is a slow commit's consequence, not an incident of its own. */
bool lock_session_committing(const struct lock_session *s);
/* Sessions waiting on chains whose root is committing (*roots: how many
 * such roots). */
int lock_set_commit_waiters(const struct lock_set *ls, int *roots);

/* A server time in microseconds since the epoch as local time,
 * "2026-12-01 14:31:02.123"; "?" for 0. */
void session_time_text(long long us, char *out, size_t len);

/* The identity a k (cancel false) or c (cancel true) checks before it
 * acts, in words for the confirmation: "started 2026-12-01 14:31:02.123,
 * transaction begun 14:31:03.456" (PostgreSQL: a known start_us) or
 * "transaction 25 begun 2026-12-01 14:12:48, ..." (MySQL / MariaDB). */
void session_ident_text(const struct session_ident *id, bool cancel, char *out, size_t len);

/* Is `now` (the session with the same id as read just before acting;
 * present false: there is none) still the one `saw` describes? For
 * PostgreSQL (saw->start_us set): the same backend_start; the same
 * xact_start when saw names a transaction; for cancel the same
 * query_start too. For MySQL / MariaDB: the same transaction (trx_id and
 * trx_started) when saw names one, else still none; the same query_id
 * (when known) for cancel, or when the transaction does not tell (none,
 * or MariaDB's read-only trx_id 0); a kill goes ahead on the same
 * query_id alone (no statement since). When not, why says what changed:
 * "it started at ... (the one you saw at ...)", "it began another
 * transaction ...". */
bool session_ident_same(const struct session_ident *saw, const struct session_ident *now, bool present,
			bool cancel, char *why, size_t len);

#endif
