/* test_sessact.c - ending and cancelling sessions without curses
 * (run/sessact.c): one session, tagged sessions sent one by one as each
 * result comes and counted, what was done logged as events (and what was
 * not left out), a busy sampler refusing. The sampler is this file's
 * stand-in: it records the requests. */
#include <stdio.h>
#include <string.h>

#include "../../run/sessact.c"
#include "tap.h"

static int nreq;
static int req_what[8];
static long long req_id[8];
static bool busy;

bool sampler_send(struct sampler *sp, const struct target_cmd *c)
{
	(void)sp;
	if (busy)
		return false;
	if (nreq < 8) {
		req_what[nreq] = c->kind == CMD_KILL ? SRC_ACT_TERMINATE : c->kind == CMD_CANCEL ? SRC_ACT_CANCEL : -1;
		req_id[nreq] = c->arg.session.id;
	}
	nreq++;
	return true;
}

/* The events of kind k in l, their sessions in ids. */
static int logged(const struct event_log *l, enum event_kind k, long long *ids)
{
	int n = 0;
	for (size_t i = 0; i < l->n; i++)
		if (events_at(l, i)->kind == k)
			ids[n++] = events_at(l, i)->session;
	return n;
}

static void test_one(void)
{
	struct sess_act a;
	struct sampler sp;
	struct event_log ev;
	struct session_ident who;
	char out[400];
	long long ids[8];
	memset(&a, 0, sizeof a);
	memset(&who, 0, sizeof who);
	events_init(&ev);
	nreq = 0;
	busy = true;
	CHECK(!sessact_send(&a, &sp, SRC_ACT_TERMINATE, 12, &who, 0, NULL, NULL) && a.what == 0,
	      "another action running: nothing sent");
	busy = false;
	CHECK(sessact_send(&a, &sp, SRC_ACT_TERMINATE, 12, &who, 0, NULL, NULL) && nreq == 1 && req_id[0] == 12 &&
		      req_what[0] == SRC_ACT_TERMINATE && a.what == SRC_ACT_TERMINATE && !a.batch,
	      "x on one session: one request, no batch");
	CHECK(sessact_result(&a, &sp, &ev, 0, "KILL 12: done", out, sizeof out) == NULL && a.what == 0,
	      "its result: nothing more to say");
	CHECK(logged(&ev, EV_SESSION_END, ids) == 1 && ids[0] == 12, "the session's end logged");
	sessact_send(&a, &sp, SRC_ACT_CANCEL, 13, &who, 0, NULL, NULL);
	sessact_result(&a, &sp, &ev, 0, "KILL QUERY 13: nothing was done (not the session shown)", out, sizeof out);
	sessact_send(&a, &sp, SRC_ACT_CANCEL, 14, &who, 0, NULL, NULL);
	sessact_result(&a, &sp, &ev, 1, "failed: access denied", out, sizeof out);
	CHECK(logged(&ev, EV_CANCEL, ids) == 0, "nothing done or failed: not logged");
	sessact_send(&a, &sp, SRC_ACT_CANCEL, 15, &who, 0, NULL, NULL);
	sessact_result(&a, &sp, &ev, 0, "KILL QUERY 15: done", out, sizeof out);
	CHECK(logged(&ev, EV_CANCEL, ids) == 1 && ids[0] == 15, "a statement cancelled: logged");
	events_free(&ev);
}

static void test_batch(void)
{
	struct sess_act a;
	struct sampler sp;
	struct event_log ev;
	struct session_ident who, more_who[3];
	long long more[3] = {21, 22, 23}, ids[8];
	char out[400];
	memset(&a, 0, sizeof a);
	memset(&who, 0, sizeof who);
	memset(more_who, 0, sizeof more_who);
	events_init(&ev);
	nreq = 0;
	CHECK(sessact_send(&a, &sp, SRC_ACT_TERMINATE, 20, &who, 3, more, more_who) && nreq == 1 && a.batch,
	      "x on 4 tagged sessions: the first sent, the batch kept");
	CHECK(sessact_result(&a, &sp, &ev, 0, "KILL 20: done", out, sizeof out) == NULL && nreq == 2 &&
		      req_id[1] == 21 && a.what == SRC_ACT_TERMINATE && a.id == 21,
	      "its result: the second sent");
	CHECK(sessact_result(&a, &sp, &ev, 0, "KILL 21: nothing was done (another session now)", out, sizeof out) ==
			  NULL &&
		      nreq == 3 && req_id[2] == 22,
	      "nothing done on the second: the third sent all the same");
	busy = true;
	CHECK(sessact_result(&a, &sp, &ev, 0, "KILL 22: done", out, sizeof out) == NULL && nreq == 3 && a.what == 0,
	      "the sampler busy: the fourth not sent");
	busy = false;
	const char *done = sessact_result(&a, &sp, &ev, 0, "KILL 99: done", out, sizeof out);
	CHECK_STR(done,
		  "ended 3 of 3 tagged sessions (the others were not the sessions shown, or failed); last: KILL 99: done",
		  "the batch done: how many ended of those sent");
	CHECK(!a.batch && sessact_result(&a, &sp, &ev, 0, "x", out, sizeof out) == NULL, "the batch over");
	CHECK(logged(&ev, EV_SESSION_END, ids) == 2 && ids[0] == 20 && ids[1] == 22,
	      "the sessions ended logged, the one left alone not");

	nreq = 0;
	sessact_send(&a, &sp, SRC_ACT_CANCEL, 30, &who, 1, more, more_who);
	sessact_result(&a, &sp, &ev, 1, "failed: gone", out, sizeof out);
	done = sessact_result(&a, &sp, &ev, 0, "KILL QUERY 21: done", out, sizeof out);
	CHECK_STR(done,
		  "cancelled the statements of 1 of 2 tagged sessions (the others were not the sessions shown, or "
		  "failed); last: KILL QUERY 21: done",
		  "c on 2 tagged sessions, one failed");
	events_free(&ev);
}

int main(void)
{
	test_one();
	test_batch();
	return tap_failed ? 1 : 0;
}
