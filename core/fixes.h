/* fixes.h - what dbtop finds missing on a server (a privilege, an
 * instrument, an extension) and the sentence that fixes it, as data, so a
 * fix is worded in one place whichever pane, finding or note shows it. */
#ifndef DBTOP_FIXES_H
#define DBTOP_FIXES_H

#include <stdbool.h>

enum fix_id {
	FIX_PRIV_PROCESS,      /* MySQL: PROCESS (lock tables, other sessions) */
	FIX_PS_OFF,            /* MySQL: performance_schema is off */
	FIX_PS_SELECT,         /* MySQL: performance_schema not readable */
	FIX_PGSS_INSTALL,      /* PostgreSQL: pg_stat_statements not loaded */
	FIX_PGSS_EXTENSION,    /* PostgreSQL: loaded, the extension not created */
	FIX_PG_REPL_STATS,     /* PostgreSQL: pg_stat_replication's columns hidden */
	FIX_SYNCREP_WAIT,      /* PostgreSQL: commits wait for a synchronous standby */
	FIX_SEMISYNC_WAIT,     /* MySQL / MariaDB: commits wait for a semi-sync ack */
	FIX__COUNT
};

struct fix {
	const char *missing;   /* what is missing, as a sentence */
	const char *fix;       /* the statement or setting that fixes it */
	const char *brief;     /* the fix in a few words, for one line; NULL: fix */
};

extern const struct fix fixes[FIX__COUNT];

/* The fix in a few words (brief, else the whole fix). */
const char *fix_brief(enum fix_id id);

/* A capability note (core/caps.h notes, worded by the backends) about
 * statement statistics: the digests pane lists these as its fixes. The
 * notes carry no code yet, so this is the one place that reads their
 * words. */
bool note_about_digests(const char *note);

#endif
