/* tourseq.c - the demo tour's sequencing (tourseq.h). */
#include "tourseq.h"

#include <string.h>

#include "../util/util.h"

const char *tourseq_step(const struct tour_seq *ts, int dir, int *to)
{
	*to = ts->at + dir;
	if (*to < 0)
		return "this is the first incident of the tour: > goes to the next";
	if (*to >= ts->n)
		return "this is the last incident of the tour: < goes back, q quits";
	return NULL;
}

bool tourseq_due(const struct tour_seq *ts, const struct travel *tr, double speed, double now)
{
	return tr->ended && speed > 0 && !tr->paused && ts->at + 1 < ts->n && now - ts->end >= 4;
}

bool tourseq_go(struct tour_seq *ts, int to, struct target_run *t, struct sampler *sp, struct tune_ctl *tc,
		struct travel *tr, double interval)
{
	if (!sampler_stop(sp, 2) || ts->open(ts->ctx, to) < 0)
		return false;
	ts->at = to;
	/* playing, not frozen: the history started again with the incident
	 * (ts->open), so the moment shown and the model rebuilt are gone */
	travel_reset(tr, t->m);
	ts->end = 0;
	memset(&tc->tv, 0, sizeof tc->tv);
	tc->tv_gen = 0;
	/* the event log and the timeline start again with the incident */
	target_run_restart(t, false);
	return sampler_start(sp, t->src, interval, true, NULL) >= 0;
}
