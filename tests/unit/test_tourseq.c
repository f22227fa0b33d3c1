/* test_tourseq.c - the demo tour's sequencing without curses
 * (run/tourseq.c): > and < at the ends, the next incident by itself only
 * after an incident ended and only while playing, and the target started
 * again on the reopened source (travel, tuning view, event log, sampler)
 * or the tour stopped when it cannot go on. The sampler is this file's
 * stand-in. */
#include <stdio.h>
#include <string.h>

#include "../../run/target.c"
#include "../../run/tourseq.c"
#include "../../run/travel.c"
#include "tap.h"

static int stops, starts, opened = -1;
static bool stop_ok = true, open_ok = true;

void sampler_pause(struct sampler *sp, bool paused)
{
	(void)sp;
	(void)paused;
}

bool sampler_stop(struct sampler *sp, double max_wait)
{
	(void)sp;
	(void)max_wait;
	stops++;
	return stop_ok;
}

int sampler_start(struct sampler *sp, struct source *src, double interval, bool self_paced, struct tuner *tuner)
{
	(void)sp;
	(void)src;
	(void)interval;
	(void)self_paced;
	(void)tuner;
	starts++;
	return 0;
}

static int open_incident(void *ctx, int i)
{
	(void)ctx;
	if (!open_ok)
		return -1;
	opened = i;
	return 0;
}

static void test_steps(void)
{
	struct tour_seq ts = {.n = 5, .at = 0};
	int to;
	CHECK_STR(tourseq_step(&ts, -1, &to), "this is the first incident of the tour: > goes to the next",
		  "< on the first incident");
	CHECK(tourseq_step(&ts, +1, &to) == NULL && to == 1, "> on the first: the second");
	ts.at = 4;
	CHECK_STR(tourseq_step(&ts, +1, &to), "this is the last incident of the tour: < goes back, q quits",
		  "> on the last incident");
	CHECK(tourseq_step(&ts, -1, &to) == NULL && to == 3, "< on the last: the one before");

	struct travel tr;
	travel_init(&tr, NULL, true, false);
	ts.at = 1;
	ts.end = 100;
	CHECK(!tourseq_due(&ts, &tr, 1, 200), "playing: no next incident yet");
	tr.ended = true;
	CHECK(!tourseq_due(&ts, &tr, 1, 103.9), "ended 3.9 s ago: not yet");
	CHECK(tourseq_due(&ts, &tr, 1, 104), "ended 4 s ago: the next incident");
	CHECK(!tourseq_due(&ts, &tr, 0, 104), "--speed 0: > goes on, not the clock");
	tr.paused = true;
	CHECK(!tourseq_due(&ts, &tr, 1, 104), "frozen: it waits");
	tr.paused = false;
	ts.at = 4;
	CHECK(!tourseq_due(&ts, &tr, 1, 104), "the last incident ended: the tour stays");
}

static void test_go(void)
{
	struct tour_seq ts = {.n = 5, .at = 0, .open = open_incident, .end = 50};
	struct target_run t;
	struct source src;
	struct model m, other;
	struct sampler sp;
	struct tune_ctl tc;
	struct travel tr;
	memset(&src, 0, sizeof src);
	memset(&tc, 0, sizeof tc);
	model_init(&m, 10);
	model_init(&other, 10);
	target_run_init(&t, "", "demo", &src, &m, false);
	events_session_act(&t.ev, 1000, true, 7, "KILL 7: done");
	t.ev_start = 1000;
	tc.tv.nactive = 2;
	tc.tv_gen = 9;
	travel_init(&tr, NULL, true, false);
	travel_show(&tr, &other, &src, &sp);
	tr.paused = tr.ended = true;
	tr.tl_cursor = 1000;

	open_ok = false;
	CHECK(!tourseq_go(&ts, 2, &t, &sp, &tc, &tr, 1) && ts.at == 0 && stops == 1 && starts == 0,
	      "the incident does not open: the tour cannot go on");
	open_ok = true;
	stop_ok = false;
	CHECK(!tourseq_go(&ts, 2, &t, &sp, &tc, &tr, 1) && opened == -1 && starts == 0,
	      "the sampler does not stop: nothing reopened under it");
	stop_ok = true;
	CHECK(tourseq_go(&ts, 2, &t, &sp, &tc, &tr, 1) && ts.at == 2 && opened == 2 && starts == 1,
	      "> : incident 3 opened, the sampler started again");
	CHECK(ts.end == 0 && !tr.paused && !tr.ended && tr.m == &m && tr.live == &m && tr.tl_cursor == 0,
	      "playing from its start: nothing frozen, the target's model drawn");
	CHECK(tc.tv.nactive == 0 && tc.tv_gen == 0, "the tuning view forgotten");
	CHECK(t.ev.n == 0 && t.ev_start == 0, "the event log and the timeline start again");
	target_run_free(&t);
	model_free(&m);
	model_free(&other);
}

int main(void)
{
	test_steps();
	test_go();
	return tap_failed ? 1 : 0;
}
