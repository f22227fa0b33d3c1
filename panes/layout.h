/* layout.h - the overview's column layout as a pure function: the panes'
 * needs, minimums and priorities and the rows there are give each pane
 * its height. No canvas, no model: unit-tested in tests/unit/test_layout.c. */
#ifndef DBTOP_PANE_LAYOUT_H
#define DBTOP_PANE_LAYOUT_H

#include <stdbool.h>

#define LAYOUT_MAX 16 /* panes in one column at most */

/* What one pane of a column asks for, in body rows (below its title). */
struct layout_pane {
	int need; /* the rows it wants now (raised to min) */
	int min;  /* the fewest that still show its data (at least 1: its one-line summary) */
	int want; /* the rows it could use beyond its need (a lock tree wrapped), < 0: none */
	int prio; /* lower goes first for rows beyond the minimums (layout_prio) */
};

/* Overview priority of the pane at screen position idx (0: rates, 1:
 * digests, 2: locks, 3: waits, 4: tuning, 5: sessions, 6: events) whose
 * minimum is min: first (the focused pane after Tab, or zoomed) goes
 * before all; the lock tree while sessions wait (min > 1), then rates,
 * digests, waits, tuning. */
int layout_prio(int idx, int min, bool first);

/* Heights (title row included) of the n panes p[] stacked in h rows, into
 * out[]: every pane first gets the rows of its minimum, then the rest goes
 * by priority up to each one's need; when even the minimums do not fit,
 * the lowest priority give way first (to their summary, then to their
 * title; the first in priority last). Every need met, what is left goes
 * to a pane that wants more, then to the last pane. */
void layout_column(const struct layout_pane *p, int n, int h, int *out);

#endif
