/* pane.h - the pane interface: each pane is a const ops table that draws
 * from a const model onto a canvas and may handle keys of its own. */
#ifndef DBTOP_PANE_H
#define DBTOP_PANE_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/model.h"
#include "../run/watch.h"
#include "canvas.h"
#include "pane_list.h"

/* An action a pane asks the screen to confirm and run (locks pane). */
enum pane_action {
	PA_NONE = 0,
	PA_TERMINATE,        /* end the session (KILL / pg_terminate_backend) */
	PA_CANCEL,           /* cancel its statement (KILL QUERY / pg_cancel_backend) */
	PA_TUNE_APPLY,       /* set tunables[id] to value (or revert dbtop's change of it) */
	PA_TUNE_KEEP,        /* keep journal entry id after dbtop exits */
	PA_TUNE_ORPHANS,     /* revert what an earlier dbtop left changed */
};

#define PANE_TAGS_MAX 32  /* sessions tagged at once */
#define PANE_KEY_LEN 208  /* a row's identity (pane_follow): a digest key fits */

struct pane_ask {
	enum pane_action act;
	long long id;        /* session id / tunable index / journal seq */
	struct session_ident who; /* PA_TERMINATE / PA_CANCEL: the session as shown */
	char value[64];      /* PA_TUNE_APPLY: the value */
	struct tune_target to; /* PA_TUNE_APPLY: one role or database (kind 0: server-wide) */
	char what[1600];       /* the confirmation text: whom, what, consequences */
	/* PA_TERMINATE / PA_CANCEL on tagged sessions: the others after id,
	 * each acted on (and checked) in turn */
	int nmore;
	long long more_id[PANE_TAGS_MAX];
	struct session_ident more_who[PANE_TAGS_MAX];
};

struct tune_view;
struct event_log;
struct event;

/* Another screen a pane key asks the screen to open ("sessions" of locks and digests): the
 * sessions screen on one session's details, or filtered on a digest. */
struct pane_link {
	int screen;          /* 0: none */
	long long id;        /* the session, 0: none */
	char digest[72];     /* the digest's key, "": none */
};

/* The explain of one session's statement: struct watch_plan, in
 * run/watch.h. */

/* Per-pane view state owned by the screen: what every pane needs; a
 * pane's own state is behind state (pane_view_init). */
struct pane_view {
	int sel;             /* selected row */
	int top;             /* first row shown */
	int sort;            /* pane-defined sort order */
	bool details;        /* details of the selected row */
	bool focused;
	bool full;           /* drawn as a full screen (not a tile) */
	void *filter;        /* compiled PCRE2 pattern or NULL */
	char filter_text[128];
	int nrows;           /* rows after filtering, set by draw */
	int nshown;          /* of them drawn in the last frame, set by draw */
	bool read_only;      /* --read-only: no action on the server */
	bool replay;         /* a recording: no server to act on */
	const struct tune_view *tune; /* the tuner's state (the screen's copy), NULL: none */
	long long sel_id;    /* sessions: the selected session, followed across refreshes (0: none) */
	int sel_drawn;       /* v->sel as the last frame drew it */
	bool sel_follow;     /* a selection key chose the row (the screen sets it): from then on the
			      * selection follows that row's identity across refreshes; until then
			      * the top row stays selected */
	char sel_key[PANE_KEY_LEN];     /* locks, digests, fleet: the identity of the row the last frame
				     * drew selected ("": none; pane_follow) */
	const struct event_log *events; /* the screen's event log (events pane, timeline), NULL: none */
	unsigned hide;       /* columns the user left out (config "hide"): bit c of column c */
	bool frozen;         /* the view is paused (space): no refresh comes until it resumes */
	void *state;         /* the pane's own (pane_ops.init / free; NULL: none): the sessions pane's
			      * tags and plan, the tuning pane's scope ... */
};

/* What a pane command asks the screen to do: its reaction. The screen
 * acts on each part that is set, in this order: copy, ask, link, status. */
struct pane_reaction {
	bool handled;          /* false: the pane has no command of that name */
	char *copy;            /* text for the clipboard (owned: the screen sends and frees it), NULL: none */
	struct pane_ask ask;   /* act != PA_NONE: confirm it, then run it */
	struct pane_link link; /* screen != 0: open that screen */
	char status[160];      /* a one-line message ("": none) */
};

struct pane_ops;
/* One named command of a pane: the key table (tui/keys.c) binds keys to
 * the name; run carries it out on the pane's view (arg: the row's own
 * argument, for panes that share one function between commands) and says
 * what the screen should do in r (cleared before). */
struct pane_command {
	const char *name; /* "sort", "terminate": unique in its pane's table */
	void (*run)(const struct model *m, struct pane_view *v, int arg, struct pane_reaction *r);
	int arg;
};

/* Run pane p's command called name on v: its reaction (handled false when
 * p has no such command; the view is then untouched). */
struct pane_reaction pane_command(const struct pane_ops *p, const char *name, const struct model *m,
				  struct pane_view *v);
/* p's command called name, or NULL. */
const struct pane_command *pane_command_find(const struct pane_ops *p, const char *name);

/* "copy"'s common part: text (NULL: none) into r->copy, or why not
 * (what: "no statement selected") in r->status. */
void pane_copy(struct pane_reaction *r, const char *text, const char *what);

struct pane_ops {
	const char *name;    /* "rates" */
	const char *title;   /* "fsync / commit rates" */
	/* Draw the pane into cv. */
	void (*draw)(const struct model *m, struct pane_view *v, struct canvas *cv);
	/* Its named commands (pane_command()), ended by a NULL name; NULL:
	 * none. */
	const struct pane_command *commands;
	/* Its own state (pane_view.state), made and freed by pane_view_init
	 * and pane_view_free. Optional: a pane with none has NULL. */
	void *(*init)(void);
	void (*free)(void *state);
	int min_h;           /* rows it needs as a tile */
	/* Body rows (below its title) the pane wants now at width w; *min:
	 * the fewest that still show its data (the overview gives it at least
	 * those), 1 when it has nothing to show but its one-line summary. */
	int (*need)(const struct model *m, const struct pane_view *v, int w, int *min);
	/* Body rows it could use beyond its need at width w (a tree wrapped
	 * under its long lines): the rows left over once every need is met go
	 * there before the last pane. Optional (NULL: need). */
	int (*want)(const struct model *m, const struct pane_view *v, int w);
};

/* v's private state for pane p (p->init), NULL when p has none; and
 * freed (p->free). Every pane_view the screen keeps is made so; a view
 * without it (state NULL) draws as with an empty one. */
void pane_view_init(struct pane_view *v, const struct pane_ops *p);
void pane_view_free(struct pane_view *v, const struct pane_ops *p);

/* True when text passes the view's filter (always, without a filter). */
bool pane_filter_match(const struct pane_view *v, const char *text);
/* Compile pattern into v->filter (empty: no filter). Returns 0, or -1 with
 * the PCRE2 error and its offset in err. */
int pane_filter_set(struct pane_view *v, const char *pattern, char *err, size_t errlen);
void pane_filter_free(struct pane_view *v);
/* Keep v->sel and v->top inside nrows rows with `visible` rows shown;
 * no blank row below the last one while rows above are scrolled away. */
void pane_clamp(struct pane_view *v, int nrows, int visible);

/* The identity of row i of a pane's list (ctx: the pane's rows) into out:
 * what stays the same while the row moves (a session, a digest, a
 * server). */
typedef void (*pane_key_fn)(const void *ctx, int i, char *out, size_t len);
/* Before a frame draws n rows: the selection goes to the row the last
 * frame drew selected, wherever a refresh moved it (once a key chose it:
 * v->sel_follow); when that row is gone it stays at its place (the row
 * there is drawn selected: the user sees whom it is on now). A selection
 * moved since that frame stays where the keys put it. Records the
 * identity drawn selected (v->sel_key, v->sel_drawn). */
void pane_follow(struct pane_view *v, int n, pane_key_fn key, const void *ctx);
/* The row a key acts on (x, c, S, y, Enter): the one the last frame drew
 * selected, where it is now (v->sel goes there), or, moved by a key since,
 * the row it is on; -1 when the row drawn selected is gone since (an
 * action then acts on nothing rather than on whichever row took its
 * place). */
int pane_target(struct pane_view *v, int n, pane_key_fn key, const void *ctx);
/* The selection back to the top row, nothing followed (a new sort). */
void pane_sel_reset(struct pane_view *v);

/* pane_view.sort bit of the digests pane: dbtop's own statements shown (o) */
#define DIGESTS_SHOW_OWN 8
/* The digests column called name in the config file ("rows", "schema",
 * ...: digests.c's list; not "ms", which always shows): its bit in
 * pane_view.hide, or -1. */
int digests_column(const char *name);
/* pane_view.sort of the sessions pane: bits 0-3 the sort column (0: state),
 * then these */
/* The sessions column called name (its head: "user", "client", ...; not
 * "id" nor "statement"): its bit in pane_view.hide, or -1. */
int sessions_column(const char *name);
#define SESSIONS_REVERSE 16
#define SESSIONS_SHOW_IDLE 32
#define SESSIONS_SHOW_BACKGROUND 64
/* The sessions pane's one-line summary ("sessions: 63 (10 active, 3 waiting
 * for lock, 50 idle hidden)") or why there is none. */
void sessions_summary(const struct model *m, const struct pane_view *v, char *buf, size_t len);
/* The sessions pane's digest id of a digests-pane key (MySQL "schema/HEX":
 * HEX; PostgreSQL "userid:dbid:queryid:...": queryid), as session.digest
 * holds it; the filter "^digest:ID$" shows the sessions running it. */
void sessions_digest_id(const char *key, char *out, size_t len);
/* The sessions pane's tags: how many, and none (after acting on them, or
 * on another server). */
int sessions_ntags(const struct pane_view *v);
void sessions_untag_all(struct pane_view *v);
/* The explain the sessions pane's details show (the screen's, per target),
 * NULL: none. */
void sessions_show_plan(struct pane_view *v, const struct watch_plan *plan);
/* The selected session of the sessions pane (what e explains), or NULL
 * with why in buf. */
const struct session *sessions_selected(const struct model *m, const struct pane_view *v, char *buf, size_t len);

/* Ask the screen to end (term) or cancel session id after a confirmation:
 * r->ask filled with the exact SQL, the identity it checks and the
 * statement; role says what the session does ("waiting 2.0s for 12",
 * "idle in transaction 4s, blocking 3"), spare who is left alone ("" for
 * none). Refuses (r->status says why, r->ask untouched) under --read-only
 * and for a session it cannot identify. Locks and sessions panes share it. */
void pane_ask_session(const struct model *m, const struct pane_view *v, struct pane_reaction *r, bool term,
		      long long id, const char *user, const char *role, const char *spare,
		      const struct session_ident *ident, const char *query);

/* The event the events pane has selected (what Enter travels to), or NULL. */
const struct event *events_selected(const struct pane_view *v);
/* "HH:MM:SS" in local time ("YYYY-mm-dd HH:MM:SS" with_date). */
void event_time_text(double wall, bool with_date, char *buf, size_t len);

struct tunable;
/* The tuning pane's row of t on this server (what v->sel counts), or -1. */
int tuning_row_of(const struct model *m, const struct tunable *t);

#endif
