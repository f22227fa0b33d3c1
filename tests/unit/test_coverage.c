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
#include "../../panes/pane.h"
#include "../../panes/pane_list.h"
#include "../../sources/mysql_map.h"
#include "../../util/util.h"
#include "tap.h"

#include "fixture.h"

#define GW 200
#define GH 14
#include "grid.h"

/* The digests pane w x h on the grid: the rows that hold what (one
 * string, the rows joined), how many rows they take. */
static int pane_rows(const struct model *m, int w, int h, const char *what, char *out, size_t len)
{
	struct canvas cv = grid(w, h);
	struct pane_view v;
	memset(&v, 0, sizeof v);
	digests_pane.draw(m, &v, &cv);
	int n = 0;
	out[0] = '\0';
	for (int y = 0; y < h; y++)
		if (roles[y][0] == R_WARN) {
			char row[GW + 1];
			str_printf(row, sizeof row, "%.*s", w, cells[y]);
			for (size_t k = strlen(row); k > 0 && row[k - 1] == ' '; k--)
				row[k - 1] = '\0';
			str_printf(out + strlen(out), len - strlen(out), "%s%s", n ? " " : "", row);
			n++;
		}
	return strstr(out, what) ? n : -n;
}

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

/* The sample this one's statement summary is left out of (paced: read
 * every few refreshes; 0: none). */
static int paced_sample;

/* Sample n of section base, with digests (owned by the caller). */
static void sample(struct sample *out, const struct caps *c, const struct fx *f, const char *base, int n,
		   struct digest_set *d)
{
	const struct fx_sec *s = n == paced_sample ? NULL : fx_secn(f, base, n);
	memset(out, 0, sizeof *out);
	out->ctr_paced = n == paced_sample;
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
 * calls (dbtop's) and other calls of the workload. With nsamples 3, a
 * third second in which the sessions were seen in the UPDATEs only (no
 * one in COMMIT) while the server counted the same statements. */
static void run(const struct fx *f, const char *base, enum flavour fl, struct model *m, uint64_t other,
		bool estimates, bool status, int nsamples)
{
	struct caps c;
	struct sample s;
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_MYSQL;
	c.flavour = fl;
	c.perf_schema = c.ps_readable = c.ps_digests = true;
	c.binlog_on = status;
	model_init(m, 8);
	model_set_caps(m, &c);
	for (int n = 1; n <= nsamples; n++) {
		struct digest_set *d = xcalloc(1, sizeof *d);
		str_copy(d->source, sizeof d->source, "performance_schema");
		row(d, "dbtop_test/own1", "SHOW GLOBAL STATUS WHERE `Variable_name` IN (...)", 10 + 4 * (uint64_t)n, 5.0 * n, true);
		row(d, "dbtop_test/commit", "COMMIT", 1000 + other * (uint64_t)n, 2.0 * (double)(other * (uint64_t)n), false);
		if (estimates && n >= 3) {
			row(d, "s:0000000000000001", "COMMIT", 5, 6000, false);
			row(d, "s:0000000000000002", "UPDATE sbtest1 SET k=k+? WHERE id=?", 6, 4000, false);
			if (status)
				row(d, "s:0000000000000003", "UPDATE sbtest1 SET c=? WHERE id=?", 2, 2000, false);
		} else if (estimates && n == 2) {
			/* sessions sampled in COMMIT 6 s and UPDATE 2 s over the
			 * interval (sampling gives shares, not the sum) */
			row(d, "s:0000000000000001", "COMMIT", 5, 6000, false);
			row(d, "s:0000000000000002", "UPDATE sbtest1 SET k=k+? WHERE id=?", 3, 2000, false);
			if (status)
				row(d, "s:0000000000000003", "UPDATE sbtest1 SET c=? WHERE id=?", 1, 1000, false);
		} else if (estimates) {
			row(d, "s:0000000000000001", "COMMIT", 0, 0, false);
			row(d, "s:0000000000000002", "UPDATE sbtest1 SET k=k+? WHERE id=?", 0, 0, false);
			if (status)
				row(d, "s:0000000000000003", "UPDATE sbtest1 SET c=? WHERE id=?", 0, 0, false);
		}
		sample(&s, &c, f, base, n, d);
		if (status) {
			/* what the server counts per second (a MariaDB 10.11 under
			 * sysbench --db-ps-mode=auto, log_bin=ON): 168 COMMITs and 336
			 * UPDATEs, 170 transactions, 340 syncs (redo in
			 * Innodb_data_fsyncs: MariaDB 10.8+ times none) */
			char v[32];
			static const struct {
				const char *name;
				uint64_t base, per_s;
			} st[] = {{"Com_commit", 5000, 168}, {"Com_update", 9000, 336}, {"Binlog_commits", 6000, 170},
				  {"Innodb_data_fsyncs", 7000, 340}, {"Com_select", 100, 4}};
			for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
				/* a paced full read: only the counts read by name
				 * (LIKE 'Binlog_%commits', LIKE 'Innodb_%') */
				if (n == paced_sample && strncmp(st[i].name, "Com_", 4) == 0)
					continue;
				str_printf(v, sizeof v, "%llu", (unsigned long long)(st[i].base + st[i].per_s * (uint64_t)n));
				mysql_map_status(&s, st[i].name, v, NULL);
			}
			mysql_map_finish(&s, &c, 1);
		}
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
	run(&f, "mariadb_ps", FLAVOUR_MARIADB, &m, 0, false, false, 2);
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
	run(&f, "mariadb_plain", FLAVOUR_MARIADB, &m, 1034, false, false, 2);
	CHECK(m.cov.known && fabs(m.cov.share - 1.0) < 1e-9 && !m.cov.reason,
	      nm("mariadb_plain", "digests cover the statements: share 1, no reason"));
	CHECK(m.cov.exec_per_s == 0, nm("mariadb_plain", "no prepared statement ran"));
	model_free(&m);

	/* MySQL 8.0 (hand-written after its manual): the same gap */
	run(&f, "mysql80_ps", FLAVOUR_MYSQL, &m, 0, false, false, 2);
	CHECK(m.cov.share < 0.01 && m.cov.reason && strstr(m.cov.reason, "not in the digest table"),
	      nm("mysql80_ps", "share < 1 %, prepared statements named"));
	model_free(&m);

	/* sampled estimates: their shares scaled to the measured Execute time */
	run(&f, "mariadb_ps", FLAVOUR_MARIADB, &m, 0, true, false, 2);
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

	/* a third set of digests before the statement summary is read again
	 * (it is paced, the digests come more often): the newest Execute time
	 * measured still bounds the estimates, which were not left at their
	 * sampled 2,000 ms/s (issue 32 item 5) */
	paced_sample = 3;
	run(&f, "mariadb_ps", FLAVOUR_MARIADB, &m, 0, true, false, 3);
	paced_sample = 0;
	n = digest_table_top(&m.dg, DGS_TOTAL, false, top, 8);
	{
		double sum = 0;
		for (size_t i = 0; i < n; i++)
			if (digest_is_estimate(&m.dg, top[i]))
				sum += top[i]->rate[DG_TOTAL_NS] / 1e6;
		CHECK(n >= 1 && fabs(sum - 15659.840309) < 1e-2,
		      nm("mariadb_ps", "summary not read again: the estimates bounded by its newest Execute time"));
		CHECK(fabs(m.est_scale - 15659.840309 / 2000) < 1e-6,
		      nm("mariadb_ps", "... the scale from the sampled 2,000 ms/s of the third second"));
	}
	model_free(&m);

	/* the estimates' calls from the server's counts (issue 30): COMMIT
	 * calls/s = Com_commit less the exact COMMIT digest's (10/s), its
	 * average = its time / those calls; the two UPDATEs share Com_update
	 * by the executions each was seen in (3:1) */
	run(&f, "mariadb_ps", FLAVOUR_MARIADB, &m, 10, true, true, 2);
	const struct digest_entry *dc = NULL, *du1 = NULL, *du2 = NULL;
	n = digest_table_top(&m.dg, DGS_TOTAL, false, top, 8);
	for (size_t i = 0; i < n; i++) {
		if (!digest_is_estimate(&m.dg, top[i]))
			continue;
		if (strcmp(top[i]->last.text, "COMMIT") == 0)
			dc = top[i];
		else if (strstr(top[i]->last.text, "k=k+?"))
			du1 = top[i];
		else
			du2 = top[i];
	}
	CHECK(dc && du1 && du2, nm("counted", "three estimates ranked"));
	if (dc && du1 && du2) {
		double sum = (dc->rate[DG_TOTAL_NS] + du1->rate[DG_TOTAL_NS] + du2->rate[DG_TOTAL_NS]) / 1e6;
		CHECK(fabs(sum - 15659.840309) < 1e-2, nm("counted", "time still the measured Execute time"));
		CHECK(fabs(dc->rate[DG_CALLS] - 158) < 1e-9 && dc->counted_kind == DGK_COMMIT + 1 && !dc->counted_split,
		      nm("counted", "COMMIT calls/s 158 = Com_commit 168 - 10 exact"));
		CHECK(fabs(dc->avg_ms - dc->rate[DG_TOTAL_NS] / 1e6 / 158) < 1e-9 &&
			      fabs(dc->avg_ms - 15659.840309 * 6 / 9 / 158) < 1e-3,
		      nm("counted", "COMMIT avg = its time / counted calls (66.1 ms)"));
		CHECK(fabs(du1->rate[DG_CALLS] - 252) < 1e-9 && fabs(du2->rate[DG_CALLS] - 84) < 1e-9 && du1->counted_split &&
			      du2->counted_split && du1->counted_kind == DGK_UPDATE + 1,
		      nm("counted", "UPDATEs share Com_update 336 by executions seen: 252 + 84, said split"));
		CHECK(isfinite(du1->avg_ms) && isfinite(du2->avg_ms), nm("counted", "each UPDATE has an average"));
		CHECK(m.cur[M_COMMIT_MS].st == RATE_OK && m.cur[M_COMMIT_MS].est &&
			      fabs(m.cur[M_COMMIT_MS].v - dc->avg_ms) < 1e-9,
		      nm("counted", "commit latency: the counted COMMIT's average, an estimate (never idle)"));
		/* the redo sync (MariaDB 10.8+ times none): COMMIT less the binlog
		 * sync, over the 2 redo syncs each commit waits for, but the
		 * syncs of a second (one at a time) within that second */
		double bin = m.cur[M_BINLOG_FSYNC_MS].st == RATE_OK ? m.cur[M_BINLOG_FSYNC_MS].v : 0;
		double syncs = m.cur[M_REDO_FSYNCS].v;
		double want = (dc->avg_ms - (bin > 0 && bin < dc->avg_ms ? bin : 0)) / 2;
		CHECK(m.cur[M_REDO_FSYNCS].st == RATE_OK && syncs * want > 1000,
		      nm("counted", "the fixture's syncs at COMMIT's figure would take more than a second a second"));
		CHECK(m.cur[M_REDO_FSYNC_MS].st == RATE_OK && m.cur[M_REDO_FSYNC_MS].est &&
			      fabs(m.cur[M_REDO_FSYNC_MS].v - 1000 / syncs) < 1e-9,
		      nm("counted", "redo sync estimated from COMMIT, at most a second of syncs a second, said to be one"));
	}
	CHECK(m.dg.est_counted == 3, nm("counted", "three estimates took their calls from counts"));
	model_free(&m);

	/* a second whose looks found no session in COMMIT (short commits, a
	 * few looks a second) while the server counted 158 more: the latency
	 * pools the last reads, their sampled COMMIT time over their commits
	 * (never idle, never the earlier read's figure alone) */
	run(&f, "mariadb_ps", FLAVOUR_MARIADB, &m, 10, true, true, 3);
	CHECK(m.dg.est_counted > 0 && fabs(m.dg.est_commits_per_s - 158) < 1e-9,
	      nm("pooled", "the estimates stand for 158 commits/s (Com_commit 168 - 10 exact)"));
	CHECK(m.cur[M_COMMIT_MS].st == RATE_OK && m.cur[M_COMMIT_MS].est &&
		      fabs(m.cur[M_COMMIT_MS].v - 15659.840309 * 6 / 9 / (158 + 158)) < 1e-3,
	      nm("pooled", "commit latency 33.0 ms = 10439.9 ms sampled over 316 commits of two reads, an estimate"));
	model_free(&m);
	/* seven reads in a row found no session in COMMIT (at 200 short
	 * commits a second and ten looks a read, a third of the reads miss it):
	 * the pool reaches back past the last five to the read that saw one,
	 * its time over the commits of all eight reads, never no latency */
	run(&f, "mariadb_ps", FLAVOUR_MARIADB, &m, 10, true, true, 9);
	CHECK(m.cur[M_COMMIT_MS].st == RATE_OK && m.cur[M_COMMIT_MS].est &&
		      fabs(m.cur[M_COMMIT_MS].v - 15659.840309 * 6 / 9 / (158 * 8)) < 1e-3,
	      nm("pooled", "7 reads missed COMMIT: 10439.9 ms sampled over the 1264 commits of 8 reads, an estimate"));
	model_free(&m);
	/* MariaDB's full status read paced (issue 32): the third sample
	 * has no Com_* reading; the estimates' calls take the rate of the
	 * last two readings (168 COMMITs/s), said to be 1 s old, never
	 * uncounted; a run read in full says 0 */
	paced_sample = 3;
	run(&f, "mariadb_ps", FLAVOUR_MARIADB, &m, 10, true, true, 3);
	CHECK(m.dg.est_counted == 3 && fabs(m.dg.est_commits_per_s - 158) < 1e-9,
	      nm("held", "status paced: COMMIT calls still counted, 158/s from the last two readings"));
	CHECK(fabs(m.dg_com_age_s - 1) < 1e-9, nm("held", "... said to be 1 s old"));
	/* the pane's note ends with the counts' age: wrapped where the table
	 * can spare a row (it was cut at 200 columns), one row where not */
	char note[1024];
	int r200 = pane_rows(&m, 200, 14, "calls to the Com_* counts 1s old,", note, sizeof note);
	CHECK(r200 == 2, nm("held", "the pane at 200x14: the coverage note in 2 rows, ending with the counts' age"));
	int r80 = pane_rows(&m, 80, 14, "calls to the Com_* counts 1s old,", note, sizeof note);
	CHECK(r80 == 3 && strncmp(note, "digests cover 1% of the statements: server-side prepared", 56) == 0,
	      nm("held", "at 80x14: 3 rows, from the share to the counts' age"));
	int r6 = pane_rows(&m, 200, 6, "digests cover", note, sizeof note);
	CHECK(r6 == 1, nm("held", "at 200x6 (no row to spare): one row, cut"));
	model_free(&m);
	paced_sample = 0;
	run(&f, "mariadb_ps", FLAVOUR_MARIADB, &m, 10, true, true, 3);
	CHECK(m.dg.est_counted == 3 && m.dg_com_age_s == 0, nm("held", "status read in full: the counts of this sample"));
	model_free(&m);
	/* none of the reads saw a session in COMMIT: no latency, never a
	 * made-up one */
	run(&f, "mariadb_ps", FLAVOUR_MARIADB, &m, 10, false, true, 3);
	CHECK(m.cur[M_COMMIT_MS].st != RATE_OK, nm("pooled", "no session ever seen in COMMIT: no latency"));
	model_free(&m);

	/* statement kinds by the first word */
	CHECK(dg_text_kind("  commit") == DGK_COMMIT && dg_text_kind("START TRANSACTION") == DGK_BEGIN &&
		      dg_text_kind("BEGIN") == DGK_BEGIN && dg_text_kind("SELECT c FROM t") == DGK_SELECT &&
		      dg_text_kind("COMMITTED") == -1 && dg_text_kind("/* x */ COMMIT") == -1 &&
		      dg_text_kind(NULL) == -1 && dg_text_kind("rollback;") == DGK_ROLLBACK,
	      "dg_text_kind: first word, whole words only");

	fx_free(&f);
	return TAP_DONE();
}
