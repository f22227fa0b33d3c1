/* pace.h - when the costly reads of a backend are due: the statement
 * digests, the lock graph (source_locks_*, source.h), the wait summary;
 * --server-budget paces the first two by their cost, the summary comes at
 * a fixed cadence. Both backends use it; it knows no engine. */
#ifndef DBTOP_PACE_H
#define DBTOP_PACE_H

#include <stdbool.h>
#include <stddef.h>

#include "source.h"

/* s between two reads of a wait summary (performance_schema's, the
 * pg_wait_sampling profile): it costs the server more than the rest of a
 * refresh together, and its rates cover the time between. */
#define PACE_SUMMARY_EVERY_S 4.5
/* The next read of a wait summary read at now for which its cost gives
 * next (0 or less than a refresh ahead: the next refresh): second, the
 * first reading of a connection, whose first rates need another, is read
 * again no later than PACE_SUMMARY_EVERY_S (at the next refresh when it is
 * cheap); the others no sooner. */
double pace_summary_next(double next, double now, bool second);

/* A paced read on one connection. Zeroed: due now, no read yet. */
struct pacer {
	double next;             /* monotonic s of the next read (0: now) */
	unsigned reads;          /* reads done */
	double last;             /* monotonic s of the last read (pace_done) */
};

/* A wait summary read at now for cost_ms: pc's next read by its cost under
 * the budget (PACE_SHARE_SUMMARY, PACE_MAX_SUMMARY_S at most), then
 * pace_summary_next; the second reading of a connection, one read, at the
 * next refresh when cost_ms fits in what the budget leaves a refresh after
 * the reads of every refresh (src->fixed_ms). Returns the s from now to
 * that read, for the pane's note. */
double pace_summary_read(struct pacer *pc, const struct source *src, double now, double cost_ms);
struct wait_set;
/* A wait summary read every `every` s for ms a read: when that is longer
 * than PACE_SUMMARY_EVERY_S, ws's note says so, after what limits the
 * profile (a note that nothing is counted stays as it is). */
void pace_waits_note(struct wait_set *ws, double every, double ms);

/* s between two reads of what only a target's own screen shows (its
 * statement digests) while the target is in the background
 * (src->background: one of several targets, its fleet row alone on the
 * screen, or the fleet's --batch): the row's figures come from the
 * counters of every refresh; opening the target reads them at its next
 * refresh. */
#define PACE_BACKGROUND_S 10.0

/* True when a read due at next is due at now; busy: this refresh paid for
 * another costly read already, so one just due waits up to 1 s more (the
 * two never add up in one refresh). */
bool pace_due_at(double next, double now, bool busy);
/* pace_due_at for a pacer. */
bool pace_due(const struct pacer *pc, double now, bool busy);
/* pace_due for a read that only the target's own screen shows: in the
 * background also PACE_BACKGROUND_S after the last read (the first two
 * come at once: the first rates need them). */
bool pace_due_shown(const struct pacer *pc, const struct source *src, double now, bool busy);
/* The s between such reads for the note: every (pace_done's), or
 * PACE_BACKGROUND_S in the background when that is longer. */
double pace_every_shown(const struct source *src, double every);
/* After a read that cost cost_ms at now: the next one as far ahead as
 * share of --server-budget allows (source_pace_next); the second read
 * comes at the next refresh whatever the cost (the first rates need two).
 * Returns the s between reads for a note ("read every N s") when they are
 * more than 0.5 s apart, else 0. */
double pace_done(struct pacer *pc, const struct source *src, double now, double cost_ms, double share);
/* Another read gave what pc's read gives at now (MariaDB's process list
 * counts the metadata-lock waits the check counts): the next one as far
 * from now as it was from the last (nothing changes while it is not paced
 * yet, or is read at every refresh). */
void pace_rebase(struct pacer *pc, double now);
/* pace_done for a large paced read (PACED_*: its share, and no more than
 * the others leave, source_pace_read), which keeps what it spends a
 * refresh (at most one read per PACE_BACKGROUND_S in the background). */
double pace_done_read(struct pacer *pc, struct source *src, double now, double cost_ms, int read);
/* The reads that add up every thread or session of the server (MySQL /
 * MariaDB: the statement and wait summaries, the metadata-lock check) may
 * wait this long under the budget: their rates cover the time between,
 * the panes and JSON give their age, and the counts of every refresh
 * (commits, fsyncs) come from the global status, never from them. */
#define PACE_MAX_SUMMARY_S 120.0
/* pace_done for such a read: at most cap s apart instead of PACE_MAX_S. */
double pace_done_max(struct pacer *pc, const struct source *src, double now, double cost_ms, double share, double cap);
/* source_pace_next at most cap s ahead instead of PACE_MAX_S. */
double source_pace_next_max(const struct source *src, double now, double cost_ms, double share, double cap);
/* A paced read due for a setting's change (src->changed_mono), whatever
 * its pace: a remedy's outcome (model/forecast.h) measures its figures
 * over the intervals after FC_SETTLE_INTERVALS, and a rate read before the
 * change covers time before it. So the read is taken once the settling
 * ends and once more before the measuring does (the statement summary
 * behind COMMIT's latency, read every 10-120 s on a busy server: else the
 * outcome waited FC_MEASURE_MAX_S for a figure). No forced read
 * FC_MEASURE_MAX_S after that. */
bool pace_after_change(const struct pacer *pc, const struct source *src, double now);
/* A moving average of what a cheap read costs (a baseline another read's
 * cost is taken against), alpha the weight of a sample: one slow sample
 * (the host or the server stalled a moment) lifts it by alpha of it at
 * most, as a sample above twice the average counts as twice it; a lasting
 * rise still comes through, a fifth more a read at alpha 0.2. avg 0 or
 * less: none yet, the sample. */
double pace_baseline(double avg, double x, double alpha);
/* Whether a read that costs `more` ms beyond a cheaper one is paced
 * (was: it is now): from least ms on, and only below half of it back to
 * every refresh. Read every few seconds it comes after the server slept
 * and costs more than read at every refresh, so without the band each
 * state holds itself: near least a few cheap reads made MariaDB's read of
 * every counter go to every refresh for 15-28 refreshes. */
bool pace_costly(bool was, double more, double least);
/* A fixed cadence: true when a read is due at now, and then the next one
 * is every s later. */
bool pace_every(struct pacer *pc, double now, double every);

/* Two forms of one read that answer the same at different costs: the
 * cheaper by the server time each took. PostgreSQL's lock gate is one:
 * pg_locks' requests not granted (grows with the locks held: a pg_dump of
 * 100,000 tables makes it the costly one) or every session's wait looked
 * up (grows with the sessions squared: 0.2 ms with a few, 6.5-110 ms with
 * 2,500). Form 0 is used first. The other is tried only while the one in
 * use costs FORM_PICK_WORTH_MS or more: first at the
 * FORM_PICK_FIRST_TRY-th read (the third when the one in use costs
 * FORM_PICK_COSTLY_MS or more), then once the one in use has cost
 * FORM_PICK_TRY_RATIO times the other's last try since that try, so the
 * tries cost at most about a tenth of the reads. A form is taken when it
 * cost less than FORM_PICK_SWITCH of the other and saves
 * FORM_PICK_GAIN_MS or more (below that the two are even: a few
 * sessions, 0.16 against 0.22 ms). Zeroed: form 0, nothing measured. */
#define FORM_PICK_FIRST_TRY 20
#define FORM_PICK_COSTLY_MS 10.0
#define FORM_PICK_TRY_RATIO 10.0
#define FORM_PICK_WORTH_MS 0.5
#define FORM_PICK_SWITCH 0.7
#define FORM_PICK_GAIN_MS 0.1
struct form_pick {
	double ms[2];   /* each form's server time, ms: a moving average for the one in
				  * use, the last try for the other; 0: not measured */
	unsigned reads; /* reads done */
	int use;        /* the form in use */
	double spent;   /* ms the one in use took since the other's last try */
};
/* The form of the next read; only: the one form allowed (0 or 1; the
 * picker then learns nothing), or -1 for either. */
int form_pick_next(const struct form_pick *fp, int only);
/* After a read of form that cost ms of server time (< 0: not known):
 * the form to use next. */
void form_pick_cost(struct form_pick *fp, int form, double ms);

/* Start of a lock-graph read: with `waiting` sessions waiting (by the
 * cheap check) out->locks becomes a new set to fill, returned with the
 * read's start in *now; NULL when there is nothing to read: nothing waits
 * (LOCKS_IDLE), or the graph read a moment ago is published instead
 * (source_locks_reuse; busy as there). */
struct lock_set *source_locks_begin(struct source *src, struct sample *out, unsigned waiting, bool busy,
				    double *now);
/* The screen's first two samples: the gate (a scan of every session on
 * PostgreSQL) waits with the graph; out->locks says so (lock_set_counted).
 * True while it waits. */
bool source_locks_uncounted(struct source *src, struct sample *out);
/* End of a lock-graph read begun at now: LOCKS_READ when read (else the
 * status the caller set), the graph analysed, and the next read paced by
 * its cost (ls->query_ms). */
void source_locks_end(struct source *src, struct lock_set *ls, bool read, double now);

#endif
