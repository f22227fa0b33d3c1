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
/* Length of q cut at max bytes, never inside a UTF-8 sequence. */
size_t utf8_cut_len(const char *q, size_t max);

struct strbuf;
/* A statement text as a JSON string (the batch record's "query"
 * members), cut at 200 bytes on a character boundary and sanitised;
 * null when q is NULL. */
void json_statement(struct strbuf *out, const char *q);

#endif
