/* source.h - the backend ops table and the generic connection driver.
 * One ops table per engine (sources/mysql.c, sources/pg.c, record/replay.c); callers never
 * branch on the engine. */
#ifndef DBTOP_SOURCE_H
#define DBTOP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/locks.h"
#include "../model/release.h"
#include "../model/sessions.h"
#include "../core/tunables.h"
#include "../core/caps.h"
#include "../core/sample.h"
#include "../config/dsn.h"
#include "host_read.h"

struct source;

#define TUNE_PENDING_LEN (2 * NOTE_LEN)
/* How tune_call.pending starts when the files could not be read. */
#define TUNE_PENDING_UNREAD "pending edits of postgresql.conf / pg_hba.conf could not be checked"

/* One tuning step asked of a backend. */
enum tune_call_what {
	TC_PROBE = 1, /* current value and privilege of every tunable of this flavour */
	TC_PREV,      /* the state to restore for c->t (c->kind: server-wide, or for role /
			 * database c->target): undo token and running value */
	TC_EXEC,      /* run c->sql (PostgreSQL: then pg_reload_conf() when c->reload) */
	TC_LOCK,      /* try the server-wide tuning lock on this session: c->got, else c->holder */
	TC_UNLOCK,    /* release it */
};

/* The tuning lock: one dbtop tunes a server at a time. MySQL / MariaDB
 * GET_LOCK(TUNE_LOCK_NAME, 0); PostgreSQL a session advisory lock on the
 * two keys ("dbto", "tune"), checked in every database (pg_locks). */
#define TUNE_LOCK_NAME "dbtop.tune"
#define TUNE_LOCK_PG_KEY1 1684174959
#define TUNE_LOCK_PG_KEY2 1953852773

struct tune_call {
	enum tune_call_what what;
	const struct tunable *t;              /* TC_PREV */
	enum tune_kind kind;                  /* TC_PREV: TK_PG_ROLE / TK_PG_DATABASE for c->target;
					       * anything else: t's own (server-wide) */
	char target[TUNE_TARGET_MAX + 1];     /* TC_PREV in: the name; out: the role's or database's
					       * real name (found by target_oid when set) */
	unsigned target_oid;                  /* TC_PREV in: its oid, 0: find it by name */
	/* TC_PROBE out, indexed like tunables[] */
	bool known[TUNABLES_MAX];
	char current[TUNABLES_MAX][TUNE_VALUE_LEN];
	bool allowed[TUNABLES_MAX];
	char undo_hint[TUNABLES_MAX][80];     /* the undo token a change now would save ("": unknown) */
	char note[NOTE_LEN];                  /* a remark for the whole table */
	/* PostgreSQL: what pg_reload_conf() would apply besides the change
	 * (pending edits or errors of the configuration files), or that it
	 * could not be checked; "": nothing */
	char pending[TUNE_PENDING_LEN];
	/* TC_PREV out. A role or a database: undo "set:VALUE" / "reset" from
	 * its own line in pg_db_role_setting, was that value or else the
	 * server's (what its new sessions got); undo "gone" when there is no
	 * such role or database */
	char undo[80];
	char was[TUNE_VALUE_LEN];
	/* TC_EXEC in */
	const char *sql;
	bool reload;
	bool unsure;                          /* TC_EXEC failed, but the change may be in force */
	/* TC_LOCK out */
	bool got;                             /* this session holds the lock now */
	char holder[NOTE_LEN];                /* who holds it otherwise (session, user, host) */
	char err[NOTE_LEN];
};

struct source_ops {
	const char *name;
	/* Connect and probe caps. Returns 0, or -1 with a message in err. */
	int (*connect)(struct source *src, char *err, size_t errlen);
	/* Read counters (and settings when want_settings) into out and set
	 * out->state. Returns 0, 1 when a finite source (a recording) has no
	 * more samples, or -1 with out->error set; out->state is STALLED when
	 * the time limit hit. After -1 the driver closes the connection. */
	int (*sample)(struct source *src, struct sample *out, bool want_settings);
	/* Drop the connection; safe to call when not connected. */
	void (*close)(struct source *src);
	/* Optional: a quick look between samples (sampled digests when the
	 * server has no statement statistics); errors wait for the next
	 * sample. Called only when src->wants_subsample. */
	void (*subsample)(struct source *src);
	/* Optional: end session id (what 1) or cancel its statement (what 2),
	 * only while the server still shows the session `who` describes (as a
	 * sample read it: session_ident_same() says what must match); the
	 * check runs in the statement that acts (PostgreSQL, MariaDB) or just
	 * before it (MySQL). Returns 0 with what happened in msg, or -1 with
	 * the server's reason or what changed ("session 1234 is not the one
	 * you saw: ...; nothing was done"). */
	int (*act)(struct source *src, int what, long long id, const struct session_ident *who, char *msg,
		   size_t len);
	/* Optional: tuning (tune/tuner.c drives it, on the sampler thread).
	 * Returns 0, or -1 with c->err. */
	int (*tune)(struct source *src, struct tune_call *c);
	/* Optional: the plan of session id's current statement, without
	 * running it (never ANALYZE): MySQL 8 EXPLAIN FOR CONNECTION id,
	 * MariaDB SHOW EXPLAIN FOR id, PostgreSQL EXPLAIN of the statement
	 * text read again from pg_stat_activity for the session who describes
	 * (who->known false: whatever it runs now), inside BEGIN READ ONLY ...
	 * ROLLBACK with the query time limit; EXPLAIN (GENERIC_PLAN) for a
	 * statement with $n parameters on 16+. Statements other than SELECT /
	 * INSERT / UPDATE / DELETE / REPLACE / MERGE (WITH ... of those) and
	 * several statements are refused before any SQL. Allowed under
	 * --read-only (it changes nothing). Returns 0 with the plan's lines in
	 * plan (cut at len), or -1 with why in err. */
	int (*explain)(struct source *src, long long id, const struct session_ident *who, char *plan, size_t len,
		       char *err, size_t elen);
};

/* A backend's tuning steps, each as ops->tune is called for it. */
struct tune_steps {
	int (*probe)(struct source *src, struct tune_call *c);   /* TC_PROBE */
	int (*prev)(struct source *src, struct tune_call *c);    /* TC_PREV */
	int (*lock)(struct source *src, struct tune_call *c);    /* TC_LOCK, TC_UNLOCK */
	int (*exec)(struct source *src, struct tune_call *c);    /* TC_EXEC */
};
/* ops->tune for a backend: the step c->what asks for; the lock and the
 * changes are refused under --read-only. Returns 0, or -1 with c->err. */
int source_tune(struct source *src, struct tune_call *c, const struct tune_steps *t);

/* Why an action on session id was refused, into msg, from a read of the
 * session after it: present < 0 when the read failed (err says why), 0
 * when the session is gone, else now is what the server shows, compared
 * with who (the session as the sample saw it). */
void source_act_refused(char *msg, size_t len, long long id, int present, const struct session_ident *who,
			const struct session_ident *now, bool cancel, const char *err);

/* The ops table of a backend whose functions are PREFIX_connect,
 * PREFIX_sample, PREFIX_close, PREFIX_subsample, PREFIX_act, PREFIX_tune,
 * PREFIX_explain. */
#define SOURCE_OPS(label, prefix)                                                                  \
	{                                                                                          \
		.name = label, .connect = prefix##_connect, .sample = prefix##_sample,             \
		.close = prefix##_close, .subsample = prefix##_subsample, .act = prefix##_act,      \
		.tune = prefix##_tune, .explain = prefix##_explain,                                \
	}

#define SRC_ACT_TERMINATE 1
#define SRC_ACT_CANCEL 2

/* The large paced reads, which share what every refresh and the summaries
 * leave of --server-budget (struct source's paced_ms, source_pace_read). */
enum { PACED_LOCKS, PACED_DIGESTS, PACED_SESSIONS, PACED__COUNT };

struct source {
	const struct source_ops *ops;
	struct target *tgt;
	struct caps caps;
	void *priv;              /* backend's connection state */
	const void *arg;         /* backend's configuration (replay: struct replay_cfg) */
	double start_wall;       /* s since the epoch: start of the data */
	bool finished;           /* a finite source has delivered everything */
	double sub_hz;           /* subsamples per second (--sample-hz) */
	bool wants_subsample;    /* set by the backend at connect */
	double query_timeout;    /* s, per statement */
	bool read_only;          /* --read-only: read-only session, no writes */
	volatile int *stop_flag; /* when set and non-zero: stop waiting (replay pacing) */
	volatile int *pause_flag; /* when set and non-zero: the replay clock stands still */
	/* replay seeks (one mechanism for --from and the screen's keys): the
	 * samples up to wall time seek_to come at once, paused or not (0:
	 * none), and seek_steps more samples after that (a step forward while
	 * paused; changed with __atomic builtins by both threads) */
	volatile double seek_to;
	int seek_steps;
	/* --server-budget: server time per refresh (ms) that the costly reads
	 * (lock graph, statement digests) may take on average; 0: read them
	 * on every refresh */
	double budget_ms;
	/* server time of the reads done at every refresh (ms, moving average;
	 * set by the backend, 0: not measured): the paced reads share what is
	 * left of budget_ms (source_pace_next) */
	double fixed_ms;
	/* server time per refresh of the summaries that add up every thread
	 * or session (MySQL / MariaDB: the statement and wait summaries, the
	 * metadata-lock check; ms, moving average over their reads and the
	 * refreshes between; 0: none): the lock graph, the digests and the
	 * session list share what the summaries leave (source_pace_next), so
	 * the shares add up to the budget, not above it */
	double summary_ms;
	/* the large paced reads (PACED_*): each one's server time per refresh
	 * as paced (its last cost over the s to its next read, ms) and until
	 * when that holds (monotonic s: its next read and two refreshes of
	 * grace). A read takes its share of what is left, or what the others
	 * leave of it when that is less (a read held at its PACE_MAX_S, the
	 * three shares above one): source_pace_read */
	double paced_ms[PACED__COUNT];
	double paced_until[PACED__COUNT];
	double interval;         /* s between refreshes (set by the caller; 0: 1) */
	double sub_every;        /* s between subsamples now (source_subsample) */
	double sub_cost_ms;      /* a subsample's server cost, moving average */
	/* set by ops->subsample: the server's own time for the look, ms,
	 * measured on the server (< 0: unknown, then the round trip counts) */
	double sub_server_ms;
	/* driver state */
	bool connected;
	uint32_t conn_gen;
	double next_try;         /* monotonic s of the next connect attempt */
	double backoff;          /* s */
	bool retry_each_interval; /* several targets: a DOWN server is tried again every
				   * interval (no back-off), so its return shows at once */
	double next_settings;    /* monotonic s of the next settings refresh */
	double changed_mono;     /* monotonic s a read found a setting's value changed (0: never) */
	double settings_every;   /* s */
	/* the settings of the last full read, with the watched ones
	 * (setting_watched) as the last refresh read them: a backend reads
	 * those of them the server has at every refresh (source_watched) */
	int nset_last;
	struct setting set_last[SETTINGS_MAX];
	char last_error[NOTE_LEN];
	/* lock graph pacing (source_locks_reuse / source_locks_read) */
	struct lock_set *lk_last;  /* the last graph read, owned */
	double lk_read, lk_next;   /* monotonic s it was read / of the next read */
	double lk_lead;            /* s from a read's start to its graph (a refresh when the
				    * backend reads it in two parts a refresh apart; else 0) */
	double lk_recheck;         /* monotonic s it is read again for an idle blocker's sake
				    * (lock_set_idle_recheck; INFINITY: none) */
	uint32_t lk_gen;           /* conn_gen of lk_last */
	bool lk_with_list;         /* lk_last came with the session list, in one statement
				    * (MariaDB: my_read_joined), so it is read again with it */
	/* what the server's own counters say of the waits: a stamp that
	 * changes whenever a lock wait begins or ends (MySQL / MariaDB: the
	 * row-lock waits begun and waiting now), set by the backend before
	 * each lock read; 0: not known (metadata-lock waits, PostgreSQL).
	 * While the stamp of the last graph holds, the pile-up is the one
	 * read, and the graph is read again only every PACE_MAX_STILL_S at
	 * most (lk_still_next) */
	uint64_t lk_stamp_now, lk_stamp;
	double lk_still_next; /* monotonic s of the next read while the stamp holds */
	/* sessions (model/sessions.h): read only while wanted (the sessions
	 * screen or tile shows, or --sessions), paced under --server-budget
	 * (source_sessions_reuse / source_sessions_read) */
	bool want_sessions;
	bool sessions_idle;        /* idle sessions listed too (else only counted: session_set.idle_unread) */
	bool ss_idle;              /* sessions_idle when ss_last was read */
	struct session_set *ss_last; /* the last list read, owned */
	double ss_read, ss_next;   /* monotonic s it was read / of the next read */
	uint32_t ss_gen;           /* conn_gen of ss_last */
	uint32_t ss_read_gen;      /* conn_gen of the last list read, kept or not
				    * (its first read may come early: source_sessions_join) */
	/* the log devices (caps.logdev) were found on this host: their
	 * /proc/diskstats counters are read with every sample */
	bool host_io;
	double io_at; /* monotonic s of the /proc/diskstats text it took last */
	/* the server runs on this host: the host's CPU pressure and its
	 * tasks' CPU waits are read with every sample (sources/host_read.c) */
	bool host_load;
	struct hostload_state hl;
	/* the first frame first (the screen): the costly first reads of a
	 * connection (digests, lock graph, session list, summaries of every
	 * thread) wait until its first two samples gave the rates, then come
	 * one per refresh (source_first_reads_wait) */
	bool stage_first;
	unsigned conn_samples;     /* samples taken on this connection */
	/* their turns (source_first_reads_wait): the ranks (bits) whose start
	 * is still to come; the rank whose costly first read this sample paid
	 * for (-1: none); the samples the turn (the lowest rank still to
	 * come) has had, whether it read in this one, and whether it began in
	 * this one (when the rank before it ended) */
	unsigned first_pending;
	int first_paid;
	unsigned first_turn_samples;
	bool first_turn_read, first_turn_new;
	/* one of several targets, not on the screen (the fleet screen shows
	 * its row only, or --batch with several targets): its looks between
	 * refreshes come at most once per refresh; set by the screen's thread,
	 * read by the sampler's: __atomic builtins) */
	volatile bool background;
};

/* What one statement of a backend came to: failed with the reason in err
 * (stalled when its time limit hit, or the connection dropped at it), and
 * its round trip. Backends fill it; the helpers below account for it. */
struct qres {
	bool failed;
	bool stalled;
	double ms;               /* round trip, ms */
	char err[NOTE_LEN];      /* sanitised; "" unless failed */
};
/* Count the statement in out: its round trip (out->query_ms) and one more
 * query (out->nqueries). */
void qres_count(struct sample *out, const struct qres *r);
/* The statement failed the sample: its reason into out->error, out->state
 * STALLED when the time limit hit, DOWN otherwise. Returns -1. */
int qres_fail(struct sample *out, const struct qres *r);

/* The ops table for an engine, or NULL (sources/registry.c: links the
 * client libraries). */
const struct source_ops *source_ops_for(enum engine e);
/* Why source_ops_for() returned NULL. */
const char *source_ops_error(void);

/* Prepare src to reach target t through ops (does not connect). */
void source_init(struct source *src, const struct source_ops *ops, struct target *t,
		 double query_timeout);

/* First connection: returns 0, or -1 with the reason in err. */
int source_open(struct source *src, char *err, size_t errlen);

/* One poll: connects again when due, samples, and on failure closes and
 * schedules a retry with exponential back-off. Always fills out (state DOWN
 * / STALLED with the reason when no data). */
/* The i-th watched setting of the last full read, to be read at this
 * refresh (i from 0 while it returns non-NULL); only names of letters,
 * digits and '_' (they go into SQL). */
const char *source_watched(const struct source *src, int i);
void source_tick(struct source *src, struct sample *out);

/* Is a server reached at host on this machine: no host (the default
 * socket), "localhost", a socket path, a loopback address (127.x, ::1),
 * or a MySQL client's host info ("Localhost via UNIX socket",
 * "127.0.0.1 via TCP/IP")? */
bool source_host_local(const char *host);

/* The backend's half of caps.logdev at connect: the server is on this host
 * (local) or not (at: where, for the note); the directories the driver
 * looks under come with logdir_add. */
void source_logdev_remote(struct caps *c, const char *at);
void source_logdev_add(struct caps *c, const char *role, const char *path);

void source_close(struct source *src);

/* True while the costly first read of rank must wait (stage_first: the
 * screen's start). The first two samples read the counters alone (the
 * first rates); then the ranks take turns in order (0: first), each until
 * its start is over (source_first_read_done: one reading, or two where
 * the first rates need two, unless the first cost a quarter of the budget
 * or less: the second is then paced as any read), and a rank that did not
 * read in a sample of its turn (nothing to read) gives it up. A first read costlier than the
 * budget pays for its refresh: the next rank's turn begins at the next;
 * a cheap one leaves the rest of its refresh to the next rank. So no
 * refresh of the start pays for two costly reads, and a rank with nothing
 * to read holds none up for long. */
bool source_first_reads_wait(const struct source *src, unsigned rank);
/* Ranks of the first reads (source_first_reads_wait): what matters most
 * in an incident first. */
enum { FIRST_LOCKS = 0, FIRST_DIGESTS, FIRST_SESSIONS, FIRST_SUMMARY, FIRST_WAITS, FIRST__COUNT };
/* A read of rank took ms of server time in this sample; complete: the
 * rank's start is over (its turn passes to the next rank). */
void source_first_read_done(struct source *src, unsigned rank, double ms, bool complete);
/* Every rank to come (a new connection: source_open). */
void source_first_reads_begin(struct source *src);
/* The end of a sample that was taken (source_tick, after conn_samples
 * counts it): the turn held, passed on, or given up. */
void source_first_reads_next(struct source *src);
/* The note of a read that waits (source_first_reads_wait). */
#define FIRST_READ_NOTE "first read in turn after first rates"

/* Pacing of a costly read under --server-budget: a read that took cost_ms
 * may take share (0..1) of the budget per refresh, of what is left of it
 * after the reads of every refresh (src->fixed_ms) and, for a read whose
 * share is above PACE_SHARE_SUMMARY, after the summaries (src->summary_ms);
 * at least PACE_LEFT_MIN of it. Returns the monotonic
 * time of the next read: by the next refresh when it is cheap enough,
 * otherwise as many refreshes ahead as it takes to stay within its share
 * on average (at most PACE_MAX_S). 0 when there is no budget. */
#define PACE_MAX_S 30.0
#define PACE_MAX_TIMED_OUT_S 120.0   /* a lock read that timed out */
/* A lock graph whose pile-up has not moved since it was read (no wait
 * began or ended: src->lk_stamp) may stand this long under the budget
 * instead of PACE_MAX_S; its age is on the pane and in JSON. */
#define PACE_MAX_STILL_S 120.0
#define PACE_SLACK_S 0.1
#define PACE_LEFT_MIN 0.1
double source_pace_next(const struct source *src, double now, double cost_ms, double share);
/* source_pace_next for a large paced read (PACED_*, its share
 * PACE_SHARE_LOCKS, _DIGESTS or _SESSIONS), which also takes no more than
 * the other two leave of what is left while they pace (src->paced_ms; the
 * floor of PACE_LEFT_MIN still holds), and keeps what it spends a refresh
 * at that pace for theirs. */
double source_pace_read(struct source *src, int read, double now, double cost_ms);
/* A large paced read read with another in one statement (MariaDB: the lock
 * graph with the session list) spends only own_ms of the total_ms it was
 * paced from: the other counts the rest. */
void source_pace_joined(struct source *src, int read, double own_ms, double total_ms);
/* Share of the budget of the lock graph and of the statement digests; the
 * sessions sampled between refreshes (sampled wait events and digests)
 * may take as much again, spread over the interval. */
#define PACE_SHARE_LOCKS 0.5
#define PACE_SHARE_DIGESTS 0.5
#define PACE_SHARE_SAMPLING 0.5
/* Share of each summary that adds up every thread or session of the
 * server (MySQL / MariaDB: the statement and wait summaries, the
 * metadata-lock check): cheap on an ordinary server, so read at every
 * refresh; with thousands of sessions, every few. */
#define PACE_SHARE_SUMMARY 0.1
#define PACE_SUB_FLOOR_MS 2.0   /* looks cheaper than this keep --sample-hz */
#define PACE_SUB_MIN_HZ 2.0     /* the budget never slows the looks below this */

/* One subsample (ops->subsample), timed by the server's own time for it
 * (src->sub_server_ms; the round trip only when the backend cannot say):
 * a busy client or network inflates the round trip, not the server's
 * cost. Returns the s until the next: 1/sub_hz, or longer when a look
 * costs PACE_SUB_FLOOR_MS or more and more than PACE_SHARE_SAMPLING of
 * --server-budget per refresh allows (thousands of sessions), but never
 * below PACE_SUB_MIN_HZ (or --sample-hz when that is lower). Also sets
 * sub_every. */
double source_subsample(struct source *src);
/* Subsamples per second now (--sample-hz, or fewer under the budget). */
double source_sub_hz(const struct source *src);

/* Lock graph pacing, both engines. Before a lock read with `waiting`
 * sessions waiting (by the cheap check): when the graph read last is not
 * due again yet, a copy of it, its times advanced to now and a note saying
 * how old it is, for the caller to publish instead of reading (NULL: read
 * now). busy: this refresh paid for another costly read already, so a
 * graph just due waits one refresh more (the two add up in one refresh
 * only when they share a server cache: source_sessions_join). A waiting
 * count more than a quarter (and 2) away from the graph's is read again at
 * once; waiting == 0 forgets the last graph. */
struct lock_set *source_locks_reuse(struct source *src, unsigned waiting, double now, bool busy);
/* The graph read last on this connection, aged to now (its note says how
 * old and how often it is read), while a new one is being read over two
 * refreshes; NULL when there is none. */
struct lock_set *source_locks_last(struct source *src, unsigned waiting, double now);
/* The lock graph will be read at now with `waiting` sessions waiting
 * (not the first frame's wait, not kept from a read a moment ago). */
bool source_locks_due(const struct source *src, unsigned waiting, double now);
/* The next refresh reads the lock graph whatever it costs (after a session
 * was ended or cancelled from the screen). */
void source_locks_forget(struct source *src);
/* After a lock read (LOCKS_READ or LOCKS_TIMED_OUT) that took ms: keep a
 * copy and schedule the next read. */
void source_locks_read(struct source *src, const struct lock_set *ls, double ms, double now);

/* Session list pacing, both engines (sources/sessions_pace.c). Before a
 * session read: when the list read last is not due again yet, a copy of
 * it, its age_s set and a note saying how old it is, to publish instead of
 * reading (NULL: read now). due_at: when the refresh chose its reads (a
 * list not due then, so not read with the lock graph, is not read apart
 * later in the same refresh either); now: for its age. busy: this refresh
 * paid for another costly read already (a list just due waits one refresh
 * more). */
#define PACE_SHARE_SESSIONS 0.5
struct session_set *source_sessions_reuse(struct source *src, double due_at, double now, bool busy);
/* The list will be read at now unless a costly read puts it off (busy). */
bool source_sessions_due(const struct source *src, double now);
/* The list is worth reading at now beside another read of the same
 * server cache (MariaDB's INNODB_TRX before the lock graph): due, or more
 * than half its pacing period gone, or not read yet on this connection
 * (its first read comes with the graph's first, which the caller makes
 * sure is not before the first frame: one costly refresh, not two). */
bool source_sessions_join(const struct source *src, double now);
/* After a session read that took ms: keep a copy, schedule the next. */
void source_sessions_read(struct source *src, const struct session_set *ss, double ms, double now);
/* Drop the kept list (not wanted any more, a new connection, closing). */
void source_sessions_forget(struct source *src);

/* Wait until monotonic time `until`, taking subsamples on the way when the
 * backend wants them; returns early when *stop becomes true. */
void source_idle(struct source *src, double until, volatile int *stop);

extern const struct source_ops mysql_source_ops;
extern const struct source_ops pg_source_ops;
extern const struct source_ops replay_source_ops;

/* Configuration of the replay source (src->arg). */
struct replay_cfg {
	const char *path;        /* recording file, or NULL for buf/len */
	const void *buf;         /* an in-memory recording (the bundled demo) */
	size_t len;
	double speed;            /* 1 real time, 2 twice as fast, 0 no waiting */
	double from;             /* s from the start: replayed without waiting */
	char summary[NOTE_LEN];  /* out: what was read and skipped, at the end */
	char host[128];          /* out: host label of the recording */
};

#endif
