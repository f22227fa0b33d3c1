/* test_scope.c - whose commits wait on the WAL flush (model/scope.c): the
 * sessions of each read counted by role and database, dbtop's own and the
 * server's processes left out, a list reused from an earlier read not
 * counted twice, the window of a minute, the share a role must hold; and
 * screen 5 on it: the role offered for synchronous_commit (never for
 * wal_writer_delay), s through server, role and database, the confirmation
 * naming who takes the change and when, a hostile role name drawn
 * harmless, a change in force with the sessions that took it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/events.h"
#include "../../model/forecast.h"
#include "../../model/model.h"
#include "../../model/scope.h"
#include "../../panes/pane.h"
#include "../../tune/tuner.h"
#include "../../core/tunables.h"
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

/* A read of n sessions: user[i], in db, waiting on wait[i] ("" none). */
static struct session_set *read_of(int n, const char *const *user, const char *db, const char *const *wait)
{
	struct session_set *ss = session_set_new();
	for (int i = 0; i < n; i++) {
		struct session *s = session_add(ss, 1000 + i);
		str_copy(s->user, sizeof s->user, user[i]);
		str_copy(s->db, sizeof s->db, db);
		str_copy(s->wait, sizeof s->wait, wait[i]);
		s->cls = SC_ACTIVE;
		str_copy(s->type, sizeof s->type, "client backend");
	}
	return ss;
}

static void test_evidence(void)
{
	struct scope_evidence ev;
	struct scope_pick p;
	memset(&ev, 0, sizeof ev);
	CHECK(scope_flush_wait("IO:WALSync") && scope_flush_wait("LWLock:WALWrite") && scope_flush_wait("IO:WALWrite") &&
		      scope_flush_wait("LWLock:WALWriteLock") && !scope_flush_wait("Lock:transactionid") &&
		      !scope_flush_wait("IPC:SyncRep") && !scope_flush_wait(NULL),
	      "flush waits: WALSync, WALWrite (IO and LWLock, the old name too); not a row lock, not a standby's ack");
	scope_evidence_pick(&ev, true, 100, &p);
	CHECK(!p.ok && p.of == 0 && strstr(p.text, "no role picked: 0 sessions"), p.text);

	const char *u[] = {"app", "app", "app", "reader", "app", "app"};
	const char *w[] = {"IO:WALSync", "LWLock:WALWrite", "", "", "LWLock:WALWrite", "Lock:transactionid"};
	struct session_set *ss = read_of(6, u, "shop", w);
	/* dbtop's own session and the WAL writer: never counted */
	struct session *self = session_add(ss, 1);
	str_copy(self->user, sizeof self->user, "postgres");
	str_copy(self->wait, sizeof self->wait, "IO:WALSync");
	self->self = true;
	struct session *walw = session_add(ss, 2);
	str_copy(walw->wait, sizeof walw->wait, "IO:WALWrite");
	walw->cls = SC_BACKGROUND;
	scope_evidence_add(&ev, ss, 100);
	scope_evidence_pick(&ev, true, 100, &p);
	CHECK(!p.ok && p.of == 3 && p.reads == 1 && strstr(p.text, "no role picked: 3 sessions found waiting"),
	      tname("3 flush waits of app in 1 read: fewer than %d seen, none picked: %s", SCOPE_MIN_SEEN, p.text));
	scope_evidence_add(&ev, ss, 101);
	scope_evidence_add(&ev, ss, 102);
	scope_evidence_pick(&ev, true, 102, &p);
	CHECK(p.ok && strcmp(p.name, "app") == 0 && p.n == 9 && p.of == 9 &&
		      strcmp(p.text, "role app holds 9 of the 9 sessions found waiting on the WAL flush in 3 reads of the "
				     "session list (last 60 s)") == 0,
	      p.text);
	scope_evidence_pick(&ev, false, 102, &p);
	CHECK(p.ok && strcmp(p.name, "shop") == 0 && strstr(p.text, "database shop holds 9 of the 9"), p.text);
	/* a list reused from an earlier read (paced): not counted again */
	ss->age_s = 2;
	scope_evidence_add(&ev, ss, 103);
	ss->age_s = 0;
	scope_evidence_pick(&ev, true, 103, &p);
	CHECK(p.reads == 3 && p.of == 9, "a reused list is not a new read");
	/* another role takes over: app's share falls under 60 % */
	const char *u2[] = {"batch", "batch", "batch", "batch", "batch", "batch"};
	const char *w2[] = {"IO:WALSync", "IO:WALSync", "IO:WALSync", "IO:WALSync", "IO:WALSync", "IO:WALSync"};
	struct session_set *ss2 = read_of(6, u2, "shop", w2);
	scope_evidence_add(&ev, ss2, 104);
	scope_evidence_pick(&ev, true, 104, &p);
	CHECK(p.ok && strcmp(p.name, "app") == 0 && p.n == 9 && p.of == 15, "9 of 15: 60 %, still app's");
	scope_evidence_add(&ev, ss2, 105);
	scope_evidence_pick(&ev, true, 105, &p);
	CHECK(!p.ok && p.of == 21 && strstr(p.text, "no role holds 60%: the busiest, batch, holds 12 of the 21"), p.text);
	scope_evidence_pick(&ev, false, 104, &p);
	CHECK(p.ok && strcmp(p.name, "shop") == 0, "... while one database still holds them all");
	/* a minute later only the newest read counts */
	scope_evidence_add(&ev, ss2, 150);
	scope_evidence_pick(&ev, true, 164.5, &p);
	CHECK(p.ok && strcmp(p.name, "batch") == 0 && p.reads == 2 && p.of == 12, "the window: the last minute's reads only");
	/* the ring keeps SCOPE_READS reads */
	for (int i = 0; i < 3 * SCOPE_READS; i++)
		scope_evidence_add(&ev, ss, 200 + i * 0.1);
	scope_evidence_pick(&ev, true, 200 + 3 * SCOPE_READS * 0.1, &p);
	CHECK(p.reads == SCOPE_READS && p.of == 3u * SCOPE_READS, "at most SCOPE_READS reads counted");
	scope_evidence_clear(&ev);
	scope_evidence_pick(&ev, true, 300, &p);
	CHECK(p.reads == 0 && !p.ok, "cleared (another server)");
	session_set_free(ss);
	session_set_free(ss2);
}

#define GW 200
#define GH 48
static char grid[GH][GW + 1];

static void grid_put(struct canvas *cv, int y, int x, enum role r, const char *str, int ncols)
{
	(void)cv;
	(void)r;
	for (int i = 0; i < ncols && str[i] && x + i < GW; i++)
		grid[y][x + i] = str[i];
}

static const struct canvas_ops grid_ops = {.put = grid_put};

/* The pane drawn full screen: the row holding text, -1 none. */
static int drawn(const struct model *m, struct pane_view *v, const char *text)
{
	for (int y = 0; y < GH; y++) {
		memset(grid[y], ' ', GW);
		grid[y][GW] = '\0';
	}
	struct canvas cv = {.ops = &grid_ops, .h = GH, .w = GW, .utf8 = false};
	tuning_pane.draw(m, v, &cv);
	for (int y = 0; y < GH; y++)
		if (strstr(grid[y], text))
			return y;
	return -1;
}

/* Any byte of the grid a terminal would take for a control? */
static bool grid_clean(void)
{
	for (int y = 0; y < GH; y++)
		for (int x = 0; x < GW; x++)
			if ((unsigned char)grid[y][x] < 0x20 || grid[y][x] == 0x7f)
				return false;
	return true;
}

static void test_pane(void)
{
	static struct model m;
	static struct tune_view tv;
	struct pane_view v;
	struct caps c;
	model_init(&m, 40);
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_POSTGRESQL;
	c.flavour = FLAVOUR_POSTGRESQL;
	str_copy(c.server_id, sizeof c.server_id, "postgresql:1:5432");
	str_copy(c.version, sizeof c.version, "15.18");
	model_set_caps(&m, &c);
	m.have_caps = true;
	m.last.state = STATE_UP;
	m.last.wall = 1000;
	memset(&tv, 0, sizeof tv);
	tv.available = tv.probed = true;
	for (size_t i = 0; i < ntunables && i < TUNABLES_MAX; i++) {
		tv.known[i] = tv.allowed[i] = true;
		str_copy(tv.current[i], sizeof tv.current[i], tunables[i].usual);
	}
	memset(&v, 0, sizeof v);
	pane_view_init(&v, &tuning_pane); /* its own state: the scope chosen */
	v.full = v.focused = true;
	v.tune = &tv;
	CHECK(drawn(&m, &v, "a runs: ALTER SYSTEM SET synchronous_commit = 'off'; SELECT pg_reload_conf()") >= 0,
	      "no evidence yet: the server");

	const char *u[] = {"app", "app", "app", "reader"};
	const char *w[] = {"IO:WALSync", "LWLock:WALWrite", "IO:WALSync", ""};
	struct session_set *ss = read_of(4, u, "shop", w);
	for (int i = 0; i < 3; i++)
		scope_evidence_add(&m.scope, ss, 998 + i);
	CHECK(drawn(&m, &v, "a runs: ALTER ROLE \"app\" SET synchronous_commit = 'off'") >= 0,
	      "role app holds the flush waits: a runs ALTER ROLE");
	if (getenv("SHOW"))
		for (int y = 0; y < GH; y++)
			printf("# %s\n", grid[y]);
	CHECK(drawn(&m, &v, "revert: ALTER ROLE \"app\" SET synchronous_commit back to its own value in pg_db_role_setting, "
			    "or RESET") >= 0, "the revert: the role's own line, read before the change");
	CHECK(drawn(&m, &v, "scope: role app (s: server, role or database): it holds 9 of the 9 sessions found waiting on "
			    "the WAL flush in 3 reads of the session list (last 60 s); new sessions of role app only;") >= 0 &&
		      drawn(&m, &v, "keep their value") >= 0,
	      "the scope line: role app, the figure that picked it, who takes it and when");
	CHECK(drawn(&m, &v, "forecast: none for one role (its new sessions only take it)") >= 0,
	      "no forecast for one role");
	CHECK(drawn(&m, &v, "needs: ALTER ROLE: superuser, or CREATEROLE") >= 0, "what ALTER ROLE needs");
	/* the confirmation */
	CHECK(run_cmd(&tuning_pane, "apply", &m, &v) && rx.ask.act == PA_TUNE_APPLY && rx.ask.to.kind == TK_PG_ROLE &&
		      strcmp(rx.ask.to.name, "app") == 0 && strcmp(rx.ask.value, "off") == 0,
	      "a asks for role app's change");
	CHECK(strstr(rx.ask.what, "SET synchronous_commit from on to off on postgresql for role app (it holds 9 of the 9") &&
		      strstr(rx.ask.what, "until dbtop reverts it: new sessions of role app only; running sessions keep their "
					 "value") &&
		      strstr(rx.ask.what, "Runs: ALTER ROLE \"app\" SET synchronous_commit = 'off'.") &&
		      !strstr(rx.ask.what, "pg_reload_conf") && strstr(rx.ask.what, "pg_db_role_setting"),
	      tname("the confirmation names whom and when: %s", rx.ask.what));
	rx.ask.act = PA_NONE;
	/* s: database, then the server, then the role again */
	CHECK(run_cmd(&tuning_pane, "scope", &m, &v) && strstr(rx.status, "scope: database shop: new sessions in database shop") &&
		      drawn(&m, &v, "a runs: ALTER DATABASE \"shop\" SET synchronous_commit = 'off'") >= 0,
	      "s: the database");
	CHECK(run_cmd(&tuning_pane, "scope", &m, &v) && strstr(rx.status, "scope: server: the whole server at once") &&
		      drawn(&m, &v, "a runs: ALTER SYSTEM SET synchronous_commit") >= 0 &&
		      drawn(&m, &v, "scope: server (s: server, role or database); role app holds 9") >= 0,
	      "s: the server, the offer still named");
	CHECK(run_cmd(&tuning_pane, "apply", &m, &v) && rx.ask.to.kind == 0 && !rx.ask.to.name[0] &&
		      strstr(rx.ask.what, "server-wide until dbtop reverts it"), "a on the server's scope: server-wide");
	rx.ask.act = PA_NONE;
	CHECK(run_cmd(&tuning_pane, "scope", &m, &v) && drawn(&m, &v, "a runs: ALTER ROLE \"app\"") >= 0, "s: the role again");
	/* wal_writer_delay: the server only */
	v.sel = 1;
	CHECK(run_cmd(&tuning_pane, "scope", &m, &v) && strstr(rx.status, "wal_writer_delay: scope server") &&
		      drawn(&m, &v, "a runs: ALTER SYSTEM SET wal_writer_delay = '1s'") >= 0,
	      "wal_writer_delay: s says server; a runs ALTER SYSTEM whatever the evidence");
	v.sel = 0;

	/* a hostile role name: quoted in the SQL, harmless on the screen */
	scope_evidence_clear(&m.scope);
	/* (as the session list has it: made safe, with the role's oid) */
	const char *hu[] = {"ev\"il?[2J ", "ev\"il?[2J ", "ev\"il?[2J ", "ev\"il?[2J "};
	const char *hw[] = {"IO:WALSync", "IO:WALSync", "IO:WALSync", "IO:WALSync"};
	struct session_set *hs = read_of(4, hu, "shop", hw);
	for (size_t i = 0; i < hs->n; i++)
		hs->s[i].user_oid = 42;
	scope_evidence_add(&m.scope, hs, 999);
	scope_evidence_add(&m.scope, hs, 1000);
	pane_view_free(&v, &tuning_pane); /* the scope chosen forgotten */
	pane_view_init(&v, &tuning_pane);
	CHECK(drawn(&m, &v, "a runs: ALTER ROLE \"ev\"\"il?[2J \" SET synchronous_commit = 'off'") >= 0 && grid_clean(),
	      "hostile name: one quoted identifier, nothing a terminal would act on");
	CHECK(run_cmd(&tuning_pane, "apply", &m, &v) && strcmp(rx.ask.to.name, "ev\"il?[2J ") == 0 && rx.ask.to.oid == 42,
	      "a passes the name shown and the role's oid (the tuner reads its real name by it)");
	rx.ask.act = PA_NONE;

	/* a change in force for role app: who took it */
	tv.nactive = 1;
	tv.first_seq = 1;
	struct jentry *e = &tv.active[0];
	memset(e, 0, sizeof *e);
	e->seq = 1;
	e->kind = TK_PG_ROLE;
	e->wall = 990;
	str_copy(e->name, sizeof e->name, "synchronous_commit");
	str_copy(e->target, sizeof e->target, "app");
	str_copy(e->undo, sizeof e->undo, "reset");
	str_copy(e->was, sizeof e->was, "on");
	str_copy(e->val, sizeof e->val, "off");
	struct session_set *now = read_of(4, u, "shop", w);
	now->s[0].ident.known = now->s[1].ident.known = now->s[2].ident.known = true;
	now->s[0].ident.start_us = 995000000LL;   /* after the change */
	now->s[1].ident.start_us = 980000000LL;   /* before */
	now->s[2].ident.start_us = 985000000LL;
	now->idle_unread = 3;
	m.sessions = now;
	CHECK(drawn(&m, &v, "role app: dbtop set off") >= 0, "the row: role app: dbtop set off");
	CHECK(drawn(&m, &v, "needs: ALTER ROLE: superuser, or CREATEROLE") >= 0, "what its revert needs");
	CHECK(drawn(&m, &v, "a reverts dbtop's change: ALTER ROLE \"app\" RESET synchronous_commit") >= 0,
	      "a reverts the role's change");
	CHECK(drawn(&m, &v, "sessions of role app listed now: 1 started after the change (backend_start) and run with off; "
			    "2 started before and keep their value (idle ones are not listed") >= 0,
	      "the sessions of app that took it, and the ones that keep theirs");
	CHECK(drawn(&m, &v, "scope: role app: new sessions of role app only; running sessions keep their value") >= 0,
	      "the change's own scope");
	CHECK(run_cmd(&tuning_pane, "apply", &m, &v) && rx.ask.act == PA_TUNE_APPLY &&
		      strstr(rx.ask.what, "REVERT dbtop's change of synchronous_commit for role app (off, was on): ALTER ROLE "
					 "\"app\" RESET synchronous_commit") &&
		      !strstr(rx.ask.what, "pg_reload_conf"),
	      tname("a on it: the role's revert, no reload: %s", rx.ask.what));
	rx.ask.act = PA_NONE;
	CHECK(run_cmd(&tuning_pane, "keep", &m, &v) && rx.ask.act == PA_TUNE_KEEP &&
		      strstr(rx.ask.what, "KEEP synchronous_commit for role app = off") &&
		      strstr(rx.ask.what, "It stays in pg_db_role_setting.") && !strstr(rx.ask.what, "pg_reload_conf"),
	      tname("K on it: kept in pg_db_role_setting: %s", rx.ask.what));
	rx.ask.act = PA_NONE;
	m.sessions = NULL;
	session_set_free(now);
	session_set_free(ss);
	session_set_free(hs);
	pane_view_free(&v, &tuning_pane);
	model_free(&m);
}

/* dbtop's change for one role in the event log and its JSON; a role's
 * own value seen in the settings starts an outcome with its scope. */
static void test_event_outcome(void)
{
	struct event_log l;
	struct strbuf b;
	char t[300];
	events_init(&l);
	events_own_in(&l, 1000, "synchronous_commit", "on", "off", false, TK_PG_ROLE, "app");
	events_own_in(&l, 1010, "synchronous_commit", "off", "on", true, TK_PG_ROLE, "app");
	event_text(events_at(&l, 0), t, sizeof t);
	CHECK(strcmp(t, "synchronous_commit on -> off for role app, its new sessions (by dbtop)") == 0, t);
	event_text(events_at(&l, 1), t, sizeof t);
	CHECK(strstr(t, "for role app, its new sessions (dbtop reverted its change)") != NULL, t);
	sb_init(&b);
	events_json(&l, 0, (unsigned long)-1, &b);
	CHECK(strstr(b.s, "\"by\":\"dbtop\",\"since\":1000.000,\"scope\":\"role\",\"scope_name\":\"app\"") != NULL,
	      tname("JSON: the event's scope and role: %s", b.s));
	sb_free(&b);
	events_free(&l);

	static struct model m;
	struct caps c;
	struct sample s;
	model_init(&m, 10);
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_POSTGRESQL;
	c.flavour = FLAVOUR_POSTGRESQL;
	model_set_caps(&m, &c);
	memset(&s, 0, sizeof s);
	s.state = STATE_UP;
	s.wall = 2000;
	s.settings_fresh = s.scoped_read = true;
	s.nsettings = 1;
	str_copy(s.settings[0].name, sizeof s.settings[0].name, "synchronous_commit");
	str_copy(s.settings[0].value, sizeof s.settings[0].value, "on");
	m.nsettings = 1;
	m.settings[0] = s.settings[0];
	m.scoped_read = true;   /* read before: none */
	s.nscoped = 1;
	str_copy(s.scoped[0].name, sizeof s.scoped[0].name, "synchronous_commit");
	s.scoped[0].scope = TK_PG_ROLE;
	str_copy(s.scoped[0].target, sizeof s.scoped[0].target, "app");
	str_copy(s.scoped[0].value, sizeof s.scoped[0].value, "off");
	forecast_track(&m, &s);
	CHECK(m.outcome.scope == TK_PG_ROLE && strcmp(m.outcome.target, "app") == 0 && m.outcome.state == FCO_UNKNOWN &&
		      strcmp(m.outcome.from, "on") == 0 && strcmp(m.outcome.to, "off") == 0 && m.outcome.decided == 0,
	      "role app's own off: an outcome for role app, from the server's on, not judged (no event)");
	m.nscoped = 1;
	m.scoped[0] = s.scoped[0];
	sb_init(&b);
	forecast_json_scoped(&m.outcome, &m, &b);
	CHECK(strstr(b.s, "\"to\":\"off\",\"scope\":\"role\",\"scope_name\":\"app\",\"seen\":2000.000,\"state\":\"unknown\"") &&
		      strstr(b.s, ",\"scoped\":[{\"setting\":\"synchronous_commit\",\"scope\":\"role\",\"scope_name\":\"app\","
				  "\"value\":\"off\"}]}"),
	      tname("JSON: tuning.outcome with its scope, tuning.scoped: %s", b.s));
	sb_free(&b);
	memset(&m.outcome, 0, sizeof m.outcome);
	m.scoped_read = false;   /* the first reading: what was there before is not a change */
	forecast_track(&m, &s);
	CHECK(m.outcome.state == FCO_NONE, "a first reading of the roles' values starts no outcome");
	model_free(&m);
}

int main(void)
{
	test_evidence();
	test_event_outcome();
	test_pane();
	return TAP_DONE();
}
