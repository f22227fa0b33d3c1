/* mkrec.c - write a recording full of hostile text, for the screen tests.
 *
 *   mkrec FILE
 *
 * The recording (a MariaDB server, format of docs/recording.md) holds
 * terminal escape sequences and other unsafe bytes in every text the screen
 * shows: the server version, the host label, the capability notes and
 * sources, setting values and the error text of a DOWN sample. It has a
 * few UP samples with growing counters (so rates show) and ends with two
 * DOWN samples.
 *
 * Everything is written through the recording API (rec_open_write,
 * rec_write_caps, rec_write_sample). The API takes C strings of bounded
 * size, so a second pass over the finished file adds what it cannot
 * express: a NUL byte inside a text field and 100 KB long text fields. That
 * pass rewrites the record lengths and CRCs, so the file stays valid.
 *
 * Markers the screen tests look for:
 *   "VISIBLE-BEFORE-NUL" is shown; "HIDDEN-AFTER-NUL" never is.
 *   "LONGNOTE" starts the 100 KB note; "LONGERR" the 100 KB error text.
 *   "pwned" follows every OSC introducer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../record/record.h"
#include "../../util/util.h"

/* The hostile pieces. */
#define OSC_TITLE "\x1b]0;pwned\x07"          /* set the window title */
#define OSC_TITLE_ST "\x1b]2;pwned\x1b\\"      /* the same, ended by ST */
#define OSC_CLIP "\x1b]52;c;cHduZWQ=\x07"      /* write the clipboard */
#define CSI_CLEAR "\x1b[2J"                    /* clear the screen */
#define CSI_MOVE "\x1b[10;10H"                 /* move the cursor */
#define PASTE_ON "\x1b[200~"                   /* bracketed paste start */
#define PASTE_OFF "\x1b[201~"
#define C1_CSI "\xc2\x9b"                      /* U+009B, the 8-bit CSI */
#define RAW_CSI "\x9b"                         /* the raw 8-bit CSI byte */
#define DEL "\x7f"
#define BAD_UTF8 "\xff\xfe"
#define RLM "\xe2\x80\x8f"                     /* U+200F right-to-left mark */
#define RLO "\xe2\x80\xae"                     /* U+202E right-to-left override */
#define NUL_MARK "@@NUL@@"                     /* becomes a NUL byte in pass 2 */

#define LONG_LEN (100 * 1024)

/* Field tags (docs/recording.md). */
#define TAG_CAPS_NOTE 12
#define TAG_SAMPLE_ERROR 4
#define TAG_SAMPLE_NOTE 12

#define START_WALL 1795978800.0   /* 2026-11-29 19:00:00 UTC */

static void die(const char *what, const char *err)
{
	fprintf(stderr, "mkrec: %s: %s\n", what, err);
	exit(1);
}

static void caps_fill(struct caps *c)
{
	memset(c, 0, sizeof *c);
	c->engine = ENGINE_MYSQL;
	c->flavour = FLAVOUR_MARIADB;
	str_copy(c->version, sizeof c->version, "10.11.6-MariaDB" OSC_TITLE CSI_CLEAR);
	c->version_num = 101106;
	c->perf_schema = true;
	c->ps_readable = true;
	c->has_os_log_fsyncs = true;
	c->binlog_on = true;
	c->priv_process = true;
	str_copy(c->redo_fsync_source, sizeof c->redo_fsync_source,
		 "Innodb_os_log_fsyncs" OSC_TITLE CSI_MOVE);
	str_copy(c->commit_source, sizeof c->commit_source, "Binlog_commits" OSC_TITLE_ST PASTE_ON);
	/* notes are shown as "note: ..." lines on screen 1 */
	c->notes.n = 6;
	str_copy(c->notes.msg[0], NOTE_LEN, "n1 OSC " OSC_TITLE " title " OSC_TITLE_ST " st " OSC_CLIP " clip");
	str_copy(c->notes.msg[1], NOTE_LEN, "n2 CSI " CSI_CLEAR " clear " CSI_MOVE " moved");
	str_copy(c->notes.msg[2], NOTE_LEN, "n3 paste " PASTE_ON "echo pwned" PASTE_OFF " done");
	str_copy(c->notes.msg[3], NOTE_LEN, "n4 C1 " C1_CSI "31m red " RAW_CSI "2J raw");
	str_copy(c->notes.msg[4], NOTE_LEN,
		 "n5 del " DEL " bad " BAD_UTF8 " rlm " RLM "x rlo " RLO "abc end");
	str_copy(c->notes.msg[5], NOTE_LEN, "n6 VISIBLE-BEFORE-NUL" NUL_MARK "HIDDEN-AFTER-NUL" OSC_TITLE);
}

/* A setting stored as given (sample_setting() would sanitise it). */
static void set_raw(struct sample *s, const char *name, const char *value)
{
	struct setting *st = &s->settings[s->nsettings++];
	str_copy(st->name, sizeof st->name, name);
	str_copy(st->value, sizeof st->value, value);
}

static void up_sample(struct sample *s, int i)
{
	uint64_t k = (uint64_t)i;
	memset(s, 0, sizeof *s);
	s->mono = 5000.0 + i;
	s->wall = START_WALL + i;
	s->state = STATE_UP;
	s->conn_gen = 1;
	s->uptime_s = 7200 + i;
	s->query_ms = 0.5;
	s->nqueries = 3;
	sample_set(s, CTR_COMMITS, 100000 + 250 * k, 1);
	sample_set(s, CTR_ROLLBACKS, 50 + k, 1);
	sample_set(s, CTR_FSYNCS, 200000 + 500 * k, 1);
	sample_set(s, CTR_COM_COMMIT, 1000 + 10 * k, 1);
	sample_set(s, CTR_HANDLER_COMMIT, 300000 + 260 * k, 1);
	sample_set(s, CTR_REDO_FSYNCS, 100000 + 250 * k, 1);
	sample_set(s, CTR_BINLOG_COMMITS, 100000 + 250 * k, 1);
	sample_set(s, CTR_BINLOG_GROUP_COMMITS, 100000 + 250 * k, 1);
	sample_set(s, CTR_BINLOG_FSYNCS, 100000 + 250 * k, 1);
	sample_set(s, CTR_DATA_FSYNCS, 9000 + 5 * k, 1);
	sample_set(s, CTR_REDO_WRITES, 100000 + 250 * k, 1);
	sample_set(s, CTR_REDO_BYTES, 50000000 + 256000 * k, 1);
	/* settings values are printed in the implications under the rates */
	/* settings values are printed in the implications under the rates;
	 * sample_setting() would sanitise them, so they are set directly, as a
	 * recording from another program could hold them */
	s->settings_fresh = true;
	set_raw(s, "innodb_flush_log_at_trx_commit", "1");
	set_raw(s, "log_bin", "ON");
	set_raw(s, "sync_binlog", "1" OSC_TITLE CSI_CLEAR);
	set_raw(s, "innodb_flush_method", "O_DIRECT" CSI_MOVE PASTE_ON C1_CSI BAD_UTF8);
	set_raw(s, "innodb_doublewrite", "ON" DEL OSC_CLIP);
	set_raw(s, "bad" OSC_TITLE "name", "x");
	s->notes.n = 1;
	str_copy(s->notes.msg[0], NOTE_LEN, "sample note " OSC_TITLE CSI_CLEAR);
}

static void down_sample(struct sample *s, int i, const char *error)
{
	memset(s, 0, sizeof *s);
	s->mono = 5000.0 + i;
	s->wall = START_WALL + i;
	s->state = STATE_DOWN;
	s->conn_gen = 1;
	s->retry_in = 4;
	str_copy(s->error, sizeof s->error, error);
}

/* ---- pass 2: NUL bytes and long fields ---- */

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A long text field: the marker, then escape sequences between runs of
 * letters, LONG_LEN bytes in all. */
static unsigned char *long_field(int tag, const char *marker, size_t *len)
{
	static const char piece[] = OSC_TITLE CSI_CLEAR "LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL";
	unsigned char *f = xmalloc(6 + LONG_LEN);
	size_t n = strlen(marker), pl = strlen(piece);
	f[0] = (unsigned char)tag;
	f[1] = (unsigned char)(tag >> 8);
	put32(f + 2, LONG_LEN);
	memcpy(f + 6, marker, n);
	while (n < LONG_LEN) {
		size_t k = LONG_LEN - n < pl ? LONG_LEN - n : pl;
		memcpy(f + 6 + n, piece, k);
		n += k;
	}
	*len = 6 + LONG_LEN;
	return f;
}

/* Rewrite path: NUL_MARK's first byte becomes NUL in every record; a long
 * note goes into the CAPS record, a long note and a long error into the
 * first DOWN sample. */
static void pass2(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *in, *out;
	size_t n, off = 16, o = 16, fl;
	long sz;
	int down_seen = 0;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 16 || fseek(f, 0, SEEK_SET) != 0)
		die(path, "cannot read back");
	in = xmalloc((size_t)sz);
	if (fread(in, 1, (size_t)sz, f) != (size_t)sz)
		die(path, "short read");
	fclose(f);
	n = (size_t)sz;
	out = xmalloc(n + 4 * (6 + LONG_LEN) + 64);
	memcpy(out, in, 16);
	while (off + 13 <= n) {
		uint32_t len = get32(in + off + 4);
		unsigned char type = in[off + 8];
		unsigned char *rec = out + o, *p;
		size_t plen = len, i;
		if (get32(in + off) != REC_SYNC || off + 13 + len > n)
			die(path, "unexpected framing");
		memcpy(rec, in + off, 9 + len);
		p = rec + 9;
		for (i = 0; i + strlen(NUL_MARK) <= plen; i++)
			if (memcmp(p + i, NUL_MARK, strlen(NUL_MARK)) == 0)
				p[i] = '\0';
		if (type == REC_CAPS) {
			unsigned char *lf = long_field(TAG_CAPS_NOTE, "LONGNOTE ", &fl);
			memcpy(p + plen, lf, fl);
			plen += fl;
			free(lf);
		} else if (type == REC_SAMPLE && plen > 0) {
			/* the state field is tag 3; find it to spot the first DOWN sample */
			size_t q = 0;
			int down = 0;
			while (q + 6 <= plen) {
				unsigned tag = (unsigned)p[q] | (unsigned)p[q + 1] << 8;
				uint32_t fl2 = get32(p + q + 2);
				if (tag == 3 && fl2 == 8 && p[q + 6] == STATE_DOWN)
					down = 1;
				q += 6 + fl2;
			}
			if (down && !down_seen++) {
				unsigned char *lf = long_field(TAG_SAMPLE_NOTE, "LONGSAMPLENOTE ", &fl);
				memcpy(p + plen, lf, fl);
				plen += fl;
				free(lf);
				lf = long_field(TAG_SAMPLE_ERROR, "LONGERR ", &fl);
				memcpy(p + plen, lf, fl);
				plen += fl;
				free(lf);
			}
		}
		put32(rec + 4, (uint32_t)plen);
		put32(p + plen, rec_crc32(0, rec + 4, 5 + plen));
		o += 9 + plen + 4;
		off += 9 + len + 4;
	}
	if (off != n)
		die(path, "trailing bytes");
	f = fopen(path, "wb");
	if (!f || fwrite(out, 1, o, f) != o || fclose(f) != 0)
		die(path, "cannot rewrite");
	free(in);
	free(out);
}

int main(int argc, char **argv)
{
	struct recorder r;
	struct rec_header h;
	struct caps *c = xcalloc(1, sizeof *c);
	struct sample *s = xcalloc(1, sizeof *s);
	char err[256];
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: mkrec FILE\n");
		return 2;
	}
	memset(&h, 0, sizeof h);
	str_copy(h.engine, sizeof h.engine, "mariadb");
	str_copy(h.server_version, sizeof h.server_version, "10.11.6" OSC_TITLE CSI_CLEAR);
	/* the host label is shown in the header */
	str_copy(h.host, sizeof h.host,
		 "db" OSC_TITLE CSI_CLEAR CSI_MOVE PASTE_ON C1_CSI DEL BAD_UTF8 RLM "end:3306");
	str_copy(h.dbtop_version, sizeof h.dbtop_version, "mkrec" OSC_TITLE);
	h.start_wall = START_WALL;
	h.interval = 1;
	if (rec_open_write(&r, argv[1], &h, false, err, sizeof err) < 0)
		die(argv[1], err);
	caps_fill(c);
	if (rec_write_caps(&r, c, 1, err, sizeof err) < 0)
		die(argv[1], err);
	for (i = 0; i < 6; i++) {
		up_sample(s, i);
		if (rec_write_sample(&r, s, err, sizeof err) < 0)
			die(argv[1], err);
	}
	/* the first DOWN sample gets a 100 KB error text in pass 2 */
	down_sample(s, i++, "first down");
	if (rec_write_sample(&r, s, err, sizeof err) < 0)
		die(argv[1], err);
	down_sample(s, i++,
		    "lost " OSC_TITLE " " CSI_CLEAR " " CSI_MOVE " " PASTE_ON " " C1_CSI "2J " RAW_CSI " " DEL
		    " " BAD_UTF8 " " RLM "x ERR-BEFORE-NUL" NUL_MARK "ERR-HIDDEN-AFTER-NUL");
	if (rec_write_sample(&r, s, err, sizeof err) < 0)
		die(argv[1], err);
	rec_close(&r);
	pass2(argv[1]);
	free(c);
	free(s);
	return 0;
}
