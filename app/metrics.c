/* metrics.c - a target's model as Prometheus text / OpenMetrics samples.
 * Counters are the server's raw cumulative counters (a server restart is
 * a counter reset, which Prometheus's rate() handles); gauges are what the
 * model derived for the newest interval, left out while unknown. */
#include <math.h>
#include <string.h>

#include "metrics.h"
#include "../model/findings.h"
#include "../record/incidents.h"

enum mf_type { MT_GAUGE, MT_COUNTER };

struct mf_def {
	const char *name;   /* without _total */
	enum mf_type type;
	const char *help;
};

static const struct mf_def mf_defs[MF__COUNT] = {
	[MF_UP] = {"dbtop_up", MT_GAUGE, "1 while dbtop reads the server, 0 while it is down or stalled"},
	[MF_INFO] = {"dbtop_server_info", MT_GAUGE, "the server's engine, flavour and version (always 1)"},
	[MF_LAST_SAMPLE] = {"dbtop_last_sample_timestamp_seconds", MT_GAUGE,
			    "wall time of the newest sample, s since the epoch"},
	[MF_SAMPLES] = {"dbtop_samples", MT_COUNTER, "samples taken since dbtop started"},
	[MF_SAMPLE_QUERY] = {"dbtop_sample_query_seconds", MT_GAUGE,
			     "time dbtop's own statements took for the newest sample"},
	[MF_SAMPLE_STMTS] = {"dbtop_sample_statements", MT_GAUGE, "statements dbtop sent for the newest sample"},
	[MF_COMMITS] = {"dbtop_commits", MT_COUNTER,
			"transactions committed (the server's counter: Binlog_commits or Com_commit, xact_commit)"},
	[MF_OWN_COMMITS] = {"dbtop_own_commits", MT_COUNTER, "transactions of dbtop's own connection"},
	[MF_ROLLBACKS] = {"dbtop_rollbacks", MT_COUNTER, "transactions rolled back"},
	[MF_FSYNCS] = {"dbtop_fsyncs", MT_COUNTER, "durability syncs by log: redo, binlog, wal"},
	[MF_FSYNC_SECONDS] = {"dbtop_fsync_seconds", MT_COUNTER, "time in durability syncs by log"},
	[MF_COMMIT_STMTS] = {"dbtop_commit_statements", MT_COUNTER, "COMMIT statements timed (performance_schema)"},
	[MF_COMMIT_STMT_SECONDS] = {"dbtop_commit_statement_seconds", MT_COUNTER,
				    "total latency of the COMMIT statements timed"},
	[MF_WAL_BYTES] = {"dbtop_wal_bytes", MT_COUNTER, "WAL bytes generated"},
	[MF_REDO_BYTES] = {"dbtop_redo_bytes", MT_COUNTER, "InnoDB redo bytes written"},
	[MF_FSYNCS_PER_COMMIT] = {"dbtop_fsyncs_per_commit", MT_GAUGE, "durability syncs per commit, newest interval"},
	[MF_COMMIT_LATENCY] = {"dbtop_commit_latency_seconds", MT_GAUGE,
			       "average COMMIT statement latency, newest interval"},
	[MF_FSYNC_LATENCY] = {"dbtop_fsync_latency_seconds", MT_GAUGE,
			      "average durability sync time by log, newest interval"},
	[MF_WAIT_AAS] = {"dbtop_wait_aas", MT_GAUGE, "average active sessions waiting on an event, newest interval"},
	[MF_WAIT_CLASS_AAS] = {"dbtop_wait_class_aas", MT_GAUGE,
			       "average active sessions by wait class (cpu, wal, redo, binlog, lock, io, other)"},
	[MF_LOCK_WAITING] = {"dbtop_lock_waiting_sessions", MT_GAUGE, "sessions waiting on a lock"},
	[MF_LOCK_ROOTS] = {"dbtop_lock_roots", MT_GAUGE, "sessions at the root of a lock chain (block, do not wait)"},
	[MF_LOCK_DEPTH] = {"dbtop_lock_depth", MT_GAUGE, "longest lock chain: waiters below its root"},
	[MF_LOCK_CYCLES] = {"dbtop_lock_cycle_sessions", MT_GAUGE, "sessions on a lock wait cycle"},
	[MF_HOST_CPUS] = {"dbtop_host_cpus", MT_GAUGE,
			  "CPUs of the host dbtop and the server run on (when on one host)"},
	[MF_HOST_CPU_PRESSURE] =
		{"dbtop_host_cpu_pressure_ratio", MT_GAUGE,
		 "share of the newest interval in which some runnable task waited for a CPU (PSI cpu some)"},
	[MF_HOST_RUN_QUEUE] = {"dbtop_host_run_queue", MT_GAUGE, "runnable tasks on the host besides dbtop's reader"},
	[MF_SERVER_CPU] = {"dbtop_server_cpu_cores", MT_GAUGE,
			   "CPU the server's threads used, in cores, newest interval"},
	[MF_SERVER_CPU_WAIT] = {"dbtop_server_cpu_wait_seconds", MT_GAUGE,
				"the server's threads' wait for a CPU each time one ran, newest interval"},
	[MF_FINDING] = {"dbtop_finding", MT_GAUGE, "1 per active finding (docs/metrics.md lists the ids)"},
	[MF_INCIDENTS] = {"dbtop_incidents", MT_COUNTER,
			  "incident files started by the capture (--incidents), by trigger (docs/incidents.md)"},
	[MF_LAST_INCIDENT] = {"dbtop_last_incident_timestamp_seconds", MT_GAUGE,
			      "trigger time of the newest incident, s since the epoch; its file and trigger as labels"},
	[MF_INCIDENT_ERRORS] = {"dbtop_incident_write_errors", MT_COUNTER,
				"incident writes that failed (a full disk): the file ends there"},
	[MF_INCIDENTS_FAILING] = {"dbtop_incidents_failing", MT_GAUGE,
				  "1 while incident files cannot be written (the last write failed), else 0"},
};

void metrics_text_init(struct metrics_text *t)
{
	memset(t, 0, sizeof *t);
	sb_init(&t->buf);
}

void metrics_text_free(struct metrics_text *t)
{
	sb_free(&t->buf);
}

/* Length of the UTF-8 sequence at p (1-4), 0 when invalid. */
static size_t utf8_seq(const unsigned char *p)
{
	size_t n, i;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && p[0] == 0xe0 && p[1] < 0xa0)
		return 0;  /* overlong */
	if (n == 3 && p[0] == 0xed && p[1] >= 0xa0)
		return 0;  /* surrogate */
	if (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90)))
		return 0;
	return n;
}

void metrics_label(struct strbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	sb_putc(out, '"');
	while (*p) {
		size_t n = utf8_seq(p);
		if (*p == '\\' || *p == '"') {
			sb_putc(out, '\\');
			sb_putc(out, (char)*p);
		} else if (*p == '\n') {
			sb_puts(out, "\\n");
		} else if (n == 0 || *p < 0x20 || *p == 0x7f) {
			sb_putc(out, '?');
		} else {
			sb_put(out, (const char *)p, n);
			p += n;
			continue;
		}
		p++;
	}
	sb_putc(out, '"');
}

const char *metrics_label_safe(const char *name, const char *host_port)
{
	if (!name || !*name || strstr(name, "://") || strpbrk(name, "@= \t\r\n"))
		return host_port;
	return name;
}

/* What a family's sample lines are written with. */
struct mr {
	struct metrics_text *t;
	const char *server;
	int fam;
};

/* Start family f (families are rendered in enum order). */
static void fam(struct mr *r, enum metrics_family f)
{
	while (r->fam < (int)f)
		r->t->off[++r->fam] = r->t->buf.len;
}

/* "name{server="..."" then the extra label pairs (k, v, ..., NULL). */
static void head(struct mr *r, enum metrics_family f, const char *const *kv)
{
	struct strbuf *b = &r->t->buf;
	fam(r, f);
	sb_puts(b, mf_defs[f].name);
	if (mf_defs[f].type == MT_COUNTER)
		sb_puts(b, "_total");
	sb_puts(b, "{server=");
	metrics_label(b, r->server);
	for (; kv && kv[0]; kv += 2) {
		sb_printf(b, ",%s=", kv[0]);
		metrics_label(b, kv[1]);
	}
	sb_putc(b, '}');
}

/* One sample with a float value; nothing when v is not finite. */
static void put(struct mr *r, enum metrics_family f, const char *const *kv, double v)
{
	if (!isfinite(v))
		return;
	head(r, f, kv);
	sb_printf(&r->t->buf, " %.15g\n", v);
}

/* One sample of a raw counter; nothing when the server has none. */
static void put_ctr(struct mr *r, enum metrics_family f, const char *const *kv, const struct ctr *c, double scale)
{
	if (!c->present)
		return;
	head(r, f, kv);
	if (scale == 1)
		sb_printf(&r->t->buf, " %llu\n", (unsigned long long)c->v);
	else
		sb_printf(&r->t->buf, " %.15g\n", (double)c->v * scale);
}

/* The model's value of metric id this interval, NaN unless known. */
static double cur(const struct model *m, enum metric_id id, double scale)
{
	if (!model_metric_applies(m, id) || m->cur[id].st != RATE_OK)
		return NAN;
	return m->cur[id].v * scale;
}

/* The raw counters of the newest sample. */
static void render_counters(struct mr *r, const struct model *m)
{
	const struct sample *s = &m->last;
	static const char *const redo[] = {"kind", "redo", NULL}, *const binlog[] = {"kind", "binlog", NULL},
		*const wal[] = {"kind", "wal", NULL};
	put_ctr(r, MF_COMMITS, NULL, &s->c[CTR_COMMITS], 1);
	put_ctr(r, MF_OWN_COMMITS, NULL, &s->c[CTR_OWN_COMMITS], 1);
	put_ctr(r, MF_ROLLBACKS, NULL, model_counter(m, CTR_ROLLBACKS), 1); /* may be paced: its last reading */
	put_ctr(r, MF_FSYNCS, redo, &s->c[CTR_REDO_FSYNCS], 1);
	put_ctr(r, MF_FSYNCS, binlog, &s->c[CTR_BINLOG_FSYNCS], 1);
	put_ctr(r, MF_FSYNCS, wal, &s->c[CTR_WAL_SYNCS], 1);
	put_ctr(r, MF_FSYNC_SECONDS, redo, &s->c[CTR_REDO_FSYNC_NS], 1e-9);
	put_ctr(r, MF_FSYNC_SECONDS, binlog, &s->c[CTR_BINLOG_FSYNC_NS], 1e-9);
	/* 0 unless track_wal_io_timing: a zero that is not a measurement */
	if (s->c[CTR_WAL_SYNC_NS].v > 0)
		put_ctr(r, MF_FSYNC_SECONDS, wal, &s->c[CTR_WAL_SYNC_NS], 1e-9);
	/* read every few refreshes with thousands of sessions: its last reading */
	put_ctr(r, MF_COMMIT_STMTS, NULL, model_counter(m, CTR_COMMIT_STMTS), 1);
	put_ctr(r, MF_COMMIT_STMT_SECONDS, NULL, model_counter(m, CTR_COMMIT_NS), 1e-9);
	put_ctr(r, MF_WAL_BYTES, NULL, &s->c[CTR_WAL_BYTES], 1);
	put_ctr(r, MF_REDO_BYTES, NULL, &s->c[CTR_REDO_BYTES], 1);
}

/* The interval's derived gauges. */
static void render_gauges(struct mr *r, const struct model *m)
{
	static const char *const redo[] = {"kind", "redo", NULL}, *const binlog[] = {"kind", "binlog", NULL},
		*const wal[] = {"kind", "wal", NULL};
	put(r, MF_FSYNCS_PER_COMMIT, NULL, cur(m, M_FSYNCS_PER_COMMIT, 1));
	put(r, MF_COMMIT_LATENCY, NULL, cur(m, M_COMMIT_MS, 1e-3));
	/* a sync time is a measured one: MariaDB 10.8+'s estimated redo sync is not exported */
	put(r, MF_FSYNC_LATENCY, redo, m->cur[M_REDO_FSYNC_MS].est ? NAN : cur(m, M_REDO_FSYNC_MS, 1e-3));
	put(r, MF_FSYNC_LATENCY, binlog, cur(m, M_BINLOG_FSYNC_MS, 1e-3));
	put(r, MF_FSYNC_LATENCY, wal, cur(m, M_WAL_SYNC_MS, 1e-3));
}

/* The wait profile: each event with a value, and the sums by class. */
static void render_waits(struct mr *r, const struct model *m)
{
	const struct wait_entry *e[WAIT_MAX];
	double cls[WC__COUNT];
	size_t n = wait_table_ranked(&m->wt, e, WAIT_MAX), i;
	int c;

	if (!m->wt.have_data || m->wt.source == WS_NONE)
		return;
	for (c = 0; c < WC__COUNT; c++)
		cls[c] = 0;
	for (i = 0; i < n; i++) {
		const char *kv[] = {"event", e[i]->name, "class", wait_class_name(e[i]->cls), NULL};
		if (!isfinite(e[i]->aas))
			continue;
		put(r, MF_WAIT_AAS, kv, e[i]->aas);
		cls[e[i]->cls] += e[i]->aas;
	}
	if (!isfinite(m->wt.total_aas))
		return;
	for (c = 0; c < WC__COUNT; c++) {
		const char *kv[] = {"class", wait_class_name((enum wait_class)c), NULL};
		put(r, MF_WAIT_CLASS_AAS, kv, cls[c]);
	}
}

/* Waiting sessions, and the lock graph when it was read. */
static void render_locks(struct mr *r, const struct model *m)
{
	const struct lock_set *ls = m->locks;
	int depth = 0;
	size_t i;
	put(r, MF_LOCK_WAITING, NULL, ring_get(&m->lock_waiting, 0));
	if (!ls || (ls->status != LOCKS_READ && ls->status != LOCKS_IDLE))
		return;
	for (i = 0; i < ls->ns; i++)
		if (ls->s[i].root >= 0 && ls->s[i].depth > depth)
			depth = ls->s[i].depth;
	put(r, MF_LOCK_ROOTS, NULL, ls->nroots);
	put(r, MF_LOCK_DEPTH, NULL, depth);
	put(r, MF_LOCK_CYCLES, NULL, ls->ncycles);
}

/* The host beside the server (dbtop on the database host; the commit
 * findings tell a busy host from a slow disk by them): each figure only
 * where it was read this interval. */
static void render_host(struct mr *r, const struct model *m)
{
	const struct host_view *h = &m->host;
	if (!h->ok)
		return;
	if (h->ncpu > 0)
		put(r, MF_HOST_CPUS, NULL, h->ncpu);
	put(r, MF_HOST_CPU_PRESSURE, NULL, h->cpu_some_pct / 100);
	put(r, MF_HOST_RUN_QUEUE, NULL, h->run_queue);
	if (h->srv_tasks > 0) {
		put(r, MF_SERVER_CPU, NULL, h->srv_cpu);
		put(r, MF_SERVER_CPU_WAIT, NULL, h->srv_wait_ms * 1e-3);
	}
}

/* The findings in force. */
static void render_findings(struct mr *r, const struct model *m)
{
	const struct finding *f = m->findings.f;
	size_t n = m->findings.n, i;
	for (i = 0; i < n; i++) {
		const char *kv[] = {"id", f[i].id, "severity", finding_severity_name(f[i].severity), NULL};
		put(r, MF_FINDING, kv, 1);
	}
}

/* The incident capture's series. */
static void render_incidents(struct mr *r, const struct incident_stats *st)
{
	static const char *const always[] = {"manual", "down"};
	for (size_t i = 0; i < st->n; i++) {
		const char *kv[] = {"trigger", st->c[i].trigger, NULL};
		put(r, MF_INCIDENTS, kv, (double)st->c[i].n);
	}
	/* the triggers every capture has start at 0 (an alert on increase() sees the first) */
	for (size_t k = 0; k < sizeof always / sizeof always[0]; k++) {
		bool seen = false;
		for (size_t i = 0; i < st->n && !seen; i++)
			seen = strcmp(st->c[i].trigger, always[k]) == 0;
		const char *kv[] = {"trigger", always[k], NULL};
		if (!seen)
			put(r, MF_INCIDENTS, kv, 0);
	}
	if (st->last_wall > 0) {
		const char *kv[] = {"trigger", st->last_trigger, "file", st->last_file, NULL};
		put(r, MF_LAST_INCIDENT, kv, st->last_wall);
	}
	put(r, MF_INCIDENT_ERRORS, NULL, (double)st->errors);
	put(r, MF_INCIDENTS_FAILING, NULL, st->failing ? 1 : 0);
}

void metrics_render(const struct model *m, const char *server, struct metrics_text *t)
{
	metrics_render_incidents(m, NULL, server, t);
}

void metrics_render_incidents(const struct model *m, const struct incident_stats *inc, const char *server,
			      struct metrics_text *t)
{
	struct mr r = {.t = t, .server = server, .fam = 0};
	bool up = m->intervals > 0 && m->last.state == STATE_UP;

	t->buf.len = 0;
	t->off[0] = 0;
	put(&r, MF_UP, NULL, up ? 1 : 0);
	if (m->have_caps) {
		const char *kv[] = {"engine", engine_name(m->caps.engine), "flavour", flavour_name(m->caps.flavour),
				    "version", m->caps.version, NULL};
		put(&r, MF_INFO, kv, 1);
	}
	if (m->intervals > 0)
		put(&r, MF_LAST_SAMPLE, NULL, m->last.wall);
	put(&r, MF_SAMPLES, NULL, (double)m->intervals);
	if (m->intervals > 0) {
		put(&r, MF_SAMPLE_QUERY, NULL, m->last.query_ms * 1e-3);
		put(&r, MF_SAMPLE_STMTS, NULL, m->last.nqueries);
	}
	if (up) {
		render_counters(&r, m);
		render_gauges(&r, m);
		render_waits(&r, m);
		render_locks(&r, m);
		render_host(&r, m);
		render_findings(&r, m);
	}
	if (inc)
		render_incidents(&r, inc);
	fam(&r, MF__COUNT);
}

void metrics_expose(const struct metrics_text *const *t, size_t n, bool openmetrics, struct strbuf *out)
{
	int f;
	size_t i;
	for (f = 0; f < MF__COUNT; f++) {
		const struct mf_def *d = &mf_defs[f];
		bool counter = d->type == MT_COUNTER;
		/* OpenMetrics names the family without _total; 0.0.4 names the sample */
		const char *suffix = counter && !openmetrics ? "_total" : "";
		sb_printf(out, "# HELP %s%s %s\n", d->name, suffix, d->help);
		sb_printf(out, "# TYPE %s%s %s\n", d->name, suffix, counter ? "counter" : "gauge");
		for (i = 0; i < n; i++)
			if (t[i])
				sb_put(out, t[i]->buf.s + t[i]->off[f], t[i]->off[f + 1] - t[i]->off[f]);
	}
	if (openmetrics)
		sb_puts(out, "# EOF\n");
}
