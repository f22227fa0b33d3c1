/* ui.c - the full-screen interface: header, screens of panes, key bar,
 * help and key bar generated from the key table (keys.c), filter prompt,
 * pause, themes.
 * The only file besides theme_curses.c that includes curses.h. */
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
#include "../panes/fleet.h"
#include "../panes/pane.h"
#include "../panes/timeline.h"
#include "../record/history.h"
#include "../util/redact.h"
#include "../util/util.h"
#include "keys.h"
#include "../run/sampler.h"
#include "../run/sessact.h"
#include "../run/target.h"
#include "../run/travel.h"
#include "../run/tourseq.h"
#include "../run/tunectl.h"
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

/* One server the screen watches: its model, source and sampler, and what
 * the screen keeps of it (tuning view, explain, the tagged sessions still
 * to act on, its recording). The screen shows one at a time (struct
 * ui.t); the others keep sampling and their models keep updating. */
struct ui_tgt {
	/* its pipeline (run/target.h): name, label, source, model, tuner
	 * (owned by its sampler thread while it runs), recording, event log
	 * (screen 7, the timeline, recordings), DOWN spell */
	struct target_run run;
	struct sampler sp;
	struct tune_ctl tc;    /* its tuning view and policy (run/tunectl.h) */
	struct pane_plan plan; /* the newest explain of a session (the sessions pane shows it) */
	bool sessions_wanted;  /* the sampler was last told the session list shows */
	bool sessions_idle;    /* ... with idle sessions listed (i) */
	struct sess_act sa;    /* x / c: the action its sampler runs, the tagged sessions still to act on */
};

struct ui {
	struct travel tr; /* the model drawn, frozen or live, time travel (run/travel.h) */
	struct ui_opts *o;
	struct ui_tgt *tg;     /* every target (ntg >= 1) */
	int ntg;
	struct ui_tgt *t;      /* the one whose panes show; tuning, kill and cancel act on it */
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

static void show_target(struct ui *u, struct ui_tgt *t);

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

/* ---- the curses canvas ---- */

/* A character wider (or narrower) than one column was drawn since the
 * screen was last erased: cells may belong to a wide character. */
static bool frame_has_wide;

/* Code points in s (UTF-8). */
static int code_points(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

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
	if (!frame_has_wide && code_points(s) != ncols)
		frame_has_wide = true;
}

static const struct canvas_ops curses_canvas = {.put = curses_put};

/* A canvas for the screen rectangle. */
static struct canvas screen_canvas(const struct ui *u, int y, int x, int h, int w)
{
	struct canvas cv = {.ops = &curses_canvas, .y0 = y, .x0 = x, .h = h, .w = w, .utf8 = u->utf8};
	return cv;
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

/* "3d 04h", "5h 12m", "42m 10s". */
static void fmt_uptime(double s, char *buf, size_t len)
{
	long t = (long)s;
	if (s <= 0)
		str_copy(buf, len, "?");
	else if (t >= 86400)
		str_printf(buf, len, "%ldd %02ldh", t / 86400, t % 86400 / 3600);
	else if (t >= 3600)
		str_printf(buf, len, "%ldh %02ldm", t / 3600, t % 3600 / 60);
	else
		str_printf(buf, len, "%ldm %02lds", t / 60, t % 60);
}

/* The header's state: CONNECTING, UP, DOWN ..., STALLED ..., then REPLAY
 * and PAUSED when they hold. */
static void header_state(const struct ui *u, char *state, size_t len)
{
	const struct model *m = u->tr.m;
	const struct sample *s = &m->last;
	if (m->intervals == 0)
		str_copy(state, len, "CONNECTING");
	else if (s->state == STATE_DOWN && !u->o->replay && s->mono + s->retry_in <= clock_mono())
		/* the attempt is under way (up to --connect-timeout): no new
		 * sample until it ends */
		str_copy(state, len, "DOWN - reconnecting");
	else if (s->state == STATE_DOWN)
		str_printf(state, len, "DOWN - retrying in %.0fs",
			   d_ceil(u->o->replay ? s->retry_in : s->mono + s->retry_in - clock_mono()));
	else if (s->state == STATE_STALLED)
		str_printf(state, len, "STALLED: query exceeded %.1fs", u->t->run.src->query_timeout);
	else
		str_copy(state, len, "UP");
	if (u->o->replay) {
		size_t l = strlen(state);
		str_printf(state + l, len - l, u->tr.ended ? "  REPLAY ended" : "  REPLAY x%g", u->o->speed);
	}
	if (u->tr.paused) {
		size_t l = strlen(state);
		str_printf(state + l, len - l, "  PAUSED");
	}
	if (u->tr.paused && u->o->hist && u->tr.at_wall > 0) {
		/* the moment shown and how far back from now (a replay: from
		 * the newest sample it has reached) */
		double oldest, newest, ago;
		char at[16];
		time_t t = (time_t)u->tr.at_wall;
		struct tm tm;
		localtime_r(&t, &tm);
		strftime(at, sizeof at, "%H:%M:%S", &tm);
		if (!hist_range(u->o->hist, &oldest, &newest))
			newest = u->tr.at_wall;
		if (u->tr.live->intervals > 0 && u->tr.live->last.wall > newest)
			newest = u->tr.live->last.wall; /* (the history stopped: the replay went on) */
		ago = (u->o->replay ? newest : clock_wall()) - u->tr.at_wall;
		long a = ago > 0 ? (long)(ago + 0.5) : 0;
		size_t l = strlen(state);
		if (a >= 60)
			str_printf(state + l, len - l, "  AT %s  -%ldm%02lds", at, a / 60, a % 60);
		else
			str_printf(state + l, len - l, "  AT %s  -%lds", at, a);
	}
}

/* " TUNED n age[, reverts in ...] " while dbtop's setting changes are in
 * force, else "". */
static void header_tuned(const struct ui *u, char *tuned, size_t len)
{
	tuned[0] = '\0';
	if (u->t->tc.tv.nactive <= 0)
		return;
	double now = u->t->tc.tv.at_wall > 0 ? u->t->tc.tv.at_wall : clock_wall();
	double oldest = u->t->tc.tv.active[u->t->tc.tv.nactive - 1].wall, age = now - oldest;
	long a = age > 0 ? (long)age : 0;
	str_printf(tuned, len, " TUNED %d %ldm%02lds ", u->t->tc.tv.nactive, a / 60, a % 60);
	/* --tune-ttl counts on the monotonic clock (a wall clock step moves
	 * neither the revert nor this countdown) */
	double first = 0;
	for (int i = 0; i < u->t->tc.tv.nactive; i++)
		if (u->t->tc.tv.active[i].mono > 0 && (first == 0 || u->t->tc.tv.active[i].mono < first))
			first = u->t->tc.tv.active[i].mono;
	if (u->t->tc.tv.ttl > 0 && first > 0) {
		long left = (long)(u->t->tc.tv.ttl - (clock_mono() - first));
		size_t l = strlen(tuned);
		str_printf(tuned + l - 1, len - l + 1, ", reverts in %ldm%02lds ", left > 0 ? left / 60 : 0,
			   left > 0 ? left % 60 : 0);
	}
}

/* Which of the header's fields (engine, host, uptime, interval) fit in
 * room columns beside the right part (cost and clock, or the clock alone
 * when short: right is rewritten then), by priority: the host, the
 * engine, the right part, the interval, the uptime. Sets on[]; true when
 * the right part shows. */
static bool header_fit(const char *const fields[4], bool on[4], char *right, size_t rlen, const char *clock,
		       int room)
{
	static const int prio[] = {1, 0, 4, 3};   /* fields[] by priority: host, engine, (clock), every, up */
	int rw = text_cols(right);
	bool show_right = false;
	for (int p = 0; p < 5; p++) {
		if (p == 2) {
			if (room < rw) {
				/* the clock alone, without the cost */
				str_printf(right, rlen, "  %s ", clock);
				rw = text_cols(right);
			}
			if (room >= rw) {
				show_right = true;
				room -= rw;
			}
			continue;
		}
		for (int i = 0; i < 4; i++) {
			int c = text_cols(fields[i]);
			if (prio[i] != p || !c || c > room)
				continue;
			on[i] = true;
			room -= c;
		}
	}
	return show_right;
}

static void draw_header(struct ui *u)
{
	const struct model *m = u->tr.m;
	const struct sample *s = &m->last;
	struct canvas cv = screen_canvas(u, 0, 0, 1, COLS);
	char right[128], state[160], up[32], clock[16];
	bool bad = m->intervals > 0 && s->state != STATE_UP;
	time_t t = (time_t)(m->intervals ? s->wall : time(NULL));
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(clock, sizeof clock, "%H:%M:%S", &tm);
	header_state(u, state, sizeof state);
	char tuned[96];
	header_tuned(u, tuned, sizeof tuned);
	/* version without the distribution suffix: "10.11.19", "15.18" */
	char ver[32];
	str_copy(ver, sizeof ver, m->caps.version);
	ver[strspn(ver, "0123456789.")] = '\0';
	if (s->uptime_s > 0) {
		char u2[32];
		fmt_uptime(s->uptime_s, u2, sizeof u2);
		str_printf(up, sizeof up, "  up %s", u2);
	} else {
		up[0] = '\0';
	}
	str_printf(right, sizeof right, "  cost %.1fms  %s ", s->query_ms, clock);
	cv_fill(&cv, 0, 0, COLS, bad ? R_HEADER_DOWN : R_HEADER);
	/* the state first: it matters most, and must survive a narrow terminal */
	int x = cv_text(&cv, 0, 0, R_HEADER, " dbtop ");
	x += cv_text(&cv, 0, x, bad ? R_HEADER_DOWN : R_HEADER, state);
	if (tuned[0]) {
		x += cv_text(&cv, 0, x, R_HEADER, " ");
		x += cv_text(&cv, 0, x, R_CRIT, tuned);
	}
	/* then as many whole fields as fit; the host may be shortened, with a mark */
	char every[32], eng[64];
	str_printf(every, sizeof every, "  every %gs",
		   u->o->replay && isfinite(m->interval_s) ? d_round(m->interval_s * 100) / 100 : u->interval);
	str_printf(eng, sizeof eng, "  %s %s", flavour_name(m->caps.flavour), ver);
	/* then as many whole fields as fit, by priority: the host, the engine,
	 * the cost and clock (or the clock alone), the interval, the uptime;
	 * the host is cut (marked) only when nothing else is left beside the
	 * state */
	char host[160];
	if (u->ntg > 1)   /* several servers: the one shown, by its name */
		str_printf(host, sizeof host, "  [%d/%d] %s (%s)", (int)(u->t - u->tg) + 1, u->ntg, u->t->run.name,
			   u->t->run.host);
	else
		str_printf(host, sizeof host, "  %s", u->t->run.host);
	const char *fields[4] = {eng, host, up, every};
	bool on[4] = {false};
	bool show_right = header_fit(fields, on, right, sizeof right, clock, COLS - x);
	for (int i = 0; i < 4; i++)
		if (on[i])
			x += cv_text(&cv, 0, x, R_HEADER, fields[i]);
	if (!on[1] && COLS - x > 8) {
		/* not even the host fits whole: its start, with the cut marked */
		char cut[200];
		str_printf(cut, sizeof cut, "  %s", u->ntg > 1 ? u->t->run.name : u->t->run.host);
		struct canvas hc = cv_sub(&cv, 0, x, 1, COLS - x);
		cv_text(&hc, 0, 0, R_HEADER, cut);
	}
	if (show_right)
		cv_text_right(&cv, 0, COLS, R_HEADER, right);
}

static void draw_keybar(struct ui *u)
{
	struct canvas cv = screen_canvas(u, LINES - 1, 0, 1, COLS);
	int x = 0;
	size_t i;
	if (u->filtering) {
		x = cv_text(&cv, 0, 0, R_KEY, "filter /");
		x += cv_text(&cv, 0, x, R_NORMAL, u->fbuf);
		x += cv_text(&cv, 0, x, R_SELECTED, " ");
		if (u->ferr[0])
			cv_text(&cv, 0, x + 2, R_CRIT, u->ferr);
		else
			cv_text(&cv, 0, x + 2, R_KEYTEXT, "Enter apply  Esc cancel");
		return;
	}
	if (u->ask.act) {
		/* a confirmation is open: its answer, not an older message */
		cv_text(&cv, 0, 0, R_KEY, "y");
		cv_text(&cv, 0, 1, R_KEYTEXT, " does it, any other key declines");
		return;
	}
	if (u->msg[0] && clock_mono() < u->msg_until) {
		cv_text(&cv, 0, 0, R_NOTE, u->msg);
		return;
	}
	/* the bindings of this screen that have a bar label, whole ones only */
	for (i = 0; i < key_nbinds && x < COLS; i++) {
		const struct key_bind *b = &key_binds[i];
		if (!b->bar || !(b->where & KW_SCREEN(u->screen)) || (u->ntg < 2 && key_fleet_only(b)))
			continue;
		const char *sp = strchr(b->bar, ' ');
		char k[16];
		str_printf(k, sizeof k, "%.*s", (int)(sp - b->bar), b->bar);
		if (x + text_cols(b->bar) > COLS)
			break;
		x += cv_text(&cv, 0, x, R_KEY, k);
		x += cv_text(&cv, 0, x, R_KEYTEXT, sp);
		x += cv_text(&cv, 0, x, R_KEYTEXT, "  ");
	}
}

/* Title line of a pane: number, title, filter, status. */
static void draw_title(struct ui *u, struct canvas *cv, int idx, bool focused)
{
	struct pane_view *v = &u->views[idx];
	char t[256];
	int x;
	cv_fill(cv, 0, 0, cv->w, focused ? R_SELECTED : R_TITLE);
	str_printf(t, sizeof t, "[%d] %s", idx + 1, panes[idx]->title);
	x = cv_text(cv, 0, 0, focused ? R_SELECTED : R_TITLE, t);
	if (v->filter_text[0]) {
		str_printf(t, sizeof t, "  filter /%s/ (%d rows)", v->filter_text, v->nrows);
		x += cv_text(cv, 0, x, focused ? R_SELECTED : R_TITLE, t);
	}
	if (v->nshown < v->nrows && !v->details) {
		/* the pane is cut: say how much shows */
		str_printf(t, sizeof t, "  %d of %d rows", v->nshown, v->nrows);
		x += cv_text(cv, 0, x, focused ? R_SELECTED : R_TITLE, t);
	}
	if (u->zoom && u->screen == 0 && focused)
		x += cv_text(cv, 0, x, R_SELECTED, "  zoomed (z)");
	if (idx == 0 && u->tr.m->nsettings == 0 && u->tr.m->intervals > 0)
		cv_text(cv, 0, x, R_TITLE, "");
}

/* Notes of the connection (what is missing and how to fix it). */
static int draw_notes(struct ui *u, struct canvas *cv, int y)
{
	const struct caps *c = &u->tr.m->caps;
	int i;
	for (i = 0; i < c->notes.n && y < cv->h; i++) {
		char t[NOTE_LEN + 8];
		str_printf(t, sizeof t, "note: %s", c->notes.msg[i]);
		y = cv_wrap(cv, y, 0, R_NOTE, t, cv->h);
	}
	return y;
}

/* A pane with its title line in the rectangle. */
static void draw_tile(struct ui *u, int idx, int y, int x, int h, int w, bool focused)
{
	struct canvas cv = screen_canvas(u, y, x, h, w);
	struct canvas body = cv_sub(&cv, 1, 0, h - 1, w);
	struct pane_view *v = &u->views[idx];
	if (h < 1 || w < 1)
		return;
	v->focused = focused;
	v->full = u->screen != 0;
	v->frozen = u->tr.paused;
	v->nshown = v->nrows = 0;
	if (panes[idx] == &digests_pane)   /* o in the digests pane: dbtop's own statements too */
		digest_table_show_own(&u->tr.m->dg, (v->sort & DIGESTS_SHOW_OWN) != 0);
	if (body.h > 0)
		panes[idx]->draw(u->tr.m, v, &body); /* first: it counts the rows the title shows */
	draw_title(u, &cv, idx, focused);
}

/* The down / stalled reason across the content area's first line. */
static int draw_state_line(struct ui *u, int y)
{
	const struct sample *s = &u->tr.m->last;
	struct canvas cv = screen_canvas(u, y, 0, 1, COLS);
	if (u->tr.m->intervals == 0 || s->state == STATE_UP || !s->error[0])
		return y;
	cv_printf(&cv, 0, 0, R_CRIT, "%s: %s", s->state == STATE_DOWN ? "DOWN" : "STALLED", s->error);
	return y + 1;
}

/* Findings: on the overview the most severe ones, on a pane the ones that
 * belong to it; at most max lines. Returns the next free row. */
static int draw_findings(struct ui *u, int y, const char *pane, int max)
{
	const struct finding *f = u->tr.m->findings.f;
	size_t n = u->tr.m->findings.n, mine = 0;
	for (size_t i = 0; i < n; i++)
		mine += !pane || strcmp(f[i].pane, pane) == 0;
	/* the overview keeps the rows of a finding cleared a moment ago
	 * (findings.recent), so the panes do not jump when it comes back */
	size_t keep = !pane && u->tr.m->findings.recent > mine ? u->tr.m->findings.recent : mine;
	/* the overview: a finding may take two lines when all of them can */
	int each = !pane && (int)keep * 2 <= max ? 2 : 1;
	for (size_t i = 0; i < n && max > 0; i++) {
		if (pane && strcmp(f[i].pane, pane) != 0)
			continue;
		enum role r = f[i].severity == SEV_INFO ? R_NOTE : f[i].severity == SEV_WARN ? R_WARN : R_CRIT;
		char line[900], held[112] = "";
		/* held by the hysteresis: its evidence is of that many refreshes
		 * ago; or the rule holds under another cause not yet confirmed */
		if (f[i].pending)
			str_printf(held, sizeof held, " (%d of %d refreshes point at %s)", f[i].pending_run,
				   hold_rule_for(f[i].id)->cause_run, f[i].pending);
		else if (f[i].quiet > 0)
			str_printf(held, sizeof held, " (not seen the last %d refresh%s)", f[i].quiet,
				   f[i].quiet == 1 ? "" : "es");
		/* the overview: what and what to do; the pane: the evidence too */
		struct canvas cv = screen_canvas(u, y, 0, 1, COLS);
		cv_fill(&cv, 0, 0, COLS, R_NORMAL);
		if (!pane || max < 2) {
			str_printf(line, sizeof line, "%s %s%s -> %s", f[i].severity == SEV_CRIT ? "!!" : "!",
				   f[i].summary, held, f[i].suggestion);
			if (each == 2 && wrap_rows(line, COLS) > 1) {
				struct canvas two = screen_canvas(u, y, 0, 2, COLS);
				cv_fill(&two, 1, 0, COLS, R_NORMAL);
				cv_wrap(&two, 0, 0, r, line, 2);
				y += 2;
				max -= 2;
				continue;
			}
			cv_text(&cv, 0, 0, r, line);
			y++;
			max--;
			continue;
		}
		str_printf(line, sizeof line, "%s %s%s: %s", f[i].severity == SEV_CRIT ? "!!" : "!", f[i].summary, held,
			   f[i].evidence);
		cv_text(&cv, 0, 0, r, line);
		struct canvas cv2 = screen_canvas(u, y + 1, 0, 1, COLS);
		cv_fill(&cv2, 0, 0, COLS, R_NORMAL);
		str_printf(line, sizeof line, "   -> %s", f[i].suggestion);
		cv_text(&cv2, 0, 0, R_NOTE, line);
		y += 2;
		max -= 2;
	}
	for (int extra = (int)(keep - mine) * each; extra > 0 && max > 0; extra--, max--, y++) {
		struct canvas cv = screen_canvas(u, y, 0, 1, COLS);
		cv_fill(&cv, 0, 0, COLS, R_NORMAL);
	}
	return y;
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
	for (int i = 0; i < u->ntg; i++) {
		struct ui_tgt *t = &u->tg[i];
		bool want = shows && t == u->t;   /* only the shown target's list is read */
		sampler_set_background(&t->sp, u->ntg > 1 && (u->screen == SCREEN_FLEET || t != u->t));
		if (want == t->sessions_wanted && idle == t->sessions_idle)
			continue;
		t->sessions_wanted = want;
		t->sessions_idle = idle;
		if (!u->o->replay)
			sampler_want_sessions(&t->sp, want, idle);
	}
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
	if (u->o->replay) {
		set_msg(u, "no plan: explain asks a live server (this is a recording)");
		return;
	}
	if (u->t->plan.pending) {
		set_msg(u, "a plan is still being asked for (session %lld)", u->t->plan.id);
		return;
	}
	if (!sampler_explain_request(&u->t->sp, s->id, &s->ident)) {
		set_msg(u, "a plan is still being asked for: try again");
		return;
	}
	u->t->plan.id = s->id;
	u->t->plan.ok = false;
	u->t->plan.pending = true;
	u->t->plan.text[0] = '\0';
	sv->sel_id = s->id;
	sv->details = true;
	set_msg(u, "explaining the statement of session %lld ...", s->id);
}

/* The plan asked for, once it is there. True when the screen changed. */
static bool sessions_plan_tick(struct ui *u)
{
	bool any = false;
	for (int i = 0; i < u->ntg; i++) {
		struct ui_tgt *t = &u->tg[i];
		int rc;
		char *plan = NULL, err[NOTE_LEN];
		if (!t->plan.pending || !sampler_explain_result(&t->sp, &rc, &plan, err, sizeof err))
			continue;
		t->plan.pending = false;
		t->plan.ok = rc == 0 && plan;
		str_copy(t->plan.text, sizeof t->plan.text, t->plan.ok ? plan : err[0] ? err : "the server gave no plan");
		free(plan);
		any = true;
	}
	return any;
}

/* Overview priority of a pane: lower goes first for rows beyond the
 * minimums: the focused pane after Tab, the lock tree while sessions wait
 * (min > 1), then rates, digests, waits, tuning. */
static int tile_prio(const struct ui *u, int idx, int min)
{
	static const int prio[NPANES] = {1, 2, 0, 3, 4, 6, 7};
	if (idx == u->focus && (u->focus_moved || u->zoom))
		return -1;
	return idx == 2 && min <= 1 ? 5 : prio[idx];
}

/* Heights (title row included) of the n panes list[] stacked in h rows of
 * width w: every pane first gets the rows of its minimum (a pane with
 * nothing to show: its one-line summary), then the rest goes by priority up
 * to each one's need; when even the minimums do not fit, the lowest
 * priority give way first. Zoomed: the focused pane goes first and the
 * others' minimum is their one-line summary. */
static void plan_column(struct ui *u, const int *list, int n, int w, int h, int *out)
{
	int need[NPANES], min[NPANES], order[NPANES], used = 0, i, k;
	for (i = 0; i < n; i++) {
		const struct pane_ops *p = panes[list[i]];
		min[i] = 1;
		need[i] = p->need ? p->need(u->tr.m, &u->views[list[i]], w, &min[i]) : p->min_h;
		if (min[i] < 1)
			min[i] = 1;
		if (u->zoom && list[i] != u->focus)
			min[i] = 1;   /* zoomed: the others keep their one-line summary */
		if (need[i] < min[i])
			need[i] = min[i];
		out[i] = 1 + min[i];
		used += out[i];
		order[i] = i;
	}
	/* priority order, highest first */
	for (i = 1; i < n; i++)
		for (k = i; k > 0 && tile_prio(u, list[order[k - 1]], min[order[k - 1]]) >
				    tile_prio(u, list[order[k]], min[order[k]]); k--) {
			int t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	/* too short for the minimums: the lowest priority shrink to their
	 * summary first, then to their title; the first in priority last */
	static const int pass[4][2] = {{2, 1}, {1, 1}, {2, 0}, {1, 0}};   /* floor, panes kept out */
	for (int p = 0; p < 4 && used > h; p++)
		for (i = n - 1; i >= pass[p][1] && used > h; i--) {
			/* cppcheck-suppress uninitvar ; order[0..n) is set by the first loop, i < n */
			int j = order[i];
			int cut = out[j] - pass[p][0];
			if (cut <= 0)
				continue;
			if (cut > used - h)
				cut = used - h;
			out[j] -= cut;
			used -= cut;
		}
	/* the rest by priority and need */
	for (i = 0; i < n && used < h; i++) {
		int j = order[i], more = 1 + need[j] - out[j];
		if (more > h - used)
			more = h - used;
		if (more > 0) {
			out[j] += more;
			used += more;
		}
	}
	/* every need met: what is left goes to a pane that can use it (a lock
	 * tree wrapped, pane_ops.want), then to the last pane */
	for (i = 0; i < n && used < h; i++) {
		int j = order[i];
		const struct pane_ops *p = panes[list[j]];
		int more = p->want ? 1 + p->want(u->tr.m, &u->views[list[j]], w) - out[j] : 0;
		if (more > h - used)
			more = h - used;
		if (more > 0) {
			out[j] += more;
			used += more;
		}
	}
	if (used < h && n > 0)
		out[n - 1] += h - used;
}

static void draw_column(struct ui *u, const int *list, int n, int top, int x, int w, int h)
{
	int hh[NPANES], y = top;
	plan_column(u, list, n, w, h, hh);
	for (int i = 0; i < n; i++) {
		draw_tile(u, list[i], y, x, hh[i], w, u->focus == list[i]);
		y += hh[i];
	}
}

/* The rows the n panes of list need stacked at width w, titles included. */
static int column_need(struct ui *u, const int *list, int n, int w)
{
	int sum = 0, min;
	for (int i = 0; i < n; i++) {
		int p = list[i];
		sum += 1 + (panes[p]->need ? panes[p]->need(u->tr.m, &u->views[p], w, &min) : panes[p]->min_h);
	}
	return sum;
}

/* True when the panes stacked at full width need more than h rows. */
static bool column_cuts(struct ui *u, int h)
{
	int sum = 0, min;
	for (int i = 0; i < NTILES; i++)
		if (i != SESSIONS_SCREEN - 1 || sessions_tile(u))
			sum += 1 +
			       (panes[i]->need ? panes[i]->need(u->tr.m, &u->views[i], COLS, &min) : panes[i]->min_h);
	return sum > h;
}

static void draw_overview(struct ui *u, int top, int h)
{
	/* two columns on a wide terminal when one would cut a pane */
	if (COLS >= 140 && column_cuts(u, h)) {
		/* rates and digests on the left, the rest on the right, a rule
		 * between; the sessions go left when all of them fit there */
		static const int left[] = {0, 1, 5}, right[] = {2, 3, 4, 5};
		int lw = COLS * 11 / 20, rw = COLS - lw - 1;
		struct canvas cv = screen_canvas(u, top, lw, h, 1);
		bool sess = sessions_tile(u);
		bool sess_left = sess && column_need(u, left, 3, lw) <= h;
		draw_column(u, left, 2 + sess_left, top, 0, lw, h);
		draw_column(u, right, 3 + (sess && !sess_left), top, lw + 1, rw, h);
		for (int y = 0; y < h; y++)
			cv_text(&cv, y, 0, R_LABEL, u->utf8 ? "\xe2\x94\x82" : "|");
		return;
	}
	static const int all[] = {0, 1, 2, 3, 4, 5};
	draw_column(u, all, NTILES - !sessions_tile(u), top, 0, COLS, h);
}

/* text from row y, column x of cv, wrapped at spaces to the width left;
 * rows outside cv are clipped (y may be negative), none is cut short.
 * Returns the next row. (The key table's texts are ASCII.) */
static int help_wrap(struct canvas *cv, int y, int x, enum role r, const char *text)
{
	int w = cv->w - x > 8 ? cv->w - x : 8;
	while (*text) {
		int n = (int)strlen(text), cut = n;
		if (n > w) {
			for (cut = w; cut > 0 && text[cut] != ' '; cut--)
				;
			if (cut == 0)
				cut = w;
		}
		char line[256];
		str_printf(line, sizeof line, "%.*s", cut, text);
		cv_text(cv, y++, x, r, line);
		text += cut;
		while (*text == ' ')
			text++;
	}
	return y;
}

/* Help rows from row y of cv (rows outside it are clipped: y may be
 * negative when scrolled) for the bindings of this screen (mine) or of
 * the others; returns the next row. */
static int help_section(struct ui *u, struct canvas *cv, int y, bool mine)
{
	static const char *const heads[] = {"on this screen", "on other screens"};
	char where[64], title[96];
	bool any = false;
	for (size_t i = 0; i < key_nbinds; i++) {
		const struct key_bind *b = &key_binds[i];
		if (!!(b->where & KW_SCREEN(u->screen)) != mine || (u->ntg < 2 && key_fleet_only(b)))
			continue;
		if (!any) {
			if (u->screen == 0 || !mine)
				str_copy(title, sizeof title, heads[!mine]);
			else if (u->screen == SCREEN_FLEET)
				str_printf(title, sizeof title, "%s (the fleet)", heads[0]);
			else
				str_printf(title, sizeof title, "%s (%d %s)", heads[0], u->screen, panes[u->screen - 1]->title);
			y++;   /* a blank row before the section */
			cv_text(cv, y++, 1, R_TITLE, title);
			any = true;
		}
		key_where_text(b, where, sizeof where);
		cv_text(cv, y, 1, R_KEY, b->name);
		cv_text(cv, y, 12, R_LABEL, where);
		y = help_wrap(cv, y, 28, R_KEYTEXT, b->help);
	}
	return y;
}

/* The help: every binding of the key table, this screen's first, in a box
 * over a screen blanked edge to edge; it scrolls (u->help_top). */
static void draw_help(struct ui *u)
{
	int w = COLS - 2 < 100 ? COLS - 2 : 100, body = LINES - 3, x0 = (COLS - w) / 2;
	struct canvas under = screen_canvas(u, 1, 0, LINES - 1, COLS);
	/* blank every row under the box edge to edge, the key bar too */
	for (int i = 0; i < LINES - 1; i++)
		cv_fill(&under, i, 0, COLS, R_NORMAL);
	/* count the rows on a canvas that shows none */
	struct canvas none = screen_canvas(u, 1, x0, 0, w);
	int total = help_section(u, &none, help_section(u, &none, 1, true), false);
	if (u->help_top > total - body)
		u->help_top = total - body;
	if (u->help_top < 0)
		u->help_top = 0;
	u->help_rows = total;
	u->help_shown = body;
	struct canvas box = screen_canvas(u, 1, x0, body, w);
	cv_text(&box, -u->help_top, 1, R_TITLE, "dbtop keys");
	help_section(u, &box, help_section(u, &box, 1 - u->help_top, true), false);
	struct canvas tail = screen_canvas(u, 1 + body, x0, 1, w);
	cv_text(&tail, 0, 1, R_UNKNOWN, "unknown values show as '-' with the reason, never as 0");
	struct canvas foot = screen_canvas(u, LINES - 1, 0, 1, COLS);
	char f[160];
	str_printf(f, sizeof f, "help %d-%d of %d  j k Up Down PgUp PgDn scroll  any other key closes",
		   u->help_top + 1, u->help_top + body < total ? u->help_top + body : total, total);
	cv_text(&foot, 0, 0, R_KEYTEXT, f);
}

/* The confirmation of a pane's action: a framed box in the middle, its
 * rows blanked across the screen, y / n. */
static void draw_ask(struct ui *u)
{
	int w = COLS - 4 < 90 ? COLS - 4 : 90, x0 = (COLS - w) / 2;
	int need = wrap_rows(u->ask.what, w - 4) + 4, h = need < LINES - 2 ? need : LINES - 2, y0 = (LINES - h) / 2;
	/* its rows and one above and below blanked edge to edge: nothing of
	 * the screen runs into the frame */
	struct canvas m = screen_canvas(u, y0 - 1, 0, h + 2, COLS);
	for (int i = 0; i < h + 2; i++)
		cv_fill(&m, i, 0, COLS, R_NORMAL);
	struct canvas cv = screen_canvas(u, y0, x0, h, w);
	const char *hz = u->utf8 ? "\xe2\x94\x80" : "-", *vt = u->utf8 ? "\xe2\x94\x82" : "|";
	char rule[90 * 3 + 1] = "";
	for (int i = 0; i < w - 2; i++)
		strcat(rule, hz);
	cv_printf(&cv, 0, 0, R_LABEL, "%s%s%s", u->utf8 ? "\xe2\x94\x8c" : "+", rule, u->utf8 ? "\xe2\x94\x90" : "+");
	cv_printf(&cv, h - 1, 0, R_LABEL, "%s%s%s", u->utf8 ? "\xe2\x94\x94" : "+", rule, u->utf8 ? "\xe2\x94\x98" : "+");
	for (int i = 1; i < h - 1; i++) {
		cv_text(&cv, i, 0, R_LABEL, vt);
		cv_text(&cv, i, w - 1, R_LABEL, vt);
	}
	struct canvas in = cv_sub(&cv, 1, 2, h - 2, w - 4);
	const char *title = u->ask.act == PA_TERMINATE ? "End this session?"
			    : u->ask.act == PA_CANCEL ? "Cancel this statement?"
			    : u->ask.act == PA_TUNE_APPLY ? "Change this setting?"
			    : u->ask.act == PA_TUNE_KEEP ? "Keep this change?"
						     : "Revert the changes an earlier dbtop left in force?";
	/* a recording has no server to act on: said before any key, not after y */
	int x = cv_text(&in, 0, 0, R_CRIT, title);
	if (u->o->replay)
		cv_text(&in, 0, x + 1, R_WARN, "(a recording: nothing will be done; live, it would ask this)");
	cv_wrap(&in, 1, 0, R_NORMAL, u->ask.what, in.h - 1);
	cv_text(&in, in.h - 1, 0, R_KEY, u->o->replay ? "any key closes: a recording cannot act" : "y: do it    any other key: no");
}

/* The tour's caption now: the incident, then the newest caption of its
 * track at the recording's time (its end: what the keys do). */
static void tour_caption(const struct ui *u, char *buf, size_t len)
{
	const struct tour_stop *t = &u->o->tour[u->ts.at];
	double at = u->tr.m->intervals > 0 ? u->tr.m->last.wall - u->t->run.src->start_wall : 0;
	const char *text = "";
	for (const struct tour_caption *c = t->cap; c && c->text; c++)
		if (c->at <= at)
			text = c->text;
	if (u->tr.ended)
		text = u->ts.at + 1 < u->ts.n
			       ? (u->o->speed > 0
					  ? "end of this incident: the next one follows (> now, < back, q quits)"
					  : "end of this incident: > the next one, < the previous, q quits")
			       : "end of the tour: < the previous incident, q quits";
	/* the incident's name when the line has room for it */
	bool named = (int)(strlen(t->name) + strlen(text)) + 8 <= COLS;
	str_printf(buf, len, " %d/%d %s  %s", u->ts.at + 1, u->ts.n, named ? t->name : "", text);
}

static bool timeline_shown(const struct ui *u);
static void draw_timeline(struct ui *u, int y);

/* The tour's caption (or --caption) above the key bar (and the timeline),
 * wrapped to a second row when one would cut it (from 20 rows). Returns
 * the rows it takes: 0 without a caption. */
static int draw_caption(struct ui *u)
{
	char cap[400];
	if (!u->o->tour && !u->o->caption)
		return 0;
	if (u->o->tour)
		tour_caption(u, cap, sizeof cap);
	else
		str_printf(cap, sizeof cap, " %s", u->o->caption);
	int rows = LINES >= 20 && wrap_rows(cap, COLS) > 1 ? 2 : 1;
	struct canvas cc = screen_canvas(u, LINES - 1 - timeline_shown(u) - rows, 0, rows, COLS);
	for (int i = 0; i < rows; i++)
		cv_fill(&cc, i, 0, COLS, R_SELECTED);
	cv_wrap(&cc, 0, 0, R_SELECTED, cap, rows);
	return rows;
}
/* ---- the fleet screen ---- */

/* Its header: how many servers and in what state, the interval, the clock. */
static void draw_fleet_header(struct ui *u, const struct fleet_row *rows)
{
	struct canvas cv = screen_canvas(u, 0, 0, 1, COLS);
	int up = 0, bad = 0, down = 0;
	char t[200], clock[16];
	time_t now = time(NULL);
	struct tm tm;
	for (int i = 0; i < u->ntg; i++) {
		up += strcmp(rows[i].state, "UP") == 0;
		bad += rows[i].bad;
		down += rows[i].bad && strcmp(rows[i].state, "DOWN") == 0;
	}
	localtime_r(&now, &tm);
	strftime(clock, sizeof clock, "%H:%M:%S", &tm);
	cv_fill(&cv, 0, 0, COLS, bad ? R_HEADER_DOWN : R_HEADER);
	int x = cv_text(&cv, 0, 0, R_HEADER, " dbtop ");
	str_printf(t, sizeof t, "FLEET %d servers: %d UP", u->ntg, up);
	x += cv_text(&cv, 0, x, R_HEADER, t);
	if (down) {
		str_printf(t, sizeof t, ", %d DOWN", down);
		x += cv_text(&cv, 0, x, R_HEADER_DOWN, t);
	}
	if (bad > down) {
		str_printf(t, sizeof t, ", %d STALLED", bad - down);
		x += cv_text(&cv, 0, x, R_HEADER_DOWN, t);
	}
	if (up + bad < u->ntg) {
		str_printf(t, sizeof t, ", %d CONNECTING", u->ntg - up - bad);
		x += cv_text(&cv, 0, x, R_HEADER, t);
	}
	str_printf(t, sizeof t, "  every %gs%s  %s ", u->interval, u->tr.paused ? "  PAUSED" : "", clock);
	if (x + text_cols(t) <= COLS)
		cv_text_right(&cv, 0, COLS, R_HEADER, t);
}

/* Every target's fleet row (rows: u->ntg of them). */
static void fleet_rows(struct ui *u, struct fleet_row *rows)
{
	double now = clock_wall();
	for (int i = 0; i < u->ntg; i++) {
		struct ui_tgt *t = &u->tg[i];
		/* no sample for this long while UP: a query has not come back */
		double stale = u->o->replay || u->tr.paused ? 0 : 2 * u->interval + t->run.src->query_timeout + 1;
		fleet_row_fill(&rows[i], i, t->run.name, t->run.host, t->run.m,
			       t->run.down_since_set ? t->run.down_since : 0, stale, now);
	}
}

/* The fleet screen: one row per server (panes/fleet.c). */
static void draw_fleet(struct ui *u)
{
	struct fleet_row *rows = xcalloc((size_t)u->ntg, sizeof *rows);
	fleet_rows(u, rows);
	draw_fleet_header(u, rows);
	struct canvas cv = screen_canvas(u, 1, 0, LINES - 2, COLS);
	fleet_draw(rows, u->ntg, &u->fleet_view, &cv);
	free(rows);
}

/* A terminal too small: the longest message that fits. */
static void draw_too_small(struct ui *u)
{
	struct canvas cv = screen_canvas(u, 0, 0, 1, COLS);
	char t[120];
	str_printf(t, sizeof t, "enlarge the terminal to %dx%d (now %dx%d); q quits", MIN_W, MIN_H, COLS, LINES);
	if ((int)strlen(t) > COLS)
		str_printf(t, sizeof t, "enlarge the terminal to %dx%d (now %dx%d)", MIN_W, MIN_H, COLS, LINES);
	if ((int)strlen(t) > COLS)
		str_printf(t, sizeof t, "enlarge to %dx%d; q quits", MIN_W, MIN_H);
	if ((int)strlen(t) > COLS)
		str_printf(t, sizeof t, "need %dx%d", MIN_W, MIN_H);
	cv_text(&cv, 0, 0, R_WARN, t);
	refresh();
}

/* One pane on the whole body (rows top .. top + h); the rates pane with
 * the notes under it when they fit. */
static void draw_one_pane(struct ui *u, int top, int h)
{
	int idx = u->screen - 1;
	struct canvas cv = screen_canvas(u, top, 0, h, COLS);
	int note_rows = 0;
	for (int k = 0; idx == 0 && k < u->tr.m->caps.notes.n; k++) {
		char t[NOTE_LEN + 8];
		str_printf(t, sizeof t, "note: %s", u->tr.m->caps.notes.msg[k]);
		note_rows += wrap_rows(t, COLS);
	}
	int body_h = h - 1 - note_rows;
	if (body_h < 3)
		body_h = h - 1;
	draw_tile(u, idx, top, 0, 1 + body_h, COLS, true);
	if (idx == 0 && body_h < h - 1) {
		struct canvas notes = cv_sub(&cv, 1 + body_h, 0, h - 1 - body_h, COLS);
		draw_notes(u, &notes, 0);
	}
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
	int top = 1, h;
	erase();
	frame_has_wide = false;
	if (COLS < MIN_W || LINES < MIN_H) {
		draw_too_small(u);
		return;
	}
	if (u->screen == SCREEN_FLEET) {
		draw_fleet(u);
		draw_keybar(u);
		if (u->help)
			draw_help(u);
		refresh();
		u->frames++;
		double dt = clock_mono() - t0;
		u->frame_total += dt;
		if (dt > u->frame_max)
			u->frame_max = dt;
		return;
	}
	draw_header(u);
	top = draw_state_line(u, top);
	top = draw_findings(u, top, u->screen == 0 ? NULL : panes[u->screen - 1]->name,
			    LINES >= 30 ? 3 : LINES >= 20 ? 2 : 1);
	int caprows = draw_caption(u);
	h = LINES - 1 - top - timeline_shown(u) - caprows;
	if (timeline_shown(u))
		draw_timeline(u, LINES - 2);
	if (u->screen == 0)
		draw_overview(u, top, h);
	else
		draw_one_pane(u, top, h);
	draw_keybar(u);
	if (u->help)
		draw_help(u);
	if (u->ask.act)
		draw_ask(u);
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
	struct canvas cv = screen_canvas(u, y, 0, 1, COLS);
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
	char stamp[48], txt[600], err[160] = "";
	struct strbuf st, sj;
	time_t t = (time_t)(u->tr.m->intervals ? u->tr.m->last.wall : clock_wall());
	struct tm tm;
	if (!localtime_r(&t, &tm) || !strftime(stamp, sizeof stamp, "dbtop-snapshot-%Y%m%d-%H%M%S", &tm))
		str_copy(stamp, sizeof stamp, "dbtop-snapshot");
	sb_init(&st);
	sb_init(&sj);
	u->msg[0] = '\0';   /* the screen without the message line of an earlier key */
	draw_frame(u);
	screen_text(&st);
	if (u->o->snapshot_json) {
		/* the events of the interval shown: live, the newest interval's */
		unsigned long from = u->t->run.ev_from, to = ULONG_MAX;
		if (u->tr.m != u->tr.live)
			events_between(&u->t->run.ev,
				       u->tr.m->last.wall - (isfinite(u->tr.m->interval_s) ? u->tr.m->interval_s : 0),
				       u->tr.m->last.wall, &from, &to);
		u->o->snapshot_json(u->tr.m, u->t->run.host, &u->t->run.ev, from, to, &sj);
	}
	sb_putc(&sj, '\n');
	if (files_write_pair(dir, stamp, "txt", "json", st.s, st.len, sj.s, sj.len, txt, sizeof txt, err, sizeof err) < 0)
		set_msg(u, "snapshot not written: %s", err);
	else
		set_msg(u, "snapshot: %s and .json written (mode 0600)", txt);
	sb_free(&st);
	sb_free(&sj);
	u->msg_until = clock_mono() + 15;
}

/* ---- the fleet: selection ---- */

/* The server selected on the fleet (its row now, as the keys moved the
 * selection since the last frame), or NULL. */
static struct ui_tgt *fleet_selected(struct ui *u)
{
	struct fleet_row *rows = xcalloc((size_t)u->ntg, sizeof *rows);
	const struct fleet_row **order = xcalloc((size_t)u->ntg, sizeof *order);
	fleet_rows(u, rows);
	int n = fleet_order(rows, u->ntg, &u->fleet_view, order);
	/* the server the frame showed selected, where a re-sort put it */
	int sel = pane_target(&u->fleet_view, n, fleet_row_key, order);
	struct ui_tgt *t = sel >= 0 ? &u->tg[order[sel]->idx] : NULL;
	free(order);
	free(rows);
	return t;
}

/* Select target t's row on the fleet (when the filter shows it). */
static void fleet_select(struct ui *u, const struct ui_tgt *t)
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
static void open_server(struct ui *u, struct ui_tgt *t, int screen)
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
	int what = u->ask.act == PA_TUNE_APPLY ? SP_TUNE_APPLY : u->ask.act == PA_TUNE_KEEP ? SP_TUNE_KEEP
											     : SP_TUNE_UNDO_ALL;
	if (!yes)
		set_msg(u, u->ask.act == PA_TUNE_ORPHANS ? "left in force: U reverts them; so do quitting and the next start"
							 : "not done: nothing was changed");
	else if (u->o->read_only)
		set_msg(u, "read-only session (--read-only): nothing is changed");
	else if (recording_refuses(u, what == SP_TUNE_KEEP ? "keeping a setting" : "changing a setting"))
		;
	else if (!sampler_tune_in(&u->t->sp, what, u->ask.id, u->ask.value, what == SP_TUNE_APPLY ? &u->ask.to : NULL))
		set_msg(u, "another action is still running: nothing done");
	else
		set_msg(u, "%s ...", what == SP_TUNE_APPLY ? "applying" : what == SP_TUNE_KEEP ? "keeping" : "reverting");
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
	else if (!sampler_tune(&u->t->sp, all ? SP_TUNE_UNDO_ALL : SP_TUNE_UNDO, 0, NULL))
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
		struct ui_tgt *t = fleet_selected(u);
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
		struct ui_tgt *t = fleet_selected(u);
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

/* The end of a replay's samples: a seek past it lands on the last one.
 * True when a seek was pulling. */
static bool take_end(struct ui *u)
{
	u->ts.end = clock_mono();
	return travel_end(&u->tr);
}

/* What the screen adds before target t ingests s: the tuning screen as it
 * is now (recorded with the sample) or as recorded (a replay), and a
 * screen frozen on the newest sample kept shown as the live model moves
 * on. */
static void take_prepare(struct ui *u, struct ui_tgt *t, struct sample *s)
{
	struct history *h = t->run.hist;
	if (t->run.recording && t->run.tuner) {
		sampler_tune_view(&t->sp, &t->tc.tv_gen, &t->tc.tv);
		s->tuning = xmalloc(sizeof *s->tuning);
		tune_view_snap(&t->tc.tv, s->tuning);
	}
	if (h) {
		const char *m = travel_follow(&u->tr);
		if (m)
			set_msg(u, "%s", m);
	}
	if (u->o->replay && s->tuning)
		tune_view_from_snap(s->tuning, s->wall, &t->tc.tv);
}

/* Apply the samples target t's worker has queued (to its own model,
 * through its pipeline). */
static bool take_target_samples(struct ui *u, struct ui_tgt *t)
{
	struct sampler_msg *msg = xmalloc(sizeof *msg);
	bool any = false, pulled = false;
	struct history *h = t->run.hist;
	/* a paused replay: the samples wait in the queue, none is dropped;
	 * a step forward takes them one by one */
	while (travel_takes(&u->tr) && sampler_pop(&t->sp, msg)) {
		any = true;
		if (msg->end) {
			if (msg->has_caps)
				target_caps(&t->run, &msg->caps, msg->conn_gen);
			pulled |= take_end(u);
			sample_release(&msg->s);
			continue;
		}
		take_prepare(u, t, &msg->s);
		/* (no history: a live pause drops the samples, as it always did) */
		if (target_ingest(&t->run, &msg->s, msg->has_caps ? &msg->caps : NULL, msg->conn_gen,
				  h || !u->tr.paused)) {
			set_msg(u, "%s", t->run.note);
			if (t->run.note_kind == TN_HISTORY)
				u->msg_until = clock_mono() + 30;   /* (said once: it stays a while) */
		}
		sample_release(&msg->s);
		if (travel_pulling(&u->tr)) {
			pulled = true;
			if (travel_pulled_one(&u->tr))
				break;
		}
	}
	free(msg);
	const char *said = pulled && h ? travel_pull_done(&u->tr) : NULL;
	if (said)
		set_msg(u, "%s", said);
	return any;
}

/* Apply the samples of every target's worker. */
static bool take_samples(struct ui *u)
{
	bool any = false;
	for (int i = 0; i < u->ntg; i++)
		any |= take_target_samples(u, &u->tg[i]);
	return any;
}

/* The changes an earlier dbtop left in force on the shown server: said
 * (read-only, or no tuning here) or offered for a revert (y). */
static void ask_orphans(struct ui *u)
{
	const struct tune_view *tv = &u->t->tc.tv;
	u->t->tc.orphans_asked = true;
	if (u->o->read_only || !tv->available) {
		set_msg(u, "%d setting change(s) left by an earlier dbtop are in force (screen 5): %s", tv->orphans,
			u->o->read_only ? "run dbtop without --read-only to revert them" : tv->why);
		return;
	}
	struct strbuf b;
	sb_init(&b);
	tunectl_orphans_text(&u->t->tc, u->tr.m, &b);
	u->t->tc.foreign_told = true;
	u->ask.act = PA_TUNE_ORPHANS;
	u->ask.id = 0;
	str_copy(u->ask.what, sizeof u->ask.what, b.s);
	text_sanitize(u->ask.what);
	sb_free(&b);
}

/* Tuning upkeep in the loop: every target's newest view and --tune-ttl;
 * the shown one's questions (orphans, other servers' changes) and probes
 * while screen 5 shows. True when the screen changed. */
static bool tuning_tick(struct ui *u)
{
	bool changed = false;
	double now = clock_mono();
	if (u->o->replay)   /* a recorded view: nothing here is in force */
		return changed;
	int active = 0;
	for (int k = 0; k < u->ntg; k++) {
		struct ui_tgt *t = &u->tg[k];
		changed |= tunectl_poll(&t->tc, &t->sp, &t->run.ev, now);
		active += t->tc.tv.nactive > 0;
	}
	tuned_active = active > 0;
	bool askable = !u->ask.act && u->tr.m->intervals > 0 && u->screen != SCREEN_FLEET;
	if (!u->t->tc.orphans_asked && u->t->tc.tv.orphans > 0 && askable) {
		ask_orphans(u);
		changed = true;
	}
	if (!u->t->tc.foreign_told && u->t->tc.tv.nforeign > 0 && !u->ask.act && askable) {
		/* never offered for a revert here: named with their server */
		const struct jentry *e = &u->t->tc.tv.foreign[0];
		u->t->tc.foreign_told = true;
		set_msg(u, "not reverted here (screen 5): %s = %s (was %s) set on %s%s", e->name, e->val, e->was,
			e->slabel, u->t->tc.tv.nforeign > 1 ? ", ..." : "");
		changed = true;
	}
	tunectl_probe(&u->t->tc, &u->t->sp, u->screen == TUNING_SCREEN || u->t->run.recording, now);
	return changed;
}

/* While the revert at exit waits: its message drawn, the samples taken. */
static void exit_show(void *arg, const char *msg)
{
	struct ui *u = arg;
	set_msg(u, "%s", msg);
	draw_frame(u);
}

static void exit_take(void *arg)
{
	take_samples(arg);
}

/* Quitting (q, a signal): wait (bounded) for an action still running (an
 * apply in flight), then revert every change in force before the worker
 * stops (run/tunectl.c), drawing meanwhile; the outcome goes to out. */
static void revert_target_on_exit(struct ui *u, char *out, size_t outlen)
{
	if (u->o->replay)   /* the recorded changes are not this dbtop's */
		return;
	ui_signal = 0;
	const struct tunectl_waiter w = {.show = exit_show, .take = exit_take, .arg = u};
	tunectl_revert_at_exit(&u->t->tc, &u->t->sp, u->t->run.src->query_timeout, u->o->read_only, &w, out, outlen);
}

/* Quitting: revert_target_on_exit() for every target, the shown one
 * drawn meanwhile; the outcomes (named with their server when there are
 * several) go to o->exit_msg. */
static void revert_on_exit(struct ui *u)
{
	struct ui_tgt *shown = u->t;
	struct model *drawn = u->tr.m;
	for (int i = 0; i < u->ntg; i++) {
		char one[sizeof u->o->exit_msg];
		one[0] = '\0';
		u->t = &u->tg[i];
		u->tr.m = u->t == shown ? drawn : u->t->run.m;
		revert_target_on_exit(u, one, sizeof one);
		if (!one[0])
			continue;
		size_t l = strlen(u->o->exit_msg);
		if (u->ntg == 1)
			str_copy(u->o->exit_msg, sizeof u->o->exit_msg, one);
		else
			str_printf(u->o->exit_msg + l, sizeof u->o->exit_msg - l, "%s%s: %s", l ? "; " : "",
				   u->t->run.name, one);
	}
	u->t = shown;
	u->tr.m = drawn;
}

/* Write the frame-time figures where DBTOP_FRAME_STATS says. */
static void write_frame_stats(const struct ui *u)
{
	const char *path = getenv("DBTOP_FRAME_STATS");
	FILE *f;
	if (!path || !*path || !u->frames)
		return;
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "frames %lu size %dx%d avg_ms %.4f max_ms %.4f first_full_ms %.1f samples %lu\n", u->frames, COLS,
		LINES, u->frame_total / (double)u->frames * 1000, u->frame_max * 1000,
		u->first_full > 0 ? (u->first_full - u->o->start_mono) * 1000 : -1.0, u->tr.live->intervals);
	if (u->tr.steps)
		fprintf(f,
			"steps %lu step_avg_ms %.4f step_max_ms %.4f rebuilds %lu rebuild_avg_ms %.4f rebuild_max_ms %.4f\n",
			u->tr.steps, u->tr.step_total / (double)u->tr.steps * 1000, u->tr.step_max * 1000,
			u->tr.rebuilds, u->tr.rebuilds ? u->tr.rebuild_total / (double)u->tr.rebuilds * 1000 : 0,
			u->tr.rebuild_max * 1000);
	fclose(f);
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

/* The result of a session action the worker finished, as the message. */
static bool action_result(struct ui *u)
{
	int act_rc;
	char act_msg[NOTE_LEN];
	bool any = false;
	for (int i = 0; i < u->ntg; i++) {
		struct ui_tgt *t = &u->tg[i];
		if (!sampler_action_result(&t->sp, &act_rc, act_msg, sizeof act_msg))
			continue;
		/* the server it was done on is named when another one shows */
		set_msg(u, "%s%s%s%s", t != u->t ? t->run.name : "", t != u->t ? ": " : "",
			act_rc == 0 || strncmp(act_msg, "failed", 6) == 0 || strstr(act_msg, "nothing was done")
				? ""
				: "failed: ",
			act_msg);
		u->msg_until = clock_mono() + 10;   /* what was (not) done stays a while */
		char done[400];
		if (sessact_result(&t->sa, &t->sp, &t->run.ev, act_rc, act_msg, done, sizeof done)) {
			set_msg(u, "%s", done); /* the tagged sessions: how many were done */
			u->msg_until = clock_mono() + 10;
		}
		any = true;
	}
	return any;
}

/* The screen's loop: samples, action results, tuning upkeep and keys,
 * until q, a signal or the terminal going away. */
static void screen_loop(struct ui *u)
{
	int input_empty = 0;
	struct pollfd pf[1 + FLEET_TARGETS_MAX];
	while (!u->quit && !ui_signal) {
		pf[0] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
		for (int i = 0; i < u->ntg; i++)
			pf[1 + i] = (struct pollfd){.fd = !travel_takes(&u->tr) ? -1 : u->tg[i].sp.wake[0],
						    .events = POLLIN};
		bool dirty = false;
		int ch, pr = poll(pf, (nfds_t)(1 + u->ntg), 1000);
		if (pr < 0 && errno != EINTR)
			break;
		if (take_samples(u))
			dirty = true;
		if (action_result(u))
			dirty = true;
		if (tuning_tick(u))
			dirty = true;
		if (u->o->tour && tourseq_due(&u->ts, &u->tr, u->o->speed, clock_mono())) {
			/* the tour goes on by itself a moment after an incident ends */
			tour_go(u, u->ts.at + 1);
			dirty = true;
		}
		sessions_tick(u);
		if (sessions_plan_tick(u))
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
static void show_target(struct ui *u, struct ui_tgt *t)
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

/* A target's hook after each ingest that updated its model, the live
 * model (frozen screen or not): the caller's on_update (arg: the options). */
static void publish_update(const void *arg, const struct target_run *t)
{
	const struct ui_opts *o = arg;
	o->on_update(o->on_update_arg, t->slot, t->name[0] ? t->name : t->host, t->m);
}

/* The screen's state for n targets: each target's pipeline, the views,
 * the first screen, the terminal's character set. */
static struct ui *ui_new(const struct ui_target *tgts, int n, struct ui_opts *o)
{
	struct ui *u = xcalloc(1, sizeof *u);
	u->o = o;
	u->ntg = n;
	u->tg = xcalloc((size_t)n, sizeof *u->tg);
	for (int i = 0; i < n; i++) {
		struct ui_tgt *t = &u->tg[i];
		target_run_init(&t->run, tgts[i].name, tgts[i].host ? tgts[i].host : "", tgts[i].src, tgts[i].m,
				!o->replay);
		t->run.slot = i;
		t->run.tuner = tgts[i].tuner;
		t->run.rec = tgts[i].rec;
		t->run.recording = t->run.rec != NULL;
		t->run.hist = n == 1 ? o->hist : NULL; /* the history (time travel) is kept with one target only */
		t->run.publish = o->on_update ? publish_update : NULL;
		t->run.publish_arg = o;
	}
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

/* Stop every target's sampler; false when one is still inside a query
 * (it owns the connection and the sampler's memory until the exit). */
static bool stop_workers(struct ui *u)
{
	bool joined = true;
	for (int i = 0; i < u->ntg; i++)
		if (!sampler_stop(&u->tg[i].sp, i == 0 ? 0.5 : 0.1)) {
			u->tg[i].run.src->connected = false;
			joined = false;
		}
	return joined;
}

static void ui_free(struct ui *u)
{
	for (int i = 0; i < u->ntg; i++) {
		u->tg[i].run.src->stop_flag = NULL;
		u->tg[i].run.src->pause_flag = NULL;
		target_run_free(&u->tg[i].run);
	}
	for (int i = 0; i < NPANES; i++) {
		pane_filter_free(&u->views[i]);
		pane_view_free(&u->views[i], panes[i]);
	}
	pane_filter_free(&u->fleet_view);
	free(u->tg);
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
		free(u->tg);
		free(u);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		struct ui_tgt *t = &u->tg[i];
		if (sampler_start(&t->sp, t->run.src, o->interval, o->replay, t->run.tuner) < 0) {
			restore_terminal();
			fprintf(stderr, "dbtop: cannot start the sampler: %s\n", strerror(errno));
			/* the ones started run until the exit */
			o->worker_running = i > 0;
			return 1;
		}
		sampler_tune_view(&t->sp, &t->tc.tv_gen, &t->tc.tv);
	}
	show_target(u, u->t);
	draw_frame(u);
	screen_loop(u);
	write_frame_stats(u);
	revert_on_exit(u);
	bool joined = stop_workers(u);
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
