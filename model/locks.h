/* locks.h - one snapshot of lock waits (who waits for whom, on what) and
 * its analysis into chains: roots, depth, cycles, sessions blocked per
 * root. Filled by the backends (sources/mysql_locks.c, sources/pg_locks.c)
 * from rows of their lock tables; read by the locks pane, the JSON output
 * and recordings. No database or curses headers here. */
#ifndef DBTOP_LOCKS_H
#define DBTOP_LOCKS_H

#include <stdbool.h>
#include <stddef.h>

#define LOCK_QUERY_MAX 1024      /* bytes of statement text kept per session */
#define LOCK_NOTE_LEN 240

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
	/* analysis (lock_set_analyse) */
	bool waits;              /* waiter in at least one edge */
	bool blocks;             /* blocker in at least one edge */
	bool is_root;            /* blocks, and does not wait (or heads a cycle) */
	bool in_cycle;           /* part of a wait cycle (a deadlock in progress) */
	int root;                /* index of its chain's root, -1 when not in a chain */
	int depth;               /* 0 for a root, else the shortest distance to its root */
	int blocked;             /* roots: sessions waiting on it, directly or not */
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
	LOCKS_IDLE = 0,          /* nothing waits: lock tables not queried */
	LOCKS_READ,              /* lock tables read: sessions/edges valid */
	LOCKS_TIMED_OUT,         /* the lock query hit its time limit */
	LOCKS_UNAVAILABLE,       /* cannot be read here: note says why and how to fix */
};

struct lock_set {
	enum lock_status status;
	unsigned waiting;        /* sessions waiting on a lock by the cheap check */
	double query_ms;         /* time the lock query took, ms (0 when not queried) */
	double age_s;            /* 0: read for this sample; else s since the graph was read
				  * (paced under --server-budget; note says so) */
	char note[LOCK_NOTE_LEN]; /* why unavailable / partial, sanitised; "" when none */
	struct lock_session *s;
	size_t ns, cap_s;
	struct lock_edge *e;
	size_t ne, cap_e;
	/* analysis */
	int nroots;
	int ncycles;             /* sessions found on cycles */
};

struct lock_set *lock_set_new(void);
void lock_set_free(struct lock_set *ls);
struct lock_set *lock_set_copy(const struct lock_set *ls);

/* Index of session id, adding it (fields unknown: NaN / "") when new. */
int lock_session_get(struct lock_set *ls, long long id);
/* Set a session's statement (sanitised, cut at LOCK_QUERY_MAX). */
void lock_session_query(struct lock_session *s, const char *q, bool is_last);
/* Add an edge waiter -> blocker (session ids, both added as sessions when
 * new); returns it for the lock fields (all ""), or NULL when waiter ==
 * blocker. One edge per pair of locks: a blocker holding two conflicting
 * locks gives two edges. */
struct lock_edge *lock_edge_add(struct lock_set *ls, long long waiter, long long blocker);

/* Compute roots, depths, cycles and counts; sorts nothing. */
void lock_set_analyse(struct lock_set *ls);

/* The rows of the tree view in display order: each root (most sessions
 * blocked first, then longest transaction), then its waiters depth-first;
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

/* Plain-words state of a session: "idle in transaction 42s", "active 3.1s". */
void lock_state_text(const struct lock_session *s, char *out, size_t len);

#endif
