/* test_locks_pane.c - the lock tree's selection on a text grid: it follows
 * the session chosen (not the row index) when a refresh reorders the tree;
 * x acts on the session the screen showed even when a refresh came between
 * the frame and the key; a session gone since is refused, never replaced by
 * the row that took its place; a root seen in one sample only ranks below
 * one that headed its chain longer (lock_set_carry). */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/locks.h"
#include "../../model/model.h"
#include "../../panes/pane.h"
#include "../../util/util.h"
#include "tap.h"

/* The last pane command's reaction (what the screen would do). */
static struct pane_reaction rx;
/* Pane p's command called name on v, as the key table runs it: whether p
 * has it; its reaction in rx. */
static bool run_cmd(const struct pane_ops *p, const char *name, const struct model *m, struct pane_view *v)
{
	free(rx.copy);
	rx = pane_command(p, name, m, v);
	return rx.handled;
}

#define CHECKF(cond, ...) CHECK(cond, tname(__VA_ARGS__))

#define GW 200
#define GH 40

static char grid[GH][GW + 1];

static void grid_put(struct canvas *cv, int y, int x, enum role r, const char *s, int ncols)
{
	(void)cv;
	(void)r;
	for (int i = 0; i < ncols && s[i] && x + i < GW; i++)
		grid[y][x + i] = s[i];
}

static const struct canvas_ops grid_ops = {.put = grid_put};

static struct canvas grid_canvas(void)
{
	for (int y = 0; y < GH; y++) {
		memset(grid[y], ' ', GW);
		grid[y][GW] = '\0';
	}
	return (struct canvas){.ops = &grid_ops, .h = 30, .w = 160, .utf8 = false};
}

/* The line of the grid showing text, or -1. */
static int line_of(const char *text)
{
	for (int y = 0; y < GH; y++)
		if (strstr(grid[y], text))
			return y;
	return -1;
}

static void who(struct lock_set *ls, long long id, const char *state, double trx_s, long long xact_us, const char *q)
{
	int i = lock_session_get(ls, id);   /* (may move ls->s) */
	struct lock_session *s = &ls->s[i];
	str_copy(s->user, sizeof s->user, id >= 700 ? "pgbench" : "alice");
	str_copy(s->state, sizeof s->state, state);
	s->trx_age_s = trx_s;
	s->ident.known = true;
	s->ident.start_us = 1795978800000000LL + id;
	s->ident.xact_us = xact_us;
	lock_session_query(s, q, strstr(state, "idle") != NULL);
}

static void edge(struct lock_set *ls, long long w, long long b)
{
	struct lock_edge *e = lock_edge_add(ls, w, b);
	str_copy(e->requested, sizeof e->requested, "ShareLock");
	str_copy(e->held, sizeof e->held, "ExclusiveLock");
	str_copy(e->object, sizeof e->object, "pgbench_branches");
	str_copy(e->lock_type, sizeof e->lock_type, "transactionid");
	if (!isfinite(ls->s[e->waiter].wait_s))
		ls->s[e->waiter].wait_s = 1.0;
}

/* A psql chain (500 idle in its transaction blocks 501), and with pgbench
 * a pgbench client (700, committing) that blocks 12 others. */
static struct lock_set *sample(bool psql, bool pgbench, long long pgbench_xact)
{
	struct lock_set *ls = lock_set_new();
	ls->status = LOCKS_READ;
	if (psql) {
		who(ls, 500, "idle in transaction", 40, 1795978900000000LL, "UPDATE pgbench_branches SET bbalance = 0");
		who(ls, 501, "active", 3, 1795978930000000LL, "UPDATE pgbench_branches SET bbalance = 1");
		edge(ls, 501, 500);
	}
	if (pgbench) {
		who(ls, 700, "active", 0.01, pgbench_xact, "END;");
		for (long long w = 701; w <= 712; w++) {
			who(ls, w, "active", 0.01, pgbench_xact + w, "UPDATE pgbench_branches SET bbalance = bbalance + 1");
			edge(ls, w, 700);
		}
	}
	ls->waiting = (unsigned)ls->ns - (psql + pgbench);
	lock_set_analyse(ls);
	return ls;
}

/* the id of the root drawn first */
static long long top_root(const struct lock_set *ls)
{
	struct lock_row *rows;
	size_t n = lock_tree_rows(ls, &rows);
	long long id = n ? ls->s[rows[0].session].id : -1;
	free(rows);
	return id;
}

static struct lock_session *sess(const struct lock_set *ls, long long id)
{
	for (size_t i = 0; i < ls->ns; i++)
		if (ls->s[i].id == id)
			return &ls->s[i];
	return NULL;
}

static void test_root_rank(void)
{
	/* the psql chain alone, then pgbench heads 12 for one sample */
	struct lock_set *a = sample(true, false, 0), *b = sample(true, true, 1795978999000000LL);
	lock_set_carry(a, NULL);
	CHECKF(sess(a, 500)->root_samples == 0, "no sample before: not known (%d)", sess(a, 500)->root_samples);
	lock_set_carry(b, a);
	CHECKF(sess(b, 500)->root_samples == 2 && sess(b, 700)->root_samples == 1 && sess(b, 501)->root_samples == 0,
	       "500 headed its chain 2 samples, 700 one (%d, %d)", sess(b, 500)->root_samples, sess(b, 700)->root_samples);
	CHECKF(sess(b, 700)->blocked == 12 && top_root(b) == 500,
	       "a root of one sample (blocking 12) ranks below the one seen longer (blocking 1): top %lld", top_root(b));
	/* still there next sample, same transaction: it ranks by what it blocks */
	struct lock_set *c = sample(true, true, 1795978999000000LL);
	lock_set_carry(c, b);
	CHECKF(sess(c, 700)->root_samples == 2 && top_root(c) == 700, "two samples on: the most blocked first (%lld)",
	       top_root(c));
	/* the same pgbench client in another transaction: a new chain */
	struct lock_set *d = sample(true, true, 1795979000000000LL);
	lock_set_carry(d, c);
	CHECKF(sess(d, 700)->root_samples == 1 && sess(d, 500)->root_samples == 4 && top_root(d) == 500,
	       "the same client in a new transaction heads a new chain (%d): below again", sess(d, 700)->root_samples);
	/* nothing waited before: every root is new, none ranks below another */
	struct lock_set *idle = lock_set_new(), *e = sample(true, true, 1);
	lock_set_carry(e, idle);
	CHECKF(sess(e, 500)->root_samples == 1 && sess(e, 700)->root_samples == 1 && top_root(e) == 700,
	       "both new: the most blocked first (%lld)", top_root(e));
	lock_set_free(a);
	lock_set_free(b);
	lock_set_free(c);
	lock_set_free(d);
	lock_set_free(idle);
	lock_set_free(e);
}

/* Draw the pane on model m as a frame would. */
static void frame(struct model *m, struct pane_view *v)
{
	struct canvas cv = grid_canvas();
	locks_pane.draw(m, v, &cv);
}

/* The session of the row drawn selected (its line's first id). */
static long long selected_id(const struct model *m, const struct pane_view *v)
{
	(void)m;
	char key[PANE_KEY_LEN];
	str_copy(key, sizeof key, v->sel_key);
	return strtoll(key, NULL, 10);
}

static void test_follow(void)
{
	struct model m;
	struct pane_view v;
	model_init(&m, 60);
	m.caps.engine = ENGINE_POSTGRESQL;
	m.caps.superuser = true;
	m.last.state = STATE_UP;
	m.intervals = 3;
	memset(&v, 0, sizeof v);
	v.focused = v.full = true;

	/* sample 1: the psql chain; 3 g: the first row chosen */
	struct lock_set *s1 = sample(true, true, 1795978999000000LL);
	lock_set_carry(s1, NULL);
	m.locks = s1;
	frame(&m, &v);
	CHECKF(top_root(s1) == 700 && line_of("> 700 pgbench") >= 0, "pgbench's chain on top (%lld)", top_root(s1));
	/* Down to the psql root */
	struct lock_row *rows;
	size_t n = lock_tree_rows(s1, &rows);
	int at = -1;
	for (size_t i = 0; i < n; i++)
		if (s1->s[rows[i].session].id == 500 && rows[i].edge < 0)
			at = (int)i;
	free(rows);
	v.sel_follow = true;
	v.sel = at;
	frame(&m, &v);
	CHECKF(at == 13 && v.sel == 13 && selected_id(&m, &v) == 500, "500 selected at row %d", v.sel);

	/* sample 2: pgbench's chain is gone; 500 moves to the top: the
	 * selection goes with it */
	struct lock_set *s2 = sample(true, false, 0);
	lock_set_carry(s2, s1);
	m.locks = s2;
	frame(&m, &v);
	CHECKF(v.sel == 0 && selected_id(&m, &v) == 500, "the selection moved with 500 to row %d", v.sel);

	/* sample 3 comes between the frame and x: pgbench heads a chain for a
	 * moment (one sample: it ranks below); either way x asks for 500 */
	struct lock_set *s3 = sample(true, true, 1795979000000000LL);
	lock_set_carry(s3, s2);
	m.locks = s3;
	CHECKF(top_root(s3) == 500, "a one-sample root does not take the top (%lld)", top_root(s3));
	sess(s3, 700)->root_samples = 2;   /* as if it lasted: it ranks first */
	sess(s3, 500)->root_samples = 3;
	CHECKF(top_root(s3) == 700, "one that lasts takes the top by what it blocks (%lld)", top_root(s3));
	memset(&rx.ask, 0, sizeof rx.ask);
	CHECKF(run_cmd(&locks_pane, "terminate", &m, &v) && rx.ask.act == PA_TERMINATE && rx.ask.id == 500 &&
		       rx.ask.who.start_us == 1795978800000000LL + 500 && strstr(rx.ask.what, "pg_terminate_backend(500)"),
	       "x after a refresh the screen has not shown: the session shown (%lld), not row 0's: %s", rx.ask.id,
	       rx.ask.what);
	memset(&rx.ask, 0, sizeof rx.ask);
	frame(&m, &v);
	CHECKF(v.sel == 13 && selected_id(&m, &v) == 500 && line_of("> 500 alice") > line_of("> 700 pgbench"),
	       "next frame: 500 still selected, now at row %d (line %d)", v.sel, line_of("> 500 alice"));

	/* the waiter 501 chosen; then its row moves (a new root above) */
	v.sel = 14;
	frame(&m, &v);
	CHECKF(strncmp(v.sel_key, "501@", 4) == 0, "waiter 501 selected (%s)", v.sel_key);
	struct lock_set *s4 = sample(true, false, 0);
	lock_set_carry(s4, s3);
	m.locks = s4;
	frame(&m, &v);
	CHECKF(v.sel == 1 && strncmp(v.sel_key, "501@", 4) == 0, "the waiter's row followed to %d", v.sel);
	memset(&rx.ask, 0, sizeof rx.ask);
	CHECKF(run_cmd(&locks_pane, "cancel", &m, &v) && rx.ask.act == PA_CANCEL && rx.ask.id == 501 &&
		       strstr(rx.ask.what, "Session 500, which it waits for, is left alone"),
	       "c: the waiter, its blocker spared: %s", rx.ask.what);
	memset(&rx.ask, 0, sizeof rx.ask);

	/* the session shown leaves the tree before x: nothing is done */
	v.sel = 0;
	frame(&m, &v);
	struct lock_set *s5 = sample(false, true, 1795979100000000LL);
	lock_set_carry(s5, s4);
	m.locks = s5;
	rx.status[0] = '\0';
	CHECKF(run_cmd(&locks_pane, "terminate", &m, &v) && rx.ask.act == PA_NONE && strstr(rx.status, "session 500") &&
		       strstr(rx.status, "nothing is done"),
	       "500 gone since the frame: refused, not 700 in its place (%s)", rx.status);
	rx.status[0] = '\0';
	CHECKF(run_cmd(&locks_pane, "sessions", &m, &v) && rx.link.screen == 0 && strstr(rx.status, "left the lock tree"),
	       "S too (%s)", rx.status);
	rx.status[0] = '\0';
	/* the next frame shows the row in its place selected: that one now */
	frame(&m, &v);
	CHECKF(v.sel == 0 && selected_id(&m, &v) == 700, "gone: the selection stays at its place (%d, on 700)", v.sel);
	CHECKF(run_cmd(&locks_pane, "terminate", &m, &v) && rx.ask.act == PA_TERMINATE && rx.ask.id == 700,
	       "x on the row the screen now shows: 700 (%lld)", rx.ask.id);
	memset(&rx.ask, 0, sizeof rx.ask);

	/* no key chose a row: the top row stays selected as the tree changes,
	 * and x still acts on the one the frame showed */
	memset(&v, 0, sizeof v);
	v.focused = v.full = true;
	m.locks = s4;
	frame(&m, &v);
	CHECKF(v.sel == 0 && selected_id(&m, &v) == 500, "untouched: the top row (500)");
	m.locks = s3;
	frame(&m, &v);
	CHECKF(v.sel == 0 && selected_id(&m, &v) == 700, "untouched: the top row again (700)");
	m.locks = s4;
	CHECKF(run_cmd(&locks_pane, "terminate", &m, &v) && rx.ask.act == PA_NONE && strstr(rx.status, "session 700"),
	       "untouched, a refresh before x: not the row that took 700's place (%s)", rx.status);

	m.locks = NULL;
	lock_set_free(s1);
	lock_set_free(s2);
	lock_set_free(s3);
	lock_set_free(s4);
	lock_set_free(s5);
	model_free(&m);
}

int main(void)
{
	setlocale(LC_ALL, "C");
	test_root_rank();
	test_follow();
	return TAP_DONE();
}
