/* canvas.h - what panes draw on: a clipped rectangle of character cells
 * with semantic roles. The screen (tui/curses_canvas.c) implements it with curses;
 * tests implement it with a text grid. Text is sanitised before drawing. */
#ifndef DBTOP_CANVAS_H
#define DBTOP_CANVAS_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/ring.h"
#include "role.h"

struct canvas;

struct canvas_ops {
	/* Draw s (sanitised UTF-8, fits in ncols columns) at absolute y, x. */
	void (*put)(struct canvas *cv, int y, int x, enum role r, const char *s, int ncols);
};

struct canvas {
	const struct canvas_ops *ops;
	void *impl;
	int y0, x0;     /* absolute origin */
	int h, w;       /* size in cells */
	bool utf8;      /* block characters and line drawing allowed */
};

/* A sub-rectangle of cv (clipped to it). */
struct canvas cv_sub(const struct canvas *cv, int y, int x, int h, int w);
/* Draw text at (y, x) relative to cv, clipped to cv's width; the text is
 * sanitised (controls and escapes cannot reach the terminal). Returns the
 * columns drawn. */
int cv_text(struct canvas *cv, int y, int x, enum role r, const char *s);
int cv_printf(struct canvas *cv, int y, int x, enum role r, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Text right-aligned so that it ends at column x_end (exclusive). */
int cv_text_right(struct canvas *cv, int y, int x_end, enum role r, const char *s);
/* Fill a row segment with spaces in role r (for selected rows / headers). */
void cv_fill(struct canvas *cv, int y, int x, int w, enum role r);
/* A horizontal rule of w cells. */
void cv_rule(struct canvas *cv, int y, int x, int w, enum role r);
/* Sparkline of the newest `width` values of ring (newest at the right),
 * scaled 0..hi (hi <= 0: the window's maximum); NaN values are gaps. */
void cv_spark(struct canvas *cv, int y, int x, int width, const struct ring *hist,
	      double hi, enum role r);
/* Draw text wrapped at word boundaries from column x, rows y..maxy-1;
 * returns the next free row. */
int cv_wrap(struct canvas *cv, int y, int x, enum role r, const char *text, int maxy);
/* Rows cv_wrap needs for text in width w. */
int wrap_rows(const char *text, int w);
/* s cut to w columns into out, ending in "…" ("..." without UTF-8) when
 * something was left out; sanitised. */
void text_fit(char *out, size_t len, const char *s, int w, bool utf8);
/* text_fit, then padded with blanks to w columns (right: aligned right). */
void text_pad(char *out, size_t len, const char *s, int w, bool right, bool utf8);
/* Columns text occupies on the terminal (UTF-8 aware). */
int text_cols(const char *s);
/* Code points in s (UTF-8). */
int text_code_points(const char *s);

#endif
