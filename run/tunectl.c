/* tunectl.c - one target's tuning policy: the view, own events, expiry,
 * probes, and what the questions and the exit message say. */
#include "tunectl.h"

#include <poll.h>
#include <string.h>
#include <time.h>

#include "../core/tunables.h"

/* dbtop's own setting changes into the event log: a change that came into
 * force (this dbtop's, not an orphan's), and one that left it (reverted;
 * superseded ones are someone else's value, seen as such). */
static void own_events(struct tune_ctl *c, struct event_log *ev)
{
	const struct tune_view *tv = &c->tv;
	double now = clock_wall();
	for (int i = 0; i < tv->nactive; i++) {
		const struct jentry *e = &tv->active[i];
		int k;
		for (k = 0; k < c->nown && c->own_seen[k] != e->seq; k++)
			;
		if (k < c->nown || c->nown >= JOURNAL_MAX)
			continue;
		c->own_seen[c->nown] = e->seq;
		c->own_was[c->nown++] = *e;
		if (e->seq >= tv->first_seq)
			events_own_in(ev, e->wall > 0 ? e->wall : now, e->name, e->was, e->val, false, (int)e->kind,
				      e->target);
	}
	for (int k = 0; k < c->nown; k++) {
		int i;
		for (i = 0; i < tv->nactive && tv->active[i].seq != c->own_seen[k]; i++)
			;
		if (i < tv->nactive)
			continue;
		const struct jentry *e = &c->own_was[k];
		bool superseded = false;
		for (int j = 0; j < tv->nsuperseded; j++)
			superseded |= tv->superseded[j].seq == e->seq;
		if (!superseded)
			events_own_in(ev, now, e->name, e->val, e->was, true, (int)e->kind, e->target);
		c->own_seen[k] = c->own_seen[c->nown - 1];
		c->own_was[k] = c->own_was[c->nown - 1];
		c->nown--;
		k--;
	}
}

bool tunectl_poll(struct tune_ctl *c, struct sampler *sp, struct event_log *ev, double now)
{
	bool changed = false;
	const struct tune_view *tv = &c->tv;
	if (sampler_tune_view(sp, &c->tv_gen, &c->tv)) {
		changed = true;
		own_events(c, ev);
	}
	if (tv->ttl > 0 && tv->nactive > 0 && now >= c->next_expire) {
		c->next_expire = now + 1;
		for (int i = 0; i < tv->nactive; i++)
			if (tv->active[i].seq >= tv->first_seq && tv->active[i].mono > 0 &&
			    tv->active[i].mono + tv->ttl <= now) {
				sampler_send(sp, &(struct target_cmd){.kind = CMD_TUNE_EXPIRE});
				break;
			}
	}
	return changed;
}

void tunectl_probe(struct tune_ctl *c, struct sampler *sp, bool wanted, double now)
{
	/* generation 1 is the view before any probe: the sampler probes each
	 * new connection itself, so one asked for before it would read the
	 * same values again; and each newer view is a fresh reading (a probe,
	 * or a change read back), whoever copied it here */
	if (c->tv_gen != c->probe_gen) {
		c->probe_gen = c->tv_gen;
		c->next_probe = now + 5;
	}
	if (wanted && c->tv_gen >= 2 && now >= c->next_probe) {
		sampler_send(sp, &(struct target_cmd){.kind = CMD_PROBE});
		c->next_probe = now + 5;
	}
}

/* One orphaned change: when, what it was, what it is now, its revert. */
static void orphan_line(const struct tune_view *tv, const struct jentry *e, const struct model *m, char *line,
			size_t len)
{
	char rs[320], when[32], what[200];
	time_t t = (time_t)e->wall;
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
	tuner_revert_sql(e, rs, sizeof rs);
	const struct tunable *tt = tunable_find(e->name, m->caps.flavour, tune_kind_base(e->kind));
	int ti = tt ? (int)(tt - tunables) : -1;
	tuner_change_name(e, what, sizeof what);
	/* a role's or a database's own value is not what the server's probe reads */
	str_printf(line, len, "  [%u] %s set to %s at %s (was %s, now %s): revert with %s%s;", e->seq, what, e->val,
		   when, e->was,
		   tune_kind_scoped(e->kind)                ? "?"
		   : ti >= 0 && tv->probed && tv->known[ti] ? tv->current[ti]
							    : "?",
		   rs, tune_needs_reload(e->kind) ? "; SELECT pg_reload_conf()" : "");
}

void tunectl_orphans_text(const struct tune_ctl *c, const struct model *m, struct strbuf *b)
{
	const struct tune_view *tv = &c->tv;
	char line[400];
	str_printf(line, sizeof line,
		   "A dbtop that ended without reverting left %d change(s) on this server "
		   "(undo journal %s):",
		   tv->orphans, tv->path);
	sb_puts(b, line);
	for (int i = 0; i < tv->nactive; i++) {
		if (tv->active[i].seq >= tv->first_seq)
			continue;
		orphan_line(tv, &tv->active[i], m, line, sizeof line);
		sb_puts(b, line);
	}
	for (int i = 0; i < tv->nforeign; i++) {
		const struct jentry *e = &tv->foreign[i];
		str_printf(line, sizeof line, "  not this server's, left alone: %s set to %s (was %s) on %s;", e->name,
			   e->val, e->was, e->slabel);
		sb_puts(b, line);
	}
	sb_puts(b, "  y reverts them now (newest first); any other key leaves them (quitting reverts them)");
}

void tunectl_left_text(const struct tune_ctl *c, int n, bool read_only, char *out, size_t len)
{
	const struct tune_view *tv = &c->tv;
	str_printf(out, len, "%d setting change(s) are still in force (undo journal %s): %s", n, tv->path,
		   tv->elsewhere      ? "the dbtop that made them is still running and reverts them when it quits"
		   : read_only        ? "run dbtop without --read-only against this server to revert them"
		   : tv->other_server ? tv->why
				      : "run dbtop against this server to revert them");
}

/* The changes found overwritten by someone else, for the exit message:
 * setting, the value now, dbtop's, and the one before dbtop. */
static void superseded_text(const struct tune_view *tv, int from, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = from; i < tv->nsuperseded; i++) {
		const struct jentry *e = &tv->superseded[i];
		size_t l = strlen(buf);
		char what[200];
		tuner_change_name(e, what, sizeof what);
		str_printf(buf + l, len - l, "%s%s is %s now (someone set it while dbtop held %s; before dbtop: %s)",
			   i > from ? "; " : "", what, e->now, e->val, e->was);
	}
}

void tunectl_exit_text(const struct tune_ctl *c, int n, int sup0, int rc, const char *msg, char *out, size_t len)
{
	const struct tune_view *tv = &c->tv;
	char sup[400];
	superseded_text(tv, sup0 < tv->nsuperseded ? sup0 : tv->nsuperseded, sup, sizeof sup);
	int left = tv->nsuperseded - sup0;
	if (rc >= 0 && tv->nactive == 0 && left > 0)
		str_printf(
			out, len,
			"reverted %d setting change(s); %d NOT reverted, changed by someone else since dbtop set them "
			"(left as they are): %s",
			n - left, left, sup);
	else if (rc >= 0 && tv->nactive == 0)
		str_printf(out, len, "reverted %d setting change(s): %s", n, msg);
	else
		str_printf(
			out, len,
			"%d setting change(s) could NOT be reverted (%s): they stay in the undo journal %s; run dbtop "
			"against this server again to revert them%s%s",
			tv->nactive ? tv->nactive : n, msg[0] ? msg : "the server did not answer in time", tv->path,
			sup[0] ? ". Left as someone else set them: " : "", sup);
}

/* One wait of the exit: msg shown, 100 ms on the sampler, its samples
 * taken. */
static void exit_wait(struct sampler *sp, const struct tunectl_waiter *w, const char *msg)
{
	w->show(w->arg, msg);
	struct pollfd pf = {.fd = sp->wake[0], .events = POLLIN};
	poll(&pf, 1, 100);
	w->take(w->arg);
}

/* An apply (or another action) still running at exit: its outcome first,
 * until end. True when it is still running. */
static bool exit_await_action(struct tune_ctl *c, struct sampler *sp, const struct tunectl_waiter *w, double end)
{
	bool inflight = sampler_busy(sp);
	while (inflight && clock_mono() < end) {
		struct target_result r;
		if (sampler_take(sp, CMD_ACTIONS, &r) || !sampler_busy(sp))
			break;
		exit_wait(sp, w, "waiting for the change being applied before quitting ...");
	}
	sampler_tune_view(sp, &c->tv_gen, &c->tv);
	return inflight && sampler_busy(sp);
}

void tunectl_revert_at_exit(struct tune_ctl *c, struct sampler *sp, double query_timeout, bool read_only,
			    const struct tunectl_waiter *w, char *out, size_t len)
{
	int rc = -1;
	char msg[NOTE_LEN] = "", wait[96];
	double limit = 3 * query_timeout + 2;
	if (limit < 5)
		limit = 5;
	if (exit_await_action(c, sp, w, clock_mono() + limit)) {
		str_printf(
			out, len,
			"a setting change was still being applied when dbtop quit (no answer in %.0f s): it may be in "
			"force; it is in the undo journal %s: run dbtop against this server again to revert it",
			limit, c->tv.path);
		return;
	}
	int n = c->tv.nactive, sup0 = c->tv.nsuperseded;
	if (n == 0)
		return;
	if (read_only || !c->tv.available) {
		tunectl_left_text(c, n, read_only, out, len);
		return;
	}
	bool sent = false;
	struct target_result r;
	double end = clock_mono() + limit;
	str_printf(wait, sizeof wait, "reverting %d setting change(s) before quitting ...", n);
	while (clock_mono() < end) {
		if (!sent)
			sent = sampler_send(sp, &(struct target_cmd){.kind = CMD_TUNE_UNDO_ALL});
		if (sent && sampler_take(sp, CMD_ACTIONS, &r)) {
			rc = r.rc;
			str_copy(msg, sizeof msg, r.msg);
			break;
		}
		exit_wait(sp, w, wait);
	}
	sampler_tune_view(sp, &c->tv_gen, &c->tv);
	tunectl_exit_text(c, n, sup0, rc, msg, out, len);
}
