/* travel.c - time travel on the screen, without curses (see travel.h). */
#include "travel.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

/* What the call has to say (the newest wins). */
static void say(struct travel *tr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct travel *tr, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tr->msg, sizeof tr->msg, fmt, ap);
	va_end(ap);
	tr->said = true;
}

static const char *said(const struct travel *tr)
{
	return tr->said ? tr->msg : NULL;
}

/* Ask a replay for its samples up to wall time at at once (0: none);
 * its sampler thread reads src->seek_to, so the store is atomic. */
static void seek_set(struct source *src, double at)
{
	if (src)
		__atomic_store(&src->seek_to, &at, __ATOMIC_RELEASE);
}

void travel_init(struct travel *tr, struct history *hist, bool replay, bool fleet)
{
	memset(tr, 0, sizeof *tr);
	tr->hist = hist;
	tr->replay = replay;
	tr->fleet = fleet;
}

void travel_free(struct travel *tr)
{
	if (tr->built) {
		model_free(tr->built);
		free(tr->built);
	}
	tr->built = NULL;
}

void travel_show(struct travel *tr, struct model *live, struct source *src, struct sampler *sp)
{
	tr->m = live;
	tr->live = live;
	tr->src = src;
	tr->sp = sp;
}

void travel_reset(struct travel *tr, struct model *live)
{
	tr->m = tr->live = live;
	tr->ended = false;
	tr->paused = false;
	tr->at_seq = 0;
	tr->at_wall = 0;
	tr->at_built = false;
	tr->pull_n = 0;
	tr->pull_wall = 0;
	tr->pull_to = 0;
	tr->tl_cursor = 0;
	tr->tl_seq = 0;
	travel_free(tr);
}

static void land(struct travel *tr, long i, bool force)
{
	struct history *h = tr->hist;
	char err[256];
	double t0 = clock_mono();
	if (!h || i < 0 || (size_t)i >= h->n)
		return;
	tr->at_seq = h->e[i].seq;
	tr->at_wall = h->e[i].wall;
	if (!force && (size_t)i == h->n - 1 && tr->live->intervals > 0 && tr->live->last.wall == h->e[i].wall) {
		tr->m = tr->live;
		tr->at_built = false;
		return;
	}
	if (!tr->built) {
		tr->built = xmalloc(sizeof *tr->built);
		model_init(tr->built, tr->live->hist_t.cap);
	}
	if (hist_step(h, (size_t)i, tr->built, tr->live, err, sizeof err) < 0) {
		say(tr, "history: %s", err);
		tr->m = tr->live;
		tr->at_built = false;
		return;
	}
	tr->m = tr->built;
	tr->at_built = true;
	tr->rebuilds++;
	double dt = clock_mono() - t0;
	tr->rebuild_total += dt;
	if (dt > tr->rebuild_max)
		tr->rebuild_max = dt;
}

const char *travel_land_at(struct travel *tr, long i, bool force)
{
	tr->said = false;
	land(tr, i, force);
	return said(tr);
}

void travel_freeze(struct travel *tr)
{
	if (tr->paused)
		return;
	tr->paused = true;
	if (tr->sp)
		sampler_pause(tr->sp, true);
	tr->pull_n = 0;
	tr->pull_wall = 0;
	tr->pull_to = 0;
	tr->at_wall = 0;
	if (tr->hist && tr->hist->n)
		land(tr, (long)tr->hist->n - 1, false);
}

void travel_live(struct travel *tr)
{
	tr->paused = false;
	tr->m = tr->live;
	tr->at_built = false;
	tr->at_wall = 0;
	tr->pull_n = 0;
	tr->pull_wall = 0;
	tr->pull_to = 0;
	seek_set(tr->src, 0);
	if (tr->sp)
		sampler_pause(tr->sp, false);
}

long travel_index(const struct travel *tr)
{
	struct history *h = tr->hist;
	long i = hist_find_seq(h, tr->at_seq);
	if (i < 0 && h && h->n)
		i = tr->at_seq < h->e[0].seq ? 0 : (long)h->n - 1;
	return i;
}

/* A replay frozen past its newest sample: read on, to = last + n samples
 * (n != 0) or up to wall time wall. */
static void read_on(struct travel *tr, int n, long past, double wall, double interval)
{
	if (n) {
		tr->pull_n = (int)past;
		if (tr->src)
			__atomic_add_fetch(&tr->src->seek_steps, tr->pull_n, __ATOMIC_ACQ_REL);
		return;
	}
	/* the samples up to the one at or just after wall come at once */
	double iv = isfinite(tr->live->interval_s) && tr->live->interval_s > 0 ? tr->live->interval_s : interval;
	tr->pull_wall = wall;
	tr->pull_to = wall;
	seek_set(tr->src, wall + iv);
}

static void move(struct travel *tr, int n, double wall, double interval)
{
	struct history *h = tr->hist;
	if (!h || !h->n) {
		say(tr,
		    tr->fleet ? "no history kept: it is kept with one target only" : "no history kept (--history 0)");
		return;
	}
	long i = travel_index(tr), last = (long)h->n - 1;
	long to = n ? i + n : hist_nearest(h, wall);
	if (n == 0 && wall > h->e[last].wall)
		to = last + 1;
	if (to < 0) {
		to = 0;
		if (i == 0)
			say(tr, "the oldest sample kept (--history %gm)", h->keep / 60);
	}
	if (to > last) {
		if (tr->replay && !tr->ended) {
			/* read on: the samples queued first, then the source's */
			read_on(tr, n, to - last, wall, interval);
			return;
		}
		to = last;
		say(tr, tr->replay ? "the end of the recording" : "the newest sample: End or space goes live");
	}
	land(tr, to, false);
}

const char *travel_move(struct travel *tr, int n, double wall, double interval)
{
	tr->said = false;
	move(tr, n, wall, interval);
	return said(tr);
}

const char *travel_command(struct travel *tr, int cmd, double interval)
{
	tr->said = false;
	if (!tr->step_t0)
		tr->step_t0 = clock_mono();
	if (!tr->paused) {
		if (cmd == TR_NEXT || cmd == TR_NEXT_MIN || cmd == TR_LIVE)
			return NULL; /* live already */
		travel_freeze(tr);
	}
	double at = tr->at_wall;
	switch (cmd) {
	case TR_PREV: move(tr, -1, 0, interval); break;
	case TR_NEXT: move(tr, +1, 0, interval); break;
	case TR_PREV_MIN: move(tr, 0, at - 60, interval); break;
	case TR_NEXT_MIN: move(tr, 0, at + 60, interval); break;
	case TR_OLDEST: move(tr, 0, -1, interval); break;
	case TR_LIVE:
		travel_live(tr);
		say(tr, "live");
		break;
	default: break;
	}
	return said(tr);
}

const char *travel_to(struct travel *tr, double wall, double interval)
{
	tr->said = false;
	travel_freeze(tr);
	move(tr, 0, wall, interval);
	return said(tr);
}

bool travel_range(const struct travel *tr, double *oldest, double *newest)
{
	return hist_range(tr->hist, oldest, newest);
}

bool travel_is_mark(const struct event *e)
{
	switch (e->kind) {
	case EV_FINDING:
	case EV_SETTING:
	case EV_RESTART:
	case EV_DOWN:
	case EV_STALLED:
	case EV_LOCK_CHAIN:
	case EV_INCIDENT: return true;
	default: return false;
	}
}

void travel_timeline(const struct travel *tr, const struct event_log *ev, double ev_start, double *t0, double *t1)
{
	if (travel_range(tr, t0, t1) && *t1 > *t0)
		return;
	*t1 = tr->live->intervals ? tr->live->last.wall : clock_wall();
	*t0 = ev_start > 0 ? ev_start : *t1;
	if (ev->n && events_at(ev, 0)->wall < *t0)
		*t0 = events_at(ev, 0)->wall;
}

void travel_to_event(struct travel *tr, const struct event *e, double interval)
{
	tr->tl_cursor = e->wall;
	tr->tl_seq = e->seq;
	if (tr->hist && tr->hist->n)
		travel_to(tr, e->wall, interval);
}

const struct event *travel_mark(struct travel *tr, const struct event_log *ev, bool next)
{
	const struct event *best = NULL;
	if (!tr->paused && tr->hist)
		tr->tl_seq = 0; /* live again: from now */
	for (size_t i = 0; i < ev->n; i++) {
		const struct event *e = events_at(ev, i);
		if (!travel_is_mark(e))
			continue;
		if (next ? tr->tl_seq && e->seq > tr->tl_seq && !best : !tr->tl_seq || e->seq < tr->tl_seq)
			best = e;
	}
	if (best)
		return best;
	tr->tl_cursor = 0;
	tr->tl_seq = 0;
	if (next && tr->paused)
		travel_live(tr);
	return NULL;
}

bool travel_pulling(const struct travel *tr)
{
	return tr->pull_n > 0 || tr->pull_wall > 0;
}

bool travel_takes(const struct travel *tr)
{
	return !(tr->paused && tr->replay) || travel_pulling(tr);
}

bool travel_pulled_one(struct travel *tr)
{
	if (tr->pull_n > 0)
		tr->pull_n--;
	if (tr->pull_wall > 0 && tr->live->last.wall >= tr->pull_wall)
		tr->pull_wall = 0;
	return !travel_pulling(tr);
}

const char *travel_pull_done(struct travel *tr)
{
	struct history *h = tr->hist;
	tr->said = false;
	if (!tr->paused || !h || !h->n || travel_pulling(tr))
		return NULL;
	seek_set(tr->src, 0);
	land(tr, tr->pull_to > 0 ? hist_nearest(h, tr->pull_to) : (long)h->n - 1, false);
	tr->pull_to = 0;
	return said(tr);
}

bool travel_end(struct travel *tr)
{
	tr->ended = true;
	if (travel_pulling(tr)) {
		tr->pull_n = 0;
		tr->pull_wall = 0;
		return true;
	}
	return false;
}

const char *travel_follow(struct travel *tr)
{
	struct history *h = tr->hist;
	tr->said = false;
	if (h && tr->paused && !tr->at_built && tr->m == tr->live && tr->at_wall > 0) {
		long i = hist_find_seq(h, tr->at_seq);
		if (i >= 0)
			land(tr, i, true);
	}
	return said(tr);
}

void travel_drawn(struct travel *tr)
{
	if (tr->step_t0 > 0 && !travel_pulling(tr)) {
		double dt = clock_mono() - tr->step_t0;
		tr->step_t0 = 0;
		tr->steps++;
		tr->step_total += dt;
		if (dt > tr->step_max)
			tr->step_max = dt;
	}
}
