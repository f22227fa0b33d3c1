/* test_waits.c - wait-event profiles: the class of each event name of both
 * engines, idle events left out, average active sessions per interval from
 * each source (dbtop's own sampling, pg_wait_sampling's cumulative profile,
 * performance_schema's cumulative counts and times), resets and gaps
 * unknown rather than zero or negative, eviction, ranking, the JSON
 * members, and a wait profile through a recording. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../model/digests.h"
#include "../../model/locks.h"
#include "../../model/waits.h"
#include "../../record/record.h"
#include "../../sources/pg_map.h"
#include "../../core/sample.h"
#include "../../util/util.h"
#include "tap.h"
#include "pyjson.h"

/* The tracked entry of name, or NULL. */
static const struct wait_entry *find(const struct wait_table *t, const char *name)
{
	for (size_t i = 0; i < WAIT_MAX; i++)
		if (t->e[i].used && strcmp(t->e[i].name, name) == 0)
			return &t->e[i];
	return NULL;
}

/* The AAS of name this interval: NaN when unknown, -1 when not tracked. */
static double aas(const struct wait_table *t, const char *name)
{
	const struct wait_entry *e = find(t, name);
	return e ? e->aas : -1;
}

/* The i-th newest history point of name (-1 when not tracked). */
static double hist(const struct wait_table *t, const char *name, size_t i)
{
	const struct wait_entry *e = find(t, name);
	return e ? ring_get(&e->hist, i) : -1;
}

/* The table's JSON members as an object: {"waits":...}. */
static char *json_of(const struct wait_table *t, int top)
{
	struct strbuf b;
	sb_init(&b);
	sb_putc(&b, '{');
	wait_table_json(t, top, &b);
	sb_putc(&b, '}');
	if (b.len > 1 && b.s[1] == ',')
		memmove(b.s + 1, b.s + 2, b.len - 1);   /* the leading comma, with the NUL */
	return b.s;
}

static void test_classes(void)
{
	static const struct {
		const char *name;
		enum wait_class cls;
	} t[] = {
		/* PostgreSQL WAL: both spellings (PG17 renamed IO:WALSync to IO:WalSync, ...) */
		{"IO:WALSync", WC_WAL},
		{"IO:WalSync", WC_WAL},
		{"IO:WALWrite", WC_WAL},
		{"IO:WalWrite", WC_WAL},
		{"IO:WALInitWrite", WC_WAL},
		{"IO:WALInitSync", WC_WAL},
		{"IO:WalInitSync", WC_WAL},
		{"LWLock:WALWrite", WC_WAL},
		{"LWLock:WALInsert", WC_WAL},
		{"LWLock:WALBufMapping", WC_WAL},
		{"LWLock:wal_insert", WC_WAL},
		{"IPC:SyncRep", WC_WAL},
		/* PostgreSQL others */
		{"Lock:transactionid", WC_LOCK},
		{"Lock:tuple", WC_LOCK},
		{"Lock:relation", WC_LOCK},
		{"Lock:advisory", WC_LOCK},
		{"IO:DataFileRead", WC_IO},
		{"IO:DataFileWrite", WC_IO},
		{"IO:BufFileRead", WC_IO},
		{"CPU", WC_CPU},
		{"LWLock:LockManager", WC_OTHER},
		{"LWLock:BufferContent", WC_OTHER},
		{"IPC:BgWorkerStartup", WC_OTHER},
		{"Timeout:PgSleep", WC_OTHER},
		/* MySQL / MariaDB performance_schema */
		{"wait/io/file/innodb/innodb_log_file", WC_REDO},
		{"wait/synch/mutex/innodb/log_sys_mutex", WC_REDO},
		{"wait/io/file/sql/binlog", WC_BINLOG},
		{"wait/io/file/sql/binlog_index", WC_BINLOG},
		{"wait/synch/cond/sql/MYSQL_BIN_LOG::COND_queue_busy", WC_BINLOG},
		{"wait/lock/table/sql/handler", WC_LOCK},
		{"wait/lock/metadata/sql/mdl", WC_LOCK},
		{"wait/io/file/innodb/innodb_data_file", WC_IO},
		{"wait/io/file/innodb/innodb_temp_file", WC_IO},
		{"wait/io/file/sql/binlog_cache", WC_IO},
		{"wait/io/file/myisam/kfile", WC_IO},
		{"wait/synch/mutex/innodb/trx_mutex", WC_OTHER},
		{"wait/synch/cond/sql/THD::COND_wakeup_ready", WC_BINLOG},
		{"wait/synch/mutex/sql/LOG::LOCK_log", WC_BINLOG},
		{"wait/synch/cond/mysys/COND_timer", WC_OTHER},
		{"?", WC_OTHER},
	};
	char name[160];
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		str_printf(name, sizeof name, "class of %s is %s", t[i].name, wait_class_name(t[i].cls));
		CHECK_STR(wait_class_name(wait_class_of(t[i].name)), wait_class_name(t[i].cls), name);
	}
	CHECK(wait_class_of(NULL) == WC_OTHER, "class of NULL is other");
	CHECK_STR(wait_class_name(WC__COUNT), "other", "class name out of range is other");
	CHECK(wait_is_durability("IO:WalSync") && wait_is_durability("IPC:SyncRep") &&
		      wait_is_durability("wait/io/file/innodb/innodb_log_file") && wait_is_durability("wait/io/file/sql/binlog"),
	      "WAL, redo and binlog events are durability events");
	CHECK(!wait_is_durability("CPU") && !wait_is_durability("Lock:tuple") && !wait_is_durability("IO:DataFileRead") &&
		      !wait_is_durability("wait/io/file/innodb/innodb_data_file"),
	      "CPU, lock and data-file events are not durability events");
	/* idle: not waiting in the sense of the pane */
	CHECK(wait_is_idle("Client:ClientRead") && wait_is_idle("Client:ClientWrite") &&
		      wait_is_idle("Activity:WalWriterMain") && wait_is_idle("Activity:CheckpointerMain") &&
		      wait_is_idle("idle") && wait_is_idle(NULL),
	      "Client:*, Activity:* and idle are idle");
	CHECK(!wait_is_idle("IO:WALSync") && !wait_is_idle("CPU") && !wait_is_idle("Lock:transactionid") &&
		      !wait_is_idle("wait/io/file/sql/binlog") && !wait_is_idle("IPC:SyncRep"),
	      "WAL, CPU, lock and binlog waits are not idle");
	CHECK_STR(wait_source_name(WS_SAMPLED), "sampled", "source name sampled");
	CHECK_STR(wait_source_name(WS_PG_WAIT_SAMPLING), "pg_wait_sampling", "source name pg_wait_sampling");
	CHECK_STR(wait_source_name(WS_PERF_SCHEMA), "performance_schema", "source name performance_schema");
	CHECK_STR(wait_source_name(WS_NONE), "none", "source name none");
}

static void test_set(void)
{
	struct wait_set *w = wait_set_new(WS_SAMPLED);
	wait_set_add(w, "CPU", 2, 0);
	wait_set_add(w, "IO:WALSync", 1, 5);
	wait_set_add(w, "CPU", 3, 0);
	wait_set_add(w, "IO:WALSync", 4, 10);
	for (int i = 0; i < 40; i++) {
		char nm[32];
		str_printf(nm, sizeof nm, "IO:Ev%d", i);
		wait_set_add(w, nm, 1, 0);
	}
	CHECK(w->n == 42 && strcmp(w->rows[0].name, "CPU") == 0 && w->rows[0].count == 5,
	      "set: counts of a repeated name add up, rows grow past the first allocation");
	CHECK(w->rows[1].count == 5 && w->rows[1].time_ns == 15, "set: times of a repeated name add up");
	wait_set_add(w, "IO:\x1b[2JEvil\x07", 1, 0);
	wait_set_add(w, NULL, 1, 0);
	wait_set_add(w, "", 1, 0);
	CHECK(!strchr(w->rows[42].name, 0x1b) && !strchr(w->rows[42].name, 0x07), "set: names sanitised");
	CHECK(w->n == 44 && strcmp(w->rows[43].name, "?") == 0 && w->rows[43].count == 2, "set: empty or NULL name is '?'");
	char big[300];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	wait_set_add(w, big, 1, 0);
	CHECK(strlen(w->rows[44].name) < WAIT_NAME_LEN, "set: a long name is cut to WAIT_NAME_LEN");
	wait_set_free(w);
	wait_set_free(NULL);
}

/* dbtop's own sampling: observations / rounds; absent = 0 when sampled;
 * no round = unknown. */
static void test_sampled(void)
{
	struct wait_table t;
	wait_table_init(&t, 8);
	struct wait_set *w = wait_set_new(WS_SAMPLED);
	w->hz = 10;
	w->rounds = 10;
	w->cost_ms = 2.5;
	wait_set_add(w, "CPU", 15, 0);
	wait_set_add(w, "IO:WALSync", 5, 0);
	wait_set_add(w, "Client:ClientRead", 30, 0);
	wait_set_add(w, "Activity:WalWriterMain", 10, 0);
	wait_set_add(w, "idle", 10, 0);
	wait_table_update(&t, w, 1.0, true);
	wait_set_free(w);
	CHECK_NEAR(aas(&t, "CPU"), 1.5, 1e-9, "sampled: CPU 15 observations in 10 rounds = 1.5 AAS");
	CHECK_NEAR(aas(&t, "IO:WALSync"), 0.5, 1e-9, "sampled: WAL sync 5 in 10 rounds = 0.5 AAS, known on the first interval");
	CHECK(!find(&t, "Client:ClientRead") && !find(&t, "Activity:WalWriterMain") && !find(&t, "idle"),
	      "sampled: idle events are not tracked");
	CHECK_NEAR(t.total_aas, 2.0, 1e-9, "sampled: total AAS leaves idle events out");
	CHECK(t.source == WS_SAMPLED && t.hz == 10 && t.rounds == 10, "sampled: source, hz and rounds kept");
	CHECK_NEAR(t.cost_per_sample_ms, 0.25, 1e-9, "sampled: cost per sample = cost / rounds");
	CHECK(t.have_data, "sampled: have_data after the first profile");
	CHECK(find(&t, "IO:WALSync")->cls == WC_WAL, "sampled: the entry carries its class");

	w = wait_set_new(WS_SAMPLED);
	w->hz = 10;
	w->rounds = 8;
	wait_set_add(w, "CPU", 4, 0);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	CHECK_NEAR(aas(&t, "CPU"), 0.5, 1e-9, "sampled: 4 in 8 rounds = 0.5");
	CHECK(aas(&t, "IO:WALSync") == 0, "sampled: an event absent from a sampled interval is 0");
	CHECK(hist(&t, "IO:WALSync", 0) == 0 && hist(&t, "IO:WALSync", 1) == 0.5, "sampled: history 0.5 then 0");
	CHECK_NEAR(t.total_aas, 0.5, 1e-9, "sampled: total of the second interval");

	/* no round taken (the sampler never got through): unknown, even for
	 * events listed with counts */
	w = wait_set_new(WS_SAMPLED);
	w->hz = 10;
	w->rounds = 0;
	wait_set_add(w, "CPU", 3, 0);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	CHECK(isnan(aas(&t, "CPU")) && isnan(aas(&t, "IO:WALSync")), "sampled: rounds = 0 -> every event unknown");
	CHECK(isnan(t.total_aas), "sampled: rounds = 0 -> total unknown");
	CHECK(isnan(t.cost_per_sample_ms), "sampled: rounds = 0 -> cost per sample unknown");
	CHECK(isnan(hist(&t, "CPU", 0)) && isnan(hist(&t, "IO:WALSync", 0)), "sampled: rounds = 0 -> history gap, not 0");
	const struct wait_entry *r[WAIT_MAX];
	CHECK(wait_table_ranked(&t, r, WAIT_MAX) == 0, "sampled: nothing ranked when nothing is known");
	wait_table_free(&t);
}

/* pg_wait_sampling: cumulative counts x period / dt. */
/* pg_wait_sampling's profile as read (pg_map_profile_row): the events
 * between two rows of the server's clock, whose difference is its cost. */
static void test_pg_profile_rows(void)
{
	const char *rows[][PGW__COUNT] = {
		{NULL, NULL, NULL, "0.125"},
		{"IO:WALSync", "1200", "10", NULL},
		{"CPU", "5000", "10", NULL},
		{"LWLock:WALWrite", NULL, "20", NULL},
		{NULL, NULL, NULL, "3.625"},
	};
	struct wait_set *ws = wait_set_new(WS_PG_WAIT_SAMPLING);
	double clock[2] = {-1, -1};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		pg_map_profile_row(ws, rows[i], clock);
	CHECK(ws->n == 3 && strcmp(ws->rows[0].name, "IO:WALSync") == 0 && ws->rows[0].count == 1200 &&
		      ws->rows[1].count == 5000 && ws->rows[2].count == 0 && ws->period_ms == 20,
	      "profile rows: three events, the clock rows not among them, the period");
	CHECK(fabs(pg_profile_ms(clock) - 3.5) < 1e-9, "profile rows: its cost, the clock's last less its first");
	double one[2] = {-1, -1};
	pg_map_profile_row(ws, rows[4], one);
	CHECK(pg_profile_ms(one) == 0, "profile rows: one clock row: no cost told");
	double none[2] = {-1, -1};
	CHECK(pg_profile_ms(none) == 0, "profile rows: no clock rows (an older dbtop's statement): no cost told");
	wait_set_free(ws);
}

static void test_pg_wait_sampling(void)
{
	struct wait_table t;
	wait_table_init(&t, 8);
	struct wait_set *w = wait_set_new(WS_PG_WAIT_SAMPLING);
	w->period_ms = 10;
	wait_set_add(w, "IO:WALSync", 1000, 0);
	wait_set_add(w, "CPU", 5000, 0);
	wait_table_update(&t, w, 1.0, true);
	wait_set_free(w);
	CHECK(isnan(aas(&t, "IO:WALSync")) && isnan(aas(&t, "CPU")), "pg_wait_sampling: first reading unknown");
	CHECK(isnan(t.total_aas), "pg_wait_sampling: first total unknown");
	CHECK(isnan(hist(&t, "CPU", 0)), "pg_wait_sampling: first history point is a gap");
	CHECK(t.base_only && strstr(t.note, "pg_wait_sampling read once") && strstr(t.note, "next reading"),
	      "pg_wait_sampling: the first reading says the waits come at the next");
	CHECK(!t.stopped, "pg_wait_sampling: a first reading is not a stopped profile");
	wait_table_hold(&t);
	CHECK(t.base_only, "pg_wait_sampling: a paced interval keeps the first reading's note");

	w = wait_set_new(WS_PG_WAIT_SAMPLING);
	w->period_ms = 10;
	wait_set_add(w, "IO:WALSync", 1050, 0);
	wait_set_add(w, "CPU", 5200, 0);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	CHECK_NEAR(aas(&t, "IO:WALSync"), 0.5, 1e-9, "pg_wait_sampling: 50 samples x 10 ms in 1 s = 0.5 AAS");
	CHECK_NEAR(aas(&t, "CPU"), 2.0, 1e-9, "pg_wait_sampling: 200 samples x 10 ms in 1 s = 2 AAS");
	CHECK_NEAR(t.total_aas, 2.5, 1e-9, "pg_wait_sampling: total");
	CHECK(!t.base_only && !t.note[0], "pg_wait_sampling: the second reading has rates and no note");

	w = wait_set_new(WS_PG_WAIT_SAMPLING);
	w->period_ms = 10;
	wait_set_add(w, "IO:WALSync", 1150, 0);
	wait_set_add(w, "CPU", 5200, 0);
	wait_table_update(&t, w, 2.0, false);
	wait_set_free(w);
	CHECK_NEAR(aas(&t, "IO:WALSync"), 0.5, 1e-9, "pg_wait_sampling: divided by the interval's length (100 x 10 ms / 2 s)");
	CHECK(aas(&t, "CPU") == 0, "pg_wait_sampling: an unchanged count is 0");

	/* a count that went down: the profile was reset */
	w = wait_set_new(WS_PG_WAIT_SAMPLING);
	w->period_ms = 10;
	wait_set_add(w, "IO:WALSync", 20, 0);
	wait_set_add(w, "CPU", 5300, 0);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	CHECK(isnan(aas(&t, "IO:WALSync")), "pg_wait_sampling: a count going down is unknown, not negative");
	CHECK(isnan(hist(&t, "IO:WALSync", 0)), "pg_wait_sampling: reset -> history gap");
	CHECK_NEAR(aas(&t, "CPU"), 1.0, 1e-9, "pg_wait_sampling: other events unaffected");

	/* counts from the new base, and another period */
	w = wait_set_new(WS_PG_WAIT_SAMPLING);
	w->period_ms = 20;
	wait_set_add(w, "IO:WALSync", 70, 0);
	wait_set_add(w, "CPU", 5300, 0);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	CHECK_NEAR(aas(&t, "IO:WALSync"), 1.0, 1e-9, "pg_wait_sampling: after a reset counts from the new base (50 x 20 ms)");

	/* an event tracked but absent from the profile: unchanged, 0 */
	w = wait_set_new(WS_PG_WAIT_SAMPLING);
	w->period_ms = 10;
	wait_set_add(w, "CPU", 5400, 0);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	CHECK(aas(&t, "IO:WALSync") == 0, "pg_wait_sampling: tracked event absent from the profile is 0");
	CHECK_NEAR(aas(&t, "CPU"), 1.0, 1e-9, "pg_wait_sampling: CPU 100 samples = 1");
	/* and a later reading still counts from the last one it had */
	w = wait_set_new(WS_PG_WAIT_SAMPLING);
	w->period_ms = 10;
	wait_set_add(w, "IO:WALSync", 170, 0);
	wait_set_add(w, "CPU", 5400, 0);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	CHECK_NEAR(aas(&t, "IO:WALSync"), 1.0, 1e-9, "pg_wait_sampling: after an absence counts from the last reading");
	wait_table_free(&t);
}

/* performance_schema: count/s, time -> AAS, average ms. */
static void test_perf_schema(void)
{
	struct wait_table t;
	wait_table_init(&t, 8);
	struct wait_set *w = wait_set_new(WS_PERF_SCHEMA);
	wait_set_add(w, "wait/io/file/sql/binlog", 100, 1000000000ull);
	wait_set_add(w, "wait/io/file/innodb/innodb_data_file", 50, 200000000ull);
	wait_table_update(&t, w, 1.0, true);
	wait_set_free(w);
	const struct wait_entry *b = find(&t, "wait/io/file/sql/binlog");
	CHECK(b && isnan(b->aas) && isnan(b->count_per_s) && isnan(b->avg_ms), "performance_schema: first reading unknown");
	CHECK(b && b->cls == WC_BINLOG, "performance_schema: binlog class");
	CHECK(t.base_only && strstr(t.note, "performance_schema read once"), "performance_schema: the first reading says so");

	w = wait_set_new(WS_PERF_SCHEMA);
	wait_set_add(w, "wait/io/file/sql/binlog", 300, 1500000000ull);
	wait_set_add(w, "wait/io/file/innodb/innodb_data_file", 50, 200000000ull);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	b = find(&t, "wait/io/file/sql/binlog");
	CHECK_NEAR(b->count_per_s, 200, 1e-9, "performance_schema: 200 waits in 1 s = 200/s");
	CHECK_NEAR(b->aas, 0.5, 1e-9, "performance_schema: 0.5 s waited in 1 s = 0.5 AAS");
	CHECK_NEAR(b->avg_ms, 2.5, 1e-9, "performance_schema: 0.5 s / 200 waits = 2.5 ms");
	const struct wait_entry *d = find(&t, "wait/io/file/innodb/innodb_data_file");
	CHECK(d->aas == 0 && d->count_per_s == 0 && isnan(d->avg_ms), "performance_schema: unchanged: 0/s, 0 AAS, no average");

	w = wait_set_new(WS_PERF_SCHEMA);
	wait_set_add(w, "wait/io/file/sql/binlog", 500, 2500000000ull);
	wait_set_add(w, "wait/io/file/innodb/innodb_data_file", 50, 200000000ull);
	wait_table_update(&t, w, 2.0, false);
	wait_set_free(w);
	b = find(&t, "wait/io/file/sql/binlog");
	CHECK(fabs(b->count_per_s - 100) < 1e-9 && fabs(b->aas - 0.5) < 1e-9 && fabs(b->avg_ms - 5) < 1e-9,
	      "performance_schema: over 2 s: 100/s, 0.5 AAS, 5 ms");

	/* reset (TRUNCATE of the summary, a restart the model did not see) */
	w = wait_set_new(WS_PERF_SCHEMA);
	wait_set_add(w, "wait/io/file/sql/binlog", 10, 1000000ull);
	wait_set_add(w, "wait/io/file/innodb/innodb_data_file", 60, 300000000ull);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	b = find(&t, "wait/io/file/sql/binlog");
	CHECK(isnan(b->aas) && isnan(b->count_per_s) && isnan(b->avg_ms), "performance_schema: a count going down is unknown");
	d = find(&t, "wait/io/file/innodb/innodb_data_file");
	CHECK_NEAR(d->avg_ms, 10, 1e-9, "performance_schema: other events unaffected by one's reset");

	/* the time alone going down: unknown too */
	w = wait_set_new(WS_PERF_SCHEMA);
	wait_set_add(w, "wait/io/file/sql/binlog", 20, 500000ull);
	wait_set_add(w, "wait/io/file/innodb/innodb_data_file", 60, 300000000ull);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	b = find(&t, "wait/io/file/sql/binlog");
	CHECK(isnan(b->aas) && isnan(b->count_per_s), "performance_schema: the time going down alone is unknown");
	w = wait_set_new(WS_PERF_SCHEMA);
	wait_set_add(w, "wait/io/file/sql/binlog", 30, 10500000ull);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	b = find(&t, "wait/io/file/sql/binlog");
	CHECK(fabs(b->count_per_s - 10) < 1e-9 && fabs(b->avg_ms - 1) < 1e-9, "performance_schema: counts from the new base");
	d = find(&t, "wait/io/file/innodb/innodb_data_file");
	CHECK(d->aas == 0 && d->count_per_s == 0, "performance_schema: tracked event absent from the summary: 0");
	/* times beyond 32 bits of ns (performance_schema sums are picoseconds / 1000) */
	w = wait_set_new(WS_PERF_SCHEMA);
	wait_set_add(w, "wait/io/file/sql/binlog", 40, 10500000ull + 20000000000ull);
	wait_table_update(&t, w, 10.0, false);
	wait_set_free(w);
	CHECK_NEAR(aas(&t, "wait/io/file/sql/binlog"), 2.0, 1e-9, "performance_schema: 20 s waited in 10 s = 2 AAS");
	wait_table_free(&t);
}

/* Gaps: no profile (server down) and fresh connections. */
static void test_gaps(void)
{
	struct wait_table t;
	wait_table_init(&t, 8);
	for (int k = 0; k < 2; k++) {
		struct wait_set *w = wait_set_new(WS_PG_WAIT_SAMPLING);
		w->period_ms = 10;
		wait_set_add(w, "IO:WALSync", 1000 + (uint64_t)k * 100, 0);
		wait_set_add(w, "CPU", 100, 0);
		wait_table_update(&t, w, 1.0, k == 0);
		wait_set_free(w);
	}
	CHECK_NEAR(aas(&t, "IO:WALSync"), 1.0, 1e-9, "gaps: known before the gap");
	wait_table_update(&t, NULL, 1.0, false);
	CHECK(isnan(aas(&t, "IO:WALSync")) && isnan(aas(&t, "CPU")), "gaps: no profile -> every event unknown");
	CHECK(isnan(hist(&t, "IO:WALSync", 0)) && isnan(hist(&t, "CPU", 0)), "gaps: no profile -> NaN history points, never 0");
	CHECK(hist(&t, "IO:WALSync", 1) == 1.0, "gaps: the point before the gap kept");
	CHECK(isnan(t.total_aas), "gaps: no profile -> total unknown");
	wait_table_update(&t, NULL, 1.0, true);
	CHECK(isnan(hist(&t, "IO:WALSync", 0)) && isnan(hist(&t, "IO:WALSync", 1)), "gaps: two intervals down, two gaps");
	/* back on a new connection: the cumulative baseline restarts */
	struct wait_set *w = wait_set_new(WS_PG_WAIT_SAMPLING);
	w->period_ms = 10;
	wait_set_add(w, "IO:WALSync", 5000, 0);
	wait_table_update(&t, w, 1.0, true);
	wait_set_free(w);
	CHECK(isnan(aas(&t, "IO:WALSync")), "gaps: first reading after reconnecting is unknown, not a spike");
	CHECK(isnan(aas(&t, "CPU")), "gaps: an event absent after reconnecting is unknown, not 0");
	w = wait_set_new(WS_PG_WAIT_SAMPLING);
	w->period_ms = 10;
	wait_set_add(w, "IO:WALSync", 5030, 0);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	CHECK_NEAR(aas(&t, "IO:WALSync"), 0.3, 1e-9, "gaps: then counts from the new connection's baseline");
	CHECK(aas(&t, "CPU") == 0, "gaps: and an absent tracked event is 0 again");
	CHECK(hist(&t, "CPU", 0) == 0 && isnan(hist(&t, "CPU", 1)), "gaps: its history: unknown after reconnecting, then 0");
	w = wait_set_new(WS_PG_WAIT_SAMPLING);
	w->period_ms = 10;
	wait_set_add(w, "IO:WALSync", 5030, 0);
	wait_set_add(w, "CPU", 40, 0);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	CHECK_NEAR(aas(&t, "CPU"), 0.4, 1e-9, "gaps: absent since reconnecting, then 40 samples: counted from 0");
	/* a fresh connection restarts the baseline even when counts went up
	 * (a restarted server's counts say nothing about the interval) */
	w = wait_set_new(WS_PG_WAIT_SAMPLING);
	w->period_ms = 10;
	wait_set_add(w, "IO:WALSync", 9000, 0);
	wait_table_update(&t, w, 1.0, true);
	wait_set_free(w);
	CHECK(isnan(aas(&t, "IO:WALSync")), "gaps: fresh connection without a gap restarts the baseline");

	/* performance_schema: same; the model calls with fresh when dt is not > 0 */
	struct wait_table p;
	wait_table_init(&p, 4);
	w = wait_set_new(WS_PERF_SCHEMA);
	wait_set_add(w, "wait/io/file/sql/binlog", 10, 1000);
	wait_table_update(&p, w, 1.0, true);
	wait_table_update(&p, NULL, NAN, false);
	wait_table_update(&p, w, 1.0, true);
	wait_set_free(w);
	CHECK(isnan(aas(&p, "wait/io/file/sql/binlog")) && isnan(find(&p, "wait/io/file/sql/binlog")->count_per_s),
	      "gaps: performance_schema after reconnecting unknown");
	CHECK(isnan(hist(&p, "wait/io/file/sql/binlog", 0)) && isnan(hist(&p, "wait/io/file/sql/binlog", 1)) &&
		      isnan(hist(&p, "wait/io/file/sql/binlog", 2)),
	      "gaps: performance_schema history: three gaps");
	/* a source that changes (another server behind the same target) */
	w = wait_set_new(WS_PG_WAIT_SAMPLING);
	w->period_ms = 10;
	wait_set_add(w, "wait/io/file/sql/binlog", 20, 0);
	wait_table_update(&p, w, 1.0, false);
	wait_set_free(w);
	CHECK(isnan(aas(&p, "wait/io/file/sql/binlog")), "gaps: a change of source restarts the baseline");
	wait_table_free(&p);

	/* sampled: a NULL profile is a gap too, and the next profile is known */
	struct wait_table s;
	wait_table_init(&s, 4);
	w = wait_set_new(WS_SAMPLED);
	w->rounds = 10;
	wait_set_add(w, "CPU", 10, 0);
	wait_table_update(&s, w, 1.0, true);
	wait_table_update(&s, NULL, 1.0, false);
	wait_table_update(&s, w, 1.0, true);
	wait_set_free(w);
	CHECK(hist(&s, "CPU", 0) == 1 && isnan(hist(&s, "CPU", 1)) && hist(&s, "CPU", 2) == 1,
	      "gaps: sampled history 1, gap, 1");
	wait_table_free(&s);
	wait_table_free(&t);
}

/* A new event's past is unknown, and the history is as long as asked. */
static void test_history(void)
{
	struct wait_table t;
	wait_table_init(&t, 4);
	for (int k = 0; k < 6; k++) {
		struct wait_set *w = wait_set_new(WS_SAMPLED);
		w->rounds = 4;
		wait_set_add(w, "CPU", (uint64_t)k, 0);
		if (k >= 4)
			wait_set_add(w, "IO:WALWrite", 2, 0);
		wait_table_update(&t, w, 1.0, false);
		wait_set_free(w);
	}
	const struct wait_entry *e = find(&t, "IO:WALWrite");
	CHECK(e && e->hist.len == 4 && e->hist.cap == 4, "history: a late event's ring is filled up to its length");
	CHECK(hist(&t, "IO:WALWrite", 0) == 0.5 && hist(&t, "IO:WALWrite", 1) == 0.5 && isnan(hist(&t, "IO:WALWrite", 2)) &&
		      isnan(hist(&t, "IO:WALWrite", 3)),
	      "history: before an event first showed its points are unknown, not 0");
	CHECK(hist(&t, "CPU", 0) == 1.25 && hist(&t, "CPU", 3) == 0.5, "history: the oldest points dropped");
	wait_table_free(&t);

	/* the screen's model keeps an hour (3,600 intervals): an event's ring
	 * holds a sparkline's width, the newest WAIT_HIST_MAX values */
	wait_table_init(&t, 3600);
	for (int k = 0; k < WAIT_HIST_MAX + 50; k++) {
		struct wait_set *w = wait_set_new(WS_SAMPLED);
		w->rounds = 1;
		wait_set_add(w, "CPU", (uint64_t)(k % 7 + 1), 0);
		wait_table_update(&t, w, 1.0, k == 0);
		wait_set_free(w);
	}
	e = find(&t, "CPU");
	CHECK(t.hist_len == WAIT_HIST_MAX && e && e->hist.cap == WAIT_HIST_MAX && e->hist.len == WAIT_HIST_MAX,
	      tname("history: 3,600 intervals asked, an event keeps %d (cap %zu, len %zu)", WAIT_HIST_MAX,
		    e ? e->hist.cap : 0, e ? e->hist.len : 0));
	CHECK(hist(&t, "CPU", 0) == (WAIT_HIST_MAX + 49) % 7 + 1 &&
		      hist(&t, "CPU", WAIT_HIST_MAX - 1) == (50 % 7) + 1 && isnan(hist(&t, "CPU", WAIT_HIST_MAX)),
	      tname("history: the newest %d values, in order; older ones unknown", WAIT_HIST_MAX));
	wait_table_free(&t);
}

/* More than WAIT_MAX events: the least recently active one goes. */
static void test_eviction(void)
{
	struct wait_table t;
	char nm[32];
	wait_table_init(&t, 8);
	for (int k = 0; k < 4; k++) {
		struct wait_set *w = wait_set_new(WS_SAMPLED);
		w->rounds = 1;
		for (int i = 0; i < WAIT_MAX; i++) {
			str_printf(nm, sizeof nm, "IO:Ev%02d", i);
			/* Ev05 active only in the first interval, Ev09 in the first two */
			wait_set_add(w, nm, (i == 5 && k > 0) || (i == 9 && k > 1) ? 0 : 1, 0);
		}
		wait_table_update(&t, w, 1.0, k == 0);
		wait_set_free(w);
	}
	size_t used = 0;
	for (size_t i = 0; i < WAIT_MAX; i++)
		used += t.e[i].used;
	CHECK(used == WAIT_MAX && find(&t, "IO:Ev05") && aas(&t, "IO:Ev05") == 0, "eviction: table full, idle event still tracked");
	struct wait_set *w = wait_set_new(WS_SAMPLED);
	w->rounds = 1;
	for (int i = 0; i < WAIT_MAX; i++) {
		str_printf(nm, sizeof nm, "IO:Ev%02d", i);
		wait_set_add(w, nm, i == 5 || i == 9 ? 0 : 1, 0);
	}
	wait_set_add(w, "IO:WALSync", 3, 0);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	CHECK(!find(&t, "IO:Ev05"), "eviction: the least recently active event (Ev05) goes");
	CHECK(find(&t, "IO:Ev09") && aas(&t, "IO:Ev09") == 0, "eviction: a more recently active one (Ev09) stays");
	CHECK(aas(&t, "IO:WALSync") == 3, "eviction: the new event is tracked with its value");
	CHECK(isnan(hist(&t, "IO:WALSync", 1)) && isnan(hist(&t, "IO:WALSync", 4)),
	      "eviction: the new event does not inherit the evicted one's history");
	/* next: another new event evicts Ev09 (active longer ago than the rest) */
	w = wait_set_new(WS_SAMPLED);
	w->rounds = 1;
	wait_set_add(w, "IO:WALWrite", 1, 0);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	CHECK(!find(&t, "IO:Ev09") && find(&t, "IO:WALWrite") && find(&t, "IO:WALSync") && find(&t, "IO:Ev00"),
	      "eviction: next the second least recently active (Ev09)");
	/* a cumulative source: every event's last reading is kept, tracked
	 * or not: an event first listed after the first reading counted 0
	 * there, and an evicted event that comes back counts from its last
	 * reading, never its whole cumulative count */
	struct wait_table p;
	wait_table_init(&p, 4);
	for (int k = 0; k < 3; k++) {
		w = wait_set_new(WS_PG_WAIT_SAMPLING);
		w->period_ms = 10;
		for (int i = 0; i < WAIT_MAX; i++) {
			str_printf(nm, sizeof nm, "IO:Ev%02d", i);
			wait_set_add(w, nm, 1000 + (i == 0 ? 0 : (uint64_t)k), 0);   /* Ev00 idle */
		}
		if (k == 2)
			wait_set_add(w, "IO:WALSync", 7, 0);
		wait_table_update(&p, w, 1.0, k == 0);
		wait_set_free(w);
	}
	CHECK(!find(&p, "IO:Ev00"), "eviction: cumulative: idle Ev00 out");
	CHECK_NEAR(aas(&p, "IO:WALSync"), 0.07, 1e-9, "eviction: cumulative: a new event counts from 0 (7 x 10 ms)");
	w = wait_set_new(WS_PG_WAIT_SAMPLING);
	w->period_ms = 10;
	for (int i = 0; i < WAIT_MAX; i++) {
		str_printf(nm, sizeof nm, "IO:Ev%02d", i);
		wait_set_add(w, nm, i == 0 ? 1010 : 1003, 0);
	}
	wait_set_add(w, "IO:WALSync", 7, 0);
	wait_table_update(&p, w, 1.0, false);
	wait_set_free(w);
	CHECK_NEAR(aas(&p, "IO:Ev00"), 0.1, 1e-9, "eviction: cumulative: the returning event counts from its last reading, not a spike");
	wait_table_free(&p);
	wait_table_free(&t);
}

/* Every performance_schema instrument on: hundreds of events listed, more
 * than the table tracks; the busiest have their rates from the second
 * reading on (every event's last reading is kept), the idle ones take no
 * slot, and when more events have a value than there are slots the
 * smallest are left out (counted). */
static void test_many_events(void)
{
	struct wait_table t;
	char nm[64];
	wait_table_init(&t, 4);
	for (int k = 0; k < 4; k++) {
		struct wait_set *w = wait_set_new(WS_PERF_SCHEMA);
		/* 300 mutexes: 100 busy (1..100 us per s), 200 idle since the start */
		for (int i = 0; i < 300; i++) {
			str_printf(nm, sizeof nm, "wait/synch/mutex/sql/M%03d", i);
			uint64_t c = 1000 + (i < 100 ? (uint64_t)k * 10 : 0);
			wait_set_add(w, nm, c, 1000000ull + (i < 100 ? (uint64_t)k * 1000 * (uint64_t)(i + 1) : 0));
		}
		wait_set_add(w, "wait/io/file/sql/binlog", 50 + (uint64_t)k * 400, 1000000000ull + (uint64_t)k * 300000000ull);
		wait_table_update(&t, w, 1.0, k == 0);
		wait_set_free(w);
		if (k == 0)
			continue;
		const struct wait_entry *r[WAIT_MAX];
		size_t n = wait_table_ranked(&t, r, WAIT_MAX);
		CHECK(n > 0 && strcmp(r[0]->name, "wait/io/file/sql/binlog") == 0 && fabs(r[0]->aas - 0.3) < 1e-9 &&
			      fabs(r[0]->count_per_s - 400) < 1e-9,
		      "many events: the binlog wait tops the list from the second reading (0.3 AAS, 400/s)");
		CHECK(aas(&t, "wait/synch/mutex/sql/M099") > 0 && aas(&t, "wait/synch/mutex/sql/M053") > 0,
		      "many events: the busiest mutexes tracked with a value");
		CHECK(aas(&t, "wait/synch/mutex/sql/M000") < 0 && aas(&t, "wait/synch/mutex/sql/M150") < 0,
		      "many events: the smallest and the idle ones take no slot");
		CHECK(t.untracked == 101 - WAIT_MAX, "many events: the events left out are counted");
	}
	wait_table_free(&t);
}

static void test_ranking(void)
{
	struct wait_table t;
	wait_table_init(&t, 4);
	struct wait_set *w = wait_set_new(WS_PERF_SCHEMA);
	wait_set_add(w, "wait/io/file/sql/binlog", 10, 1000000000ull);
	wait_set_add(w, "wait/io/file/innodb/innodb_data_file", 10, 1000000000ull);
	wait_set_add(w, "wait/lock/table/sql/handler", 10, 1000000000ull);
	wait_set_add(w, "wait/io/file/sql/binlog_index", 10, 1000000000ull);
	wait_set_add(w, "wait/io/file/myisam/kfile", 30, 5000000000ull);
	wait_table_update(&t, w, 1.0, true);
	wait_set_free(w);
	w = wait_set_new(WS_PERF_SCHEMA);
	wait_set_add(w, "wait/io/file/sql/binlog", 20, 1500000000ull);              /* 0.5 */
	wait_set_add(w, "wait/io/file/innodb/innodb_data_file", 20, 3000000000ull); /* 2 */
	wait_set_add(w, "wait/lock/table/sql/handler", 20, 1500000000ull);          /* 0.5 */
	wait_set_add(w, "wait/io/file/sql/binlog_index", 10, 1000000000ull);        /* 0 */
	wait_set_add(w, "wait/io/file/myisam/kfile", 20, 4000000000ull);            /* count went down: unknown */
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	const struct wait_entry *r[WAIT_MAX];
	size_t n = wait_table_ranked(&t, r, WAIT_MAX);
	CHECK(n == 4, "ranking: events with a known value (the unknown one out)");
	CHECK(n == 4 && strcmp(r[0]->name, "wait/io/file/innodb/innodb_data_file") == 0, "ranking: highest AAS first");
	CHECK(n == 4 && strcmp(r[1]->name, "wait/io/file/sql/binlog") == 0 &&
		      strcmp(r[2]->name, "wait/lock/table/sql/handler") == 0,
	      "ranking: equal AAS by name");
	CHECK(n == 4 && strcmp(r[3]->name, "wait/io/file/sql/binlog_index") == 0 && r[3]->aas == 0, "ranking: zero last");
	CHECK(wait_table_ranked(&t, r, 2) == 2 && strcmp(r[0]->name, "wait/io/file/innodb/innodb_data_file") == 0,
	      "ranking: at most max rows");
	CHECK_NEAR(t.total_aas, 3.0, 1e-9, "ranking: total over known events");
	wait_table_free(&t);
}

static void test_json(void)
{
	struct wait_table t;
	wait_table_init(&t, 4);
	char *j = json_of(&t, 20);
	CHECK_STR(j, "{\"waits\":null}", "json: waits null before any profile, nothing else");
	free(j);

	/* sampled */
	struct wait_set *w = wait_set_new(WS_SAMPLED);
	w->hz = 10;
	w->rounds = 10;
	w->cost_ms = 1.234;
	wait_set_add(w, "IO:WALSync", 5, 0);
	wait_set_add(w, "CPU", 15, 0);
	wait_set_add(w, "Lock:tuple", 1, 0);
	wait_table_update(&t, w, 1.0, true);
	wait_set_free(w);
	w = wait_set_new(WS_SAMPLED);
	w->hz = 10;
	w->rounds = 10;
	w->cost_ms = 1.234;
	wait_set_add(w, "IO:WALSync", 5, 0);
	wait_set_add(w, "CPU", 15, 0);
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	j = json_of(&t, 20);
	CHECK_STR(j,
		  "{\"waits\":[{\"event\":\"CPU\",\"class\":\"cpu\",\"aas\":1.5,\"time_ms_per_s\":1500,\"source\":\"sampled\"},"
		  "{\"event\":\"IO:WALSync\",\"class\":\"wal\",\"aas\":0.5,\"time_ms_per_s\":500,\"source\":\"sampled\"}],"
		  "\"waits_source\":\"sampled\",\"waits_sampler\":{\"hz\":10,\"samples\":10,\"ms_per_sample\":0.123}}",
		  "json: sampled: ranked events, zero-AAS Lock:tuple left out, waits_sampler");
	check_py(j, "import json,sys; d=json.load(sys.stdin); w=d[\"waits\"]; "
		    "assert [e[\"event\"] for e in w]==[\"CPU\",\"IO:WALSync\"]; "
		    "assert all(\"count_per_s\" not in e and \"avg_ms\" not in e for e in w); "
		    "assert d[\"waits_sampler\"]==dict(hz=10,samples=10,ms_per_sample=0.123)",
		 "json: sampled: valid JSON, no count_per_s/avg_ms");
	free(j);
	j = json_of(&t, 1);
	CHECK(strstr(j, "\"CPU\"") && !strstr(j, "IO:WALSync"), "json: --top limits the events");
	free(j);
	j = json_of(&t, 0);
	CHECK(strstr(j, "\"waits\":[]") && strstr(j, "\"waits_source\":\"sampled\""), "json: --top 0: empty list, source kept");
	free(j);
	/* rounds = 0: no event known, ms_per_sample null */
	w = wait_set_new(WS_SAMPLED);
	w->hz = 10;
	wait_table_update(&t, w, 1.0, false);
	wait_set_free(w);
	j = json_of(&t, 20);
	CHECK(strstr(j, "\"waits\":[]") && strstr(j, "\"samples\":0,\"ms_per_sample\":null"),
	      "json: no sample taken: no event, ms_per_sample null");
	free(j);
	wait_table_free(&t);

	/* pg_wait_sampling: no sampler member, no count_per_s */
	wait_table_init(&t, 4);
	for (int k = 0; k < 2; k++) {
		w = wait_set_new(WS_PG_WAIT_SAMPLING);
		w->period_ms = 10;
		wait_set_add(w, "IO:WalSync", 100 + (uint64_t)k * 12, 0);
		wait_set_add(w, "Lock:transactionid", 100, 0);
		wait_table_update(&t, w, 1.0, k == 0);
		wait_set_free(w);
	}
	j = json_of(&t, 20);
	CHECK_STR(j,
		  "{\"waits\":[{\"event\":\"IO:WalSync\",\"class\":\"wal\",\"aas\":0.12,\"time_ms_per_s\":120,"
		  "\"source\":\"pg_wait_sampling\"}],\"waits_source\":\"pg_wait_sampling\"}",
		  "json: pg_wait_sampling: no waits_sampler, no count_per_s, unchanged event left out");
	free(j);
	wait_table_free(&t);

	/* performance_schema: count_per_s and avg_ms */
	wait_table_init(&t, 4);
	for (int k = 0; k < 2; k++) {
		w = wait_set_new(WS_PERF_SCHEMA);
		wait_set_add(w, "wait/io/file/sql/binlog", 100 + (uint64_t)k * 300, 1000000ull + (uint64_t)k * 75000000ull);
		wait_set_add(w, "wait/io/file/innodb/innodb_data_file", 100, 1000000ull);
		wait_set_add(w, "wait/lock/table/sql/handler", 5 + (uint64_t)k * 3, 0);   /* counted, untimed */
		wait_table_update(&t, w, 1.0, k == 0);
		wait_set_free(w);
	}
	j = json_of(&t, 20);
	CHECK_STR(j,
		  "{\"waits\":[{\"event\":\"wait/io/file/sql/binlog\",\"class\":\"binlog\",\"aas\":0.075,"
		  "\"time_ms_per_s\":75,\"count_per_s\":300,\"avg_ms\":0.25,\"source\":\"performance_schema\"}],"
		  "\"waits_source\":\"performance_schema\"}",
		  "json: performance_schema: count_per_s and avg_ms, unchanged and untimed events left out");
	check_py(j, "import json,sys; d=json.load(sys.stdin); e=d[\"waits\"][0]; "
		    "assert e[\"class\"]==\"binlog\" and e[\"count_per_s\"]==300 and e[\"avg_ms\"]==0.25; "
		    "assert \"waits_sampler\" not in d",
		 "json: performance_schema: valid JSON");
	free(j);
	/* down: no profile -> nothing known, no zero rows */
	wait_table_update(&t, NULL, 1.0, false);
	j = json_of(&t, 20);
	CHECK(strstr(j, "\"waits\":[]") && !strstr(j, "\"aas\":0"), "json: no profile: no event reported as 0");
	free(j);
	/* hostile names stay valid JSON and terminal-safe */
	w = wait_set_new(WS_SAMPLED);
	w->rounds = 1;
	wait_set_add(w, "IO:\"q\\\x1b]0;x\x07\xff", 1, 0);
	wait_table_update(&t, w, 1.0, true);
	wait_set_free(w);
	j = json_of(&t, 20);
	CHECK(!strchr(j, 0x1b) && !strchr(j, 0x07), "json: hostile event name: no control characters");
	check_py(j, "import json,sys; d=json.load(sys.stdin); assert d[\"waits\"][0][\"event\"].startswith(\"IO:\\\"q\\\\\")",
		 "json: hostile event name: valid JSON, quote and backslash escaped");
	free(j);
	wait_table_free(&t);
}

/* A wait profile survives a recording: source, sampler figures, note and
 * every event with count and time; the model gives the same JSON. */
static void test_record_roundtrip(void)
{
	static const enum wait_source srcs[] = {WS_SAMPLED, WS_PG_WAIT_SAMPLING, WS_PERF_SCHEMA};
	for (size_t si = 0; si < sizeof srcs / sizeof srcs[0]; si++) {
		char path[] = "/tmp/dbtop-test-waits-XXXXXX", err[256], name[128];
		int fd = mkstemp(path);
		struct rec_header h = {.start_wall = 1e9, .interval = 1};
		struct recorder r;
		struct sample smp[2];
		struct wait_set *orig[2];
		struct rec_reader rd;
		struct rec_item it;
		const char *sn = wait_source_name(srcs[si]);
		if (fd >= 0)
			close(fd);
		unlink(path);   /* a recording is always a new file */
		str_copy(h.engine, sizeof h.engine, srcs[si] == WS_PERF_SCHEMA ? "mariadb" : "postgresql");
		bool wrote = rec_open_write(&r, path, &h, false, err, sizeof err) == 0;
		for (int k = 0; k < 2; k++) {
			memset(&smp[k], 0, sizeof smp[k]);
			smp[k].state = STATE_UP;
			smp[k].mono = 1 + k;
			smp[k].wall = 1e9 + 1 + k;
			struct wait_set *w = wait_set_new(srcs[si]);
			w->hz = srcs[si] == WS_SAMPLED ? 10 : 0;
			w->rounds = srcs[si] == WS_SAMPLED ? 9 + (unsigned)k : 0;
			w->period_ms = srcs[si] == WS_PG_WAIT_SAMPLING ? 10 : 0;
			w->cost_ms = srcs[si] == WS_SAMPLED ? 0.75 : 0;
			if (srcs[si] == WS_PERF_SCHEMA)
				str_copy(w->note, sizeof w->note, "redo-log file waits: wait/io/file/innodb/innodb_log_file is not enabled");
			bool ps = srcs[si] == WS_PERF_SCHEMA;
			wait_set_add(w, ps ? "wait/io/file/sql/binlog" : "IO:WALSync", 6000000000ull + (uint64_t)k * 40,
				     ps ? 5000000000000ull + (uint64_t)k * 123456789ull : 0);
			wait_set_add(w, ps ? "wait/lock/table/sql/handler" : "CPU", 3 + (uint64_t)k * 7, ps ? 999 : 0);
			orig[k] = w;
			smp[k].waits = w;
			wrote = wrote && rec_write_sample(&r, &smp[k], err, sizeof err) == 0;
		}
		rec_close(&r);
		str_printf(name, sizeof name, "record %s: two samples with wait profiles written", sn);
		CHECK(wrote, name);
		struct wait_table a, b;
		wait_table_init(&a, 4);
		wait_table_init(&b, 4);
		bool read = rec_open_read(&rd, path, NULL, 0, err, sizeof err) == 0;
		bool same = read;
		for (int k = 0; read && k < 2; k++) {
			if (rec_next(&rd, &it) != 1 || it.type != REC_SAMPLE || !it.sample.waits) {
				read = same = false;
				break;
			}
			const struct wait_set *g = it.sample.waits, *o = orig[k];
			same = same && g->source == o->source && g->hz == o->hz && g->rounds == o->rounds &&
			       g->period_ms == o->period_ms && g->cost_ms == o->cost_ms && strcmp(g->note, o->note) == 0 &&
			       g->n == o->n;
			for (size_t i = 0; same && i < g->n; i++)
				same = strcmp(g->rows[i].name, o->rows[i].name) == 0 && g->rows[i].count == o->rows[i].count &&
				       g->rows[i].time_ns == o->rows[i].time_ns;
			wait_table_update(&a, o, 1.0, k == 0);
			wait_table_update(&b, g, 1.0, k == 0);
			wait_set_free(it.sample.waits);
			it.sample.waits = NULL;
			digest_set_free(it.sample.digests);
			lock_set_free(it.sample.locks);
		}
		str_printf(name, sizeof name, "record %s: wait profiles read back", sn);
		CHECK(read, name);
		str_printf(name, sizeof name, "record %s: source, sampler figures, note, names, 64-bit counts and times kept", sn);
		CHECK(same, name);
		char *ja = json_of(&a, 20), *jb = json_of(&b, 20);
		str_printf(name, sizeof name, "record %s: replay gives the same waits JSON", sn);
		CHECK_STR(jb, ja, name);
		str_printf(name, sizeof name, "record %s: the replayed JSON has events", sn);
		CHECK(strstr(jb, "\"aas\":") != NULL, name);
		free(ja);
		free(jb);
		wait_table_free(&a);
		wait_table_free(&b);
		rec_reader_close(&rd);
		wait_set_free(orig[0]);
		wait_set_free(orig[1]);
		unlink(path);
	}
	/* a sample without a profile reads back without one */
	char path[] = "/tmp/dbtop-test-waits-XXXXXX", err[256];
	int fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	unlink(path);   /* a recording is always a new file */
	struct rec_header h = {.engine = "postgresql", .start_wall = 1e9, .interval = 1};
	struct recorder r;
	struct sample smp;
	struct rec_reader rd;
	struct rec_item it;
	memset(&smp, 0, sizeof smp);
	smp.state = STATE_DOWN;
	smp.mono = 1;
	bool ok = rec_open_write(&r, path, &h, false, err, sizeof err) == 0 && rec_write_sample(&r, &smp, err, sizeof err) == 0;
	rec_close(&r);
	ok = ok && rec_open_read(&rd, path, NULL, 0, err, sizeof err) == 0 && rec_next(&rd, &it) == 1 &&
	     it.type == REC_SAMPLE && it.sample.waits == NULL;
	CHECK(ok, "record: a sample without a wait profile reads back without one");
	rec_reader_close(&rd);
	unlink(path);
}

int main(void)
{
	have_python = system("command -v python3 >/dev/null 2>&1") == 0;
	test_classes();
	test_set();
	test_sampled();
	test_pg_wait_sampling();
	test_pg_profile_rows();
	test_perf_schema();
	test_gaps();
	test_history();
	test_eviction();
	test_many_events();
	test_ranking();
	test_json();
	test_record_roundtrip();
	return TAP_DONE();
}
