/* ui.h - the full-screen interface. */
#ifndef DBTOP_UI_H
#define DBTOP_UI_H

#include <stdbool.h>

#include "../model/events.h"
#include "../model/model.h"
#include "../record/history.h"
#include "../record/record.h"
#include "../sources/source.h"
#include "../tune/tuner.h"

/* The demo tour (--demo): incidents played one after another, each with a
 * caption track. */
struct tour_caption {
	double at;              /* s into the incident's recording */
	const char *text;       /* NULL ends the track */
};
struct tour_stop {
	const char *name;       /* --demo NAME */
	const char *title;      /* what happens, for --demo list */
	const struct tour_caption *cap;
};

struct ui_opts {
	double interval;        /* s */
	const char *theme;      /* name or path; NULL: dark */
	bool ascii;             /* no block characters */
	bool replay;            /* the source is a recording */
	double speed;           /* replay speed (shown) */
	const char *host;       /* label */
	struct recorder *rec;   /* open recording or NULL */
	bool read_only;         /* --read-only: no kill, cancel or tuning */
	bool worker_running;    /* out: the sampler thread did not stop in time */
	struct tuner *tuner;    /* tuning (owned by the sampler thread while it runs), or NULL */
	char exit_msg[1200];     /* out: what happened to tuning changes at exit, for stderr */
	double start_mono;      /* monotonic s when dbtop started (first-frame figure) */
	const char *snapshot_dir; /* w writes its files here; NULL: the current directory */
	/* The batch record of the model's newest interval with the events of
	 * seq ev_from .. ev_to (app/batch.c, which this layer cannot include). */
	void (*snapshot_json)(const struct model *m, const char *host, const struct event_log *ev,
			      unsigned long ev_from, unsigned long ev_to, struct strbuf *out);
	struct history *hist;   /* the samples kept for time travel (--history), or NULL */
	/* the demo tour, or NULL: tour_n incidents, tour_at the one playing;
	 * tour_open(tour_ctx, i) replaces the source and the model (the same
	 * objects, reopened on incident i): 0, or -1 */
	const char *caption;    /* --caption: a line above the key bar (a live demo), or NULL */
	const struct tour_stop *tour;
	int tour_n, tour_at;
	int (*tour_open)(void *ctx, int i);
	void *tour_ctx;
	/* called with the model after each model_update() (the --listen
	 * endpoint publishes there), or NULL */
	void (*on_update)(const void *arg, int slot, const char *name, const struct model *m);
	const void *on_update_arg;
	int screen;             /* the screen on start (config "screen"; one target): 0 the overview */
	const unsigned *hide;   /* per screen 0..SCREEN_MAX: the columns left out (pane_view.hide), or NULL */
};

/* One server the screen watches (several: the fleet screen opens first). */
struct ui_target {
	const char *name;       /* fleet name */
	const char *host;       /* label */
	struct source *src;     /* open, or to be connected by its sampler */
	struct model *m;        /* initialised */
	struct tuner *tuner;    /* or NULL */
	struct recorder *rec;   /* open recording or NULL */
};

/* Targets one screen watches at most (config/targets.h FLEET_MAX). */
#define FLEET_TARGETS_MAX 64

struct ui;
/* Freeze the view (a replay's clock stops) and show the kept sample
 * nearest wall time wall (s since the epoch); beyond the newest sample a
 * replay reads on to it. */
void ui_travel_to(struct ui *u, double wall);
/* The kept samples' oldest and newest wall times; false when none. */
bool ui_history_range(const struct ui *u, double *oldest, double *newest);

/* Can this terminal show the screen? false with the reason in why. */
bool ui_possible(char *why, size_t len);

/* Run the screen until the user quits or a signal arrives. src is open;
 * m is initialised. Returns the exit status. */
int ui_run(struct source *src, struct model *m, struct ui_opts *o);
/* The same for n targets (1 to FLEET_TARGETS_MAX): o->host, o->rec and
 * o->tuner are unused, each target brings its own. */
int ui_run_targets(const struct ui_target *t, int n, struct ui_opts *o);

#endif
