/* waits.c - the wait-events pane: where the sessions' time goes, as
 * average active sessions per wait event with a sparkline each, WAL / redo
 * / binlog events highlighted, and beside them how often and how long the
 * server writes and syncs its WAL or redo log. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../core/fixes.h"
#include "../util/util.h"
#include "pane.h"
#include "rates.h"

/* One figure of the rates model as text ("-" when unknown). */
static const char *fig(const struct model *m, enum metric_id id, char *buf, size_t len)
{
	if (!model_metric_applies(m, id) || m->cur[id].st == RATE_UNAVAIL)
		return str_copy(buf, len, "n/a"), buf;
	return rates_format(id, &m->cur[id], buf, len);
}

/* The WAL / redo line: writes and syncs per second with their latency,
 * bytes, and per commit. */
static void durability_line(const struct model *m, char *out, size_t len)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32], h[32];
	if (m->caps.engine == ENGINE_POSTGRESQL)
		str_printf(out, len, "WAL writes/s %s (%s)  syncs/s %s (%s)  bytes/s %s  buffers full/s %s  per commit %s, %s syncs",
			   fig(m, M_WAL_WRITES, a, sizeof a), fig(m, M_WAL_WRITE_MS, b, sizeof b),
			   fig(m, M_WAL_SYNCS, c, sizeof c), fig(m, M_WAL_SYNC_MS, d, sizeof d),
			   fig(m, M_WAL_BYTES, e, sizeof e), fig(m, M_WAL_BUFFERS_FULL, f, sizeof f),
			   fig(m, M_WAL_BYTES_PER_COMMIT, g, sizeof g), fig(m, M_FSYNCS_PER_COMMIT, h, sizeof h));
	else
		str_printf(out, len, "redo fsyncs/s %s (%s)  binlog fsyncs/s %s (%s)  redo bytes/s %s  fsyncs/commit %s",
			   fig(m, M_REDO_FSYNCS, a, sizeof a), fig(m, M_REDO_FSYNC_MS, b, sizeof b),
			   fig(m, M_BINLOG_FSYNCS, c, sizeof c), fig(m, M_BINLOG_FSYNC_MS, d, sizeof d),
			   fig(m, M_REDO_BYTES, e, sizeof e), fig(m, M_FSYNCS_PER_COMMIT, f, sizeof f));
}

/* Events shown (after the filter), ranked by average active sessions. */
/* Rows under this AAS show as 0.000: left out (but counted) unless a
 * filter asks for them. */
#define AAS_SHOWN 0.0005

/* The ranked events the pane lists (the filter's, else those of 0.001
 * AAS or more); *tiny: the events left out for their AAS. */
static size_t shown_tiny(const struct model *m, const struct pane_view *v, const struct wait_entry **rows, int *tiny)
{
	size_t n = wait_table_ranked(&m->wt, rows, WAIT_MAX), k = 0;
	*tiny = 0;
	for (size_t i = 0; i < n; i++) {
		char buf[WAIT_NAME_LEN + 16];
		str_printf(buf, sizeof buf, "%s %s", rows[i]->name, wait_class_name(rows[i]->cls));
		if (!v->filter && !(rows[i]->aas >= AAS_SHOWN))
			++*tiny;
		else if (pane_filter_match(v, buf))
			rows[k++] = rows[i];
	}
	return k;
}

static size_t shown(const struct model *m, const struct pane_view *v, const struct wait_entry **rows)
{
	int tiny;
	return shown_tiny(m, v, rows, &tiny);
}

/* Who a replication wait waits for: "standby s1" (PostgreSQL IPC:SyncRep:
 * the synchronous standby with the most flush lag), "semi-sync replica";
 * NULL for other events. */
static const char *repl_wait_for(const struct model *m, const char *event, char *buf, size_t len)
{
	if (strcmp(event, "IPC:SyncRep") == 0) {
		const struct repl_standby *s = m->repl.known ? repl_sync_standby(&m->repl.r) : NULL;
		if (s)
			str_printf(buf, len, "standby %s", s->name[0] ? s->name : "?");
		else
			str_copy(buf, len, m->repl.known && !m->repl.r.hidden ? "no sync standby" : "a sync standby");
		return buf;
	}
	if (strcasestr(event, "semisync") || strcasestr(event, "semi_sync")) {
		str_copy(buf, len, "semi-sync replica");
		return buf;
	}
	return NULL;
}

static void draw_details(const struct model *m, const struct wait_entry *e, struct canvas *cv)
{
	const struct wait_table *t = &m->wt;
	int y = 0;
	cv_printf(cv, y++, 0, R_TITLE, "%s  (class %s%s)", e->name, wait_class_name(e->cls),
		  wait_is_durability(e->name) ? ", durability" : "");
	cv_printf(cv, y++, 0, R_VALUE, "average active sessions %.3f  = %.1f ms of waiting per second", e->aas, e->aas * 1000);
	if (t->source == WS_PERF_SCHEMA) {
		if (isfinite(e->avg_ms))
			cv_printf(cv, y++, 0, R_VALUE, "waits/s %.1f  average %.3f ms", e->count_per_s, e->avg_ms);
		else
			cv_printf(cv, y++, 0, R_VALUE, "waits/s %.1f  average - (no wait this interval)", e->count_per_s);
	}
	cv_printf(cv, y++, 0, R_LABEL, "source: %s", wait_source_name(t->source));
	char who[96];
	const struct repl_standby *sb = m->repl.known ? repl_sync_standby(&m->repl.r) : NULL;
	if (repl_wait_for(m, e->name, who, sizeof who)) {
		char fb[16], fm[16];
		str_bytes(sb ? (double)sb->flush_b : -1, fb, sizeof fb);
		repl_fmt_ms(sb ? sb->flush_ms : NAN, fm, sizeof fm);
		if (sb && strcmp(e->name, "IPC:SyncRep") == 0)
			cv_printf(cv, y++, 0, R_WARN, "commits wait for %s (%s, flush lag %s / %s): %s", who, sb->sync_state,
				  fb, fm, fix_brief(FIX_SYNCREP_WAIT));
		else
			cv_printf(cv, y++, 0, R_WARN, "commits wait for %s", who);
	}
	if (y + 2 < cv->h) {
		if (cv->w - 4 > (int)t->hist_len)
			cv_printf(cv, y++, 0, R_LABEL,
				  "average active sessions, per interval (the newest %zu):", t->hist_len);
		else
			cv_text(cv, y++, 0, R_LABEL, "average active sessions, per interval:");
		for (int r = 0; r < 4 && y < cv->h; r++, y++)
			cv_spark(cv, y, 2, cv->w - 4, &e->hist, 0, R_SPARK);
	}
}

/* The history column's head at line y from column sx: wider than an
 * event's history, its sparkline starts right of the column's left edge. */
static void history_head(const struct wait_table *t, struct canvas *cv, int y, int sx)
{
	if (cv->w - sx > (int)t->hist_len)
		cv_printf(cv, y, sx, R_LABEL, "history: the newest %zu intervals, at the right", t->hist_len);
	else
		cv_text(cv, y, sx, R_LABEL, "history");
}

/* What the profile comes from and what it misses. */
static void source_line(const struct wait_table *t, char *line, size_t len)
{
	char hz[16];
	switch (t->source) {
	case WS_SAMPLED:
		dg_fmt_hz(hz, sizeof hz, t->hz);
		str_printf(line, len, "sampled pg_stat_activity at %s Hz (%u samples, %.2f ms each): waits shorter "
			   "than a sample period are under-counted; install pg_wait_sampling for 10 ms sampling",
			   hz, t->rounds, t->cost_per_sample_ms);
		break;
	case WS_PG_WAIT_SAMPLING:
		str_printf(line, len, "pg_wait_sampling profile (sampled on the server every 10 ms): "
			   "very short waits are still under-counted");
		break;
	case WS_PERF_SCHEMA:
		str_printf(line, len, "performance_schema wait summaries: every timed wait counted");
		break;
	default:
		str_copy(line, len, "no source");
	}
}

/* One event's row at line y: name, class, AAS, share (waits/s and avg ms
 * from performance_schema), its history from column sx. */
static void draw_event(const struct model *m, const struct wait_entry *e, bool sel, int namew, int sx,
		       struct canvas *cv, int y)
{
	const struct wait_table *t = &m->wt;
	char line[512], extra[48] = "";
	double share = t->total_aas > 0 ? e->aas / t->total_aas * 100 : NAN;
	if (t->source == WS_PERF_SCHEMA) {
		char c1[16] = "-", c2[16] = "-";
		if (isfinite(e->count_per_s))
			str_printf(c1, sizeof c1, "%.1f", e->count_per_s);
		if (isfinite(e->avg_ms))
			str_printf(c2, sizeof c2, "%.3f", e->avg_ms);
		str_printf(extra, sizeof extra, "  %7s %8s", c1, c2);
	}
	char name[WAIT_NAME_LEN + 8], who[80], label[WAIT_NAME_LEN + 96];
	/* a replication wait names what it waits for */
	if (repl_wait_for(m, e->name, who, sizeof who))
		str_printf(label, sizeof label, "%s: %s", e->name, who);
	else
		str_copy(label, sizeof label, e->name);
	text_pad(name, sizeof name, label, namew, false, cv->utf8);
	str_printf(line, sizeof line, "%s %-6s %7.3f %5.1f%%%s", name, wait_class_name(e->cls),
		   e->aas, isfinite(share) ? share : 0.0, extra);
	if (sel)
		cv_fill(cv, y, 0, cv->w, R_SELECTED);
	cv_text(cv, y, 0, sel ? R_SELECTED : wait_is_durability(e->name) ? R_WARN : R_VALUE, line);
	if (cv->w - sx > 4)
		cv_spark(cv, y, sx, cv->w - sx, &e->hist, 0, R_SPARK);
}

/* One event with each figure followed by its head ("wait/io/... io
 * 1.764 AAS  94.0%  1941.9 waits/s  0.908 avg ms"): the pane one row high,
 * where the heads would take the only row. */
static void draw_labeled(const struct model *m, const struct wait_entry *e, bool sel, struct canvas *cv, int y)
{
	const struct wait_table *t = &m->wt;
	char line[512];
	double share = t->total_aas > 0 ? e->aas / t->total_aas * 100 : NAN;
	int l = (int)str_printf(line, sizeof line, "%s  %s  %.3f AAS  %.1f%%", e->name, wait_class_name(e->cls), e->aas,
				isfinite(share) ? share : 0.0);
	if (t->source == WS_PERF_SCHEMA && isfinite(e->count_per_s))
		l += (int)str_printf(line + l, sizeof line - (size_t)l, "  %.1f waits/s", e->count_per_s);
	if (t->source == WS_PERF_SCHEMA && isfinite(e->avg_ms))
		str_printf(line + l, sizeof line - (size_t)l, "  %.3f avg ms", e->avg_ms);
	if (sel)
		cv_fill(cv, y, 0, cv->w, R_SELECTED);
	cv_text(cv, y, 0, sel ? R_SELECTED : wait_is_durability(e->name) ? R_WARN : R_VALUE, line);
}

/* No wait profile read yet: why, and how to fix it when it can be. */
static void waits_none(const struct model *m, struct canvas *cv)
{
	if (m->caps.engine == ENGINE_MYSQL && !m->caps.ps_readable)
		cv_printf(cv, 0, 0, R_WARN, "no wait events: performance_schema is off or not readable (%s, %s)",
			  fix_brief(FIX_PS_OFF), fix_brief(FIX_PS_SELECT));
	else
		cv_text(cv, 0, 0, R_UNKNOWN,
			m->last.state == STATE_UP ? "no wait profile yet"
						  : "no wait events while the server is not answering");
}

static void waits_draw(const struct model *m, struct pane_view *v, struct canvas *cv)
{
	const struct wait_table *t = &m->wt;
	const struct wait_entry *rows[WAIT_MAX];
	char line[512];
	int y = 0;

	v->nrows = 0;
	if (!t->have_data) {
		waits_none(m, cv);
		return;
	}
	source_line(t, line, sizeof line);
	int tiny;
	size_t n = shown_tiny(m, v, rows, &tiny);
	if (tiny > 0) {
		size_t l = strlen(line);
		str_printf(line + l, sizeof line - l, "; %d event%s under 0.001 AAS not listed", tiny, tiny == 1 ? "" : "s");
	}
	/* the head and three events first; then the WAL / redo line, the
	 * source, the note */
	int spare = cv->h - 1 - (int)(n < 3 ? (n ? n : 1) : 3);
	if (spare >= 2 || v->details)
		cv_text(cv, y++, 0, R_LABEL, line);
	if (y < cv->h && (spare >= 1 || v->details)) {
		durability_line(m, line, sizeof line);
		cv_text(cv, y++, 0, R_VALUE, line);
	}
	/* a profile that counts nothing says why first (in place of the list);
	 * a first reading is said in the list's place */
	if (t->note[0] && y < cv->h && !(t->base_only && n == 0) &&
	    (spare >= 3 || v->details || (t->stopped && n == 0))) {
		/* what stopped the counting and the statement that restarts it,
		 * whole at any width (its rows in place of the list's) */
		if (t->stopped)
			y = cv_wrap(cv, y, 0, R_WARN, t->note, n == 0 ? (cv->h - 1 > y ? cv->h - 1 : y + 1) : y + 2);
		else
			cv_text(cv, y++, 0, R_NOTE, t->note);
	}
	v->nrows = (int)n;
	if (v->details && n > 0) {
		pane_clamp(v, (int)n, 1);
		struct canvas sub = cv_sub(cv, y, 0, cv->h - y, cv->w);
		draw_details(m, rows[v->sel], &sub);
		v->nshown = 1;
		return;
	}
	if (y >= cv->h)
		return;
	bool ps = t->source == WS_PERF_SCHEMA;
	int namew = cv->w >= 120 ? 40 : 30;
	if (namew > cv->w - 26)
		namew = cv->w - 26 > 12 ? cv->w - 26 : 12;
	str_printf(line, sizeof line, "%-*s %-6s %7s %6s%s", namew, "event", "class", "AAS", "share",
		   ps ? "  waits/s   avg ms" : "");
	int sx = text_cols(line) + 2;
	if (n == 0) {
		cv_text(cv, y, 0, R_UNKNOWN,
			v->filter      ? "no event matches the filter"
			: t->stopped   ? "no wait counted: see above"
			: t->base_only ? "the wait profile was read once: its waits come at the next reading"
			: tiny         ? "no event reached 0.001 average active sessions this interval"
				       : "no session waited on anything this interval");
		return;
	}
	if (cv->h - y < 2) {
		/* one row only: the top event with each figure's head */
		pane_clamp(v, (int)n, 1);
		draw_labeled(m, rows[v->top], v->focused && v->sel == v->top, cv, y);
		v->nshown = 1;
		return;
	}
	cv_text(cv, y, 0, R_LABEL, line);
	history_head(t, cv, y++, sx);
	pane_clamp(v, (int)n, cv->h - y);
	for (size_t i = (size_t)v->top; i < n && y < cv->h; i++, y++) {
		draw_event(m, rows[i], v->focused && (int)i == v->sel, namew, sx, cv, y);
		v->nshown++;
	}
}

static int waits_need(const struct model *m, const struct pane_view *v, int w, int *min)
{
	const struct wait_table *t = &m->wt;
	const struct wait_entry *rows[WAIT_MAX];
	(void)w;
	*min = 1;
	if (!t->have_data)
		return 1;
	int n = (int)shown(m, v, rows);
	*min = 1 + (n < 3 ? (n ? n : 1) : 3);
	return 3 + (t->note[0] != 0) + (n ? n : 1);
}

const struct pane_ops waits_pane = {
	.name = "waits",
	.title = "WAL / redo waits",
	.draw = waits_draw,
	.min_h = 4,
	.need = waits_need,
};
