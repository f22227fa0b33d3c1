/* events.c - screen 7, the event log: newest first, one row per event
 * (time, kind, what happened), a selection, the / filter, the details of
 * the selected event on Enter. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../model/events.h"
#include "../util/util.h"
#include "pane.h"

/* "HH:MM:SS" local time of wall (and the date when long is set). */
void event_time_text(double wall, bool with_date, char *buf, size_t len)
{
	time_t t = (time_t)wall;
	struct tm tm;
	if (!localtime_r(&t, &tm) || !strftime(buf, len, with_date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm))
		str_copy(buf, len, "?");
}

/* The role an event's row shows in. */
static enum role event_role(const struct event *e)
{
	switch (e->kind) {
	case EV_FINDING: return e->severity == SEV_CRIT ? R_CRIT : e->severity == SEV_WARN ? R_WARN : R_VALUE;
	case EV_DOWN: case EV_STALLED: case EV_INCIDENT: return R_CRIT;
	case EV_RESTART: case EV_LOCK_CHAIN: case EV_SETTING: case EV_SESSION_END: case EV_CANCEL: return R_WARN;
	case EV_FORECAST: return e->severity == SEV_WARN ? R_WARN : R_VALUE;
	default: return R_VALUE;
	}
}

/* The text the filter sees: time, kind, the line. */
static void filter_text(const struct event *e, char *buf, size_t len)
{
	char t[16], line[400];
	event_time_text(e->wall, false, t, sizeof t);
	event_text(e, line, sizeof line);
	str_printf(buf, len, "%s %s %s %s", t, event_kind_name(e->kind), e->name, line);
}

/* The events shown, newest first: their indexes in the log. Returns the
 * count; idx holds at most max. */
static int shown(const struct event_log *l, const struct pane_view *v, size_t *idx, int max)
{
	int n = 0;
	char buf[600];
	for (size_t i = l ? l->n : 0; i-- > 0 && n < max;) {
		if (v->filter) {
			filter_text(events_at(l, i), buf, sizeof buf);
			if (!pane_filter_match(v, buf))
				continue;
		}
		idx[n++] = i;
	}
	return n;
}

const struct event *events_selected(const struct pane_view *v)
{
	static size_t idx[EVENTS_MAX];
	int n = shown(v->events, v, idx, EVENTS_MAX);
	return v->events && v->sel >= 0 && v->sel < n ? events_at(v->events, idx[v->sel]) : NULL;
}

static void draw_details(const struct event *e, struct canvas *cv)
{
	char t[32], line[600];
	int y = 0;
	event_time_text(e->wall, true, t, sizeof t);
	cv_printf(cv, y++, 0, R_TITLE, "%s  %s", t, event_kind_name(e->kind));
	event_text(e, line, sizeof line);
	y = cv_wrap(cv, y, 2, event_role(e), line, cv->h);
	if (e->kind == EV_FINDING || e->kind == EV_FINDING_END)
		cv_printf(cv, y++, 2, R_LABEL, "finding %s, severity %s", e->name, finding_severity_name(e->severity));
	if (e->kind == EV_SETTING) {
		cv_printf(cv, y++, 2, R_LABEL, "setting %s: %s -> %s, %s", e->name, e->old, e->new,
			  e->own ? "changed by dbtop (the undo journal has it)" : "changed by another client");
		if (!e->own && e->since < e->wall) {
			char s[32];
			event_time_text(e->since, false, s, sizeof s);
			cv_printf(cv, y++, 2, R_LABEL, "the change fell between the readings at %s and %s", s, t + 11);
		}
	}
	if (e->kind == EV_LOCK_CHAIN || e->kind == EV_LOCK_CHAIN_END)
		cv_printf(cv, y++, 2, R_LABEL, "root blocker session %lld, user %s, %d waiting", e->session,
			  e->user[0] ? e->user : "?", e->waiters);
	if (y + 1 < cv->h)
		cv_text(cv, y + 1, 2, R_NOTE, "Enter or Esc: back to the list");
}

static void events_draw(const struct model *m, struct pane_view *v, struct canvas *cv)
{
	const struct event_log *l = v->events;
	static size_t idx[EVENTS_MAX];
	int y = 0, n = shown(l, v, idx, EVENTS_MAX);
	char line[600], t[16];
	(void)m;
	v->nrows = n;
	if (!l) {
		cv_text(cv, 0, 0, R_UNKNOWN, "no event log here");
		return;
	}
	if (v->details && n > 0) {
		pane_clamp(v, n, 1);
		draw_details(events_at(l, idx[v->sel]), cv);
		v->nshown = 1;
		return;
	}
	if (cv->h >= 3 || n == 0) {
		str_printf(line, sizeof line, "%-8s  %-11s  %s", "time", "kind", "what (newest first)");
		int x = cv_text(cv, y, 0, R_LABEL, line);
		/* the timeline's letters, in the room right of the heads */
		static const char *const legend[] = {"timeline: F finding  S setting  L lock chain  R restart  # down",
						     "F finding  S setting  L lock chain  R restart  # down"};
		for (int k = 0; k < 2; k++)
			if (x + 2 + text_cols(legend[k]) <= cv->w) {
				cv_text_right(cv, y, cv->w, R_LABEL, legend[k]);
				break;
			}
		y++;
	}
	if (n == 0) {
		cv_text(cv, y, 0, R_UNKNOWN, v->filter ? "no event matches the filter"
					     : "no event yet: findings, setting changes, restarts, DOWN / UP and lock "
					       "chains are listed here as they happen");
		return;
	}
	pane_clamp(v, n, cv->h - y);
	for (int i = v->top; i < n && y < cv->h; i++, y++) {
		const struct event *e = events_at(l, idx[i]);
		bool sel = v->focused && i == v->sel;
		char what[400], fit[1200];
		event_time_text(e->wall, false, t, sizeof t);
		event_text(e, what, sizeof what);
		str_printf(line, sizeof line, "%-8s  %-11s  %s", t, event_kind_name(e->kind), what);
		text_fit(fit, sizeof fit, line, cv->w, cv->utf8);
		if (sel)
			cv_fill(cv, y, 0, cv->w, R_SELECTED);
		cv_text(cv, y, 0, sel ? R_SELECTED : event_role(e), fit);
		v->nshown++;
	}
}

static int events_need(const struct model *m, const struct pane_view *v, int w, int *min)
{
	(void)m;
	(void)w;
	*min = 1;
	return 1 + (v->events && v->events->n ? (int)(v->events->n < 8 ? v->events->n : 8) : 1);
}

const struct pane_ops events_pane = {
	.name = "events",
	.title = "event log",
	.draw = events_draw,
	.min_h = 3,
	.need = events_need,
};
