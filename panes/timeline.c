/* timeline.c - the timeline row (timeline.h). */
#include "timeline.h"

#include <string.h>

#include "../util/util.h"
#include "pane.h"

#define TL_MAX 512 /* cells drawn at most */

/* A mark's letter, role and weight (the heavier wins a shared cell). */
static int mark_cell(const struct event *e, const char **ch, enum role *r)
{
	switch (e->kind) {
	case EV_INCIDENT:
		*ch = "I";
		*r = R_CRIT;
		return 7; /* an incident file's trigger */
	case EV_RESTART:
		*ch = "R";
		*r = R_CRIT;
		return 6;
	case EV_DOWN:
		*ch = "D";
		*r = R_CRIT;
		return 5;
	case EV_STALLED:
		*ch = "T";
		*r = R_CRIT;
		return 5;
	case EV_LOCK_CHAIN:
		*ch = "L";
		*r = e->severity == SEV_CRIT ? R_CRIT : R_WARN;
		return 4;
	case EV_SETTING:
		*ch = "S";
		*r = R_WARN;
		return 3;
	case EV_FINDING:
		*ch = "F";
		*r = e->severity == SEV_CRIT ? R_CRIT : e->severity == SEV_WARN ? R_WARN : R_VALUE;
		return e->severity == SEV_CRIT ? 4 : 2;
	default: return 0;
	}
}

struct tl_cells {
	const char *cell[TL_MAX];
	enum role role[TL_MAX];
	int weight[TL_MAX];
	int w;
	double t0, span;
};

static int tl_col(const struct tl_cells *c, double wall)
{
	return (int)((wall - c->t0) / c->span * (c->w - 1));
}

/* The DOWN / STALLED period from down_since to upto as a run of # (under
 * any mark). */
static void tl_down(struct tl_cells *c, double down_since, double upto)
{
	int c0 = tl_col(c, down_since), c1 = tl_col(c, upto);
	for (int i = c0 < 0 ? 0 : c0; i <= c1 && i < c->w; i++)
		if (c->weight[i] < 1) {
			c->cell[i] = "#";
			c->role[i] = R_CRIT;
			c->weight[i] = 1;
		}
}

static void tl_marks(struct tl_cells *c, const struct event_log *ev, double t1)
{
	double down_since = -1;
	for (size_t i = 0; i <= ev->n; i++) {
		const struct event *e = events_at(ev, i);
		bool ends =
			!e || e->kind == EV_UP || (down_since >= 0 && (e->kind == EV_DOWN || e->kind == EV_STALLED));
		if (ends && down_since >= 0) {
			tl_down(c, down_since, e ? e->wall : t1);
			down_since = -1;
		}
		if (!e)
			break;
		if (e->kind == EV_DOWN || e->kind == EV_STALLED)
			down_since = e->wall;
		const char *ch;
		enum role r;
		int wt = mark_cell(e, &ch, &r);
		int col = tl_col(c, e->wall);
		if (wt && col >= 0 && col < c->w && wt >= c->weight[col]) {
			c->cell[col] = ch;
			c->role[col] = r;
			c->weight[col] = wt;
		}
	}
}

void timeline_draw(struct canvas *cv, const struct event_log *ev, double t0, double t1, double at, const char *end)
{
	static struct tl_cells c;
	char a[16];
	event_time_text(t0, false, a, sizeof a);
	int x0 = cv_text(cv, 0, 0, R_LABEL, a) + 1, w = cv->w - x0 - 1 - (int)strlen(end);
	if (w < 10)
		return;
	cv_text_right(cv, 0, cv->w, R_LABEL, end);
	c.w = w > TL_MAX ? TL_MAX : w;
	c.t0 = t0;
	c.span = t1 - t0 > 1 ? t1 - t0 : 1;
	for (int i = 0; i < c.w; i++) {
		c.cell[i] = cv->utf8 ? "\xc2\xb7" : ".";
		c.role[i] = R_LABEL;
		c.weight[i] = 0;
	}
	tl_marks(&c, ev, t1);
	/* the cursor: the moment shown while frozen, else the mark chosen */
	int cur = at > 0 ? tl_col(&c, at) : -1;
	for (int i = 0; i < c.w; i++)
		cv_text(cv, 0, x0 + i, i == cur ? R_SELECTED : c.role[i], c.cell[i]);
}
