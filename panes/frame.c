/* frame.c - the body of a server's screen (frame.h). */
#include "frame.h"

#include <string.h>

#include "../model/digests.h"
#include "../model/findings.h"
#include "../util/util.h"
#include "layout.h"

/* Title line of a pane: number, title, filter, status. */
static void frame_title(const struct frame_in *in, struct canvas *cv, int idx, bool focused)
{
	const struct pane_view *v = &in->views[idx];
	char t[256];
	int x;
	cv_fill(cv, 0, 0, cv->w, focused ? R_SELECTED : R_TITLE);
	str_printf(t, sizeof t, "[%d] %s", idx + 1, in->panes[idx]->title);
	x = cv_text(cv, 0, 0, focused ? R_SELECTED : R_TITLE, t);
	if (v->filter_text[0]) {
		str_printf(t, sizeof t, "  filter /%s/ (%d rows)", v->filter_text, v->nrows);
		x += cv_text(cv, 0, x, focused ? R_SELECTED : R_TITLE, t);
	}
	if (v->nshown < v->nrows && !v->details) {
		/* the pane is cut: say how much shows */
		str_printf(t, sizeof t, "  %d of %d rows", v->nshown, v->nrows);
		x += cv_text(cv, 0, x, focused ? R_SELECTED : R_TITLE, t);
	}
	if (in->zoom && in->screen == 0 && focused)
		x += cv_text(cv, 0, x, R_SELECTED, "  zoomed (z)");
	if (idx == 0 && in->m->nsettings == 0 && in->m->intervals > 0)
		cv_text(cv, 0, x, R_TITLE, "");
}

/* Notes of the connection (what is missing and how to fix it). */
static int frame_notes(const struct model *m, struct canvas *cv, int y)
{
	const struct caps *c = &m->caps;
	int i;
	for (i = 0; i < c->notes.n && y < cv->h; i++) {
		char t[NOTE_LEN + 8];
		str_printf(t, sizeof t, "note: %s", c->notes.msg[i]);
		y = cv_wrap(cv, y, 0, R_NOTE, t, cv->h);
	}
	return y;
}

/* A pane with its title line in the rectangle of scr. */
static void frame_tile(struct canvas *scr, const struct frame_in *in, int idx, int y, int x, int h, int w, bool focused)
{
	struct canvas cv = cv_sub(scr, y, x, h, w);
	struct canvas body = cv_sub(&cv, 1, 0, h - 1, w);
	struct pane_view *v = &in->views[idx];
	if (h < 1 || w < 1)
		return;
	v->focused = focused;
	v->full = in->screen != 0;
	v->frozen = in->frozen;
	v->nshown = v->nrows = 0;
	if (in->panes[idx] == &digests_pane) /* o in the digests pane: dbtop's own statements too */
		digest_table_show_own(&in->m->dg, (v->sort & DIGESTS_SHOW_OWN) != 0);
	if (body.h > 0)
		in->panes[idx]->draw(in->m, v, &body); /* first: it counts the rows the title shows */
	frame_title(in, &cv, idx, focused);
}

int frame_state_line(struct canvas *scr, const struct model *m, int y)
{
	const struct sample *s = &m->last;
	struct canvas cv = cv_sub(scr, y, 0, 1, scr->w);
	if (m->intervals == 0 || s->state == STATE_UP || !s->error[0])
		return y;
	cv_printf(&cv, 0, 0, R_CRIT, "%s: %s", s->state == STATE_DOWN ? "DOWN" : "STALLED", s->error);
	return y + 1;
}

/* " (3 of 5 refreshes point at ...)" when the hysteresis holds finding f,
 * " (not seen the last 2 refreshes)" when it is quiet, else "". */
static void finding_held(const struct finding *f, char *held, size_t len)
{
	held[0] = '\0';
	/* held by the hysteresis: its evidence is of that many refreshes
	 * ago; or the rule holds under another cause not yet confirmed */
	if (f->pending)
		str_printf(held, len, " (%d of %d refreshes point at %s)", f->pending_run,
			   hold_rule_for(f->id)->cause_run, f->pending);
	else if (f->quiet > 0)
		str_printf(held, len, " (not seen the last %d refresh%s)", f->quiet, f->quiet == 1 ? "" : "es");
}

/* One finding from row y of scr: what and what to do, on two rows when
 * each may take two and it needs them (the overview, or a pane short of
 * rows); on a pane the evidence too, then the suggestion on a second row.
 * Returns the rows taken. */
static int frame_finding(struct canvas *scr, int y, const struct finding *f, bool overview, int each)
{
	enum role r = f->severity == SEV_INFO ? R_NOTE : f->severity == SEV_WARN ? R_WARN : R_CRIT;
	char line[900], held[112];
	int cols = scr->w;
	finding_held(f, held, sizeof held);
	struct canvas cv = cv_sub(scr, y, 0, 1, cols);
	cv_fill(&cv, 0, 0, cols, R_NORMAL);
	if (overview) {
		str_printf(line, sizeof line, "%s %s%s -> %s", f->severity == SEV_CRIT ? "!!" : "!", f->summary, held,
			   f->suggestion);
		if (each == 2 && wrap_rows(line, cols) > 1) {
			struct canvas two = cv_sub(scr, y, 0, 2, cols);
			cv_fill(&two, 1, 0, cols, R_NORMAL);
			cv_wrap(&two, 0, 0, r, line, 2);
			return 2;
		}
		cv_text(&cv, 0, 0, r, line);
		return 1;
	}
	str_printf(line, sizeof line, "%s %s%s: %s", f->severity == SEV_CRIT ? "!!" : "!", f->summary, held,
		   f->evidence);
	cv_text(&cv, 0, 0, r, line);
	struct canvas cv2 = cv_sub(scr, y + 1, 0, 1, cols);
	cv_fill(&cv2, 0, 0, cols, R_NORMAL);
	str_printf(line, sizeof line, "   -> %s", f->suggestion);
	cv_text(&cv2, 0, 0, R_NOTE, line);
	return 2;
}

int frame_findings(struct canvas *scr, const struct model *m, int y, const char *pane, int max)
{
	const struct finding *f = m->findings.f;
	size_t n = m->findings.n, mine = 0;
	for (size_t i = 0; i < n; i++)
		mine += !pane || strcmp(f[i].pane, pane) == 0;
	/* the overview keeps the rows of a finding cleared a moment ago
	 * (findings.recent), so the panes do not jump when it comes back */
	size_t keep = !pane && m->findings.recent > mine ? m->findings.recent : mine;
	/* the overview: a finding may take two lines when all of them can */
	int each = !pane && (int)keep * 2 <= max ? 2 : 1;
	for (size_t i = 0; i < n && max > 0; i++) {
		if (pane && strcmp(f[i].pane, pane) != 0)
			continue;
		/* the overview: what and what to do; the pane: the evidence too */
		int rows = frame_finding(scr, y, &f[i], !pane || max < 2, each);
		y += rows;
		max -= rows;
	}
	for (int extra = (int)(keep - mine) * each; extra > 0 && max > 0; extra--, max--, y++) {
		struct canvas cv = cv_sub(scr, y, 0, 1, scr->w);
		cv_fill(&cv, 0, 0, scr->w, R_NORMAL);
	}
	return y;
}

/* What pane idx asks for at width w (title not included); *min its minimum. */
static int frame_need(const struct frame_in *in, int idx, int w, int *min)
{
	const struct pane_ops *p = in->panes[idx];
	return p->need ? p->need(in->m, &in->views[idx], w, min) : p->min_h;
}

/* The n panes list[] stacked in rows top .. top + h of scr from column x, w wide. */
static void frame_column(struct canvas *scr, const struct frame_in *in, const int *list, int n, int top, int x, int w,
			 int h)
{
	struct layout_pane lp[LAYOUT_MAX] = {{0}};
	int hh[LAYOUT_MAX], y = top;
	if (n > LAYOUT_MAX)
		n = LAYOUT_MAX;
	for (int i = 0; i < n; i++) {
		const struct pane_ops *p = in->panes[list[i]];
		int min = 1;
		lp[i].need = frame_need(in, list[i], w, &min);
		if (in->zoom && list[i] != in->focus)
			min = 1; /* zoomed: the others keep their one-line summary */
		lp[i].min = min;
		lp[i].want = p->want ? p->want(in->m, &in->views[list[i]], w) : -1;
		lp[i].prio = layout_prio(list[i], min, list[i] == in->focus && (in->focus_moved || in->zoom));
	}
	layout_column(lp, n, h, hh);
	for (int i = 0; i < n; i++) {
		frame_tile(scr, in, list[i], y, x, hh[i], w, in->focus == list[i]);
		y += hh[i];
	}
}

/* The rows the n panes of list need stacked at width w, titles included. */
static int column_need(const struct frame_in *in, const int *list, int n, int w)
{
	int sum = 0, min;
	for (int i = 0; i < n; i++)
		sum += 1 + frame_need(in, list[i], w, &min);
	return sum;
}

/* True when the panes stacked at full width need more than h rows. */
static bool column_cuts(const struct frame_in *in, int w, int h)
{
	int sum = 0, min;
	for (int i = 0; i < in->ntiles; i++)
		if (i != in->sessions || in->sessions_tile)
			sum += 1 + frame_need(in, i, w, &min);
	return sum > h;
}

void frame_overview(struct canvas *scr, const struct frame_in *in, int top, int h)
{
	int cols = scr->w;
	/* two columns on a wide terminal when one would cut a pane */
	if (cols >= 140 && column_cuts(in, cols, h)) {
		/* rates and digests on the left, the rest on the right, a rule
		 * between; the sessions go left when all of them fit there */
		static const int left[] = {0, 1, 5}, right[] = {2, 3, 4, 5};
		int lw = cols * 11 / 20, rw = cols - lw - 1;
		struct canvas cv = cv_sub(scr, top, lw, h, 1);
		bool sess = in->sessions_tile;
		bool sess_left = sess && column_need(in, left, 3, lw) <= h;
		frame_column(scr, in, left, 2 + sess_left, top, 0, lw, h);
		frame_column(scr, in, right, 3 + (sess && !sess_left), top, lw + 1, rw, h);
		for (int y = 0; y < h; y++)
			cv_text(&cv, y, 0, R_LABEL, scr->utf8 ? "\xe2\x94\x82" : "|");
		return;
	}
	static const int all[] = {0, 1, 2, 3, 4, 5};
	frame_column(scr, in, all, in->ntiles - !in->sessions_tile, top, 0, cols, h);
}

void frame_one_pane(struct canvas *scr, const struct frame_in *in, int top, int h)
{
	int idx = in->screen - 1, cols = scr->w;
	struct canvas cv = cv_sub(scr, top, 0, h, cols);
	int note_rows = 0;
	for (int k = 0; idx == 0 && k < in->m->caps.notes.n; k++) {
		char t[NOTE_LEN + 8];
		str_printf(t, sizeof t, "note: %s", in->m->caps.notes.msg[k]);
		note_rows += wrap_rows(t, cols);
	}
	int body_h = h - 1 - note_rows;
	if (body_h < 3)
		body_h = h - 1;
	frame_tile(scr, in, idx, top, 0, 1 + body_h, cols, true);
	if (idx == 0 && body_h < h - 1) {
		struct canvas notes = cv_sub(&cv, 1 + body_h, 0, h - 1 - body_h, cols);
		frame_notes(in->m, &notes, 0);
	}
}
