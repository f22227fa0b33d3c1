/* ui.c - the full-screen interface: header, screens of panes, key bar,
 * help and key bar generated from the key table (keys.c), filter prompt,
 * pause, themes.
 * With curses_canvas.c and theme_curses.c, the files that include curses.h. */
#define NCURSES_WIDECHAR 1   /* mvinnwstr: the snapshot reads the screen back */
#include "ui_int.h"

#define PANE_OPS_(name, screen, label, tile) &name##_pane,
const struct pane_ops *const panes[NPANES] = {PANE_LIST(PANE_OPS_)};

/* ---- drawing ---- */

void set_msg(struct ui *u, const char *fmt, ...)
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
bool sessions_tile(const struct ui *u)
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
void open_link(struct ui *u, const struct pane_link *l)
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
void sessions_explain(struct ui *u)
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
void event_go(struct ui *u, const struct event *e)
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
void jump_mark(struct ui *u, bool next)
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
void snapshot(struct ui *u)
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
struct watch_tgt *fleet_selected(struct ui *u)
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
void fleet_select(struct ui *u, const struct watch_tgt *t)
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
void open_server(struct ui *u, struct watch_tgt *t, int screen)
{
	show_target(u, t);
	u->screen = screen;
	if (screen > 0)
		u->focus = screen - 1;
	set_msg(u, "%s (%s): Esc on the overview or F returns to the fleet, n / p the next / previous server",
		t->run.name, t->run.host);
}

/* ---- input ---- */

struct pane_view *focused_view(struct ui *u, int *idx)
{
	if (u->screen == SCREEN_FLEET) {
		*idx = 0;
		return &u->fleet_view;
	}
	*idx = u->screen == 0 ? u->focus : u->screen - 1;
	return &u->views[*idx];
}

/* Tuning upkeep in the loop (run/watch.c): the orphans' question asked
 * here. True when the screen changed. */
static bool tuning_tick(struct ui *u)
{
	struct watch_ask a;
	bool askable = !u->ask.act && u->tr.m->intervals > 0 && u->screen != SCREEN_FLEET;
	watch_tuning(&u->w, u->t, askable, u->screen == TUNING_SCREEN, &a);
	if (!u->o->replay)
		term_tuned(a.active > 0);
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

/* Curses on (term.c), then the theme. -1 (said on stderr) when the
 * terminal cannot show the screen. */
static int screen_start(struct ui *u)
{
	char err[200];
	if (term_start() < 0)
		return -1;
	if (theme_load(u->o->theme ? u->o->theme : "dark", &u->theme, err, sizeof err) < 0)
		set_msg(u, "theme: %s (using dark)", err);
	for (int i = 0; theme_cycle[i]; i++)
		if (strcmp(theme_cycle[i], u->theme.name) == 0)
			u->theme_idx = i;
	theme_apply(&u->theme, u->no_color || !has_colors());
	term_buffered();
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

/* With several targets their samples of one refresh come a few ms apart:
 * after the first, the frame waits this long (at most a quarter of the
 * interval) for the others, so a refresh draws one frame, not one a
 * target. */
#define SETTLE_S 0.1

/* True when one of the n targets' pipes in pf woke the poll. */
static bool pipes_woke(const struct pollfd *pf, int n)
{
	for (int i = 0; i < n; i++)
		if (pf[i].fd >= 0 && pf[i].revents)
			return true;
	return false;
}

static void screen_loop(struct ui *u)
{
	int input_empty = 0;
	double last_take = 0; /* monotonic s the newest sample came */
	double settle = 0;    /* monotonic s until which the samples wait for the others' (SETTLE_S) */
	double trim = 0;      /* monotonic s of the next heap trim */
	struct pollfd pf[1 + FLEET_TARGETS_MAX];
	while (!u->quit && !term_signal()) {
		double now = clock_mono();
		bool settling = settle > now;
		heap_trim_due(&trim, now);
		pf[0] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
		for (int i = 0; i < u->ntg; i++)
			pf[1 + i] = (struct pollfd){.fd = settling || !travel_takes(&u->tr) ? -1 : u->tg[i].sp.wake[0],
						    .events = POLLIN};
		bool dirty = false;
		int ch, pr = poll(pf, (nfds_t)(1 + u->ntg),
				  settling ? (int)((settle - now) * 1000) + 1 : idle_wait_ms(u, last_take, now));
		if (pr < 0 && errno != EINTR)
			break;
		if (!settling && u->ntg > 1 && pr > 0 && pipes_woke(pf + 1, u->ntg))
			settle = clock_mono() + (u->interval / 4 < SETTLE_S ? u->interval / 4 : SETTLE_S);
		if (settle <= clock_mono()) {
			settle = 0;
			if (watch_take(&u->w)) {
				dirty = true;
				last_take = clock_mono();
			}
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
		if (pr > 0 && !u->quit && term_input_gone(pf[0].revents, got_key, &input_empty)) {
			/* as on SIGHUP: revert what is in force, then exit */
			term_await_hangup();
			term_set_signal(SIGHUP);
			break;
		}
		if (dirty || pr == 0 || (pr < 0 && errno == EINTR))
			draw_frame(u);
	}
}

/* Show target t: its model drawn, its tuning view and plan in the panes,
 * its session list read (from the next refresh). */
void show_target(struct ui *u, struct watch_tgt *t)
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
		ui_free(u); /* no worker started: the targets' logs, the panes' own state */
		return 1;
	}
	int started;
	if (watch_start(&u->w, o->interval, &started) < 0) {
		term_restore();
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
		term_set_signal(0);
	watch_revert_on_exit(&u->w, exit_show, u, o->exit_msg, sizeof o->exit_msg);
	bool joined = watch_stop(&u->w);
	term_restore();
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
