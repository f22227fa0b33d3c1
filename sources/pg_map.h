/* pg_map.h - PostgreSQL result rows to caps and counters. Pure functions
 * (no libpq), so rows recorded from PostgreSQL 13-18 can be unit-tested. */
#ifndef DBTOP_PG_MAP_H
#define DBTOP_PG_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "source.h"
#include "../util/util.h"

/* Columns of PG_PROBE_SQL. */
enum {
	PGP_VERSION, PGP_VERSION_NUM, PGP_IN_RECOVERY, PGP_PGSS, PGP_PGWS,
	PGP_PRELOAD, PGP_HAS_WAL_SYNC, PGP_HAS_IO, PGP_TRACK_WAL_IO, PGP_SUPER,
	PGP_MONITOR, PGP__COUNT
};

/* shared_preload_libraries through pg_settings: a role without
 * pg_read_all_settings (no pg_monitor) gets NULL there, where
 * current_setting() would fail the whole probe. */
#define PG_PROBE_SQL \
	"SELECT current_setting('server_version'), current_setting('server_version_num')::int, " \
	"pg_is_in_recovery(), " \
	"(SELECT extversion FROM pg_extension WHERE extname='pg_stat_statements'), " \
	"(SELECT extversion FROM pg_extension WHERE extname='pg_wait_sampling'), " \
	"(SELECT setting FROM pg_settings WHERE name = 'shared_preload_libraries'), " \
	"EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('pg_catalog.pg_stat_wal') " \
	"  AND attname = 'wal_sync' AND NOT attisdropped), " \
	"to_regclass('pg_catalog.pg_stat_io') IS NOT NULL, " \
	"coalesce(current_setting('track_wal_io_timing', true), ''), " \
	"(SELECT rolsuper FROM pg_roles WHERE rolname = current_user), " \
	"pg_has_role(current_user, 'pg_monitor', 'MEMBER')"

/* Asked only when PGP_HAS_IO and not PGP_HAS_WAL_SYNC. */
#define PG_IO_WAL_SQL "SELECT count(*) FROM pg_stat_io WHERE object = 'wal'"

/* Columns of the counters query (pg_counters_sql). */
enum {
	PGC_XACT_COMMIT, PGC_XACT_ROLLBACK, PGC_DB_RESET, PGC_START, PGC_WAL_RECORDS,
	PGC_WAL_FPI, PGC_WAL_BYTES, PGC_WAL_BUFFERS_FULL, PGC_WAL_WRITE, PGC_WAL_WRITE_TIME,
	PGC_WAL_SYNC, PGC_WAL_SYNC_TIME, PGC_WAL_RESET, PGC__COUNT
};

#define PG_SETTINGS_SQL \
	"SELECT name, current_setting(name) FROM pg_settings WHERE name IN ('synchronous_commit'," \
	"'wal_writer_delay','wal_writer_flush_after','commit_delay','commit_siblings'," \
	"'wal_sync_method','full_page_writes','fsync','track_wal_io_timing','wal_level'," \
	"'synchronous_standby_names') ORDER BY name"

/* The role's and the database's own values of the tuning table's narrow
 * settings (pg_db_role_setting, a role in one database left out): name,
 * scope ('role' / 'database'), the role's or the database's name, value. */
#define PG_SCOPED_SETTINGS_SQL \
	"SELECT split_part(c, '=', 1), CASE WHEN s.setrole <> 0 THEN 'role' ELSE 'database' END, " \
	"coalesce(r.rolname, d.datname), substr(c, strpos(c, '=') + 1) FROM pg_db_role_setting s CROSS JOIN " \
	"unnest(s.setconfig) c LEFT JOIN pg_roles r ON r.oid = s.setrole LEFT JOIN pg_database d ON " \
	"d.oid = s.setdatabase WHERE (s.setrole = 0) <> (s.setdatabase = 0) AND split_part(c, '=', 1) IN " \
	"('synchronous_commit') ORDER BY 1, 2, 3 LIMIT 8"

/* Fill c from the probe row (NULL cells for SQL NULL; booleans "t"/"f"). */
void pg_caps_probe(struct caps *c, const char *const cell[PGP__COUNT]);
/* Choose the WAL statistics source and write the notes; io_has_wal is the
 * answer of PG_IO_WAL_SQL (false when not asked). */
void pg_caps_finish(struct caps *c, bool io_has_wal);
/* The counters query for the WAL statistics c has. */
const char *pg_counters_sql(const struct caps *c);
/* One counters row into out (cells may be NULL; fewer columns on PG13).
 * own_xacts: transactions dbtop has run on this connection. */
void pg_map_counters(struct sample *out, const struct caps *c, const char *const cell[PGC__COUNT],
		     uint64_t own_xacts);

/* Columns of pg_digest_sql(). */
enum {
	PGD_USERID, PGD_DBID, PGD_QUERYID, PGD_TOPLEVEL, PGD_CALLS, PGD_EXEC_MS, PGD_PLAN_MS,
	PGD_ROWS, PGD_HIT, PGD_READ, PGD_WAL, PGD_SINCE, PGD_DATNAME, PGD__COUNT
};
struct digest_set;
/* The pg_stat_statements query (no query text) for the extension version
 * in c; NULL when the extension is not there. */
const char *pg_digest_sql(const struct caps *c);
/* Text of up to n query ids: "SELECT userid, dbid, queryid, toplevel, query ...";
 * ids are the PGD_QUERYID cells (validated as integers). Written to buf;
 * returns buf, or NULL when no id was valid. */
char *pg_digest_text_sql(const struct caps *c, const char *const *ids, size_t n, char *buf, size_t len);
/* The key of a pg_stat_statements entry. */
void pg_digest_key(char *key, size_t len, const char *userid, const char *dbid, const char *queryid,
		   const char *toplevel);
/* One pg_stat_statements row into set. */
void pg_map_digest(struct digest_set *set, const char *const cell[PGD__COUNT]);

/* What the digest reads of one connection saw of each digest, so that a
 * read after the first carries only the digests that changed: their
 * calls, execution or planning time (a statement's other counters move
 * with its calls), or that the last read did not list. A read lists the
 * digests in the order of the last one with new ones between, so each
 * row is looked for first where that order puts it. */
struct pg_seen {
	uint64_t kh;    /* the hash of its key cells */
	uint64_t calls; /* at its last read; UINT64_MAX: none yet */
	uint64_t fp;    /* the hash of its counters' cells at its last read */
	uint32_t read;  /* the read that last listed it */
	uint32_t next;  /* the index of the row after it in that read (UINT32_MAX: none) */
};
struct pg_changes {
	struct pg_seen *seen; /* dense */
	size_t n, cap;
	struct hmap ix; /* the hash of a digest's key cells -> its index in seen (uint32_t) */
	uint32_t head;  /* the first row of the last read */
	uint32_t reads; /* reads of this connection, the one going on included */
	size_t listed;  /* digests the last read listed */
	/* the read going on: the row before, where the next row is looked
	 * for first, rows seen, and of those the ones the last read listed */
	uint32_t prev, predicted;
	size_t rows, again;
};
#define PG_PICK_KEEP 1u  /* the row goes into the set */
#define PG_PICK_MOVED 2u /* its calls moved since the last read, or it is new since the first: its text is wanted */
void pg_changes_init(struct pg_changes *c);
void pg_changes_free(struct pg_changes *c);
/* A read begins. */
void pg_changes_begin(struct pg_changes *c);
/* One row of the read, in its order: PG_PICK_* bits. */
unsigned pg_changes_row(struct pg_changes *c, const char *const cell[PGD__COUNT]);
/* The read ends: true when its set is to be whole (every row, not only
 * the picked ones): the first read of the connection, and a read where a
 * digest the last one listed is gone (the model learns that from a whole
 * set). */
bool pg_changes_end(struct pg_changes *c);

/* dbtop's own statements in pg_stat_statements (docs/digests.md). The
 * server keeps no trace of which backend ran an entry: an entry is
 * dbtop's own when its text is the text of a statement dbtop sent, the
 * literals aside (pg_stat_statements writes $n for them). Each statement
 * dbtop sends is noted (pg_own_sent: a multi-statement string counts as
 * its statements); each text fetched is checked (pg_own_text), and kept
 * to be checked again when dbtop sends a statement of a kind not sent yet.
 * A bare BEGIN / START TRANSACTION / COMMIT / END / ROLLBACK is never
 * dbtop's own: the clients' transaction control is the same entry. */
struct pg_own_cand {
	char key[200];
	uint64_t sig;
};
struct pg_own {
	struct hmap sent;         /* signatures (u64) of the statements dbtop sent */
	struct strset keys;       /* digest keys whose text is one of them */
	struct pg_own_cand *cand; /* texts that matched none (yet) */
	size_t ncand, capcand;
};
#define PG_OWN_CAND_MAX 4096
/* The signature of the statement q[0..len): its words (keywords and
 * identifiers, upper-cased) in order, without comments, literals, $n
 * parameters and the words pg_stat_statements replaces (NULL, TRUE,
 * FALSE); 0 for one without words or a bare transaction-control
 * statement. */
uint64_t pg_stmt_sig(const char *q, size_t len);
/* Note statement string q as sent by dbtop (every statement of it). */
void pg_own_sent(struct pg_own *o, const char *q);
/* Check the text of digest key (once per key); true when it is dbtop's own. */
bool pg_own_text(struct pg_own *o, const char *key, const char *text);
bool pg_own_has(const struct pg_own *o, const char *key);
void pg_own_free(struct pg_own *o);
/* For recordings made before digests carried dbtop's own flag: is text
 * one of the statements dbtop sent to PostgreSQL then? */
bool pg_own_recorded(const char *text);

/* What a pg_reload_conf() would apply besides dbtop's own change: edits of
 * postgresql.conf (and its includes, postgresql.auto.conf) not reloaded
 * yet, errors in them, errors in pg_hba.conf. Privileges first (one row):
 * pg_show_all_file_settings(), pg_hba_file_rules, pg_stat_file(). */
#define PG_PENDING_PRIV_SQL \
	"SELECT has_function_privilege('pg_show_all_file_settings()', 'EXECUTE'), " \
	"has_table_privilege('pg_hba_file_rules', 'SELECT') AND " \
	"has_function_privilege('pg_hba_file_rules()', 'EXECUTE'), " \
	"has_function_privilege('pg_stat_file(text, boolean)', 'EXECUTE')"
/* Columns of pg_pending_sql(); PGF_KIND says what a row is:
 *   e  a line of a configuration file with an error
 *   v  the line in force of a parameter whose value in force comes from the
 *      files or the default: pending when its value differs (PGF_VALUE vs
 *      PGF_NOW in PGF_UNIT, PGF_TYPE is pg_settings.vartype, PGF_SHOW the
 *      value in force as SHOW prints it)
 *   r  a parameter set from a file whose line is gone: a reload resets it
 *      (PGF_SHOW: the value in force, PGF_ERROR: its default)
 *   h  a pg_hba.conf line with an error (PGF_LINE, PGF_ERROR)
 *   m  pg_hba.conf / pg_ident.conf (PGF_NAME) changed since this backend
 *      last read the configuration (PGF_FILE: the path)
 *   a  PGF_ERROR: how many file lines are applied ("0" with an error: a
 *      reload applies none of them) */
enum {
	PGF_KIND, PGF_FILE, PGF_LINE, PGF_NAME, PGF_VALUE, PGF_NOW, PGF_UNIT, PGF_TYPE, PGF_SHOW, PGF_ERROR,
	PGF__COUNT
};
struct strbuf;
/* The pending-edits query into q (after sb_init), for the readers granted. */
void pg_pending_sql(struct strbuf *q, bool hba_rules, bool stat_file);
/* Is a value written in a configuration file (file) the value in force
 * (now, as pg_settings.setting gives it in unit, of pg_settings vartype
 * type)? Units, booleans and enum case are compared as PostgreSQL reads
 * them; NULL or unreadable values are not the same. */
bool pg_setting_same(const char *file, const char *now, const char *unit, const char *type);
/* Fold the rows of pg_pending_sql() into a remark for the confirmation
 * ("" when a reload would apply nothing besides dbtop's change). rows[i] are
 * the cells of row i (NULL for SQL NULL). */
void pg_pending_note(char *out, size_t len, const char *const (*rows)[PGF__COUNT], int nrows);

/* pg_wait_sampling's profile between two readings of the server's clock
 * (pg.c's PG_WAIT_PROFILE_SQL): event, count, sampling period, clock ms
 * (the clock rows have no event). */
enum { PGW_EVENT, PGW_COUNT, PGW_PERIOD, PGW_CLOCK, PGW__COUNT };
struct wait_set;
/* One row into ws (an event's count; the period into ws->period_ms), or a
 * clock row into clock[0] (the first) or clock[1] (the last); set both to
 * -1 before the first row. */
void pg_map_profile_row(struct wait_set *ws, const char *const *cell, double clock[2]);
/* The profile's own server ms from those clocks: 0 when not told. */
double pg_profile_ms(const double clock[2]);

#endif
