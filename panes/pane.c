/* pane.c - what every pane shares: the PCRE2 filter, row clamping, the
 * look-up of a named command. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "pane.h"

#include <pcre2.h>
#include <stdio.h>
#include <string.h>

#include "../util/util.h"
#include "../sources/sessions_map.h"

bool pane_filter_match(const struct pane_view *v, const char *text)
{
	pcre2_match_data *md;
	int rc;
	if (!v->filter)
		return true;
	md = pcre2_match_data_create_from_pattern(v->filter, NULL);
	if (!md)
		return true;
	rc = pcre2_match(v->filter, (PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	return rc >= 0;
}

int pane_filter_set(struct pane_view *v, const char *pattern, char *err, size_t errlen)
{
	pcre2_code *re;
	int ec;
	PCRE2_SIZE off;
	if (!pattern || !*pattern) {
		pane_filter_free(v);
		return 0;
	}
	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
			   PCRE2_CASELESS | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &ec, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(ec, msg, sizeof msg);
		str_printf(err, errlen, "bad pattern at offset %zu: %s", (size_t)off, (char *)msg);
		return -1;
	}
	pane_filter_free(v);
	v->filter = re;
	str_copy(v->filter_text, sizeof v->filter_text, pattern);
	text_sanitize(v->filter_text);
	return 0;
}

void pane_filter_free(struct pane_view *v)
{
	if (v->filter)
		pcre2_code_free(v->filter);
	v->filter = NULL;
	v->filter_text[0] = '\0';
}

void pane_clamp(struct pane_view *v, int nrows, int visible)
{
	if (v->sel >= nrows)
		v->sel = nrows - 1;
	if (v->sel < 0)
		v->sel = 0;
	if (visible < 1)
		visible = 1;
	if (v->top > v->sel)
		v->top = v->sel;
	if (v->sel >= v->top + visible)
		v->top = v->sel - visible + 1;
	if (v->top > nrows - visible)
		v->top = nrows - visible;
	if (v->top < 0)
		v->top = 0;
}

void pane_ask_session(const struct model *m, const struct pane_view *v, struct pane_reaction *r, bool term,
		      long long id, const char *user, const char *role, const char *spare,
		      const struct session_ident *ident, const char *query)
{
	bool pg = m->caps.engine == ENGINE_POSTGRESQL;
	if (v->read_only) {
		str_copy(r->status, sizeof r->status, "read-only session (--read-only): no kill or cancel");
		return;
	}
	if (!v->replay && (!ident->known || id <= 0)) {
		/* another role's backend read without pg_read_all_stats, a lock
		 * query without the identity columns, or a blocker without a
		 * session (a prepared transaction) */
		str_printf(r->status, sizeof r->status,
			   "session %lld is not identified in this sample (%s): nothing can be checked, so nothing "
			   "is done",
			   id, pg ? "its start: another role's needs pg_read_all_stats" : "its transaction");
		return;
	}
	char q[160], who[200], sql[64];
	str_printf(q, sizeof q, "%s", query ? query : "(statement not available)");
	session_ident_text(ident, !term, who, sizeof who);
	r->ask.act = term ? PA_TERMINATE : PA_CANCEL;
	r->ask.id = id;
	r->ask.who = *ident;
	r->ask.nmore = 0;
	bool maria = !pg && m->caps.flavour == FLAVOUR_MARIADB;
	session_act_sql(pg, maria, term, id, ident, sql, sizeof sql);
	/* (a recording made before identities were kept has none to name; its
	 * replay cannot act anyway) */
	char chk[320] = "";
	if (ident->known)
		str_printf(chk, sizeof chk, " Checked %s: session %lld is still the one shown (%s); if not, nothing is done.",
			   pg || maria ? "in the same statement" : "just before", id, who);
	str_printf(r->ask.what, sizeof r->ask.what, "%s session %lld (user %s, %s) with %s? %s%s%s%s Statement: %s",
		   term ? "END" : "CANCEL the statement of", id, user && user[0] ? user : "?", role, sql,
		   term ? "Its open transaction is rolled back." : "Its transaction stays open.", spare ? spare : "",
		   !pg && !m->caps.priv_super ? "  [needs SUPER or CONNECTION_ADMIN for other users' sessions]"
		   : pg && !m->caps.superuser ? "  [needs superuser, pg_signal_backend or the same role]"
					      : "",
		   chk, q);
}

void pane_copy(struct pane_reaction *r, const char *text, const char *what)
{
	free(r->copy);
	r->copy = NULL;
	if (text && *text)
		r->copy = xstrdup(text);
	else
		str_copy(r->status, sizeof r->status, what);
}

void pane_follow(struct pane_view *v, int n, pane_key_fn key, const void *ctx)
{
	char k[PANE_KEY_LEN];
	if (n <= 0) {
		v->sel_drawn = v->sel;
		return;
	}
	if (v->sel_follow && v->sel == v->sel_drawn && v->sel_key[0])
		for (int i = 0; i < n; i++) {
			key(ctx, i, k, sizeof k);
			if (strcmp(k, v->sel_key) == 0) {
				v->sel = i;
				break;
			}
		}
	/* (gone: the row in its place, drawn selected) */
	if (v->sel >= n)
		v->sel = n - 1;
	if (v->sel < 0)
		v->sel = 0;
	key(ctx, v->sel, v->sel_key, sizeof v->sel_key);
	v->sel_drawn = v->sel;
}

int pane_target(struct pane_view *v, int n, pane_key_fn key, const void *ctx)
{
	char k[PANE_KEY_LEN];
	if (v->sel != v->sel_drawn || !v->sel_key[0])
		return v->sel >= 0 && v->sel < n ? v->sel : -1;
	for (int i = 0; i < n; i++) {
		key(ctx, i, k, sizeof k);
		if (strcmp(k, v->sel_key) == 0) {
			v->sel = v->sel_drawn = i;
			return i;
		}
	}
	return -1;
}

void pane_sel_reset(struct pane_view *v)
{
	v->sel = v->top = v->sel_drawn = 0;
	v->sel_key[0] = '\0';
	v->sel_follow = false;
}

const struct pane_command *pane_command_find(const struct pane_ops *p, const char *name)
{
	for (const struct pane_command *c = p && name ? p->commands : NULL; c && c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

struct pane_reaction pane_command(const struct pane_ops *p, const char *name, const struct model *m,
				  struct pane_view *v)
{
	struct pane_reaction r;
	const struct pane_command *c = pane_command_find(p, name);
	memset(&r, 0, sizeof r);
	if (c) {
		r.handled = true;
		c->run(m, v, c->arg, &r);
	}
	return r;
}

void pane_view_init(struct pane_view *v, const struct pane_ops *p)
{
	v->state = p->init ? p->init() : NULL;
}

void pane_view_free(struct pane_view *v, const struct pane_ops *p)
{
	if (p->free)
		p->free(v->state);
	v->state = NULL;
}
