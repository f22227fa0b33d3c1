/* util.c - allocation, strings, clocks, JSON helpers. */
#include "util.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

bool heap_trim_due(double *next, double now)
{
	if (*next <= 0) {
		*next = now + HEAP_TRIM_S;
		return false;
	}
	if (now < *next)
		return false;
	*next = now + HEAP_TRIM_S;
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	return true;
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

size_t utf8_code_point(const unsigned char *s, unsigned *out)
{
	unsigned c = s[0];
	size_t n, i;
	unsigned cp;
	*out = c;
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
	*out = cp;
	return n;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned cp;
	return utf8_code_point(s, &cp);
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

void json_num3(struct strbuf *b, double v)
{
	json_num(b, isfinite(v) ? d_round(v * 1000) / 1000 : NAN);
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
	unsigned char *p = (unsigned char *)s, *o;
	/* printable ASCII stays as it is: skip it without copying */
	while (*p >= 0x20 && *p < 0x7f)
		p++;
	o = p;
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

/* A slot: the key's hash and the key (a string's copy, or the 64-bit
 * key), then the value. Used: the string is set (string keys), the hash's
 * bit 0 (64-bit keys: their hash always has it). */
struct hslot {
	uint64_t h;
	union {
		char *s;
		uint64_t u;
	} k;
};
#define HSLOT_HDR ((sizeof(struct hslot) + 7) & ~(size_t)7)

static struct hslot *hslot_at(const struct hmap *m, size_t i)
{
	return (struct hslot *)(void *)(m->slots + i * m->slot_size);
}

static bool hslot_used(const struct hmap *m, const struct hslot *s)
{
	return m->u64 ? (s->h & 1) != 0 : s->k.s != NULL;
}

/* A 64-bit key's hash (splitmix64's finaliser), bit 0 set. */
static uint64_t hash_u64(uint64_t k)
{
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebull;
	k ^= k >> 31;
	return k | 1;
}

void hmap_init(struct hmap *m, bool u64_keys, size_t val_size, size_t first_cap)
{
	memset(m, 0, sizeof *m);
	m->u64 = u64_keys;
	m->val_size = val_size;
	m->first_cap = first_cap;
}

/* The slot of a key with hash h (its own or the empty one where it goes). */
static struct hslot *hmap_find(const struct hmap *m, uint64_t h, const char *s, uint64_t u)
{
	size_t i = (size_t)h & (m->cap - 1);
	for (;; i = (i + 1) & (m->cap - 1)) {
		struct hslot *sl = hslot_at(m, i);
		/* cppcheck-suppress nullPointer ; s is NULL only in a u64-keyed map, where it is not compared */
		if (!hslot_used(m, sl) || (sl->h == h && (m->u64 ? sl->k.u == u : strcmp(sl->k.s, s) == 0)))
			return sl;
	}
}

/* Room for one more key: twice the slots, the keys moved in slot order. */
static void hmap_grow(struct hmap *m)
{
	struct hmap big = *m;
	if ((m->n + 1) * 2 <= m->cap)
		return;
	big.slot_size = HSLOT_HDR + ((m->val_size + 7) & ~(size_t)7);
	big.cap = m->cap ? m->cap * 2 : m->first_cap ? m->first_cap : 64;
	big.slots = xcalloc(big.cap, big.slot_size);
	for (size_t i = 0; i < m->cap; i++) {
		struct hslot *s = hslot_at(m, i);
		if (hslot_used(m, s))
			memcpy(hmap_find(&big, s->h, s->k.s, s->k.u), s, m->slot_size);
	}
	free(m->slots);
	*m = big;
}

static void *hmap_lookup(const struct hmap *m, uint64_t h, const char *s, uint64_t u)
{
	struct hslot *sl = m->cap ? hmap_find(m, h, s, u) : NULL;
	return sl && hslot_used(m, sl) ? (unsigned char *)sl + HSLOT_HDR : NULL;
}

void *hmap_get(const struct hmap *m, const char *key)
{
	return hmap_lookup(m, hash_str(key), key, 0);
}

void *hmap_get_u64(const struct hmap *m, uint64_t key)
{
	return hmap_lookup(m, hash_u64(key), NULL, key);
}

static void *hmap_insert(struct hmap *m, uint64_t h, const char *s, uint64_t u, bool *added)
{
	void *v = hmap_lookup(m, h, s, u);
	if (added)
		*added = !v;
	if (v)
		return v;
	hmap_grow(m);
	struct hslot *sl = hmap_find(m, h, s, u);
	sl->h = h;
	assert(m->u64 || s); /* lint: a string-keyed map always has a key (the analyzer assumes NULL) */
	if (m->u64)
		sl->k.u = u;
	else
		sl->k.s = xstrdup(s);
	m->n++;
	return (unsigned char *)sl + HSLOT_HDR;
}

void *hmap_put(struct hmap *m, const char *key, bool *added)
{
	return hmap_insert(m, hash_str(key), key, 0, added);
}

void *hmap_put_u64(struct hmap *m, uint64_t key, bool *added)
{
	return hmap_insert(m, hash_u64(key), NULL, key, added);
}

void *hmap_next(const struct hmap *m, size_t *it, const char **key)
{
	for (; *it < m->cap; (*it)++) {
		struct hslot *s = hslot_at(m, *it);
		if (hslot_used(m, s)) {
			(*it)++;
			if (key)
				*key = m->u64 ? NULL : s->k.s;
			return (unsigned char *)s + HSLOT_HDR;
		}
	}
	return NULL;
}

void hmap_free(struct hmap *m)
{
	for (size_t i = 0; !m->u64 && i < m->cap; i++)
		free(hslot_at(m, i)->k.s);
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}

bool strset_has(const struct strset *ss, const char *s)
{
	return hmap_get(&ss->m, s) != NULL;
}

bool strset_add(struct strset *ss, const char *s)
{
	bool added;
	hmap_put(&ss->m, s, &added);
	return added;
}

void strset_clear(struct strset *ss)
{
	hmap_free(&ss->m);
}

int files_create_pair(const char *dir, const char *base, const char *ext1, const char *ext2, int *fd1, int *fd2,
		      char *path1, size_t len)
{
	char p2[1024];
	for (int k = 1; k < 100; k++) {
		char sfx[8] = "";
		if (k > 1)
			str_printf(sfx, sizeof sfx, "-%d", k);
		str_printf(path1, len, "%s/%s%s.%s", dir, base, sfx, ext1);
		str_printf(p2, sizeof p2, "%s/%s%s.%s", dir, base, sfx, ext2);
		*fd1 = open(path1, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (*fd1 < 0 && errno == EEXIST)
			continue;
		if (*fd1 < 0)
			return -1;
		*fd2 = open(p2, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (*fd2 >= 0)
			return 0;
		int e = errno;
		close(*fd1);
		unlink(path1);
		*fd1 = -1;
		errno = e;
		if (e != EEXIST) {
			str_copy(path1, len, p2);
			return -1;
		}
	}
	errno = EEXIST;
	return -1;
}

int files_write_pair(const char *dir, const char *base, const char *ext1, const char *ext2, const void *b1,
		     size_t n1, const void *b2, size_t n2, char *path1, size_t len, char *err, size_t elen)
{
	int f1 = -1, f2 = -1;
	if (files_create_pair(dir, base, ext1, ext2, &f1, &f2, path1, len) < 0) {
		str_printf(err, elen, "%s: %s", path1, strerror(errno));
		return -1;
	}
	int e = 0;
	if (write_all(f1, b1, n1) < 0 || write_all(f2, b2, n2) < 0 || fdatasync(f1) < 0 || fdatasync(f2) < 0)
		e = errno ? errno : EIO;
	if (close(f1) < 0 && !e)
		e = errno;
	if (close(f2) < 0 && !e)
		e = errno;
	if (!e)
		return 0;
	/* the second name: the first with its extension changed */
	char p2[1024];
	size_t stem = strlen(path1) - strlen(ext1);
	str_printf(p2, sizeof p2, "%.*s%s", (int)stem, path1, ext2);
	str_printf(err, elen, "%s: %s", path1, strerror(e));
	unlink(path1);
	unlink(p2);
	return -1;
}

int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t k = write(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* buf from the start of fd (len - 1 bytes at most); the length or -1 */
static long pread_all(int fd, char *buf, size_t len)
{
	size_t n = 0;
	while (n < len - 1) {
		ssize_t r = pread(fd, buf + n, len - 1 - n, (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return (long)n;
}

long file_reread(int *fd, const char *path, char *buf, size_t len)
{
	assert(len > 0);
	long n = *fd >= 0 ? pread_all(*fd, buf, len) : -1;
	if (n >= 0)
		return n;
	if (*fd >= 0)
		close(*fd);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	n = *fd >= 0 ? pread_all(*fd, buf, len) : -1;
	if (n < 0 && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	return n;
}

void osc52_append(struct strbuf *b, const char *text, size_t n)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)text;
	sb_puts(b, "\033]52;c;");
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		char q[4] = {b64[v >> 18 & 63], b64[v >> 12 & 63], i + 1 < n ? b64[v >> 6 & 63] : '=', i + 2 < n ? b64[v & 63] : '='};
		sb_put(b, q, 4);
	}
	sb_putc(b, '\a');
}

void str_bytes(double v, char *buf, size_t len)
{
	static const char *u[] = {"B", "K", "M", "G", "T"};
	int i = 0;
	if (!(v >= 0)) {
		str_copy(buf, len, "-");
		return;
	}
	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		str_printf(buf, len, "%.0fB", v);
	else
		str_printf(buf, len, "%.1f%s", v, u[i]);
}

/* The comparison in progress on this thread; a sort inside a comparison
 * keeps the outer one's frame. */
struct sort_frame {
	sort_cmp_fn cmp;
	void *ctx;
};
static _Thread_local struct sort_frame *sort_top;

static int sort_tramp(const void *a, const void *b)
{
	return sort_top->cmp(a, b, sort_top->ctx);
}

void sort_r(void *base, size_t n, size_t size, sort_cmp_fn cmp, void *ctx)
{
	struct sort_frame f = {cmp, ctx}, *outer = sort_top;
	sort_top = &f;
	qsort(base, n, size, sort_tramp);
	sort_top = outer;
}
