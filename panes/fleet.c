/* fleet.c - the fleet screen: one row per server watched. */
#include "fleet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

static const char *const sort_names[FS__COUNT] = {
	"as given", "worst first", "name", "commits/s", "fsyncs per commit", "latency", "lock waiters",
};

const char *fleet_sort_name(int sort)
{
	return sort >= 0 && sort < FS__COUNT ? sort_names[sort] : "?";
}

/* The commit latency, else the sync latency the engine has. */
static void row_latency(struct fleet_row *r, const struct model *m)
{
	static const struct {
		enum metric_id id;
		const char *kind;
	} order[] = {
		{M_COMMIT_MS, "commit"}, {M_WAL_SYNC_MS, "wal"}, {M_REDO_FSYNC_MS, "redo"},
		{M_BINLOG_FSYNC_MS, "binlog"},
	};
	r->lat = (struct rate){.v = NAN, .st = RATE_UNAVAIL};
	r->lat_kind = NULL;
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		if (!model_metric_applies(m, order[i].id) || m->cur[order[i].id].st == RATE_UNAVAIL)
			continue;
		if (!r->lat_kind || (r->lat.st != RATE_OK && m->cur[order[i].id].st == RATE_OK)) {
			r->lat = m->cur[order[i].id];
			r->lat_kind = order[i].kind;
		}
		if (r->lat.st == RATE_OK)
			return;
	}
}

void fleet_row_fill(struct fleet_row *r, int idx, const char *name, const char *host, const struct model *m,
		    double since, double stale_s, double now)
{
	const struct sample *s = &m->last;
	memset(r, 0, sizeof *r);
	r->idx = idx;
	r->waiting = -1;
	r->for_s = -1;
	str_copy(r->name, sizeof r->name, name);
	str_copy(r->host, sizeof r->host, host ? host : "");
	if (m->have_caps && m->caps.version[0]) {
		char ver[32];
		str_copy(ver, sizeof ver, m->caps.version);
		ver[strspn(ver, "0123456789.")] = '\0';
		const char *f = flavour_name(m->caps.flavour);
		str_printf(r->engine, sizeof r->engine, "%s %s",
			   strcmp(f, "mariadb") == 0 ? "MariaDB" : strcmp(f, "mysql") == 0 ? "MySQL"
			   : strcmp(f, "postgresql") == 0 ? "PostgreSQL" : f, ver);
	}
	r->commits = m->cur[M_COMMITS];
	r->fpc = m->cur[M_FSYNCS_PER_COMMIT];
	row_latency(r, m);
	if (m->intervals == 0) {
		str_copy(r->state, sizeof r->state, "CONNECTING");
		return;
	}
	if (s->state != STATE_UP) {
		r->bad = true;
		str_copy(r->state, sizeof r->state, s->state == STATE_STALLED ? "STALLED" : "DOWN");
		str_copy(r->reason, sizeof r->reason, s->error[0] ? s->error : "no answer");
		if (since > 0)
			r->for_s = now - since;
	} else if (stale_s > 0 && now - s->wall > stale_s) {
		/* the worker is inside a query that has not come back */
		r->bad = true;
		str_copy(r->state, sizeof r->state, "STALLED");
		str_printf(r->reason, sizeof r->reason, "no sample for %.0fs (a query has not come back)", now - s->wall);
		r->for_s = now - s->wall;
	} else {
		str_copy(r->state, sizeof r->state, "UP");
	}
	if (r->bad)
		return;
	if (lock_set_counted(m->locks))
		r->waiting = (int)m->locks->waiting;
	const struct wait_entry *we[WAIT_MAX];
	size_t nw = wait_table_ranked(&m->wt, we, WAIT_MAX);
	for (size_t i = 0; i < nw; i++)
		if (!wait_is_idle(we[i]->name) && we[i]->aas > 0) {
			str_copy(r->wait, sizeof r->wait, we[i]->name);
			r->wait_aas = we[i]->aas;
			break;
		}
	const struct finding *f = m->findings.f;
	size_t nf = m->findings.n;
	if (nf > 0) {
		r->has_finding = true;
		r->sev = f[0].severity;
		str_printf(r->finding, sizeof r->finding, "%s %s", f[0].severity == SEV_CRIT ? "!!" : "!", f[0].summary);
	}
}

/* A value for sorting: unknown sorts last. */
static double key_val(const struct rate *r)
{
	return r->st == RATE_OK && isfinite(r->v) ? r->v : -1;
}

/* How bad a row is: DOWN / STALLED, then the finding's severity. */
static int badness(const struct fleet_row *r)
{
	return r->bad ? 10 : r->has_finding ? 1 + (int)r->sev : 0;
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	int sort_by = *(const int *)ctx;
	const struct fleet_row *a = *(const struct fleet_row *const *)pa, *b = *(const struct fleet_row *const *)pb;
	double d = 0;
	switch (sort_by) {
	case FS_WORST: d = badness(b) - badness(a); break;
	case FS_NAME: d = strcmp(a->name, b->name); break;
	case FS_COMMITS: d = key_val(&b->commits) - key_val(&a->commits); break;
	case FS_FPC: d = key_val(&b->fpc) - key_val(&a->fpc); break;
	case FS_LATENCY: d = key_val(&b->lat) - key_val(&a->lat); break;
	case FS_WAITING: d = b->waiting - a->waiting; break;
	default: break;
	}
	if (d != 0)
		return d < 0 ? -1 : 1;
	return a->idx - b->idx;   /* ties keep the given order */
}

/* "12s", "4m05s", "2h03m". */
static void fmt_for(double s, char *buf, size_t len)
{
	long t = (long)s;
	if (s < 0)
		buf[0] = '\0';
	else if (t < 60)
		str_printf(buf, len, " for %lds", t);
	else if (t < 3600)
		str_printf(buf, len, " for %ldm%02lds", t / 60, t % 60);
	else
		str_printf(buf, len, " for %ldh%02ldm", t / 3600, t % 3600 / 60);
}

/* A figure of the row with decimals (fewer when it is large): "-" when
 * unknown. */
static void fmt_rate(const struct rate *r, int decimals, char *buf, size_t len)
{
	if (r->st != RATE_OK || !isfinite(r->v))
		str_copy(buf, len, "-");
	else
		str_printf(buf, len, "%.*f", r->v >= 100 ? 0 : decimals, r->v);
}

/* Columns shown at width w: which of the optional ones fit. */
struct layout {
	int name, engine, topwait;   /* widths, 0: not shown */
	int x_state, x_commits, x_fpc, x_lat, x_wait, x_top, x_find;
};

static void plan_columns(const struct fleet_row *rows, int n, int w, struct layout *l)
{
	memset(l, 0, sizeof *l);
	l->name = 6;
	for (int i = 0; i < n; i++) {
		int c = text_cols(rows[i].name);
		if (c > l->name)
			l->name = c;
	}
	if (l->name > 24)
		l->name = 24;
	/* name state commits/s f/c latency waiting: always; then the top wait
	 * (from 120 columns, names up to 24) while the finding keeps 24, then
	 * the engine while the finding keeps 24 */
	int fixed = l->name + 1 + 10 + 10 + 6 + 14 + 5;
	if (w - fixed >= 24 + 24)
		l->topwait = 23;
	if (w - fixed - (l->topwait ? l->topwait + 1 : 0) >= 24 + 18)
		l->engine = 17;
	int x = l->name + 1;
	if (l->engine) {
		x += l->engine + 1;
	}
	l->x_state = x;
	l->x_commits = x + 10;
	l->x_fpc = l->x_commits + 10;
	l->x_lat = l->x_fpc + 6;
	l->x_wait = l->x_lat + 14;
	l->x_top = l->x_wait + 5;
	l->x_find = l->x_top + (l->topwait ? l->topwait + 1 : 0);
}

/* One row at y; sel: it is the selected one. */
static void draw_row(struct canvas *cv, int y, const struct fleet_row *r, const struct layout *l, bool sel)
{
	char b[320], v[48];
	enum role base = sel ? R_SELECTED : R_NORMAL;
	if (sel)
		cv_fill(cv, y, 0, cv->w, R_SELECTED);
	text_fit(b, sizeof b, r->name, l->name, cv->utf8);
	cv_text(cv, y, 0, sel ? R_SELECTED : R_LABEL, b);
	if (l->engine) {
		text_fit(b, sizeof b, r->engine[0] ? r->engine : "-", l->engine, cv->utf8);
		cv_text(cv, y, l->name + 1, base, b);
	}
	cv_text(cv, y, l->x_state, sel ? R_SELECTED : r->bad ? R_CRIT : strcmp(r->state, "UP") ? R_UNKNOWN : R_VALUE,
		r->state);
	if (r->bad) {
		/* the reason where the figures would be: they are unknown */
		char f[32];
		fmt_for(r->for_s, f, sizeof f);
		if (f[0])
			str_printf(b, sizeof b, "%s: %s", f + 1, r->reason);
		else
			str_copy(b, sizeof b, r->reason);
		struct canvas rest = cv_sub(cv, y, l->x_commits, 1, cv->w - l->x_commits);
		cv_text(&rest, 0, 0, sel ? R_SELECTED : R_CRIT, b);
		return;
	}
	fmt_rate(&r->commits, 1, v, sizeof v);
	text_pad(b, sizeof b, v, 9, true, cv->utf8);
	cv_text(cv, y, l->x_commits, base, b);
	fmt_rate(&r->fpc, 2, v, sizeof v);
	text_pad(b, sizeof b, v, 5, true, cv->utf8);
	cv_text(cv, y, l->x_fpc, sel ? R_SELECTED : r->fpc.st == RATE_OK && r->fpc.v >= 2 ? R_WARN : R_VALUE, b);
	fmt_rate(&r->lat, 2, v, sizeof v);
	str_printf(b, sizeof b, "%7s %-6.6s", v, r->lat_kind && r->lat.st == RATE_OK ? r->lat_kind : "");
	cv_text(cv, y, l->x_lat, base, b);
	if (r->waiting >= 0)
		str_printf(v, sizeof v, "%4d", r->waiting);
	else
		str_copy(v, sizeof v, "   -");
	cv_text(cv, y, l->x_wait, sel ? R_SELECTED : r->waiting > 0 ? R_WARN : R_VALUE, v);
	if (l->topwait) {
		if (r->wait[0])
			str_printf(v, sizeof v, "%s %.1f", r->wait, r->wait_aas);
		else
			str_copy(v, sizeof v, "-");
		text_fit(b, sizeof b, v, l->topwait, cv->utf8);
		cv_text(cv, y, l->x_top, base, b);
	}
	if (r->has_finding && cv->w > l->x_find) {
		text_fit(b, sizeof b, r->finding, cv->w - l->x_find, cv->utf8);
		cv_text(cv, y, l->x_find, sel ? R_SELECTED : r->sev == SEV_CRIT ? R_CRIT : r->sev == SEV_WARN ? R_WARN : R_NOTE,
			b);
	} else if (cv->w > l->x_find) {
		cv_text(cv, y, l->x_find, sel ? R_SELECTED : R_UNKNOWN, "-");
	}
}

int fleet_order(const struct fleet_row *rows, int n, const struct pane_view *v, const struct fleet_row **order)
{
	int shown = 0;
	for (int i = 0; i < n; i++) {
		char hay[800];
		str_printf(hay, sizeof hay, "%s %s %s %s %s %s", rows[i].name, rows[i].engine, rows[i].state, rows[i].reason,
			   rows[i].wait, rows[i].finding);
		if (pane_filter_match(v, hay))
			order[shown++] = &rows[i];
	}
	int sort_by = v->sort;
	sort_r(order, (size_t)shown, sizeof *order, cmp_rows, &sort_by);
	return shown;
}

void fleet_row_key(const void *ctx, int i, char *out, size_t len)
{
	str_printf(out, len, "%d", ((const struct fleet_row *const *)ctx)[i]->idx);
}

void fleet_draw(const struct fleet_row *rows, int n, struct pane_view *v, struct canvas *cv)
{
	const struct fleet_row **order = xcalloc((size_t)(n > 0 ? n : 1), sizeof *order);
	int shown;
	struct layout l;
	char b[400];

	shown = fleet_order(rows, n, v, order);
	v->nrows = shown;
	/* the server selected stays selected as a refresh re-sorts the rows */
	pane_follow(v, shown, fleet_row_key, order);
	/* the heading, the rows, a blank and the selected one's details (3) */
	int detail = cv->h >= 10 ? 3 : 0, body = cv->h - 2 - (detail ? detail + 1 : 0);
	if (body < 1)
		body = 1;
	pane_clamp(v, shown, body);
	str_printf(b, sizeof b, "servers sorted %s (s)", fleet_sort_name(v->sort));
	int x = cv_text(cv, 0, 0, R_TITLE, b);
	if (v->filter_text[0]) {
		str_printf(b, sizeof b, "  filter /%s/: %d of %d", v->filter_text, shown, n);
		cv_text(cv, 0, x, R_TITLE, b);
	}
	plan_columns(rows, n, cv->w, &l);
	cv_fill(cv, 1, 0, cv->w, R_LABEL);
	cv_text(cv, 1, 0, R_LABEL, "SERVER");
	if (l.engine)
		cv_text(cv, 1, l.name + 1, R_LABEL, "ENGINE");
	cv_text(cv, 1, l.x_state, R_LABEL, "STATE");
	cv_text(cv, 1, l.x_commits, R_LABEL, " COMMIT/S");
	cv_text(cv, 1, l.x_fpc, R_LABEL, "FS/C");
	cv_text(cv, 1, l.x_lat, R_LABEL, "LATENCY ms");
	cv_text(cv, 1, l.x_wait, R_LABEL, "LOCK");
	if (l.topwait)
		cv_text(cv, 1, l.x_top, R_LABEL, "TOP WAIT (AAS)");
	cv_text(cv, 1, l.x_find, R_LABEL, "FINDING");
	v->nshown = 0;
	for (int i = v->top; i < shown && i - v->top < body; i++) {
		draw_row(cv, 2 + i - v->top, order[i], &l, i == v->sel);
		v->nshown++;
	}
	if (shown == 0)
		cv_text(cv, 2, 0, R_UNKNOWN, n ? "no server matches the filter (/ and Enter on an empty pattern: all)"
					       : "no server");
	v->sel_id = shown > 0 && v->sel < shown ? order[v->sel]->idx : -1;
	if (detail && shown > 0) {
		const struct fleet_row *r = order[v->sel];
		int y = cv->h - detail;
		cv_rule(cv, y - 1, 0, cv->w, R_BORDER);
		str_printf(b, sizeof b, "%s  %s  %s  %s", r->name, r->host, r->engine[0] ? r->engine : "(not connected yet)",
			   r->state);
		cv_text(cv, y, 0, R_LABEL, b);
		if (r->bad) {
			char f[32];
			fmt_for(r->for_s, f, sizeof f);
			str_printf(b, sizeof b, "%s%s: %s", r->state, f, r->reason);
			cv_wrap(cv, y + 1, 0, R_CRIT, b, cv->h);
		} else if (r->has_finding) {
			cv_wrap(cv, y + 1, 0, r->sev == SEV_CRIT ? R_CRIT : R_WARN, r->finding, cv->h);
		} else {
			cv_text(cv, y + 1, 0, R_UNKNOWN, "no finding; Enter opens its panes");
		}
	}
	free(order);
}
