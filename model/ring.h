/* ring.h - fixed-size history of values (NaN = unknown), oldest dropped.
 * A metric's values are kept as floats: a history is drawn and summed for
 * its window, never shown to more than a float's 7 significant digits,
 * and 900 slots of every metric take half the memory of doubles. Times
 * (seconds of the clock, whose differences are the intervals) are kept
 * exact: ring_init_exact. */
#ifndef DBTOP_RING_H
#define DBTOP_RING_H

#include <stddef.h>

struct ring {
	float *v;   /* NULL: no known value pushed yet (all NaN) */
	double *dv; /* the same, for a ring of exact values (ring_init_exact) */
	int exact;
	size_t cap;   /* slots */
	size_t head;  /* index of the next write */
	size_t len;   /* values held, <= cap */
};

/* A ring of cap slots (cap >= 1), taken from the heap at the first known
 * value: until then every value is NaN and costs no memory. */
void ring_init(struct ring *r, size_t cap);
/* The same, holding each value as pushed (doubles): for times. */
void ring_init_exact(struct ring *r, size_t cap);
void ring_free(struct ring *r);
void ring_push(struct ring *r, double v);
/* The i-th newest value (0 = newest); NaN when i >= len. */
double ring_get(const struct ring *r, size_t i);
/* Replace the newest value (nothing when the ring is empty). */
void ring_set_last(struct ring *r, double v);
/* dst := src without its skip newest values (same cap: the slots copied;
 * else pushed one by one, the newest dst->cap kept). */
void ring_copy(struct ring *dst, const struct ring *src, size_t skip);

#endif
