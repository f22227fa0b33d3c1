/* test_digest_top.c - digest_table_top (model/digests.c) against a plain
 * reference: every entry ranked by the documented rules (value descending,
 * equal values in key order; gone, unknown, non-finite and idle entries left
 * out), for every sort key and mode, for short and long lists asked in any
 * order (the ranking is kept between updates), and after updates that
 * change the values, add entries and make some gone. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/digests.h"
#include "../../util/util.h"
#include "tap.h"

/* Deterministic pseudo-random numbers. */
static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The value the reference ranks by, NaN when left out. */
static double ref_value(const struct digest_entry *e, enum dg_sort key, bool cum)
{
	double v;
	if (e->gone || (!cum && !e->known))
		return NAN;
	if (cum) {
		switch (key) {
		case DGS_CALLS: v = (double)e->last.c[DG_CALLS]; break;
		case DGS_AVG:
			v = e->last.c[DG_CALLS] ? (double)e->last.c[DG_TOTAL_NS] / (double)e->last.c[DG_CALLS] : 0;
			break;
		case DGS_ROWS: v = (double)e->last.c[DG_ROWS]; break;
		default: v = (double)e->last.c[DG_TOTAL_NS];
		}
	} else {
		switch (key) {
		case DGS_CALLS: v = e->rate[DG_CALLS]; break;
		case DGS_AVG: v = e->avg_ms; break;
		case DGS_ROWS: v = e->rate[DG_ROWS]; break;
		default: v = e->rate[DG_TOTAL_NS];
		}
	}
	if (!isfinite(v) || (!cum && v <= 0 && key != DGS_AVG))
		return NAN;
	return v;
}

struct ref {
	double v;
	const struct digest_entry *e;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return strcmp(x->e->last.key, y->e->last.key);
}

/* The full reference ranking; returns its length. */
static size_t ref_rank(const struct digest_table *t, enum dg_sort key, bool cum, const struct digest_entry **out)
{
	struct ref *r = xmalloc((t->n + 1) * sizeof *r);
	size_t n = 0, i;
	for (i = 0; i < t->n; i++) {
		double v = ref_value(&t->e[i], key, cum);
		if (!isnan(v))
			r[n++] = (struct ref){v, &t->e[i]};
	}
	qsort(r, n, sizeof *r, ref_cmp);
	for (i = 0; i < n; i++)
		out[i] = r[i].e;
	free(r);
	return n;
}

/* A set of nkeys digests; counters grow by a random step (often zero, and
 * often the same step, for ties); every 7th key is left out when skip. */
static struct digest_set *make_set(size_t nkeys, uint64_t (*c)[3], bool skip)
{
	struct digest_set *s = xcalloc(1, sizeof *s);
	str_copy(s->source, sizeof s->source, "test");
	for (size_t i = 0; i < nkeys; i++) {
		if (skip && i % 7 == 3)
			continue;
		uint64_t r = rnd();
		switch (r % 4) {
		case 0: break;                       /* idle */
		case 1: c[i][0] += 5; c[i][1] += 5000; c[i][2] += 1; break;   /* ties */
		default:
			c[i][0] += r >> 8 & 63;
			c[i][1] += (r >> 16 & 0xfffff) * (c[i][0] & 1 ? 1 : 1000);
			c[i][2] += r >> 40 & 7;
		}
		struct digest_row *row = digest_set_add(s);
		snprintf(row->key, sizeof row->key, "0:1:%zu:t", (i * 7919) % 100003);
		row->c[DG_CALLS] = c[i][0];
		row->c[DG_TOTAL_NS] = c[i][1];
		row->c[DG_ROWS] = c[i][2];
		row->have = 1u << DG_CALLS | 1u << DG_TOTAL_NS | 1u << DG_ROWS;
	}
	return s;
}

/* Every key and mode, lists of several lengths asked in the given order. */
static void check_all(const struct digest_table *t, const char *when, const size_t *lens, size_t nlens)
{
	const struct digest_entry **ref = xmalloc((t->n + 1) * sizeof *ref);
	const struct digest_entry **got = xmalloc((t->n + 2) * sizeof *got);
	for (int k = 0; k < DGS__COUNT; k++)
		for (int cum = 0; cum < 2; cum++) {
			size_t nref = ref_rank(t, (enum dg_sort)k, cum, ref);
			bool ok = true;
			size_t bad = 0;
			for (size_t l = 0; l < nlens; l++) {
				size_t want = lens[l] < nref ? lens[l] : nref;
				size_t n = digest_table_top(t, (enum dg_sort)k, cum, got, lens[l]);
				if (n != want) {
					ok = false;
					bad = lens[l];
					break;
				}
				for (size_t i = 0; i < n; i++)
					if (got[i] != ref[i]) {
						ok = false;
						bad = lens[l];
					}
			}
			CHECK(ok, tname("%s: top by %s%s matches the full ranking (%zu ranked; first wrong length %zu)", when,
				     dg_sort_names[k], cum ? ", cumulative" : "", nref, bad));
		}
	free(ref);
	free(got);
}

int main(void)
{
	enum { NKEYS = 3000 };
	static uint64_t c[NKEYS][3];
	struct digest_table t;
	const struct digest_entry *out[8];
	static const size_t up[] = {1, 8, 100, DG_TOP_KEEP, DG_TOP_KEEP + 1, NKEYS + 5};
	static const size_t down[] = {NKEYS + 5, 700, DG_TOP_KEEP, 8, 1};
	static const size_t mixed[] = {8, 2000, 8, 600, 3};

	digest_table_init(&t);
	CHECK(digest_table_top(&t, DGS_TOTAL, false, out, 8) == 0, "empty table: nothing ranked");
	struct digest_set *set = make_set(NKEYS, c, false);
	digest_table_update(&t, set, NAN, true, 1000);
	digest_set_free(set);   /* the table keeps none of the caller's rows */
	check_all(&t, "first read (no rates)", up, sizeof up / sizeof up[0]);
	double wall = 1000;
	for (int round = 0; round < 6; round++) {
		wall += 1 + (double)(rnd() % 3);
		/* rounds 2 and 4 read only some keys (the others go away) */
		set = make_set(round < 3 ? NKEYS / 2 : NKEYS, c, round == 2 || round == 4);
		digest_table_update(&t, set, 1.0, false, wall);
		digest_set_free(set);
		check_all(&t, tname("update %d", round + 1), round % 2 ? down : up,
			  round % 2 ? sizeof down / sizeof down[0] : sizeof up / sizeof up[0]);
		check_all(&t, tname("update %d, asked again", round + 1), mixed, sizeof mixed / sizeof mixed[0]);
	}
	/* the server down: nothing known this interval, cumulative still ranked */
	digest_table_update(&t, NULL, 1.0, false, wall + 1);
	CHECK(digest_table_top(&t, DGS_TOTAL, false, out, 8) == 0, "server down: no interval top");
	check_all(&t, "server down", mixed, sizeof mixed / sizeof mixed[0]);
	digest_table_free(&t);
	CHECK(t.topc == NULL && t.n == 0, "digest_table_free: the ranking cache is freed");

	/* a table no update filled (built by hand): ranked without the cache */
	struct digest_table h;
	digest_table_init(&h);
	h.n = h.cap = 3;
	h.e = xcalloc(3, sizeof *h.e);
	for (int i = 0; i < 3; i++) {
		snprintf(h.e[i].last.key, sizeof h.e[i].last.key, "k%d", i);
		h.e[i].known = true;
		h.e[i].rate[DG_TOTAL_NS] = i == 1 ? 5 : 2;
	}
	size_t n = digest_table_top(&h, DGS_TOTAL, false, out, 8);
	CHECK(n == 3 && out[0] == &h.e[1] && out[1] == &h.e[0] && out[2] == &h.e[2],
	      "hand-built table: value first, then key order");
	free(h.e);
	return tap_failed ? 1 : 0;
}
