/* test_timeline.c - the timeline row (panes/timeline.c) on a text grid:
 * the start time, "now" at the right, each mark's letter at its moment,
 * a DOWN period as a run of # up to the UP, the heavier mark winning a
 * shared cell, events that are no mark left out, the cursor selected,
 * nothing drawn when the row is too narrow. */
#include <stdio.h>
#include <string.h>

#include "../../panes/pane.h"
#include "../../panes/timeline.h"
#include "tap.h"

#define GW 60
#define T0 1795978200.0

static char cells[GW + 1];
static enum role roles[GW];

/* One ASCII character a column (the timeline without UTF-8). */
static void grid_put(struct canvas *cv, int y, int x, enum role r, const char *s, int ncols)
{
	(void)cv;
	(void)y;
	(void)ncols;
	for (; *s && x < GW; s++, x++) {
		cells[x] = *s;
		roles[x] = r;
	}
}

static const struct canvas_ops grid_ops = {.put = grid_put};

static void add(struct event_log *l, enum event_kind k, double wall, enum finding_severity sev)
{
	struct event *e = &l->ev[l->n++];
	memset(e, 0, sizeof *e);
	e->seq = l->next_seq++;
	e->kind = k;
	e->wall = wall;
	e->since = wall;
	e->severity = sev;
}

/* The column of wall time t on the span T0..T0+100 drawn from x0, w wide. */
static int col(int x0, int w, double t)
{
	return x0 + (int)((t - T0) / 100 * (w - 1));
}

int main(void)
{
	struct event_log l;
	struct canvas cv = {.ops = &grid_ops, .h = 1, .w = GW, .utf8 = false};
	char start[16];
	events_init(&l);
	add(&l, EV_SESSION_END, T0 + 10, SEV_INFO);
	add(&l, EV_DOWN, T0 + 20, SEV_CRIT);
	add(&l, EV_UP, T0 + 40, SEV_INFO);
	add(&l, EV_FINDING, T0 + 60, SEV_WARN);
	add(&l, EV_SETTING, T0 + 60, SEV_INFO);
	add(&l, EV_LOCK_CHAIN, T0 + 80, SEV_CRIT);
	memset(cells, ' ', GW);
	timeline_draw(&cv, &l, T0, T0 + 100, T0 + 80, "now");
	event_time_text(T0, false, start, sizeof start);
	int x0 = (int)strlen(start) + 1, w = GW - x0 - 1 - 3;
	CHECK(strncmp(cells, start, strlen(start)) == 0, tname("the start time first: '%s'", cells));
	CHECK(strncmp(cells + GW - 3, "now", 3) == 0, "now at the right end");
	CHECK(cells[col(x0, w, T0 + 20)] == 'D' && roles[col(x0, w, T0 + 20)] == R_CRIT, "DOWN: D, critical");
	int hashes = 0;
	for (int c = col(x0, w, T0 + 20) + 1; c <= col(x0, w, T0 + 40); c++)
		hashes += cells[c] == '#';
	CHECK(hashes == col(x0, w, T0 + 40) - col(x0, w, T0 + 20), tname("the DOWN period a run of # (%d)", hashes));
	CHECK(cells[col(x0, w, T0 + 40) + 1] == '.', "after the UP: the span's dots again");
	CHECK(cells[col(x0, w, T0 + 10)] == '.', "a session ended is no mark");
	CHECK(cells[col(x0, w, T0 + 60)] == 'S' && roles[col(x0, w, T0 + 60)] == R_WARN,
	      "a setting change outweighs a warning finding in the same cell");
	CHECK(cells[col(x0, w, T0 + 80)] == 'L' && roles[col(x0, w, T0 + 80)] == R_SELECTED,
	      "the cursor: the lock chain's cell selected");
	CHECK(roles[col(x0, w, T0 + 20)] != R_SELECTED, "one cell selected");

	struct canvas narrow = {.ops = &grid_ops, .h = 1, .w = 20, .utf8 = false};
	memset(cells, ' ', GW);
	timeline_draw(&narrow, &l, T0, T0 + 100, 0, "now");
	CHECK(strchr(cells, 'D') == NULL && strstr(cells, "now") == NULL, "20 columns: no room for the span, no marks");
	events_free(&l);
	return tap_failed ? 1 : 0;
}
