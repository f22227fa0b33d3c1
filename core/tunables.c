/* tunables.c - the tuning table and the SQL it turns into. */
#include "tunables.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"

#define MY_SCOPE "global, at once; not persisted: a server restart returns to my.cnf"
#define MY_PRIV "SUPER or SYSTEM_VARIABLES_ADMIN"
#define MY_BINLOG_PRIV "SUPER, SYSTEM_VARIABLES_ADMIN or (MariaDB 10.5+) BINLOG ADMIN"
#define PS_SCOPE "performance_schema at once; lost at server restart"
#define PS_PRIV "UPDATE on performance_schema.setup_instruments"
#define PS_TRADE "times every write and fsync of this file: a little CPU per write; no data at risk"
#define PG_SCOPE "ALTER SYSTEM + pg_reload_conf(): the server at once"
#define PG_PRIV "superuser (PostgreSQL 15+: GRANT ALTER SYSTEM ON PARAMETER, and EXECUTE on " \
	"pg_reload_conf() and pg_show_all_file_settings())"

const struct tunable tunables[] = {
	{
		.name = "innodb_flush_log_at_trx_commit",
		.label = "redo flush at commit",
		.kind = TK_MY_GLOBAL,
		.flavours = TF_MYSQL | TF_MARIADB,
		.usual = "1",
		.remedy = "2",
		.scope = MY_SCOPE,
		.trade = "redo is written at each commit but fsynced about once a second: an OS crash or power "
			 "loss can lose up to ~1 s of committed transactions (a mysqld crash alone loses none)",
		.priv = MY_PRIV,
		.finding = "commit-fsync",
		.forecast = FC_REDO_SYNC,
		.durability = true,
	},
	{
		.name = "sync_binlog",
		.label = "binlog fsync at commit",
		.kind = TK_MY_GLOBAL,
		.flavours = TF_MYSQL | TF_MARIADB,
		.usual = "1",
		.remedy = "0",
		.scope = MY_SCOPE,
		.trade = "the OS decides when the binary log reaches disk: an OS crash or power loss can lose "
			 "committed transactions from the binlog, and replicas may then hold transactions the "
			 "primary lost",
		.priv = MY_BINLOG_PRIV,
		.finding = "commit-fsync",
		.forecast = FC_BINLOG_SYNC,
		.durability = true,
	},
	{
		.name = "binlog_commit_wait_count",
		.label = "binlog group commit size",
		.kind = TK_MY_GLOBAL,
		.flavours = TF_MARIADB,
		.usual = "0",
		.remedy = "8",
		.scope = MY_SCOPE,
		.trade = "a commit waits up to binlog_commit_wait_usec for 8 transactions to share one binlog "
			 "fsync: fewer fsyncs, more latency when few sessions commit; no data at risk",
		.priv = MY_BINLOG_PRIV,
		.finding = "commit-fsync",
		.forecast = FC_GROUP_COMMIT,
	},
	{
		.name = "binlog_commit_wait_usec",
		.label = "binlog group commit wait",
		.kind = TK_MY_GLOBAL,
		.flavours = TF_MARIADB,
		.usual = "100000",
		.remedy = "10000",
		.scope = MY_SCOPE,
		.trade = "the longest a commit waits for the group above: 10 ms instead of 100 ms; no data at risk",
		.priv = MY_BINLOG_PRIV,
		.finding = NULL,
		.forecast = FC_GROUP_COMMIT,
	},
	{
		.name = "binlog_group_commit_sync_delay",
		.label = "binlog group commit delay",
		.kind = TK_MY_GLOBAL,
		.flavours = TF_MYSQL,
		.usual = "0",
		.remedy = "1000",
		.scope = MY_SCOPE,
		.trade = "each binlog group commit waits 1 ms to gather more commits: fewer fsyncs, +1 ms "
			 "latency; no data at risk",
		.priv = MY_PRIV,
		.finding = "commit-fsync",
		.forecast = FC_GROUP_COMMIT,
	},
	{
		.name = "wait/io/file/innodb/innodb_log_file",
		.label = "P_S redo-log file waits",
		.kind = TK_MY_INSTRUMENT,
		.flavours = TF_MYSQL | TF_MARIADB,
		.usual = "NO/NO",
		.remedy = "YES/YES",
		.scope = PS_SCOPE,
		.trade = PS_TRADE,
		.priv = PS_PRIV,
		.finding = "no-statement-statistics",
	},
	{
		.name = "wait/io/file/sql/binlog",
		.label = "P_S binlog file waits",
		.kind = TK_MY_INSTRUMENT,
		.flavours = TF_MYSQL | TF_MARIADB,
		.usual = "NO/NO",
		.remedy = "YES/YES",
		.scope = PS_SCOPE,
		.trade = PS_TRADE,
		.priv = PS_PRIV,
		.finding = NULL,
	},
	{
		.name = "synchronous_commit",
		.label = "commit waits for WAL flush",
		.kind = TK_PG_SYSTEM,
		.flavours = TF_PG,
		.usual = "on",
		.remedy = "off",
		.scope = PG_SCOPE " (a session's, role's or database's own value wins)",
		.trade = "commits return before their WAL is flushed: a server or OS crash can lose up to "
			 "3 x wal_writer_delay of committed transactions (no corruption)",
		.priv = PG_PRIV,
		.finding = "commit-fsync",
		.forecast = FC_ASYNC_COMMIT,
		.durability = true,
		.narrow = true,
	},
	{
		.name = "wal_writer_delay",
		.label = "WAL writer flush interval",
		.kind = TK_PG_SYSTEM,
		.flavours = TF_PG,
		.usual = "200ms",
		.remedy = "1s",
		.scope = PG_SCOPE,
		.trade = "the WAL writer flushes asynchronous commits less often: fewer WAL syncs; with "
			 "synchronous_commit=off up to 3 x this delay of commits can be lost on a crash; "
			 "synchronous commits are not affected",
		.priv = PG_PRIV,
		.finding = "wal-writer-busy",
		.forecast = FC_WAL_WRITER,
	},
	{
		.name = "commit_delay",
		.label = "group commit delay (us)",
		.kind = TK_PG_SYSTEM,
		.flavours = TF_PG,
		.usual = "0",
		.remedy = "1000",
		.scope = PG_SCOPE,
		.trade = "a commit sleeps up to 1 ms when commit_siblings other transactions are active, so one "
			 "WAL flush serves several commits: +1 ms latency; no data at risk",
		.priv = PG_PRIV,
		.finding = "commit-fsync",
		.forecast = FC_GROUP_COMMIT,
	},
};
const size_t ntunables = sizeof tunables / sizeof tunables[0];

bool tunable_applies(const struct tunable *t, enum flavour f)
{
	return (t->flavours & (1u << f)) != 0;
}

const struct tunable *tunable_find(const char *name, enum flavour f, enum tune_kind kind)
{
	for (size_t i = 0; i < ntunables; i++)
		if (strcmp(tunables[i].name, name) == 0 && tunable_applies(&tunables[i], f) &&
		    (!kind || tunables[i].kind == kind))
			return &tunables[i];
	return NULL;
}

/* a..b without surrounding blanks */
static void trimmed(const char *s, const char **b, size_t *n)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t l = strlen(s);
	while (l && (s[l - 1] == ' ' || s[l - 1] == '\t'))
		l--;
	*b = s;
	*n = l;
}

/* A value with a unit as the server prints it ("200ms", "1s", "1min",
 * "8MB") in its base unit (microseconds or bytes); *dim 1 time, 2 size.
 * false when s (n bytes) is not a number followed by a known unit. */
static bool with_unit(const char *s, size_t n, double *v, int *dim)
{
	static const struct {
		const char *u;
		int dim;
		double mul;
	} units[] = {
		{"us", 1, 1}, {"ms", 1, 1e3}, {"s", 1, 1e6}, {"min", 1, 60e6}, {"h", 1, 3600e6}, {"d", 1, 86400e6},
		{"B", 2, 1}, {"kB", 2, 1024.0}, {"MB", 2, 1024.0 * 1024}, {"GB", 2, 1024.0 * 1024 * 1024},
		{"TB", 2, 1024.0 * 1024 * 1024 * 1024},
	};
	char buf[TUNE_VALUE_LEN], *end;
	if (n == 0 || n >= sizeof buf)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	double x = strtod(buf, &end);
	if (end == buf || !*end)
		return false;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(end, units[i].u) == 0) {
			*v = x * units[i].mul;
			*dim = units[i].dim;
			return true;
		}
	return false;
}

/* on/true/yes 1, off/false/no 0, anything else -1 (0 and 1 are numbers:
 * innodb_flush_log_at_trx_commit). */
static int boolean(const char *s, size_t n)
{
	static const char *const yes[] = {"on", "true", "yes"}, *const no[] = {"off", "false", "no"};
	for (int i = 0; i < 3; i++) {
		if (strlen(yes[i]) == n && strncasecmp(s, yes[i], n) == 0)
			return 1;
		if (strlen(no[i]) == n && strncasecmp(s, no[i], n) == 0)
			return 0;
	}
	return -1;
}

bool tune_value_same(const char *a, const char *b)
{
	const char *pa, *pb;
	size_t na, nb;
	double va, vb;
	int da, db;
	if (!a || !b)
		return false;
	trimmed(a, &pa, &na);
	trimmed(b, &pb, &nb);
	if (na == nb && strncasecmp(pa, pb, na) == 0)
		return true;
	if (with_unit(pa, na, &va, &da) && with_unit(pb, nb, &vb, &db))
		return da == db && fabs(va - vb) <= 1e-9 * (fabs(va) > fabs(vb) ? fabs(va) : fabs(vb));
	int ba = boolean(pa, na);
	return ba >= 0 && ba == boolean(pb, nb);
}

bool tune_value_ms(const char *v, double unit_ms, double *ms)
{
	const char *p;
	size_t n;
	double x;
	int dim;
	char *end;
	if (!v)
		return false;
	trimmed(v, &p, &n);
	if (with_unit(p, n, &x, &dim)) {
		*ms = x / 1e3;
		return dim == 1;
	}
	x = strtod(p, &end);
	if (end == p || (size_t)(end - p) != n)
		return false;
	*ms = x * unit_ms;
	return true;
}

const char *tunable_toggle(const struct tunable *t, const char *current)
{
	return tune_value_same(current, t->remedy) ? t->usual : t->remedy;
}

bool tune_value_safe(const char *v)
{
	size_t n = v ? strlen(v) : 0;
	if (n == 0 || n >= TUNE_VALUE_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];
		if (!isalnum(c) && !strchr("._-/+:", c))
			return false;
	}
	return true;
}

/* "YES/NO" -> enabled, timed */
static bool instrument_pair(const char *v, char *en, char *tm)
{
	char a[8], b[8];
	if (!v || sscanf(v, "%7[A-Za-z]/%7[A-Za-z]", a, b) != 2)
		return false;
	if ((strcasecmp(a, "YES") && strcasecmp(a, "NO")) || (strcasecmp(b, "YES") && strcasecmp(b, "NO")))
		return false;
	strcpy(en, strcasecmp(a, "YES") == 0 ? "YES" : "NO");
	strcpy(tm, strcasecmp(b, "YES") == 0 ? "YES" : "NO");
	return true;
}

static int instrument_sql(const char *name, const char *pair, char *buf, size_t len)
{
	char en[4], tm[4];
	if (!instrument_pair(pair, en, tm) || !tune_value_safe(name))
		return -1;
	str_printf(buf, len, "UPDATE performance_schema.setup_instruments SET ENABLED='%s', TIMED='%s' "
		   "WHERE NAME='%s'", en, tm, name);
	return 0;
}

int tune_sql_ident(const char *name, char *buf, size_t len)
{
	size_t n = name ? strlen(name) : 0, o = 0;
	if (n == 0 || n > TUNE_TARGET_MAX || len < 3)
		return -1;
	buf[o++] = '"';
	for (size_t i = 0; i < n; i++) {
		if (o + (name[i] == '"' ? 2 : 1) + 2 > len)
			return -1;
		if (name[i] == '"')
			buf[o++] = '"';
		buf[o++] = name[i];
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return 0;
}

void tune_target_text(const char *target, char *buf, size_t len)
{
	bool bare = target && ((*target >= 'a' && *target <= 'z') || *target == '_');
	for (const char *p = target; bare && *p; p++)
		bare = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '$';
	if (bare || tune_sql_ident(target, buf, len) < 0)
		str_copy(buf, len, target ? target : "");
	text_sanitize(buf);
}

bool tune_kind_scoped(enum tune_kind k)
{
	return k == TK_PG_ROLE || k == TK_PG_DATABASE;
}

enum tune_kind tune_kind_base(enum tune_kind k)
{
	return tune_kind_scoped(k) ? TK_PG_SYSTEM : k;
}

const char *tune_scope_name(enum tune_kind k)
{
	return k == TK_PG_ROLE ? "role" : k == TK_PG_DATABASE ? "database" : "server";
}

/* "ALTER ROLE "x"" / "ALTER DATABASE "x"" into buf; -1 when target is not
 * a name dbtop quotes. */
static int alter_head(enum tune_kind kind, const char *target, char *buf, size_t len)
{
	char id[2 * TUNE_TARGET_MAX + 3];
	if (tune_sql_ident(target, id, sizeof id) < 0)
		return -1;
	str_printf(buf, len, "ALTER %s %s", kind == TK_PG_ROLE ? "ROLE" : "DATABASE", id);
	return 0;
}

int tune_sql_apply_in(const struct tunable *t, enum tune_kind kind, const char *target, const char *value, char *buf,
		      size_t len)
{
	char head[2 * TUNE_TARGET_MAX + 40];
	if (!tune_value_safe(value))
		return -1;
	if (tune_kind_scoped(kind)) {
		if (!t->narrow || t->kind != TK_PG_SYSTEM || alter_head(kind, target, head, sizeof head) < 0)
			return -1;
		str_printf(buf, len, "%s SET %s = '%s'", head, t->name, value);
		return 0;
	}
	switch (t->kind) {
	case TK_MY_GLOBAL:
		str_printf(buf, len, "SET GLOBAL %s = %s", t->name, value);
		return 0;
	case TK_MY_INSTRUMENT:
		return instrument_sql(t->name, value, buf, len);
	case TK_PG_SYSTEM:
		str_printf(buf, len, "ALTER SYSTEM SET %s = '%s'", t->name, value);
		return 0;
	case TK_PG_ROLE:
	case TK_PG_DATABASE: break;
	}
	return -1;
}

int tune_sql_apply(const struct tunable *t, const char *value, char *buf, size_t len)
{
	return tune_sql_apply_in(t, t->kind, NULL, value, buf, len);
}

int tune_sql_revert_in(enum tune_kind kind, const char *name, const char *target, const char *token, char *buf,
		       size_t len)
{
	char head[2 * TUNE_TARGET_MAX + 40];
	if (!name || !tune_value_safe(name) || !token)
		return -1;
	switch (kind) {
	case TK_MY_GLOBAL:
		if (!tune_value_safe(token))
			return -1;
		str_printf(buf, len, "SET GLOBAL %s = %s", name, token);
		return 0;
	case TK_MY_INSTRUMENT:
		return instrument_sql(name, token, buf, len);
	case TK_PG_SYSTEM: str_copy(head, sizeof head, "ALTER SYSTEM"); break;
	case TK_PG_ROLE:
	case TK_PG_DATABASE:
		if (alter_head(kind, target, head, sizeof head) < 0)
			return -1;
		break;
	default: return -1;
	}
	if (strcmp(token, "reset") == 0) {
		str_printf(buf, len, "%s RESET %s", head, name);
		return 0;
	}
	if (strncmp(token, "set:", 4) == 0 && tune_value_safe(token + 4)) {
		str_printf(buf, len, "%s SET %s = '%s'", head, name, token + 4);
		return 0;
	}
	return -1;
}

int tune_sql_revert(enum tune_kind kind, const char *name, const char *token, char *buf, size_t len)
{
	return tune_kind_scoped(kind) ? -1 : tune_sql_revert_in(kind, name, NULL, token, buf, len);
}

bool tune_needs_reload(enum tune_kind kind)
{
	return kind == TK_PG_SYSTEM;
}

const char *tune_kind_name(enum tune_kind k)
{
	switch (k) {
	case TK_MY_GLOBAL: return "global";
	case TK_MY_INSTRUMENT: return "instrument";
	case TK_PG_SYSTEM: return "system";
	case TK_PG_ROLE: return "role";
	case TK_PG_DATABASE: return "database";
	}
	return "?";
}

enum tune_kind tune_kind_parse(const char *s)
{
	if (strcmp(s, "global") == 0)
		return TK_MY_GLOBAL;
	if (strcmp(s, "instrument") == 0)
		return TK_MY_INSTRUMENT;
	if (strcmp(s, "system") == 0)
		return TK_PG_SYSTEM;
	if (strcmp(s, "role") == 0)
		return TK_PG_ROLE;
	if (strcmp(s, "database") == 0)
		return TK_PG_DATABASE;
	return 0;
}

bool setting_watched(const char *name)
{
	/* numbers or words the server prints the same whether asked by
	 * SHOW / pg_settings or by @@global / current_setting() */
	static const char *const names[] = {
		"innodb_flush_log_at_trx_commit", "sync_binlog", "binlog_commit_wait_count",
		"binlog_commit_wait_usec", "binlog_group_commit_sync_delay",
		"synchronous_commit", "fsync", "wal_writer_delay", "wal_writer_flush_after",
		"commit_delay", "commit_siblings", "wal_sync_method", "full_page_writes",
	};
	for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}
