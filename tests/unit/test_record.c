/* test_record.c - the recording format: round trip (bit-exact), file mode,
 * a cut at every byte of the last records, flipped bytes, huge lengths,
 * unknown record types / fields / counters, other formats and versions,
 * in-memory reading, a 2 GiB sparse file, redaction, a full disk, and the
 * fuzz corpus as a regression set. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../core/tunables.h"
#include "../../model/digests.h"
#include "../../model/events.h"
#include "../../model/locks.h"
#include "../../model/sessions.h"
#include "../../model/waits.h"
#include "../../record/record.h"
#include "../../util/util.h"
#include "tap.h"

static char tmpdir[256];
static char path_buf[4][512];
static int path_next;
/* tmpdir/name (valid for the next 3 calls). */
static const char *tpath(const char *name)
{
	char *p = path_buf[path_next++ % 4];
	snprintf(p, sizeof path_buf[0], "%s/%s", tmpdir, name);
	return p;
}

/* Put a reason into why and return 0 (false). */
static int fail(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return 0;
}

/* ---- files ---- */

static int write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok;
	if (!f)
		return -1;
	ok = fwrite(data, 1, n, f) == n;
	if (fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* The whole file in a new buffer (NULL on error); *n gets its size. */
static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	size_t cap = 0, len = 0, got;
	if (!f)
		return NULL;
	do {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			b = xrealloc(b, cap);
		}
		got = fread(b + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	fclose(f);
	*n = len;
	return b;
}

/* Does the n-byte buffer contain the string needle? */
static int contains(const unsigned char *b, size_t n, const char *needle)
{
	size_t k = strlen(needle), i;
	for (i = 0; i + k <= n; i++)
		if (memcmp(b + i, needle, k) == 0)
			return 1;
	return 0;
}

static void remove_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(tpath(e->d_name));
	closedir(d);
	rmdir(tmpdir);
}

/* ---- the reference recording ---- */

#define NSAMP 10
#define NREC (NSAMP + 3)  /* HEADER, CAPS a, S0..S4, CAPS b, S5..S9 */

static struct rec_header g_hdr;
static struct caps g_caps[2];
static uint32_t g_gen[2] = {7, 0xfffffff0u};
static struct sample g_samp[NSAMP];

/* The records of a file written by write_ref(): what each one is and where. */
struct layout {
	int type[NREC];   /* REC_HEADER / REC_CAPS / REC_SAMPLE */
	int idx[NREC];    /* index into g_caps or g_samp */
	size_t start[NREC], end[NREC];
	size_t size;
};

static void make_header(struct rec_header *h)
{
	memset(h, 0, sizeof *h);
	str_copy(h->engine, sizeof h->engine, "mariadb");
	str_copy(h->server_version, sizeof h->server_version, "10.11.6-MariaDB-0+deb12u1-log");
	str_copy(h->host, sizeof h->host, "db-primary.example.internal:3306");
	str_copy(h->dbtop_version, sizeof h->dbtop_version, "1.0.0-test");
	h->start_wall = 1795978222.123456;
	h->interval = 0.1;
}

static void make_caps(void)
{
	struct caps *a = &g_caps[0], *b = &g_caps[1];

	memset(a, 0, sizeof *a);
	a->engine = ENGINE_MYSQL;
	a->flavour = FLAVOUR_MARIADB;
	str_copy(a->version, sizeof a->version, "10.11.6-MariaDB-0+deb12u1-log");
	a->version_num = 101106;
	a->perf_schema = true;
	a->ps_readable = false;
	a->ps_redo_file = true;
	a->ps_binlog_file = true;
	a->has_os_log_fsyncs = false;
	a->binlog_on = true;
	a->priv_process = true;
	a->priv_super = false;
	a->track_wal_io_timing = true;
	a->in_recovery = false;
	a->superuser = true;
	a->pg_monitor = false;
	a->ps_digests = true;
	a->ps_digest_p95 = false;
	str_copy(a->redo_fsync_source, sizeof a->redo_fsync_source,
		 "performance_schema.file_summary_by_instance (ib_logfile0)");
	str_copy(a->commit_source, sizeof a->commit_source, "Handler_commit - own commits");
	a->pgss_version = 0;
	a->pg_wait_sampling = 0;
	a->wal_stats = WAL_NONE;
	notes_add(&a->notes, "binlog fsyncs need performance_schema file instruments");
	notes_add(&a->notes, "grant PROCESS to see %s", "the processlist");
	notes_add(&a->notes, "durée ≥ 5 ms — ok");

	/* the other connection: every value different, every flag flipped */
	memset(b, 0, sizeof *b);
	b->engine = ENGINE_POSTGRESQL;
	b->flavour = FLAVOUR_POSTGRESQL;
	str_copy(b->version, sizeof b->version, "18.0 (Debian 18.0-1.pgdg120+1)");
	b->version_num = 180000;
	b->perf_schema = !a->perf_schema;
	b->ps_readable = !a->ps_readable;
	b->ps_redo_file = !a->ps_redo_file;
	b->ps_binlog_file = !a->ps_binlog_file;
	b->has_os_log_fsyncs = !a->has_os_log_fsyncs;
	b->binlog_on = !a->binlog_on;
	b->priv_process = !a->priv_process;
	b->priv_super = !a->priv_super;
	b->track_wal_io_timing = !a->track_wal_io_timing;
	b->in_recovery = !a->in_recovery;
	b->superuser = !a->superuser;
	b->pg_monitor = !a->pg_monitor;
	b->ps_digests = !a->ps_digests;
	b->ps_digest_p95 = !a->ps_digest_p95;
	str_copy(b->redo_fsync_source, sizeof b->redo_fsync_source, "");
	str_copy(b->commit_source, sizeof b->commit_source, "pg_stat_database.xact_commit");
	b->pgss_version = 111;
	b->pg_wait_sampling = 1;
	b->wal_stats = WAL_STAT_IO;
	notes_add(&b->notes, "pg_stat_io is used for WAL syncs");
}

static void make_sample(struct sample *s, int i)
{
	int j;
	memset(s, 0, sizeof *s);
	s->mono = 12345.678901 + i * 1.000001;
	s->wall = 1795978222.123456 + i * 0.1;
	s->state = i == 3 || i == 8 ? STATE_DOWN : i == 4 || i == 6 ? STATE_STALLED : STATE_UP;
	if (s->state == STATE_DOWN)
		str_printf(s->error, sizeof s->error,
			   "Lost connection to server at 'handshake: reading initial communication packet', system error: %d",
			   104 + i);
	else if (s->state == STATE_STALLED)
		memset(s->error, 'x', sizeof s->error - 1); /* the longest error text */
	s->retry_in = i == 3 ? INFINITY : i == 8 ? 0.1 : 0.0;
	s->conn_gen = i < 5 ? g_gen[0] : g_gen[1];
	s->query_ms = i == 4 ? -0.0 : i == 6 ? NAN : i == 7 ? 1e-300 : 0.1 + i;
	s->nqueries = i == 7 ? UINT_MAX : (unsigned)i * 3;
	s->uptime_s = s->state == STATE_DOWN ? 0 : 86400.5 * 3 + i * 0.1;
	if (s->state != STATE_DOWN) {
		for (j = 0; j < CTR__COUNT; j++) {
			uint64_t v, epoch;
			if ((i + j) % 3 == 0)
				continue;  /* some counters are not present */
			switch (j % 4) {
			case 0: v = UINT64_MAX - (uint64_t)i; break;
			case 1: v = (uint64_t)i * 1000003u + (uint64_t)j; break;
			case 2: v = 0; break;
			default: v = (UINT64_C(1) << 63) + (uint64_t)j; break;
			}
			epoch = j % 2 ? UINT64_C(1764400000) + (uint64_t)(i / 5) : UINT64_MAX - (uint64_t)j;
			sample_set(s, (enum ctr_id)j, v, epoch);
		}
	}
	s->settings_fresh = i % 3 == 0;
	if (i == 0) {
		char name[48], value[64];
		for (j = 0; j < SETTINGS_MAX; j++) {
			snprintf(name, sizeof name, "setting_%02d", j);
			snprintf(value, sizeof value, "%d", j * 7);
			sample_setting(s, name, value);
		}
		/* the longest name and value a setting holds */
		memset(name, 'n', sizeof name - 1);
		name[sizeof name - 1] = '\0';
		memset(value, 'v', sizeof value - 1);
		value[sizeof value - 1] = '\0';
		str_copy(s->settings[SETTINGS_MAX - 1].name, sizeof name, name);
		str_copy(s->settings[SETTINGS_MAX - 1].value, sizeof value, value);
	} else if (s->settings_fresh) {
		sample_setting(s, "innodb_flush_log_at_trx_commit", i == 3 ? "2" : "1");
		sample_setting(s, "sync_binlog", "1");
		sample_setting(s, "wal_writer_delay", "200ms");
		sample_setting(s, "empty", "");
	}
	if (i == 9) {
		char note[NOTE_LEN];
		for (j = 0; j < NOTES_MAX - 1; j++)
			notes_add(&s->notes, "note %d of a full list", j);
		memset(note, 'n', sizeof note - 1);
		note[sizeof note - 1] = '\0';
		notes_add(&s->notes, "%s", note);
	} else if (i % 2) {
		notes_add(&s->notes, "Innodb_os_log_fsyncs missing: redo fsyncs from %s", "P_S");
		notes_add(&s->notes, "durée ≥ 5 ms — 日本語");
	}
}

static void make_ref(void)
{
	int i;
	make_header(&g_hdr);
	make_caps();
	for (i = 0; i < NSAMP; i++)
		make_sample(&g_samp[i], i);
}

/* Write the reference recording to path; fills lay. Returns 0 or -1. */
static int write_ref(const char *path, struct layout *lay, bool redact)
{
	struct recorder r;
	char err[256];
	int k = 0, i, rc = 0;

	memset(lay, 0, sizeof *lay);
	unlink(path);   /* a recording is always a new file */
	if (rec_open_write(&r, path, &g_hdr, redact, err, sizeof err) < 0) {
		printf("# rec_open_write %s: %s\n", path, err);
		return -1;
	}
	lay->type[k] = REC_HEADER;
	lay->start[k] = 16;
	lay->end[k] = (size_t)r.bytes;
	k++;
	for (i = 0; i < NSAMP && rc == 0; i++) {
		if (i == 0 || i == 5) {
			lay->type[k] = REC_CAPS;
			lay->idx[k] = i ? 1 : 0;
			lay->start[k] = (size_t)r.bytes;
			rc |= rec_write_caps(&r, &g_caps[lay->idx[k]], g_gen[lay->idx[k]], err, sizeof err);
			lay->end[k] = (size_t)r.bytes;
			k++;
		}
		lay->type[k] = REC_SAMPLE;
		lay->idx[k] = i;
		lay->start[k] = (size_t)r.bytes;
		rc |= rec_write_sample(&r, &g_samp[i], err, sizeof err);
		lay->end[k] = (size_t)r.bytes;
		k++;
	}
	lay->size = (size_t)r.bytes;
	rec_close(&r);
	if (rc)
		printf("# writing %s: %s\n", path, err);
	return rc ? -1 : 0;
}

/* ---- comparing ---- */

static int same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static int header_equal(const struct rec_header *a, const struct rec_header *b, char *why, size_t n)
{
	if (strcmp(a->engine, b->engine))
		return fail(why, n, "engine '%s' != '%s'", a->engine, b->engine);
	if (strcmp(a->server_version, b->server_version))
		return fail(why, n, "server_version '%s'", a->server_version);
	if (strcmp(a->host, b->host))
		return fail(why, n, "host '%s'", a->host);
	if (strcmp(a->dbtop_version, b->dbtop_version))
		return fail(why, n, "dbtop_version '%s'", a->dbtop_version);
	if (!same_double(a->start_wall, b->start_wall))
		return fail(why, n, "start_wall %.17g", a->start_wall);
	if (!same_double(a->interval, b->interval))
		return fail(why, n, "interval %.17g", a->interval);
	if (a->redacted != b->redacted)
		return fail(why, n, "redacted %d", a->redacted);
	return 1;
}

static int notes_equal(const struct notes *a, const struct notes *b, char *why, size_t n)
{
	int i;
	if (a->n != b->n)
		return fail(why, n, "%d notes, want %d", a->n, b->n);
	for (i = 0; i < a->n; i++)
		if (strcmp(a->msg[i], b->msg[i]))
			return fail(why, n, "note %d '%s' != '%s'", i, a->msg[i], b->msg[i]);
	return 1;
}

static int caps_equal(const struct caps *a, const struct caps *b, char *why, size_t n)
{
#define F(f) if (a->f != b->f) return fail(why, n, "caps." #f " %ld != %ld", (long)a->f, (long)b->f);
	F(engine) F(flavour) F(version_num) F(perf_schema) F(ps_readable) F(ps_redo_file)
	F(ps_binlog_file) F(has_os_log_fsyncs) F(binlog_on) F(priv_process) F(priv_super)
	F(pgss_version) F(pg_wait_sampling) F(wal_stats) F(track_wal_io_timing) F(in_recovery)
	F(superuser) F(pg_monitor) F(ps_digests) F(ps_digest_p95)
#undef F
	if (strcmp(a->version, b->version))
		return fail(why, n, "caps.version '%s'", a->version);
	if (strcmp(a->redo_fsync_source, b->redo_fsync_source))
		return fail(why, n, "caps.redo_fsync_source '%s'", a->redo_fsync_source);
	if (strcmp(a->commit_source, b->commit_source))
		return fail(why, n, "caps.commit_source '%s'", a->commit_source);
	return notes_equal(&a->notes, &b->notes, why, n);
}

static int sample_equal(const struct sample *a, const struct sample *b, char *why, size_t n)
{
	int i;
	if (!same_double(a->mono, b->mono))
		return fail(why, n, "mono %.17g != %.17g", a->mono, b->mono);
	if (!same_double(a->wall, b->wall))
		return fail(why, n, "wall %.17g != %.17g", a->wall, b->wall);
	if (a->state != b->state)
		return fail(why, n, "state %d != %d", a->state, b->state);
	if (strcmp(a->error, b->error))
		return fail(why, n, "error '%s' != '%s'", a->error, b->error);
	if (!same_double(a->retry_in, b->retry_in))
		return fail(why, n, "retry_in %.17g", a->retry_in);
	if (a->conn_gen != b->conn_gen)
		return fail(why, n, "conn_gen %u != %u", a->conn_gen, b->conn_gen);
	if (!same_double(a->query_ms, b->query_ms))
		return fail(why, n, "query_ms %.17g", a->query_ms);
	if (a->nqueries != b->nqueries)
		return fail(why, n, "nqueries %u != %u", a->nqueries, b->nqueries);
	if (!same_double(a->uptime_s, b->uptime_s))
		return fail(why, n, "uptime_s %.17g != %.17g", a->uptime_s, b->uptime_s);
	if ((a->digests != NULL) != (b->digests != NULL))
		return fail(why, n, "digests %p, want %p", (void *)a->digests, (void *)b->digests);
	for (i = 0; i < CTR__COUNT; i++) {
		const struct ctr *x = &a->c[i], *y = &b->c[i];
		if (x->present != y->present)
			return fail(why, n, "counter %s present %d, want %d", ctr_name(i),
					       x->present, y->present);
		if (x->present && (x->v != y->v || x->epoch != y->epoch))
			return fail(why, n, "counter %s %llu/%llu != %llu/%llu", ctr_name(i),
					       (unsigned long long)x->v, (unsigned long long)x->epoch,
					       (unsigned long long)y->v, (unsigned long long)y->epoch);
	}
	if (a->settings_fresh != b->settings_fresh)
		return fail(why, n, "settings_fresh %d", a->settings_fresh);
	if (a->nsettings != b->nsettings)
		return fail(why, n, "%d settings, want %d", a->nsettings, b->nsettings);
	for (i = 0; i < a->nsettings; i++)
		if (strcmp(a->settings[i].name, b->settings[i].name) ||
		    strcmp(a->settings[i].value, b->settings[i].value))
			return fail(why, n, "setting %d %s=%s, want %s=%s", i,
					       a->settings[i].name, a->settings[i].value,
					       b->settings[i].name, b->settings[i].value);
	return notes_equal(&a->notes, &b->notes, why, n);
}

/* Does item it equal record k of the reference layout? */
static int item_is(const struct rec_item *it, const struct layout *lay, int k, char *why, size_t n)
{
	if ((int)it->type != lay->type[k])
		return fail(why, n, "type %d, want %d", it->type, lay->type[k]);
	if (it->type == REC_CAPS) {
		if (it->conn_gen != g_gen[lay->idx[k]])
			return fail(why, n, "conn_gen %u", it->conn_gen);
		return caps_equal(&it->caps, &g_caps[lay->idx[k]], why, n);
	}
	return sample_equal(&it->sample, &g_samp[lay->idx[k]], why, n);
}

/* ---- reading ---- */

#define MAXITEMS 64

struct readout {
	int rc;                    /* of rec_open_read */
	char err[256];
	struct rec_reader rd;      /* counters after the end (closed) */
	size_t n;                  /* items returned */
	size_t digests;            /* samples that came with a digest set */
	struct rec_item *items;    /* the first MAXITEMS */
	char summary[512];
};

/* Read a whole recording (path, or buf/len) into o. */
static void read_all(struct readout *o, const char *path, const void *buf, size_t len)
{
	struct rec_item it;
	if (!o->items)
		o->items = xcalloc(MAXITEMS, sizeof *o->items);
	o->n = o->digests = 0;
	o->err[0] = o->summary[0] = '\0';
	o->rc = rec_open_read(&o->rd, path, buf, len, o->err, sizeof o->err);
	if (o->rc < 0)
		return;
	while (o->n < 100000 && rec_next(&o->rd, &it) == 1) {
		if (o->n < MAXITEMS) {
			o->items[o->n] = it;
			o->items[o->n].sample.digests = NULL;  /* freed below */
			o->items[o->n].sample.locks = NULL;
			o->items[o->n].sample.waits = NULL;
		}
		if (it.type == REC_SAMPLE && it.sample.digests)
			o->digests++;
		digest_set_free(it.sample.digests);
		lock_set_free(it.sample.locks);
		wait_set_free(it.sample.waits);
		o->n++;
	}
	rec_reader_summary(&o->rd, o->summary, sizeof o->summary);
	rec_reader_close(&o->rd);
}

static void readout_free(struct readout *o)
{
	free(o->items);
	o->items = NULL;
}

/* Are the items of o records 1..NREC-1 of lay in order, except the
 * records in [skip_from, skip_to) and those from upto on? */
static int items_match(const struct readout *o, const struct layout *lay, int skip_from, int skip_to,
		       int upto, char *why, size_t n)
{
	size_t m = 0;
	int k;
	for (k = 1; k < upto; k++) {
		if (k >= skip_from && k < skip_to)
			continue;
		if (m >= o->n)
			return fail(why, n, "only %zu items, record %d missing", o->n, k);
		if (!item_is(&o->items[m], lay, k, why, n)) {
			size_t l = strlen(why);
			str_printf(why + l, n - l, " (item %zu, record %d)", m, k);
			return 0;
		}
		m++;
	}
	if (m != o->n)
		return fail(why, n, "%zu items, want %zu", o->n, m);
	return 1;
}

/* ---- tests ---- */

static struct layout ref;          /* of tpath("ref.dbrec") */
static unsigned char *ref_buf;     /* its bytes */
static size_t ref_len;

static void test_round_trip(void)
{
	struct readout o = {0};
	char why[512] = "";
	int ok, k;

	CHECK(write_ref(tpath("ref.dbrec"), &ref, false) == 0, "round trip: reference recording written");
	ref_buf = slurp(tpath("ref.dbrec"), &ref_len);
	CHECK(ref_buf && ref_len == ref.size, "round trip: file size equals the bytes the recorder counted");
	CHECK(ref_buf && ref_len >= 16 && memcmp(ref_buf, "DBTOPREC\1\0\0\0\0\0\0\0", 16) == 0,
	      "round trip: file header is DBTOPREC, 1.0, 0");
	ok = ref_buf != NULL;
	for (k = 0; ok && k < NREC; k++) {
		const unsigned char *p = ref_buf + ref.start[k];
		uint32_t len = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
		uint32_t crc = rec_crc32(0, p + 4, 5 + len), stored;
		memcpy(&stored, p + 9 + len, 4);
		ok = p[0] == 'D' && p[1] == 'B' && p[2] == 'T' && p[3] == 'R' && p[8] == ref.type[k] &&
		     ref.start[k] + 13 + len == ref.end[k] && crc == stored;
	}
	CHECK(ok, "round trip: every record is sync, length, type, payload, CRC-32 as documented");
	CHECK(rec_crc32(0, "123456789", 9) == 0xcbf43926u, "crc32: check value of \"123456789\"");
	CHECK(rec_crc32(rec_crc32(0, "12345", 5), "6789", 4) == 0xcbf43926u, "crc32: continues across calls");

	read_all(&o, tpath("ref.dbrec"), NULL, 0);
	CHECK(o.rc == 0, "round trip: rec_open_read succeeds");
	CHECK(o.rd.major == REC_MAJOR && o.rd.minor == REC_MINOR && o.rd.have_hdr,
	      "round trip: version 1.0 and header read");
	ok = header_equal(&o.rd.hdr, &g_hdr, why, sizeof why);
	CHECK(ok, tname("round trip: header fields equal%s%s", ok ? "" : ": ", why));
	CHECK(o.n == NREC - 1, tname("round trip: %d items (2 CAPS + %d SAMPLE), got %zu", NREC - 1, NSAMP, o.n));
	for (k = 1; k < NREC && (size_t)(k - 1) < o.n; k++) {
		why[0] = '\0';
		ok = item_is(&o.items[k - 1], &ref, k, why, sizeof why);
		CHECK(ok, tname("round trip: record %d (%s %d) equal field by field%s%s", k,
			     ref.type[k] == REC_CAPS ? "CAPS" : "SAMPLE", ref.idx[k], ok ? "" : ": ", why));
	}
	CHECK(o.n >= 3 && !o.items[2].sample.c[CTR_ROLLBACKS].present && o.items[2].sample.c[CTR_COMMITS].present,
	      "round trip: counters not written stay not present");
	CHECK(o.n >= 5 && isinf(o.items[4].sample.retry_in) && o.items[4].sample.state == STATE_DOWN,
	      "round trip: DOWN sample with retry_in = inf");
	CHECK(o.n >= 9 && isnan(o.items[8].sample.query_ms), "round trip: NaN survives");
	CHECK(o.n >= 6 && signbit(o.items[5].sample.query_ms) && o.items[5].sample.query_ms == 0,
	      "round trip: -0.0 keeps its sign");
	CHECK(o.rd.records == NREC && !o.rd.truncated && o.rd.corrupt == 0 && o.rd.unknown == 0 &&
	      o.rd.skipped_bytes == 0 && o.rd.offset == ref.size,
	      "round trip: reader counts every record, nothing skipped, offset = file size");
	CHECK(strstr(o.summary, "13 records") && !strstr(o.summary, "damaged") && !strstr(o.summary, "cut off"),
	      tname("round trip: summary '%s'", o.summary));
	readout_free(&o);
}

static void test_mode(void)
{
	struct recorder r;
	struct stat st;
	char err[256];
	int fd;

	CHECK(stat(tpath("ref.dbrec"), &st) == 0 && (st.st_mode & 07777) == 0600,
	      tname("mode: new recording is 0600 (got %04o)", (unsigned)(st.st_mode & 07777)));

	fd = open(tpath("old.dbrec"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		fchmod(fd, 0644);
		if (write(fd, "old contents, longer than a header record ......", 48) < 0)
			perror("write");
		close(fd);
	}
	CHECK(stat(tpath("old.dbrec"), &st) == 0 && (st.st_mode & 07777) == 0644, "mode: existing file starts 0644");
	err[0] = '\0';
	CHECK(rec_open_write(&r, tpath("old.dbrec"), &g_hdr, false, err, sizeof err) == -1 && strstr(err, "it exists"),
	      tname("exists: rec_open_write refuses an existing file ('%s')", err));
	CHECK(stat(tpath("old.dbrec"), &st) == 0 && (st.st_mode & 07777) == 0644 && st.st_size == 48,
	      tname("exists: the existing file is untouched (%04o, %lld bytes)", (unsigned)(st.st_mode & 07777),
		    (long long)st.st_size));

	/* a FIFO (someone else's reader) or a device: refused, mode kept */
	if (mkfifo(tpath("fifo"), 0644) == 0) {
		int rfd = open(tpath("fifo"), O_RDONLY | O_NONBLOCK);  /* so a writer would not block */
		chmod(tpath("fifo"), 0644);
		err[0] = '\0';
		CHECK(rec_open_write(&r, tpath("fifo"), &g_hdr, false, err, sizeof err) == -1 && strstr(err, "it exists"),
		      tname("exists: a FIFO is refused ('%s')", err));
		CHECK(stat(tpath("fifo"), &st) == 0 && (st.st_mode & 07777) == 0644,
		      tname("exists: the FIFO keeps its mode (%04o)", (unsigned)(st.st_mode & 07777)));
		if (rfd >= 0)
			close(rfd);
		unlink(tpath("fifo"));
	}
	CHECK(rec_open_write(&r, "/dev/null", &g_hdr, false, err, sizeof err) == -1, "exists: a device is refused");

	/* umask 000: a new recording is still 0600 */
	{
		mode_t old_mask = umask(0);
		unlink(tpath("umask.dbrec"));
		CHECK(rec_open_write(&r, tpath("umask.dbrec"), &g_hdr, false, err, sizeof err) == 0,
		      "mode: rec_open_write under umask 000");
		rec_close(&r);
		CHECK(stat(tpath("umask.dbrec"), &st) == 0 && (st.st_mode & 07777) == 0600,
		      tname("mode: new recording under umask 000 is 0600 (got %04o)", (unsigned)(st.st_mode & 07777)));
		umask(old_mask);
	}

	/* a symbolic link at the path is refused, whatever it points to, and
	 * nothing is written through it */
	fd = open(tpath("victim"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		fchmod(fd, 0644);
		if (write(fd, "victim contents\n", 16) < 0)
			perror("write");
		close(fd);
	}
	unlink(tpath("link.dbrec"));
	if (symlink(tpath("victim"), tpath("link.dbrec")) == 0) {
		err[0] = '\0';
		CHECK(rec_open_write(&r, tpath("link.dbrec"), &g_hdr, false, err, sizeof err) == -1 &&
		      strstr(err, "symbolic link") && strstr(err, "link.dbrec"),
		      tname("symlink: a link to an existing file is refused ('%s')", err));
		rec_close(&r);
		CHECK(stat(tpath("victim"), &st) == 0 && st.st_size == 16 && (st.st_mode & 07777) == 0644,
		      tname("symlink: the file it points to is untouched (%lld bytes, %04o)",
			 (long long)st.st_size, (unsigned)(st.st_mode & 07777)));
		CHECK(lstat(tpath("link.dbrec"), &st) == 0 && S_ISLNK(st.st_mode),
		      "symlink: the link itself is left in place");
		unlink(tpath("link.dbrec"));
	} else {
		CHECK(0, "symlink: could not create the test link");
	}
	unlink(tpath("dangling-target"));
	unlink(tpath("dangling.dbrec"));
	if (symlink(tpath("dangling-target"), tpath("dangling.dbrec")) == 0) {
		err[0] = '\0';
		CHECK(rec_open_write(&r, tpath("dangling.dbrec"), &g_hdr, false, err, sizeof err) == -1 &&
		      strstr(err, "symbolic link"),
		      tname("symlink: a dangling link is refused ('%s')", err));
		rec_close(&r);
		CHECK(lstat(tpath("dangling-target"), &st) == -1 && errno == ENOENT,
		      "symlink: nothing is created where a dangling link points");
		unlink(tpath("dangling.dbrec"));
	} else {
		CHECK(0, "symlink: could not create the dangling test link");
	}
	/* a regular file with a second name: writing would change the other name too */
	unlink(tpath("hardlink.dbrec"));
	if (link(tpath("victim"), tpath("hardlink.dbrec")) == 0) {
		err[0] = '\0';
		CHECK(rec_open_write(&r, tpath("hardlink.dbrec"), &g_hdr, false, err, sizeof err) == -1 &&
		      strstr(err, "it exists"),
		      tname("hard link: a file with other names is refused ('%s')", err));
		rec_close(&r);
		CHECK(stat(tpath("victim"), &st) == 0 && st.st_size == 16 && (st.st_mode & 07777) == 0644,
		      "hard link: the file is untouched");
		unlink(tpath("hardlink.dbrec"));
	}
	unlink(tpath("victim"));

	CHECK(rec_open_write(&r, tpath("no/such/dir.dbrec"), &g_hdr, false, err, sizeof err) == -1 &&
	      strstr(err, "cannot create") && strstr(err, "No such file"),
	      tname("mode: unwritable path fails with a message ('%s')", err));
	rec_close(&r);
}

/* A counter whose value is the sync marker (0x52544244 = 1381253700, a
 * plausible commit count) puts "DBTR" bytes inside a record. A file cut
 * inside such a record is still only cut: nothing in it is damaged. */
static void test_cut_with_marker_inside(void)
{
	struct recorder r;
	struct sample *s = xcalloc(1, sizeof *s);
	struct readout o = {0};
	unsigned char *b;
	size_t n = 0, last = 0, c, i, start3 = 0;
	char err[256];
	int bad = 0, ok = 1;
	size_t first = 0;
	unsigned long long first_corrupt = 0;

	if (rec_open_write(&r, tpath("marker.dbrec"), &g_hdr, false, err, sizeof err) < 0)
		ok = 0;
	for (i = 0; ok && i < 3; i++) {
		memset(s, 0, sizeof *s);
		s->mono = (double)i;
		s->state = STATE_UP;
		sample_set(s, CTR_COMMITS, REC_SYNC, 7);
		sample_set(s, CTR_FSYNCS, 5, 7);
		if (i == 2)
			start3 = (size_t)r.bytes;
		ok = rec_write_sample(&r, s, err, sizeof err) == 0;
	}
	rec_close(&r);
	b = ok ? slurp(tpath("marker.dbrec"), &n) : NULL;
	for (i = start3 + 4; b && i + 4 <= n; i++)
		if (memcmp(b + i, "DBTR", 4) == 0)
			last = i;
	CHECK(b && last > start3, "cut with marker inside: the last record holds the bytes DBTR");
	for (c = last + 1; b && last && c < n; c++) {
		read_all(&o, NULL, b, c);
		if (o.rc != 0 || o.n != 2 || !o.rd.truncated || o.rd.corrupt != 0) {
			if (!bad++) {
				first = c;
				first_corrupt = (unsigned long long)o.rd.corrupt;
			}
		}
	}
	CHECK(bad == 0, tname("cut with marker inside: every cut after the marker reads as cut off with 2 whole "
			   "samples and no damaged record (%d of %zu cuts wrong, first at %zu: corrupt %llu)",
			   bad, n - last - 1, first, first_corrupt));
	free(b);
	free(s);
	readout_free(&o);
	unlink(tpath("marker.dbrec"));
}

/* Cut the reference file at every byte of its last 3 records. */
static void test_truncation(void)
{
	struct readout o = {0}, m = {0};
	const char *p = tpath("cut.dbrec");
	size_t from = ref.start[NREC - 3], c;
	int bad_items = 0, bad_flag = 0, bad_mem = 0, bad_open = 0, bad_sum = 0;
	size_t first_items = 0, first_flag = 0, first_mem = 0;
	char why[512] = "", first_why[512] = "";

	if (!ref_buf || write_file(p, ref_buf, ref_len) != 0) {
		CHECK(0, "truncation: copy of the reference file");
		return;
	}
	/* from the full file down to the start of the third record from the end */
	for (c = ref.size; c + 1 > from; c--) {
		int upto = 1, k, boundary = 0;
		if (truncate(p, (off_t)c) != 0) {
			CHECK(0, tname("truncation: truncate(%zu): %s", c, strerror(errno)));
			break;
		}
		for (k = 0; k < NREC; k++) {
			if (ref.end[k] <= c)
				upto = k + 1;
			if (ref.end[k] == c)
				boundary = 1;
		}
		read_all(&o, p, NULL, 0);
		if (o.rc != 0) {
			bad_open++;
			continue;
		}
		if (!items_match(&o, &ref, 0, 0, upto, why, sizeof why)) {
			if (!bad_items++) {
				first_items = c;
				str_copy(first_why, sizeof first_why, why);
			}
		}
		if (o.rd.truncated != !boundary || o.rd.corrupt != 0) {
			if (!bad_flag++)
				first_flag = c;
		}
		if (!boundary && !strstr(o.summary, "cut off"))
			bad_sum++;
		/* the same bytes from memory */
		read_all(&m, NULL, ref_buf, c);
		if (m.rc != 0 || m.n != o.n || m.rd.truncated != o.rd.truncated || m.rd.records != o.rd.records) {
			if (!bad_mem++)
				first_mem = c;
		}
	}
	CHECK(bad_open == 0, tname("truncation: rec_open_read succeeds at all %zu cuts (%d failed)",
				ref.size - from + 1, bad_open));
	CHECK(bad_items == 0, tname("truncation: every whole record before the cut reads back intact "
				 "(%d cuts wrong, first at %zu: %s)", bad_items, first_items, first_why));
	CHECK(bad_flag == 0, tname("truncation: truncated set exactly when the cut is inside a record, never corrupt "
				"(%d cuts wrong, first at %zu)", bad_flag, first_flag));
	CHECK(bad_sum == 0, "truncation: summary says the file is cut off");
	CHECK(bad_mem == 0, tname("truncation: in-memory reading of each cut agrees (%d wrong, first at %zu)",
			       bad_mem, first_mem));
	readout_free(&o);
	readout_free(&m);
	unlink(p);
	test_cut_with_marker_inside();
}

/* Cuts inside the file header and the HEADER record. */
static void test_header_cuts(void)
{
	struct rec_reader rd;
	const char *p = tpath("hcut.dbrec");
	char err[256];
	size_t c;
	int bad_file = 0, bad_rec = 0, bad_mem = 0;
	size_t first_file = 0, first_rec = 0;
	char first_err[256] = "", first_err2[256] = "";

	if (!ref_buf)
		return;
	for (c = 0; c < ref.end[0]; c++) {
		int rc;
		write_file(p, ref_buf, c);
		err[0] = '\0';
		rc = rec_open_read(&rd, p, NULL, 0, err, sizeof err);
		if (rc == 0)
			rec_reader_close(&rd);
		if (c < 16) {
			if (rc != -1 || !strstr(err, "not a dbtop recording")) {
				if (!bad_file++) {
					first_file = c;
					str_copy(first_err, sizeof first_err, err);
				}
			}
		} else if (rc != -1 || !strstr(err, "cut off before its header")) {
			if (!bad_rec++) {
				first_rec = c;
				str_copy(first_err2, sizeof first_err2, err);
			}
		}
		if (c > 0) {
			rc = rec_open_read(&rd, NULL, ref_buf, c, err, sizeof err);
			if (rc == 0) {
				rec_reader_close(&rd);
				bad_mem++;
			}
		}
	}
	CHECK(bad_file == 0, tname("header cut: inside the 16-byte file header -> 'not a dbtop recording' "
				"(%d wrong, first at %zu: '%s')", bad_file, first_file, first_err));
	CHECK(bad_rec == 0, tname("header cut: inside the HEADER record -> 'cut off before its header record' "
			       "(%d wrong, first at %zu: '%s')", bad_rec, first_rec, first_err2));
	CHECK(bad_mem == 0, "header cut: in-memory reading of the same cuts fails too");
	unlink(p);
}

/* Flip bytes of a record in the middle: it is skipped, the rest reads. */
static void test_flips(void)
{
	static const struct {
		const char *what;
		int pos;   /* from the record start; negative: from its end */
	} where[] = {
		{"sync[0]", 0}, {"sync[1]", 1}, {"sync[2]", 2}, {"sync[3]", 3},
		{"length[0]", 4}, {"length[1]", 5}, {"length[2]", 6}, {"length[3]", 7},
		{"type", 8}, {"payload[0]", 9}, {"payload[middle]", 1000}, {"payload[last]", -5},
		{"crc[0]", -4}, {"crc[1]", -3}, {"crc[2]", -2}, {"crc[3]", -1},
	};
	static const unsigned char masks[] = {0x01, 0xff};
	const int k = 6;  /* SAMPLE 4, with 6 records after it */
	unsigned char *b;
	struct readout o = {0};
	size_t w, mi;

	if (!ref_buf)
		return;
	b = xmalloc(ref_len);
	for (w = 0; w < sizeof where / sizeof where[0]; w++) {
		for (mi = 0; mi < sizeof masks; mi++) {
			size_t at;
			char why[512] = "";
			int ok;
			if (where[w].pos == 1000)
				at = (ref.start[k] + ref.end[k]) / 2;
			else if (where[w].pos < 0)
				at = ref.end[k] - (size_t)-where[w].pos;
			else
				at = ref.start[k] + (size_t)where[w].pos;
			memcpy(b, ref_buf, ref_len);
			b[at] ^= masks[mi];
			write_file(tpath("flip.dbrec"), b, ref_len);
			read_all(&o, tpath("flip.dbrec"), NULL, 0);
			CHECK(o.rc == 0 && o.rd.corrupt >= 1 && !o.rd.truncated,
			      tname("flip %s ^0x%02x: damaged record counted (corrupt %llu, truncated %d)",
				 where[w].what, masks[mi], (unsigned long long)o.rd.corrupt, o.rd.truncated));
			ok = o.rc == 0 && items_match(&o, &ref, k, k + 1, NREC, why, sizeof why);
			CHECK(ok, tname("flip %s ^0x%02x: that record skipped, the other %d read intact%s%s",
				     where[w].what, masks[mi], NREC - 2, ok ? "" : ": ", why));
			CHECK(strstr(o.summary, "damaged") != NULL,
			      tname("flip %s ^0x%02x: summary mentions 'damaged' ('%s')", where[w].what, masks[mi],
				 o.summary));
		}
	}
	/* two damaged records, one at each end */
	memcpy(b, ref_buf, ref_len);
	b[ref.start[1] + 12] ^= 0x40;
	b[ref.end[NREC - 2] - 1] ^= 0x40;
	read_all(&o, NULL, b, ref_len);
	{
		char why[512] = "";
		size_t m = 0;
		int ok = o.rc == 0 && o.rd.corrupt == 2 && o.n == NREC - 3, kk;
		/* records 2..NREC-3 and NREC-1 read; 1 and NREC-2 skipped */
		for (kk = 2; ok && kk < NREC; kk++)
			if (kk != NREC - 2)
				ok = item_is(&o.items[m++], &ref, kk, why, sizeof why);
		CHECK(ok, tname("flip: two damaged records (first CAPS, second to last SAMPLE) skipped, %d read "
			     "(corrupt %llu)%s%s", NREC - 3, (unsigned long long)o.rd.corrupt, ok ? "" : ": ", why));
	}
	free(b);
	readout_free(&o);
	unlink(tpath("flip.dbrec"));
}

static void test_huge_length(void)
{
	unsigned char *b;
	struct readout o = {0};
	char why[512] = "";
	const int k = 6;
	int ok;

	if (!ref_buf)
		return;
	b = xmalloc(ref_len);
	memcpy(b, ref_buf, ref_len);
	memcpy(b + ref.start[k] + 4, "\xf0\xff\xff\xff", 4);
	write_file(tpath("huge.dbrec"), b, ref_len);
	read_all(&o, tpath("huge.dbrec"), NULL, 0);
	ok = o.rc == 0 && items_match(&o, &ref, k, k + 1, NREC, why, sizeof why);
	CHECK(ok, tname("huge length 0xFFFFFFF0: record skipped, the rest reads%s%s", ok ? "" : ": ", why));
	CHECK(o.rd.corrupt == 1 && !o.rd.truncated && strstr(o.summary, "damaged"),
	      tname("huge length: counted as damaged ('%s')", o.summary));
	CHECK(o.rd.skipped_bytes == ref.end[k] - ref.start[k],
	      tname("huge length: bytes passed over = the damaged record's %zu bytes (got %llu)",
		 ref.end[k] - ref.start[k], (unsigned long long)o.rd.skipped_bytes));

	/* the largest legal length, pointing past the end: not a reason to stop */
	memcpy(b, ref_buf, ref_len);
	{
		uint32_t big = REC_MAX_PAYLOAD;  /* little-endian on disk */
		int i;
		for (i = 0; i < 4; i++)
			b[ref.start[k] + 4 + (size_t)i] = (unsigned char)(big >> (8 * i));
	}
	read_all(&o, NULL, b, ref_len);
	why[0] = '\0';
	ok = o.rc == 0 && items_match(&o, &ref, k, k + 1, NREC, why, sizeof why);
	CHECK(ok, tname("length REC_MAX_PAYLOAD past the end of the file: record skipped, the rest reads "
		     "(corrupt %llu, truncated %d)%s%s", (unsigned long long)o.rd.corrupt, o.rd.truncated,
		     ok ? "" : ": ", why));
	free(b);
	readout_free(&o);
	unlink(tpath("huge.dbrec"));
}

/* ---- hand-made frames ---- */

static void put_bytes(struct strbuf *b, uint64_t v, int n)
{
	int i;
	for (i = 0; i < n; i++)
		sb_putc(b, (char)(v >> (8 * i)));
}

static void put_fld(struct strbuf *b, int tag, const void *d, size_t n)
{
	put_bytes(b, (uint64_t)tag, 2);
	put_bytes(b, n, 4);
	sb_put(b, d, n);
}

static void put_fld_u64(struct strbuf *b, int tag, uint64_t v)
{
	unsigned char d[8];
	int i;
	for (i = 0; i < 8; i++)
		d[i] = (unsigned char)(v >> (8 * i));
	put_fld(b, tag, d, 8);
}

static void put_fld_f64(struct strbuf *b, int tag, double x)
{
	uint64_t v;
	memcpy(&v, &x, sizeof v);
	put_fld_u64(b, tag, v);
}

/* A counter field body: u8 name length, name, u64 value, u64 epoch. */
static void put_fld_ctr(struct strbuf *b, const char *name, uint64_t v, uint64_t epoch)
{
	struct strbuf f;
	sb_init(&f);
	sb_putc(&f, (char)strlen(name));
	sb_puts(&f, name);
	put_bytes(&f, v, 8);
	put_bytes(&f, epoch, 8);
	put_fld(b, 9, f.s, f.len);
	sb_free(&f);
}

/* Append a whole frame with a correct CRC. */
static void put_frame(struct strbuf *out, int type, const struct strbuf *payload)
{
	size_t at = out->len;
	put_bytes(out, REC_SYNC, 4);
	put_bytes(out, payload->len, 4);
	sb_putc(out, (char)type);
	sb_put(out, payload->s, payload->len);
	put_bytes(out, rec_crc32(0, out->s + at + 4, 5 + payload->len), 4);
}

static void test_unknown(void)
{
	struct strbuf file, pl;
	struct readout o = {0};
	char why[512] = "";
	const struct sample *s;
	int ok, j, others = 0;

	if (!ref_buf)
		return;
	sb_init(&file);
	sb_init(&pl);
	/* HEADER, CAPS a, S0 from the reference */
	sb_put(&file, (const char *)ref_buf, ref.end[2]);
	/* a record type from the future */
	put_fld_u64(&pl, 1, 42);
	put_fld(&pl, 2, "future", 6);
	put_frame(&file, 99, &pl);
	/* a SAMPLE with unknown fields and an unknown counter */
	pl.len = 0;
	put_fld_f64(&pl, 1, 777.25);
	put_fld(&pl, 200, "unknown field", 13);
	put_fld_u64(&pl, 3, STATE_UP);
	put_fld_ctr(&pl, "commits_of_the_future", 5, 6);
	put_fld_ctr(&pl, "commits", 1000, 3);
	put_fld(&pl, 9, "\x07" "fsyncs!" "short", 13);   /* counter field of a wrong size */
	put_fld(&pl, 1, "\0\0\0\0", 4);                  /* mono of a wrong size: ignored */
	put_fld(&pl, 0xffff, "", 0);
	put_fld(&pl, 12, "a note", 6);
	put_frame(&file, REC_SAMPLE, &pl);
	/* a SAMPLE whose last field overruns its payload (valid CRC) */
	pl.len = 0;
	put_fld_f64(&pl, 1, 888.0);
	put_bytes(&pl, 12, 2);
	put_bytes(&pl, 1000, 4);
	sb_put(&pl, "abc", 3);
	put_frame(&file, REC_SAMPLE, &pl);
	/* an empty SAMPLE: every field missing */
	pl.len = 0;
	put_frame(&file, REC_SAMPLE, &pl);
	/* the rest of the reference: CAPS... S1..S9 */
	sb_put(&file, (const char *)ref_buf + ref.start[3], ref_len - ref.start[3]);

	read_all(&o, NULL, file.s, file.len);
	CHECK(o.rc == 0 && o.n == NREC - 1 + 2,
	      tname("unknown: %d items read (got %zu)", NREC + 1, o.n));
	CHECK(o.rd.unknown == 1, tname("unknown: type 99 skipped and counted (unknown %llu)",
				    (unsigned long long)o.rd.unknown));
	CHECK(o.rd.corrupt == 1, tname("unknown: SAMPLE with an overrunning field skipped as damaged (corrupt %llu)",
				    (unsigned long long)o.rd.corrupt));
	CHECK(strstr(o.summary, "1 records of newer types ignored") != NULL,
	      tname("unknown: summary mentions the ignored record ('%s')", o.summary));
	if (o.rc == 0 && o.n == NREC + 1) {
		ok = item_is(&o.items[0], &ref, 1, why, sizeof why) && item_is(&o.items[1], &ref, 2, why, sizeof why);
		CHECK(ok, tname("unknown: records before the unknown one intact%s%s", ok ? "" : ": ", why));
		s = &o.items[2].sample;
		for (j = 0; j < CTR__COUNT; j++)
			if (j != CTR_COMMITS && s->c[j].present)
				others++;
		CHECK(o.items[2].type == REC_SAMPLE && s->mono == 777.25 && s->state == STATE_UP,
		      "unknown: hand-made SAMPLE read; unknown tags and wrong-size fields ignored");
		CHECK(s->c[CTR_COMMITS].present && s->c[CTR_COMMITS].v == 1000 && s->c[CTR_COMMITS].epoch == 3 &&
		      others == 0, "unknown: unknown counter name and bad counter field ignored, known counter kept");
		CHECK(s->notes.n == 1 && strcmp(s->notes.msg[0], "a note") == 0, "unknown: fields after unknown ones read");
		s = &o.items[3].sample;
		CHECK(o.items[3].type == REC_SAMPLE && s->mono == 0 && s->state == STATE_DOWN && s->nsettings == 0 &&
		      !s->c[CTR_COMMITS].present, "unknown: empty SAMPLE reads as all zero");
		why[0] = '\0';
		ok = 1;
		for (j = 4; ok && j < (int)o.n; j++)
			ok = item_is(&o.items[j], &ref, j - 1, why, sizeof why);
		CHECK(ok, tname("unknown: records after them intact%s%s", ok ? "" : ": ", why));
	}
	sb_free(&file);
	sb_free(&pl);
	readout_free(&o);
}

/* rec_open_read on bytes that are not a recording of this version. */
static void open_fails(const char *what, const void *data, size_t n, const char *want)
{
	struct rec_reader rd;
	char err[256] = "";
	int rc;
	write_file(tpath("other"), data, n);
	rc = rec_open_read(&rd, tpath("other"), NULL, 0, err, sizeof err);
	if (rc == 0)
		rec_reader_close(&rd);
	CHECK(rc == -1 && strstr(err, want), tname("format: %s -> fails with '%s' (got %d, '%s')", what, want, rc, err));
	err[0] = '\0';
	rc = rec_open_read(&rd, NULL, data, n, err, sizeof err);
	if (rc == 0)
		rec_reader_close(&rd);
	CHECK(rc == -1 && err[0], tname("format: %s from memory -> fails (got %d, '%s')", what, rc, err));
}

static void test_formats(void)
{
	static const unsigned char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0\x1f\xf3\xff" "a";
	static const char text[] = "SELECT * FROM t; -- definitely not a dbtop recording\n";
	struct rec_reader rd;
	unsigned char *b;
	char err[256];

	open_fails("empty file", "", 0, "not a dbtop recording");
	open_fails("PNG file", png, sizeof png - 1, "not a dbtop recording");
	open_fails("text file", text, sizeof text - 1, "not a dbtop recording");
	open_fails("5 bytes of the magic", "DBTOP", 5, "not a dbtop recording");
	open_fails("zeros", "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 32,
		   "not a dbtop recording");
	CHECK(rec_open_read(&rd, tpath("does-not-exist"), NULL, 0, err, sizeof err) == -1 &&
	      strstr(err, "cannot open") && strstr(err, "No such file"),
	      tname("format: missing file -> '%s'", err));
	if (!ref_buf)
		return;
	b = xmalloc(ref_len);
	memcpy(b, ref_buf, ref_len);
	b[8] = 2;
	open_fails("major version 2", b, ref_len, "newer");
	b[8] = 0;
	open_fails("major version 0", b, ref_len, "older");
	b[8] = 1;
	b[10] = 7;  /* minor 7: newer minor versions are readable */
	CHECK(rec_open_read(&rd, NULL, b, ref_len, err, sizeof err) == 0 && rd.minor == 7,
	      "format: minor version 1.7 is readable");
	rec_reader_close(&rd);
	/* a file whose first record is not a HEADER */
	memcpy(b, ref_buf, 16);
	memcpy(b + 16, ref_buf + ref.start[1], ref.end[1] - ref.start[1]);
	open_fails("first record CAPS, no HEADER", b, 16 + ref.end[1] - ref.start[1], "header record");
	/* HEADER record with a bad checksum */
	memcpy(b, ref_buf, ref_len);
	b[ref.end[0] - 1] ^= 1;
	open_fails("damaged HEADER record", b, ref_len, "header record is damaged");
	free(b);
}

static void test_memory(void)
{
	struct readout f = {0}, m = {0};
	char why[512] = "";
	int ok, same = 1;
	size_t i;

	if (!ref_buf)
		return;
	read_all(&f, tpath("ref.dbrec"), NULL, 0);
	read_all(&m, NULL, ref_buf, ref_len);
	CHECK(m.rc == 0, tname("memory: rec_open_read(NULL, buf, len) succeeds ('%s')", m.err));
	ok = header_equal(&m.rd.hdr, &g_hdr, why, sizeof why);
	CHECK(ok, tname("memory: header equal%s%s", ok ? "" : ": ", why));
	why[0] = '\0';
	ok = items_match(&m, &ref, 0, 0, NREC, why, sizeof why);
	CHECK(ok, tname("memory: same records as the reference%s%s", ok ? "" : ": ", why));
	for (i = 0; i < f.n && i < m.n && i < MAXITEMS; i++)
		if (memcmp(&f.items[i].sample, &m.items[i].sample, sizeof m.items[i].sample) ||
		    memcmp(&f.items[i].caps, &m.items[i].caps, sizeof m.items[i].caps))
			same = 0;
	CHECK(same && f.n == m.n && f.rd.records == m.rd.records && f.rd.offset == m.rd.offset &&
	      strcmp(f.summary, m.summary) == 0, "memory: byte-identical items and summary as from the file");
	CHECK(rec_open_read(&m.rd, NULL, ref_buf, 0, m.err, sizeof m.err) == -1 && m.err[0],
	      tname("memory: zero-length buffer fails ('%s')", m.err));
	readout_free(&f);
	readout_free(&m);
}

/* A sparse file: HEADER, ~2 GiB of zeros, one SAMPLE at the very end. */
static void test_big_file(void)
{
	const uint64_t gap_end = UINT64_C(2) << 30;  /* 2 GiB */
	const char *p = tpath("big.dbrec");
	struct recorder r;
	struct rec_reader rd;
	struct rec_item *it = xcalloc(1, sizeof *it);
	struct rusage ru0, ru1;
	struct stat st;
	char err[256], why[512] = "";
	const unsigned char *frame;
	size_t flen;
	double t0, dt;
	int fd, n = 0, ok = 0;
	long grow_kb;

	if (!ref_buf)
		goto out;
	if (rec_open_write(&r, p, &g_hdr, false, err, sizeof err) < 0) {
		CHECK(0, tname("big file: create: %s", err));
		goto out;
	}
	rec_close(&r);
	/* the last SAMPLE record of the reference, placed at 2 GiB */
	frame = ref_buf + ref.start[NREC - 1];
	flen = ref.end[NREC - 1] - ref.start[NREC - 1];
	fd = open(p, O_WRONLY);
	ok = fd >= 0 && ftruncate(fd, (off_t)gap_end) == 0 &&
	     pwrite(fd, frame, flen, (off_t)gap_end) == (ssize_t)flen;
	if (fd >= 0)
		close(fd);
	CHECK(ok && stat(p, &st) == 0 && (uint64_t)st.st_size == gap_end + flen,
	      "big file: 2 GiB sparse file with a SAMPLE at the end");
	if (!ok)
		goto out;

	getrusage(RUSAGE_SELF, &ru0);
	t0 = clock_mono();
	if (rec_open_read(&rd, p, NULL, 0, err, sizeof err) == 0) {
		while (rec_next(&rd, it) == 1) {
			n++;
			ok = item_is(it, &ref, NREC - 1, why, sizeof why);
			digest_set_free(it->sample.digests);
			it->sample.digests = NULL;
			lock_set_free(it->sample.locks);
			it->sample.locks = NULL;
			wait_set_free(it->sample.waits);
			it->sample.waits = NULL;
		}
		dt = clock_mono() - t0;
		getrusage(RUSAGE_SELF, &ru1);
		grow_kb = ru1.ru_maxrss - ru0.ru_maxrss;
		printf("# big file: read %llu bytes in %.2f s, skipped %llu, max RSS +%ld kB\n",
		       (unsigned long long)rd.offset, dt, (unsigned long long)rd.skipped_bytes, grow_kb);
		CHECK(n == 1 && ok, tname("big file: the one SAMPLE after 2 GiB of zeros is found intact%s%s",
				       ok ? "" : ": ", why));
		CHECK(rd.skipped_bytes + 16 >= gap_end - ref.end[0] && rd.skipped_bytes <= gap_end,
		      tname("big file: skipped_bytes ~ 2 GiB (%llu)", (unsigned long long)rd.skipped_bytes));
		CHECK(rd.corrupt == 1 && !rd.truncated && rd.offset == gap_end + flen,
		      "big file: one damaged stretch, not truncated, read to the end");
		CHECK(grow_kb < 64 * 1024, tname("big file: memory stays bounded (max RSS grew %ld kB)", grow_kb));
		/* CPU time, not wall time: a busy machine slows the wall clock,
		 * not the work; a reader that went back over the zeros (quadratic)
		 * would take hours */
		double cpu = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
			     (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
			     (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
			     (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
		CHECK(cpu < 120, tname("big file: read in under 120 s of CPU (%.1f s CPU, %.1f s wall)", cpu, dt));
		rec_reader_close(&rd);
	} else {
		CHECK(0, tname("big file: rec_open_read: %s", err));
	}
out:
	free(it);
	unlink(p);
}

static void test_redact(void)
{
	static const char secret[] = "WHERE id = 42 AND name = 'bob'";
	struct recorder r;
	struct sample s;
	struct caps c;
	struct rec_header h;
	struct readout o = {0};
	unsigned char *raw;
	size_t rawlen = 0;
	char err[256];
	int ok;

	/* values chosen so that no number encodes the bytes "42" or "bob" */
	memset(&h, 0, sizeof h);
	str_copy(h.engine, sizeof h.engine, "mysql");
	str_copy(h.server_version, sizeof h.server_version, "8.0.36");
	str_copy(h.host, sizeof h.host, "db.example");
	h.start_wall = 1000.0;
	h.interval = 1.0;
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_MYSQL;
	c.flavour = FLAVOUR_MYSQL;
	notes_add(&c.notes, "probe failed: %s", secret);
	memset(&s, 0, sizeof s);
	s.mono = 10.0;
	s.wall = 1000.0;
	s.state = STATE_STALLED;
	str_printf(s.error, sizeof s.error, "query timed out: SELECT * FROM t %s", secret);
	notes_add(&s.notes, "slow: UPDATE t SET v = 0x1F %s OR k IN (1, 2, 3)", secret);

	ok = rec_open_write(&r, tpath("redact.dbrec"), &h, true, err, sizeof err) == 0 &&
	     rec_write_caps(&r, &c, 1, err, sizeof err) == 0 && rec_write_sample(&r, &s, err, sizeof err) == 0;
	rec_close(&r);
	CHECK(ok, "redact: recording written with redact on");
	read_all(&o, tpath("redact.dbrec"), NULL, 0);
	CHECK(o.rc == 0 && o.rd.hdr.redacted, "redact: header says redacted");
	CHECK(o.n == 2, "redact: CAPS and SAMPLE read back");
	if (o.n == 2) {
		CHECK_STR(o.items[1].sample.error, "query timed out: SELECT * FROM t WHERE id = ? AND name = ?",
			  "redact: error text stored redacted");
		CHECK_STR(o.items[1].sample.notes.msg[0],
			  "slow: UPDATE t SET v = ? WHERE id = ? AND name = ? OR k IN (?)",
			  "redact: sample note stored redacted");
		CHECK_STR(o.items[0].caps.notes.msg[0], "probe failed: WHERE id = ? AND name = ?",
			  "redact: caps note stored redacted");
		CHECK(o.items[1].sample.state == STATE_STALLED && o.items[1].sample.mono == 10.0,
		      "redact: the numbers of the sample are not touched");
	}
	raw = slurp(tpath("redact.dbrec"), &rawlen);
	CHECK(raw && rawlen > 0 && !contains(raw, rawlen, "bob") && !contains(raw, rawlen, "42") &&
	      !contains(raw, rawlen, "0x1F"), "redact: the bytes 'bob', '42', '0x1F' are nowhere in the file");
	free(raw);
	readout_free(&o);

	/* without redact the text is kept verbatim */
	ok = rec_open_write(&r, tpath("plain.dbrec"), &h, false, err, sizeof err) == 0 &&
	     rec_write_sample(&r, &s, err, sizeof err) == 0;
	rec_close(&r);
	raw = slurp(tpath("plain.dbrec"), &rawlen);
	CHECK(ok && raw && contains(raw, rawlen, "name = 'bob'"), "redact: off -> the text is stored as is");
	free(raw);
	read_all(&o, tpath("plain.dbrec"), NULL, 0);
	CHECK(o.rc == 0 && !o.rd.hdr.redacted, "redact: off -> header says not redacted");
	readout_free(&o);
	unlink(tpath("redact.dbrec"));
	unlink(tpath("plain.dbrec"));
}

static void test_disk_full(void)
{
	struct recorder r;
	struct stat st0, st1;
	char err[256] = "";
	int rc, have = stat("/dev/full", &st0) == 0;

	if (!have) {
		printf("# /dev/full missing: disk-full checks skipped\n");
		return;
	}
	/* an existing device is never written to (nor chmodded) */
	rc = rec_open_write(&r, "/dev/full", &g_hdr, false, err, sizeof err);
	CHECK(rc == -1 && strstr(err, "it exists"), tname("disk full: /dev/full, an existing path, is refused ('%s')", err));
	CHECK(stat("/dev/full", &st1) == 0 && (st1.st_mode & 07777) == (st0.st_mode & 07777),
	      tname("disk full: mode of the existing device /dev/full left alone (%04o -> %04o)",
		 (unsigned)(st0.st_mode & 07777), (unsigned)(st1.st_mode & 07777)));

	/* a recorder that ran fine until the disk filled up */
	if (rec_open_write(&r, tpath("full.dbrec"), &g_hdr, false, err, sizeof err) == 0) {
		uint64_t recs;
		FILE *full = fopen("/dev/full", "wb");
		CHECK(rec_write_sample(&r, &g_samp[0], err, sizeof err) == 0, "disk full: first sample written");
		recs = r.records;
		if (full) {
			fclose(r.f);
			r.f = full;
			err[0] = '\0';
			rc = rec_write_sample(&r, &g_samp[1], err, sizeof err);
			CHECK(rc == -1 && strstr(err, "cannot write") && strstr(err, "No space left"),
			      tname("disk full: ENOSPC mid-recording -> -1 with '%s'", err));
			CHECK(r.records == recs, "disk full: failed record not counted");
			rc = rec_write_caps(&r, &g_caps[1], 2, err, sizeof err);
			CHECK(rc == -1, "disk full: later writes keep failing cleanly");
		}
		rec_close(&r);
		unlink(tpath("full.dbrec"));
	}
}

/* Directory of the fuzz corpus: $DBTOP_FUZZ_CORPUS, else next to this
 * source file, else next to the binary (build/tests/ -> tests/fuzz). */
static DIR *corpus_open(char *path, size_t len)
{
	const char *env = getenv("DBTOP_FUZZ_CORPUS");
	const char *src = __FILE__, *slash = strrchr(src, '/');
	char exe[1024];
	ssize_t n;
	DIR *d;

	if (env && *env) {
		str_copy(path, len, env);
		return opendir(path);
	}
	if (slash)
		str_printf(path, len, "%.*s/../fuzz/corpus/record", (int)(slash - src), src);
	else
		str_copy(path, len, "../fuzz/corpus/record");
	if ((d = opendir(path)))
		return d;
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		char *e;
		exe[n] = '\0';
		if ((e = strrchr(exe, '/')))
			*e = '\0';
		str_printf(path, len, "%s/../../tests/fuzz/corpus/record", exe);
		return opendir(path);
	}
	return NULL;
}

static void test_corpus(void)
{
	char dir[768], p[1024];
	DIR *d = corpus_open(dir, sizeof dir);
	struct dirent *e;
	struct readout o = {0}, m = {0};
	int files = 0, opened = 0, good = 0, agree = 1;

	CHECK(d != NULL, tname("corpus: directory %s found", dir));
	if (!d)
		return;
	while ((e = readdir(d))) {
		unsigned char *b;
		size_t n = 0;
		if (e->d_name[0] == '.')
			continue;
		str_printf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (!(b = slurp(p, &n)))
			continue;
		files++;
		read_all(&o, p, NULL, 0);
		read_all(&m, NULL, b, n);
		if (o.rc == 0) {
			size_t i, samples = 0;
			opened++;
			for (i = 0; i < o.n && i < MAXITEMS; i++)
				samples += o.items[i].type == REC_SAMPLE;
			if (samples >= 3 && !o.rd.truncated && !o.rd.corrupt)
				good++;
		}
		if (n && (m.rc != o.rc || m.n != o.n || m.rd.corrupt != o.rd.corrupt ||
			  m.rd.truncated != o.rd.truncated)) {
			printf("# corpus: %s reads differently from memory\n", e->d_name);
			agree = 0;
		}
		free(b);
	}
	closedir(d);
	printf("# corpus: %d files, %d open as recordings, %d clean with >= 3 samples\n", files, opened, good);
	CHECK(files >= 5, tname("corpus: every file read without a crash (%d files)", files));
	CHECK(good >= 1, "corpus: at least one valid recording with >= 3 samples");
	CHECK(opened < files, "corpus: holds files that are not recordings too");
	CHECK(agree, "corpus: each file reads the same from memory as from disk");
	readout_free(&o);
	readout_free(&m);
}

/* A sampled digest set keeps what its estimate rests on through a
 * recording: rounds, sessions seen, each row's samples. */
static void test_sampled_digests(void)
{
	struct recorder r;
	struct rec_reader rd;
	struct rec_item it;
	struct sample smp;
	char err[256];
	const char *path = tpath("sampled.dbrec");
	bool got = false;

	if (rec_open_write(&r, path, &g_hdr, false, err, sizeof err) < 0) {
		CHECK(0, "sampled: open for writing");
		return;
	}
	rec_write_caps(&r, &g_caps[0], g_gen[0], err, sizeof err);
	memset(&smp, 0, sizeof smp);
	smp.state = STATE_UP;
	smp.conn_gen = g_gen[0];
	smp.digests = xcalloc(1, sizeof *smp.digests);
	smp.digests->sampled = true;
	smp.digests->sample_hz = 9.5;
	smp.digests->rounds = 1234;
	smp.digests->sessions = 32;
	struct digest_row *row = digest_set_add(smp.digests);
	str_copy(row->key, sizeof row->key, "s:00000000000000aa");
	row->text = xstrdup("UPDATE t SET v = ?");
	row->c[DG_CALLS] = 7;
	row->c[DG_TOTAL_NS] = 900000000;
	row->have = 1u << DG_CALLS | 1u << DG_TOTAL_NS;
	row->samples = 77;
	CHECK(rec_write_sample(&r, &smp, err, sizeof err) == 0, "sampled: sample written");
	sample_release(&smp);
	rec_close(&r);
	if (rec_open_read(&rd, path, NULL, 0, err, sizeof err) < 0) {
		CHECK(0, "sampled: open for reading");
		return;
	}
	while (rec_next(&rd, &it) == 1) {
		if (it.type == REC_SAMPLE && it.sample.digests) {
			const struct digest_set *d = it.sample.digests;
			got = d->sampled && d->rounds == 1234 && d->sessions == 32 && d->n == 1 &&
			      d->rows[0].samples == 77 && d->rows[0].c[DG_CALLS] == 7;
		}
		sample_release(&it.sample);
	}
	rec_reader_close(&rd);
	CHECK(got, "sampled: rounds, sessions and each row's samples come back");
}

/* A session list goes through a recording field by field; a statement is
 * redacted when the recording is, and a field cut short is dropped. */
static void test_sessions_fields(void)
{
	struct recorder r;
	struct rec_reader rd;
	struct rec_item it;
	struct sample smp;
	char err[256];
	const char *path = tpath("sessions.dbrec");
	int got = 0;

	for (int redact = 0; redact <= 1; redact++) {
		unlink(path);
		if (rec_open_write(&r, path, &g_hdr, redact, err, sizeof err) < 0) {
			CHECK(0, "sessions: open for writing");
			return;
		}
		rec_write_caps(&r, &g_caps[0], g_gen[0], err, sizeof err);
		memset(&smp, 0, sizeof smp);
		smp.state = STATE_UP;
		smp.conn_gen = g_gen[0];
		smp.sessions = session_set_new();
		smp.sessions->status = SESS_PARTIAL;
		smp.sessions->query_ms = 1.25;
		smp.sessions->age_s = 3.5;
		str_copy(smp.sessions->note, sizeof smp.sessions->note, "GRANT pg_read_all_stats TO mon");
		struct session *x = session_add(smp.sessions, 4242);
		str_copy(x->user, sizeof x->user, "app");
		str_copy(x->db, sizeof x->db, "shop");
		str_copy(x->client, sizeof x->client, "10.0.0.5:51234");
		str_copy(x->app, sizeof x->app, "billing");
		str_copy(x->type, sizeof x->type, "client backend");
		str_copy(x->state, sizeof x->state, "active");
		str_copy(x->wait, sizeof x->wait, "Lock:transactionid");
		str_copy(x->digest, sizeof x->digest, "-123456789");
		x->cls = SC_LOCK_WAIT;
		x->state_s = 12.5;
		x->trx_age_s = 30;
		x->query_s = 12.5;
		x->blocked_by = 4100;
		x->nblockers = 2;
		x->self = true;
		x->ident.known = true;
		x->ident.start_us = 1700000000000001LL;
		x->ident.xact_us = 1700000000000002LL;
		x->ident.stmt_us = 1700000000000003LL;
		session_set_query(x, "UPDATE acct SET pw = 'hunter2' WHERE id = 7", false);
		session_add(smp.sessions, 4243)->cls = SC_IDLE;
		CHECK(rec_write_sample(&r, &smp, err, sizeof err) == 0, "sessions: sample written");
		sample_release(&smp);
		rec_close(&r);
		if (rec_open_read(&rd, path, NULL, 0, err, sizeof err) < 0) {
			CHECK(0, "sessions: open for reading");
			return;
		}
		while (rec_next(&rd, &it) == 1) {
			const struct session_set *ss = it.type == REC_SAMPLE ? it.sample.sessions : NULL;
			if (ss && ss->n == 2) {
				const struct session *y = &ss->s[0];
				bool meta = ss->status == SESS_PARTIAL && ss->query_ms == 1.25 && ss->age_s == 3.5 &&
					    strcmp(ss->note, "GRANT pg_read_all_stats TO mon") == 0;
				bool fields = y->id == 4242 && y->cls == SC_LOCK_WAIT && strcmp(y->user, "app") == 0 &&
					      strcmp(y->db, "shop") == 0 && strcmp(y->client, "10.0.0.5:51234") == 0 &&
					      strcmp(y->app, "billing") == 0 && strcmp(y->type, "client backend") == 0 &&
					      strcmp(y->wait, "Lock:transactionid") == 0 &&
					      strcmp(y->digest, "-123456789") == 0 && y->state_s == 12.5 && y->trx_age_s == 30 &&
					      y->blocked_by == 4100 && y->nblockers == 2 && y->self && y->ident.known &&
					      y->ident.start_us == 1700000000000001LL && y->ident.stmt_us == 1700000000000003LL;
				/* literals are removed only from a redacted recording */
				bool query = y->query && strstr(y->query, "UPDATE acct") &&
					     !strstr(y->query, "hunter2") == (redact == 1);
				bool second = ss->s[1].id == 4243 && ss->s[1].cls == SC_IDLE && !ss->s[1].query;
				if (meta && fields && query && second)
					got++;
			}
			sample_release(&it.sample);
		}
		rec_reader_close(&rd);
	}
	CHECK(got == 2, "sessions: the list and every field come back, plain and redacted");
}

/* The log device: CAPS 14 (directories -> devices) and SAMPLE 33 (the
 * counters) come back field by field; a file without them reads as not
 * recorded. */
static void test_logdev_fields(void)
{
	struct recorder r;
	struct rec_reader rd;
	struct rec_item it;
	struct sample smp;
	struct caps c = g_caps[0];
	char err[256];
	const char *path = tpath("logdev.dbrec");
	bool caps_ok = false, smp_ok = false, plain_none = false;

	memset(&c.logdev, 0, sizeof c.logdev);
	c.logdev.state = LDS_OK;
	str_copy(c.logdev.note, sizeof c.logdev.note, "zd0 is a ZFS volume: the kernel counts no flushes for it");
	c.logdev.ndirs = 2;
	str_copy(c.logdev.dirs[0].role, sizeof c.logdev.dirs[0].role, "WAL");
	str_copy(c.logdev.dirs[0].path, sizeof c.logdev.dirs[0].path, "/srv/pg/data/pg_wal");
	str_copy(c.logdev.dirs[0].fs, sizeof c.logdev.dirs[0].fs, "ext4");
	str_copy(c.logdev.dirs[0].dev, sizeof c.logdev.dirs[0].dev, "dm-0");
	str_copy(c.logdev.dirs[0].via, sizeof c.logdev.dirs[0].via, "dm-0 on sdb1, sdb1 on sdb");
	str_copy(c.logdev.dirs[1].role, sizeof c.logdev.dirs[1].role, "data");
	str_copy(c.logdev.dirs[1].path, sizeof c.logdev.dirs[1].path, "/srv/pg/data");
	c.logdev.ndev = 2;
	str_copy(c.logdev.dev[0], LOGDEV_NAME, "dm-0");
	str_copy(c.logdev.dev[1], LOGDEV_NAME, "sdb");
	if (rec_open_write(&r, path, &g_hdr, false, err, sizeof err) < 0) {
		CHECK(0, "logdev: open for writing");
		return;
	}
	rec_write_caps(&r, &c, g_gen[0], err, sizeof err);
	memset(&smp, 0, sizeof smp);
	smp.state = STATE_UP;
	smp.conn_gen = g_gen[0];
	smp.logdev.read = true;
	smp.logdev.n = 2;
	str_copy(smp.logdev.d[0].name, LOGDEV_NAME, "dm-0");
	smp.logdev.d[0].nfields = 17;
	smp.logdev.d[0].wr_ios = 123456789012ULL;
	smp.logdev.d[0].fl_ticks = 77;
	smp.logdev.d[0].time_in_queue = 5;
	str_copy(smp.logdev.d[1].name, LOGDEV_NAME, "sdb");
	smp.logdev.d[1].nfields = 0;
	CHECK(rec_write_sample(&r, &smp, err, sizeof err) == 0, "logdev: sample written");
	memset(&smp.logdev, 0, sizeof smp.logdev);
	rec_write_sample(&r, &smp, err, sizeof err);
	rec_close(&r);
	if (rec_open_read(&rd, path, NULL, 0, err, sizeof err) < 0) {
		CHECK(0, "logdev: open for reading");
		return;
	}
	while (rec_next(&rd, &it) == 1) {
		if (it.type == REC_CAPS) {
			const struct logdev_map *m = &it.caps.logdev;
			caps_ok = m->state == LDS_OK && strstr(m->note, "zd0") && m->ndirs == 2 && m->ndev == 2 &&
				  strcmp(m->dirs[0].via, "dm-0 on sdb1, sdb1 on sdb") == 0 &&
				  strcmp(m->dirs[0].fs, "ext4") == 0 && strcmp(m->dirs[1].path, "/srv/pg/data") == 0 &&
				  strcmp(m->dev[1], "sdb") == 0;
		} else if (it.type == REC_SAMPLE) {
			const struct logdev_sample *l = &it.sample.logdev;
			if (l->read)
				smp_ok = l->n == 2 && strcmp(l->d[0].name, "dm-0") == 0 && l->d[0].nfields == 17 &&
					 l->d[0].wr_ios == 123456789012ULL && l->d[0].fl_ticks == 77 &&
					 l->d[0].time_in_queue == 5 && l->d[1].nfields == 0;
			else
				plain_none = true;
			sample_release(&it.sample);
		}
	}
	rec_reader_close(&rd);
	CHECK(caps_ok, "logdev: CAPS 14, the directories and devices, come back");
	CHECK(smp_ok, "logdev: SAMPLE 33, the counters (a device gone: 0 fields), come back");
	CHECK(plain_none, "logdev: a sample without field 33 reads as not read");
}

/* SAMPLE field 32: the tuning screen written and read back as it was,
 * and a sample without it read back without one. */
static void test_tuning_field(void)
{
	struct recorder r;
	struct rec_reader rd;
	struct rec_item it;
	struct sample smp;
	char err[256];
	const char *path = tpath("tuning.dbrec");
	struct tune_snap t;
	int got = 0, without = 0;

	memset(&t, 0, sizeof t);
	t.flags = TSNAP_PROBED | TSNAP_AVAILABLE | TSNAP_LOCKED;
	t.ttl = 90;
	str_copy(t.note, sizeof t.note, "a note from the probe");
	t.n = 2;
	str_copy(t.row[0].name, sizeof t.row[0].name, "innodb_flush_log_at_trx_commit");
	str_copy(t.row[0].now, sizeof t.row[0].now, "2");
	str_copy(t.row[0].to, sizeof t.row[0].to, "1");
	t.row[0].flags = TSROW_KNOWN | TSROW_ALLOWED | TSROW_CHANGED;
	str_copy(t.row[0].was, sizeof t.row[0].was, "1");
	str_copy(t.row[0].val, sizeof t.row[0].val, "2");
	str_copy(t.row[0].undo, sizeof t.row[0].undo, "1");
	t.row[0].since = 1764620000.25;
	str_copy(t.row[1].name, sizeof t.row[1].name, "wait/io/file/innodb/innodb_log_file");
	if (rec_open_write(&r, path, &g_hdr, false, err, sizeof err) < 0) {
		CHECK(0, "tuning: open for writing");
		return;
	}
	rec_write_caps(&r, &g_caps[0], g_gen[0], err, sizeof err);
	memset(&smp, 0, sizeof smp);
	smp.state = STATE_UP;
	smp.conn_gen = g_gen[0];
	smp.tuning = &t;
	rec_write_sample(&r, &smp, err, sizeof err);
	smp.tuning = NULL;
	rec_write_sample(&r, &smp, err, sizeof err);
	rec_close(&r);
	if (rec_open_read(&rd, path, NULL, 0, err, sizeof err) < 0) {
		CHECK(0, "tuning: open for reading");
		return;
	}
	while (rec_next(&rd, &it) == 1) {
		if (it.type != REC_SAMPLE)
			continue;
		const struct tune_snap *b = it.sample.tuning;
		if (got == 0) {
			CHECK(b && b->flags == t.flags && b->ttl == 90 && b->n == 2 && strcmp(b->note, t.note) == 0,
			      "tuning: the screen's flags, ttl, note and rows read back");
			CHECK(b && strcmp(b->row[0].name, t.row[0].name) == 0 && strcmp(b->row[0].now, "2") == 0 &&
				      strcmp(b->row[0].to, "1") == 0 && b->row[0].flags == t.row[0].flags &&
				      strcmp(b->row[0].was, "1") == 0 && strcmp(b->row[0].val, "2") == 0 &&
				      strcmp(b->row[0].undo, "1") == 0 && b->row[0].since == t.row[0].since,
			      "tuning: a row changed by dbtop read back whole (now, a sets, was, set, revert, since)");
			CHECK(b && b->row[1].flags == 0 && b->row[1].now[0] == '\0',
			      "tuning: a row the server lacks read back as such");
		} else {
			without += b == NULL;
		}
		got++;
		sample_release(&it.sample);
	}
	rec_reader_close(&rd);
	CHECK(got == 2 && without == 1, tname("tuning: a sample without field 32 reads back without one (%d samples)", got));
}

/* One PostgreSQL role's change: its row of field 32 (scope and role
 * after the rows), field 38 (the roles' and databases' own values), and
 * the event of field 31 with its scope, read back whole. */
static void test_scoped_fields(void)
{
	struct recorder r;
	struct rec_reader rd;
	struct rec_item it;
	struct sample smp;
	char err[256];
	const char *path = tpath("scoped.dbrec");
	struct tune_snap t;
	struct event_list el = {0};
	struct event e;
	int got = 0;

	memset(&t, 0, sizeof t);
	t.flags = TSNAP_PROBED | TSNAP_AVAILABLE;
	t.n = 2;
	str_copy(t.row[0].name, sizeof t.row[0].name, "synchronous_commit");
	t.row[0].flags = TSROW_KNOWN | TSROW_ALLOWED | TSROW_CHANGED | TSROW_SCOPED;
	str_copy(t.row[0].was, sizeof t.row[0].was, "on");
	str_copy(t.row[0].val, sizeof t.row[0].val, "off");
	str_copy(t.row[0].undo, sizeof t.row[0].undo, "reset");
	t.row[0].scope = TK_PG_ROLE;
	str_copy(t.row[0].target, sizeof t.row[0].target, "app \"one\"");
	str_copy(t.row[1].name, sizeof t.row[1].name, "wal_writer_delay");
	memset(&e, 0, sizeof e);
	e.kind = EV_SETTING;
	e.own = e.who_known = true;
	e.scope = TK_PG_DATABASE;
	str_copy(e.name, sizeof e.name, "synchronous_commit");
	str_copy(e.user, sizeof e.user, "logs");
	event_list_add(&el, &e);
	if (rec_open_write(&r, path, &g_hdr, false, err, sizeof err) < 0) {
		CHECK(0, "scoped: open for writing");
		return;
	}
	rec_write_caps(&r, &g_caps[0], g_gen[0], err, sizeof err);
	memset(&smp, 0, sizeof smp);
	smp.state = STATE_UP;
	smp.conn_gen = g_gen[0];
	smp.tuning = &t;
	smp.events = &el;
	smp.settings_fresh = smp.scoped_read = true;
	smp.nscoped = 2;
	str_copy(smp.scoped[0].name, sizeof smp.scoped[0].name, "synchronous_commit");
	smp.scoped[0].scope = TK_PG_ROLE;
	str_copy(smp.scoped[0].target, sizeof smp.scoped[0].target, "app \"one\"");
	str_copy(smp.scoped[0].value, sizeof smp.scoped[0].value, "off");
	str_copy(smp.scoped[1].name, sizeof smp.scoped[1].name, "synchronous_commit");
	smp.scoped[1].scope = TK_PG_DATABASE;
	str_copy(smp.scoped[1].target, sizeof smp.scoped[1].target, "logs");
	str_copy(smp.scoped[1].value, sizeof smp.scoped[1].value, "local");
	rec_write_sample(&r, &smp, err, sizeof err);
	smp.tuning = NULL;
	smp.events = NULL;
	smp.scoped_read = false;
	rec_write_sample(&r, &smp, err, sizeof err);
	rec_close(&r);
	free(el.ev);
	if (rec_open_read(&rd, path, NULL, 0, err, sizeof err) < 0) {
		CHECK(0, "scoped: open for reading");
		return;
	}
	while (rec_next(&rd, &it) == 1) {
		if (it.type != REC_SAMPLE)
			continue;
		const struct sample *b = &it.sample;
		if (got == 0) {
			CHECK(b->tuning && b->tuning->n == 2 && (b->tuning->row[0].flags & TSROW_SCOPED) &&
				      b->tuning->row[0].scope == TK_PG_ROLE &&
				      strcmp(b->tuning->row[0].target, "app \"one\"") == 0 && !b->tuning->row[1].flags,
			      "scoped: the tuning row's scope and role read back");
			CHECK(b->scoped_read && b->nscoped == 2 && b->scoped[0].scope == TK_PG_ROLE &&
				      strcmp(b->scoped[0].target, "app \"one\"") == 0 && strcmp(b->scoped[0].value, "off") == 0 &&
				      b->scoped[1].scope == TK_PG_DATABASE && strcmp(b->scoped[1].target, "logs") == 0 &&
				      strcmp(b->scoped[1].value, "local") == 0,
			      "scoped: field 38, the role's and the database's own values, read back");
			CHECK(b->events && b->events->n == 1 && b->events->ev[0].scope == TK_PG_DATABASE &&
				      strcmp(b->events->ev[0].user, "logs") == 0 && b->events->ev[0].own,
			      "scoped: the event's scope and database read back");
		} else {
			CHECK(!b->scoped_read && b->nscoped == 0 && !b->tuning, "scoped: a sample without them reads without");
		}
		got++;
		sample_release(&it.sample);
	}
	rec_reader_close(&rd);
	CHECK(got == 2, "scoped: both samples read");
}

int main(void)
{
	str_copy(tmpdir, sizeof tmpdir, "/tmp/dbtop-test-record.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	make_ref();
	test_round_trip();
	test_sampled_digests();
	test_sessions_fields();
	test_tuning_field();
	test_scoped_fields();
	test_logdev_fields();
	test_mode();
	test_truncation();
	test_header_cuts();
	test_flips();
	test_huge_length();
	test_unknown();
	test_formats();
	test_memory();
	test_big_file();
	test_redact();
	test_disk_full();
	test_corpus();
	free(ref_buf);
	remove_tmpdir();
	return TAP_DONE();
}
