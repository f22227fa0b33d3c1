/* tunables.h - the settings the tuning screen may change, as data: for each
 * one the usual value and the remedy, what it trades, its scope and the
 * privilege it needs; and the exact SQL that applies or reverts a value. */
#ifndef DBTOP_TUNABLES_H
#define DBTOP_TUNABLES_H

#include <stdbool.h>
#include <stddef.h>

#include "sample.h"

enum tune_kind {
	TK_MY_GLOBAL = 1, /* SET GLOBAL name = value (never SET PERSIST) */
	TK_MY_INSTRUMENT, /* performance_schema.setup_instruments ENABLED/TIMED */
	TK_PG_SYSTEM,     /* ALTER SYSTEM SET / RESET + pg_reload_conf() */
	TK_PG_ROLE,       /* ALTER ROLE r SET / RESET: the new sessions of role r (a tunable's narrow scope) */
	TK_PG_DATABASE,   /* ALTER DATABASE d SET / RESET: the new sessions in database d */
};

/* The longest role or database name PostgreSQL keeps (NAMEDATALEN - 1):
 * a longer one would be cut by the server, and name another object. */
#define TUNE_TARGET_MAX 63

/* Where a change goes: the whole server (kind 0 or the tunable's own), or
 * one PostgreSQL role / database. name is the name as dbtop saw it (the
 * session list shows names made safe for a terminal: a control character
 * is a '?'); oid, when known (pg_stat_activity's usesysid / datid), finds
 * the role or database itself, whose real name the change then uses. */
struct tune_target {
	int kind; /* enum tune_kind: TK_PG_ROLE, TK_PG_DATABASE; 0: the server */
	char name[TUNE_TARGET_MAX + 1];
	unsigned oid; /* 0: unknown (found by name) */
};

/* What a change of the setting is forecast to do (model/forecast.c holds
 * the rule of each, as a table). */
enum forecast_rule {
	FC_NONE = 0,     /* no rule: an instrument (changes what is measured) */
	FC_REDO_SYNC,    /* the redo sync leaves each commit (flush at commit 1 -> 2 / 0) */
	FC_BINLOG_SYNC,  /* the binlog sync leaves each commit (sync_binlog 1 -> 0) */
	FC_ASYNC_COMMIT, /* commits stop waiting for the WAL flush (synchronous_commit on -> off) */
	FC_WAL_WRITER,   /* the WAL writer syncs about once per delay (wal_writer_delay) */
	FC_GROUP_COMMIT, /* commits share a sync: depends on how many commit at once */
};

/* Flavour bits. */
#define TF_MYSQL (1u << FLAVOUR_MYSQL)
#define TF_MARIADB (1u << FLAVOUR_MARIADB)
#define TF_PG (1u << FLAVOUR_POSTGRESQL)

struct tunable {
	const char *name;      /* server setting, or instrument name */
	const char *label;     /* as shown */
	enum tune_kind kind;
	unsigned flavours;     /* TF_* */
	const char *usual;     /* the safe / default value */
	const char *remedy;    /* the value that trades safety or cost for speed */
	const char *scope;     /* where and when it takes effect */
	const char *trade;     /* what it risks or costs */
	const char *priv;      /* what the connected user needs */
	const char *finding;   /* the finding it answers, or NULL */
	enum forecast_rule forecast; /* what the change is forecast to do */
	bool durability;             /* trades durability for speed (the scope line names how narrow it can be) */
	/* PostgreSQL: a session may set it, so ALTER ROLE / ALTER DATABASE ...
	 * SET can give it to one role's or one database's new sessions only
	 * (TK_PG_ROLE, TK_PG_DATABASE); false: the server only */
	bool narrow;
};

extern const struct tunable tunables[];
extern const size_t ntunables;

#define TUNABLES_MAX 16
#define TUNE_VALUE_LEN 64

/* The tuning screen as it was at one sample, as a recording keeps it
 * (SAMPLE field 32, docs/recording.md): one row per setting of the tuning
 * table, and dbtop's own changes in force. A replay shows it as it was. */
enum {
	TSNAP_PROBED = 1,        /* the values were read */
	TSNAP_AVAILABLE = 2,     /* changes were possible (live, writable, journal ours) */
	TSNAP_READ_ONLY = 4,     /* --read-only */
	TSNAP_LOCKED = 8,        /* that dbtop held the server's tuning lock */
	TSNAP_ELSEWHERE = 16,    /* another running dbtop held the journal: the changes were its own */
};
enum {
	TSROW_KNOWN = 1,   /* the server has the setting; now is its value */
	TSROW_ALLOWED = 2, /* the user may set it */
	TSROW_CHANGED = 4, /* dbtop's change of it is in force */
	TSROW_EARLIER = 8, /* ... left by an earlier dbtop */
	TSROW_SCOPED = 16, /* ... for one role or database (scope, target) */
};
struct tune_snap_row {
	char name[64];
	char now[TUNE_VALUE_LEN];    /* the value read ("": not known) */
	char to[TUNE_VALUE_LEN];     /* what a would set */
	uint8_t flags;               /* TSROW_* */
	char was[TUNE_VALUE_LEN];    /* TSROW_CHANGED: the value before dbtop's change */
	char val[TUNE_VALUE_LEN];    /* TSROW_CHANGED: the value dbtop set */
	char undo[80];               /* TSROW_CHANGED: how it is reverted (the journal's token) */
	double since;                /* TSROW_CHANGED: when (s since the epoch) */
	uint8_t scope;               /* TSROW_SCOPED: TK_PG_ROLE / TK_PG_DATABASE */
	char target[TUNE_TARGET_MAX + 1]; /* ... its role or database */
};
struct tune_snap {
	uint8_t flags;               /* TSNAP_* */
	double ttl;                  /* --tune-ttl, s; 0: until quit */
	char why[NOTE_LEN];          /* why changes were not possible, or a remark */
	char note[NOTE_LEN];         /* from the probe */
	int n;
	struct tune_snap_row row[TUNABLES_MAX];
};

/* True when t exists on this flavour. */
bool tunable_applies(const struct tunable *t, enum flavour f);
/* The tunable called name on flavour f (kind must match when not 0), or NULL. */
const struct tunable *tunable_find(const char *name, enum flavour f, enum tune_kind kind);
/* The value a key press sets: the remedy, unless it is in force already,
 * then the usual value. */
const char *tunable_toggle(const struct tunable *t, const char *current);
/* Same value, the way the server reads it? Case and surrounding blanks
 * folded; a number with a unit compared in its base unit ("1s" = "1000ms",
 * "1024kB" = "1MB"); on/true/yes and off/false/no alike. */
bool tune_value_same(const char *a, const char *b);
/* A value dbtop will write into SQL: letters, digits and ._-/+: only,
 * 1..63 bytes (server values outside this are refused, never quoted). */
bool tune_value_safe(const char *v);
/* A duration as the server prints it ("200ms", "1s", "10"; a bare number
 * in unit_ms) in ms; false when v is not one. */
bool tune_value_ms(const char *v, double unit_ms, double *ms);

/* The statement that sets t to value (PostgreSQL: the ALTER SYSTEM; the
 * reload follows, see tune_needs_reload). 0, or -1 when value is unsafe. */
int tune_sql_apply(const struct tunable *t, const char *value, char *buf, size_t len);
/* The statement that restores a previous state, from the undo token saved
 * before the change: MySQL the previous value; an instrument "YES/NO"
 * (ENABLED/TIMED); PostgreSQL "set:VALUE" (postgresql.auto.conf had that
 * line) or "reset" (it had none). 0, or -1 when the token is not valid. */
int tune_sql_revert(enum tune_kind kind, const char *name, const char *token, char *buf, size_t len);
/* The same for a kind of change and its target: TK_PG_ROLE / TK_PG_DATABASE
 * (t->narrow only) build ALTER ROLE / ALTER DATABASE <target> SET, the
 * target quoted as an identifier (tune_sql_ident); any other kind is t's
 * own and ignores target. 0, or -1 (an unsafe value or target, a kind t
 * cannot take). */
int tune_sql_apply_in(const struct tunable *t, enum tune_kind kind, const char *target, const char *value, char *buf,
		      size_t len);
/* tune_sql_revert for a kind with a target: TK_PG_ROLE / TK_PG_DATABASE
 * take the same tokens as TK_PG_SYSTEM ("set:VALUE": the role's or the
 * database's own line in pg_db_role_setting had that value; "reset": it
 * had none): ALTER ROLE / DATABASE <target> SET name = 'VALUE' / RESET
 * name. */
int tune_sql_revert_in(enum tune_kind kind, const char *name, const char *target, const char *token, char *buf,
		       size_t len);
/* name as a PostgreSQL identifier into buf: in double quotes, each double
 * quote doubled (whatever else it holds: blanks, quotes, control
 * characters stay inside the quotes). 0, or -1 when name is empty, longer
 * than TUNE_TARGET_MAX bytes (the server would cut it) or buf too small. */
int tune_sql_ident(const char *name, char *buf, size_t len);
/* A role's or a database's name for people: as it is when a plain
 * lower-case name, else quoted as SQL quotes it (tune_sql_ident), then made
 * safe for a terminal (text_sanitize). */
void tune_target_text(const char *target, char *buf, size_t len);
/* TK_PG_ROLE / TK_PG_DATABASE. */
bool tune_kind_scoped(enum tune_kind k);
/* The kind of the tunable behind a change of kind k (a scoped change is
 * of an ALTER SYSTEM setting). */
enum tune_kind tune_kind_base(enum tune_kind k);
/* "server", "role", "database" (how far a change of kind k reaches). */
const char *tune_scope_name(enum tune_kind k);
/* PostgreSQL: ALTER SYSTEM takes effect only after pg_reload_conf(). */
bool tune_needs_reload(enum tune_kind kind);
const char *tune_kind_name(enum tune_kind k);
enum tune_kind tune_kind_parse(const char *s);

#endif
