/* caption.h - the caption line above the key bar (the demo tour's, or
 * --caption's) drawn on a canvas, and the tour's caption text. */
#ifndef DBTOP_PANE_CAPTION_H
#define DBTOP_PANE_CAPTION_H

#include <stdbool.h>
#include <stddef.h>

#include "canvas.h"

/* The tour's caption: " i/n name  text" for incident at (0-based) of n;
 * text: its track's caption now; once the incident ended (ended), what
 * the keys do instead (speed > 0: the next one follows by itself). The
 * name shows when the line has room for it in cols columns. */
void caption_tour_text(char *buf, size_t len, int at, int n, const char *name, const char *text, bool ended,
		       double speed, int cols);
/* cap on the rows just above row bottom of scr (exclusive), selected, on
 * two rows when one would cut it and scr has 20 rows or more. Returns the
 * rows taken. */
int caption_draw(struct canvas *scr, int bottom, const char *cap);

#endif
