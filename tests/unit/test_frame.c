/* test_frame.c - the body of a server's screen (panes/frame.c) on a text
 * grid, with stand-in panes: the overview stacks the panes at the heights
 * the layout gives (panes/layout.c), titles on their first row, the
 * focused one selected, a cut pane's title saying how much shows; from
 * 140 columns, when one column would cut a pane, two columns with a rule
 * between; one pane alone, the rates pane with the connection's notes
 * under it; the findings lines (two rows a finding on the overview when
 * there is room, the evidence and the suggestion on a pane's screen); the
 * DOWN line. */
#include <stdio.h>
#include <string.h>

#include "../../panes/frame.h"
#include "../../util/util.h"
#include "tap.h"

#define GW 160
#define GH 40

#include "grid.h"

/* The stand-in panes: pane i needs needs[i] rows (minimum mins[i]) and
 * has rows[i] rows, draws "body i" on each of its rows and counts how many
 * it drew. */
static int needs[7] = {4, 6, 3, 3, 2, 2, 1}, mins[7] = {2, 2, 1, 1, 1, 1, 1}, nrows[7] = {4, 20, 3, 3, 2, 2, 1};

static int idx_of(const struct pane_view *v);
static struct pane_view views[7];

static int idx_of(const struct pane_view *v)
{
	return (int)(v - views);
}

static void fake_draw(const struct model *m, struct pane_view *v, struct canvas *cv)
{
	(void)m;
	int i = idx_of(v);
	v->nrows = nrows[i];
	for (int y = 0; y < cv->h && y < nrows[i]; y++) {
		cv_printf(cv, y, 0, R_VALUE, "body %d", i);
		v->nshown = y + 1;
	}
}

static int fake_need(const struct model *m, const struct pane_view *v, int w, int *min)
{
	(void)m;
	(void)w;
	*min = mins[idx_of(v)];
	return needs[idx_of(v)];
}

#define FAKE(n, t) {.name = n, .title = t, .draw = fake_draw, .need = fake_need, .min_h = 1}
static const struct pane_ops fakes[7] = {FAKE("rates", "rates"),     FAKE("digests", "digests"), FAKE("locks", "locks"),
					 FAKE("waits", "waits"),     FAKE("tuning", "tuning"),   FAKE("sessions", "sessions"),
					 FAKE("events", "events")};
static const struct pane_ops *const fake_panes[7] = {&fakes[0], &fakes[1], &fakes[2], &fakes[3],
						      &fakes[4], &fakes[5], &fakes[6]};

/* The rows whose first cell starts "[i]" (titles), in order, into t[]. */
static int titles(int h, int *t, int *at)
{
	int n = 0;
	for (int y = 0; y < h; y++)
		if (cells[y][0] == '[')
			t[n] = cells[y][1] - '1', at[n++] = y;
	return n;
}

static void test_overview(struct model *m, struct frame_in *in)
{
	struct canvas cv = grid(80, 24);
	int t[8], at[8];
	frame_overview(&cv, in, 1, 22);
	int n = titles(24, t, at);
	/* rows 1..22: needs 1+4, 1+6, 1+3, 1+3, 1+2, 1+2 = 26 > 22; the
	 * minimums (3, 3, 2, 2, 2, 2 = 14) first, then by priority: rates (to
	 * 5), digests (to 7), waits (to 4) ...: 5, 7, 2, 4, 2, 2 */
	CHECK(n == 6 && at[0] == 1 && at[1] == 6 && at[2] == 13 && at[3] == 15 && at[4] == 19 && at[5] == 21,
	      tname("six titles at rows 1, 6, 13, 15, 19, 21 (%d: %d %d %d %d %d %d)", n, at[0], at[1], at[2], at[3],
		    at[4], at[5]));
	CHECK(strncmp(cells[6], "[2] digests  6 of 20 rows", 25) == 0, tname("a cut pane says so: '%.40s'", cells[6]));
	CHECK(roles[1][0] == R_SELECTED && roles[6][0] == R_TITLE, "the focused pane's title selected, the others not");
	CHECK(strncmp(cells[2], "body 0", 6) == 0 && views[0].nshown == 4 && views[0].focused && !views[0].full,
	      "a pane's body under its title, its rows counted");
	in->sessions_tile = false;
	cv = grid(80, 24);
	frame_overview(&cv, in, 1, 22);
	n = titles(24, t, at);
	CHECK(n == 5 && t[4] == 4, "no sessions tile: five panes");
	in->sessions_tile = true;
	in->zoom = true;
	in->focus = 1;
	/* 14 rows: every minimum and no more (3, 3, 2, 2, 2, 2); zoomed, the
	 * others' minimum is their summary row, the focused pane takes it */
	cv = grid(80, 24);
	frame_overview(&cv, in, 1, 14);
	n = titles(24, t, at);
	CHECK(n == 6 && at[1] - at[0] == 2 && at[2] - at[1] == 4 && strstr(cells[at[1]], "zoomed (z)"),
	      tname("zoomed: the others keep their summary row, the focused pane the rows left (%d %d %d)", at[0],
		    at[1], at[2]));
	in->zoom = false;
	cv = grid(80, 24);
	frame_overview(&cv, in, 1, 14);
	n = titles(24, t, at);
	CHECK(n == 6 && at[1] - at[0] == 3 && at[2] - at[1] == 3, "not zoomed: every pane at its minimum");
	in->zoom = false;
	in->focus = 0;
	cv = grid(140, 24);
	frame_overview(&cv, in, 1, 22);
	int lw = 140 * 11 / 20;
	CHECK(cells[1][lw] == '|' && cells[22][lw] == '|' && strncmp(cells[1] + lw + 1, "[3] locks", 9) == 0,
	      tname("140 columns, one column would cut: rates and digests left, locks on the right of a rule at %d", lw));
	cv = grid(140, 30);
	frame_overview(&cv, in, 1, 28);
	CHECK(cells[1][lw] != '|', "140 columns with room for all in one column: one column");
	(void)m;
}

static void test_one_pane(struct model *m, struct frame_in *in)
{
	struct canvas cv = grid(80, 24);
	in->screen = 1;
	m->caps.notes.n = 1;
	str_copy(m->caps.notes.msg[0], sizeof m->caps.notes.msg[0], "performance_schema is off: enable it");
	frame_one_pane(&cv, in, 1, 22);
	CHECK(strncmp(cells[1], "[1] rates", 9) == 0 && roles[1][0] == R_SELECTED && views[0].full,
	      "one pane: its title on the first row, selected");
	CHECK(strncmp(cells[22], "note: performance_schema is off", 31) == 0 && roles[22][0] == R_NOTE,
	      tname("the rates pane: the notes under it: '%.40s'", cells[22]));
	in->screen = 2;
	cv = grid(80, 24);
	frame_one_pane(&cv, in, 1, 22);
	bool note = false;
	for (int y = 0; y < 24; y++)
		note |= strncmp(cells[y], "note:", 5) == 0;
	CHECK(strncmp(cells[21], "body 1", 6) == 0 && !note, "another pane: the whole body, no notes");
	in->screen = 0;
	m->caps.notes.n = 0;
}

static void add_finding(struct model *m, enum finding_severity sev, const char *pane, const char *summary)
{
	struct finding *f = &m->findings.f[m->findings.n++];
	memset(f, 0, sizeof *f);
	f->id = "commit-fsync";
	f->severity = sev;
	f->pane = pane;
	str_copy(f->summary, sizeof f->summary, summary);
	str_copy(f->evidence, sizeof f->evidence, "2.1 fsyncs a commit over 10 refreshes");
	str_copy(f->suggestion, sizeof f->suggestion, "SET GLOBAL innodb_flush_log_at_trx_commit = 2");
}

static void test_findings(struct model *m)
{
	add_finding(m, SEV_CRIT, "rates", "every commit waits for two fsyncs");
	add_finding(m, SEV_WARN, "locks", "a lock chain");
	struct canvas cv = grid(80, 24);
	int y = frame_findings(&cv, m, 1, NULL, 3);
	CHECK(y == 3 && strncmp(cells[1], "!! every commit waits", 21) == 0 && roles[1][0] == R_CRIT &&
		      strncmp(cells[2], "! a lock chain -> SET", 21) == 0 && roles[2][0] == R_WARN,
	      tname("the overview, 3 rows for 2: one row each, most severe first (next row %d)", y));
	cv = grid(60, 24);
	y = frame_findings(&cv, m, 1, NULL, 4);
	CHECK(y == 5 && strstr(cells[2], "innodb_flush") != NULL,
	      tname("the overview, 4 rows for 2: a finding wraps to a second row (next row %d)", y));
	cv = grid(80, 24);
	y = frame_findings(&cv, m, 1, "rates", 3);
	CHECK(y == 3 && strstr(cells[1], ": 2.1 fsyncs a commit") && strncmp(cells[2], "   -> SET GLOBAL", 16) == 0 &&
		      roles[2][3] == R_NOTE,
	      "a pane's screen: its own findings with the evidence, the suggestion under it");
	m->findings.n = 0;
	m->findings.recent = 1;
	cv = grid(80, 24);
	y = frame_findings(&cv, m, 1, NULL, 3);
	CHECK(y == 3 && roles[1][0] == R_NORMAL, "a finding cleared a moment ago keeps its rows blank (two of them)");
	m->findings.recent = 0;
}

static void test_state_line(struct model *m)
{
	struct canvas cv = grid(80, 24);
	CHECK(frame_state_line(&cv, m, 1) == 1, "UP: no state line");
	m->last.state = STATE_DOWN;
	str_copy(m->last.error, sizeof m->last.error, "Connection refused");
	CHECK(frame_state_line(&cv, m, 1) == 2 && strncmp(cells[1], "DOWN: Connection refused", 24) == 0 &&
		      roles[1][0] == R_CRIT,
	      "DOWN: its reason on a line of its own");
	m->last.state = STATE_UP;
}

int main(void)
{
	static struct model m;
	model_init(&m, 16);
	m.intervals = 3;
	m.last.state = STATE_UP;
	struct frame_in in = {.m = &m, .panes = fake_panes, .views = views, .ntiles = 6, .sessions = 5,
			      .sessions_tile = true};
	test_overview(&m, &in);
	test_one_pane(&m, &in);
	test_findings(&m);
	test_state_line(&m);
	model_free(&m);
	return tap_failed ? 1 : 0;
}
