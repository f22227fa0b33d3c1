/* fallback.h - statement digests by sampling sessions, for servers without
 * statement statistics (performance_schema off, pg_stat_statements
 * missing): each sample of the active sessions' queries is normalised
 * (literals, comments, white space, IN-lists) and counted, giving an
 * estimate of time per statement (samples x sampling period) and of calls
 * (distinct executions seen). Pure: the backends feed it rows. */
#ifndef DBTOP_FALLBACK_H
#define DBTOP_FALLBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct digest_set;

struct fb_stmt {
	char key[24];       /* "s:" + hash of the normalised text */
	char schema[64];
	char *text;         /* normalised text (owned) */
	uint64_t samples;   /* times seen active */
	uint64_t calls;     /* distinct executions seen */
	double time_s;      /* timed: the time the rounds it was seen in stood for, s */
};

struct fb_session {
	uint64_t id;        /* session id (pid / processlist id) */
	uint64_t text_hash; /* normalised text being run */
	char start[40];     /* start marker of that execution */
	double elapsed;     /* its run time when last seen, s */
	unsigned long seen; /* round it was last seen in */
};

struct fallback {
	struct fb_stmt *s;
	size_t n, cap;          /* statements (open addressing by key) */
	struct fb_session *sess;
	size_t nsess, capsess;
	unsigned long rounds;   /* samples taken */
	double hz;              /* sampling rate, samples per second */
	/* timed (fallback_init_timed): each round stands for the time since
	 * the previous one (at most 1 s), so a slower pace is not counted at
	 * the nominal rate */
	bool timed;
	double round_mono, round_w; /* monotonic s of the current round, the s it stands for */
};

void fallback_init(struct fallback *fb, double hz);
void fallback_init_timed(struct fallback *fb, double hz);
void fallback_free(struct fallback *fb);
/* Start a sampling round. */
void fallback_round(struct fallback *fb);
/* One active session in this round: its id, a marker that changes with
 * each new execution (query start time; NULL when the server has none),
 * the seconds the statement has run (a drop also means a new execution),
 * schema / database, raw text. */
void fallback_observe(struct fallback *fb, uint64_t session, const char *start, double elapsed,
		      const char *schema, const char *text);
/* The cumulative counts so far as a digest set (sampled). */
struct digest_set *fallback_build(const struct fallback *fb, const char *source);

#endif
