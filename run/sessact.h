/* sessact.h - ending or cancelling sessions on one target, without
 * curses: the action its sampler runs, tagged sessions acted on one by
 * one as each result comes (one action at a time, each session checked by
 * the source against the one shown), and what dbtop did logged as events.
 * The screen asks (y on x / c) and shows the messages. */
#ifndef DBTOP_SESSACT_H
#define DBTOP_SESSACT_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/events.h"
#include "../model/locks.h"
#include "sampler.h"

#define SESSACT_MAX 32 /* tagged sessions acted on at once */

struct sess_act {
	int what;     /* the action the sampler runs (SRC_ACT_*), 0: none */
	long long id; /* ... on this session */
	/* x / c on tagged sessions: the ones still to act on */
	int batch;    /* SRC_ACT_* of the batch, 0: none */
	int n;        /* sessions after the first */
	int next;     /* next of more_id[] to send */
	int ok, sent; /* done and sent so far, the first included */
	long long more_id[SESSACT_MAX];
	struct session_ident more_who[SESSACT_MAX];
};

/* Send action what (SRC_ACT_*) on session id (who: as shown) to sampler
 * sp, then the n others (more_id, more_who) one by one as each result
 * comes. False when another action still runs: nothing sent. */
bool sessact_send(struct sess_act *a, struct sampler *sp, int what, long long id, const struct session_ident *who,
		  int n, const long long *more_id, const struct session_ident *more_who);
/* An action's result (rc, msg: the source's): logged into ev when it
 * ended or cancelled a session; during a batch counted and the next
 * session sent. When the batch is done: its count and the last result
 * in out, returned; else NULL. */
const char *sessact_result(struct sess_act *a, struct sampler *sp, struct event_log *ev, int rc, const char *msg,
			   char *out, size_t len);

#endif
