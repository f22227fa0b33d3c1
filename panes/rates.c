/* rates.c - rows and number formatting of the fsync / commit rates pane. */
#include "rates.h"

#include <math.h>
#include <string.h>

#include "../util/util.h"
#include "../core/durability.h"
#include "../core/fixes.h"

const struct rates_row rates_rows[] = {
	{M_COMMITS, "commits/s"},
	{M_ROLLBACKS, "rollbacks/s"},
	{M_FSYNCS, "fsyncs/s"},
	{M_FSYNCS_PER_COMMIT, "fsyncs/commit"},
	{M_COM_COMMIT, "Com_commit/s"},
	{M_HANDLER_COMMIT, "Handler_commit/s"},
	{M_REDO_FSYNCS, "redo fsyncs/s"},
	{M_REDO_FSYNC_MS, "redo fsync avg"},
	{M_BINLOG_FSYNCS, "binlog fsyncs/s"},
	{M_BINLOG_FSYNC_MS, "binlog fsync avg"},
	{M_BINLOG_COMMITS, "binlog commits/s"},
	{M_BINLOG_GROUP_COMMITS, "binlog groups/s"},
	{M_BINLOG_COMMITS_PER_GROUP, "commits/group"},
	{M_DATA_FSYNCS, "InnoDB fsyncs/s"},
	{M_REDO_WRITES, "redo writes/s"},
	{M_REDO_BYTES, "redo bytes/s"},
	{M_WAL_WRITES, "WAL writes/s"},
	{M_WAL_WRITE_MS, "WAL write avg"},
	{M_WAL_SYNCS, "WAL syncs/s"},
	{M_WAL_SYNC_MS, "WAL sync avg"},
	{M_WAL_BYTES, "WAL bytes/s"},
	{M_WAL_BYTES_PER_COMMIT, "WAL bytes/commit"},
	{M_WAL_RECORDS, "WAL records/s"},
	{M_WAL_FPI, "WAL FPI/s"},
	{M_WAL_BUFFERS_FULL, "WAL buffers full/s"},
};
const size_t rates_nrows = sizeof rates_rows / sizeof rates_rows[0];

const char *rates_label(enum metric_id id)
{
	for (size_t i = 0; i < rates_nrows; i++)
		if (rates_rows[i].metric == id)
			return rates_rows[i].label;
	return id < M__COUNT ? metric_defs[id].key : "log device";
}

char *rates_format(enum metric_id id, const struct rate *r, char *buf, size_t len)
{
	const char *unit = metric_defs[id].unit;
	if (r->st != RATE_OK || !isfinite(r->v)) {
		/* short reasons: they share the value column */
		static const char *const why[] = {
			[RATE_OK] = "?", [RATE_INIT] = "init", [RATE_RESET] = "reset", [RATE_DOWN] = "down",
			[RATE_UNAVAIL] = "n/a", [RATE_UNDEF] = "idle",
		};
		str_printf(buf, len, "- (%s)", why[r->st]);
		return buf;
	}
	if (unit[0] == 'B') {
		char b[32];
		str_bytes(r->v, b, sizeof b);
		str_printf(buf, len, "%s%s", b, strcmp(unit, "B/s") == 0 ? "/s" : "");
	} else if (strcmp(unit, "ms") == 0) {
		str_printf(buf, len, "%s%.3f ms", r->est ? "~" : "", r->v);
	} else if (strcmp(unit, "s") == 0) {
		str_printf(buf, len, "%.2f s", r->v);
	} else if (r->v >= 100) {
		str_printf(buf, len, "%.0f", r->v);
	} else {
		str_printf(buf, len, "%.2f", r->v);
	}
	return buf;
}

/* ---- the pane ---- */

#include "pane.h"

/* The log device's row (not a metric: the device's own figures, beside the
 * server's sync latency, model/logdev_rates.h). */
#define ROW_LOGDEV M__COUNT
/* The host's CPU beside the server (model/host_rates.h): shown when dbtop
 * runs on the server's host. */
#define ROW_HOST (M__COUNT + 1)

/* Rows of the pane, in order; indent marks a part of the row above. */
static const struct {
	enum metric_id metric;
	const char *label;   /* where the screen words it otherwise; NULL: rates_label() */
	int indent;
	double warn, crit;   /* thresholds for the current value, 0: none */
	bool key;            /* shown first when the tile is short */
} pane_rows[] = {
	{M_COMMITS, NULL, 0, 0, 0, true},
	{M_FSYNCS, NULL, 0, 0, 0, true},
	{M_REDO_FSYNCS, "redo", 1, 0, 0, false},
	{M_BINLOG_FSYNCS, "binlog", 1, 0, 0, false},
	{M_WAL_WRITES, NULL, 0, 0, 0, false},
	{M_FSYNCS_PER_COMMIT, NULL, 0, 1.5, 2.5, true},
	{M_RUN_S, "s per run", 0, 0, 0, true},
	{M_RUN_FSYNCS, "fsyncs per run", 0, 0, 0, true},
	{M_COMMIT_MS, "commit latency ms", 0, 10, 100, false},
	{M_REDO_FSYNC_MS, "redo sync ms", 0, 5, 50, true},
	{M_BINLOG_FSYNC_MS, "binlog sync ms", 0, 5, 50, true},
	{M_WAL_SYNC_MS, "WAL sync ms", 0, 5, 50, true},
	{ROW_LOGDEV, "log device", 0, 5, 50, true},
	{ROW_HOST, "host CPU wait ms", 0, 0, 0, false},
	{M_WAL_WRITE_MS, "WAL write ms", 0, 5, 50, false},
	{M_REDO_BYTES, NULL, 0, 0, 0, false},
	{M_WAL_BYTES, NULL, 0, 0, 0, false},
	{M_WAL_BYTES_PER_COMMIT, NULL, 0, 0, 0, false},
	{M_BINLOG_COMMITS_PER_GROUP, NULL, 0, 0, 0, false},
	{M_WAL_BUFFERS_FULL, NULL, 0, 1, 50, false},
	{M_ROLLBACKS, NULL, 0, 0, 0, false},
};
#define NPANE_ROWS (sizeof pane_rows / sizeof pane_rows[0])

/* The label of pane row i. */
static const char *row_label(size_t i)
{
	return pane_rows[i].label ? pane_rows[i].label : rates_label(pane_rows[i].metric);
}

/* What a commit waits for on the standbys, by synchronous_commit. */
static const char *syncrep_waits_for(const char *sc)
{
	if (!sc)
		return "its flush";
	if (strcmp(sc, "remote_apply") == 0)
		return "its replay";
	if (strcmp(sc, "remote_write") == 0)
		return "its write";
	if (strcmp(sc, "on") == 0)
		return "its flush";
	return NULL;   /* local, off: no standby wait */
}

#define LINE(c, ...) do { if (n < max) { crit[n] = (c); str_printf(lines[n++], 160, __VA_ARGS__); } } while (0)

/* PostgreSQL: the synchronous configuration and each standby's lag. */
static int repl_lines_pg(const struct model *m, char lines[][160], bool *crit, int max)
{
	const struct repl *r = &m->repl.r;
	const char *names = model_setting(m, "synchronous_standby_names"), *sc = model_setting(m, "synchronous_commit");
	bool sync_cfg = names && names[0];
	int n = 0, nsync = repl_sync_count(r);
	if (!sync_cfg && r->n == 0 && r->more == 0)
		return 0;   /* no standby, none configured: nothing to say */
	if (r->hidden) {
		LINE(true, "replication: %d standby%s, state and lags hidden from this user: %s", r->n + r->more,
		     r->n + r->more == 1 ? "" : "s", fix_brief(FIX_PG_REPL_STATS));
		return n;
	}
	if (sync_cfg && nsync == 0)
		LINE(true, "synchronous_standby_names='%s' but no synchronous standby connected%s", names,
		     syncrep_waits_for(sc) ? ": commits hang until one is" : " (synchronous_commit=local/off: commits do not wait)");
	else if (sync_cfg && syncrep_waits_for(sc))
		LINE(false, "synchronous_standby_names='%s' synchronous_commit=%s -> commits also wait for %d standby%s: %s",
		     names, sc ? sc : "?", nsync, nsync == 1 ? "" : "s", syncrep_waits_for(sc));
	else if (sync_cfg)
		LINE(false, "synchronous_standby_names='%s' but synchronous_commit=%s: commits do not wait for the standbys",
		     names, sc ? sc : "?");
	else
		LINE(false, "no synchronous standby (synchronous_standby_names empty): commits do not wait for the %d standby%s",
		     r->n + r->more, r->n + r->more == 1 ? "" : "s");
	for (int i = 0; i < r->n && n < max; i++) {
		const struct repl_standby *x = &r->s[i];
		char fb[16], fm[16], rb[16], rm[16], rep[32] = "";
		str_bytes((double)x->flush_b, fb, sizeof fb);
		repl_fmt_ms(x->flush_ms, fm, sizeof fm);
		str_bytes((double)x->replay_b, rb, sizeof rb);
		repl_fmt_ms(x->replay_ms, rm, sizeof rm);
		if (repl_stalled_s(x) > 0)
			str_printf(rep, sizeof rep, ", no reply for %.0f s", repl_stalled_s(x));
		bool sync = strcmp(x->sync_state, "sync") == 0 || strcmp(x->sync_state, "quorum") == 0;
		LINE(sync && (x->flush_b >= 16 * 1024 * 1024 || x->flush_ms >= 1000 || repl_stalled_s(x) > 0),
		     "standby %s (%s, %s): flush lag %s / %s, replay lag %s / %s%s", x->name[0] ? x->name : "?",
		     x->sync_state, x->state, fb, fm, rb, rm, rep);
	}
	if (r->more > 0)
		LINE(false, "... and %d more standby%s", r->more, r->more == 1 ? "" : "s");
	return n;
}

/* MySQL / MariaDB semi-synchronous replication. */
static int repl_lines_semisync(const struct model *m, char lines[][160], bool *crit, int max)
{
	const struct repl *r = &m->repl.r;
	const struct repl_rates *rt = &m->repl.rt;
	const char *pre = r->ss_source ? "rpl_semi_sync_source" : "rpl_semi_sync_master";
	int n = 0;
	uint64_t clients = r->ss[SS_CLIENTS], replicas = r->ss[SS_REPLICAS];
	bool have_rep = r->ss_have & (1u << SS_REPLICAS);
	if (r->enabled == 1 && r->ss_status == 1) {
		char aw[16], nw[16], to[32] = "";
		repl_fmt_ms(rt->avg_wait_ms, aw, sizeof aw);
		repl_fmt_ms(rt->net_avg_ms, nw, sizeof nw);
		if (r->timeout_ms >= 0)
			str_printf(to, sizeof to, ", timeout %lld ms", (long long)r->timeout_ms);
		LINE(false, "semi-sync ON: %llu client%s, %llu waiting, ack wait %s (net %s), acked/s %.1f, not acked/s %.1f%s%s%s",
		     (unsigned long long)clients, clients == 1 ? "" : "s", (unsigned long long)r->ss[SS_WAIT_SESSIONS], aw,
		     nw, isfinite(rt->yes_per_s) ? rt->yes_per_s : 0, isfinite(rt->no_per_s) ? rt->no_per_s : 0, to,
		     r->wait_point[0] ? ", " : "", r->wait_point);
		if (clients == 0)
			LINE(true, "semi-sync ON but no semi-sync replica connected: commits wait up to %s_timeout", pre);
	} else if (r->enabled == 1 && r->ss_status == 0) {
		LINE(true, "semi-sync enabled but OFF: no ack within %s_timeout=%lld ms, commits go on asynchronously "
		     "(%llu client%s, not acked/s %.1f)", pre, (long long)r->timeout_ms, (unsigned long long)clients,
		     clients == 1 ? "" : "s", isfinite(rt->no_per_s) ? rt->no_per_s : 0);
	} else if (r->enabled == 0 && have_rep && replicas > 0) {
		LINE(false, "semi-sync off (%s_enabled=OFF): %llu replica%s connected asynchronously, commits do not wait "
		     "for them", pre, (unsigned long long)replicas, replicas == 1 ? "" : "s");
	}
	return n;
}

/* The replication lines of the rates pane (none when nothing replicates
 * and nothing is configured). */
int rates_replication(const struct model *m, char lines[][160], bool *crit, int max)
{
	if (!m->repl.known || m->last.state != STATE_UP)
		return 0;
	if (m->repl.r.kind == REPL_PG)
		return repl_lines_pg(m, lines, crit, max);
	if (m->repl.r.kind == REPL_SEMISYNC)
		return repl_lines_semisync(m, lines, crit, max);
	return 0;
}

#undef LINE

/* durability_lines' reader of the model's settings */
static const char *model_get(const void *ctx, const char *name)
{
	return model_setting(ctx, name);
}

/* Counters the server publishes late (caps_counters_lag_s): why the
 * rows say init for a second, or that rates over a shorter interval
 * count whichever sessions published in it. */
static int rates_lag_line(const struct model *m, char lines[][160], bool *crit, int max)
{
	double lag = caps_counters_lag_s(&m->caps), iv = m->interval_s;
	if (max < 1 || !m->have_caps || lag < 0.5 || m->last.state != STATE_UP)
		return 0;
	if (m->cur[M_COMMITS].st == RATE_INIT)
		str_printf(lines[0], 160, "first rates in %.0f s: the server publishes these counters once a second",
			   lag);
	else if (isfinite(iv) && iv > 0 && iv < 0.9 * lag)
		str_printf(lines[0], 160,
			   "rates every %.2g s are rough: the server publishes these counters once a second "
			   "(+ for %.0f s)",
			   iv, lag);
	else
		return 0;
	crit[0] = false;
	return 1;
}

int rates_implications(const struct model *m, char lines[][160], bool *crit, int max)
{
	int n = rates_lag_line(m, lines, crit, max);
	n += durability_lines(m->caps.engine, model_get, m, lines + n, crit + n, max - n);
	return n + rates_replication(m, lines + n, crit + n, max - n);
}

/* min / max / average of the newest n values of r (finite ones); false if none. */
static bool window_stats(const struct ring *r, int n, double *mn, double *mx, double *avg)
{
	double sum = 0;
	int k = 0, i;
	*mn = INFINITY;
	*mx = -INFINITY;
	for (i = 0; i < n; i++) {
		double v = ring_get(r, (size_t)i);
		if (!isfinite(v))
			continue;
		if (v < *mn)
			*mn = v;
		if (v > *mx)
			*mx = v;
		sum += v;
		k++;
	}
	if (!k)
		return false;
	*avg = sum / k;
	return true;
}

/* Compact number for the stats columns. */
static void fmt_num(enum metric_id id, double v, char *buf, size_t len)
{
	struct rate r = {.v = v, .st = isfinite(v) ? RATE_OK : RATE_UNAVAIL};
	if (!isfinite(v)) {
		str_copy(buf, len, "-");
		return;
	}
	rates_format(id, &r, buf, len);
	/* drop the unit for the narrow columns */
	char *sp = strstr(buf, " ms");
	if (!sp)
		sp = strstr(buf, " s");
	if (sp)
		*sp = '\0';
}

/* Rows shown now: applicable, available, passing the filter. */
static int visible_rows(const struct model *m, const struct pane_view *v, int *idx)
{
	size_t i;
	int n = 0;
	for (i = 0; i < NPANE_ROWS; i++) {
		enum metric_id id = pane_rows[i].metric;
		if (id == ROW_LOGDEV) {
			/* a recording made before it: said in the full pane only */
			if (m->caps.logdev.state == LDS_NONE && !v->full)
				continue;
			if (pane_filter_match(v, row_label(i)) || pane_filter_match(v, "disk"))
				idx[n++] = (int)i;
			continue;
		}
		if (id == ROW_HOST) {
			/* only where the server's host is this one */
			if (m->host.seen && (pane_filter_match(v, row_label(i)) || pane_filter_match(v, "cpu")))
				idx[n++] = (int)i;
			continue;
		}
		if (!model_metric_applies(m, id) || m->cur[id].st == RATE_UNAVAIL)
			continue;
		/* benchmark runs: only while runs are seen */
		if (metric_defs[id].kind == MK_PER_RUN && !m->runs.seen)
			continue;
		if (!pane_filter_match(v, row_label(i)) && !pane_filter_match(v, metric_defs[id].key))
			continue;
		idx[n++] = (int)i;
	}
	if (v->sort == 1) {
		/* by name */
		for (int a = 1; a < n; a++)
			for (int b = a; b > 0 && strcmp(row_label(idx[b - 1]), row_label(idx[b])) > 0; b--) {
				int t = idx[b];
				idx[b] = idx[b - 1];
				idx[b - 1] = t;
			}
	}
	return n;
}

/* Row i is kept first in a short tile: the log device's only when it was
 * looked at (a recording made before it says "not recorded" in the full
 * pane, without taking a line from the rates). */
static bool row_key(const struct model *m, int i)
{
	if (pane_rows[i].metric == ROW_LOGDEV)
		return m->caps.logdev.state != LDS_NONE;
	if (pane_rows[i].metric == ROW_HOST) /* kept when it explains slow commits */
		return host_view_busy(&m->host);
	return pane_rows[i].key;
}

/* In a short tile: keep the key rows (in table order) and as many others
 * as fit in rows_h; returns the rows kept. */
static int key_rows_first(const struct model *m, int *idx, int n, int rows_h)
{
	int keep[NPANE_ROWS], k = 0, nkey = 0, i;
	bool take[NPANE_ROWS] = {false};
	if (n <= rows_h)
		return n;
	for (i = 0; i < n && nkey < rows_h; i++)
		if (row_key(m, idx[i])) {
			take[i] = true;
			nkey++;
		}
	for (i = 0; i < n && nkey < rows_h; i++)
		if (!take[i]) {
			take[i] = true;
			nkey++;
		}
	for (i = 0; i < n; i++)
		if (take[i])
			keep[k++] = idx[i];
	memcpy(idx, keep, (size_t)k * sizeof *idx);
	return k;
}

static int rates_need(const struct model *m, const struct pane_view *v, int w, int *min)
{
	int idx[NPANE_ROWS], n = visible_rows(m, v, idx), nkey = 0, i;
	char lines[8][160];
	bool crit[8];
	*min = 1;
	if (!m->have_caps || n == 0)
		return 1;
	for (i = 0; i < n; i++)
		nkey += row_key(m, idx[i]);
	int nimp = rates_implications(m, lines, crit, 8), imp = 0;
	for (i = 0; i < nimp; i++)
		imp += wrap_rows(lines[i], w);
	*min = 1 + nkey;
	return 1 + n + (imp > 6 ? 6 : imp);
}

/* Role of a current value after its thresholds. */
static enum role value_role(int row, const struct rate *r)
{
	if (r->st != RATE_OK)
		return R_UNKNOWN;
	if (pane_rows[row].crit > 0 && r->v >= pane_rows[row].crit)
		return R_CRIT;
	if (pane_rows[row].warn > 0 && r->v >= pane_rows[row].warn)
		return R_WARN;
	return R_VALUE;
}

/* Full-pane view of one metric: definition, source and a tall graph. */
static void draw_details(const struct model *m, const struct pane_view *v, struct canvas *cv,
			 int row)
{
	enum metric_id id = pane_rows[row].metric;
	const struct metric_def *d = &metric_defs[id];
	double mn, mx, avg, iv = isfinite(m->interval_s) ? m->interval_s : 1;
	int gw = cv->w - 10, gh = cv->h - 6, y, x;
	char cur[48], a[24], b[24], c[24];
	(void)v;
	cv_printf(cv, 0, 0, R_TITLE, "%s  (%s)", row_label(row), d->key);
	cv_printf(cv, 1, 0, R_LABEL, "%s", d->help);
	rates_format(id, &m->cur[id], cur, sizeof cur);
	if (gw < 4 || gh < 2) {
		cv_printf(cv, 2, 0, R_VALUE, "now %s", cur);
		return;
	}
	if (window_stats(&m->hist[id], gw, &mn, &mx, &avg)) {
		fmt_num(id, mn, a, sizeof a);
		fmt_num(id, mx, b, sizeof b);
		fmt_num(id, avg, c, sizeof c);
		cv_printf(cv, 2, 0, R_VALUE, "now %s   min %s  max %s  avg %s   over %.0fs", cur, a, b, c, gw * iv);
	} else {
		cv_printf(cv, 2, 0, R_UNKNOWN, "now %s   no values in the window yet", cur);
		mx = 0;
	}
	if (m->age_s[id] >= 0.5)
		cv_printf(cv, 3, 0, R_NOTE, "read %.0f s ago: its summary adds up every thread, so it is read every "
			  "few refreshes (--server-budget); the value covers the time between two readings", m->age_s[id]);
	else if (m->caps.engine == ENGINE_MYSQL && (id == M_REDO_FSYNCS || id == M_FSYNCS))
		cv_printf(cv, 3, 0, R_LABEL, "redo syncs from %s", m->caps.redo_fsync_source);
	else if (id == M_COMMITS && m->caps.engine == ENGINE_MYSQL)
		cv_printf(cv, 3, 0, R_LABEL, "commits from %s", m->caps.commit_source);
	/* a bar graph gh rows tall: each column one interval, newest right */
	for (x = 0; x < gw; x++) {
		double val = ring_get(&m->hist[id], (size_t)(gw - 1 - x));
		if (!isfinite(val))
			continue;
		double fill = mx > 0 ? val / mx * gh : 0;
		for (y = 0; y < gh; y++) {
			double part = fill - (gh - 1 - y);
			if (part <= 0)
				continue;
			if (part >= 1 || !cv->utf8) {
				cv_text(cv, 5 + y, 10 + x, R_SPARK, cv->utf8 ? "\xe2\x96\x88" : "#");
			} else {
				static const char *const eighth[8] = {
					"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
					"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88"};
				int k = (int)(part * 8);
				cv_text(cv, 5 + y, 10 + x, R_SPARK, eighth[k > 7 ? 7 : k]);
			}
		}
	}
	fmt_num(id, mx, a, sizeof a);
	cv_text_right(cv, 5, 9, R_LABEL, a);
	cv_text_right(cv, 4 + gh, 9, R_LABEL, "0");
}

/* The widths of the table's columns: label, value now, history, stats. */
struct rate_cols {
	int labw, curw, statw, sparkw;
};

static void draw_logdev_row(const struct model *m, int r, bool sel, const struct rate_cols *c, struct canvas *cv,
			    int y);
static void draw_host_row(const struct model *m, int r, bool sel, const struct rate_cols *c, struct canvas *cv, int y);

/* Pane row r at line y: label, value now, its history, min / max / avg
 * of the window. */
static void draw_rate_row(const struct model *m, int r, bool sel, const struct rate_cols *c, struct canvas *cv, int y)
{
	enum metric_id id = pane_rows[r].metric;
	char cur[48];
	if (id == ROW_LOGDEV) {
		draw_logdev_row(m, r, sel, c, cv, y);
		return;
	}
	if (id == ROW_HOST) {
		draw_host_row(m, r, sel, c, cv, y);
		return;
	}
	if (sel)
		cv_fill(cv, y, 0, c->labw, R_SELECTED);
	if (m->age_s[id] >= 0.5)   /* a paced read (--server-budget): how old its value is */
		cv_printf(cv, y, pane_rows[r].indent * 2, sel ? R_SELECTED : R_LABEL, "%s, %.0fs old", row_label(r),
			  m->age_s[id]);
	else
		cv_printf(cv, y, pane_rows[r].indent * 2, sel ? R_SELECTED : R_LABEL, "%s", row_label(r));
	rates_format(id, &m->cur[id], cur, sizeof cur);
	cv_text_right(cv, y, c->labw + c->curw, value_role(r, &m->cur[id]), cur);
	if (c->sparkw > 0)
		cv_spark(cv, y, c->labw + c->curw + 1, c->sparkw, &m->hist[id], 0, R_SPARK);
	if (c->statw) {
		double mn, mx, avg;
		char a[24], b[24], d[24];
		if (window_stats(&m->hist[id], c->sparkw > 0 ? c->sparkw : 60, &mn, &mx, &avg)) {
			fmt_num(id, mn, a, sizeof a);
			fmt_num(id, mx, b, sizeof b);
			fmt_num(id, avg, d, sizeof d);
			cv_printf(cv, y, cv->w - c->statw, R_VALUE, "%8s %8s %8s", a, b, d);
		}
	}
}

/* The server's own sync latency beside the device's: the redo (else
 * COMMIT) sync of MySQL / MariaDB, PostgreSQL's WAL sync; M__COUNT: none. */
enum metric_id rates_server_sync(const struct model *m, const char **name)
{
	static const struct {
		enum metric_id id;
		const char *name;
	} my[] = {{M_REDO_FSYNC_MS, "redo sync"}, {M_BINLOG_FSYNC_MS, "binlog sync"}, {M_COMMIT_MS, "commit"}};
	*name = "WAL sync";
	if (m->caps.engine == ENGINE_POSTGRESQL)
		return M_WAL_SYNC_MS;
	if (m->caps.engine != ENGINE_MYSQL)
		return M__COUNT;
	/* the first measured, else the first with an estimate (MariaDB
	 * 10.8+'s redo sync), else the first the server has */
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < sizeof my / sizeof my[0]; i++)
			if (pass == 2 ? m->cur[my[i].id].st != RATE_UNAVAIL
				      : m->cur[my[i].id].st == RATE_OK && m->cur[my[i].id].est == (pass == 1)) {
				*name = my[i].name;
				return my[i].id;
			}
	*name = "redo sync";
	return M_REDO_FSYNC_MS;
}

const char *rates_logdev_why(const struct model *m)
{
	const struct logdev_map *lm = &m->caps.logdev;
	switch (lm->state) {
	case LDS_NONE: return "not recorded in this file";
	case LDS_OK: break;
	default: return lm->note[0] ? lm->note : "the log device is not known";
	}
	if (m->last.state != STATE_UP)
		return "not read while the server is not up";
	if (!m->ld.seen)
		return "no /proc/diskstats reading yet";
	return NULL;
}

/* The log device's row: the device's flush latency (write latency when
 * the kernel counts no flushes) and its history, its utilisation and
 * history, and the server's own sync latency at the end, so the disk's
 * time and the server's wait sit on one line. */
static void draw_logdev_row(const struct model *m, int r, bool sel, const struct rate_cols *c, struct canvas *cv,
			    int y)
{
	const struct logdev_view *ld = &m->ld;
	const char *why = rates_logdev_why(m);
	char lab[64], cur[48], b[64];
	if (sel)
		cv_fill(cv, y, 0, c->labw, R_SELECTED);
	if (why || ld->n == 0) {
		cv_printf(cv, y, 0, sel ? R_SELECTED : R_LABEL, "%s", row_label(r));
		cv_text(cv, y, c->labw + 1, R_NOTE, why ? why : "no device");
		return;
	}
	const struct logdev_rates *d = &ld->cur[0];
	bool flush = d->has_flush;
	str_printf(lab, sizeof lab, "%s %s ms", d->name, flush ? "flush" : "write");
	text_fit(b, sizeof b, lab, c->labw - 1, cv->utf8);
	cv_printf(cv, y, 0, sel ? R_SELECTED : R_LABEL, "%s", b);
	double v = flush ? d->f_await_ms : d->w_await_ms;
	struct rate rt = {.v = v, .st = !d->ok ? RATE_INIT : isfinite(v) ? RATE_OK : RATE_UNDEF};
	rates_format(M_WAL_SYNC_MS, &rt, cur, sizeof cur);
	cv_text_right(cv, y, c->labw + c->curw, value_role(r, &rt), cur);
	int x = c->labw + c->curw + 1, w = c->sparkw;
	char u[32];
	if (d->ok && isfinite(d->util_pct))
		str_printf(u, sizeof u, " util %3.0f%% ", d->util_pct);
	else
		str_copy(u, sizeof u, " util  - ");
	int uw = (int)strlen(u);
	if (w >= uw + 8) {
		int sw = (w - uw) / 2;
		cv_spark(cv, y, x, sw, flush ? &ld->flush_ms : &ld->write_ms, 0, R_SPARK);
		cv_text(cv, y, x + sw, d->ok && d->util_pct >= 90 ? R_WARN : R_VALUE, u);
		cv_spark(cv, y, x + sw + uw, w - sw - uw, &ld->util, 100, R_SPARK);
	} else if (w >= uw) {
		cv_text(cv, y, x, R_VALUE, u);
	}
	if (c->statw) {
		const char *sname;
		enum metric_id sm = rates_server_sync(m, &sname);
		char sv[48];
		if (sm == M__COUNT)
			return;
		rates_format(sm, &m->cur[sm], sv, sizeof sv);
		str_printf(b, sizeof b, "%s %s", sname, sv);
		cv_printf(cv, y, cv->w - c->statw, R_VALUE, "%*s", c->statw, b);
	}
}

/* The host's CPU row: how long the server's threads wait for a CPU each
 * time they run (the figure that tells a busy host from a slow disk), the
 * kernel's CPU pressure and the run queue against the cores, and the
 * server's CPU use at the end. */
static void draw_host_row(const struct model *m, int r, bool sel, const struct rate_cols *c, struct canvas *cv, int y)
{
	const struct host_view *h = &m->host;
	char cur[48], b[96];
	if (sel)
		cv_fill(cv, y, 0, c->labw, R_SELECTED);
	cv_printf(cv, y, 0, sel ? R_SELECTED : R_LABEL, "%s", row_label(r));
	struct rate rt = {.v = h->srv_wait_ms,
			  .st = !h->ok                     ? RATE_INIT
				: isfinite(h->srv_wait_ms) ? RATE_OK
							   : RATE_UNDEF};
	rates_format(M_WAL_SYNC_MS, &rt, cur, sizeof cur);
	cv_text_right(cv, y, c->labw + c->curw, host_view_busy(h) ? R_WARN : value_role(r, &rt), cur);
	struct strbuf s;
	sb_init(&s);
	if (isfinite(h->srv_wait_pct))
		sb_printf(&s, " %s %.0f%% of its CPU time", host_view_busy(h) ? "server waits" : "waits",
			  h->srv_wait_pct);
	if (isfinite(h->cpu_some_pct))
		sb_printf(&s, "  pressure %.0f%%", h->cpu_some_pct);
	if (isfinite(h->run_queue))
		sb_printf(&s, "  run queue %.0f/%d cores", h->run_queue, h->ncpu);
	if (isfinite(h->load1))
		sb_printf(&s, "  load %.2f", h->load1);
	if (!h->ok && h->why)
		sb_printf(&s, " %s", h->why);
	else if (h->srv_why[0]) /* the host's figures without the server's: say why */
		sb_printf(&s, "  server's threads not read: %s", h->srv_why);
	text_fit(b, sizeof b, s.len ? s.s : "", c->sparkw, cv->utf8);
	sb_free(&s);
	cv_text(cv, y, c->labw + c->curw + 1, R_VALUE, b);
	if (c->statw && isfinite(h->srv_cpu)) {
		str_printf(b, sizeof b, "server CPU %.2f cores", h->srv_cpu);
		cv_printf(cv, y, cv->w - c->statw, R_VALUE, "%*s", c->statw, b);
	}
}

/* The host's CPU in full: what each figure is and where it comes from. */
static void draw_host_details(const struct model *m, struct canvas *cv)
{
	const struct host_view *h = &m->host;
	char t[320];
	int y = 0;
	cv_printf(cv, y++, 0, R_TITLE, "host CPU  (host_load)");
	y = cv_wrap(cv, y, 0, R_LABEL,
		    "the server's threads (MySQL / MariaDB) or processes (PostgreSQL): how long each "
		    "waited for a CPU each time it ran (/proc/PID/task/TID/schedstat); the kernel's CPU pressure "
		    "(/proc/pressure/cpu) and the run queue (/proc/stat)",
		    cv->h);
	if (!h->ok) {
		if (y < cv->h)
			cv_text(cv, y++, 0, R_NOTE, h->why ? h->why : "no figures yet");
		return;
	}
	host_view_text(h, t, sizeof t);
	y = cv_wrap(cv, y, 0, host_view_busy(h) ? R_WARN : R_VALUE, t, cv->h);
	if (y < cv->h && h->srv_why[0])
		y = cv_wrap(cv, y, 0, R_NOTE, h->srv_why, cv->h);
	if (y < cv->h && isfinite(h->srv_cpu))
		cv_printf(cv, y++, 0, R_VALUE, "the server uses %.2f of %d cores", h->srv_cpu, h->ncpu);
	if (y < cv->h)
		cv_wrap(cv, y, 0, R_NOTE,
			host_view_busy(h)
				? "the server waits for a CPU: slow commits here are the host's, not the disk's"
				: "the server's tasks wait for a CPU less than half of the time they want one",
			cv->h);
}

/* The log device in full: the directories and what holds them, every
 * device's figures this interval, and the shown device's flush latency. */
static void draw_logdev_details(const struct model *m, struct canvas *cv)
{
	const struct logdev_map *lm = &m->caps.logdev;
	const struct logdev_view *ld = &m->ld;
	const char *why = rates_logdev_why(m);
	int y = 0, i;
	cv_printf(cv, y++, 0, R_TITLE, "log device  (log_devices)");
	cv_text(cv, y++, 0, R_LABEL, "the block devices under the WAL / redo / binlog directories, from /proc/diskstats");
	if (why)
		y = cv_wrap(cv, y, 0, R_NOTE, why, cv->h);
	else if (lm->note[0])
		y = cv_wrap(cv, y, 0, R_NOTE, lm->note, cv->h);
	for (i = 0; i < lm->ndirs && y < cv->h; i++) {
		const struct logdir *d = &lm->dirs[i];
		cv_printf(cv, y++, 0, R_VALUE, "%-7s %s  %s %s%s%s", d->role, d->path, d->fs[0] ? d->fs : "?",
			  d->dev[0] ? d->dev : "(no block device)", d->via[0] ? ": " : "", d->via);
	}
	if (y < cv->h && ld->n > 0)
		cv_printf(cv, y++, 0, R_LABEL, "%-10s %9s %9s %9s %9s %7s %6s", "device", "writes/s", "flushes/s",
			  "w await", "f await", "queue", "util%");
	for (i = 0; i < ld->n && y < cv->h; i++) {
		const struct logdev_rates *d = &ld->cur[i];
		if (!d->ok) {
			cv_printf(cv, y++, 0, R_UNKNOWN, "%-10s %s", d->name, d->why ? d->why : "-");
			continue;
		}
		char f[4][16];
		double vals[4] = {d->writes_s, d->flushes_s, d->w_await_ms, d->f_await_ms};
		for (int k = 0; k < 4; k++)
			if (isfinite(vals[k]))
				str_printf(f[k], sizeof f[k], k < 2 ? "%.1f" : "%.3f", vals[k]);
			else
				str_copy(f[k], sizeof f[k], k == 1 && !d->has_flush ? "n/c" : "-");
		cv_printf(cv, y++, 0, R_VALUE, "%-10s %9s %9s %9s %9s %7.2f %5.0f%%", d->name, f[0], f[1], f[2], f[3],
			  d->queue, d->util_pct);
	}
	if (ld->n > 0 && !ld->cur[0].has_flush && y < cv->h)
		cv_text(cv, y++, 0, R_NOTE, "n/c: the kernel counts no flushes for this device (Linux before 5.5, or ZFS)");
	if (y + 2 < cv->h && ld->n > 0) {
		char sv[48];
		cv_printf(cv, y++, 0, R_LABEL, "%s %s, ms", ld->cur[0].name,
			  ld->cur[0].has_flush ? "flush await" : "write await");
		cv_spark(cv, y++, 0, cv->w, ld->cur[0].has_flush ? &ld->flush_ms : &ld->write_ms, 0, R_SPARK);
		const char *sname;
		enum metric_id sm = rates_server_sync(m, &sname);
		if (sm < M__COUNT && y + 2 < cv->h) {
			rates_format(sm, &m->cur[sm], sv, sizeof sv);
			cv_printf(cv, y++, 0, R_LABEL, "the server's %s, ms (now %s)", sname, sv);
			cv_spark(cv, y++, 0, cv->w, &m->hist[sm], 0, R_SPARK);
		}
		if (y + 1 < cv->h) {
			cv_text(cv, y++, 0, R_LABEL, "utilisation, %");
			cv_spark(cv, y++, 0, cv->w, &ld->util, 100, R_SPARK);
		}
	}
}

static void rates_draw(const struct model *m, struct pane_view *v, struct canvas *cv)
{
	int idx[NPANE_ROWS], n = visible_rows(m, v, idx), i, y = 0;
	int labw = 18, curw = 12, statw = 27;
	int sparkw, rows_h;
	double iv = isfinite(m->interval_s) && m->interval_s > 0 ? m->interval_s : 1;
	char lines[8][160];
	bool crit[8];
	int nimp;

	v->nrows = n;
	if (cv->h <= 0 || cv->w <= 0)
		return;
	if (v->details && n > 0) {
		pane_clamp(v, n, 1);
		if (pane_rows[idx[v->sel]].metric == ROW_LOGDEV)
			draw_logdev_details(m, cv);
		else if (pane_rows[idx[v->sel]].metric == ROW_HOST)
			draw_host_details(m, cv);
		else
			draw_details(m, v, cv, idx[v->sel]);
		return;
	}
	if (!m->have_caps) {
		cv_text(cv, 0, 0, R_UNKNOWN, "waiting for the first sample...");
		return;
	}
	if (cv->w < labw + curw + 8)
		statw = 0, labw = cv->w / 2 - 2, curw = cv->w - labw - 1;
	else if (cv->w < labw + curw + statw + 20)
		statw = 0;
	sparkw = cv->w - labw - curw - statw - 2;
	if (sparkw < 0)
		sparkw = 0;
	/* title row: column heads and the window span (a tile too short
	 * for its key rows shows the rows instead) */
	int nkey = 0;
	for (i = 0; i < n; i++)
		nkey += row_key(m, idx[i]);
	if (v->full || cv->h > (nkey < n ? nkey : n)) {
		cv_printf(cv, y, 0, R_LABEL, "%-*s%*s", labw, "", curw, "now");
		if (sparkw > 8)
			cv_printf(cv, y, labw + curw + 1, R_LABEL, "last %.0fs", sparkw * iv);
		if (statw)
			cv_printf(cv, y, cv->w - statw, R_LABEL, "%8s %8s %8s", "min", "max", "avg");
		y++;
	}
	nimp = rates_implications(m, lines, crit, 8);
	int imp_rows = 0;
	for (i = 0; i < nimp; i++)
		imp_rows += wrap_rows(lines[i], cv->w);
	if (imp_rows > 6)
		imp_rows = 6;
	rows_h = cv->h - y - imp_rows;
	if (rows_h < nkey) {
		/* the key rows before the settings' lines */
		rows_h = nkey < cv->h - y ? nkey : cv->h - y;
		imp_rows = cv->h - y - rows_h;
	}
	if (!v->full && !v->focused)
		n = key_rows_first(m, idx, n, rows_h);
	else if (!v->full && n > rows_h && v->sel < rows_h)
		n = key_rows_first(m, idx, n, rows_h);
	pane_clamp(v, n, rows_h);
	v->nshown = n < rows_h ? n : rows_h;
	int row_end = y + rows_h;
	struct rate_cols cols = {.labw = labw, .curw = curw, .statw = statw, .sparkw = sparkw};
	for (i = v->top; i < n && y < row_end; i++, y++)
		draw_rate_row(m, idx[i], v->focused && i == v->sel, &cols, cv, y);
	if (n == 0)
		cv_text(cv, y++, 0, R_UNKNOWN, v->filter ? "no row matches the filter" : "no rates yet");
	/* the settings in force and what they imply */
	if (nimp > 0 && y < cv->h) {
		y = y < cv->h - imp_rows ? y : cv->h - imp_rows;
		if (y < 1)
			y = 1;
		for (i = 0; i < nimp && y < cv->h; i++)
			y = cv_wrap(cv, y, 0, crit[i] ? R_WARN : R_NOTE, lines[i], cv->h);
	}
}

/* s: table order / by name */
static void rates_sort(const struct model *m, struct pane_view *v, int arg, struct pane_reaction *r)
{
	(void)m;
	(void)arg;
	v->sort = !v->sort;
	str_copy(r->status, sizeof r->status, v->sort ? "rates sorted by name" : "rates in table order");
}

static const struct pane_command rates_commands[] = {
	{"sort", rates_sort, 0},
	{NULL, NULL, 0},
};

const struct pane_ops rates_pane = {
	.name = "rates",
	.title = "fsync / commit rates",
	.draw = rates_draw,
	.commands = rates_commands,
	.min_h = 8,
	.need = rates_need,
};
