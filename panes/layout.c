/* layout.c - the overview's column layout (layout.h). */
#include "layout.h"

int layout_prio(int idx, int min, bool first)
{
	static const int prio[] = {1, 2, 0, 3, 4, 6, 7};
	if (first)
		return -1;
	if (idx < 0 || idx >= (int)(sizeof prio / sizeof prio[0]))
		return 8;
	return idx == 2 && min <= 1 ? 5 : prio[idx];
}

/* order[0..n): the panes by priority, highest first (stable). */
static void layout_order(const struct layout_pane *p, int n, int *order)
{
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && p[order[k - 1]].prio > p[order[k]].prio; k--) {
			int t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
}

/* Too short for the minimums: the lowest priority shrink to their summary
 * first, then to their title; the first in priority last. */
static int layout_shrink(const int *order, int n, int h, int used, int *out)
{
	static const int pass[4][2] = {{2, 1}, {1, 1}, {2, 0}, {1, 0}}; /* floor, panes kept out */
	for (int p = 0; p < 4 && used > h; p++)
		for (int i = n - 1; i >= pass[p][1] && used > h; i--) {
			int j = order[i];
			int cut = out[j] - pass[p][0];
			if (cut <= 0)
				continue;
			if (cut > used - h)
				cut = used - h;
			out[j] -= cut;
			used -= cut;
		}
	return used;
}

/* Up to upto[j] (title included) for each pane by priority while rows are
 * left; returns the rows used. */
static int layout_fill(const int *order, int n, const int *upto, int h, int used, int *out)
{
	for (int i = 0; i < n && used < h; i++) {
		int j = order[i], more = upto[j] - out[j];
		if (more > h - used)
			more = h - used;
		if (more > 0) {
			out[j] += more;
			used += more;
		}
	}
	return used;
}

void layout_column(const struct layout_pane *p, int n, int h, int *out)
{
	int need[LAYOUT_MAX], want[LAYOUT_MAX], order[LAYOUT_MAX] = {0}, used = 0;
	if (n > LAYOUT_MAX)
		n = LAYOUT_MAX;
	if (n < 0)
		n = 0;
	for (int i = 0; i < n; i++) {
		int min = p[i].min < 1 ? 1 : p[i].min;
		need[i] = 1 + (p[i].need < min ? min : p[i].need);
		want[i] = p[i].want >= 0 ? 1 + p[i].want : 0;
		out[i] = 1 + min;
		used += out[i];
	}
	layout_order(p, n, order);
	used = layout_shrink(order, n, h, used, out);
	used = layout_fill(order, n, need, h, used, out); /* the rest by priority and need */
	used = layout_fill(order, n, want, h, used, out); /* every need met: to a pane that can use more */
	if (used < h && n > 0)
		out[n - 1] += h - used;
}
