/* test_fixtures.c - recorded result sets of MySQL 8.0 / 8.4, MariaDB 10.11
 * and PostgreSQL 13-18 (tests/fixtures/, format in tests/fixtures/README)
 * fed through the row mappers and the model. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../model/model.h"
#include "../../sources/mysql_map.h"
#include "../../sources/pg_map.h"
#include "../../util/util.h"
#include "tap.h"

#include "fixture.h"

/* ---- helpers ------------------------------------------------------------ */

static bool has_note(const struct notes *n, const char *sub)
{
	int i;
	for (i = 0; i < n->n; i++)
		if (strstr(n->msg[i], sub))
			return true;
	return false;
}

static bool rate_ok(const struct model *m, enum metric_id id, double want, double eps)
{
	return m->cur[id].st == RATE_OK && fabs(m->cur[id].v - want) <= eps;
}

/* Name "FILE: what" for a check. */
static char cname[256];
static const char *nm(const struct fx *f, const char *what)
{
	str_printf(cname, sizeof cname, "%s: %s", f->file, what);
	return cname;
}

/* ---- MySQL / MariaDB ------------------------------------------------------ */

/* The connect-time probe from the fixture's result sets. */
static void my_probe(struct caps *c, const struct fx *f)
{
	const struct fx_sec *s;
	const struct fx_row *r;
	bool os_log_fsyncs = false;
	int i;

	memset(c, 0, sizeof *c);
	if ((s = fx_sec(f, "version")) && s->nrows > 0) {
		r = &s->rows[0];
		mysql_caps_version(c, r->cell[0], r->n > 1 ? r->cell[1] : NULL,
				   r->n > 2 ? r->cell[2] : NULL, r->n > 3 ? r->cell[3] : NULL);
	}
	if ((s = fx_sec(f, "privileges")))
		for (i = 0; i < s->nrows; i++)
			mysql_caps_privilege(c, s->rows[i].cell[0]);
	if (c->perf_schema && (s = fx_sec(f, "setup_instruments")))
		for (i = 0; i < s->nrows; i++)
			mysql_caps_instrument(c, s->rows[i].cell[0], s->rows[i].cell[1], s->rows[i].cell[2]);
	if ((s = fx_sec(f, "status.1")))
		for (i = 0; i < s->nrows; i++)
			if (s->rows[i].cell[0] && strcmp(s->rows[i].cell[0], "Innodb_os_log_fsyncs") == 0)
				os_log_fsyncs = true;
	mysql_caps_finish(c, os_log_fsyncs, NULL);
}

/* Sample n of the fixture, as my_sample() builds it. */
static void my_sample_fx(struct sample *out, const struct caps *c, const struct fx *f, int n,
			 double mono, uint64_t epoch, uint64_t *uptime)
{
	const struct fx_sec *s;
	int i;

	memset(out, 0, sizeof *out);
	out->state = STATE_UP;
	out->mono = mono;
	out->wall = 1764400000.0 + mono;
	out->conn_gen = 1;
	if ((s = fx_secn(f, "status", n)))
		for (i = 0; i < s->nrows; i++)
			mysql_map_status(out, s->rows[i].cell[0], s->rows[i].n > 1 ? s->rows[i].cell[1] : NULL,
					 uptime);
	if ((c->ps_redo_file || c->ps_binlog_file) && (s = fx_secn(f, "file_summary", n)))
		for (i = 0; i < s->nrows; i++)
			mysql_map_file(out, c, s->rows[i].cell[0], s->rows[i].cell[1], s->rows[i].cell[2]);
	mysql_map_finish(out, c, epoch);
}

static void test_mysql80(void)
{
	struct fx f;
	struct caps c;
	struct sample s;
	struct model m;
	uint64_t up1 = 0, up2 = 0, up3 = 0, restarts = 0, last_up;

	if (!fx_load(&f, "mysql-8.0.36.txt"))
		return;
	my_probe(&c, &f);
	CHECK(c.engine == ENGINE_MYSQL && c.flavour == FLAVOUR_MYSQL, nm(&f, "flavour mysql"));
	CHECK(c.version_num == 80036, nm(&f, "version_num 80036"));
	CHECK(c.perf_schema && c.ps_readable && c.binlog_on && c.priv_process, nm(&f, "P_S, binlog, PROCESS"));
	CHECK(c.ps_redo_file && c.ps_binlog_file, nm(&f, "redo and binlog instruments enabled"));
	CHECK(c.has_os_log_fsyncs, nm(&f, "has Innodb_os_log_fsyncs"));
	CHECK_STR(c.redo_fsync_source, "Innodb_os_log_fsyncs", nm(&f, "redo source"));
	CHECK_STR(c.commit_source, "Com_commit", nm(&f, "commit source"));
	CHECK(has_note(&c.notes, "Com_commit"), nm(&f, "Com_commit-only note"));
	CHECK(!has_note(&c.notes, "PROCESS"), nm(&f, "no PROCESS note"));
	CHECK(!has_note(&c.notes, "binlog syncs unavailable"), nm(&f, "no binlog-unavailable note"));
	CHECK(!has_note(&c.notes, "performance_schema"), nm(&f, "no performance_schema note"));

	model_init(&m, 16);
	model_set_caps(&m, &c);
	my_sample_fx(&s, &c, &f, 1, 100.0, restarts, &up1);
	CHECK(up1 == 86400, nm(&f, "Uptime read"));
	CHECK(!s.c[CTR_BINLOG_COMMITS].present, nm(&f, "no Binlog_commits on MySQL"));
	CHECK(s.c[CTR_COMMITS].present && s.c[CTR_COMMITS].v == 1000000, nm(&f, "commits from Com_commit"));
	CHECK(s.c[CTR_FSYNCS].present && s.c[CTR_FSYNCS].v == 400000 + 200000,
	      nm(&f, "fsyncs counter = redo + binlog"));
	CHECK(s.c[CTR_BINLOG_FSYNC_NS].v == 123456789000000ULL / 1000, nm(&f, "binlog time ps -> ns"));
	CHECK(s.c[CTR_REDO_FSYNCS].v == 400000, nm(&f, "redo count from status, not P_S"));
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_INIT, nm(&f, "first sample INIT"));
	last_up = up1;

	my_sample_fx(&s, &c, &f, 2, 101.0, restarts, &up2);
	model_update(&m, &s);
	CHECK(rate_ok(&m, M_COMMITS, 160, 1e-9), nm(&f, "commits/s = 160 (Com_commit)"));
	CHECK(rate_ok(&m, M_COM_COMMIT, 160, 1e-9), nm(&f, "com_commit/s = 160"));
	CHECK(rate_ok(&m, M_HANDLER_COMMIT, 650, 1e-9), nm(&f, "handler_commit/s = 650"));
	CHECK(rate_ok(&m, M_ROLLBACKS, 5, 1e-9), nm(&f, "rollbacks/s = 5"));
	CHECK(rate_ok(&m, M_REDO_FSYNCS, 180, 1e-9), nm(&f, "redo fsyncs/s = 180"));
	CHECK(rate_ok(&m, M_BINLOG_FSYNCS, 20, 1e-9), nm(&f, "binlog fsyncs/s = 20"));
	CHECK(rate_ok(&m, M_BINLOG_FSYNC_MS, 0.25, 1e-9), nm(&f, "binlog fsync avg 0.25 ms"));
	CHECK(rate_ok(&m, M_FSYNCS, 200, 1e-9), nm(&f, "fsyncs/s = redo + binlog = 200"));
	CHECK(rate_ok(&m, M_FSYNCS_PER_COMMIT, 1.25, 1e-9), nm(&f, "fsyncs_per_commit = 200/160"));
	CHECK(rate_ok(&m, M_DATA_FSYNCS, 230, 1e-9), nm(&f, "innodb data fsyncs/s = 230"));
	CHECK(rate_ok(&m, M_REDO_WRITES, 400, 1e-9), nm(&f, "redo writes/s = 400"));
	CHECK(rate_ok(&m, M_REDO_BYTES, 1048576, 1e-6), nm(&f, "redo bytes/s = 1 MiB"));
	CHECK(m.cur[M_BINLOG_COMMITS].st == RATE_UNAVAIL, nm(&f, "binlog commits unavailable"));
	CHECK(m.cur[M_BINLOG_COMMITS_PER_GROUP].st == RATE_UNAVAIL, nm(&f, "commits per group unavailable"));

	/* restart: the caller bumps the epoch when Uptime goes down */
	if (up2 < last_up)
		restarts++;
	last_up = up2;
	my_sample_fx(&s, &c, &f, 3, 102.0, 0, &up3);
	if (up3 < last_up)
		restarts++;
	CHECK(restarts == 1 && up3 == 5, nm(&f, "restart seen as Uptime going down"));
	my_sample_fx(&s, &c, &f, 3, 102.0, restarts, &up3);
	CHECK(s.c[CTR_COMMITS].epoch == 1 && s.c[CTR_HANDLER_COMMIT].epoch == 1,
	      nm(&f, "mysql_map_finish stamps the epoch on every counter"));
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_RESET && isnan(m.cur[M_COMMITS].v), nm(&f, "restart: commits RESET"));
	CHECK(m.cur[M_HANDLER_COMMIT].st == RATE_RESET,
	      nm(&f, "restart: Handler_commit RESET although it grew"));
	CHECK(m.cur[M_FSYNCS].st == RATE_RESET && m.cur[M_BINLOG_FSYNC_MS].st == RATE_RESET,
	      nm(&f, "restart: fsyncs and binlog avg RESET"));
	CHECK(m.cur[M_FSYNCS_PER_COMMIT].st == RATE_RESET, nm(&f, "restart: ratio RESET"));

	my_sample_fx(&s, &c, &f, 4, 103.0, restarts, &up3);
	model_update(&m, &s);
	CHECK(rate_ok(&m, M_COMMITS, 100, 1e-9) && rate_ok(&m, M_HANDLER_COMMIT, 400, 1e-9),
	      nm(&f, "after restart: rates OK again"));
	CHECK(rate_ok(&m, M_FSYNCS, 100, 1e-9) && rate_ok(&m, M_FSYNCS_PER_COMMIT, 1.0, 1e-9),
	      nm(&f, "after restart: fsyncs 80+20, 1 per commit"));
	CHECK(rate_ok(&m, M_BINLOG_FSYNC_MS, 0.25, 1e-9), nm(&f, "after restart: binlog avg 0.25 ms"));

	/* without an epoch change the grown counter would give a bogus rate:
	 * only counters that went down are caught */
	{
		struct model m2;
		uint64_t u = 0;
		model_init(&m2, 4);
		model_set_caps(&m2, &c);
		my_sample_fx(&s, &c, &f, 2, 1.0, 0, &u);
		model_update(&m2, &s);
		my_sample_fx(&s, &c, &f, 3, 2.0, 0, &u);
		model_update(&m2, &s);
		CHECK(m2.cur[M_COMMITS].st == RATE_RESET, nm(&f, "same epoch, counter went down: RESET"));
		model_free(&m2);
	}
	model_free(&m);
	fx_free(&f);
}

static void test_mysql84_nops(void)
{
	struct fx f;
	struct caps c;
	struct sample s;
	struct model m;
	uint64_t up = 0;

	if (!fx_load(&f, "mysql-8.4.3-nops.txt"))
		return;
	my_probe(&c, &f);
	CHECK(c.flavour == FLAVOUR_MYSQL && c.version_num == 80403, nm(&f, "mysql 8.4.3"));
	CHECK(!c.perf_schema && !c.ps_readable && !c.ps_binlog_file && !c.ps_redo_file,
	      nm(&f, "performance_schema off"));
	CHECK(!c.priv_process, nm(&f, "no PROCESS"));
	CHECK(has_note(&c.notes, "performance_schema is OFF"), nm(&f, "note: performance_schema is OFF"));
	CHECK(has_note(&c.notes, "PROCESS privilege missing"), nm(&f, "note: PROCESS missing"));
	CHECK(has_note(&c.notes, "binlog syncs unavailable"), nm(&f, "note: binlog syncs unavailable"));
	CHECK_STR(c.redo_fsync_source, "Innodb_os_log_fsyncs", nm(&f, "redo source"));

	model_init(&m, 8);
	model_set_caps(&m, &c);
	my_sample_fx(&s, &c, &f, 1, 10.0, 0, &up);
	model_update(&m, &s);
	my_sample_fx(&s, &c, &f, 2, 11.0, 0, &up);
	model_update(&m, &s);
	CHECK(m.cur[M_BINLOG_FSYNCS].st == RATE_UNAVAIL && isnan(m.cur[M_BINLOG_FSYNCS].v),
	      nm(&f, "binlog fsyncs unavailable"));
	CHECK(m.cur[M_BINLOG_FSYNC_MS].st == RATE_UNAVAIL, nm(&f, "binlog avg unavailable"));
	CHECK(rate_ok(&m, M_COMMITS, 90, 1e-9), nm(&f, "commits/s = 90 from status"));
	CHECK(rate_ok(&m, M_REDO_FSYNCS, 90, 1e-9), nm(&f, "redo fsyncs/s = 90"));
	CHECK(rate_ok(&m, M_FSYNCS, 90, 1e-9), nm(&f, "fsyncs/s = redo only"));
	CHECK(rate_ok(&m, M_FSYNCS_PER_COMMIT, 1.0, 1e-9), nm(&f, "fsyncs_per_commit = 1"));
	CHECK(rate_ok(&m, M_REDO_BYTES, 524288, 1e-6), nm(&f, "redo bytes/s"));
	model_free(&m);
	fx_free(&f);
}

static void test_mariadb(void)
{
	struct fx f;
	struct caps c;
	struct sample s;
	struct model m;
	uint64_t up = 0;

	if (!fx_load(&f, "mariadb-10.11.6.txt"))
		return;
	my_probe(&c, &f);
	CHECK(c.flavour == FLAVOUR_MARIADB, nm(&f, "flavour mariadb"));
	CHECK(c.version_num == 101106, nm(&f, "version_num 101106"));
	CHECK_STR(c.version, "10.11.6-MariaDB-0+deb12u1-log", nm(&f, "version string"));
	CHECK(!c.has_os_log_fsyncs && !c.ps_redo_file && c.ps_binlog_file,
	      nm(&f, "no Innodb_os_log_fsyncs, no redo instrument, binlog instrument"));
	CHECK(strncmp(c.redo_fsync_source, "Innodb_data_fsyncs", 18) == 0, nm(&f, "redo from Innodb_data_fsyncs"));
	CHECK(has_note(&c.notes, "Innodb_data_fsyncs"), nm(&f, "note on Innodb_data_fsyncs"));
	CHECK_STR(c.commit_source, "Binlog_commits", nm(&f, "commit source Binlog_commits"));
	CHECK(!has_note(&c.notes, "autocommit transactions are not included"), nm(&f, "no Com_commit-only note"));
	CHECK(!has_note(&c.notes, "PROCESS"), nm(&f, "no PROCESS note"));

	model_init(&m, 8);
	model_set_caps(&m, &c);
	my_sample_fx(&s, &c, &f, 1, 50.0, 0, &up);
	CHECK(s.c[CTR_COMMITS].v == 5000000, nm(&f, "commits counter from Binlog_commits"));
	CHECK(s.c[CTR_REDO_FSYNCS].present && s.c[CTR_REDO_FSYNCS].v == 700000,
	      nm(&f, "redo counter = Innodb_data_fsyncs"));
	model_update(&m, &s);
	my_sample_fx(&s, &c, &f, 2, 51.0, 0, &up);
	model_update(&m, &s);
	CHECK(rate_ok(&m, M_COMMITS, 300, 1e-9), nm(&f, "commits/s = 300 (Binlog_commits)"));
	CHECK(rate_ok(&m, M_COM_COMMIT, 10, 1e-9), nm(&f, "com_commit/s = 10"));
	CHECK(rate_ok(&m, M_BINLOG_COMMITS, 300, 1e-9), nm(&f, "binlog commits/s = 300"));
	CHECK(rate_ok(&m, M_BINLOG_GROUP_COMMITS, 100, 1e-9), nm(&f, "binlog group commits/s = 100"));
	CHECK(rate_ok(&m, M_BINLOG_COMMITS_PER_GROUP, 3.0, 1e-9), nm(&f, "binlog commits per group = 3"));
	CHECK(rate_ok(&m, M_REDO_FSYNCS, 150, 1e-9), nm(&f, "redo fsyncs/s = 150 (data fsyncs)"));
	CHECK(rate_ok(&m, M_BINLOG_FSYNCS, 100, 1e-9), nm(&f, "binlog fsyncs/s = 100"));
	CHECK(rate_ok(&m, M_BINLOG_FSYNC_MS, 1.0, 1e-9), nm(&f, "binlog fsync avg 1 ms"));
	CHECK(rate_ok(&m, M_FSYNCS, 250, 1e-9), nm(&f, "fsyncs/s = 150 + 100"));
	CHECK(rate_ok(&m, M_FSYNCS_PER_COMMIT, 250.0 / 300.0, 1e-9), nm(&f, "fsyncs_per_commit = 250/300"));
	CHECK(m.cur[M_REDO_FSYNC_MS].st == RATE_UNAVAIL, nm(&f, "redo avg unavailable"));
	model_free(&m);
	fx_free(&f);
}

/* ---- PostgreSQL ---------------------------------------------------------- */

/* Probe (and the pg_stat_io question when pg.c would ask it). */
static void pg_probe_fx(struct caps *c, const struct fx *f)
{
	const char *cells[PGP__COUNT];
	const struct fx_sec *s = fx_sec(f, "probe"), *io;
	bool io_has_wal = false;
	int i;

	memset(c, 0, sizeof *c);
	for (i = 0; i < PGP__COUNT; i++)
		cells[i] = s && s->nrows && i < s->rows[0].n ? s->rows[0].cell[i] : NULL;
	pg_caps_probe(c, cells);
	if (c->wal_stats != WAL_STAT_WAL && cells[PGP_HAS_IO] && cells[PGP_HAS_IO][0] == 't' &&
	    (io = fx_sec(f, "io_wal")) && io->nrows && io->rows[0].cell[0])
		io_has_wal = atol(io->rows[0].cell[0]) > 0;
	pg_caps_finish(c, io_has_wal);
}

static void pg_sample_fx(struct sample *out, const struct caps *c, const struct fx *f, int n,
			 double mono, uint64_t own)
{
	const char *cells[PGC__COUNT];
	const struct fx_sec *s = fx_secn(f, "counters", n);
	int i;

	memset(out, 0, sizeof *out);
	out->state = STATE_UP;
	out->mono = mono;
	out->wall = 1764400000.0 + mono;
	out->conn_gen = 1;
	for (i = 0; i < PGC__COUNT; i++)
		cells[i] = s && s->nrows && i < s->rows[0].n ? s->rows[0].cell[i] : NULL;
	pg_map_counters(out, c, cells, own);
}

/* Caps, then samples 1 and 2 (1 s apart, one own transaction each) into m. */
static bool pg_two(struct fx *f, const char *file, struct caps *c, struct model *m)
{
	struct sample s;
	if (!fx_load(f, file))
		return false;
	pg_probe_fx(c, f);
	model_init(m, 8);
	model_set_caps(m, c);
	pg_sample_fx(&s, c, f, 1, 200.0, 1);
	model_update(m, &s);
	pg_sample_fx(&s, c, f, 2, 201.0, 2);
	model_update(m, &s);
	return true;
}

static void test_pg13(void)
{
	struct fx f;
	struct caps c;
	struct model m;

	if (!pg_two(&f, "pg-13.txt", &c, &m))
		return;
	CHECK(c.engine == ENGINE_POSTGRESQL && c.flavour == FLAVOUR_POSTGRESQL, nm(&f, "engine postgresql"));
	CHECK(c.version_num == 130023, nm(&f, "version_num 130023"));
	CHECK(c.wal_stats == WAL_LSN, nm(&f, "wal_stats WAL_LSN"));
	CHECK(c.pgss_version == 0, nm(&f, "no pg_stat_statements"));
	CHECK(has_note(&c.notes, "pg_stat_statements is not installed"), nm(&f, "note: pgss not installed"));
	CHECK(has_note(&c.notes, "LSN"), nm(&f, "note: WAL from LSN, syncs unknown"));
	CHECK(!has_note(&c.notes, "track_wal_io_timing"), nm(&f, "no track_wal_io_timing note (no WAL stats)"));
	CHECK(!has_note(&c.notes, "pg_monitor"), nm(&f, "no pg_monitor note"));
	CHECK(strstr(pg_counters_sql(&c), "pg_current_wal_lsn") && !strstr(pg_counters_sql(&c), "pg_stat_wal"),
	      nm(&f, "counters SQL uses pg_current_wal_lsn, not pg_stat_wal"));
	CHECK(rate_ok(&m, M_COMMITS, 120, 1e-9), nm(&f, "commits/s = 121 - 1 own"));
	CHECK(rate_ok(&m, M_ROLLBACKS, 1, 1e-9), nm(&f, "rollbacks/s = 1"));
	CHECK(rate_ok(&m, M_WAL_BYTES, 1048576, 1e-6), nm(&f, "wal bytes/s from LSN = 1 MiB"));
	CHECK(m.cur[M_FSYNCS].st == RATE_UNAVAIL, nm(&f, "fsyncs/s unavailable"));
	CHECK(m.cur[M_WAL_SYNCS].st == RATE_UNAVAIL && m.cur[M_WAL_RECORDS].st == RATE_UNAVAIL,
	      nm(&f, "wal syncs and records unavailable"));
	CHECK(m.cur[M_FSYNCS_PER_COMMIT].st == RATE_UNAVAIL, nm(&f, "fsyncs_per_commit unavailable"));
	CHECK(rate_ok(&m, M_WAL_BYTES_PER_COMMIT, 1048576.0 / 120.0, 1e-6), nm(&f, "wal bytes per commit"));
	model_free(&m);
	fx_free(&f);
}

static void test_pg15(void)
{
	struct fx f;
	struct caps c;
	struct model m;
	struct sample s;

	if (!pg_two(&f, "pg-15.txt", &c, &m))
		return;
	CHECK(c.wal_stats == WAL_STAT_WAL, nm(&f, "wal_stats WAL_STAT_WAL"));
	CHECK(c.pgss_version == 110, nm(&f, "pgss 1.10 -> 110"));
	CHECK(!c.track_wal_io_timing && !c.pg_monitor && !c.superuser, nm(&f, "no timing, no pg_monitor"));
	CHECK(has_note(&c.notes, "track_wal_io_timing"), nm(&f, "note: track_wal_io_timing"));
	CHECK(has_note(&c.notes, "pg_monitor"), nm(&f, "note: pg_monitor"));
	CHECK(!has_note(&c.notes, "pg_stat_statements"), nm(&f, "no pgss note"));
	CHECK(strstr(pg_counters_sql(&c), "w.wal_sync") && strstr(pg_counters_sql(&c), "pg_stat_wal") &&
	      !strstr(pg_counters_sql(&c), "pg_stat_io"), nm(&f, "counters SQL reads pg_stat_wal w.wal_sync"));
	CHECK(rate_ok(&m, M_COMMITS, 200, 1e-9), nm(&f, "commits/s = 201 - 1 own"));
	CHECK(rate_ok(&m, M_WAL_WRITES, 250, 1e-9), nm(&f, "wal writes/s = 250"));
	CHECK(rate_ok(&m, M_WAL_SYNCS, 200, 1e-9), nm(&f, "wal syncs/s = 200"));
	CHECK(rate_ok(&m, M_FSYNCS, 200, 1e-9), nm(&f, "fsyncs/s = wal syncs"));
	CHECK(rate_ok(&m, M_FSYNCS_PER_COMMIT, 1.0, 1e-9), nm(&f, "fsyncs_per_commit = 1"));
	CHECK(rate_ok(&m, M_WAL_RECORDS, 1500, 1e-9) && rate_ok(&m, M_WAL_FPI, 30, 1e-9),
	      nm(&f, "wal records 1500/s, fpi 30/s"));
	CHECK(rate_ok(&m, M_WAL_BYTES, 524288, 1e-6), nm(&f, "wal bytes/s"));
	CHECK(rate_ok(&m, M_WAL_BUFFERS_FULL, 0, 0), nm(&f, "wal buffers full 0/s"));
	CHECK(m.cur[M_WAL_SYNC_MS].st == RATE_UNAVAIL && m.cur[M_WAL_WRITE_MS].st == RATE_UNAVAIL,
	      nm(&f, "sync/write times unavailable without track_wal_io_timing"));

	/* pg_stat_reset_shared('wal') between samples 2 and 3 (2 s) */
	pg_sample_fx(&s, &c, &f, 3, 203.0, 3);
	model_update(&m, &s);
	CHECK(m.cur[M_WAL_SYNCS].st == RATE_RESET && m.cur[M_WAL_BYTES].st == RATE_RESET &&
	      m.cur[M_FSYNCS].st == RATE_RESET, nm(&f, "wal stats_reset change -> RESET"));
	CHECK(rate_ok(&m, M_COMMITS, 50, 1e-9), nm(&f, "commits unaffected by a wal reset (100 over 2 s)"));

	/* pg_stat_reset() in one database between samples 3 and 4 */
	pg_sample_fx(&s, &c, &f, 4, 204.0, 4);
	model_update(&m, &s);
	CHECK(m.cur[M_COMMITS].st == RATE_RESET && isnan(m.cur[M_COMMITS].v),
	      nm(&f, "database stats_reset NULL -> set: commits RESET"));
	CHECK(m.cur[M_ROLLBACKS].st == RATE_RESET, nm(&f, "database stats_reset: rollbacks RESET"));
	CHECK(rate_ok(&m, M_WAL_SYNCS, 50, 1e-9), nm(&f, "wal rates OK after the wal reset"));

	pg_sample_fx(&s, &c, &f, 5, 205.0, 5);
	model_update(&m, &s);
	CHECK(rate_ok(&m, M_COMMITS, 100, 1e-9) && rate_ok(&m, M_ROLLBACKS, 2, 1e-9),
	      nm(&f, "commits OK after the database reset"));
	model_free(&m);
	fx_free(&f);
}

static void test_pg16_no_pgss(void)
{
	struct fx f;
	struct caps c;

	if (!fx_load(&f, "pg-16-no-pgss.txt"))
		return;
	pg_probe_fx(&c, &f);
	CHECK(c.pgss_version == 0, nm(&f, "pgss_version 0"));
	/* the backend looks for it in another database and says what it found */
	CHECK(c.pgss_loaded && !has_note(&c.notes, "not installed"),
	      nm(&f, "pgss loaded but not created: known, not called missing"));
	CHECK(c.superuser && c.pg_monitor && !has_note(&c.notes, "pg_monitor"), nm(&f, "superuser counts as pg_monitor"));
	CHECK(c.wal_stats == WAL_STAT_WAL, nm(&f, "pg16 uses pg_stat_wal"));
	fx_free(&f);
}

static void test_pg17(void)
{
	struct fx f;
	struct caps c;
	struct model m;

	if (!pg_two(&f, "pg-17.txt", &c, &m))
		return;
	CHECK(c.version_num == 170002, nm(&f, "version_num 170002"));
	CHECK(c.wal_stats == WAL_STAT_WAL, nm(&f, "wal_stats WAL_STAT_WAL although pg_stat_io exists"));
	CHECK(c.pgss_version == 111 && c.pg_wait_sampling == 1, nm(&f, "pgss 111, pg_wait_sampling"));
	CHECK(c.track_wal_io_timing, nm(&f, "track_wal_io_timing on"));
	CHECK(c.notes.n == 0, nm(&f, "no notes"));
	CHECK(strstr(pg_counters_sql(&c), "w.wal_sync") != NULL, nm(&f, "counters SQL reads w.wal_sync"));
	CHECK(rate_ok(&m, M_COMMITS, 400, 1e-9), nm(&f, "commits/s = 401 - 1 own"));
	CHECK(rate_ok(&m, M_ROLLBACKS, 4, 1e-9), nm(&f, "rollbacks/s = 4"));
	CHECK(rate_ok(&m, M_WAL_SYNCS, 200, 1e-9), nm(&f, "wal syncs/s = 200"));
	CHECK(rate_ok(&m, M_WAL_SYNC_MS, 0.5, 1e-6), nm(&f, "wal sync avg 0.5 ms (100 ms / 200)"));
	CHECK(rate_ok(&m, M_WAL_WRITES, 250, 1e-9), nm(&f, "wal writes/s = 250"));
	CHECK(rate_ok(&m, M_WAL_WRITE_MS, 0.01, 1e-6), nm(&f, "wal write avg 0.01 ms (2.5 ms / 250)"));
	CHECK(rate_ok(&m, M_FSYNCS_PER_COMMIT, 0.5, 1e-9), nm(&f, "fsyncs_per_commit = 200/400"));
	CHECK(rate_ok(&m, M_WAL_BYTES_PER_COMMIT, 2621.44, 1e-6), nm(&f, "wal bytes per commit"));
	model_free(&m);
	fx_free(&f);
}

static void test_pg18(void)
{
	struct fx f;
	struct caps c;
	struct model m;

	if (!pg_two(&f, "pg-18.txt", &c, &m))
		return;
	CHECK(c.version_num == 180001, nm(&f, "version_num 180001"));
	CHECK(c.wal_stats == WAL_STAT_IO, nm(&f, "wal_stats WAL_STAT_IO"));
	CHECK(c.pgss_version == 112, nm(&f, "pgss 1.12 -> 112"));
	CHECK(c.pg_monitor && !c.superuser, nm(&f, "pg_monitor member"));
	CHECK(!has_note(&c.notes, "pg_monitor") && !has_note(&c.notes, "track_wal_io_timing") &&
	      !has_note(&c.notes, "LSN"), nm(&f, "no notes about pg_monitor, timing or LSN"));
	CHECK(strstr(pg_counters_sql(&c), "pg_stat_io") && !strstr(pg_counters_sql(&c), "w.wal_sync"),
	      nm(&f, "counters SQL reads pg_stat_io, not w.wal_sync"));
	CHECK(rate_ok(&m, M_COMMITS, 150, 1e-9), nm(&f, "commits/s = 151 - 1 own"));
	CHECK(rate_ok(&m, M_WAL_SYNCS, 100, 1e-9) && rate_ok(&m, M_FSYNCS, 100, 1e-9),
	      nm(&f, "wal syncs/s = 100 from pg_stat_io"));
	CHECK(rate_ok(&m, M_WAL_SYNC_MS, 0.2, 1e-6), nm(&f, "wal sync avg 0.2 ms"));
	CHECK(rate_ok(&m, M_WAL_WRITES, 100, 1e-9) && rate_ok(&m, M_WAL_WRITE_MS, 0.01, 1e-6),
	      nm(&f, "wal writes 100/s, 0.01 ms"));
	CHECK(rate_ok(&m, M_WAL_BYTES, 524288, 1e-6), nm(&f, "wal bytes/s from pg_stat_wal"));
	CHECK(rate_ok(&m, M_FSYNCS_PER_COMMIT, 100.0 / 150.0, 1e-9), nm(&f, "fsyncs_per_commit = 100/150"));
	model_free(&m);

	/* the same server when pg_stat_io has no WAL rows */
	{
		struct caps c2;
		const char *cells[PGP__COUNT];
		const struct fx_sec *s = fx_sec(&f, "probe");
		int i;
		memset(&c2, 0, sizeof c2);
		for (i = 0; i < PGP__COUNT; i++)
			cells[i] = s->rows[0].cell[i];
		pg_caps_probe(&c2, cells);
		pg_caps_finish(&c2, false);
		CHECK(c2.wal_stats == WAL_LSN && has_note(&c2.notes, "LSN"),
		      nm(&f, "no WAL rows in pg_stat_io -> WAL_LSN with its note"));
	}
	fx_free(&f);
}

static void test_pg_cells(void)
{
	struct caps c;
	struct sample s;
	const char *cells[PGC__COUNT] = {0};

	memset(&c, 0, sizeof c);
	c.engine = ENGINE_POSTGRESQL;
	c.wal_stats = WAL_STAT_WAL;
	c.track_wal_io_timing = true;
	memset(&s, 0, sizeof s);
	cells[PGC_XACT_COMMIT] = "123456";
	cells[PGC_START] = "1764400000.123456";
	cells[PGC_WAL_SYNC] = "10";
	cells[PGC_WAL_SYNC_TIME] = "1234.567";
	cells[PGC_WAL_WRITE] = "not a number";
	pg_map_counters(&s, &c, cells, 7);
	CHECK(s.c[CTR_COMMITS].present && s.c[CTR_COMMITS].v == 123456, "pg cells: numeric sum parsed");
	CHECK(s.c[CTR_OWN_COMMITS].present && s.c[CTR_OWN_COMMITS].v == 7, "pg cells: own xacts recorded");
	CHECK(!s.c[CTR_ROLLBACKS].present, "pg cells: NULL rollback -> absent");
	CHECK(s.c[CTR_WAL_SYNC_NS].v == 1234567000ULL, "pg cells: float ms -> ns");
	CHECK(!s.c[CTR_WAL_WRITES].present, "pg cells: garbage -> absent");
	CHECK(s.c[CTR_COMMITS].epoch == 1764400000123ULL, "pg cells: epoch from start time (ms)");
	CHECK(s.c[CTR_FSYNCS].present && s.c[CTR_FSYNCS].v == 10, "pg cells: fsyncs = wal syncs");

	{
		uint64_t v = 0;
		CHECK(parse_u64("18446744073709551615", &v) && v == UINT64_MAX, "parse_u64: max");
		CHECK(!parse_u64("-1", &v) && !parse_u64("", &v) && !parse_u64(NULL, &v) && !parse_u64("12x", &v),
		      "parse_u64: rejects -1, empty, NULL, 12x");
	}
}

int main(void)
{
	test_mysql80();
	test_mysql84_nops();
	test_mariadb();
	test_pg13();
	test_pg15();
	test_pg16_no_pgss();
	test_pg17();
	test_pg18();
	test_pg_cells();
	return TAP_DONE();
}
