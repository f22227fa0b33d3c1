/* replication.h - synchronous replication in the model: the newest read
 * (core/repl.h) with the semi-sync variables carried between their reads,
 * and the per-interval figures (acknowledged / not acknowledged commits,
 * the average wait for an ack this interval). */
#ifndef DBTOP_REPLICATION_H
#define DBTOP_REPLICATION_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/repl.h"

struct strbuf;

struct repl_rates {
	double yes_per_s;       /* semi-sync commits acknowledged per second (NaN unknown) */
	double no_per_s;        /* commits that went without an ack per second */
	double avg_wait_ms;     /* a commit's wait for the ack this interval; NaN: none waited / unknown */
	double net_avg_ms;      /* a replica's reply time this interval */
};

struct repl_model {
	bool known;             /* a replication read arrived since the connection */
	struct repl r;          /* the newest (kind REPL_NONE: never read) */
	bool vars_known;        /* the semi-sync variables were read on this connection */
	struct repl_rates rt;
};

/* Fold one sample's read (now) into rm; prev: the previous UP sample's
 * (NULL: none, a new connection); dt its distance, s. */
void repl_model_update(struct repl_model *rm, const struct repl *now, const struct repl *prev, double dt);
/* Forget everything (a new connection, the server down). */
void repl_model_reset(struct repl_model *rm);
/* The synchronous standby commits wait for: a sync / quorum one with the
 * most flush lag (NULL: none connected). */
const struct repl_standby *repl_sync_standby(const struct repl *r);
/* Seconds a standby has not answered while WAL waits for its flush (its
 * lag figures are its last reply's: they stand still while it is
 * stopped); 0 when it answers or nothing waits. */
#define REPL_STALL_S 2.0
double repl_stalled_s(const struct repl_standby *s);
/* Standbys whose state says sync or quorum. */
int repl_sync_count(const struct repl *r);
/* A lag as text: "12.3 ms", "4.1 s", "-" (NaN: none). */
void repl_fmt_ms(double ms, char *buf, size_t len);
/* The JSON member ,"replication":{...} (nothing when never read). */
void repl_json(const struct repl_model *rm, struct strbuf *out);

#endif
