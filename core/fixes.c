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
};

const char *fix_brief(enum fix_id id)
{
	return fixes[id].brief ? fixes[id].brief : fixes[id].fix;
}

bool note_about_digests(const char *note)
{
	return strstr(note, "pg_stat_statements") || strstr(note, "digest");
}
