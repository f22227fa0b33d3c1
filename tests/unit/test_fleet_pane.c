/* test_fleet_pane.c - the fleet screen (panes/fleet.c): a row from a
 * server's model (UP with its rates, DOWN with the reason, STALLED when no
 * sample came), the sort orders, the filter, the selected row, and the
 * columns left out on a narrow terminal. A text grid stands in for the
 * screen. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../panes/fleet.h"
#include "../../util/util.h"
#include "tap.h"

#define GW 200
#define GH 16

static char grid[GH][GW + 1];

/* ASCII cells: each put writes its text at column x. */
static void grid_put(struct canvas *cv, int y, int x, enum role r, const char *s, int ncols)
{
	(void)cv;
	(void)r;
	(void)ncols;
	size_t n = strlen(s), have = strlen(grid[y]);
	while (have < (size_t)x)
		grid[y][have++] = ' ';
	if ((size_t)x + n > GW)
		n = GW - (size_t)x;
	memcpy(grid[y] + x, s, n);
	if ((size_t)x + n > have)
		grid[y][x + n] = '\0';
}

static const struct canvas_ops grid_ops = {.put = grid_put};

static struct canvas grid_canvas(int w, int h)
{
	memset(grid, 0, sizeof grid);
	struct canvas cv = {.ops = &grid_ops, .h = h, .w = w, .utf8 = false};
	return cv;
}

/* The grid row that starts with name, or NULL. */
static const char *row_of(const char *name)
{
	for (int i = 0; i < GH; i++)
		if (strncmp(grid[i], name, strlen(name)) == 0 && grid[i][strlen(name)] == ' ')
			return grid[i];
	return NULL;
}

/* Index of the grid row that starts with name, -1 none. */
static int line_of(const char *name)
{
	const char *r = row_of(name);
	return r ? (int)((r - grid[0]) / (GW + 1)) : -1;
}

static void sample_at(struct sample *s, enum source_state st, double t, uint64_t commits, uint64_t syncs)
{
	memset(s, 0, sizeof *s);
	s->state = st;
	s->mono = t;
	s->wall = 1764400000.0 + t;
	s->conn_gen = 1;
	if (st == STATE_UP) {
		sample_set(s, CTR_COMMITS, commits, 0);
		sample_set(s, CTR_WAL_SYNCS, syncs, 0);
	} else {
		str_copy(s->error, sizeof s->error, "cannot connect to db3:5432: Connection refused");
	}
}

/* A hand-made row. */
static struct fleet_row mk(int idx, const char *name, const char *state, double commits, double fpc, int sev)
{
	struct fleet_row r;
	memset(&r, 0, sizeof r);
	r.idx = idx;
	str_copy(r.name, sizeof r.name, name);
	str_copy(r.engine, sizeof r.engine, "PostgreSQL 15.18");
	str_copy(r.state, sizeof r.state, state);
	r.bad = strcmp(state, "UP") != 0;
	if (r.bad)
		str_copy(r.reason, sizeof r.reason, "connection refused");
	r.commits = (struct rate){.v = commits, .st = isnan(commits) ? RATE_DOWN : RATE_OK};
	r.fpc = (struct rate){.v = fpc, .st = isnan(fpc) ? RATE_DOWN : RATE_OK};
	r.lat = (struct rate){.v = NAN, .st = RATE_UNAVAIL};
	r.waiting = r.bad ? -1 : 0;
	r.for_s = -1;
	if (sev >= 0) {
		r.has_finding = true;
		r.sev = (enum finding_severity)sev;
		str_printf(r.finding, sizeof r.finding, "%s finding of %s", sev == SEV_CRIT ? "!!" : "!", name);
	}
	return r;
}

static void test_row_fill(void)
{
	struct model m;
	struct caps c;
	struct sample s;
	struct fleet_row r;
	model_init(&m, 16);
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_POSTGRESQL;
	c.flavour = FLAVOUR_POSTGRESQL;
	str_copy(c.version, sizeof c.version, "15.18 (Debian 15.18-1)");

	fleet_row_fill(&r, 0, "db1", "db1:5432", &m, 0, 0, 1764400000.0);
	CHECK_STR(r.state, "CONNECTING", "no sample yet: CONNECTING");
	model_set_caps(&m, &c);
	sample_at(&s, STATE_UP, 100, 1000, 1000);
	model_update(&m, &s);
	sample_at(&s, STATE_UP, 101, 1200, 1100);
	model_update(&m, &s);
	fleet_row_fill(&r, 0, "db1", "db1:5432", &m, 0, 3, 1764400101.5);
	CHECK_STR(r.state, "UP", "UP");
	CHECK_STR(r.engine, "PostgreSQL 15.18", "engine and version without the distribution's suffix");
	CHECK(r.commits.st == RATE_OK && fabs(r.commits.v - 200) < 1e-6, tname("commits/s 200 (%g)", r.commits.v));
	CHECK(!r.bad && !r.reason[0], "UP: no reason");
	fleet_row_fill(&r, 0, "db1", "db1:5432", &m, 0, 3, 1764400101 + 4.5);
	CHECK(strcmp(r.state, "STALLED") == 0 && strstr(r.reason, "no sample for 4s"),
	      tname("no sample for 4.5 s (limit 3): STALLED, '%s'", r.reason));
	sample_at(&s, STATE_DOWN, 102, 0, 0);
	model_update(&m, &s);
	fleet_row_fill(&r, 0, "db1", "db1:5432", &m, 1764400102.0, 3, 1764400110.0);
	CHECK(strcmp(r.state, "DOWN") == 0 && r.bad && strstr(r.reason, "Connection refused") && fabs(r.for_s - 8) < 1e-6,
	      "DOWN with the reason and for how long (8 s)");
	CHECK(r.commits.st != RATE_OK, "DOWN: commits/s unknown, not 0");
	model_free(&m);
}

static void test_draw(void)
{
	struct fleet_row rows[4] = {
		mk(0, "alpha", "UP", 50, 1.0, -1),
		mk(1, "bravo", "DOWN", NAN, NAN, -1),
		mk(2, "charlie", "UP", 900, 2.0, SEV_CRIT),
		mk(3, "delta", "UP", 10, 3.0, SEV_WARN),
	};
	struct pane_view v;
	memset(&v, 0, sizeof v);
	struct canvas cv = grid_canvas(120, GH);
	fleet_draw(rows, 4, &v, &cv);
	CHECK(v.nrows == 4 && v.nshown == 4, "4 rows shown");
	CHECK(line_of("alpha") < line_of("bravo") && line_of("bravo") < line_of("charlie") &&
	      line_of("charlie") < line_of("delta"), "as given: the order of the targets");
	CHECK(row_of("bravo") && strstr(row_of("bravo"), "DOWN      connection refused"),
	      tname("the DOWN row has its reason: '%s'", row_of("bravo") ? row_of("bravo") : ""));
	CHECK(row_of("charlie") && strstr(row_of("charlie"), "!! finding of charlie") && strstr(row_of("charlie"), "900"),
	      "a row: commits/s and the most severe finding");
	CHECK(strstr(grid[1], "ENGINE") && strstr(grid[1], "TOP WAIT"), "120 columns: engine and top wait shown");
	CHECK(v.sel_id == 0, "the first row selected");

	v.sort = FS_WORST;
	cv = grid_canvas(120, GH);
	fleet_draw(rows, 4, &v, &cv);
	CHECK(line_of("bravo") < line_of("charlie") && line_of("charlie") < line_of("delta") &&
	      line_of("delta") < line_of("alpha"), "worst first: DOWN, critical, warning, none");
	CHECK(v.sel_id == 1, "worst first: the DOWN server selected");
	v.sort = FS_COMMITS;
	v.sel = 1;
	cv = grid_canvas(120, GH);
	fleet_draw(rows, 4, &v, &cv);
	CHECK(line_of("charlie") < line_of("alpha") && line_of("alpha") < line_of("delta") &&
	      line_of("delta") < line_of("bravo"), "commits/s: highest first, unknown last");
	CHECK(v.sel_id == 0, "the 2nd row by commits/s is alpha");
	const struct fleet_row *order[4];
	CHECK(fleet_order(rows, 4, &v, order) == 4 && order[0]->idx == 2, "fleet_order: the rows as drawn");

	char err[200];
	v.sort = FS_GIVEN;
	v.sel = 0;
	CHECK(pane_filter_set(&v, "down|crit", err, sizeof err) == 0, "filter set");
	CHECK(pane_filter_set(&v, "^(bravo|delta) ", err, sizeof err) == 0, "filter by name");
	cv = grid_canvas(120, GH);
	fleet_draw(rows, 4, &v, &cv);
	CHECK(v.nrows == 2 && row_of("bravo") && row_of("delta") && !row_of("alpha"), "filtered: 2 of 4");
	CHECK(strstr(grid[0], "filter /^(bravo|delta) /: 2 of 4") != NULL, tname("the title says so: '%s'", grid[0]));
	pane_filter_free(&v);

	cv = grid_canvas(80, GH);
	fleet_draw(rows, 4, &v, &cv);
	CHECK(!strstr(grid[1], "ENGINE") && !strstr(grid[1], "TOP WAIT") && strstr(grid[1], "FINDING") &&
	      strstr(grid[1], "COMMIT/S"), tname("80 columns: no engine, no top wait, the finding stays: '%s'", grid[1]));
	for (int i = 0; i < GH; i++)
		CHECK((int)strlen(grid[i]) <= 80, tname("80 columns: row %d within the width", i));

	/* labels as long as host:port (fleet screen seen at 120x40 without
	 * the top wait): the top wait comes before the engine */
	struct fleet_row wide[2] = {
		mk(0, "127.0.0.1:30100", "UP", 50, 1.0, -1),
		mk(1, "127.0.0.1:40100#2", "UP", 10, 3.0, SEV_WARN),
	};
	cv = grid_canvas(120, GH);
	fleet_draw(wide, 2, &v, &cv);
	CHECK(strstr(grid[1], "TOP WAIT") && strstr(grid[1], "FINDING"),
	      tname("120 columns, 17-column names: the top wait shown, the finding stays: '%s'", grid[1]));
	cv = grid_canvas(160, GH);
	fleet_draw(wide, 2, &v, &cv);
	CHECK(strstr(grid[1], "TOP WAIT") && strstr(grid[1], "ENGINE"), "160 columns: the top wait and the engine");
}

/* The selected server stays selected as a refresh re-sorts the rows (once
 * a key chose it); Enter between a re-sort and the next frame opens the one
 * the screen showed; one filtered away since opens nothing. */
static void test_follow(void)
{
	struct fleet_row rows[4] = {
		mk(0, "alpha", "UP", 50, 1.0, -1),
		mk(1, "bravo", "DOWN", NAN, NAN, -1),
		mk(2, "charlie", "UP", 900, 2.0, SEV_CRIT),
		mk(3, "delta", "UP", 10, 3.0, SEV_WARN),
	};
	const struct fleet_row *order[4];
	struct pane_view v;
	memset(&v, 0, sizeof v);
	v.sort = FS_COMMITS;
	struct canvas cv = grid_canvas(120, GH);
	fleet_draw(rows, 4, &v, &cv);
	v.sel_follow = true;   /* Down: alpha, 2nd by commits/s */
	v.sel = 1;
	cv = grid_canvas(120, GH);
	fleet_draw(rows, 4, &v, &cv);
	CHECK(v.sel_id == 0, "alpha selected");
	rows[0].commits.v = 1000;   /* the next refresh: alpha first */
	cv = grid_canvas(120, GH);
	fleet_draw(rows, 4, &v, &cv);
	CHECK(v.sel == 0 && v.sel_id == 0, tname("re-sorted: the selection moved with alpha to row %d", v.sel));
	rows[3].commits.v = 2000;   /* a re-sort the screen has not drawn yet */
	int n = fleet_order(rows, 4, &v, order);
	int at = pane_target(&v, n, fleet_row_key, order);
	CHECK(at == 1 && order[at]->idx == 0, tname("Enter before the next frame: alpha, now row %d", at));
	char err[200];
	CHECK(pane_filter_set(&v, "^(bravo|delta) ", err, sizeof err) == 0, "filter by name");
	n = fleet_order(rows, 4, &v, order);
	CHECK(pane_target(&v, n, fleet_row_key, order) == -1, "alpha filtered away before the frame: nothing opened");
	cv = grid_canvas(120, GH);
	fleet_draw(rows, 4, &v, &cv);
	CHECK(v.sel_id == 3 || v.sel_id == 1, tname("the next frame selects the row in its place (%lld)", v.sel_id));
	pane_filter_free(&v);
}

int main(void)
{
	setlocale(LC_ALL, "C");
	test_row_fill();
	test_draw();
	test_follow();
	return TAP_DONE();
}
