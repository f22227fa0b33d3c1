/* record.c - writing and reading recordings (docs/recording.md). */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../model/digests.h"
#include "../model/locks.h"
#include "../model/sessions.h"
#include "../model/waits.h"
#include "../util/redact.h"
#include "../util/util.h"

/* field tags of a HEADER record */
enum { H_ENGINE = 1, H_VERSION, H_HOST, H_DBTOP, H_START, H_INTERVAL, H_REDACTED };
/* field tags of a CAPS record */
enum {
	C_CONN_GEN = 1, C_ENGINE, C_FLAVOUR, C_VERSION, C_VERSION_NUM, C_FLAGS,
	C_REDO_SOURCE, C_COMMIT_SOURCE, C_PGSS, C_PGWS, C_WAL_STATS, C_NOTE
};
/* field tags of a SAMPLE record */
enum {
	S_MONO = 1, S_WALL, S_STATE, S_ERROR, S_RETRY, S_CONN_GEN, S_QUERY_MS, S_NQUERIES,
	S_COUNTER, S_SETTINGS_FRESH, S_SETTING, S_NOTE, S_UPTIME, S_DIGEST_META, S_DIGEST,
	S_DIGESTS_SKIPPED, S_DIGEST_HIST, S_LOCK_META, S_LOCK_SESSION, S_LOCK_EDGE, S_WAIT_META, S_WAIT,
	S_DIGEST_SPLIT, S_WAITS_SKIPPED, S_LOCK_IDENT,
	S_DIGEST_SAMPLES,   /* sampled sets: key, the row's cumulative samples (u64), after its S_DIGEST */
	S_DIGEST_SAMPLING,  /* sampled sets: cumulative rounds (u64), sessions seen (u32) */
	S_SESSION_META,     /* the session list: status, query ms, age, note */
	S_SESSION,          /* one session of the list (put_sessions) */
};

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

/* One digest row as last written: key and a fingerprint of its counters. */
struct dg_slot {
	char *key;
	uint64_t fp;
	bool text;
};
struct rec_dgmap {
	struct dg_slot *s;
	size_t cap, n;
};

/* CAPS booleans, bit i of C_FLAGS; the order is part of the format */
#define CAPS_FLAGS(X) X(perf_schema) X(ps_readable) X(ps_redo_file) X(ps_binlog_file) \
	X(has_os_log_fsyncs) X(binlog_on) X(priv_process) X(priv_super)          \
	X(track_wal_io_timing) X(in_recovery) X(superuser) X(pg_monitor)       \
	X(ps_digests) X(ps_digest_p95) X(ps_digest_hist)

uint32_t rec_crc32(uint32_t crc, const void *p, size_t n)
{
	static uint32_t table[256];
	static int ready;
	const unsigned char *b = p;
	size_t i;
	if (!ready) {
		for (uint32_t k = 0; k < 256; k++) {
			uint32_t c = k;
			for (int j = 0; j < 8; j++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[k] = c;
		}
		ready = 1;
	}
	crc = ~crc;
	for (i = 0; i < n; i++)
		crc = table[(crc ^ b[i]) & 0xff] ^ (crc >> 8);
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

/* Open path for a new recording: created 0600, or an existing regular file
 * narrowed to 0600 and emptied (devices and FIFOs such as /dev/full keep
 * their mode). Never through a symbolic link (dangling or not) nor into a
 * regular file with other hard links: nothing is written then. Returns the
 * descriptor, or -1 with a message in err. */
static int open_private(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, e;

	/* no O_TRUNC: an existing file is checked before anything in it changes */
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		e = errno;
		if (e == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			str_printf(err, errlen, "cannot create recording %s: it is a symbolic link; "
				   "refusing to write through it", path);
		else
			str_printf(err, errlen, "cannot create recording %s: %s", path, strerror(e));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		str_printf(err, errlen, "cannot create recording %s: %s", path, strerror(e));
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		return fd;
	if (st.st_nlink > 1) {
		close(fd);
		str_printf(err, errlen, "cannot create recording %s: it has other hard links; "
			   "refusing to write into it", path);
		return -1;
	}
	if (fchmod(fd, 0600) < 0 || ftruncate(fd, 0) < 0) {
		e = errno;
		close(fd);
		str_printf(err, errlen, "cannot create recording %s: %s", path, strerror(e));
		return -1;
	}
	return fd;
}

int rec_open_write(struct recorder *r, const char *path, const struct rec_header *h,
		   bool redact, char *err, size_t errlen)
{
	struct strbuf b;
	int fd, rc;

	memset(r, 0, sizeof *r);
	str_copy(r->path, sizeof r->path, path);
	r->redact = redact;
	fd = open_private(path, err, errlen);
	if (fd < 0)
		return -1;
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
	put_str(&b, H_ENGINE, h->engine);
	put_str(&b, H_VERSION, h->server_version);
	put_str(&b, H_HOST, h->host);
	put_str(&b, H_DBTOP, h->dbtop_version);
	put_f64(&b, H_START, h->start_wall);
	put_f64(&b, H_INTERVAL, h->interval);
	put_u64(&b, H_REDACTED, redact);
	rc = write_record(r, REC_HEADER, &b, err, errlen);
	sb_free(&b);
	if (rc < 0)
		rec_close(r);
	return rc;
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

int rec_write_caps(struct recorder *r, const struct caps *c, uint32_t conn_gen,
		   char *err, size_t errlen)
{
	struct strbuf b;
	uint64_t flags = 0;
	int bit = 0, i, rc;

	sb_init(&b);
	put_u64(&b, C_CONN_GEN, conn_gen);
	put_u64(&b, C_ENGINE, (uint64_t)c->engine);
	put_u64(&b, C_FLAVOUR, (uint64_t)c->flavour);
	put_str(&b, C_VERSION, c->version);
	put_u64(&b, C_VERSION_NUM, (uint64_t)c->version_num);
#define SET_FLAG(f) flags |= (uint64_t)(c->f ? 1 : 0) << bit++;
	CAPS_FLAGS(SET_FLAG)
#undef SET_FLAG
	put_u64(&b, C_FLAGS, flags);
	put_str(&b, C_REDO_SOURCE, c->redo_fsync_source);
	put_str(&b, C_COMMIT_SOURCE, c->commit_source);
	put_u64(&b, C_PGSS, (uint64_t)c->pgss_version);
	put_u64(&b, C_PGWS, (uint64_t)c->pg_wait_sampling);
	put_u64(&b, C_WAL_STATS, (uint64_t)c->wal_stats);
	for (i = 0; i < c->notes.n; i++)
		put_text(r, &b, C_NOTE, c->notes.msg[i]);
	rc = write_record(r, REC_CAPS, &b, err, errlen);
	sb_free(&b);
	return rc;
}

/* The slot of key in the map (growing it); never NULL. */
static struct dg_slot *dgmap_slot(struct rec_dgmap *m, const char *key)
{
	size_t i;
	if ((m->n + 1) * 2 > m->cap) {
		struct rec_dgmap big = {xcalloc(m->cap ? m->cap * 2 : 256, sizeof(struct dg_slot)),
					m->cap ? m->cap * 2 : 256, m->n};
		for (i = 0; i < m->cap; i++)
			if (m->s[i].key) {
				size_t j = hash_str(m->s[i].key) & (big.cap - 1);
				while (big.s[j].key)
					j = (j + 1) & (big.cap - 1);
				big.s[j] = m->s[i];
			}
		free(m->s);
		*m = big;
	}
	i = hash_str(key) & (m->cap - 1);
	while (m->s[i].key && strcmp(m->s[i].key, key) != 0)
		i = (i + 1) & (m->cap - 1);
	if (!m->s[i].key) {
		m->s[i].key = xstrdup(key);
		m->s[i].fp = 0;
		m->s[i].text = false;
		m->n++;
	}
	return &m->s[i];
}

static void dgmap_free(struct rec_dgmap *m)
{
	size_t i;
	if (!m)
		return;
	for (i = 0; i < m->cap; i++)
		free(m->s[i].key);
	free(m->s);
	free(m);
}

/* Append the sample's digest rows: after a (re)connection all of them,
 * then only rows whose counters changed; texts once per digest. */
static void put_digests(struct recorder *r, struct strbuf *b, const struct sample *s)
{
	const struct digest_set *ds = s->digests;
	struct strbuf f;
	bool skipped = false;
	size_t i;
	int k;
	if (!r->dg || r->dg_gen != s->conn_gen) {
		dgmap_free(r->dg);
		r->dg = xcalloc(1, sizeof *r->dg);
		r->dg_gen = s->conn_gen;
	}
	sb_init(&f);
	for (i = 0; i < ds->n; i++) {
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
		f.len = 0;
		sb_putc(&f, (char)strlen(row->key));
		sb_puts(&f, row->key);
		sb_putc(&f, (char)strlen(row->schema));
		sb_puts(&f, row->schema);
		put_le(&f, have | (text ? DGR_TEXT : 0) | (row->own ? DGR_OWN : 0), 4);
		put_le(&f, row->epoch, 8);
		{
			uint64_t v;
			memcpy(&v, &row->p95_ms, 8);
			put_le(&f, v, 8);
			memcpy(&v, &row->first_seen, 8);
			put_le(&f, v, 8);
			memcpy(&v, &row->last_seen, 8);
			put_le(&f, v, 8);
		}
		for (k = 0; k < DG__COUNT; k++)
			if (have >> k & 1)
				put_le(&f, row->c[k], 8);
		if (text) {
			if (r->redact) {
				char *t = redact_sql(row->text);
				sb_puts(&f, t);
				free(t);
			} else {
				sb_puts(&f, row->text);
			}
			sl->text = true;
		}
		put_field(b, S_DIGEST, f.s, f.len);
		if (ds->sampled) {
			f.len = 0;
			sb_putc(&f, (char)strlen(row->key));
			sb_puts(&f, row->key);
			put_le(&f, row->samples, 8);
			put_field(b, S_DIGEST_SAMPLES, f.s, f.len);
		}
	}
	/* latency histograms: every one read (they are few), empty ones too */
	for (i = 0; i < ds->nhist; i++) {
		const struct dg_hist *h = &ds->hist[i];
		size_t j;
		f.len = 0;
		sb_putc(&f, (char)strlen(h->key));
		sb_puts(&f, h->key);
		put_le(&f, h->n, 4);
		for (j = 0; j < h->n; j++) {
			put_le(&f, h->b[j].num, 4);
			put_le(&f, h->b[j].high_ps, 8);
			put_le(&f, h->b[j].count, 8);
		}
		put_field(b, S_DIGEST_HIST, f.s, f.len);
	}
	f.len = 0;
	sb_putc(&f, (char)((ds->partial || skipped ? DGM_PARTIAL : 0) | (ds->sampled ? DGM_SAMPLED : 0) |
			   (ds->have_lost ? DGM_LOST : 0) | (ds->estimates_only ? DGM_ESTIMATES : 0)));
	{
		uint64_t v;
		memcpy(&v, &ds->sample_hz, 8);
		put_le(&f, v, 8);
	}
	put_le(&f, ds->lost, 8);
	sb_puts(&f, ds->source);
	put_field(b, S_DIGEST_META, f.s, f.len);
	if (ds->sampled) {
		f.len = 0;
		put_le(&f, ds->rounds, 8);
		put_le(&f, ds->sessions, 4);
		put_field(b, S_DIGEST_SAMPLING, f.s, f.len);
	}
	if (ds->split_n) {
		f.len = 0;
		put_le(&f, ds->split_n, 4);
		put_le(&f, ds->split_k, 4);
		put_field(b, S_DIGEST_SPLIT, f.s, f.len);
	}
	sb_free(&f);
}

/* A double as 8 little-endian bytes inside a field. */
static void put_dbl(struct strbuf *f, double d)
{
	uint64_t v;
	memcpy(&v, &d, 8);
	put_le(f, v, 8);
}

/* A string of at most 255 bytes, length first. */
static void put_short(struct strbuf *f, const char *s)
{
	size_t n = strlen(s);
	if (n > 255)
		n = 255;
	sb_putc(f, (char)n);
	for (size_t i = 0; i < n; i++)
		sb_putc(f, s[i]);
}

/* The sample's lock snapshot: its status, then every session and edge
 * (analysis is recomputed on reading). Statements are redacted when asked. */
static void put_locks(struct recorder *r, struct strbuf *b, const struct lock_set *ls)
{
	struct strbuf f;
	sb_init(&f);
	sb_putc(&f, (char)ls->status);
	put_le(&f, ls->waiting, 4);
	put_dbl(&f, ls->query_ms);
	sb_puts(&f, ls->note);
	put_field(b, S_LOCK_META, f.s, f.len);
	for (size_t i = 0; i < ls->ns; i++) {
		const struct lock_session *x = &ls->s[i];
		f.len = 0;
		put_le(&f, (uint64_t)x->id, 8);
		put_dbl(&f, x->state_s);
		put_dbl(&f, x->trx_age_s);
		put_dbl(&f, x->wait_s);
		sb_putc(&f, (char)((x->query_is_last ? LKS_QUERY_LAST : 0) | (x->query ? LKS_HAS_QUERY : 0)));
		put_short(&f, x->user);
		put_short(&f, x->state);
		if (x->query) {
			if (r->redact) {
				char *t = redact_sql(x->query);
				sb_puts(&f, t);
				free(t);
			} else {
				sb_puts(&f, x->query);
			}
		}
		put_field(b, S_LOCK_SESSION, f.s, f.len);
		if (x->ident.known) {
			f.len = 0;
			put_le(&f, (uint64_t)x->id, 8);
			put_le(&f, (uint64_t)x->ident.start_us, 8);
			put_le(&f, (uint64_t)x->ident.xact_us, 8);
			put_le(&f, (uint64_t)x->ident.stmt_us, 8);
			put_le(&f, (uint64_t)x->ident.query_id, 8);
			put_short(&f, x->ident.trx_id);
			sb_puts(&f, x->ident.trx_started);
			put_field(b, S_LOCK_IDENT, f.s, f.len);
		}
	}
	for (size_t k = 0; k < ls->ne; k++) {
		const struct lock_edge *e = &ls->e[k];
		f.len = 0;
		put_le(&f, (uint64_t)ls->s[e->waiter].id, 8);
		put_le(&f, (uint64_t)ls->s[e->blocker].id, 8);
		sb_putc(&f, (char)(e->soft ? LKE_SOFT : 0));
		put_short(&f, e->object);
		put_short(&f, e->lock_type);
		put_short(&f, e->requested);
		put_short(&f, e->held);
		sb_puts(&f, e->lock_data);
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
/* bytes before S_SESSION's strings */
#define SS_FIXED 78

/* The sample's session list: one S_SESSION_META, then one S_SESSION per
 * session (docs/recording.md, fields 28 and 29). Statements are redacted
 * when asked. */
static void put_sessions(struct recorder *r, struct strbuf *b, const struct session_set *ss)
{
	struct strbuf f;
	sb_init(&f);
	sb_putc(&f, (char)ss->status);
	put_dbl(&f, ss->query_ms);
	put_dbl(&f, ss->age_s);
	sb_puts(&f, ss->note);
	put_field(b, S_SESSION_META, f.s, f.len);
	for (size_t i = 0; i < ss->n; i++) {
		const struct session *x = &ss->s[i];
		f.len = 0;
		put_le(&f, (uint64_t)x->id, 8);
		sb_putc(&f, (char)x->cls);
		sb_putc(&f, (char)((x->query_is_last ? SS_QUERY_LAST : 0) | (x->query ? SS_HAS_QUERY : 0) |
				   (x->self ? SS_SELF : 0) | (x->ident.known ? SS_IDENT : 0)));
		put_dbl(&f, x->state_s);
		put_dbl(&f, x->trx_age_s);
		put_dbl(&f, x->query_s);
		put_le(&f, (uint64_t)x->blocked_by, 8);
		put_le(&f, (uint64_t)x->nblockers, 4);
		put_le(&f, (uint64_t)x->ident.start_us, 8);
		put_le(&f, (uint64_t)x->ident.xact_us, 8);
		put_le(&f, (uint64_t)x->ident.stmt_us, 8);
		put_le(&f, (uint64_t)x->ident.query_id, 8);
		put_short(&f, x->user);
		put_short(&f, x->db);
		put_short(&f, x->client);
		put_short(&f, x->app);
		put_short(&f, x->type);
		put_short(&f, x->state);
		put_short(&f, x->wait);
		put_short(&f, x->digest);
		put_short(&f, x->ident.trx_id);
		put_short(&f, x->ident.trx_started);
		if (x->query) {
			char *t = r->redact ? redact_sql(x->query) : NULL;
			sb_puts(&f, t ? t : x->query);
			free(t);
		}
		put_field(b, S_SESSION, f.s, f.len);
	}
	sb_free(&f);
}

/* The wait profile: its source and sampling figures, then one field per
 * event. */
static void put_waits(struct strbuf *b, const struct wait_set *w)
{
	struct strbuf f;
	sb_init(&f);
	sb_putc(&f, (char)w->source);
	put_dbl(&f, w->hz);
	put_le(&f, w->rounds, 4);
	put_dbl(&f, w->period_ms);
	put_dbl(&f, w->cost_ms);
	sb_puts(&f, w->note);
	put_field(b, S_WAIT_META, f.s, f.len);
	for (size_t i = 0; i < w->n; i++) {
		f.len = 0;
		put_le(&f, w->rows[i].count, 8);
		put_le(&f, w->rows[i].time_ns, 8);
		sb_puts(&f, w->rows[i].name);
		put_field(b, S_WAIT, f.s, f.len);
	}
	sb_free(&f);
}

int rec_write_sample(struct recorder *r, const struct sample *s, char *err, size_t errlen)
{
	struct strbuf b, f;
	int i, rc;

	sb_init(&b);
	sb_init(&f);
	put_f64(&b, S_MONO, s->mono);
	put_f64(&b, S_WALL, s->wall);
	put_u64(&b, S_STATE, (uint64_t)s->state);
	if (s->error[0])
		put_text(r, &b, S_ERROR, s->error);
	put_f64(&b, S_RETRY, s->retry_in);
	put_u64(&b, S_CONN_GEN, s->conn_gen);
	put_f64(&b, S_QUERY_MS, s->query_ms);
	put_u64(&b, S_NQUERIES, s->nqueries);
	put_f64(&b, S_UPTIME, s->uptime_s);
	for (i = 0; i < CTR__COUNT; i++) {
		const char *nm;
		if (!s->c[i].present)
			continue;
		nm = ctr_name(i);
		f.len = 0;
		sb_putc(&f, (char)strlen(nm));
		sb_puts(&f, nm);
		put_le(&f, s->c[i].v, 8);
		put_le(&f, s->c[i].epoch, 8);
		put_field(&b, S_COUNTER, f.s, f.len);
	}
	put_u64(&b, S_SETTINGS_FRESH, s->settings_fresh);
	for (i = 0; i < s->nsettings; i++) {
		f.len = 0;
		sb_putc(&f, (char)strlen(s->settings[i].name));
		sb_puts(&f, s->settings[i].name);
		sb_puts(&f, s->settings[i].value);
		put_field(&b, S_SETTING, f.s, f.len);
	}
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
	if (s->sessions)
		put_sessions(r, &b, s->sessions);
	rc = write_record(r, REC_SAMPLE, &b, err, errlen);
	sb_free(&b);
	sb_free(&f);
	return rc;
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

static double get_f64(const unsigned char *p)
{
	uint64_t v = get_le(p, 8);
	double d;
	memcpy(&d, &v, sizeof d);
	return d;
}

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
	struct rec_header *h = ctx;
	switch (tag) {
	case H_ENGINE: get_str(h->engine, sizeof h->engine, d, n); break;
	case H_VERSION: get_str(h->server_version, sizeof h->server_version, d, n); break;
	case H_HOST: get_str(h->host, sizeof h->host, d, n); break;
	case H_DBTOP: get_str(h->dbtop_version, sizeof h->dbtop_version, d, n); break;
	case H_START: if (n == 8) h->start_wall = get_f64(d); break;
	case H_INTERVAL: if (n == 8) h->interval = get_f64(d); break;
	case H_REDACTED: if (n == 8) h->redacted = get_le(d, 8) != 0; break;
	default: break; /* newer fields are ignored */
	}
}

static void caps_field(void *ctx, int tag, const unsigned char *d, size_t n)
{
	struct rec_item *it = ctx;
	struct caps *c = &it->caps;
	uint64_t v = n == 8 ? get_le(d, 8) : 0;
	char note[NOTE_LEN];
	int bit = 0;
	switch (tag) {
	case C_CONN_GEN: it->conn_gen = (uint32_t)v; break;
	case C_ENGINE: c->engine = v == ENGINE_MYSQL ? ENGINE_MYSQL : v == ENGINE_POSTGRESQL ? ENGINE_POSTGRESQL : ENGINE_UNKNOWN; break;
	case C_FLAVOUR: c->flavour = v <= FLAVOUR_POSTGRESQL ? (enum flavour)v : FLAVOUR_UNKNOWN; break;
	case C_VERSION: get_str(c->version, sizeof c->version, d, n); break;
	case C_VERSION_NUM: c->version_num = (long)v; break;
	case C_FLAGS:
#define GET_FLAG(f) c->f = (v >> bit++) & 1;
		CAPS_FLAGS(GET_FLAG)
#undef GET_FLAG
		break;
	case C_REDO_SOURCE: get_str(c->redo_fsync_source, sizeof c->redo_fsync_source, d, n); break;
	case C_COMMIT_SOURCE: get_str(c->commit_source, sizeof c->commit_source, d, n); break;
	case C_PGSS: c->pgss_version = (int)v; break;
	case C_PGWS: c->pg_wait_sampling = (int)v; break;
	case C_WAL_STATS: c->wal_stats = v <= WAL_STAT_IO ? v : WAL_NONE; break;
	case C_NOTE:
		get_str(note, sizeof note, d, n);
		notes_add(&c->notes, "%s", note);
		break;
	default: break;
	}
}

/* One S_DIGEST field into s->digests; damaged fields are ignored. */
static void read_digest(struct sample *s, const unsigned char *d, size_t n)
{
	struct digest_row *r;
	size_t off = 0, kl, sl;
	uint32_t have;
	int k;
	if (n < 1 || (kl = d[0]) + 2 > n)
		return;
	sl = d[1 + kl];
	off = 2 + kl + sl;
	if (off + 4 + 32 > n)
		return;
	have = (uint32_t)get_le(d + off, 4);
	{
		size_t need = off + 4 + 32;
		for (k = 0; k < DG__COUNT; k++)
			if (have >> k & 1)
				need += 8;
		if (need > n)
			return;
	}
	if (!s->digests)
		s->digests = xcalloc(1, sizeof *s->digests);
	r = digest_set_add(s->digests);
	get_str(r->key, sizeof r->key, d + 1, kl);
	get_str(r->schema, sizeof r->schema, d + 2 + kl, sl);
	off += 4;
	r->have = have & ((1u << DG__COUNT) - 1);
	r->own = (have & DGR_OWN) != 0;
	r->epoch = get_le(d + off, 8);
	r->p95_ms = get_f64(d + off + 8);
	r->first_seen = get_f64(d + off + 16);
	r->last_seen = get_f64(d + off + 24);
	off += 32;
	for (k = 0; k < DG__COUNT; k++)
		if (have >> k & 1) {
			r->c[k] = get_le(d + off, 8);
			off += 8;
		}
	if (have & DGR_TEXT) {
		r->text = xmalloc(n - off + 1);
		memcpy(r->text, d + off, n - off);
		r->text[n - off] = '\0';
	}
}

/* One S_DIGEST_HIST field into s->digests; damaged fields are ignored. */
static void read_digest_hist(struct sample *s, const unsigned char *d, size_t n)
{
	struct dg_hist *h;
	char key[200];
	size_t kl, nb, i, off;
	if (n < 1 || (kl = d[0]) + 5 > n)
		return;
	nb = (size_t)get_le(d + 1 + kl, 4);
	off = 1 + kl + 4;
	if (nb > (n - off) / 20 || off + nb * 20 != n)
		return;
	get_str(key, sizeof key, d + 1, kl);
	if (!s->digests)
		s->digests = xcalloc(1, sizeof *s->digests);
	if ((h = digest_set_hist(s->digests, key)))
		h->n = 0;   /* a repeated key: the last one counts */
	else
		h = digest_set_add_hist(s->digests, key);
	for (i = 0; i < nb; i++, off += 20)
		dg_hist_add(h, (uint32_t)get_le(d + off, 4), get_le(d + off + 4, 8), get_le(d + off + 12, 8));
}

/* A length-first string at d[*off] into dst; false when it overruns n. */
static bool get_short(char *dst, size_t len, const unsigned char *d, size_t n, size_t *off)
{
	size_t l;
	if (*off >= n || (l = d[*off]) > n - *off - 1)
		return false;
	get_str(dst, len, d + *off + 1, l);
	*off += 1 + l;
	return true;
}

/* One S_LOCK_SESSION field; damaged fields are ignored. */
static void read_lock_session(struct sample *s, const unsigned char *d, size_t n)
{
	char user[64], state[48];
	size_t off = 33;
	if (n < 33 || !get_short(user, sizeof user, d, n, &off) || !get_short(state, sizeof state, d, n, &off))
		return;
	if (!s->locks)
		s->locks = lock_set_new();
	int i = lock_session_get(s->locks, (long long)get_le(d, 8));
	struct lock_session *x = &s->locks->s[i];
	x->state_s = get_f64(d + 8);
	x->trx_age_s = get_f64(d + 16);
	x->wait_s = get_f64(d + 24);
	str_copy(x->user, sizeof x->user, user);
	str_copy(x->state, sizeof x->state, state);
	if (d[32] & LKS_HAS_QUERY) {
		char *q = xmalloc(n - off + 1);
		memcpy(q, d + off, n - off);
		q[n - off] = '\0';
		lock_session_query(x, q, d[32] & LKS_QUERY_LAST);
		free(q);
	}
}

/* One S_LOCK_IDENT field (after its session's S_LOCK_SESSION); damaged
 * fields are ignored. */
static void read_lock_ident(struct sample *s, const unsigned char *d, size_t n)
{
	char trx_id[SESSION_TRX_ID_LEN];
	size_t off = 40;
	if (n < 40 || !s->locks || !get_short(trx_id, sizeof trx_id, d, n, &off))
		return;
	int i = lock_session_get(s->locks, (long long)get_le(d, 8));
	struct session_ident *id = &s->locks->s[i].ident;
	memset(id, 0, sizeof *id);
	id->known = true;
	id->start_us = (long long)get_le(d + 8, 8);
	id->xact_us = (long long)get_le(d + 16, 8);
	id->stmt_us = (long long)get_le(d + 24, 8);
	id->query_id = (long long)get_le(d + 32, 8);
	str_copy(id->trx_id, sizeof id->trx_id, trx_id);
	get_str(id->trx_started, sizeof id->trx_started, d + off, n - off);
}

/* One S_LOCK_EDGE field; damaged fields are ignored. */
static void read_lock_edge(struct sample *s, const unsigned char *d, size_t n)
{
	char obj[160], type[24], req[48], held[48];
	size_t off = 17;
	if (n < 17 || !get_short(obj, sizeof obj, d, n, &off) || !get_short(type, sizeof type, d, n, &off) ||
	    !get_short(req, sizeof req, d, n, &off) || !get_short(held, sizeof held, d, n, &off))
		return;
	if (!s->locks)
		s->locks = lock_set_new();
	struct lock_edge *e = lock_edge_add(s->locks, (long long)get_le(d, 8), (long long)get_le(d + 8, 8));
	if (!e)
		return;
	e->soft = d[16] & LKE_SOFT;
	str_copy(e->object, sizeof e->object, obj);
	str_copy(e->lock_type, sizeof e->lock_type, type);
	str_copy(e->requested, sizeof e->requested, req);
	str_copy(e->held, sizeof e->held, held);
	get_str(e->lock_data, sizeof e->lock_data, d + off, n - off);
}

/* One S_SESSION_META or S_SESSION field (put_sessions); damaged fields
 * are ignored. */
static void read_sessions(struct sample *s, int tag, const unsigned char *d, size_t n)
{
	if (tag == S_SESSION_META) {
		if (n < 17)
			return;
		if (!s->sessions)
			s->sessions = session_set_new();
		s->sessions->status = d[0] <= SESS_NOT_READ ? (enum session_status)d[0] : SESS_UNAVAILABLE;
		s->sessions->query_ms = get_f64(d + 1);
		s->sessions->age_s = get_f64(d + 9);
		get_str(s->sessions->note, sizeof s->sessions->note, d + 17, n - 17);
		return;
	}
	struct session t;
	size_t off = SS_FIXED;
	memset(&t, 0, sizeof t);
	if (n < SS_FIXED || !get_short(t.user, sizeof t.user, d, n, &off) || !get_short(t.db, sizeof t.db, d, n, &off) ||
	    !get_short(t.client, sizeof t.client, d, n, &off) || !get_short(t.app, sizeof t.app, d, n, &off) ||
	    !get_short(t.type, sizeof t.type, d, n, &off) || !get_short(t.state, sizeof t.state, d, n, &off) ||
	    !get_short(t.wait, sizeof t.wait, d, n, &off) || !get_short(t.digest, sizeof t.digest, d, n, &off) ||
	    !get_short(t.ident.trx_id, sizeof t.ident.trx_id, d, n, &off) ||
	    !get_short(t.ident.trx_started, sizeof t.ident.trx_started, d, n, &off))
		return;
	if (!s->sessions)
		s->sessions = session_set_new();
	struct session *x = session_add(s->sessions, (long long)get_le(d, 8));
	long long id = x->id;
	*x = t;
	x->id = id;
	x->cls = d[8] >= SC_ACTIVE && d[8] <= SC_OTHER ? (enum session_class)d[8] : SC_OTHER;
	x->self = d[9] & SS_SELF;
	x->ident.known = d[9] & SS_IDENT;
	x->state_s = get_f64(d + 10);
	x->trx_age_s = get_f64(d + 18);
	x->query_s = get_f64(d + 26);
	x->blocked_by = (long long)get_le(d + 34, 8);
	x->nblockers = (int)get_le(d + 42, 4);
	x->ident.start_us = (long long)get_le(d + 46, 8);
	x->ident.xact_us = (long long)get_le(d + 54, 8);
	x->ident.stmt_us = (long long)get_le(d + 62, 8);
	x->ident.query_id = (long long)get_le(d + 70, 8);
	x->query = NULL;
	if (d[9] & SS_HAS_QUERY) {
		char *q = xmalloc(n - off + 1);
		memcpy(q, d + off, n - off);
		q[n - off] = '\0';
		session_set_query(x, q, d[9] & SS_QUERY_LAST);
		free(q);
	} else {
		x->query_is_last = d[9] & SS_QUERY_LAST;
	}
}

static void sample_field(void *ctx, int tag, const unsigned char *d, size_t n)
{
	struct sample *s = ctx;
	uint64_t v = n == 8 ? get_le(d, 8) : 0;
	char buf[NOTE_LEN];
	int id;
	size_t nl;
	switch (tag) {
	case S_MONO: if (n == 8) s->mono = get_f64(d); break;
	case S_WALL: if (n == 8) s->wall = get_f64(d); break;
	case S_STATE: s->state = v <= STATE_STALLED ? (enum source_state)v : STATE_DOWN; break;
	case S_ERROR: get_str(s->error, sizeof s->error, d, n); break;
	case S_RETRY: if (n == 8) s->retry_in = get_f64(d); break;
	case S_CONN_GEN: s->conn_gen = (uint32_t)v; break;
	case S_QUERY_MS: if (n == 8) s->query_ms = get_f64(d); break;
	case S_NQUERIES: s->nqueries = (unsigned)v; break;
	case S_UPTIME: if (n == 8) s->uptime_s = get_f64(d); break;
	case S_COUNTER:
		if (n < 1)
			break;
		nl = d[0];
		if (n != 1 + nl + 16)
			break;
		id = ctr_by_name((const char *)d + 1, nl);
		if (id >= 0)  /* counters of newer versions are ignored */
			sample_set(s, id, get_le(d + 1 + nl, 8), get_le(d + 1 + nl + 8, 8));
		break;
	case S_SETTINGS_FRESH: s->settings_fresh = v != 0; break;
	case S_SETTING: {
		char name[48], value[64];
		if (n < 1 || (nl = d[0]) > n - 1)
			break;
		get_str(name, sizeof name, d + 1, nl);
		get_str(value, sizeof value, d + 1 + nl, n - 1 - nl);
		sample_setting(s, name, value);
		break;
	}
	case S_NOTE:
		get_str(buf, sizeof buf, d, n);
		notes_add(&s->notes, "%s", buf);
		break;
	case S_DIGEST_META:
		if (n < 17)
			break;
		if (!s->digests)
			s->digests = xcalloc(1, sizeof *s->digests);
		s->digests->partial = d[0] & DGM_PARTIAL;
		s->digests->sampled = d[0] & DGM_SAMPLED;
		s->digests->have_lost = d[0] & DGM_LOST;
		s->digests->estimates_only = d[0] & DGM_ESTIMATES;
		s->digests->sample_hz = get_f64(d + 1);
		s->digests->lost = get_le(d + 9, 8);
		get_str(s->digests->source, sizeof s->digests->source, d + 17, n - 17);
		break;
	case S_DIGEST:
		read_digest(s, d, n);
		break;
	case S_DIGESTS_SKIPPED:
		s->digests_skipped = v != 0;
		break;
	case S_WAITS_SKIPPED:
		s->waits_skipped = v != 0;
		break;
	case S_DIGEST_HIST:
		read_digest_hist(s, d, n);
		break;
	case S_DIGEST_SAMPLES: {
		/* the sample count of a row just read (the newest row of that key) */
		char key[200];
		size_t kl = n ? d[0] : 0;
		if (n < 1 || kl + 9 != n || !s->digests)
			break;
		get_str(key, sizeof key, d + 1, kl);
		for (size_t i = s->digests->n; i > 0; i--)
			if (strcmp(s->digests->rows[i - 1].key, key) == 0) {
				s->digests->rows[i - 1].samples = get_le(d + 1 + kl, 8);
				break;
			}
		break;
	}
	case S_DIGEST_SAMPLING:
		if (n != 12)
			break;
		if (!s->digests)
			s->digests = xcalloc(1, sizeof *s->digests);
		s->digests->rounds = get_le(d, 8);
		s->digests->sessions = (unsigned)get_le(d + 8, 4);
		break;
	case S_DIGEST_SPLIT:
		if (n != 8)
			break;
		if (!s->digests)
			s->digests = xcalloc(1, sizeof *s->digests);
		s->digests->split_n = (unsigned)get_le(d, 4);
		s->digests->split_k = (unsigned)get_le(d + 4, 4);
		break;
	case S_LOCK_META:
		if (n < 13)
			break;
		if (!s->locks)
			s->locks = lock_set_new();
		s->locks->status = d[0] <= LOCKS_UNAVAILABLE ? (enum lock_status)d[0] : LOCKS_UNAVAILABLE;
		s->locks->waiting = (unsigned)get_le(d + 1, 4);
		s->locks->query_ms = get_f64(d + 5);
		get_str(s->locks->note, sizeof s->locks->note, d + 13, n - 13);
		break;
	case S_LOCK_SESSION:
		read_lock_session(s, d, n);
		break;
	case S_LOCK_EDGE:
		read_lock_edge(s, d, n);
		break;
	case S_LOCK_IDENT:
		read_lock_ident(s, d, n);
		break;
	case S_SESSION_META:
	case S_SESSION:
		read_sessions(s, tag, d, n);
		break;
	case S_WAIT_META:
		if (n < 29)
			break;
		if (!s->waits)
			s->waits = wait_set_new(WS_NONE);
		s->waits->source = d[0] <= WS_PERF_SCHEMA ? (enum wait_source)d[0] : WS_NONE;
		s->waits->hz = get_f64(d + 1);
		s->waits->rounds = (unsigned)get_le(d + 9, 4);
		s->waits->period_ms = get_f64(d + 13);
		s->waits->cost_ms = get_f64(d + 21);
		get_str(s->waits->note, sizeof s->waits->note, d + 29, n - 29);
		break;
	case S_WAIT: {
		char name[WAIT_NAME_LEN];
		if (n < 17)
			break;
		if (!s->waits)
			s->waits = wait_set_new(WS_NONE);
		get_str(name, sizeof name, d + 16, n - 16);
		wait_set_add(s->waits, name, get_le(d, 8), get_le(d + 8, 8));
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

int rec_open_read(struct rec_reader *rd, const char *path, const void *buf, size_t len,
		  char *err, size_t errlen)
{
	unsigned char h[16];
	int type, rc;
	size_t n;

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
