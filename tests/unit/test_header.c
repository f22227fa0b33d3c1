/* test_header.c - the screen's lines around the panes, drawn on a text
 * grid from explicit inputs: the header (panes/header.c: the uptime, the
 * state with REPLAY / PAUSED, the TUNED countdown, which fields fit a
 * narrow terminal), the too-small message, the fleet's header
 * (panes/fleetrows.c), the caption line (panes/caption.c) and the
 * confirmation box (panes/ask.c). */
#include <stdio.h>
#include <string.h>

#include "../../panes/ask.h"
#include "../../panes/caption.h"
#include "../../panes/fleetrows.h"
#include "../../panes/header.h"
#include "../../util/util.h"
#include "tap.h"

#define GW 200
#define GH 30

#include "grid.h"

/* Row y of the grid, w columns, trailing blanks cut. */
static const char *row(int y, int w)
{
	static char buf[GW + 1];
	memcpy(buf, cells[y], (size_t)w);
	buf[w] = '\0';
	for (int i = w - 1; i >= 0 && buf[i] == ' '; i--)
		buf[i] = '\0';
	return buf;
}

static bool row_has(int y, const char *text)
{
	return strstr(cells[y], text) != NULL;
}

static void test_uptime(void)
{
	char b[32];
	header_uptime(0, b, sizeof b);
	CHECK_STR(b, "?", "no uptime: ?");
	header_uptime(2530, b, sizeof b);
	CHECK_STR(b, "42m 10s", "under an hour: minutes and seconds");
	header_uptime(5 * 3600 + 12 * 60 + 9, b, sizeof b);
	CHECK_STR(b, "5h 12m", "under a day: hours and minutes");
	header_uptime(3 * 86400 + 4 * 3600 + 59, b, sizeof b);
	CHECK_STR(b, "3d 04h", "days and hours");
}

static void test_state(struct model *m, struct header_in *in)
{
	char st[160];
	m->intervals = 0;
	header_state(in, st, sizeof st);
	CHECK_STR(st, "CONNECTING", "no sample yet: CONNECTING");
	m->intervals = 3;
	header_state(in, st, sizeof st);
	CHECK_STR(st, "UP", "UP");
	m->last.state = STATE_STALLED;
	header_state(in, st, sizeof st);
	CHECK_STR(st, "STALLED: query exceeded 2.5s", "STALLED with the source's time limit");
	m->last.state = STATE_DOWN;
	m->last.mono = 100;
	m->last.retry_in = 8;
	in->now_mono = 103.2;
	header_state(in, st, sizeof st);
	CHECK_STR(st, "DOWN - retrying in 5s", "DOWN: the seconds to the next attempt, rounded up");
	in->now_mono = 109;
	header_state(in, st, sizeof st);
	CHECK_STR(st, "DOWN - reconnecting", "DOWN past the retry: the attempt is under way");
	m->last.state = STATE_UP;
	in->replay = true;
	in->speed = 4;
	in->paused = true;
	header_state(in, st, sizeof st);
	CHECK_STR(st, "UP  REPLAY x4  PAUSED", "a paused replay at x4");
	in->ended = true;
	in->paused = false;
	header_state(in, st, sizeof st);
	CHECK_STR(st, "UP  REPLAY ended", "a replay at its end");
	in->replay = in->ended = false;
}

static void test_tuned(struct header_in *in)
{
	static struct tune_view tv;
	char t[96];
	memset(&tv, 0, sizeof tv);
	in->tv = &tv;
	header_tuned(in, t, sizeof t);
	CHECK_STR(t, "", "nothing in force: no TUNED");
	tv.nactive = 2;
	tv.active[0].wall = in->now_wall - 10;
	tv.active[1].wall = in->now_wall - 65; /* the oldest last */
	header_tuned(in, t, sizeof t);
	CHECK_STR(t, " TUNED 2 1m05s ", "TUNED: how many and since the oldest");
	tv.ttl = 600;
	tv.active[0].mono = in->now_mono - 30;
	tv.active[1].mono = in->now_mono - 100; /* the first applied counts */
	header_tuned(in, t, sizeof t);
	CHECK_STR(t, " TUNED 2 1m05s, reverts in 8m20s ", "--tune-ttl: the countdown from the first applied");
	tv.ttl = 0;
	tv.nactive = 0;
}

static void test_draw(struct model *m, struct header_in *in)
{
	struct canvas cv = grid(120, 1);
	m->last.uptime_s = 3 * 86400 + 4 * 3600;
	m->last.query_ms = 1.25;
	header_draw(&cv, in);
	const char *r = row(0, 120);
	char want[128];
	str_printf(want, sizeof want, " dbtop UP  %s 10.11.19  db1.example:3306  up 3d 04h  every 1s",
		   flavour_name(FLAVOUR_MARIADB));
	CHECK(strncmp(r, want, strlen(want)) == 0,
	      tname("the fields in order: '%s'", r));
	CHECK(strcmp(r + strlen(r) - 20, "cost 1.2ms  07:06:40") == 0 || strstr(r + 90, "cost 1.2ms") != NULL,
	      tname("the cost and the clock at the right: '%s'", r));
	CHECK(roles[0][1] == R_HEADER && roles[0][119] == R_HEADER, "the header's role across the row");
	cv = grid(40, 1);
	header_draw(&cv, in);
	r = row(0, 40);
	CHECK(strncmp(r, " dbtop UP  db1.example:3306", 27) == 0 && !strstr(r, "10.11"),
	      tname("narrow: the host before the engine: '%s'", r));
	cv = grid(26, 1);
	in->n = 3;
	in->idx = 1;
	in->name = "replica-with-a-long-name";
	header_draw(&cv, in);
	r = row(0, 26);
	CHECK(strncmp(r, " dbtop UP  rep", 14) == 0 && !strstr(r, "replica-with"),
	      tname("not even the host fits: its name's start, cut marked: '%s'", r));
	cv = grid(120, 1);
	header_draw(&cv, in);
	CHECK(row_has(0, "[2/3] replica-with-a-long-name (db1.example:3306)"), "several servers: [i/n] name (host)");
	in->n = 1;
	m->last.state = STATE_DOWN;
	m->last.retry_in = 1000;
	cv = grid(120, 1);
	header_draw(&cv, in);
	CHECK(roles[0][8] == R_HEADER_DOWN && roles[0][90] == R_HEADER_DOWN, "DOWN: the header's DOWN role");
	m->last.state = STATE_UP;
	cv = grid(30, 5);
	header_too_small(&cv, 50, 12);
	CHECK_STR(row(0, 30), "enlarge to 50x12; q quits", "too small: the longest message that fits");
	cv = grid(49, 11);
	header_too_small(&cv, 50, 12);
	CHECK_STR(row(0, 49), "enlarge the terminal to 50x12 (now 49x11)", "too small: the size now when it fits");
}

static void test_fleet_header(void)
{
	struct fleet_row rows[4];
	memset(rows, 0, sizeof rows);
	str_copy(rows[0].state, sizeof rows[0].state, "UP");
	str_copy(rows[1].state, sizeof rows[1].state, "DOWN");
	rows[1].bad = true;
	str_copy(rows[2].state, sizeof rows[2].state, "STALLED");
	rows[2].bad = true;
	str_copy(rows[3].state, sizeof rows[3].state, "CONNECTING");
	struct canvas cv = grid(120, 1);
	fleet_header_draw(&cv, rows, 4, 2, true, 1764400000.0);
	CHECK(strncmp(row(0, 120), " dbtop FLEET 4 servers: 1 UP, 1 DOWN, 1 STALLED, 1 CONNECTING", 61) == 0,
	      tname("the fleet's states counted: '%s'", row(0, 120)));
	CHECK(row_has(0, "every 2s  PAUSED"), "the interval and PAUSED at the right");
	CHECK(roles[0][30] == R_HEADER_DOWN, "a server DOWN: the header's DOWN role");
	cv = grid(60, 1);
	fleet_header_draw(&cv, rows, 4, 2, false, 1764400000.0);
	CHECK(!row_has(0, "every"), "no room: the right part left out whole");
}

static void test_caption(void)
{
	char b[400];
	caption_tour_text(b, sizeof b, 1, 5, "pg-lock-chain", "a lock chain forms", false, 1, 80);
	CHECK_STR(b, " 2/5 pg-lock-chain  a lock chain forms", "the tour's caption: i/n, the incident, its caption");
	caption_tour_text(b, sizeof b, 1, 5, "pg-lock-chain", "a lock chain forms", false, 1, 30);
	CHECK_STR(b, " 2/5   a lock chain forms", "no room: the incident's name left out");
	caption_tour_text(b, sizeof b, 4, 5, "x", "y", true, 1, 200);
	CHECK(strstr(b, "end of the tour") != NULL, "the last incident ended: the end of the tour");
	caption_tour_text(b, sizeof b, 1, 5, "x", "y", true, 0, 200);
	CHECK(strstr(b, "> the next one") != NULL, "ended at speed 0: > for the next one");
	struct canvas cv = grid(20, 24);
	CHECK(caption_draw(&cv, 22, " a caption far too long for one row") == 2 && row_has(20, "a caption") &&
		      row_has(21, "for one row") && roles[20][0] == R_SELECTED,
	      "two rows above the bottom when one would cut it");
	cv = grid(20, 19);
	CHECK(caption_draw(&cv, 17, " a caption far too long for one row") == 1 && row_has(16, "a caption"),
	      "under 20 rows: one row");
}

static void test_ask(void)
{
	struct pane_ask a;
	memset(&a, 0, sizeof a);
	a.act = PA_TERMINATE;
	str_copy(a.what, sizeof a.what, "session 42 of app@10.0.0.7, running UPDATE t SET x = 1");
	struct canvas cv = grid(80, 24);
	ask_draw(&cv, &a, false);
	int top = -1, bottom = -1;
	for (int y = 0; y < 24; y++)
		if (cells[y][2] == '+')
			top < 0 ? (top = y) : (bottom = y);
	CHECK(top > 0 && bottom > top && cells[top][77] == '+' && cells[top][3] == '-',
	      tname("a framed box (rows %d-%d, columns 2-77)", top, bottom));
	CHECK(row_has(top + 1, "End this session?") && roles[top + 1][4] == R_CRIT, "its question first");
	CHECK(row_has(top + 2, "session 42 of app@10.0.0.7"), "then whom and what");
	CHECK(row_has(bottom - 1, "y: do it"), "the answer keys last");
	CHECK(roles[top - 1][0] == R_NORMAL && roles[bottom + 1][79] == R_NORMAL, "a blank row above and below, edge to edge");
	cv = grid(80, 24);
	a.act = PA_TUNE_APPLY;
	ask_draw(&cv, &a, true);
	CHECK(row_has(top + 1, "Change this setting?") && row_has(top + 1, "nothing will be done"),
	      "a recording: said before any key");
	CHECK(row_has(bottom - 1, "a recording cannot act"), "a recording: any key closes");
	CHECK(strcmp(ask_title(PA_TUNE_ORPHANS), "Revert the changes an earlier dbtop left in force?") == 0,
	      "the orphans' question");
}

int main(void)
{
	static struct model m;
	model_init(&m, 16);
	str_copy(m.caps.version, sizeof m.caps.version, "10.11.19-MariaDB-0+deb12u1");
	m.caps.flavour = FLAVOUR_MARIADB;
	m.last.wall = 1764400000.0;
	m.last.state = STATE_UP;
	struct header_in in = {.m = &m, .live = &m, .name = "", .host = "db1.example:3306", .n = 1,
			       .query_timeout = 2.5, .interval = 1, .speed = 1, .now_mono = 1000, .now_wall = 1764400000.0};
	test_uptime();
	test_state(&m, &in);
	test_tuned(&in);
	test_draw(&m, &in);
	test_fleet_header();
	test_caption();
	test_ask();
	model_free(&m);
	return tap_failed ? 1 : 0;
}
