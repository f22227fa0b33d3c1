/* journal.h - the undo journal of tuning changes: one file per server under
 * $XDG_STATE_HOME/dbtop/ (default ~/.local/state/dbtop/), named by the
 * server's own identity (read at connect, see caps.server_id), mode 0600,
 * never through a symlink, locked by the dbtop that writes it. Every change
 * is appended (with the value to restore and the server it was made on) and
 * fsynced BEFORE it is sent to the server; its end (reverted, kept, failed,
 * superseded) is appended after. Lines carry a checksum: a torn or damaged
 * line is counted and ignored, never half-read; a write that fails is cut
 * off again, so the next line never joins a torn one.
 *
 *   dbtop-undo 2 <server-id> <server-label>
 *   A <seq> <wall> <kind> <name> <undo-token> <was> <new> <pid> <server-id> <server-label> #<sum>
 *   A <seq> <wall> role|database <name> <undo-token> <was> <new> <pid> <server-id> <server-label> <target> #<sum>
 *   E <seq> reverted|kept|failed #<sum>
 *   E <seq> superseded <value-found> #<sum>
 *
 * Version 1 files (address-keyed, no server identity: "dbtop-undo 1
 * <label>", A lines without the last two fields) are still read: their
 * entries carry an empty server id, and are never reverted automatically.
 * A change for one PostgreSQL role or database (ALTER ROLE / ALTER DATABASE
 * ... SET) names it last: <target>, escaped like every field.
 */
#ifndef DBTOP_JOURNAL_H
#define DBTOP_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/tunables.h"

#define JOURNAL_MAX 64

enum jstate { JS_ACTIVE = 0, JS_REVERTED, JS_KEPT, JS_FAILED, JS_SUPERSEDED };

#define JOURNAL_ID_LEN 160
#define JOURNAL_LABEL_LEN 128

struct jentry {
	unsigned seq;
	double wall;             /* s since the epoch: when it was applied (shown, journaled) */
	double mono;             /* monotonic s when this dbtop applied it (--tune-ttl); 0: read from the file */
	enum tune_kind kind;
	char name[64];
	char undo[80];           /* tune_sql_revert token */
	char was[TUNE_VALUE_LEN];/* the running value before, as shown */
	char val[TUNE_VALUE_LEN];/* the value dbtop set */
	char sid[JOURNAL_ID_LEN];/* the server it was set on ("": a version 1 record) */
	char slabel[JOURNAL_LABEL_LEN]; /* that server, for people */
	char now[TUNE_VALUE_LEN];/* JS_SUPERSEDED: the value found in its place */
	char target[TUNE_TARGET_MAX + 1]; /* TK_PG_ROLE / TK_PG_DATABASE: the role or database ("" otherwise) */
	enum jstate state;
};

struct journal {
	char path[512];
	int fd;                  /* -1: not open */
	bool locked;
	bool read_only;          /* opened for reading only: no lock, never written or removed */
	bool need_nl;            /* the file ends inside a line: the next record starts a new one */
	int version;             /* of the file read (1, 2), 0: none yet */
	char sid[JOURNAL_ID_LEN];/* the server this journal is for (written in the header) */
	unsigned next_seq;
	int n;                   /* e[]: entries only below n */
	int damaged;             /* lines ignored: bad checksum or torn */
	char label[160];
	/* last, so that a journal cleared (journal_clear) or opened leaves the
	 * entries it never holds untouched (46 KB a target) */
	struct jentry e[JOURNAL_MAX];
};

/* Clear j but for its entries (n 0, not open). */
void journal_clear(struct journal *j);

/* The journal path for a server (dir from XDG_STATE_HOME or HOME) into
 * path. 0, or -1 with the reason. key names the server (engine, host,
 * port, socket): hashed into the file name. */
int journal_path(const char *key, char *path, size_t len, char *err, size_t errlen);

/* Prepare j for path and read what is there (no file: empty). sid / label
 * name the server (header of a new file). Takes the lock when the file
 * exists, unless read_only (then the file is only read: never locked,
 * written or removed). Returns 0; 1 when another running dbtop holds it
 * (then nothing may be written); -1 with the reason (unreadable, a
 * symlink, wrong owner, the header names another server). */
int journal_open(struct journal *j, const char *path, const char *sid, const char *label, bool read_only,
		 char *err, size_t errlen);

/* Append an apply record, fsynced, before the change is sent; sets
 * e->seq. Creates the file (and its directory, 0700) when needed. */
int journal_begin(struct journal *j, struct jentry *e, char *err, size_t errlen);
/* Append the end of entry seq (fsynced). */
int journal_end(struct journal *j, unsigned seq, enum jstate st, char *err, size_t errlen);
/* The same with the value found in force (JS_SUPERSEDED). */
int journal_end_value(struct journal *j, unsigned seq, enum jstate st, const char *now, char *err, size_t errlen);

/* Active entries, newest first (the order they are reverted in): indexes
 * into j->e; returns how many. The table keeps active entries only (finished
 * ones are dropped when room is needed): JOURNAL_MAX changes in force. */
int journal_active(const struct journal *j, int *idx, int max);
/* Remove the file when nothing is active any more (and it was opened for
 * writing); close it. */
void journal_close(struct journal *j);

/* Parse one line into e/st (exposed for tests): 'A' or 'E', or 0 when the
 * line is damaged. */
int journal_parse_line(const char *line, struct jentry *e, enum jstate *st);

const char *jstate_name(enum jstate s);

#endif
