/* rates.c - rows and number formatting of the fsync / commit rates pane. */
#include "rates.h"

#include <math.h>
#include <string.h>

#include "../util/util.h"

const struct rates_row rates_rows[] = {
	{M_COMMITS, "commits/s"},
	{M_ROLLBACKS, "rollbacks/s"},
	{M_FSYNCS, "fsyncs/s"},
	{M_FSYNCS_PER_COMMIT, "fsyncs/commit"},
	{M_COM_COMMIT, "Com_commit/s"},
	{M_HANDLER_COMMIT, "Handler_commit/s"},
	{M_REDO_FSYNCS, "redo fsyncs/s"},
	{M_REDO_FSYNC_MS, "redo fsync avg"},
	{M_BINLOG_FSYNCS, "binlog fsyncs/s"},
	{M_BINLOG_FSYNC_MS, "binlog fsync avg"},
	{M_BINLOG_COMMITS, "binlog commits/s"},
	{M_BINLOG_GROUP_COMMITS, "binlog groups/s"},
	{M_BINLOG_COMMITS_PER_GROUP, "commits/group"},
	{M_DATA_FSYNCS, "InnoDB fsyncs/s"},
	{M_REDO_WRITES, "redo writes/s"},
	{M_REDO_BYTES, "redo bytes/s"},
	{M_WAL_WRITES, "WAL writes/s"},
	{M_WAL_WRITE_MS, "WAL write avg"},
	{M_WAL_SYNCS, "WAL syncs/s"},
	{M_WAL_SYNC_MS, "WAL sync avg"},
	{M_WAL_BYTES, "WAL bytes/s"},
	{M_WAL_BYTES_PER_COMMIT, "WAL bytes/commit"},
	{M_WAL_RECORDS, "WAL records/s"},
	{M_WAL_FPI, "WAL FPI/s"},
	{M_WAL_BUFFERS_FULL, "WAL buffers full/s"},
};
const size_t rates_nrows = sizeof rates_rows / sizeof rates_rows[0];

/* Human-readable bytes: 1.2K, 35.0M ... */
static void fmt_bytes(double v, char *buf, size_t len)
{
	static const char *u[] = {"", "K", "M", "G", "T"};
	int i = 0;
	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		str_printf(buf, len, "%.0fB", v);
	else
		str_printf(buf, len, "%.1f%s", v, u[i]);
}

char *rates_format(enum metric_id id, const struct rate *r, char *buf, size_t len)
{
	const char *unit = metric_defs[id].unit;
	if (r->st != RATE_OK || !isfinite(r->v)) {
		str_printf(buf, len, "- (%s)", rate_status_name(r->st));
		return buf;
	}
	if (unit[0] == 'B') {
		char b[32];
		fmt_bytes(r->v, b, sizeof b);
		str_printf(buf, len, "%s%s", b, strcmp(unit, "B/s") == 0 ? "/s" : "");
	} else if (strcmp(unit, "ms") == 0) {
		str_printf(buf, len, "%.3f ms", r->v);
	} else if (r->v >= 100) {
		str_printf(buf, len, "%.0f", r->v);
	} else {
		str_printf(buf, len, "%.2f", r->v);
	}
	return buf;
}
