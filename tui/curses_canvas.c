/* curses_canvas.c - the canvas (panes/canvas.h) on the curses screen
 * (curses_canvas.h). */
#include "curses_canvas.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>

#include "theme.h"

/* A character wider (or narrower) than one column was drawn since the
 * screen was last erased: cells may belong to a wide character. */
static bool frame_has_wide;

static void curses_put(struct canvas *cv, int y, int x, enum role r, const char *s, int ncols)
{
	(void)cv;
	attr_t a = (attr_t)theme_attr(r);
	chtype cells[512];
	int n = 0;
	/* Printable ASCII over single-column cells: store the cells directly.
	 * They come out as waddstr would make them (the character with the
	 * attributes and colour pair set; the background is the default blank),
	 * without its per-character work. */
	if (!frame_has_wide && ncols < (int)(sizeof cells / sizeof cells[0]) && x + ncols <= COLS) {
		while (n < ncols && (unsigned char)s[n] >= 0x20 && (unsigned char)s[n] < 0x7f) {
			cells[n] = (chtype)(unsigned char)s[n] | a;
			n++;
		}
	}
	attrset(a);
	if (n == ncols && !s[n] && n > 0) {
		mvaddchnstr(y, x, cells, n);
		/* the cursor where waddstr leaves it */
		if (x + n < COLS)
			move(y, x + n);
		else if (y + 1 < LINES)
			move(y + 1, 0);
		else
			move(y, COLS - 1);
		return;
	}
	mvaddstr(y, x, s);
	if (!frame_has_wide && text_code_points(s) != ncols)
		frame_has_wide = true;
}

static const struct canvas_ops curses_canvas = {.put = curses_put};

struct canvas curses_canvas_at(bool utf8, int y, int x, int h, int w)
{
	struct canvas cv = {.ops = &curses_canvas, .y0 = y, .x0 = x, .h = h, .w = w, .utf8 = utf8};
	return cv;
}

void curses_canvas_erase(void)
{
	erase();
	frame_has_wide = false;
}
