/* ring.h - fixed-size history of doubles (NaN = unknown), oldest dropped. */
#ifndef DBTOP_RING_H
#define DBTOP_RING_H

#include <stddef.h>

struct ring {
	double *v;    /* NULL: no known value pushed yet (all NaN) */
	size_t cap;   /* slots */
	size_t head;  /* index of the next write */
	size_t len;   /* values held, <= cap */
};

/* A ring of cap slots (cap >= 1), taken from the heap at the first known
 * value: until then every value is NaN and costs no memory. */
void ring_init(struct ring *r, size_t cap);
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
