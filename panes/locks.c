/* locks.c - the lock-wait pane: a tree of who blocks whom. Each root
 * blocker on top with its state, transaction age and statement; beneath it
 * every waiter, indented, each line saying which lock it asked for and
 * which lock of its blocker stands in the way. k / c ask the screen to end
 * the selected chain's root session or cancel its statement. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "pane.h"

/* Rows shown (after the filter) of the newest snapshot; caller frees. */
static size_t shown_rows(const struct lock_set *ls, const struct pane_view *v, struct lock_row **out)
{
	struct lock_row *rows;
	size_t n = lock_tree_rows(ls, &rows), k = 0;
	if (v->filter) {
		/* a row stays when it or its chain's root matches */
		for (size_t i = 0; i < n; i++) {
			const struct lock_session *s = &ls->s[rows[i].session];
			const struct lock_edge *e = rows[i].edge >= 0 ? &ls->e[rows[i].edge] : NULL;
			const struct lock_session *r = s->root >= 0 ? &ls->s[s->root] : s;
			char buf[2048];
			str_printf(buf, sizeof buf, "%lld %s %s %s %s | %lld %s %s", s->id, s->user,
				   s->query ? s->query : "", e ? e->object : "", e ? e->lock_type : "", r->id, r->user,
				   r->query ? r->query : "");
			if (pane_filter_match(v, buf))
				rows[k++] = rows[i];
		}
		n = k;
	}
	*out = rows;
	return n;
}

static void fmt_secs(double s, char *out, size_t len)
{
	if (!isfinite(s))
		str_copy(out, len, "?");
	else if (s < 10)
		str_printf(out, len, "%.1fs", s);
	else if (s < 3600)
		str_printf(out, len, "%.0fs", s);
	else
		str_printf(out, len, "%.0fm", s / 60);
}

/* The line of a root blocker. */
static void root_line(const struct lock_set *ls, const struct lock_session *s, char *out, size_t len, bool utf8)
{
	char st[96], age[24];
	lock_state_text(s, st, sizeof st);
	fmt_secs(s->trx_age_s, age, sizeof age);
	str_printf(out, len, "%s%s %lld %s  %s  trx %s  blocks %d%s  %s%s", utf8 ? "\u25b6" : ">",
		   s->in_cycle ? (utf8 ? "\u27f3" : "@") : "", s->id, s->user[0] ? s->user : "?", st,
		   isfinite(s->trx_age_s) ? age : "-", s->blocked, s->in_cycle ? "  DEADLOCK (cycle)" : "",
		   s->query_is_last ? "last: " : "",
		   s->query ? s->query : (s->query_is_last || strstr(s->state, "idle") || strstr(s->state, "Sleep")
					      ? "(idle; last statement not available)"
					      : "(no statement)"));
	(void)ls;
}

/* The line of a waiter reached through edge e. */
static void waiter_line(const struct lock_session *s, const struct lock_edge *e, bool repeat, char *out, size_t len,
			bool utf8)
{
	char w[24];
	fmt_secs(s->wait_s, w, sizeof w);
	str_printf(out, len, "%s %lld %s  waiting %s  requested %s %s held %s%s  on %s%s%s%s%s%s  %s",
		   utf8 ? "\u2514" : "`-", s->id, s->user[0] ? s->user : "?", w,
		   e->requested[0] ? e->requested : "?", utf8 ? "\u27f5" : "<-", e->held[0] ? e->held : "?",
		   e->soft ? " (queued ahead)" : "", e->object[0] ? e->object : "?",
		   e->lock_type[0] ? "  (" : "", e->lock_type, e->lock_data[0] ? " " : "", e->lock_data,
		   e->lock_type[0] ? ")" : "",
		   repeat ? (e->cycle ? "[cycle: shown above]" : "[shown above]") : (s->query ? s->query : ""));
}

static void draw_details(const struct lock_set *ls, const struct lock_row *r, struct canvas *cv)
{
	const struct lock_session *s = &ls->s[r->session];
	char st[96], a[24];
	int y = 0;
	lock_state_text(s, st, sizeof st);
	fmt_secs(s->trx_age_s, a, sizeof a);
	cv_printf(cv, y++, 0, R_TITLE, "session %lld  user %s  %s  transaction %s%s", s->id, s->user[0] ? s->user : "?", st,
		  isfinite(s->trx_age_s) ? a : "-", s->in_cycle ? "  on a wait cycle (deadlock)" : "");
	if (s->is_root)
		cv_printf(cv, y++, 0, R_BLOCKER, "root blocker: %d session%s wait on it, directly or not", s->blocked,
			  s->blocked == 1 ? "" : "s");
	for (size_t k = 0; k < ls->ne && y < cv->h - 3; k++) {
		const struct lock_edge *e = &ls->e[k];
		if (e->waiter != r->session && e->blocker != r->session)
			continue;
		bool w = e->waiter == r->session;
		cv_printf(cv, y++, 0, w ? R_WAITER : R_BLOCKER, "%s %lld: requested %s, held %s%s on %s %s %s%s", w ? "waits for" : "blocks",
			  w ? ls->s[e->blocker].id : ls->s[e->waiter].id, e->requested, e->held,
			  e->soft ? " (queued ahead)" : "", e->object, e->lock_type, e->lock_data,
			  e->cycle ? "  [cycle]" : "");
	}
	if (y < cv->h) {
		cv_text(cv, y++, 0, R_LABEL, s->query_is_last ? "last statement:" : "statement:");
		cv_wrap(cv, y, 2, R_NORMAL, s->query ? s->query : "(not available)", cv->h);
	}
}

static void locks_draw(const struct model *m, struct pane_view *v, struct canvas *cv)
{
	const struct lock_set *ls = m->locks;
	bool pg = m->caps.engine == ENGINE_POSTGRESQL;
	int y = 0;
	char line[2048];

	v->nrows = 0;
	if (m->last.state != STATE_UP) {
		cv_text(cv, 0, 0, R_UNKNOWN, "no lock data while the server is not answering");
		return;
	}
	if (!ls) {
		cv_text(cv, 0, 0, R_UNKNOWN, m->intervals ? "no lock data in this sample (recordings made before dbtop read lock waits have none)" : "no sample yet");
		if (!pg && !m->caps.priv_process && cv->h > 1)
			cv_text(cv, 1, 0, R_NOTE, "fix: GRANT PROCESS ON *.* TO the monitoring user (lock tables need it)");
		return;
	}
	/* status line */
	switch (ls->status) {
	case LOCKS_IDLE:
		str_printf(line, sizeof line, "no session waits for a lock (lock tables not queried)");
		break;
	case LOCKS_READ:
		str_printf(line, sizeof line, "%u waiting  %d root blocker%s%s  lock query %.1f ms", ls->waiting, ls->nroots,
			   ls->nroots == 1 ? "" : "s", ls->ncycles ? "  DEADLOCK in progress" : "", ls->query_ms);
		break;
	case LOCKS_TIMED_OUT:
		str_printf(line, sizeof line, "%u waiting, but the lock query exceeded its time limit: %s", ls->waiting,
			   ls->note[0] ? ls->note : "nothing to show this interval");
		break;
	case LOCKS_UNAVAILABLE:
		str_printf(line, sizeof line, "lock waits unavailable: %s", ls->note);
		break;
	}
	cv_text(cv, y++, 0,
		ls->status == LOCKS_READ && ls->ncycles ? R_CRIT
		: ls->status == LOCKS_READ || ls->status == LOCKS_TIMED_OUT ? R_WARN
		: ls->status == LOCKS_UNAVAILABLE ? R_NOTE : R_LABEL,
		line);
	if (ls->status == LOCKS_READ && ls->note[0] && y < cv->h)
		cv_text(cv, y++, 0, R_NOTE, ls->note);
	/* history: waiting sessions and wait time per second */
	if (y < cv->h && cv->w >= 40) {
		int sw = (cv->w - 40) / 2;
		if (sw > 60)
			sw = 60;
		if (sw >= 8) {
			int x = cv_text(cv, y, 0, R_LABEL, "waiting ");
			cv_spark(cv, y, x, sw, &m->lock_waiting, 0, R_SPARK);
			x += sw + 1;
			x += cv_text(cv, y, x, R_LABEL, pg ? "  lock wait ms/s " : "  row-lock wait ms/s ");
			cv_spark(cv, y, x, sw, &m->lock_wait_ms, 0, R_SPARK);
			y++;
		}
	}
	if (ls->status != LOCKS_READ || y >= cv->h)
		return;
	struct lock_row *rows;
	size_t n = shown_rows(ls, v, &rows);
	v->nrows = (int)n;
	if (n == 0) {
		cv_text(cv, y, 0, R_UNKNOWN, v->filter ? "no session matches the filter" : "no wait edge found");
		free(rows);
		return;
	}
	if (v->details) {
		pane_clamp(v, (int)n, 1);
		struct canvas sub = cv_sub(cv, y, 0, cv->h - y, cv->w);
		draw_details(ls, &rows[v->sel], &sub);
		free(rows);
		return;
	}
	pane_clamp(v, (int)n, cv->h - y);
	for (size_t i = (size_t)v->top; i < n && y < cv->h; i++, y++) {
		const struct lock_row *r = &rows[i];
		const struct lock_session *s = &ls->s[r->session];
		bool sel = v->focused && (int)i == v->sel;
		int indent = r->depth * 2 > cv->w / 3 ? cv->w / 3 : r->depth * 2;
		if (r->edge < 0)
			root_line(ls, s, line, sizeof line, cv->utf8);
		else
			waiter_line(s, &ls->e[r->edge], r->repeat, line, sizeof line, cv->utf8);
		if (sel)
			cv_fill(cv, y, 0, cv->w, R_SELECTED);
		cv_text(cv, y, indent,
			sel ? R_SELECTED
			: r->edge < 0 ? (s->in_cycle ? R_CRIT : R_BLOCKER)
			: (r->edge >= 0 && ls->e[r->edge].cycle) ? R_CRIT : R_WAITER,
			line);
	}
	free(rows);
}

/* The session k / c act on: the selected row's chain root. */
static const struct lock_session *target(const struct lock_set *ls, const struct pane_view *v)
{
	struct lock_row *rows;
	size_t n = shown_rows(ls, v, &rows);
	const struct lock_session *t = NULL;
	if (v->sel >= 0 && (size_t)v->sel < n) {
		const struct lock_session *s = &ls->s[rows[v->sel].session];
		t = s->root >= 0 ? &ls->s[s->root] : s;
	}
	free(rows);
	return t;
}

static bool locks_key(const struct model *m, struct pane_view *v, int key)
{
	const struct lock_set *ls = m->locks;
	bool pg = m->caps.engine == ENGINE_POSTGRESQL;
	if (key != 'k' && key != 'c')
		return false;
	if (v->read_only) {
		str_copy(v->status, sizeof v->status, "read-only session (--read-only): no kill or cancel");
		return true;
	}
	const struct lock_session *t = ls && ls->status == LOCKS_READ ? target(ls, v) : NULL;
	if (!t) {
		str_copy(v->status, sizeof v->status, "no blocker selected");
		return true;
	}
	bool term = key == 'k';
	if (!v->replay && (!t->ident.known || t->id <= 0)) {
		/* another role's backend read without pg_read_all_stats, a lock
		 * query without the identity columns, or a blocker without a
		 * session (a prepared transaction) */
		str_printf(v->status, sizeof v->status,
			   "session %lld is not identified in this sample (%s): nothing can be checked, so nothing "
			   "is done",
			   t->id, pg ? "its start: another role's needs pg_read_all_stats" : "its transaction");
		return true;
	}
	char st[96], q[160], who[200], sql[64];
	lock_state_text(t, st, sizeof st);
	str_printf(q, sizeof q, "%s", t->query ? t->query : "(statement not available)");
	session_ident_text(&t->ident, !term, who, sizeof who);
	v->ask.act = term ? PA_TERMINATE : PA_CANCEL;
	v->ask.id = t->id;
	v->ask.who = t->ident;
	bool maria = !pg && m->caps.flavour == FLAVOUR_MARIADB;
	if (pg)
		str_printf(sql, sizeof sql, "%s(%lld)", term ? "pg_terminate_backend" : "pg_cancel_backend", t->id);
	else if (maria && !term && t->ident.query_id > 0)
		str_printf(sql, sizeof sql, "KILL QUERY ID %lld", t->ident.query_id);
	else
		str_printf(sql, sizeof sql, "%s%lld", term ? "KILL " : "KILL QUERY ", t->id);
	/* (a recording made before identities were kept has none to name; its
	 * replay cannot act anyway) */
	char chk[320] = "";
	if (t->ident.known)
		str_printf(chk, sizeof chk, " Checked %s: session %lld is still the one shown (%s); if not, nothing is done.",
			   pg || maria ? "in the same statement" : "just before", t->id, who);
	str_printf(v->ask.what, sizeof v->ask.what, "%s session %lld (user %s, %s, blocking %d) with %s? %s%s%s Statement: %s",
		   term ? "END" : "CANCEL the statement of", t->id, t->user[0] ? t->user : "?", st, t->blocked, sql,
		   term ? "Its open transaction is rolled back." : "Its transaction stays open.",
		   !pg && !m->caps.priv_super ? "  [needs SUPER or CONNECTION_ADMIN for other users' sessions]"
		   : pg && !m->caps.superuser ? "  [needs superuser, pg_signal_backend or the same role]"
					      : "",
		   chk, q);
	return true;
}

static const struct key_help locks_keys[] = {
	{'k', "k", "end the selected chain's root blocker (KILL / pg_terminate_backend), after a confirmation; "
		   "only while the server shows the same session (start, transaction)"},
	{'c', "c", "cancel the root blocker's statement (KILL QUERY / pg_cancel_backend), after a confirmation; "
		   "only while the same session runs the same statement"},
	{'/', "/", "filter by regex over session id, user, statement and lock object"},
	{'\n', "Enter", "details: every lock the session waits for or holds, its full statement"},
	{0, NULL, NULL},
};

const struct pane_ops locks_pane = {
	.name = "locks",
	.title = "lock waits",
	.draw = locks_draw,
	.key = locks_key,
	.keys = locks_keys,
	.min_h = 4,
};
