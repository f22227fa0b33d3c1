/* scope.h - whose commits wait on the WAL flush (PostgreSQL): the client
 * sessions each read of the session list found in a WAL flush wait
 * (IO:WALSync, IO:WALWrite, LWLock:WALWrite), counted by role and by
 * database over the reads of the last SCOPE_WINDOW_S. When one role (or one
 * database) holds most of them, the commit-fsync finding and the tuning
 * pane offer a durability remedy for it alone (ALTER ROLE / ALTER DATABASE
 * ... SET: its new sessions only) instead of the whole server. The figure
 * is a count of sessions seen, said as such. Pure: no curses, no database. */
#ifndef DBTOP_SCOPE_H
#define DBTOP_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "sessions.h"

#define SCOPE_WINDOW_S 60.0 /* the reads counted: the last minute's */
#define SCOPE_READS 32      /* ... at most this many */
#define SCOPE_NAMES 4       /* roles / databases kept per read (the busiest; the rest count in the total) */
#define SCOPE_MIN_SEEN 5    /* flush waits seen before a scope is offered */
#define SCOPE_MIN_SHARE 0.6 /* ... and the share one role / database must hold */

struct scope_count {
	char name[SESSION_USER_LEN]; /* as the session list shows it (made safe for a terminal) */
	unsigned oid;                /* the role's / database's oid, 0: unknown */
	unsigned n;
};

/* One read of the session list. */
struct scope_read {
	double wall;
	unsigned waits; /* client sessions seen in a WAL flush wait */
	int nrole, ndb;
	struct scope_count role[SCOPE_NAMES], db[SCOPE_NAMES];
};

struct scope_evidence {
	struct scope_read r[SCOPE_READS]; /* a ring, the newest at head - 1 */
	unsigned head, n;
};

/* The role or database the evidence points at. */
struct scope_pick {
	bool ok; /* one holds at least SCOPE_MIN_SHARE of SCOPE_MIN_SEEN or more */
	char name[SESSION_USER_LEN];
	unsigned oid;     /* its oid (0: unknown): what finds the role or database itself */
	unsigned n, of;   /* its flush waits, all of them */
	unsigned reads;   /* reads of the session list counted */
	char figure[160]; /* "41 of the 44 sessions found waiting on the WAL flush in 9 reads of the
				   * session list (last 60 s)" */
	char text[240];   /* "role app holds " and the figure, or why none is picked */
};

/* Is wait (session.wait, "IO:WALSync") a wait for the WAL flush? */
bool scope_flush_wait(const char *wait);
/* Count a fresh read of the session list (ss->age_s 0; a list reused from
 * an earlier read is not counted again) taken at wall. */
void scope_evidence_add(struct scope_evidence *ev, const struct session_set *ss, double wall);
void scope_evidence_clear(struct scope_evidence *ev);
/* The role (role true) or database holding most flush waits over the reads
 * of the SCOPE_WINDOW_S before now. */
void scope_evidence_pick(const struct scope_evidence *ev, bool role, double now, struct scope_pick *out);

#endif
