/* mkhour.c - write a long synthetic MariaDB recording, for the history
 * bench (bench/history.sh).
 *
 *   mkhour FILE [SECONDS [DIGESTS]]
 *
 * SECONDS samples (default 3600) one second apart, each with DIGESTS
 * statement digests (default 1000; a fifth of them run in any second, so
 * their counters move), the durability settings every 10 s, and a lock
 * chain for the first 10 s of every minute (a root idle in its
 * transaction, a waiter, and a waiter on the waiter). Written through the
 * recording API, as dbtop writes it (digest rows change-only).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/digests.h"
#include "../../model/locks.h"
#include "../../record/record.h"
#include "../../util/util.h"

#define START_WALL 1795978800.0   /* 2026-11-29 19:00:00 UTC */

static void sample_at(struct sample *s, int i, int ndig)
{
	uint64_t k = (uint64_t)i;
	memset(s, 0, sizeof *s);
	s->mono = 5000.0 + i;
	s->wall = START_WALL + i;
	s->state = STATE_UP;
	s->conn_gen = 1;
	s->uptime_s = 7200 + i;
	s->query_ms = 2.5;
	s->nqueries = 6;
	sample_set(s, CTR_COMMITS, 100000 + 250 * k + k % 7 * 3, 1);
	sample_set(s, CTR_ROLLBACKS, 50 + k, 1);
	sample_set(s, CTR_FSYNCS, 200000 + 500 * k, 1);
	sample_set(s, CTR_COM_COMMIT, 1000 + 10 * k, 1);
	sample_set(s, CTR_HANDLER_COMMIT, 300000 + 260 * k, 1);
	sample_set(s, CTR_REDO_FSYNCS, 100000 + 250 * k, 1);
	sample_set(s, CTR_BINLOG_COMMITS, 100000 + 250 * k, 1);
	sample_set(s, CTR_BINLOG_GROUP_COMMITS, 100000 + 250 * k, 1);
	sample_set(s, CTR_BINLOG_FSYNCS, 100000 + 250 * k, 1);
	sample_set(s, CTR_DATA_FSYNCS, 9000 + 5 * k, 1);
	sample_set(s, CTR_REDO_WRITES, 100000 + 250 * k, 1);
	sample_set(s, CTR_REDO_BYTES, 50000000 + 256000 * k, 1);
	if (i % 10 == 0) {
		s->settings_fresh = true;
		sample_setting(s, "innodb_flush_log_at_trx_commit", i / 600 % 2 ? "2" : "1");
		sample_setting(s, "log_bin", "ON");
		sample_setting(s, "sync_binlog", "1");
	}
	s->digests = xcalloc(1, sizeof *s->digests);
	for (int d = 0; d < ndig; d++) {
		struct digest_row *r = digest_set_add(s->digests);
		/* digest d runs in seconds where (i + d) % 5 == 0: its calls so far */
		uint64_t runs = (k + (uint64_t)(5 - d % 5)) / 5;
		char text[160];
		str_printf(r->key, sizeof r->key, "%032x", (unsigned)d * 2654435761u);
		str_copy(r->schema, sizeof r->schema, "app");
		str_printf(text, sizeof text, "SELECT `c%d`, `v` FROM `app`.`t%d` WHERE `id` = ? AND `k` IN (...)", d % 100,
			   d / 100);
		r->text = xstrdup(text);
		r->c[DG_CALLS] = runs * (uint64_t)(1 + d % 13);
		r->c[DG_TOTAL_NS] = runs * (uint64_t)(1 + d % 13) * 250000 * (uint64_t)(1 + d % 7);
		r->c[DG_ROWS_EXAMINED] = runs * 10;
		r->c[DG_ROWS] = runs;
		r->have = (1u << DG_CALLS) | (1u << DG_TOTAL_NS) | (1u << DG_ROWS_EXAMINED) | (1u << DG_ROWS);
		r->epoch = 1;
		r->first_seen = START_WALL - 3600;
		r->last_seen = s->wall;
	}
	s->locks = lock_set_new();
	if (i % 60 < 10) {
		struct lock_set *ls = s->locks;
		ls->status = LOCKS_READ;
		ls->waiting = 2;
		ls->query_ms = 1.5;
		struct lock_edge *e = lock_edge_add(ls, 102, 101);
		str_copy(e->object, sizeof e->object, "app.t1.PRIMARY");
		str_copy(e->lock_type, sizeof e->lock_type, "RECORD");
		str_copy(e->requested, sizeof e->requested, "X");
		str_copy(e->held, sizeof e->held, "X");
		e = lock_edge_add(ls, 103, 102);
		str_copy(e->object, sizeof e->object, "app.t1.PRIMARY");
		str_copy(e->lock_type, sizeof e->lock_type, "RECORD");
		str_copy(e->requested, sizeof e->requested, "X");
		str_copy(e->held, sizeof e->held, "X");
		struct lock_session *root = &ls->s[lock_session_get(ls, 101)];
		str_copy(root->user, sizeof root->user, "app");
		str_copy(root->state, sizeof root->state, "Sleep");
		root->trx_age_s = i % 60 + 5;
		lock_session_query(root, "UPDATE t1 SET v = v + 1 WHERE id = 1", true);
		for (long long id = 102; id <= 103; id++) {
			struct lock_session *w = &ls->s[lock_session_get(ls, id)];
			str_copy(w->user, sizeof w->user, "app");
			str_copy(w->state, sizeof w->state, "Query");
			w->wait_s = i % 60 + 1;
			lock_session_query(w, "UPDATE t1 SET v = v + 1 WHERE id = 1", false);
		}
		lock_set_analyse(ls);
	}
}

int main(int argc, char **argv)
{
	struct recorder r;
	struct rec_header h;
	struct caps c;
	char err[256];
	int n = argc > 2 ? atoi(argv[2]) : 3600, ndig = argc > 3 ? atoi(argv[3]) : 1000;
	struct sample *s = xmalloc(sizeof *s);

	if (argc < 2 || n < 2 || ndig < 0) {
		fprintf(stderr, "usage: mkhour FILE [SECONDS [DIGESTS]]\n");
		return 2;
	}
	memset(&h, 0, sizeof h);
	str_copy(h.engine, sizeof h.engine, "mariadb");
	str_copy(h.server_version, sizeof h.server_version, "10.11.6-MariaDB");
	str_copy(h.host, sizeof h.host, "bench-hour:3306");
	str_copy(h.dbtop_version, sizeof h.dbtop_version, "bench");
	h.start_wall = START_WALL;
	h.interval = 1;
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_MYSQL;
	c.flavour = FLAVOUR_MARIADB;
	str_copy(c.version, sizeof c.version, "10.11.6-MariaDB");
	c.version_num = 101106;
	c.perf_schema = true;
	c.ps_readable = true;
	c.ps_digests = true;
	c.has_os_log_fsyncs = true;
	c.binlog_on = true;
	c.priv_process = true;
	if (rec_open_write(&r, argv[1], &h, false, err, sizeof err) < 0 || rec_write_caps(&r, &c, 1, err, sizeof err) < 0) {
		fprintf(stderr, "mkhour: %s\n", err);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		sample_at(s, i, ndig);
		if (rec_write_sample(&r, s, err, sizeof err) < 0) {
			fprintf(stderr, "mkhour: %s\n", err);
			return 1;
		}
		sample_release(s);
	}
	rec_close(&r);
	free(s);
	return 0;
}
