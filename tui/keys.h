/* keys.h - every key binding of the screen in one table: the key codes,
 * the action, where it applies and its help text. The screen dispatches
 * through key_find() and generates the help and the key bar from the same
 * table, so the two cannot drift apart. */
#ifndef DBTOP_KEYS_H
#define DBTOP_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "../panes/pane_list.h"
#include "../run/travel.h"

#define KEY_ESC 27

/* What a binding does. KA_PANE runs the pane's command called command
 * (its table: pane_ops.commands). */
enum key_act {
	KA_NONE = 0,
	KA_QUIT,
	KA_HELP,
	KA_PAUSE,
	KA_SLOWER,           /* longer refresh interval */
	KA_FASTER,
	KA_FILTER,
	KA_THEME,
	KA_ENTER,            /* open the focused pane / details of the row */
	KA_BACK,
	KA_FOCUS_NEXT,
	KA_FOCUS_PREV,
	KA_ZOOM,
	KA_SCREEN,           /* cmd: the screen, 0 the overview */
	KA_UNDO,
	KA_UNDO_ALL,
	KA_UP,
	KA_DOWN,
	KA_PGUP,
	KA_PGDN,
	KA_HOME,
	KA_END,
	KA_PANE,
	KA_EXPLAIN,          /* the plan of the selected session (sessions) */
	KA_TOUR_NEXT,        /* the demo tour: the next incident */
	KA_TOUR_PREV,
	KA_FLEET,            /* the fleet screen (several targets) */
	KA_NEXT_SERVER,      /* the next server's panes (the fleet: the next row) */
	KA_PREV_SERVER,
	KA_FLEET_SORT,       /* the fleet: sort by the next column */
	KA_TRAVEL,           /* time travel; cmd: TR_* */
	KA_SNAPSHOT,         /* write the screen and the JSON record to files */
	KA_MARK_PREV,        /* the timeline's previous mark */
	KA_MARK_NEXT,        /* ... next mark */
};

/* Time travel moves (KA_TRAVEL's cmd): TR_* of run/travel.h. */

/* Where a binding applies: the overview (screen 0) and the panes' screens
 * 1..SCREEN_MAX (panes/pane_list.h), a pane's by its name: KW_PANE(locks). */
#define KW_SCREEN(n) (1u << (n))
#define KW_OVERVIEW KW_SCREEN(0)
#define KW_PANE(name) KW_SCREEN(PANE_SCREEN(name))
#define KW_PANES (((1u << (SCREEN_MAX + 1)) - 1) & ~KW_OVERVIEW)
#define KW_ALL (KW_OVERVIEW | KW_PANES)
/* The fleet screen (several targets): not a pane, a screen of its own. */
#define SCREEN_FLEET 15
#define KW_FLEET KW_SCREEN(SCREEN_FLEET)
#define KW_EVERY (KW_ALL | KW_FLEET)
_Static_assert(SCREEN_MAX < SCREEN_FLEET, "the fleet's screen number is no pane's");

#define KEY_CODES 12

struct key_bind {
	int keys[KEY_CODES];  /* the key codes, 0-terminated */
	enum key_act act;
	union {
		int cmd;             /* KA_TRAVEL: TR_*; else 0 */
		const char *command; /* KA_PANE: the name in the pane's command table (panes/pane.h) */
	};
	unsigned where;       /* KW_* */
	bool acts;            /* acts on the server (ends, cancels, changes): only
			       * on the screen that shows its target */
	const char *name;     /* in the help: "x", "Up Down j k" */
	const char *bar;      /* in the key bar; NULL: not there */
	const char *help;
};

extern const struct key_bind key_binds[];
extern const size_t key_nbinds;

/* The binding of key code ch on screen (0: the overview, SCREEN_FLEET the
 * fleet), or NULL. */
const struct key_bind *key_find(int ch, int screen);
/* Does b matter only with several targets (the fleet screen, F, n, p)?
 * With one target the help and the key bar leave it out. */
bool key_fleet_only(const struct key_bind *b);
/* Where b applies, for the help: "everywhere", "overview", "screen 3". */
void key_where_text(const struct key_bind *b, char *buf, size_t len);
/* Scroll keys of the help screen: -1 / +1 a line, -2 / +2 a page, -3 / +3
 * the top / the end; 0: not a scroll key (it closes the help). */
int key_help_scroll(int ch);

#endif
