/* test_locks.c - lock-wait snapshots: roots, depths, cycles, counts, tree
 * rows, many-to-many waits, sanitising, and the cost at 500 waiters. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../model/digests.h"

#include "../../model/locks.h"
#include "../../record/record.h"
#include "../../core/sample.h"
#include "../../util/util.h"
#include "tap.h"

static struct lock_edge *edge(struct lock_set *ls, long long w, long long b, const char *req, const char *held)
{
	struct lock_edge *e = lock_edge_add(ls, w, b);
	if (e) {
		str_copy(e->requested, sizeof e->requested, req);
		str_copy(e->held, sizeof e->held, held);
		str_copy(e->object, sizeof e->object, "retoday.website.PRIMARY");
	}
	return e;
}

static const struct lock_session *sess(const struct lock_set *ls, long long id)
{
	for (size_t i = 0; i < ls->ns; i++)
		if (ls->s[i].id == id)
			return &ls->s[i];
	return NULL;
}

static void test_chain(void)
{
	struct lock_set *ls = lock_set_new();
	/* 30 <- 20 <- 10 (10 waits for 20, which waits for 30), 11 also waits for 30 */
	edge(ls, 10, 20, "X", "X");
	edge(ls, 20, 30, "X,GAP,INSERT_INTENTION", "X,GAP");
	edge(ls, 11, 30, "S", "X");
	CHECK(lock_edge_add(ls, 5, 5) == NULL, "self edge refused");
	lock_set_analyse(ls);
	const struct lock_session *r = sess(ls, 30), *a = sess(ls, 20), *b = sess(ls, 10), *c = sess(ls, 11);
	CHECK(ls->ns == 4 && ls->ne == 3, "chain: 4 sessions, 3 edges");
	CHECK(r && r->is_root && !r->waits && r->blocks, "chain: 30 is the root");
	CHECK(r && r->blocked == 3, "chain: root blocks 3 sessions transitively");
	CHECK(a && !a->is_root && a->depth == 1 && a->root == (int)(r - ls->s), "chain: 20 at depth 1 under 30");
	CHECK(b && b->depth == 2, "chain: 10 at depth 2");
	CHECK(c && c->depth == 1, "chain: 11 at depth 1");
	CHECK(ls->nroots == 1 && ls->ncycles == 0, "chain: one root, no cycle");
	struct lock_row *rows;
	size_t n = lock_tree_rows(ls, &rows);
	CHECK(n == 4, "chain tree: 4 rows");
	CHECK(n == 4 && ls->s[rows[0].session].id == 30 && rows[0].edge == -1 && rows[0].depth == 0,
	      "chain tree: root first");
	/* waiters ordered by wait time: give none -> by id: 11 before 20 */
	CHECK(n == 4 && ls->s[rows[1].session].id == 11 && rows[1].depth == 1, "chain tree: 11 (lower id) next");
	CHECK(n == 4 && ls->s[rows[2].session].id == 20 && ls->s[rows[3].session].id == 10 && rows[3].depth == 2,
	      "chain tree: 20 then its waiter 10 indented twice");
	for (size_t k = 0; k < ls->ne; k++)
		if (ls->e[k].waiter == (int)(b - ls->s))
			CHECK(ls->e[k].depth == 2 && ls->e[k].root == (int)(r - ls->s), "chain: edge of 10 has depth 2, root 30");
	free(rows);
	lock_set_free(ls);
}

static void test_wait_order_and_roots(void)
{
	struct lock_set *ls = lock_set_new();
	edge(ls, 1, 100, "X", "X");
	edge(ls, 2, 100, "X", "X");
	edge(ls, 3, 200, "X", "X");
	ls->s[lock_session_get(ls, 1)].wait_s = 1.0;
	ls->s[lock_session_get(ls, 2)].wait_s = 9.0;
	ls->s[lock_session_get(ls, 200)].trx_age_s = 500;
	lock_set_analyse(ls);
	struct lock_row *rows;
	size_t n = lock_tree_rows(ls, &rows);
	CHECK(ls->nroots == 2, "two roots");
	CHECK(n == 5 && ls->s[rows[0].session].id == 100, "root blocking most sessions first");
	CHECK(n == 5 && ls->s[rows[1].session].id == 2 && ls->s[rows[2].session].id == 1,
	      "longest waiter first under its blocker");
	CHECK(n == 5 && ls->s[rows[3].session].id == 200, "second root after the first's subtree");
	free(rows);
	lock_set_free(ls);
}

static void test_many_to_many(void)
{
	struct lock_set *ls = lock_set_new();
	/* 7 waits on both 8 and 9; 8 and 9 are roots */
	edge(ls, 7, 8, "X", "S");
	edge(ls, 7, 9, "X", "S");
	edge(ls, 6, 9, "S", "X");
	lock_set_analyse(ls);
	CHECK(ls->nroots == 2, "many-to-many: two roots");
	CHECK(sess(ls, 8)->blocked == 1 && sess(ls, 9)->blocked == 2, "many-to-many: each root counts its waiters");
	struct lock_row *rows;
	size_t n = lock_tree_rows(ls, &rows);
	int seven = 0, repeats = 0;
	for (size_t i = 0; i < n; i++) {
		if (ls->s[rows[i].session].id == 7)
			seven++;
		repeats += rows[i].repeat;
	}
	CHECK(seven == 2 && repeats == 1, "many-to-many: waiter listed under both roots, expanded once");
	free(rows);
	lock_set_free(ls);
}

static void test_cycle(void)
{
	struct lock_set *ls = lock_set_new();
	/* deadlock 1 <-> 2, and 3 waits on 1 */
	edge(ls, 1, 2, "X", "X");
	edge(ls, 2, 1, "X", "X");
	edge(ls, 3, 1, "S", "X");
	ls->s[lock_session_get(ls, 2)].trx_age_s = 60;
	ls->s[lock_session_get(ls, 1)].trx_age_s = 30;
	lock_set_analyse(ls);
	CHECK(ls->ncycles == 2, "cycle: two sessions on it");
	CHECK(sess(ls, 1)->in_cycle && sess(ls, 2)->in_cycle && !sess(ls, 3)->in_cycle, "cycle: members flagged");
	CHECK(ls->nroots == 1 && sess(ls, 2)->is_root, "cycle: oldest transaction heads it");
	CHECK(sess(ls, 2)->blocked == 2, "cycle: head blocks the other member and its waiter");
	int cyc = 0;
	for (size_t k = 0; k < ls->ne; k++)
		cyc += ls->e[k].cycle;
	CHECK(cyc == 2, "cycle: the two cycle edges flagged, not the third");
	struct lock_row *rows;
	size_t n = lock_tree_rows(ls, &rows);
	CHECK(n == 4 && rows[2].repeat && ls->s[rows[2].session].id == 2 && rows[2].depth == 2 && !rows[3].repeat &&
		      ls->s[rows[3].session].id == 3,
	      "cycle tree: head shows again (not expanded) under the member it blocks, closing the loop");
	free(rows);
	lock_set_free(ls);
}

static void test_empty_and_copy(void)
{
	struct lock_set *ls = lock_set_new();
	lock_set_analyse(ls);
	struct lock_row *rows;
	CHECK(lock_tree_rows(ls, &rows) == 0 && ls->nroots == 0, "empty set: no rows, no roots");
	free(rows);
	edge(ls, 1, 2, "X", "X");
	int i = lock_session_get(ls, 2);
	lock_session_query(&ls->s[i], "UPDATE t SET a=1\x1b]0;pwned\x07 WHERE id=\x9b" "2J 5", true);
	CHECK(ls->s[i].query && !strchr(ls->s[i].query, 0x1b) && !strchr(ls->s[i].query, 0x07),
	      "query text sanitised: no ESC, no BEL");
	struct lock_set *c = lock_set_copy(ls);
	CHECK(c->ns == 2 && c->ne == 1 && c->s[i].query != ls->s[i].query && strcmp(c->s[i].query, ls->s[i].query) == 0,
	      "copy: deep copy of sessions and query");
	lock_set_free(c);
	char big[5000];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	big[LOCK_QUERY_MAX - 2] = (char)0xc3;
	big[LOCK_QUERY_MAX - 1] = (char)0xa9;
	lock_session_query(&ls->s[i], big, false);
	CHECK(strlen(ls->s[i].query) < LOCK_QUERY_MAX && strlen(ls->s[i].query) >= LOCK_QUERY_MAX - 3,
	      "long query cut below LOCK_QUERY_MAX");
	CHECK(!strchr(ls->s[i].query, '?'), "cut falls before a UTF-8 sequence, not inside it");
	lock_session_query(&ls->s[i], NULL, false);
	CHECK(ls->s[i].query == NULL, "NULL query clears");
	lock_set_free(ls);
}

static void test_state_text(void)
{
	struct lock_set *ls = lock_set_new();
	int si = lock_session_get(ls, 1);
	struct lock_session *s = &ls->s[si];
	char t[64];
	lock_state_text(s, t, sizeof t);
	CHECK_STR(t, "?", "state unknown");
	str_copy(s->state, sizeof s->state, "idle in transaction");
	s->state_s = 42.4;
	lock_state_text(s, t, sizeof t);
	CHECK_STR(t, "idle in transaction 42s", "state with seconds");
	s->state_s = 3.21;
	lock_state_text(s, t, sizeof t);
	CHECK_STR(t, "idle in transaction 3.2s", "state with tenths under 10 s");
	s->state_s = 725;
	lock_state_text(s, t, sizeof t);
	CHECK_STR(t, "idle in transaction 12m05s", "state in minutes");
	s->state_s = 3 * 3600 + 7 * 60;
	lock_state_text(s, t, sizeof t);
	CHECK_STR(t, "idle in transaction 3h07m", "state in hours");
	lock_set_free(ls);
}

/* 500 sessions waiting: a root with 100 direct waiters, each with 4 below it,
 * plus cross edges. Analysis and tree rows well under the 5 ms budget (the
 * budget is checked in bench/, this guards against quadratic blow-ups). */
static void test_scale(void)
{
	struct lock_set *ls = lock_set_new();
	for (int i = 0; i < 100; i++) {
		edge(ls, 1000 + i, 1, "X", "X");
		for (int j = 0; j < 4; j++)
			edge(ls, 2000 + i * 4 + j, 1000 + i, "X", "X");
		edge(ls, 2000 + i * 4, 1000 + (i + 1) % 100, "X", "X");
	}
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	lock_set_analyse(ls);
	struct lock_row *rows;
	size_t n = lock_tree_rows(ls, &rows);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	printf("# 501 sessions, %zu edges: analyse + tree rows %.3f ms\n", ls->ne, ms);
	CHECK(ls->nroots == 1 && sess(ls, 1)->blocked == 500, "scale: one root blocking 500 sessions");
	CHECK(n == 1 + ls->ne, "scale: a row per edge plus the root");
	CHECK(ms < 200, "scale: no quadratic blow-up (< 200 ms even under sanitizers)");
	free(rows);
	lock_set_free(ls);
}

/* Locks survive a recording: sessions, edges, status, note; the analysis
 * is redone on reading; --redact takes literals out of statements. */
static void test_record_roundtrip(void)
{
	for (int redact = 0; redact < 2; redact++) {
		char path[] = "/tmp/dbtop-test-locks-XXXXXX", err[256];
		int fd = mkstemp(path);
		struct rec_header h;
		memset(&h, 0, sizeof h);
		str_copy(h.engine, sizeof h.engine, "mysql");
		h.start_wall = 1e9;
		h.interval = 1;
		struct recorder r;
		struct sample smp;
		struct rec_reader rd;
		struct rec_item it;
		if (fd >= 0)
			close(fd);
		unlink(path);   /* a recording is always a new file */
		memset(&smp, 0, sizeof smp);
		smp.state = STATE_UP;
		smp.mono = 1;
		smp.wall = 1e9 + 1;
		smp.locks = lock_set_new();
		struct lock_set *ls = smp.locks;
		ls->status = LOCKS_READ;
		ls->waiting = 2;
		ls->query_ms = 1.25;
		str_copy(ls->note, sizeof ls->note, "only the first 5000 wait edges are shown");
		struct lock_edge *e = edge(ls, 10, 20, "X,GAP,INSERT_INTENTION", "X,GAP");
		e->soft = true;
		str_copy(e->lock_type, sizeof e->lock_type, "RECORD");
		str_copy(e->lock_data, sizeof e->lock_data, "supremum pseudo-record");
		edge(ls, 11, 20, "X", "X");
		int b = lock_session_get(ls, 20);
		str_copy(ls->s[b].user, sizeof ls->s[b].user, "app");
		str_copy(ls->s[b].state, sizeof ls->s[b].state, "idle in transaction");
		ls->s[b].state_s = 42;
		ls->s[b].trx_age_s = 43.5;
		lock_session_query(&ls->s[b], "INSERT INTO website VALUES ('secret-uuid', 'a.example', 1) ON DUPLICATE KEY UPDATE hits = hits + 1", true);
		ls->s[lock_session_get(ls, 10)].wait_s = 3.2;
		struct session_ident *bi = &ls->s[b].ident, *wi = &ls->s[lock_session_get(ls, 10)].ident;
		bi->known = true;
		str_copy(bi->trx_id, sizeof bi->trx_id, "4242");
		str_copy(bi->trx_started, sizeof bi->trx_started, "2026-12-01 14:12:48");
		bi->query_id = 77;
		wi->known = true;
		wi->start_us = 1796134368123456LL;
		wi->xact_us = 1796134369000001LL;
		wi->stmt_us = 1796134370000002LL;
		bool wrote = rec_open_write(&r, path, &h, redact, err, sizeof err) == 0 &&
			     rec_write_sample(&r, &smp, err, sizeof err) == 0;
		rec_close(&r);
		CHECK(wrote, redact ? "record: sample with locks written (redacted)" : "record: sample with locks written");
		bool read = rec_open_read(&rd, path, NULL, 0, err, sizeof err) == 0 && rec_next(&rd, &it) == 1 &&
			    it.type == REC_SAMPLE && it.sample.locks;
		CHECK(read, "record: sample with locks read back");
		if (read) {
			const struct lock_set *g = it.sample.locks;
			const struct lock_session *gb = sess(g, 20), *gw = sess(g, 10);
			CHECK(g->status == LOCKS_READ && g->waiting == 2 && g->query_ms == 1.25 &&
				      strcmp(g->note, ls->note) == 0,
			      "record: lock status, waiting, query time and note kept");
			CHECK(g->ns == 3 && g->ne == 2, "record: 3 sessions and 2 edges kept");
			CHECK(gb && strcmp(gb->user, "app") == 0 && strcmp(gb->state, "idle in transaction") == 0 &&
				      gb->state_s == 42 && gb->trx_age_s == 43.5 && gb->query_is_last,
			      "record: blocker fields kept");
			CHECK(gw && gw->wait_s == 3.2 && isnan(gw->trx_age_s), "record: waiter wait time kept, unknowns stay unknown");
			CHECK(g->ne == 2 && g->e[0].soft && strcmp(g->e[0].requested, "X,GAP,INSERT_INTENTION") == 0 &&
				      strcmp(g->e[0].held, "X,GAP") == 0 && strcmp(g->e[0].lock_type, "RECORD") == 0 &&
				      strcmp(g->e[0].lock_data, "supremum pseudo-record") == 0 &&
				      strcmp(g->e[0].object, "retoday.website.PRIMARY") == 0,
			      "record: edge fields kept");
			CHECK(g->nroots == 1 && gb && gb->is_root && gb->blocked == 2, "record: analysis redone on reading");
			CHECK(gb && gb->ident.known && strcmp(gb->ident.trx_id, "4242") == 0 &&
				      strcmp(gb->ident.trx_started, "2026-12-01 14:12:48") == 0 && gb->ident.query_id == 77 &&
				      gw && gw->ident.known && gw->ident.start_us == 1796134368123456LL &&
				      gw->ident.xact_us == 1796134369000001LL && gw->ident.stmt_us == 1796134370000002LL,
			      "record: the sessions' identity kept (what x / c check)");
			const struct lock_session *g11 = sess(g, 11);
			CHECK(g11 && !g11->ident.known, "record: a session without an identity has none after reading");
			if (redact)
				CHECK(gb && gb->query && !strstr(gb->query, "secret-uuid") && strstr(gb->query, "ON DUPLICATE KEY"),
				      "record: --redact takes the literals out of lock statements");
			else
				CHECK(gb && gb->query && strstr(gb->query, "secret-uuid"), "record: statement kept without --redact");
			lock_set_free(it.sample.locks);
			digest_set_free(it.sample.digests);
		}
		rec_reader_close(&rd);
		lock_set_free(smp.locks);
		unlink(path);
	}
}

/* A blocker's statement that sets a password is shown without it. */
static void test_query_secrets(void)
{
	struct lock_session s;
	memset(&s, 0, sizeof s);
	lock_session_query(&s, "ALTER USER app IDENTIFIED BY 'Sekr3t-pw_9931'", false);
	CHECK(s.query && !strstr(s.query, "Sekr3t") && strstr(s.query, "'***'"), "lock session query: IDENTIFIED BY secret masked");
	lock_session_query(&s, "ALTER ROLE app PASSWORD 'Sekr3t-pw_9931'", false);
	CHECK(s.query && !strstr(s.query, "Sekr3t"), "lock session query: PASSWORD secret masked");
	lock_session_query(&s, "UPDATE t SET v = 'Sekr3t' WHERE id = 1", false);
	CHECK(s.query && strstr(s.query, "Sekr3t"), "lock session query: other literals kept");
	free(s.query);
}

/* The wait time per second of MySQL / MariaDB's counter, bounded by the
 * sessions that could wait (a counter that grows only as a wait ends). */
static void test_wait_bounded(void)
{
	CHECK(lock_wait_ms_bounded(120, 0, 0, 40) == 120, "40 short waits begun and ended: the counter's 120 ms/s");
	CHECK(lock_wait_ms_bounded(0, 41, 41, 0) == 41000,
	      "41 sessions waiting on, no wait ended: 41,000 ms/s, not the counter's 0");
	CHECK(lock_wait_ms_bounded(5330000, 41, 0, 0) == 41000,
	      "the pile-up ends (5,330 s of waits at once): no more than 41 sessions could wait, 41,000 ms/s");
	CHECK(lock_wait_ms_bounded(1500, 2, 3, 2) == 1500, "within both bounds (1,000-4,000): the counter stands");
	CHECK(lock_wait_ms_bounded(0, 2, 3, 2) == 1000, "3 waiting now, 2 of them begun in it: at least 1 waited all of it");
	CHECK(lock_wait_ms_bounded(7000, NAN, NAN, NAN) == 7000, "counts not known: the counter as it is");
	CHECK(lock_wait_ms_bounded(7000, 1, 4, 0) == 4000,
	      "counts read apart (4 waiting, 1 before, none begun): the larger bound stands");
	CHECK(isnan(lock_wait_ms_bounded(NAN, 1, 1, 0)), "no rate: none");
}

int main(void)
{
	test_wait_bounded();
	test_query_secrets();
	test_chain();
	test_wait_order_and_roots();
	test_many_to_many();
	test_cycle();
	test_empty_and_copy();
	test_state_text();
	test_scale();
	test_record_roundtrip();
	return tap_failed ? 1 : 0;
}
