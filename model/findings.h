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

struct finding {
	const char *id;              /* stable: "commit-fsync", "upsert-gap-lock", ... */
	enum finding_severity severity;
	const char *pane;            /* where it belongs: "rates", "locks", "waits", "digests" */
	char summary[160];
	char evidence[320];
	char suggestion[320];
};

#define FINDINGS_MAX 8

/* Evaluate every rule on m; returns how many fired (at most max), most
 * severe first. */
size_t findings_eval(const struct model *m, struct finding *out, size_t max);
const char *finding_severity_name(enum finding_severity s);
/* The JSON member ,"findings":[...] */
void findings_json(const struct finding *f, size_t n, struct strbuf *out);

#endif
