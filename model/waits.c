/* waits.c - wait-event profiles: classification, per-interval average
 * active sessions per event, history, JSON. */
#include "waits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"

struct wait_set *wait_set_new(enum wait_source src)
{
	struct wait_set *w = xcalloc(1, sizeof *w);
	w->source = src;
	return w;
}

void wait_set_free(struct wait_set *w)
{
	if (!w)
		return;
	free(w->rows);
	free(w);
}

void wait_set_add(struct wait_set *w, const char *name, uint64_t count, uint64_t time_ns)
{
	char nm[WAIT_NAME_LEN];
	str_copy(nm, sizeof nm, name && *name ? name : "?");
	text_sanitize(nm);
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->rows[i].name, nm) == 0) {
			w->rows[i].count += count;
			w->rows[i].time_ns += time_ns;
			return;
		}
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->rows = xrealloc(w->rows, w->cap * sizeof *w->rows);
	}
	struct wait_row *r = &w->rows[w->n++];
	memcpy(r->name, nm, sizeof r->name);
	r->count = count;
	r->time_ns = time_ns;
}

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* PostgreSQL 17 renamed the WAL events (IO:WALSync -> IO:WalSync, ...). */
static bool starts_ci(const char *s, const char *p)
{
	return strncasecmp(s, p, strlen(p)) == 0;
}

enum wait_class wait_class_of(const char *n)
{
	if (!n)
		return WC_OTHER;
	if (strcmp(n, "CPU") == 0)
		return WC_CPU;
	/* PostgreSQL: Type:Event */
	if (starts_ci(n, "IO:WAL") || starts_ci(n, "LWLock:WAL") || strcasecmp(n, "IPC:SyncRep") == 0 ||
	    starts_ci(n, "LWLock:wal_insert"))
		return WC_WAL;
	if (starts(n, "Lock:"))
		return WC_LOCK;
	if (starts(n, "IO:"))
		return WC_IO;
	/* MySQL / MariaDB performance_schema */
	if (strcmp(n, "wait/io/file/innodb/innodb_log_file") == 0 || starts(n, "wait/synch/mutex/innodb/log_") ||
	    starts(n, "wait/synch/rwlock/innodb/log_") || starts(n, "wait/synch/cond/innodb/log_") ||
	    starts(n, "wait/synch/mutex/innodb/redo_") || starts(n, "wait/synch/mutex/innodb/flush_order"))
		return WC_REDO;
	if (strcmp(n, "wait/io/file/sql/binlog") == 0 || strcmp(n, "wait/io/file/sql/binlog_index") == 0 ||
	    starts(n, "wait/synch/mutex/sql/MYSQL_BIN_LOG") || starts(n, "wait/synch/cond/sql/MYSQL_BIN_LOG") ||
	    /* MariaDB's binlog group commit: followers waiting for the leader's
	     * write and sync, the binlog's lock, the commit ordering */
	    strcmp(n, "wait/synch/cond/sql/THD::COND_wakeup_ready") == 0 ||
	    strcmp(n, "wait/synch/mutex/sql/THD::LOCK_wakeup_ready") == 0 ||
	    strcmp(n, "wait/synch/mutex/sql/LOG::LOCK_log") == 0 ||
	    strcmp(n, "wait/synch/mutex/sql/LOCK_commit_ordered") == 0 ||
	    strcmp(n, "wait/synch/mutex/sql/LOCK_prepare_ordered") == 0 ||
	    strcmp(n, "wait/synch/mutex/sql/LOCK_after_binlog_sync") == 0)
		return WC_BINLOG;
	if (starts(n, "wait/lock/") || strstr(n, "/lock_wait") ||
	    strstr(n, "/mdl"))
		return WC_LOCK;
	if (starts(n, "wait/io/"))
		return WC_IO;
	return WC_OTHER;
}

const char *wait_class_name(enum wait_class c)
{
	static const char *const names[WC__COUNT] = {"cpu", "wal", "redo", "binlog", "lock", "io", "other"};
	return c < WC__COUNT ? names[c] : "other";
}

bool wait_is_durability(const char *name)
{
	enum wait_class c = wait_class_of(name);
	return c == WC_WAL || c == WC_REDO || c == WC_BINLOG;
}

bool wait_is_idle(const char *n)
{
	return !n || starts(n, "Client:") || starts(n, "Activity:") || strcmp(n, "idle") == 0 ||
	       /* deliberate throttling of background work, not a wait for a resource */
	       strcmp(n, "Timeout:CheckpointWriteDelay") == 0 || strcmp(n, "Timeout:VacuumDelay") == 0 ||
	       starts(n, "Extension:") /* background workers idling in an extension's main loop */;
}

const char *wait_source_name(enum wait_source s)
{
	switch (s) {
	case WS_SAMPLED: return "sampled";
	case WS_PG_WAIT_SAMPLING: return "pg_wait_sampling";
	case WS_PERF_SCHEMA: return "performance_schema";
	default: return "none";
	}
}

void wait_table_init(struct wait_table *t, size_t hist_len)
{
	memset(t, 0, sizeof *t);
	t->hist_len = hist_len < 1 ? 1 : hist_len > WAIT_HIST_MAX ? WAIT_HIST_MAX : hist_len;
	t->total_aas = NAN;
}

bool wait_note_stopped(const char *note)
{
	return note && starts(note, WAIT_NOTE_STOPPED);
}

void wait_table_free(struct wait_table *t)
{
	for (size_t i = 0; i < WAIT_MAX; i++)
		if (t->e[i].used)
			ring_free(&t->e[i].hist);
	memset(t->e, 0, sizeof t->e);
	free(t->base);
	t->base = NULL;
	t->nbase = t->capbase = 0;
	t->base_read = false;
}

/* The tracked entry of name, or NULL. */
static struct wait_entry *find_entry(struct wait_table *t, const char *name)
{
	for (size_t i = 0; i < WAIT_MAX; i++)
		if (t->e[i].used && strcmp(t->e[i].name, name) == 0)
			return &t->e[i];
	return NULL;
}

/* A slot for name: a free one, else the least recently active entry not
 * given a value this interval (taken[]); NULL when every slot is taken. */
static struct wait_entry *new_entry(struct wait_table *t, const char *name, const bool *taken)
{
	struct wait_entry *free_e = NULL, *old = NULL;
	for (size_t i = 0; i < WAIT_MAX && !free_e; i++) {
		struct wait_entry *e = &t->e[i];
		if (!e->used)
			free_e = e;
		else if (!taken[i] && (!old || e->last_seen < old->last_seen))
			old = e;
	}
	struct wait_entry *e = free_e ? free_e : old;
	if (!e)
		return NULL;
	if (e->used)
		ring_free(&e->hist);
	memset(e, 0, sizeof *e);
	e->used = true;
	str_copy(e->name, sizeof e->name, name);
	e->cls = wait_class_of(name);
	e->aas = e->count_per_s = e->avg_ms = NAN;
	e->last_seen = t->interval;
	ring_init(&e->hist, t->hist_len);
	/* a new event has no past: its history is unknown, not zero */
	for (size_t i = 0; i < t->interval && i < t->hist_len; i++)
		ring_push(&e->hist, NAN);
	return e;
}

/* The base of name (hint: where it was last time, as a source lists its
 * events in the same order), added when new; *isnew says so. */
static struct wait_base *base_of(struct wait_table *t, const char *name, size_t hint, bool *isnew)
{
	*isnew = false;
	if (hint < t->nbase && strcmp(t->base[hint].name, name) == 0)
		return &t->base[hint];
	for (size_t i = 0; i < t->nbase; i++)
		if (strcmp(t->base[i].name, name) == 0)
			return &t->base[i];
	if (t->nbase == t->capbase) {
		t->capbase = t->capbase ? t->capbase * 2 : 64;
		t->base = xrealloc(t->base, t->capbase * sizeof *t->base);
	}
	struct wait_base *b = &t->base[t->nbase++];
	memset(b, 0, sizeof *b);
	str_copy(b->name, sizeof b->name, name);
	*isnew = true;
	return b;
}

/* One event's figures this interval. */
struct wait_val {
	const char *name;
	double aas, count_per_s, avg_ms;
};

static int cmp_val(const void *a, const void *b)
{
	const struct wait_val *x = a, *y = b;
	bool fx = isfinite(x->aas), fy = isfinite(y->aas);
	if (fx != fy)
		return fx ? -1 : 1;
	if (fx && x->aas != y->aas)
		return x->aas > y->aas ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The figures of reading row r against its last reading (cumulative
 * sources: every event's last reading is kept, so that a source listing
 * hundreds of events, every performance_schema instrument on, has a rate
 * for each at its second reading; an event first listed after the first
 * reading counted 0 there). */
static void row_value(struct wait_table *t, const struct wait_set *ws, const struct wait_row *r, size_t k, double dt,
		      struct wait_val *v)
{
	v->name = r->name;
	v->aas = v->count_per_s = v->avg_ms = NAN;
	if (ws->source == WS_SAMPLED) {
		if (ws->rounds)
			v->aas = (double)r->count / ws->rounds;
		return;
	}
	bool isnew;
	struct wait_base *b = base_of(t, r->name, k, &isnew);
	bool have_prev = !isnew || t->base_read;
	if (have_prev && r->count >= b->count && dt > 0) {
		double dc = (double)(r->count - b->count);
		if (ws->source == WS_PG_WAIT_SAMPLING) {
			v->aas = dc * ws->period_ms / 1000.0 / dt;
		} else if (ws->source == WS_PERF_SCHEMA && r->time_ns >= b->time_ns) {
			double dtm = (double)(r->time_ns - b->time_ns);
			v->count_per_s = dc / dt;
			v->aas = dtm / 1e9 / dt;
			v->avg_ms = dc > 0 ? dtm / dc / 1e6 : NAN;
		}
	}
	b->count = r->count;
	b->time_ns = r->time_ns;
}

/* This read's values into the table's slots, the largest first: when more
 * events have a value than there are slots, the smallest are left out. */
static void wait_table_fill(struct wait_table *t, const struct wait_set *ws, double dt, bool *seen)
{
	struct wait_val *val = ws->n ? xcalloc(ws->n, sizeof *val) : NULL;
	size_t nv = 0;
	for (size_t k = 0; k < ws->n; k++)
		if (!wait_is_idle(ws->rows[k].name))
			row_value(t, ws, &ws->rows[k], k, dt, &val[nv++]);
	if (nv > 1)
		qsort(val, nv, sizeof *val, cmp_val);
	for (size_t k = 0; k < nv; k++) {
		const struct wait_val *v = &val[k];
		struct wait_entry *e = find_entry(t, v->name);
		if (!e && isfinite(v->aas) && !(v->aas > 0) && !(v->count_per_s > 0))
			continue; /* nothing this interval: no slot needed (its base is kept) */
		if (!e)
			e = new_entry(t, v->name, seen);
		if (!e) {
			t->untracked++;
			continue;
		}
		seen[e - t->e] = true;
		e->aas = v->aas;
		e->count_per_s = v->count_per_s;
		e->avg_ms = v->avg_ms;
	}
	free(val);
}

void wait_table_update(struct wait_table *t, const struct wait_set *ws, double dt, bool fresh)
{
	bool seen[WAIT_MAX] = {false};
	size_t i;
	if (fresh) {
		t->nbase = 0;
		t->base_read = false;
	}
	if (!ws) {
		t->base_only = false;
		for (i = 0; i < WAIT_MAX; i++) {
			struct wait_entry *e = &t->e[i];
			if (!e->used)
				continue;
			e->aas = e->count_per_s = e->avg_ms = NAN;
			ring_push(&e->hist, NAN);
		}
		t->total_aas = NAN;
		t->interval++;
		return;
	}
	if (ws->source != t->source) {
		t->nbase = 0;
		t->base_read = false;
	}
	t->source = ws->source;
	t->hz = ws->hz;
	t->rounds = ws->rounds;
	t->cost_ms = ws->cost_ms;
	t->cost_per_sample_ms = ws->rounds ? ws->cost_ms / ws->rounds : NAN;
	/* a cumulative profile's first reading is the base its rates are
	 * counted from: nothing is known of this interval yet */
	t->base_only = ws->source != WS_SAMPLED && !t->base_read;
	str_copy(t->note, sizeof t->note, ws->note);
	if (t->base_only && !t->note[0])
		str_printf(t->note, sizeof t->note,
			   "%s read once (the base of its counts): the waits come at its next reading",
			   wait_source_name(ws->source));
	t->stopped = wait_note_stopped(ws->note);
	t->have_data = true;
	t->untracked = 0;
	wait_table_fill(t, ws, dt, seen);
	/* events tracked but absent: nothing observed (sampled), unchanged
	 * (cumulative sources list only what ever happened) */
	double total = 0;
	bool any = false;
	for (i = 0; i < WAIT_MAX; i++) {
		struct wait_entry *e = &t->e[i];
		if (!e->used)
			continue;
		if (!seen[i]) {
			bool known = ws->source == WS_SAMPLED ? ws->rounds > 0 : t->base_read;
			e->aas = known ? 0 : NAN;
			e->count_per_s = known && ws->source == WS_PERF_SCHEMA ? 0 : NAN;
			e->avg_ms = NAN;
		}
		if (isfinite(e->aas)) {
			total += e->aas;
			any = true;
			if (e->aas > 0)
				e->last_seen = t->interval;
		}
		ring_push(&e->hist, e->aas);
	}
	if (ws->source != WS_SAMPLED)
		t->base_read = true;
	t->total_aas = any ? total : NAN;
	t->interval++;
}

void wait_table_hold(struct wait_table *t)
{
	for (size_t i = 0; i < WAIT_MAX; i++)
		if (t->e[i].used)
			ring_push(&t->e[i].hist, t->e[i].aas);
	t->interval++;
}

static int cmp_aas(const void *a, const void *b)
{
	const struct wait_entry *x = *(const struct wait_entry *const *)a, *y = *(const struct wait_entry *const *)b;
	if (x->aas != y->aas)
		return x->aas > y->aas ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t wait_table_ranked(const struct wait_table *t, const struct wait_entry **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < WAIT_MAX && n < max; i++)
		if (t->e[i].used && isfinite(t->e[i].aas))
			out[n++] = &t->e[i];
	qsort(out, n, sizeof *out, cmp_aas);
	return n;
}

void wait_table_json(const struct wait_table *t, int top, struct strbuf *out)
{
	const struct wait_entry *rows[WAIT_MAX];
	if (!t->have_data) {
		sb_puts(out, ",\"waits\":null");
		return;
	}
	size_t n = wait_table_ranked(t, rows, WAIT_MAX);
	while (n > 0 && !(rows[n - 1]->aas > 0))
		n--;   /* events that did not occur this interval */
	if (top >= 0 && n > (size_t)top)
		n = (size_t)top;
	sb_puts(out, ",\"waits\":[");
	for (size_t i = 0; i < n; i++) {
		const struct wait_entry *e = rows[i];
		if (i)
			sb_putc(out, ',');
		sb_puts(out, "{\"event\":");
		json_str(out, e->name);
		sb_printf(out, ",\"class\":\"%s\",\"aas\":", wait_class_name(e->cls));
		json_num(out, d_round(e->aas * 10000) / 10000);
		sb_puts(out, ",\"time_ms_per_s\":");
		json_num(out, d_round(e->aas * 1000 * 1000) / 1000);
		if (t->source == WS_PERF_SCHEMA) {
			sb_puts(out, ",\"count_per_s\":");
			json_num(out, d_round(e->count_per_s * 1000) / 1000);
			sb_puts(out, ",\"avg_ms\":");
			json_num(out, isfinite(e->avg_ms) ? d_round(e->avg_ms * 1000) / 1000 : NAN);
		}
		sb_printf(out, ",\"source\":\"%s\"}", wait_source_name(t->source));
	}
	sb_putc(out, ']');
	sb_printf(out, ",\"waits_source\":\"%s\"", wait_source_name(t->source));
	if (t->note[0]) {
		sb_puts(out, ",\"waits_note\":");
		json_str(out, t->note);
	}
	if (t->stopped)
		sb_puts(out, ",\"waits_stopped\":true");
	if (t->source == WS_SAMPLED) {
		sb_puts(out, ",\"waits_sampler\":{\"hz\":");
		json_num(out, isfinite(t->hz) ? d_round(t->hz * 100) / 100 : NAN);
		sb_printf(out, ",\"samples\":%u,\"ms_per_sample\":", t->rounds);
		json_num(out, isfinite(t->cost_per_sample_ms) ? d_round(t->cost_per_sample_ms * 1000) / 1000 : NAN);
		sb_putc(out, '}');
	}
}

bool wait_table_lock_note(const struct wait_table *t, unsigned waiting_now, char *buf, size_t len)
{
	const struct wait_entry *r[WAIT_MAX];
	size_t n = wait_table_ranked(t, r, WAIT_MAX), i, k = 0;
	double sum = 0;
	char parts[200] = "";
	buf[0] = '\0';
	for (i = 0; i < n; i++)
		if (r[i]->cls == WC_LOCK && isfinite(r[i]->aas) && r[i]->aas > 0)
			sum += r[i]->aas;
	if (!(sum >= 0.05))
		return false;
	for (i = 0; i < n && k < 3; i++) {
		size_t l = strlen(parts);
		if (r[i]->cls != WC_LOCK || !(r[i]->aas >= 0.05))
			continue;
		str_printf(parts + l, sizeof parts - l, "%s%s %.1f", k ? ", " : "", r[i]->name, r[i]->aas);
		k++;
	}
	str_printf(buf, len, "%.1f session%s %s waiting on locks in the last interval (on average: %s)%s", sum,
		   sum >= 0.95 && sum < 1.05 ? "" : "s", t->source == WS_PERF_SCHEMA ? "measured" : "sampled", parts,
		   waiting_now ? "" : "; none waiting at the last check");
	return true;
}
