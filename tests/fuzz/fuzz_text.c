/* fuzz_text.c - libFuzzer target for the text sanitisers: text_sanitize,
 * json_str, the UTF-8-safe cut of lock statement texts
 * (lock_session_query) and the column measuring / clipping / wrapping of
 * the canvas (text_cols, cv_text, cv_wrap, wrap_rows) in a UTF-8 locale.
 * Any bytes are one text (cut at the first NUL, as a C string would be).
 * Checks, and aborts when one breaks:
 *  - text_sanitize: the result is valid UTF-8 with no C0 / C1 control, no
 *    DEL, no ESC and no bidirectional control; it is no longer than the
 *    input, leaves clean text untouched, and sanitising it again changes
 *    nothing;
 *  - json_str: a well-formed JSON string with no raw control byte that
 *    decodes back to the input with each invalid byte as U+FFFD;
 *  - lock_session_query: clean; unless the text may set a password (then
 *    it is masked after the cut), at most LOCK_QUERY_MAX - 1 bytes, and
 *    for clean input a prefix of it (the cut never splits a character);
 *  - canvas: every text handed to the terminal is clean and fits the
 *    columns it was given, a text cut by the edge gets its cut mark;
 *    cv_wrap draws as many rows as wrap_rows says.
 * Build and run: make fuzz FUZZ_TARGET=text */
#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/locks.h"
#include "../../panes/canvas.h"
#include "../../util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define REQUIRE(c) do { if (!(c)) { \
	fprintf(stderr, "fuzz_text: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, #c); \
	abort(); } } while (0)

/* Code point of the well-formed UTF-8 sequence at s (its length in *n),
 * or -1 when s does not start one (overlong, surrogate, > U+10FFFF,
 * truncated). Written apart from util.c on purpose. */
static long utf8_decode(const unsigned char *s, size_t *n)
{
	unsigned c = s[0];
	long cp, min;
	size_t len, i;
	if (c < 0x80) {
		*n = 1;
		return c;
	}
	if ((c & 0xe0) == 0xc0) {
		len = 2; cp = c & 0x1f; min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3; cp = c & 0x0f; min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4; cp = c & 0x07; min = 0x10000;
	} else {
		return -1;
	}
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*n = len;
	return cp;
}

static bool is_bidi_cp(long cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* True when s is safe for a terminal: valid UTF-8, no control characters
 * (C0, DEL, C1; so no ESC), no bidirectional controls. */
static bool is_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n;
		long cp = utf8_decode(p, &n);
		if (cp < 0 || cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || is_bidi_cp(cp))
			return false;
		p += n;
	}
	return true;
}

static void put_utf8(struct strbuf *b, long cp)
{
	if (cp < 0x80) {
		sb_putc(b, (char)cp);
	} else if (cp < 0x800) {
		sb_putc(b, (char)(0xc0 | cp >> 6));
		sb_putc(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		sb_putc(b, (char)(0xe0 | cp >> 12));
		sb_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		sb_putc(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		sb_putc(b, (char)(0xf0 | cp >> 18));
		sb_putc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		sb_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		sb_putc(b, (char)(0x80 | (cp & 0x3f)));
	}
}

/* What json_str's output must decode to: s with every byte that does not
 * start a well-formed sequence replaced by U+FFFD (util.c's reading of
 * UTF-8: C0/C1 leads and F5..FF never start one). */
static void expected_json_text(const char *s, struct strbuf *out)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n;
		long cp = utf8_decode(p, &n);
		if (cp < 0) {
			put_utf8(out, 0xfffd);
			p++;
		} else {
			sb_put(out, (const char *)p, n);
			p += n;
		}
	}
}

static int hex4(const char *p)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* Decode the JSON string literal j (whole of it) into out; false when j is
 * not exactly one well-formed literal with no raw control byte. */
static bool json_decode(const char *j, size_t len, struct strbuf *out)
{
	size_t i = 1;
	if (len < 2 || j[0] != '"' || j[len - 1] != '"')
		return false;
	while (i < len - 1) {
		unsigned char c = (unsigned char)j[i];
		if (c < 0x20 || c == 0x7f || c == '"')
			return false;
		if (c != '\\') {
			sb_putc(out, (char)c);
			i++;
			continue;
		}
		if (i + 1 >= len - 1)
			return false;
		switch (j[i + 1]) {
		case '"': sb_putc(out, '"'); i += 2; break;
		case '\\': sb_putc(out, '\\'); i += 2; break;
		case '/': sb_putc(out, '/'); i += 2; break;
		case 'n': sb_putc(out, '\n'); i += 2; break;
		case 't': sb_putc(out, '\t'); i += 2; break;
		case 'r': sb_putc(out, '\r'); i += 2; break;
		case 'b': sb_putc(out, '\b'); i += 2; break;
		case 'f': sb_putc(out, '\f'); i += 2; break;
		case 'u': {
			int v;
			if (i + 6 > len - 1 || (v = hex4(j + i + 2)) < 0 || (v >= 0xd800 && v <= 0xdfff))
				return false;
			put_utf8(out, v);
			i += 6;
			break;
		}
		default:
			return false;
		}
	}
	return true;
}

/* A canvas that checks what would reach the terminal. */
static int put_calls;
static void check_put(struct canvas *cv, int y, int x, enum role r, const char *s, int ncols)
{
	(void)r;
	REQUIRE(is_clean(s));
	REQUIRE(y >= cv->y0 && y < cv->y0 + cv->h);
	REQUIRE(x >= cv->x0 && ncols >= 1 && x + ncols <= cv->x0 + cv->w);
	REQUIRE(text_cols(s) == ncols);
	put_calls++;
}
static const struct canvas_ops check_ops = {check_put};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* the screen runs in the user's locale; wide and combining
	 * characters only count as such in a UTF-8 one */
	if (!setlocale(LC_ALL, "C.UTF-8"))
		setlocale(LC_ALL, "C.utf8");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in, *s, *again;
	size_t len;
	bool clean_in;
	struct strbuf j, dec, want;

	/* a C string: up to the first NUL */
	in = xmalloc(size + 1);
	memcpy(in, data, size);
	in[size] = '\0';
	len = strlen(in);
	clean_in = is_clean(in);

	/* text_sanitize */
	s = xstrdup(in);
	REQUIRE(text_sanitize(s) == s);
	REQUIRE(strlen(s) <= len);
	REQUIRE(is_clean(s));
	if (clean_in)
		REQUIRE(strcmp(s, in) == 0);
	again = xstrdup(s);
	text_sanitize(again);
	REQUIRE(strcmp(again, s) == 0);
	free(again);

	/* json_str */
	sb_init(&j);
	sb_init(&dec);
	sb_init(&want);
	json_str(&j, in);
	REQUIRE(j.s && strlen(j.s) == j.len);
	REQUIRE(json_decode(j.s, j.len, &dec));
	sb_putc(&dec, '\0');
	expected_json_text(in, &want);
	sb_putc(&want, '\0');
	REQUIRE(dec.len == want.len && memcmp(dec.s, want.s, dec.len) == 0);
	sb_free(&j);
	sb_free(&dec);
	sb_free(&want);

	/* lock statement texts: cut on a character boundary, then sanitised */
	{
		struct lock_set *ls = lock_set_new();
		struct lock_edge *e = lock_edge_add(ls, 1, 2);
		struct lock_session *ses;
		size_t qn;
		bool masked;
		(void)e;
		REQUIRE(ls->ns == 2);
		ses = &ls->s[0];
		lock_session_query(ses, in, true);
		REQUIRE(ses->query != NULL);
		qn = strlen(ses->query);
		REQUIRE(is_clean(ses->query));
		/* a text that may set a password is masked after the cut, and
		 * '***' can be longer than what it replaces */
		masked = strcasestr(in, "password") || strcasestr(in, "identified");
		if (!masked)
			REQUIRE(qn <= LOCK_QUERY_MAX - 1 && qn <= len);
		if (clean_in && !masked) {
			REQUIRE(strncmp(ses->query, in, qn) == 0);
			/* cut only as far as needed: what is left starts a character */
			if (qn < len)
				REQUIRE(len > LOCK_QUERY_MAX - 1 && qn + 4 > LOCK_QUERY_MAX - 1 &&
					((unsigned char)in[qn] & 0xc0) != 0x80);
		}
		lock_set_free(ls);
	}

	/* the canvas: widths 1..80 from the text's own length */
	{
		int w = 1 + (int)(len % 80), rows, drawn;
		struct canvas cv = {.ops = &check_ops, .y0 = 3, .x0 = 2, .h = 1000, .w = w, .utf8 = true};
		int cols = text_cols(in);
		REQUIRE(cols >= 0);
		put_calls = 0;
		drawn = cv_text(&cv, 0, 0, R_NORMAL, in);
		/* one put for the text, one more for the cut mark when it is
		 * wider than the canvas (every cut shows its mark) */
		REQUIRE(drawn >= 0 && drawn <= w && put_calls == (drawn > 0) + (cols > w));
		cv_text(&cv, 0, w - 1, R_NORMAL, in);
		cv_text_right(&cv, 1, w, R_NORMAL, in);
		if (len < 4096) {  /* cv_wrap is for short notes */
			rows = wrap_rows(in, w);
			REQUIRE(rows >= 1);
			drawn = cv_wrap(&cv, 5, 0, R_NOTE, in, 1000);
			if (w >= 8 && *in && rows < 990)
				REQUIRE(drawn - 5 == rows);
		}
	}

	free(s);
	free(in);
	return 0;
}
