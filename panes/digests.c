/* digests.c - the statement digests pane: which normalised statements
 * consume the server's time, per interval (or since they were first seen). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../model/digests.h"
#include "../core/fixes.h"
#include "../util/util.h"
#include "pane.h"

#define MAX_ROWS 500   /* rows ranked per frame */
/* rows the coverage note may wrap over, when the table can spare them */
#define DG_COVERAGE_ROWS 3

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

/* A row's identity (pane_follow): its digest key (an estimate, which has
 * none: its text). */
static void row_key(const void *ctx, int i, char *out, size_t len)
{
	const struct digest_entry *e = ((const struct digest_entry *const *)ctx)[i];
	str_printf(out, len, "%s", e->last.key[0] ? e->last.key : e->last.text ? e->last.text : "");
}

/* The row S and y act on: the one the screen showed selected, where it is
 * now; NULL with why in r->status. */
static const struct digest_entry *target(const struct model *m, struct pane_view *v, const struct digest_entry **rows,
					 size_t *n, struct pane_reaction *r)
{
	*n = m->dg.have_data ? ranked(m, v, rows) : 0;
	int i = pane_target(v, (int)*n, row_key, rows);
	if (i >= 0)
		return rows[i];
	if (*n > 0 && v->sel == v->sel_drawn && v->sel_key[0])
		str_copy(r->status, sizeof r->status,
			 "the statement selected has left the list since the screen showed it: nothing is done");
	else
		str_copy(r->status, sizeof r->status, "no statement selected");
	return NULL;
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
	struct ring r = {0};
	float vals[60];

	cv_printf(cv, y++, 0, R_TITLE, "digest %s  schema %s", e->last.key, e->last.schema[0] ? e->last.schema : "-");
	/* the full text, wrapped at spaces (sanitised by the canvas); what
	 * does not fit in half the pane ends in the cut mark */
	y = cv_wrap(cv, y, 0, R_NORMAL, text, cv->h / 2 > y + 1 ? cv->h / 2 : y + 1);
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
		if (k == DG_TOTAL_NS && e->known && e->time_bounded) {
			char v[40];
			str_printf(v, sizeof v, "%s%s", cv->utf8 ? "\u2264" : "<=", b);
			text_pad(b, sizeof b, v, 14, true, cv->utf8);   /* the mark is one column */
		}
		cv_printf(cv, y++, 0, R_VALUE, "%-20s %16s %14s", names[k], a, b);
	}
	fmt_fig(e->avg_ms, a, sizeof a);
	cv_printf(cv, y++, 0, R_VALUE, "%-20s %16s %14s", "avg latency ms", "", a);
	if (e->known && e->time_bounded && isfinite(e->avg_ms) && e->avg_ms > 0 && y < cv->h - 1) {
		/* the server adds a call's time when it ends */
		char note[320];
		double calls = d_round(e->finished_ms / e->avg_ms);
		str_printf(note, sizeof note, "%.0f call%s finished this interval after %.1f s each on average: their time "
			   "before this interval was not visible until they finished; ms/s shows at most the interval per "
			   "call", calls, calls == 1 ? "" : "s", e->avg_ms / 1000);
		y = cv_wrap(cv, y, 0, R_NOTE, note, cv->h - 1);
	}
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

/* One cell's figures: the entry, cumulative or per interval, whether the
 * table is a sampled estimate (calls may be a lower bound, the rows column
 * holds the sample count), the entry's share, UTF-8. */
struct dg_cellctx {
	const struct digest_entry *e;
	bool cum, sampled, utf8;
	double share;
};

static void cell_share(const struct dg_cellctx *x, char *buf, size_t len)
{
	if (isfinite(x->share))
		str_printf(buf, len, "%5.1f%%", x->share * 100);
	else
		str_copy(buf, len, "-");
}

static void cell_ms(const struct dg_cellctx *x, char *buf, size_t len)
{
	const struct digest_entry *e = x->e;
	fmt_fig(x->cum ? (double)e->last.c[DG_TOTAL_NS] / 1e6 : e->rate[DG_TOTAL_NS] / 1e6, buf, len);
	if (!x->cum && e->time_bounded) {
		/* calls that ran longer than the interval: at most this much */
		char v[32];
		str_printf(v, sizeof v, "%s%s", x->utf8 ? "\u2264" : "<=", buf);
		str_copy(buf, len, v);
	}
}

static void cell_calls(const struct dg_cellctx *x, char *buf, size_t len)
{
	fmt_fig(fig(x->e, DG_CALLS, x->cum), buf, len);
	if (!x->cum && x->sampled && x->e->calls_lower && isfinite(x->e->rate[DG_CALLS])) {
		/* executions seen: at least that many ran */
		char v[32];
		str_printf(v, sizeof v, "%s%s", x->utf8 ? "\u2265" : ">=", buf);
		str_copy(buf, len, v);
	}
}

static void cell_avg(const struct dg_cellctx *x, char *buf, size_t len)
{
	const struct digest_entry *e = x->e;
	fmt_fig(x->cum ? (e->last.c[DG_CALLS] ? (double)e->last.c[DG_TOTAL_NS] / (double)e->last.c[DG_CALLS] / 1e6 : NAN)
		       : e->avg_ms, buf, len);
}

static void cell_p95(const struct dg_cellctx *x, char *buf, size_t len)
{
	fmt_fig(x->cum ? x->e->last.p95_ms : x->e->p95_ms, buf, len);
}

static void cell_rows(const struct dg_cellctx *x, char *buf, size_t len)
{
	if (!x->cum && x->sampled)
		str_printf(buf, len, "%llu", (unsigned long long)x->e->samples);
	else
		fmt_fig(fig(x->e, DG_ROWS, x->cum), buf, len);
}

static void cell_hit(const struct dg_cellctx *x, char *buf, size_t len)
{
	fmt_fig(fig(x->e, DG_BLKS_HIT, x->cum), buf, len);
}

static void cell_read(const struct dg_cellctx *x, char *buf, size_t len)
{
	fmt_fig(fig(x->e, DG_BLKS_READ, x->cum), buf, len);
}

static void cell_lock(const struct dg_cellctx *x, char *buf, size_t len)
{
	fmt_fig(fig(x->e, DG_LOCK_NS, x->cum) / 1e6, buf, len);
}

static void cell_exam(const struct dg_cellctx *x, char *buf, size_t len)
{
	fmt_fig(fig(x->e, DG_ROWS_EXAMINED, x->cum), buf, len);
}

static void cell_schema(const struct dg_cellctx *x, char *buf, size_t len)
{
	str_copy(buf, len, x->e->last.schema);
}

/* The columns of the table, each its heads, width, priority, engines and
 * cell: data, not format strings. A narrow pane drops the lowest priority
 * first, so that the statement keeps TEXT_MIN columns. */
enum dg_col_id { C_SHARE, C_MS, C_CALLS, C_AVG, C_P95, C_ROWS, C_HIT, C_READ, C_LOCK, C_EXAM, C_SCHEMA, C__N };
#define DGE_MY 1
#define DGE_PG 2
static const struct dg_col {
	const char *head;      /* per interval */
	const char *head_cum;  /* since first seen */
	const char *head_sampled; /* per interval of a sampled table; NULL: head */
	int w;
	int prio;              /* higher stays longer */
	int engines;           /* DGE_MY | DGE_PG */
	bool left;             /* left-aligned (text) */
	void (*cell)(const struct dg_cellctx *x, char *buf, size_t len);
} dg_cols[C__N] = {
	[C_SHARE] = {.head = "share", .head_cum = "share", .w = 6, .prio = 9, .engines = DGE_MY | DGE_PG,
		     .cell = cell_share},
	[C_MS] = {.head = "ms/s", .head_cum = "total ms", .w = 9, .prio = 10, .engines = DGE_MY | DGE_PG,
		  .cell = cell_ms},
	[C_CALLS] = {.head = "calls/s", .head_cum = "calls", .w = 9, .prio = 8, .engines = DGE_MY | DGE_PG,
		     .cell = cell_calls},
	[C_AVG] = {.head = "avg ms", .head_cum = "avg ms", .w = 8, .prio = 7, .engines = DGE_MY | DGE_PG,
		   .cell = cell_avg},
	[C_P95] = {.head = "p95 ms", .head_cum = "p95 ms", .w = 8, .prio = 5, .engines = DGE_MY, .cell = cell_p95},
	[C_ROWS] = {.head = "rows/s", .head_cum = "rows", .head_sampled = "samples", .w = 9, .prio = 4,
		    .engines = DGE_MY | DGE_PG, .cell = cell_rows},
	[C_HIT] = {.head = "hit/s", .head_cum = "hit", .w = 9, .prio = 2, .engines = DGE_PG, .cell = cell_hit},
	[C_READ] = {.head = "read/s", .head_cum = "read", .w = 9, .prio = 3, .engines = DGE_PG, .cell = cell_read},
	[C_LOCK] = {.head = "lock ms/s", .head_cum = "lock ms", .w = 9, .prio = 3, .engines = DGE_MY,
		    .cell = cell_lock},
	[C_EXAM] = {.head = "exam/s", .head_cum = "examined", .w = 9, .prio = 2, .engines = DGE_MY, .cell = cell_exam},
	[C_SCHEMA] = {.head = "schema", .head_cum = "schema", .w = 12, .prio = 6, .engines = DGE_MY | DGE_PG,
		      .left = true, .cell = cell_schema},
};
#define TEXT_MIN 30

/* The config file's names of the columns ("hide = digests.rows"). */
static const char *const dg_col_names[C__N] = {
	[C_SHARE] = "share", [C_MS] = "ms", [C_CALLS] = "calls", [C_AVG] = "avg", [C_P95] = "p95",
	[C_ROWS] = "rows", [C_HIT] = "hit", [C_READ] = "read", [C_LOCK] = "lock", [C_EXAM] = "exam",
	[C_SCHEMA] = "schema",
};

int digests_column(const char *name)
{
	for (int c = 0; c < C__N; c++)
		if (strcmp(dg_col_names[c], name) == 0 && c != C_MS)
			return c;
	return -1;
}

/* The column the rows are sorted by: it stays while others go. */
static int dg_sort_col(const struct pane_view *v)
{
	static const int col[DGS__COUNT] = {[DGS_TOTAL] = C_MS, [DGS_CALLS] = C_CALLS, [DGS_AVG] = C_AVG,
					    [DGS_ROWS] = C_ROWS};
	return col[SORT_KEY(v)];
}

/* Columns shown at width w: on[] set; returns the statement's column. The
 * ones the user hid (v->hide) never; then the lowest priority first,
 * never ms/s nor the sort column. */
static int dg_layout(const struct model *m, const struct pane_view *v, int w, bool on[C__N])
{
	int eng = m->caps.engine == ENGINE_POSTGRESQL ? DGE_PG : DGE_MY, x = 0, c, keep = dg_sort_col(v);
	for (c = 0; c < C__N; c++) {
		on[c] = (dg_cols[c].engines & eng) && (c != C_P95 || m->caps.ps_digest_hist) &&
			(c == C_MS || c == keep || !(v->hide >> c & 1));
		if (on[c])
			x += dg_cols[c].w + 1;
	}
	while (w - x < TEXT_MIN) {
		int drop = -1;
		for (c = 0; c < C__N; c++)
			if (on[c] && c != C_MS && c != keep && (drop < 0 || dg_cols[c].prio < dg_cols[drop].prio))
				drop = c;
		if (drop < 0)
			break;
		on[drop] = false;
		x -= dg_cols[drop].w + 1;
	}
	return x;
}

/* The head of column c. */
static const char *dg_head(int c, bool cum, bool sampled)
{
	if (cum)
		return dg_cols[c].head_cum;
	return sampled && dg_cols[c].head_sampled ? dg_cols[c].head_sampled : dg_cols[c].head;
}

/* The row of cells (or heads when e is NULL) in the shown columns. */
static void dg_line(const bool on[C__N], const struct digest_entry *e, bool cum, bool sampled, double share, bool utf8,
		    char *out, size_t len)
{
	struct dg_cellctx x = {.e = e, .cum = cum, .sampled = sampled, .utf8 = utf8, .share = share};
	size_t l = 0;
	out[0] = '\0';
	for (int c = 0; c < C__N && l + 1 < len; c++) {
		char v[64], p[128];
		if (!on[c])
			continue;
		if (e)
			dg_cols[c].cell(&x, v, sizeof v);
		else
			str_copy(v, sizeof v, dg_head(c, cum, sampled));
		text_pad(p, sizeof p, v, dg_cols[c].w, !dg_cols[c].left, utf8);
		str_printf(out + l, len - l, "%s ", p);
		l = strlen(out);
	}
}

/* Some row shown this interval has its time bounded (calls longer than
 * the interval): the status says what the mark means. */
static bool dg_any_bounded(const struct digest_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].known && !t->e[i].gone && !t->e[i].hidden && t->e[i].time_bounded)
			return true;
	return false;
}

static int digests_need(const struct model *m, const struct pane_view *v, int w, int *min)
{
	const struct digest_table *t = &m->dg;
	(void)w;
	*min = 1;
	if (!t->have_data)
		return 1 + (m->caps.notes.n > 0);
	const struct digest_entry **rows = xcalloc(MAX_ROWS, sizeof *rows);
	int n = (int)ranked(m, v, rows);
	free(rows);
	if (n == 0)
		return 2;
	*min = 1 + (n < 3 ? n : 3);
	return 2 + (t->lost_delta > 0) + t->sampled + dg_any_bounded(t) + n;
}

/* The lines above the table: source, total, sort, mode; the estimate's
 * basis, the coverage, the losses. Left out first when the pane is short
 * for its n rows. Returns the next free line. */
static int draw_status(const struct model *m, const struct pane_view *v, size_t n, struct canvas *cv)
{
	const struct digest_table *t = &m->dg;
	bool pg = m->caps.engine == ENGINE_POSTGRESQL, cum = CUMULATIVE(v);
	char h1[512];
	int y = 0, want = (int)(n < 3 ? n : 3) + 1;
	if (cv->h >= want + 1 || n == 0) {
		str_printf(h1, sizeof h1, "%s  %s  total %.1f ms/s  sort: %s%s", t->source,
			   cum ? "since first seen (d: per interval)" : "per interval (d: cumulative)",
			   t->total_ms_per_s, dg_sort_names[SORT_KEY(v)], t->sampled ? "  ESTIMATE" : "");
		cv_text(cv, y++, 0, R_LABEL, h1);
	}
	if (t->sampled && y < cv->h && cv->h >= want + 2) {
		/* what the estimate rests on, and what it cannot say */
		dg_sampled_text(t, cv->utf8, h1, sizeof h1);
		cv_text(cv, y++, 0, R_NOTE, h1);
	}
	/* a note line: the statements the digests miss, and why */
	if (m->cov.known && m->cov.share < DG_COVERAGE_LOW && y < cv->h && cv->h >= want + 2) {
		/* the ~ rows: how many looks they rest on, what is scaled to what */
		char est[160] = "";
		if (m->cov.reason) {
			char looks[64] = "sampled from their sessions";
			if (t->est_rounds)
				str_printf(looks, sizeof looks, "from %llu looks at their sessions",
					   (unsigned long long)t->est_rounds);
			char counted[48] = "";
			if (t->est_counted && m->dg_com_age_s >= 1)
				str_printf(counted, sizeof counted, ", calls to the Com_* counts %.0fs old",
					   m->dg_com_age_s);
			else if (t->est_counted)
				str_copy(counted, sizeof counted, ", calls to the Com_* counts");
			/* the most telling first: a cut row loses the scaling */
			str_printf(est, sizeof est, "; ~ rows: estimates %s%s, time scaled to the measured", looks,
				   counted);
		}
		char cov[512];
		str_printf(cov, sizeof cov, "digests cover %.0f%% of the statements%s%s%s", m->cov.share * 100,
			   m->cov.reason ? ": " : "", m->cov.reason ? m->cov.reason : "", est);
		/* wrapped over the rows the table can spare: what the estimates
		 * rest on (their looks, the counts' age) comes last */
		int rows = cv->h - y - want, need = wrap_rows(cov, cv->w);
		rows = rows < 1 ? 1 : rows > DG_COVERAGE_ROWS ? DG_COVERAGE_ROWS : rows;
		y = cv_wrap(cv, y, 0, R_WARN, cov, y + (need < rows ? need : rows));
	}
	if (!cum && dg_any_bounded(t) && y < cv->h && cv->h >= want + 2)
		cv_printf(cv, y++, 0, R_NOTE, "%s ms/s: calls that ran longer than the interval count at most the interval each",
			  cv->utf8 ? "\u2264" : "<=");
	if (t->lost_delta > 0 && y < cv->h && cv->h >= want + 2)
		cv_printf(cv, y++, 0, R_WARN, "%llu statements not tracked this interval: %s",
			  (unsigned long long)t->lost_delta,
			  pg ? "pg_stat_statements evicted entries (raise pg_stat_statements.max)"
			     : "digest table full (raise performance_schema_digests_size)");
	return y;
}

/* The table's rows from v->top at line y: the shown columns, then the
 * statement from column textx. */
static void draw_rows(const struct digest_table *t, const struct digest_entry **rows, size_t n, const bool on[C__N],
		      int textx, struct pane_view *v, struct canvas *cv, int y)
{
	bool cum = CUMULATIVE(v);
	double total = 0;
	if (cum)
		for (size_t i = 0; i < n; i++)
			total += (double)rows[i]->last.c[DG_TOTAL_NS];
	for (size_t i = (size_t)v->top; i < n && y < cv->h; i++, y++) {
		const struct digest_entry *e = rows[i];
		char line[512];
		double ms = cum ? (double)e->last.c[DG_TOTAL_NS] / 1e6 : e->rate[DG_TOTAL_NS] / 1e6;
		double share = cum ? (total > 0 ? (double)e->last.c[DG_TOTAL_NS] / total : NAN)
				   : (t->total_ms_per_s > 0 ? ms / t->total_ms_per_s : NAN);
		bool sel = v->focused && (int)i == v->sel;
		dg_line(on, e, cum, t->sampled, share, cv->utf8, line, sizeof line);
		if (sel)
			cv_fill(cv, y, 0, cv->w, R_SELECTED);
		cv_text(cv, y, 0, sel ? R_SELECTED : R_VALUE, line);
		/* ~: a sampled estimate of statements the digests miss; *: dbtop's own */
		cv_printf(cv, y, textx, sel ? R_SELECTED : R_NORMAL, "%s%s",
			  digest_is_estimate(t, e) ? "~" : e->last.own ? "*" : "",
			  e->last.text ? e->last.text : "(text not fetched yet)");
		v->nshown++;
	}
}

/* One row of the table with each figure followed by its head ("74.4%
 * share  5750 ms/s  278 calls/s  20.7 avg ms  COMMIT"): the form of a pane
 * one row high, where the heads would take the only row. The schema is
 * left out; the statement gets what is left. */
static void draw_labeled(const struct digest_table *t, const struct digest_entry *e, const bool on[C__N],
			 struct pane_view *v, struct canvas *cv, int y)
{
	bool cum = CUMULATIVE(v), sel = v->focused && v->sel == v->top;
	double total = cum ? NAN : t->total_ms_per_s;
	double ms = cum ? (double)e->last.c[DG_TOTAL_NS] / 1e6 : e->rate[DG_TOTAL_NS] / 1e6;
	struct dg_cellctx x = {.e = e, .cum = cum, .sampled = t->sampled, .utf8 = cv->utf8,
			       .share = total > 0 ? ms / total : NAN};
	char line[512] = "";
	size_t l = 0;
	for (int c = 0; c < C__N && l + 1 < sizeof line; c++) {
		char val[64];
		if (!on[c] || c == C_SCHEMA || (c == C_SHARE && cum))
			continue;
		dg_cols[c].cell(&x, val, sizeof val);
		str_printf(line + l, sizeof line - l, "%s%s %s", l ? "  " : " ", val + strspn(val, " "),
			   dg_head(c, cum, t->sampled));
		l = strlen(line);
	}
	if (sel)
		cv_fill(cv, y, 0, cv->w, R_SELECTED);
	int w = cv_text(cv, y, 0, sel ? R_SELECTED : R_VALUE, line);
	cv_printf(cv, y, w + 2, sel ? R_SELECTED : R_NORMAL, "%s%s", digest_is_estimate(t, e) ? "~" : e->last.own ? "*" : "",
		  e->last.text ? e->last.text : "(text not fetched yet)");
	v->nshown++;
}

static void digests_draw(const struct model *m, struct pane_view *v, struct canvas *cv)
{
	const struct digest_table *t = &m->dg;
	const struct digest_entry **rows;
	bool cum = CUMULATIVE(v);
	bool on[C__N];
	size_t n, i;
	int y = 0, textx;
	char h1[512];

	v->nrows = 0;
	if (!t->have_data) {
		if (m->caps.engine == ENGINE_POSTGRESQL && !m->caps.pgss_version)
			cv_printf(cv, 0, 0, R_WARN, "no statement statistics: %s", fixes[FIX_PGSS_INSTALL].missing);
		else if (m->caps.engine == ENGINE_MYSQL && !m->caps.ps_digests)
			cv_text(cv, 0, 0, R_WARN, "no statement statistics: performance_schema digests are unavailable");
		else
			cv_text(cv, 0, 0, R_UNKNOWN, "no digest sample yet: the first read follows the first rates");
		for (i = 0, y = 1; i < (size_t)m->caps.notes.n && y < cv->h; i++)
			if (note_about_digests(m->caps.notes.msg[i]))
				cv_printf(cv, y++, 0, R_NOTE, "fix: %s", m->caps.notes.msg[i]);
		return;
	}
	rows = xcalloc(MAX_ROWS, sizeof *rows);
	n = ranked(m, v, rows);
	v->nrows = (int)n;
	pane_follow(v, (int)n, row_key, rows);
	if (v->details && n > 0) {
		pane_clamp(v, (int)n, 1);
		draw_details(m, rows[v->sel], cv);
		v->nshown = 1;
		free(rows);
		return;
	}
	y = draw_status(m, v, n, cv);
	if (y >= cv->h) {
		free(rows);
		return;
	}
	/* column heads: the columns that fit beside TEXT_MIN of statement */
	textx = dg_layout(m, v, cv->w, on);
	if (cv->h - y < 2 && n > 0) {
		/* one row only: the top statement, each figure with its head */
		pane_clamp(v, (int)n, 1);
		draw_labeled(t, rows[v->top], on, v, cv, y);
		free(rows);
		return;
	}
	dg_line(on, NULL, cum, t->sampled, NAN, cv->utf8, h1, sizeof h1);
	cv_text(cv, y, 0, R_LABEL, h1);
	cv_text(cv, y++, textx, R_LABEL, "statement");
	if (n == 0) {
		/* nothing known: one read so far, the base of the rates */
		bool known = false;
		for (i = 0; i < t->n && !known; i++)
			known = t->e[i].known;
		cv_text(cv, y, 0, R_UNKNOWN,
			v->filter        ? "no statement matches the filter"
			: known || !t->n ? "no statement ran in this interval"
					 : "read once so far (the base of the rates): the rates come at the next read");
		free(rows);
		return;
	}
	pane_clamp(v, (int)n, cv->h - y);
	draw_rows(t, rows, n, on, textx, v, cv, y);
	free(rows);
}

/* its commands (the arg of its table's rows) */
enum { DG_SESSIONS, DG_COPY, DG_SORT, DG_SHOW_OWN, DG_CUMULATIVE };

static void digests_key(const struct model *m, struct pane_view *v, int cmd, struct pane_reaction *r)
{
	if (cmd == DG_SESSIONS) {
		/* the sessions running the selected digest now */
		const struct digest_entry **rows = xcalloc(MAX_ROWS, sizeof *rows);
		size_t n;
		const struct digest_entry *e = target(m, v, rows, &n, r);
		if (e && e->last.key[0] && !digest_is_estimate(&m->dg, e)) {
			r->link.screen = PANE_SCREEN(sessions);
			r->link.id = 0;
			sessions_digest_id(e->last.key, r->link.digest, sizeof r->link.digest);
		} else if (e) {
			str_copy(r->status, sizeof r->status, "this row has no digest id to find sessions by");
		}
		free(rows);
		return;
	}
	if (cmd == DG_COPY) {
		const struct digest_entry **rows = xcalloc(MAX_ROWS, sizeof *rows);
		size_t n;
		const struct digest_entry *e = target(m, v, rows, &n, r);
		if (e)
			pane_copy(r, e->last.text, "this digest's text is not fetched yet");
		free(rows);
		return;
	}
	if (cmd == DG_SORT) {
		v->sort = (v->sort & 4) | (((v->sort & 3) + 1) % DGS__COUNT);
		str_printf(r->status, sizeof r->status, "digests sorted by %s", dg_sort_names[SORT_KEY(v)]);
		pane_sel_reset(v);
		return;
	}
	if (cmd == DG_SHOW_OWN) {
		v->sort ^= DIGESTS_SHOW_OWN;
		str_copy(r->status, sizeof r->status,
			 v->sort & DIGESTS_SHOW_OWN ? "digests: dbtop's own statements shown"
						    : "digests: dbtop's own statements left out");
		pane_sel_reset(v);
		return;
	}
	if (cmd == DG_CUMULATIVE) {
		v->sort ^= 4;
		str_copy(r->status, sizeof r->status,
			 CUMULATIVE(v) ? "digests: totals since first seen" : "digests: per interval");
		pane_sel_reset(v);
		return;
	}
}

static const struct pane_command digests_commands[] = {
	{"sort", digests_key, DG_SORT},         {"cumulative", digests_key, DG_CUMULATIVE},
	{"show-own", digests_key, DG_SHOW_OWN}, {"sessions", digests_key, DG_SESSIONS},
	{"copy", digests_key, DG_COPY},         {NULL, NULL, 0},
};

const struct pane_ops digests_pane = {
	.name = "digests",
	.title = "statement digests",
	.draw = digests_draw,
	.commands = digests_commands,
	.min_h = 4,
	.need = digests_need,
};
