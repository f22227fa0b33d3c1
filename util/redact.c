/* redact.c - literal removal with PCRE2, compiled once. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "redact.h"

#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Applied in order; each match is replaced by its replacement. */
static const struct {
	const char *pattern;
	const char *repl;
} rules[] = {
	/* quoted strings, with doubled quotes and backslash escapes */
	{"'(?:[^'\\\\]|\\\\.|'')*'", "?"},
	{"\"(?:[^\"\\\\]|\\\\.|\"\")*\"", "?"},
	/* unterminated string at the end (cut-off text) */
	{"['\"][^'\"]*$", "?"},
	/* hex and binary literals */
	{"\\b(?:0x[0-9a-fA-F]+|[xX]'[0-9a-fA-F]*'|[bB]'[01]*')", "?"},
	/* numbers not part of an identifier (t1, col_2 stay) */
	{"(?<![\\w$.])[-+]?(?:\\d+\\.?\\d*(?:[eE][-+]?\\d+)?|\\.\\d+(?:[eE][-+]?\\d+)?)\\b", "?"},
	/* IN-lists of placeholders collapse to one */
	{"(?i)\\bIN\\s*\\(\\s*\\?(?:\\s*,\\s*\\?)*\\s*\\)", "IN (?)"},
};
#define NRULES (sizeof rules / sizeof rules[0])

/* Secrets: the keyword stays, the value goes. */
static const struct {
	const char *pattern;
	const char *repl;
} secret_rules[] = {
	/* PASSWORD 'x', IDENTIFIED BY 'x', PASSWORD $$x$$: quoted values */
	{"(?i)\\b(PASSWORD|IDENTIFIED\\s+(?:WITH\\s+\\S+\\s+)?(?:BY|AS))(\\s*(?:=\\s*)?)"
	 "(?:'(?:[^'\\\\]|\\\\.|'')*'?|\"(?:[^\"\\\\]|\\\\.|\"\")*\"?|\\$\\w*\\$.*?(?:\\$\\w*\\$|$))",
	 "${1}${2}'***'"},
	/* password=x (connection strings, SET PASSWORD = x): unquoted after '=' */
	{"(?i)\\b(PASSWORD)(\\s*=\\s*)(?!'\\*\\*\\*')[^\\s,;)]+", "${1}${2}'***'"},
};
#define NSECRET (sizeof secret_rules / sizeof secret_rules[0])

static pcre2_code *compiled[NRULES];
static pcre2_code *secret_compiled[NSECRET];

/* Compile one pattern; a failure is a programming error. */
static pcre2_code *compile_or_die(const char *pattern)
{
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
				       PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOTALL, &errcode, &erroff, NULL);
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

/* Compile the rules on first use; a failure is a programming error. */
static void redact_init(void)
{
	size_t i;
	int errcode;
	PCRE2_SIZE erroff;
	for (i = 0; i < NRULES; i++) {
		if (compiled[i])
			continue;
		compiled[i] = pcre2_compile((PCRE2_SPTR)rules[i].pattern, PCRE2_ZERO_TERMINATED,
					    PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &errcode, &erroff, NULL);
		if (!compiled[i]) {
			fprintf(stderr, "dbtop: internal regex %zu failed to compile at %zu\n", i,
				(size_t)erroff);
			abort();
		}
	}
}

char *redact_sql(const char *s)
{
	char *cur = xstrdup(s);
	size_t i;
	redact_init();
	for (i = 0; i < NRULES; i++) {
		size_t len = strlen(cur);
		PCRE2_SIZE outlen = len * 2 + 64;
		char *out = xmalloc(outlen);
		int rc;
		for (;;) {
			PCRE2_SIZE ol = outlen;
			rc = pcre2_substitute(compiled[i], (PCRE2_SPTR)cur, len, 0,
					      PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH,
					      NULL, NULL, (PCRE2_SPTR)rules[i].repl, PCRE2_ZERO_TERMINATED,
					      (PCRE2_UCHAR *)out, &ol);
			if (rc == PCRE2_ERROR_NOMEMORY) {
				outlen = ol + 1;
				out = xrealloc(out, outlen);
				continue;
			}
			break;
		}
		if (rc < 0) {
			/* matching failed (e.g. match limit): drop the text rather than leak it */
			free(out);
			free(cur);
			return xstrdup("(redacted)");
		}
		free(cur);
		cur = out;
	}
	return cur;
}
