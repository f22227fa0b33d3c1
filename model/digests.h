/* digests.h - statement digests: the rows a server reports (cumulative
 * counters per normalised statement) and the model's per-interval delta
 * table with reset / eviction handling. No database or curses headers. */
#ifndef DBTOP_DIGESTS_H
#define DBTOP_DIGESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"

/* Counters of one digest, cumulative as the server reports them. */
enum dg_ctr {
	DG_CALLS,
	DG_TOTAL_NS,      /* execution time (+ planning time on PostgreSQL) */
	DG_ROWS,          /* rows returned / affected */
	DG_LOCK_NS,       /* MySQL SUM_LOCK_TIME */
	DG_ROWS_EXAMINED, /* MySQL */
	DG_ERRORS,        /* MySQL SUM_ERRORS */
	DG_BLKS_HIT,      /* PostgreSQL shared_blks_hit */
	DG_BLKS_READ,     /* PostgreSQL shared_blks_read */
	DG_WAL_BYTES,     /* PostgreSQL wal_bytes */
	DG_PLAN_NS,       /* PostgreSQL total_plan_time */
	DG__COUNT
};

struct digest_row {
	char key[200];         /* stable identity, engine-defined */
	char schema[130];      /* MySQL schema, PostgreSQL database (64 characters) */
	char *text;            /* normalised text (owned), NULL when not fetched */
	uint64_t c[DG__COUNT];
	uint32_t have;         /* bit i: counter i reported */
	uint64_t epoch;        /* changes when the row is re-created (FIRST_SEEN, stats_since) */
	double p95_ms;         /* NaN: not available */
	double first_seen, last_seen; /* s since the epoch, 0: unknown */
	uint64_t samples;      /* sampled sets: times seen active, cumulative (0: unknown) */
	bool own;              /* dbtop's own statement (the source matched it to what it sends) */
};

/* One latency histogram bucket of a digest as the server reports it
 * (MySQL 8 events_statements_histogram_by_digest): cumulative count. */
struct dg_bucket {
	uint32_t num;          /* BUCKET_NUMBER */
	uint64_t high_ps;      /* BUCKET_TIMER_HIGH, picoseconds */
	uint64_t count;        /* COUNT_BUCKET, cumulative */
};

/* The histogram of one digest read in a sample: its buckets with a count
 * above zero, ascending by number (none: read, nothing timed yet). */
struct dg_hist {
	char key[200];         /* the digest row's key */
	struct dg_bucket *b;
	size_t n, cap;
};

/* What one sample brought. */
#define DG_SPLIT_MAX 16

/* Slice of a digest key of the form "userid:dbid:queryid:toplevel" when
 * queryids are split n ways (PostgreSQL): mod(mod(queryid, n) + n, n),
 * as the server computes it. */
unsigned digest_key_slice(const char *key, unsigned n);

struct digest_set {
	struct digest_row *rows;
	size_t n, cap;
	bool partial;          /* only rows that changed were read: absent rows are unchanged */
	/* a large pg_stat_statements is read one slice at a time: this set
	 * holds the rows whose queryid mod split_n is split_k (0: all rows);
	 * rows of other slices were not read and keep their rates */
	unsigned split_n, split_k;
	bool sampled;          /* built by sampling sessions (no statistics source) */
	double sample_hz;      /* samples per second when sampled (the rate reached) */
	uint64_t rounds;       /* sampled: samples taken, cumulative (0: unknown) */
	uint64_t est_rounds;   /* with "s:" estimates: looks at their sessions, cumulative (0: unknown) */
	unsigned sessions;     /* sampled: distinct sessions seen active since the previous set */
	/* only the sampled estimates of the statements the digests miss ("s:"
	 * rows) were read: the exact rows were not, and keep their rates */
	bool estimates_only;
	uint64_t lost;         /* cumulative: digests the server could not track */
	bool have_lost;
	char source[64];       /* "performance_schema", "pg_stat_statements 1.10", "sampled" */
	/* latency histograms read in this sample, for a few of its rows only
	 * (a digest without one here was not read this time) */
	struct dg_hist *hist;
	size_t nhist, hist_cap;
};

/* Room for n rows (a read that knows its row count grows the set once). */
void digest_set_reserve(struct digest_set *s, size_t n);
/* Append a zeroed row; returns it. */
struct digest_row *digest_set_add(struct digest_set *s);
void digest_set_free(struct digest_set *s);
/* A deep copy (texts and histograms duplicated). */
struct digest_set *digest_set_dup(const struct digest_set *s);
/* Append an empty histogram for key; returns it. */
struct dg_hist *digest_set_add_hist(struct digest_set *s, const char *key);
/* The histogram of key in s, or NULL. */
struct dg_hist *digest_set_hist(const struct digest_set *s, const char *key);
/* Add a bucket to h, keeping the order by number (a repeated number
 * replaces the earlier one). */
void dg_hist_add(struct dg_hist *h, uint32_t num, uint64_t high_ps, uint64_t count);

/* p95 latency in ms of the statements between two readings of a digest's
 * histogram: the upper bound of the bucket where the cumulative interval
 * count (per-bucket differences) first reaches 95 % of the interval's
 * count. NaN when nothing ran, when a bucket count went down (*reset set,
 * when reset is not NULL), or when that bucket has no upper bound. */
double dg_hist_p95(const struct dg_bucket *prev, size_t nprev, const struct dg_bucket *cur, size_t ncur,
		   bool *reset);

/* Model side: one entry per digest ever seen. */
struct digest_entry {
	struct digest_row last;      /* newest cumulative values (text owned) */
	double rate[DG__COUNT];      /* per second this interval; NaN: unknown */
	bool known;                  /* rate[] is valid this interval */
	double avg_ms;               /* Δtotal / Δcalls this interval, NaN if no calls */
	float hist[60];              /* total ms per s, newest at hist_head-1; NaN gaps */
	unsigned hist_head;
	unsigned long seen_tick;     /* last tick the server reported it */
	bool gone;                   /* no longer reported (evicted / reset) */
	/* per-interval p95 from latency histograms (MySQL 8): NaN unless the
	 * histogram was read now and at the previous change of the digest */
	double p95_ms;
	struct dg_bucket *hb;        /* buckets at the last histogram read (owned) */
	size_t nhb;
	bool hb_ok;                  /* hb is a valid base for the next interval */
	unsigned long hb_tick;       /* tick of the last histogram read */
	bool moved;                  /* calls changed (or unknown) this tick */
	bool hidden;                 /* dbtop's own and not shown: out of the ranking and the total */
	double read_wall;            /* wall time it was last read (its rates cover the time since) */
	/* sampled sets: the samples this interval that saw it (0 with
	 * calls_lower when unknown), and whether calls are only a lower bound
	 * (executions shorter than the sampling period are missed: most were
	 * seen once or not at all; then avg_ms is NaN) */
	uint64_t samples;
	bool calls_lower;
	/* statement statistics add a call's whole time when it finishes: when
	 * the calls finished this interval took longer than the interval
	 * (Δtotal > Δcalls x Δt), their time inside it is at most Δcalls x Δt,
	 * and rate[DG_TOTAL_NS] holds that bound (avg_ms stays Δtotal /
	 * Δcalls); finished_ms is then the raw Δtotal in ms (else NaN) */
	bool time_bounded;
	double finished_ms;
	/* an estimate ("s:" row) whose calls this interval are the server's
	 * count of its kind (dg_kind + 1; 0: not counted): calls/s = the
	 * counted statements of the kind less the exact digests' calls of it,
	 * shared by the estimates of the kind (counted_split: among several,
	 * by the executions each was seen in); avg_ms = time / those calls */
	unsigned char counted_kind;
	bool counted_split;
};

struct digest_table {
	struct digest_entry *e;      /* every digest seen (but evicted ones), dense: e[0..n-1] */
	size_t n, cap;               /* entries, allocated */
	struct hmap slots;           /* key -> uint32_t index in e */
	unsigned long tick;
	double interval_s;
	double total_ms_per_s;       /* sum over known entries (dbtop's own left out unless shown) */
	double own_ms_per_s;         /* dbtop's own statements' time, ms/s */
	bool show_own;               /* rank dbtop's own statements too */
	uint64_t lost_delta;         /* digests lost this interval */
	uint64_t lost_prev;          /* the cumulative count last seen */
	bool have_lost;
	bool sampled;
	double sample_hz;            /* sampled: the rate reached this interval */
	uint64_t rounds_prev;        /* sampled: the set's cumulative rounds last time */
	uint64_t rounds;             /* sampled: samples taken this interval (0: unknown) */
	unsigned sessions;           /* sampled: sessions seen active this interval (0: unknown) */
	double bound_scale;          /* sampled: factor the physics bound applied (1: none) */
	char source[64];
	unsigned split_n;            /* slices of the last split read, 0: none */
	double split_wall[DG_SPLIT_MAX]; /* wall time each slice was last read */
	bool have_data;              /* a digest set arrived at least once */
	double prev_wall;            /* wall time of the previous set, 0: none */
	/* digest_table_top's ranked lists of the current contents, one per
	 * sort key and mode (owned; emptied by every update) */
	struct dg_top_cache *topc;
	/* past DG_MAX_ENTRIES, the digests seen longest ago are evicted down
	 * to three quarters of it: evicted counts them; evicted_bits (a fixed
	 * bitmap of their key hashes, NULL until the first) makes one that
	 * comes back unknown for an interval, never counted from zero */
	uint64_t evicted;
	uint64_t *evicted_bits;
	/* the estimates ("s:" rows): looks at their sessions this interval
	 * (0: unknown) and how many took their calls from a server count */
	uint64_t est_rounds, est_rounds_prev;
	unsigned est_counted;
	/* the commits the estimates stand for: Com_commit less the exact
	 * COMMIT digests' calls, per second over the estimates' interval
	 * (NaN: not counted), whether or not a session was seen in COMMIT */
	double est_commits_per_s;
	double est_window_s; /* the time since the previous set: what the estimates' rates cover (NaN: unknown) */
};

#define DG_MAX_ENTRIES 20000         /* digests kept (the servers' own tables hold 5,000-10,000) */

void digest_table_init(struct digest_table *t);
/* True when e is a sampled estimate in a set of exact digests (the
 * statements the digests miss, sampled from the sessions: "s:" keys). */
bool digest_is_estimate(const struct digest_table *t, const struct digest_entry *e);
/* The COMMIT digest among this interval's top 16 by time (MySQL "COMMIT";
 * PostgreSQL "COMMIT" or pgbench's "END"), or NULL. */
const struct digest_entry *digest_table_commit(const struct digest_table *t);
/* Scale the estimates' time this interval to total_ms_per_s, what the
 * server measured for the statements they stand for: the sampling gives
 * each one's share, the server the sum (never more: sessions cannot
 * spend more time than they ran). Every estimate's average is unknown
 * (sampling counts a fraction of the calls). Returns the factor (1: no
 * change or nothing to scale). */
double digest_table_bound_estimates(struct digest_table *t, double bound_ms_per_s);
/* Statement kinds the server counts (MySQL / MariaDB Com_* status
 * counters, prepared executions included), for the estimates' calls. */
enum dg_kind {
	DGK_SELECT,
	DGK_INSERT,
	DGK_UPDATE,
	DGK_DELETE,
	DGK_REPLACE,
	DGK_BEGIN,
	DGK_COMMIT,
	DGK_ROLLBACK,
	DGK__COUNT
};
/* The counter of each kind as the server names it ("Com_commit"). */
extern const char *const dg_kind_counter[DGK__COUNT];
/* The kind of a statement text by its first word, or -1 (START
 * TRANSACTION counts as BEGIN; a text behind a comment is not read). */
int dg_text_kind(const char *text);
/* The estimates' calls from the server's counts: counted_per_s[k] the
 * statements of kind k per second over the estimates' interval (NaN: not
 * counted). Each estimate of a counted kind gets calls/s = the count less
 * the exact digests' calls of the kind, shared among the kind's estimates
 * by the executions each was seen in, and avg_ms = its time / those calls
 * (counted_kind, counted_split). After digest_table_bound_estimates.
 * Returns the estimates so counted (also in t->est_counted). */
unsigned digest_table_count_estimates(struct digest_table *t, const double counted_per_s[DGK__COUNT]);
/* Show dbtop's own statements in the ranking and the total, or not (the
 * default); takes effect at once. */
void digest_table_show_own(struct digest_table *t, bool show);
void digest_table_free(struct digest_table *t);
/* Fold one set (may be NULL: the source had none this time) taken at wall
 * time `wall`, dt seconds after the previous one. fresh: first sample of a
 * connection (no rates). A row new after that counts from zero. */
void digest_table_update(struct digest_table *t, const struct digest_set *s, double dt, bool fresh,
			 double wall);

/* The physics bound of sampled time: n sessions cannot spend more than
 * n x 1000 ms per second between them. Given the sampled estimate's total
 * (sampled_ms, ms/s), the time per second measured exactly beside it
 * (exact_ms: statement statistics that cover part of the load; 0 when
 * everything is sampled) and the sessions seen, the factor in [0, 1] to
 * scale the sampled figures by so that exact + sampled <= 1000 x sessions.
 * 1 when within the bound or when sessions is unknown (<= 0). */
double dg_sampled_bound(double sampled_ms, double exact_ms, double sessions);
/* Apply the bound to a sampled table's interval figures (rate of total
 * time, avg_ms, total_ms_per_s) with t->sessions; sets t->bound_scale.
 * digest_table_update does it for every sampled set; exact_ms as above. */
void digest_table_bound(struct digest_table *t, double exact_ms);
/* The line saying what a sampled table's figures rest on: "estimate from
 * 10 samples of 32 sessions (10 Hz); calls/s >= executions seen (shorter
 * ones are missed), avg ms - where they are". utf8: "≥" else ">". */
void dg_sampled_text(const struct digest_table *t, bool utf8, char *buf, size_t len);
/* A sampling rate for people: "10", "2.5", "0.67" (two significant
 * digits below 10, none above). */
void dg_fmt_hz(char *buf, size_t len, double hz);

/* Sort keys for digest_table_top. */
enum dg_sort { DGS_TOTAL, DGS_CALLS, DGS_AVG, DGS_ROWS, DGS__COUNT };
extern const char *const dg_sort_names[DGS__COUNT];

/* The best n entries by key (interval rates; cumulative values when
 * cumulative); only entries that are known this interval (or have
 * cumulative values) and not gone; ties in key order. Returns the count
 * written to out. The ranking is kept until the next digest_table_update
 * (at least the best DG_TOP_KEEP): asking again, for the same or a shorter
 * list, costs a copy. */
#define DG_TOP_KEEP 512
size_t digest_table_top(const struct digest_table *t, enum dg_sort key, bool cumulative,
			const struct digest_entry **out, size_t n);

#endif
