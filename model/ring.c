/* ring.c - fixed-size history ring. */
#include "ring.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

void ring_init(struct ring *r, size_t cap)
{
	r->cap = cap ? cap : 1;
	/* no slots until the first known value: a metric the engine never
	 * has, or a wait that never shows, takes no memory; once they exist,
	 * not cleared: a slot is read only once written (len), so an hour of
	 * history takes memory as it fills, not from the start */
	r->v = NULL;
	r->head = r->len = 0;
}

/* The slots, the values held so far (all unknown) written as NaN. */
static void ring_alloc(struct ring *r)
{
	r->v = xmalloc(r->cap * sizeof *r->v);
	for (size_t i = 0; i < r->len; i++)
		r->v[(r->head + r->cap - 1 - i) % r->cap] = NAN;
}

void ring_free(struct ring *r)
{
	free(r->v);
	r->v = NULL;
	r->cap = r->head = r->len = 0;
}

void ring_push(struct ring *r, double v)
{
	if (!r->v && !isnan(v))
		ring_alloc(r);
	if (r->v)
		r->v[r->head] = v;
	r->head = (r->head + 1) % r->cap;
	if (r->len < r->cap)
		r->len++;
}

double ring_get(const struct ring *r, size_t i)
{
	if (i >= r->len || !r->v)
		return NAN;
	return r->v[(r->head + r->cap - 1 - i) % r->cap];
}

void ring_set_last(struct ring *r, double v)
{
	if (!r->len || (!r->v && isnan(v)))
		return;
	if (!r->v)
		ring_alloc(r);
	r->v[(r->head + r->cap - 1) % r->cap] = v;
}

void ring_copy(struct ring *dst, const struct ring *src, size_t skip)
{
	if (skip > src->len)
		skip = src->len;
	if (dst->cap == src->cap) {
		if (src->v && !dst->v)
			dst->v = xmalloc(dst->cap * sizeof *dst->v);
		if (src->v)
			memcpy(dst->v, src->v, src->cap * sizeof *src->v);
		else if (dst->v) { /* every value unknown: no slots */
			free(dst->v);
			dst->v = NULL;
		}
		dst->head = (src->head + src->cap - skip % src->cap) % src->cap;
		dst->len = src->len - skip;
		return;
	}
	dst->head = dst->len = 0;
	for (size_t i = src->len; i-- > skip;)
		ring_push(dst, ring_get(src, i));
}
