/* curses_canvas.h - the canvas the panes draw on (panes/canvas.h), on
 * the curses screen: each text goes to its cells in its role's theme
 * attributes (theme.h). */
#ifndef DBTOP_TUI_CURSES_CANVAS_H
#define DBTOP_TUI_CURSES_CANVAS_H

#include <stdbool.h>

#include "../panes/canvas.h"

/* The screen's rectangle at row y, column x, h rows of w columns;
 * utf8: block characters and line drawing allowed. */
struct canvas curses_canvas_at(bool utf8, int y, int x, int h, int w);
/* Erase the screen for a new frame. */
void curses_canvas_erase(void);

#endif
