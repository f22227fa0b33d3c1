/* test_findings.c - every finding rule on model fixtures: it fires on the
 * seed pattern with its evidence, and stays quiet just outside it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/findings.h"
#include "../../model/model.h"
#include "../../util/util.h"
#include "tap.h"

static void set_setting(struct model *m, const char *name, const char *value)
{
	for (size_t i = 0; i < m->nsettings; i++)
		if (strcmp(m->settings[i].name, name) == 0) {
			str_copy(m->settings[i].value, sizeof m->settings[i].value, value);
			return;
		}
	str_copy(m->settings[m->nsettings].name, sizeof m->settings[0].name, name);
	str_copy(m->settings[m->nsettings].value, sizeof m->settings[0].value, value);
	m->nsettings++;
}

static void set_rate(struct model *m, enum metric_id id, double v)
{
	m->cur[id].v = v;
	m->cur[id].st = RATE_OK;
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
	model_set_caps(m, &c);
	m->last.state = STATE_UP;
	m->intervals = 2;
}

/* The findings' ids, space-separated. */
static const char *ids(const struct model *m, struct finding *f, size_t *n)
{
	static char buf[256];
	*n = findings_eval(m, f, FINDINGS_MAX);
	buf[0] = '\0';
	for (size_t i = 0; i < *n; i++) {
		strcat(buf, i ? " " : "");
		strcat(buf, f[i].id);
	}
	return buf;
}

static void test_commit_fsync_mysql(void)
{
	struct model m;
	struct finding f[FINDINGS_MAX];
	size_t n;
	fresh(&m, ENGINE_MYSQL, FLAVOUR_MARIADB);
	set_setting(&m, "innodb_flush_log_at_trx_commit", "1");
	set_setting(&m, "sync_binlog", "1");
	set_rate(&m, M_COMMITS, 160);
	set_rate(&m, M_FSYNCS_PER_COMMIT, 2.0);
	set_rate(&m, M_BINLOG_FSYNC_MS, 0.87);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "commit-fsync fires at 2 fsyncs/commit with flush=1 (seed 000)");
	CHECK(n == 1 && strstr(f[0].evidence, "2.00 fsyncs/commit") && strstr(f[0].evidence, "binlog sync 0.87 ms") &&
		      strstr(f[0].evidence, "innodb_flush_log_at_trx_commit=1 sync_binlog=1"),
	      "commit-fsync: the evidence carries the numbers and the settings");
	CHECK(n == 1 && strstr(f[0].suggestion, "innodb_flush_log_at_trx_commit=2") && strstr(f[0].suggestion, "lost"),
	      "commit-fsync: the remedy with its risk");
	CHECK(n == 1 && strcmp(f[0].pane, "rates") == 0 && f[0].severity == SEV_WARN, "commit-fsync: a warning on the rates pane");
	set_setting(&m, "innodb_flush_log_at_trx_commit", "2");
	set_rate(&m, M_FSYNCS_PER_COMMIT, 1.0);
	CHECK_STR(ids(&m, f, &n), "", "commit-fsync: quiet once flush=2 and 1 fsync per commit");
	set_setting(&m, "innodb_flush_log_at_trx_commit", "1");
	set_rate(&m, M_FSYNCS_PER_COMMIT, 2.0);
	set_rate(&m, M_COMMITS, 2);
	CHECK_STR(ids(&m, f, &n), "", "commit-fsync: quiet at 2 commits/s");
	m.cur[M_COMMITS].st = RATE_INIT;
	m.cur[M_COMMITS].v = NAN;
	CHECK_STR(ids(&m, f, &n), "", "commit-fsync: quiet while the rate is unknown");
	model_free(&m);
}

static void test_commit_walsync_pg(void)
{
	struct model m;
	struct finding f[FINDINGS_MAX];
	size_t n;
	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	set_setting(&m, "synchronous_commit", "on");
	set_setting(&m, "wal_writer_delay", "200ms");
	set_rate(&m, M_COMMITS, 300);
	set_rate(&m, M_FSYNCS_PER_COMMIT, 1.0);
	set_rate(&m, M_WAL_SYNCS, 300);
	set_rate(&m, M_WAL_SYNC_MS, 0.2);
	struct wait_set *ws = wait_set_new(WS_SAMPLED);
	ws->rounds = 10;
	wait_set_add(ws, "IO:WALSync", 12, 0);
	wait_set_add(ws, "Lock:transactionid", 3, 0);
	wait_set_add(ws, "CPU", 30, 0);
	wait_table_update(&m.wt, ws, 1, false);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "PG: commits waiting on the WAL flush fire when IO:WALSync leads the waits");
	CHECK(n == 1 && strstr(f[0].summary, "IO:WALSync") && strstr(f[0].suggestion, "synchronous_commit=off"),
	      "PG: names the event and the remedy");
	set_setting(&m, "synchronous_commit", "off");
	CHECK_STR(ids(&m, f, &n), "", "PG: quiet with synchronous_commit=off");
	set_setting(&m, "synchronous_commit", "on");
	ws->n = 0;
	wait_set_add(ws, "Lock:transactionid", 12, 0);
	wait_set_add(ws, "IO:WALSync", 2, 0);
	wait_table_update(&m.wt, ws, 1, false);
	CHECK_STR(ids(&m, f, &n), "", "PG: quiet when a lock, not the WAL flush, leads the waits");
	wait_set_free(ws);
	model_free(&m);
}

static void test_wal_writer(void)
{
	struct model m;
	struct finding f[FINDINGS_MAX];
	size_t n;
	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	set_setting(&m, "synchronous_commit", "off");
	set_setting(&m, "wal_writer_delay", "10ms");
	set_rate(&m, M_COMMITS, 400);
	set_rate(&m, M_WAL_SYNCS, 90);
	CHECK_STR(ids(&m, f, &n), "wal-writer-busy", "wal-writer-busy: 90 syncs/s for 400 async commits/s at 10ms (seed 004)");
	CHECK(n == 1 && strstr(f[0].evidence, "wal_writer_delay=10ms") && strstr(f[0].suggestion, "wal_writer_delay"),
	      "wal-writer-busy: evidence and remedy");
	set_setting(&m, "wal_writer_delay", "200ms");
	set_rate(&m, M_WAL_SYNCS, 5);
	CHECK_STR(ids(&m, f, &n), "", "wal-writer-busy: quiet at 200ms and 5 syncs/s");
	set_setting(&m, "wal_writer_delay", "1s");
	set_rate(&m, M_WAL_SYNCS, 90);
	CHECK_STR(ids(&m, f, &n), "", "wal-writer-busy: '1s' is read as 1000 ms");
	model_free(&m);
}

static struct lock_set *seed001(bool upsert, const char *state)
{
	struct lock_set *ls = lock_set_new();
	struct lock_edge *e = lock_edge_add(ls, 20, 10);
	str_copy(e->requested, sizeof e->requested, "X,GAP,INSERT_INTENTION");
	str_copy(e->held, sizeof e->held, "X,GAP");
	str_copy(e->object, sizeof e->object, "retoday.website.PRIMARY");
	int b = lock_session_get(ls, 10);
	str_copy(ls->s[b].state, sizeof ls->s[b].state, state);
	ls->s[b].state_s = 42;
	lock_session_query(&ls->s[b],
			   upsert ? "INSERT INTO website (id, domain) VALUES (?, ?) ON DUPLICATE KEY UPDATE hits = hits + 1"
				  : "UPDATE website SET hits = hits + 1 WHERE id = ?",
			   true);
	ls->status = LOCKS_READ;
	ls->waiting = 1;
	lock_set_analyse(ls);
	return ls;
}

static void test_locks(void)
{
	struct model m;
	struct finding f[FINDINGS_MAX];
	size_t n;
	fresh(&m, ENGINE_MYSQL, FLAVOUR_MYSQL);
	m.locks = seed001(true, "idle in transaction");
	CHECK_STR(ids(&m, f, &n), "idle-root-blocker upsert-gap-lock",
		  "seed 001: an idle root blocker (critical, first) and the upsert gap lock");
	CHECK(n == 2 && f[0].severity == SEV_CRIT && strstr(f[0].summary, "session 10") &&
		      strstr(f[0].evidence, "idle in transaction 42s"),
	      "idle-root-blocker: names the session and its state");
	CHECK(n == 2 && strstr(f[1].evidence, "X,GAP,INSERT_INTENTION <- held X,GAP") &&
		      strstr(f[1].evidence, "ON DUPLICATE KEY UPDATE") && strstr(f[1].suggestion, "read the row first"),
	      "upsert-gap-lock: the two locks, the blocker's upsert and the read-before-upsert remedy");
	lock_set_free(m.locks);
	m.locks = seed001(false, "active");
	CHECK_STR(ids(&m, f, &n), "upsert-gap-lock", "an insert-intention wait on a gap without an upsert still fires, no idle blocker");
	CHECK(n == 1 && !strstr(f[0].summary, "upsert"), "without an upsert the summary does not claim one");
	m.locks->status = LOCKS_IDLE;
	CHECK_STR(ids(&m, f, &n), "", "no lock finding when nothing was read");
	lock_set_free(m.locks);
	m.locks = NULL;
	model_free(&m);
}

static void test_no_statistics(void)
{
	struct model m;
	struct finding f[FINDINGS_MAX];
	size_t n;
	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	m.caps.pgss_version = 0;
	CHECK_STR(ids(&m, f, &n), "no-statement-statistics", "pg_stat_statements missing");
	CHECK(n == 1 && strstr(f[0].suggestion, "CREATE EXTENSION pg_stat_statements") && f[0].severity == SEV_INFO,
	      "the fix for pg_stat_statements, as information");
	model_free(&m);
	fresh(&m, ENGINE_MYSQL, FLAVOUR_MARIADB);
	m.caps.ps_digests = m.caps.perf_schema = false;
	CHECK_STR(ids(&m, f, &n), "no-statement-statistics", "performance_schema off");
	CHECK(n == 1 && strstr(f[0].suggestion, "performance_schema=ON"), "the fix for performance_schema");
	m.last.state = STATE_DOWN;
	CHECK_STR(ids(&m, f, &n), "", "no finding while the server is down");
	model_free(&m);
}

static void test_json(void)
{
	struct model m;
	struct finding f[FINDINGS_MAX];
	struct strbuf b;
	size_t n;
	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	m.caps.pgss_version = 0;
	n = findings_eval(&m, f, FINDINGS_MAX);
	sb_init(&b);
	findings_json(f, n, &b);
	static const char head[] = ",\"findings\":[{\"id\":\"no-statement-statistics\",\"severity\":\"info\",\"summary\":";
	CHECK(b.s && strncmp(b.s, head, sizeof head - 1) == 0 &&
		      strstr(b.s, "\"evidence\":") && strstr(b.s, "\"suggestion\":") && b.s[b.len - 1] == ']',
	      "findings JSON: id, severity, summary, evidence, suggestion");
	sb_free(&b);
	model_free(&m);
}

int main(void)
{
	test_commit_fsync_mysql();
	test_commit_walsync_pg();
	test_wal_writer();
	test_locks();
	test_no_statistics();
	test_json();
	return tap_failed ? 1 : 0;
}
