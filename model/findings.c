/* findings.c - the rules: each a small predicate over the model that fills
 * in its evidence and the remedy. Thresholds are named at the top. */
#include "findings.h"

#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"
#include "model.h"

#define MIN_COMMITS_PER_S 5.0     /* below this, commit costs do not matter */
#define FSYNCS_PER_COMMIT_HIGH 1.5
#define WAL_SYNCS_BUSY 20.0       /* WAL syncs/s that count as frequent */
#define WAL_SYNCS_PER_COMMIT_ASYNC 0.5 /* below: commits do not sync themselves */
#define WAL_WRITER_DELAY_SHORT_MS 50

/* A setting's value as last read, or NULL. */
static const char *setting(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->nsettings; i++)
		if (strcmp(m->settings[i].name, name) == 0)
			return m->settings[i].value;
	return NULL;
}

static double rate(const struct model *m, enum metric_id id)
{
	return m->cur[id].st == RATE_OK ? m->cur[id].v : NAN;
}

/* Share of statement time this interval taken by COMMIT, NaN if unknown. */
static double commit_share(const struct model *m, double *ms_per_s)
{
	const struct digest_entry *top[8];
	size_t n = digest_table_top(&m->dg, DGS_TOTAL, false, top, 8);
	*ms_per_s = NAN;
	if (!(m->dg.total_ms_per_s > 0))
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (top[i]->last.text && strncasecmp(top[i]->last.text, "COMMIT", 6) == 0) {
			*ms_per_s = top[i]->rate[DG_TOTAL_NS] / 1e6;
			return *ms_per_s / m->dg.total_ms_per_s;
		}
	return NAN;
}

/* The wait event with the most time this interval, excluding CPU. */
static const struct wait_entry *top_wait(const struct model *m)
{
	const struct wait_entry *w[WAIT_MAX];
	size_t n = wait_table_ranked(&m->wt, w, WAIT_MAX);
	for (size_t i = 0; i < n; i++)
		if (w[i]->cls != WC_CPU && w[i]->aas > 0)
			return w[i];
	return NULL;
}

/* Seeds 000 / 002: every commit waits for one or two fsyncs. */
static bool rule_commit_fsync(const struct model *m, struct finding *f)
{
	double commits = rate(m, M_COMMITS), per = rate(m, M_FSYNCS_PER_COMMIT), cms = NAN;
	if (!(commits >= MIN_COMMITS_PER_S))
		return false;
	if (m->caps.engine == ENGINE_MYSQL) {
		const char *flush = setting(m, "innodb_flush_log_at_trx_commit"), *sb = setting(m, "sync_binlog");
		if (!(per >= FSYNCS_PER_COMMIT_HIGH) || !flush || strcmp(flush, "1") != 0)
			return false;
		double share = commit_share(m, &cms), sync_ms = rate(m, M_BINLOG_FSYNC_MS), cl = rate(m, M_COMMIT_MS);
		char extra[160] = "";
		size_t l = 0;
		if (isfinite(share))
			l += str_printf(extra + l, sizeof extra - l, ", COMMIT %.0f%% of statement time", share * 100);
		if (isfinite(cl))
			l += str_printf(extra + l, sizeof extra - l, ", COMMIT %.2f ms", cl);
		if (isfinite(sync_ms))
			str_printf(extra + l, sizeof extra - l, ", binlog sync %.2f ms", sync_ms);
		f->severity = SEV_WARN;
		str_printf(f->summary, sizeof f->summary, "commits wait on fsync: %.1f fsyncs per commit", per);
		str_printf(f->evidence, sizeof f->evidence, "%.0f commits/s, %.2f fsyncs/commit%s; "
			   "innodb_flush_log_at_trx_commit=1%s", commits, per, extra,
			   sb && strcmp(sb, "1") == 0 ? " sync_binlog=1" : "");
		str_copy(f->suggestion, sizeof f->suggestion,
			 "SET GLOBAL innodb_flush_log_at_trx_commit=2 syncs the redo log about once a second instead of "
			 "at every commit: up to ~1 s of committed transactions lost on an OS crash or power loss");
		return true;
	}
	const char *sc = setting(m, "synchronous_commit");
	const struct wait_entry *w = top_wait(m);
	double syncs_per = rate(m, M_FSYNCS_PER_COMMIT);
	if (!sc || strcmp(sc, "on") != 0 || !w || w->cls != WC_WAL || !(syncs_per >= WAL_SYNCS_PER_COMMIT_ASYNC))
		return false;
	f->severity = SEV_WARN;
	str_printf(f->summary, sizeof f->summary, "commits wait on the WAL flush: %s leads the waits", w->name);
	str_printf(f->evidence, sizeof f->evidence, "%.0f commits/s, %.2f WAL syncs/commit, %s %.2f active sessions, "
		   "WAL sync %.3f ms; synchronous_commit=on", commits, syncs_per, w->name, w->aas, rate(m, M_WAL_SYNC_MS));
	str_copy(f->suggestion, sizeof f->suggestion,
		 "synchronous_commit=off for the sessions that can afford it (SET, or ALTER ROLE ... SET): commits "
		 "stop waiting for the flush; a crash can lose the last ~3 x wal_writer_delay of commits, never corrupts");
	return true;
}

/* Seed 001: an insert-intention lock waiting on a gap lock left by an upsert. */
static bool rule_upsert_gap(const struct model *m, struct finding *f)
{
	const struct lock_set *ls = m->locks;
	if (!ls || ls->status != LOCKS_READ)
		return false;
	for (size_t k = 0; k < ls->ne; k++) {
		const struct lock_edge *e = &ls->e[k];
		const struct lock_session *b = &ls->s[e->blocker];
		bool upsert = b->query && strcasestr(b->query, "ON DUPLICATE KEY UPDATE");
		bool ii = strstr(e->requested, "INSERT_INTENTION") != NULL;
		if (!strstr(e->requested, "GAP") || !(ii || upsert) || (!strstr(e->held, "GAP") && !upsert))
			continue;
		f->severity = SEV_WARN;
		str_printf(f->summary, sizeof f->summary, "inserts wait on a gap lock%s", upsert ? " left by an upsert" : "");
		str_printf(f->evidence, sizeof f->evidence, "session %lld requested %s <- held %s by %lld on %s%s%.80s",
			   ls->s[e->waiter].id, e->requested, e->held, b->id, e->object, upsert ? "; blocker ran: " : "",
			   upsert ? b->query : "");
		str_copy(f->suggestion, sizeof f->suggestion,
			 "INSERT ... ON DUPLICATE KEY UPDATE that hits the duplicate keeps a gap lock until commit: read the "
			 "row first by its unique key and UPDATE it when it exists, INSERT only when it does not (or keep the "
			 "transaction short / use READ COMMITTED)");
		return true;
	}
	return false;
}

/* A root blocker sitting idle in its transaction. */
static bool rule_idle_blocker(const struct model *m, struct finding *f)
{
	const struct lock_set *ls = m->locks;
	const struct lock_session *worst = NULL;
	if (!ls || ls->status != LOCKS_READ)
		return false;
	for (size_t i = 0; i < ls->ns; i++) {
		const struct lock_session *s = &ls->s[i];
		if (s->is_root && s->blocked > 0 && strncmp(s->state, "idle in transaction", 19) == 0 &&
		    (!worst || s->blocked > worst->blocked))
			worst = s;
	}
	if (!worst)
		return false;
	char st[96];
	lock_state_text(worst, st, sizeof st);
	f->severity = SEV_CRIT;
	str_printf(f->summary, sizeof f->summary, "session %lld, idle in its transaction, blocks %d session%s", worst->id,
		   worst->blocked, worst->blocked == 1 ? "" : "s");
	str_printf(f->evidence, sizeof f->evidence, "%lld (%s) %s; %s%.100s", worst->id, worst->user, st,
		   worst->query ? (worst->query_is_last ? "last statement: " : "statement: ") : "",
		   worst->query ? worst->query : "");
	str_copy(f->suggestion, sizeof f->suggestion,
		 "end it with k on screen 3 (its transaction rolls back); then find the code path that leaves a "
		 "transaction open (idle_in_transaction_session_timeout / wait_timeout bound the damage)");
	return true;
}

/* Seed 004: with asynchronous commit the WAL writer flushes much more often
 * than needed. */
static bool rule_wal_writer(const struct model *m, struct finding *f)
{
	if (m->caps.engine != ENGINE_POSTGRESQL)
		return false;
	double syncs = rate(m, M_WAL_SYNCS), commits = rate(m, M_COMMITS);
	const char *d = setting(m, "wal_writer_delay");
	if (!(syncs >= WAL_SYNCS_BUSY) || !d)
		return false;
	double per = commits > 0 ? syncs / commits : INFINITY;
	long delay = strtol(d, NULL, 10);
	if (strstr(d, "s") && !strstr(d, "ms"))
		delay *= 1000;
	if (!(per < WAL_SYNCS_PER_COMMIT_ASYNC || commits < MIN_COMMITS_PER_S) || delay > WAL_WRITER_DELAY_SHORT_MS)
		return false;
	f->severity = SEV_INFO;
	str_printf(f->summary, sizeof f->summary, "the WAL writer flushes %.0f times a second", syncs);
	str_printf(f->evidence, sizeof f->evidence, "%.0f WAL syncs/s for %.0f commits/s (commits are asynchronous); "
		   "wal_writer_delay=%s", syncs, isfinite(commits) ? commits : 0, d);
	str_copy(f->suggestion, sizeof f->suggestion,
		 "raise wal_writer_delay (ALTER SYSTEM SET wal_writer_delay = '200ms'; SELECT pg_reload_conf()): fewer, larger WAL flushes; asynchronous "
		 "commits can lose up to ~3 x wal_writer_delay on a crash");
	return true;
}

/* Statement statistics missing: the digests are estimates. */
static bool rule_no_statistics(const struct model *m, struct finding *f)
{
	if (!m->have_caps)
		return false;
	if (m->caps.engine == ENGINE_MYSQL && !m->caps.ps_digests) {
		f->severity = SEV_INFO;
		str_copy(f->summary, sizeof f->summary, "no statement statistics: digests are sampled estimates");
		str_copy(f->evidence, sizeof f->evidence, m->caps.perf_schema
							  ? "performance_schema digests are not readable by this user"
							  : "performance_schema is OFF");
		str_copy(f->suggestion, sizeof f->suggestion,
			 m->caps.perf_schema ? "GRANT SELECT ON performance_schema.* TO the monitoring user"
					     : "performance_schema=ON in the server's option file (needs a restart)");
		return true;
	}
	if (m->caps.engine == ENGINE_POSTGRESQL && !m->caps.pgss_version) {
		f->severity = SEV_INFO;
		str_copy(f->summary, sizeof f->summary, "no statement statistics: digests are sampled estimates");
		str_copy(f->evidence, sizeof f->evidence, "pg_stat_statements is not installed in this database");
		str_copy(f->suggestion, sizeof f->suggestion,
			 "shared_preload_libraries = 'pg_stat_statements' (restart), then CREATE EXTENSION pg_stat_statements");
		return true;
	}
	return false;
}

static const struct {
	const char *id;
	const char *pane;
	bool (*fn)(const struct model *m, struct finding *f);
} rules[] = {
	{"idle-root-blocker", "locks", rule_idle_blocker},
	{"commit-fsync", "rates", rule_commit_fsync},
	{"upsert-gap-lock", "locks", rule_upsert_gap},
	{"wal-writer-busy", "waits", rule_wal_writer},
	{"no-statement-statistics", "digests", rule_no_statistics},
};

size_t findings_eval(const struct model *m, struct finding *out, size_t max)
{
	size_t n = 0;
	if (m->last.state != STATE_UP)
		return 0;
	for (size_t i = 0; i < sizeof rules / sizeof rules[0] && n < max; i++) {
		struct finding *f = &out[n];
		memset(f, 0, sizeof *f);
		if (!rules[i].fn(m, f))
			continue;
		f->id = rules[i].id;
		f->pane = rules[i].pane;
		text_sanitize(f->summary);
		text_sanitize(f->evidence);
		n++;
	}
	/* most severe first, rule order otherwise */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && out[j].severity > out[j - 1].severity; j--) {
			struct finding t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

const char *finding_severity_name(enum finding_severity s)
{
	return s == SEV_CRIT ? "critical" : s == SEV_WARN ? "warning" : "info";
}

void findings_json(const struct finding *f, size_t n, struct strbuf *out)
{
	sb_puts(out, ",\"findings\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_putc(out, ',');
		sb_puts(out, "{\"id\":");
		json_str(out, f[i].id);
		sb_printf(out, ",\"severity\":\"%s\",\"summary\":", finding_severity_name(f[i].severity));
		json_str(out, f[i].summary);
		sb_puts(out, ",\"evidence\":");
		json_str(out, f[i].evidence);
		sb_puts(out, ",\"suggestion\":");
		json_str(out, f[i].suggestion);
		sb_putc(out, '}');
	}
	sb_putc(out, ']');
}
