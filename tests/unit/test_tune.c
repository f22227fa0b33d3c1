/* test_tune.c - the tuning table and its SQL, the undo journal (write,
 * read back, damage, symlinks, modes, the lock), and the tuner's order of
 * work against a scripted backend: journal before SQL, newest first on
 * revert, a failed or doubtful change, keep, --tune-ttl, orphans. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../model/tunables.h"
#include "../../sources/journal.h"
#include "../../sources/tuner.h"
#include "../../util/util.h"
#include "tap.h"

static char dir[256];

static int idx_of(const char *name, enum flavour f)
{
	for (size_t i = 0; i < ntunables; i++)
		if (strcmp(tunables[i].name, name) == 0 && tunable_applies(&tunables[i], f))
			return (int)i;
	return -1;
}

static void test_table(void)
{
	char buf[256];
	const struct tunable *fl = tunable_find("innodb_flush_log_at_trx_commit", FLAVOUR_MARIADB, 0);
	CHECK(fl != NULL, "flush setting exists on MariaDB");
	CHECK(tunable_find("binlog_commit_wait_count", FLAVOUR_MYSQL, 0) == NULL, "binlog_commit_wait_count is MariaDB only");
	CHECK(tunable_find("binlog_commit_wait_usec", FLAVOUR_MARIADB, 0) != NULL, "binlog_commit_wait_usec on MariaDB");
	CHECK(tunable_find("synchronous_commit", FLAVOUR_MARIADB, 0) == NULL, "synchronous_commit not on MariaDB");
	CHECK(tunable_find("wal_writer_delay", FLAVOUR_POSTGRESQL, TK_PG_SYSTEM) != NULL, "wal_writer_delay on PostgreSQL");
	CHECK(tunable_find("commit_delay", FLAVOUR_POSTGRESQL, 0) != NULL, "commit_delay on PostgreSQL");
	CHECK(tunable_find("sync_binlog", FLAVOUR_MYSQL, 0) != NULL, "sync_binlog on MySQL");
	CHECK(tunable_find("wait/io/file/sql/binlog", FLAVOUR_MARIADB, TK_MY_INSTRUMENT) != NULL, "binlog instrument");
	for (size_t i = 0; i < ntunables; i++) {
		const struct tunable *t = &tunables[i];
		char name[96];
		str_printf(name, sizeof name, "%s: usual and remedy are safe values and differ", t->name);
		CHECK(tune_value_safe(t->usual) && tune_value_safe(t->remedy) && !tune_value_same(t->usual, t->remedy),
		      name);
		str_printf(name, sizeof name, "%s: risk, scope and privilege spelled out", t->name);
		CHECK(strlen(t->trade) > 30 && strlen(t->scope) > 10 && strlen(t->priv) > 5, name);
	}
	/* toggles */
	CHECK_STR(tunable_toggle(fl, "1"), "2", "flush 1 -> 2");
	CHECK_STR(tunable_toggle(fl, "2"), "1", "flush 2 -> 1");
	CHECK_STR(tunable_toggle(fl, "0"), "2", "flush 0 -> 2 (the remedy)");
	const struct tunable *sc = tunable_find("synchronous_commit", FLAVOUR_POSTGRESQL, 0);
	CHECK_STR(tunable_toggle(sc, "ON"), "off", "synchronous_commit on -> off (case folded)");
	CHECK_STR(tunable_toggle(sc, "off"), "on", "synchronous_commit off -> on");
	CHECK_STR(tunable_toggle(sc, "local"), "off", "synchronous_commit local -> off");
	/* compared the way the server reads them (issue 16 item 11) */
	const struct tunable *ww = tunable_find("wal_writer_delay", FLAVOUR_POSTGRESQL, 0);
	CHECK(tune_value_same("1s", "1000ms") && tune_value_same("200ms", " 200ms") && !tune_value_same("200ms", "1s"),
	      "time units: 1s = 1000ms, 200ms != 1s");
	CHECK(tune_value_same("1min", "60s") && tune_value_same("8MB", "8192kB") && !tune_value_same("1s", "1kB"),
	      "1min = 60s, 8MB = 8192kB, a time is never a size");
	CHECK(tune_value_same("on", "true") && tune_value_same("OFF", "no") && !tune_value_same("on", "1") &&
		      !tune_value_same("1", "2") && !tune_value_same("10", "10ms"),
	      "booleans folded; 1 is a number, not on; a bare number is not a time");
	CHECK_STR(tunable_toggle(ww, "1000ms"), "200ms", "wal_writer_delay 1000ms is the remedy 1s in force: a proposes 200ms");
	CHECK_STR(tunable_toggle(ww, "10ms"), "1s", "wal_writer_delay 10ms -> 1s");
	CHECK_STR(tunable_toggle(sc, "false"), "on", "synchronous_commit false is off: a proposes on");
	/* apply SQL */
	CHECK(tune_sql_apply(fl, "2", buf, sizeof buf) == 0, "flush apply builds");
	CHECK_STR(buf, "SET GLOBAL innodb_flush_log_at_trx_commit = 2", "SET GLOBAL, never SET PERSIST");
	CHECK(tune_sql_apply(sc, "off", buf, sizeof buf) == 0, "synchronous_commit apply builds");
	CHECK_STR(buf, "ALTER SYSTEM SET synchronous_commit = 'off'", "ALTER SYSTEM for PostgreSQL");
	CHECK(tune_needs_reload(TK_PG_SYSTEM) && !tune_needs_reload(TK_MY_GLOBAL), "reload only for ALTER SYSTEM");
	const struct tunable *ins = tunable_find("wait/io/file/sql/binlog", FLAVOUR_MYSQL, 0);
	CHECK(tune_sql_apply(ins, "YES/YES", buf, sizeof buf) == 0, "instrument apply builds");
	CHECK_STR(buf, "UPDATE performance_schema.setup_instruments SET ENABLED='YES', TIMED='YES' WHERE NAME='wait/io/file/sql/binlog'",
		  "instrument apply SQL");
	/* hostile values never reach SQL */
	CHECK(tune_sql_apply(fl, "1; DROP TABLE x", buf, sizeof buf) < 0, "value with ; and blanks refused");
	CHECK(tune_sql_apply(sc, "off'", buf, sizeof buf) < 0, "value with a quote refused");
	CHECK(tune_sql_apply(sc, "", buf, sizeof buf) < 0, "empty value refused");
	CHECK(tune_sql_apply(ins, "YES", buf, sizeof buf) < 0, "instrument value needs ENABLED/TIMED");
	/* revert SQL from undo tokens */
	CHECK(tune_sql_revert(TK_PG_SYSTEM, "wal_writer_delay", "set:10ms", buf, sizeof buf) == 0 &&
	      strcmp(buf, "ALTER SYSTEM SET wal_writer_delay = '10ms'") == 0, "PG revert restores the auto.conf line");
	CHECK(tune_sql_revert(TK_PG_SYSTEM, "wal_writer_delay", "reset", buf, sizeof buf) == 0 &&
	      strcmp(buf, "ALTER SYSTEM RESET wal_writer_delay") == 0, "PG revert without a previous line: RESET");
	CHECK(tune_sql_revert(TK_PG_SYSTEM, "wal_writer_delay", "10ms", buf, sizeof buf) < 0, "PG token needs set: or reset");
	CHECK(tune_sql_revert(TK_PG_SYSTEM, "wal_writer_delay", "set:1 0ms'", buf, sizeof buf) < 0,
	      "PG previous value that cannot be restored exactly is refused");
	CHECK(tune_sql_revert(TK_MY_GLOBAL, "sync_binlog", "1", buf, sizeof buf) == 0 &&
	      strcmp(buf, "SET GLOBAL sync_binlog = 1") == 0, "MySQL revert");
	CHECK(tune_sql_revert(TK_MY_INSTRUMENT, "wait/io/file/sql/binlog", "YES/NO", buf, sizeof buf) == 0 &&
	      strstr(buf, "ENABLED='YES', TIMED='NO'"), "instrument revert restores both columns");
	CHECK(tune_sql_revert(TK_MY_GLOBAL, "x y", "1", buf, sizeof buf) < 0, "unsafe name refused");
}

static struct jentry entry(const char *name, enum tune_kind k, const char *undo, const char *was, const char *val)
{
	struct jentry e;
	memset(&e, 0, sizeof e);
	e.kind = k;
	e.wall = 1795990000.5;
	str_copy(e.name, sizeof e.name, name);
	str_copy(e.undo, sizeof e.undo, undo);
	str_copy(e.was, sizeof e.was, was);
	str_copy(e.val, sizeof e.val, val);
	return e;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[8192];
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	chmod(path, 0600);
}

static void test_journal(void)
{
	char path[512], err[NOTE_LEN], sub[300];
	struct journal j, k;
	struct stat st;
	str_printf(sub, sizeof sub, "%s/state/dbtop", dir);
	str_printf(path, sizeof path, "%s/undo-test.journal", sub);
	CHECK(journal_open(&j, path, "db1:3306", err, sizeof err) == 0 && j.n == 0 && j.fd < 0,
	      "no journal yet: nothing open, nothing active");
	mode_t old = umask(0);
	struct jentry e1 = entry("innodb_flush_log_at_trx_commit", TK_MY_GLOBAL, "1", "1", "2");
	CHECK(journal_begin(&j, &e1, err, sizeof err) == 0 && e1.seq == 1, "first entry written (dir created)");
	umask(old);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "journal is mode 0600 even with umask 000");
	CHECK(stat(sub, &st) == 0 && (st.st_mode & 0777) == 0700, "its directory is 0700");
	struct jentry e2 = entry("we ird%name", TK_MY_GLOBAL, "~x", "", "a b");
	CHECK(journal_begin(&j, &e2, err, sizeof err) < 0, "a name dbtop does not know is refused");
	e2 = entry("sync_binlog", TK_MY_GLOBAL, "1", "1", "0");
	CHECK(journal_begin(&j, &e2, err, sizeof err) == 0 && e2.seq == 2, "second entry");
	struct jentry e3 = entry("wal_writer_delay", TK_PG_SYSTEM, "set:10ms", "10 ms (odd)", "1s");
	CHECK(journal_begin(&j, &e3, err, sizeof err) == 0, "third entry with blanks and brackets in 'was'");
	CHECK(journal_end(&j, e2.seq, JS_REVERTED, err, sizeof err) == 0, "second reverted");
	int idx[8];
	int n = journal_active(&j, idx, 8);
	CHECK(n == 2 && j.e[idx[0]].seq == 3 && j.e[idx[1]].seq == 1, "active newest first: 3 then 1");

	/* a second reader while the first holds the lock */
	CHECK(journal_open(&k, path, "db1:3306", err, sizeof err) == 1 && strstr(err, "another running dbtop"),
	      "a second dbtop sees the journal locked");
	struct jentry e4 = entry("sync_binlog", TK_MY_GLOBAL, "1", "1", "0");
	CHECK(journal_begin(&k, &e4, err, sizeof err) < 0, "and cannot write to it");
	journal_close(&k);

	/* read back after the writer ends (as after SIGKILL: nothing closed) */
	int fd_keep = j.fd;
	j.fd = -1;
	close(fd_keep);
	CHECK(journal_open(&k, path, "db1:3306", err, sizeof err) == 0, "reopened after the writer died");
	n = journal_active(&k, idx, 8);
	CHECK(n == 2 && k.e[idx[0]].seq == 3 && k.e[idx[1]].seq == 1 && k.next_seq == 4,
	      "the two changes in force survive, in order, next seq 4");
	CHECK_STR(k.e[idx[0]].undo, "set:10ms", "undo token read back");
	CHECK_STR(k.e[idx[0]].was, "10 ms (odd)", "escaped value read back");
	CHECK(k.e[idx[0]].kind == TK_PG_SYSTEM && k.damaged == 0, "kind read back, nothing damaged");

	/* damage: a flipped byte and a torn last line */
	char text[8192];
	str_copy(text, sizeof text, slurp(path));
	char *p = strstr(text, "sync_binlog");
	p[0] = 'S';
	str_printf(text + strlen(text), sizeof text - strlen(text), "A 9 1795990000.5 global sync_bin");
	journal_close(&k);
	spit(path, text);
	CHECK(journal_open(&k, path, "db1:3306", err, sizeof err) == 0, "a damaged journal still opens");
	n = journal_active(&k, idx, 8);
	CHECK(k.damaged == 2, "a flipped byte and a torn line are counted as damaged");
	/* entry 2's A line is gone, so its E line refers to nothing: 1 and 3 stay */
	CHECK(n == 2 && k.e[idx[0]].seq == 3, "the intact entries are still reverted");
	journal_close(&k);
	CHECK(access(path, F_OK) == 0, "a damaged journal is not removed (checked by hand)");

	/* all ended: the file goes away at close */
	unlink(path);
	CHECK(journal_open(&k, path, "db1", err, sizeof err) == 0, "fresh");
	struct jentry e5 = entry("sync_binlog", TK_MY_GLOBAL, "1", "1", "0");
	journal_begin(&k, &e5, err, sizeof err);
	journal_end(&k, e5.seq, JS_KEPT, err, sizeof err);
	journal_close(&k);
	CHECK(access(path, F_OK) != 0, "no change in force: the journal is removed");

	/* symlinks are refused */
	char target[512];
	str_printf(target, sizeof target, "%s/elsewhere", dir);
	spit(target, "");
	CHECK(symlink(target, path) == 0, "symlink planted");
	CHECK(journal_open(&k, path, "db1", err, sizeof err) < 0 && strstr(err, "symlink"), "open refuses a symlink");
	journal_close(&k);
	memset(&k, 0, sizeof k);
	k.fd = -1;
	str_copy(k.path, sizeof k.path, path);
	k.next_seq = 1;
	CHECK(journal_begin(&k, &e5, err, sizeof err) < 0, "create refuses a symlink");
	CHECK(strlen(slurp(target)) == 0, "nothing written through the symlink");
	unlink(path);
	char dangling[512];
	str_printf(dangling, sizeof dangling, "%s/nowhere", dir);
	CHECK(symlink(dangling, path) == 0, "dangling symlink planted");
	CHECK(journal_begin(&k, &e5, err, sizeof err) < 0 && access(dangling, F_OK) != 0,
	      "a dangling symlink is refused, no file created at its target");
	unlink(path);

	/* parse_line on its own */
	struct jentry pe;
	enum jstate pst;
	CHECK(journal_parse_line("garbage", &pe, &pst) == 0, "garbage line");
	CHECK(journal_parse_line("E 3 reverted #00000000", &pe, &pst) == 0, "wrong checksum");

	/* journal_path: XDG_STATE_HOME, then HOME; different servers differ */
	char p1[512], p2[512];
	setenv("XDG_STATE_HOME", "/x/state", 1);
	journal_path("mysql|h1|3306||", p1, sizeof p1, err, sizeof err);
	journal_path("mysql|h2|3306||", p2, sizeof p2, err, sizeof err);
	CHECK(strncmp(p1, "/x/state/dbtop/undo-", 20) == 0, "under $XDG_STATE_HOME/dbtop/");
	CHECK(strcmp(p1, p2) != 0, "one journal per server");
	unsetenv("XDG_STATE_HOME");
	setenv("HOME", "/home/u", 1);
	journal_path("k", p1, sizeof p1, err, sizeof err);
	CHECK(strncmp(p1, "/home/u/.local/state/dbtop/", 27) == 0, "default ~/.local/state/dbtop/");
}

/* ---- the tuner against a scripted backend ---- */

static char log_sql[4096];
static int fail_on;            /* fail the nth TC_EXEC (1-based), 0 never */
static bool fail_unsure;
static int nexec;
static char values[TUNABLES_MAX][TUNE_VALUE_LEN];
static char journal_at_exec[1024];
static const char *jpath;

static int fake_tune(struct source *src, struct tune_call *c)
{
	(void)src;
	if (c->what == TC_PROBE) {
		for (size_t i = 0; i < ntunables; i++) {
			c->known[i] = true;
			c->allowed[i] = strcmp(tunables[i].name, "sync_binlog") != 0;
			str_copy(c->current[i], TUNE_VALUE_LEN, values[i]);
		}
		return 0;
	}
	if (c->what == TC_PREV) {
		int i = (int)(c->t - tunables);
		str_copy(c->was, sizeof c->was, values[i]);
		str_copy(c->undo, sizeof c->undo, values[i]);
		return 0;
	}
	nexec++;
	/* the journal must hold the change before the SQL is sent */
	str_copy(journal_at_exec, sizeof journal_at_exec, slurp(jpath));
	if (nexec == fail_on) {
		str_copy(c->err, sizeof c->err, "Access denied");
		c->unsure = fail_unsure;
		return -1;
	}
	str_printf(log_sql + strlen(log_sql), sizeof log_sql - strlen(log_sql), "%s\n", c->sql);
	/* apply the statement to the fake values */
	char name[64], val[64];
	if (sscanf(c->sql, "SET GLOBAL %63s = %63s", name, val) == 2)
		for (size_t i = 0; i < ntunables; i++)
			if (strcmp(tunables[i].name, name) == 0)
				str_copy(values[i], TUNE_VALUE_LEN, val);
	return 0;
}

static const struct source_ops fake_ops = {.name = "fake", .tune = fake_tune};

static void test_tuner(void)
{
	struct source src;
	struct tuner tu;
	char msg[NOTE_LEN], path[512], xdg[300];
	int fl = idx_of("innodb_flush_log_at_trx_commit", FLAVOUR_MARIADB);
	int cw = idx_of("binlog_commit_wait_count", FLAVOUR_MARIADB);
	int sb = idx_of("sync_binlog", FLAVOUR_MARIADB);

	for (size_t i = 0; i < ntunables; i++)
		str_copy(values[i], TUNE_VALUE_LEN, tunables[i].usual);
	memset(&src, 0, sizeof src);
	src.ops = &fake_ops;
	src.connected = true;
	src.caps.flavour = FLAVOUR_MARIADB;
	str_printf(xdg, sizeof xdg, "%s/xdg", dir);
	setenv("XDG_STATE_HOME", xdg, 1);
	tuner_init(&tu, &src, "mysql|fake|1||", "fake:1", false, 0);
	str_copy(path, sizeof path, tu.v.path);
	jpath = path;
	CHECK(tu.v.available && tu.v.orphans == 0, "tuner available, no orphans");
	tuner_probe(&tu);
	CHECK(tu.v.probed && !tu.v.allowed[sb], "probe: privileges per setting");
	CHECK(tuner_apply(&tu, sb, "0", msg, sizeof msg) < 0 && strstr(msg, "not allowed") && nexec == 0,
	      "a setting the user may not change: refused before any SQL");

	CHECK(tuner_apply(&tu, fl, "2", msg, sizeof msg) == 0, "apply flush=2");
	CHECK(strstr(journal_at_exec, "innodb_flush_log_at_trx_commit 1 1 2") != NULL,
	      "the journal held the previous value (fsynced) when the SQL was sent");
	CHECK(tuner_apply(&tu, cw, "8", msg, sizeof msg) == 0, "apply binlog_commit_wait_count=8");
	CHECK(tuner_apply(&tu, cw, "8", msg, sizeof msg) == 0 && strcmp(values[cw], "0") == 0,
	      "toggling a setting dbtop changed reverts that change");
	CHECK(tuner_apply(&tu, cw, "8", msg, sizeof msg) == 0, "and applies again");
	CHECK(tu.v.nactive == 2 && strcmp(tu.v.active[0].name, "binlog_commit_wait_count") == 0,
	      "two active, newest first in the view");
	CHECK(tuner_apply(&tu, fl, "1", msg, sizeof msg) == 0 && strcmp(values[fl], "1") == 0 && tu.v.nactive == 1,
	      "a (toggle) on a changed flush reverts it, not stacks");
	CHECK(tuner_apply(&tu, fl, "2", msg, sizeof msg) == 0, "flush=2 again");

	/* a failed change: nothing to revert; a doubtful one: kept in the journal */
	fail_on = nexec + 1;
	int active_before = tu.v.nactive;
	CHECK(tuner_apply(&tu, idx_of("binlog_commit_wait_usec", FLAVOUR_MARIADB), "10000", msg, sizeof msg) < 0 &&
	      tu.v.nactive == active_before, "a refused change is marked failed, not left to revert");
	fail_on = nexec + 1;
	fail_unsure = true;
	CHECK(tuner_apply(&tu, idx_of("binlog_commit_wait_usec", FLAVOUR_MARIADB), "10000", msg, sizeof msg) < 0 &&
	      tu.v.nactive == active_before + 1 && strstr(msg, "may have taken effect"),
	      "a change whose outcome is unknown stays in the journal");
	fail_on = 0;
	fail_unsure = false;

	/* revert all: newest first */
	log_sql[0] = '\0';
	CHECK(tuner_revert(&tu, true, msg, sizeof msg) == 3, "U reverts the three");
	const char *a = strstr(log_sql, "binlog_commit_wait_usec"), *b = strstr(log_sql, "binlog_commit_wait_count"),
		   *c = strstr(log_sql, "innodb_flush_log_at_trx_commit");
	CHECK(a && b && c && a < c && c < b, "reverted newest first: usec (6), flush (4), then wait_count (3)");
	CHECK(strcmp(values[fl], "1") == 0 && strcmp(values[cw], "0") == 0, "every value is back");
	CHECK(tu.v.nactive == 0, "nothing active");

	/* a revert that fails stops there and keeps the rest */
	tuner_apply(&tu, fl, "2", msg, sizeof msg);
	tuner_apply(&tu, cw, "8", msg, sizeof msg);
	fail_on = nexec + 1;
	CHECK(tuner_revert(&tu, true, msg, sizeof msg) < 0 && tu.v.nactive == 2, "a failed revert leaves both in force");
	fail_on = 0;
	CHECK(tuner_revert(&tu, false, msg, sizeof msg) == 1 && tu.v.nactive == 1 &&
	      strcmp(tu.v.active[0].name, "innodb_flush_log_at_trx_commit") == 0, "u reverts only the newest");

	/* keep */
	unsigned seq = tu.v.active[0].seq;
	CHECK(tuner_keep(&tu, seq, msg, sizeof msg) == 0 && tu.v.nactive == 0 && strstr(msg, "my.cnf is not edited"),
	      "K keeps it: no longer reverted");
	str_copy(values[fl], TUNE_VALUE_LEN, "1");

	/* SIGKILL: a child applies and dies without reverting; the next start finds orphans */
	pid_t pid = fork();
	if (pid == 0) {
		struct tuner t2;
		char m2[NOTE_LEN];
		tuner_close(&tu);
		tuner_init(&t2, &src, "mysql|fake|1||", "fake:1", false, 0);
		tuner_apply(&t2, fl, "2", m2, sizeof m2);
		_exit(9);
	}
	tuner_close(&tu);
	int status;
	waitpid(pid, &status, 0);
	struct tuner t3;
	tuner_init(&t3, &src, "mysql|fake|1||", "fake:1", false, 0);
	CHECK(t3.v.orphans == 1 && t3.v.nactive == 1 && strcmp(t3.v.active[0].val, "2") == 0,
	      "next start: the dead session's change is an orphan");
	CHECK(tuner_apply(&t3, fl, "1", msg, sizeof msg) < 0 && strstr(msg, "earlier dbtop"),
	      "the orphan's setting cannot be toggled before it is reverted");
	str_copy(values[fl], TUNE_VALUE_LEN, "2");
	log_sql[0] = '\0';
	CHECK(tuner_revert(&t3, true, msg, sizeof msg) == 1 && strstr(log_sql, "innodb_flush_log_at_trx_commit = 1"),
	      "confirming reverts it");
	tuner_close(&t3);
	CHECK(access(path, F_OK) != 0, "journal removed once nothing is in force");

	/* --tune-ttl */
	tuner_init(&t3, &src, "mysql|fake|1||", "fake:1", false, 60);
	tuner_apply(&t3, fl, "2", msg, sizeof msg);
	CHECK(tuner_expire(&t3, clock_wall() + 30, msg, sizeof msg) == 0 && t3.v.nactive == 1, "ttl not reached: kept");
	CHECK(tuner_expire(&t3, clock_wall() + 61, msg, sizeof msg) == 1 && t3.v.nactive == 0 &&
	      strcmp(values[fl], "1") == 0, "ttl reached: reverted");
	tuner_close(&t3);

	/* --read-only: every write path refused before any SQL */
	tuner_init(&t3, &src, "mysql|fake|1||", "fake:1", true, 0);
	int before = nexec;
	CHECK(!t3.v.available, "read-only: tuning not available");
	CHECK(tuner_apply(&t3, fl, "2", msg, sizeof msg) < 0, "read-only: apply refused");
	CHECK(tuner_revert(&t3, true, msg, sizeof msg) <= 0, "read-only: revert refused or nothing");
	CHECK(tuner_keep(&t3, 1, msg, sizeof msg) < 0, "read-only: keep refused");
	CHECK(nexec == before, "read-only: no statement sent");
	tuner_close(&t3);
	unsetenv("XDG_STATE_HOME");
}

int main(void)
{
	str_printf(dir, sizeof dir, "/tmp/dbtop-test-tune.%d", (int)getpid());
	mkdir(dir, 0700);
	test_table();
	test_journal();
	test_tuner();
	char cmd[300];
	str_printf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return TAP_DONE();
}
