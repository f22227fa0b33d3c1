/* pace.c - when the costly reads are due (pace.h): the budget's pacing,
 * the lock graph kept between paced reads, the subsample rate. */
#include "pace.h"

#include <assert.h>

#include "../model/forecast.h"
#include "../model/locks.h"
#include "../model/waits.h"
#include "../util/util.h"

static double pace_next(const struct source *src, double now, double cost_ms, double share, double cap, int read);
static void pace_spent(struct source *src, int read, double now, double cost_ms, double next, double seen);
/* The tick jitter a due time allows for at interval iv: a read due 3 s on
 * is taken by the refresh that comes at 2.98 s. */
static double pace_slack(double iv)
{
	return iv / 10 < PACE_SLACK_S ? iv / 10 : PACE_SLACK_S;
}
static const double paced_share[PACED__COUNT] = {
	[PACED_LOCKS] = PACE_SHARE_LOCKS,
	[PACED_DIGESTS] = PACE_SHARE_DIGESTS,
	[PACED_SESSIONS] = PACE_SHARE_SESSIONS,
};

double pace_summary_next(double next, double now, bool second)
{
	double at = now + PACE_SUMMARY_EVERY_S;
	return second ? (next > at ? at : next) : (next < at ? at : next);
}

double pace_summary_read(struct pacer *pc, const struct source *src, double now, double cost_ms)
{
	double next = source_pace_next_max(src, now, cost_ms > 0 ? cost_ms : 0, PACE_SHARE_SUMMARY, PACE_MAX_SUMMARY_S);
	bool second = !pc->reads++;
	/* the second reading is one read, not a pace: at the next refresh
	 * when it fits in what the budget leaves a refresh */
	if (second && !(cost_ms > src->budget_ms - (src->fixed_ms > 0 ? src->fixed_ms : 0)))
		next = now;
	pc->next = pace_summary_next(next, now, second);
	pc->last = now;
	return pc->next - now + PACE_SLACK_S;
}

void pace_waits_note(struct wait_set *ws, double every, double ms)
{
	char was[sizeof ws->note];
	if (!ws || wait_note_stopped(ws->note) || every < PACE_SUMMARY_EVERY_S + 1)
		return;
	str_copy(was, sizeof was, ws->note);
	str_printf(ws->note, sizeof ws->note, "%s%sread every %.0f s (%.*f ms a read, --server-budget)", was,
		   was[0] ? "; " : "", every, ms < 9.95 ? 1 : 0, ms);
}

bool pace_due_at(double next, double now, bool busy)
{
	return now >= next && !(busy && now < next + 1.0);
}

bool pace_due(const struct pacer *pc, double now, bool busy)
{
	return pace_due_at(pc->next, now, busy);
}

bool pace_due_shown(const struct pacer *pc, const struct source *src, double now, bool busy)
{
	if (!pace_due(pc, now, busy))
		return false;
	return pc->reads < 2 || !__atomic_load_n(&src->background, __ATOMIC_RELAXED) ||
	       now >= pc->last + PACE_BACKGROUND_S - PACE_SLACK_S;
}

double pace_every_shown(const struct source *src, double every)
{
	return __atomic_load_n(&src->background, __ATOMIC_RELAXED) && every < PACE_BACKGROUND_S ? PACE_BACKGROUND_S
												: every;
}

double pace_done(struct pacer *pc, const struct source *src, double now, double cost_ms, double share)
{
	return pace_done_max(pc, src, now, cost_ms, share, PACE_MAX_S);
}

/* A read at now, the next at next (the second comes at once whatever
 * next says: the first rates need two); the s between for a note. */
static double pacer_set(struct pacer *pc, double now, double next)
{
	pc->last = now;
	pc->next = pc->reads++ ? next : 0;
	return pc->next > now + 0.5 ? pc->next - now + 0.1 : 0;
}

double pace_done_max(struct pacer *pc, const struct source *src, double now, double cost_ms, double share, double cap)
{
	return pacer_set(pc, now, source_pace_next_max(src, now, cost_ms, share, cap));
}

double pace_done_read(struct pacer *pc, struct source *src, double now, double cost_ms, int read)
{
	assert(read >= 0 && read < PACED__COUNT);
	double every = pacer_set(pc, now, pace_next(src, now, cost_ms, paced_share[read], PACE_MAX_S, read));
	pace_spent(src, read, now, cost_ms, pc->next,
		   __atomic_load_n(&src->background, __ATOMIC_RELAXED) ? PACE_BACKGROUND_S : 0);
	return every;
}

void pace_rebase(struct pacer *pc, double now)
{
	if (pc->reads < 2 || !(pc->next > pc->last) || !(now > pc->last))
		return; /* not paced yet (the first two come at once), or read at every refresh */
	pc->next += now - pc->last;
	pc->last = now;
}

bool pace_after_change(const struct pacer *pc, const struct source *src, double now)
{
	if (!(src->changed_mono > 0))
		return false;
	double iv = src->interval > 0 ? src->interval : 1;
	double a = src->changed_mono + FC_SETTLE_INTERVALS * iv - PACE_SLACK_S;
	double b = src->changed_mono + (FC_SETTLE_INTERVALS + FC_MEASURE_INTERVALS - 1) * iv - PACE_SLACK_S;
	if (now >= b)
		return pc->last < b && now < b + FC_MEASURE_MAX_S;
	return now >= a && pc->last < a;
}

double pace_baseline(double avg, double x, double alpha)
{
	if (!(avg > 0))
		return x;
	if (x > 2 * avg)
		x = 2 * avg;
	return (1 - alpha) * avg + alpha * x;
}

bool pace_costly(bool was, double more, double least)
{
	return more >= (was ? least / 2 : least);
}

bool pace_every(struct pacer *pc, double now, double every)
{
	if (now < pc->next)
		return false;
	pc->next = now + every;
	pc->reads++;
	return true;
}

int form_pick_next(const struct form_pick *fp, int only)
{
	if (only == 0 || only == 1)
		return only;
	int other = !fp->use;
	double in_use = fp->ms[fp->use];
	unsigned n = fp->reads + 1;
	bool worth = in_use >= FORM_PICK_WORTH_MS, tried = fp->ms[other] > 0;
	if (!worth)
		return fp->use;
	if (!tried)
		return n >= FORM_PICK_FIRST_TRY || (n >= 3 && in_use >= FORM_PICK_COSTLY_MS) ? other : fp->use;
	return fp->spent >= FORM_PICK_TRY_RATIO * fp->ms[other] ? other : fp->use;
}

void form_pick_cost(struct form_pick *fp, int form, double ms)
{
	assert(form == 0 || form == 1);
	fp->reads++;
	if (!(ms >= 0))
		return;
	if (form == fp->use) {
		fp->ms[form] = fp->ms[form] > 0 ? 0.7 * fp->ms[form] + 0.3 * ms : ms;
		fp->spent += ms;
	} else {
		fp->ms[form] = ms > 0 ? ms : 1e-3; /* a try: the last one stands */
		fp->spent = 0;
	}
	int other = !fp->use;
	if (fp->ms[other] > 0 && fp->ms[other] < FORM_PICK_SWITCH * fp->ms[fp->use] &&
	    fp->ms[fp->use] - fp->ms[other] >= FORM_PICK_GAIN_MS) {
		fp->use = other;
		fp->spent = 0;
	}
}

struct lock_set *source_locks_begin(struct source *src, struct sample *out, unsigned waiting, bool busy,
				    double *now)
{
	struct lock_set *ls = lock_set_new();
	out->locks = ls;
	ls->waiting = waiting;
	*now = clock_mono();
	if (waiting && source_first_reads_wait(src, FIRST_LOCKS)) {
		/* the first frame first: the graph at the next refreshes */
		ls->status = LOCKS_PENDING;
		str_copy(ls->note, sizeof ls->note, FIRST_READ_NOTE);
		return NULL;
	}
	struct lock_set *kept = source_locks_reuse(src, waiting, *now, busy);
	if (kept) {
		/* a costly graph read a moment ago (--server-budget) */
		lock_set_free(ls);
		out->locks = kept;
		return NULL;
	}
	return waiting ? ls : NULL;   /* 0: LOCKS_IDLE, no lock-table query */
}

bool source_locks_uncounted(struct source *src, struct sample *out)
{
	if (!source_first_reads_wait(src, FIRST_LOCKS))
		return false;
	struct lock_set *ls = lock_set_new();
	out->locks = ls;
	ls->status = LOCKS_PENDING;
	str_copy(ls->note, sizeof ls->note, FIRST_READ_NOTE);
	return true;
}

void source_locks_end(struct source *src, struct lock_set *ls, bool read, double now)
{
	if (read)
		ls->status = LOCKS_READ;
	lock_set_analyse(ls);
	source_locks_read(src, ls, ls->query_ms, now);
}

double source_pace_next(const struct source *src, double now, double cost_ms, double share)
{
	return pace_next(src, now, cost_ms, share, PACE_MAX_S, -1);
}

double source_pace_next_max(const struct source *src, double now, double cost_ms, double share, double cap)
{
	return pace_next(src, now, cost_ms, share, cap, -1);
}

/* What the large paced reads other than `read` spend a refresh at now
 * (src->paced_ms while it holds). */
static double paced_others(const struct source *src, int read, double now)
{
	double sum = 0;
	for (int k = 0; k < PACED__COUNT; k++)
		if (k != read && now <= src->paced_until[k] && src->paced_ms[k] > 0)
			sum += src->paced_ms[k];
	return sum;
}

/* Keep what `read`, read at now for cost_ms and next at next (0: at the
 * next refresh), spends a refresh at that pace (at least seen s apart). */
static void pace_spent(struct source *src, int read, double now, double cost_ms, double next, double seen)
{
	double iv = src->interval > 0 ? src->interval : 1;
	/* the s to the next read, as its refresh will take it (the slack
	 * back), at least one refresh */
	double period = next > now ? next - now + pace_slack(iv) : iv;
	if (period < seen)
		period = seen;
	if (period < iv)
		period = iv;
	src->paced_ms[read] = cost_ms > 0 && src->budget_ms > 0 ? cost_ms * iv / period : 0;
	src->paced_until[read] = now + period + 2 * iv;
}

double source_pace_read(struct source *src, int read, double now, double cost_ms)
{
	assert(read >= 0 && read < PACED__COUNT);
	double next = pace_next(src, now, cost_ms, paced_share[read], PACE_MAX_S, read);
	pace_spent(src, read, now, cost_ms, next, 0);
	return next;
}

void source_pace_joined(struct source *src, int read, double own_ms, double total_ms)
{
	assert(read >= 0 && read < PACED__COUNT);
	if (total_ms > 0 && own_ms >= 0 && own_ms < total_ms)
		src->paced_ms[read] *= own_ms / total_ms;
}

static double pace_next(const struct source *src, double now, double cost_ms, double share, double cap, int read)
{
	double left = src->budget_ms - (src->fixed_ms > 0 ? src->fixed_ms : 0);
	/* the summaries are paid first (their share is of what every refresh
	 * leaves); the reads with the larger shares take what they leave */
	if (share > PACE_SHARE_SUMMARY && src->summary_ms > 0)
		left -= src->summary_ms;
	if (!(left >= src->budget_ms * PACE_LEFT_MIN))
		left = src->budget_ms * PACE_LEFT_MIN;
	double per_refresh = left * share, iv = src->interval > 0 ? src->interval : 1, period;
	/* a large read takes no more than the others leave of it (one held
	 * at its limit spends beyond its share), down to the floor's share */
	double others = read >= 0 ? paced_others(src, read, now) : 0;
	if (per_refresh > left - others)
		per_refresh = left - others;
	if (!(per_refresh >= src->budget_ms * PACE_LEFT_MIN * share))
		per_refresh = src->budget_ms * PACE_LEFT_MIN * share;
	if (!(per_refresh > 0) || !(cost_ms > 0))
		return 0;
	period = iv * cost_ms / per_refresh;
	if (period > cap)
		period = cap;
	return now + period - pace_slack(iv);
}

/* The server's counters say no lock wait began or ended since the graph
 * read last (src->lk_stamp), and that puts its next read later. */
static bool locks_still(const struct source *src)
{
	return src->lk_stamp_now != 0 && src->lk_stamp_now == src->lk_stamp && src->lk_still_next > src->lk_next;
}

/* The graph read last stands in at now (not read again): the same
 * connection, not due, the pile-up about the same size. */
static bool locks_kept(const struct source *src, unsigned waiting, double now, bool busy)
{
	/* the time of a read (later while no wait began or ended since the
	 * last), or of an idle blocker's claim (lock_set_idle_recheck) */
	double next = locks_still(src) ? src->lk_still_next : src->lk_next;
	bool due = pace_due_at(next, now, busy) || pace_due_at(src->lk_recheck, now, busy);
	/* a pile-up that grew or shrank by more than a quarter is read again */
	unsigned was = src->lk_last ? src->lk_last->waiting : 0, d = waiting > was ? waiting - was : was - waiting;
	bool changed = d > 1 && d * 4 > was;
	return waiting && src->lk_last && src->lk_gen == src->conn_gen && !due && !changed;
}

bool source_locks_due(const struct source *src, unsigned waiting, double now)
{
	if (!waiting || source_first_reads_wait(src, FIRST_LOCKS))
		return false;
	return !locks_kept(src, waiting, now, false);
}

/* The note of a graph kept from age s ago: its cost and how often it is
 * read (with the session list: as often as the list, when that is
 * sooner). */
static void locks_kept_note(const struct source *src, const struct lock_set *ls, double age, char *note, size_t len)
{
	bool still = locks_still(src);
	double every = (still ? src->lk_still_next : src->lk_next) + src->lk_lead - src->lk_read + 0.1;
	bool with = src->lk_with_list && src->want_sessions;
	if (with && src->ss_next > src->lk_read && src->ss_next - src->lk_read + 0.1 < every) {
		every = src->ss_next - src->lk_read + 0.1;
		still = false;
	}
	str_printf(note, len,
		   "graph from %.0f s ago: it takes %.0f ms of server time to read%s, "
		   "so it is read every %.0f s%s (--server-budget)%s%s",
		   age, ls->query_ms, with ? " with the session list" : "", every,
		   still ? " while no lock wait begins or ends" : "", ls->note[0] ? "; " : "", ls->note);
}

/* A copy of the graph read last, aged to now. */
static struct lock_set *locks_aged(struct source *src, unsigned waiting, double now)
{
	struct lock_set *ls = lock_set_copy(src->lk_last);
	double age = now - src->lk_read;
	ls->waiting = waiting;
	ls->age_s = age;
	for (size_t i = 0; i < ls->ns; i++) {
		struct lock_session *s = &ls->s[i];
		/* what they were doing then, as long as it has lasted since */
		s->state_s += age;
		s->trx_age_s += age;
		s->wait_s += age;
	}
	char note[LOCK_NOTE_LEN];
	if (ls->status == LOCKS_TIMED_OUT)
		str_printf(note, sizeof note, "%s%snext try in %.0f s (--server-budget)", ls->note,
			   ls->note[0] ? "; " : "", src->lk_next - now + 0.5);
	else
		locks_kept_note(src, ls, age, note, sizeof note);
	str_copy(ls->note, sizeof ls->note, note);
	return ls;
}

struct lock_set *source_locks_reuse(struct source *src, unsigned waiting, double now, bool busy)
{
	if (!locks_kept(src, waiting, now, busy)) {
		if (!waiting) {
			lock_set_free(src->lk_last);
			src->lk_last = NULL;
		}
		return NULL;
	}
	return locks_aged(src, waiting, now);
}

struct lock_set *source_locks_last(struct source *src, unsigned waiting, double now)
{
	return src->lk_last && src->lk_gen == src->conn_gen ? locks_aged(src, waiting, now) : NULL;
}

double source_sub_hz(const struct source *src)
{
	return src->sub_every > 0 ? 1.0 / src->sub_every : src->sub_hz;
}

double source_subsample(struct source *src)
{
	double t0 = clock_mono(), ms, every = src->sub_hz > 0 ? 1.0 / src->sub_hz : 1;
	double iv = src->interval > 0 ? src->interval : 1, per = src->budget_ms * PACE_SHARE_SAMPLING;
	double slowest = every > 1.0 / PACE_SUB_MIN_HZ ? every : 1.0 / PACE_SUB_MIN_HZ;
	src->sub_server_ms = -1;
	src->ops->subsample(src);
	ms = src->sub_server_ms >= 0 ? src->sub_server_ms : (clock_mono() - t0) * 1000;
	src->sub_cost_ms = src->sub_cost_ms > 0 ? 0.8 * src->sub_cost_ms + 0.2 * ms : ms;
	if (per > 0 && src->sub_cost_ms >= PACE_SUB_FLOOR_MS) {
		/* rounds per refresh that fit its share: per / cost (a look
		 * cheaper than the floor is never paced) */
		double e = iv * src->sub_cost_ms / per;
		if (e > slowest)
			e = slowest;
		if (e > every)
			every = e;
	}
	/* a target in the background looks once per refresh */
	if (__atomic_load_n(&src->background, __ATOMIC_RELAXED) && every < iv)
		every = iv;
	src->sub_every = every;
	return every;
}

void source_locks_forget(struct source *src)
{
	lock_set_free(src->lk_last);
	src->lk_last = NULL;
}

/* Every root blocker of ls sits idle in its transaction: what it does can
 * change only by a statement of its own, and a pile-up that no wait
 * leaves or joins says it has not ended. A root that runs a statement
 * may go idle at any moment without a wait beginning or ending, and the
 * findings' idle blocker would wait for the next read. */
static bool locks_roots_idle(const struct lock_set *ls)
{
	size_t roots = 0;
	for (size_t i = 0; ls && i < ls->ns; i++) {
		const struct lock_session *s = &ls->s[i];
		if (!s->is_root || s->blocked <= 0)
			continue;
		if (!lock_session_idle_blocker(s))
			return false;
		roots++;
	}
	return roots > 0;
}

void source_locks_read(struct source *src, const struct lock_set *ls, double ms, double now)
{
	source_first_read_done(src, FIRST_LOCKS, ms, true);
	lock_set_free(src->lk_last);
	src->lk_last = NULL;
	/* a read that gave nothing may wait longer (the count moving by a
	 * quarter still reads at once) */
	double cap = ls && ls->status == LOCKS_TIMED_OUT ? PACE_MAX_TIMED_OUT_S : PACE_MAX_S;
	src->lk_next = pace_next(src, now, ms, PACE_SHARE_LOCKS, cap, PACED_LOCKS);
	src->lk_still_next =
		locks_roots_idle(ls) ? pace_next(src, now, ms, PACE_SHARE_LOCKS, PACE_MAX_STILL_S, PACED_LOCKS) : 0;
	if (src->lk_still_next < src->lk_next)
		src->lk_still_next = src->lk_next;
	/* it spends at the pace it keeps: the longer one while the pile-up
	 * holds (the server's counters say so: src->lk_stamp) */
	pace_spent(src, PACED_LOCKS, now, ms, src->lk_stamp_now ? src->lk_still_next : src->lk_next, 0);
	src->lk_stamp = src->lk_stamp_now;
	/* kept only when some refresh before the next read will show it */
	double iv = src->interval > 0 ? src->interval : 1;
	if (!ls || (ls->status != LOCKS_READ && ls->status != LOCKS_TIMED_OUT) || src->lk_next <= now + iv / 2)
		return;
	src->lk_last = lock_set_copy(ls);
	src->lk_read = now;
	src->lk_recheck = now + lock_set_idle_recheck(ls);
	src->lk_gen = src->conn_gen;
}

