/* locks.c - the lock-wait pane: a tree of who blocks whom. Each root
 * blocker on top with its state, transaction age and statement; beneath it
 * every waiter, indented, each line saying which lock it asked for and
 * which lock of its blocker stands in the way. On screen 3 x / c ask the
 * screen to end the selected session (a root blocker or a waiter) or to
 * cancel its statement. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fixes.h"
#include "../util/util.h"
#include "pane.h"

/* Rows shown (after the filter) of the newest snapshot; caller frees. */
static size_t shown_rows(const struct lock_set *ls, const struct pane_view *v, struct lock_row **out)
{
	struct lock_row *rows;
	size_t n = lock_tree_rows(ls, &rows), k = 0;
	if (v->filter) {
		/* a row stays when it (its statement, object, lock modes) or its
		 * chain's root matches */
		for (size_t i = 0; i < n; i++) {
			const struct lock_session *s = &ls->s[rows[i].session];
			const struct lock_edge *e = rows[i].edge >= 0 ? &ls->e[rows[i].edge] : NULL;
			const struct lock_session *r = s->root >= 0 ? &ls->s[s->root] : s;
			char buf[2048];
			str_printf(buf, sizeof buf, "%lld %s %s %s %s requested %s held %s | %lld %s %s", s->id, s->user,
				   s->query ? s->query : "", e ? e->object : "", e ? e->lock_type : "",
				   e ? e->requested : "", e ? e->held : "", r->id, r->user, r->query ? r->query : "");
			if (pane_filter_match(v, buf))
				rows[k++] = rows[i];
		}
		n = k;
	}
	*out = rows;
	return n;
}

/* A row's identity (pane_follow): its session (the id and, where the
 * server tells, its start: a reused PostgreSQL pid is another session) and
 * the session it waits for on that row (none for a root). */
struct row_ctx {
	const struct lock_set *ls;
	const struct lock_row *rows;
};

static void row_key(const void *ctx, int i, char *out, size_t len)
{
	const struct row_ctx *c = ctx;
	const struct lock_row *r = &c->rows[i];
	const struct lock_session *s = &c->ls->s[r->session];
	if (r->edge < 0)
		str_printf(out, len, "%lld@%lld", s->id, s->ident.start_us);
	else
		str_printf(out, len, "%lld@%lld<%lld", s->id, s->ident.start_us,
			   c->ls->s[c->ls->e[r->edge].blocker].id);
}

static void fmt_secs(double s, char *out, size_t len)
{
	if (!isfinite(s))
		str_copy(out, len, "?");
	else if (s < 10)
		str_printf(out, len, "%.1fs", s);
	else if (s < 3600)
		str_printf(out, len, "%.0fs", s);
	else
		str_printf(out, len, "%.0fm", s / 60);
}

/* The line of a root blocker. */
static void root_line(const struct lock_set *ls, const struct lock_session *s, char *out, size_t len, bool utf8)
{
	char st[96], age[24];
	lock_state_text(s, st, sizeof st);
	fmt_secs(s->trx_age_s, age, sizeof age);
	str_printf(out, len, "%s%s %lld %s  %s  trx %s  blocks %d%s  %s%s", utf8 ? "\u25b6" : ">",
		   s->in_cycle ? (utf8 ? "\u27f3" : "@") : "", s->id, s->user[0] ? s->user : "?", st,
		   isfinite(s->trx_age_s) ? age : "-", s->blocked, s->in_cycle ? "  DEADLOCK (cycle)" : "",
		   s->query_is_last ? "last: " : "",
		   s->query ? s->query : (s->query_is_last || strstr(s->state, "idle") || strstr(s->state, "Sleep")
					      ? "(idle; last statement not available)"
					      : "(no statement)"));
	(void)ls;
}

/* A session's state in words: a waiting session says so ("waiting 2.0s"),
 * whatever the server calls it ("active"). */
static void state_words(const struct lock_session *s, char *out, size_t len)
{
	if (isfinite(s->wait_s)) {
		char w[24];
		fmt_secs(s->wait_s, w, sizeof w);
		str_printf(out, len, "waiting %s", w);
	} else {
		lock_state_text(s, out, len);
	}
}

/* The sentence of a waiter reached through edge e, in two parts: who waits
 * for whom and which locks (head), then the object and the statement
 * (tail), which wrap under the line at narrow widths. */
static void waiter_line(const struct lock_set *ls, const struct lock_session *s, const struct lock_edge *e,
			bool repeat, char *head, size_t hlen, char *tail, size_t tlen)
{
	char w[24];
	long long b = ls->s[e->blocker].id;
	fmt_secs(s->wait_s, w, sizeof w);
	if (e->soft)
		str_printf(head, hlen, "%lld waits %s for %lld: requested %s, %lld is queued ahead for %s", s->id, w, b,
			   e->requested[0] ? e->requested : "?", b, e->held[0] ? e->held : "?");
	else
		str_printf(head, hlen, "%lld waits %s for %lld: requested %s, %lld holds %s", s->id, w, b,
			   e->requested[0] ? e->requested : "?", b, e->held[0] ? e->held : "?");
	str_printf(tail, tlen, "on %s%s%s%s%s%s  %s%s%s", e->object[0] ? e->object : "?", e->lock_type[0] ? " (" : "",
		   e->lock_type, e->lock_data[0] ? " " : "", e->lock_data, e->lock_type[0] ? ")" : "",
		   repeat ? "" : s->user[0] ? s->user : "?", repeat ? "" : ": ",
		   repeat ? (e->cycle ? "[cycle: shown above]" : "[shown above]") : (s->query ? s->query : "(no statement)"));
}

static void draw_details(const struct lock_set *ls, const struct lock_row *r, struct canvas *cv)
{
	const struct lock_session *s = &ls->s[r->session];
	char st[96], a[24], text[2048];
	int y = 0;
	state_words(s, st, sizeof st);
	fmt_secs(s->trx_age_s, a, sizeof a);
	cv_printf(cv, y++, 0, R_TITLE, "session %lld  user %s  %s  transaction %s%s", s->id, s->user[0] ? s->user : "?", st,
		  isfinite(s->trx_age_s) ? a : "-", s->in_cycle ? "  on a wait cycle (deadlock)" : "");
	if (s->is_root)
		cv_printf(cv, y++, 0, R_BLOCKER, "root blocker: %d session%s wait on it, directly or not", s->blocked,
			  s->blocked == 1 ? "" : "s");
	for (size_t k = 0; k < ls->ne && y < cv->h - 3; k++) {
		const struct lock_edge *e = &ls->e[k];
		if (e->waiter != r->session && e->blocker != r->session)
			continue;
		bool w = e->waiter == r->session;
		long long wid = ls->s[e->waiter].id, bid = ls->s[e->blocker].id;
		char secs[24];
		fmt_secs(ls->s[e->waiter].wait_s, secs, sizeof secs);
		if (w)
			str_printf(text, sizeof text, "waits %s for %lld: requested %s, %lld %s %s on %s (%s%s%s)%s", secs, bid,
				   e->requested, bid, e->soft ? "is queued ahead for" : "holds", e->held, e->object,
				   e->lock_type, e->lock_data[0] ? " " : "", e->lock_data, e->cycle ? "  [cycle]" : "");
		else
			str_printf(text, sizeof text, "blocks %lld (waiting %s): it requested %s, %lld %s %s on %s (%s%s%s)%s", wid,
				   secs, e->requested, bid, e->soft ? "is queued ahead for" : "holds", e->held, e->object,
				   e->lock_type, e->lock_data[0] ? " " : "", e->lock_data, e->cycle ? "  [cycle]" : "");
		y = cv_wrap(cv, y, 0, w ? R_WAITER : R_BLOCKER, text, cv->h - 3 > y + 1 ? cv->h - 3 : y + 1);
	}
	if (y < cv->h) {
		cv_text(cv, y++, 0, R_LABEL, s->query_is_last ? "last statement:" : "statement:");
		cv_wrap(cv, y, 2, R_NORMAL, s->query ? s->query : "(not available)", cv->h);
	}
}

#define GUIDE_DEPTH 32
#define GUIDE_BYTES (GUIDE_DEPTH * 4 + 8)   /* a level: at most 4 bytes */

/* The tree guides of each row ("├ ", "└ ", "│ " of the levels above) into
 * pre[i] (utf8 or ASCII), and the guides of a continuation line under it
 * into cont[i]; levels below maxd (at most GUIDE_DEPTH) are drawn at maxd. */
static void tree_guides(const struct lock_row *rows, size_t n, bool utf8, int maxd, char (*pre)[GUIDE_BYTES],
			char (*cont)[GUIDE_BYTES])
{
	bool later[GUIDE_DEPTH + 1] = {false};   /* a later sibling at that depth */
	bool *last = xcalloc(n ? n : 1, sizeof *last);
	const char *tee = utf8 ? "\u251c " : "|- ", *elbow = utf8 ? "\u2514 " : "`- ", *bar = utf8 ? "\u2502 " : "|  ";
	const char *none = utf8 ? "  " : "   ";
	/* backwards: a row is its parent's last child when no sibling follows */
	if (maxd > GUIDE_DEPTH)
		maxd = GUIDE_DEPTH;
	if (maxd < 1)
		maxd = 1;
	for (size_t k = n; k-- > 0;) {
		int d = rows[k].depth > maxd ? maxd : rows[k].depth;
		last[k] = !later[d];
		later[d] = true;
		for (int j = d + 1; j <= GUIDE_DEPTH; j++)
			later[j] = false;
	}
	bool open[GUIDE_DEPTH + 1] = {false};    /* the level's line goes on below */
	for (size_t i = 0; i < n; i++) {
		int d = rows[i].depth > maxd ? maxd : rows[i].depth;
		size_t l = 0;
		pre[i][0] = cont[i][0] = '\0';
		open[d] = !last[i];
		for (int L = 1; L < d; L++)
			l += (size_t)snprintf(pre[i] + l, sizeof pre[i] - l, "%s", open[L] ? bar : none);
		if (d > 0)
			snprintf(pre[i] + l, sizeof pre[i] - l, "%s", last[i] ? elbow : tee);
		l = 0;
		for (int L = 1; L <= d; L++)
			l += (size_t)snprintf(cont[i] + l, sizeof cont[i] - l, "%s", open[L] ? bar : none);
	}
	free(last);
}

static int locks_need(const struct model *m, const struct pane_view *v, int w, int *min)
{
	const struct lock_set *ls = m->locks;
	(void)w;
	*min = 1;
	if (m->last.state != STATE_UP || !ls || ls->status != LOCKS_READ)
		return 1 + (!ls && m->caps.engine != ENGINE_POSTGRESQL && !m->caps.priv_process);
	struct lock_row *rows;
	int n = (int)shown_rows(ls, v, &rows);
	free(rows);
	if (n == 0)
		return 2;
	*min = 1 + (n < 3 ? n : 3);
	char line[2048];
	/* the status, the history, the note and what the wait profile saw */
	bool sampled = wait_table_lock_note(&m->wt, ls->waiting, line, sizeof line);
	return 2 + (ls->note[0] != 0) + sampled + n;
}

/* The status line of the snapshot; its role. */
static enum role status_line(const struct model *m, const struct lock_set *ls, char *line, size_t len)
{
	switch (ls->status) {
	case LOCKS_IDLE:
		/* short waits the one check per refresh missed, seen by the wait profile */
		if (!wait_table_lock_note(&m->wt, 0, line, len))
			str_printf(line, len, "no session waits for a lock (lock tables not queried)");
		break;
	case LOCKS_READ:
		str_printf(line, len, "%u waiting  %d root blocker%s%s  lock query %.1f ms", ls->waiting, ls->nroots,
			   ls->nroots == 1 ? "" : "s", ls->ncycles ? "  DEADLOCK in progress" : "", ls->query_ms);
		break;
	case LOCKS_TIMED_OUT:
		str_printf(line, len, "%u waiting, but the lock query exceeded its time limit: %s", ls->waiting,
			   ls->note[0] ? ls->note : "nothing to show this interval");
		break;
	case LOCKS_UNAVAILABLE:
		str_printf(line, len, "lock waits unavailable: %s", ls->note);
		break;
	case LOCKS_PENDING:
		if (lock_set_counted(ls))
			str_printf(line, len, "%u waiting; the lock graph: %s", ls->waiting, ls->note);
		else
			str_printf(line, len, "lock waits: counted with the lock graph, %s", ls->note);
		break;
	}
	return ls->status == LOCKS_READ && ls->ncycles ? R_CRIT
	       : ls->status == LOCKS_READ || ls->status == LOCKS_TIMED_OUT ? R_WARN
	       : ls->status == LOCKS_UNAVAILABLE || ls->status == LOCKS_PENDING ? R_NOTE : R_LABEL;
}

/* The lines above the tree: status, note, what the wait profile saw, the
 * history; n rows of the tree to come, which want lines at the least.
 * Returns the next free line. */
static int draw_summary(const struct model *m, const struct lock_set *ls, size_t n, int want, struct canvas *cv)
{
	bool pg = m->caps.engine == ENGINE_POSTGRESQL;
	char line[2048];
	int y = 0;
	enum role role = status_line(m, ls, line, sizeof line);
	cv_text(cv, y++, 0, role, line);
	/* the note and the history only where the tree keeps its minimum */
	if (ls->status == LOCKS_READ && ls->note[0] && y < cv->h && cv->h - y > want)
		cv_text(cv, y++, 0, R_NOTE, ls->note);
	/* what the wait profile saw (short waits the check misses): also only
	 * where the tree keeps its minimum */
	if (ls->status != LOCKS_IDLE && y < cv->h && (n == 0 || cv->h - y > want) &&
	    wait_table_lock_note(&m->wt, ls->waiting, line, sizeof line))
		cv_text(cv, y++, 0, R_NOTE, line);
	/* history: waiting sessions and wait time per second */
	if (y < cv->h && cv->w >= 40 && (n == 0 || cv->h - y >= want)) {
		int sw = (cv->w - 40) / 2;
		if (sw > 60)
			sw = 60;
		if (sw >= 8) {
			int x = cv_text(cv, y, 0, R_LABEL, "waiting ");
			cv_spark(cv, y, x, sw, &m->lock_waiting, 0, R_SPARK);
			x += sw + 1;
			x += cv_text(cv, y, x, R_LABEL, pg ? "  lock wait ms/s " : "  row-lock wait ms/s ");
			cv_spark(cv, y, x, sw, &m->lock_wait_ms, 0, R_SPARK);
			y++;
		}
	}
	return y;
}

/* The tree's texts: guides, each row's sentence and tail, its lines. */
struct tree_text {
	char (*pre)[GUIDE_BYTES], (*cont)[GUIDE_BYTES];
	char (*head)[640];
	char *tail, *text;
	int *lines;
};

#define TAIL_LEN 2048
#define TEXT_LEN 2800

/* Each row's text and its lines: a waiter too long for the width wraps
 * its object and statement under it on the full screen. */
static void tree_layout(const struct lock_set *ls, const struct lock_row *rows, size_t n, bool wrap,
			const struct canvas *cv, struct tree_text *t)
{
	t->pre = xcalloc(n, sizeof *t->pre);
	t->cont = xcalloc(n, sizeof *t->cont);
	t->head = xcalloc(n, sizeof *t->head);
	t->tail = xmalloc(TAIL_LEN);
	t->text = xmalloc(TEXT_LEN);
	t->lines = xcalloc(n, sizeof *t->lines);
	tree_guides(rows, n, cv->utf8, cv->w / 6, t->pre, t->cont);   /* guides take at most a third */
	for (size_t i = 0; i < n; i++) {
		const struct lock_session *s = &ls->s[rows[i].session];
		t->lines[i] = 1;
		if (rows[i].edge < 0) {
			root_line(ls, s, t->head[i], sizeof t->head[i], cv->utf8);
			continue;
		}
		waiter_line(ls, s, &ls->e[rows[i].edge], rows[i].repeat, t->head[i], sizeof t->head[i], t->tail, TAIL_LEN);
		int tw = cv->w - text_cols(t->pre[i]);
		if (wrap && text_cols(t->head[i]) + 2 + text_cols(t->tail) > tw) {
			/* the object and the statement under the sentence */
			t->lines[i] = wrap_rows(t->head[i], tw) + wrap_rows(t->tail, tw);
			if (t->lines[i] > 4)
				t->lines[i] = 4;
		}
	}
}

static void tree_text_free(struct tree_text *t)
{
	free(t->pre);
	free(t->cont);
	free(t->head);
	free(t->tail);
	free(t->text);
	free(t->lines);
}

/* Scroll in lines: the selection shows, no blank line while rows are
 * above, and the chain's root stays pinned on the first line. */
static void tree_scroll(struct pane_view *v, const struct lock_row *rows, size_t n, const int *lines, int avail)
{
	if (v->sel >= (int)n)
		v->sel = (int)n - 1;
	if (v->sel < 0)
		v->sel = 0;
	if (v->top > v->sel)
		v->top = v->sel;
	for (int pass = 0; pass < 2; pass++) {
		int room = avail - (v->top > 0 && rows[v->top].depth > 0);
		int used = 0;
		for (int i = v->top; i <= v->sel; i++)
			used += lines[i];
		while (used > room && v->top < v->sel) {
			used -= lines[v->top++];
			room = avail - (rows[v->top].depth > 0);
		}
		/* fill from above while the rows below leave room */
		used = 0;
		for (size_t i = (size_t)v->top; i < n; i++)
			used += lines[i];
		while (v->top > 0 && used + lines[v->top - 1] + (rows[v->top - 1].depth > 0 && v->top - 1 > 0) <= avail) {
			v->top--;
			used += lines[v->top];
		}
	}
}

/* The continuation guides of row i beside its lines after the first. */
static void draw_cont(struct canvas *cv, int y, const struct tree_text *t, size_t i, bool sel)
{
	for (int k = 1; k < t->lines[i] && y + k < cv->h; k++) {
		if (sel)
			cv_fill(cv, y + k, 0, cv->w, R_SELECTED);
		cv_text(cv, y + k, 0, sel ? R_SELECTED : R_LABEL, t->cont[i]);
	}
}

/* The rows of the tree from v->top, from line y on. */
static void draw_tree(const struct lock_set *ls, const struct lock_row *rows, size_t n, struct pane_view *v,
		      struct canvas *cv, int y, struct tree_text *t)
{
	if (v->top > 0 && rows[v->top].depth > 0 && y < cv->h) {
		/* the pinned root of the chain scrolled into */
		int r = v->top;
		while (r > 0 && rows[r].depth > 0)
			r--;
		cv_text(cv, y++, 0, R_BLOCKER, t->head[r]);
	}
	for (size_t i = (size_t)v->top; i < n && y < cv->h; i++) {
		const struct lock_row *r = &rows[i];
		const struct lock_session *s = &ls->s[r->session];
		bool sel = v->focused && (int)i == v->sel;
		enum role role = sel ? R_SELECTED
				 : r->edge < 0 ? (s->in_cycle ? R_CRIT : R_BLOCKER)
				 : ls->e[r->edge].cycle ? R_CRIT : R_WAITER;
		if (sel)
			cv_fill(cv, y, 0, cv->w, R_SELECTED);
		int x = cv_text(cv, y, 0, sel ? R_SELECTED : R_LABEL, t->pre[i]);
		if (r->edge < 0) {
			str_copy(t->text, TEXT_LEN, t->head[i]);
		} else {
			waiter_line(ls, s, &ls->e[r->edge], r->repeat, t->head[i], sizeof t->head[i], t->tail, TAIL_LEN);
			str_printf(t->text, TEXT_LEN, "%s  %s", t->head[i], t->tail);
		}
		if (t->lines[i] == 1) {
			cv_text(cv, y++, x, role, t->text);
			v->nshown++;
			continue;
		}
		/* wrapped: the guides go on beside the lines below */
		draw_cont(cv, y, t, i, sel);
		struct canvas sub = cv_sub(cv, y, x, t->lines[i], cv->w - x);
		if (r->edge >= 0) {
			int hy = cv_wrap(&sub, 0, 0, role, t->head[i], t->lines[i] - 1);
			cv_wrap(&sub, hy, 0, role, t->tail, t->lines[i]);
		} else {
			cv_wrap(&sub, 0, 0, role, t->text, t->lines[i]);
		}
		y += t->lines[i];
		v->nshown++;
	}
}

/* Rows the tree could use at width w: its need with each waiter too long
 * for the width wrapped under its line (a tile wraps when it gets them). */
static int locks_want(const struct model *m, const struct pane_view *v, int w)
{
	int min, need = locks_need(m, v, w, &min);
	const struct lock_set *ls = m->locks;
	if (m->last.state != STATE_UP || !ls || ls->status != LOCKS_READ || v->details)
		return need;
	struct lock_row *rows;
	size_t n = shown_rows(ls, v, &rows);
	struct canvas cv = {.w = w, .h = 1, .utf8 = true};
	struct tree_text t;
	tree_layout(ls, rows, n, true, &cv, &t);
	for (size_t i = 0; i < n; i++)
		need += t.lines[i] - 1;
	tree_text_free(&t);
	free(rows);
	return need;
}

static void locks_draw(const struct model *m, struct pane_view *v, struct canvas *cv)
{
	const struct lock_set *ls = m->locks;
	bool pg = m->caps.engine == ENGINE_POSTGRESQL;

	v->nrows = 0;
	if (m->last.state != STATE_UP) {
		cv_text(cv, 0, 0, R_UNKNOWN, "no lock data while the server is not answering");
		return;
	}
	if (!ls) {
		cv_text(cv, 0, 0, R_UNKNOWN, m->intervals ? "no lock data in this sample (recordings made before dbtop read lock waits have none)" : "no sample yet");
		if (!pg && !m->caps.priv_process && cv->h > 1)
			cv_printf(cv, 1, 0, R_NOTE, "fix: %s (lock tables need it)", fixes[FIX_PRIV_PROCESS].fix);
		return;
	}
	struct lock_row *rows = NULL;
	size_t n = ls->status == LOCKS_READ ? shown_rows(ls, v, &rows) : 0;
	int want = n ? 1 + (int)(n < 3 ? n : 3) : 1;   /* status, root and two waiters */
	int y = draw_summary(m, ls, n, want, cv);
	if (ls->status != LOCKS_READ || y >= cv->h) {
		free(rows);
		return;
	}
	v->nrows = (int)n;
	struct row_ctx rc = {.ls = ls, .rows = rows};
	pane_follow(v, (int)n, row_key, &rc);
	if (n == 0) {
		cv_text(cv, y, 0, R_UNKNOWN, v->filter ? "no session matches the filter" : "no wait edge found");
		free(rows);
		return;
	}
	if (v->details) {
		pane_clamp(v, (int)n, 1);
		struct canvas sub = cv_sub(cv, y, 0, cv->h - y, cv->w);
		draw_details(ls, &rows[v->sel], &sub);
		v->nshown = 1;
		free(rows);
		return;
	}
	struct tree_text t;
	/* wrapped on the full screen; in a tile each row from the top that
	 * still leaves a line for every row below it */
	tree_layout(ls, rows, n, true, cv, &t);
	for (size_t i = 0, used = n; !v->full && i < n; i++) {
		if (used + (size_t)t.lines[i] - 1 <= (size_t)(cv->h - y))
			used += (size_t)t.lines[i] - 1;
		else
			t.lines[i] = 1;
	}
	tree_scroll(v, rows, n, t.lines, cv->h - y);
	draw_tree(ls, rows, n, v, cv, y, &t);
	tree_text_free(&t);
	free(rows);
}

/* The session x / c / S / y act on: the selected row's, a root blocker or
 * a waiter, as the screen showed it (where a refresh moved it since);
 * *blocker: the session it waits for on that row, or NULL. NULL with
 * r->status saying why when there is none, or when the row shown
 * selected has left the tree since (never the row that took its place). */
static const struct lock_session *target(const struct lock_set *ls, struct pane_view *v,
					 const struct lock_session **blocker, struct pane_reaction *r)
{
	struct lock_row *rows;
	size_t n = shown_rows(ls, v, &rows);
	const struct lock_session *t = NULL;
	struct row_ctx rc = {.ls = ls, .rows = rows};
	int i = pane_target(v, (int)n, row_key, &rc);
	*blocker = NULL;
	if (i >= 0) {
		t = &ls->s[rows[i].session];
		if (rows[i].edge >= 0)
			*blocker = &ls->s[ls->e[rows[i].edge].blocker];
	} else if (n > 0 && v->sel == v->sel_drawn && v->sel_key[0]) {
		str_printf(r->status, sizeof r->status,
			   "session %lld, selected, has left the lock tree since the screen showed it: nothing is done "
			   "(the selection is on the row in its place)",
			   strtoll(v->sel_key, NULL, 10));
	} else {
		str_copy(r->status, sizeof r->status, "no session selected");
	}
	free(rows);
	return t;
}

/* its commands (the arg of its table's rows) */
enum { LK_SESSIONS, LK_COPY, LK_TERMINATE, LK_CANCEL };

static void locks_key(const struct model *m, struct pane_view *v, int cmd, struct pane_reaction *r)
{
	const struct lock_set *ls = m->locks;
	const struct lock_session *bl = NULL;
	if (cmd == LK_SESSIONS) {
		/* the selected row's session on the sessions screen */
		const struct lock_session *t = ls && ls->status == LOCKS_READ ? target(ls, v, &bl, r) : NULL;
		if (!t || t->id <= 0) {
			if (t || !r->status[0])
				str_copy(r->status, sizeof r->status, "no session selected");
			return;
		}
		r->link.screen = PANE_SCREEN(sessions);
		r->link.id = t->id;
		r->link.digest[0] = '\0';
		return;
	}
	if (cmd == LK_COPY) {
		const struct lock_session *t = ls && ls->status == LOCKS_READ ? target(ls, v, &bl, r) : NULL;
		if (t || !r->status[0])
			pane_copy(r, t ? t->query : NULL,
				  t ? "this session's statement is not available" : "no session selected");
		return;
	}
	if (v->read_only) {
		str_copy(r->status, sizeof r->status, "read-only session (--read-only): no kill or cancel");
		return;
	}
	const struct lock_session *t = ls && ls->status == LOCKS_READ ? target(ls, v, &bl, r) : NULL;
	if (!t) {
		if (!r->status[0])
			str_copy(r->status, sizeof r->status, "no session selected");
		return;
	}
	bool term = cmd == LK_TERMINATE;
	char st[96];
	lock_state_text(t, st, sizeof st);
	/* a root: how many wait on it; a waiter: whom it waits for, who is
	 * left alone */
	char role[200], spare[120] = "";
	if (bl) {
		/* (its state would read "active": it waits) */
		if (isfinite(t->wait_s))
			str_printf(role, sizeof role, "waiting %.1fs for %lld", t->wait_s, bl->id);
		else
			str_printf(role, sizeof role, "waiting for %lld", bl->id);
		str_printf(spare, sizeof spare, " Session %lld, which it waits for, is left alone.", bl->id);
	} else {
		str_printf(role, sizeof role, "%s, blocking %d", st, t->blocked);
	}
	pane_ask_session(m, v, r, term, t->id, t->user, role, spare, &t->ident, t->query);
}

static const struct pane_command locks_commands[] = {
	{"terminate", locks_key, LK_TERMINATE},
	{"cancel", locks_key, LK_CANCEL},
	{"sessions", locks_key, LK_SESSIONS},
	{"copy", locks_key, LK_COPY},
	{NULL, NULL, 0},
};

const struct pane_ops locks_pane = {
	.name = "locks",
	.title = "lock waits",
	.draw = locks_draw,
	.commands = locks_commands,
	.min_h = 4,
	.need = locks_need,
	.want = locks_want,
};
