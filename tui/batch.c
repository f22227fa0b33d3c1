/* batch.c - JSON and text records for --batch. */
#include "batch.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "../model/digests.h"
#include "../model/findings.h"
#include "../panes/rates.h"
#include <stdlib.h>

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

/* The "digests" member: the top n by total time this interval. */
static void json_digests(const struct model *m, int top, struct strbuf *out)
{
	const struct digest_table *t = &m->dg;
	const struct digest_entry **e;
	size_t n, i;
	if (!t->have_data) {
		sb_puts(out, ",\"digests\":null");
		return;
	}
	e = xcalloc((size_t)top + 1, sizeof *e);
	n = digest_table_top(t, DGS_TOTAL, false, e, (size_t)top);
	sb_puts(out, ",\"digests\":[");
	for (i = 0; i < n; i++) {
		const struct digest_entry *d = e[i];
		char text[201];
		double ms = d->rate[DG_TOTAL_NS] / 1e6;
		str_copy(text, sizeof text, d->last.text ? d->last.text : "");
		if (i)
			sb_putc(out, ',');
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
		if (digest_is_estimate(t, d))
			sb_puts(out, ",\"estimate\":true");
		sb_putc(out, '}');
	}
	sb_puts(out, "]");
	free(e);
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
	sb_puts(out, ",\"reason\":");
	if (c->reason)
		json_str(out, c->reason);
	else
		sb_puts(out, "null");
	sb_putc(out, '}');
}

void batch_json(const struct model *m, const char *host, int top, struct strbuf *out)
{
	struct notes n;
	int i;
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
	for (i = 0; i < M__COUNT; i++) {
		if (!model_metric_applies(m, i))
			continue;
		if (!first)
			sb_putc(out, ',');
		first = false;
		json_str(out, metric_defs[i].key);
		sb_putc(out, ':');
		json_num(out, m->cur[i].st == RATE_OK ? m->cur[i].v : NAN);
	}
	sb_puts(out, "},\"settings\":{");
	for (i = 0; i < (int)m->nsettings; i++) {
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
	for (i = 0; i < n.n; i++) {
		if (i)
			sb_putc(out, ',');
		json_str(out, n.msg[i]);
	}
	sb_puts(out, "]");
	json_digests(m, top, out);
	lock_set_json(m->locks, out);
	wait_table_json(&m->wt, top, out);
	json_coverage(m, out);
	{
		struct finding f[FINDINGS_MAX];
		findings_json(f, findings_eval(m, f, FINDINGS_MAX), out);
	}
	sb_printf(out, ",\"cost\":{\"query_ms\":%.3f,\"queries\":%u}}", m->last.query_ms,
		  m->last.nqueries);
}

/* Lock waits in the text record: a summary, then each chain's root and
 * every edge under it, one per line. */
static void batch_text_locks(const struct lock_set *ls, struct strbuf *out)
{
	char st[96];
	if (!ls || ls->status == LOCKS_IDLE)
		return;
	if (ls->status != LOCKS_READ) {
		sb_printf(out, "  locks: %u waiting; %s: %s\n", ls->waiting,
			  ls->status == LOCKS_TIMED_OUT ? "lock query timed out" : "unavailable", ls->note);
		return;
	}
	sb_printf(out, "  locks: %u waiting, %d root blocker%s%s\n", ls->waiting, ls->nroots, ls->nroots == 1 ? "" : "s",
		  ls->ncycles ? ", DEADLOCK in progress" : "");
	if (ls->note[0])
		sb_printf(out, "    (%s)\n", ls->note);
	for (size_t i = 0; i < ls->ns; i++) {
		const struct lock_session *r = &ls->s[i];
		if (!r->is_root)
			continue;
		lock_state_text(r, st, sizeof st);
		sb_printf(out, "    root %lld %s %s, blocks %d: %.120s\n", r->id, r->user, st, r->blocked,
			  r->query ? r->query : "(statement not available)");
		for (size_t k = 0; k < ls->ne; k++) {
			const struct lock_edge *e = &ls->e[k];
			if (e->root != (int)i)
				continue;
			sb_printf(out, "      %lld waits %.1fs for %lld: requested %s, held %s%s on %s %s %s\n",
				  ls->s[e->waiter].id, ls->s[e->waiter].wait_s, ls->s[e->blocker].id, e->requested,
				  e->held, e->soft ? " (queued ahead)" : "", e->object, e->lock_type, e->lock_data);
		}
	}
}

void batch_text(const struct model *m, const char *host, struct strbuf *out)
{
	char tbuf[32], v[48];
	time_t t = (time_t)m->last.wall;
	struct tm tm;
	struct notes n;
	size_t i;
	int col = 0;

	localtime_r(&t, &tm);
	strftime(tbuf, sizeof tbuf, "%Y-%m-%d %H:%M:%S", &tm);
	sb_printf(out, "%s  %s %s  %s  %s", tbuf, engine_label(m), m->caps.version, host,
		  m->last.state == STATE_UP ? "UP" : m->last.state == STATE_STALLED ? "STALLED" : "DOWN");
	if (m->last.state == STATE_DOWN)
		sb_printf(out, " - retrying in %.0fs", d_ceil(m->last.retry_in));
	if (isfinite(m->interval_s))
		sb_printf(out, "  interval %.2fs", m->interval_s);
	sb_printf(out, "  cost %.1fms/%uq\n", m->last.query_ms, m->last.nqueries);
	for (i = 0; i < rates_nrows; i++) {
		enum metric_id id = rates_rows[i].metric;
		if (!model_metric_applies(m, id) ||
		    (m->cur[id].st == RATE_UNAVAIL && id > M_FSYNCS_PER_COMMIT))
			continue;
		rates_format(id, &m->cur[id], v, sizeof v);
		sb_printf(out, "  %-20s %14s", rates_rows[i].label, v);
		if (++col % 2 == 0)
			sb_putc(out, '\n');
	}
	if (col % 2)
		sb_putc(out, '\n');
	if (m->nsettings) {
		sb_puts(out, "  settings:");
		for (i = 0; i < m->nsettings; i++)
			sb_printf(out, " %s=%s", m->settings[i].name, m->settings[i].value);
		sb_putc(out, '\n');
	}
	batch_text_locks(m->locks, out);
	{
		struct finding f[FINDINGS_MAX];
		size_t nf = findings_eval(m, f, FINDINGS_MAX);
		for (size_t k = 0; k < nf; k++)
			sb_printf(out, "  finding (%s) %s: %s; %s -> %s\n", finding_severity_name(f[k].severity), f[k].id,
				  f[k].summary, f[k].evidence, f[k].suggestion);
	}
	collect_notes(m, &n);
	for (i = 0; i < (size_t)n.n; i++)
		sb_printf(out, "  note: %s\n", n.msg[i]);
}
