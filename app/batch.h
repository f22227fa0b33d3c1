/* batch.h - the batch record (JSON lines contract, schema 1) and the text
 * form of the same record. */
#ifndef DBTOP_BATCH_H
#define DBTOP_BATCH_H

#include "../model/model.h"
#include "../util/util.h"

#define BATCH_SCHEMA 1

/* Append one JSON record (no newline) for the model's newest interval,
 * with the top n statement digests by total time. */
void batch_json(const struct model *m, const char *host, int top, struct strbuf *out);
/* batch_json, and with sessions (--sessions) the members
 * "sessions_status", "sessions_count", "sessions" (model/sessions.h
 * session_set_json; "not read" and [] when the model has no list). */
void batch_json_sessions(const struct model *m, const char *host, int top, bool sessions, struct strbuf *out);
struct event_log;
/* batch_json_sessions with the member "events": the events of ev with seq
 * ev_from .. ev_to (the interval's; model/events.h events_json); ev NULL:
 * none. */
void batch_json_events(const struct model *m, const char *host, int top, bool sessions,
		       const struct event_log *ev, unsigned long ev_from, unsigned long ev_to, struct strbuf *out);
/* --sessions in the text form: one line "  sessions: N (a active, w waiting
 * for lock, ...)" and one per session waiting for a lock, with its blocker. */
void batch_text_sessions(const struct model *m, struct strbuf *out);
/* What the text form keeps from one record to the next. */
struct batch_text_state {
	bool wide;                 /* --wide: lines are not cut at 160 columns */
	int top;                   /* statement digests per record */
	unsigned long settings_seen;        /* hash of the settings line printed last */
	unsigned long notes_seen[NOTES_MAX]; /* hashes of the notes in force */
	int nnotes;
	unsigned long logdev_seen;          /* hash of the log device's reason printed last (0: none) */
};

/* Append the text form, like top -b: one summary line (time, engine, host,
 * state, the commit and durability rates, the cost), the findings, the top
 * digests, the lock chains; the settings and each note only when they
 * appear or change (st NULL: always). Each line within 160 columns (cut
 * with "...") unless st->wide. Ends with a newline. */
void batch_text(const struct model *m, const char *host, struct batch_text_state *st, struct strbuf *out);

#endif
