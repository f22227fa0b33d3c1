/* test_redact.c - redact_sql: numbers, quoted strings (escaped and doubled
 * quotes), hex / binary literals, IN-lists, identifiers with digits,
 * unterminated strings, UTF-8 and invalid UTF-8, 1 MiB inputs (each in a
 * child process with a time limit), text without literals; redact_secrets. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../util/redact.h"
#include "../../util/util.h"
#include "tap.h"

#define BIG (1u << 20)   /* 1 MiB */
#define BIG_LIMIT_S 10   /* time allowed for one 1 MiB input */

/* s for a check name: at most 100 bytes, controls and invalid UTF-8
 * escaped as \xNN (valid for the next 3 calls). */
static const char *esc(const char *s)
{
	static char buf[4][512];
	static int next;
	char *o = buf[next++ % 4];
	const unsigned char *p = (const unsigned char *)(s ? s : "(null)"), *base = p;
	size_t n = 0, i, len;
	while (*p && n < 400) {
		len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 && *p >= 0xc2 ? 2 : (*p & 0xf0) == 0xe0 ? 3
		      : (*p & 0xf8) == 0xf0 && *p <= 0xf4 ? 4 : 0;
		for (i = 1; i < len; i++)
			if ((p[i] & 0xc0) != 0x80)
				len = 0;
		if (len == 1 && *p >= 0x20 && *p != 0x7f) {
			o[n++] = (char)*p++;
		} else if (len > 1) {
			memcpy(o + n, p, len);
			n += len;
			p += len;
		} else {
			n += (size_t)snprintf(o + n, 8, "\\x%02x", *p++);
		}
		if (p - base >= 100 && *p) {
			memcpy(o + n, "...", 3);
			n += 3;
			break;
		}
	}
	o[n] = '\0';
	return o;
}

/* redact_sql(in) must be want. */
static void expect(const char *in, const char *want)
{
	char *got = redact_sql(in);
	int ok = got && strcmp(got, want) == 0;
	CHECK(ok, ok ? tname("redact: %s", esc(in))
		     : tname("redact: %s: got '%s', want '%s'", esc(in), esc(got), esc(want)));
	free(got);
}

/* redact_sql(in) must not contain needle. */
static void lacks(const char *what, const char *in, const char *needle)
{
	char *got = redact_sql(in);
	int ok = got && !strstr(got, needle);
	CHECK(ok, tname("redact: %s: '%s' gone (got '%s')", what, needle, esc(got)));
	free(got);
}

static void test_numbers(void)
{
	expect("SELECT 1", "SELECT ?");
	expect("WHERE a = 42 AND b = 3.14", "WHERE a = ? AND b = ?");
	expect("x = -7", "x = ?");
	expect("x = +7", "x = ?");
	expect("x = .5", "x = ?");
	expect("x = 1e10, y = 2.5E-3, z = 6.02e+23", "x = ?, y = ?, z = ?");
	expect("x = 0", "x = ?");
	expect("x = 18446744073709551615", "x = ?");
	expect("x = 123456789012345678901234567890.5", "x = ?");
	expect("LIMIT 10 OFFSET 20", "LIMIT ? OFFSET ?");
	expect("f(1,2)", "f(?,?)");
	expect("x=1", "x=?");
	expect("a-5", "a-?");
	expect("MIN(1, 2)", "MIN(?, ?)");
	expect("x > 1.5 AND y < -0.25", "x > ? AND y < ?");
}

static void test_strings(void)
{
	expect("name = 'bob'", "name = ?");
	expect("name = 'it''s'", "name = ?");
	expect("name = 'a\\'b'", "name = ?");
	expect("name = 'a\\\\'", "name = ?");
	expect("name = \"dq\"", "name = ?");
	expect("name = \"q\"\"r\"", "name = ?");
	expect("name = \"a\\\"b\"", "name = ?");
	expect("name = ''", "name = ?");
	expect("'a' 'b'", "? ?");
	expect("'1' = 1", "? = ?");
	expect("x = 'DROP TABLE t; -- '", "x = ?");
	expect("x = 'it''s' AND y = 2 AND z = \"q\"\"r\"", "x = ? AND y = ? AND z = ?");
	/* with a backslash before a quote MySQL and PostgreSQL read the quotes
	 * differently: neither reading may leak */
	lacks("backslash, MySQL reading", "x = 'it''s' AND y = 'a\\'b' AND z = 'secret'", "secret");
	lacks("backslash, PostgreSQL reading", "x = 'a\\' AND pw = 'secret' AND z = 'b\\'", "secret");
	/* an odd number of single quotes: everything from the first one goes */
	expect("x = 'a\"b' AND y = \"c'd\"", "x = ?");
	expect("x = 'multi\nline'", "x = ?");
	lacks("escaped quote", "x = 'sec\\'ret' AND y = 1", "ret");
	lacks("doubled quote", "x = 'sec''ret' AND y = 1", "ret");
}

static void test_hex_binary(void)
{
	expect("SELECT 0xFF", "SELECT ?");
	expect("SELECT 0xdeadBEEF, 0x0", "SELECT ?, ?");
	lacks("hex X'AB'", "SELECT X'AB'", "AB");
	lacks("binary b'01'", "SELECT b'0110'", "0110");
	/* the whole literal, prefix included, becomes one ? (rule 4 of
	 * redact.c says so; the quoted-string rule runs first and leaves
	 * the X / b behind) */
	expect("SELECT X'AB'", "SELECT ?");
	expect("SELECT b'01'", "SELECT ?");
	/* PostgreSQL 16+ accepts 0X as a hex prefix too */
	lacks("hex 0XFF (PostgreSQL 16+)", "SELECT 0XFF", "FF");
}

static void test_in_lists(void)
{
	expect("WHERE k IN (1, 2, 3)", "WHERE k IN (?)");
	expect("WHERE c in ('a','b')", "WHERE c IN (?)");
	expect("WHERE c IN (1)", "WHERE c IN (?)");
	expect("WHERE c NOT IN ( 1 ,2 )", "WHERE c NOT IN (?)");
	expect("WHERE c IN (0x1, 'a', 2.5, -3)", "WHERE c IN (?)");
	expect("WHERE c IN (a, b)", "WHERE c IN (a, b)");
	expect("WHERE c IN (SELECT id FROM t WHERE x = 1)", "WHERE c IN (SELECT id FROM t WHERE x = ?)");
	expect("JOIN (1)", "JOIN (?)");
	expect("a IN (1,2) AND b IN ('x')", "a IN (?) AND b IN (?)");
}

static void test_identifiers(void)
{
	expect("SELECT t1.col_2 FROM `tbl3` JOIN t2 ON t1.id = t2.id",
	       "SELECT t1.col_2 FROM `tbl3` JOIN t2 ON t1.id = t2.id");
	expect("SELECT c1, c2 FROM s3.t4", "SELECT c1, c2 FROM s3.t4");
	expect("col_2 = 2", "col_2 = ?");
	expect("x1e5 = 1", "x1e5 = ?");
	expect("WHERE id = $1 AND v = $2", "WHERE id = $1 AND v = $2");
	expect("SELECT `a1`.`b2` FROM `db9`.`t0`", "SELECT `a1`.`b2` FROM `db9`.`t0`");
}

static void test_unterminated(void)
{
	expect("WHERE name = 'bo", "WHERE name = ?");
	expect("WHERE name = \"bo", "WHERE name = ?");
	expect("WHERE a = 'x' AND b = 'cut off here", "WHERE a = ?");
	expect("WHERE a = '", "WHERE a = ?");
	lacks("unterminated string", "INSERT INTO t VALUES ('secret value that got cu", "secret");
}

static void test_utf8(void)
{
	expect("WHERE name = 'Zoë 日本語 🎉'", "WHERE name = ?");
	expect("SELECT 'a' AS «café»", "SELECT ? AS «café»");
	expect("WHERE 名前 = 42", "WHERE 名前 = ?");
	expect("WHERE name = 'Ñandú' AND n = 7 OR nom = 'çà'", "WHERE name = ? AND n = ? OR nom = ?");
}

/* Invalid UTF-8 must neither crash nor let a literal through. */
static void test_invalid_utf8(void)
{
	static const char *const junk[] = {
		"\xff", "\xfe\xff", "\x80", "\xbf\x80", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80",
		"\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80", "\xfc\x84\x80\x80\x80\x80", "\xc3",
		"\xe6\x97", "\xf0\x9f\x8e",
	};
	size_t i;
	int all = 1;
	char in[256];

	for (i = 0; i < sizeof junk / sizeof junk[0]; i++) {
		char *got;
		/* outside a literal, inside one, and at the very end (cut) */
		snprintf(in, sizeof in, "x %s = 'v' AND y = 12 %s", junk[i], junk[i]);
		got = redact_sql(in);
		if (!got || strstr(got, "12") || strstr(got, "'v'"))
			all = 0;
		free(got);
		snprintf(in, sizeof in, "WHERE a = 'x' AND b = 'tail %s", junk[i]);
		free(redact_sql(in));
	}
	CHECK(all, "redact: invalid UTF-8 outside literals: no crash, literals still redacted");
	lacks("invalid UTF-8 inside a string", "SELECT '\xff\xfe secret'", "secret");
	lacks("Latin-1 byte inside a string", "WHERE a = 'caf\xe9 secret' AND b = 7", "secret");
	lacks("overlong encoding inside a string", "WHERE a = 'x\xc0\xafsecret'", "secret");
	expect("\xc3\x28 x = 'sec' AND y = 12", "\xc3\x28 x = ? AND y = ?");
}

/* Apostrophes that do not open a literal must not shift the quote pairing
 * so that a real literal after them comes out verbatim. */
static void test_stray_quotes(void)
{
	lacks("apostrophe in a comment before a literal",
	      "/* don't cache */ SELECT * FROM users WHERE email = 'alice@example.com'", "alice");
	lacks("apostrophe in a server error message",
	      "Can't connect to MySQL server on 'db1.internal:3306' (111)", "db1.internal");
	/* standard_conforming_strings (the PostgreSQL default): backslash is an
	 * ordinary character, so 'C:\' is complete */
	lacks("PostgreSQL string ending in a backslash", "WHERE path = 'C:\\' AND pw = 'hunter2'", "hunter2");
	lacks("PostgreSQL dollar-quoted string", "ALTER ROLE app PASSWORD $$hunter2$$", "hunter2");
	lacks("PostgreSQL tagged dollar quote", "SELECT $q$hunter2$q$", "hunter2");
}

/* Comments may hold literals: they go. */
static void test_comments(void)
{
	lacks("line comment", "SELECT a FROM t -- id 4711 'bob'", "4711");
	lacks("hash comment", "SELECT a FROM t # 4711", "4711");
	lacks("block comment", "SELECT /* user 'bob' 4711 */ a FROM t", "bob");
	lacks("unterminated block comment", "SELECT a /* 4711 bob", "4711");
	expect("SELECT /* 42 */ 1", "SELECT ?");
}

static void test_no_literals(void)
{
	static const char *const same[] = {
		"",
		"COMMIT",
		"SELECT a, b FROM t WHERE c IS NULL",
		"SHOW GLOBAL STATUS",
		"Lost connection to server during query",
		"performance_schema is OFF: binlog fsyncs unavailable",
		"SELECT * FROM t1 JOIN t2 USING (id) ORDER BY t1.created_at DESC",
		"UPDATE t SET a = b + c WHERE d = e",
		"durée ≥ cinq — ok",
	};
	size_t i;
	for (i = 0; i < sizeof same / sizeof same[0]; i++)
		expect(same[i], same[i]);
	/* redact.h: runs of white space become one space */
	expect("SELECT a,\n       b\nFROM t\tWHERE c  IS NULL", "SELECT a, b FROM t WHERE c IS NULL");
}

/* redact_secrets(in) must be want. */
static void secret(const char *in, const char *want)
{
	char *got = redact_secrets(in);
	int ok = got && strcmp(got, want) == 0;
	CHECK(ok, ok ? tname("secrets: %s", esc(in))
		     : tname("secrets: %s: got '%s', want '%s'", esc(in), esc(got), esc(want)));
	free(got);
}

/* redact_secrets(in) must not contain needle. */
static void secret_gone(const char *in, const char *needle)
{
	char *got = redact_secrets(in);
	CHECK(got && !strstr(got, needle), tname("secrets: %s: '%s' gone (got '%s')", esc(in), needle, esc(got)));
	free(got);
}

static void test_secrets(void)
{
	secret("ALTER USER 'bob'@'%' IDENTIFIED BY 'hunter2'", "ALTER USER 'bob'@'%' IDENTIFIED BY '***'");
	secret("CREATE USER x IDENTIFIED WITH mysql_native_password BY 'hunter2'",
	       "CREATE USER x IDENTIFIED WITH mysql_native_password BY '***'");
	secret("SET PASSWORD = 'hunter2'", "SET PASSWORD = '***'");
	secret("ALTER ROLE app WITH ENCRYPTED PASSWORD 'md5abc'", "ALTER ROLE app WITH ENCRYPTED PASSWORD '***'");
	secret("ALTER ROLE app PASSWORD $$hunter2$$ VALID UNTIL 'x'", "ALTER ROLE app PASSWORD '***' VALID UNTIL 'x'");
	secret("host=db password=hunter2 user=x", "host=db password='***' user=x");
	secret("IDENTIFIED BY 'hunt", "IDENTIFIED BY '***'");
	secret("password = 'it''s' AND x = 1", "password = '***' AND x = 1");
	secret("SELECT password FROM users WHERE id = 1", "SELECT password FROM users WHERE id = 1");
	secret("CREATE ROLE u LOGIN PASSWORD NULL", "CREATE ROLE u LOGIN PASSWORD NULL");
	secret("", "");
	/* common forms the header's list covers in spirit */
	secret_gone("SET PASSWORD FOR 'bob'@'%' = 'hunter2'", "hunter2");
	secret_gone("SET PASSWORD FOR bob = PASSWORD('hunter2')", "hunter2");
	secret_gone("CHANGE MASTER TO MASTER_HOST='db1', MASTER_PASSWORD='hunter2'", "hunter2");
	secret_gone("CHANGE REPLICATION SOURCE TO SOURCE_PASSWORD = 'hunter2'", "hunter2");
	secret_gone("ALTER ROLE app PASSWORD E'hunter2'", "hunter2");
}

/* ---- 1 MiB inputs, each in a child with a time limit ---- */

enum big_kind { BIG_STRING, BIG_INSERT, BIG_ESCAPES, BIG_INVALID, BIG_DIGITS };

static char *make_big(enum big_kind k)
{
	char *s = xmalloc(BIG + 64);
	size_t i, n = 0;
	switch (k) {
	case BIG_STRING: /* one huge literal */
		n = (size_t)sprintf(s, "SELECT '");
		memset(s + n, 'a', BIG);
		n += BIG;
		n += (size_t)sprintf(s + n, "' FROM t");
		break;
	case BIG_INSERT: /* a bulk insert: many small literals */
		n = (size_t)sprintf(s, "INSERT INTO t VALUES (7,8)");
		while (n < BIG)
			n += (size_t)sprintf(s + n, ",(7,8)");
		break;
	case BIG_ESCAPES: /* a cut-off string full of escaped quotes */
		n = (size_t)sprintf(s, "SELECT '");
		for (i = 0; i < BIG / 2; i++) {
			s[n++] = '\\';
			s[n++] = '\'';
		}
		break;
	case BIG_INVALID: /* invalid UTF-8 throughout */
		n = (size_t)sprintf(s, "SELECT 7, '");
		for (i = 0; i < BIG; i++)
			s[n++] = (char)(0x80 + i % 64);
		s[n++] = '\'';
		break;
	case BIG_DIGITS: /* one huge number */
		n = (size_t)sprintf(s, "SELECT ");
		memset(s + n, '7', BIG);
		n += BIG;
		break;
	}
	s[n] = '\0';
	return s;
}

/* Child: 0 when the output is right, 1 when not. */
static int big_child(enum big_kind k)
{
	char *in = make_big(k), *out = redact_sql(in);
	int ok = 0;
	switch (k) {
	case BIG_STRING: ok = strcmp(out, "SELECT ? FROM t") == 0 || strcmp(out, "(redacted)") == 0; break;
	case BIG_INSERT: ok = !strchr(out, '7') && !strchr(out, '8'); break;
	case BIG_ESCAPES: ok = strlen(out) < 64; break;
	case BIG_INVALID: ok = !strchr(out, '7') && !memchr(out, 0x80 + 5, strlen(out)); break;
	case BIG_DIGITS: ok = !strchr(out, '7'); break;
	}
	free(in);
	free(out);
	return ok ? 0 : 1;
}

static void test_big(void)
{
	static const struct {
		enum big_kind k;
		const char *what;
	} kinds[] = {
		{BIG_STRING, "1 MiB string literal"},
		{BIG_DIGITS, "1 MiB number"},
		{BIG_INVALID, "1 MiB of invalid UTF-8 in a string"},
		{BIG_INSERT, "1 MiB bulk INSERT (150k small literals)"},
		{BIG_ESCAPES, "1 MiB cut-off string of escaped quotes"},
	};
	size_t i, j, nk = sizeof kinds / sizeof kinds[0];

	fflush(stdout);
	/* two at a time: the machine may have only two cores */
	for (i = 0; i < nk; i += 2) {
		pid_t pid[2] = {-1, -1};
		double t0 = clock_mono();
		for (j = i; j < i + 2 && j < nk; j++) {
			pid[j - i] = fork();
			if (pid[j - i] == 0) {
				alarm(BIG_LIMIT_S);
				_exit(big_child(kinds[j].k));
			}
		}
		for (j = i; j < i + 2 && j < nk; j++) {
			int st = 0, timeout, crash;
			double dt;
			if (pid[j - i] < 0 || waitpid(pid[j - i], &st, 0) < 0) {
				CHECK(0, tname("redact: %s: fork / wait failed", kinds[j].what));
				continue;
			}
			dt = clock_mono() - t0;
			timeout = WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM;
			crash = WIFSIGNALED(st) && !timeout;
			CHECK(!crash, tname("redact: %s: no crash (%s)", kinds[j].what,
					 crash ? strsignal(WTERMSIG(st)) : "exited"));
			CHECK(!timeout, tname("redact: %s: finishes within %d s (%s %.1f s)", kinds[j].what,
					   BIG_LIMIT_S, timeout ? "killed after" : "took", dt));
			if (WIFEXITED(st))
				CHECK(WEXITSTATUS(st) == 0,
				      tname("redact: %s: no literal left in the output", kinds[j].what));
		}
	}
}

/* The text cache: what statement_keep gives, cleaned once per raw text; a
 * text whose raw bytes change is cleaned again; a hostile text stays
 * sanitised on every read; a sweep keeps only the texts of the last read;
 * a 1 MiB text is cut as statement_keep cuts it. */
static void test_text_cache(void)
{
	struct text_cache c = {0};
	const char *hostile = "SELECT 1 /* \x1b]0;pwned\x07 \x1b[2J */ FROM t\r\n";
	char *a = statement_keep_cached(&c, hostile, 1023), *b = statement_keep_cached(&c, hostile, 1023);
	char *want = statement_keep(hostile, 1023);
	CHECK_STR(a, want, "cache: first read as statement_keep");
	CHECK_STR(b, want, "cache: second read (from the cache) as statement_keep");
	CHECK(!strchr(b, 0x1b) && !strchr(b, 0x07) && !strchr(b, '\r'), "cache: escape sequences cleaned on the second read");
	CHECK(c.misses == 1 && c.hits == 1, "cache: the second read is a hit");
	CHECK(a != b, "cache: each read gets its own copy");
	free(a);
	free(b);
	free(want);

	/* the same id, other raw bytes: cleaned again, not the old text */
	char buf[64];
	strcpy(buf, "UPDATE t SET v = 1");
	a = statement_keep_cached(&c, buf, 1023);
	buf[17] = '\x1b';
	b = statement_keep_cached(&c, buf, 1023);
	CHECK_STR(a, "UPDATE t SET v = 1", "cache: a text kept");
	CHECK_STR(b, "UPDATE t SET v = ?", "cache: its raw bytes changed: cleaned again");
	CHECK(c.misses == 3, "cache: a changed text is a miss");
	free(a);
	free(b);

	/* secrets go on a hit too */
	a = statement_keep_cached(&c, "ALTER ROLE x PASSWORD 'hunter2'", 1023);
	b = statement_keep_cached(&c, "ALTER ROLE x PASSWORD 'hunter2'", 1023);
	CHECK(!strstr(a, "hunter2") && !strstr(b, "hunter2"), "cache: a password never comes back");
	free(a);
	free(b);

	/* other cuts are other entries */
	a = statement_keep_cached(&c, "SELECT abcdef", 8);
	b = statement_keep_cached(&c, "SELECT abcdef", 1023);
	CHECK_STR(a, "SELECT a", "cache: cut at 8");
	CHECK_STR(b, "SELECT abcdef", "cache: the same text at another cut");
	free(a);
	free(b);

	/* a sweep keeps the texts used since the last one; the next drops them */
	size_t before = c.n;
	text_cache_sweep(&c);
	CHECK(c.n == before, "sweep: every text used since the start kept");
	for (int i = 0; i < 1000; i++) {
		char q[64];
		snprintf(q, sizeof q, "SELECT %d", i);
		free(statement_keep_cached(&c, q, 1023));
	}
	free(statement_keep_cached(&c, "SELECT abcdef", 8));
	text_cache_sweep(&c);
	CHECK(c.n == 1001, "sweep: the old texts not read again are gone");
	free(statement_keep_cached(&c, "SELECT abcdef", 8));
	text_cache_sweep(&c);
	CHECK(c.n == 1, "sweep: the cache holds the last read's texts only");
	size_t m = c.misses;
	a = statement_keep_cached(&c, "SELECT abcdef", 8);
	CHECK(c.misses == m && strcmp(a, "SELECT a") == 0, "sweep: a kept text still answers from the cache");
	free(a);

	/* a 1 MiB text: cut like statement_keep, the entry no bigger */
	char *big = malloc(BIG + 1);
	memset(big, 'x', BIG);
	big[BIG] = '\0';
	big[100] = '\x1b';
	a = statement_keep_cached(&c, big, 4095);
	b = statement_keep_cached(&c, big, 4095);
	CHECK(strlen(a) == 4095 && strlen(b) == 4095 && !strchr(b, 0x1b), "cache: a 1 MiB text cut at 4,095 bytes, sanitised");
	free(a);
	free(b);
	free(big);
	CHECK(statement_keep_cached(&c, NULL, 10) == NULL, "cache: NULL stays NULL");
	text_cache_free(&c);
	CHECK(c.n == 0 && c.cap == 0, "cache: freed");
}

int main(void)
{
	test_numbers();
	test_strings();
	test_hex_binary();
	test_in_lists();
	test_identifiers();
	test_unterminated();
	test_utf8();
	test_invalid_utf8();
	test_stray_quotes();
	test_comments();
	test_no_literals();
	test_secrets();
	test_big();
	test_text_cache();
	return TAP_DONE();
}
