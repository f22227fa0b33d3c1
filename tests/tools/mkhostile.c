/* mkhostile.c - write recordings that attack the replay, for
 * tests/live/86_hostile_files.sh.
 *
 *   mkhostile time FILE huge|nan|back   8 samples one second apart; the
 *                                       second's monotonic time is 1e12 s,
 *                                       NaN, or 1e6 s before the start
 *   mkhostile churn FILE SAMPLES KEYS   SAMPLES samples, each with KEYS
 *                                       statement digests never seen before
 *                                       (a server whose statements never
 *                                       repeat)
 *
 * Written through the recording API, as dbtop writes a MariaDB recording.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../model/digests.h"
#include "../../record/record.h"
#include "../../util/util.h"

#define START_WALL 1795978800.0   /* 2026-11-29 19:00:00 UTC */

static void sample_at(struct sample *s, int i)
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
	sample_set(s, CTR_COMMITS, 100000 + 250 * k, 1);
	sample_set(s, CTR_FSYNCS, 200000 + 500 * k, 1);
	sample_set(s, CTR_REDO_FSYNCS, 100000 + 250 * k, 1);
	sample_set(s, CTR_BINLOG_FSYNCS, 100000 + 250 * k, 1);
}

/* KEYS digests new in sample i: keys and texts of their own. */
static void churn_digests(struct sample *s, int i, int keys)
{
	s->digests = xcalloc(1, sizeof *s->digests);
	for (int d = 0; d < keys; d++) {
		struct digest_row *r = digest_set_add(s->digests);
		char text[200];
		str_printf(r->key, sizeof r->key, "%08x%08x%016x", (unsigned)i, (unsigned)d, (unsigned)(i * 7919 + d));
		str_copy(r->schema, sizeof r->schema, "app");
		str_printf(text, sizeof text, "SELECT `c`, `v` FROM `app`.`t_%d_%d` WHERE `id` = ? AND `k` = ? ORDER BY `v`",
			   i, d);
		r->text = xstrdup(text);
		r->c[DG_CALLS] = 1 + (uint64_t)(d % 5);
		r->c[DG_TOTAL_NS] = 250000 * r->c[DG_CALLS];
		r->c[DG_ROWS] = r->c[DG_CALLS];
		r->have = (1u << DG_CALLS) | (1u << DG_TOTAL_NS) | (1u << DG_ROWS);
		r->epoch = 1;
		r->first_seen = s->wall - 0.5;
		r->last_seen = s->wall;
	}
	s->digests->partial = true;
}

static int open_rec(struct recorder *r, const char *path, char *err, size_t elen)
{
	struct rec_header h;
	struct caps c;
	memset(&h, 0, sizeof h);
	str_copy(h.engine, sizeof h.engine, "mariadb");
	str_copy(h.server_version, sizeof h.server_version, "10.11.6-MariaDB");
	str_copy(h.host, sizeof h.host, "hostile:3306");
	str_copy(h.dbtop_version, sizeof h.dbtop_version, "test");
	h.start_wall = START_WALL;
	h.interval = 1;
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_MYSQL;
	c.flavour = FLAVOUR_MARIADB;
	str_copy(c.version, sizeof c.version, "10.11.6-MariaDB");
	c.version_num = 101106;
	c.perf_schema = c.ps_readable = c.ps_digests = true;
	c.priv_process = true;
	unlink(path);
	if (rec_open_write(r, path, &h, false, err, elen) < 0 || rec_write_caps(r, &c, 1, err, elen) < 0)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct recorder r;
	char err[256];
	struct sample *s = xmalloc(sizeof *s);
	bool churn = argc == 5 && strcmp(argv[1], "churn") == 0;
	if (!churn && !(argc == 4 && strcmp(argv[1], "time") == 0)) {
		fprintf(stderr, "usage: mkhostile time FILE huge|nan|back | mkhostile churn FILE SAMPLES KEYS\n");
		return 2;
	}
	int n = churn ? atoi(argv[3]) : 8, keys = churn ? atoi(argv[4]) : 0;
	if (open_rec(&r, argv[2], err, sizeof err) < 0) {
		fprintf(stderr, "mkhostile: %s\n", err);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		sample_at(s, i);
		if (churn)
			churn_digests(s, i, keys);
		else if (i == 1)
			s->mono = strcmp(argv[3], "nan") == 0 ? NAN : strcmp(argv[3], "back") == 0 ? -1e6 : 1e12;
		if (rec_write_sample(&r, s, err, sizeof err) < 0) {
			fprintf(stderr, "mkhostile: %s\n", err);
			return 1;
		}
		sample_release(s);
	}
	rec_close(&r);
	free(s);
	return 0;
}
