/* pane_list.h - the panes, one line each: adding a pane is its file,
 * panes/NAME.c (exporting `const struct pane_ops NAME_pane`), and its line
 * here. Everything positional is derived from this list: the number of
 * panes and of overview tiles, the screen numbers, the number keys and
 * their help, the key table's pane masks (KW_PANE(NAME), tui/keys.h). */
#ifndef DBTOP_PANE_LIST_H
#define DBTOP_PANE_LIST_H

#include <stdbool.h>

/* X(NAME, SCREEN, LABEL, TILE): NAME the pane (its ops NAME_pane, the key
 * table's KW_PANE(NAME)); SCREEN its screen number and number key (the
 * lines in that order: 1, 2, ...); LABEL its name in the help of the number
 * keys; TILE whether the overview tiles it (the tiled ones first). */
#define PANE_LIST(X) \
	X(rates, 1, "rates", true) \
	X(digests, 2, "digests", true) \
	X(locks, 3, "locks", true) \
	X(waits, 4, "waits", true) \
	X(tuning, 5, "tuning", true) \
	X(sessions, 6, "sessions", true) \
	X(events, 7, "event log", false) \
	/* a new pane: its line here, above this one */

/* PANE_rates, ... : a pane's index (its screen less one); NPANES of them */
#define PANE_INDEX_(name, screen, label, tile) PANE_##name,
enum pane_index { PANE_LIST(PANE_INDEX_) NPANES };
#undef PANE_INDEX_
/* the overview's tiles: the first NTILES panes */
#define PANE_TILE_(name, screen, label, tile) +((tile) ? 1 : 0)
enum { NTILES = 0 PANE_LIST(PANE_TILE_) };
#undef PANE_TILE_
/* the highest screen number (0: the overview) */
#define SCREEN_MAX ((int)NPANES)
/* the screen of pane NAME */
#define PANE_SCREEN(name) (PANE_##name + 1)

/* the list's promises, checked as it compiles */
#define PANE_CHECK_(name, screen, label, tile) \
	_Static_assert(PANE_##name + 1 == (screen), "pane_list.h: " #name "'s screen number follows its line"); \
	_Static_assert(!(tile) || (int)PANE_##name < (int)NTILES, "pane_list.h: " #name ": the tiled panes come first");
PANE_LIST(PANE_CHECK_)
#undef PANE_CHECK_
_Static_assert(SCREEN_MAX <= 9, "pane_list.h: a number key per screen, 1 to 9");

/* "1 rates, 2 digests, ...": the number keys' help */
#define PANE_HELP_(name, screen, label, tile) ", " #screen " " label
#define PANE_SCREENS_HELP "0 overview" PANE_LIST(PANE_HELP_)

struct pane_ops;
/* each pane's ops table: NAME_pane (panes/NAME.c) */
#define PANE_EXTERN_(name, screen, label, tile) extern const struct pane_ops name##_pane;
PANE_LIST(PANE_EXTERN_)
#undef PANE_EXTERN_

/* One pane of the list. */
struct pane_entry {
	const char *name; /* NAME of its line (= ops->name, the unit test checks) */
	const struct pane_ops *ops;
	int screen;
	const char *label;
	bool tile;
};

/* The list, in screen order (pane_list[i]: screen i + 1). */
extern const struct pane_entry pane_list[NPANES];
/* The index of the pane called name (pane_ops.name), or -1. */
int pane_index_of(const char *name);

#endif
