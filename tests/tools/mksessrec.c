/* mksessrec.c - write a recording with session lists, for the sessions
 * screen's goldens.
 *
 *   mksessrec FILE
 *
 * A PostgreSQL 15 server (format of docs/recording.md), 8 UP samples one
 * second apart with growing commit and WAL counters, each carrying the
 * same session list as a busy server at 3 am has it: 50 idle sessions, 10
 * active ones (two waiting on I/O), a transaction idle for 5 minutes that
 * holds a row lock, 3 sessions waiting for that lock (the first for the
 * holder, the others queued behind it), 4 background processes and dbtop's
 * own connection; times grow by a second a sample. The lock graph of the
 * same moment comes with every sample, so the details show the locks. The
 * markers the tests look for: the holder is session 4242, its statement
 * "UPDATE accounts SET balance"; the waiters are 5001-5003; the active
 * sessions 3000-3009 run "SELECT ... FROM orders" with digest 10:16384:777:t.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../record/record.h"
#include "../../util/util.h"

#define START_WALL 1795978800.0   /* 2026-11-29 19:00:00 UTC */
#define START_US 1795978000000000LL

static void die(const char *what, const char *err)
{
	fprintf(stderr, "mksessrec: %s: %s\n", what, err);
	exit(1);
}

static void caps_fill(struct caps *c)
{
	memset(c, 0, sizeof *c);
	c->engine = ENGINE_POSTGRESQL;
	c->flavour = FLAVOUR_POSTGRESQL;
	str_copy(c->version, sizeof c->version, "15.18");
	c->version_num = 150018;
	c->pg_monitor = true;
	str_copy(c->commit_source, sizeof c->commit_source, "pg_stat_database.xact_commit");
}

static struct session *sess(struct session_set *ss, long long id, enum session_class cls, const char *user,
			    const char *app, const char *state, const char *wait, double state_s, double trx_s,
			    const char *q, int t)
{
	struct session *s = session_add(ss, id);
	s->cls = cls;
	str_copy(s->user, sizeof s->user, user);
	str_copy(s->db, sizeof s->db, cls == SC_BACKGROUND ? "" : "shop");
	if (cls != SC_BACKGROUND)
		str_printf(s->client, sizeof s->client, "10.0.%lld.%lld:%lld", id / 250 % 250, id % 250, 40000 + id % 20000);
	str_copy(s->app, sizeof s->app, app);
	str_copy(s->type, sizeof s->type, cls == SC_BACKGROUND ? app : "client backend");
	str_copy(s->state, sizeof s->state, state);
	str_copy(s->wait, sizeof s->wait, wait);
	s->state_s = isfinite(state_s) ? state_s + t : NAN;
	s->trx_age_s = isfinite(trx_s) ? trx_s + t : NAN;
	s->query_s = s->state_s;
	s->ident.known = cls != SC_BACKGROUND;
	s->ident.start_us = START_US + id * 1000;
	if (q)
		session_set_query(s, q, cls == SC_IDLE || cls == SC_IDLE_IN_TRX);
	return s;
}

static struct session_set *sessions_at(int t)
{
	struct session_set *ss = session_set_new();
	ss->status = SESS_OK;
	ss->query_ms = 2.5;
	for (int i = 0; i < 50; i++)
		sess(ss, 1000 + i, SC_IDLE, i % 3 ? "web" : "batch", i % 3 ? "puma" : "sidekiq", "idle", "Client:ClientRead",
		     30.0 + i * 7, NAN, "SELECT id, name FROM customers WHERE id = $1", t);
	for (int i = 0; i < 10; i++) {
		struct session *s = sess(ss, 3000 + i, SC_ACTIVE, "web", "puma", "active",
					 i < 2 ? "IO:DataFileRead" : "", 0.2 + i * 0.9, 0.3 + i * 0.9,
					 "SELECT o.id, o.total, c.name FROM orders o JOIN customers c ON c.id = o.customer_id "
					 "WHERE o.created_at > now() - interval '1 day' ORDER BY o.total DESC LIMIT 50",
					 t);
		str_copy(s->digest, sizeof s->digest, "10:16384:777:t");
	}
	struct session *h = sess(ss, 4242, SC_IDLE_IN_TRX, "batch", "nightly-report", "idle in transaction",
				 "Client:ClientRead", 300, 305,
				 "UPDATE accounts SET balance = balance - 100 WHERE id = 42", t);
	h->ident.xact_us = START_US + 10;
	for (int i = 0; i < 3; i++) {
		struct session *w = sess(ss, 5001 + i, SC_LOCK_WAIT, "web", "puma", "active",
					 i ? "Lock:tuple" : "Lock:transactionid", 12.0 - i * 3, 12.5 - i * 3,
					 "UPDATE accounts SET balance = balance + 1 WHERE id = 42", t);
		w->blocked_by = i ? 5001 : 4242;
		w->nblockers = 1;
		w->ident.xact_us = START_US + 20 + i;
	}
	static const char *const bg[] = {"checkpointer", "walwriter", "autovacuum launcher", "background writer"};
	for (int i = 0; i < 4; i++)
		sess(ss, 20 + i, SC_BACKGROUND, "", bg[i], "", i == 1 ? "Activity:WalWriterMain" : "", NAN, NAN, NULL, t);
	struct session *me = sess(ss, 6000, SC_ACTIVE, "dbtop_mon", "dbtop", "active", "", 0, 0,
				  "SELECT a.pid, a.usename FROM pg_stat_activity a", t);
	me->self = true;
	return ss;
}

static struct lock_set *locks_at(int t)
{
	struct lock_set *ls = lock_set_new();
	ls->status = LOCKS_READ;
	ls->waiting = 3;
	ls->query_ms = 1.2;
	int hi = lock_session_get(ls, 4242);
	str_copy(ls->s[hi].user, sizeof ls->s[hi].user, "batch");
	str_copy(ls->s[hi].state, sizeof ls->s[hi].state, "idle in transaction");
	ls->s[hi].state_s = 300 + t;
	ls->s[hi].trx_age_s = 305 + t;
	lock_session_query(&ls->s[hi], "UPDATE accounts SET balance = balance - 100 WHERE id = 42", true);
	for (int i = 0; i < 3; i++) {
		long long b = i ? 5001 : 4242;
		struct lock_edge *e = lock_edge_add(ls, 5001 + i, b);
		int wi = lock_session_get(ls, 5001 + i);
		str_copy(ls->s[wi].user, sizeof ls->s[wi].user, "web");
		str_copy(ls->s[wi].state, sizeof ls->s[wi].state, "active");
		ls->s[wi].wait_s = 12.0 - i * 3 + t;
		ls->s[wi].state_s = 12.0 - i * 3 + t;
		ls->s[wi].trx_age_s = 12.5 - i * 3 + t;
		lock_session_query(&ls->s[wi], "UPDATE accounts SET balance = balance + 1 WHERE id = 42", false);
		str_copy(e->object, sizeof e->object, "public.accounts");
		str_copy(e->lock_type, sizeof e->lock_type, i ? "tuple" : "transactionid");
		str_copy(e->requested, sizeof e->requested, i ? "ExclusiveLock" : "ShareLock");
		str_copy(e->held, sizeof e->held, "ExclusiveLock");
		str_copy(e->lock_data, sizeof e->lock_data, i ? "ctid (0,42)" : "transaction 9001");
	}
	lock_set_analyse(ls);
	return ls;
}

static void up_sample(struct sample *s, int i)
{
	uint64_t k = (uint64_t)i;
	memset(s, 0, sizeof *s);
	s->mono = 5000.0 + i;
	s->wall = START_WALL + i;
	s->state = STATE_UP;
	s->conn_gen = 1;
	s->uptime_s = 86400 + i;
	s->query_ms = 3.0;
	s->nqueries = 4;
	sample_set(s, CTR_COMMITS, 100000 + 120 * k, 1);
	sample_set(s, CTR_ROLLBACKS, 50 + k, 1);
	sample_set(s, CTR_FSYNCS, 200000 + 60 * k, 1);
	sample_set(s, CTR_WAL_RECORDS, 900000 + 800 * k, 1);
	sample_set(s, CTR_WAL_BYTES, 500000000 + 400000 * k, 1);
	s->sessions = sessions_at(i);
	s->locks = locks_at(i);
}

int main(int argc, char **argv)
{
	struct recorder r;
	struct rec_header h;
	struct caps *c = xcalloc(1, sizeof *c);
	struct sample *s = xcalloc(1, sizeof *s);
	char err[256];

	if (argc != 2) {
		fprintf(stderr, "usage: mksessrec FILE\n");
		return 2;
	}
	memset(&h, 0, sizeof h);
	str_copy(h.engine, sizeof h.engine, "postgresql");
	str_copy(h.server_version, sizeof h.server_version, "15.18");
	str_copy(h.host, sizeof h.host, "db-prod-3:5432");
	str_copy(h.dbtop_version, sizeof h.dbtop_version, "mksessrec");
	h.start_wall = START_WALL;
	h.interval = 1;
	if (rec_open_write(&r, argv[1], &h, false, err, sizeof err) < 0)
		die(argv[1], err);
	caps_fill(c);
	if (rec_write_caps(&r, c, 1, err, sizeof err) < 0)
		die(argv[1], err);
	for (int i = 0; i < 8; i++) {
		up_sample(s, i);
		if (rec_write_sample(&r, s, err, sizeof err) < 0)
			die(argv[1], err);
		sample_release(s);
	}
	rec_close(&r);
	free(c);
	free(s);
	return 0;
}
