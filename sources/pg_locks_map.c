/* pg_locks_map.c - PostgreSQL lock waits: the query and its row mapper. */
#include "pg_locks_map.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../model/locks.h"
#include "../util/util.h"

/* Text of relation rel of database db: rel::regclass only for this
 * database or a shared catalog (database 0); an OID of another database
 * would name an unrelated relation here, or nothing. */
#define PGL_RELNAME(db, rel) \
	"CASE WHEN " rel " IS NULL THEN NULL " \
	"WHEN " db " = 0 OR " db " = c.datid THEN " rel "::regclass::text " \
	"ELSE 'relation ' || " rel " || ' in database ' || " \
	"coalesce((SELECT x.datname::text FROM pg_database x WHERE x.oid = " db "), " db "::text) END"

#define PGL_STR_(x) #x
#define PGL_STR(x) PGL_STR_(x)

/* act: the sessions a (PGL_ACT, or PGL_NO_ACT: the edges alone); ws:
 * pg_locks.waitstart or NULL; wait: the waiter's wait in s.
 *   a   pg_stat_activity, read once (or no row)
 *   c   this database's oid and the reference time
 *   l   pg_locks, read once, with waitstart (PGL_LOCKS_SQL: gpid, m, tk)
 *   h   hard edges, one join over l (PGL_HARD_EDGES; DISTINCT: a leader
 *       and its workers holding the same mode are one blocker)
 *   nw  the waiting locks that got no hard edge: only they are passed to
 *       pg_blocking_pids(), whose cost grows with the lock queue (it lists
 *       every request queued ahead as well)
 *   s   nw with each distinct pid blocking it
 *   q   s with the blocker's locks on the same target that conflict with
 *       the request; hard = the blocker holds one of them (pg_locks and
 *       pg_blocking_pids are two snapshots)
 *   e   all edges: h, and q's rows (a blocker that only queues ahead gives
 *       its queued mode, soft; one not seen gives held NULL)
 *   d   depths below a root of each waiting lock group (a blocker that
 *       does not wait is a root: its waiters are at depth 1), breadth-first
 *       up to depth 8; dm the least; o the blocker's depth bd for each edge
 *       (0: the blocker does not wait; 9: only on a cycle, or deeper)
 *   r   o with rn, the edge's rank among its waiter's edges
 *   tu  the tuple lock a session holds while it waits for a row's
 *       transaction: names the row of a transactionid wait
 * Rows are ordered by the depth of the blocker (edges from a root's
 * waiters first), then a waiter's first edge before its others, hard
 * before soft, waiter, blocker: when the answer is cut at
 * PG_LOCKS_ROW_LIMIT, the edges nearest the roots are kept. One row past
 * the limit is asked for, so that the mapper knows of the cut. */
/* clang-format off */
#define PGL_ACT \
	" SELECT pid, usename, state, backend_type, leader_pid, state_change," \
	" xact_start, backend_start, query_start, left(query, 1024) AS query FROM pg_stat_activity"
/* The same columns, no row: every session's column NULL, each lock of a
 * parallel worker its own (pg_locks_join names them after). */
#define PGL_NO_ACT \
	" SELECT NULL::int AS pid, NULL::name AS usename, NULL::text AS state, NULL::text AS backend_type," \
	" NULL::int AS leader_pid, NULL::timestamptz AS state_change, NULL::timestamptz AS xact_start," \
	" NULL::timestamptz AS backend_start, NULL::timestamptz AS query_start, NULL::text AS query WHERE false"
#define PGL_SQL(act, ws, wait) \
	"WITH RECURSIVE a AS MATERIALIZED (" act ")," \
	" c AS (SELECT (SELECT oid FROM pg_database WHERE datname = current_database()) AS datid," \
	" statement_timestamp() AS ts)," \
	" l AS MATERIALIZED (" \
	PGL_LOCKS_SQL(" " ws " AS waitstart,") \
	")," \
	" h AS MATERIALIZED (" \
	" SELECT DISTINCT w.*, bl.gpid AS bpid, bl.mode AS held" \
	PGL_HARD_EDGES \
	")," \
	" nw AS MATERIALIZED (" \
	" SELECT * FROM l WHERE NOT l.granted AND l.pid IS NOT NULL" \
	" AND NOT EXISTS (SELECT 1 FROM h WHERE h.pid = l.pid))," \
	" s AS (" \
	" SELECT nw.*, b.pid AS bpid FROM nw," \
	" LATERAL (SELECT DISTINCT p FROM unnest(pg_blocking_pids(nw.pid)) p) b(pid))," \
	" q AS (" \
	" SELECT DISTINCT s.*, bl.mode AS held, bl.granted AS bgranted," \
	" bool_or(bl.granted) OVER (PARTITION BY s.pid, s.bpid) AS hard" \
	" FROM s LEFT JOIN l bl ON bl.gpid = s.bpid AND bl.pid IS DISTINCT FROM s.pid AND" \
	PGL_SAME_TARGET("bl", "s") PGL_CONFLICT("s", "bl") ")," \
	" e AS MATERIALIZED (" \
	" SELECT h.*, false AS soft FROM h" \
	" UNION ALL SELECT locktype, database, relation, page, tuple, virtualxid, transactionid," \
	" classid, objid, objsubid, pid, mode, granted, waitstart, gpid, m, tk, bpid, held," \
	" coalesce(NOT bgranted, false) FROM q WHERE bgranted OR hard IS NOT TRUE)," \
	" d(g, n) AS (" \
	" SELECT DISTINCT gpid, 1 FROM e WHERE bpid NOT IN (SELECT gpid FROM e)" \
	" UNION SELECT e.gpid, d.n + 1 FROM d JOIN e ON e.bpid = d.g WHERE d.n < 8)," \
	" dm AS (SELECT g, min(n) AS n FROM d GROUP BY g)," \
	" o AS (" \
	" SELECT e.*, CASE WHEN dm.n IS NOT NULL THEN dm.n" \
	" WHEN e.bpid IN (SELECT gpid FROM e) THEN 9 ELSE 0 END AS bd" \
	" FROM e LEFT JOIN dm ON dm.g = e.bpid)," \
	" r AS (" \
	" SELECT o.*, row_number() OVER (PARTITION BY o.pid ORDER BY o.bd, o.soft, o.bpid, o.held) AS rn" \
	" FROM o)," \
	" tu AS (" \
	" SELECT DISTINCT ON (pid) pid, database, relation, page, tuple FROM l" \
	" WHERE locktype = 'tuple' AND granted ORDER BY pid, relation, page, tuple)" \
	" SELECT e.pid, e.bpid, e.locktype," \
	" CASE WHEN e.locktype = 'transactionid' THEN 'transaction ' || e.transactionid" \
	" || coalesce(' on ' || " PGL_RELNAME("tu.database", "tu.relation") ", '')" \
	" WHEN e.locktype = 'advisory' THEN 'advisory ' || CASE WHEN e.objsubid = 1" \
	" THEN ((e.classid::bigint << 32) | e.objid::bigint)::text" \
	" ELSE e.classid::int || ':' || e.objid::int END" \
	" WHEN e.locktype = 'virtualxid' THEN 'virtual transaction ' || e.virtualxid" \
	" WHEN e.locktype = 'spectoken' THEN 'speculative insertion ' || e.objid" \
	" || ' of transaction ' || e.transactionid" \
	" WHEN e.locktype = 'object' THEN e.classid::regclass::text || ' ' || e.objid" \
	" || CASE WHEN e.objsubid <> 0 THEN '.' || e.objsubid ELSE '' END" \
	" WHEN e.relation IS NOT NULL THEN " PGL_RELNAME("e.database", "e.relation") \
	" ELSE concat_ws(' ', e.locktype, e.database, e.transactionid, e.classid, e.objid, e.objsubid) END," \
	" CASE WHEN e.tuple IS NOT NULL THEN 'ctid (' || e.page || ',' || e.tuple || ')'" \
	" WHEN e.page IS NOT NULL THEN 'page ' || e.page" \
	" WHEN tu.tuple IS NOT NULL THEN 'ctid (' || tu.page || ',' || tu.tuple || ')'" \
	" ELSE '' END," \
	" e.mode, coalesce(e.held, ''), e.soft," \
	" wa.usename, wa.state, extract(epoch FROM c.ts - wa.state_change)," \
	" extract(epoch FROM c.ts - wa.xact_start), " wait ", wa.backend_type, wa.query," \
	" ba.usename, CASE WHEN e.bpid = 0 THEN 'prepared transaction' ELSE ba.state END," \
	" extract(epoch FROM c.ts - ba.state_change), extract(epoch FROM c.ts - ba.xact_start)," \
	" ba.backend_type, ba.query," \
	" " PG_US("wa.backend_start") ", " PG_US("wa.xact_start") ", " PG_US("wa.query_start") "," \
	" " PG_US("ba.backend_start") ", " PG_US("ba.xact_start") ", " PG_US("ba.query_start") \
	" FROM r e CROSS JOIN c" \
	" LEFT JOIN tu ON tu.pid = e.pid AND e.locktype = 'transactionid'" \
	" LEFT JOIN a wa ON wa.pid = e.pid" \
	" LEFT JOIN a ba ON ba.pid = e.bpid" \
	" ORDER BY e.bd, e.rn > 1, e.soft, 1, 2, 7" \
	" LIMIT " PGL_STR(PG_LOCKS_ROW_LIMIT) " + 1"
/* clang-format on */

/* PostgreSQL 14+: pg_locks.waitstart (NULL for a moment after a wait
 * begins). */
static const char sql_14[] = PGL_SQL(PGL_ACT, "k.waitstart", "extract(epoch FROM c.ts - e.waitstart)");
static const char edges_14[] = PGL_SQL(PGL_NO_ACT, "k.waitstart", "extract(epoch FROM c.ts - e.waitstart)");

/* PostgreSQL 13 has no waitstart: the wait is approximated by the time
 * since the waiting session's state_change (the start of its running
 * statement), which is at least the wait, more when the statement ran a
 * while before it had to wait. */
#define PGL_WAIT_13 "CASE WHEN wa.state = 'active' THEN extract(epoch FROM c.ts - wa.state_change) END"
static const char sql_13[] = PGL_SQL(PGL_ACT, "NULL::timestamptz", PGL_WAIT_13);
static const char edges_13[] = PGL_SQL(PGL_NO_ACT, "NULL::timestamptz", PGL_WAIT_13);

const char *pg_locks_sql(long version_num)
{
	return version_num >= 140000 ? sql_14 : sql_13;
}

const char *pg_locks_edges_sql(long version_num)
{
	return version_num >= 140000 ? edges_14 : edges_13;
}

char *pg_locks_sql_timed(char *buf, size_t len, long version_num, long timeout_ms, bool edges)
{
	const char *q = edges ? pg_locks_edges_sql(version_num) : pg_locks_sql(version_num);
	char head[64];
	size_t n = str_printf(head, sizeof head, "SET LOCAL statement_timeout = %ld; ",
			      timeout_ms < 1 ? 1L : timeout_ms);
	if (!buf || len < n + strlen(q) + 1)
		return NULL;
	memcpy(buf, head, n);
	memcpy(buf + n, q, strlen(q) + 1);
	return buf;
}

unsigned pg_locks_waiting(const char *cell)
{
	char *end;
	unsigned long long v;
	if (!cell || !*cell || *cell == '-')
		return 0;
	v = strtoull(cell, &end, 10);
	if (end == cell || *end)
		return 0;
	return v > 0xffffffffu ? 0xffffffffu : (unsigned)v;
}

/* A pid cell: a non-negative integer. */
static bool cell_pid(const char *s, long long *out)
{
	char *end;
	long long v;
	if (!s || !*s || *s == '-')
		return false;
	v = strtoll(s, &end, 10);
	if (end == s || *end || v < 0)
		return false;
	*out = v;
	return true;
}

/* Seconds, NaN for NULL or garbage; a small negative (a state change after
 * the query's reference time) is 0. */
static double cell_secs(const char *s)
{
	char *end;
	double d;
	if (!s || !*s)
		return NAN;
	d = strtod(s, &end);
	if (end == s || *end || !isfinite(d))
		return NAN;
	return d < 0 ? 0 : d;
}

static void field(char *dst, size_t len, const char *src)
{
	str_copy(dst, len, src ? src : "");
	text_sanitize(dst);
}

/* A microseconds cell: 0 for NULL or garbage. */
static long long cell_us(const char *s)
{
	char *end;
	long long v;
	if (!s || !*s)
		return 0;
	v = strtoll(s, &end, 10);
	return end == s || *end ? 0 : v;
}

/* The identity columns start (backend_start), xact and query of a
 * session; unknown without a backend_start (a prepared transaction, a
 * recorded row without the columns, another role's session read without
 * pg_read_all_stats). */
static void ident_fill(struct session_ident *id, const char *start, const char *xact, const char *query)
{
	memset(id, 0, sizeof *id);
	id->start_us = cell_us(start);
	id->known = id->start_us != 0;
	id->xact_us = cell_us(xact);
	id->stmt_us = cell_us(query);
}

/* Fill session s from the columns starting at user (PGL_W_USER or
 * PGL_B_USER; both groups are in the same order, the waiter's with the
 * wait in between). */
static void session_fill(struct lock_session *s, struct text_cache *texts, const char *user, const char *state,
			 const char *state_s, const char *xact_s, const char *backend, const char *query)
{
	if (backend && *backend && strcmp(backend, "client backend") != 0) {
		/* autovacuum worker, parallel worker, ...: say so beside the user */
		if (user && *user)
			str_printf(s->user, sizeof s->user, "%s (%s)", user, backend);
		else
			str_copy(s->user, sizeof s->user, backend);
		text_sanitize(s->user);
	} else {
		field(s->user, sizeof s->user, user);
	}
	field(s->state, sizeof s->state, state);
	s->state_s = cell_secs(state_s);
	s->trx_age_s = cell_secs(xact_s);
	/* an idle session's query is the last statement it ran */
	lock_session_query_from(s, texts, query, state && strncmp(state, "idle", 4) == 0);
}

/* The note of an answer cut at PG_LOCKS_ROW_LIMIT edges. */
static void note_cut(struct lock_set *ls)
{
	if (!ls->note[0])
		str_printf(ls->note, sizeof ls->note, "over %d wait edges: only the %d nearest the roots are shown",
			   PG_LOCKS_ROW_LIMIT, PG_LOCKS_ROW_LIMIT);
}

void pg_locks_map_row(struct lock_set *ls, const char *const *cell, int ncells)
{
	const char *c[PGL__COUNT];
	long long wpid, bpid;
	size_t before;
	int wi, bi;
	bool wnew, bnew;
	struct lock_edge *e;

	if (!ls || !cell)
		return;
	for (int i = 0; i < PGL__COUNT; i++)
		c[i] = i < ncells ? cell[i] : NULL;
	if (!cell_pid(c[PGL_WAITER], &wpid) || !cell_pid(c[PGL_BLOCKER], &bpid) || wpid == bpid)
		return;
	/* the query's row past its limit: the answer was cut */
	if (ls->ne >= PG_LOCKS_ROW_LIMIT) {
		note_cut(ls);
		return;
	}

	before = ls->ns;
	wi = lock_session_get(ls, wpid);
	wnew = ls->ns > before;
	before = ls->ns;
	bi = lock_session_get(ls, bpid);
	bnew = ls->ns > before;
	/* every row of a session carries the same activity columns: read
	 * them once */
	if (wnew) {
		session_fill(&ls->s[wi], ls->texts, c[PGL_W_USER], c[PGL_W_STATE], c[PGL_W_STATE_S], c[PGL_W_XACT_S],
			     c[PGL_W_BACKEND], c[PGL_W_QUERY]);
		ident_fill(&ls->s[wi].ident, c[PGL_W_START_US], c[PGL_W_XACT_US], c[PGL_W_QUERY_US]);
	}
	if (bnew) {
		session_fill(&ls->s[bi], ls->texts, c[PGL_B_USER], c[PGL_B_STATE], c[PGL_B_STATE_S], c[PGL_B_XACT_S],
			     c[PGL_B_BACKEND], c[PGL_B_QUERY]);
		ident_fill(&ls->s[bi].ident, c[PGL_B_START_US], c[PGL_B_XACT_US], c[PGL_B_QUERY_US]);
	}
	/* a session first seen as a blocker may wait too */
	if (isnan(ls->s[wi].wait_s))
		ls->s[wi].wait_s = cell_secs(c[PGL_W_WAIT_S]);

	e = lock_edge_add(ls, wpid, bpid);
	if (!e)
		return;
	field(e->object, sizeof e->object, c[PGL_OBJECT]);
	field(e->lock_type, sizeof e->lock_type, c[PGL_LOCKTYPE]);
	field(e->requested, sizeof e->requested, c[PGL_REQUESTED]);
	field(e->held, sizeof e->held, c[PGL_HELD]);
	field(e->lock_data, sizeof e->lock_data, c[PGL_LOCK_DATA]);
	e->soft = c[PGL_SOFT] && c[PGL_SOFT][0] == 't';
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/* clang-format off */
#define PGLW_SQL_HEAD \
	"SELECT pid, leader_pid," \
	" CASE WHEN wait_event_type = 'Lock' THEN true WHEN query = '<insufficient privilege>' THEN NULL" \
	" ELSE false END, usename, state, extract(epoch FROM statement_timestamp() - state_change)," \
	" extract(epoch FROM statement_timestamp() - xact_start), backend_type, left(query, 1024)," \
	" " PG_US("backend_start") ", " PG_US("xact_start") ", " PG_US("query_start") \
	" FROM pg_stat_activity WHERE pid = ANY('{"
#define PGLW_SQL_TAIL "}'::int[])"
/* clang-format on */

size_t pg_locks_who_sql(struct strbuf *out, const char *const *edges, size_t n, long timeout_ms)
{
	long long *pid = n ? malloc(2 * n * sizeof *pid) : NULL, v;
	size_t k = 0, u = 0;
	if (!pid)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (cell_pid(edges[i * PGL__COUNT + PGL_WAITER], &v) && v > 0)
			pid[k++] = v;
		if (cell_pid(edges[i * PGL__COUNT + PGL_BLOCKER], &v) && v > 0)
			pid[k++] = v;
	}
	if (k > 1)
		qsort(pid, k, sizeof *pid, cmp_ll);
	for (size_t i = 0; i < k; i++)
		if (!u || pid[u - 1] != pid[i])
			pid[u++] = pid[i];
	if (u) {
		sb_printf(out, "SET LOCAL statement_timeout = %ld; " PGLW_SQL_HEAD, timeout_ms < 1 ? 1L : timeout_ms);
		for (size_t i = 0; i < u; i++)
			sb_printf(out, "%s%lld", i ? "," : "", pid[i]);
		sb_puts(out, PGLW_SQL_TAIL);
	}
	free(pid);
	return u;
}

/* A session of pg_locks_who_sql()'s answer. */
struct who {
	long long pid, leader; /* leader: 0 unless a parallel worker's */
	const char *const *c;
};

static int who_cmp(const void *a, const void *b)
{
	return cmp_ll(&((const struct who *)a)->pid, &((const struct who *)b)->pid);
}

static const struct who *who_find(const struct who *w, size_t m, long long pid)
{
	struct who key = {.pid = pid};
	return m ? bsearch(&key, w, m, sizeof *w, who_cmp) : NULL;
}

/* The edge row e is the same lock pair as row d, blocker pid bpid for both. */
static bool same_edge(const char *const *e, const char *const *d)
{
	static const int col[] = {PGL_WAITER,    PGL_LOCKTYPE, PGL_OBJECT, PGL_LOCK_DATA,
				  PGL_REQUESTED, PGL_HELD,     PGL_SOFT};
	for (size_t i = 0; i < sizeof col / sizeof col[0]; i++)
		if (strcmp(e[col[i]] ? e[col[i]] : "", d[col[i]] ? d[col[i]] : "") != 0)
			return false;
	return true;
}

/* Row i of edges, named after a leader lb: kept unless an earlier row
 * named after the same leader is the same edge (led: those rows' indexes
 * and leaders, nled of them). */
static bool led_first(const char *const *edges, size_t i, long long lb, const size_t *led, const long long *ledb,
		      size_t nled)
{
	for (size_t j = 0; j < nled; j++)
		if (ledb[j] == lb && same_edge(edges + i * PGL__COUNT, edges + led[j] * PGL__COUNT))
			return false;
	return true;
}

/* Row e's session columns from w (the waiter's, at PGL_W_USER, when
 * waiter; else the blocker's at PGL_B_USER). */
static void who_cells(const char **c, const struct who *w, bool waiter)
{
	int u = waiter ? PGL_W_USER : PGL_B_USER, id = waiter ? PGL_W_START_US : PGL_B_START_US;
	c[u] = w->c[PGLW_USER];
	c[u + 1] = w->c[PGLW_STATE];
	c[u + 2] = w->c[PGLW_STATE_S];
	c[u + 3] = w->c[PGLW_XACT_S];
	c[waiter ? PGL_W_BACKEND : PGL_B_BACKEND] = w->c[PGLW_BACKEND];
	c[waiter ? PGL_W_QUERY : PGL_B_QUERY] = w->c[PGLW_QUERY];
	c[id] = w->c[PGLW_START_US];
	c[id + 1] = w->c[PGLW_XACT_US];
	c[id + 2] = w->c[PGLW_QUERY_US];
}

void pg_locks_join(struct lock_set *ls, const char *const *edges, size_t n, const char *const *who, size_t m, bool v13,
		   double dt)
{
	struct who *w = m ? calloc(m, sizeof *w) : NULL;
	size_t *led = n ? calloc(n, sizeof *led) : NULL, nw = 0, nled = 0;
	long long *ledb = n ? calloc(n, sizeof *ledb) : NULL, v;
	if (!ls || (m && !w) || (n && (!led || !ledb)))
		goto out;
	for (size_t i = 0; i < m; i++) {
		const char *const *c = who + i * PGLW__COUNT;
		if (!cell_pid(c[PGLW_PID], &w[nw].pid))
			continue;
		w[nw].leader = cell_pid(c[PGLW_LEADER], &v) && v != w[nw].pid ? v : 0;
		w[nw++].c = c;
	}
	if (nw > 1)
		qsort(w, nw, sizeof *w, who_cmp);
	if (n > PG_LOCKS_ROW_LIMIT) {
		n = PG_LOCKS_ROW_LIMIT;
		note_cut(ls);
	}
	for (size_t i = 0; i < n; i++) {
		const char *const *e = edges + i * PGL__COUNT;
		const char *c[PGL__COUNT];
		char bcell[24], wcell[32];
		long long wp, bp;
		if (!cell_pid(e[PGL_WAITER], &wp) || !cell_pid(e[PGL_BLOCKER], &bp))
			continue;
		const struct who *ww = who_find(w, nw, wp), *bw = bp ? who_find(w, nw, bp) : NULL, *lw;
		const char *waits = ww ? ww->c[PGLW_WAITING] : NULL;
		if (!ww || (waits && waits[0] != 't') || (bp && !bw))
			continue; /* it waits no more, or one of them has gone */
		if (bw && bw->leader && (lw = who_find(w, nw, bw->leader))) {
			if (!led_first(edges, i, lw->pid, led, ledb, nled))
				continue;
			led[nled] = i;
			ledb[nled++] = lw->pid;
			bw = lw;
			bp = lw->pid;
		}
		if (bp == wp || (ww->leader && ww->leader == bp))
			continue; /* its own lock group */
		memcpy(c, e, sizeof c);
		str_printf(bcell, sizeof bcell, "%lld", bp);
		c[PGL_BLOCKER] = bcell;
		who_cells(c, ww, true);
		if (bw)
			who_cells(c, bw, false);
		double ws = cell_secs(e[PGL_W_WAIT_S]);
		if (v13)
			c[PGL_W_WAIT_S] = ww->c[PGLW_STATE] && strcmp(ww->c[PGLW_STATE], "active") == 0
						  ? ww->c[PGLW_STATE_S]
						  : NULL;
		else if (isfinite(ws) && dt > 0) {
			/* it still waits: as long as it has waited since the edges' read */
			str_printf(wcell, sizeof wcell, "%.6f", ws + dt);
			c[PGL_W_WAIT_S] = wcell;
		}
		pg_locks_map_row(ls, c, PGL__COUNT);
	}
out:
	free(w);
	free(led);
	free(ledb);
}
