/* test_keys.c - the key table (tui/keys.c) that drives dispatch, the help
 * and the key bar: no key bound twice on a screen, nothing that acts on
 * the server reachable from the overview or from a movement key, x / c on
 * screen 3, and the help's scroll keys (q is not one: it closes the help). */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "../../tui/keys.c"
#include "tap.h"

static bool movement(enum key_act a)
{
	return a >= KA_UP && a <= KA_END;
}

static void test_unique(void)
{
	int dup = 0;
	for (int s = 0; s <= SCREEN_FLEET; s++)
		for (size_t i = 0; i < key_nbinds; i++)
			for (int k = 0; k < KEY_CODES && key_binds[i].keys[k]; k++)
				if (key_find(key_binds[i].keys[k], s) != &key_binds[i] &&
				    (key_binds[i].where & KW_SCREEN(s))) {
					printf("# key %d bound twice on screen %d\n", key_binds[i].keys[k], s);
					dup++;
				}
	CHECK(dup == 0, "no key code bound twice on one screen");
}

static void test_acting_keys(void)
{
	int bad = 0, nacts = 0;
	for (size_t i = 0; i < key_nbinds; i++) {
		const struct key_bind *b = &key_binds[i];
		if (!b->acts)
			continue;
		nacts++;
		if (b->where & KW_OVERVIEW)
			bad++;
		/* the same key code moves on no screen */
		for (int k = 0; k < KEY_CODES && b->keys[k]; k++)
			for (int s = 0; s <= SCREEN_FLEET; s++) {
				const struct key_bind *o = key_find(b->keys[k], s);
				if (o && movement(o->act))
					bad++;
			}
	}
	CHECK(nacts >= 4, "the acting bindings are marked (x, c, a, K)");
	CHECK(bad == 0, "no acting binding on the overview, none on a movement key");
	for (int ch = 1; ch < 512; ch++) {
		const struct key_bind *b = key_find(ch, 0);
		if (b && b->act == KA_PANE &&
		    (strcmp(b->command, "terminate") == 0 || strcmp(b->command, "cancel") == 0 ||
		     strcmp(b->command, "apply") == 0 || strcmp(b->command, "keep") == 0))
			bad++;
	}
	CHECK(bad == 0, "on the overview no key ends, cancels or changes anything");
	const struct key_bind *x = key_find('x', 3), *c = key_find('c', 3), *k = key_find('k', 3);
	CHECK(x && x->act == KA_PANE && strcmp(x->command, "terminate") == 0, "screen 3: x ends the selected session");
	CHECK(c && c->act == KA_PANE && strcmp(c->command, "cancel") == 0, "screen 3: c cancels its statement");
	CHECK(k && k->act == KA_UP, "screen 3: k moves up, nothing else");
	CHECK(!key_find('x', 0) && !key_find('c', 0), "overview: x and c are not bound");
	CHECK(!key_find('x', 2) && !key_find('a', 3), "x only on screen 3, a only on screen 5");
}

static void test_help(void)
{
	int bare = 0;
	char where[64];
	for (size_t i = 0; i < key_nbinds; i++)
		bare += !key_binds[i].name || !key_binds[i].help || !key_binds[i].keys[0];
	CHECK(bare == 0, "every binding has key codes, a name and a help text");
	CHECK(key_help_scroll('q') == 0 && key_help_scroll(KEY_ESC) == 0, "help: q and Esc are not scroll keys (they close it)");
	CHECK(key_help_scroll('j') == 1 && key_help_scroll(KEY_UP) == -1 && key_help_scroll(KEY_NPAGE) == 2,
	      "help: j / Up / PgDn scroll it");
	key_where_text(key_find('x', 3), where, sizeof where);
	CHECK(strcmp(where, "screen 3, 6") == 0, tname("where x applies: '%s' (locks and sessions)", where));
	key_where_text(key_find('q', 0), where, sizeof where);
	CHECK(strcmp(where, "everywhere") == 0, tname("where q applies: '%s'", where));
	key_where_text(key_find('d', 0), where, sizeof where);
	CHECK(strcmp(where, "overview, 2") == 0, tname("where d applies: '%s'", where));
}

/* The fleet screen (several targets): its keys, nothing acting on a server. */
static void test_fleet(void)
{
	int acting = 0;
	for (int ch = 1; ch < 512; ch++) {
		const struct key_bind *b = key_find(ch, SCREEN_FLEET);
		acting += b && (b->acts || b->act == KA_PANE || b->act == KA_UNDO || b->act == KA_UNDO_ALL);
	}
	CHECK(acting == 0, "fleet: no key acts on a server (no kill, cancel, tuning or undo)");
	const struct key_bind *s = key_find('s', SCREEN_FLEET), *e = key_find('\n', SCREEN_FLEET);
	CHECK(s && s->act == KA_FLEET_SORT, "fleet: s sorts the servers");
	CHECK(e && e->act == KA_ENTER && e->where == KW_FLEET, "fleet: Enter opens the selected server");
	for (int scr = 0; scr <= SCREEN_MAX; scr++) {
		const struct key_bind *f = key_find('F', scr), *n = key_find('n', scr), *p = key_find('p', scr);
		CHECK(f && f->act == KA_FLEET && n && n->act == KA_NEXT_SERVER && p && p->act == KA_PREV_SERVER,
		      tname("screen %d: F the fleet, n / p the next / previous server", scr));
	}
	CHECK(key_fleet_only(key_find('F', 0)) && key_fleet_only(key_find('s', SCREEN_FLEET)) &&
	      !key_fleet_only(key_find('s', 0)) && !key_fleet_only(key_find('q', SCREEN_FLEET)),
	      "fleet-only bindings (hidden with one target) are F, n, p and the fleet's own");
	CHECK(key_find('q', SCREEN_FLEET) && key_find('?', SCREEN_FLEET) && key_find('/', SCREEN_FLEET) &&
	      key_find(KEY_DOWN, SCREEN_FLEET), "fleet: q, ?, / and the movement keys");
	CHECK(!key_find('x', SCREEN_FLEET) && !key_find('c', SCREEN_FLEET) && !key_find('a', SCREEN_FLEET) &&
	      !key_find('u', SCREEN_FLEET), "fleet: x, c, a, u are not bound");
}

/* The number keys: one a screen, the help and the key bar's names. */
static void test_number_keys(void)
{
	int bad = 0;
	for (int s = 0; s <= SCREEN_MAX; s++) {
		const struct key_bind *b = key_find('0' + s, s);
		if (!b || b->act != KA_SCREEN)
			bad++;
	}
	CHECK(bad == 0, "0 .. SCREEN_MAX: each opens its screen, from every screen");
	CHECK(!key_find('0' + SCREEN_MAX + 1, 0), "the digit after the last screen is not bound");
	/* their texts follow the list: "0-N", "0-N Screens", "0 overview, 1 rates, ..." */
	char name[8], bar[16], help[400] = "0 overview";
	str_printf(name, sizeof name, "0-%d", SCREEN_MAX);
	str_printf(bar, sizeof bar, "0-%d Screens", SCREEN_MAX);
	for (int i = 0; i < NPANES; i++) {
		size_t l = strlen(help);
		str_printf(help + l, sizeof help - l, ", %d %s", pane_list[i].screen, pane_list[i].label);
	}
	const struct key_bind *b = key_find('1', 0);
	CHECK(b && strcmp(b->name, name) == 0 && strcmp(b->bar, bar) == 0,
	      tname("the number keys' name and key bar: '%s', '%s'", b ? b->name : "-", b && b->bar ? b->bar : "-"));
	const char *seven = "0 overview, 1 rates, 2 digests, 3 locks, 4 waits, 5 tuning, 6 sessions, 7 event log";
	CHECK(b && strcmp(b->help, help) == 0 && strncmp(b->help, seven, strlen(seven)) == 0,
	      tname("their help, from the list: '%s'", b ? b->help : "-"));
	b = key_find('x', PANE_SCREEN(sessions));
	CHECK(b && (b->where & KW_PANE(locks)) && (b->where & KW_PANE(sessions)) && !(b->where & KW_PANE(digests)),
	      "x: bound by pane name on locks and sessions, not on digests");
}

/* Every pane command of the key table is in the command table of each
 * pane it is bound on (by name), and the bindings reach every command. */
static void test_pane_commands(void)
{
	int missing = 0, unbound = 0;
	for (size_t i = 0; i < key_nbinds; i++) {
		const struct key_bind *b = &key_binds[i];
		for (int p = 0; b->act == KA_PANE && p < NPANES; p++)
			if ((b->where & KW_SCREEN(p + 1)) && !pane_command_find(pane_list[p].ops, b->command)) {
				printf("# %s: no command %s in the %s pane\n", b->name, b->command, pane_list[p].name);
				missing++;
			}
	}
	CHECK(missing == 0, "each pane command bound is in the table of every pane it is bound on");
	for (int p = 0; p < NPANES; p++)
		for (const struct pane_command *c = pane_list[p].ops->commands; c && c->name; c++) {
			bool bound = false;
			for (size_t i = 0; i < key_nbinds; i++)
				bound |= key_binds[i].act == KA_PANE && (key_binds[i].where & KW_SCREEN(p + 1)) &&
					 strcmp(key_binds[i].command, c->name) == 0;
			if (!bound) {
				printf("# %s's %s: no key\n", pane_list[p].name, c->name);
				unbound++;
			}
		}
	CHECK(unbound == 0, "every command of every pane has a key on that pane's screen");
}

int main(void)
{
	test_unique();
	test_fleet();
	test_acting_keys();
	test_help();
	test_number_keys();
	test_pane_commands();
	return tap_failed ? 1 : 0;
}
