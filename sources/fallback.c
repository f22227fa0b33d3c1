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
	hmap_init(&fb->stmts, false, sizeof(struct fb_stmt), 256);
	hmap_init(&fb->norm, true, sizeof(uint64_t), 256);
}

void fallback_free(struct fallback *fb)
{
	struct fb_stmt *st;
	size_t it = 0;
	while ((st = hmap_next(&fb->stmts, &it, NULL)))
		free(st->text);
	hmap_free(&fb->stmts);
	hmap_free(&fb->norm);
	free(fb->sess);
	memset(fb, 0, sizeof *fb);
}

void fallback_round(struct fallback *fb, double now)
{
	if (!fb->pend_rounds)
		fb->first_round = now;
	fb->rounds++;
	fb->pend_rounds++;
}

/* The statement slot for text hash h (created when missing); NULL when full. */
static struct fb_stmt *stmt_slot(struct fallback *fb, uint64_t h)
{
	char key[24];
	struct fb_stmt *st;
	str_printf(key, sizeof key, "s:%016llx", (unsigned long long)h);
	if ((st = hmap_get(&fb->stmts, key)))
		return st;
	if (fb->stmts.n >= MAX_STMTS)
		return NULL;
	st = hmap_put(&fb->stmts, key, NULL);
	str_copy(st->key, sizeof st->key, key);
	return st;
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

/* The statement slot of a text as read, its normalised text's hash in *h:
 * the text is normalised (literals out, secrets redacted, sanitised) the
 * first time it is seen only. NULL when the table is full. */
static struct fb_stmt *stmt_of(struct fallback *fb, const char *text, const char *schema, uint64_t *h)
{
	char *norm, *clean, buf[MAX_TEXT + 1];
	struct fb_stmt *st;
	uint64_t raw = hash_bytes(1469598103934665603ull, text, strnlen(text, MAX_TEXT));
	const uint64_t *known = hmap_get_u64(&fb->norm, raw);
	if (known && (st = stmt_slot(fb, *known)) && st->text) {
		*h = *known;
		return st;
	}
	str_copy(buf, sizeof buf, text);
	norm = redact_sql(buf);
	clean = redact_secrets(norm);
	free(norm);
	text_sanitize(clean);
	*h = hash_str(clean);
	st = stmt_slot(fb, *h);
	if (!st) {
		free(clean);
		return NULL;
	}
	if (!st->text) {
		st->text = clean;
		str_copy(st->schema, sizeof st->schema, schema ? schema : "");
		text_sanitize(st->schema);
	} else {
		free(clean);
	}
	if (fb->norm.n >= 2 * MAX_STMTS) {   /* bounded: start again */
		hmap_free(&fb->norm);
		hmap_init(&fb->norm, true, sizeof(uint64_t), 256);
	}
	*(uint64_t *)hmap_put_u64(&fb->norm, raw, NULL) = *h;
	return st;
}

void fallback_observe(struct fallback *fb, uint64_t id, const char *start, double elapsed,
		      const char *schema, const char *text)
{
	uint64_t h;
	struct fb_stmt *st;
	struct fb_session *se;
	if (!text || !*text)
		return;
	st = stmt_of(fb, text, schema, &h);
	if (!st)
		return;
	st->samples++;
	st->pend++;
	se = session(fb, id);
	if (se->built != fb->builds + 1) {
		/* first sight of this session since the last build */
		se->built = fb->builds + 1;
		fb->pend_sessions++;
	}
	if (se->text_hash != h || se->seen + 1 < fb->rounds ||
	    (start ? strcmp(se->start, start) != 0 : elapsed < se->elapsed)) {
		st->calls++;   /* a new execution */
		se->text_hash = h;
		str_copy(se->start, sizeof se->start, start ? start : "");
	}
	se->elapsed = elapsed;
	se->seen = fb->rounds;
}

struct digest_set *fallback_build(struct fallback *fb, const char *source, double now)
{
	struct digest_set *set;
	double span;
	if (!fb->pend_rounds)
		return NULL;
	/* the time these samples stand for: since the previous build (the
	 * model's interval), else as long as they took at the rate aimed at */
	span = fb->last_build > 0 && now > fb->last_build ? now - fb->last_build : (double)fb->pend_rounds / fb->hz;
	set = xcalloc(1, sizeof *set);
	set->sampled = true;
	set->sample_hz = fb->last_build > 0 && span > 0 ? (double)fb->pend_rounds / span : fb->hz;
	set->rounds = fb->rounds;
	set->sessions = fb->pend_sessions;
	str_copy(set->source, sizeof set->source, source);
	struct fb_stmt *st;
	size_t it = 0;
	while ((st = hmap_next(&fb->stmts, &it, NULL))) {
		struct digest_row *r;
		st->total_ns += (double)st->pend / (double)fb->pend_rounds * span * 1e9;
		st->pend = 0;
		r = digest_set_add(set);
		str_copy(r->key, sizeof r->key, st->key);
		str_copy(r->schema, sizeof r->schema, st->schema);
		r->text = st->text ? xstrdup(st->text) : NULL;
		r->c[DG_CALLS] = st->calls;
		r->c[DG_TOTAL_NS] = (uint64_t)(st->total_ns + 0.5);
		r->have = 1u << DG_CALLS | 1u << DG_TOTAL_NS;
		r->samples = st->samples;
	}
	fb->pend_rounds = 0;
	fb->pend_sessions = 0;
	fb->builds++;
	fb->last_build = now;
	return set;
}

struct digest_set *fallback_build_sampled(struct fallback *fb, const char *what, double now)
{
	struct digest_set *set = fallback_build(fb, what, now);
	if (set) {
		char hz[16];
		dg_fmt_hz(hz, sizeof hz, set->sample_hz);
		str_printf(set->source, sizeof set->source, "%s at %s Hz", what, hz);
	}
	return set;
}
