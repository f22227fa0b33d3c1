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
	    starts(n, "wait/synch/mutex/sql/MYSQL_BIN_LOG") || starts(n, "wait/synch/cond/sql/MYSQL_BIN_LOG"))
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
	t->hist_len = hist_len ? hist_len : 1;
	t->total_aas = NAN;
}

void wait_table_free(struct wait_table *t)
{
	for (size_t i = 0; i < WAIT_MAX; i++)
		if (t->e[i].used)
			ring_free(&t->e[i].hist);
	memset(t->e, 0, sizeof t->e);
}

/* The entry of name, taking a free slot or the least recently active one. */
static struct wait_entry *entry(struct wait_table *t, const char *name)
{
	struct wait_entry *free_e = NULL, *old = NULL;
	for (size_t i = 0; i < WAIT_MAX; i++) {
		struct wait_entry *e = &t->e[i];
		if (!e->used) {
			if (!free_e)
				free_e = e;
			continue;
		}
		if (strcmp(e->name, name) == 0)
			return e;
		if (!old || e->last_seen < old->last_seen)
			old = e;
	}
	struct wait_entry *e = free_e ? free_e : old;
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

void wait_table_update(struct wait_table *t, const struct wait_set *ws, double dt, bool fresh)
{
	bool seen[WAIT_MAX] = {false};
	size_t i;
	if (!ws) {
		for (i = 0; i < WAIT_MAX; i++) {
			struct wait_entry *e = &t->e[i];
			if (!e->used)
				continue;
			if (fresh)
				e->have_prev = false;
			e->aas = e->count_per_s = e->avg_ms = NAN;
			ring_push(&e->hist, NAN);
		}
		t->total_aas = NAN;
		t->interval++;
		return;
	}
	if (fresh || ws->source != t->source)
		for (i = 0; i < WAIT_MAX; i++)
			t->e[i].have_prev = false;
	t->source = ws->source;
	t->hz = ws->hz;
	t->rounds = ws->rounds;
	t->cost_ms = ws->cost_ms;
	t->cost_per_sample_ms = ws->rounds ? ws->cost_ms / ws->rounds : NAN;
	str_copy(t->note, sizeof t->note, ws->note);
	t->have_data = true;
	for (size_t k = 0; k < ws->n; k++) {
		const struct wait_row *r = &ws->rows[k];
		if (wait_is_idle(r->name))
			continue;
		struct wait_entry *e = entry(t, r->name);
		size_t idx = (size_t)(e - t->e);
		seen[idx] = true;
		e->aas = e->count_per_s = e->avg_ms = NAN;
		switch (ws->source) {
		case WS_SAMPLED:
			if (ws->rounds)
				e->aas = (double)r->count / ws->rounds;
			break;
		case WS_PG_WAIT_SAMPLING:
			if (e->have_prev && r->count >= e->prev_count && dt > 0)
				e->aas = (double)(r->count - e->prev_count) * ws->period_ms / 1000.0 / dt;
			break;
		case WS_PERF_SCHEMA:
			if (e->have_prev && r->count >= e->prev_count && r->time_ns >= e->prev_time_ns && dt > 0) {
				double dc = (double)(r->count - e->prev_count), dtm = (double)(r->time_ns - e->prev_time_ns);
				e->count_per_s = dc / dt;
				e->aas = dtm / 1e9 / dt;
				e->avg_ms = dc > 0 ? dtm / dc / 1e6 : NAN;
			}
			break;
		default:
			break;
		}
		e->prev_count = r->count;
		e->prev_time_ns = r->time_ns;
		e->have_prev = true;
	}
	/* events tracked but absent: nothing observed (sampled), unchanged
	 * (cumulative sources list only what ever happened) */
	double total = 0;
	bool any = false;
	for (i = 0; i < WAIT_MAX; i++) {
		struct wait_entry *e = &t->e[i];
		if (!e->used)
			continue;
		if (!seen[i]) {
			bool known = ws->source == WS_SAMPLED ? ws->rounds > 0 : e->have_prev && !fresh;
			e->aas = known ? 0 : NAN;
			e->count_per_s = known && ws->source == WS_PERF_SCHEMA ? 0 : NAN;
			e->avg_ms = NAN;
			/* absent from a cumulative reading without a baseline (the
			 * first of a connection or source): its count there is 0,
			 * the baseline of the next reading */
			if (ws->source != WS_SAMPLED && !e->have_prev) {
				e->prev_count = e->prev_time_ns = 0;
				e->have_prev = true;
			}
		}
		if (isfinite(e->aas)) {
			total += e->aas;
			any = true;
			if (e->aas > 0)
				e->last_seen = t->interval;
		}
		ring_push(&e->hist, e->aas);
	}
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
