/* util.h - small shared helpers: allocation, strings, clocks, JSON output.
 * Out of memory is fatal (x* wrappers never return NULL). */
#ifndef DBTOP_UTIL_H
#define DBTOP_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Returns a new string of at most n bytes of s. */
char *xstrndup(const char *s, size_t n);

/* Copy src into dst (always NUL terminated, truncating); returns strlen(dst). */
size_t str_copy(char *dst, size_t dstlen, const char *src);
/* snprintf that never overflows and always terminates; returns bytes written. */
size_t str_printf(char *dst, size_t dstlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* qsort with a context for the comparison (C11's qsort has none): cmp(a, b,
 * ctx). Reentrant, and each thread sorts with its own context. */
typedef int (*sort_cmp_fn)(const void *a, const void *b, void *ctx);
void sort_r(void *base, size_t n, size_t size, sort_cmp_fn cmp, void *ctx);
/* Bytes as text: "0B", "1.2K", "35.0M"; "-" when not a size (negative, NaN). */
void str_bytes(double v, char *buf, size_t len);
/* Overwrite a secret with zeros, then free it. NULL is fine. */
void secret_free(char *s);

/* Create dir/BASE.EXT1 and dir/BASE.EXT2 as a pair for writing: mode
 * 0600, O_EXCL (never over a file there), never through a symbolic link;
 * when either name is taken, BASE-2, BASE-3 ... up to 99. Returns 0 with
 * both descriptors and the first path (path1, len bytes), or -1 with errno
 * (path1 the name that failed). */
int files_create_pair(const char *dir, const char *base, const char *ext1, const char *ext2, int *fd1, int *fd2,
		      char *path1, size_t len);
/* files_create_pair, then n1 bytes of b1 and n2 of b2 written to the two
 * and synced: 0 with path1 set, or -1 with the reason in err and neither
 * file left behind (a full disk leaves no empty or cut file). */
int files_write_pair(const char *dir, const char *base, const char *ext1, const char *ext2, const void *b1,
		     size_t n1, const void *b2, size_t n2, char *path1, size_t len, char *err, size_t elen);
/* Write n bytes to fd (retrying short writes and EINTR); 0 or -1. */
int write_all(int fd, const void *p, size_t n);
/* A small file kept open in *fd (-1: not open yet) read again from its
 * start into buf (at most len - 1 bytes, NUL-terminated): /proc's files,
 * made afresh by each read, without an open and a close every refresh.
 * Opened at path when not open, and once more when a read fails (the
 * process it belonged to gone). Returns the length, or -1 with *fd -1. */
long file_reread(int *fd, const char *path, char *buf, size_t len);

/* Seconds from CLOCK_MONOTONIC. */
double clock_mono(void);
/* Seconds since the epoch from CLOCK_REALTIME. */
double clock_wall(void);
/* Sleep until the monotonic time t (seconds); returns early on a signal. */
void sleep_until(double t);

/* s between two heap_trim_due() trims */
#define HEAP_TRIM_S 60.0
/* Once HEAP_TRIM_S after the last (*next: the monotonic s of the next,
 * 0 at first: now + HEAP_TRIM_S), give the free pages of the heap back to
 * the system (glibc's malloc_trim) and return true. Each refresh frees and
 * allocates result buffers; with the trim threshold raised for the big
 * reads (they keep their blocks between reads), the free pieces between
 * live blocks stay resident: 0.3 MB after 15 minutes on an ordinary
 * server. A big read that follows faults its pages in again, once a
 * minute instead of every refresh. Call from one thread. */
bool heap_trim_due(double *next, double now);

/* ceil, round (half away from zero) and llround without libm, which would
 * otherwise be mapped for these three alone; NaN and inf pass through. */
double d_ceil(double x);
double d_round(double x);
long long d_llround(double x);

/* Growable byte buffer. */
struct strbuf {
	char *s;
	size_t len, cap;
};
void sb_init(struct strbuf *b);
void sb_free(struct strbuf *b);
void sb_putc(struct strbuf *b, char c);
void sb_put(struct strbuf *b, const char *s, size_t n);
void sb_puts(struct strbuf *b, const char *s);
void sb_printf(struct strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Append s as a JSON string literal (quotes included): control characters
 * are escaped, invalid UTF-8 bytes become U+FFFD. */
void json_str(struct strbuf *b, const char *s);
/* Append a number, or null when v is NaN/inf. */
void json_num(struct strbuf *b, double v);
/* The same rounded to 3 decimals (the JSON's rates, latencies and costs). */
void json_num3(struct strbuf *b, double v);

/* Replace everything unsafe for a terminal in s (C0/C1 controls, DEL, ESC
 * sequences, invalid UTF-8) by '?', in place; tabs and newlines become
 * spaces. Returns s. */
char *text_sanitize(char *s);
/* The valid UTF-8 sequence at s: its length (1..4) and its code point in
 * *cp; 0 when it is not one (overlong, a surrogate, beyond U+10FFFF). */
size_t utf8_code_point(const unsigned char *s, unsigned *cp);

/* The OSC 52 sequence that puts text (n bytes) on the terminal's clipboard:
 * ESC ] 52 ; c ; BASE64 BEL, appended to b. The text goes base64-encoded:
 * nothing of it reaches the terminal as a control. */
void osc52_append(struct strbuf *b, const char *text, size_t n);


#define HASH_SEED 1469598103934665603ull
/* FNV-1a over n bytes, continuing from h (start with HASH_SEED). */
uint64_t hash_bytes(uint64_t h, const void *p, size_t n);
/* FNV-1a of a string. */
uint64_t hash_str(const char *s);
/* A hash of n bytes taken eight at a time, continuing from h: for keys and
 * fingerprints kept in memory only (a run's hmap order never depends on it).
 * Inline: it runs for a few cells of every row of a big digest read. */
static inline uint64_t hash_words(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t w;
	h ^= (uint64_t)n * 0x9e3779b97f4a7c15ull;
	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	if (n)
		memcpy(&w, b, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

/* An open-addressing hash map (linear probing, power-of-two slots, at
 * most half full) from string keys (the map owns copies) or 64-bit keys to
 * fixed-size values stored in the slots. A string key's slot starts at
 * hash_str(key), so the slot order (hmap_next) is the same for the same
 * inserts. Zeroed it is an empty map of string keys without values;
 * hmap_init chooses otherwise. Nothing is ever removed. Value pointers
 * stay valid until the next insert. */
struct hmap {
	unsigned char *slots;    /* cap slots of slot_size bytes: header, then value */
	size_t cap, n;
	size_t val_size, slot_size;
	size_t first_cap;        /* slots at the first insert (0: 64) */
	bool u64;                /* 64-bit keys instead of strings */
};
void hmap_init(struct hmap *m, bool u64_keys, size_t val_size, size_t first_cap);
/* Free the slots and keys (not what values point to); the map stays usable. */
void hmap_free(struct hmap *m);
/* The value of key, or NULL. */
void *hmap_get(const struct hmap *m, const char *key);
void *hmap_get_u64(const struct hmap *m, uint64_t key);
/* The value of key, added (zeroed; *added true when added is not NULL)
 * when missing. */
void *hmap_put(struct hmap *m, const char *key, bool *added);
void *hmap_put_u64(struct hmap *m, uint64_t key, bool *added);
/* Iteration in slot order: start with *it = 0; the next value (its key in
 * *key when key is not NULL: a string, or NULL in a map of 64-bit keys),
 * or NULL at the end. */
void *hmap_next(const struct hmap *m, size_t *it, const char **key);

/* A set of strings (the set owns copies). */
struct strset {
	struct hmap m;
};
/* Add s; true when it was not there yet. */
bool strset_add(struct strset *ss, const char *s);
bool strset_has(const struct strset *ss, const char *s);
void strset_clear(struct strset *ss);

#endif
