/* ui_int.h - what the screen's files share (ui.c: the loop, the frame and
 * the targets shown; keyact.c: what each key does): struct ui and the
 * functions each calls of the other. Not for other folders. */
#ifndef DBTOP_UI_INT_H
#define DBTOP_UI_INT_H

#include "ui.h"

#include <curses.h>
#include <errno.h>
#include <wchar.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <malloc.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../model/digests.h"
#include "../model/findings.h"
#include "../panes/ask.h"
#include "../panes/caption.h"
#include "../panes/fleet.h"
#include "../panes/fleetrows.h"
#include "../panes/frame.h"
#include "../panes/header.h"
#include "../panes/pane.h"
#include "../panes/timeline.h"
#include "../record/history.h"
#include "../util/redact.h"
#include "../util/util.h"
#include "curses_canvas.h"
#include "term.h"
#include "help.h"
#include "keys.h"
#include "../run/sampler.h"
#include "../run/sessact.h"
#include "../run/target.h"
#include "../run/travel.h"
#include "../run/tourseq.h"
#include "../run/tunectl.h"
#include "../run/watch.h"
#include "theme.h"

#define MIN_W 50
#define MIN_H 12
/* NPANES, NTILES (panes the overview may show) and the screen numbers:
 * panes/pane_list.h */
#define TUNING_SCREEN PANE_SCREEN(tuning)     /* the safe tuning pane's screen number */
#define SESSIONS_SCREEN PANE_SCREEN(sessions) /* the sessions pane's */
#define EVENTS_SCREEN PANE_SCREEN(events)     /* the event log's */

_Static_assert(SESSACT_MAX >= PANE_TAGS_MAX, "every tagged session is acted on");

extern const struct pane_ops *const panes[NPANES];

struct ui {
	struct travel tr; /* the model drawn, frozen or live, time travel (run/travel.h) */
	struct ui_opts *o;
	struct watch w;       /* the targets watched (run/watch.h): tg and ntg are its */
	struct watch_tgt *tg; /* every target (ntg >= 1) */
	int ntg;
	struct watch_tgt *t;         /* the one whose panes show; tuning, kill and cancel act on it */
	struct pane_view fleet_view; /* the fleet screen: selection, sort, filter */
	int screen;                  /* 0 overview, 1..6 one pane, SCREEN_FLEET the fleet */
	int focus;                   /* focused pane in the overview */
	struct pane_view views[NPANES];
	bool help, quit;
	int help_top;     /* first help row shown */
	int help_rows;    /* rows of the help in the last frame */
	int help_shown;   /* of them shown at once */
	bool zoom;        /* the overview gives the focused pane all the rows it can */
	bool focus_moved; /* Tab moved the focus: the focused pane's need goes first */
	bool filtering;   /* the / prompt is open */
	char fbuf[128];
	char ferr[160];
	char msg[200];
	double msg_until;
	int theme_idx;
	struct theme_spec theme;
	bool no_color, utf8;
	double interval;
	unsigned long frames;
	double frame_total, frame_max; /* s */
	struct pane_ask ask;           /* an action waiting for y / n */
	double first_full;             /* monotonic s of the first frame with rates, 0: none yet */
	struct tour_seq ts;            /* the demo tour: the incident playing (run/tourseq.h) */
};

/* ui.c */
void set_msg(struct ui *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void show_target(struct ui *u, struct watch_tgt *t);
bool sessions_tile(const struct ui *u);
void open_link(struct ui *u, const struct pane_link *l);
void sessions_explain(struct ui *u);
void event_go(struct ui *u, const struct event *e);
void jump_mark(struct ui *u, bool next);
void snapshot(struct ui *u);
struct watch_tgt *fleet_selected(struct ui *u);
void fleet_select(struct ui *u, const struct watch_tgt *t);
void open_server(struct ui *u, struct watch_tgt *t, int screen);
struct pane_view *focused_view(struct ui *u, int *idx);

/* keyact.c */
void handle_key(struct ui *u, int ch);
void tour_go(struct ui *u, int to);

#endif
