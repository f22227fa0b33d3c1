/* batch.c - JSON and text records for --batch. */
#include "batch.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "../model/digests.h"
#include "../model/events.h"
#include "../model/findings.h"
#include "../panes/rates.h"
#include <stdlib.h>
#include <stdio.h>

/* Engine name for output: mariadb / mysql / postgresql. */
static const char *engine_label(const struct model *m)
{
	return flavour_name(m->caps.flavour);
}

/* Notes of the connection and of the newest sample, plus the DOWN reason. */
static void collect_notes(const struct model *m, struct notes *n)
{
	int i;
	memset(n, 0, sizeof *n);
	if (m->last.state != STATE_UP && m->last.error[0]) {
		if (m->last.state == STATE_DOWN)
			notes_add(n, "%s; retrying in %.0fs", m->last.error, d_ceil(m->last.retry_in));
		else
			notes_add(n, "%s", m->last.error);
	}
	for (i = 0; i < m->caps.notes.n; i++)
		notes_add(n, "%s", m->caps.notes.msg[i]);
	for (i = 0; i < m->last.notes.n; i++)
		notes_add(n, "%s", m->last.notes.msg[i]);
}

/* One row of "digests": the statement, its rates and what they rest on. */
static void json_digest_row(const struct model *m, const struct digest_entry *d, struct strbuf *out)
{
	const struct digest_table *t = &m->dg;
	char text[201];
	double ms = d->rate[DG_TOTAL_NS] / 1e6;
	str_copy(text, sizeof text, d->last.text ? d->last.text : "");
	sb_puts(out, "{\"id\":");
	json_str(out, d->last.key);
	sb_puts(out, ",\"schema\":");
	json_str(out, d->last.schema);
	sb_puts(out, ",\"text\":");
	json_str(out, text_sanitize(text));
	sb_puts(out, ",\"calls_per_s\":");
	json_num(out, d_round(d->rate[DG_CALLS] * 1000) / 1000);
	sb_puts(out, ",\"total_ms_per_s\":");
	json_num(out, d_round(ms * 1000) / 1000);
	sb_puts(out, ",\"avg_ms\":");
	json_num(out, d_round(d->avg_ms * 1000) / 1000);
	if (m->caps.ps_digest_hist) {
		/* only where the server has latency histograms (MySQL 8) */
		sb_puts(out, ",\"p95_ms\":");
		json_num(out, d_round(d->p95_ms * 1000) / 1000);
	}
	sb_puts(out, ",\"rows_per_s\":");
	json_num(out, d_round(d->rate[DG_ROWS] * 1000) / 1000);
	sb_puts(out, ",\"share\":");
	json_num(out, t->total_ms_per_s > 0 ? d_round(ms / t->total_ms_per_s * 10000) / 10000 : NAN);
	if (t->sampled)
		sb_printf(out, ",\"samples\":%llu,\"calls_lower_bound\":%s", (unsigned long long)d->samples,
			  d->calls_lower ? "true" : "false");
	if (d->time_bounded) {
		/* calls longer than the interval: total_ms_per_s is their bound */
		sb_puts(out, ",\"time_bounded\":true,\"total_ms_finished\":");
		json_num(out, d_round(d->finished_ms * 1000) / 1000);
	}
	if (digest_is_estimate(t, d))
		sb_puts(out, ",\"estimate\":true");
	if (d->counted_kind)
		/* calls/s: the server's count of the kind (less the exact digests' calls of it) */
		sb_printf(out, ",\"calls_counted\":\"%s\",\"calls_split\":%s", dg_kind_counter[d->counted_kind - 1],
			  d->counted_split ? "true" : "false");
	sb_putc(out, '}');
}

/* The digest members: "digests_window_s" (the seconds the rates cover),
 * "digests_fresh" (read for this record; false: the rates are an earlier
 * read's, repeated while the reads are paced), "digests_source" (as the
 * pane's status line says it), for sampled digests
 * "digests_sampled" (what the estimate rests on), then "digests": the top
 * n by total time. A consumer adding up what ran takes calls_per_s x
 * digests_window_s over the records whose digests_fresh is true. */
static void json_digests(const struct model *m, int top, struct strbuf *out)
{
	const struct digest_table *t = &m->dg;
	const struct digest_entry **e;
	size_t n, i;
	if (!t->have_data) {
		sb_puts(out, ",\"digests\":null");
		return;
	}
	sb_puts(out, ",\"digests_window_s\":");
	json_num(out, t->interval_s > 0 ? d_round(t->interval_s * 1000) / 1000 : NAN);
	sb_printf(out, ",\"digests_fresh\":%s", m->dg_fresh ? "true" : "false");
	sb_puts(out, ",\"digests_source\":");
	json_str(out, t->source);
	/* dbtop's own statements: left out of "digests" and of the shares */
	sb_puts(out, ",\"digests_own_ms_per_s\":");
	json_num(out, d_round(t->own_ms_per_s * 1000) / 1000);
	if (t->sampled) {
		sb_printf(out, ",\"digests_sampled\":{\"samples\":%llu,\"hz\":", (unsigned long long)t->rounds);
		json_num(out, d_round(t->sample_hz * 100) / 100);
		sb_printf(out, ",\"sessions\":%u,\"bound_scale\":", t->sessions);
		json_num(out, d_round(t->bound_scale * 1000) / 1000);
		sb_putc(out, '}');
	}
	if (!t->sampled && (t->est_rounds || t->est_counted))
	/* the "s:" estimates: looks at their sessions this interval, and
		 * how many took their calls from the server's counts */
	{
		sb_printf(out, ",\"digests_estimates\":{\"samples\":%llu,\"calls_counted\":%u,\"window_s\":",
			  (unsigned long long)t->est_rounds, t->est_counted);
		json_num(out, d_round(t->est_window_s * 1000) / 1000);
		/* the counts their calls come from: read this sample (0), or
		 * held since a paced status read */
		if (t->est_counted) {
			sb_puts(out, ",\"counts_age_s\":");
			json_num(out, d_round(m->dg_com_age_s * 10) / 10);
		}
		sb_putc(out, '}');
	}
	e = xcalloc((size_t)top + 1, sizeof *e);
	n = digest_table_top(t, DGS_TOTAL, false, e, (size_t)top);
	sb_puts(out, ",\"digests\":[");
	for (i = 0; i < n; i++) {
		if (i)
			sb_putc(out, ',');
		json_digest_row(m, e[i], out);
	}
	sb_puts(out, "]");
	free(e);
}

/* Closes "rates", then "rates_age_s": the rates of a paced read (a
 * summary read every few refreshes under --server-budget) and how old
 * they are; {} when every rate was read for this record. */
static void json_rates_age(const struct model *m, struct strbuf *out)
{
	bool first = true;
	sb_puts(out, "},\"rates_age_s\":{");
	for (int i = 0; i < M__COUNT; i++) {
		if (!model_metric_applies(m, i) || !(m->age_s[i] >= 0.5))
			continue;
		if (!first)
			sb_putc(out, ',');
		first = false;
		json_str(out, metric_defs[i].key);
		sb_putc(out, ':');
		json_num(out, d_round(m->age_s[i] * 10) / 10);
	}
	sb_putc(out, '}');
}

/* The "digests_coverage" member (issue 25): null where not measured. */
static void json_coverage(const struct model *m, struct strbuf *out)
{
	const struct dg_coverage *c = &m->cov;
	sb_puts(out, ",\"digests_coverage\":");
	if (!c->known) {
		sb_puts(out, "null");
		return;
	}
	sb_puts(out, "{\"share\":");
	json_num(out, d_round(c->share * 10000) / 10000);
	sb_puts(out, ",\"low\":");
	sb_puts(out, c->share < DG_COVERAGE_LOW ? "true" : "false");
	sb_puts(out, ",\"statements_per_s\":");
	json_num(out, d_round(c->stmts_per_s * 1000) / 1000);
	sb_puts(out, ",\"digest_calls_per_s\":");
	json_num(out, d_round(c->digest_calls_per_s * 1000) / 1000);
	sb_puts(out, ",\"prepared_executes_per_s\":");
	json_num(out, d_round(c->exec_per_s * 1000) / 1000);
	sb_puts(out, ",\"prepared_ms_per_s\":");
	json_num(out, d_round(c->exec_ms_per_s * 1000) / 1000);
	sb_puts(out, ",\"own_statements_per_s\":");
	json_num(out, d_round(c->own_per_s * 1000) / 1000);
	sb_puts(out, ",\"age_s\":");
	json_num(out, d_round(m->cov_age_s * 10) / 10);
	sb_puts(out, ",\"reason\":");
	if (c->reason)
		json_str(out, c->reason);
	else
		sb_puts(out, "null");
	sb_putc(out, '}');
}

/* The host's CPU beside the server (docs/batch.md: host_load): written
 * when a sample carried it (live on the server's host, or a recording
 * that has it). */
static void json_host(const struct model *m, struct strbuf *out)
{
	const struct host_view *h = &m->host;
	if (!h->seen)
		return;
	sb_puts(out, ",\"host_load\":{\"cpu_pressure_pct\":");
	json_num3(out, h->cpu_some_pct);
	sb_puts(out, ",\"run_queue\":");
	json_num3(out, h->run_queue);
	sb_printf(out, ",\"cpus\":%d,\"load1\":", h->ncpu);
	json_num3(out, h->load1);
	sb_printf(out, ",\"server_tasks\":%d,\"server_cpu_cores\":", h->srv_tasks);
	json_num3(out, h->srv_cpu);
	sb_puts(out, ",\"server_cpu_wait_ms\":");
	json_num3(out, h->srv_wait_ms);
	sb_puts(out, ",\"server_cpu_wait_pct\":");
	json_num3(out, h->srv_wait_pct);
	sb_printf(out, ",\"busy\":%s,\"why\":", host_view_busy(h) ? "true" : "false");
	if (!h->ok && h->why)
		json_str(out, h->why);
	else if (h->srv_why[0])
		json_str(out, h->srv_why);
	else
		sb_puts(out, "null");
	sb_putc(out, '}');
}

/* The log devices (docs/batch.md: log_devices): written when
 * the source looked at them (a recording made before has none). */
static void json_logdev(const struct model *m, struct strbuf *out)
{
	static const char *const st[LDS__COUNT] = {
		[LDS_NONE] = "not_recorded", [LDS_OK] = "ok", [LDS_REMOTE] = "remote",
		[LDS_NOBLOCK] = "no_block_device", [LDS_ZFS] = "zfs", [LDS_UNSEEN] = "not_visible",
	};
	const struct logdev_map *lm = &m->caps.logdev;
	int i;
	if (lm->state == LDS_NONE)
		return;
	sb_puts(out, ",\"log_devices\":{\"status\":");
	json_str(out, st[lm->state]);
	sb_puts(out, ",\"note\":");
	if (lm->note[0])
		json_str(out, lm->note);
	else
		sb_puts(out, "null");
	sb_puts(out, ",\"dirs\":[");
	for (i = 0; i < lm->ndirs; i++) {
		const struct logdir *d = &lm->dirs[i];
		sb_puts(out, i ? ",{\"role\":" : "{\"role\":");
		json_str(out, d->role);
		sb_puts(out, ",\"path\":");
		json_str(out, d->path);
		sb_puts(out, ",\"fs\":");
		json_str(out, d->fs);
		sb_puts(out, ",\"device\":");
		json_str(out, d->dev);
		sb_puts(out, ",\"held_by\":");
		json_str(out, d->via);
		sb_putc(out, '}');
	}
	sb_puts(out, "],\"devices\":[");
	for (i = 0; i < m->ld.n; i++) {
		const struct logdev_rates *d = &m->ld.cur[i];
		sb_puts(out, i ? ",{\"name\":" : "{\"name\":");
		json_str(out, d->name);
		sb_puts(out, ",\"writes_per_s\":");
		json_num3(out, d->writes_s);
		sb_puts(out, ",\"write_kib_per_s\":");
		json_num3(out, d->wkb_s);
		sb_puts(out, ",\"flushes_per_s\":");
		json_num3(out, d->flushes_s);
		sb_puts(out, ",\"write_await_ms\":");
		json_num3(out, d->w_await_ms);
		sb_puts(out, ",\"flush_await_ms\":");
		json_num3(out, d->f_await_ms);
		sb_puts(out, ",\"queue_depth\":");
		json_num3(out, d->queue);
		sb_puts(out, ",\"util_pct\":");
		json_num3(out, d->util_pct);
		sb_printf(out, ",\"flushes_counted\":%s,\"why\":", d->has_flush ? "true" : "false");
		if (d->ok || !d->why)
			sb_puts(out, "null");
		else
			json_str(out, d->why);
		sb_putc(out, '}');
	}
	sb_putc(out, ']');
	/* the server's own sync latency of the same interval, beside the device's */
	const char *sname;
	enum metric_id sm = rates_server_sync(m, &sname);
	sb_puts(out, ",\"server_sync\":");
	if (sm < M__COUNT)
		json_str(out, metric_defs[sm].key);
	else
		sb_puts(out, "null");
	sb_puts(out, ",\"server_sync_ms\":");
	json_num(out, sm < M__COUNT && m->cur[sm].st == RATE_OK ? d_round(m->cur[sm].v * 1000) / 1000 : NAN);
	sb_putc(out, '}');
}

void batch_json(const struct model *m, const char *host, int top, struct strbuf *out)
{
	batch_json_sessions(m, host, top, false, out);
}

void batch_json_sessions(const struct model *m, const char *host, int top, bool sessions, struct strbuf *out)
{
	batch_json_events(m, host, top, sessions, NULL, 0, 0, out);
}

/* The record's head: schema, time, engine, version, host, interval,
 * state, then "rates" (left open for json_rates_age). */
static void json_head(const struct model *m, const char *host, struct strbuf *out)
{
	bool first = true;
	sb_printf(out, "{\"schema\":%d,\"ts\":%.3f,\"engine\":", BATCH_SCHEMA, m->last.wall);
	json_str(out, engine_label(m));
	sb_puts(out, ",\"version\":");
	json_str(out, m->caps.version);
	sb_puts(out, ",\"host\":");
	json_str(out, host);
	sb_puts(out, ",\"interval_s\":");
	json_num(out, isfinite(m->interval_s) ? d_round(m->interval_s * 1000) / 1000 : NAN);
	sb_puts(out, ",\"state\":");
	json_str(out, state_name(m->last.state));
	sb_puts(out, ",\"rates\":{");
	for (int i = 0; i < M__COUNT; i++) {
		if (!model_metric_applies(m, i))
			continue;
		if (!first)
			sb_putc(out, ',');
		first = false;
		json_str(out, metric_defs[i].key);
		sb_putc(out, ':');
		json_num(out, m->cur[i].st == RATE_OK ? m->cur[i].v : NAN);
		if (m->cur[i].st == RATE_OK && m->cur[i].est) /* keys are plain words */
			sb_printf(out, ",\"%s_estimate\":true", metric_defs[i].key);
	}
}

/* "settings", "sources" (where the commit and durability counts come
 * from) and "notes". */
static void json_settings(const struct model *m, struct strbuf *out)
{
	struct notes n;
	sb_puts(out, ",\"settings\":{");
	for (int i = 0; i < (int)m->nsettings; i++) {
		if (i)
			sb_putc(out, ',');
		json_str(out, m->settings[i].name);
		sb_putc(out, ':');
		json_str(out, m->settings[i].value);
	}
	sb_puts(out, "},\"sources\":{");
	if (m->caps.engine == ENGINE_MYSQL) {
		sb_puts(out, "\"commits\":");
		json_str(out, m->caps.commit_source);
		sb_puts(out, ",\"redo_fsyncs\":");
		json_str(out, m->caps.redo_fsync_source);
	} else {
		static const char *wal[] = {"none", "pg_current_wal_lsn", "pg_stat_wal", "pg_stat_io"};
		sb_puts(out, "\"commits\":\"pg_stat_database.xact_commit\",\"wal\":");
		json_str(out, wal[m->caps.wal_stats]);
	}
	sb_puts(out, "},\"notes\":[");
	collect_notes(m, &n);
	for (int i = 0; i < n.n; i++) {
		if (i)
			sb_putc(out, ',');
		json_str(out, n.msg[i]);
	}
	sb_puts(out, "]");
}

/* The locks: the lock graph, and what the wait profile saw of lock waits
 * (the lock check misses short ones). */
static void json_locks(const struct model *m, struct strbuf *out)
{
	char ln[400];
	lock_set_json(m->locks, out);
	sb_puts(out, ",\"lock_waits_profile\":");
	if (wait_table_lock_note(&m->wt, m->locks ? m->locks->waiting : 0, ln, sizeof ln))
		json_str(out, ln);
	else
		sb_puts(out, "null");
}

void batch_json_events(const struct model *m, const char *host, int top, bool sessions, const struct event_log *ev,
		       unsigned long ev_from, unsigned long ev_to, struct strbuf *out)
{
	json_head(m, host, out);
	json_rates_age(m, out);
	json_settings(m, out);
	json_digests(m, top, out);
	json_locks(m, out);
	wait_table_json(&m->wt, top, out);
	json_coverage(m, out);
	repl_json(&m->repl, out);
	findings_json(m->findings.f, m->findings.n, out);
	if (ev)
		events_json(ev, ev_from, ev_to, out);
	if (sessions) {
		struct session_set none = {.status = SESS_NOT_READ};
		session_set_json(out, m->sessions ? m->sessions : &none);
	}
	json_logdev(m, out);
	json_host(m, out);
	forecast_json_scoped(&m->outcome, m, out);
	sb_printf(out, ",\"cost\":{\"query_ms\":%.3f,\"queries\":%u,\"own_commits\":", m->last.query_ms,
		  m->last.nqueries);
	json_num(out, m->own_xacts);
	sb_puts(out, "}}");
}

void batch_text_sessions(const struct model *m, struct strbuf *out)
{
	const struct session_set *ss = m->sessions;
	struct session_counts c;
	char line[160 + 1];
	if (!ss) {
		sb_puts(out, "  sessions: not read\n");
		return;
	}
	session_counts(ss, &c);
	str_printf(line, sizeof line, "  sessions: %u (%u active, %u waiting for lock, %u idle in transaction, %u idle, "
		   "%u background, %u other)%s%s", c.total, c.active, c.lock_wait, c.idle_in_trx, c.idle, c.background,
		   c.other, ss->note[0] ? "; " : "", ss->note);
	sb_puts(out, text_sanitize(line));
	sb_putc(out, '\n');
	for (size_t i = 0; i < ss->n; i++) {
		const struct session *s = &ss->s[i];
		if (s->cls != SC_LOCK_WAIT)
			continue;
		char q[80] = "";
		if (s->query)
			str_copy(q, sizeof q, s->query);
		if (s->blocked_by)
			str_printf(line, sizeof line, "    %lld %s waits %.0f s for %lld%s: %s", s->id, s->user, s->state_s,
				   s->blocked_by, s->nblockers > 1 ? " and others" : "", q);
		else
			str_printf(line, sizeof line, "    %lld %s waits %.0f s (blocker not known): %s", s->id, s->user,
				   s->state_s, q);
		sb_puts(out, text_sanitize(line));
		sb_putc(out, '\n');
	}
}

/* ---- the text form: like top -b ---- */

#define TEXT_COLS 160

/* Append line (no newline) and a newline, cut at TEXT_COLS code points
 * with "..." unless st->wide. */
static void text_line(const struct batch_text_state *st, struct strbuf *out, const char *line)
{
	const char *p = line;
	int cols = 0;
	if (st && st->wide) {
		sb_puts(out, line);
		sb_putc(out, '\n');
		return;
	}
	for (; *p; p++)
		cols += ((unsigned char)*p & 0xc0) != 0x80;
	if (cols <= TEXT_COLS) {
		sb_puts(out, line);
		sb_putc(out, '\n');
		return;
	}
	/* the first TEXT_COLS - 3 code points, then the mark */
	cols = 0;
	for (p = line; *p; p++) {
		if (((unsigned char)*p & 0xc0) != 0x80 && ++cols > TEXT_COLS - 3)
			break;
	}
	sb_printf(out, "%.*s...\n", (int)(p - line), line);
}

/* Append text as lines within TEXT_COLS (unless st->wide), broken at
 * spaces, the continuation indented by indent columns. */
static void text_wrap(const struct batch_text_state *st, struct strbuf *out, const char *text, int indent)
{
	const char *p = text;
	int first = 1;
	if (st && st->wide) {
		text_line(st, out, text);
		return;
	}
	while (*p) {
		int room = TEXT_COLS - (first ? 0 : indent), cols = 0;
		const char *q = p, *cut = NULL;
		/* the last space within room code points, or room of them */
		for (; *q && cols < room; q++) {
			if (((unsigned char)*q & 0xc0) == 0x80)
				continue;
			if (*q == ' ')
				cut = q;
			cols++;
		}
		/* (q: past room code points, or the end) */
		while (*q && ((unsigned char)*q & 0xc0) == 0x80)
			q++;
		if (!*q)
			cut = q;
		else if (*q == ' ')
			cut = q;
		else if (!cut || cut == p)
			cut = q;
		sb_printf(out, "%*s%.*s\n", first ? 0 : indent, "", (int)(cut - p), p);
		p = cut;
		while (*p == ' ')
			p++;
		first = 0;
	}
}

/* The summary line's figures: the commit and durability rates. */
static const enum metric_id summary_metrics[] = {
	M_COMMITS, M_FSYNCS, M_FSYNCS_PER_COMMIT, M_REDO_FSYNC_MS, M_BINLOG_FSYNC_MS, M_WAL_SYNC_MS,
	M_COMMIT_MS, M_WAL_BYTES, M_REDO_BYTES,
};


/* One line per interval: time, engine, host, state, the rates, the cost. */
static void text_summary(const struct model *m, const char *host, const struct batch_text_state *st,
			 struct strbuf *out)
{
	char tbuf[32], v[48], ver[32];
	time_t t = (time_t)m->last.wall;
	struct tm tm;
	struct strbuf l;

	sb_init(&l);
	localtime_r(&t, &tm);
	strftime(tbuf, sizeof tbuf, "%Y-%m-%d %H:%M:%S", &tm);
	/* the version without the distribution's suffix */
	str_copy(ver, sizeof ver, m->caps.version);
	ver[strspn(ver, "0123456789.")] = '\0';
	sb_printf(&l, "%s  %s %s  %s  %s", tbuf, engine_label(m), ver, host,
		  m->last.state == STATE_UP ? "UP" : m->last.state == STATE_STALLED ? "STALLED" : "DOWN");
	if (m->last.state == STATE_DOWN)
		sb_printf(&l, " - retrying in %.0fs", d_ceil(m->last.retry_in));
	if (isfinite(m->interval_s))
		sb_printf(&l, "  every %.2fs", m->interval_s);
	char cost[48];
	str_printf(cost, sizeof cost, "  cost %.1fms/%uq", m->last.query_ms, m->last.nqueries);
	/* whole figures, in order, as many as fit beside the cost */
	for (size_t i = 0; i < sizeof summary_metrics / sizeof summary_metrics[0]; i++) {
		enum metric_id id = summary_metrics[i];
		char f[96];
		if (!model_metric_applies(m, id) || (m->cur[id].st == RATE_UNAVAIL && id > M_FSYNCS_PER_COMMIT))
			continue;
		rates_format(id, &m->cur[id], v, sizeof v);
		str_printf(f, sizeof f, "  %s %s", rates_label(id), v);
		if (!(st && st->wide) && l.len + strlen(f) + strlen(cost) > TEXT_COLS)
			break;
		sb_puts(&l, f);
	}
	sb_puts(&l, cost);
	text_line(st, out, l.s);
	sb_free(&l);
}

/* FNV-1a of s: notes and settings already printed are known by it. */
static unsigned long text_hash(const char *s)
{
	unsigned long h = 1469598103934665603UL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211UL;
	return h;
}

/* The log device, one line under the summary when dbtop looked at it:
 * the shown device's figures beside the server's sync latency, or why
 * there are none. */
static void text_logdev(const struct model *m, struct batch_text_state *st, struct strbuf *out)
{
	char line[400], sv[48];
	const char *why = rates_logdev_why(m), *sname;
	if (m->caps.logdev.state == LDS_NONE || m->last.state != STATE_UP)
		return;
	if (why || m->ld.n == 0) {
		/* a reason, like a note: when it first appears or changes */
		str_printf(line, sizeof line, "  log device: %s", why ? why : "no device");
		unsigned long h = text_hash(line);
		if (!st || st->logdev_seen != h)
			text_wrap(st, out, line, 4);
		if (st)
			st->logdev_seen = h;
		return;
	}
	if (st)
		st->logdev_seen = 0;
	const struct logdev_rates *d = &m->ld.cur[0];
	enum metric_id sm = rates_server_sync(m, &sname);
	if (!d->ok) {
		str_printf(line, sizeof line, "  log device %s: %s", d->name, d->why ? d->why : "no figures");
		text_wrap(st, out, line, 4);
		return;
	}
	sv[0] = '\0';
	if (sm < M__COUNT)
		rates_format(sm, &m->cur[sm], sv, sizeof sv);
	char fa[24], wa[24];
	str_printf(fa, sizeof fa, isfinite(d->f_await_ms) ? "%.3f ms" : "-", d->f_await_ms);
	str_printf(wa, sizeof wa, isfinite(d->w_await_ms) ? "%.3f ms" : "-", d->w_await_ms);
	if (d->has_flush)
		str_printf(line, sizeof line, "  log device %s: flush %s  write %s  %.0f writes/s %.0f flushes/s  queue %.2f  util %.0f%%"
			   "  | server %s %s", d->name, fa, wa, d->writes_s, d->flushes_s, d->queue, d->util_pct,
			   sm < M__COUNT ? sname : "sync", sm < M__COUNT ? sv : "-");
	else
		str_printf(line, sizeof line, "  log device %s: write %s  %.0f writes/s (no flush counts)  queue %.2f  util %.0f%%"
			   "  | server %s %s", d->name, wa, d->writes_s, d->queue, d->util_pct,
			   sm < M__COUNT ? sname : "sync", sm < M__COUNT ? sv : "-");
	text_wrap(st, out, line, 4);
}

/* Benchmark runs (seed 002), while they are seen: time and fsyncs per run. */
static void text_runs(const struct model *m, const struct batch_text_state *st, struct strbuf *out)
{
	char line[200], a[48], b[48];
	if (!m->runs.seen || m->cur[M_RUN_S].st != RATE_OK)
		return;
	rates_format(M_RUN_S, &m->cur[M_RUN_S], a, sizeof a);
	rates_format(M_RUN_FSYNCS, &m->cur[M_RUN_FSYNCS], b, sizeof b);
	str_printf(line, sizeof line, "  runs (Com_create_db): s per run %s  fsyncs per run %s  (over %.1f runs, %.1f s)", a,
		   b, m->runs.runs, m->runs.span_s);
	text_wrap(st, out, line, 4);
}

/* The top digests by total time this interval, one line each. */
static void text_digests(const struct model *m, const struct batch_text_state *st, struct strbuf *out)
{
	const struct digest_table *t = &m->dg;
	int top = st ? st->top : 5;
	if (!t->have_data || top <= 0)
		return;
	const struct digest_entry **e = xcalloc((size_t)top + 1, sizeof *e);
	size_t n = digest_table_top(t, DGS_TOTAL, false, e, (size_t)top);
	for (size_t i = 0; i < n; i++) {
		const struct digest_entry *d = e[i];
		char text[2048], line[2300], msv[40];
		double ms = d->rate[DG_TOTAL_NS] / 1e6;
		if (!d->known || !(ms > 0 || d->rate[DG_CALLS] > 0))
			continue;
		/* <=: calls longer than the interval, their time in it at most this */
		str_printf(msv, sizeof msv, "%s%.1f", d->time_bounded ? "<=" : "", ms);
		str_copy(text, sizeof text, d->last.text ? d->last.text : "(text not fetched yet)");
		text_sanitize(text);
		/* sampled: calls seen are a lower bound where executions were missed */
		str_printf(line, sizeof line, "  stmt %8s ms/s %s%*.1f calls/s %8.2f ms avg  %s%s%s", msv,
			   d->calls_lower ? ">=" : "", d->calls_lower ? 7 : 9, d->rate[DG_CALLS], d->avg_ms,
			   d->last.schema[0] ? d->last.schema : "", d->last.schema[0] ? ": " : "", text);
		text_line(st, out, line);
	}
	free(e);
}

/* Lock waits in the text record: a summary, then each chain's root and
 * every edge under it, one a line. */
static void text_locks(const struct lock_set *ls, const struct batch_text_state *st, struct strbuf *out)
{
	char st_text[96], line[1200];
	if (!ls || ls->status == LOCKS_IDLE)
		return;
	if (!lock_set_counted(ls)) {
		str_printf(line, sizeof line, "  locks: counted with the lock graph, %s", ls->note);
		text_line(st, out, line);
		return;
	}
	if (ls->status != LOCKS_READ) {
		str_printf(line, sizeof line, "  locks: %u waiting; %s: %s", ls->waiting,
			   ls->status == LOCKS_TIMED_OUT ? "lock query timed out"
			   : ls->status == LOCKS_PENDING ? "lock graph"
							 : "unavailable", ls->note);
		text_line(st, out, line);
		return;
	}
	str_printf(line, sizeof line, "  locks: %u waiting, %d root blocker%s%s%s%s", ls->waiting, ls->nroots,
		   ls->nroots == 1 ? "" : "s", ls->ncycles ? ", DEADLOCK in progress" : "", ls->note[0] ? "; " : "",
		   ls->note);
	text_line(st, out, line);
	for (size_t i = 0; i < ls->ns; i++) {
		const struct lock_session *r = &ls->s[i];
		if (!r->is_root)
			continue;
		lock_state_text(r, st_text, sizeof st_text);
		str_printf(line, sizeof line, "    root %lld %s %s, blocks %d: %s", r->id, r->user, st_text, r->blocked,
			   r->query ? r->query : "(statement not available)");
		text_line(st, out, line);
		for (size_t k = 0; k < ls->ne; k++) {
			const struct lock_edge *e = &ls->e[k];
			if (e->root != (int)i)
				continue;
			str_printf(line, sizeof line, "      %lld waits %.1fs for %lld: requested %s, held %s%s on %s %s%s%s",
				   ls->s[e->waiter].id, ls->s[e->waiter].wait_s, ls->s[e->blocker].id, e->requested, e->held,
				   e->soft ? " (queued ahead)" : "", e->object, e->lock_type, e->lock_data[0] ? " " : "",
				   e->lock_data);
			text_line(st, out, line);
		}
	}
}

/* The findings in force, one line each (wrapped). */
static void text_findings(const struct model *m, const struct batch_text_state *st, struct strbuf *out)
{
	const struct finding *f = m->findings.f;
	for (size_t k = 0; k < m->findings.n; k++) {
		char line[1400];
		str_printf(line, sizeof line, "  %s %s: %s -> %s", f[k].severity == SEV_CRIT ? "!!" : "!", f[k].id,
			   f[k].summary, f[k].suggestion);
		text_wrap(st, out, line, 6);
	}
}

/* Replication (each standby's lag, semi-sync's figures; none when nothing
 * replicates) and what the wait profile saw of lock waits (the check
 * misses short ones). */
static void text_replication(const struct model *m, const struct batch_text_state *st, struct strbuf *out)
{
	char rl[8][160], line[180], ln[400], wl[440];
	bool rc[8];
	int nr = rates_replication(m, rl, rc, 8);
	for (int k = 0; k < nr; k++) {
		str_printf(line, sizeof line, "  %s%s", rc[k] ? "! " : "", rl[k]);
		text_wrap(st, out, line, 4);
	}
	if (m->last.state == STATE_UP &&
	    wait_table_lock_note(&m->wt, m->locks ? m->locks->waiting : 0, ln, sizeof ln)) {
		str_printf(wl, sizeof wl, "  lock waits (wait profile): %s", ln);
		text_wrap(st, out, wl, 4);
	}
}

/* The settings line, when it appears or changes: never cut (it says what
 * the rates mean), wrapped between two settings instead, the rest
 * indented under the first. */
static void text_settings(const struct model *m, struct batch_text_state *st, struct strbuf *out)
{
	struct strbuf l;
	if (!m->nsettings)
		return;
	sb_init(&l);
	size_t cur = 0; /* columns of the line being filled */
	sb_puts(&l, "  settings:");
	cur = l.len;
	for (size_t k = 0; k < m->nsettings; k++) {
		char one[200];
		str_printf(one, sizeof one, " %s=%s", m->settings[k].name, m->settings[k].value);
		if (!(st && st->wide) && cur > 11 && cur + strlen(one) > TEXT_COLS) {
			sb_puts(&l, "\n           ");
			cur = 11;
		}
		sb_puts(&l, one);
		cur += strlen(one);
	}
	unsigned long h = text_hash(l.s);
	if (!st || h != st->settings_seen) {
		sb_puts(out, l.s);
		sb_putc(out, '\n');
		if (st)
			st->settings_seen = h;
	}
	sb_free(&l);
}

/* Each note when it appears. */
static void text_notes(const struct model *m, struct batch_text_state *st, struct strbuf *out)
{
	struct notes n;
	unsigned long seen[NOTES_MAX];
	int i;
	collect_notes(m, &n);
	for (i = 0; i < n.n && i < NOTES_MAX; i++) {
		bool old = false;
		seen[i] = text_hash(n.msg[i]);
		for (int k = 0; st && k < st->nnotes; k++)
			old |= st->notes_seen[k] == seen[i];
		if (!old) {
			char line[NOTE_LEN + 16];
			str_printf(line, sizeof line, "  note: %s", n.msg[i]);
			text_wrap(st, out, line, 8);
		}
	}
	if (st) {
		memcpy(st->notes_seen, seen, sizeof seen[0] * (size_t)i);
		st->nnotes = i;
	}
}

void batch_text(const struct model *m, const char *host, struct batch_text_state *st, struct strbuf *out)
{
	text_summary(m, host, st, out);
	text_findings(m, st, out);
	text_logdev(m, st, out);
	text_runs(m, st, out);
	text_digests(m, st, out);
	text_locks(m->locks, st, out);
	text_replication(m, st, out);
	/* the settings and the notes: when they appear or change */
	text_settings(m, st, out);
	text_notes(m, st, out);
}
