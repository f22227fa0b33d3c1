/* keyact.c - what each key of the key table (keys.c) does on the screen:
 * the actions, the y / n answers, the filter prompt, the help's scroll. */
#define NCURSES_WIDECHAR 1
#include "ui_int.h"

/* Refresh interval steps for + and -, s. */
static const double intervals[] = {0.25, 0.5, 1, 2, 3, 5, 10, 15, 30, 60};
#define NINTERVALS (sizeof intervals / sizeof intervals[0])

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
	for (int t = 0; t < u->ntg; t++) /* every server keeps the one interval */
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
				!u->fbuf[0]                 ? ""
				: u->screen == SCREEN_FLEET ? "the fleet"
							    : panes[idx]->name);
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
		set_msg(u, u->ask.act == PA_TUNE_ORPHANS
				   ? "left in force: U reverts them; so do quitting and the next start"
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
			set_msg(u, "%s session %lld ...",
				what == SRC_ACT_TERMINATE ? "ending" : "cancelling the statement of", u->ask.id);
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
	if (q && q->act == KA_QUIT) /* too small a terminal: q still quits */
		u->quit = true;
	for (int s = 0; s <= SCREEN_MAX + 1 && !u->quit && COLS >= MIN_W; s++) {
		const struct key_bind *o = key_find(ch, s > SCREEN_MAX ? SCREEN_FLEET : s);
		if (o) {
			/* bound elsewhere: say where, do nothing here */
			char where[64];
			key_where_text(o, where, sizeof where);
			if (u->screen == SCREEN_FLEET && (o->where & KW_ALL) == KW_ALL)
				set_msg(u,
					"%s works on a server's screens, not on the fleet (Enter opens the selected server)",
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
	set_msg(u,
		sent ? "copied %zu bytes%s by OSC 52 (some terminals need it on: tmux set-clipboard on)"
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
		u->msg[0] = '\0'; /* the confirmation replaces the message */
	}
	if (r.link.screen)
		open_link(u, &r.link);
	if (r.status[0])
		set_msg(u, "%s", r.status);
}

static void act_quit(const struct key_ctx *k)
{
	k->u->quit = true;
}
static void act_help(const struct key_ctx *k)
{
	k->u->help = true;
	k->u->help_top = 0;
}
static void act_slower(const struct key_ctx *k)
{
	change_interval(k->u, +1);
}
static void act_faster(const struct key_ctx *k)
{
	change_interval(k->u, -1);
}
static void act_theme(const struct key_ctx *k)
{
	next_theme(k->u);
}
static void act_undo(const struct key_ctx *k)
{
	undo_changes(k->u, k->b->act == KA_UNDO_ALL);
}
static void act_explain(const struct key_ctx *k)
{
	sessions_explain(k->u);
}
static void act_snapshot(const struct key_ctx *k)
{
	snapshot(k->u);
}
static void act_mark(const struct key_ctx *k)
{
	jump_mark(k->u, k->b->act == KA_MARK_NEXT);
}

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
	} else if (k->v->nrows > 0)
		k->v->details = !k->v->details;
	else
		set_msg(u, "nothing to show details of");
}

static void act_back(const struct key_ctx *k)
{
	struct ui *u = k->u;
	if (u->screen == SCREEN_FLEET)
		; /* the top */
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
		set_msg(u,
			"one server: the fleet screen shows with several targets (dbtop TARGET TARGET ..., --targets FILE)");
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
void tour_go(struct ui *u, int to)
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

void handle_key(struct ui *u, int ch)
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
		set_msg(u, "%s acts on the server as it is now, not at the moment shown: End goes live first", b->name);
		return;
	}
	struct key_ctx k = {.u = u, .v = v, .idx = idx, .b = b, .ch = ch};
	if ((size_t)b->act < sizeof key_actions / sizeof key_actions[0] && key_actions[b->act])
		key_actions[b->act](&k);
	if (b->act != KA_PANE) /* a pane's key keeps its own selection */
		clamp_sel(v);
}
