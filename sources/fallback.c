/* fallback.c - sampled statement digests. */
#include "fallback.h"

#include <stdlib.h>
#include <string.h>

#include "../model/digests.h"
#include "../util/redact.h"
#include "../util/util.h"

#define MAX_STMTS 20000     /* distinct normalised statements kept */
#define MAX_TEXT 4096       /* bytes of a text kept */

void fallback_init(struct fallback *fb, double hz)
{
	memset(fb, 0, sizeof *fb);
	fb->hz = hz > 0 ? hz : 1;
}

void fallback_init_timed(struct fallback *fb, double hz)
{
	fallback_init(fb, hz);
	fb->timed = true;
}

void fallback_free(struct fallback *fb)
{
	size_t i;
	for (i = 0; i < fb->cap; i++)
		free(fb->s[i].text);
	free(fb->s);
	free(fb->sess);
	memset(fb, 0, sizeof *fb);
}

void fallback_round(struct fallback *fb)
{
	fb->rounds++;
	if (fb->timed) {
		double now = clock_mono(), w = fb->round_mono > 0 ? now - fb->round_mono : 1 / fb->hz;
		fb->round_w = w > 1 ? 1 : w;
		fb->round_mono = now;
	}
}

/* The statement slot for text hash h (created when missing); NULL when full. */
static struct fb_stmt *stmt_slot(struct fallback *fb, uint64_t h)
{
	char key[24];
	size_t i;
	if ((fb->n + 1) * 2 > fb->cap) {
		struct fallback big = *fb;
		if (fb->n >= MAX_STMTS)
			goto find_only;
		big.cap = fb->cap ? fb->cap * 2 : 256;
		big.s = xcalloc(big.cap, sizeof *big.s);
		for (i = 0; i < fb->cap; i++)
			if (fb->s[i].key[0]) {
				size_t j = hash_str(fb->s[i].key) & (big.cap - 1);
				while (big.s[j].key[0])
					j = (j + 1) & (big.cap - 1);
				big.s[j] = fb->s[i];
			}
		free(fb->s);
		fb->s = big.s;
		fb->cap = big.cap;
	}
find_only:
	str_printf(key, sizeof key, "s:%016llx", (unsigned long long)h);
	i = hash_str(key) & (fb->cap - 1);
	while (fb->s[i].key[0] && strcmp(fb->s[i].key, key) != 0)
		i = (i + 1) & (fb->cap - 1);
	if (!fb->s[i].key[0]) {
		if (fb->n >= MAX_STMTS || (fb->n + 1) * 2 > fb->cap)
			return NULL;
		str_copy(fb->s[i].key, sizeof fb->s[i].key, key);
		fb->n++;
	}
	return &fb->s[i];
}

/* The session record of id, created when missing. */
static struct fb_session *session(struct fallback *fb, uint64_t id)
{
	size_t i;
	for (i = 0; i < fb->nsess; i++)
		if (fb->sess[i].id == id)
			return &fb->sess[i];
	/* forget sessions not seen for a while before growing */
	for (i = 0; i < fb->nsess; i++)
		if (fb->sess[i].seen + 100 < fb->rounds) {
			memset(&fb->sess[i], 0, sizeof fb->sess[i]);
			fb->sess[i].id = id;
			return &fb->sess[i];
		}
	if (fb->nsess == fb->capsess) {
		fb->capsess = fb->capsess ? fb->capsess * 2 : 64;
		fb->sess = xrealloc(fb->sess, fb->capsess * sizeof *fb->sess);
	}
	memset(&fb->sess[fb->nsess], 0, sizeof fb->sess[0]);
	fb->sess[fb->nsess].id = id;
	return &fb->sess[fb->nsess++];
}

void fallback_observe(struct fallback *fb, uint64_t id, const char *start, double elapsed,
		      const char *schema, const char *text)
{
	char *norm, *clean, buf[MAX_TEXT + 1];
	uint64_t h;
	struct fb_stmt *st;
	struct fb_session *se;
	if (!text || !*text)
		return;
	str_copy(buf, sizeof buf, text);
	norm = redact_sql(buf);
	clean = redact_secrets(norm);
	free(norm);
	text_sanitize(clean);
	h = hash_str(clean);
	st = stmt_slot(fb, h);
	if (!st) {
		free(clean);
		return;
	}
	if (!st->text) {
		st->text = clean;
		str_copy(st->schema, sizeof st->schema, schema ? schema : "");
		text_sanitize(st->schema);
	} else {
		free(clean);
	}
	st->samples++;
	st->time_s += fb->round_w;
	se = session(fb, id);
	if (se->text_hash != h || se->seen + 1 < fb->rounds ||
	    (start ? strcmp(se->start, start) != 0 : elapsed < se->elapsed)) {
		st->calls++;   /* a new execution */
		se->text_hash = h;
		str_copy(se->start, sizeof se->start, start ? start : "");
	}
	se->elapsed = elapsed;
	se->seen = fb->rounds;
}

struct digest_set *fallback_build(const struct fallback *fb, const char *source)
{
	struct digest_set *set = xcalloc(1, sizeof *set);
	size_t i;
	set->sampled = true;
	set->sample_hz = fb->hz;
	str_copy(set->source, sizeof set->source, source);
	for (i = 0; i < fb->cap; i++) {
		const struct fb_stmt *st = &fb->s[i];
		struct digest_row *r;
		if (!st->key[0])
			continue;
		r = digest_set_add(set);
		str_copy(r->key, sizeof r->key, st->key);
		str_copy(r->schema, sizeof r->schema, st->schema);
		r->text = st->text ? xstrdup(st->text) : NULL;
		r->c[DG_CALLS] = st->calls;
		r->c[DG_TOTAL_NS] = fb->timed ? (uint64_t)(st->time_s * 1e9) : (uint64_t)((double)st->samples * 1e9 / fb->hz);
		r->have = 1u << DG_CALLS | 1u << DG_TOTAL_NS;
	}
	return set;
}
