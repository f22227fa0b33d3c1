/* fuzz_target.c - libFuzzer target for connection targets
 * (config/dsn.c): target_parse (mysql:// and mariadb:// URIs with
 * %-escapes, [v6] hosts and ?socket= / ?connect_timeout=, postgres:// URIs
 * and libpq key=value strings), target_make_label and target_scrub_arg.
 * The input is the TARGET argument (up to the first NUL); an optional
 * first byte 0xf0..0xff says which flags were given before it (low bits:
 * --engine mysql / postgresql, -P 3306, -h, -u, a password).
 * libpq itself (PQconninfoParse, which only parses) says what a
 * PostgreSQL target's password is.
 * Checks, and aborts when one breaks:
 *  - target_parse gives 0 or -1 (with a message); on 0 the engine is known,
 *    every field is a terminated string, the port is 0..65535, the
 *    database has no '/', the connect timeout is in (0, 3600], flags
 *    given before are kept, a PostgreSQL target is kept as given;
 *  - the label is non-empty, terminated and terminal-safe, and does not
 *    show the password (unless the parts it is made of say the same);
 *  - password independence: bytes 0x01 in the input are replaced once by
 *    'a' and once by 'b'; when that changes the password (as dbtop reads a
 *    MySQL URI, or as libpq reads a PostgreSQL one) and nothing else, the
 *    two labels must be identical (no byte of the password shows);
 *  - target_scrub_arg keeps the length, only writes '*', says when it did,
 *    and what is left reads (by libpq, or by dbtop for MySQL) as no
 *    password or one made only of '*' (no byte of it shows in ps).
 * Build and run: make fuzz FUZZ_TARGET=target */
#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../config/dsn.h"
#include "../../util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define REQUIRE(c) do { if (!(c)) { \
	fprintf(stderr, "fuzz_target: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, #c); \
	abort(); } } while (0)

#define MARK '\x01'

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* labels of PostgreSQL targets fall back on these */
	unsetenv("PGSERVICE");
	unsetenv("PGHOST");
	return 0;
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool is_clean(const char *s)
{
	char *c = xstrdup(s);
	bool same = strcmp(text_sanitize(c), s) == 0;
	free(c);
	return same;
}

/* Flags given before the TARGET argument. */
static void preset(struct target *t, unsigned flags)
{
	if (!(flags & 0x10))
		return;
	t->engine = (flags & 3) == 1 ? ENGINE_MYSQL : (flags & 3) == 2 ? ENGINE_POSTGRESQL : ENGINE_UNKNOWN;
	if (flags & 4)
		t->port = 3306;
	if (flags & 8)
		t->host = xstrdup("flaghost");
	if (flags & 0x20)
		t->user = xstrdup("flaguser");
	if (flags & 0x40)
		t->password = xstrdup("flagpw");
}

/* libpq's reading of a connection string: its options, or NULL. */
static PQconninfoOption *pq_parse(const char *spec)
{
	char *msg = NULL;
	PQconninfoOption *o = PQconninfoParse(spec, &msg);
	if (msg)
		PQfreemem(msg);
	return o;
}

static const char *pq_val(const PQconninfoOption *o, const char *kw)
{
	for (; o && o->keyword; o++)
		if (strcmp(o->keyword, kw) == 0)
			return o->val;
	return NULL;
}

/* True when a and b differ in the password and in nothing else. */
static bool pq_only_password_differs(const PQconninfoOption *a, const PQconninfoOption *b)
{
	const PQconninfoOption *x, *y;
	for (x = a, y = b; x->keyword && y->keyword; x++, y++) {
		REQUIRE(strcmp(x->keyword, y->keyword) == 0);
		if (strcmp(x->keyword, "password") != 0 && !str_eq(x->val, y->val))
			return false;
	}
	return !str_eq(pq_val(a, "password"), pq_val(b, "password"));
}

/* Some option other than the password has a value containing pw. */
static bool pq_elsewhere(const PQconninfoOption *o, const char *pw)
{
	for (; o->keyword; o++)
		if (strcmp(o->keyword, "password") != 0 && o->val && strstr(o->val, pw))
			return true;
	return false;
}

static bool all_stars(const char *s)
{
	return !s || s[strspn(s, "*")] == '\0';
}

/* s with %XX decoded where well-formed (the rest as it is). */
static char *pct_decoded(const char *s)
{
	char *d = xmalloc(strlen(s) + 1), *o = d;
	static const char hex[] = "0123456789abcdef0123456789ABCDEF";
	while (*s) {
		const char *h1, *h2;
		if (s[0] == '%' && s[1] && s[2] && (h1 = strchr(hex, s[1])) && (h2 = strchr(hex, s[2]))) {
			*o++ = (char)(((h1 - hex) % 16) * 16 + (h2 - hex) % 16);
			s += 3;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return d;
}

/* False for a PostgreSQL URI whose query may name a host or port: libpq
 * lets it override the host part, which the label shows as written (a
 * marked byte there then changes the label without changing the target). */
static bool label_comparable(const char *spec)
{
	const char *q;
	if (strncmp(spec, "postgres://", 11) != 0 && strncmp(spec, "postgresql://", 13) != 0)
		return true;
	q = strchr(spec, '?');
	return !q || !(strstr(q, "host") || strstr(q, "port") || strchr(q, '%'));
}

/* Parse spec under flags into t (target_init'ed); checks the outcome. */
static int parse_checked(struct target *t, const char *spec, unsigned flags)
{
	char err[256];
	enum engine before;
	int rc;

	target_init(t);
	preset(t, flags);
	before = t->engine;
	memset(err, 'x', sizeof err);
	err[0] = '\0';
	rc = target_parse(t, spec, err, sizeof err);
	REQUIRE(rc == 0 || rc == -1);
	REQUIRE(memchr(err, '\0', sizeof err) != NULL);
	if (rc < 0) {
		REQUIRE(err[0] != '\0');
		return rc;
	}
	REQUIRE(t->engine == ENGINE_MYSQL || t->engine == ENGINE_POSTGRESQL);
	REQUIRE(before == ENGINE_UNKNOWN || t->engine == before);
	REQUIRE(t->port >= 0 && t->port <= 65535);
	REQUIRE(t->connect_timeout > 0 && t->connect_timeout <= 3600);
	if (t->host)
		(void)strlen(t->host);
	if (t->user)
		(void)strlen(t->user);
	if (t->password)
		(void)strlen(t->password);
	if (t->socket)
		(void)strlen(t->socket);
	if (t->database)
		REQUIRE(strchr(t->database, '/') == NULL);
	if (flags & 0x10) {
		if (flags & 4)
			REQUIRE(t->port == 3306);
		if (flags & 8)
			REQUIRE(str_eq(t->host, "flaghost"));
		if (flags & 0x20)
			REQUIRE(str_eq(t->user, "flaguser"));
		if (flags & 0x40)
			REQUIRE(str_eq(t->password, "flagpw"));
	}
	if (t->engine == ENGINE_POSTGRESQL)
		REQUIRE(str_eq(t->pg_conninfo, spec));
	else
		REQUIRE(t->pg_conninfo == NULL);

	target_make_label(t);
	REQUIRE(memchr(t->label, '\0', sizeof t->label) != NULL);
	REQUIRE(t->label[0] != '\0' && is_clean(t->label));
	return 0;
}

/* The label does not show the password of spec (checked by its text). */
static void check_label_secret(const struct target *t, const char *spec, const PQconninfoOption *pq)
{
	const char *pw = t->engine == ENGINE_MYSQL ? t->password : pq ? pq_val(pq, "password") : NULL;
	struct strbuf src;
	bool in_src;
	if (!pw || !*pw || !strstr(t->label, pw))
		return;
	/* what a label made from the fields (flags, or a MySQL URI) shows;
	 * "local"host when there is no host */
	sb_init(&src);
	sb_printf(&src, "%s:%d|%s|localhost", t->host ? t->host : "", t->port,
		  t->socket ? t->socket : "");
	in_src = strstr(src.s, pw) != NULL;
	sb_free(&src);
	if (t->engine == ENGINE_MYSQL) {
		REQUIRE(in_src || strchr(t->label, '?'));
		return;
	}
	/* '?': the label may have a sanitised byte there; '%': the label of a
	 * URI is written as in the URI, %-escapes and all */
	if (in_src || strpbrk(pw, "?%") || pq_elsewhere(pq, pw))
		return;
	{
		char *dec = pct_decoded(t->label);
		const char *c = spec;
		int n = 0;
		/* the password written twice (once elsewhere) */
		while ((c = strstr(c, pw))) {
			n++;
			c++;
		}
		REQUIRE(!strstr(dec, pw) || n >= 2);
		free(dec);
	}
}

/* target_scrub_arg on a copy of arg; checks it; returns the copy. */
static char *scrub_checked(const char *arg)
{
	char *s = xstrdup(arg);
	size_t n = strlen(arg), i;
	bool changed = false, rc = target_scrub_arg(s);
	REQUIRE(strlen(s) == n);
	for (i = 0; i < n; i++)
		if (s[i] != arg[i]) {
			REQUIRE(s[i] == '*');
			changed = true;
		}
	REQUIRE(!changed || rc);
	return s;
}

/* What the scrubbed argument still says about the password. */
static void check_scrubbed(const char *spec, const char *scrubbed, const PQconninfoOption *pq,
			   const struct target *t, int rc)
{
	if (pq && pq_val(pq, "password") && *pq_val(pq, "password")) {
		PQconninfoOption *o = pq_parse(scrubbed);
		if (o) {
			REQUIRE(all_stars(pq_val(o, "password")));
			PQconninfoFree(o);
		}
	}
	if (rc == 0 && t->engine == ENGINE_MYSQL && !t->pg_conninfo && t->password) {
		struct target t2;
		char err[256];
		target_init(&t2);
		if (target_parse(&t2, scrubbed, err, sizeof err) == 0)
			REQUIRE(all_stars(t2.password));
		target_free(&t2);
	}
	(void)spec;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned flags = 0;
	char *spec, *sa, *sb, *scr, *scr_a, *scr_b;
	struct target t;
	PQconninfoOption *pq;
	int rc;

	if (size && data[0] >= 0xf0) {
		flags = data[0];
		data++;
		size--;
	}
	if (size > 4096)  /* command-line arguments */
		return 0;
	spec = xmalloc(size + 1);
	memcpy(spec, data, size);
	spec[size] = '\0';

	/* as it is */
	rc = parse_checked(&t, spec, flags);
	pq = strchr(spec, MARK) ? NULL : pq_parse(spec);
	if (rc == 0)
		check_label_secret(&t, spec, pq);
	scr = scrub_checked(spec);
	check_scrubbed(spec, scr, pq, &t, rc);
	free(scr);
	if (pq)
		PQconninfoFree(pq);
	target_free(&t);

	/* the same with the marked bytes as 'a', then as 'b' */
	if (strchr(spec, MARK)) {
		struct target ta, tb;
		PQconninfoOption *pa, *pb;
		int ra, rb;
		bool only_pw = false;
		sa = xstrdup(spec);
		sb = xstrdup(spec);
		for (size_t i = 0; spec[i]; i++)
			if (spec[i] == MARK) {
				sa[i] = 'a';
				sb[i] = 'b';
			}
		ra = parse_checked(&ta, sa, flags);
		rb = parse_checked(&tb, sb, flags);
		pa = pq_parse(sa);
		pb = pq_parse(sb);
		if (ra == 0 && rb == 0 && ta.engine == ENGINE_MYSQL && tb.engine == ENGINE_MYSQL)
			only_pw = str_eq(ta.host, tb.host) && str_eq(ta.user, tb.user) &&
				  str_eq(ta.socket, tb.socket) && str_eq(ta.database, tb.database) &&
				  ta.port == tb.port && ta.connect_timeout == tb.connect_timeout &&
				  !str_eq(ta.password, tb.password);
		else if (pa && pb)
			only_pw = pq_only_password_differs(pa, pb);
		if (only_pw && ra == 0 && rb == 0 && label_comparable(spec))
			REQUIRE(strcmp(ta.label, tb.label) == 0);
		if (ra == 0)
			check_label_secret(&ta, sa, pa);
		scr_a = scrub_checked(sa);
		check_scrubbed(sa, scr_a, pa, &ta, ra);
		free(scr_a);
		if (rb == 0)
			check_label_secret(&tb, sb, pb);
		scr_b = scrub_checked(sb);
		check_scrubbed(sb, scr_b, pb, &tb, rb);
		free(scr_b);
		if (pa)
			PQconninfoFree(pa);
		if (pb)
			PQconninfoFree(pb);
		target_free(&ta);
		target_free(&tb);
		free(sa);
		free(sb);
	}
	free(spec);
	return 0;
}
