/* frame.h - the body of a server's screen drawn on a canvas: the DOWN /
 * STALLED line, the findings lines, and the panes with their title lines,
 * either the overview's columns (layout.h) or one pane on the whole body
 * (the rates pane with the connection's notes under it). What shows comes
 * from an explicit frame_in; the screen (tui/ui.c) fills it. */
#ifndef DBTOP_PANE_FRAME_H
#define DBTOP_PANE_FRAME_H

#include <stdbool.h>

#include "canvas.h"
#include "pane.h"

struct frame_in {
	struct model *m;                     /* the model drawn (its digest table told whether
					      * dbtop's own statements show) */
	const struct pane_ops *const *panes; /* the panes in screen order: panes[i] is screen i + 1 */
	struct pane_view *views;             /* their views (the panes count rows into them) */
	int ntiles;                          /* the overview shows panes 0 .. ntiles - 1 */
	int sessions;                        /* the sessions pane's index */
	bool sessions_tile;                  /* the overview shows the sessions pane */
	int screen;                          /* 0: the overview, else pane screen - 1 alone */
	int focus;                           /* the focused pane */
	bool zoom;                           /* the focused pane gets all the rows it can */
	bool focus_moved;                    /* Tab moved the focus: its need goes first */
	bool frozen;                         /* paused (space) */
};

/* The DOWN / STALLED reason across row y of scr when m is not UP; returns
 * the next free row. */
int frame_state_line(struct canvas *scr, const struct model *m, int y);
/* Findings from row y of scr: on the overview (pane NULL) the most severe
 * ones, on a pane the ones that belong to it; at most max rows. Returns
 * the next free row. */
int frame_findings(struct canvas *scr, const struct model *m, int y, const char *pane, int max);
/* The overview's panes in rows top .. top + h of scr: one column, or two
 * from 140 columns when one would cut a pane. */
void frame_overview(struct canvas *scr, const struct frame_in *in, int top, int h);
/* Pane in->screen - 1 alone in rows top .. top + h of scr. */
void frame_one_pane(struct canvas *scr, const struct frame_in *in, int top, int h);

#endif
