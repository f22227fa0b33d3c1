/* sessions.c - the session list of one refresh: building, copying,
 * linking to the lock graph, counting, sorting and JSON. */
#include "sessions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/redact.h"
#include "../util/util.h"

struct session_set *session_set_new(void)
{
	struct session_set *ss = xcalloc(1, sizeof *ss);
	ss->status = SESS_OK;
	return ss;
}

void session_set_free(struct session_set *ss)
{
	if (!ss)
		return;
	for (size_t i = 0; i < ss->n; i++)
		free(ss->s[i].query);
	free(ss->s);
	free(ss);
}

struct session_set *session_set_copy(const struct session_set *ss)
{
	if (!ss)
		return NULL;
	struct session_set *c = xmalloc(sizeof *c);
	*c = *ss;
	c->cap = ss->n;
	c->texts = NULL;
	c->s = xmalloc((ss->n ? ss->n : 1) * sizeof *c->s);
	if (ss->n)
		memcpy(c->s, ss->s, ss->n * sizeof *c->s);
	for (size_t i = 0; i < c->n; i++)
		if (c->s[i].query)
			c->s[i].query = xstrdup(c->s[i].query);
	return c;
}

struct session *session_add(struct session_set *ss, long long id)
{
	if (ss->n == ss->cap) {
		ss->cap = ss->cap ? ss->cap * 2 : 64;
		ss->s = xrealloc(ss->s, ss->cap * sizeof *ss->s);
	}
	struct session *s = &ss->s[ss->n++];
	memset(s, 0, sizeof *s);
	s->id = id;
	s->cls = SC_OTHER;
	s->state_s = s->trx_age_s = s->query_s = NAN;
	return s;
}

void session_set_query_from(struct session *s, struct text_cache *tc, const char *q, bool is_last)
{
	free(s->query);
	s->query = NULL;
	s->query_is_last = is_last;
	s->query = statement_keep_cached(tc, q, SESSION_QUERY_MAX - 1);
}

void session_set_query(struct session *s, const char *q, bool is_last)
{
	session_set_query_from(s, NULL, q, is_last);
}

struct session *session_find(const struct session_set *ss, long long id)
{
	if (!ss)
		return NULL;
	for (size_t i = 0; i < ss->n; i++)
		if (ss->s[i].id == id)
			return &ss->s[i];
	return NULL;
}

static int sess_by_id(const void *a, const void *b)
{
	const struct session *x = *(const struct session *const *)a, *y = *(const struct session *const *)b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x < y ? -1 : x > y; /* the first of an id first, as session_find */
}

/* The list's session of id among its sessions sorted by id (NULL: none). */
static struct session *sess_lookup(struct session *const *by, size_t n, long long id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (by[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && by[lo]->id == id ? by[lo] : NULL;
}

/* Each waiter of the graph: its blockers (counted once each; the first
 * edge's named), looked up by id among the list's sessions. The edges by
 * waiter (counting sort, in their order) and the list by id: 500 waiters
 * among 3,000 sessions take O(n log n), not waiters x (edges + sessions). */
void session_set_link_locks(struct session_set *ss, const struct lock_set *ls)
{
	if (!ss || !ls || ls->status != LOCKS_READ || !ls->ne || !ss->n)
		return;
	size_t *at = xcalloc(ls->ns + 1, sizeof *at), *edge = xcalloc(ls->ne, sizeof *edge);
	struct session **by = xcalloc(ss->n, sizeof *by);
	for (size_t k = 0; k < ls->ne; k++)
		if (ls->e[k].waiter >= 0 && (size_t)ls->e[k].waiter < ls->ns)
			at[ls->e[k].waiter + 1]++;
	for (size_t i = 0; i < ls->ns; i++)
		at[i + 1] += at[i];
	size_t *fill = xcalloc(ls->ns + 1, sizeof *fill);
	memcpy(fill, at, (ls->ns + 1) * sizeof *fill);
	for (size_t k = 0; k < ls->ne; k++)
		if (ls->e[k].waiter >= 0 && (size_t)ls->e[k].waiter < ls->ns)
			edge[fill[ls->e[k].waiter]++] = k;
	free(fill);
	for (size_t i = 0; i < ss->n; i++)
		by[i] = &ss->s[i];
	qsort(by, ss->n, sizeof *by, sess_by_id);
	for (size_t i = 0; i < ls->ns; i++) {
		struct session *w = at[i] < at[i + 1] ? sess_lookup(by, ss->n, ls->s[i].id) : NULL;
		if (!w)
			continue;
		long long first = ls->s[ls->e[edge[at[i]]].blocker].id;
		int n = 0;
		for (size_t a = at[i]; a < at[i + 1]; a++) {
			long long b = ls->s[ls->e[edge[a]].blocker].id;
			bool seen = false;
			for (size_t j = at[i]; j < a && !seen; j++)
				seen = ls->s[ls->e[edge[j]].blocker].id == b;
			n += !seen;
		}
		if (w->cls == SC_ACTIVE || w->cls == SC_OTHER)
			w->cls = SC_LOCK_WAIT;
		if (w->nblockers == 0) {   /* the source's own count stands */
			w->blocked_by = first;
			w->nblockers = n;
		}
	}
	free(at), free(edge), free(by);
}

void session_counts(const struct session_set *ss, struct session_counts *c)
{
	memset(c, 0, sizeof *c);
	if (!ss)
		return;
	c->total = c->idle = ss->idle_unread;
	for (size_t i = 0; i < ss->n; i++) {
		c->total++;
		switch (ss->s[i].cls) {
		case SC_ACTIVE: c->active++; break;
		case SC_LOCK_WAIT: c->lock_wait++; break;
		case SC_IDLE_IN_TRX: c->idle_in_trx++; break;
		case SC_IDLE: c->idle++; break;
		case SC_BACKGROUND: c->background++; break;
		default: c->other++; break;
		}
	}
}

const char *session_class_name(enum session_class c)
{
	switch (c) {
	case SC_ACTIVE: return "active";
	case SC_LOCK_WAIT: return "waiting for lock";
	case SC_IDLE_IN_TRX: return "idle in transaction";
	case SC_IDLE: return "idle";
	case SC_BACKGROUND: return "background";
	case SC_OTHER: return "other";
	}
	return "other";
}

const char *session_status_name(enum session_status st)
{
	switch (st) {
	case SESS_OK: return "ok";
	case SESS_PARTIAL: return "partial";
	case SESS_UNAVAILABLE: return "unavailable";
	case SESS_NOT_READ: return "not read";
	}
	return "unavailable";
}

static const char *const col_names[SCOL__COUNT] = {
	[SCOL_ID] = "id",
	[SCOL_USER] = "user",
	[SCOL_DB] = "db",
	[SCOL_CLIENT] = "client",
	[SCOL_APP] = "app",
	[SCOL_STATE] = "state",
	[SCOL_WAIT] = "wait",
	[SCOL_STATE_S] = "time",
	[SCOL_TRX_AGE] = "trx age",
	[SCOL_QUERY_S] = "query time",
	[SCOL_QUERY] = "query",
	[SCOL_BLOCKED_BY] = "blocked by",
};

const char *session_col_name(enum session_col col)
{
	return col >= 0 && col < SCOL__COUNT ? col_names[col] : "?";
}

/* Rank of a class in the state column: the ones that need attention first. */
static int class_rank(enum session_class c)
{
	switch (c) {
	case SC_LOCK_WAIT: return 0;
	case SC_ACTIVE: return 1;
	case SC_IDLE_IN_TRX: return 2;
	case SC_IDLE: return 3;
	case SC_OTHER: return 4;
	case SC_BACKGROUND: return 5;
	}
	return 6;
}

/* The column and direction of a sort. */
struct sort_ctx {
	const struct session_set *ss;
	enum session_col col;
	bool reverse;
};

/* -1 / 0 / 1 for two texts; "" (unknown) goes last whatever the direction:
 * *last tells the caller to ignore reverse. */
static int cmp_text(const char *a, const char *b, int *last)
{
	bool ea = !a || !a[0], eb = !b || !b[0];
	if (ea || eb) {
		*last = ea == eb ? 0 : ea ? 1 : -1;
		return 0;
	}
	int r = strcasecmp(a, b);
	return r < 0 ? -1 : r > 0;
}

static int cmp_num(double a, double b, int *last)
{
	bool ea = isnan(a), eb = isnan(b);
	if (ea || eb) {
		*last = ea == eb ? 0 : ea ? 1 : -1;
		return 0;
	}
	return a < b ? -1 : a > b;
}

static int cmp_session(const void *pa, const void *pb, void *ctx)
{
	const struct sort_ctx *sc = ctx;
	const struct session *a = &sc->ss->s[*(const size_t *)pa];
	const struct session *b = &sc->ss->s[*(const size_t *)pb];
	int r = 0, last = 0;
	switch (sc->col) {
	case SCOL_ID: r = a->id < b->id ? -1 : a->id > b->id; break;
	case SCOL_USER: r = cmp_text(a->user, b->user, &last); break;
	case SCOL_DB: r = cmp_text(a->db, b->db, &last); break;
	case SCOL_CLIENT: r = cmp_text(a->client, b->client, &last); break;
	case SCOL_APP: r = cmp_text(a->app, b->app, &last); break;
	case SCOL_STATE:
		r = class_rank(a->cls) - class_rank(b->cls);
		r = r < 0 ? -1 : r > 0;
		if (!r)
			r = cmp_text(a->state, b->state, &last);
		break;
	case SCOL_WAIT: r = cmp_text(a->wait, b->wait, &last); break;
	case SCOL_STATE_S: r = cmp_num(a->state_s, b->state_s, &last); break;
	case SCOL_TRX_AGE: r = cmp_num(a->trx_age_s, b->trx_age_s, &last); break;
	case SCOL_QUERY_S: r = cmp_num(a->query_s, b->query_s, &last); break;
	case SCOL_QUERY: r = cmp_text(a->query, b->query, &last); break;
	case SCOL_BLOCKED_BY:
		r = cmp_num(a->blocked_by ? (double)a->blocked_by : NAN, b->blocked_by ? (double)b->blocked_by : NAN,
			    &last);
		break;
	default: break;
	}
	if (last)
		return last;
	if (r)
		return sc->reverse ? -r : r;
	return a->id < b->id ? -1 : a->id > b->id;
}

void session_sort(const struct session_set *ss, enum session_col col, bool reverse, size_t *order)
{
	if (!ss)
		return;
	for (size_t i = 0; i < ss->n; i++)
		order[i] = i;
	if (ss->n < 2)
		return;
	struct sort_ctx sc = {ss, col >= 0 && col < SCOL__COUNT ? col : SCOL_ID, reverse};
	sort_r(order, ss->n, sizeof *order, cmp_session, &sc);
}

static void json_text(struct strbuf *out, const char *name, const char *v)
{
	sb_printf(out, ",\"%s\":", name);
	if (v[0])
		json_str(out, v);
	else
		sb_puts(out, "null");
}

void session_set_json(struct strbuf *out, const struct session_set *ss)
{
	if (!ss)
		return;
	struct session_counts c;
	session_counts(ss, &c);
	sb_printf(out, ",\"sessions_status\":\"%s\"", session_status_name(ss->status));
	if (ss->note[0]) {
		char note[SESSION_NOTE_LEN];
		str_copy(note, sizeof note, ss->note);
		sb_puts(out, ",\"sessions_note\":");
		json_str(out, text_sanitize(note));
	}
	if (ss->age_s > 0)
		sb_printf(out, ",\"sessions_age_s\":%.1f", ss->age_s);
	sb_printf(out, ",\"sessions_query_ms\":%.3f", ss->query_ms);
	sb_printf(out,
		  ",\"sessions_count\":{\"total\":%u,\"active\":%u,\"lock_wait\":%u,\"idle_in_trx\":%u,\"idle\":%u,"
		  "\"background\":%u,\"other\":%u}",
		  c.total, c.active, c.lock_wait, c.idle_in_trx, c.idle, c.background, c.other);
	sb_puts(out, ",\"sessions\":[");
	for (size_t i = 0; i < ss->n; i++) {
		const struct session *s = &ss->s[i];
		if (i)
			sb_putc(out, ',');
		sb_printf(out, "{\"id\":%lld", s->id);
		json_text(out, "user", s->user);
		json_text(out, "db", s->db);
		json_text(out, "client", s->client);
		json_text(out, "app", s->app);
		json_text(out, "type", s->type);
		sb_puts(out, ",\"class\":");
		json_str(out, session_class_name(s->cls));
		json_text(out, "state", s->state);
		json_text(out, "wait", s->wait);
		sb_puts(out, ",\"state_s\":");
		json_num(out, s->state_s);
		sb_puts(out, ",\"trx_age_s\":");
		json_num(out, s->trx_age_s);
		sb_puts(out, ",\"query_s\":");
		json_num(out, s->query_s);
		sb_puts(out, ",\"query\":");
		json_statement(out, s->query);
		sb_printf(out, ",\"query_is_last\":%s", s->query_is_last ? "true" : "false");
		json_text(out, "digest", s->digest);
		sb_puts(out, ",\"blocked_by\":");
		if (s->blocked_by)
			sb_printf(out, "%lld", s->blocked_by);
		else
			sb_puts(out, "null");
		sb_printf(out, ",\"blockers\":%d,\"self\":%s}", s->nblockers, s->self ? "true" : "false");
	}
	sb_putc(out, ']');
}
