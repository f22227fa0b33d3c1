/* tuner.c - safe tuning on top of the undo journal (see tuner.h). */
#include "tuner.h"
#include <assert.h>
#include <stddef.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/util.h"

/* Was e made on the server this journal is for? (A version 1 record,
 * without a server, never is.) */
static bool ours(const struct tuner *tu, const struct jentry *e)
{
	return e->sid[0] && strcmp(e->sid, tu->sid) == 0;
}

/* Active entries of this server, newest first; returns how many. */
static int active_ours(const struct tuner *tu, int *idx)
{
	int all[JOURNAL_MAX], n = journal_active(&tu->j, all, JOURNAL_MAX), k = 0;
	for (int i = 0; i < n; i++)
		if (ours(tu, &tu->j.e[all[i]]))
			idx[k++] = all[i];
	return k;
}

/* Copy the journal's active entries into the view: this server's, and
 * the others' (listed, never reverted). */
static void publish(struct tuner *tu)
{
	int idx[JOURNAL_MAX];
	int n = journal_active(&tu->j, idx, JOURNAL_MAX);
	tu->v.nactive = 0;
	tu->v.orphans = 0;
	tu->v.nforeign = 0;
	for (int i = 0; i < n; i++) {
		const struct jentry *e = &tu->j.e[idx[i]];
		if (ours(tu, e)) {
			tu->v.active[tu->v.nactive++] = *e;
			if (e->seq < tu->v.first_seq && !tu->v.elsewhere)
				tu->v.orphans++;   /* a running dbtop's are not orphans */
		} else if (tu->v.nforeign < TUNE_LIST_MAX) {
			tu->v.foreign[tu->v.nforeign++] = *e;
		}
	}
	n = tu->old.fd >= 0 ? journal_active(&tu->old, idx, JOURNAL_MAX) : 0;
	for (int i = 0; i < n && tu->v.nforeign < TUNE_LIST_MAX; i++) {
		struct jentry *f = &tu->v.foreign[tu->v.nforeign++];
		*f = tu->old.e[idx[i]];
		if (!f->sid[0])
			str_printf(f->slabel, sizeof f->slabel, "%s (an older dbtop's journal: server not verified)",
				   tu->old.label[0] ? tu->old.label : "?");
	}
	tu->v.damaged = tu->j.damaged;
	tu->v.locked = tu->locked;
}

/* Take the server's tuning lock on this connection (once). 0, or -1 with
 * who holds it in msg. */
static int take_lock(struct tuner *tu, char *msg, size_t len)
{
	struct tune_call *c;
	int rc;
	if (tu->locked)
		return 0;
	c = xcalloc(1, sizeof *c);
	c->what = TC_LOCK;
	rc = tu->src->ops->tune(tu->src, c);
	if (rc < 0) {
		str_printf(msg, len, "cannot take the server's tuning lock (%s)", c->err);
	} else if (!c->got) {
		str_printf(msg, len, "another dbtop is tuning this server (%s holds its tuning lock)", c->holder);
		rc = -1;
	} else {
		tu->locked = true;
	}
	free(c);
	tu->v.locked = tu->locked;
	return rc;
}

/* Nothing of ours in force any more: let another dbtop tune. */
static void release_when_idle(struct tuner *tu)
{
	int idx[JOURNAL_MAX];
	if (!tu->locked || active_ours(tu, idx) > 0)
		return;
	if (tu->src->connected && tu->gen == tu->src->conn_gen) {
		struct tune_call *c = xcalloc(1, sizeof *c);
		c->what = TC_UNLOCK;
		tu->src->ops->tune(tu->src, c);
		free(c);
	}
	tu->locked = false;   /* gone with the session otherwise */
	tu->v.locked = false;
}

/* After a (re)connection: still the server of the journal? (else nothing
 * is changed or reverted); the tuning lock, which went with the old
 * session, taken again while changes are in force. False with the reason
 * in msg when the connection reaches another server. */
static bool server_check(struct tuner *tu, char *msg, size_t len)
{
	struct source *src = tu->src;
	if (src->connected && src->conn_gen != tu->gen) {
		int idx[JOURNAL_MAX];
		char m[NOTE_LEN];
		tu->gen = src->conn_gen;
		tu->locked = false;
		tu->v.other_server = strcmp(src->caps.server_id, tu->sid) != 0;
		str_copy(tu->v.now_server, sizeof tu->v.now_server,
			 src->caps.server_id[0] ? src->caps.server_label : "a server that cannot be identified");
		if (tu->v.other_server) {
			str_printf(tu->v.why, sizeof tu->v.why,
				   "the address now reaches another server (%s), not %s: nothing is changed or reverted "
				   "there; the changes in force stay in the undo journal", tu->v.now_server, tu->v.server);
			tu->v.available = false;
		} else {
			str_copy(tu->v.why, sizeof tu->v.why, tu->why_base);
			tu->v.available = tu->journal_ok;
			if (active_ours(tu, idx) > 0 && take_lock(tu, m, sizeof m) < 0)
				str_printf(tu->v.why, sizeof tu->v.why, "after the reconnection: %s", m);
		}
		publish(tu);
	}
	if (tu->v.other_server) {
		str_printf(msg, len, "the address now reaches another server (%s), not %s whose undo journal this is: "
			   "nothing was done", tu->v.now_server, tu->v.server);
		return false;
	}
	return true;
}

void tuner_init(struct tuner *tu, struct source *src, const char *legacy_key, bool read_only, double ttl)
{
	char err[NOTE_LEN] = "", key[300];
	memset(tu, 0, offsetof(struct tuner, j));
	journal_clear(&tu->j);
	journal_clear(&tu->old);
	tune_view_clear(&tu->v);
	tu->src = src;
	tu->v.read_only = read_only;
	tu->v.ttl = ttl;
	if (!src->ops || !src->ops->tune) {
		str_copy(tu->v.why, sizeof tu->v.why, "tuning acts on a live server only (this is a recording)");
		return;
	}
	/* an older dbtop's journal of this address: listed, never reverted or removed */
	if (legacy_key && journal_path(legacy_key, tu->v.legacy_path, sizeof tu->v.legacy_path, err, sizeof err) == 0 &&
	    access(tu->v.legacy_path, F_OK) == 0 &&
	    journal_open(&tu->old, tu->v.legacy_path, "", "", true, err, sizeof err) == 0) {
		int idx[1];
		if (journal_active(&tu->old, idx, 1) == 0)
			journal_close(&tu->old);
	}
	if (tu->old.fd < 0)
		tu->v.legacy_path[0] = '\0';
	if (!src->caps.server_id[0]) {
		str_printf(tu->v.why, sizeof tu->v.why,
			   "tuning off: this server cannot be identified (%s), so no undo journal can be kept for it",
			   src->caps.server_label[0] ? src->caps.server_label : "no identity read");
		publish(tu);
		return;
	}
	str_copy(tu->sid, sizeof tu->sid, src->caps.server_id);
	str_copy(tu->v.server, sizeof tu->v.server, src->caps.server_label);
	str_copy(tu->v.now_server, sizeof tu->v.now_server, src->caps.server_label);
	tu->gen = src->conn_gen;
	str_printf(key, sizeof key, "%s|%s", engine_name(src->caps.engine), tu->sid);
	if (journal_path(key, tu->v.path, sizeof tu->v.path, err, sizeof err) < 0) {
		str_printf(tu->v.why, sizeof tu->v.why, "tuning off: %s", err);
		return;
	}
	int rc = journal_open(&tu->j, tu->v.path, tu->sid, tu->v.server, read_only, err, sizeof err);
	tu->v.first_seq = tu->j.next_seq;
	publish(tu);
	if (rc != 0) {
		str_printf(tu->v.why, sizeof tu->v.why, "tuning off: %s", err);
		if (rc > 0) {
			tu->v.orphans = 0;   /* they belong to the running one */
			tu->v.elsewhere = true;
		}
		publish(tu); /* the view says why, and whose the changes are */
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
	str_copy(tu->why_base, sizeof tu->why_base, tu->v.why);
	/* changes a dead dbtop left in force: held under the lock from now on */
	if (tu->v.orphans > 0 && src->connected && take_lock(tu, err, sizeof err) < 0)
		str_copy(tu->v.why, sizeof tu->v.why, err);
	publish(tu);
}

int tuner_active(const struct tuner *tu)
{
	int idx[JOURNAL_MAX];
	return active_ours(tu, idx);
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
	char msg[NOTE_LEN];
	if (!tu->src->ops || !tu->src->ops->tune || !tu->src->connected)
		return;
	if (tu->sid[0])
		server_check(tu, msg, sizeof msg);
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
	if (tune_sql_revert_in(e->kind, e->name, e->target, e->undo, buf, len) < 0)
		buf[0] = '\0';
}

void tuner_change_name(const struct jentry *e, char *buf, size_t len)
{
	char who[2 * TUNE_TARGET_MAX + 3];
	if (!tune_kind_scoped(e->kind)) {
		str_copy(buf, len, e->name);
		return;
	}
	tune_target_text(e->target, who, sizeof who);
	str_printf(buf, len, "%s for %s %s", e->name, tune_scope_name(e->kind), who);
}

enum tune_verdict tune_revert_verdict(enum tune_kind kind, const char *val, const char *undo, const char *now_undo,
				      const char *now_was, char *now, size_t len)
{
	bool still, back;
	if (kind == TK_PG_SYSTEM || tune_kind_scoped(kind)) {
		/* the line dbtop wrote (postgresql.auto.conf, pg_db_role_setting) */
		bool line = strncmp(now_undo, "set:", 4) == 0;
		still = line && tune_value_same(now_undo + 4, val);
		back = tune_value_same(now_undo, undo);
		if (line)
			str_copy(now, len, now_undo + 4);
		else if (strcmp(now_undo, "gone") == 0)
			str_printf(now, len, "gone (no such %s any more)", tune_scope_name(kind));
		else
			str_printf(now, len, "%s (no %s line)", now_was,
				   kind == TK_PG_SYSTEM ? "ALTER SYSTEM"
				   : kind == TK_PG_ROLE ? "ALTER ROLE"
							: "ALTER DATABASE");
	} else {
		still = tune_value_same(now_was, val);
		back = tune_value_same(now_undo, undo);
		str_copy(now, len, now_was);
	}
	return still ? TV_REVERT : back ? TV_BACK_ALREADY : TV_SUPERSEDED;
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

/* Note a superseded change for the screen and the exit message. */
static void note_superseded(struct tuner *tu, const struct jentry *e)
{
	if (tu->v.nsuperseded == TUNE_LIST_MAX) {
		memmove(tu->v.superseded, tu->v.superseded + 1, sizeof tu->v.superseded[0] * (TUNE_LIST_MAX - 1));
		tu->v.nsuperseded--;
	}
	tu->v.superseded[tu->v.nsuperseded++] = *e;
}

/* Revert journal entry i: on its own server, under the tuning lock, and
 * only while dbtop's value is the one in force (PostgreSQL: the line in
 * postgresql.auto.conf). 0 reverted, 1 superseded (someone set another
 * value since: left as it is, ended as such), -1 failure. */
/* The state of t on the server now (TC_PREV: its value and undo token),
 * to be freed; NULL with the reason in err when it cannot be read. */
static struct tune_call *read_prev(struct tuner *tu, const struct tunable *t, enum tune_kind kind, const char *target,
				   unsigned oid, char *err, size_t errlen)
{
	struct tune_call *c = xcalloc(1, sizeof *c);
	c->what = TC_PREV;
	c->t = t;
	c->kind = kind;
	str_copy(c->target, sizeof c->target, tune_kind_scoped(kind) && target ? target : "");
	c->target_oid = tune_kind_scoped(kind) ? oid : 0;
	if (tu->src->ops->tune(tu->src, c) < 0) {
		str_copy(err, errlen, c->err);
		free(c);
		return NULL;
	}
	return c;
}

static int revert_one(struct tuner *tu, int i, char *msg, size_t len)
{
	struct jentry *e = &tu->j.e[i];
	const struct tunable *t = tunable_find(e->name, tu->src->caps.flavour, tune_kind_base(e->kind));
	struct tune_call *c;
	char sql[320], err[NOTE_LEN], now[TUNE_VALUE_LEN + 40], what[160];
	tuner_change_name(e, what, sizeof what);
	if (!ours(tu, e)) {
		str_printf(msg, len, "not reverted: %s = %s was set on another server (%s): left alone", what, e->val,
			   e->slabel[0] ? e->slabel : "unknown");
		return -1;
	}
	if (tune_sql_revert_in(e->kind, e->name, e->target, e->undo, sql, sizeof sql) < 0 || !t) {
		str_printf(msg, len, "cannot revert %s: the journal entry is not valid here (restore it by hand)",
			   what);
		return -1;
	}
	if (!server_check(tu, msg, len))
		return -1;
	if (take_lock(tu, err, sizeof err) < 0) {
		str_printf(msg, len, "%s not reverted: %s", what, err);
		return -1;
	}
	/* compare, then revert */
	if (!(c = read_prev(tu, t, e->kind, e->target, 0, err, sizeof err))) {
		str_printf(msg, len, "%s not reverted: its value now cannot be read (%s)", what, err);
		return -1;
	}
	enum tune_verdict v = tune_revert_verdict(e->kind, e->val, e->undo, c->undo, c->was, now, sizeof now);
	free(c);
	if (v == TV_BACK_ALREADY) {
		/* the state before dbtop is in force already (a change in doubt
		 * that did not take, or undone by hand): nothing to send */
		if (journal_end(&tu->j, e->seq, JS_REVERTED, err, sizeof err) < 0) {
			str_printf(msg, len, "%s is back at %s, but %s", what, e->was, err);
			return -1;
		}
		str_printf(msg, len, "%s is back at its earlier value %s already: nothing to revert", what, e->was);
		return 0;
	}
	if (v == TV_SUPERSEDED) {
		if (journal_end_value(&tu->j, e->seq, JS_SUPERSEDED, now, err, sizeof err) < 0) {
			str_printf(msg, len, "%s was changed by someone else, but %s", what, err);
			return -1;
		}
		note_superseded(tu, e);
		str_printf(msg, len,
			   "not reverted: %s is %s now (set by someone else while dbtop held %s; before dbtop: %s)",
			   what, now, e->val, e->was);
		return 1;
	}
	if (exec_sql(tu, sql, e->kind, err, sizeof err, NULL) < 0) {
		str_printf(msg, len, "revert of %s failed: %s", what, err);
		text_sanitize(msg);
		return -1;
	}
	if (journal_end(&tu->j, e->seq, JS_REVERTED, err, sizeof err) < 0) {
		str_printf(msg, len, "%s reverted, but %s", what, err);
		return -1;
	}
	str_printf(msg, len, "reverted: %s%s", sql, tune_needs_reload(e->kind) ? "; SELECT pg_reload_conf()" : "");
	text_sanitize(msg); /* a role's name may hold anything */
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
	return ensure_connected(tu, msg, len) && server_check(tu, msg, len);
}

int tuner_revert(struct tuner *tu, bool all, char *msg, size_t len)
{
	int idx[JOURNAL_MAX], n, done = 0, left = 0, rc;
	char one[NOTE_LEN] = "";
	n = active_ours(tu, idx);
	if (n == 0) {
		str_copy(msg, len, "no change to undo");
		return 0;
	}
	if (!writable(tu, msg, len))
		return -1;
	for (int k = 0; k < (all ? n : 1); k++) {
		rc = revert_one(tu, idx[k], one, sizeof one);
		if (rc < 0) {
			str_printf(msg, len, "%s%s", one, done + left ? " (the newer changes were ended)" : "");
			publish(tu);
			tuner_probe(tu);
			return -1;
		}
		if (rc > 0)
			left++;
		else
			done++;
	}
	if (done + left == 1)
		str_copy(msg, len, one);
	else if (left)
		str_printf(msg, len, "reverted %d change(s), newest first; %d left as someone else set them", done, left);
	else
		str_printf(msg, len, "reverted %d changes, newest first", done);
	release_when_idle(tu);
	publish(tu);
	tuner_probe(tu);
	return done + left;
}

int tuner_expire(struct tuner *tu, double now_mono, char *msg, size_t len)
{
	int idx[JOURNAL_MAX], n, done = 0, rc;
	char one[NOTE_LEN] = "";
	if (tu->v.ttl <= 0)
		return 0;
	n = active_ours(tu, idx);
	for (int k = 0; k < n; k++) {
		struct jentry *e = &tu->j.e[idx[k]];
		if (e->seq < tu->v.first_seq || e->mono <= 0 || e->mono + tu->v.ttl > now_mono)
			continue;
		if (!writable(tu, msg, len))
			return -1;
		rc = revert_one(tu, idx[k], one, sizeof one);
		if (rc < 0) {
			str_copy(msg, len, one);
			publish(tu);
			return -1;
		}
		done++;
	}
	if (done) {
		str_printf(msg, len, "--tune-ttl reached: %s", done == 1 ? one : "changes reverted");
		release_when_idle(tu);
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
		if (e->seq != seq || e->state != JS_ACTIVE || !ours(tu, e))
			continue;
		if (journal_end(&tu->j, seq, JS_KEPT, err, sizeof err) < 0) {
			str_copy(msg, len, err);
			return -1;
		}
		char what[160];
		tuner_change_name(e, what, sizeof what);
		str_printf(msg, len, "kept: %s = %s stays after dbtop exits%s", what, e->val,
			   e->kind == TK_PG_SYSTEM     ? " (in postgresql.auto.conf)"
			   : tune_kind_scoped(e->kind) ? " (in pg_db_role_setting)"
						       : " (until the server restarts: my.cnf is not edited)");
		release_when_idle(tu);
		publish(tu);
		return 0;
	}
	str_copy(msg, len, "no such active change");
	return -1;
}

/* A setting dbtop changed already: toggling it again is its undo. True
 * when t is one (*rc: the outcome, said in msg). */
static bool toggle_is_undo(struct tuner *tu, const struct tunable *t, int *rc, char *msg, size_t len)
{
	for (int i = tu->j.n - 1; i >= 0; i--) {
		if (tu->j.e[i].state != JS_ACTIVE || !ours(tu, &tu->j.e[i]) || strcmp(tu->j.e[i].name, t->name) != 0)
			continue;
		*rc = -1;
		if (tu->j.e[i].seq < tu->v.first_seq) {
			str_printf(msg, len, "%s has a change left by an earlier dbtop: revert it first (U)", t->name);
			return true;
		}
		if (!writable(tu, msg, len))
			return true;
		int r = revert_one(tu, i, msg, len);
		release_when_idle(tu);
		publish(tu);
		tuner_probe(tu);
		*rc = r < 0 ? -1 : 0;
		return true;
	}
	return false;
}

/* The journal entry of setting t to value, with the state to restore read
 * now (not from the last probe). 0, or -1 said in msg. */
static int entry_for(struct tuner *tu, const struct tunable *t, enum tune_kind kind, const struct tune_target *to,
		     const char *value, struct jentry *e, char *msg, size_t len)
{
	char err[NOTE_LEN], who[2 * TUNE_TARGET_MAX + 3] = "", real[2 * TUNE_TARGET_MAX + 3];
	bool scoped = tune_kind_scoped(kind) && to;
	struct tune_call *c = read_prev(tu, t, kind, scoped ? to->name : NULL, scoped ? to->oid : 0, err, sizeof err);
	if (!c) {
		str_printf(msg, len, "cannot read the current state of %s: %s: nothing was done", t->name, err);
		return -1;
	}
	if (scoped)
		tune_target_text(to->name, who, sizeof who);
	if (strcmp(c->undo, "gone") == 0) {
		str_printf(msg, len, "there is no %s %s on this server%s: nothing was done", tune_scope_name(kind), who,
			   scoped && to->oid ? " any more" : "");
		free(c);
		return -1;
	}
	/* found by its oid: its real name, which must look like the one shown
	 * (else the oid names another role now) */
	if (scoped) {
		tune_target_text(c->target, real, sizeof real);
		if (strcmp(real, who) != 0) {
			str_printf(msg, len, "the %s shown as %s is %s now: nothing was done", tune_scope_name(kind),
				   who, real);
			free(c);
			return -1;
		}
	}
	memset(e, 0, sizeof *e);
	e->kind = kind;
	if (scoped)
		str_copy(e->target, sizeof e->target, c->target);
	e->wall = clock_wall();
	e->mono = clock_mono();
	str_copy(e->name, sizeof e->name, t->name);
	str_copy(e->undo, sizeof e->undo, c->undo);
	str_copy(e->was, sizeof e->was, c->was);
	str_copy(e->val, sizeof e->val, value);
	str_copy(e->sid, sizeof e->sid, tu->sid);
	str_copy(e->slabel, sizeof e->slabel, tu->v.server);
	free(c);
	return 0;
}

int tuner_apply(struct tuner *tu, int idx, const char *value, char *msg, size_t len)
{
	return tuner_apply_in(tu, idx, value, NULL, msg, len);
}

/* What the change's message adds: when a scoped change takes effect. */
static void takes_effect(enum tune_kind kind, const char *target, char *buf, size_t len)
{
	char who[2 * TUNE_TARGET_MAX + 3];
	buf[0] = '\0';
	if (!tune_kind_scoped(kind))
		return;
	tune_target_text(target, who, sizeof who);
	str_printf(buf, len, " (new sessions %s %s %s only; running sessions keep their value)",
		   kind == TK_PG_ROLE ? "of" : "in", tune_scope_name(kind), who);
}

/* The change journaled, then sent: the message says what was done, or
 * why not (an outcome in doubt stays in the journal: reverting it is
 * harmless). */
static int apply_run(struct tuner *tu, struct jentry *e, enum tune_kind kind, const char *sql, const char *when,
		     char *msg, size_t len)
{
	char err[NOTE_LEN];
	if (journal_begin(&tu->j, e, err, sizeof err) < 0) {
		str_printf(msg, len, "refused: %s: nothing was sent to the server", err);
		release_when_idle(tu);
		publish(tu);
		return -1;
	}
	bool unsure = false;
	if (exec_sql(tu, sql, kind, err, sizeof err, &unsure) < 0) {
		char e2[NOTE_LEN];
		/* an outcome in doubt stays in the journal: reverting it is harmless */
		if (!unsure)
			journal_end(&tu->j, e->seq, JS_FAILED, e2, sizeof e2);
		str_printf(msg, len, "failed: %s: %s%s", sql, err,
			   unsure ? " (it may have taken effect: it stays in the undo journal and is reverted)" : "");
		text_sanitize(msg);
		release_when_idle(tu);
		publish(tu);
		tuner_probe(tu);
		return -1;
	}
	str_printf(msg, len, "done: %s%s%s (undo: u)", sql, tune_needs_reload(kind) ? "; SELECT pg_reload_conf()" : "",
		   when);
	text_sanitize(msg);
	publish(tu);
	tuner_probe(tu);
	return 0;
}

int tuner_apply_in(struct tuner *tu, int idx, const char *value, const struct tune_target *to, char *msg, size_t len)
{
	const struct tunable *t;
	struct jentry e;
	char sql[320], rsql[320], err[NOTE_LEN], when[200];
	int rc;
	enum tune_kind kind = to ? (enum tune_kind)to->kind : 0;
	const char *target = to ? to->name : NULL;

	if (idx < 0 || (size_t)idx >= ntunables) {
		str_copy(msg, len, "no such setting");
		return -1;
	}
	t = &tunables[idx];
	if (!kind)
		kind = t->kind;
	if (!tunable_applies(t, tu->src->caps.flavour)) {
		str_printf(msg, len, "%s does not exist on this server", t->name);
		return -1;
	}
	if (toggle_is_undo(tu, t, &rc, msg, len))
		return rc;
	if (!writable(tu, msg, len))
		return -1;
	if (kind != t->kind && !(t->narrow && tune_kind_scoped(kind))) {
		str_printf(msg, len, "refused: %s is changed for the whole server only", t->name);
		return -1;
	}
	/* the probe read ALTER SYSTEM's privilege; a role's or a database's
	 * (CREATEROLE, the owner) is the server's to judge */
	if (tu->v.probed && !tu->v.allowed[idx] && !tune_kind_scoped(kind)) {
		str_printf(msg, len, "not allowed: %s needs %s", t->name, t->priv);
		return -1;
	}
	if (tune_sql_apply_in(t, kind, target, value, sql, sizeof sql) < 0) {
		if (tune_kind_scoped(kind) && tune_value_safe(value))
			str_printf(msg, len, "refused: the %s name is empty or longer than %d bytes",
				   tune_scope_name(kind), TUNE_TARGET_MAX);
		else
			str_printf(msg, len, "refused: '%s' is not a value dbtop writes", value);
		return -1;
	}
	/* one tuner per server: the lock before the first change */
	if (take_lock(tu, err, sizeof err) < 0) {
		str_printf(msg, len, "refused: %s: nothing was done", err);
		return -1;
	}
	if (entry_for(tu, t, kind, to, value, &e, msg, len) < 0) {
		release_when_idle(tu);
		return -1;
	}
	/* the statement for the role's or database's real name */
	if (tune_sql_apply_in(t, kind, e.target, value, sql, sizeof sql) < 0) {
		str_printf(msg, len, "refused: the %s's name cannot be quoted", tune_scope_name(kind));
		release_when_idle(tu);
		return -1;
	}
	takes_effect(kind, e.target, when, sizeof when);
	if (tune_value_same(e.was, value) && (!tune_kind_scoped(kind) || strncmp(e.undo, "set:", 4) == 0)) {
		str_printf(msg, len, "%s is %s already%s: nothing was done", t->name, value, when);
		release_when_idle(tu);
		return -1;
	}
	if (tune_sql_revert_in(e.kind, e.name, e.target, e.undo, rsql, sizeof rsql) < 0) {
		str_printf(msg, len, "refused: the present state of %s ('%s') could not be restored exactly", t->name,
			   e.undo);
		release_when_idle(tu);
		return -1;
	}
	return apply_run(tu, &e, kind, sql, when, msg, len);
}

void tuner_close(struct tuner *tu)
{
	journal_close(&tu->j);
	journal_close(&tu->old);
}

/* The view's bytes before its lists (the first of them, superseded). */
#define TUNE_VIEW_HEAD offsetof(struct tune_view, superseded)

void tune_view_clear(struct tune_view *tv)
{
	memset(tv, 0, TUNE_VIEW_HEAD);
}

void tune_view_copy(struct tune_view *dst, const struct tune_view *src)
{
	assert(src->nactive >= 0 && src->nactive <= JOURNAL_MAX);
	assert(src->nforeign >= 0 && src->nforeign <= TUNE_LIST_MAX);
	assert(src->nsuperseded >= 0 && src->nsuperseded <= TUNE_LIST_MAX);
	memcpy(dst, src, TUNE_VIEW_HEAD);
	memcpy(dst->superseded, src->superseded, sizeof src->superseded[0] * (size_t)src->nsuperseded);
	memcpy(dst->foreign, src->foreign, sizeof src->foreign[0] * (size_t)src->nforeign);
	memcpy(dst->active, src->active, sizeof src->active[0] * (size_t)src->nactive);
}

void tune_view_snap(const struct tune_view *tv, struct tune_snap *out)
{
	memset(out, 0, sizeof *out);
	out->flags = (uint8_t)((tv->probed ? TSNAP_PROBED : 0) | (tv->available ? TSNAP_AVAILABLE : 0) |
			       (tv->read_only ? TSNAP_READ_ONLY : 0) | (tv->locked ? TSNAP_LOCKED : 0) |
			       (tv->elsewhere ? TSNAP_ELSEWHERE : 0));
	out->ttl = tv->ttl;
	str_copy(out->why, sizeof out->why, tv->why);
	str_copy(out->note, sizeof out->note, tv->note);
	for (size_t i = 0; i < ntunables && i < TUNABLES_MAX && out->n < TUNABLES_MAX; i++) {
		const struct tunable *t = &tunables[i];
		if (tv->probed && !tunable_applies(t, tv->flavour))
			continue;
		struct tune_snap_row *r = &out->row[out->n++];
		str_copy(r->name, sizeof r->name, t->name);
		if (tv->probed && tv->known[i]) {
			r->flags |= TSROW_KNOWN;
			str_copy(r->now, sizeof r->now, tv->current[i]);
			str_copy(r->to, sizeof r->to, tunable_toggle(t, tv->current[i]));
		}
		if (tv->probed && tv->allowed[i])
			r->flags |= TSROW_ALLOWED;
		for (int k = 0; k < tv->nactive; k++) {
			const struct jentry *e = &tv->active[k];
			if (strcmp(e->name, t->name) != 0)
				continue;
			r->flags |= TSROW_CHANGED | (e->seq < tv->first_seq ? TSROW_EARLIER : 0) |
				    (tune_kind_scoped(e->kind) ? TSROW_SCOPED : 0);
			if (tune_kind_scoped(e->kind)) {
				r->scope = (uint8_t)e->kind;
				str_copy(r->target, sizeof r->target, e->target);
			}
			str_copy(r->was, sizeof r->was, e->was);
			str_copy(r->val, sizeof r->val, e->val);
			str_copy(r->undo, sizeof r->undo, e->undo);
			r->since = e->wall;
			break;
		}
	}
}

void tune_view_from_snap(const struct tune_snap *s, double at_wall, struct tune_view *tv)
{
	tune_view_clear(tv);
	tv->at_wall = at_wall;
	tv->probed = s->flags & TSNAP_PROBED;
	tv->available = s->flags & TSNAP_AVAILABLE;
	tv->read_only = s->flags & TSNAP_READ_ONLY;
	tv->locked = s->flags & TSNAP_LOCKED;
	tv->elsewhere = s->flags & TSNAP_ELSEWHERE;
	tv->ttl = s->ttl;
	str_copy(tv->why, sizeof tv->why, s->why);
	str_copy(tv->note, sizeof tv->note, s->note);
	tv->first_seq = 1;
	for (int k = 0; k < s->n && k < TUNABLES_MAX; k++) {
		const struct tune_snap_row *r = &s->row[k];
		for (size_t i = 0; i < ntunables && i < TUNABLES_MAX; i++) {
			const struct tunable *t = &tunables[i];
			if (strcmp(t->name, r->name) != 0)
				continue;
			tv->known[i] = r->flags & TSROW_KNOWN;
			str_copy(tv->current[i], sizeof tv->current[i], r->now);
			tv->allowed[i] = r->flags & TSROW_ALLOWED;
			if ((r->flags & TSROW_CHANGED) && tv->nactive < JOURNAL_MAX) {
				struct jentry *e = &tv->active[tv->nactive++];
				e->seq = r->flags & TSROW_EARLIER ? 0 : 1;
				e->wall = r->since;
				e->kind = t->kind;
				if ((r->flags & TSROW_SCOPED) && tune_kind_scoped((enum tune_kind)r->scope) &&
				    r->target[0]) {
					e->kind = (enum tune_kind)r->scope;
					str_copy(e->target, sizeof e->target, r->target);
				}
				str_copy(e->name, sizeof e->name, t->name);
				str_copy(e->was, sizeof e->was, r->was);
				str_copy(e->val, sizeof e->val, r->val);
				str_copy(e->undo, sizeof e->undo, r->undo);
				e->state = JS_ACTIVE;
				tv->orphans += !tv->elsewhere && (r->flags & TSROW_EARLIER);
			}
			break;
		}
	}
	/* newest first, as the tuner lists them */
	for (int a = 1; a < tv->nactive; a++)
		for (int b = a; b > 0 && tv->active[b].wall > tv->active[b - 1].wall; b--) {
			struct jentry x = tv->active[b];
			tv->active[b] = tv->active[b - 1];
			tv->active[b - 1] = x;
		}
}
