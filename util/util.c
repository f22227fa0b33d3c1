/* util.c - allocation, strings, clocks, JSON helpers. */
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Print a message and abort: the only sane reaction to running out of memory. */
static void oom(void)
{
	fputs("dbtop: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom();
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = xmalloc(len + 1);
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

size_t str_copy(char *dst, size_t dstlen, const char *src)
{
	size_t n;
	if (!dstlen)
		return 0;
	n = strlen(src);
	if (n >= dstlen)
		n = dstlen - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return n;
}

size_t str_printf(char *dst, size_t dstlen, const char *fmt, ...)
{
	va_list ap;
	int n;
	if (!dstlen)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(dst, dstlen, fmt, ap);
	va_end(ap);
	if (n < 0) {
		dst[0] = '\0';
		return 0;
	}
	return (size_t)n >= dstlen ? dstlen - 1 : (size_t)n;
}

void secret_free(char *s)
{
	if (!s)
		return;
	volatile char *p = s;
	while (*p)
		*p++ = '\0';
	free(s);
}

double clock_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double clock_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Beyond 2^52 every double is already an integer. */
#define D_INT_LIMIT 4503599627370496.0

double d_ceil(double x)
{
	if (!(x > -D_INT_LIMIT && x < D_INT_LIMIT))
		return x;
	double t = (double)(long long)x;
	return t < x ? t + 1 : t;
}

double d_round(double x)
{
	if (!(x > -D_INT_LIMIT && x < D_INT_LIMIT))
		return x;
	double t = (double)(long long)x, f = x - t;
	if (f >= 0.5)
		return t + 1;
	if (f <= -0.5)
		return t - 1;
	return t;
}

long long d_llround(double x)
{
	return (long long)d_round(x);
}

void sleep_until(double t)
{
	double d = t - clock_mono();
	struct timespec ts;
	if (d <= 0)
		return;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

void sb_init(struct strbuf *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
}

void sb_free(struct strbuf *b)
{
	free(b->s);
	sb_init(b);
}

/* Make room for n more bytes plus a terminating NUL. */
static void sb_grow(struct strbuf *b, size_t n)
{
	if (b->len + n + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + n + 1)
		cap *= 2;
	b->s = xrealloc(b->s, cap);
	b->cap = cap;
}

void sb_put(struct strbuf *b, const char *s, size_t n)
{
	sb_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sb_putc(struct strbuf *b, char c)
{
	sb_put(b, &c, 1);
}

void sb_puts(struct strbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	char tmp[512];
	int n;
	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof tmp) {
		sb_put(b, tmp, (size_t)n);
		return;
	}
	sb_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n, i;
	unsigned cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void json_str(struct strbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	sb_putc(b, '"');
	while (*p) {
		size_t n = utf8_len(p);
		if (n == 0) {
			sb_puts(b, "\\ufffd");
			p++;
			continue;
		}
		if (n > 1) {
			/* C1 controls (U+0080..U+009F) are escaped too. */
			if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
				sb_printf(b, "\\u%04x", p[1]);
			else
				sb_put(b, (const char *)p, n);
			p += n;
			continue;
		}
		switch (*p) {
		case '"': sb_puts(b, "\\\""); break;
		case '\\': sb_puts(b, "\\\\"); break;
		case '\n': sb_puts(b, "\\n"); break;
		case '\t': sb_puts(b, "\\t"); break;
		case '\r': sb_puts(b, "\\r"); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				sb_printf(b, "\\u%04x", *p);
			else
				sb_putc(b, (char)*p);
		}
		p++;
	}
	sb_putc(b, '"');
}

void json_num(struct strbuf *b, double v)
{
	if (!isfinite(v)) {
		sb_puts(b, "null");
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15)
		sb_printf(b, "%.0f", v);
	else
		sb_printf(b, "%.6g", v);
}

/* True for Unicode bidirectional controls (they can reorder what the
 * terminal shows): U+061C, U+200E/F, U+202A..E, U+2066..9. */
static bool is_bidi(const unsigned char *p, size_t n)
{
	if (n == 2)
		return p[0] == 0xd8 && p[1] == 0x9c;
	if (n != 3 || p[0] != 0xe2)
		return false;
	return (p[1] == 0x80 && (p[2] == 0x8e || p[2] == 0x8f || (p[2] >= 0xaa && p[2] <= 0xae))) ||
	       (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9);
}

char *text_sanitize(char *s)
{
	unsigned char *p = (unsigned char *)s, *o = p;
	while (*p) {
		size_t n = utf8_len(p);
		if (n == 0) {
			*o++ = '?';
			p++;
			continue;
		}
		if ((n == 2 && p[0] == 0xc2 && p[1] < 0xa0) || is_bidi(p, n)) {
			*o++ = '?';
			p += n;
			continue;
		}
		if (n == 1) {
			if (*p == '\t' || *p == '\n' || *p == '\r')
				*o++ = ' ';
			else if (*p < 0x20 || *p == 0x7f)
				*o++ = '?';
			else
				*o++ = *p;
			p++;
			continue;
		}
		memmove(o, p, n);
		o += n;
		p += n;
	}
	*o = '\0';
	return s;
}
uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	while (n--) {
		h ^= *b++;
		h *= 1099511628211ull;
	}
	return h;
}

uint64_t hash_str(const char *s)
{
	return hash_bytes(HASH_SEED, s, strlen(s));
}

/* Index of s or of the empty slot where it would go. */
static size_t strset_find(const struct strset *ss, const char *s)
{
	size_t i = (size_t)hash_str(s) & (ss->cap - 1);
	while (ss->slot[i] && strcmp(ss->slot[i], s) != 0)
		i = (i + 1) & (ss->cap - 1);
	return i;
}

bool strset_has(const struct strset *ss, const char *s)
{
	return ss->cap && ss->slot[strset_find(ss, s)] != NULL;
}

bool strset_add(struct strset *ss, const char *s)
{
	size_t i;
	if ((ss->n + 1) * 2 > ss->cap) {
		struct strset big = {xcalloc(ss->cap ? ss->cap * 2 : 64, sizeof(char *)),
				     ss->cap ? ss->cap * 2 : 64, ss->n};
		for (i = 0; i < ss->cap; i++)
			if (ss->slot[i])
				big.slot[strset_find(&big, ss->slot[i])] = ss->slot[i];
		free(ss->slot);
		*ss = big;
	}
	i = strset_find(ss, s);
	if (ss->slot[i])
		return false;
	ss->slot[i] = xstrdup(s);
	ss->n++;
	return true;
}

void strset_clear(struct strset *ss)
{
	size_t i;
	for (i = 0; i < ss->cap; i++)
		free(ss->slot[i]);
	free(ss->slot);
	ss->slot = NULL;
	ss->cap = ss->n = 0;
}
