/* ui.c - the full-screen interface: header, screens of panes, key bar,
 * help and key bar generated from the key table (keys.c), filter prompt,
 * pause, themes.
 * With curses_canvas.c and theme_curses.c, the files that include curses.h. */
#include "ui.h"

#define NCURSES_WIDECHAR 1   /* mvinnwstr: the snapshot reads the screen back */
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

#define PANE_OPS_(name, screen, label, tile) &name##_pane,
static const struct pane_ops *const panes[NPANES] = {PANE_LIST(PANE_OPS_)};

/* Refresh interval steps for + and -, s. */
static const double intervals[] = {0.25, 0.5, 1, 2, 3, 5, 10, 15, 30, 60};
#define NINTERVALS (sizeof intervals / sizeof intervals[0])

struct ui {
	struct travel tr; /* the model drawn, frozen or live, time travel (run/travel.h) */
	struct ui_opts *o;
	struct watch w;       /* the targets watched (run/watch.h): tg and ntg are its */
	struct watch_tgt *tg; /* every target (ntg >= 1) */
	int ntg;
	struct watch_tgt *t;         /* the one whose panes show; tuning, kill and cancel act on it */
	struct pane_view fleet_view; /* the fleet screen: selection, sort, filter */
	int screen;            /* 0 overview, 1..6 one pane, SCREEN_FLEET the fleet */
	int focus;             /* focused pane in the overview */
	struct pane_view views[NPANES];
	bool help, quit;
	int help_top;          /* first help row shown */
	int help_rows;         /* rows of the help in the last frame */
	int help_shown;        /* of them shown at once */
	bool zoom;             /* the overview gives the focused pane all the rows it can */
	bool focus_moved;      /* Tab moved the focus: the focused pane's need goes first */
	bool filtering;        /* the / prompt is open */
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
	struct pane_ask ask;   /* an action waiting for y / n */
	double first_full;     /* monotonic s of the first frame with rates, 0: none yet */
	struct tour_seq ts;    /* the demo tour: the incident playing (run/tourseq.h) */
};

static void show_target(struct ui *u, struct watch_tgt *t);

/* Changes in force (for the crash message). */
static volatile sig_atomic_t tuned_active;

static volatile sig_atomic_t ui_signal;
static bool curses_on;

/* SIGINT / SIGTERM / SIGHUP: leave the loop and restore the terminal. */
static void on_quit_signal(int sig)
{
	ui_signal = sig;
}

/* A fatal signal: give the terminal back before dying. Installed with
 * SA_RESETHAND, and only the first fatal signal restores the terminal: a
 * fault inside endwin() (a corrupt heap, an abort()) goes straight to the
 * default action instead of entering this handler again. */
static void on_fatal_signal(int sig)
{
	static const char msg[] = "dbtop: crashed while setting changes were in force: they are in the undo "
				  "journal; start dbtop against the same server to revert them\n";
	static volatile sig_atomic_t in_fatal;
	if (!in_fatal) {
		in_fatal = 1;
		if (curses_on)
			endwin();
		if (tuned_active && write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
			/* nothing more to do */
		}
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Consecutive wake-ups with stdin readable and nothing to read. */
#define INPUT_EMPTY_MAX 3

/* The terminal went away without a SIGHUP reaching dbtop (a pty closed
 * whose controlling process is another, dbtop started in its own session,
 * a hang-up signal ignored by a wrapper): poll() reports POLLHUP, POLLERR
 * or POLLNVAL on stdin, or stdin is readable again and again with nothing
 * in it (read() returns 0 or EIO, getch() ERR). got_key: a key was read
 * on this wake-up; *empty counts the empty ones. */
static bool input_gone(short revents, bool got_key, int *empty)
{
	int n = 0;
	if (revents & (POLLHUP | POLLERR | POLLNVAL))
		return true;
	if (!(revents & POLLIN) || got_key || (ioctl(STDIN_FILENO, FIONREAD, &n) == 0 && n > 0)) {
		*empty = 0;
		return false;
	}
	return ++*empty >= INPUT_EMPTY_MAX;
}

/* How long to wait for the hang-up signal after the terminal is seen gone. */
#define HANGUP_SIGNAL_WAIT 1.0

/* The terminal is gone. When it had a session, the kernel sends its
 * foreground group SIGHUP and SIGCONT as the session ends, a few
 * milliseconds after the hang-up shows on stdin: take them now, before
 * the revert, so that they interrupt none of its queries (the handlers
 * have no SA_RESTART) and no stop a debugger or sanitizer asks for while
 * dbtop exits is cancelled by the SIGCONT. Bounded: a pty of dbtop's own
 * session sends nothing. */
static void await_hangup_signal(void)
{
	double until = clock_mono() + HANGUP_SIGNAL_WAIT;
	while (!ui_signal && clock_mono() < until)
		poll(NULL, 0, 50);
}

static void restore_terminal(void)
{
	if (curses_on) {
		endwin();
		curses_on = false;
	}
}

bool ui_possible(char *why, size_t len)
{
	const char *term = getenv("TERM");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		str_copy(why, len, "no terminal: use --batch for plain output");
		return false;
	}
	if (!term || !*term || strcmp(term, "dumb") == 0) {
		str_printf(why, len, "TERM=%s cannot show the screen: use --batch for plain output",
			   term ? term : "");
		return false;
	}
	return true;
}

/* ---- drawing ---- */

static void set_msg(struct ui *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_msg(struct ui *u, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(u->msg, sizeof u->msg, fmt, ap);
	va_end(ap);
	text_sanitize(u->msg);
	u->msg_until = clock_mono() + 4;
}

/* What run/watch.c says, on the message line (hold: s it stays). */
static void say_msg(void *arg, double hold, const char *msg)
{
	struct ui *u = arg;
	set_msg(u, "%s", msg);
	if (hold > 0)
		u->msg_until = clock_mono() + hold;
}

/* ---- the sessions screen (6) and its tile ---- */

/* The overview has the sessions tile: live (its showing asks for the
 * list), or a recording that holds session lists. */
static bool sessions_tile(const struct ui *u)
{
	return !u->o->replay || u->tr.m->sessions != NULL;
}

/* Tell the sampler whether the session list shows (screen 6 or its tile):
 * it is read only then. */
static void sessions_tick(struct ui *u)
{
	/* a recording keeps the list whatever shows, so its replay has it */
	/* screen 5 on PostgreSQL: whose sessions wait on the WAL flush (the
	 * scope a remedy is offered for) and which ones took a role's change */
	bool shows = u->screen == SESSIONS_SCREEN || (u->screen == 0 && sessions_tile(u)) || u->t->run.recording ||
		     (u->screen == TUNING_SCREEN && !u->o->replay && u->tr.m->caps.engine == ENGINE_POSTGRESQL);
	bool idle = (u->views[SESSIONS_SCREEN - 1].sort & SESSIONS_SHOW_IDLE) != 0;
	watch_sessions(&u->w, u->t, shows, idle, u->screen == SCREEN_FLEET);
}

/* A link from another pane (S on locks or digests): the sessions screen
 * on one session's details, or filtered on a digest. */
static void open_link(struct ui *u, const struct pane_link *l)
{
	struct pane_view *sv = &u->views[SESSIONS_SCREEN - 1];
	char err[160], pat[96];
	if (l->screen != SESSIONS_SCREEN)
		return;
	u->screen = SESSIONS_SCREEN;
	u->focus = SESSIONS_SCREEN - 1;
	sv->top = 0;
	if (l->id) {
		/* every class shown, no filter: the session is found if it is there */
		pane_filter_free(sv);
		sv->sort |= SESSIONS_SHOW_IDLE | SESSIONS_SHOW_BACKGROUND;
		sv->sel_id = l->id;
		sv->sel = sv->sel_drawn = 0;
		sv->details = true;
		set_msg(u, "session %lld (Esc: every session)", l->id);
		return;
	}
	str_printf(pat, sizeof pat, "^digest:%s$", l->digest);
	if (pane_filter_set(sv, pat, err, sizeof err) < 0) {
		set_msg(u, "filter: %s", err);
		return;
	}
	sv->details = false;
	sv->sel = sv->sel_drawn = 0;
	sv->sel_id = 0;
	set_msg(u, "sessions running digest %s now (/ and Enter on an empty pattern: every session)", l->digest);
}

/* e on screen 6: ask for the plan of the selected session's statement
 * (the source refuses what it must not explain, before any SQL). */
static void sessions_explain(struct ui *u)
{
	struct pane_view *sv = &u->views[SESSIONS_SCREEN - 1];
	char why[200];
	const struct session *s = sessions_selected(u->tr.m, sv, why, sizeof why);
	if (!s) {
		set_msg(u, "no plan: %s", why);
		return;
	}
	char said[200];
	bool asked = watch_explain(&u->w, u->t, s->id, &s->ident, said, sizeof said);
	set_msg(u, "%s", said);
	if (!asked)
		return;
	sv->sel_id = s->id;
	sv->details = true;
}

/* ---- the frame: what each part shows, drawn on the screen's canvas ---- */

static bool timeline_shown(const struct ui *u);
static void draw_timeline(struct ui *u, int y);

/* Every target's fleet row (rows: u->ntg of them). */
static void fleet_rows(struct ui *u, struct fleet_row *rows)
{
	double now = clock_wall();
	for (int i = 0; i < u->ntg; i++)
		fleet_row_of(&rows[i], i, &u->tg[i].run, u->interval, u->o->replay || u->tr.paused, now);
}

/* The fleet screen: its header and one row per server (panes/fleetrows.c,
 * panes/fleet.c). */
static void draw_fleet(struct ui *u, struct canvas *scr)
{
	struct fleet_row *rows = xcalloc((size_t)u->ntg, sizeof *rows);
	fleet_rows(u, rows);
	struct canvas head = cv_sub(scr, 0, 0, 1, COLS), cv = cv_sub(scr, 1, 0, LINES - 2, COLS);
	fleet_header_draw(&head, rows, u->ntg, u->interval, u->tr.paused, clock_wall());
	fleet_draw(rows, u->ntg, &u->fleet_view, &cv);
	free(rows);
}

/* The shown server's header (panes/header.c). */
static void draw_header(struct ui *u, struct canvas *scr)
{
	const struct header_in h = {.m = u->tr.m,
				    .live = u->tr.live,
				    .hist = u->o->hist,
				    .tv = &u->t->tc.tv,
				    .name = u->t->run.name,
				    .host = u->t->run.host,
				    .idx = (int)(u->t - u->tg),
				    .n = u->ntg,
				    .query_timeout = u->t->run.src->query_timeout,
				    .interval = u->interval,
				    .speed = u->o->speed,
				    .at_wall = u->tr.at_wall,
				    .now_mono = clock_mono(),
				    .now_wall = clock_wall(),
				    .replay = u->o->replay,
				    .ended = u->tr.ended,
				    .paused = u->tr.paused};
	struct canvas cv = cv_sub(scr, 0, 0, 1, COLS);
	header_draw(&cv, &h);
}

/* The key bar (tui/keybar.c); the message while it lasts. */
static void draw_keybar(struct ui *u, struct canvas *scr)
{
	const struct keybar_in k = {.screen = u->screen,
				    .several = u->ntg > 1,
				    .filtering = u->filtering,
				    .fbuf = u->fbuf,
				    .ferr = u->ferr,
				    .asking = u->ask.act != PA_NONE,
				    .msg = clock_mono() < u->msg_until ? u->msg : NULL};
	struct canvas cv = cv_sub(scr, LINES - 1, 0, 1, COLS);
	keybar_draw(&cv, &k);
}

/* The help over the screen (tui/help.c); it scrolls (u->help_top). */
static void draw_help(struct ui *u, struct canvas *scr)
{
	const struct help_in h = {.screen = u->screen,
				  .several = u->ntg > 1,
				  .top = u->help_top,
				  .title = u->screen > 0 && u->screen <= NPANES ? panes[u->screen - 1]->title : ""};
	u->help_top = help_draw(scr, &h, &u->help_rows, &u->help_shown);
}

/* The tour's caption (or --caption) above the key bar and the timeline
 * (panes/caption.c): the incident, then the newest caption of its track
 * at the recording's time. Returns the rows it takes: 0 without one. */
static int draw_caption(struct ui *u, struct canvas *scr)
{
	char cap[400];
	if (!u->o->tour && !u->o->caption)
		return 0;
	if (u->o->tour) {
		const struct tour_stop *t = &u->o->tour[u->ts.at];
		double at = u->tr.m->intervals > 0 ? u->tr.m->last.wall - u->t->run.src->start_wall : 0;
		const char *text = "";
		for (const struct tour_caption *c = t->cap; c && c->text; c++)
			if (c->at <= at)
				text = c->text;
		caption_tour_text(cap, sizeof cap, u->ts.at, u->ts.n, t->name, text, u->tr.ended, u->o->speed, COLS);
	} else {
		str_printf(cap, sizeof cap, " %s", u->o->caption);
	}
	return caption_draw(scr, LINES - 1 - timeline_shown(u), cap);
}

/* The body of a server's screen: its panes and their views
 * (panes/frame.c). */
static void draw_body(struct ui *u, struct canvas *scr, int top, int h)
{
	const struct frame_in f = {.m = u->tr.m,
				   .panes = panes,
				   .views = u->views,
				   .ntiles = NTILES,
				   .sessions = SESSIONS_SCREEN - 1,
				   .sessions_tile = sessions_tile(u),
				   .screen = u->screen,
				   .focus = u->focus,
				   .zoom = u->zoom,
				   .focus_moved = u->focus_moved,
				   .frozen = u->tr.paused};
	if (u->screen == 0)
		frame_overview(scr, &f, top, h);
	else
		frame_one_pane(scr, &f, top, h);
}

/* The frame-time figures of a frame that took dt s from t0, and a travel
 * key's, from the key to the frame drawn. */
static void frame_timed(struct ui *u, double t0, double dt)
{
	if (!u->first_full && u->tr.m->intervals >= 2 && u->tr.m->last.state == STATE_UP)
		u->first_full = t0 + dt;
	u->frames++;
	u->frame_total += dt;
	if (dt > u->frame_max)
		u->frame_max = dt;
	travel_drawn(&u->tr);
}

static void draw_frame(struct ui *u)
{
	double t0 = clock_mono();
	struct canvas scr = curses_canvas_at(u->utf8, 0, 0, LINES, COLS);
	curses_canvas_erase();
	if (COLS < MIN_W || LINES < MIN_H) {
		header_too_small(&scr, MIN_W, MIN_H);
		refresh();
		return;
	}
	if (u->screen == SCREEN_FLEET) {
		draw_fleet(u, &scr);
		draw_keybar(u, &scr);
		if (u->help)
			draw_help(u, &scr);
		refresh();
		u->frames++;
		double dt = clock_mono() - t0;
		u->frame_total += dt;
		if (dt > u->frame_max)
			u->frame_max = dt;
		return;
	}
	draw_header(u, &scr);
	int top = frame_state_line(&scr, u->tr.m, 1);
	top = frame_findings(&scr, u->tr.m, top, u->screen == 0 ? NULL : panes[u->screen - 1]->name,
			     LINES >= 30   ? 3
			     : LINES >= 20 ? 2
					   : 1);
	int caprows = draw_caption(u, &scr);
	int h = LINES - 1 - top - timeline_shown(u) - caprows;
	if (timeline_shown(u))
		draw_timeline(u, LINES - 2);
	draw_body(u, &scr, top, h);
	draw_keybar(u, &scr);
	if (u->help)
		draw_help(u, &scr);
	if (u->ask.act)
		ask_draw(&scr, &u->ask, u->o->replay);
	refresh();
	frame_timed(u, t0, clock_mono() - t0);
}

/* ---- the timeline, marks and the snapshot ---- */

/* The timeline takes a row of its own from 30 rows; below that only on
 * the event log (screen 7): at 80x24 the overview's six panes need every
 * row, and { } work without it (the message line names the mark). */
static bool timeline_shown(const struct ui *u)
{
	return LINES >= 30 || u->screen == EVENTS_SCREEN;
}

/* The timeline (panes/timeline.c) over the span time travel covers
 * (run/travel.h); the cursor: the moment shown while frozen, else the
 * mark chosen. */
static void draw_timeline(struct ui *u, int y)
{
	struct canvas cv = curses_canvas_at(u->utf8, y, 0, 1, COLS);
	double t0, t1;
	travel_timeline(&u->tr, &u->t->run.ev, u->t->run.ev_start, &t0, &t1);
	double at = u->tr.paused && u->tr.m->intervals ? u->tr.m->last.wall : u->tr.tl_cursor;
	timeline_draw(&cv, &u->t->run.ev, t0, t1, at, u->o->replay ? "end" : "now");
}

/* Go to event e's moment: the view freezes on the kept sample nearest it
 * (travel_to_event: every pane shows that moment, the header says AT), the
 * timeline's cursor on it, its line in the message line; on the event
 * log its row selected. The one place Enter and { } travel from. */
static void event_go(struct ui *u, const struct event *e)
{
	char t[16], line[400];
	travel_to_event(&u->tr, e, u->interval);
	event_time_text(e->wall, false, t, sizeof t);
	event_text(e, line, sizeof line);
	set_msg(u, "%s %s: %s", t, event_kind_name(e->kind), line);
	u->msg_until = clock_mono() + 10;
	if (u->screen == EVENTS_SCREEN) {
		struct pane_view *v = &u->views[EVENTS_SCREEN - 1];
		for (int i = 0;; i++) {
			v->sel = i;
			const struct event *x = events_selected(v);
			if (!x || x == e)
				break;
		}
		/* without a history there is no moment to show: its details */
		v->details = !(u->o->hist && u->o->hist->n) && events_selected(v);
	}
}

/* { and }: the previous / next mark from the one chosen (from now when
 * none); past the newest, back to now. */
static void jump_mark(struct ui *u, bool next)
{
	const struct event *best = travel_mark(&u->tr, &u->t->run.ev, next);
	if (best) {
		event_go(u, best);
		return;
	}
	set_msg(u, next             ? "no later mark: back to now"
		   : u->t->run.ev.n ? "no earlier mark"
				    : "no mark yet on the timeline");
}

/* The screen as drawn, one line per row, trailing blanks cut. */
static void screen_text(struct strbuf *out)
{
	wchar_t w[1024];
	char mb[4096];
	for (int y = 0; y < LINES; y++) {
		int n = mvinnwstr(y, 0, w, COLS < 1023 ? COLS : 1023);
		if (n < 0)
			n = 0;
		w[n] = L'\0';
		size_t l = wcstombs(mb, w, sizeof mb - 1);
		if (l == (size_t)-1)
			l = 0;
		while (l > 0 && mb[l - 1] == ' ')
			l--;
		sb_put(out, mb, l);
		sb_putc(out, '\n');
	}
}

/* w: the screen as plain text and the JSON record of the moment shown,
 * in dbtop-snapshot-YYYYmmdd-HHMMSS.txt / .json (-2, -3 ... when taken),
 * mode 0600; the message line says where. */
static void snapshot(struct ui *u)
{
	const char *dir = u->o->snapshot_dir && *u->o->snapshot_dir ? u->o->snapshot_dir : ".";
	char said[sizeof u->msg];
	struct strbuf st;
	sb_init(&st);
	u->msg[0] = '\0';   /* the screen without the message line of an earlier key */
	draw_frame(u);
	screen_text(&st);
	watch_snapshot(&u->w, u->t, u->tr.m, dir, &st, u->o->snapshot_json, said, sizeof said);
	set_msg(u, "%s", said);
	sb_free(&st);
	u->msg_until = clock_mono() + 15;
}

/* ---- the fleet: selection ---- */

/* The server selected on the fleet (its row now, as the keys moved the
 * selection since the last frame), or NULL. */
static struct watch_tgt *fleet_selected(struct ui *u)
{
	struct fleet_row *rows = xcalloc((size_t)u->ntg, sizeof *rows);
	const struct fleet_row **order = xcalloc((size_t)u->ntg, sizeof *order);
	fleet_rows(u, rows);
	int n = fleet_order(rows, u->ntg, &u->fleet_view, order);
	/* the server the frame showed selected, where a re-sort put it */
	int sel = pane_target(&u->fleet_view, n, fleet_row_key, order);
	struct watch_tgt *t = sel >= 0 ? &u->tg[order[sel]->idx] : NULL;
	free(order);
	free(rows);
	return t;
}

/* Select target t's row on the fleet (when the filter shows it). */
static void fleet_select(struct ui *u, const struct watch_tgt *t)
{
	struct fleet_row *rows = xcalloc((size_t)u->ntg, sizeof *rows);
	const struct fleet_row **order = xcalloc((size_t)u->ntg, sizeof *order);
	fleet_rows(u, rows);
	int n = fleet_order(rows, u->ntg, &u->fleet_view, order);
	for (int i = 0; i < n; i++)
		if (order[i]->idx == (int)(t - u->tg)) {
			u->fleet_view.sel = u->fleet_view.sel_drawn = i;
			fleet_row_key(order, i, u->fleet_view.sel_key, sizeof u->fleet_view.sel_key);
		}
	free(order);
	free(rows);
}

/* Open target t's screen: its overview from the fleet, the same screen
 * when another server's shows (n / p). */
static void open_server(struct ui *u, struct watch_tgt *t, int screen)
{
	show_target(u, t);
	u->screen = screen;
	if (screen > 0)
		u->focus = screen - 1;
	set_msg(u, "%s (%s): Esc on the overview or F returns to the fleet, n / p the next / previous server",
		t->run.name, t->run.host);
}

/* ---- input ---- */

static struct pane_view *focused_view(struct ui *u, int *idx)
{
	if (u->screen == SCREEN_FLEET) {
		*idx = 0;
		return &u->fleet_view;
	}
	*idx = u->screen == 0 ? u->focus : u->screen - 1;
	return &u->views[*idx];
}

static void change_interval(struct ui *u, int dir)
{
	size_t i, k = 0;
	if (u->o->replay) {
		set_msg(u, "replay: the recording sets the pace (--speed)");
		return;
	}
	for (i = 0; i < NINTERVALS; i++)
		if (fabs(intervals[i] - u->interval) < 1e-9)
			k = i;
		else if (intervals[i] < u->interval)
			k = i;
	if (dir > 0 && k + 1 < NINTERVALS)
		k++;
	else if (dir < 0 && k > 0 && intervals[k] >= u->interval)
		k--;
	u->interval = intervals[k];
	for (int t = 0; t < u->ntg; t++)   /* every server keeps the one interval */
		sampler_set_interval(&u->tg[t].sp, u->interval);
	set_msg(u, "refresh every %gs", u->interval);
}

static void next_theme(struct ui *u)
{
	char err[200];
	u->theme_idx = theme_cycle[u->theme_idx + 1] ? u->theme_idx + 1 : 0;
	theme_load(theme_cycle[u->theme_idx], &u->theme, err, sizeof err);
	theme_apply(&u->theme, u->no_color);
	set_msg(u, "theme %s%s", u->theme.name, u->no_color ? " (NO_COLOR: attributes only)" : "");
}

/* A key while the filter prompt is open. */
static void filter_key(struct ui *u, int ch)
{
	int idx;
	struct pane_view *v = focused_view(u, &idx);
	size_t n = strlen(u->fbuf);
	if (ch == KEY_ESC) {
		u->filtering = false;
		return;
	}
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		if (pane_filter_set(v, u->fbuf, u->ferr, sizeof u->ferr) == 0) {
			u->filtering = false;
			v->sel = v->top = 0;
			set_msg(u, u->fbuf[0] ? "filter /%s/ on %s" : "filter cleared%s", u->fbuf,
				!u->fbuf[0] ? "" : u->screen == SCREEN_FLEET ? "the fleet" : panes[idx]->name);
		}
		return;
	}
	if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (n)
			u->fbuf[n - 1] = '\0';
		u->ferr[0] = '\0';
		return;
	}
	if (ch >= 32 && ch < 127 && n + 1 < sizeof u->fbuf) {
		u->fbuf[n] = (char)ch;
		u->fbuf[n + 1] = '\0';
		u->ferr[0] = '\0';
	}
}

/* A replay asked to act on the server (what: "ending a session", ...):
 * the one place that says it cannot; true then. */
static bool recording_refuses(struct ui *u, const char *what)
{
	if (!u->o->replay)
		return false;
	set_msg(u, "this is a recording: %s needs a live server; nothing was done", what);
	u->msg_until = clock_mono() + 10;
	return true;
}

/* y / n on a tuning confirmation. */
static void tune_answer(struct ui *u, bool yes)
{
	enum target_cmd_kind what = u->ask.act == PA_TUNE_APPLY  ? CMD_TUNE_APPLY
				    : u->ask.act == PA_TUNE_KEEP ? CMD_TUNE_KEEP
								 : CMD_TUNE_UNDO_ALL;
	if (!yes)
		set_msg(u, u->ask.act == PA_TUNE_ORPHANS ? "left in force: U reverts them; so do quitting and the next start"
							 : "not done: nothing was changed");
	else if (u->o->read_only)
		set_msg(u, "read-only session (--read-only): nothing is changed");
	else if (recording_refuses(u, what == CMD_TUNE_KEEP ? "keeping a setting" : "changing a setting"))
		;
	else if (!watch_tune(u->t, what, u->ask.id, u->ask.value, &u->ask.to))
		set_msg(u, "another action is still running: nothing done");
	else
		set_msg(u, "%s ...",
			what == CMD_TUNE_APPLY  ? "applying"
			: what == CMD_TUNE_KEEP ? "keeping"
						: "reverting");
	u->ask.act = PA_NONE;
}

/* u / U: undo the newest change or all of them. */
static void undo_changes(struct ui *u, bool all)
{
	if (recording_refuses(u, "reverting a setting"))
		return;
	if (u->t->tc.tv.nactive == 0)
		set_msg(u, "no setting changed by dbtop is in force");
	else if (u->o->read_only)
		set_msg(u, "read-only session (--read-only): nothing is changed");
	else if (!watch_tune(u->t, all ? CMD_TUNE_UNDO_ALL : CMD_TUNE_UNDO, 0, NULL, NULL))
		set_msg(u, "another action is still running: try again");
	else
		set_msg(u, "reverting %s ...", all ? "every change" : "the newest change");
}

/* Opening screen 5: select the row the most severe finding's remedy is
 * on (the finding and a then name the same setting and value). */
static void select_remedy(struct ui *u)
{
	int r = tuning_row_of(u->tr.m, findings_top_remedy(u->tr.m->findings.f, u->tr.m->findings.n));
	if (r >= 0)
		u->views[TUNING_SCREEN - 1].sel = r;
}

/* y / anything else to the question asked to end or cancel a session. */
static void session_answer(struct ui *u, bool yes)
{
	if (yes) {
		int what = u->ask.act == PA_TERMINATE ? SRC_ACT_TERMINATE : SRC_ACT_CANCEL;
		if (recording_refuses(u, what == SRC_ACT_TERMINATE ? "ending a session" : "cancelling a statement")) {
			/* (said here: a paused replay's worker waits in its clock) */
		} else if (sessact_send(&u->t->sa, &u->t->sp, what, u->ask.id, &u->ask.who, u->ask.nmore,
					u->ask.more_id, u->ask.more_who)) {
			set_msg(u, "%s session %lld ...", what == SRC_ACT_TERMINATE ? "ending" : "cancelling the statement of",
				u->ask.id);
			if (u->ask.nmore > 0)
				sessions_untag_all(&u->views[SESSIONS_SCREEN - 1]); /* acted on: untagged */
		} else
			set_msg(u, "another action is still running: nothing done");
	} else {
		set_msg(u, "not done: session %lld left alone", u->ask.id);
	}
	u->ask.act = PA_NONE;
}

/* A key while the help shows: the scroll keys scroll it; any other key
 * closes it, and only that. */
static void help_key(struct ui *u, int ch)
{
	int d = key_help_scroll(ch), page = u->help_shown > 1 ? u->help_shown - 1 : 1;
	if (d == 0)
		u->help = false;
	else
		u->help_top = d == -3 ? 0 : d == 3 ? u->help_rows : u->help_top + (d == -2 ? -page : d == 2 ? page : d);
}

/* A key with no binding here (or a terminal too small for any): q still
 * quits; a key bound on another screen says where it works. */
static void unbound_key(struct ui *u, int ch)
{
	const struct key_bind *q = key_find(ch, 0);
	if (q && q->act == KA_QUIT)   /* too small a terminal: q still quits */
		u->quit = true;
	for (int s = 0; s <= SCREEN_MAX + 1 && !u->quit && COLS >= MIN_W; s++) {
		const struct key_bind *o = key_find(ch, s > SCREEN_MAX ? SCREEN_FLEET : s);
		if (o) {
			/* bound elsewhere: say where, do nothing here */
			char where[64];
			key_where_text(o, where, sizeof where);
			if (u->screen == SCREEN_FLEET && (o->where & KW_ALL) == KW_ALL)
				set_msg(u, "%s works on a server's screens, not on the fleet (Enter opens the selected server)",
					o->name);
			else
				set_msg(u, "%s does nothing here; it works on: %s", o->name, where);
			break;
		}
	}
}

/* Keep the selection on a row of the view. */
static void clamp_sel(struct pane_view *v)
{
	if (v->sel < 0)
		v->sel = 0;
	if (v->nrows > 0 && v->sel >= v->nrows)
		v->sel = v->nrows - 1;
}

/* What a binding does, one function per action of keys.h: u, the focused
 * pane (idx) and its view v, the binding b and the key code ch. */
struct key_ctx {
	struct ui *u;
	struct pane_view *v;
	int idx;
	const struct key_bind *b;
	int ch;
};

/* Bytes of a statement y copies at most (terminals cap OSC 52). */
#define COPY_MAX 65536

/* y: text on the terminal's clipboard with OSC 52, written past curses
 * (the terminal takes it, or tmux / screen; over SSH too). */
static void copy_to_clipboard(struct ui *u, const char *text)
{
	size_t n = utf8_cut_len(text, COPY_MAX);
	struct strbuf b;
	sb_init(&b);
	osc52_append(&b, text, n);
	bool sent = fwrite(b.s, 1, b.len, stdout) == b.len && fflush(stdout) == 0;
	sb_free(&b);
	set_msg(u, sent ? "copied %zu bytes%s by OSC 52 (some terminals need it on: tmux set-clipboard on)"
			: "could not write to the terminal (%zu bytes%s): nothing copied",
		n, n < strlen(text) ? ", cut" : "");
	u->msg_until = clock_mono() + 10;
}

static void act_pane(const struct key_ctx *k)
{
	struct ui *u = k->u;
	struct pane_view *v = k->v;
	/* the pane's command by name (its table), and what it asks for */
	struct pane_reaction r = pane_command(panes[k->idx], k->b->command, u->tr.m, v);
	if (!r.handled) {
		set_msg(u, "%s: not in the %s pane", k->b->name, panes[k->idx]->name);
		clamp_sel(v);
		return;
	}
	if (r.copy) {
		copy_to_clipboard(u, r.copy);
		free(r.copy);
	}
	if (r.ask.act) {
		u->ask = r.ask;
		u->msg[0] = '\0';   /* the confirmation replaces the message */
	}
	if (r.link.screen)
		open_link(u, &r.link);
	if (r.status[0])
		set_msg(u, "%s", r.status);
}

static void act_quit(const struct key_ctx *k) { k->u->quit = true; }
static void act_help(const struct key_ctx *k) { k->u->help = true; k->u->help_top = 0; }
static void act_slower(const struct key_ctx *k) { change_interval(k->u, +1); }
static void act_faster(const struct key_ctx *k) { change_interval(k->u, -1); }
static void act_theme(const struct key_ctx *k) { next_theme(k->u); }
static void act_undo(const struct key_ctx *k) { undo_changes(k->u, k->b->act == KA_UNDO_ALL); }
static void act_explain(const struct key_ctx *k) { sessions_explain(k->u); }
static void act_snapshot(const struct key_ctx *k) { snapshot(k->u); }
static void act_mark(const struct key_ctx *k) { jump_mark(k->u, k->b->act == KA_MARK_NEXT); }

/* ---- time travel ---- */

/* Space: freeze, or back to live. */
static void act_pause(const struct key_ctx *k)
{
	struct ui *u = k->u;
	if (u->tr.paused)
		travel_live(&u->tr);
	else
		travel_freeze(&u->tr);
	set_msg(u, u->tr.paused ? u->o->replay ? "paused: data frozen, the replay clock stopped (space resumes)  "
						 "Left Right [ ] step through time"
					       : "paused: data frozen (space resumes)  Left Right [ ] step through time"
				: "resumed");
}

/* Left Right [ ] (and PgUp PgDn Home End while frozen): travel. */
static void act_travel(const struct key_ctx *k)
{
	const char *msg = travel_command(&k->u->tr, k->b->cmd, k->u->interval);
	if (msg)
		set_msg(k->u, "%s", msg);
}

void ui_travel_to(struct ui *u, double wall)
{
	const char *msg = travel_to(&u->tr, wall, u->interval);
	if (msg)
		set_msg(u, "%s", msg);
}

bool ui_history_range(const struct ui *u, double *oldest, double *newest)
{
	return travel_range(&u->tr, oldest, newest);
}

static void act_filter(const struct key_ctx *k)
{
	struct ui *u = k->u;
	u->filtering = true;
	str_copy(u->fbuf, sizeof u->fbuf, k->v->filter_text);
	u->ferr[0] = '\0';
}

static void act_zoom(const struct key_ctx *k)
{
	struct ui *u = k->u;
	u->zoom = !u->zoom;
	if (u->zoom)
		set_msg(u, "the %s pane zoomed: z again shares the rows", panes[k->idx]->name);
	else
		set_msg(u, "rows shared by need (z zooms the focused pane)");
}

static void act_enter(const struct key_ctx *k)
{
	struct ui *u = k->u;
	if (u->screen == SCREEN_FLEET) {
		struct watch_tgt *t = fleet_selected(u);
		if (t)
			open_server(u, t, 0);
		else
			set_msg(u, "no server selected");
		return;
	}
	if (u->screen == 0 && u->focus + 1 == TUNING_SCREEN)
		select_remedy(u);
	if (u->screen == 0)
		u->screen = u->focus + 1;
	else if (u->screen == EVENTS_SCREEN && !k->v->details && events_selected(k->v)) {
		event_go(u, events_selected(k->v));
		if (u->tr.paused) { /* landed: every pane at that moment */
			u->screen = 0;
			str_printf(u->msg + strlen(u->msg), sizeof u->msg - strlen(u->msg), "  (7: the event log)");
		}
	}
	else if (k->v->nrows > 0)
		k->v->details = !k->v->details;
	else
		set_msg(u, "nothing to show details of");
}

static void act_back(const struct key_ctx *k)
{
	struct ui *u = k->u;
	if (u->screen == SCREEN_FLEET)
		;   /* the top */
	else if (k->v->details)
		k->v->details = false;
	else if (u->screen != 0)
		u->screen = 0;
	else if (u->ntg > 1) {
		u->screen = SCREEN_FLEET;
		fleet_select(u, u->t);
	}
	u->msg[0] = '\0';
}

static void act_focus(const struct key_ctx *k)
{
	struct ui *u = k->u;
	int np = NTILES - !sessions_tile(u);
	u->focus = (u->focus + (k->b->act == KA_FOCUS_NEXT ? 1 : np - 1)) % np;
	u->focus_moved = true;
}

static void act_screen(const struct key_ctx *k)
{
	struct ui *u = k->u;
	if (u->screen == SCREEN_FLEET) {
		/* the selected server's screen */
		struct watch_tgt *t = fleet_selected(u);
		if (!t) {
			set_msg(u, "no server selected");
			return;
		}
		show_target(u, t);
		u->screen = 0;
	}
	if (k->ch - '0' == TUNING_SCREEN && u->screen != TUNING_SCREEN)
		select_remedy(u);
	u->screen = k->ch - '0';
	if (u->screen > 0 && u->screen <= NTILES)
		u->focus = u->screen - 1;
}

/* F: the fleet screen. */
static void act_fleet(const struct key_ctx *k)
{
	struct ui *u = k->u;
	if (u->ntg < 2) {
		set_msg(u, "one server: the fleet screen shows with several targets (dbtop TARGET TARGET ..., --targets FILE)");
		return;
	}
	u->screen = SCREEN_FLEET;
	/* the row of the server shown is selected */
	fleet_select(u, u->t);
	u->msg[0] = '\0';
}

/* n / p: the next / previous server; on the fleet, the next / previous row. */
static void act_server(const struct key_ctx *k)
{
	struct ui *u = k->u;
	int d = k->b->act == KA_NEXT_SERVER ? 1 : -1;
	if (u->ntg < 2) {
		set_msg(u, "one server: n and p move between several targets");
		return;
	}
	if (u->screen == SCREEN_FLEET) {
		k->v->sel_follow = true;
		k->v->sel += d;
		if (k->v->sel < 0)
			k->v->sel = k->v->nrows - 1;
		else if (k->v->sel >= k->v->nrows)
			k->v->sel = 0;
		return;
	}
	int i = (int)(u->t - u->tg);
	open_server(u, &u->tg[(i + d + u->ntg) % u->ntg], u->screen);
}

/* s on the fleet: the next sort order. */
static void act_fleet_sort(const struct key_ctx *k)
{
	k->v->sort = (k->v->sort + 1) % FS__COUNT;
	pane_sel_reset(k->v);
	set_msg(k->u, "fleet sorted by %s", fleet_sort_name(k->v->sort));
}

/* The selection keys: rows to move (KA_HOME / KA_END: to the ends). */
static void act_move(const struct key_ctx *k)
{
	struct pane_view *v = k->v;
	if (k->u->tr.paused && k->u->o->hist && k->b->act >= KA_PGUP && k->b->act <= KA_END &&
	    (k->ch == KEY_PPAGE || k->ch == KEY_NPAGE || k->ch == KEY_HOME || k->ch == KEY_END)) {
		/* frozen: PgUp PgDn a minute, Home the oldest, End live (g and G
		 * still select the first and last row) */
		static const int tr[] = {TR_PREV_MIN, TR_NEXT_MIN, TR_OLDEST, TR_LIVE};
		struct key_bind b = *k->b;
		struct key_ctx kk = *k;
		b.cmd = tr[k->b->act - KA_PGUP];
		kk.b = &b;
		act_travel(&kk);
		return;
	}
	/* a row chosen: from now on the selection follows it (its session,
	 * digest, server) as refreshes reorder the list */
	v->sel_follow = true;
	switch (k->b->act) {
	case KA_UP: v->sel--; break;
	case KA_DOWN: v->sel++; break;
	case KA_PGUP: v->sel -= 10; break;
	case KA_PGDN: v->sel += 10; break;
	case KA_HOME: v->sel = 0; break;
	case KA_END: v->sel = v->nrows - 1; break;
	default: break;
	}
}

/* The demo tour: play incident to instead (the same screen; the sampler
 * restarted on the reopened source, what the screen kept of the previous
 * incident forgotten). */
static void tour_go(struct ui *u, int to)
{
	if (!tourseq_go(&u->ts, to, &u->t->run, &u->t->sp, &u->t->tc, &u->tr, u->o->interval)) {
		u->quit = true;
		return;
	}
	u->t->sessions_wanted = false;
	u->ask.act = PA_NONE;
	u->msg[0] = '\0';
	for (int p = 0; p < NPANES; p++) {
		pane_sel_reset(&u->views[p]);
		u->views[p].details = false;
		u->views[p].sel_id = 0;
	}
	sessions_untag_all(&u->views[SESSIONS_SCREEN - 1]);
}

/* > / <: the next or previous incident of the demo tour. */
static void act_tour(const struct key_ctx *k)
{
	struct ui *u = k->u;
	int to;
	const char *none = tourseq_step(&u->ts, k->b->act == KA_TOUR_NEXT ? 1 : -1, &to);
	if (!u->o->tour)
		set_msg(u, "%s: only in the demo tour (dbtop --demo)", k->b->name);
	else if (none)
		set_msg(u, "%s", none);
	else
		tour_go(u, to);
}

/* Each action of keys.h and the function that does it. */
static void (*const key_actions[])(const struct key_ctx *) = {
	[KA_QUIT] = act_quit,
	[KA_HELP] = act_help,
	[KA_PAUSE] = act_pause,
	[KA_SLOWER] = act_slower,
	[KA_FASTER] = act_faster,
	[KA_FILTER] = act_filter,
	[KA_THEME] = act_theme,
	[KA_ENTER] = act_enter,
	[KA_BACK] = act_back,
	[KA_FOCUS_NEXT] = act_focus,
	[KA_FOCUS_PREV] = act_focus,
	[KA_ZOOM] = act_zoom,
	[KA_SCREEN] = act_screen,
	[KA_UNDO] = act_undo,
	[KA_UNDO_ALL] = act_undo,
	[KA_SNAPSHOT] = act_snapshot,
	[KA_MARK_PREV] = act_mark,
	[KA_MARK_NEXT] = act_mark,
	[KA_UP] = act_move,
	[KA_DOWN] = act_move,
	[KA_PGUP] = act_move,
	[KA_PGDN] = act_move,
	[KA_HOME] = act_move,
	[KA_END] = act_move,
	[KA_PANE] = act_pane,
	[KA_EXPLAIN] = act_explain,
	[KA_TOUR_NEXT] = act_tour,
	[KA_TOUR_PREV] = act_tour,
	[KA_FLEET] = act_fleet,
	[KA_NEXT_SERVER] = act_server,
	[KA_PREV_SERVER] = act_server,
	[KA_FLEET_SORT] = act_fleet_sort,
	[KA_TRAVEL] = act_travel,
};

static void handle_key(struct ui *u, int ch)
{
	int idx;
	struct pane_view *v = focused_view(u, &idx);
	if (u->filtering) {
		filter_key(u, ch);
		return;
	}
	if (u->ask.act >= PA_TUNE_APPLY && ch != KEY_RESIZE) {
		tune_answer(u, ch == 'y' || ch == 'Y');
		return;
	}
	if (u->ask.act && ch != KEY_RESIZE) {
		session_answer(u, ch == 'y' || ch == 'Y');
		return;
	}
	if (ch == KEY_RESIZE)
		return;
	if (u->help) {
		help_key(u, ch);
		return;
	}
	const struct key_bind *b = COLS >= MIN_W && LINES >= MIN_H ? key_find(ch, u->screen) : NULL;
	if (!b) {
		unbound_key(u, ch);
		return;
	}
	if (b->acts && u->tr.paused && u->tr.at_built) {
		/* the screen shows a past moment: the session or setting may be
		 * another now */
		set_msg(u, "%s acts on the server as it is now, not at the moment shown: End goes live first",
			b->name);
		return;
	}
	struct key_ctx k = {.u = u, .v = v, .idx = idx, .b = b, .ch = ch};
	if ((size_t)b->act < sizeof key_actions / sizeof key_actions[0] && key_actions[b->act])
		key_actions[b->act](&k);
	if (b->act != KA_PANE)   /* a pane's key keeps its own selection */
		clamp_sel(v);
}

/* Tuning upkeep in the loop (run/watch.c): the orphans' question asked
 * here. True when the screen changed. */
static bool tuning_tick(struct ui *u)
{
	struct watch_ask a;
	bool askable = !u->ask.act && u->tr.m->intervals > 0 && u->screen != SCREEN_FLEET;
	watch_tuning(&u->w, u->t, askable, u->screen == TUNING_SCREEN, &a);
	if (!u->o->replay)
		tuned_active = a.active > 0;
	if (a.orphans) {
		u->ask.act = PA_TUNE_ORPHANS;
		u->ask.id = 0;
		str_copy(u->ask.what, sizeof u->ask.what, a.text);
	}
	return a.changed;
}

/* While the revert at exit waits on target t: it is drawn with the message. */
static void exit_show(void *arg, struct watch_tgt *t, const char *msg)
{
	struct ui *u = arg;
	struct watch_tgt *shown = u->t;
	struct model *drawn = u->tr.m;
	u->t = t;
	u->tr.m = t == shown ? drawn : t->run.m;
	set_msg(u, "%s", msg);
	draw_frame(u);
	u->t = shown;
	u->tr.m = drawn;
}

/* Curses on, with the signal handlers, the input modes and the theme.
 * -1 (said on stderr) when the terminal cannot show the screen. */
static int screen_start(struct ui *u)
{
	static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	struct sigaction sa;
	char err[200];
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		fprintf(stderr, "dbtop: this terminal (TERM=%s) cannot show the screen: use --batch\n",
			getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	curses_on = true;
	atexit(restore_terminal);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_quit_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	for (int i = 0; i < (int)(sizeof fatal / sizeof fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	if (has_colors())
		start_color();
	if (has_colors()) {
		use_default_colors();
	}
	if (theme_load(u->o->theme ? u->o->theme : "dark", &u->theme, err, sizeof err) < 0)
		set_msg(u, "theme: %s (using dark)", err);
	for (int i = 0; theme_cycle[i]; i++)
		if (strcmp(theme_cycle[i], u->theme.name) == 0)
			u->theme_idx = i;
	theme_apply(&u->theme, u->no_color || !has_colors());
	/* ncurses (6.2 - 6.4) flushes its output after every cursor movement
	 * until the screen has once come back from endwin(): a frame became
	 * ~60 small write(2)s to the terminal instead of one. Leave and
	 * re-enter once, before anything is drawn, to get buffered output. */
	def_prog_mode();
	endwin();
	refresh();
	return 0;
}

/* The screen's loop: samples, action results, tuning upkeep and keys,
 * until q, a signal or the terminal going away. */
/* How long to wait for input or a sample, ms. The idle redraw keeps the
 * clock and the ages moving once a second; when the next sample is due
 * just after that second it is waited for instead, so a 1 s refresh draws
 * one frame a second, not a second one a few ms before each sample. */
static int idle_wait_ms(const struct ui *u, double last_take, double now)
{
	double due = last_take + u->interval - now; /* s until the next sample */
	if (last_take > 0 && !u->o->replay && due > 0 && due < 1.15)
		return (int)(due * 1000) + 150;
	return 1000;
}

static void screen_loop(struct ui *u)
{
	int input_empty = 0;
	double last_take = 0; /* monotonic s the newest sample came */
	struct pollfd pf[1 + FLEET_TARGETS_MAX];
	while (!u->quit && !ui_signal) {
		pf[0] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
		for (int i = 0; i < u->ntg; i++)
			pf[1 + i] = (struct pollfd){.fd = !travel_takes(&u->tr) ? -1 : u->tg[i].sp.wake[0],
						    .events = POLLIN};
		bool dirty = false;
		int ch, pr = poll(pf, (nfds_t)(1 + u->ntg), idle_wait_ms(u, last_take, clock_mono()));
		if (pr < 0 && errno != EINTR)
			break;
		if (watch_take(&u->w)) {
			dirty = true;
			last_take = clock_mono();
		}
		if (watch_results(&u->w, u->t))
			dirty = true;
		if (tuning_tick(u))
			dirty = true;
		if (u->o->tour && tourseq_due(&u->ts, &u->tr, u->o->speed, clock_mono())) {
			/* the tour goes on by itself a moment after an incident ends */
			tour_go(u, u->ts.at + 1);
			dirty = true;
		}
		sessions_tick(u);
		if (watch_plans(&u->w))
			dirty = true;
		bool got_key = false;
		while ((ch = getch()) != ERR) {
			if (ch == '\r')
				ch = '\n';
			handle_key(u, ch);
			dirty = true;
			got_key = true;
			if (u->quit)
				break;
		}
		if (got_key)
			sessions_tick(u);   /* a screen change or i: from the next refresh */
		if (pr > 0 && !u->quit && input_gone(pf[0].revents, got_key, &input_empty)) {
			/* as on SIGHUP: revert what is in force, then exit */
			await_hangup_signal();
			ui_signal = SIGHUP;
			break;
		}
		if (dirty || pr == 0 || (pr < 0 && errno == EINTR))
			draw_frame(u);
	}
}

/* Show target t: its model drawn, its tuning view and plan in the panes,
 * its session list read (from the next refresh). */
static void show_target(struct ui *u, struct watch_tgt *t)
{
	if (t != u->t) {
		/* what was selected belongs to the other server */
		struct pane_view *sv = &u->views[SESSIONS_SCREEN - 1];
		sessions_untag_all(sv);
		sv->sel_id = 0;
		sv->details = false;
		for (int p = 0; p < NPANES; p++)
			pane_sel_reset(&u->views[p]);
	}
	u->t = t;
	travel_show(&u->tr, t->run.m, t->run.src, &t->sp);
	for (int p = 0; p < NPANES; p++)
		u->views[p].tune = &t->tc.tv;
	sessions_show_plan(&u->views[SESSIONS_SCREEN - 1], &t->plan);
	for (int p = 0; p < NPANES; p++)
		u->views[p].events = &t->run.ev;
	sessions_tick(u);
}

/* The screen's state for n targets: each target's pipeline, the views,
 * the first screen, the terminal's character set. */
static struct ui *ui_new(const struct ui_target *tgts, int n, struct ui_opts *o)
{
	struct ui *u = xcalloc(1, sizeof *u);
	u->o = o;
	struct watch_spec *spec = xcalloc((size_t)n, sizeof *spec);
	for (int i = 0; i < n; i++)
		spec[i] = (struct watch_spec){tgts[i].name, tgts[i].host,  tgts[i].src,
					      tgts[i].m,    tgts[i].tuner, tgts[i].rec};
	watch_init(&u->w, spec, n, o->hist, o->replay, o->read_only);
	free(spec);
	u->w.tr = &u->tr;
	u->w.tour_end = &u->ts.end;
	u->w.say = say_msg;
	u->w.say_arg = u;
	u->w.on_update = o->on_update;
	u->w.on_update_arg = o->on_update_arg;
	u->ntg = n;
	u->tg = u->w.tg;
	u->t = &u->tg[0];
	travel_init(&u->tr, o->hist, o->replay, n > 1);
	travel_show(&u->tr, u->t->run.m, u->t->run.src, &u->t->sp);
	u->interval = o->interval;
	u->ts = (struct tour_seq){.n = o->tour_n, .at = o->tour_at, .open = o->tour_open, .ctx = o->tour_ctx};
	for (int i = 0; i < NPANES; i++) {
		pane_view_init(&u->views[i], panes[i]);
		u->views[i].read_only = o->read_only;
		u->views[i].replay = o->replay;
		u->views[i].hide = o->hide ? o->hide[i + 1] : 0;
	}
	/* several targets: the fleet first */
	u->screen = n > 1 ? SCREEN_FLEET : o->screen > 0 && o->screen <= SCREEN_MAX ? o->screen : 0;
	setlocale(LC_ALL, "");
	u->utf8 = !o->ascii && strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	u->no_color = getenv("NO_COLOR") && *getenv("NO_COLOR");
	return u;
}

static void ui_free(struct ui *u)
{
	watch_free(&u->w);
	for (int i = 0; i < NPANES; i++) {
		pane_filter_free(&u->views[i]);
		pane_view_free(&u->views[i], panes[i]);
	}
	pane_filter_free(&u->fleet_view);
	travel_free(&u->tr);
	free(u);
}

int ui_run_targets(const struct ui_target *tgts, int n, struct ui_opts *o)
{
	/* one malloc arena: the sampler threads would otherwise get their own */
	mallopt(M_ARENA_MAX, 1);
	/* a step back in time rebuilds a model: keep the freed heap for the
	 * next one instead of giving it back and faulting it in again */
	mallopt(M_TRIM_THRESHOLD, 32 << 20);
	struct ui *u = ui_new(tgts, n, o);
	if (screen_start(u) < 0) {
		free(u->w.tg);
		free(u);
		return 1;
	}
	int started;
	if (watch_start(&u->w, o->interval, &started) < 0) {
		restore_terminal();
		fprintf(stderr, "dbtop: cannot start the sampler: %s\n", strerror(errno));
		/* the ones started run until the exit */
		o->worker_running = started > 0;
		return 1;
	}
	show_target(u, u->t);
	draw_frame(u);
	screen_loop(u);
	const struct watch_frames fs = {u->frames,    COLS,
					LINES,        u->frame_total,
					u->frame_max, u->first_full > 0 ? u->first_full - o->start_mono : -1};
	watch_frame_stats(getenv("DBTOP_FRAME_STATS"), &fs, &u->tr);
	if (!o->replay)
		ui_signal = 0;
	watch_revert_on_exit(&u->w, exit_show, u, o->exit_msg, sizeof o->exit_msg);
	bool joined = watch_stop(&u->w);
	restore_terminal();
	if (!joined) {
		o->worker_running = true;
		return 0;
	}
	ui_free(u);
	return 0;
}

int ui_run(struct source *src, struct model *m, struct ui_opts *o)
{
	struct ui_target t = {.name = "", .host = o->host, .src = src, .m = m, .tuner = o->tuner, .rec = o->rec};
	return ui_run_targets(&t, 1, o);
}
