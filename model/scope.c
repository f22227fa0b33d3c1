/* scope.c - whose commits wait on the WAL flush (scope.h). */
#include "scope.h"

#include <string.h>

#include "../core/tunables.h"
#include "../util/util.h"

bool scope_flush_wait(const char *wait)
{
	static const char *const names[] = {"IO:WALSync", "IO:WALWrite", "LWLock:WALWrite",
					    "LWLock:WALWriteLock" /* PostgreSQL 12 and older */};
	for (size_t i = 0; wait && i < sizeof names / sizeof names[0]; i++)
		if (strcmp(wait, names[i]) == 0)
			return true;
	return false;
}

/* The same role / database? By oid when both know it (two names may look
 * alike once made safe), else by name. */
static bool same(const struct scope_count *c, const char *name, unsigned oid)
{
	return c->oid && oid ? c->oid == oid : strcmp(c->name, name) == 0;
}

/* Add k to name's count in c[0..*n) (a new name while there are fewer
 * than max). */
static void bump(struct scope_count *c, int *n, int max, const char *name, unsigned oid, unsigned k)
{
	for (int i = 0; i < *n; i++)
		if (same(&c[i], name, oid)) {
			c[i].n += k;
			return;
		}
	if (*n < max) {
		str_copy(c[*n].name, sizeof c[*n].name, name);
		c[*n].oid = oid;
		c[(*n)++].n = k;
	}
}

void scope_evidence_add(struct scope_evidence *ev, const struct session_set *ss, double wall)
{
	if (!ss || ss->age_s > 0 || (ss->status != SESS_OK && ss->status != SESS_PARTIAL))
		return;
	struct scope_read *r = &ev->r[ev->head];
	memset(r, 0, sizeof *r);
	r->wall = wall;
	for (size_t i = 0; i < ss->n; i++) {
		const struct session *s = &ss->s[i];
		/* a client's session (not dbtop's, not the WAL writer's own flush) */
		if (s->self || s->cls == SC_BACKGROUND || !scope_flush_wait(s->wait))
			continue;
		r->waits++;
		if (s->user[0])
			bump(r->role, &r->nrole, SCOPE_NAMES, s->user, s->user_oid, 1);
		if (s->db[0])
			bump(r->db, &r->ndb, SCOPE_NAMES, s->db, s->db_oid, 1);
	}
	ev->head = (ev->head + 1) % SCOPE_READS;
	if (ev->n < SCOPE_READS)
		ev->n++;
}

void scope_evidence_clear(struct scope_evidence *ev)
{
	ev->head = ev->n = 0;
}

void scope_evidence_pick(const struct scope_evidence *ev, bool role, double now, struct scope_pick *out)
{
	struct scope_count all[SCOPE_READS * SCOPE_NAMES];
	int nall = 0;
	memset(out, 0, sizeof *out);
	for (unsigned k = 0; k < ev->n; k++) {
		const struct scope_read *r = &ev->r[(ev->head + SCOPE_READS - 1 - k) % SCOPE_READS];
		if (now - r->wall > SCOPE_WINDOW_S || r->wall > now + 1)
			break;
		out->reads++;
		out->of += r->waits;
		const struct scope_count *c = role ? r->role : r->db;
		for (int i = 0; i < (role ? r->nrole : r->ndb); i++)
			bump(all, &nall, SCOPE_READS * SCOPE_NAMES, c[i].name, c[i].oid, c[i].n);
	}
	int best = -1;
	for (int j = 0; j < nall; j++)
		if (best < 0 || all[j].n > all[best].n)
			best = j;
	const char *what = role ? "role" : "database";
	if (best < 0 || out->of < SCOPE_MIN_SEEN) {
		str_printf(out->text, sizeof out->text,
			   "no %s picked: %u session%s found waiting on the WAL flush in %u read%s of the session list "
			   "(last %.0f s; %d needed)",
			   what, out->of, out->of == 1 ? "" : "s", out->reads, out->reads == 1 ? "" : "s",
			   SCOPE_WINDOW_S, SCOPE_MIN_SEEN);
		return;
	}
	str_copy(out->name, sizeof out->name, all[best].name);
	out->oid = all[best].oid;
	out->n = all[best].n;
	out->ok = out->n >= SCOPE_MIN_SHARE * out->of;
	char shown[2 * sizeof out->name + 2];
	tune_target_text(out->name, shown, sizeof shown);
	str_printf(
		out->figure, sizeof out->figure,
		"%u of the %u sessions found waiting on the WAL flush in %u read%s of the session list (last %.0f s)",
		out->n, out->of, out->reads, out->reads == 1 ? "" : "s", SCOPE_WINDOW_S);
	if (out->ok)
		str_printf(out->text, sizeof out->text, "%s %s holds %s", what, shown, out->figure);
	else
		str_printf(out->text, sizeof out->text, "no %s holds %.0f%%: the busiest, %s, holds %s", what,
			   SCOPE_MIN_SHARE * 100, shown, out->figure);
}
