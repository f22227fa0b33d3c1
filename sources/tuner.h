/* tuner.h - safe tuning: applies a setting only after the value to restore
 * is in the fsynced undo journal, reverts newest first, and publishes what
 * is changed for the screen. Runs on the sampler thread (it talks to the
 * server through the source), except tuner_init / tuner_close. */
#ifndef DBTOP_TUNER_H
#define DBTOP_TUNER_H

#include <stdbool.h>

#include "journal.h"
#include "source.h"

/* What the screen shows of tuning (a copy, published by the worker). */
struct tune_view {
	bool available;               /* changes are possible (live, writable, journal ours) */
	char why[NOTE_LEN];           /* why not, or a remark */
	bool read_only;
	bool probed;
	enum flavour flavour;         /* of the probe */
	bool known[TUNABLES_MAX];
	char current[TUNABLES_MAX][TUNE_VALUE_LEN];
	bool allowed[TUNABLES_MAX];
	char undo_hint[TUNABLES_MAX][80];
	char note[NOTE_LEN];          /* from the probe */
	char pending[TUNE_PENDING_LEN]; /* from the probe: what a PostgreSQL reload also applies */
	int nactive;                  /* changes in force, newest first */
	struct jentry active[JOURNAL_MAX];
	int orphans;                  /* of those, left by an earlier dbtop (found at start) */
	unsigned first_seq;           /* entries below were there at start */
	double ttl;                   /* --tune-ttl, s; 0: until quit */
	int damaged;                  /* journal lines ignored */
	char path[512];               /* the journal */
};

struct tuner {
	struct source *src;
	struct journal j;
	bool journal_ok;              /* the journal may be written */
	struct tune_view v;
};

/* Open the journal of the server named by key (main thread, before the
 * sampler starts). A replay, --read-only or an unusable journal leave
 * tuning unavailable with the reason in tu->v.why; orphans (changes of a
 * dbtop that died) are counted in tu->v.orphans. */
void tuner_init(struct tuner *tu, struct source *src, const char *key, const char *label, bool read_only,
		double ttl);
/* Read current values and privileges. */
void tuner_probe(struct tuner *tu);
/* Set tunable idx (index in tunables[]) to value: journal first, then the
 * server. Returns 0 or -1; msg says what happened. Toggling a setting that
 * dbtop changed already reverts that change instead. */
int tuner_apply(struct tuner *tu, int idx, const char *value, char *msg, size_t len);
/* Revert the newest active change (all: every one), newest first; stops at
 * the first failure. Returns how many were reverted, -1 on failure. */
int tuner_revert(struct tuner *tu, bool all, char *msg, size_t len);
/* Revert the changes older than the ttl. */
int tuner_expire(struct tuner *tu, double now_wall, char *msg, size_t len);
/* Keep change seq after dbtop exits (no revert). */
int tuner_keep(struct tuner *tu, unsigned seq, char *msg, size_t len);
/* Changes still in force. */
int tuner_active(const struct tuner *tu);
void tuner_close(struct tuner *tu);

/* The revert statement of an entry, for the screen ("" when invalid). */
void tuner_revert_sql(const struct jentry *e, char *buf, size_t len);

#endif
