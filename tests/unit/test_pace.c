/* test_pace.c - --server-budget: when a costly read is due again, and the
 * lock graph kept between paced reads (aged to the present, with a note
 * saying how old it is; timed-out reads retried later; nothing kept across
 * a reconnection or when nothing waits). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../model/forecast.h"
#include "../../model/locks.h"
#include "../../model/waits.h"
#include "../../sources/pace.h"
#include "../../sources/source.h"
#include "../../util/util.h"
#include "tap.h"

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void test_pace_next(void)
{
	struct source src;
	memset(&src, 0, sizeof src);
	src.budget_ms = 10;
	/* share 0.5 of 10 ms/s: 5 ms of server time per second */
	double n = source_pace_next(&src, 100, 2, 0.5);
	CHECK(n > 0 && n < 101, "a 2 ms read is due again before the next refresh");
	CHECK(near(source_pace_next(&src, 100, 30, 0.5), 100 + 6 - 0.1), "a 30 ms read: every 6 s");
	CHECK(near(source_pace_next(&src, 100, 5000, 0.5), 100 + PACE_MAX_S - 0.1), "at most PACE_MAX_S apart");
	CHECK(source_pace_next(&src, 100, 0, 0.5) == 0, "a read that cost nothing: every refresh");
	CHECK(source_pace_next(&src, 100, NAN, 0.5) == 0, "an unknown cost: every refresh");
	src.budget_ms = 0;
	CHECK(source_pace_next(&src, 100, 500, 0.5) == 0, "--server-budget 0: every refresh");
	src.budget_ms = 40;
	CHECK(near(source_pace_next(&src, 100, 30, 0.5), 100 + 1.5 - 0.1), "a bigger budget: more often");
	/* the budget is per refresh: at 0.5 s a 30 ms read comes every 6
	 * refreshes, 3 s */
	src.budget_ms = 10;
	src.interval = 0.5;
	CHECK(near(source_pace_next(&src, 100, 30, 0.5), 100 + 3 - 0.05), "per refresh: every 6 refreshes at 0.5 s");
	n = source_pace_next(&src, 100, 4, 0.5);
	CHECK(n > 0 && n < 100.5, "a 4 ms read at 0.5 s: still every refresh");
	src.interval = 60;
	CHECK(near(source_pace_next(&src, 100, 30, 0.5), 100 + PACE_MAX_S - 0.1), "at 60 s: capped, never less often than 30 s");
}

/* The reads of every refresh come out of the budget first: the paced ones
 * share what is left, never less than PACE_LEFT_MIN of it. */
/* A read that only the target's own screen shows, in the background:
 * the first two at once, then every PACE_BACKGROUND_S; in front at once. */
static void test_pace_shown(void)
{
	struct source src;
	memset(&src, 0, sizeof src);
	src.interval = 1;
	src.budget_ms = 10;
	src.background = true;
	struct pacer pc = {0};
	CHECK(pace_due_shown(&pc, &src, 100, false), "background: the first read at once");
	pace_done(&pc, &src, 100, 1, PACE_SHARE_DIGESTS);
	CHECK(pace_due_shown(&pc, &src, 101, false), "background: the second at the next refresh (the first rates)");
	double every = pace_every_shown(&src, pace_done(&pc, &src, 101, 1, PACE_SHARE_DIGESTS));
	CHECK(every == PACE_BACKGROUND_S, "background: said read every PACE_BACKGROUND_S");
	CHECK(!pace_due_shown(&pc, &src, 102, false) && !pace_due_shown(&pc, &src, 101 + PACE_BACKGROUND_S - 1, false),
	      "background: not due before PACE_BACKGROUND_S");
	CHECK(pace_due_shown(&pc, &src, 101 + PACE_BACKGROUND_S, false), "background: due PACE_BACKGROUND_S after the last");
	src.background = false;
	CHECK(pace_due_shown(&pc, &src, 102, false), "opened: due at its next refresh");
	CHECK(pace_every_shown(&src, 0) == 0, "opened: every refresh, no note");
}

static void test_pace_fixed(void)
{
	struct source src;
	memset(&src, 0, sizeof src);
	src.budget_ms = 10;
	src.fixed_ms = 6;
	/* 4 ms left, half of it: 2 ms per refresh, a 30 ms read every 15 s */
	CHECK(near(source_pace_next(&src, 100, 30, 0.5), 100 + 15 - 0.1), "6 of 10 ms spent at every refresh: every 15 s");
	src.fixed_ms = 9.5;
	/* 0.5 ms left is under the floor of 1 ms: 0.5 ms per refresh */
	CHECK(near(source_pace_next(&src, 100, 5, 0.5), 100 + 10 - 0.1), "little left: the floor, PACE_LEFT_MIN of the budget");
	src.fixed_ms = 40;
	CHECK(near(source_pace_next(&src, 100, 5, 0.5), 100 + 10 - 0.1), "more spent than the budget: still the floor");
	src.fixed_ms = 0;
	CHECK(near(source_pace_next(&src, 100, 30, 0.5), 100 + 6 - 0.1), "nothing measured: the whole budget");
	/* the summaries of every thread may wait longer than the other reads */
	src.fixed_ms = 12;
	CHECK(near(source_pace_next_max(&src, 100, 300, 0.1, PACE_MAX_SUMMARY_S), 100 + PACE_MAX_SUMMARY_S - 0.1),
	      "a 300 ms summary with the budget spent: every PACE_MAX_SUMMARY_S");
	CHECK(near(source_pace_next_max(&src, 100, 5, 0.1, PACE_MAX_SUMMARY_S), 100 + 50 - 0.1),
	      "a 5 ms summary: as its share of the floor allows, under the cap");
	struct pacer pc = {0};
	CHECK(pace_done_max(&pc, &src, 100, 300, 0.1, PACE_MAX_SUMMARY_S) == 0 && pc.next == 0,
	      "the second read at the next refresh whatever it costs");
	CHECK(near(pace_done_max(&pc, &src, 101, 300, 0.1, PACE_MAX_SUMMARY_S), PACE_MAX_SUMMARY_S - 0.1 + 0.1),
	      "then every PACE_MAX_SUMMARY_S, said in s between reads");
	/* the summaries paid first: 2 of the 8 ms left go to them, the lock
	 * graph takes half of the 6 they leave (3 ms a refresh: a 30 ms read
	 * every 10 s, not 7.5), the summaries their share of the 8 */
	src.fixed_ms = 2;
	src.summary_ms = 2;
	CHECK(near(source_pace_next(&src, 100, 30, PACE_SHARE_LOCKS), 100 + 10 - 0.1),
	      "2 ms of summaries a refresh: the graph shares the 6 ms they leave (every 10 s)");
	CHECK(near(source_pace_next_max(&src, 100, 8, PACE_SHARE_SUMMARY, PACE_MAX_SUMMARY_S), 100 + 10 - 0.1),
	      "... a summary its share of the 8 ms every refresh leaves (every 10 s)");
	src.summary_ms = 20;
	CHECK(near(source_pace_next(&src, 100, 5, PACE_SHARE_LOCKS), 100 + 10 - 0.1),
	      "summaries above what is left: the graph still has the floor");
	src.summary_ms = 0;
	src.budget_ms = 0;
	src.fixed_ms = 6;
	CHECK(source_pace_next(&src, 100, 500, 0.5) == 0, "--server-budget 0: every refresh, whatever every refresh costs");
}

/* The large paced reads share what is left: one that spends beyond its
 * share (held at PACE_MAX_S) leaves the others less, until its pace ends. */
static void test_pace_ledger(void)
{
	struct source src;
	struct pacer pc = {0};
	memset(&src, 0, sizeof src);
	src.budget_ms = 10;
	src.fixed_ms = 4; /* 6 ms left a refresh */
	/* a 120 ms list (joined with the graph): 3 ms a refresh would be every
	 * 40 s; held at PACE_MAX_S, it spends 4 ms a refresh */
	double n = source_pace_read(&src, PACED_SESSIONS, 100, 120);
	CHECK(near(n, 100 + PACE_MAX_S - 0.1) && near(src.paced_ms[PACED_SESSIONS], 4),
	      "a 120 ms list: every 30 s, 4 ms a refresh (above its 3)");
	/* the digests: 2 ms of the 6 left, not their 3 */
	CHECK(near(source_pace_read(&src, PACED_DIGESTS, 100, 3), 100 + 1.5 - 0.1),
	      "3 ms digests take the 2 ms the list leaves: every 1.5 s, not every refresh");
	CHECK(near(src.paced_ms[PACED_DIGESTS], 2), "... they spend 2 ms a refresh");
	/* the list read again: its own old pace is not counted against it */
	CHECK(near(source_pace_read(&src, PACED_SESSIONS, 100, 6), 100 + 2 - 0.1),
	      "a 6 ms list: its share (3 ms: every 2 s), its last pace not counted");
	/* a pace that ended (no read since its time and two refreshes) leaves
	 * the whole share */
	source_pace_read(&src, PACED_SESSIONS, 100, 120);
	CHECK(near(source_pace_next(&src, 100, 3, PACE_SHARE_DIGESTS), 100 + 1 - 0.1),
	      "the plain pacer counts no other read");
	CHECK(near(source_pace_read(&src, PACED_DIGESTS, 100 + PACE_MAX_S + 1.9, 3),
		   100 + PACE_MAX_S + 1.9 + 1.5 - 0.1),
	      "the list's next read due 1.9 s ago: its pace still counts");
	CHECK(near(source_pace_read(&src, PACED_DIGESTS, 100 + PACE_MAX_S + 2.5, 3),
		   100 + PACE_MAX_S + 2.5 + 1 - 0.1),
	      "... 2.5 s ago (two refreshes of grace gone): the digests take their 3 ms share again");
	/* others above what is left: the floor (PACE_LEFT_MIN of the budget
	 * at the share: 0.5 ms, a 3 ms read every 6 s) */
	source_pace_read(&src, PACED_SESSIONS, 200, 300);
	source_pace_read(&src, PACED_LOCKS, 200, 300);
	CHECK(near(source_pace_read(&src, PACED_DIGESTS, 200, 3), 200 + 6 - 0.1),
	      "list and graph spend 20 ms a refresh: the digests keep the floor (every 6 s)");
	/* read with another in one statement: only its own part counts */
	source_pace_joined(&src, PACED_LOCKS, 30, 300);
	CHECK(near(src.paced_ms[PACED_LOCKS], 1), "the graph read with the list: 30 of its 300 ms count, 1 ms a refresh");
	source_pace_joined(&src, PACED_LOCKS, 300, 300);
	CHECK(near(src.paced_ms[PACED_LOCKS], 1), "... nothing shared: unchanged");
	/* the digests' pacer in the background: one read per PACE_BACKGROUND_S
	 * spends a tenth of its cost a refresh */
	src.background = true;
	pace_done_read(&pc, &src, 300, 3, PACED_DIGESTS);
	CHECK(near(src.paced_ms[PACED_DIGESTS], 3 / PACE_BACKGROUND_S),
	      "in the background: 3 ms every PACE_BACKGROUND_S, 0.3 ms a refresh");
	src.background = false;
	/* another read counted what the pacer's read counts: a whole pace on */
	struct pacer pr = {0};
	src.budget_ms = 10;
	src.fixed_ms = 0;
	pace_rebase(&pr, 500);
	CHECK(pr.next == 0 && pr.last == 0, "rebase before any read: still due now");
	pace_done_max(&pr, &src, 500, 10, PACE_SHARE_SUMMARY, PACE_MAX_SUMMARY_S);
	pace_done_max(&pr, &src, 501, 10, PACE_SHARE_SUMMARY, PACE_MAX_SUMMARY_S); /* 1 ms a refresh: every 10 s */
	pace_rebase(&pr, 508);
	CHECK(near(pr.next, 508 + 10 - 0.1) && near(pr.last, 508), "counted 7 s after its read: due 10 s after that count");
	pace_rebase(&pr, 530);
	CHECK(near(pr.next, 530 + 10 - 0.1), "... counted after it was due: 10 s after the count");
	pace_done_max(&pr, &src, 540, 0.1, PACE_SHARE_SUMMARY, PACE_MAX_SUMMARY_S); /* cheap: every refresh */
	pace_rebase(&pr, 541);
	CHECK(pr.next < 542 - PACE_SLACK_S, "read at every refresh: still due at the next");
	/* no budget: nothing paced, nothing spent */
	src.budget_ms = 0;
	CHECK(source_pace_read(&src, PACED_SESSIONS, 400, 120) == 0 &&
		      src.paced_ms[PACED_SESSIONS] == 0,
	      "--server-budget 0: every refresh, nothing kept");
}

static struct lock_set *graph(enum lock_status st, double ms)
{
	struct lock_set *ls = lock_set_new();
	ls->status = st;
	ls->waiting = 1;
	ls->query_ms = ms;
	if (st == LOCKS_READ) {
		struct lock_edge *e = lock_edge_add(ls, 11, 22);
		str_copy(e->object, sizeof e->object, "public.t");
		int w = lock_session_get(ls, 11), b = lock_session_get(ls, 22);
		ls->s[w].state_s = 5;
		ls->s[w].wait_s = 3;
		ls->s[w].trx_age_s = 7;
		ls->s[b].state_s = 60;
		ls->s[b].trx_age_s = 61;   /* wait_s stays NaN: the root does not wait */
		lock_session_query(&ls->s[b], "UPDATE t SET v = 1", true);
		lock_set_analyse(ls);
	} else {
		str_copy(ls->note, sizeof ls->note, "query exceeded 1.0s time limit");
	}
	return ls;
}

static void test_reuse(void)
{
	struct source src;
	memset(&src, 0, sizeof src);
	src.budget_ms = 10;
	src.conn_gen = 1;

	CHECK(source_locks_reuse(&src, 3, 100, false) == NULL, "nothing read yet: read now");

	/* a cheap graph is not kept: the next refresh reads again */
	struct lock_set *cheap = graph(LOCKS_READ, 2);
	source_locks_read(&src, cheap, 2, 100);
	CHECK(src.lk_last == NULL, "a 2 ms graph is not kept");
	CHECK(source_locks_reuse(&src, 1, 101, false) == NULL, "a 2 ms graph is read every refresh");
	lock_set_free(cheap);

	/* a 30 ms graph: read every 6 s, shown aged in between */
	struct lock_set *g = graph(LOCKS_READ, 30);
	g->waiting = 4;
	source_locks_read(&src, g, 30, 100);
	CHECK(src.lk_last != NULL && near(src.lk_next, 105.9), "a 30 ms graph is kept until 6 s on");
	struct lock_set *k = source_locks_reuse(&src, 5, 102, false);
	CHECK(k != NULL, "2 s later the kept graph is shown");
	if (k) {
		int w = lock_session_get(k, 11), b = lock_session_get(k, 22);
		CHECK(k->status == LOCKS_READ && k->ne == 1 && strcmp(k->e[0].object, "public.t") == 0,
		      "the kept graph has the edges read");
		CHECK(k->waiting == 5, "the waiting count is this refresh's");
		CHECK(near(k->age_s, 2), "age_s says how old the graph is");
		CHECK(near(k->s[w].wait_s, 5) && near(k->s[w].state_s, 7) && near(k->s[w].trx_age_s, 9),
		      "the waiter's times run on");
		CHECK(near(k->s[b].state_s, 62) && isnan(k->s[b].wait_s), "the root's idle time runs on; it still does not wait");
		CHECK(k->s[b].query && strcmp(k->s[b].query, "UPDATE t SET v = 1") == 0 && k->s[b].query != src.lk_last->s[b].query,
		      "statements are copied");
		CHECK(strstr(k->note, "graph from 2 s ago") && strstr(k->note, "30 ms") && strstr(k->note, "every 6 s"),
		      "the note says how old, what it costs, how often");
		CHECK(near(src.lk_last->s[w].wait_s, 3) && src.lk_last->note[0] == '\0', "the kept original is untouched");
		lock_set_free(k);
	}
	/* the original the caller published stays the caller's */
	lock_set_free(g);
	CHECK(!source_locks_due(&src, 4, 102) && !source_locks_due(&src, 0, 106) && source_locks_due(&src, 4, 105.95) &&
		      source_locks_due(&src, 9, 102),
	      "source_locks_due: what reuse would read (kept at 2 s; nothing waits: none; due at 6 s; 4 -> 9 waiting)");
	k = source_locks_reuse(&src, 4, 105.95, false);
	CHECK(k == NULL, "due after 6 s: read again");
	k = source_locks_reuse(&src, 4, 106.2, true);
	CHECK(k != NULL, "due, but this refresh paid for another costly read: one refresh more");
	lock_set_free(k);
	k = source_locks_reuse(&src, 4, 107.0, true);
	CHECK(k == NULL, "never more than one refresh late");

	/* the pile-up changed by more than a quarter: read again */
	g = graph(LOCKS_READ, 30);
	g->waiting = 100;
	source_locks_read(&src, g, 30, 110);
	lock_set_free(g);
	k = source_locks_reuse(&src, 120, 111, false);
	CHECK(k != NULL, "100 -> 120 waiting: the kept graph still serves");
	lock_set_free(k);
	CHECK(source_locks_reuse(&src, 126, 111, false) == NULL, "100 -> 126 waiting: read again");
	CHECK(source_locks_reuse(&src, 74, 111, false) == NULL, "100 -> 74 waiting: read again");
	g = graph(LOCKS_READ, 30);
	source_locks_read(&src, g, 30, 110);
	lock_set_free(g);
	k = source_locks_reuse(&src, 2, 111, false);
	CHECK(k != NULL, "1 -> 2 waiting: a change of one is not enough");
	lock_set_free(k);

	/* an idle blocker's claim is read, not extrapolated: the root seen
	 * idle in its transaction 3 s is read again when it would be idle
	 * LOCK_IDLE_LONG_S (10 s), before the 12 s pace of a 60 ms graph would; seen 0.5 s (a
	 * client between statements) or 12 s (the claim already read): the pace */
	double seen[] = {3, 0.5, 12}, want[] = {127, 131.9, 131.9};
	for (int i = 0; i < 3; i++) {
		g = graph(LOCKS_READ, 30);
		g->waiting = 1;
		g->s[lock_session_get(g, 22)].state_s = seen[i];
		str_copy(g->s[lock_session_get(g, 22)].state, sizeof g->s[0].state, "idle in transaction");
		lock_set_analyse(g);
		source_locks_read(&src, g, 60, 120);
		lock_set_free(g);
		double before = want[i] - 0.06, after = want[i] + 0.06;
		char name[96];
		k = source_locks_reuse(&src, 1, before, false);
		snprintf(name, sizeof name, "seen idle %.1f s: kept until %.1f s on", seen[i], want[i] - 120);
		CHECK(k != NULL && near(k->s[lock_session_get(k, 22)].state_s, seen[i] + before - 120), name);
		lock_set_free(k);
		snprintf(name, sizeof name, "seen idle %.1f s: read again at %.1f s on", seen[i], want[i] - 120);
		CHECK(source_locks_reuse(&src, 1, after, false) == NULL && source_locks_due(&src, 1, after), name);
	}
	source_locks_forget(&src);
	CHECK(src.lk_last == NULL && source_locks_reuse(&src, 1, 111, false) == NULL,
	      "after a session was ended from the screen: read again");
	g = graph(LOCKS_READ, 30);
	g->waiting = 4;
	source_locks_read(&src, g, 30, 100);
	lock_set_free(g);

	/* a new connection: nothing from the old one */
	src.conn_gen = 2;
	CHECK(source_locks_reuse(&src, 4, 101, false) == NULL, "a reconnection reads afresh");
	src.conn_gen = 1;

	/* nothing waits: forgotten, so a new pile-up is read at once */
	CHECK(source_locks_reuse(&src, 0, 101, false) == NULL && src.lk_last == NULL, "0 waiting forgets the graph");
	CHECK(source_locks_reuse(&src, 2, 101.5, false) == NULL, "a new wait after that is read at once");

	/* a read that timed out is tried again later, and says when */
	struct lock_set *t = graph(LOCKS_TIMED_OUT, 1000);
	t->waiting = 500;
	source_locks_read(&src, t, 1000, 200);
	lock_set_free(t);
	k = source_locks_reuse(&src, 500, 205, false);
	CHECK(k != NULL && k->status == LOCKS_TIMED_OUT, "a timed-out read is not repeated every refresh");
	if (k) {
		CHECK(strstr(k->note, "query exceeded 1.0s time limit") && strstr(k->note, "next try in 115 s"),
		      "the note keeps the reason and says when the next try is (a read that gave nothing: up to 120 s)");
		lock_set_free(k);
	}

	/* unavailable (privilege missing ...): not kept, the note is current */
	struct lock_set *u = graph(LOCKS_UNAVAILABLE, 40);
	u->status = LOCKS_UNAVAILABLE;
	source_locks_read(&src, u, 40, 300);
	lock_set_free(u);
	CHECK(src.lk_last == NULL, "an unavailable graph is not kept");

	/* no budget: never kept */
	src.budget_ms = 0;
	g = graph(LOCKS_READ, 300);
	source_locks_read(&src, g, 300, 400);
	CHECK(src.lk_last == NULL, "--server-budget 0 keeps nothing");
	lock_set_free(g);

	/* source_close frees what is kept (the leak check of the ASan run) */
	src.budget_ms = 10;
	g = graph(LOCKS_READ, 30);
	source_locks_read(&src, g, 30, 500);
	lock_set_free(g);
	source_close(&src);
	CHECK(src.lk_last == NULL, "source_close frees the kept graph");
}

/* a look at the sessions that takes 20 ms */
static int sub_calls;
static void slow_sub(struct source *src)
{
	(void)src;
	struct timespec ts = {0, 20 * 1000 * 1000};
	nanosleep(&ts, NULL);
	sub_calls++;
}

static void fast_sub(struct source *src)
{
	(void)src;
}

/* a look whose round trip takes 20 ms (a busy client) while the server
 * says it spent 0.3 ms on it */
static void busy_client_sub(struct source *src)
{
	struct timespec ts = {0, 20 * 1000 * 1000};
	nanosleep(&ts, NULL);
	src->sub_server_ms = 0.3;
}

/* a source at 10 Hz, 1 s refresh, whose looks are sub */
static void sub_source(struct source *src, const struct source_ops *ops, double budget_ms)
{
	memset(src, 0, sizeof *src);
	src->ops = ops;
	src->sub_hz = 10;
	src->interval = 1;
	src->budget_ms = budget_ms;
}

/* A graph whose pile-up has not moved (the backend's stamp holds) stands
 * up to PACE_MAX_STILL_S; any wait that begins or ends reads it again at
 * the usual pace. */
static void test_reuse_still(void)
{
	struct source src;
	memset(&src, 0, sizeof src);
	src.budget_ms = 10;
	src.conn_gen = 1;
	src.lk_stamp_now = 7;
	/* 800 ms a read at 5 ms a refresh: 160 s, so 30 s (PACE_MAX_S) or
	 * 120 s (PACE_MAX_STILL_S) */
	struct lock_set *g = graph(LOCKS_READ, 800);
	g->waiting = 500;
	/* a root that runs a statement may go idle without a wait moving */
	source_locks_read(&src, g, 800, 100);
	CHECK(near(src.lk_next, 129.9) && near(src.lk_still_next, 129.9),
	      "an 800 ms graph whose root runs a statement: due at 30 s even while still");
	int b = lock_session_get(g, 22);
	str_copy(g->s[b].state, sizeof g->s[b].state, "idle in transaction");
	source_locks_read(&src, g, 800, 100);
	lock_set_free(g);
	CHECK(near(src.lk_next, 129.9) && near(src.lk_still_next, 219.9) && src.lk_stamp == 7,
	      "an 800 ms graph whose root idles in its transaction: due at 30 s, at 120 s while still");
	struct lock_set *k = source_locks_reuse(&src, 500, 160, false);
	CHECK(k != NULL, "60 s later, nothing began or ended: the graph stands");
	if (k) {
		CHECK(near(k->age_s, 60) && strstr(k->note, "every 120 s while no lock wait begins or ends"),
		      "its note says how old and why it is read less often");
		lock_set_free(k);
	}
	CHECK(source_locks_due(&src, 500, 219.95), "due at 120 s even while still");
	src.lk_stamp_now = 8;
	CHECK(source_locks_reuse(&src, 500, 160, false) == NULL && source_locks_due(&src, 500, 160),
	      "a wait began or ended: past its 30 s, read now");
	k = source_locks_reuse(&src, 500, 110, false);
	CHECK(k != NULL && strstr(k->note, "every 30 s (--server-budget)"),
	      "a moving pile-up within 30 s: kept, the usual note");
	lock_set_free(k);
	src.lk_stamp_now = 0;
	CHECK(source_locks_reuse(&src, 500, 160, false) == NULL, "no stamp (metadata-lock waits): the usual pace");
	/* a graph the budget reads within 30 s anyway: the usual note */
	src.lk_stamp_now = 9;
	g = graph(LOCKS_READ, 30);
	g->waiting = 500;
	source_locks_read(&src, g, 30, 300);
	lock_set_free(g);
	k = source_locks_reuse(&src, 500, 302, false);
	CHECK(k != NULL && near(src.lk_still_next, src.lk_next) && strstr(k->note, "every 6 s (--server-budget)"),
	      "a 30 ms graph while still: every 6 s, the note as ever");
	lock_set_free(k);
	source_locks_forget(&src);
}

static void test_subsample(void)
{
	static struct source_ops ops = {.name = "fake", .subsample = slow_sub};
	struct source src;
	sub_source(&src, &ops, 0);
	double e = source_subsample(&src);
	CHECK(sub_calls == 1 && near(e, 0.1) && near(source_sub_hz(&src), 10), "no budget: --sample-hz as given");
	CHECK(src.sub_cost_ms >= 19, "the subsample is timed");
	src.budget_ms = 100;   /* 50 ms of sampling per refresh: a 20 ms look every 0.4 s or so */
	e = source_subsample(&src);
	CHECK(e >= 0.35 && e <= 0.5 && near(source_sub_hz(&src), 1 / e), "a 20 ms look under a 100 ms budget: every ~0.4 s, sub_hz says so");
	src.budget_ms = 0.01;
	e = source_subsample(&src);
	CHECK(near(e, 1 / PACE_SUB_MIN_HZ), "never fewer than 2 looks per second");
	src.sub_hz = 1;
	e = source_subsample(&src);
	CHECK(near(e, 1), "--sample-hz below the floor is kept");
	src.sub_hz = 10;
	src.budget_ms = 1e6;   /* (a loaded machine stretches the 20 ms look) */
	e = source_subsample(&src);
	CHECK(near(e, 0.1), "a big budget: --sample-hz again");
	/* a cheap look (here ~0 ms) keeps --sample-hz under any budget */
	static struct source_ops fast = {.name = "fast", .subsample = fast_sub};
	struct source f;
	sub_source(&f, &fast, 0.001);
	e = source_subsample(&f);
	CHECK(near(e, 0.1) && f.sub_cost_ms < PACE_SUB_FLOOR_MS, "a look under the floor is never paced");
	/* the server's own time counts, not a round trip a busy client inflates */
	static struct source_ops busy = {.name = "busy", .subsample = busy_client_sub};
	struct source b;
	sub_source(&b, &busy, 10);
	for (int i = 0; i < 5; i++)
		e = source_subsample(&b);
	CHECK(near(e, 0.1) && b.sub_cost_ms < 1, "a slow round trip with a cheap server look keeps --sample-hz");
}

/* One sample taken (source_tick's end of a sample). */
static void first_sample(struct source *src)
{
	src->conn_samples++;
	source_first_reads_next(src);
}

/* The first frame first (stage_first): the first two samples read no
 * costly first read, then the ranks take turns; a costly read (above the
 * budget) pays for its refresh, a cheap one leaves the rest of it to the
 * next rank, a read needing two readings holds its turn for both, a rank
 * with nothing to read gives its turn up after one sample. A lock read
 * asked for meanwhile says it is pending. A background target looks once
 * per refresh. */
static void test_first_reads(void)
{
	struct source src;
	double now;
	memset(&src, 0, sizeof src);
	source_first_reads_begin(&src);
	src.budget_ms = 10;
	CHECK(!source_first_reads_wait(&src, FIRST_LOCKS), "first reads: nothing waits without stage_first (batch)");
	src.stage_first = true;
	src.want_sessions = true; /* the overview's sessions tile */
	CHECK(source_first_reads_wait(&src, FIRST_LOCKS) && source_first_reads_wait(&src, FIRST_WAITS),
	      "first reads: the first sample reads none");
	first_sample(&src);
	CHECK(source_first_reads_wait(&src, FIRST_LOCKS), "first reads: nor the second");
	first_sample(&src);
	CHECK(!source_first_reads_wait(&src, FIRST_LOCKS) && source_first_reads_wait(&src, FIRST_DIGESTS),
	      "first reads: the third sample: the lock graph's turn");
	/* MariaDB: the session list read with the graph, one statement of
	 * 97 ms, accounted for first */
	source_first_read_done(&src, FIRST_SESSIONS, 97, true);
	CHECK(!source_first_reads_wait(&src, FIRST_LOCKS),
	      "first reads: a list read with the graph paid on the graph's behalf: the graph is not held back");
	source_first_reads_begin(&src);
	/* 500 waiting: the graph's first read, 56 ms */
	source_first_read_done(&src, FIRST_LOCKS, 56, true);
	CHECK(source_first_reads_wait(&src, FIRST_DIGESTS) && source_first_reads_wait(&src, FIRST_SESSIONS),
	      "first reads: a costly graph paid for its refresh: the digests wait for the next");
	first_sample(&src);
	CHECK(!source_first_reads_wait(&src, FIRST_DIGESTS) && source_first_reads_wait(&src, FIRST_SESSIONS),
	      "first reads: then the digests (their turn begun with no read is not lost)");
	source_first_read_done(&src, FIRST_DIGESTS, 26, false);
	first_sample(&src);
	CHECK(!source_first_reads_wait(&src, FIRST_DIGESTS) && source_first_reads_wait(&src, FIRST_SESSIONS),
	      "first reads: the digests' second reading (the first rates need two) alone");
	source_first_read_done(&src, FIRST_DIGESTS, 60, true);
	CHECK(source_first_reads_wait(&src, FIRST_SESSIONS),
	      "first reads: not the session list beside it (the 93 ms refresh at 2,500 sessions)");
	first_sample(&src);
	CHECK(!source_first_reads_wait(&src, FIRST_SESSIONS) && !source_first_reads_wait(&src, FIRST_DIGESTS) &&
		      !source_first_reads_wait(&src, FIRST_LOCKS),
	      "first reads: then the list; the ranks done are paced as any read");
	source_first_read_done(&src, FIRST_SESSIONS, 33, true);
	first_sample(&src);
	CHECK(!source_first_reads_wait(&src, FIRST_SUMMARY) && source_first_reads_wait(&src, FIRST_WAITS),
	      "first reads: the summaries' turn");
	first_sample(&src); /* no summary to read (PostgreSQL) */
	CHECK(!source_first_reads_wait(&src, FIRST_WAITS), "first reads: a rank with nothing to read gives its turn up");
	first_sample(&src);
	CHECK(src.first_pending == 0 && !source_first_reads_wait(&src, FIRST_SUMMARY), "first reads: the start is over");
	/* no screen shows the session list (screen 4 at the start): its turn
	 * is not waited for, and comes when a screen shows it */
	source_first_reads_begin(&src);
	src.conn_samples = 2;
	src.want_sessions = false;
	source_first_read_done(&src, FIRST_LOCKS, 1, true);
	source_first_read_done(&src, FIRST_DIGESTS, 1, true);
	CHECK(!source_first_reads_wait(&src, FIRST_SUMMARY), "first reads: the list not shown: the summaries' turn at once");
	source_first_read_done(&src, FIRST_SUMMARY, 1, true);
	source_first_read_done(&src, FIRST_WAITS, 1, true);
	src.want_sessions = true;
	CHECK(!source_first_reads_wait(&src, FIRST_SESSIONS) && src.first_pending == 1u << FIRST_SESSIONS,
	      "first reads: shown later: the list's first read in its turn");
	/* a small server: cheap reads leave their refresh to the next rank */
	source_first_reads_begin(&src);
	src.conn_samples = 0;
	first_sample(&src);
	first_sample(&src);
	source_first_read_done(&src, FIRST_LOCKS, 0.4, true);
	CHECK(!source_first_reads_wait(&src, FIRST_DIGESTS), "first reads: a cheap read: the next rank in the same refresh");
	source_first_read_done(&src, FIRST_DIGESTS, 3, false);
	CHECK(source_first_reads_wait(&src, FIRST_SESSIONS),
	      "first reads: but not past a rank whose start is not over (a first reading of 3 ms, a 10 ms budget)");
	first_sample(&src);
	source_first_read_done(&src, FIRST_DIGESTS, 3, true);
	source_first_read_done(&src, FIRST_SESSIONS, 3, true);
	CHECK(!source_first_reads_wait(&src, FIRST_SUMMARY), "first reads: the digests, the list and the summaries by the fourth sample");
	source_first_read_done(&src, FIRST_SUMMARY, 2.5, false);
	CHECK(!source_first_reads_wait(&src, FIRST_WAITS) && !source_first_reads_wait(&src, FIRST_SUMMARY),
	      "first reads: a first reading of a quarter of the budget or less ends its turn; its second is paced as any read");
	CHECK(src.first_pending == 1u << FIRST_WAITS, "... only the wait summary's start is left");
	/* a read due at every refresh does not hold its turn for ever */
	for (int i = 0; i < 2; i++) {
		source_first_read_done(&src, FIRST_WAITS, 3, false);
		first_sample(&src);
	}
	CHECK(src.first_pending == 1u << FIRST_WAITS, "first reads: a turn of two samples with readings of 3 ms goes on");
	source_first_read_done(&src, FIRST_WAITS, 3, false);
	first_sample(&src);
	CHECK(src.first_pending == 0, "first reads: a turn lasts three samples at most");
	/* without a budget every read pays for its refresh */
	source_first_reads_begin(&src);
	src.budget_ms = 0;
	source_first_read_done(&src, FIRST_LOCKS, 0.4, true);
	CHECK(source_first_reads_wait(&src, FIRST_DIGESTS), "first reads: --server-budget 0: one read a refresh");
	src.budget_ms = 10;
	source_first_reads_begin(&src);
	src.conn_samples = 1;
	struct sample out;
	memset(&out, 0, sizeof out);
	CHECK(source_locks_begin(&src, &out, 500, false, &now) == NULL && out.locks &&
		      out.locks->status == LOCKS_PENDING && out.locks->waiting == 500 && out.locks->note[0],
	      "first reads: 500 waiting before the graph's first read -> pending, with a note");
	lock_set_free(out.locks);
	memset(&out, 0, sizeof out);
	CHECK(source_locks_begin(&src, &out, 0, false, &now) == NULL && out.locks && out.locks->status == LOCKS_IDLE,
	      "first reads: nothing waiting -> idle");
	CHECK(lock_set_counted(out.locks), "first reads: idle is a count (0)");
	lock_set_free(out.locks);
	/* PostgreSQL's gate (a scan of every session) waits with the graph */
	memset(&out, 0, sizeof out);
	CHECK(source_locks_uncounted(&src, &out) && out.locks && out.locks->status == LOCKS_PENDING &&
		      !lock_set_counted(out.locks) && strstr(out.locks->note, "first rates"),
	      "first reads: the second sample's waits not counted -> pending, uncounted, with a note");
	struct strbuf js;
	sb_init(&js);
	lock_set_json(out.locks, &js);
	CHECK(strstr(js.s, "\"locks_waiting\":null") && strstr(js.s, "\"locks_status\":\"pending\""),
	      "first reads: JSON says the count is unknown (null), not 0");
	sb_free(&js);
	lock_set_free(out.locks);
	memset(&out, 0, sizeof out);
	src.conn_samples = 2;
	CHECK(!source_locks_uncounted(&src, &out) && out.locks == NULL, "first reads: the third sample counts them");
	src.conn_samples = 1;
	static struct source_ops ops = {.name = "fast", .subsample = fast_sub};
	sub_source(&src, &ops, 0);
	src.background = true;
	CHECK(near(source_subsample(&src), 1) && near(source_sub_hz(&src), 1),
	      "background: one look per refresh instead of 10");
	src.background = false;
	CHECK(near(source_subsample(&src), 0.1), "on the screen again: --sample-hz");
}

/* The pacer both backends use: a paced read (the second at once, then by
 * its cost), the busy rule, the fixed cadence of a summary, and a lock
 * read's begin / end (idle, read and kept, the kept graph published). */
static void test_pacer(void)
{
	struct source src;
	struct pacer pc = {0}, w = {0};
	memset(&src, 0, sizeof src);
	src.budget_ms = 10;
	CHECK(pace_due(&pc, 100, false), "pacer: the first read is due at once");
	CHECK(pace_done(&pc, &src, 100, 30, 0.5) == 0 && pc.next == 0,
	      "pacer: the second read comes at the next refresh whatever the first cost");
	double every = pace_done(&pc, &src, 101, 30, 0.5);
	CHECK(near(pc.next, 101 + 6 - 0.1) && near(every, 6), "pacer: then a 30 ms read every 6 s, said in the note");
	CHECK(!pace_due(&pc, 106, false) && pace_due(&pc, 106.9, false), "pacer: due when its time comes");
	CHECK(!pace_due(&pc, 107, true) && pace_due(&pc, 107.9, true), "pacer: busy, one just due waits up to 1 s");
	CHECK(pace_done(&pc, &src, 110, 1, 0.5) == 0, "pacer: a cheap read is not said to be paced");
	CHECK(pace_every(&w, 10, PACE_SUMMARY_EVERY_S) && !pace_every(&w, 14, PACE_SUMMARY_EVERY_S) &&
	      pace_every(&w, 14.5, PACE_SUMMARY_EVERY_S) && near(w.next, 19), "pacer: a summary every 4.5 s");

	struct sample out;
	double now;
	memset(&out, 0, sizeof out);
	CHECK(source_locks_begin(&src, &out, 0, false, &now) == NULL && out.locks && out.locks->status == LOCKS_IDLE,
	      "locks begin: nothing waits, an idle set and no read");
	sample_release(&out);
	struct lock_set *ls = source_locks_begin(&src, &out, 3, false, &now);
	CHECK(ls && out.locks == ls && ls->waiting == 3, "locks begin: sessions wait, a set to read into");
	ls->query_ms = 30;
	source_locks_end(&src, ls, true, now);
	CHECK(ls->status == LOCKS_READ && src.lk_last != NULL, "locks end: read, and a costly graph kept");
	sample_release(&out);
	CHECK(source_locks_begin(&src, &out, 3, false, &now) == NULL && out.locks && out.locks->status == LOCKS_READ &&
	      strstr(out.locks->note, "--server-budget"), "locks begin: the kept graph is published instead of a read");
	sample_release(&out);
	source_close(&src);
}

/* One refresh's gate through the picker: the form it uses, at the cost
 * given for each form. */
static int pick_read(struct form_pick *fp, int only, double ms0, double ms1)
{
	int f = form_pick_next(fp, only);
	form_pick_cost(fp, f, f ? ms1 : ms0);
	return f;
}

/* n reads; the index of the first that used form 1 (-1: none), how many did. */
static int pick_reads(struct form_pick *fp, int n, double ms0, double ms1, int *ones)
{
	int first = -1;
	*ones = 0;
	for (int i = 0; i < n; i++)
		if (pick_read(fp, -1, ms0, ms1) == 1) {
			if (first < 0)
				first = i;
			++*ones;
		}
	return first;
}

/* The lock gate's two forms (PostgreSQL: 0 pg_locks, 1 every session's
 * wait): the cheaper by its server time, the other tried for at most
 * about a tenth of what the one in use costs. */
static void test_form_pick(void)
{
	struct form_pick fp;
	int ones, first;
	memset(&fp, 0, sizeof fp);
	/* 2,500 sessions: pg_locks 2.4 ms, the session form 110 */
	first = pick_reads(&fp, 19, 2.4, 110, &ones);
	CHECK(first < 0, "2,500 sessions: the first 19 reads all from pg_locks (the first 10 s are the costliest)");
	CHECK(pick_read(&fp, -1, 2.4, 110) == 1 && fp.use == 0, "the 20th tries the session form: pg_locks kept");
	first = pick_reads(&fp, 1000, 2.4, 110, &ones);
	CHECK(ones >= 1 && ones <= 3 && first >= 450 && first <= 460,
	      tname("then tried again after pg_locks cost %.0fx its 110 ms: read %d, %d tries in 1,000", FORM_PICK_TRY_RATIO,
		    first, ones));
	CHECK(fp.ms[0] > 2.3 && fp.ms[0] < 2.5 && fp.ms[1] == 110, tname("each form's cost kept (%.2f, %.2f)", fp.ms[0], fp.ms[1]));
	/* a pg_dump takes 100,000 locks: pg_locks costs 50 ms */
	CHECK(pick_read(&fp, -1, 50, 110) == 0 && fp.use == 0, "pg_locks at 50 ms once: still below 0.7 x 110");
	CHECK(pick_read(&fp, -1, 500, 110) == 0 && fp.use == 1, "pg_locks at 500 ms: the session form from the next read");
	CHECK(pick_read(&fp, -1, 500, 110) == 1, "the session form used");
	first = pick_reads(&fp, 100, 500, 110, &ones);
	CHECK(ones >= 97 && ones <= 98 && first == 0,
	      tname("pg_locks tried 2-3 times in 100 reads, each after the session form cost 10x its last try: %d", 100 - ones));
	first = pick_reads(&fp, 100, 2.4, 110, &ones);
	CHECK(fp.use == 0, "the dump ended: pg_locks again from its next try");

	/* a dump from the start: pg_locks 50 ms, the session form 0.2 */
	memset(&fp, 0, sizeof fp);
	first = pick_reads(&fp, 5, 50, 0.2, &ones);
	CHECK(first == 2 && ones == 3 && fp.use == 1,
	      tname("pg_locks at %.0f ms or more: the session form tried on the third read and kept", FORM_PICK_COSTLY_MS));
	/* a few sessions: both cheap, nothing tried */
	memset(&fp, 0, sizeof fp);
	first = pick_reads(&fp, 500, 0.3, 0.07, &ones);
	CHECK(first < 0, tname("pg_locks under %.1f ms: the other form never tried", FORM_PICK_WORTH_MS));
	/* even: no switch for a few hundredths */
	memset(&fp, 0, sizeof fp);
	first = pick_reads(&fp, 25, 0.6, 0.55, &ones);
	CHECK(ones == 1 && fp.use == 0, "even within 0.1 ms: the first form kept");

	/* a role that does not see every session's wait: the session form only */
	memset(&fp, 0, sizeof fp);
	fp.ms[0] = 100, fp.ms[1] = 0.1;
	CHECK(form_pick_next(&fp, 1) == 1 && form_pick_next(&fp, 0) == 0, "one form allowed: that form, whatever was measured");
	/* a read whose cost is not known changes nothing */
	memset(&fp, 0, sizeof fp);
	form_pick_cost(&fp, 0, 5);
	form_pick_cost(&fp, 1, -1);
	CHECK(fp.use == 0 && fp.ms[1] == 0 && fp.reads == 2, "an unknown cost: nothing chosen from it");
}

/* A setting changed at 100 (interval 1 s), a summary paced 60 s apart:
 * read at the end of the settling and before the measuring ends. */
static void test_after_change(void)
{
	struct source src;
	struct pacer pc = {.next = 160, .reads = 5, .last = 99.5};
	memset(&src, 0, sizeof src);
	src.interval = 1;
	CHECK(!pace_after_change(&pc, &src, 101), "after a change: no setting changed yet, nothing forced");
	src.changed_mono = 100;
	CHECK(!pace_after_change(&pc, &src, 101) && !pace_after_change(&pc, &src, 102.8),
	      "after a change: not while it settles");
	double a = 100 + FC_SETTLE_INTERVALS, b = 100 + FC_SETTLE_INTERVALS + FC_MEASURE_INTERVALS - 1;
	CHECK(pace_after_change(&pc, &src, a - 0.05), "after a change: due as the settling ends (a tick early too)");
	pc.last = a;
	CHECK(!pace_after_change(&pc, &src, a + 1) && !pace_after_change(&pc, &src, b - 0.5),
	      "after a change: once, then not until the measuring's last interval");
	CHECK(pace_after_change(&pc, &src, b), "after a change: due again before the measuring ends");
	pc.last = b;
	CHECK(!pace_after_change(&pc, &src, b + 3), "after a change: two reads in all");
	pc.last = a;
	CHECK(pace_after_change(&pc, &src, b + 30) && !pace_after_change(&pc, &src, b + FC_MEASURE_MAX_S + 1),
	      "after a change: a second read missed (down): due later, not after FC_MEASURE_MAX_S");
	pc.last = 99.5;
	CHECK(pace_after_change(&pc, &src, b + 1), "after a change: the first read missed: the one due at the end");
	src.interval = 5;
	CHECK(!pace_after_change(&pc, &src, 100 + 3 * 5 - 1) && pace_after_change(&pc, &src, 100 + 3 * 5),
	      "after a change: in intervals of the refresh (5 s)");
}

/* The baseline a costly read is taken against (MariaDB: the LIKE status
 * reads beside the read of every counter): one stall does not lift it
 * enough to make the costly read look cheap. The bench saw it: one 14 ms
 * LIKE read beside 2 ms ones took the baseline to 4.4 ms, the 5.8 ms read
 * of every counter was then "1.4 ms more", under the 2 ms that paces it,
 * and was sent at every refresh for 28 refreshes (no LIKE read came to
 * take the baseline down). */
static void test_pace_baseline(void)
{
	CHECK(near(pace_baseline(0, 3, 0.2), 3), "the first sample is the baseline");
	double b = 2;
	b = pace_baseline(b, 14, 0.2);
	CHECK(near(b, 2.4), "one 14 ms stall beside 2 ms reads: 2.4 ms (it counts as 4)");
	CHECK(5.8 - b >= 2, "... the 5.8 ms read of every counter still costs 2 ms or more beyond it");
	CHECK(near(pace_baseline(2, 1, 0.2), 1.8), "a faster read counts whole");
	b = 2;
	for (int i = 0; i < 10; i++)
		b = pace_baseline(b, 6, 0.2);
	CHECK(b > 5.4 && b <= 6, "a lasting rise to 6 ms comes through: above 5.4 ms after 10 reads");
	/* paced from 2 ms beyond the cheaper read, back to every refresh below 1 */
	CHECK(!pace_costly(false, 1.9, 2) && pace_costly(false, 2, 2), "from least on it is paced");
	CHECK(pace_costly(true, 1.2, 2), "paced, 1.2 ms beyond (read at every refresh, warmer): still paced");
	CHECK(!pace_costly(true, 0.9, 2), "below half of least: back to every refresh");
}

/* The wait summary: its second reading as soon as its cost allows, at the
 * latest PACE_SUMMARY_EVERY_S after the first; the others that far apart
 * at least. */
static void test_summary_next(void)
{
	struct source src = {0};
	src.budget_ms = 10;
	src.interval = 1;
	src.fixed_ms = 3;
	double cheap = source_pace_next_max(&src, 100, 0.3, PACE_SHARE_SUMMARY, PACE_MAX_SUMMARY_S);
	double costly = source_pace_next_max(&src, 100, 30, PACE_SHARE_SUMMARY, PACE_MAX_SUMMARY_S);
	CHECK(cheap < 101 && costly > 100 + PACE_SUMMARY_EVERY_S, "a 0.3 ms summary fits a refresh, a 30 ms one does not");
	CHECK(near(pace_summary_next(cheap, 100, true), cheap), "cheap: the second reading at the next refresh");
	CHECK(near(pace_summary_next(0, 100, true), 0), "... also when the pacer says now (0)");
	CHECK(near(pace_summary_next(costly, 100, true), 100 + PACE_SUMMARY_EVERY_S),
	      "costly: the second reading PACE_SUMMARY_EVERY_S after the first, not at its pace");
	CHECK(near(pace_summary_next(cheap, 100, false), 100 + PACE_SUMMARY_EVERY_S),
	      "after the second: never sooner than PACE_SUMMARY_EVERY_S");
	CHECK(near(pace_summary_next(costly, 100, false), costly), "after the second: its pace when that is longer");
	/* the read: both engines' wait summaries (MariaDB's, pg_wait_sampling's) */
	struct pacer pc = {0};
	double every = pace_summary_read(&pc, &src, 100, 0.3);
	CHECK(pc.reads == 1 && pc.next < 101 && every < 1.5, "read: a cheap first: the second at the next refresh");
	every = pace_summary_read(&pc, &src, 101, 0.3);
	CHECK(pc.reads == 2 && near(pc.next, 101 + PACE_SUMMARY_EVERY_S) && near(every, PACE_SUMMARY_EVERY_S + PACE_SLACK_S),
	      "read: a cheap second: PACE_SUMMARY_EVERY_S to the third");
	every = pace_summary_read(&pc, &src, 106, 30);
	CHECK(pc.next > 106 + PACE_SUMMARY_EVERY_S + 1 && near(every, pc.next - 106 + PACE_SLACK_S),
	      "read: a 30 ms read: its pace, longer");
	struct pacer pc2 = {0};
	pace_summary_read(&pc2, &src, 100, 30);
	CHECK(near(pc2.next, 100 + PACE_SUMMARY_EVERY_S), "read: a costly first: the second PACE_SUMMARY_EVERY_S later");
	/* 5 ms: its pace is slower than PACE_SUMMARY_EVERY_S, but one more
	 * read fits in the 7 ms the budget leaves a refresh (10 less 3) */
	struct pacer pc3 = {0};
	CHECK(source_pace_next_max(&src, 100, 5, PACE_SHARE_SUMMARY, PACE_MAX_SUMMARY_S) > 100 + PACE_SUMMARY_EVERY_S,
	      "a 5 ms summary: paced slower than PACE_SUMMARY_EVERY_S");
	pace_summary_read(&pc3, &src, 100, 5);
	CHECK(pc3.next <= 100, "read: a 5 ms first: the second at the next refresh (it fits what a refresh leaves)");
	pace_summary_read(&pc3, &src, 101, 5);
	CHECK(pc3.next > 101 + PACE_SUMMARY_EVERY_S, "read: a 5 ms second: its pace after it");
	struct pacer pc4 = {0};
	pace_summary_read(&pc4, &src, 100, 7.5);
	CHECK(near(pc4.next, 100 + PACE_SUMMARY_EVERY_S), "read: a 7.5 ms first (over the 7 ms left): 4.5 s later");
	/* the pane's note: only when read less often than PACE_SUMMARY_EVERY_S */
	struct wait_set *ws = wait_set_new(WS_PG_WAIT_SAMPLING);
	pace_waits_note(ws, PACE_SUMMARY_EVERY_S + PACE_SLACK_S, 0.3);
	CHECK(ws->note[0] == '\0', "note: none at PACE_SUMMARY_EVERY_S");
	str_copy(ws->note, sizeof ws->note, "profile_queries off");
	pace_waits_note(ws, every, 30);
	char want[120];
	str_printf(want, sizeof want, "profile_queries off; read every %.0f s (30 ms a read, --server-budget)", every);
	CHECK_STR(ws->note, want, "note: read less often, after what was said");
	ws->note[0] = '\0';
	pace_waits_note(ws, 120, 0.34);
	CHECK_STR(ws->note, "read every 120 s (0.3 ms a read, --server-budget)", "note: a read under 10 ms in tenths, not 0 ms");
	wait_set_free(ws);
}

int main(void)
{
	test_summary_next();
	test_after_change();
	test_pacer();
	test_pace_next();
	test_pace_fixed();
	test_pace_ledger();
	test_pace_baseline();
	test_pace_shown();
	test_subsample();
	test_reuse();
	test_reuse_still();
	test_first_reads();
	test_form_pick();
	return tap_failed ? 1 : 0;
}
