/* test_layout.c - the overview's column layout (panes/layout.c), a pure
 * function: minimums first, then needs by priority, what is left to a pane
 * that wants more and then to the last pane; too short, the lowest
 * priority give way first and the first in priority last; the heights
 * always fill the column; the priorities of the panes. */
#include <stdio.h>
#include <string.h>

#include "../../panes/layout.h"
#include "tap.h"

static struct layout_pane P(int need, int min, int want, int prio)
{
	struct layout_pane p = {.need = need, .min = min, .want = want, .prio = prio};
	return p;
}

static bool heights(const int *out, int n, const int *want)
{
	for (int i = 0; i < n; i++)
		if (out[i] != want[i])
			return false;
	return true;
}

static const char *show(const int *out, int n)
{
	static char buf[128];
	size_t l = 0;
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		l += (size_t)snprintf(buf + l, sizeof buf - l, "%s%d", i ? "," : "", out[i]);
	return buf;
}

/* Every height at least its title row and together exactly h, for many
 * columns (a fixed pseudo-random walk). */
static void invariants(void)
{
	unsigned x = 12345;
	int bad = 0, runs = 0;
	for (int n = 1; n <= 6; n++)
		for (int h = n; h <= 40; h++)
			for (int k = 0; k < 8; k++, runs++) {
				struct layout_pane p[6];
				int out[6], sum = 0;
				for (int i = 0; i < n; i++) {
					x = x * 1103515245u + 12345u;
					p[i] = P((int)(x >> 8) % 20 - 2, (int)(x >> 16) % 6 - 1,
						 (int)(x >> 4) % 3 == 0 ? -1 : (int)(x >> 20) % 30, (int)(x >> 12) % 8 - 1);
				}
				layout_column(p, n, h, out);
				for (int i = 0; i < n; i++) {
					sum += out[i];
					bad += out[i] < 1;
				}
				bad += sum != h;
			}
	CHECK(bad == 0, tname("%d columns: every pane keeps its title row, the heights fill the column (%d bad)",
			      runs, bad));
}

int main(void)
{
	int out[8];

	/* room for every need: each gets it, the want of the middle pane is
	 * met next, the rest to the last pane */
	struct layout_pane a[] = {P(5, 2, -1, 1), P(4, 1, 6, 2), P(3, 1, -1, 3)};
	layout_column(a, 3, 20, out);
	CHECK(heights(out, 3, (int[]){6, 7, 7}), tname("needs, then a want, then the last pane: %s", show(out, 3)));

	/* short of the needs: the first in priority is served first */
	struct layout_pane b[] = {P(8, 1, -1, 2), P(8, 1, -1, 0), P(8, 1, -1, 1)};
	layout_column(b, 3, 10, out);
	CHECK(heights(out, 3, (int[]){2, 6, 2}), tname("the rows beyond the minimums by priority: %s", show(out, 3)));

	/* two equal priorities keep their order (the sort is stable) */
	struct layout_pane c[] = {P(8, 1, -1, 1), P(8, 1, -1, 1)};
	layout_column(c, 2, 7, out);
	CHECK(heights(out, 2, (int[]){5, 2}), tname("equal priorities: the first in the column first: %s", show(out, 2)));

	/* too short for the minimums: the lowest priority shrink to their
	 * summary, then to their title; the first in priority last */
	struct layout_pane d[] = {P(3, 3, -1, 0), P(3, 3, -1, 1), P(3, 3, -1, 2)};
	layout_column(d, 3, 5, out);
	CHECK(heights(out, 3, (int[]){3, 1, 1}), tname("too short: the first in priority keeps the most: %s", show(out, 3)));
	layout_column(d, 3, 9, out);
	CHECK(heights(out, 3, (int[]){4, 3, 2}), tname("a little short: the last in priority gives way: %s", show(out, 3)));

	/* a minimum under 1 is the one-line summary; a need under the
	 * minimum is raised to it */
	struct layout_pane e[] = {P(0, 0, -1, 0), P(2, 1, -1, 1)};
	layout_column(e, 2, 10, out);
	CHECK(heights(out, 2, (int[]){2, 8}), tname("a pane always gets its summary row: %s", show(out, 2)));
	struct layout_pane f[] = {P(1, 4, -1, 0), P(2, 1, -1, 1)};
	layout_column(f, 2, 12, out);
	CHECK(heights(out, 2, (int[]){5, 7}), tname("a need under the minimum is the minimum: %s", show(out, 2)));

	invariants();

	CHECK(layout_prio(4, 1, true) == -1, "the focused pane after Tab (or zoomed) goes first");
	CHECK(layout_prio(2, 3, false) < layout_prio(0, 1, false), "the lock tree while sessions wait before rates");
	CHECK(layout_prio(2, 1, false) > layout_prio(4, 1, false), "the lock tree with nobody waiting after tuning");
	CHECK(layout_prio(0, 1, false) < layout_prio(1, 1, false) && layout_prio(1, 1, false) < layout_prio(3, 1, false) &&
		      layout_prio(3, 1, false) < layout_prio(4, 1, false) && layout_prio(4, 1, false) < layout_prio(5, 1, false),
	      "then rates, digests, waits, tuning, sessions");
	return tap_failed ? 1 : 0;
}
