/* sample.c - the sample's helpers that every layer uses: notes, counters
 * and settings set by the backends, and the stable names of counters,
 * engines, flavours and source states. See sample.h. */
#include "sample.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/util.h"

void notes_add(struct notes *n, const char *fmt, ...)
{
	char buf[NOTE_LEN];
	va_list ap;
	int i;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	text_sanitize(buf);
	for (i = 0; i < n->n; i++)
		if (strcmp(n->msg[i], buf) == 0)
			return;
	if (n->n < NOTES_MAX)
		str_copy(n->msg[n->n++], NOTE_LEN, buf);
}

void sample_set(struct sample *s, enum ctr_id id, uint64_t v, uint64_t epoch)
{
	s->c[id].v = v;
	s->c[id].epoch = epoch;
	s->c[id].present = true;
}

void sample_setting(struct sample *s, const char *name, const char *value)
{
	struct setting *st;
	if (s->nsettings >= SETTINGS_MAX)
		return;
	st = &s->settings[s->nsettings++];
	str_copy(st->name, sizeof st->name, name);
	str_copy(st->value, sizeof st->value, value ? value : "");
	text_sanitize(st->name);
	text_sanitize(st->value);
}

/* Names are part of the recording format: never rename, only add. */
static const char *const ctr_names[CTR__COUNT] = {
	[CTR_COMMITS] = "commits",
	[CTR_OWN_COMMITS] = "own_commits",
	[CTR_ROLLBACKS] = "rollbacks",
	[CTR_FSYNCS] = "fsyncs",
	[CTR_COM_COMMIT] = "com_commit",
	[CTR_HANDLER_COMMIT] = "handler_commit",
	[CTR_REDO_FSYNCS] = "redo_fsyncs",
	[CTR_REDO_FSYNC_NS] = "redo_fsync_ns",
	[CTR_BINLOG_FSYNCS] = "binlog_fsyncs",
	[CTR_BINLOG_FSYNC_NS] = "binlog_fsync_ns",
	[CTR_BINLOG_COMMITS] = "binlog_commits",
	[CTR_BINLOG_GROUP_COMMITS] = "binlog_group_commits",
	[CTR_DATA_FSYNCS] = "data_fsyncs",
	[CTR_REDO_WRITES] = "redo_writes",
	[CTR_REDO_BYTES] = "redo_bytes",
	[CTR_WAL_RECORDS] = "wal_records",
	[CTR_WAL_FPI] = "wal_fpi",
	[CTR_WAL_BYTES] = "wal_bytes",
	[CTR_WAL_BUFFERS_FULL] = "wal_buffers_full",
	[CTR_WAL_WRITES] = "wal_writes",
	[CTR_WAL_WRITE_NS] = "wal_write_ns",
	[CTR_WAL_SYNCS] = "wal_syncs",
	[CTR_WAL_SYNC_NS] = "wal_sync_ns",
	[CTR_COMMIT_STMTS] = "commit_stmts",
	[CTR_COMMIT_NS] = "commit_ns",
	[CTR_ROW_LOCK_WAITS] = "row_lock_waits",
	[CTR_ROW_LOCK_TIME_MS] = "row_lock_time_ms",
	[CTR_STMTS] = "stmts",
	[CTR_STMT_NS] = "stmt_ns",
	[CTR_EXEC_STMTS] = "exec_stmts",
	[CTR_EXEC_NS] = "exec_ns",
	[CTR_OWN_STMTS] = "own_stmts",
	[CTR_OWN_STMT_NS] = "own_stmt_ns",
	[CTR_CREATE_DB] = "create_db",
	[CTR_COM_SELECT] = "com_select",
	[CTR_COM_INSERT] = "com_insert",
	[CTR_COM_UPDATE] = "com_update",
	[CTR_COM_DELETE] = "com_delete",
	[CTR_COM_REPLACE] = "com_replace",
	[CTR_COM_BEGIN] = "com_begin",
};

const char *ctr_name(enum ctr_id id)
{
	return (unsigned)id < CTR__COUNT ? ctr_names[id] : "?";
}

int ctr_by_name(const char *name, size_t len)
{
	int i;
	for (i = 0; i < CTR__COUNT; i++)
		if (strlen(ctr_names[i]) == len && memcmp(ctr_names[i], name, len) == 0)
			return i;
	return -1;
}

const char *engine_name(enum engine e)
{
	switch (e) {
	case ENGINE_MYSQL: return "mysql";
	case ENGINE_POSTGRESQL: return "postgresql";
	default: return "unknown";
	}
}

const char *flavour_name(enum flavour f)
{
	switch (f) {
	case FLAVOUR_MYSQL: return "mysql";
	case FLAVOUR_MARIADB: return "mariadb";
	case FLAVOUR_POSTGRESQL: return "postgresql";
	default: return "unknown";
	}
}

const char *state_name(enum source_state st)
{
	switch (st) {
	case STATE_UP: return "up";
	case STATE_STALLED: return "stalled";
	default: return "down";
	}
}
