/* redact.h - replace literals in SQL text with '?' (PCRE2): quoted strings,
 * numbers, hex / binary literals, and IN (...) lists become IN (?). */
#ifndef DBTOP_REDACT_H
#define DBTOP_REDACT_H

#include <stddef.h>

/* Redact s into a new string (never NULL): literals become ?, comments go,
 * runs of white space become one space. When quotes cannot be paired
 * safely (an odd number, or a backslash before a quote) everything from the
 * first quote on is dropped rather than risk a literal. */
char *redact_sql(const char *s);

/* Replace secrets in statement text (PASSWORD '...', IDENTIFIED BY '...',
 * password=... in connection strings) by '***'. Applied to every statement
 * text dbtop shows or records, with or without --redact. New string. */
char *redact_secrets(const char *s);

/* A statement text as dbtop keeps it for the screen: cut at max bytes
 * (never inside a UTF-8 sequence), secrets replaced (redact_secrets),
 * control characters and escape sequences made harmless (text_sanitize).
 * New string, NULL when q is NULL. */
char *statement_keep(const char *q, size_t max);
/* Statement texts kept once per text: a session list or lock graph read
 * every refresh brings the same texts again (500 sessions waiting on one
 * UPDATE bring one text 500 times). An entry holds the raw bytes (cut at
 * max) and what statement_keep made of them; a text whose raw bytes
 * changed is a new entry, kept anew. text_cache_sweep drops the entries
 * not asked for since the previous sweep (call it after each whole read):
 * the cache holds at most one read's texts. Zeroed it is empty. */
struct text_cache {
	struct tc_entry **e; /* open addressing by hash, cap slots (power of two) */
	size_t n, cap;
	size_t hits, misses; /* cumulative, for tests and benchmarks */
};
/* statement_keep(q, max) from the cache (the cleaning done once per raw
 * text); c NULL: statement_keep. New string, NULL when q is NULL. */
char *statement_keep_cached(struct text_cache *c, const char *q, size_t max);
/* Drop the entries not used since the previous sweep. */
void text_cache_sweep(struct text_cache *c);
void text_cache_free(struct text_cache *c);

/* Length of q cut at max bytes, never inside a UTF-8 sequence. */
size_t utf8_cut_len(const char *q, size_t max);

struct strbuf;
/* A statement text as a JSON string (the batch record's "query"
 * members), cut at 200 bytes on a character boundary and sanitised;
 * null when q is NULL. */
void json_statement(struct strbuf *out, const char *q);

#endif
