/* redact.c - literal removal with PCRE2, compiled once. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "redact.h"

#include <ctype.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* One token of SQL text per match (byte mode: any byte is a character, so
 * invalid UTF-8 cannot hide a literal). Group numbers matter below. */
static const char token_pattern[] =
	"(/\\*.*?(?:\\*/|\\z))"                         /* 1 block comment */
	"|((?:--|#)[^\\n]*+)"                            /* 2 line comment */
	"|(\\$((?:[A-Za-z_][A-Za-z_0-9]*+)?)\\$.*?(?:\\$\\4\\$|\\z))" /* 3,4 dollar quote */
	"|([xXbB]'[^']*+'?)"                             /* 5 hex / bit string */
	"|(0[xX][0-9a-fA-F]++|0[bB][01]++)"              /* 6 hex / binary number */
	"|([A-Za-z_\\x80-\\xff][A-Za-z_0-9$\\x80-\\xff]*+)" /* 7 identifier, keyword */
	"|(`(?:[^`]++|``)*+`?)"                          /* 8 quoted identifier */
	"|('(?:[^'\\\\]++|\\\\.|'')*+'?)"                /* 9 string */
	"|(\"(?:[^\"\\\\]++|\\\\.|\"\")*+\"?)"           /* 10 double-quoted string */
	"|(\\$[0-9]++|\\?)"                              /* 11 placeholder */
	"|((?:[0-9]++(?:\\.[0-9]*+)?|\\.[0-9]++)(?:[eE][-+]?[0-9]++)?)" /* 12 number */
	"|(\\s++)"                                       /* 13 white space */
	"|(.)";                                          /* 14 anything else */

/* IN-lists of placeholders collapse to one. */
static const char inlist_pattern[] = "(?i)\\bIN\\s*+\\(\\s*+\\?(?:\\s*+,\\s*+\\?)*+\\s*+\\)";

/* Secrets: the keyword stays, the value goes. */
static const struct {
	const char *pattern;
	const char *repl;
} secret_rules[] = {
	/* PASSWORD 'x', MASTER_PASSWORD='x', SET PASSWORD FOR u = 'x',
	 * PASSWORD('x'), IDENTIFIED BY 'x', PASSWORD E'x', PASSWORD $$x$$;
	 * quoted strings right after it are part of it ('x' "y" is 'xy') */
	{"(?i)\\b(\\w*PASSWORD(?:\\s+FOR\\s+(?:'[^']*'|\"[^\"]*\"|[^\\s=@]+)(?:@(?:'[^']*'|\"[^\"]*\"|[^\\s=]+))?)?"
	 "|IDENTIFIED\\s+(?:WITH\\s+\\S+\\s+)?(?:BY|AS))(\\s*=?\\s*(?:PASSWORD\\s*)?\\(?\\s*)[EeNn]?"
	 "(?:'(?:[^'\\\\]|\\\\.|'')*'?|\"(?:[^\"\\\\]|\\\\.|\"\")*\"?|\\$\\w*\\$.*?(?:\\$\\w*\\$|$))"
	 "(?:\\s*+(?:'(?:[^'\\\\]|\\\\.|'')*+'?|\"(?:[^\"\\\\]|\\\\.|\"\")*+\"?))*+",
	 "${1}${2}'***'"},
	/* password=x (connection strings, SET PASSWORD = x): unquoted after '=' */
	{"(?i)\\b(\\w*PASSWORD)(\\s*=\\s*)(?!'\\*\\*\\*')[^\\s,;)']+", "${1}${2}'***'"},
};
#define NSECRET (sizeof secret_rules / sizeof secret_rules[0])

static pcre2_code *token_re, *inlist_re;
static pcre2_code *secret_compiled[NSECRET];

/* Compile one pattern; a failure is a programming error. */
static pcre2_code *compile_or_die(const char *pattern)
{
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_DOTALL,
				       &errcode, &erroff, NULL);
	if (!re) {
		fprintf(stderr, "dbtop: internal regex failed to compile at %zu: %s\n", (size_t)erroff, pattern);
		abort();
	}
	return re;
}

/* Substitute every match of re in cur by repl; returns a new string, or
 * NULL when matching failed. */
static char *substitute(pcre2_code *re, const char *cur, const char *repl)
{
	size_t len = strlen(cur);
	PCRE2_SIZE outlen = len * 2 + 64;
	char *out = xmalloc(outlen);
	int rc;
	for (;;) {
		PCRE2_SIZE ol = outlen;
		rc = pcre2_substitute(re, (PCRE2_SPTR)cur, len, 0,
				      PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH | PCRE2_SUBSTITUTE_EXTENDED,
				      NULL, NULL, (PCRE2_SPTR)repl, PCRE2_ZERO_TERMINATED, (PCRE2_UCHAR *)out, &ol);
		if (rc == PCRE2_ERROR_NOMEMORY) {
			outlen = ol + 1;
			out = xrealloc(out, outlen);
			continue;
		}
		break;
	}
	if (rc < 0) {
		free(out);
		return NULL;
	}
	return out;
}

char *redact_secrets(const char *s)
{
	char *cur = xstrdup(s), *next;
	size_t i;
	/* every rule needs one of these words: most texts have neither, and
	 * the rules' scan is costly (once per text fetched or sampled) */
	if (!strcasestr(s, "password") && !strcasestr(s, "identified"))
		return cur;
	for (i = 0; i < NSECRET; i++) {
		if (!secret_compiled[i])
			secret_compiled[i] = compile_or_die(secret_rules[i].pattern);
		next = substitute(secret_compiled[i], cur, secret_rules[i].repl);
		free(cur);
		if (!next)
			return xstrdup("(statement text withheld)");
		cur = next;
	}
	return cur;
}

/* Literals of s (from..to) replaced by '?' into out; comments dropped,
 * white space squeezed. Returns false when matching failed. */
static bool tokenize_into(struct strbuf *out, const char *s, size_t from, size_t to,
			  pcre2_match_data *md)
{
	size_t off = from;
	while (off < to) {
		int rc = pcre2_match(token_re, (PCRE2_SPTR)s, to, off, 0, md, NULL);
		PCRE2_SIZE *ov;
		int g;
		if (rc < 0)
			return false;
		ov = pcre2_get_ovector_pointer(md);
		for (g = 1; g < rc && ov[2 * g] == PCRE2_UNSET; g++)
			;
		switch (g) {
		case 1: case 2: case 13:
			if (out->len && out->s[out->len - 1] != ' ')
				sb_putc(out, ' ');
			break;
		case 6: case 12: {
			/* a sign in front of a number is part of the literal unless
			 * it follows an operand (a - 1 stays a subtraction) */
			size_t k = out->len;
			while (k && out->s[k - 1] == ' ')
				k--;
			if (k && (out->s[k - 1] == '-' || out->s[k - 1] == '+')) {
				size_t j = k - 1;
				while (j && out->s[j - 1] == ' ')
					j--;
				char pc = j ? out->s[j - 1] : '(';
				if (!(isalnum((unsigned char)pc) || pc == '_' || pc == ')' || pc == '?' ||
				      pc == '`' || pc == '"' || (unsigned char)pc >= 0x80))
					out->len = k - 1;
			}
			sb_putc(out, '?');
			break;
		}
		case 3: case 5: case 9: case 10:
			sb_putc(out, '?');
			break;
		default:
			sb_put(out, s + ov[0], ov[1] - ov[0]);
		}
		if (ov[1] <= off)
			off++;   /* cannot happen: every alternative consumes */
		else
			off = ov[1];
	}
	return true;
}

char *redact_sql(const char *s)
{
	struct strbuf a, b;
	pcre2_match_data *md;
	size_t len = strlen(s), first, last;
	const char *q1, *q2;
	bool ok;
	if (!token_re) {
		token_re = compile_or_die(token_pattern);
		inlist_re = compile_or_die(inlist_pattern);
	}
	md = pcre2_match_data_create(16, NULL);
	sb_init(&a);
	sb_puts(&a, "");
	/* A backslash before a quote reads differently in MySQL (an escape) and
	 * in PostgreSQL (a character): then everything from the first to the
	 * last quote goes, so that neither reading can leak a literal. */
	q1 = strchr(s, '\'');
	q2 = strrchr(s, '\'');
	size_t nq = 0;
	for (const char *c = s; *c; c++)
		nq += *c == '\'';
	if (q1 && nq % 2) {
		/* an odd number of quotes (an apostrophe in prose, a cut text):
		 * pairing is guesswork, so all from the first quote goes */
		ok = tokenize_into(&a, s, 0, (size_t)(q1 - s), md);
		sb_putc(&a, '?');
	} else if (q1 && q2 > q1 && strstr(s, "\\'")) {
		first = (size_t)(q1 - s);
		last = (size_t)(q2 - s) + 1;
		ok = tokenize_into(&a, s, 0, first, md);
		sb_putc(&a, '?');
		ok = ok && tokenize_into(&a, s, last, len, md);
	} else {
		ok = tokenize_into(&a, s, 0, len, md);
	}
	pcre2_match_data_free(md);
	if (!ok) {
		sb_free(&a);
		return xstrdup("(redacted)");
	}
	/* trim the squeezed white space at both ends */
	while (a.len && a.s[a.len - 1] == ' ')
		a.s[--a.len] = '\0';
	{
		char *t = substitute(inlist_re, a.s[0] == ' ' ? a.s + 1 : a.s, "IN (?)");
		sb_free(&a);
		if (!t)
			return xstrdup("(redacted)");
		sb_init(&b);
		sb_puts(&b, t);
		free(t);
	}
	return b.s;
}

size_t utf8_cut_len(const char *q, size_t max)
{
	size_t n = strlen(q);
	if (n > max) {
		n = max;
		while (n > 0 && ((unsigned char)q[n] & 0xc0) == 0x80)
			n--;
	}
	return n;
}

char *statement_keep(const char *q, size_t max)
{
	if (!q)
		return NULL;
	size_t n = utf8_cut_len(q, max);
	char *s = xmalloc(n + 1);
	memcpy(s, q, n);
	s[n] = '\0';
	/* CREATE USER ... IDENTIFIED BY / ALTER ROLE ... PASSWORD */
	if (strcasestr(s, "password") || strcasestr(s, "identified")) {
		char *r = redact_secrets(s);
		free(s);
		s = r;
	}
	text_sanitize(s);
	return s;
}

struct tc_entry {
	uint64_t h;
	size_t max;       /* the cut it was kept with */
	bool used;        /* asked for since the last sweep */
	char *raw, *kept; /* raw bytes as read (cut), statement_keep's text */
};

/* The slot of (h, raw, max): its entry's or the empty one where it goes. */
static size_t tc_slot(const struct text_cache *c, uint64_t h, const char *raw, size_t n, size_t max)
{
	size_t i = (size_t)h & (c->cap - 1);
	for (;; i = (i + 1) & (c->cap - 1)) {
		const struct tc_entry *e = c->e[i];
		if (!e || (e->h == h && e->max == max && strncmp(e->raw, raw, n) == 0 && e->raw[n] == '\0'))
			return i;
	}
}

/* Room for one more entry: at most half the slots used. */
static void tc_grow(struct text_cache *c)
{
	if ((c->n + 1) * 2 <= c->cap)
		return;
	size_t ncap = c->cap ? c->cap * 2 : 256;
	struct tc_entry **old = c->e;
	size_t ocap = c->cap;
	c->e = xcalloc(ncap, sizeof *c->e);
	c->cap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i])
			c->e[tc_slot(c, old[i]->h, old[i]->raw, strlen(old[i]->raw), old[i]->max)] = old[i];
	free(old);
}

char *statement_keep_cached(struct text_cache *c, const char *q, size_t max)
{
	if (!c || !q)
		return statement_keep(q, max);
	size_t n = utf8_cut_len(q, max);
	uint64_t h = hash_bytes(hash_bytes(HASH_SEED, &max, sizeof max), q, n);
	tc_grow(c);
	size_t i = tc_slot(c, h, q, n, max);
	struct tc_entry *e = c->e[i];
	if (e) {
		c->hits++;
	} else {
		c->misses++;
		e = xcalloc(1, sizeof *e);
		e->h = h;
		e->max = max;
		e->raw = xmalloc(n + 1);
		memcpy(e->raw, q, n);
		e->raw[n] = '\0';
		e->kept = statement_keep(e->raw, max);
		c->e[i] = e;
		c->n++;
	}
	e->used = true;
	return xstrdup(e->kept);
}

static void tc_entry_free(struct tc_entry *e)
{
	free(e->raw);
	free(e->kept);
	free(e);
}

void text_cache_sweep(struct text_cache *c)
{
	struct tc_entry **old = c->e;
	size_t ocap = c->cap;
	c->e = NULL;
	c->n = c->cap = 0;
	for (size_t i = 0; i < ocap; i++) {
		struct tc_entry *e = old[i];
		if (!e)
			continue;
		if (!e->used) {
			tc_entry_free(e);
			continue;
		}
		e->used = false;
		tc_grow(c);
		c->e[tc_slot(c, e->h, e->raw, strlen(e->raw), e->max)] = e;
		c->n++;
	}
	free(old);
}

void text_cache_free(struct text_cache *c)
{
	for (size_t i = 0; i < c->cap; i++)
		if (c->e[i])
			tc_entry_free(c->e[i]);
	free(c->e);
	memset(c, 0, sizeof *c);
}

void json_statement(struct strbuf *out, const char *q)
{
	char t[201];
	if (!q) {
		sb_puts(out, "null");
		return;
	}
	size_t n = utf8_cut_len(q, 200);
	memcpy(t, q, n);
	t[n] = '\0';
	json_str(out, text_sanitize(t));
}
