/* sessact.c - ending or cancelling sessions on one target (sessact.h). */
#include "sessact.h"

#include <string.h>

#include "../sources/source.h"
#include "../util/util.h"

/* Ask sp for action what (SRC_ACT_*) on session id (who: as shown). */
static bool send_act(struct sampler *sp, int what, long long id, const struct session_ident *who)
{
	struct target_cmd c = {.kind = what == SRC_ACT_TERMINATE ? CMD_KILL : CMD_CANCEL};
	c.arg.session.id = id;
	c.arg.session.who = *who;
	return sampler_send(sp, &c);
}

bool sessact_send(struct sess_act *a, struct sampler *sp, int what, long long id, const struct session_ident *who,
		  int n, const long long *more_id, const struct session_ident *more_who)
{
	if (!send_act(sp, what, id, who))
		return false;
	a->what = what;
	a->id = id;
	/* the first was sent; the others one by one as each result comes */
	a->batch = 0;
	if (n <= 0)
		return true;
	if (n > SESSACT_MAX)
		n = SESSACT_MAX;
	a->batch = what;
	a->n = n;
	memcpy(a->more_id, more_id, (size_t)n * sizeof *more_id);
	memcpy(a->more_who, more_who, (size_t)n * sizeof *more_who);
	a->next = 0;
	a->ok = 0;
	a->sent = 1;
	return true;
}

const char *sessact_result(struct sess_act *a, struct sampler *sp, struct event_log *ev, int rc, const char *msg,
			   char *out, size_t len)
{
	if (a->what && rc == 0 && !strstr(msg, "nothing was done") && !strstr(msg, "returned false"))
		events_session_act(ev, clock_wall(), a->what == SRC_ACT_TERMINATE, a->id, msg);
	a->what = 0;
	if (!a->batch)
		return NULL;
	a->ok += rc == 0 && !strstr(msg, "nothing was done");
	if (a->next >= a->n) {
		str_printf(out, len,
			   "%s %d of %d tagged sessions (the others were not the sessions shown, or failed); last: %s",
			   a->batch == SRC_ACT_TERMINATE ? "ended" : "cancelled the statements of", a->ok, a->sent,
			   msg);
		a->batch = 0;
		return out;
	}
	int k = a->next++;
	if (send_act(sp, a->batch, a->more_id[k], &a->more_who[k])) {
		a->sent++;
		a->what = a->batch;
		a->id = a->more_id[k];
	}
	return NULL;
}
