/* digests.c - digest rows and the per-interval delta table. */
#include "digests.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

const char *const dg_sort_names[DGS__COUNT] = {"total time", "calls", "avg latency", "rows"};

/* One ranked candidate: its value and its index in the table. */
struct dg_rank {
	double v;
	uint32_t i;
};

/* The ranking of one sort key and mode, best first. */
struct dg_top_list {
	bool valid;          /* built from the current contents */
	bool complete;       /* every candidate is in idx */
	size_t n;
	uint32_t *idx;
	size_t cap;
};

/* What digest_table_top keeps: the value of every entry under each sort
 * key and mode, filled by digest_table_update (side by side, so a ranking
 * reads n doubles, not n entries), and the rankings made since. */
struct dg_top_cache {
	double *rv;             /* rv[(key * 2 + cumulative) * rv_cap + i], NaN: not ranked */
	size_t rv_cap;
	struct dg_top_list list[DGS__COUNT][2];
	struct dg_rank *heap;   /* scratch of the selection */
	size_t heap_cap;
};

static double rank_or_nan(const struct digest_entry *e, enum dg_sort key, bool cumulative);

/* The contents changed: forget the rankings, make room for the values. */
static void top_cache_reset(struct digest_table *t)
{
	struct dg_top_cache *tc = t->topc;
	if (!tc)
		tc = t->topc = xcalloc(1, sizeof *tc);
	for (int k = 0; k < DGS__COUNT; k++)
		for (int c = 0; c < 2; c++)
			tc->list[k][c].valid = false;
	if (tc->rv_cap < t->cap) {
		free(tc->rv);
		tc->rv_cap = t->cap;
		tc->rv = xmalloc(tc->rv_cap * 2 * DGS__COUNT * sizeof *tc->rv);
	}
}

/* Store the rank values of entry i (after its update). */
static void top_cache_fill(struct digest_table *t, size_t i)
{
	struct dg_top_cache *tc = t->topc;
	for (int k = 0; k < DGS__COUNT; k++)
		for (int c = 0; c < 2; c++)
			tc->rv[(size_t)(k * 2 + c) * tc->rv_cap + i] = rank_or_nan(&t->e[i], (enum dg_sort)k, c);
}

static void top_cache_free(struct digest_table *t)
{
	if (!t->topc)
		return;
	for (int k = 0; k < DGS__COUNT; k++)
		for (int c = 0; c < 2; c++)
			free(t->topc->list[k][c].idx);
	free(t->topc->rv);
	free(t->topc->heap);
	free(t->topc);
	t->topc = NULL;
}

void digest_set_reserve(struct digest_set *s, size_t n)
{
	if (n > s->cap) {
		s->cap = n;
		s->rows = xrealloc(s->rows, s->cap * sizeof *s->rows);
	}
}

struct digest_row *digest_set_add(struct digest_set *s)
{
	struct digest_row *r;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->rows = xrealloc(s->rows, s->cap * sizeof *s->rows);
	}
	r = &s->rows[s->n++];
	memset(r, 0, sizeof *r);
	r->p95_ms = NAN;
	return r;
}

void digest_set_free(struct digest_set *s)
{
	size_t i;
	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->rows[i].text);
	free(s->rows);
	for (i = 0; i < s->nhist; i++)
		free(s->hist[i].b);
	free(s->hist);
	free(s);
}

struct digest_set *digest_set_dup(const struct digest_set *s)
{
	struct digest_set *d;
	size_t i;
	if (!s)
		return NULL;
	d = xmalloc(sizeof *d);
	*d = *s;
	d->rows = xmalloc((s->n ? s->n : 1) * sizeof *d->rows);
	d->cap = s->n;
	for (i = 0; i < s->n; i++) {
		d->rows[i] = s->rows[i];
		d->rows[i].text = s->rows[i].text ? xstrdup(s->rows[i].text) : NULL;
	}
	d->hist = s->nhist ? xmalloc(s->nhist * sizeof *d->hist) : NULL;
	d->hist_cap = s->nhist;
	for (i = 0; i < s->nhist; i++) {
		d->hist[i] = s->hist[i];
		d->hist[i].cap = s->hist[i].n;
		d->hist[i].b = s->hist[i].n ? xmalloc(s->hist[i].n * sizeof *d->hist[i].b) : NULL;
		if (s->hist[i].n)
			memcpy(d->hist[i].b, s->hist[i].b, s->hist[i].n * sizeof *d->hist[i].b);
	}
	return d;
}

struct dg_hist *digest_set_add_hist(struct digest_set *s, const char *key)
{
	struct dg_hist *h;
	if (s->nhist == s->hist_cap) {
		s->hist_cap = s->hist_cap ? s->hist_cap * 2 : 16;
		s->hist = xrealloc(s->hist, s->hist_cap * sizeof *s->hist);
	}
	h = &s->hist[s->nhist++];
	memset(h, 0, sizeof *h);
	str_copy(h->key, sizeof h->key, key);
	return h;
}

struct dg_hist *digest_set_hist(const struct digest_set *s, const char *key)
{
	size_t i;
	for (i = 0; s && i < s->nhist; i++)
		if (strcmp(s->hist[i].key, key) == 0)
			return &s->hist[i];
	return NULL;
}

void dg_hist_add(struct dg_hist *h, uint32_t num, uint64_t high_ps, uint64_t count)
{
	size_t j = h->n;
	/* rows come in bucket order: the insertion point is almost always the end */
	while (j > 0 && h->b[j - 1].num > num)
		j--;
	if (j > 0 && h->b[j - 1].num == num) {
		h->b[j - 1].high_ps = high_ps;
		h->b[j - 1].count = count;
		return;
	}
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 16;
		h->b = xrealloc(h->b, h->cap * sizeof *h->b);
	}
	memmove(h->b + j + 1, h->b + j, (h->n - j) * sizeof *h->b);
	h->b[j].num = num;
	h->b[j].high_ps = high_ps;
	h->b[j].count = count;
	h->n++;
}

double dg_hist_p95(const struct dg_bucket *prev, size_t nprev, const struct dg_bucket *cur, size_t ncur,
		   bool *reset)
{
	uint64_t total = 0, target, sum = 0;
	size_t i = 0, j;
	if (reset)
		*reset = false;
	/* the interval's count per bucket; a count that went down (or a bucket
	 * that emptied) is a reset: no figure for this interval */
	for (j = 0; j < ncur; j++) {
		uint64_t before = 0;
		for (; i < nprev && prev[i].num < cur[j].num; i++)
			if (prev[i].count > 0)
				goto was_reset;
		if (i < nprev && prev[i].num == cur[j].num)
			before = prev[i++].count;
		if (cur[j].count < before)
			goto was_reset;
		total += cur[j].count - before;
	}
	for (; i < nprev; i++)
		if (prev[i].count > 0)
			goto was_reset;
	if (total == 0)
		return NAN;
	/* the first bucket where the cumulative count reaches ceil(95 %) */
	target = total - total / 20;
	for (i = 0, j = 0; j < ncur; j++) {
		uint64_t before = 0;
		while (i < nprev && prev[i].num < cur[j].num)
			i++;
		if (i < nprev && prev[i].num == cur[j].num)
			before = prev[i].count;
		sum += cur[j].count - before;
		if (sum >= target)
			return cur[j].high_ps == UINT64_MAX ? NAN : (double)cur[j].high_ps / 1e9;
	}
	return NAN;
was_reset:
	if (reset)
		*reset = true;
	return NAN;
}

void digest_table_init(struct digest_table *t)
{
	memset(t, 0, sizeof *t);
}

void digest_table_free(struct digest_table *t)
{
	size_t i;
	for (i = 0; i < t->n; i++) {
		free(t->e[i].last.text);
		free(t->e[i].hb);
	}
	free(t->e);
	hmap_free(&t->slots);
	top_cache_free(t);
	free(t->evicted_bits);
	memset(t, 0, sizeof *t);
}

#define DG_EVICTED_BITS (1u << 23)   /* 1 MB: a false hit makes a new digest unknown for one interval */

static bool was_evicted(const struct digest_table *t, const char *key)
{
	uint64_t h = hash_str(key) % DG_EVICTED_BITS;
	return t->evicted_bits && (t->evicted_bits[h / 64] >> (h % 64) & 1);
}

static int cmp_tick(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

/* Past DG_MAX_ENTRIES (a replay of a recording whose statements never
 * repeat, a server churning its statements), evict the digests seen
 * longest ago, never one seen now, down to three quarters of it: memory
 * stays bounded whatever the input. */
static void evict_old(struct digest_table *t)
{
	if (t->n <= DG_MAX_ENTRIES)
		return;
	unsigned long *ticks = xmalloc(t->n * sizeof *ticks);
	for (size_t i = 0; i < t->n; i++)
		ticks[i] = t->e[i].seen_tick;
	qsort(ticks, t->n, sizeof *ticks, cmp_tick);
	unsigned long cut = ticks[t->n - DG_MAX_ENTRIES * 3 / 4];
	free(ticks);
	if (cut > t->tick)
		cut = t->tick;
	if (!t->evicted_bits)
		t->evicted_bits = xcalloc(DG_EVICTED_BITS / 64, sizeof *t->evicted_bits);
	size_t j = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct digest_entry *e = &t->e[i];
		if (e->seen_tick < cut) {
			uint64_t h = hash_str(e->last.key) % DG_EVICTED_BITS;
			t->evicted_bits[h / 64] |= 1ull << (h % 64);
			free(e->last.text);
			free(e->hb);
			t->evicted++;
		} else {
			t->e[j++] = *e;
		}
	}
	t->n = j;
	hmap_free(&t->slots);
	size_t cap = 256;   /* a power of two, as the map needs */
	while (cap < t->n * 2)
		cap *= 2;
	hmap_init(&t->slots, false, sizeof(uint32_t), cap);
	for (size_t i = 0; i < t->n; i++)
		*(uint32_t *)hmap_put(&t->slots, t->e[i].last.key, NULL) = (uint32_t)i;
}

/* The entry of key, or NULL. */
static struct digest_entry *find(const struct digest_table *t, const char *key)
{
	uint32_t *i = hmap_get(&t->slots, key);
	return i ? &t->e[*i] : NULL;
}

/* Before the first set's rows go in: room for all of them at once (the
 * first read of a big server brings 10,000: growing by half on the way
 * copied the entries and the key slots a dozen times). */
static void reserve_first(struct digest_table *t, const struct digest_set *s)
{
	size_t want = s->n < DG_MAX_ENTRIES ? s->n : DG_MAX_ENTRIES, slots = 256;
	if (t->n || want <= t->cap || want <= 64)
		return;
	t->cap = want;
	t->e = xrealloc(t->e, t->cap * sizeof *t->e);
	if (!t->slots.val_size) {
		while (slots < want * 2)
			slots *= 2;
		hmap_init(&t->slots, false, sizeof(uint32_t), slots);
	}
}

/* A new zeroed entry for key (not present); the entries grow by half. */
static struct digest_entry *add_entry(struct digest_table *t, const char *key)
{
	if (!t->slots.val_size)
		hmap_init(&t->slots, false, sizeof(uint32_t), 256);
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap + t->cap / 2 : 64;
		t->e = xrealloc(t->e, t->cap * sizeof *t->e);
	}
	assert(t->e); /* lint: e is NULL only while cap, so n, is 0: grown above */
	struct digest_entry *e = &t->e[t->n];
	memset(e, 0, sizeof *e);
	*(uint32_t *)hmap_put(&t->slots, key, NULL) = (uint32_t)t->n;
	t->n++;
	return e;
}

/* Push total ms/s (or NaN) into the entry's little history. */
static void hist_push(struct digest_entry *e, double v)
{
	e->hist[e->hist_head % 60] = (float)v;
	e->hist_head++;
}

/* Forget e's histogram base. */
static void drop_base(struct digest_entry *e)
{
	free(e->hb);
	e->hb = NULL;
	e->nhb = 0;
	e->hb_ok = false;
}

/* The interval p95 of e from histogram h read now (NaN unless e's base is
 * valid and its counters are known this interval); h becomes the base. */
static void take_hist(struct digest_entry *e, const struct dg_hist *h, unsigned long tick)
{
	e->p95_ms = e->hb_ok && e->known ? dg_hist_p95(e->hb, e->nhb, h->b, h->n, NULL) : NAN;
	free(e->hb);
	e->hb = h->n ? xmalloc(h->n * sizeof *e->hb) : NULL;
	if (h->n)
		memcpy(e->hb, h->b, h->n * sizeof *e->hb);
	e->nhb = h->n;
	e->hb_ok = true;
	e->hb_tick = tick;
}

/* Take the new cumulative row into e, keeping a known text. */
static void adopt(struct digest_entry *e, const struct digest_row *r)
{
	char *text = e->last.text;
	e->last = *r;
	if (r->text) {
		free(text);
		e->last.text = xstrdup(r->text);
	} else {
		e->last.text = text;
	}
}

unsigned digest_key_slice(const char *key, unsigned n)
{
	const char *p = strchr(key, ':');
	if (!n || !p || !(p = strchr(p + 1, ':')))
		return 0;
	long long q = strtoll(p + 1, NULL, 10);
	return (unsigned)(((q % (long long)n) + (long long)n) % (long long)n);
}

/* Its rates and average unknown this interval (known false). */
static void mark_unknown(struct digest_entry *e)
{
	for (int k = 0; k < DG__COUNT; k++)
		e->rate[k] = NAN;
	e->avg_ms = NAN;
	e->known = false;
	e->time_bounded = false;
	e->finished_ms = NAN;
}

/* The time of the dc calls that finished in the dt seconds since e was
 * last read (dtot ns, the server adds a call's time when it ends): no call
 * spent more than dt inside the interval, so the rate of total time is at
 * most dc per second; above it, e holds the bound and the raw figure.
 * Exact statistics only: sampled calls are lower bounds. */
static void bound_finished(struct digest_entry *e, const struct digest_set *s, const char *key, uint64_t dc,
			   uint64_t dtot, double dt)
{
	e->time_bounded = false;
	e->finished_ms = NAN;
	if (s->sampled || strncmp(key, "s:", 2) == 0 || !dc || !(dt > 0) || !isfinite(e->rate[DG_TOTAL_NS]))
		return;
	if ((double)dtot <= (double)dc * dt * 1e9)
		return;
	e->rate[DG_TOTAL_NS] = (double)dc * 1e9;
	e->time_bounded = true;
	e->finished_ms = (double)dtot / 1e6;
}

/* What one update works with: the set, the interval, and the slice read. */
struct dg_update {
	const struct digest_set *s;
	double dt, wall, prev_wall, slice_dt;
	bool fresh;
	unsigned sn, sk;          /* slices (0: a whole read), the one read now */
};

/* A row new to the table. After the first sample of a connection a new
 * row was created since the previous sample (it would have been read
 * before otherwise), so it counts from zero, unless the server says it is
 * older than that (then: unknown). */
static void update_new(struct digest_table *t, const struct dg_update *up, const struct digest_row *r)
{
	struct digest_entry *e = add_entry(t, r->key);
	double ndt = up->sn ? up->slice_dt : up->dt;
	bool from_zero = !up->fresh && ndt > 0 && up->prev_wall > 0 && !was_evicted(t, r->key) &&
			 !(r->first_seen > 0 && r->first_seen < (up->sn ? up->wall - ndt : up->prev_wall) - 1);
	for (int k = 0; k < 60; k++)
		e->hist[k] = NAN;
	for (int k = 0; k < DG__COUNT; k++)
		e->rate[k] = from_zero && (r->have >> k & 1) ? (double)r->c[k] / ndt : NAN;
	e->avg_ms = from_zero && r->c[DG_CALLS] ? (double)r->c[DG_TOTAL_NS] / (double)r->c[DG_CALLS] / 1e6 : NAN;
	e->known = from_zero;
	bound_finished(e, up->s, r->key, from_zero && (r->have >> DG_CALLS & 1) ? r->c[DG_CALLS] : 0,
		       r->c[DG_TOTAL_NS], ndt);
	e->samples = up->s->sampled && from_zero ? r->samples : 0;
	e->p95_ms = NAN;
	e->moved = true;
	adopt(e, r);
	e->seen_tick = t->tick;
	e->read_wall = up->wall;
}

/* A row read again: its rates cover the time since it was last read. */
static void update_seen(struct digest_table *t, const struct dg_update *up, struct digest_entry *e,
			const struct digest_row *r)
{
	const struct digest_set *s = up->s;
	double edt = (up->sn || s->estimates_only) && e->read_wall > 0 ? up->wall - e->read_wall : up->dt;
	bool ok = !up->fresh && !e->gone && edt > 0 && e->last.epoch == r->epoch;
	for (int k = 0; ok && k < DG__COUNT; k++)
		if ((r->have >> k & 1) && (e->last.have >> k & 1) && r->c[k] < e->last.c[k])
			ok = false;   /* reset or re-created: unknown, never negative */
	if (ok) {
		for (int k = 0; k < DG__COUNT; k++)
			e->rate[k] = (r->have >> k & 1) && (e->last.have >> k & 1)
				     ? (double)(r->c[k] - e->last.c[k]) / edt : NAN;
		uint64_t dc = r->c[DG_CALLS] - e->last.c[DG_CALLS];
		e->avg_ms = dc ? (double)(r->c[DG_TOTAL_NS] - e->last.c[DG_TOTAL_NS]) / (double)dc / 1e6 : NAN;
		bound_finished(e, s, r->key, (r->have >> DG_CALLS & 1) && (e->last.have >> DG_CALLS & 1) ? dc : 0,
			       r->c[DG_TOTAL_NS] - e->last.c[DG_TOTAL_NS], edt);
	} else {
		mark_unknown(e);
	}
	e->known = ok;
	e->samples = s->sampled && ok && r->samples >= e->last.samples ? r->samples - e->last.samples : 0;
	e->moved = !ok || !(r->have >> DG_CALLS & 1) || r->c[DG_CALLS] != e->last.c[DG_CALLS];
	e->gone = false;
	e->seen_tick = t->tick;
	e->read_wall = up->wall;
	adopt(e, r);
}

/* The entries the set did not mention. */
static void update_unseen(struct digest_table *t, const struct dg_update *up)
{
	const struct digest_set *s = up->s;
	for (size_t i = 0; i < t->n; i++) {
		struct digest_entry *e = &t->e[i];
		if (e->seen_tick == t->tick)
			continue;
		if (s->estimates_only && !up->fresh && strncmp(e->last.key, "s:", 2) != 0) {
			/* an exact row: not read now, its rates stand */
			e->moved = false;
			continue;
		}
		if (up->sn && !up->fresh && digest_key_slice(e->last.key, up->sn) != up->sk) {
			/* another slice: not read now, its rates stand */
			e->moved = false;
			continue;
		}
		e->samples = 0;   /* (sampled sets) not seen this interval */
		if (s->partial && !up->fresh && !e->gone && up->dt > 0) {
			/* unchanged since the last read: zero this interval, and
			 * read now as far as its slice's rates go */
			e->read_wall = up->wall;
			for (int k = 0; k < DG__COUNT; k++)
				e->rate[k] = (e->last.have >> k & 1) ? 0 : NAN;
			e->avg_ms = NAN;
			e->time_bounded = false;
			e->finished_ms = NAN;
			e->known = true;
			e->moved = false;
		} else {
			/* evicted or reset away: it contributes nothing */
			mark_unknown(e);
			e->moved = true;
			e->gone = !s->partial || up->fresh;
		}
	}
}

/* Latency histograms read this time: the interval p95 against the
 * previous read, which becomes the new base. */
static void update_p95(struct digest_table *t, const struct digest_set *s)
{
	for (size_t i = 0; i < s->nhist; i++) {
		struct digest_entry *e;
		if (!s->hist[i].key[0])
			continue;
		e = find(t, s->hist[i].key);
		if (e && !e->gone)
			take_hist(e, &s->hist[i], t->tick);
	}
	for (size_t i = 0; i < t->n; i++) {
		struct digest_entry *e = &t->e[i];
		if (e->hb_tick == t->tick)
			continue;
		/* not read now: unknown; a digest that ran meanwhile has no base */
		e->p95_ms = NAN;
		if (e->moved)
			drop_base(e);
	}
}

/* A sampled set: what the estimate rests on (the interval's samples),
 * and which call counts are only lower bounds. Else no such bounds. */
static void update_sampling(struct digest_table *t, const struct digest_set *s, double dt, bool fresh)
{
	if (!s->sampled) {
		t->rounds = t->rounds_prev = 0;
		t->sessions = 0;
		t->bound_scale = 1;
		for (size_t i = 0; i < t->n; i++) {
			t->e[i].samples = 0;
			t->e[i].calls_lower = false;
		}
		return;
	}
	t->rounds = !fresh && t->rounds_prev && s->rounds >= t->rounds_prev ? s->rounds - t->rounds_prev : 0;
	t->rounds_prev = s->rounds;
	t->sessions = s->sessions;
	for (size_t i = 0; i < t->n; i++) {
		struct digest_entry *e = &t->e[i];
		double dc = e->rate[DG_CALLS] * dt;
		/* a statement mostly seen once per execution (or not at all)
		 * is shorter than the sampling period: many of its
		 * executions were missed */
		e->calls_lower = !t->rounds || !e->known || !((double)e->samples >= 2 * dc - 0.5);
		if (e->calls_lower)
			e->avg_ms = NAN;
	}
	digest_table_bound(t, 0);
}

/* The history of each entry, the totals (own statements apart) and the
 * ranking cache. */
static void update_totals(struct digest_table *t)
{
	top_cache_reset(t);
	for (size_t i = 0; i < t->n; i++) {
		struct digest_entry *e = &t->e[i];
		double ms = e->known ? e->rate[DG_TOTAL_NS] / 1e6 : NAN;
		hist_push(e, ms);
		e->hidden = e->last.own && !t->show_own;
		if (e->known && isfinite(ms) && e->last.own)
			t->own_ms_per_s += ms;
		if (e->known && isfinite(ms) && !e->hidden)
			t->total_ms_per_s += ms;
		top_cache_fill(t, i);
	}
}

/* A sliced read: rates of a row cover the time since its slice was last
 * read; the first read of a connection is whole. Fills up's slice. */
static void update_slices(struct digest_table *t, struct dg_update *up)
{
	const struct digest_set *s = up->s;
	up->sn = s->split_n <= DG_SPLIT_MAX ? s->split_n : 0;
	up->sk = up->sn ? s->split_k % up->sn : 0;
	up->slice_dt = up->dt;
	if (!up->sn || up->fresh) {
		/* a whole read covers every slice */
		for (unsigned k2 = 0; k2 < DG_SPLIT_MAX; k2++)
			t->split_wall[k2] = up->sn ? 0 : up->wall;
	}
	if (up->sn) {
		up->slice_dt = t->split_wall[up->sk] > 0 && !up->fresh ? up->wall - t->split_wall[up->sk] : NAN;
		t->split_wall[up->sk] = up->wall;
	}
	t->split_n = up->sn;
}

void digest_table_update(struct digest_table *t, const struct digest_set *s, double dt, bool fresh,
			 double wall)
{
	struct dg_update up = {.s = s, .dt = dt, .wall = wall, .prev_wall = t->prev_wall, .fresh = fresh};
	t->est_window_s = s && !fresh && t->prev_wall > 0 && wall > t->prev_wall ? wall - t->prev_wall : NAN;
	t->prev_wall = s ? wall : 0;
	t->tick++;
	t->interval_s = dt;
	t->total_ms_per_s = 0;
	t->own_ms_per_s = 0;
	t->lost_delta = 0;
	t->est_counted = 0;
	t->est_commits_per_s = NAN;
	for (size_t i = 0; i < t->n; i++) {
		/* counted again after this update (digest_table_count_estimates) */
		t->e[i].counted_kind = 0;
		t->e[i].counted_split = false;
	}
	t->est_rounds = s && !fresh && t->est_rounds_prev && s->est_rounds >= t->est_rounds_prev
				? s->est_rounds - t->est_rounds_prev
				: 0;
	t->est_rounds_prev = s ? s->est_rounds : 0;
	if (!s) {
		/* nothing this interval: every rate unknown, and what happened
		 * meanwhile is unknown too: no histogram base survives */
		top_cache_reset(t);
		for (size_t i = 0; i < t->n; i++) {
			mark_unknown(&t->e[i]);
			t->e[i].p95_ms = NAN;
			drop_base(&t->e[i]);
			hist_push(&t->e[i], NAN);
			top_cache_fill(t, i);
		}
		return;
	}
	t->have_data = true;
	update_slices(t, &up);
	t->sampled = s->sampled;
	t->sample_hz = s->sample_hz;
	if (!s->estimates_only)
		str_copy(t->source, sizeof t->source, s->source);
	reserve_first(t, s);
	for (size_t i = 0; i < s->n; i++) {
		const struct digest_row *r = &s->rows[i];
		if (!r->key[0])
			continue;
		struct digest_entry *e = find(t, r->key);
		if (e)
			update_seen(t, &up, e, r);
		else
			update_new(t, &up, r);
	}
	update_unseen(t, &up);
	update_p95(t, s);
	update_sampling(t, s, dt, fresh);
	evict_old(t);
	update_totals(t);
	if (s->have_lost) {
		if (t->have_lost && !fresh && s->lost >= t->lost_prev)
			t->lost_delta = s->lost - t->lost_prev;
		t->lost_prev = s->lost;
		t->have_lost = true;
	}
}

double dg_sampled_bound(double sampled_ms, double exact_ms, double sessions)
{
	double room;
	if (!(sessions > 0) || !(sampled_ms > 0) || !isfinite(sampled_ms))
		return 1;
	room = sessions * 1000 - (exact_ms > 0 ? exact_ms : 0);
	if (room <= 0)
		return 0;
	return sampled_ms > room ? room / sampled_ms : 1;
}

void digest_table_bound(struct digest_table *t, double exact_ms)
{
	double sum = 0, f;
	size_t i;
	for (i = 0; i < t->n; i++)
		if (t->e[i].known && isfinite(t->e[i].rate[DG_TOTAL_NS]))
			sum += t->e[i].rate[DG_TOTAL_NS] / 1e6;
	f = dg_sampled_bound(sum, exact_ms, (double)t->sessions);
	t->bound_scale = f;
	if (f >= 1)
		return;
	for (i = 0; i < t->n; i++) {
		struct digest_entry *e = &t->e[i];
		e->rate[DG_TOTAL_NS] *= f;
		e->avg_ms *= f;
	}
}

void dg_sampled_text(const struct digest_table *t, bool utf8, char *buf, size_t len)
{
	char hz[16];
	bool lower = false;
	size_t i;
	for (i = 0; i < t->n && !lower; i++)
		lower = t->e[i].known && !t->e[i].gone && t->e[i].calls_lower && t->e[i].rate[DG_TOTAL_NS] > 0;
	dg_fmt_hz(hz, sizeof hz, t->sample_hz);
	str_printf(buf, len, "ESTIMATE from %llu samples of %u session%s (%s Hz): ms/s = share of the samples x "
		   "sessions active%s%s%s", (unsigned long long)t->rounds, t->sessions, t->sessions == 1 ? "" : "s", hz,
		   t->bound_scale < 1 ? ", scaled to the sessions seen" : "",
		   lower ? "; calls/s " : "", lower ? (utf8 ? "\u2265 executions seen (shorter ones are missed), avg ms - there"
							  : ">= executions seen (shorter ones are missed), avg ms - there") : "");
}

void dg_fmt_hz(char *buf, size_t len, double hz)
{
	if (!isfinite(hz) || hz <= 0)
		str_copy(buf, len, "?");
	else if (hz >= 10)
		str_printf(buf, len, "%.0f", hz);
	else
		str_printf(buf, len, "%.2g", hz);
}

bool digest_is_estimate(const struct digest_table *t, const struct digest_entry *e)
{
	return !t->sampled && strncmp(e->last.key, "s:", 2) == 0;
}

double digest_table_bound_estimates(struct digest_table *t, double bound_ms_per_s)
{
	double sum = 0, f = 1;
	size_t i, nest = 0;
	for (i = 0; i < t->n; i++) {
		struct digest_entry *e = &t->e[i];
		if (!digest_is_estimate(t, e))
			continue;
		nest++;
		/* sampling sees a session once per run of a statement at best: the
		 * calls are a lower bound, and an average from them means nothing */
		e->avg_ms = NAN;
		if (e->known && !e->gone && isfinite(e->rate[DG_TOTAL_NS]))
			sum += e->rate[DG_TOTAL_NS] / 1e6;
	}
	if (!nest)
		return 1;
	if (sum > 0 && bound_ms_per_s >= 0)
		f = bound_ms_per_s / sum;
	for (i = 0; i < t->n; i++) {
		struct digest_entry *e = &t->e[i];
		if (!digest_is_estimate(t, e))
			continue;
		if (!(e->known && !e->gone && isfinite(e->rate[DG_TOTAL_NS])) || f == 1) {
			if (t->topc)
				top_cache_fill(t, i);
			continue;
		}
		double ms = e->rate[DG_TOTAL_NS] / 1e6;
		e->rate[DG_TOTAL_NS] *= f;
		if (!e->hidden)
			t->total_ms_per_s -= ms * (1 - f);
		/* the newest history point is this interval's */
		e->hist[(e->hist_head + 59) % 60] = (float)(ms * f);
		if (t->topc)
			top_cache_fill(t, i);
	}
	if (t->topc)
		for (int k = 0; k < DGS__COUNT; k++)
			for (int c = 0; c < 2; c++)
				t->topc->list[k][c].valid = false;
	return f;
}

void digest_table_show_own(struct digest_table *t, bool show)
{
	if (t->show_own == show)
		return;
	t->show_own = show;
	if (t->topc)
		top_cache_reset(t);
	t->total_ms_per_s = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct digest_entry *e = &t->e[i];
		e->hidden = e->last.own && !show;
		if (e->known && !e->hidden && isfinite(e->rate[DG_TOTAL_NS]))
			t->total_ms_per_s += e->rate[DG_TOTAL_NS] / 1e6;
		if (t->topc)
			top_cache_fill(t, i);
	}
}

/* The value an entry is ranked by. */
static double rank_value(const struct digest_entry *e, enum dg_sort key, bool cumulative)
{
	if (cumulative) {
		switch (key) {
		case DGS_CALLS: return (double)e->last.c[DG_CALLS];
		case DGS_AVG: return e->last.c[DG_CALLS] ? (double)e->last.c[DG_TOTAL_NS] / (double)e->last.c[DG_CALLS] : 0;
		case DGS_ROWS: return (double)e->last.c[DG_ROWS];
		default: return (double)e->last.c[DG_TOTAL_NS];
		}
	}
	switch (key) {
	case DGS_CALLS: return e->rate[DG_CALLS];
	case DGS_AVG: return e->avg_ms;   /* NaN (no calls) is left out */
	case DGS_ROWS: return e->rate[DG_ROWS];
	default: return e->rate[DG_TOTAL_NS];
	}
}

/* The value e ranks by; NaN when it is not ranked: gone, not known this
 * interval, no value, or idle this interval. */
static double rank_or_nan(const struct digest_entry *e, enum dg_sort key, bool cumulative)
{
	double v;
	if (e->gone || e->hidden || (!cumulative && !e->known))
		return NAN;
	v = rank_value(e, key, cumulative);
	if (!isfinite(v))
		return NAN;
	if (!cumulative && v <= 0 && key != DGS_AVG)
		return NAN;   /* idle this interval */
	return v;
}

/* a ranks before b: the higher value; equal values in key order. */
static bool rank_before(const struct digest_table *t, const struct dg_rank *a, const struct dg_rank *b)
{
	if (a->v != b->v)
		return a->v > b->v;
	return strcmp(t->e[a->i].last.key, t->e[b->i].last.key) < 0;
}

/* Restore the heap below position p (of h): every parent ranks after its
 * children, so the root is the last of the kept ones. */
static void heap_down(const struct digest_table *t, struct dg_rank *hp, size_t h, size_t p)
{
	struct dg_rank x = hp[p];
	for (;;) {
		size_t c = 2 * p + 1;
		if (c >= h)
			break;
		if (c + 1 < h && rank_before(t, &hp[c], &hp[c + 1]))
			c++;   /* the child that ranks later */
		if (!rank_before(t, &x, &hp[c]))
			break;
		hp[p] = hp[c];
		p = c;
	}
	hp[p] = x;
}

static void heap_up(const struct digest_table *t, struct dg_rank *hp, size_t p)
{
	struct dg_rank x = hp[p];
	while (p > 0) {
		size_t q = (p - 1) / 2;
		if (!rank_before(t, &hp[q], &x))
			break;
		hp[p] = hp[q];
		p = q;
	}
	hp[p] = x;
}

/* The best k entries by their values rv[0..t->n-1] (NaN: left out) into
 * idx, best first, using hp (room for k) as the heap of those kept so far:
 * one pass, O(n log k). Returns the count; *complete says whether every
 * ranked entry was kept. */
static size_t rank_top(const struct digest_table *t, const double *rv, struct dg_rank *hp, uint32_t *idx,
		       size_t k, bool *complete)
{
	size_t i, h = 0;
	bool all = true;
	for (i = 0; i < t->n; i++) {
		struct dg_rank r = {rv[i], (uint32_t)i};
		if (isnan(r.v))
			continue;
		if (h < k) {
			hp[h] = r;
			heap_up(t, hp, h++);
		} else {
			all = false;
			if (rank_before(t, &r, &hp[0])) {
				hp[0] = r;
				heap_down(t, hp, h, 0);
			}
		}
	}
	*complete = all;
	/* take the last-ranked off the root, filling idx from the end */
	for (i = h; i > 0; i--) {
		idx[i - 1] = hp[0].i;
		hp[0] = hp[i - 1];
		heap_down(t, hp, i - 1, 0);
	}
	return h;
}

size_t digest_table_top(const struct digest_table *t, enum dg_sort key, bool cumulative,
			const struct digest_entry **out, size_t n)
{
	size_t i, got;
	if (!n || !t->n)
		return 0;
	if ((unsigned)key >= DGS__COUNT)
		key = DGS_TOTAL;
	struct dg_top_cache *tc = t->topc;
	if (!tc) {
		/* a table no update has filled: rank it directly */
		double *rv = xmalloc(t->n * sizeof *rv);
		struct dg_rank *hp = xmalloc(n * sizeof *hp);
		uint32_t *idx = xmalloc(n * sizeof *idx);
		bool complete;
		for (i = 0; i < t->n; i++)
			rv[i] = rank_or_nan(&t->e[i], key, cumulative);
		got = rank_top(t, rv, hp, idx, n, &complete);
		for (i = 0; i < got; i++)
			out[i] = &t->e[idx[i]];
		free(rv);
		free(hp);
		free(idx);
		return got;
	}
	struct dg_top_list *l = &tc->list[key][cumulative ? 1 : 0];
	if (!l->valid || (n > l->n && !l->complete)) {
		/* rank at least DG_TOP_KEEP: a shorter list asked first (the
		 * findings' top 8) must not cost the pane a second ranking */
		size_t k = n > DG_TOP_KEEP ? n : DG_TOP_KEEP;
		if (k > t->n)
			k = t->n;
		if (k > tc->heap_cap) {
			free(tc->heap);
			tc->heap = xmalloc(k * sizeof *tc->heap);
			tc->heap_cap = k;
		}
		if (k > l->cap) {
			free(l->idx);
			l->idx = xmalloc(k * sizeof *l->idx);
			l->cap = k;
		}
		l->n = rank_top(t, tc->rv + (size_t)((int)key * 2 + (cumulative ? 1 : 0)) * tc->rv_cap, tc->heap,
				l->idx, k, &l->complete);
		l->valid = true;
	}
	got = n < l->n ? n : l->n;
	for (i = 0; i < got; i++)
		out[i] = &t->e[l->idx[i]];
	return got;
}

const struct digest_entry *digest_table_commit(const struct digest_table *t)
{
	const struct digest_entry *top[16];
	size_t n = digest_table_top(t, DGS_TOTAL, false, top, 16);
	for (size_t i = 0; i < n; i++) {
		const char *q = top[i]->last.text;
		if (!q)
			continue;
		while (*q == ' ')
			q++;
		if (strncasecmp(q, "COMMIT", 6) == 0 ||
		    (strncasecmp(q, "END", 3) == 0 && (q[3] == '\0' || q[3] == ' ' || q[3] == ';')))
			return top[i];
	}
	return NULL;
}

const char *const dg_kind_counter[DGK__COUNT] = {
	[DGK_SELECT] = "Com_select", [DGK_INSERT] = "Com_insert",     [DGK_UPDATE] = "Com_update",
	[DGK_DELETE] = "Com_delete", [DGK_REPLACE] = "Com_replace",   [DGK_BEGIN] = "Com_begin",
	[DGK_COMMIT] = "Com_commit", [DGK_ROLLBACK] = "Com_rollback",
};

/* True when text starts with the word w (any case), then an end. */
static bool dg_word(const char *text, const char *w)
{
	size_t n = strlen(w);
	if (strncasecmp(text, w, n) != 0)
		return false;
	char c = text[n];
	return c == '\0' || c == ' ' || c == ';' || c == '\t' || c == '\n' || c == '(' || c == '\r';
}

int dg_text_kind(const char *text)
{
	static const struct {
		const char *w;
		enum dg_kind k;
	} words[] = {
		{"SELECT", DGK_SELECT},   {"INSERT", DGK_INSERT}, {"UPDATE", DGK_UPDATE}, {"DELETE", DGK_DELETE},
		{"REPLACE", DGK_REPLACE}, {"BEGIN", DGK_BEGIN},   {"COMMIT", DGK_COMMIT}, {"ROLLBACK", DGK_ROLLBACK},
	};
	if (!text)
		return -1;
	while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
		text++;
	if (strncasecmp(text, "START TRANSACTION", 17) == 0)
		return DGK_BEGIN;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (dg_word(text, words[i].w))
			return (int)words[i].k;
	return -1;
}

/* An entry whose calls this interval can be counted: known, there, a kind. */
static int dg_countable(const struct digest_entry *e)
{
	if (!e->known || e->gone || !isfinite(e->rate[DG_CALLS]))
		return -1;
	return dg_text_kind(e->last.text);
}

unsigned digest_table_count_estimates(struct digest_table *t, const double counted_per_s[DGK__COUNT])
{
	double exact[DGK__COUNT] = {0}, seen[DGK__COUNT] = {0};
	unsigned nrows[DGK__COUNT] = {0};
	size_t i;
	bool any = false;
	t->est_counted = 0;
	t->est_commits_per_s = NAN;
	for (int k = 0; k < DGK__COUNT; k++)
		any |= counted_per_s[k] >= 0;
	if (!any)
		return 0; /* nothing counted (PostgreSQL): no entry's kind is needed */
	for (i = 0; i < t->n; i++) {
		const struct digest_entry *e = &t->e[i];
		int k = dg_countable(e);
		if (k < 0)
			continue;
		if (digest_is_estimate(t, e)) {
			seen[k] += e->rate[DG_CALLS];
			nrows[k]++;
		} else {
			exact[k] += e->rate[DG_CALLS];
		}
	}
	for (i = 0; i < t->n; i++) {
		struct digest_entry *e = &t->e[i];
		int k = dg_countable(e);
		if (k < 0 || !digest_is_estimate(t, e) || !(counted_per_s[k] >= 0))
			continue;
		/* the exact digests' share of the kind is theirs; the rest ran
		 * as the prepared statements the sessions were seen in */
		double left = counted_per_s[k] - exact[k];
		double share = seen[k] > 0 ? e->rate[DG_CALLS] / seen[k] : 1.0 / nrows[k];
		e->rate[DG_CALLS] = left > 0 ? left * share : 0;
		e->avg_ms = e->rate[DG_CALLS] > 0 && isfinite(e->rate[DG_TOTAL_NS])
				    ? e->rate[DG_TOTAL_NS] / e->rate[DG_CALLS] / 1e6
				    : NAN;
		e->counted_kind = (unsigned char)(k + 1);
		e->counted_split = nrows[k] > 1;
		t->est_counted++;
		if (t->topc)
			top_cache_fill(t, i);
	}
	if (t->topc && t->est_counted)
		for (int k = 0; k < DGS__COUNT; k++)
			for (int c = 0; c < 2; c++)
				t->topc->list[k][c].valid = false;
	if (counted_per_s[DGK_COMMIT] >= 0) {
		double left = counted_per_s[DGK_COMMIT] - exact[DGK_COMMIT];
		t->est_commits_per_s = left > 0 ? left : 0;
	}
	return t->est_counted;
}
