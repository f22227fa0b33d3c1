/* target.h - one server's pipeline, without curses: its source, model,
 * event log, recording or history, incident capture and the hook that
 * publishes it. target_ingest() is the one path a sample takes into a
 * model (caps -> model -> findings -> events -> record -> publish): the
 * screen (tui/ui.c), the batch loop and the fleet batch (app/main.c) call
 * it with each sample they take, whoever took it (the main thread's
 * source_tick or a sampler thread's queue). */
#ifndef DBTOP_TARGET_RUN_H
#define DBTOP_TARGET_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "../model/events.h"
#include "../model/model.h"
#include "../record/history.h"
#include "../record/incidents.h"
#include "../record/record.h"
#include "../sources/source.h"
#include "../tune/tuner.h"

/* What the newest ingest has to say (target_run.note holds the text). */
enum target_note {
	TN_NONE,
	TN_RECORDING, /* the recording stopped (monitoring goes on) */
	TN_HISTORY,   /* the history spool stopped (the screen and sampling go on) */
};

struct target_run;
/* Called after each ingest that folded the sample into the model: the
 * --listen endpoint publishes there (arg: the caller's). */
typedef void (*target_publish_fn)(const void *arg, const struct target_run *t);

/* One server: what it is, what it owns, where its samples go. The
 * pointers are the caller's objects (the same for the target's life; a
 * tour reopens them in place). */
struct target_run {
	const char *name; /* fleet name ("" with one target) */
	const char *host; /* label */
	int slot;         /* its place among the targets (the endpoint's slot) */
	struct source *src;
	struct model *m;
	struct tuner *tuner;       /* or NULL */
	struct recorder *rec;      /* open recording or NULL */
	bool recording;            /* rec is written */
	struct history *hist;      /* the samples kept for time travel, or NULL */
	struct incidents *inc;     /* the incident capture, or NULL */
	struct event_log ev;       /* its event log */
	unsigned long ev_from;     /* first seq of the newest interval's events */
	double ev_start;           /* wall time of the first sample: the timeline's left end */
	uint32_t caps_gen;         /* connection whose caps the model has */
	bool down_since_set;       /* down_since holds */
	double down_since;         /* wall s of the first sample of this DOWN / STALLED spell */
	target_publish_fn publish; /* or NULL */
	const void *publish_arg;
	enum target_note note_kind; /* what the newest ingest said (TN_NONE: nothing) */
	char note[NOTE_LEN + 64];
};

/* Set up t for source src and model m (both initialised by the caller);
 * live: the event log derives settings changes as another's (not a
 * replay). */
void target_run_init(struct target_run *t, const char *name, const char *host, struct source *src, struct model *m,
		     bool live);
/* Start the event log over (a tour's next incident). */
void target_run_restart(struct target_run *t, bool live);
void target_run_free(struct target_run *t);

/* The source's capabilities when its connection is newer than the
 * model's (the main thread's own source_tick), else NULL. */
const struct caps *target_new_caps(const struct target_run *t);

/* Adopt the capabilities of connection conn_gen: the model's, the
 * history's and the recording's (target_ingest does it with a sample). */
void target_caps(struct target_run *t, const struct caps *caps, uint32_t conn_gen);

/* Ingest sample s of connection conn_gen (caps: that connection's
 * capabilities when they are new, else NULL): the model adopts the caps
 * and folds the sample in (fold false: the sample only goes to the event
 * log, a paused screen without history), the findings follow (in
 * model_update), the interval's events go into the sample, the sample
 * goes to the history or the recording and the incident capture, the
 * DOWN spell is noted and the model published. s stays the caller's (it
 * frees it with sample_release). False when nothing is to be said; true
 * with t->note_kind and t->note when a recording or the history stopped. */
bool target_ingest(struct target_run *t, struct sample *s, const struct caps *caps, uint32_t conn_gen, bool fold);

#endif
