/* test_sessions_pane.c - the sessions pane on a text grid: idle and
 * background sessions hidden by default and shown by their toggles (and
 * hide-idle hides exactly the idle ones), the sort by every column and its
 * reverse, the selection following the same session across refreshes, the
 * digest filter, the statement column keeping 30 columns at 80 wide with
 * the cut mark, the one-line summary, the end / cancel confirmation (and
 * its refusal under --read-only and for dbtop's own connection), the
 * reasons shown when there is no list. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/model.h"
#include "../../model/sessions.h"
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

/* v made anew, with the sessions pane's own state (its tags), as the
 * screen makes its views. */
static void reset_view(struct pane_view *v)
{
	pane_view_free(v, &sessions_pane);
	memset(v, 0, sizeof *v);
	pane_view_init(v, &sessions_pane);
}

/* CHECK with a name built by printf */
#define CHECKF(cond, ...) CHECK(cond, tname(__VA_ARGS__))

#define GW 200
#define GH 40

static char grid[GH][GW + 1];

/* ASCII cells only (the tests draw without UTF-8) */
static void grid_put(struct canvas *cv, int y, int x, enum role r, const char *s, int ncols)
{
	(void)cv;
	(void)r;
	for (int i = 0; i < ncols && s[i] && x + i < GW; i++)
		grid[y][x + i] = s[i];
}

static const struct canvas_ops grid_ops = {.put = grid_put};

static struct canvas grid_canvas(int w, int h)
{
	for (int y = 0; y < GH; y++) {
		memset(grid[y], ' ', GW);
		grid[y][GW] = '\0';
	}
	struct canvas cv = {.ops = &grid_ops, .h = h, .w = w, .utf8 = false};
	return cv;
}

/* row y as drawn, right blanks cut */
static const char *row(int y)
{
	static char r[GW + 1];
	str_copy(r, sizeof r, grid[y]);
	size_t n = strlen(r);
	while (n && r[n - 1] == ' ')
		r[--n] = '\0';
	return r;
}

/* lines holding text */
static int count_rows(int h, const char *text)
{
	int n = 0;
	for (int y = 0; y < h; y++)
		n += strstr(grid[y], text) != NULL;
	return n;
}

static struct session *add(struct session_set *ss, long long id, enum session_class c, const char *user,
			   double state_s, double trx_s, const char *q)
{
	struct session *s = session_add(ss, id);
	s->cls = c;
	str_copy(s->user, sizeof s->user, user);
	str_printf(s->db, sizeof s->db, "shop%lld", id % 7);
	str_printf(s->client, sizeof s->client, "10.0.0.%lld:5%04lld", id % 200, id);
	str_copy(s->app, sizeof s->app, c == SC_BACKGROUND ? "" : "psql");
	str_copy(s->state, sizeof s->state,
		 c == SC_IDLE ? "idle" : c == SC_IDLE_IN_TRX ? "idle in transaction" : c == SC_BACKGROUND ? "" : "active");
	str_copy(s->type, sizeof s->type, c == SC_BACKGROUND ? "walwriter" : "client backend");
	if (c == SC_LOCK_WAIT)
		str_copy(s->wait, sizeof s->wait, "Lock:transactionid");
	s->state_s = state_s;
	s->trx_age_s = trx_s;
	s->ident.known = true;
	s->ident.start_us = 1795978800000000LL + id;
	if (q)
		session_set_query(s, q, c == SC_IDLE || c == SC_IDLE_IN_TRX);
	return s;
}

/* the id column of the data rows, in order, from row `from` (after the heads) */
static int ids(int from, int h, long long *out, int max)
{
	int n = 0;
	for (int y = from; y < h && n < max; y++) {
		long long id;
		if (sscanf(grid[y], " %lld", &id) == 1)
			out[n++] = id;
	}
	return n;
}

int main(void)
{
	struct model m;
	struct pane_view v = {0};
	long long got[64];
	char buf[512];
	setlocale(LC_ALL, "C");
	model_init(&m, 60);
	m.caps.engine = ENGINE_POSTGRESQL;
	m.last.state = STATE_UP;
	m.intervals = 3;

	/* no list: the pane says why and how to fix it */
	reset_view(&v);
	struct canvas cv = grid_canvas(80, 10);
	sessions_pane.draw(&m, &v, &cv);
	CHECKF(strstr(row(0), "no session list in this sample") != NULL, "no list: says so (%s)", row(0));
	m.sessions = session_set_new();
	m.sessions->status = SESS_UNAVAILABLE;
	str_copy(m.sessions->note, sizeof m.sessions->note, "permission denied for pg_stat_activity");
	cv = grid_canvas(80, 10);
	sessions_pane.draw(&m, &v, &cv);
	CHECKF(strstr(row(0), "unavailable: permission denied") != NULL, "unavailable: the note (%s)", row(0));
	sessions_summary(&m, &v, buf, sizeof buf);
	CHECKF(strstr(buf, "unavailable") != NULL, "summary says unavailable (%s)", buf);
	session_set_free(m.sessions);

	/* 50 idle, 10 active, 3 waiting for a lock, 2 idle in transaction, 2 background */
	struct session_set *ss = session_set_new();
	ss->status = SESS_OK;
	ss->query_ms = 1.5;
	for (int i = 0; i < 50; i++)
		add(ss, 1000 + i, SC_IDLE, "app", 100 + i, NAN, "SELECT 1");
	for (int i = 0; i < 10; i++) {
		struct session *s = add(ss, 2000 + i, SC_ACTIVE, i % 2 ? "zed" : "bob", 1.0 + i, 2.0 + i, "SELECT pg_sleep(30)");
		if (i % 3 == 0)
			str_copy(s->wait, sizeof s->wait, i ? "IO:DataFileRead" : "IO:WALSync");
	}
	for (int i = 0; i < 3; i++) {
		struct session *s = add(ss, 3000 + i, SC_LOCK_WAIT, "carol", 5.0 + i, 6.0 + i,
					"UPDATE accounts SET balance = balance - 1 WHERE id = 42 AND a_very_long_column_name_to_cut = 7");
		s->blocked_by = 4000 + (i == 1);
		s->nblockers = 1;
		str_copy(s->digest, sizeof s->digest, i ? "10:16384:-4242:t" : "11:16384:-4242:t");
	}
	add(ss, 4000, SC_IDLE_IN_TRX, "dave", 300, 310, "UPDATE accounts SET balance = 0 WHERE id = 42");
	add(ss, 4001, SC_IDLE_IN_TRX, "erin", 20, 25, "BEGIN");
	add(ss, 10, SC_BACKGROUND, "", NAN, NAN, NULL);
	add(ss, 11, SC_BACKGROUND, "", NAN, NAN, NULL);
	struct session *self = add(ss, 5000, SC_ACTIVE, "dbtop", 0, NAN, "SELECT now()");
	self->self = true;
	m.sessions = ss;

	reset_view(&v);
	v.focused = v.full = true;
	cv = grid_canvas(80, 30);
	sessions_pane.draw(&m, &v, &cv);
	int n;
	CHECKF(v.nrows == 15, "hidden by default: 50 idle, 2 background, dbtop's own (rows %d of 68)", v.nrows);
	n = ids(2, 30, got, 64);
	int idle_shown = 0;
	for (int i = 0; i < n; i++)
		idle_shown += got[i] >= 1000 && got[i] < 1050;
	CHECKF(idle_shown == 0 && count_rows(30, "idle in trx") == 2,
	      "idle rows hidden (%d shown), idle in transaction shown", idle_shown);
	sessions_summary(&m, &v, buf, sizeof buf);
	CHECKF(strcmp(buf, "sessions: 67 (10 active, 3 waiting for lock, 2 idle in transaction, 50 idle hidden, "
			  "2 background hidden)") == 0,
	      "summary: %s", buf);
	{
		/* the same server read with idle hidden: 50 idle only counted */
		struct session_set *busy = session_set_new();
		for (size_t i = 0; i < ss->n; i++)
			if (ss->s[i].cls != SC_IDLE) {
				struct session *x = session_add(busy, ss->s[i].id);
				*x = ss->s[i];
				x->query = ss->s[i].query ? xstrdup(ss->s[i].query) : NULL;
			}
		busy->idle_unread = 50;
		m.sessions = busy;
		char b2[256];
		sessions_summary(&m, &v, b2, sizeof b2);
		CHECKF(strcmp(b2, buf) == 0, "summary with idle only counted: the same (%s)", b2);
		struct pane_view v2 = v;
		sessions_pane.draw(&m, &v2, &cv);
		CHECKF(v2.nrows == 15, "idle only counted: the same 15 rows (%d)", v2.nrows);
		m.sessions = ss;
		session_set_free(busy);
		sessions_pane.draw(&m, &v, &cv);
	}
	/* heads (below the summary, wrapped on the full screen) and the cut
	 * statement at 80 wide */
	int hy = 1;
	while (hy < 4 && !strstr(row(hy), "statement"))
		hy++;
	CHECKF(strstr(row(hy), "statement") != NULL && strstr(row(hy), "state") != NULL && strstr(row(hy), "blocker"),
	       "heads on row %d: %s", hy, row(hy));
	int sx = (int)(strstr(row(hy), "statement") - row(hy));
	CHECKF(80 - sx >= 30, "the statement keeps %d >= 30 columns at 80 wide", 80 - sx);
	n = ids(hy + 1, 30, got, 64);
	CHECKF(n == 15 && got[0] >= 3000 && got[0] < 3003, "state sort: the lock waits first (%lld)", got[0]);
	int wy = -1;
	for (int y = hy + 1; y < 30; y++) {
		long long id;
		if (sscanf(grid[y], " %lld", &id) == 1 && id == 3000)
			wy = y;
	}
	CHECKF(wy > 0 && strstr(grid[wy], "<- 4000") && strstr(row(wy), "...") && strlen(row(wy)) == 80,
	       "a waiting row names its blocker and its statement ends in the cut mark: %s", wy > 0 ? row(wy) : "");

	/* i: idle shown (exactly the 50 idle ones more); i again hides them */
	CHECKF(run_cmd(&sessions_pane, "show-idle", &m, &v), "i handled");
	cv = grid_canvas(80, 30);
	sessions_pane.draw(&m, &v, &cv);
	CHECKF(v.nrows == 65, "i: the 50 idle shown (%d rows)", v.nrows);
	run_cmd(&sessions_pane, "show-background", &m, &v);
	cv = grid_canvas(80, 30);
	sessions_pane.draw(&m, &v, &cv);
	CHECKF(v.nrows == 68, "b: the background and dbtop's own too (%d rows)", v.nrows);
	run_cmd(&sessions_pane, "show-idle", &m, &v);
	run_cmd(&sessions_pane, "show-background", &m, &v);

	/* sort by every column, then reversed: each an order of its own, ties by id */
	int cycle_ok = 0;
	for (int k = 0; k < 10; k++) {
		run_cmd(&sessions_pane, "sort", &m, &v);
		cv = grid_canvas(200, 30);
		v.sel = v.sel_drawn = 0;
		v.sel_id = 0;
		sessions_pane.draw(&m, &v, &cv);
		long long a[64], b[64];
		int na = ids(2, 30, a, 64);
		run_cmd(&sessions_pane, "reverse", &m, &v);
		cv = grid_canvas(200, 30);
		sessions_pane.draw(&m, &v, &cv);
		int nb = ids(2, 30, b, 64);
		run_cmd(&sessions_pane, "reverse", &m, &v);
		cycle_ok += na == 15 && nb == 15 && memcmp(a, b, sizeof a[0] * 15) != 0;
	}
	CHECKF(cycle_ok == 10, "every column sorts, and reversed gives another order (%d of 10)", cycle_ok);
	CHECKF(strstr(rx.status, "state") != NULL, "ten s later the sort is on state again (%s)", rx.status);
	/* sort by id: ascending; reversed: descending */
	while (!strstr(rx.status, "sorted by id"))
		run_cmd(&sessions_pane, "sort", &m, &v);
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	n = ids(2, 30, got, 64);
	CHECKF(n == 15 && got[0] == 2000 && got[14] == 4001, "by id: %lld .. %lld", got[0], got[n - 1]);
	run_cmd(&sessions_pane, "reverse", &m, &v);
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	n = ids(2, 30, got, 64);
	CHECKF(n == 15 && got[0] == 4001 && got[14] == 2000, "by id reversed: %lld .. %lld", got[0], got[n - 1]);

	/* the selection follows the session: select 4000, then the list changes */
	run_cmd(&sessions_pane, "reverse", &m, &v);
	while (!strstr(rx.status, "sorted by time in state"))
		run_cmd(&sessions_pane, "sort", &m, &v);
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	n = ids(2, 30, got, 64);
	int at = -1;
	for (int i = 0; i < n; i++)
		if (got[i] == 2003)
			at = i;
	v.sel = at;   /* Down ... to session 2003 */
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	CHECKF(v.sel_id == 2003, "selected session 2003 (%lld)", v.sel_id);
	/* next refresh: 2003 has been active much longer, sorts first now */
	session_find(ss, 2003)->state_s = 10000;
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	n = ids(2, 30, got, 64);
	CHECKF(got[0] == 2003 && v.sel == 0 && v.sel_id == 2003, "the selection moved with 2003 to row %d", v.sel);
	/* the confirmation names it: end */
	CHECKF(run_cmd(&sessions_pane, "terminate", &m, &v) && rx.ask.act == PA_TERMINATE && rx.ask.id == 2003 &&
		      strstr(rx.ask.what, "pg_terminate_backend(2003)") && rx.ask.who.start_us == 1795978800000000LL + 2003,
	      "x asks to end 2003 with its identity: %s", rx.ask.what);
	memset(&rx.ask, 0, sizeof rx.ask);
	CHECKF(run_cmd(&sessions_pane, "cancel", &m, &v) && rx.ask.act == PA_CANCEL && strstr(rx.ask.what, "pg_cancel_backend(2003)"),
	      "c asks to cancel 2003's statement");
	memset(&rx.ask, 0, sizeof rx.ask);
	v.read_only = true;
	rx.status[0] = '\0';
	CHECKF(run_cmd(&sessions_pane, "terminate", &m, &v) && rx.ask.act == PA_NONE && strstr(rx.status, "read-only"),
	      "--read-only: refused before anything is asked (%s)", rx.status);
	v.read_only = false;
	/* dbtop's own (b shows it): nothing */
	run_cmd(&sessions_pane, "show-background", &m, &v);
	v.sel_id = 5000;
	v.sel_drawn = v.sel;
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	rx.status[0] = '\0';
	CHECKF(run_cmd(&sessions_pane, "terminate", &m, &v) && rx.ask.act == PA_NONE && strstr(rx.status, "dbtop's own"),
	      "its own connection is not ended (%s)", rx.status);
	run_cmd(&sessions_pane, "show-background", &m, &v);

	/* Down then x before the next frame: the row moved to, not the one drawn */
	v.sel_id = 2003;
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	int drawn_at = v.sel;
	v.sel = drawn_at + 1;
	cv = grid_canvas(120, 30);
	memset(&rx.ask, 0, sizeof rx.ask);
	run_cmd(&sessions_pane, "terminate", &m, &v);
	CHECKF(rx.ask.act == PA_TERMINATE && rx.ask.id != 2003, "x right after Down: the session moved to (%lld, not 2003)",
	       rx.ask.id);
	memset(&rx.ask, 0, sizeof rx.ask);
	sessions_pane.draw(&m, &v, &cv);

	/* m tags; x asks for every tagged session at once */
	v.sel_id = 2001;
	v.sel_drawn = v.sel;
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	run_cmd(&sessions_pane, "tag", &m, &v);
	v.sel_id = 2002;
	v.sel_drawn = v.sel;
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	run_cmd(&sessions_pane, "tag", &m, &v);
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	CHECKF(sessions_ntags(&v) == 2 && count_rows(30, "+2001") == 1 && count_rows(30, "+2002") == 1, "m tags 2001 and 2002 (marked +)");
	memset(&rx.ask, 0, sizeof rx.ask);
	run_cmd(&sessions_pane, "terminate", &m, &v);
	CHECKF(rx.ask.act == PA_TERMINATE && rx.ask.nmore == 1 && rx.ask.id + rx.ask.more_id[0] == 4003 &&
		       rx.ask.more_who[0].start_us && strstr(rx.ask.what, "END 2 tagged sessions with pg_terminate_backend each"),
	       "x with tags: one confirmation for both, each with its identity: %s", rx.ask.what);
	memset(&rx.ask, 0, sizeof rx.ask);
	run_cmd(&sessions_pane, "untag-all", &m, &v);
	CHECKF(sessions_ntags(&v) == 0, "M untags them");

	/* the digest link: only the sessions running it */
	char pat[96], err[160], did[80];
	sessions_digest_id("10:16384:-4242:t", did, sizeof did);
	CHECKF(strcmp(did, "-4242") == 0, "PostgreSQL digest key -> queryid (%s)", did);
	sessions_digest_id("shop/ABCDEF", did, sizeof did);
	CHECKF(strcmp(did, "ABCDEF") == 0, "MySQL digest key -> digest (%s)", did);
	str_printf(pat, sizeof pat, "^digest:%s$", "-4242");
	CHECKF(pane_filter_set(&v, pat, err, sizeof err) == 0, "digest filter compiles");
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	CHECKF(v.nrows == 3, "digest filter: the 3 sessions running it (%d)", v.nrows);
	pane_filter_free(&v);

	/* details: statement whole, the blocker, the wait, the identity */
	v.sel_id = 3001;
	v.sel_drawn = v.sel;
	v.details = true;
	cv = grid_canvas(100, 30);
	sessions_pane.draw(&m, &v, &cv);
	CHECKF(strstr(row(0), "session 3001") && count_rows(30, "blocked by 4001") == 1 &&
		      count_rows(30, "Lock:transactionid") == 1 && count_rows(30, "a_very_long_column_name_to_cut = 7") == 1,
	      "details: the session, its blocker, its wait, its whole statement");
	CHECKF(count_rows(30, "lock graph was not read") == 1, "details: says the lock graph was not read");
	v.details = false;

	/* the session shown selected leaves the list before x: nothing is
	 * done (not the session that took its row); the next frame shows the
	 * row in its place selected, and x acts on that one */
	v.sel_id = 2003;
	v.sel_drawn = v.sel;
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	int was_at = v.sel;
	CHECKF(v.sel_id == 2003, "2003 selected at row %d", was_at);
	struct session *s2003 = session_find(ss, 2003);
	s2003->cls = SC_IDLE;   /* its transaction ended: idle ones are hidden */
	memset(&rx.ask, 0, sizeof rx.ask);
	rx.status[0] = '\0';
	CHECKF(run_cmd(&sessions_pane, "terminate", &m, &v) && rx.ask.act == PA_NONE && strstr(rx.status, "session 2003") &&
		       strstr(rx.status, "nothing is done"),
	       "2003 gone since the frame: x refused (%s)", rx.status);
	rx.status[0] = '\0';
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	CHECKF(v.sel == was_at && v.sel_id != 2003, "gone: the selection stays at row %d (on %lld)", v.sel, v.sel_id);
	long long now_on = v.sel_id;
	CHECKF(run_cmd(&sessions_pane, "terminate", &m, &v) && rx.ask.act == PA_TERMINATE && rx.ask.id == now_on,
	       "x then: the session the frame shows there (%lld)", rx.ask.id);
	memset(&rx.ask, 0, sizeof rx.ask);
	s2003->cls = SC_ACTIVE;

	/* no key chose a row: the top row; a key on the top row (g): from
	 * then on it follows its session */
	reset_view(&v);
	v.focused = v.full = true;
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	CHECKF(v.sel == 0 && v.sel_id == 0, "untouched: the top row, nothing followed");
	v.sel_follow = true;   /* g */
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	long long top = v.sel_id;
	CHECKF(v.sel == 0 && top > 0, "g: the top row's session followed (%lld)", top);
	session_find(ss, top)->state_s = -5;   /* sorts last by time in state now */
	cv = grid_canvas(120, 30);
	sessions_pane.draw(&m, &v, &cv);
	CHECKF(v.sel > 0 && v.sel_id == top, "after a refresh that reorders: still %lld, at row %d", v.sel_id, v.sel);

	/* a 2-row tile: the summary, then the top session */
	cv = grid_canvas(80, 2);
	sessions_pane.draw(&m, &v, &cv);
	CHECKF(strncmp(row(0), "sessions: 67 (", 14) == 0, "tile row 1 is the summary (%s)", row(0));
	int mn = 0, need = sessions_pane.need(&m, &v, 80, &mn);
	CHECKF(mn == 2 && need == 17, "need: heads and rows (%d), min the summary and the first session (%d)", need, mn);

	pane_view_free(&v, &sessions_pane);
	model_free(&m);
	return TAP_DONE();
}
