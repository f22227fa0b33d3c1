/* test_fallback.c - sampled digests: normalisation, counting, estimates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/digests.h"
#include "../../sources/fallback.h"
#include "tap.h"

/* The row of set whose text equals text, or NULL. */
static const struct digest_row *find(const struct digest_set *set, const char *text)
{
	size_t i;
	for (i = 0; i < set->n; i++)
		if (set->rows[i].text && strcmp(set->rows[i].text, text) == 0)
			return &set->rows[i];
	return NULL;
}

int main(void)
{
	struct fallback fb;
	struct digest_set *set;
	const struct digest_row *r;
	int i;

	fallback_init(&fb, 10);
	/* session 1 runs one long statement through 5 rounds; session 2 runs
	 * the same statement (other literals) 3 times, one round each */
	for (i = 0; i < 5; i++) {
		fallback_round(&fb, 100 + 0.1 * i);
		fallback_observe(&fb, 1, "2026-11-29 10:00:00", 0.1 * i, "app", "SELECT * FROM t WHERE id = 42");
		if (i < 3) {
			char start[32];
			snprintf(start, sizeof start, "10:00:0%d", i);
			fallback_observe(&fb, 2, start, 0.01, "app", "select *   from t where id = 7 /* x */");
		}
	}
	set = fallback_build(&fb, "sampled test", 100.5);
	CHECK(set->sampled && fabs(set->sample_hz - 10) < 1e-9, "set is labelled sampled at 10 Hz");
	CHECK(set->rounds == 5 && set->sessions == 2, "the set says 5 samples, 2 sessions seen");
	CHECK(strcmp(set->source, "sampled test") == 0, "set carries the source name");
	r = find(set, "SELECT * FROM t WHERE id = ?");
	CHECK(r != NULL, "session 1 text normalised (literal replaced)");
	CHECK(r && r->c[DG_CALLS] == 1, "one execution seen over 5 rounds counts one call");
	CHECK(r && r->c[DG_TOTAL_NS] == 500000000ull, "5 samples at 10 Hz estimate 500 ms");
	CHECK(r && r->samples == 5, "the row carries its sample count");
	r = find(set, "select * from t where id = ?");
	CHECK(r != NULL, "comment dropped, white space squeezed, literal replaced");
	CHECK(r && r->c[DG_CALLS] == 3, "three starts of the same statement count three calls");
	CHECK(r && r->c[DG_TOTAL_NS] == 300000000ull, "seen in 3 of 5 samples: 3/5 of the 0.5 s");
	CHECK(r && (r->have & (1u << DG_ROWS)) == 0, "rows are not claimed by sampling");
	CHECK(set->n == 2, "two distinct normalised statements");
	digest_set_free(set);

	/* without a start marker, a drop in run time means a new execution */
	CHECK(fallback_build(&fb, "s", 100.6) == NULL, "no sample since the last build: no set");
	fallback_round(&fb, 100.7);
	fallback_observe(&fb, 3, NULL, 0.5, "", "UPDATE x SET v = 1");
	fallback_round(&fb, 100.8);
	fallback_observe(&fb, 3, NULL, 0.6, "", "UPDATE x SET v = 1");
	fallback_round(&fb, 100.9);
	fallback_observe(&fb, 3, NULL, 0.05, "", "UPDATE x SET v = 2");
	set = fallback_build(&fb, "s", 101.5);
	r = find(set, "UPDATE x SET v = ?");
	CHECK(r && r->c[DG_CALLS] == 2, "run time dropping counts a new execution");
	CHECK(r && llabs((long long)r->c[DG_TOTAL_NS] - 1000000000ll) < 1000,
	      "seen in every sample of the 1 s since the last build: 1000 ms");
	CHECK(fabs(set->sample_hz - 3) < 1e-6 && set->sessions == 1, "3 samples in 1 s: 3 Hz reached, 1 session");
	r = find(set, "SELECT * FROM t WHERE id = ?");
	CHECK(r && r->c[DG_TOTAL_NS] == 500000000ull, "a statement not seen since keeps its total");
	digest_set_free(set);

	/* the physics bound holds by construction: whatever the pace, the
	 * interval's estimated time is at most the sessions seen x the time */
	{
		struct fallback b;
		double t = 0, prev_total = 0;
		fallback_init(&b, 10);
		for (int k = 0; k < 6; k++) {
			int nr = k % 2 ? 1 : 7;   /* the pace changes from interval to interval */
			for (int j = 0; j < nr; j++) {
				fallback_round(&b, t + j * 0.1);
				for (int sid = 0; sid < 4; sid++) {
					char st[48];
					snprintf(st, sizeof st, "%d-%d-%d", k, j, sid);
					fallback_observe(&b, (uint64_t)sid + 1, st, 0, "", sid % 2 ? "UPDATE a SET v = 1" : "SELECT 1");
				}
			}
			t += 1;
			set = fallback_build(&b, "s", t);
			double total = 0;
			for (size_t q = 0; q < set->n; q++)
				total += (double)set->rows[q].c[DG_TOTAL_NS] / 1e6;
			if (k > 0)
				CHECK(total - prev_total <= 4 * 1000 + 1 && total - prev_total >= 4 * 1000 - 1 &&
				      set->sessions == 4, "4 sessions always active, 1 or 7 samples: 4000 ms in 1 s");
			prev_total = total;
			digest_set_free(set);
		}
		fallback_free(&b);
	}

	/* secrets never kept, hostile text sanitised */
	fallback_round(&fb, 102);
	fallback_observe(&fb, 4, "a", 0, "", "ALTER ROLE app PASSWORD 'hunter2'");
	fallback_observe(&fb, 5, "b", 0, "", "SELECT 1 /* \x1b]0;pwn\x07 */, '\x1b[2J'");
	set = fallback_build(&fb, "s", 102.1);
	for (i = 0; i < (int)set->n; i++) {
		CHECK(!strstr(set->rows[i].text, "hunter2"), "no password in a sampled text");
		CHECK(!strchr(set->rows[i].text, '\x1b'), "no escape in a sampled text");
	}
	digest_set_free(set);

	/* many distinct statements stay bounded */
	for (i = 0; i < 30000; i++) {
		char q[64];
		snprintf(q, sizeof q, "SELECT c%d FROM t", i);
		fallback_observe(&fb, 6, q, 0, "", q);
	}
	fallback_round(&fb, 103);
	set = fallback_build(&fb, "s", 103.1);
	CHECK(set->n <= 20000, "distinct statements capped at 20000");
	digest_set_free(set);
	fallback_free(&fb);
	return TAP_DONE();
}
