/* waits.h - where sessions wait: a wait-event profile per interval, from
 * one of three sources (client-side sampling of pg_stat_activity,
 * pg_wait_sampling's server-side profile, performance_schema wait
 * summaries), as average active sessions per event, with a short history
 * per event. No database or curses headers here. */
#ifndef DBTOP_WAITS_H
#define DBTOP_WAITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ring.h"

enum wait_source {
	WS_NONE = 0,
	WS_SAMPLED,          /* dbtop samples pg_stat_activity: counts are observations this interval */
	WS_PG_WAIT_SAMPLING, /* pg_wait_sampling_profile: cumulative sample counts */
	WS_PERF_SCHEMA,      /* performance_schema: cumulative COUNT_STAR and SUM_TIMER_WAIT */
};

enum wait_class {
	WC_CPU = 0, WC_WAL, WC_REDO, WC_BINLOG, WC_LOCK, WC_IO, WC_OTHER, WC__COUNT
};

#define WAIT_NAME_LEN 96

/* One event as a source reads it. */
struct wait_row {
	char name[WAIT_NAME_LEN]; /* "IO:WALSync", "CPU", "wait/io/file/innodb/innodb_log_file" */
	uint64_t count;           /* see enum wait_source */
	uint64_t time_ns;         /* WS_PERF_SCHEMA: total wait time, ns; else 0 */
};

struct wait_set {
	enum wait_source source;
	double hz;               /* WS_SAMPLED: samples per second aimed at */
	unsigned rounds;         /* WS_SAMPLED: samples taken this interval */
	double period_ms;        /* WS_PG_WAIT_SAMPLING: the profile's sampling period */
	double cost_ms;          /* query time of the sampler this interval (WS_SAMPLED) */
	char note[240];          /* what limits the profile (instruments off, ...) */
	size_t n, cap;
	struct wait_row *rows;
};

struct wait_set *wait_set_new(enum wait_source src);
void wait_set_free(struct wait_set *w);
/* Add count (and time) to event name, adding it when new. */
void wait_set_add(struct wait_set *w, const char *name, uint64_t count, uint64_t time_ns);

/* Class of an event name of either engine. */
enum wait_class wait_class_of(const char *name);
const char *wait_class_name(enum wait_class c);
/* True for the WAL / redo / binlog events the pane highlights. */
bool wait_is_durability(const char *name);
/* True for events that are not waiting in the sense of the pane: a
 * session idle for its client (Client:*), background processes idling
 * (Activity:*), MySQL's "idle". */
bool wait_is_idle(const char *name);
/* A note that says the source counts nothing at all (consumers off, every
 * wait instrument off): the pane shows it in place of an empty list. */
#define WAIT_NOTE_STOPPED "no wait is being counted: "
bool wait_note_stopped(const char *note);

#define WAIT_MAX 48              /* events tracked at once */
/* An event's history holds at most a sparkline's width: the waits pane
 * draws the newest (terminal width - 4) values and nothing else reads it
 * (time travel rebuilds the waits from the spool), so a ring of the
 * model's full history (900 to 3,600 slots) would fill pages no one reads */
#define WAIT_HIST_MAX 300

/* One tracked event in the model. */
struct wait_entry {
	char name[WAIT_NAME_LEN];
	enum wait_class cls;
	bool used;
	double aas;                  /* average active sessions this interval (NaN unknown) */
	double count_per_s;          /* WS_PERF_SCHEMA: events per second (NaN otherwise) */
	double avg_ms;               /* WS_PERF_SCHEMA: average wait (NaN when none) */
	unsigned long last_seen;     /* interval it last had a value > 0 */
	struct ring hist;            /* aas per interval */
};

/* The last cumulative reading of one event (every event the source lists,
 * tracked or not: an event that gets a slot has its rate at once). */
struct wait_base {
	char name[WAIT_NAME_LEN];
	uint64_t count, time_ns;
};

struct wait_table {
	enum wait_source source;
	double hz, cost_ms, cost_per_sample_ms;
	unsigned rounds;
	char note[240];
	bool have_data;              /* a profile arrived since the connection */
	bool stopped;                /* the note says nothing is being counted (wait_note_stopped) */
	unsigned untracked;          /* events with a value this interval left out (WAIT_MAX full) */
	struct wait_base *base;      /* cumulative sources: the last reading of every event */
	size_t nbase, capbase;
	bool base_read;              /* base holds a reading of this connection and source */
	bool base_only;              /* the newest reading was a cumulative profile's first: no rate yet */
	double total_aas;            /* sum over events this interval (NaN unknown) */
	unsigned long interval;      /* updates so far */
	size_t hist_len;             /* slots of an event's history: <= WAIT_HIST_MAX */
	struct wait_entry e[WAIT_MAX];
};

void wait_table_init(struct wait_table *t, size_t hist_len);
void wait_table_free(struct wait_table *t);
/* Fold one interval: ws may be NULL (no profile this time: every value
 * unknown); fresh says a new connection (cumulative readings restart);
 * dt is the interval's length in s. */
void wait_table_update(struct wait_table *t, const struct wait_set *ws, double dt, bool fresh);
/* An interval without a reading on purpose: every value stands (the
 * history repeats it). */
void wait_table_hold(struct wait_table *t);
/* Entries with a known value this interval, by aas descending (then
 * name); returns how many were written to out (at most max). */
size_t wait_table_ranked(const struct wait_table *t, const struct wait_entry **out, size_t max);

/* What the wait profile saw of lock waits this interval, for the locks
 * pane, whose check (one look per refresh) misses short waits on hot rows:
 * false (buf "") when it saw none; else e.g. "18.2 sessions sampled
 * waiting on locks in the last interval (on average: Lock:transactionid
 * 16.1, Lock:tuple 2.1)", then "; none waiting at the last check" when
 * waiting_now is 0. */
bool wait_table_lock_note(const struct wait_table *t, unsigned waiting_now, char *buf, size_t len);

struct strbuf;
/* The JSON member ,"waits":[...] (top n by aas), null without a profile. */
void wait_table_json(const struct wait_table *t, int n, struct strbuf *out);
const char *wait_source_name(enum wait_source s);

#endif
