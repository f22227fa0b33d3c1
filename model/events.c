/* events.c - the event log: one derivation from consecutive samples and
 * model states, a bounded ring, the text and the JSON of each event. */
#include "events.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/redact.h"
#include "../util/util.h"
#include "locks.h"
#include "model.h"

/* A server start time that moves by more than this is a restart, s
 * (uptime is read in whole seconds, the clocks of two reads differ). */
#define RESTART_SLACK_S 5.0
/* dbtop's own change covers the observed one seen within this, s */
#define OWN_WINDOW_S 120.0

static const char *const kind_names[EV__COUNT] = {
	[EV_FINDING] = "finding",
	[EV_FINDING_END] = "cleared",
	[EV_SETTING] = "setting",
	[EV_RESTART] = "restart",
	[EV_DOWN] = "down",
	[EV_UP] = "up",
	[EV_STALLED] = "stalled",
	[EV_LOCK_CHAIN] = "lock chain",
	[EV_LOCK_CHAIN_END] = "chain ended",
	[EV_INCIDENT] = "incident",
	[EV_SESSION_END] = "session end",
	[EV_CANCEL] = "cancelled",
	[EV_FORECAST] = "forecast",
};

const char *event_kind_name(enum event_kind k)
{
	return k > 0 && k < EV__COUNT ? kind_names[k] : "?";
}

void events_init(struct event_log *l)
{
	memset(l, 0, sizeof *l);
	l->ev = xcalloc(EVENTS_MAX, sizeof *l->ev);
	l->next_seq = 1;
	l->mark = 1;
}

void events_free(struct event_log *l)
{
	free(l->ev);
	l->ev = NULL;
	l->n = l->head = 0;
}

const struct event *events_at(const struct event_log *l, size_t i)
{
	return i < l->n ? &l->ev[(l->head + i) % EVENTS_MAX] : NULL;
}

size_t events_from_seq(const struct event_log *l, unsigned long seq)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {   /* seq rises with the index */
		size_t mid = (lo + hi) / 2;
		if (events_at(l, mid)->seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Append e (its seq set here); the oldest goes when the ring is full. */
static struct event *log_add(struct event_log *l, const struct event *e)
{
	struct event *d;
	if (l->n == EVENTS_MAX) {
		l->head = (l->head + 1) % EVENTS_MAX;
		l->n--;
	}
	d = &l->ev[(l->head + l->n) % EVENTS_MAX];
	*d = *e;
	d->seq = l->next_seq++;
	text_sanitize(d->detail);
	l->n++;
	return d;
}

/* A new event of kind at wall. */
static struct event ev_new(enum event_kind k, double wall, enum finding_severity sev)
{
	struct event e;
	memset(&e, 0, sizeof e);
	e.kind = k;
	e.wall = e.since = wall;
	e.severity = sev;
	return e;
}

void event_text(const struct event *e, char *buf, size_t len)
{
	switch (e->kind) {
	case EV_SETTING:
		if (e->own && e->scope) {
			char who[2 * sizeof e->user + 2];
			tune_target_text(e->user, who, sizeof who);
			str_printf(buf, len, "%s %s -> %s for %s %s, its new sessions (%s)", e->name,
				   e->old[0] ? e->old : "?", e->new, tune_scope_name((enum tune_kind)e->scope), who,
				   e->detail[0] ? "dbtop reverted its change" : "by dbtop");
		} else if (e->own)
			str_printf(buf, len, "%s %s -> %s (%s)", e->name, e->old[0] ? e->old : "?", e->new,
				   e->detail[0] ? "dbtop reverted its change" : "by dbtop");
		else
			str_printf(buf, len, "%s %s -> %s (%s; in the %.0fs before)", e->name, e->old[0] ? e->old : "?",
				   e->new, e->who_known ? "not by dbtop" : "by whom: not recorded", e->wall - e->since);
		return;
	case EV_FINDING:
	case EV_FINDING_END:
		if (e->kind == EV_FINDING)
			str_printf(buf, len, "%s %s: %s", finding_severity_name(e->severity), e->name, e->detail);
		else
			str_printf(buf, len, "%s: %s", e->name, e->detail);
		return;
	default:
		str_copy(buf, len, e->detail);
		return;
	}
}

/* ---- the derivation ---- */

static int set_find(const struct setting *set, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(set[i].name, name) == 0)
			return i;
	return -1;
}

/* A dbtop change of name to value logged shortly before wall? */
static bool own_covers(const struct event_log *l, const char *name, const char *value, double wall)
{
	for (size_t i = l->n; i-- > 0;) {
		const struct event *e = events_at(l, i);
		if (e->wall < wall - OWN_WINDOW_S)
			break;
		if (e->kind == EV_SETTING && e->own && !e->scope && strcmp(e->name, name) == 0)
			return strcmp(e->new, value) == 0;
	}
	return false;
}

static void derive_state(struct event_log *l, const struct sample *s, bool emit)
{
	if (l->primed && s->state == l->state)
		return;
	if (emit && (l->primed || s->state != STATE_UP)) {
		static const enum event_kind k[] = {[STATE_DOWN] = EV_DOWN, [STATE_UP] = EV_UP, [STATE_STALLED] = EV_STALLED};
		struct event e = ev_new(k[s->state], s->wall, s->state == STATE_UP ? SEV_INFO : SEV_CRIT);
		if (s->state == STATE_UP)
			str_printf(e.detail, sizeof e.detail, "UP again (was %s)", state_name(l->state));
		else
			str_printf(e.detail, sizeof e.detail, "%s: %s", s->state == STATE_DOWN ? "DOWN" : "STALLED",
				   s->error[0] ? s->error : "no reason given");
		log_add(l, &e);
	}
	l->state = s->state;
}

static void derive_restart(struct event_log *l, const struct sample *s, bool emit)
{
	if (s->state != STATE_UP || !(s->uptime_s > 0))
		return;
	double start = s->wall - s->uptime_s;
	if (emit && l->start_wall > 0 &&
	    (s->uptime_s + RESTART_SLACK_S < l->uptime_s || start > l->start_wall + RESTART_SLACK_S)) {
		struct event e = ev_new(EV_RESTART, s->wall, SEV_WARN);
		char up[32];
		str_printf(up, sizeof up, "%.0fs", s->uptime_s);
		str_printf(e.detail, sizeof e.detail, "server restarted: up %s (it had been up %.0fs)", up, l->uptime_s);
		log_add(l, &e);
	}
	l->start_wall = start;
	l->uptime_s = s->uptime_s;
}

static void derive_settings(struct event_log *l, const struct sample *s, bool emit)
{
	if (s->state == STATE_UP && s->settings_checked && !s->settings_fresh && l->nset > 0)
		l->chk_wall = s->wall;   /* the watched ones read alone: the same still */
	if (s->state != STATE_UP || !s->settings_fresh || s->nsettings <= 0)
		return;
	for (int i = 0; emit && l->nset > 0 && i < s->nsettings; i++) {
		const struct setting *n = &s->settings[i];
		int k = set_find(l->set, l->nset, n->name);
		if (k < 0 || strcmp(l->set[k].value, n->value) == 0)
			continue;
		if (own_covers(l, n->name, n->value, s->wall))
			continue;   /* dbtop's own change, logged when it was made */
		struct event e = ev_new(EV_SETTING, s->wall, SEV_WARN);
		/* the last reading that still saw the old value */
		e.since = setting_watched(n->name) && l->chk_wall > l->set_wall ? l->chk_wall : l->set_wall;
		e.who_known = l->live;
		str_copy(e.name, sizeof e.name, n->name);
		str_copy(e.old, sizeof e.old, l->set[k].value);
		str_copy(e.new, sizeof e.new, n->value);
		log_add(l, &e);
	}
	l->nset = s->nsettings;
	memcpy(l->set, s->settings, sizeof s->settings[0] * (size_t)s->nsettings);
	if (s->settings_checked) {
		l->chk_wall = s->wall;   /* a watched one changed: the rest were not read */
	} else {
		l->set_wall = s->wall;
		l->chk_wall = 0;
	}
}

static void derive_findings(struct event_log *l, const struct model *m, const struct sample *s, bool emit)
{
	const struct finding *f;
	size_t n;
	if (s->state != STATE_UP || !m)
		return;   /* no data: the findings stand as they were */
	f = m->findings.f;
	n = m->findings.n;
	for (size_t i = 0; emit && i < n; i++) {
		int k;
		for (k = 0; k < l->nfind && strcmp(l->find[k], f[i].id) != 0; k++)
			;
		if (k < l->nfind)
			continue;
		struct event e = ev_new(EV_FINDING, s->wall, f[i].severity);
		str_copy(e.name, sizeof e.name, f[i].id);
		str_copy(e.detail, sizeof e.detail, f[i].summary);
		log_add(l, &e);
	}
	for (int k = 0; emit && k < l->nfind; k++) {
		size_t i;
		for (i = 0; i < n && strcmp(l->find[k], f[i].id) != 0; i++)
			;
		if (i < n)
			continue;
		struct event e = ev_new(EV_FINDING_END, s->wall, SEV_INFO);
		str_copy(e.name, sizeof e.name, l->find[k]);
		str_printf(e.detail, sizeof e.detail, "no longer seen (was %s)", finding_severity_name(l->find_sev[k]));
		log_add(l, &e);
	}
	l->nfind = 0;
	for (size_t i = 0; i < n && i < FINDINGS_MAX; i++) {
		str_copy(l->find[l->nfind], sizeof l->find[0], f[i].id);
		l->find_sev[l->nfind++] = f[i].severity;
	}
}

/* The chain a root heads, as an event. */
static struct event chain_event(const struct lock_set *ls, int r, double wall)
{
	const struct lock_session *rs = &ls->s[r];
	/* a committing root holds its locks until its log flush ends: the
	 * waits behind it are a slow commit's, said by the commit finding */
	bool commit = lock_session_committing(rs);
	struct event e = ev_new(EV_LOCK_CHAIN, wall, commit ? SEV_INFO : rs->blocked > 1 ? SEV_CRIT : SEV_WARN);
	char st[64];
	e.committing = commit;
	e.session = rs->id;
	str_copy(e.user, sizeof e.user, rs->user);
	e.waiters = rs->blocked;
	lock_state_text(rs, st, sizeof st);
	char *q = statement_keep(rs->query, 60);
	str_printf(e.detail, sizeof e.detail, "root blocker %lld (%s, %s%s) blocks %d: %s", rs->id,
		   rs->user[0] ? rs->user : "?", st[0] ? st : "?", commit ? ", committing" : "", rs->blocked,
		   q && q[0] ? q : "(no statement)");
	free(q);
	return e;
}

/* Ended: an open chain whose root heads none now (logged when emit); the
 * waiters of one still open are the most seen. */
static void locks_ended(struct event_log *l, const struct event *now, int nnow, double wall, bool emit)
{
	for (int k = 0; k < l->nroots; k++) {
		int i;
		for (i = 0; i < nnow && now[i].session != l->root[k].session; i++)
			;
		if (i < nnow) {
			if (now[i].waiters > l->root[k].waiters)
				l->root[k].waiters = now[i].waiters;
			continue;
		}
		if (emit) {
			struct event e = ev_new(EV_LOCK_CHAIN_END, wall, SEV_INFO);
			e.session = l->root[k].session;
			str_copy(e.user, sizeof e.user, l->root[k].user);
			e.waiters = l->root[k].waiters;
			str_printf(e.detail, sizeof e.detail,
				   "lock chain of root blocker %lld (%s) ended after %.0fs, "
				   "%d waited at the most",
				   e.session, e.user[0] ? e.user : "?", wall - l->root[k].wall, e.waiters);
			log_add(l, &e);
		}
		l->root[k--] = l->root[--l->nroots];
	}
}

static void derive_locks(struct event_log *l, const struct sample *s, bool emit)
{
	const struct lock_set *ls = s->locks;
	struct event now[EVENT_ROOTS_MAX];
	double wait[EVENT_ROOTS_MAX], trx[EVENT_ROOTS_MAX];
	int nnow = 0;
	if (s->state != STATE_UP || !ls || (ls->status != LOCKS_IDLE && ls->status != LOCKS_READ) || ls->age_s > 0)
		return; /* not read this time (or an earlier read shown again, paced
			   * by the server budget): the chains stand as they were */
	if (ls->status == LOCKS_READ)
		for (size_t i = 0; i < ls->ns && nnow < EVENT_ROOTS_MAX; i++)
			if (ls->s[i].is_root && ls->s[i].blocked > 0) {
				wait[nnow] = lock_chain_wait(ls, (int)i);
				trx[nnow] = ls->s[i].trx_age_s;
				now[nnow++] = chain_event(ls, (int)i, s->wall);
			}
	locks_ended(l, now, nnow, s->wall, emit);
	/* appeared: a root that headed a chain in every lock read since it was
	 * first seen (in the same transaction), logged once the chain lasted
	 * hold_rules' lock-chain last_s (since that first read, or its longest
	 * wait says so), timed at that first read. Normal row contention (a
	 * commit queued behind another for a moment, 16 pgbench clients on 5
	 * rows) is no chain; a root seen committing in any of those reads holds
	 * its locks for its log flush: info, the commit finding says why. */
	const double need = hold_rule_for("lock-chain")->last_s;
	struct event cand[EVENT_ROOTS_MAX];
	int ncand = 0;
	for (int i = 0; i < nnow; i++) {
		int k, c;
		for (k = 0; k < l->nroots && l->root[k].session != now[i].session; k++)
			;
		if (k < l->nroots)
			continue;
		for (c = 0; c < l->ncand && l->cand[c].session != now[i].session; c++)
			;
		struct event e = now[i];
		/* the same root in a transaction younger than the candidate: another chain */
		if (c < l->ncand && !(trx[i] < s->wall - l->cand[c].wall)) {
			e = l->cand[c];
			e.committing |= now[i].committing;
			if (now[i].waiters > e.waiters) {
				e.waiters = now[i].waiters;
				str_copy(e.detail, sizeof e.detail, now[i].detail);
			}
		}
		double lasted = s->wall - e.wall;
		if (wait[i] > lasted)
			lasted = wait[i];
		if (!(lasted >= need) || l->nroots >= EVENT_ROOTS_MAX) {
			cand[ncand++] = e;
			continue;
		}
		e.severity = e.committing ? SEV_INFO : e.waiters > 1 ? SEV_CRIT : SEV_WARN;
		l->root[l->nroots++] = e;
		if (emit)
			log_add(l, &e);
	}
	l->ncand = ncand;
	/* cppcheck-suppress uninitvar ; only the ncand entries written above are copied */
	memcpy(l->cand, cand, sizeof cand[0] * (size_t)ncand);
}

/* The outcome of a remedy decided in this interval: logged once. */
static void derive_forecast(struct event_log *l, const struct model *m, bool emit)
{
	const struct fc_outcome *o = m ? &m->outcome : NULL;
	if (!emit || !o || !o->decided || o->decided != m->intervals)
		return;
	struct event e = ev_new(EV_FORECAST, m->last.wall, o->state == FCO_MET ? SEV_INFO : SEV_WARN);
	str_copy(e.name, sizeof e.name, o->name);
	str_copy(e.old, sizeof e.old, o->from);
	str_copy(e.new, sizeof e.new, o->to);
	str_printf(e.detail, sizeof e.detail, "%s %s -> %s: %s", o->name, o->from, o->to, o->text);
	text_sanitize(e.detail);
	log_add(l, &e);
}

size_t events_update(struct event_log *l, const struct model *m, const struct sample *s)
{
	unsigned long before = l->next_seq;
	bool emit = s->events == NULL;   /* a recorded list: those, not a derivation */
	if (!emit)
		for (size_t i = 0; i < s->events->n; i++)
			log_add(l, &s->events->ev[i]);
	derive_state(l, s, emit);
	derive_restart(l, s, emit);
	derive_settings(l, s, emit);
	derive_findings(l, m, s, emit);
	derive_locks(l, s, emit);
	derive_forecast(l, m, emit);
	l->primed = true;
	return l->next_seq - before;
}

void events_own(struct event_log *l, double wall, const char *name, const char *old, const char *new, bool revert)
{
	events_own_in(l, wall, name, old, new, revert, 0, NULL);
}

void events_own_in(struct event_log *l, double wall, const char *name, const char *old, const char *new, bool revert,
		   int scope, const char *target)
{
	struct event e = ev_new(EV_SETTING, wall, SEV_WARN);
	e.own = e.who_known = true;
	str_copy(e.name, sizeof e.name, name);
	str_copy(e.old, sizeof e.old, old);
	str_copy(e.new, sizeof e.new, new);
	if (tune_kind_scoped((enum tune_kind)scope) && target) {
		e.scope = scope;
		str_copy(e.user, sizeof e.user, target);
	}
	if (revert)
		str_copy(e.detail, sizeof e.detail, "reverted");
	log_add(l, &e);
}

void events_session_act(struct event_log *l, double wall, bool term, long long id, const char *done)
{
	struct event e = ev_new(term ? EV_SESSION_END : EV_CANCEL, wall, SEV_WARN);
	e.own = e.who_known = true;
	e.session = id;
	str_printf(e.detail, sizeof e.detail, "session %lld %s by dbtop: %s", id,
		   term ? "ended" : "had its statement cancelled", done);
	text_sanitize(e.detail);
	log_add(l, &e);
}

void event_list_add(struct event_list *el, const struct event *e)
{
	el->ev = xrealloc(el->ev, (el->n + 1) * sizeof *el->ev);
	el->ev[el->n++] = *e;
}

struct event_list *events_take_interval(struct event_log *l, unsigned long *first)
{
	struct event_list *el = xcalloc(1, sizeof *el);
	if (first)
		*first = l->mark;
	for (size_t i = events_from_seq(l, l->mark); i < l->n; i++)
		event_list_add(el, events_at(l, i));
	l->mark = l->next_seq;
	return el;
}

void event_list_free(struct event_list *el)
{
	if (!el)
		return;
	free(el->ev);
	free(el);
}

void events_between(const struct event_log *l, double after, double upto, unsigned long *from, unsigned long *to)
{
	*from = 1;
	*to = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct event *e = events_at(l, i);
		if (e->wall <= after || e->wall > upto)
			continue;
		if (*from > *to)
			*from = e->seq;
		*to = e->seq;
	}
}

/* A setting's change: ,"KEY":name,"old":..,"new":.. */
static void json_change(struct strbuf *out, const char *key, const struct event *e)
{
	sb_printf(out, ",\"%s\":", key);
	json_str(out, e->name);
	sb_puts(out, ",\"old\":");
	json_str(out, e->old);
	sb_puts(out, ",\"new\":");
	json_str(out, e->new);
}

void events_json(const struct event_log *l, unsigned long from, unsigned long to, struct strbuf *out)
{
	sb_puts(out, ",\"events\":[");
	for (size_t i = events_from_seq(l, from); i < l->n && events_at(l, i)->seq <= to; i++) {
		const struct event *e = events_at(l, i);
		char t[400];
		if (i > events_from_seq(l, from))
			sb_putc(out, ',');
		sb_printf(out, "{\"ts\":%.3f,\"kind\":", e->wall);
		json_str(out, event_kind_name(e->kind));
		sb_puts(out, ",\"severity\":");
		json_str(out, finding_severity_name(e->severity));
		switch (e->kind) {
		case EV_FINDING:
		case EV_FINDING_END:
			sb_puts(out, ",\"id\":");
			json_str(out, e->name);
			break;
		case EV_SETTING:
			json_change(out, "name", e);
			sb_printf(out, ",\"by\":\"%s\",\"since\":%.3f",
				  e->own ? "dbtop" : e->who_known ? "other" : "unknown", e->since);
			if (e->scope) {
				/* dbtop's change for one role or database */
				sb_printf(out, ",\"scope\":\"%s\",\"scope_name\":",
					  tune_scope_name((enum tune_kind)e->scope));
				json_str(out, e->user);
			}
			break;
		case EV_INCIDENT:
			sb_puts(out, ",\"trigger\":");
			json_str(out, e->name);
			break;
		case EV_FORECAST:
			json_change(out, "setting", e);
			sb_printf(out, ",\"outcome\":\"%s\"",
				  strstr(e->detail, ": forecast met:")      ? "met"
				  : strstr(e->detail, ": forecast missed:") ? "missed"
									    : "not judged");
			break;
		case EV_SESSION_END:
		case EV_CANCEL:
			sb_printf(out, ",\"session\":%lld,\"by\":\"dbtop\"", e->session);
			break;
		case EV_LOCK_CHAIN:
		case EV_LOCK_CHAIN_END:
			sb_printf(out, ",\"root\":%lld,\"user\":", e->session);
			json_str(out, e->user);
			sb_printf(out, ",\"waiters\":%d", e->waiters);
			break;
		default:
			break;
		}
		event_text(e, t, sizeof t);
		sb_puts(out, ",\"detail\":");
		json_str(out, t);
		sb_putc(out, '}');
	}
	sb_putc(out, ']');
}
