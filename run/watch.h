/* watch.h - the targets the screen watches, without curses: each one's
 * pipeline (run/target.h), sampler thread, tuning policy, the explain of
 * a session and the sessions acted on; the samples taken from the
 * workers into the pipelines, the commands sent to them (typed,
 * run/sampler.h) and what comes back (results, plans, tuning views), the
 * tuning questions, the reverts at exit and the snapshot's files. The
 * screen (tui/ui.c) draws, reads keys and shows the messages this says. */
#ifndef DBTOP_WATCH_H
#define DBTOP_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/model.h"
#include "../util/util.h"
#include "sampler.h"
#include "sessact.h"
#include "target.h"
#include "travel.h"
#include "tunectl.h"

/* The explain of one session's statement as the screen holds it (the
 * sessions pane's details show it). */
#define WATCH_PLAN_LEN 8192
struct watch_plan {
	long long id; /* the session explained, 0: none asked */
	bool pending; /* asked, no answer yet */
	bool ok;      /* text is the plan; else why there is none */
	char text[WATCH_PLAN_LEN];
};

/* One server the screen watches. The screen shows one at a time; the
 * others keep sampling and their models keep updating. */
struct watch_tgt {
	/* its pipeline: name, label, source, model, tuner (owned by its
	 * sampler thread while it runs), recording, event log, DOWN spell */
	struct target_run run;
	struct sampler sp;
	struct tune_ctl tc;     /* its tuning view and policy (run/tunectl.h) */
	struct watch_plan plan; /* the newest explain of a session */
	bool sessions_wanted;   /* the sampler was last told the session list shows */
	bool sessions_idle;     /* ... with idle sessions listed (i) */
	bool background;        /* the sampler was last told it is in the background */
	struct sess_act sa;     /* x / c: the action its sampler runs, the tagged sessions still to act on */
};

/* The batch record of model m's newest interval with the events of seq
 * ev_from .. ev_to (app/batch.c, which run/ cannot include). */
typedef void (*watch_json_fn)(const struct model *m, const char *host, const struct event_log *ev,
			      unsigned long ev_from, unsigned long ev_to, struct strbuf *out);

/* Every target, and what the screen lends them. */
struct watch {
	struct watch_tgt *tg; /* ntg >= 1 */
	int ntg;
	bool replay, read_only;
	struct travel *tr; /* the screen's time travel: what it takes, what a sample changes */
	double *tour_end;  /* the demo tour's: set when a replay's samples end, or NULL */
	/* a message for the screen (hold: s it stays, 0: the usual) */
	void (*say)(void *arg, double hold, const char *msg);
	void *say_arg;
	/* called with the live model after each ingest (the --listen
	 * endpoint publishes there), or NULL */
	void (*on_update)(const void *arg, int slot, const char *name, const struct model *m);
	const void *on_update_arg;
};

/* One target to watch: the caller's objects. */
struct watch_spec {
	const char *name, *host;
	struct source *src;
	struct model *m;
	struct tuner *tuner;  /* or NULL */
	struct recorder *rec; /* or NULL */
};

/* Set up w for the n targets of spec (hist: the history, kept with one
 * target only); w's other fields are the caller's to set. */
void watch_init(struct watch *w, const struct watch_spec *spec, int n, struct history *hist, bool replay,
		bool read_only);
/* Start every target's sampler (every interval s); -1 and errno when one
 * could not start (*started: how many did), else 0. */
int watch_start(struct watch *w, double interval, int *started);
/* Stop every sampler; false when one is still inside a query (it owns
 * the connection and the sampler's memory until the exit). */
bool watch_stop(struct watch *w);
void watch_free(struct watch *w);

/* Take the samples every worker queued into each target's pipeline (the
 * travel's model follows; a paused replay leaves them queued). True when
 * any came. */
bool watch_take(struct watch *w);
/* The results of the actions the workers finished, said (the server
 * named when it is not shown, the tagged sessions' count once done).
 * True when any came. */
bool watch_results(struct watch *w, const struct watch_tgt *shown);
/* The plans asked for, once they are there. True when one came. */
bool watch_plans(struct watch *w);

/* The session list read by shown's sampler only (shows: the screen shows
 * it; idle: its idle sessions listed too), the others in the background
 * when several are watched (fleet: the fleet screen shows, every target
 * is then). */
void watch_sessions(struct watch *w, const struct watch_tgt *shown, bool shows, bool idle, bool fleet);
/* e: ask t's sampler for the plan of session s (id, who as shown). False
 * with why in out when it is not asked; true with what it does. */
bool watch_explain(struct watch *w, struct watch_tgt *t, long long id, const struct session_ident *who, char *out,
		   size_t len);
/* A tuning command to t's sampler (CMD_TUNE_*: id the tunables[] index
 * or the journal seq; value and to for CMD_TUNE_APPLY). False when another
 * action still runs. */
bool watch_tune(struct watch_tgt *t, enum target_cmd_kind kind, long long id, const char *value,
		const struct tune_target *to);

/* What the tuning upkeep asks of the screen. */
struct watch_ask {
	bool changed;    /* the screen changed */
	int active;      /* targets with dbtop's changes in force */
	bool orphans;    /* ask: text holds the question on the changes an earlier dbtop left */
	char text[1600]; /* the question */
};
/* Tuning upkeep: every target's newest view and --tune-ttl; shown's
 * questions while askable (orphans, other servers' changes), its probes
 * while tuning (the tuning screen shows). */
void watch_tuning(struct watch *w, struct watch_tgt *shown, bool askable, bool tuning, struct watch_ask *out);

/* At exit (not a replay): every target's change in flight awaited and
 * its changes in force reverted (run/tunectl.c); show(arg, t, msg) draws
 * t while it waits. The outcomes, named with their server when there are
 * several, into out. */
void watch_revert_on_exit(struct watch *w, void (*show)(void *arg, struct watch_tgt *t, const char *msg), void *arg,
			  char *out, size_t len);

/* w: the screen's text (screen) and the JSON record of the moment model m
 * shows (t's; json NULL: none) in dir's dbtop-snapshot-YYYYmmdd-HHMMSS.txt
 * / .json, mode 0600. What was written, or why not, into msg. */
void watch_snapshot(const struct watch *w, const struct watch_tgt *t, const struct model *m, const char *dir,
		    const struct strbuf *screen, watch_json_fn json, char *msg, size_t len);

/* The screen's frame-time figures. */
struct watch_frames {
	unsigned long frames;
	int cols, lines;
	double total, max; /* s */
	double first_full; /* s from the start to the first frame with rates, < 0: none */
};
/* Write them and the time travel's (tr) to path ("" or NULL: nothing). */
void watch_frame_stats(const char *path, const struct watch_frames *f, const struct travel *tr);

#endif
