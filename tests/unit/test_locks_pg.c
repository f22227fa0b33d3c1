/* test_locks_pg.c - PostgreSQL lock waits: the query builder and the row
 * mapper of sources/pg_locks_map.c fed with rows captured from PostgreSQL
 * 13, 15 and 18 (tests/fixtures/locks-pg-*.txt) and a hand-written cycle,
 * then analysed by model/locks.c. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../model/locks.h"
#include "../../sources/pg_locks_map.h"
#include "../../util/util.h"
#include "tap.h"

#include "fixture.h"

/* ---- helpers ------------------------------------------------------------ */

/* Map every row of section sec (forwards, or backwards) into a new set. */
static struct lock_set *map_sec(const struct fx *f, const char *sec, bool backwards)
{
	struct lock_set *ls = lock_set_new();
	const struct fx_sec *s = fx_sec(f, sec);
	if (!s)
		return ls;
	for (int i = 0; i < s->nrows; i++) {
		const struct fx_row *r = &s->rows[backwards ? s->nrows - 1 - i : i];
		pg_locks_map_row(ls, (const char *const *)r->cell, r->n);
	}
	return ls;
}

/* The edge with these lock type / requested / held modes (NULL: any). */
static const struct lock_edge *edge_find(const struct lock_set *ls, const char *type, const char *req,
					 const char *held, int from)
{
	for (size_t k = (size_t)from; k < ls->ne; k++) {
		const struct lock_edge *e = &ls->e[k];
		if ((!type || strcmp(e->lock_type, type) == 0) && (!req || strcmp(e->requested, req) == 0) &&
		    (!held || strcmp(e->held, held) == 0))
			return e;
	}
	return NULL;
}

static int session_idx(const struct lock_set *ls, long long id)
{
	for (size_t i = 0; i < ls->ns; i++)
		if (ls->s[i].id == id)
			return (int)i;
	return -1;
}

/* No byte a terminal would act on. */
static bool clean(const char *s)
{
	if (!s)
		return true;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (*p == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
			return false;
	return true;
}

/* Distinct waiter pids of a section. */
static unsigned distinct_waiters(const struct fx_sec *s)
{
	unsigned n = 0;
	for (int i = 0; i < s->nrows; i++) {
		bool seen = false;
		for (int j = 0; j < i; j++)
			if (s->rows[j].cell[PGL_WAITER] && s->rows[i].cell[PGL_WAITER] &&
			    strcmp(s->rows[j].cell[PGL_WAITER], s->rows[i].cell[PGL_WAITER]) == 0)
				seen = true;
		n += !seen;
	}
	return n;
}

/* ---- the SQL ------------------------------------------------------------- */

static void test_sql(void)
{
	const char *q13 = pg_locks_sql(130023), *q14 = pg_locks_sql(140000), *q18 = pg_locks_sql(180004);
	const char *q139 = pg_locks_sql(139999);
	char buf[16384];

	CHECK(q13 && q14 && q18, "sql: a query for 13, 14 and 18");
	CHECK(strstr(q13, "waitstart") && !strstr(q13, "k.waitstart") && !strstr(q13, "e.waitstart"),
	      "sql 13: pg_locks.waitstart not read (the column appears in PostgreSQL 14)");
	CHECK(!strstr(q139, "k.waitstart"), "sql 13.99: no waitstart");
	CHECK(strstr(q14, "k.waitstart") && strstr(q14, "c.ts - e.waitstart"), "sql 14: wait from waitstart");
	CHECK(strstr(q18, "k.waitstart") != NULL, "sql 18: wait from waitstart");
	CHECK(strstr(q13, "c.ts - wa.state_change) END") != NULL, "sql 13: wait approximated from state_change");
	/* hard edges: one join of the waiting locks with the granted ones */
	const char *h = strstr(q14, " h AS MATERIALIZED (");
	const char *nw = strstr(q14, " nw AS MATERIALIZED (");
	CHECK(h && nw && h < nw && strstr(h, "FROM l w JOIN l bl ON bl.tk = w.tk") &&
	      strstr(h, "AND bl.granted AND bl.gpid <> w.gpid") && strstr(h, "[w.m] & (1 << (bl.m - 1))) <> 0") &&
	      strstr(h, "WHERE NOT w.granted AND w.pid IS NOT NULL)") && strstr(h, "pg_blocking_pids") > nw,
	      "sql: hard edges from pg_locks alone: waiting x granted of another lock group, same target, "
	      "conflicting modes");
	/* pg_blocking_pids only for the waiters without a hard edge */
	const char *bp = strstr(q14, "pg_blocking_pids(");
	CHECK(bp && !strstr(bp + 1, "pg_blocking_pids(") && strstr(q14, "pg_blocking_pids(nw.pid)") &&
	      strstr(nw, "NOT l.granted AND l.pid IS NOT NULL AND NOT EXISTS (SELECT 1 FROM h WHERE h.pid = l.pid))"),
	      "sql: pg_blocking_pids() called once, only for waiting locks with no hard edge");
	static const char *const target[] = {"locktype", "database", "relation", "page", "tuple",
					     "virtualxid", "transactionid", "classid", "objid", "objsubid"};
	bool all = true;
	for (size_t i = 1; i < sizeof target / sizeof *target; i++) {
		char want[64], want_s[64];
		str_printf(want, sizeof want, "bl.%s IS NOT DISTINCT FROM w.%s", target[i], target[i]);
		str_printf(want_s, sizeof want_s, "bl.%s IS NOT DISTINCT FROM s.%s", target[i], target[i]);
		all = all && strstr(q14, want) && strstr(q13, want) && strstr(q14, want_s) && strstr(q13, want_s);
	}
	CHECK(all && strstr(q14, "bl.locktype = w.locktype") && strstr(q14, "bl.locktype = s.locktype"),
	      "sql: same lock target, NULL-safe, for hard and soft edges");
	CHECK(strstr(q14, "ORDER BY e.bd, e.rn > 1, e.soft, 1, 2, 7 LIMIT 5000 + 1") != NULL,
	      "sql: edges nearest the roots first, one row past the 5000 limit");
	CHECK(strstr(q14, "WITH RECURSIVE ") == q14 && strstr(q14, "WHERE d.n < 8)"),
	      "sql: blocker depth breadth-first, bounded");
	CHECK(strstr(q14, "::regclass") && strstr(q14, "= c.datid THEN"), "sql: regclass only for this database");
	CHECK(strchr(q14, ';') == NULL && strchr(q13, ';') == NULL, "sql: one statement");
	CHECK(strstr(PG_LOCKS_GATE_SQL, "pg_stat_get_backend_wait_event_type(b) = 'Lock'") &&
		      !strstr(PG_LOCKS_GATE_SQL, "pg_stat_activity") && PG_LOCKS_GATE_SQL[0] == '(',
	      "gate: a scalar subquery on each backend's wait event type 'Lock', not the whole pg_stat_activity");

	char *t = pg_locks_sql_timed(buf, sizeof buf, 150018, 250, false);
	CHECK(t == buf && strncmp(buf, "SET LOCAL statement_timeout = 250; WITH ", 40) == 0,
	      "timed sql: SET LOCAL statement_timeout first");
	CHECK(t && strcmp(buf + strlen("SET LOCAL statement_timeout = 250; "), pg_locks_sql(150018)) == 0,
	      "timed sql: then the query for the version");
	CHECK(pg_locks_sql_timed(buf, sizeof buf, 130000, 0, false) && strncmp(buf, "SET LOCAL statement_timeout = 1;", 32) == 0,
	      "timed sql: time limit at least 1 ms");
	CHECK(pg_locks_sql_timed(buf, 100, 150000, 250, false) == NULL, "timed sql: too small a buffer gives NULL");
	CHECK(pg_locks_sql_timed(buf, 8192, 130000, 2147483647L, false) != NULL, "timed sql: 8 KiB is enough");

	CHECK(pg_locks_waiting("3") == 3 && pg_locks_waiting("0") == 0 && pg_locks_waiting(NULL) == 0 &&
	      pg_locks_waiting("x") == 0 && pg_locks_waiting("-1") == 0 && pg_locks_waiting("") == 0,
	      "gate cell parsed, garbage is 0");
}

/* ---- recorded fixtures --------------------------------------------------- */

static void test_columns(const struct fx *f)
{
	bool ok = true;
	int rows = 0;
	for (int i = 0; i < f->nsec; i++) {
		if (strncmp(f->sec[i].name, "gate.", 5) == 0)
			continue;
		for (int j = 0; j < f->sec[i].nrows; j++, rows++)
			if (f->sec[i].rows[j].n != PGL__COUNT && f->sec[i].rows[j].n != PGL_W_START_US)
				ok = false;
	}
	/* (the fixtures were captured before the identity columns) */
	CHECK(ok && rows > 0, tname("%s: every row has the PGL__COUNT=%d columns of the query, or the %d before the "
				    "identity columns", f->file, PGL__COUNT, PGL_W_START_US));
	for (int i = 0; i < f->nsec; i++) {
		const struct fx_sec *g, *s = &f->sec[i];
		if (strncmp(s->name, "gate.", 5) == 0 || !(g = fx_sec(f, tname("gate.%s", s->name))))
			continue;
		unsigned want = distinct_waiters(s);
		CHECK(g->nrows == 1 && pg_locks_waiting(g->rows[0].cell[0]) == want,
		      tname("%s: @gate.%s counts the %u waiting sessions", f->file, s->name, want));
	}
}

/* UPDATE of a row another session changed in a transaction left open. */
static void test_rowlock(const struct fx *f)
{
	struct lock_set *ls = map_sec(f, "rowlock", false);
	const struct lock_edge *e;
	CHECK(ls->ne == 1 && ls->ns == 2, tname("%s rowlock: one edge, two sessions", f->file));
	e = edge_find(ls, "transactionid", NULL, NULL, 0);
	if (!e) {
		CHECK(false, tname("%s rowlock: a transactionid edge", f->file));
		lock_set_free(ls);
		return;
	}
	CHECK_STR(e->requested, "ShareLock", tname("%s rowlock: waiter requests ShareLock", f->file));
	CHECK_STR(e->held, "ExclusiveLock", tname("%s rowlock: holder holds ExclusiveLock on its xid", f->file));
	CHECK(!e->soft, tname("%s rowlock: a hard block", f->file));
	CHECK(strncmp(e->object, "transaction ", 12) == 0 && strstr(e->object, " on lk_row"),
	      tname("%s rowlock: object '%s' names the transaction and the table", f->file, e->object));
	CHECK_STR(e->lock_data, "ctid (0,1)", tname("%s rowlock: the row", f->file));

	const struct lock_session *w = &ls->s[e->waiter], *b = &ls->s[e->blocker];
	CHECK_STR(w->state, "active", tname("%s rowlock: waiter active", f->file));
	CHECK(!w->query_is_last && w->query &&
	      strcmp(w->query, "UPDATE lk_row    SET v = v + 10  WHERE id = 1;") == 0,
	      tname("%s rowlock: waiter's current statement, newlines as spaces", f->file));
	CHECK(isfinite(w->wait_s) && w->wait_s > 0.5 && w->wait_s < 10,
	      tname("%s rowlock: waiter waits %.3fs", f->file, w->wait_s));
	CHECK(isfinite(w->trx_age_s) && w->trx_age_s >= w->wait_s - 0.01,
	      tname("%s rowlock: its transaction is at least as old as the wait", f->file));
	CHECK_STR(b->state, "idle in transaction", tname("%s rowlock: holder idle in transaction", f->file));
	CHECK(b->query_is_last && b->query && strcmp(b->query, "UPDATE lk_row SET v = v + 1 WHERE id = 1;") == 0,
	      tname("%s rowlock: holder's last statement", f->file));
	CHECK(isnan(b->wait_s), tname("%s rowlock: holder does not wait", f->file));
	CHECK(isfinite(b->trx_age_s) && b->trx_age_s > w->trx_age_s,
	      tname("%s rowlock: holder's transaction is the older", f->file));
	CHECK_STR(b->user, "postgres", tname("%s rowlock: user", f->file));

	lock_set_analyse(ls);
	CHECK(ls->nroots == 1 && b->is_root && !w->is_root && b->blocked == 1 && ls->ncycles == 0,
	      tname("%s rowlock: the idle-in-transaction holder is the root", f->file));
	CHECK(w->depth == 1 && w->root == e->blocker && e->depth == 1 && !e->cycle,
	      tname("%s rowlock: waiter at depth 1", f->file));
	char st[64];
	lock_state_text(b, st, sizeof st);
	CHECK(strncmp(st, "idle in transaction ", 20) == 0, tname("%s rowlock: state text '%s'", f->file, st));
	lock_set_free(ls);
}

/* LOCK TABLE behind a session holding two modes, readers queued behind. */
static void test_locktable(const struct fx *f, bool backwards)
{
	const char *how = backwards ? " (rows backwards)" : "";
	struct lock_set *ls = map_sec(f, "locktable", backwards);
	const struct lock_edge *h1 = edge_find(ls, "relation", "AccessExclusiveLock", "AccessShareLock", 0);
	const struct lock_edge *h2 = edge_find(ls, "relation", "AccessExclusiveLock", "RowExclusiveLock", 0);
	const struct lock_edge *s1 = edge_find(ls, "relation", "AccessShareLock", "AccessExclusiveLock", 0);
	const struct lock_edge *s2 = s1 ? edge_find(ls, "relation", "AccessShareLock", "AccessExclusiveLock",
						    (int)(s1 - ls->e) + 1) : NULL;
	CHECK(ls->ne == 4 && ls->ns == 4, tname("%s locktable%s: 4 edges, 4 sessions", f->file, how));
	if (!h1 || !h2 || !s1 || !s2) {
		CHECK(false, tname("%s locktable%s: the two hard and two soft edges", f->file, how));
		lock_set_free(ls);
		return;
	}
	CHECK(!h1->soft && !h2->soft && h1->waiter == h2->waiter && h1->blocker == h2->blocker,
	      tname("%s locktable%s: LOCK TABLE hard-blocked by both modes of one holder", f->file, how));
	CHECK(s1->soft && s2->soft && s1->blocker == h1->waiter && s2->blocker == h1->waiter &&
	      s1->waiter != s2->waiter,
	      tname("%s locktable%s: two readers soft-blocked by the queued LOCK TABLE", f->file, how));
	CHECK_STR(h1->object, "lk_tab", tname("%s locktable%s: object", f->file, how));
	CHECK_STR(h1->lock_data, "", tname("%s locktable%s: no row", f->file, how));
	const struct lock_session *a = &ls->s[h1->blocker], *b = &ls->s[h1->waiter];
	CHECK(isfinite(b->wait_s) && isfinite(ls->s[s1->waiter].wait_s),
	      tname("%s locktable%s: waits known also when first seen as a blocker", f->file, how));
	CHECK(b->query && strstr(b->query, "LOCK TABLE lk_tab") && !b->query_is_last,
	      tname("%s locktable%s: the LOCK TABLE statement", f->file, how));

	lock_set_analyse(ls);
	CHECK(ls->nroots == 1 && a->is_root && a->blocked == 3,
	      tname("%s locktable%s: holder is the only root, blocking 3", f->file, how));
	CHECK(b->depth == 1 && ls->s[s1->waiter].depth == 2 && ls->s[s2->waiter].depth == 2 &&
	      s1->depth == 2 && h1->depth == 1,
	      tname("%s locktable%s: depths 1 (LOCK TABLE) and 2 (readers)", f->file, how));
	struct lock_row *rows;
	size_t n = lock_tree_rows(ls, &rows);
	CHECK(n == 5 && rows[0].session == h1->blocker && rows[0].edge < 0 && rows[1].session == h1->waiter &&
	      !rows[1].repeat && rows[2].depth == 2 && rows[3].depth == 2 && rows[2].session != rows[3].session &&
	      rows[4].session == h1->waiter && rows[4].repeat && rows[4].depth == 1,
	      tname("%s locktable%s: tree rows (holder, LOCK TABLE, 2 readers, LOCK TABLE again)", f->file, how));
	free(rows);
	lock_set_free(ls);
}

/* holder <- UPDATE (transactionid) <- UPDATE (tuple). */
static void test_chain(const struct fx *f)
{
	struct lock_set *ls = map_sec(f, "chain", false);
	const struct lock_edge *x = edge_find(ls, "transactionid", "ShareLock", "ExclusiveLock", 0);
	const struct lock_edge *t = edge_find(ls, "tuple", "ExclusiveLock", "ExclusiveLock", 0);
	CHECK(ls->ne == 2 && ls->ns == 3 && x && t, tname("%s chain: transactionid and tuple edges", f->file));
	if (!x || !t) {
		lock_set_free(ls);
		return;
	}
	CHECK(t->blocker == x->waiter, tname("%s chain: the tuple lock is held by the first waiter", f->file));
	CHECK_STR(t->object, "lk_chain", tname("%s chain: tuple object", f->file));
	CHECK_STR(t->lock_data, "ctid (0,1)", tname("%s chain: tuple row", f->file));
	lock_set_analyse(ls);
	const struct lock_session *r = &ls->s[x->blocker];
	CHECK(r->is_root && r->depth == 0 && r->blocked == 2 && ls->nroots == 1,
	      tname("%s chain: root blocks 2", f->file));
	CHECK(ls->s[x->waiter].depth == 1 && ls->s[t->waiter].depth == 2 && ls->s[t->waiter].root == x->blocker,
	      tname("%s chain: depths 1 and 2 under the root", f->file));
	CHECK(x->depth == 1 && t->depth == 2 && t->root == x->blocker, tname("%s chain: edge depths", f->file));
	lock_set_free(ls);
}

/* Session-level advisory lock of an idle session (no transaction). */
static void test_advisory(const struct fx *f)
{
	struct lock_set *ls = map_sec(f, "advisory", false);
	const struct lock_edge *e = edge_find(ls, "advisory", "ExclusiveLock", "ExclusiveLock", 0);
	CHECK(ls->ne == 1 && e, tname("%s advisory: one edge", f->file));
	if (!e) {
		lock_set_free(ls);
		return;
	}
	CHECK_STR(e->object, "advisory 42", tname("%s advisory: the key", f->file));
	const struct lock_session *b = &ls->s[e->blocker];
	CHECK_STR(b->state, "idle", tname("%s advisory: holder idle", f->file));
	CHECK(isnan(b->trx_age_s) && isfinite(b->state_s), tname("%s advisory: no transaction, idle time known", f->file));
	CHECK(b->query_is_last && b->query && strcmp(b->query, "SELECT pg_advisory_lock(42);") == 0,
	      tname("%s advisory: last statement", f->file));
	lock_set_free(ls);
}

/* One root, 50 sessions running the same UPDATE of its row: one hard edge
 * per waiter (pg_blocking_pids would list 1225 pairs), one root. */
static void test_pileup(const struct fx *f)
{
	const struct fx_sec *sec = fx_sec(f, "pileup");
	struct lock_set *ls = map_sec(f, "pileup", false);
	CHECK(sec && sec->nrows == 50 && ls->ne == 50 && ls->ns == 51,
	      tname("%s pileup: 50 rows, 50 edges, 51 sessions (got %zu, %zu)", f->file, ls->ne, ls->ns));
	if (!sec || sec->nrows < 2 || ls->ne != 50) {
		lock_set_free(ls);
		return;
	}
	/* the first row is the edge to the root (rows nearest the roots come
	 * first): the first waiter waits for the root's transaction */
	const struct lock_edge *x = &ls->e[0];
	const struct lock_session *root = &ls->s[x->blocker], *first = &ls->s[x->waiter];
	CHECK(strcmp(x->lock_type, "transactionid") == 0 && strcmp(x->requested, "ShareLock") == 0 &&
	      strcmp(x->held, "ExclusiveLock") == 0 && !x->soft,
	      tname("%s pileup: first row: the first waiter's ShareLock on the root's transaction", f->file));
	CHECK(strcmp(root->state, "idle in transaction") == 0 && isnan(root->wait_s),
	      tname("%s pileup: the root is idle in its transaction", f->file));
	int per_waiter[64] = {0};
	bool one_each = true, tuple_rest = true;
	for (size_t k = 0; k < ls->ne; k++) {
		const struct lock_edge *e = &ls->e[k];
		if (e->waiter < 64)
			per_waiter[e->waiter]++;
		if (k > 0)
			tuple_rest = tuple_rest && strcmp(e->lock_type, "tuple") == 0 && e->blocker == x->waiter &&
				     strcmp(e->requested, "ExclusiveLock") == 0 &&
				     strcmp(e->held, "ExclusiveLock") == 0 && !e->soft &&
				     strcmp(e->lock_data, "ctid (0,1)") == 0;
	}
	for (size_t i = 0; i < ls->ns && i < 64; i++)
		one_each = one_each && per_waiter[i] == ((int)i == x->blocker ? 0 : 1);
	CHECK(one_each, tname("%s pileup: each waiter exactly one edge, the root none", f->file));
	CHECK(tuple_rest, tname("%s pileup: the 49 others wait, hard, for the tuple lock the first waiter holds",
			     f->file));
	lock_set_analyse(ls);
	CHECK(ls->nroots == 1 && root->is_root && root->blocked == 50 && ls->ncycles == 0,
	      tname("%s pileup: one root, blocking all 50 (roots %d, blocked %d)", f->file, ls->nroots, root->blocked));
	bool depths = first->depth == 1;
	for (size_t i = 0; i < ls->ns; i++)
		if ((int)i != x->blocker && (int)i != x->waiter)
			depths = depths && ls->s[i].depth == 2 && ls->s[i].root == x->blocker;
	CHECK(depths, tname("%s pileup: the first waiter at depth 1, the others at depth 2", f->file));
	struct lock_row *rows;
	size_t n = lock_tree_rows(ls, &rows);
	CHECK(n == 51 && rows[0].session == x->blocker && rows[1].session == x->waiter && rows[2].depth == 2,
	      tname("%s pileup: tree of 51 rows: root, first waiter, the rest below it", f->file));
	free(rows);
	CHECK(ls->note[0] == '\0', tname("%s pileup: no note", f->file));
	lock_set_free(ls);
}

static void test_fixture(const char *name)
{
	struct fx f;
	if (!fx_load(&f, name))
		return;
	CHECK(f.nsec == 10, tname("%s: 5 scenarios and their gates", name));
	test_columns(&f);
	test_rowlock(&f);
	test_locktable(&f, false);
	test_locktable(&f, true);
	test_chain(&f);
	test_advisory(&f);
	test_pileup(&f);
	fx_free(&f);
}

/* PG13: the wait is state_change based, so equals the statement's age. */
static void test_pg13_wait(void)
{
	struct fx f;
	if (!fx_load(&f, "locks-pg-13.txt"))
		return;
	const struct fx_sec *s = fx_sec(&f, "rowlock");
	CHECK(s && s->nrows == 1 && s->rows[0].cell[PGL_W_WAIT_S] && s->rows[0].cell[PGL_W_STATE_S] &&
	      strcmp(s->rows[0].cell[PGL_W_WAIT_S], s->rows[0].cell[PGL_W_STATE_S]) == 0,
	      "locks-pg-13.txt: wait approximated by the time since state_change");
	fx_free(&f);
	if (!fx_load(&f, "locks-pg-15.txt"))
		return;
	s = fx_sec(&f, "rowlock");
	CHECK(s && s->nrows == 1 && s->rows[0].cell[PGL_W_WAIT_S] && s->rows[0].cell[PGL_W_STATE_S] &&
	      strtod(s->rows[0].cell[PGL_W_WAIT_S], NULL) < strtod(s->rows[0].cell[PGL_W_STATE_S], NULL),
	      "locks-pg-15.txt: wait from waitstart, after the statement began");
	fx_free(&f);
}

/* ---- hand-written cycle -------------------------------------------------- */

static void test_cycle(void)
{
	struct fx f;
	if (!fx_load(&f, "locks-pg-cycle.txt"))
		return;
	struct lock_set *ls = map_sec(&f, "cycle", false);
	CHECK(ls->ne == 3 && ls->ns == 3, "cycle: 3 edges, 3 sessions");
	lock_set_analyse(ls);
	int a = session_idx(ls, 4101), b = session_idx(ls, 4102), c = session_idx(ls, 4103);
	if (a < 0 || b < 0 || c < 0) {
		CHECK(false, "cycle: sessions 4101, 4102, 4103");
		lock_set_free(ls);
		fx_free(&f);
		return;
	}
	CHECK(ls->ncycles == 2 && ls->s[a].in_cycle && ls->s[b].in_cycle && !ls->s[c].in_cycle,
	      "cycle: 4101 and 4102 on the cycle, 4103 not");
	CHECK(ls->e[0].cycle && ls->e[1].cycle && !ls->e[2].cycle, "cycle: the two cycle edges flagged");
	CHECK(ls->nroots == 1 && ls->s[a].is_root && !ls->s[b].is_root,
	      "cycle: the older transaction (4101) heads it");
	CHECK(ls->s[b].depth == 1 && ls->s[c].depth == 1 && ls->s[a].blocked == 2,
	      "cycle: 4102 and 4103 at depth 1 under 4101");
	CHECK_STR(ls->e[0].object, "transaction 901 on app.orders", "cycle: object");
	struct lock_row *rows;
	size_t n = lock_tree_rows(ls, &rows);
	bool rep = false;
	for (size_t i = 0; i < n; i++)
		rep = rep || (rows[i].session == a && rows[i].repeat);
	CHECK(n == 4 && rows[0].session == a && rep, "cycle: tree rows end the loop with a repeat of the head");
	free(rows);
	lock_set_free(ls);
	fx_free(&f);
}

/* ---- robustness ----------------------------------------------------------- */

static void test_nulls(void)
{
	struct lock_set *ls = lock_set_new();
	const char *none[PGL__COUNT] = {0};
	pg_locks_map_row(ls, none, PGL__COUNT);
	CHECK(ls->ns == 0 && ls->ne == 0, "NULL row: nothing added");
	pg_locks_map_row(ls, NULL, PGL__COUNT);
	pg_locks_map_row(NULL, none, PGL__COUNT);
	CHECK(ls->ns == 0, "NULL cell array / set: nothing added, no crash");

	const char *pids[PGL__COUNT] = {[PGL_WAITER] = "11", [PGL_BLOCKER] = "12"};
	pg_locks_map_row(ls, pids, PGL__COUNT);
	CHECK(ls->ne == 1 && ls->ns == 2, "only pids: one edge");
	if (ls->ne == 1) {
		const struct lock_edge *e = &ls->e[0];
		const struct lock_session *w = &ls->s[e->waiter];
		CHECK(!e->object[0] && !e->held[0] && !e->requested[0] && !e->lock_type[0] && !e->soft,
		      "only pids: empty lock fields");
		CHECK(isnan(w->wait_s) && isnan(w->state_s) && isnan(w->trx_age_s) && !w->query && !w->user[0],
		      "only pids: unknown session fields");
	}
	pg_locks_map_row(ls, pids, 2);
	pg_locks_map_row(ls, pids, 1);
	pg_locks_map_row(ls, pids, 0);
	CHECK(ls->ne == 2, "short rows: columns past ncells are NULL");

	const char *bad[][2] = {{"x", "1"}, {"1", ""}, {"-3", "1"}, {"5", "5"}, {"1e3", "2"}, {"7", "8z"}};
	size_t ne = ls->ne;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		const char *r[PGL__COUNT] = {[PGL_WAITER] = bad[i][0], [PGL_BLOCKER] = bad[i][1]};
		pg_locks_map_row(ls, r, PGL__COUNT);
	}
	CHECK(ls->ne == ne, "bad or equal pids: no edge");

	const char *times[PGL__COUNT] = {[PGL_WAITER] = "21", [PGL_BLOCKER] = "22", [PGL_W_STATE_S] = "-0.0002",
					 [PGL_W_XACT_S] = "abc", [PGL_W_WAIT_S] = "1.5"};
	pg_locks_map_row(ls, times, PGL__COUNT);
	int w = session_idx(ls, 21);
	CHECK(w >= 0 && ls->s[w].state_s == 0 && isnan(ls->s[w].trx_age_s) && ls->s[w].wait_s == 1.5,
	      "times: slightly negative is 0, garbage unknown");
	lock_set_analyse(ls);
	lock_set_free(ls);
}

/* A prepared transaction as blocker (pid 0), and a blocker whose lock was
 * not seen (held ""); a non-client backend's type beside its user. */
static void test_special(void)
{
	struct lock_set *ls = lock_set_new();
	const char *prep[PGL__COUNT] = {
		[PGL_WAITER] = "31", [PGL_BLOCKER] = "0", [PGL_LOCKTYPE] = "transactionid",
		[PGL_OBJECT] = "transaction 77", [PGL_LOCK_DATA] = "", [PGL_REQUESTED] = "ShareLock",
		[PGL_HELD] = "ExclusiveLock", [PGL_SOFT] = "f", [PGL_W_USER] = "app", [PGL_W_STATE] = "active",
		[PGL_W_BACKEND] = "client backend", [PGL_B_STATE] = "prepared transaction",
	};
	const char *unseen[PGL__COUNT] = {
		[PGL_WAITER] = "32", [PGL_BLOCKER] = "33", [PGL_LOCKTYPE] = "relation", [PGL_OBJECT] = "t",
		[PGL_REQUESTED] = "AccessExclusiveLock", [PGL_HELD] = "", [PGL_SOFT] = "f",
		[PGL_W_USER] = NULL, [PGL_W_BACKEND] = "autovacuum worker", [PGL_W_STATE] = "active",
		[PGL_B_USER] = "app", [PGL_B_BACKEND] = "parallel worker",
	};
	pg_locks_map_row(ls, prep, PGL__COUNT);
	pg_locks_map_row(ls, unseen, PGL__COUNT);
	int p = session_idx(ls, 0), v = session_idx(ls, 32), pw = session_idx(ls, 33);
	CHECK(ls->ne == 2 && p >= 0 && strcmp(ls->s[p].state, "prepared transaction") == 0 && !ls->s[p].query,
	      "prepared transaction: blocker pid 0");
	CHECK(ls->ne == 2 && strcmp(ls->e[1].held, "") == 0 && !ls->e[1].soft,
	      "blocker's lock not seen: the edge is kept, held empty");
	CHECK(v >= 0 && strcmp(ls->s[v].user, "autovacuum worker") == 0, "no user: the backend type");
	CHECK(pw >= 0 && strcmp(ls->s[pw].user, "app (parallel worker)") == 0, "user and backend type");
	lock_set_analyse(ls);
	CHECK(ls->nroots == 2, "two roots");
	lock_set_free(ls);
}

/* The query asks for one row past PG_LOCKS_ROW_LIMIT: that row is not
 * mapped and the note says the answer was cut. */
static void test_cut(void)
{
	struct lock_set *ls = lock_set_new();
	char w[24], b[24];
	const char *row[PGL__COUNT] = {[PGL_LOCKTYPE] = "tuple", [PGL_REQUESTED] = "ExclusiveLock",
				       [PGL_HELD] = "ExclusiveLock", [PGL_SOFT] = "f"};
	row[PGL_WAITER] = w;
	row[PGL_BLOCKER] = b;
	for (int i = 0; i < PG_LOCKS_ROW_LIMIT; i++) {
		str_printf(w, sizeof w, "%d", 100 + i);
		str_printf(b, sizeof b, "%d", i == 0 ? 1 : 100);
		pg_locks_map_row(ls, row, PGL__COUNT);
	}
	CHECK(ls->ne == PG_LOCKS_ROW_LIMIT && ls->note[0] == '\0', "cut: the limit's rows mapped, no note yet");
	str_printf(w, sizeof w, "%d", 100 + PG_LOCKS_ROW_LIMIT);
	pg_locks_map_row(ls, row, PGL__COUNT);
	CHECK(ls->ne == PG_LOCKS_ROW_LIMIT && ls->ns == (size_t)PG_LOCKS_ROW_LIMIT + 1,
	      "cut: the row past the limit adds no edge and no session");
	CHECK(strstr(ls->note, "over 5000 wait edges") && strstr(ls->note, "nearest the roots"),
	      tname("cut: note '%s'", ls->note));
	lock_set_analyse(ls);
	CHECK(ls->nroots == 1 && ls->s[session_idx(ls, 1)].blocked == PG_LOCKS_ROW_LIMIT,
	      "cut: the root kept (its edges came first)");
	lock_set_free(ls);
}

/* Terminal escape sequences and controls in server text. */
static void test_sanitise(void)
{
	struct lock_set *ls = lock_set_new();
	char longq[3000];
	memset(longq, 'x', sizeof longq - 1);
	longq[sizeof longq - 1] = '\0';
	const char *evil[PGL__COUNT] = {
		[PGL_WAITER] = "41", [PGL_BLOCKER] = "42", [PGL_LOCKTYPE] = "tuple\x1b[2J",
		[PGL_OBJECT] = "\x1b]0;owned\x07t", [PGL_LOCK_DATA] = "ctid (0,1)\r\n",
		[PGL_REQUESTED] = "Share\x9bLock", [PGL_HELD] = "Excl\x7fusiveLock", [PGL_SOFT] = "f",
		[PGL_W_USER] = "ev\x1b[31mil", [PGL_W_STATE] = "active\x1b[0m",
		[PGL_W_QUERY] = "SELECT 1 /* \x1b[31mred\x1b[0m \x1b]52;c;ZXZpbA==\x07 */\t\n",
		[PGL_B_USER] = "b\x08\x08x", [PGL_B_STATE] = "idle in transaction", [PGL_B_QUERY] = longq,
		[PGL_B_BACKEND] = "client\x1b backend",
	};
	pg_locks_map_row(ls, evil, PGL__COUNT);
	CHECK(ls->ne == 1, "escapes: row mapped");
	if (ls->ne == 1) {
		const struct lock_edge *e = &ls->e[0];
		const struct lock_session *w = &ls->s[e->waiter], *b = &ls->s[e->blocker];
		CHECK(clean(e->object) && clean(e->lock_type) && clean(e->lock_data) && clean(e->requested) &&
		      clean(e->held), "escapes: edge fields sanitised");
		CHECK(clean(w->user) && clean(w->state) && clean(w->query) && clean(b->user) && clean(b->query),
		      "escapes: session fields sanitised");
		CHECK(w->query && strstr(w->query, "SELECT 1 /* ") == w->query && !strchr(w->query, '\x1b'),
		      "escapes: the statement kept, ESC gone");
		CHECK(strchr(e->requested, 0x9b) == NULL && strchr(e->held, 0x7f) == NULL,
		      "escapes: C1 CSI and DEL gone");
		CHECK(b->query && strlen(b->query) == LOCK_QUERY_MAX - 1 && b->query_is_last,
		      "long statement cut to LOCK_QUERY_MAX");
	}
	lock_set_free(ls);
}

/* ---- session identity (x / c act only on the session that was seen) ------- */

static void test_ident(void)
{
	struct lock_set *ls = lock_set_new();
	const char *row[PGL__COUNT] = {
		[PGL_WAITER] = "41", [PGL_BLOCKER] = "42", [PGL_LOCKTYPE] = "transactionid",
		[PGL_W_STATE] = "active", [PGL_B_STATE] = "idle in transaction",
		[PGL_W_START_US] = "1796134368123456", [PGL_W_XACT_US] = "1796134370000001",
		[PGL_W_QUERY_US] = "1796134371000002", [PGL_B_START_US] = "1796134300000000",
		[PGL_B_XACT_US] = NULL, [PGL_B_QUERY_US] = "1796134301000000",
	};
	pg_locks_map_row(ls, row, PGL__COUNT);
	int w = session_idx(ls, 41), b = session_idx(ls, 42);
	CHECK(w >= 0 && ls->s[w].ident.known && ls->s[w].ident.start_us == 1796134368123456LL &&
	      ls->s[w].ident.xact_us == 1796134370000001LL && ls->s[w].ident.stmt_us == 1796134371000002LL,
	      "ident: the waiter's backend_start, xact_start, query_start in microseconds");
	CHECK(b >= 0 && ls->s[b].ident.known && ls->s[b].ident.start_us == 1796134300000000LL && !ls->s[b].ident.xact_us,
	      "ident: the blocker's; no transaction is 0");
	/* a row recorded before the identity columns */
	pg_locks_map_row(ls, (const char *const[]){"43", "44"}, 2);
	CHECK(session_idx(ls, 43) >= 0 && !ls->s[session_idx(ls, 43)].ident.known, "ident: no columns, not known");
	/* another role's session without pg_read_all_stats: NULL backend_start */
	const char *hidden[PGL__COUNT] = {[PGL_WAITER] = "45", [PGL_BLOCKER] = "46"};
	pg_locks_map_row(ls, hidden, PGL__COUNT);
	CHECK(!ls->s[session_idx(ls, 46)].ident.known, "ident: NULL backend_start, not known");

	/* the check */
	struct session_ident saw = ls->s[w].ident, now = saw;
	char why[160];
	setenv("TZ", "UTC", 1);
	tzset();
	CHECK(session_ident_same(&saw, &now, true, false, why, sizeof why), "same: terminate goes ahead");
	CHECK(session_ident_same(&saw, &now, true, true, why, sizeof why), "same: cancel goes ahead");
	CHECK(!session_ident_same(&saw, &now, false, false, why, sizeof why) && strstr(why, "ended"),
	      tname("gone: refused (%s)", why));
	now.start_us += 5000000;
	CHECK(!session_ident_same(&saw, &now, true, false, why, sizeof why) &&
	      strstr(why, "it started at 2026-12-01 14:12:53.123 (the one you saw at 2026-12-01 14:12:48.123)"),
	      tname("pid reused (another backend_start): refused, both starts named (%s)", why));
	now = saw;
	now.xact_us += 1;
	CHECK(!session_ident_same(&saw, &now, true, false, why, sizeof why) && strstr(why, "another transaction"),
	      tname("another transaction: refused (%s)", why));
	now.xact_us = 0;
	CHECK(!session_ident_same(&saw, &now, true, false, why, sizeof why) && strstr(why, "has ended"),
	      tname("its transaction ended: refused (%s)", why));
	now = saw;
	now.stmt_us += 1;
	CHECK(session_ident_same(&saw, &now, true, false, why, sizeof why), "another statement: terminate goes ahead");
	CHECK(!session_ident_same(&saw, &now, true, true, why, sizeof why) && strstr(why, "another statement"),
	      tname("another statement: cancel refused (%s)", why));
	/* seen without a transaction: a transaction now does not matter */
	saw = ls->s[b].ident;
	now = saw;
	now.xact_us = 1796134399000000LL;
	CHECK(session_ident_same(&saw, &now, true, false, why, sizeof why), "seen without a transaction: only the start");
	char t[200];
	session_ident_text(&ls->s[w].ident, true, t, sizeof t);
	CHECK(strcmp(t, "started 2026-12-01 14:12:48.123, transaction begun 2026-12-01 14:12:50.000, statement begun "
			 "2026-12-01 14:12:51.000") == 0,
	      tname("ident text: %s", t));
	session_ident_text(&ls->s[b].ident, false, t, sizeof t);
	CHECK(strcmp(t, "started 2026-12-01 14:11:40.000, no transaction") == 0, tname("ident text: %s", t));
	lock_set_free(ls);
}

/* ---- the graph in two reads (pg_locks_edges_sql + pg_locks_who_sql) ------ */

/* A section's rows split as the two reads give them: edges (the session
 * columns NULL) and one who row per pid (waiting 't' for those that wait). */
struct split {
	const char **e, **w;
	size_t n, m;
	char pid[256][24];
};

static void split_sec(const struct fx_sec *s, struct split *sp)
{
	static const int wcols[] = {PGL_W_USER, PGL_W_STATE, PGL_W_STATE_S, PGL_W_XACT_S, PGL_W_BACKEND,
				    PGL_W_QUERY, PGL_W_START_US, PGL_W_XACT_US, PGL_W_QUERY_US};
	static const int bcols[] = {PGL_B_USER, PGL_B_STATE, PGL_B_STATE_S, PGL_B_XACT_S, PGL_B_BACKEND,
				    PGL_B_QUERY, PGL_B_START_US, PGL_B_XACT_US, PGL_B_QUERY_US};
	static const int who[] = {PGLW_USER, PGLW_STATE, PGLW_STATE_S, PGLW_XACT_S, PGLW_BACKEND,
				  PGLW_QUERY, PGLW_START_US, PGLW_XACT_US, PGLW_QUERY_US};
	memset(sp, 0, sizeof *sp);
	sp->n = (size_t)s->nrows;
	sp->e = calloc(sp->n * PGL__COUNT + 1, sizeof *sp->e);
	sp->w = calloc(2 * sp->n * PGLW__COUNT + 1, sizeof *sp->w);
	for (size_t i = 0; i < sp->n; i++) {
		const struct fx_row *r = &s->rows[i];
		const char **e = sp->e + i * PGL__COUNT;
		for (int k = 0; k < PGL__COUNT && k < r->n; k++)
			e[k] = r->cell[k];
		for (size_t k = 0; k < 9; k++)
			e[wcols[k]] = e[bcols[k]] = NULL;
		e[PGL_W_WAIT_S] = r->n > PGL_W_WAIT_S ? r->cell[PGL_W_WAIT_S] : NULL;
		if (e[PGL_B_STATE] == NULL && r->n > PGL_B_STATE && r->cell[PGL_BLOCKER] &&
		    strcmp(r->cell[PGL_BLOCKER], "0") == 0)
			e[PGL_B_STATE] = r->cell[PGL_B_STATE];
		for (int side = 0; side < 2; side++) {
			const char *pid = r->cell[side ? PGL_BLOCKER : PGL_WAITER];
			const int *cols = side ? bcols : wcols;
			size_t j;
			if (!pid || strcmp(pid, "0") == 0)
				continue;
			for (j = 0; j < sp->m && strcmp(sp->pid[j], pid) != 0; j++)
				;
			const char **w = sp->w + j * PGLW__COUNT;
			if (j == sp->m) {
				str_copy(sp->pid[sp->m++], sizeof sp->pid[0], pid);
				w[PGLW_PID] = sp->pid[j];
				w[PGLW_WAITING] = "f";
				for (size_t k = 0; k < 9; k++)
					w[who[k]] = (int)cols[k] < r->n ? r->cell[cols[k]] : NULL;
			}
			if (!side)
				w[PGLW_WAITING] = "t";
		}
	}
}

static void split_free(struct split *sp)
{
	free(sp->e);
	free(sp->w);
}

static bool str_eq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool num_eq(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* The two sets hold the same edges and sessions, in the same order. */
static bool same_set(const struct lock_set *a, const struct lock_set *b)
{
	if (a->ne != b->ne || a->ns != b->ns || strcmp(a->note, b->note) != 0)
		return false;
	for (size_t i = 0; i < a->ne; i++) {
		const struct lock_edge *x = &a->e[i], *y = &b->e[i];
		if (a->s[x->waiter].id != b->s[y->waiter].id || a->s[x->blocker].id != b->s[y->blocker].id ||
		    strcmp(x->object, y->object) || strcmp(x->lock_type, y->lock_type) ||
		    strcmp(x->requested, y->requested) || strcmp(x->held, y->held) ||
		    strcmp(x->lock_data, y->lock_data) || x->soft != y->soft)
			return false;
	}
	for (size_t i = 0; i < a->ns; i++) {
		const struct lock_session *x = &a->s[i], *y = &b->s[i];
		if (x->id != y->id || strcmp(x->user, y->user) || strcmp(x->state, y->state) ||
		    !str_eq(x->query, y->query) || !num_eq(x->state_s, y->state_s) ||
		    !num_eq(x->trx_age_s, y->trx_age_s) || !num_eq(x->wait_s, y->wait_s) ||
		    x->ident.start_us != y->ident.start_us || x->ident.xact_us != y->ident.xact_us)
			return false;
	}
	return true;
}

/* Every scenario captured from a server, split into the two reads and
 * joined, is the graph its one-statement answer maps to. */
static void test_join_fixture(const char *name, bool v13)
{
	struct fx f;
	if (!fx_load(&f, name))
		return;
	int n = 0, same = 0;
	for (int i = 0; i < f.nsec; i++) {
		if (strncmp(f.sec[i].name, "gate.", 5) == 0)
			continue;
		struct split sp;
		split_sec(&f.sec[i], &sp);
		struct lock_set *one = map_sec(&f, f.sec[i].name, false), *two = lock_set_new();
		pg_locks_join(two, sp.e, sp.n, sp.w, sp.m, v13, 0);
		n++;
		same += one->ne > 0 && same_set(one, two);
		lock_set_free(one);
		lock_set_free(two);
		split_free(&sp);
	}
	CHECK(n == 5 && same == n, tname("%s: each scenario in two reads joins to its one-statement graph (%d of %d)",
					 name, same, n));
	fx_free(&f);
}

/* Row helpers for the hand-made cases below. */
static void edge_row(const char **e, const char *w, const char *b, const char *held)
{
	memset(e, 0, PGL__COUNT * sizeof *e);
	e[PGL_WAITER] = w;
	e[PGL_BLOCKER] = b;
	e[PGL_LOCKTYPE] = "relation";
	e[PGL_OBJECT] = "t";
	e[PGL_REQUESTED] = "AccessExclusiveLock";
	e[PGL_HELD] = held;
	e[PGL_SOFT] = "f";
}

static void who_row(const char **w, const char *pid, const char *leader, const char *waiting, const char *user)
{
	memset(w, 0, PGLW__COUNT * sizeof *w);
	w[PGLW_PID] = pid;
	w[PGLW_LEADER] = leader;
	w[PGLW_WAITING] = waiting;
	w[PGLW_USER] = user;
	w[PGLW_STATE] = "active";
	w[PGLW_STATE_S] = "4.5";
	w[PGLW_BACKEND] = leader ? "parallel worker" : "client backend";
}

/* The two reads a refresh apart: an edge whose waiter waits no more, or
 * whose blocker has gone, is left out; a waiter whose wait is not shown
 * (another user's, no pg_read_all_stats) is kept; two parallel workers
 * of one leader blocking are its one edge; a worker's own leader is not
 * its blocker; on PostgreSQL 13 an active waiter's wait is its state's
 * age. */
static void test_join_cases(void)
{
	const char *e[6][PGL__COUNT], *w[8][PGLW__COUNT];
	edge_row(e[0], "10", "20", "AccessShareLock"); /* 10 waits no more */
	edge_row(e[1], "11", "21", "AccessShareLock"); /* 21 has gone */
	edge_row(e[2], "12", "22", "AccessShareLock"); /* 22 a worker of 30 */
	edge_row(e[3], "12", "23", "AccessShareLock"); /* 23 a worker of 30 too: the same edge */
	edge_row(e[4], "13", "30", "RowShareLock");    /* 13's wait not shown */
	edge_row(e[5], "24", "30", "AccessShareLock"); /* 24, a worker of 30, behind its leader */
	who_row(w[0], "10", NULL, "f", "a");
	who_row(w[1], "12", NULL, "t", "b");
	who_row(w[2], "22", "30", "f", "c");
	who_row(w[3], "23", "30", "f", "c");
	who_row(w[4], "30", NULL, "f", "leader");
	who_row(w[5], "13", NULL, NULL, "d");
	who_row(w[6], "24", "30", "t", "c");
	who_row(w[7], "20", NULL, "f", "e");
	w[4][PGLW_STATE] = "idle in transaction";
	struct lock_set *ls = lock_set_new();
	pg_locks_join(ls, &e[0][0], 6, &w[0][0], 8, true, 1.0);
	int b12 = session_idx(ls, 12), l = session_idx(ls, 30), b13 = session_idx(ls, 13);
	CHECK(ls->ne == 2, tname("join: 2 edges of 6 (%zu)", ls->ne));
	CHECK(session_idx(ls, 10) < 0 && session_idx(ls, 20) < 0 && session_idx(ls, 11) < 0 && session_idx(ls, 21) < 0,
	      "join: a waiter that waits no more, a blocker gone: left out");
	CHECK(ls->ne == 2 && ls->s[ls->e[0].waiter].id == 12 && ls->s[ls->e[0].blocker].id == 30 && l >= 0 &&
		      strcmp(ls->s[l].user, "leader") == 0 && strcmp(ls->s[l].state, "idle in transaction") == 0,
	      "join: parallel workers that block are their leader, once");
	CHECK(session_idx(ls, 22) < 0 && session_idx(ls, 23) < 0 && session_idx(ls, 24) < 0,
	      "join: a worker behind its own leader is no edge");
	CHECK(b13 >= 0 && ls->ne == 2 && ls->s[ls->e[1].waiter].id == 13 && strcmp(ls->e[1].held, "RowShareLock") == 0,
	      "join: a wait not shown is kept");
	CHECK(b12 >= 0 && ls->s[b12].wait_s == 4.5 && strcmp(ls->s[b12].user, "b") == 0,
	      "join: PostgreSQL 13: an active waiter's wait is its state's age");
	lock_set_free(ls);

	/* PostgreSQL 14 on: the wait read with the edges, plus the time to the sessions' read */
	e[2][PGL_W_WAIT_S] = "2.25";
	e[4][PGL_W_WAIT_S] = NULL;
	ls = lock_set_new();
	pg_locks_join(ls, &e[0][0], 6, &w[0][0], 8, false, 1.5);
	b12 = session_idx(ls, 12);
	b13 = session_idx(ls, 13);
	CHECK(b12 >= 0 && fabs(ls->s[b12].wait_s - 3.75) < 1e-9 && b13 >= 0 && isnan(ls->s[b13].wait_s),
	      tname("join: the wait as of the sessions' read (2.25 + 1.5 s: %.2f; unknown stays so)",
		    b12 >= 0 ? ls->s[b12].wait_s : -1));
	lock_set_free(ls);

	/* no session read: nothing joins; a cut answer says so */
	ls = lock_set_new();
	pg_locks_join(ls, &e[0][0], 6, NULL, 0, false, 0);
	CHECK(ls->ne == 0 && ls->ns == 0, "join: no session row, no edge");
	lock_set_free(ls);

	/* the answer's row past PG_LOCKS_ROW_LIMIT: not joined, the note says so */
	size_t n = PG_LOCKS_ROW_LIMIT + 1;
	const char **big = calloc(n * PGL__COUNT, sizeof *big), **bw = calloc((n + 1) * PGLW__COUNT, sizeof *bw);
	char(*pid)[24] = calloc(n + 1, sizeof *pid);
	str_copy(pid[n], sizeof pid[n], "1");
	who_row(bw + n * PGLW__COUNT, pid[n], NULL, "f", "root");
	for (size_t i = 0; i < n; i++) {
		str_printf(pid[i], sizeof pid[i], "%zu", i + 2);
		edge_row(big + i * PGL__COUNT, pid[i], "1", "AccessShareLock");
		who_row(bw + i * PGLW__COUNT, pid[i], NULL, "t", "w");
	}
	bw[PGLW_WAITING] = "f"; /* one waits no more: the row past the limit still does not count */
	ls = lock_set_new();
	pg_locks_join(ls, big, n, bw, n + 1, false, 0);
	CHECK(ls->ne == PG_LOCKS_ROW_LIMIT - 1 && strstr(ls->note, "only the 5000 nearest the roots") &&
		      session_idx(ls, (long long)n + 1) < 0,
	      tname("join: cut at %d rows, the note says so (%zu edges)", PG_LOCKS_ROW_LIMIT, ls->ne));
	lock_set_free(ls);
	free(big);
	free(bw);
	free(pid);
}

/* The second read's statement: each pid once, sorted, under a time limit. */
static void test_who_sql(void)
{
	const char *e[3][PGL__COUNT];
	struct strbuf q;
	edge_row(e[0], "300", "20", "x");
	edge_row(e[1], "7", "300", "x");
	edge_row(e[2], "7", "0", "x");
	sb_init(&q);
	size_t n = pg_locks_who_sql(&q, &e[0][0], 3, 250);
	CHECK(n == 3 && q.s && strncmp(q.s, "SET LOCAL statement_timeout = 250; SELECT pid, leader_pid,", 58) == 0 &&
		      strstr(q.s, "FROM pg_stat_activity WHERE pid = ANY('{7,20,300}'::int[])"),
	      tname("who sql: 3 pids, sorted, once each (%zu: %.80s)", n, q.s ? strstr(q.s, "WHERE") : ""));
	sb_free(&q);
	sb_init(&q);
	edge_row(e[0], "0", "0", "x");
	CHECK(pg_locks_who_sql(&q, &e[0][0], 1, 250) == 0 && q.len == 0, "who sql: no pid, no statement");
	sb_free(&q);
	const char *one = pg_locks_sql(150000), *two = pg_locks_edges_sql(150000);
	CHECK(strstr(one, "FROM pg_stat_activity") && !strstr(two, "pg_stat_activity") &&
		      strstr(two, "WHERE false") && pg_locks_edges_sql(130000) != two,
	      "edges sql: no scan of the sessions, per version");
}

int main(void)
{
	test_sql();
	test_fixture("locks-pg-13.txt");
	test_fixture("locks-pg-15.txt");
	test_fixture("locks-pg-18.txt");
	test_pg13_wait();
	test_cycle();
	test_nulls();
	test_special();
	test_cut();
	test_sanitise();
	test_ident();
	test_join_fixture("locks-pg-13.txt", true);
	test_join_fixture("locks-pg-15.txt", false);
	test_join_fixture("locks-pg-18.txt", false);
	test_join_cases();
	test_who_sql();
	return TAP_DONE();
}
