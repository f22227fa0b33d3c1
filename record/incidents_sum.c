/* incidents_sum.c - an incident's summary, gathered while it is written:
 * the trigger, the findings with their evidence, the statements that took
 * the time, the lock chains with their root blockers, setting changes,
 * DOWN periods; written beside the file as NAME.txt (its first line is
 * what `dbtop --incidents DIR` lists) and NAME.json. See incidents.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/redact.h"
#include "../util/util.h"
#include "incidents.h"

#define SUM_FIND 8
#define SUM_DG 64
#define SUM_TOP 5
#define SUM_ROOTS 8
#define SUM_SET 16
#define SUM_DOWN 16
#define SUM_ALSO 8

struct sum_finding {
	char id[48];
	enum finding_severity sev;
	char summary[160], evidence[640], suggestion[480];
	double first, last;
};
struct sum_dg {
	char key[200], schema[130], text[240];
	double ms, calls;
};
struct sum_root {
	long long id;
	char user[64], state[48], query[240];
	int blocked;
	double first, last, trx_age;
};
struct sum_set {
	char name[48], old[64], new_[64];
	double wall;
	const char *by;
};
struct sum_down {
	double from, to;   /* to 0: not back yet */
	char why[200];
	bool restart;
};
struct sum_also {
	char id[48], kind[16], why[240];
	double first, last;
};

struct inc_sum {
	bool redact;         /* --redact: the texts as a recording keeps them */
	struct sum_finding f[SUM_FIND];
	int nf;
	struct sum_dg dg[SUM_DG];
	int ndg;
	double dg_seconds;   /* the time the statement figures cover */
	struct sum_root root[SUM_ROOTS];
	int nroot;
	struct sum_set set[SUM_SET];
	int nset;
	struct sum_down down[SUM_DOWN];
	int ndown;
	struct sum_also also[SUM_ALSO];
	int nalso;
};

struct inc_sum *inc_sum_new(bool redact)
{
	struct inc_sum *s = xcalloc(1, sizeof(struct inc_sum));
	s->redact = redact;
	return s;
}

/* Copy a free text (an event's line, a finding's words): under --redact
 * its literals replaced as a recording's (redact_sql). */
static void copy_text(char *dst, size_t len, const char *src, bool redact)
{
	if (!redact) {
		str_copy(dst, len, src);
		return;
	}
	char *r = redact_sql(src);
	str_copy(dst, len, r);
	free(r);
}

void inc_sum_free(struct inc_sum *s)
{
	free(s);
}

static struct sum_finding *finding_slot(struct inc_sum *s, const char *id, double wall)
{
	for (int i = 0; i < s->nf; i++)
		if (strcmp(s->f[i].id, id) == 0)
			return &s->f[i];
	if (s->nf == SUM_FIND)
		return NULL;
	struct sum_finding *f = &s->f[s->nf++];
	str_copy(f->id, sizeof f->id, id);
	f->first = wall;
	return f;
}

static struct sum_root *root_slot(struct inc_sum *s, long long id, double wall)
{
	for (int i = 0; i < s->nroot; i++)
		if (s->root[i].id == id)
			return &s->root[i];
	if (s->nroot == SUM_ROOTS)
		return NULL;
	struct sum_root *r = &s->root[s->nroot++];
	r->id = id;
	r->first = wall;
	r->trx_age = NAN;
	return r;
}

/* A DOWN (or stalled) period begins, or the open one ends. */
static void down_event(struct inc_sum *s, const struct event *e)
{
	struct sum_down *d = s->ndown ? &s->down[s->ndown - 1] : NULL;
	if (e->kind == EV_UP) {
		if (d && d->to == 0)
			d->to = e->wall;
		return;
	}
	if ((d && d->to == 0 && e->kind != EV_RESTART) || s->ndown == SUM_DOWN)
		return;
	d = &s->down[s->ndown++];
	d->from = e->wall;
	d->to = e->kind == EV_RESTART ? e->wall : 0;
	d->restart = e->kind == EV_RESTART;
	copy_text(d->why, sizeof d->why, e->detail, s->redact);
}

void inc_sum_events(struct inc_sum *s, const struct event_list *el)
{
	for (size_t i = 0; s && el && i < el->n; i++) {
		const struct event *e = &el->ev[i];
		struct sum_finding *f;
		struct sum_root *r;
		switch (e->kind) {
		case EV_SETTING:
			if (s->nset < SUM_SET) {
				struct sum_set *x = &s->set[s->nset++];
				str_copy(x->name, sizeof x->name, e->name);
				str_copy(x->old, sizeof x->old, e->old);
				str_copy(x->new_, sizeof x->new_, e->new);
				x->wall = e->wall;
				x->by = e->own ? "dbtop" : e->who_known ? "another client" : "whom: not recorded";
			}
			break;
		case EV_DOWN: case EV_STALLED: case EV_UP: case EV_RESTART:
			down_event(s, e);
			break;
		case EV_FINDING:
			if ((f = finding_slot(s, e->name, e->wall)) && !f->summary[0]) {
				f->sev = e->severity;
				copy_text(f->summary, sizeof f->summary, e->detail, s->redact);
				f->last = e->wall;
			}
			break;
		case EV_LOCK_CHAIN:
			if ((r = root_slot(s, e->session, e->wall))) {
				if (!r->user[0])
					str_copy(r->user, sizeof r->user, e->user);
				if (e->waiters > r->blocked)
					r->blocked = e->waiters;
				r->last = e->wall;
			}
			break;
		default:
			break;
		}
	}
}

/* A statement text for the summary: cut, secrets out, redacted under --redact. */
static void keep_text(char *dst, size_t len, const char *q, bool redact)
{
	char *k = statement_keep(q, len - 1);
	if (k && redact) {
		char *r = redact_sql(k);
		free(k);
		k = r;
	}
	str_copy(dst, len, k ? k : "");
	free(k);
}

static void sum_digests(struct inc_sum *s, const struct model *m, bool redact)
{
	const struct digest_entry *top[10];
	double dt = isfinite(m->interval_s) && m->interval_s > 0 ? m->interval_s : 0;
	size_t n = digest_table_top(&m->dg, DGS_TOTAL, false, top, 10);
	if (!dt || !n)
		return;
	s->dg_seconds += dt;
	for (size_t i = 0; i < n; i++) {
		const struct digest_entry *e = top[i];
		double ms = isfinite(e->rate[DG_TOTAL_NS]) ? e->rate[DG_TOTAL_NS] / 1e6 * dt : 0;
		double calls = isfinite(e->rate[DG_CALLS]) ? e->rate[DG_CALLS] * dt : 0;
		int k;
		for (k = 0; k < s->ndg && strcmp(s->dg[k].key, e->last.key) != 0; k++)
			;
		if (k == s->ndg) {
			if (s->ndg == SUM_DG || ms <= 0)
				continue;
			s->ndg++;
			str_copy(s->dg[k].key, sizeof s->dg[k].key, e->last.key);
			str_copy(s->dg[k].schema, sizeof s->dg[k].schema, e->last.schema);
		}
		if (!s->dg[k].text[0] && e->last.text)
			keep_text(s->dg[k].text, sizeof s->dg[k].text, e->last.text, redact);
		s->dg[k].ms += ms;
		s->dg[k].calls += calls;
	}
}

static void sum_locks(struct inc_sum *s, const struct model *m, bool redact)
{
	const struct lock_set *ls = m->locks;
	if (!ls || ls->status != LOCKS_READ)
		return;
	for (size_t i = 0; i < ls->ns; i++) {
		const struct lock_session *x = &ls->s[i];
		struct sum_root *r;
		if (!x->is_root || !(r = root_slot(s, x->id, m->last.wall)))
			continue;
		str_copy(r->user, sizeof r->user, x->user);
		str_copy(r->state, sizeof r->state, x->state);
		if (x->query)
			keep_text(r->query, sizeof r->query, x->query, redact);
		if (x->blocked > r->blocked)
			r->blocked = x->blocked;
		if (isfinite(x->trx_age_s))
			r->trx_age = x->trx_age_s;
		r->last = m->last.wall;
	}
}

void inc_sum_model(struct inc_sum *s, const struct model *m, bool redact)
{
	if (!s)
		return;
	for (size_t i = 0; i < m->findings.n; i++) {
		const struct finding *f = &m->findings.f[i];
		struct sum_finding *x = finding_slot(s, f->id, m->last.wall);
		if (!x)
			continue;
		if (!x->evidence[0]) {   /* the first sighting's words */
			x->sev = f->severity;
			copy_text(x->summary, sizeof x->summary, f->summary, redact);
			copy_text(x->evidence, sizeof x->evidence, f->evidence, redact);
			str_copy(x->suggestion, sizeof x->suggestion, f->suggestion);
		}
		x->last = m->last.wall;
	}
	sum_digests(s, m, redact);
	sum_locks(s, m, redact);
}

void inc_sum_also(struct inc_sum *s, const struct trig_hit *h, double wall)
{
	for (int i = 0; i < s->nalso; i++)
		if (strcmp(s->also[i].id, h->id) == 0) {
			s->also[i].last = wall;
			return;
		}
	if (s->nalso == SUM_ALSO)
		return;
	struct sum_also *a = &s->also[s->nalso++];
	str_copy(a->id, sizeof a->id, h->id);
	str_copy(a->kind, sizeof a->kind, h->kind);
	copy_text(a->why, sizeof a->why, h->why, s->redact);
	a->first = a->last = wall;
}

/* ---- writing ---- */

/* s as a JSON string, null when NULL. */
static void json_text(struct strbuf *b, const char *s)
{
	if (s)
		json_str(b, s);
	else
		sb_puts(b, "null");
}

/* A number with three decimals (times since the epoch), null when not finite. */
static void json_f3(struct strbuf *b, double v)
{
	if (isfinite(v))
		sb_printf(b, "%.3f", v);
	else
		sb_puts(b, "null");
}

static void utc(double wall, bool date, char *buf, size_t len)
{
	time_t t = (time_t)wall;
	struct tm tm;
	if (!gmtime_r(&t, &tm) || !strftime(buf, len, date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm))
		str_copy(buf, len, "?");
}

/* The statements by time, most first (indexes into s->dg). */
static int top_digests(const struct inc_sum *s, int *idx)
{
	bool taken[SUM_DG] = {false};
	int n = 0;
	while (n < SUM_TOP) {
		int best = -1;
		for (int i = 0; i < s->ndg; i++)
			if (!taken[i] && s->dg[i].ms > 0 && (best < 0 || s->dg[i].ms > s->dg[best].ms))
				best = i;
		if (best < 0)
			break;
		taken[best] = true;
		idx[n++] = best;
	}
	return n;
}

static void txt_head(struct strbuf *b, const struct inc_sum *s, const struct incidents *inc, bool done, const char *cut)
{
	char t[32], a[32], z[32], why[sizeof inc->hit.why];
	copy_text(why, sizeof why, inc->hit.why, s->redact);
	const char *name = strrchr(inc->path, '/');
	name = name ? name + 1 : inc->path;
	utc(inc->trig_wall, true, t, sizeof t);
	sb_printf(b, "%s UTC  %s  %s: %s\n", t, inc->server, inc->hit.id, why);
	utc(inc->end_wall, false, z, sizeof z);
	if (!done)
		sb_printf(b, "status: being written (until %s UTC at least; longer while a trigger holds)\n", z);
	else if (cut)
		sb_printf(b, "status: cut: %s\n", cut);
	else
		sb_puts(b, "status: complete\n");
	utc(inc->first_wall, false, a, sizeof a);
	sb_printf(b, "file: %s: %llu samples from %s UTC, %.0f s before the trigger (%.0f KB%s)\n", name,
		  (unsigned long long)inc->samples, a, inc->trig_wall - inc->first_wall, inc->w.bytes / 1024.0,
		  inc->cfg.redact ? ", literals redacted" : "");
	sb_printf(b, "replay: dbtop --replay %s   (opens at the trigger; Left / [ step back)\n", inc->path);
	sb_printf(b, "trigger: %s (%s) at %s UTC: %s\n", inc->hit.id, inc->hit.kind, t + 11, why);
	for (int i = 0; i < s->nalso; i++) {
		if (strcmp(s->also[i].id, inc->hit.id) == 0 && s->nalso == 1)
			continue;
		utc(s->also[i].first, false, a, sizeof a);
		utc(s->also[i].last, false, z, sizeof z);
		sb_printf(b, "  held %s to %s UTC: %s (%s)\n", a, z, s->also[i].id, s->also[i].why);
	}
}

static void txt_body(struct strbuf *b, const struct inc_sum *s)
{
	char a[32], z[32];
	int idx[SUM_TOP], n = top_digests(s, idx);
	sb_printf(b, "findings:%s\n", s->nf ? "" : " none");
	for (int i = 0; i < s->nf; i++) {
		const struct sum_finding *f = &s->f[i];
		utc(f->first, false, a, sizeof a);
		utc(f->last, false, z, sizeof z);
		sb_printf(b, "  %s (%s) %s to %s UTC: %s\n", f->id, finding_severity_name(f->sev), a, z, f->summary);
		if (f->evidence[0])
			sb_printf(b, "    evidence: %s\n", f->evidence);
		if (f->suggestion[0])
			sb_printf(b, "    remedy: %s\n", f->suggestion);
	}
	sb_printf(b, "top statements from the trigger on (time spent in them over %.0f s):%s\n", s->dg_seconds,
		  n ? "" : " none measured");
	for (int i = 0; i < n; i++) {
		const struct sum_dg *d = &s->dg[idx[i]];
		sb_printf(b, "  %d. %8.1f s  %9.0f calls  %8.2f ms avg  %s\n", i + 1, d->ms / 1000, d->calls,
			  d->calls > 0 ? d->ms / d->calls : NAN, d->text[0] ? d->text : d->key);
	}
	sb_printf(b, "lock chains (root blockers):%s\n", s->nroot ? "" : " none");
	for (int i = 0; i < s->nroot; i++) {
		const struct sum_root *r = &s->root[i];
		utc(r->first, false, a, sizeof a);
		sb_printf(b, "  session %lld (user %s, %s) from %s UTC blocked %d session%s", r->id, r->user[0] ? r->user : "?",
			  r->state[0] ? r->state : "state not read", a, r->blocked, r->blocked == 1 ? "" : "s");
		if (isfinite(r->trx_age))
			sb_printf(b, ", transaction open %.0f s", r->trx_age);
		sb_printf(b, "%s%s\n", r->query[0] ? "; statement: " : "", r->query);
	}
	sb_printf(b, "setting changes:%s\n", s->nset ? "" : " none");
	for (int i = 0; i < s->nset; i++) {
		utc(s->set[i].wall, false, a, sizeof a);
		sb_printf(b, "  %s UTC %s %s -> %s (by %s)\n", a, s->set[i].name, s->set[i].old[0] ? s->set[i].old : "?",
			  s->set[i].new_, s->set[i].by);
	}
	sb_printf(b, "DOWN periods:%s\n", s->ndown ? "" : " none");
	for (int i = 0; i < s->ndown; i++) {
		const struct sum_down *d = &s->down[i];
		utc(d->from, false, a, sizeof a);
		if (d->restart) {
			sb_printf(b, "  %s UTC %s\n", a, d->why);
			continue;
		}
		utc(d->to, false, z, sizeof z);
		if (d->to > 0)
			sb_printf(b, "  %s to %s UTC (%.0f s): %s\n", a, z, d->to - d->from, d->why);
		else
			sb_printf(b, "  from %s UTC, not back by the end: %s\n", a, d->why);
	}
}

static void json_head(struct strbuf *b, const struct inc_sum *s, const struct incidents *inc, bool done, const char *cut)
{
	const char *name = strrchr(inc->path, '/');
	sb_puts(b, "{\"file\":");
	json_str(b, name ? name + 1 : inc->path);
	sb_puts(b, ",\"server\":");
	json_str(b, inc->server);
	sb_printf(b, ",\"status\":\"%s\",\"cut\":", !done ? "writing" : cut ? "cut" : "complete");
	if (cut)
		json_str(b, cut);
	else
		sb_puts(b, "null");
	sb_printf(b, ",\"trigger_ts\":%.3f,\"start_ts\":%.3f,\"end_ts\":%.3f,\"samples\":%llu,\"bytes\":%llu,"
		  "\"redacted\":%s,\"trigger\":{\"id\":", inc->trig_wall, inc->first_wall, inc->end_wall,
		  (unsigned long long)inc->samples, (unsigned long long)inc->w.bytes, inc->cfg.redact ? "true" : "false");
	json_str(b, inc->hit.id);
	sb_puts(b, ",\"kind\":");
	json_str(b, inc->hit.kind);
	char why[sizeof inc->hit.why];
	copy_text(why, sizeof why, inc->hit.why, s->redact);
	sb_puts(b, ",\"why\":");
	json_str(b, why);
	sb_puts(b, "},\"held\":[");
	for (int i = 0; i < s->nalso; i++) {
		sb_puts(b, i ? ",{\"id\":" : "{\"id\":");
		json_str(b, s->also[i].id);
		sb_puts(b, ",\"kind\":");
		json_str(b, s->also[i].kind);
		sb_printf(b, ",\"from_ts\":%.3f,\"to_ts\":%.3f,\"why\":", s->also[i].first, s->also[i].last);
		json_str(b, s->also[i].why);
		sb_putc(b, '}');
	}
	sb_putc(b, ']');
}

static void json_findings(struct strbuf *b, const struct inc_sum *s)
{
	int idx[SUM_TOP], n = top_digests(s, idx);
	sb_puts(b, ",\"findings\":[");
	for (int i = 0; i < s->nf; i++) {
		const struct sum_finding *f = &s->f[i];
		sb_puts(b, i ? ",{\"id\":" : "{\"id\":");
		json_str(b, f->id);
		sb_printf(b, ",\"severity\":\"%s\",\"from_ts\":%.3f,\"to_ts\":%.3f,\"summary\":",
			  finding_severity_name(f->sev), f->first, f->last);
		json_str(b, f->summary);
		sb_puts(b, ",\"evidence\":");
		json_str(b, f->evidence);
		sb_puts(b, ",\"remedy\":");
		json_str(b, f->suggestion);
		sb_putc(b, '}');
	}
	sb_printf(b, "],\"digests_seconds\":%.1f,\"top_digests\":[", s->dg_seconds);
	for (int i = 0; i < n; i++) {
		const struct sum_dg *d = &s->dg[idx[i]];
		sb_puts(b, i ? ",{\"text\":" : "{\"text\":");
		json_text(b, d->text[0] ? d->text : NULL);
		sb_puts(b, ",\"schema\":");
		json_str(b, d->schema);
		sb_printf(b, ",\"total_ms\":%.1f,\"calls\":%.0f,\"avg_ms\":", d->ms, d->calls);
		json_f3(b, d->calls > 0 ? d->ms / d->calls : NAN);
		sb_putc(b, '}');
	}
	sb_putc(b, ']');
}

static void json_rest(struct strbuf *b, const struct inc_sum *s)
{
	sb_puts(b, ",\"lock_roots\":[");
	for (int i = 0; i < s->nroot; i++) {
		const struct sum_root *r = &s->root[i];
		sb_printf(b, "%s{\"session\":%lld,\"user\":", i ? "," : "", r->id);
		json_str(b, r->user);
		sb_puts(b, ",\"state\":");
		json_str(b, r->state);
		sb_printf(b, ",\"blocked\":%d,\"from_ts\":%.3f,\"to_ts\":%.3f,\"trx_age_s\":", r->blocked, r->first,
			  r->last);
		json_f3(b, r->trx_age);
		sb_puts(b, ",\"statement\":");
		json_text(b, r->query[0] ? r->query : NULL);
		sb_putc(b, '}');
	}
	sb_puts(b, "],\"settings\":[");
	for (int i = 0; i < s->nset; i++) {
		sb_printf(b, "%s{\"ts\":%.3f,\"name\":", i ? "," : "", s->set[i].wall);
		json_str(b, s->set[i].name);
		sb_puts(b, ",\"old\":");
		json_str(b, s->set[i].old);
		sb_puts(b, ",\"new\":");
		json_str(b, s->set[i].new_);
		sb_puts(b, ",\"by\":");
		json_str(b, s->set[i].by);
		sb_putc(b, '}');
	}
	sb_puts(b, "],\"down\":[");
	for (int i = 0; i < s->ndown; i++) {
		const struct sum_down *d = &s->down[i];
		sb_printf(b, "%s{\"from_ts\":%.3f,\"to_ts\":", i ? "," : "", d->from);
		json_f3(b, d->to > 0 ? d->to : NAN);
		sb_printf(b, ",\"restart\":%s,\"why\":", d->restart ? "true" : "false");
		json_str(b, d->why);
		sb_putc(b, '}');
	}
	sb_puts(b, "]}\n");
}

/* Replace dir/base.ext with text: a new file (0600, O_EXCL) renamed over it. */
static int replace_file(const char *base, const char *ext, const struct strbuf *b)
{
	char tmp[800], dst[800];
	str_printf(dst, sizeof dst, "%s%s", base, ext);
	str_printf(tmp, sizeof tmp, "%s%s.%ld.tmp", base, ext, (long)getpid());
	unlink(tmp);   /* (a leftover of a killed run of the same pid) */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write_all(fd, b->s, b->len) < 0 || fsync(fd) < 0) {
		int e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		return -1;
	}
	if (close(fd) < 0 || rename(tmp, dst) < 0) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

int inc_sum_write(const struct inc_sum *s, const struct incidents *inc, bool done, const char *cut)
{
	char base[700];
	struct strbuf b;
	int rc;
	if (!s)
		return 0;
	str_printf(base, sizeof base, "%.*s", (int)(strlen(inc->path) > 6 ? strlen(inc->path) - 6 : 0), inc->path);
	sb_init(&b);
	txt_head(&b, s, inc, done, cut);
	txt_body(&b, s);
	rc = replace_file(base, ".txt", &b);
	b.len = 0;
	json_head(&b, s, inc, done, cut);
	json_findings(&b, s);
	json_rest(&b, s);
	if (rc == 0)
		rc = replace_file(base, ".json", &b);
	sb_free(&b);
	return rc;
}
