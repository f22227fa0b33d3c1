/* fallback.h - statement digests by sampling sessions, for servers without
 * statement statistics (performance_schema off, pg_stat_statements
 * missing): each sample of the active sessions' queries is normalised
 * (literals, comments, white space, IN-lists) and counted, giving an
 * estimate of time per statement (its share of the samples x the sessions
 * active: never more than the sessions seen can spend) and a lower bound
 * of calls (distinct executions seen). Pure: the backends feed it rows. */
#ifndef DBTOP_FALLBACK_H
#define DBTOP_FALLBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"

struct digest_set;

struct fb_stmt {
	char key[24];       /* "s:" + hash of the normalised text */
	char schema[64];
	char *text;         /* normalised text (owned) */
	uint64_t samples;   /* times seen active */
	uint64_t calls;     /* distinct executions seen */
	uint64_t pend;      /* times seen since the last build */
	double total_ns;    /* estimated time so far (advanced by each build) */
};

struct fb_session {
	uint64_t id;        /* session id (pid / processlist id) */
	uint64_t text_hash; /* normalised text being run */
	char start[40];     /* start marker of that execution */
	double elapsed;     /* its run time when last seen, s */
	unsigned long seen; /* round it was last seen in */
	unsigned long built;/* builds done when it was last seen active */
};

struct fallback {
	struct hmap stmts;      /* key -> struct fb_stmt */
	struct hmap norm;       /* hash of a text as read -> hash of its normalised text: a
				 * statement seen again (every look while it runs) is not
				 * normalised again */
	struct fb_session *sess;
	size_t nsess, capsess;
	unsigned long rounds;   /* samples taken */
	double hz;              /* sampling rate aimed at, samples per second */
	unsigned long pend_rounds; /* samples taken since the last build */
	unsigned pend_sessions; /* distinct sessions seen active since the last build */
	unsigned long builds;   /* sets built */
	double last_build;      /* monotonic s of the last build, 0: none */
	double first_round;     /* monotonic s of the first sample since the last build */
};

void fallback_init(struct fallback *fb, double hz);
void fallback_free(struct fallback *fb);
/* Start a sampling round at monotonic time now. */
void fallback_round(struct fallback *fb, double now);
/* One active session in this round: its id, a marker that changes with
 * each new execution (query start time; NULL when the server has none),
 * the seconds the statement has run (a drop also means a new execution),
 * schema / database, raw text. */
void fallback_observe(struct fallback *fb, uint64_t session, const char *start, double elapsed,
		      const char *schema, const char *text);
/* The cumulative counts so far as a digest set (sampled), at monotonic
 * time now (the sample's time, which the model's interval is measured
 * by): the samples since the previous build share that interval, each
 * statement getting (its samples / samples) x the interval of estimated
 * time (so the interval's total is the sessions active on average, at
 * most the sessions seen). set->rounds, set->sessions and each row's
 * samples say what the estimate rests on; set->sample_hz is the rate
 * reached. NULL when no sample was taken since the previous build: the
 * caller reports the digests as skipped (the next build covers both). */
struct digest_set *fallback_build(struct fallback *fb, const char *source, double now);
/* fallback_build for a sample: the set's source says what was sampled and
 * at what rate reached ("sampled pg_stat_activity at 9.8 Hz"); NULL as
 * there. */
struct digest_set *fallback_build_sampled(struct fallback *fb, const char *what, double now);

#endif
