/* curses_canvas.c - the canvas (panes/canvas.h) on the curses screen
 * (curses_canvas.h). */
#include "curses_canvas.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <wchar.h>

#include "../util/util.h"
#include "theme.h"

/* A character wider (or narrower) than one column was drawn since the
 * screen was last erased: cells may belong to a wide character. */
static bool frame_has_wide;

/* Text of single-column characters, some beyond ASCII (the sparklines'
 * blocks, rules, arrows), into cells: the cells waddstr would make, without
 * its conversion of each character through the locale. Returns the cells
 * made, or -1 when a character is not one column wide (or the text is not
 * well formed, or longer than max): then waddstr draws it. */
static int wide_cells(const char *s, attr_t a, cchar_t *cells, int max)
{
	const unsigned char *p = (const unsigned char *)s;
	short pair = (short)PAIR_NUMBER(a);
	attr_t bare = a & ~A_COLOR;
	int n = 0;
	while (*p) {
		wchar_t wc[2] = {0, 0};
		int len = 1;
		if (*p >= 0x20 && *p < 0x7f)
			wc[0] = *p;
		else {
			unsigned cp;
			if (!(len = (int)utf8_code_point(p, &cp)) || cp < 0xa0 || wcwidth((wchar_t)cp) != 1)
				return -1;
			wc[0] = (wchar_t)cp;
		}
		if (n == max || setcchar(&cells[n], wc, bare, pair, NULL) == ERR)
			return -1;
		n++;
		p += len;
	}
	return n;
}

/* The cursor where waddstr leaves it after n cells from (y, x). */
static void cursor_after(int y, int x, int n)
{
	if (x + n < COLS)
		move(y, x + n);
	else if (y + 1 < LINES)
		move(y + 1, 0);
	else
		move(y, COLS - 1);
}

static void curses_put(struct canvas *cv, int y, int x, enum role r, const char *s, int ncols)
{
	attr_t a = (attr_t)theme_attr(r);
	chtype cells[512];
	int n = 0;
	bool fits = !frame_has_wide && ncols > 0 && ncols < (int)(sizeof cells / sizeof cells[0]) && x + ncols <= COLS;
	/* Printable ASCII over single-column cells: store the cells directly.
	 * They come out as waddstr would make them (the character with the
	 * attributes and colour pair set; the background is the default blank),
	 * without its per-character work. */
	if (fits) {
		while (n < ncols && (unsigned char)s[n] >= 0x20 && (unsigned char)s[n] < 0x7f) {
			cells[n] = (chtype)(unsigned char)s[n] | a;
			n++;
		}
	}
	attrset(a);
	if (fits && n == ncols && !s[n]) {
		mvaddchnstr(y, x, cells, n);
		cursor_after(y, x, n);
		return;
	}
	if (fits && cv->utf8 && (unsigned char)s[n] >= 0x80) {
		cchar_t wcells[sizeof cells / sizeof cells[0]];
		if (wide_cells(s, a, wcells, ncols) == ncols) {
			mvadd_wchnstr(y, x, wcells, ncols);
			cursor_after(y, x, ncols);
			return;
		}
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
