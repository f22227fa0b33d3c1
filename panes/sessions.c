/* sessions.c - the sessions pane: every session of the server, one row
 * each (id, user, database, client, state, blocker, wait, time in state,
 * transaction age, statement), sorted by any column, filtered, idle and
 * background sessions hidden by default; the selection stays on the same
 * session across refreshes. Enter: the session's details (the whole
 * statement, its locks, its wait, its digest's figures, the plan asked
 * with e); x / c end it or cancel its statement through the confirmation
 * the locks pane uses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../model/sessions.h"
#include "../util/util.h"
#include "pane.h"

#define TEXT_MIN 30     /* the statement keeps these columns */

/* The pane's word for a class (the same as the model's names). */
static const char *class_word(enum session_class c, bool narrow)
{
	switch (c) {
	case SC_ACTIVE: return "active";
	case SC_LOCK_WAIT: return narrow ? "lock wait" : "waiting for lock";
	case SC_IDLE_IN_TRX: return narrow ? "idle in trx" : "idle in transaction";
	case SC_IDLE: return "idle";
	case SC_BACKGROUND: return "background";
	default: return "other";
	}
}

/* Order of the classes in the state sort: what needs looking at first. */
static int class_rank(enum session_class c)
{
	switch (c) {
	case SC_LOCK_WAIT: return 0;
	case SC_ACTIVE: return 1;
	case SC_IDLE_IN_TRX: return 2;
	case SC_OTHER: return 3;
	case SC_IDLE: return 4;
	default: return 5;
	}
}

/* "0.3s", "42s", "12m05", "3h12", "4d02"; "-" unknown. */
static void fmt_dur(double s, char *out, size_t len)
{
	long t;
	if (!isfinite(s) || s < 0) {
		str_copy(out, len, "-");
		return;
	}
	t = (long)s;
	if (s < 10)
		str_printf(out, len, "%.1fs", s);
	else if (t < 60)
		str_printf(out, len, "%lds", t);
	else if (t < 3600)
		str_printf(out, len, "%ldm%02ld", t / 60, t % 60);
	else if (t < 86400)
		str_printf(out, len, "%ldh%02ld", t / 3600, t % 3600 / 60);
	else
		str_printf(out, len, "%ldd%02ld", t / 86400, t % 86400 / 3600);
}

/* Unknown values sort last in either direction. */
static int num_cmp(double a, double b, bool rev)
{
	bool ka = isfinite(a), kb = isfinite(b);
	if (ka != kb)
		return ka ? -1 : 1;
	if (!ka || a == b)
		return 0;
	return (a < b ? -1 : 1) * (rev ? -1 : 1);
}

static int text_cmp(const char *a, const char *b, bool rev)
{
	bool ka = a && *a, kb = b && *b;
	if (ka != kb)
		return ka ? -1 : 1;
	if (!ka)
		return 0;
	int c = strcasecmp(a, b);
	return rev ? -c : c;
}

/* ---- the column table ---- */

struct ss_ctx {
	bool utf8;
	int w;               /* the cell's width */
	bool tagged;         /* the session is tagged (m) */
};

static void cell_id(const struct session *s, const struct ss_ctx *c, char *b, size_t l)
{
	str_printf(b, l, "%s%lld%s", c->tagged ? "+" : "", s->id, s->self ? "*" : "");
}
static void cell_user(const struct session *s, const struct ss_ctx *c, char *b, size_t l)
{
	(void)c;
	str_copy(b, l, s->user[0] ? s->user : "-");
}
static void cell_db(const struct session *s, const struct ss_ctx *c, char *b, size_t l)
{
	(void)c;
	str_copy(b, l, s->db[0] ? s->db : "-");
}
static void cell_client(const struct session *s, const struct ss_ctx *c, char *b, size_t l)
{
	(void)c;
	if (s->client[0] && s->app[0])
		str_printf(b, l, "%s %s", s->client, s->app);
	else
		str_copy(b, l, s->client[0] ? s->client : s->app[0] ? s->app : "-");
}
static void cell_state(const struct session *s, const struct ss_ctx *c, char *b, size_t l)
{
	str_copy(b, l, class_word(s->cls, c->w < 19));
}
static void cell_blocker(const struct session *s, const struct ss_ctx *c, char *b, size_t l)
{
	if (s->blocked_by <= 0)
		str_copy(b, l, "");
	else if (s->nblockers > 1)
		str_printf(b, l, "%s%lld+%d", c->utf8 ? "\u27f5 " : "<- ", s->blocked_by, s->nblockers - 1);
	else
		str_printf(b, l, "%s%lld", c->utf8 ? "\u27f5 " : "<- ", s->blocked_by);
}
static void cell_wait(const struct session *s, const struct ss_ctx *c, char *b, size_t l)
{
	(void)c;
	str_copy(b, l, s->wait[0] ? s->wait : "-");
}
static void cell_time(const struct session *s, const struct ss_ctx *c, char *b, size_t l)
{
	(void)c;
	fmt_dur(s->state_s, b, l);
}
static void cell_trx(const struct session *s, const struct ss_ctx *c, char *b, size_t l)
{
	(void)c;
	fmt_dur(s->trx_age_s, b, l);
}
static void cell_query(const struct session *s, const struct ss_ctx *c, char *b, size_t l)
{
	(void)c;
	if (s->query)
		str_printf(b, l, "%s%s", s->query_is_last ? "last: " : "", s->query);
	else
		str_copy(b, l, s->cls == SC_IDLE || s->cls == SC_IDLE_IN_TRX ? "" : "(statement not visible)");
}

static int cmp_id(const struct session *a, const struct session *b, bool rev)
{
	return num_cmp((double)a->id, (double)b->id, rev);
}
static int cmp_user(const struct session *a, const struct session *b, bool rev)
{
	return text_cmp(a->user, b->user, rev);
}
static int cmp_db(const struct session *a, const struct session *b, bool rev)
{
	return text_cmp(a->db, b->db, rev);
}
static int cmp_client(const struct session *a, const struct session *b, bool rev)
{
	int c = text_cmp(a->client, b->client, rev);
	return c ? c : text_cmp(a->app, b->app, rev);
}
/* by class (lock waits, active, idle in transaction, ..., idle), then
 * longest in that state */
static int cmp_state(const struct session *a, const struct session *b, bool rev)
{
	int ra = class_rank(a->cls), rb = class_rank(b->cls);
	if (ra != rb)
		return (ra < rb ? -1 : 1) * (rev ? -1 : 1);
	return num_cmp(a->state_s, b->state_s, !rev);
}
/* waiting rows first, by the blocker's id */
static int cmp_blocker(const struct session *a, const struct session *b, bool rev)
{
	return num_cmp(a->blocked_by > 0 ? (double)a->blocked_by : NAN, b->blocked_by > 0 ? (double)b->blocked_by : NAN,
		       rev);
}
static int cmp_wait(const struct session *a, const struct session *b, bool rev)
{
	return text_cmp(a->wait, b->wait, rev);
}
/* longest first */
static int cmp_time(const struct session *a, const struct session *b, bool rev)
{
	return num_cmp(a->state_s, b->state_s, !rev);
}
static int cmp_trx(const struct session *a, const struct session *b, bool rev)
{
	return num_cmp(a->trx_age_s, b->trx_age_s, !rev);
}
static int cmp_query(const struct session *a, const struct session *b, bool rev)
{
	return text_cmp(a->query, b->query, rev);
}

enum ss_col_id { C_ID, C_USER, C_DB, C_CLIENT, C_STATE, C_BLOCKER, C_WAIT, C_TIME, C_TRX, C_QUERY, C__N };

/* One column: its head, preferred and narrowest width (0: the width
 * left), priority (higher stays longer in a narrow pane), alignment, the
 * cell and the sort order (ascending for text, longest first for times;
 * ties by id). */
static const struct ss_col {
	const char *head;
	const char *sort_name;
	int w, min_w;
	int prio;
	bool right;
	void (*cell)(const struct session *s, const struct ss_ctx *c, char *buf, size_t len);
	int (*cmp)(const struct session *a, const struct session *b, bool rev);
} ss_cols[C__N] = {
	[C_ID] = {"id", "id", 7, 6, 10, true, cell_id, cmp_id},
	[C_USER] = {"user", "user", 12, 6, 6, false, cell_user, cmp_user},
	[C_DB] = {"db", "database", 12, 6, 4, false, cell_db, cmp_db},
	[C_CLIENT] = {"client", "client", 26, 12, 3, false, cell_client, cmp_client},
	[C_STATE] = {"state", "state", 19, 11, 9, false, cell_state, cmp_state},
	[C_BLOCKER] = {"blocker", "blocker", 8, 8, 9, false, cell_blocker, cmp_blocker},
	[C_WAIT] = {"wait", "wait", 20, 10, 7, false, cell_wait, cmp_wait},
	[C_TIME] = {"time", "time in state", 6, 6, 8, true, cell_time, cmp_time},
	[C_TRX] = {"trx", "transaction age", 6, 6, 5, true, cell_trx, cmp_trx},
	[C_QUERY] = {"statement", "statement", 0, TEXT_MIN, 11, false, cell_query, cmp_query},
};

/* v->sort: the sort column counted from state (0: state), reverse, shown
 * classes */
#define SORT_COL(v) ((enum ss_col_id)((((v)->sort & 15) + C_STATE) % C__N))
#define REVERSED(v) (((v)->sort & SESSIONS_REVERSE) != 0)
#define SHOW_IDLE(v) (((v)->sort & SESSIONS_SHOW_IDLE) != 0)
#define SHOW_BG(v) (((v)->sort & SESSIONS_SHOW_BACKGROUND) != 0)

int sessions_column(const char *name)
{
	for (int c = 0; c < C_QUERY; c++)
		if (c != C_ID && strcmp(ss_cols[c].head, name) == 0)
			return c;
	return -1;
}

/* The order in which columns give up width in a narrow pane: the state
 * first (its words get shorter: nothing is lost), then the client, the
 * database, the user, the wait. */
static const enum ss_col_id shrink_order[] = {C_STATE, C_CLIENT, C_DB, C_USER, C_WAIT};

/* Widths of the shown columns at pane width w (0: not shown): each as wide
 * as its widest cell (fit[], at most its preferred width); in a narrow pane
 * narrower (shrink_order, down to the narrowest width), then the lowest
 * priority left out, until the statement has TEXT_MIN columns; it gets
 * what is left. blocker: some row names a blocker. */
static void ss_layout(int w, bool blocker, unsigned hide, const int fit[C__N], int width[C__N])
{
	int used = 0, c;
	for (c = 0; c < C_QUERY; c++) {
		int f = fit[c] < ss_cols[c].w ? fit[c] : ss_cols[c].w;
		if (f < (int)strlen(ss_cols[c].head))
			f = (int)strlen(ss_cols[c].head);
		width[c] = (c == C_BLOCKER && !blocker) || (c != C_ID && (hide >> c & 1)) ? 0 : f;
		used += width[c] ? width[c] + 1 : 0;
	}
	for (size_t k = 0; k < sizeof shrink_order / sizeof shrink_order[0] && w - used < TEXT_MIN; k++) {
		c = shrink_order[k];
		int cut = width[c] - ss_cols[c].min_w;
		if (cut <= 0)
			continue;
		if (cut > TEXT_MIN - (w - used))
			cut = TEXT_MIN - (w - used);
		width[c] -= cut;
		used -= cut;
	}
	while (w - used < TEXT_MIN) {
		int pick = -1;
		for (c = 0; c < C_QUERY; c++)
			if (width[c] && c != C_ID && (pick < 0 || ss_cols[c].prio < ss_cols[pick].prio))
				pick = c;
		if (pick < 0)
			break;
		used -= width[pick] + 1;
		width[pick] = 0;
	}
	/* room left over the statement's minimum goes back to the columns
	 * made narrower, the last made narrower first */
	for (size_t k = sizeof shrink_order / sizeof shrink_order[0]; k-- > 0 && w - used > TEXT_MIN;) {
		c = shrink_order[k];
		int f = fit[c] < ss_cols[c].w ? fit[c] : ss_cols[c].w;
		if (!width[c] || width[c] >= f)
			continue;
		int add = f - width[c];
		if (add > w - used - TEXT_MIN)
			add = w - used - TEXT_MIN;
		width[c] += add;
		used += add;
	}
	width[C_QUERY] = w - used > 0 ? w - used : 0;
}

/* ---- rows ---- */

/* the pane's digest id of a digests-pane key: MySQL "schema/HEX" -> HEX,
 * PostgreSQL "userid:dbid:queryid:..." -> queryid */
void sessions_digest_id(const char *key, char *out, size_t len)
{
	const char *sl = strrchr(key, '/');
	out[0] = '\0';
	if (sl) {
		str_copy(out, len, sl + 1);
		return;
	}
	const char *a = strchr(key, ':'), *b = a ? strchr(a + 1, ':') : NULL;
	if (!b) {
		str_copy(out, len, key);
		return;
	}
	const char *e = strchr(b + 1, ':');
	str_printf(out, len, "%.*s", (int)(e ? e - b - 1 : (long)strlen(b + 1)), b + 1);
}

/* Does the filter match a field of s (each on its own, so ^ and $ hold to
 * one field; "digest:ID" names its digest)? */
static bool ss_match(const struct pane_view *v, const struct session *s)
{
	char b[96];
	if (!v->filter)
		return true;
	str_printf(b, sizeof b, "%lld", s->id);
	if (pane_filter_match(v, b) || pane_filter_match(v, s->user) || pane_filter_match(v, s->db) ||
	    pane_filter_match(v, s->client) || pane_filter_match(v, s->app) || pane_filter_match(v, s->state) ||
	    pane_filter_match(v, class_word(s->cls, false)) || pane_filter_match(v, s->wait) ||
	    (s->query && pane_filter_match(v, s->query)))
		return true;
	if (s->digest[0]) {
		char id[80];
		sessions_digest_id(s->digest, id, sizeof id);
		str_printf(b, sizeof b, "digest:%s", id);
		return pane_filter_match(v, b);
	}
	return false;
}

/* A session is hidden by the view (idle / background toggles; dbtop's own
 * connection goes with the background)? */
static bool ss_hidden(const struct pane_view *v, const struct session *s)
{
	return (s->cls == SC_IDLE && !SHOW_IDLE(v)) || ((s->cls == SC_BACKGROUND || s->self) && !SHOW_BG(v));
}

static int ss_qcmp(const void *pa, const void *pb, void *ctx)
{
	const struct session *a = *(const struct session *const *)pa, *b = *(const struct session *const *)pb;
	const struct pane_view *v = ctx;
	int c = ss_cols[SORT_COL(v)].cmp(a, b, REVERSED(v));
	if (c)
		return c;
	/* ties: by id, so that the order is the same at every refresh */
	return a->id < b->id ? -1 : a->id > b->id;
}

/* The rows shown, sorted (caller frees *out); hidden: the sessions the
 * toggles hide (before the filter). */
static size_t ss_rows(const struct model *m, const struct pane_view *v, const struct session ***out, unsigned *hid_idle,
		      unsigned *hid_bg)
{
	const struct session_set *ss = m->sessions;
	size_t n = 0;
	*out = NULL;
	if (hid_idle)
		*hid_idle = 0;
	if (hid_bg)
		*hid_bg = 0;
	if (ss && hid_idle && !SHOW_IDLE(v))
		*hid_idle = ss->idle_unread;
	if (!ss || !ss->n)
		return 0;
	*out = xcalloc(ss->n, sizeof **out);
	for (size_t i = 0; i < ss->n; i++) {
		const struct session *s = &ss->s[i];
		if (ss_hidden(v, s)) {
			if (s->cls == SC_IDLE && hid_idle)
				++*hid_idle;
			if ((s->cls == SC_BACKGROUND || s->self) && hid_bg)
				++*hid_bg;
			continue;
		}
		if (!ss_match(v, s))
			continue;
		(*out)[n++] = s;
	}
	sort_r(*out, n, sizeof **out, ss_qcmp, (void *)v);
	return n;
}

/* The pane's own state (pane_view.state): the tagged sessions and the
 * explain shown. */
struct sessions_state {
	long long tags[PANE_TAGS_MAX]; /* the tagged sessions (m) */
	int ntags;
	const struct watch_plan *plan; /* the screen's explain, NULL: none */
};

static void *sessions_init(void)
{
	return xcalloc(1, sizeof(struct sessions_state));
}

static void sessions_free(void *state)
{
	free(state);
}

/* v's state; a view made without it reads as an empty one */
static const struct sessions_state *st_of(const struct pane_view *v)
{
	static const struct sessions_state none;
	return v->state ? v->state : &none;
}

int sessions_ntags(const struct pane_view *v)
{
	return st_of(v)->ntags;
}

void sessions_untag_all(struct pane_view *v)
{
	struct sessions_state *st = v->state;
	if (st)
		st->ntags = 0;
}

void sessions_show_plan(struct pane_view *v, const struct watch_plan *plan)
{
	struct sessions_state *st = v->state;
	if (st)
		st->plan = plan;
}

/* Index of session id in the view's tags, or -1. */
static int tag_of(const struct pane_view *v, long long id)
{
	const struct sessions_state *st = st_of(v);
	for (int i = 0; i < st->ntags; i++)
		if (st->tags[i] == id)
			return i;
	return -1;
}

/* Keep the selection on the same session: a moved selection (Up, Down,
 * ...) names a new one; else the row of the one selected before. */
static void follow(struct pane_view *v, const struct session **rows, size_t n)
{
	if (n == 0)
		return;
	if (v->sel != v->sel_drawn || v->sel_id == 0) {
		bool untouched = !v->sel_follow && v->sel == 0 && v->sel_drawn == 0 && v->sel_id == 0;
		if (v->sel < 0)
			v->sel = 0;
		if (v->sel >= (int)n)
			v->sel = (int)n - 1;
		/* the top row, until a key moves the selection (g on the top
		 * row too): only then is there a session to follow (a replay's
		 * frames fall anywhere) */
		v->sel_id = untouched ? 0 : rows[v->sel]->id;
	} else {
		for (size_t i = 0; i < n; i++)
			if (rows[i]->id == v->sel_id) {
				v->sel = (int)i;
				break;
			}
		if (v->sel >= (int)n)
			v->sel = (int)n - 1;
		/* (gone: the row in its place is selected from now on) */
		v->sel_id = rows[v->sel]->id;
	}
	v->sel_drawn = v->sel;
	/* what an action acts on until the selection moves: the session shown */
	str_printf(v->sel_key, sizeof v->sel_key, "%lld", rows[v->sel]->id);
}

/* ---- summary and notes ---- */

void sessions_summary(const struct model *m, const struct pane_view *v, char *buf, size_t len)
{
	const struct session_set *ss = m->sessions;
	unsigned n[8] = {0}, hid = 0;   /* hid: the sessions counted */
	if (!ss) {
		str_copy(buf, len, m->intervals ? "sessions: not read yet" : "sessions: no sample yet");
		return;
	}
	if (ss->status == SESS_UNAVAILABLE || ss->status == SESS_NOT_READ) {
		str_printf(buf, len, "sessions: %s%s%s", ss->status == SESS_NOT_READ ? "not read" : "unavailable",
			   ss->note[0] ? ": " : "", ss->note);
		return;
	}
	/* (dbtop's own connection left out) */
	for (size_t i = 0; i < ss->n; i++) {
		if (ss->s[i].self)
			continue;
		n[ss->s[i].cls & 7]++;
		hid++;
	}
	/* idle ones only counted while hidden */
	n[SC_IDLE] += ss->idle_unread;
	hid += ss->idle_unread;
	size_t l;
	str_printf(buf, len, "sessions: %u (%u active, %u waiting for lock", hid, n[SC_ACTIVE], n[SC_LOCK_WAIT]);
	if (n[SC_IDLE_IN_TRX]) {
		l = strlen(buf);
		str_printf(buf + l, len - l, ", %u idle in transaction", n[SC_IDLE_IN_TRX]);
	}
	l = strlen(buf);
	/* shown but not read: a refresh reads them, unless none comes */
	const char *unread = v->replay ? " (not in the recording)"
			     : v->frozen ? " (not read while frozen: space)"
					 : " (listed from the next refresh)";
	str_printf(buf + l, len - l, ", %u idle%s", n[SC_IDLE],
		   !SHOW_IDLE(v) && n[SC_IDLE] ? " hidden" : ss->idle_unread ? unread : "");
	if (n[SC_BACKGROUND]) {
		l = strlen(buf);
		str_printf(buf + l, len - l, ", %u background%s", n[SC_BACKGROUND], !SHOW_BG(v) ? " hidden" : "");
	}
	if (n[SC_OTHER]) {
		l = strlen(buf);
		str_printf(buf + l, len - l, ", %u other", n[SC_OTHER]);
	}
	l = strlen(buf);
	str_printf(buf + l, len - l, ")%s", ss->status == SESS_PARTIAL ? " PARTIAL" : "");
}

/* Why there is no list, and the fix: a line or two from row y. Returns
 * the next row. */
static int ss_why(const struct model *m, struct canvas *cv, int y)
{
	const struct session_set *ss = m->sessions;
	bool pg = m->caps.engine == ENGINE_POSTGRESQL;
	if (m->last.state != STATE_UP && m->intervals) {
		cv_text(cv, y++, 0, R_UNKNOWN, "no session list while the server is not answering");
		return y;
	}
	if (!ss) {
		cv_text(cv, y++, 0, R_UNKNOWN,
			!m->intervals ? "no sample yet"
			: m->intervals < 2
				? "session list not read: first read in turn after first rates"
				: "no session list in this sample (recordings made before dbtop read sessions have none; "
				  "live, the list is read while this screen or its tile shows)");
		return y;
	}
	if (ss->status == SESS_UNAVAILABLE || ss->status == SESS_NOT_READ) {
		char t[SESSION_NOTE_LEN + 64];
		str_printf(t, sizeof t, "session list %s: %s", ss->status == SESS_NOT_READ ? "not read" : "unavailable",
			   ss->note[0] ? ss->note : ss->status == SESS_NOT_READ ? "nothing asked for it this refresh" : "no reason given");
		y = cv_wrap(cv, y, 0, R_NOTE, t, cv->h);
		if (!ss->note[0] && y < cv->h)
			cv_text(cv, y++, 0, R_NOTE,
				pg ? "fix: GRANT pg_read_all_stats TO the monitoring user (other roles' sessions need it)"
				   : "fix: GRANT PROCESS ON *.* TO the monitoring user (other users' sessions need it)");
	}
	return y;
}

/* ---- details ---- */

/* The digest of a session's statement: the entry with its key, else one
 * with the same statement id (another user's or database's). */
static const struct digest_entry *find_digest(const struct model *m, const char *key)
{
	char k[200], id[200];
	const struct digest_entry *other = NULL;
	if (!key[0])
		return NULL;
	sessions_digest_id(key, id, sizeof id);
	for (size_t i = 0; i < m->dg.n; i++) {
		if (m->dg.e[i].gone)
			continue;
		if (strcmp(m->dg.e[i].last.key, key) == 0)
			return &m->dg.e[i];
		sessions_digest_id(m->dg.e[i].last.key, k, sizeof k);
		if (!other && strcmp(k, id) == 0)
			other = &m->dg.e[i];
	}
	return other;
}

/* Its place in the lock graph: one line per edge it is on. */
static int details_locks(const struct model *m, const struct session *s, struct canvas *cv, int y, int maxy)
{
	const struct lock_set *ls = m->locks;
	char t[640], secs[24];
	if (!ls || ls->status != LOCKS_READ) {
		str_printf(t, sizeof t, "locks: %s",
			   !ls ? "the lock graph was not read in this sample"
			   : ls->status == LOCKS_IDLE ? "no session waits for a lock (the lock tables were not read)"
						      : "the lock graph is not available this refresh (screen 3 says why)");
		return cv_wrap(cv, y, 0, R_LABEL, t, maxy);
	}
	int any = 0;
	for (size_t k = 0; k < ls->ne && y < maxy; k++) {
		const struct lock_edge *e = &ls->e[k];
		long long wid = ls->s[e->waiter].id, bid = ls->s[e->blocker].id;
		if (wid != s->id && bid != s->id)
			continue;
		bool w = wid == s->id;
		fmt_dur(ls->s[e->waiter].wait_s, secs, sizeof secs);
		if (w)
			str_printf(t, sizeof t, "waits %s for %lld: requested %s on %s (%s%s%s); %lld %s %s", secs, bid,
				   e->requested, e->object, e->lock_type, e->lock_data[0] ? " " : "", e->lock_data, bid,
				   e->soft ? "is queued ahead for" : "holds", e->held);
		else
			str_printf(t, sizeof t, "holds %s on %s (%s%s%s): %lld waits %s for it, requesting %s", e->held,
				   e->object, e->lock_type, e->lock_data[0] ? " " : "", e->lock_data, wid, secs,
				   e->requested);
		y = cv_wrap(cv, y, 0, w ? R_WAITER : R_BLOCKER, t, maxy);
		any++;
	}
	if (!any && y < maxy)
		cv_text(cv, y++, 0, R_LABEL, "locks: neither waits for nor blocks another session (lock graph of this sample)");
	return y;
}

/* The figures of the session's digest, from row y; the row after. */
static int details_digest(const struct model *m, const struct session *s, struct canvas *cv, int y)
{
	const struct digest_entry *d = find_digest(m, s->digest);
	char t[400];
	if (y >= cv->h)
		return y;
	if (!d) {
		cv_printf(cv, y++, 0, R_LABEL, "digest: %s",
			  s->digest[0] ? "not among the digests read (screen 2)" : "not known for this session");
		return y;
	}
	char cs[24], ms[24], av[24];
	if (d->known && isfinite(d->rate[DG_CALLS]))
		str_printf(cs, sizeof cs, "%.1f", d->rate[DG_CALLS]);
	else
		str_copy(cs, sizeof cs, "-");
	if (d->known && isfinite(d->rate[DG_TOTAL_NS]))
		str_printf(ms, sizeof ms, "%s%.1f", d->time_bounded ? (cv->utf8 ? "\u2264" : "<=") : "",
			   d->rate[DG_TOTAL_NS] / 1e6); /* calls longer than the interval: at most */
	else
		str_copy(ms, sizeof ms, "-");
	if (isfinite(d->avg_ms))
		str_printf(av, sizeof av, "%.2f", d->avg_ms);
	else
		str_copy(av, sizeof av, "-");
	char id[80];
	sessions_digest_id(s->digest, id, sizeof id);
	str_printf(t, sizeof t, "digest %s: %s calls/s  %s ms/s  avg %s ms  %llu calls since first seen", id, cs, ms,
		   av, (unsigned long long)d->last.c[DG_CALLS]);
	return cv_wrap(cv, y, 0, R_VALUE, t, y + 2);
}

/* The plan asked for this session, from row y. */
static void details_plan(const struct watch_plan *p, bool planned, struct canvas *cv, int y)
{
	char t[1200];
	if (y >= cv->h)
		return;
	if (!planned) {
		cv_text(cv, y++, 0, R_LABEL, "e: the plan of this statement (EXPLAIN, never executed)");
	} else if (p->pending) {
		cv_text(cv, y++, 0, R_UNKNOWN, "plan: asked, waiting for the server ...");
	} else if (!p->ok) {
		str_printf(t, sizeof t, "no plan: %s", p->text);
		cv_wrap(cv, y, 0, R_WARN, t, cv->h);
	} else {
		cv_text(cv, y++, 0, R_LABEL, "plan:");
		/* line by line: a plan's indentation is its structure */
		const char *q = p->text;
		while (*q && y < cv->h) {
			const char *nl = strchr(q, '\n');
			int n = nl ? (int)(nl - q) : (int)strlen(q);
			char line[512];
			str_printf(line, sizeof line, "%.*s", n, q);
			cv_text(cv, y++, 2, R_NORMAL, line);
			q += n + (nl != NULL);
		}
	}
}

static void draw_details(const struct model *m, const struct pane_view *v, const struct session *s, struct canvas *cv)
{
	char a[24], b[24], c[24], t[1200];
	int y = 0;
	cv_printf(cv, y++, 0, R_TITLE, "session %lld%s  user %s  db %s  client %s%s%s", s->id,
		  s->self ? " (dbtop's own)" : "", s->user[0] ? s->user : "?", s->db[0] ? s->db : "-",
		  s->client[0] ? s->client : "?", s->app[0] ? "  application " : "", s->app);
	fmt_dur(s->state_s, a, sizeof a);
	fmt_dur(s->trx_age_s, b, sizeof b);
	fmt_dur(s->query_s, c, sizeof c);
	str_printf(t, sizeof t, "%s for %s (server: %s%s%s)  transaction %s  statement began %s ago",
		   class_word(s->cls, false), a, s->state[0] ? s->state : "?", s->type[0] ? ", " : "", s->type,
		   isfinite(s->trx_age_s) ? b : "none", c);
	y = cv_wrap(cv, y, 0, s->cls == SC_LOCK_WAIT ? R_WAITER : R_VALUE, t, y + 2);
	if (s->blocked_by > 0 && y < cv->h)
		cv_printf(cv, y++, 0, R_WAITER, "blocked by %lld%s", s->blocked_by,
			  s->nblockers > 1 ? " and others (screen 3 shows the chain)" : "");
	str_printf(t, sizeof t, "wait now: %s   (wait history is per server, not per session: screen 4)",
		   s->wait[0] ? s->wait : "none");
	y = cv_wrap(cv, y, 0, R_LABEL, t, y + 2);
	if (s->ident.known && y < cv->h) {
		session_ident_text(&s->ident, false, t, sizeof t);
		y = cv_wrap(cv, y, 0, R_LABEL, t, y + 2);
	}
	y = details_locks(m, s, cv, y, y + 4 < cv->h ? y + 4 : cv->h);
	y = details_digest(m, s, cv, y);
	/* the plan, when asked for this session */
	const struct watch_plan *p = st_of(v)->plan;
	bool planned = p && p->id == s->id;
	int room = cv->h - y;
	if (y < cv->h) {
		cv_text(cv, y++, 0, R_LABEL, s->query_is_last ? "last statement:" : "statement:");
		int maxy = planned ? y + (room - 2) / 2 : cv->h;
		if (maxy <= y)
			maxy = y + 1;
		y = cv_wrap(cv, y, 2, R_NORMAL, s->query ? s->query : "(not available)", maxy);
	}
	details_plan(p, planned, cv, y);
}

/* ---- drawing ---- */

static int sessions_need(const struct model *m, const struct pane_view *v, int w, int *min)
{
	const struct session **rows;
	(void)w;
	*min = 1;
	if (!m->sessions || m->sessions->status == SESS_UNAVAILABLE || m->sessions->status == SESS_NOT_READ)
		return 1 + (m->sessions && m->sessions->note[0]);
	int n = (int)ss_rows(m, v, &rows, NULL, NULL);
	free(rows);
	if (n == 0)
		return 2;
	/* the summary and the first session (a lock waiter when there is one) */
	*min = 2;
	/* the heads and the rest of the room: its minimum is the summary */
	return 2 + (m->sessions->status == SESS_PARTIAL) + n;
}

/* The details of the selected session (or of the one a link asked for),
 * or why it is not there. */
static void sessions_draw_details(const struct model *m, struct pane_view *v, const struct session **rows, size_t n,
				  struct canvas *cv)
{
	if (n > 0) {
		pane_clamp(v, (int)n, 1);
		if (rows[v->sel]->id == v->sel_id || v->sel_id == 0) {
			draw_details(m, v, rows[v->sel], cv);
			v->nshown = 1;
			return;
		}
	}
	cv_printf(cv, 0, 0, R_UNKNOWN, "session %lld is not in the session list now (ended, or hidden: i, b, /)",
		  v->sel_id);
}

/* The lines above the list: the summary (the tile's minimum); on the
 * full screen the sort and the read's cost; a partial list's note.
 * Returns the next free row. */
static int sessions_draw_top(const struct model *m, const struct pane_view *v, size_t n, struct canvas *cv)
{
	const struct session_set *ss = m->sessions;
	char line[1024];
	int y = 0;
	sessions_summary(m, v, line, sizeof line);
	cv_text(cv, y++, 0, R_LABEL, line);
	if (v->full && cv->h - y > 3) {
		str_printf(line, sizeof line, "sort: %s%s (s: next column, r: reverse)  read %.1f ms", ss_cols[SORT_COL(v)].sort_name,
			   REVERSED(v) ? " reversed" : "", ss->query_ms);
		if (ss->age_s > 0) {
			size_t l = strlen(line);
			str_printf(line + l, sizeof line - l, ", %.0f s ago (--server-budget)", ss->age_s);
		}
		cv_text(cv, y++, 0, R_LABEL, line);
	}
	if (ss->status == SESS_PARTIAL && ss->note[0] && y < cv->h && (cv->h - y > 2 || n == 0))
		y = cv_wrap(cv, y, 0, R_WARN, ss->note, y + 2 < cv->h ? y + 2 : cv->h);
	return y;
}

/* Each column's width for these rows (0: left out): the widest cell, as
 * ss_layout shares the width out. */
static void sessions_widths(const struct pane_view *v, const struct session **rows, size_t n, struct canvas *cv,
			    int width[C__N])
{
	bool blocker = false;
	int fit[C__N] = {0};
	for (size_t i = 0; i < n; i++) {
		blocker |= rows[i]->blocked_by > 0;
		for (int c = 0; c < C_QUERY; c++) {
			char b[256];
			struct ss_ctx ctx = {.utf8 = cv->utf8, .w = 99, .tagged = tag_of(v, rows[i]->id) >= 0};
			ss_cols[c].cell(rows[i], &ctx, b, sizeof b);
			int k = text_cols(b);
			if (k > fit[c])
				fit[c] = k;
		}
	}
	ss_layout(cv->w, blocker, v->hide, fit, width);
}

/* The column heads on row y (the sort column marked). */
static void sessions_draw_heads(const struct pane_view *v, const int width[C__N], int y, struct canvas *cv)
{
	int x = 0;
	for (int c = 0; c < C__N; c++) {
		char p[256];
		if (!width[c])
			continue;
		if (c == C_QUERY) {
			cv_text(cv, y, x, R_LABEL, ss_cols[c].head);
			break;
		}
		text_pad(p, sizeof p, ss_cols[c].head, width[c], ss_cols[c].right, cv->utf8);
		x += cv_text(cv, y, x, c == (int)SORT_COL(v) ? R_TITLE : R_LABEL, p) + 1;
	}
}

/* One session's row on row y, in the role of its class (selected: the
 * selection's). */
static void sessions_draw_row(const struct pane_view *v, const struct session *s, bool sel, const int width[C__N],
			      int y, struct canvas *cv)
{
	enum role role = sel ? R_SELECTED
			 : s->cls == SC_LOCK_WAIT ? R_WAITER
			 : s->cls == SC_ACTIVE ? R_VALUE
			 : s->cls == SC_IDLE_IN_TRX ? R_WARN
			 : s->cls == SC_IDLE || s->cls == SC_BACKGROUND ? R_LABEL : R_NORMAL;
	int x = 0;
	if (sel)
		cv_fill(cv, y, 0, cv->w, R_SELECTED);
	for (int c = 0; c < C__N; c++) {
		char v0[SESSION_QUERY_MAX + 16], p[512];
		struct ss_ctx ctx = {.utf8 = cv->utf8, .w = width[c], .tagged = tag_of(v, s->id) >= 0};
		if (!width[c])
			continue;
		ss_cols[c].cell(s, &ctx, v0, sizeof v0);
		if (c == C_QUERY) {
			cv_text(cv, y, x, role, v0);
			break;
		}
		text_pad(p, sizeof p, v0, width[c], ss_cols[c].right, cv->utf8);
		x += cv_text(cv, y, x, role, p) + 1;
	}
}

static void sessions_draw(const struct model *m, struct pane_view *v, struct canvas *cv)
{
	const struct session_set *ss = m->sessions;
	const struct session **rows = NULL;
	unsigned hid_idle, hid_bg;
	int width[C__N];

	v->nrows = 0;
	if (!ss || ss->status == SESS_UNAVAILABLE || ss->status == SESS_NOT_READ || (m->last.state != STATE_UP && m->intervals)) {
		ss_why(m, cv, 0);
		return;
	}
	size_t n = ss_rows(m, v, &rows, &hid_idle, &hid_bg);
	v->nrows = (int)n;
	follow(v, rows, n);
	if (v->details) {
		sessions_draw_details(m, v, rows, n, cv);
		free(rows);
		return;
	}
	int y = sessions_draw_top(m, v, n, cv);
	if (y >= cv->h) {
		if (!v->full)
			v->nrows = 0;   /* a tile: the one-line summary, as the tuning tile's */
		free(rows);
		return;
	}
	sessions_widths(v, rows, n, cv, width);
	/* the heads: one row only, then the top session rather than them */
	if (cv->h - y >= 2 || n == 0)
		sessions_draw_heads(v, width, y++, cv);
	if (n == 0) {
		cv_text(cv, y, 0, R_UNKNOWN,
			v->filter ? "no session matches the filter"
			: hid_idle || hid_bg ? "no session but idle or background ones (i shows idle, b background)"
					      : "no session");
		free(rows);
		return;
	}
	pane_clamp(v, (int)n, cv->h - y);
	for (size_t i = (size_t)v->top; i < n && y < cv->h; i++, y++) {
		sessions_draw_row(v, rows[i], v->focused && (int)i == v->sel, width, y, cv);
		v->nshown++;
	}
	free(rows);
}

/* The selected session (NULL: none; *gone: the one the last frame showed
 * selected has left the list since, and no other is taken for it). */
static const struct session *selected(const struct model *m, const struct pane_view *v, long long *gone)
{
	const struct session **rows;
	const struct session *s = NULL;
	size_t n = ss_rows(m, v, &rows, NULL, NULL);
	/* moved since the last frame (keys read together): the row it is on
	 * now; else the session the frame showed selected (the top row
	 * until a key chose one), wherever a refresh since moved it */
	long long shown = v->sel == v->sel_drawn ? (v->sel_id ? v->sel_id : strtoll(v->sel_key, NULL, 10)) : 0;
	*gone = 0;
	for (size_t i = 0; i < n && shown; i++)
		if (rows[i]->id == shown)
			s = rows[i];
	if (!s && shown && n > 0)
		*gone = shown;
	else if (!s && v->sel >= 0 && (size_t)v->sel < n)
		s = rows[v->sel];
	free(rows);
	return s;
}

/* The selected session, or NULL with why in r->status. */
static const struct session *selected_or_say(const struct model *m, struct pane_view *v, struct pane_reaction *r)
{
	long long gone = 0;
	const struct session *s = m->sessions ? selected(m, v, &gone) : NULL;
	if (gone)
		str_printf(r->status, sizeof r->status,
			   "session %lld, selected, has left the list since the screen showed it: nothing is done "
			   "(the selection is on the row in its place)",
			   gone);
	else if (!s)
		str_copy(r->status, sizeof r->status, "no session selected");
	return s;
}

const struct session *sessions_selected(const struct model *m, const struct pane_view *v, char *buf, size_t len)
{
	long long gone = 0;
	const struct session *s = m->sessions ? selected(m, v, &gone) : NULL;
	if (gone)
		str_printf(buf, len, "session %lld has left the list since the screen showed it", gone);
	else if (!s)
		str_copy(buf, len, "no session selected");
	else if (s->self)
		str_copy(buf, len, "that is dbtop's own connection");
	return s && !s->self ? s : NULL;
}

/* x / c with sessions tagged: one confirmation naming every tagged session
 * still listed; each is checked (and acted on) in turn by the screen. */
static void ask_tagged(const struct model *m, const struct pane_view *v, bool term, struct pane_reaction *r)
{
	const struct session *list[PANE_TAGS_MAX];
	const struct sessions_state *tg = st_of(v);
	int n = 0, gone = 0;
	for (int i = 0; i < tg->ntags; i++) {
		const struct session *s = session_find(m->sessions, tg->tags[i]);
		if (s && (s->ident.known || v->replay))
			list[n++] = s;
		else
			gone++;
	}
	if (n == 0) {
		str_printf(r->status, sizeof r->status,
			   "none of the %d tagged sessions is listed (and identified) now: "
			   "nothing is done",
			   tg->ntags);
		return;
	}
	bool pg = m->caps.engine == ENGINE_POSTGRESQL;
	r->ask.act = term ? PA_TERMINATE : PA_CANCEL;
	r->ask.id = list[0]->id;
	r->ask.who = list[0]->ident;
	r->ask.nmore = n - 1;
	for (int i = 1; i < n; i++) {
		r->ask.more_id[i - 1] = list[i]->id;
		r->ask.more_who[i - 1] = list[i]->ident;
	}
	struct strbuf b;
	char t[200], st[24];
	sb_init(&b);
	str_printf(t, sizeof t, "%s %d tagged session%s with %s each?", term ? "END" : "CANCEL the statements of", n,
		   n == 1 ? "" : "s",
		   pg ? (term ? "pg_terminate_backend" : "pg_cancel_backend") : (term ? "KILL" : "KILL QUERY"));
	sb_puts(&b, t);
	for (int i = 0; i < n; i++) {
		fmt_dur(list[i]->state_s, st, sizeof st);
		str_printf(t, sizeof t, " %lld (user %s, %s %s: %.40s)%s", list[i]->id, list[i]->user[0] ? list[i]->user : "?",
			   class_word(list[i]->cls, false), st, list[i]->query ? list[i]->query : "-", i + 1 < n ? ";" : ".");
		sb_puts(&b, t);
	}
	str_printf(t, sizeof t, " %s Each is checked to be still the session shown, one after the other; one that "
		   "is not is left alone.%s", term ? "Their open transactions are rolled back." : "Their transactions stay open.",
		   gone ? " Tagged sessions no longer listed are left out." : "");
	sb_puts(&b, t);
	str_copy(r->ask.what, sizeof r->ask.what, b.s);
	sb_free(&b);
}

/* y: the selected session's statement, for the clipboard. */
static void sessions_copy(const struct model *m, struct pane_view *v, int arg, struct pane_reaction *r)
{
	const struct session *s = selected_or_say(m, v, r);
	(void)arg;
	if (s)
		pane_copy(r, s->query, "this session's statement is not visible");
}

/* m: tag / untag the selected session. */
static void sessions_tag(const struct model *m, struct pane_view *v, int arg, struct pane_reaction *r)
{
	struct sessions_state *st = v->state;
	const struct session *s = selected_or_say(m, v, r);
	(void)arg;
	if (!s || !st) {
		/* (r->status says why; a view made without its state keeps no tags) */
	} else if (tag_of(v, s->id) >= 0) {
		st->tags[tag_of(v, s->id)] = st->tags[--st->ntags];
		str_printf(r->status, sizeof r->status, "session %lld untagged (%d tagged)", s->id, st->ntags);
	} else if (s->self) {
		str_copy(r->status, sizeof r->status, "that is dbtop's own connection: not tagged");
	} else if (st->ntags >= PANE_TAGS_MAX) {
		str_printf(r->status, sizeof r->status, "at most %d sessions are tagged at once", PANE_TAGS_MAX);
	} else {
		st->tags[st->ntags++] = s->id;
		str_printf(r->status, sizeof r->status,
			   "session %lld tagged (%d tagged: x / c act on them all; M untags)", s->id, st->ntags);
	}
}

/* M: untag every session. */
static void sessions_untag(const struct model *m, struct pane_view *v, int arg, struct pane_reaction *r)
{
	int n = sessions_ntags(v);
	(void)m;
	(void)arg;
	str_printf(r->status, sizeof r->status, "%d session%s untagged", n, n == 1 ? "" : "s");
	sessions_untag_all(v);
}

/* its commands (the arg of its table's rows) */
enum { SS_SORT, SS_REVERSE, SS_SHOW_IDLE, SS_SHOW_BACKGROUND, SS_TERMINATE, SS_CANCEL };

static void sessions_key(const struct model *m, struct pane_view *v, int cmd, struct pane_reaction *r)
{
	const struct session *s;
	switch (cmd) {
	case SS_SORT:
		v->sort = (v->sort & ~15) | (((v->sort & 15) + 1) % C__N);
		str_printf(r->status, sizeof r->status, "sessions sorted by %s%s", ss_cols[SORT_COL(v)].sort_name,
			   REVERSED(v) ? " (reversed)" : "");
		return;
	case SS_REVERSE:
		v->sort ^= SESSIONS_REVERSE;
		str_printf(r->status, sizeof r->status, "sessions sorted by %s%s", ss_cols[SORT_COL(v)].sort_name,
			   REVERSED(v) ? " (reversed)" : "");
		return;
	case SS_SHOW_IDLE:
		v->sort ^= SESSIONS_SHOW_IDLE;
		str_copy(r->status, sizeof r->status,
			 SHOW_IDLE(v) ? "sessions: idle ones shown (i hides them)"
				      : "sessions: idle ones hidden (i shows them)");
		return;
	case SS_SHOW_BACKGROUND:
		v->sort ^= SESSIONS_SHOW_BACKGROUND;
		str_copy(r->status, sizeof r->status,
			 SHOW_BG(v) ? "sessions: server processes shown (b hides them)"
				    : "sessions: server processes hidden (b shows them)");
		return;
	case SS_TERMINATE:
	case SS_CANCEL: {
		if (v->read_only) {
			str_copy(r->status, sizeof r->status, "read-only session (--read-only): no kill or cancel");
			return;
		}
		if (sessions_ntags(v) > 0) {
			ask_tagged(m, v, cmd == SS_TERMINATE, r);
			return;
		}
		s = selected_or_say(m, v, r);
		if (!s)
			return;
		if (s->self) {
			str_copy(r->status, sizeof r->status, "that is dbtop's own connection: nothing is done");
			return;
		}
		char role[200], st[24], spare[120] = "";
		fmt_dur(s->state_s, st, sizeof st);
		if (s->blocked_by > 0) {
			str_printf(role, sizeof role, "waiting %s for %lld", st, s->blocked_by);
			str_printf(spare, sizeof spare, " Session %lld, which it waits for, is left alone.", s->blocked_by);
		} else {
			str_printf(role, sizeof role, "%s %s", class_word(s->cls, false), st);
		}
		pane_ask_session(m, v, r, cmd == SS_TERMINATE, s->id, s->user, role, spare, &s->ident, s->query);
		return;
	}
	default: return;
	}
}

static const struct pane_command sessions_commands[] = {
	{"sort", sessions_key, SS_SORT},
	{"reverse", sessions_key, SS_REVERSE},
	{"show-idle", sessions_key, SS_SHOW_IDLE},
	{"show-background", sessions_key, SS_SHOW_BACKGROUND},
	{"tag", sessions_tag, 0},
	{"untag-all", sessions_untag, 0},
	{"terminate", sessions_key, SS_TERMINATE},
	{"cancel", sessions_key, SS_CANCEL},
	{"copy", sessions_copy, 0},
	{NULL, NULL, 0},
};

const struct pane_ops sessions_pane = {
	.name = "sessions",
	.title = "sessions",
	.draw = sessions_draw,
	.commands = sessions_commands,
	.init = sessions_init,
	.free = sessions_free,
	.min_h = 2,
	.need = sessions_need,
};
