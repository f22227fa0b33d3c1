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
#include "../core/fixes.h"
#include "../core/tunables.h"

/* Thresholds (README "### Findings" says the same, with the reasons).
 *
 * A commit that waits for one durable sync costs about one sync of the
 * disk: well under a millisecond on an SSD or a battery-backed controller
 * (measured on the test sandbox under 300 commits/s: COMMIT 0.3-2.4 ms,
 * binlog sync 0.2-1.1 ms, WAL sync 0.2-0.3 ms), several milliseconds on a
 * spinning disk, a network volume or ZFS (seed 000: COMMIT 20.7 ms; seed
 * 002: seconds per run; issue 25's 4 ms sync: COMMIT 15.5 ms). The rule fires
 * on that latency, not on fsyncs per commit: group commit keeps them below
 * 1.5 (often below 1) exactly when many sessions commit at once. */
#define MIN_COMMITS_PER_S 5.0     /* below this, commit costs do not matter */
#define COMMIT_SLOW_MS 5.0        /* COMMIT average above a healthy disk's (2x the worst seen healthy) */
#define COMMIT_EST_SLOW_MS 10.0   /* the same from a sampled estimate, when no sync time says slow */
#define SYNC_SLOW_MS 2.0          /* one redo / binlog / WAL sync above a healthy disk's */
#define COMMIT_SHARE_MIN 0.25     /* COMMIT at least this share of statement time */
#define COMMIT_BUSY_MIN 0.25      /* without digests: sessions committing on average */
#define WAL_FLUSH_BUSY 0.5        /* PostgreSQL: WAL syncs/s x sync time, the flush busy half the time */
#define WAL_GROUP_SHARE 0.5       /* syncs/commit below half the group-flush least: async commits */
#define WAL_SYNCS_BUSY 20.0       /* WAL syncs/s that count as frequent */
#define WAL_SYNCS_PER_COMMIT_ASYNC 0.5 /* below: commits do not sync themselves */
#define WAL_WRITER_DELAY_SHORT_MS 50
/* Synchronous replication: commits wait for a standby / replica. IPC:SyncRep
 * at least half a session on average (a healthy loopback standby keeps it
 * near 0) and the top wait or half of all waiting; a semi-sync ack wait at
 * least half of the COMMIT latency (or, COMMIT not timed, above a healthy
 * disk's sync). */
#define SYNCREP_MIN_AAS 0.5
#define SYNCREP_SHARE 0.5
#define SYNCREP_SLOW_MS 5.0       /* IPC:SyncRep time per commit: a loopback standby ~1 ms, a stalled one seconds */
/* On a busy host (model/host_rates.h) with a log device that flushes fast,
 * a sync that takes less than this above the device's flush is the
 * host's: a woken thread waits for a CPU (seen: 1.2-2.4 ms on a 2-core
 * host under a test run and 16 clients, the server's tasks waiting 52-81 %
 * of the time they wanted a CPU, the device at 0.2 ms). On a saturated
 * host (>= 85 %: stress-ng on both cores beside 16 clients) the same syncs
 * took 1.5-5.5 ms above a 0.2-0.9 ms device: up to HOST_SYNC_GAP_SAT_MS
 * is the host's there. Between the two the bound rises with the share of
 * the time the server's tasks wait for a CPU (a step at 85 % let a spike
 * of 3-4 ms at 80 % offer the durability remedy on a busy host). A sync
 * slower than that above a fast device is the sync's own layer (a file
 * system, a virtual disk): the remedy stays. */
#define HOST_SYNC_GAP_MS 3.0
/* The device's part of a sync (the longer of its write and its flush,
 * logdev_sync_ms) is the sync's time, busy host or not, once it is at least
 * DEVICE_SLOW_SHARE of the sync and not a healthy device's (flushes here
 * 0.1-0.9 ms idle, 0.1-0.4 ms beside stress-ng): a competing writer on
 * the WAL's device raised its flush 0.18 -> 1.87 ms under a 2.45 ms WAL
 * sync, which a busy host alone (0.6 ms above the device) was taken for.
 * The flush alone is not enough: the sync's write waits in the same queue
 * (beside a CI run the writer left loop0's flush at 2.1 ms on average under
 * a 3.0 ms sync, and the flush-only rule called 6 of 12 intervals the
 * host's; the same writer here: writes 3.9-5.1 ms, flushes 2.8-4.3 ms) */
#define DEVICE_SLOWISH_MS 1.0
#define DEVICE_SLOW_SHARE 0.5
#define HOST_SATURATED_PCT 85.0
#define HOST_SYNC_GAP_SAT_MS 8.0
#define HOST_SYNC_RISE_PCT 70.0
/* seen beside stress-ng: the sync 1.4-7.5x (mean ~4x) the server's mean
 * wait for a CPU above the device (7.9 ms at a 1.7 ms wait; 8.2 ms at 1.3;
 * 16 ms at 4.6-6.8 ms on a host with a load average of 25) */
#define HOST_SYNC_WAKEUPS 8.0
/* ... and the rise with the wait share (3 -> 8 ms) only as far as the
 * waits are long: at most this many of the server's mean waits for a CPU
 * (beside stress-ng the sync rose 1-3.6 ms above the device at mean waits
 * of 0.14-1.5 ms, at most 9x; a 4 ms sleep in every fsync rose it 5.1 ms
 * at 77 % waiting with a mean wait of 0.15 ms, 34x: that is the sync's) */
#define HOST_SYNC_RISE_WAITS 16.0
/* the host's allowance never goes above this (75b beside two more CPU
 * hogs: a sync 29 ms above a 0.49 ms device at 98 % waiting with a mean
 * wait of 5.6 ms, 5.1 mean waits, was the host's; a 20 ms bound called it
 * the sync's and offered the durability setting) */
#define HOST_SYNC_GAP_MAX_MS 50.0
/* the commit finding's cause in force is kept unless the evidence for the
 * other is clear of the boundary by this factor: the server's wait for a
 * CPU (HOST_WAIT_BUSY_PCT) and the sync's stretch above the device (the
 * host's gap), each x or / CAUSE_KEEP (seen: pgbench -c 16 on a 3 ms WAL
 * sync beside stress-ng on both cores, the sync 2.5-3.5 ms above the
 * device against a 3 ms gap, the wait 45-60 %: the cause switched every
 * 6-20 s) */
#define CAUSE_KEEP 1.25
/* idle-root-blocker: a blocker idle in its transaction for a real while,
 * blocking for a real while (a client between two statements of a busy
 * transaction is idle for a millisecond: not a finding) */
#define IDLE_BLOCKER_IDLE_S 2.0
#define IDLE_BLOCKER_WAIT_S 1.0
/* ... and on a busy host (the server's tasks wait for a CPU, or the host
 * is under CPU pressure with more runnable tasks than cores: the clients
 * starve while the server idles) a client on it may itself wait seconds
 * for a CPU between two statements (seen: pgbench -c 16 beside stress-ng
 * on both cores, a client idle 3.0 s in its transaction with 12 sessions
 * behind it; pgbench --rate with idle gaps beside 4 CPU hogs, the server
 * not waiting, clients idle 2-4 s): there the idle time must be longer
 * than a starved client's gap */
#define IDLE_BLOCKER_BUSY_HOST_S LOCK_IDLE_LONG_S
#define SEMISYNC_SHARE 0.5
#define SEMISYNC_MIN_MS 1.0
#define GAP_REF_DECAY 0.8 /* the gap's reference: the longest interval before, x0.8 per interval since */

static double rate(const struct model *m, enum metric_id id)
{
	return m->cur[id].st == RATE_OK ? m->cur[id].v : NAN;
}

/* The COMMIT digest this interval, or NULL. */
static const struct digest_entry *commit_digest(const struct model *m)
{
	return digest_table_commit(&m->dg);
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

/* The wait event called name, or NULL. */
static const struct wait_entry *wait_named(const struct model *m, const char *name)
{
	const struct wait_entry *w[WAIT_MAX];
	size_t n = wait_table_ranked(&m->wt, w, WAIT_MAX);
	for (size_t i = 0; i < n; i++)
		if (strcmp(w[i]->name, name) == 0)
			return w[i];
	return NULL;
}

/* Does role or database target (scope k) hold value for tunable t in
 * pg_db_role_setting already (dbtop's change or an operator's)? */
static bool scoped_in_force(const struct model *m, const struct tunable *t, enum tune_kind k, const char *target,
			    const char *value)
{
	for (int i = 0; m->scoped_read && i < m->nscoped; i++) {
		const struct scoped_setting *x = &m->scoped[i];
		if (x->scope == k && strcmp(x->name, t->name) == 0 && strcmp(x->target, target) == 0 &&
		    strcasecmp(x->value, value) == 0)
			return true;
	}
	return false;
}

/* Point f at tunable name (flavour of m) and write the suggestion from that
 * row: the value a sets there (tunable_toggle of the value read now), the
 * exact SQL, the trade. One table entry, one remedy: screen 5 shows and
 * runs the same. lead: what the remedy does for this finding, or NULL. */
static void remedy(const struct model *m, struct finding *f, const char *name, const char *lead)
{
	const struct tunable *t = tunable_find(name, m->caps.flavour, 0);
	char sql[200];
	if (!t)
		return;
	f->tune = t;
	str_copy(f->value, sizeof f->value, tunable_toggle(t, model_setting(m, name)));
	if (tune_sql_apply(t, f->value, sql, sizeof sql) < 0)
		str_copy(sql, sizeof sql, "(unsafe value)");
	else if (tune_needs_reload(t->kind))
		str_printf(sql + strlen(sql), sizeof sql - strlen(sql), "; SELECT pg_reload_conf()");
	str_printf(f->suggestion, sizeof f->suggestion, "%s (screen 5, a; reverted on quit)%s%s. Risk: %s", sql,
		   lead ? ": " : "", lead ? lead : "", t->trade);
	/* one role's or one database's new sessions, when the evidence names one */
	struct scope_pick p;
	enum tune_kind k = findings_remedy_scope(m, t, &p);
	if (!tune_kind_scoped(k) || tune_sql_apply_in(t, k, p.name, f->value, sql, sizeof sql) < 0)
		return;
	char who[2 * TUNE_TARGET_MAX + 3];
	tune_target_text(p.name, who, sizeof who);
	if (scoped_in_force(m, t, k, p.name, f->value))
		str_printf(f->suggestion, sizeof f->suggestion,
			   "%s %s already has %s = %s (pg_db_role_setting): only its sessions started since take it; "
			   "the ones still waiting started before and keep %s until they reconnect (a pool's recycle); "
			   "it holds %s. The whole server instead: screen 5, s. Risk: %s",
			   tune_scope_name(k), who, t->name, f->value,
			   model_setting(m, t->name) ? model_setting(m, t->name) : "theirs", p.figure, t->trade);
	else
		str_printf(
			f->suggestion, sizeof f->suggestion,
			"%s (screen 5, a; new sessions %s %s %s only, running ones keep theirs; reverted on quit)%s%s; it "
			"holds %s. Risk: %s",
			sql, k == TK_PG_ROLE ? "of" : "in", tune_scope_name(k), who, lead ? ": " : "", lead ? lead : "",
			p.figure, t->trade);
	text_sanitize(f->suggestion);
}

enum tune_kind findings_remedy_scope(const struct model *m, const struct tunable *t, struct scope_pick *pick)
{
	struct scope_pick role, db;
	if (!t || !t->narrow || m->caps.engine != ENGINE_POSTGRESQL) {
		if (pick)
			memset(pick, 0, sizeof *pick);
		return t ? t->kind : 0;
	}
	double now = m->last.wall;
	scope_evidence_pick(&m->scope, true, now, &role);
	scope_evidence_pick(&m->scope, false, now, &db);
	if (pick)
		*pick = role.ok || !db.ok ? role : db;
	return role.ok ? TK_PG_ROLE : db.ok ? TK_PG_DATABASE : t->kind;
}

/* Where a slow commit's time goes, from the same interval: the disk (the
 * log device's own flush as slow as a slow sync), the host above the disk
 * (the device flushes fast and the server's threads wait for a CPU), or
 * the sync above the disk (the device fast, the host not busy: a file
 * system, a virtual disk, a filter driver). Without device figures (a
 * remote server, ZFS, a kernel before 5.5) the server's own figures carry
 * it, unless the host is busy: then the disk is not shown to be the cause. */
enum commit_cause { CAUSE_DISK, CAUSE_HOST, CAUSE_ABOVE, CAUSE_NODEV };

/* The log device's flush this interval (the first log directory's: redo
 * or WAL), or NULL when it is not known. */
static const struct logdev_rates *log_flush(const struct model *m)
{
	const struct logdev_rates *d = &m->ld.cur[0];
	if (m->ld.n < 1 || !d->ok || !d->has_flush || !(d->flushes_s > 0) || !isfinite(d->f_await_ms))
		return NULL;
	return d;
}

/* How far above the device's flush a busy host alone stretches a sync:
 * HOST_SYNC_GAP_MS up to HOST_SYNC_RISE_PCT of the time the server's
 * tasks wait for a CPU, rising in a line to HOST_SYNC_GAP_SAT_MS at
 * HOST_SATURATED_PCT (NaN: busy from the kernel's pressure alone, the
 * lower bound) but not above HOST_SYNC_RISE_WAITS mean waits, or
 * HOST_SYNC_WAKEUPS waits for a CPU when more, never above
 * HOST_SYNC_GAP_MAX_MS. */
static double host_sync_gap(const struct host_view *h)
{
	double pct = h->srv_wait_pct, gap = HOST_SYNC_GAP_MS;
	if (pct >= HOST_SATURATED_PCT)
		gap = HOST_SYNC_GAP_SAT_MS;
	else if (pct > HOST_SYNC_RISE_PCT)
		gap += (HOST_SYNC_GAP_SAT_MS - HOST_SYNC_GAP_MS) * (pct - HOST_SYNC_RISE_PCT) /
		       (HOST_SATURATED_PCT - HOST_SYNC_RISE_PCT);
	if (isfinite(h->srv_wait_ms) && gap > HOST_SYNC_GAP_MS) {
		double cap = HOST_SYNC_RISE_WAITS * h->srv_wait_ms;
		gap = cap < HOST_SYNC_GAP_MS ? HOST_SYNC_GAP_MS : cap < gap ? cap : gap;
	}
	/* a sync wakes a few of the server's threads, each waiting about
	 * srv_wait_ms for a CPU (more in the tail) */
	if (isfinite(h->srv_wait_ms) && HOST_SYNC_WAKEUPS * h->srv_wait_ms > gap)
		gap = HOST_SYNC_WAKEUPS * h->srv_wait_ms;
	return gap < HOST_SYNC_GAP_MAX_MS ? gap : HOST_SYNC_GAP_MAX_MS;
}

/* The device's writes beside its flush, when they are its part of a sync
 * (logdev_sync_ms: longer than the flush): ", its writes in 4.50 ms". */
static void device_writes(const struct logdev_rates *d, struct strbuf *e)
{
	if (logdev_sync_ms(d) > d->f_await_ms)
		sb_printf(e, ", its writes in %.2f ms", d->w_await_ms);
}

/* sync_ms: the server's own sync time this interval; without it (MariaDB
 * 10.8+ has no redo file instrument) the COMMIT latency cms, which holds up
 * to two syncs, against twice the bound (NaN: not measured). */
static bool in_force(const struct model *m, const char *id)
{
	for (size_t i = 0; i < m->findings.n; i++)
		if (strcmp(m->findings.f[i].id, id) == 0)
			return true;
	return false;
}

static enum commit_cause commit_cause(const struct model *m, double sync_ms, double cms)
{
	const struct logdev_rates *d = log_flush(m);
	double dev = d ? logdev_sync_ms(d) : 0;
	if (d && (dev >= SYNC_SLOW_MS ||
		  (dev >= DEVICE_SLOWISH_MS && isfinite(sync_ms) && dev >= DEVICE_SLOW_SHARE * sync_ms)))
		return CAUSE_DISK;
	/* the cause in force (m->findings: the interval before) holds at the
	 * boundary: the other needs its evidence CAUSE_KEEP clear of it */
	bool fsync_held = in_force(m, "commit-fsync");
	double keep = in_force(m, "commit-host-cpu") ? CAUSE_KEEP : fsync_held ? 1 / CAUSE_KEEP : 1;
	if (!host_view_busy_by(&m->host, 1 / keep))
		return d ? CAUSE_ABOVE : CAUSE_NODEV;
	/* on a busy host with nothing in force the sync's own layer, whose
	 * remedy gives up durability, also needs its stretch CAUSE_KEEP clear
	 * of the host's bound: the costlier mistake is to blame the sync */
	double gap = host_sync_gap(&m->host) * (fsync_held ? 1 / CAUSE_KEEP : CAUSE_KEEP);
	if (isfinite(sync_ms) ? sync_ms - dev >= gap : cms - dev >= 2 * gap)
		return d ? CAUSE_ABOVE : CAUSE_NODEV;
	return CAUSE_HOST;
}

/* The cause in the evidence: the device's flush beside the server's sync. */
static void cause_evidence(const struct model *m, enum commit_cause c, struct strbuf *e)
{
	const struct logdev_rates *d = log_flush(m);
	char h[240];
	if (d) {
		sb_printf(e, "; log device %s flushes in %.2f ms", d->name, d->f_await_ms);
		device_writes(d, e);
		sb_printf(e, " (%.0f flushes/s)", d->flushes_s);
	}
	if (c == CAUSE_DISK)
		sb_puts(e, ": the disk is slow");
	else if (c == CAUSE_ABOVE && m->host.ok)
		sb_puts(e, ": the sync's time is above the disk (a file system, a virtual disk), the host is not busy");
	else if (c == CAUSE_ABOVE)
		/* never an idle host that was not measured */
		sb_puts(e,
			": the sync's time is above the disk (a file system, a virtual disk, or a busy host: the host's "
			"CPU was not read)");
	else if (m->host.ok) {
		host_view_text(&m->host, h, sizeof h);
		sb_printf(e, "; host: %s", h);
	}
}

/* The lock waits a slow commit causes: sessions waiting on row locks of
 * committing sessions (held until their log flush ends), in the evidence
 * of the commit finding rather than as an incident of their own. */
static void commit_lock_evidence(const struct model *m, struct strbuf *e)
{
	int roots, n = lock_set_commit_waiters(m->locks, &roots);
	if (n > 0)
		sb_printf(e,
			  "; %d session%s wait%s on row locks held by %d committing session%s (their waits are this "
			  "finding's)",
			  n, n == 1 ? "" : "s", n == 1 ? "s" : "", roots, roots == 1 ? "" : "s");
}

/* Commits are slow and the log device is not: the server's threads wait
 * for a CPU. No setting is offered: giving up durability would not give
 * the host a core. sync_what: "binlog sync 2.40 ms" or "". */
static bool commit_host(const struct model *m, struct finding *f, double cms, double sync_ms, const char *sync_what,
			double commits)
{
	const struct logdev_rates *d = log_flush(m);
	char h[240];
	/* the sync's stretch above the device (per sync: a COMMIT holds two) */
	double dev = d ? logdev_sync_ms(d) : 0, over = isfinite(sync_ms) ? sync_ms - dev
						       : isfinite(cms)   ? (cms - dev) / 2
									 : NAN;
	double gap = host_sync_gap(&m->host);
	host_view_text(&m->host, h, sizeof h);
	f->id = "commit-host-cpu";
	f->severity = SEV_WARN;
	if (isfinite(cms))
		str_printf(f->summary, sizeof f->summary,
			   "commits are slow, but not from the disk: COMMIT %.1f ms, the "
			   "server waits for a CPU",
			   cms);
	else
		str_printf(f->summary, sizeof f->summary,
			   "commits are slow, but not from the disk: %s, the server waits "
			   "for a CPU",
			   sync_what);
	struct strbuf e;
	sb_init(&e);
	if (d) {
		sb_printf(&e, "log device %s flushes in %.2f ms", d->name, d->f_await_ms);
		device_writes(d, &e);
	} else
		sb_puts(&e, "no log device figures");
	if (sync_what[0])
		sb_printf(&e, " against %s", sync_what);
	sb_printf(&e, "; %.0f commits/s; host: %s", commits, h);
	/* the band where the two causes look alike: longer above the device
	 * than a busy host's usual stretch, within what a host this busy can
	 * add (seen: a 4 ms sleep in every fsync beside two CPU hogs) */
	bool band = over >= HOST_SYNC_GAP_MS && gap > HOST_SYNC_GAP_MS;
	if (band)
		sb_printf(&e,
			  "; the sync is %.1f ms above the device: more than a busy host usually adds (%.0f ms), "
			  "within what a host this busy can (%.1f ms), so a slow sync layer may be part of it",
			  over, HOST_SYNC_GAP_MS, gap);
	commit_lock_evidence(m, &e);
	str_copy(f->evidence, sizeof f->evidence, e.s);
	sb_free(&e);
	str_printf(f->suggestion, sizeof f->suggestion,
		   "find what else holds the CPUs (top / htop: a build, a backup, a batch job, a runaway process) or "
		   "give the server more cores; no durability setting is offered: the disk answers fast, so giving "
		   "up durability would not give the server a CPU%s",
		   band ? "; if commits stay slow once the CPUs are free, the sync's own layer is slow and dbtop "
			  "will say so"
			: "");
	return true;
}

/* The figures a slow MySQL/MariaDB commit is judged on. */
struct mysql_commit_figs {
	double cms, share, busy, redo_ms, bin_ms, commits;
	bool est;
	enum commit_cause cause;
};

/* The evidence of commit-fsync on MySQL/MariaDB, the figures and the settings. */
static void mysql_fsync_evidence(const struct model *m, const struct mysql_commit_figs *g, const char *flush,
				 const char *sb, char *out, size_t outsz)
{
	struct strbuf e;
	sb_init(&e);
	if (isfinite(g->cms))
		sb_printf(&e, "COMMIT avg %.1f ms%s", g->cms,
			  g->est && !isfinite(rate(m, M_COMMIT_MS)) ? " (estimate: sessions in COMMIT / commits/s)"
								    : "");
	if (isfinite(g->share))
		sb_printf(&e, ", %.0f%% of statement time%s", g->share * 100,
			  m->dg.sampled || g->est ? " (sampled estimate)" : "");
	else if (isfinite(g->busy))
		sb_printf(&e, ", ~%.1f sessions committing (estimate: commits/s x COMMIT avg)", g->busy);
	if (isfinite(g->redo_ms))
		sb_printf(&e, "%sredo sync %.2f ms", e.len ? "; " : "", g->redo_ms);
	if (isfinite(g->bin_ms))
		sb_printf(&e, "%sbinlog sync %.2f ms", e.len ? "; " : "", g->bin_ms);
	sb_printf(&e, "%s%.0f commits/s", e.len ? "; " : "", g->commits);
	if (isfinite(rate(m, M_FSYNCS_PER_COMMIT)))
		sb_printf(&e, ", %.2f fsyncs/commit", rate(m, M_FSYNCS_PER_COMMIT));
	cause_evidence(m, g->cause, &e);
	commit_lock_evidence(m, &e);
	sb_printf(&e,
		  "; innodb_flush_log_at_trx_commit=%s sync_binlog=%s (a healthy disk: COMMIT < %.0f ms, a sync "
		  "< %.0f ms)",
		  flush ? flush : "?", sb ? sb : "?", COMMIT_SLOW_MS, SYNC_SLOW_MS);
	str_copy(out, outsz, e.s);
	sb_free(&e);
}

/* Seeds 000 / 002, issue 25: commits are slow because each waits for a
 * durable sync of a slow disk. MySQL / MariaDB. */
static bool commit_fsync_mysql(const struct model *m, struct finding *f, double commits)
{
	const char *flush = model_setting(m, "innodb_flush_log_at_trx_commit"), *sb = model_setting(m, "sync_binlog");
	const char *lb = model_setting(m, "log_bin");
	/* a redo sync estimated from COMMIT (MariaDB 10.8+) is no measured sync */
	double redo_ms = m->cur[M_REDO_FSYNC_MS].est ? NAN : rate(m, M_REDO_FSYNC_MS),
	       bin_ms = rate(m, M_BINLOG_FSYNC_MS);
	bool flush1 = flush && strcmp(flush, "1") == 0;
	bool sb1 = sb && strcmp(sb, "1") == 0 && !(lb && strcasecmp(lb, "OFF") == 0) &&
		   !(rate(m, M_BINLOG_FSYNCS) == 0);
	/* the remedy: the per-commit sync not known to be fast, redo first */
	const char *name = NULL, *log = NULL;
	double sync_ms = NAN;
	if (flush1 && !(redo_ms < SYNC_SLOW_MS)) {
		name = "innodb_flush_log_at_trx_commit";
		log = "redo log";
		sync_ms = redo_ms;
	} else if (sb1 && !(bin_ms < SYNC_SLOW_MS)) {
		name = "sync_binlog";
		log = "binary log";
		sync_ms = bin_ms;
	}
	if (!name)
		return false;
	const struct digest_entry *d = commit_digest(m);
	/* a sampled COMMIT (prepared statements have no digest): its time is
	 * the sessions found in COMMIT, its latency by Little's law */
	bool est = d && digest_is_estimate(&m->dg, d);
	double cms = d && !est && isfinite(d->avg_ms) ? d->avg_ms : rate(m, M_COMMIT_MS);
	if (!isfinite(cms) && est && d->known && commits > 0)
		cms = d->rate[DG_TOTAL_NS] / 1e9 / commits * 1000;
	double share = d && d->known && m->dg.total_ms_per_s > 0 ? d->rate[DG_TOTAL_NS] / 1e6 / m->dg.total_ms_per_s : NAN;
	double busy = commits * cms / 1000;   /* sessions committing on average (Little's law) */
	/* latency: COMMIT slow when measured, else the sync itself; an
	 * estimate needs twice the margin unless a sync is measured slow */
	bool sync_slow = redo_ms >= SYNC_SLOW_MS || bin_ms >= SYNC_SLOW_MS;
	if (isfinite(cms) ? cms < (est && !isfinite(rate(m, M_COMMIT_MS)) && !sync_slow ? COMMIT_EST_SLOW_MS : COMMIT_SLOW_MS)
			  : !(sync_ms >= SYNC_SLOW_MS))
		return false;
	/* weight: COMMIT a large share of statement time */
	if (isfinite(share) ? share < COMMIT_SHARE_MIN : !(busy >= COMMIT_BUSY_MIN))
		return false;
	double srv_sync = isfinite(redo_ms) && isfinite(bin_ms) ? (redo_ms > bin_ms ? redo_ms : bin_ms)
			  : isfinite(redo_ms)                   ? redo_ms
								: bin_ms;
	enum commit_cause cause = commit_cause(m, srv_sync, cms);
	if (cause == CAUSE_HOST) {
		char sw[64] = "";
		if (isfinite(sync_ms))
			str_printf(sw, sizeof sw, "%s sync %.2f ms", strcmp(log, "redo log") == 0 ? "redo" : "binlog",
				   sync_ms);
		else if (isfinite(bin_ms))
			str_printf(sw, sizeof sw, "binlog sync %.2f ms", bin_ms);
		return commit_host(m, f, cms, srv_sync, sw, commits);
	}
	struct mysql_commit_figs g = {cms, share, busy, redo_ms, bin_ms, commits, est, cause};
	mysql_fsync_evidence(m, &g, flush, sb, f->evidence, sizeof f->evidence);
	f->severity = SEV_WARN;
	if (isfinite(cms))
		str_printf(f->summary, sizeof f->summary, "commits wait on fsync: COMMIT %.1f ms", cms);
	else
		str_printf(f->summary, sizeof f->summary, "commits wait on fsync: %.1f ms per %s sync", sync_ms, log);
	remedy(m, f, name, strcmp(name, "sync_binlog") == 0 ? "the binary log is synced at every commit"
							   : "commits stop waiting for the redo sync");
	return f->tune != NULL;
}

/* The same on PostgreSQL: commits wait for their WAL flush (synchronous_commit
 * not off) and the flush is slow. pg_stat_statements does not time the
 * flush of a COMMIT, so the evidence is the WAL sync time, measured
 * (track_wal_io_timing) or estimated from the sampled IO:WALSync waits, and
 * its weight: the WAL waits lead, or the flush is busy most of the time
 * (flushes are serial: commits queue behind it, and a row lock held until
 * the flush ends can lead the waits instead). */
static bool commit_fsync_pg(const struct model *m, struct finding *f, double commits)
{
	const char *sc = model_setting(m, "synchronous_commit");
	const struct wait_entry *w = top_wait(m), *ws = wait_named(m, "IO:WALSync");
	double syncs = rate(m, M_WAL_SYNCS), per = rate(m, M_FSYNCS_PER_COMMIT), sync_ms = rate(m, M_WAL_SYNC_MS);
	bool est = false;
	if (!sc || strcasecmp(sc, "off") == 0 || !(syncs > 0))
		return false;
	if (!isfinite(sync_ms) && ws && isfinite(ws->aas)) {
		sync_ms = ws->aas * 1000 / syncs;   /* time waiting per sync = AAS / syncs per second */
		est = true;
	}
	if (!(sync_ms >= SYNC_SLOW_MS))
		return false;
	/* commits that flush themselves: a flush serves the commits that came
	 * during the one before, so at least 1 / (1 + commits/s x sync time)
	 * syncs per commit; far fewer: the sessions commit asynchronously (a
	 * role's own setting) and the WAL writer does the syncing */
	double least = 1 / (1 + commits * sync_ms / 1000);
	if (!(per >= WAL_GROUP_SHARE * least))
		return false;
	double busy = syncs * sync_ms / 1000;
	bool lead = w && w->cls == WC_WAL;
	if (!lead && !(busy >= WAL_FLUSH_BUSY))
		return false;
	enum commit_cause cause = commit_cause(m, sync_ms, NAN);
	if (cause == CAUSE_HOST) {
		char sw[64];
		str_printf(sw, sizeof sw, "WAL sync %.2f ms%s", sync_ms, est ? " (estimate)" : "");
		return commit_host(m, f, NAN, sync_ms, sw, commits);
	}
	f->severity = SEV_WARN;
	if (lead)
		str_printf(f->summary, sizeof f->summary, "commits wait on the WAL flush: %.1f ms per sync, %s leads the waits",
			   sync_ms, w->name);
	else
		str_printf(f->summary, sizeof f->summary, "commits wait on the WAL flush: %.1f ms per sync, busy %.0f%% of the time",
			   sync_ms, busy * 100);
	struct strbuf e;
	sb_init(&e);
	sb_printf(&e, "WAL sync %.2f ms%s; the flush busy ~%.0f%% of the time (estimate: syncs/s x sync time)", sync_ms,
		  est ? " (estimate from the sampled IO:WALSync waits)" : "", busy * 100);
	if (w)
		sb_printf(&e, "; %s leads the waits, %.2f active sessions", w->name, w->aas);
	cause_evidence(m, cause, &e);
	commit_lock_evidence(m, &e);
	sb_printf(&e, "; %.0f commits/s, %.2f WAL syncs/commit; synchronous_commit=%s (a healthy disk: a sync < %.0f ms)",
		  commits, per, sc, SYNC_SLOW_MS);
	str_copy(f->evidence, sizeof f->evidence, e.s);
	sb_free(&e);
	remedy(m, f, "synchronous_commit", "commits stop waiting for the WAL flush");
	return f->tune != NULL;
}

/* Seeds 000 / 002 / 004: waiting for the sync is what makes commits slow. A
 * healthy durable server (fast syncs) stays quiet. */
static bool rule_commit_fsync(const struct model *m, struct finding *f)
{
	double commits = rate(m, M_COMMITS);
	if (!(commits >= MIN_COMMITS_PER_S))
		return false;
	return m->caps.engine == ENGINE_MYSQL ? commit_fsync_mysql(m, f, commits) : commit_fsync_pg(m, f, commits);
}

/* Sessions waiting on anything but the CPU this interval (AAS). */
static double waiting_aas(const struct model *m)
{
	const struct wait_entry *w[WAIT_MAX];
	size_t n = wait_table_ranked(&m->wt, w, WAIT_MAX);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		if (w[i]->cls != WC_CPU && w[i]->aas > 0)
			sum += w[i]->aas;
	return sum;
}

/* PostgreSQL: commits wait in IPC:SyncRep for the synchronous standby. */
static bool syncrep_pg(const struct model *m, struct finding *f)
{
	const struct wait_entry *w = wait_named(m, "IPC:SyncRep"), *top = top_wait(m);
	const char *names = model_setting(m, "synchronous_standby_names"), *sc = model_setting(m, "synchronous_commit");
	if (!w || !(w->aas >= SYNCREP_MIN_AAS))
		return false;
	double all = waiting_aas(m), commits = rate(m, M_COMMITS);
	if (top != w && !(w->aas >= SYNCREP_SHARE * all))
		return false;
	/* the wait per commit (Little's law; no commits: all of it) */
	double per = commits > 0 ? w->aas * 1000 / commits : INFINITY;
	if (!(per >= SYNCREP_SLOW_MS))
		return false;
	const struct repl_standby *sb = m->repl.known ? repl_sync_standby(&m->repl.r) : NULL;
	struct strbuf e;
	sb_init(&e);
	sb_printf(&e, "IPC:SyncRep %.2f active sessions, %.0f%% of the waiting%s", w->aas, all > 0 ? w->aas / all * 100 : 100,
		  top == w ? " (the top wait)" : "");
	if (isfinite(per))
		sb_printf(&e, ", ~%.1f ms per commit (estimate: sessions waiting / commits/s; a healthy nearby standby: "
			  "< %.0f ms)", per, SYNCREP_SLOW_MS);
	else
		sb_puts(&e, ", no commit completed");
	if (sb) {
		char fb[16], fm[16], rb[16], rm[16];
		str_bytes((double)sb->flush_b, fb, sizeof fb);
		repl_fmt_ms(sb->flush_ms, fm, sizeof fm);
		str_bytes((double)sb->replay_b, rb, sizeof rb);
		repl_fmt_ms(sb->replay_ms, rm, sizeof rm);
		sb_printf(&e, "; standby %s (%s, %s%s%s): flush lag %s / %s, replay lag %s / %s", sb->name, sb->sync_state,
			  sb->state, sb->addr[0] ? ", " : "", sb->addr, fb, fm, rb, rm);
		if (isfinite(sb->reply_s))
			sb_printf(&e, ", last reply %.1f s ago", sb->reply_s);
		f->severity = SEV_WARN;
		if (repl_stalled_s(sb) > 0)
			str_printf(f->summary, sizeof f->summary, "commits wait for standby %s: no reply for %.0f s, %s "
				   "unflushed, IPC:SyncRep %.1f sessions", sb->name[0] ? sb->name : "?", repl_stalled_s(sb),
				   fb, w->aas);
		else
			str_printf(f->summary, sizeof f->summary, "commits wait for standby %s: flush lag %s, IPC:SyncRep %.1f sessions",
				   sb->name[0] ? sb->name : "?", isfinite(sb->flush_ms) ? fm : fb, w->aas);
	} else {
		f->severity = SEV_CRIT;
		str_printf(f->summary, sizeof f->summary, "commits wait for a synchronous standby%s: IPC:SyncRep %.1f sessions",
			   m->repl.known && !m->repl.r.hidden ? " that is not connected" : "", w->aas);
		if (m->repl.known && m->repl.r.hidden)
			sb_printf(&e, "; the standbys' state is hidden from this user (%s)", fix_brief(FIX_PG_REPL_STATS));
	}
	sb_printf(&e, "; synchronous_commit=%s synchronous_standby_names='%s'", sc ? sc : "?", names ? names : "?");
	if (isfinite(commits))
		sb_printf(&e, "; %.0f commits/s", commits);
	str_copy(f->evidence, sizeof f->evidence, e.s);
	sb_free(&e);
	str_copy(f->suggestion, sizeof f->suggestion, fixes[FIX_SYNCREP_WAIT].fix);
	return true;
}

/* MySQL / MariaDB: commits wait for the semi-sync acknowledgement. */
static bool semisync_my(const struct model *m, struct finding *f)
{
	const struct repl *r = &m->repl.r;
	const struct repl_rates *rt = &m->repl.rt;
	double commits = rate(m, M_COMMITS), cms = rate(m, M_COMMIT_MS), ack = rt->avg_wait_ms;
	if (r->kind != REPL_SEMISYNC || r->ss_status != 1 || !(ack >= SEMISYNC_MIN_MS) || !(commits >= MIN_COMMITS_PER_S))
		return false;
	if (isfinite(cms) ? ack < SEMISYNC_SHARE * cms : !(ack >= SYNC_SLOW_MS))
		return false;
	const char *pre = r->ss_source ? "rpl_semi_sync_source" : "rpl_semi_sync_master";
	f->severity = SEV_WARN;
	if (isfinite(cms))
		str_printf(f->summary, sizeof f->summary, "commits wait for the semi-sync replica: ack %.1f ms of COMMIT %.1f ms",
			   ack, cms);
	else
		str_printf(f->summary, sizeof f->summary, "commits wait for the semi-sync replica: ack %.1f ms", ack);
	struct strbuf e;
	sb_init(&e);
	sb_printf(&e, "ack wait %.2f ms per commit this interval", ack);
	if (isfinite(rt->net_avg_ms))
		sb_printf(&e, " (the replica's reply %.2f ms)", rt->net_avg_ms);
	sb_printf(&e, "; %llu semi-sync client%s, %llu session%s waiting now; acked/s %.1f, not acked/s %.1f; %.0f commits/s",
		  (unsigned long long)r->ss[SS_CLIENTS], r->ss[SS_CLIENTS] == 1 ? "" : "s",
		  (unsigned long long)r->ss[SS_WAIT_SESSIONS], r->ss[SS_WAIT_SESSIONS] == 1 ? "" : "s",
		  isfinite(rt->yes_per_s) ? rt->yes_per_s : 0, isfinite(rt->no_per_s) ? rt->no_per_s : 0, commits);
	if (r->timeout_ms >= 0)
		sb_printf(&e, "; %s_timeout=%lld ms", pre, (long long)r->timeout_ms);
	if (r->wait_point[0])
		sb_printf(&e, " %s_wait_point=%s", pre, r->wait_point);
	str_copy(f->evidence, sizeof f->evidence, e.s);
	sb_free(&e);
	str_copy(f->suggestion, sizeof f->suggestion, fixes[FIX_SEMISYNC_WAIT].fix);
	return true;
}

/* Commits wait mostly for a synchronous standby / a semi-sync replica. */
static bool rule_sync_replica(const struct model *m, struct finding *f)
{
	return m->caps.engine == ENGINE_POSTGRESQL ? syncrep_pg(m, f) : semisync_my(m, f);
}

/* True when q is an INSERT ... ON DUPLICATE KEY UPDATE (an upsert). */
static bool is_upsert(const char *q)
{
	return q && strcasestr(q, "ON DUPLICATE KEY UPDATE");
}

/* Seed 001: upserts (INSERT ... ON DUPLICATE KEY UPDATE) wait on each
 * other. An upsert that hits the duplicate takes an exclusive next-key lock
 * on it and keeps it until COMMIT (MySQL 8 also leaves a gap lock on
 * PRIMARY after its partial rollback): an insert into that gap waits with
 * its insert intention (MySQL X,GAP,INSERT_INTENTION; MariaDB names it
 * X,GAP), an upsert of the same key with X. An application fix: no setting
 * is offered. */
static bool rule_upsert_gap(const struct model *m, struct finding *f)
{
	const struct lock_set *ls = m->locks;
	if (!ls || ls->status != LOCKS_READ)
		return false;
	for (size_t k = 0; k < ls->ne; k++) {
		const struct lock_edge *e = &ls->e[k];
		const struct lock_session *b = &ls->s[e->blocker], *w = &ls->s[e->waiter];
		bool up_b = is_upsert(b->query), up_w = is_upsert(w->query);
		bool gap = strstr(e->requested, "GAP") != NULL;
		bool ii = strstr(e->requested, "INSERT_INTENTION") ||
			  (gap && w->query && strncasecmp(w->query, "INSERT", 6) == 0);
		/* an insert into a gap lock, or an upsert waiting on an upsert's key */
		if (!(gap && (ii || up_b) && (strstr(e->held, "GAP") || up_b || up_w)) &&
		    !(up_w && strcmp(e->requested, "X") == 0))
			continue;
		f->severity = SEV_WARN;
		/* the modes as the server names them, requested <- held */
		if (gap)
			str_printf(f->summary, sizeof f->summary, "inserts wait on %s: %s <- %s on %s",
				   up_b || up_w ? "an upsert's lock" : "a gap lock", e->requested, e->held, e->object);
		else
			str_printf(f->summary, sizeof f->summary, "upserts wait on each other: %s <- %s on %s", e->requested,
				   e->held, e->object);
		str_printf(f->evidence, sizeof f->evidence, "session %lld requested %s <- held %s by %lld on %s%s%.80s",
			   w->id, e->requested, e->held, b->id, e->object, up_b ? "; blocker ran: " : "",
			   up_b ? b->query : "");
		str_copy(f->suggestion, sizeof f->suggestion,
			 "an application fix, no setting changes it: read first (a plain SELECT by the unique key) and "
			 "upsert only when the row is missing or changed (seed 001: 559 -> 1,724 req/s), or commit the "
			 "upsert in a short transaction of its own. INSERT ... ON DUPLICATE KEY UPDATE that hits the "
			 "duplicate holds an exclusive next-key lock on it until COMMIT");
		return true;
	}
	return false;
}

/* idle-root-blocker's words: the blocker b as the graph's read saw it, age
 * s ago (idle, the longest wait behind it: wait); busy: named as maybe
 * starved, host_now: the host is busy now (else it was while b idled). */
static void idle_blocker_text(struct finding *f, const struct lock_session *b, double wait, double age, bool busy,
			      bool host_now)
{
	struct lock_session seen = *b;
	seen.state_s -= age;
	char st[96];
	lock_state_text(&seen, st, sizeof st);
	/* critical: end it; on a busy host a warning: its client may be
	 * starved, not stuck (pgbench -c 16 beside stress-ng on both cores:
	 * a client idle 3 s in its transaction, 12 sessions behind it) */
	f->severity = busy ? SEV_WARN : SEV_CRIT;
	char idle[24] = "", wt[32] = "", when[40] = "";
	if (isfinite(seen.state_s))
		str_printf(idle, sizeof idle, " for %.1f s", seen.state_s);
	if (isfinite(wait))
		str_printf(wt, sizeof wt, " (for %.1f s)", wait);
	if (age >= 0.5)
		str_printf(when, sizeof when, ", as read %.0f s ago", age);
	str_printf(f->summary, sizeof f->summary, "session %lld, idle in its transaction%s, blocks %d session%s%s%s",
		   b->id, idle, b->blocked, b->blocked == 1 ? "" : "s", wt, when);
	char ws[48] = "";
	if (isfinite(wait))
		str_printf(ws, sizeof ws, "; the longest wait behind it %.1f s", wait);
	str_printf(f->evidence, sizeof f->evidence, "%lld (%s) %s%s; %s%.100s%s", b->id, b->user, st, ws,
		   b->query ? (b->query_is_last ? "last statement: " : "statement: ") : "", b->query ? b->query : "",
		   !busy ? ""
		   : host_now
			   ? "; the host's CPUs are busy: a client starved of CPU can sit this long in its transaction"
			   : "; the host's CPUs were busy while it idled: a client starved of CPU can sit this long in "
			     "its transaction");
}

/* A root blocker sitting idle in its transaction: idle for at least
 * IDLE_BLOCKER_IDLE_S and blocking for at least IDLE_BLOCKER_WAIT_S (a
 * figure the server does not give counts as met), both as a read of the
 * graph saw them: a graph kept under --server-budget says "as long as it
 * has lasted since", which is no proof (seen: pgbench clients seen idle
 * 1-3 s on a saturated host, the graph kept 12 s, named as idle 12-14 s
 * while the server never saw one idle 1 s; the source reads the graph
 * again when a blocker's claim would be due: lock_set_idle_recheck). */
static bool rule_idle_blocker(const struct model *m, struct finding *f)
{
	const struct lock_set *ls = m->locks;
	const struct lock_session *worst = NULL;
	double worst_wait = NAN, age = ls && ls->age_s > 0 ? ls->age_s : 0;
	if (!ls || ls->status != LOCKS_READ)
		return false;
	bool busy = false;
	for (size_t i = 0; i < ls->ns; i++) {
		const struct lock_session *s = &ls->s[i];
		if (!lock_session_idle_blocker(s))
			continue;
		/* the clients may be starved while the server is not (the host's
		 * own pressure counts too), and a client idle since before the
		 * host's newest busy interval may have been starved then */
		bool starved =
			host_view_busy(&m->host) || host_view_pressured(&m->host) || m->host_busy_s <= s->state_s;
		if (!(s->state_s - age >= (starved ? IDLE_BLOCKER_BUSY_HOST_S : IDLE_BLOCKER_IDLE_S)))
			continue;
		double w = lock_chain_wait(ls, (int)i) - age;
		if (w < IDLE_BLOCKER_WAIT_S)
			continue;
		if (!worst || s->blocked > worst->blocked) {
			worst = s;
			worst_wait = w;
			busy = starved;
		}
	}
	if (!worst)
		return false;
	idle_blocker_text(f, worst, worst_wait, age, busy, host_view_busy(&m->host) || host_view_pressured(&m->host));
	/* on a busy host the client may be starved, not stuck: look first */
	str_copy(f->suggestion, sizeof f->suggestion,
		 busy ? "look at its client first (starved of CPU, or stuck?); if stuck, end it with x on screen 3 "
			"(its transaction rolls back) and find the code path that leaves a transaction open"
		      : "end it with x on screen 3 (its transaction rolls back); then find the code path that leaves a "
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
	const char *d = model_setting(m, "wal_writer_delay");
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
	remedy(m, f, "wal_writer_delay", "fewer, larger WAL flushes");
	return f->tune != NULL;
}

/* Statement statistics missing: the digests are estimates. */
static bool rule_no_statistics(const struct model *m, struct finding *f)
{
	if (!m->have_caps)
		return false;
	if (m->caps.engine == ENGINE_MYSQL && !m->caps.ps_digests) {
		f->severity = SEV_INFO;
		str_copy(f->summary, sizeof f->summary, "no statement statistics: digests are sampled estimates");
		const struct fix *fx = &fixes[m->caps.perf_schema ? FIX_PS_SELECT : FIX_PS_OFF];
		str_copy(f->evidence, sizeof f->evidence, fx->missing);
		str_copy(f->suggestion, sizeof f->suggestion, fx->fix);
		return true;
	}
	if (m->caps.engine == ENGINE_POSTGRESQL && !m->caps.pgss_version) {
		f->severity = SEV_INFO;
		str_copy(f->summary, sizeof f->summary, "no statement statistics: digests are sampled estimates");
		/* loaded: only the extension is missing here */
		const struct fix *fx = &fixes[m->caps.pgss_loaded ? FIX_PGSS_EXTENSION : FIX_PGSS_INSTALL];
		str_copy(f->evidence, sizeof f->evidence, fx->missing);
		str_copy(f->suggestion, sizeof f->suggestion, fx->fix);
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
	{"commit-sync-replica", "rates", rule_sync_replica},
	{"upsert-gap-lock", "locks", rule_upsert_gap},
	{"wal-writer-busy", "waits", rule_wal_writer},
	{"no-statement-statistics", "digests", rule_no_statistics},
};

/* How findings and lock chains come and go; docs/screen.md "Steady findings"
 * says the same. A raw rule under a steady load holds in most intervals,
 * not all (a sampled estimate, a commit wave between two reads): a finding
 * is raised once its rule held in 2 of the last 3 intervals (a one-interval
 * blip raises nothing) and cleared after 3 intervals in a row without it,
 * so its first and last moments are the incident's, not every dip. Lock
 * chains of normal row contention (16 pgbench clients: chains of 1-2 s)
 * are no event; one that lasted 3 s is. */
static const struct hold_rule hold_rules[] = {
	{.what = "finding", .raise_k = 2, .raise_n = 3, .clear_quiet = 3, .cause_run = 6, .gap_x = 5},
	{.what = "lock-chain", .last_s = 3.0},
};

const struct hold_rule *hold_rule_for(const char *what)
{
	for (size_t i = 0; what && i < sizeof hold_rules / sizeof hold_rules[0]; i++)
		if (strcmp(hold_rules[i].what, what) == 0)
			return &hold_rules[i];
	return &hold_rules[0];
}

int findings_warmup(void)
{
	int w = 0;
	for (size_t i = 0; i < sizeof hold_rules / sizeof hold_rules[0]; i++) {
		const struct hold_rule *h = &hold_rules[i];
		/* raised, then its cause in force confirmed or cleared */
		int n = h->raise_n + (h->cause_run > h->clear_quiet ? h->cause_run : h->clear_quiet);
		if (n > w)
			w = n;
	}
	return w;
}

/* Every rule on m, in rule order: out[i] from rules[rule[i]]. */
static size_t eval_rules(const struct model *m, struct finding *out, int *rule, size_t max)
{
	size_t n = 0;
	if (m->last.state != STATE_UP)
		return 0;
	for (size_t i = 0; i < sizeof rules / sizeof rules[0] && n < max; i++) {
		struct finding *f = &out[n];
		memset(f, 0, sizeof *f);
		if (!rules[i].fn(m, f))
			continue;
		if (!f->id) /* a rule may name what it found (commit-fsync: commit-host-cpu) */
			f->id = rules[i].id;
		f->pane = rules[i].pane;
		text_sanitize(f->summary);
		text_sanitize(f->evidence);
		rule[n++] = (int)i;
	}
	return n;
}

/* Most severe first, rule order otherwise. */
static void sort_findings(struct finding *f, int *rule, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && (f[j].severity > f[j - 1].severity ||
					     (f[j].severity == f[j - 1].severity && rule[j] < rule[j - 1]));
		     j--) {
			struct finding t = f[j];
			int r = rule[j];
			f[j] = f[j - 1];
			rule[j] = rule[j - 1];
			f[j - 1] = t;
			rule[j - 1] = r;
		}
}

size_t findings_eval(const struct model *m, struct finding *out, size_t max)
{
	int rule[FINDINGS_MAX * 2];
	size_t n = eval_rules(m, out, rule, max < FINDINGS_MAX * 2 ? max : FINDINGS_MAX * 2);
	sort_findings(out, rule, n);
	return n;
}

/* The last n intervals' bits of a seen mask. */
static unsigned last_n(int n)
{
	return n >= 32 ? ~0u : (1u << n) - 1;
}

static int popcount(unsigned v)
{
	int n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

/* Age every followed rule by one interval. */
static void track_age(struct finding_set *fs)
{
	for (size_t k = 0; k < fs->ntrack; k++) {
		fs->track[k].seen <<= 1;
		fs->track[k].alt_seen <<= 1;
		fs->track[k].f.quiet++;
		if (fs->track[k].off >= 0)
			fs->track[k].off++;
	}
}

/* Follow this interval's raw findings: a rule new to the set starts a track;
 * one in force under another cause switches only once that cause held in
 * every one of cause_run intervals, twice as long as the finding needs to
 * clear (a host busy for a moment is no change of cause: PG 15 on a 3 ms WAL
 * sync beside stress-ng held the host's evidence 3-4 s in a row and went
 * back); till then the one in force is held. */
static void track_raw(struct finding_set *fs, const struct finding *raw, const int *rule, size_t nraw)
{
	for (size_t i = 0; i < nraw; i++) {
		size_t k;
		for (k = 0; k < fs->ntrack && fs->track[k].rule != rule[i]; k++)
			;
		if (k == fs->ntrack) {
			if (fs->ntrack == FINDINGS_TRACK)
				continue; /* more rules than followed at once */
			fs->ntrack++;
			memset(&fs->track[k], 0, sizeof fs->track[k]);
			fs->track[k].off = -1;
		}
		struct finding_track *t = &fs->track[k];
		t->seen |= 1;
		t->rule = rule[i];
		if (t->raised && strcmp(t->f.id, raw[i].id) != 0) {
			const struct hold_rule *h = hold_rule_for(t->f.id);
			unsigned window = last_n(h->cause_run);
			t->alt = raw[i];
			t->alt_seen |= 1;
			if ((t->alt_seen & window) != window)
				continue;
		}
		t->alt_seen = 0;
		t->f = raw[i];
		t->f.quiet = 0;
	}
}

/* The finding in force of a raised track, with the other cause pending. */
static void publish_track(const struct finding_track *t, struct finding *o)
{
	*o = t->f;
	o->pending = NULL;
	o->pending_run = 0;
	for (unsigned a = t->alt_seen; a & 1; a >>= 1)
		o->pending_run++;
	if (o->pending_run > 0)
		o->pending = t->alt.id;
}

/* Raise, hold, clear; forget what is neither in force nor recent. */
static void track_settle(struct finding_set *fs)
{
	fs->n = fs->recent = 0;
	int frule[FINDINGS_MAX];
	for (size_t k = 0; k < fs->ntrack; k++) {
		struct finding_track *t = &fs->track[k];
		const struct hold_rule *h = hold_rule_for(t->f.id);
		unsigned window = last_n(h->raise_n);
		unsigned quiet_window = last_n(h->clear_quiet);
		if (!t->raised && t->f.quiet == 0 && popcount(t->seen & window) >= h->raise_k)
			t->raised = true;
		else if (t->raised && (t->seen & quiet_window) == 0)
			t->raised = false; /* its rule quiet, under any cause */
		if (t->raised)
			t->off = 0;
		if (!t->raised && (t->seen & window) == 0 && (t->off < 0 || t->off > h->clear_quiet)) {
			fs->track[k--] = fs->track[--fs->ntrack];
			continue;
		}
		if (t->off >= 0 && t->off <= h->clear_quiet)
			fs->recent++;
		if (t->raised && fs->n < FINDINGS_MAX) {
			frule[fs->n] = t->rule;
			publish_track(t, &fs->f[fs->n++]);
		}
	}
	sort_findings(fs->f, frule, fs->n);
}

void findings_update(struct model *m)
{
	struct finding_set *fs = &m->findings;
	struct finding raw[FINDINGS_MAX];
	int rule[FINDINGS_MAX];
	const struct hold_rule *any = hold_rule_for("finding");
	double dt = m->interval_s;
	/* not UP, a new connection (no interval), a gap: start over. A gap
	 * is measured against the intervals before, not the last one alone:
	 * a host stalled for 2 s gives one late refresh and then a catch-up
	 * tick of 0.1 s, and the regular 1 s after it is no gap (CI: both
	 * engines' commit-fsync cleared and raised again on the next second) */
	if (m->last.state != STATE_UP || !(dt > 0) || (fs->last_dt > 0 && dt > any->gap_x * fs->last_dt)) {
		fs->n = fs->ntrack = fs->recent = 0;
		fs->last_dt = dt > 0 ? dt : 0;
		if (m->last.state != STATE_UP)
			return;
	} else {
		fs->last_dt = dt > GAP_REF_DECAY * fs->last_dt ? dt : GAP_REF_DECAY * fs->last_dt;
	}
	size_t nraw = eval_rules(m, raw, rule, FINDINGS_MAX);
	track_age(fs);
	track_raw(fs, raw, rule, nraw);
	track_settle(fs);
}

const struct tunable *findings_top_remedy(const struct finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].tune)
			return f[i].tune;
	return NULL;
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
		if (f[i].tune) {
			sb_puts(out, ",\"setting\":");
			json_str(out, f[i].tune->name);
			sb_puts(out, ",\"value\":");
			json_str(out, f[i].value);
		}
		if (f[i].quiet > 0) /* held: the evidence is of that many intervals ago */
			sb_printf(out, ",\"quiet\":%d", f[i].quiet);
		if (f[i].pending) { /* held under another cause, not yet switched */
			sb_puts(out, ",\"pending\":{\"id\":");
			json_str(out, f[i].pending);
			sb_printf(out, ",\"intervals\":%d,\"needed\":%d}", f[i].pending_run,
				  hold_rule_for(f[i].id)->cause_run);
		}
		sb_putc(out, '}');
	}
	sb_putc(out, ']');
}
