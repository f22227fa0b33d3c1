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

/* A command from the screen to a target's worker (typed, queued in
 * order; the worker is the one thread that touches the source and the
 * tuner). */
enum target_cmd_kind {
	CMD_NONE,
	CMD_KILL,            /* end session arg.session (SRC_ACT_TERMINATE) */
	CMD_CANCEL,          /* cancel its statement (SRC_ACT_CANCEL) */
	CMD_EXPLAIN,         /* the plan of arg.session's statement (ops->explain) */
	CMD_TUNE_APPLY,      /* arg.apply: tunables[idx] = value, in one role or database or server-wide */
	CMD_TUNE_UNDO,       /* the newest change */
	CMD_TUNE_UNDO_ALL,   /* every change in force */
	CMD_TUNE_KEEP,       /* arg.seq: keep that change (out of the journal) */
	CMD_TUNE_EXPIRE,     /* the changes older than --tune-ttl */
	CMD_PROBE,           /* read the tunables again (the screen shows them) */
	CMD_SESSIONS_WANTED, /* arg.sessions: read the session list (and its idle sessions) or not */
	CMD_BACKGROUND,      /* arg.background: one of several targets not on the screen */
	CMD_KINDS
};

/* The bit of kind k in a mask of kinds. */
#define CMD_BIT(k) (1u << (k))
/* The actions on the server: one at a time (a second is refused while
 * the first is queued or running). */
#define CMD_ACTIONS \
	(CMD_BIT(CMD_KILL) | CMD_BIT(CMD_CANCEL) | CMD_BIT(CMD_TUNE_APPLY) | CMD_BIT(CMD_TUNE_UNDO) | \
	 CMD_BIT(CMD_TUNE_UNDO_ALL) | CMD_BIT(CMD_TUNE_KEEP) | CMD_BIT(CMD_TUNE_EXPIRE))

struct target_cmd {
	enum target_cmd_kind kind;
	union {
		struct {
			long long id;
			struct session_ident who; /* the session as the screen showed it */
		} session;                        /* CMD_KILL, CMD_CANCEL, CMD_EXPLAIN */
		struct {
			int idx; /* tunables[] index */
			char value[TUNE_VALUE_LEN];
			struct tune_target to; /* kind 0: server-wide */
		} apply;                       /* CMD_TUNE_APPLY */
		unsigned seq;                  /* CMD_TUNE_KEEP: the journal entry */
		struct {
			bool want, idle;
		} sessions;      /* CMD_SESSIONS_WANTED */
		bool background; /* CMD_BACKGROUND */
	} arg;
};

/* What a command came to, from the worker (actions and explains; the
 * others answer nothing). */
struct target_result {
	enum target_cmd_kind kind;
	long long id;       /* the session (kill, cancel, explain) */
	int rc;             /* 0 done, -1 not */
	char msg[NOTE_LEN]; /* the source's or the tuner's words; an explain's error */
	char *plan;         /* CMD_EXPLAIN with rc 0: the plan, malloc'd, the taker's */
};

/* Commands queued at most, and results kept at most (the oldest result
 * is dropped when nobody takes them). */
#define TARGET_CMDQ 8

struct sampler {
	struct source *src;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	double interval;         /* s, under mu */
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
	double grid;             /* monotonic s the refreshes are counted from (sampler_align); 0: none */
	/* the commands in (the screen's) and the results out (the worker's),
	 * under mu: rings of TARGET_CMDQ */
	struct target_cmd *cmd;
	int cmd_head, ncmd;
	struct target_result *res;
	int res_head, nres;
	bool act_busy; /* an action (kill, cancel, tuning) queued or running */
	bool ex_busy;  /* an explain queued or running */
	/* tuning: the worker owns the tuner while it runs */
	struct tuner *tuner;     /* NULL: no tuning */
	struct tune_view *tv;    /* published copy, under mu */
	unsigned tv_gen;         /* bumps with every publication */
	char *ex_plan;           /* SAMPLER_PLAN_MAX bytes, the worker's */
};

/* Bytes of plan text an explain returns at most. */
#define SAMPLER_PLAN_MAX 65536

/* Start sampling src every interval seconds. Returns 0 or -1 (errno). */
int sampler_start(struct sampler *sp, struct source *src, double interval, bool self_paced,
		  struct tuner *tuner);
/* Sample at origin + k x interval (monotonic s; the first two samples of a
 * connection come as before): the samplers of several targets given one
 * origin refresh together. */
void sampler_align(struct sampler *sp, double origin);
/* Change the interval; takes effect at once. */
void sampler_set_interval(struct sampler *sp, double interval);
/* Pause or resume: a self-paced source (a replay) stops its clock while
 * paused and goes on from there, so no sample is skipped. */
void sampler_pause(struct sampler *sp, bool paused);
/* Take the oldest message into out; false when the queue is empty. Drains
 * the wake-up pipe. */
bool sampler_pop(struct sampler *sp, struct sampler_msg *out);
/* Queue command c for the worker (run before its next sample, in the
 * order sent). False when it is refused: the queue is full, or an action
 * (CMD_ACTIONS) while another is queued or running, or an explain while
 * another is; nothing is queued then. A CMD_PROBE while one is queued, or
 * a CMD_SESSIONS_WANTED / CMD_BACKGROUND while one of its kind is queued,
 * joins it (the newest arguments win) and is accepted. */
bool sampler_send(struct sampler *sp, const struct target_cmd *c);
/* Take the oldest result whose kind is in kinds (a mask of CMD_BIT());
 * false when there is none. The caller frees out->plan. */
bool sampler_take(struct sampler *sp, unsigned kinds, struct target_result *out);
/* Copy the tuning view into out when it changed since *gen; true then. */
bool sampler_tune_view(struct sampler *sp, unsigned *gen, struct tune_view *out);
/* Is an action (kill, cancel or tuning) queued or still running? */
bool sampler_busy(struct sampler *sp);

/* Ask the worker to stop and wait for it at most max_wait seconds. False
 * when it is still busy (inside a query): then the source must not be
 * touched; process exit ends the thread. */
bool sampler_stop(struct sampler *sp, double max_wait);

#endif
