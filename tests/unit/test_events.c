/* test_events.c - the event log: crafted samples in, events out (findings
 * raised and cleared, a setting change by someone else and by dbtop, a
 * restart, DOWN / STALLED / UP, a lock chain appearing and ending), the
 * recording round trip of SAMPLE field 31, the JSON member, and the
 * snapshot files (mode 0600, O_EXCL, a second name when the first is
 * taken). */
#include <limits.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../model/events.h"
#include "../../model/model.h"
#include "../../record/record.h"
#include "../../util/util.h"
#include "tap.h"

static void fresh(struct model *m)
{
	struct caps c;
	model_init(m, 10);
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_MYSQL;
	c.flavour = FLAVOUR_MARIADB;
	c.perf_schema = c.ps_readable = c.ps_digests = true;
	model_set_caps(m, &c);
	m->last.state = STATE_UP;
	m->intervals = 2;
	m->interval_s = 1.0;   /* one-second intervals on one connection (the findings' hysteresis) */
}

/* The event log's step after the test changed the model by hand: the
 * findings in force first, as model_update() leaves them. */
static size_t ev_upd(struct event_log *l, struct model *m, const struct sample *s)
{
	findings_update(m);
	return events_update(l, m, s);
}

/* An idle root blocker 10 (app) with waiters 20 and 21. */
static struct lock_set *chain(void)
{
	struct lock_set *ls = lock_set_new();
	lock_edge_add(ls, 20, 10);
	lock_edge_add(ls, 21, 10);
	int b = lock_session_get(ls, 10);
	str_copy(ls->s[b].user, sizeof ls->s[b].user, "app");
	str_copy(ls->s[b].state, sizeof ls->s[b].state, "idle in transaction");
	ls->s[b].state_s = 42;
	lock_session_query(&ls->s[b], "UPDATE t SET v = v + 1 WHERE id = 1", true);
	ls->status = LOCKS_READ;
	ls->waiting = 2;
	lock_set_analyse(ls);
	return ls;
}

static void sample_at(struct sample *s, double wall, const char *flush)
{
	memset(s, 0, sizeof *s);
	s->wall = wall;
	s->mono = wall - 1000;
	s->state = STATE_UP;
	s->uptime_s = wall - 500;   /* started at 500 */
	if (flush) {
		s->settings_fresh = true;
		sample_setting(s, "innodb_flush_log_at_trx_commit", flush);
		sample_setting(s, "sync_binlog", "1");
	}
}

/* The kinds logged from index from on, space-separated. */
static const char *kinds(const struct event_log *l, size_t from)
{
	static char buf[512];
	buf[0] = '\0';
	for (size_t i = from; i < l->n; i++) {
		strcat(buf, i > from ? "," : "");
		strcat(buf, event_kind_name(events_at(l, i)->kind));
	}
	return buf;
}

static void test_derivation(void)
{
	struct event_log l;
	struct model m;
	struct sample s;
	struct lock_set *ls = chain();
	char t[400];
	fresh(&m);
	events_init(&l);
	l.live = true;

	sample_at(&s, 1000, "1");
	CHECK(ev_upd(&l, &m, &s) == 0, "the first UP sample logs nothing");
	for (int k = 1; k <= 4; k++) {
		sample_at(&s, 1000 + k, NULL);
		s.locks = ls;
		m.locks = ls;
		ev_upd(&l, &m, &s);
		if (k == 1)
			CHECK_STR(kinds(&l, 0), "", "an idle root blocker in one interval: no finding yet (2 of 3), no chain");
		if (k == 2)
			CHECK_STR(kinds(&l, 0), "finding", "in a second interval: the finding; the chain (1 s) not yet");
		if (k == 3)
			CHECK_STR(kinds(&l, 1), "", "the chain after 2 s: not yet");
	}
	CHECK(l.n >= 1 && strcmp(events_at(&l, 0)->name, "idle-root-blocker") == 0 &&
		      events_at(&l, 0)->severity == SEV_CRIT && events_at(&l, 0)->wall == 1002,
	      "the finding's id and severity, raised in the interval that confirmed it");
	CHECK_STR(kinds(&l, 1), "lock chain", "the chain that lasted 3 s is logged");
	const struct event *e = events_at(&l, 1);
	CHECK(e && e->wall == 1001 && e->session == 10 && strcmp(e->user, "app") == 0 && e->waiters == 2 &&
		      e->severity == SEV_CRIT && strstr(e->detail, "UPDATE t SET") && strstr(e->detail, "idle in transaction"),
	      "the chain: first seen, its root, user, waiters, state and statement; critical");
	sample_at(&s, 1005, NULL);
	s.locks = ls;
	CHECK(ev_upd(&l, &m, &s) == 0, "the same chain again: nothing new");

	/* the chain ends: nothing waits; the finding is held for 3 quiet intervals */
	struct lock_set idle = {.status = LOCKS_IDLE};
	m.locks = NULL;
	for (int k = 6; k <= 8; k++) {
		sample_at(&s, 1000 + k, NULL);
		s.locks = &idle;
		ev_upd(&l, &m, &s);
		if (k == 6)
			CHECK_STR(kinds(&l, 2), "chain ended", "the chain ended, the finding held");
	}
	CHECK_STR(kinds(&l, 2), "chain ended,cleared", "the finding cleared after 3 quiet intervals");
	e = events_at(&l, 2);
	CHECK(e && e->session == 10 && strstr(e->detail, "ended after 5s"), "the end names the root and how long");
	CHECK(events_at(&l, 3)->wall == 1008, "cleared at the third quiet interval");

	/* a setting changed by someone else */
	sample_at(&s, 1010, "2");
	ev_upd(&l, &m, &s);
	CHECK_STR(kinds(&l, 4), "setting", "innodb_flush_log_at_trx_commit 1 -> 2 observed");
	e = events_at(&l, 4);
	event_text(e, t, sizeof t);
	CHECK(e && !e->own && e->who_known && strcmp(e->old, "1") == 0 && strcmp(e->new, "2") == 0 && e->since == 1000 &&
		      strstr(t, "not by dbtop"),
	      tname("the observed change: old, new, since the reading before, not dbtop's (%s)", t));
	/* one by dbtop: logged when made, the observation of it not again */
	events_own(&l, 1011, "innodb_flush_log_at_trx_commit", "2", "1", false);
	sample_at(&s, 1020, "1");
	ev_upd(&l, &m, &s);
	CHECK_STR(kinds(&l, 5), "setting", "dbtop's own change logged once");
	event_text(events_at(&l, 5), t, sizeof t);
	CHECK(events_at(&l, 5)->own && strstr(t, "by dbtop"), tname("marked as dbtop's: %s", t));

	/* DOWN, STALLED, UP */
	sample_at(&s, 1030, NULL);
	s.state = STATE_DOWN;
	str_copy(s.error, sizeof s.error, "Lost connection to server during query");
	ev_upd(&l, &m, &s);
	sample_at(&s, 1031, NULL);
	s.state = STATE_DOWN;
	ev_upd(&l, &m, &s);
	sample_at(&s, 1032, NULL);
	s.state = STATE_STALLED;
	str_copy(s.error, sizeof s.error, "query exceeded 5s");
	ev_upd(&l, &m, &s);
	sample_at(&s, 1040, NULL);
	ev_upd(&l, &m, &s);
	CHECK_STR(kinds(&l, 6), "down,stalled,up", "DOWN once, then STALLED, then UP");
	CHECK(strstr(events_at(&l, 6)->detail, "Lost connection"), "DOWN with its reason");

	/* a restart: uptime falls */
	sample_at(&s, 1050, NULL);
	s.uptime_s = 3;
	ev_upd(&l, &m, &s);
	CHECK_STR(kinds(&l, 9), "restart", "the uptime fell: a restart");
	sample_at(&s, 1051, NULL);
	s.uptime_s = 4;
	CHECK(ev_upd(&l, &m, &s) == 0, "uptime going on: no restart");

	/* the interval's list and the JSON */
	unsigned long first;
	struct event_list *el = events_take_interval(&l, &first);
	CHECK(el && el->n == l.n && first == 1, "the first take holds every event so far");
	event_list_free(el);
	el = events_take_interval(&l, &first);
	CHECK(el && el->n == 0, "the next take is empty (none this interval)");
	event_list_free(el);
	struct strbuf b;
	sb_init(&b);
	events_json(&l, events_at(&l, 4)->seq, ULONG_MAX, &b);
	CHECK(strncmp(b.s, ",\"events\":[{\"ts\":1010.000,\"kind\":\"setting\"", 41) == 0 &&
		      strstr(b.s, "\"name\":\"innodb_flush_log_at_trx_commit\",\"old\":\"1\",\"new\":\"2\",\"by\":\"other\"") &&
		      strstr(b.s, "\"by\":\"dbtop\"") && strstr(b.s, "\"kind\":\"restart\""),
	      tname("JSON from a seq on: %.160s", b.s));
	sb_free(&b);
	unsigned long f1, t1;
	events_between(&l, 1009, 1010, &f1, &t1);
	CHECK(f1 == t1 && f1 == events_at(&l, 4)->seq, "the events of the interval ending at 1010: the setting change");
	sb_init(&b);
	events_json(&l, f1, t1, &b);
	CHECK(strstr(b.s, "\"kind\":\"setting\"") && !strstr(b.s, "restart"), tname("JSON of one interval: %.120s", b.s));
	sb_free(&b);
	events_between(&l, 1041, 1049, &f1, &t1);
	CHECK(f1 > t1, "no event in 1041..1049");

	/* a replay without recorded events cannot tell who changed a setting */
	struct event_log r;
	events_init(&r);
	sample_at(&s, 2000, "1");
	ev_upd(&r, &m, &s);
	sample_at(&s, 2010, "2");
	ev_upd(&r, &m, &s);
	event_text(events_at(&r, 0), t, sizeof t);
	CHECK(r.n == 1 && !events_at(&r, 0)->who_known && strstr(t, "not recorded"), tname("replay: %s", t));
	events_free(&r);

	/* bounded */
	for (int i = 0; i < EVENTS_MAX + 10; i++)
		events_own(&l, 3000 + i, "sync_binlog", "1", "0", false);
	CHECK(l.n == EVENTS_MAX && events_at(&l, 0)->wall == 3010, "the newest EVENTS_MAX are kept");
	events_free(&l);
	lock_set_free(ls);
	model_free(&m);
}

/* SAMPLE field 31 written and read back; recorded events are logged as
 * they are, not derived again. */
/* The watched settings read at every refresh between the full reads: an
 * observed change dates from the last refresh that saw the old value; the
 * others from their last full read. */
static void test_watched_since(void)
{
	struct event_log l;
	struct model m;
	struct sample s;
	fresh(&m);
	events_init(&l);
	l.live = true;
	sample_at(&s, 1000, "1");
	sample_setting(&s, "innodb_flush_method", "O_DIRECT");
	ev_upd(&l, &m, &s);
	for (int t = 1001; t <= 1004; t++) {
		sample_at(&s, t, NULL);
		s.settings_checked = true;   /* unchanged: the sample carries none */
		ev_upd(&l, &m, &s);
	}
	CHECK(l.n == 0, "watched settings read unchanged: nothing logged");
	/* 1005: the refresh's read differs; the sample carries them all */
	sample_at(&s, 1005, "2");
	sample_setting(&s, "innodb_flush_method", "O_DIRECT");
	s.settings_checked = true;
	ev_upd(&l, &m, &s);
	const struct event *e = l.n == 1 ? events_at(&l, 0) : NULL;
	CHECK(e && e->kind == EV_SETTING && e->since == 1004 && e->wall == 1005 && strcmp(e->new, "2") == 0,
	      "the change dates from the refresh before (since 1004), not the last full read (1000)");
	sample_at(&s, 1006, NULL);
	s.settings_checked = true;
	ev_upd(&l, &m, &s);
	/* 1010: the full read finds a setting that is not watched changed */
	sample_at(&s, 1010, "2");
	sample_setting(&s, "innodb_flush_method", "fsync");
	ev_upd(&l, &m, &s);
	e = l.n == 2 ? events_at(&l, 1) : NULL;
	CHECK(e && strcmp(e->name, "innodb_flush_method") == 0 && e->since == 1000,
	      "a setting not watched: since its last full read (1000), not the refresh that saw a watched one");
	events_free(&l);
	model_free(&m);
}

static void test_record(void)
{
	char path[] = "/tmp/dbtop-events-XXXXXX";
	int fd = mkstemp(path);
	struct recorder w;
	struct rec_header h = {.engine = "mariadb", .host = "db1:3306", .interval = 1};
	char err[200];
	struct sample s;
	struct event e;
	close(fd);
	unlink(path);   /* a recording is always a new file */
	CHECK(rec_open_write(&w, path, &h, false, err, sizeof err) == 0, "recording opened");
	sample_at(&s, 100, NULL);
	s.events = xcalloc(1, sizeof *s.events);
	memset(&e, 0, sizeof e);
	e.kind = EV_LOCK_CHAIN;
	e.wall = e.since = 99.5;
	e.severity = SEV_CRIT;
	e.session = 4242;
	e.waiters = 3;
	str_copy(e.user, sizeof e.user, "app");
	str_copy(e.detail, sizeof e.detail, "root blocker 4242 (app) blocks 3: UPDATE t SET v = 1");
	event_list_add(s.events, &e);
	memset(&e, 0, sizeof e);
	e.kind = EV_SETTING;
	e.own = e.who_known = true;
	e.wall = e.since = 99.7;
	str_copy(e.name, sizeof e.name, "innodb_flush_log_at_trx_commit");
	str_copy(e.old, sizeof e.old, "1");
	str_copy(e.new, sizeof e.new, "2");
	event_list_add(s.events, &e);
	CHECK(rec_write_sample(&w, &s, err, sizeof err) == 0, "a sample with two events written");
	sample_release(&s);
	sample_at(&s, 101, NULL);
	s.events = xcalloc(1, sizeof *s.events);
	CHECK(rec_write_sample(&w, &s, err, sizeof err) == 0, "a sample with none written");
	sample_release(&s);
	sample_at(&s, 102, NULL);
	CHECK(rec_write_sample(&w, &s, err, sizeof err) == 0, "a sample without the field (an older file's)");
	rec_close(&w);

	struct rec_reader rd;
	struct rec_item it;
	struct stat st;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "the recording is mode 0600");
	CHECK(rec_open_read(&rd, path, NULL, 0, err, sizeof err) == 0, "recording read");
	int n = 0;
	size_t counts[3] = {9, 9, 9};
	bool same = false;
	struct event_log l;
	struct model m;
	fresh(&m);
	events_init(&l);
	while (n < 3 && rec_next(&rd, &it) == 1) {
		if (it.type != REC_SAMPLE)
			continue;
		counts[n] = it.sample.events ? it.sample.events->n : 99;
		if (n == 0 && it.sample.events && it.sample.events->n == 2) {
			const struct event *a = &it.sample.events->ev[0], *b = &it.sample.events->ev[1];
			same = a->kind == EV_LOCK_CHAIN && a->wall == 99.5 && a->severity == SEV_CRIT && a->session == 4242 &&
			       a->waiters == 3 && strcmp(a->user, "app") == 0 && strstr(a->detail, "UPDATE t SET v = 1") &&
			       b->kind == EV_SETTING && b->own && b->who_known && strcmp(b->new, "2") == 0 &&
			       strcmp(b->name, "innodb_flush_log_at_trx_commit") == 0;
		}
		events_update(&l, &m, &it.sample);
		sample_release(&it.sample);
		n++;
	}
	CHECK(counts[0] == 2 && counts[1] == 0 && counts[2] == 99,
	      tname("events per sample read back: 2, 0 and not recorded (%zu %zu %zu)", counts[0], counts[1], counts[2]));
	CHECK(same, "every member of both events read back");
	CHECK(l.n == 2 && events_at(&l, 0)->session == 4242, "a replay logs the recorded events");
	events_free(&l);
	model_free(&m);
	rec_reader_close(&rd);
	unlink(path);
}

static void test_snapshot_files(void)
{
	char dir[] = "/tmp/dbtop-snap-XXXXXX", p1[600], p2[600];
	int a, b, c, d;
	struct stat st;
	CHECK(mkdtemp(dir) != NULL, "a directory for the snapshot");
	CHECK(files_create_pair(dir, "dbtop-snapshot-20261201-031200", "txt", "json", &a, &b, p1, sizeof p1) == 0,
	      "the pair created");
	CHECK(write_all(a, "screen\n", 7) == 0 && write_all(b, "{}\n", 3) == 0, "written");
	close(a);
	close(b);
	CHECK(stat(p1, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_size == 7, tname("%s is mode 0600", p1));
	str_printf(p2, sizeof p2, "%s/dbtop-snapshot-20261201-031200.json", dir);
	CHECK(stat(p2, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_size == 3, "the JSON file too");
	CHECK(files_create_pair(dir, "dbtop-snapshot-20261201-031200", "txt", "json", &c, &d, p1, sizeof p1) == 0 &&
		      strstr(p1, "dbtop-snapshot-20261201-031200-2.txt"),
	      tname("a second snapshot of the same second gets -2: %s", p1));
	close(c);
	close(d);
	unlink(p1);
	str_printf(p2, sizeof p2, "%s/dbtop-snapshot-20261201-031200-2.json", dir);
	unlink(p2);
	/* a link planted under the next name is not followed */
	str_printf(p2, sizeof p2, "%s/dbtop-snapshot-x.txt", dir);
	CHECK(symlink("/tmp/dbtop-snap-target-never", p2) == 0, "a symbolic link planted");
	CHECK(files_create_pair(dir, "dbtop-snapshot-x", "txt", "json", &c, &d, p1, sizeof p1) == 0 &&
		      strstr(p1, "dbtop-snapshot-x-2.txt") && access("/tmp/dbtop-snap-target-never", F_OK) != 0,
	      "the link is left alone: the next name is taken");
	close(c);
	close(d);
	unlink(p1);
	unlink(p2);
	str_printf(p2, sizeof p2, "%s/dbtop-snapshot-x-2.json", dir);
	unlink(p2);
	str_printf(p2, sizeof p2, "%s/dbtop-snapshot-20261201-031200.txt", dir);
	unlink(p2);
	str_printf(p2, sizeof p2, "%s/dbtop-snapshot-20261201-031200.json", dir);
	unlink(p2);
	/* a disk that fills up (a file size limit stands in for it): an
	 * error, and neither file left, not even empty */
	{
		char why[200] = "";
		struct rlimit old, small = {.rlim_cur = 4, .rlim_max = RLIM_INFINITY};
		void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
		getrlimit(RLIMIT_FSIZE, &old);
		small.rlim_max = old.rlim_max;
		setrlimit(RLIMIT_FSIZE, &small);
		int rc = files_write_pair(dir, "dbtop-snapshot-full", "txt", "json", "screen text\n", 12, "{}\n", 3, p1,
					  sizeof p1, why, sizeof why);
		setrlimit(RLIMIT_FSIZE, &old);
		signal(SIGXFSZ, was);
		str_printf(p2, sizeof p2, "%s/dbtop-snapshot-full.txt", dir);
		CHECK(rc < 0 && strstr(why, "dbtop-snapshot-full.txt") && strstr(why, "too large") && access(p2, F_OK) != 0,
		      tname("a full disk: an error (%s), no file left", why));
		str_printf(p2, sizeof p2, "%s/dbtop-snapshot-full.json", dir);
		CHECK(access(p2, F_OK) != 0, "a full disk: no JSON file left either");
		CHECK(files_write_pair(dir, "dbtop-snapshot-ok", "txt", "json", "s\n", 2, "{}\n", 3, p1, sizeof p1, why,
				       sizeof why) == 0 && strstr(p1, "dbtop-snapshot-ok.txt"),
		      "files_write_pair: both written");
		unlink(p1);
		str_printf(p2, sizeof p2, "%s/dbtop-snapshot-ok.json", dir);
		CHECK(unlink(p2) == 0, "files_write_pair: the JSON beside it");
	}
	CHECK(rmdir(dir) == 0, "nothing else left in the directory");
	CHECK(files_create_pair("/nonexistent-dir-dbtop", "x", "txt", "json", &c, &d, p1, sizeof p1) < 0,
	      "a directory that is not there: an error, no file");
}

/* x / c on the screen: dbtop's ending or cancelling is logged like its
 * setting changes, in the list, its text and its JSON; a recording keeps it. */
static void test_session_act(void)
{
	struct event_log l;
	struct strbuf b;
	char t[400];
	events_init(&l);
	events_session_act(&l, 2000, true, 4242, "pg_terminate_backend(4242): done (the session you saw: same start)");
	events_session_act(&l, 2001, false, 17, "KILL QUERY 17: done\x1b[2J");
	const struct event *e = l.n == 2 ? events_at(&l, 0) : NULL;
	CHECK(e && e->kind == EV_SESSION_END && e->session == 4242 && e->own, "x: a session-end event, by dbtop");
	event_text(e, t, sizeof t);
	CHECK(strstr(t, "session 4242 ended by dbtop: pg_terminate_backend(4242): done"),
	      tname("its text names the session and what was sent: '%s'", t));
	CHECK(strcmp(event_kind_name(EV_SESSION_END), "session end") == 0 && strcmp(event_kind_name(EV_CANCEL), "cancelled") == 0,
	      "kinds: session end, cancelled");
	e = events_at(&l, 1);
	event_text(e, t, sizeof t);
	CHECK(e->kind == EV_CANCEL && strstr(t, "session 17 had its statement cancelled by dbtop") && !strchr(t, '\x1b'),
	      tname("c: a cancel event, its text sanitised: '%s'", t));
	sb_init(&b);
	events_json(&l, 1, ULONG_MAX, &b);
	CHECK(b.s && strstr(b.s, "\"kind\":\"session end\"") && strstr(b.s, "\"session\":4242,\"by\":\"dbtop\""),
	      tname("JSON: the kind, the session and by dbtop: %s", b.s ? b.s : ""));
	struct event_list *el = events_take_interval(&l, NULL);
	CHECK(el->n == 2, "the interval's list (what a recording keeps) has both");
	event_list_free(el);
	sb_free(&b);
	events_free(&l);
}

/* Issue 30 item 8: a chain whose root is committing (its row locks held
 * until its log flush ends) is a slow commit's consequence: logged, not
 * critical, said to be committing; an idle root's chain stays critical. */
static void test_committing_chain(void)
{
	struct event_log l;
	struct model m;
	struct sample s;
	struct lock_set *ls = chain();
	int b = lock_session_get(ls, 10);
	str_copy(ls->s[b].state, sizeof ls->s[b].state, "active");
	ls->s[b].state_s = 0.0;
	lock_session_query(&ls->s[b], "END;", false);
	CHECK(lock_session_committing(&ls->s[b]), "active in END: committing");
	int roots, n = lock_set_commit_waiters(ls, &roots);
	CHECK(n == 2 && roots == 1, "two sessions wait on one committing root");
	fresh(&m);
	events_init(&l);
	l.live = true;
	sample_at(&s, 1000, "1");
	ev_upd(&l, &m, &s);
	for (int k = 1; k <= 4; k++) {
		sample_at(&s, 1000 + k, NULL);
		s.locks = ls;
		m.locks = ls;
		ev_upd(&l, &m, &s);
	}
	CHECK_STR(kinds(&l, 0), "lock chain", "the committing root's chain that lasted is logged (no idle-root-blocker finding)");
	const struct event *e = events_at(&l, 0);
	CHECK(e && e->severity == SEV_INFO && strstr(e->detail, ", committing) blocks 2"),
	      "... as info, said to be committing, not critical");
	events_free(&l);

	/* a root seen committing in one of its reads: the whole chain is a slow commit's */
	events_init(&l);
	sample_at(&s, 1000, "1");
	ev_upd(&l, &m, &s);
	for (int k = 1; k <= 4; k++) {
		str_copy(ls->s[b].state, sizeof ls->s[b].state, "active");
		lock_session_query(&ls->s[b], k == 2 ? "END;" : "UPDATE pgbench_branches SET bbalance = 1", false);
		sample_at(&s, 1000 + k, NULL);
		s.locks = ls;
		ev_upd(&l, &m, &s);
	}
	e = events_at(&l, 0);
	CHECK(l.n == 1 && e->kind == EV_LOCK_CHAIN && e->severity == SEV_INFO,
	      "a root committing in one of its reads: the chain is info");
	events_free(&l);

	/* normal row contention: chains of 1-2 s, each root a new transaction */
	events_init(&l);
	sample_at(&s, 1000, "1");
	ev_upd(&l, &m, &s);
	struct lock_set idle = {.status = LOCKS_IDLE};
	for (int k = 1; k <= 30; k++) {
		ls->s[b].trx_age_s = (k % 3) * 0.9;   /* the same session, a transaction younger than the chain */
		ls->s[b].wait_s = NAN;
		sample_at(&s, 1000 + k, NULL);
		s.locks = k % 4 == 0 ? &idle : ls;
		ev_upd(&l, &m, &s);
	}
	CHECK(l.n == 0, tname("chains of 1-2 s (or one root in new transactions): no event (%zu)", l.n));
	/* one read with a waiter that has waited 5 s: a chain that lasted, logged at once */
	int w = lock_session_get(ls, 20);
	ls->s[w].wait_s = 5.0;
	ls->s[b].trx_age_s = 6.0;
	sample_at(&s, 1040, NULL);
	s.locks = ls;
	ev_upd(&l, &m, &s);
	CHECK(l.n == 1 && events_at(&l, 0)->kind == EV_LOCK_CHAIN && events_at(&l, 0)->wall == 1040,
	      "a waiter that waited 5 s: the chain is logged at the read that saw it");
	ls->s[w].wait_s = NAN;
	ls->s[b].trx_age_s = NAN;
	events_free(&l);
	/* one read shown again for 8 samples (paced by the server budget, its
	 * waits carried forward): no chain lasts by being shown again */
	events_init(&l);
	sample_at(&s, 1100, "1");
	ev_upd(&l, &m, &s);
	str_copy(ls->s[b].state, sizeof ls->s[b].state, "active");
	lock_session_query(&ls->s[b], "UPDATE pgbench_tellers SET tbalance = 1", false);
	for (int k = 1; k <= 8; k++) {
		ls->age_s = k == 1 ? 0 : k - 1;
		ls->s[w].wait_s = k;
		sample_at(&s, 1100 + k, NULL);
		s.locks = ls;
		ev_upd(&l, &m, &s);
	}
	CHECK(l.n == 0, tname("a lock graph read once and shown again 7 times: no chain event (%zu)", l.n));
	ls->age_s = 0;
	ls->s[w].wait_s = NAN;
	events_free(&l);
	events_init(&l);
	str_copy(ls->s[b].state, sizeof ls->s[b].state, "Query (Commit)");
	lock_session_query(&ls->s[b], "UPDATE t SET v = 1", false);
	CHECK(lock_session_committing(&ls->s[b]), "MariaDB state 'Commit': committing");
	str_copy(ls->s[b].state, sizeof ls->s[b].state, "idle in transaction");
	lock_session_query(&ls->s[b], "COMMIT", true);
	CHECK(!lock_session_committing(&ls->s[b]), "idle, its last statement COMMIT: not committing");
	m.locks = NULL;
	lock_set_free(ls);
	events_free(&l);
	model_free(&m);
}

int main(void)
{
	test_session_act();
	test_committing_chain();
	test_derivation();
	test_watched_since();
	test_record();
	test_snapshot_files();
	return tap_failed ? 1 : 0;
}
