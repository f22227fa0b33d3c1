/* pg.c - PostgreSQL backend (libpq). Queries are sent asynchronously and
 * abandoned at the time limit, so a frozen server cannot hang the caller;
 * statement_timeout also bounds them on the server. */
#include "source.h"

#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

struct pg_priv {
	PGconn *db;
	uint64_t own_xacts;     /* transactions dbtop ran on this connection */
};

/* A query's results (a multi-statement string yields several). */
#define PG_MAXRES 8
struct pg_results {
	PGresult *r[PG_MAXRES];
	int n;
};

static void pg_results_clear(struct pg_results *rs)
{
	int i;
	for (i = 0; i < rs->n; i++)
		PQclear(rs->r[i]);
	rs->n = 0;
}

/* Copy libpq's message without its trailing newline. */
static void pg_errcpy(char *err, size_t errlen, const char *msg)
{
	size_t n = str_copy(err, errlen, msg ? msg : "unknown error");
	while (n && (err[n - 1] == '\n' || err[n - 1] == ' '))
		err[--n] = '\0';
	text_sanitize(err);
}

/* Run q and collect every result before the deadline. Returns 0, or -1
 * with err set and *stalled when the time limit hit. */
static int pg_run(struct source *src, const char *q, struct pg_results *rs,
		  char *err, size_t errlen, bool *stalled, double *ms)
{
	struct pg_priv *p = src->priv;
	double t0 = clock_mono(), deadline = t0 + src->query_timeout;
	PGresult *r;
	int rc = 0;

	rs->n = 0;
	*stalled = false;
	if (!PQsendQuery(p->db, q)) {
		pg_errcpy(err, errlen, PQerrorMessage(p->db));
		return -1;
	}
	for (;;) {
		while (!PQisBusy(p->db)) {
			r = PQgetResult(p->db);
			if (!r)
				goto done;
			ExecStatusType st = PQresultStatus(r);
			if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
				const char *code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
				if (rc == 0) {
					pg_errcpy(err, errlen, PQresultErrorMessage(r));
					if (code && strcmp(code, "57014") == 0) {
						*stalled = true;
						str_printf(err, errlen, "query exceeded %.1fs time limit (statement_timeout)",
							   src->query_timeout);
					}
				}
				rc = -1;
				PQclear(r);
			} else if (rs->n < PG_MAXRES) {
				rs->r[rs->n++] = r;
			} else {
				PQclear(r);
			}
		}
		double left = deadline - clock_mono();
		if (left <= 0) {
			*stalled = true;
			str_printf(err, errlen, "query exceeded %.1fs time limit (no answer from server)",
				   src->query_timeout);
			rc = -1;
			break;
		}
		struct pollfd pfd = {.fd = PQsocket(p->db), .events = POLLIN};
		int pr = poll(&pfd, 1, (int)ceil(left * 1000));
		if (pr < 0 && errno != EINTR) {
			str_printf(err, errlen, "poll: %s", strerror(errno));
			rc = -1;
			break;
		}
		if (pr > 0 && !PQconsumeInput(p->db)) {
			pg_errcpy(err, errlen, PQerrorMessage(p->db));
			rc = -1;
			break;
		}
	}
done:
	if (ms)
		*ms += (clock_mono() - t0) * 1000.0;
	if (PQstatus(p->db) == CONNECTION_BAD && rc == 0) {
		pg_errcpy(err, errlen, PQerrorMessage(p->db));
		rc = -1;
	}
	if (rc < 0)
		pg_results_clear(rs);
	return rc;
}

/* Value of a cell, or NULL when NULL / out of range. */
static const char *cell(const PGresult *r, int row, int col)
{
	if (!r || row >= PQntuples(r) || col >= PQnfields(r) || PQgetisnull(r, row, col))
		return NULL;
	return PQgetvalue(r, row, col);
}

/* Parse a non-negative number (integer, numeric or float) as uint64. */
static bool cell_u64(const PGresult *r, int row, int col, double scale, uint64_t *out)
{
	const char *s = cell(r, row, col);
	char *e;
	double d;
	if (!s)
		return false;
	d = strtod(s, &e);
	if (e == s || d < 0 || !isfinite(d))
		return false;
	*out = (uint64_t)llround(d * scale);
	return true;
}

static void pg_close(struct source *src)
{
	struct pg_priv *p = src->priv;
	if (!p)
		return;
	if (p->db)
		PQfinish(p->db);
	free(p);
	src->priv = NULL;
}

/* Probe version, extensions, WAL statistics and privileges. */
static int pg_probe(struct source *src, char *err, size_t errlen)
{
	struct caps *c = &src->caps;
	struct pg_results rs;
	bool stalled;
	const PGresult *r;
	const char *v;

	if (pg_run(src,
		   "SELECT current_setting('server_version'), current_setting('server_version_num')::int, "
		   "pg_is_in_recovery(), "
		   "(SELECT extversion FROM pg_extension WHERE extname='pg_stat_statements'), "
		   "(SELECT extversion FROM pg_extension WHERE extname='pg_wait_sampling'), "
		   "current_setting('shared_preload_libraries'), "
		   "EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('pg_catalog.pg_stat_wal') "
		   "  AND attname = 'wal_sync' AND NOT attisdropped), "
		   "to_regclass('pg_catalog.pg_stat_io') IS NOT NULL, "
		   "coalesce(current_setting('track_wal_io_timing', true), ''), "
		   "(SELECT rolsuper FROM pg_roles WHERE rolname = current_user), "
		   "pg_has_role(current_user, 'pg_monitor', 'MEMBER')",
		   &rs, err, errlen, &stalled, NULL) < 0)
		return -1;
	r = rs.r[0];
	if (!r || PQntuples(r) != 1) {
		pg_results_clear(&rs);
		str_copy(err, errlen, "probe returned no row");
		return -1;
	}
	c->engine = ENGINE_POSTGRESQL;
	c->flavour = FLAVOUR_POSTGRESQL;
	str_copy(c->version, sizeof c->version, cell(r, 0, 0) ? cell(r, 0, 0) : "?");
	text_sanitize(c->version);
	c->version_num = (v = cell(r, 0, 1)) ? atol(v) : 0;
	c->in_recovery = (v = cell(r, 0, 2)) && v[0] == 't';
	if ((v = cell(r, 0, 3))) {
		int maj = 0, min = 0;
		sscanf(v, "%d.%d", &maj, &min);
		c->pgss_version = maj * 100 + min;
	}
	c->pg_wait_sampling = cell(r, 0, 4) != NULL;
	v = cell(r, 0, 5);
	if (!c->pgss_version)
		notes_add(&c->notes, "pg_stat_statements %s: add it to shared_preload_libraries and "
			  "CREATE EXTENSION pg_stat_statements in this database",
			  v && strstr(v, "pg_stat_statements") ? "is loaded but not created here" : "is not installed");
	bool has_wal_sync = (v = cell(r, 0, 6)) && v[0] == 't';
	bool has_io = (v = cell(r, 0, 7)) && v[0] == 't';
	v = cell(r, 0, 8);
	c->track_wal_io_timing = v && strcmp(v, "on") == 0;
	c->superuser = (v = cell(r, 0, 9)) && v[0] == 't';
	c->pg_monitor = c->superuser || ((v = cell(r, 0, 10)) && v[0] == 't');
	pg_results_clear(&rs);

	c->wal_stats = has_wal_sync ? WAL_STAT_WAL : WAL_LSN;
	if (!has_wal_sync && has_io) {
		/* PG18+: WAL I/O moved to pg_stat_io */
		if (pg_run(src, "SELECT count(*) FROM pg_stat_io WHERE object = 'wal'",
			   &rs, err, errlen, &stalled, NULL) < 0)
			return -1;
		if ((v = cell(rs.r[0], 0, 0)) && atol(v) > 0)
			c->wal_stats = WAL_STAT_IO;
		pg_results_clear(&rs);
	}
	if (c->wal_stats == WAL_LSN)
		notes_add(&c->notes, "this server has no WAL write/sync statistics (pg_stat_wal appeared in "
			  "PostgreSQL 14): WAL bytes/s come from LSN differences, WAL syncs are unknown");
	else if (!c->track_wal_io_timing)
		notes_add(&c->notes, "WAL write/sync times need track_wal_io_timing=on "
			  "(ALTER SYSTEM SET track_wal_io_timing = on; SELECT pg_reload_conf())");
	if (!c->pg_monitor)
		notes_add(&c->notes, "role lacks pg_monitor: other sessions' queries and some statistics "
			  "are hidden (GRANT pg_monitor TO the monitoring role)");
	return 0;
}

static int pg_connect(struct source *src, char *err, size_t errlen)
{
	struct target *t = src->tgt;
	struct pg_priv *p = xcalloc(1, sizeof *p);
	const char *kw[16], *val[16];
	char ct[16], opts[96], port[16];
	int n = 0;

	memset(&src->caps, 0, sizeof src->caps);
	src->caps.engine = ENGINE_POSTGRESQL;
	src->priv = p;
	/* the target string first (expanded), explicit flags after it win */
	if (t->pg_conninfo) {
		kw[n] = "dbname";
		val[n++] = t->pg_conninfo;
	}
	if (t->host || t->socket) {
		kw[n] = "host";
		val[n++] = t->socket ? t->socket : t->host;
	}
	if (t->port) {
		str_printf(port, sizeof port, "%d", t->port);
		kw[n] = "port";
		val[n++] = port;
	}
	if (t->user) {
		kw[n] = "user";
		val[n++] = t->user;
	}
	if (t->password) {
		kw[n] = "password";
		val[n++] = t->password;
	}
	if (t->database) {
		kw[n] = "dbname";
		val[n++] = t->database;
	}
	str_printf(ct, sizeof ct, "%d", (int)ceil(t->connect_timeout < 2 ? 2 : t->connect_timeout));
	kw[n] = "connect_timeout";
	val[n++] = ct;
	kw[n] = "application_name";
	val[n++] = "dbtop";
	str_printf(opts, sizeof opts, "-c statement_timeout=%ld -c lock_timeout=%ld",
		   (long)(src->query_timeout * 1000), (long)(src->query_timeout * 1000));
	kw[n] = "options";
	val[n++] = opts;
	kw[n] = NULL;
	val[n] = NULL;

	p->db = PQconnectdbParams(kw, val, t->pg_conninfo ? 1 : 0);
	if (!p->db || PQstatus(p->db) != CONNECTION_OK) {
		char m[NOTE_LEN];
		pg_errcpy(m, sizeof m, p->db ? PQerrorMessage(p->db) : "out of memory");
		str_printf(err, errlen, "cannot connect to %s: %s", t->label, m);
		pg_close(src);
		return -1;
	}
	if (pg_probe(src, err, errlen) < 0) {
		pg_close(src);
		return -1;
	}
	return 0;
}

/* The counters query for the WAL statistics this server has. */
static const char *counters_sql(const struct caps *c)
{
	switch (c->wal_stats) {
	case WAL_STAT_WAL:
		return "SELECT d.xc, d.xr, d.reset, extract(epoch FROM pg_postmaster_start_time()), "
		       "w.wal_records, w.wal_fpi, w.wal_bytes, w.wal_buffers_full, w.wal_write, "
		       "w.wal_write_time, w.wal_sync, w.wal_sync_time, extract(epoch FROM w.stats_reset) "
		       "FROM (SELECT sum(xact_commit) xc, sum(xact_rollback) xr, "
		       "      sum(extract(epoch FROM stats_reset)) reset FROM pg_stat_database) d, "
		       "     pg_stat_wal w";
	case WAL_STAT_IO:
		return "SELECT d.xc, d.xr, d.reset, extract(epoch FROM pg_postmaster_start_time()), "
		       "w.wal_records, w.wal_fpi, w.wal_bytes, w.wal_buffers_full, i.writes, "
		       "i.write_time, i.fsyncs, i.fsync_time, "
		       "extract(epoch FROM w.stats_reset) + coalesce(i.reset, 0) "
		       "FROM (SELECT sum(xact_commit) xc, sum(xact_rollback) xr, "
		       "      sum(extract(epoch FROM stats_reset)) reset FROM pg_stat_database) d, "
		       "     pg_stat_wal w, "
		       "     (SELECT sum(writes) writes, sum(write_time) write_time, sum(fsyncs) fsyncs, "
		       "             sum(fsync_time) fsync_time, sum(extract(epoch FROM stats_reset)) reset "
		       "      FROM pg_stat_io WHERE object = 'wal' AND context = 'normal') i";
	default:
		return "SELECT d.xc, d.xr, d.reset, extract(epoch FROM pg_postmaster_start_time()), "
		       "NULL, NULL, CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() "
		       "ELSE pg_current_wal_lsn() END - '0/0'::pg_lsn "
		       "FROM (SELECT sum(xact_commit) xc, sum(xact_rollback) xr, "
		       "      sum(extract(epoch FROM stats_reset)) reset FROM pg_stat_database) d";
	}
}

#define SETTINGS_SQL \
	"SELECT name, current_setting(name) FROM pg_settings WHERE name IN ('synchronous_commit'," \
	"'wal_writer_delay','wal_writer_flush_after','commit_delay','commit_siblings'," \
	"'wal_sync_method','full_page_writes','fsync','track_wal_io_timing','wal_level'," \
	"'synchronous_standby_names') ORDER BY name"

static int pg_sample(struct source *src, struct sample *out, bool want_settings)
{
	struct pg_priv *p = src->priv;
	struct caps *c = &src->caps;
	struct pg_results rs;
	struct strbuf q;
	bool stalled;
	const PGresult *r;
	uint64_t v, start_epoch, db_epoch, wal_epoch;
	double t0;
	int rc;

	/* one round trip, one transaction: counters (and settings) */
	sb_init(&q);
	sb_puts(&q, counters_sql(c));
	if (want_settings) {
		sb_puts(&q, "; ");
		sb_puts(&q, SETTINGS_SQL);
	}
	t0 = clock_mono();
	rc = pg_run(src, q.s, &rs, out->error, sizeof out->error, &stalled, &out->query_ms);
	sb_free(&q);
	out->nqueries++;
	p->own_xacts++;
	if (rc < 0) {
		out->state = stalled ? STATE_STALLED : STATE_DOWN;
		return -1;
	}
	out->mono = (t0 + clock_mono()) / 2;
	out->wall = clock_wall();
	r = rs.r[0];
	if (!r || PQntuples(r) != 1) {
		pg_results_clear(&rs);
		str_copy(out->error, sizeof out->error, "counters query returned no row");
		out->state = STATE_DOWN;
		return -1;
	}
	start_epoch = cell_u64(r, 0, 3, 1000, &v) ? v : 0;
	db_epoch = start_epoch ^ (cell_u64(r, 0, 2, 1000, &v) ? v : 0);
	if (cell_u64(r, 0, 0, 1, &v))
		sample_set(out, CTR_COMMITS, v, db_epoch);
	sample_set(out, CTR_OWN_COMMITS, p->own_xacts, db_epoch);
	if (cell_u64(r, 0, 1, 1, &v))
		sample_set(out, CTR_ROLLBACKS, v, db_epoch);
	if (c->wal_stats == WAL_LSN) {
		if (cell_u64(r, 0, 6, 1, &v))
			sample_set(out, CTR_WAL_BYTES, v, start_epoch);
	} else {
		wal_epoch = start_epoch ^ (cell_u64(r, 0, 12, 1000, &v) ? v : 0);
		static const int cols[][2] = {
			{4, CTR_WAL_RECORDS}, {5, CTR_WAL_FPI}, {6, CTR_WAL_BYTES},
			{7, CTR_WAL_BUFFERS_FULL}, {8, CTR_WAL_WRITES}, {10, CTR_WAL_SYNCS},
		};
		for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
			if (cell_u64(r, 0, cols[i][0], 1, &v))
				sample_set(out, cols[i][1], v, wal_epoch);
		if (c->track_wal_io_timing) {
			/* ms (float8) -> ns */
			if (cell_u64(r, 0, 9, 1e6, &v))
				sample_set(out, CTR_WAL_WRITE_NS, v, wal_epoch);
			if (cell_u64(r, 0, 11, 1e6, &v))
				sample_set(out, CTR_WAL_SYNC_NS, v, wal_epoch);
		}
		if (out->c[CTR_WAL_SYNCS].present)
			out->c[CTR_FSYNCS] = out->c[CTR_WAL_SYNCS];
	}
	if (want_settings && rs.n > 1) {
		r = rs.r[1];
		for (int i = 0; i < PQntuples(r); i++)
			if (cell(r, i, 0))
				sample_setting(out, cell(r, i, 0), cell(r, i, 1));
		out->settings_fresh = true;
	}
	pg_results_clear(&rs);
	return 0;
}

const struct source_ops pg_source_ops = {
	.name = "postgresql",
	.connect = pg_connect,
	.sample = pg_sample,
	.close = pg_close,
};
