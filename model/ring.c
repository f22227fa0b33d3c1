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
	r->dv = NULL;
	r->exact = 0;
	r->head = r->len = 0;
}

void ring_init_exact(struct ring *r, size_t cap)
{
	ring_init(r, cap);
	r->exact = 1;
}

static bool has_slots(const struct ring *r)
{
	return r->v || r->dv;
}

static size_t slot_size(const struct ring *r)
{
	return r->exact ? sizeof *r->dv : sizeof *r->v;
}

static void slot_set(struct ring *r, size_t k, double v)
{
	if (r->exact)
		r->dv[k] = v;
	else
		r->v[k] = (float)v;
}

/* The slots, the values held so far (all unknown) written as NaN. */
static void ring_alloc(struct ring *r)
{
	void *s = xmalloc(r->cap * slot_size(r));
	if (r->exact)
		r->dv = s;
	else
		r->v = s;
	for (size_t i = 0; i < r->len; i++)
		slot_set(r, (r->head + r->cap - 1 - i) % r->cap, NAN);
}

void ring_free(struct ring *r)
{
	free(r->v);
	free(r->dv);
	r->v = NULL;
	r->dv = NULL;
	r->cap = r->head = r->len = 0;
}

void ring_push(struct ring *r, double v)
{
	if (!has_slots(r) && !isnan(v))
		ring_alloc(r);
	if (has_slots(r))
		slot_set(r, r->head, v);
	r->head = (r->head + 1) % r->cap;
	if (r->len < r->cap)
		r->len++;
}

double ring_get(const struct ring *r, size_t i)
{
	if (i >= r->len || !has_slots(r))
		return NAN;
	size_t k = (r->head + r->cap - 1 - i) % r->cap;
	return r->exact ? r->dv[k] : (double)r->v[k];
}

void ring_set_last(struct ring *r, double v)
{
	if (!r->len || (!has_slots(r) && isnan(v)))
		return;
	if (!has_slots(r))
		ring_alloc(r);
	slot_set(r, (r->head + r->cap - 1) % r->cap, v);
}

void ring_copy(struct ring *dst, const struct ring *src, size_t skip)
{
	if (skip > src->len)
		skip = src->len;
	if (dst->cap == src->cap && dst->exact == src->exact) {
		void *from = src->exact ? (void *)src->dv : (void *)src->v;
		if (from && !has_slots(dst)) {
			if (dst->exact)
				dst->dv = xmalloc(dst->cap * slot_size(dst));
			else
				dst->v = xmalloc(dst->cap * slot_size(dst));
		}
		if (from)
			memcpy(dst->exact ? (void *)dst->dv : (void *)dst->v, from, src->cap * slot_size(src));
		else if (has_slots(dst)) { /* every value unknown: no slots */
			free(dst->v);
			free(dst->dv);
			dst->v = NULL;
			dst->dv = NULL;
		}
		dst->head = (src->head + src->cap - skip % src->cap) % src->cap;
		dst->len = src->len - skip;
		return;
	}
	dst->head = dst->len = 0;
	for (size_t i = src->len; i-- > skip;)
		ring_push(dst, ring_get(src, i));
}
