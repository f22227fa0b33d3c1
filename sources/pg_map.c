/* pg_map.c - PostgreSQL rows to caps and counters. */
#include "pg_map.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/digests.h"
#include "../util/util.h"

/* True for a "t" boolean cell. */
static bool cell_true(const char *v)
{
	return v && v[0] == 't';
}

/* Parse a non-negative number (integer, numeric or float) times scale. */
static bool cell_u64(const char *s, double scale, uint64_t *out)
{
	char *e;
	double d;
	if (!s)
		return false;
	d = strtod(s, &e);
	if (e == s || *e || d < 0 || !isfinite(d))
		return false;
	*out = (uint64_t)d_llround(d * scale);
	return true;
}

void pg_caps_probe(struct caps *c, const char *const cell[PGP__COUNT])
{
	const char *v;
	c->engine = ENGINE_POSTGRESQL;
	c->flavour = FLAVOUR_POSTGRESQL;
	str_copy(c->version, sizeof c->version, cell[PGP_VERSION] ? cell[PGP_VERSION] : "?");
	text_sanitize(c->version);
	c->version_num = cell[PGP_VERSION_NUM] ? atol(cell[PGP_VERSION_NUM]) : 0;
	c->in_recovery = cell_true(cell[PGP_IN_RECOVERY]);
	c->pgss_version = 0;
	if ((v = cell[PGP_PGSS])) {
		int maj = 0, min = 0;
		sscanf(v, "%d.%d", &maj, &min);
		c->pgss_version = maj * 100 + min;
	}
	c->pg_wait_sampling = cell[PGP_PGWS] != NULL;
	if (!c->pgss_version)
		notes_add(&c->notes, "pg_stat_statements %s: add it to shared_preload_libraries and "
			  "CREATE EXTENSION pg_stat_statements in this database",
			  (v = cell[PGP_PRELOAD]) && strstr(v, "pg_stat_statements")
			  ? "is loaded but not created here" : "is not installed");
	c->track_wal_io_timing = (v = cell[PGP_TRACK_WAL_IO]) && strcmp(v, "on") == 0;
	c->superuser = cell_true(cell[PGP_SUPER]);
	c->pg_monitor = c->superuser || cell_true(cell[PGP_MONITOR]);
	c->wal_stats = cell_true(cell[PGP_HAS_WAL_SYNC]) ? WAL_STAT_WAL : WAL_LSN;
}

void pg_caps_finish(struct caps *c, bool io_has_wal)
{
	if (c->wal_stats != WAL_STAT_WAL && io_has_wal)
		c->wal_stats = WAL_STAT_IO;   /* PG18+: WAL I/O moved to pg_stat_io */
	if (c->wal_stats == WAL_LSN)
		notes_add(&c->notes, "this server has no WAL write/sync statistics (pg_stat_wal appeared in "
			  "PostgreSQL 14): WAL bytes/s come from LSN differences, WAL syncs are unknown");
	else if (!c->track_wal_io_timing)
		notes_add(&c->notes, "WAL write/sync times need track_wal_io_timing=on "
			  "(ALTER SYSTEM SET track_wal_io_timing = on; SELECT pg_reload_conf())");
	if (!c->pg_monitor)
		notes_add(&c->notes, "role lacks pg_monitor: other sessions' queries and some statistics "
			  "are hidden (GRANT pg_monitor TO the monitoring role)");
}

#define PG_DB_SUBQ \
	"(SELECT sum(xact_commit) AS xc, sum(xact_rollback) AS xr, " \
	"sum(extract(epoch FROM stats_reset)) AS rst FROM pg_stat_database) d"

const char *pg_counters_sql(const struct caps *c)
{
	switch (c->wal_stats) {
	case WAL_STAT_WAL:
		return "SELECT d.xc, d.xr, d.rst, extract(epoch FROM pg_postmaster_start_time()), "
		       "w.wal_records, w.wal_fpi, w.wal_bytes, w.wal_buffers_full, w.wal_write, "
		       "w.wal_write_time, w.wal_sync, w.wal_sync_time, extract(epoch FROM w.stats_reset) "
		       "FROM " PG_DB_SUBQ ", pg_stat_wal w";
	case WAL_STAT_IO:
		return "SELECT d.xc, d.xr, d.rst, extract(epoch FROM pg_postmaster_start_time()), "
		       "w.wal_records, w.wal_fpi, w.wal_bytes, w.wal_buffers_full, i.writes, "
		       "i.write_time, i.fsyncs, i.fsync_time, "
		       "extract(epoch FROM w.stats_reset) + coalesce(i.rst, 0) "
		       "FROM " PG_DB_SUBQ ", pg_stat_wal w, "
		       "(SELECT sum(writes) AS writes, sum(write_time) AS write_time, sum(fsyncs) AS fsyncs, "
		       " sum(fsync_time) AS fsync_time, sum(extract(epoch FROM stats_reset)) AS rst "
		       " FROM pg_stat_io WHERE object = 'wal' AND context = 'normal') i";
	default:
		return "SELECT d.xc, d.xr, d.rst, extract(epoch FROM pg_postmaster_start_time()), "
		       "NULL, NULL, CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() "
		       "ELSE pg_current_wal_lsn() END - '0/0'::pg_lsn "
		       "FROM " PG_DB_SUBQ;
	}
}

void pg_map_counters(struct sample *out, const struct caps *c, const char *const cell[PGC__COUNT],
		     uint64_t own_xacts)
{
	static const int cols[][2] = {
		{PGC_WAL_RECORDS, CTR_WAL_RECORDS}, {PGC_WAL_FPI, CTR_WAL_FPI},
		{PGC_WAL_BYTES, CTR_WAL_BYTES}, {PGC_WAL_BUFFERS_FULL, CTR_WAL_BUFFERS_FULL},
		{PGC_WAL_WRITE, CTR_WAL_WRITES}, {PGC_WAL_SYNC, CTR_WAL_SYNCS},
	};
	uint64_t v, start_epoch, db_epoch, wal_epoch;
	size_t i;

	/* reset markers: postmaster start, and the stats_reset stamps (ms) */
	start_epoch = cell_u64(cell[PGC_START], 1000, &v) ? v : 0;
	if (start_epoch && out->wall > (double)start_epoch / 1000)
		out->uptime_s = out->wall - (double)start_epoch / 1000;
	db_epoch = start_epoch ^ (cell_u64(cell[PGC_DB_RESET], 1000, &v) ? v : 0);
	if (cell_u64(cell[PGC_XACT_COMMIT], 1, &v))
		sample_set(out, CTR_COMMITS, v, db_epoch);
	sample_set(out, CTR_OWN_COMMITS, own_xacts, db_epoch);
	if (cell_u64(cell[PGC_XACT_ROLLBACK], 1, &v))
		sample_set(out, CTR_ROLLBACKS, v, db_epoch);
	if (c->wal_stats == WAL_LSN) {
		if (cell_u64(cell[PGC_WAL_BYTES], 1, &v))
			sample_set(out, CTR_WAL_BYTES, v, start_epoch);
		return;
	}
	wal_epoch = start_epoch ^ (cell_u64(cell[PGC_WAL_RESET], 1000, &v) ? v : 0);
	for (i = 0; i < sizeof cols / sizeof cols[0]; i++)
		if (cell_u64(cell[cols[i][0]], 1, &v))
			sample_set(out, cols[i][1], v, wal_epoch);
	if (c->track_wal_io_timing) {
		/* ms (float8) -> ns */
		if (cell_u64(cell[PGC_WAL_WRITE_TIME], 1e6, &v))
			sample_set(out, CTR_WAL_WRITE_NS, v, wal_epoch);
		if (cell_u64(cell[PGC_WAL_SYNC_TIME], 1e6, &v))
			sample_set(out, CTR_WAL_SYNC_NS, v, wal_epoch);
	}
	if (out->c[CTR_WAL_SYNCS].present)
		out->c[CTR_FSYNCS] = out->c[CTR_WAL_SYNCS];
}

const char *pg_digest_sql(const struct caps *c)
{
	int v = c->pgss_version;
	if (!v)
		return NULL;
	if (v >= 111)
		return "SELECT s.userid, s.dbid, s.queryid, s.toplevel, s.calls, s.total_exec_time, "
		       "s.total_plan_time, s.rows, s.shared_blks_hit, s.shared_blks_read, s.wal_bytes, "
		       "extract(epoch FROM s.stats_since), d.datname "
		       "FROM pg_stat_statements(false) s LEFT JOIN pg_database d ON d.oid = s.dbid "
		       "WHERE s.queryid IS NOT NULL";
	if (v >= 109)
		return "SELECT s.userid, s.dbid, s.queryid, s.toplevel, s.calls, s.total_exec_time, "
		       "s.total_plan_time, s.rows, s.shared_blks_hit, s.shared_blks_read, s.wal_bytes, "
		       "NULL, d.datname "
		       "FROM pg_stat_statements(false) s LEFT JOIN pg_database d ON d.oid = s.dbid "
		       "WHERE s.queryid IS NOT NULL";
	if (v >= 108)
		return "SELECT s.userid, s.dbid, s.queryid, true, s.calls, s.total_exec_time, "
		       "s.total_plan_time, s.rows, s.shared_blks_hit, s.shared_blks_read, s.wal_bytes, "
		       "NULL, d.datname "
		       "FROM pg_stat_statements(false) s LEFT JOIN pg_database d ON d.oid = s.dbid "
		       "WHERE s.queryid IS NOT NULL";
	return "SELECT s.userid, s.dbid, s.queryid, true, s.calls, s.total_time, 0, s.rows, "
	       "s.shared_blks_hit, s.shared_blks_read, NULL, NULL, d.datname "
	       "FROM pg_stat_statements(false) s LEFT JOIN pg_database d ON d.oid = s.dbid "
	       "WHERE s.queryid IS NOT NULL";
}

char *pg_digest_text_sql(const struct caps *c, const char *const *ids, size_t n, char *buf, size_t len)
{
	size_t i, off;
	/* one array constant: the statement is one digest of its own however
	 * many ids it asks for (an IN list of each length would be another) */
	off = str_printf(buf, len, "SELECT userid, dbid, queryid, %s, query FROM pg_stat_statements(true) "
			 "WHERE queryid = ANY ('{", c->pgss_version >= 109 ? "toplevel" : "true");
	size_t good = 0;
	for (i = 0; i < n && off + 32 < len; i++) {
		const char *id = ids[i], *digits;
		if (!id)
			continue;
		digits = id + (*id == '-');
		if (!*digits || strspn(digits, "0123456789") != strlen(digits))
			continue;
		off += str_printf(buf + off, len - off, "%s%s", buf[off - 1] == '{' ? "" : ",", id);
		good++;
	}
	str_printf(buf + off, len - off, "}'::bigint[])");
	return good ? buf : NULL;
}

void pg_digest_key(char *key, size_t len, const char *userid, const char *dbid, const char *queryid,
		   const char *toplevel)
{
	str_printf(key, len, "%s:%s:%s:%s", userid ? userid : "", dbid ? dbid : "",
		   queryid ? queryid : "", toplevel && toplevel[0] == 'f' ? "f" : "t");
	text_sanitize(key);
}

void pg_map_digest(struct digest_set *set, const char *const cell[PGD__COUNT])
{
	struct digest_row *r = digest_set_add(set);
	uint64_t v, plan = 0;
	bool have_plan;
	pg_digest_key(r->key, sizeof r->key, cell[PGD_USERID], cell[PGD_DBID], cell[PGD_QUERYID],
		      cell[PGD_TOPLEVEL]);
	str_copy(r->schema, sizeof r->schema, cell[PGD_DATNAME] ? cell[PGD_DATNAME] : "");
	text_sanitize(r->schema);
	if (cell_u64(cell[PGD_CALLS], 1, &v)) {
		r->c[DG_CALLS] = v;
		r->have |= 1u << DG_CALLS;
	}
	have_plan = cell_u64(cell[PGD_PLAN_MS], 1e6, &plan);
	if (have_plan) {
		r->c[DG_PLAN_NS] = plan;
		r->have |= 1u << DG_PLAN_NS;
	}
	if (cell_u64(cell[PGD_EXEC_MS], 1e6, &v)) {
		r->c[DG_TOTAL_NS] = v + plan;   /* execution + planning */
		r->have |= 1u << DG_TOTAL_NS;
	}
	if (cell_u64(cell[PGD_ROWS], 1, &v)) {
		r->c[DG_ROWS] = v;
		r->have |= 1u << DG_ROWS;
	}
	if (cell_u64(cell[PGD_HIT], 1, &v)) {
		r->c[DG_BLKS_HIT] = v;
		r->have |= 1u << DG_BLKS_HIT;
	}
	if (cell_u64(cell[PGD_READ], 1, &v)) {
		r->c[DG_BLKS_READ] = v;
		r->have |= 1u << DG_BLKS_READ;
	}
	if (cell_u64(cell[PGD_WAL], 1, &v)) {
		r->c[DG_WAL_BYTES] = v;
		r->have |= 1u << DG_WAL_BYTES;
	}
	if (cell[PGD_SINCE]) {
		r->first_seen = strtod(cell[PGD_SINCE], NULL);
		r->epoch = (uint64_t)d_llround(r->first_seen * 1000);
	}
}
