/* journal.h - the undo journal of tuning changes: one file per server under
 * $XDG_STATE_HOME/dbtop/ (default ~/.local/state/dbtop/), mode 0600, never
 * through a symlink, locked by the dbtop that writes it. Every change is
 * appended (with the value to restore) and fsynced BEFORE it is sent to the
 * server; its end (reverted, kept, failed) is appended after. Lines carry a
 * checksum: a torn or damaged line is counted and ignored, never half-read.
 *
 *   dbtop-undo 1 <label>
 *   A <seq> <wall> <kind> <name> <undo-token> <was> <new> #<sum>
 *   E <seq> reverted|kept|failed #<sum>
 */
#ifndef DBTOP_JOURNAL_H
#define DBTOP_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/tunables.h"

#define JOURNAL_MAX 64

enum jstate { JS_ACTIVE = 0, JS_REVERTED, JS_KEPT, JS_FAILED };

struct jentry {
	unsigned seq;
	double wall;             /* s since the epoch: when it was applied */
	enum tune_kind kind;
	char name[64];
	char undo[80];           /* tune_sql_revert token */
	char was[TUNE_VALUE_LEN];/* the running value before, as shown */
	char val[TUNE_VALUE_LEN];/* the value dbtop set */
	enum jstate state;
};

struct journal {
	char path[512];
	int fd;                  /* -1: not open */
	bool locked;
	unsigned next_seq;
	int n;
	struct jentry e[JOURNAL_MAX];
	int damaged;             /* lines ignored: bad checksum or torn */
	char label[160];
};

/* The journal path for a server (dir from XDG_STATE_HOME or HOME) into
 * path. 0, or -1 with the reason. key names the server (engine, host,
 * port, socket): hashed into the file name. */
int journal_path(const char *key, char *path, size_t len, char *err, size_t errlen);

/* Prepare j for path and read what is there (no file: empty). Takes the
 * lock when the file exists. Returns 0; 1 when another running dbtop holds
 * it (then nothing may be written); -1 with the reason (unreadable, a
 * symlink, wrong owner). */
int journal_open(struct journal *j, const char *path, const char *label, char *err, size_t errlen);

/* Append an apply record, fsynced, before the change is sent; sets
 * e->seq. Creates the file (and its directory, 0700) when needed. */
int journal_begin(struct journal *j, struct jentry *e, char *err, size_t errlen);
/* Append the end of entry seq (fsynced). */
int journal_end(struct journal *j, unsigned seq, enum jstate st, char *err, size_t errlen);

/* Active entries, newest first (the order they are reverted in): indexes
 * into j->e; returns how many. */
int journal_active(const struct journal *j, int *idx, int max);
/* Remove the file when nothing is active any more; close it. */
void journal_close(struct journal *j);

/* Parse one line into e/st (exposed for tests): 'A' or 'E', or 0 when the
 * line is damaged. */
int journal_parse_line(const char *line, struct jentry *e, enum jstate *st);

const char *jstate_name(enum jstate s);

#endif
