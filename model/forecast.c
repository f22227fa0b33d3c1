/* forecast.c - the forecast rules of the tuning table's remedies and the
 * outcome measured after a change (forecast.h). */
#include "forecast.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "../util/util.h"

/* The figures a rule reads: each the mean of the intervals of the last
 * minute (NaN when none measured it). */
struct fc_figs {
	double v[M__COUNT];
	int intervals; /* intervals averaged (0: the newest rates) */
	const struct model *m;
};

/* The mean of metric id over the intervals of the model's history from the
 * skip-th newest back to FC_WINDOW_S before it (at most max of them); with
 * no history, the newest rate (skip 0 only). NaN when none is known. */
static double figure(const struct model *m, enum metric_id id, size_t skip, size_t max, int *nused)
{
	double sum = 0, t0 = ring_get(&m->hist_t, skip);
	int n = 0;
	for (size_t i = skip; i < m->hist[id].len && i - skip < max; i++) {
		double t = ring_get(&m->hist_t, i), v = ring_get(&m->hist[id], i);
		if (isfinite(t0) && isfinite(t) && t0 - t > FC_WINDOW_S)
			break;
		if (isfinite(v)) {
			sum += v;
			n++;
		}
	}
	*nused = n;
	if (n)
		return sum / n;
	return skip == 0 && m->hist[id].len == 0 && m->cur[id].st == RATE_OK ? m->cur[id].v : NAN;
}

static void figures(const struct model *m, size_t skip, size_t max, struct fc_figs *f)
{
	f->m = m;
	f->intervals = 0;
	for (int i = 0; i < M__COUNT; i++) {
		int n;
		f->v[i] = figure(m, (enum metric_id)i, skip, max, &n);
		if (n > f->intervals)
			f->intervals = n;
	}
}

/* A rule: fills fc (items and text) or says in why what is missing;
 * returns true for a forecast. */
typedef bool (*fc_fn)(const struct fc_figs *f, const struct tunable *t, const char *to, struct forecast *fc, char *why,
		      size_t len);

/* The item metric: from before into lo..hi. */
static void item(struct forecast *fc, enum metric_id id, double before, double lo, double hi)
{
	if (fc->n >= FC_ITEMS)
		return;
	fc->it[fc->n++] = (struct fc_item){.metric = id, .before = before, .lo = lo < 0 ? 0 : lo, .hi = hi};
}

/* What is missing of the figures a rule needs (ids), "" when none. */
static void missing(const struct fc_figs *f, const enum metric_id *ids, const char *const *what, int n, char *why,
		    size_t len)
{
	why[0] = '\0';
	for (int i = 0; i < n; i++)
		if (!isfinite(f->v[ids[i]]))
			str_printf(why + strlen(why), len - strlen(why), "%s%s", why[0] ? ", " : "", what[i]);
}

/* A sync leaves each commit: COMMIT Y ms falls by the sync's X ms (up to
 * Y - X/2 still met: the sync was part of it), its syncs/s from N to
 * about one a second (up to max(3, N/4)). */
static bool sync_leaves(const struct fc_figs *f, enum metric_id syncs, enum metric_id sync_ms, const char *what,
			struct forecast *fc, char *why, size_t len)
{
	const enum metric_id ids[] = {M_COMMITS, M_COMMIT_MS, sync_ms, syncs};
	char w[4][80];
	str_copy(w[0], sizeof w[0], "no commits measured");
	str_copy(w[1], sizeof w[1], "no COMMIT latency measured (statement digests)");
	str_printf(w[2], sizeof w[2], "no %s sync time measured", what);
	str_printf(w[3], sizeof w[3], "no %s sync count measured", what);
	const char *const names[] = {w[0], w[1], w[2], w[3]};
	missing(f, ids, names, 4, why, len);
	if (!why[0] && !(f->v[M_COMMITS] > 0))
		str_copy(why, len, "no commits in the last minute");
	if (why[0])
		return false;
	double y = f->v[M_COMMIT_MS], x = f->v[sync_ms], n = f->v[syncs];
	double expect = y - x > 0 ? y - x : 0, nhi = n / 4 > 3 ? n / 4 : 3;
	item(fc, M_COMMIT_MS, y, 0, expect + x / 2);
	item(fc, syncs, n, 0, nhi);
	str_printf(fc->text, sizeof fc->text,
		   "COMMIT %.1f ms -> ~%.1f ms (at most %.1f): the %.1f ms %s sync leaves "
		   "each commit; %s syncs/s ~%.0f -> ~1 (at most %.0f)",
		   y, expect, expect + x / 2, x, what, what, n, nhi);
	return true;
}

static bool rule_redo(const struct fc_figs *f, const struct tunable *t, const char *to, struct forecast *fc, char *why,
		      size_t len)
{
	(void)t;
	if (tune_value_same(to, "1")) {
		str_copy(why, len, "the rule forecasts the redo sync leaving commits (1 -> 2 or 0), not coming back");
		return false;
	}
	return sync_leaves(f, M_REDO_FSYNCS, M_REDO_FSYNC_MS, "redo", fc, why, len);
}

static bool rule_binlog(const struct fc_figs *f, const struct tunable *t, const char *to, struct forecast *fc,
			char *why, size_t len)
{
	(void)t;
	const char *lb = model_setting(f->m, "log_bin");
	if (lb && !tune_value_same(lb, "ON")) {
		str_copy(why, len, "the binary log is off (log_bin=OFF): sync_binlog changes nothing");
		return false;
	}
	if (!tune_value_same(to, "0")) {
		str_copy(why, len, "the rule forecasts sync_binlog 1 -> 0 only");
		return false;
	}
	return sync_leaves(f, M_BINLOG_FSYNCS, M_BINLOG_FSYNC_MS, "binlog", fc, why, len);
}

/* The WAL writer's delay in ms: value (NULL: the model's setting). */
static bool writer_delay(const struct fc_figs *f, const char *value, double *ms, char *why, size_t len)
{
	const char *v = value ? value : model_setting(f->m, "wal_writer_delay");
	if (!v || !tune_value_ms(v, 1, ms) || !(*ms > 0)) {
		str_printf(why, len, "wal_writer_delay %s", v ? "is not a duration" : "not read");
		return false;
	}
	return true;
}

/* WAL syncs/s from S to about 1000/delay (at most 3 x that + 1: the writer
 * also flushes when wal_writer_flush_after fills). */
static void writer_item(const struct fc_figs *f, double delay_ms, struct forecast *fc, double *per, double *hi)
{
	*per = 1000 / delay_ms;
	*hi = 3 * *per + 1;
	item(fc, M_WAL_SYNCS, f->v[M_WAL_SYNCS], 0, *hi);
}

static bool rule_async(const struct fc_figs *f, const struct tunable *t, const char *to, struct forecast *fc, char *why,
		       size_t len)
{
	(void)t;
	double d, per, hi;
	if (!tune_value_same(to, "off")) {
		str_copy(why, len, "the rule forecasts synchronous_commit on -> off only");
		return false;
	}
	if (!isfinite(f->v[M_WAL_SYNCS])) {
		str_copy(why, len, "no WAL sync count measured (pg_stat_wal: PostgreSQL 14+)");
		return false;
	}
	if (!writer_delay(f, NULL, &d, why, len))
		return false;
	writer_item(f, d, fc, &per, &hi);
	char ms[80] = "";
	if (isfinite(f->v[M_WAL_SYNC_MS]))
		str_printf(ms, sizeof ms, "the %.2f ms WAL sync leaves each commit; ", f->v[M_WAL_SYNC_MS]);
	str_printf(fc->text, sizeof fc->text,
		   "%scommits no longer wait for the WAL flush: WAL syncs/s ~%.0f -> ~%.1f "
		   "(1000 / wal_writer_delay %.0f ms; at most %.1f)",
		   ms, f->v[M_WAL_SYNCS], per, d, hi);
	return true;
}

static bool rule_writer(const struct fc_figs *f, const struct tunable *t, const char *to, struct forecast *fc,
			char *why, size_t len)
{
	(void)t;
	double d, per, hi;
	const char *sc = model_setting(f->m, "synchronous_commit");
	if (sc && !tune_value_same(sc, "off")) {
		str_printf(why, len,
			   "synchronous_commit=%s: commits flush the WAL themselves, the writer's delay does not "
			   "set the WAL syncs",
			   sc);
		return false;
	}
	if (!isfinite(f->v[M_WAL_SYNCS])) {
		str_copy(why, len, "no WAL sync count measured (pg_stat_wal: PostgreSQL 14+)");
		return false;
	}
	if (!writer_delay(f, to, &d, why, len))
		return false;
	writer_item(f, d, fc, &per, &hi);
	str_printf(fc->text, sizeof fc->text,
		   "the WAL writer syncs about once per delay: WAL syncs/s ~%.0f -> ~%.1f "
		   "(1000 / %.0f ms; at most %.1f)",
		   f->v[M_WAL_SYNCS], per, d, hi);
	return true;
}

/* The rules, by tunables' forecast rule; a NULL fn: no forecast, why. */
static const struct {
	enum forecast_rule rule;
	fc_fn fn;
	const char *why;
} rules[] = {
	{FC_NONE, NULL, "an instrument changes what is measured, not the server's work"},
	{FC_REDO_SYNC, rule_redo, NULL},
	{FC_BINLOG_SYNC, rule_binlog, NULL},
	{FC_ASYNC_COMMIT, rule_async, NULL},
	{FC_WAL_WRITER, rule_writer, NULL},
	{FC_GROUP_COMMIT, NULL,
	 "how many commits share a sync depends on how many sessions commit at once "
	 "(no rule)"},
};

/* The forecast of t -> to from the figures f. */
static void forecast_from(const struct fc_figs *f, const struct tunable *t, const char *to, struct forecast *fc)
{
	char why[FC_TEXT_LEN - 16] = "no rule for this setting";
	memset(fc, 0, sizeof *fc);
	for (size_t i = 0; t && i < sizeof rules / sizeof rules[0]; i++) {
		if (rules[i].rule != t->forecast)
			continue;
		if (!rules[i].fn)
			str_copy(why, sizeof why, rules[i].why);
		else if (rules[i].fn(f, t, to, fc, why, sizeof why))
			fc->ok = true;
		break;
	}
	if (!fc->ok) {
		fc->n = 0;
		str_printf(fc->text, sizeof fc->text, "no forecast: %s", why);
	}
}

void forecast_make(const struct model *m, const struct tunable *t, const char *to, struct forecast *fc)
{
	struct fc_figs f;
	figures(m, 0, (size_t)-1, &f);
	forecast_from(&f, t, to, fc);
}

/* The figure as people read it. */
static const char *label_of(int id)
{
	static const struct {
		enum metric_id id;
		const char *label;
	} labels[] = {
		{M_COMMIT_MS, "COMMIT"},
		{M_REDO_FSYNCS, "redo fsyncs/s"},
		{M_BINLOG_FSYNCS, "binlog fsyncs/s"},
		{M_WAL_SYNCS, "WAL syncs/s"},
	};
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
		if (labels[i].id == (enum metric_id)id)
			return labels[i].label;
	return id >= 0 && id < M__COUNT ? metric_defs[id].key : "?";
}

enum fc_state forecast_judge(const struct forecast *fc, const double *after, char *text, size_t len)
{
	enum fc_state st = FCO_MET;
	char parts[FC_TEXT_LEN] = "";
	if (!fc->ok || fc->n == 0) {
		str_copy(text, len, fc->text);
		return FCO_UNKNOWN;
	}
	for (int i = 0; i < fc->n; i++) {
		const struct fc_item *it = &fc->it[i];
		if (!isfinite(after[i])) {
			str_printf(text, len, "forecast not judged: %s not measured after the change",
				   label_of(it->metric));
			return FCO_UNKNOWN;
		}
		bool in = after[i] >= it->lo && after[i] <= it->hi;
		if (!in)
			st = FCO_MISSED;
		str_printf(parts + strlen(parts), sizeof parts - strlen(parts),
			   "%s%s %.1f -> %.1f (forecast %.1f-%.1f%s)", i ? "; " : "", label_of(it->metric), it->before,
			   after[i], it->lo, it->hi, in ? "" : ": outside");
	}
	str_printf(text, len, "forecast %s: %s", st == FCO_MET ? "met" : "missed", parts);
	return st;
}

const char *fc_state_name(enum fc_state s)
{
	static const char *const names[] = {"none", "settling", "measuring", "met", "missed", "unknown"};
	return s <= FCO_UNKNOWN ? names[s] : "?";
}

static const char *value_in(const struct setting *set, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(set[i].name, name) == 0)
			return set[i].value;
	return NULL;
}

/* A setting of the table that the new reading s shows changed to its
 * remedy: the outcome starts, forecast from the intervals before this one. */
static void start_outcome(struct model *m, const struct sample *s)
{
	for (size_t i = 0; i < ntunables; i++) {
		const struct tunable *t = &tunables[i];
		if (!tunable_applies(t, m->caps.flavour) || t->kind == TK_MY_INSTRUMENT)
			continue;
		const char *was = value_in(m->settings, m->nsettings, t->name);
		const char *now = value_in(s->settings, (size_t)s->nsettings, t->name);
		if (!was || !now || tune_value_same(was, now) || !tune_value_same(now, t->remedy))
			continue;
		struct fc_outcome *o = &m->outcome;
		struct fc_figs f;
		memset(o, 0, sizeof *o);
		str_copy(o->name, sizeof o->name, t->name);
		str_copy(o->from, sizeof o->from, was);
		str_copy(o->to, sizeof o->to, now);
		o->wall = s->wall;
		o->seen = m->intervals;
		figures(m, 1, (size_t)-1, &f);
		forecast_from(&f, t, now, &o->fc);
		o->state = o->fc.ok ? FCO_SETTLING : FCO_UNKNOWN;
		str_copy(o->text, sizeof o->text, o->fc.text);
		for (int k = 0; k < FC_ITEMS; k++)
			o->after[k] = NAN;
		return;
	}
}

/* A role's or a database's own value in s of a narrow setting set to its
 * remedy, new since the model's reading: the outcome starts, not judged
 * (its new sessions only take it). True when one did. */
static bool start_scoped(struct model *m, const struct sample *s)
{
	if (!s->scoped_read || !m->scoped_read)
		return false; /* the first reading: what was there before dbtop looked */
	for (int k = 0; k < s->nscoped; k++) {
		const struct scoped_setting *x = &s->scoped[k];
		const struct tunable *t = tunable_find(x->name, m->caps.flavour, TK_PG_SYSTEM);
		if (!t || !t->narrow || !tune_value_same(x->value, t->remedy))
			continue;
		const char *was = NULL;
		for (int i = 0; i < m->nscoped; i++)
			if (m->scoped[i].scope == x->scope && strcmp(m->scoped[i].name, x->name) == 0 &&
			    strcmp(m->scoped[i].target, x->target) == 0)
				was = m->scoped[i].value;
		if (was && tune_value_same(was, x->value))
			continue;
		struct fc_outcome *o = &m->outcome;
		const char *server = value_in(m->settings, m->nsettings, t->name);
		memset(o, 0, sizeof *o);
		str_copy(o->name, sizeof o->name, t->name);
		/* before: its own value, or the server's its sessions had */
		str_copy(o->from, sizeof o->from, was ? was : server ? server : "?");
		str_copy(o->to, sizeof o->to, x->value);
		o->scope = x->scope;
		str_copy(o->target, sizeof o->target, x->target);
		o->wall = s->wall;
		o->seen = m->intervals;
		o->state = FCO_UNKNOWN; /* not judged: no forecast event either */
		str_copy(o->fc.text, sizeof o->fc.text,
			 "no forecast: its new sessions only take it (how many come is not known)");
		str_copy(o->text, sizeof o->text, o->fc.text);
		for (int i = 0; i < FC_ITEMS; i++)
			o->after[i] = NAN;
		return true;
	}
	return false;
}

/* One interval of the measuring: each figure's value read in it that
 * covers only time after the settling, weighted by that time (a held
 * value, read before, is not counted again). True when every figure has
 * one. */
static bool measure(const struct model *m, struct fc_outcome *o, const struct sample *s)
{
	bool all = true;
	for (int k = 0; k < o->fc.n; k++) {
		int id = o->fc.it[k].metric;
		double from = m->from_mono[id], v = m->cur[id].v;
		if (m->cur[id].st == RATE_OK && m->age_s[id] == 0 && isfinite(v) && from >= o->settled_mono &&
		    s->mono > from) {
			o->sum[k] += v * (s->mono - from);
			o->span[k] += s->mono - from;
		}
		if (!(o->span[k] > 0))
			all = false;
	}
	return all;
}

void forecast_track(struct model *m, const struct sample *s)
{
	struct fc_outcome *o = &m->outcome;
	bool pending = o->state == FCO_SETTLING || o->state == FCO_MEASURING;
	if (pending && s->settings_fresh && !o->scope) {
		const char *now = value_in(s->settings, (size_t)s->nsettings, o->name);
		if (now && !tune_value_same(now, o->to)) {
			o->state = FCO_UNKNOWN;
			o->decided = m->intervals;
			str_printf(o->text, sizeof o->text,
				   "forecast not judged: %s changed again (to %s) before the outcome "
				   "was measured",
				   o->name, now);
			return;
		}
	}
	if (s->settings_fresh && m->nsettings > 0 && !start_scoped(m, s))
		start_outcome(m, s);
	if (o->state != FCO_SETTLING && o->state != FCO_MEASURING)
		return;
	unsigned long since = m->intervals - o->seen;
	if (since <= FC_SETTLE_INTERVALS) {
		o->settled_mono = s->mono;
		return;
	}
	o->state = FCO_MEASURING;
	bool all = measure(m, o, s);
	if (since < FC_SETTLE_INTERVALS + FC_MEASURE_INTERVALS ||
	    (!all && s->mono - o->settled_mono < FC_MEASURE_MAX_S))
		return;
	for (int k = 0; k < o->fc.n; k++)
		o->after[k] = o->span[k] > 0 ? o->sum[k] / o->span[k] : NAN;
	o->state = forecast_judge(&o->fc, o->after, o->text, sizeof o->text);
	o->decided = m->intervals;
}

void forecast_json(const struct fc_outcome *o, struct strbuf *out)
{
	forecast_json_scoped(o, NULL, out);
}

/* ,"scoped":[...]: the roles' and databases' own values */
static void scoped_json(const struct model *m, struct strbuf *out)
{
	sb_puts(out, ",\"scoped\":[");
	for (int i = 0; i < m->nscoped; i++) {
		const struct scoped_setting *x = &m->scoped[i];
		sb_puts(out, i ? ",{\"setting\":" : "{\"setting\":");
		json_str(out, x->name);
		sb_printf(out, ",\"scope\":\"%s\",\"scope_name\":", tune_scope_name((enum tune_kind)x->scope));
		json_str(out, x->target);
		sb_puts(out, ",\"value\":");
		json_str(out, x->value);
		sb_putc(out, '}');
	}
	sb_putc(out, ']');
}

void forecast_json_scoped(const struct fc_outcome *o, const struct model *m, struct strbuf *out)
{
	sb_puts(out, ",\"tuning\":{\"outcome\":");
	if (o->state == FCO_NONE) {
		sb_puts(out, "null");
		if (m && m->scoped_read)
			scoped_json(m, out);
		sb_putc(out, '}');
		return;
	}
	sb_puts(out, "{\"setting\":");
	json_str(out, o->name);
	sb_puts(out, ",\"from\":");
	json_str(out, o->from);
	sb_puts(out, ",\"to\":");
	json_str(out, o->to);
	if (o->scope) {
		/* one role's or one database's own value */
		sb_printf(out, ",\"scope\":\"%s\",\"scope_name\":", tune_scope_name((enum tune_kind)o->scope));
		json_str(out, o->target);
	}
	sb_printf(out, ",\"seen\":%.3f,\"state\":\"%s\",\"forecast\":", o->wall, fc_state_name(o->state));
	json_str(out, o->fc.text);
	sb_puts(out, ",\"figures\":[");
	for (int i = 0; i < o->fc.n; i++) {
		const struct fc_item *it = &o->fc.it[i];
		sb_puts(out, i ? ",{\"metric\":" : "{\"metric\":");
		json_str(out, metric_defs[it->metric].key);
		sb_puts(out, ",\"before\":");
		json_num3(out, it->before);
		sb_puts(out, ",\"lo\":");
		json_num3(out, it->lo);
		sb_puts(out, ",\"hi\":");
		json_num3(out, it->hi);
		sb_puts(out, ",\"after\":");
		json_num3(out, o->after[i]);
		sb_putc(out, '}');
	}
	sb_puts(out, "],\"text\":");
	json_str(out, o->text);
	sb_putc(out, '}');
	if (m && m->scoped_read)
		scoped_json(m, out);
	sb_putc(out, '}');
}
