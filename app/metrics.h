/* metrics.h - a target's model as Prometheus / OpenMetrics samples (the
 * /metrics endpoint, app/listen.c). Reads the model only; never a server.
 *
 * One target renders into a struct metrics_text: its sample lines grouped
 * by metric family, so that the endpoint can serve several targets with
 * each family's HELP / TYPE once and its samples together (both formats
 * require a family's lines to be contiguous). */
#ifndef DBTOP_METRICS_H
#define DBTOP_METRICS_H

#include <stdbool.h>

#include "../model/model.h"
#include "../util/util.h"

enum metrics_family {
	MF_UP,
	MF_INFO,
	MF_LAST_SAMPLE,
	MF_SAMPLES,
	MF_SAMPLE_QUERY,
	MF_SAMPLE_STMTS,
	MF_COMMITS,
	MF_OWN_COMMITS,
	MF_ROLLBACKS,
	MF_FSYNCS,
	MF_FSYNC_SECONDS,
	MF_COMMIT_STMTS,
	MF_COMMIT_STMT_SECONDS,
	MF_WAL_BYTES,
	MF_REDO_BYTES,
	MF_FSYNCS_PER_COMMIT,
	MF_COMMIT_LATENCY,
	MF_FSYNC_LATENCY,
	MF_WAIT_AAS,
	MF_WAIT_CLASS_AAS,
	MF_LOCK_WAITING,
	MF_LOCK_ROOTS,
	MF_LOCK_DEPTH,
	MF_LOCK_CYCLES,
	MF_HOST_CPUS,
	MF_HOST_CPU_PRESSURE,
	MF_HOST_RUN_QUEUE,
	MF_SERVER_CPU,
	MF_SERVER_CPU_WAIT,
	MF_FINDING,
	MF_INCIDENTS,
	MF_LAST_INCIDENT,
	MF_INCIDENT_ERRORS,
	MF_INCIDENTS_FAILING,
	MF__COUNT
};

/* One target's samples: the lines of family f are
 * buf.s[off[f] .. off[f + 1]). */
struct metrics_text {
	struct strbuf buf;
	size_t off[MF__COUNT + 1];
};

void metrics_text_init(struct metrics_text *t);
void metrics_text_free(struct metrics_text *t);

/* Render the model's newest interval for the target called server (a
 * name or host:port, never a URI: see metrics_label_safe) into t (its
 * previous contents replaced). A target that is not UP keeps only
 * dbtop_up 0, its info and the sampler's own series: no stale gauge, no
 * counter, no finding. */
void metrics_render(const struct model *m, const char *server, struct metrics_text *t);
/* The same with the incident capture's series (--incidents; NULL: none):
 * dbtop_incidents_total by trigger, the newest incident's time (its file
 * and trigger as labels), write errors and whether writing fails now.
 * They stay while the target is DOWN (they are dbtop's own). */
struct incident_stats;
void metrics_render_incidents(const struct model *m, const struct incident_stats *inc, const char *server,
			      struct metrics_text *t);

/* Append the exposition of n targets: each family's HELP and TYPE once,
 * then every target's samples of it; openmetrics: OpenMetrics 1.0 (TYPE
 * names without _total, "# EOF" at the end), else the Prometheus text
 * format 0.0.4. A NULL entry is skipped (a target not yet sampled). */
void metrics_expose(const struct metrics_text *const *t, size_t n, bool openmetrics, struct strbuf *out);

/* Append s as a label value: quoted, with \\, \" and \n escaped, and
 * anything that is not printable UTF-8 replaced by '?'. */
void metrics_label(struct strbuf *out, const char *s);

/* The server label for a target name: name itself, unless it looks like a
 * URI or carries credentials (scheme "://", '@', '=' or whitespace), then
 * host_port (the target's label, which never has them). */
const char *metrics_label_safe(const char *name, const char *host_port);

#endif
