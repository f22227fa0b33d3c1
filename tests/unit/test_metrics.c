/* test_metrics.c - the /metrics renderer (app/metrics.c) on a model fed
 * through model_update(): raw counters as counters, the interval's gauges,
 * the wait profile, the lock graph, a finding; labels escaped; no password,
 * URI or statement text in the output; a down target keeps dbtop_up 0 and
 * drops every stale series; several targets with each family once; both
 * formats accepted by `promtool check metrics` when promtool is there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../app/metrics.h"
#include "../../config/dsn.h"
#include "../../model/locks.h"
#include "../../model/waits.h"
#include "../../util/util.h"
#include "tap.h"

/* One MariaDB sample at time t with n commits so far. */
static void sample_at(struct sample *s, double t, uint64_t n, enum source_state st)
{
	memset(s, 0, sizeof *s);
	s->mono = t;
	s->wall = 1.7e9 + t;
	s->state = st;
	s->query_ms = 3.5;
	s->nqueries = 4;
	if (st != STATE_UP) {
		str_copy(s->error, sizeof s->error, "connection refused");
		return;
	}
	sample_set(s, CTR_COMMITS, n, 1);
	sample_set(s, CTR_BINLOG_COMMITS, n, 1);
	sample_set(s, CTR_ROLLBACKS, 7, 1);
	sample_set(s, CTR_FSYNCS, 2 * n, 1);
	sample_set(s, CTR_REDO_FSYNCS, n, 1);
	sample_set(s, CTR_BINLOG_FSYNCS, n, 1);
	sample_set(s, CTR_BINLOG_FSYNC_NS, n * 4000000, 1);
	sample_set(s, CTR_COMMIT_STMTS, n, 1);
	sample_set(s, CTR_COMMIT_NS, n * 9000000, 1);
}

/* An upsert holding a gap lock that an insert waits on (the
 * upsert-gap-lock finding), the statement carrying a literal. */
static struct lock_set *upsert_locks(void)
{
	struct lock_set *ls = lock_set_new();
	int b = lock_session_get(ls, 10), w = lock_session_get(ls, 11);
	lock_session_query(&ls->s[b], "INSERT INTO users VALUES ('hunter2-literal') ON DUPLICATE KEY UPDATE n = n + 1",
			   false);
	str_copy(ls->s[b].state, sizeof ls->s[b].state, "Sleep");
	(void)w;
	struct lock_edge *e = lock_edge_add(ls, 11, 10);
	str_copy(e->requested, sizeof e->requested, "X,GAP,INSERT_INTENTION");
	str_copy(e->held, sizeof e->held, "X,GAP");
	str_copy(e->object, sizeof e->object, "app.users.PRIMARY");
	ls->status = LOCKS_READ;
	ls->waiting = 1;
	lock_set_analyse(ls);
	return ls;
}

/* A model of MariaDB at 200 commits/s with one lock chain and a wait profile. */
static void busy_model(struct model *m)
{
	struct caps c;
	struct sample s;
	model_init(m, 10);
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_MYSQL;
	c.flavour = FLAVOUR_MARIADB;
	str_copy(c.version, sizeof c.version, "10.11.6-MariaDB");
	model_set_caps(m, &c);
	for (int k = 0; k < 3; k++) {
		sample_at(&s, k, 1000 + 200 * (uint64_t)k, STATE_UP);
		s.locks = upsert_locks();
		s.waits = wait_set_new(WS_SAMPLED);
		s.waits->hz = 10;
		s.waits->rounds = 10;
		wait_set_add(s.waits, "Lock:transactionid", 20, 0);
		wait_set_add(s.waits, "IO:WALSync", 5, 0);
		model_update(m, &s);
		sample_release(&s);
	}
}

/* The rendered text of one target as a 0.0.4 or OpenMetrics exposition. */
static char *expose(const struct model *m, const char *server, bool om)
{
	struct metrics_text t;
	const struct metrics_text *tp = &t;
	struct strbuf out;
	metrics_text_init(&t);
	sb_init(&out);
	metrics_render(m, server, &t);
	metrics_expose(&tp, 1, om, &out);
	sb_putc(&out, '\0');
	metrics_text_free(&t);
	return out.s;
}

/* promtool check metrics on text: 1 passed, 0 failed, -1 no promtool. */
static int promtool(const char *text, char *why, size_t len)
{
	char path[] = "/tmp/dbtop-metrics-XXXXXX", cmd[256], line[256];
	int fd, rc;
	FILE *p;
	if (system("command -v promtool >/dev/null 2>&1") != 0)
		return -1;
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		str_copy(why, len, "cannot write a temp file");
		return 0;
	}
	close(fd);
	str_printf(cmd, sizeof cmd, "promtool check metrics < %s 2>&1", path);
	why[0] = '\0';
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof line, p))
		if (!why[0])
			str_copy(why, len, line);
	rc = p ? pclose(p) : -1;
	unlink(path);
	return rc == 0;
}

static void check_promtool(const char *text, const char *what)
{
	char why[256];
	int r = promtool(text, why, sizeof why);
	if (r < 0)
		printf("ok - promtool check metrics: %s # SKIP promtool not installed\n", what);
	else
		CHECK(r == 1, tname("promtool check metrics passes: %s%s%s", what, r ? "" : ": ", r ? "" : why));
}

static void test_up(void)
{
	struct model m;
	busy_model(&m);
	char *s = expose(&m, "db1", false);
	CHECK(strstr(s, "# TYPE dbtop_commits_total counter\ndbtop_commits_total{server=\"db1\"} 1400\n") != NULL,
	      "the commit counter is the server's raw count, a counter with _total");
	CHECK(strstr(s, "dbtop_fsyncs_total{server=\"db1\",kind=\"redo\"} 1400\n") &&
		      strstr(s, "dbtop_fsyncs_total{server=\"db1\",kind=\"binlog\"} 1400\n") &&
		      !strstr(s, "kind=\"wal\""),
	      "fsyncs by kind: redo and binlog, no wal on MariaDB");
	CHECK(strstr(s, "dbtop_fsync_seconds_total{server=\"db1\",kind=\"binlog\"} 5.6\n") != NULL,
	      "binlog sync time total in seconds (5.6 s)");
	CHECK(strstr(s, "dbtop_fsyncs_per_commit{server=\"db1\"} 2\n") != NULL, "fsyncs per commit: 2");
	CHECK(strstr(s, "dbtop_commit_latency_seconds{server=\"db1\"} 0.009\n") != NULL, "commit latency 9 ms in seconds");
	CHECK(strstr(s, "dbtop_fsync_latency_seconds{server=\"db1\",kind=\"binlog\"} 0.004\n") != NULL,
	      "binlog sync latency 4 ms in seconds");
	CHECK(strstr(s, "dbtop_wait_aas{server=\"db1\",event=\"Lock:transactionid\",class=\"lock\"}") &&
		      strstr(s, "dbtop_wait_class_aas{server=\"db1\",class=\"lock\"}"),
	      "wait AAS by event and class");
	CHECK(strstr(s, "dbtop_lock_waiting_sessions{server=\"db1\"} 1\n") && strstr(s, "dbtop_lock_roots{server=\"db1\"} 1\n") &&
		      strstr(s, "dbtop_lock_depth{server=\"db1\"} 1\n"),
	      "waiting sessions 1, one root, depth 1");
	CHECK(strstr(s, "dbtop_finding{server=\"db1\",id=\"upsert-gap-lock\",severity=\"warning\"} 1\n") != NULL,
	      "the active finding as dbtop_finding{id,severity} 1");
	CHECK(strstr(s, "dbtop_up{server=\"db1\"} 1\n") && strstr(s, "dbtop_sample_statements{server=\"db1\"} 4\n") &&
		      strstr(s, "dbtop_sample_query_seconds{server=\"db1\"} 0.0035\n"),
	      "dbtop_up 1 and the sampler's own cost");
	CHECK(!strstr(s, "hunter2") && !strstr(s, "INSERT") && !strstr(s, "DUPLICATE"),
	      "no statement text in the output (the finding's evidence quotes it; the metric does not)");
	CHECK(strstr(s, "# HELP dbtop_wait_aas ") && strstr(s, "# TYPE dbtop_wait_aas gauge\n"), "HELP and TYPE lines");
	check_promtool(s, "text 0.0.4, target up");
	free(s);

	s = expose(&m, "db1", true);
	CHECK(strstr(s, "# TYPE dbtop_commits counter\ndbtop_commits_total{server=\"db1\"} 1400\n") != NULL,
	      "OpenMetrics: the counter family named without _total, its sample with");
	CHECK(strlen(s) > 6 && strcmp(s + strlen(s) - 6, "# EOF\n") == 0, "OpenMetrics: ends with # EOF");
	free(s);
	model_free(&m);
}

static void test_down(void)
{
	struct model m;
	struct sample s;
	busy_model(&m);
	sample_at(&s, 3, 0, STATE_DOWN);
	model_update(&m, &s);
	sample_release(&s);
	char *t = expose(&m, "db1", false);
	CHECK(strstr(t, "dbtop_up{server=\"db1\"} 0\n") != NULL, "down: dbtop_up 0");
	CHECK(strstr(t, "dbtop_samples_total{server=\"db1\"} 4\n") && strstr(t, "dbtop_server_info{server=\"db1\""),
	      "down: the target's series stay (samples, info)");
	CHECK(!strstr(t, "dbtop_commits_total{") && !strstr(t, "dbtop_fsyncs_per_commit{") && !strstr(t, "dbtop_finding{") &&
		      !strstr(t, "dbtop_wait_aas{") && !strstr(t, "dbtop_lock_roots{"),
	      "down: no counter, gauge or finding (no stale values, no fake zeros)");
	check_promtool(t, "target down");
	free(t);
	model_free(&m);
}

static void test_labels(void)
{
	struct strbuf b;
	sb_init(&b);
	metrics_label(&b, "a\"b\\c\nd\te\x01 \xff\xc3\xa9");
	sb_putc(&b, '\0');
	CHECK_STR(b.s, "\"a\\\"b\\\\c\\nd?e? ?\xc3\xa9\"",
		  "label value: quote, backslash and newline escaped; controls and invalid UTF-8 replaced; UTF-8 kept");
	sb_free(&b);

	struct target t;
	char err[256];
	target_init(&t);
	int rc = target_parse(&t, "mysql://monitor:s3cret-pw@db.example.com:3307/app?ssl-mode=REQUIRED", err, sizeof err);
	target_make_label(&t);
	const char *server = metrics_label_safe("mysql://monitor:s3cret-pw@db.example.com:3307/app", t.label);
	struct model m;
	busy_model(&m);
	char *s = expose(&m, server, false);
	CHECK(rc == 0 && !strstr(s, "s3cret") && !strstr(s, "monitor") && !strstr(s, "://") && !strstr(s, "ssl-mode") &&
		      strstr(s, "server=\"db.example.com:3307\""),
	      tname("a URI with a password as the target: the label is host:port only (%s)", t.label));
	CHECK(strcmp(metrics_label_safe("primary-eu", "h:1"), "primary-eu") == 0 &&
		      strcmp(metrics_label_safe("u:p@h", "h:1"), "h:1") == 0 &&
		      strcmp(metrics_label_safe("host=h password=x", "h:1"), "h:1") == 0,
	      "a target name is the label unless it carries credentials or a connection string");
	free(s);
	s = expose(&m, "we\"ird\\name\n", false);
	CHECK(strstr(s, "dbtop_up{server=\"we\\\"ird\\\\name\\n\"} 1\n") != NULL, "the server label escaped in every line");
	check_promtool(s, "escaped labels");
	free(s);
	model_free(&m);
	target_free(&t);
}

static void test_several(void)
{
	struct model a, b;
	struct sample s;
	struct metrics_text ta, tb;
	const struct metrics_text *tp[3];
	struct strbuf out;
	busy_model(&a);
	busy_model(&b);
	sample_at(&s, 3, 0, STATE_DOWN);
	model_update(&b, &s);
	sample_release(&s);
	metrics_text_init(&ta);
	metrics_text_init(&tb);
	metrics_render(&a, "a", &ta);
	metrics_render(&b, "b", &tb);
	tp[0] = &ta;
	tp[1] = NULL;   /* a target not sampled yet */
	tp[2] = &tb;
	for (int om = 0; om < 2; om++) {
		sb_init(&out);
		metrics_expose(tp, 3, om, &out);
		sb_putc(&out, '\0');
		const char *x = strstr(out.s, "# TYPE dbtop_up gauge\n");
		CHECK(x && !strstr(x + 1, "# TYPE dbtop_up gauge") &&
			      strstr(out.s, "# TYPE dbtop_up gauge\ndbtop_up{server=\"a\"} 1\ndbtop_up{server=\"b\"} 0\n# HELP"),
		      tname("%s: three slots, each family once with every target's samples together", om ? "OpenMetrics" : "0.0.4"));
		if (!om)   /* promtool reads the 0.0.4 text; Prometheus parses OpenMetrics in 95_metrics */
			check_promtool(out.s, "two targets, one down");
		sb_free(&out);
	}
	metrics_text_free(&ta);
	metrics_text_free(&tb);
	model_free(&a);
	model_free(&b);
}

int main(void)
{
	test_up();
	test_down();
	test_labels();
	test_several();
	return tap_failed ? 1 : 0;
}
