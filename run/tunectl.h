/* tunectl.h - the tuning policy of one target, without curses: the
 * tuning view copied from its sampler, dbtop's own changes logged as
 * events, --tune-ttl expiry, the probes, and the texts of the orphaned
 * changes' question and of the reverts at exit. The screen asks and
 * draws; what to do and what to say is decided here. */
#ifndef DBTOP_TUNECTL_H
#define DBTOP_TUNECTL_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/events.h"
#include "../model/model.h"
#include "../tune/journal.h"
#include "../tune/tuner.h"
#include "../util/util.h"
#include "sampler.h"

struct tune_ctl {
	struct tune_view tv; /* tuning state, copied from the worker */
	unsigned tv_gen;
	double next_probe;              /* monotonic s: the tunables are read again */
	unsigned probe_gen;             /* tv_gen when next_probe was set */
	double next_expire;             /* monotonic s: next --tune-ttl check */
	bool orphans_asked;             /* the changes an earlier dbtop left were offered for a revert */
	bool foreign_told;              /* the changes of other servers were listed */
	unsigned own_seen[JOURNAL_MAX]; /* dbtop's changes in force, logged as events */
	struct jentry own_was[JOURNAL_MAX];
	int nown;
};

/* The newest view from sampler sp (dbtop's own changes into the event
 * log ev), and --tune-ttl: the changes older than it are sent for expiry
 * (now: monotonic s). True when the view changed. */
bool tunectl_poll(struct tune_ctl *c, struct sampler *sp, struct event_log *ev, double now);
/* Ask sp for a probe of the tunables every 5 s while wanted (the tuning
 * screen shows, or the view is recorded), once the sampler's own probe of
 * its connection has come (c->tv_gen 2 on). */
void tunectl_probe(struct tune_ctl *c, struct sampler *sp, bool wanted, double now);
/* The question about the changes an earlier dbtop left in force (m: the
 * model, for the server's flavour): each with its revert SQL, then the
 * other servers' changes, then what y does. */
void tunectl_orphans_text(const struct tune_ctl *c, const struct model *m, struct strbuf *b);
/* At exit, nothing could be reverted here (read_only, or tuning not
 * available): what stays in force (n changes) and how to revert it. */
void tunectl_left_text(const struct tune_ctl *c, int n, bool read_only, char *out, size_t len);
/* At exit, after the revert of n changes (rc, msg: the tuner's answer;
 * sup0: the changes found overwritten before it): what was reverted, what
 * was not and why. */
void tunectl_exit_text(const struct tune_ctl *c, int n, int sup0, int rc, const char *msg, char *out, size_t len);

/* What the screen does while a revert at exit waits on the sampler: show
 * says what it waits for (the screen draws it), take takes the samples
 * the sampler queued meanwhile (after each wait of 100 ms). */
struct tunectl_waiter {
	void (*show)(void *arg, const char *msg);
	void (*take)(void *arg);
	void *arg;
};

/* At exit (live, not a replay): an action still running on sampler sp
 * first (its outcome awaited), then dbtop's changes in force reverted
 * through sp (read_only or no tuning here: said instead), each wait at
 * most 3 * query_timeout + 2 s (5 s at least), w told meanwhile. out:
 * what happened ("" when nothing was in force). */
void tunectl_revert_at_exit(struct tune_ctl *c, struct sampler *sp, double query_timeout, bool read_only,
			    const struct tunectl_waiter *w, char *out, size_t len);

#endif
