/* events.h - the event log: what changed between one sample and the next,
 * derived in one place (events_update) from consecutive samples and model
 * states: findings raised and cleared, observed setting changes, dbtop's
 * own setting changes (told by the screen, events_own), server restarts,
 * DOWN / UP / STALLED, lock chains appearing and ending. Bounded: the
 * newest EVENTS_MAX are kept. Recordings keep each interval's events
 * (SAMPLE field 31, docs/recording.md); a replay of a file that has them
 * shows what the live run saw, one without them derives them again from
 * its samples. No curses, no database headers. */
#ifndef DBTOP_EVENTS_H
#define DBTOP_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/sample.h"
#include "findings.h"

#define EVENTS_MAX 2000
#define EVENT_ROOTS_MAX 16       /* lock chains followed at once */

enum event_kind {
	EV_FINDING = 1,    /* a finding raised: name = its id */
	EV_FINDING_END,    /* ... cleared */
	EV_SETTING,        /* a setting changed: name, old -> new; own: by dbtop */
	EV_RESTART,        /* the server restarted (uptime fell, start time moved) */
	EV_DOWN,           /* the connection went down: detail = why */
	EV_UP,             /* ... came back (or the stall ended) */
	EV_STALLED,        /* a query overran its time limit */
	EV_LOCK_CHAIN,     /* a lock chain appeared (its root heading a chain in every lock
				  * read for hold_rules' lock-chain last_s, or a wait in it that
				  * long; wall: the first read): session = its root blocker */
	EV_LOCK_CHAIN_END, /* ... ended */
	EV_INCIDENT,       /* the incident capture kept this moment (docs/incidents.md):
				  * name = the trigger's id, detail = why */
	EV_SESSION_END,    /* dbtop ended a session (x): session = its id */
	EV_CANCEL,         /* dbtop cancelled a session's statement (c) */
	EV_FORECAST,       /* a remedy's outcome against its forecast (model/forecast.h): name = the
				  * setting, old -> new its change, detail = met / missed and the figures */
	EV__COUNT
};

struct event {
	unsigned long seq;       /* 1, 2, ... in the order logged */
	double wall;             /* s since the epoch: the sample that saw it */
	double since;            /* settings: the reading before (the change fell in
				  * since..wall); else == wall */
	enum event_kind kind;
	enum finding_severity severity; /* findings: theirs; else how it shows */
	bool own;                /* EV_SETTING: made by dbtop */
	bool who_known;          /* EV_SETTING: own says who (a live run; false: a replay
				  * of a recording without events cannot tell) */
	char name[48];           /* finding id, setting name */
	char old[64], new[64];   /* EV_SETTING: values as the server prints them */
	long long session;       /* lock chains: the root blocker's id */
	char user[64];           /* ... its user; EV_SETTING with a scope: the role or the database */
	int scope;               /* EV_SETTING: TK_PG_ROLE / TK_PG_DATABASE when dbtop's change was for one
				  * role or one database (named in user), 0: the server */
	int waiters;             /* ... sessions waiting on it (at the most) */
	bool committing;         /* ... its root seen committing (not kept in recordings) */
	char detail[200];        /* one line for people, sanitised, no password */
};

/* The events of one interval, as a sample carries them (owned by the
 * sample, freed by sample_release). */
struct event_list {
	size_t n;
	struct event *ev;
};

struct event_log {
	struct event *ev;        /* ring of EVENTS_MAX */
	size_t head, n;          /* oldest at head */
	unsigned long next_seq;  /* seq of the next event */
	unsigned long mark;      /* first seq of the interval being gathered */
	bool live;               /* set by the caller: dbtop's own changes are told
				  * (events_own), so an observed one is someone else's */
	/* the previous state the derivation compares with */
	bool primed;
	enum source_state state;
	double start_wall;       /* server start (wall - uptime), 0: unknown */
	double uptime_s;
	int nset;
	struct setting set[SETTINGS_MAX];
	double set_wall;         /* wall time of that settings reading */
	double chk_wall;         /* the watched ones (setting_watched) seen unchanged since; 0: not */
	int nfind;
	char find[FINDINGS_MAX][48];
	enum finding_severity find_sev[FINDINGS_MAX];
	int nroots;
	struct event root[EVENT_ROOTS_MAX]; /* open chains, as logged when they appeared */
	int ncand;
	struct event cand[EVENT_ROOTS_MAX]; /* roots seen heading a chain, not yet for long enough */
};

void events_init(struct event_log *l);
void events_free(struct event_log *l);

/* Derive the events of sample s (after model_update(m, s): findings are
 * evaluated on m). When s->events holds a recorded list, those are logged
 * instead (the derivation's state still follows s). Returns how many were
 * logged. */
size_t events_update(struct event_log *l, const struct model *m, const struct sample *s);
/* dbtop changed (or reverted) setting name old -> new at wall (tuner,
 * journal): logged now; the observed change that follows is not logged
 * again. */
void events_own(struct event_log *l, double wall, const char *name, const char *old, const char *new,
		bool revert);
/* The same for a change of kind scope (TK_PG_ROLE / TK_PG_DATABASE: for
 * target only; such a change is never seen in the server's settings, so it
 * covers no observed one; 0: events_own). */
void events_own_in(struct event_log *l, double wall, const char *name, const char *old, const char *new, bool revert,
		   int scope, const char *target);

/* dbtop ended session id (term; else cancelled its statement) at wall,
 * as the server confirmed (the screen's x / c; done: the source's
 * message, "KILL 12: done (...)"): logged now, like a setting change. */
void events_session_act(struct event_log *l, double wall, bool term, long long id, const char *done);

/* The events logged since the previous call (dbtop's own ones included),
 * as a new list for the sample being recorded (n 0: none this interval);
 * *first (may be NULL) gets the seq the interval's events start at. */
struct event_list *events_take_interval(struct event_log *l, unsigned long *first);
void event_list_free(struct event_list *el);
/* Append a copy of e to el (readers of recordings). */
void event_list_add(struct event_list *el, const struct event *e);

/* Event i of the log, 0 the oldest; NULL past the end. */
const struct event *events_at(const struct event_log *l, size_t i);
/* Index (events_at) of the first event with seq >= seq, l->n when none. */
size_t events_from_seq(const struct event_log *l, unsigned long seq);

const char *event_kind_name(enum event_kind k);   /* "finding", "setting", ... */
/* The line shown for e: "innodb_flush_log_at_trx_commit 1 -> 2 (by dbtop)". */
void event_text(const struct event *e, char *buf, size_t len);

struct strbuf;
/* The JSON member ,"events":[...] with the events of seq from .. to
 * (to ULONG_MAX: the newest). */
void events_json(const struct event_log *l, unsigned long from, unsigned long to, struct strbuf *out);
/* The seqs of the events seen in the interval ending at wall time upto
 * and starting after `after`: *from .. *to (*from > *to: none). */
void events_between(const struct event_log *l, double after, double upto, unsigned long *from, unsigned long *to);

#endif
