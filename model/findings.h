/* findings.h - likely causes named from the model, each with its evidence
 * and the suggested remedy: a table of small rules evaluated every
 * interval (seeds 000-004: commits waiting on fsync, upsert gap locks, an
 * idle root blocker, a WAL writer flushing too often, statistics missing). */
#ifndef DBTOP_FINDINGS_H
#define DBTOP_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/tunables.h"
#include "scope.h"

struct model;
struct strbuf;

enum finding_severity { SEV_INFO = 0, SEV_WARN, SEV_CRIT };

struct tunable;

struct finding {
	const char *id;              /* stable: "commit-fsync", "upsert-gap-lock", ... */
	enum finding_severity severity;
	const char *pane;            /* where it belongs: "rates", "locks", "waits", "digests" */
	char summary[160];
	char evidence[640];
	char suggestion[480];
	/* the remedy's row in tunables[] (screen 5), or NULL when the remedy is
	 * not a setting; then suggestion is written from that row: its SQL for
	 * value and its trade */
	const struct tunable *tune;
	char value[64];              /* the value the row's a sets (tunable_toggle) */
	/* intervals since its rule last held (0: this one). A finding in force
	 * is held through quiet intervals (hold_rules[]) and keeps the
	 * evidence of the last interval its rule held */
	int quiet;
	/* held under another cause: the rule held the last pending_run
	 * intervals in a row as pending (a finding id: commit-host-cpu for a
	 * commit-fsync in force), which takes over at its cause_run; NULL
	 * when not */
	const char *pending;
	int pending_run;
};

#define FINDINGS_MAX 8

/* How findings and lock chains come and go (docs/screen.md "Steady findings"):
 * one table, hold_rules[] in findings.c, a row per finding id with its own
 * thresholds, the row "finding" for every other id, the row "lock-chain"
 * for the event log's lock chains. */
struct hold_rule {
	const char *what;     /* a finding id, "finding", "lock-chain" */
	int raise_k, raise_n; /* raised once its rule held in raise_k of the last raise_n intervals */
	int clear_quiet;      /* cleared after this many intervals in a row without it; the
				      * overview keeps its rows as long again */
	int cause_run;        /* a finding in force takes another cause's id once that cause
				      * held this many intervals in a row */
	int gap_x;            /* an interval this many times the ones before (dbtop stopped, a
				      * recording's hole; finding_set.last_dt) starts the findings over */
	double last_s;        /* lock-chain: logged once it lasted this long, s */
};
/* The row for what (a finding id, "lock-chain"); "finding" when it has none. */
const struct hold_rule *hold_rule_for(const char *what);
/* Intervals a model rebuilt from an earlier moment needs before its
 * findings are those of a model that saw every sample (time travel). */
int findings_warmup(void);

/* One rule followed by the hysteresis (findings_update). A rule that names
 * its cause in the id (commit-fsync / commit-host-cpu) is one track: the
 * rule holding counts whatever the cause (a finding in force is cleared
 * only once its rule held under no cause for clear_quiet intervals), and
 * it changes its id only once the other cause held in every one of
 * cause_run intervals (so a cause that wavers, or a host busy for a
 * moment, is no string of raises and clears). */
struct finding_track {
	struct finding f;   /* the newest its rule gave under the id in force (quiet: the intervals since) */
	struct finding alt; /* in force: the newest under another id */
	unsigned alt_seen;  /* bit i: the rule held under alt's id i intervals ago */
	unsigned seen;      /* bit i: its rule held i intervals ago */
	int rule;           /* its rule's row: the order shown among equals */
	int off;            /* intervals since it was last in force (-1: never) */
	bool raised;        /* in force */
};
#define FINDINGS_TRACK 16

/* The findings in force for a model's newest sample: what every reader
 * (screen, batch, fleet, metrics, events, tuning) shows. Written only by
 * findings_update(), once per sample, at the end of model_update(): the
 * raw rules (findings_eval) through the hysteresis of hold_rules[]. The
 * state lives here, in the model, so a replay of the same samples gives
 * the same findings. */
struct finding_set {
	size_t n;
	struct finding f[FINDINGS_MAX];   /* most severe first */
	size_t recent;                    /* in force now or cleared within its clear_quiet
					   * intervals: the finding rows the overview keeps */
	size_t ntrack;
	struct finding_track track[FINDINGS_TRACK];
	double last_dt; /* the intervals before, s (0: none): the longest of them, each
			 * weighed 0.8 for every interval since (a short catch-up
			 * tick after a stalled one is no measure of a gap) */
};

/* Evaluate every rule on m (the raw rules, no state); returns how many
 * fired (at most max), most severe first. Readers use m->findings. */
size_t findings_eval(const struct model *m, struct finding *out, size_t max);
/* Compute m->findings from the model as it now stands (called by
 * model_update() after each sample; the only writer of m->findings and
 * of its hysteresis). A sample that is not UP, the first of a new
 * connection, or one after a gap (hold_rules' gap_x) starts it over. */
void findings_update(struct model *m);
/* The tunables[] row the most severe finding with a setting remedy points
 * at (NULL when none): the row screen 5 opens with. */
const struct tunable *findings_top_remedy(const struct finding *f, size_t n);
/* How narrow tunable t's remedy should be (PostgreSQL, t->narrow): its
 * kind TK_PG_ROLE when one role holds most of the sessions found waiting
 * on the WAL flush (scope.h), else TK_PG_DATABASE for one database, else
 * t's own kind (the whole server). The finding's suggestion and screen 5's
 * a use the same. pick (may be NULL): the role's or the database's
 * evidence, the role's when neither. */
enum tune_kind findings_remedy_scope(const struct model *m, const struct tunable *t, struct scope_pick *pick);
const char *finding_severity_name(enum finding_severity s);
/* The JSON member ,"findings":[...] */
void findings_json(const struct finding *f, size_t n, struct strbuf *out);

#endif
