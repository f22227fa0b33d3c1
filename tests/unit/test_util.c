/* test_util.c - JSON string/number output, terminal sanitising, bounded
 * string copies, the growable buffer, the hash map, the heap trim and the
 * files kept open. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "../../util/util.h"
#include "tap.h"

/* json_str(s) as a new string (caller frees). */
static char *js(const char *s)
{
	struct strbuf b;
	sb_init(&b);
	json_str(&b, s);
	return b.s;
}

/* json_num(v) as a new string (caller frees). */
static char *json_num_str(double v)
{
	struct strbuf b;
	sb_init(&b);
	json_num(&b, v);
	return b.s;
}

/* True when s holds a raw byte < 0x20 or DEL. */
static int has_raw_control(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	for (; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 1;
	return 0;
}

/* True when every byte of s is printable ASCII (0x20..0x7e). */
static int all_ascii(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	for (; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			return 0;
	return 1;
}

static void check_json_str(const char *in, const char *want, const char *name)
{
	char *got = js(in);
	CHECK_STR(got, want, name);
	free(got);
}

static void check_json_num(double v, const char *want, const char *name)
{
	char *got = json_num_str(v);
	CHECK_STR(got, want, name);
	free(got);
}

/* text_sanitize on a copy of in, compared to want. */
static void check_sanitize(const char *in, const char *want, const char *name)
{
	char buf[256];
	str_copy(buf, sizeof buf, in);
	text_sanitize(buf);
	CHECK_STR(buf, want, name);
}

static void test_json_str(void)
{
	char *s;

	check_json_str("", "\"\"", "json_str: empty string");
	check_json_str("plain text", "\"plain text\"", "json_str: plain ASCII unchanged");
	check_json_str("say \"hi\"", "\"say \\\"hi\\\"\"", "json_str: quotes escaped");
	check_json_str("C:\\dir", "\"C:\\\\dir\"", "json_str: backslash escaped");
	check_json_str("a\nb", "\"a\\nb\"", "json_str: newline as \\n");
	check_json_str("a\tb\rc", "\"a\\tb\\rc\"", "json_str: tab and CR escaped");
	check_json_str("\x01", "\"\\u0001\"", "json_str: U+0001 as \\u0001");
	check_json_str("x\x1b[2Jy", "\"x\\u001b[2Jy\"", "json_str: ESC as \\u001b");
	check_json_str("\x1f", "\"\\u001f\"", "json_str: U+001F escaped");
	check_json_str("\x7f", "\"\\u007f\"", "json_str: DEL escaped");
	check_json_str("\xc2\x80", "\"\\u0080\"", "json_str: C1 U+0080 escaped");
	check_json_str("\xc2\x9b" "31m", "\"\\u009b31m\"", "json_str: C1 CSI U+009B escaped");
	check_json_str("\xc2\x9f", "\"\\u009f\"", "json_str: C1 U+009F escaped");
	check_json_str("\xc2\xa0", "\"\xc2\xa0\"", "json_str: U+00A0 (first non-C1) kept");
	check_json_str("caf\xc3\xa9", "\"caf\xc3\xa9\"", "json_str: 2-byte UTF-8 kept");
	check_json_str("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "\"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\"",
		       "json_str: 3-byte UTF-8 kept");
	check_json_str("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"", "json_str: 4-byte UTF-8 kept");
	check_json_str("a\xff" "b", "\"a\\ufffdb\"", "json_str: 0xFF -> U+FFFD");
	check_json_str("\x80", "\"\\ufffd\"", "json_str: lone continuation byte -> U+FFFD");
	check_json_str("\xc0\xaf", "\"\\ufffd\\ufffd\"", "json_str: 2-byte overlong -> U+FFFD");
	check_json_str("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"", "json_str: 3-byte overlong -> U+FFFD");
	check_json_str("\xf0\x80\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
		       "json_str: 4-byte overlong -> U+FFFD");
	check_json_str("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "json_str: surrogate U+D800 -> U+FFFD");
	check_json_str("\xed\xbf\xbf", "\"\\ufffd\\ufffd\\ufffd\"", "json_str: surrogate U+DFFF -> U+FFFD");
	check_json_str("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
		       "json_str: above U+10FFFF -> U+FFFD");
	check_json_str("x\xe6\x97", "\"x\\ufffd\\ufffd\"", "json_str: truncated sequence at end -> U+FFFD");
	check_json_str("\xed\x9f\xbf", "\"\xed\x9f\xbf\"", "json_str: U+D7FF (below surrogates) kept");

	/* every control byte 1..31 yields output with no raw control byte */
	{
		char in[40];
		int i;
		for (i = 1; i < 32; i++)
			in[i - 1] = (char)i;
		in[31] = '\x7f';
		in[32] = '\0';
		s = js(in);
		CHECK(!has_raw_control(s), "json_str: no raw control byte survives (0x01..0x1f, 0x7f)");
		CHECK(all_ascii(s), "json_str: all controls become ASCII escapes");
		free(s);
	}
}

static void test_json_num(void)
{
	check_json_num(NAN, "null", "json_num: NaN -> null");
	check_json_num(INFINITY, "null", "json_num: +inf -> null");
	check_json_num(-INFINITY, "null", "json_num: -inf -> null");
	check_json_num(0, "0", "json_num: zero");
	check_json_num(200, "200", "json_num: integer without decimals");
	check_json_num(-42, "-42", "json_num: negative integer");
	check_json_num(123456789012.0, "123456789012", "json_num: large integer without exponent");
	check_json_num(0.5, "0.5", "json_num: fraction 0.5");
	check_json_num(1.25, "1.25", "json_num: fraction 1.25");
	{
		char *s = json_num_str(1.0 / 3.0);
		CHECK(s && strncmp(s, "0.333", 5) == 0 && strlen(s) <= 10, "json_num: 1/3 short fraction");
		free(s);
		s = json_num_str(0.0025);
		CHECK(s && fabs(strtod(s, NULL) - 0.0025) < 1e-12, "json_num: 0.0025 round-trips");
		free(s);
		s = json_num_str(1e20);
		CHECK(s && strtod(s, NULL) == 1e20 && !strchr(s, ' '), "json_num: 1e20 is a valid number");
		free(s);
	}
}

static void test_sanitize(void)
{
	char buf[64];

	check_sanitize("a\tb\nc\rd", "a b c d", "text_sanitize: tab/newline/CR -> space");
	check_sanitize("\x1b]0;title\x07", "?]0;title?", "text_sanitize: OSC title sequence neutralised");
	check_sanitize("\x1b[2J", "?[2J", "text_sanitize: CSI clear-screen neutralised");
	check_sanitize("x\x7fy", "x?y", "text_sanitize: DEL replaced");
	check_sanitize("\xc2\x9b" "2J", "?2J", "text_sanitize: UTF-8 C1 CSI replaced by one ?");
	check_sanitize("a\xe2\x80\xae" "b\xe2\x80\x8f" "c\xe2\x81\xa6" "d", "a?b?c?d", "text_sanitize: bidi controls replaced");
	check_sanitize("\x9b" "2J", "?2J", "text_sanitize: raw C1 byte replaced");
	check_sanitize("a\xff" "b", "a?b", "text_sanitize: invalid byte replaced");
	check_sanitize("\xed\xa0\x80", "???", "text_sanitize: surrogate replaced");
	check_sanitize("\xc0\xaf", "??", "text_sanitize: overlong replaced");
	check_sanitize("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
		       "text_sanitize: 日本語 kept");
	check_sanitize("caf\xc3\xa9", "caf\xc3\xa9", "text_sanitize: é kept");
	check_sanitize("MySQL 8.0.36", "MySQL 8.0.36", "text_sanitize: plain ASCII unchanged");

	str_copy(buf, sizeof buf, "v\x1b[31mred\x1b[0m\x1b]0;t\x07");
	CHECK(text_sanitize(buf) == buf, "text_sanitize: returns its argument");
	CHECK(!strchr(buf, '\x1b') && !strchr(buf, '\x07'), "text_sanitize: no ESC or BEL left");
	CHECK(strlen(buf) == strlen("v\x1b[31mred\x1b[0m\x1b]0;t\x07"), "text_sanitize: length kept (in place)");
}

static void test_str_copy(void)
{
	char buf[8];
	size_t n;

	memset(buf, 'Z', sizeof buf);
	n = str_copy(buf, 4, "hello");
	CHECK_STR(buf, "hel", "str_copy: truncates to dstlen-1");
	CHECK(n == 3, "str_copy: returns truncated length");
	CHECK(buf[4] == 'Z', "str_copy: writes nothing past dstlen");
	n = str_copy(buf, sizeof buf, "abc");
	CHECK(n == 3 && strcmp(buf, "abc") == 0, "str_copy: short string copied whole");
	n = str_copy(buf, sizeof buf, "1234567");
	CHECK(n == 7 && strcmp(buf, "1234567") == 0, "str_copy: exactly dstlen-1 fits");
	buf[0] = 'Q';
	n = str_copy(buf, 0, "abc");
	CHECK(n == 0 && buf[0] == 'Q', "str_copy: dstlen 0 writes nothing");
	n = str_copy(buf, 1, "abc");
	CHECK(n == 0 && buf[0] == '\0', "str_copy: dstlen 1 gives empty string");

	n = str_printf(buf, sizeof buf, "%d-%s", 12345, "abcdef");
	CHECK(n == 7 && strcmp(buf, "12345-a") == 0, "str_printf: truncates and terminates");
	{
		char *d = xstrndup("abcdef", 3);
		CHECK_STR(d, "abc", "xstrndup: at most n bytes");
		free(d);
	}
}

static void test_strbuf(void)
{
	struct strbuf b;
	char *big;
	size_t i;
	int ok;

	sb_init(&b);
	CHECK(b.s == NULL && b.len == 0, "strbuf: starts empty");
	big = xmalloc(6001);
	for (i = 0; i < 6000; i++)
		big[i] = (char)('a' + i % 26);
	big[6000] = '\0';
	sb_puts(&b, big);
	CHECK(b.len == 6000, "strbuf: len after 6000-byte put");
	CHECK(b.cap > 6000, "strbuf: cap grew past 4 KB");
	CHECK(strlen(b.s) == 6000 && memcmp(b.s, big, 6000) == 0, "strbuf: content intact after growth");
	for (i = 0; i < 5000; i++)
		sb_putc(&b, 'x');
	CHECK(b.len == 11000 && b.s[10999] == 'x' && b.s[11000] == '\0',
	      "strbuf: 5000 single putc after a big put");
	ok = 1;
	for (i = 6000; i < 11000; i++)
		if (b.s[i] != 'x')
			ok = 0;
	CHECK(ok && memcmp(b.s, big, 6000) == 0, "strbuf: earlier content survives reallocations");
	sb_free(&b);
	CHECK(b.s == NULL && b.len == 0 && b.cap == 0, "strbuf: sb_free resets");

	/* sb_printf past its 512-byte stack buffer */
	sb_init(&b);
	sb_puts(&b, "head:");
	sb_printf(&b, "[%s|%d|%s]", big, 77, big + 5000);
	CHECK(b.len == 5 + 1 + 6000 + 1 + 2 + 1 + 1000 + 1, "sb_printf: long output length");
	CHECK(strncmp(b.s, "head:[", 6) == 0, "sb_printf: keeps earlier content");
	CHECK(memcmp(b.s + 6, big, 6000) == 0, "sb_printf: long %s copied whole");
	CHECK(strncmp(b.s + 6 + 6000, "|77|", 4) == 0, "sb_printf: number after the long string");
	CHECK(b.s[b.len - 1] == ']' && b.s[b.len] == '\0', "sb_printf: terminated after long output");
	sb_printf(&b, "%s", "");
	CHECK(b.len == 5 + 1 + 6000 + 1 + 2 + 1 + 1000 + 1, "sb_printf: empty output adds nothing");
	sb_free(&b);

	/* output of exactly 511 and 512 bytes (around the stack buffer size) */
	sb_init(&b);
	sb_printf(&b, "%.*s", 511, big);
	CHECK(b.len == 511 && memcmp(b.s, big, 511) == 0, "sb_printf: 511-byte output");
	sb_printf(&b, "%.*s", 512, big);
	CHECK(b.len == 1023 && memcmp(b.s + 511, big, 512) == 0 && b.s[1023] == '\0',
	      "sb_printf: 512-byte output");
	sb_free(&b);

	/* json_str of a long string grows the buffer too */
	sb_init(&b);
	json_str(&b, big);
	CHECK(b.len == 6002 && b.s[0] == '"' && b.s[6001] == '"', "json_str: 6000-char string quoted whole");
	sb_free(&b);
	free(big);
}

/* d_ceil/d_round/d_llround against libm over awkward values. */
static void test_rounding(void)
{
	static const double v[] = { 0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.4999999, -2.5000001, 0.49999999999999994,
				    1e15 + 0.5, -1e15 - 0.5, 4503599627370497.0, 1e300, -1e300, 3.7, -3.7, 1e-300 };
	int bad = 0;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		if (d_ceil(v[i]) != ceil(v[i]) || d_round(v[i]) != round(v[i])) {
			printf("# value %.17g: d_ceil %.17g ceil %.17g d_round %.17g round %.17g\n", v[i],
			       d_ceil(v[i]), ceil(v[i]), d_round(v[i]), round(v[i]));
			bad++;
		}
	}
	CHECK(bad == 0, "d_ceil and d_round agree with libm on awkward values");
	CHECK(isnan(d_ceil(NAN)) && isnan(d_round(NAN)) && isinf(d_ceil(INFINITY)), "d_ceil/d_round pass NaN and inf through");
	CHECK(d_llround(2.5) == 3 && d_llround(-2.5) == -3 && d_llround(1234567.4) == 1234567, "d_llround rounds half away from zero");
}

/* The hash map: string and 64-bit keys, values kept across growth, the
 * slot order (where a string key's hash puts it), the string set. */
static void test_hmap(void)
{
	struct hmap m;
	char k[32];
	bool added, ok = true;
	hmap_init(&m, false, sizeof(uint64_t), 16);
	CHECK(hmap_get(&m, "a") == NULL && m.cap == 0, "hmap: empty map finds nothing, allocates nothing");
	for (int i = 0; i < 1000; i++) {
		str_printf(k, sizeof k, "key%d", i);
		uint64_t *v = hmap_put(&m, k, &added);
		ok = ok && added && *v == 0;
		*v = (uint64_t)i * 7;
	}
	CHECK(ok, "hmap: 1000 new string keys are added, values zeroed");
	CHECK(m.n == 1000 && m.cap >= 2000 && (m.cap & (m.cap - 1)) == 0, "hmap: at most half full, power of two");
	for (int i = 0; i < 1000; i++) {
		str_printf(k, sizeof k, "key%d", i);
		uint64_t *v = hmap_get(&m, k);
		ok = ok && v && *v == (uint64_t)i * 7;
		ok = ok && hmap_put(&m, k, &added) == v && !added;
	}
	CHECK(ok, "hmap: every value survives growth; a second put finds it");
	CHECK(hmap_get(&m, "key1000") == NULL, "hmap: a missing key");
	/* slot order: each key once, slots ascending */
	size_t it = 0, n = 0, last = 0;
	const char *key;
	uint64_t *v;
	ok = true;
	while ((v = hmap_next(&m, &it, &key))) {
		ok = ok && (n == 0 || it - 1 > last) && key && *v % 7 == 0 && hmap_get(&m, key) == v;
		last = it - 1;
		n++;
	}
	CHECK(ok && n == 1000, "hmap: iteration visits every key once in slot order");
	/* the same inserts give the same order */
	struct hmap m2;
	hmap_init(&m2, false, 0, 16);
	for (int i = 0; i < 1000; i++) {
		str_printf(k, sizeof k, "key%d", i);
		hmap_put(&m2, k, NULL);
	}
	size_t i1 = 0, i2 = 0;
	const char *k1, *k2;
	ok = m2.cap == m.cap;
	while (ok && hmap_next(&m, &i1, &k1)) {
		ok = hmap_next(&m2, &i2, &k2) != NULL && strcmp(k1, k2) == 0;
	}
	CHECK(ok, "hmap: the same keys in the same order: the same slot order");
	hmap_free(&m2);
	hmap_free(&m);
	CHECK(m.cap == 0 && m.n == 0 && hmap_get(&m, "key1") == NULL, "hmap: freed, empty again");

	hmap_init(&m, true, sizeof(double), 4);
	ok = true;
	for (uint64_t i = 0; i < 500; i++) {
		double *d = hmap_put_u64(&m, i * 1024, &added);
		ok = ok && added;
		*d = (double)i;
	}
	for (uint64_t i = 0; i < 500; i++) {
		double *d = hmap_get_u64(&m, i * 1024);
		ok = ok && d && *d == (double)i;
	}
	CHECK(ok && m.n == 500, "hmap: 64-bit keys (0 among them) kept with their values");
	CHECK(hmap_get_u64(&m, 1) == NULL && hmap_get_u64(&m, UINT64_MAX) == NULL, "hmap: missing 64-bit keys");
	it = 0;
	n = 0;
	while (hmap_next(&m, &it, &key))
		n += key == NULL;
	CHECK(n == 500, "hmap: 64-bit keys iterate without a string key");
	hmap_free(&m);

	struct strset ss = {0};
	CHECK(!strset_has(&ss, "x"), "strset: empty");
	CHECK(strset_add(&ss, "x") && !strset_add(&ss, "x") && strset_has(&ss, "x") && !strset_has(&ss, "y"),
	      "strset: add once, then has");
	strset_clear(&ss);
	CHECK(!strset_has(&ss, "x") && strset_add(&ss, "x"), "strset: cleared, usable again");
	strset_clear(&ss);
}

/* y: OSC 52 with the text base64-encoded (RFC 4648 vectors), nothing of
 * the text raw: a control in a statement cannot reach the terminal. */
static void test_osc52(void)
{
	static const char *const vec[][2] = {{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
					     {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
	for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
		struct strbuf b;
		char want[64];
		sb_init(&b);
		osc52_append(&b, vec[i][0], strlen(vec[i][0]));
		sb_putc(&b, '\0');
		str_printf(want, sizeof want, "\033]52;c;%s\a", vec[i][1]);
		CHECK(strcmp(b.s, want) == 0, tname("osc52 '%s' -> %s", vec[i][0], vec[i][1]));
		sb_free(&b);
	}
	struct strbuf b;
	const char hostile[] = "SELECT 1 /* \033]0;owned\a \x9b" "31m */";
	sb_init(&b);
	osc52_append(&b, hostile, sizeof hostile - 1);
	bool clean = b.len > 8;
	for (size_t i = 7; i + 1 < b.len; i++)
		clean &= (b.s[i] >= 'A' && b.s[i] <= 'Z') || (b.s[i] >= 'a' && b.s[i] <= 'z') ||
			 (b.s[i] >= '0' && b.s[i] <= '9') || strchr("+/=", b.s[i]);
	CHECK(clean && b.s[b.len - 1] == '\a', "osc52: escape and C1 bytes of the text only in base64");
	sb_free(&b);
}

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) /* ASan has its own heap, which glibc's trim does not see */
#define TRIM_SEEN 1
/* Resident pages of this process (/proc/self/statm), -1 if unknown. */
static long resident_pages(void)
{
	long size = -1, res = -1;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%ld %ld", &size, &res) != 2)
			res = -1;
		fclose(f);
	}
	return res;
}
#endif

static void test_heap_trim(void)
{
	double next = 0;
	CHECK(!heap_trim_due(&next, 100) && next == 100 + HEAP_TRIM_S, "heap trim: the first call sets the time, no trim");
	CHECK(!heap_trim_due(&next, 100 + HEAP_TRIM_S - 1), "heap trim: none before its time");
	CHECK(heap_trim_due(&next, 100 + HEAP_TRIM_S) && next == 100 + 2 * HEAP_TRIM_S, "heap trim: at its time, then the next");
#ifdef TRIM_SEEN
	/* as the screen sets the heap: freed memory kept, big blocks in it */
	mallopt(M_MMAP_THRESHOLD, 16 << 20);
	mallopt(M_TRIM_THRESHOLD, 32 << 20);
	enum { N = 4096, SZ = 2000 };
	char **b = xcalloc(N, sizeof *b);
	for (int i = 0; i < N; i++) {
		b[i] = xmalloc(SZ);
		memset(b[i], 'x', SZ);
	}
	for (int i = 0; i < N; i++)
		if (i % 64 != 63) {   /* a live block every 128 KB: the top cannot shrink */
			free(b[i]);
			b[i] = NULL;
		}
	long before = resident_pages();
	next = 1;
	bool trimmed = heap_trim_due(&next, 1e9);
	long after = resident_pages();
	char name[160];
	snprintf(name, sizeof name, "heap trim: the free pages between live blocks go back (%ld -> %ld resident pages)",
		 before, after);
	CHECK(trimmed && before > 0 && after > 0 && before - after >= 1000, name);
	for (int i = 0; i < N; i++)
		free(b[i]);
	free(b);
#endif
}

/* file_reread: one descriptor read again from the start, the file's
 * current text each time; a failed read opens the path again. */
static void test_file_reread(void)
{
	char path[] = "/tmp/dbtop-reread-XXXXXX", buf[64];
	int w = mkstemp(path), fd = -1;
	CHECK(w >= 0 && write(w, "load 1\n", 7) == 7, "reread: a file to read");
	CHECK(file_reread(&fd, path, buf, sizeof buf) == 7 && strcmp(buf, "load 1\n") == 0 && fd >= 0,
	      "reread: opened and read whole");
	int kept = fd;
	CHECK(pwrite(w, "load 22\n", 8, 0) == 8, "reread: the file changed in place");
	CHECK(file_reread(&fd, path, buf, sizeof buf) == 8 && strcmp(buf, "load 22\n") == 0 && fd == kept,
	      "reread: the same descriptor gives the new text from the start");
	CHECK(file_reread(&fd, path, buf, 5) == 4 && strcmp(buf, "load") == 0, "reread: at most len - 1 bytes");
	/* a descriptor that cannot be read (a process gone) is opened again */
	close(fd);
	fd = open("/tmp", O_RDONLY | O_DIRECTORY);
	CHECK(file_reread(&fd, path, buf, sizeof buf) == 8 && strcmp(buf, "load 22\n") == 0 && fd >= 0,
	      "reread: a read that fails opens the path again");
	close(fd);
	unlink(path);
	fd = 99999;
	CHECK(file_reread(&fd, path, buf, sizeof buf) == -1 && fd == -1, "reread: a path gone: -1, nothing open");
	fd = -1;
	CHECK(file_reread(&fd, "/proc/loadavg", buf, sizeof buf) > 0 && strchr(buf, '/') &&
		      file_reread(&fd, "/proc/loadavg", buf, sizeof buf) > 0 && strchr(buf, '/'),
	      "reread: /proc/loadavg twice through one descriptor");
	close(fd);
	close(w);
}

int main(void)
{
	test_file_reread();
	test_heap_trim();
	test_osc52();
	test_rounding();
	test_json_str();
	test_json_num();
	test_sanitize();
	test_str_copy();
	test_strbuf();
	test_hmap();
	return TAP_DONE();
}
