/* grid.h - a canvas that writes into a character grid, for the unit tests
 * of what panes/ draws: cells[y] is row y as text, roles[y][x] its role
 * (R__COUNT: nothing drawn there). One ASCII character a column (no UTF-8
 * on these canvases). Define GW and GH (the grid's size) before including. */
#ifndef DBTOP_TEST_GRID_H
#define DBTOP_TEST_GRID_H

#include <string.h>

#include "../../panes/canvas.h"

static char cells[GH][GW + 1];
static enum role roles[GH][GW];

static void grid_put(struct canvas *cv, int y, int x, enum role r, const char *s, int ncols)
{
	(void)cv;
	(void)ncols;
	for (; *s && x < GW && y >= 0 && y < GH; s++, x++) {
		cells[y][x] = *s;
		roles[y][x] = r;
	}
}

static const struct canvas_ops grid_ops = {.put = grid_put};

/* A cleared grid and a w x h canvas on it. */
static struct canvas grid(int w, int h)
{
	for (int y = 0; y < GH; y++) {
		memset(cells[y], ' ', GW);
		cells[y][GW] = '\0';
		for (int x = 0; x < GW; x++)
			roles[y][x] = R__COUNT;
	}
	struct canvas cv = {.ops = &grid_ops, .h = h, .w = w, .utf8 = false};
	return cv;
}

#endif
