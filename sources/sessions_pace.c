/* sessions_pace.c - the session list under --server-budget: read on every
 * refresh while it is cheap, else every few refreshes, the list read last
 * standing in between (its age said). Both engines. */
#include "source.h"
#include "pace.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "../util/util.h"

/* The list was read on this connection (its first read may come before
 * its turn, with the lock graph's: source_sessions_join). */
static bool sessions_begun(const struct source *src)
{
	return src->ss_read_gen != 0 && src->ss_read_gen == src->conn_gen;
}

struct session_set *source_sessions_reuse(struct source *src, double due_at, double now, bool busy)
{
	if (source_first_reads_wait(src, FIRST_SESSIONS) && !sessions_begun(src)) {
		/* the first frame first: the list at the next refreshes */
		struct session_set *w = session_set_new();
		w->status = SESS_NOT_READ;
		str_copy(w->note, sizeof w->note, FIRST_READ_NOTE);
		return w;
	}
	assert(due_at <= now);
	bool due = pace_due_at(src->ss_next, due_at, busy);
	if (!src->ss_last || src->ss_gen != src->conn_gen || src->ss_idle != src->sessions_idle || due)
		return NULL;
	struct session_set *ss = session_set_copy(src->ss_last);
	double age = now - src->ss_read;
	ss->age_s = age;
	for (size_t i = 0; i < ss->n; i++) {
		struct session *s = &ss->s[i];
		/* what they were doing then, as long as it has lasted since */
		s->state_s += age;
		s->trx_age_s += age;
		s->query_s += age;
	}
	char note[SESSION_NOTE_LEN];
	str_printf(note, sizeof note, "list from %.*f s ago: it takes %.*f ms of server time to read, "
		   "so it is read every %.0f s (--server-budget)%s%s", age < 10 ? 1 : 0, age,
		   ss->query_ms < 10 ? 1 : 0, ss->query_ms,
		   src->ss_next - src->ss_read + 0.1, ss->note[0] ? "; " : "", ss->note);
	str_copy(ss->note, sizeof ss->note, note);
	return ss;
}

bool source_sessions_due(const struct source *src, double now)
{
	if (source_first_reads_wait(src, FIRST_SESSIONS) && !sessions_begun(src))
		return false;
	return !src->ss_last || src->ss_gen != src->conn_gen || src->ss_idle != src->sessions_idle ||
	       now >= src->ss_next;
}

bool source_sessions_join(const struct source *src, double now)
{
	if (source_sessions_due(src, now))
		return true;
	if (source_first_reads_wait(src, FIRST_SESSIONS))
		return !sessions_begun(src) && !source_first_reads_wait(src, FIRST_LOCKS);
	return now >= src->ss_next - (src->ss_next - src->ss_read) / 2;
}

void source_sessions_forget(struct source *src)
{
	session_set_free(src->ss_last);
	src->ss_last = NULL;
	src->ss_next = 0;
	src->ss_read_gen = 0;
	src->paced_until[PACED_SESSIONS] = 0; /* not read: spends nothing */
}

void source_sessions_read(struct source *src, const struct session_set *ss, double ms, double now)
{
	session_set_free(src->ss_last);
	src->ss_last = NULL;
	source_first_read_done(src, FIRST_SESSIONS, ms, true);
	src->ss_next = source_pace_read(src, PACED_SESSIONS, now, ms);
	src->ss_read_gen = src->conn_gen;
	double iv = src->interval > 0 ? src->interval : 1;
	/* kept only when some refresh before the next read will show it */
	if (!ss || ss->status == SESS_UNAVAILABLE || ss->status == SESS_NOT_READ || src->ss_next <= now + iv / 2)
		return;
	src->ss_last = session_set_copy(ss);
	src->ss_read = now;
	src->ss_gen = src->conn_gen;
	src->ss_idle = src->sessions_idle;
}
