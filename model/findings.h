/* findings.h - likely causes named from the model, each with its evidence
 * and the suggested remedy: a table of small rules evaluated every
 * interval (seeds 000-004: commits waiting on fsync, upsert gap locks, an
 * idle root blocker, a WAL writer flushing too often, statistics missing). */
#ifndef DBTOP_FINDINGS_H
#define DBTOP_FINDINGS_H

#include <stddef.h>

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
};

#define FINDINGS_MAX 8

/* The findings in force for a model's newest sample: what every reader
 * (screen, batch, fleet, metrics, events, tuning) shows. Written only by
 * findings_update(), once per sample, at the end of model_update(). */
struct finding_set {
	size_t n;
	struct finding f[FINDINGS_MAX];   /* most severe first */
};

/* Evaluate every rule on m (the raw rules, no state); returns how many
 * fired (at most max), most severe first. Readers use m->findings. */
size_t findings_eval(const struct model *m, struct finding *out, size_t max);
/* Compute m->findings from the model as it now stands (called by
 * model_update() after each sample; the only writer of m->findings). */
void findings_update(struct model *m);
/* The tunables[] row the most severe finding with a setting remedy points
 * at (NULL when none): the row screen 5 opens with. */
const struct tunable *findings_top_remedy(const struct finding *f, size_t n);
const char *finding_severity_name(enum finding_severity s);
/* The JSON member ,"findings":[...] */
void findings_json(const struct finding *f, size_t n, struct strbuf *out);

#endif
