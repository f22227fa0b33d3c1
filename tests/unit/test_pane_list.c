/* test_pane_list.c - the list of panes (panes/pane_list.h): each line's
 * name is its pane's, its screen follows its place, the tiled panes come
 * first, the counts derived from it and the look-up by name (the number
 * keys built from it: test_keys.c). */
#include <stdio.h>
#include <string.h>

#include "../../panes/pane.h"
#include "tap.h"

static void test_lines(void)
{
	int bad = 0, tiles = 0;
	bool tiled = true;
	for (int i = 0; i < NPANES; i++) {
		const struct pane_entry *e = &pane_list[i];
		if (!e->ops || strcmp(e->ops->name, e->name) != 0 || e->screen != i + 1 || !e->label[0]) {
			printf("# line %d (%s): ops name %s, screen %d\n", i, e->name, e->ops ? e->ops->name : "-",
			       e->screen);
			bad++;
		}
		if (e->tile && !tiled)
			bad++; /* a tile after a screen-only pane */
		tiled = e->tile;
		tiles += e->tile;
	}
	CHECK(bad == 0, "each line: its pane's name, screen = its place + 1, tiles first");
	CHECK(NPANES == 7 && tiles == NTILES && NTILES == 6 && SCREEN_MAX == NPANES,
	      tname("7 panes, 6 of them tiles, screens 1..7 (%d, %d/%d, %d)", NPANES, tiles, NTILES, SCREEN_MAX));
	CHECK(PANE_SCREEN(tuning) == 5 && PANE_SCREEN(sessions) == 6 && PANE_SCREEN(events) == 7 &&
		      pane_list[PANE_locks].ops == &locks_pane,
	      "screen numbers by name: tuning 5, sessions 6, events 7; locks' entry is locks_pane");
}

static void test_lookup(void)
{
	CHECK(pane_index_of("sessions") == PANE_sessions && pane_index_of("rates") == 0 &&
		      pane_index_of("events") == NPANES - 1,
	      "by name: sessions, rates (first), events (last)");
	CHECK(pane_index_of("fleet") == -1 && pane_index_of("") == -1 && pane_index_of(NULL) == -1 &&
		      pane_index_of("Sessions") == -1,
	      "no such pane: fleet (a screen, not a pane), \"\", NULL, Sessions");
}

int main(void)
{
	test_lines();
	test_lookup();
	return tap_failed ? 1 : 0;
}
