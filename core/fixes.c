/* fixes.c - the table of missing things and their fixes. */
#include "fixes.h"

#include <string.h>

const struct fix fixes[FIX__COUNT] = {
	[FIX_PRIV_PROCESS] = {
		.missing = "the PROCESS privilege",
		.fix = "GRANT PROCESS ON *.* TO the monitoring user",
	},
	[FIX_PS_OFF] = {
		.missing = "performance_schema is OFF",
		.fix = "performance_schema=ON in the server's option file (needs a restart)",
		.brief = "performance_schema=ON in my.cnf",
	},
	[FIX_PS_SELECT] = {
		.missing = "performance_schema digests are not readable by this user",
		.fix = "GRANT SELECT ON performance_schema.* TO the monitoring user",
		.brief = "GRANT SELECT ON performance_schema.*",
	},
	[FIX_PGSS_INSTALL] = {
		.missing = "pg_stat_statements is not installed in this database",
		.fix = "shared_preload_libraries = 'pg_stat_statements' (restart), then CREATE EXTENSION "
		       "pg_stat_statements",
	},
	[FIX_PGSS_EXTENSION] = {
		.missing = "pg_stat_statements is loaded, but its extension is not created in this database (nor "
			   "readable in another one)",
		.fix = "CREATE EXTENSION pg_stat_statements in this database (no restart needed)",
	},
	[FIX_PG_REPL_STATS] = {
		.missing = "pg_stat_replication shows this user the standbys' names only (state, sync state and lags "
			   "need pg_read_all_stats)",
		.fix = "GRANT pg_monitor TO the monitoring user",
		.brief = "GRANT pg_monitor",
	},
	[FIX_SYNCREP_WAIT] = {
		.missing = "commits wait for a synchronous standby's acknowledgement",
		.fix = "check the standby (its host, disk and network; pg_stat_replication on the primary, its own "
		       "logs); sessions that can afford it: SET synchronous_commit = local (no standby wait) or "
		       "remote_write (the standby acknowledges on write, not flush); a standby that is gone: take it "
		       "out of synchronous_standby_names (or add a second one: ANY 1 (s1, s2))",
		.brief = "check the standby; synchronous_commit=local / remote_write",
	},
	[FIX_SEMISYNC_WAIT] = {
		.missing = "commits wait for a semi-synchronous replica's acknowledgement",
		.fix = "check the replica (its network, its relay-log disk, SHOW REPLICA STATUS); the timeout "
		       "(rpl_semi_sync_master_timeout, ms) bounds every commit's wait: past it commits go on "
		       "asynchronously until the replica catches up",
		.brief = "check the replica; the semi-sync timeout bounds the wait",
	},
};

const char *fix_brief(enum fix_id id)
{
	return fixes[id].brief ? fixes[id].brief : fixes[id].fix;
}

bool note_about_digests(const char *note)
{
	return strstr(note, "pg_stat_statements") || strstr(note, "digest");
}
