/* sessions_map.c - the session list's SQL and row mappers, and explain's
 * checks (see sessions_map.h). */
#include "sessions_map.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../model/sessions.h"
#include "../util/util.h"
#include "pg_locks_map.h"

#define LIMIT_TEXT SESSIONS_LIMIT_TEXT
_Static_assert(SESSIONS_ROW_LIMIT == 20000, "SESSIONS_LIMIT_TEXT is SESSIONS_ROW_LIMIT + 1");

/* One scan of pg_stat_activity (the CTE, read twice, is materialised once):
 * the rows, then one summary row (pid NULL) with the idle sessions not
 * listed and the sessions waiting for a lock (the lock graph's gate). With
 * idle left out, client backends in state idle are only counted.
 * A waiter's blockers: the holders of a conflicting lock on the target it
 * waits for (the lock graph's hard edges, one join over pg_locks, read
 * only when a session waits on a lock); pg_blocking_pids() only for a
 * waiter with none (it queues behind another request). pg_blocking_pids()
 * for every waiter cost most of the list (2,650 sessions, 500 queued for
 * one row: 49.8 ms, 31.6 with the join, 22.5 without blockers) and lists
 * every request queued ahead as well. */
/* clang-format off */
#define PG_COLS(qid) \
	"SELECT a.pid, a.usename, a.datname, host(a.client_addr), a.client_port, a.application_name, " \
	"a.backend_type, a.state, a.wait_event_type, a.wait_event, " \
	"extract(epoch FROM now() - a.state_change), extract(epoch FROM now() - a.xact_start), " \
	"extract(epoch FROM now() - a.query_start), a.query, " qid ", a.usesysid, a.datid, " \
	"CASE WHEN a.wait_event_type = 'Lock' " \
	"THEN coalesce(hb.b, pg_blocking_pids(a.pid)::text) END, " \
	PG_US("a.backend_start") ", " PG_US("a.xact_start") ", " PG_US("a.query_start") ", " \
	"a.pid = pg_backend_pid(), NULL::bigint, NULL::bigint " \
	"FROM a LEFT JOIN hb ON hb.pid = a.pid "
#define PG_IDLE "a.state = 'idle' AND a.backend_type = 'client backend'"
#define PG_SUMMARY(idle) \
	") UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, " \
	"NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, " idle ", " \
	"count(*) FILTER (WHERE a.wait_event_type = 'Lock') FROM a"
#define PG_BLOCKERS \
	", l AS MATERIALIZED (" \
	PGL_LOCKS_SQL("") \
	" WHERE EXISTS (SELECT 1 FROM a WHERE a.wait_event_type = 'Lock'))," \
	" hb AS (SELECT w.pid, array_agg(DISTINCT bl.gpid ORDER BY bl.gpid)::text AS b" \
	PGL_HARD_EDGES \
	" GROUP BY w.pid) "
#define PG_SQL(qid, where, idle) \
	"WITH a AS (SELECT * FROM pg_stat_activity)" PG_BLOCKERS \
	"(" PG_COLS(qid) where "ORDER BY a.pid LIMIT " LIMIT_TEXT PG_SUMMARY(idle)
/* clang-format on */
static const char *const pg_sql_14 = PG_SQL("a.query_id", "", "0");
static const char *const pg_sql_13 = PG_SQL("NULL::bigint", "", "0");
static const char *const pg_sql_14_busy =
	PG_SQL("a.query_id", "WHERE (" PG_IDLE ") IS NOT TRUE ", "count(*) FILTER (WHERE " PG_IDLE ")");
static const char *const pg_sql_13_busy =
	PG_SQL("NULL::bigint", "WHERE (" PG_IDLE ") IS NOT TRUE ", "count(*) FILTER (WHERE " PG_IDLE ")");

const char *sessions_pg_sql(long version_num, bool idle)
{
	if (version_num >= 140000)
		return idle ? pg_sql_14 : pg_sql_14_busy;
	return idle ? pg_sql_13 : pg_sql_13_busy;
}

char *sessions_pg_sql_timed(char *buf, size_t len, long version_num, long timeout_ms, bool idle)
{
	if (timeout_ms < 1)
		timeout_ms = 1;
	size_t n = str_printf(buf, len, "SET LOCAL statement_timeout = %ld; %s", timeout_ms,
			      sessions_pg_sql(version_num, idle));
	return n + 1 >= len ? NULL : buf;   /* str_printf cuts: a full buffer may be cut */
}

static const char *col(const char *const *cell, int ncells, int i)
{
	return i < ncells ? cell[i] : NULL;
}

static double num(const char *v)
{
	char *end;
	if (!v || !*v)
		return NAN;
	double d = strtod(v, &end);
	if (end == v)
		return NAN;
	return d < 0 ? 0 : d;
}

static long long int_or0(const char *v)
{
	return v ? strtoll(v, NULL, 10) : 0;
}

/* Copy a cell into a field, sanitised; "" for NULL. */
static void field(char *dst, size_t len, const char *v)
{
	str_copy(dst, len, v ? v : "");
	text_sanitize(dst);
}

/* Rows past the limit mark the set cut (note), once. */
static bool over_limit(struct session_set *ss)
{
	if (ss->n < SESSIONS_ROW_LIMIT)
		return false;
	if (!strstr(ss->note, "first"))
		str_printf(ss->note, sizeof ss->note, "only the first %d sessions are listed", SESSIONS_ROW_LIMIT);
	return true;
}

/* pg_blocking_pids' array ("{12,34}"): the first blocker and how many. */
static void pg_blockers(struct session *s, const char *bl)
{
	if (!bl)
		return;
	for (const char *p = bl; *p; p++) {
		if (isdigit((unsigned char)*p) && (p == bl || !isdigit((unsigned char)p[-1]))) {
			if (!s->nblockers)
				s->blocked_by = strtoll(p, NULL, 10);
			s->nblockers++;
		}
	}
}

/* PostgreSQL: who may not see others' sessions, found in the rows. */
#define PG_HIDDEN "<insufficient privilege>"

void sessions_pg_row(struct session_set *ss, const char *const *cell, int ncells)
{
	const char *pid = col(cell, ncells, SPG_PID);
	if (!pid) {
		/* the summary row */
		const char *idle = col(cell, ncells, SPG_IDLE_UNREAD);
		if (idle)
			ss->idle_unread = (unsigned)int_or0(idle);
		return;
	}
	if (over_limit(ss))
		return;
	struct session *s = session_add(ss, int_or0(pid));
	field(s->user, sizeof s->user, col(cell, ncells, SPG_USER));
	field(s->db, sizeof s->db, col(cell, ncells, SPG_DB));
	/* the role and database themselves (their names above are made safe
	 * for a terminal) */
	long long uid = int_or0(col(cell, ncells, SPG_USERID)), did = int_or0(col(cell, ncells, SPG_DBID));
	s->user_oid = uid > 0 && uid <= 0xffffffffLL ? (unsigned)uid : 0;
	s->db_oid = did > 0 && did <= 0xffffffffLL ? (unsigned)did : 0;
	field(s->app, sizeof s->app, col(cell, ncells, SPG_APP));
	field(s->type, sizeof s->type, col(cell, ncells, SPG_TYPE));
	const char *addr = col(cell, ncells, SPG_ADDR), *port = col(cell, ncells, SPG_PORT);
	if (addr)
		str_printf(s->client, sizeof s->client, "%s%s%s", addr, port && strcmp(port, "-1") ? ":" : "",
			   port && strcmp(port, "-1") ? port : "");
	else if (port && strcmp(port, "-1") == 0)
		str_copy(s->client, sizeof s->client, "[local]");
	text_sanitize(s->client);
	const char *st = col(cell, ncells, SPG_STATE);
	field(s->state, sizeof s->state, st);
	const char *wt = col(cell, ncells, SPG_WAIT_TYPE), *we = col(cell, ncells, SPG_WAIT);
	if (wt || we)
		str_printf(s->wait, sizeof s->wait, "%s%s%s", wt ? wt : "", wt && we ? ":" : "", we ? we : "");
	text_sanitize(s->wait);
	s->state_s = num(col(cell, ncells, SPG_STATE_S));
	s->trx_age_s = num(col(cell, ncells, SPG_XACT_S));
	s->query_s = num(col(cell, ncells, SPG_QUERY_S));
	bool active = st && strcmp(st, "active") == 0;
	const char *q = col(cell, ncells, SPG_QUERY);
	if (q && strcmp(q, PG_HIDDEN) == 0) {
		ss->status = SESS_PARTIAL;
		q = NULL;
	}
	session_set_query_from(s, ss->texts, q && q[0] ? q : NULL, !active);
	const char *qid = col(cell, ncells, SPG_QUERY_ID);
	if (qid && strcmp(qid, "0") != 0)
		str_printf(s->digest, sizeof s->digest, "%s:%s:%s:t", col(cell, ncells, SPG_USERID) ? col(cell, ncells, SPG_USERID) : "",
			   col(cell, ncells, SPG_DBID) ? col(cell, ncells, SPG_DBID) : "", qid);
	text_sanitize(s->digest);
	pg_blockers(s, col(cell, ncells, SPG_BLOCKERS));
	const char *self = col(cell, ncells, SPG_SELF);
	s->self = self && self[0] == 't';
	const char *bus = col(cell, ncells, SPG_START_US);
	if (bus) {
		s->ident.known = true;
		s->ident.start_us = int_or0(bus);
		s->ident.xact_us = int_or0(col(cell, ncells, SPG_XACT_US));
		s->ident.stmt_us = int_or0(col(cell, ncells, SPG_QUERY_US));
	}
	if (s->type[0] && strcmp(s->type, "client backend") != 0)
		s->cls = SC_BACKGROUND;
	else if (!st)
		s->cls = SC_OTHER;
	else if (active)
		s->cls = (wt && strcmp(wt, "Lock") == 0) ? SC_LOCK_WAIT : SC_ACTIVE;
	else if (strncmp(st, "idle in transaction", 19) == 0)
		s->cls = SC_IDLE_IN_TRX;
	else if (strcmp(st, "idle") == 0)
		s->cls = SC_IDLE;
	else
		s->cls = SC_OTHER;
}

void sessions_pg_finish(struct session_set *ss, const char *user)
{
	if (ss->status == SESS_PARTIAL) {
		str_printf(ss->note, sizeof ss->note,
			   "other roles' sessions show no state or statement: GRANT pg_read_all_stats TO %s",
			   user && user[0] ? user : "<user>");
		text_sanitize(ss->note);
	}
}

/* MySQL / MariaDB */

#define MY_TRX_AGE "TIMESTAMPDIFF(MICROSECOND, x.trx_started, NOW(6)) / 1000000"

/* MariaDB: the process list alone, not sorted (the join to INNODB_TRX and
 * the sort cost more than the scan: the transactions are read apart and
 * merged on the client, sessions_my_trx_*). */
static const char *const mariadb_sql =
	"SELECT p.ID, p.USER, p.HOST, p.DB, p.COMMAND, p.TIME, p.TIME_MS, p.STATE, p.INFO, NULL, NULL, "
	"p.QUERY_ID, NULL, NULL, NULL, NULL, "
	"NULL, NULL, NULL, NULL, NULL, p.ID = CONNECTION_ID() "
	"FROM information_schema.PROCESSLIST p LIMIT " LIMIT_TEXT;
static const char *const mariadb_trx_sql =
	"SELECT x.trx_mysql_thread_id, x.trx_id, x.trx_state, x.trx_started, " MY_TRX_AGE " "
	"FROM information_schema.INNODB_TRX x";
#define MYSQL_SQL_HEAD \
	"SELECT t.PROCESSLIST_ID, t.PROCESSLIST_USER, t.PROCESSLIST_HOST, t.PROCESSLIST_DB, " \
	"t.PROCESSLIST_COMMAND, t.PROCESSLIST_TIME, NULL, t.PROCESSLIST_STATE, s.SQL_TEXT, " \
	"s.END_EVENT_ID IS NOT NULL, s.TIMER_WAIT / 1000000000000, NULL, "
#define MYSQL_SQL_TAIL \
	"t.TYPE, w.EVENT_NAME, s.CURRENT_SCHEMA, s.DIGEST, a.ATTR_VALUE, t.PROCESSLIST_ID = CONNECTION_ID() " \
	"FROM performance_schema.threads t " \
	"LEFT JOIN performance_schema.events_statements_current s ON s.THREAD_ID = t.THREAD_ID " \
	"AND s.NESTING_EVENT_ID IS NULL " \
	"LEFT JOIN performance_schema.events_waits_current w ON w.THREAD_ID = t.THREAD_ID " \
	"AND w.END_EVENT_ID IS NULL AND w.EVENT_NAME <> 'idle' " \
	"LEFT JOIN performance_schema.session_connect_attrs a ON a.PROCESSLIST_ID = t.PROCESSLIST_ID " \
	"AND a.ATTR_NAME = 'program_name' "
static const char *const mysql_sql =
	MYSQL_SQL_HEAD "x.trx_id, x.trx_state, x.trx_started, " MY_TRX_AGE ", " MYSQL_SQL_TAIL
	"LEFT JOIN information_schema.INNODB_TRX x ON x.trx_mysql_thread_id = t.PROCESSLIST_ID "
	"WHERE t.PROCESSLIST_ID IS NOT NULL ORDER BY t.PROCESSLIST_ID LIMIT " LIMIT_TEXT;
static const char *const mysql_sql_noproc =
	MYSQL_SQL_HEAD "NULL, NULL, NULL, NULL, " MYSQL_SQL_TAIL
	"WHERE t.PROCESSLIST_ID IS NOT NULL ORDER BY t.PROCESSLIST_ID LIMIT " LIMIT_TEXT;

const char *sessions_my_sql(enum flavour fl, bool priv_process)
{
	if (fl == FLAVOUR_MARIADB)
		return mariadb_sql;
	return priv_process ? mysql_sql : mysql_sql_noproc;
}

const char *sessions_my_trx_sql(enum flavour fl, bool priv_process)
{
	return fl == FLAVOUR_MARIADB && priv_process ? mariadb_trx_sql : NULL;
}

void sessions_my_trx_add(struct my_trx_set *ts, const char *const *cell, int ncells)
{
	const char *th = col(cell, ncells, 0);
	if (!th)
		return;
	if (ts->n == ts->cap) {
		ts->cap = ts->cap ? ts->cap * 2 : 16;
		ts->t = xrealloc(ts->t, ts->cap * sizeof *ts->t);
	}
	struct my_trx *t = &ts->t[ts->n++];
	t->thread = int_or0(th);
	for (int i = 0; i < 4; i++) {
		const char *v = col(cell, ncells, i + 1);
		t->cell[i] = v ? xstrdup(v) : NULL;
	}
}

static int trx_cmp(const void *pa, const void *pb)
{
	const struct my_trx *a = pa, *b = pb;
	return a->thread < b->thread ? -1 : a->thread > b->thread;
}

void sessions_my_trx_sort(struct my_trx_set *ts)
{
	if (ts->n > 1)
		qsort(ts->t, ts->n, sizeof *ts->t, trx_cmp);
}

void sessions_my_trx_fill(const struct my_trx_set *ts, const char **cell)
{
	if (!ts->n || !cell[SMY_ID])
		return;
	struct my_trx key = {.thread = int_or0(cell[SMY_ID])};
	const struct my_trx *t = bsearch(&key, ts->t, ts->n, sizeof *ts->t, trx_cmp);
	if (!t)
		return;
	cell[SMY_TRX_ID] = t->cell[0];
	cell[SMY_TRX_STATE] = t->cell[1];
	cell[SMY_TRX_STARTED] = t->cell[2];
	cell[SMY_TRX_AGE_S] = t->cell[3];
}

void sessions_my_trx_free(struct my_trx_set *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		for (int k = 0; k < 4; k++)
			free(ts->t[i].cell[k]);
	free(ts->t);
	memset(ts, 0, sizeof *ts);
}

static bool my_background(const char *user, const char *command, const char *type);
static bool my_lock_state(const char *st);

bool sessions_my_idle(const char *const *cell, int ncells)
{
	const char *cmd = col(cell, ncells, SMY_COMMAND);
	const char *self = col(cell, ncells, SMY_SELF);
	if (!cmd || strcasecmp(cmd, "Sleep") != 0 || col(cell, ncells, SMY_TRX_ID) || (self && self[0] == '1'))
		return false;
	const char *we = col(cell, ncells, SMY_WAIT_EVENT);
	if (my_background(col(cell, ncells, SMY_USER), cmd, col(cell, ncells, SMY_TYPE)) ||
	    my_lock_state(col(cell, ncells, SMY_STATE)) || (we && strncmp(we, "wait/lock/", 10) == 0))
		return false;
	return true;
}

bool sessions_my_mdl_wait(const char *const *cell, int ncells)
{
	const char *st = col(cell, ncells, SMY_STATE);
	size_t n = st ? strlen(st) : 0, pre = strlen("Waiting for"), suf = strlen("metadata lock");
	return n >= pre + suf && strncasecmp(st, "Waiting for", pre) == 0 &&
	       strcasecmp(st + n - suf, "metadata lock") == 0;
}

/* A thread of the server's own rather than a client's. */
static bool my_background(const char *user, const char *command, const char *type)
{
	static const char *const cmds[] = {"Daemon", "Binlog Dump", "Binlog Dump GTID", "Slave_IO", "Slave_SQL",
					   "Slave_worker", "Connect Out", "Register Slave", NULL};
	if (type && strcasecmp(type, "BACKGROUND") == 0)
		return true;
	if (user && (strcmp(user, "system user") == 0 || strcmp(user, "event_scheduler") == 0))
		return true;
	for (int i = 0; command && cmds[i]; i++)
		if (strcasecmp(command, cmds[i]) == 0)
			return true;
	return false;
}

/* A PROCESSLIST STATE that is a lock wait (metadata, table, user locks). */
static bool my_lock_state(const char *st)
{
	return st && strncasecmp(st, "Waiting for", 11) == 0 && strcasestr(st, "lock");
}

void sessions_my_row(struct session_set *ss, enum flavour fl, const char *const *cell, int ncells)
{
	const char *id = col(cell, ncells, SMY_ID);
	if (!id || over_limit(ss))
		return;
	long long iv = int_or0(id);
	/* a thread with two current waits / statements: its first row */
	if (ss->n && ss->s[ss->n - 1].id == iv)
		return;
	struct session *s = session_add(ss, iv);
	const char *user = col(cell, ncells, SMY_USER), *cmd = col(cell, ncells, SMY_COMMAND);
	const char *state = col(cell, ncells, SMY_STATE), *type = col(cell, ncells, SMY_TYPE);
	field(s->user, sizeof s->user, user);
	field(s->db, sizeof s->db, col(cell, ncells, SMY_DB));
	field(s->client, sizeof s->client, col(cell, ncells, SMY_HOST));
	field(s->app, sizeof s->app, col(cell, ncells, SMY_PROGRAM));
	field(s->state, sizeof s->state, cmd);
	const char *we = col(cell, ncells, SMY_WAIT_EVENT);
	/* the P_S wait while there is one, else the processlist's state */
	field(s->wait, sizeof s->wait, we ? we : state);
	const char *tms = col(cell, ncells, SMY_TIME_MS);
	s->state_s = tms ? num(tms) / 1000 : num(col(cell, ncells, SMY_TIME));
	bool sleeping = cmd && strcasecmp(cmd, "Sleep") == 0;
	const char *trx = col(cell, ncells, SMY_TRX_ID);
	const char *tstate = col(cell, ncells, SMY_TRX_STATE);
	if (trx)
		s->trx_age_s = num(col(cell, ncells, SMY_TRX_AGE_S));
	const char *info = col(cell, ncells, SMY_INFO), *done = col(cell, ncells, SMY_STMT_DONE);
	bool is_last = sleeping || (done && done[0] == '1');
	if (info && info[0])
		session_set_query_from(s, ss->texts, info, is_last);
	const char *stmt_s = col(cell, ncells, SMY_STMT_S);
	if (!is_last)
		s->query_s = stmt_s ? num(stmt_s) : s->state_s;
	const char *dg = col(cell, ncells, SMY_DIGEST);
	if (dg && dg[0]) {
		const char *sch = col(cell, ncells, SMY_SCHEMA);
		str_printf(s->digest, sizeof s->digest, "%s/%s", sch ? sch : "", dg);
		text_sanitize(s->digest);
	}
	field(s->type, sizeof s->type, type ? type : "");
	const char *self = col(cell, ncells, SMY_SELF);
	s->self = self && self[0] == '1';
	s->ident.known = true;
	if (trx) {
		field(s->ident.trx_id, sizeof s->ident.trx_id, trx);
		field(s->ident.trx_started, sizeof s->ident.trx_started, col(cell, ncells, SMY_TRX_STARTED));
	}
	s->ident.query_id = int_or0(col(cell, ncells, SMY_QUERY_ID));
	if (my_background(user, cmd, type)) {
		s->cls = SC_BACKGROUND;
		if (!type && cmd)
			field(s->type, sizeof s->type, cmd);
	} else if ((tstate && strcasecmp(tstate, "LOCK WAIT") == 0) || my_lock_state(state) ||
		   (we && strncmp(we, "wait/lock/", 10) == 0 && !sleeping)) {
		s->cls = SC_LOCK_WAIT;
	} else if (sleeping) {
		s->cls = trx ? SC_IDLE_IN_TRX : SC_IDLE;
		if (trx)
			str_copy(s->state, sizeof s->state, "Sleep in transaction");
	} else if (cmd && (strcasecmp(cmd, "Query") == 0 || strcasecmp(cmd, "Execute") == 0 ||
			   strcasecmp(cmd, "Fetch") == 0 || strcasecmp(cmd, "Prepare") == 0 ||
			   strcasecmp(cmd, "Long Data") == 0)) {
		s->cls = SC_ACTIVE;
	} else {
		s->cls = SC_OTHER;
	}
	(void)fl;
}

static int by_id(const void *pa, const void *pb)
{
	const struct session *a = pa, *b = pb;
	return a->id < b->id ? -1 : a->id > b->id;
}

void sessions_my_finish(struct session_set *ss, enum flavour fl, bool priv_process, const char *user)
{
	/* MariaDB's rows come unordered (no sort on the server) */
	if (fl == FLAVOUR_MARIADB && ss->n > 1)
		qsort(ss->s, ss->n, sizeof *ss->s, by_id);
	if (priv_process)
		return;
	ss->status = SESS_PARTIAL;
	str_printf(ss->note, sizeof ss->note,
		   "only this user's sessions, and no transactions: GRANT PROCESS ON *.* TO %s",
		   user && user[0] ? user : "<user>");
	(void)fl;
	text_sanitize(ss->note);
}

/* Explain's checks */

/* Skip a literal, quoted name or comment at q[i] (PostgreSQL rules:
 * '...' with '' inside, E'...' with backslashes, "...", $tag$...$tag$,
 * -- to the end of the line, nested slash-star comments). Returns the
 * index past it, or i when q[i] starts none. */
static size_t skip_quoted(const char *q, size_t i)
{
	size_t n = strlen(q);
	char c = q[i];
	if (c == '\'' || c == '"') {
		bool esc = c == '\'' && i > 0 && (q[i - 1] == 'E' || q[i - 1] == 'e') &&
			   (i < 2 || !(isalnum((unsigned char)q[i - 2]) || q[i - 2] == '_'));
		for (size_t j = i + 1; j < n; j++) {
			if (esc && q[j] == '\\' && j + 1 < n) {
				j++;
				continue;
			}
			if (q[j] == c) {
				if (j + 1 < n && q[j + 1] == c) {
					j++;
					continue;
				}
				return j + 1;
			}
		}
		return n;
	}
	if (c == '-' && q[i + 1] == '-') {
		/* PostgreSQL ends it at either (its lexer's newline is [\n\r]) */
		size_t e = i + strcspn(q + i, "\n\r");
		return e < n ? e + 1 : n;
	}
	if (c == '/' && q[i + 1] == '*') {
		int depth = 0;
		for (size_t j = i; j < n; j++) {
			if (q[j] == '/' && q[j + 1] == '*') {
				depth++;
				j++;
			} else if (q[j] == '*' && q[j + 1] == '/') {
				j++;
				if (--depth == 0)
					return j + 1;
			}
		}
		return n;
	}
	if (c == '$' && !(i > 0 && (isalnum((unsigned char)q[i - 1]) || q[i - 1] == '_'))) {
		size_t j = i + 1;
		while (j < n && (isalpha((unsigned char)q[j]) || q[j] == '_' || (j > i + 1 && isdigit((unsigned char)q[j]))))
			j++;
		if (j < n && q[j] == '$') {
			size_t tl = j - i + 1;
			const char *e = q + j + 1;
			for (;;) {
				const char *f = strchr(e, '$');
				if (!f)
					return n;
				if (strncmp(f, q + i, tl) == 0)
					return (size_t)(f - q) + tl;
				e = f + 1;
			}
		}
	}
	return i;
}

void session_act_sql(bool pg, bool maria, bool term, long long id, const struct session_ident *who, char *out, size_t n)
{
	if (pg)
		str_printf(out, n, "%s(%lld)", term ? "pg_terminate_backend" : "pg_cancel_backend", id);
	else if (maria && !term && who && who->query_id > 0)
		str_printf(out, n, "KILL QUERY ID %lld", who->query_id);
	else
		str_printf(out, n, "%s%lld", term ? "KILL " : "KILL QUERY ", id);
}

/* The statements EXPLAIN is asked for. */
static bool explain_word(const char *w)
{
	static const char *const ok_words[] = {"SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "MERGE",
					       "VALUES", "TABLE", NULL};
	for (int m = 0; ok_words[m]; m++)
		if (strcasecmp(w, ok_words[m]) == 0)
			return true;
	return false;
}

/* Where the scan of a statement text stands. */
struct explain_scan {
	int depth;
	bool with, found, ended;
	char first[16];
};

/* The word at q[i..k): the statement's first must be one explained (WITH
 * looks on for its statement outside parentheses); false with err when the
 * text is refused. */
static bool explain_scan_word(struct explain_scan *sc, const char *q, size_t i, size_t k, char *err, size_t elen)
{
	char w[16] = "";
	if (k - i < sizeof w) {
		memcpy(w, q + i, k - i);
		w[k - i] = '\0';
	}
	bool keyword_start =
		i == 0 || !(isalnum((unsigned char)q[i - 1]) || q[i - 1] == '_' || q[i - 1] == '.' || q[i - 1] == '$');
	if (!sc->first[0] && keyword_start) {
		str_copy(sc->first, sizeof sc->first, w);
		if (strcasecmp(w, "WITH") == 0) {
			sc->with = true;
			return true;
		}
		sc->found = explain_word(w);
		if (!sc->found) {
			for (char *p = w; *p; p++)
				*p = (char)toupper((unsigned char)*p);
			str_printf(err, elen,
				   "%s statements are not explained: only SELECT, INSERT, UPDATE, DELETE, "
				   "REPLACE and MERGE",
				   w[0] ? w : "such");
			return false;
		}
	} else if (sc->with && !sc->found && sc->depth <= 0 && keyword_start && explain_word(w)) {
		sc->found = true;
	}
	return true;
}

bool explain_text_ok(const char *q, char *err, size_t elen)
{
	if (!q || !*q) {
		str_copy(err, elen, "no statement to explain");
		return false;
	}
	size_t n = strlen(q), i = 0;
	struct explain_scan sc = {0};
	while (i < n) {
		size_t j = skip_quoted(q, i);
		char c = q[i];
		/* after the ';' only blanks and comments */
		if (sc.ended && (j != i ? !(c == '-' || c == '/') : !isspace((unsigned char)c))) {
			str_copy(err, elen, "several statements: only one can be explained");
			return false;
		}
		if (j != i) {
			i = j;
			continue;
		}
		if (c == ';')
			sc.ended = true;
		else if (c == '(')
			sc.depth++;
		else if (c == ')')
			sc.depth--;
		else if (isalpha((unsigned char)c) || c == '_') {
			size_t k = i;
			while (k < n && (isalnum((unsigned char)q[k]) || q[k] == '_'))
				k++;
			if (!explain_scan_word(&sc, q, i, k, err, elen))
				return false;
			i = k;
			continue;
		}
		i++;
	}
	if (!sc.found) {
		str_copy(err, elen,
			 sc.with ? "a WITH that leads to no SELECT, INSERT, UPDATE, DELETE or MERGE is not "
				   "explained"
				 : "no statement to explain");
		return false;
	}
	return true;
}

bool explain_pg_text_safe(const char *q, char *err, size_t elen)
{
	for (const unsigned char *c = (const unsigned char *)q; *c; c++) {
		if ((*c < 0x20 && *c != '\n' && *c != '\t' && *c != '\r') || *c == 0x7f) {
			str_printf(err, elen, "a statement with control character 0x%02x in it is not explained", *c);
			return false;
		}
		if ((c[0] == 'U' || c[0] == 'u') && c[1] == '&' && c[2] == '"') {
			str_copy(err, elen, "a statement with a Unicode-escaped name (U&\"...\") is not explained");
			return false;
		}
		if (c[0] == '_' && strncasecmp((const char *)c, "_to_xml", 7) == 0) {
			str_copy(err, elen, "a statement calling *_to_xml (which run SQL while it is planned) is not "
				 "explained");
			return false;
		}
	}
	return true;
}

int explain_pg_params(const char *q)
{
	size_t n = q ? strlen(q) : 0, i = 0;
	int top = 0;
	while (i < n) {
		size_t j = skip_quoted(q, i);
		if (j != i) {
			i = j;
			continue;
		}
		if (q[i] == '$' && isdigit((unsigned char)q[i + 1]) &&
		    !(i > 0 && (isalnum((unsigned char)q[i - 1]) || q[i - 1] == '_'))) {
			int v = atoi(q + i + 1);
			if (v > top)
				top = v;
			i++;
			while (i < n && isdigit((unsigned char)q[i]))
				i++;
			continue;
		}
		i++;
	}
	return top;
}

bool explain_pg_sql(char *buf, size_t len, const char *q, long version_num, char *err, size_t elen)
{
	int params = explain_pg_params(q);
	if (params > 0 && version_num < 160000) {
		str_printf(err, elen, "PostgreSQL %ld cannot plan a statement with parameters ($1%s) without "
			   "their values; GENERIC_PLAN needs 16", version_num / 10000, params > 1 ? "..." : "");
		return false;
	}
	size_t n = strlen(q);
	while (n > 0 && (isspace((unsigned char)q[n - 1]) || q[n - 1] == ';'))
		n--;
	/* an option list always: whatever the text starts with, it cannot
	 * become an option (ANALYZE) once the list is closed */
	size_t w = str_printf(buf, len, "EXPLAIN (%s) %.*s", params > 0 ? "GENERIC_PLAN" : "COSTS", (int)n, q);
	if (w + 1 >= len) {
		str_copy(err, elen, "statement too long to explain");
		return false;
	}
	return true;
}

void explain_table_row(struct strbuf *out, const char *const *cell, unsigned ncells)
{
	for (unsigned k = 0; k < ncells; k++) {
		char v[256];
		str_copy(v, sizeof v, cell[k] ? cell[k] : "NULL");
		if (k)
			sb_puts(out, " | ");
		sb_puts(out, text_sanitize(v));
	}
	sb_putc(out, '\n');
}
