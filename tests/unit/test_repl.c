/* test_repl.c - synchronous replication on recorded rows: PostgreSQL
 * standbys (pg_stat_replication, with and without pg_monitor), MariaDB
 * semi-sync and MySQL 8 in both naming eras (rpl_semi_sync_master_* and,
 * from 8.0.26, rpl_semi_sync_source_*) mapped to struct repl; the model's
 * per-interval figures, the rates-pane lines, the finding raised and
 * cleared, JSON and the recording's field 34. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../util/util.h"
#include "../../model/findings.h"
#include "../../model/model.h"
#include "../../panes/rates.h"
#include "../../record/record.h"
#include "../../sources/repl_map.h"
#include "tap.h"
#include "fixture.h"

/* Map a status section (and a variables section, or NULL) into r. */
static void my_read(const struct fx *f, const char *status, const char *vars, struct repl *r)
{
	const struct fx_sec *s = fx_sec(f, status), *v = vars ? fx_sec(f, vars) : NULL;
	repl_my_begin(r, v != NULL);
	for (int i = 0; s && i < s->nrows; i++)
		if (repl_my_status_name(s->rows[i].cell[0]))
			repl_my_status(r, s->rows[i].cell[0], s->rows[i].cell[1]);
	for (int i = 0; v && i < v->nrows; i++)
		if (repl_my_var_name(v->rows[i].cell[0]))
			repl_my_var(r, v->rows[i].cell[0], v->rows[i].cell[1]);
	repl_my_finish(r);
}

static void pg_read(const struct fx *f, const char *sec, struct repl *r)
{
	const struct fx_sec *s = fx_sec(f, sec);
	repl_pg_begin(r);
	for (int i = 0; s && i < s->nrows; i++) {
		const char *cells[PGR__COUNT];
		for (int k = 0; k < PGR__COUNT; k++)
			cells[k] = k < s->rows[i].n ? s->rows[i].cell[k] : NULL;
		repl_pg_row(r, cells);
	}
}

static void fresh(struct model *m, enum engine e, enum flavour fl)
{
	struct caps c;
	model_init(m, 10);
	memset(&c, 0, sizeof c);
	c.engine = e;
	c.flavour = fl;
	c.perf_schema = c.ps_readable = c.ps_digests = true;
	c.pgss_version = 110;
	c.version_num = e == ENGINE_POSTGRESQL ? 150004 : 101106;
	model_set_caps(m, &c);
}

/* Two samples 1 s apart carrying r1 then r2. */
static void two_samples(struct model *m, const struct repl *r1, const struct repl *r2)
{
	struct sample s;
	memset(&s, 0, sizeof s);
	s.state = STATE_UP;
	s.mono = 100;
	s.wall = 1000;
	s.conn_gen = 1;
	s.repl = *r1;
	model_update(m, &s);
	s.mono = 101;
	s.wall = 1001;
	s.repl = *r2;
	model_update(m, &s);
}

static void set_setting(struct model *m, const char *name, const char *value)
{
	str_copy(m->settings[m->nsettings].name, sizeof m->settings[0].name, name);
	str_copy(m->settings[m->nsettings].value, sizeof m->settings[0].value, value);
	m->nsettings++;
}

static void set_rate(struct model *m, enum metric_id id, double v)
{
	m->cur[id].v = v;
	m->cur[id].st = RATE_OK;
}

/* The rates pane's replication lines, joined by " | ". */
static const char *lines(const struct model *m)
{
	static char buf[1400];
	char l[8][160];
	bool crit[8];
	int n = rates_replication(m, l, crit, 8);
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		strcat(buf, i ? " | " : "");
		strcat(buf, crit[i] ? "!" : "");
		strcat(buf, l[i]);
	}
	return buf;
}

static const struct finding *find(const struct model *m, struct finding *f, const char *id)
{
	size_t n = findings_eval(m, f, FINDINGS_MAX);
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].id, id) == 0)
			return &f[i];
	return NULL;
}

static void test_pg(void)
{
	struct fx f;
	struct repl r;
	struct model m;
	struct finding fs[FINDINGS_MAX];
	CHECK(fx_load(&f, "repl-pg-15.txt"), "PG: fixture loads");
	pg_read(&f, "standbys", &r);
	CHECK(r.kind == REPL_PG && r.n == 2 && !r.hidden, "PG: two standbys, columns visible");
	CHECK(strcmp(r.s[0].name, "s1") == 0 && strcmp(r.s[0].sync_state, "sync") == 0 &&
		      strcmp(r.s[0].state, "streaming") == 0 && strcmp(r.s[0].addr, "127.0.0.1") == 0,
	      "PG: s1 sync, streaming, its address");
	CHECK(r.s[0].sent_b == 0 && r.s[0].write_b == 704 && r.s[0].flush_b == 704 && r.s[0].replay_b == 704,
	      "PG: s1 bytes behind: sent 0, write / flush / replay 704");
	CHECK(fabs(r.s[0].flush_ms - 0.27) < 1e-9 && fabs(r.s[0].replay_ms - 0.31) < 1e-9 && fabs(r.s[0].reply_s - 9.02) < 1e-9,
	      "PG: s1 lag intervals and reply age");
	CHECK(isnan(r.s[1].flush_ms) && r.s[1].replay_b == 1048576 && strcmp(r.s[1].addr, "local") == 0,
	      "PG: s2: NULL flush lag is not a zero; 1 MiB replay behind; a unix socket");
	CHECK(repl_sync_standby(&r) == &r.s[0] && repl_sync_count(&r) == 1, "PG: the synchronous standby is s1");
	CHECK(repl_stalled_s(&r.s[0]) > 9 && repl_stalled_s(&r.s[1]) == 0, "PG: s1 stalled (WAL unflushed, no reply 9 s)");

	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	two_samples(&m, &r, &r);
	set_setting(&m, "synchronous_standby_names", "s1");
	set_setting(&m, "synchronous_commit", "on");
	const char *l = lines(&m);
	CHECK(strstr(l, "synchronous_standby_names='s1' synchronous_commit=on -> commits also wait for 1 standby: its flush") &&
		      strstr(l, "!standby s1 (sync, streaming): flush lag 704B / 0.3 ms, replay lag 704B / 0.3 ms, no reply for 9 s") &&
		      strstr(l, "standby s2 (async, streaming): flush lag 0B / -, replay lag 1.0M / 812.5 ms"),
	      "PG: the pane's lines: the configuration, s1 flagged, s2");
	if (!strstr(l, "no reply for 9 s"))
		printf("# %s\n", l);

	/* the finding: IPC:SyncRep leads, 4 sessions, 1 commit/s */
	struct wait_set *ws = wait_set_new(WS_SAMPLED);
	ws->rounds = 10;
	wait_set_add(ws, "IPC:SyncRep", 40, 0);
	wait_set_add(ws, "CPU", 2, 0);
	wait_table_update(&m.wt, ws, 1, false);
	wait_set_free(ws);
	set_rate(&m, M_COMMITS, 1);
	const struct finding *x = find(&m, fs, "commit-sync-replica");
	CHECK(x && strstr(x->summary, "commits wait for standby s1: no reply for 9 s") && x->severity == SEV_WARN &&
		      strstr(x->evidence, "IPC:SyncRep 4.00 active sessions") && strstr(x->evidence, "flush lag 704B") &&
		      strstr(x->suggestion, "synchronous_commit = local"),
	      "PG: commit-sync-replica names s1, its lag and the fix");
	/* healthy: the same waits at 4000 commits/s are 1 ms per commit */
	set_rate(&m, M_COMMITS, 4000);
	CHECK(!find(&m, fs, "commit-sync-replica"), "PG: 1 ms of SyncRep per commit: no finding (cleared)");
	/* no synchronous standby connected: critical, and the pane says commits hang */
	struct repl none;
	pg_read(&f, "none", &none);
	m.repl.r = none;
	set_rate(&m, M_COMMITS, 0);
	x = find(&m, fs, "commit-sync-replica");
	CHECK(x && x->severity == SEV_CRIT && strstr(x->summary, "not connected"), "PG: waits with no standby: critical");
	CHECK(strstr(lines(&m), "!synchronous_standby_names='s1' but no synchronous standby connected: commits hang"),
	      "PG: the pane says commits hang");
	model_free(&m);

	/* without pg_monitor */
	pg_read(&f, "hidden", &r);
	CHECK(r.hidden && r.n == 2 && r.s[0].flush_b == -1 && isnan(r.s[0].flush_ms) && strcmp(r.s[0].name, "s1") == 0,
	      "PG: without pg_monitor: names only, the rest unknown");
	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	two_samples(&m, &r, &r);
	CHECK(strstr(lines(&m), "2 standbys, state and lags hidden from this user: GRANT pg_monitor") != NULL,
	      "PG: the pane says the lags are hidden and the fix");
	model_free(&m);
	/* nothing configured, no walsender: nothing at all */
	pg_read(&f, "none", &r);
	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	two_samples(&m, &r, &r);
	CHECK_STR(lines(&m), "", "PG: no standby, nothing configured: no line");
	model_free(&m);
	fx_free(&f);
}

static void test_mariadb(void)
{
	struct fx f;
	struct repl a, b;
	struct model m;
	struct finding fs[FINDINGS_MAX];
	CHECK(fx_load(&f, "repl-mariadb-10.11.txt"), "MariaDB: fixture loads");
	my_read(&f, "status.1", "variables", &a);
	my_read(&f, "status.2", NULL, &b);
	CHECK(a.kind == REPL_SEMISYNC && !a.ss_source && a.ss_status == 1 && a.enabled == 1 && a.timeout_ms == 10000 &&
		      strcmp(a.wait_point, "AFTER_COMMIT") == 0,
	      "MariaDB: status ON, enabled, timeout 10000 ms, AFTER_COMMIT");
	CHECK(a.ss[SS_CLIENTS] == 1 && a.ss[SS_WAIT_SESSIONS] == 2 && a.ss[SS_YES_TX] == 10000 && a.ss[SS_NO_TX] == 3 &&
		      a.ss[SS_TX_AVG_US] == 812 && a.ss[SS_REPLICAS] == 1,
	      "MariaDB: clients, waiting sessions, yes / no, average, replicas connected");
	CHECK(b.enabled == -1 && !b.vars_fresh, "MariaDB: variables not read in sample 2");
	fresh(&m, ENGINE_MYSQL, FLAVOUR_MARIADB);
	two_samples(&m, &a, &b);
	CHECK(m.repl.r.enabled == 1 && m.repl.r.timeout_ms == 10000, "MariaDB: the model keeps the variables between reads");
	CHECK(fabs(m.repl.rt.yes_per_s - 400) < 1e-9 && fabs(m.repl.rt.no_per_s - 2) < 1e-9 &&
		      fabs(m.repl.rt.avg_wait_ms - 0.9) < 1e-9 && isnan(m.repl.rt.net_avg_ms),
	      "MariaDB: per interval: 400 acked/s, 2 not, 0.9 ms ack wait, no net figure");
	CHECK_STR(lines(&m), "semi-sync ON: 1 client, 3 waiting, ack wait 0.9 ms (net -), acked/s 400.0, not acked/s 2.0, "
			     "timeout 10000 ms, AFTER_COMMIT", "MariaDB: the pane's line");
	/* the finding: 0.9 ms of a 1.2 ms COMMIT at 400 commits/s; cleared with a 3 ms COMMIT */
	set_rate(&m, M_COMMITS, 400);
	set_rate(&m, M_COMMIT_MS, 1.2);
	const struct finding *x = find(&m, fs, "commit-sync-replica");
	CHECK(x == NULL, "MariaDB: ack 0.9 ms (< 1 ms): no finding");
	m.repl.rt.avg_wait_ms = 4.0;
	set_rate(&m, M_COMMIT_MS, 5.0);
	x = find(&m, fs, "commit-sync-replica");
	CHECK(x && strstr(x->summary, "ack 4.0 ms of COMMIT 5.0 ms") && strstr(x->evidence, "rpl_semi_sync_master_timeout=10000 ms") &&
		      strstr(x->suggestion, "rpl_semi_sync_master_timeout"),
	      "MariaDB: ack 4 ms of a 5 ms COMMIT: commit-sync-replica with the timeout");
	set_rate(&m, M_COMMIT_MS, 20.0);
	CHECK(!find(&m, fs, "commit-sync-replica"), "MariaDB: ack 4 ms of a 20 ms COMMIT: cleared");
	model_free(&m);
	/* off */
	my_read(&f, "status.off", "variables.off", &a);
	fresh(&m, ENGINE_MYSQL, FLAVOUR_MARIADB);
	two_samples(&m, &a, &a);
	CHECK_STR(lines(&m), "semi-sync off (rpl_semi_sync_master_enabled=OFF): 1 replica connected asynchronously, "
			     "commits do not wait for them", "MariaDB: off: the note");
	model_free(&m);
	fx_free(&f);
}

static void test_mysql8(void)
{
	struct fx f;
	struct repl a, b;
	struct model m;
	CHECK(fx_load(&f, "repl-mysql-8.0.36.txt"), "MySQL 8.0 (master names): fixture loads");
	my_read(&f, "status.1", "variables", &a);
	my_read(&f, "status.2", "variables", &b);
	CHECK(a.kind == REPL_SEMISYNC && !a.ss_source && a.wait_count == 1 && strcmp(a.wait_point, "AFTER_SYNC") == 0 &&
		      a.timeout_ms == 1000 && !(a.ss_have & (1u << SS_REPLICAS)),
	      "MySQL 8.0 master era: wait_for_slave_count, AFTER_SYNC, no Slaves_connected");
	fresh(&m, ENGINE_MYSQL, FLAVOUR_MYSQL);
	two_samples(&m, &a, &b);
	CHECK(fabs(m.repl.rt.no_per_s - 50) < 1e-9 && fabs(m.repl.rt.avg_wait_ms - 10) < 1e-9,
	      "MySQL 8.0: 50 commits/s not acknowledged, 10 ms ack wait this interval");
	CHECK(strstr(lines(&m), "!semi-sync enabled but OFF: no ack within rpl_semi_sync_master_timeout=1000 ms") != NULL,
	      "MySQL 8.0: fallen back to asynchronous: the warning names the timeout");
	model_free(&m);
	fx_free(&f);

	CHECK(fx_load(&f, "repl-mysql-8.4.3.txt"), "MySQL 8.4 (source names): fixture loads");
	my_read(&f, "status.1", "variables", &a);
	my_read(&f, "status.2", NULL, &b);
	CHECK(a.kind == REPL_SEMISYNC && a.ss_source && a.ss_status == 1 && a.enabled == 1 && a.wait_count == 1 &&
		      a.ss[SS_CLIENTS] == 1 && a.ss[SS_WAIT_SESSIONS] == 6,
	      "MySQL 8.4 source era: status, enabled, wait_for_replica_count, clients, waiting");
	fresh(&m, ENGINE_MYSQL, FLAVOUR_MYSQL);
	two_samples(&m, &a, &b);
	CHECK(fabs(m.repl.rt.yes_per_s - 300) < 1e-9 && fabs(m.repl.rt.avg_wait_ms - 5.5) < 1e-9,
	      "MySQL 8.4: 300 acked/s, 5.5 ms ack wait");
	struct finding fs[FINDINGS_MAX];
	set_rate(&m, M_COMMITS, 300);
	const struct finding *x = find(&m, fs, "commit-sync-replica");
	CHECK(x && strstr(x->summary, "ack 5.5 ms") && strstr(x->evidence, "rpl_semi_sync_source_timeout=10000 ms"),
	      "MySQL 8.4: COMMIT not timed, ack 5.5 ms: the finding, with the source names");
	/* no semi-sync at all (no plugin): nothing */
	repl_my_begin(&a, true);
	repl_my_status(&a, "Uptime", "100");
	repl_my_finish(&a);
	CHECK(a.kind == REPL_NONE, "MySQL without the plugin: not read, nothing shown");
	model_free(&m);
	fx_free(&f);
}

/* JSON and the recording's field 34 give back what was read. */
static void test_json_record(void)
{
	struct fx f;
	struct repl r;
	struct model m;
	struct strbuf b;
	char path[] = "/tmp/dbtop-test-repl-XXXXXX", err[256];
	CHECK(fx_load(&f, "repl-pg-15.txt"), "JSON: fixture loads");
	pg_read(&f, "standbys", &r);
	r.query_ms = 0.123;
	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	two_samples(&m, &r, &r);
	sb_init(&b);
	repl_json(&m.repl, &b);
	CHECK(strstr(b.s, ",\"replication\":{\"kind\":\"standbys\",\"query_ms\":0.123,\"standbys\":[{\"name\":\"s1\","
			  "\"client_addr\":\"127.0.0.1\",\"state\":\"streaming\",\"sync_state\":\"sync\",\"sent_lag_bytes\":0,"
			  "\"write_lag_bytes\":704,\"flush_lag_bytes\":704,\"replay_lag_bytes\":704,\"write_lag_ms\":0.27") != NULL &&
		      strstr(b.s, "\"flush_lag_ms\":null") && strstr(b.s, "\"columns_hidden\":false"),
	      "JSON: the standbys, unknowns as null");
	if (!strstr(b.s, "\"flush_lag_ms\":null"))
		printf("# %s\n", b.s);
	sb_free(&b);
	model_free(&m);

	int fd = mkstemp(path);
	close(fd);
	unlink(path);   /* a recording is always a new file */
	struct recorder rec;
	struct rec_header h;
	memset(&h, 0, sizeof h);
	str_copy(h.engine, sizeof h.engine, "postgresql");
	struct caps c;
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_POSTGRESQL;
	struct sample s, old;
	memset(&s, 0, sizeof s);
	memset(&old, 0, sizeof old);
	s.state = old.state = STATE_UP;
	s.repl = r;
	struct repl ss;
	fx_free(&f);
	CHECK(fx_load(&f, "repl-mysql-8.4.3.txt"), "record: fixture loads");
	my_read(&f, "status.1", "variables", &ss);
	struct sample s2 = s;
	s2.repl = ss;
	bool ok = rec_open_write(&rec, path, &h, false, err, sizeof err) == 0 && rec_write_caps(&rec, &c, 0, err, sizeof err) == 0 &&
		  rec_write_sample(&rec, &s, err, sizeof err) == 0 && rec_write_sample(&rec, &s2, err, sizeof err) == 0 &&
		  rec_write_sample(&rec, &old, err, sizeof err) == 0;
	rec_close(&rec);
	CHECK(ok, "record: three samples written");
	struct rec_reader rd;
	struct rec_item it;
	struct sample got[3];
	int n = 0;
	if (rec_open_read(&rd, path, NULL, 0, err, sizeof err) == 0) {
		while (n < 3 && rec_next(&rd, &it) == 1)
			if (it.type == REC_SAMPLE) {
				got[n++] = it.sample;
				sample_release(&it.sample);
			}
		rec_reader_close(&rd);
	}
	unlink(path);
	CHECK(n == 3 && memcmp(&got[0].repl, &s.repl, sizeof s.repl) == 0, "record: field 34 gives the standbys back");
	CHECK(n == 3 && got[1].repl.kind == REPL_SEMISYNC && got[1].repl.ss_source && got[1].repl.ss_have == ss.ss_have &&
		      memcmp(got[1].repl.ss, ss.ss, sizeof ss.ss) == 0 && got[1].repl.timeout_ms == 10000 &&
		      got[1].repl.wait_count == 1 && strcmp(got[1].repl.wait_point, "AFTER_SYNC") == 0 && got[1].repl.vars_fresh,
	      "record: field 34 gives semi-sync back");
	CHECK(n == 3 && got[2].repl.kind == REPL_NONE, "record: a sample without field 34 reads as not read");
	fx_free(&f);
}

int main(void)
{
	test_pg();
	test_mariadb();
	test_mysql8();
	test_json_record();
	return tap_failed ? 1 : 0;
}
