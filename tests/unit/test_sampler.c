/* test_sampler.c - the typed commands between the screen and a target's
 * worker (run/sampler.c): commands run in the order sent, a full queue
 * refuses, one action at a time (and one explain), probes and the
 * session-list wish joined rather than queued twice, results typed and
 * taken by kind in order, the oldest dropped when nobody takes them; and
 * the same queue driven by a second thread (the ThreadSanitizer run,
 * make check-tsan, checks it); the refreshes of several targets on one
 * grid; the screen's probes of the tunables (run/tunectl.c) after the
 * sampler's own. The source is this file's stand-in: its
 * act and explain record what ran. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../../run/sampler.c"
#include "../../run/tunectl.c"
#include "tap.h"

static int nran;
static long long ran_id[64];
static int ran_what[64];

static int fake_act(struct source *src, int what, long long id, const struct session_ident *who, char *msg,
		    size_t len)
{
	(void)src;
	(void)who;
	if (nran < 64) {
		ran_what[nran] = what;
		ran_id[nran] = id;
	}
	nran++;
	str_printf(msg, len, "%s %lld: done", what == SRC_ACT_TERMINATE ? "KILL" : "CANCEL", id);
	return id < 0 ? -1 : 0;
}

static int fake_explain(struct source *src, long long id, const struct session_ident *who, char *plan, size_t len,
			char *err, size_t elen)
{
	(void)src;
	(void)who;
	if (id == 0) {
		str_copy(err, elen, "no statement");
		return -1;
	}
	str_printf(plan, len, "plan of %lld", id);
	return 0;
}

static const struct source_ops fake_ops = {.name = "fake", .act = fake_act, .explain = fake_explain};

/* A sampler with its queues and lock, no worker thread (the test runs
 * the worker's steps). */
static void setup(struct sampler *sp, struct source *src)
{
	memset(sp, 0, sizeof *sp);
	memset(src, 0, sizeof *src);
	src->ops = &fake_ops;
	src->connected = true;
	sp->src = src;
	sp->cmd = xcalloc(TARGET_CMDQ, sizeof *sp->cmd);
	sp->res = xcalloc(TARGET_CMDQ, sizeof *sp->res);
	sp->wake[0] = sp->wake[1] = -1;
	pthread_mutex_init(&sp->mu, NULL);
	pthread_cond_init(&sp->cv, NULL);
	nran = 0;
}

static void teardown(struct sampler *sp)
{
	for (int i = 0; i < sp->nres; i++)
		free(sp->res[(sp->res_head + i) % TARGET_CMDQ].plan);
	free(sp->res);
	free(sp->cmd);
	free(sp->ex_plan);
	pthread_mutex_destroy(&sp->mu);
	pthread_cond_destroy(&sp->cv);
}

/* The worker's step: run the oldest command; false when none is queued. */
static bool step(struct sampler *sp)
{
	double next = 0;
	pthread_mutex_lock(&sp->mu);
	if (!sp->ncmd) {
		pthread_mutex_unlock(&sp->mu);
		return false;
	}
	do_command(sp, &next);
	return true;
}

static struct target_cmd session_cmd(enum target_cmd_kind k, long long id)
{
	struct target_cmd c = {.kind = k};
	c.arg.session.id = id;
	return c;
}

static void test_order_and_results(void)
{
	struct sampler sp;
	struct source src;
	struct target_result r;
	setup(&sp, &src);
	struct target_cmd kill = session_cmd(CMD_KILL, 41), ex = session_cmd(CMD_EXPLAIN, 7);
	CHECK(sampler_send(&sp, &ex) && sampler_send(&sp, &kill) && sp.ncmd == 2, "an explain and a kill queued");
	CHECK(sampler_busy(&sp), "the kill is an action in flight");
	struct target_cmd cancel = session_cmd(CMD_CANCEL, 42);
	CHECK(!sampler_send(&sp, &cancel) && sp.ncmd == 2, "a second action is refused while one is queued");
	struct target_cmd ex2 = session_cmd(CMD_EXPLAIN, 8);
	CHECK(!sampler_send(&sp, &ex2), "a second explain is refused while one is queued");
	CHECK(!sampler_send(&sp, &(struct target_cmd){.kind = CMD_NONE}) &&
		      !sampler_send(&sp, &(struct target_cmd){.kind = CMD_KINDS}),
	      "no command of no kind");
	CHECK(step(&sp) && nran == 0 && sp.nres == 1 && sp.res[sp.res_head].kind == CMD_EXPLAIN,
	      "the explain runs first: the order sent");
	CHECK(step(&sp) && nran == 1 && ran_id[0] == 41 && ran_what[0] == SRC_ACT_TERMINATE && !step(&sp),
	      "then the kill, as SRC_ACT_TERMINATE on its session; nothing more");
	CHECK(!sampler_busy(&sp), "no action in flight once it ran");
	CHECK(sampler_take(&sp, CMD_ACTIONS, &r) && r.kind == CMD_KILL && r.id == 41 && r.rc == 0 &&
		      strcmp(r.msg, "KILL 41: done") == 0 && r.plan == NULL,
	      "the kill's result is taken by kind, ahead of the older explain");
	CHECK(!sampler_take(&sp, CMD_ACTIONS, &r), "one result per action");
	CHECK(sampler_take(&sp, CMD_BIT(CMD_EXPLAIN), &r) && r.kind == CMD_EXPLAIN && r.rc == 0 && r.plan &&
		      strcmp(r.plan, "plan of 7") == 0 && r.id == 7,
	      "the explain's result carries its plan");
	free(r.plan);
	CHECK(sampler_send(&sp, &cancel) && step(&sp) && sampler_take(&sp, CMD_ACTIONS, &r) && r.kind == CMD_CANCEL &&
		      ran_what[1] == SRC_ACT_CANCEL && ran_id[1] == 42,
	      "an action is accepted again once the first ran");
	struct target_cmd bad = session_cmd(CMD_EXPLAIN, 0);
	CHECK(sampler_send(&sp, &bad) && step(&sp) && sampler_take(&sp, CMD_BIT(CMD_EXPLAIN), &r) && r.rc == -1 &&
		      r.plan == NULL && strcmp(r.msg, "no statement") == 0,
	      "an explain that fails: no plan, the source's words");
	CHECK(sampler_send(&sp, &(struct target_cmd){.kind = CMD_TUNE_UNDO}) && step(&sp) &&
		      sampler_take(&sp, CMD_ACTIONS, &r) && r.kind == CMD_TUNE_UNDO && r.rc == -1 &&
		      strcmp(r.msg, "tuning is not available here") == 0,
	      "a tuning command without a tuner: said, typed as itself");
	teardown(&sp);
}

static void test_full_and_joined(void)
{
	struct sampler sp;
	struct source src;
	struct target_result r;
	setup(&sp, &src);
	struct target_cmd want = {.kind = CMD_SESSIONS_WANTED, .arg.sessions = {.want = true, .idle = false}};
	CHECK(sampler_send(&sp, &(struct target_cmd){.kind = CMD_PROBE}) &&
		      sampler_send(&sp, &(struct target_cmd){.kind = CMD_PROBE}) && sp.ncmd == 1,
	      "a second probe joins the queued one");
	CHECK(sampler_send(&sp, &want) && sp.ncmd == 2, "the session list wanted: queued");
	want.arg.sessions.idle = true;
	CHECK(sampler_send(&sp, &want) && sp.ncmd == 2, "wanted again: joins, the newest arguments win");
	struct target_cmd ex = session_cmd(CMD_EXPLAIN, 100), k = session_cmd(CMD_KILL, 101);
	CHECK(sampler_send(&sp, &ex) && sampler_send(&sp, &k) && sp.ncmd == 4, "an explain and an action beside them");
	/* the rules keep sends alone from filling the queue (one action, one
	 * explain, the others joined): its other slots are filled here */
	while (sp.ncmd < TARGET_CMDQ)
		sp.cmd[(sp.cmd_head + sp.ncmd++) % TARGET_CMDQ] = (struct target_cmd){.kind = CMD_TUNE_EXPIRE};
	struct target_cmd bg = {.kind = CMD_BACKGROUND, .arg.background = true};
	CHECK(sp.ncmd == TARGET_CMDQ && !sampler_send(&sp, &bg) && sp.ncmd == TARGET_CMDQ,
	      "a full queue refuses a command that would need a slot");
	CHECK(sampler_send(&sp, &(struct target_cmd){.kind = CMD_PROBE}) && sp.ncmd == TARGET_CMDQ,
	      "a full queue still joins a probe to a queued one");
	while (step(&sp))
		;
	CHECK(src.want_sessions && src.sessions_idle, "the worker gave the source the session list wished last");
	CHECK(nran == 1 && sampler_take(&sp, CMD_ACTIONS, &r) && r.id == 101, "the queue's kill ran");
	CHECK(sampler_take(&sp, CMD_BIT(CMD_EXPLAIN), &r) && r.id == 100, "and its explain");
	free(r.plan);
	while (sampler_take(&sp, CMD_ACTIONS, &r))
		; /* the fillers' results */
	CHECK(sampler_send(&sp, &bg) && step(&sp) && __atomic_load_n(&src.background, __ATOMIC_RELAXED),
	      "once emptied it takes commands again: the background set by the worker");
	/* results nobody takes: the oldest goes */
	for (long long id = 1; id <= TARGET_CMDQ + 2; id++) {
		struct target_cmd kk = session_cmd(CMD_KILL, id);
		sampler_send(&sp, &kk);
		step(&sp);
	}
	CHECK(sp.nres == TARGET_CMDQ && sampler_take(&sp, CMD_ACTIONS, &r) && r.id == 3,
	      tname("%d results kept, the two oldest dropped", TARGET_CMDQ));
	teardown(&sp);
}

/* The worker's side on its own thread, as in sampler.c's loop. */
static void *worker_steps(void *arg)
{
	struct sampler *sp = arg;
	for (;;) {
		double next = 0;
		pthread_mutex_lock(&sp->mu);
		while (!sp->ncmd && !sp->stop)
			pthread_cond_wait(&sp->cv, &sp->mu);
		if (!sp->ncmd && sp->stop) {
			pthread_mutex_unlock(&sp->mu);
			return NULL;
		}
		do_command(sp, &next);
	}
}

static void test_threads(void)
{
	struct sampler sp;
	struct source src;
	pthread_t th;
	setup(&sp, &src);
	CHECK(pipe(sp.wake) == 0, "a wake-up pipe");
	fcntl(sp.wake[0], F_SETFL, O_NONBLOCK);
	fcntl(sp.wake[1], F_SETFL, O_NONBLOCK);
	pthread_create(&th, NULL, worker_steps, &sp);
	int got = 0, order_ok = 1;
	long long next_id = 1, want_id = 1;
	/* bounded: 40 kills, each sent when the last one's result came */
	for (int spins = 0; got < 40 && spins < 4000000; spins++) {
		struct target_result r;
		struct target_cmd k = session_cmd(CMD_KILL, next_id);
		if (next_id <= 40 && sampler_send(&sp, &k))
			next_id++;
		sampler_send(&sp, &(struct target_cmd){.kind = CMD_PROBE});
		if (sampler_take(&sp, CMD_ACTIONS, &r)) {
			order_ok &= r.id == want_id++;
			got++;
		}
	}
	pthread_mutex_lock(&sp.mu);
	sp.stop = true;
	pthread_cond_broadcast(&sp.cv);
	pthread_mutex_unlock(&sp.mu);
	pthread_join(th, NULL);
	CHECK(got == 40 && order_ok && nran == 40, tname("40 kills through a worker thread, in order (%d)", got));
	close(sp.wake[0]);
	close(sp.wake[1]);
	teardown(&sp);
}

/* The fleet's samplers on one grid (sampler_align): the refreshes of
 * several targets come together. */
static void test_grid(void)
{
	struct sampler sp;
	memset(&sp, 0, sizeof sp);
	sp.interval = 1;
	CHECK(on_grid(&sp, 107.3) == 107.3, "no grid: the next refresh as it was");
	sp.grid = 100.0;
	CHECK(fabs(on_grid(&sp, 107.3) - 107) < 1e-9 && fabs(on_grid(&sp, 107.6) - 108) < 1e-9,
	      "on a grid from 100 s every 1 s: 107.3 -> 107, 107.6 -> 108 (the nearest)");
	CHECK(fabs(on_grid(&sp, on_grid(&sp, 107.3) + sp.interval) - 108) < 1e-9,
	      "once on it, next + interval stays on it");
	sp.interval = 0.25;
	CHECK(fabs(on_grid(&sp, 100.3) - 100.25) < 1e-9, "at 0.25 s: 100.3 -> 100.25");
	sp.interval = 0;
	CHECK(on_grid(&sp, 100.3) == 100.3, "no interval: unchanged");
	/* the first rates: 0.2 s after the first sample, no sooner than the
	 * server's counters allow (PostgreSQL: 1 s) */
	struct caps c;
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_MYSQL;
	CHECK(fabs(first_rates_gap(&c) - 0.2) < 1e-9, "MySQL / MariaDB: the first rates 0.2 s after the first sample");
	c.engine = ENGINE_POSTGRESQL;
	CHECK(fabs(first_rates_gap(&c) - 1.0) < 1e-9, "PostgreSQL: 1 s after (its counters come once a second)");
}

/* The screen asks for a probe of the tunables every 5 s while the tuning
 * screen shows or the view is recorded; the sampler probes each new
 * connection itself, so none is asked before that view has come, nor
 * within 5 s of a view (before: a second probe 10 ms after the first). */
static void test_probes(void)
{
	struct sampler sp;
	struct source src;
	struct tune_ctl c;
	struct event_log ev;
	setup(&sp, &src);
	sp.tv = xcalloc(1, sizeof *sp.tv);
	sp.tv_gen = 1; /* sampler_start: the view before any probe */
	memset(&c, 0, sizeof c);
	events_init(&ev);
	tunectl_poll(&c, &sp, &ev, 100);
	tunectl_probe(&c, &sp, true, 100);
	CHECK(sp.ncmd == 0 && c.tv_gen == 1, "before the sampler's probe of its connection: no probe asked");
	sp.tv_gen = 2; /* the connection's probe, published */
	CHECK(sampler_tune_view(&sp, &c.tv_gen, &c.tv) && c.tv_gen == 2,
	      "its view arrives (copied by the recording, not by tunectl_poll)");
	tunectl_probe(&c, &sp, true, 100.2);
	tunectl_probe(&c, &sp, true, 105.1);
	CHECK(sp.ncmd == 0, "none within 5 s of a fresh view");
	tunectl_probe(&c, &sp, false, 105.3);
	CHECK(sp.ncmd == 0, "none when not wanted");
	tunectl_probe(&c, &sp, true, 105.3);
	CHECK(sp.ncmd == 1 && sp.cmd[sp.cmd_head].kind == CMD_PROBE, "5 s after it, wanted: one probe");
	tunectl_probe(&c, &sp, true, 106);
	CHECK(sp.ncmd == 1, "and not again until 5 s after that");
	events_free(&ev);
	free(sp.tv);
	teardown(&sp);
}

int main(void)
{
	test_grid();
	test_probes();
	test_order_and_results();
	test_full_and_joined();
	test_threads();
	return tap_failed ? 1 : 0;
}
