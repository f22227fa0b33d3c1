/* header.h - the screen's top line drawn on a canvas: dbtop, the state
 * (CONNECTING, UP, DOWN ..., STALLED ..., REPLAY, PAUSED, AT the moment
 * shown), dbtop's changes in force (TUNED), then as many whole fields as
 * fit (the host, the engine, the cost and clock, the interval, the
 * uptime). What it shows comes from an explicit header_in; the screen
 * (tui/ui.c) fills it. Also the line shown when the terminal is too small. */
#ifndef DBTOP_PANE_HEADER_H
#define DBTOP_PANE_HEADER_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/model.h"
#include "../record/history.h"
#include "../tune/tuner.h"
#include "canvas.h"

struct header_in {
	const struct model *m;      /* the model drawn */
	const struct model *live;   /* the live model (a frozen screen draws another) */
	const struct history *hist; /* the screen's history (time travel), NULL: none */
	const struct tune_view *tv; /* the shown server's tuning view */
	const char *name, *host;    /* the server shown: its name and label */
	int idx, n;                 /* its place among n targets (0-based) */
	double query_timeout;       /* its source's time limit, s */
	double interval;            /* the refresh interval, s */
	double speed;               /* a replay's --speed */
	double at_wall;             /* frozen: the moment shown, wall s (0: none) */
	double now_mono, now_wall;  /* the clocks now, s */
	bool replay, ended, paused; /* a replay; its end reached; frozen (space) */
};

/* "3d 04h", "5h 12m", "42m 10s"; "?" for s <= 0. */
void header_uptime(double s, char *buf, size_t len);
/* The header's state: CONNECTING, UP, DOWN ..., STALLED ..., then REPLAY,
 * PAUSED and AT when they hold. */
void header_state(const struct header_in *in, char *state, size_t len);
/* " TUNED n age[, reverts in ...] " while dbtop's setting changes are in
 * force, else "". */
void header_tuned(const struct header_in *in, char *tuned, size_t len);
/* The header on row 0 of cv (its whole width). */
void header_draw(struct canvas *cv, const struct header_in *in);
/* A terminal of cv's size under min_w x min_h: the longest message that
 * fits, on row 0. */
void header_too_small(struct canvas *cv, int min_w, int min_h);

#endif
