/* sampler.h - runs a source in a worker thread so that a slow or frozen
 * server never blocks the screen; samples reach the UI through a bounded
 * queue and a wake-up pipe. */
#ifndef DBTOP_SAMPLER_H
#define DBTOP_SAMPLER_H

#include <pthread.h>
#include <stdbool.h>

#include "../sources/source.h"
#include "../tune/tuner.h"

struct sampler_msg {
	struct sample s;
	bool has_caps;           /* caps of a new connection come with it */
	uint32_t conn_gen;
	struct caps caps;
	bool end;                /* the source is finished (end of recording) */
};

#define SAMPLER_QUEUE 4

struct sampler {
	struct source *src;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	double interval;         /* s, under mu */
	/* the session list wanted (and its idle sessions), under mu: given to
	 * the source by the worker before each sample, so that only the
	 * worker's thread writes the source's copy the backends read */
	bool want_sessions, sessions_idle;
	bool self_paced;         /* the source sets the pace (replay) */
	bool stop;
	volatile int stop_flag;  /* stop, readable by the source without the lock */
	volatile int pause_flag; /* paused: a replay's clock stands still */
	bool running;
	struct sampler_msg *q;   /* SAMPLER_QUEUE slots */
	int head, len;
	int wake[2];             /* [0]: poll it in the UI loop */
	uint32_t caps_gen;       /* worker side */
	uint32_t primed_gen;     /* worker side: connection whose first sample was taken */
	double busy_ms;          /* time spent in the last tick */
	/* one action on the server at a time (kill / cancel), under mu */
	int act;                 /* SRC_ACT_*, 0: none pending */
	long long act_id;
	struct session_ident act_who;   /* kill / cancel: the session as the prompt showed it */
	bool act_done;           /* act_msg holds the outcome */
	int act_rc;
	char act_msg[NOTE_LEN];
	char act_value[TUNE_VALUE_LEN]; /* SP_TUNE_APPLY: the value */
	struct tune_target act_to;      /* SP_TUNE_APPLY: one role or database (kind 0: server-wide) */
	/* tuning: the worker owns the tuner while it runs */
	struct tuner *tuner;     /* NULL: no tuning */
	bool probe_wanted;       /* read the tunables again (the screen shows them) */
	struct tune_view *tv;    /* published copy, under mu */
	unsigned tv_gen;         /* bumps with every publication */
	/* explain (ops->explain): one request at a time, under mu */
	bool ex_pending;
	long long ex_id;
	struct session_ident ex_who;
	bool ex_done;
	int ex_rc;
	char *ex_plan;           /* SAMPLER_PLAN_MAX bytes, worker-filled */
	char ex_err[NOTE_LEN];
};

/* Bytes of plan text an explain returns at most. */
#define SAMPLER_PLAN_MAX 65536

/* Tuning requests (the act slot; act_id is the tunables[] index or the
 * journal seq). */
enum {
	SP_TUNE_APPLY = 10,
	SP_TUNE_UNDO,            /* the newest change */
	SP_TUNE_UNDO_ALL,
	SP_TUNE_KEEP,            /* act_id: seq */
	SP_TUNE_EXPIRE,          /* changes older than --tune-ttl */
};

/* Start sampling src every interval seconds. Returns 0 or -1 (errno). */
int sampler_start(struct sampler *sp, struct source *src, double interval, bool self_paced,
		  struct tuner *tuner);
/* Change the interval; takes effect at once. */
void sampler_set_interval(struct sampler *sp, double interval);
/* Pause or resume: a self-paced source (a replay) stops its clock while
 * paused and goes on from there, so no sample is skipped. */
void sampler_pause(struct sampler *sp, bool paused);
/* Take the oldest message into out; false when the queue is empty. Drains
 * the wake-up pipe. */
bool sampler_pop(struct sampler *sp, struct sampler_msg *out);
/* Ask the worker to run action what (SRC_ACT_*) on session id before its
 * next sample, if it is still the session who describes (ops->act). False
 * when one is still pending. */
bool sampler_request(struct sampler *sp, int what, long long id, const struct session_ident *who);
/* A tuning request (SP_TUNE_*); value for SP_TUNE_APPLY. */
bool sampler_tune(struct sampler *sp, int what, long long id, const char *value);
/* SP_TUNE_APPLY for one role or one database (to; NULL or kind 0:
 * server-wide). */
bool sampler_tune_in(struct sampler *sp, int what, long long id, const char *value, const struct tune_target *to);
/* Ask for a fresh probe of the tunables. */
void sampler_want_probe(struct sampler *sp);
/* Copy the tuning view into out when it changed since *gen; true then. */
bool sampler_tune_view(struct sampler *sp, unsigned *gen, struct tune_view *out);
/* Is an action (kill, cancel or tuning) still running? */
bool sampler_busy(struct sampler *sp);
/* The outcome of the requested action once done (then cleared): true with
 * rc and msg filled. */
bool sampler_action_result(struct sampler *sp, int *rc, char *msg, size_t len);
/* Read the session list on every refresh (the sessions screen or tile
 * shows it) or stop reading it; idle: idle sessions listed too (else only
 * counted, when the screen hides them); from the next refresh on. */
void sampler_want_sessions(struct sampler *sp, bool want, bool idle);
/* One of several targets in the background (not on the screen) or not:
 * its looks between samples (wait events, sampled digests) come at most
 * once per refresh while it is. */
void sampler_set_background(struct sampler *sp, bool background);
/* Ask the worker for the plan of session id's current statement
 * (ops->explain; who: the session as the screen showed it, checked on
 * PostgreSQL). False when one is still pending. */
bool sampler_explain_request(struct sampler *sp, long long id, const struct session_ident *who);
/* The outcome once done (then cleared): true with rc 0 and *plan (a
 * malloc'd string the caller frees), or rc -1, *plan NULL and why in err. */
bool sampler_explain_result(struct sampler *sp, int *rc, char **plan, char *err, size_t elen);

/* Ask the worker to stop and wait for it at most max_wait seconds. False
 * when it is still busy (inside a query): then the source must not be
 * touched; process exit ends the thread. */
bool sampler_stop(struct sampler *sp, double max_wait);

#endif
