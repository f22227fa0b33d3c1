/* logdev_rates.c - the log devices' figures per interval. See logdev_rates.h. */
#include "logdev_rates.h"

#include <math.h>
#include <string.h>

#include "../util/util.h"

uint64_t logdev_delta(uint64_t a, uint64_t b, bool *reset)
{
	if (b >= a)
		return b - a;
	/* a 32-bit kernel's unsigned long wrapped: a was near 2^32, b small */
	if (a <= UINT32_MAX && (a - b) > (UINT32_MAX / 2))
		return (uint64_t)UINT32_MAX + 1 - a + b;
	*reset = true;
	return 0;
}

bool logdev_derive(const struct diskstat *a, const struct diskstat *b, double dt, struct logdev_rates *r)
{
	bool reset = false;
	uint64_t wr, ws, wt, io, q, fl = 0, ft = 0;

	memset(r, 0, sizeof *r);
	str_copy(r->name, sizeof r->name, b->name);
	r->writes_s = r->wkb_s = r->flushes_s = r->w_await_ms = r->f_await_ms = r->queue = r->util_pct = NAN;
	/* a ZFS volume (zd*) has the flush fields but ZFS counts nothing in them */
	r->has_flush = b->nfields >= 17 && strncmp(b->name, "zd", 2) != 0;
	if (b->nfields == 0) {
		r->why = "not in /proc/diskstats";
		return false;
	}
	if (!a || a->nfields == 0 || !(dt > 0)) {
		r->why = "first reading";
		return false;
	}
	wr = logdev_delta(a->wr_ios, b->wr_ios, &reset);
	ws = logdev_delta(a->wr_sectors, b->wr_sectors, &reset);
	wt = logdev_delta(a->wr_ticks, b->wr_ticks, &reset);
	io = logdev_delta(a->io_ticks, b->io_ticks, &reset);
	q = logdev_delta(a->time_in_queue, b->time_in_queue, &reset);
	if (r->has_flush && a->nfields >= 17) {
		fl = logdev_delta(a->fl_ios, b->fl_ios, &reset);
		ft = logdev_delta(a->fl_ticks, b->fl_ticks, &reset);
	} else {
		r->has_flush = false;
	}
	if (reset) {
		r->why = "counters went back (device re-created)";
		return false;
	}
	r->ok = true;
	r->writes_s = (double)wr / dt;
	r->wkb_s = (double)ws * 512.0 / 1024.0 / dt;
	if (wr)
		r->w_await_ms = (double)wt / (double)wr;
	if (r->has_flush) {
		r->flushes_s = (double)fl / dt;
		if (fl)
			r->f_await_ms = (double)ft / (double)fl;
	}
	r->queue = (double)q / (dt * 1000.0);
	r->util_pct = (double)io / (dt * 1000.0) * 100.0;
	if (r->util_pct > 100)
		r->util_pct = 100;
	return true;
}

double logdev_sync_ms(const struct logdev_rates *r)
{
	if (!isfinite(r->f_await_ms))
		return NAN;
	return r->writes_s > 0 && r->w_await_ms > r->f_await_ms ? r->w_await_ms : r->f_await_ms;
}

void logdev_view_init(struct logdev_view *v, size_t history_len)
{
	memset(v, 0, sizeof *v);
	ring_init(&v->flush_ms, history_len);
	ring_init(&v->write_ms, history_len);
	ring_init(&v->util, history_len);
	ring_init(&v->writes, history_len);
	ring_init(&v->flushes, history_len);
	ring_init(&v->queue, history_len);
}

void logdev_view_free(struct logdev_view *v)
{
	ring_free(&v->flush_ms);
	ring_free(&v->write_ms);
	ring_free(&v->util);
	ring_free(&v->writes);
	ring_free(&v->flushes);
	ring_free(&v->queue);
}

void logdev_view_update(struct logdev_view *v, const struct logdev_sample *prev, const struct logdev_sample *cur,
			double dt)
{
	int i, k;
	v->n = 0;
	if (cur && cur->read) {
		v->seen = true;
		v->n = cur->n;
		for (i = 0; i < cur->n; i++) {
			const struct diskstat *a = NULL;
			if (prev && prev->read)
				for (k = 0; k < prev->n; k++)
					if (strcmp(prev->d[k].name, cur->d[i].name) == 0)
						a = &prev->d[k];
			logdev_derive(a, &cur->d[i], dt, &v->cur[i]);
		}
	}
	const struct logdev_rates *r = v->n > 0 && v->cur[0].ok ? &v->cur[0] : NULL;
	ring_push(&v->flush_ms, r ? r->f_await_ms : NAN);
	ring_push(&v->write_ms, r ? r->w_await_ms : NAN);
	ring_push(&v->util, r ? r->util_pct : NAN);
	ring_push(&v->writes, r ? r->writes_s : NAN);
	ring_push(&v->flushes, r ? r->flushes_s : NAN);
	ring_push(&v->queue, r ? r->queue : NAN);
}
