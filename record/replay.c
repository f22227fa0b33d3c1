/* replay.c - a recording as a source: the same samples, the same model,
 * the same output, paced like the original (or faster). */
#include "../sources/source.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model/digests.h"
#include "../sources/pg_map.h"
#include "../util/util.h"
#include "record.h"

#define REPLAY_MAX_WAIT_S 3600.0   /* a longer wait between two samples is a damaged time */

struct replay_priv {
	struct rec_reader rd;
	struct rec_item it;      /* scratch: a struct sample is large */
	bool paced;              /* base below is set */
	double base_rec;         /* recorded mono of the pacing origin */
	double base_real;        /* our mono at that moment */
	/* PostgreSQL recordings made before digests carried dbtop's own flag:
	 * the digests whose recorded text is one of dbtop's statements then */
	bool own_flagged; /* a digest row carried the flag: the recording says it */
	struct strset own_keys;
};

static void replay_close(struct source *src)
{
	struct replay_priv *p = src->priv;
	if (!p)
		return;
	rec_reader_close(&p->rd);
	strset_clear(&p->own_keys);
	/* a sample read but never handed out */
	sample_release(&p->it.sample);
	free(p);
	src->priv = NULL;
}

/* Read items until a SAMPLE; CAPS records update the source's caps. Returns
 * 1 with a sample in p->it, 0 at the end. */
static int next_sample(struct source *src, struct replay_priv *p)
{
	while (rec_next(&p->rd, &p->it) == 1) {
		if (p->it.type == REC_CAPS) {
			src->caps = p->it.caps;
			src->conn_gen = p->it.conn_gen;
			continue;
		}
		return 1;
	}
	return 0;
}

static int replay_connect(struct source *src, char *err, size_t errlen)
{
	struct replay_cfg *cfg = (struct replay_cfg *)src->arg;
	struct replay_priv *p;

	if (src->priv)  /* a recording is opened once; the end is final */
		return 0;
	p = xcalloc(1, sizeof *p);
	if (rec_open_read(&p->rd, cfg->path, cfg->buf, cfg->len, err, errlen) < 0) {
		free(p);
		return -1;
	}
	src->priv = p;
	src->start_wall = p->rd.hdr.start_wall;
	if (cfg->from > 0)   /* --from is a seek */
		src->seek_to = src->start_wall + cfg->from;
	else if (p->rd.hdr.open_at > src->start_wall)   /* an incident file opens at its trigger */
		src->seek_to = p->rd.hdr.open_at;
	str_copy(cfg->host, sizeof cfg->host, p->rd.hdr.host);
	memset(&src->caps, 0, sizeof src->caps);
	return 0;
}

/* The wall time samples come at once up to (src->seek_to, which the
 * screen's thread changes: read with __atomic builtins). */
static double seek_at(const struct source *src)
{
	double at;
	__atomic_load(&src->seek_to, &at, __ATOMIC_ACQUIRE);
	return at;
}

/* One pending step forward taken: true. */
static bool take_step(struct source *src)
{
	int n = __atomic_load_n(&src->seek_steps, __ATOMIC_ACQUIRE);
	while (n > 0)
		if (__atomic_compare_exchange_n(&src->seek_steps, &n, n - 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return true;
	return false;
}

/* dbtop's own statements in a PostgreSQL recording made before the
 * digests carried the flag: known by their text (pg_own_recorded), which
 * comes with a digest's first row only. */
static void replay_own(struct source *src, struct replay_priv *p, struct digest_set *set)
{
	if (!set || src->caps.engine != ENGINE_POSTGRESQL || p->own_flagged)
		return;
	for (size_t i = 0; i < set->n && !p->own_flagged; i++)
		p->own_flagged = set->rows[i].own;
	if (p->own_flagged) {
		strset_clear(&p->own_keys);
		return;
	}
	for (size_t i = 0; i < set->n; i++) {
		struct digest_row *r = &set->rows[i];
		if (r->text && pg_own_recorded(r->text))
			strset_add(&p->own_keys, r->key);
		r->own = strset_has(&p->own_keys, r->key);
	}
}

static int replay_sample(struct source *src, struct sample *out, bool want_settings)
{
	struct replay_priv *p = src->priv;
	struct replay_cfg *cfg = (struct replay_cfg *)src->arg;
	double due;

	(void)want_settings;
	if (!next_sample(src, p)) {
		rec_reader_summary(&p->rd, cfg->summary, sizeof cfg->summary);
		return 1;
	}
	*out = p->it.sample;
	replay_own(src, p, out->digests);
	p->it.sample.digests = NULL;   /* ownership moves to the caller */
	p->it.sample.locks = NULL;
	p->it.sample.waits = NULL;
	p->it.sample.sessions = NULL;
	p->it.sample.tuning = NULL;
	p->it.sample.events = NULL;
	if (out->wall < seek_at(src) || cfg->speed <= 0 || take_step(src)) {
		p->paced = false;
		return 0;
	}
	if (!p->paced) {
		p->paced = true;
		p->base_rec = out->mono;
		p->base_real = clock_mono();
		return 0;
	}
	due = p->base_real + (out->mono - p->base_rec) / cfg->speed;
	/* a time that is no time (NaN, infinite) or a jump of more than an
	 * hour ahead or back: a damaged recording, played at once and paced
	 * again from the next sample, never waited for */
	if (!isfinite(due) || fabs(due - clock_mono()) > REPLAY_MAX_WAIT_S) {
		p->paced = false;
		return 0;
	}
	/* in short steps, so that a quitting screen does not wait for it;
	 * paused, the clock stands still: the pause moves the origin on */
	for (;;) {
		double now = clock_mono();
		if (src->stop_flag && *src->stop_flag)
			break;
		if (out->wall < seek_at(src) || take_step(src)) {
			p->paced = false;   /* a seek while it waited: at once, paced again from the next */
			break;
		}
		if (src->pause_flag && *src->pause_flag) {
			sleep_until(now + 0.05);
			double d = clock_mono() - now;
			p->base_real += d;
			due += d;
			continue;
		}
		if (now >= due)
			break;
		sleep_until(now + 0.05 < due ? now + 0.05 : due);
	}
	return 0;
}

const struct source_ops replay_source_ops = {
	.name = "replay",
	.connect = replay_connect,
	.sample = replay_sample,
	.close = replay_close,
};
