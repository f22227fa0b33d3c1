/* test_coverage.c - digest coverage (issue 25): statement totals from
 * tests/fixtures/stmts-prepared.txt through mysql_map_file and the model;
 * sampled estimates of the statements the digests miss scaled to the
 * measured time; dbtop's own statements out of the ranking and total. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/digests.h"
#include "../../model/model.h"
#include "../../sources/mysql_map.h"
#include "../../util/util.h"
#include "tap.h"

#include "fixture.h"

static char cname[256];
static const char *nm(const char *sec, const char *what)
{
	str_printf(cname, sizeof cname, "stmts-prepared %s: %s", sec, what);
	return cname;
}

/* A digest row: key, text, cumulative calls and time (ms), own. */
static void row(struct digest_set *s, const char *key, const char *text, uint64_t calls, double ms, bool own)
{
	struct digest_row *r = digest_set_add(s);
	str_copy(r->key, sizeof r->key, key);
	str_copy(r->schema, sizeof r->schema, "dbtop_test");
	r->text = xstrdup(text);
	r->c[DG_CALLS] = calls;
	r->c[DG_TOTAL_NS] = (uint64_t)(ms * 1e6);
	r->have = 1u << DG_CALLS | 1u << DG_TOTAL_NS;
	r->own = own;
}

/* Sample n of section base, with digests (owned by the caller). */
static void sample(struct sample *out, const struct caps *c, const struct fx *f, const char *base, int n,
		   struct digest_set *d)
{
	const struct fx_sec *s = fx_secn(f, base, n);
	memset(out, 0, sizeof *out);
	out->state = STATE_UP;
	out->mono = 100.0 + n;
	out->wall = 1764400000.0 + n;
	out->conn_gen = 1;
	for (int i = 0; s && i < s->nrows; i++)
		mysql_map_file(out, c, s->rows[i].cell[0], s->rows[i].cell[1], s->rows[i].cell[2]);
	/* dbtop's own thread: 4 statements per sample */
	sample_set(out, CTR_OWN_STMTS, 100 + 4 * (uint64_t)n, 0);
	out->digests = d;
}

/* Two samples of base; the digests of the interval have calls/s own
 * calls (dbtop's) and other calls of the workload. */
static void run(const struct fx *f, const char *base, enum flavour fl, struct model *m, uint64_t other,
		bool estimates)
{
	struct caps c;
	struct sample s;
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_MYSQL;
	c.flavour = fl;
	c.perf_schema = c.ps_readable = c.ps_digests = true;
	model_init(m, 8);
	model_set_caps(m, &c);
	for (int n = 1; n <= 2; n++) {
		struct digest_set *d = xcalloc(1, sizeof *d);
		str_copy(d->source, sizeof d->source, "performance_schema");
		row(d, "dbtop_test/own1", "SHOW GLOBAL STATUS WHERE `Variable_name` IN (...)", 10 + 4 * (uint64_t)n, 5.0 * n, true);
		row(d, "dbtop_test/commit", "COMMIT", 1000 + other * (uint64_t)n, 2.0 * (double)(other * (uint64_t)n), false);
		if (estimates && n == 2) {
			/* sessions sampled in COMMIT 6 s and UPDATE 2 s over the
			 * interval (sampling gives shares, not the sum) */
			row(d, "s:0000000000000001", "COMMIT", 5, 6000, false);
			row(d, "s:0000000000000002", "UPDATE sbtest1 SET k=k+? WHERE id=?", 3, 2000, false);
		} else if (estimates) {
			row(d, "s:0000000000000001", "COMMIT", 0, 0, false);
			row(d, "s:0000000000000002", "UPDATE sbtest1 SET k=k+? WHERE id=?", 0, 0, false);
		}
		sample(&s, &c, f, base, n, d);
		model_update(m, &s);
		digest_set_free(d);
	}
}

int main(void)
{
	struct fx f;
	struct model m;
	const struct digest_entry *top[8];
	size_t n;

	if (!fx_load(&f, "stmts-prepared.txt")) {
		CHECK(false, "stmts-prepared.txt loads");
		return TAP_DONE();
	}

	/* MariaDB, prepared: 1540 statements/s, 4 of them digested (dbtop's) */
	run(&f, "mariadb_ps", FLAVOUR_MARIADB, &m, 0, false);
	CHECK(m.cov.known, nm("mariadb_ps", "coverage known"));
	CHECK(fabs(m.cov.stmts_per_s - 1540) < 1e-6, nm("mariadb_ps", "1540 statement events/s"));
	CHECK(fabs(m.cov.exec_per_s - 1538) < 1e-6, nm("mariadb_ps", "1538 statement/com/Execute/s"));
	CHECK(fabs(m.cov.exec_ms_per_s - 15659.840309) < 1e-3, nm("mariadb_ps", "their time 15659.8 ms/s"));
	CHECK(m.cov.share < 0.01 && m.cov.share < DG_COVERAGE_LOW, nm("mariadb_ps", "share < 1 %: low"));
	CHECK(m.cov.reason && strstr(m.cov.reason, "prepared statements") && strstr(m.cov.reason, "MariaDB"),
	      nm("mariadb_ps", "the reason names prepared statements on MariaDB"));
	CHECK(fabs(m.cov.own_per_s - 4) < 1e-9, nm("mariadb_ps", "dbtop's own 4 statements/s (its thread)"));
	CHECK(m.cur[M_STMTS].st == RATE_OK && fabs(m.cur[M_STMTS].v - 1536) < 1e-6,
	      nm("mariadb_ps", "statements_per_s 1536: dbtop's own left out"));
	CHECK(m.cur[M_COMMIT_MS].st != RATE_OK, nm("mariadb_ps", "no COMMIT latency from statement/sql/commit"));
	n = digest_table_top(&m.dg, DGS_TOTAL, false, top, 8);
	CHECK(n == 0, nm("mariadb_ps", "dbtop's own digest is not ranked (nothing else ran)"));
	CHECK(m.dg.total_ms_per_s == 0 && fabs(m.dg.own_ms_per_s - 5) < 1e-9,
	      nm("mariadb_ps", "nor in the total; its 5 ms/s counted apart"));
	digest_table_show_own(&m.dg, true);
	n = digest_table_top(&m.dg, DGS_TOTAL, false, top, 8);
	CHECK(n == 1 && top[0]->last.own && fabs(m.dg.total_ms_per_s - 5) < 1e-9,
	      nm("mariadb_ps", "shown on request (o), and in the total then"));
	digest_table_show_own(&m.dg, false);
	CHECK(digest_table_top(&m.dg, DGS_TOTAL, false, top, 8) == 0, nm("mariadb_ps", "and hidden again"));
	model_free(&m);

	/* MariaDB, plain: 1038 statements/s, 168 COMMITs/s and the rest digested */
	run(&f, "mariadb_plain", FLAVOUR_MARIADB, &m, 1034, false);
	CHECK(m.cov.known && fabs(m.cov.share - 1.0) < 1e-9 && !m.cov.reason,
	      nm("mariadb_plain", "digests cover the statements: share 1, no reason"));
	CHECK(m.cov.exec_per_s == 0, nm("mariadb_plain", "no prepared statement ran"));
	model_free(&m);

	/* MySQL 8.0 (hand-written after its manual): the same gap */
	run(&f, "mysql80_ps", FLAVOUR_MYSQL, &m, 0, false);
	CHECK(m.cov.share < 0.01 && m.cov.reason && strstr(m.cov.reason, "not in the digest table"),
	      nm("mysql80_ps", "share < 1 %, prepared statements named"));
	model_free(&m);

	/* sampled estimates: their shares scaled to the measured Execute time */
	run(&f, "mariadb_ps", FLAVOUR_MARIADB, &m, 0, true);
	n = digest_table_top(&m.dg, DGS_TOTAL, false, top, 8);
	CHECK(n == 2 && digest_is_estimate(&m.dg, top[0]) && strcmp(top[0]->last.text, "COMMIT") == 0,
	      nm("mariadb_ps", "the sampled COMMIT leads, an estimate"));
	if (n == 2) {
		double sum = top[0]->rate[DG_TOTAL_NS] / 1e6 + top[1]->rate[DG_TOTAL_NS] / 1e6;
		CHECK(fabs(sum - 15659.840309) < 1e-2, nm("mariadb_ps", "the estimates add up to the measured Execute time"));
		CHECK(fabs(top[0]->rate[DG_TOTAL_NS] / 1e6 / sum - 0.75) < 1e-9, nm("mariadb_ps", "in the sampled shares (3:1)"));
		CHECK(isnan(top[0]->avg_ms) && isnan(top[1]->avg_ms), nm("mariadb_ps", "no average for an estimate"));
		CHECK(fabs(m.dg.total_ms_per_s - sum) < 1e-6, nm("mariadb_ps", "the total follows the scaled estimates"));
	}
	CHECK(fabs(m.est_scale - 15659.840309 / 8000) < 1e-6, nm("mariadb_ps", "scale factor = measured / sampled"));
	CHECK(m.cov.share < 0.01, nm("mariadb_ps", "estimates do not count as coverage"));
	model_free(&m);

	fx_free(&f);
	return TAP_DONE();
}
