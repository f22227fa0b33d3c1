/* tuner.c - safe tuning on top of the undo journal (see tuner.h). */
#include "tuner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

/* Copy the journal's active entries into the view. */
static void publish(struct tuner *tu)
{
	int idx[JOURNAL_MAX];
	int n = journal_active(&tu->j, idx, JOURNAL_MAX);
	tu->v.nactive = n;
	tu->v.orphans = 0;
	for (int i = 0; i < n; i++) {
		tu->v.active[i] = tu->j.e[idx[i]];
		if (tu->v.active[i].seq < tu->v.first_seq)
			tu->v.orphans++;
	}
	tu->v.damaged = tu->j.damaged;
}

void tuner_init(struct tuner *tu, struct source *src, const char *key, const char *label, bool read_only,
		double ttl)
{
	char err[NOTE_LEN] = "";
	memset(tu, 0, sizeof *tu);
	tu->src = src;
	tu->j.fd = -1;
	tu->v.read_only = read_only;
	tu->v.ttl = ttl;
	if (!src->ops || !src->ops->tune) {
		str_copy(tu->v.why, sizeof tu->v.why, "tuning acts on a live server only (this is a recording)");
		return;
	}
	if (journal_path(key, tu->v.path, sizeof tu->v.path, err, sizeof err) < 0) {
		str_printf(tu->v.why, sizeof tu->v.why, "tuning off: %s", err);
		return;
	}
	int rc = journal_open(&tu->j, tu->v.path, label, err, sizeof err);
	tu->v.first_seq = tu->j.next_seq;
	publish(tu);
	if (rc != 0) {
		str_printf(tu->v.why, sizeof tu->v.why, "tuning off: %s", err);
		if (rc > 0)
			tu->v.orphans = 0;   /* they belong to the running one */
		return;
	}
	if (read_only) {
		str_copy(tu->v.why, sizeof tu->v.why, "--read-only: no setting is changed or reverted");
		return;
	}
	tu->journal_ok = true;
	tu->v.available = true;
	if (tu->j.damaged)
		str_printf(tu->v.why, sizeof tu->v.why,
			   "%d damaged line(s) in the undo journal %s were ignored: check those settings by hand",
			   tu->j.damaged, tu->v.path);
}

int tuner_active(const struct tuner *tu)
{
	int idx[JOURNAL_MAX];
	return journal_active(&tu->j, idx, JOURNAL_MAX);
}

/* Connected, reconnecting once when needed. */
static bool ensure_connected(struct tuner *tu, char *msg, size_t len)
{
	char err[NOTE_LEN];
	if (tu->src->connected)
		return true;
	if (source_open(tu->src, err, sizeof err) < 0) {
		str_printf(msg, len, "not connected (%s): nothing was done", err);
		return false;
	}
	return true;
}

void tuner_probe(struct tuner *tu)
{
	struct tune_call *c;
	if (!tu->src->ops || !tu->src->ops->tune || !tu->src->connected)
		return;
	c = xcalloc(1, sizeof *c);
	c->what = TC_PROBE;
	if (tu->src->ops->tune(tu->src, c) == 0) {
		memcpy(tu->v.known, c->known, sizeof tu->v.known);
		memcpy(tu->v.current, c->current, sizeof tu->v.current);
		memcpy(tu->v.allowed, c->allowed, sizeof tu->v.allowed);
		memcpy(tu->v.undo_hint, c->undo_hint, sizeof tu->v.undo_hint);
		str_copy(tu->v.note, sizeof tu->v.note, c->note);
		str_copy(tu->v.pending, sizeof tu->v.pending, c->pending);
		tu->v.probed = true;
		tu->v.flavour = tu->src->caps.flavour;
	} else {
		str_printf(tu->v.note, sizeof tu->v.note, "cannot read the settings: %s", c->err);
	}
	free(c);
	publish(tu);
}

void tuner_revert_sql(const struct jentry *e, char *buf, size_t len)
{
	if (tune_sql_revert(e->kind, e->name, e->undo, buf, len) < 0)
		buf[0] = '\0';
}

/* Send one statement (and the reload it needs). On failure *unsure says
 * the server may have taken it all the same (connection lost, or the
 * ALTER SYSTEM went through but not the reload). */
static int exec_sql(struct tuner *tu, const char *sql, enum tune_kind kind, char *msg, size_t len, bool *unsure)
{
	struct tune_call *c = xcalloc(1, sizeof *c);
	c->what = TC_EXEC;
	c->sql = sql;
	c->reload = tune_needs_reload(kind);
	int rc = tu->src->ops->tune(tu->src, c);
	if (rc < 0)
		str_copy(msg, len, c->err);
	if (unsure)
		*unsure = rc < 0 && c->unsure;
	free(c);
	return rc;
}

/* Revert journal entry i. */
static int revert_one(struct tuner *tu, int i, char *msg, size_t len)
{
	struct jentry *e = &tu->j.e[i];
	char sql[256], err[NOTE_LEN];
	if (tune_sql_revert(e->kind, e->name, e->undo, sql, sizeof sql) < 0 ||
	    !tunable_find(e->name, tu->src->caps.flavour, e->kind)) {
		str_printf(msg, len, "cannot revert %s: the journal entry is not valid here (restore it by hand)",
			   e->name);
		return -1;
	}
	if (exec_sql(tu, sql, e->kind, err, sizeof err, NULL) < 0) {
		str_printf(msg, len, "revert of %s failed: %s", e->name, err);
		return -1;
	}
	if (journal_end(&tu->j, e->seq, JS_REVERTED, err, sizeof err) < 0) {
		str_printf(msg, len, "%s reverted, but %s", e->name, err);
		return -1;
	}
	str_printf(msg, len, "reverted: %s%s", sql, tune_needs_reload(e->kind) ? "; SELECT pg_reload_conf()" : "");
	return 0;
}

static bool writable(struct tuner *tu, char *msg, size_t len)
{
	if (tu->v.read_only) {
		str_copy(msg, len, "--read-only: nothing is changed on the server");
		return false;
	}
	if (!tu->journal_ok) {
		str_copy(msg, len, tu->v.why[0] ? tu->v.why : "tuning is off");
		return false;
	}
	return ensure_connected(tu, msg, len);
}

int tuner_revert(struct tuner *tu, bool all, char *msg, size_t len)
{
	int idx[JOURNAL_MAX], n, done = 0;
	char one[NOTE_LEN] = "";
	n = journal_active(&tu->j, idx, JOURNAL_MAX);
	if (n == 0) {
		str_copy(msg, len, "no change to undo");
		return 0;
	}
	if (!writable(tu, msg, len))
		return -1;
	for (int k = 0; k < (all ? n : 1); k++) {
		if (revert_one(tu, idx[k], one, sizeof one) < 0) {
			str_printf(msg, len, "%s%s", one, done ? " (the newer changes were reverted)" : "");
			publish(tu);
			tuner_probe(tu);
			return -1;
		}
		done++;
	}
	if (done == 1)
		str_copy(msg, len, one);
	else
		str_printf(msg, len, "reverted %d changes, newest first", done);
	publish(tu);
	tuner_probe(tu);
	return done;
}

int tuner_expire(struct tuner *tu, double now_wall, char *msg, size_t len)
{
	int idx[JOURNAL_MAX], n, done = 0;
	char one[NOTE_LEN] = "";
	if (tu->v.ttl <= 0)
		return 0;
	n = journal_active(&tu->j, idx, JOURNAL_MAX);
	for (int k = 0; k < n; k++) {
		struct jentry *e = &tu->j.e[idx[k]];
		if (e->seq < tu->v.first_seq || e->wall + tu->v.ttl > now_wall)
			continue;
		if (!writable(tu, msg, len))
			return -1;
		if (revert_one(tu, idx[k], one, sizeof one) < 0) {
			str_copy(msg, len, one);
			publish(tu);
			return -1;
		}
		done++;
	}
	if (done) {
		str_printf(msg, len, "--tune-ttl reached: %s", done == 1 ? one : "changes reverted");
		publish(tu);
		tuner_probe(tu);
	}
	return done;
}

int tuner_keep(struct tuner *tu, unsigned seq, char *msg, size_t len)
{
	char err[NOTE_LEN];
	if (tu->v.read_only) {
		str_copy(msg, len, "--read-only: nothing is changed");
		return -1;
	}
	for (int i = 0; i < tu->j.n; i++) {
		struct jentry *e = &tu->j.e[i];
		if (e->seq != seq || e->state != JS_ACTIVE)
			continue;
		if (journal_end(&tu->j, seq, JS_KEPT, err, sizeof err) < 0) {
			str_copy(msg, len, err);
			return -1;
		}
		str_printf(msg, len, "kept: %s = %s stays after dbtop exits%s", e->name, e->val,
			   e->kind == TK_PG_SYSTEM ? " (in postgresql.auto.conf)"
						   : " (until the server restarts: my.cnf is not edited)");
		publish(tu);
		return 0;
	}
	str_copy(msg, len, "no such active change");
	return -1;
}

int tuner_apply(struct tuner *tu, int idx, const char *value, char *msg, size_t len)
{
	const struct tunable *t;
	struct tune_call *c;
	struct jentry e;
	char sql[256], rsql[256], err[NOTE_LEN];

	if (idx < 0 || (size_t)idx >= ntunables) {
		str_copy(msg, len, "no such setting");
		return -1;
	}
	t = &tunables[idx];
	if (!tunable_applies(t, tu->src->caps.flavour)) {
		str_printf(msg, len, "%s does not exist on this server", t->name);
		return -1;
	}
	/* a setting dbtop changed already: toggling it again is its undo */
	for (int i = tu->j.n - 1; i >= 0; i--) {
		if (tu->j.e[i].state != JS_ACTIVE || strcmp(tu->j.e[i].name, t->name) != 0)
			continue;
		if (tu->j.e[i].seq < tu->v.first_seq) {
			str_printf(msg, len, "%s has a change left by an earlier dbtop: revert it first (U)", t->name);
			return -1;
		}
		if (!writable(tu, msg, len))
			return -1;
		int rc = revert_one(tu, i, msg, len);
		publish(tu);
		tuner_probe(tu);
		return rc;
	}
	if (!writable(tu, msg, len))
		return -1;
	if (tu->v.probed && !tu->v.allowed[idx]) {
		str_printf(msg, len, "not allowed: %s needs %s", t->name, t->priv);
		return -1;
	}
	if (tune_sql_apply(t, value, sql, sizeof sql) < 0) {
		str_printf(msg, len, "refused: '%s' is not a value dbtop writes", value);
		return -1;
	}
	/* the state to restore, read now (not from the last probe) */
	c = xcalloc(1, sizeof *c);
	c->what = TC_PREV;
	c->t = t;
	if (tu->src->ops->tune(tu->src, c) < 0) {
		str_printf(msg, len, "cannot read the current state of %s: %s: nothing was done", t->name, c->err);
		free(c);
		return -1;
	}
	memset(&e, 0, sizeof e);
	e.kind = t->kind;
	e.wall = clock_wall();
	str_copy(e.name, sizeof e.name, t->name);
	str_copy(e.undo, sizeof e.undo, c->undo);
	str_copy(e.was, sizeof e.was, c->was);
	str_copy(e.val, sizeof e.val, value);
	free(c);
	if (tune_value_same(e.was, value)) {
		str_printf(msg, len, "%s is %s already: nothing was done", t->name, value);
		return -1;
	}
	if (tune_sql_revert(e.kind, e.name, e.undo, rsql, sizeof rsql) < 0) {
		str_printf(msg, len, "refused: the present state of %s ('%s') could not be restored exactly", t->name,
			   e.undo);
		return -1;
	}
	if (journal_begin(&tu->j, &e, err, sizeof err) < 0) {
		str_printf(msg, len, "refused: %s: nothing was sent to the server", err);
		return -1;
	}
	bool unsure = false;
	if (exec_sql(tu, sql, t->kind, err, sizeof err, &unsure) < 0) {
		char e2[NOTE_LEN];
		/* an outcome in doubt stays in the journal: reverting it is harmless */
		if (!unsure)
			journal_end(&tu->j, e.seq, JS_FAILED, e2, sizeof e2);
		str_printf(msg, len, "failed: %s: %s%s", sql, err,
			   unsure ? " (it may have taken effect: it stays in the undo journal and is reverted)" : "");
		publish(tu);
		tuner_probe(tu);
		return -1;
	}
	str_printf(msg, len, "done: %s%s (undo: u)", sql, tune_needs_reload(t->kind) ? "; SELECT pg_reload_conf()" : "");
	publish(tu);
	tuner_probe(tu);
	return 0;
}

void tuner_close(struct tuner *tu)
{
	journal_close(&tu->j);
}
