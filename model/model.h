/* model.h - the pure model: raw samples in, per-interval rates and history
 * out. No curses, no database headers. model_update() is the only writer. */
#ifndef DBTOP_MODEL_H
#define DBTOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/sample.h"
#include "../core/caps.h"
#include "digests.h"
#include "findings.h"
#include "forecast.h"
#include "locks.h"
#include "logdev_rates.h"
#include "host_rates.h"
#include "sessions.h"
#include "scope.h"
#include "waits.h"
#include "replication.h"
#include "release.h"
#include "ring.h"

/* Why a rate has (or lacks) a value this interval. */
enum rate_status {
	RATE_OK = 0,
	RATE_INIT,     /* first sample, or first after a reconnection */
	RATE_RESET,    /* counter went down, server restarted, stats reset */
	RATE_DOWN,     /* no data this interval (DOWN / STALLED) */
	RATE_UNAVAIL,  /* the server does not provide the counter */
	RATE_UNDEF,    /* ratio with a zero denominator (e.g. no commits) */
};

enum metric_kind {
	MK_RATE,       /* Δa / Δt */
	MK_RATE_NET,   /* max(0, Δa - Δb) / Δt (b: dbtop's own share) */
	MK_RATIO,      /* metric a / metric b of this interval */
	MK_AVG_MS,     /* Δa(ns) / Δb(count) / 1e6 */
	MK_PER_RUN,    /* metric a per benchmark run (M_RUNS) over the newest runs (model_runs) */
};

/* engines a metric is reported for */
#define ENG_MY (1u << ENGINE_MYSQL)
#define ENG_PG (1u << ENGINE_POSTGRESQL)

enum metric_id {
	M_COMMITS, M_ROLLBACKS, M_FSYNCS, M_FSYNCS_PER_COMMIT,
	M_COM_COMMIT, M_HANDLER_COMMIT,
	M_REDO_FSYNCS, M_REDO_FSYNC_MS, M_BINLOG_FSYNCS, M_BINLOG_FSYNC_MS,
	M_BINLOG_COMMITS, M_BINLOG_GROUP_COMMITS, M_BINLOG_COMMITS_PER_GROUP,
	M_DATA_FSYNCS, M_REDO_WRITES, M_REDO_BYTES,
	M_WAL_RECORDS, M_WAL_FPI, M_WAL_BYTES, M_WAL_BUFFERS_FULL,
	M_WAL_WRITES, M_WAL_WRITE_MS, M_WAL_SYNCS, M_WAL_SYNC_MS, M_WAL_BYTES_PER_COMMIT,
	M_COMMIT_MS,
	M_STMTS, M_EXEC_STMTS, M_OWN_STMTS,
	M_RUNS, M_RUN_S, M_RUN_FSYNCS,
	M__COUNT
};

struct metric_def {
	enum metric_id id;
	const char *key;    /* JSON key */
	const char *unit;   /* "/s", "ms", "B/s", "" */
	unsigned engines;   /* ENG_* mask: reported for these engines */
	enum metric_kind kind;
	int a, b;           /* counter ids (MK_RATE*, MK_AVG_MS) or metric ids (MK_RATIO) */
	const char *help;
};

extern const struct metric_def metric_defs[M__COUNT];

struct rate {
	double v;           /* NaN unless st == RATE_OK */
	enum rate_status st;
	bool est; /* an estimate, not the server's count (said so: "~" on screen, KEY_estimate in JSON) */
};


/* Digest coverage (issue 25): the statements the digests account for
 * against the server's statement events this interval. MySQL / MariaDB
 * with performance_schema only; known false elsewhere. */
#define DG_COVERAGE_LOW 0.5      /* below: the pane and JSON say a share is missing */
#define DG_EXEC_SHARE 0.5        /* prepared runs at least this share of the missing statements: the reason */
struct dg_coverage {
	bool known;
	double share;                /* digest calls / statement events, 0..1 */
	double stmts_per_s;          /* statement events per second (dbtop's own included, as in the digests) */
	double digest_calls_per_s;   /* calls the digests counted */
	double exec_per_s;           /* prepared statements run (statement/com/Execute): no digest row */
	double exec_ms_per_s;        /* their time */
	double own_per_s;            /* dbtop's own statements (its connection's thread) */
	const char *reason;          /* why statements are missing, NULL: not known */
};

/* Benchmark runs (seed 002): mysqlslap starts each run (an iteration)
 * with CREATE DATABASE, so Com_create_db counts runs. The time and the
 * fsyncs per run are taken over the newest intervals that hold at least
 * RUN_MIN_RUNS runs, from one run start to the newest: the intervals the
 * first and the last start fall in count half (a start lies somewhere
 * inside them), so the figures are estimates to about an interval over
 * the window. seen: a run started within RUN_MAX_INTERVALS intervals, and
 * not longer ago than twice a run and RUN_STALE_S (the runs go on). */
#define RUN_MIN_RUNS 2.0
#define RUN_STALE_S 3.0
#define RUN_MIN_INTERVALS 3
#define RUN_MAX_INTERVALS 60
struct run_window {
	bool seen;
	double runs;              /* runs the window holds (halves at its ends) */
	double span_s;            /* its length, s */
	double fsyncs;            /* durability syncs in it */
	double age_s;             /* since the newest run start (its interval's end) */
};

/* the reads of the sampled COMMIT estimate pooled when the newest read
 * saw no session in COMMIT, and the reads kept: when none of the newest
 * COMMIT_EST_READS saw one, the pool reaches back to the newest read that
 * did, at most COMMIT_EST_KEEP reads */
#define COMMIT_EST_READS 5
#define COMMIT_EST_KEEP 20

struct model {
	struct caps caps;         /* of the current connection */
	bool have_caps;
	struct sample last;       /* newest sample */
	struct sample prev_up;    /* newest sample with state UP */
	bool have_prev;
	double interval_s;        /* Δt of the newest interval, s (NaN if none) */
	double own_xacts;         /* dbtop's own transactions in it, left out of commits (NaN: unknown) */
	struct rate cur[M__COUNT];
	double age_s[M__COUNT];   /* s since the counters behind cur[i] were read (0: this sample) */
	double from_mono[M__COUNT]; /* when the time cur[i] covers began (the counters' reading before; a
				     * ratio: the older of its two), NaN when not known */
	/* the newest reading of each counter on this connection: a paced read
	 * (a summary read every few refreshes) leaves its counters out of the
	 * samples between, whose rates then stand, aged */
	struct ctr held[CTR__COUNT];
	double held_mono[CTR__COUNT];
	double carry[M__COUNT];   /* MK_RATE_NET: own share not yet seen, <= 0 */
	struct ring hist[M__COUNT]; /* one value per interval, NaN = unknown */
	struct ring hist_t;       /* wall time of each interval's end */
	size_t nsettings;
	struct setting settings[SETTINGS_MAX]; /* newest settings seen */
	bool scoped_read; /* PostgreSQL: the roles' and databases' own values were read with them */
	int nscoped;
	struct scoped_setting scoped[SCOPED_MAX]; /* ... those values (pg_db_role_setting) */
	unsigned long intervals;  /* model_update calls */
	struct digest_table dg;   /* statement digests */
	double dg_mono;           /* monotonic time of the last digest read, 0: none */
	bool dg_fresh;            /* the newest sample updated dg (else its rates are an earlier read's) */
	struct lock_set *locks;   /* newest lock snapshot (a copy), NULL: none */
	struct session_set *sessions; /* newest session list (a copy), NULL: none read */
	struct ring lock_waiting; /* sessions waiting on a lock, per interval */
	struct ring lock_wait_ms; /* row-lock wait time, ms/s (MySQL: counter; PG: waiters x 1000) */
	struct wait_table wt;     /* wait events */
	double wt_mono;           /* monotonic time of the last wait profile read, 0: none */
	struct dg_coverage cov;   /* how much of the statement load the digests account for */
	double cov_age_s;         /* s since the statement counters behind cov were read */
	struct ctr dg_exec_ns;    /* CTR_EXEC_NS at the last set of digests (the estimates' bound) */
	double dg_exec_mono;      /* monotonic time of that set */
	double dg_bound_ms;       /* the estimates' newest bound, ms/s (NaN: none) */
	/* the statements counted per kind (Com_*, dg_kind) at the last set of
	 * digests: the estimates' calls (digest_table_count_estimates) */
	struct ctr dg_com[DGK__COUNT];
	double dg_com_mono[DGK__COUNT];
	double dg_com_rate[DGK__COUNT]; /* each kind's newest counted rate, /s (NaN: none) */
	double dg_com_age_s;            /* s since the counts behind the estimates' calls were read (0: this sample) */
	double est_scale;         /* the estimates' scale this interval (1: within the bound) */
	/* the sampled COMMIT estimate's last reads (MySQL / MariaDB, prepared
	 * COMMIT): its sampled time and the commits counted over each read's
	 * interval, oldest first overwritten; a read whose looks found no
	 * session in COMMIT counts with no time (commit_latency_estimate) */
	struct {
		double ms[COMMIT_EST_KEEP], commits[COMMIT_EST_KEEP];
		unsigned n, head;
	} cwin;
	struct repl_model repl;   /* synchronous replication (model/replication.h) */
	struct logdev_view ld;    /* the log devices (caps.logdev): figures and history */
	struct host_view host;    /* the host's CPU pressure beside the server, this interval */
	/* s since the end of the newest interval in which the host read busy or
	 * under CPU pressure (0: this one; INFINITY: none seen): a client idle
	 * in its transaction since before then may have been starved of CPU */
	double host_busy_s;
	struct finding_set findings; /* in force at the newest sample (findings_update) */
	struct run_window runs;   /* the benchmark runs behind M_RUN_S / M_RUN_FSYNCS */
	struct fc_outcome outcome;   /* the newest remedy seen applied: its forecast and outcome (forecast.h) */
	struct scope_evidence scope; /* PostgreSQL: whose sessions wait on the WAL flush (scope.h) */
};

/* history_len: intervals kept (>= 1). */
void model_init(struct model *m, size_t history_len);
void model_free(struct model *m);
/* Adopt the capabilities of a new connection. */
void model_set_caps(struct model *m, const struct caps *c);
/* Fold one sample into the model: rates of the interval since the previous
 * UP sample, history rings, settings. */
void model_update(struct model *m, const struct sample *s);
/* The history lines of src (rates, lock waits) up to the interval that
 * ended at wall, into dst (same ring sizes): a model rebuilt at an earlier
 * moment draws the sparklines the live one had then. Left alone when src
 * holds no interval ending at or before wall. */
void model_copy_history(struct model *dst, const struct model *src, double wall);
/* Counter id as of the newest sample: its newest reading on this
 * connection when a paced read left it out of that sample. */
const struct ctr *model_counter(const struct model *m, enum ctr_id id);
/* A setting's value as last read, or NULL. */
const char *model_setting(const struct model *m, const char *name);
/* True when metric id is reported for the model's engine. */
bool model_metric_applies(const struct model *m, enum metric_id id);
const char *rate_status_name(enum rate_status st);

#endif
