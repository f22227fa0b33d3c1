/* test_travel.c - time travel without curses (run/travel.c): freezing at
 * the newest kept sample, steps and minute jumps over a history, the
 * oldest and newest ends and what is said there, a frozen replay read on
 * past its newest sample (the seek asked of the source, the samples
 * pulled, the landing), a frozen view kept on its moment as the live
 * model moves on, and the timeline's marks that { } visit. The sampler
 * is this file's stand-in: it records the pauses asked of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../run/travel.c"
#include "tap.h"

#define T0 1795978222.0
#define N 30

static int pauses, resumes;

/* The screen's sampler thread, stood in for: travel only pauses it. */
void sampler_pause(struct sampler *sp, bool paused)
{
	(void)sp;
	if (paused)
		pauses++;
	else
		resumes++;
}

static char tmpdir[256];
static uint64_t commits;

/* Sample i at T0 + i: commits grow by 10 * (i + 1) a second, so the
 * commit rate tells which moment a model shows. */
static void add_sample(struct history *h, struct model *live, int i)
{
	struct sample *s = xmalloc(sizeof *s);
	memset(s, 0, sizeof *s);
	s->mono = 1000 + i;
	s->wall = T0 + i;
	s->state = STATE_UP;
	s->conn_gen = 1;
	s->uptime_s = 5000 + i;
	commits += 10 * (uint64_t)(i + 1);
	sample_set(s, CTR_COMMITS, commits, 1);
	hist_add(h, s, NULL);
	model_update(live, s);
	sample_release(s);
	free(s);
}

static void open_history(struct history *h, struct model *live, int n)
{
	struct rec_header hdr = {.start_wall = T0, .interval = 1};
	struct caps c;
	char err[256];
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_MYSQL;
	c.flavour = FLAVOUR_MARIADB;
	str_copy(c.version, sizeof c.version, "10.11.6-MariaDB");
	str_copy(hdr.engine, sizeof hdr.engine, "mariadb");
	commits = 0;
	CHECK(hist_open(h, 60, NULL, tmpdir, &hdr, err, sizeof err) == 0, tname("hist_open: %s", err));
	model_init(live, 900);
	model_set_caps(live, &c);
	hist_add_caps(h, &c, 1);
	for (int i = 0; i < n; i++)
		add_sample(h, live, i);
}

/* The wall time of the moment tr shows. */
static double shown(const struct travel *tr)
{
	return tr->m->intervals ? tr->m->last.wall - T0 : -1;
}

static void test_steps(void)
{
	struct history h;
	struct model live;
	struct source src;
	struct sampler sp;
	struct travel tr;
	memset(&src, 0, sizeof src);
	open_history(&h, &live, N);
	travel_init(&tr, &h, false, false);
	travel_show(&tr, &live, &src, &sp);
	pauses = resumes = 0;

	CHECK(travel_command(&tr, TR_NEXT, 1) == NULL && !tr.paused && tr.step_t0 > 0,
	      "live: a step forward stays live (its key timed all the same)");
	travel_freeze(&tr);
	CHECK(tr.paused && pauses == 1, "space freezes and pauses the sampler");
	CHECK(tr.m == &live && !tr.at_built && tr.at_wall == T0 + N - 1 && travel_index(&tr) == N - 1,
	      "frozen at the newest sample: the live model is it (no rebuild)");
	CHECK(!tr.built, "live and frozen at the newest: no rebuilt model taken (its ~124 KB untouched)");
	CHECK(travel_command(&tr, TR_PREV, 1) == NULL, "Left: nothing to say");
	CHECK(tr.built && tr.m == tr.built && tr.at_built && shown(&tr) == N - 2 && tr.rebuilds == 1,
	      tname("Left: the model rebuilt one sample back (shows %g, %lu rebuilds)", shown(&tr), tr.rebuilds));
	for (int k = 0; k < 3; k++)
		travel_command(&tr, TR_PREV, 1);
	CHECK(travel_index(&tr) == N - 5 && shown(&tr) == N - 5, tname("three more: index %ld", travel_index(&tr)));
	CHECK_NEAR(tr.m->cur[M_COMMITS].v, 10.0 * (N - 4), 1e-6, "the rebuilt model's commit rate is that moment's");
	travel_command(&tr, TR_NEXT, 1);
	CHECK(travel_index(&tr) == N - 4 && shown(&tr) == N - 4, "Right: one sample forward");
	CHECK(travel_command(&tr, TR_OLDEST, 1) == NULL && travel_index(&tr) == 0 && shown(&tr) == 0,
	      "Home: the oldest sample kept");
	CHECK_STR(travel_command(&tr, TR_PREV, 1), "the oldest sample kept (--history 1m)",
		  "Left at the oldest says so");
	CHECK(travel_index(&tr) == 0, "... and stays there");
	travel_command(&tr, TR_NEXT_MIN, 1);
	CHECK(tr.m == &live && travel_index(&tr) == N - 1,
	      tname("PgDn from the oldest of 30 s: the newest (the live model), index %ld", travel_index(&tr)));
	CHECK_STR(travel_command(&tr, TR_NEXT, 1), "the newest sample: End or space goes live",
		  "Right at the newest of a live server says how to go live");
	travel_move(&tr, 0, T0 + 12.4, 1);
	CHECK(travel_index(&tr) == 12 && shown(&tr) == 12, "a wall time: the kept sample nearest it");
	CHECK(travel_command(&tr, TR_PREV_MIN, 1) == NULL && travel_index(&tr) == 0, "PgUp: a minute back, the oldest");
	CHECK_STR(travel_command(&tr, TR_LIVE, 1), "live", "End goes live");
	CHECK(!tr.paused && tr.m == &live && !tr.at_built && resumes == 1, "live: the sampler resumed");

	/* frozen on the newest kept sample while the live model moves on */
	travel_freeze(&tr);
	CHECK(tr.m == &live && tr.at_wall == T0 + N - 1, "frozen on the newest again");
	CHECK(travel_follow(&tr) == NULL && tr.built && tr.m == tr.built && shown(&tr) == N - 1,
	      "a sample coming: the frozen view rebuilt at its moment first");
	add_sample(&h, &live, N);
	CHECK(tr.built && tr.m == tr.built && shown(&tr) == N - 1 && live.last.wall == T0 + N,
	      "... and kept there as the live model moves on");
	unsigned long rb = tr.rebuilds;
	travel_follow(&tr);
	CHECK(tr.rebuilds == rb, "the next sample: no rebuild (already built)");
	travel_live(&tr);

	/* the event log's marks */
	struct event_log ev;
	events_init(&ev);
	events_session_act(&ev, T0 + 5, true, 42, "KILL 42: done");
	events_own(&ev, T0 + 10, "innodb_flush_log_at_trx_commit", "1", "2", false);
	events_session_act(&ev, T0 + 15, false, 43, "KILL QUERY 43: done");
	events_own(&ev, T0 + 20, "innodb_flush_log_at_trx_commit", "2", "1", true);
	CHECK(!travel_is_mark(events_at(&ev, 0)) && travel_is_mark(events_at(&ev, 1)),
	      "a session ended is no mark, a setting changed is");
	const struct event *e = travel_mark(&tr, &ev, false);
	CHECK(e && e->wall == T0 + 20, "{ from now: the newest mark");
	travel_to_event(&tr, e, 1);
	CHECK(tr.paused && tr.tl_cursor == T0 + 20 && travel_index(&tr) == 20 && shown(&tr) == 20,
	      "landed on it: frozen at its moment, the cursor on it");
	e = travel_mark(&tr, &ev, false);
	CHECK(e && e->wall == T0 + 10, "{ again: the mark before (the session's end skipped)");
	travel_to_event(&tr, e, 1);
	CHECK(shown(&tr) == 10, "... shown");
	CHECK(travel_mark(&tr, &ev, false) == NULL && tr.tl_seq == 0 && tr.tl_cursor == 0 && tr.paused,
	      "no earlier mark: the choice cleared, still frozen");
	e = travel_mark(&tr, &ev, true);
	CHECK(e == NULL && !tr.paused && tr.m == &live, "} with none chosen: back to live");
	double t0, t1;
	travel_timeline(&tr, &ev, T0, &t0, &t1);
	CHECK(t0 == T0 && t1 == T0 + N, "the timeline spans the kept samples");
	events_free(&ev);

	travel_free(&tr);
	hist_close(&h);
	model_free(&live);
}

/* A frozen replay: a step past its newest sample asks the source for one
 * more, a minute past it for the samples up to there; they land when in. */
static void test_replay(void)
{
	struct history h;
	struct model live;
	struct source src;
	struct sampler sp;
	struct travel tr;
	memset(&src, 0, sizeof src);
	open_history(&h, &live, 10);
	travel_init(&tr, &h, true, false);
	travel_show(&tr, &live, &src, &sp);

	CHECK(travel_takes(&tr), "a playing replay takes its samples");
	travel_freeze(&tr);
	CHECK(!travel_takes(&tr) && !travel_pulling(&tr), "frozen: the samples wait in the queue");
	CHECK(travel_command(&tr, TR_NEXT, 1) == NULL && tr.pull_n == 1 && src.seek_steps == 1,
	      "Right at the newest: one more sample asked of the source");
	CHECK(travel_takes(&tr) && travel_pulling(&tr), "... and taken from the queue");
	travel_drawn(&tr);
	CHECK(tr.steps == 0, "a step still pulling is not timed yet");
	add_sample(&h, &live, 10);
	CHECK(travel_pulled_one(&tr) && !travel_pulling(&tr), "it came: the step has what it asked for");
	CHECK(travel_pull_done(&tr) == NULL && travel_index(&tr) == 10 && tr.m == &live && src.seek_to == 0,
	      "landed on it (the live model), the seek cleared");
	travel_drawn(&tr);
	CHECK(tr.steps == 1 && tr.step_t0 == 0, "the step timed once drawn");

	CHECK(travel_command(&tr, TR_NEXT_MIN, 1) == NULL && tr.pull_wall == T0 + 70 && tr.pull_to == T0 + 70,
	      "PgDn past the newest: the samples up to a minute on");
	CHECK_NEAR(src.seek_to, T0 + 71, 1e-6, "the seek reaches one interval past it");
	add_sample(&h, &live, 11);
	CHECK(!travel_pulled_one(&tr), "one sample is not all of it");
	CHECK(travel_end(&tr) && tr.ended && !travel_pulling(&tr), "the recording ended while pulling");
	CHECK(travel_pull_done(&tr) == NULL && travel_index(&tr) == 11, "... it lands on its newest sample");
	CHECK_STR(travel_command(&tr, TR_NEXT, 1), "the end of the recording", "Right after the end says so");

	travel_reset(&tr, &live);
	CHECK(!tr.paused && !tr.ended && tr.m == &live && !tr.built && tr.at_wall == 0,
	      "reset (the tour's next incident): playing, nothing kept of the moment");
	travel_free(&tr);
	hist_close(&h);
	model_free(&live);
}

static void test_no_history(void)
{
	struct model live;
	struct travel tr;
	model_init(&live, 10);
	travel_init(&tr, NULL, false, false);
	travel_show(&tr, &live, NULL, NULL);
	CHECK_STR(travel_command(&tr, TR_PREV, 1), "no history kept (--history 0)", "--history 0: said");
	CHECK(tr.paused && tr.m == &live, "... frozen on the live model");
	travel_init(&tr, NULL, false, true);
	travel_show(&tr, &live, NULL, NULL);
	CHECK_STR(travel_command(&tr, TR_PREV, 1), "no history kept: it is kept with one target only",
		  "several targets: said why");
	model_free(&live);
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "%s/dbtop-test-travel-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_steps();
	test_replay();
	test_no_history();
	rmdir(tmpdir);
	return tap_failed ? 1 : 0;
}
