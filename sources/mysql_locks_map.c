/* mysql_locks_map.c - MySQL 8 / MariaDB lock-wait queries and their rows
 * to a lock_set. */
#include "mysql_locks_map.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../model/locks.h"
#include "../util/util.h"

/* ---- time limits ----------------------------------------------------------- */

/* "SELECT" with the flavour's time limit in front of / inside it. */
static void select_head(struct strbuf *b, enum flavour fl, unsigned ms)
{
	if (fl == FLAVOUR_MARIADB && ms > 0)
		sb_printf(b, "SET STATEMENT max_statement_time=%u.%03u FOR ", ms / 1000, ms % 1000);
	if (fl == FLAVOUR_MARIADB || ms == 0)
		sb_puts(b, "SELECT ");
	else
		sb_printf(b, "SELECT /*+ MAX_EXECUTION_TIME(%u) */ ", ms);
}

static char *sb_out(struct strbuf *b, char *buf, size_t len)
{
	str_copy(buf, len, b->s ? b->s : "");
	sb_free(b);
	return buf;
}

/* ---- row locks --------------------------------------------------------------- */

/* MySQL 8: data_lock_waits lists each waiting request against every lock
 * ahead of it in the queue that it has to wait for, granted or itself
 * waiting (InnoDB's lock_queue_iterator): n sessions queued for one row
 * give n(n+1)/2 rows, and the joins of each to data_locks (twice), whose
 * every look-up by lock id searches InnoDB's transactions, grow faster
 * still. So the pairs are read once and grouped down before any join, as
 * for MariaDB below:
 *   x   the pairs; queued = the blocking lock is WAITING in data_locks (one
 *       scan of data_locks, materialised, not a look-up per pair)
 *   g0  per waiting request, one row per granted blocking lock, plus one
 *       row standing for all its queued blockers (the least lock id)
 *   g   g0 with granted_blocker: some granted lock blocks the request
 *   w   the granted rows; the queued row only for a request that no
 *       granted lock blocks (it waits behind waiters alone)
 * Threads and transactions are read from the two locks (r, b); HELD_STATUS
 * is PENDING for a queued blocker (a soft edge). */
/* clang-format off */
static const char row_mysql[] =
	"rt.PROCESSLIST_ID, rt.PROCESSLIST_USER, rt.PROCESSLIST_COMMAND, rt.PROCESSLIST_STATE, "
	"rt.PROCESSLIST_TIME, " MYL_AGE("rx.trx_started") ", " MYL_AGE("rx.trx_wait_started") ", "
	"COALESCE(rx.trx_query, rt.PROCESSLIST_INFO), "
	"bt.PROCESSLIST_ID, bt.PROCESSLIST_USER, bt.PROCESSLIST_COMMAND, bt.PROCESSLIST_STATE, "
	"bt.PROCESSLIST_TIME, " MYL_AGE("bx.trx_started") ", " MYL_AGE("bx.trx_wait_started") ", "
	"COALESCE(bx.trx_query, bt.PROCESSLIST_INFO), bs.SQL_TEXT, "
	"r.OBJECT_SCHEMA, r.OBJECT_NAME, r.INDEX_NAME, r.LOCK_TYPE, r.LOCK_MODE, b.LOCK_MODE, "
	"r.LOCK_DATA, b.LOCK_DATA, IF(w.queued, 'PENDING', 'GRANTED'), "
	"rx.trx_id, rx.trx_started, NULL, bx.trx_id, bx.trx_started, NULL "
	"FROM (SELECT g.ENGINE, g.REQUESTING_ENGINE_LOCK_ID, g.BLOCKING_ENGINE_LOCK_ID, g.queued "
	"FROM (SELECT g0.*, MAX(NOT g0.queued) OVER (PARTITION BY g0.ENGINE, g0.REQUESTING_ENGINE_LOCK_ID) "
	"AS granted_blocker "
	"FROM (SELECT x.ENGINE, x.REQUESTING_ENGINE_LOCK_ID, x.queued, "
	"MIN(x.BLOCKING_ENGINE_LOCK_ID) AS BLOCKING_ENGINE_LOCK_ID "
	"FROM (SELECT lw.ENGINE, lw.REQUESTING_ENGINE_LOCK_ID, lw.BLOCKING_ENGINE_LOCK_ID, "
	"lw.BLOCKING_ENGINE_LOCK_ID IN (SELECT /*+ SUBQUERY(MATERIALIZATION) */ q.ENGINE_LOCK_ID "
	"FROM performance_schema.data_locks q WHERE q.LOCK_STATUS = 'WAITING') AS queued "
	"FROM performance_schema.data_lock_waits lw) x "
	"GROUP BY x.ENGINE, x.REQUESTING_ENGINE_LOCK_ID, x.queued, "
	"IF(x.queued, '', x.BLOCKING_ENGINE_LOCK_ID)) g0) g "
	"WHERE NOT g.queued OR NOT g.granted_blocker) w "
	"JOIN performance_schema.data_locks r ON r.ENGINE = w.ENGINE "
	"AND r.ENGINE_LOCK_ID = w.REQUESTING_ENGINE_LOCK_ID "
	"JOIN performance_schema.data_locks b ON b.ENGINE = w.ENGINE "
	"AND b.ENGINE_LOCK_ID = w.BLOCKING_ENGINE_LOCK_ID "
	"LEFT JOIN performance_schema.threads rt ON rt.THREAD_ID = r.THREAD_ID "
	"LEFT JOIN performance_schema.threads bt ON bt.THREAD_ID = b.THREAD_ID "
	"LEFT JOIN information_schema.INNODB_TRX rx ON rx.trx_id = r.ENGINE_TRANSACTION_ID "
	"LEFT JOIN information_schema.INNODB_TRX bx ON bx.trx_id = b.ENGINE_TRANSACTION_ID "
	"LEFT JOIN performance_schema.events_statements_current bs "
	"ON bs.THREAD_ID = b.THREAD_ID AND bs.NESTING_EVENT_LEVEL = 0";
/* clang-format on */

char *mysql_locks_row_sql(unsigned ms, char *buf, size_t len)
{
	struct strbuf b;
	sb_init(&b);
	select_head(&b, FLAVOUR_MYSQL, ms);
	sb_puts(&b, row_mysql);
	return sb_out(&b, buf, len);
}

/* ---- metadata locks: the MDL matrices ------------------------------------------ */

static const char *const mdl_names[MDL_T__COUNT] = {
	[MDL_T_IX] = "INTENTION_EXCLUSIVE", [MDL_T_S] = "SHARED", [MDL_T_SH] = "SHARED_HIGH_PRIO",
	[MDL_T_SR] = "SHARED_READ", [MDL_T_SW] = "SHARED_WRITE",
	[MDL_T_SWLP] = "SHARED_WRITE_LOW_PRIO", [MDL_T_SU] = "SHARED_UPGRADABLE",
	[MDL_T_SRO] = "SHARED_READ_ONLY", [MDL_T_SNW] = "SHARED_NO_WRITE",
	[MDL_T_SNRW] = "SHARED_NO_READ_WRITE", [MDL_T_X] = "EXCLUSIVE",
};

#define B(t) (1u << MDL_T_##t)
#define ALL ((1u << MDL_T__COUNT) - 1)
/* Request type (index) -> the granted types it must wait for. MySQL
 * sql/mdl.cc, object locks:
 *    Request |  Granted requests for lock
 *     type   | S  SH  SR  SW  SWLP  SU  SRO  SNW  SNRW  X
 *    S       | +   +   +   +    +    +   +    +    +    -
 *    SH      | +   +   +   +    +    +   +    +    +    -
 *    SR      | +   +   +   +    +    +   +    +    -    -
 *    SW      | +   +   +   +    +    +   -    -    -    -
 *    SWLP    | +   +   +   +    +    +   -    -    -    -
 *    SU      | +   +   +   +    +    -   +    -    -    -
 *    SRO     | +   +   +   -    -    +   +    +    -    -
 *    SNW     | +   +   +   -    -    -   +    -    -    -
 *    SNRW    | +   +   -   -    -    -   -    -    -    -
 *    X       | -   -   -   -    -    -   -    -    -    -
 * plus INTENTION_EXCLUSIVE of the scoped locks (GLOBAL, SCHEMA, COMMIT,
 * ...), where IX is compatible with IX only among IX, S, X. */
static const unsigned granted_conflicts[MDL_T__COUNT] = {
	[MDL_T_IX] = B(S) | B(X),
	[MDL_T_S] = B(IX) | B(X),
	[MDL_T_SH] = B(X),
	[MDL_T_SR] = B(SNRW) | B(X),
	[MDL_T_SW] = B(SRO) | B(SNW) | B(SNRW) | B(X),
	[MDL_T_SWLP] = B(SRO) | B(SNW) | B(SNRW) | B(X),
	[MDL_T_SU] = B(SU) | B(SNW) | B(SNRW) | B(X),
	[MDL_T_SRO] = B(SW) | B(SWLP) | B(SNRW) | B(X),
	[MDL_T_SNW] = B(SW) | B(SWLP) | B(SU) | B(SNW) | B(SNRW) | B(X),
	[MDL_T_SNRW] = ALL & ~(B(S) | B(SH) | B(IX)),
	[MDL_T_X] = ALL,
};
/* Request type -> the pending types queued ahead that it waits behind
 * (the default priority matrix of sql/mdl.cc):
 *    Request |  Pending requests for lock
 *     type   | S  SH  SR  SW  SWLP  SU  SRO  SNW  SNRW  X
 *    S       | +   +   +   +    +    +   +    +     +   -
 *    SH      | +   +   +   +    +    +   +    +     +   +
 *    SR      | +   +   +   +    +    +   +    +     -   -
 *    SW      | +   +   +   +    +    +   +    -     -   -
 *    SWLP    | +   +   +   +    +    +   -    -     -   -
 *    SU      | +   +   +   +    +    +   +    +     +   -
 *    SRO     | +   +   +   -    +    +   +    +     -   -
 *    SNW     | +   +   +   +    +    +   +    +     +   -
 *    SNRW    | +   +   +   +    +    +   +    +     +   -
 *    X       | +   +   +   +    +    +   +    +     +   +
 * and for scoped locks IX waits behind a pending S or X. */
static const unsigned pending_conflicts[MDL_T__COUNT] = {
	[MDL_T_IX] = B(S) | B(X),
	[MDL_T_S] = B(X),
	[MDL_T_SH] = 0,
	[MDL_T_SR] = B(SNRW) | B(X),
	[MDL_T_SW] = B(SNW) | B(SNRW) | B(X),
	[MDL_T_SWLP] = B(SRO) | B(SNW) | B(SNRW) | B(X),
	[MDL_T_SU] = B(X),
	[MDL_T_SRO] = B(SW) | B(SNRW) | B(X),
	[MDL_T_SNW] = B(X),
	[MDL_T_SNRW] = B(X),
	[MDL_T_X] = 0,
};
#undef B

const char *mysql_mdl_name(enum mdl_type t)
{
	return t >= 0 && t < MDL_T__COUNT ? mdl_names[t] : "";
}

enum mdl_type mysql_mdl_type(const char *name)
{
	if (!name)
		return MDL_T_UNKNOWN;
	if (strncasecmp(name, "MDL_", 4) == 0)
		name += 4;
	for (int t = 0; t < MDL_T__COUNT; t++)
		if (strcasecmp(name, mdl_names[t]) == 0)
			return (enum mdl_type)t;
	return MDL_T_UNKNOWN;
}

bool mysql_mdl_conflicts(enum mdl_type req, enum mdl_type other, bool pending)
{
	bool rk = req >= 0 && req < MDL_T__COUNT, ok = other >= 0 && other < MDL_T__COUNT;
	if (!pending) {
		if (!rk || !ok)
			return true;
		return granted_conflicts[req] & (1u << other);
	}
	if (!ok)
		return false;
	if (!rk)
		return other == MDL_T_X;
	return pending_conflicts[req] & (1u << other);
}

/* "'A', 'B'" of the types in mask (or not in it). */
static void sql_type_list(struct strbuf *b, unsigned mask)
{
	bool first = true;
	for (int t = 0; t < MDL_T__COUNT; t++) {
		if (!(mask & (1u << t)))
			continue;
		sb_printf(b, "%s'%s'", first ? "" : ", ", mdl_names[t]);
		first = false;
	}
}

/* The matrices as SQL: true when w (pending) must wait for b. */
static void sql_conflict(struct strbuf *b, bool pending)
{
	sb_puts(b, "CASE w.LOCK_TYPE");
	for (int t = 0; t < MDL_T__COUNT; t++) {
		unsigned c = pending ? pending_conflicts[t] : granted_conflicts[t];
		sb_printf(b, " WHEN '%s' THEN ", mdl_names[t]);
		if (pending) {
			/* unknown pending types never hold a request back */
			if (c == 0) {
				sb_puts(b, "0");
			} else {
				sb_puts(b, "b.LOCK_TYPE IN (");
				sql_type_list(b, c);
				sb_puts(b, ")");
			}
		} else {
			/* unknown granted types conflict: list what is compatible */
			if ((ALL & ~c) == 0) {
				sb_puts(b, "1");
			} else {
				sb_puts(b, "b.LOCK_TYPE NOT IN (");
				sql_type_list(b, ALL & ~c);
				sb_puts(b, ")");
			}
		}
	}
	sb_puts(b, pending ? " ELSE b.LOCK_TYPE = 'EXCLUSIVE' END" : " ELSE 1 END");
}

char *mysql_locks_mdl_sql(enum flavour fl, unsigned ms, char *buf, size_t len)
{
	struct strbuf b;
	sb_init(&b);
	select_head(&b, fl, ms);
	/* clang-format off */
	sb_puts(&b,
		"wt.PROCESSLIST_ID, wt.PROCESSLIST_USER, wt.PROCESSLIST_COMMAND, wt.PROCESSLIST_STATE, "
		"wt.PROCESSLIST_TIME, " MYL_AGE("wx.trx_started") ", wt.PROCESSLIST_TIME, wt.PROCESSLIST_INFO, "
		"bt.PROCESSLIST_ID, bt.PROCESSLIST_USER, bt.PROCESSLIST_COMMAND, bt.PROCESSLIST_STATE, "
		"bt.PROCESSLIST_TIME, " MYL_AGE("bx.trx_started") ", "
		"CASE WHEN b.LOCK_STATUS = 'PENDING' THEN bt.PROCESSLIST_TIME END, "
		"bt.PROCESSLIST_INFO, bs.SQL_TEXT, "
		"w.OBJECT_SCHEMA, w.OBJECT_NAME, NULL, 'METADATA', w.LOCK_TYPE, b.LOCK_TYPE, "
		"CASE WHEN w.OBJECT_TYPE <> 'TABLE' THEN w.OBJECT_TYPE END, NULL, b.LOCK_STATUS, "
		"wx.trx_id, wx.trx_started, NULL, bx.trx_id, bx.trx_started, NULL "
		"FROM performance_schema.metadata_locks w "
		"JOIN performance_schema.metadata_locks b ON b.OBJECT_TYPE = w.OBJECT_TYPE "
		"AND b.OBJECT_SCHEMA <=> w.OBJECT_SCHEMA AND b.OBJECT_NAME <=> w.OBJECT_NAME "
		"AND b.OWNER_THREAD_ID <> w.OWNER_THREAD_ID "
		"JOIN performance_schema.threads wt ON wt.THREAD_ID = w.OWNER_THREAD_ID "
		"LEFT JOIN performance_schema.threads bt ON bt.THREAD_ID = b.OWNER_THREAD_ID "
		"LEFT JOIN information_schema.INNODB_TRX wx ON wx.trx_mysql_thread_id = wt.PROCESSLIST_ID "
		"LEFT JOIN information_schema.INNODB_TRX bx ON bx.trx_mysql_thread_id = bt.PROCESSLIST_ID "
		"LEFT JOIN performance_schema.events_statements_current bs "
		"ON bs.THREAD_ID = b.OWNER_THREAD_ID AND bs.NESTING_EVENT_LEVEL = 0 "
		"WHERE w.LOCK_STATUS = 'PENDING' AND ((b.LOCK_STATUS = 'GRANTED' AND ");
	/* clang-format on */
	sql_conflict(&b, false);
	sb_puts(&b, ") OR (b.LOCK_STATUS = 'PENDING' AND (bt.PROCESSLIST_TIME > wt.PROCESSLIST_TIME "
		"OR (bt.PROCESSLIST_TIME = wt.PROCESSLIST_TIME AND b.OWNER_THREAD_ID < w.OWNER_THREAD_ID)) AND ");
	sql_conflict(&b, true);
	sb_puts(&b, "))");
	return sb_out(&b, buf, len);
}

char *mysql_locks_mdl_count_sql(enum flavour fl, unsigned ms, const char *cols, char *buf, size_t len)
{
	struct strbuf b;
	sb_init(&b);
	select_head(&b, fl, ms);
	sb_puts(&b, "COUNT(*)");
	sb_puts(&b, cols ? cols : "");
	if (fl == FLAVOUR_MARIADB)
		sb_puts(&b, " FROM information_schema.PROCESSLIST "
			"WHERE STATE LIKE 'Waiting for%metadata lock'");
	else
		sb_puts(&b, " FROM performance_schema.metadata_locks WHERE LOCK_STATUS = 'PENDING'");
	return sb_out(&b, buf, len);
}

bool mysql_locks_count(const char *cell, unsigned *n)
{
	char *e;
	unsigned long v;
	if (!cell || !isdigit((unsigned char)*cell))
		return false;
	errno = 0;
	v = strtoul(cell, &e, 10);
	if (errno || *e || v > 0xffffffffUL)
		return false;
	*n = (unsigned)v;
	return true;
}

uint64_t mysql_locks_stamp(bool have_begun, uint64_t begun, uint64_t waiting, unsigned mdl_waits)
{
	if (!have_begun || mdl_waits)
		return 0;
	/* waiting < 2^24 (sessions); begun keeps its low 40 bits */
	uint64_t stamp = ((begun & 0xffffffffffULL) << 24) + (waiting & 0xffffffULL);
	return stamp + 1 ? stamp + 1 : 1;
}

/* ---- mapping rows ----------------------------------------------------------- */

static bool num(const char *s, double *out)
{
	char *e;
	double v;
	if (!s || !*s)
		return false;
	v = strtod(s, &e);
	if (e == s || *e || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static bool parse_id(const char *s, long long *out)
{
	char *e;
	long long v;
	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoll(s, &e, 10);
	if (errno || *e)
		return false;
	*out = v;
	return true;
}

static void cell_copy(char *dst, size_t len, const char *s)
{
	str_copy(dst, len, s ? s : "");
	text_sanitize(dst);
}

/* What the row says about one session; NULL: not said. ident: the row
 * has the identity columns (trx_id, trx_started, query_id). */
struct side {
	const char *user, *command, *state, *time, *trx_age, *wait, *query, *last;
	bool ident;
	const char *trx_id, *trx_started, *query_id;
};

/* A session's identity from its cells (see struct side). */
static void ident_fill(struct session_ident *id, const struct side *d)
{
	long long q;
	memset(id, 0, sizeof *id);
	id->known = d->ident;
	if (!d->ident)
		return;
	if (d->trx_id) {
		cell_copy(id->trx_id, sizeof id->trx_id, d->trx_id);
		cell_copy(id->trx_started, sizeof id->trx_started, d->trx_started);
	}
	if (parse_id(d->query_id, &q))
		id->query_id = q;
}

static void session_fill(struct lock_session *s, const struct side *d)
{
	double v;
	if (d->user)
		cell_copy(s->user, sizeof s->user, d->user);
	if (d->command) {
		bool in_trx = num(d->trx_age, &v);
		if (strcasecmp(d->command, "Sleep") == 0)
			str_copy(s->state, sizeof s->state, in_trx ? "idle in transaction" : "Sleep");
		else if (d->state && *d->state)
			str_printf(s->state, sizeof s->state, "%s (%s)", d->command, d->state);
		else
			str_copy(s->state, sizeof s->state, d->command);
		text_sanitize(s->state);
	}
	if (num(d->time, &v))
		s->state_s = v;
	if (num(d->trx_age, &v))
		s->trx_age_s = v;
	if (num(d->wait, &v))
		s->wait_s = v;
	if (d->query)
		lock_session_query(s, d->query, false);
	else if (d->last && (!s->query || s->query_is_last))
		lock_session_query(s, d->last, true);
	if (d->ident || !s->ident.known)
		ident_fill(&s->ident, d);
}

/* Read a backquoted identifier at *p (`` is a quote) into out; advances *p. */
static bool bq_ident(const char **p, char *out, size_t len)
{
	const char *s = *p;
	size_t n = 0;
	if (*s != '`')
		return false;
	for (s++; *s; s++) {
		if (*s == '`') {
			if (s[1] != '`')
				break;
			s++;
		}
		if (n + 1 < len)
			out[n++] = *s;
	}
	out[n] = '\0';
	if (*s != '`')
		return false;
	*p = s + 1;
	return true;
}

/* MariaDB LOCK_TABLE `db`.`table` (anything after it, e.g. a partition
 * comment, is dropped) to db.table; other text is kept as it is. */
static void unquote_table(const char *in, char *out, size_t len)
{
	char a[80], b[80];
	const char *p = in;
	if (bq_ident(&p, a, sizeof a)) {
		if (*p == '.' && (p++, bq_ident(&p, b, sizeof b)))
			str_printf(out, len, "%s.%s", a, b);
		else
			str_copy(out, len, a);
	} else {
		str_copy(out, len, in);
	}
}

/* schema.table.index, parts that are NULL or "" left out. */
static void object_name(char *out, size_t len, const char *schema, const char *table,
			const char *index)
{
	char t[160];
	size_t n = 0;
	out[0] = '\0';
	t[0] = '\0';
	if (table) {
		if (!schema && table[0] == '`')
			unquote_table(table, t, sizeof t);
		else
			str_copy(t, sizeof t, table);
	}
	const char *parts[3] = {schema, t, index};
	for (int i = 0; i < 3; i++) {
		if (!parts[i] || !*parts[i])
			continue;
		n += str_printf(out + n, len - n, "%s%s", n ? "." : "", parts[i]);
	}
	text_sanitize(out);
}

/* The edge k has the same ends and locks as f (a repeated row). */
static bool same_edge(const struct lock_set *ls, size_t k, long long wid, long long bid,
		      const struct lock_edge *f)
{
	const struct lock_edge *e = &ls->e[k];
	return ls->s[e->waiter].id == wid && ls->s[e->blocker].id == bid && e->soft == f->soft &&
	       strcmp(e->object, f->object) == 0 && strcmp(e->lock_type, f->lock_type) == 0 &&
	       strcmp(e->requested, f->requested) == 0 && strcmp(e->held, f->held) == 0 &&
	       strcmp(e->lock_data, f->lock_data) == 0;
}

void mysql_locks_map_row(struct lock_set *ls, const char *const *cell, int ncells)
{
	long long wid, bid = 0;
	struct lock_edge f;
	if (!ls || !cell || ncells < MYL_IDENT_FIRST || !parse_id(cell[MYL_W_ID], &wid))
		return;
	if (cell[MYL_B_ID] && !parse_id(cell[MYL_B_ID], &bid))
		return;
	if (wid == bid)
		return;
	memset(&f, 0, sizeof f);
	f.soft = cell[MYL_HELD_STATUS] && strcasecmp(cell[MYL_HELD_STATUS], "PENDING") == 0;
	if (cell[MYL_LOCK_TYPE] && strcmp(cell[MYL_LOCK_TYPE], "METADATA") == 0 &&
	    !mysql_mdl_conflicts(mysql_mdl_type(cell[MYL_REQUESTED]), mysql_mdl_type(cell[MYL_HELD]),
				 f.soft))
		return;
	object_name(f.object, sizeof f.object, cell[MYL_SCHEMA], cell[MYL_TABLE], cell[MYL_INDEX]);
	cell_copy(f.lock_type, sizeof f.lock_type, cell[MYL_LOCK_TYPE]);
	cell_copy(f.requested, sizeof f.requested, cell[MYL_REQUESTED]);
	cell_copy(f.held, sizeof f.held, cell[MYL_HELD]);
	cell_copy(f.lock_data, sizeof f.lock_data,
		  cell[MYL_LOCK_DATA] ? cell[MYL_LOCK_DATA] : cell[MYL_HELD_DATA]);
	if (!f.object[0])
		str_copy(f.object, sizeof f.object, f.lock_data);

	bool repeat = false;
	for (size_t k = 0; k < ls->ne && !repeat; k++)
		repeat = same_edge(ls, k, wid, bid, &f);
	if (!repeat) {
		struct lock_edge *e = lock_edge_add(ls, wid, bid);
		f.waiter = e->waiter;
		f.blocker = e->blocker;
		f.root = e->root;
		*e = f;
	}
	bool id = ncells >= MYL__COUNT;
	const struct side w = {
		cell[MYL_W_USER], cell[MYL_W_COMMAND], cell[MYL_W_STATE], cell[MYL_W_TIME],
		cell[MYL_W_TRX_AGE], cell[MYL_W_WAIT], cell[MYL_W_QUERY], NULL,
		id, id ? cell[MYL_W_TRX_ID] : NULL, id ? cell[MYL_W_TRX_STARTED] : NULL,
		id ? cell[MYL_W_QUERY_ID] : NULL,
	};
	const struct side b = {
		cell[MYL_B_USER], cell[MYL_B_COMMAND], cell[MYL_B_STATE], cell[MYL_B_TIME],
		cell[MYL_B_TRX_AGE], cell[MYL_B_WAIT], cell[MYL_B_QUERY], cell[MYL_B_LAST],
		id, id ? cell[MYL_B_TRX_ID] : NULL, id ? cell[MYL_B_TRX_STARTED] : NULL,
		id ? cell[MYL_B_QUERY_ID] : NULL,
	};
	/* lock_session_get may move ls->s: index first, then the pointer */
	int wi = lock_session_get(ls, wid), bi = lock_session_get(ls, bid);
	struct lock_session *bs = &ls->s[bi];
	session_fill(&ls->s[wi], &w);
	session_fill(bs, &b);
	if (!cell[MYL_B_ID] && !bs->state[0])
		str_copy(bs->state, sizeof bs->state, "no client session");
}

/* ---- acting on the session that was seen ---------------------------------- */

/* Only digits (a trx_id), or digits, '-', ':', ' ' and '.' (a DATETIME). */
static bool plain(const char *s, bool datetime)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && !(datetime && strchr("-: .", *s)))
			return false;
	return true;
}

bool mysql_ident_cond(const struct session_ident *who, bool cancel, bool mariadb, char *buf, size_t len)
{
	size_t n;
	if (!who->known)
		return false;
	bool q = mariadb && who->query_id > 0;
	bool stmt = cancel || !who->trx_id[0] || strcmp(who->trx_id, "0") == 0;
	if (who->trx_id[0]) {
		if (!plain(who->trx_id, false) || !plain(who->trx_started, true))
			return false;
		if (q && !stmt)
			/* MariaDB, a kill: no statement since (QUERY_ID, read
			 * live) is the same transaction, whatever INNODB_TRX's
			 * cached copy says */
			n = str_printf(buf, len, "(p.QUERY_ID = %lld OR x.trx_id = '%s' AND x.trx_started = '%s')",
				       who->query_id, who->trx_id, who->trx_started);
		else
			n = str_printf(buf, len, "x.trx_id = '%s' AND x.trx_started = '%s'", who->trx_id,
				       who->trx_started);
	} else {
		n = str_printf(buf, len, "x.trx_id IS NULL");
	}
	if (stmt && q)
		str_printf(buf + n, len - n, " AND p.QUERY_ID = %lld", who->query_id);
	return true;
}

char *mysql_ident_sql(enum flavour fl, long long id, char *buf, size_t len)
{
	str_printf(buf, len,
		   "SELECT x.trx_id, x.trx_started, %s FROM information_schema.PROCESSLIST p "
		   "LEFT JOIN information_schema.INNODB_TRX x ON x.trx_mysql_thread_id = p.ID WHERE p.ID = %lld",
		   fl == FLAVOUR_MARIADB ? "p.QUERY_ID" : "NULL", id);
	return buf;
}

/* ---- statements: tables and the lock they ask for ---------------------------- */

enum tok_kind { TK_END, TK_WORD, TK_QIDENT, TK_PUNCT, TK_OTHER };

struct lexer {
	const char *p;
	enum tok_kind kind;
	char text[MYL_NAME_MAX];
	char prev[32];           /* the word before the current token ("" if none) */
};

static bool word_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

static void lex(struct lexer *lx)
{
	const char *p = lx->p;
	size_t n = 0;
	if (lx->kind == TK_WORD)
		str_copy(lx->prev, sizeof lx->prev, lx->text);
	else
		lx->prev[0] = '\0';
	lx->text[0] = '\0';
	for (;;) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			p = e ? e + 2 : p + strlen(p);
		} else if (*p == '#' || (p[0] == '-' && p[1] == '-' && (!p[2] || isspace((unsigned char)p[2])))) {
			while (*p && *p != '\n')
				p++;
		} else {
			break;
		}
	}
	if (!*p) {
		lx->kind = TK_END;
	} else if (*p == '\'' || *p == '"') {
		char q = *p++;
		while (*p) {
			if (*p == '\\' && p[1]) {
				p += 2;
			} else if (*p == q && p[1] == q) {
				p += 2;
			} else if (*p == q) {
				break;
			} else {
				p++;
			}
		}
		if (*p)
			p++;
		lx->kind = TK_OTHER;
	} else if (*p == '`') {
		if (bq_ident(&p, lx->text, sizeof lx->text))
			lx->kind = TK_QIDENT;
		else
			p += strlen(p), lx->kind = TK_END;
	} else if (word_char((unsigned char)*p)) {
		while (word_char((unsigned char)*p)) {
			if (n + 1 < sizeof lx->text)
				lx->text[n++] = *p;
			p++;
		}
		lx->text[n] = '\0';
		lx->kind = TK_WORD;
	} else {
		lx->text[0] = *p++;
		lx->text[1] = '\0';
		lx->kind = TK_PUNCT;
	}
	lx->p = p;
}

static bool is_word(const struct lexer *lx, const char *w)
{
	return lx->kind == TK_WORD && strcasecmp(lx->text, w) == 0;
}

static bool is_punct(const struct lexer *lx, char c)
{
	return lx->kind == TK_PUNCT && lx->text[0] == c;
}

static const char *const intro_words[] = {"FROM", "JOIN", "INTO", "UPDATE", "TABLE", "TABLES",
					 "TRUNCATE"};

static bool is_intro(const struct lexer *lx, bool on_too)
{
	if (lx->kind != TK_WORD)
		return false;
	for (size_t i = 0; i < sizeof intro_words / sizeof intro_words[0]; i++)
		if (strcasecmp(lx->text, intro_words[i]) == 0)
			return true;
	return on_too && strcasecmp(lx->text, "ON") == 0;
}

static bool add_table(char out[][MYL_NAME_MAX], int *n, int max, const char *schema, const char *table)
{
	char t[MYL_NAME_MAX];
	str_printf(t, sizeof t, "%s.%s", schema ? schema : "", table);
	for (int i = 0; i < *n; i++)
		if (strcasecmp(out[i], t) == 0)
			return true;
	if (*n >= max)
		return false;
	str_copy(out[(*n)++], MYL_NAME_MAX, t);
	return true;
}

int mysql_stmt_tables(const char *sql, const char *db, char out[][MYL_NAME_MAX], int max)
{
	struct lexer lx = {.p = sql ? sql : "", .kind = TK_END};
	int n = 0;
	bool on_too;
	lex(&lx);
	on_too = is_word(&lx, "CREATE") || is_word(&lx, "DROP");
	while (lx.kind != TK_END) {
		/* SELECT ... FOR UPDATE and ON DUPLICATE KEY UPDATE name no table */
		bool skip = is_word(&lx, "UPDATE") && (strcasecmp(lx.prev, "FOR") == 0 ||
							strcasecmp(lx.prev, "KEY") == 0);
		if (!is_intro(&lx, on_too) || skip) {
			lex(&lx);
			continue;
		}
		lex(&lx);
		if (is_word(&lx, "IF")) {       /* IF [NOT] EXISTS */
			lex(&lx);
			if (is_word(&lx, "NOT"))
				lex(&lx);
			if (is_word(&lx, "EXISTS"))
				lex(&lx);
		}
		for (;;) {
			char a[MYL_NAME_MAX], b[MYL_NAME_MAX];
			if (lx.kind != TK_WORD && lx.kind != TK_QIDENT)
				break;
			if (is_intro(&lx, on_too) && lx.kind == TK_WORD)
				break;
			str_copy(a, sizeof a, lx.text);
			lex(&lx);
			if (is_punct(&lx, '.')) {
				lex(&lx);
				if (lx.kind != TK_WORD && lx.kind != TK_QIDENT)
					break;
				str_copy(b, sizeof b, lx.text);
				lex(&lx);
				if (!add_table(out, &n, max, a, b))
					return n;
			} else if (!add_table(out, &n, max, db, a)) {
				return n;
			}
			/* an alias, or READ / WRITE [LOCAL] of LOCK TABLES: up to
			 * three words, then a comma continues the list */
			for (int k = 0; k < 3 && (lx.kind == TK_WORD || lx.kind == TK_QIDENT) &&
					!is_intro(&lx, on_too); k++)
				lex(&lx);
			if (!is_punct(&lx, ','))
				break;
			lex(&lx);
		}
	}
	return n;
}

enum mdl_type mysql_stmt_mdl(const char *sql)
{
	static const struct {
		const char *word;
		enum mdl_type t;
	} first[] = {
		{"ALTER", MDL_T_X}, {"CREATE", MDL_T_X}, {"DROP", MDL_T_X}, {"RENAME", MDL_T_X},
		{"TRUNCATE", MDL_T_X}, {"OPTIMIZE", MDL_T_X}, {"REPAIR", MDL_T_X},
		{"INSERT", MDL_T_SW}, {"UPDATE", MDL_T_SW}, {"DELETE", MDL_T_SW},
		{"REPLACE", MDL_T_SW}, {"LOAD", MDL_T_SW},
		{"SELECT", MDL_T_SR}, {"WITH", MDL_T_SR}, {"TABLE", MDL_T_SR}, {"EXPLAIN", MDL_T_SR},
		{"SHOW", MDL_T_SH}, {"DESC", MDL_T_SH}, {"DESCRIBE", MDL_T_SH},
	};
	struct lexer lx = {.p = sql ? sql : "", .kind = TK_END};
	lex(&lx);
	while (is_punct(&lx, '('))
		lex(&lx);
	if (is_word(&lx, "LOCK")) {
		for (lex(&lx); lx.kind != TK_END; lex(&lx))
			if (is_word(&lx, "WRITE"))
				return MDL_T_SNRW;
		return MDL_T_SRO;
	}
	for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
		if (!is_word(&lx, first[i].word))
			continue;
		if (first[i].t == MDL_T_SR)
			for (lex(&lx); lx.kind != TK_END; lex(&lx))
				if (is_word(&lx, "UPDATE") && strcasecmp(lx.prev, "FOR") == 0)
					return MDL_T_SW;
		return first[i].t;
	}
	return MDL_T_UNKNOWN;
}

/* ---- MariaDB metadata locks --------------------------------------------------- */

char *mariadb_mdl_sql(bool have_plugin, unsigned ms, char *buf, size_t len)
{
	struct strbuf b;
	sb_init(&b);
	select_head(&b, FLAVOUR_MARIADB, ms);
	/* clang-format off */
	sb_puts(&b, "'W', p.ID, p.USER, p.COMMAND, p.STATE, p.TIME_MS / 1000, " MYL_AGE("x.trx_started")
		", p.INFO, p.DB, NULL, NULL, NULL, x.trx_id, x.trx_started, p.QUERY_ID "
		"FROM information_schema.PROCESSLIST p "
		"LEFT JOIN information_schema.INNODB_TRX x ON x.trx_mysql_thread_id = p.ID "
		"WHERE p.STATE LIKE 'Waiting for%metadata lock'");
	if (have_plugin)
		sb_puts(&b, " UNION ALL SELECT 'H', m.THREAD_ID, p.USER, p.COMMAND, p.STATE, "
			"p.TIME_MS / 1000, " MYL_AGE("x.trx_started") ", p.INFO, p.DB, m.LOCK_MODE, "
			"m.TABLE_SCHEMA, m.TABLE_NAME, x.trx_id, x.trx_started, p.QUERY_ID "
			"FROM information_schema.METADATA_LOCK_INFO m "
			"LEFT JOIN information_schema.PROCESSLIST p ON p.ID = m.THREAD_ID "
			"LEFT JOIN information_schema.INNODB_TRX x ON x.trx_mysql_thread_id = m.THREAD_ID "
			"WHERE m.LOCK_TYPE = 'Table metadata lock'");
	/* clang-format on */
	return sb_out(&b, buf, len);
}

#define MDL_MAX_TABLES 8

struct mdl_waiter {
	long long id;
	double time;
	bool table_wait;         /* waits for a table metadata lock */
	bool paired;
	enum mdl_type req;
	int nt;
	char tables[MDL_MAX_TABLES][MYL_NAME_MAX];
};

struct mdl_holder {
	long long id;
	enum mdl_type mode;
	char table[MYL_NAME_MAX]; /* schema.table */
	char *user, *command, *state, *time, *trx_age, *info;
	bool ident;
	char *trx_id, *trx_started, *query_id;
};

struct mariadb_mdl {
	bool have_plugin;
	struct mdl_waiter *w;
	size_t nw, cap_w;
	struct mdl_holder *h;
	size_t nh, cap_h;
};

struct mariadb_mdl *mariadb_mdl_new(bool have_plugin)
{
	struct mariadb_mdl *m = xcalloc(1, sizeof *m);
	m->have_plugin = have_plugin;
	return m;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void mariadb_mdl_map_row(struct mariadb_mdl *m, struct lock_set *ls, const char *const *cell,
			 int ncells)
{
	long long id;
	if (!m || !ls || !cell || ncells < MMD_IDENT_FIRST || !cell[MMD_KIND] ||
	    !parse_id(cell[MMD_ID], &id))
		return;
	bool ident = ncells >= MMD__COUNT;
	const char *trx_id = ident ? cell[MMD_TRX_ID] : NULL, *trx_started = ident ? cell[MMD_TRX_STARTED] : NULL,
		   *query_id = ident ? cell[MMD_QUERY_ID] : NULL;
	if (cell[MMD_KIND][0] == 'W') {
		struct side d = {
			cell[MMD_USER], cell[MMD_COMMAND], cell[MMD_STATE], cell[MMD_TIME],
			cell[MMD_TRX_AGE], cell[MMD_TIME], cell[MMD_INFO], NULL,
			ident, trx_id, trx_started, query_id,
		};
		int si = lock_session_get(ls, id);
		session_fill(&ls->s[si], &d);
		if (m->nw == m->cap_w) {
			m->cap_w = m->cap_w ? m->cap_w * 2 : 8;
			m->w = xrealloc(m->w, m->cap_w * sizeof *m->w);
		}
		struct mdl_waiter *w = &m->w[m->nw++];
		memset(w, 0, sizeof *w);
		w->id = id;
		if (!num(cell[MMD_TIME], &w->time))
			w->time = 0;
		w->table_wait = cell[MMD_STATE] && strstr(cell[MMD_STATE], "table metadata lock");
		w->req = mysql_stmt_mdl(cell[MMD_INFO]);
		w->nt = mysql_stmt_tables(cell[MMD_INFO], cell[MMD_DB], w->tables, MDL_MAX_TABLES);
	} else if (cell[MMD_KIND][0] == 'H' && cell[MMD_TABLE]) {
		if (m->nh == m->cap_h) {
			m->cap_h = m->cap_h ? m->cap_h * 2 : 16;
			m->h = xrealloc(m->h, m->cap_h * sizeof *m->h);
		}
		struct mdl_holder *h = &m->h[m->nh++];
		memset(h, 0, sizeof *h);
		h->id = id;
		h->mode = mysql_mdl_type(cell[MMD_MODE]);
		str_printf(h->table, sizeof h->table, "%s.%s", cell[MMD_SCHEMA] ? cell[MMD_SCHEMA] : "",
			   cell[MMD_TABLE]);
		h->user = dup_or_null(cell[MMD_USER]);
		h->command = dup_or_null(cell[MMD_COMMAND]);
		h->state = dup_or_null(cell[MMD_STATE]);
		h->time = dup_or_null(cell[MMD_TIME]);
		h->trx_age = dup_or_null(cell[MMD_TRX_AGE]);
		h->info = dup_or_null(cell[MMD_INFO]);
		h->ident = ident;
		h->trx_id = dup_or_null(trx_id);
		h->trx_started = dup_or_null(trx_started);
		h->query_id = dup_or_null(query_id);
	}
}

/* "schema.table" a names the same table as b; an empty schema (an
 * unqualified name with no current database) matches any. */
static bool table_match(const char *a, const char *b)
{
	const char *da = strchr(a, '.'), *db = strchr(b, '.');
	if (!da || !db || strcasecmp(da + 1, db + 1) != 0)
		return false;
	if (da == a || db == b)
		return true;
	return da - a == db - b && strncasecmp(a, b, (size_t)(da - a)) == 0;
}

/* The first table of w that also names t (or one of u's tables, when u
 * is set); NULL when none. */
static const char *shared_table(const struct mdl_waiter *w, const char *t, const struct mdl_waiter *u)
{
	for (int i = 0; i < w->nt; i++) {
		if (t && table_match(w->tables[i], t))
			return w->tables[i];
		for (int j = 0; u && j < u->nt; j++)
			if (table_match(w->tables[i], u->tables[j]))
				return w->tables[i];
	}
	return NULL;
}

static bool edge_exists(const struct lock_set *ls, long long wid, long long bid, const char *object)
{
	for (size_t k = 0; k < ls->ne; k++)
		if (ls->s[ls->e[k].waiter].id == wid && ls->s[ls->e[k].blocker].id == bid &&
		    strcmp(ls->e[k].object, object) == 0)
			return true;
	return false;
}

static void mdl_edge(struct lock_set *ls, const struct mdl_waiter *w, long long bid,
		     const char *table, enum mdl_type held, bool soft)
{
	char obj[160];
	str_copy(obj, sizeof obj, table[0] == '.' ? table + 1 : table);
	text_sanitize(obj);
	if (edge_exists(ls, w->id, bid, obj))
		return;
	struct lock_edge *e = lock_edge_add(ls, w->id, bid);
	if (!e)
		return;
	str_copy(e->object, sizeof e->object, obj);
	str_copy(e->lock_type, sizeof e->lock_type, "METADATA");
	str_copy(e->requested, sizeof e->requested,
		 w->req == MDL_T_UNKNOWN ? "unknown" : mysql_mdl_name(w->req));
	str_copy(e->held, sizeof e->held, held == MDL_T_UNKNOWN ? "unknown" : mysql_mdl_name(held));
	str_copy(e->lock_data, sizeof e->lock_data,
		 soft ? "requested modes inferred from the statements"
		      : "requested mode inferred from the statement");
	e->soft = soft;
}

static void note_add(struct lock_set *ls, const char *text)
{
	if (ls->note[0]) {
		size_t n = strlen(ls->note);
		str_printf(ls->note + n, sizeof ls->note - n, "; %s", text);
	} else {
		str_copy(ls->note, sizeof ls->note, text);
	}
	text_sanitize(ls->note);
}

void mariadb_mdl_finish(struct mariadb_mdl *m, struct lock_set *ls)
{
	char note[LOCK_NOTE_LEN];
	unsigned unpaired = 0;
	if (!m)
		return;
	for (size_t i = 0; ls && i < m->nw; i++) {
		struct mdl_waiter *w = &m->w[i];
		if (!w->table_wait)
			continue;
		for (size_t j = 0; j < m->nh; j++) {
			const struct mdl_holder *h = &m->h[j];
			if (h->id == w->id || !mysql_mdl_conflicts(w->req, h->mode, false) ||
			    !shared_table(w, h->table, NULL))
				continue;
			size_t ne = ls->ne;
			mdl_edge(ls, w, h->id, h->table, h->mode, false);
			if (ls->ne == ne)
				continue;
			w->paired = true;
			/* MariaDB keeps no last statement of an idle session */
			struct side d = {h->user, h->command, h->state, h->time, h->trx_age, NULL, h->info, NULL,
					 h->ident, h->trx_id, h->trx_started, h->query_id};
			session_fill(&ls->s[ls->e[ls->ne - 1].blocker], &d);
		}
		for (size_t j = 0; j < m->nw; j++) {
			const struct mdl_waiter *u = &m->w[j];
			const char *t;
			/* u queued first: it has waited longer (ties: lower id) */
			if (u->id == w->id || !u->table_wait ||
			    !(u->time > w->time || (u->time == w->time && u->id < w->id)) ||
			    !mysql_mdl_conflicts(w->req, u->req, true) || !(t = shared_table(w, NULL, u)))
				continue;
			mdl_edge(ls, w, u->id, t, u->req, true);
			w->paired = true;
		}
		if (!w->paired)
			unpaired++;
	}
	if (ls && m->nw > 0 && !m->have_plugin) {
		str_printf(note, sizeof note,
			   "metadata-lock waits: %zu session%s wait%s; the holder is unknown without the "
			   "metadata_lock_info plugin (INSTALL SONAME 'metadata_lock_info')",
			   m->nw, m->nw == 1 ? "" : "s", m->nw == 1 ? "s" : "");
		note_add(ls, note);
	} else if (ls && unpaired > 0) {
		str_printf(note, sizeof note,
			   "metadata-lock waits: %u session%s wait%s for a lock whose holder was not found "
			   "(statement not understood, or not a table lock)",
			   unpaired, unpaired == 1 ? "" : "s", unpaired == 1 ? "s" : "");
		note_add(ls, note);
	}
	for (size_t j = 0; j < m->nh; j++) {
		free(m->h[j].user);
		free(m->h[j].command);
		free(m->h[j].state);
		free(m->h[j].time);
		free(m->h[j].trx_age);
		free(m->h[j].info);
		free(m->h[j].trx_id);
		free(m->h[j].trx_started);
		free(m->h[j].query_id);
	}
	free(m->h);
	free(m->w);
	free(m);
}
