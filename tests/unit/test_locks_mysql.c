/* test_locks_mysql.c - MySQL 8 / MariaDB lock waits: the SQL builders, the
 * MDL compatibility matrices, the statement reader used for MariaDB
 * metadata locks, and the row mappers fed with recorded rows
 * (tests/fixtures/locks-mysql-8.0.36.txt, locks-mariadb-10.11.txt), then
 * lock_set_analyse on what they built. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/locks.h"
#include "../../sources/mariadb_rowlocks.h"
#include "../../sources/sessions_map.h"
#include "../../sources/mysql_locks_map.h"
#include "../../util/util.h"
#include "tap.h"
#include "fixture.h"

static bool has(const char *s, const char *sub)
{
	return s && sub && strstr(s, sub) != NULL;
}

static bool starts(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Times sub occurs in s. */
static int count_of(const char *s, const char *sub)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, sub)) != NULL; p += strlen(sub))
		n++;
	return n;
}

/* Index of session id, or -1 (never adds one). */
static int sess(const struct lock_set *ls, long long id)
{
	for (size_t i = 0; i < ls->ns; i++)
		if (ls->s[i].id == id)
			return (int)i;
	return -1;
}

static const struct lock_session *S(const struct lock_set *ls, long long id)
{
	int i = sess(ls, id);
	return i < 0 ? NULL : &ls->s[i];
}

/* The first edge waiter -> blocker, or NULL. */
static const struct lock_edge *edge(const struct lock_set *ls, long long w, long long b)
{
	for (size_t k = 0; k < ls->ne; k++)
		if (ls->s[ls->e[k].waiter].id == w && ls->s[ls->e[k].blocker].id == b)
			return &ls->e[k];
	return NULL;
}

static int edges_of_waiter(const struct lock_set *ls, long long w)
{
	int n = 0;
	for (size_t k = 0; k < ls->ne; k++)
		n += ls->s[ls->e[k].waiter].id == w;
	return n;
}

/* Feed every row of section name to mysql_locks_map_row. */
static int map_section(struct lock_set *ls, const struct fx *f, const char *name)
{
	const struct fx_sec *sec = fx_sec(f, name);
	if (!sec)
		return -1;
	for (int i = 0; i < sec->nrows; i++)
		mysql_locks_map_row(ls, (const char *const *)sec->rows[i].cell, sec->rows[i].n);
	return sec->nrows;
}

/* Feed a MariaDB MDL section through the accumulator. */
static int map_mdl_section(struct lock_set *ls, const struct fx *f, const char *name, bool plugin)
{
	const struct fx_sec *sec = fx_sec(f, name);
	struct mariadb_mdl *m;
	if (!sec)
		return -1;
	m = mariadb_mdl_new(plugin);
	for (int i = 0; i < sec->nrows; i++)
		mariadb_mdl_map_row(m, ls, (const char *const *)sec->rows[i].cell, sec->rows[i].n);
	mariadb_mdl_finish(m, ls);
	return sec->nrows;
}

/* A cell of the first row of a section. */
static const char *cell0(const struct fx *f, const char *name, int col)
{
	const struct fx_sec *sec = fx_sec(f, name);
	if (!sec || sec->nrows < 1 || sec->rows[0].n <= col)
		return NULL;
	return sec->rows[0].cell[col];
}

/* True when s has no byte a terminal could act on. */
static bool clean(const char *s)
{
	if (!s)
		return true;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* ---- SQL ---------------------------------------------------------------------- */

static void test_sql(void)
{
	char buf[MYL_SQL_MAX], small[16];

	mysql_locks_row_sql(2000, buf, sizeof buf);
	CHECK(starts(buf, "SELECT /*+ MAX_EXECUTION_TIME(2000) */ "), "row sql mysql: MAX_EXECUTION_TIME hint");
	CHECK(has(buf, "FROM performance_schema.data_lock_waits lw) x") &&
	      !has(strstr(buf, "data_lock_waits") + 1, "data_lock_waits"), "row sql mysql: data_lock_waits read once");
	CHECK(has(buf, "q.ENGINE_LOCK_ID FROM performance_schema.data_locks q WHERE q.LOCK_STATUS = 'WAITING') AS queued") &&
	      has(buf, "GROUP BY x.ENGINE, x.REQUESTING_ENGINE_LOCK_ID, x.queued, IF(x.queued, '', x.BLOCKING_ENGINE_LOCK_ID))") &&
	      has(buf, "WHERE NOT g.queued OR NOT g.granted_blocker) w") &&
	      strstr(buf, "GROUP BY x.ENGINE") < strstr(buf, "JOIN performance_schema.data_locks r"),
	      "row sql mysql: pairs grouped down to granted blockers (queued ones only when no granted one) "
	      "before the joins");
	CHECK(has(buf, "IF(w.queued, 'PENDING', 'GRANTED')"), "row sql mysql: a queued blocker is PENDING");
	CHECK(has(buf, "data_locks r ON") && has(buf, "r.ENGINE_LOCK_ID = w.REQUESTING_ENGINE_LOCK_ID") &&
	      has(buf, "data_locks b ON") && has(buf, "b.ENGINE_LOCK_ID = w.BLOCKING_ENGINE_LOCK_ID"),
	      "row sql mysql: data_locks joined for both locks");
	CHECK(has(buf, "performance_schema.threads rt") && has(buf, "performance_schema.threads bt"),
	      "row sql mysql: threads for both sides");
	CHECK(has(buf, "information_schema.INNODB_TRX rx") && has(buf, "information_schema.INNODB_TRX bx"),
	      "row sql mysql: INNODB_TRX for both sides");
	CHECK(has(buf, "events_statements_current bs") && has(buf, "bs.SQL_TEXT"),
	      "row sql mysql: the blocker's last statement");
	CHECK(has(buf, "TIMESTAMPDIFF(MICROSECOND, bx.trx_started, NOW(6)) / 1e6"),
	      "row sql mysql: ages computed on the server");

	mariadb_rowlocks_sql(2000, buf, sizeof buf);
	CHECK(starts(buf, "SET STATEMENT max_statement_time=2.000 FOR SELECT 'L', lock_id, lock_trx_id, "),
	      "row sql mariadb: SET STATEMENT max_statement_time, the locks first");
	/* a statement digest keeps 1024 bytes: INNODB_LOCKS must be named in
	 * them (bench/locks.sh counts the lock reads so) */
	CHECK(strstr(buf, "information_schema.INNODB_LOCKS") &&
	      strstr(buf, "information_schema.INNODB_LOCKS") - buf < 600,
	      "row sql mariadb: INNODB_LOCKS named early in the statement");
	/* MariaDB materialises a WITH clause's derived table at each of its
	 * references: each table is named once (INNODB_TRX a second time for
	 * the process list rows it keeps: one fill of InnoDB's cache) */
	CHECK(count_of(buf, "INNODB_LOCKS") == 1 && count_of(buf, "INNODB_TRX") == 2 &&
	      count_of(buf, "PROCESSLIST") == 1 && !has(buf, "INNODB_LOCK_WAITS") && !has(buf, " WITH ") &&
	      !has(buf, " JOIN "), "row sql mariadb: each table read once, no join on the server");
	CHECK(has(buf, "UNION ALL SELECT 'T', trx_id, trx_requested_lock_id, trx_mysql_thread_id, ") &&
	      has(buf, "UNION ALL SELECT 'P', p.ID, p.USER, p.COMMAND, p.STATE, p.TIME_MS / 1000, LEFT(p.INFO, 1024), p.QUERY_ID") &&
	      has(buf, "WHERE p.ID IN (SELECT trx_mysql_thread_id FROM information_schema.INNODB_TRX)"),
	      "row sql mariadb: the transactions, and the process list rows of those in one");
	CHECK(has(buf, "TIMESTAMPDIFF(MICROSECOND, trx_wait_started, NOW(6)) / 1e6"),
	      "row sql mariadb: ages computed on the server");
	CHECK(!has(buf, "MAX_EXECUTION_TIME"), "row sql mariadb: no MySQL hint");
	mariadb_rowlocks_sql(1500, buf, sizeof buf);
	CHECK(starts(buf, "SET STATEMENT max_statement_time=1.500 FOR "), "row sql mariadb: ms to seconds");
	mariadb_rowlocks_sql(0, buf, sizeof buf);
	CHECK(starts(buf, "SELECT 'L', ") && !has(buf, "max_statement_time"), "row sql mariadb: ms 0, no time limit");
	CHECK(strlen(buf) < sizeof buf - 1 && has(buf, "FROM information_schema.INNODB_TRX)"),
	      "row sql mariadb: not cut");
	CHECK(has(buf, "trx_lock_structs, trx_state, NULL, NULL FROM information_schema.INNODB_TRX"),
	      "row sql mariadb: the transaction's state (the session list's, in the joined read)");
	mariadb_joined_sql(2000, buf, sizeof buf);
	CHECK(starts(buf, "SET STATEMENT max_statement_time=2.000 FOR SELECT 'L', lock_id, lock_trx_id, "),
	      "joined sql: SET STATEMENT max_statement_time, the locks first");
	CHECK(count_of(buf, "INNODB_LOCKS") == 1 && count_of(buf, "INNODB_TRX") == 1 &&
	      count_of(buf, "PROCESSLIST") == 1 && !has(buf, " JOIN ") && !has(buf, " WITH ") && !has(buf, " IN ("),
	      "joined sql: each table read once, no join on the server");
	CHECK(has(buf, "UNION ALL (SELECT 'S', p.ID, p.USER, p.HOST, p.DB, p.COMMAND, p.TIME, p.TIME_MS, p.STATE, "
		       "p.INFO, p.QUERY_ID, p.ID = CONNECTION_ID() FROM information_schema.PROCESSLIST p LIMIT 20001)") &&
	      strlen(buf) < sizeof buf - 1,
	      "joined sql: every process list row with the session list's columns, at most SESSIONS_ROW_LIMIT + 1");
	mariadb_joined_sql(0, buf, sizeof buf);
	CHECK(starts(buf, "SELECT 'L', ") && !has(buf, "max_statement_time"), "joined sql: ms 0, no time limit");
	mysql_locks_row_sql(2000, buf, sizeof buf);
	CHECK(strlen(buf) < sizeof buf - 1 && has(buf, "bs.NESTING_EVENT_LEVEL = 0"), "row sql mysql: not cut");
	mysql_locks_row_sql(0, buf, sizeof buf);
	CHECK(starts(buf, "SELECT rt.PROCESSLIST_ID"), "row sql: ms 0 means no time limit");

	mysql_locks_mdl_sql(FLAVOUR_MYSQL, 2000, buf, sizeof buf);
	CHECK(starts(buf, "SELECT /*+ MAX_EXECUTION_TIME(2000) */ "), "mdl sql mysql: hint");
	CHECK(has(buf, "FROM performance_schema.metadata_locks w") &&
	      has(buf, "WHERE w.LOCK_STATUS = 'PENDING'"), "mdl sql mysql: pending rows");
	CHECK(has(buf, "WHEN 'SHARED_READ' THEN b.LOCK_TYPE NOT IN (") &&
	      has(buf, "WHEN 'EXCLUSIVE' THEN 1"), "mdl sql mysql: granted matrix");
	CHECK(has(buf, "WHEN 'SHARED_READ' THEN b.LOCK_TYPE IN ('SHARED_NO_READ_WRITE', 'EXCLUSIVE')"),
	      "mdl sql mysql: pending matrix");
	CHECK(strlen(buf) < sizeof buf - 1 && buf[strlen(buf) - 1] == ')', "mdl sql mysql: not cut");
	mysql_locks_mdl_sql(FLAVOUR_MARIADB, 250, buf, sizeof buf);
	CHECK(starts(buf, "SET STATEMENT max_statement_time=0.250 FOR SELECT wt.PROCESSLIST_ID"),
	      "mdl sql mariadb: SET STATEMENT");

	mysql_locks_mdl_count_sql(FLAVOUR_MYSQL, 500, NULL, buf, sizeof buf);
	CHECK_STR(buf, "SELECT /*+ MAX_EXECUTION_TIME(500) */ COUNT(*) FROM performance_schema.metadata_locks "
		  "WHERE LOCK_STATUS = 'PENDING'", "mdl count sql mysql");
	mysql_locks_mdl_count_sql(FLAVOUR_MARIADB, 500, NULL, buf, sizeof buf);
	CHECK_STR(buf, "SET STATEMENT max_statement_time=0.500 FOR SELECT COUNT(*) FROM "
		  "information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for%metadata lock'",
		  "mdl count sql mariadb");

	mariadb_mdl_sql(true, 2000, buf, sizeof buf);
	CHECK(starts(buf, "SET STATEMENT max_statement_time=2.000 FOR SELECT 'W'"), "mariadb mdl sql: limit");
	CHECK(has(buf, "UNION ALL SELECT 'H'") && has(buf, "information_schema.METADATA_LOCK_INFO m"),
	      "mariadb mdl sql: holders with the plugin");
	mariadb_mdl_sql(false, 2000, buf, sizeof buf);
	CHECK(!has(buf, "METADATA_LOCK_INFO") && has(buf, "'Waiting for%metadata lock'"),
	      "mariadb mdl sql: waiters only without the plugin");
	CHECK(has(MARIADB_MDL_PLUGIN_SQL, "'METADATA_LOCK_INFO'"), "plugin probe sql");

	mysql_locks_row_sql(2000, small, sizeof small);
	CHECK(strlen(small) == sizeof small - 1, "row sql: a short buffer is cut, not overrun");

	unsigned n = 99;
	CHECK(mysql_locks_count("7", &n) && n == 7, "count cell 7");
	CHECK(!mysql_locks_count(NULL, &n) && !mysql_locks_count("", &n) && !mysql_locks_count("-1", &n) &&
	      !mysql_locks_count("3x", &n), "count cell: NULL and junk refused");

	/* the stamp of the waits: any wait that begins or ends moves it */
	uint64_t st = mysql_locks_stamp(true, 1000, 500, 0);
	CHECK(st != 0 && st == mysql_locks_stamp(true, 1000, 500, 0), "stamp: the same counters, the same stamp");
	CHECK(mysql_locks_stamp(true, 1001, 501, 0) != st, "stamp: a wait began");
	CHECK(mysql_locks_stamp(true, 1000, 499, 0) != st, "stamp: a wait ended");
	CHECK(mysql_locks_stamp(true, 1001, 500, 0) != st, "stamp: one ended as another began");
	CHECK(mysql_locks_stamp(false, 1000, 500, 0) == 0 && mysql_locks_stamp(true, 1000, 500, 1) == 0,
	      "stamp: not known without the counter or while a metadata-lock wait is on");
	CHECK(mysql_locks_stamp(true, UINT64_MAX, 0xffffff, 0) != 0 && mysql_locks_stamp(true, 0, 0, 0) != 0,
	      "stamp: never 0 (not known) for known counters");
}

/* ---- the MDL matrices ------------------------------------------------------- */

static void test_mdl_matrix(void)
{
	CHECK(mysql_mdl_type("SHARED_READ") == MDL_T_SR && mysql_mdl_type("MDL_SHARED_READ") == MDL_T_SR &&
	      mysql_mdl_type("shared_no_write") == MDL_T_SNW && mysql_mdl_type("EXCLUSIVE") == MDL_T_X,
	      "mdl type names (with and without MDL_)");
	CHECK(mysql_mdl_type(NULL) == MDL_T_UNKNOWN && mysql_mdl_type("BACKUP_DML") == MDL_T_UNKNOWN,
	      "mdl type: unknown");
	CHECK_STR(mysql_mdl_name(MDL_T_SU), "SHARED_UPGRADABLE", "mdl name");
	CHECK_STR(mysql_mdl_name(MDL_T_UNKNOWN), "", "mdl name of unknown");

	CHECK(mysql_mdl_conflicts(MDL_T_X, MDL_T_SR, false), "X waits for a granted SHARED_READ");
	CHECK(!mysql_mdl_conflicts(MDL_T_SR, MDL_T_SU, false), "SR is compatible with a granted SU");
	CHECK(!mysql_mdl_conflicts(MDL_T_SR, MDL_T_SR, false), "SR is compatible with SR");
	CHECK(mysql_mdl_conflicts(MDL_T_SU, MDL_T_SU, false), "SU waits for SU");
	CHECK(mysql_mdl_conflicts(MDL_T_SW, MDL_T_SRO, false), "SW waits for SRO");
	CHECK(mysql_mdl_conflicts(MDL_T_SR, MDL_T_SNRW, false), "SR waits for SNRW");
	CHECK(!mysql_mdl_conflicts(MDL_T_SNRW, MDL_T_SH, false), "SNRW is compatible with SH");
	CHECK(!mysql_mdl_conflicts(MDL_T_IX, MDL_T_IX, false) && mysql_mdl_conflicts(MDL_T_IX, MDL_T_S, false),
	      "scoped IX: compatible with IX, not with S");
	CHECK(mysql_mdl_conflicts(MDL_T_SR, MDL_T_X, true), "SR queues behind a pending X");
	CHECK(!mysql_mdl_conflicts(MDL_T_SH, MDL_T_X, true), "SH jumps a pending X");
	CHECK(!mysql_mdl_conflicts(MDL_T_X, MDL_T_SR, true), "X never queues behind a pending SR");
	CHECK(mysql_mdl_conflicts(MDL_T_SW, MDL_T_SNW, true) && !mysql_mdl_conflicts(MDL_T_SR, MDL_T_SNW, true),
	      "pending SNW holds back SW, not SR");
	CHECK(mysql_mdl_conflicts(MDL_T_UNKNOWN, MDL_T_SR, false) &&
	      mysql_mdl_conflicts(MDL_T_SR, MDL_T_UNKNOWN, false), "unknown granted types conflict");
	CHECK(mysql_mdl_conflicts(MDL_T_UNKNOWN, MDL_T_X, true) && !mysql_mdl_conflicts(MDL_T_UNKNOWN, MDL_T_SR, true) &&
	      !mysql_mdl_conflicts(MDL_T_SR, MDL_T_UNKNOWN, true), "unknown pending: only behind X");
	/* MySQL's granted matrix is symmetric for the object lock types */
	bool sym = true;
	for (int a = MDL_T_S; a < MDL_T__COUNT; a++)
		for (int b = MDL_T_S; b < MDL_T__COUNT; b++)
			if (mysql_mdl_conflicts((enum mdl_type)a, (enum mdl_type)b, false) !=
			    mysql_mdl_conflicts((enum mdl_type)b, (enum mdl_type)a, false))
				sym = false;
	CHECK(sym, "granted matrix is symmetric");
}

/* ---- statements ----------------------------------------------------------------- */

static void check_tables(const char *sql, const char *db, const char *want)
{
	char t[8][MYL_NAME_MAX], got[1100] = "";
	int n = mysql_stmt_tables(sql, db, t, 8);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(got);
		str_printf(got + l, sizeof got - l, "%s%s", i ? " " : "", t[i]);
	}
	CHECK_STR(got, want, tname("tables of: %s", sql ? sql : "(null)"));
}

static void test_statements(void)
{
	check_tables("ALTER TABLE retoday.page ADD COLUMN note VARCHAR(64)", NULL, "retoday.page");
	check_tables("SELECT * FROM page WHERE id = 1", "retoday", "retoday.page");
	check_tables("SELECT * FROM page WHERE id = 1", NULL, ".page");
	check_tables("select * from `shop`.`order``s` o where 1", "x", "shop.order`s");
	check_tables("SELECT * FROM a x, b AS y JOIN c ON c.id = x.id", "d", "d.a d.b d.c");
	check_tables("LOCK TABLES t1 READ, t2 WRITE", "d", "d.t1 d.t2");
	check_tables("INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = 2", "d", "d.t");
	check_tables("SELECT * FROM t WHERE id = 1 FOR UPDATE", "d", "d.t");
	check_tables("DROP TABLE IF EXISTS a, s.b", "d", "d.a s.b");
	check_tables("CREATE INDEX i ON t (c)", "d", "d.t");
	check_tables("SELECT 'FROM x', \"JOIN y\" FROM z -- FROM w", "d", "d.z");
	check_tables("UPDATE t SET a = 1 WHERE b IN (SELECT c FROM /* FROM v */ u)", "d", "d.t d.u");
	check_tables("TRUNCATE logs", "d", "d.logs");
	check_tables("SELECT 1", "d", "");
	check_tables(NULL, "d", "");
	check_tables("SELECT * FROM `unterminated", "d", "");
	check_tables("SELECT 'it''s' FROM q", "d", "d.q");

	CHECK(mysql_stmt_mdl("ALTER TABLE t ADD c INT") == MDL_T_X, "stmt lock: ALTER -> EXCLUSIVE");
	CHECK(mysql_stmt_mdl("  /* x */ (SELECT 1 FROM t)") == MDL_T_SR, "stmt lock: SELECT -> SHARED_READ");
	CHECK(mysql_stmt_mdl("select * from t for update") == MDL_T_SW, "stmt lock: SELECT FOR UPDATE -> SHARED_WRITE");
	CHECK(mysql_stmt_mdl("INSERT INTO t VALUES (1)") == MDL_T_SW, "stmt lock: INSERT -> SHARED_WRITE");
	CHECK(mysql_stmt_mdl("LOCK TABLES a READ, b WRITE") == MDL_T_SNRW, "stmt lock: LOCK TABLES WRITE");
	CHECK(mysql_stmt_mdl("LOCK TABLES a READ") == MDL_T_SRO, "stmt lock: LOCK TABLES READ");
	CHECK(mysql_stmt_mdl("SHOW CREATE TABLE t") == MDL_T_SH, "stmt lock: SHOW -> SHARED_HIGH_PRIO");
	CHECK(mysql_stmt_mdl("CALL p()") == MDL_T_UNKNOWN && mysql_stmt_mdl(NULL) == MDL_T_UNKNOWN,
	      "stmt lock: unknown");
}

/* ---- MySQL 8 fixture ------------------------------------------------------------- */

static void test_mysql_rows(void)
{
	struct fx f;
	unsigned n = 0;
	if (!fx_load(&f, "locks-mysql-8.0.36.txt"))
		return;
	CHECK(cell0(&f, "status", 0) && strcmp(cell0(&f, "status", 0), MYL_GATE_STATUS) == 0 &&
	      mysql_locks_count(cell0(&f, "status", 1), &n) && n == 11, "mysql: the gate counter");
	CHECK(mysql_locks_count(cell0(&f, "mdl_count", 0), &n) && n == 2, "mysql: the mdl count");

	struct lock_set *ls = lock_set_new();
	CHECK(map_section(ls, &f, "rows") == 12, "mysql: 12 rows");
	CHECK(ls->ne == 12, tname("mysql: 12 edges (got %zu)", ls->ne));
	CHECK(ls->ns == 18, tname("mysql: 18 sessions (got %zu)", ls->ns));

	/* seed 001: the edge exactly */
	const struct lock_edge *e = edge(ls, 1002, 1001);
	CHECK(e != NULL, "seed 001: 1002 waits for 1001");
	if (e) {
		CHECK_STR(e->object, "retoday.website.PRIMARY", "seed 001: object");
		CHECK_STR(e->requested, "X,GAP,INSERT_INTENTION", "seed 001: requested");
		CHECK_STR(e->held, "X,GAP", "seed 001: held");
		CHECK_STR(e->lock_type, "RECORD", "seed 001: lock type");
		CHECK_STR(e->lock_data, "0x018F3A6C0A117C3E9D5B2A4C6E8F0123", "seed 001: lock data");
		CHECK(!e->soft, "seed 001: a hard wait");
	}
	lock_set_analyse(ls);

	const struct lock_session *b = S(ls, 1001), *w = S(ls, 1002);
	CHECK(b && w, "seed 001: both sessions");
	if (b && w) {
		char txt[96];
		CHECK(b->is_root && !b->waits && b->blocks, "seed 001: the idle blocker is a root");
		CHECK_STR(b->state, "idle in transaction", "seed 001: blocker state");
		CHECK_NEAR(b->state_s, 14, 1e-9, "seed 001: idle for PROCESSLIST_TIME");
		CHECK_NEAR(b->trx_age_s, 14.208731, 1e-9, "seed 001: blocker trx age");
		CHECK(isnan(b->wait_s), "seed 001: the blocker does not wait");
		CHECK(b->query_is_last && starts(b->query, "INSERT INTO `website`") &&
		      has(b->query, "ON DUPLICATE KEY UPDATE"), "seed 001: blocker's last statement is the upsert");
		CHECK_STR(b->user, "retoday_app", "seed 001: blocker user");
		CHECK(b->blocked == 3, tname("seed 001: blocks 3 sessions (got %d)", b->blocked));
		lock_state_text(b, txt, sizeof txt);
		CHECK_STR(txt, "idle in transaction 14s", "seed 001: state text");
		CHECK_STR(w->state, "Query (update)", "seed 001: waiter state");
		CHECK_NEAR(w->wait_s, 8.998702, 1e-9, "seed 001: waiter wait");
		CHECK(!w->query_is_last && has(w->query, "'blog.example'"), "seed 001: waiter's current statement");
		CHECK(w->root == sess(ls, 1001) && w->depth == 1, "seed 001: waiter depth 1 under 1001");
	}
	CHECK(edge(ls, 1003, 1001) && edge(ls, 1004, 1001), "one blocker, three waiters");

	/* three-session chain */
	const struct lock_session *c1 = S(ls, 3001), *c2 = S(ls, 3002), *c3 = S(ls, 3003);
	CHECK(c1 && c2 && c3, "chain: sessions");
	if (c1 && c2 && c3) {
		CHECK(c1->is_root && c1->blocked == 2, tname("chain: 3001 root blocking 2 (got %d)", c1->blocked));
		CHECK(!c2->is_root && c2->waits && c2->blocks && c2->depth == 1, "chain: 3002 in the middle");
		CHECK(c3->root == sess(ls, 3001) && c3->depth == 2, tname("chain: 3003 at depth 2 (got %d)", c3->depth));
		CHECK_STR(c2->state, "Query (updating)", "chain: 3002 state");
		CHECK(!c2->query_is_last && starts(c2->query, "UPDATE accounts SET balance = balance + 5"),
		      "chain: a blocker that runs keeps its current statement");
	}
	e = edge(ls, 3003, 3002);
	CHECK(e && e->depth == 2 && strcmp(e->requested, "X,REC_NOT_GAP") == 0 &&
	      strcmp(e->lock_data, "8") == 0, "chain: edge 3003 -> 3002 X,REC_NOT_GAP on 8");

	/* many-to-many */
	CHECK(edges_of_waiter(ls, 4003) == 2 && edge(ls, 4003, 4001) && edge(ls, 4003, 4002),
	      "one waiter, two blockers");
	e = edge(ls, 4003, 4002);
	CHECK(e && strcmp(e->held, "S,REC_NOT_GAP") == 0, "two blockers: held S,REC_NOT_GAP");
	CHECK(S(ls, 4001) && S(ls, 4001)->is_root && S(ls, 4002) && S(ls, 4002)->is_root &&
	      S(ls, 4001)->blocked == 1 && S(ls, 4002)->blocked == 1, "two blockers: both roots");

	/* the cycle */
	const struct lock_session *y1 = S(ls, 5001), *y2 = S(ls, 5002);
	CHECK(y1 && y2 && y1->in_cycle && y2->in_cycle, "cycle: both sessions flagged");
	CHECK(ls->ncycles == 2, tname("cycle: 2 sessions on cycles (got %d)", ls->ncycles));
	e = edge(ls, 5001, 5002);
	CHECK(e && e->cycle && edge(ls, 5002, 5001) && edge(ls, 5002, 5001)->cycle, "cycle: edges flagged");
	CHECK(y1 && y2 && y1->is_root && !y2->is_root, "cycle: the oldest transaction heads it");
	CHECK(!S(ls, 1001)->in_cycle && !S(ls, 3002)->in_cycle, "cycle: chains are not cycles");

	/* supremum, table lock, no client session */
	e = edge(ls, 6002, 6001);
	CHECK(e && strcmp(e->lock_data, "supremum pseudo-record") == 0 &&
	      strcmp(e->requested, "X,INSERT_INTENTION") == 0 && strcmp(e->held, "X") == 0,
	      "supremum pseudo-record");
	e = edge(ls, 7002, 7001);
	CHECK(e && strcmp(e->object, "shop.audit") == 0 && strcmp(e->lock_type, "TABLE") == 0 &&
	      e->lock_data[0] == '\0', "table lock: schema.table, no lock data");
	CHECK(S(ls, 7002) && S(ls, 7002)->query && !strchr(S(ls, 7002)->query, '\t') &&
	      has(S(ls, 7002)->query, "('a b')"), "a tab in a statement becomes a space");
	e = edge(ls, 9001, 0);
	CHECK(e != NULL, "no client session: blocker id 0");
	CHECK(S(ls, 0) && strcmp(S(ls, 0)->state, "no client session") == 0 &&
	      S(ls, 0)->user[0] == '\0' && !S(ls, 0)->query, "no client session: state, no user, no query");
	CHECK(S(ls, 0) && S(ls, 0)->trx_age_s > 5000, "no client session: its transaction age");

	CHECK(ls->nroots == 8, tname("mysql: 8 roots (got %d)", ls->nroots));
	for (size_t k = 0; k < ls->ne; k++)
		if (!clean(ls->e[k].object) || !clean(ls->e[k].lock_data))
			CHECK(false, "mysql: edge strings are clean");
	lock_set_free(ls);

	/* metadata locks */
	ls = lock_set_new();
	CHECK(map_section(ls, &f, "mdl") == 2 && ls->ne == 2, "mysql mdl: 2 edges");
	e = edge(ls, 8002, 8001);
	CHECK(e && strcmp(e->object, "shop.orders") == 0 && strcmp(e->lock_type, "METADATA") == 0 &&
	      strcmp(e->requested, "EXCLUSIVE") == 0 && strcmp(e->held, "SHARED_READ") == 0 && !e->soft,
	      "mysql mdl: ALTER waits for EXCLUSIVE behind SHARED_READ");
	e = edge(ls, 8003, 8002);
	CHECK(e && e->soft && strcmp(e->requested, "SHARED_READ") == 0 && strcmp(e->held, "EXCLUSIVE") == 0,
	      "mysql mdl: SELECT queued behind the ALTER (soft)");
	lock_set_analyse(ls);
	b = S(ls, 8001);
	CHECK(b && b->is_root && b->blocked == 2 && strcmp(b->state, "idle in transaction") == 0 &&
	      b->query_is_last && has(b->query, "SELECT COUNT(*) FROM orders"),
	      "mysql mdl: the idle holder is the root");
	CHECK(S(ls, 8003) && S(ls, 8003)->depth == 2, "mysql mdl: the SELECT at depth 2");
	CHECK(S(ls, 8002) && strcmp(S(ls, 8002)->state, "Query (Waiting for table metadata lock)") == 0 &&
	      S(ls, 8002)->wait_s == 25, "mysql mdl: ALTER state and wait");
	lock_set_free(ls);
	fx_free(&f);
}

/* ---- MariaDB 10.11 fixture ----------------------------------------------------------- */

static void test_mariadb_rows(void)
{
	struct fx f;
	unsigned n = 0;
	if (!fx_load(&f, "locks-mariadb-10.11.txt"))
		return;
	CHECK(mysql_locks_count(cell0(&f, "status", 1), &n) && n == 5, "mariadb: the gate counter");
	CHECK(mysql_locks_count(cell0(&f, "plugin", 0), &n) && n == 1, "mariadb: plugin probe");

	struct lock_set *ls = lock_set_new();
	CHECK(map_section(ls, &f, "rows") == 6 && ls->ne == 6 && ls->ns == 8,
	      tname("mariadb: 6 edges, 8 sessions (got %zu, %zu)", ls->ne, ls->ns));
	map_section(ls, &f, "rows");
	CHECK(ls->ne == 6, "mariadb: repeated rows add no edge");
	const struct lock_edge *e = edge(ls, 44, 43);
	CHECK(e && strcmp(e->object, "retoday.website.uk_website_domain") == 0,
	      "mariadb: `db`.`table` becomes db.table");
	CHECK(e && strcmp(e->requested, "X,GAP") == 0 && strcmp(e->held, "X") == 0 &&
	      strcmp(e->lock_data, "'e.example'") == 0, "mariadb: requested X,GAP vs held X on 'e.example'");
	lock_set_analyse(ls);
	const struct lock_session *b = S(ls, 43);
	CHECK(b && b->is_root && b->blocked == 4, tname("mariadb: 43 blocks 4 (got %d)", b ? b->blocked : -1));
	CHECK(b && strcmp(b->state, "idle in transaction") == 0 && !b->query && !b->query_is_last,
	      "mariadb: idle blocker, last statement not available");
	CHECK(b && fabs(b->state_s - 2.927693) < 1e-9, "mariadb: TIME_MS in seconds");
	CHECK(S(ls, 48) && S(ls, 48)->depth == 2 && S(ls, 48)->root == sess(ls, 43), "mariadb: chain depth 2");
	CHECK(edges_of_waiter(ls, 50) == 2 && edge(ls, 50, 47) && edge(ls, 50, 49),
	      "mariadb: one waiter, two read-only blockers");
	CHECK(S(ls, 46) && strcmp(S(ls, 46)->state, "Query (Update)") == 0 && S(ls, 46)->waits &&
	      S(ls, 46)->blocks, "mariadb: a waiting blocker");
	lock_set_free(ls);

	/* metadata locks with the plugin */
	ls = lock_set_new();
	CHECK(map_mdl_section(ls, &f, "mdl_info", true) == 4, "mariadb mdl: 4 rows");
	CHECK(ls->ne == 2, tname("mariadb mdl: 2 edges (got %zu)", ls->ne));
	e = edge(ls, 66, 65);
	CHECK(e && !e->soft && strcmp(e->object, "retoday.page") == 0 && strcmp(e->requested, "EXCLUSIVE") == 0 &&
	      strcmp(e->held, "SHARED_READ") == 0 && strcmp(e->lock_type, "METADATA") == 0,
	      "mariadb mdl: ALTER waits behind the idle SHARED_READ");
	e = edge(ls, 67, 66);
	CHECK(e && e->soft && strcmp(e->held, "EXCLUSIVE") == 0 && strcmp(e->object, "retoday.page") == 0,
	      "mariadb mdl: SELECT queued behind the ALTER");
	CHECK(ls->note[0] == '\0', "mariadb mdl: no note with the plugin");
	lock_set_analyse(ls);
	b = S(ls, 65);
	CHECK(b && b->is_root && b->blocked == 2 && strcmp(b->state, "idle in transaction") == 0 &&
	      !b->query && !b->query_is_last, "mariadb mdl: the idle holder is the root");
	CHECK(S(ls, 67) && S(ls, 67)->depth == 2 && fabs(S(ls, 67)->wait_s - 1.029872) < 1e-9,
	      "mariadb mdl: the SELECT at depth 2, waiting TIME_MS");
	lock_set_free(ls);

	/* without the plugin */
	ls = lock_set_new();
	map_mdl_section(ls, &f, "mdl_noplugin", false);
	CHECK(ls->ne == 1 && edge(ls, 67, 66) && edge(ls, 67, 66)->soft, "mariadb mdl, no plugin: the queue edge only");
	CHECK(has(ls->note, "metadata-lock waits: 2 sessions wait;") &&
	      has(ls->note, "INSTALL SONAME 'metadata_lock_info'"), tname("mariadb mdl, no plugin: note '%s'", ls->note));
	lock_set_free(ls);

	/* performance_schema metadata_locks on MariaDB */
	ls = lock_set_new();
	map_section(ls, &f, "mdl_ps");
	CHECK(ls->ne == 2 && edge(ls, 77, 76) && !edge(ls, 77, 76)->soft && edge(ls, 78, 77) &&
	      edge(ls, 78, 77)->soft, "mariadb p_s mdl: the same two edges");
	lock_set_free(ls);
	fx_free(&f);
}

/* ---- MariaDB row locks paired on the client ------------------------------------------ */

/* Feed a raw section (columns MRL_*) through the pairing; from row
 * "from", backwards when rev. */
static int pair_section(struct lock_set *ls, const struct fx *f, const char *name, bool rev)
{
	const struct fx_sec *sec = fx_sec(f, name);
	struct mariadb_rl *a;
	if (!sec)
		return -1;
	a = mariadb_rl_new();
	for (int k = 0; k < sec->nrows; k++) {
		int i = rev ? sec->nrows - 1 - k : k;
		mariadb_rl_map_row(a, (const char *const *)sec->rows[i].cell, sec->rows[i].n);
	}
	mariadb_rl_finish(a, ls);
	return sec->nrows;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Every edge of x is in y with the same locks and modes; every session
 * of x in y with the same user, state and statement, and ages within 1 s
 * (the two reads were moments apart). Says what differs in why. */
static bool lock_set_within(const struct lock_set *x, const struct lock_set *y, char *why, size_t len)
{
	for (size_t k = 0; k < x->ne; k++) {
		const struct lock_edge *e = &x->e[k], *o;
		o = edge(y, x->s[e->waiter].id, x->s[e->blocker].id);
		if (!o || strcmp(e->object, o->object) || strcmp(e->lock_type, o->lock_type) ||
		    strcmp(e->requested, o->requested) || strcmp(e->held, o->held) ||
		    strcmp(e->lock_data, o->lock_data) || e->soft != o->soft) {
			snprintf(why, len, "edge %lld -> %lld", x->s[e->waiter].id, x->s[e->blocker].id);
			return false;
		}
	}
	for (size_t i = 0; i < x->ns; i++) {
		const struct lock_session *a = &x->s[i], *b = S(y, a->id);
		bool ages = b && (isnan(a->trx_age_s) == isnan(b->trx_age_s)) &&
			    (isnan(a->trx_age_s) || fabs(a->trx_age_s - b->trx_age_s) < 1) &&
			    (isnan(a->wait_s) == isnan(b->wait_s)) && (isnan(a->wait_s) || fabs(a->wait_s - b->wait_s) < 1);
		if (!b || strcmp(a->user, b->user) || strcmp(a->state, b->state) || !same_str(a->query, b->query) ||
		    !ages || !same_str(a->ident.trx_id, b->ident.trx_id)) {
			snprintf(why, len, "session %lld", a->id);
			return false;
		}
	}
	return true;
}

static void test_mariadb_client_pairs(void)
{
	struct fx f;
	char why[64] = "";
	if (!fx_load(&f, "locks-mariadb-10.11.txt"))
		return;
	struct lock_set *mine = lock_set_new(), *server = lock_set_new(), *rev = lock_set_new();
	CHECK(pair_section(mine, &f, "rl_raw", false) == 38 && map_section(server, &f, "rl_pairs") == 17,
	      "mariadb pairs: 38 rows read, 17 rows of the server's pairing");
	CHECK(mine->ne == 17 && mine->ns == 13 && server->ne == 17 && server->ns == 13,
	      tname("mariadb pairs: 17 edges, 13 sessions both ways (got %zu, %zu; %zu, %zu)", mine->ne, mine->ns,
		    server->ne, server->ns));
	CHECK(lock_set_within(mine, server, why, sizeof why) && lock_set_within(server, mine, why, sizeof why),
	      tname("mariadb pairs: the same edges and sessions as the server's pairing%s%s", why[0] ? ": not " : "",
		    why));
	pair_section(rev, &f, "rl_raw", true);
	CHECK(rev->ne == 17 && lock_set_within(rev, mine, why, sizeof why),
	      "mariadb pairs: rows in any order give the same pairs");
	const struct lock_edge *e = edge(mine, 352, 351);
	CHECK(e && strcmp(e->requested, "X,GAP") == 0 && strcmp(e->held, "X") == 0 && !e->soft,
	      "mariadb pairs: the insert into the gap waits for the range's X");
	CHECK(edge(mine, 349, 348) && edge(mine, 348, 347) && edge(mine, 350, 347) && edges_of_waiter(mine, 350) == 1,
	      "mariadb pairs: a chain 349 -> 348 -> 347, and 350 behind the holder only (not the waiter ahead)");
	e = edge(mine, 359, 358);
	CHECK(e && e->soft && strcmp(e->held, "X") == 0 && edges_of_waiter(mine, 359) == 1,
	      "mariadb pairs: a shared read queued behind a waiting X: one soft edge");
	CHECK(edges_of_waiter(mine, 355) == 4 && edge(mine, 355, 353) && edge(mine, 355, 354) &&
	      edge(mine, 355, 357) && edge(mine, 355, 359),
	      "mariadb pairs: a trx_id 0 lock's holders are every trx_id 0 transaction with locks");
	lock_set_analyse(mine);
	CHECK(S(mine, 349) && S(mine, 349)->depth == 2 && S(mine, 349)->root == sess(mine, 347),
	      "mariadb pairs: the chain's depth");
	lock_set_free(mine);
	lock_set_free(server);
	lock_set_free(rev);
	fx_free(&f);
}

/* The joined read's rows (MariaDB, the session list wanted): the 'P'
 * rows of @rl_raw as 'S' rows (every process list column, TIME_MS in ms),
 * and sessions in no transaction besides: the same graph as the graph's
 * own statement gives, in either row order; the 'T' and 'S' rows as the
 * session list's cells. */
static int joined_section(struct lock_set *ls, const struct fx *f, bool rev)
{
	const struct fx_sec *sec = fx_sec(f, "rl_raw");
	char ms[64][32];
	const char *rows[80][MRL__COUNT];
	int n = 0;
	for (int i = 0; sec && i < sec->nrows && n < 64; i++) {
		char *const *c = sec->rows[i].cell;
		if (sec->rows[i].n < 11)
			continue;
		if (c[0][0] != 'P') {
			for (int k = 0; k < MRL__COUNT; k++)
				rows[n][k] = k < sec->rows[i].n ? c[k] : NULL;
			n++;
			continue;
		}
		snprintf(ms[n], sizeof ms[n], "%.1f", c[MRL_C5] ? strtod(c[MRL_C5], NULL) * 1000 : 0);
		const char *srow[MRL__COUNT] = {"S", c[MRL_C1], c[MRL_C2], "localhost", "dbtop_test", c[MRL_C3], "1",
						c[MRL_C5] ? ms[n] : NULL, c[MRL_C4], c[MRL_C6], c[MRL_C7], "0"};
		memcpy(rows[n++], srow, sizeof srow);
	}
	static char idle_id[16][16];
	for (int i = 0; i < 16 && n < 80; i++) {
		snprintf(idle_id[i], sizeof idle_id[i], "%d", 9000 + i);
		const char *idle[MRL__COUNT] = {"S", idle_id[i], "app", "10.0.0.1:4000", NULL, "Sleep", "3", "3000.5", "",
						NULL, "12", "0"};
		memcpy(rows[n++], idle, sizeof idle);
	}
	struct mariadb_rl *a = mariadb_rl_new();
	for (int k = 0; k < n; k++)
		mariadb_rl_map_row(a, rows[rev ? n - 1 - k : k], MRL__COUNT);
	mariadb_rl_finish(a, ls);
	return n;
}

static void test_mariadb_joined(void)
{
	struct fx f;
	char why[64] = "";
	if (!fx_load(&f, "locks-mariadb-10.11.txt"))
		return;
	struct lock_set *own = lock_set_new(), *joined = lock_set_new(), *rev = lock_set_new();
	pair_section(own, &f, "rl_raw", false);
	CHECK(joined_section(joined, &f, false) == 54, "joined: 38 rows as read, 16 idle sessions besides");
	CHECK(joined->ne == 17 && joined->ns == 13 && lock_set_within(joined, own, why, sizeof why) &&
	      lock_set_within(own, joined, why, sizeof why),
	      tname("joined: the same 17 edges and 13 sessions as the graph's own statement%s%s (%zu, %zu)",
		    why[0] ? ": not " : "", why, joined->ne, joined->ns));
	joined_section(rev, &f, true);
	CHECK(rev->ne == 17 && lock_set_within(rev, own, why, sizeof why), "joined: rows in any order, the same graph");
	lock_set_free(own);
	lock_set_free(joined);
	lock_set_free(rev);
	fx_free(&f);

	const char *t[MRL__COUNT] = {"T", "41042", NULL, "347", "12.5", NULL, NULL, "2026-12-06 01:00:00", "2",
				     "RUNNING", NULL, NULL};
	const char *srow[MRL__COUNT] = {"S", "347", "app", "h:1", "d", "Sleep", "12", "12034.5", "", NULL, "99", "0"};
	const char *trx[5], *cl[SMY__COUNT];
	CHECK(mariadb_joined_trx(t, MRL__COUNT, trx) && strcmp(trx[0], "347") == 0 && strcmp(trx[1], "41042") == 0 &&
	      strcmp(trx[2], "RUNNING") == 0 && strcmp(trx[3], "2026-12-06 01:00:00") == 0 &&
	      strcmp(trx[4], "12.5") == 0,
	      "joined: a transaction row as the list's cells (thread, id, state, started, age)");
	CHECK(!mariadb_joined_trx(srow, MRL__COUNT, trx) && !mariadb_joined_trx(t, MRL__COUNT - 1, trx) &&
	      !mariadb_joined_session(t, MRL__COUNT, cl) && !mariadb_joined_session(srow, 11, cl),
	      "joined: rows of another kind or too short are not taken");
	CHECK(mariadb_joined_session(srow, MRL__COUNT, cl) && strcmp(cl[SMY_ID], "347") == 0 &&
	      strcmp(cl[SMY_HOST], "h:1") == 0 && strcmp(cl[SMY_COMMAND], "Sleep") == 0 &&
	      strcmp(cl[SMY_TIME_MS], "12034.5") == 0 && cl[SMY_INFO] == NULL && strcmp(cl[SMY_QUERY_ID], "99") == 0 &&
	      strcmp(cl[SMY_SELF], "0") == 0 && !cl[SMY_TRX_ID] && !cl[SMY_STMT_DONE] && !cl[SMY_PROGRAM],
	      "joined: a process list row as the list's cells");

	/* a holder's statement of 3,000 two-byte characters: cut on a
	 * character's start at LOCK_QUERY_MAX bytes at most */
	char big[6001], lid[] = "5:1:3:2", wid[] = "6:1:3:2";
	for (int i = 0; i < 3000; i++)
		memcpy(big + 2 * i, "\xc3\xa9", 2);
	big[6000] = '\0';
	const char *hl[MRL__COUNT] = {"L", lid, "5", "X", "RECORD", "`d`.`t`", "PRIMARY", "1", "3", "2", "1", NULL};
	const char *wl[MRL__COUNT] = {"L", wid, "6", "X", "RECORD", "`d`.`t`", "PRIMARY", "1", "3", "2", "1", NULL};
	const char *ht[MRL__COUNT] = {"T", "5", NULL, "50", "9", NULL, NULL, "2026-12-06 01:00:00", "2", "RUNNING"};
	const char *wt[MRL__COUNT] = {"T", "6", wid, "60", "2", "2", "UPDATE t SET v = 2", "2026-12-06 01:00:07", "2",
				      "LOCK WAIT"};
	const char *hs[MRL__COUNT] = {"S", "50", "app", "h:1", "d", "Query", "9", "9000", "executing", big, "7", "0"};
	struct mariadb_rl *a = mariadb_rl_new();
	struct lock_set *ls = lock_set_new();
	const char *const *all[] = {hl, wl, ht, wt, hs};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		mariadb_rl_map_row(a, all[i], MRL__COUNT);
	mariadb_rl_finish(a, ls);
	const struct lock_session *h = S(ls, 50);
	size_t qlen = h && h->query ? strlen(h->query) : 0;
	CHECK(ls->ne == 1 && edge(ls, 60, 50) && qlen > 0 && qlen <= LOCK_QUERY_MAX && qlen % 2 == 0 &&
	      strncmp(h->query, big, qlen) == 0,
	      tname("joined: the holder's statement cut at %d bytes on a character's start (%zu)", LOCK_QUERY_MAX, qlen));
	CHECK(h && fabs(h->state_s - 9) < 0.01, "joined: the holder's time from TIME_MS");
	lock_set_free(ls);
}

/* Junk rows are left out; a pile-up of 2,000 waiters on one row pairs
 * each with the holder once (not with the 1,999 requests queued too). */
static void test_mariadb_pairs_junk_and_pileup(void)
{
	struct mariadb_rl *a = mariadb_rl_new();
	struct lock_set *ls = lock_set_new();
	const char *junk1[] = {NULL, "x"}, *junk2[] = {"Z", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"};
	const char *hold[] = {"L", "9:5:3:2", "9", "X", "RECORD", "`d`.`t`", "PRIMARY", "5", "3", "2", "1"};
	const char *htrx[] = {"T", "9", NULL, "100", "4.5", NULL, NULL, "2026-12-06 01:00:00", "2", NULL, NULL};
	const char *hp[] = {"P", "100", "app", "Sleep", "", "4.1", NULL, "7", NULL, NULL, NULL};
	char id[32], trx[16], thr[16];
	struct lock_set *none = lock_set_new();
	mariadb_rl_map_row(a, junk1, 2);
	mariadb_rl_map_row(a, junk2, 11);
	mariadb_rl_map_row(a, NULL, 11);
	mariadb_rl_map_row(a, hold, 5);   /* too few cells */
	mariadb_rl_finish(a, none);
	CHECK(none->ne == 0 && none->ns == 0 && none->status == LOCKS_IDLE,
	      "mariadb pairs: rows of no kind, too short or NULL are left out");
	lock_set_free(none);
	a = mariadb_rl_new();
	mariadb_rl_map_row(a, hold, 11);
	mariadb_rl_map_row(a, htrx, 11);
	mariadb_rl_map_row(a, hp, 11);
	for (int i = 0; i < 2000; i++) {
		snprintf(id, sizeof id, "%d:5:3:2", 1000 + i);
		snprintf(trx, sizeof trx, "%d", 1000 + i);
		snprintf(thr, sizeof thr, "%d", 200 + i);
		const char *l[] = {"L", id, trx, "X", "RECORD", "`d`.`t`", "PRIMARY", "5", "3", "2", "1"};
		const char *t[] = {"T", trx, id, thr, "1.0", "1.0", "UPDATE t SET v = v + 1 WHERE id = 1",
				   "2026-12-06 01:00:03", "2", NULL, NULL};
		mariadb_rl_map_row(a, l, 11);
		mariadb_rl_map_row(a, t, 11);
	}
	mariadb_rl_finish(a, ls);
	CHECK(ls->ne == 2000 && ls->ns == 2001 && edge(ls, 200, 100) && edge(ls, 2199, 100) && !edge(ls, 2199, 200),
	      tname("mariadb pairs: 2,000 waiters on one row, one edge each to the holder (%zu edges)", ls->ne));
	lock_set_analyse(ls);
	CHECK(S(ls, 100) && S(ls, 100)->is_root && S(ls, 100)->blocked == 2000 &&
	      strcmp(S(ls, 100)->state, "idle in transaction") == 0,
	      "mariadb pairs: the idle holder is the root of all 2,000");
	lock_set_free(ls);
	mariadb_rl_finish(mariadb_rl_new(), NULL);   /* a failed read: freed (ASan's leak check) */
}

/* ---- NULLs, junk, escapes ----------------------------------------------------------- */

static void test_nulls_and_escapes(void)
{
	const char *cell[MYL__COUNT] = {0};
	struct lock_set *ls = lock_set_new();

	mysql_locks_map_row(ls, cell, MYL__COUNT);
	CHECK(ls->ne == 0 && ls->ns == 0, "all-NULL row ignored");
	mysql_locks_map_row(ls, NULL, MYL__COUNT);
	mysql_locks_map_row(NULL, cell, MYL__COUNT);
	cell[MYL_W_ID] = "12";
	mysql_locks_map_row(ls, cell, 5);
	CHECK(ls->ne == 0, "short row ignored");
	mysql_locks_map_row(ls, cell, MYL__COUNT);
	CHECK(ls->ne == 1 && edge(ls, 12, 0), "only a waiter id: an edge to session 0");
	CHECK(S(ls, 12) && S(ls, 12)->state[0] == '\0' && !S(ls, 12)->query && isnan(S(ls, 12)->wait_s),
	      "only a waiter id: fields unknown");
	cell[MYL_B_ID] = "x1";
	mysql_locks_map_row(ls, cell, MYL__COUNT);
	CHECK(ls->ne == 1, "junk blocker id ignored");
	cell[MYL_B_ID] = "12";
	mysql_locks_map_row(ls, cell, MYL__COUNT);
	CHECK(ls->ne == 1, "waiter == blocker ignored");

	/* a compatible metadata-lock pair is not a wait */
	cell[MYL_B_ID] = "13";
	cell[MYL_LOCK_TYPE] = "METADATA";
	cell[MYL_REQUESTED] = "SHARED_READ";
	cell[MYL_HELD] = "SHARED_WRITE";
	cell[MYL_HELD_STATUS] = "GRANTED";
	mysql_locks_map_row(ls, cell, MYL__COUNT);
	CHECK(ls->ne == 1, "mdl: compatible pair ignored");
	cell[MYL_HELD] = "SHARED_NO_READ_WRITE";
	cell[MYL_SCHEMA] = NULL;
	cell[MYL_TABLE] = "lockname";
	cell[MYL_LOCK_DATA] = "USER LEVEL LOCK";
	mysql_locks_map_row(ls, cell, MYL__COUNT);
	CHECK(ls->ne == 2 && edge(ls, 12, 13) && strcmp(edge(ls, 12, 13)->object, "lockname") == 0 &&
	      strcmp(edge(ls, 12, 13)->lock_data, "USER LEVEL LOCK") == 0, "mdl: a conflicting pair, no schema");
	lock_set_analyse(ls);
	lock_set_free(ls);

	/* escape sequences everywhere */
	const char *ev[MYL__COUNT] = {
		[MYL_W_ID] = "21", [MYL_W_USER] = "ev\x1b[31mil", [MYL_W_COMMAND] = "Query",
		[MYL_W_STATE] = "up\x1b]0;x\x07" "date", [MYL_W_TIME] = "3", [MYL_W_TRX_AGE] = "3.5",
		[MYL_W_WAIT] = "3.25", [MYL_W_QUERY] = "SELECT 1 /* \x1b[2J\x1b[H */\r\nFROM t\x9b" "1m",
		[MYL_B_ID] = "22", [MYL_B_USER] = "b\x7fob", [MYL_B_COMMAND] = "Sleep",
		[MYL_B_TRX_AGE] = "9", [MYL_B_LAST] = "UPDATE t SET a = '\x1b[5m'",
		[MYL_SCHEMA] = "s\x1b", [MYL_TABLE] = "t\n", [MYL_INDEX] = "i\x1b[0m", [MYL_LOCK_TYPE] = "RECORD",
		[MYL_REQUESTED] = "X\x1b", [MYL_HELD] = "S\x07", [MYL_LOCK_DATA] = "'\x1b[1mk'",
	};
	ls = lock_set_new();
	mysql_locks_map_row(ls, ev, MYL__COUNT);
	CHECK(ls->ne == 1 && ls->ns == 2, "escapes: mapped");
	bool ok = true;
	for (size_t i = 0; i < ls->ns; i++)
		ok = ok && clean(ls->s[i].user) && clean(ls->s[i].state) && clean(ls->s[i].query);
	for (size_t k = 0; k < ls->ne; k++)
		ok = ok && clean(ls->e[k].object) && clean(ls->e[k].lock_type) && clean(ls->e[k].requested) &&
		     clean(ls->e[k].held) && clean(ls->e[k].lock_data);
	CHECK(ok, "escapes: every session and edge string sanitised");
	CHECK(S(ls, 21) && has(S(ls, 21)->query, "SELECT 1") && !strchr(S(ls, 21)->query, '\x1b'),
	      "escapes: statement kept, ESC gone");
	CHECK(S(ls, 22) && S(ls, 22)->query_is_last && clean(S(ls, 22)->query), "escapes: last statement sanitised");

	/* a MariaDB LOCK_TABLE with an escape inside the quotes */
	const char *mt[MYL__COUNT] = {
		[MYL_W_ID] = "31", [MYL_B_ID] = "32", [MYL_TABLE] = "`d\x1b[2Jb`.`t``x`", [MYL_INDEX] = "PRIMARY",
		[MYL_LOCK_TYPE] = "RECORD", [MYL_REQUESTED] = "X", [MYL_HELD] = "X",
	};
	mysql_locks_map_row(ls, mt, MYL__COUNT);
	const struct lock_edge *e = edge(ls, 31, 32);
	CHECK(e && clean(e->object) && has(e->object, ".t`x.PRIMARY") && !has(e->object, "`d"),
	      tname("escapes: quoted LOCK_TABLE unquoted and sanitised (%s)", e ? e->object : "-"));
	lock_set_free(ls);

	/* MariaDB MDL accumulator with NULLs, junk and statements it cannot read */
	const char *w[MMD__COUNT] = {0};
	struct mariadb_mdl *m = mariadb_mdl_new(true);
	ls = lock_set_new();
	mariadb_mdl_map_row(m, ls, w, MMD__COUNT);
	w[MMD_KIND] = "W";
	mariadb_mdl_map_row(m, ls, w, MMD__COUNT);
	w[MMD_ID] = "41";
	mariadb_mdl_map_row(m, ls, w, 3);
	CHECK(ls->ns == 0, "mariadb mdl: rows without an id or short ignored");
	w[MMD_STATE] = "Waiting for table metadata lock";
	w[MMD_INFO] = "CALL refresh_all()";
	mariadb_mdl_map_row(m, ls, w, MMD__COUNT);
	const char *h[MMD__COUNT] = {[MMD_KIND] = "H", [MMD_ID] = "42", [MMD_MODE] = "MDL_SHARED_READ"};
	mariadb_mdl_map_row(m, ls, h, MMD__COUNT);  /* no table: ignored */
	h[MMD_TABLE] = "t";
	mariadb_mdl_map_row(m, ls, h, MMD__COUNT);  /* NULL schema */
	mariadb_mdl_finish(m, ls);
	CHECK(ls->ne == 0 && ls->ns == 1, "mariadb mdl: a statement naming no table pairs with nothing");
	CHECK(has(ls->note, "1 session waits for a lock whose holder was not found"),
	      tname("mariadb mdl: unpaired note '%s'", ls->note));
	lock_set_free(ls);

	/* unknown requested lock (a stored routine on a named table) conflicts */
	m = mariadb_mdl_new(true);
	ls = lock_set_new();
	const char *w2[MMD__COUNT] = {
		[MMD_KIND] = "W", [MMD_ID] = "51", [MMD_COMMAND] = "Query", [MMD_TIME] = "4",
		[MMD_STATE] = "Waiting for table metadata lock", [MMD_INFO] = "HANDLER t OPEN; SELECT 1 FROM t",
	};
	const char *h2[MMD__COUNT] = {
		[MMD_KIND] = "H", [MMD_ID] = "52", [MMD_USER] = "u", [MMD_COMMAND] = "Sleep",
		[MMD_MODE] = "MDL_SHARED_READ", [MMD_SCHEMA] = "app", [MMD_TABLE] = "t",
	};
	mariadb_mdl_map_row(m, ls, w2, MMD__COUNT);
	mariadb_mdl_map_row(m, ls, h2, MMD__COUNT);
	mariadb_mdl_map_row(m, ls, h2, MMD__COUNT);  /* a second ticket: no second edge */
	mariadb_mdl_finish(m, ls);
	e = edge(ls, 51, 52);
	CHECK(ls->ne == 1 && e && strcmp(e->requested, "unknown") == 0 && strcmp(e->object, "app.t") == 0,
	      "mariadb mdl: unknown request, unqualified table without a database");
	CHECK(S(ls, 52) && strcmp(S(ls, 52)->state, "Sleep") == 0 && strcmp(S(ls, 52)->user, "u") == 0,
	      "mariadb mdl: holder session filled when it blocks");
	lock_set_free(ls);
	mariadb_mdl_finish(NULL, NULL);
}

/* ---- row locks read with the grouped query --------------------------------------- */

/* A reader queued behind a waiting writer (its only blocker): a soft edge,
 * the writer's wait on the granted lock a hard one. */
static void check_queued(struct lock_set *ls, const char *who, long long holder, long long writer,
			 long long reader, const char *held_s, const char *req_x)
{
	const struct lock_edge *hard = edge(ls, writer, holder), *soft = edge(ls, reader, writer);
	CHECK(ls->ne == 2 && hard && soft, tname("%s queued: 2 edges, %lld -> %lld and %lld -> %lld", who, writer,
					      holder, reader, writer));
	if (!hard || !soft)
		return;
	CHECK(!hard->soft && strcmp(hard->held, held_s) == 0 && strcmp(hard->requested, req_x) == 0,
	      tname("%s queued: the writer waits for the granted %s (hard)", who, held_s));
	CHECK(soft->soft && strcmp(soft->held, req_x) == 0 && strcmp(soft->requested, held_s) == 0,
	      tname("%s queued: the reader queues behind the writer's waiting %s (soft)", who, req_x));
	CHECK(!edge(ls, reader, holder), tname("%s queued: no edge from the reader to the holder", who));
	lock_set_analyse(ls);
	CHECK(ls->nroots == 1 && S(ls, holder) && S(ls, holder)->is_root && S(ls, holder)->blocked == 2 &&
	      S(ls, reader)->depth == 2 && S(ls, reader)->root == sess(ls, holder),
	      tname("%s queued: one root blocking 2, the reader at depth 2", who));
}

static void test_grouped_rows(void)
{
	struct fx f;
	unsigned n = 0;
	struct lock_set *ls;
	if (fx_load(&f, "locks-mysql-8.0.36.txt")) {
		ls = lock_set_new();
		CHECK(map_section(ls, &f, "queued") == 2, "mysql queued: 2 rows");
		check_queued(ls, "mysql", 8101, 8102, 8103, "S,REC_NOT_GAP", "X,REC_NOT_GAP");
		lock_set_free(ls);
		fx_free(&f);
	}
	if (!fx_load(&f, "locks-mariadb-10.11.txt"))
		return;
	ls = lock_set_new();
	CHECK(map_section(ls, &f, "queued") == 2, "mariadb queued: 2 rows");
	check_queued(ls, "mariadb", 1729, 1730, 1732, "S", "X");
	CHECK(S(ls, 1729) && strcmp(S(ls, 1729)->state, "idle in transaction") == 0,
	      "mariadb queued: the read-only holder (trx_id 0) found, idle in its transaction");
	lock_set_free(ls);

	/* 50 sessions queued for one row: INNODB_LOCK_WAITS has n(n+1)/2 rows,
	 * the query one per waiter */
	CHECK(mysql_locks_count(cell0(&f, "status_pileup", 1), &n) && n == 50 &&
	      mysql_locks_count(cell0(&f, "lock_waits_pileup", 0), &n) && n == 50 * 51 / 2,
	      "mariadb pileup: 50 waiting, 1275 INNODB_LOCK_WAITS rows");
	ls = lock_set_new();
	CHECK(map_section(ls, &f, "pileup") == 50 && ls->ne == 50 && ls->ns == 51,
	      tname("mariadb pileup: 50 rows, 50 edges, 51 sessions (got %zu, %zu)", ls->ne, ls->ns));
	bool one_each = true;
	for (size_t i = 0; i < ls->ns; i++)
		one_each = one_each && edges_of_waiter(ls, ls->s[i].id) == (ls->s[i].id == 1741 ? 0 : 1);
	CHECK(one_each, "mariadb pileup: each waiter exactly one edge, the root none");
	bool to_root = true;
	for (size_t k = 0; k < ls->ne; k++)
		to_root = to_root && ls->s[ls->e[k].blocker].id == 1741 && !ls->e[k].soft &&
			  strcmp(ls->e[k].held, "X") == 0 && strcmp(ls->e[k].object, "dbtop_test.pile.PRIMARY") == 0;
	CHECK(to_root, "mariadb pileup: every edge to the root's granted X on dbtop_test.pile.PRIMARY, hard");
	lock_set_analyse(ls);
	const struct lock_session *r = S(ls, 1741);
	CHECK(ls->nroots == 1 && r && r->is_root && r->blocked == 50 && ls->ncycles == 0 &&
	      strcmp(r->state, "idle in transaction") == 0,
	      tname("mariadb pileup: one root, idle in transaction, blocking 50 (roots %d)", ls->nroots));
	lock_set_free(ls);
	fx_free(&f);
}

/* ---- session identity (x / c act only on the session that was seen) ---------- */

static void test_ident(void)
{
	struct lock_set *ls = lock_set_new();
	const char *row[MYL__COUNT] = {
		[MYL_W_ID] = "51", [MYL_W_COMMAND] = "Query", [MYL_B_ID] = "52", [MYL_B_COMMAND] = "Sleep",
		[MYL_LOCK_TYPE] = "RECORD", [MYL_REQUESTED] = "X", [MYL_HELD] = "X", [MYL_HELD_STATUS] = "GRANTED",
		[MYL_W_TRX_ID] = "31", [MYL_W_TRX_STARTED] = "2026-12-01 14:12:50", [MYL_W_QUERY_ID] = "77",
		[MYL_B_TRX_ID] = "25", [MYL_B_TRX_STARTED] = "2026-12-01 14:12:48", [MYL_B_QUERY_ID] = "36",
	};
	mysql_locks_map_row(ls, row, MYL__COUNT);
	const struct lock_session *w = S(ls, 51), *b = S(ls, 52);
	CHECK(w && w->ident.known && strcmp(w->ident.trx_id, "31") == 0 &&
	      strcmp(w->ident.trx_started, "2026-12-01 14:12:50") == 0 && w->ident.query_id == 77 && !w->ident.start_us,
	      "ident: the waiter's trx_id, trx_started, QUERY_ID");
	CHECK(b && b->ident.known && strcmp(b->ident.trx_id, "25") == 0 && b->ident.query_id == 36,
	      "ident: the blocker's");
	/* a row recorded before the identity columns still maps, identity unknown */
	row[MYL_W_ID] = "53";
	row[MYL_B_ID] = "54";
	mysql_locks_map_row(ls, row, MYL_IDENT_FIRST);
	CHECK(S(ls, 53) && !S(ls, 53)->ident.known && S(ls, 54) && !S(ls, 54)->ident.known,
	      "ident: a row without the columns maps, identity unknown");

	/* the condition checked on the server (MariaDB: in the KILL's compound statement) */
	char c[200];
	struct session_ident saw = b->ident;
	CHECK(mysql_ident_cond(&saw, false, true, c, sizeof c) &&
	      strcmp(c, "(p.QUERY_ID = 36 OR x.trx_id = '25' AND x.trx_started = '2026-12-01 14:12:48')") == 0,
	      tname("cond: kill in a transaction: no statement since, or the same transaction (%s)", c));
	CHECK(mysql_ident_cond(&saw, false, false, c, sizeof c) &&
	      strcmp(c, "x.trx_id = '25' AND x.trx_started = '2026-12-01 14:12:48'") == 0,
	      tname("cond: MySQL kill in a transaction: the transaction (%s)", c));
	CHECK(mysql_ident_cond(&saw, true, true, c, sizeof c) &&
	      strcmp(c, "x.trx_id = '25' AND x.trx_started = '2026-12-01 14:12:48' AND p.QUERY_ID = 36") == 0,
	      tname("cond: cancel: the statement too (%s)", c));
	CHECK(mysql_ident_cond(&saw, true, false, c, sizeof c) && !strstr(c, "QUERY_ID"),
	      tname("cond: MySQL has no QUERY_ID (%s)", c));
	struct session_ident ro = saw;
	str_copy(ro.trx_id, sizeof ro.trx_id, "0");
	CHECK(mysql_ident_cond(&ro, false, true, c, sizeof c) && strstr(c, "x.trx_id = '0'") && strstr(c, "p.QUERY_ID = 36"),
	      tname("cond: MariaDB read-only trx_id 0: the statement too (%s)", c));
	struct session_ident none = saw;
	none.trx_id[0] = none.trx_started[0] = '\0';
	CHECK(mysql_ident_cond(&none, false, true, c, sizeof c) &&
	      strcmp(c, "x.trx_id IS NULL AND p.QUERY_ID = 36") == 0,
	      tname("cond: no transaction: still none, same statement (%s)", c));
	struct session_ident bad = saw;
	str_copy(bad.trx_started, sizeof bad.trx_started, "x' OR '1'='1");
	CHECK(!mysql_ident_cond(&bad, false, true, c, sizeof c), "cond: not a plain time: refused");
	struct session_ident unknown = {0};
	CHECK(!mysql_ident_cond(&unknown, false, true, c, sizeof c), "cond: unknown identity: refused");
	char q[400];
	mysql_ident_sql(FLAVOUR_MARIADB, 52, q, sizeof q);
	CHECK(strstr(q, "p.QUERY_ID FROM information_schema.PROCESSLIST p") && strstr(q, "WHERE p.ID = 52"),
	      tname("identity read: %s", q));

	/* the check, as the message of a refusal says it */
	char why[200];
	struct session_ident now = saw;
	CHECK(session_ident_same(&saw, &now, true, false, why, sizeof why), "same transaction: kill goes ahead");
	now.query_id = 99;
	CHECK(session_ident_same(&saw, &now, true, false, why, sizeof why),
	      "same transaction, another statement: kill goes ahead");
	CHECK(!session_ident_same(&saw, &now, true, true, why, sizeof why) && strstr(why, "query id 99; you saw 36"),
	      tname("another statement: cancel refused (%s)", why));
	now = saw;
	str_copy(now.trx_id, sizeof now.trx_id, "40");
	str_copy(now.trx_started, sizeof now.trx_started, "2026-12-01 14:13:05");
	CHECK(session_ident_same(&saw, &now, true, false, why, sizeof why),
	      "no statement since (same QUERY_ID): the same transaction, whatever the cached INNODB_TRX says");
	now.query_id = 40;
	CHECK(!session_ident_same(&saw, &now, true, false, why, sizeof why) &&
	      strcmp(why, "it began another transaction (40 at 2026-12-01 14:13:05; you saw 25 begun 2026-12-01 "
			  "14:12:48)") == 0,
	      tname("a new transaction: refused (%s)", why));
	now.trx_id[0] = '\0';
	now.query_id = 41;
	CHECK(!session_ident_same(&saw, &now, true, false, why, sizeof why) && strstr(why, "has ended"),
	      tname("transaction over: refused (%s)", why));
	CHECK(!session_ident_same(&none, &saw, true, false, why, sizeof why) && strstr(why, "began a transaction"),
	      tname("seen idle, now in a transaction: refused (%s)", why));
	now = none;
	now.query_id = 37;
	CHECK(!session_ident_same(&none, &now, true, false, why, sizeof why) && strstr(why, "another statement"),
	      tname("seen idle, ran a statement since: refused (%s)", why));
	char t[200];
	session_ident_text(&saw, false, t, sizeof t);
	CHECK(strcmp(t, "transaction 25 begun 2026-12-01 14:12:48 (or no statement since query id 36)") == 0,
	      tname("ident text: %s", t));
	session_ident_text(&saw, true, t, sizeof t);
	CHECK(strcmp(t, "transaction 25 begun 2026-12-01 14:12:48, statement query id 36") == 0, tname("ident text: %s", t));
	struct session_ident my = saw;
	my.query_id = 0;
	session_ident_text(&my, false, t, sizeof t);
	CHECK(strcmp(t, "transaction 25 begun 2026-12-01 14:12:48") == 0, tname("ident text (MySQL): %s", t));
	session_ident_text(&none, true, t, sizeof t);
	CHECK(strcmp(t, "no transaction, statement query id 36") == 0, tname("ident text: %s", t));
	lock_set_free(ls);

	/* MariaDB metadata locks: waiters and holders carry it too */
	struct mariadb_mdl *m = mariadb_mdl_new(true);
	ls = lock_set_new();
	const char *mw[MMD__COUNT] = {
		[MMD_KIND] = "W", [MMD_ID] = "61", [MMD_COMMAND] = "Query",
		[MMD_STATE] = "Waiting for table metadata lock", [MMD_INFO] = "ALTER TABLE t ADD c INT", [MMD_DB] = "d",
		[MMD_QUERY_ID] = "120",
	};
	const char *mh[MMD__COUNT] = {
		[MMD_KIND] = "H", [MMD_ID] = "62", [MMD_COMMAND] = "Sleep", [MMD_MODE] = "MDL_SHARED_READ",
		[MMD_SCHEMA] = "d", [MMD_TABLE] = "t", [MMD_TRX_ID] = "0", [MMD_TRX_STARTED] = "2026-12-01 14:10:00",
		[MMD_QUERY_ID] = "118",
	};
	mariadb_mdl_map_row(m, ls, mw, MMD__COUNT);
	mariadb_mdl_map_row(m, ls, mh, MMD__COUNT);
	mariadb_mdl_finish(m, ls);
	CHECK(S(ls, 61) && S(ls, 61)->ident.known && !S(ls, 61)->ident.trx_id[0] && S(ls, 61)->ident.query_id == 120,
	      "mdl ident: the waiter");
	CHECK(S(ls, 62) && S(ls, 62)->ident.known && strcmp(S(ls, 62)->ident.trx_id, "0") == 0 &&
	      S(ls, 62)->ident.query_id == 118, "mdl ident: the holder");
	lock_set_free(ls);
}

int main(void)
{
	test_sql();
	test_mdl_matrix();
	test_statements();
	test_mysql_rows();
	test_mariadb_rows();
	test_mariadb_client_pairs();
	test_mariadb_joined();
	test_mariadb_pairs_junk_and_pileup();
	test_grouped_rows();
	test_nulls_and_escapes();
	test_ident();
	return TAP_DONE();
}
