/* test_history.c - the time-travel store: the index keeps --history
 * seconds and the spool at most two segments; nearest-sample seeks; a
 * model rebuilt at a kept moment equals the live model of that moment
 * (rates, digests, locks, settings); the spool is 0600 whatever the umask
 * and unlinked while open; a full disk (a file size limit) stops it
 * with a note and keeps what it holds readable. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../model/model.h"
#include "../../record/history.h"
#include "../../util/util.h"
#include "tap.h"

#define T0 1795978222.0
#define NDIG 40

static char tmpdir[256];

static void make_caps(struct caps *c)
{
	memset(c, 0, sizeof *c);
	c->engine = ENGINE_MYSQL;
	c->flavour = FLAVOUR_MARIADB;
	str_copy(c->version, sizeof c->version, "10.11.6-MariaDB");
	c->perf_schema = true;
	c->ps_digests = true;
}

/* Sample i: commits grow by 10 * (i % 7) per second, fsyncs by i % 5;
 * the durability setting read every 10 samples (2 from sample 50 on);
 * NDIG digests, a few of them changing each time; a lock chain while
 * 30 <= i < 40. */
static bool only_changed;   /* digest sets hold the rows that changed (partial), as a replay gives them */

static void make_sample(struct sample *s, int i, uint64_t *commits, uint64_t *fsyncs)
{
	memset(s, 0, sizeof *s);
	s->mono = 1000 + i;
	s->wall = T0 + i;
	s->state = STATE_UP;
	s->conn_gen = 1;
	s->uptime_s = 5000 + i;
	*commits += 10 * (uint64_t)(i % 7);
	*fsyncs += (uint64_t)(i % 5);
	sample_set(s, CTR_COMMITS, *commits, 1);
	sample_set(s, CTR_FSYNCS, *fsyncs, 1);
	if (i % 10 == 0) {
		s->settings_fresh = true;
		sample_setting(s, "innodb_flush_log_at_trx_commit", i >= 50 ? "2" : "1");
	}
	s->digests = xcalloc(1, sizeof *s->digests);
	s->digests->partial = only_changed && i > 0;
	for (int d = 0; d < NDIG; d++) {
		if (only_changed && i > 0 && i % (d % 4 + 1) != 0)
			continue;   /* unchanged since the last sample */
		struct digest_row *r = digest_set_add(s->digests);
		str_printf(r->key, sizeof r->key, "digest-%02d", d);
		str_copy(r->schema, sizeof r->schema, "app");
		/* (partial sets: the text comes once, as a recording has it) */
		r->text = !only_changed || i == 0 ? xstrdup(d % 2 ? "SELECT ? FROM t" : "UPDATE t SET v = ?") : NULL;
		/* digest d changes every (d % 4 + 1) samples */
		uint64_t k = (uint64_t)(i / (d % 4 + 1));
		r->c[DG_CALLS] = k * (uint64_t)(d + 1);
		r->c[DG_TOTAL_NS] = k * (uint64_t)(d + 1) * 1000000;
		r->have = (1u << DG_CALLS) | (1u << DG_TOTAL_NS);
		r->epoch = 1;
	}
	if (i >= 30 && i < 40) {
		s->locks = lock_set_new();
		s->locks->status = LOCKS_READ;
		s->locks->waiting = (unsigned)(i - 29);
	}
}

/* Files left in tmpdir. */
static int files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static double digest_rate(const struct model *m, const char *key)
{
	for (size_t i = 0; i < m->dg.n; i++)
		if (strcmp(m->dg.e[i].last.key, key) == 0)
			return m->dg.e[i].known ? m->dg.e[i].rate[DG_CALLS] : NAN;
	return NAN;
}

static const char *setting_of(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->nsettings; i++)
		if (strcmp(m->settings[i].name, name) == 0)
			return m->settings[i].value;
	return "";
}

static bool same(double a, double b)
{
	return (isnan(a) && isnan(b)) || fabs(a - b) < 1e-9;
}

/* 200 samples into a 60 s history; a reference model fed every one. */
static void test_store(void)
{
	struct history h;
	struct rec_header hdr = {.start_wall = T0, .interval = 1};
	struct caps c;
	char err[256];
	uint64_t commits = 0, fsyncs = 0;
	struct model live, out;
	enum { N = 200 };
	static double rate_at[N], dg_at[N];
	static int waiting_at[N];
	static char setting_at[N][8];

	make_caps(&c);
	str_copy(hdr.engine, sizeof hdr.engine, "mariadb");
	umask(0277);   /* the spool is 0600 all the same */
	setenv("DBTOP_HISTORY_KEEP_NAME", "1", 1);
	CHECK(hist_open(&h, 60, NULL, tmpdir, &hdr, err, sizeof err) == 0, tname("hist_open in %s: %s", tmpdir, err));
	unsetenv("DBTOP_HISTORY_KEEP_NAME");
	struct stat st;
	CHECK(stat(h.last_path, &st) == 0 && (st.st_mode & 0777) == 0600,
	      tname("the spool is created 0600 under umask 0277 (mode %o)", (unsigned)(st.st_mode & 0777)));
	unlink(h.last_path);
	umask(022);
	model_init(&live, 900);
	model_init(&out, 900);
	model_set_caps(&live, &c);
	hist_add_caps(&h, &c, 1);
	int add_failed = 0;
	for (int i = 0; i < N; i++) {
		struct sample *s = xmalloc(sizeof *s);
		make_sample(s, i, &commits, &fsyncs);
		add_failed += hist_add(&h, s, NULL) != 0;
		model_update(&live, s);
		rate_at[i] = live.cur[M_COMMITS].v;
		dg_at[i] = digest_rate(&live, "digest-03");
		waiting_at[i] = live.locks ? (int)live.locks->waiting : -1;
		str_copy(setting_at[i], sizeof setting_at[i], setting_of(&live, "innodb_flush_log_at_trx_commit"));
		sample_release(s);
		free(s);
	}
	CHECK(add_failed == 0, tname("%d samples kept without a failure", N));
	CHECK(files_in(tmpdir) == 0, tname("no spool file is named in %s while it is open (%d)", tmpdir, files_in(tmpdir)));
	double oldest, newest;
	CHECK(hist_range(&h, &oldest, &newest) && newest == T0 + N - 1 && oldest >= newest - 60 && oldest <= newest - 59,
	      tname("the index keeps the last 60 s: %.0f .. %.0f", oldest - T0, newest - T0));
	CHECK(h.n - hist_first(&h) == 61 && hist_first(&h) <= HIST_CKPT_EVERY + 1,
	      tname("the index holds %zu samples: 61 in the window, %zu before it (<= %d)", h.n, hist_first(&h),
		    HIST_CKPT_EVERY + 1));
	uint64_t disk = (h.seg[0].open ? h.seg[0].w.bytes : 0) + (h.seg[1].open ? h.seg[1].w.bytes : 0);
	CHECK(h.seg[0].open && h.seg[1].open && disk < 200 * 1024,
	      tname("two spool segments at most, %llu bytes in all after %d samples", (unsigned long long)disk, N));
	/* seeks */
	CHECK(hist_nearest(&h, T0 + 150.4) == (long)(150 - (N - (long)h.n)), "nearest: 150.4 -> 150");
	CHECK(hist_nearest(&h, T0 + 150.6) == (long)(151 - (N - (long)h.n)), "nearest: 150.6 -> 151");
	CHECK(hist_nearest(&h, 0) == (long)hist_first(&h), "nearest: before the oldest -> the oldest");
	CHECK(hist_nearest(&h, T0 + 1e6) == (long)h.n - 1, "nearest: after the newest -> the newest");
	CHECK(hist_find_seq(&h, N - 1) == (long)h.n - 1 && hist_find_seq(&h, 0) == -1, "find_seq: newest kept, first gone");
	/* rebuild every kept moment: the same numbers the live model had then */
	int bad = 0, dbad = 0, sbad = 0;
	double worst = 0;
	for (size_t k = hist_first(&h); k < h.n; k++) {
		int i = (int)(h.e[k].wall - T0);
		double t0 = clock_mono();
		if (hist_build(&h, k, &out, &live, err, sizeof err) < 0) {
			bad++;
			continue;
		}
		if (clock_mono() - t0 > worst)
			worst = clock_mono() - t0;
		if (!same(out.cur[M_COMMITS].v, rate_at[i]) || !same(digest_rate(&out, "digest-03"), dg_at[i]))
			printf("# at %d (index %zu): commits/s %g (live %g), digest %g (live %g)\n", i, k, out.cur[M_COMMITS].v,
			       rate_at[i], digest_rate(&out, "digest-03"), dg_at[i]);
		bad += !same(out.cur[M_COMMITS].v, rate_at[i]) || out.last.wall != T0 + i;
		dbad += !same(digest_rate(&out, "digest-03"), dg_at[i]);
		if (strcmp(setting_of(&out, "innodb_flush_log_at_trx_commit"), setting_at[i]) != 0)
			printf("# at %d: setting '%s' (live '%s')\n", i, setting_of(&out, "innodb_flush_log_at_trx_commit"), setting_at[i]);
		sbad += strcmp(setting_of(&out, "innodb_flush_log_at_trx_commit"), setting_at[i]) != 0;
		/* the sparkline ends at that moment */
		bad += !same(ring_get(&out.hist[M_COMMITS], 0), rate_at[i]) || !same(ring_get(&out.hist[M_COMMITS], 1),
										rate_at[i - 1]);
	}
	/* a step forward folds one sample into the model built before */
	int sbad2 = 0;
	size_t k0 = hist_first(&h) + 5;
	hist_build(&h, k0, &out, &live, err, sizeof err);
	for (size_t k = k0 + 1; k < h.n; k++) {
		int i = (int)(h.e[k].wall - T0);
		if (hist_step(&h, k, &out, &live, err, sizeof err) < 0)
			sbad2++;
		sbad2 += !same(out.cur[M_COMMITS].v, rate_at[i]) || out.last.wall != T0 + i ||
			 !same(digest_rate(&out, "digest-03"), dg_at[i]);
	}
	CHECK(sbad2 == 0, tname("stepped forward one sample at a time: the same as live (%d differ)", sbad2));
	CHECK(bad == 0, tname("rebuilt at each of %zu kept moments: commits/s, its sparkline and the time as live had them (%d differ)",
			      h.n - hist_first(&h), bad));
	CHECK(dbad == 0, tname("rebuilt: a digest's calls/s as live had them (%d differ)", dbad));
	CHECK(sbad == 0, tname("rebuilt: the durability setting of that moment (%d differ)", sbad));
	printf("# slowest rebuild %.3f ms (%d digests, checkpoint every %d)\n", worst * 1000, NDIG, HIST_CKPT_EVERY);
	hist_close(&h);

	/* the lock chain of a moment: a short history over the chain */
	commits = fsyncs = 0;
	CHECK(hist_open(&h, 3600, NULL, tmpdir, &hdr, err, sizeof err) == 0, "hist_open (an hour)");
	model_free(&live);
	model_init(&live, 900);
	hist_add_caps(&h, &c, 1);
	model_set_caps(&live, &c);
	for (int i = 0; i < 60; i++) {
		struct sample *s = xmalloc(sizeof *s);
		make_sample(s, i, &commits, &fsyncs);
		hist_add(&h, s, NULL);
		model_update(&live, s);
		sample_release(s);
		free(s);
	}
	long k = hist_nearest(&h, T0 + 35);
	CHECK(k >= 0 && hist_build(&h, (size_t)k, &out, &live, err, sizeof err) == 0 && out.locks &&
		      (int)out.locks->waiting == waiting_at[35],
	      tname("rebuilt at 35 s: the lock snapshot of that moment (%d waiting)", waiting_at[35]));
	k = hist_nearest(&h, T0 + 45);
	CHECK(k >= 0 && hist_build(&h, (size_t)k, &out, &live, err, sizeof err) == 0 && !out.locks,
	      "rebuilt at 45 s: no lock snapshot (the chain had ended)");
	CHECK(strcmp(setting_of(&out, "innodb_flush_log_at_trx_commit"), "1") == 0 &&
		      strcmp(setting_of(&live, "innodb_flush_log_at_trx_commit"), "2") == 0,
	      "rebuilt at 45 s: the setting was 1 then, 2 now");
	hist_close(&h);
	model_free(&live);
	model_free(&out);
}

/* Partial digest sets (only the rows that changed, as a replay of a
 * change-only recording gives them): a checkpoint takes the other rows
 * from the model, so a rebuild still equals the live model. */
static void test_partial(void)
{
	struct history h;
	struct rec_header hdr = {.start_wall = T0, .interval = 1};
	struct caps c;
	char err[256];
	uint64_t commits = 0, fsyncs = 0;
	struct model live, out;
	enum { N = 120 };
	static double dg_at[N][4];
	int bad = 0, ck = 0, tbad = 0;

	make_caps(&c);
	only_changed = true;
	CHECK(hist_open(&h, 60, NULL, tmpdir, &hdr, err, sizeof err) == 0, "hist_open (partial sets)");
	model_init(&live, 900);
	model_init(&out, 900);
	model_set_caps(&live, &c);
	hist_add_caps(&h, &c, 1);
	for (int i = 0; i < N; i++) {
		struct sample *s = xmalloc(sizeof *s);
		make_sample(s, i, &commits, &fsyncs);
		model_update(&live, s);
		hist_add(&h, s, &live);
		for (int d = 0; d < 4; d++) {
			char key[32];
			snprintf(key, sizeof key, "digest-%02d", d * 9 + 3);
			dg_at[i][d] = digest_rate(&live, key);
		}
		sample_release(s);
		free(s);
	}
	for (size_t k = hist_first(&h); k < h.n; k++) {
		int i = (int)(h.e[k].wall - T0);
		ck += h.e[k].ckpt;
		if (hist_build(&h, k, &out, &live, err, sizeof err) < 0) {
			bad++;
			continue;
		}
		for (int d = 0; d < 4; d++) {
			char key[32];
			snprintf(key, sizeof key, "digest-%02d", d * 9 + 3);
			bad += !same(digest_rate(&out, key), dg_at[i][d]);
		}
		bad += out.dg.n != NDIG;
		for (size_t j = 0; j < out.dg.n; j++)
			tbad += !out.dg.e[j].last.text;
	}
	CHECK(tbad == 0, tname("partial sets: every rebuilt digest has its text, sent once at the start (%d lack it)", tbad));
	CHECK(ck > 0, tname("partial sets: %d checkpoints in the window", ck));
	CHECK(bad == 0, tname("partial sets: rebuilt at each kept moment, %d digests and their calls/s as live had them (%d differ)",
			      NDIG, bad));
	hist_close(&h);
	model_free(&live);
	model_free(&out);
	only_changed = false;
}

/* A full disk: writes fail with EFBIG past a file size limit (SIGXFSZ
 * ignored, as dbtop does). The spool stops with a note; what it kept
 * stays readable; nothing else fails. */
static void test_full_disk(void)
{
	struct history h;
	struct rec_header hdr = {.start_wall = T0, .interval = 1};
	struct caps c;
	struct rlimit old, lim;
	char err[256];
	uint64_t commits = 0, fsyncs = 0;
	struct model live, out;
	int failed_at = -1, rc_after = 0;

	make_caps(&c);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 48 * 1024;
	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "a 48 KiB file size limit");
	CHECK(hist_open(&h, 3600, NULL, tmpdir, &hdr, err, sizeof err) == 0, "hist_open under the limit");
	model_init(&live, 900);
	model_init(&out, 900);
	hist_add_caps(&h, &c, 1);
	model_set_caps(&live, &c);
	for (int i = 0; i < 300; i++) {
		struct sample *s = xmalloc(sizeof *s);
		make_sample(s, i, &commits, &fsyncs);
		int rc = hist_add(&h, s, NULL);
		if (rc < 0 && failed_at < 0)
			failed_at = i;
		else if (rc < 0)
			rc_after++;
		model_update(&live, s);
		sample_release(s);
		free(s);
	}
	setrlimit(RLIMIT_FSIZE, &old);
	CHECK(failed_at > 0 && h.stopped && rc_after == 0,
	      tname("the spool stopped once, at sample %d, and quietly after that", failed_at));
	CHECK(strstr(h.note, "history stopped") && strstr(h.note, "File too large"), tname("the note says why: %s", h.note));
	CHECK(live.intervals == 300, "the live model took every sample all the same");
	CHECK(h.n > 0 && hist_build(&h, h.n - 1, &out, &live, err, sizeof err) == 0 && out.last.wall == h.e[h.n - 1].wall,
	      tname("what the spool kept (%zu samples) is still rebuilt: %s", h.n, h.n ? "ok" : err));
	hist_close(&h);
	model_free(&live);
	model_free(&out);
	CHECK(files_in(tmpdir) == 0, "closed: no spool file left");
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "%s/dbtop-test-history-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_store();
	test_partial();
	test_full_disk();
	rmdir(tmpdir);
	return tap_failed ? 1 : 0;
}
