/* test_findings.c - every finding rule on model fixtures: it fires on the
 * seed pattern with its evidence, and stays quiet just outside it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/findings.h"
#include "../../model/model.h"
#include "../../core/tunables.h"
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

/* Digests over one second: COMMIT (calls/s at avg_ms) and one other
 * statement taking other_ms of statement time per second. */
static void digests(struct model *m, double calls, double avg_ms, double other_ms)
{
	for (int k = 0; k < 2; k++) {
		struct digest_set *s = xcalloc(1, sizeof *s);
		str_copy(s->source, sizeof s->source, "test");
		struct digest_row *r = digest_set_add(s);
		str_copy(r->key, sizeof r->key, "commit");
		r->text = xstrdup("COMMIT");
		r->c[DG_CALLS] = (uint64_t)(1000 + k * calls);
		r->c[DG_TOTAL_NS] = (uint64_t)(1e9 + k * calls * avg_ms * 1e6);
		r->have = 1u << DG_CALLS | 1u << DG_TOTAL_NS;
		r = digest_set_add(s);
		str_copy(r->key, sizeof r->key, "update");
		r->text = xstrdup("UPDATE `sbtest1` SET `k` = `k` + ? WHERE `id` = ?");
		r->c[DG_CALLS] = (uint64_t)(1000 + k * 500);
		r->c[DG_TOTAL_NS] = (uint64_t)(1e9 + k * other_ms * 1e6);
		r->have = 1u << DG_CALLS | 1u << DG_TOTAL_NS;
		digest_table_update(&m->dg, s, k ? 1.0 : NAN, k == 0, 1000 + k);
		digest_set_free(s);
	}
}

/* A MariaDB with flush=1 and sync_binlog=1 committing at commits/s. */
static void mysql_durable(struct model *m, double commits, double per)
{
	fresh(m, ENGINE_MYSQL, FLAVOUR_MARIADB);
	set_setting(m, "innodb_flush_log_at_trx_commit", "1");
	set_setting(m, "sync_binlog", "1");
	set_setting(m, "log_bin", "ON");
	set_rate(m, M_COMMITS, commits);
	set_rate(m, M_FSYNCS_PER_COMMIT, per);
	set_rate(m, M_BINLOG_FSYNCS, commits * per / 2);
}

static void test_commit_fsync_mysql(void)
{
	struct model m;
	struct finding f[FINDINGS_MAX];
	size_t n;
	const struct tunable *flush = tunable_find("innodb_flush_log_at_trx_commit", FLAVOUR_MARIADB, 0);
	const struct tunable *sb = tunable_find("sync_binlog", FLAVOUR_MARIADB, 0);

	/* seed 000: COMMIT the top digest at 20.7 ms, ~160 fsyncs/s */
	mysql_durable(&m, 80, 2.0);
	set_rate(&m, M_BINLOG_FSYNC_MS, 8.7);
	digests(&m, 80, 20.7, 300);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "seed 000: COMMIT 20.7 ms, 85% of statement time: commit-fsync fires");
	CHECK(n == 1 && strstr(f[0].evidence, "COMMIT avg 20.7 ms") && strstr(f[0].evidence, "85% of statement time") &&
		      strstr(f[0].evidence, "binlog sync 8.70 ms") && strstr(f[0].evidence, "2.00 fsyncs/commit") &&
		      strstr(f[0].evidence, "innodb_flush_log_at_trx_commit=1 sync_binlog=1"),
	      "commit-fsync: the evidence carries the latency, the share, the syncs and the settings");
	CHECK(n == 1 && f[0].tune == flush && strcmp(f[0].value, "2") == 0,
	      "commit-fsync: points at the innodb_flush_log_at_trx_commit row, value 2");
	CHECK(n == 1 && strstr(f[0].suggestion, "SET GLOBAL innodb_flush_log_at_trx_commit = 2") &&
		      strstr(f[0].suggestion, flush->trade),
	      "commit-fsync: the suggestion is the row's SQL and the row's trade");
	CHECK(n == 1 && strcmp(f[0].pane, "rates") == 0 && f[0].severity == SEV_WARN, "commit-fsync: a warning on the rates pane");
	model_free(&m);

	/* issue 16 item 10: the standard durable set-up on a healthy disk */
	mysql_durable(&m, 300, 2.0);
	set_rate(&m, M_BINLOG_FSYNC_MS, 0.15);
	digests(&m, 300, 0.41, 40);
	CHECK_STR(ids(&m, f, &n), "", "healthy: COMMIT 0.41 ms, binlog sync 0.15 ms at 2 fsyncs/commit: quiet");
	model_free(&m);
	mysql_durable(&m, 300, 2.0);
	digests(&m, 300, 2.4, 40);
	set_rate(&m, M_BINLOG_FSYNC_MS, 1.07);
	CHECK_STR(ids(&m, f, &n), "", "healthy but busy box: COMMIT 2.4 ms, binlog sync 1.07 ms: quiet");
	model_free(&m);

	/* issue 25: group commit keeps fsyncs per commit below 1 */
	mysql_durable(&m, 550, 0.7);
	set_rate(&m, M_BINLOG_FSYNC_MS, 4.1);
	digests(&m, 550, 15.5, 6700);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "issue 25: 0.7 fsyncs/commit, COMMIT 15.5 ms, 56% of statement time: fires");
	CHECK(n == 1 && strstr(f[0].evidence, "0.70 fsyncs/commit") && strstr(f[0].evidence, "56% of statement time"),
	      "issue 25: evidence");
	model_free(&m);

	/* the thresholds */
	mysql_durable(&m, 300, 1.0);
	digests(&m, 300, 4.9, 100);
	CHECK_STR(ids(&m, f, &n), "", "COMMIT 4.9 ms: below COMMIT_SLOW_MS, quiet");
	model_free(&m);
	mysql_durable(&m, 300, 1.0);
	digests(&m, 300, 5.1, 100);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "COMMIT 5.1 ms: fires");
	model_free(&m);
	mysql_durable(&m, 300, 1.0);
	digests(&m, 300, 8, 8000);
	CHECK_STR(ids(&m, f, &n), "", "COMMIT 8 ms but 23% of statement time: quiet");
	model_free(&m);
	mysql_durable(&m, 300, 1.0);
	set_rate(&m, M_BINLOG_FSYNC_MS, 5.0);
	set_rate(&m, M_REDO_FSYNC_MS, 1.9);
	digests(&m, 300, 12, 100);
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && f[0].tune == sb && strcmp(f[0].value, "0") == 0,
	      "redo sync measured fast (1.9 ms), binlog sync slow: the remedy is sync_binlog = 0");
	set_rate(&m, M_BINLOG_FSYNC_MS, 1.9);
	CHECK_STR(ids(&m, f, &n), "", "both syncs measured fast, COMMIT slow: not the sync, quiet");
	model_free(&m);

	/* after flush=2 the binlog sync is left: then sync_binlog (issue 25 acceptance 3) */
	mysql_durable(&m, 300, 0.6);
	set_setting(&m, "innodb_flush_log_at_trx_commit", "2");
	set_rate(&m, M_BINLOG_FSYNC_MS, 5.3);
	digests(&m, 300, 8.4, 100);
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && f[0].tune == sb && strstr(f[0].summary, "COMMIT 8.4 ms") &&
		      strstr(f[0].suggestion, "SET GLOBAL sync_binlog = 0") && strstr(f[0].suggestion, "replicas"),
	      "flush=2, sync_binlog=1, binlog sync 5.3 ms: SET GLOBAL sync_binlog = 0 with its risk");
	set_setting(&m, "sync_binlog", "0");
	CHECK_STR(ids(&m, f, &n), "", "flush=2, sync_binlog=0: no sync at commit, quiet");
	set_setting(&m, "sync_binlog", "1");
	set_setting(&m, "log_bin", "OFF");
	CHECK_STR(ids(&m, f, &n), "", "flush=2, sync_binlog=1 without a binary log: quiet");
	model_free(&m);

	/* no digests: COMMIT latency from the statement counters, the weight estimated */
	mysql_durable(&m, 100, 2.0);
	set_rate(&m, M_COMMIT_MS, 10);
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && strstr(f[0].evidence, "~1.0 sessions committing (estimate"),
	      "without digests: COMMIT 10 ms x 100/s = ~1 session committing, said to be an estimate");
	set_rate(&m, M_COMMITS, 20);
	CHECK_STR(ids(&m, f, &n), "", "without digests: 20 commits/s x 10 ms = 0.2 sessions: quiet");
	set_rate(&m, M_COMMITS, 2);
	CHECK_STR(ids(&m, f, &n), "", "2 commits/s: quiet");
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
	const struct tunable *sc = tunable_find("synchronous_commit", FLAVOUR_POSTGRESQL, 0);
	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	set_setting(&m, "synchronous_commit", "on");
	set_setting(&m, "wal_writer_delay", "200ms");
	set_rate(&m, M_COMMITS, 300);
	set_rate(&m, M_FSYNCS_PER_COMMIT, 1.0);
	set_rate(&m, M_WAL_SYNCS, 300);
	set_rate(&m, M_WAL_SYNC_MS, 4.0);
	struct wait_set *ws = wait_set_new(WS_SAMPLED);
	ws->rounds = 10;
	wait_set_add(ws, "IO:WALSync", 12, 0);
	wait_set_add(ws, "Lock:transactionid", 3, 0);
	wait_set_add(ws, "CPU", 30, 0);
	wait_table_update(&m.wt, ws, 1, false);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "PG: WAL sync 4 ms, IO:WALSync leading: commit-fsync fires");
	CHECK(n == 1 && strstr(f[0].summary, "IO:WALSync") && strstr(f[0].evidence, "WAL sync 4.00 ms") && f[0].tune == sc &&
		      strcmp(f[0].value, "off") == 0 &&
		      strstr(f[0].suggestion, "ALTER SYSTEM SET synchronous_commit = 'off'; SELECT pg_reload_conf()"),
	      "PG: names the event, the sync time, and the synchronous_commit row's SQL");
	/* the sessions found waiting on the WAL flush are role app's: its scope */
	{
		struct session_set *ss = session_set_new();
		const char *who[10] = {"app", "app", "app", "app", "app", "app", "app", "app", "reader", "app"};
		for (int i = 0; i < 10; i++) {
			struct session *x = session_add(ss, 100 + i);
			str_copy(x->user, sizeof x->user, who[i]);
			str_copy(x->db, sizeof x->db, "shop");
			str_copy(x->wait, sizeof x->wait, i % 2 ? "IO:WALSync" : "LWLock:WALWrite");
			x->cls = SC_ACTIVE;
		}
		m.last.wall = 5000;
		scope_evidence_add(&m.scope, ss, 4999);
		CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 &&
			      strstr(f[0].suggestion, "ALTER ROLE \"app\" SET synchronous_commit = 'off' (screen 5, a; new "
						      "sessions of role app only, running ones keep theirs") &&
			      strstr(f[0].suggestion, "it holds 9 of the 10 sessions found waiting on the WAL flush in 1 read"),
		      tname("PG: one role holds 9 of 10 flush waits: the remedy is for that role: %s", f[0].suggestion));
		/* the role has the value already (pg_db_role_setting): the
		 * finding says so and who still waits, never offers it again */
		m.scoped_read = true;
		m.nscoped = 1;
		str_copy(m.scoped[0].name, sizeof m.scoped[0].name, "synchronous_commit");
		str_copy(m.scoped[0].target, sizeof m.scoped[0].target, "app");
		str_copy(m.scoped[0].value, sizeof m.scoped[0].value, "off");
		m.scoped[0].scope = TK_PG_ROLE;
		CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 &&
			      strstr(f[0].suggestion, "role app already has synchronous_commit = off (pg_db_role_setting): "
						      "only its sessions started since take it; the ones still waiting "
						      "started before and keep on until they reconnect") &&
			      !strstr(f[0].suggestion, "ALTER ROLE"),
		      tname("PG: role app has it already: said, not offered again: %s", f[0].suggestion));
		m.scoped[0].scope = TK_PG_DATABASE;
		CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 &&
			      strstr(f[0].suggestion, "ALTER ROLE \"app\" SET synchronous_commit = 'off' (screen 5, a;"),
		      "PG: a database named app with the value is not role app: the role's remedy offered");
		m.nscoped = 0;
		m.scoped_read = false;
		m.last.wall = 5061;
		CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && strstr(f[0].suggestion, "ALTER SYSTEM SET"),
		      "PG: that read older than a minute: the whole server again");
		scope_evidence_clear(&m.scope);
		session_set_free(ss);
		m.last.wall = 0;
	}
	set_rate(&m, M_WAL_SYNC_MS, 0.2);
	CHECK_STR(ids(&m, f, &n), "", "PG healthy: WAL sync 0.2 ms with IO:WALSync leading: quiet");
	m.cur[M_WAL_SYNC_MS].st = RATE_INIT;
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && strstr(f[0].evidence, "WAL sync 4.00 ms (estimate"),
	      "PG without track_wal_io_timing: 1.2 sessions in IO:WALSync / 300 syncs/s = 4 ms, an estimate");
	set_rate(&m, M_WAL_SYNCS, 1200);
	set_rate(&m, M_FSYNCS_PER_COMMIT, 4.0);
	CHECK_STR(ids(&m, f, &n), "", "PG without timing: 1.2 sessions / 1200 syncs/s = 1 ms: quiet");
	set_rate(&m, M_WAL_SYNCS, 300);
	set_rate(&m, M_FSYNCS_PER_COMMIT, 1.0);
	set_rate(&m, M_WAL_SYNC_MS, 4.0);
	set_setting(&m, "synchronous_commit", "off");
	CHECK_STR(ids(&m, f, &n), "", "PG: quiet with synchronous_commit=off");
	set_setting(&m, "synchronous_commit", "on");
	set_rate(&m, M_FSYNCS_PER_COMMIT, 0.05);
	set_rate(&m, M_WAL_SYNCS, 15);
	CHECK_STR(ids(&m, f, &n), "", "PG: 0.05 WAL syncs per commit (the sessions commit asynchronously): quiet");
	set_rate(&m, M_FSYNCS_PER_COMMIT, 0.3);
	set_rate(&m, M_WAL_SYNCS, 90);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "PG: 0.3 WAL syncs per commit (group flush; least 0.45): fires");
	set_rate(&m, M_FSYNCS_PER_COMMIT, 1.0);
	ws->n = 0;
	wait_set_add(ws, "Lock:transactionid", 60, 0);
	wait_set_add(ws, "IO:WALSync", 9, 0);
	wait_table_update(&m.wt, ws, 1, false);
	set_rate(&m, M_COMMITS, 160);
	set_rate(&m, M_WAL_SYNCS, 160);
	set_rate(&m, M_WAL_SYNC_MS, 6.0);
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && strstr(f[0].summary, "busy 96% of the time") &&
		      strstr(f[0].evidence, "Lock:transactionid leads"),
	      "PG: a row lock held through a 6 ms flush leads, the flush busy 96%: fires (pgbench tpcb)");
	set_rate(&m, M_COMMITS, 50);
	set_rate(&m, M_WAL_SYNCS, 50);
	CHECK_STR(ids(&m, f, &n), "", "PG: a lock leads and the flush is busy 30%: quiet");
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
	CHECK(n == 1 && strstr(f[0].evidence, "wal_writer_delay=10ms") && f[0].tune &&
		      strcmp(f[0].tune->name, "wal_writer_delay") == 0 && strcmp(f[0].value, "1s") == 0 &&
		      strstr(f[0].suggestion, "ALTER SYSTEM SET wal_writer_delay = '1s'; SELECT pg_reload_conf()"),
	      "wal-writer-busy: evidence, and the wal_writer_delay row's value (1s) and SQL (issue 16 item 11)");
	CHECK(n == 1 && findings_top_remedy(f, n) == f[0].tune, "the top finding's remedy row is wal_writer_delay");
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

static void host(struct model *m, double wait_pct, double cores);

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
		      strstr(f[1].evidence, "ON DUPLICATE KEY UPDATE") && strstr(f[1].suggestion, "read first") &&
		      strstr(f[1].suggestion, "upsert only when the row is missing or changed") &&
		      strstr(f[1].suggestion, "no setting changes it") && f[1].tune == NULL,
	      "upsert-gap-lock: the two locks, the blocker's upsert, the seed's remedy in words, no setting");
	/* issue 30 item 3: idle for a real while, blocking for a real while */
	int w = lock_session_get(m.locks, 20), b = lock_session_get(m.locks, 10);
	m.locks->s[w].wait_s = 3.2;
	CHECK(strcmp(ids(&m, f, &n), "idle-root-blocker upsert-gap-lock") == 0 &&
		      strstr(f[0].summary, "idle in its transaction for 42.0 s, blocks 1 session (for 3.2 s)") &&
		      strstr(f[0].evidence, "the longest wait behind it 3.2 s"),
	      "idle-root-blocker: both durations, idle and blocking, in the summary and the evidence");
	m.locks->s[b].state_s = 0.0;
	CHECK_STR(ids(&m, f, &n), "upsert-gap-lock", "a client idle 0.0 s between two statements: no idle-root-blocker");
	m.locks->s[b].state_s = 5;
	m.locks->s[w].wait_s = 0.3;
	CHECK_STR(ids(&m, f, &n), "upsert-gap-lock", "idle 5 s but the wait behind it 0.3 s: not yet");
	m.locks->s[w].wait_s = 1.0;
	CHECK_STR(ids(&m, f, &n), "idle-root-blocker upsert-gap-lock", "idle 5 s, a wait of 1.0 s behind it: fires");
	/* a saturated host: its clients may wait seconds for a CPU between two statements */
	host(&m, 90, 1.8);
	CHECK_STR(ids(&m, f, &n), "upsert-gap-lock", "busy host: idle 5 s is a client's wait for a CPU, not a finding");
	/* the server idle (0.02 cores, no wait), the host under pressure: the
	 * clients starve, the same bar */
	host(&m, 90, 0.02);
	m.host.srv_wait_pct = 0;
	m.host.srv_wait_ms = 0;
	CHECK(!host_view_busy(&m.host) && host_view_pressured(&m.host), "the server not busy, the host pressured");
	CHECK_STR(ids(&m, f, &n), "upsert-gap-lock", "host pressured (PSI 90 %, 6 runnable on 2): idle 5 s is no finding");
	m.host.run_queue = 1;
	CHECK_STR(ids(&m, f, &n), "idle-root-blocker upsert-gap-lock", "PSI high but 1 runnable on 2 cores: idle 5 s fires");
	host(&m, 90, 1.8);
	m.locks->s[b].state_s = 12;
	CHECK(strcmp(ids(&m, f, &n), "idle-root-blocker upsert-gap-lock") == 0 &&
		      strstr(f[0].evidence, "the host's CPUs are busy: a client starved of CPU can sit this long") &&
		      strstr(f[0].suggestion, "look at its client first") && f[0].severity == SEV_WARN,
	      "busy host: idle 12 s fires as a warning, the evidence says the host is busy, the client is looked at first");
	memset(&m.host, 0, sizeof m.host);
	/* the host busy a while ago, not now: a client idle since before then
	 * may have been starved then (seen: pgbench -c 16 on one branch, a
	 * client idle 2-15 s in its transaction, 14 sessions behind it, the
	 * host's pressure coming and going) */
	m.locks->s[b].state_s = 5;
	m.host_busy_s = 3;
	CHECK_STR(ids(&m, f, &n), "upsert-gap-lock", "host busy 3 s ago, the client idle 5 s: no finding yet");
	m.host_busy_s = 6;
	CHECK(strcmp(ids(&m, f, &n), "idle-root-blocker upsert-gap-lock") == 0 && f[0].severity == SEV_CRIT &&
		      !strstr(f[0].evidence, "busy"),
	      "host busy 6 s ago, the client idle 5 s (since after it): critical, as on a quiet host");
	m.host_busy_s = 3;
	m.locks->s[b].state_s = 12;
	CHECK(strcmp(ids(&m, f, &n), "idle-root-blocker upsert-gap-lock") == 0 && f[0].severity == SEV_WARN &&
		      strstr(f[0].evidence, "the host's CPUs were busy while it idled") &&
		      strstr(f[0].suggestion, "look at its client first"),
	      "host busy 3 s ago, the client idle 12 s: a warning, the evidence says the host was busy while it idled");
	/* a graph kept under --server-budget (75b under stress-ng --cpu 2: a
	 * pgbench client seen idle 2 s, the graph kept 11 s, named as idle
	 * 13 s while the server never saw it idle 1 s): the read's figures */
	host(&m, 90, 1.8);
	m.host_busy_s = INFINITY;
	m.locks->s[b].state_s = 13;
	m.locks->s[w].wait_s = 12;
	m.locks->age_s = 11;
	CHECK_STR(ids(&m, f, &n), "upsert-gap-lock", "kept 11 s: seen idle 2 s on a busy host is no finding");
	m.locks->s[b].state_s = 21;
	m.locks->s[w].wait_s = 11.5;
	CHECK_STR(ids(&m, f, &n), "upsert-gap-lock", "kept 11 s: seen idle 10 s but the wait behind it 0.5 s: not yet");
	m.locks->s[w].wait_s = 13;
	CHECK(strcmp(ids(&m, f, &n), "idle-root-blocker upsert-gap-lock") == 0 &&
		      strstr(f[0].summary, "idle in its transaction for 10.0 s, blocks 1 session (for 2.0 s), as read 11 s ago") &&
		      strstr(f[0].evidence, "idle in transaction 10s"),
	      "kept 11 s: seen idle 10 s, a wait of 2 s behind it: fires with the read's figures and its age");
	memset(&m.host, 0, sizeof m.host);
	m.locks->s[b].state_s = 12.9;
	CHECK_STR(ids(&m, f, &n), "upsert-gap-lock", "a quiet host, kept 11 s: seen idle 1.9 s is no finding");
	m.locks->s[b].state_s = 13.1;
	CHECK(strcmp(ids(&m, f, &n), "idle-root-blocker upsert-gap-lock") == 0 && f[0].severity == SEV_CRIT,
	      "a quiet host, kept 11 s: seen idle 2.1 s is");
	m.locks->age_s = 0;
	lock_set_free(m.locks);
	m.locks = seed001(false, "active");
	CHECK_STR(ids(&m, f, &n), "upsert-gap-lock", "an insert-intention wait on a gap without an upsert still fires, no idle blocker");
	CHECK(n == 1 && !strstr(f[0].summary, "upsert"), "without an upsert the summary does not claim one");
	/* MariaDB 10.11: the insert intention is named X,GAP; the upsert holds
	 * X (next-key) on the unique key, the blocker between statements */
	lock_set_free(m.locks);
	m.locks = seed001(false, "active");
	str_copy(m.locks->e[0].requested, sizeof m.locks->e[0].requested, "X,GAP");
	str_copy(m.locks->e[0].held, sizeof m.locks->e[0].held, "X");
	str_copy(m.locks->e[0].object, sizeof m.locks->e[0].object, "retoday.website.uk_website_domain");
	lock_session_query(&m.locks->s[lock_session_get(m.locks, 20)],
			   "INSERT INTO website (id, domain) VALUES (UUID(), 'b.example') ON DUPLICATE KEY UPDATE hits = 1", true);
	CHECK_STR(ids(&m, f, &n), "upsert-gap-lock", "MariaDB: an upsert's insert intention (X,GAP) against an upsert's X");
	CHECK(n == 1 && strstr(f[0].summary, "inserts wait on an upsert's lock: X,GAP <- X on retoday.website.uk_website_domain") &&
		      strstr(f[0].evidence, "requested X,GAP <- held X"),
	      "MariaDB: the locks as the server names them");
	str_copy(m.locks->e[0].requested, sizeof m.locks->e[0].requested, "X");
	CHECK_STR(ids(&m, f, &n), "upsert-gap-lock", "upserts of the same key: X against X");
	CHECK(n == 1 && strstr(f[0].summary, "upserts wait on each other: X <- X on"), "... said as such");
	lock_session_query(&m.locks->s[lock_session_get(m.locks, 20)], "UPDATE website SET hits = 1 WHERE id = 2", true);
	CHECK_STR(ids(&m, f, &n), "", "an UPDATE waiting for X on X: not this finding");
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

/* The interval's log device (redo / WAL first) flushing in flush_ms. */
static void log_device(struct model *m, double flush_ms)
{
	m->ld.n = 1;
	struct logdev_rates *d = &m->ld.cur[0];
	memset(d, 0, sizeof *d);
	str_copy(d->name, sizeof d->name, "vda");
	d->ok = d->has_flush = true;
	d->flushes_s = 200;
	d->f_await_ms = flush_ms;
	d->writes_s = 400;
	d->w_await_ms = 0.1;
}

/* The host: the server's tasks wait wait_pct of the time they want a
 * CPU, using cores. */
static void host(struct model *m, double wait_pct, double cores)
{
	memset(&m->host, 0, sizeof m->host);
	m->host.seen = m->host.ok = true;
	m->host.ncpu = 2;
	m->host.cpu_some_pct = wait_pct;
	m->host.run_queue = wait_pct >= 50 ? 6 : 1;
	m->host.load1 = 3;
	m->host.srv_tasks = 40;
	m->host.srv_cpu = cores;
	m->host.srv_wait_pct = wait_pct;
	m->host.srv_wait_ms = wait_pct / 200;
}

/* Issue 30 item 1: a busy CPU is not blamed on the disk. */
static void test_commit_cause(void)
{
	struct model m;
	struct finding f[FINDINGS_MAX];
	size_t n;
	/* the screen: COMMIT 6.3 ms, binlog sync 2.40 ms, the device 0.17 ms, the host busy */
	mysql_durable(&m, 300, 2.0);
	set_rate(&m, M_BINLOG_FSYNC_MS, 2.396);
	digests(&m, 300, 6.3, 400);
	log_device(&m, 0.167);
	host(&m, 72, 0.4);
	CHECK_STR(ids(&m, f, &n), "commit-host-cpu", "busy host, fast device: commit-host-cpu, not commit-fsync");
	CHECK(n == 1 && !f[0].tune && strstr(f[0].summary, "not from the disk") && strstr(f[0].summary, "COMMIT 6.3 ms") &&
		      strstr(f[0].evidence, "vda flushes in 0.17 ms against binlog sync 2.40 ms") &&
		      strstr(f[0].evidence, "72% of their time") && strstr(f[0].suggestion, "no durability setting"),
	      "commit-host-cpu: no setting offered; the device beside the sync, the host's wait, why no setting");
	/* the same host idle: the sync's own layer is slow (a remedy, said so) */
	host(&m, 10, 0.4);
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && f[0].tune &&
		      strstr(f[0].evidence, "log device vda flushes in 0.17 ms") && strstr(f[0].evidence, "above the disk"),
	      "idle host, fast device, slow sync: commit-fsync with the remedy, the time said to be above the disk");
	CHECK(strstr(f[0].evidence, "the host is not busy") != NULL, "idle host measured: said not busy");
	/* the host not read (a recording without host figures): never said idle */
	memset(&m.host, 0, sizeof m.host);
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && strstr(f[0].evidence, "or a busy host: the host's CPU was not read") &&
		      !strstr(f[0].evidence, "not busy"),
	      "host not read, fast device, slow sync: a busy host not ruled out, never said idle");
	/* at the boundary the cause in force holds (CAUSE_KEEP): 55 % waiting
	 * is a busy host for a new finding, not enough to move commit-fsync;
	 * 45 % keeps commit-host-cpu */
	memset(&m.findings, 0, sizeof m.findings);
	host(&m, 55, 0.4);
	set_rate(&m, M_BINLOG_FSYNC_MS, 2.4);
	CHECK_STR(ids(&m, f, &n), "commit-host-cpu", "55% waiting, sync 2.2 ms above the device, nothing in force: the host");
	m.findings.n = 1;
	m.findings.f[0].id = "commit-fsync";
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "the same with commit-fsync in force: kept (55% < 62.5%)");
	host(&m, 70, 0.4);
	CHECK_STR(ids(&m, f, &n), "commit-host-cpu", "70% waiting: clear of the margin, the host even with commit-fsync in force");
	m.findings.f[0].id = "commit-host-cpu";
	host(&m, 45, 0.4);
	CHECK_STR(ids(&m, f, &n), "commit-host-cpu", "45% waiting with commit-host-cpu in force: kept (>= 40%)");
	set_rate(&m, M_BINLOG_FSYNC_MS, 3.5);
	host(&m, 60, 0.4);
	CHECK_STR(ids(&m, f, &n), "commit-host-cpu", "sync 3.3 ms above the device with commit-host-cpu in force: kept (< 3.75)");
	m.findings.n = 0;
	/* nothing in force on a busy host: the sync's own layer (its remedy
	 * gives up durability) needs the margin too (ci14, 75b: 3.00 ms above
	 * a 1.14 ms device at 74 % waiting, a 3.0 ms bound) */
	CHECK_STR(ids(&m, f, &n), "commit-host-cpu", "the same with nothing in force: still the host's (< 3.75)");
	set_rate(&m, M_BINLOG_FSYNC_MS, 4.14);
	log_device(&m, 1.14);
	host(&m, 74, 0.4);
	m.host.srv_wait_ms = 0.174;
	CHECK_STR(ids(&m, f, &n), "commit-host-cpu", "ci14's interval: 3.0 ms above a 1.14 ms device at 74% waiting, the host's");
	log_device(&m, 0.167);
	set_rate(&m, M_BINLOG_FSYNC_MS, 3.95);
	host(&m, 60, 0.4);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "nothing in force, 3.8 ms above the device: the sync's own (>= 3.75)");
	m.findings.n = 1;
	m.findings.f[0].id = "commit-fsync";
	set_rate(&m, M_BINLOG_FSYNC_MS, 2.8);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "commit-fsync in force, 2.6 ms above: kept (>= 2.4)");
	m.findings.n = 0;
	set_rate(&m, M_BINLOG_FSYNC_MS, 2.396);
	host(&m, 10, 0.4);
	/* an idle server's few wake-ups do not make a busy host */
	host(&m, 80, 0.01);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "a wait share of 80% on 0.01 cores (0.05 wanted) is not a busy host");
	/* a sync 5 ms above a fast device on a busy host: the sync, not the CPU (the test shim) */
	host(&m, 72, 0.4);
	set_rate(&m, M_BINLOG_FSYNC_MS, 5.3);
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && f[0].tune,
	      "busy host, sync 5.3 ms above a 0.17 ms device: commit-fsync (more than the host's 3 ms)");
	/* the same at 77 % waiting, each wait 0.15 ms (77_seed000 in CI: a
	 * 4 ms sleep in every fsync, lint beside): 5.1 ms above the device
	 * is 34 mean waits, the sync's own */
	host(&m, 77, 0.3);
	m.host.srv_wait_ms = 0.148;
	set_rate(&m, M_BINLOG_FSYNC_MS, 5.247);
	log_device(&m, 0.140);
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && f[0].tune,
	      "77% waiting, 0.15 ms a wait, sync 5.1 ms above the device: commit-fsync (the rise needs long waits)");
	m.host.srv_wait_ms = 0.4;
	CHECK_STR(ids(&m, f, &n), "commit-host-cpu", "the same with 0.4 ms a wait (16 waits: 6.4 ms): the host's");
	log_device(&m, 0.167);
	set_rate(&m, M_BINLOG_FSYNC_MS, 5.3);
	host(&m, 92, 0.4);
	CHECK_STR(ids(&m, f, &n), "commit-host-cpu", "a saturated host (92% waiting): 5.3 ms above the device is the host's");
	CHECK(!f[0].tune && strstr(f[0].evidence, "the sync is 5.1 ms above the device") &&
		      strstr(f[0].evidence, "a slow sync layer may be part of it") &&
		      strstr(f[0].suggestion, "once the CPUs are free"),
	      "the two causes alike (5.1 ms above the device on a saturated host): the host's, the sync's layer named "
	      "as possible, no setting");
	set_rate(&m, M_BINLOG_FSYNC_MS, 2.4);
	CHECK(strcmp(ids(&m, f, &n), "commit-host-cpu") == 0 && !strstr(f[0].evidence, "sync layer") &&
		      !strstr(f[0].suggestion, "CPUs are free"),
	      "a saturated host, 2.2 ms above the device (a busy host's usual): no sync layer named");
	set_rate(&m, M_BINLOG_FSYNC_MS, 5.3);
	set_rate(&m, M_BINLOG_FSYNC_MS, 12.5);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "a saturated host: 12.5 ms above the device is the sync's own");
	/* a host saturated further (75b beside two more hogs): mean waits of
	 * 5.6 ms stretch a sync by 5 of them */
	host(&m, 98, 0.4);
	m.host.srv_wait_ms = 5.646;
	log_device(&m, 0.488);
	set_rate(&m, M_BINLOG_FSYNC_MS, 29.449);
	CHECK_STR(ids(&m, f, &n), "commit-host-cpu", "98% waiting, 5.6 ms a wait: 29 ms above the device is the host's");
	set_rate(&m, M_BINLOG_FSYNC_MS, 63.0);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "... 62.5 ms above it (over 1.25 x 50 ms): the sync's own");
	log_device(&m, 0.167);
	host(&m, 72, 0.4);
	/* the device itself slow: the disk, busy host or not */
	set_rate(&m, M_BINLOG_FSYNC_MS, 2.4);
	log_device(&m, 2.3);
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && f[0].tune && strstr(f[0].evidence, "the disk is slow"),
	      "the device flushes in 2.3 ms: commit-fsync, the disk is slow");
	/* a competing writer on the log's device (96_logdev in CI, lint
	 * beside): the flush 1.87 ms under a 2.45 ms sync is the disk's */
	log_device(&m, 1.87);
	set_rate(&m, M_BINLOG_FSYNC_MS, 2.45);
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && f[0].tune && strstr(f[0].evidence, "the disk is slow"),
	      "busy host, the device 1.87 ms of a 2.45 ms sync: commit-fsync, the disk is slow");
	log_device(&m, 0.9);
	CHECK_STR(ids(&m, f, &n), "commit-host-cpu", "busy host, a healthy 0.9 ms device under a 2.45 ms sync: the host's");
	/* the same writer beside a CI run: the flush 1.2 ms under a 3.0 ms
	 * sync, but the device's writes 4.5 ms (the sync's write waits
	 * behind the writer's): the disk's, not the host's */
	log_device(&m, 1.2);
	m.ld.cur[0].w_await_ms = 4.5;
	set_rate(&m, M_BINLOG_FSYNC_MS, 3.0);
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && f[0].tune &&
		      strstr(f[0].evidence, "flushes in 1.20 ms, its writes in 4.50 ms (200 flushes/s): the disk is slow"),
	      "busy host, the device's flush 1.2 ms and its writes 4.5 ms under a 3.0 ms sync: commit-fsync, the disk");
	/* no write completed in the interval: the flush alone is the device's part */
	m.ld.cur[0].writes_s = 0;
	CHECK(strcmp(ids(&m, f, &n), "commit-host-cpu") == 0 && !strstr(f[0].evidence, "its writes"),
	      "the same without writes: the 1.2 ms flush alone, under a 3.0 ms sync: the host's");
	/* a saturated host stretches the kernel's completions of writes and
	 * flushes alike (75b here: 0.76 / 0.59 ms, 1.69 / 1.17 ms): the
	 * longer, not their sum, so the host's stays the host's */
	log_device(&m, 0.76);
	m.ld.cur[0].w_await_ms = 0.59;
	set_rate(&m, M_BINLOG_FSYNC_MS, 2.2);
	CHECK(strcmp(ids(&m, f, &n), "commit-host-cpu") == 0 && !strstr(f[0].evidence, "its writes"),
	      "busy host, the device's flush 0.76 ms and writes 0.59 ms under a 2.2 ms sync: the host's (not 1.35 ms of disk)");
	log_device(&m, 0.9);
	set_rate(&m, M_BINLOG_FSYNC_MS, 2.45);
	set_rate(&m, M_BINLOG_FSYNC_MS, 2.4);
	log_device(&m, 2.3);
	/* MariaDB 10.8+ with sync_binlog=0: no sync timed, COMMIT the figure (up to two syncs) */
	set_rate(&m, M_BINLOG_FSYNC_MS, NAN);
	m.cur[M_BINLOG_FSYNC_MS].st = RATE_UNDEF;
	set_setting(&m, "sync_binlog", "0");
	log_device(&m, 0.2);
	digests(&m, 300, 5.5, 400);
	CHECK_STR(ids(&m, f, &n), "commit-host-cpu", "no sync timed, busy host: COMMIT 5.5 ms over a 0.2 ms device is the host's");
	digests(&m, 300, 12.5, 400);
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 && f[0].tune,
	      "no sync timed, busy host: COMMIT 12.5 ms over a 0.2 ms device (more than two host-stretched syncs): commit-fsync");
	set_setting(&m, "sync_binlog", "1");
	set_rate(&m, M_BINLOG_FSYNC_MS, 2.4);
	digests(&m, 300, 6.3, 400);
	log_device(&m, 2.3);
	/* no device figures (remote, ZFS) on a busy host: not shown to be the disk */
	m.ld.n = 0;
	CHECK_STR(ids(&m, f, &n), "commit-host-cpu", "no device figures, busy host, sync 2.4 ms: commit-host-cpu");
	memset(&m.host, 0, sizeof m.host);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "no device nor host figures (a remote server): commit-fsync as before");
	model_free(&m);

	/* PostgreSQL: WAL sync 2.5 ms over a 0.2 ms device on a busy host */
	/* (issue 30 item 8: the lock waits behind committing sessions are named in the evidence) */
	fresh(&m, ENGINE_POSTGRESQL, FLAVOUR_POSTGRESQL);
	set_setting(&m, "synchronous_commit", "on");
	set_rate(&m, M_COMMITS, 300);
	set_rate(&m, M_FSYNCS_PER_COMMIT, 1.0);
	set_rate(&m, M_WAL_SYNCS, 300);
	set_rate(&m, M_WAL_SYNC_MS, 2.5);
	log_device(&m, 0.2);
	host(&m, 70, 0.5);
	CHECK(strcmp(ids(&m, f, &n), "commit-host-cpu") == 0 && !f[0].tune && strstr(f[0].evidence, "WAL sync 2.50 ms"),
	      "PG busy host: commit-host-cpu, no synchronous_commit offered");
	set_rate(&m, M_WAL_SYNC_MS, 6.0);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "PG busy host, WAL sync 6 ms above a 0.2 ms device: commit-fsync");
	struct lock_set *ls = lock_set_new();
	for (int w = 0; w < 12; w++)
		lock_edge_add(ls, 100 + w, 7);
	int b = lock_session_get(ls, 7);
	str_copy(ls->s[b].state, sizeof ls->s[b].state, "active");
	lock_session_query(&ls->s[b], "END;", false);
	ls->status = LOCKS_READ;
	ls->waiting = 12;
	lock_set_analyse(ls);
	m.locks = ls;
	CHECK(strcmp(ids(&m, f, &n), "commit-fsync") == 0 &&
		      strstr(f[0].evidence, "12 sessions wait on row locks held by 1 committing session"),
	      "PG: 12 waiters behind a committing END are the commit finding's evidence, no idle-root-blocker");
	m.locks = NULL;
	lock_set_free(ls);
	model_free(&m);
}

/* One interval of the seed-000 model: commit-fsync's rule holds when on
 * (COMMIT 20.7 ms) or not (commits below the rule's floor); returns
 * whether commit-fsync is in force after findings_update. */
static bool hyst_step(struct model *m, bool on, double dt)
{
	set_rate(m, M_COMMITS, on ? 80 : 1);
	m->interval_s = dt;
	findings_update(m);
	for (size_t i = 0; i < m->findings.n; i++)
		if (strcmp(m->findings.f[i].id, "commit-fsync") == 0)
			return true;
	return false;
}

/* A run of intervals (1: the rule holds, 0: it does not) through the
 * hysteresis: how many times the finding was raised and cleared, and
 * the interval (0-based) of the first raise and of the last clear. */
static void hyst_run(struct model *m, const char *pat, int *raised, int *cleared, int *first, int *last)
{
	bool was = false;
	*raised = *cleared = 0;
	*first = *last = -1;
	for (int i = 0; pat[i]; i++) {
		bool now = hyst_step(m, pat[i] == '1', 1.0);
		if (now && !was && (*raised)++ == 0)
			*first = i;
		if (!now && was) {
			(*cleared)++;
			*last = i;
		}
		was = now;
	}
}

static void test_hysteresis(void)
{
	struct model m;
	struct finding f[FINDINGS_MAX];
	size_t n;
	int r, c, first, last;
	const struct hold_rule *h = hold_rule_for("commit-fsync");

	CHECK(h == hold_rule_for("finding") && h->raise_k == 2 && h->raise_n == 3 && h->clear_quiet == 3,
	      "hold_rules: a finding is raised in 2 of 3 intervals, cleared after 3 quiet ones");
	CHECK(hold_rule_for("lock-chain")->last_s == 3.0, "hold_rules: a lock chain is logged once it lasted 3 s");

	mysql_durable(&m, 80, 2.0);
	set_rate(&m, M_BINLOG_FSYNC_MS, 8.7);
	digests(&m, 80, 20.7, 300);
	CHECK_STR(ids(&m, f, &n), "commit-fsync", "hysteresis: the raw rule fires on its own (findings_eval)");
	/* the steady sysbench: the raw rule dips for an interval every few */
	hyst_run(&m, "011011101101101110110111011011000000000", &r, &c, &first, &last);
	CHECK(r == 1 && c == 1, tname("a flapping raw rule over 39 intervals: raised once (%d), cleared once (%d)", r, c));
	CHECK(first == 2 && last == 32, tname("raised at its second hit in 3 intervals (%d), cleared 3 quiet intervals after the last (%d)",
		    first, last));
	model_free(&m);

	mysql_durable(&m, 80, 2.0);
	set_rate(&m, M_BINLOG_FSYNC_MS, 8.7);
	digests(&m, 80, 20.7, 300);
	hyst_run(&m, "0001000000100000001000", &r, &c, &first, &last);
	CHECK(r == 0 && c == 0, tname("a one-interval blip every few: nothing raised (%d)", r));
	model_free(&m);

	/* held through a quiet interval: the evidence of its last interval, said by quiet */
	mysql_durable(&m, 80, 2.0);
	set_rate(&m, M_BINLOG_FSYNC_MS, 8.7);
	digests(&m, 80, 20.7, 300);
	hyst_run(&m, "11", &r, &c, &first, &last);
	CHECK(r == 1 && m.findings.n == 1 && m.findings.f[0].quiet == 0 && m.findings.recent == 1,
	      "two intervals: raised, its evidence this interval's");
	CHECK(hyst_step(&m, false, 1.0) && m.findings.f[0].quiet == 1 &&
		      strstr(m.findings.f[0].evidence, "COMMIT avg 20.7 ms"),
	      "a quiet interval: held, with the last evidence and quiet 1");
	CHECK(hyst_step(&m, false, 1.0) && !hyst_step(&m, false, 1.0) && m.findings.recent == 1,
	      "cleared after 3 quiet intervals; its rows still kept by the overview (recent 1)");
	for (int i = 0; i < 3; i++)
		hyst_step(&m, false, 1.0);
	CHECK(m.findings.recent == 0, tname("3 more quiet intervals: no longer recent (%zu)", m.findings.recent));
	model_free(&m);

	/* a reset: not UP, a new connection (no interval), a gap */
	mysql_durable(&m, 80, 2.0);
	set_rate(&m, M_BINLOG_FSYNC_MS, 8.7);
	digests(&m, 80, 20.7, 300);
	hyst_run(&m, "111", &r, &c, &first, &last);
	m.last.state = STATE_DOWN;
	CHECK(!hyst_step(&m, true, NAN) && m.findings.ntrack == 0, "DOWN: the findings start over");
	m.last.state = STATE_UP;
	CHECK(!hyst_step(&m, true, NAN) && hyst_step(&m, true, 1.0), "a new connection: raised again after 2 intervals");
	CHECK(!hyst_step(&m, true, 30.0) && hyst_step(&m, true, 30.0),
	      "a gap (30 s after 1 s intervals): starts over, raised again after 2 intervals");
	CHECK(hyst_step(&m, false, 20.0), "a slower interval than the one before, not a gap: held");
	model_free(&m);

	/* a host stalled for 2 s: one late refresh, a catch-up tick, then the
	 * regular second again (CI, both engines at once) */
	mysql_durable(&m, 80, 2.0);
	set_rate(&m, M_BINLOG_FSYNC_MS, 8.7);
	digests(&m, 80, 20.7, 300);
	hyst_run(&m, "1111", &r, &c, &first, &last);
	CHECK(hyst_step(&m, true, 1.871) && hyst_step(&m, true, 0.129) && hyst_step(&m, true, 1.0) &&
		      hyst_step(&m, true, 1.0) && m.findings.ntrack == 1,
	      "1.871 s, a 0.129 s catch-up tick, then 1 s: no gap, the finding held throughout");
	for (int i = 0; i < 30; i++)
		hyst_step(&m, true, 0.1);
	CHECK(!hyst_step(&m, true, 1.0), "after 30 intervals of 0.1 s, one of 1 s is a gap: starts over");
	model_free(&m);

	/* one rule, two causes: a cause that wavers does not raise and clear */
	mysql_durable(&m, 300, 2.0);
	set_rate(&m, M_BINLOG_FSYNC_MS, 2.396);
	digests(&m, 300, 6.3, 400);
	log_device(&m, 0.167);
	int switches = 0, gone = 0;
	const char *was = NULL;
	for (int i = 0; i < 24; i++) {
		/* 2 idle intervals, then the host busy every other one, then
		 * busy 4 in a row (beside stress-ng: 3-4 s) and idle 2, then
		 * busy for good */
		host(&m, i < 2 ? 10 : i < 10 ? (i % 2 ? 72 : 10) : i < 14 || i >= 16 ? 72 : 10, 0.4);
		m.interval_s = 1.0;
		findings_update(&m);
		const char *now = m.findings.n ? m.findings.f[0].id : NULL;
		if (i >= 1 && !now)
			gone++;
		if (was && now && strcmp(was, now) != 0)
			switches++;
		was = now;
		if (i == 9)
			CHECK(now && strcmp(now, "commit-fsync") == 0 && switches == 0 && gone == 0,
			      tname("a wavering cause: commit-fsync held in force, no switch, no clear (%s)", now ? now : "none"));
		if (i == 15)
			CHECK(now && strcmp(now, "commit-fsync") == 0 && switches == 0,
			      tname("the host busy 4 intervals in a row, then not: no switch (%s)", now ? now : "none"));
		if (i == 20) {
			const struct finding *f0 = &m.findings.f[0];
			CHECK(now && strcmp(now, "commit-fsync") == 0 && switches == 0,
			      tname("busy 5 in a row: not yet (%s)", now ? now : "none"));
			CHECK(now && f0->pending && strcmp(f0->pending, "commit-host-cpu") == 0 && f0->pending_run == 5,
			      tname("busy 5 in a row: the finding says commit-host-cpu is pending, 5 intervals (%d)",
				    now ? f0->pending_run : -1));
			struct strbuf js;
			sb_init(&js);
			findings_json(m.findings.f, m.findings.n, &js);
			CHECK(strstr(js.s, "\"pending\":{\"id\":\"commit-host-cpu\",\"intervals\":5,\"needed\":6}") != NULL,
			      "JSON: pending {id, intervals, needed}");
			sb_free(&js);
		}
		if (i == 15)
			CHECK(now && !m.findings.f[0].pending && m.findings.f[0].pending_run == 0,
			      "the in-force cause back: nothing pending");
		if (i == 21)
			CHECK(now && strcmp(now, "commit-host-cpu") == 0 && switches == 1 && !m.findings.f[0].pending,
			      tname("busy 6 in a row: switched, nothing pending (%s)", now ? now : "none"));
	}
	CHECK(was && strcmp(was, "commit-host-cpu") == 0 && switches == 1 && gone == 0,
	      tname("the host busy for good: one switch to commit-host-cpu, nothing cleared between (%d, %d)", switches, gone));
	model_free(&m);
}

int main(void)
{
	test_commit_fsync_mysql();
	test_commit_cause();
	test_commit_walsync_pg();
	test_wal_writer();
	test_locks();
	test_no_statistics();
	test_json();
	test_hysteresis();
	return tap_failed ? 1 : 0;
}
