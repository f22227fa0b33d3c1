/* logdev_rates.h - the log devices' figures per interval from two readings of
 * /proc/diskstats (core/logdev.h): writes/s, flushes/s, write and flush
 * latency, queue depth and utilisation, as iostat derives them. Pure. */
#ifndef DBTOP_MODEL_LOGDEV_RATES_H
#define DBTOP_MODEL_LOGDEV_RATES_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/logdev.h"
#include "ring.h"

/* One device over one interval. A figure is NaN when it is unknown (why
 * says so) or undefined (an await with no request in the interval). */
struct logdev_rates {
	char name[LOGDEV_NAME];
	bool ok;               /* the interval's figures are there */
	const char *why;       /* when not ok: "first reading", "counters went back", "not in /proc/diskstats" */
	bool has_flush;        /* the kernel counts this device's flushes (5.5+) */
	double writes_s;       /* write requests completed per second */
	double wkb_s;          /* KiB written per second */
	double flushes_s;      /* flush requests completed per second (NaN: not counted) */
	double w_await_ms;     /* average write request time, queue included */
	double f_await_ms;     /* average flush request time */
	double queue;          /* average requests in flight (aqu-sz) */
	double util_pct;       /* share of the interval with a request in flight, 0-100 */
};

/* b - a of a cumulative counter: a 32-bit counter that wrapped is
 * unwrapped; a counter that went back otherwise sets *reset. */
uint64_t logdev_delta(uint64_t a, uint64_t b, bool *reset);

/* The figures of the interval dt (s) from reading a to reading b of the
 * same device into r. Returns true when r->ok. */
bool logdev_derive(const struct diskstat *a, const struct diskstat *b, double dt, struct logdev_rates *r);

/* The device's part of one sync, at least: a sync writes its pages, then
 * flushes the device's cache, each waiting in the device's queue behind
 * the other requests, so it takes at least the longer of the interval's
 * mean write and mean flush (not their sum: on a busy host the kernel's
 * completions of both stretch alike, and the sum would double that). The
 * flush alone when no write completed; NaN when the flush is not timed. */
double logdev_sync_ms(const struct logdev_rates *r);

/* What the model keeps: the newest interval's figures of every device of
 * the map and the history of the shown one (dev[0]). */
struct logdev_view {
	bool seen;                     /* a sample carried device counters */
	int n;
	struct logdev_rates cur[LOGDEV_MAX];
	struct ring flush_ms, write_ms, util, writes, flushes, queue;
};

void logdev_view_init(struct logdev_view *v, size_t history_len);
void logdev_view_free(struct logdev_view *v);
/* One interval: readings prev (NULL or not read: none) and cur over dt s,
 * the samples' interval (as host_view_update). */
void logdev_view_update(struct logdev_view *v, const struct logdev_sample *prev, const struct logdev_sample *cur,
			double dt);

#endif
