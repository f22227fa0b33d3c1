/* history.h - the samples of the last --history seconds, kept on disk in
 * the recording format (record.c's writer and reader, never a second
 * format) with a small index in memory, so that the model of any kept
 * moment can be rebuilt: time travel on the screen.
 *
 * The spool is a private file (created 0600 with O_EXCL | O_NOFOLLOW in
 * $XDG_STATE_HOME/dbtop, else the temp directory) unlinked as soon as it
 * is open: only dbtop's descriptors reach it, and a killed dbtop leaves
 * nothing behind. It is two segments at most, each covering the history:
 * when the newer one spans it, the older is dropped. With --record the
 * recording itself is the spool (never rotated nor removed). A failing
 * write (a full disk: ENOSPC, EIO, EFBIG) stops the spool; what it holds
 * stays readable and the reason is in note. */
#ifndef DBTOP_HISTORY_H
#define DBTOP_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/model.h"
#include "record.h"

/* Samples between two whole writes of the digest rows (the points a
 * rebuild starts from), counted among the samples that carry digests. */
#define HIST_CKPT_EVERY 10

struct hist_ent {
	double wall, mono;        /* of the sample */
	uint64_t off;             /* of its SAMPLE record in its segment */
	uint64_t seq;             /* 0, 1, 2 ... since dbtop started */
	int seg;                  /* index in history.seg[] */
	uint32_t conn_gen;
	uint64_t settings_seq;    /* newest sample at or before it with settings read; UINT64_MAX: none */
	bool ckpt;                /* a rebuild may start here: digests whole, or none yet on this connection */
};

struct hist_seg {
	bool open;
	bool own;                 /* the spool's (else the --record recording) */
	struct recorder w;        /* own writer */
	struct rec_reader rd;
	bool have_rd;
	double first_wall;        /* wall of its first sample, 0: none yet */
	uint64_t bytes;           /* written (own) */
};

struct hist_caps {
	uint32_t gen;
	struct caps caps;
};

struct history {
	double keep;              /* s kept */
	struct hist_seg seg[2];
	int cur;                  /* segment written now */
	struct recorder *shared;  /* --record: written here, read back from its path */
	char dir[512];            /* where spool segments are made */
	struct rec_header hdr;
	struct hist_ent *e;       /* oldest first */
	size_t n, cap;
	uint64_t next_seq;
	struct hist_caps *caps;   /* caps of every connection still referenced */
	size_t ncaps;
	uint32_t last_gen;
	bool gen_has_digests;     /* this connection's samples carried digests */
	unsigned since_ckpt;      /* samples with digests since the last whole write */
	bool want_whole;          /* the next digests are written whole (a checkpoint) */
	uint64_t last_settings;   /* seq of the newest sample with settings, UINT64_MAX: none */
	bool stopped;             /* the spool failed: nothing more is kept */
	char note[256];           /* why, for the screen */
	uint64_t bytes_max;       /* for tests: a segment longer than this fails as if the disk were full (0: none) */
	char last_path[600];      /* the newest spool segment's name (unlinked; for tests) */
};

/* Start keeping keep seconds. shared: the --record recording (NULL: a
 * private spool in dir, NULL: $XDG_STATE_HOME/dbtop or $TMPDIR or /tmp).
 * h: what the spool's header says. Returns 0, or -1 with err. */
int hist_open(struct history *h, double keep, struct recorder *shared, const char *dir,
	      const struct rec_header *hdr, char *err, size_t errlen);
void hist_close(struct history *h);
/* Forget everything kept and start again in a new spool segment (the old
 * ones closed, so gone) with header hdr, keeping the same span and
 * directory: the demo tour's next incident. A private spool only (not
 * --record). Returns 0, or -1 with err: then nothing is kept (stopped). */
int hist_restart(struct history *h, const struct rec_header *hdr, char *err, size_t errlen);
/* The caps of a new connection (before its samples). */
void hist_add_caps(struct history *h, const struct caps *c, uint32_t conn_gen);
/* Keep sample s (writes it to the spool); m: the model s was just folded
 * into (a checkpoint of a partial digest set takes the rows it lacks from
 * there; NULL: none). -1 when the spool stopped just now (h->note says
 * why; the screen says it once); 0 otherwise. */
int hist_add(struct history *h, const struct sample *s, const struct model *m);
/* Index of the oldest sample inside the window (the index holds a few
 * older ones: the point it is rebuilt from). */
size_t hist_first(const struct history *h);
/* Kept samples: oldest and newest wall time; false when none. */
bool hist_range(const struct history *h, double *oldest, double *newest);
/* Index of the kept sample nearest wall (>= hist_first); -1: none kept. */
long hist_nearest(const struct history *h, double wall);
/* Index of the sample with sequence number seq, -1: no longer kept. */
long hist_find_seq(const struct history *h, uint64_t seq);
/* Read kept sample i into it (a SAMPLE; the caller releases it with
 * sample_release): the incident capture copies the window from here.
 * Returns 0, or -1 with err. */
int hist_read(struct history *h, size_t i, struct rec_item *it, char *err, size_t errlen);
/* The capabilities of connection gen as kept (NULL: none). */
const struct caps *hist_caps(const struct history *h, uint32_t gen);
/* Rebuild the model at kept sample i into out (model_init'ed by the
 * caller with live's ring size; reset here): rates, digests, locks,
 * waits, sessions, settings as they were, the sparklines from live.
 * Returns 0, or -1 with err. */
int hist_build(struct history *h, size_t i, struct model *out, const struct model *live, char *err,
	       size_t errlen);

/* The same when out holds kept sample i - 1 (as built here): only sample
 * i is folded in (a step forward); else a whole rebuild. */
int hist_step(struct history *h, size_t i, struct model *out, const struct model *live, char *err,
	      size_t errlen);

#endif
