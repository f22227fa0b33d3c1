/* test_pane_list.c - the list of panes (panes/pane_list.h): each line's
 * name is its pane's, its screen follows its place, the tiled panes come
 * first, the counts derived from it, the look-up by name, and the panes'
 * named command tables (the number keys built from the list and the key
 * table's commands: test_keys.c). */
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
	CHECK(NPANES >= 7 && tiles == NTILES && NTILES >= 6 && SCREEN_MAX == NPANES,
	      tname("7 panes or more, NTILES of them tiles, screens 1..NPANES (%d, %d/%d, %d)", NPANES, tiles, NTILES,
		    SCREEN_MAX));
	CHECK(PANE_SCREEN(tuning) == 5 && PANE_SCREEN(sessions) == 6 && PANE_SCREEN(events) == 7 &&
		      pane_list[PANE_locks].ops == &locks_pane,
	      "screen numbers by name: tuning 5, sessions 6, events 7; locks' entry is locks_pane");
}

static void test_lookup(void)
{
	CHECK(pane_index_of("sessions") == PANE_sessions && pane_index_of("rates") == 0 &&
		      pane_index_of("events") == PANE_events && pane_index_of("tuning") == 4,
	      "by name: sessions, rates (first), events, tuning (5th)");
	CHECK(pane_index_of("fleet") == -1 && pane_index_of("") == -1 && pane_index_of(NULL) == -1 &&
		      pane_index_of("Sessions") == -1,
	      "no such pane: fleet (a screen, not a pane), \"\", NULL, Sessions");
}

/* The named command tables: found by name in their own pane only, each
 * name once a table, an unknown name runs nothing. */
static void test_commands(void)
{
	int dup = 0, ncmd = 0;
	for (int i = 0; i < NPANES; i++)
		for (const struct pane_command *c = pane_list[i].ops->commands; c && c->name; c++, ncmd++)
			if (pane_command_find(pane_list[i].ops, c->name) != c || !c->run)
				dup++;
	CHECK(dup == 0 && ncmd >= 22, tname("every command found by its name in its pane, none twice (%d commands)", ncmd));
	const struct pane_command *t = pane_command_find(&locks_pane, "terminate");
	CHECK(t && strcmp(t->name, "terminate") == 0 && pane_command_find(&sessions_pane, "terminate") &&
		      pane_command_find(&sessions_pane, "terminate") != t,
	      "terminate: locks' own and sessions' own");
	CHECK(!pane_command_find(&digests_pane, "terminate") && !pane_command_find(&events_pane, "sort") &&
		      !pane_command_find(&locks_pane, "Terminate") && !pane_command_find(&locks_pane, NULL) &&
		      !pane_command_find(NULL, "sort"),
	      "not found: terminate in digests, anything in events, Terminate, NULL");
	struct model m;
	struct pane_view v;
	memset(&m, 0, sizeof m);
	memset(&v, 0, sizeof v);
	struct pane_reaction r = pane_command(&rates_pane, "reverse", &m, &v);
	CHECK(!r.handled && v.sort == 0 && !r.status[0], "rates has no reverse: not handled, the view untouched");
	r = pane_command(&rates_pane, "sort", &m, &v);
	CHECK(r.handled && v.sort == 1 && strcmp(r.status, "rates sorted by name") == 0 && !r.ask.act && !r.link.screen &&
		      !r.copy,
	      tname("rates' sort: the view sorted, the reaction a status only ('%s')", r.status));
	r = pane_command(&rates_pane, "sort", &m, &v);
	CHECK(r.handled && v.sort == 0 && strcmp(r.status, "rates in table order") == 0, "sort again: table order");
}

/* Panes own their state: made by pane_view_init for the panes that have
 * one (sessions: tags and plan; tuning: the scope), none for the others,
 * freed by pane_view_free; a view without it reads as an empty one. */
static void test_state(void)
{
	struct pane_view a, b, c;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	memset(&c, 0, sizeof c);
	CHECK(sessions_ntags(&a) == 0, "a view made without its state: no tags");
	sessions_untag_all(&a);
	sessions_show_plan(&a, NULL);
	pane_view_init(&a, &sessions_pane);
	pane_view_init(&b, &tuning_pane);
	pane_view_init(&c, &rates_pane);
	CHECK(a.state && b.state && a.state != b.state && !c.state,
	      "sessions and tuning have their own state, rates none");
	CHECK(sessions_pane.init && sessions_pane.free && tuning_pane.init && !rates_pane.init && !locks_pane.init,
	      "init / free: sessions and tuning");
	pane_view_free(&a, &sessions_pane);
	pane_view_free(&b, &tuning_pane);
	pane_view_free(&c, &rates_pane);
	CHECK(!a.state && !b.state && !c.state, "freed: no state left");
}

int main(void)
{
	test_lines();
	test_lookup();
	test_commands();
	test_state();
	return tap_failed ? 1 : 0;
}
