/* What the durability settings in force imply: fsyncs per commit, what a
 * crash can lose (the engines' documented semantics, kept beside the
 * tunables that change them). */
#include "durability.h"

#include <string.h>

#include "../util/util.h"

int durability_lines(enum engine engine, durability_get_fn get, const void *ctx, char lines[][160], bool *crit, int max)
{
	int n = 0;
	const char *v;
#define LINE(c, ...) \
	do { \
		if (n < max) { \
			crit[n] = (c); \
			str_printf(lines[n++], 160, __VA_ARGS__); \
		} \
	} while (0)
	if (engine == ENGINE_MYSQL) {
		const char *flush = get(ctx, "innodb_flush_log_at_trx_commit");
		const char *sb = get(ctx, "sync_binlog");
		const char *lb = get(ctx, "log_bin");
		bool binlog = lb && strcmp(lb, "ON") == 0;
		if (!flush)
			return 0;
		int fsyncs = (strcmp(flush, "1") == 0) + (binlog && sb && strcmp(sb, "1") == 0);
		LINE(false, "innodb_flush_log_at_trx_commit=%s sync_binlog=%s%s -> %d fsync%s per commit", flush,
		     sb ? sb : "?", binlog ? "" : " (binlog off)", fsyncs, fsyncs == 1 ? "" : "s");
		if (strcmp(flush, "2") == 0)
			LINE(true,
			     "redo synced about once a second: up to ~1 s of commits lost on an OS crash or power loss");
		else if (strcmp(flush, "0") == 0)
			LINE(true,
			     "redo written and synced about once a second: up to ~1 s of commits lost even if only mysqld crashes");
		if (binlog && sb && strcmp(sb, "0") == 0)
			LINE(true,
			     "sync_binlog=0: the binlog can lose commits on a crash; replicas and point-in-time recovery may diverge");
		else if (binlog && sb && strcmp(sb, "1") != 0)
			LINE(true,
			     "sync_binlog=%s: the binlog is synced every %s commit groups; that many may be lost on a crash",
			     sb, sb);
		if ((v = get(ctx, "innodb_flush_method")))
			LINE(false, "innodb_flush_method=%s  innodb_doublewrite=%s", v,
			     get(ctx, "innodb_doublewrite") ? get(ctx, "innodb_doublewrite") : "?");
	} else if (engine == ENGINE_POSTGRESQL) {
		const char *sc = get(ctx, "synchronous_commit");
		const char *wwd = get(ctx, "wal_writer_delay");
		if (!sc)
			return 0;
		if (strcmp(sc, "off") == 0)
			LINE(true,
			     "synchronous_commit=off wal_writer_delay=%s -> commits return before their WAL is flushed: "
			     "up to ~3 x %s of commits lost on a crash (no corruption)",
			     wwd ? wwd : "?", wwd ? wwd : "?");
		else
			LINE(false, "synchronous_commit=%s wal_writer_delay=%s -> each commit waits for its WAL flush",
			     sc, wwd ? wwd : "?");
		if ((v = get(ctx, "commit_delay")) && strcmp(v, "0") != 0)
			LINE(false, "commit_delay=%s commit_siblings=%s: commits wait to share a flush", v,
			     get(ctx, "commit_siblings") ? get(ctx, "commit_siblings") : "?");
		if ((v = get(ctx, "fsync")) && strcmp(v, "off") == 0)
			LINE(true, "fsync=off: a crash can corrupt the whole cluster");
		if ((v = get(ctx, "wal_sync_method")))
			LINE(false, "wal_sync_method=%s  full_page_writes=%s", v,
			     get(ctx, "full_page_writes") ? get(ctx, "full_page_writes") : "?");
	}
#undef LINE
	return n;
}
