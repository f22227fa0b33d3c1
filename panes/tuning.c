/* tuning.c - the safe tuning pane: the settings of the tuning table for this
 * server, their values now, the value a key sets, the privilege, what is
 * changed by dbtop and since when; the selected row's risk and exact SQL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../model/findings.h"
#include "../tune/tuner.h"
#include "../util/util.h"
#include "pane.h"

/* What ALTER ROLE / ALTER DATABASE ... SET needs (the server judges it) */
#define PG_SCOPED_PRIV \
	"ALTER ROLE: superuser, or CREATEROLE (PostgreSQL 16+: with ADMIN OPTION on the role); ALTER DATABASE: " \
	"the database's owner or a superuser"

/* Indexes into tunables[] of the rows shown. */
static int rows_of(const struct model *m, int *idx)
{
	int n = 0;
	enum flavour f = m->caps.flavour;
	for (size_t i = 0; i < ntunables && n < TUNABLES_MAX; i++)
		if (tunable_applies(&tunables[i], f))
			idx[n++] = (int)i;
	return n;
}

int tuning_row_of(const struct model *m, const struct tunable *t)
{
	int idx[TUNABLES_MAX], n = rows_of(m, idx);
	for (int r = 0; t && r < n; r++)
		if (&tunables[idx[r]] == t)
			return r;
	return -1;
}

/* The active change of tunable i, or NULL. */
static const struct jentry *change_of(const struct tune_view *tv, int i)
{
	for (int k = 0; tv && k < tv->nactive; k++)
		if (strcmp(tv->active[k].name, tunables[i].name) == 0)
			return &tv->active[k];
	return NULL;
}

/* "4m12s" */
static void fmt_age(double s, char *buf, size_t len)
{
	long t = s > 0 ? (long)s : 0;
	if (t >= 3600)
		str_printf(buf, len, "%ldh%02ldm", t / 3600, t % 3600 / 60);
	else
		str_printf(buf, len, "%ldm%02lds", t / 60, t % 60);
}

/* The value shown now for tunable i ("-" when not read, "absent" when the
 * server has no such setting or instrument). */
static const char *current(const struct tune_view *tv, int i)
{
	return !tv || !tv->probed ? "-" : tv->known[i] ? tv->current[i] : "absent";
}

/* How narrow a change of t can be: MySQL / MariaDB have no narrower scope
 * for a durability setting; a PostgreSQL setting a session may set can be
 * one role's or one database's; everything else here is server-wide. */
static const char *scope_of(const struct tunable *t)
{
	return t->durability && t->kind == TK_MY_GLOBAL ? "server only (the engine has no narrower scope)"
	       : t->narrow                              ? "server, role or database (s picks)"
							: "server";
}

/* The scope a of row i would take: the one chosen with s while the
 * evidence still offers it, else the one the evidence offers
 * (findings_remedy_scope: the finding suggests the same), else the
 * server; kind, the target's name (role / database) and the evidence. */
struct row_scope {
	enum tune_kind kind;
	char target[TUNE_TARGET_MAX + 1];  /* as the session list shows it */
	unsigned oid;                      /* ... the role's / database's oid (0: unknown) */
	char who[2 * TUNE_TARGET_MAX + 3]; /* target as shown */
	struct scope_pick role, db;        /* the evidence for each */
};

/* The pane's own state (pane_view.state): the scope chosen with s (a
 * tune_kind; 0: the one the evidence offers, findings_remedy_scope). */
struct tuning_state {
	int scope;
};

static void *tuning_init(void)
{
	return xcalloc(1, sizeof(struct tuning_state));
}

static void tuning_free(void *state)
{
	free(state);
}

/* the scope v's user chose (0: none, or a view made without its state) */
static int scope_chosen(const struct pane_view *v)
{
	const struct tuning_state *st = v->state;
	return st ? st->scope : 0;
}

static void scope_for(const struct model *m, const struct pane_view *v, int i, struct row_scope *sc)
{
	const struct tunable *t = &tunables[i];
	memset(sc, 0, sizeof *sc);
	sc->kind = findings_remedy_scope(m, t, NULL);
	if (!t->narrow || m->caps.engine != ENGINE_POSTGRESQL)
		return;
	scope_evidence_pick(&m->scope, true, m->last.wall, &sc->role);
	scope_evidence_pick(&m->scope, false, m->last.wall, &sc->db);
	int chosen = scope_chosen(v);
	if (chosen == TK_PG_SYSTEM || (chosen == TK_PG_ROLE && sc->role.ok) || (chosen == TK_PG_DATABASE && sc->db.ok))
		sc->kind = (enum tune_kind)chosen;
	const struct scope_pick *p = sc->kind == TK_PG_ROLE ? &sc->role : sc->kind == TK_PG_DATABASE ? &sc->db : NULL;
	if (p) {
		str_copy(sc->target, sizeof sc->target, p->name);
		sc->oid = p->oid;
		tune_target_text(p->name, sc->who, sizeof sc->who);
	}
}

/* "new sessions of role app only; running sessions keep their value" */
static void scope_effect(const struct row_scope *sc, char *buf, size_t len)
{
	if (!tune_kind_scoped(sc->kind))
		str_copy(buf, len, "the whole server at once");
	else
		str_printf(buf, len, "new sessions %s %s %s only; running sessions keep their value",
			   sc->kind == TK_PG_ROLE ? "of" : "in", tune_scope_name(sc->kind), sc->who);
}

/* The forecast of the change a would make to row i, from the model now. */
static void forecast_of(const struct model *m, const struct tune_view *tv, int i, struct forecast *fc)
{
	forecast_make(m, &tunables[i], tunable_toggle(&tunables[i], current(tv, i)), fc);
}

/* The newest remedy seen applied: its forecast against the outcome. */
static int draw_outcome(const struct model *m, struct canvas *cv, int y)
{
	const struct fc_outcome *o = &m->outcome;
	if (o->state == FCO_NONE || y >= cv->h)
		return y;
	char text[FC_TEXT_LEN + 400], name[200];
	enum role role = o->state == FCO_MET ? R_VALUE : o->state == FCO_MISSED ? R_CRIT : R_NOTE;
	if (o->scope) {
		char who[2 * sizeof o->target + 2];
		tune_target_text(o->target, who, sizeof who);
		str_printf(name, sizeof name, "%s for %s %s", o->name, tune_scope_name((enum tune_kind)o->scope), who);
	} else {
		str_copy(name, sizeof name, o->name);
	}
	if (o->state == FCO_SETTLING || o->state == FCO_MEASURING)
		str_printf(text, sizeof text, "%s %s -> %s: %s (%d intervals settle, %d measured); %s", name, o->from,
			   o->to, o->state == FCO_SETTLING ? "settling" : "measuring the outcome", FC_SETTLE_INTERVALS,
			   FC_MEASURE_INTERVALS, o->fc.text);
	else
		str_printf(text, sizeof text, "%s %s -> %s: %s", name, o->from, o->to, o->text);
	return cv_wrap(cv, y, 0, role, text, y + 2 < cv->h ? y + 2 : cv->h);
}

/* Apply and revert statements of tunable i set to value, in scope sc
 * (NULL: the server). */
static void sql_pair(const struct tune_view *tv, int i, const struct row_scope *sc, const char *value, char *apply,
		     size_t alen, char *rev, size_t rlen)
{
	const struct tunable *t = &tunables[i];
	enum tune_kind kind = sc ? sc->kind : t->kind;
	const char *target = sc ? sc->target : NULL;
	bool reload = tune_needs_reload(kind);
	if (tune_sql_apply_in(t, kind, target, value, apply, alen) < 0)
		str_copy(apply, alen, "(refused: unsafe value)");
	else if (reload)
		str_printf(apply + strlen(apply), alen - strlen(apply), "; SELECT pg_reload_conf()");
	const char *hint = tv && !tune_kind_scoped(kind) ? tv->undo_hint[i] : "";
	if (hint[0] && tune_sql_revert(t->kind, t->name, hint, rev, rlen) == 0) {
		if (reload)
			str_printf(rev + strlen(rev), rlen - strlen(rev), "; SELECT pg_reload_conf()");
	} else if (tune_kind_scoped(kind)) {
		char head[2 * TUNE_TARGET_MAX + 40];
		if (tune_sql_revert_in(kind, t->name, target, "reset", head, sizeof head) < 0)
			str_copy(head, sizeof head, "?");
		/* "ALTER ROLE "x" RESET name" -> its head */
		char *r = strstr(head, " RESET ");
		if (r)
			*r = '\0';
		str_printf(rev, rlen,
			   "%s SET %s back to its own value in pg_db_role_setting, or RESET when it had none "
			   "(read just before the change)",
			   head, t->name);
	} else if (t->kind == TK_PG_SYSTEM) {
		str_printf(rev, rlen, "ALTER SYSTEM SET %s back to its postgresql.auto.conf line, or RESET when it had "
			   "none (read just before the change); SELECT pg_reload_conf()", t->name);
	} else {
		str_copy(rev, rlen, "the value read just before the change");
	}
}

/* Why nothing can be changed: the tuner's reason, or that a recording has
 * no server to act on. */
static const char *unavailable_why(const struct tune_view *tv, const struct pane_view *v)
{
	if (tv && tv->why[0])
		return tv->why;
	return v->replay ? "tuning acts on a live server only (this is a recording)" : "tuning is not available";
}

/* The lines above the table: the changes in force, the ones not made
 * here, the one someone else overwrote, the note and what a reload would
 * also apply, aged at now. From line y; returns the next free line. */
static int draw_changes(const struct tune_view *tv, const struct pane_view *v, double now, struct canvas *cv,
			int y)
{
	if (tv && tv->nactive && tv->elsewhere) {
		char age[32];
		fmt_age(now - tv->active[tv->nactive - 1].wall, age, sizeof age);
		if (y < cv->h)
			cv_printf(cv, y++, 0, R_WARN, "%d change%s in force, oldest %s ago, made by another dbtop that is "
				  "running: it reverts them when it quits, this one does not", tv->nactive,
				  tv->nactive == 1 ? "" : "s", age);
	} else if (tv && tv->nactive) {
		char age[32];
		fmt_age(now - tv->active[tv->nactive - 1].wall, age, sizeof age);
		if (y < cv->h)
			cv_printf(cv, y++, 0, R_CRIT, "%d change%s in force, oldest %s ago%s%s: u undoes the last, U all; "
				  "reverted on quit", tv->nactive, tv->nactive == 1 ? "" : "s", age,
				  tv->orphans ? ", left by an earlier dbtop: " : "", tv->orphans ? "revert with U" : "");
	} else if (tv && tv->available && y < cv->h && v->full) {
		cv_text(cv, y++, 0, R_UNKNOWN, "nothing changed by dbtop. a: apply the selected remedy (asks first)");
	}
	/* changes not made on this server (or not verified to be): never reverted here */
	for (int k = 0; tv && k < tv->nforeign && y < cv->h && k < 2; k++) {
		const struct jentry *f = &tv->foreign[k];
		char text[700];
		str_printf(text, sizeof text, "not reverted here: %s = %s (was %s) set on %s%s%s%s", f->name, f->val, f->was,
			   f->slabel, tv->legacy_path[0] && !f->sid[0] ? "; journal " : "",
			   tv->legacy_path[0] && !f->sid[0] ? tv->legacy_path : "",
			   k == 1 && tv->nforeign > 2 ? " ..." : "");
		int lim = y + (v->full ? 3 : 1);
		y = cv_wrap(cv, y, 0, R_WARN, text, lim < cv->h ? lim : cv->h);
	}
	/* the newest change someone else overwrote: left as they set it */
	if (tv && tv->nsuperseded && y < cv->h) {
		const struct jentry *f = &tv->superseded[tv->nsuperseded - 1];
		cv_printf(cv, y++, 0, R_NOTE, "left as someone else set it: %s is %s (dbtop had set %s; before dbtop: %s)",
			  f->name, f->now, f->val, f->was);
	}
	if (tv && tv->note[0] && y < cv->h && v->full)
		y = cv_wrap(cv, y, 0, R_NOTE, tv->note, cv->h);
	if (tv && tv->pending[0] && y < cv->h && v->full)   /* a warning; not knowing: a note */
		y = cv_wrap(cv, y, 0,
			    strncmp(tv->pending, TUNE_PENDING_UNREAD, strlen(TUNE_PENDING_UNREAD)) == 0 ? R_NOTE : R_CRIT,
			    tv->pending, cv->h);
	return y;
}

/* One row of the table: setting, value now, what a sets, may set, state;
 * hint is the finding's remedy. */
static void draw_row(const struct tune_view *tv, int i, bool sel, const struct tunable *hint, int wn, int wv,
		     double now, struct canvas *cv, int y)
{
	const struct tunable *t = &tunables[i];
	const struct jentry *e = change_of(tv, i);
	char state[96] = "", age[32];
	const char *now_v = current(tv, i);
	const char *to = e ? e->was : tv && tv->probed && tv->known[i] ? tunable_toggle(t, now_v) : "-";
	if (e && tune_kind_scoped(e->kind)) {
		char who[2 * TUNE_TARGET_MAX + 3];
		tune_target_text(e->target, who, sizeof who);
		fmt_age(now - e->wall, age, sizeof age);
		str_printf(state, sizeof state, "%s %s: dbtop set %s %s ago (was %s)", tune_scope_name(e->kind), who,
			   e->val, age, e->was);
	} else if (e) {
		fmt_age(now - e->wall, age, sizeof age);
		str_printf(state, sizeof state, "dbtop set %s %s ago (was %s)", e->val, age, e->was);
	} else if (t == hint) {
		str_copy(state, sizeof state, "<- the finding's remedy");
	}
	const char *may = !tv || !tv->probed ? "?" : !tv->known[i] && !e ? "-" : tv->allowed[i] ? "yes" : "NO";
	enum role role = sel ? R_SELECTED : e ? R_WARN : R_NORMAL;
	if (sel)
		cv_fill(cv, y, 0, cv->w, R_SELECTED);
	char line[400];
	char cn[160], cv1[64], cv2[64];
	text_pad(cn, sizeof cn, t->name, wn, false, cv->utf8);
	text_pad(cv1, sizeof cv1, now_v, wv, false, cv->utf8);
	text_pad(cv2, sizeof cv2, to, wv, false, cv->utf8);
	str_printf(line, sizeof line, "%s %s %s %-9s %s", cn, cv1, cv2, may, state);
	cv_text(cv, y, 0, role, line);
}

/* dbtop's change e for one role or database: of its sessions in the
 * newest session list, how many started after the change (they took its
 * value) and how many before (they keep theirs). From line y. */
static int draw_since(const struct model *m, const struct jentry *e, struct canvas *cv, int y)
{
	const struct session_set *ss = m->sessions;
	char text[600], who[2 * TUNE_TARGET_MAX + 3], listed[TUNE_TARGET_MAX + 1];
	unsigned after = 0, before = 0, unknown = 0;
	long long at = (long long)(e->wall * 1e6);
	tune_target_text(e->target, who, sizeof who);
	/* the name as the session list has it (made safe for a terminal) */
	str_copy(listed, sizeof listed, e->target);
	text_sanitize(listed);
	if (!ss || (ss->status != SESS_OK && ss->status != SESS_PARTIAL)) {
		str_printf(text, sizeof text, "sessions %s %s %s: the session list is not read (%s)",
			   e->kind == TK_PG_ROLE ? "of" : "in", tune_scope_name(e->kind), who,
			   ss && ss->note[0] ? ss->note : "none yet");
		return cv_wrap(cv, y, 0, R_UNKNOWN, text, cv->h);
	}
	for (size_t k = 0; k < ss->n; k++) {
		const struct session *s = &ss->s[k];
		if (s->self || s->cls == SC_BACKGROUND || strcmp(e->kind == TK_PG_ROLE ? s->user : s->db, listed) != 0)
			continue;
		if (!s->ident.known || !s->ident.start_us)
			unknown++;
		else if (s->ident.start_us > at)
			after++;
		else
			before++;
	}
	size_t l =
		str_printf(text, sizeof text,
			   "sessions %s %s %s listed now: %u started after the change (backend_start) and run with %s; "
			   "%u started before and keep their value",
			   e->kind == TK_PG_ROLE ? "of" : "in", tune_scope_name(e->kind), who, after, e->val, before);
	if (unknown && l < sizeof text)
		l += str_printf(text + l, sizeof text - l, "; %u with no start time read", unknown);
	if (ss->idle_unread && l < sizeof text)
		str_printf(text + l, sizeof text - l, " (idle ones are not listed: i on screen 6 lists them)");
	return cv_wrap(cv, y, 0, after ? R_VALUE : R_NOTE, text, cv->h);
}

/* The scope line of row i: how far a reaches, why (the evidence) and how
 * to pick another. */
static int draw_scope(const struct tunable *t, const struct row_scope *sc, struct canvas *cv, int y)
{
	char text[900], effect[300];
	scope_effect(sc, effect, sizeof effect);
	if (!t->narrow || !(sc->role.reads || sc->db.reads)) {
		str_printf(text, sizeof text, "scope: %s; %s", scope_of(t), t->scope);
	} else if (tune_kind_scoped(sc->kind)) {
		const struct scope_pick *p = sc->kind == TK_PG_ROLE ? &sc->role : &sc->db;
		str_printf(text, sizeof text, "scope: %s %s (s: server, role or database): it holds %s; %s",
			   tune_scope_name(sc->kind), sc->who, p->figure, effect);
	} else {
		if (sc->role.ok || sc->db.ok)
			str_printf(text, sizeof text, "scope: server (s: server, role or database); %s; %s",
				   sc->role.ok ? sc->role.text : sc->db.text, t->scope);
		else /* (s says why: the figures) */
			str_printf(text, sizeof text, "scope: server (no role or database offered); %s", t->scope);
	}
	return cv_wrap(cv, y, 0, R_NORMAL, text, cv->h);
}

/* The selected setting in full: what a runs and its revert, the risk,
 * the scope, the privilege, the undo journal. From line y. */
static int draw_selected(const struct model *m, const struct pane_view *v, const struct tune_view *tv, int i,
			 struct canvas *cv, int y)
{
	const struct tunable *t = &tunables[i];
	const struct jentry *e = change_of(tv, i);
	struct row_scope sc;
	char apply[400], rev[400], text[900];
	scope_for(m, v, i, &sc);
	cv_printf(cv, y++, 0, R_TITLE, "%s: %s", t->name, t->label);
	if (e) {
		char rs[320];
		tuner_revert_sql(e, rs, sizeof rs);
		str_printf(text, sizeof text, "a reverts dbtop's change: %s%s", rs[0] ? rs : "(invalid entry)",
			   tune_needs_reload(e->kind) ? "; SELECT pg_reload_conf()" : "");
		y = cv_wrap(cv, y, 0, R_WARN, text, cv->h);
		if (tune_kind_scoped(e->kind) && y < cv->h)
			y = draw_since(m, e, cv, y);
	} else if (tv && tv->probed && !tv->known[i]) {
		y = cv_wrap(cv, y, 0, R_NOTE, t->kind == TK_MY_INSTRUMENT
			    ? "this server has no such instrument (MariaDB 10.8+ writes its redo log without one)"
			    : "this server has no such setting", cv->h);
	} else {
		sql_pair(tv, i, &sc, tunable_toggle(t, current(tv, i)), apply, sizeof apply, rev, sizeof rev);
		str_printf(text, sizeof text, "a runs: %s", apply);
		y = cv_wrap(cv, y, 0, R_VALUE, text, cv->h);
		str_printf(text, sizeof text, "revert: %s", rev);
		y = cv_wrap(cv, y, 0, R_NORMAL, text, cv->h);
		struct forecast fc;
		forecast_of(m, tv, i, &fc);
		if (tune_kind_scoped(sc.kind))
			str_printf(text, sizeof text,
				   "forecast: none for one %s (its new sessions only take it); the whole "
				   "server's: %s",
				   tune_scope_name(sc.kind), fc.text);
		else
			str_printf(text, sizeof text, "forecast: %s", fc.text);
		y = cv_wrap(cv, y, 0, fc.ok && !tune_kind_scoped(sc.kind) ? R_VALUE : R_UNKNOWN, text, cv->h);
	}
	str_printf(text, sizeof text, "risk: %s", t->trade);
	y = cv_wrap(cv, y, 0, R_WARN, text, cv->h);
	if (!e) {
		y = draw_scope(t, &sc, cv, y);
	} else if (tune_kind_scoped(e->kind)) {
		/* the change in force: how far it reaches */
		struct row_scope in = {.kind = e->kind};
		char effect[300];
		tune_target_text(e->target, in.who, sizeof in.who);
		scope_effect(&in, effect, sizeof effect);
		str_printf(text, sizeof text, "scope: %s %s: %s; a session's own SET wins", tune_scope_name(e->kind),
			   in.who, effect);
		y = cv_wrap(cv, y, 0, R_NORMAL, text, cv->h);
	} else {
		str_printf(text, sizeof text, "scope: %s; %s", scope_of(t), t->scope);
		y = cv_wrap(cv, y, 0, R_NORMAL, text, cv->h);
	}
	if (e ? tune_kind_scoped(e->kind) : tune_kind_scoped(sc.kind)) {
		/* the probe read ALTER SYSTEM's privilege, not this one's */
		str_printf(text, sizeof text, "needs: %s", PG_SCOPED_PRIV);
		y = cv_wrap(cv, y, 0, R_NORMAL, text, cv->h);
	} else {
		str_printf(text, sizeof text, "needs: %s%s", t->priv,
			   tv && tv->probed && !tv->allowed[i] ? " - this user does not have it" : "");
		y = cv_wrap(cv, y, 0, tv && tv->probed && !tv->allowed[i] ? R_CRIT : R_NORMAL, text, cv->h);
	}
	if (tv && tv->path[0] && y < cv->h) {
		str_printf(text, sizeof text, "undo journal: %s, of %s%s", tv->path, tv->server[0] ? tv->server : "?",
			   tv->locked ? "; this dbtop holds the server's tuning lock" : "");
		y = cv_wrap(cv, y, 0, R_UNKNOWN, text, cv->h);
	}
	return y;
}

/* Beside the redo flush: the doublewrite buffer (seed 002 turned both off)
 * is read only at server start, so no key changes it. */
static void restart_note(const struct model *m, const struct tunable *t, struct canvas *cv, int y)
{
	const char *dw = NULL;
	for (size_t i = 0; i < m->nsettings; i++)
		if (strcmp(m->settings[i].name, "innodb_doublewrite") == 0)
			dw = m->settings[i].value;
	if (!dw || strcmp(t->name, "innodb_flush_log_at_trx_commit") != 0 || y >= cv->h)
		return;
	char text[300];
	str_printf(text, sizeof text, "innodb_doublewrite=%s: changed only in my.cnf with a server restart, so no key "
		   "here (off is safe only where the file system cannot tear a page, e.g. ZFS's copy-on-write)", dw);
	cv_wrap(cv, y, 0, R_NOTE, text, cv->h);
}

static void tuning_draw(const struct model *m, struct pane_view *v, struct canvas *cv)
{
	const struct tune_view *tv = v->tune;
	int idx[TUNABLES_MAX], n = rows_of(m, idx), y = 0;
	double now = tv && tv->at_wall > 0 ? tv->at_wall : clock_wall();

	v->nrows = n;
	if (!m->have_caps) {
		cv_text(cv, 0, 0, R_UNKNOWN, "connecting...");
		return;
	}
	if (!tv || !tv->available) {
		const char *why = unavailable_why(tv, v);
		y = cv_wrap(cv, y, 0, R_NOTE, why, v->full ? cv->h : 1);
		if (!v->full) {
			v->nrows = 0;   /* a tile: the one-line summary */
			return;
		}
	}
	int y0 = y;
	y = draw_changes(tv, v, now, cv, y);
	if (v->full)
		y = draw_outcome(m, cv, y);
	if (!v->full && cv->h - y < 2) {
		/* a one-line tile: its summary, not a table head without rows;
		 * "none changed" only when no change was said above it */
		if (y < cv->h && y == y0 && !(tv && tv->nactive))
			cv_printf(cv, y, 0, R_UNKNOWN, "none of the %d settings changed by dbtop (screen 5 lists them)", n);
		v->nrows = 0;
		return;
	}
	if (y >= cv->h)
		return;
	int wn = 36, wv = 12;
	if (cv->w < 100) {
		wn = 26;
		wv = 8;
	}
	cv_printf(cv, y++, 0, R_LABEL, "%-*s %-*s %-*s %-9s %s", wn, "setting", wv, "now", wv, "a sets", "may set",
		  "state");
	int visible = cv->h - y - (v->full ? 8 : 0);
	if (visible < 1)
		visible = cv->h - y;
	pane_clamp(v, n, visible);
	const struct tunable *hint = findings_top_remedy(m->findings.f, m->findings.n);
	int hr = tuning_row_of(m, hint);
	if (!v->full && !v->focused && hr >= 0 && (hr < v->top || hr >= v->top + visible)) {
		/* a short tile shows the row the finding points at */
		v->top = hr - visible + 1 > 0 ? hr - visible + 1 : 0;
	}
	for (int r = v->top; r < n && y < cv->h && r < v->top + visible; r++) {
		draw_row(tv, idx[r], v->focused && r == v->sel, hint, wn, wv, now, cv, y++);
		v->nshown++;
	}
	if (!v->full || y + 2 >= cv->h || n == 0)
		return;
	int sel = idx[v->sel < n ? v->sel : 0];
	restart_note(m, &tunables[sel], cv, draw_selected(m, v, tv, sel, cv, y + 1));
}

static int tuning_need(const struct model *m, const struct pane_view *v, int w, int *min)
{
	const struct tune_view *tv = v->tune;
	int idx[TUNABLES_MAX], n = rows_of(m, idx);
	*min = 1;
	if (!m->have_caps || !tv || !tv->available)
		return 1;
	int extra = (tv->nactive > 0) + (tv->nforeign ? 1 : 0) + (tv->nsuperseded > 0);
	if (findings_top_remedy(m->findings.f, m->findings.n))
		*min = 2 + (tv->nactive > 0);
	else if (tv->nactive > 0)
		*min = 1;
	(void)v;
	(void)w;
	return extra + 1 + n;
}

/* The question before K: keep dbtop's change e of t after it exits. */
static void ask_keep(struct pane_reaction *r, const struct tunable *t, const struct jentry *e)
{
	if (!e) {
		str_copy(r->status, sizeof r->status, "K keeps a change dbtop made: this setting has none");
		return;
	}
	char rs[320], what[200];
	tuner_revert_sql(e, rs, sizeof rs);
	tuner_change_name(e, what, sizeof what);
	r->ask.act = PA_TUNE_KEEP;
	r->ask.id = e->seq;
	(void)t;
	str_printf(r->ask.what, sizeof r->ask.what,
		   "KEEP %s = %s after dbtop exits? It will not be reverted: not on quit, not at the next start. %s "
		   "To undo it by hand later: %s%s",
		   what, e->val,
		   tune_kind_scoped(e->kind) ? "It stays in pg_db_role_setting."
		   : e->kind == TK_PG_SYSTEM ? "It stays in postgresql.auto.conf."
					     : "SET GLOBAL lasts until the server restarts (my.cnf is never edited).",
		   rs, tune_needs_reload(e->kind) ? "; SELECT pg_reload_conf()" : "");
	text_sanitize(r->ask.what);
}

/* The question before a (applying the remedy of row i, or its usual
 * value): what it sets, where and how long it lasts, what a reload also
 * applies, the SQL, the risk, the scope and the revert. */
static void ask_apply(const struct model *m, const struct pane_view *v, int i, struct pane_reaction *r)
{
	const struct tune_view *tv = v->tune;
	const struct tunable *t = &tunables[i];
	const char *to = tunable_toggle(t, tv->current[i]);
	struct row_scope sc;
	char apply[400], rev[400], effect[300];
	scope_for(m, v, i, &sc);
	scope_effect(&sc, effect, sizeof effect);
	str_copy(r->ask.value, sizeof r->ask.value, to);
	memset(&r->ask.to, 0, sizeof r->ask.to);
	if (tune_kind_scoped(sc.kind)) {
		r->ask.to.kind = (int)sc.kind;
		str_copy(r->ask.to.name, sizeof r->ask.to.name, sc.target);
		r->ask.to.oid = sc.oid;
	}
	sql_pair(tv, i, &sc, to, apply, sizeof apply, rev, sizeof rev);
	/* what is true of every change: where, until reverted */
	const char *lasts =
		tune_kind_scoped(sc.kind)
			? "ALTER ROLE / DATABASE ... SET writes it to pg_db_role_setting: it survives a server "
			  "restart until dbtop reverts it."
		: t->kind == TK_PG_SYSTEM
			? "ALTER SYSTEM writes it to postgresql.auto.conf: it survives a server restart until "
			  "dbtop reverts it."
		: t->kind == TK_MY_GLOBAL ? "SET GLOBAL: lost at a server restart (my.cnf is not edited)."
					  : "performance_schema.setup_instruments: lost at a server restart.";
	char head[1200], tail[sizeof r->ask.what], warn[TUNE_PENDING_LEN + 16] = "", where[300], fcs[FC_TEXT_LEN + 120];
	struct forecast fc;
	forecast_make(m, t, to, &fc);
	if (tune_kind_scoped(sc.kind)) {
		const struct scope_pick *p = sc.kind == TK_PG_ROLE ? &sc.role : &sc.db;
		str_printf(where, sizeof where, "for %s %s (it holds %s) until dbtop reverts it: %s",
			   tune_scope_name(sc.kind), sc.who, p->figure, effect);
		str_printf(fcs, sizeof fcs, "none for one %s (its new sessions only take it)",
			   tune_scope_name(sc.kind));
	} else {
		str_copy(where, sizeof where, "server-wide until dbtop reverts it");
		str_copy(fcs, sizeof fcs, fc.text);
	}
	str_printf(head, sizeof head, "SET %s from %s to %s on %s %s. %s  Forecast: %s.  ", t->name, tv->current[i], to,
		   m->caps.version[0] ? flavour_name(m->caps.flavour) : "the server", where, lasts, fcs);
	str_printf(tail, sizeof tail,
		   "Runs: %s.  Risk: %s.  Scope: %s; %s.  Reverted on quit, u / U, Ctrl-C, a lost terminal, SIGTERM%s, "
		   "and at the next start after a crash, with: %s.",
		   apply, t->trade, tune_kind_scoped(sc.kind) ? "its new sessions (above)" : scope_of(t),
		   tune_kind_scoped(sc.kind) ? "a session's own SET wins" : t->scope, tv->ttl > 0 ? ", --tune-ttl" : "",
		   rev);
	if (t->kind == TK_PG_SYSTEM && !tune_kind_scoped(sc.kind) && tv->pending[0]) {
		/* what the reload also does, cut (not the revert at the end)
		 * when the whole would not fit */
		size_t room = sizeof r->ask.what - strlen(head) - strlen(tail);
		if (room > sizeof warn)
			room = sizeof warn;
		if (room > 40 && (size_t)snprintf(warn, room, "WARNING: %s.  ", tv->pending) >= room)
			str_copy(warn + room - 6, 6, "...  ");
	}
	str_printf(r->ask.what, sizeof r->ask.what, "%s%s%s", head, warn, tail);
	text_sanitize(r->ask.what);
}

/* s: the next scope the selected row's remedy may take (server, then the
 * role, then the database the evidence offers), said in the status. */
static void next_scope(const struct model *m, struct pane_view *v, int i, struct pane_reaction *r)
{
	const struct tunable *t = &tunables[i];
	struct row_scope sc;
	char effect[300];
	if (!t->narrow || m->caps.engine != ENGINE_POSTGRESQL) {
		str_printf(r->status, sizeof r->status, "%s: scope %s", t->name, scope_of(t));
		return;
	}
	scope_for(m, v, i, &sc);
	enum tune_kind order[3] = {TK_PG_SYSTEM, TK_PG_ROLE, TK_PG_DATABASE}, k = sc.kind;
	for (int step = 0; step < 3; step++) {
		int at = k == TK_PG_ROLE ? 1 : k == TK_PG_DATABASE ? 2 : 0;
		k = order[(at + 1) % 3];
		if (k == TK_PG_SYSTEM || (k == TK_PG_ROLE && sc.role.ok) || (k == TK_PG_DATABASE && sc.db.ok))
			break;
	}
	struct tuning_state *st = v->state;
	if (st)
		st->scope = (int)k;
	scope_for(m, v, i, &sc);
	scope_effect(&sc, effect, sizeof effect);
	if (k == TK_PG_SYSTEM && !sc.role.ok && !sc.db.ok)
		str_printf(r->status, sizeof r->status, "scope: server only now (%s)", sc.role.text);
	else
		str_printf(r->status, sizeof r->status, "scope: %s%s%s: %s", tune_scope_name(sc.kind),
			   sc.who[0] ? " " : "", sc.who, effect);
}

/* its commands (the arg of its table's rows) */
enum { TN_APPLY, TN_KEEP, TN_SCOPE };

static void tuning_key(const struct model *m, struct pane_view *v, int cmd, struct pane_reaction *r)
{
	const struct tune_view *tv = v->tune;
	int idx[TUNABLES_MAX], n = rows_of(m, idx);
	if (cmd == TN_SCOPE) {
		/* choosing changes nothing on the server: allowed everywhere */
		if (n > 0 && v->sel < n)
			next_scope(m, v, idx[v->sel], r);
		return;
	}
	if (v->read_only) {
		str_copy(r->status, sizeof r->status, "read-only session (--read-only): no setting is changed");
		return;
	}
	if (!tv || !tv->available) {
		str_copy(r->status, sizeof r->status, unavailable_why(tv, v));
		return;
	}
	if (n == 0 || v->sel >= n) {
		str_copy(r->status, sizeof r->status, "no setting selected");
		return;
	}
	int i = idx[v->sel];
	const struct tunable *t = &tunables[i];
	const struct jentry *e = change_of(tv, i);
	if (cmd == TN_KEEP) {
		ask_keep(r, t, e);
		return;
	}
	if (!e && tv->probed && !tv->allowed[i]) {
		str_printf(r->status, sizeof r->status, "not allowed: %s needs %s", t->name, t->priv);
		return;
	}
	if (!e && (!tv->probed || !tv->known[i])) {
		str_printf(r->status, sizeof r->status,
			   tv->probed ? "this server has no %s" : "the present value of %s is not known yet", t->name);
		return;
	}
	r->ask.act = PA_TUNE_APPLY;
	r->ask.id = i;
	memset(&r->ask.to, 0, sizeof r->ask.to); /* a's toggle of dbtop's change reverts it, wherever it went */
	if (e) {
		char rs[320];
		tuner_revert_sql(e, rs, sizeof rs);
		str_copy(r->ask.value, sizeof r->ask.value, e->was);
		char what[200];
		tuner_change_name(e, what, sizeof what);
		/* a reload (and what it also applies) only for ALTER SYSTEM */
		bool reload = tune_needs_reload(e->kind);
		str_printf(r->ask.what, sizeof r->ask.what, "REVERT dbtop's change of %s (%s, was %s): %s%s%s%s%s",
			   what, e->val, e->was, rs, reload ? "; SELECT pg_reload_conf()" : "",
			   reload && tv->pending[0] ? ".  WARNING: " : "", reload ? tv->pending : "",
			   reload && tv->pending[0] ? "." : "");
		text_sanitize(r->ask.what);
		return;
	}
	ask_apply(m, v, i, r);
}

static const struct pane_command tuning_commands[] = {
	{"apply", tuning_key, TN_APPLY},
	{"keep", tuning_key, TN_KEEP},
	{"scope", tuning_key, TN_SCOPE},
	{NULL, NULL, 0},
};

const struct pane_ops tuning_pane = {
	.name = "tuning",
	.title = "safe tuning",
	.draw = tuning_draw,
	.commands = tuning_commands,
	.init = tuning_init,
	.free = tuning_free,
	.min_h = 4,
	.need = tuning_need,
};
