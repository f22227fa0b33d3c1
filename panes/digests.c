/* digests.c - the statement digests pane: which normalised statements
 * consume the server's time, per interval (or since they were first seen). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../model/digests.h"
#include "../util/util.h"
#include "pane.h"

#define MAX_ROWS 500   /* rows ranked per frame */

/* v->sort: bits 0-1 sort key, bit 2 cumulative */
#define SORT_KEY(v) ((enum dg_sort)((v)->sort & 3))
#define CUMULATIVE(v) (((v)->sort & 4) != 0)

/* Compact figure: 0.12, 3.4, 56, 1.2k, 3.4M. */
static void fmt_fig(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		str_copy(buf, len, "-");
	else if (v >= 1e6)
		str_printf(buf, len, "%.1fM", v / 1e6);
	else if (v >= 1e4)
		str_printf(buf, len, "%.1fk", v / 1e3);
	else if (v >= 100)
		str_printf(buf, len, "%.0f", v);
	else if (v >= 10)
		str_printf(buf, len, "%.1f", v);
	else
		str_printf(buf, len, "%.2f", v);
}

/* Rate or cumulative value of counter k. */
static double fig(const struct digest_entry *e, int k, bool cumulative)
{
	if (!(e->last.have >> k & 1))
		return NAN;
	return cumulative ? (double)e->last.c[k] : e->rate[k];
}

/* Ranked, filtered entries into out; returns the count. */
static size_t ranked(const struct model *m, const struct pane_view *v, const struct digest_entry **out)
{
	const struct digest_entry **all = xcalloc(MAX_ROWS, sizeof *all);
	size_t n = digest_table_top(&m->dg, SORT_KEY(v), CUMULATIVE(v), all, MAX_ROWS), i, k = 0;
	for (i = 0; i < n; i++) {
		const struct digest_entry *e = all[i];
		if (v->filter && !pane_filter_match(v, e->last.text ? e->last.text : "") &&
		    !pane_filter_match(v, e->last.schema))
			continue;
		out[k++] = e;
	}
	free(all);
	return k;
}

/* "2026-11-29 12:03:04" or "-". */
static void fmt_time(double t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (t <= 0) {
		str_copy(buf, len, "-");
		return;
	}
	localtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

static void draw_details(const struct model *m, const struct digest_entry *e, struct canvas *cv)
{
	static const char *const names[DG__COUNT] = {
		"calls", "total time ms", "rows", "lock time ms", "rows examined", "errors",
		"shared blocks hit", "shared blocks read", "WAL bytes", "planning time ms",
	};
	char a[32], b[32], f[32], l[32];
	const char *text = e->last.text ? e->last.text : "(text not fetched yet)";
	int y = 0, k, w = cv->w;
	size_t len = strlen(text), off = 0;
	struct ring r;
	double vals[60];

	cv_printf(cv, y++, 0, R_TITLE, "digest %s  schema %s", e->last.key, e->last.schema[0] ? e->last.schema : "-");
	/* the full text, wrapped (sanitised by the canvas) */
	while (off < len && y < cv->h / 2) {
		char line[1024];
		size_t take = (size_t)(w > 1 ? w : 1);
		if (take > sizeof line - 1)
			take = sizeof line - 1;
		if (take > len - off)
			take = len - off;
		memcpy(line, text + off, take);
		line[take] = '\0';
		cv_text(cv, y++, 0, R_NORMAL, line);
		off += take;
	}
	fmt_time(e->last.first_seen, f, sizeof f);
	fmt_time(e->last.last_seen, l, sizeof l);
	cv_printf(cv, y++, 0, R_LABEL, "first seen %s   last seen %s", f, l);
	if (m->caps.ps_digest_hist) {
		if (isfinite(e->p95_ms))
			cv_printf(cv, y++, 0, R_LABEL, "p95 latency this interval %.3f ms (latency histogram)", e->p95_ms);
		else
			cv_text(cv, y++, 0, R_LABEL, "p95 latency this interval - (not measured)");
	}
	if (isfinite(e->last.p95_ms))
		cv_printf(cv, y++, 0, R_LABEL, "p95 latency since first seen %.3f ms (QUANTILE_95)", e->last.p95_ms);
	cv_printf(cv, y++, 0, R_LABEL, "%-20s %16s %14s", "", "since first seen", "per second now");
	for (k = 0; k < DG__COUNT && y < cv->h - 2; k++) {
		double cum, rate;
		if (!(e->last.have >> k & 1))
			continue;
		cum = (double)e->last.c[k];
		rate = e->rate[k];
		if (k == DG_TOTAL_NS || k == DG_LOCK_NS || k == DG_PLAN_NS) {
			cum /= 1e6;
			rate /= 1e6;
		}
		fmt_fig(cum, a, sizeof a);
		fmt_fig(e->known ? rate : NAN, b, sizeof b);
		cv_printf(cv, y++, 0, R_VALUE, "%-20s %16s %14s", names[k], a, b);
	}
	fmt_fig(e->avg_ms, a, sizeof a);
	cv_printf(cv, y++, 0, R_VALUE, "%-20s %16s %14s", "avg latency ms", "", a);
	/* its own sparkline of total ms per second */
	if (y < cv->h) {
		int i, n = (int)(e->hist_head < 60 ? e->hist_head : 60);
		for (i = 0; i < 60; i++)
			vals[i] = NAN;
		r.v = vals;
		r.cap = 60;
		r.head = 0;
		r.len = 0;
		for (i = n - 1; i >= 0; i--)
			ring_push(&r, (double)e->hist[(e->hist_head - 1 - (unsigned)i) % 60]);
		cv_text(cv, y, 0, R_LABEL, "total ms/s");
		cv_spark(cv, y, 12, w - 12 < 60 ? w - 12 : 60, &r, 0, R_SPARK);
	}
}

static void digests_draw(const struct model *m, struct pane_view *v, struct canvas *cv)
{
	const struct digest_table *t = &m->dg;
	const struct digest_entry **rows;
	bool pg = m->caps.engine == ENGINE_POSTGRESQL, cum = CUMULATIVE(v), p95 = m->caps.ps_digest_hist;
	size_t n, i;
	int y = 0, textx;
	char h1[256];

	v->nrows = 0;
	if (!t->have_data) {
		if (m->caps.engine == ENGINE_POSTGRESQL && !m->caps.pgss_version)
			cv_text(cv, 0, 0, R_WARN, "no statement statistics: pg_stat_statements is not installed in this database");
		else if (m->caps.engine == ENGINE_MYSQL && !m->caps.ps_digests)
			cv_text(cv, 0, 0, R_WARN, "no statement statistics: performance_schema digests are unavailable");
		else
			cv_text(cv, 0, 0, R_UNKNOWN, "no digest sample yet");
		for (i = 0, y = 1; i < (size_t)m->caps.notes.n && y < cv->h; i++)
			if (strstr(m->caps.notes.msg[i], "pg_stat_statements") || strstr(m->caps.notes.msg[i], "digest"))
				cv_printf(cv, y++, 0, R_NOTE, "fix: %s", m->caps.notes.msg[i]);
		return;
	}
	rows = xcalloc(MAX_ROWS, sizeof *rows);
	n = ranked(m, v, rows);
	v->nrows = (int)n;
	if (v->details && n > 0) {
		pane_clamp(v, (int)n, 1);
		draw_details(m, rows[v->sel], cv);
		free(rows);
		return;
	}
	/* status: source, total, sort, mode, losses */
	str_printf(h1, sizeof h1, "%s  %s  total %.1f ms/s  sort: %s%s", t->source,
		   cum ? "since first seen (d: per interval)" : "per interval (d: cumulative)",
		   t->total_ms_per_s, dg_sort_names[SORT_KEY(v)], t->sampled ? "  SAMPLED" : "");
	cv_text(cv, y++, 0, R_LABEL, h1);
	if (m->cov.known && m->cov.share < DG_COVERAGE_LOW && y < cv->h)
		cv_printf(cv, y++, 0, R_WARN, "digests cover %.0f%% of the statements%s%s%s", m->cov.share * 100,
			  m->cov.reason ? ": " : "", m->cov.reason ? m->cov.reason : "",
			  m->cov.reason ? "; ~ rows: sampled from their sessions (estimates, time capped at the measured)" : "");
	if (t->lost_delta > 0 && y < cv->h)
		cv_printf(cv, y++, 0, R_WARN, "%llu statements not tracked this interval: %s",
			  (unsigned long long)t->lost_delta,
			  pg ? "pg_stat_statements evicted entries (raise pg_stat_statements.max)"
			     : "digest table full (raise performance_schema_digests_size)");
	if (y >= cv->h) {
		free(rows);
		return;
	}
	/* column heads; p95 only where the server has latency histograms */
	if (cum)
		str_printf(h1, sizeof h1, "%6s %9s %9s %8s%s%9s %9s %9s %-12s", "share", "total ms", "calls",
			   "avg ms", p95 ? "   p95 ms " : " ", "rows", pg ? "hit" : "lock ms", pg ? "read" : "examined",
			   "schema");
	else
		str_printf(h1, sizeof h1, "%6s %9s %9s %8s%s%9s %9s %9s %-12s", "share", "ms/s", "calls/s",
			   "avg ms", p95 ? "   p95 ms " : " ", "rows/s", pg ? "hit/s" : "lock ms/s",
			   pg ? "read/s" : "exam/s", "schema");
	textx = cv_text(cv, y, 0, R_LABEL, h1) + 1;
	cv_text(cv, y++, textx, R_LABEL, "statement");
	if (n == 0) {
		cv_text(cv, y, 0, R_UNKNOWN, v->filter ? "no statement matches the filter"
						      : "no statement ran in this interval");
		free(rows);
		return;
	}
	pane_clamp(v, (int)n, cv->h - y);
	double total = 0;
	if (cum)
		for (i = 0; i < n; i++)
			total += (double)rows[i]->last.c[DG_TOTAL_NS];
	for (i = (size_t)v->top; i < n && y < cv->h; i++, y++) {
		const struct digest_entry *e = rows[i];
		char c[7][24], pc[24] = "", line[512];
		double ms = cum ? (double)e->last.c[DG_TOTAL_NS] / 1e6 : e->rate[DG_TOTAL_NS] / 1e6;
		double share = cum ? (total > 0 ? (double)e->last.c[DG_TOTAL_NS] / total : NAN)
				   : (t->total_ms_per_s > 0 ? ms / t->total_ms_per_s : NAN);
		double avg = cum ? (e->last.c[DG_CALLS] ? (double)e->last.c[DG_TOTAL_NS] / (double)e->last.c[DG_CALLS] / 1e6 : NAN)
				 : e->avg_ms;
		bool sel = v->focused && (int)i == v->sel;
		if (isfinite(share))
			str_printf(c[0], 24, "%5.1f%%", share * 100);
		else
			str_copy(c[0], 24, "-");
		fmt_fig(ms, c[1], 24);
		fmt_fig(fig(e, DG_CALLS, cum), c[2], 24);
		fmt_fig(avg, c[3], 24);
		fmt_fig(fig(e, DG_ROWS, cum), c[4], 24);
		if (pg) {
			fmt_fig(fig(e, DG_BLKS_HIT, cum), c[5], 24);
			fmt_fig(fig(e, DG_BLKS_READ, cum), c[6], 24);
		} else {
			fmt_fig(fig(e, DG_LOCK_NS, cum) / 1e6, c[5], 24);
			fmt_fig(fig(e, DG_ROWS_EXAMINED, cum), c[6], 24);
		}
		if (p95) {
			/* per interval from the histograms; since first seen: QUANTILE_95 */
			char f[24];
			fmt_fig(cum ? e->last.p95_ms : e->p95_ms, f, sizeof f);
			str_printf(pc, sizeof pc, " %8s ", f);
		}
		str_printf(line, sizeof line, "%6s %9s %9s %8s%s%9s %9s %9s %-12.12s", c[0], c[1], c[2], c[3],
			   p95 ? pc : " ", c[4], c[5], c[6], e->last.schema);
		if (sel)
			cv_fill(cv, y, 0, cv->w, R_SELECTED);
		cv_text(cv, y, 0, sel ? R_SELECTED : R_VALUE, line);
		/* ~: a sampled estimate of statements the digests miss; *: dbtop's own */
		cv_printf(cv, y, textx, sel ? R_SELECTED : R_NORMAL, "%s%s",
			  digest_is_estimate(t, e) ? "~" : e->last.own ? "*" : "",
			  e->last.text ? e->last.text : "(text not fetched yet)");
	}
	free(rows);
}

static bool digests_key(const struct model *m, struct pane_view *v, int key)
{
	(void)m;
	if (key == 's') {
		v->sort = (v->sort & 4) | (((v->sort & 3) + 1) % DGS__COUNT);
		str_printf(v->status, sizeof v->status, "digests sorted by %s", dg_sort_names[SORT_KEY(v)]);
		v->sel = v->top = 0;
		return true;
	}
	if (key == 'o') {
		v->sort ^= DIGESTS_SHOW_OWN;
		str_copy(v->status, sizeof v->status, v->sort & DIGESTS_SHOW_OWN
			 ? "digests: dbtop's own statements shown" : "digests: dbtop's own statements left out");
		v->sel = v->top = 0;
		return true;
	}
	if (key == 'd') {
		v->sort ^= 4;
		str_copy(v->status, sizeof v->status,
			 CUMULATIVE(v) ? "digests: totals since first seen" : "digests: per interval");
		v->sel = v->top = 0;
		return true;
	}
	return false;
}

static const struct key_help digests_keys[] = {
	{'s', "s", "sort by total time, calls, average latency, rows"},
	{'d', "d", "per interval / cumulative since first seen"},
	{'o', "o", "show dbtop's own statements too (left out of the ranking and total by default)"},
	{'/', "/", "filter by regex over the statement text and schema"},
	{'\n', "Enter", "details: full text, first/last seen, every counter, its sparkline"},
	{0, NULL, NULL},
};

const struct pane_ops digests_pane = {
	.name = "digests",
	.title = "statement digests",
	.draw = digests_draw,
	.key = digests_key,
	.keys = digests_keys,
	.min_h = 4,
};
