/* tuner.h - safe tuning: applies a setting only after the value to restore
 * is in the fsynced undo journal of this server (keyed by its identity),
 * holding the server's tuning lock while any change is in force; reverts
 * newest first, each only while dbtop's value is still the one in force
 * (else the change is "superseded" and left as someone else set it); and
 * publishes what is changed for the screen. Runs on the sampler thread (it
 * talks to the server through the source), except tuner_init / tuner_close. */
#ifndef DBTOP_TUNER_H
#define DBTOP_TUNER_H

#include <stdbool.h>

#include "journal.h"
#include "../sources/source.h"

#define TUNE_LIST_MAX 8

/* What the screen shows of tuning (a copy, published by the worker). Its
 * three lists come last and hold entries only below their counts: a copy
 * (tune_view_copy) or a clear (tune_view_clear) writes the rest of the view
 * and only the entries in use, so a target that never tunes leaves the
 * lists' 60 KB untouched (fleet memory). */
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
	int nactive;                    /* changes in force, newest first: active[] */
	int orphans;                  /* of those, left by an earlier dbtop (found at start) */
	bool elsewhere;               /* another running dbtop holds the journal: the changes are its own,
				       * reverted when it quits, never here */
	unsigned first_seq;           /* entries below were there at start */
	double ttl;                   /* --tune-ttl, s; 0: until quit */
	int damaged;                  /* journal lines ignored */
	char path[512];               /* the journal */
	char server[JOURNAL_LABEL_LEN];   /* the server the journal is for (its label) */
	bool other_server;            /* the connection now reaches another server: nothing is changed or reverted */
	char now_server[JOURNAL_LABEL_LEN]; /* ... that one */
	bool locked;                  /* this dbtop holds the server's tuning lock */
	/* changes in force on other servers, or in an older dbtop's address-keyed
	 * journal (legacy_path): listed with their server's label, never
	 * reverted automatically */
	int nforeign; /* foreign[] */
	char legacy_path[512];
	/* changes found overwritten by someone else when dbtop came to revert
	 * them (newest last): left as they are */
	int nsuperseded; /* superseded[] */
	/* a replay: the recorded view, at the time of its sample (s since the
	 * epoch; ages are counted to it); 0: live */
	double at_wall;
	/* the lists, last (see above) */
	struct jentry superseded[TUNE_LIST_MAX];
	struct jentry foreign[TUNE_LIST_MAX];
	struct jentry active[JOURNAL_MAX];
};

/* Copy src to dst: the fields before the lists and the lists' entries in
 * use (dst's others are left as they were and are never read). */
void tune_view_copy(struct tune_view *dst, const struct tune_view *src);
/* Clear tv but for the lists' entries (their counts 0). */
void tune_view_clear(struct tune_view *tv);

struct tuner {
	struct source *src;
	bool journal_ok;              /* the journal may be written */
	char sid[JOURNAL_ID_LEN];     /* the server the journal is for */
	char why_base[NOTE_LEN];      /* v.why while the connection reaches that server */
	uint32_t gen;                 /* src->conn_gen last checked */
	bool locked;                  /* the tuning lock is held on the connection of gen */
	/* last: their entries are touched only as they are used */
	struct journal j;
	struct journal old; /* an older dbtop's journal for this address: read only */
	struct tune_view v;
};

/* Open the journal of the server connected (keyed by caps.server_id; main
 * thread, before the sampler starts). legacy_key names the address as an
 * older dbtop keyed its journal (may be NULL): such a journal is only read,
 * and its changes in force listed. A replay, --read-only, a server that
 * cannot be identified or an unusable journal leave tuning unavailable with
 * the reason in tu->v.why; orphans (changes of a dbtop that died) are
 * counted in tu->v.orphans, and the tuning lock is taken for them. */
void tuner_init(struct tuner *tu, struct source *src, const char *legacy_key, bool read_only, double ttl);
/* Read current values and privileges. */
void tuner_probe(struct tuner *tu);
/* Set tunable idx (index in tunables[]) to value: journal first, then the
 * server. Returns 0 or -1; msg says what happened. Toggling a setting that
 * dbtop changed already reverts that change instead. */
int tuner_apply(struct tuner *tu, int idx, const char *value, char *msg, size_t len);
/* The same for to (NULL or kind 0: the tunable's own, server-wide;
 * TK_PG_ROLE / TK_PG_DATABASE for the tunable's narrow scope: ALTER ROLE /
 * DATABASE SET for the role or database to names, found by its oid when
 * given (its real name is the one used and journaled, and must look like
 * the one shown), its state to restore read from pg_db_role_setting). */
int tuner_apply_in(struct tuner *tu, int idx, const char *value, const struct tune_target *to, char *msg, size_t len);
/* Revert the newest active change (all: every one), newest first; stops at
 * the first failure. A change someone else overwrote since is not reverted
 * but ended as superseded (listed in v.superseded). Returns how many were
 * ended either way, -1 on failure. */
int tuner_revert(struct tuner *tu, bool all, char *msg, size_t len);
/* Revert the changes of this dbtop older than the ttl (now_mono: the
 * monotonic clock, as jentry.mono). */
int tuner_expire(struct tuner *tu, double now_mono, char *msg, size_t len);
/* Keep change seq after dbtop exits (no revert). */
int tuner_keep(struct tuner *tu, unsigned seq, char *msg, size_t len);
/* Changes of this server still in force. */
int tuner_active(const struct tuner *tu);
void tuner_close(struct tuner *tu);

/* The view as a recording keeps it (SAMPLE field 32): the rows of the
 * tuning table on the view's flavour, dbtop's changes in force. */
void tune_view_snap(const struct tune_view *tv, struct tune_snap *out);
/* A recorded view back (a replay: nothing can be changed from it; ages are
 * counted to at_wall, the sample's time). */
void tune_view_from_snap(const struct tune_snap *s, double at_wall, struct tune_view *tv);

/* The revert statement of an entry, for the screen ("" when invalid). */
void tuner_revert_sql(const struct jentry *e, char *buf, size_t len);
/* What an entry changed, for people: "synchronous_commit", or
 * "synchronous_commit for role app" (the name quoted as SQL would when it
 * is not a plain lower-case name, then made safe for a terminal). */
void tuner_change_name(const struct jentry *e, char *buf, size_t len);

/* Compare-then-revert: what to do with dbtop's change to val (undo: the
 * state saved before it) now that the server shows now_undo / now_was
 * (TC_PREV's undo and was). TV_REVERT: dbtop's value is in force;
 * TV_BACK_ALREADY: the state before dbtop is (nothing to send);
 * TV_SUPERSEDED: someone set something else since (left alone). now gets
 * what is in force, for the message and the journal. */
enum tune_verdict { TV_REVERT, TV_BACK_ALREADY, TV_SUPERSEDED };
enum tune_verdict tune_revert_verdict(enum tune_kind kind, const char *val, const char *undo, const char *now_undo,
				      const char *now_was, char *now, size_t len);

#endif
