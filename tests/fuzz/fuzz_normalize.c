/* fuzz_normalize.c - libFuzzer target for the statement normaliser
 * (util/redact.c, PCRE2): redact_sql, which the sampled digest fallback
 * and --redact use to turn literals into '?', and redact_secrets, applied
 * to every statement text shown or recorded. Any bytes are one statement
 * text (cut at the first NUL); the whole fallback path
 * (fallback_observe -> fallback_build) runs on it too. Checks, and aborts
 * when one breaks:
 *  - both return a new string; redact_sql's is never longer than the input
 *    plus one byte per '(' (IN(?) is written IN (?)) plus one (a '?' for
 *    what follows an unpaired quote), its fixed failure answer aside;
 *  - redact_sql is a fixed point: normalising its output again gives the
 *    same text (no literal is left for a second pass to find), unless the
 *    output has a `quoted identifier`, kept as written, whose quotes or
 *    backquotes a second pass may read differently; a quote left in the
 *    output is one inside such an identifier;
 *  - redact_secrets is a fixed point as well (its '***' stays '***');
 *  - a string literal and a number put before the text never survive
 *    redact_sql; nor does a number put after it when the text has no
 *    `quoted identifier` (kept as written), nor a string literal put after
 *    a text with no quote at all (a quote in the text could open a string
 *    that the appended quote closes);
 *  - a password after IDENTIFIED BY never survives redact_secrets when the
 *    text before it has no quote, dollar or backslash that could make it
 *    part of something else;
 *  - the digest the fallback builds has the normalised, secret-free,
 *    sanitised text (no control bytes, valid UTF-8).
 * Build and run: make fuzz FUZZ_TARGET=normalize */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/digests.h"
#include "../../sources/fallback.h"
#include "../../util/redact.h"
#include "../../util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(c) do { if (!(c)) { \
	fprintf(stderr, "fuzz_normalize: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, #c); \
	abort(); } } while (0)

#define FAIL_SQL "(redacted)"
#define FAIL_SECRETS "(statement text withheld)"

/* util.c's reading of a terminal-safe text: valid UTF-8 (no overlong, no
 * surrogate, nothing above U+10FFFF), no C0 / DEL / C1 control. */
static bool is_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned c = *p;
		long cp, min;
		size_t n, i;
		if (c < 0x80) {
			if (c < 0x20 || c == 0x7f)
				return false;
			p++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			n = 2; cp = c & 0x1f; min = 0x80;
		} else if ((c & 0xf0) == 0xe0) {
			n = 3; cp = c & 0x0f; min = 0x800;
		} else if ((c & 0xf8) == 0xf0) {
			n = 4; cp = c & 0x07; min = 0x10000;
		} else {
			return false;
		}
		for (i = 1; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp < 0xa0)
			return false;
		p += n;
	}
	return true;
}

static char *concat3(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *s = xmalloc(la + lb + lc + 1);
	memcpy(s, a, la);
	memcpy(s + la, b, lb);
	memcpy(s + la + lb, c, lc + 1);
	return s;
}

#define LIT_TEXT "Zq7litQz"
#define NUM_TEXT "987654321"
#define PW_TEXT "Zq7pwQz"

/* redact_sql(text) must not contain what: checks it, frees text. */
static void require_gone(char *text, const char *what)
{
	char *r = redact_sql(text);
	REQUIRE(strstr(r, what) == NULL);
	free(r);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in, *r1, *r2, *s1, *s2;
	size_t len, parens = 0;

	if (size > 16384)  /* statement texts are cut long before this */
		return 0;
	in = xmalloc(size + 1);
	memcpy(in, data, size);
	in[size] = '\0';
	len = strlen(in);
	for (const char *c = in; (c = strchr(c, '(')); c++)
		parens++;

	/* redact_sql: bounded, and a fixed point */
	r1 = redact_sql(in);
	REQUIRE(r1 != NULL && r1 != in);
	if (strcmp(r1, FAIL_SQL) != 0) {
		REQUIRE(strlen(r1) <= len + parens + 1);
		if (strchr(r1, '\''))
			/* a quote is only left inside a `quoted identifier`
			 * (kept as written) */
			REQUIRE(strchr(r1, '`') != NULL);
		if (strchr(r1, '`')) {
			/* a second pass counts the quotes inside it with the
			 * others and may cut more (the rule for unpaired quotes),
			 * or pair an unterminated one, kept to the end of its
			 * part, with one of another part: not a fixed point */
		} else {
			r2 = redact_sql(r1);
			REQUIRE(strcmp(r2, r1) == 0);
			free(r2);
		}
	}

	/* redact_secrets: a fixed point too, on raw and on normalised text */
	s1 = redact_secrets(in);
	REQUIRE(s1 != NULL && s1 != in);
	if (strcmp(s1, FAIL_SECRETS) != 0) {
		s2 = redact_secrets(s1);
		REQUIRE(strcmp(s2, s1) == 0);
		free(s2);
	}
	free(s1);
	s1 = redact_secrets(r1);
	if (strcmp(s1, FAIL_SECRETS) != 0) {
		s2 = redact_secrets(s1);
		REQUIRE(strcmp(s2, s1) == 0);
		free(s2);
	}
	free(s1);
	free(r1);

	/* literals put around the text go */
	if (!strstr(in, LIT_TEXT) && !strstr(in, NUM_TEXT)) {
		require_gone(concat3("'" LIT_TEXT "' ", in, ""), LIT_TEXT);
		require_gone(concat3(NUM_TEXT " ", in, ""), NUM_TEXT);
		if (!strchr(in, '`'))
			require_gone(concat3(in, " " NUM_TEXT " ", ""), NUM_TEXT);
		/* a quote in the text may open a string that the appended
		 * one closes (then its content is no literal): only after
		 * text without quotes */
		if (!strpbrk(in, "'\"`"))
			require_gone(concat3(in, " '" LIT_TEXT "'", ""), LIT_TEXT);
	}

	/* a password after the text goes (with or without --redact) */
	if (!strstr(in, PW_TEXT) && !strpbrk(in, "'\"`$\\")) {
		char *t = concat3(in, " IDENTIFIED BY '" PW_TEXT "'", "");
		s1 = redact_secrets(t);
		REQUIRE(strstr(s1, PW_TEXT) == NULL);
		free(s1);
		r1 = redact_sql(t);
		s1 = redact_secrets(r1);
		REQUIRE(strstr(s1, PW_TEXT) == NULL);
		free(s1);
		free(r1);
		free(t);
	}

	/* the sampled digest fallback: what it keeps is clean */
	if (*in) {
		struct fallback fb;
		struct digest_set *set;
		fallback_init(&fb, 10);
		fallback_round(&fb, 1);
		fallback_observe(&fb, 7, "2024-01-01 00:00:00", 0.5, in, in);
		fallback_round(&fb, 1);
		fallback_observe(&fb, 7, "2024-01-01 00:00:00", 0.6, "db", in);
		set = fallback_build(&fb, "fuzz", 2);
		REQUIRE(set->n == 1);
		REQUIRE(set->rows[0].text != NULL && is_clean(set->rows[0].text));
		REQUIRE(is_clean(set->rows[0].schema));
		REQUIRE(memchr(set->rows[0].key, '\0', sizeof set->rows[0].key) != NULL);
		REQUIRE(set->rows[0].c[DG_CALLS] == 1);
		digest_set_free(set);
		fallback_free(&fb);
	}

	free(in);
	return 0;
}
