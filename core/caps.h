/* caps.h - what the connected server has, probed at connect time: the
 * flavour and version, which instruments and privileges are there, and the
 * server's own identity. Filled by a source, kept by the model, read by the
 * panes and the tuner. */
#ifndef DBTOP_CAPS_H
#define DBTOP_CAPS_H

#include <stdbool.h>

#include "sample.h"

/* What the server has, probed at connect time (not from version numbers). */
struct caps {
	enum engine engine;
	enum flavour flavour;
	char version[64];        /* server version string, sanitised */
	long version_num;        /* e.g. 101106 (10.11.6), 180004 */
	/* MySQL / MariaDB */
	bool perf_schema;        /* performance_schema=ON */
	bool ps_readable;        /* SELECT on performance_schema granted */
	bool ps_redo_file;       /* redo-log file instrument enabled+timed */
	bool ps_binlog_file;     /* binlog file instrument enabled+timed */
	bool has_os_log_fsyncs;  /* status Innodb_os_log_fsyncs exists */
	bool binlog_on;          /* log_bin=ON */
	bool priv_process;       /* PROCESS (or SUPER) privilege */
	bool priv_super;         /* can SET GLOBAL */
	bool ps_digests;         /* events_statements_summary_by_digest readable */
	bool ps_digest_p95;      /* ... with QUANTILE_95 (MySQL 8) */
	bool ps_digest_hist;     /* events_statements_histogram_by_digest (MySQL 8): per-interval p95 */
	char redo_fsync_source[96];
	char commit_source[96];
	/* PostgreSQL */
	int pgss_version;        /* pg_stat_statements extversion *100, 0: none */
	bool pgss_loaded;        /* pg_stat_statements is in shared_preload_libraries */
	char pgss_db[64];        /* database whose pg_stat_statements is read ("": the connected one) */
	int pg_wait_sampling;    /* 1 if the extension is created */
	enum { WAL_NONE, WAL_LSN, WAL_STAT_WAL, WAL_STAT_IO } wal_stats;
	bool track_wal_io_timing;
	bool in_recovery;
	bool superuser;
	bool pg_monitor;
	/* The server's own identity, read at connect (never recorded): MySQL
	 * @@server_uuid; MariaDB @@server_id, @@hostname, @@port, @@datadir;
	 * PostgreSQL pg_control_system()'s system_identifier and the port.
	 * The undo journal is keyed by it. "" when it could not be read: then
	 * server_label says why (and tuning is off). */
	char server_id[160];
	char server_label[128];  /* the same for people: "MariaDB vm:3306 (server_id 1)" */
	struct notes notes;      /* what is missing and how to fix it */
	/* The log directories and the block devices under them (core/logdev.h):
	 * the backend names the directories and says whether the server is on
	 * this host; the driver finds the devices (sources/hostio.c). */
	struct logdev_map logdev;
	/* Where the server's process is, when it runs on this host (never
	 * recorded): MySQL / MariaDB @@pid_file, PostgreSQL dbtop's own
	 * backend (pg_backend_pid()). The driver finds the process from them
	 * for the host's CPU figures (sources/host_read.c). */
	char pid_file[160];
	long backend_pid;
};

/* How long the server may hold a connection's counters before the reads
 * see them, s: the shortest window a rate of them is true over. PostgreSQL's
 * sessions publish their transaction and WAL counters at most once a second
 * (from 15 on; before, through the statistics collector every 0.5 s, read
 * from a file up to 0.5 s old): over 0.2 s a server at 300 commits/s read
 * 0 in four runs of ten and 1,400-1,460 in three. MySQL and MariaDB sum
 * their connections' counters at each read (0). */
static inline double caps_counters_lag_s(const struct caps *c)
{
	return c->engine == ENGINE_POSTGRESQL ? 1.0 : 0;
}

#endif
