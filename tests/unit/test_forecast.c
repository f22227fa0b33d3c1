/* test_forecast.c - the forecast rules of the tuning table's remedies on
 * model fixtures (each rule, each "no forecast" reason), and the outcome
 * measured after a change: met, and missed (the binlog sync slow but only
 * the redo flush relaxed: COMMIT does not fall as forecast). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/events.h"
#include "../../model/forecast.h"
#include "../../model/model.h"
#include "../../panes/pane.h"
#include "../../tune/tuner.h"
#include "../../core/tunables.h"
#include "../../util/util.h"
#include "tap.h"

/* the figures come from the history, which keeps a float's 7 digits */
#define HIST_EPS 1e-5

/* The last pane command's reaction (what the screen would do). */
static struct pane_reaction rx;
/* Pane p's command called name on v, as the key table runs it: whether p
 * has it; its reaction in rx. */
static bool run_cmd(const struct pane_ops *p, const char *name, const struct model *m, struct pane_view *v)
{
	free(rx.copy);
	rx = pane_command(p, name, m, v);
	return rx.handled;
}

static void set_setting(struct setting *set, int *n, const char *name, const char *value)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(set[i].name, name) == 0) {
			str_copy(set[i].value, sizeof set[i].value, value);
			return;
		}
	str_copy(set[*n].name, sizeof set[0].name, name);
	str_copy(set[*n].value, sizeof set[0].value, value);
	(*n)++;
}

static void setting(struct model *m, const char *name, const char *value)
{
	int n = (int)m->nsettings;
	set_setting(m->settings, &n, name, value);
	m->nsettings = (size_t)n;
}

static void fresh(struct model *m, enum engine e, enum flavour fl)
{
	struct caps c;
	model_init(m, 40);
	memset(&c, 0, sizeof c);
	c.engine = e;
	c.flavour = fl;
	model_set_caps(m, &c);
	m->last.state = STATE_UP;
	m->intervals = 2;
}

/* One interval's figures (NaN: not measured). */
struct figs {
	double commits, commit_ms, redo, redo_ms, binlog, binlog_ms, wal, wal_ms;
};

/* An interval of 1 s ending at wall with figures f into the model's history
 * (as model_update pushes it), then the settings reading (name = value
 * changed when name is not NULL) through forecast_track. */
/* A metric read every few refreshes (-1: none): held, but in a step with
 * read_from set, read, its value covering the time since read_from (its
 * read before). */
static int held_metric = -1;
static double read_from = NAN;

static void step(struct model *m, double wall, const struct figs *f, const char *name, const char *value)
{
	const struct {
		enum metric_id id;
		double v;
	} v[] = {
		{M_COMMITS, f->commits}, {M_COMMIT_MS, f->commit_ms}, {M_REDO_FSYNCS, f->redo},
		{M_REDO_FSYNC_MS, f->redo_ms}, {M_BINLOG_FSYNCS, f->binlog}, {M_BINLOG_FSYNC_MS, f->binlog_ms},
		{M_WAL_SYNCS, f->wal}, {M_WAL_SYNC_MS, f->wal_ms},
	};
	m->intervals++;
	/* each value covers the interval since the step before (wall is the
	 * monotonic clock here too); a metric held (held_metric: its counters
	 * read every few refreshes) keeps its value and the time it covers */
	double prev = m->hist_t.len ? ring_get(&m->hist_t, 0) : NAN;
	for (int i = 0; i < M__COUNT; i++) {
		double x = NAN;
		for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
			if (v[k].id == (enum metric_id)i)
				x = v[k].v;
		if (i == held_metric && m->cur[i].st == RATE_OK && isnan(read_from)) {
			m->age_s[i] = wall - prev;
			ring_push(&m->hist[i], m->cur[i].v);
			continue;
		}
		m->cur[i].v = x;
		m->cur[i].st = isfinite(x) ? RATE_OK : RATE_UNAVAIL;
		m->age_s[i] = 0;
		m->from_mono[i] = i == held_metric ? read_from : prev;
		ring_push(&m->hist[i], x);
	}
	ring_push(&m->hist_t, wall);
	struct sample s;
	memset(&s, 0, sizeof s);
	s.wall = wall;
	s.mono = wall;
	s.state = STATE_UP;
	s.settings_fresh = true;
	s.nsettings = (int)m->nsettings;
	memcpy(s.settings, m->settings, sizeof s.settings);
	if (name)
		set_setting(s.settings, &s.nsettings, name, value);
	forecast_track(m, &s);
	m->nsettings = (size_t)s.nsettings;
	memcpy(m->settings, s.settings, sizeof m->settings);
}

static const struct figs N = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};

static void mariadb(struct model *m)
{
	fresh(m, ENGINE_MYSQL, FLAVOUR_MARIADB);
	setting(m, "innodb_flush_log_at_trx_commit", "1");
	setting(m, "sync_binlog", "1");
	setting(m, "log_bin", "ON");
}

static const struct tunable *tun(const char *name, enum flavour f)
{
	return tunable_find(name, f, 0);
}

/* Each rule's forecast from the figures of the last minute. */
static void test_rules(void)
{
	struct model m;
	struct forecast fc;
	mariadb(&m);
	struct figs f = N;
	f.commits = 90, f.commit_ms = 20.2, f.redo = 90, f.redo_ms = 9.3, f.binlog = 90, f.binlog_ms = 8.0;
	for (int i = 0; i < 6; i++)
		step(&m, 1000 + i, &f, NULL, NULL);
	forecast_make(&m, tun("innodb_flush_log_at_trx_commit", FLAVOUR_MARIADB), "2", &fc);
	CHECK(fc.ok && fc.n == 2 && fc.it[0].metric == M_COMMIT_MS && fabs(fc.it[0].before - 20.2) < HIST_EPS &&
	      fabs(fc.it[0].hi - (20.2 - 9.3 + 9.3 / 2)) < HIST_EPS && fc.it[1].metric == M_REDO_FSYNCS &&
	      fabs(fc.it[1].hi - 22.5) < HIST_EPS,
	      tname("flush 1->2: COMMIT 20.2 ms -> at most 15.55 ms, redo fsyncs/s 90 -> at most 22.5: %s", fc.text));
	CHECK(strstr(fc.text, "COMMIT 20.2 ms -> ~10.9 ms") && strstr(fc.text, "9.3 ms redo sync") &&
	      strstr(fc.text, "redo syncs/s ~90 -> ~1"), tname("the text says the figures it used: %s", fc.text));
	forecast_make(&m, tun("sync_binlog", FLAVOUR_MARIADB), "0", &fc);
	CHECK(fc.ok && fc.n == 2 && fc.it[1].metric == M_BINLOG_FSYNCS && strstr(fc.text, "COMMIT 20.2 ms -> ~12.2 ms") &&
	      strstr(fc.text, "8.0 ms binlog sync"), tname("sync_binlog 1->0: %s", fc.text));
	model_free(&m);

	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	setting(&m, "synchronous_commit", "on");
	setting(&m, "wal_writer_delay", "200ms");
	f = N;
	f.commits = 90, f.wal = 91, f.wal_ms = 2.5;
	for (int i = 0; i < 6; i++)
		step(&m, 1000 + i, &f, NULL, NULL);
	forecast_make(&m, tun("synchronous_commit", FLAVOUR_POSTGRESQL), "off", &fc);
	CHECK(fc.ok && fc.n == 1 && fc.it[0].metric == M_WAL_SYNCS && fabs(fc.it[0].hi - 16) < HIST_EPS &&
	      strstr(fc.text, "~91 -> ~5.0") && strstr(fc.text, "2.50 ms WAL sync"),
	      tname("synchronous_commit on->off: WAL syncs/s ~91 -> ~5 (1000 / 200 ms; at most 16): %s", fc.text));
	forecast_make(&m, tun("wal_writer_delay", FLAVOUR_POSTGRESQL), "1s", &fc);
	CHECK(!fc.ok && strstr(fc.text, "no forecast: synchronous_commit=on"),
	      tname("wal_writer_delay under synchronous_commit=on: %s", fc.text));
	setting(&m, "synchronous_commit", "off");
	setting(&m, "wal_writer_delay", "10ms");
	forecast_make(&m, tun("wal_writer_delay", FLAVOUR_POSTGRESQL), "1s", &fc);
	CHECK(fc.ok && fc.n == 1 && fabs(fc.it[0].hi - 4) < HIST_EPS && strstr(fc.text, "~91 -> ~1.0 (1000 / 1000 ms"),
	      tname("wal_writer_delay 10ms -> 1s: WAL syncs/s ~91 -> ~1 (at most 4): %s", fc.text));
	model_free(&m);
}

/* Every "no forecast" reason. */
static void test_no_forecast(void)
{
	struct model m;
	struct forecast fc;
	mariadb(&m);
	struct figs f = N;
	f.commits = 90, f.commit_ms = 20, f.redo = 90;
	for (int i = 0; i < 3; i++)
		step(&m, 1000 + i, &f, NULL, NULL);
	forecast_make(&m, tun("innodb_flush_log_at_trx_commit", FLAVOUR_MARIADB), "2", &fc);
	CHECK(!fc.ok && strcmp(fc.text, "no forecast: no redo sync time measured") == 0, tname("%s", fc.text));
	forecast_make(&m, tun("innodb_flush_log_at_trx_commit", FLAVOUR_MARIADB), "1", &fc);
	CHECK(!fc.ok && strstr(fc.text, "no forecast: the rule forecasts the redo sync leaving"), tname("%s", fc.text));
	forecast_make(&m, tun("sync_binlog", FLAVOUR_MARIADB), "0", &fc);
	CHECK(!fc.ok && strstr(fc.text, "no binlog sync time measured, no binlog sync count measured"),
	      tname("%s", fc.text));
	forecast_make(&m, tun("sync_binlog", FLAVOUR_MARIADB), "1", &fc);
	CHECK(!fc.ok && strstr(fc.text, "1 -> 0 only"), tname("%s", fc.text));
	setting(&m, "log_bin", "OFF");
	forecast_make(&m, tun("sync_binlog", FLAVOUR_MARIADB), "0", &fc);
	CHECK(!fc.ok && strstr(fc.text, "the binary log is off"), tname("%s", fc.text));
	forecast_make(&m, tun("binlog_commit_wait_count", FLAVOUR_MARIADB), "8", &fc);
	CHECK(!fc.ok && strstr(fc.text, "depends on how many sessions commit at once"), tname("%s", fc.text));
	forecast_make(&m, tun("wait/io/file/innodb/innodb_log_file", FLAVOUR_MARIADB), "YES/YES", &fc);
	CHECK(!fc.ok && strstr(fc.text, "an instrument changes what is measured"), tname("%s", fc.text));
	model_free(&m);

	mariadb(&m);
	f = N;
	f.commits = 0, f.commit_ms = 20, f.redo = 0, f.redo_ms = 5;
	step(&m, 1000, &f, NULL, NULL);
	forecast_make(&m, tun("innodb_flush_log_at_trx_commit", FLAVOUR_MARIADB), "2", &fc);
	CHECK(!fc.ok && strcmp(fc.text, "no forecast: no commits in the last minute") == 0, tname("%s", fc.text));
	model_free(&m);
	mariadb(&m);   /* nothing measured at all */
	forecast_make(&m, tun("innodb_flush_log_at_trx_commit", FLAVOUR_MARIADB), "2", &fc);
	CHECK(!fc.ok && strstr(fc.text, "no commits measured, no COMMIT latency measured"), tname("%s", fc.text));
	model_free(&m);

	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	setting(&m, "synchronous_commit", "on");
	f = N;
	f.commits = 50;
	step(&m, 1000, &f, NULL, NULL);
	forecast_make(&m, tun("synchronous_commit", FLAVOUR_POSTGRESQL), "off", &fc);
	CHECK(!fc.ok && strstr(fc.text, "no WAL sync count measured"), tname("%s", fc.text));
	f.wal = 50;
	step(&m, 1001, &f, NULL, NULL);
	forecast_make(&m, tun("synchronous_commit", FLAVOUR_POSTGRESQL), "off", &fc);
	CHECK(!fc.ok && strstr(fc.text, "wal_writer_delay not read"), tname("%s", fc.text));
	setting(&m, "wal_writer_delay", "soon");
	forecast_make(&m, tun("synchronous_commit", FLAVOUR_POSTGRESQL), "off", &fc);
	CHECK(!fc.ok && strstr(fc.text, "wal_writer_delay is not a duration"), tname("%s", fc.text));
	forecast_make(&m, tun("synchronous_commit", FLAVOUR_POSTGRESQL), "on", &fc);
	CHECK(!fc.ok && strstr(fc.text, "on -> off only"), tname("%s", fc.text));
	forecast_make(&m, tun("commit_delay", FLAVOUR_POSTGRESQL), "1000", &fc);
	CHECK(!fc.ok && strstr(fc.text, "(no rule)"), tname("%s", fc.text));
	model_free(&m);
}

/* Run a change: 8 intervals at before, the change seen in the next (it
 * straddles it), then n intervals at after; the outcome. */
static const struct fc_outcome *run(struct model *m, const struct figs *before, const char *name, const char *value,
				    const struct figs *after, int n)
{
	int i;
	for (i = 0; i < 8; i++)
		step(m, 1000 + i, before, NULL, NULL);
	step(m, 1000 + i++, after, name, value);
	for (int k = 0; k < n; k++, i++)
		step(m, 1000 + i, after, NULL, NULL);
	return &m->outcome;
}

static void test_outcome(void)
{
	struct model m;
	struct figs b = N, a;
	/* the redo sync slow: flush=2 takes it out of COMMIT */
	mariadb(&m);
	b.commits = 90, b.commit_ms = 20.2, b.redo = 90, b.redo_ms = 9.3, b.binlog = 90, b.binlog_ms = 0.5;
	a = b;
	a.commit_ms = 10.4, a.redo = 1, a.redo_ms = 0.4, a.commits = 180;
	const struct fc_outcome *o = run(&m, &b, "innodb_flush_log_at_trx_commit", "2", &a, FC_SETTLE_INTERVALS);
	CHECK(o->state == FCO_SETTLING && fabs(o->fc.it[0].before - 20.2) < HIST_EPS && strcmp(o->from, "1") == 0 &&
	      strcmp(o->to, "2") == 0, tname("settling for %d intervals, forecast from the minute before: %s",
					     FC_SETTLE_INTERVALS, o->fc.text));
	step(&m, 2000, &a, NULL, NULL);
	CHECK(o->state == FCO_MEASURING && o->decided == 0, "then measuring");
	for (int k = 1; k < FC_MEASURE_INTERVALS; k++)
		step(&m, 2000 + k, &a, NULL, NULL);
	CHECK(o->state == FCO_MET && o->decided == m.intervals && fabs(o->after[0] - 10.4) < HIST_EPS &&
	      strstr(o->text, "forecast met: COMMIT 20.2 -> 10.4 (forecast 0.0-15.6); redo fsyncs/s 90.0 -> 1.0"),
	      tname("met after %d intervals: %s", FC_MEASURE_INTERVALS, o->text));
	unsigned long decided = o->decided;
	step(&m, 3000, &a, NULL, NULL);
	CHECK(o->decided == decided && o->state == FCO_MET, "decided once");
	struct strbuf sb;
	sb_init(&sb);
	forecast_json(o, &sb);
	CHECK(strstr(sb.s, "\"tuning\":{\"outcome\":{\"setting\":\"innodb_flush_log_at_trx_commit\",\"from\":\"1\","
			   "\"to\":\"2\"") && strstr(sb.s, "\"state\":\"met\"") &&
	      strstr(sb.s, "{\"metric\":\"commit_avg_ms\",\"before\":20.2,\"lo\":0,\"hi\":15.55,\"after\":10.4}"),
	      tname("JSON: %s", sb.s));
	sb_free(&sb);
	model_free(&m);

	/* the binlog sync slow, the redo sync a part of it: flush=2 applied,
	 * COMMIT stays where the binlog sync holds it */
	mariadb(&m);
	b = N;
	b.commits = 90, b.commit_ms = 20.0, b.redo = 90, b.redo_ms = 9.0, b.binlog = 90, b.binlog_ms = 10.0;
	a = b;
	a.redo = 1, a.redo_ms = 0.3, a.commit_ms = 19.0, a.binlog_ms = 17.5;
	o = run(&m, &b, "innodb_flush_log_at_trx_commit", "2", &a, FC_SETTLE_INTERVALS + FC_MEASURE_INTERVALS);
	CHECK(o->state == FCO_MISSED && strstr(o->text, "forecast missed: COMMIT 20.0 -> 19.0 (forecast 0.0-15.5: "
						       "outside); redo fsyncs/s 90.0 -> 1.0 (forecast 0.0-22.5)"),
	      tname("binlog sync slow, flush=2 applied: %s", o->text));
	model_free(&m);

	/* the WAL writer: wal_writer_delay 10ms -> 1s under synchronous_commit=off */
	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	setting(&m, "synchronous_commit", "off");
	setting(&m, "wal_writer_delay", "10ms");
	b = N;
	b.commits = 400, b.wal = 91;
	a = b;
	a.wal = 1.2;
	o = run(&m, &b, "wal_writer_delay", "1s", &a, FC_SETTLE_INTERVALS + FC_MEASURE_INTERVALS);
	CHECK(o->state == FCO_MET && strstr(o->text, "WAL syncs/s 91.0 -> 1.2 (forecast 0.0-4.0)"),
	      tname("wal_writer_delay: %s", o->text));
	model_free(&m);

	/* measured no more after the change: not judged */
	mariadb(&m);
	b = N;
	b.commits = 90, b.commit_ms = 20.0, b.redo = 90, b.redo_ms = 9.0;
	a = b;
	a.commit_ms = NAN;
	o = run(&m, &b, "innodb_flush_log_at_trx_commit", "2", &a, FC_SETTLE_INTERVALS + FC_MEASURE_INTERVALS);
	CHECK(o->state == FCO_MEASURING, "COMMIT not measured after the change: its read waited for");
	for (int k = 0; k < (int)FC_MEASURE_MAX_S; k++)
		step(&m, 3000 + k, &a, NULL, NULL);
	CHECK(o->state == FCO_UNKNOWN && strstr(o->text, "forecast not judged: COMMIT not measured after the change"),
	      tname("then, %.0f s on, not judged: %s", FC_MEASURE_MAX_S, o->text));
	model_free(&m);

	/* COMMIT's counters read every 10 s (a paced statement summary; 78b
	 * in CI: "COMMIT 21.8 -> 21.8", the value read before the change
	 * taken for the one after): the intervals that hold a value read
	 * before are not measured, nor a read whose time began before the
	 * settling; the first read that covers only time after it is */
	mariadb(&m);
	b = N;
	b.commits = 90, b.commit_ms = 20.2, b.redo = 90, b.redo_ms = 9.3;
	a = b;
	a.commit_ms = 10.4, a.redo = 1, a.redo_ms = 0.4;
	for (int k = 0; k < 8; k++)
		step(&m, 1000 + k, &b, NULL, NULL);
	held_metric = M_COMMIT_MS; /* COMMIT stays 20.2, held, read last before the change */
	struct figs mixed = a;
	mixed.commit_ms = 16.0; /* a read at 1012 whose time began at 1002, before the change */
	step(&m, 1008, &a, "innodb_flush_log_at_trx_commit", "2");
	for (int k = 1009; k <= 1016; k++) {
		read_from = k == 1012 ? 1002 : NAN;
		step(&m, k, &mixed, NULL, NULL);
	}
	CHECK(o->state == FCO_MEASURING && isnan(o->after[0]),
	      "paced COMMIT: 8 intervals after the change without a read of only the time after: still measuring");
	read_from = 1012;
	step(&m, 1022, &a, NULL, NULL);   /* the next read: 1012-1022, all after the settling (1011) */
	read_from = NAN;
	held_metric = -1;
	CHECK(o->state == FCO_MET && fabs(o->after[0] - 10.4) < HIST_EPS &&
		      strstr(o->text, "forecast met: COMMIT 20.2 -> 10.4"),
	      tname("paced COMMIT: judged on the read of 1012-1022 alone: %s", o->text));
	model_free(&m);

	/* reverted before measured; a change with no forecast */
	mariadb(&m);
	o = run(&m, &b, "innodb_flush_log_at_trx_commit", "2", &b, 1);
	step(&m, 3000, &b, "innodb_flush_log_at_trx_commit", "1");
	CHECK(o->state == FCO_UNKNOWN && o->decided && strstr(o->text, "changed again (to 1) before the outcome"),
	      tname("%s", o->text));
	model_free(&m);
	mariadb(&m);
	o = run(&m, &b, "sync_binlog", "0", &b, 1);
	CHECK(o->state == FCO_UNKNOWN && !o->decided && strstr(o->text, "no forecast: no binlog sync time measured"),
	      tname("sync_binlog without binlog figures: %s", o->text));
	model_free(&m);
}

/* The outcome into the event log once, and the batch JSON's member. */
static void test_event(void)
{
	struct model m;
	struct event_log l;
	struct figs b = N, a;
	struct sample s;
	int logged = 0;
	mariadb(&m);
	events_init(&l);
	l.live = true;
	b.commits = 90, b.commit_ms = 20.0, b.redo = 90, b.redo_ms = 9.0, b.binlog = 90, b.binlog_ms = 10.0;
	a = b;
	a.redo = 1, a.commit_ms = 19.0;
	run(&m, &b, "innodb_flush_log_at_trx_commit", "2", &a, 0);
	for (int k = 0; k < FC_SETTLE_INTERVALS + FC_MEASURE_INTERVALS + 3; k++) {
		step(&m, 2000 + k, &a, NULL, NULL);
		memset(&s, 0, sizeof s);
		s.wall = m.last.wall = 2000 + k;
		s.state = STATE_UP;
		events_update(&l, &m, &s);
	}
	for (size_t i = 0; i < l.n; i++) {
		const struct event *e = events_at(&l, i);
		if (e->kind != EV_FORECAST)
			continue;
		logged++;
		CHECK(e->severity == SEV_WARN && strcmp(e->name, "innodb_flush_log_at_trx_commit") == 0 &&
		      strstr(e->detail, "innodb_flush_log_at_trx_commit 1 -> 2: forecast missed: COMMIT 20.0 -> 19.0"),
		      tname("event: %s", e->detail));
	}
	CHECK(logged == 1, tname("the outcome logged once (%d)", logged));
	struct strbuf sb;
	sb_init(&sb);
	events_json(&l, 0, ULONG_MAX, &sb);
	CHECK(strstr(sb.s, "\"setting\":\"innodb_flush_log_at_trx_commit\",\"old\":\"1\",\"new\":\"2\","
			   "\"outcome\":\"missed\""), tname("events JSON: %s", sb.s));
	sb_free(&sb);
	events_free(&l);
	model_free(&m);
}

/* Screen 5 as text: a grid the tuning pane draws into. */
#define GW 200
#define GH 40
static char grid[GH][GW + 1];

static void grid_put(struct canvas *cv, int y, int x, enum role r, const char *str, int ncols)
{
	(void)cv;
	(void)r;
	for (int i = 0; i < ncols && str[i] && x + i < GW; i++)
		grid[y][x + i] = str[i];
}

static const struct canvas_ops grid_ops = {.put = grid_put};

/* The pane drawn full screen: the row holding text, -1 none. */
static int drawn(const struct model *m, struct pane_view *v, const char *text)
{
	for (int y = 0; y < GH; y++) {
		memset(grid[y], ' ', GW);
		grid[y][GW] = '\0';
	}
	struct canvas cv = {.ops = &grid_ops, .h = GH, .w = GW, .utf8 = false};
	tuning_pane.draw(m, v, &cv);
	for (int y = 0; y < GH; y++)
		if (strstr(grid[y], text))
			return y;
	return -1;
}

/* Screen 5 on MariaDB: the scope, the forecast in the details and in the
 * confirmation before y, then the outcome above the table. */
static void test_pane(void)
{
	static struct model m;
	static struct tune_view tv;
	struct pane_view v;
	mariadb(&m);
	m.have_caps = true;
	memset(&tv, 0, sizeof tv);
	tv.available = tv.probed = true;
	for (size_t i = 0; i < ntunables && i < TUNABLES_MAX; i++) {
		tv.known[i] = tv.allowed[i] = true;
		str_copy(tv.current[i], sizeof tv.current[i], tunables[i].usual);
	}
	memset(&v, 0, sizeof v);
	v.full = v.focused = true;
	v.tune = &tv;
	struct figs b = N, a;
	b.commits = 90, b.commit_ms = 20.2, b.redo = 90, b.redo_ms = 9.3, b.binlog = 90, b.binlog_ms = 0.5;
	for (int i = 0; i < 6; i++)
		step(&m, 1000 + i, &b, NULL, NULL);
	CHECK(drawn(&m, &v, "scope: server only (the engine has no narrower scope); global") >= 0,
	      "screen 5, MariaDB flush: scope server only (the engine has no narrower scope)");
	CHECK(drawn(&m, &v, "forecast: COMMIT 20.2 ms -> ~10.9 ms (at most 15.6): the 9.3 ms redo sync") >= 0,
	      "screen 5: the selected row's forecast");
	CHECK(run_cmd(&tuning_pane, "apply", &m, &v) && rx.ask.act == PA_TUNE_APPLY &&
	      strstr(rx.ask.what, "Forecast: COMMIT 20.2 ms -> ~10.9 ms") && strstr(rx.ask.what, "with: "),
	      tname("the confirmation before y: the forecast, the revert still whole: %s", rx.ask.what));
	a = b;
	a.commit_ms = 10.4, a.redo = 1;
	step(&m, 1006, &a, "innodb_flush_log_at_trx_commit", "2");
	CHECK(drawn(&m, &v, "innodb_flush_log_at_trx_commit 1 -> 2: settling (3 intervals settle, 5 measured)") >= 0,
	      "screen 5: settling");
	for (int k = 0; k < FC_SETTLE_INTERVALS + FC_MEASURE_INTERVALS; k++)
		step(&m, 1007 + k, &a, NULL, NULL);
	CHECK(drawn(&m, &v, "innodb_flush_log_at_trx_commit 1 -> 2: forecast met: COMMIT 20.2 -> 10.4") >= 0,
	      "screen 5: forecast met, with both figures");
	model_free(&m);
	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	m.have_caps = true;
	for (size_t i = 0; i < ntunables && i < TUNABLES_MAX; i++)
		str_copy(tv.current[i], sizeof tv.current[i], tunables[i].usual);
	CHECK(drawn(&m, &v, "scope: server, role or database (s picks); ALTER SYSTEM") >= 0 &&
		      drawn(&m, &v, "no forecast: no WAL sync count") >= 0,
	      "screen 5, PostgreSQL: synchronous_commit's scope server, role or database; no forecast says what is missing");
	v.sel = 1;
	CHECK(drawn(&m, &v, "scope: server; ALTER SYSTEM") >= 0, "screen 5, PostgreSQL: wal_writer_delay's scope is the server");
	v.sel = 0;
	model_free(&m);
}

int main(void)
{
	test_pane();
	test_event();
	test_rules();
	test_no_forecast();
	test_outcome();
	return tap_failed ? 1 : 0;
}
