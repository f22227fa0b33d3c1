/* triggers.c - parsing and evaluating incident triggers. See triggers.h. */
#include "triggers.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"

#define TOK_MAX 12

/* Split s (a copy in buf) into lower-case words; a comparison glued to
 * its neighbours ("latency>10ms") is a word of its own. */
static int words(const char *s, char *buf, size_t len, char **w)
{
	int n = 0;
	size_t o = 0;
	for (const char *p = s; *p && o + 3 < len;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (n == TOK_MAX)
			return -1;
		w[n++] = buf + o;
		if (strchr("<>=", *p)) {
			buf[o++] = *p++;
			if (*p == '=')
				buf[o++] = *p++;
		} else {
			while (*p && *p != ' ' && *p != '\t' && !strchr("<>=", *p) && o + 2 < len)
				buf[o++] = (char)tolower((unsigned char)*p++);
		}
		buf[o++] = '\0';
	}
	return n;
}

static int parse_op(const char *w, enum trig_op *op)
{
	static const char *const ops[] = {">", ">=", "<", "<=", "="};
	for (int i = 0; i < 5; i++)
		if (strcmp(w, ops[i]) == 0 || (i == 4 && strcmp(w, "==") == 0)) {
			*op = (enum trig_op)i;
			return 0;
		}
	return -1;
}

/* A number with an optional unit glued or in the next word: ms, s, us,
 * aas, /s, %. *scale_ms: the value is a time (converted to ms). Returns
 * the words used (1 or 2), or -1. */
static int parse_value(char **w, int n, bool time, double *v)
{
	char *e;
	double x = strtod(w[0], &e);
	const char *unit = e;
	int used = 1;
	if (e == w[0] || !isfinite(x))
		return -1;
	if (!*unit && n > 1 && (strcmp(w[1], "ms") == 0 || strcmp(w[1], "s") == 0 || strcmp(w[1], "us") == 0 ||
				strcmp(w[1], "aas") == 0 || strcmp(w[1], "/s") == 0 || strcmp(w[1], "sessions") == 0)) {
		unit = w[1];
		used = 2;
	}
	if (time && strcmp(unit, "s") == 0)
		x *= 1000;
	else if (time && strcmp(unit, "us") == 0)
		x /= 1000;
	else if (*unit && strcmp(unit, "ms") != 0 && strcmp(unit, "aas") != 0 && strcmp(unit, "/s") != 0 &&
		 strcmp(unit, "sessions") != 0)
		return -1;
	*v = x;
	return used;
}

/* "5s", "2m", "500ms", "1h" (or "5 s"): seconds; -1 when not one. */
static double parse_duration(char **w, int n, int *used)
{
	char *e;
	double x = strtod(w[0], &e);
	const char *u = e;
	*used = 1;
	if (e == w[0] || !(x >= 0))
		return -1;
	if (!*u && n > 1) {
		u = w[1];
		*used = 2;
	}
	if (!*u || strcmp(u, "s") == 0 || strcmp(u, "sec") == 0)
		return x;
	if (strcmp(u, "ms") == 0)
		return x / 1000;
	if (strcmp(u, "m") == 0 || strcmp(u, "min") == 0)
		return x * 60;
	if (strcmp(u, "h") == 0)
		return x * 3600;
	return -1;
}

/* The condition's subject: how many words it takes (kind and arg set,
 * id and time filled), or -1. */
static int parse_subject(char **w, int n, struct trigger *t, bool *time)
{
	*time = false;
	if (n >= 2 && strcmp(w[0], "commit") == 0 && strcmp(w[1], "latency") == 0) {
		t->kind = TK_METRIC;
		t->arg = M_COMMIT_MS;
		*time = true;
		str_copy(t->id, sizeof t->id, "commit-latency");
		return 2;
	}
	if (n >= 2 && strcmp(w[0], "lock") == 0 && (strcmp(w[1], "waiters") == 0 || strcmp(w[1], "waiting") == 0)) {
		t->kind = TK_LOCK_WAITERS;
		str_copy(t->id, sizeof t->id, "lock-waiters");
		return 2;
	}
	if (n >= 3 && strcmp(w[0], "wait") == 0 && strcmp(w[1], "class") == 0) {
		for (int c = 0; c < WC__COUNT; c++)
			if (strcasecmp(w[2], wait_class_name((enum wait_class)c)) == 0) {
				t->kind = TK_WAIT_CLASS;
				t->arg = c;
				str_printf(t->id, sizeof t->id, "wait-%s", wait_class_name((enum wait_class)c));
				return 3;
			}
		return -1;
	}
	for (int i = 0; i < M__COUNT; i++)
		if (strcmp(w[0], metric_defs[i].key) == 0) {
			t->kind = TK_METRIC;
			t->arg = i;
			*time = strcmp(metric_defs[i].unit, "ms") == 0;
			str_copy(t->id, sizeof t->id, metric_defs[i].key);
			for (char *c = t->id; *c; c++)
				if (*c == '_')
					*c = '-';
			return 1;
		}
	return -1;
}

/* "state DOWN", "state = STALLED", "state not UP": words used, or -1. */
static int parse_state(char **w, int n, struct trigger *t)
{
	int k = 1;
	if (k < n && (strcmp(w[k], "=") == 0 || strcmp(w[k], "is") == 0))
		k++;
	if (k + 1 < n && strcmp(w[k], "not") == 0 && strcmp(w[k + 1], "up") == 0) {
		t->arg = -1;
		str_copy(t->id, sizeof t->id, "not-up");
		return k + 2;
	}
	if (k < n && strcmp(w[k], "down") == 0)
		t->arg = STATE_DOWN;
	else if (k < n && strcmp(w[k], "stalled") == 0)
		t->arg = STATE_STALLED;
	else
		return -1;
	t->kind = TK_STATE;
	str_copy(t->id, sizeof t->id, w[k]);
	return k + 1;
}

/* "finding ID", "finding any", "findings [info|warning|critical]". */
static int parse_finding(char **w, int n, struct trigger *t)
{
	static const char *const sev[] = {"info", "warning", "critical"};
	if (strcmp(w[0], "findings") == 0 || (n > 1 && strcmp(w[0], "finding") == 0 && strcmp(w[1], "any") == 0)) {
		t->kind = TK_FINDINGS;
		t->arg = strcmp(w[0], "findings") == 0 ? SEV_WARN : SEV_INFO;
		str_copy(t->id, sizeof t->id, "findings");
		if (strcmp(w[0], "findings") == 0 && n > 1)
			for (int i = 0; i < 3; i++)
				if (strcmp(w[1], sev[i]) == 0) {
					t->arg = i;
					return 2;
				}
		return strcmp(w[0], "findings") == 0 ? 1 : 2;
	}
	if (n < 2 || strlen(w[1]) >= sizeof t->finding)
		return -1;
	t->kind = TK_FINDING;
	str_copy(t->finding, sizeof t->finding, w[1]);
	str_copy(t->id, sizeof t->id, w[1]);
	return 2;
}

/* An optional "NAME:" before the condition: the trigger's id. */
static const char *take_name(const char *text, struct trigger *t, char *name, size_t len)
{
	const char *colon = strchr(text, ':');
	name[0] = '\0';
	if (!colon || (size_t)(colon - text) >= len || colon == text)
		return text;
	for (const char *p = text; p < colon; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
			return text;
	str_printf(name, len, "%.*s", (int)(colon - text), text);
	(void)t;
	return colon + 1;
}

/* The condition after the subject: "OP VALUE [for DURATION]". */
static int parse_rest(char **w, int n, int k, bool time, struct trigger *t, char *err, size_t errlen)
{
	int used;
	if (t->kind != TK_STATE && t->kind != TK_FINDINGS && t->kind != TK_FINDING) {
		if (k >= n || parse_op(w[k], &t->op) < 0) {
			str_copy(err, errlen, "a comparison (>, >=, <, <=, =) follows what is compared");
			return -1;
		}
		if (++k >= n || (used = parse_value(w + k, n - k, time, &t->value)) < 0) {
			str_copy(err, errlen, "a number (with ms, s, AAS or /s) follows the comparison");
			return -1;
		}
		k += used;
	}
	if (k < n && strcmp(w[k], "for") == 0) {
		if (k + 1 >= n || (t->hold = parse_duration(w + k + 1, n - k - 1, &used)) < 0) {
			str_copy(err, errlen, "\"for\" takes a duration: 5s, 2m, 500ms");
			return -1;
		}
		k += 1 + used;
	}
	if (k < n) {
		str_printf(err, errlen, "unexpected \"%.40s\"", w[k]);
		return -1;
	}
	return 0;
}

int trigger_parse(const char *text, struct trigger *t, char *err, size_t errlen)
{
	char buf[512], name[TRIGGER_ID_LEN], *w[TOK_MAX];
	bool time = false;
	int n, k;
	memset(t, 0, sizeof *t);
	str_copy(t->text, sizeof t->text, text);
	text_sanitize(t->text);
	const char *cond = take_name(text, t, name, sizeof name);
	while (*cond == ' ')
		cond++;
	str_copy(t->text, sizeof t->text, cond);   /* (the condition, without its name) */
	text_sanitize(t->text);
	if ((n = words(cond, buf, sizeof buf, w)) <= 0) {
		str_copy(err, errlen, n < 0 ? "too many words" : "empty trigger");
		return -1;
	}
	if (strcmp(w[0], "state") == 0)
		k = parse_state(w, n, t);
	else if (strcmp(w[0], "finding") == 0 || strcmp(w[0], "findings") == 0)
		k = parse_finding(w, n, t);
	else
		k = parse_subject(w, n, t, &time);
	if (k < 0) {
		str_copy(err, errlen, "unknown condition: use state DOWN|STALLED|not UP, commit latency, lock waiters, "
			 "wait class CLASS, finding ID|any, findings [SEVERITY], or a JSON rate key (commits_per_s)");
		return -1;
	}
	if (parse_rest(w, n, k, time, t, err, errlen) < 0)
		return -1;
	if (name[0])
		str_copy(t->id, sizeof t->id, name);
	return 0;
}

void trigger_default_findings(struct trigger *t)
{
	char err[200];
	trigger_parse("findings warning", t, err, sizeof err);
}

double trigger_value(const struct trigger *t, const struct model *m)
{
	const struct wait_entry *e[WAIT_MAX];
	double sum = 0;
	size_t n;
	if (m->intervals == 0 || m->last.state != STATE_UP)
		return NAN;
	switch (t->kind) {
	case TK_METRIC:
		return model_metric_applies(m, (enum metric_id)t->arg) && m->cur[t->arg].st == RATE_OK ? m->cur[t->arg].v
													  : NAN;
	case TK_LOCK_WAITERS:
		return ring_get(&m->lock_waiting, 0);
	case TK_WAIT_CLASS:
		if (!m->wt.have_data || m->wt.source == WS_NONE || !isfinite(m->wt.total_aas))
			return NAN;
		n = wait_table_ranked(&m->wt, e, WAIT_MAX);
		for (size_t i = 0; i < n; i++)
			if ((int)e[i]->cls == t->arg && isfinite(e[i]->aas))
				sum += e[i]->aas;
		return sum;
	default:
		return NAN;
	}
}

static bool compare(enum trig_op op, double v, double x)
{
	switch (op) {
	case TO_GT: return v > x;
	case TO_GE: return v >= x;
	case TO_LT: return v < x;
	case TO_LE: return v <= x;
	default: return fabs(v - x) < 1e-9;
	}
}

/* Does the condition hold now: 1, 0, or -1 unknown (the hold goes on).
 * what: the value for people. */
static int holds(struct trigger *t, const struct model *m, struct trig_hit *hit, char *what, size_t len)
{
	static const char *const ops[] = {">", ">=", "<", "<=", "="};
	const struct finding_set *fs = &m->findings;
	if (t->kind == TK_STATE) {
		bool on = t->arg < 0 ? m->last.state != STATE_UP : (int)m->last.state == t->arg;
		str_printf(what, len, "%s%s%s", state_name(m->last.state), m->last.error[0] ? ": " : "", m->last.error);
		return m->intervals > 0 && on;
	}
	if (t->kind == TK_FINDINGS || t->kind == TK_FINDING) {
		for (size_t i = 0; i < fs->n; i++) {
			const struct finding *f = &fs->f[i];
			if (t->kind == TK_FINDINGS ? (int)f->severity >= t->arg : strcmp(f->id, t->finding) == 0) {
				if (t->kind == TK_FINDINGS)
					str_copy(hit->id, sizeof hit->id, f->id);
				str_printf(what, len, "%s: %s", finding_severity_name(f->severity), f->summary);
				return 1;
			}
		}
		return m->last.state == STATE_UP ? 0 : -1;
	}
	double v = trigger_value(t, m);
	if (!isfinite(v))
		return m->last.state == STATE_UP ? -1 : 0;
	const char *unit = t->kind == TK_WAIT_CLASS ? " AAS" : t->kind == TK_LOCK_WAITERS ? "" : metric_defs[t->arg].unit;
	str_printf(what, len, "%.4g%s%s %s %.4g%s%s", v, *unit == '/' || !*unit ? "" : " ", unit, ops[t->op], t->value,
		   *unit == '/' || !*unit ? "" : " ", unit);
	return compare(t->op, v, t->value);
}

bool trigger_eval(struct trigger *t, const struct model *m, struct trig_hit *hit)
{
	char what[200];
	memset(hit, 0, sizeof *hit);
	str_copy(hit->id, sizeof hit->id, t->id);
	int h = holds(t, m, hit, what, sizeof what);
	double now = m->last.wall;
	if (h < 0)
		return false;   /* not known this time: the hold neither starts nor ends */
	if (!h) {
		t->since = 0;
		return false;
	}
	double iv = isfinite(m->interval_s) && m->interval_s > 0 ? m->interval_s : 0;
	if (t->since <= 0)
		t->since = now - (t->kind == TK_STATE ? 0 : iv);   /* (a rate covers the interval before) */
	if (now - t->since + 1e-6 < t->hold)
		return false;
	str_copy(hit->kind, sizeof hit->kind, t->kind == TK_FINDINGS || t->kind == TK_FINDING ? "finding"
						 : t->kind == TK_STATE ? "state" : "threshold");
	if (t->kind == TK_FINDINGS || t->kind == TK_FINDING || t->kind == TK_STATE)
		str_copy(hit->why, sizeof hit->why, what);
	else if (t->hold > 0)
		str_printf(hit->why, sizeof hit->why, "%s: %s for %.0f s", t->text, what, now - t->since);
	else
		str_printf(hit->why, sizeof hit->why, "%s: %s", t->text, what);
	return true;
}
