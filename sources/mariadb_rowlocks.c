/* mariadb_rowlocks.c - MariaDB row-lock waits paired on the client. */
#include "mariadb_rowlocks.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"
#include "mysql_locks_map.h"
#include "sessions_map.h"

#define RL_STR_(x) #x
#define RL_STR(x) RL_STR_(x)

/* One statement, each table read once: the locks, the transactions, and
 * the process list rows of the sessions that have a transaction (a
 * semi-join on INNODB_TRX, whose cache the first two share), their
 * statements cut at LOCK_QUERY_MAX characters as INNODB_TRX's are (every
 * session in a transaction is read, not only those in a pair: a bulk
 * load's megabyte INSERTs are not sent whole). The process list's
 * columns are qualified: the server's digest spells a bare USER
 * SYSTEM_USER, and dbtop knows its own statements in the digests by
 * their words. */
/* clang-format off */
#define RL_LOCKS_TRX \
	"SELECT 'L', lock_id, lock_trx_id, lock_mode, lock_type, lock_table, lock_index, lock_space, " \
	"lock_page, lock_rec, lock_data, NULL FROM information_schema.INNODB_LOCKS " \
	"UNION ALL SELECT 'T', trx_id, trx_requested_lock_id, trx_mysql_thread_id, " \
	MYL_AGE("trx_started") ", " MYL_AGE("trx_wait_started") ", " \
	"trx_query, trx_started, trx_lock_structs, trx_state, NULL, NULL FROM information_schema.INNODB_TRX "
static const char rowlocks_sql[] = RL_LOCKS_TRX
	"UNION ALL SELECT 'P', p.ID, p.USER, p.COMMAND, p.STATE, p.TIME_MS / 1000, LEFT(p.INFO, " RL_STR(LOCK_QUERY_MAX) "), p.QUERY_ID, "
	"NULL, NULL, NULL, NULL FROM information_schema.PROCESSLIST p WHERE p.ID IN "
	"(SELECT trx_mysql_thread_id FROM information_schema.INNODB_TRX)";
/* The joined read: every process list row instead of those in a
 * transaction, with the session list's columns. */
static const char joined_sql[] = RL_LOCKS_TRX
	"UNION ALL (SELECT 'S', p.ID, p.USER, p.HOST, p.DB, p.COMMAND, p.TIME, p.TIME_MS, p.STATE, p.INFO, "
	"p.QUERY_ID, p.ID = CONNECTION_ID() FROM information_schema.PROCESSLIST p LIMIT " SESSIONS_LIMIT_TEXT ")";
/* clang-format on */

static char *rl_sql(unsigned ms, const char *sql, char *buf, size_t len)
{
	if (!buf || len == 0)
		return buf;
	if (ms > 0)
		snprintf(buf, len, "SET STATEMENT max_statement_time=%u.%03u FOR %s", ms / 1000, ms % 1000, sql);
	else
		snprintf(buf, len, "%s", sql);
	return buf;
}

char *mariadb_rowlocks_sql(unsigned ms, char *buf, size_t len)
{
	return rl_sql(ms, rowlocks_sql, buf, len);
}

char *mariadb_joined_sql(unsigned ms, char *buf, size_t len)
{
	return rl_sql(ms, joined_sql, buf, len);
}

bool mariadb_joined_trx(const char *const *cell, int n, const char *out[5])
{
	if (!cell || n < MRL__COUNT || !cell[MRL_KIND] || cell[MRL_KIND][0] != 'T')
		return false;
	out[0] = cell[MRL_C3], out[1] = cell[MRL_C1], out[2] = cell[MRL_C9];
	out[3] = cell[MRL_C7], out[4] = cell[MRL_C4];
	return true;
}

bool mariadb_joined_session(const char *const *cell, int n, const char **cl)
{
	if (!cell || n < MRL__COUNT || !cell[MRL_KIND] || cell[MRL_KIND][0] != 'S')
		return false;
	for (int i = 0; i < SMY__COUNT; i++)
		cl[i] = NULL;
	for (int i = SMY_ID; i <= SMY_INFO; i++)
		cl[i] = cell[MRL_C1 + i - SMY_ID];
	cl[SMY_QUERY_ID] = cell[MRL_C10];
	cl[SMY_SELF] = cell[MRL_C11];
	return true;
}

struct rl_lock {
	char *id, *trx, *mode, *type, *table, *index, *data;
	char *k;    /* the resource: space:page:heap of a record, or the table */
	char m[24]; /* the mode without its flags */
	bool gap, waiting, rec;
	bool has_trx;
	unsigned long long trx_n;
};

struct rl_trx {
	char *id, *req, *thread, *age, *wait, *query, *started;
	bool has_id, has_thread;
	unsigned long long id_n, thread_n;
	long long structs;
};

struct rl_proc {
	unsigned long long id;
	char *user, *command, *state, *time, *info, *query_id;
};

/* a pair: the waiting request r (of transaction trx), the lock ahead b */
struct rl_pair {
	const struct rl_lock *r, *b;
	bool queued;
};

struct mariadb_rl {
	struct rl_lock *l;
	size_t nl, cap_l;
	struct rl_trx *t;
	size_t nt, cap_t;
	struct rl_proc *p;
	size_t np, cap_p;
	struct rl_pair *w;
	size_t nw, cap_w;
};

struct mariadb_rl *mariadb_rl_new(void)
{
	return xcalloc(1, sizeof(struct mariadb_rl));
}

static char *dup_cell(const char *const *cell, int ncells, int i)
{
	return i < ncells && cell[i] ? xstrdup(cell[i]) : NULL;
}

static bool parse_ull(const char *s, unsigned long long *v)
{
	char *end;
	if (!s || !*s)
		return false;
	*v = strtoull(s, &end, 10);
	return *end == '\0';
}

static void *grow(void *p, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 16;
	return xrealloc(p, *cap * size);
}

static void add_lock(struct mariadb_rl *a, const char *const *cell, int n)
{
	a->l = grow(a->l, a->nl, &a->cap_l, sizeof *a->l);
	struct rl_lock *l = &a->l[a->nl++];
	memset(l, 0, sizeof *l);
	l->id = dup_cell(cell, n, MRL_C1);
	l->trx = dup_cell(cell, n, MRL_C2);
	l->mode = dup_cell(cell, n, MRL_C3);
	l->type = dup_cell(cell, n, MRL_C4);
	l->table = dup_cell(cell, n, MRL_C5);
	l->index = dup_cell(cell, n, MRL_C6);
	l->data = dup_cell(cell, n, MRL_C10);
	l->has_trx = parse_ull(l->trx, &l->trx_n);
	l->rec = l->type && strcasecmp(l->type, "RECORD") == 0;
	if (l->rec) {
		/* CONCAT_WS(':', space, page, rec): the parts that are not NULL */
		char k[96] = "";
		for (int i = MRL_C7; i <= MRL_C9; i++)
			if (i < n && cell[i])
				str_printf(k + strlen(k), sizeof k - strlen(k), "%s%s", k[0] ? ":" : "", cell[i]);
		l->k = xstrdup(k);
	} else {
		l->k = l->table ? xstrdup(l->table) : NULL;
	}
	if (l->mode) {
		size_t mlen = strcspn(l->mode, ",");
		snprintf(l->m, sizeof l->m, "%.*s", (int)(mlen < sizeof l->m ? mlen : sizeof l->m - 1), l->mode);
		l->gap = strcasestr(l->mode, "GAP") != NULL;
	}
}

static void add_trx(struct mariadb_rl *a, const char *const *cell, int n)
{
	a->t = grow(a->t, a->nt, &a->cap_t, sizeof *a->t);
	struct rl_trx *t = &a->t[a->nt++];
	memset(t, 0, sizeof *t);
	t->id = dup_cell(cell, n, MRL_C1);
	t->req = dup_cell(cell, n, MRL_C2);
	t->thread = dup_cell(cell, n, MRL_C3);
	t->age = dup_cell(cell, n, MRL_C4);
	t->wait = dup_cell(cell, n, MRL_C5);
	t->query = dup_cell(cell, n, MRL_C6);
	t->started = dup_cell(cell, n, MRL_C7);
	t->has_id = parse_ull(t->id, &t->id_n);
	t->has_thread = parse_ull(t->thread, &t->thread_n);
	t->structs = n > MRL_C8 && cell[MRL_C8] ? strtoll(cell[MRL_C8], NULL, 10) : 0;
}

static void add_proc(struct mariadb_rl *a, const char *const *cell, int n)
{
	unsigned long long id;
	if (n <= MRL_C7 || !parse_ull(cell[MRL_C1], &id))
		return;
	a->p = grow(a->p, a->np, &a->cap_p, sizeof *a->p);
	struct rl_proc *p = &a->p[a->np++];
	p->id = id;
	p->user = dup_cell(cell, n, MRL_C2);
	p->command = dup_cell(cell, n, MRL_C3);
	p->state = dup_cell(cell, n, MRL_C4);
	p->time = dup_cell(cell, n, MRL_C5);
	p->info = dup_cell(cell, n, MRL_C6);
	p->query_id = dup_cell(cell, n, MRL_C7);
}

/* An 'S' row as a 'P' one: seconds from TIME_MS, the statement cut at
 * LOCK_QUERY_MAX bytes (on a character's start). */
static void add_session(struct mariadb_rl *a, const char *const *cell)
{
	const char *c[MRL__COUNT] = {cell[MRL_KIND]};
	char secs[32] = "";
	char *info = NULL;
	if (cell[MRL_C7])
		str_printf(secs, sizeof secs, "%.3f", strtod(cell[MRL_C7], NULL) / 1000);
	if (cell[MRL_C9]) {
		size_t len = strlen(cell[MRL_C9]);
		if (len > LOCK_QUERY_MAX)
			for (len = LOCK_QUERY_MAX; len > 0 && ((unsigned char)cell[MRL_C9][len] & 0xC0) == 0x80; len--)
				;
		info = xstrndup(cell[MRL_C9], len);
	}
	c[MRL_C1] = cell[MRL_C1], c[MRL_C2] = cell[MRL_C2], c[MRL_C3] = cell[MRL_C5];
	c[MRL_C4] = cell[MRL_C8], c[MRL_C5] = cell[MRL_C7] ? secs : NULL, c[MRL_C6] = info;
	c[MRL_C7] = cell[MRL_C10];
	add_proc(a, c, MRL__COUNT);
	free(info);
}

void mariadb_rl_map_row(struct mariadb_rl *a, const char *const *cell, int ncells)
{
	if (!a || !cell || ncells < MRL__COUNT - 3 || !cell[MRL_KIND])
		return;
	switch (cell[MRL_KIND][0]) {
	case 'L': add_lock(a, cell, ncells); break;
	case 'T': add_trx(a, cell, ncells); break;
	case 'P': add_proc(a, cell, ncells); break;
	case 'S':
		if (ncells >= MRL__COUNT)
			add_session(a, cell);
		break;
	default: break;
	}
}

static bool is(const char *m, const char *want)
{
	return strcasecmp(m, want) == 0;
}

/* Must request r wait for lock b on the same resource (InnoDB's rules)?
 * On a record an insert intention (a waiting gap request) waits for any
 * lock, a record lock for a record (not gap-only) lock unless both are
 * shared; on a table, the IS / IX / S / X / AUTO_INC matrix. */
static bool rl_conflict(const struct rl_lock *r, const struct rl_lock *b)
{
	if (r->rec)
		return r->gap || (!b->gap && !(is(r->m, "S") && is(b->m, "S")));
	if (is(r->m, "IS"))
		return is(b->m, "X");
	if (is(r->m, "IX"))
		return is(b->m, "S") || is(b->m, "X");
	if (is(r->m, "S"))
		return is(b->m, "IX") || is(b->m, "X") || is(b->m, "AUTO_INC");
	if (is(r->m, "AUTO_INC"))
		return is(b->m, "S") || is(b->m, "X") || is(b->m, "AUTO_INC");
	return true;
}

static bool same_k(const struct rl_lock *x, const struct rl_lock *y)
{
	return x->k && y->k && strcmp(x->k, y->k) == 0;
}

static void add_pair(struct mariadb_rl *a, const struct rl_lock *r, const struct rl_lock *b, bool queued)
{
	a->w = grow(a->w, a->nw, &a->cap_w, sizeof *a->w);
	a->w[a->nw++] = (struct rl_pair){r, b, queued};
}

static int by_k(const void *x, const void *y)
{
	const struct rl_lock *const *a = x, *const *b = y;
	if (!(*a)->k || !(*b)->k)
		return (*a)->k ? -1 : (*b)->k ? 1 : 0;
	return strcmp((*a)->k, (*b)->k);
}

/* The requests waiting (their lock ids are INNODB_TRX's requested
 * ones). */
static void mark_waiting(struct mariadb_rl *a)
{
	struct strset req = {0};
	for (size_t j = 0; j < a->nt; j++)
		if (a->t[j].req)
			strset_add(&req, a->t[j].req);
	for (size_t i = 0; i < a->nl; i++)
		a->l[i].waiting = a->l[i].id && strset_has(&req, a->l[i].id);
	strset_clear(&req);
}

/* The pairs of one resource's locks g[0..n): each waiting request with
 * every granted lock of another transaction that it waits for (a trx_id
 * 0 lock of a read-only transaction blocks a trx_id 0 request too); a
 * request no granted lock blocks waits behind the requests queued ahead
 * of it alone: one pair for them, with the least lock id, queued. */
static void pair_group(struct mariadb_rl *a, struct rl_lock **g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct rl_lock *r = g[i], *least = NULL;
		bool granted = false;
		if (!r->waiting)
			continue;
		for (size_t j = 0; j < n; j++) {
			const struct rl_lock *b = g[j];
			if (b->waiting || !b->has_trx || !r->has_trx || (b->trx_n == r->trx_n && r->trx_n != 0) ||
			    !rl_conflict(r, b))
				continue;
			add_pair(a, r, b, false);
			granted = true;
		}
		for (size_t j = 0; !granted && j < n; j++) {
			const struct rl_lock *b = g[j];
			if (!b->waiting || b == r || !r->id || !b->id || strcmp(b->id, r->id) == 0 ||
			    !rl_conflict(r, b))
				continue;
			if (!least || strcmp(b->id, least->id) < 0)
				least = b;
		}
		if (least)
			add_pair(a, r, least, true);
	}
}

/* Every pair, resource by resource. */
static void make_pairs(struct mariadb_rl *a)
{
	struct rl_lock **s = xcalloc(a->nl ? a->nl : 1, sizeof *s);
	for (size_t i = 0; i < a->nl; i++)
		s[i] = &a->l[i];
	qsort(s, a->nl, sizeof *s, by_k);
	for (size_t i = 0, j; i < a->nl; i = j) {
		for (j = i + 1; j < a->nl && same_k(s[i], s[j]); j++)
			;
		if (s[i]->k)
			pair_group(a, s + i, j - i);
	}
	free(s);
}

static int proc_cmp(const void *pa, const void *pb)
{
	const struct rl_proc *x = pa, *y = pb;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The process list row of t (a->p sorted by id: mariadb_rl_finish). */
static const struct rl_proc *proc_of(const struct mariadb_rl *a, const struct rl_trx *t)
{
	if (!t || !t->has_thread || !a->np)
		return NULL;
	struct rl_proc key = {.id = t->thread_n};
	return bsearch(&key, a->p, a->np, sizeof *a->p, proc_cmp);
}

/* The row of a pair: waiter rx (its process list row rp), blocker bx (or
 * NULL: none known) with bp; the MYL_* cells. */
static void emit_row(struct lock_set *ls, struct strset *seen, const struct rl_pair *w, const struct rl_trx *rx,
		     const struct rl_proc *rp, const struct rl_trx *bx, const struct rl_proc *bp)
{
	const char *c[MYL__COUNT] = {0};
	c[MYL_W_ID] = rx->thread;
	if (rp) {
		c[MYL_W_USER] = rp->user, c[MYL_W_COMMAND] = rp->command, c[MYL_W_STATE] = rp->state;
		c[MYL_W_TIME] = rp->time, c[MYL_W_QUERY_ID] = rp->query_id;
	}
	c[MYL_W_TRX_AGE] = rx->age, c[MYL_W_WAIT] = rx->wait;
	c[MYL_W_QUERY] = rx->query ? rx->query : rp ? rp->info : NULL;
	if (bx) {
		c[MYL_B_ID] = bx->has_thread && bx->thread_n == 0 ? NULL : bx->thread;
		c[MYL_B_TRX_AGE] = bx->age, c[MYL_B_WAIT] = bx->wait;
		c[MYL_B_QUERY] = bx->query ? bx->query : bp ? bp->info : NULL;
		c[MYL_B_TRX_ID] = bx->id, c[MYL_B_TRX_STARTED] = bx->started;
	}
	if (bp) {
		c[MYL_B_USER] = bp->user, c[MYL_B_COMMAND] = bp->command, c[MYL_B_STATE] = bp->state;
		c[MYL_B_TIME] = bp->time, c[MYL_B_QUERY_ID] = bp->query_id;
	}
	c[MYL_TABLE] = w->r->table, c[MYL_INDEX] = w->r->index, c[MYL_LOCK_TYPE] = w->r->type;
	c[MYL_REQUESTED] = w->r->mode, c[MYL_HELD] = w->b->mode;
	c[MYL_LOCK_DATA] = w->r->data, c[MYL_HELD_DATA] = w->b->data;
	c[MYL_HELD_STATUS] = w->queued ? "PENDING" : "GRANTED";
	c[MYL_W_TRX_ID] = rx->id, c[MYL_W_TRX_STARTED] = rx->started;
	/* DISTINCT: every read-only transaction has trx_id 0, so the joins
	 * on it repeat rows */
	struct strbuf key;
	sb_init(&key);
	for (int i = 0; i < MYL__COUNT; i++)
		sb_printf(&key, "%c%s", c[i] ? '\x1f' : '\x1e', c[i] ? c[i] : "");
	if (strset_add(seen, key.s ? key.s : ""))
		mysql_locks_map_row(ls, c, MYL__COUNT);
	sb_free(&key);
}

/* The transactions by id (those without one last), in their row order
 * within an id: ids_range finds an id's in O(log n). */
struct rl_ids {
	const struct rl_trx **t;
	size_t n;
};

static int ids_cmp(const void *pa, const void *pb)
{
	const struct rl_trx *x = *(const struct rl_trx *const *)pa, *y = *(const struct rl_trx *const *)pb;
	if (x->has_id != y->has_id)
		return x->has_id ? -1 : 1;
	if (x->has_id && x->id_n != y->id_n)
		return x->id_n < y->id_n ? -1 : 1;
	return x < y ? -1 : x > y; /* the row order */
}

static void ids_make(struct rl_ids *ix, const struct mariadb_rl *a)
{
	ix->n = a->nt;
	ix->t = xcalloc(a->nt ? a->nt : 1, sizeof *ix->t);
	for (size_t i = 0; i < a->nt; i++)
		ix->t[i] = &a->t[i];
	qsort(ix->t, ix->n, sizeof *ix->t, ids_cmp);
}

/* The transactions of trx_id id: ix->t[*from .. returned end). */
static size_t ids_range(const struct rl_ids *ix, unsigned long long id, size_t *from)
{
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->t[mid]->has_id && ix->t[mid]->id_n < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < ix->n && ix->t[end]->has_id && ix->t[end]->id_n == id)
		end++;
	*from = lo;
	return end;
}

/* The holders of the blocking lock of w: the transactions of its trx_id
 * that hold locks (a queued blocker: the one that asks for it; a granted
 * one: not one that waits for this very lock); one row each, or one
 * without a holder when none is found and the lock is not a read-only
 * transaction's (trx_id 0). */
static void emit_pair(struct mariadb_rl *a, const struct rl_ids *ix, struct lock_set *ls, struct strset *seen,
		      const struct rl_pair *w, const struct rl_trx *rx)
{
	const struct rl_proc *rp = proc_of(a, rx);
	bool any = false;
	size_t j = 0, end = w->b->has_trx ? ids_range(ix, w->b->trx_n, &j) : 0;
	for (; j < end; j++) {
		const struct rl_trx *bx = ix->t[j];
		if (bx->structs <= 0)
			continue;
		if (!w->queued && bx->req && w->b->id && strcasecmp(bx->req, w->b->id) == 0)
			continue;
		emit_row(ls, seen, w, rx, rp, bx, proc_of(a, bx));
		any = true;
	}
	if (!any && w->b->has_trx && w->b->trx_n != 0)
		emit_row(ls, seen, w, rx, rp, NULL, NULL);
}

static void free_all(struct mariadb_rl *a)
{
	for (size_t i = 0; i < a->nl; i++) {
		struct rl_lock *l = &a->l[i];
		free(l->id), free(l->trx), free(l->mode), free(l->type), free(l->table);
		free(l->index), free(l->data), free(l->k);
	}
	for (size_t i = 0; i < a->nt; i++) {
		struct rl_trx *t = &a->t[i];
		free(t->id), free(t->req), free(t->thread), free(t->age), free(t->wait);
		free(t->query), free(t->started);
	}
	for (size_t i = 0; i < a->np; i++) {
		struct rl_proc *p = &a->p[i];
		free(p->user), free(p->command), free(p->state), free(p->time), free(p->info);
		free(p->query_id);
	}
	free(a->l), free(a->t), free(a->p), free(a->w);
	free(a);
}

void mariadb_rl_finish(struct mariadb_rl *a, struct lock_set *ls)
{
	struct strset seen = {0};
	if (!a)
		return;
	mark_waiting(a);
	make_pairs(a);
	if (a->np > 1)
		qsort(a->p, a->np, sizeof *a->p, proc_cmp);
	struct rl_ids ix;
	ids_make(&ix, a);
	for (size_t i = 0; ls && i < a->nw; i++) {
		const struct rl_pair *w = &a->w[i];
		if (!w->r->has_trx || !w->r->id)
			continue;
		/* the waiter: the transaction of the request that asks for it */
		size_t j = 0, end = ids_range(&ix, w->r->trx_n, &j);
		for (; j < end; j++)
			if (ix.t[j]->req && strcasecmp(ix.t[j]->req, w->r->id) == 0)
				emit_pair(a, &ix, ls, &seen, w, ix.t[j]);
	}
	free(ix.t);
	strset_clear(&seen);
	free_all(a);
}
