/* incidents.h - the always-on capture (docs/incidents.md): fed one call per
 * sample of a target (incidents_feed, after model_update), it keeps the
 * last --before seconds in a history spool (history.c) and, when a trigger
 * fires (triggers.h: a finding, a threshold, DOWN, SIGUSR1), writes an
 * incident file in the recording format: the window from --before ahead
 * of the trigger until --after past its end, the trigger marked as an
 * event, the replay opening at it; beside it a summary (NAME.txt,
 * NAME.json). One incident per episode (a trigger that stays raised
 * extends it), a cool-down between two. Files are created 0600 with
 * O_EXCL, redacted as recordings are, written record by record (a kill
 * leaves them readable up to their last whole record); the directory is
 * kept under --incidents-max-mb and a count, oldest first; a write that
 * fails (a full disk) ends the file, is said once and never stops the
 * sampling. No curses; no database headers. */
#ifndef DBTOP_INCIDENTS_H
#define DBTOP_INCIDENTS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../model/events.h"
#include "../model/model.h"
#include "history.h"
#include "record.h"
#include "triggers.h"

#define INC_TRIGGERS_MAX 16
#define INC_COUNTS_MAX 24
#define INC_CHILDREN_MAX 4

struct incident_cfg {
	char dir[512];
	double before, after;     /* s kept ahead of the trigger, after its end */
	double cooldown;          /* s after an incident during which none starts */
	double max_len;           /* s an incident lasts at most from its trigger */
	uint64_t max_bytes;       /* the directory's incident files, 0: no limit */
	unsigned max_count;       /* incident files kept, 0: no limit */
	bool redact;              /* --redact */
	double interval;          /* refresh interval, s (the header says it) */
	struct trigger trig[INC_TRIGGERS_MAX];
	int ntrig;
	char on_incident[512];    /* program run with the file's path ("": none) */
	double on_incident_timeout; /* s; then it is killed */
	const volatile sig_atomic_t *manual; /* bumped by SIGUSR1 ("keep what happened now"); NULL: none */
	FILE *log;                /* messages (stderr) */
	const char *dbtop_version;
	const char *spool_dir;    /* the spool's directory (NULL: history.c's default) */
};

/* What the endpoint shows (app/metrics.c). */
struct incident_count {
	char trigger[TRIGGER_ID_LEN];
	unsigned long n;
};
struct incident_stats {
	size_t n;
	struct incident_count c[INC_COUNTS_MAX];   /* incidents started, by trigger */
	double last_wall;          /* the newest incident's trigger time, 0: none yet */
	char last_file[256];       /* its file's name (no directory) */
	char last_trigger[TRIGGER_ID_LEN];
	unsigned long errors;      /* writes that failed */
	bool failing;              /* the last write failed (a full disk): no incident is written */
	bool open;                 /* an incident is being written */
	uint64_t removed;          /* files removed to keep the limits */
};

struct inc_sum;   /* a summary being gathered (incidents_sum.c) */

enum inc_state { INC_IDLE, INC_OPEN };

struct incidents {
	struct incident_cfg cfg;
	char server[128];          /* the target's name: files, summary, metrics */
	struct history hist;
	bool have_hist;
	struct event_log ev;       /* derived here when the caller's samples carry no events */
	uint32_t gen;
	bool have_gen;
	sig_atomic_t manual_seen;
	enum inc_state st;
	double cool_until;         /* wall */
	struct recorder w;
	char path[600];            /* the incident file (.dbrec) */
	double trig_wall, end_wall, first_wall;
	uint64_t samples;
	struct trig_hit hit;       /* what started it */
	struct inc_sum *sum;
	uint64_t dir_bytes;        /* the other incident files in dir at the last look */
	unsigned dir_count;
	bool said_failing;
	pid_t child[INC_CHILDREN_MAX];
	double child_due[INC_CHILDREN_MAX];
	bool child_termed[INC_CHILDREN_MAX];
	char child_file[INC_CHILDREN_MAX][256];
	struct incident_stats stats;
};

/* Start capturing for the target called server (cfg copied; the
 * directory made 0700 when missing and checked writable; the spool
 * opened). 0, or -1 with the reason in err. */
int incidents_open(struct incidents *inc, const struct incident_cfg *cfg, const char *server, char *err,
		   size_t errlen);
/* One sample s of the target, just folded into m (model_update). */
void incidents_feed(struct incidents *inc, const struct model *m, const struct sample *s);
/* Trigger now on the next sample ("keep what happened now"), as SIGUSR1. */
void incidents_request(struct incidents *inc);
/* End an open incident (its summary says it was cut at exit), wait a
 * little for the programs started, free everything. */
void incidents_close(struct incidents *inc);
const struct incident_stats *incidents_stats(const struct incidents *inc);

/* ---- the files in a directory (dbtop --incidents DIR) ---- */
struct incident_entry {
	char path[600];            /* the .dbrec */
	double wall;               /* the trigger time (else the file's start) */
	char server[128];
	char trigger[TRIGGER_ID_LEN];
	char line[300];            /* the summary's first line */
	uint64_t bytes;
	char status[16];           /* "complete", "cut" (ended early), "writing" (or dbtop was killed: no summary's end) */
};
/* The incident files in dir, newest first (*out: malloc'ed). The count,
 * or -1 with err. */
int incidents_list(const char *dir, struct incident_entry **out, char *err, size_t errlen);

/* ---- the summary (incidents_sum.c) ---- */
struct inc_sum *inc_sum_new(bool redact);
void inc_sum_free(struct inc_sum *s);
/* The events of a sample in the window (settings, DOWN periods, lock chains,
 * findings raised before the trigger). */
void inc_sum_events(struct inc_sum *s, const struct event_list *el);
/* A sample at or after the trigger: findings, digests, lock roots from m. */
void inc_sum_model(struct inc_sum *s, const struct model *m, bool redact);
/* Another trigger raised during the incident. */
void inc_sum_also(struct inc_sum *s, const struct trig_hit *h, double wall);
/* Write NAME.txt and NAME.json beside the incident file path (the .dbrec),
 * through a temporary file and a rename. 0 or -1 (errno). */
int inc_sum_write(const struct inc_sum *s, const struct incidents *inc, bool done, const char *cut);

#endif
