/* record.c - writing and reading recordings (docs/recording.md). */
#include "record.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/tunables.h"
#include "../model/digests.h"
#include "../model/events.h"
#include "../model/locks.h"
#include "../model/sessions.h"
#include "../model/waits.h"
#include "../util/redact.h"
#include "../util/util.h"

/* field tags of a HEADER record */
enum { H_ENGINE = 1, H_VERSION, H_HOST, H_DBTOP, H_START, H_INTERVAL, H_REDACTED, H_OPEN_AT, H_TRIGGER };
/* field tags of a CAPS record */
enum {
	C_CONN_GEN = 1, C_ENGINE, C_FLAVOUR, C_VERSION, C_VERSION_NUM, C_FLAGS,
	C_REDO_SOURCE, C_COMMIT_SOURCE, C_PGSS, C_PGWS, C_WAL_STATS, C_NOTE
};
/* field tags of a SAMPLE record */
enum {
	S_MONO = 1,
	S_WALL,
	S_STATE,
	S_ERROR,
	S_RETRY,
	S_CONN_GEN,
	S_QUERY_MS,
	S_NQUERIES,
	S_COUNTER,
	S_SETTINGS_FRESH,
	S_SETTING,
	S_NOTE,
	S_UPTIME,
	S_DIGEST_META,
	S_DIGEST,
	S_DIGESTS_SKIPPED,
	S_DIGEST_HIST,
	S_LOCK_META,
	S_LOCK_SESSION,
	S_LOCK_EDGE,
	S_WAIT_META,
	S_WAIT,
	S_DIGEST_SPLIT,
	S_WAITS_SKIPPED,
	S_LOCK_IDENT,
	S_DIGEST_SAMPLES,  /* sampled sets: key, the row's cumulative samples (u64), after its S_DIGEST */
	S_DIGEST_SAMPLING, /* sampled sets: cumulative rounds (u64), sessions seen (u32); sets of exact
			     * digests: the looks behind their "s:" estimates (u64), 0 */
	S_SESSION_META,    /* the session list: status, query ms, age, note */
	S_SESSION,         /* one session of the list (put_sessions) */
	S_SESSION_IDLE,    /* after the list: idle sessions counted, not listed (u64) */
	S_EVENTS,          /* the interval's events (model/events.h): u32 count, then each (event_io) */
	S_TUNING = 32,     /* the tuning screen: tuning_io */
	S_LOGDEV = 33,     /* the log devices' /proc/diskstats counters (logdev_sample_io) */
};
_Static_assert(S_EVENTS == 31, "the events field is 31");
/* CAPS: the log directories and their devices (logdev_map_io) */
enum { C_LOGDEV = 14 };
/* synchronous replication (put_repl); tags 31, 32 belong to other records */
enum { S_REPL = 34 };
/* counters left out on purpose (sample.ctr_paced) */
enum { S_CTR_PACED = 35 };
/* the host's CPU pressure and the server tasks' CPU waits (hostload_sample_io) */
enum { S_HOSTLOAD = 36 };
/* the lock graph's age when it was not read this sample (paced): f64 its
 * age, f64 the age of the reading that gated it (written when either > 0) */
enum { S_LOCK_AGE = 37 };
/* PostgreSQL: the roles' and databases' own values of the narrow settings,
 * read with the settings (scoped_io; written when read, an empty list too) */
enum { S_SCOPED = 38 };

/* S_LOCK_SESSION / S_LOCK_EDGE flags */
#define LKS_QUERY_LAST 1u
#define LKS_HAS_QUERY 2u
#define LKE_SOFT 1u

/* S_DIGEST_META flags */
#define DGM_PARTIAL 1u
#define DGM_SAMPLED 2u
#define DGM_LOST 4u
#define DGM_ESTIMATES 8u   /* only the sampled estimates: the exact rows were not read */
/* S_DIGEST: bit 31 of the have-mask says a text follows */
#define DGR_TEXT (1u << 31)
/* bit 30: the row is dbtop's own statement (older readers ignore it) */
#define DGR_OWN (1u << 30)

/* One digest row as last written: a fingerprint of its counters. */
struct dg_slot {
	uint64_t fp;
	bool text;
};
struct rec_dgmap {
	struct hmap m;           /* key -> struct dg_slot */
};

/* CAPS booleans, bit i of C_FLAGS; the order is part of the format */
#define CAPS_FLAGS(X) X(perf_schema) X(ps_readable) X(ps_redo_file) X(ps_binlog_file) \
	X(has_os_log_fsyncs) X(binlog_on) X(priv_process) X(priv_super)          \
	X(track_wal_io_timing) X(in_recovery) X(superuser) X(pg_monitor)       \
	X(ps_digests) X(ps_digest_p95) X(ps_digest_hist)

/* CRC-32 tables for eight bytes at a time (slicing-by-8), made once
 * (the replay worker and the screen's history both read). */
static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t k = 0; k < 256; k++) {
		uint32_t c = k;
		for (int j = 0; j < 8; j++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_tab[0][k] = c;
	}
	for (uint32_t k = 0; k < 256; k++)
		for (int t = 1; t < 8; t++)
			crc_tab[t][k] = (crc_tab[t - 1][k] >> 8) ^ crc_tab[0][crc_tab[t - 1][k] & 0xff];
}

uint32_t rec_crc32(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;
	pthread_once(&crc_once, crc_init);
	crc = ~crc;
	for (; n >= 8; n -= 8, b += 8) {
		uint32_t lo = crc ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
		crc = crc_tab[7][lo & 0xff] ^ crc_tab[6][lo >> 8 & 0xff] ^ crc_tab[5][lo >> 16 & 0xff] ^
		      crc_tab[4][lo >> 24] ^ crc_tab[3][b[4]] ^ crc_tab[2][b[5]] ^ crc_tab[1][b[6]] ^ crc_tab[0][b[7]];
	}
	while (n--)
		crc = crc_tab[0][(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- encoding ---- */

static void put_le(struct strbuf *b, uint64_t v, int bytes)
{
	char c[8];
	for (int i = 0; i < bytes; i++)
		c[i] = (char)(v >> (8 * i));
	sb_put(b, c, (size_t)bytes);
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* A field: u16 tag, u32 length, bytes. */
static void put_field(struct strbuf *b, int tag, const void *data, size_t n)
{
	put_le(b, (uint64_t)tag, 2);
	put_le(b, n, 4);
	sb_put(b, data, n);
}

static void put_u64(struct strbuf *b, int tag, uint64_t v)
{
	struct strbuf t;
	sb_init(&t);
	put_le(&t, v, 8);
	put_field(b, tag, t.s, t.len);
	sb_free(&t);
}

static void put_f64(struct strbuf *b, int tag, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof v);
	put_u64(b, tag, v);
}

static void put_str(struct strbuf *b, int tag, const char *s)
{
	put_field(b, tag, s, strlen(s));
}

/* Copy a string field into dst (NUL terminated, truncated, sanitised). */
static void get_str(char *dst, size_t len, const unsigned char *p, size_t n)
{
	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(dst, p, n);
	dst[n] = '\0';
	/* strings with NUL inside end there */
	text_sanitize(dst);
}

/* ---- field layouts ----
 * Each compound field's bytes are described once, by a *_io function that
 * walks them through a cursor: writing appends them, reading takes them
 * back in the same order. No byte offset is written anywhere else. */

/* A cursor over one field's bytes. Writing (out set) appends; reading
 * takes from d[0..n) and sets bad, leaving the value alone, when the
 * field is too short for what follows. */
struct fio {
	struct strbuf *out;       /* writing; NULL: reading */
	bool redact;              /* writing: free text (fio_text) redacted */
	const unsigned char *d;   /* reading */
	size_t n, off;
	bool bad;
};

static struct fio fio_writer(struct strbuf *f, bool redact)
{
	f->len = 0;
	return (struct fio){.out = f, .redact = redact};
}

static struct fio fio_reader(const unsigned char *d, size_t n)
{
	return (struct fio){.d = d, .n = n};
}

/* Reading: are k more bytes there? */
static bool fio_room(struct fio *c, size_t k)
{
	if (c->bad || c->n - c->off < k)
		c->bad = true;
	return !c->bad;
}

/* Reading: every byte of the field used, none missing. */
static bool fio_whole(const struct fio *c)
{
	return !c->bad && c->off == c->n;
}

/* A little-endian integer of bytes bytes. */
static void fio_le(struct fio *c, uint64_t *v, int bytes)
{
	if (c->out) {
		put_le(c->out, *v, bytes);
	} else if (fio_room(c, (size_t)bytes)) {
		*v = get_le(c->d + c->off, bytes);
		c->off += (size_t)bytes;
	}
}

static void fio_u8(struct fio *c, uint8_t *v)
{
	uint64_t x = *v;
	fio_le(c, &x, 1);
	*v = (uint8_t)x;
}

static void fio_u32(struct fio *c, uint32_t *v)
{
	uint64_t x = *v;
	fio_le(c, &x, 4);
	*v = (uint32_t)x;
}

static void fio_u64(struct fio *c, uint64_t *v)
{
	fio_le(c, v, 8);
}

static void fio_i64(struct fio *c, long long *v)
{
	uint64_t x = (uint64_t)*v;
	fio_le(c, &x, 8);
	*v = (long long)x;
}

/* A double as its IEEE-754 bit pattern. */
static void fio_f64(struct fio *c, double *v)
{
	uint64_t x;
	memcpy(&x, v, 8);
	fio_le(c, &x, 8);
	memcpy(v, &x, 8);
}

/* A string of at most 255 bytes, its length first (s holds len bytes). */
static void fio_short(struct fio *c, char *s, size_t len)
{
	size_t l;
	if (c->out) {
		l = strlen(s);
		if (l > 255)
			l = 255;
		sb_putc(c->out, (char)l);
		sb_put(c->out, s, l);
		return;
	}
	if (c->bad || c->off >= c->n || (l = c->d[c->off]) > c->n - c->off - 1) {
		c->bad = true;
		return;
	}
	get_str(s, len, c->d + c->off + 1, l);
	c->off += 1 + l;
}

/* The rest of the field as a string (s holds len bytes; read sanitised). */
static void fio_rest(struct fio *c, char *s, size_t len)
{
	if (c->out) {
		sb_puts(c->out, s);
	} else if (!c->bad) {
		get_str(s, len, c->d + c->off, c->n - c->off);
		c->off = c->n;
	}
}

/* The rest of the field as free text: written redacted when asked, read
 * into a new string as it is (*s owned by the caller). */
static void fio_text(struct fio *c, char **s)
{
	if (c->out) {
		char *t = c->redact ? redact_sql(*s) : NULL;
		sb_puts(c->out, t ? t : *s);
		free(t);
	} else if (!c->bad) {
		size_t n = c->n - c->off;
		*s = xmalloc(n + 1);
		memcpy(*s, c->d + c->off, n);
		(*s)[n] = '\0';
		c->off = c->n;
	}
}

/* S_COUNTER: name (short), value, reset epoch. */
static void counter_io(struct fio *c, char *name, size_t len, uint64_t *v, uint64_t *epoch)
{
	fio_short(c, name, len);
	fio_u64(c, v);
	fio_u64(c, epoch);
}

/* C_LOGDEV: u8 state, short note, u8 directories, each short role, path,
 * file system, device, what holds it; u8 devices, each short name. */
static void logdev_map_io(struct fio *c, struct logdev_map *m)
{
	uint8_t st = (uint8_t)m->state, nd = (uint8_t)m->ndirs, nv = (uint8_t)m->ndev;
	fio_u8(c, &st);
	fio_short(c, m->note, sizeof m->note);
	fio_u8(c, &nd);
	if (nd > LOGDIR_MAX)
		c->bad = true;
	for (int i = 0; i < nd && !c->bad; i++) {
		struct logdir *d = &m->dirs[i];
		fio_short(c, d->role, sizeof d->role);
		fio_short(c, d->path, sizeof d->path);
		fio_short(c, d->fs, sizeof d->fs);
		fio_short(c, d->dev, sizeof d->dev);
		fio_short(c, d->via, sizeof d->via);
	}
	fio_u8(c, &nv);
	if (nv > LOGDEV_MAX)
		c->bad = true;
	for (int i = 0; i < nv && !c->bad; i++)
		fio_short(c, m->dev[i], sizeof m->dev[i]);
	if (!c->out) {
		m->state = st < LDS__COUNT ? (enum logdev_state)st : LDS_UNSEEN;
		m->ndirs = nd;
		m->ndev = nv;
	}
}

/* S_HOSTLOAD: u8 flags (1: PSI), u64 PSI cpu some µs, u32 runnable, u32
 * CPUs, u32 load x 100, u32 server tasks read, u64 their run, delay (ns)
 * and slices, cumulative since the connection. */
static void hostload_sample_io(struct fio *c, struct hostload_sample *h)
{
	uint8_t fl = h->has_psi ? 1 : 0;
	fio_u8(c, &fl);
	fio_u64(c, &h->psi_cpu_some_us);
	fio_u32(c, &h->procs_running);
	fio_u32(c, &h->ncpu);
	fio_u32(c, &h->load1_x100);
	fio_u32(c, &h->srv_tasks);
	fio_u64(c, &h->srv_run_ns);
	fio_u64(c, &h->srv_delay_ns);
	fio_u64(c, &h->srv_slices);
	if (!c->out) {
		h->has_psi = fl & 1;
		h->read = true;
	}
}

/* S_LOGDEV: u8 devices, each short name, u8 fields the kernel gave (0: the
 * device was not in /proc/diskstats), 17 u64 counters in diskstats order. */
static void logdev_sample_io(struct fio *c, struct logdev_sample *ls)
{
	uint8_t n = (uint8_t)ls->n;
	fio_u8(c, &n);
	if (n > LOGDEV_MAX)
		c->bad = true;
	for (int i = 0; i < n && !c->bad; i++) {
		struct diskstat *d = &ls->d[i];
		uint8_t nf = (uint8_t)d->nfields;
		uint64_t *v[17] = {&d->rd_ios, &d->rd_merges, &d->rd_sectors, &d->rd_ticks, &d->wr_ios, &d->wr_merges,
				   &d->wr_sectors, &d->wr_ticks, &d->in_flight, &d->io_ticks, &d->time_in_queue,
				   &d->dc_ios, &d->dc_merges, &d->dc_sectors, &d->dc_ticks, &d->fl_ios, &d->fl_ticks};
		fio_short(c, d->name, sizeof d->name);
		fio_u8(c, &nf);
		for (int k = 0; k < 17; k++)
			fio_u64(c, v[k]);
		d->nfields = nf;
	}
	if (!c->out) {
		ls->n = n;
		ls->read = true;
	}
}

/* S_SETTING: name (short), value (the rest). */
static void setting_io(struct fio *c, struct setting *st)
{
	fio_short(c, st->name, sizeof st->name);
	fio_rest(c, st->value, sizeof st->value);
}

/* S_SCOPED: u8 count, then each: u8 scope (4 role, 5 database), name,
 * role or database, value (shorts). */
static void scoped_io(struct fio *c, int *count, struct scoped_setting *list)
{
	uint8_t n = (uint8_t)(*count < 0 ? 0 : *count > SCOPED_MAX ? SCOPED_MAX : *count);
	fio_u8(c, &n);
	*count = n > SCOPED_MAX ? SCOPED_MAX : n;
	for (int i = 0; i < *count && !c->bad; i++) {
		struct scoped_setting *x = &list[i];
		fio_u8(c, &x->scope);
		fio_short(c, x->name, sizeof x->name);
		fio_short(c, x->target, sizeof x->target);
		fio_short(c, x->value, sizeof x->value);
	}
}

/* S_DIGEST_META: u8 DGM_* flags, f64 samples per second, u64 digests
 * lost, source text. */
static void digest_meta_io(struct fio *c, uint8_t *flags, struct digest_set *ds)
{
	fio_u8(c, flags);
	fio_f64(c, &ds->sample_hz);
	fio_u64(c, &ds->lost);
	fio_rest(c, ds->source, sizeof ds->source);
}

/* S_DIGEST: key, schema (shorts), u32 counter mask with DGR_* bits, u64
 * epoch, f64 p95 ms, first seen, last seen, a u64 per counter in the mask,
 * then the text when DGR_TEXT says so. */
static void digest_row_io(struct fio *c, struct digest_row *r, uint32_t *mask)
{
	fio_short(c, r->key, sizeof r->key);
	fio_short(c, r->schema, sizeof r->schema);
	fio_u32(c, mask);
	fio_u64(c, &r->epoch);
	fio_f64(c, &r->p95_ms);
	fio_f64(c, &r->first_seen);
	fio_f64(c, &r->last_seen);
	for (int k = 0; k < DG__COUNT; k++)
		if (*mask >> k & 1)
			fio_u64(c, &r->c[k]);
	if (*mask & DGR_TEXT)
		fio_text(c, &r->text);
}

/* S_DIGEST_SAMPLES: key (short), the row's cumulative samples. */
static void digest_samples_io(struct fio *c, char *key, size_t len, uint64_t *samples)
{
	fio_short(c, key, len);
	fio_u64(c, samples);
}

/* S_DIGEST_HIST: key (short), u32 bucket count; the buckets follow
 * (dg_bucket_io). */
static void digest_hist_io(struct fio *c, char *key, size_t len, uint32_t *nb)
{
	fio_short(c, key, len);
	fio_u32(c, nb);
}

#define DG_BUCKET_BYTES 20
/* One bucket: u32 number, u64 upper bound ps, u64 cumulative count. */
static void dg_bucket_io(struct fio *c, struct dg_bucket *b)
{
	fio_u32(c, &b->num);
	fio_u64(c, &b->high_ps);
	fio_u64(c, &b->count);
}

/* S_DIGEST_SAMPLING: u64 rounds, u32 sessions. */
static void digest_sampling_io(struct fio *c, uint64_t *rounds, uint32_t *sessions)
{
	fio_u64(c, rounds);
	fio_u32(c, sessions);
}

/* S_DIGEST_SPLIT: u32 slices, u32 the slice read. */
static void digest_split_io(struct fio *c, uint32_t *n, uint32_t *k)
{
	fio_u32(c, n);
	fio_u32(c, k);
}

/* S_LOCK_META: u8 status, u32 sessions waiting, f64 lock query ms, note. */
static void lock_meta_io(struct fio *c, uint8_t *status, uint32_t *waiting, double *ms, char *note, size_t len)
{
	fio_u8(c, status);
	fio_u32(c, waiting);
	fio_f64(c, ms);
	fio_rest(c, note, len);
}

/* S_LOCK_SESSION: i64 id, f64 seconds in its state, transaction age,
 * seconds waiting, u8 LKS_* flags, user, state (shorts), then the
 * statement when LKS_HAS_QUERY says so. */
static void lock_session_io(struct fio *c, struct lock_session *x, uint8_t *flags)
{
	fio_i64(c, &x->id);
	fio_f64(c, &x->state_s);
	fio_f64(c, &x->trx_age_s);
	fio_f64(c, &x->wait_s);
	fio_u8(c, flags);
	fio_short(c, x->user, sizeof x->user);
	fio_short(c, x->state, sizeof x->state);
	if (*flags & LKS_HAS_QUERY)
		fio_text(c, &x->query);
}

/* S_LOCK_IDENT: i64 session id, backend start, transaction start,
 * statement start (us), query id, trx id (short), trx started (rest). */
static void lock_ident_io(struct fio *c, long long *id, struct session_ident *si)
{
	fio_i64(c, id);
	fio_i64(c, &si->start_us);
	fio_i64(c, &si->xact_us);
	fio_i64(c, &si->stmt_us);
	fio_i64(c, &si->query_id);
	fio_short(c, si->trx_id, sizeof si->trx_id);
	fio_rest(c, si->trx_started, sizeof si->trx_started);
}

/* S_LOCK_EDGE: i64 waiter id, i64 blocker id, u8 LKE_* flags, object,
 * lock type, requested, held (shorts), lock data (rest). */
static void lock_edge_io(struct fio *c, long long *waiter, long long *blocker, uint8_t *flags, struct lock_edge *e)
{
	fio_i64(c, waiter);
	fio_i64(c, blocker);
	fio_u8(c, flags);
	fio_short(c, e->object, sizeof e->object);
	fio_short(c, e->lock_type, sizeof e->lock_type);
	fio_short(c, e->requested, sizeof e->requested);
	fio_short(c, e->held, sizeof e->held);
	fio_rest(c, e->lock_data, sizeof e->lock_data);
}

/* S_WAIT_META: u8 source, f64 hz, u32 rounds, f64 period ms, f64 cost ms,
 * note. */
static void wait_meta_io(struct fio *c, uint8_t *source, uint32_t *rounds, struct wait_set *w)
{
	fio_u8(c, source);
	fio_f64(c, &w->hz);
	fio_u32(c, rounds);
	fio_f64(c, &w->period_ms);
	fio_f64(c, &w->cost_ms);
	fio_rest(c, w->note, sizeof w->note);
}

/* S_WAIT: u64 count, u64 time ns, event name (rest). */
static void wait_row_io(struct fio *c, struct wait_row *row)
{
	fio_u64(c, &row->count);
	fio_u64(c, &row->time_ns);
	fio_rest(c, row->name, sizeof row->name);
}

static double get_f64(const unsigned char *p)
{
	uint64_t v = get_le(p, 8);
	double d;
	memcpy(&d, &v, sizeof d);
	return d;
}

/* Free text as it goes into the file: redacted when asked. */
static void put_text(struct recorder *r, struct strbuf *b, int tag, const char *s)
{
	if (r->redact) {
		char *t = redact_sql(s);
		put_str(b, tag, t);
		free(t);
	} else {
		put_str(b, tag, s);
	}
}

/* ---- the records' single-valued fields ----
 * A table per record type says which member of which struct each tag
 * holds and how; the writer walks it in order, the reader looks the tag
 * up in it. Numbers are 8-byte fields. */
enum sf_kind {
	SF_STR,      /* text, plain */
	SF_TEXT,     /* free text: redacted when asked; not written when empty */
	SF_F64,      /* double; read only from an 8-byte field */
	SF_INT,      /* signed integer of size bytes; a field of another length reads 0 */
	SF_UINT,     /* unsigned integer of size bytes; likewise */
	SF_BOOL,     /* bool, 0 / 1; read only from an 8-byte field */
	SF_ENUM,     /* enum: a value above max reads as dflt; likewise 0 */
};

struct scalar_field {
	int tag;
	enum sf_kind kind;
	size_t off, size;   /* the member in the struct */
	unsigned max, dflt; /* SF_ENUM */
};

#define SF(tag, kind, type, member) {tag, kind, offsetof(type, member), sizeof(((type *)0)->member), 0, 0}
#define SF_E(tag, type, member, max, dflt) \
	{tag, SF_ENUM, offsetof(type, member), sizeof(((type *)0)->member), max, dflt}

static const struct scalar_field header_fields[] = {
	SF(H_ENGINE, SF_STR, struct rec_header, engine),
	SF(H_VERSION, SF_STR, struct rec_header, server_version),
	SF(H_HOST, SF_STR, struct rec_header, host),
	SF(H_DBTOP, SF_STR, struct rec_header, dbtop_version),
	SF(H_START, SF_F64, struct rec_header, start_wall),
	SF(H_INTERVAL, SF_F64, struct rec_header, interval),
	SF(H_REDACTED, SF_BOOL, struct rec_header, redacted),
};
/* an incident file's (docs/incidents.md), written only when set */
static const struct scalar_field header_incident_fields[] = {
	SF(H_OPEN_AT, SF_F64, struct rec_header, open_at),
	SF(H_TRIGGER, SF_STR, struct rec_header, trigger),
};

/* (C_CONN_GEN before them, C_FLAGS between the two, C_NOTE after) */
static const struct scalar_field caps_head_fields[] = {
	SF_E(C_ENGINE, struct caps, engine, ENGINE_POSTGRESQL, ENGINE_UNKNOWN),
	SF_E(C_FLAVOUR, struct caps, flavour, FLAVOUR_POSTGRESQL, FLAVOUR_UNKNOWN),
	SF(C_VERSION, SF_STR, struct caps, version),
	SF(C_VERSION_NUM, SF_INT, struct caps, version_num),
};
static const struct scalar_field caps_tail_fields[] = {
	SF(C_REDO_SOURCE, SF_STR, struct caps, redo_fsync_source),
	SF(C_COMMIT_SOURCE, SF_STR, struct caps, commit_source),
	SF(C_PGSS, SF_INT, struct caps, pgss_version),
	SF(C_PGWS, SF_INT, struct caps, pg_wait_sampling),
	SF_E(C_WAL_STATS, struct caps, wal_stats, WAL_STAT_IO, WAL_NONE),
};

/* (the counters, settings, notes and sets follow them) */
static const struct scalar_field sample_fields[] = {
	SF(S_MONO, SF_F64, struct sample, mono),
	SF(S_WALL, SF_F64, struct sample, wall),
	SF_E(S_STATE, struct sample, state, STATE_STALLED, STATE_DOWN),
	SF(S_ERROR, SF_TEXT, struct sample, error),
	SF(S_RETRY, SF_F64, struct sample, retry_in),
	SF(S_CONN_GEN, SF_UINT, struct sample, conn_gen),
	SF(S_QUERY_MS, SF_F64, struct sample, query_ms),
	SF(S_NQUERIES, SF_UINT, struct sample, nqueries),
	SF(S_UPTIME, SF_F64, struct sample, uptime_s),
};

#define NFIELDS(t) (sizeof t / sizeof t[0])

/* An integer member of size bytes, as 64 bits (signed: sign-extended). */
static uint64_t sf_get_int(const void *p, size_t size, bool is_signed)
{
	if (size == 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		return v;
	}
	if (size == 4) {
		uint32_t v;
		memcpy(&v, p, 4);
		return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	return *(const unsigned char *)p;   /* (bool) */
}

/* Store v into an integer member of size bytes (its low bytes). */
static void sf_set_int(void *p, size_t size, uint64_t v)
{
	if (size == 8) {
		memcpy(p, &v, 8);
	} else if (size == 4) {
		uint32_t x = (uint32_t)v;
		memcpy(p, &x, 4);
	}
}

/* Append the fields of table tab (n of them) from obj. */
static void put_scalars(struct recorder *r, struct strbuf *b, const struct scalar_field *tab, size_t n,
			const void *obj)
{
	for (size_t i = 0; i < n; i++) {
		const struct scalar_field *f = &tab[i];
		const char *p = (const char *)obj + f->off;
		switch (f->kind) {
		case SF_STR: put_str(b, f->tag, p); break;
		case SF_TEXT: if (p[0]) put_text(r, b, f->tag, p); break;
		case SF_F64: put_f64(b, f->tag, *(const double *)(const void *)p); break;
		case SF_INT: case SF_ENUM: put_u64(b, f->tag, sf_get_int(p, f->size, true)); break;
		case SF_UINT: put_u64(b, f->tag, sf_get_int(p, f->size, false)); break;
		case SF_BOOL: put_u64(b, f->tag, *(const bool *)(const void *)p ? 1 : 0); break;
		}
	}
}

/* Field tag (d, n bytes) into obj when table tab has it; false if not. */
static bool get_scalar(const struct scalar_field *tab, size_t nt, void *obj, int tag, const unsigned char *d,
		       size_t n)
{
	for (size_t i = 0; i < nt; i++) {
		const struct scalar_field *f = &tab[i];
		char *p = (char *)obj + f->off;
		uint64_t v = n == 8 ? get_le(d, 8) : 0;
		if (f->tag != tag)
			continue;
		switch (f->kind) {
		case SF_STR: case SF_TEXT: get_str(p, f->size, d, n); break;
		case SF_F64: if (n == 8) *(double *)(void *)p = get_f64(d); break;
		case SF_INT: case SF_UINT: sf_set_int(p, f->size, v); break;
		case SF_BOOL: if (n == 8) *(bool *)(void *)p = v != 0; break;
		case SF_ENUM: sf_set_int(p, f->size, v <= f->max ? v : f->dflt); break;
		}
		return true;
	}
	return false;
}

/* Write one framed record: sync, length, type, payload, CRC. */
static int write_record(struct recorder *r, int type, const struct strbuf *payload,
			char *err, size_t errlen)
{
	struct strbuf f;
	uint32_t crc;
	unsigned char t = (unsigned char)type;
	size_t n = payload->len;
	int rc = 0;

	if (!r->f) {
		str_copy(err, errlen, "recording is closed");
		return -1;
	}
	sb_init(&f);
	put_le(&f, REC_SYNC, 4);
	put_le(&f, n, 4);
	sb_putc(&f, (char)t);
	if (n)
		sb_put(&f, payload->s, n);
	crc = rec_crc32(0, f.s + 4, 5 + n);
	put_le(&f, crc, 4);
	if (fwrite(f.s, 1, f.len, r->f) != f.len || fflush(r->f) != 0) {
		str_printf(err, errlen, "cannot write recording %s: %s", r->path, strerror(errno));
		rc = -1;
	} else {
		r->records++;
		r->bytes += f.len;
	}
	sb_free(&f);
	return rc;
}

/* Open path for a new recording: a new regular file, created 0600 with
 * O_EXCL. Nothing that exists is written: not a file (anyone's, which a
 * sticky directory would let its owner read), not a FIFO or device, not
 * through a symbolic link (dangling or not). Returns the descriptor, or -1
 * with a message in err. */
static int open_private(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = errno;
		if (e == EEXIST && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			str_printf(err, errlen, "cannot create recording %s: it is a symbolic link; "
				   "refusing to write through it", path);
		else if (e == EEXIST)
			str_printf(err, errlen, "cannot create recording %s: it exists (a recording is always a new "
				   "file: remove it or choose another name)", path);
		else
			str_printf(err, errlen, "cannot create recording %s: %s", path, strerror(e));
		return -1;
	}
	/* the mode the umask may have narrowed, never widened */
	if (fchmod(fd, 0600) < 0) {
		int e = errno;
		close(fd);
		unlink(path);
		str_printf(err, errlen, "cannot create recording %s: %s", path, strerror(e));
		return -1;
	}
	return fd;
}

int rec_open_write(struct recorder *r, const char *path, const struct rec_header *h,
		   bool redact, char *err, size_t errlen)
{
	int fd = open_private(path, err, errlen);
	if (fd < 0) {
		memset(r, 0, sizeof *r);
		return -1;
	}
	return rec_open_write_fd(r, fd, path, h, redact, err, errlen);
}

int rec_open_write_fd(struct recorder *r, int fd, const char *path, const struct rec_header *h,
		      bool redact, char *err, size_t errlen)
{
	struct strbuf b;
	int rc;

	memset(r, 0, sizeof *r);
	str_copy(r->path, sizeof r->path, path);
	r->redact = redact;
	r->f = fdopen(fd, "wb");
	if (!r->f) {
		close(fd);
		str_printf(err, errlen, "cannot open recording %s: %s", path, strerror(errno));
		return -1;
	}
	sb_init(&b);
	sb_put(&b, REC_MAGIC, 8);
	put_le(&b, REC_MAJOR, 2);
	put_le(&b, REC_MINOR, 2);
	put_le(&b, 0, 4);
	if (fwrite(b.s, 1, b.len, r->f) != b.len) {
		str_printf(err, errlen, "cannot write recording %s: %s", path, strerror(errno));
		sb_free(&b);
		rec_close(r);
		return -1;
	}
	r->bytes = b.len;
	b.len = 0;
	struct rec_header hh = *h;
	hh.redacted = redact;
	put_scalars(r, &b, header_fields, NFIELDS(header_fields), &hh);
	if (hh.open_at > 0 || hh.trigger[0])
		put_scalars(r, &b, header_incident_fields, NFIELDS(header_incident_fields), &hh);
	rc = write_record(r, REC_HEADER, &b, err, errlen);
	sb_free(&b);
	if (rc < 0)
		rec_close(r);
	return rc;
}


int rec_write_caps(struct recorder *r, const struct caps *c, uint32_t conn_gen,
		   char *err, size_t errlen)
{
	struct strbuf b;
	uint64_t flags = 0;
	int bit = 0, i, rc;

	sb_init(&b);
	put_u64(&b, C_CONN_GEN, conn_gen);
	put_scalars(r, &b, caps_head_fields, NFIELDS(caps_head_fields), c);
#define SET_FLAG(f) flags |= (uint64_t)(c->f ? 1 : 0) << bit++;
	CAPS_FLAGS(SET_FLAG)
#undef SET_FLAG
	put_u64(&b, C_FLAGS, flags);
	put_scalars(r, &b, caps_tail_fields, NFIELDS(caps_tail_fields), c);
	for (i = 0; i < c->notes.n; i++)
		put_text(r, &b, C_NOTE, c->notes.msg[i]);
	if (c->logdev.state != LDS_NONE) {
		struct strbuf f;
		struct logdev_map m = c->logdev;
		sb_init(&f);
		struct fio io = fio_writer(&f, false);
		logdev_map_io(&io, &m);
		put_field(&b, C_LOGDEV, f.s, f.len);
		sb_free(&f);
	}
	rc = write_record(r, REC_CAPS, &b, err, errlen);
	sb_free(&b);
	return rc;
}

/* The slot of key in the map (growing it); never NULL. */
static struct dg_slot *dgmap_slot(struct rec_dgmap *m, const char *key)
{
	if (!m->m.val_size)
		hmap_init(&m->m, false, sizeof(struct dg_slot), 256);
	return hmap_put(&m->m, key, NULL);
}

static void dgmap_free(struct rec_dgmap *m)
{
	if (!m)
		return;
	hmap_free(&m->m);
	free(m);
}

/* Append the sample's digest rows: after a (re)connection all of them,
 * then only rows whose counters changed; texts once per digest. True
 * when a row was left out as unchanged. */
static bool put_digest_rows(struct recorder *r, struct strbuf *b, struct strbuf *f, const struct digest_set *ds)
{
	bool skipped = false;
	for (size_t i = 0; i < ds->n; i++) {
		const struct digest_row *row = &ds->rows[i];
		struct dg_slot *sl = dgmap_slot(r->dg, row->key);
		uint64_t fp = hash_bytes(HASH_SEED, row->c, sizeof row->c);
		uint32_t have = row->have;
		bool text;
		fp = hash_bytes(fp, &row->epoch, sizeof row->epoch);
		fp = hash_bytes(fp, &row->samples, sizeof row->samples);
		fp = hash_bytes(fp, &have, sizeof have) | 1;   /* never 0: 0 means "not written" */
		text = row->text && !sl->text;
		if (sl->fp == fp && !text) {
			skipped = true;
			continue;
		}
		sl->fp = fp;
		uint32_t mask = have | (text ? DGR_TEXT : 0) | (row->own ? DGR_OWN : 0);
		struct fio c = fio_writer(f, r->redact);
		digest_row_io(&c, (struct digest_row *)row, &mask);
		if (text)
			sl->text = true;
		put_field(b, S_DIGEST, f->s, f->len);
		if (ds->sampled) {
			uint64_t samples = row->samples;
			c = fio_writer(f, r->redact);
			digest_samples_io(&c, (char *)row->key, sizeof row->key, &samples);
			put_field(b, S_DIGEST_SAMPLES, f->s, f->len);
		}
	}
	return skipped;
}

/* Append the sample's digests: the rows, every latency histogram read
 * (they are few; empty ones too), the set's figures, its sampling and
 * slice. */
static void put_digests(struct recorder *r, struct strbuf *b, const struct sample *s)
{
	struct digest_set *ds = s->digests;   /* (written, never changed) */
	struct strbuf f;
	struct fio c;
	if (!r->dg || r->dg_gen != s->conn_gen) {
		dgmap_free(r->dg);
		r->dg = xcalloc(1, sizeof *r->dg);
		r->dg_gen = s->conn_gen;
	}
	sb_init(&f);
	bool skipped = put_digest_rows(r, b, &f, ds);
	r->dg_whole = !skipped;
	for (size_t i = 0; i < ds->nhist; i++) {
		struct dg_hist *h = &ds->hist[i];
		uint32_t nb = (uint32_t)h->n;
		c = fio_writer(&f, r->redact);
		digest_hist_io(&c, h->key, sizeof h->key, &nb);
		for (size_t j = 0; j < h->n; j++)
			dg_bucket_io(&c, &h->b[j]);
		put_field(b, S_DIGEST_HIST, f.s, f.len);
	}
	uint8_t flags = (uint8_t)((ds->partial || skipped ? DGM_PARTIAL : 0) | (ds->sampled ? DGM_SAMPLED : 0) |
				  (ds->have_lost ? DGM_LOST : 0) | (ds->estimates_only ? DGM_ESTIMATES : 0));
	c = fio_writer(&f, r->redact);
	digest_meta_io(&c, &flags, ds);
	put_field(b, S_DIGEST_META, f.s, f.len);
	if (ds->sampled || ds->est_rounds) {
		/* a set of exact digests: the looks behind its "s:" estimates */
		uint64_t rounds = ds->sampled ? ds->rounds : ds->est_rounds;
		uint32_t sessions = ds->sampled ? ds->sessions : 0;
		c = fio_writer(&f, r->redact);
		digest_sampling_io(&c, &rounds, &sessions);
		put_field(b, S_DIGEST_SAMPLING, f.s, f.len);
	}
	if (ds->split_n) {
		uint32_t n = ds->split_n, k = ds->split_k;
		c = fio_writer(&f, r->redact);
		digest_split_io(&c, &n, &k);
		put_field(b, S_DIGEST_SPLIT, f.s, f.len);
	}
	sb_free(&f);
}

/* The sample's lock snapshot: its status, then every session and edge
 * (analysis is recomputed on reading). Statements are redacted when asked. */
static void put_locks(struct recorder *r, struct strbuf *b, struct lock_set *ls)
{
	struct strbuf f;
	struct fio c;
	uint8_t status = (uint8_t)ls->status;
	uint32_t waiting = ls->waiting;
	sb_init(&f);
	c = fio_writer(&f, r->redact);
	lock_meta_io(&c, &status, &waiting, &ls->query_ms, ls->note, sizeof ls->note);
	put_field(b, S_LOCK_META, f.s, f.len);
	if (ls->age_s > 0 || ls->gate_age_s > 0) {
		c = fio_writer(&f, false);
		fio_f64(&c, &ls->age_s);
		fio_f64(&c, &ls->gate_age_s);
		put_field(b, S_LOCK_AGE, f.s, f.len);
	}
	for (size_t i = 0; i < ls->ns; i++) {
		struct lock_session *x = &ls->s[i];
		uint8_t flags = (uint8_t)((x->query_is_last ? LKS_QUERY_LAST : 0) | (x->query ? LKS_HAS_QUERY : 0));
		c = fio_writer(&f, r->redact);
		lock_session_io(&c, x, &flags);
		put_field(b, S_LOCK_SESSION, f.s, f.len);
		if (x->ident.known) {
			c = fio_writer(&f, r->redact);
			lock_ident_io(&c, &x->id, &x->ident);
			put_field(b, S_LOCK_IDENT, f.s, f.len);
		}
	}
	for (size_t k = 0; k < ls->ne; k++) {
		struct lock_edge *e = &ls->e[k];
		long long waiter = ls->s[e->waiter].id, blocker = ls->s[e->blocker].id;
		uint8_t flags = e->soft ? LKE_SOFT : 0;
		c = fio_writer(&f, r->redact);
		lock_edge_io(&c, &waiter, &blocker, &flags, e);
		put_field(b, S_LOCK_EDGE, f.s, f.len);
	}
	sb_free(&f);
}

/* S_SESSION flags */
#define SS_QUERY_LAST 1u
#define SS_HAS_QUERY 2u
#define SS_SELF 4u
#define SS_IDENT 8u
/* the tags docs/recording.md gives them */
_Static_assert(S_SESSION_META == 28 && S_SESSION == 29, "session fields are 28 and 29");

/* S_SESSION_META: u8 status, f64 query ms, f64 age (s), note (the rest). */
static void session_meta_io(struct fio *c, uint8_t *status, struct session_set *ss)
{
	fio_u8(c, status);
	fio_f64(c, &ss->query_ms);
	fio_f64(c, &ss->age_s);
	fio_rest(c, ss->note, sizeof ss->note);
}

/* S_SESSION: i64 id, u8 class, u8 SS_* flags, f64 seconds in its state,
 * transaction age, statement age, i64 first blocker, u32 blockers, i64
 * backend start, transaction start, statement start (us), query id; user,
 * db, client, application, type, state, wait, digest, trx id, trx started
 * (shorts); then the statement when SS_HAS_QUERY says so. */
static void session_io(struct fio *c, struct session *x, uint8_t *cls, uint8_t *flags)
{
	uint32_t nb = (uint32_t)x->nblockers;
	fio_i64(c, &x->id);
	fio_u8(c, cls);
	fio_u8(c, flags);
	fio_f64(c, &x->state_s);
	fio_f64(c, &x->trx_age_s);
	fio_f64(c, &x->query_s);
	fio_i64(c, &x->blocked_by);
	fio_u32(c, &nb);
	x->nblockers = (int)nb;
	fio_i64(c, &x->ident.start_us);
	fio_i64(c, &x->ident.xact_us);
	fio_i64(c, &x->ident.stmt_us);
	fio_i64(c, &x->ident.query_id);
	fio_short(c, x->user, sizeof x->user);
	fio_short(c, x->db, sizeof x->db);
	fio_short(c, x->client, sizeof x->client);
	fio_short(c, x->app, sizeof x->app);
	fio_short(c, x->type, sizeof x->type);
	fio_short(c, x->state, sizeof x->state);
	fio_short(c, x->wait, sizeof x->wait);
	fio_short(c, x->digest, sizeof x->digest);
	fio_short(c, x->ident.trx_id, sizeof x->ident.trx_id);
	fio_short(c, x->ident.trx_started, sizeof x->ident.trx_started);
	if (*flags & SS_HAS_QUERY)
		fio_text(c, &x->query);
}

/* The sample's session list: one S_SESSION_META, then one S_SESSION per
 * session (docs/recording.md, fields 28 and 29). Statements are redacted
 * when asked. */
static void put_sessions(struct recorder *r, struct strbuf *b, const struct session_set *ss)
{
	struct strbuf f;
	struct session_set meta = *ss;
	uint8_t status = (uint8_t)ss->status;
	sb_init(&f);
	struct fio c = fio_writer(&f, r->redact);
	session_meta_io(&c, &status, &meta);
	put_field(b, S_SESSION_META, f.s, f.len);
	for (size_t i = 0; i < ss->n; i++) {
		struct session x = ss->s[i];
		uint8_t cls = (uint8_t)x.cls;
		uint8_t flags = (uint8_t)((x.query_is_last ? SS_QUERY_LAST : 0) | (x.query ? SS_HAS_QUERY : 0) |
					  (x.self ? SS_SELF : 0) | (x.ident.known ? SS_IDENT : 0));
		c = fio_writer(&f, r->redact);
		session_io(&c, &x, &cls, &flags);
		put_field(b, S_SESSION, f.s, f.len);
	}
	if (ss->idle_unread)
		put_u64(b, S_SESSION_IDLE, ss->idle_unread);
	sb_free(&f);
}

/* S_TUNING: u8 TSNAP_* flags, f64 ttl (s), why, note (shorts), u8 rows,
 * then per row: name, now, what a sets (shorts), u8 TSROW_* flags, the
 * value before and the value dbtop set (shorts), f64 when it was set, the
 * revert token (short); then for each row flagged TSROW_SCOPED, in order:
 * u8 its scope (TK_PG_ROLE / TK_PG_DATABASE), its role or database (short). */
static void tuning_io(struct fio *c, struct tune_snap *t)
{
	uint8_t n = (uint8_t)(t->n > TUNABLES_MAX ? TUNABLES_MAX : t->n < 0 ? 0 : t->n);
	fio_u8(c, &t->flags);
	fio_f64(c, &t->ttl);
	fio_short(c, t->why, sizeof t->why);
	fio_short(c, t->note, sizeof t->note);
	fio_u8(c, &n);
	t->n = n > TUNABLES_MAX ? TUNABLES_MAX : n;
	for (int i = 0; i < t->n && !c->bad; i++) {
		struct tune_snap_row *r = &t->row[i];
		fio_short(c, r->name, sizeof r->name);
		fio_short(c, r->now, sizeof r->now);
		fio_short(c, r->to, sizeof r->to);
		fio_u8(c, &r->flags);
		fio_short(c, r->was, sizeof r->was);
		fio_short(c, r->val, sizeof r->val);
		fio_f64(c, &r->since);
		fio_short(c, r->undo, sizeof r->undo);
	}
	/* the rows changed for one role or database: their scope and target,
	 * after the rows (written only when there is one) */
	for (int i = 0; i < t->n && !c->bad; i++) {
		struct tune_snap_row *r = &t->row[i];
		if (!(r->flags & TSROW_SCOPED))
			continue;
		fio_u8(c, &r->scope);
		fio_short(c, r->target, sizeof r->target);
	}
}

static void put_tuning(struct strbuf *b, const struct tune_snap *t)
{
	struct strbuf f;
	struct tune_snap x = *t;
	sb_init(&f);
	struct fio c = fio_writer(&f, false);
	tuning_io(&c, &x);
	put_field(b, S_TUNING, f.s, f.len);
	sb_free(&f);
}

/* S_TUNING read back; a damaged field leaves the sample without one. */
static void read_tuning(struct sample *s, const unsigned char *d, size_t n)
{
	struct fio c = fio_reader(d, n);
	struct tune_snap *t = xcalloc(1, sizeof *t);
	tuning_io(&c, t);
	if (!fio_whole(&c)) {
		free(t);
		return;
	}
	free(s->tuning);
	s->tuning = t;
}

/* One event of S_EVENTS: u8 kind, u8 severity, u8 flags (1: dbtop's own,
 * 2: who is known, 4 / 8: a setting changed for one role / one database,
 * named in user),
 * f64 wall, f64 since, i64 session, u32 waiters, then name, old, new,
 * user and detail (shorts; the detail redacted under --redact). */
static void event_io(struct fio *c, struct event *e)
{
	uint8_t kind = (uint8_t)e->kind, sev = (uint8_t)e->severity;
	uint8_t flags = (uint8_t)((e->own ? 1 : 0) | (e->who_known ? 2 : 0) | (e->scope == TK_PG_ROLE ? 4 : 0) |
				  (e->scope == TK_PG_DATABASE ? 8 : 0));
	uint32_t w = (uint32_t)(e->waiters < 0 ? 0 : e->waiters);
	fio_u8(c, &kind);
	fio_u8(c, &sev);
	fio_u8(c, &flags);
	fio_f64(c, &e->wall);
	fio_f64(c, &e->since);
	fio_i64(c, &e->session);
	fio_u32(c, &w);
	fio_short(c, e->name, sizeof e->name);
	fio_short(c, e->old, sizeof e->old);
	fio_short(c, e->new, sizeof e->new);
	fio_short(c, e->user, sizeof e->user);
	if (c->out && c->redact) {
		char *t = redact_sql(e->detail);
		fio_short(c, t, strlen(t) + 1);
		free(t);
	} else {
		fio_short(c, e->detail, sizeof e->detail);
	}
	e->kind = kind > 0 && kind < EV__COUNT ? (enum event_kind)kind : EV__COUNT;
	e->severity = sev <= SEV_CRIT ? (enum finding_severity)sev : SEV_INFO;
	e->own = flags & 1;
	e->who_known = flags & 2;
	e->scope = flags & 4 ? TK_PG_ROLE : flags & 8 ? TK_PG_DATABASE : 0;
	e->waiters = w > 1000000 ? 1000000 : (int)w;
}

/* S_EVENTS: the count, then each event; written for every sample of a run
 * that keeps events (an empty list too: "none this interval"). */
static void put_events(struct recorder *r, struct strbuf *b, const struct event_list *el)
{
	struct strbuf f;
	uint32_t n = (uint32_t)el->n;
	sb_init(&f);
	struct fio c = fio_writer(&f, r->redact);
	fio_u32(&c, &n);
	for (size_t i = 0; i < el->n; i++) {
		struct event e = el->ev[i];
		event_io(&c, &e);
	}
	put_field(b, S_EVENTS, f.s, f.len);
	sb_free(&f);
}

/* S_EVENTS read back; a damaged field keeps the events read before the
 * damage. Events of a kind this version does not know are skipped. */
static void read_events(struct sample *s, const unsigned char *d, size_t n)
{
	struct fio c = fio_reader(d, n);
	uint32_t cnt = 0;
	fio_u32(&c, &cnt);
	if (c.bad)
		return;
	event_list_free(s->events);
	s->events = xcalloc(1, sizeof *s->events);
	for (uint32_t i = 0; i < cnt; i++) {
		struct event e;
		memset(&e, 0, sizeof e);
		event_io(&c, &e);
		if (c.bad)
			break;
		if (e.kind != EV__COUNT)
			event_list_add(s->events, &e);
	}
}

/* S_REPL flags */
#define RPF_HIDDEN 1u       /* PostgreSQL: rows with their columns hidden */
#define RPF_VARS 2u         /* semi-sync variables read in this sample */
#define RPF_SOURCE 4u       /* rpl_semi_sync_source_* names */

/* One standby of S_REPL. */
static void repl_standby_io(struct fio *c, struct repl_standby *x)
{
	long long v[4] = {x->sent_b, x->write_b, x->flush_b, x->replay_b};
	fio_short(c, x->name, sizeof x->name);
	fio_short(c, x->addr, sizeof x->addr);
	fio_short(c, x->state, sizeof x->state);
	fio_short(c, x->sync_state, sizeof x->sync_state);
	for (int i = 0; i < 4; i++)
		fio_i64(c, &v[i]);
	x->sent_b = v[0], x->write_b = v[1], x->flush_b = v[2], x->replay_b = v[3];
	fio_f64(c, &x->write_ms);
	fio_f64(c, &x->flush_ms);
	fio_f64(c, &x->replay_ms);
	fio_f64(c, &x->reply_s);
}

/* S_REPL: u8 kind (1 PostgreSQL standbys, 2 semi-sync), u8 RPF_* flags,
 * f64 the read's server ms (-1: not known); standbys: u32 beyond the
 * list, u8 count, each repl_standby_io; semi-sync: u8 status (0 OFF, 1
 * ON, 2 not there), u8 enabled (0, 1, 2 not known), i64 timeout ms, i64
 * replicas to wait for (-1: not known), short wait point, u32 counters
 * read (bit per enum ss_id), u8 count, that many u64 in enum ss_id order. */
static void repl_io(struct fio *c, struct repl *r)
{
	uint8_t kind = (uint8_t)r->kind, flags = (uint8_t)((r->hidden ? RPF_HIDDEN : 0) | (r->vars_fresh ? RPF_VARS : 0) |
							   (r->ss_source ? RPF_SOURCE : 0));
	fio_u8(c, &kind);
	fio_u8(c, &flags);
	fio_f64(c, &r->query_ms);
	r->kind = kind == REPL_PG ? REPL_PG : kind == REPL_SEMISYNC ? REPL_SEMISYNC : REPL_NONE;
	r->hidden = flags & RPF_HIDDEN;
	r->vars_fresh = flags & RPF_VARS;
	r->ss_source = flags & RPF_SOURCE;
	if (r->kind == REPL_PG) {
		uint32_t more = (uint32_t)r->more;
		uint8_t n = (uint8_t)r->n;
		fio_u32(c, &more);
		fio_u8(c, &n);
		r->more = (int)(more > 1000000 ? 1000000 : more);
		r->n = n > REPL_MAX ? REPL_MAX : n;
		for (int i = 0; i < r->n && !c->bad; i++)
			repl_standby_io(c, &r->s[i]);
		return;
	}
	uint8_t st = (uint8_t)(r->ss_status < 0 ? 2 : r->ss_status), en = (uint8_t)(r->enabled < 0 ? 2 : r->enabled);
	long long to = r->timeout_ms, wc = r->wait_count;
	uint8_t k = SS__COUNT;
	fio_u8(c, &st);
	fio_u8(c, &en);
	fio_i64(c, &to);
	fio_i64(c, &wc);
	fio_short(c, r->wait_point, sizeof r->wait_point);
	fio_u32(c, &r->ss_have);
	fio_u8(c, &k);
	r->ss_status = st > 1 ? -1 : st;
	r->enabled = en > 1 ? -1 : en;
	r->timeout_ms = to;
	r->wait_count = wc;
	for (int i = 0; i < k && !c->bad; i++) {
		uint64_t v = i < SS__COUNT ? r->ss[i] : 0;
		fio_u64(c, &v);
		if (i < SS__COUNT)
			r->ss[i] = v;
	}
	r->ss_have &= (1u << SS__COUNT) - 1;
}

static void put_repl(struct strbuf *b, const struct repl *r)
{
	struct strbuf f;
	struct repl x = *r;
	sb_init(&f);
	struct fio c = fio_writer(&f, false);
	repl_io(&c, &x);
	put_field(b, S_REPL, f.s, f.len);
	sb_free(&f);
}

/* S_REPL; a damaged field reads as not read. */
static void read_repl(struct sample *s, const unsigned char *d, size_t n)
{
	struct fio c = fio_reader(d, n);
	struct repl r;
	memset(&r, 0, sizeof r);
	r.ss_status = r.enabled = -1;   /* what a standbys field does not carry: not known */
	r.timeout_ms = r.wait_count = -1;
	repl_io(&c, &r);
	if (c.bad || r.kind == REPL_NONE)
		return;
	s->repl = r;
}

/* The wait profile: its source and sampling figures, then one field per
 * event. */
static void put_waits(struct strbuf *b, struct wait_set *w)
{
	struct strbuf f;
	struct fio c;
	uint8_t source = (uint8_t)w->source;
	uint32_t rounds = w->rounds;
	sb_init(&f);
	c = fio_writer(&f, false);
	wait_meta_io(&c, &source, &rounds, w);
	put_field(b, S_WAIT_META, f.s, f.len);
	for (size_t i = 0; i < w->n; i++) {
		c = fio_writer(&f, false);
		wait_row_io(&c, &w->rows[i]);
		put_field(b, S_WAIT, f.s, f.len);
	}
	sb_free(&f);
}

/* The counters present and the settings read. */
static void put_counters(struct strbuf *b, struct strbuf *f, const struct sample *s)
{
	struct fio c;
	for (int i = 0; i < CTR__COUNT; i++) {
		char nm[256];
		uint64_t v = s->c[i].v, epoch = s->c[i].epoch;
		if (!s->c[i].present)
			continue;
		str_copy(nm, sizeof nm, ctr_name(i));
		c = fio_writer(f, false);
		counter_io(&c, nm, sizeof nm, &v, &epoch);
		put_field(b, S_COUNTER, f->s, f->len);
	}
	put_u64(b, S_SETTINGS_FRESH, s->settings_fresh);
	for (int i = 0; i < s->nsettings; i++) {
		c = fio_writer(f, false);
		setting_io(&c, (struct setting *)&s->settings[i]);
		put_field(b, S_SETTING, f->s, f->len);
	}
	if (s->settings_fresh && s->scoped_read) {
		struct scoped_setting list[SCOPED_MAX];
		int n = s->nscoped;
		memcpy(list, s->scoped, sizeof list);
		c = fio_writer(f, false);
		scoped_io(&c, &n, list);
		put_field(b, S_SCOPED, f->s, f->len);
	}
}

int rec_write_sample(struct recorder *r, const struct sample *s, char *err, size_t errlen)
{
	struct strbuf b, f;
	int i, rc;

	sb_init(&b);
	sb_init(&f);
	r->dg_whole = false;
	put_scalars(r, &b, sample_fields, NFIELDS(sample_fields), s);
	put_counters(&b, &f, s);
	for (i = 0; i < s->notes.n; i++)
		put_text(r, &b, S_NOTE, s->notes.msg[i]);
	if (s->digests)
		put_digests(r, &b, s);
	if (s->digests_skipped)
		put_u64(&b, S_DIGESTS_SKIPPED, 1);
	if (s->locks)
		put_locks(r, &b, s->locks);
	if (s->waits)
		put_waits(&b, s->waits);
	if (s->waits_skipped)
		put_u64(&b, S_WAITS_SKIPPED, 1);
	if (s->ctr_paced)
		put_u64(&b, S_CTR_PACED, 1);
	if (s->sessions)
		put_sessions(r, &b, s->sessions);
	if (s->tuning)
		put_tuning(&b, s->tuning);
	if (s->events)
		put_events(r, &b, s->events);
	if (s->logdev.read) {
		struct logdev_sample ls = s->logdev;
		struct fio io = fio_writer(&f, false);
		logdev_sample_io(&io, &ls);
		put_field(&b, S_LOGDEV, f.s, f.len);
	}
	if (s->repl.kind != REPL_NONE)
		put_repl(&b, &s->repl);
	if (s->host.read) {
		struct hostload_sample hs = s->host;
		struct fio io = fio_writer(&f, false);
		hostload_sample_io(&io, &hs);
		put_field(&b, S_HOSTLOAD, f.s, f.len);
	}
	rc = write_record(r, REC_SAMPLE, &b, err, errlen);
	sb_free(&b);
	sb_free(&f);
	return rc;
}

void rec_write_whole(struct recorder *r)
{
	dgmap_free(r->dg);
	r->dg = NULL;
}

void rec_close(struct recorder *r)
{
	if (r->f)
		fclose(r->f);
	r->f = NULL;
	dgmap_free(r->dg);
	r->dg = NULL;
}

/* ---- decoding ---- */


/* Walk the fields of a payload: calls fn(ctx, tag, data, len) for each.
 * Returns -1 when a field overruns the payload. */
static int each_field(const unsigned char *p, size_t n,
		      void (*fn)(void *ctx, int tag, const unsigned char *d, size_t len), void *ctx)
{
	size_t off = 0;
	while (off < n) {
		uint64_t len;
		int tag;
		if (n - off < 6)
			return -1;
		tag = (int)get_le(p + off, 2);
		len = get_le(p + off + 2, 4);
		off += 6;
		if (len > n - off)
			return -1;
		fn(ctx, tag, p + off, (size_t)len);
		off += (size_t)len;
	}
	return 0;
}

static void header_field(void *ctx, int tag, const unsigned char *d, size_t n)
{
	if (!get_scalar(header_fields, NFIELDS(header_fields), ctx, tag, d, n))   /* newer fields are ignored */
		get_scalar(header_incident_fields, NFIELDS(header_incident_fields), ctx, tag, d, n);
}

static void caps_field(void *ctx, int tag, const unsigned char *d, size_t n)
{
	struct rec_item *it = ctx;
	struct caps *c = &it->caps;
	uint64_t v = n == 8 ? get_le(d, 8) : 0;
	char note[NOTE_LEN];
	int bit = 0;
	if (get_scalar(caps_head_fields, NFIELDS(caps_head_fields), c, tag, d, n) ||
	    get_scalar(caps_tail_fields, NFIELDS(caps_tail_fields), c, tag, d, n))
		return;
	switch (tag) {
	case C_CONN_GEN: it->conn_gen = (uint32_t)v; break;
	case C_FLAGS:
#define GET_FLAG(f) c->f = (v >> bit++) & 1;
		CAPS_FLAGS(GET_FLAG)
#undef GET_FLAG
		break;
	case C_NOTE:
		get_str(note, sizeof note, d, n);
		notes_add(&c->notes, "%s", note);
		break;
	case C_LOGDEV: {
		struct logdev_map m;
		memset(&m, 0, sizeof m);
		struct fio io = fio_reader(d, n);
		logdev_map_io(&io, &m);
		if (fio_whole(&io))
			c->logdev = m;
		break;
	}
	default: break;
	}
}

/* The sample's digest set, made on its first field. */
static struct digest_set *sample_digests(struct sample *s)
{
	if (!s->digests)
		s->digests = xcalloc(1, sizeof *s->digests);
	return s->digests;
}

/* One S_DIGEST field into s->digests; damaged fields are ignored. */
static void read_digest(struct sample *s, const unsigned char *d, size_t n)
{
	struct digest_row row = {.have = 0};
	uint32_t mask = 0;
	struct fio c = fio_reader(d, n);
	digest_row_io(&c, &row, &mask);
	if (c.bad)   /* (the text comes last: a damaged field has none) */
		return;
	struct digest_row *r = digest_set_add(sample_digests(s));
	*r = row;
	r->have = mask & ((1u << DG__COUNT) - 1);
	r->own = (mask & DGR_OWN) != 0;
}

/* One S_DIGEST_HIST field into s->digests; damaged fields are ignored. */
static void read_digest_hist(struct sample *s, const unsigned char *d, size_t n)
{
	struct dg_hist *h;
	char key[200];
	uint32_t nb = 0;
	struct fio c = fio_reader(d, n);
	digest_hist_io(&c, key, sizeof key, &nb);
	if (c.bad || nb > (n - c.off) / DG_BUCKET_BYTES || c.off + (size_t)nb * DG_BUCKET_BYTES != n)
		return;
	if ((h = digest_set_hist(sample_digests(s), key)))
		h->n = 0;   /* a repeated key: the last one counts */
	else
		h = digest_set_add_hist(s->digests, key);
	for (uint32_t i = 0; i < nb; i++) {
		struct dg_bucket b = {0};
		dg_bucket_io(&c, &b);
		dg_hist_add(h, b.num, b.high_ps, b.count);
	}
}

/* One S_DIGEST_SAMPLES field: the sample count of a row just read (the
 * newest row of that key). */
static void read_digest_samples(struct sample *s, const unsigned char *d, size_t n)
{
	char key[200];
	uint64_t samples = 0;
	struct fio c = fio_reader(d, n);
	digest_samples_io(&c, key, sizeof key, &samples);
	if (!fio_whole(&c) || !s->digests)
		return;
	for (size_t i = s->digests->n; i > 0; i--)
		if (strcmp(s->digests->rows[i - 1].key, key) == 0) {
			s->digests->rows[i - 1].samples = samples;
			break;
		}
}

/* The digest set's own fields: S_DIGEST_META, S_DIGEST_SAMPLING,
 * S_DIGEST_SPLIT; damaged fields are ignored. */
static void read_digest_set(struct sample *s, int tag, const unsigned char *d, size_t n)
{
	struct fio c = fio_reader(d, n);
	if (tag == S_DIGEST_META) {
		struct digest_set m = {.lost = 0};
		uint8_t flags = 0;
		digest_meta_io(&c, &flags, &m);
		if (c.bad)
			return;
		struct digest_set *ds = sample_digests(s);
		ds->partial = flags & DGM_PARTIAL;
		ds->sampled = flags & DGM_SAMPLED;
		ds->have_lost = flags & DGM_LOST;
		ds->estimates_only = flags & DGM_ESTIMATES;
		ds->sample_hz = m.sample_hz;
		ds->lost = m.lost;
		str_copy(ds->source, sizeof ds->source, m.source);
	} else if (tag == S_DIGEST_SAMPLING) {
		uint64_t rounds = 0;
		uint32_t sessions = 0;
		digest_sampling_io(&c, &rounds, &sessions);
		if (!fio_whole(&c))
			return;
		if (sample_digests(s)->sampled) {
			s->digests->rounds = rounds;
			s->digests->sessions = sessions;
		} else {
			s->digests->est_rounds = rounds;
		}
	} else if (tag == S_DIGEST_SPLIT) {
		uint32_t sn = 0, sk = 0;
		digest_split_io(&c, &sn, &sk);
		if (!fio_whole(&c))
			return;
		sample_digests(s)->split_n = sn;
		s->digests->split_k = sk;
	}
}

/* One S_LOCK_META field; damaged fields are ignored. */
static void read_lock_meta(struct sample *s, const unsigned char *d, size_t n)
{
	uint8_t status = 0;
	uint32_t waiting = 0;
	double ms = 0;
	char note[LOCK_NOTE_LEN];
	struct fio c = fio_reader(d, n);
	lock_meta_io(&c, &status, &waiting, &ms, note, sizeof note);
	if (c.bad)
		return;
	if (!s->locks)
		s->locks = lock_set_new();
	s->locks->status = status <= LOCKS_PENDING ? (enum lock_status)status : LOCKS_UNAVAILABLE;
	s->locks->waiting = waiting;
	s->locks->query_ms = ms;
	str_copy(s->locks->note, sizeof s->locks->note, note);
}

/* One S_LOCK_SESSION field; damaged fields are ignored. */
static void read_lock_session(struct sample *s, const unsigned char *d, size_t n)
{
	struct lock_session in = {.id = 0};
	uint8_t flags = 0;
	struct fio c = fio_reader(d, n);
	lock_session_io(&c, &in, &flags);
	if (c.bad)   /* (the statement comes last: a damaged field has none) */
		return;
	if (!s->locks)
		s->locks = lock_set_new();
	int i = lock_session_get(s->locks, in.id);
	struct lock_session *x = &s->locks->s[i];
	x->state_s = in.state_s;
	x->trx_age_s = in.trx_age_s;
	x->wait_s = in.wait_s;
	str_copy(x->user, sizeof x->user, in.user);
	str_copy(x->state, sizeof x->state, in.state);
	if (in.query)
		lock_session_query(x, in.query, flags & LKS_QUERY_LAST);
	free(in.query);
}

/* One S_LOCK_IDENT field (after its session's S_LOCK_SESSION); damaged
 * fields are ignored. */
static void read_lock_ident(struct sample *s, const unsigned char *d, size_t n)
{
	struct session_ident si = {.known = false};
	long long id = 0;
	struct fio c = fio_reader(d, n);
	lock_ident_io(&c, &id, &si);
	if (c.bad || !s->locks)
		return;
	int i = lock_session_get(s->locks, id);
	si.known = true;
	s->locks->s[i].ident = si;
}

/* One S_LOCK_EDGE field; damaged fields are ignored. */
static void read_lock_edge(struct sample *s, const unsigned char *d, size_t n)
{
	struct lock_edge in = {.soft = false};
	long long waiter = 0, blocker = 0;
	uint8_t flags = 0;
	struct fio c = fio_reader(d, n);
	lock_edge_io(&c, &waiter, &blocker, &flags, &in);
	if (c.bad)
		return;
	if (!s->locks)
		s->locks = lock_set_new();
	struct lock_edge *e = lock_edge_add(s->locks, waiter, blocker);
	if (!e)
		return;
	e->soft = flags & LKE_SOFT;
	str_copy(e->object, sizeof e->object, in.object);
	str_copy(e->lock_type, sizeof e->lock_type, in.lock_type);
	str_copy(e->requested, sizeof e->requested, in.requested);
	str_copy(e->held, sizeof e->held, in.held);
	str_copy(e->lock_data, sizeof e->lock_data, in.lock_data);
}

/* One S_WAIT_META or S_WAIT field; damaged fields are ignored. */
static void read_waits(struct sample *s, int tag, const unsigned char *d, size_t n)
{
	struct fio c = fio_reader(d, n);
	if (tag == S_WAIT_META) {
		struct wait_set m = {.hz = 0};
		uint8_t source = 0;
		uint32_t rounds = 0;
		wait_meta_io(&c, &source, &rounds, &m);
		if (c.bad)
			return;
		if (!s->waits)
			s->waits = wait_set_new(WS_NONE);
		s->waits->source = source <= WS_PERF_SCHEMA ? (enum wait_source)source : WS_NONE;
		s->waits->hz = m.hz;
		s->waits->rounds = rounds;
		s->waits->period_ms = m.period_ms;
		s->waits->cost_ms = m.cost_ms;
		str_copy(s->waits->note, sizeof s->waits->note, m.note);
	} else {
		struct wait_row row = {.count = 0};
		wait_row_io(&c, &row);
		if (c.bad || n < 17)   /* (an event has a name) */
			return;
		if (!s->waits)
			s->waits = wait_set_new(WS_NONE);
		wait_set_add(s->waits, row.name, row.count, row.time_ns);
	}
}

/* One S_COUNTER or S_SETTING field; damaged fields are ignored. */
static void read_counter_setting(struct sample *s, int tag, const unsigned char *d, size_t n)
{
	struct fio c = fio_reader(d, n);
	if (tag == S_COUNTER) {
		char name[256];
		uint64_t v = 0, epoch = 0;
		counter_io(&c, name, sizeof name, &v, &epoch);
		int id = fio_whole(&c) ? ctr_by_name(name, strlen(name)) : -1;
		if (id >= 0)  /* counters of newer versions are ignored */
			sample_set(s, id, v, epoch);
	} else {
		struct setting st;
		setting_io(&c, &st);
		if (!c.bad)
			sample_setting(s, st.name, st.value);
	}
}

/* One S_SESSION_META or S_SESSION field (put_sessions); damaged fields
 * are ignored. */
static void read_sessions(struct sample *s, int tag, const unsigned char *d, size_t n)
{
	struct fio c = fio_reader(d, n);
	if (tag == S_SESSION_META) {
		struct session_set m;
		uint8_t status = 0;
		memset(&m, 0, sizeof m);
		session_meta_io(&c, &status, &m);
		if (c.bad)
			return;
		if (!s->sessions)
			s->sessions = session_set_new();
		s->sessions->status = status <= SESS_NOT_READ ? (enum session_status)status : SESS_UNAVAILABLE;
		s->sessions->query_ms = m.query_ms;
		s->sessions->age_s = m.age_s;
		str_copy(s->sessions->note, sizeof s->sessions->note, m.note);
		return;
	}
	struct session t;
	uint8_t cls = 0, flags = 0;
	memset(&t, 0, sizeof t);
	session_io(&c, &t, &cls, &flags);
	if (c.bad) {
		free(t.query);
		return;
	}
	if (!s->sessions)
		s->sessions = session_set_new();
	struct session *x = session_add(s->sessions, t.id);
	char *q = t.query;
	t.query = NULL;
	*x = t;
	x->cls = cls >= SC_ACTIVE && cls <= SC_OTHER ? (enum session_class)cls : SC_OTHER;
	x->self = flags & SS_SELF;
	x->ident.known = flags & SS_IDENT;
	if (q)
		session_set_query(x, q, flags & SS_QUERY_LAST);
	else
		x->query_is_last = flags & SS_QUERY_LAST;
	free(q);
}

static void sample_field(void *ctx, int tag, const unsigned char *d, size_t n)
{
	struct sample *s = ctx;
	uint64_t v = n == 8 ? get_le(d, 8) : 0;
	char buf[NOTE_LEN];
	if (get_scalar(sample_fields, NFIELDS(sample_fields), s, tag, d, n))
		return;
	switch (tag) {
	case S_COUNTER: case S_SETTING: read_counter_setting(s, tag, d, n); break;
	case S_SETTINGS_FRESH: s->settings_fresh = v != 0; break;
	case S_NOTE:
		get_str(buf, sizeof buf, d, n);
		notes_add(&s->notes, "%s", buf);
		break;
	case S_DIGEST_META: case S_DIGEST_SAMPLING: case S_DIGEST_SPLIT: read_digest_set(s, tag, d, n); break;
	case S_DIGEST: read_digest(s, d, n); break;
	case S_DIGEST_SAMPLES: read_digest_samples(s, d, n); break;
	case S_DIGEST_HIST: read_digest_hist(s, d, n); break;
	case S_DIGESTS_SKIPPED: s->digests_skipped = v != 0; break;
	case S_WAITS_SKIPPED: s->waits_skipped = v != 0; break;
	case S_CTR_PACED: s->ctr_paced = v != 0; break;
	case S_LOCK_META: read_lock_meta(s, d, n); break;
	case S_LOCK_SESSION: read_lock_session(s, d, n); break;
	case S_LOCK_EDGE: read_lock_edge(s, d, n); break;
	case S_LOCK_IDENT: read_lock_ident(s, d, n); break;
	case S_SESSION_META: case S_SESSION: read_sessions(s, tag, d, n); break;
	case S_SESSION_IDLE:
		if (s->sessions)
			s->sessions->idle_unread = v > UINT32_MAX ? UINT32_MAX : (unsigned)v;
		break;
	case S_WAIT_META: case S_WAIT: read_waits(s, tag, d, n); break;
	case S_TUNING: read_tuning(s, d, n); break;
	case S_SCOPED: {
		struct fio io = fio_reader(d, n);
		scoped_io(&io, &s->nscoped, s->scoped);
		s->scoped_read = fio_whole(&io);
		if (!s->scoped_read)
			s->nscoped = 0;
		break;
	}
	case S_EVENTS: read_events(s, d, n); break;
	case S_LOGDEV: {
		struct logdev_sample ls;
		memset(&ls, 0, sizeof ls);
		struct fio io = fio_reader(d, n);
		logdev_sample_io(&io, &ls);
		if (fio_whole(&io))
			s->logdev = ls;
		break;
	}
	case S_REPL: read_repl(s, d, n); break;
	case S_LOCK_AGE: {
		double age = 0, gate = 0;
		struct fio io = fio_reader(d, n);
		fio_f64(&io, &age);
		fio_f64(&io, &gate);
		if (fio_whole(&io) && s->locks) {
			s->locks->age_s = isfinite(age) && age > 0 ? age : 0;
			s->locks->gate_age_s = isfinite(gate) && gate > 0 ? gate : 0;
		}
		break;
	}
	case S_HOSTLOAD: {
		struct hostload_sample hs;
		memset(&hs, 0, sizeof hs);
		struct fio io = fio_reader(d, n);
		hostload_sample_io(&io, &hs);
		if (fio_whole(&io))
			s->host = hs;
		break;
	}
	default: break;
	}
}

/* Read exactly n bytes; false at EOF. */
static bool read_n(struct rec_reader *rd, void *p, size_t n)
{
	return fread(p, 1, n, rd->f) == n;
}

/* Read one framed record at the current position into rd->buf.
 * Returns 1 (ok, *type and *len set), 0 at a clean end, -1 truncated,
 * -2 damaged (the reader has moved one byte past the record start). */
static int read_frame(struct rec_reader *rd, int *type, size_t *len)
{
	unsigned char h[9], c[4];
	uint64_t start = rd->offset;
	size_t got = fread(h, 1, sizeof h, rd->f);
	uint32_t n, crc;

	if (got == 0)
		return 0;
	if (got < sizeof h)
		return -1;
	n = (uint32_t)get_le(h + 4, 4);
	if (get_le(h, 4) != REC_SYNC || n > REC_MAX_PAYLOAD)
		goto damaged;
	if (n > rd->cap) {
		rd->cap = n;
		rd->buf = xrealloc(rd->buf, rd->cap);
	}
	if (!read_n(rd, rd->buf, n) || !read_n(rd, c, 4)) {
		/* a cut-off last record, or a damaged length pointing past the
		 * end: the caller looks for a later record to tell which */
		rd->offset = start + 1;
		if (fseeko(rd->f, (off_t)rd->offset, SEEK_SET) != 0)
			return -1;
		return -3;
	}
	crc = rec_crc32(0, h + 4, 5);
	crc = rec_crc32(crc, rd->buf, n);
	if (crc != (uint32_t)get_le(c, 4))
		goto damaged;
	*type = h[8];
	*len = n;
	rd->offset = start + 9 + n + 4;
	return 1;
damaged:
	/* resume the search for a sync marker one byte further on */
	rd->offset = start + 1;
	if (fseeko(rd->f, (off_t)rd->offset, SEEK_SET) != 0)
		return -1;
	return -2;
}

/* Skip to the next sync marker; false at the end of the file. Reads in
 * blocks, so a long damaged stretch costs little and no memory. */
static bool resync(struct rec_reader *rd)
{
	unsigned char blk[65536 + 3];
	size_t keep = 0, got, i;
	uint64_t base = rd->offset;   /* file offset of blk[0] */
	for (;;) {
		got = fread(blk + keep, 1, sizeof blk - keep, rd->f);
		if (got == 0)
			break;
		got += keep;
		for (i = 0; i + 4 <= got; i++) {
			if (get_le(blk + i, 4) == REC_SYNC) {
				uint64_t at = base + i;
				rd->skipped_bytes += at - rd->offset;
				rd->offset = at;
				return fseeko(rd->f, (off_t)at, SEEK_SET) == 0;
			}
		}
		/* keep the last 3 bytes: a marker may straddle two blocks */
		keep = got < 3 ? got : 3;
		memmove(blk, blk + got - keep, keep);
		base += got - keep;
	}
	base += keep;
	rd->skipped_bytes += base - rd->offset;
	rd->offset = base;
	return false;
}

static int read_start(struct rec_reader *rd, char *err, size_t errlen);

int rec_open_read(struct rec_reader *rd, const char *path, const void *buf, size_t len,
		  char *err, size_t errlen)
{

	memset(rd, 0, sizeof *rd);
	if (path) {
		rd->f = fopen(path, "rb");
		if (!rd->f) {
			str_printf(err, errlen, "cannot open recording %s: %s", path, strerror(errno));
			return -1;
		}
	} else {
		rd->f = len ? fmemopen((void *)buf, len, "rb") : NULL;
		if (!rd->f) {
			str_copy(err, errlen, "empty recording");
			return -1;
		}
	}
	return read_start(rd, err, errlen);
}

int rec_open_read_fd(struct rec_reader *rd, int fd, char *err, size_t errlen)
{
	memset(rd, 0, sizeof *rd);
	rd->f = fdopen(fd, "rb");
	if (!rd->f) {
		str_printf(err, errlen, "cannot read the recording: %s", strerror(errno));
		return -1;
	}
	return read_start(rd, err, errlen);
}

int rec_reader_seek(struct rec_reader *rd, uint64_t offset)
{
	clearerr(rd->f);
	if (fseeko(rd->f, (off_t)offset, SEEK_SET) != 0)
		return -1;
	rd->offset = offset;
	rd->maybe_cut = false;
	return 0;
}

/* After the file is open: the file header and the HEADER record. */
static int read_start(struct rec_reader *rd, char *err, size_t errlen)
{
	unsigned char h[16];
	int type, rc;
	size_t n;

	rd->own = true;
	rd->cap = 65536;
	rd->buf = xmalloc(rd->cap);
	if (!read_n(rd, h, sizeof h)) {
		str_copy(err, errlen, "not a dbtop recording (file shorter than its header)");
		rec_reader_close(rd);
		return -1;
	}
	if (memcmp(h, REC_MAGIC, 8) != 0) {
		str_copy(err, errlen, "not a dbtop recording (bad magic)");
		rec_reader_close(rd);
		return -1;
	}
	rd->major = (uint16_t)get_le(h + 8, 2);
	rd->minor = (uint16_t)get_le(h + 10, 2);
	if (rd->major != REC_MAJOR) {
		str_printf(err, errlen, "recording format %u.%u is %s than this dbtop reads (%d.x)",
			   rd->major, rd->minor, rd->major > REC_MAJOR ? "newer" : "older", REC_MAJOR);
		rec_reader_close(rd);
		return -1;
	}
	rd->offset = sizeof h;
	rc = read_frame(rd, &type, &n);
	if (rc != 1 || type != REC_HEADER || each_field(rd->buf, n, header_field, &rd->hdr) < 0) {
		str_copy(err, errlen, rc == 0 || rc == -1 || rc == -3 ? "recording cut off before its header record"
			 : "recording header record is damaged");
		rec_reader_close(rd);
		return -1;
	}
	rd->have_hdr = true;
	rd->records = 1;
	return 0;
}

int rec_next(struct rec_reader *rd, struct rec_item *it)
{
	int type, rc;
	size_t n;
	for (;;) {
		rc = read_frame(rd, &type, &n);
		if (rc == 0) {
			if (rd->maybe_cut) {
				rd->truncated = true;
				rd->maybe_cut = false;
			}
			return 0;
		}
		if (rc == -1) {
			rd->truncated = true;
			return 0;
		}
		if (rc == -2 || rc == -3) {
			rd->skipped_bytes++;   /* the byte read_frame stepped over */
			/* a record running past the end may be a cut, or a damaged
			 * length: decided by whether a whole record follows; what
			 * fails meanwhile belongs to the same uncertain stretch */
			if (!rd->maybe_cut) {
				if (rc == -3)
					rd->maybe_cut = true;
				else
					rd->corrupt++;
			}
			if (!resync(rd)) {
				if (rd->maybe_cut)
					rd->truncated = true;
				rd->maybe_cut = false;
				return 0;
			}
			continue;
		}
		if (rd->maybe_cut) {
			/* a whole record after it: the earlier one was damaged, not cut */
			rd->corrupt++;
			rd->maybe_cut = false;
		}
		rd->records++;
		memset(it, 0, sizeof *it);
		if (type == REC_CAPS) {
			it->type = REC_CAPS;
			if (each_field(rd->buf, n, caps_field, it) < 0) {
				rd->corrupt++;
				continue;
			}
			return 1;
		}
		if (type == REC_SAMPLE) {
			it->type = REC_SAMPLE;
			if (each_field(rd->buf, n, sample_field, &it->sample) < 0) {
				sample_release(&it->sample);
				rd->corrupt++;
				continue;
			}
			if (it->sample.locks)
				lock_set_analyse(it->sample.locks);
			return 1;
		}
		rd->unknown++;
	}
}

void rec_reader_summary(const struct rec_reader *rd, char *buf, size_t len)
{
	str_printf(buf, len, "%llu records read (%llu bytes)%s%s",
		   (unsigned long long)rd->records, (unsigned long long)rd->offset,
		   rd->truncated ? "; the file is cut off inside its last record" : "",
		   rd->corrupt ? "; damaged records skipped" : "");
	if (rd->corrupt) {
		size_t l = strlen(buf);
		str_printf(buf + l, len - l, ": %llu (%llu bytes passed over)",
			   (unsigned long long)rd->corrupt, (unsigned long long)rd->skipped_bytes);
	}
	if (rd->unknown) {
		size_t l = strlen(buf);
		str_printf(buf + l, len - l, "; %llu records of newer types ignored",
			   (unsigned long long)rd->unknown);
	}
}

void rec_reader_close(struct rec_reader *rd)
{
	if (rd->f && rd->own)
		fclose(rd->f);
	rd->f = NULL;
	free(rd->buf);
	rd->buf = NULL;
}
