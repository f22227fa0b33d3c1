/* ring.c - fixed-size history ring. */
#include "ring.h"

#include <math.h>
#include <stdlib.h>

#include "../util/util.h"

void ring_init(struct ring *r, size_t cap)
{
	r->cap = cap ? cap : 1;
	/* not cleared: a slot is read only once written (len), so an hour
	 * of history takes memory as it fills, not from the start */
	r->v = xmalloc(r->cap * sizeof *r->v);
	r->head = r->len = 0;
}

void ring_free(struct ring *r)
{
	free(r->v);
	r->v = NULL;
	r->cap = r->head = r->len = 0;
}

void ring_push(struct ring *r, double v)
{
	r->v[r->head] = v;
	r->head = (r->head + 1) % r->cap;
	if (r->len < r->cap)
		r->len++;
}

double ring_get(const struct ring *r, size_t i)
{
	if (i >= r->len)
		return NAN;
	return r->v[(r->head + r->cap - 1 - i) % r->cap];
}

void ring_set_last(struct ring *r, double v)
{
	if (r->len)
		r->v[(r->head + r->cap - 1) % r->cap] = v;
}
