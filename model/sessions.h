/* sessions.h - every session of the server as one refresh read it: who,
 * from where, in what state, waiting on what, for how long, running which
 * statement; tied to what dbtop knows already (the lock graph's blockers,
 * the digest the statement belongs to). Filled by a source (PostgreSQL
 * pg_stat_activity; MySQL 8 performance_schema.threads +
 * events_statements_current + INNODB_TRX; MariaDB
 * information_schema.PROCESSLIST + INNODB_TRX), carried by a sample like the
 * lock graph, kept by the model, recorded, drawn by panes/sessions.c.
 * No server or curses headers. */
#ifndef DBTOP_SESSIONS_H
#define DBTOP_SESSIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "locks.h"

/* What a session is doing, as one word the screen can sort, colour and
 * hide by; the server's own words stay in session.state. */
enum session_class {
	SC_ACTIVE = 1,     /* running a statement, not waiting on a lock */
	SC_LOCK_WAIT,      /* running, waiting for a lock (blocker known when the graph says) */
	SC_IDLE_IN_TRX,    /* idle inside an open transaction (PG "idle in transaction", MySQL Sleep + INNODB_TRX) */
	SC_IDLE,           /* idle, no transaction */
	SC_BACKGROUND,     /* a server process (PG backend_type other than client backend; MySQL BACKGROUND threads, event scheduler, replication) */
	SC_OTHER,          /* none of these (e.g. PG "fastpath function call", "disabled") */
};

#define SESSION_USER_LEN 64
#define SESSION_DB_LEN 64
#define SESSION_CLIENT_LEN 80
#define SESSION_APP_LEN 64
#define SESSION_STATE_LEN 48
#define SESSION_WAIT_LEN 64
#define SESSION_TYPE_LEN 32
/* statements are cut here (the screen shows less; the details wrap it) */
#define SESSION_QUERY_MAX 4096

struct session {
	long long id;            /* PostgreSQL pid / MySQL processlist id */
	char user[SESSION_USER_LEN];
	char db[SESSION_DB_LEN];       /* database (PG) / schema (MySQL), "" when none */
	unsigned user_oid, db_oid;     /* PG usesysid / datid (the names above are made safe for a terminal:
					* these find the real ones); 0 unknown, not kept in recordings */
	char client[SESSION_CLIENT_LEN]; /* "10.0.0.5:51234", "[local]" / "localhost" (socket), "" unknown */
	char app[SESSION_APP_LEN];     /* PG application_name; MySQL program_name from session_connect_attrs when readable */
	char type[SESSION_TYPE_LEN];   /* PG backend_type ("client backend", "walwriter", ...); MySQL "FOREGROUND"/"BACKGROUND"/COMMAND of system threads */
	enum session_class cls;
	char state[SESSION_STATE_LEN]; /* the server's word: "idle in transaction", "active", "Sleep", "Query", ... */
	char wait[SESSION_WAIT_LEN];   /* "IO:WALSync", "Lock:transactionid", MySQL P_S wait event name or PROCESSLIST.STATE ("waiting for handler commit"); "" when none */
	double state_s;          /* s in that state (PG now()-state_change; MySQL TIME), NaN unknown */
	double trx_age_s;        /* s since its transaction began, NaN when none / unknown */
	double query_s;          /* s since the current (or last) statement began, NaN unknown */
	bool query_is_last;      /* query is the last statement of an idle session */
	char *query;             /* current or last statement, sanitised and redacted, owned; NULL: none / not visible */
	char digest[72];         /* its digest's id as the digests pane keys it (PG queryid in decimal, MySQL DIGEST hex), "" unknown */
	long long blocked_by; /* first blocker's id (PG a holder of its lock, else the lock graph), 0: none / unknown */
	int nblockers;           /* how many sessions block it (0: none / unknown) */
	bool self;               /* dbtop's own connection */
	struct session_ident ident; /* confirms kill / cancel on the same session */
};

enum session_status {
	SESS_OK = 0,             /* every session of the server */
	SESS_PARTIAL,            /* only some: note says which and how to see all (PROCESS / pg_read_all_stats) */
	SESS_UNAVAILABLE,        /* not read: note says why */
	SESS_NOT_READ,           /* not asked for (no screen, tile or --sessions wants them) */
};

#define SESSION_NOTE_LEN 256

struct session_set {
	enum session_status status;
	char note[SESSION_NOTE_LEN]; /* why partial / unavailable and the fix, sanitised; "" when none */
	double query_ms;         /* what the read took on the server's clock, ms */
	double age_s;            /* 0: read for this sample; else s since it was read (paced by --server-budget) */
	unsigned idle_unread;    /* idle sessions (SC_IDLE) counted but not listed: the screen hides idle ones */
	struct session *s;
	size_t n, cap;
	/* while the source fills it: the source's statement texts kept once
	 * per text (borrowed, NULL outside the read) */
	struct text_cache *texts;
};

struct session_set *session_set_new(void);
void session_set_free(struct session_set *ss);
struct session_set *session_set_copy(const struct session_set *ss);
/* Append a session with every field unknown (NaN / "" / 0), return it. */
struct session *session_add(struct session_set *ss, long long id);
/* Set a session's statement: sanitised (no control characters or escape
 * sequences), literals redacted like every statement text, cut at
 * SESSION_QUERY_MAX. */
void session_set_query(struct session *s, const char *q, bool is_last);
/* The same through the text cache tc (NULL: none). */
void session_set_query_from(struct session *s, struct text_cache *tc, const char *q, bool is_last);
/* Fill blocked_by / nblockers from a lock graph where the source could not
 * (MySQL / MariaDB), and SC_LOCK_WAIT for sessions the graph shows waiting. */
void session_set_link_locks(struct session_set *ss, const struct lock_set *ls);

/* Counts by class (what the pane's title and the JSON summary show),
 * idle_unread included. */
struct session_counts {
	unsigned total, active, lock_wait, idle_in_trx, idle, background, other;
};
void session_counts(const struct session_set *ss, struct session_counts *c);

const char *session_class_name(enum session_class c);   /* "active", "waiting for lock", ... */
const char *session_status_name(enum session_status st); /* "ok", "partial", "unavailable", "not read" */

/* The session of this id, or NULL. */
struct session *session_find(const struct session_set *ss, long long id);

/* Columns the list sorts by. */
enum session_col {
	SCOL_ID = 0,
	SCOL_USER,
	SCOL_DB,
	SCOL_CLIENT,
	SCOL_APP,
	SCOL_STATE,      /* by class (active, waiting, idle in transaction, idle, background, other), then state text */
	SCOL_WAIT,
	SCOL_STATE_S,    /* time in state */
	SCOL_TRX_AGE,
	SCOL_QUERY_S,
	SCOL_QUERY,
	SCOL_BLOCKED_BY,
	SCOL__COUNT
};
/* The display order of ss by column col: order[0..ss->n) gets indexes
 * into ss->s. Texts compare case-insensitively, times numerically
 * (unknown / "" last whatever the direction); reverse flips the column's
 * order only: ties go by id ascending both ways, so a row keeps its place
 * among equals from one refresh to the next. */
void session_sort(const struct session_set *ss, enum session_col col, bool reverse, size_t *order);
/* Column name for titles and --sessions text ("id", "user", ...). */
const char *session_col_name(enum session_col col);

struct strbuf;
/* The JSON members for --batch --sessions: ,"sessions_status":"...",
 * ["sessions_note":"..."], ["sessions_age_s":N], "sessions_query_ms":N,
 * "sessions_count":{"total","active","lock_wait","idle_in_trx","idle",
 * "background","other"}, "sessions":[{"id","user","db","client","app",
 * "type","class" (session_class_name),"state","wait","state_s",
 * "trx_age_s","query_s","query" (cut at 200 bytes),"query_is_last",
 * "digest","blocked_by","blockers","self"}] (texts null when ""; times
 * null when unknown); nothing when ss is NULL. */
void session_set_json(struct strbuf *out, const struct session_set *ss);

#endif
