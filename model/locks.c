/* locks.c - lock-wait snapshots and their analysis into chains. */
#include "locks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../util/redact.h"
#include "../util/util.h"

struct lock_set *lock_set_new(void)
{
	return xcalloc(1, sizeof(struct lock_set));
}

void lock_set_free(struct lock_set *ls)
{
	if (!ls)
		return;
	for (size_t i = 0; i < ls->ns; i++)
		free(ls->s[i].query);
	free(ls->s);
	free(ls->e);
	free(ls);
}

struct lock_set *lock_set_copy(const struct lock_set *ls)
{
	struct lock_set *c = xmalloc(sizeof *c);
	*c = *ls;
	c->cap_s = ls->ns;
	c->cap_e = ls->ne;
	c->texts = NULL;
	c->s = xmalloc((ls->ns ? ls->ns : 1) * sizeof *c->s);
	c->e = xmalloc((ls->ne ? ls->ne : 1) * sizeof *c->e);
	if (ls->ns)
		memcpy(c->s, ls->s, ls->ns * sizeof *c->s);
	if (ls->ne)
		memcpy(c->e, ls->e, ls->ne * sizeof *c->e);
	for (size_t i = 0; i < c->ns; i++)
		if (c->s[i].query)
			c->s[i].query = xstrdup(c->s[i].query);
	return c;
}

int lock_session_get(struct lock_set *ls, long long id)
{
	for (size_t i = ls->ns; i-- > 0;)
		if (ls->s[i].id == id)
			return (int)i;
	if (ls->ns == ls->cap_s) {
		ls->cap_s = ls->cap_s ? ls->cap_s * 2 : 16;
		ls->s = xrealloc(ls->s, ls->cap_s * sizeof *ls->s);
	}
	struct lock_session *s = &ls->s[ls->ns];
	memset(s, 0, sizeof *s);
	s->id = id;
	s->state_s = s->trx_age_s = s->wait_s = NAN;
	s->root = -1;
	return (int)ls->ns++;
}

void lock_session_query_from(struct lock_session *s, struct text_cache *tc, const char *q, bool is_last)
{
	free(s->query);
	s->query = NULL;
	s->query_is_last = is_last;
	s->query = statement_keep_cached(tc, q, LOCK_QUERY_MAX - 1);
}

void lock_session_query(struct lock_session *s, const char *q, bool is_last)
{
	lock_session_query_from(s, NULL, q, is_last);
}

struct lock_edge *lock_edge_add(struct lock_set *ls, long long waiter, long long blocker)
{
	if (waiter == blocker)
		return NULL;
	int w = lock_session_get(ls, waiter), b = lock_session_get(ls, blocker);
	if (ls->ne == ls->cap_e) {
		ls->cap_e = ls->cap_e ? ls->cap_e * 2 : 16;
		ls->e = xrealloc(ls->e, ls->cap_e * sizeof *ls->e);
	}
	struct lock_edge *e = &ls->e[ls->ne++];
	memset(e, 0, sizeof *e);
	e->waiter = w;
	e->blocker = b;
	e->root = -1;
	return e;
}

/* Adjacency in compressed rows: for node i, idx[off[i] .. off[i+1]) are
 * edge numbers whose `from` end is i. */
struct adj {
	int *off, *idx;
};

static void adj_build(struct adj *a, const struct lock_set *ls, bool by_blocker)
{
	size_t n = ls->ns;
	a->off = xcalloc(n + 1, sizeof *a->off);
	a->idx = xmalloc((ls->ne ? ls->ne : 1) * sizeof *a->idx);
	for (size_t k = 0; k < ls->ne; k++)
		a->off[(by_blocker ? ls->e[k].blocker : ls->e[k].waiter) + 1]++;
	for (size_t i = 0; i < n; i++)
		a->off[i + 1] += a->off[i];
	int *fill = xmalloc((n ? n : 1) * sizeof *fill);
	for (size_t i = 0; i < n; i++)
		fill[i] = a->off[i];
	for (size_t k = 0; k < ls->ne; k++)
		a->idx[fill[by_blocker ? ls->e[k].blocker : ls->e[k].waiter]++] = (int)k;
	free(fill);
}

static void adj_free(struct adj *a)
{
	free(a->off);
	free(a->idx);
}

/* Strongly connected components of the wait-for graph (waiter -> blocker),
 * iterative Tarjan; comp[i] gets a component number, size[c] its size. */
static void scc(const struct lock_set *ls, const struct adj *out, int *comp, int *size)
{
	int n = (int)ls->ns, counter = 0, ncomp = 0, sp = 0, cs = 0;
	int *index = xmalloc((size_t)(n ? n : 1) * sizeof(int));
	int *low = xmalloc((size_t)(n ? n : 1) * sizeof(int));
	int *stack = xmalloc((size_t)(n ? n : 1) * sizeof(int));
	bool *on = xcalloc((size_t)(n ? n : 1), sizeof(bool));
	int *cnode = xmalloc((size_t)(n ? n : 1) * sizeof(int)); /* call stack: node */
	int *cpos = xmalloc((size_t)(n ? n : 1) * sizeof(int));  /* call stack: next edge */
	for (int i = 0; i < n; i++)
		index[i] = -1;
	for (int r = 0; r < n; r++) {
		if (index[r] >= 0)
			continue;
		cnode[cs] = r;
		cpos[cs++] = out->off[r];
		index[r] = low[r] = counter++;
		stack[sp++] = r;
		on[r] = true;
		while (cs > 0) {
			int v = cnode[cs - 1];
			if (cpos[cs - 1] < out->off[v + 1]) {
				int w = ls->e[out->idx[cpos[cs - 1]++]].blocker;
				if (index[w] < 0) {
					index[w] = low[w] = counter++;
					stack[sp++] = w;
					on[w] = true;
					cnode[cs] = w;
					cpos[cs++] = out->off[w];
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			if (low[v] == index[v]) {
				int w, k = 0;
				do {
					w = stack[--sp];
					on[w] = false;
					comp[w] = ncomp;
					k++;
				} while (w != v);
				size[ncomp++] = k;
			}
			cs--;
			if (cs > 0) {
				int u = cnode[cs - 1];
				if (low[v] < low[u])
					low[u] = low[v];
			}
		}
	}
	free(index);
	free(low);
	free(stack);
	free(on);
	free(cnode);
	free(cpos);
}

/* Root order: one seen in this sample only after the others, then most
 * sessions blocked, then the oldest transaction, then id. */
static int cmp_root(const void *a, const void *b, void *ctx)
{
	const struct lock_set *ls = ctx;
	const struct lock_session *x = &ls->s[*(const int *)a], *y = &ls->s[*(const int *)b];
	bool xn = x->root_samples == 1, yn = y->root_samples == 1;
	if (xn != yn)
		return xn ? 1 : -1;
	if (x->blocked != y->blocked)
		return x->blocked > y->blocked ? -1 : 1;
	double xa = isnan(x->trx_age_s) ? -1 : x->trx_age_s, ya = isnan(y->trx_age_s) ? -1 : y->trx_age_s;
	if (xa != ya)
		return xa > ya ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Breadth-first from root r over blocker -> waiter edges: sessions reached
 * get root/depth when they have none or a longer one; returns how many
 * distinct sessions r blocks. */
static int spread(struct lock_set *ls, const struct adj *in, int r, int *queue, int *seen, int mark)
{
	int head = 0, tail = 0, *dist = NULL, count = 0;
	dist = xmalloc(ls->ns * sizeof *dist);
	queue[tail++] = r;
	seen[r] = mark;
	dist[r] = 0;
	while (head < tail) {
		int v = queue[head++];
		for (int k = in->off[v]; k < in->off[v + 1]; k++) {
			int w = ls->e[in->idx[k]].waiter;
			if (seen[w] == mark)
				continue;
			seen[w] = mark;
			dist[w] = dist[v] + 1;
			queue[tail++] = w;
			count++;
			struct lock_session *s = &ls->s[w];
			if (s->root < 0 || dist[w] < s->depth) {
				s->root = r;
				s->depth = dist[w];
			}
		}
	}
	free(dist);
	return count;
}

void lock_set_analyse(struct lock_set *ls)
{
	size_t n = ls->ns;
	ls->nroots = ls->ncycles = 0;
	if (n == 0)
		return;
	struct adj out, in;
	adj_build(&out, ls, false);
	adj_build(&in, ls, true);
	int *comp = xmalloc(n * sizeof *comp), *size = xmalloc(n * sizeof *size);
	int *queue = xmalloc(n * sizeof *queue), *seen = xcalloc(n, sizeof *seen);
	int *roots = xmalloc(n * sizeof *roots), nr = 0;
	scc(ls, &out, comp, size);
	for (size_t i = 0; i < n; i++) {
		struct lock_session *s = &ls->s[i];
		s->waits = out.off[i + 1] > out.off[i];
		s->blocks = in.off[i + 1] > in.off[i];
		s->in_cycle = size[comp[i]] > 1;
		s->is_root = s->blocks && !s->waits;
		s->root = s->is_root ? (int)i : -1;
		s->depth = 0;
		s->blocked = 0;
		if (s->in_cycle)
			ls->ncycles++;
	}
	int mark = 0;
	for (size_t i = 0; i < n; i++)
		if (ls->s[i].is_root) {
			roots[nr++] = (int)i;
			ls->s[i].blocked = spread(ls, &in, (int)i, queue, seen, ++mark);
		}
	/* a cycle no root reaches: its member with the oldest transaction
	 * (then the lowest id) heads it */
	for (size_t i = 0; i < n; i++) {
		if (!ls->s[i].in_cycle || ls->s[i].root >= 0)
			continue;
		int head = (int)i;
		for (size_t j = 0; j < n; j++) {
			if (comp[j] != comp[i])
				continue;
			const struct lock_session *a = &ls->s[j], *h = &ls->s[head];
			double aa = isnan(a->trx_age_s) ? -1 : a->trx_age_s, ha = isnan(h->trx_age_s) ? -1 : h->trx_age_s;
			if (aa > ha || (aa == ha && a->id < h->id))
				head = (int)j;
		}
		struct lock_session *h = &ls->s[head];
		h->is_root = true;
		h->root = head;
		h->depth = 0;
		roots[nr++] = head;
		h->blocked = spread(ls, &in, head, queue, seen, ++mark);
	}
	ls->nroots = nr;
	for (size_t k = 0; k < ls->ne; k++) {
		struct lock_edge *e = &ls->e[k];
		const struct lock_session *w = &ls->s[e->waiter];
		e->root = w->root;
		e->depth = w->is_root ? 0 : w->depth;
		e->cycle = comp[e->waiter] == comp[e->blocker] && size[comp[e->waiter]] > 1;
	}
	adj_free(&out);
	adj_free(&in);
	free(comp);
	free(size);
	free(queue);
	free(seen);
	free(roots);
}

/* The same session in the same transaction, as far as both tell. */
static bool same_trx(const struct session_ident *a, const struct session_ident *b)
{
	if (a->start_us && b->start_us && a->start_us != b->start_us)
		return false;
	if (a->xact_us && b->xact_us && a->xact_us != b->xact_us)
		return false;
	return !(a->trx_id[0] && b->trx_id[0] && strcmp(a->trx_id, b->trx_id) != 0);
}

void lock_set_carry(struct lock_set *ls, const struct lock_set *prev)
{
	/* nothing waited before (idle): every root is new; a graph not read
	 * (none, timed out, pending): not known */
	bool known = prev && (prev->status == LOCKS_READ || prev->status == LOCKS_IDLE);
	for (size_t i = 0; i < ls->ns; i++) {
		struct lock_session *s = &ls->s[i];
		s->root_samples = 0;
		if (!s->is_root || !known)
			continue;
		int before = 0;
		for (size_t j = 0; prev->status == LOCKS_READ && j < prev->ns; j++) {
			const struct lock_session *p = &prev->s[j];
			if (p->is_root && p->id == s->id && same_trx(&p->ident, &s->ident)) {
				before = p->root_samples > 0 ? p->root_samples : 1;
				break;
			}
		}
		s->root_samples = before < 1000000 ? before + 1 : before;
	}
}

/* Waiter order under one blocker: longest wait first, then id. */
static int cmp_child(const void *a, const void *b, void *ctx)
{
	const struct lock_set *ls = ctx;
	const struct lock_edge *x = &ls->e[*(const int *)a], *y = &ls->e[*(const int *)b];
	const struct lock_session *p = &ls->s[x->waiter], *q = &ls->s[y->waiter];
	double pw = isnan(p->wait_s) ? -1 : p->wait_s, qw = isnan(q->wait_s) ? -1 : q->wait_s;
	if (pw != qw)
		return pw > qw ? -1 : 1;
	if (p->id != q->id)
		return p->id < q->id ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

size_t lock_tree_rows(const struct lock_set *ls, struct lock_row **rows)
{
	size_t n = ls->ns, nrows = 0, cap = ls->ns + ls->ne + 1;
	struct lock_row *r = xmalloc(cap * sizeof *r);
	*rows = r;
	if (n == 0)
		return 0;
	struct adj in;
	adj_build(&in, ls, true);
	for (size_t i = 0; i < n; i++)
		sort_r(in.idx + in.off[i], (size_t)(in.off[i + 1] - in.off[i]), sizeof(int), cmp_child, (void *)ls);
	int *roots = xmalloc(n * sizeof *roots), nr = 0;
	for (size_t i = 0; i < n; i++)
		if (ls->s[i].is_root)
			roots[nr++] = (int)i;
	sort_r(roots, (size_t)nr, sizeof *roots, cmp_root, (void *)ls);
	bool *done = xcalloc(n, sizeof *done);
	/* explicit depth-first stack of (edge index cursor) per level */
	int *node = xmalloc((n + 1) * sizeof *node), *pos = xmalloc((n + 1) * sizeof *pos);
	for (int k = 0; k < nr; k++) {
		int rt = roots[k], sp = 0;
		r[nrows++] = (struct lock_row){ .session = rt, .edge = -1, .depth = 0, .repeat = done[rt] };
		if (done[rt])
			continue;
		done[rt] = true;
		node[sp] = rt;
		pos[sp++] = in.off[rt];
		while (sp > 0) {
			int v = node[sp - 1];
			if (pos[sp - 1] >= in.off[v + 1]) {
				sp--;
				continue;
			}
			int ei = in.idx[pos[sp - 1]++], w = ls->e[ei].waiter;
			if (nrows == cap) {
				cap *= 2;
				r = xrealloc(r, cap * sizeof *r);
				*rows = r;
			}
			r[nrows++] = (struct lock_row){ .session = w, .edge = ei, .depth = sp, .repeat = done[w] };
			if (done[w] || (size_t)sp >= n)
				continue;
			done[w] = true;
			node[sp] = w;
			pos[sp++] = in.off[w];
		}
	}
	free(node);
	free(pos);
	free(done);
	free(roots);
	adj_free(&in);
	return nrows;
}

/* "42s", "3.2s", "12m05s", "3h07m". */
static void dur_text(double s, char *out, size_t len)
{
	if (isnan(s) || s < 0)
		str_copy(out, len, "");
	else if (s < 10)
		str_printf(out, len, "%.1fs", s);
	else if (s < 60)
		str_printf(out, len, "%.0fs", s);
	else if (s < 3600)
		str_printf(out, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
	else
		str_printf(out, len, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

void lock_state_text(const struct lock_session *s, char *out, size_t len)
{
	char d[24];
	dur_text(s->state_s, d, sizeof d);
	if (!s->state[0])
		str_copy(out, len, d[0] ? d : "?");
	else if (d[0])
		str_printf(out, len, "%s %s", s->state, d);
	else
		str_copy(out, len, s->state);
}

void session_time_text(long long us, char *out, size_t len)
{
	struct tm tm;
	time_t t;
	char d[32];
	if (us == 0) {
		str_copy(out, len, "?");
		return;
	}
	t = (time_t)(us / 1000000);
	long long frac = us % 1000000;
	if (frac < 0) {
		t--;
		frac += 1000000;
	}
	if (!localtime_r(&t, &tm) || !strftime(d, sizeof d, "%Y-%m-%d %H:%M:%S", &tm)) {
		str_printf(out, len, "%lld us", us);
		return;
	}
	str_printf(out, len, "%s.%03lld", d, frac / 1000);
}

void session_ident_text(const struct session_ident *id, bool cancel, char *out, size_t len)
{
	char a[40], b[40], c[40];
	if (!id->known) {
		str_copy(out, len, "not known");
		return;
	}
	if (id->start_us) {
		session_time_text(id->start_us, a, sizeof a);
		session_time_text(id->xact_us, b, sizeof b);
		session_time_text(id->stmt_us, c, sizeof c);
		str_printf(out, len, "started %s%s%s%s%s", a, id->xact_us ? ", transaction begun " : ", no transaction",
			   id->xact_us ? b : "", cancel && id->stmt_us ? ", statement begun " : "",
			   cancel && id->stmt_us ? c : "");
		return;
	}
	bool stmt = id->query_id && (cancel || !id->trx_id[0] || strcmp(id->trx_id, "0") == 0);
	if (id->trx_id[0] && !stmt && id->query_id)
		/* MariaDB, a kill: session_ident_same() takes either */
		str_printf(out, len, "transaction %s begun %s (or no statement since query id %lld)", id->trx_id,
			   id->trx_started, id->query_id);
	else if (id->trx_id[0])
		str_printf(out, len, "%s %s begun %s",
			   strcmp(id->trx_id, "0") == 0 ? "read-only transaction" : "transaction", id->trx_id,
			   id->trx_started);
	else
		str_copy(out, len, "no transaction");
	if (stmt) {
		size_t n = strlen(out);
		str_printf(out + n, len - n, ", statement query id %lld", id->query_id);
	}
}

/* Two times as text (a: x, b: y); with microseconds when they would read
 * the same to the millisecond. */
static void two_times(long long x, long long y, char *a, char *b, size_t len)
{
	session_time_text(x, a, len);
	session_time_text(y, b, len);
	if (x != y && strcmp(a, b) == 0) {
		size_t n = strlen(a);
		long long ux = ((x % 1000) + 1000) % 1000, uy = ((y % 1000) + 1000) % 1000;
		str_printf(a + n, len - n, "%03lld", ux);
		str_printf(b + n, len - n, "%03lld", uy);
	}
}

bool session_ident_same(const struct session_ident *saw, const struct session_ident *now, bool present,
			bool cancel, char *why, size_t len)
{
	char a[40], b[40];
	if (!present) {
		str_copy(why, len, "it has ended since");
		return false;
	}
	if (saw->start_us) {
		/* PostgreSQL */
		if (now->start_us != saw->start_us) {
			two_times(now->start_us, saw->start_us, a, b, sizeof a);
			str_printf(why, len, "it started at %s (the one you saw at %s)", a, b);
			return false;
		}
		if (saw->xact_us && now->xact_us != saw->xact_us) {
			two_times(now->xact_us, saw->xact_us, a, b, sizeof a);
			if (now->xact_us)
				str_printf(why, len, "it began another transaction at %s (you saw one begun at %s)", a, b);
			else
				str_printf(why, len, "its transaction begun at %s has ended", b);
			return false;
		}
		if (cancel && saw->stmt_us && now->stmt_us != saw->stmt_us) {
			two_times(now->stmt_us, saw->stmt_us, a, b, sizeof a);
			str_printf(why, len, "it runs another statement, begun at %s (you saw one begun at %s)", a, b);
			return false;
		}
		return true;
	}
	/* MySQL / MariaDB; MariaDB's QUERY_ID unchanged: no statement since,
	 * so the same transaction (INNODB_TRX, a cached copy, may lag) */
	if (!cancel && saw->trx_id[0] && saw->query_id && now->query_id == saw->query_id)
		return true;
	if (saw->trx_id[0] && !now->trx_id[0]) {
		str_printf(why, len, "its transaction %s begun %s has ended", saw->trx_id, saw->trx_started);
		return false;
	}
	if (strcmp(saw->trx_id, now->trx_id) != 0 || strcmp(saw->trx_started, now->trx_started) != 0) {
		if (saw->trx_id[0])
			str_printf(why, len, "it began another transaction (%s at %s; you saw %s begun %s)", now->trx_id,
				   now->trx_started, saw->trx_id, saw->trx_started);
		else
			str_printf(why, len, "it began a transaction (%s at %s) since", now->trx_id, now->trx_started);
		return false;
	}
	bool stmt = cancel || !saw->trx_id[0] || strcmp(saw->trx_id, "0") == 0;
	if (stmt && saw->query_id && now->query_id != saw->query_id) {
		str_printf(why, len, "it has run another statement since (query id %lld; you saw %lld)", now->query_id,
			   saw->query_id);
		return false;
	}
	return true;
}

bool lock_set_counted(const struct lock_set *ls)
{
	return ls && !(ls->status == LOCKS_PENDING && ls->waiting == 0);
}

const char *lock_status_name(enum lock_status st)
{
	switch (st) {
	case LOCKS_IDLE: return "idle";
	case LOCKS_READ: return "read";
	case LOCKS_TIMED_OUT: return "timed_out";
	case LOCKS_UNAVAILABLE: return "unavailable";
	case LOCKS_PENDING: return "pending";
	}
	return "?";
}

void lock_set_json(const struct lock_set *ls, struct strbuf *out)
{
	if (!ls) {
		sb_puts(out, ",\"locks_status\":null,\"locks_waiting\":null,\"locks\":null");
		return;
	}
	sb_printf(out, ",\"locks_status\":\"%s\",\"locks_waiting\":", lock_status_name(ls->status));
	if (lock_set_counted(ls))
		sb_printf(out, "%u", ls->waiting);
	else
		sb_puts(out, "null");
	if (ls->age_s > 0)
		sb_printf(out, ",\"locks_age_s\":%.1f", ls->age_s);
	if (ls->gate_age_s > 0)
		sb_printf(out, ",\"locks_gate_age_s\":%.1f", ls->gate_age_s);
	if (ls->note[0]) {
		char note[LOCK_NOTE_LEN];
		str_copy(note, sizeof note, ls->note);
		sb_puts(out, ",\"locks_note\":");
		json_str(out, text_sanitize(note));
	}
	if (ls->status != LOCKS_READ) {
		sb_puts(out, ",\"locks\":[]");
		return;
	}
	sb_puts(out, ",\"locks\":[");
	for (size_t k = 0; k < ls->ne; k++) {
		const struct lock_edge *e = &ls->e[k];
		const struct lock_session *w = &ls->s[e->waiter], *b = &ls->s[e->blocker];
		char st[96];
		if (k)
			sb_putc(out, ',');
		sb_printf(out, "{\"waiter\":{\"id\":%lld,\"user\":", w->id);
		json_str(out, w->user);
		sb_puts(out, ",\"query\":");
		json_statement(out, w->query);
		sb_puts(out, ",\"wait_s\":");
		json_num(out, w->wait_s);
		sb_printf(out, "},\"blocker\":{\"id\":%lld,\"user\":", b->id);
		json_str(out, b->user);
		sb_puts(out, ",\"query\":");
		json_statement(out, b->query);
		sb_printf(out, ",\"query_is_last\":%s,\"state\":", b->query_is_last ? "true" : "false");
		lock_state_text(b, st, sizeof st);
		json_str(out, st);
		sb_puts(out, ",\"trx_age_s\":");
		json_num(out, b->trx_age_s);
		sb_puts(out, "},\"object\":");
		json_str(out, e->object);
		sb_puts(out, ",\"lock_type\":");
		json_str(out, e->lock_type);
		sb_puts(out, ",\"requested\":");
		json_str(out, e->requested);
		sb_puts(out, ",\"blocking\":");
		json_str(out, e->held);
		sb_puts(out, ",\"lock_data\":");
		json_str(out, e->lock_data);
		sb_printf(out, ",\"soft\":%s,\"root\":", e->soft ? "true" : "false");
		if (e->root >= 0)
			sb_printf(out, "%lld", ls->s[e->root].id);
		else
			sb_puts(out, "null");
		sb_printf(out, ",\"depth\":%d,\"cycle\":%s}", e->depth, e->cycle ? "true" : "false");
	}
	sb_putc(out, ']');
}

double lock_chain_wait(const struct lock_set *ls, int r)
{
	double w = NAN;
	for (size_t j = 0; j < ls->ns; j++)
		if (ls->s[j].root == r && ls->s[j].waits && isfinite(ls->s[j].wait_s) && !(ls->s[j].wait_s <= w))
			w = ls->s[j].wait_s;
	return w;
}

double lock_wait_ms_bounded(double ms, double was, double now, double begun)
{
	double lo = isfinite(now) && isfinite(begun) && now > begun ? (now - begun) * 1000 : 0;
	double hi = isfinite(was) && isfinite(begun) ? (was + begun) * 1000 : INFINITY;
	if (hi < lo)
		hi = lo; /* the counts were read apart (the waiting count's gate) */
	if (!isfinite(ms))
		return ms;
	return ms < lo ? lo : ms > hi ? hi : ms;
}

bool lock_session_idle_blocker(const struct lock_session *s)
{
	return s->is_root && s->blocked > 0 && strncmp(s->state, "idle in transaction", 19) == 0;
}

double lock_set_idle_recheck(const struct lock_set *ls)
{
	double soonest = INFINITY;
	for (size_t i = 0; ls && i < ls->ns; i++) {
		const struct lock_session *s = &ls->s[i];
		if (lock_session_idle_blocker(s) && s->state_s >= LOCK_IDLE_SEEN_S && s->state_s < LOCK_IDLE_LONG_S &&
		    LOCK_IDLE_LONG_S - s->state_s < soonest)
			soonest = LOCK_IDLE_LONG_S - s->state_s;
	}
	return soonest;
}

bool lock_session_committing(const struct lock_session *s)
{
	if (strncmp(s->state, "idle", 4) == 0 || strcmp(s->state, "Sleep") == 0)
		return false;
	if (strcasestr(s->state, "commit"))
		return true;
	const char *q = s->query_is_last ? NULL : s->query;
	if (!q)
		return false;
	while (*q == ' ' || *q == '\t' || *q == '\n')
		q++;
	return strncasecmp(q, "COMMIT", 6) == 0 ||
	       (strncasecmp(q, "END", 3) == 0 && (q[3] == '\0' || q[3] == ' ' || q[3] == ';'));
}

int lock_set_commit_waiters(const struct lock_set *ls, int *roots)
{
	int n = 0;
	*roots = 0;
	if (!ls || ls->status != LOCKS_READ)
		return 0;
	for (size_t i = 0; i < ls->ns; i++)
		if (ls->s[i].is_root && ls->s[i].blocked > 0 && lock_session_committing(&ls->s[i])) {
			n += ls->s[i].blocked;
			(*roots)++;
		}
	return n;
}
