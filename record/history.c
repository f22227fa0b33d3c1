/* history.c - the kept samples: a spool in the recording format and its
 * index; rebuilding the model of a kept moment. See history.h. */
#include "history.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../model/findings.h"
#include "../util/util.h"

/* mkdir -p path (each part made 0700); true when path is a directory of
 * ours. */
static bool private_dir(const char *path)
{
	char p[512];
	struct stat st;
	str_copy(p, sizeof p, path);
	for (char *c = p + 1; *c; c++)
		if (*c == '/') {
			*c = '\0';
			mkdir(p, 0700);   /* (may exist) */
			*c = '/';
		}
	mkdir(p, 0700);
	return lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

/* The directory spool segments go to: dir, else the state directory
 * (as the undo journal's: $XDG_STATE_HOME/dbtop, else
 * ~/.local/state/dbtop; made 0700: often on disk where /tmp may be
 * memory), else $TMPDIR, else /tmp. */
static void spool_dir(struct history *h, const char *dir)
{
	const char *x = getenv("XDG_STATE_HOME"), *home = getenv("HOME"), *t = getenv("TMPDIR");
	if (dir && *dir) {
		str_copy(h->dir, sizeof h->dir, dir);
		return;
	}
	if (x && *x == '/') {
		str_printf(h->dir, sizeof h->dir, "%s/dbtop", x);
		if (private_dir(h->dir))
			return;
	} else if (home && *home == '/') {
		str_printf(h->dir, sizeof h->dir, "%s/.local/state/dbtop", home);
		if (private_dir(h->dir))
			return;
	}
	str_copy(h->dir, sizeof h->dir, t && *t == '/' ? t : "/tmp");
}

/* Make segment k: a new private file (0600 whatever the umask, never
 * through a link, never an existing file), a second descriptor to read it
 * back (checked to be the same file), then the name removed. */
static int seg_open(struct history *h, int k, char *err, size_t errlen)
{
	static unsigned counter;
	struct hist_seg *g = &h->seg[k];
	struct stat a, b;
	char path[600];
	int fd = -1, rfd = -1;

	for (int tries = 0; tries < 20 && fd < 0; tries++) {
		str_printf(path, sizeof path, "%s/dbtop-history-%ld-%u-%lx.dbrec", h->dir, (long)getpid(), counter++,
			   (unsigned long)(clock_mono() * 1e6) & 0xffffff);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		str_printf(err, errlen, "cannot create the history spool in %s: %s", h->dir, strerror(errno));
		return -1;
	}
	if (fchmod(fd, 0600) < 0 || (rfd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fstat(fd, &a) < 0 || fstat(rfd, &b) < 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		str_printf(err, errlen, "cannot open the history spool %s: %s", path, strerror(errno ? errno : EIO));
		unlink(path);
		close(fd);
		if (rfd >= 0)
			close(rfd);
		return -1;
	}
	str_copy(h->last_path, sizeof h->last_path, path);
	if (!getenv("DBTOP_HISTORY_KEEP_NAME"))   /* (tests look at the file while it is named) */
		unlink(path);
	memset(g, 0, sizeof *g);
	if (rec_open_write_fd(&g->w, fd, path, &h->hdr, false, err, errlen) < 0) {
		close(rfd);
		return -1;
	}
	g->own = true;
	g->open = true;
	if (rec_open_read_fd(&g->rd, rfd, err, errlen) < 0) {
		rec_close(&g->w);
		g->open = false;
		return -1;
	}
	g->have_rd = true;
	return 0;
}

static void seg_close(struct hist_seg *g)
{
	if (g->own)
		rec_close(&g->w);
	if (g->have_rd)
		rec_reader_close(&g->rd);
	memset(g, 0, sizeof *g);
}

/* The recorder samples go to now. */
static struct recorder *writer(struct history *h)
{
	return h->shared ? h->shared : &h->seg[h->cur].w;
}

int hist_open(struct history *h, double keep, struct recorder *shared, const char *dir,
	      const struct rec_header *hdr, char *err, size_t errlen)
{
	memset(h, 0, sizeof *h);
	h->keep = keep;
	h->hdr = *hdr;
	h->last_settings = UINT64_MAX;
	h->last_gen = UINT32_MAX;
	h->want_whole = true;
	if (shared) {
		/* the recording is the spool: read back through its own descriptor */
		int rfd = open(shared->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (rfd < 0) {
			str_printf(err, errlen, "cannot read back the recording %s: %s", shared->path, strerror(errno));
			return -1;
		}
		if (rec_open_read_fd(&h->seg[0].rd, rfd, err, errlen) < 0)
			return -1;
		h->seg[0].have_rd = true;
		h->seg[0].open = true;
		h->shared = shared;
		return 0;
	}
	spool_dir(h, dir);
	return seg_open(h, 0, err, errlen);
}

void hist_close(struct history *h)
{
	seg_close(&h->seg[0]);
	seg_close(&h->seg[1]);
	free(h->e);
	free(h->caps);
	memset(h, 0, sizeof *h);
}

int hist_restart(struct history *h, const struct rec_header *hdr, char *err, size_t errlen)
{
	double keep = h->keep;
	uint64_t bytes_max = h->bytes_max;
	char dir[sizeof h->dir];
	str_copy(dir, sizeof dir, h->dir);
	hist_close(h);
	int rc = hist_open(h, keep, NULL, dir, hdr, err, errlen);
	h->bytes_max = bytes_max;
	if (rc < 0) {
		/* nothing kept from here on (hist_add does nothing; the index is empty) */
		h->stopped = true;
		str_printf(h->note, sizeof h->note, "no history kept: %s", err);
	}
	return rc;
}

/* Drop the index entries before index n (and the caps no entry needs). */
static void drop_front(struct history *h, size_t n)
{
	if (!n)
		return;
	memmove(h->e, h->e + n, (h->n - n) * sizeof *h->e);
	h->n -= n;
	size_t keep = 0;
	while (keep < h->ncaps && h->n && h->caps[keep].gen < h->e[0].conn_gen)
		keep++;
	if (keep && keep < h->ncaps) {
		memmove(h->caps, h->caps + keep, (h->ncaps - keep) * sizeof *h->caps);
		h->ncaps -= keep;
	}
}

static const struct caps *caps_of(const struct history *h, uint32_t gen)
{
	for (size_t i = h->ncaps; i-- > 0;)
		if (h->caps[i].gen == gen)
			return &h->caps[i].caps;
	return NULL;
}

/* Stop the spool: err says why. What is kept stays readable. */
static void stop(struct history *h, const char *err)
{
	h->stopped = true;
	str_printf(h->note, sizeof h->note, "history stopped, what it kept stays: %s", err);
	if (!h->shared && h->seg[h->cur].own) {
		/* the reader keeps the file; the writer's buffer is dropped */
		rec_close(&h->seg[h->cur].w);
	}
}

void hist_add_caps(struct history *h, const struct caps *c, uint32_t conn_gen)
{
	char err[256];
	if (h->ncaps && h->caps[h->ncaps - 1].gen == conn_gen)
		h->caps[h->ncaps - 1].caps = *c;
	else {
		h->caps = xrealloc(h->caps, (h->ncaps + 1) * sizeof *h->caps);
		h->caps[h->ncaps].gen = conn_gen;
		h->caps[h->ncaps].caps = *c;
		h->ncaps++;
	}
	if (h->stopped)
		return;
	if (rec_write_caps(writer(h), c, conn_gen, err, sizeof err) < 0)
		stop(h, err);
}

/* A new segment when the current one spans the history; the older one
 * (and its samples) dropped. -1 with err when the new one cannot be made. */
static int rotate(struct history *h, double wall, char *err, size_t errlen)
{
	struct hist_seg *g = &h->seg[h->cur];
	int k = 1 - h->cur;
	size_t n = 0;
	if (h->shared || !(g->first_wall > 0) || wall - g->first_wall < h->keep)
		return 0;
	while (n < h->n && h->e[n].seg == k)
		n++;
	drop_front(h, n);
	seg_close(&h->seg[k]);
	if (seg_open(h, k, err, errlen) < 0)
		return -1;
	h->cur = k;
	const struct caps *c = caps_of(h, h->last_gen);
	if (c && rec_write_caps(&h->seg[k].w, c, h->last_gen, err, errlen) < 0)
		return -1;
	h->gen_has_digests = false;
	h->since_ckpt = 0;
	h->want_whole = true;
	return 0;
}

/* The set of a checkpoint: ds with the texts the model m holds for its
 * rows (a row carries its text once, when fetched), and when ds is
 * partial (as a replay of a change-only recording delivers it) every
 * digest m holds that ds does not mention, unchanged: a rebuild starting
 * here gets them too; *complete then. A sampled, sliced or estimates-only
 * set gets the texts only. NULL without m. */
static struct digest_set *whole_set(const struct digest_set *ds, const struct model *m, bool *complete)
{
	if (!m)
		return NULL;
	struct digest_set *out = digest_set_dup(ds);
	/* the texts fetched earlier (a row carries its text once) */
	for (size_t i = 0; i < out->n; i++) {
		struct digest_row *r = &out->rows[i];
		const uint32_t *ix = r->text ? NULL : hmap_get(&m->dg.slots, r->key);
		if (ix && *ix < m->dg.n && m->dg.e[*ix].last.text)
			r->text = xstrdup(m->dg.e[*ix].last.text);
	}
	if (ds->sampled || ds->split_n || ds->estimates_only || !ds->partial)
		return out;
	for (size_t i = 0; i < m->dg.n; i++) {
		const struct digest_entry *e = &m->dg.e[i];
		if (e->seen_tick == m->dg.tick || e->gone)
			continue;
		struct digest_row *r = digest_set_add(out);
		*r = e->last;
		r->text = e->last.text ? xstrdup(e->last.text) : NULL;
	}
	out->partial = false;
	*complete = true;
	return out;
}

/* Write s, its digests whole when a checkpoint is due (merged with the
 * model's when the set is partial). Sets *ckpt. */
static int write_sample(struct history *h, struct recorder *w, const struct sample *s, const struct model *m,
			bool *ckpt, char *err, size_t errlen)
{
	struct digest_set *whole = NULL;
	struct sample *tmp = NULL;
	int rc;
	bool complete = s->digests && !s->digests->partial;
	if (s->digests && h->want_whole) {
		rec_write_whole(w);
		if ((whole = whole_set(s->digests, m, &complete)) != NULL) {
			tmp = xmalloc(sizeof *tmp);
			*tmp = *s;
			tmp->digests = whole;
		}
	}
	rc = rec_write_sample(w, tmp ? tmp : s, err, errlen);
	if (whole)
		digest_set_free(whole);
	free(tmp);
	*ckpt = s->digests && w->dg_whole && complete;
	return rc;
}

int hist_add(struct history *h, const struct sample *s, const struct model *m)
{
	char err[256];
	bool ckpt = false;
	if (h->stopped)
		return 0;
	if (rotate(h, s->wall, err, sizeof err) < 0) {
		stop(h, err);
		return -1;
	}
	struct recorder *w = writer(h);
	uint64_t off = w->bytes;
	if (s->conn_gen != h->last_gen) {
		h->last_gen = s->conn_gen;
		h->gen_has_digests = false;
		h->since_ckpt = 0;
		h->want_whole = true;
	}
	if (write_sample(h, w, s, m, &ckpt, err, sizeof err) < 0) {
		int e = errno;
		/* (the spool's name says nothing: it is gone; a recording's does) */
		stop(h, h->shared ? err : strerror(e));
		return -1;
	}
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 256;
		h->e = xrealloc(h->e, h->cap * sizeof *h->e);
	}
	struct hist_ent *e = &h->e[h->n++];
	memset(e, 0, sizeof *e);
	e->wall = s->wall;
	e->mono = s->mono;
	e->off = off;
	e->seq = h->next_seq++;
	e->seg = h->shared ? 0 : h->cur;
	e->conn_gen = s->conn_gen;
	if (s->settings_fresh && s->nsettings > 0)
		h->last_settings = e->seq;
	e->settings_seq = h->last_settings;
	if (s->digests) {
		h->gen_has_digests = true;
		e->ckpt = ckpt;
		h->since_ckpt = e->ckpt ? 0 : h->since_ckpt + 1;
		h->want_whole = h->since_ckpt >= HIST_CKPT_EVERY;
	} else {
		e->ckpt = !h->gen_has_digests;
	}
	if (!(h->seg[e->seg].first_wall > 0))
		h->seg[e->seg].first_wall = s->wall;
	/* the index keeps the last keep seconds, and before them the point
	 * the oldest of them is rebuilt from */
	size_t n = hist_first(h), c = n;
	while (c > 0 && !h->e[c].ckpt)
		c--;
	if (c == 0 && !h->e[0].ckpt)
		c = n;   /* none (sampled digests): the window alone, rebuilt from its start */
	else if (c > 0)
		c--;   /* (and the sample before: the rates of the checkpoint's interval) */
	long si = h->e[n].settings_seq == UINT64_MAX ? -1 : hist_find_seq(h, h->e[n].settings_seq);
	if (si >= 0 && (size_t)si < c)
		c = (size_t)si;   /* and the settings it had */
	drop_front(h, c);
	return 0;
}

size_t hist_first(const struct history *h)
{
	size_t lo = 0, hi = h->n ? h->n - 1 : 0;
	double from = h->n ? h->e[h->n - 1].wall - h->keep : 0;
	while (lo < hi) {   /* the first entry inside the window */
		size_t mid = (lo + hi) / 2;
		if (h->e[mid].wall < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool hist_range(const struct history *h, double *oldest, double *newest)
{
	if (!h || !h->n)
		return false;
	*oldest = h->e[hist_first(h)].wall;
	*newest = h->e[h->n - 1].wall;
	return true;
}

long hist_nearest(const struct history *h, double wall)
{
	size_t lo, hi;
	if (!h || !h->n)
		return -1;
	lo = hist_first(h);
	hi = h->n;
	while (lo < hi) {   /* first entry with e.wall >= wall */
		size_t mid = (lo + hi) / 2;
		if (h->e[mid].wall < wall)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == h->n)
		return (long)h->n - 1;
	if (lo > hist_first(h) && wall - h->e[lo - 1].wall <= h->e[lo].wall - wall)
		return (long)lo - 1;
	return (long)lo;
}

long hist_find_seq(const struct history *h, uint64_t seq)
{
	if (!h || !h->n || seq < h->e[0].seq || seq > h->e[h->n - 1].seq)
		return -1;
	return (long)(seq - h->e[0].seq);   /* sequence numbers are consecutive */
}

/* Read kept sample i into it (a SAMPLE; the caller releases it). */
static int read_at(struct history *h, size_t i, struct rec_item *it, bool seek, char *err, size_t errlen)
{
	struct hist_seg *g = &h->seg[h->e[i].seg];
	if (!g->have_rd) {
		str_copy(err, errlen, "the history spool is gone");
		return -1;
	}
	if ((seek || g->rd.offset != h->e[i].off || feof(g->rd.f)) && rec_reader_seek(&g->rd, h->e[i].off) < 0) {
		str_printf(err, errlen, "cannot seek in the history spool: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		if (rec_next(&g->rd, it) != 1) {
			str_copy(err, errlen, "the history spool ends early");
			return -1;
		}
		if (it->type == REC_SAMPLE)
			return 0;
	}
}

int hist_read(struct history *h, size_t i, struct rec_item *it, char *err, size_t errlen)
{
	if (!h || i >= h->n) {
		str_copy(err, errlen, "no such moment kept");
		return -1;
	}
	return read_at(h, i, it, false, err, errlen);
}

const struct caps *hist_caps(const struct history *h, uint32_t gen)
{
	return caps_of(h, gen);
}

int hist_step(struct history *h, size_t i, struct model *out, const struct model *live, char *err,
	      size_t errlen)
{
	if (!h || i == 0 || i >= h->n || out->intervals == 0 || out->last.wall != h->e[i - 1].wall)
		return hist_build(h, i, out, live, err, errlen);
	struct rec_item *it = xmalloc(sizeof *it);
	int rc = read_at(h, i, it, false, err, errlen);
	if (rc == 0) {
		if (h->e[i].conn_gen != h->e[i - 1].conn_gen) {
			const struct caps *c = caps_of(h, h->e[i].conn_gen);
			if (c)
				model_set_caps(out, c);
		}
		model_update(out, &it->sample);
		sample_release(&it->sample);
		if (live)
			model_copy_history(out, live, h->e[i].wall);
	}
	free(it);
	return rc;
}

int hist_build(struct history *h, size_t i, struct model *out, const struct model *live, char *err,
	       size_t errlen)
{
	struct rec_item *it;
	size_t k, j;
	uint32_t gen = UINT32_MAX;
	int rc = 0;

	if (!h || i >= h->n) {
		str_copy(err, errlen, "no such moment kept");
		return -1;
	}
	/* the newest point a rebuild may start from, before i (rates need the
	 * sample before) and early enough for the findings' hysteresis to
	 * have seen what the live model had (findings_warmup), else the
	 * oldest before i, else i itself, else the oldest kept */
	size_t warm = (size_t)findings_warmup();
	k = i;
	for (j = i; j-- > 0;)
		if (h->e[j].ckpt) {
			k = j;
			if (j + warm <= i)
				break;
		}
	if (k == i && !h->e[i].ckpt)
		k = 0;
	size_t cap = live && live->hist_t.cap ? live->hist_t.cap : 600;
	model_free(out);
	model_init(out, cap);
	it = xmalloc(sizeof *it);
	for (j = k; j <= i && rc == 0; j++) {
		if (read_at(h, j, it, j == k, err, errlen) < 0) {
			rc = -1;
			break;
		}
		if (h->e[j].conn_gen != gen) {
			const struct caps *c = caps_of(h, h->e[j].conn_gen);
			gen = h->e[j].conn_gen;
			if (c)
				model_set_caps(out, c);
		}
		model_update(out, &it->sample);
		sample_release(&it->sample);
	}
	/* the settings as last read before that moment */
	uint64_t ss = h->e[i].settings_seq;
	long si = ss == UINT64_MAX ? -1 : hist_find_seq(h, ss);
	if (rc == 0 && si >= 0 && (size_t)si < k && read_at(h, (size_t)si, it, true, err, errlen) == 0) {
		out->nsettings = (size_t)it->sample.nsettings;
		memcpy(out->settings, it->sample.settings, sizeof out->settings);
		sample_release(&it->sample);
	}
	free(it);
	if (rc == 0 && live)
		model_copy_history(out, live, h->e[i].wall);
	return rc;
}
