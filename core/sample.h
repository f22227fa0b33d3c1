/* sample.h - what one poll of a server yields: raw counters, settings and
 * state. Shared by sources (writers), the model and record/replay (readers).
 * No database or curses headers here. */
#ifndef DBTOP_SAMPLE_H
#define DBTOP_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "repl.h"
#include "logdev.h"
#include "hostload.h"

enum engine {
	ENGINE_UNKNOWN = 0,
	ENGINE_MYSQL,      /* MySQL or MariaDB; see caps.flavour */
	ENGINE_POSTGRESQL,
};

enum flavour {
	FLAVOUR_UNKNOWN = 0,
	FLAVOUR_MYSQL,
	FLAVOUR_MARIADB,
	FLAVOUR_POSTGRESQL,
};

/* Raw cumulative counters. Each backend maps what its server has onto
 * these; the model turns them into rates without knowing the engine. */
enum ctr_id {
	CTR_COMMITS,     /* the commit count behind commits_per_s */
	CTR_OWN_COMMITS, /* commits caused by dbtop's own queries */
	CTR_ROLLBACKS,
	CTR_FSYNCS, /* durability syncs: redo+binlog, or WAL */
	/* MySQL / MariaDB */
	CTR_COM_COMMIT,           /* Com_commit: explicit COMMIT statements */
	CTR_HANDLER_COMMIT,       /* Handler_commit: internal commits */
	CTR_REDO_FSYNCS,          /* redo log syncs (see caps.redo_fsync_source) */
	CTR_REDO_FSYNC_NS,        /* time in redo syncs, ns (P_S only) */
	CTR_BINLOG_FSYNCS,        /* binlog syncs (P_S) */
	CTR_BINLOG_FSYNC_NS,      /* ns */
	CTR_BINLOG_COMMITS,       /* MariaDB Binlog_commits */
	CTR_BINLOG_GROUP_COMMITS, /* MariaDB Binlog_group_commits */
	CTR_DATA_FSYNCS,          /* Innodb_data_fsyncs */
	CTR_REDO_WRITES,          /* Innodb_log_writes */
	CTR_REDO_BYTES,           /* Innodb_os_log_written, bytes */
	/* PostgreSQL */
	CTR_WAL_RECORDS,
	CTR_WAL_FPI,
	CTR_WAL_BYTES, /* bytes (pg_stat_wal, or LSN on PG13) */
	CTR_WAL_BUFFERS_FULL,
	CTR_WAL_WRITES,
	CTR_WAL_WRITE_NS, /* ns; 0 unless track_wal_io_timing */
	CTR_WAL_SYNCS,
	CTR_WAL_SYNC_NS, /* ns; 0 unless track_wal_io_timing */
	/* MySQL / MariaDB performance_schema statement/sql/commit */
	CTR_COMMIT_STMTS, /* COMMIT statements timed */
	CTR_COMMIT_NS,    /* their total latency, ns */
	/* lock waits */
	CTR_ROW_LOCK_WAITS,   /* MySQL/MariaDB Innodb_row_lock_waits */
	CTR_ROW_LOCK_TIME_MS, /* Innodb_row_lock_time, ms */
	/* MySQL / MariaDB statement events (events_statements_summary_global_by_event_name):
	 * what the digests should account for (issue 25) */
	CTR_STMTS,       /* every statement event, dbtop's own included */
	CTR_STMT_NS,     /* their total latency, ns */
	CTR_EXEC_STMTS,  /* statement/com/Execute: prepared statements run (COM_STMT_EXECUTE) */
	CTR_EXEC_NS,     /* ns */
	CTR_OWN_STMTS,   /* dbtop's own connection's statements (its thread) */
	CTR_OWN_STMT_NS, /* ns */
	CTR_CREATE_DB,   /* Com_create_db: CREATE DATABASE statements (mysqlslap starts each run with one) */
	/* MySQL / MariaDB statements counted per kind (prepared executions
	 * included): what the sampled digest estimates are scaled to */
	CTR_COM_SELECT,  /* Com_select */
	CTR_COM_INSERT,  /* Com_insert */
	CTR_COM_UPDATE,  /* Com_update */
	CTR_COM_DELETE,  /* Com_delete */
	CTR_COM_REPLACE, /* Com_replace */
	CTR_COM_BEGIN,   /* Com_begin: BEGIN / START TRANSACTION */
	CTR__COUNT
};

/* One counter reading. epoch identifies the counter's lifetime: when it
 * differs from the previous sample's (server restart, stats reset) the
 * interval's rate is unknown. */
struct ctr {
	uint64_t v;
	uint64_t epoch;
	bool present;
};

enum source_state {
	STATE_DOWN = 0,   /* not connected; retrying */
	STATE_UP,
	STATE_STALLED,    /* a query exceeded its time limit */
};

#define SETTINGS_MAX 16
#define NOTES_MAX 16
#define NOTE_LEN 240

/* A server setting as the server prints it (units included). */
struct setting {
	char name[48];
	char value[64];
};

#define SCOPED_MAX 8
/* A PostgreSQL role's or database's own value of a setting of the tuning
 * table that may be narrower than the server (tunable.narrow), as
 * pg_db_role_setting holds it (ALTER ROLE / ALTER DATABASE ... SET; a role
 * in one database is left out). Read with the settings. */
struct scoped_setting {
	char name[48];
	uint8_t scope;   /* 4 a role, 5 a database (tune_kind TK_PG_ROLE, TK_PG_DATABASE) */
	char target[64]; /* the role's or the database's name, as the server has it */
	char value[64];  /* sanitised */
};

struct notes {
	int n;
	char msg[NOTES_MAX][NOTE_LEN];
};

struct digest_set;
struct lock_set;
struct wait_set;
struct session_set;
struct tune_snap;
struct event_list;

struct sample {
	double mono;            /* s, CLOCK_MONOTONIC when counters were read */
	double wall;            /* s since the epoch, same moment */
	enum source_state state;
	char error[NOTE_LEN];   /* why DOWN/STALLED; sanitised */
	double retry_in;        /* s until the next connection attempt (DOWN) */
	uint32_t conn_gen;      /* bumps on every (re)connection */
	double uptime_s;        /* server uptime, s (0: unknown) */
	double query_ms;        /* time dbtop's queries took for this sample */
	unsigned nqueries;      /* statements sent for this sample */
	struct ctr c[CTR__COUNT];
	bool settings_fresh;    /* settings[] was read in this sample */
	bool settings_checked;  /* the watched durability settings (setting_watched)
				 * were read in this sample: unchanged since the
				 * last full read unless settings_fresh (then
				 * settings[] holds them all, changed ones new) */
	int nsettings;
	struct setting settings[SETTINGS_MAX];
	bool scoped_read; /* scoped[] was read with settings[] (PostgreSQL) */
	int nscoped;
	struct scoped_setting scoped[SCOPED_MAX];
	struct notes notes;     /* per-sample remarks (missing data and why) */
	/* Statement digests read in this sample, or NULL. Owned by whoever
	 * holds the sample: the consumer frees it with digest_set_free()
	 * after model_update() (which does not keep it) and recording. */
	struct digest_set *digests;
	/* true when digests were not read this time on purpose (a large
	 * pg_stat_statements is read every few refreshes): the previous
	 * digest rates stay, they are not "unknown" */
	bool digests_skipped;
	/* Lock waits of this sample (model/locks.h), or NULL when the source
	 * has none. Owned like digests: freed by the consumer with
	 * lock_set_free() after model_update() (which keeps a copy). */
	struct lock_set *locks;
	/* Wait-event profile of this interval (model/waits.h), or NULL. Owned
	 * like digests: freed by the consumer with wait_set_free(). */
	struct wait_set *waits;
	/* true when the wait profile was not read this time on purpose (a
	 * costly summary table is read every few seconds): the previous
	 * values stand, they are not "unknown" */
	bool waits_skipped;
	/* true when some counters were left out of this sample on purpose (a
	 * summary that adds up every thread, read every few refreshes under
	 * --server-budget): their rates stand, aged, until the next reading;
	 * a counter missing without it is unavailable */
	bool ctr_paced;
	/* Every session of the server (model/sessions.h), or NULL when not
	 * wanted (no sessions screen or tile, no --sessions) or not read.
	 * Owned like the lock waits: freed by sample_release(); the model
	 * keeps a copy. */
	struct session_set *sessions;
	/* The tuning screen at this sample (core/tunables.h), or NULL: written
	 * to a recording by the screen, read back by a replay. Owned like the
	 * sessions: freed by sample_release(). */
	struct tune_snap *tuning;
	/* The events of this interval (model/events.h): read from a recording
	 * that has them (SAMPLE field 31), or set just before recording from
	 * the event log; NULL: none recorded (a replay derives them). Owned
	 * like the lock waits: freed by sample_release(). */
	struct event_list *events;
	/* Synchronous replication (core/repl.h); kind REPL_NONE: not read. */
	struct repl repl;
	/* The log devices' /proc/diskstats counters (core/logdev.h), read by
	 * the driver when the server is on this host; .read false otherwise. */
	struct logdev_sample logdev;
	/* The host's CPU pressure and the server tasks' CPU waits
	 * (core/hostload.h), read by the driver when the server is on this
	 * host; .read false otherwise. */
	struct hostload_sample host;
};

/* Append a note unless an identical one is there already. */
void notes_add(struct notes *n, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Set counter id to v with the given epoch. */
void sample_set(struct sample *s, enum ctr_id id, uint64_t v, uint64_t epoch);

/* Record a setting name=value (value sanitised). */
void sample_setting(struct sample *s, const char *name, const char *value);
/* A durability setting the event log watches and the sources read at every
 * refresh (the rest every few seconds). */
bool setting_watched(const char *name);

/* Stable name of a counter (used in recordings), and back; -1 if unknown. */
const char *ctr_name(enum ctr_id id);
int ctr_by_name(const char *name, size_t len);

const char *engine_name(enum engine e);
const char *flavour_name(enum flavour f);
const char *state_name(enum source_state st);

#endif
