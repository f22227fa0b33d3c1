/* ring.h - fixed-size history of doubles (NaN = unknown), oldest dropped. */
#ifndef DBTOP_RING_H
#define DBTOP_RING_H

#include <stddef.h>

struct ring {
	double *v;
	size_t cap;   /* slots */
	size_t head;  /* index of the next write */
	size_t len;   /* values held, <= cap */
};

/* Allocate cap slots (cap >= 1). */
void ring_init(struct ring *r, size_t cap);
void ring_free(struct ring *r);
void ring_push(struct ring *r, double v);
/* The i-th newest value (0 = newest); NaN when i >= len. */
double ring_get(const struct ring *r, size_t i);
/* Replace the newest value (nothing when the ring is empty). */
void ring_set_last(struct ring *r, double v);

#endif
