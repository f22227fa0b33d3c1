/* model.c - counters to rates with reset detection, and history rings. */
#include "model.h"

#include <math.h>
#include <string.h>

#include "../util/util.h"

#define NET_CARRY_MAX 5.0  /* own transactions carried over at most */

/* The metric table: what every figure is made of. Order matters: a ratio
 * comes after the metrics it divides. */
const struct metric_def metric_defs[M__COUNT] = {
	[M_COMMITS] = {M_COMMITS, "commits_per_s", "/s", ENG_MY | ENG_PG, MK_RATE_NET,
		CTR_COMMITS, CTR_OWN_COMMITS, "transactions committed per second"},
	[M_ROLLBACKS] = {M_ROLLBACKS, "rollbacks_per_s", "/s", ENG_MY | ENG_PG, MK_RATE,
		CTR_ROLLBACKS, 0, "transactions rolled back per second"},
	[M_FSYNCS] = {M_FSYNCS, "fsyncs_per_s", "/s", ENG_MY | ENG_PG, MK_RATE,
		CTR_FSYNCS, 0, "durability syncs per second (redo+binlog, or WAL)"},
	[M_FSYNCS_PER_COMMIT] = {M_FSYNCS_PER_COMMIT, "fsyncs_per_commit", "", ENG_MY | ENG_PG, MK_RATIO,
		M_FSYNCS, M_COMMITS, "durability syncs per commit"},
	[M_COM_COMMIT] = {M_COM_COMMIT, "com_commit_per_s", "/s", ENG_MY, MK_RATE,
		CTR_COM_COMMIT, 0, "explicit COMMIT statements per second (Com_commit)"},
	[M_HANDLER_COMMIT] = {M_HANDLER_COMMIT, "handler_commit_per_s", "/s", ENG_MY, MK_RATE,
		CTR_HANDLER_COMMIT, 0, "internal storage-engine commits per second (Handler_commit)"},
	[M_REDO_FSYNCS] = {M_REDO_FSYNCS, "redo_fsyncs_per_s", "/s", ENG_MY, MK_RATE,
		CTR_REDO_FSYNCS, 0, "InnoDB redo log syncs per second"},
	[M_REDO_FSYNC_MS] = {M_REDO_FSYNC_MS, "redo_fsync_avg_ms", "ms", ENG_MY, MK_AVG_MS,
		CTR_REDO_FSYNC_NS, CTR_REDO_FSYNCS, "average redo log sync time"},
	[M_BINLOG_FSYNCS] = {M_BINLOG_FSYNCS, "binlog_fsyncs_per_s", "/s", ENG_MY, MK_RATE,
		CTR_BINLOG_FSYNCS, 0, "binary log syncs per second"},
	[M_BINLOG_FSYNC_MS] = {M_BINLOG_FSYNC_MS, "binlog_fsync_avg_ms", "ms", ENG_MY, MK_AVG_MS,
		CTR_BINLOG_FSYNC_NS, CTR_BINLOG_FSYNCS, "average binary log sync time"},
	[M_BINLOG_COMMITS] = {M_BINLOG_COMMITS, "binlog_commits_per_s", "/s", ENG_MY, MK_RATE,
		CTR_BINLOG_COMMITS, 0, "transactions written to the binary log per second"},
	[M_BINLOG_GROUP_COMMITS] = {M_BINLOG_GROUP_COMMITS, "binlog_group_commits_per_s", "/s", ENG_MY, MK_RATE,
		CTR_BINLOG_GROUP_COMMITS, 0, "binary log group commits per second"},
	[M_BINLOG_COMMITS_PER_GROUP] = {M_BINLOG_COMMITS_PER_GROUP, "binlog_commits_per_group", "", ENG_MY, MK_RATIO,
		M_BINLOG_COMMITS, M_BINLOG_GROUP_COMMITS, "transactions per binlog group commit"},
	[M_DATA_FSYNCS] = {M_DATA_FSYNCS, "innodb_data_fsyncs_per_s", "/s", ENG_MY, MK_RATE,
		CTR_DATA_FSYNCS, 0, "all InnoDB fsyncs per second (Innodb_data_fsyncs)"},
	[M_REDO_WRITES] = {M_REDO_WRITES, "redo_writes_per_s", "/s", ENG_MY, MK_RATE,
		CTR_REDO_WRITES, 0, "redo log write requests per second (Innodb_log_writes)"},
	[M_REDO_BYTES] = {M_REDO_BYTES, "redo_bytes_per_s", "B/s", ENG_MY, MK_RATE,
		CTR_REDO_BYTES, 0, "redo bytes written per second (Innodb_os_log_written)"},
	[M_WAL_RECORDS] = {M_WAL_RECORDS, "wal_records_per_s", "/s", ENG_PG, MK_RATE,
		CTR_WAL_RECORDS, 0, "WAL records per second"},
	[M_WAL_FPI] = {M_WAL_FPI, "wal_fpi_per_s", "/s", ENG_PG, MK_RATE,
		CTR_WAL_FPI, 0, "WAL full-page images per second"},
	[M_WAL_BYTES] = {M_WAL_BYTES, "wal_bytes_per_s", "B/s", ENG_PG, MK_RATE,
		CTR_WAL_BYTES, 0, "WAL bytes generated per second"},
	[M_WAL_BUFFERS_FULL] = {M_WAL_BUFFERS_FULL, "wal_buffers_full_per_s", "/s", ENG_PG, MK_RATE,
		CTR_WAL_BUFFERS_FULL, 0, "WAL writes forced by full WAL buffers per second"},
	[M_WAL_WRITES] = {M_WAL_WRITES, "wal_writes_per_s", "/s", ENG_PG, MK_RATE,
		CTR_WAL_WRITES, 0, "WAL write calls per second"},
	[M_WAL_WRITE_MS] = {M_WAL_WRITE_MS, "wal_write_avg_ms", "ms", ENG_PG, MK_AVG_MS,
		CTR_WAL_WRITE_NS, CTR_WAL_WRITES, "average WAL write time"},
	[M_WAL_SYNCS] = {M_WAL_SYNCS, "wal_syncs_per_s", "/s", ENG_PG, MK_RATE,
		CTR_WAL_SYNCS, 0, "WAL syncs per second"},
	[M_WAL_SYNC_MS] = {M_WAL_SYNC_MS, "wal_sync_avg_ms", "ms", ENG_PG, MK_AVG_MS,
		CTR_WAL_SYNC_NS, CTR_WAL_SYNCS, "average WAL sync time"},
	[M_WAL_BYTES_PER_COMMIT] = {M_WAL_BYTES_PER_COMMIT, "wal_bytes_per_commit", "B", ENG_PG, MK_RATIO,
		M_WAL_BYTES, M_COMMITS, "WAL bytes per commit"},
	[M_COMMIT_MS] = {M_COMMIT_MS, "commit_avg_ms", "ms", ENG_MY, MK_AVG_MS,
		CTR_COMMIT_NS, CTR_COMMIT_STMTS, "average COMMIT statement latency (performance_schema)"},
	[M_STMTS] = {M_STMTS, "statements_per_s", "/s", ENG_MY, MK_RATE_NET,
		CTR_STMTS, CTR_OWN_STMTS, "statements run per second, dbtop's own left out (performance_schema)"},
	[M_EXEC_STMTS] = {M_EXEC_STMTS, "prepared_executes_per_s", "/s", ENG_MY, MK_RATE,
		CTR_EXEC_STMTS, 0, "server-side prepared statements run per second (statement/com/Execute)"},
	[M_OWN_STMTS] = {M_OWN_STMTS, "own_statements_per_s", "/s", ENG_MY, MK_RATE,
		CTR_OWN_STMTS, 0, "dbtop's own statements per second (its connection's thread)"},
	[M_RUNS] = {M_RUNS, "runs_per_s", "/s", ENG_MY, MK_RATE,
		CTR_CREATE_DB, 0, "benchmark runs started per second: CREATE DATABASE statements (Com_create_db), "
		"as mysqlslap starts each run"},
	[M_RUN_S] = {M_RUN_S, "run_s", "s", ENG_MY, MK_PER_RUN,
		0, 0, "time per benchmark run: the newest runs' span / their count (mysqlslap: CREATE DATABASE "
		"starts each run)"},
	[M_RUN_FSYNCS] = {M_RUN_FSYNCS, "fsyncs_per_run", "", ENG_MY, MK_PER_RUN,
		M_FSYNCS, 0, "durability syncs per benchmark run over the newest runs (fsyncs counted / runs counted)"},
};

void model_init(struct model *m, size_t history_len)
{
	int i;
	memset(m, 0, sizeof *m);
	for (i = 0; i < M__COUNT; i++) {
		ring_init(&m->hist[i], history_len);
		m->cur[i].v = NAN;
		m->cur[i].st = RATE_INIT;
	}
	ring_init_exact(&m->hist_t, history_len);
	ring_init(&m->lock_waiting, history_len);
	ring_init(&m->lock_wait_ms, history_len);
	wait_table_init(&m->wt, history_len);
	logdev_view_init(&m->ld, history_len);
	m->interval_s = NAN;
	m->own_xacts = NAN;
	m->host_busy_s = INFINITY;
	m->dg_bound_ms = NAN;
	for (i = 0; i < DGK__COUNT; i++)
		m->dg_com_rate[i] = NAN;
	digest_table_init(&m->dg);
	repl_model_reset(&m->repl);
}

void model_free(struct model *m)
{
	int i;
	for (i = 0; i < M__COUNT; i++)
		ring_free(&m->hist[i]);
	ring_free(&m->hist_t);
	ring_free(&m->lock_waiting);
	ring_free(&m->lock_wait_ms);
	lock_set_free(m->locks);
	m->locks = NULL;
	session_set_free(m->sessions);
	m->sessions = NULL;
	wait_table_free(&m->wt);
	digest_table_free(&m->dg);
	logdev_view_free(&m->ld);
}

void model_set_caps(struct model *m, const struct caps *c)
{
	/* whose commits waited where: another server's do not count */
	if (!m->have_caps || strcmp(m->caps.server_id, c->server_id) != 0)
		scope_evidence_clear(&m->scope);
	m->caps = *c;
	m->have_caps = true;
}

bool model_metric_applies(const struct model *m, enum metric_id id)
{
	return (metric_defs[id].engines & (1u << m->caps.engine)) != 0;
}

const char *rate_status_name(enum rate_status st)
{
	switch (st) {
	case RATE_OK: return "ok";
	case RATE_INIT: return "init";
	case RATE_RESET: return "reset";
	case RATE_DOWN: return "down";
	case RATE_UNAVAIL: return "unavailable";
	case RATE_UNDEF: return "undefined";
	}
	return "?";
}

/* Δ of counter id since its newest reading on this connection (the
 * previous sample's, or an earlier one's when a paced read left it out
 * since) into *d, over *dt s; the status says if it is usable. */
static enum rate_status ctr_delta(const struct model *m, const struct sample *s, int id, double *d, double *dt)
{
	const struct ctr *a = &m->held[id], *b = &s->c[id];
	if (!b->present)
		return RATE_UNAVAIL;
	if (!a->present)
		return RATE_INIT;
	if (a->epoch != b->epoch || b->v < a->v)
		return RATE_RESET;
	*d = (double)(b->v - a->v);
	*dt = s->mono - m->held_mono[id];
	return *dt > 0 ? RATE_OK : RATE_INIT;
}

/* True when metric d's counters were left out of s by a paced read (held
 * from an earlier sample of this connection): its rate stands. */
static bool metric_held(const struct model *m, const struct metric_def *d, const struct sample *s)
{
	return s->ctr_paced && d->kind != MK_RATIO && !s->c[d->a].present && m->held[d->a].present;
}

/* Compute one metric of the interval since its counters' last reading
 * into m->cur. */
static void compute(struct model *m, const struct metric_def *d, const struct sample *s)
{
	struct rate *r = &m->cur[d->id];
	double da = 0, db = 0, dt = 0, dtb = 0;
	enum rate_status st;

	r->v = NAN;
	switch (d->kind) {
	case MK_RATE:
		st = ctr_delta(m, s, d->a, &da, &dt);
		if (st == RATE_OK)
			r->v = da / dt;
		break;
	case MK_RATE_NET:
		/* The server may count dbtop's own transactions an interval
		 * late: a deficit is carried over (bounded) instead of being
		 * lost or turning negative. */
		st = ctr_delta(m, s, d->a, &da, &dt);
		if (st == RATE_OK) {
			double x;
			if (ctr_delta(m, s, d->b, &db, &dtb) != RATE_OK)
				db = 0;
			x = da - db + m->carry[d->id];
			m->carry[d->id] = x < 0 ? (x > -NET_CARRY_MAX ? x : -NET_CARRY_MAX) : 0;
			r->v = (x > 0 ? x : 0) / dt;
		} else {
			m->carry[d->id] = 0;
		}
		break;
	case MK_AVG_MS:
		st = ctr_delta(m, s, d->a, &da, &dt);
		if (st == RATE_OK)
			st = ctr_delta(m, s, d->b, &db, &dtb);
		if (st == RATE_OK) {
			if (db > 0)
				r->v = da / db / 1e6;
			else
				st = RATE_UNDEF;
		}
		break;
	case MK_RATIO: {
		const struct rate *x = &m->cur[d->a], *y = &m->cur[d->b];
		st = x->st != RATE_OK ? x->st : y->st;
		if (st == RATE_OK) {
			if (y->v > 0)
				r->v = x->v / y->v;
			else
				st = RATE_UNDEF;
		}
		break;
	}
	default:
		st = RATE_UNAVAIL;
	}
	r->st = st;
}

/* The newest reading of every counter of s (UP) on this connection. */
static void hold_counters(struct model *m, const struct sample *s, bool fresh_conn)
{
	for (int i = 0; i < CTR__COUNT; i++)
		if (s->c[i].present) {
			m->held[i] = s->c[i];
			m->held_mono[i] = s->mono;
		} else if (fresh_conn || !s->ctr_paced) {
			m->held[i].present = false;   /* gone: unavailable, then a new start */
		}
}

const char *model_setting(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->nsettings; i++)
		if (strcmp(m->settings[i].name, name) == 0)
			return m->settings[i].value;
	return NULL;
}

const struct ctr *model_counter(const struct model *m, enum ctr_id id)
{
	if (m->last.c[id].present || m->last.state != STATE_UP)
		return &m->last.c[id];
	return &m->held[id];
}

/* Lock waits: keep a copy of the newest snapshot and one point of each
 * history line per interval. Waiting sessions come from the snapshot (the
 * cheap check counts them even when the lock tables were not read); the
 * wait time per second from Innodb_row_lock_time where the server counts
 * it, within what the sessions waiting and the waits begun allow
 * (lock_wait_ms_bounded: the counter grows only as a wait ends), else
 * from the waiters (each waits 1000 ms per second). */
static void update_locks(struct model *m, const struct sample *s, double dt, bool fresh_conn)
{
	double waiting = NAN, ms = NAN, d, was = ring_get(&m->lock_waiting, 0);
	struct lock_set *prev = m->locks;
	m->locks = NULL;
	if (s->state == STATE_UP && s->locks) {
		m->locks = lock_set_copy(s->locks);
		/* how long each root has headed its chain (the tree's order) */
		lock_set_carry(m->locks, prev);
		waiting = lock_set_counted(s->locks) ? s->locks->waiting : NAN;
	}
	lock_set_free(prev);
	if (s->state == STATE_UP && s->c[CTR_ROW_LOCK_TIME_MS].present) {
		double ddt = 0, begun = NAN, nb, bdt = 0;
		if (!fresh_conn && dt > 0 && ctr_delta(m, s, CTR_ROW_LOCK_TIME_MS, &d, &ddt) == RATE_OK) {
			/* the counts bound it when they cover the same interval */
			if (ctr_delta(m, s, CTR_ROW_LOCK_WAITS, &nb, &bdt) == RATE_OK && fabs(bdt - ddt) < 1e-6 &&
			    fabs(ddt - dt) <= 0.01 * dt)
				begun = nb;
			ms = lock_wait_ms_bounded(d / ddt, was, waiting, begun);
		}
	} else if (isfinite(waiting)) {
		ms = waiting * 1000;
	}
	ring_push(&m->lock_waiting, waiting);
	ring_push(&m->lock_wait_ms, ms);
}

/* Sessions: keep a copy of the newest list read; a sample without one
 * (not wanted, or DOWN) leaves none. */
static void update_sessions(struct model *m, const struct sample *s)
{
	session_set_free(m->sessions);
	m->sessions = s->state == STATE_UP && s->sessions ? session_set_copy(s->sessions) : NULL;
	if (m->sessions && m->caps.engine == ENGINE_POSTGRESQL)
		scope_evidence_add(&m->scope, m->sessions, s->wall);
}

/* The bound of the sampled estimates of the statements the digests miss
 * (prepared statements), ms/s since the previous set of digests: the
 * time the server measured for those statements (statement/com/Execute):
 * their sum is scaled to it. NaN when not known. One function, so that
 * another bound can take its place. */
/* Counter id of s, or its newest reading before when a paced read left
 * it out of s; *mono: when it was read. */
static const struct ctr *newest_ctr(const struct model *m, const struct sample *s, int id, double *mono)
{
	*mono = s->c[id].present ? s->mono : m->held_mono[id];
	return s->c[id].present ? &s->c[id] : &m->held[id];
}

static double gap_bound_ms(struct model *m, const struct sample *s)
{
	double mono;
	const struct ctr *a = &m->dg_exec_ns, *b = newest_ctr(m, s, CTR_EXEC_NS, &mono);
	double dt = mono - m->dg_exec_mono;
	if (!a->present || !b->present || a->epoch != b->epoch || b->v < a->v || dt < 0)
		return m->dg_bound_ms = NAN;
	/* the statement summary not read again since the last set of digests
	 * (it is paced, the digests may come more often): the newest rate it
	 * gave still bounds them */
	if (dt == 0)
		return m->dg_bound_ms;
	return m->dg_bound_ms = (double)(b->v - a->v) / 1e6 / dt;
}

/* The counter of each statement kind (MySQL / MariaDB Com_*). */
static const int kind_ctr[DGK__COUNT] = {
	[DGK_SELECT] = CTR_COM_SELECT, [DGK_INSERT] = CTR_COM_INSERT,   [DGK_UPDATE] = CTR_COM_UPDATE,
	[DGK_DELETE] = CTR_COM_DELETE, [DGK_REPLACE] = CTR_COM_REPLACE, [DGK_BEGIN] = CTR_COM_BEGIN,
	[DGK_COMMIT] = CTR_COM_COMMIT, [DGK_ROLLBACK] = CTR_ROLLBACKS,
};

/* The estimates of the statements the digests miss take their calls from
 * what the server counts of each kind over the same interval (the time
 * since the previous set of digests), and the counters' readings for the
 * next set. MySQL / MariaDB only (PostgreSQL counts no statement kinds). */
static void count_estimates(struct model *m, const struct sample *s)
{
	double per_s[DGK__COUNT];
	m->dg_com_age_s = 0;
	for (int k = 0; k < DGK__COUNT; k++) {
		double mono;
		const struct ctr *a = &m->dg_com[k], *b = newest_ctr(m, s, kind_ctr[k], &mono);
		double dt = mono - m->dg_com_mono[k];
		bool ok = m->caps.engine == ENGINE_MYSQL && a->present && b->present && a->epoch == b->epoch &&
			  b->v >= a->v;
		if (ok && dt > 0)
			m->dg_com_rate[k] = (double)(b->v - a->v) / dt;
		else if (!ok || dt < 0)
			m->dg_com_rate[k] = NAN;
		else if (m->dg_com_rate[k] >= 0 && s->mono - mono > m->dg_com_age_s)
			/* not read again since the last set of digests (a paced
			 * status read): its newest rate stands, with its age */
			m->dg_com_age_s = s->mono - mono;
		per_s[k] = m->dg_com_rate[k];
		m->dg_com[k] = *b;
		m->dg_com_mono[k] = mono;
	}
	digest_table_count_estimates(&m->dg, per_s);
}

/* Counter a's rate since its last reading, NaN when not known. */
static double ctr_rate(const struct model *m, const struct sample *s, int a)
{
	double d = 0, dt = 0;
	return ctr_delta(m, s, a, &d, &dt) == RATE_OK ? d / dt : NAN;
}

/* m->cov for this interval: the digests' calls against the statement
 * events (both with dbtop's own statements), and the reason when a large
 * share is missing. */
static void update_coverage(struct model *m, const struct sample *s, const struct sample *p)
{
	struct dg_coverage *c = &m->cov;
	if (s->state == STATE_UP && s->ctr_paced && m->have_prev && p->conn_gen == s->conn_gen &&
	    !s->c[CTR_STMTS].present && m->held[CTR_STMTS].present) {
		/* the statement summary is read every few refreshes: its
		 * figures stand until the next reading */
		m->cov_age_s = s->mono - m->held_mono[CTR_STMTS];
		return;
	}
	double stmts = ctr_rate(m, s, CTR_STMTS), calls = 0;
	m->cov_age_s = 0;
	memset(c, 0, sizeof *c);
	c->share = c->stmts_per_s = c->digest_calls_per_s = c->exec_per_s = c->exec_ms_per_s = c->own_per_s = NAN;
	if (s->state != STATE_UP || !m->have_prev || p->conn_gen != s->conn_gen || !isfinite(stmts) ||
	    !m->dg.have_data || m->dg.sampled)
		return;
	for (size_t i = 0; i < m->dg.n; i++) {
		const struct digest_entry *e = &m->dg.e[i];
		if (e->known && !e->gone && isfinite(e->rate[DG_CALLS]) && strncmp(e->last.key, "s:", 2) != 0)
			calls += e->rate[DG_CALLS];
	}
	c->known = true;
	c->stmts_per_s = stmts;
	c->digest_calls_per_s = calls;
	c->share = stmts > 0 ? (calls < stmts ? calls / stmts : 1) : 1;
	c->exec_per_s = ctr_rate(m, s, CTR_EXEC_STMTS);
	c->exec_ms_per_s = ctr_rate(m, s, CTR_EXEC_NS) / 1e6;
	c->own_per_s = ctr_rate(m, s, CTR_OWN_STMTS);
	if (c->share < DG_COVERAGE_LOW && c->exec_per_s >= DG_EXEC_SHARE * (stmts - calls))
		c->reason = m->caps.flavour == FLAVOUR_MARIADB
				    ? "server-side prepared statements (COM_STMT_EXECUTE): MariaDB gives them no digest row"
				    : "server-side prepared statements (COM_STMT_EXECUTE) are not in the digest table";
}

/* The newest interval (0: the newest) i's length, its runs and its fsyncs;
 * false when one of them is not known. */
static bool run_interval(const struct model *m, size_t i, double *d, double *runs, double *fsyncs)
{
	double t1 = ring_get(&m->hist_t, i), t0 = ring_get(&m->hist_t, i + 1);
	double r = ring_get(&m->hist[M_RUNS], i);
	*d = t1 - t0;
	if (!(*d > 0) || !isfinite(r))
		return false;
	*runs = (double)(long long)(r * *d + 0.5);   /* a count: the rate times the interval */
	*fsyncs = ring_get(&m->hist[M_FSYNCS], i) * *d;   /* NaN: not counted */
	return true;
}

/* m->runs and M_RUN_S / M_RUN_FSYNCS at the newest interval (see struct
 * run_window), and their history. */
static void update_runs(struct model *m)
{
	struct run_window *w = &m->runs;
	struct rate *rs = &m->cur[M_RUN_S], *rf = &m->cur[M_RUN_FSYNCS];
	double d, r, f, age = 0;
	size_t b = 0, k;
	memset(w, 0, sizeof *w);
	rs->v = rf->v = NAN;
	rs->st = rf->st = m->cur[M_RUNS].st == RATE_OK ? RATE_UNDEF : m->cur[M_RUNS].st;
	/* the newest interval a run started in */
	for (; b < RUN_MAX_INTERVALS && run_interval(m, b, &d, &r, &f); b++) {
		if (r > 0)
			break;
		age += d;
	}
	if (b < RUN_MAX_INTERVALS && run_interval(m, b, &d, &r, &f) && r > 0) {
		w->seen = true;
		w->age_s = age;
		w->runs = r / 2;
		w->span_s = d / 2;
		w->fsyncs = f / 2;
		/* back to an earlier start, the window holding enough runs */
		bool closed = false;
		for (k = b + 1; k < b + RUN_MAX_INTERVALS && run_interval(m, k, &d, &r, &f); k++) {
			bool last = r > 0 && w->runs + r / 2 >= RUN_MIN_RUNS && k - b + 1 >= RUN_MIN_INTERVALS;
			double part = last ? 0.5 : 1;
			w->runs += r * part;
			w->span_s += d * part;
			w->fsyncs += f * part;
			if ((closed = last))
				break;
		}
		/* runs that stopped (no start for twice a run and more) have no
		 * time per run now */
		if (closed && w->age_s > 2 * w->span_s / w->runs + RUN_STALE_S) {
			w->seen = false;
			closed = false;
		}
		if (closed) {
			rs->v = w->span_s / w->runs;
			rs->st = RATE_OK;
			if (isfinite(w->fsyncs)) {
				rf->v = w->fsyncs / w->runs;
				rf->st = RATE_OK;
			}
		}
	}
	/* the loop of model_update pushed a placeholder for this interval */
	ring_set_last(&m->hist[M_RUN_S], rs->v);
	ring_set_last(&m->hist[M_RUN_FSYNCS], rf->v);
}

/* The end of the newest interval into the history, and what is derived
 * from the history (the runs). */
static void push_interval(struct model *m, double wall)
{
	ring_push(&m->hist_t, wall);
	update_runs(m);
}

/* The sampled COMMIT estimate of a set of digests just read (dt s since
 * the previous set) into the window of its last reads: its time and the
 * commits counted over the same interval. Only where the sampling stands
 * in for statements the digests miss (counted estimates); a read whose
 * looks found no session in COMMIT adds its commits with no time. */
static void commit_window_push(struct model *m, double dt)
{
	if (m->caps.engine != ENGINE_MYSQL || !m->dg.est_counted || !(dt > 0))
		return;
	const struct digest_entry *d = digest_table_commit(&m->dg);
	double commits = m->dg.est_commits_per_s;
	if (!(commits >= 0))
		return;
	bool seen = d && d->known && digest_is_estimate(&m->dg, d) && d->rate[DG_TOTAL_NS] > 0;
	unsigned i = m->cwin.head;
	m->cwin.ms[i] = seen ? d->rate[DG_TOTAL_NS] / 1e6 * dt : 0;
	m->cwin.commits[i] = commits * dt;
	m->cwin.head = (i + 1) % COMMIT_EST_KEEP;
	if (m->cwin.n < COMMIT_EST_KEEP)
		m->cwin.n++;
}

/* The pooled latency of the sampled COMMIT's last reads (ms a commit):
 * their sampled time over their commits, from the newest read back over
 * COMMIT_EST_READS reads, further back to the newest read that found a
 * session in COMMIT when none of those did; NaN when no kept read did. */
static double commit_window_ms(const struct model *m)
{
	double ms = 0, n = 0;
	for (unsigned k = 0; k < m->cwin.n; k++) {
		unsigned i = (m->cwin.head + COMMIT_EST_KEEP - 1 - k) % COMMIT_EST_KEEP;
		ms += m->cwin.ms[i];
		n += m->cwin.commits[i];
		if (k + 1 >= COMMIT_EST_READS && ms > 0)
			break;
	}
	return ms > 0 && n > 0 ? ms / n : NAN;
}

/* MySQL / MariaDB: COMMIT sent as a prepared statement (sysbench's
 * default) runs as statement/com/Execute, so no COMMIT statement is
 * timed while the server counts the commits: the latency is then the
 * sampled sessions found in COMMIT (their time, scaled to what the server
 * measured) over the counted commits (Com_commit over the same interval as
 * the sampled time, else the commits now), Little's law, and said to be an
 * estimate instead of calling a busy server idle. The same when the COMMIT
 * timer has no figure this interval for another reason (not provided, a
 * reset, a read left out). A read whose looks found no session in COMMIT
 * (short commits, a few looks a second) pools the last reads
 * (commit_window_ms); no latency when none of them saw one. */
static void commit_latency_estimate(struct model *m)
{
	struct rate *r = &m->cur[M_COMMIT_MS];
	double commits = m->cur[M_COMMITS].st == RATE_OK ? m->cur[M_COMMITS].v : NAN;
	/* an estimate held from an earlier interval (the COMMIT counters are
	 * read every few refreshes) is made again from this one's figures */
	if (m->caps.engine != ENGINE_MYSQL || (r->st == RATE_OK && !r->est) || !(commits >= 1))
		return;
	const struct digest_entry *d = digest_table_commit(&m->dg);
	double v;
	if (d && d->known && digest_is_estimate(&m->dg, d) && d->rate[DG_TOTAL_NS] > 0) {
		/* the COMMIT estimate's calls counted (Com_commit over the
		 * digests' interval): its average; else the commits counted now */
		v = d->counted_kind == DGK_COMMIT + 1 && isfinite(d->avg_ms)
			    ? d->avg_ms
			    : d->rate[DG_TOTAL_NS] / 1e9 / commits * 1000;
	} else {
		v = commit_window_ms(m);
	}
	if (!isfinite(v))
		return;
	r->v = v;
	r->st = RATE_OK;
	r->est = true;
	/* made from this interval's figures */
	m->age_s[M_COMMIT_MS] = 0;
	m->from_mono[M_COMMIT_MS] = m->have_prev ? m->prev_up.mono : NAN;
	ring_set_last(&m->hist[M_COMMIT_MS], r->v);
}

/* The value of metric id this interval, NaN unless known. */
static double cur_v(const struct model *m, enum metric_id id)
{
	return m->cur[id].st == RATE_OK ? m->cur[id].v : NAN;
}

/* MariaDB 10.8+ counts the redo syncs (in Innodb_data_fsyncs) but times
 * none: no Innodb_os_log_fsyncs, no redo file instrument. One sync's time
 * is then estimated from what is measured: the commit's time not spent in
 * the binary log's sync (a commit waits for about one sync of each log; a
 * group commit's sync serves several), over the redo syncs per commit when
 * a commit waits for more than one in turn, at most a second over the
 * syncs of that second (they run one at a time), and never below the flush
 * latency of the device under the redo log (the first log device); the
 * device alone when no commit is timed. Said to be an estimate ("~",
 * redo_fsync_avg_ms_estimate); the findings do not take it for a measured
 * sync. */
static void redo_sync_estimate(struct model *m)
{
	struct rate *r = &m->cur[M_REDO_FSYNC_MS];
	double syncs = cur_v(m, M_REDO_FSYNCS), commits = cur_v(m, M_COMMITS), cms = cur_v(m, M_COMMIT_MS);
	if (m->caps.engine != ENGINE_MYSQL || r->st != RATE_UNAVAIL || !(syncs > 0))
		return;
	double est = NAN;
	if (cms > 0 && commits >= 1) {
		double bin = cur_v(m, M_BINLOG_FSYNC_MS), per = syncs / commits;
		est = (cms - (bin > 0 && bin < cms ? bin : 0)) / (per > 1 ? per : 1);
	}
	/* InnoDB syncs its redo log one flush at a time (its flush lock): a
	 * second's syncs take at most that second. A commit that arrives
	 * during a sync waits for it and then for its own, so COMMIT holds up
	 * to two (seed 000: 90 syncs/s of 10 ms each, COMMIT 20.3 ms: one
	 * sync read 19.9 ms, 1.8 s of syncing a second) */
	if (est > 1000 / syncs)
		est = 1000 / syncs;
	const struct logdev_rates *d = &m->ld.cur[0];
	if (m->ld.n >= 1 && d->ok && d->has_flush && d->flushes_s > 0 && isfinite(d->f_await_ms) &&
	    !(est >= logdev_sync_ms(d)))
		est = logdev_sync_ms(d);
	if (!(est >= 0))
		return;
	r->v = est;
	r->st = RATE_OK;
	r->est = true;
	/* this interval's, or older with a COMMIT time read before it */
	double from = m->have_prev ? m->prev_up.mono : NAN, c = m->from_mono[M_COMMIT_MS];
	m->age_s[M_REDO_FSYNC_MS] = 0;
	m->from_mono[M_REDO_FSYNC_MS] = isfinite(cms) && c < from ? c : from;
	ring_set_last(&m->hist[M_REDO_FSYNC_MS], est);
}

/* When the time metric d's new value covers began: its counter's reading
 * before (update_rates runs before hold_counters), a ratio's the older of
 * its two; NaN when not known. */
static double metric_from(const struct model *m, const struct metric_def *d)
{
	if (d->kind == MK_RATIO) {
		double a = m->from_mono[d->a], b = m->from_mono[d->b];
		return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
	}
	return m->held[d->a].present ? m->held_mono[d->a] : NAN;
}

/* Every metric of the interval (dt s since the previous UP sample) into
 * m->cur, its age and its history. */
static void update_rates(struct model *m, const struct sample *s, double dt, bool fresh_conn)
{
	for (int i = 0; i < M__COUNT; i++) {
		const struct metric_def *d = &metric_defs[i];
		struct rate *r = &m->cur[i];
		bool start = s->state != STATE_UP || fresh_conn || !(dt > 0);
		if (start)
			m->carry[i] = 0;
		m->age_s[i] = 0;
		if (!metric_held(m, d, s) || start || s->state != STATE_UP)
			r->est = false; /* a held value keeps what it was */
		if (s->state != STATE_UP) {
			r->v = NAN;
			r->st = RATE_DOWN;
			m->from_mono[i] = NAN;
		} else if (start) {
			r->v = NAN;
			r->st = d->kind == MK_RATIO || s->c[d->a].present ? RATE_INIT : RATE_UNAVAIL;
			m->from_mono[i] = NAN;
		} else if (metric_held(m, d, s)) {
			/* read every few refreshes: the last rate stands, aged
			 * (and the time it covers with it) */
			m->age_s[i] = s->mono - m->held_mono[d->a];
		} else {
			compute(m, d, s);
			m->from_mono[i] = metric_from(m, d);
		}
		ring_push(&m->hist[i], r->v);
	}
}

/* dbtop's own transactions between p and s: NaN unless both counted
 * them on one connection */
static double own_xacts(const struct sample *s, const struct sample *p, bool fresh_conn)
{
	const struct ctr *a = &p->c[CTR_OWN_COMMITS], *b = &s->c[CTR_OWN_COMMITS];
	if (s->state != STATE_UP || fresh_conn || !a->present || !b->present || b->v < a->v)
		return NAN;
	return (double)(b->v - a->v);
}

/* The host's view this interval, and the time since it last read busy. */
static void update_host(struct model *m, const struct sample *s, const struct sample *p, bool fresh_conn, double dt)
{
	host_view_update(&m->host, s->state == STATE_UP && !fresh_conn ? &p->host : NULL,
			 s->state == STATE_UP ? &s->host : NULL, dt);
	if (host_view_busy(&m->host) || host_view_pressured(&m->host))
		m->host_busy_s = 0;
	else if (dt > 0)
		m->host_busy_s += dt;
}

void model_update(struct model *m, const struct sample *s)
{
	const struct sample *p = &m->prev_up;
	double dt = m->have_prev ? s->mono - p->mono : NAN;
	bool fresh_conn = !m->have_prev || p->conn_gen != s->conn_gen;

	m->intervals++;
	update_rates(m, s, dt, fresh_conn);
	push_interval(m, s->wall);
	m->interval_s = s->state == STATE_UP && !fresh_conn ? dt : NAN;
	m->own_xacts = own_xacts(s, p, fresh_conn);
	m->dg_fresh = fresh_conn || s->state != STATE_UP || s->digests || !s->digests_skipped;
	if (fresh_conn || s->state != STATE_UP)
		m->cwin.n = m->cwin.head = 0;
	if (m->dg_fresh) {
		/* digest rates cover the time since the previous digest read */
		double dg_dt = m->dg_mono > 0 ? s->mono - m->dg_mono : dt;
		digest_table_update(&m->dg, s->state == STATE_UP ? s->digests : NULL, dg_dt,
				    fresh_conn || !(dt > 0), s->wall);
		m->est_scale = 1;
		if (s->state == STATE_UP && s->digests) {
			m->est_scale = digest_table_bound_estimates(&m->dg, gap_bound_ms(m, s));
			m->dg_exec_ns = *newest_ctr(m, s, CTR_EXEC_NS, &m->dg_exec_mono);
			count_estimates(m, s);
			commit_window_push(m, dg_dt);
		}
		if (!(s->state == STATE_UP && s->digests && s->digests->estimates_only))
			m->dg_mono = s->state == STATE_UP && s->digests ? s->mono : 0;
	}
	commit_latency_estimate(m);
	update_coverage(m, s, p);
	update_locks(m, s, dt, fresh_conn);
	update_sessions(m, s);
	logdev_view_update(&m->ld, s->state == STATE_UP && !fresh_conn ? &p->logdev : NULL,
			   s->state == STATE_UP ? &s->logdev : NULL, dt);
	update_host(m, s, p, fresh_conn, dt);
	redo_sync_estimate(m);
	if (s->state == STATE_UP && !fresh_conn && !s->waits && s->waits_skipped) {
		wait_table_hold(&m->wt);
	} else {
		/* a profile's rates cover the time since the previous reading */
		double w_dt = m->wt_mono > 0 && s->waits ? s->mono - m->wt_mono : dt;
		wait_table_update(&m->wt, s->state == STATE_UP ? s->waits : NULL, w_dt, fresh_conn || !(dt > 0));
		m->wt_mono = s->state == STATE_UP && s->waits ? s->mono : 0;
	}
	if (s->state != STATE_UP || fresh_conn)
		repl_model_reset(&m->repl);
	if (s->state == STATE_UP)
		repl_model_update(&m->repl, &s->repl, fresh_conn ? NULL : &p->repl, dt);
	if (s->state == STATE_UP)
		hold_counters(m, s, fresh_conn);
	m->last = *s;
	m->last.digests = NULL;   /* the model never keeps the caller's rows */
	m->last.locks = NULL;
	m->last.waits = NULL;
	m->last.sessions = NULL;
	m->last.tuning = NULL;
	if (s->state == STATE_UP) {
		m->prev_up = *s;
		m->prev_up.digests = NULL;
		m->prev_up.locks = NULL;
		m->prev_up.waits = NULL;
	m->prev_up.sessions = NULL;
		m->prev_up.tuning = NULL;
		m->have_prev = true;
	}
	forecast_track(m, s);
	if (s->settings_fresh) {
		m->nsettings = (size_t)s->nsettings;
		memcpy(m->settings, s->settings, sizeof m->settings);
		m->scoped_read = s->scoped_read;
		m->nscoped = s->scoped_read ? s->nscoped : 0;
		memcpy(m->scoped, s->scoped, sizeof m->scoped);
	}
	findings_update(m);
}

void model_copy_history(struct model *dst, const struct model *src, double wall)
{
	size_t skip = 0;
	while (skip < src->hist_t.len && ring_get(&src->hist_t, skip) > wall + 1e-6)
		skip++;
	if (skip >= src->hist_t.len || !dst->hist_t.cap)
		return;
	for (int i = 0; i < M__COUNT; i++)
		ring_copy(&dst->hist[i], &src->hist[i], skip);
	ring_copy(&dst->hist_t, &src->hist_t, skip);
	if (src->lock_waiting.len == src->hist_t.len) {
		ring_copy(&dst->lock_waiting, &src->lock_waiting, skip);
		ring_copy(&dst->lock_wait_ms, &src->lock_wait_ms, skip);
	}
}
