/* keys.c - the key table: dispatch, the help screen and the key bar all
 * read it. Keys that act on the server (end, cancel, change a setting)
 * apply only on the screen that shows their target, never on the
 * overview, and none of them is a movement key. */
#include "keys.h"

#include <curses.h>
#include <string.h>

#include "../panes/pane.h"
#include "../util/util.h"

/* The number keys: 0 the overview, then one a pane (panes/pane_list.h). */
#define SCREEN_KEY_(name, screen, label, tile) , '0' + (screen)
#define SCREEN_KEYS '0' PANE_LIST(SCREEN_KEY_)
_Static_assert(SCREEN_MAX + 1 < KEY_CODES, "a number key per screen fits a binding");
/* "0-7" and "0-7 Screens", with the highest screen of the list */
static const char screens_name[] = {'0', '-', '0' + SCREEN_MAX, '\0'};
static const char screens_bar[] = {'0', '-', '0' + SCREEN_MAX, ' ', 'S', 'c', 'r', 'e', 'e', 'n', 's', '\0'};

/* a table laid out by hand, one binding a row */
/* clang-format off */
const struct key_bind key_binds[] = {
	{{'q', 'Q'}, KA_QUIT, {0}, KW_EVERY, false, "q", "q Quit",
	 "quit (reverts the setting changes dbtop made; closes the recording)"},
	{{'?', 'h'}, KA_HELP, {0}, KW_EVERY, false, "? h", "? Help",
	 "this help; Up Down j k PgUp PgDn Home End scroll it, any other key closes it"},
	{{'x'}, KA_PANE, {.command = "terminate"}, KW_PANE(locks) | KW_PANE(sessions), true, "x", "x End",
	 "end the selected session (locks: a root blocker or a waiter) with KILL / pg_terminate_backend, after a "
	 "confirmation; only while the server shows the same session (start, transaction)"},
	{{'c'}, KA_PANE, {.command = "cancel"}, KW_PANE(locks) | KW_PANE(sessions), true, "c", "c Cancel",
	 "cancel the selected session's statement (KILL QUERY / pg_cancel_backend), after a confirmation; "
	 "only while the same session runs the same statement; its blocker is left alone"},
	{{'a'}, KA_PANE, {.command = "apply"}, KW_PANE(tuning), true, "a", "a Apply",
	 "apply the selected setting's remedy (or revert dbtop's change of it), after a confirmation that "
	 "shows the exact SQL, the risk and the revert"},
	{{'s'}, KA_PANE, {.command = "scope"}, KW_PANE(tuning), false, "s", "s Scope",
	 "tuning: the scope of the selected remedy's change: the server, or (PostgreSQL synchronous_commit) the "
	 "role or the database holding most of the sessions found waiting on the WAL flush (ALTER ROLE / "
	 "ALTER DATABASE ... SET: its new sessions only); a applies it"},
	{{'K'}, KA_PANE, {.command = "keep"}, KW_PANE(tuning), true, "K", NULL,
	 "keep dbtop's change of the selected setting after dbtop exits (asks first)"},
	{{' '}, KA_PAUSE, {0}, KW_EVERY, false, "space", "space Pause",
	 "pause: the data freeze (a replay's clock stops: nothing is skipped), the screen stays responsive; "
	 "frozen, every pane can step back through the history kept (--history); space resumes, live"},
	{{KEY_LEFT}, KA_TRAVEL, {TR_PREV}, KW_ALL, false, "Left", NULL,
	 "one interval back in time (freezes the view first); every pane and the header (AT time, -age) "
	 "show that moment"},
	{{KEY_RIGHT}, KA_TRAVEL, {TR_NEXT}, KW_ALL, false, "Right", NULL,
	 "frozen: one interval forward (a replay reads on)"},
	{{'['}, KA_TRAVEL, {TR_PREV_MIN}, KW_ALL, false, "[", NULL, "a minute back in time (freezes the view first)"},
	{{']'}, KA_TRAVEL, {TR_NEXT_MIN}, KW_ALL, false, "]", NULL, "frozen: a minute forward (a replay reads on: a seek)"},
	{{'+', '='}, KA_SLOWER, {0}, KW_EVERY, false, "+", "+- Interval", "longer refresh interval (up to 60 s)"},
	{{'-', '_'}, KA_FASTER, {0}, KW_EVERY, false, "-", NULL, "shorter refresh interval (down to 0.25 s)"},
	{{'s'}, KA_PANE, {.command = "sort"}, KW_OVERVIEW | KW_PANE(rates) | KW_PANE(digests), false, "s", "s Sort",
	 "sort: rates in table order / by name; digests by total time, calls, average latency, rows"},
	{{'s'}, KA_PANE, {.command = "sort"}, KW_PANE(sessions), false, "s", "s Sort",
	 "sessions: sort by the next column (state, blocker, wait, time in state, transaction age, statement, "
	 "id, user, database, client); ties by id, so rows keep their order between refreshes"},
	{{'r'}, KA_PANE, {.command = "reverse"}, KW_PANE(sessions), false, "r", NULL, "sessions: reverse the sort order"},
	{{'i'}, KA_PANE, {.command = "show-idle"}, KW_PANE(sessions), false, "i", "i Idle",
	 "sessions: show / hide the idle ones (hidden by default; idle in transaction always shows)"},
	{{'b'}, KA_PANE, {.command = "show-background"}, KW_PANE(sessions), false, "b", NULL,
	 "sessions: show / hide the server's own processes (hidden by default)"},
	{{'m'}, KA_PANE, {.command = "tag"}, KW_PANE(sessions), false, "m", NULL,
	 "sessions: tag / untag the selected session (marked +); x and c then act on every tagged one, each "
	 "checked in turn"},
	{{'M'}, KA_PANE, {.command = "untag-all"}, KW_PANE(sessions), false, "M", NULL, "sessions: untag every session"},
	{{'e'}, KA_EXPLAIN, {0}, KW_PANE(sessions), false, "e", "e Explain",
	 "sessions: the plan of the selected session's statement in its details (EXPLAIN, never ANALYZE: "
	 "nothing is executed; SELECT, INSERT, UPDATE, DELETE, REPLACE, MERGE only)"},
	{{'S'}, KA_PANE, {.command = "sessions"}, KW_PANE(digests) | KW_PANE(locks), false, "S", NULL,
	 "locks: the selected session's details on the sessions screen; digests: the sessions running the "
	 "selected digest now (screen 6, filtered on it)"},
	{{'d'}, KA_PANE, {.command = "cumulative"}, KW_OVERVIEW | KW_PANE(digests), false, "d", NULL,
	 "digests per interval / cumulative since first seen"},
	{{'o'}, KA_PANE, {.command = "show-own"}, KW_OVERVIEW | KW_PANE(digests), false, "o", NULL,
	 "digests: show dbtop's own statements too (marked *; left out of the ranking and the total by default)"},
	{{'/'}, KA_FILTER, {0}, KW_FLEET, false, "/", "/ Filter",
	 "fleet: filter the servers (PCRE2 regex, case-insensitive; empty clears) by name, engine, state, "
	 "reason, top wait and finding"},
	{{'/'}, KA_FILTER, {0}, KW_ALL, false, "/", "/ Filter",
	 "filter the focused pane's rows (PCRE2 regex, case-insensitive; empty clears): digests by text and "
	 "schema, locks by session, user, statement and object, waits by event, sessions by id, user, "
	 "database, client, application, state, wait, statement and digest:ID, events by time, kind and text"},
	{{'t'}, KA_THEME, {0}, KW_EVERY, false, "t", "t Theme", "next theme: dark, light, mono, high-contrast"},
	{{'\n', '\r', KEY_ENTER}, KA_ENTER, {0}, KW_FLEET, false, "Enter", "Enter Open",
	 "fleet: open the selected server's panes (its overview); Esc there comes back"},
	{{'\n', '\r', KEY_ENTER}, KA_ENTER, {0}, KW_ALL, false, "Enter", "Enter Details",
	 "overview: open the focused pane; a pane: details of the selected row (Enter again closes them); "
	 "event log: travel to the selected event (frozen at that moment, on the overview)"},
	{{KEY_ESC}, KA_BACK, {0}, KW_ALL, false, "Esc", "Esc Back",
	 "back: close the details; then the overview"},
	{{KEY_ESC}, KA_BACK, {0}, KW_FLEET, false, "Esc", NULL,
	 "fleet: the top screen (Esc on a server's overview comes here)"},
	{{'F'}, KA_FLEET, {0}, KW_EVERY, false, "F", "F Fleet",
	 "the fleet screen: one row per server (several targets; it opens first); Esc on a server's overview "
	 "goes back to it too"},
	{{'n'}, KA_NEXT_SERVER, {0}, KW_EVERY, false, "n", "n/p Server",
	 "the next server (several targets): its panes on the same screen; the fleet: the next row"},
	{{'p'}, KA_PREV_SERVER, {0}, KW_EVERY, false, "p", NULL, "the previous server (several targets)"},
	{{'s'}, KA_FLEET_SORT, {0}, KW_FLEET, false, "s", "s Sort",
	 "fleet: sort as given, worst first (DOWN / STALLED, then the most severe finding), by name, "
	 "commits/s, fsyncs per commit, latency, lock waiters"},
	{{'\t'}, KA_FOCUS_NEXT, {0}, KW_OVERVIEW, false, "Tab", "Tab Focus",
	 "focus the next pane; its need goes first"},
	{{KEY_BTAB}, KA_FOCUS_PREV, {0}, KW_OVERVIEW, false, "Shift-Tab", NULL, "focus the previous pane"},
	{{'z'}, KA_ZOOM, {0}, KW_OVERVIEW, false, "z", NULL,
	 "zoom the focused pane: it gets every spare row, the others their one-line summary; z again shares "
	 "the rows by need"},
	{{'>'}, KA_TOUR_NEXT, {0}, KW_ALL, false, ">", NULL, "the demo tour (--demo): the next incident"},
	{{'<'}, KA_TOUR_PREV, {0}, KW_ALL, false, "<", NULL, "the demo tour (--demo): the previous incident"},
	{{SCREEN_KEYS}, KA_SCREEN, {0}, KW_FLEET, false, screens_name, screens_bar,
	 "fleet: that screen of the selected server (0 its overview)"},
	{{SCREEN_KEYS}, KA_SCREEN, {0}, KW_ALL, false, screens_name, screens_bar, PANE_SCREENS_HELP},
	{{'y'}, KA_PANE, {.command = "copy"}, KW_PANE(digests) | KW_PANE(locks) | KW_PANE(sessions), false, "y", NULL,
	 "copy the selected statement's full text (digests, lock tree, sessions) to your clipboard with OSC 52, "
	 "over SSH too; some terminals need it enabled (tmux: set-clipboard on; xterm: allowWindowOps)"},
	{{'w'}, KA_SNAPSHOT, {0}, KW_ALL, false, "w", NULL,
	 "snapshot for a ticket: the screen as plain text and the JSON record of the moment shown, in "
	 "dbtop-snapshot-YYYYmmdd-HHMMSS.txt / .json (mode 0600) in the current directory or --snapshot-dir"},
	{{'{'}, KA_MARK_PREV, {0}, KW_ALL, false, "{", NULL,
	 "travel to the timeline's previous mark (finding, setting change, DOWN / STALLED, restart, lock chain)"},
	{{'}'}, KA_MARK_NEXT, {0}, KW_ALL, false, "}", NULL, "travel to the timeline's next mark; past the newest, live again"},
	{{'u'}, KA_UNDO, {0}, KW_ALL, false, "u", NULL, "undo the newest setting change dbtop made"},
	{{'U'}, KA_UNDO_ALL, {0}, KW_ALL, false, "U", NULL, "undo every setting change dbtop made"},
	{{KEY_UP, 'k'}, KA_UP, {0}, KW_EVERY, false, "Up k", NULL, "select the row above"},
	{{KEY_DOWN, 'j'}, KA_DOWN, {0}, KW_EVERY, false, "Down j", NULL, "select the row below"},
	{{KEY_PPAGE}, KA_PGUP, {0}, KW_EVERY, false, "PgUp", NULL, "ten rows up; frozen: a minute back in time"},
	{{KEY_NPAGE}, KA_PGDN, {0}, KW_EVERY, false, "PgDn", NULL, "ten rows down; frozen: a minute forward"},
	{{KEY_HOME, 'g'}, KA_HOME, {0}, KW_EVERY, false, "Home g", NULL, "the first row (frozen, Home: the oldest sample kept)"},
	{{KEY_END, 'G'}, KA_END, {0}, KW_EVERY, false, "End G", NULL, "the last row (frozen, End: back to live)"},
};
/* clang-format on */
const size_t key_nbinds = sizeof key_binds / sizeof key_binds[0];

bool key_fleet_only(const struct key_bind *b)
{
	return b->where == KW_FLEET || b->act == KA_FLEET || b->act == KA_NEXT_SERVER || b->act == KA_PREV_SERVER;
}

/* Does binding b list key code ch? */
static bool binds(const struct key_bind *b, int ch)
{
	for (int i = 0; i < KEY_CODES && b->keys[i]; i++)
		if (b->keys[i] == ch)
			return true;
	return false;
}

const struct key_bind *key_find(int ch, int screen)
{
	if (ch == 0 || screen < 0 || (screen > SCREEN_MAX && screen != SCREEN_FLEET))
		return NULL;
	for (size_t i = 0; i < key_nbinds; i++)
		if ((key_binds[i].where & KW_SCREEN(screen)) && binds(&key_binds[i], ch))
			return &key_binds[i];
	return NULL;
}

void key_where_text(const struct key_bind *b, char *buf, size_t len)
{
	buf[0] = '\0';
	if ((b->where & KW_ALL) == KW_ALL) {
		str_copy(buf, len, "everywhere");
		return;
	}
	if (b->where == KW_FLEET) {
		str_copy(buf, len, "fleet");
		return;
	}
	for (int s = 0; s <= SCREEN_MAX; s++) {
		size_t l = strlen(buf);
		if (!(b->where & KW_SCREEN(s)))
			continue;
		if (s == 0)
			str_printf(buf + l, len - l, "%soverview", l ? ", " : "");
		else
			str_printf(buf + l, len - l, "%s%s%d", l ? ", " : "", l ? "" : "screen ", s);
	}
}

int key_help_scroll(int ch)
{
	/* the selection keys of the table, so the help scrolls as a pane does */
	const struct key_bind *b = key_find(ch, 0);
	switch (b ? b->act : KA_NONE) {
	case KA_UP: return -1;
	case KA_DOWN: return 1;
	case KA_PGUP: return -2;
	case KA_PGDN: return 2;
	case KA_HOME: return -3;
	case KA_END: return 3;
	default: return 0;
	}
}
