/* test_ring_model.c - the history ring and the counters-to-rates model:
 * first sample, exact Δ/Δt, resets, DOWN and reconnection, unavailable
 * counters, ratios, averages, dbtop's own commits, history and settings. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../model/model.h"
#include "../../model/ring.h"
#include "../../util/util.h"
#include "tap.h"

static char name_buf[160];

/* "PREFIX N" as a check name (valid until the next call). */
static const char *nm(const char *prefix, int i)
{
	snprintf(name_buf, sizeof name_buf, "%s %d", prefix, i);
	return name_buf;
}

/* Slots only once a value is known; the unknown ones before read NaN. */
static void test_ring_lazy(void)
{
	struct ring r, c;
	ring_init(&r, 5);
	for (int i = 0; i < 7; i++)
		ring_push(&r, NAN);
	ring_set_last(&r, NAN);
	CHECK(!r.v && r.len == 5 && isnan(ring_get(&r, 0)) && isnan(ring_get(&r, 4)),
	      "ring: unknown values only take no slots, and read NaN");
	ring_init(&c, 5);
	ring_push(&c, 1);
	ring_copy(&c, &r, 1);
	CHECK(!c.v && c.len == 4 && isnan(ring_get(&c, 0)), "ring: a copy of an all-unknown ring drops its slots");
	ring_push(&r, 9);
	CHECK(r.v && r.len == 5 && ring_get(&r, 0) == 9 && isnan(ring_get(&r, 1)) && isnan(ring_get(&r, 4)),
	      "ring: the first known value takes the slots, the values before it NaN");
	ring_push(&r, NAN);
	ring_set_last(&r, 3);
	ring_copy(&c, &r, 1);
	CHECK(c.v && c.len == 4 && ring_get(&c, 0) == 9 && isnan(ring_get(&c, 1)), "ring: a copy without the newest");
	ring_free(&c);
	ring_init(&c, 3);
	ring_copy(&c, &r, 0);
	CHECK(c.len == 3 && ring_get(&c, 0) == 3 && ring_get(&c, 1) == 9 && isnan(ring_get(&c, 2)),
	      "ring: a copy into a smaller ring keeps the newest");
	ring_free(&c);
	ring_free(&r);
}

/* Values as floats, times exact: an interval between two wall-clock
 * times of today is the difference of two exact doubles (a float holds
 * 1.7e9 only to 128 s). */
static void test_ring_exact(void)
{
	struct ring t, v, c;
	ring_init_exact(&t, 4);
	ring_init(&v, 4);
	ring_push(&t, 1764720000.25);
	ring_push(&t, 1764720001.5);
	ring_push(&v, 1234.5678);
	CHECK(t.dv && !t.v && ring_get(&t, 0) - ring_get(&t, 1) == 1.25,
	      "ring exact: the interval between two clock times is exact");
	CHECK(v.v && !v.dv && fabs(ring_get(&v, 0) - 1234.5678) < 1e-3 && ring_get(&v, 0) != 1234.5678,
	      "ring: a metric's value is kept to a float's precision");
	ring_init_exact(&c, 4);
	ring_copy(&c, &t, 0);
	CHECK(c.dv && c.len == 2 && ring_get(&c, 1) == 1764720000.25, "ring exact: a copy keeps the exact values");
	ring_free(&c);
	ring_init(&c, 3);
	ring_copy(&c, &t, 0);
	CHECK(c.len == 2 && fabs(ring_get(&c, 0) - 1764720001.5) < 200, "ring: an exact ring copied into a float one");
	ring_free(&c);
	ring_free(&t);
	ring_free(&v);
}

static void test_ring(void)
{
	struct ring r;
	int i, ok;

	ring_init(&r, 4);
	CHECK(r.len == 0 && isnan(ring_get(&r, 0)), "ring: empty ring gives NaN");
	ring_push(&r, 1);
	ring_push(&r, 2);
	ring_push(&r, 3);
	CHECK(r.len == 3, "ring: len counts pushes below cap");
	CHECK(ring_get(&r, 0) == 3 && ring_get(&r, 1) == 2 && ring_get(&r, 2) == 1,
	      "ring: newest first");
	CHECK(isnan(ring_get(&r, 3)), "ring: NaN beyond len");
	ring_push(&r, 4);
	ring_push(&r, 5);
	ring_push(&r, 6);
	CHECK(r.len == 4, "ring: len capped after wrap-around");
	CHECK(ring_get(&r, 0) == 6 && ring_get(&r, 1) == 5 && ring_get(&r, 2) == 4 &&
	      ring_get(&r, 3) == 3, "ring: wrap-around keeps the newest cap values");
	CHECK(isnan(ring_get(&r, 4)) && isnan(ring_get(&r, 1000)), "ring: NaN beyond cap");
	ring_push(&r, NAN);
	CHECK(isnan(ring_get(&r, 0)) && ring_get(&r, 1) == 6, "ring: NaN stored as a value");
	ring_free(&r);

	ring_init(&r, 1);
	ring_push(&r, 7);
	ring_push(&r, 8);
	CHECK(r.len == 1 && ring_get(&r, 0) == 8 && isnan(ring_get(&r, 1)), "ring: cap 1 keeps the newest");
	ring_free(&r);

	ring_init(&r, 600);
	for (i = 0; i < 1500; i++)
		ring_push(&r, i);
	ok = r.len == 600;
	for (i = 0; i < 600; i++)
		if (ring_get(&r, (size_t)i) != 1499 - i)
			ok = 0;
	CHECK(ok, "ring: 600 slots after 1500 pushes hold the newest 600 in order");
	ring_free(&r);
	test_ring_lazy();
	test_ring_exact();
}

/* Caps of a connection to engine e. */
static void make_caps(struct caps *c, enum engine e)
{
	memset(c, 0, sizeof *c);
	c->engine = e;
	c->flavour = e == ENGINE_MYSQL ? FLAVOUR_MYSQL : FLAVOUR_POSTGRESQL;
	str_copy(c->version, sizeof c->version, e == ENGINE_MYSQL ? "8.0.36" : "17.2");
}

/* A model of 16 intervals with the caps of a connection to engine e. */
static void model_for(struct model *m, enum engine e)
{
	struct caps c;
	make_caps(&c, e);
	model_init(m, 16);
	model_set_caps(m, &c);
}

/* An UP sample at monotonic time t on connection gen. */
static void up(struct sample *s, double t, uint32_t gen)
{
	memset(s, 0, sizeof *s);
	s->state = STATE_UP;
	s->mono = t;
	s->wall = 1764400000.0 + t;
	s->conn_gen = gen;
}

static void test_first_and_rates(void)
{
	struct model m;
	struct sample s;

	model_for(&m, ENGINE_MYSQL);
	CHECK(m.have_caps && m.caps.engine == ENGINE_MYSQL, "model: caps adopted");

	up(&s, 100.0, 1);
	sample_set(&s, CTR_COMMITS, 1000, 0);
	sample_set(&s, CTR_ROLLBACKS, 10, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_INIT && isnan(m.cur[M_COMMITS].v), "model: first sample -> INIT, NaN");
	CHECK(m.cur[M_FSYNCS].st == RATE_UNAVAIL, "model: first sample, missing counter -> UNAVAIL");
	CHECK(isnan(m.interval_s), "model: no interval after first sample");
	CHECK(isnan(ring_get(&m.hist[M_COMMITS], 0)) && m.hist[M_COMMITS].len == 1,
	      "model: first sample pushes NaN into history");

	up(&s, 101.0, 1);
	sample_set(&s, CTR_COMMITS, 1200, 0);
	sample_set(&s, CTR_ROLLBACKS, 13, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_OK, "model: second sample -> OK");
	CHECK(m.cur[M_COMMITS].v == 200.0, "model: 200 commits over 1 s = 200/s exactly");
	CHECK(m.cur[M_ROLLBACKS].v == 3.0, "model: rollbacks 3 over 1 s");
	CHECK(m.interval_s == 1.0, "model: interval_s = 1");
	CHECK(ring_get(&m.hist[M_COMMITS], 0) == 200.0, "model: history holds the new rate");

	up(&s, 103.0, 1);
	sample_set(&s, CTR_COMMITS, 1400, 0);
	sample_set(&s, CTR_ROLLBACKS, 13, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].v == 100.0, "model: 200 commits over 2 s = 100/s exactly");
	CHECK(m.cur[M_ROLLBACKS].st == RATE_OK && m.cur[M_ROLLBACKS].v == 0.0, "model: no change -> 0, OK");
	CHECK(m.cur[M_FSYNCS].st == RATE_UNAVAIL && isnan(m.cur[M_FSYNCS].v),
	      "model: counter never present -> UNAVAIL, NaN");

	/* counter goes down */
	up(&s, 104.0, 1);
	sample_set(&s, CTR_COMMITS, 50, 0);
	sample_set(&s, CTR_ROLLBACKS, 14, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_RESET, "model: counter went down -> RESET");
	CHECK(isnan(m.cur[M_COMMITS].v), "model: RESET value is NaN (never negative)");
	CHECK(isnan(ring_get(&m.hist[M_COMMITS], 0)), "model: RESET pushes NaN into history");
	CHECK(m.cur[M_ROLLBACKS].st == RATE_OK && m.cur[M_ROLLBACKS].v == 1.0,
	      "model: other counters unaffected by one counter's reset");

	up(&s, 105.0, 1);
	sample_set(&s, CTR_COMMITS, 80, 0);
	sample_set(&s, CTR_ROLLBACKS, 14, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_OK && m.cur[M_COMMITS].v == 30.0,
	      "model: interval after a reset is OK again");

	/* epoch change with counters going up */
	up(&s, 106.0, 1);
	sample_set(&s, CTR_COMMITS, 500000, 1);
	sample_set(&s, CTR_ROLLBACKS, 20, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_RESET && isnan(m.cur[M_COMMITS].v),
	      "model: epoch change -> RESET even if counter grew");
	up(&s, 107.0, 1);
	sample_set(&s, CTR_COMMITS, 500010, 1);
	sample_set(&s, CTR_ROLLBACKS, 20, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_OK && m.cur[M_COMMITS].v == 10.0,
	      "model: same epoch afterwards -> OK");

	/* counter disappears, then reappears */
	up(&s, 108.0, 1);
	sample_set(&s, CTR_ROLLBACKS, 20, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_UNAVAIL && isnan(m.cur[M_COMMITS].v),
	      "model: counter missing in this sample -> UNAVAIL");
	up(&s, 109.0, 1);
	sample_set(&s, CTR_COMMITS, 600000, 1);
	sample_set(&s, CTR_ROLLBACKS, 20, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_INIT, "model: counter back after a gap -> INIT");
	CHECK(m.intervals == 9, "model: intervals counts model_update calls");
	model_free(&m);
}

static void test_down_reconnect(void)
{
	struct model m;
	struct sample s;
	int i, all_down = 1, all_nan = 1;

	model_for(&m, ENGINE_MYSQL);
	up(&s, 10.0, 1);
	sample_set(&s, CTR_COMMITS, 100, 0);
	sample_set(&s, CTR_FSYNCS, 100, 0);
	model_update(&m, &s);
	up(&s, 11.0, 1);
	sample_set(&s, CTR_COMMITS, 150, 0);
	sample_set(&s, CTR_FSYNCS, 175, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_FSYNCS_PER_COMMIT].st == RATE_OK && m.cur[M_FSYNCS_PER_COMMIT].v == 1.5,
	      "model: fsyncs_per_commit = 75/50");

	memset(&s, 0, sizeof s);
	s.state = STATE_DOWN;
	s.mono = 12.0;
	s.wall = 1764400012.0;
	s.conn_gen = 1;
	str_copy(s.error, sizeof s.error, "connection refused");
	model_update(&m, &s);
	for (i = 0; i < M__COUNT; i++) {
		if (m.cur[i].st != RATE_DOWN)
			all_down = 0;
		if (!isnan(m.cur[i].v) || !isnan(ring_get(&m.hist[i], 0)))
			all_nan = 0;
	}
	CHECK(all_down, "model: DOWN sample -> every metric RATE_DOWN");
	CHECK(all_nan, "model: DOWN sample -> every value and history slot NaN");
	CHECK(isnan(m.interval_s), "model: DOWN -> interval_s NaN");
	CHECK(m.last.state == STATE_DOWN, "model: last holds the DOWN sample");

	memset(&s, 0, sizeof s);
	s.state = STATE_STALLED;
	s.mono = 13.0;
	s.conn_gen = 1;
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_DOWN, "model: STALLED sample -> RATE_DOWN");

	/* reconnected: counters jumped by millions, new conn_gen */
	up(&s, 20.0, 2);
	sample_set(&s, CTR_COMMITS, 9000000, 0);
	sample_set(&s, CTR_FSYNCS, 9500000, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_INIT && isnan(m.cur[M_COMMITS].v),
	      "model: new conn_gen after DOWN -> INIT, no spike");
	CHECK(m.cur[M_FSYNCS].st == RATE_INIT, "model: new conn_gen -> fsyncs INIT");
	CHECK(m.cur[M_FSYNCS_PER_COMMIT].st == RATE_INIT, "model: new conn_gen -> ratio INIT");
	CHECK(isnan(ring_get(&m.hist[M_COMMITS], 0)), "model: no spike in history after reconnect");

	up(&s, 21.0, 2);
	sample_set(&s, CTR_COMMITS, 9000040, 0);
	sample_set(&s, CTR_FSYNCS, 9500020, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_OK && m.cur[M_COMMITS].v == 40.0,
	      "model: second sample after reconnect -> OK");
	CHECK(m.cur[M_FSYNCS_PER_COMMIT].st == RATE_OK && m.cur[M_FSYNCS_PER_COMMIT].v == 0.5,
	      "model: ratio OK after reconnect");

	/* reconnection without a DOWN in between (new conn_gen only) */
	up(&s, 22.0, 3);
	sample_set(&s, CTR_COMMITS, 1, 0);
	sample_set(&s, CTR_FSYNCS, 1, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_INIT, "model: conn_gen change alone -> INIT");
	model_free(&m);
}

static void test_ratio_avg(void)
{
	struct model m;
	struct caps c;
	struct sample s;

	model_init(&m, 8);
	make_caps(&c, ENGINE_POSTGRESQL);
	model_set_caps(&m, &c);
	up(&s, 0.0, 1);
	sample_set(&s, CTR_COMMITS, 0, 7);
	sample_set(&s, CTR_FSYNCS, 100, 7);
	sample_set(&s, CTR_WAL_SYNCS, 100, 7);
	sample_set(&s, CTR_WAL_SYNC_NS, 1000000, 7);
	sample_set(&s, CTR_WAL_WRITES, 50, 7);
	sample_set(&s, CTR_WAL_BYTES, 0, 7);
	model_update(&m, &s);
	CHECK(m.cur[M_WAL_SYNC_MS].st == RATE_INIT, "model: AVG_MS first sample -> INIT");
	CHECK(m.cur[M_WAL_WRITE_MS].st == RATE_UNAVAIL, "model: AVG_MS without ns counter -> UNAVAIL");

	up(&s, 2.0, 1);
	sample_set(&s, CTR_COMMITS, 400, 7);
	sample_set(&s, CTR_FSYNCS, 110, 7);
	sample_set(&s, CTR_WAL_SYNCS, 110, 7);
	sample_set(&s, CTR_WAL_SYNC_NS, 6000000, 7);
	sample_set(&s, CTR_WAL_WRITES, 60, 7);
	sample_set(&s, CTR_WAL_BYTES, 819200, 7);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].v == 200.0, "model: PG commits 400 over 2 s");
	CHECK_NEAR(m.cur[M_FSYNCS_PER_COMMIT].v, 5.0 / 200.0, 1e-12,
		   "model: fsyncs_per_commit = fsyncs rate / commits rate");
	CHECK(m.cur[M_WAL_SYNC_MS].st == RATE_OK, "model: AVG_MS OK");
	CHECK_NEAR(m.cur[M_WAL_SYNC_MS].v, 0.5, 1e-12, "model: 5,000,000 ns over 10 syncs = 0.5 ms");
	CHECK(m.cur[M_WAL_WRITE_MS].st == RATE_UNAVAIL, "model: AVG_MS still UNAVAIL without ns");
	CHECK_NEAR(m.cur[M_WAL_BYTES_PER_COMMIT].v, 2048.0, 1e-9, "model: wal_bytes_per_commit = 819200/400");

	/* no commits and no syncs in this interval */
	up(&s, 3.0, 1);
	sample_set(&s, CTR_COMMITS, 400, 7);
	sample_set(&s, CTR_FSYNCS, 112, 7);
	sample_set(&s, CTR_WAL_SYNCS, 110, 7);
	sample_set(&s, CTR_WAL_SYNC_NS, 6000000, 7);
	sample_set(&s, CTR_WAL_WRITES, 60, 7);
	sample_set(&s, CTR_WAL_BYTES, 819200, 7);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_OK && m.cur[M_COMMITS].v == 0.0, "model: zero commits -> 0, OK");
	CHECK(m.cur[M_FSYNCS_PER_COMMIT].st == RATE_UNDEF && isnan(m.cur[M_FSYNCS_PER_COMMIT].v),
	      "model: ratio with zero commits -> UNDEF, NaN");
	CHECK(m.cur[M_WAL_SYNC_MS].st == RATE_UNDEF && isnan(m.cur[M_WAL_SYNC_MS].v),
	      "model: AVG_MS with zero syncs -> UNDEF");
	CHECK(isnan(ring_get(&m.hist[M_FSYNCS_PER_COMMIT], 0)), "model: UNDEF pushes NaN into history");

	/* the ratio's numerator unavailable */
	up(&s, 4.0, 1);
	sample_set(&s, CTR_COMMITS, 500, 7);
	sample_set(&s, CTR_WAL_SYNCS, 120, 7);
	sample_set(&s, CTR_WAL_SYNC_NS, 7000000, 7);
	model_update(&m, &s);
	CHECK(m.cur[M_FSYNCS].st == RATE_UNAVAIL, "model: fsyncs missing -> UNAVAIL");
	CHECK(m.cur[M_FSYNCS_PER_COMMIT].st == RATE_UNAVAIL, "model: ratio of an UNAVAIL metric -> UNAVAIL");
	CHECK_NEAR(m.cur[M_WAL_SYNC_MS].v, 0.1, 1e-12, "model: 1,000,000 ns over 10 syncs = 0.1 ms");

	/* a reset of the ns counter only */
	up(&s, 5.0, 1);
	sample_set(&s, CTR_COMMITS, 600, 7);
	sample_set(&s, CTR_WAL_SYNCS, 130, 7);
	sample_set(&s, CTR_WAL_SYNC_NS, 10, 7);
	model_update(&m, &s);
	CHECK(m.cur[M_WAL_SYNC_MS].st == RATE_RESET, "model: AVG_MS with ns counter going down -> RESET");
	model_free(&m);
}

/* Feed deltas of commits and own commits with dt = 1; returns the rates. */
static void net_run(struct model *m, const int *dc, const int *down, int n, double *out,
		    uint64_t *commits, uint64_t *own, double *t)
{
	struct sample s;
	int i;
	for (i = 0; i < n; i++) {
		*commits += (uint64_t)dc[i];
		*own += (uint64_t)down[i];
		*t += 1.0;
		up(&s, *t, 1);
		sample_set(&s, CTR_COMMITS, *commits, 0);
		sample_set(&s, CTR_OWN_COMMITS, *own, 0);
		model_update(m, &s);
		out[i] = m->cur[M_COMMITS].st == RATE_OK ? m->cur[M_COMMITS].v : NAN;
	}
}

static void test_net(void)
{
	struct model m;
	struct caps c;
	struct sample s;
	uint64_t commits = 5000, own = 3;
	double t = 0, r[2000], sum;
	int dc[2000], dn[2000], i, neg, nan_seen;

	model_init(&m, 8);
	make_caps(&c, ENGINE_POSTGRESQL);
	model_set_caps(&m, &c);
	up(&s, t, 1);
	sample_set(&s, CTR_COMMITS, commits, 0);
	sample_set(&s, CTR_OWN_COMMITS, own, 0);
	model_update(&m, &s);

	dc[0] = 201;
	dn[0] = 1;
	net_run(&m, dc, dn, 1, r, &commits, &own, &t);
	CHECK(r[0] == 200.0, "net: Δcommits 201, Δown 1 -> 200/s");

	/* own transaction counted one interval late */
	dc[0] = 0;
	dn[0] = 1;
	dc[1] = 2;
	dn[1] = 1;
	net_run(&m, dc, dn, 2, r, &commits, &own, &t);
	CHECK(r[0] == 0.0, "net: Δcommits 0, Δown 1 -> 0 (not negative)");
	CHECK(r[1] == 0.0, "net: late own commit next interval -> 0, not 1");

	/* long idle run, own counted late with jitter */
	for (i = 0; i < 1000; i++) {
		static const int pat[] = {0, 2, 1, 1, 0, 2, 1, 1, 1, 0, 1, 2};
		dc[i] = pat[i % 12];
		dn[i] = 1;
	}
	net_run(&m, dc, dn, 1000, r, &commits, &own, &t);
	sum = 0;
	neg = 0;
	nan_seen = 0;
	for (i = 0; i < 1000; i++) {
		if (isnan(r[i]))
			nan_seen = 1;
		else if (r[i] < 0)
			neg = 1;
		else
			sum += r[i];
	}
	CHECK(!neg, "net: idle run never negative");
	CHECK(!nan_seen, "net: idle run always OK");
	CHECK(sum / 1000 < 0.01, "net: idle run average stays ~0");

	/* load of 50/s with own commits counted late */
	for (i = 0; i < 1000; i++) {
		dc[i] = 50 + (i == 0 ? 0 : 1);
		dn[i] = 1;
	}
	net_run(&m, dc, dn, 1000, r, &commits, &own, &t);
	sum = 0;
	for (i = 0; i < 1000; i++)
		sum += r[i];
	CHECK_NEAR(sum / 1000, 50.0, 0.01, "net: load 50/s average equals the load rate");
	CHECK(r[999] == 50.0, "net: steady load reads exactly 50/s");

	/* load of 50/s with own commits counted on time */
	for (i = 0; i < 100; i++) {
		dc[i] = 51;
		dn[i] = 1;
	}
	net_run(&m, dc, dn, 100, r, &commits, &own, &t);
	neg = 0;
	for (i = 0; i < 100; i++)
		if (r[i] != 50.0)
			neg = 1;
	CHECK(!neg, "net: own counted on time -> exactly the load");

	/* own counter missing: commits taken as they are */
	t += 1;
	commits += 30;
	up(&s, t, 1);
	sample_set(&s, CTR_COMMITS, commits, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_OK && m.cur[M_COMMITS].v == 30.0,
	      "net: own counter absent -> plain rate");
	model_free(&m);

	/* a deficit left by the old connection must not be charged to the
	 * new one: its late own commit fell into the interval spanning the
	 * reconnection, which was never computed */
	model_init(&m, 8);
	model_set_caps(&m, &c);
	up(&s, 0, 1);
	sample_set(&s, CTR_COMMITS, 100, 0);
	sample_set(&s, CTR_OWN_COMMITS, 1, 0);
	model_update(&m, &s);
	up(&s, 1, 1);
	sample_set(&s, CTR_COMMITS, 100, 0);
	sample_set(&s, CTR_OWN_COMMITS, 2, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].v == 0.0, "net: own commit pending at disconnect");
	up(&s, 5, 2);
	sample_set(&s, CTR_COMMITS, 101, 0);
	sample_set(&s, CTR_OWN_COMMITS, 1, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_INIT, "net: reconnect -> INIT");
	up(&s, 6, 2);
	sample_set(&s, CTR_COMMITS, 202, 0);
	sample_set(&s, CTR_OWN_COMMITS, 2, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_OK && m.cur[M_COMMITS].v == 100.0,
	      "net: after reconnect, Δcommits 101 Δown 1 -> 100 (no carry from the old connection)");
	model_free(&m);
}

static void test_history_settings(void)
{
	struct model m;
	struct caps c;
	struct sample s;
	int i, ok;

	model_init(&m, 600);
	make_caps(&c, ENGINE_MYSQL);
	model_set_caps(&m, &c);
	for (i = 0; i < 700; i++) {
		up(&s, i, 1);
		sample_set(&s, CTR_COMMITS, (uint64_t)i * (uint64_t)i, 0);
		model_update(&m, &s);
	}
	CHECK(m.hist[M_COMMITS].len == 600, "history: 600 intervals kept after 700 updates");
	CHECK(m.hist_t.len == 600, "history: 600 timestamps kept");
	ok = 1;
	for (i = 0; i < 600; i++)
		if (ring_get(&m.hist[M_COMMITS], (size_t)i) != 2.0 * (699 - i) - 1)
			ok = 0;
	CHECK(ok, "history: each slot holds its interval's rate, newest first");
	CHECK(ring_get(&m.hist_t, 0) == 1764400000.0 + 699, "history: newest timestamp is the last wall time");
	CHECK(isnan(ring_get(&m.hist[M_FSYNCS], 0)) && m.hist[M_FSYNCS].len == 600,
	      "history: unknown metric stored as NaN each interval");
	model_free(&m);

	model_init(&m, 5);
	model_set_caps(&m, &c);
	for (i = 0; i < 3; i++) {
		up(&s, i, 1);
		sample_set(&s, CTR_COMMITS, 10, 0);
		model_update(&m, &s);
		CHECK(m.hist[M_COMMITS].len == (size_t)i + 1 && m.hist_t.len == (size_t)i + 1,
		      nm("history: one value per model_update, update", i + 1));
	}

	/* settings */
	up(&s, 10, 1);
	s.settings_fresh = true;
	sample_setting(&s, "sync_binlog", "1");
	sample_setting(&s, "innodb_flush_log_at_trx_commit", "2");
	model_update(&m, &s);
	CHECK(m.nsettings == 2 && strcmp(m.settings[1].value, "2") == 0, "settings: copied when fresh");
	up(&s, 11, 1);
	s.settings_fresh = false;
	sample_setting(&s, "sync_binlog", "0");
	model_update(&m, &s);
	CHECK(m.nsettings == 2 && strcmp(m.settings[0].value, "1") == 0,
	      "settings: kept when the sample's settings are not fresh");
	up(&s, 12, 1);
	s.settings_fresh = true;
	sample_setting(&s, "sync_binlog", "0");
	model_update(&m, &s);
	CHECK(m.nsettings == 1 && strcmp(m.settings[0].value, "0") == 0, "settings: replaced when fresh again");
	model_free(&m);
}

/* A summary read every few refreshes (sample.ctr_paced): its counters are
 * left out of the samples between; the rates stand with their age, and the
 * next reading's rate spans from the last one. A counter missing without
 * ctr_paced is still unavailable. */
static void paced_sample(struct sample *s, double t, uint64_t commits, bool stmts, uint64_t n, uint64_t ns)
{
	up(s, t, 1);
	sample_set(s, CTR_COMMITS, commits, 0);
	s->ctr_paced = !stmts;
	if (stmts) {
		sample_set(s, CTR_COMMIT_STMTS, n, 0);
		sample_set(s, CTR_COMMIT_NS, ns, 0);
		sample_set(s, CTR_STMTS, 10 * n, 0);
		sample_set(s, CTR_OWN_STMTS, 2 * n, 0);
	}
}

static void test_paced(void)
{
	struct model m;
	struct sample s;

	model_for(&m, ENGINE_MYSQL);
	paced_sample(&s, 0, 100, true, 10, 10000000);
	model_update(&m, &s);
	paced_sample(&s, 1, 200, true, 20, 30000000);   /* 10 COMMITs, 20 ms: 2 ms each */
	model_update(&m, &s);
	CHECK_NEAR(m.cur[M_COMMIT_MS].v, 2.0, 1e-9, "paced: read at both refreshes -> 2 ms");
	CHECK(m.age_s[M_COMMIT_MS] == 0, "paced: read now -> age 0");
	paced_sample(&s, 2, 300, false, 0, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMIT_MS].st == RATE_OK && fabs(m.cur[M_COMMIT_MS].v - 2.0) < 1e-9,
	      "paced: left out on purpose -> the last rate stands");
	CHECK_NEAR(m.age_s[M_COMMIT_MS], 1.0, 1e-9, "paced: its age is 1 s");
	CHECK(m.cur[M_COMMITS].st == RATE_OK && m.cur[M_COMMITS].v == 100.0, "paced: the status counters stay exact");
	CHECK(m.age_s[M_COMMITS] == 0, "paced: commits/s is this refresh's");
	paced_sample(&s, 3, 400, false, 0, 0);
	model_update(&m, &s);
	CHECK_NEAR(m.age_s[M_COMMIT_MS], 2.0, 1e-9, "paced: 2 s old at the next refresh");
	paced_sample(&s, 4, 500, true, 50, 150000000);   /* 30 COMMITs in 3 s, 120 ms: 4 ms each */
	model_update(&m, &s);
	CHECK_NEAR(m.cur[M_COMMIT_MS].v, 4.0, 1e-9, "paced: the next reading spans the 3 s since the last");
	CHECK_NEAR(m.cur[M_STMTS].v, (500.0 - 200 - (100 - 40)) / 3, 1e-9,
		   "paced: statements/s net of dbtop's own over the 3 s");
	CHECK(m.age_s[M_COMMIT_MS] == 0, "paced: read again -> age 0");
	CHECK(model_counter(&m, CTR_COMMIT_STMTS)->v == 50, "paced: model_counter gives the reading");
	up(&s, 5, 1);   /* missing without ctr_paced: unavailable */
	sample_set(&s, CTR_COMMITS, 600, 0);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMIT_MS].st == RATE_UNAVAIL, "paced: missing without ctr_paced -> UNAVAIL");
	model_free(&m);
}

static void test_applies(void)
{
	struct model m;
	struct caps c;

	model_init(&m, 2);
	make_caps(&c, ENGINE_MYSQL);
	model_set_caps(&m, &c);
	CHECK(model_metric_applies(&m, M_COM_COMMIT), "applies: com_commit for mysql");
	CHECK(model_metric_applies(&m, M_BINLOG_FSYNCS), "applies: binlog fsyncs for mysql");
	CHECK(!model_metric_applies(&m, M_WAL_SYNCS), "applies: no wal_syncs for mysql");
	CHECK(!model_metric_applies(&m, M_WAL_BYTES), "applies: no wal_bytes for mysql");
	CHECK(model_metric_applies(&m, M_COMMITS) && model_metric_applies(&m, M_FSYNCS_PER_COMMIT),
	      "applies: commits and fsyncs_per_commit for mysql");
	make_caps(&c, ENGINE_POSTGRESQL);
	model_set_caps(&m, &c);
	CHECK(!model_metric_applies(&m, M_COM_COMMIT), "applies: no com_commit for pg");
	CHECK(!model_metric_applies(&m, M_REDO_FSYNCS), "applies: no redo fsyncs for pg");
	CHECK(model_metric_applies(&m, M_WAL_SYNCS) && model_metric_applies(&m, M_WAL_SYNC_MS),
	      "applies: wal syncs for pg");
	CHECK(model_metric_applies(&m, M_COMMITS), "applies: commits for pg");
	CHECK_STR(rate_status_name(RATE_RESET), "reset", "rate_status_name: reset");
	CHECK_STR(rate_status_name(RATE_UNAVAIL), "unavailable", "rate_status_name: unavailable");
	model_free(&m);
}

/* Benchmark runs (seed 002): a run starts every 5 s (Com_create_db) with
 * 400 fsyncs/s, then every 0.5 s with 20 fsyncs/s: per run 5 s and 2,000
 * fsyncs, then 0.5 s and 10 fsyncs, from the counters alone. */
static void run_sample(struct model *m, double t, uint64_t runs, uint64_t fsyncs)
{
	struct sample s;
	up(&s, t, 1);
	sample_set(&s, CTR_CREATE_DB, runs, 0);
	sample_set(&s, CTR_FSYNCS, fsyncs, 0);
	model_update(m, &s);
}

static void test_runs(void)
{
	struct model m;
	struct caps c;
	uint64_t f = 0, runs = 0;
	int t;
	model_init(&m, 120);
	make_caps(&c, ENGINE_MYSQL);
	model_set_caps(&m, &c);
	run_sample(&m, 0, 0, 0);
	run_sample(&m, 1, 0, 0);
	CHECK(m.cur[M_RUN_S].st == RATE_UNDEF && !m.runs.seen, "runs: none yet: undefined, not seen");
	/* starts at t = 2.5, 7.5, 12.5 ... (inside the interval ending at 3, 8, 13 ...) */
	for (t = 2; t <= 30; t++) {
		f += 400;
		if (t % 5 == 3)
			runs++;
		run_sample(&m, t, runs, f);
		if (t == 3)
			CHECK(m.runs.seen && m.cur[M_RUN_S].st == RATE_UNDEF, "runs: one start seen: no per-run figure yet");
	}
	CHECK(m.cur[M_RUN_S].st == RATE_OK && fabs(m.cur[M_RUN_S].v - 5.0) < 0.01,
	      nm("runs: 5 s per run from the counters, x100:", (int)(m.cur[M_RUN_S].v * 100)));
	CHECK(m.cur[M_RUN_FSYNCS].st == RATE_OK && fabs(m.cur[M_RUN_FSYNCS].v - 2000) < 1,
	      nm("runs: 2,000 fsyncs per run:", (int)m.cur[M_RUN_FSYNCS].v));
	CHECK(m.runs.runs >= RUN_MIN_RUNS, "runs: the window holds at least RUN_MIN_RUNS runs");
	/* faster runs, fewer fsyncs: two starts a second */
	for (t = 31; t <= 40; t++) {
		f += 20;
		runs += 2;
		run_sample(&m, t, runs, f);
	}
	CHECK(fabs(m.cur[M_RUN_S].v - 0.5) < 0.01, nm("runs: then 0.5 s per run, x100:", (int)(m.cur[M_RUN_S].v * 100)));
	CHECK(fabs(m.cur[M_RUN_FSYNCS].v - 10) < 0.01, nm("runs: then 10 fsyncs per run, x100:",
							     (int)(m.cur[M_RUN_FSYNCS].v * 100)));
	double mx = 0;
	for (size_t i = 0; i < 40; i++)
		if (ring_get(&m.hist[M_RUN_FSYNCS], i) > mx)
			mx = ring_get(&m.hist[M_RUN_FSYNCS], i);
	CHECK(fabs(mx - 2000) < 1, "runs: the history keeps the before (2,000) beside the after (10)");
	/* runs stop: no figure once no run started for twice a run and
	 * RUN_STALE_S (0.5 s runs: after 4 s) */
	run_sample(&m, 41, runs, f);
	run_sample(&m, 42, runs, f);
	CHECK(m.runs.seen && m.cur[M_RUN_S].st == RATE_OK, "runs: 2 s without a start: still the figure");
	for (t = 43; t <= 46; t++)
		run_sample(&m, t, runs, f);
	CHECK(!m.runs.seen && m.cur[M_RUN_S].st == RATE_UNDEF, "runs: 6 s without a start (0.5 s runs): stopped, no figure");
	model_free(&m);
	/* PostgreSQL: no such counter */
	model_for(&m, ENGINE_POSTGRESQL);
	struct sample s;
	up(&s, 0, 1);
	model_update(&m, &s);
	up(&s, 1, 1);
	model_update(&m, &s);
	CHECK(m.cur[M_RUN_S].st == RATE_UNAVAIL && !model_metric_applies(&m, M_RUN_S), "runs: PostgreSQL: not applicable");
	model_free(&m);
}

/* The host's newest busy interval, counted back from the newest sample
 * (the idle root blocker's bar: model/findings.c). */
static void test_host_busy(void)
{
	struct model m;
	struct sample s;
	model_for(&m, ENGINE_POSTGRESQL);
	CHECK(isinf(m.host_busy_s), "host busy: none seen at the start");
	/* PSI: the share of each interval in which a runnable task waited */
	static const double psi_pct[] = {0, 90, 10, 10, 10};
	uint64_t psi = 1000000;
	for (int i = 0; i < 5; i++) {
		up(&s, 100.0 + i, 1);
		s.host.read = s.host.has_psi = true;
		s.host.ncpu = 2;
		s.host.procs_running = 6;
		psi += (uint64_t)(psi_pct[i] * 1e4);
		s.host.psi_cpu_some_us = psi;
		model_update(&m, &s);
		if (i == 0)
			CHECK(isinf(m.host_busy_s), "host busy: a first reading is not busy");
		else if (i == 1)
			CHECK(m.host_busy_s == 0, "host busy: PSI 90 percent, 5 runnable on 2 cores: busy now (0 s)");
	}
	CHECK(fabs(m.host_busy_s - 3) < 1e-9, "host busy: three quiet 1 s intervals since: 3 s");
	model_free(&m);
}

int main(void)
{
	test_ring();
	test_first_and_rates();
	test_down_reconnect();
	test_ratio_avg();
	test_net();
	test_history_settings();
	test_applies();
	test_runs();
	test_paced();
	test_host_busy();
	return TAP_DONE();
}
