/* tourseq.h - the demo tour's sequencing, without curses: which incident
 * plays, the next one by itself a moment after one ends, and the one
 * target started again on the reopened source (its sampler, event log,
 * tuning view and time travel). The screen draws the captions and binds
 * > and < to it. */
#ifndef DBTOP_TOURSEQ_H
#define DBTOP_TOURSEQ_H

#include <stdbool.h>

#include "sampler.h"
#include "target.h"
#include "travel.h"
#include "tunectl.h"

struct tour_seq {
	int n, at;                     /* incidents, the one playing */
	int (*open)(void *ctx, int i); /* reopens the source and the model on incident i: 0, or -1 */
	void *ctx;
	double end; /* monotonic s the playing incident ended, 0: playing */
};

/* The incident a key asks for, dir +1 (>) or -1 (<): its index in *to and
 * NULL, or why there is none. */
const char *tourseq_step(const struct tour_seq *ts, int dir, int *to);
/* The tour goes on by itself 4 s after an incident ended, while it plays
 * (speed > 0, not frozen) and another follows (now: monotonic s). */
bool tourseq_due(const struct tour_seq *ts, const struct travel *tr, double speed, double now);
/* Play incident to instead on target t: its sampler sp stopped, the
 * source and the model reopened, the travel tr, the tuning view of tc and
 * the event log started again (the history too: ts->open), sp started
 * again at interval. False when the tour cannot go on. */
bool tourseq_go(struct tour_seq *ts, int to, struct target_run *t, struct sampler *sp, struct tune_ctl *tc,
		struct travel *tr, double interval);

#endif
