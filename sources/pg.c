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
#include <unistd.h>

#include "../util/redact.h"
#include "../util/util.h"
#include "../model/digests.h"
#include "fallback.h"
#include "pace.h"
#include "pg_map.h"
#include "pg_locks_map.h"
#include "repl_map.h"
#include "sessions_map.h"
#include "../model/locks.h"
#include "../model/waits.h"

struct pg_priv {
	PGconn *db;
	/* pg_stat_statements loaded but not created in the connected database:
	 * a second connection (same credentials) to one that has it, for the
	 * digest reads only; NULL: none */
	PGconn *dg_db;
	uint64_t own_xacts;     /* transactions dbtop ran on this connection */
	struct strset texts;    /* digest keys whose text we have */
	/* the session list's and the lock graph's statement texts, kept once
	 * per text: each holds its last read's texts (swept after each) */
	struct text_cache sess_texts, lock_texts;
	struct pg_own own;      /* the statements dbtop sent; the digests that are its own */
	bool fb_on;             /* sampled digests: no pg_stat_statements */
	struct pg_changes seen; /* what the digest reads saw: a read after the first carries the changes */
	struct pacer dg_pace;   /* pg_stat_statements reads (--server-budget) */
	double base_ms;         /* query time of a refresh without digests (moving average; 0: none yet) */
	struct fallback fb;
	enum wait_source ws;    /* where wait events come from */
	struct wait_set *wacc;  /* WS_SAMPLED: observations since the last sample */
	bool ws_prepared;       /* the sampling statement is prepared */
	struct pacer profile_pace; /* pg_wait_sampling profile reads (pace_summary_read) */
	/* replication: the walsenders (pg_stat_replication's figures) are read
	 * at every refresh while the last read saw one or
	 * synchronous_standby_names is set, else with the settings (10 s) */
	bool repl_rows;         /* the last read saw a walsender */
	bool sync_names;        /* synchronous_standby_names is not empty */
	struct form_pick gate;  /* the lock gate: every session's wait or pg_locks (pg_gate_sql) */
	/* the lock graph in two reads a refresh apart (pg_locks_edges_sql,
	 * then pg_locks_who_sql) while one read costs more than the budget,
	 * or before its cost is known: */
	PGresult *lk_edges; /* the edges read, their sessions next (NULL: none) */
	double lk_edges_ms; /* the server time of that read */
	double lk_edges_at; /* clock_mono() of that read */
	double lk_cost;     /* ms a whole graph cost last (0: not read on this connection) */
	unsigned lk_gen;    /* src->conn_gen of lk_edges and lk_cost */
	bool lk_spent;      /* this refresh ran a lock statement */
};

/* A last row whose last column is the server's own time for the
 * statement so far, ms (from the receipt of the statement: neither the
 * network nor a busy client count), after n NULL columns: UNION ALL runs
 * it after the rows before it. */
#define PG_SERVER_MS_EXPR "(extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000)::float8"
#define PG_SERVER_MS_ROW(n) "SELECT " PG_NULLS_##n PG_SERVER_MS_EXPR
#define PG_NULLS_2 "NULL, NULL, "
#define PG_NULLS_5 "NULL, NULL, NULL, NULL, NULL, "
/* The server time of a result whose last row is PG_SERVER_MS_ROW (column
 * col), ms; -1 when absent. */
static double pg_server_ms(const PGresult *r, int col)
{
	int n = r ? PQntuples(r) : 0;
	const char *v = n > 0 && !PQgetisnull(r, n - 1, col) ? PQgetvalue(r, n - 1, col) : NULL;
	return v ? atof(v) : -1;
}

/* The lock gate as a statement of its own, in its two forms (p->gate):
 * the server's clock before and after the count, which is column 1. */
enum { PG_GATE_LOCKS, PG_GATE_SESSIONS };
static const char *const pg_gate_sql[2] = {
	[PG_GATE_LOCKS] = "SELECT " PG_SERVER_MS_EXPR ", " PG_LOCKS_GATE_LOCKS_SQL ", " PG_SERVER_MS_EXPR,
	[PG_GATE_SESSIONS] = "SELECT " PG_SERVER_MS_EXPR ", " PG_LOCKS_GATE_SQL ", " PG_SERVER_MS_EXPR,
};

/* Sessions that are doing something (active client backends, background
 * processes not idling), by wait event; on-CPU as "CPU". (The per-backend
 * wait-event functions would be ~30 % cheaper, but up to PostgreSQL 13
 * they show no wait event for the auxiliary processes, which would then
 * count as on CPU.) */
#define PG_WAIT_SAMPLE_SQL                                                                       \
	"SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU'), count(*), NULL::float8 FROM pg_stat_activity " \
	"WHERE pid <> pg_backend_pid() AND (state = 'active' OR (state IS NULL AND backend_type <> "   \
	"'client backend')) AND coalesce(wait_event_type, '') NOT IN ('Activity', 'Client', 'Extension') " \
	"GROUP BY 1 UNION ALL " PG_SERVER_MS_ROW(2)
/* pg_wait_sampling's profile (10 ms sampling on the server), idle events
 * out, between two rows of the server's clock (event NULL; the branches of
 * UNION ALL run in turn): its own cost, which paces it. */
/* clang-format off */
#define PG_WAIT_PROFILE_SQL \
	"SELECT NULL::text, NULL::numeric, NULL::text, " PG_SERVER_MS_EXPR " UNION ALL " \
	"(SELECT coalesce(event_type || ':' || event, 'CPU'), sum(count), " \
	"current_setting('pg_wait_sampling.profile_period'), NULL FROM pg_wait_sampling_profile " \
	"WHERE coalesce(event_type, '') NOT IN ('Activity', 'Client', 'Extension') GROUP BY 1) " \
	"UNION ALL SELECT NULL, NULL, NULL, " PG_SERVER_MS_EXPR
/* clang-format on */

#define TEXT_FETCH_MAX 100      /* query texts fetched per refresh */

/* A query's results (a multi-statement string yields several). */
#define PG_MAXRES 16
struct pg_results {
	PGresult *r[PG_MAXRES];
	int n;
	double first_at; /* clock_mono() when the first result came */
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

/* Take the results libpq has ready into rs; the first error's message
 * into r (*rc -1). True when the last one came. */
static bool pg_take_results(struct source *src, struct pg_results *rs, struct qres *r, int *rc)
{
	struct pg_priv *p = src->priv;
	while (!PQisBusy(p->db)) {
		PGresult *res = PQgetResult(p->db);
		if (!res)
			return true;
		ExecStatusType st = PQresultStatus(res);
		if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
			const char *code = PQresultErrorField(res, PG_DIAG_SQLSTATE);
			if (*rc == 0) {
				pg_errcpy(r->err, sizeof r->err, PQresultErrorMessage(res));
				if (code && strcmp(code, "57014") == 0) {
					r->stalled = true;
					str_printf(r->err, sizeof r->err, "query exceeded %.1fs time limit (statement_timeout)",
						   src->query_timeout);
				}
			}
			*rc = -1;
			PQclear(res);
		} else if (rs->n < PG_MAXRES) {
			if (rs->n == 0)
				rs->first_at = clock_mono();
			rs->r[rs->n++] = res;
		} else {
			PQclear(res);
		}
	}
	return false;
}

/* Run q (the prepared statement stmt instead when not NULL) and collect
 * every result before the deadline; r says how it went. Returns 0, or -1
 * (r->failed, r->err; r->stalled when the time limit hit). */
static int pg_run_stmt(struct source *src, const char *q, const char *stmt, struct pg_results *rs,
		       struct qres *r)
{
	struct pg_priv *p = src->priv;
	double t0 = clock_mono(), deadline = t0 + src->query_timeout;
	int rc = 0;

	rs->n = 0;
	r->failed = r->stalled = false;
	r->ms = 0;
	r->err[0] = '\0';
	/* a query abandoned at its time limit (a subsample's, between two
	 * refreshes) still holds the connection: that is the reason to report,
	 * not libpq's "another command is already in progress" */
	if (PQtransactionStatus(p->db) == PQTRANS_ACTIVE) {
		r->stalled = true;
		str_printf(r->err, sizeof r->err, "query exceeded %.1fs time limit (an earlier query still has no answer)",
			   src->query_timeout);
		r->failed = true;
		return -1;
	}
	if (!stmt)
		pg_own_sent(&p->own, q); /* (a prepared one was noted when prepared) */
	if (!(stmt ? PQsendQueryPrepared(p->db, stmt, 0, NULL, NULL, NULL, 0) : PQsendQuery(p->db, q))) {
		pg_errcpy(r->err, sizeof r->err, PQerrorMessage(p->db));
		r->failed = true;
		return -1;
	}
	while (!pg_take_results(src, rs, r, &rc)) {
		double left = deadline - clock_mono();
		if (left <= 0) {
			r->stalled = true;
			str_printf(r->err, sizeof r->err, "query exceeded %.1fs time limit (no answer from server)",
				   src->query_timeout);
			rc = -1;
			break;
		}
		struct pollfd pfd = {.fd = PQsocket(p->db), .events = POLLIN};
		int pr = poll(&pfd, 1, (int)d_ceil(left * 1000));
		if (pr < 0 && errno != EINTR) {
			str_printf(r->err, sizeof r->err, "poll: %s", strerror(errno));
			rc = -1;
			break;
		}
		if (pr > 0 && !PQconsumeInput(p->db)) {
			pg_errcpy(r->err, sizeof r->err, PQerrorMessage(p->db));
			rc = -1;
			break;
		}
	}
	r->ms = (clock_mono() - t0) * 1000.0;
	if (PQstatus(p->db) == CONNECTION_BAD && rc == 0) {
		pg_errcpy(r->err, sizeof r->err, PQerrorMessage(p->db));
		rc = -1;
	}
	if (rc < 0) {
		r->failed = true;
		pg_results_clear(rs);
	}
	return rc;
}

static int pg_run(struct source *src, const char *q, struct pg_results *rs, struct qres *r)
{
	return pg_run_stmt(src, q, NULL, rs, r);
}

/* pg_run on another connection of this source (the digest connection). */
static int pg_run_on(struct source *src, PGconn *conn, const char *q, struct pg_results *rs, struct qres *r)
{
	struct pg_priv *p = src->priv;
	PGconn *keep = p->db;
	p->db = conn;
	int rc = pg_run_stmt(src, q, NULL, rs, r);
	p->db = keep;
	return rc;
}

/* Value of a cell, or NULL when NULL / out of range. */
static const char *cell(const PGresult *r, int row, int col)
{
	if (!r || row >= PQntuples(r) || col >= PQnfields(r) || PQgetisnull(r, row, col))
		return NULL;
	return PQgetvalue(r, row, col);
}

/* The n cells of row `row` of r (cell()) into cells; one call per row
 * of a digest read, so the bounds are checked once and a NULL (an empty
 * value) is asked about only when the value is empty. */
static void pg_cells(const PGresult *r, int row, const char **cells, int n)
{
	int nf = r && row < PQntuples(r) ? PQnfields(r) : 0;
	for (int k = 0; k < n; k++) {
		const char *v = k < nf ? PQgetvalue(r, row, k) : NULL;
		cells[k] = v && (*v || !PQgetisnull(r, row, k)) ? v : NULL;
	}
}

static void pg_close(struct source *src)
{
	if (src->priv) {
		struct pg_priv *pp = src->priv;
		wait_set_free(pp->wacc);
		pp->wacc = NULL;
		pg_changes_free(&pp->seen);
	}
	struct pg_priv *p = src->priv;
	if (!p)
		return;
	if (p->db)
		PQfinish(p->db);
	if (p->dg_db)
		PQfinish(p->dg_db);
	PQclear(p->lk_edges);
	strset_clear(&p->texts);
	text_cache_free(&p->sess_texts);
	text_cache_free(&p->lock_texts);
	pg_own_free(&p->own);
	fallback_free(&p->fb);
	free(p);
	src->priv = NULL;
}

/* Probe version, extensions, WAL statistics and privileges. */
static int pg_probe(struct source *src, char *err, size_t errlen)
{
	struct caps *c = &src->caps;
	struct pg_results rs;
	const char *cells[PGP__COUNT];
	bool io_has_wal = false;
	struct qres qr;
	const char *v;

	if (pg_run(src, PG_PROBE_SQL, &rs, &qr) < 0) {
		str_copy(err, errlen, qr.err);
		return -1;
	}
	if (rs.n < 1 || PQntuples(rs.r[0]) != 1 || PQnfields(rs.r[0]) != PGP__COUNT) {
		pg_results_clear(&rs);
		str_copy(err, errlen, "probe returned no row");
		return -1;
	}
	pg_cells(rs.r[0], 0, cells, PGP__COUNT);
	pg_caps_probe(c, cells);
	bool ask_io = c->wal_stats != WAL_STAT_WAL && (v = cells[PGP_HAS_IO]) && v[0] == 't';
	pg_results_clear(&rs);
	if (ask_io) {
		if (pg_run(src, PG_IO_WAL_SQL, &rs, &qr) < 0) {
			str_copy(err, errlen, qr.err);
			return -1;
		}
		io_has_wal = rs.n > 0 && (v = cell(rs.r[0], 0, 0)) && atol(v) > 0;
		pg_results_clear(&rs);
	}
	pg_caps_finish(c, io_has_wal);
	return 0;
}

/* True when libpq's default gssencmode=prefer cannot find Kerberos
 * credentials anyway: no ticket cache named or at its default place, no
 * Kerberos configuration, nothing set by the user. libpq's probe for them
 * costs 0.7 MB resident, so dbtop then says gssencmode=disable itself. */
static bool gss_pointless(const struct target *t)
{
	char cc[64];
	const char *ci = t->pg_conninfo ? t->pg_conninfo : "";
	if (getenv("PGGSSENCMODE") || getenv("PGSERVICE") || getenv("KRB5CCNAME") || getenv("KRB5_CONFIG") ||
	    strstr(ci, "gssencmode") || strstr(ci, "service"))
		return false;
	str_printf(cc, sizeof cc, "/tmp/krb5cc_%u", (unsigned)getuid());
	return access("/etc/krb5.conf", F_OK) != 0 && access(cc, F_OK) != 0;
}

/* True when the target string, PGSSLMODE or a service may say an sslmode
 * (then --ssl-ca alone does not imply verify-ca over it). */
static bool sslmode_elsewhere(const struct target *t)
{
	PQconninfoOption *opts, *o;
	char *msg = NULL;
	bool said = getenv("PGSSLMODE") || getenv("PGREQUIRESSL") || getenv("PGSERVICE");
	if (said || !t->pg_conninfo)
		return said;
	opts = PQconninfoParse(t->pg_conninfo, &msg);
	if (!opts) {
		PQfreemem(msg);
		return false; /* malformed: PQconnectdbParams says so */
	}
	for (o = opts; o->keyword; o++)
		if ((strcmp(o->keyword, "sslmode") == 0 || strcmp(o->keyword, "requiressl") == 0 ||
		     strcmp(o->keyword, "service") == 0) && o->val && *o->val)
			said = true;
	PQconninfoFree(opts);
	return said;
}

/* Server notices (NOTICE, WARNING) must never reach the terminal: libpq
 * would print them on stderr, over the screen. */
static void pg_notice_ignore(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/* The server's identity (caps.server_id / server_label): the cluster's
 * system_identifier (pg_control_system(), executable by every role by
 * default on PostgreSQL 13 to 18) with the port. Left empty, with the
 * reason and the grant that mends it in the label, when it is unreadable. */
static void pg_identity(struct source *src)
{
	struct pg_priv *p = src->priv;
	struct caps *c = &src->caps;
	struct pg_results rs;
	struct qres qr;
	c->server_id[0] = '\0';
	if (pg_run(src, "SELECT (SELECT system_identifier FROM pg_control_system())::text, current_setting('port')", &rs,
		   &qr) < 0) {
		str_printf(c->server_label, sizeof c->server_label,
			   "pg_control_system() is not readable (%s): GRANT EXECUTE ON FUNCTION pg_control_system() TO "
			   "this user", qr.err);
		p->own_xacts++;
		return;
	}
	p->own_xacts++;
	const char *id = rs.n > 0 ? cell(rs.r[0], 0, 0) : NULL, *port = rs.n > 0 ? cell(rs.r[0], 0, 1) : NULL;
	if (id && *id && strspn(id, "0123456789") == strlen(id)) {
		char pt[16];
		str_copy(pt, sizeof pt, port ? port : "");
		text_sanitize(pt);
		str_printf(c->server_id, sizeof c->server_id, "postgresql:%s:%s", id, pt);
		str_printf(c->server_label, sizeof c->server_label, "PostgreSQL system %s, port %s", id, pt);
	} else {
		str_copy(c->server_label, sizeof c->server_label, "pg_control_system() returned no system_identifier");
	}
	pg_results_clear(&rs);
}

#define PGSS_DB_TRIES 8   /* databases tried for pg_stat_statements */

/* A connection with this one's parameters opts to database name, and the
 * pg_stat_statements version created there in *ver (0: none); NULL when
 * it cannot connect. */
static PGconn *pg_pgss_try(struct source *src, PQconninfoOption *opts, const char *name, int *ver)
{
	struct pg_priv *p = src->priv;
	struct pg_results rs;
	struct qres qr;
	const char *kw[48], *val[48];
	int k = 0;
	for (PQconninfoOption *o = opts; o->keyword && k < 46; o++)
		if (o->val && *o->val && strcmp(o->keyword, "dbname") != 0) {
			kw[k] = o->keyword;
			val[k++] = o->val;
		}
	kw[k] = "dbname";
	val[k++] = name;
	kw[k] = NULL;
	val[k] = NULL;
	PGconn *db = PQconnectdbParams(kw, val, 0);
	if (db)
		PQsetNoticeProcessor(db, pg_notice_ignore, NULL);
	if (!db || PQstatus(db) != CONNECTION_OK) {
		if (db)
			PQfinish(db);
		return NULL;
	}
	*ver = 0;
	if (pg_run_on(src, db, "SELECT extversion FROM pg_extension WHERE extname = 'pg_stat_statements'", &rs,
		      &qr) == 0) {
		const char *v = rs.n ? cell(rs.r[0], 0, 0) : NULL;
		int maj = 0, min = 0;
		if (v && sscanf(v, "%d.%d", &maj, &min) >= 1)
			*ver = maj * 100 + min;
		pg_results_clear(&rs);
	}
	p->own_xacts++;
	return db;
}

/* pg_stat_statements is loaded but not created in the connected database:
 * look for a database that has it (postgres first, at most PGSS_DB_TRIES,
 * each one short connection with the same parameters) and keep that
 * connection for the digest reads. Says in the notes what it found. */
static void pg_find_pgss(struct source *src)
{
	struct pg_priv *p = src->priv;
	struct caps *c = &src->caps;
	struct pg_results rs;
	struct qres qr;
	char here[64] = "", names[PGSS_DB_TRIES][64];
	int n = 0;
	if (pg_run(src, "SELECT current_database(), (SELECT array_to_string(array_agg(datname ORDER BY "
		   "datname <> 'postgres', oid), chr(1)) FROM (SELECT datname, oid FROM pg_database WHERE datallowconn "
		   "AND NOT datistemplate AND datname <> current_database() AND has_database_privilege(datname, "
		   "'CONNECT') ORDER BY datname <> 'postgres', oid LIMIT 8) d)",
		   &rs, &qr) < 0) {
		p->own_xacts++;
		return;
	}
	p->own_xacts++;
	const char *cur = rs.n ? cell(rs.r[0], 0, 0) : NULL, *list = rs.n ? cell(rs.r[0], 0, 1) : NULL;
	str_copy(here, sizeof here, cur ? cur : "?");
	text_sanitize(here);
	while (list && *list && n < PGSS_DB_TRIES) {
		const char *e = strchr(list, 1);
		size_t l = e ? (size_t)(e - list) : strlen(list);
		str_copy(names[n], l + 1 < sizeof names[n] ? l + 1 : sizeof names[n], list);
		n++;
		list = e ? e + 1 : NULL;
	}
	pg_results_clear(&rs);
	/* the parameters this connection uses, with another dbname */
	PQconninfoOption *opts = PQconninfo(p->db);
	for (int i = 0; opts && i < n && !p->dg_db; i++) {
		int ver = 0;
		PGconn *db = pg_pgss_try(src, opts, names[i], &ver);
		if (!db)
			continue;
		if (ver) {
			p->dg_db = db;
			c->pgss_version = ver;
			str_copy(c->pgss_db, sizeof c->pgss_db, names[i]);
			text_sanitize(c->pgss_db);
		} else {
			PQfinish(db);
		}
	}
	PQconninfoFree(opts);
	if (p->dg_db)
		notes_add(&c->notes, "pg_stat_statements is loaded but not created in database %s: its statistics are "
			  "read in database %s (one more connection, same credentials); CREATE EXTENSION "
			  "pg_stat_statements in %s reads them here", here, c->pgss_db, here);
	else
		notes_add(&c->notes, "pg_stat_statements is loaded but not created in database %s (nor in another "
			  "database this user can reach): CREATE EXTENSION pg_stat_statements in %s (no restart needed)",
			  here, here);
}

/* libpq's connection keywords and values (NULL-terminated), with the
 * numbers they point to. */
struct pg_params {
	const char *kw[24], *val[24];
	char ct[16], opts[96], port[16];
};

/* Keyword k = v as the n-th. */
static void pg_params_add(struct pg_params *pp, int *n, const char *k, const char *v)
{
	pp->kw[*n] = k;
	pp->val[(*n)++] = v;
}

/* The connection's keywords for the target: the target string first
 * (expanded), the explicit flags after it win. */
static void pg_conn_params(const struct source *src, struct pg_params *pp)
{
	const struct target *t = src->tgt;
	int n = 0;
	if (gss_pointless(t))
		pg_params_add(pp, &n, "gssencmode", "disable");
	if (t->pg_conninfo)
		pg_params_add(pp, &n, "dbname", t->pg_conninfo);
	if (t->host || t->socket)
		pg_params_add(pp, &n, "host", t->socket ? t->socket : t->host);
	if (t->port) {
		str_printf(pp->port, sizeof pp->port, "%d", t->port);
		pg_params_add(pp, &n, "port", pp->port);
	}
	if (t->user)
		pg_params_add(pp, &n, "user", t->user);
	if (t->password)
		pg_params_add(pp, &n, "password", t->password);
	if (t->database)
		pg_params_add(pp, &n, "dbname", t->database);
	/* --ssl-mode as sslmode; --ssl-ca alone means verify-ca (as for MySQL)
	 * unless an sslmode is said elsewhere: libpq's default prefer would
	 * fall back to no TLS when the certificate fails */
	if (t->ssl_mode > SSL_MODE_UNSET)
		pg_params_add(pp, &n, "sslmode", target_ssl_mode_name(t->ssl_mode, ENGINE_POSTGRESQL));
	else if (t->ssl_ca && *t->ssl_ca && !sslmode_elsewhere(t))
		pg_params_add(pp, &n, "sslmode", "verify-ca");
	if (t->ssl_ca && *t->ssl_ca)
		pg_params_add(pp, &n, "sslrootcert", t->ssl_ca);
	if (t->ssl_cert && *t->ssl_cert)
		pg_params_add(pp, &n, "sslcert", t->ssl_cert);
	if (t->ssl_key && *t->ssl_key)
		pg_params_add(pp, &n, "sslkey", t->ssl_key);
	str_printf(pp->ct, sizeof pp->ct, "%d", (int)d_ceil(t->connect_timeout < 2 ? 2 : t->connect_timeout));
	pg_params_add(pp, &n, "connect_timeout", pp->ct);
	pg_params_add(pp, &n, "application_name", "dbtop");
	str_printf(pp->opts, sizeof pp->opts, "-c statement_timeout=%ld -c lock_timeout=%ld%s",
		   (long)(src->query_timeout * 1000), (long)(src->query_timeout * 1000),
		   src->read_only ? " -c default_transaction_read_only=on" : "");
	pg_params_add(pp, &n, "options", pp->opts);
	pp->kw[n] = NULL;
	pp->val[n] = NULL;
}

/* --read-only: the server says whether this session is (a note). */
static void pg_read_only_note(struct source *src)
{
	struct pg_priv *p = src->priv;
	struct pg_results rs;
	struct qres qr;
	const char *v = NULL;
	if (pg_run(src, "SHOW transaction_read_only", &rs, &qr) == 0) {
		v = rs.n > 0 ? cell(rs.r[0], 0, 0) : NULL;
		if (v && strcmp(v, "on") == 0)
			notes_add(&src->caps.notes, "--read-only: this session is read-only "
				  "(default_transaction_read_only=on; the server reports transaction_read_only=on)");
		else
			notes_add(&src->caps.notes, "--read-only: the server reports transaction_read_only=%s for this "
				  "session; dbtop still sends no write", v ? v : "?");
		pg_results_clear(&rs);
	}
	p->own_xacts++;
}

/* Where wait events come from: pg_wait_sampling's profile when it is
 * readable, else dbtop's own sampling of pg_stat_activity (its statement
 * prepared, its first set started). */
static void pg_wait_source(struct source *src)
{
	struct pg_priv *p = src->priv;
	p->ws = WS_SAMPLED;
	if (src->caps.pg_wait_sampling) {
		struct pg_results rs;
		struct qres qr;
		if (pg_run(src, "SELECT count(*) FROM pg_wait_sampling_profile WHERE false", &rs, &qr) == 0) {
			p->ws = WS_PG_WAIT_SAMPLING;
			pg_results_clear(&rs);
		} else {
			notes_add(&src->caps.notes, "pg_wait_sampling is installed but not readable (%s): wait events "
				  "are sampled by dbtop instead", qr.err);
		}
		p->own_xacts++;
	}
	if (p->ws == WS_SAMPLED) {
		pg_own_sent(&p->own, PG_WAIT_SAMPLE_SQL);
		PGresult *pr = PQprepare(p->db, "dbtop_waits", PG_WAIT_SAMPLE_SQL, 0, NULL);
		p->ws_prepared = pr && PQresultStatus(pr) == PGRES_COMMAND_OK;
		PQclear(pr);
		p->wacc = wait_set_new(WS_SAMPLED);
		p->wacc->hz = source_sub_hz(src);
	}
}

/* The log directories (caps.logdev) when the server is on this host:
 * pg_wal under data_directory (its symlink followed by the driver) and
 * data_directory; one statement per connection. data_directory needs
 * pg_read_all_settings (in pg_monitor) or superuser. */
static void pg_logdirs(struct source *src)
{
	struct pg_priv *p = src->priv;
	struct caps *c = &src->caps;
	struct pg_results rs;
	struct qres qr;
	if (pg_run(src,
		   "SELECT (SELECT setting FROM pg_settings WHERE name = 'data_directory'), "
		   "host(inet_server_addr()), pg_backend_pid()",
		   &rs, &qr) < 0) {
		p->own_xacts++;
		c->logdev.state = LDS_UNSEEN;
		str_printf(c->logdev.note, sizeof c->logdev.note, "data_directory is unreadable: %s", qr.err);
		return;
	}
	p->own_xacts++;
	const char *dir = rs.n > 0 ? cell(rs.r[0], 0, 0) : NULL, *addr = rs.n > 0 ? cell(rs.r[0], 0, 1) : NULL;
	if (addr && *addr && !source_host_local(addr)) {
		source_logdev_remote(c, addr);
	} else if (rs.n > 0 && cell(rs.r[0], 0, 2)) {
		c->backend_pid = strtol(cell(rs.r[0], 0, 2), NULL, 10);
	}
	if (c->logdev.state == LDS_REMOTE) {
		/* the figures are not this host's */
	} else if (!dir || !*dir) {
		c->logdev.state = LDS_UNSEEN;
		str_copy(c->logdev.note, sizeof c->logdev.note,
			 "data_directory is not readable by this user: GRANT pg_read_all_settings (or pg_monitor) for the "
			 "log device's figures");
	} else {
		char wal[200];
		str_printf(wal, sizeof wal, "%s/pg_wal", dir);
		source_logdev_add(c, "WAL", wal);
		source_logdev_add(c, "data", dir);
	}
	pg_results_clear(&rs);
}

/* True when the target string does not parse and carries a password:
 * libpq's message about it may quote any part of it, the password too. */
static bool pg_conninfo_unsafe_error(const char *ci)
{
	if (!ci || !(strstr(ci, "password") || (strstr(ci, "://") && strchr(ci, '@'))))
		return false;
	char *msg = NULL;
	PQconninfoOption *opts = PQconninfoParse(ci, &msg);
	PQfreemem(msg);
	if (opts)
		PQconninfoFree(opts);
	return !opts;
}

static int pg_connect(struct source *src, char *err, size_t errlen)
{
	struct target *t = src->tgt;
	struct pg_priv *p = xcalloc(1, sizeof *p);
	struct pg_params pp;

	memset(&src->caps, 0, sizeof src->caps);
	src->caps.engine = ENGINE_POSTGRESQL;
	src->priv = p;
	pg_changes_init(&p->seen);
	pg_conn_params(src, &pp);
	p->db = PQconnectdbParams(pp.kw, pp.val, t->pg_conninfo ? 1 : 0);
	if (p->db)
		PQsetNoticeProcessor(p->db, pg_notice_ignore, NULL);
	if (!p->db || PQstatus(p->db) != CONNECTION_OK) {
		char m[NOTE_LEN];
		pg_errcpy(m, sizeof m, p->db ? PQerrorMessage(p->db) : "out of memory");
		if (pg_conninfo_unsafe_error(t->pg_conninfo))
			str_copy(m, sizeof m, "the target is not a valid libpq key=value string or URI (libpq's message "
				 "is withheld: it could quote the password)");
		str_printf(err, errlen, "cannot connect to %s: %s", t->label, m);
		pg_close(src);
		return -1;
	}
	if (pg_probe(src, err, errlen) < 0) {
		pg_close(src);
		return -1;
	}
	pg_identity(src);
	pg_logdirs(src);
	if (src->read_only)
		pg_read_only_note(src);
	if (!src->caps.pgss_version && src->caps.pgss_loaded)
		pg_find_pgss(src);
	/* no statement statistics: sample the active sessions instead */
	p->fb_on = src->caps.pgss_version == 0;
	fallback_init(&p->fb, src->sub_hz);
	pg_wait_source(src);
	src->wants_subsample = p->fb_on || p->ws == WS_SAMPLED;
	if (p->fb_on)
		notes_add(&src->caps.notes, "digests are sampled from pg_stat_activity at up to %g Hz "
			  "(estimates; short statements are missed): install pg_stat_statements for exact figures",
			  src->sub_hz);
	return 0;
}

/* One look at the active sessions for the sampled digests (and wait
 * events); src->sub_server_ms: what the server says it spent. */
static void pg_subsample(struct source *src)
{
	struct pg_priv *p = src->priv;
	struct pg_results rs;
	struct qres qr;
	double server_ms = 0;
	int i;
	if (!p)
		return;
	if (p->ws == WS_SAMPLED && p->wacc) {
		/* wait events: one look at what the busy sessions wait on */
		if (pg_run_stmt(src, PG_WAIT_SAMPLE_SQL, p->ws_prepared ? "dbtop_waits" : NULL, &rs, &qr) == 0) {
			p->own_xacts++;
			p->wacc->rounds++;
			p->wacc->cost_ms += qr.ms;
			for (i = 0; rs.n > 0 && i < PQntuples(rs.r[0]); i++) {
				const char *n = cell(rs.r[0], i, 1);
				if (cell(rs.r[0], i, 0))
					wait_set_add(p->wacc, cell(rs.r[0], i, 0), n ? strtoull(n, NULL, 10) : 0, 0);
			}
			double sm = pg_server_ms(rs.n > 0 ? rs.r[0] : NULL, 2);
			server_ms = sm >= 0 && server_ms >= 0 ? server_ms + sm : -1;
			pg_results_clear(&rs);
		} else {
			server_ms = -1;
		}
	}
	if (p->fb_on) {
		if (pg_run(src, "SELECT pid, datname, query_start, "
			   "extract(epoch FROM clock_timestamp() - query_start), query, NULL::float8 "
			   "FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() "
			   "AND backend_type = 'client backend' UNION ALL " PG_SERVER_MS_ROW(5),
			   &rs, &qr) < 0) {
			src->sub_server_ms = -1;
			return;
		}
		p->own_xacts++;
		p->fb.hz = src->sub_hz;
		fallback_round(&p->fb, clock_mono());
		for (i = 0; rs.n > 0 && i < PQntuples(rs.r[0]); i++) {
			const char *q = cell(rs.r[0], i, 4);
			const char *el = cell(rs.r[0], i, 3);
			if (!q || strncmp(q, "<insufficient privilege>", 24) == 0)
				continue;
			fallback_observe(&p->fb, strtoull(cell(rs.r[0], i, 0) ? cell(rs.r[0], i, 0) : "0", NULL, 10),
					 cell(rs.r[0], i, 2), el ? strtod(el, NULL) : 0, cell(rs.r[0], i, 1), q);
		}
		double sm = pg_server_ms(rs.n > 0 ? rs.r[0] : NULL, 5);
		server_ms = sm >= 0 && server_ms >= 0 ? server_ms + sm : -1;
		pg_results_clear(&rs);
	}
	src->sub_server_ms = server_ms;
}

/* Fill set's missing texts, of the digests ids[0..n-1] (one more round
 * trip, bounded). Returns 0, or -1 with out->error / out->state set. */
static int pg_fetch_texts(struct source *src, struct sample *out, struct digest_set *set, const char *const *ids,
			  size_t n)
{
	struct pg_priv *p = src->priv;
	size_t i;
	struct pg_results rs;
	struct qres qr;
	char *q;
	int rc, k;

	if (!n)
		return 0;
	q = xmalloc(256 + n * 24);
	if (!pg_digest_text_sql(&src->caps, ids, n, q, 256 + n * 24)) {
		free(q);
		return 0;   /* no valid id */
	}
	rc = pg_run_on(src, p->dg_db ? p->dg_db : p->db, q, &rs, &qr);
	qres_count(out, &qr);
	free(q);
	p->own_xacts++;
	if (rc < 0)
		return qres_fail(out, &qr);
	for (k = 0; rs.n > 0 && k < PQntuples(rs.r[0]); k++) {
		char key[200];
		pg_digest_key(key, sizeof key, cell(rs.r[0], k, 0), cell(rs.r[0], k, 1), cell(rs.r[0], k, 2),
			      cell(rs.r[0], k, 3));
		for (i = 0; i < set->n; i++)
			if (!set->rows[i].text && strcmp(set->rows[i].key, key) == 0) {
				const char *t = cell(rs.r[0], k, 4);
				set->rows[i].text = redact_secrets(t ? t : "");
				strset_add(&p->texts, key);
				pg_own_text(&p->own, key, t);
			}
	}
	pg_results_clear(&rs);
	return 0;
}

/* Run q, a side read of the sample (the lock graph, the session list),
 * counted in out. Returns 0 (the results in rs), 1 when the server
 * refused it or it timed out (r says why, for the pane), -1 when the
 * connection is lost or still busy (the sample failed). */
static int pg_side_read(struct source *src, struct sample *out, const char *q, struct pg_results *rs,
			struct qres *r)
{
	struct pg_priv *p = src->priv;
	int rc = pg_run(src, q, rs, r);
	qres_count(out, r);
	p->own_xacts++;
	if (rc == 0)
		return 0;
	if (PQstatus(p->db) == CONNECTION_BAD || PQtransactionStatus(p->db) == PQTRANS_ACTIVE)
		return qres_fail(out, r);
	return 1;
}

/* A lock read refused or timed out (rc > 0): the pane says so. */
static void pg_locks_failed(struct source *src, struct lock_set *ls, const struct qres *qr, double now)
{
	ls->status = qr->stalled ? LOCKS_TIMED_OUT : LOCKS_UNAVAILABLE;
	str_copy(ls->note, sizeof ls->note, qr->err);
	source_locks_end(src, ls, false, now);
}

/* Every cell of result r, row-major, n columns a row (NULL for SQL NULL);
 * NULL when it has no row or out of memory. */
static const char **pg_all_cells(const PGresult *r, int n, size_t *rows)
{
	*rows = r ? (size_t)PQntuples(r) : 0;
	const char **c = *rows ? calloc(*rows * (size_t)n, sizeof *c) : NULL;
	for (size_t i = 0; c && i < *rows; i++)
		pg_cells(r, (int)i, c + i * (size_t)n, n);
	return c;
}

/* The second read of a graph in two: the sessions of the edges read at
 * the refresh before (p->lk_edges), joined to them and published. */
static int pg_read_lock_who(struct source *src, struct sample *out, unsigned waiting)
{
	struct pg_priv *p = src->priv;
	PGresult *er = p->lk_edges;
	struct lock_set *ls = lock_set_new();
	struct pg_results rs;
	struct strbuf q;
	struct qres qr;
	size_t n, m;
	double now = clock_mono();
	const char **ec = pg_all_cells(er, PGL__COUNT, &n), **wc = NULL;
	int rc = 0;

	p->lk_edges = NULL;
	out->locks = ls;
	ls->waiting = waiting;
	sb_init(&q);
	if (!ec || !pg_locks_who_sql(&q, ec, n, (long)(src->query_timeout * 500))) {
		ls->status = LOCKS_UNAVAILABLE;
		str_copy(ls->note, sizeof ls->note, "out of memory for the lock graph's sessions");
		goto out;
	}
	rc = pg_side_read(src, out, q.s, &rs, &qr);
	p->lk_spent = true;
	ls->query_ms = p->lk_edges_ms + qr.ms;
	if (rc != 0) {
		if (rc > 0)
			pg_locks_failed(src, ls, &qr, now);
		goto out;
	}
	wc = pg_all_cells(rs.n > 0 ? rs.r[rs.n - 1] : NULL, PGLW__COUNT, &m);
	ls->texts = &p->lock_texts;
	pg_locks_join(ls, ec, n, wc, wc ? m : 0, src->caps.version_num < 140000, now - p->lk_edges_at);
	text_cache_sweep(ls->texts);
	ls->texts = NULL;
	pg_results_clear(&rs);
	p->lk_cost = ls->query_ms;
	src->lk_lead = src->interval > 0 ? src->interval : 1;
	source_locks_end(src, ls, true, now);
out:
	free(ec);
	free(wc);
	sb_free(&q);
	PQclear(er);
	return rc < 0 ? -1 : 0;
}

/* While a graph read in two waits for its second read: the graph read
 * last, or a note that the new one is coming. */
static void pg_locks_interim(struct source *src, struct sample *out, unsigned waiting, double now)
{
	struct lock_set *last = source_locks_last(src, waiting, now);
	if (last) {
		lock_set_free(out->locks);
		out->locks = last;
		return;
	}
	struct lock_set *ls = out->locks ? out->locks : lock_set_new();
	out->locks = ls;
	ls->waiting = waiting;
	ls->status = LOCKS_PENDING;
	str_copy(ls->note, sizeof ls->note, PG_LOCKS_TWO_READS_NOTE);
}

/* The first read of a graph in two gave edges (r, taken): kept for their
 * sessions at the next refresh. */
static void pg_locks_edges_kept(struct source *src, struct sample *out, PGresult *r, double ms, double now)
{
	struct pg_priv *p = src->priv;
	p->lk_edges = r;
	p->lk_edges_ms = ms;
	p->lk_edges_at = now;
	source_first_read_done(src, FIRST_LOCKS, ms, false);
	pg_locks_interim(src, out, out->locks ? out->locks->waiting : 0, now);
}

/* Lock waits: the lock query runs only when the gate saw a session waiting
 * on a lock; in two reads a refresh apart (the edges, then their sessions)
 * while one costs more than the budget or before its cost is known. Returns
 * -1 (sample failed) only when the connection is lost or still busy; a
 * refusal or a server-side time-out is told on the pane. */
static int pg_read_locks(struct source *src, struct sample *out, unsigned waiting, bool busy)
{
	struct pg_priv *p = src->priv;
	struct pg_results rs;
	struct qres qr;
	char q[8192];
	double now;

	p->lk_spent = false;
	if (p->lk_gen != src->conn_gen) {
		PQclear(p->lk_edges);
		p->lk_edges = NULL;
		p->lk_cost = 0;
		p->lk_gen = src->conn_gen;
	}
	if (p->lk_edges && waiting) {
		/* a refresh that paid for another costly read already puts the
		 * second read off once, while an earlier graph can stand in (a
		 * batch record is whole from the first) */
		double iv = src->interval > 0 ? src->interval : 1, at = clock_mono();
		struct lock_set *last =
			busy && at - p->lk_edges_at <= 1.5 * iv ? source_locks_last(src, waiting, at) : NULL;
		if (!last)
			return pg_read_lock_who(src, out, waiting);
		out->locks = last;
		return 0;
	}
	PQclear(p->lk_edges); /* nothing waits now: its edges have gone */
	p->lk_edges = NULL;
	struct lock_set *ls = source_locks_begin(src, out, waiting, busy, &now);
	if (!ls)
		return 0;
	bool two = src->budget_ms > 0 && (p->lk_cost <= 0 || p->lk_cost > src->budget_ms);
	/* the server gives up at half the client's deadline: a lock query
	 * that is too slow then says so on the pane (LOCKS_TIMED_OUT) instead
	 * of failing the whole refresh */
	if (!pg_locks_sql_timed(q, sizeof q, src->caps.version_num, (long)(src->query_timeout * 500), two)) {
		ls->status = LOCKS_UNAVAILABLE;
		str_copy(ls->note, sizeof ls->note, "lock query too long for its buffer");
		return 0;
	}
	int rc = pg_side_read(src, out, q, &rs, &qr);
	p->lk_spent = true;
	ls->query_ms = qr.ms;
	if (rc < 0)
		return -1;
	if (rc > 0) {
		pg_locks_failed(src, ls, &qr, now);
		return 0;
	}
	PGresult *r = rs.n > 0 ? rs.r[rs.n - 1] : NULL;
	int n = r ? PQntuples(r) : 0;
	if (two && n > 0) {
		rs.r[rs.n - 1] = NULL; /* taken */
		pg_results_clear(&rs);
		pg_locks_edges_kept(src, out, r, qr.ms, now);
		return 0;
	}
	if (!two)
		p->lk_cost = qr.ms;
	src->lk_lead = 0;
	ls->texts = &((struct pg_priv *)src->priv)->lock_texts;
	for (int i = 0; i < n; i++) {
		const char *cl[PGL__COUNT];
		pg_cells(r, i, cl, PGL__COUNT);
		pg_locks_map_row(ls, cl, PGL__COUNT);
	}
	text_cache_sweep(ls->texts);
	ls->texts = NULL;
	pg_results_clear(&rs);
	source_locks_end(src, ls, true, now);
	return 0;
}

/* The session list (pg_stat_activity), one statement, only while wanted;
 * paced under --server-budget. The same scan counts the sessions waiting
 * for a lock: *waiting, with *gate true when this refresh read it. Returns
 * -1 (sample failed) only when the connection is lost or still busy; a
 * refusal or a time-out is told on the pane. */
static int pg_read_sessions(struct source *src, struct sample *out, bool busy, unsigned *waiting, bool *gate)
{
	struct pg_priv *p = src->priv;
	struct pg_results rs;
	struct qres qr;
	char q[4096];
	double now = clock_mono();

	*gate = false;
	if (!src->want_sessions) {
		source_sessions_forget(src);
		return 0;
	}
	if ((out->sessions = source_sessions_reuse(src, now, now, busy)))
		return 0;
	struct session_set *ss = session_set_new();
	out->sessions = ss;
	if (!sessions_pg_sql_timed(q, sizeof q, src->caps.version_num, (long)(src->query_timeout * 500),
				   src->sessions_idle)) {
		ss->status = SESS_UNAVAILABLE;
		str_copy(ss->note, sizeof ss->note, "session query too long for its buffer");
		return 0;
	}
	int rc = pg_side_read(src, out, q, &rs, &qr);
	ss->query_ms = qr.ms;
	if (rc < 0)
		return -1;
	if (rc > 0) {
		ss->status = SESS_UNAVAILABLE;
		str_copy(ss->note, sizeof ss->note, qr.err);
		source_sessions_read(src, ss, qr.ms, now);
		return 0;
	}
	const PGresult *r = rs.n > 0 ? rs.r[rs.n - 1] : NULL;
	int n = r ? PQntuples(r) : 0;
	ss->texts = &p->sess_texts;
	for (int i = 0; i < n; i++) {
		const char *cl[SPG__COUNT];
		pg_cells(r, i, cl, SPG__COUNT);
		if (!cl[SPG_PID] && cl[SPG_LOCK_WAITING]) {
			*waiting = pg_locks_waiting(cl[SPG_LOCK_WAITING]);
			*gate = true;
		}
		sessions_pg_row(ss, cl, SPG__COUNT);
	}
	text_cache_sweep(ss->texts);
	ss->texts = NULL;
	pg_results_clear(&rs);
	sessions_pg_finish(ss, PQuser(p->db));
	source_sessions_read(src, ss, qr.ms, now);
	return 0;
}

/* The form of the lock gate for the next read: pg_locks (first: cheap
 * with thousands of sessions) only for a role that sees every session's
 * wait (the two then count the same). */
static int pg_gate_form(struct source *src)
{
	struct pg_priv *p = src->priv;
	/* caps.pg_monitor: a member, or a superuser */
	return form_pick_next(&p->gate, src->caps.pg_monitor ? -1 : PG_GATE_SESSIONS);
}

/* The count of a gate of form (pg_gate_sql) from its result r, its cost
 * into the choice of the next form. in_refresh: it followed the counters
 * in the refresh's string, whose server time so far (the string's start
 * to the gate's end: the reads of every refresh) becomes src->fixed_ms,
 * what the paced reads share the rest of the budget after. */
static unsigned pg_gate_result(struct source *src, const PGresult *r, int form, bool in_refresh)
{
	struct pg_priv *p = src->priv;
	double t0 = pg_server_ms(r, 0), t1 = pg_server_ms(r, 2);
	if (src->caps.pg_monitor)
		form_pick_cost(&p->gate, form, t0 >= 0 && t1 >= t0 ? t1 - t0 : -1);
	if (in_refresh && t1 >= 0)
		src->fixed_ms = src->fixed_ms > 0 ? 0.8 * src->fixed_ms + 0.2 * t1 : t1;
	return r && PQntuples(r) > 0 ? pg_locks_waiting(cell(r, 0, 1)) : 0;
}

/* The lock gate as a round trip of its own: a refresh whose session read
 * was put off (--server-budget) after it left the gate to it. */
static int pg_read_gate(struct source *src, struct sample *out, unsigned *waiting)
{
	struct pg_results rs;
	struct qres qr;
	int form = pg_gate_form(src);
	int rc = pg_side_read(src, out, pg_gate_sql[form], &rs, &qr);
	if (rc < 0)
		return -1;
	if (rc == 0 && rs.n > 0)
		*waiting = pg_gate_result(src, rs.r[rs.n - 1], form, false);
	if (rc == 0)
		pg_results_clear(&rs);
	return 0;
}

/* What one refresh reads (pg_sample) and its results as they are read. */
struct pg_refresh {
	const char *dsql;        /* the digest query of this refresh; NULL: none */
	bool dg_read;            /* the digests were due */
	bool wprof;              /* the pg_wait_sampling profile is read */
	bool other;              /* pg_stat_statements in another database: its own round trip */
	bool info;               /* pg_stat_statements_info too (deallocations) */
	int nwatch;              /* watched settings read as the counters' last columns */
	struct pg_results rs;    /* the refresh's results */
	int next;                /* the next of rs to read */
	unsigned waiting;        /* sessions waiting for a lock (the gate) */
	bool repl;               /* pg_stat_replication read: the last three results */
	bool gate_in_sessions;   /* the session read due: it counts them instead */
	bool gate_waits;         /* the screen's first two samples: no gate, no graph (source_locks_uncounted) */
	int gate_form;           /* the gate's form (pg_gate_sql) */
	struct pg_results rd;    /* the digest database's results (other) */
	const PGresult *d, *dinfo; /* pg_stat_statements and its _info; NULL: none */
	double cost;             /* the digests' server time, ms; < 0: unknown */
};

/* The refresh's statements into q (one round trip, one transaction):
 * counters, the lock gate, the wait profile and the digests when due,
 * the settings when asked for. */
static void pg_refresh_sql(struct source *src, struct sample *out, bool want_settings, struct pg_refresh *f,
			   struct strbuf *q)
{
	struct pg_priv *p = src->priv;
	struct caps *c = &src->caps;

	f->dsql = pg_digest_sql(c);
	f->info = c->pgss_version >= 109;
	/* A large pg_stat_statements (its function builds every entry, however
	 * few are asked for) is read every few refreshes under --server-budget;
	 * the digest rates cover the time between reads. */
	f->dg_read = f->dsql && pace_due_shown(&p->dg_pace, src, clock_mono(), false) &&
		     !source_first_reads_wait(src, FIRST_DIGESTS);
	if (f->dsql && !f->dg_read) {
		f->dsql = NULL;
		out->digests_skipped = true;
	}
	sb_init(q);
	/* between two full reads the watched settings (source_watched) ride
	 * along as the counters' last columns */
	f->nwatch = 0;
	if (!want_settings && source_watched(src, 0)) {
		sb_puts(q, "SELECT c.*");
		for (; source_watched(src, f->nwatch); f->nwatch++)
			sb_printf(q, ", current_setting('%s', true)", source_watched(src, f->nwatch));
		sb_printf(q, " FROM (%s) c", pg_counters_sql(c));
	} else {
		sb_puts(q, pg_counters_sql(c));
	}
	/* the session list, when it is read, scans pg_stat_activity anyway */
	f->gate_in_sessions = src->want_sessions && source_sessions_due(src, clock_mono());
	/* the screen's first frame: the count waits with the graph it gates
	 * (2,500 sessions: 20-100 ms of the second sample's server time) */
	f->gate_waits = !f->gate_in_sessions && source_first_reads_wait(src, FIRST_LOCKS);
	if (!f->gate_in_sessions && !f->gate_waits) {
		f->gate_form = pg_gate_form(src);
		sb_puts(q, "; ");
		sb_puts(q, pg_gate_sql[f->gate_form]);
	}
	/* pg_wait_sampling's profile grows with sessions x events x queries:
	 * read every few seconds or as its cost allows (its rates cover the
	 * time between); the second reading, which gives the first rates,
	 * sooner when it is cheap */
	f->wprof = p->ws == WS_PG_WAIT_SAMPLING && !source_first_reads_wait(src, FIRST_WAITS) &&
		   clock_mono() >= p->profile_pace.next;
	if (f->wprof)
		sb_puts(q, "; " PG_WAIT_PROFILE_SQL);
	out->waits_skipped = p->ws == WS_PG_WAIT_SAMPLING && !f->wprof;
	/* pg_stat_statements read in another database: its own round trip */
	f->other = f->dsql && p->dg_db;
	if (f->dsql && !f->other) {
		/* its server time: the clock before and after it (statement_timestamp
		 * is the same for the whole string), neither the network nor a busy
		 * client count */
		sb_puts(q, "; SELECT " PG_SERVER_MS_EXPR "; ");
		sb_puts(q, f->dsql);
		if (f->info)
			sb_puts(q, "; SELECT dealloc FROM pg_stat_statements_info");
		sb_puts(q, "; SELECT " PG_SERVER_MS_EXPR);
	}
	if (want_settings) {
		sb_puts(q, "; ");
		sb_puts(q, PG_SETTINGS_SQL);
		/* pg_monitor granted or revoked since the connection's probe */
		sb_puts(q, "; SELECT pg_has_role(current_user, 'pg_monitor', 'MEMBER')");
		/* a role's or a database's own durability value (screen 5's scopes) */
		sb_puts(q, "; " PG_SCOPED_SETTINGS_SQL);
	}
	/* the standbys, between two readings of the server's clock */
	f->repl = want_settings || p->repl_rows || p->sync_names;
	if (f->repl) {
		sb_puts(q, "; SELECT " PG_SERVER_MS_EXPR "; ");
		sb_puts(q, pg_repl_sql(c));
		sb_puts(q, "; SELECT " PG_SERVER_MS_EXPR);
	}
}

/* The standbys, when the refresh read them (its last three results);
 * else an empty list: no walsender at the last look, nothing configured. */
static void pg_refresh_repl(struct source *src, struct sample *out, struct pg_refresh *f)
{
	struct pg_priv *p = src->priv;
	const char *cells[PGR__COUNT];
	repl_pg_begin(&out->repl);
	if (!f->repl || f->rs.n < 3)
		return;
	const PGresult *r = f->rs.r[f->rs.n - 2];
	double before = pg_server_ms(f->rs.r[f->rs.n - 3], 0), after = pg_server_ms(f->rs.r[f->rs.n - 1], 0);
	for (int i = 0; i < PQntuples(r); i++) {
		pg_cells(r, i, cells, PGR__COUNT);
		repl_pg_row(&out->repl, cells);
	}
	out->repl.query_ms = before >= 0 && after >= before ? after - before : -1;
	p->repl_rows = PQntuples(r) > 0;
}

/* The refresh's wait events: the pg_wait_sampling profile when it was
 * read, else what the subsamples saw since the last refresh. */
static void pg_refresh_waits(struct source *src, struct sample *out, struct pg_refresh *f)
{
	struct pg_priv *p = src->priv;
	if (f->wprof && f->rs.n > f->next) {
		const PGresult *w = f->rs.r[f->next++];
		struct wait_set *ws = wait_set_new(WS_PG_WAIT_SAMPLING);
		double clock[2] = {-1, -1};
		const char *cl[PGW__COUNT];
		ws->period_ms = 10;
		for (int i = 0; i < PQntuples(w); i++) {
			pg_cells(w, i, cl, PGW__COUNT);
			pg_map_profile_row(ws, cl, clock);
		}
		double ms = pg_profile_ms(clock);
		double every = pace_summary_read(&p->profile_pace, src, clock_mono(), ms);
		source_first_read_done(src, FIRST_WAITS, ms, p->profile_pace.reads >= 2);
		pace_waits_note(ws, every, ms);
		out->waits = ws;
	} else if (p->ws == WS_SAMPLED && p->wacc) {
		out->waits = p->wacc;
		p->wacc = wait_set_new(WS_SAMPLED);
		p->wacc->hz = source_sub_hz(src);
	}
}

/* Run the refresh's statements; read the counters, the lock gate and the
 * wait events. Returns 0, or -1 with out->error and out->state set. */
static int pg_refresh_read(struct source *src, struct sample *out, bool want_settings, struct pg_refresh *f)
{
	struct pg_priv *p = src->priv;
	const char *cells[PGC__COUNT];
	struct strbuf q;
	struct qres qr;

	pg_refresh_sql(src, out, want_settings, f, &q);
	double t0 = clock_mono();
	int rc = pg_run(src, q.s, &f->rs, &qr);
	sb_free(&q);
	qres_count(out, &qr);
	p->own_xacts++;
	if (rc < 0)
		return qres_fail(out, &qr);
	/* the counters are the first statement: their read is the middle of
	 * its round trip, not of the whole refresh's (the sessions, the lock
	 * graph after them take as long as they take) */
	double now = clock_mono();
	out->mono = (t0 + (f->rs.n > 0 ? f->rs.first_at : now)) / 2;
	out->wall = clock_wall() - (now - out->mono);
	const PGresult *r = f->rs.n > 0 ? f->rs.r[0] : NULL;
	if (!r || PQntuples(r) != 1) {
		str_copy(out->error, sizeof out->error, "counters query returned no row");
		out->state = STATE_DOWN;
		return -1;
	}
	pg_cells(r, 0, cells, PGC__COUNT);
	int base = PQnfields(r) - f->nwatch;
	for (int k = base; k >= 0 && k < PGC__COUNT; k++)
		cells[k] = NULL;   /* not a counter */
	pg_map_counters(out, &src->caps, cells, p->own_xacts);
	for (int k = 0; k < f->nwatch && base >= 0; k++)
		if (cell(r, 0, base + k))
			sample_setting(out, source_watched(src, k), cell(r, 0, base + k));
	out->settings_checked = f->nwatch > 0 && base >= 0;
	f->next = 1;
	if (!f->gate_in_sessions && !f->gate_waits) {
		f->waiting = f->rs.n > f->next ? pg_gate_result(src, f->rs.r[f->next], f->gate_form, true) : 0;
		f->next++;
	}
	pg_refresh_waits(src, out, f);
	return 0;
}

/* The digest query's results (f->d, f->dinfo) and their server time
 * (f->cost): among the refresh's, or from a round trip to the digest
 * database. Returns 0, or -1 (sample failed). */
static int pg_digest_results(struct source *src, struct sample *out, struct pg_refresh *f)
{
	struct pg_priv *p = src->priv;
	struct qres qr;
	f->cost = -1;
	if (!f->other && f->rs.n > f->next + 1) {
		double before = pg_server_ms(f->rs.r[f->next++], 0);
		f->d = f->rs.r[f->next++];
		if (f->info && f->rs.n > f->next)
			f->dinfo = f->rs.r[f->next++];
		double after = f->rs.n > f->next ? pg_server_ms(f->rs.r[f->next++], 0) : -1;
		f->cost = before >= 0 && after >= before ? after - before : -1;
	} else if (f->other) {
		struct strbuf dq;
		sb_init(&dq);
		sb_puts(&dq, f->dsql);
		if (f->info)
			sb_puts(&dq, "; SELECT dealloc FROM pg_stat_statements_info");
		sb_puts(&dq, "; SELECT " PG_SERVER_MS_EXPR);
		int rc = pg_run_on(src, p->dg_db, dq.s, &f->rd, &qr);
		sb_free(&dq);
		qres_count(out, &qr);
		p->own_xacts++;
		if (rc < 0)
			return qres_fail(out, &qr);
		f->d = f->rd.n > 0 ? f->rd.r[0] : NULL;
		f->dinfo = f->info && f->rd.n > 1 ? f->rd.r[1] : NULL;
		f->cost = f->rd.n > 0 ? pg_server_ms(f->rd.r[f->rd.n - 1], 0) : -1;
	}
	return 0;
}

/* The rows of the digest read d into set: after the first read of the
 * connection only those that changed (set->partial), unless one the last
 * read listed is gone. The query ids of the digests whose text is wanted
 * into ids (at most TEXT_FETCH_MAX); returns how many. */
static size_t pg_digest_rows(struct pg_priv *p, const PGresult *d, struct digest_set *set, const char **ids)
{
	const char *dc[PGD__COUNT];
	size_t nrows = (size_t)PQntuples(d), nkeep = 0, nid = 0;
	unsigned char *pick = xmalloc(nrows ? nrows : 1);
	pg_changes_begin(&p->seen);
	for (size_t i = 0; i < nrows; i++) {
		pg_cells(d, (int)i, dc, PGD__COUNT);
		pick[i] = (unsigned char)pg_changes_row(&p->seen, dc);
	}
	set->partial = !pg_changes_end(&p->seen);
	for (size_t i = 0; i < nrows; i++)
		nkeep += !set->partial || (pick[i] & PG_PICK_KEEP);
	digest_set_reserve(set, nkeep);
	for (size_t i = 0; i < nrows; i++) {
		if (set->partial && !(pick[i] & PG_PICK_KEEP))
			continue;
		pg_cells(d, (int)i, dc, PGD__COUNT);
		pg_map_digest(set, dc);
		if ((pick[i] & PG_PICK_MOVED) && nid < TEXT_FETCH_MAX &&
		    !strset_has(&p->texts, set->rows[set->n - 1].key))
			ids[nid++] = dc[PGD_QUERYID];
	}
	free(pick);
	return nid;
}

/* The digest set from f->d into out->digests, with the texts new since
 * the last read; the next read paced by its cost on the server. Returns
 * 0, or -1 (sample failed). */
static int pg_digest_set(struct source *src, struct sample *out, struct pg_refresh *f)
{
	struct pg_priv *p = src->priv;
	struct caps *c = &src->caps;
	struct digest_set *set = xcalloc(1, sizeof *set);
	char where[80] = "";
	double cost = f->cost;

	if (f->other)
		str_printf(where, sizeof where, " in %s", c->pgss_db);
	str_printf(set->source, sizeof set->source, "pg_stat_statements %d.%d%s", c->pgss_version / 100,
		   c->pgss_version % 100, where);
	const char *ids[TEXT_FETCH_MAX];
	size_t nid = pg_digest_rows(p, f->d, set, ids);
	const char *v = f->dinfo ? cell(f->dinfo, 0, 0) : NULL;
	if (v) {
		set->lost = strtoull(v, NULL, 10);
		set->have_lost = true;
	}
	out->digests = set;
	double q0 = out->query_ms;
	if (pg_fetch_texts(src, out, set, ids, nid) < 0)
		return -1;
	/* dbtop's own statements: out of the ranking and the total unless shown */
	for (size_t i = 0; p->own.keys.m.n && i < set->n; i++)
		set->rows[i].own = pg_own_has(&p->own, set->rows[i].key);
	/* its cost on the server (the texts' round trip as it came; the
	 * refresh's queries less a refresh without digests when the server
	 * could not say) */
	if (cost < 0)
		cost = out->query_ms > p->base_ms ? out->query_ms - p->base_ms : out->query_ms;
	else
		cost += out->query_ms - q0;
	double every = pace_every_shown(src, pace_done_read(&p->dg_pace, src, clock_mono(), cost, PACED_DIGESTS));
	source_first_read_done(src, FIRST_DIGESTS, cost, p->dg_pace.reads >= 2);
	if (every > 0)
		str_printf(set->source, sizeof set->source, "pg_stat_statements %d.%d%s, read every %.0f s",
			   c->pgss_version / 100, c->pgss_version % 100, where, every);
	return 0;
}

/* The refresh's digests: pg_stat_statements when it was read, else the
 * sampled ones. Returns 0, or -1 (sample failed). */
static int pg_refresh_digests(struct source *src, struct sample *out, struct pg_refresh *f)
{
	struct pg_priv *p = src->priv;
	if (f->dsql) {
		if (pg_digest_results(src, out, f) < 0 || (f->d && pg_digest_set(src, out, f) < 0))
			return -1;
	} else if (!f->dg_read) {
		p->base_ms = p->base_ms > 0 ? 0.7 * p->base_ms + 0.3 * out->query_ms : out->query_ms;
	}
	if (!f->dsql && p->fb_on && p->fb.rounds > 0) {
		/* NULL: no look since the last refresh; the next set covers both */
		out->digests = fallback_build_sampled(&p->fb, "sampled pg_stat_activity", out->mono);
		out->digests_skipped = !out->digests;
	}
	return 0;
}

/* The settings, when the refresh read them. Returns -1 (out->error: a
 * reconnection) when pg_monitor was granted or revoked since the probe. */
static int pg_refresh_settings(struct source *src, struct sample *out, bool want_settings, struct pg_refresh *f)
{
	const struct caps *c = &src->caps;
	int next = f->next;
	if (!want_settings || f->rs.n <= next)
		return 0;
	const PGresult *r = f->rs.r[next];
	for (int i = 0; i < PQntuples(r); i++)
		if (cell(r, i, 0)) {
			sample_setting(out, cell(r, i, 0), cell(r, i, 1));
			if (strcmp(cell(r, i, 0), "synchronous_standby_names") == 0)
				((struct pg_priv *)src->priv)->sync_names = cell(r, i, 1) && cell(r, i, 1)[0];
		}
	out->settings_fresh = true;
	const PGresult *sc = f->rs.n > next + 2 ? f->rs.r[next + 2] : NULL;
	/* (a result of 4 columns: not a standby's, which follow) */
	out->scoped_read = sc && PQnfields(sc) == 4;
	for (int i = 0; out->scoped_read && i < PQntuples(sc) && out->nscoped < SCOPED_MAX; i++) {
		const char *n = cell(sc, i, 0), *k = cell(sc, i, 1), *t = cell(sc, i, 2), *v = cell(sc, i, 3);
		if (!n || !k || !t || !v)
			continue;
		struct scoped_setting *x = &out->scoped[out->nscoped++];
		str_copy(x->name, sizeof x->name, n);
		x->scope = (uint8_t)(strcmp(k, "role") == 0 ? TK_PG_ROLE : TK_PG_DATABASE);
		str_copy(x->target, sizeof x->target, t);
		str_copy(x->value, sizeof x->value, v);
		text_sanitize(x->value);
	}
	const char *mon = f->rs.n > next + 1 ? cell(f->rs.r[next + 1], 0, 0) : NULL;
	if (mon && !c->superuser && (mon[0] == 't') != c->pg_monitor) {
		/* what this role may see changed: probe again on a new
		 * connection, whose notes then say what is missing */
		str_printf(out->error, sizeof out->error, "pg_monitor was %s: reconnecting to probe the "
			   "privileges again", mon[0] == 't' ? "granted" : "revoked");
		out->state = STATE_DOWN;
		return -1;
	}
	return 0;
}

static int pg_sample(struct source *src, struct sample *out, bool want_settings)
{
	struct pg_priv *p = src->priv;
	struct pg_refresh f;
	memset(&f, 0, sizeof f);
	p->lk_spent = false;
	int rc = pg_refresh_read(src, out, want_settings, &f);
	if (rc == 0)
		rc = pg_refresh_digests(src, out, &f);
	if (rc == 0)
		rc = pg_refresh_settings(src, out, want_settings, &f);
	if (rc == 0)
		pg_refresh_repl(src, out, &f);
	pg_results_clear(&f.rd);
	pg_results_clear(&f.rs);
	if (rc < 0)
		return -1;
	/* busy: this refresh read a costly pg_stat_statements */
	bool busy = f.dg_read && p->dg_pace.next > clock_mono() + 0.5;
	bool gate = false;
	if (f.gate_in_sessions) {
		/* the session list first: its scan counts the lock waits */
		if (pg_read_sessions(src, out, busy, &f.waiting, &gate) < 0)
			return -1;
		if (!gate && pg_read_gate(src, out, &f.waiting) < 0)
			return -1;
		if (pg_read_locks(src, out, f.waiting, busy) < 0)
			return -1;
	} else {
		if (!(f.gate_waits && source_locks_uncounted(src, out)) && pg_read_locks(src, out, f.waiting, busy) < 0)
			return -1;
		if (pg_read_sessions(src, out, busy || p->lk_spent, &f.waiting, &gate) < 0)
			return -1;
	}
	out->state = STATE_UP;
	return 0;
}

#define PENDING_RECHECK_S 0.2

/* Tuning, part of TC_PROBE: what a pg_reload_conf() would apply besides
 * dbtop's change (c->pending; see pg_pending_sql), or why it is unknown. */
static void pg_tune_pending(struct source *src, struct tune_call *c)
{
	struct pg_priv *p = src->priv;
	struct pg_results rs;
	struct strbuf q;
	struct qres qr;
	const char *unread = TUNE_PENDING_UNREAD;
	c->pending[0] = '\0';
	int rc = pg_run(src, PG_PENDING_PRIV_SQL, &rs, &qr);
	p->own_xacts++;
	if (rc < 0) {
		str_printf(c->pending, sizeof c->pending, "%s (%s): pg_reload_conf() applies whatever they hold", unread,
			   qr.err);
		return;
	}
	const char *files = cell(rs.n ? rs.r[0] : NULL, 0, 0), *hba = cell(rs.n ? rs.r[0] : NULL, 0, 1),
		   *st = cell(rs.n ? rs.r[0] : NULL, 0, 2);
	bool can_files = files && files[0] == 't', can_hba = hba && hba[0] == 't', can_stat = st && st[0] == 't';
	pg_results_clear(&rs);
	if (!can_files) {
		str_printf(c->pending, sizeof c->pending, "%s (reading them needs superuser or EXECUTE on "
			   "pg_show_all_file_settings()): pg_reload_conf() applies whatever they hold", unread);
		return;
	}
	sb_init(&q);
	pg_pending_sql(&q, can_hba, can_stat);
	/* a reload just asked for (dbtop's own change, a moment ago) reaches
	 * this backend a little after the postmaster rereads the files: until
	 * then the new lines look pending. Something pending is read again
	 * once, PENDING_RECHECK_S later (then this backend has reloaded). */
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			poll(NULL, 0, (int)(PENDING_RECHECK_S * 1000));
		rc = pg_run(src, q.s, &rs, &qr);
		p->own_xacts++;
		if (rc < 0) {
			str_printf(c->pending, sizeof c->pending, "%s (%s): pg_reload_conf() applies whatever they hold",
				   unread, qr.err);
			break;
		}
		const PGresult *r = rs.n ? rs.r[0] : NULL;
		int n = r ? PQntuples(r) : 0;
		const char *(*rows)[PGF__COUNT] = xcalloc(n ? (size_t)n : 1, sizeof *rows);
		for (int i = 0; i < n; i++)
			pg_cells(r, i, rows[i], PGF__COUNT);
		pg_pending_note(c->pending, sizeof c->pending, (const char *const (*)[PGF__COUNT])rows, n);
		free(rows);
		pg_results_clear(&rs);
		if (!c->pending[0])
			break;
	}
	sb_free(&q);
}

/* Tuning, TC_PROBE: current value and privilege of every tunable. */
static int pg_tune_probe(struct source *src, struct tune_call *c)
{
	struct pg_priv *p = src->priv;
	struct pg_results rs;
	struct strbuf q;
	struct qres qr;
	const char *allowed = src->caps.superuser ? "true"
			      : src->caps.version_num >= 150000
				  ? "has_parameter_privilege(name, 'ALTER SYSTEM') AND "
				    "has_function_privilege('pg_reload_conf()', 'EXECUTE') AND "
				    "has_function_privilege('pg_show_all_file_settings()', 'EXECUTE')"
				  : "false";
	sb_init(&q);
	sb_puts(&q, "SELECT name, current_setting(name), ");
	sb_puts(&q, allowed);
	/* what ALTER SYSTEM wrote (readable by superusers only): the revert shown */
	sb_puts(&q, src->caps.superuser
		    ? ", (SELECT f.setting FROM pg_file_settings f WHERE f.name = s.name AND f.sourcefile LIKE "
		      "'%/postgresql.auto.conf' ORDER BY f.seqno DESC LIMIT 1), (SELECT count(*) FROM pg_file_settings f "
		      "WHERE f.name = s.name AND f.sourcefile LIKE '%/postgresql.auto.conf')"
		    : ", NULL, NULL");
	sb_puts(&q, " FROM pg_settings s WHERE name IN ('");
	bool first = true;
	for (size_t i = 0; i < ntunables; i++)
		if (tunables[i].kind == TK_PG_SYSTEM) {
			if (!first)
				sb_puts(&q, "','");
			sb_puts(&q, tunables[i].name);
			first = false;
		}
	sb_puts(&q, "')");
	int rc = pg_run(src, q.s, &rs, &qr);
	sb_free(&q);
	p->own_xacts++;
	if (rc < 0) {
		str_copy(c->err, sizeof c->err, qr.err);
		return -1;
	}
	const PGresult *r = rs.n > 0 ? rs.r[0] : NULL;
	for (int row = 0; r && row < PQntuples(r); row++) {
		const char *name = cell(r, row, 0), *v = cell(r, row, 1), *ok = cell(r, row, 2);
		for (size_t i = 0; name && i < ntunables; i++)
			if (tunables[i].kind == TK_PG_SYSTEM && strcmp(tunables[i].name, name) == 0) {
				str_copy(c->current[i], TUNE_VALUE_LEN, v ? v : "");
				text_sanitize(c->current[i]);
				c->known[i] = true;
				c->allowed[i] = ok && ok[0] == 't';
				const char *file = cell(r, row, 3), *cnt = cell(r, row, 4);
				if (cnt && atoi(cnt) > 0 && file)
					str_printf(c->undo_hint[i], sizeof c->undo_hint[i], "set:%s", file);
				else if (cnt)
					str_copy(c->undo_hint[i], sizeof c->undo_hint[i], "reset");
			}
	}
	pg_results_clear(&rs);
	if (src->caps.in_recovery)
		str_copy(c->note, sizeof c->note, "a standby: ALTER SYSTEM works, but these settings matter on the primary");
	pg_tune_pending(src, c);
	return 0;
}

/* Tuning, TC_PREV for one role or one database (c->kind, c->target): its
 * own line of c->t in pg_db_role_setting (ALTER ROLE r SET with no
 * database, ALTER DATABASE d SET with no role), restored exactly; was: that
 * value, else the server's (what its new sessions got); "gone" when no
 * role or database has that name. */
static int pg_tune_prev_scoped(struct source *src, struct tune_call *c)
{
	struct pg_priv *p = src->priv;
	struct pg_results rs;
	struct qres qr;
	struct strbuf q;
	const char *n = c->t->name;
	bool role = c->kind == TK_PG_ROLE;
	const char *col = role ? "rolname" : "datname", *cat = role ? "pg_roles" : "pg_database";
	char *lit = PQescapeLiteral(p->db, c->target, strlen(c->target)), cond[48];
	if (!lit) {
		str_copy(c->err, sizeof c->err, "the name could not be quoted");
		return -1;
	}
	/* by its oid when known (the session list's names are made safe for a
	 * terminal: the real one is read here), else by its name */
	if (c->target_oid)
		str_printf(cond, sizeof cond, "oid = %u", c->target_oid);
	sb_init(&q);
	sb_printf(&q,
		  "WITH t AS (SELECT oid, %s AS name FROM %s WHERE %s%s%s) SELECT current_setting('%s'), "
		  "EXISTS (SELECT FROM t), (SELECT substr(c, %zu) FROM pg_db_role_setting s, unnest(s.setconfig) c "
		  "WHERE s.setrole = %s AND s.setdatabase = %s AND split_part(c, '=', 1) = '%s' LIMIT 1), "
		  "(SELECT name FROM t)",
		  col, cat, c->target_oid ? cond : col, c->target_oid ? "" : " = ", c->target_oid ? "" : lit, n,
		  strlen(n) + 2, role ? "(SELECT oid FROM t)" : "0", role ? "0" : "(SELECT oid FROM t)", n);
	PQfreemem(lit);
	int rc = pg_run(src, q.s, &rs, &qr);
	sb_free(&q);
	p->own_xacts++;
	if (rc < 0) {
		str_copy(c->err, sizeof c->err, qr.err);
		return -1;
	}
	const PGresult *r = rs.n > 0 ? rs.r[0] : NULL;
	const char *cur = cell(r, 0, 0), *found = cell(r, 0, 1), *line = cell(r, 0, 2);
	if (!cur || !found) {
		pg_results_clear(&rs);
		str_copy(c->err, sizeof c->err, "the server returned no value");
		return -1;
	}
	const char *name = cell(r, 0, 3);
	if (found[0] != 't' || !name) {
		str_copy(c->undo, sizeof c->undo, "gone");
		str_copy(c->was, sizeof c->was, cur);
	} else if (line) {
		str_printf(c->undo, sizeof c->undo, "set:%s", line);
		str_copy(c->was, sizeof c->was, line);
	} else {
		str_copy(c->undo, sizeof c->undo, "reset");
		str_copy(c->was, sizeof c->was, cur);
	}
	if (name && found[0] == 't')
		str_copy(c->target, sizeof c->target, name);
	text_sanitize(c->was);
	pg_results_clear(&rs);
	return 0;
}

/* Tuning, TC_PREV: the running value and the postgresql.auto.conf line of
 * c->t (what ALTER SYSTEM wrote before, if anything): restored exactly. */
static int pg_tune_prev(struct source *src, struct tune_call *c)
{
	struct pg_priv *p = src->priv;
	struct pg_results rs;
	struct qres qr;
	char q[640];
	const char *n = c->t->name;
	if (tune_kind_scoped(c->kind))
		return pg_tune_prev_scoped(src, c);
	str_printf(q, sizeof q,
		   "SELECT current_setting('%s'), (SELECT setting FROM pg_file_settings WHERE name = '%s' "
		   "AND sourcefile LIKE '%%/postgresql.auto.conf' ORDER BY seqno DESC LIMIT 1), "
		   "(SELECT count(*) FROM pg_file_settings WHERE name = '%s' "
		   "AND sourcefile LIKE '%%/postgresql.auto.conf')",
		   n, n, n);
	int rc = pg_run(src, q, &rs, &qr);
	p->own_xacts++;
	if (rc < 0) {
		str_copy(c->err, sizeof c->err, qr.err);
		return -1;
	}
	const PGresult *r = rs.n > 0 ? rs.r[0] : NULL;
	const char *cur = cell(r, 0, 0), *file = cell(r, 0, 1), *cnt = cell(r, 0, 2);
	if (!cur || !cnt) {
		pg_results_clear(&rs);
		str_copy(c->err, sizeof c->err, "the server returned no value");
		return -1;
	}
	str_copy(c->was, sizeof c->was, cur);
	text_sanitize(c->was);
	if (atoi(cnt) > 0 && file)
		str_printf(c->undo, sizeof c->undo, "set:%s", file);
	else
		str_copy(c->undo, sizeof c->undo, "reset");
	pg_results_clear(&rs);
	return 0;
}

#define PG_LOCK_KEYS PG_STR(TUNE_LOCK_PG_KEY1) ", " PG_STR(TUNE_LOCK_PG_KEY2)
#define PG_STR(x) PG_STR2(x)
#define PG_STR2(x) #x
/* Another session holding the tuning lock, in any database (an advisory
 * lock is per database; the tuning lock is for the whole server). */
#define PG_LOCK_HOLDER_SQL \
	"SELECT l.pid, a.usename, a.client_addr, a.datname FROM pg_locks l LEFT JOIN pg_stat_activity a " \
	"ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.classid = " PG_STR(TUNE_LOCK_PG_KEY1) \
	" AND l.objid = " PG_STR(TUNE_LOCK_PG_KEY2) " AND l.objsubid = 2 AND l.granted " \
	"AND l.pid <> pg_backend_pid() ORDER BY l.pid LIMIT 1"

/* Tuning, TC_LOCK / TC_UNLOCK: the server-wide tuning lock, a session
 * advisory lock (the tuner takes it once). Busy: the holder's pid, user
 * and client address where pg_stat_activity shows them. */
static int pg_tune_lock(struct source *src, struct tune_call *c)
{
	struct pg_priv *p = src->priv;
	struct pg_results rs;
	struct qres qr;
	const char *v;
	p->own_xacts++;
	if (c->what == TC_UNLOCK) {
		if (pg_run(src, "SELECT pg_advisory_unlock(" PG_LOCK_KEYS ")", &rs, &qr) < 0) {
			str_copy(c->err, sizeof c->err, qr.err);
			return -1;
		}
		pg_results_clear(&rs);
		return 0;
	}
	if (pg_run(src, "SELECT pg_try_advisory_lock(" PG_LOCK_KEYS ")", &rs, &qr) < 0) {
		str_copy(c->err, sizeof c->err, qr.err);
		return -1;
	}
	v = rs.n > 0 ? cell(rs.r[0], 0, 0) : NULL;
	c->got = v && v[0] == 't';
	pg_results_clear(&rs);
	p->own_xacts++;
	if (pg_run(src, PG_LOCK_HOLDER_SQL, &rs, &qr) < 0) {
		str_copy(c->err, sizeof c->err, qr.err);
		if (c->got && pg_run(src, "SELECT pg_advisory_unlock(" PG_LOCK_KEYS ")", &rs, &qr) == 0)
			pg_results_clear(&rs);
		else if (c->got)
			str_copy(c->err, sizeof c->err, qr.err);
		c->got = false;
		return -1;
	}
	const PGresult *r = rs.n > 0 ? rs.r[0] : NULL;
	if (r && PQntuples(r) > 0) {
		const char *pid = cell(r, 0, 0), *user = cell(r, 0, 1), *addr = cell(r, 0, 2), *db = cell(r, 0, 3);
		str_printf(c->holder, sizeof c->holder, "backend pid %s, user %s, %s%s", pid ? pid : "?",
			   user ? user : "?", addr ? "from " : "local or hidden client", addr ? addr : "");
		if (db) {
			size_t l = strlen(c->holder);
			str_printf(c->holder + l, sizeof c->holder - l, ", database %s", db);
		}
		text_sanitize(c->holder);
		if (c->got) {
			/* taken here while another database has it: not ours */
			struct pg_results r2;
			p->own_xacts++;
			if (pg_run(src, "SELECT pg_advisory_unlock(" PG_LOCK_KEYS ")", &r2, &qr) == 0)
				pg_results_clear(&r2);
			c->got = false;
		}
	} else if (!c->got) {
		str_copy(c->holder, sizeof c->holder, "a session this user cannot see");
	}
	pg_results_clear(&rs);
	return 0;
}

/* Tuning, TC_EXEC: run c->sql, then pg_reload_conf() when c->reload. */
static int pg_tune_exec(struct source *src, struct tune_call *c)
{
	struct pg_priv *p = src->priv;
	struct pg_results rs;
	struct qres qr;
	int rc = pg_run(src, c->sql, &rs, &qr);
	p->own_xacts++;
	if (rc < 0) {
		str_copy(c->err, sizeof c->err, qr.err);
		c->unsure = qr.stalled || PQstatus(p->db) != CONNECTION_OK;
		return -1;
	}
	pg_results_clear(&rs);
	if (!c->reload)
		return 0;
	rc = pg_run(src, "SELECT pg_reload_conf()", &rs, &qr);
	p->own_xacts++;
	if (rc < 0) {
		/* postgresql.auto.conf is changed already: the change must be reverted */
		str_copy(c->err, sizeof c->err, qr.err);
		c->unsure = true;
		return -1;
	}
	pg_results_clear(&rs);
	return 0;
}

/* Tuning: probe, read the state to restore, or run a change. */
static int pg_tune(struct source *src, struct tune_call *c)
{
	static const struct tune_steps steps = {pg_tune_probe, pg_tune_prev, pg_tune_lock, pg_tune_exec};
	return source_tune(src, c, &steps);
}

/* The identity of backend pid as pg_stat_activity shows it now (for the
 * message of a refused action): 1, 0 when there is none, -1 when the
 * read failed (err set). */
static int pg_ident_now(struct source *src, long long pid, struct session_ident *now, char *err, size_t errlen)
{
	struct pg_priv *p = src->priv;
	struct pg_results rs;
	struct qres qr;
	int found = 0;
	char q[320];
	memset(now, 0, sizeof *now);
	str_printf(q, sizeof q,
		   "SELECT " PG_US("backend_start") ", " PG_US("xact_start") ", " PG_US("query_start")
		   " FROM pg_stat_activity WHERE pid = %lld",
		   pid);
	if (pg_run(src, q, &rs, &qr) < 0) {
		str_copy(err, errlen, qr.err);
		return -1;
	}
	p->own_xacts++;
	const PGresult *r = rs.n > 0 ? rs.r[0] : NULL;
	if (r && PQntuples(r) > 0) {
		const char *v;
		found = 1;
		now->known = true;
		if ((v = cell(r, 0, 0)))
			now->start_us = atoll(v);
		if ((v = cell(r, 0, 1)))
			now->xact_us = atoll(v);
		if ((v = cell(r, 0, 2)))
			now->stmt_us = atoll(v);
	}
	pg_results_clear(&rs);
	return found;
}

/* End a backend or cancel its query: one statement that signals the pid
 * only while pg_stat_activity shows the backend `who` describes (its
 * backend_start; its xact_start when it had a transaction; for a cancel
 * its query_start). Left of the race: the microseconds between that
 * statement's read of the backend table and its kill(). */
static int pg_act(struct source *src, int what, long long id, const struct session_ident *who, char *msg,
		  size_t len)
{
	struct pg_priv *p = src->priv;
	bool cancel = what != SRC_ACT_TERMINATE;
	struct pg_results rs;
	struct qres qr;
	char q[512];
	const char *v;
	if (src->read_only) {
		str_copy(msg, len, "--read-only: refused");
		return -1;
	}
	if (id <= 0 || id > 0x7fffffff) {
		str_printf(msg, len, "%lld is not a backend pid", id);
		return -1;
	}
	if (!who || !who->known || !who->start_us) {
		str_printf(msg, len,
			   "session %lld: nothing was done: the sample did not show when it started (another role's "
			   "session needs pg_read_all_stats), so it cannot be told from a later one",
			   id);
		return -1;
	}
	char act[64];
	session_act_sql(true, false, !cancel, id, who, act, sizeof act);
	size_t n = str_printf(q, sizeof q,
			      "SELECT %s FROM pg_stat_activity WHERE pid = %lld AND " PG_US("backend_start") " = %lld",
			      act, id, who->start_us);
	if (who->xact_us)
		n += str_printf(q + n, sizeof q - n, " AND " PG_US("xact_start") " = %lld", who->xact_us);
	if (cancel && who->stmt_us)
		str_printf(q + n, sizeof q - n, " AND " PG_US("query_start") " = %lld", who->stmt_us);
	if (pg_run(src, q, &rs, &qr) < 0) {
		str_copy(msg, len, qr.err);
		return -1;
	}
	p->own_xacts++;
	const PGresult *r = rs.n > 0 ? rs.r[0] : NULL;
	int rows = r ? PQntuples(r) : 0;
	v = rows > 0 ? cell(r, 0, 0) : NULL;
	bool done = v && v[0] == 't';
	pg_results_clear(&rs);
	if (done) {
		str_printf(msg, len, "%s: done (the session you saw: same start%s)", act,
			   who->xact_us ? ", same transaction" : "");
		return 0;
	}
	if (rows > 0) {
		str_printf(msg, len, "%s returned false: the session is gone already", act);
		return -1;
	}
	struct session_ident now;
	char err[NOTE_LEN / 2];
	int present = pg_ident_now(src, id, &now, err, sizeof err);
	source_act_refused(msg, len, id, present, who, &now, cancel, err);
	return -1;
}

/* Send the EXPLAIN (the simple protocol only when asked) and wait for its
 * last result until the query time limit; NULL with err set when none
 * came, *busy when the time ran out with the statement still running. */
static PGresult *pg_explain_run(struct source *src, const char *stmt, bool simple, bool *busy, char *err,
				size_t elen)
{
	struct pg_priv *p = src->priv;
	double deadline = clock_mono() + src->query_timeout;
	PGresult *last = NULL, *r;
	*busy = false;
	if (!(simple ? PQsendQuery(p->db, stmt) : PQsendQueryParams(p->db, stmt, 0, NULL, NULL, NULL, NULL, 0))) {
		pg_errcpy(err, elen, PQerrorMessage(p->db));
		return NULL;
	}
	for (;;) {
		while (!PQisBusy(p->db)) {
			if (!(r = PQgetResult(p->db))) {
				if (!last)
					str_copy(err, elen, "no answer to the EXPLAIN");
				return last;
			}
			PQclear(last);
			last = r;
		}
		double left = deadline - clock_mono();
		if (left <= 0) {
			*busy = true;
			str_printf(err, elen, "the EXPLAIN exceeded the %.1fs time limit", src->query_timeout);
			PQclear(last);
			return NULL;
		}
		struct pollfd pfd = {.fd = PQsocket(p->db), .events = POLLIN};
		if ((poll(&pfd, 1, (int)d_ceil(left * 1000)) < 0 && errno != EINTR) || !PQconsumeInput(p->db)) {
			pg_errcpy(err, elen, PQerrorMessage(p->db));
			PQclear(last);
			return NULL;
		}
	}
}

/* The EXPLAIN of the statement backend id runs, read again from
 * pg_stat_activity (the session `who` describes: the same backend_start),
 * in a new string, and the session's role in role; *idle when the session
 * has finished it. NULL with err set when it cannot be explained. */
static char *pg_explain_stmt(struct source *src, long long id, const struct session_ident *who, bool *idle,
			     char *role, size_t rlen, char *err, size_t elen)
{
	struct pg_priv *p = src->priv;
	struct pg_results rs;
	struct qres qr;
	char q[256];
	str_printf(q, sizeof q,
		   "SELECT query, state, datname, datname = current_database(), " PG_US("backend_start")
		   ", backend_type, usename FROM pg_stat_activity WHERE pid = %lld", id);
	if (pg_run(src, q, &rs, &qr) < 0) {
		str_copy(err, elen, qr.err);
		return NULL;
	}
	p->own_xacts++;
	const PGresult *r = rs.n > 0 ? rs.r[0] : NULL;
	if (!r || PQntuples(r) < 1) {
		pg_results_clear(&rs);
		str_printf(err, elen, "session %lld has ended", id);
		return NULL;
	}
	const char *text = cell(r, 0, 0), *state = cell(r, 0, 1), *db = cell(r, 0, 2), *same = cell(r, 0, 3);
	const char *start = cell(r, 0, 4), *type = cell(r, 0, 5), *user = cell(r, 0, 6);
	char *stmt = NULL;
	str_copy(role, rlen, user ? user : "");
	if (who && who->known && who->start_us && (!start || strtoll(start, NULL, 10) != who->start_us))
		str_printf(err, elen, "session %lld is not the one you saw (it started at another time): nothing "
			   "explained", id);
	else if (!text || strcmp(text, "<insufficient privilege>") == 0)
		str_printf(err, elen, "session %lld's statement is not visible to this role: GRANT "
			   "pg_read_all_stats TO %s", id, PQuser(p->db));
	else if (type && strcmp(type, "client backend") != 0)
		str_printf(err, elen, "session %lld is a %s, not a client's statement", id, type);
	else if (same && same[0] != 't')
		str_printf(err, elen, "session %lld runs in database %s, dbtop is connected to %s: connect dbtop "
			   "there to explain it", id, db ? db : "?", PQdb(p->db));
	else if (!role[0])
		str_printf(err, elen, "session %lld has no role to plan its statement as", id);
	else if (explain_text_ok(text, err, elen) && explain_pg_text_safe(text, err, elen))
		stmt = xmalloc(strlen(text) + 64);
	if (stmt && !explain_pg_sql(stmt, strlen(text) + 64, text, src->caps.version_num, err, elen)) {
		free(stmt);
		stmt = NULL;
	}
	*idle = state && strcmp(state, "active") != 0;
	pg_results_clear(&rs);
	return stmt;
}

/* Run one statement of explain's transaction; false with err set (the
 * server's message, then why) when it fails. */
static bool pg_explain_step(struct source *src, const char *q, const char *why, char *err, size_t elen)
{
	struct pg_results rs;
	struct qres qr;
	int rc = pg_run(src, q, &rs, &qr);
	pg_results_clear(&rs);
	if (rc == 0)
		return true;
	str_printf(err, elen, "%s%s%s", qr.err, why ? ": " : "", why ? why : "");
	return false;
}

/* Code the planner may run, owned by a role dbtop does not trust (neither
 * a superuser nor dbtop's own login role): functions it folds (IMMUTABLE)
 * or runs to estimate (STABLE), functions a domain's CHECK or a range's
 * subtype_diff call (run by type input and estimates whatever their
 * volatility), and stored expressions (views, defaults, constraints,
 * policies) that call the STABLE built-ins running SQL (*_to_xml). Any of
 * it, and planning could run another user's code in dbtop's session,
 * where SET ROLE is no boundary (RESET ROLE undoes it). */
#define PG_UNTRUSTED_CODE                                                                                     \
	"WITH u AS (SELECT p.oid, p.provolatile FROM pg_catalog.pg_proc p "                                   \
	"JOIN pg_catalog.pg_language l ON l.oid = p.prolang JOIN pg_catalog.pg_roles r ON r.oid = p.proowner " \
	"WHERE l.lanname NOT IN ('internal', 'c') AND NOT r.rolsuper AND r.rolname <> session_user), "       \
	"x AS (SELECT ':funcid (' || string_agg(oid::text, '|') || ') ' AS re FROM pg_catalog.pg_proc "     \
	"WHERE proname LIKE '%\\_to\\_xml%' AND provolatile <> 'v') "                                        \
	"(SELECT oid::regprocedure::text FROM u WHERE provolatile <> 'v' "                                    \
	"OR oid IN (SELECT rngsubdiff FROM pg_catalog.pg_range) "                                             \
	"OR oid IN (SELECT d.refobjid FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_constraint c "           \
	"ON c.oid = d.objid AND d.classid = 'pg_catalog.pg_constraint'::regclass WHERE c.contypid <> 0) "      \
	"ORDER BY 1 LIMIT 3) UNION ALL "                                                                      \
	"(SELECT 'a view, default, constraint or policy calling ' || m[1]::oid::regproc::text FROM ("         \
	"SELECT ev_action::text AS t FROM pg_catalog.pg_rewrite UNION ALL "                                   \
	"SELECT adbin::text FROM pg_catalog.pg_attrdef UNION ALL "                                            \
	"SELECT conbin::text FROM pg_catalog.pg_constraint WHERE conbin IS NOT NULL UNION ALL "               \
	"SELECT concat(polqual::text, polwithcheck::text) FROM pg_catalog.pg_policy) e, x, "                  \
	"LATERAL regexp_match(e.t, x.re) m WHERE m IS NOT NULL LIMIT 1)"

/* Inside explain's transaction, before the plan: the catalogs that hold
 * code held still (a superuser dbtop), no code of a role dbtop does not
 * trust for the planner to run, then the session's own role and a search
 * path without anyone's temporary schema first. */
static bool pg_explain_guard(struct source *src, const char *role, char *err, size_t elen)
{
	struct pg_priv *p = src->priv;
	const char *su = PQparameterStatus(p->db, "is_superuser");
	if (su && strcmp(su, "on") == 0) {
		/* a read-only session (--read-only) or a standby cannot take
		 * them: then without (no function can be created on a standby;
		 * docs/explain.md says what is left on a primary) */
		if (!pg_explain_step(src, "SAVEPOINT dbtop_lock", NULL, err, elen))
			return false;
		if (!pg_explain_step(src, "LOCK TABLE pg_catalog.pg_proc, pg_catalog.pg_constraint, pg_catalog.pg_range, "
				     "pg_catalog.pg_rewrite, pg_catalog.pg_attrdef, pg_catalog.pg_policy IN SHARE MODE NOWAIT",
				     "functions, types or views are being changed now: try again", err, elen)) {
			if (!strstr(err, "read-only transaction") && !strstr(err, "during recovery"))
				return false;
			if (!pg_explain_step(src, "ROLLBACK TO SAVEPOINT dbtop_lock", NULL, err, elen))
				return false;
		}
	}
	if (!pg_explain_step(src, "SET TRANSACTION READ ONLY", NULL, err, elen))
		return false;
	struct pg_results rs;
	struct qres qr;
	if (pg_run(src, PG_UNTRUSTED_CODE, &rs, &qr) < 0) {
		str_copy(err, elen, qr.err);
		return false;
	}
	const PGresult *r = rs.n > 0 ? rs.r[0] : NULL;
	int n = r ? PQntuples(r) : 0;
	if (n > 0) {
		size_t w = str_printf(err, elen, "not explained: planning may run code of roles dbtop does not trust "
				      "(neither superusers nor %s): ", PQuser(p->db));
		for (int i = 0; i < n; i++)
			w += str_printf(err + w, elen - w, "%s%s", i ? ", " : "", cell(r, i, 0) ? cell(r, i, 0) : "?");
		str_printf(err + w, elen - w, "; see docs/explain.md");
	}
	pg_results_clear(&rs);
	if (n > 0)
		return false;
	char *id = PQescapeIdentifier(p->db, role, strlen(role));
	char q[256], why[320];
	str_printf(q, sizeof q, "SET LOCAL ROLE %s", id ? id : "\"\"");
	PQfreemem(id);
	str_printf(why, sizeof why, "%s may not act as %s (SET ROLE): plans are made as the session's role; GRANT "
		   "%s TO %s (WITH INHERIT FALSE on 16+)", PQuser(p->db), role, role, PQuser(p->db));
	return pg_explain_step(src, q, why, err, elen) &&
	       pg_explain_step(src, "SET LOCAL search_path = pg_catalog, \"$user\", public, pg_temp", NULL, err, elen);
}

/* The plan's lines into plan (the EXPLAIN's result er); 0, or -1 with err
 * set when er is an error. */
static int pg_explain_take(struct source *src, PGresult *er, bool idle, const char *role, char *plan, size_t len,
			   char *err, size_t elen)
{
	if (PQresultStatus(er) != PGRES_TUPLES_OK) {
		pg_errcpy(err, elen, PQresultErrorMessage(er));
		const char *code = PQresultErrorField(er, PG_DIAG_SQLSTATE);
		if (code && strcmp(code, "42501") == 0) {
			size_t n = strlen(err);
			str_printf(err + n, elen - n, " (planning needs the privileges the statement needs: the "
				   "session's role %s has not)", role);
		}
		return -1;
	}
	size_t n = 0;
	if (idle)
		n += str_copy(plan, len, "(the session's last statement: it is idle now)\n");
	for (int i = 0; i < PQntuples(er) && n < len; i++) {
		char line[1024];
		str_copy(line, sizeof line, PQgetvalue(er, i, 0));
		n += str_printf(plan + n, len - n, "%s\n", text_sanitize(line));
	}
	(void)src;
	return 0;
}

/* The plan of a session's statement, read again from pg_stat_activity
 * (the session `who` describes: the same backend_start) and planned, not
 * run (docs/explain.md): EXPLAIN with an option list (nothing the text
 * says can make it ANALYZE; GENERIC_PLAN on 16+ for $n parameters), the
 * server parsing one statement (the extended protocol, or no ';' at all),
 * in a read-only transaction rolled back, with the query time limit, as
 * the session's role (pg_explain_guard). */
static int pg_explain(struct source *src, long long id, const struct session_ident *who, char *plan, size_t len,
		      char *err, size_t elen)
{
	struct pg_priv *p = src->priv;
	plan[0] = '\0';
	if (id <= 0 || id > 0x7fffffff) {
		str_printf(err, elen, "%lld is not a backend pid", id);
		return -1;
	}
	bool idle = false;
	char role[256];
	char *stmt = pg_explain_stmt(src, id, who, &idle, role, sizeof role, err, elen);
	if (!stmt) {
		text_sanitize(err);
		return -1;
	}
	char begin[96];
	str_printf(begin, sizeof begin, "BEGIN; SET LOCAL statement_timeout = %ld", (long)(src->query_timeout * 1000));
	if (!pg_explain_step(src, begin, NULL, err, elen)) {
		free(stmt);
		return -1;
	}
	p->own_xacts++;
	int rc = -1;
	PGresult *er = NULL;
	bool busy = false;
	if (pg_explain_guard(src, role, err, elen)) {
		/* the extended protocol takes one statement only; EXPLAIN
		 * (GENERIC_PLAN) must come without parameter values, which only
		 * the simple protocol sends: then the text has no ';' at all */
		if (strncmp(stmt, "EXPLAIN (GENERIC_PLAN)", 22) != 0)
			er = pg_explain_run(src, stmt, false, &busy, err, elen);
		else if (!strchr(stmt, ';'))
			er = pg_explain_run(src, stmt, true, &busy, err, elen);
		else
			str_copy(err, elen, "a statement with parameters and a ';' in it is not explained");
	}
	free(stmt);
	if (busy)
		return -1;   /* no answer in time: the next sample finds the connection busy and reconnects */
	if (er)
		rc = pg_explain_take(src, er, idle, role, plan, len, err, elen);
	PQclear(er);
	PGresult *rb = PQexec(p->db, "ROLLBACK");
	PQclear(rb);
	text_sanitize(err);
	return rc;
}

const struct source_ops pg_source_ops = SOURCE_OPS("postgresql", pg);

#include "abi.h"
PLUGIN_ABI_DEFINE;
