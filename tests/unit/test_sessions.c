/* test_sessions.c - the session list: model/sessions.c (building, copying,
 * statements sanitised and redacted, the lock graph's links, counts, the
 * stable sort, JSON), the row mappers of sources/sessions_map.c fed with
 * recorded rows (tests/fixtures/sessions-*.txt: PostgreSQL 15 and 18 and
 * MariaDB recorded from sandbox servers, MySQL 8 in its tables' layout),
 * and explain's checks before any SQL. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/sessions.h"
#include "../../sources/sessions_map.h"
#include "../../sources/source.h"
#include "../../util/util.h"
#include "tap.h"
#include "fixture.h"
#include "pyjson.h"

/* CHECK with a name built by printf */
#define CHECKF(cond, ...) CHECK(cond, tname(__VA_ARGS__))

static bool has(const char *s, const char *sub)
{
	return s && sub && strstr(s, sub) != NULL;
}

static const struct session *S(const struct session_set *ss, long long id)
{
	return session_find(ss, id);
}

/* The set a fixture section's rows map to (NULL when the section is missing). */
static struct session_set *load_pg(const struct fx *f, const char *sec, const char *user)
{
	const struct fx_sec *s = fx_sec(f, sec);
	if (!s) {
		CHECK(false, tname("%s: section @%s", f->file, sec));
		return NULL;
	}
	struct session_set *ss = session_set_new();
	for (int i = 0; i < s->nrows; i++)
		sessions_pg_row(ss, (const char *const *)s->rows[i].cell, s->rows[i].n);
	sessions_pg_finish(ss, user);
	return ss;
}

static struct session_set *load_my(const struct fx *f, const char *sec, enum flavour fl, bool process)
{
	const struct fx_sec *s = fx_sec(f, sec);
	if (!s) {
		CHECK(false, tname("%s: section @%s", f->file, sec));
		return NULL;
	}
	struct session_set *ss = session_set_new();
	for (int i = 0; i < s->nrows; i++)
		sessions_my_row(ss, fl, (const char *const *)s->rows[i].cell, s->rows[i].n);
	sessions_my_finish(ss, fl, process, "mon");
	return ss;
}

static void test_model(void)
{
	struct session_set *ss = session_set_new();
	struct session *s = session_add(ss, 42);
	CHECK(s->id == 42 && s->cls == SC_OTHER && isnan(s->state_s) && isnan(s->trx_age_s) && isnan(s->query_s) &&
		      !s->query && s->blocked_by == 0 && !s->ident.known && s->user[0] == '\0',
	      "session_add: every field unknown");
	session_set_query(s, "SELECT 1\x1b[2J; -- \x07" "bell\n", false);
	CHECK(s->query && !strchr(s->query, '\x1b') && !strchr(s->query, '\x07') && !strchr(s->query, '\n'),
	      "session_set_query: control characters and escape sequences sanitised");
	session_set_query(s, "ALTER ROLE app PASSWORD 'hunter2-secret'", true);
	CHECK(s->query && !has(s->query, "hunter2") && s->query_is_last, "session_set_query: a password is redacted");
	session_set_query(s, "CREATE USER 'u'@'%' IDENTIFIED BY 'topsecret'", false);
	CHECK(s->query && !has(s->query, "topsecret"), "session_set_query: IDENTIFIED BY is redacted");
	/* cut at SESSION_QUERY_MAX on a character boundary */
	char *big = xmalloc(SESSION_QUERY_MAX + 100);
	memset(big, 'a', SESSION_QUERY_MAX + 99);
	memcpy(big + SESSION_QUERY_MAX - 3, "\xc3\xa9\xc3\xa9", 4);
	big[SESSION_QUERY_MAX + 99] = '\0';
	session_set_query(s, big, false);
	CHECK(s->query && strlen(s->query) < SESSION_QUERY_MAX && strlen(s->query) >= SESSION_QUERY_MAX - 4 &&
		      (((unsigned char)s->query[strlen(s->query) - 1]) & 0xc0) != 0xc0,
	      "session_set_query: cut below SESSION_QUERY_MAX, not inside a UTF-8 sequence");
	free(big);
	session_set_query(s, NULL, false);
	CHECK(!s->query, "session_set_query(NULL): no statement");

	s = session_add(ss, 7);
	session_set_query(s, "SELECT 7", false);
	struct session_set *c = session_set_copy(ss);
	CHECK(c->n == 2 && c->s[1].query && c->s[1].query != ss->s[1].query && strcmp(c->s[1].query, "SELECT 7") == 0,
	      "session_set_copy: its own statements");
	session_set_free(ss);
	CHECK(strcmp(c->s[1].query, "SELECT 7") == 0, "session_set_copy: outlives the original");
	session_set_free(c);
	session_set_free(NULL);
	CHECK(session_set_copy(NULL) == NULL, "session_set_copy(NULL)");

	CHECK(strcmp(session_class_name(SC_LOCK_WAIT), "waiting for lock") == 0 &&
		      strcmp(session_class_name(SC_IDLE_IN_TRX), "idle in transaction") == 0,
	      "class names");
	CHECK(strcmp(session_status_name(SESS_PARTIAL), "partial") == 0 &&
		      strcmp(session_status_name(SESS_NOT_READ), "not read") == 0,
	      "status names");
}

/* order of ids after session_sort */
static void order_ids(const struct session_set *ss, enum session_col col, bool rev, char *out, size_t len)
{
	size_t *o = xcalloc(ss->n ? ss->n : 1, sizeof *o);
	session_sort(ss, col, rev, o);
	size_t n = 0;
	out[0] = '\0';
	for (size_t i = 0; i < ss->n; i++)
		n += str_printf(out + n, len - n, "%s%lld", i ? "," : "", ss->s[o[i]].id);
	free(o);
}

static void test_sort(void)
{
	/* rows in the order a server returned them; two refreshes list them
	 * in different orders: the sort must not care */
	static const struct {
		long long id;
		const char *user;
		enum session_class cls;
		double state_s;
	} rows[] = {
		{30, "bob", SC_IDLE, 5},  {10, "alice", SC_ACTIVE, 2}, {20, "Bob", SC_LOCK_WAIT, 2},
		{40, "", SC_IDLE, NAN},   {50, "carol", SC_ACTIVE, 9},
	};
	struct session_set *a = session_set_new(), *b = session_set_new();
	for (size_t i = 0; i < 5; i++) {
		struct session *s = session_add(a, rows[i].id);
		str_copy(s->user, sizeof s->user, rows[i].user);
		s->cls = rows[i].cls;
		s->state_s = rows[i].state_s;
		size_t j = 4 - i;
		s = session_add(b, rows[j].id);
		str_copy(s->user, sizeof s->user, rows[j].user);
		s->cls = rows[j].cls;
		s->state_s = rows[j].state_s;
	}
	char x[128], y[128];
	order_ids(a, SCOL_ID, false, x, sizeof x);
	CHECK_STR(x, "10,20,30,40,50", "sort by id");
	order_ids(a, SCOL_ID, true, x, sizeof x);
	CHECK_STR(x, "50,40,30,20,10", "sort by id, reversed");
	order_ids(a, SCOL_USER, false, x, sizeof x);
	CHECK_STR(x, "10,20,30,50,40", "sort by user: case-insensitive, ties by id, unknown last");
	order_ids(a, SCOL_USER, true, x, sizeof x);
	CHECK_STR(x, "50,20,30,10,40", "sort by user reversed: ties still by id ascending, unknown still last");
	order_ids(a, SCOL_STATE_S, false, x, sizeof x);
	CHECK_STR(x, "10,20,30,50,40", "sort by time: numeric, ties by id, NaN last");
	order_ids(a, SCOL_STATE_S, true, x, sizeof x);
	CHECK_STR(x, "50,30,10,20,40", "sort by time reversed: NaN still last");
	order_ids(a, SCOL_STATE, false, x, sizeof x);
	CHECK_STR(x, "20,10,50,30,40", "sort by state: waiting first, then active, idle");
	for (int col = 0; col < SCOL__COUNT; col++)
		for (int r = 0; r < 2; r++) {
			order_ids(a, col, r, x, sizeof x);
			order_ids(b, col, r, y, sizeof y);
			CHECK(strcmp(x, y) == 0, tname("sort by %s%s: the same order whatever order the rows came in (%s / %s)",
						       session_col_name(col), r ? " reversed" : "", x, y));
		}
	session_set_free(a);
	session_set_free(b);
}

static void test_link_locks(void)
{
	struct session_set *ss = session_set_new();
	session_add(ss, 1)->cls = SC_IDLE_IN_TRX;
	session_add(ss, 2)->cls = SC_ACTIVE;
	session_add(ss, 3)->cls = SC_ACTIVE;
	struct session *pg = session_add(ss, 4);
	pg->cls = SC_LOCK_WAIT;
	pg->blocked_by = 3;
	pg->nblockers = 1;
	struct lock_set *ls = lock_set_new();
	lock_edge_add(ls, 2, 1);
	lock_edge_add(ls, 3, 1);
	lock_edge_add(ls, 3, 2);
	lock_edge_add(ls, 3, 1);   /* a second lock of the same pair */
	lock_edge_add(ls, 4, 1);
	ls->status = LOCKS_READ;
	session_set_link_locks(ss, ls);
	CHECK(S(ss, 2)->cls == SC_LOCK_WAIT && S(ss, 2)->blocked_by == 1 && S(ss, 2)->nblockers == 1,
	      "link: a waiter of the graph is waiting for a lock, its blocker named");
	CHECK(S(ss, 3)->blocked_by == 1 && S(ss, 3)->nblockers == 2, "link: two blockers counted once each");
	CHECK(S(ss, 1)->cls == SC_IDLE_IN_TRX && S(ss, 1)->blocked_by == 0, "link: the root keeps its class");
	CHECK(S(ss, 4)->blocked_by == 3 && S(ss, 4)->nblockers == 1, "link: the source's own blocker stands");
	struct session_counts c;
	session_counts(ss, &c);
	CHECK(c.total == 4 && c.lock_wait == 3 && c.idle_in_trx == 1 && c.active == 0, "counts by class");
	/* edges of several waiters interleaved, the sessions in no order: the
	 * first edge of each waiter names its blocker */
	struct session_set *u = session_set_new();
	struct lock_set *lu = lock_set_new();
	for (long long id = 40; id >= 30; id--)
		session_add(u, id)->cls = SC_ACTIVE;
	lock_edge_add(lu, 31, 39);
	lock_edge_add(lu, 32, 38);
	lock_edge_add(lu, 31, 37);
	lock_edge_add(lu, 99, 31); /* a waiter the list has not */
	lock_edge_add(lu, 32, 38);
	lock_edge_add(lu, 31, 39);
	lu->status = LOCKS_READ;
	session_set_link_locks(u, lu);
	CHECK(S(u, 31)->blocked_by == 39 && S(u, 31)->nblockers == 2 && S(u, 32)->blocked_by == 38 &&
		      S(u, 32)->nblockers == 1 && S(u, 31)->cls == SC_LOCK_WAIT && S(u, 39)->cls == SC_ACTIVE &&
		      S(u, 39)->nblockers == 0,
	      "link: interleaved edges: each waiter's first blocker named, each blocker counted once");
	lock_set_free(lu);
	session_set_free(u);
	/* a graph not read changes nothing */
	struct session_set *t = session_set_new();
	session_add(t, 2)->cls = SC_ACTIVE;
	ls->status = LOCKS_TIMED_OUT;
	session_set_link_locks(t, ls);
	CHECK(t->s[0].cls == SC_ACTIVE && t->s[0].blocked_by == 0, "link: a graph not read links nothing");
	session_set_link_locks(t, NULL);
	lock_set_free(ls);
	session_set_free(t);
	session_set_free(ss);
}

static void test_pg(const char *file, long long holder, long long w1, long long w2, long long idle,
		    long long active, long long self, const char *idle_digest)
{
	struct fx f;
	if (!fx_load(&f, file))
		return;
	struct session_set *ss = load_pg(&f, "rows", "dbtop_mon");
	if (!ss) {
		fx_free(&f);
		return;
	}
	struct session_counts c;
	session_counts(ss, &c);
	CHECK(ss->status == SESS_OK && ss->note[0] == '\0', tname("%s: every session seen, no note", file));
	CHECK(c.active == 2 && c.lock_wait == 2 && c.idle_in_trx == 1 && c.idle == 1 && c.background >= 6 && c.other == 0,
	      tname("%s: 2 active (one is the reader), 2 waiting, 1 idle in transaction, 1 idle, background %u", file,
		    c.background));
	const struct session *h = S(ss, holder), *a = S(ss, w1), *b = S(ss, w2), *i = S(ss, idle), *r = S(ss, active);
	CHECK(h && h->cls == SC_IDLE_IN_TRX && h->query_is_last && has(h->query, "UPDATE fx_t") &&
		      strcmp(h->client, "[local]") == 0 && h->trx_age_s > 1.9 && strcmp(h->app, "fx") == 0 &&
		      h->ident.known && h->ident.start_us > 0 && h->ident.xact_us > 0,
	      tname("%s: the holder: idle in transaction over a socket, last statement, its identity", file));
	CHECK(a && a->cls == SC_LOCK_WAIT && a->blocked_by == holder && a->nblockers == 1 &&
		      strcmp(a->wait, "Lock:transactionid") == 0 && !a->query_is_last,
	      tname("%s: the first waiter waits for the holder's transaction", file));
	CHECK(b && b->cls == SC_LOCK_WAIT && b->blocked_by == w1 && strcmp(b->wait, "Lock:tuple") == 0,
	      tname("%s: the second queues behind the first for the row", file));
	CHECK(i && i->cls == SC_IDLE && strcmp(i->digest, idle_digest) == 0 && i->query_is_last &&
		      strcmp(i->wait, "Client:ClientRead") == 0,
	      tname("%s: idle, its last statement's digest key %s", file, i ? i->digest : "?"));
	CHECK(r && r->cls == SC_ACTIVE && strcmp(r->wait, "Timeout:PgSleep") == 0 && r->query_s > 1.9,
	      tname("%s: the SELECT runs (Timeout:PgSleep)", file));
	const struct session *me = S(ss, self);
	CHECK(me && me->self && me->state_s == 0 && has(me->client, "127.0.0.1:"),
	      tname("%s: the reader is self; a negative state time reads as 0", file));
	const struct session *bg = &ss->s[0];
	CHECK(bg->cls == SC_BACKGROUND && bg->type[0] && !bg->query && bg->client[0] == '\0',
	      tname("%s: background process %s", file, bg->type));
	session_set_free(ss);

	ss = load_pg(&f, "rows_plain", "fx_plain");
	if (ss) {
		session_counts(ss, &c);
		CHECK(ss->status == SESS_PARTIAL && has(ss->note, "GRANT pg_read_all_stats TO fx_plain"),
		      tname("%s: without pg_read_all_stats: partial, the note says the GRANT (%s)", file, ss->note));
		h = S(ss, holder);
		CHECK(h && h->cls == SC_OTHER && !h->query && !h->ident.known && strcmp(h->user, "postgres") == 0,
		      tname("%s: another role's session: no state, no statement, no identity", file));
		session_set_free(ss);
	}
	fx_free(&f);
}

static void test_mariadb(void)
{
	struct fx f;
	if (!fx_load(&f, "sessions-mariadb-10.11.txt"))
		return;
	struct session_set *ss = load_my(&f, "rows", FLAVOUR_MARIADB, true);
	if (ss) {
		struct session_counts c;
		session_counts(ss, &c);
		CHECK(ss->status == SESS_OK && c.total == 5 && c.idle == 1 && c.active == 2 && c.idle_in_trx == 1 &&
			      c.lock_wait == 1,
		      "mariadb: 1 idle, 2 active (one the reader), 1 idle in transaction, 1 waiting");
		const struct session *h = S(ss, 1731), *w = S(ss, 1732), *a = S(ss, 1730), *i = S(ss, 1729);
		CHECK(h && h->cls == SC_IDLE_IN_TRX && strcmp(h->ident.trx_id, "263") == 0 &&
			      strcmp(h->ident.trx_started, "2026-12-01 17:42:37") == 0 && h->ident.query_id == 3695 &&
			      fabs(h->trx_age_s - 2.7821) < 1e-6 && fabs(h->state_s - 2.021624) < 1e-6 &&
			      strcmp(h->client, "localhost") == 0,
		      "mariadb: the holder: Sleep in a transaction, its identity (trx 263, QUERY_ID), TIME_MS");
		CHECK(w && w->cls == SC_LOCK_WAIT && strcmp(w->wait, "Updating") == 0 && w->blocked_by == 0 &&
			      has(w->query, "UPDATE fx_t"),
		      "mariadb: the waiter (LOCK WAIT); its blocker comes from the lock graph");
		CHECK(a && a->cls == SC_ACTIVE && strcmp(a->wait, "User sleep") == 0 && a->query_s > 2 && !a->query_is_last,
		      "mariadb: the running SELECT, its wait the processlist state");
		CHECK(i && i->cls == SC_IDLE && !i->query && isnan(i->query_s) && isnan(i->trx_age_s),
		      "mariadb: idle, no transaction, no statement");
		CHECK(S(ss, 1733) && S(ss, 1733)->self, "mariadb: the reader is self");
		/* the lock graph names the blocker */
		struct lock_set *ls = lock_set_new();
		lock_edge_add(ls, 1732, 1731);
		ls->status = LOCKS_READ;
		session_set_link_locks(ss, ls);
		CHECK(S(ss, 1732)->blocked_by == 1731 && S(ss, 1732)->nblockers == 1, "mariadb: linked: 1732 waits for 1731");
		lock_set_free(ls);
		session_set_free(ss);
	}
	ss = load_my(&f, "rows_noprocess", FLAVOUR_MARIADB, false);
	if (ss) {
		CHECK(ss->status == SESS_PARTIAL && ss->n == 1 && has(ss->note, "GRANT PROCESS ON *.* TO mon"),
		      tname("mariadb without PROCESS: partial, the note says the GRANT (%s)", ss->note));
		session_set_free(ss);
	}
	fx_free(&f);
}

static void test_mysql8(void)
{
	struct fx f;
	if (!fx_load(&f, "sessions-mysql-8.0.36.txt"))
		return;
	struct session_set *ss = load_my(&f, "rows", FLAVOUR_MYSQL, true);
	if (ss) {
		struct session_counts c;
		session_counts(ss, &c);
		CHECK(c.total == 9 && c.background == 2 && c.idle == 1 && c.idle_in_trx == 1 && c.lock_wait == 2 &&
			      c.active == 3,
		      tname("mysql 8: 9 sessions (13 listed twice is one): 2 background, 1 idle, 1 idle in trx, 2 waiting, "
			    "3 active (got %u/%u/%u/%u/%u/%u)", c.total, c.background, c.idle, c.idle_in_trx, c.lock_wait,
			    c.active));
		CHECK(S(ss, 5) && S(ss, 5)->cls == SC_BACKGROUND && strcmp(S(ss, 5)->type, "FOREGROUND") == 0,
		      "mysql 8: the event scheduler is a server thread");
		CHECK(S(ss, 6) && S(ss, 6)->cls == SC_BACKGROUND, "mysql 8: the replication applier (system user) too");
		const struct session *i = S(ss, 9), *h = S(ss, 10), *w = S(ss, 11), *m = S(ss, 12), *a = S(ss, 13);
		CHECK(i && i->cls == SC_IDLE && i->query_is_last && has(i->query, "FROM orders") && isnan(i->query_s) &&
			      strcmp(i->app, "mysql") == 0 &&
			      strcmp(i->digest, "shop/3f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a") == 0,
		      "mysql 8: idle: its last statement (END_EVENT_ID set), program_name, the digests' key schema/DIGEST");
		CHECK(h && h->cls == SC_IDLE_IN_TRX && strcmp(h->ident.trx_id, "421937") == 0 && h->trx_age_s == 42.5 &&
			      h->ident.query_id == 0 && h->ident.known,
		      "mysql 8: idle in transaction 421937, 42.5 s old");
		CHECK(w && w->cls == SC_LOCK_WAIT && fabs(w->query_s - 12.00441) < 1e-9 && strcmp(w->wait, "updating") == 0,
		      "mysql 8: the UPDATE waits (LOCK WAIT), statement time from TIMER_WAIT");
		CHECK(m && m->cls == SC_LOCK_WAIT && strcmp(m->wait, "wait/lock/metadata/sql/mdl") == 0,
		      "mysql 8: the ALTER waits for a metadata lock (the P_S wait shown)");
		CHECK(a && a->cls == SC_ACTIVE && strcmp(a->wait, "wait/io/table/sql/handler") == 0 &&
			      strcmp(a->app, "report.py") == 0,
		      "mysql 8: the running SELECT's current wait (its first row)");
		CHECK(S(ss, 14) && S(ss, 14)->self, "mysql 8: dbtop's own thread is self");
		CHECK(S(ss, 16) && S(ss, 16)->query && !has(S(ss, 16)->query, "s3cret"),
		      "mysql 8: a CREATE USER's password is redacted");
		struct lock_set *ls = lock_set_new();
		lock_edge_add(ls, 11, 10);
		ls->status = LOCKS_READ;
		session_set_link_locks(ss, ls);
		CHECK(S(ss, 11)->blocked_by == 10, "mysql 8: linked: 11 waits for 10");
		lock_set_free(ls);

		struct strbuf js;
		sb_init(&js);
		sb_putc(&js, '{');
		sb_puts(&js, "\"x\":1");
		session_set_json(&js, ss);
		sb_putc(&js, '}');
		CHECK(has(js.s, "\"sessions_status\":\"ok\"") && has(js.s, "\"sessions_count\":{\"total\":9,") &&
			      has(js.s, "\"blocked_by\":10") && has(js.s, "\"class\":\"waiting for lock\""),
		      "mysql 8: JSON members");
		if (have_python)
			CHECK(py_ok(js.s, "import json,sys; r=json.load(sys.stdin); s={x[\"id\"]:x for x in r[\"sessions\"]}; "
					  "assert len(r[\"sessions\"])==9; assert s[11][\"blocked_by\"]==10; "
					  "assert s[9][\"query_s\"] is None; assert s[10][\"trx_age_s\"]==42.5; "
					  "assert s[14][\"self\"] is True; assert r[\"sessions_count\"][\"lock_wait\"]==2"),
			      "mysql 8: the JSON parses, with nulls for unknown times");
		sb_free(&js);
		session_set_free(ss);
	}
	const struct fx_sec *ec = fx_sec(&f, "explain_columns"), *er = fx_sec(&f, "explain");
	if (ec && er && ec->nrows == 1) {
		struct strbuf t;
		sb_init(&t);
		explain_table_row(&t, (const char *const *)ec->rows[0].cell, (unsigned)ec->rows[0].n);
		for (int i = 0; i < er->nrows; i++)
			explain_table_row(&t, (const char *const *)er->rows[i].cell, (unsigned)er->rows[i].n);
		CHECK_STR(t.s, "id | select_type | table | partitions | type | possible_keys | key | key_len | ref | rows | "
			       "filtered | Extra\n"
			       "1 | SIMPLE | o | NULL | index | PRIMARY | PRIMARY | 4 | NULL | 120345 | 100.00 | Using index\n"
			       "1 | SIMPLE | i | NULL | ref | order_id | order_id | 4 | shop.o.id | 3 | 100.00 | Using index\n",
			  "mysql 8: EXPLAIN FOR CONNECTION as text: names, then rows, NULL spelled out");
		sb_free(&t);
	} else {
		CHECK(false, "mysql 8: @explain_columns and @explain sections");
	}
	ss = load_my(&f, "rows_noprocess", FLAVOUR_MYSQL, false);
	if (ss) {
		CHECK(ss->status == SESS_PARTIAL && ss->n == 2 && has(ss->note, "GRANT PROCESS ON *.* TO mon"),
		      "mysql 8 without PROCESS: partial, the note says the GRANT");
		session_set_free(ss);
	}
	fx_free(&f);
	CHECK(has(sessions_my_sql(FLAVOUR_MYSQL, true), "performance_schema.threads") &&
		      has(sessions_my_sql(FLAVOUR_MYSQL, true), "INNODB_TRX") &&
		      !has(sessions_my_sql(FLAVOUR_MYSQL, false), "INNODB_TRX") &&
		      has(sessions_my_sql(FLAVOUR_MARIADB, true), "information_schema.PROCESSLIST") &&
		      has(sessions_my_trx_sql(FLAVOUR_MARIADB, true), "INNODB_TRX") && !sessions_my_trx_sql(FLAVOUR_MARIADB, false) &&
		      !sessions_my_trx_sql(FLAVOUR_MYSQL, true),
	      "SQL: MySQL 8 reads performance_schema, MariaDB the process list; INNODB_TRX only with PROCESS");
	CHECK(!has(sessions_my_sql(FLAVOUR_MARIADB, true), "ORDER BY") && !has(sessions_my_sql(FLAVOUR_MARIADB, true), "JOIN"),
	      "SQL: MariaDB's process list alone, not sorted on the server (transactions read apart)");
	CHECK(has(sessions_pg_sql(140000, true), "a.query_id") && !has(sessions_pg_sql(130000, true), "a.query_id") &&
		      has(sessions_pg_sql(140000, false), "a.query_id") && !has(sessions_pg_sql(130000, false), "a.query_id"),
	      "SQL: query_id from PostgreSQL 14 on");
	for (long v = 130000; v <= 140000; v += 10000) {
		const char *all = sessions_pg_sql(v, true), *busy = sessions_pg_sql(v, false);
		/* one scan: pg_stat_activity named once, the CTE read twice */
		const char *p1 = strstr(busy, "pg_stat_activity");
		CHECKF(p1 && !strstr(p1 + 1, "pg_stat_activity") && has(busy, "WITH a AS (") && has(busy, "UNION ALL") &&
			       has(busy, "count(*) FILTER (WHERE a.wait_event_type = 'Lock')") &&
			       has(busy, "WHERE (a.state = 'idle' AND a.backend_type = 'client backend') IS NOT TRUE") &&
			       has(busy, "count(*) FILTER (WHERE a.state = 'idle'"),
		       "SQL %ld, idle hidden: one scan, the non-idle rows, idle and lock waits counted", v);
		p1 = strstr(all, "pg_stat_activity");
		CHECKF(p1 && !strstr(p1 + 1, "pg_stat_activity") && !has(all, "IS NOT TRUE") &&
			       has(all, "count(*) FILTER (WHERE a.wait_event_type = 'Lock')"),
		       "SQL %ld, every session: every row, lock waits counted", v);
	}
	char buf[4096];
	CHECK(sessions_pg_sql_timed(buf, sizeof buf, 150000, 1000, false) &&
		      strncmp(buf, "SET LOCAL statement_timeout = 1000; WITH", 40) == 0,
	      "SQL: the PostgreSQL read carries its time limit");
	CHECK(!sessions_pg_sql_timed(buf, 100, 150000, 1000, true), "SQL: a too small buffer is refused");
}

/* The summary rows: the idle sessions counted but not listed count in the
 * classes; the MariaDB rows are sorted by id on the client. */
static void test_idle_unread(void)
{
	struct session_set *ss = session_set_new();
	const char *row[SPG__COUNT] = {NULL};
	row[SPG_PID] = "42";
	row[SPG_TYPE] = "client backend";
	row[SPG_STATE] = "active";
	sessions_pg_row(ss, row, SPG__COUNT);
	const char *sum[SPG__COUNT] = {NULL};
	sum[SPG_IDLE_UNREAD] = "2445";
	sum[SPG_LOCK_WAITING] = "3";
	sessions_pg_row(ss, sum, SPG__COUNT);
	struct session_counts c;
	session_counts(ss, &c);
	CHECKF(ss->n == 1 && ss->idle_unread == 2445 && c.total == 2446 && c.idle == 2445 && c.active == 1,
	       "pg summary row: no session, %u idle counted (total %u, idle %u)", ss->idle_unread, c.total, c.idle);
	struct session_set *cp = session_set_copy(ss);
	CHECK(cp->idle_unread == 2445, "a copy keeps the idle count");
	session_set_free(cp);
	session_set_free(ss);

	/* MariaDB: transactions read apart, merged by thread id */
	struct my_trx_set ts = {0};
	const char *t1[] = {"3", "1234", "RUNNING", "2026-12-01 10:00:00", "42.5"};
	const char *t2[] = {"1", "99", "LOCK WAIT", "2026-12-01 10:00:30", "12"};
	sessions_my_trx_add(&ts, t1, 5);
	sessions_my_trx_add(&ts, t2, 5);
	sessions_my_trx_sort(&ts);
	ss = session_set_new();
	const char *m[SMY__COUNT] = {NULL};
	m[SMY_ID] = "9";
	m[SMY_USER] = "app";
	m[SMY_COMMAND] = "Query";
	sessions_my_trx_fill(&ts, m);
	CHECK(!sessions_my_idle(m, SMY__COUNT) && !m[SMY_TRX_ID], "mariadb: a running session, no transaction: listed");
	sessions_my_row(ss, FLAVOUR_MARIADB, m, SMY__COUNT);
	m[SMY_ID] = "3";
	m[SMY_COMMAND] = "Sleep";
	sessions_my_trx_fill(&ts, m);
	CHECK(m[SMY_TRX_ID] && strcmp(m[SMY_TRX_ID], "1234") == 0 && !sessions_my_idle(m, SMY__COUNT),
	      "mariadb: sleeping in a transaction (merged by thread id): listed");
	sessions_my_row(ss, FLAVOUR_MARIADB, m, SMY__COUNT);
	const char *idle[SMY__COUNT] = {NULL};
	idle[SMY_ID] = "5";
	idle[SMY_USER] = "app";
	idle[SMY_COMMAND] = "Sleep";
	sessions_my_trx_fill(&ts, idle);
	const char *sys[SMY__COUNT] = {NULL};
	sys[SMY_ID] = "2";
	sys[SMY_USER] = "system user";
	sys[SMY_COMMAND] = "Sleep";
	CHECK(sessions_my_idle(idle, SMY__COUNT) && !idle[SMY_TRX_ID] && !sessions_my_idle(sys, SMY__COUNT),
	      "mariadb: sleeping, no transaction: idle (counted); a system thread is not");
	/* the metadata-lock check's predicate, STATE LIKE 'Waiting for%metadata lock' */
	const char *states[] = {"Waiting for table metadata lock", "waiting for schema METADATA LOCK",
				"Waiting for metadata lock", "Waiting for table level lock", "Waiting for", "metadata lock",
				NULL};
	bool want[] = {true, true, true, false, false, false, false};
	int agree = 0;
	for (int i = 0; i < 7; i++) {
		const char *r[SMY__COUNT] = {NULL};
		r[SMY_STATE] = states[i];
		agree += sessions_my_mdl_wait(r, SMY__COUNT) == want[i];
	}
	CHECK(agree == 7, "mariadb: a metadata-lock wait by the check's own LIKE (case aside; no STATE: none)");
	ss->idle_unread = 7;
	sessions_my_finish(ss, FLAVOUR_MARIADB, true, "mon");
	session_counts(ss, &c);
	CHECKF(ss->n == 2 && ss->s[0].id == 3 && ss->s[1].id == 9 && ss->s[0].cls == SC_IDLE_IN_TRX &&
		       ss->s[0].trx_age_s == 42.5 && c.total == 9 && c.idle == 7 && c.idle_in_trx == 1,
	       "mariadb: rows sorted by id, idle in transaction listed, %u idle counted", ss->idle_unread);
	session_set_free(ss);
	sessions_my_trx_free(&ts);
}

static void test_json_none(void)
{
	struct strbuf js;
	sb_init(&js);
	session_set_json(&js, NULL);
	CHECK(js.len == 0, "JSON: nothing without a list");
	struct session_set *ss = session_set_new();
	ss->status = SESS_NOT_READ;
	session_set_json(&js, ss);
	CHECK(has(js.s, "\"sessions_status\":\"not read\"") && has(js.s, "\"sessions\":[]"), "JSON: not read, []");
	sb_free(&js);
	session_set_free(ss);
}

static void test_explain_checks(void)
{
	char err[256];
	static const char *const ok[] = {
		"SELECT 1",
		"  select * from t where a = 'x;y' ;  ",
		"(SELECT 1) UNION (SELECT 2)",
		"/* app:report */ SELECT 1",
		"-- note\nUPDATE t SET a = 1",
		"WITH d AS (SELECT id FROM t WHERE old) DELETE FROM t USING d WHERE t.id = d.id",
		"WITH RECURSIVE r(n) AS (VALUES (1) UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r",
		"INSERT INTO t VALUES ($1, $2)",
		"REPLACE INTO t VALUES (1)",
		"MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE",
		"SELECT $$a;b$$, E'\\';DROP', \"we;ird\" FROM t; -- trailing comment",
		"SELECT 1; /* done */",
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		err[0] = '\0';
		CHECK(explain_text_ok(ok[i], err, sizeof err), tname("explain: allowed #%zu (%s)", i, err));
	}
	static const struct {
		const char *q, *why;
	} bad[] = {
		{"DROP TABLE t", "DROP statements are not explained"},
		{"vacuum t", "VACUUM statements are not explained"},
		{"CALL p()", "CALL statements"},
		{"SET x = 1", "SET statements"},
		{"SELECT 1; DROP TABLE t", "several statements"},
		{"SELECT 1;DELETE FROM t", "several statements"},
		{"SELECT 'a'';'; COMMIT", "several statements"},
		{"WITH x AS (SELECT 1) ", "a WITH that leads to no"},
		{"", "no statement"},
		{"   ", "no statement"},
		{"EXPLAIN ANALYZE DELETE FROM t", "EXPLAIN statements"},
		{"BEGIN", "BEGIN statements"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		bool r = explain_text_ok(bad[i].q, err, sizeof err);
		CHECK(!r && has(err, bad[i].why), tname("explain: refused: '%s': %s", bad[i].q, err));
	}
	CHECK(explain_pg_params("SELECT $1, $12 FROM t") == 12, "params: the highest $n");
	CHECK(explain_pg_params("SELECT '$1', \"$2\", $$ $3 $$, $tag$ $4 $tag$ -- $5\n FROM t /* $6 */") == 0,
	      "params: none inside literals, names, dollar quotes, comments");
	CHECK(explain_pg_params("SELECT a$1 FROM t") == 0, "params: part of a name is not one");
	char buf[512];
	err[0] = '\0';
	CHECK(!explain_pg_sql(buf, sizeof buf, "SELECT * FROM t WHERE id = $1", 150004, err, sizeof err),
	      "explain_pg_sql: parameters on 15 refused");
	CHECK_STR(err, "PostgreSQL 15 cannot plan a statement with parameters ($1) without their values; "
		       "GENERIC_PLAN needs 16",
		  "explain_pg_sql: the reason on 15");
	CHECK(!explain_pg_sql(buf, sizeof buf, "SELECT $1, $2", 130010, err, sizeof err) && has(err, "PostgreSQL 13") &&
		      has(err, "($1...)"),
	      "explain_pg_sql: on 13, several parameters");
	CHECK(explain_pg_sql(buf, sizeof buf, "SELECT * FROM t WHERE id = $1 ;", 160000, err, sizeof err),
	      "explain_pg_sql: parameters on 16 planned");
	CHECK_STR(buf, "EXPLAIN (GENERIC_PLAN) SELECT * FROM t WHERE id = $1", "explain_pg_sql: GENERIC_PLAN, no ';'");
	CHECK(explain_pg_sql(buf, sizeof buf, "DELETE FROM t", 150000, err, sizeof err), "explain_pg_sql: plain");
	CHECK_STR(buf, "EXPLAIN (COSTS) DELETE FROM t", "explain_pg_sql: EXPLAIN with an option list, never ANALYZE");
	CHECK(explain_pg_sql(buf, sizeof buf, "ANALYZE SELECT 1", 150000, err, sizeof err) &&
		      strcmp(buf, "EXPLAIN (COSTS) ANALYZE SELECT 1") == 0,
	      "explain_pg_sql: a text starting ANALYZE follows the closed option list (a syntax error, never run)");
	/* a carriage return ends a -- comment for PostgreSQL: for the checker too */
	CHECK(!explain_text_ok("-- x\rANALYZE SELECT pg_terminate_backend(1) /*\nSELECT 1 */", err, sizeof err) &&
		      has(err, "ANALYZE statements"),
	      "explain: a -- comment ends at \\r as PostgreSQL reads it");
	static const struct {
		const char *q, *why;
	} unsafe[] = {
		{"SELECT 1\f", "control character 0x0c"},
		{"SELECT \x01 1", "control character 0x01"},
		{"SELECT 1 \x7f", "control character 0x7f"},
		{"SELECT U&\"t\\0061ble_to_xml\"('v', true, true, '')", "Unicode-escaped name"},
		{"SELECT u&\"x\" FROM t", "Unicode-escaped name"},
		{"SELECT * FROM t WHERE a = pg_catalog.TABLE_TO_XML('v', true, true, '')::text", "_to_xml"},
		{"SELECT schema_to_xmlschema('s', true, true, '')", "_to_xml"},
	};
	for (size_t i = 0; i < sizeof unsafe / sizeof unsafe[0]; i++) {
		err[0] = '\0';
		CHECK(!explain_pg_text_safe(unsafe[i].q, err, sizeof err) && has(err, unsafe[i].why),
		      tname("explain: unsafe text #%zu refused: %s", i, err));
	}
	CHECK(explain_pg_text_safe("SELECT 1\r\n\tFROM t -- ok\n", err, sizeof err) &&
		      explain_pg_text_safe("SELECT 'U&' || xml_col FROM t", err, sizeof err),
	      "explain: CR LF, tabs, a U& literal and xml names are planned");
	CHECK(!explain_pg_sql(buf, 16, "SELECT * FROM a_long_table_name", 150000, err, sizeof err) && has(err, "too long"),
	      "explain_pg_sql: a statement too long for the buffer");
}

/* --server-budget: a costly session read is reused, aged, until due. */
static void test_pace(void)
{
	struct source src;
	memset(&src, 0, sizeof src);
	src.budget_ms = 10;
	src.interval = 1;
	src.conn_gen = 1;
	CHECK(source_sessions_reuse(&src, 100, 100, false) == NULL, "pace: nothing read yet: read now");
	struct session_set *ss = session_set_new();
	struct session *s = session_add(ss, 5);
	s->state_s = 2;
	s->trx_age_s = NAN;
	s->query_s = 1;
	ss->query_ms = 20;
	/* 20 ms against 5 ms per refresh: every 4 s */
	source_sessions_read(&src, ss, 20, 100);
	CHECK(src.ss_last && src.ss_next > 103.8 && src.ss_next < 104, "pace: a 20 ms read is next due 4 s on");
	struct session_set *k = source_sessions_reuse(&src, 102, 102, false);
	CHECK(k && k->age_s == 2 && k->s[0].state_s == 4 && k->s[0].query_s == 3 && isnan(k->s[0].trx_age_s) &&
		      has(k->note, "list from 2.0 s ago") && has(k->note, "--server-budget"),
	      tname("pace: in between, the last list with its age, its times run on (%s)", k ? k->note : "none"));
	session_set_free(k);
	CHECK(!source_sessions_join(&src, 101.5) && source_sessions_join(&src, 102.0) && source_sessions_join(&src, 104),
	      "pace: beside a lock-graph read the list is read once half its 4 s have gone (not at 1.5 s, at 2 s, due)");
	CHECK(source_sessions_reuse(&src, 104, 104, false) == NULL, "pace: due: read again");
	k = source_sessions_reuse(&src, 104, 104, true);
	CHECK(k != NULL, "pace: just due but this refresh paid for another costly read: one more refresh");
	session_set_free(k);
	/* the refresh chose its reads at 103.7 (list not due) and ends at 104.3:
	 * the list is not read apart late in the refresh, its age runs to now */
	k = source_sessions_reuse(&src, 103.7, 104.3, false);
	CHECK(k && fabs(k->age_s - 4.3) < 1e-9, tname("pace: not due when the refresh chose: reused to its end, aged %.1f s",
							 k ? k->age_s : -1));
	session_set_free(k);
	src.conn_gen = 2;
	CHECK(source_sessions_reuse(&src, 102, 102, false) == NULL, "pace: nothing kept across a reconnection");
	source_sessions_read(&src, ss, 1, 105);
	CHECK(src.ss_last == NULL, "pace: a cheap read is not kept (read every refresh)");
	source_sessions_read(&src, ss, 20, 106);
	source_sessions_forget(&src);
	CHECK(src.ss_last == NULL && source_sessions_reuse(&src, 107, 107, false) == NULL, "pace: forgotten: read now");
	/* the first reads: the list's waits for its turn, unless it comes
	 * with the lock graph's first read (one costly refresh, not two) */
	src.stage_first = true;
	source_first_reads_begin(&src);
	src.conn_gen = 3;
	src.conn_samples = 1;
	CHECK(!source_sessions_join(&src, 108) && !source_sessions_due(&src, 108),
	      "pace: first frame: neither due nor joined");
	src.conn_samples = 2;
	k = source_sessions_reuse(&src, 108, 108, false);
	CHECK(k && k->status == SESS_NOT_READ && !source_sessions_due(&src, 108) && source_sessions_join(&src, 108),
	      "pace: the graph's first read: the list's first read may come with it, not on its own");
	session_set_free(k);
	source_sessions_read(&src, ss, 100, 108);
	src.conn_samples = 3;
	k = source_sessions_reuse(&src, 109, 109, false);
	CHECK(k && k->status != SESS_NOT_READ && k->age_s == 1 && !source_sessions_due(&src, 109) &&
		      !source_sessions_join(&src, 109),
	      "pace: read with the graph: the next refresh shows it (not 'first read' again), not due");
	session_set_free(k);
	src.conn_gen = 4;
	source_first_reads_begin(&src);
	src.conn_samples = 2;
	source_sessions_read(&src, ss, 1, 110);
	src.conn_samples = 3;
	CHECK(src.ss_last == NULL && source_sessions_reuse(&src, 111, 111, false) == NULL && source_sessions_due(&src, 111),
	      "pace: read early but cheap (not kept): read again, not 'first read'");
	src.stage_first = false;
	src.budget_ms = 0;
	source_sessions_read(&src, ss, 500, 110);
	CHECK(src.ss_last == NULL && source_sessions_reuse(&src, 111, 111, false) == NULL,
	      "pace: --server-budget 0: every refresh");
	session_set_free(ss);
}

/* The statement a confirmation shows is the one the backend runs: one
 * function writes both. */
static void test_act_sql(void)
{
	struct session_ident who = {.known = true, .query_id = 777};
	struct session_ident none = {.known = true};
	char b[64];
	session_act_sql(true, false, true, 42, &who, b, sizeof b);
	CHECK(strcmp(b, "pg_terminate_backend(42)") == 0, tname("act sql: PostgreSQL end (%s)", b));
	session_act_sql(true, false, false, 42, &who, b, sizeof b);
	CHECK(strcmp(b, "pg_cancel_backend(42)") == 0, tname("act sql: PostgreSQL cancel (%s)", b));
	session_act_sql(false, true, false, 42, &who, b, sizeof b);
	CHECK(strcmp(b, "KILL QUERY ID 777") == 0, tname("act sql: MariaDB cancel by the statement's QUERY_ID (%s)", b));
	session_act_sql(false, true, false, 42, &none, b, sizeof b);
	CHECK(strcmp(b, "KILL QUERY 42") == 0, tname("act sql: MariaDB cancel without a QUERY_ID (%s)", b));
	session_act_sql(false, true, true, 42, &who, b, sizeof b);
	CHECK(strcmp(b, "KILL 42") == 0, tname("act sql: MariaDB end (%s)", b));
	session_act_sql(false, false, false, 42, &who, b, sizeof b);
	CHECK(strcmp(b, "KILL QUERY 42") == 0, tname("act sql: MySQL cancel, no QUERY ID form (%s)", b));
}

int main(void)
{
	test_idle_unread();
	have_python = system("python3 -c 1 >/dev/null 2>&1") == 0;
	test_model();
	test_sort();
	test_link_locks();
	test_pg("sessions-pg-15.txt", 10902, 11155, 11156, 10878, 10880, 11496, "10:16385:1147616880456321454:t");
	test_pg("sessions-pg-18.txt", 11543, 11665, 11679, 11541, 11542, 11899, "10:16386:-3688696628780506391:t");
	test_mariadb();
	test_mysql8();
	test_json_none();
	test_explain_checks();
	test_act_sql();
	test_pace();
	return tap_failed ? 1 : 0;
}
