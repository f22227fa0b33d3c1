/* repl.h - synchronous replication as one refresh reads it: PostgreSQL's
 * standbys (pg_stat_replication) and MySQL / MariaDB semi-synchronous
 * replication (Rpl_semi_sync_* status and variables). Part of a sample;
 * no database headers here. */
#ifndef DBTOP_REPL_H
#define DBTOP_REPL_H

#include <stdbool.h>
#include <stdint.h>

#define REPL_MAX 8              /* standbys kept per sample (the rest counted in more) */

/* One walsender's standby. Bytes behind: the primary's WAL position less
 * the standby's sent / written / flushed / replayed position. */
struct repl_standby {
	char name[64];          /* application_name ("" when none) */
	char addr[48];          /* client address, "local" for a unix socket, "" hidden */
	char state[16];         /* streaming, catchup, startup, backup, stopping; "" hidden */
	char sync_state[12];    /* sync, quorum, potential, async; "" hidden */
	int64_t sent_b, write_b, flush_b, replay_b; /* -1: not known */
	double write_ms, flush_ms, replay_ms; /* write_lag / flush_lag / replay_lag, ms; NaN: none (idle, caught up) */
	double reply_s;         /* s since its last reply (PostgreSQL >= 12); NaN: not known */
};

enum repl_kind {
	REPL_NONE = 0,          /* not read in this sample */
	REPL_PG,                /* pg_stat_replication */
	REPL_SEMISYNC,          /* MySQL / MariaDB semi-sync */
};

/* Semi-sync status counters (Rpl_semi_sync_master_* / _source_*). */
enum ss_id {
	SS_CLIENTS,             /* semi-sync replicas connected (gauge) */
	SS_WAIT_SESSIONS,       /* sessions waiting for an ack now (gauge) */
	SS_YES_TX,              /* commits acknowledged (cumulative) */
	SS_NO_TX,               /* commits not acknowledged in time: asynchronous (cumulative) */
	SS_TX_WAITS,            /* commits that waited (cumulative) */
	SS_TX_WAIT_US,          /* their total wait, us (cumulative) */
	SS_NET_WAITS,           /* waits for a replica's reply (cumulative) */
	SS_NET_WAIT_US,         /* us (cumulative) */
	SS_TX_AVG_US,           /* the server's own average since start, us */
	SS_NET_AVG_US,
	SS_NO_TIMES,            /* times semi-sync switched off (cumulative) */
	SS_REPLICAS,            /* MariaDB Slaves_connected: every replica, semi-sync or not (gauge) */
	SS__COUNT
};

struct repl {
	enum repl_kind kind;
	double query_ms;        /* server time of the replication read, ms (PostgreSQL; < 0 unknown) */
	/* PostgreSQL */
	bool hidden;            /* rows seen, their columns NULL: no pg_monitor / pg_read_all_stats */
	int n;                  /* standbys in s[] */
	int more;               /* standbys beyond REPL_MAX */
	struct repl_standby s[REPL_MAX];
	/* MySQL / MariaDB semi-sync */
	bool ss_source;         /* the names are rpl_semi_sync_source_* (MySQL >= 8.0.26) */
	int ss_status;          /* Rpl_semi_sync_*_status: 1 ON, 0 OFF, -1 not there */
	uint32_t ss_have;       /* bit ss_id: the counter was read */
	uint64_t ss[SS__COUNT];
	bool vars_fresh;        /* the variables below were read in this sample */
	int enabled;            /* rpl_semi_sync_*_enabled: 1, 0, -1 not known */
	int64_t timeout_ms;     /* rpl_semi_sync_*_timeout; -1 not known */
	int64_t wait_count;     /* rpl_semi_sync_source_wait_for_replica_count (MySQL); -1 */
	char wait_point[24];    /* AFTER_SYNC / AFTER_COMMIT; "" not known */
};

#endif
