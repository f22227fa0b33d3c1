/* travel.h - time travel on the screen, without curses: which model is
 * drawn (the shown target's live one, or one rebuilt at a kept moment),
 * freezing and going live, steps and jumps over the history's samples,
 * a frozen replay read on past its newest sample (the source's seek), the
 * timeline's marks and the chosen one, and the figures of the steps. The
 * screen (tui/ui.c) binds keys to it, draws what it says and shows the
 * messages it returns; the private state is this struct, one per screen. */
#ifndef DBTOP_TRAVEL_H
#define DBTOP_TRAVEL_H

#include <stdbool.h>
#include <stdint.h>

#include "../model/events.h"
#include "../model/model.h"
#include "../record/history.h"
#include "../sources/source.h"
#include "sampler.h"

/* The moves a key asks for (travel_command; the key table's cmd). */
enum { TR_PREV = 1, TR_NEXT, TR_PREV_MIN, TR_NEXT_MIN, TR_OLDEST, TR_LIVE };

struct travel {
	struct history *hist; /* the samples kept (--history), or NULL */
	bool replay;          /* the source is a recording: a step past its newest sample reads on */
	bool fleet;           /* several targets (the history is kept with one only) */
	struct source *src;   /* the shown target's source (a replay's seek) */
	struct sampler *sp;   /* ... and its sampler (paused while frozen) */
	/* the model drawn: live, or rebuilt while frozen in the past; the
	 * one "what is drawn" pointer */
	struct model *m;
	struct model *live; /* the model the shown target's samples go into */
	/* rebuilt at the moment shown while frozen; taken from the heap at
	 * the first step back (a model is ~124 KB: a run that never travels
	 * does not touch it), freed by travel_free */
	struct model *built;
	bool paused, ended;   /* frozen; a replay's samples ended */
	uint64_t at_seq;      /* frozen: the kept sample shown (history sequence number) */
	double at_wall;       /* ... its wall time */
	bool at_built;        /* built holds at_seq (else the live model is it) */
	int pull_n;           /* frozen replay: samples still to take for a step forward */
	double pull_wall;     /* ... or up to this wall time (0: none) */
	double pull_to;       /* ... then land nearest this wall time (0: the newest) */
	double tl_cursor;     /* the mark { } or Enter chose (wall s), 0: none */
	unsigned long tl_seq; /* ... its event */
	unsigned long steps;  /* travel keys drawn (rebuild + frame) and their time, s */
	double step_total, step_max;
	double step_t0;         /* monotonic s of the travel key not drawn yet, 0: none */
	unsigned long rebuilds; /* models rebuilt and their time, s */
	double rebuild_total, rebuild_max;
	bool said; /* msg holds what the newest call has to say */
	char msg[200];
};

/* Set tr up over history hist (or NULL); replay: the source is a
 * recording; fleet: several targets. travel_show binds it afterwards. */
void travel_init(struct travel *tr, struct history *hist, bool replay, bool fleet);
void travel_free(struct travel *tr);
/* Show the target whose model is live, source src, sampler sp (the live
 * model drawn). */
void travel_show(struct travel *tr, struct model *live, struct source *src, struct sampler *sp);
/* Start over on live (the demo tour's next incident): playing, nothing
 * frozen, no mark chosen, the rebuilt model gone. */
void travel_reset(struct travel *tr, struct model *live);

/* Show kept sample i (history index): the live model when it is the
 * newest one the live model holds (unless force), else the model rebuilt
 * there. A message (NULL: none) when the rebuild failed. */
const char *travel_land_at(struct travel *tr, long i, bool force);
/* Freeze the view (a replay's clock stops) at the newest sample. */
void travel_freeze(struct travel *tr);
/* Back to live (a replay goes on from where it stood: nothing skipped). */
void travel_live(struct travel *tr);
/* The index of the sample shown, -1: none kept. */
long travel_index(const struct travel *tr);
/* Move by n samples (n != 0) or to wall time (n == 0; interval: the
 * refresh interval when the model has none); past the newest sample of a
 * replay, the replay is read on to there (a seek). A message or NULL. */
const char *travel_move(struct travel *tr, int n, double wall, double interval);
/* A key's move cmd (TR_*): freezes first unless it goes forward while
 * live. A message or NULL. */
const char *travel_command(struct travel *tr, int cmd, double interval);
/* Freeze and show the kept sample nearest wall (s since the epoch);
 * beyond the newest sample a replay reads on to it. A message or NULL. */
const char *travel_to(struct travel *tr, double wall, double interval);
/* The kept samples' oldest and newest wall times; false when none. */
bool travel_range(const struct travel *tr, double *oldest, double *newest);

/* Events the timeline marks and { } visit. */
bool travel_is_mark(const struct event *e);
/* The span the timeline covers: the samples kept (without them: from
 * ev_start, or ev's first event, to the live model's newest sample). */
void travel_timeline(const struct travel *tr, const struct event_log *ev, double ev_start, double *t0, double *t1);
/* Event e chosen (Enter on the event log, { }): the timeline's cursor on
 * it, and with samples kept the view frozen at the one nearest it. */
void travel_to_event(struct travel *tr, const struct event *e, double interval);
/* { (next false) and }: the previous / next mark of ev from the one
 * chosen (from now when none); NULL when there is none, the choice
 * cleared and past the newest back to live. */
const struct event *travel_mark(struct travel *tr, const struct event_log *ev, bool next);

/* The screen takes samples from the queue: always while live, only those
 * a step asked for while a replay is frozen. */
bool travel_takes(const struct travel *tr);
/* A step forward of a frozen replay is waiting for samples. */
bool travel_pulling(const struct travel *tr);
/* A sample a step asked for came (the live model has it): true when the
 * step has all it asked for. */
bool travel_pulled_one(struct travel *tr);
/* The samples a step asked for are in: back to the source's own pace,
 * and land where the step goes. A message or NULL. */
const char *travel_pull_done(struct travel *tr);
/* The replay's samples ended: true when a step was pulling (it lands on
 * the newest). */
bool travel_end(struct travel *tr);
/* Before the live model takes a sample: a view frozen on the newest kept
 * sample keeps showing it (rebuilt). A message or NULL. */
const char *travel_follow(struct travel *tr);
/* A frame was drawn: the time of the travel key that asked for it. */
void travel_drawn(struct travel *tr);

#endif
