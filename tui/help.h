/* help.h - the help and the key bar, both generated from the key table
 * (keys.c) and drawn on a canvas (no curses here). */
#ifndef DBTOP_TUI_HELP_H
#define DBTOP_TUI_HELP_H

#include <stdbool.h>

#include "../panes/canvas.h"

/* What the help shows: the bindings of screen (0: the overview,
 * SCREEN_FLEET: the fleet) first, then the others'. */
struct help_in {
	int screen;
	const char *title; /* the pane of screen, for its section's head ("" on the overview, the fleet) */
	bool several;      /* several targets: the fleet's keys too */
	int top;           /* first row shown */
};

/* The help in a box over scr (the whole screen) blanked edge to edge, its
 * rows from in->top (clamped: the value returned), the scroll keys on the
 * last row. *rows: the help's rows; *shown: of them shown at once. */
int help_draw(struct canvas *scr, const struct help_in *in, int *rows, int *shown);

/* What the key bar shows: the filter prompt, else the answer keys of a
 * question, else a message, else the bindings of screen with a bar label. */
struct keybar_in {
	int screen;
	bool several;     /* several targets: the fleet's keys too */
	bool filtering;   /* the / prompt is open */
	const char *fbuf; /* its text */
	const char *ferr; /* its error, "": none */
	bool asking;      /* a confirmation is open */
	const char *msg;  /* the message line, NULL or "": none */
};

/* The key bar on row 0 of cv (its whole width). */
void keybar_draw(struct canvas *cv, const struct keybar_in *in);

#endif
