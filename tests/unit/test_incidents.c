/* test_incidents.c - the incident capture without a server: triggers
 * parsed and held, one file per episode (window, trigger event, replay
 * opening at it), extension, cool-down, SIGUSR1, O_EXCL names, the count
 * limit (oldest first), the summary, the list, the /metrics series. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../app/metrics.h"
#include "../../model/model.h"
#include "../../record/incidents.h"
#include "../../record/record.h"
#include "../../util/util.h"
#include "tap.h"

static char dir[256];

static void test_parse(void)
{
	struct trigger t;
	char err[300];
	CHECK(trigger_parse("commit latency > 10ms for 5s", &t, err, sizeof err) == 0 && t.kind == TK_METRIC &&
		      t.arg == M_COMMIT_MS && t.op == TO_GT && t.value == 10 && t.hold == 5,
	      "parse: commit latency > 10ms for 5s");
	CHECK_STR(t.id, "commit-latency", "parse: its id");
	CHECK(trigger_parse("lock waiters >= 3", &t, err, sizeof err) == 0 && t.kind == TK_LOCK_WAITERS && t.op == TO_GE &&
		      t.value == 3 && t.hold == 0,
	      "parse: lock waiters >= 3");
	CHECK(trigger_parse("wait class IO > 2 AAS", &t, err, sizeof err) == 0 && t.kind == TK_WAIT_CLASS &&
		      t.arg == WC_IO && t.value == 2,
	      "parse: wait class IO > 2 AAS");
	CHECK_STR(t.id, "wait-io", "parse: wait class id");
	CHECK(trigger_parse("state DOWN", &t, err, sizeof err) == 0 && t.kind == TK_STATE && t.arg == STATE_DOWN,
	      "parse: state DOWN");
	CHECK(trigger_parse("state not UP for 500ms", &t, err, sizeof err) == 0 && t.arg == -1 && t.hold == 0.5,
	      "parse: state not UP for 500ms");
	CHECK(trigger_parse("slow: commit latency>0.01s", &t, err, sizeof err) == 0 && t.value == 10 &&
		      strcmp(t.id, "slow") == 0 && strcmp(t.text, "commit latency>0.01s") == 0,
	      "parse: NAME: and a glued comparison in s");
	CHECK(trigger_parse("fsyncs_per_commit > 1.5 for 2m", &t, err, sizeof err) == 0 && t.kind == TK_METRIC &&
		      t.arg == M_FSYNCS_PER_COMMIT && t.hold == 120,
	      "parse: a JSON rate key, for 2m");
	CHECK(trigger_parse("finding commit-fsync", &t, err, sizeof err) == 0 && t.kind == TK_FINDING &&
		      strcmp(t.finding, "commit-fsync") == 0,
	      "parse: finding ID");
	CHECK(trigger_parse("findings info", &t, err, sizeof err) == 0 && t.kind == TK_FINDINGS && t.arg == SEV_INFO,
	      "parse: findings info");
	static const char *const bad[] = {"commit latency 10ms", "bogus > 1", "state SLEEPY", "lock waiters > 3 for ever",
					  "", "commit latency > 10 parsecs", "wait class nap > 1"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		CHECK(trigger_parse(bad[i], &t, err, sizeof err) < 0 && err[0], tname("parse: refused: '%s' (%s)", bad[i], err));
	}
}

/* An idle root blocker 10 with waiters 20 and 21. */
static struct lock_set *chain(void)
{
	struct lock_set *ls = lock_set_new();
	lock_edge_add(ls, 20, 10);
	lock_edge_add(ls, 21, 10);
	int b = lock_session_get(ls, 10);
	str_copy(ls->s[b].user, sizeof ls->s[b].user, "app");
	str_copy(ls->s[b].state, sizeof ls->s[b].state, "idle in transaction");
	ls->s[b].state_s = 42;
	ls->s[b].trx_age_s = 42;
	lock_session_query(&ls->s[b], "UPDATE t SET v = 'secret' WHERE id = 1", true);
	ls->status = LOCKS_READ;
	ls->waiting = 2;
	lock_set_analyse(ls);
	return ls;
}

/* The sample at wall: UP (a chain when chained) or DOWN. */
static void sample_at(struct sample *s, double wall, enum source_state st, bool chained, uint64_t n)
{
	memset(s, 0, sizeof *s);
	s->wall = wall;
	s->mono = wall - 1e6;
	s->state = st;
	s->conn_gen = 1;
	if (st != STATE_UP) {
		str_copy(s->error, sizeof s->error, "connection refused");
		return;
	}
	s->uptime_s = wall - 1.7e9;
	sample_set(s, CTR_COMMITS, n * 10, 1);
	if (chained)
		s->locks = chain();
	if (n % 20 == 0) {
		s->settings_fresh = true;
		sample_setting(s, "innodb_flush_log_at_trx_commit", "1");
	}
}

struct run {
	struct model m;
	struct incidents inc;
	double wall;
	uint64_t n;
};

static void feed(struct run *r, double secs, enum source_state st, bool chained)
{
	for (double end = r->wall + secs; r->wall < end - 1e-9; r->wall += 0.5) {
		struct sample s;
		sample_at(&s, r->wall, st, chained, r->n++);
		model_update(&r->m, &s);
		incidents_feed(&r->inc, &r->m, &s);
		sample_release(&s);
	}
}

static void start(struct run *r, struct incident_cfg *cfg, const volatile sig_atomic_t *manual, double wall)
{
	char err[300];
	struct caps c;
	memset(r, 0, sizeof *r);
	memset(cfg, 0, sizeof *cfg);
	str_copy(cfg->dir, sizeof cfg->dir, dir);
	cfg->before = 4;
	cfg->after = 2;
	cfg->cooldown = 6;
	cfg->max_len = 3600;
	cfg->interval = 0.5;
	cfg->manual = manual;
	cfg->log = stderr;
	cfg->dbtop_version = "test";
	cfg->spool_dir = dir;
	trigger_default_findings(&cfg->trig[cfg->ntrig++]);
	trigger_parse("down: state DOWN", &cfg->trig[cfg->ntrig++], err, sizeof err);
	model_init(&r->m, 100);
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_MYSQL;
	c.flavour = FLAVOUR_MARIADB;
	str_copy(c.version, sizeof c.version, "10.11.6");
	model_set_caps(&r->m, &c);
	r->wall = wall;
	CHECK(incidents_open(&r->inc, cfg, "db1:3306", err, sizeof err) == 0, tname("incidents_open (%s)", err));
}

static int count_files(const char *ext)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		n += l > strlen(ext) && strcmp(de->d_name + l - strlen(ext), ext) == 0;
	}
	if (d)
		closedir(d);
	return n;
}

/* Read an incident file: samples, the first one's wall, the incident event's wall. */
static int read_file(const char *path, struct rec_header *h, double *first, double *ev_wall, int *down)
{
	struct rec_reader rd;
	struct rec_item *it = xmalloc(sizeof *it);
	char err[300];
	int n = 0;
	*first = *ev_wall = 0;
	*down = 0;
	if (rec_open_read(&rd, path, NULL, 0, err, sizeof err) < 0) {
		free(it);
		return -1;
	}
	*h = rd.hdr;
	while (rec_next(&rd, it) == 1) {
		if (it->type != REC_SAMPLE)
			continue;
		if (!n++)
			*first = it->sample.wall;
		*down += it->sample.state == STATE_DOWN;
		for (size_t i = 0; it->sample.events && i < it->sample.events->n; i++)
			if (it->sample.events->ev[i].kind == EV_INCIDENT)
				*ev_wall = it->sample.events->ev[i].wall;
		sample_release(&it->sample);
	}
	rec_reader_close(&rd);
	free(it);
	return n;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = xcalloc(1, 65536);
	if (f) {
		size_t n = fread(buf, 1, 65535, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

static void test_episodes(void)
{
	struct run r;
	struct incident_cfg cfg;
	struct rec_header h;
	double first, evw;
	int down;
	start(&r, &cfg, NULL, 1.8e9);
	feed(&r, 10, STATE_UP, false);
	CHECK(count_files(".dbrec") == 0, "quiet: no incident");
	/* raised at the second interval that saw it (the findings' hysteresis) */
	double trig = r.wall + 0.5;
	feed(&r, 3, STATE_UP, true);   /* an idle root blocker: idle-root-blocker (critical) */
	CHECK(r.inc.st == INC_OPEN && count_files(".dbrec") == 1, "a finding raised: an incident file is being written");
	char path[600];
	str_copy(path, sizeof path, r.inc.path);
	CHECK(strstr(path, "-db1_3306-idle-root-blocker.dbrec") != NULL, tname("its name: time, server, trigger (%s)", path));
	struct stat st;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "mode 0600");
	char *txt = NULL, base[600];
	str_printf(base, sizeof base, "%.*s", (int)strlen(path) - 6, path);
	txt = slurp(tname("%s.txt", base));
	CHECK(strstr(txt, "\nstatus: being written") != NULL, "the summary says it is being written");
	free(txt);
	feed(&r, 1.5, STATE_UP, false);
	CHECK(r.inc.st == INC_OPEN, "the chain ended 1.5 s ago, the finding cleared after 3 quiet intervals: still open (--after 2)");
	feed(&r, 2, STATE_UP, false);
	CHECK(r.inc.st == INC_IDLE, "2 s after the trigger cleared: closed");
	int n = read_file(path, &h, &first, &evw, &down);
	CHECK(n >= 17 && n <= 40, tname("the file holds the window: %d samples", n));
	CHECK(first <= trig - 4 + 1e-6, tname("it starts --before (4 s) ahead of the trigger or earlier (%.1f s)", trig - first));
	CHECK_NEAR(evw, trig, 1e-6, "the trigger's event sits at the trigger");
	CHECK_NEAR(h.open_at, trig, 1e-6, "the header opens the replay at the trigger");
	CHECK_STR(h.trigger, "idle-root-blocker", "the header names the trigger");
	CHECK_STR(h.host, "db1:3306", "the header names the server, no credentials");
	txt = slurp(tname("%s.txt", base));
	CHECK(strstr(txt, "\nstatus: complete") && strstr(txt, "session 10 (user app, idle in transaction") &&
		      strstr(txt, "blocked 2 sessions"),
	      "the summary: complete, the root blocker");
	CHECK(strstr(txt, "'secret'") != NULL, "without --redact the statement keeps its literal");
	free(txt);
	char *js = slurp(tname("%s.json", base));
	CHECK(strstr(js, "\"trigger\":{\"id\":\"idle-root-blocker\",\"kind\":\"finding\"") &&
		      strstr(js, "\"lock_roots\":[{\"session\":10,"),
	      "the JSON summary: trigger and root");
	free(js);

	/* cool-down: the same again 1 s later starts nothing; after it, a new one */
	feed(&r, 2, STATE_UP, true);
	CHECK(count_files(".dbrec") == 1 && r.inc.st == INC_IDLE, "within the cool-down: no second incident");
	feed(&r, 2, STATE_UP, false);
	feed(&r, 4, STATE_DOWN, false);
	CHECK(count_files(".dbrec") == 2 && r.inc.st == INC_OPEN, "after the cool-down a DOWN period starts one");
	CHECK(strstr(r.inc.path, "-down.dbrec") != NULL, "its trigger: down");
	/* extension: it stays raised, the file stays one */
	feed(&r, 10, STATE_DOWN, false);
	CHECK(count_files(".dbrec") == 2 && r.inc.st == INC_OPEN, "a trigger that stays raised extends the same file");
	str_copy(path, sizeof path, r.inc.path);
	feed(&r, 3, STATE_UP, false);
	CHECK(r.inc.st == INC_IDLE, "closed 2 s after UP");
	n = read_file(path, &h, &first, &evw, &down);
	CHECK(down >= 27, tname("the DOWN samples are in it (%d)", down));
	str_printf(base, sizeof base, "%.*s", (int)strlen(path) - 6, path);
	js = slurp(tname("%s.json", base));
	CHECK(strstr(js, "\"down\":[{\"from_ts\":") && !strstr(js, "\"to_ts\":null"), "its summary: the DOWN period, ended");
	free(js);
	const struct incident_stats *stt = incidents_stats(&r.inc);
	CHECK(stt->n == 2 && stt->last_wall > 0 && strstr(path, stt->last_file), "the stats count both, name the last");
	incidents_close(&r.inc);
	model_free(&r.m);
}

static void test_manual_and_limits(void)
{
	static volatile sig_atomic_t usr1;
	struct run r;
	struct incident_cfg cfg;
	start(&r, &cfg, &usr1, 1.8e9 + 1000);
	r.inc.cfg.max_count = 4;   /* (the two files of test_episodes are there) */
	r.inc.cfg.redact = true;
	feed(&r, 6, STATE_UP, false);
	usr1++;
	feed(&r, 3, STATE_UP, false);
	CHECK(count_files(".dbrec") == 3 && strstr(r.inc.path, "-manual.dbrec"), "SIGUSR1: a manual incident");
	feed(&r, 0.5, STATE_UP, false);
	usr1++;   /* within the cool-down: asked for, so kept */
	feed(&r, 1, STATE_UP, true);
	CHECK(count_files(".dbrec") == 4, "SIGUSR1 during the cool-down: kept all the same");
	char path[600], base[600];
	str_copy(path, sizeof path, r.inc.path);
	feed(&r, 3, STATE_UP, false);
	str_printf(base, sizeof base, "%.*s", (int)strlen(path) - 6, path);
	char *txt = slurp(tname("%s.txt", base));
	CHECK(!strstr(txt, "'secret'") && strstr(txt, "literals redacted"), "--redact: no literal in the summary");
	free(txt);
	/* a name taken: O_EXCL gives the next one "-2" */
	char taken[700];
	usr1++;
	str_printf(taken, sizeof taken, "%s", r.inc.path);
	feed(&r, 0.5, STATE_UP, false);
	CHECK(count_files(".dbrec") == 4, tname("the count limit (4): the oldest went (%d left)", count_files(".dbrec")));
	CHECK(r.inc.stats.removed == 1, "one file removed");
	incidents_close(&r.inc);

	struct incident_entry *e = NULL;
	char err[300], hostile[400];
	str_printf(hostile, sizeof hostile, "%s/2019\033]0;owned\007.dbrec", dir);
	int hfd = open(hostile, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (hfd >= 0)
		close(hfd);
	int n = incidents_list(dir, &e, err, sizeof err);
	CHECK(n == 4, tname("the list: 4 incidents, a name with control characters left out (%d)", n));
	bool order = true;
	for (int i = 1; i < n; i++)
		order &= e[i - 1].wall >= e[i].wall;
	CHECK(order, "the list: newest first");
	CHECK(n > 0 && strcmp(e[0].trigger, "manual") == 0 && strcmp(e[0].status, "cut") == 0 &&
		      strstr(e[0].line, "db1:3306  manual: "),
	      tname("the newest: manual, cut at exit, its summary line (%s)", n > 0 ? e[0].line : ""));
	CHECK(n > 0 && strcmp(e[n - 1].trigger, "down") == 0 && strcmp(e[n - 1].status, "complete") == 0,
	      "the oldest kept: the DOWN one (the first went), complete");
	free(e);
	model_free(&r.m);
}

static void test_exclusive_names(void)
{
	struct run r;
	struct incident_cfg cfg;
	start(&r, &cfg, NULL, 1.8e9 + 2000);
	/* the name the next trigger would take, made beforehand */
	char t[32], p[600];
	time_t tt = (time_t)r.wall;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(t, sizeof t, "%Y%m%dT%H%M%SZ", &tm);
	str_printf(p, sizeof p, "%s/%s-db1_3306-down.dbrec", dir, t);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1, "a file where the incident would go");
	close(fd);
	feed(&r, 1, STATE_DOWN, false);
	CHECK(strstr(r.inc.path, "-down-2.dbrec") != NULL, tname("O_EXCL: the incident takes the next name (%s)", r.inc.path));
	char *x = slurp(p);
	CHECK(strcmp(x, "x") == 0, "the file there is left as it was");
	free(x);
	incidents_close(&r.inc);
	model_free(&r.m);
}

/* --on-incident: run with the file, no shell, no password in its
 * environment; a failure and an overrun logged. */
static void test_program(void)
{
	struct run r;
	struct incident_cfg cfg;
	char prog[400], slow[400], logp[400], ran[400];
	str_printf(prog, sizeof prog, "%s/prog.sh", dir);
	str_printf(slow, sizeof slow, "%s/slow.sh", dir);
	str_printf(logp, sizeof logp, "%s/log.txt", dir);
	str_printf(ran, sizeof ran, "%s/ran.txt", dir);
	FILE *f = fopen(prog, "w");
	fprintf(f, "#!/bin/sh\necho \"$# $1 $DBTOP_INCIDENT_TRIGGER ${PGPASSWORD:-no-password}\" >'%s'\nexit 3\n", ran);
	fclose(f);
	f = fopen(slow, "w");
	fprintf(f, "#!/bin/sh\nexec sleep 30\n");
	fclose(f);
	chmod(prog, 0700);
	chmod(slow, 0700);
	setenv("PGPASSWORD", "hunter2", 1);
	start(&r, &cfg, NULL, 1.8e9 + 3000);
	FILE *log = fopen(logp, "w+");
	r.inc.cfg.log = log;
	str_copy(r.inc.cfg.on_incident, sizeof r.inc.cfg.on_incident, prog);
	r.inc.cfg.on_incident_timeout = 5;
	r.inc.cfg.cooldown = 0;
	feed(&r, 1, STATE_DOWN, false);
	char path[600];
	str_copy(path, sizeof path, r.inc.path);
	feed(&r, 3, STATE_UP, false);   /* closed: the program runs */
	for (int i = 0; i < 100 && r.inc.child[0]; i++) {
		usleep(20000);
		feed(&r, 0.5, STATE_UP, false);
	}
	char *x = slurp(ran), want[800];
	str_printf(want, sizeof want, "1 %s down no-password\n", path);
	CHECK_STR(x, want, "--on-incident: PROGRAM FILE, one argument, the trigger in its environment, no PGPASSWORD");
	free(x);
	str_copy(r.inc.cfg.on_incident, sizeof r.inc.cfg.on_incident, slow);
	r.inc.cfg.on_incident_timeout = 0.3;
	feed(&r, 1, STATE_DOWN, false);
	feed(&r, 3, STATE_UP, false);
	double until = clock_mono() + 5;
	while ((r.inc.child[0] || r.inc.child[1]) && clock_mono() < until) {
		usleep(50000);
		feed(&r, 0.5, STATE_UP, false);
	}
	incidents_close(&r.inc);
	fflush(log);
	fclose(log);
	x = slurp(logp);
	CHECK(strstr(x, "prog.sh") && strstr(x, "failed: exit status 3"), "--on-incident: a failure is logged");
	CHECK(strstr(x, "slow.sh") && strstr(x, "ran past") && strstr(x, "failed: Terminated"),
	      "--on-incident: past its time it is ended, and that is logged");
	CHECK(!strstr(x, "hunter2"), "no password in the log");
	free(x);
	unsetenv("PGPASSWORD");
	model_free(&r.m);
}

static void test_metrics(void)
{
	struct incident_stats st;
	struct model m;
	struct metrics_text t;
	memset(&st, 0, sizeof st);
	st.n = 1;
	str_copy(st.c[0].trigger, sizeof st.c[0].trigger, "commit-fsync");
	st.c[0].n = 2;
	st.last_wall = 1.8e9;
	str_copy(st.last_file, sizeof st.last_file, "20270115T080000Z-db1-commit-fsync.dbrec");
	str_copy(st.last_trigger, sizeof st.last_trigger, "commit-fsync");
	st.errors = 1;
	st.failing = true;
	model_init(&m, 10);
	metrics_text_init(&t);
	metrics_render_incidents(&m, &st, "db1", &t);
	const struct metrics_text *tp = &t;
	struct strbuf out;
	sb_init(&out);
	metrics_expose(&tp, 1, false, &out);
	CHECK(strstr(out.s, "# TYPE dbtop_incidents_total counter\ndbtop_incidents_total{server=\"db1\",trigger=\"commit-fsync\"} 2\n"
			    "dbtop_incidents_total{server=\"db1\",trigger=\"manual\"} 0\n"
			    "dbtop_incidents_total{server=\"db1\",trigger=\"down\"} 0\n") != NULL,
	      "metrics: dbtop_incidents_total by trigger, manual and down at 0");
	CHECK(strstr(out.s, "dbtop_last_incident_timestamp_seconds{server=\"db1\",trigger=\"commit-fsync\","
			    "file=\"20270115T080000Z-db1-commit-fsync.dbrec\"} 1800000000\n") != NULL,
	      "metrics: the last incident's time names its file");
	CHECK(strstr(out.s, "dbtop_incident_write_errors_total{server=\"db1\"} 1\n") &&
		      strstr(out.s, "dbtop_incidents_failing{server=\"db1\"} 1\n"),
	      "metrics: write errors and failing");
	out.len = 0;
	metrics_render(&m, "db1", &t);
	metrics_expose(&tp, 1, false, &out);
	CHECK(!strstr(out.s, "dbtop_incidents_total{"), "metrics: none without the capture");
	sb_free(&out);
	metrics_text_free(&t);
	model_free(&m);
}

int main(void)
{
	str_printf(dir, sizeof dir, "%s/dbtop-test-incidents-%ld", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		   (long)getpid());
	test_parse();
	test_episodes();
	test_manual_and_limits();
	test_exclusive_names();
	test_program();
	test_metrics();
	char cmd[400];
	str_printf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return TAP_DONE();
}
