/* test_digests.c - statement digests: the per-interval delta table
 * (model/digests.c) with hand-built digest sets, the MySQL / MariaDB and
 * PostgreSQL digest row mappers and queries fed with recorded rows
 * (tests/fixtures/digests-*.txt), and the "digests" member of the --batch
 * JSON record (checked with Python's json module when python3 is there). */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../model/digests.h"
#include "../../model/model.h"
#include "../../sources/mysql_map.h"
#include "../../sources/pg_map.h"
#include "../../app/batch.h"
#include "../../util/util.h"
#include "tap.h"

/* ---- small helpers --------------------------------------------------------- */

/* Relative closeness for rates (exact up to rounding of the division). */
static bool near(double got, double want)
{
	return isfinite(got) && fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want));
}

static struct digest_set *set_new(bool partial)
{
	struct digest_set *s = xcalloc(1, sizeof *s);
	s->partial = partial;
	str_copy(s->source, sizeof s->source, "test");
	return s;
}

/* A row with calls, total time (ns) and rows: what every engine reports. */
static struct digest_row *row3(struct digest_set *s, const char *key, uint64_t calls, uint64_t total_ns,
			       uint64_t rows)
{
	struct digest_row *r = digest_set_add(s);
	str_copy(r->key, sizeof r->key, key);
	r->c[DG_CALLS] = calls;
	r->c[DG_TOTAL_NS] = total_ns;
	r->c[DG_ROWS] = rows;
	r->have = 1u << DG_CALLS | 1u << DG_TOTAL_NS | 1u << DG_ROWS;
	return r;
}

static const struct digest_entry *find(const struct digest_table *t, const char *key)
{
	size_t i;
	for (i = 0; i < t->n; i++)
		if (t->e[i].last.key[0] && strcmp(t->e[i].last.key, key) == 0)
			return &t->e[i];
	return NULL;
}

static bool all_nan(const struct digest_entry *e)
{
	int k;
	for (k = 0; k < DG__COUNT; k++)
		if (!isnan(e->rate[k]))
			return false;
	return true;
}

static bool none_negative(const struct digest_table *t)
{
	size_t i;
	int k;
	for (i = 0; i < t->n; i++)
		for (k = 0; k < DG__COUNT; k++)
			if (t->e[i].last.key[0] && t->e[i].rate[k] < 0)
				return false;
	return true;
}

/* Total ms/s of the newest history slot. */
static double hist_newest(const struct digest_entry *e)
{
	return e->hist[(e->hist_head + 59) % 60];
}

/* Fold s into t, then free it (the table must keep nothing of it). */
static void feed(struct digest_table *t, struct digest_set *s, double dt, bool fresh, double wall)
{
	digest_table_update(t, s, dt, fresh, wall);
	digest_set_free(s);
}

/* Keys of the top n, joined with spaces. */
static const char *top_keys(const struct digest_table *t, enum dg_sort key, bool cumulative, size_t n,
			    char *buf, size_t len)
{
	const struct digest_entry *out[64];
	size_t got, i, off = 0;
	if (n > 64)
		n = 64;
	got = digest_table_top(t, key, cumulative, out, n);
	buf[0] = '\0';
	for (i = 0; i < got && off + 1 < len; i++)
		off += str_printf(buf + off, len - off, "%s%s", i ? " " : "", out[i]->last.key);
	return buf;
}

static bool in_top(const struct digest_table *t, const char *key, bool cumulative)
{
	const struct digest_entry **out = xcalloc(t->n + 1, sizeof *out);
	size_t got = digest_table_top(t, DGS_TOTAL, cumulative, out, t->n + 1), i;
	bool found = false;
	for (i = 0; i < got; i++)
		if (strcmp(out[i]->last.key, key) == 0)
			found = true;
	free(out);
	return found;
}

#define W0 1795946401.5 /* 2026-11-29 10:00:01.5 UTC */

/* ---- 1. the delta table ---------------------------------------------------- */

static void test_first_appearance(void)
{
	struct digest_table t;
	struct digest_set *s;
	const struct digest_entry *e, *out[4];

	digest_table_init(&t);
	CHECK(t.n == 0 && !t.have_data && digest_table_top(&t, DGS_TOTAL, true, out, 4) == 0,
	      "table: empty after init");
	s = set_new(false);
	row3(s, "a", 10, 1000000000, 10);
	feed(&t, s, NAN, true, W0);
	e = find(&t, "a");
	CHECK(e != NULL && t.n == 1 && t.tick == 1 && t.have_data, "fresh: the row is in the table");
	CHECK(e && !e->known && all_nan(e) && isnan(e->avg_ms), "fresh: first appearance unknown, rates NaN");
	CHECK(e && isnan(hist_newest(e)) && e->hist_head == 1, "fresh: its history slot is NaN");
	CHECK(digest_table_top(&t, DGS_TOTAL, false, out, 4) == 0, "fresh: not in the interval top");
	CHECK(digest_table_top(&t, DGS_TOTAL, true, out, 4) == 1 && out[0] == e,
	      "fresh: in the cumulative top (cumulative values exist)");
	CHECK(t.total_ms_per_s == 0, "fresh: total_ms_per_s 0");
	CHECK_STR(t.source, "test", "table: source taken from the set");

	/* 2 s later, not fresh: new rows were created since the previous sample */
	s = set_new(false);
	row3(s, "a", 30, 5000000000, 50);
	row3(s, "b", 30, 6000000000, 90);                  /* no first_seen: from zero */
	row3(s, "c", 7, 7000000, 7)->first_seen = W0 - 10;  /* dated before the previous sample */
	row3(s, "d", 4, 8000000, 0)->first_seen = W0 + 1;   /* dated after it */
	row3(s, "e", 2, 2000000, 0)->first_seen = W0 - 0.5; /* within the 1 s clock tolerance */
	feed(&t, s, 2.0, false, W0 + 2);
	e = find(&t, "a");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 10) && near(e->rate[DG_TOTAL_NS], 2e9) &&
	      near(e->rate[DG_ROWS], 20), "second sample: steady row a = delta / dt");
	CHECK(e && near(e->avg_ms, 200), "second sample: a avg_ms = 4 s / 20 calls = 200 ms");
	e = find(&t, "b");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 15) && near(e->rate[DG_TOTAL_NS], 3e9) &&
	      near(e->rate[DG_ROWS], 45), "later row without first_seen: counts from zero (cumulative / dt)");
	CHECK(e && near(e->avg_ms, 200), "later row: avg_ms = 6 s / 30 calls");
	CHECK(e && isnan(e->rate[DG_LOCK_NS]) && isnan(e->rate[DG_WAL_BYTES]),
	      "later row: counters it does not report stay NaN");
	e = find(&t, "c");
	CHECK(e && !e->known && all_nan(e) && isnan(e->avg_ms),
	      "new row with first_seen older than the previous sample: unknown");
	CHECK(!in_top(&t, "c", false), "new row dated before the previous sample: not in the interval top");
	e = find(&t, "d");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 2) && near(e->rate[DG_TOTAL_NS], 4e6),
	      "new row with first_seen after the previous sample: counts from zero");
	e = find(&t, "e");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 1), "new row dated 0.5 s before the previous sample: from zero");
	CHECK(near(t.total_ms_per_s, 2000 + 3000 + 4 + 1), "total_ms_per_s = sum of the known rows (c left out)");
	CHECK(t.n == 5 && t.tick == 2, "table: 5 entries after 2 ticks");
	e = find(&t, "a");
	CHECK(e && near(hist_newest(e), 2000) && e->hist_head == 2, "history: a's newest slot 2000 ms/s");

	/* a row new to us while dt is not positive: no rate */
	s = set_new(false);
	row3(s, "a", 30, 5000000000, 50);
	row3(s, "f", 3, 3000000, 0);
	feed(&t, s, 0.0, false, W0 + 2);
	e = find(&t, "f");
	CHECK(e && !e->known && all_nan(e), "new row with dt = 0: unknown");
	e = find(&t, "a");
	CHECK(e && !e->known, "dt = 0: steady row unknown");
	digest_table_free(&t);
	CHECK(t.cap == 0 && t.n == 0 && t.e == NULL, "digest_table_free: table emptied");
}

/* Every counter of a row at step i. */
static void full_row(struct digest_set *s, const char *key, const uint64_t base[DG__COUNT],
		     const uint64_t step[DG__COUNT], int i)
{
	struct digest_row *r = digest_set_add(s);
	int k;
	str_copy(r->key, sizeof r->key, key);
	for (k = 0; k < DG__COUNT; k++) {
		r->c[k] = base[k] + step[k] * (uint64_t)i;
		r->have |= 1u << k;
	}
	r->epoch = 1795860000123ull;
	r->first_seen = 1795860000.123;
}

/* Statement statistics add a call's whole time when it finishes: 5 calls
 * of 40 s finishing in a 1 s interval spent at most 5 s in it. The row
 * shows 5000 ms/s, marked bounded, with its true average; a row within
 * the bound is untouched; the table's total, the ranking and the history
 * use the bound; a sampled set (calls a lower bound) is never bounded. */
static void test_finished_bound(void)
{
	struct digest_table t;
	struct digest_set *s;
	const struct digest_entry *l, *q;
	char buf[128];

	digest_table_init(&t);
	s = set_new(false);
	row3(s, "long", 10, 100000000000ull, 10);
	row3(s, "short", 100, 1000000000ull, 100);
	row3(s, "third", 1, 1000000000ull, 1);
	feed(&t, s, NAN, true, W0);
	s = set_new(false);
	/* 5 x 40038.8 ms = 200194 ms; 100 x 10 ms; third: 1 call of 1.5 s in 2 s */
	row3(s, "long", 15, 100000000000ull + 200194000000ull, 15);
	row3(s, "short", 200, 2000000000ull, 200);
	row3(s, "third", 2, 2500000000ull, 2);
	feed(&t, s, 1.0, false, W0 + 1);
	l = find(&t, "long");
	q = find(&t, "short");
	CHECK(l && l->known && near(l->rate[DG_TOTAL_NS] / 1e6, 5000),
	      tname("finished bound: 5 calls x 40 s in a 1 s interval -> 5000 ms/s (got %.1f)", l ? l->rate[DG_TOTAL_NS] / 1e6 : NAN));
	CHECK(l && l->time_bounded && near(l->finished_ms, 200194),
	      tname("finished bound: the row is marked bounded, raw 200194 ms kept (got %.1f)", l ? l->finished_ms : NAN));
	CHECK(l && near(l->avg_ms, 40038.8), tname("finished bound: avg stays the true 40038.8 ms (got %.3f)", l ? l->avg_ms : NAN));
	CHECK(l && near(l->rate[DG_CALLS], 5), "finished bound: calls/s untouched (5)");
	CHECK(l && near(hist_newest(l), 5000), "finished bound: the history holds the bound");
	CHECK(q && !q->time_bounded && isnan(q->finished_ms) && near(q->rate[DG_TOTAL_NS] / 1e6, 1000) &&
	      near(q->avg_ms, 10), "finished bound: a row within the bound untouched (1000 ms/s, 10 ms avg, no flag)");
	/* third: 1 call of 1.5 s with dt 1 -> bounded to 1000 */
	CHECK(near(t.total_ms_per_s, 5000 + 1000 + 1000), tname("finished bound: the table total sums the bounds (got %.1f)", t.total_ms_per_s));
	CHECK(strcmp(top_keys(&t, DGS_TOTAL, false, 3, buf, sizeof buf), "long short third") == 0,
	      tname("finished bound: ranked by the bound (got %s)", buf));

	/* the next interval with the same dt of 2 s: 1 call of 1.5 s is within */
	s = set_new(false);
	row3(s, "long", 15, 300194000000ull, 15);
	row3(s, "short", 300, 3000000000ull, 300);
	row3(s, "third", 3, 4000000000ull, 3);
	feed(&t, s, 2.0, false, W0 + 3);
	l = find(&t, "long");
	CHECK(l && !l->time_bounded && near(l->rate[DG_TOTAL_NS], 0), "finished bound: no calls next -> 0, flag cleared");
	CHECK(!find(&t, "third")->time_bounded && near(find(&t, "third")->rate[DG_TOTAL_NS] / 1e6, 750),
	      "finished bound: 1 call of 1.5 s in a 2 s interval is within (750 ms/s)");
	CHECK(near(t.total_ms_per_s, 500 + 750), tname("finished bound: total back to the raw sum (got %.1f)", t.total_ms_per_s));
	/* a reset: unknown, no flag */
	s = set_new(false);
	row3(s, "long", 1, 90000000000ull, 1);
	feed(&t, s, 1.0, false, W0 + 4);
	l = find(&t, "long");
	CHECK(l && !l->known && !l->time_bounded, "finished bound: a reset row is unknown, not bounded");
	digest_table_free(&t);

	/* a sampled set: its calls are a lower bound, its time not bounded per call */
	digest_table_init(&t);
	s = set_new(false);
	s->sampled = true;
	row3(s, "smp", 1, 0, 0);
	feed(&t, s, NAN, true, W0);
	s = set_new(false);
	s->sampled = true;
	row3(s, "smp", 2, 3000000000ull, 0);
	feed(&t, s, 1.0, false, W0 + 1);
	l = find(&t, "smp");
	CHECK(l && !l->time_bounded && near(l->rate[DG_TOTAL_NS] / 1e6, 3000), "finished bound: sampled rows left alone");
	digest_table_free(&t);
}

static void test_steady(void)
{
	static const char *const names[DG__COUNT] = {
		"calls", "total time", "rows", "lock time", "rows examined", "errors",
		"shared blks hit", "shared blks read", "WAL bytes", "plan time",
	};
	static const uint64_t base[DG__COUNT] = {
		1000000, 900000000000000ull, 5000000, 70000000000ull, 9000000, 12,
		800000000, 300000, 123456789012ull, 4000000000ull,
	};
	static const uint64_t step[DG__COUNT] = {
		2500, 7500000000ull, 12345, 250000000, 98765, 5, 1000000, 777, 16777216, 125000000,
	};
	struct digest_table t;
	const struct digest_entry *e;
	int i, k;
	const double dt = 5.0;

	digest_table_init(&t);
	for (i = 0; i < 3; i++) {
		struct digest_set *s = set_new(false);
		full_row(s, "steady", base, step, i);
		row3(s, "idle", 40, 80000000, 40);
		feed(&t, s, dt, i == 0, W0 + dt * i);
	}
	e = find(&t, "steady");
	CHECK(e && e->known, "steady: known");
	for (k = 0; k < DG__COUNT; k++)
		CHECK(e && near(e->rate[k], (double)step[k] / dt), tname("steady: %s per second = delta / dt", names[k]));
	CHECK(e && near(e->avg_ms, (double)step[DG_TOTAL_NS] / (double)step[DG_CALLS] / 1e6),
	      "steady: avg_ms = delta total / delta calls = 3 ms");
	CHECK(e && near(e->avg_ms, 3.0), "steady: avg_ms 3 ms");
	CHECK(e && e->last.c[DG_CALLS] == base[DG_CALLS] + 2 * step[DG_CALLS] && e->last.epoch == 1795860000123ull,
	      "steady: last holds the newest cumulative values and epoch");
	e = find(&t, "idle");
	CHECK(e && e->known && e->rate[DG_CALLS] == 0 && e->rate[DG_TOTAL_NS] == 0 && isnan(e->avg_ms),
	      "steady idle row: rates 0, avg_ms NaN (no calls)");
	CHECK(!in_top(&t, "idle", false) && in_top(&t, "idle", true),
	      "idle row: out of the interval top, in the cumulative top");
	CHECK(near(t.total_ms_per_s, 7500000000.0 / dt / 1e6), "steady: total_ms_per_s 1500");
	CHECK(t.interval_s == dt, "table: interval_s = dt");
	digest_table_free(&t);
}

static void test_counter_down(void)
{
	struct digest_table t;
	struct digest_set *s;
	const struct digest_entry *e;

	digest_table_init(&t);
	s = set_new(false);
	row3(s, "r", 1000, 10000000000, 1000);
	row3(s, "q", 100, 1000000000, 100);
	feed(&t, s, NAN, true, W0);
	s = set_new(false);
	row3(s, "r", 1100, 11000000000, 1100);
	row3(s, "q", 200, 2000000000, 200);
	feed(&t, s, 1.0, false, W0 + 1);
	e = find(&t, "r");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 100), "down: steady before the reset");

	/* calls went down (entry reset) while the time grew */
	s = set_new(false);
	row3(s, "r", 50, 12000000000, 50);
	row3(s, "q", 300, 3000000000, 150); /* only rows went down */
	feed(&t, s, 1.0, false, W0 + 2);
	e = find(&t, "r");
	CHECK(e && !e->known && all_nan(e) && isnan(e->avg_ms), "counter went down: unknown, every rate NaN");
	CHECK(e && isnan(hist_newest(e)), "counter went down: history NaN");
	e = find(&t, "q");
	CHECK(e && !e->known && isnan(e->rate[DG_CALLS]) && isnan(e->rate[DG_TOTAL_NS]),
	      "one counter (rows) went down: the whole row unknown");
	CHECK(none_negative(&t), "counter went down: no negative rate anywhere");
	CHECK(!in_top(&t, "r", false) && !in_top(&t, "q", false), "counter went down: not in the interval top");
	CHECK(t.total_ms_per_s == 0, "counter went down: contributes nothing to total_ms_per_s");
	CHECK(e && e->last.c[DG_ROWS] == 150, "counter went down: the new values adopted");

	s = set_new(false);
	row3(s, "r", 80, 12600000000, 80);
	row3(s, "q", 310, 3100000000, 160);
	feed(&t, s, 2.0, false, W0 + 4);
	e = find(&t, "r");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 15) && near(e->rate[DG_TOTAL_NS], 3e8) &&
	      near(e->avg_ms, 20), "after the reset: OK again from the new values (15 calls/s, 20 ms avg)");
	e = find(&t, "q");
	CHECK(e && e->known && near(e->rate[DG_ROWS], 5), "after rows went down: OK again");
	digest_table_free(&t);
}

static void test_epoch(void)
{
	struct digest_table t;
	struct digest_set *s;
	const struct digest_entry *e;

	digest_table_init(&t);
	s = set_new(false);
	row3(s, "x", 100, 1000000000, 100)->epoch = 1000;
	feed(&t, s, NAN, true, W0);
	s = set_new(false);
	row3(s, "x", 200, 2000000000, 200)->epoch = 1000;
	feed(&t, s, 1.0, false, W0 + 1);
	e = find(&t, "x");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 100), "epoch: same epoch, OK");
	/* re-created: every counter already above the old values */
	s = set_new(false);
	row3(s, "x", 500, 5000000000, 500)->epoch = 2000;
	feed(&t, s, 1.0, false, W0 + 2);
	e = find(&t, "x");
	CHECK(e && !e->known && all_nan(e) && isnan(e->avg_ms), "epoch changed, counters grew: unknown (no spike)");
	CHECK(e && e->last.epoch == 2000, "epoch changed: the new epoch adopted");
	s = set_new(false);
	row3(s, "x", 600, 5500000000, 600)->epoch = 2000;
	feed(&t, s, 1.0, false, W0 + 3);
	e = find(&t, "x");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 100) && near(e->avg_ms, 5), "after the epoch change: OK again");
	digest_table_free(&t);
}

static void test_partial(void)
{
	struct digest_table t;
	struct digest_set *s;
	const struct digest_entry *e;

	digest_table_init(&t);
	s = set_new(false); /* the first read of a connection is complete */
	row3(s, "pa", 100, 1000000000, 10);
	row3(s, "pb", 200, 4000000000, 20);
	row3(s, "pc", 300, 9000000000, 30)->c[DG_LOCK_NS] = 5;
	s->rows[2].have |= 1u << DG_LOCK_NS;
	feed(&t, s, NAN, true, W0);

	s = set_new(true); /* only rows that changed */
	row3(s, "pa", 150, 1500000000, 15);
	feed(&t, s, 10.0, false, W0 + 10);
	e = find(&t, "pa");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 5) && near(e->rate[DG_TOTAL_NS], 5e7),
	      "partial: a present row = delta / dt");
	e = find(&t, "pb");
	CHECK(e && e->known && !e->gone && e->rate[DG_CALLS] == 0 && e->rate[DG_TOTAL_NS] == 0 &&
	      e->rate[DG_ROWS] == 0, "partial: an absent row is known with rate 0");
	CHECK(e && isnan(e->rate[DG_LOCK_NS]) && isnan(e->avg_ms),
	      "partial: absent row: unreported counters NaN, avg_ms NaN");
	e = find(&t, "pc");
	CHECK(e && e->known && e->rate[DG_LOCK_NS] == 0, "partial: absent row: its reported lock time rate 0");
	CHECK(e && hist_newest(e) == 0, "partial: absent row: history 0, not NaN");
	CHECK(!in_top(&t, "pb", false) && in_top(&t, "pb", true),
	      "partial: absent rows idle in the interval top, kept in the cumulative top");
	CHECK(near(t.total_ms_per_s, 50), "partial: total_ms_per_s = the present row");

	s = set_new(true);
	row3(s, "pb", 260, 5200000000, 26);
	feed(&t, s, 10.0, false, W0 + 20);
	e = find(&t, "pb");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 6) && near(e->avg_ms, 20),
	      "partial: a row absent last time counts from its old values");
	e = find(&t, "pa");
	CHECK(e && e->known && e->rate[DG_CALLS] == 0 && e->last.c[DG_CALLS] == 150,
	      "partial: now absent row a: rate 0, values kept");

	/* an empty partial set: nothing changed */
	feed(&t, set_new(true), 10.0, false, W0 + 30);
	CHECK(t.total_ms_per_s == 0 && find(&t, "pa")->known && find(&t, "pb")->known,
	      "partial: empty set, every row known and idle");
	digest_table_free(&t);
}

static void test_full_gone(void)
{
	struct digest_table t;
	struct digest_set *s;
	const struct digest_entry *e;

	digest_table_init(&t);
	s = set_new(false);
	row3(s, "fa", 100, 1000000000, 10);
	row3(s, "fb", 500, 9000000000, 50);
	feed(&t, s, NAN, true, W0);
	s = set_new(false);
	row3(s, "fa", 110, 1100000000, 11);
	row3(s, "fb", 600, 10000000000, 60);
	feed(&t, s, 1.0, false, W0 + 1);
	CHECK(find(&t, "fb")->known, "full: b known while reported");

	s = set_new(false); /* b evicted / reset away */
	row3(s, "fa", 120, 1200000000, 12);
	feed(&t, s, 1.0, false, W0 + 2);
	e = find(&t, "fb");
	CHECK(e && e->gone && !e->known && all_nan(e) && isnan(e->avg_ms), "full: absent row gone, rates NaN");
	CHECK(!in_top(&t, "fb", false) && !in_top(&t, "fb", true), "full: gone row ranked in neither mode");
	CHECK(e && isnan(hist_newest(e)), "full: gone row history NaN");
	CHECK(near(t.total_ms_per_s, 100), "full: total_ms_per_s without the gone row");
	CHECK(t.n == 2 && e && e->last.c[DG_CALLS] == 600, "full: gone row kept with its last values");

	s = set_new(false); /* back, counters restarted */
	row3(s, "fa", 130, 1300000000, 13);
	row3(s, "fb", 3, 30000000, 1);
	feed(&t, s, 1.0, false, W0 + 3);
	e = find(&t, "fb");
	CHECK(e && !e->gone && !e->known && all_nan(e), "full: reappearing with restarted counters: unknown, not a spike");
	CHECK(none_negative(&t), "full: no negative rate on reappearance");
	s = set_new(false);
	row3(s, "fa", 140, 1400000000, 14);
	row3(s, "fb", 13, 230000000, 4);
	feed(&t, s, 1.0, false, W0 + 4);
	e = find(&t, "fb");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 10) && near(e->avg_ms, 20), "full: the interval after: OK");

	s = set_new(false); /* gone again, then back above its old values */
	row3(s, "fa", 150, 1500000000, 15);
	feed(&t, s, 1.0, false, W0 + 5);
	s = set_new(false);
	row3(s, "fa", 160, 1600000000, 16);
	row3(s, "fb", 900, 90000000000, 90);
	feed(&t, s, 1.0, false, W0 + 6);
	e = find(&t, "fb");
	CHECK(e && !e->known && all_nan(e), "full: reappearing above the old values: still unknown");
	digest_table_free(&t);
}

static void test_fresh_reconnect(void)
{
	struct digest_table t;
	struct digest_set *s;
	const struct digest_entry *e;
	int i;

	digest_table_init(&t);
	for (i = 0; i < 2; i++) {
		s = set_new(false);
		row3(s, "ra", 100 + 10 * (uint64_t)i, 1000000000 + 100000000 * (uint64_t)i, 10);
		row3(s, "rb", 100 + 20 * (uint64_t)i, 1000000000 + 200000000 * (uint64_t)i, 10);
		feed(&t, s, 1.0, i == 0, W0 + i);
	}
	CHECK(find(&t, "ra")->known && find(&t, "rb")->known, "reconnect: both known before");
	s = set_new(false);
	row3(s, "ra", 200, 2000000000, 20);
	feed(&t, s, 5.0, true, W0 + 10);
	e = find(&t, "ra");
	CHECK(e && !e->known && all_nan(e), "reconnect (fresh): a present row unknown");
	e = find(&t, "rb");
	CHECK(e && !e->known && e->gone, "reconnect (fresh): an absent row gone");
	CHECK(t.total_ms_per_s == 0 && !in_top(&t, "ra", false), "reconnect: nothing in the interval top");
	s = set_new(false);
	row3(s, "ra", 210, 2100000000, 21);
	feed(&t, s, 1.0, false, W0 + 11);
	e = find(&t, "ra");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 10), "reconnect: the next interval OK");

	/* a fresh partial set: absent rows are not known either */
	s = set_new(false);
	row3(s, "pa", 1, 1000000, 1);
	row3(s, "pb", 1, 1000000, 1);
	feed(&t, s, 1.0, false, W0 + 12);
	s = set_new(true);
	row3(s, "pa", 2, 2000000, 2);
	feed(&t, s, 1.0, true, W0 + 13);
	CHECK(!find(&t, "pa")->known && !find(&t, "pb")->known, "fresh partial set: every row unknown");
	digest_table_free(&t);
}

static void test_null_set(void)
{
	struct digest_table t;
	struct digest_set *s;
	const struct digest_entry *e;

	digest_table_init(&t);
	s = set_new(false);
	row3(s, "na", 100, 1000000000, 10);
	row3(s, "nb", 100, 1000000000, 10);
	s->have_lost = true;
	s->lost = 10;
	feed(&t, s, NAN, true, W0);
	s = set_new(false);
	row3(s, "na", 200, 3000000000, 20);
	row3(s, "nb", 150, 1500000000, 15);
	s->have_lost = true;
	s->lost = 14;
	feed(&t, s, 1.0, false, W0 + 1);
	CHECK(t.lost_delta == 4 && near(t.total_ms_per_s, 2500), "null set: known before, lost 4");

	digest_table_update(&t, NULL, 1.0, false, W0 + 2); /* server down */
	e = find(&t, "na");
	CHECK(e && !e->known && !find(&t, "nb")->known, "null set: every entry unknown");
	CHECK(e && isnan(hist_newest(e)) && isnan(hist_newest(find(&t, "nb"))) && e->hist_head == 3,
	      "null set: history gets NaN");
	CHECK(t.total_ms_per_s == 0 && t.lost_delta == 0 && t.tick == 3, "null set: total 0, lost_delta 0, tick counted");
	CHECK(t.have_data && t.prev_wall == 0, "null set: have_data stays, no previous wall time");
	CHECK(!in_top(&t, "na", false) && in_top(&t, "na", true), "null set: interval top empty, cumulative kept");
	CHECK(e && !e->gone && e->last.c[DG_CALLS] == 200, "null set: entries keep their last values, not gone");
	CHECK(e && all_nan(e), "null set: rate[] NaN (unknown this interval)");
	CHECK(e && isnan(e->avg_ms), "null set: avg_ms NaN (no calls this interval)");

	/* back on the same connection, 3 s after the last read */
	s = set_new(false);
	row3(s, "na", 500, 6000000000, 50);
	row3(s, "nb", 180, 1800000000, 18);
	s->have_lost = true;
	s->lost = 20;
	feed(&t, s, 3.0, false, W0 + 4);
	e = find(&t, "na");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 100) && near(e->rate[DG_TOTAL_NS], 1e9),
	      "after the null set: delta over the whole gap");
	CHECK(t.lost_delta == 6, "after the null set: lost delta since the last value");
	digest_table_free(&t);
}

static void test_lost(void)
{
	struct digest_table t;
	struct digest_set *s;
	static const struct {
		bool have;
		uint64_t lost;
		bool fresh;
		uint64_t want;
		const char *what;
	} steps[] = {
		{true, 100, true, 0, "lost: first value, no delta"},
		{true, 100, false, 0, "lost: unchanged, delta 0"},
		{true, 125, false, 25, "lost: +25 this interval"},
		{true, 5, false, 0, "lost: counter reset (went down), delta 0"},
		{true, 8, false, 3, "lost: +3 after the reset"},
		{false, 0, false, 0, "lost: a set without the counter, delta 0"},
		{true, 10, false, 2, "lost: counted from the last value seen"},
		{true, 50, true, 0, "lost: fresh connection, no delta"},
		{true, 51, false, 1, "lost: +1 after reconnecting"},
	};
	size_t i;

	digest_table_init(&t);
	for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		s = set_new(false);
		s->have_lost = steps[i].have;
		s->lost = steps[i].lost;
		feed(&t, s, 1.0, steps[i].fresh, W0 + (double)i);
		CHECK(t.lost_delta == steps[i].want, steps[i].what);
	}
	CHECK(t.have_lost && t.lost_prev == 51, "lost: have_lost and the last cumulative value");
	digest_table_free(&t);
}

/* The five rows of the ranking tests: set 1 (fresh) and set 2 (dt 1 s). */
static void top_sets(struct digest_table *t, bool reverse)
{
	static const struct {
		const char *key;
		uint64_t calls, total, rows;      /* cumulative after set 2 */
		uint64_t dcalls, dtotal, drows;   /* delta in set 2 */
	} q[] = {
		{"q1", 1100, 9000000000ull, 900, 100, 1000000000, 5},
		{"q2", 10010, 2500000000ull, 100000, 10, 2000000000, 1000},
		{"q3", 2000, 10000000000ull, 2000, 1000, 500000000, 50},
		{"q4", 50000, 100000000000ull, 30, 0, 0, 0},
		{"q5", 100, 1000000000ull, 5, 100, 1000000000, 5}, /* new in set 2 */
	};
	struct digest_set *s1 = set_new(false), *s2 = set_new(false);
	int i, j;
	for (j = 0; j < 5; j++) {
		i = reverse ? 4 - j : j;
		if (strcmp(q[i].key, "q5") != 0)
			row3(s1, q[i].key, q[i].calls - q[i].dcalls, q[i].total - q[i].dtotal, q[i].rows - q[i].drows);
		row3(s2, q[i].key, q[i].calls, q[i].total, q[i].rows);
	}
	feed(t, s1, NAN, true, W0);
	feed(t, s2, 1.0, false, W0 + 1);
}

static void test_top(void)
{
	struct digest_table t, r;
	const struct digest_entry *out[8];
	char buf[256], buf2[256];
	enum dg_sort k;
	int cum;

	CHECK_STR(dg_sort_names[DGS_TOTAL], "total time", "dg_sort_names: total time");
	CHECK_STR(dg_sort_names[DGS_CALLS], "calls", "dg_sort_names: calls");
	CHECK_STR(dg_sort_names[DGS_AVG], "avg latency", "dg_sort_names: avg latency");
	CHECK_STR(dg_sort_names[DGS_ROWS], "rows", "dg_sort_names: rows");

	digest_table_init(&t);
	top_sets(&t, false);
	CHECK(find(&t, "q5")->known && near(find(&t, "q5")->rate[DG_CALLS], 100), "top: q5 new, counted from zero");
	CHECK_STR(top_keys(&t, DGS_TOTAL, false, 8, buf, sizeof buf), "q2 q1 q5 q3",
		  "top interval by total time (tie q1/q5 by key, idle q4 left out)");
	CHECK_STR(top_keys(&t, DGS_CALLS, false, 8, buf, sizeof buf), "q3 q1 q5 q2", "top interval by calls");
	CHECK_STR(top_keys(&t, DGS_AVG, false, 8, buf, sizeof buf), "q2 q1 q5 q3",
		  "top interval by avg latency (q4 without calls left out)");
	CHECK_STR(top_keys(&t, DGS_ROWS, false, 8, buf, sizeof buf), "q2 q3 q1 q5", "top interval by rows");
	CHECK_STR(top_keys(&t, DGS_TOTAL, true, 8, buf, sizeof buf), "q4 q3 q1 q2 q5", "top cumulative by total time");
	CHECK_STR(top_keys(&t, DGS_CALLS, true, 8, buf, sizeof buf), "q4 q2 q3 q1 q5", "top cumulative by calls");
	CHECK_STR(top_keys(&t, DGS_AVG, true, 8, buf, sizeof buf), "q5 q1 q3 q4 q2", "top cumulative by avg latency");
	CHECK_STR(top_keys(&t, DGS_ROWS, true, 8, buf, sizeof buf), "q2 q3 q1 q4 q5", "top cumulative by rows");
	CHECK_STR(top_keys(&t, DGS_TOTAL, false, 2, buf, sizeof buf), "q2 q1", "top: n = 2 keeps the best two");
	CHECK_STR(top_keys(&t, DGS_TOTAL, true, 1, buf, sizeof buf), "q4", "top: n = 1 cumulative");
	CHECK(digest_table_top(&t, DGS_TOTAL, false, out, 0) == 0, "top: n = 0 writes nothing");
	CHECK(digest_table_top(&t, DGS_TOTAL, false, out, 8) == 4, "top: returns the count written");

	/* the same rows inserted in the other order rank the same */
	digest_table_init(&r);
	top_sets(&r, true);
	for (cum = 0; cum < 2; cum++)
		for (k = DGS_TOTAL; k < DGS__COUNT; k++) {
			top_keys(&t, k, cum, 8, buf, sizeof buf);
			top_keys(&r, k, cum, 8, buf2, sizeof buf2);
			CHECK(strcmp(buf, buf2) == 0,
			      tname("top: ties stable, independent of insertion order (%s, %s)", dg_sort_names[k],
				 cum ? "cumulative" : "interval"));
		}
	digest_table_free(&r);
	digest_table_free(&t);
}

static void test_text(void)
{
	struct digest_table t;
	struct digest_set *s;
	struct digest_row *row;
	const struct digest_entry *e;
	char *mine;

	digest_table_init(&t);
	s = set_new(true);
	row = row3(s, "t1", 1, 1000000, 1);
	row->text = xstrdup("SELECT 1");
	row3(s, "t2", 1, 1000000, 1)->text = xstrdup("SELECT 2");
	mine = row->text;
	digest_table_update(&t, s, NAN, true, W0);
	e = find(&t, "t1");
	CHECK(e && e->last.text && e->last.text != mine, "text: the table keeps its own copy");
	digest_set_free(s);
	CHECK_STR(e ? e->last.text : NULL, "SELECT 1", "text: copy survives freeing the set");

	s = set_new(true);
	row3(s, "t1", 2, 2000000, 2); /* text not fetched again */
	feed(&t, s, 1.0, false, W0 + 1);
	CHECK_STR(find(&t, "t1")->last.text, "SELECT 1", "text: kept when a later set has text NULL");
	CHECK_STR(find(&t, "t2")->last.text, "SELECT 2", "text: kept for a row absent from a partial set");

	s = set_new(false);
	row3(s, "t1", 3, 3000000, 3)->text = xstrdup("SELECT 1 /* new */");
	feed(&t, s, 1.0, false, W0 + 2);
	CHECK_STR(find(&t, "t1")->last.text, "SELECT 1 /* new */", "text: replaced when a set brings a new one");
	CHECK_STR(find(&t, "t2")->last.text, "SELECT 2", "text: kept for a gone row");
	s = set_new(false);
	row3(s, "", 5, 5, 5);
	feed(&t, s, 1.0, false, W0 + 3);
	CHECK(t.n == 2, "a row with an empty key is ignored");
	digest_table_free(&t);
}

static void test_growth(void)
{
	struct digest_table t;
	struct digest_set *s;
	const struct digest_entry *out[10];
	char key[32], buf[512];
	unsigned char *seen;
	size_t i, nfound = 0, bad = 0, cap;
	int k;
	bool all = true;

	/* past 256 */
	digest_table_init(&t);
	s = set_new(false);
	for (k = 0; k < 300; k++) {
		str_printf(key, sizeof key, "g:%03d", k);
		row3(s, key, (uint64_t)k, 0, 0);
	}
	feed(&t, s, NAN, true, W0);
	for (k = 0; k < 300; k++) {
		const struct digest_entry *e;
		str_printf(key, sizeof key, "g:%03d", k);
		e = find(&t, key);
		if (!e || e->last.c[DG_CALLS] != (uint64_t)k)
			all = false;
	}
	CHECK(t.n == 300 && t.slots.cap >= 600 && (t.slots.cap & (t.slots.cap - 1)) == 0, "growth: 300 keys, table at most half full");
	CHECK(all, "growth: all 300 keys retrievable with their values");
	digest_table_free(&t);

	/* 10,000 distinct keys */
	digest_table_init(&t);
	s = set_new(false);
	for (k = 0; k < 10000; k++) {
		str_printf(key, sizeof key, "grow:%05d", k);
		row3(s, key, 1000, 1000000000, 0);
	}
	feed(&t, s, NAN, true, W0);
	cap = t.slots.cap;
	s = set_new(false);
	for (k = 0; k < 10000; k++) {
		str_printf(key, sizeof key, "grow:%05d", k);
		row3(s, key, 1000 + (uint64_t)k + 1, 1000000000 + ((uint64_t)k + 1) * 1000000, 0);
	}
	feed(&t, s, 1.0, false, W0 + 1);
	CHECK(t.n == 10000 && t.slots.cap == cap && t.slots.cap >= 20000, "growth: 10000 keys, no growth on the second set");
	seen = xcalloc(10000, 1);
	for (i = 0; i < t.n; i++) {
		const struct digest_entry *e = &t.e[i];
		unsigned v;
		if (!e->last.key[0])
			continue;
		nfound++;
		if (sscanf(e->last.key, "grow:%5u", &v) != 1 || v >= 10000 || seen[v] ||
		    e->last.c[DG_CALLS] != 1000 + (uint64_t)v + 1 || !e->known || !near(e->rate[DG_CALLS], v + 1.0) ||
		    !near(e->rate[DG_TOTAL_NS], (v + 1.0) * 1e6)) {
			bad++;
			continue;
		}
		seen[v] = 1;
	}
	CHECK(nfound == 10000 && bad == 0, "growth: every one of 10000 keys present once with its own counters");
	free(seen);
	CHECK(find(&t, "grow:00000") && find(&t, "grow:09999") && !find(&t, "grow:10000"),
	      "growth: first and last keys found, an unknown key not");
	CHECK_STR(top_keys(&t, DGS_CALLS, false, 10, buf, sizeof buf),
		  "grow:09999 grow:09998 grow:09997 grow:09996 grow:09995 grow:09994 grow:09993 grow:09992 "
		  "grow:09991 grow:09990", "growth: top 10 by calls of 10000");
	{
		const struct digest_entry **top = xcalloc(100, sizeof *top);
		size_t n = digest_table_top(&t, DGS_TOTAL, false, top, 100);
		bool sorted = n == 100;
		for (i = 0; sorted && i < n; i++)
			if (top[i]->last.c[DG_CALLS] != 1000 + 10000 - i)
				sorted = false;
		CHECK(sorted, "growth: top 100 by total time of 10000, in order");
		free(top);
	}
	CHECK(near(t.total_ms_per_s, 10000.0 * 10001.0 / 2.0), "growth: total_ms_per_s over 10000 entries");
	CHECK(digest_table_top(&t, DGS_TOTAL, true, out, 10) == 10 && out[0]->last.c[DG_CALLS] == 11000,
	      "growth: cumulative top 10 of 10000");
	digest_table_free(&t);
}

/* Statements that never repeat (a replay whose every sample has new
 * keys): the table stays within DG_MAX_ENTRIES, the newest are kept, and
 * an evicted digest that comes back is unknown for an interval, never
 * counted from zero. */
static void test_evict(void)
{
	struct digest_table t;
	char key[32];
	size_t most = 0;
	digest_table_init(&t);
	for (int i = 0; i < 40; i++) {
		struct digest_set *s = set_new(true);
		if (i == 39)
			row3(s, "e:0:0", 5000, 5000000, 5);   /* the first key of all, back with far more calls */
		for (int k = 0; k < 1000; k++) {
			str_printf(key, sizeof key, "e:%d:%d", i, k);
			row3(s, key, 1 + (uint64_t)k, 1000, 1);
		}
		feed(&t, s, i ? 1.0 : NAN, i == 0, W0 + i);
		if (t.n > most)
			most = t.n;
	}
	CHECK(most <= DG_MAX_ENTRIES && t.evicted > 0,
	      tname("evict: 40,000 keys that never repeat: at most %zu entries (limit %d), %llu evicted", most,
		    DG_MAX_ENTRIES, (unsigned long long)t.evicted));
	CHECK(find(&t, "e:39:999") && find(&t, "e:38:0") && !find(&t, "e:1:0"), "evict: the newest kept, the oldest gone");
	const struct digest_entry *back = find(&t, "e:0:0");
	CHECK(back && !back->known && isnan(back->rate[DG_CALLS]),
	      "evict: an evicted digest back again is unknown, not 5000 calls in one second");
	CHECK(none_negative(&t), "evict: no negative rate");
	digest_table_free(&t);
}

static void test_history(void)
{
	struct digest_table t;
	struct digest_set *s;
	const struct digest_entry *e;
	uint64_t cum = 0, late = 0;
	int i, nan_slots = 0;
	double prev = W0;

	digest_table_init(&t);
	for (i = 0; i <= 70; i++) {
		/* interval i adds i ms; intervals 30 and 31: server down */
		cum += (uint64_t)i * 1000000;
		if (i == 30 || i == 31) {
			digest_table_update(&t, NULL, 1.0, false, W0 + i);
			continue;
		}
		s = set_new(false);
		row3(s, "h", 1000 + (uint64_t)i, cum, 0);
		if (i >= 65) {
			late += 1000000;
			row3(s, "late", (uint64_t)i, late, 0);
		}
		feed(&t, s, W0 + i - prev, i == 0, W0 + i);
		prev = W0 + i;
	}
	e = find(&t, "h");
	CHECK(e && e->hist_head == 71, "history: one slot per interval (71)");
	CHECK(e && e->hist[70 % 60] == 70.0f && hist_newest(e) == 70.0f, "history: newest slot 70 ms/s");
	CHECK(e && e->hist[11] == 11.0f, "history: oldest of the 60 kept slots is interval 11");
	CHECK(e && e->hist[29] == 29.0f, "history: interval 29 before the gap");
	CHECK(e && isnan(e->hist[30]) && isnan(e->hist[31]), "history: NaN gap while the server was down");
	CHECK(e && e->hist[32] == 31.0f, "history: after the gap, 93 ms over 3 s = 31 ms/s");
	for (i = 0; e && i < 60; i++)
		if (isnan(e->hist[i]))
			nan_slots++;
	CHECK(nan_slots == 2, "history: exactly the two down intervals are NaN in 60 slots");
	e = find(&t, "late");
	CHECK(e && e->hist_head == 6 && e->hist[0] == 1.0f && e->hist[5] == 1.0f,
	      "history: a row born at interval 65 has 6 slots of 1 ms/s");
	nan_slots = 0;
	for (i = 6; e && i < 60; i++)
		if (isnan(e->hist[i]))
			nan_slots++;
	CHECK(nan_slots == 54, "history: slots before a row was born are NaN");
	digest_table_free(&t);
}

static void test_set_memory(void)
{
	struct digest_set *s = set_new(true), *d;
	struct digest_row *r;
	int i;
	bool intact = true;

	r = digest_set_add(s);
	CHECK(r->key[0] == '\0' && r->have == 0 && r->c[DG_CALLS] == 0 && isnan(r->p95_ms) && r->text == NULL &&
	      r->epoch == 0, "digest_set_add: a zeroed row, p95 NaN");
	for (i = 0; i < 200; i++) {
		char key[16];
		str_printf(key, sizeof key, "m%d", i);
		r = i == 0 ? &s->rows[0] : digest_set_add(s);
		str_copy(r->key, sizeof r->key, key);
		r->c[DG_CALLS] = (uint64_t)i;
		if (i % 3 == 0)
			r->text = xstrdup(key);
	}
	for (i = 0; i < 200; i++) {
		char key[16];
		str_printf(key, sizeof key, "m%d", i);
		if (strcmp(s->rows[i].key, key) != 0 || s->rows[i].c[DG_CALLS] != (uint64_t)i)
			intact = false;
	}
	CHECK(s->n == 200 && s->cap >= 200 && intact, "digest_set_add: 200 rows, earlier rows intact after growing");
	s->have_lost = true;
	s->lost = 77;
	s->sampled = true;
	s->sample_hz = 4.5;
	str_copy(s->source, sizeof s->source, "performance_schema");

	d = digest_set_dup(s);
	CHECK(d && d != s && d->rows != s->rows && d->n == 200, "digest_set_dup: new set, new rows");
	CHECK(d && d->partial && d->have_lost && d->lost == 77 && d->sampled && d->sample_hz == 4.5 &&
	      strcmp(d->source, "performance_schema") == 0, "digest_set_dup: set fields copied");
	CHECK(d && d->rows[3].text && d->rows[3].text != s->rows[3].text && strcmp(d->rows[3].text, "m3") == 0 &&
	      d->rows[4].text == NULL, "digest_set_dup: texts duplicated, NULL stays NULL");
	s->rows[3].text[0] = 'X';
	s->rows[5].c[DG_CALLS] = 999;
	CHECK(d && d->rows[3].text[0] == 'm' && d->rows[5].c[DG_CALLS] == 5, "digest_set_dup: deep (changes do not leak)");
	digest_set_free(s);
	CHECK(d && strcmp(d->rows[198].key, "m198") == 0 && strcmp(d->rows[198].text, "m198") == 0,
	      "digest_set_dup: copy usable after the original is freed");
	r = digest_set_add(d);
	str_copy(r->key, sizeof r->key, "extra");
	CHECK(d->n == 201 && strcmp(d->rows[200].key, "extra") == 0 && strcmp(d->rows[0].key, "m0") == 0,
	      "digest_set_dup: the copy can grow");
	digest_set_free(d);

	s = set_new(false);
	d = digest_set_dup(s);
	CHECK(d && d->n == 0, "digest_set_dup: empty set");
	r = digest_set_add(d);
	CHECK(d->n == 1 && d->cap >= 1 && r == &d->rows[0], "digest_set_dup: an empty copy can grow");
	digest_set_free(d);
	digest_set_free(s);
	CHECK(digest_set_dup(NULL) == NULL, "digest_set_dup: NULL gives NULL");
	digest_set_free(NULL);
}

/* ---- fixtures (loader: fixture.h) ---------------------------------------- */

#include "fixture.h"

/* "FILE: what" */
static const char *fnm(const struct fx *f, const char *what)
{
	return tname("%s: %s", f->file, what);
}

static const struct digest_row *set_row(const struct digest_set *s, const char *key)
{
	size_t i;
	for (i = 0; s && i < s->n; i++)
		if (strcmp(s->rows[i].key, key) == 0)
			return &s->rows[i];
	return NULL;
}

static bool has_bits(const struct digest_row *r, uint32_t want, uint32_t not_want)
{
	return r && (r->have & want) == want && (r->have & not_want) == 0;
}

#define BIT(k) (1u << (k))

/* ---- MySQL / MariaDB -------------------------------------------------------- */

#define DG_A "cee24315f19410b52f1f8561b62715da6407af53a960d1c52318c6db609dc016"
#define DG_B "79663c1d3b43ceaf9ee728e501c64b57ae2e4d6cb36ff5c65eddcda1de27342f"
#define DG_C "9b0e93ed321ac7725f0d1f58d5414d35849dbe403acebc8139b3582691fcfad2"
#define DG_D "0de4a369c8c0b0376bae8f635efa30633be0391a8aa6d617c73dae66e6af92f6"
#define DG_F "469e163775da416deea402b609d8a83071c6ae17a9c20b81e1b22e9c41dd8d25"

/* The digest set of sample n as the MySQL source builds it: rows through
 * mysql_map_digest, texts for keys not seen before (from @texts), the
 * digest_lost status; *newest gets the newest LAST_SEEN as printed. */
static struct digest_set *my_set(const struct fx *f, int n, bool partial, struct strset *texts, char *newest,
				 size_t newest_len)
{
	const struct fx_sec *s = fx_secn(f, "digests", n), *t = fx_sec(f, "texts"), *l = fx_secn(f, "lost", n);
	struct digest_set *set = set_new(partial);
	int i, j;
	size_t k;

	str_copy(set->source, sizeof set->source, "performance_schema");
	for (i = 0; s && i < s->nrows; i++) {
		const struct fx_row *r = &s->rows[i];
		const char *cells[MYD__COUNT] = {0};
		for (j = 0; j < MYD__COUNT && j < r->n; j++)
			cells[j] = r->cell[j];
		mysql_map_digest(set, cells, r->n);
		if (newest && cells[MYD_LAST_RAW] && strcmp(cells[MYD_LAST_RAW], newest) > 0)
			str_copy(newest, newest_len, cells[MYD_LAST_RAW]);
	}
	for (k = 0; k < set->n; k++) {
		struct digest_row *r = &set->rows[k];
		if (r->text || strset_has(texts, r->key))
			continue;
		for (i = 0; t && i < t->nrows; i++) {
			char key[96];
			str_printf(key, sizeof key, "%s/%s", t->rows[i].cell[0] ? t->rows[i].cell[0] : "",
				   t->rows[i].cell[1] ? t->rows[i].cell[1] : "(null)");
			text_sanitize(key);
			if (strcmp(key, r->key) == 0 && t->rows[i].n > 2) {
				r->text = xstrdup(t->rows[i].cell[2] ? t->rows[i].cell[2] : "");
				strset_add(texts, key);
			}
		}
	}
	if (l && l->nrows && l->rows[0].n > 1)
		set->have_lost = parse_u64(l->rows[0].cell[1], &set->lost);
	return set;
}

static void my_caps(struct caps *c, const char *version, const char *comment, bool p95)
{
	memset(c, 0, sizeof *c);
	mysql_caps_version(c, version, comment, "1", "1");
	mysql_caps_privilege(c, "PROCESS");
	mysql_caps_finish(c, true, NULL);
	c->ps_digests = true;
	c->ps_digest_p95 = p95;
}

static void test_mysql_sql(void)
{
	struct caps c;
	char q[1024];
	static const char *const cols =
		"SELECT SCHEMA_NAME, DIGEST, COUNT_STAR, SUM_TIMER_WAIT, SUM_LOCK_TIME, SUM_ERRORS, "
		"SUM_ROWS_SENT + SUM_ROWS_AFFECTED, SUM_ROWS_EXAMINED, UNIX_TIMESTAMP(FIRST_SEEN), "
		"UNIX_TIMESTAMP(LAST_SEEN), LAST_SEEN";
	const char *end;

	my_caps(&c, "8.0.36", "MySQL Community Server - GPL", true);
	mysql_digest_sql(&c, "", q, sizeof q);
	CHECK(strncmp(q, cols, strlen(cols)) == 0, "mysql_digest_sql: columns in MYD_* order");
	CHECK(strstr(q, "FROM performance_schema.events_statements_summary_by_digest") != NULL,
	      "mysql_digest_sql: reads events_statements_summary_by_digest");
	CHECK(!strstr(q, "WHERE"), "mysql_digest_sql: since \"\" -> no WHERE");
	CHECK(strstr(q, "LAST_SEEN, QUANTILE_95 FROM") != NULL, "mysql_digest_sql: QUANTILE_95 last with ps_digest_p95");
	mysql_digest_sql(&c, NULL, q, sizeof q);
	CHECK(!strstr(q, "WHERE"), "mysql_digest_sql: since NULL -> no WHERE");

	mysql_digest_sql(&c, "2026-11-29 10:00:01.123456", q, sizeof q);
	end = " WHERE LAST_SEEN >= '2026-11-29 10:00:01.123456'";
	CHECK(strlen(q) > strlen(end) && strcmp(q + strlen(q) - strlen(end), end) == 0,
	      "mysql_digest_sql: server timestamp -> WHERE LAST_SEEN >= '...'");
	mysql_digest_sql(&c, "2026-11-29 10:00:01", q, sizeof q);
	CHECK(strstr(q, " WHERE LAST_SEEN >= '2026-11-29 10:00:01'") != NULL,
	      "mysql_digest_sql: whole-second timestamp (MariaDB) accepted");

	mysql_digest_sql(&c, "x' OR 1=1 --", q, sizeof q);
	CHECK(!strstr(q, "WHERE") && !strstr(q, "OR 1=1") && !strchr(q, '\''),
	      "mysql_digest_sql: injection attempt -> no WHERE at all");
	mysql_digest_sql(&c, "2026-11-29 10:00:01'; DROP TABLE t; --", q, sizeof q);
	CHECK(!strstr(q, "WHERE") && !strstr(q, "DROP"), "mysql_digest_sql: timestamp with a quote appended -> no WHERE");
	mysql_digest_sql(&c, "2026-11-29 10:00:01.123456 0000000000000000", q, sizeof q);
	CHECK(!strstr(q, "WHERE"), "mysql_digest_sql: over-long timestamp -> no WHERE");

	c.ps_digest_p95 = false;
	mysql_digest_sql(&c, "2026-11-29 10:00:01", q, sizeof q);
	CHECK(!strstr(q, "QUANTILE"), "mysql_digest_sql: no QUANTILE_95 without ps_digest_p95");
	CHECK(strstr(q, "LAST_SEEN FROM performance_schema") != NULL, "mysql_digest_sql: 11 columns without QUANTILE_95");
}

static void test_mysql80(void)
{
	struct fx f;
	struct caps c;
	struct digest_table t;
	struct digest_set *s1, *s2, *s3, *s4;
	struct strset texts = {0};
	const struct digest_row *r;
	const struct digest_entry *e;
	char newest[40] = "", q[1024], buf[512];

	if (!fx_load(&f, "digests-mysql-8.0.36.txt"))
		return;
	my_caps(&c, "8.0.36", "MySQL Community Server - GPL", true);
	CHECK(strstr(mysql_digest_sql(&c, newest, q, sizeof q), "QUANTILE_95") && !strstr(q, "WHERE"),
	      fnm(&f, "first read: all rows, with QUANTILE_95"));
	s1 = my_set(&f, 1, false, &texts, newest, sizeof newest);
	CHECK(s1->n == 5 && s1->have_lost && s1->lost == 1234, fnm(&f, "sample 1: 5 rows, digest_lost 1234"));

	r = set_row(s1, "shop/" DG_A);
	CHECK(r != NULL, fnm(&f, "key = SCHEMA_NAME/DIGEST (64 hex digits)"));
	CHECK(r && strcmp(r->schema, "shop") == 0, fnm(&f, "schema shop"));
	CHECK(r && r->c[DG_CALLS] == 1000 && r->c[DG_TOTAL_NS] == 2500000000ull && r->c[DG_LOCK_NS] == 120000000ull,
	      fnm(&f, "COUNT_STAR, SUM_TIMER_WAIT and SUM_LOCK_TIME ps -> ns"));
	CHECK(r && r->c[DG_ROWS] == 1000 && r->c[DG_ROWS_EXAMINED] == 1000 && r->c[DG_ERRORS] == 0,
	      fnm(&f, "rows sent+affected, rows examined, errors"));
	CHECK(has_bits(r, BIT(DG_CALLS) | BIT(DG_TOTAL_NS) | BIT(DG_LOCK_NS) | BIT(DG_ERRORS) | BIT(DG_ROWS) |
			      BIT(DG_ROWS_EXAMINED),
		       BIT(DG_BLKS_HIT) | BIT(DG_BLKS_READ) | BIT(DG_WAL_BYTES) | BIT(DG_PLAN_NS)),
	      fnm(&f, "have: the six MySQL counters, no PostgreSQL ones"));
	CHECK(r && near(r->p95_ms, 5.011872336), fnm(&f, "QUANTILE_95 5011872336 ps -> 5.011872336 ms"));
	CHECK(r && r->first_seen == 1795860000.25 && r->epoch == 1795860000250ull,
	      fnm(&f, "epoch from UNIX_TIMESTAMP(FIRST_SEEN) in ms"));
	CHECK(r && r->last_seen == 1795946400.9, fnm(&f, "last_seen from UNIX_TIMESTAMP(LAST_SEEN)"));
	CHECK(r && r->text && strncmp(r->text, "SELECT `o` . `id`", 17) == 0, fnm(&f, "text attached by key"));
	r = set_row(s1, "shop/" DG_B);
	CHECK(r && r->text && strcmp(r->text, "COMMIT") == 0 && near(r->p95_ms, 3.01995172) &&
	      r->c[DG_TOTAL_NS] == 1000000000ull, fnm(&f, "COMMIT digest: 500 calls, 1 s, p95 3.02 ms"));
	r = set_row(s1, "/" DG_C);
	CHECK(r && r->schema[0] == '\0' && r->c[DG_CALLS] == 10, fnm(&f, "NULL SCHEMA_NAME: key /DIGEST, schema empty"));
	CHECK(r && r->text && strcmp(r->text, "SELECT @@`version_comment` LIMIT ?") == 0,
	      fnm(&f, "NULL SCHEMA_NAME: text found"));
	r = set_row(s1, "/(null)");
	CHECK(r != NULL, fnm(&f, "NULL DIGEST overflow row: key /(null)"));
	CHECK(r && r->text && strstr(r->text, "digest table is full") && strstr(r->text, "performance_schema_digests_size"),
	      fnm(&f, "overflow row: text says the digest table is full"));
	CHECK(r && r->c[DG_CALLS] == 42 && r->c[DG_ERRORS] == 1 && near(r->p95_ms, 10),
	      fnm(&f, "overflow row: counters and p95 10 ms"));
	CHECK_STR(newest, "2026-11-29 10:00:00.990000", fnm(&f, "newest LAST_SEEN of sample 1"));
	mysql_digest_sql(&c, newest, q, sizeof q);
	CHECK(strstr(q, " WHERE LAST_SEEN >= '2026-11-29 10:00:00.990000'") != NULL,
	      fnm(&f, "second read: WHERE LAST_SEEN >= the newest read"));

	digest_table_init(&t);
	feed(&t, s1, NAN, true, W0);
	s2 = my_set(&f, 2, true, &texts, newest, sizeof newest);
	CHECK(s2->partial && s2->n == 5 && !set_row(s2, "shop/" DG_D), fnm(&f, "sample 2: changed rows only"));
	CHECK(set_row(s2, "shop/" DG_A) && !set_row(s2, "shop/" DG_A)->text,
	      fnm(&f, "sample 2: no text fetched again for a known digest"));
	feed(&t, s2, 10.0, false, W0 + 10);
	CHECK_STR(t.source, "performance_schema", fnm(&f, "table source"));
	e = find(&t, "shop/" DG_A);
	CHECK(e && e->known && near(e->rate[DG_CALLS], 200) && near(e->rate[DG_TOTAL_NS] / 1e6, 500),
	      fnm(&f, "SELECT: 200 calls/s, 500 ms/s"));
	CHECK(e && near(e->avg_ms, 2.5) && near(e->rate[DG_ROWS], 200) && near(e->rate[DG_ROWS_EXAMINED], 400) &&
	      near(e->rate[DG_LOCK_NS] / 1e6, 24) && e->rate[DG_ERRORS] == 0,
	      fnm(&f, "SELECT: avg 2.5 ms, 200 rows/s, 400 examined/s, lock 24 ms/s"));
	CHECK(e && near(e->last.p95_ms, 5.754399373), fnm(&f, "SELECT: p95 of sample 2"));
	CHECK(e && e->last.text && strncmp(e->last.text, "SELECT `o`", 10) == 0,
	      fnm(&f, "SELECT: text kept from sample 1"));
	e = find(&t, "shop/" DG_B);
	CHECK(e && e->known && near(e->rate[DG_CALLS], 100) && near(e->rate[DG_TOTAL_NS] / 1e6, 200) &&
	      near(e->avg_ms, 2), fnm(&f, "COMMIT: 100/s, 200 ms/s, avg 2 ms"));
	e = find(&t, "/" DG_C);
	CHECK(e && e->known && near(e->rate[DG_CALLS], 0.5) && near(e->rate[DG_TOTAL_NS] / 1e6, 0.25),
	      fnm(&f, "NULL schema row: 0.5 calls/s, 0.25 ms/s"));
	e = find(&t, "/(null)");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 5.8) && near(e->rate[DG_TOTAL_NS] / 1e6, 11.6) &&
	      strstr(e->last.text, "digest table is full"), fnm(&f, "overflow row: 5.8 calls/s, 11.6 ms/s, text kept"));
	e = find(&t, "shop/" DG_F);
	CHECK(e && e->known && near(e->rate[DG_CALLS], 5) && near(e->rate[DG_TOTAL_NS] / 1e6, 100) &&
	      near(e->avg_ms, 20), fnm(&f, "new DELETE (FIRST_SEEN after sample 1): from zero, 5/s, 100 ms/s"));
	CHECK(e && e->last.text && strcmp(e->last.text, "DELETE FROM `cart_items` WHERE `cart_id` = ?") == 0 &&
	      near(e->last.p95_ms, 25.118864315), fnm(&f, "new DELETE: text and p95"));
	e = find(&t, "shop/" DG_D);
	CHECK(e && e->known && e->rate[DG_CALLS] == 0 && e->rate[DG_LOCK_NS] == 0 && e->last.c[DG_CALLS] == 200,
	      fnm(&f, "UPDATE absent from the partial read: rate 0, known"));
	CHECK(near(t.total_ms_per_s, 811.85), fnm(&f, "total_ms_per_s = 500 + 200 + 100 + 11.6 + 0.25"));
	CHECK(t.lost_delta == 66, fnm(&f, "digest_lost +66"));
	CHECK_STR(top_keys(&t, DGS_TOTAL, false, 8, buf, sizeof buf),
		  "shop/" DG_A " shop/" DG_B " shop/" DG_F " /(null) /" DG_C,
		  fnm(&f, "interval top by total time (idle UPDATE left out)"));
	CHECK_STR(newest, "2026-11-29 10:00:11.400000", fnm(&f, "newest LAST_SEEN of sample 2"));

	/* TRUNCATE between samples 2 and 3 */
	s3 = my_set(&f, 3, true, &texts, newest, sizeof newest);
	feed(&t, s3, 10.0, false, W0 + 20);
	e = find(&t, "shop/" DG_A);
	CHECK(e && !e->known && all_nan(e), fnm(&f, "after TRUNCATE: SELECT re-created with fewer calls: unknown"));
	e = find(&t, "shop/" DG_B);
	CHECK(e && !e->known && all_nan(e) && e->last.epoch == 1795946412500ull,
	      fnm(&f, "after TRUNCATE: COMMIT past its old counts: unknown by FIRST_SEEN"));
	CHECK(t.total_ms_per_s == 0 && t.lost_delta == 10 && none_negative(&t),
	      fnm(&f, "after TRUNCATE: total 0, lost +10, nothing negative"));
	s4 = my_set(&f, 4, true, &texts, newest, sizeof newest);
	feed(&t, s4, 10.0, false, W0 + 30);
	e = find(&t, "shop/" DG_A);
	CHECK(e && e->known && near(e->rate[DG_CALLS], 30) && near(e->rate[DG_TOTAL_NS] / 1e6, 60),
	      fnm(&f, "sample 4: SELECT OK again, 30/s, 60 ms/s"));
	e = find(&t, "shop/" DG_B);
	CHECK(e && e->known && near(e->rate[DG_CALLS], 50) && near(e->avg_ms, 1),
	      fnm(&f, "sample 4: COMMIT OK again, 50/s, avg 1 ms"));
	CHECK(t.lost_delta == 0 && near(t.total_ms_per_s, 110), fnm(&f, "sample 4: lost +0, total 110 ms/s"));
	digest_table_free(&t);
	strset_clear(&texts);
	fx_free(&f);
}

static void test_mariadb(void)
{
	struct fx f;
	struct caps c;
	struct digest_table t;
	struct digest_set *s1, *s2;
	struct strset texts = {0};
	const struct digest_row *r;
	const struct digest_entry *e;
	char newest[40] = "", q[1024], buf[512];

	if (!fx_load(&f, "digests-mariadb-10.11.6.txt"))
		return;
	my_caps(&c, "10.11.6-MariaDB-0+deb12u1-log", "Debian 12", false);
	CHECK(c.flavour == FLAVOUR_MARIADB, fnm(&f, "flavour mariadb"));
	mysql_digest_sql(&c, newest, q, sizeof q);
	CHECK(!strstr(q, "QUANTILE") && !strstr(q, "WHERE"), fnm(&f, "first read: no QUANTILE columns, no WHERE"));
	s1 = my_set(&f, 1, false, &texts, newest, sizeof newest);
	CHECK(s1->n == 4 && !s1->have_lost, fnm(&f, "sample 1: 4 rows, no digest_lost read"));
	r = set_row(s1, "shopdb/8f2178c83bc8a98dc407d909956fd2d7");
	CHECK(r != NULL, fnm(&f, "key with the 32-digit MariaDB digest"));
	CHECK(r && isnan(r->p95_ms), fnm(&f, "11 columns: p95 NaN"));
	CHECK(r && r->c[DG_CALLS] == 4000 && r->c[DG_TOTAL_NS] == 8000000000ull && r->c[DG_LOCK_NS] == 400000000ull &&
	      r->c[DG_ROWS_EXAMINED] == 8000, fnm(&f, "counters, ps -> ns"));
	CHECK(r && r->first_seen == 1795900000 && r->epoch == 1795900000000ull,
	      fnm(&f, "whole-second UNIX_TIMESTAMP(FIRST_SEEN) -> epoch"));
	r = set_row(s1, "shopdb/06dbaf4a605324ce11a8d3efe7b6d5c5");
	CHECK(r && r->text && strcmp(r->text, "COMMIT ") == 0 && r->c[DG_CALLS] == 2000,
	      fnm(&f, "COMMIT digest with its text as printed"));
	r = set_row(s1, "/947d559b99189ddd0765acabd700c410");
	CHECK(r && r->schema[0] == '\0' && r->c[DG_ROWS] == 2500, fnm(&f, "NULL SCHEMA_NAME row"));
	CHECK_STR(newest, "2026-11-29 10:00:01", fnm(&f, "newest LAST_SEEN (whole seconds)"));
	mysql_digest_sql(&c, newest, q, sizeof q);
	CHECK(strstr(q, " WHERE LAST_SEEN >= '2026-11-29 10:00:01'") != NULL, fnm(&f, "second read: WHERE LAST_SEEN"));

	digest_table_init(&t);
	feed(&t, s1, NAN, true, W0);
	s2 = my_set(&f, 2, true, &texts, newest, sizeof newest);
	feed(&t, s2, 10.0, false, W0 + 10);
	e = find(&t, "shopdb/8f2178c83bc8a98dc407d909956fd2d7");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 200) && near(e->rate[DG_TOTAL_NS] / 1e6, 400) &&
	      near(e->avg_ms, 2) && near(e->rate[DG_LOCK_NS] / 1e6, 20), fnm(&f, "SELECT: 200/s, 400 ms/s, lock 20 ms/s"));
	CHECK(e && isnan(e->last.p95_ms), fnm(&f, "SELECT: p95 NaN in the table"));
	e = find(&t, "shopdb/06dbaf4a605324ce11a8d3efe7b6d5c5");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 100) && near(e->avg_ms, 0.3), fnm(&f, "COMMIT: 100/s, avg 0.3 ms"));
	e = find(&t, "shopdb/24f60e18db663dc1dc2251fb9672506d");
	CHECK(e && e->known && e->rate[DG_CALLS] == 0, fnm(&f, "row re-read at the same LAST_SEEN second: rate 0"));
	e = find(&t, "/947d559b99189ddd0765acabd700c410");
	CHECK(e && e->known && e->rate[DG_CALLS] == 0, fnm(&f, "absent row: rate 0"));
	CHECK(near(t.total_ms_per_s, 430), fnm(&f, "total_ms_per_s 430"));
	CHECK_STR(top_keys(&t, DGS_TOTAL, false, 8, buf, sizeof buf),
		  "shopdb/8f2178c83bc8a98dc407d909956fd2d7 shopdb/06dbaf4a605324ce11a8d3efe7b6d5c5",
		  fnm(&f, "interval top: the two rows that ran"));
	digest_table_free(&t);
	strset_clear(&texts);
	fx_free(&f);
}

/* Cells of one MySQL digest row. */
static void my_cells(const char *cells[MYD__COUNT], const char *schema, const char *digest)
{
	memset(cells, 0, MYD__COUNT * sizeof *cells);
	cells[MYD_SCHEMA] = schema;
	cells[MYD_DIGEST] = digest;
	cells[MYD_COUNT] = "1";
	cells[MYD_TIMER] = "1000000";
	cells[MYD_LOCK] = "0";
	cells[MYD_ERRORS] = "0";
	cells[MYD_ROWS] = "1";
	cells[MYD_EXAMINED] = "1";
	cells[MYD_FIRST] = "1795946400.000000";
	cells[MYD_LAST] = "1795946400.000000";
	cells[MYD_LAST_RAW] = "2026-11-29 10:00:00.000000";
	cells[MYD_P95] = "1000000";
}

static void test_mysql_cells(void)
{
	struct digest_set *s = set_new(false);
	const char *cells[MYD__COUNT];
	const struct digest_row *r;
	/* 32 and 64 characters: MySQL schema names are up to 64 characters */
	static const char schema32[] = "warehouse_reporting_archive_2026";
	static const char schema64[] = "customer_analytics_reporting_warehouse_archive_2026_eu_west_prod";
	char cyr[200] = "";
	int i;

	my_cells(cells, "shop", DG_A);
	cells[MYD_COUNT] = "not a number";
	cells[MYD_P95] = NULL;
	mysql_map_digest(s, cells, MYD__COUNT);
	r = &s->rows[0];
	CHECK(!(r->have & BIT(DG_CALLS)) && (r->have & BIT(DG_TOTAL_NS)), "mysql_map_digest: garbage count -> absent");
	CHECK(isnan(r->p95_ms), "mysql_map_digest: NULL QUANTILE_95 -> p95 NaN");
	my_cells(cells, "shop", DG_A);
	cells[MYD_FIRST] = NULL;
	mysql_map_digest(s, cells, MYD__COUNT - 1);
	r = &s->rows[1];
	CHECK(r->epoch == 0 && r->first_seen == 0 && isnan(r->p95_ms),
	      "mysql_map_digest: NULL FIRST_SEEN -> epoch 0; 11 cells -> no p95");
	my_cells(cells, "sh\x1bop", DG_A);
	mysql_map_digest(s, cells, MYD__COUNT);
	r = &s->rows[2];
	CHECK(!strchr(r->key, '\x1b') && !strchr(r->schema, '\x1b'), "mysql_map_digest: schema sanitised in key and schema");

	/* long schema names with the 64-digit MySQL 8.0 digest */
	my_cells(cells, schema32, DG_A);
	mysql_map_digest(s, cells, MYD__COUNT);
	r = &s->rows[3];
	CHECK(strcmp(r->key, tname("%s/%s", schema32, DG_A)) == 0,
	      "mysql_map_digest: key keeps the whole 64-digit digest after a 32-character schema");
	my_cells(cells, schema64, DG_A);
	mysql_map_digest(s, cells, MYD__COUNT);
	r = &s->rows[4];
	CHECK(strlen(schema64) == 64 && strcmp(r->schema, schema64) == 0,
	      "mysql_map_digest: a 64-character schema name kept whole");
	for (i = 0; i < 48; i++)
		strcat(cyr, "\xd0\xb4"); /* 48 x U+0434: 96 bytes, a legal 48-character schema name */
	my_cells(cells, cyr, DG_A);
	mysql_map_digest(s, cells, MYD__COUNT);
	my_cells(cells, cyr, DG_B);
	mysql_map_digest(s, cells, MYD__COUNT);
	CHECK(strcmp(s->rows[5].key, s->rows[6].key) != 0,
	      "mysql_map_digest: two digests of a 48-character (96-byte) schema get distinct keys");
	digest_set_free(s);
}

/* ---- PostgreSQL ------------------------------------------------------------- */

static bool pg_fx(struct fx *f, const char *file, struct caps *c)
{
	const struct fx_sec *s;
	const char *cells[PGP__COUNT];
	int i;
	if (!fx_load(f, file))
		return false;
	s = fx_sec(f, "probe");
	memset(c, 0, sizeof *c);
	for (i = 0; i < PGP__COUNT; i++)
		cells[i] = s && s->nrows && i < s->rows[0].n ? s->rows[0].cell[i] : NULL;
	pg_caps_probe(c, cells);
	pg_caps_finish(c, false);
	return true;
}

/* The row mapping's numbers: integers, ms with fractions (rounded to the
 * ns), exponents and odd shapes through strtod, NULL and garbage left out;
 * the key from numeric ids, and a hostile id cleaned. */
static void test_pg_map_numbers(void)
{
	struct digest_set *set = set_new(false);
	const char *c1[PGD__COUNT] = {"10", "16384", "-4242", "t", "7", "12345.6789015", "0.0000004", "9007199254740993",
				      "1e3", "abc", NULL, "1764400000.5", "db"};
	pg_map_digest(set, c1);
	const struct digest_row *r = &set->rows[0];
	CHECK(strcmp(r->key, "10:16384:-4242:t") == 0, "pg_map: key of numeric ids");
	CHECK(r->c[DG_CALLS] == 7, "pg_map: calls");
	CHECK(r->c[DG_PLAN_NS] == 0, "pg_map: 0.0000004 ms rounds to 0 ns");
	CHECK(r->c[DG_TOTAL_NS] == 12345678902ull, "pg_map: 12345.6789015 ms -> 12345678902 ns (rounded)");
	CHECK(r->c[DG_ROWS] == 9007199254740993ull, "pg_map: 2^53 + 1 rows exactly (no double on the way)");
	CHECK(r->c[DG_BLKS_HIT] == 1000, "pg_map: 1e3 through strtod");
	CHECK(!(r->have >> DG_BLKS_READ & 1), "pg_map: garbage is not a number");
	CHECK(!(r->have >> DG_WAL_BYTES & 1), "pg_map: NULL is not a number");
	const char *c2[PGD__COUNT] = {"10", "1\x1b[2J", "5", "f", "1", "2", "0", "3", "4", "5", "6", NULL, "db"};
	pg_map_digest(set, c2);
	r = &set->rows[1];
	CHECK(strchr(r->key, 0x1b) == NULL && strstr(r->key, ":f") != NULL, "pg_map: a hostile id is cleaned");
	digest_set_free(set);
}

/* The cells of row i of a fixture's digests section. */
static void pg_row_cells(const struct fx_sec *s, int i, const char *cells[PGD__COUNT])
{
	for (int j = 0; j < PGD__COUNT; j++)
		cells[j] = j < s->rows[i].n ? s->rows[i].cell[j] : NULL;
}

/* The set of sample n as the PostgreSQL source builds it: the rows that
 * changed since the connection's last read (seen; every row on its first
 * read, or when one it listed is gone) through pg_map_digest, dealloc as
 * the lost counter, texts by key. */
static struct digest_set *pg_set(const struct caps *c, const struct fx *f, int n, struct strset *texts,
				 struct pg_changes *seen)
{
	const struct fx_sec *s = fx_secn(f, "digests", n), *t = fx_sec(f, "texts"), *d = fx_secn(f, "dealloc", n);
	struct digest_set *set = set_new(false);
	const char *cells[PGD__COUNT];
	unsigned *pick = xcalloc(s && s->nrows ? (size_t)s->nrows : 1, sizeof *pick);
	int i;
	size_t k;

	str_printf(set->source, sizeof set->source, "pg_stat_statements %d.%d", c->pgss_version / 100,
		   c->pgss_version % 100);
	pg_changes_begin(seen);
	for (i = 0; s && i < s->nrows; i++) {
		pg_row_cells(s, i, cells);
		pick[i] = pg_changes_row(seen, cells);
	}
	set->partial = !pg_changes_end(seen);
	for (i = 0; s && i < s->nrows; i++) {
		pg_row_cells(s, i, cells);
		if (!set->partial || (pick[i] & PG_PICK_KEEP))
			pg_map_digest(set, cells);
	}
	free(pick);
	if (d && d->nrows && d->rows[0].cell[0]) {
		set->lost = strtoull(d->rows[0].cell[0], NULL, 10);
		set->have_lost = true;
	}
	for (k = 0; k < set->n; k++) {
		struct digest_row *r = &set->rows[k];
		if (strset_has(texts, r->key))
			continue;
		for (i = 0; t && i < t->nrows; i++) {
			const struct fx_row *tr = &t->rows[i];
			char key[96];
			if (tr->n < 5)
				continue;
			pg_digest_key(key, sizeof key, tr->cell[0], tr->cell[1], tr->cell[2], tr->cell[3]);
			if (strcmp(key, r->key) == 0 && !r->text) {
				r->text = xstrdup(tr->cell[4] ? tr->cell[4] : "");
				strset_add(texts, key);
			}
		}
	}
	return set;
}

/* One read of rows[0..n-1] through ch: the picks in pick, the two sets
 * the source could build (whole: every row; as built: the picked rows
 * unless the read is to be whole). Returns whether it is to be whole. */
static bool pg_read(struct pg_changes *ch, const char *const *const rows[], int n, unsigned *pick,
		    struct digest_set **whole, struct digest_set **built)
{
	pg_changes_begin(ch);
	for (int i = 0; i < n; i++)
		pick[i] = pg_changes_row(ch, rows[i]);
	bool w = pg_changes_end(ch);
	*whole = set_new(false);
	*built = set_new(!w);
	for (int i = 0; i < n; i++) {
		pg_map_digest(*whole, rows[i]);
		if (w || (pick[i] & PG_PICK_KEEP))
			pg_map_digest(*built, rows[i]);
	}
	return w;
}

/* Both tables' rates of every digest are the same. */
static bool same_rates(const struct digest_table *a, const struct digest_table *b)
{
	for (size_t i = 0; i < a->n; i++) {
		const struct digest_entry *x = &a->e[i], *y = find(b, x->last.key);
		if (x->gone)
			continue;
		if (!y || x->known != y->known || y->gone)
			return false;
		for (int k = 0; x->known && k < DG__COUNT; k++)
			if (!(x->rate[k] == y->rate[k] || (isnan(x->rate[k]) && isnan(y->rate[k]))))
				return false;
	}
	return true;
}

/* The PostgreSQL source's digest reads after the first carry only the
 * digests that changed: what is picked, when a read is whole, and the
 * rates the model makes of them are those of whole reads. */
static void test_pg_changes(void)
{
	struct pg_changes ch;
	struct digest_table tw, tb;
	struct digest_set *w, *b;
	unsigned pick[4];
	const char *a1[PGD__COUNT] = {"10", "5", "111", "t", "7", "70.5", "1.5", "7", "1", "0", "0", NULL, "db"};
	const char *a2[PGD__COUNT] = {"10", "5", "111", "t", "7", "70.5", "2.5", "7", "1", "0", "0", NULL, "db"};
	const char *a3[PGD__COUNT] = {"10", "5", "111", "t", "7", "70.5", "2.5", "9", "5", "0", "0", NULL, "db"};
	const char *a4[PGD__COUNT] = {"10", "5", "111", "t", "7", "70.5", "2.5", "9", "5", "0", "0", "99.5", "db"};
	const char *b1[PGD__COUNT] = {"10", "5", "222", "t", "3", "30", "0", "3", "0", "0", "0", NULL, "db"};
	const char *b2[PGD__COUNT] = {"10", "5", "222", "t", "4", "40", "0", "4", "0", "0", "0", NULL, "db"};
	const char *c1[PGD__COUNT] = {"10", "5", "333", "t", "1", "1", "0", "1", "0", "0", "0", NULL, "db"};
	const char *d1[PGD__COUNT] = {"10", "5", "444", "t", "2", "8", "0", "2", "0", "0", "0", NULL, "db"};

	pg_changes_init(&ch);
	digest_table_init(&tw);
	digest_table_init(&tb);
	const char *const *r1[] = {a1, b1, c1};
	CHECK(pg_read(&ch, r1, 3, pick, &w, &b) && pick[0] == PG_PICK_KEEP && pick[1] == PG_PICK_KEEP &&
	      pick[2] == PG_PICK_KEEP, "pg changes: the first read is whole, no text wanted");
	feed(&tw, w, NAN, true, W0);
	feed(&tb, b, NAN, true, W0);
	CHECK(!pg_read(&ch, r1, 3, pick, &w, &b) && !pick[0] && !pick[1] && !pick[2] && b->n == 0,
	      "pg changes: a read where nothing moved carries no row");
	feed(&tw, w, 1, false, W0 + 1);
	feed(&tb, b, 1, false, W0 + 1);
	CHECK(same_rates(&tw, &tb) && find(&tb, "10:5:111:t")->known && find(&tb, "10:5:111:t")->rate[DG_CALLS] == 0,
	      "pg changes: the rows left out are known and still");
	const char *const *r3[] = {a2, d1, b2, c1};
	CHECK(!pg_read(&ch, r3, 4, pick, &w, &b) && pick[0] == PG_PICK_KEEP &&
	      pick[1] == (PG_PICK_KEEP | PG_PICK_MOVED) && pick[2] == (PG_PICK_KEEP | PG_PICK_MOVED) && !pick[3] &&
	      b->n == 3, "pg changes: planning time alone is a change (no text), a new row and moved calls want texts");
	feed(&tw, w, 2, false, W0 + 3);
	feed(&tb, b, 2, false, W0 + 3);
	CHECK(same_rates(&tw, &tb) && fabs(find(&tb, "10:5:222:t")->rate[DG_CALLS] - 0.5) < 1e-9 &&
	      fabs(find(&tb, "10:5:111:t")->rate[DG_PLAN_NS] - 0.5e6) < 1e-3,
	      "pg changes: the rates of a partial read are those of a whole one");
	const char *const *r4[] = {c1, a3, b2, d1};
	CHECK(!pg_read(&ch, r4, 4, pick, &w, &b) && !pick[0] && !pick[1] && !pick[2] && !pick[3],
	      "pg changes: another order, rows and blocks alone (they move with calls) carry nothing");
	feed(&tw, w, 1, false, W0 + 4);
	feed(&tb, b, 1, false, W0 + 4);
	const char *const *r5[] = {a4, b2, d1};
	CHECK(pg_read(&ch, r5, 3, pick, &w, &b) && pick[0] == PG_PICK_KEEP && b->n == 3,
	      "pg changes: a digest gone makes the read whole; a row re-created (since) is a change");
	feed(&tw, w, 1, false, W0 + 5);
	feed(&tb, b, 1, false, W0 + 5);
	CHECK(find(&tb, "10:5:333:t")->gone && same_rates(&tw, &tb), "pg changes: the model sees the gone digest");
	pg_changes_free(&ch);
	pg_changes_init(&ch);
	CHECK(pg_read(&ch, r5, 3, pick, &w, &b), "pg changes: a new connection's first read is whole");
	digest_set_free(w);
	digest_set_free(b);
	digest_table_free(&tw);
	digest_table_free(&tb);
	pg_changes_free(&ch);
}

static void test_pg_sql(void)
{
	struct caps c;
	const char *q;
	char buf[1024];
	const char *ids[4];

	memset(&c, 0, sizeof c);
	c.engine = ENGINE_POSTGRESQL;
	CHECK(pg_digest_sql(&c) == NULL, "pg_digest_sql: NULL without the extension");
	c.pgss_version = 107;
	q = pg_digest_sql(&c);
	CHECK(q && strstr(q, "s.total_time, 0") && !strstr(q, "total_exec_time") && !strstr(q, "total_plan_time"),
	      "pg_digest_sql 1.7: total_time, plan 0");
	CHECK(q && strstr(q, "s.queryid, true,") && !strstr(q, "s.toplevel") && !strstr(q, "stats_since") &&
	      !strstr(q, "wal_bytes"), "pg_digest_sql 1.7: no toplevel, stats_since or wal_bytes");
	c.pgss_version = 108;
	q = pg_digest_sql(&c);
	CHECK(q && strstr(q, "s.total_exec_time, s.total_plan_time") && !strstr(q, "s.total_time"),
	      "pg_digest_sql 1.8: total_exec_time + total_plan_time");
	CHECK(q && strstr(q, "s.queryid, true,") && !strstr(q, "s.toplevel") && !strstr(q, "stats_since") &&
	      strstr(q, "s.wal_bytes"), "pg_digest_sql 1.8: toplevel constant, no stats_since, wal_bytes");
	c.pgss_version = 109;
	q = pg_digest_sql(&c);
	CHECK(q && strstr(q, "s.queryid, s.toplevel,") && !strstr(q, "stats_since") &&
	      strstr(q, "s.total_exec_time, s.total_plan_time"), "pg_digest_sql 1.9: toplevel, no stats_since");
	c.pgss_version = 110;
	q = pg_digest_sql(&c);
	CHECK(q && strstr(q, "s.toplevel") && !strstr(q, "stats_since"), "pg_digest_sql 1.10: toplevel, no stats_since");
	c.pgss_version = 111;
	q = pg_digest_sql(&c);
	CHECK(q && strstr(q, "s.toplevel") && strstr(q, "extract(epoch FROM s.stats_since)") &&
	      strstr(q, "s.total_exec_time, s.total_plan_time"), "pg_digest_sql 1.11: toplevel and stats_since");
	c.pgss_version = 112;
	q = pg_digest_sql(&c);
	CHECK(q && strstr(q, "s.toplevel") && strstr(q, "s.stats_since"), "pg_digest_sql 1.12: toplevel and stats_since");
	CHECK(q && strstr(q, "pg_stat_statements(false)") && strstr(q, "queryid IS NOT NULL") &&
	      strstr(q, "d.datname FROM"), "pg_digest_sql: no texts, no NULL queryids, datname last");

	c.pgss_version = 112;
	ids[0] = "-9223372036854775808";
	ids[1] = "1); DROP TABLE x; --";
	ids[2] = "3646700873791771801";
	ids[3] = "12 OR true";
	pg_digest_text_sql(&c, ids, 4, buf, sizeof buf);
	CHECK(strstr(buf, "toplevel, query FROM pg_stat_statements(true)") != NULL,
	      "pg_digest_text_sql >= 1.9: selects toplevel");
	CHECK(strstr(buf, "WHERE queryid = ANY ('{-9223372036854775808,3646700873791771801}'::bigint[])") != NULL &&
	      buf[strlen(buf) - 1] == ')', "pg_digest_text_sql: integer ids (negative too) listed");
	CHECK(!strstr(buf, "DROP") && !strstr(buf, "OR true") && !strchr(buf, ';'),
	      "pg_digest_text_sql: injection attempts skipped");
	c.pgss_version = 108;
	ids[0] = "1); DROP TABLE x; --";
	ids[1] = "42";
	pg_digest_text_sql(&c, ids, 2, buf, sizeof buf);
	CHECK(strstr(buf, "queryid, true, query") && strstr(buf, "ANY ('{42}'") && !strstr(buf, "DROP"),
	      "pg_digest_text_sql 1.8: true for toplevel, injection skipped before a valid id");
	ids[0] = "-";
	ids[1] = "42";
	pg_digest_text_sql(&c, ids, 2, buf, sizeof buf);
	CHECK(strstr(buf, "ANY ('{42}'") != NULL, "pg_digest_text_sql: a lone \"-\" is not an integer id (skipped)");
}

static void test_pg13(void)
{
	struct fx f;
	struct caps c;
	struct digest_table t;
	struct digest_set *s;
	struct strset texts = {0};
	struct pg_changes seen;
	const struct digest_row *r;
	const struct digest_entry *e;
	char buf[512];

	if (!pg_fx(&f, "digests-pg-13.txt", &c))
		return;
	pg_changes_init(&seen);
	CHECK(c.pgss_version == 108, fnm(&f, "pg_stat_statements 1.8 -> 108"));
	CHECK(pg_digest_sql(&c) && strstr(pg_digest_sql(&c), "s.queryid, true,"), fnm(&f, "1.8 query: toplevel constant"));
	s = pg_set(&c, &f, 1, &texts, &seen);
	CHECK(s->n == 4 && !s->have_lost && strcmp(s->source, "pg_stat_statements 1.8") == 0,
	      fnm(&f, "sample 1: 4 rows, no dealloc (1.8)"));
	r = set_row(s, "10:16385:-7017280863286801366:t");
	CHECK(r != NULL, fnm(&f, "key userid:dbid:queryid:toplevel with a negative queryid"));
	CHECK(r && strcmp(r->schema, "shop") == 0, fnm(&f, "schema = datname"));
	CHECK(r && r->c[DG_CALLS] == 1000 && r->c[DG_TOTAL_NS] == 2600750000ull && r->c[DG_PLAN_NS] == 100250000ull,
	      fnm(&f, "total = exec 2500.5 ms + plan 100.25 ms, in ns"));
	CHECK(r && r->c[DG_ROWS] == 1000 && r->c[DG_BLKS_HIT] == 50000 && r->c[DG_BLKS_READ] == 200 &&
	      r->c[DG_WAL_BYTES] == 1048576, fnm(&f, "rows, blocks hit/read, wal_bytes"));
	CHECK(has_bits(r, BIT(DG_CALLS) | BIT(DG_TOTAL_NS) | BIT(DG_PLAN_NS) | BIT(DG_ROWS) | BIT(DG_BLKS_HIT) |
			      BIT(DG_BLKS_READ) | BIT(DG_WAL_BYTES),
		       BIT(DG_LOCK_NS) | BIT(DG_ERRORS) | BIT(DG_ROWS_EXAMINED)),
	      fnm(&f, "have: the PostgreSQL counters, no MySQL ones"));
	CHECK(r && r->epoch == 0 && r->first_seen == 0 && isnan(r->p95_ms), fnm(&f, "no stats_since: epoch 0, no p95"));
	CHECK(r && r->text && strcmp(r->text, "SELECT o.id, o.total FROM orders o WHERE o.customer_id = $1") == 0,
	      fnm(&f, "text by key"));
	r = set_row(s, "10:16385:2643756286501377769:t");
	CHECK(r && r->c[DG_TOTAL_NS] == 30000123ull, fnm(&f, "30.000123 ms -> 30000123 ns"));
	r = set_row(s, "16384:16385:8774454397695814938:t");
	CHECK(r && r->c[DG_TOTAL_NS] == 45, fnm(&f, "4.5e-05 ms -> 45 ns"));
	r = set_row(s, "10:13383:3924093250470014445:t");
	CHECK(r && strcmp(r->schema, "postgres") == 0 && r->c[DG_TOTAL_NS] == 33960836ull,
	      fnm(&f, "other database: schema postgres, exec + plan 1.5 ms"));

	digest_table_init(&t);
	feed(&t, s, NAN, true, W0);
	feed(&t, pg_set(&c, &f, 2, &texts, &seen), 10.0, false, W0 + 10);
	e = find(&t, "10:16385:-7017280863286801366:t");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 200) && near(e->rate[DG_TOTAL_NS] / 1e6, 520) &&
	      near(e->avg_ms, 2.6), fnm(&f, "orders query: 200 calls/s, 520 ms/s (exec + plan), avg 2.6 ms"));
	CHECK(e && near(e->rate[DG_PLAN_NS] / 1e6, 20) && near(e->rate[DG_ROWS], 200) &&
	      near(e->rate[DG_BLKS_HIT], 10000) && near(e->rate[DG_BLKS_READ], 20) &&
	      near(e->rate[DG_WAL_BYTES], 209715.2), fnm(&f, "orders query: plan 20 ms/s, blocks, WAL bytes/s"));
	e = find(&t, "10:16385:2643756286501377769:t");
	CHECK(e && e->known && e->rate[DG_CALLS] == 0, fnm(&f, "unchanged row: known, rate 0"));
	e = find(&t, "16384:16385:8774454397695814938:t");
	CHECK(e && e->gone && !e->known && all_nan(e), fnm(&f, "deallocated row: gone, rates NaN"));
	e = find(&t, "10:13383:3924093250470014445:t");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 0.1) && near(e->avg_ms, 8), fnm(&f, "postgres row: 0.1/s, avg 8 ms"));
	e = find(&t, "10:16385:-1234567890123456789:t");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 4) && near(e->rate[DG_TOTAL_NS] / 1e6, 8) && near(e->avg_ms, 2),
	      fnm(&f, "new entry: from zero, 4/s, 8 ms/s"));
	CHECK(e && e->last.text && strncmp(e->last.text, "INSERT INTO cart_items", 22) == 0, fnm(&f, "new entry: text"));
	CHECK(near(t.total_ms_per_s, 528.8) && t.lost_delta == 0 && !t.have_lost, fnm(&f, "total 528.8 ms/s, no lost counter"));
	CHECK_STR(top_keys(&t, DGS_TOTAL, false, 8, buf, sizeof buf),
		  "10:16385:-7017280863286801366:t 10:16385:-1234567890123456789:t 10:13383:3924093250470014445:t",
		  fnm(&f, "interval top by total time"));

	feed(&t, pg_set(&c, &f, 3, &texts, &seen), 10.0, false, W0 + 20);
	e = find(&t, "16384:16385:8774454397695814938:t");
	CHECK(e && !e->gone && !e->known && all_nan(e) && e->last.c[DG_CALLS] == 1,
	      fnm(&f, "deallocated row back with restarted counters: unknown, not a spike"));
	CHECK(e && e->last.text && strcmp(e->last.text, "SELECT 1") == 0, fnm(&f, "returning row keeps its text"));
	CHECK(near(t.total_ms_per_s, 528) && none_negative(&t), fnm(&f, "sample 3: total 528 ms/s, nothing negative"));
	digest_table_free(&t);
	strset_clear(&texts);
	fx_free(&f);
	pg_changes_free(&seen);
}

/* One digest row of pg_stat_statements (key 10:16385:ID:t) with calls and
 * ms, marked as dbtop's own when o says its key is. */
static void pg_own_row(struct digest_set *set, const struct pg_own *o, const char *id, const char *calls,
		       const char *ms)
{
	const char *cells[PGD__COUNT] = {[PGD_USERID] = "10", [PGD_DBID] = "16385", [PGD_QUERYID] = id,
					 [PGD_TOPLEVEL] = "t", [PGD_CALLS] = calls, [PGD_EXEC_MS] = ms,
					 [PGD_PLAN_MS] = "0", [PGD_DATNAME] = "shop"};
	pg_map_digest(set, cells);
	set->rows[set->n - 1].own = pg_own_has(o, set->rows[set->n - 1].key);
}

/* dbtop's own statements on PostgreSQL 15: the texts pg_stat_statements
 * wrote for the statement strings dbtop sent are its own, whether the
 * text came before or after the statement; the clients' (transaction
 * control included) are not. Own rows leave the ranking and the total
 * unless shown; recordings made before the flag are matched by text. */
static void test_pg_own(void)
{
	struct fx f;
	struct caps c;
	char key[200], why[400];
	if (!pg_fx(&f, "own-pg-15.txt", &c))
		return;
	const struct fx_sec *sent = fx_sec(&f, "sent"), *tx = fx_sec(&f, "texts"), *rec = fx_sec(&f, "recorded");
	CHECK(sent && tx && rec && sent->nrows >= 8 && tx->nrows >= 30 && rec->nrows >= 20,
	      fnm(&f, "sections @sent, @texts, @recorded"));
	if (!sent || !tx || !rec) {
		fx_free(&f);
		return;
	}
	for (int order = 0; order < 2; order++) {
		struct pg_own o = {0};
		int wrong = 0, own = 0;
		why[0] = '\0';
		if (order)
			for (int i = 0; i < sent->nrows; i++)
				pg_own_sent(&o, sent->rows[i].cell[0]);
		for (int i = 0; i < tx->nrows; i++) {
			str_printf(key, sizeof key, "10:16385:%d:t", i);
			pg_own_text(&o, key, tx->rows[i].cell[1]);
		}
		if (!order)
			for (int i = 0; i < sent->nrows; i++)
				pg_own_sent(&o, sent->rows[i].cell[0]);
		for (int i = 0; i < tx->nrows; i++) {
			str_printf(key, sizeof key, "10:16385:%d:t", i);
			bool want = tx->rows[i].cell[0][0] == 't', got = pg_own_has(&o, key);
			own += got;
			if (got != want && !wrong++)
				str_printf(why, sizeof why, ": %s %.120s", want ? "missed" : "wrongly own", tx->rows[i].cell[1]);
		}
		CHECK(!wrong && own >= 15, tname("%s: %s: %d own, %d wrong%s", f.file,
					 order ? "sent, then texts" : "texts, then sent (checked again)", own, wrong, why));
		if (order) {
			/* the digest table: the own row out of the ranking and the total */
			struct digest_table t;
			struct digest_set *s1 = set_new(false), *s2 = set_new(false);
			digest_table_init(&t);
			pg_own_row(s1, &o, "0", "10", "100");    /* @texts row 0: dbtop's */
			pg_own_row(s1, &o, "17", "100", "1000"); /* row 17: pgbench's UPDATE */
			pg_own_row(s2, &o, "0", "20", "150");
			pg_own_row(s2, &o, "17", "200", "3000");
			CHECK(s1->rows[0].own && !s1->rows[1].own, fnm(&f, "map: the rows marked"));
			feed(&t, s1, NAN, true, W0);
			feed(&t, s2, 10.0, false, W0 + 10);
			CHECK(near(t.total_ms_per_s, 200) && near(t.own_ms_per_s, 5) &&
				      !in_top(&t, "10:16385:0:t", false) && in_top(&t, "10:16385:17:t", false),
			      tname("%s: own left out: total %.1f ms/s, own %.1f ms/s", f.file, t.total_ms_per_s, t.own_ms_per_s));
			digest_table_show_own(&t, true);
			CHECK(near(t.total_ms_per_s, 205) && in_top(&t, "10:16385:0:t", false) &&
				      find(&t, "10:16385:0:t")->last.own,
			      tname("%s: own shown (o): in the ranking, marked, total %.1f ms/s", f.file, t.total_ms_per_s));
			digest_table_free(&t);
		}
		pg_own_free(&o);
	}
	int wrong = 0, own = 0;
	why[0] = '\0';
	for (int i = 0; i < rec->nrows; i++) {
		bool want = rec->rows[i].cell[0][0] == 't', got = pg_own_recorded(rec->rows[i].cell[1]);
		own += got;
		if (got != want && !wrong++)
			str_printf(why, sizeof why, ": %s %.120s", want ? "missed" : "wrongly own", rec->rows[i].cell[1]);
	}
	CHECK(!wrong && own >= 15, tname("%s: recorded texts: %d own, %d wrong%s", f.file, own, wrong, why));
	fx_free(&f);
}

static void test_pg15(void)
{
	struct fx f;
	struct caps c;
	struct digest_table t;
	struct digest_set *s;
	struct strset texts = {0};
	struct pg_changes seen;
	const struct digest_row *r;
	const struct digest_entry *e;
	char buf[512];

	if (!pg_fx(&f, "digests-pg-15.txt", &c))
		return;
	pg_changes_init(&seen);
	CHECK(c.pgss_version == 110 && strstr(pg_digest_sql(&c), "s.toplevel") && !strstr(pg_digest_sql(&c), "stats_since"),
	      fnm(&f, "1.10: query with toplevel, without stats_since"));
	s = pg_set(&c, &f, 1, &texts, &seen);
	CHECK(s->have_lost && s->lost == 7, fnm(&f, "dealloc 7"));
	r = set_row(s, "10:16385:-6689182654418835007:t");
	CHECK(r && r->c[DG_TOTAL_NS] == 8013000000ull && r->c[DG_WAL_BYTES] == 3000000 && r->epoch == 0,
	      fnm(&f, "top-level UPDATE: exec + plan 8013 ms, wal 3000000"));
	r = set_row(s, "10:16385:-6689182654418835007:f");
	CHECK(r && r->c[DG_CALLS] == 500, fnm(&f, "the same queryid nested (toplevel f): its own key"));
	digest_table_init(&t);
	feed(&t, s, NAN, true, W0);
	feed(&t, pg_set(&c, &f, 2, &texts, &seen), 10.0, false, W0 + 10);
	CHECK_STR(t.source, "pg_stat_statements 1.10", fnm(&f, "table source"));
	e = find(&t, "10:16385:2643756286501377769:t");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 200) && near(e->rate[DG_TOTAL_NS] / 1e6, 400) &&
	      near(e->rate[DG_BLKS_HIT], 800) && e->rate[DG_BLKS_READ] == 0, fnm(&f, "SELECT: 200/s, 400 ms/s"));
	e = find(&t, "10:16385:-6689182654418835007:t");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 50) && near(e->rate[DG_TOTAL_NS] / 1e6, 200.5) &&
	      near(e->avg_ms, 4.01) && near(e->rate[DG_WAL_BYTES], 75000), fnm(&f, "UPDATE top-level: 50/s, 200.5 ms/s"));
	e = find(&t, "10:16385:-6689182654418835007:f");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 10) && near(e->avg_ms, 2), fnm(&f, "UPDATE nested: 10/s, avg 2 ms"));
	e = find(&t, "10:5:-7017280863286801366:t");
	CHECK(e && e->gone && !in_top(&t, e->last.key, true), fnm(&f, "deallocated entry gone"));
	CHECK(t.lost_delta == 12 && near(t.total_ms_per_s, 620.5), fnm(&f, "dealloc +12, total 620.5 ms/s"));
	CHECK_STR(top_keys(&t, DGS_CALLS, false, 8, buf, sizeof buf),
		  "10:16385:2643756286501377769:t 10:16385:-6689182654418835007:t 10:16385:-6689182654418835007:f",
		  fnm(&f, "interval top by calls"));
	digest_table_free(&t);
	strset_clear(&texts);
	fx_free(&f);
	pg_changes_free(&seen);
}

static void test_pg17(void)
{
	struct fx f;
	struct caps c;
	struct digest_table t;
	struct digest_set *s, *s2;
	struct strset texts = {0};
	struct pg_changes seen;
	const struct digest_row *r;
	const struct digest_entry *e;
	size_t k;

	if (!pg_fx(&f, "digests-pg-17.txt", &c))
		return;
	pg_changes_init(&seen);
	CHECK(c.pgss_version == 111 && strstr(pg_digest_sql(&c), "s.stats_since"), fnm(&f, "1.11: query with stats_since"));
	s = pg_set(&c, &f, 1, &texts, &seen);
	r = set_row(s, "10:16385:3305518279988455605:t");
	CHECK(r && r->first_seen == 1795860000.5 && r->epoch == 1795860000500ull, fnm(&f, "epoch from stats_since (ms)"));
	CHECK(r && r->c[DG_TOTAL_NS] == 1525750000ull, fnm(&f, "exec 1500.5 + plan 25.25 ms"));
	digest_table_init(&t);
	feed(&t, digest_set_dup(s), NAN, true, W0);
	s2 = pg_set(&c, &f, 2, &texts, &seen);
	feed(&t, digest_set_dup(s2), 10.0, false, W0 + 10);
	e = find(&t, "10:16385:3305518279988455605:t");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 50) && near(e->rate[DG_TOTAL_NS] / 1e6, 152.5) &&
	      near(e->avg_ms, 3.05), fnm(&f, "steady: 50/s, 152.5 ms/s, avg 3.05 ms"));
	e = find(&t, "10:16385:845996210479717058:t");
	CHECK(e && !e->known && all_nan(e) && e->last.epoch == 1795946403750ull,
	      fnm(&f, "reset entry past its old counts: unknown by stats_since"));
	e = find(&t, "10:16385:-6960386936143591437:t");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 4) && near(e->avg_ms, 0.5),
	      fnm(&f, "new entry (stats_since after the previous sample): from zero"));
	CHECK(near(t.total_ms_per_s, 154.5) && t.have_lost && t.lost_delta == 0, fnm(&f, "total 154.5 ms/s, dealloc +0"));
	digest_table_free(&t);

	/* the same new entry dated before the previous sample: unknown */
	digest_table_init(&t);
	feed(&t, s, NAN, true, W0);
	for (k = 0; k < s2->n; k++)
		if (strcmp(s2->rows[k].key, "10:16385:-6960386936143591437:t") == 0) {
			s2->rows[k].first_seen = 1795946000.5;
			s2->rows[k].epoch = 1795946000500ull;
		}
	feed(&t, s2, 10.0, false, W0 + 10);
	e = find(&t, "10:16385:-6960386936143591437:t");
	CHECK(e && !e->known && all_nan(e), fnm(&f, "new entry with stats_since before the previous sample: unknown"));
	digest_table_free(&t);
	strset_clear(&texts);
	fx_free(&f);
	pg_changes_free(&seen);
}

static void test_pg18(void)
{
	struct fx f;
	struct caps c;
	struct digest_table t;
	struct digest_set *s;
	struct strset texts = {0};
	struct pg_changes seen;
	const struct digest_row *r;
	const struct digest_entry *e;
	const char *ids[2];
	char q[512];

	if (!pg_fx(&f, "digests-pg-18.txt", &c))
		return;
	pg_changes_init(&seen);
	CHECK(c.pgss_version == 112 && strstr(pg_digest_sql(&c), "s.stats_since") &&
	      strstr(pg_digest_sql(&c), "s.total_exec_time, s.total_plan_time"), fnm(&f, "1.12: query"));
	s = pg_set(&c, &f, 1, &texts, &seen);
	r = set_row(s, "10:16386:-9223372036854775808:t");
	CHECK(r && r->c[DG_WAL_BYTES] == 21474836480ull && r->c[DG_TOTAL_NS] == 210000000ull,
	      fnm(&f, "smallest bigint queryid; wal_bytes beyond 32 bits"));
	CHECK(r && r->epoch == 1795860000123ull, fnm(&f, "epoch from stats_since with microseconds"));
	r = set_row(s, "16390:16386:3646700873791771801:t");
	CHECK(r && r->c[DG_TOTAL_NS] == 55, fnm(&f, "5.5e-05 ms -> 55 ns"));
	ids[0] = fx_secn(&f, "digests", 1)->rows[0].cell[PGD_QUERYID];
	ids[1] = fx_secn(&f, "digests", 1)->rows[1].cell[PGD_QUERYID];
	pg_digest_text_sql(&c, ids, 2, q, sizeof q);
	CHECK(strstr(q, "ANY ('{-9223372036854775808,3646700873791771801}'") != NULL, fnm(&f, "text query for the fixture ids"));
	digest_table_init(&t);
	feed(&t, s, NAN, true, W0);
	feed(&t, pg_set(&c, &f, 2, &texts, &seen), 10.0, false, W0 + 10);
	e = find(&t, "10:16386:-9223372036854775808:t");
	CHECK(e && e->known && near(e->rate[DG_CALLS], 10) && near(e->rate[DG_TOTAL_NS] / 1e6, 32) &&
	      near(e->rate[DG_WAL_BYTES], 107374182.4), fnm(&f, "10/s, 32 ms/s, 1 GiB WAL over 10 s"));
	e = find(&t, "16390:16386:3646700873791771801:t");
	CHECK(e && e->known && e->rate[DG_CALLS] == 0, fnm(&f, "unchanged entry: rate 0"));
	CHECK(near(t.total_ms_per_s, 32) && t.lost_delta == 0, fnm(&f, "total 32 ms/s, dealloc +0"));
	digest_table_free(&t);
	strset_clear(&texts);
	fx_free(&f);
	pg_changes_free(&seen);
}

/* ---- 3. the "digests" JSON member ------------------------------------------- */

#include "pyjson.h"

static char *json_of(const struct model *m, int top)
{
	struct strbuf b;
	sb_init(&b);
	batch_json(m, "db1:3306", top, &b);
	return b.s;
}

static void up_sample(struct sample *s, double t, uint32_t gen, struct digest_set *d)
{
	memset(s, 0, sizeof *s);
	s->state = STATE_UP;
	s->mono = t;
	s->wall = W0 + t;
	s->conn_gen = gen;
	s->digests = d;
}

static void test_json_mysql(void)
{
	struct fx f;
	struct caps c;
	struct model m;
	struct sample s;
	struct strset texts = {0};
	char newest[40] = "", *j;

	if (!fx_load(&f, "digests-mysql-8.0.36.txt"))
		return;
	my_caps(&c, "8.0.36", "MySQL Community Server - GPL", true);
	model_init(&m, 8);
	model_set_caps(&m, &c);
	up_sample(&s, 0, 1, my_set(&f, 1, false, &texts, newest, sizeof newest));
	model_update(&m, &s);
	CHECK(m.last.digests == NULL && m.prev_up.digests == NULL, "json: model_update keeps no pointer to the set");
	digest_set_free(s.digests);
	j = json_of(&m, 20);
	CHECK(strstr(j, ",\"digests\":[],\"locks_status\":") != NULL, "json: first sample -> \"digests\":[] (nothing known)");
	free(j);

	up_sample(&s, 10, 1, my_set(&f, 2, true, &texts, newest, sizeof newest));
	model_update(&m, &s);
	digest_set_free(s.digests);
	j = json_of(&m, 20);
	CHECK(strstr(j, "\"digests\":[{\"id\":\"shop/" DG_A "\",\"schema\":\"shop\",\"text\":\"SELECT `o` . `id`") != NULL,
	      "json: the SELECT digest first, fields in order id, schema, text");
	CHECK(strstr(j, "\"calls_per_s\":200,\"total_ms_per_s\":500,\"avg_ms\":2.5,\"rows_per_s\":200,\"share\":0.6159}") != NULL,
	      "json: the SELECT's figures (share 500/811.85)");
	check_py(j, "import json,sys; d=json.load(sys.stdin)[\"digests\"]; "
		    "assert [x[\"id\"][:9] for x in d]==[\"shop/cee2\",\"shop/7966\",\"shop/469e\",\"/(null)\",\"/9b0e93ed\"], d; "
		    "assert all(set(x)=={\"id\",\"schema\",\"text\",\"calls_per_s\",\"total_ms_per_s\",\"avg_ms\",\"rows_per_s\",\"share\"} for x in d); "
		    "assert d[1][\"text\"]==\"COMMIT\" and d[1][\"calls_per_s\"]==100 and d[1][\"total_ms_per_s\"]==200 and d[1][\"avg_ms\"]==2; "
		    "assert d[2][\"text\"].startswith(\"DELETE FROM\") and d[2][\"avg_ms\"]==20; "
		    "assert d[3][\"schema\"]==\"\" and \"digest table is full\" in d[3][\"text\"] and d[3][\"calls_per_s\"]==5.8; "
		    "assert d[4][\"schema\"]==\"\" and d[4][\"total_ms_per_s\"]==0.25 and d[4][\"calls_per_s\"]==0.5; "
		    "assert abs(sum(x[\"share\"] for x in d)-1)<0.001; "
		    "assert [x[\"total_ms_per_s\"] for x in d]==sorted([x[\"total_ms_per_s\"] for x in d], reverse=True)",
		 "json mysql: 5 digests by total time, fields, texts, shares sum to 1");
	free(j);
	j = json_of(&m, 3);
	check_py(j, "import json,sys; d=json.load(sys.stdin)[\"digests\"]; "
		    "assert [x[\"total_ms_per_s\"] for x in d]==[500,200,100], d; "
		    "assert abs(sum(x[\"share\"] for x in d)-800/811.85)<0.001",
		 "json mysql: top 3 by total time, shares of the whole");
	CHECK(strstr(j, "\"share\":0.1232}]") != NULL, "json mysql: top 3 ends with the DELETE (share 100/811.85)");
	free(j);
	j = json_of(&m, 0);
	CHECK(strstr(j, ",\"digests\":[],") != NULL, "json mysql: top 0 -> empty array");
	free(j);

	/* server down: digests known before, nothing this interval */
	memset(&s, 0, sizeof s);
	s.state = STATE_DOWN;
	s.mono = 20;
	s.wall = W0 + 20;
	s.conn_gen = 1;
	str_copy(s.error, sizeof s.error, "Lost connection");
	model_update(&m, &s);
	j = json_of(&m, 20);
	CHECK(strstr(j, ",\"digests\":[],") != NULL, "json mysql: DOWN -> \"digests\":[]");
	check_py(j, "import json,sys; d=json.load(sys.stdin); assert d[\"digests\"]==[] and d[\"state\"]==\"down\"",
		 "json mysql: DOWN record parses, empty digests");
	free(j);
	model_free(&m);
	strset_clear(&texts);
	fx_free(&f);
}

/* The same through the model and the JSON record with performance_schema
 * (MySQL / MariaDB add at completion too): the members only on the
 * bounded row. */
static void test_finished_bound_json(void)
{
	struct caps c;
	struct model m;
	struct sample s;
	struct digest_set *d;
	char *j;

	my_caps(&c, "10.11.6-MariaDB", "mariadb.org binary distribution", false);
	model_init(&m, 8);
	model_set_caps(&m, &c);
	d = set_new(false);
	row3(d, "shop/aa", 0, 0, 0);
	row3(d, "shop/bb", 10, 10000000ull, 10);
	up_sample(&s, 0, 1, d);
	model_update(&m, &s);
	digest_set_free(d);
	d = set_new(false);
	row3(d, "shop/aa", 5, 200194000000ull, 5);
	row3(d, "shop/bb", 20, 20000000ull, 20);
	up_sample(&s, 1, 1, d);
	model_update(&m, &s);
	digest_set_free(d);
	j = json_of(&m, 20);
	CHECK(strstr(j, "\"calls_per_s\":5,\"total_ms_per_s\":5000,\"avg_ms\":40038.8,\"rows_per_s\":5,\"share\":0.998,"
			"\"time_bounded\":true,\"total_ms_finished\":200194}") != NULL,
	      "finished bound json: bounded row 5000 ms/s, avg 40038.8, time_bounded, total_ms_finished 200194");
	CHECK(strstr(j, "\"calls_per_s\":10,\"total_ms_per_s\":10,\"avg_ms\":1,\"rows_per_s\":10,\"share\":0.002}") != NULL,
	      "finished bound json: the other row has no new member");
	CHECK(m.dg.total_ms_per_s == 5010, tname("finished bound json: total_ms_per_s 5010 (got %.1f)", m.dg.total_ms_per_s));
	free(j);
	model_free(&m);
}

static void test_json_none(void)
{
	struct model m;
	struct caps c;
	struct sample s;
	char *j;

	my_caps(&c, "8.4.3", "MySQL Community Server - GPL", false);
	c.ps_digests = false;
	model_init(&m, 8);
	model_set_caps(&m, &c);
	up_sample(&s, 0, 1, NULL);
	model_update(&m, &s);
	up_sample(&s, 1, 1, NULL);
	model_update(&m, &s);
	j = json_of(&m, 20);
	CHECK(strstr(j, ",\"digests\":null,\"locks_status\":") != NULL, "json: no digest source -> \"digests\":null");
	check_py(j, "import json,sys; d=json.load(sys.stdin); assert \"digests\" in d and d[\"digests\"] is None",
		 "json: python sees digests null");
	free(j);
	model_free(&m);
}

static void test_json_text(void)
{
	struct model m;
	struct caps c;
	struct sample s;
	struct digest_set *d;
	struct digest_row *r;
	char *j, longtext[400], utf[400];
	const char *pg_probe[PGP__COUNT] = {"17.2", "170002", "f", "1.11", NULL, "pg_stat_statements",
					    "t", "t", "on", "t", "t"};
	int i, pass;

	memset(&c, 0, sizeof c);
	pg_caps_probe(&c, pg_probe);
	pg_caps_finish(&c, false);
	str_copy(longtext, sizeof longtext, "SELECT ");
	for (i = 0; i < 300; i++)
		strcat(longtext, "x");
	str_copy(utf, sizeof utf, "SELECT ");
	for (i = 0; i < 150; i++)
		strcat(utf, "\xc3\xa9"); /* U+00E9: the 97th starts at byte 200 */

	model_init(&m, 8);
	model_set_caps(&m, &c);
	for (pass = 0; pass < 2; pass++) {
		uint64_t n = (uint64_t)pass + 1;
		d = set_new(false);
		r = row3(d, "10:16385:1:t", 10 * n, 400000000 * n, 10 * n);
		r->text = xstrdup("SELECT \x1b[2J\x1b]0;owned\x07 \"q\" \\ x\n\tFROM t \xc2\x9b" "31m");
		str_copy(r->schema, sizeof r->schema, "shop");
		r = row3(d, "10:16385:2:t", 10 * n, 300000000 * n, 0);
		r->text = xstrdup(longtext);
		str_copy(r->schema, sizeof r->schema, "sh\"op\\"); /* mappers sanitise schemas */
		r = row3(d, "10:16385:3:t", 10 * n, 200000000 * n, 0);
		r->text = xstrdup(utf);
		r = row3(d, "10:16385:4:t", 5, 100000000 * n, 0); /* planned, not run: no calls */
		up_sample(&s, (double)pass, 1, d);
		model_update(&m, &s);
		digest_set_free(d);
	}
	j = json_of(&m, 20);
	CHECK(!strchr(j, '\x1b') && !strstr(j, "\\u001b") && !strstr(j, "\\u001B"), "json text: no ESC, raw or escaped");
	CHECK(!strchr(j, '\x07') && !strstr(j, "\\u0007"), "json text: no BEL");
	CHECK(!strstr(j, "\xc2\x9b") && !strstr(j, "\\u009b"), "json text: no C1 CSI");
	CHECK(strstr(j, "\"text\":\"SELECT ?[2J?]0;owned? \\\"q\\\" \\\\ x  FROM t ?31m\"") != NULL,
	      "json text: controls -> ?, quotes and backslash escaped, newline/tab -> spaces");
	CHECK(strstr(j, "\"schema\":\"sh\\\"op\\\\\"") != NULL, "json text: quote and backslash in a schema escaped");
	check_py(j, "import json,sys; d=json.load(sys.stdin)[\"digests\"]; "
		    "assert len(d)==4, d; t={x[\"id\"]:x for x in d}; "
		    "assert all(\"\\x1b\" not in x[\"text\"] and \"\\x07\" not in x[\"text\"] and \"\\n\" not in x[\"text\"] for x in d); "
		    "assert t[\"10:16385:2:t\"][\"text\"]==\"SELECT \"+\"x\"*193, len(t[\"10:16385:2:t\"][\"text\"]); "
		    "u=t[\"10:16385:3:t\"][\"text\"]; assert len(u.encode())<=200 and u.startswith(\"SELECT \"+\"\\u00e9\"*96), u; "
		    "assert \"\\ufffd\" not in u; "
		    "assert t[\"10:16385:4:t\"][\"avg_ms\"] is None and t[\"10:16385:4:t\"][\"calls_per_s\"]==0; "
		    "assert t[\"10:16385:1:t\"][\"avg_ms\"]==40 and t[\"10:16385:1:t\"][\"total_ms_per_s\"]==400; "
		    "assert t[\"10:16385:1:t\"][\"text\"].count(\"\\\\\")==1 and \"\\\"q\\\"\" in t[\"10:16385:1:t\"][\"text\"]; "
		    "assert abs(sum(x[\"share\"] for x in d)-1)<0.001 and t[\"10:16385:1:t\"][\"share\"]==0.4",
		 "json text: cut to 200 bytes, valid UTF-8, avg null without calls, shares sum to 1");
	free(j);

	/* a reconnection: nothing known in the first interval of the new connection */
	d = set_new(false);
	row3(d, "10:16385:1:t", 30, 1200000000, 30);
	up_sample(&s, 2, 2, d);
	model_update(&m, &s);
	digest_set_free(d);
	j = json_of(&m, 20);
	CHECK(strstr(j, ",\"digests\":[],") != NULL, "json: first interval after a reconnection -> []");
	free(j);
	model_free(&m);
}

/* ---- 4. per-interval p95 from latency histograms (MySQL 8) ------------------ */

/* Bucket n of the synthetic histograms: upper bound (n + 1) ms. */
#define HMS(n) ((uint64_t)((n) + 1) * 1000000000ull)

/* A histogram of key in s from "bucket:count" pairs, ends with a negative number. */
static struct dg_hist *hist_of(struct digest_set *s, const char *key, ...)
{
	struct dg_hist *h = digest_set_add_hist(s, key);
	va_list ap;
	int num;
	va_start(ap, key);
	while ((num = va_arg(ap, int)) >= 0) {
		uint64_t count = va_arg(ap, uint64_t);
		dg_hist_add(h, (uint32_t)num, HMS(num), count);
	}
	va_end(ap);
	return h;
}

/* Buckets of a histogram built with hist_of (in a throwaway set). */
static size_t bk(struct dg_bucket *out, size_t max, ...)
{
	va_list ap;
	int num;
	size_t n = 0;
	va_start(ap, max);
	while ((num = va_arg(ap, int)) >= 0) {
		uint64_t count = va_arg(ap, uint64_t);
		if (n < max) {
			out[n].num = (uint32_t)num;
			out[n].high_ps = HMS(num);
			out[n].count = count;
			n++;
		}
	}
	va_end(ap);
	return n;
}

#define U(x) ((uint64_t)(x))

static void test_hist_p95(void)
{
	struct dg_bucket a[8], b[8];
	size_t na, nb;
	bool reset;
	struct digest_set *s = set_new(false);
	struct dg_hist *h;

	/* 20 statements in the interval: 10 in bucket 1, 10 in bucket 9 */
	na = bk(a, 8, 1, U(10), 5, U(10), -1);
	nb = bk(b, 8, 1, U(20), 5, U(10), 9, U(10), -1);
	CHECK(near(dg_hist_p95(a, na, b, nb, &reset), 10) && !reset,
	      "p95: interval counts are bucket differences (10 + 10 new: bucket 9, 10 ms)");
	CHECK(near(dg_hist_p95(NULL, 0, b, nb, &reset), 10) && !reset,
	      "p95: no earlier reading: the counts themselves (40: 95 % is 38, bucket 9)");
	/* exactly 95 % in the first bucket, and one short of it */
	na = bk(a, 8, -1);
	nb = bk(b, 8, 2, U(95), 7, U(5), -1);
	CHECK(near(dg_hist_p95(a, na, b, nb, NULL), 3), "p95: 95 of 100 in bucket 2 -> its bound 3 ms");
	nb = bk(b, 8, 2, U(94), 7, U(6), -1);
	CHECK(near(dg_hist_p95(a, na, b, nb, NULL), 8), "p95: 94 of 100 in bucket 2 -> the next one, 8 ms");
	nb = bk(b, 8, 2, U(19), 3, U(1), -1);
	CHECK(near(dg_hist_p95(a, na, b, nb, NULL), 3), "p95: 19 of 20 in bucket 2: exactly 95 %, bucket 2");
	nb = bk(b, 8, 2, U(19), 3, U(2), -1);
	CHECK(near(dg_hist_p95(a, na, b, nb, NULL), 4), "p95: 19 of 21 is short of ceil(19.95): bucket 3");
	nb = bk(b, 8, 4, U(1), -1);
	CHECK(near(dg_hist_p95(a, na, b, nb, NULL), 5), "p95: one statement: its bucket");
	/* nothing ran */
	na = bk(a, 8, 1, U(10), 5, U(10), -1);
	CHECK(isnan(dg_hist_p95(a, na, a, na, &reset)) && !reset, "p95: nothing ran: NaN, not 0, no reset");
	CHECK(isnan(dg_hist_p95(NULL, 0, NULL, 0, &reset)) && !reset, "p95: no buckets at all: NaN");
	/* resets */
	nb = bk(b, 8, 1, U(9), 5, U(30), -1);
	CHECK(isnan(dg_hist_p95(a, na, b, nb, &reset)) && reset, "p95: a bucket count went down: NaN, reset");
	nb = bk(b, 8, 5, U(30), -1);
	CHECK(isnan(dg_hist_p95(a, na, b, nb, &reset)) && reset, "p95: a bucket emptied (row gone): reset");
	nb = bk(b, 8, 1, U(10), 5, U(10), 6, U(1), -1);
	na = bk(a, 8, 1, U(10), 5, U(10), 7, U(1), -1);
	CHECK(isnan(dg_hist_p95(a, na, b, nb, &reset)) && reset, "p95: a trailing bucket emptied: reset");
	/* the last bucket has no upper bound */
	na = bk(a, 8, -1);
	b[0].num = 449;
	b[0].high_ps = UINT64_MAX;
	b[0].count = 3;
	CHECK(isnan(dg_hist_p95(a, 0, b, 1, &reset)) && !reset, "p95: in the unbounded last bucket: NaN");
	/* huge counts: no overflow in 95 % */
	nb = bk(b, 8, 1, U(1) << 62, 2, U(1) << 62, -1);
	CHECK(near(dg_hist_p95(NULL, 0, b, nb, NULL), 3), "p95: counts near 2^63 without overflow");

	/* dg_hist_add keeps bucket order and replaces a repeated number */
	h = hist_of(s, "k", 9, U(1), 3, U(2), -1);
	dg_hist_add(h, 5, HMS(5), 7);
	dg_hist_add(h, 3, HMS(3), 4);
	CHECK(h->n == 3 && h->b[0].num == 3 && h->b[0].count == 4 && h->b[1].num == 5 && h->b[2].num == 9,
	      "dg_hist_add: ascending by number, a repeated bucket replaced");
	CHECK(digest_set_hist(s, "k") == h && digest_set_hist(s, "x") == NULL, "digest_set_hist: by key");
	{
		struct digest_set *d = digest_set_dup(s);
		CHECK(d->nhist == 1 && d->hist[0].b != h->b && d->hist[0].n == 3 && d->hist[0].b[2].count == 1 &&
		      strcmp(d->hist[0].key, "k") == 0, "digest_set_dup: histograms copied deeply");
		digest_set_free(d);
	}
	digest_set_free(s);
}

static uint64_t hset_epoch = 7;

/* A set with row key (calls; total 1 ms per call; epoch hset_epoch) and,
 * after -1, its histogram ("bucket, count" pairs); ends with -2. */
static struct digest_set *hset(bool partial, const char *key, uint64_t calls, ...)
{
	struct digest_set *s = set_new(partial);
	va_list ap;
	int num;
	struct dg_hist *h = NULL;
	if (key && calls)
		row3(s, key, calls, calls * 1000000, calls)->epoch = hset_epoch;
	va_start(ap, calls);
	while ((num = va_arg(ap, int)) >= -1) {
		uint64_t count;
		if (num == -1) {   /* -1: an (empty) histogram read, then buckets */
			h = digest_set_add_hist(s, key);
			continue;
		}
		count = va_arg(ap, uint64_t);
		dg_hist_add(h, (uint32_t)num, HMS(num), count);
	}
	va_end(ap);
	return s;
}

static void test_hist_table(void)
{
	struct digest_table t;
	const struct digest_entry *e;
	struct digest_set *s;

	digest_table_init(&t);
	/* 1: first sight (fresh): unknown, becomes the base */
	feed(&t, hset(false, "h", 100, -1, 1, U(90), 4, U(10), -2), NAN, true, W0);
	e = find(&t, "h");
	CHECK(e && isnan(e->p95_ms) && e->hb_ok && e->nhb == 2, "hist: first sight: p95 unknown, kept as the base");
	/* 2: 100 more: 80 in bucket 1, 20 in 6 -> 95 % in bucket 6 */
	feed(&t, hset(false, "h", 200, -1, 1, U(170), 4, U(10), 6, U(20), -2), 1.0, false, W0 + 1);
	e = find(&t, "h");
	CHECK(e && e->known && near(e->p95_ms, 7), "hist: two readings: p95 of the interval's 100 (bucket 6, 7 ms)");
	CHECK(e && isnan(e->last.p95_ms), "hist: the cumulative QUANTILE_95 is a separate figure");
	/* 3: ran, but its histogram was not read: unknown, base dropped */
	feed(&t, hset(false, "h", 300, -2), 1.0, false, W0 + 2);
	e = find(&t, "h");
	CHECK(e && e->known && isnan(e->p95_ms) && !e->hb_ok, "hist: not read this interval: unknown, base dropped");
	/* 4: read again: no base -> still unknown (first sight again) */
	feed(&t, hset(false, "h", 400, -1, 1, U(300), 4, U(30), 6, U(70), -2), 1.0, false, W0 + 3);
	e = find(&t, "h");
	CHECK(e && isnan(e->p95_ms) && e->hb_ok, "hist: read after a gap in the readings: unknown");
	/* 5: known again */
	feed(&t, hset(false, "h", 500, -1, 1, U(399), 4, U(30), 6, U(71), -2), 1.0, false, W0 + 4);
	e = find(&t, "h");
	CHECK(e && near(e->p95_ms, 2), "hist: then known again (99 of 100 in bucket 1: 2 ms)");
	/* 6: a partial read without it: it did not run; unknown, base kept */
	feed(&t, hset(true, NULL, 0, -2), 1.0, false, W0 + 5);
	e = find(&t, "h");
	CHECK(e && e->known && e->rate[DG_CALLS] == 0 && isnan(e->p95_ms) && e->hb_ok,
	      "hist: unchanged (absent from a partial read): p95 unknown (nothing ran), base kept");
	/* 7: read after that quiet interval: the base still holds */
	feed(&t, hset(true, "h", 510, -1, 1, U(399), 4, U(30), 6, U(71), 9, U(10), -2), 1.0, false, W0 + 6);
	e = find(&t, "h");
	CHECK(e && near(e->p95_ms, 10), "hist: after a quiet interval the old base is still good (10 ms)");
	/* 8: counters grow, a bucket count goes down: reset seen in the histogram only */
	feed(&t, hset(false, "h", 520, -1, 1, U(398), 4, U(30), 6, U(71), 9, U(21), -2), 1.0, false, W0 + 7);
	e = find(&t, "h");
	CHECK(e && e->known && isnan(e->p95_ms) && e->hb_ok, "hist: a bucket count went down: unknown, new base");
	feed(&t, hset(false, "h", 530, -1, 1, U(398), 4, U(30), 6, U(71), 9, U(31), -2), 1.0, false, W0 + 8);
	CHECK(near(find(&t, "h")->p95_ms, 10), "hist: after the reset: known again");
	/* 9: the row re-created (epoch) while every count grew: unknown */
	hset_epoch = 8;
	feed(&t, hset(false, "h", 600, -1, 1, U(500), 4, U(30), 6, U(71), 9, U(31), -2), 1.0, false, W0 + 9);
	CHECK(isnan(find(&t, "h")->p95_ms), "hist: row re-created (epoch changed): unknown");
	feed(&t, hset(false, "h", 700, -1, 1, U(600), 4, U(30), 6, U(71), 9, U(31), -2), 1.0, false, W0 + 10);
	CHECK(near(find(&t, "h")->p95_ms, 2), "hist: the next interval after that: known");
	/* 10: read, nothing new: no p95 (not 0) */
	feed(&t, hset(false, "h", 700, -1, 1, U(600), 4, U(30), 6, U(71), 9, U(31), -2), 1.0, false, W0 + 11);
	e = find(&t, "h");
	CHECK(e && e->known && isnan(e->p95_ms) && e->hb_ok, "hist: read, nothing ran: unknown, never 0");
	/* 11: server down: unknown, and no base survives the gap */
	digest_table_update(&t, NULL, 1.0, false, W0 + 12);
	e = find(&t, "h");
	CHECK(e && isnan(e->p95_ms) && !e->hb_ok && e->hb == NULL, "hist: no set (down): unknown, base dropped");
	feed(&t, hset(false, "h", 800, -1, 1, U(700), 4, U(30), 6, U(71), 9, U(31), -2), 1.0, false, W0 + 13);
	CHECK(isnan(find(&t, "h")->p95_ms), "hist: first reading after the gap: unknown");
	/* 12: reconnection (fresh): unknown even with a base */
	feed(&t, hset(false, "h", 900, -1, 1, U(800), 4, U(30), 6, U(71), 9, U(31), -2), 1.0, true, W0 + 14);
	e = find(&t, "h");
	CHECK(e && isnan(e->p95_ms) && e->hb_ok, "hist: reconnection: unknown, the new reading is the base");
	feed(&t, hset(false, "h", 1000, -1, 1, U(800), 4, U(30), 6, U(71), 9, U(131), -2), 1.0, false, W0 + 15);
	CHECK(near(find(&t, "h")->p95_ms, 10), "hist: after the reconnection: known");
	/* 13: a histogram for a key the set has no row for, or an empty key: ignored */
	s = hset(false, "h", 1100, -1, 1, U(900), 4, U(30), 6, U(71), 9, U(131), -2);
	digest_set_add_hist(s, "nobody");
	digest_set_add_hist(s, "");
	feed(&t, s, 1.0, false, W0 + 16);
	CHECK(!find(&t, "nobody") && t.n == 1 && near(find(&t, "h")->p95_ms, 2),
	      "hist: a histogram without its row adds nothing");
	/* 14: a new digest with its histogram (counts from zero): first sight, unknown */
	s = hset(false, "h", 1100, -2);
	row3(s, "n", 10, 10000000, 10);
	hist_of(s, "n", 3, U(10), -1);
	feed(&t, s, 1.0, false, W0 + 17);
	e = find(&t, "n");
	CHECK(e && e->known && isnan(e->p95_ms) && e->hb_ok, "hist: a new digest: rates from zero, p95 unknown");
	/* growth keeps the bases (entries move) */
	{
		char key[32];
		int i;
		s = set_new(true);
		for (i = 0; i < 600; i++) {
			str_printf(key, sizeof key, "g%d", i);
			row3(s, key, 1, 1000, 1);
		}
		row3(s, "n", 20, 20000000, 20);
		hist_of(s, "n", 3, U(20), -1);
		feed(&t, s, 1.0, false, W0 + 18);
		e = find(&t, "n");
		CHECK(t.slots.cap >= 1024 && e && near(e->p95_ms, 4), "hist: the table grew; the base moved with its entry");
	}
	digest_table_free(&t);
	hset_epoch = 7;
}

/* The set of fixture sample n with its histograms picked and read. */
static struct digest_set *my_hist_set(const struct fx *f, int n, struct my_hist_pick *pk, struct strset *texts,
				      char *newest, size_t len, size_t max, struct strbuf *sql)
{
	struct digest_set *set = my_set(f, n, n > 1, texts, newest, len);
	const struct fx_sec *h = fx_secn(f, "histogram", n);
	int i, j;
	mysql_hist_choose(pk, set, max);
	if (!mysql_hist_sql(set, sql))
		return set;
	for (i = 0; h && i < h->nrows; i++) {
		const char *cells[MYH__COUNT] = {0};
		for (j = 0; j < MYH__COUNT && j < h->rows[i].n; j++)
			cells[j] = h->rows[i].cell[j];
		mysql_map_hist(set, cells);
	}
	return set;
}

/* Keys of set->hist joined with spaces (digests cut to 4 characters). */
static const char *hist_keys(const struct digest_set *s, char *buf, size_t len)
{
	size_t i, off = 0;
	buf[0] = '\0';
	for (i = 0; i < s->nhist && off + 1 < len; i++) {
		const char *d = strrchr(s->hist[i].key, '/');
		off += str_printf(buf + off, len - off, "%s%.*s%.4s", i ? " " : "", (int)(d - s->hist[i].key + 1),
				  s->hist[i].key, d + 1);
	}
	return buf;
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;
	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

static void test_mysql_hist(void)
{
	struct fx f, fm;
	struct caps c;
	const struct fx_sec *cols;
	struct digest_table t;
	struct digest_set *s;
	struct strset texts = {0};
	struct my_hist_pick pk = {0};
	struct strbuf sql;
	const struct digest_entry *e;
	const struct dg_hist *h;
	char newest[40] = "", buf[256];
	int i;

	if (!fx_load(&f, "digests-mysql-8.0.36.txt"))
		return;
	/* the probe: capability flags from information_schema.COLUMNS */
	memset(&c, 0, sizeof c);
	cols = fx_sec(&f, "columns");
	for (i = 0; cols && i < cols->nrows; i++)
		mysql_caps_digest_column(&c, cols->rows[i].cell[0], cols->rows[i].cell[1]);
	CHECK(cols && c.ps_digests && c.ps_digest_p95 && c.ps_digest_hist,
	      fnm(&f, "probe: digests, QUANTILE_95 and the histogram table"));
	if (fx_load(&fm, "digests-mariadb-10.11.6.txt")) {
		memset(&c, 0, sizeof c);
		cols = fx_sec(&fm, "columns");
		for (i = 0; cols && i < cols->nrows; i++)
			mysql_caps_digest_column(&c, cols->rows[i].cell[0], cols->rows[i].cell[1]);
		CHECK(cols && c.ps_digests && !c.ps_digest_p95 && !c.ps_digest_hist,
		      fnm(&fm, "probe: digests only, no histogram table (nothing queried)"));
		fx_free(&fm);
	}
	memset(&c, 0, sizeof c);
	mysql_caps_digest_column(&c, "events_statements_summary_by_digest", "COUNT_BUCKET");
	mysql_caps_digest_column(&c, MY_HIST_TABLE, "DIGEST");
	mysql_caps_digest_column(&c, NULL, "COUNT_BUCKET");
	CHECK(!c.ps_digest_hist && !c.ps_digests, "probe: a column counts only in its own table");

	/* the capped pick and its query */
	sb_init(&sql);
	s = my_hist_set(&f, 1, &pk, &texts, newest, sizeof newest, 2, &sql);
	CHECK_STR(hist_keys(s, buf, sizeof buf), "shop/cee2 shop/7966",
		  fnm(&f, "sample 1, at most 2: the two digests with the most time, largest first"));
	CHECK(count_of(sql.s, "SELECT ") == 2 && count_of(sql.s, " UNION ALL ") == 1,
	      fnm(&f, "histogram SQL: one statement, one lookup per picked digest"));
	CHECK(strstr(sql.s, "SELECT SCHEMA_NAME, DIGEST, BUCKET_NUMBER, BUCKET_TIMER_HIGH, COUNT_BUCKET "
			    "FROM performance_schema.events_statements_histogram_by_digest "
			    "WHERE SCHEMA_NAME = 'shop' AND DIGEST = '" DG_A "' AND COUNT_BUCKET > 0") == sql.s,
	      fnm(&f, "histogram SQL: columns in MYH_* order, (SCHEMA_NAME, DIGEST) lookup, non-empty buckets"));
	CHECK(strstr(sql.s, DG_B) && !strstr(sql.s, DG_C) && !strstr(sql.s, DG_D),
	      fnm(&f, "histogram SQL: the digests left out are not asked for"));
	h = digest_set_hist(s, "shop/" DG_A);
	CHECK(h && h->n == 4 && h->b[0].num == 100 && h->b[0].high_ps == 1000000000ull && h->b[0].count == 600 &&
	      h->b[3].num == 160 && h->b[3].count == 40, fnm(&f, "histogram rows of a picked digest mapped"));
	CHECK(!digest_set_hist(s, "shop/" DG_D) && !digest_set_hist(s, "/" DG_C),
	      fnm(&f, "histogram rows of digests not picked are ignored"));
	digest_set_free(s);
	mysql_hist_pick_free(&pk);
	strset_clear(&texts);
	newest[0] = '\0';

	/* the whole run, MY_HIST_MAX */
	digest_table_init(&t);
	s = my_hist_set(&f, 1, &pk, &texts, newest, sizeof newest, MY_HIST_MAX, &sql);
	CHECK_STR(hist_keys(s, buf, sizeof buf), "shop/cee2 shop/7966 shop/0de4 /9b0e",
		  fnm(&f, "sample 1: every digest that took time, by time; not the NULL-digest row"));
	CHECK(count_of(sql.s, "SELECT ") == 4 && strstr(sql.s, "WHERE SCHEMA_NAME IS NULL AND DIGEST = '" DG_C "'"),
	      fnm(&f, "histogram SQL: NULL schema -> SCHEMA_NAME IS NULL"));
	CHECK(strlen(sql.s) < 2048, fnm(&f, "histogram SQL: bounded size"));
	feed(&t, s, NAN, true, W0);
	e = find(&t, "shop/" DG_A);
	CHECK(e && isnan(e->p95_ms) && e->hb_ok && near(e->last.p95_ms, 5.011872336),
	      fnm(&f, "sample 1: interval p95 unknown (first sight), QUANTILE_95 5.01 ms"));

	s = my_hist_set(&f, 2, &pk, &texts, newest, sizeof newest, MY_HIST_MAX, &sql);
	CHECK_STR(hist_keys(s, buf, sizeof buf), "shop/cee2 shop/7966 shop/469e /9b0e",
		  fnm(&f, "sample 2: picked by time since the previous read (the new DELETE: its whole time)"));
	feed(&t, s, 10.0, false, W0 + 10);
	e = find(&t, "shop/" DG_A);
	CHECK(e && near(e->p95_ms, 10), fnm(&f, "sample 2: SELECT p95 this interval 10 ms (bucket 150)"));
	CHECK(e && near(e->last.p95_ms, 5.754399373), fnm(&f, "sample 2: SELECT QUANTILE_95 since first seen 5.75 ms"));
	e = find(&t, "shop/" DG_B);
	CHECK(e && near(e->p95_ms, 3.01995172), fnm(&f, "sample 2: COMMIT p95 3.02 ms"));
	e = find(&t, "/" DG_C);
	CHECK(e && near(e->p95_ms, 0.575439937), fnm(&f, "sample 2: NULL-schema digest p95 0.575 ms"));
	e = find(&t, "shop/" DG_F);
	CHECK(e && e->known && isnan(e->p95_ms) && e->hb_ok, fnm(&f, "sample 2: new DELETE: p95 unknown (first sight)"));
	e = find(&t, "shop/" DG_D);
	CHECK(e && e->known && isnan(e->p95_ms) && e->hb_ok,
	      fnm(&f, "sample 2: UPDATE did not run: p95 unknown, its base kept"));
	e = find(&t, "/(null)");
	CHECK(e && e->known && isnan(e->p95_ms) && !e->hb, fnm(&f, "sample 2: overflow row: never a p95"));

	s = my_hist_set(&f, 3, &pk, &texts, newest, sizeof newest, MY_HIST_MAX, &sql);
	CHECK_STR(hist_keys(s, buf, sizeof buf), "shop/cee2 shop/7966", fnm(&f, "sample 3: both re-created digests read"));
	feed(&t, s, 10.0, false, W0 + 20);
	CHECK(isnan(find(&t, "shop/" DG_A)->p95_ms) && isnan(find(&t, "shop/" DG_B)->p95_ms),
	      fnm(&f, "sample 3 (after TRUNCATE): p95 unknown"));
	s = my_hist_set(&f, 4, &pk, &texts, newest, sizeof newest, MY_HIST_MAX, &sql);
	feed(&t, s, 10.0, false, W0 + 30);
	e = find(&t, "shop/" DG_A);
	CHECK(e && near(e->p95_ms, 2.290867652), fnm(&f, "sample 4: SELECT p95 2.29 ms"));
	e = find(&t, "shop/" DG_B);
	CHECK(e && near(e->p95_ms, 3.16227766) && near(e->last.p95_ms, 2.290867652),
	      fnm(&f, "sample 4: COMMIT p95 3.16 ms this interval, 2.29 ms since first seen"));
	digest_table_free(&t);
	mysql_hist_pick_free(&pk);
	strset_clear(&texts);

	/* picking: nothing ran, quotes in a schema, max 0 */
	s = set_new(false);
	row3(s, "o'brien/" DG_A, 5, 5000000, 5);
	row3(s, "back\\slash/" DG_B, 5, 5000000, 5);
	row3(s, "idle/" DG_C, 0, 0, 0);
	row3(s, "shop/not-hex", 5, 5000000, 5);
	row3(s, "/(null)", 5, 5000000, 5);
	row3(s, "ok/" DG_D, 5, 5000000, 5);
	CHECK(mysql_hist_choose(&pk, s, MY_HIST_MAX) == 1 && s->nhist == 1 && strcmp(s->hist[0].key, "ok/" DG_D) == 0,
	      "mysql_hist_choose: no quote or backslash in a schema, hex digests only, idle rows left out");
	CHECK(mysql_hist_sql(s, &sql) && !strchr(sql.s + strlen(sql.s) - 20, '\\'),
	      "mysql_hist_sql: built for the one picked");
	digest_set_free(s);
	s = set_new(true);
	row3(s, "ok/" DG_D, 5, 5000000, 5);
	CHECK(mysql_hist_choose(&pk, s, MY_HIST_MAX) == 0 && s->nhist == 0 && !mysql_hist_sql(s, &sql) && sql.len == 0,
	      "mysql_hist_choose: unchanged time since the last read -> not picked, no query");
	digest_set_free(s);
	s = set_new(false);
	row3(s, "ok/" DG_D, 6, 6000000, 6);
	CHECK(mysql_hist_choose(&pk, s, 0) == 0 && s->nhist == 0, "mysql_hist_choose: max 0 -> none");
	digest_set_free(s);
	mysql_hist_pick_free(&pk);
	/* many digests: at most MY_HIST_MAX, the biggest, and the query stays one statement */
	s = set_new(false);
	for (i = 0; i < 500; i++) {
		char key[100];
		str_printf(key, sizeof key, "s%d/%064x", i % 7, i);
		row3(s, key, 1, 1000000 * (uint64_t)(i + 1), 1);
	}
	CHECK(mysql_hist_choose(&pk, s, MY_HIST_MAX) == MY_HIST_MAX && s->nhist == MY_HIST_MAX &&
	      strstr(s->hist[0].key, "1f3") && strstr(s->hist[MY_HIST_MAX - 1].key, "1dc"),
	      "mysql_hist_choose: 500 digests -> the 24 with the most time (499 down to 476)");
	CHECK(mysql_hist_sql(s, &sql) && count_of(sql.s, "SELECT ") == MY_HIST_MAX && sql.len < 8192,
	      "mysql_hist_sql: 24 lookups in one statement under 8 KiB");
	digest_set_free(s);
	mysql_hist_pick_free(&pk);
	sb_free(&sql);
	fx_free(&f);
}

/* ---- the p95 column, the detail view and the JSON key ---------------------- */

#include "../../panes/pane.h"

#define GRID_H 24
#define GRID_W 200
static char grid[GRID_H][GRID_W + 1];

static void grid_put(struct canvas *cv, int y, int x, enum role r, const char *s, int ncols)
{
	int i;
	(void)cv;
	(void)r;
	for (i = 0; s[i] && i < ncols && x + i < GRID_W; i++)
		if (y >= 0 && y < GRID_H && x + i >= 0)
			grid[y][x + i] = s[i];
}

static const struct canvas_ops grid_ops = {grid_put};

/* Draw the digests pane into the grid; returns the grid as one string. */
static const char *draw_digests(const struct model *m, bool cumulative, bool details)
{
	static char all[GRID_H * (GRID_W + 1) + 1];
	struct canvas cv = {&grid_ops, NULL, 0, 0, GRID_H, GRID_W, false};
	struct pane_view v;
	int y;
	memset(&v, 0, sizeof v);
	v.sort = cumulative ? 4 : 0;
	v.details = details;
	v.focused = true;
	for (y = 0; y < GRID_H; y++) {
		memset(grid[y], ' ', GRID_W);
		grid[y][GRID_W] = '\n';
	}
	digests_pane.draw(m, &v, &cv);
	memcpy(all, grid, sizeof grid);
	all[sizeof all - 1] = '\0';
	return all;
}

/* The grid row that contains what (first match), or "". */
static const char *grid_row(const char *what)
{
	static char row[GRID_W + 1];
	int y;
	for (y = 0; y < GRID_H; y++) {
		memcpy(row, grid[y], GRID_W);
		row[GRID_W] = '\0';
		if (strstr(row, what))
			return row;
	}
	return "";
}

static void test_hist_output(void)
{
	struct fx f;
	struct caps c;
	struct model m;
	struct sample s;
	struct strset texts = {0};
	struct my_hist_pick pk = {0};
	struct strbuf sql;
	char newest[40] = "", *j;
	const char *g;
	int pass;

	if (!fx_load(&f, "digests-mysql-8.0.36.txt"))
		return;
	sb_init(&sql);
	for (pass = 0; pass < 2; pass++) {
		bool hist = pass == 0;
		my_caps(&c, "8.0.36", "MySQL Community Server - GPL", true);
		c.ps_digest_hist = hist;
		model_init(&m, 8);
		model_set_caps(&m, &c);
		newest[0] = '\0';
		up_sample(&s, 0, 1, my_hist_set(&f, 1, &pk, &texts, newest, sizeof newest, MY_HIST_MAX, &sql));
		model_update(&m, &s);
		digest_set_free(s.digests);
		up_sample(&s, 10, 1, my_hist_set(&f, 2, &pk, &texts, newest, sizeof newest, MY_HIST_MAX, &sql));
		model_update(&m, &s);
		digest_set_free(s.digests);
		j = json_of(&m, 20);
		g = draw_digests(&m, false, false);
		if (getenv("SHOW_GRID"))
			fputs(g, stderr);
		if (hist) {
			CHECK(strstr(j, "\"avg_ms\":2.5,\"p95_ms\":10,\"rows_per_s\":200") != NULL,
			      "json p95: p95_ms of the interval after avg_ms (SELECT 10 ms)");
			check_py(j, "import json,sys; d={x[\"id\"][:9]:x for x in json.load(sys.stdin)[\"digests\"]}; "
				    "assert all(\"p95_ms\" in x for x in d.values()), d; "
				    "assert d[\"shop/cee2\"][\"p95_ms\"]==10 and d[\"shop/7966\"][\"p95_ms\"]==3.02, d; "
				    "assert d[\"/9b0e93ed\"][\"p95_ms\"]==0.575, d; "
				    "assert d[\"shop/469e\"][\"p95_ms\"] is None and d[\"/(null)\"][\"p95_ms\"] is None",
				 "json p95: every digest has p95_ms; unknown ones are null, never 0");
			CHECK(strstr(g, "avg ms   p95 ms    rows/s") != NULL, "pane: p95 ms column head after avg ms");
			CHECK(strstr(grid_row("SELECT `o`"), " 2.50     10.0       200 ") != NULL,
			      "pane: the SELECT row shows 10.0 ms p95 this interval");
			CHECK(strstr(grid_row("DELETE FROM"), " 20.0        -      5.00 ") != NULL,
			      "pane: unknown p95 is '-', not 0");
			g = draw_digests(&m, true, false);
			CHECK(strstr(g, "avg ms   p95 ms      rows") != NULL && strstr(grid_row("SELECT `o`"), "    5.75 ") != NULL,
			      "pane cumulative: the p95 column shows QUANTILE_95 (5.75 ms)");
			g = draw_digests(&m, false, true);
			CHECK(strstr(g, "p95 latency this interval 10.000 ms (latency histogram)") != NULL &&
			      strstr(g, "p95 latency since first seen 5.754 ms (QUANTILE_95)") != NULL,
			      "details: both the interval p95 and the cumulative QUANTILE_95");
		} else {
			CHECK(!strstr(j, "p95"), "json p95: no capability -> no p95_ms key at all");
			CHECK(!strstr(g, "p95") && strstr(g, "avg ms    rows/s") != NULL,
			      "pane: no capability -> no p95 column (not a column of dashes)");
			g = draw_digests(&m, false, true);
			CHECK(!strstr(g, "this interval") && strstr(g, "p95 latency since first seen 5.754 ms") != NULL,
			      "details without the capability: only QUANTILE_95");
		}
		free(j);
		model_free(&m);
		mysql_hist_pick_free(&pk);
		strset_clear(&texts);
	}
	sb_free(&sql);
	fx_free(&f);
}

/* ---- recordings keep the histograms ------------------------------------------ */

#include "../../record/record.h"

static void put_le(struct strbuf *b, uint64_t v, int n)
{
	int i;
	for (i = 0; i < n; i++)
		sb_putc(b, (char)(v >> (8 * i)));
}

static void put_fld(struct strbuf *b, int tag, const void *d, size_t n)
{
	put_le(b, (uint64_t)tag, 2);
	put_le(b, n, 4);
	sb_put(b, d, n);
}

static void put_rec(struct strbuf *file, int type, const struct strbuf *payload)
{
	size_t start = file->len;
	put_le(file, 0x52544244u, 4);
	put_le(file, payload->len, 4);
	sb_putc(file, (char)type);
	sb_put(file, payload->s ? payload->s : "", payload->len);
	put_le(file, rec_crc32(0, file->s + start + 4, 5 + payload->len), 4);
}

/* A histogram field: key, bucket count n, then nb buckets (n != nb: damaged). */
static void put_hist(struct strbuf *b, const char *key, uint32_t n, uint32_t nb)
{
	struct strbuf f;
	uint32_t i;
	sb_init(&f);
	sb_putc(&f, (char)strlen(key));
	sb_puts(&f, key);
	put_le(&f, n, 4);
	for (i = 0; i < nb; i++) {
		put_le(&f, 10 + i, 4);
		put_le(&f, HMS(10 + i), 8);
		put_le(&f, 5 * (i + 1), 8);
	}
	put_fld(b, 17, f.s, f.len);
	sb_free(&f);
}

static void test_hist_record(void)
{
	struct fx f;
	struct caps c;
	struct model live, rep;
	struct sample s;
	struct strset texts = {0};
	struct my_hist_pick pk = {0};
	struct strbuf sql, file, pl;
	struct recorder r;
	struct rec_reader rd;
	struct rec_item it;
	struct rec_header hd;
	char newest[40] = "", err[256], path[] = "/tmp/dbtop-test-p95-XXXXXX", *jl[5] = {0}, *j;
	const struct dg_hist *h;
	int fd, n, nsamp = 0, same = 0, caps_ok = 0, hist_ok = 0;
	FILE *fp;

	if (!fx_load(&f, "digests-mysql-8.0.36.txt"))
		return;
	fd = mkstemp(path);
	if (fd < 0) {
		CHECK(false, "record p95: temp file");
		fx_free(&f);
		return;
	}
	close(fd);
	unlink(path);   /* a recording is always a new file */
	sb_init(&sql);
	memset(&hd, 0, sizeof hd);
	str_copy(hd.engine, sizeof hd.engine, "mysql");
	str_copy(hd.server_version, sizeof hd.server_version, "8.0.36");
	str_copy(hd.host, sizeof hd.host, "db1:3306");
	str_copy(hd.dbtop_version, sizeof hd.dbtop_version, "test");
	hd.start_wall = W0;
	hd.interval = 10;
	my_caps(&c, "8.0.36", "MySQL Community Server - GPL", true);
	c.ps_digest_hist = true;
	model_init(&live, 8);
	model_set_caps(&live, &c);
	CHECK(rec_open_write(&r, path, &hd, false, err, sizeof err) == 0 && rec_write_caps(&r, &c, 1, err, sizeof err) == 0,
	      "record p95: header and caps written");
	for (n = 1; n <= 4; n++) {
		up_sample(&s, 10.0 * (n - 1), 1, my_hist_set(&f, n, &pk, &texts, newest, sizeof newest, MY_HIST_MAX, &sql));
		if (rec_write_sample(&r, &s, err, sizeof err) != 0)
			printf("# rec_write_sample: %s\n", err);
		model_update(&live, &s);
		digest_set_free(s.digests);
		jl[n] = json_of(&live, 20);
	}
	rec_close(&r);
	CHECK(strstr(jl[2], "\"p95_ms\":10,") != NULL, "record p95: the live run has p95_ms");

	model_init(&rep, 8);
	if (rec_open_read(&rd, path, NULL, 0, err, sizeof err) == 0) {
		while (rec_next(&rd, &it) == 1) {
			if (it.type == REC_CAPS) {
				caps_ok = it.caps.ps_digest_hist && it.caps.ps_digest_p95;
				model_set_caps(&rep, &it.caps);
				continue;
			}
			nsamp++;
			if (nsamp == 2) {
				h = digest_set_hist(it.sample.digests, "shop/" DG_A);
				hist_ok = it.sample.digests && it.sample.digests->nhist == 4 && h && h->n == 6 &&
					  h->b[4].num == 150 && h->b[4].high_ps == 10000000000ull && h->b[4].count == 105;
			}
			model_update(&rep, &it.sample);
			digest_set_free(it.sample.digests);
			j = json_of(&rep, 20);
			if (nsamp <= 4 && strcmp(j, jl[nsamp]) == 0)
				same++;
			free(j);
		}
		CHECK(rd.corrupt == 0 && rd.unknown == 0 && nsamp == 4, "record p95: 4 samples read back, nothing skipped");
		rec_reader_close(&rd);
	}
	CHECK(caps_ok, "record p95: the histogram capability survives the recording (CAPS flag bit 14)");
	CHECK(hist_ok, "record p95: histograms read back bucket for bucket");
	CHECK(same == 4, "record p95: the replay prints the live JSON byte for byte, p95_ms included");
	model_free(&rep);
	model_free(&live);
	for (n = 1; n <= 4; n++)
		free(jl[n]);
	unlink(path);

	/* a hand-made file: a future flag, an unknown field, a damaged and an
	 * empty histogram: unknown parts are skipped, the rest is read */
	sb_init(&file);
	sb_init(&pl);
	sb_put(&file, "DBTOPREC", 8);
	put_le(&file, 1, 2);
	put_le(&file, 0, 2);
	put_le(&file, 0, 4);
	put_fld(&pl, 1, "mysql", 5);
	put_rec(&file, 1, &pl);
	pl.len = 0;
	{
		char v[8];
		uint64_t flags = 1ull << 14 | 1ull << 40, one = 1;
		memcpy(v, &flags, 8);
		put_fld(&pl, 6, v, 8);
		memcpy(v, &one, 8);
		put_fld(&pl, 2, v, 8);
	}
	put_rec(&file, 2, &pl);
	pl.len = 0;
	{
		char v[8], meta[19] = {0};
		uint64_t one = 1;
		memcpy(v, &one, 8);
		put_fld(&pl, 3, v, 8);
		memcpy(meta + 17, "ps", 2);
		put_fld(&pl, 14, meta, sizeof meta);
		put_hist(&pl, "k", 2, 2);
		put_fld(&pl, 999, "later", 5);
		put_hist(&pl, "bad", 3, 1);
		put_hist(&pl, "e", 0, 0);
	}
	put_rec(&file, 3, &pl);
	fp = fopen(path, "wb");
	if (fp) {
		fwrite(file.s, 1, file.len, fp);
		fclose(fp);
	}
	caps_ok = hist_ok = 0;
	nsamp = 0;
	if (rec_open_read(&rd, path, NULL, 0, err, sizeof err) == 0) {
		while (rec_next(&rd, &it) == 1) {
			if (it.type == REC_CAPS) {
				caps_ok = it.caps.ps_digest_hist;
				continue;
			}
			nsamp++;
			h = digest_set_hist(it.sample.digests, "k");
			hist_ok = it.sample.state == STATE_UP && it.sample.digests && it.sample.digests->nhist == 2 && h &&
				  h->n == 2 && h->b[1].num == 11 && h->b[1].count == 10 &&
				  digest_set_hist(it.sample.digests, "e") && digest_set_hist(it.sample.digests, "e")->n == 0 &&
				  !digest_set_hist(it.sample.digests, "bad");
			digest_set_free(it.sample.digests);
		}
		CHECK(rd.corrupt == 0 && nsamp == 1, "record p95: hand-made file read whole");
		rec_reader_close(&rd);
	}
	CHECK(caps_ok, "record p95: an unknown future CAPS flag bit is ignored");
	CHECK(hist_ok, "record p95: unknown field skipped, damaged histogram ignored, empty one kept");
	unlink(path);
	sb_free(&file);
	sb_free(&pl);

	/* a recording made before histograms: no capability, no histograms */
	{
		const char *src = __FILE__, *slash = strrchr(src, '/');
		char rpath[1024];
		str_printf(rpath, sizeof rpath, "%.*s/../../recordings/mariadb-commit-fsync.dbrec",
			   slash ? (int)(slash - src) : 1, slash ? src : ".");
		caps_ok = 1;
		hist_ok = 1;
		nsamp = 0;
		if (rec_open_read(&rd, rpath, NULL, 0, err, sizeof err) == 0) {
			while (rec_next(&rd, &it) == 1) {
				if (it.type == REC_CAPS)
					caps_ok &= !it.caps.ps_digest_hist;
				else if (it.sample.digests && ++nsamp && it.sample.digests->nhist)
					hist_ok = 0;
				if (it.type == REC_SAMPLE)
					sample_release(&it.sample);
			}
			rec_reader_close(&rd);
		}
		CHECK(nsamp > 10 && caps_ok && hist_ok,
		      tname("record p95: the bundled older recording reads (%d digest samples), no p95 capability", nsamp));
	}
	mysql_hist_pick_free(&pk);
	strset_clear(&texts);
	sb_free(&sql);
	fx_free(&f);
}

/* A large pg_stat_statements read one slice of queryids per refresh: a
 * row's rates cover the time since its slice was last read; rows of other
 * slices keep theirs; a row missing from its own slice is gone; a new row
 * counts from the last read of its slice. */
static void test_split_reads(void)
{
	struct digest_table t;
	digest_table_init(&t);
	CHECK(digest_key_slice("10:5:7:t", 2) == 1 && digest_key_slice("10:5:-7:t", 2) == 1 &&
		      digest_key_slice("10:5:-8:t", 4) == 0 && digest_key_slice("10:5:9:f", 4) == 1,
	      "split: slice = mod(mod(queryid, n) + n, n), as the server computes it");
	/* whole first read at t=100 */
	struct digest_set *s = set_new(false);
	row3(s, "10:5:1:t", 10, 10000000, 10);
	row3(s, "10:5:2:t", 20, 20000000, 20);
	row3(s, "10:5:3:t", 30, 30000000, 30);
	digest_table_update(&t, s, 1, true, 100);
	digest_set_free(s);
	/* slice 0 of 2 at t=101: only queryid 2 */
	s = set_new(false);
	s->split_n = 2;
	s->split_k = 0;
	row3(s, "10:5:2:t", 40, 40000000, 40);
	digest_table_update(&t, s, 1, false, 101);
	digest_set_free(s);
	const struct digest_entry *e2 = find(&t, "10:5:2:t"), *e1 = find(&t, "10:5:1:t"), *e3 = find(&t, "10:5:3:t");
	CHECK(e2 && near(e2->rate[DG_CALLS], 20), "split: a row of this slice: its delta over the time since it was read");
	CHECK(e1 && e3 && !e1->gone && !e3->gone && isnan(e1->rate[DG_CALLS]),
	      "split: rows of another slice are not gone and keep their (unknown) rates");
	/* slice 1 at t=102: queryid 1 moved, queryid 3 is missing (evicted), queryid 5 is new */
	s = set_new(false);
	s->split_n = 2;
	s->split_k = 1;
	row3(s, "10:5:1:t", 30, 30000000, 30);
	row3(s, "10:5:5:t", 8, 8000000, 8);
	digest_table_update(&t, s, 1, false, 102);
	digest_set_free(s);
	e1 = find(&t, "10:5:1:t");
	e2 = find(&t, "10:5:2:t");
	e3 = find(&t, "10:5:3:t");
	const struct digest_entry *e5 = find(&t, "10:5:5:t");
	CHECK(e1 && near(e1->rate[DG_CALLS], 10), "split: 20 calls over the 2 s since its slice was read = 10/s");
	CHECK(e2 && near(e2->rate[DG_CALLS], 20), "split: the other slice's row keeps its rate (20/s)");
	CHECK(e3 && isnan(e3->rate[DG_CALLS]) && !e3->known, "split: a row missing from its own slice contributes nothing");
	CHECK(e5 && near(e5->rate[DG_CALLS], 4), "split: a new row counts from its slice's last read (8 calls / 2 s)");
	CHECK(near(t.total_ms_per_s, 10 * 1 + 20 * 1 + 4 * 1), "split: the total sums every known row, read now or not");
	/* a reconnection: whole read again, every rate unknown */
	s = set_new(false);
	row3(s, "10:5:1:t", 31, 31000000, 31);
	digest_table_update(&t, s, 1, true, 103);
	digest_set_free(s);
	e1 = find(&t, "10:5:1:t");
	CHECK(e1 && isnan(e1->rate[DG_CALLS]), "split: after a reconnection the whole read starts over");
	digest_table_free(&t);
}

/* A sampled row: calls, total ns and samples, cumulative. */
static void sampled_row(struct digest_set *s, const char *key, uint64_t calls, uint64_t total_ns, uint64_t samples)
{
	struct digest_row *r = digest_set_add(s);
	str_copy(r->key, sizeof r->key, key);
	r->c[DG_CALLS] = calls;
	r->c[DG_TOTAL_NS] = total_ns;
	r->have = 1u << DG_CALLS | 1u << DG_TOTAL_NS;
	r->samples = samples;
}

/* Sampled sets: calls a lower bound where most executions were seen once,
 * the physics bound applied to whatever arrives. */
static void test_sampled(void)
{
	struct digest_table t;
	struct digest_set *a = xcalloc(1, sizeof *a), *b = xcalloc(1, sizeof *b);
	digest_table_init(&t);
	a->sampled = b->sampled = true;
	a->rounds = 100;
	b->rounds = 110;        /* 10 looks in the interval */
	a->sessions = b->sessions = 4;
	/* short: 10 executions seen, each once; long: 2 executions over 8 looks */
	sampled_row(a, "s:short", 50, 5000000000ull, 50);
	sampled_row(b, "s:short", 60, 6000000000ull, 60);
	sampled_row(a, "s:long", 10, 9000000000ull, 40);
	sampled_row(b, "s:long", 12, 9800000000ull, 48);
	digest_table_update(&t, a, 1, true, 100);
	digest_table_update(&t, b, 1, false, 101);
	const struct digest_entry *e[4];
	size_t n = digest_table_top(&t, DGS_TOTAL, false, e, 4);
	CHECK(n == 2 && t.rounds == 10 && t.sessions == 4, "sampled: 10 looks, 4 sessions this interval");
	for (size_t i = 0; i < n; i++) {
		if (strcmp(e[i]->last.key, "s:short") == 0)
			CHECK(e[i]->calls_lower && isnan(e[i]->avg_ms) && e[i]->samples == 10,
			      "sampled: seen once per execution: calls a lower bound, no average, 10 samples");
		else
			CHECK(!e[i]->calls_lower && fabs(e[i]->avg_ms - 400) < 1e-6 && e[i]->samples == 8,
			      "sampled: 4 looks per execution: calls and average (400 ms) estimated");
	}
	CHECK(t.bound_scale == 1 && fabs(t.total_ms_per_s - 1800) < 1e-6, "sampled: 1800 ms/s with 4 sessions: no bound");
	/* a set claiming more than its sessions can spend is brought down */
	struct digest_set *c = digest_set_dup(b);
	c->rounds = 120;
	c->sessions = 1;
	c->rows[0].c[DG_TOTAL_NS] += 3000000000ull;
	c->rows[0].samples += 10;
	digest_table_update(&t, c, 1, false, 102);
	CHECK(fabs(t.total_ms_per_s - 1000) < 1e-6 && fabs(t.bound_scale - 1.0 / 3) < 1e-9,
	      "sampled: 3000 ms/s from 1 session scaled to 1000");
	CHECK(fabs(dg_sampled_bound(3000, 0, 2) - 2.0 / 3) < 1e-12 && dg_sampled_bound(500, 0, 2) == 1 &&
	      fabs(dg_sampled_bound(1500, 1000, 2) - 2.0 / 3) < 1e-12 && dg_sampled_bound(10, 5000, 2) == 0 &&
	      dg_sampled_bound(1e9, 0, 0) == 1, "dg_sampled_bound: room left by exact time, unknown sessions");
	char hz[16];
	dg_fmt_hz(hz, sizeof hz, 0.673456);
	CHECK(strcmp(hz, "0.67") == 0, "dg_fmt_hz: 0.67, not 0.673456");
	dg_fmt_hz(hz, sizeof hz, 9.96);
	CHECK(strcmp(hz, "10") == 0, "dg_fmt_hz: 10");
	digest_set_free(a);
	digest_set_free(b);
	digest_set_free(c);
	digest_table_free(&t);
}

int main(void)
{
	test_sampled();
	test_split_reads();
	have_python = system("command -v python3 >/dev/null 2>&1") == 0;
	/* 1. the delta table */
	test_first_appearance();
	test_steady();
	test_finished_bound();
	test_finished_bound_json();
	test_counter_down();
	test_epoch();
	test_partial();
	test_full_gone();
	test_fresh_reconnect();
	test_null_set();
	test_lost();
	test_top();
	test_text();
	test_growth();
	test_evict();
	test_history();
	test_set_memory();
	/* 2. mappers, queries and recorded rows */
	test_mysql_sql();
	test_mysql80();
	test_mariadb();
	test_mysql_cells();
	test_pg_sql();
	test_pg_map_numbers();
	test_pg_changes();
	test_pg13();
	test_pg15();
	test_pg_own();
	test_pg17();
	test_pg18();
	/* 3. JSON */
	test_json_mysql();
	test_json_none();
	test_json_text();
	/* 4. per-interval p95 (MySQL 8 histograms) */
	test_hist_p95();
	test_hist_table();
	test_mysql_hist();
	test_hist_output();
	test_hist_record();
	return TAP_DONE();
}
