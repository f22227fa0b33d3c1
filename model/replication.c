/* replication.c - synchronous replication's per-interval figures. */
#include "replication.h"

#include <math.h>
#include <string.h>

#include "../util/util.h"

void repl_model_reset(struct repl_model *rm)
{
	memset(rm, 0, sizeof *rm);
	rm->rt.yes_per_s = rm->rt.no_per_s = rm->rt.avg_wait_ms = rm->rt.net_avg_ms = NAN;
}

/* Δ of semi-sync counter id between two reads; false when either lacks it
 * or it went down (a restart, FLUSH STATUS). */
static bool ss_delta(const struct repl *a, const struct repl *b, enum ss_id id, double *d)
{
	uint32_t bit = 1u << id;
	if (!(a->ss_have & bit) || !(b->ss_have & bit) || b->ss[id] < a->ss[id])
		return false;
	*d = (double)(b->ss[id] - a->ss[id]);
	return true;
}

void repl_model_update(struct repl_model *rm, const struct repl *now, const struct repl *prev, double dt)
{
	struct repl keep = rm->r;
	struct repl_rates *rt = &rm->rt;
	rt->yes_per_s = rt->no_per_s = rt->avg_wait_ms = rt->net_avg_ms = NAN;
	if (!now || now->kind == REPL_NONE)
		return;
	rm->known = true;
	rm->r = *now;
	if (now->kind == REPL_SEMISYNC && !now->vars_fresh && rm->vars_known) {
		/* the variables are read with the settings: the last ones stand */
		rm->r.enabled = keep.enabled;
		rm->r.timeout_ms = keep.timeout_ms;
		rm->r.wait_count = keep.wait_count;
		str_copy(rm->r.wait_point, sizeof rm->r.wait_point, keep.wait_point);
	}
	if (now->kind == REPL_SEMISYNC && now->vars_fresh)
		rm->vars_known = true;
	if (now->kind != REPL_SEMISYNC || !prev || prev->kind != REPL_SEMISYNC || !(dt > 0))
		return;
	double yes, no, waits, wait_us, nw, nus;
	if (ss_delta(prev, now, SS_YES_TX, &yes))
		rt->yes_per_s = yes / dt;
	if (ss_delta(prev, now, SS_NO_TX, &no))
		rt->no_per_s = no / dt;
	if (ss_delta(prev, now, SS_TX_WAITS, &waits) && ss_delta(prev, now, SS_TX_WAIT_US, &wait_us) && waits > 0)
		rt->avg_wait_ms = wait_us / waits / 1000;
	if (ss_delta(prev, now, SS_NET_WAITS, &nw) && ss_delta(prev, now, SS_NET_WAIT_US, &nus) && nw > 0)
		rt->net_avg_ms = nus / nw / 1000;
}

static bool is_sync(const struct repl_standby *s)
{
	return strcmp(s->sync_state, "sync") == 0 || strcmp(s->sync_state, "quorum") == 0;
}

double repl_stalled_s(const struct repl_standby *s)
{
	return s->flush_b > 0 && s->reply_s >= REPL_STALL_S ? s->reply_s : 0;
}

int repl_sync_count(const struct repl *r)
{
	int n = 0;
	for (int i = 0; i < r->n; i++)
		n += is_sync(&r->s[i]);
	return n;
}

const struct repl_standby *repl_sync_standby(const struct repl *r)
{
	const struct repl_standby *best = NULL;
	for (int i = 0; i < r->n; i++) {
		const struct repl_standby *s = &r->s[i];
		if (!is_sync(s))
			continue;
		if (!best || s->flush_b > best->flush_b ||
		    (s->flush_b == best->flush_b && isfinite(s->flush_ms) && !(s->flush_ms <= best->flush_ms)))
			best = s;
	}
	return best;
}

void repl_fmt_ms(double ms, char *buf, size_t len)
{
	if (!isfinite(ms))
		str_copy(buf, len, "-");
	else if (ms < 1000)
		str_printf(buf, len, "%.1f ms", ms);
	else
		str_printf(buf, len, "%.1f s", ms / 1000);
}

static void json_i64(struct strbuf *out, const char *key, int64_t v)
{
	sb_printf(out, ",\"%s\":", key);
	if (v < 0)
		sb_puts(out, "null");
	else
		sb_printf(out, "%lld", (long long)v);
}

static void json_ms(struct strbuf *out, const char *key, double v)
{
	sb_printf(out, ",\"%s\":", key);
	json_num3(out, v);
}

/* A string, or null when empty. */
static void json_str_null(struct strbuf *out, const char *s)
{
	if (s[0])
		json_str(out, s);
	else
		sb_puts(out, "null");
}

static void json_standbys(const struct repl *r, struct strbuf *out)
{
	sb_puts(out, ",\"standbys\":[");
	for (int i = 0; i < r->n; i++) {
		const struct repl_standby *s = &r->s[i];
		sb_puts(out, i ? ",{\"name\":" : "{\"name\":");
		json_str(out, s->name);
		sb_puts(out, ",\"client_addr\":");
		json_str_null(out, s->addr);
		sb_puts(out, ",\"state\":");
		json_str_null(out, s->state);
		sb_puts(out, ",\"sync_state\":");
		json_str_null(out, s->sync_state);
		json_i64(out, "sent_lag_bytes", s->sent_b);
		json_i64(out, "write_lag_bytes", s->write_b);
		json_i64(out, "flush_lag_bytes", s->flush_b);
		json_i64(out, "replay_lag_bytes", s->replay_b);
		json_ms(out, "write_lag_ms", s->write_ms);
		json_ms(out, "flush_lag_ms", s->flush_ms);
		json_ms(out, "replay_lag_ms", s->replay_ms);
		json_ms(out, "reply_age_s", s->reply_s);
		sb_putc(out, '}');
	}
	sb_printf(out, "],\"more_standbys\":%d,\"columns_hidden\":%s", r->more, r->hidden ? "true" : "false");
}

static void json_semisync(const struct repl_model *rm, struct strbuf *out)
{
	const struct repl *r = &rm->r;
	static const char *const keys[SS__COUNT] = {
		"clients", "wait_sessions", "yes_tx", "no_tx", "tx_waits", "tx_wait_us", "net_waits", "net_wait_us",
		"tx_avg_wait_us", "net_avg_wait_us", "no_times", "replicas_connected",
	};
	sb_printf(out, ",\"names\":\"%s\",\"status\":", r->ss_source ? "source" : "master");
	sb_puts(out, r->ss_status < 0 ? "null" : r->ss_status ? "\"ON\"" : "\"OFF\"");
	sb_puts(out, ",\"enabled\":");
	sb_puts(out, r->enabled < 0 ? "null" : r->enabled ? "true" : "false");
	json_i64(out, "timeout_ms", r->timeout_ms);
	json_i64(out, "wait_for_count", r->wait_count);
	sb_puts(out, ",\"wait_point\":");
	json_str_null(out, r->wait_point);
	for (int i = 0; i < SS__COUNT; i++)
		json_i64(out, keys[i], r->ss_have & (1u << i) ? (int64_t)r->ss[i] : -1);
	json_ms(out, "yes_tx_per_s", d_round(rm->rt.yes_per_s * 1000) / 1000);
	json_ms(out, "no_tx_per_s", d_round(rm->rt.no_per_s * 1000) / 1000);
	json_ms(out, "avg_wait_ms", rm->rt.avg_wait_ms);
	json_ms(out, "net_avg_wait_ms", rm->rt.net_avg_ms);
}

void repl_json(const struct repl_model *rm, struct strbuf *out)
{
	const struct repl *r = &rm->r;
	if (!rm->known)
		return;
	sb_puts(out, ",\"replication\":{\"kind\":");
	sb_puts(out, r->kind == REPL_PG ? "\"standbys\"" : "\"semi-sync\"");
	json_ms(out, "query_ms", r->query_ms >= 0 ? r->query_ms : NAN);
	if (r->kind == REPL_PG)
		json_standbys(r, out);
	else
		json_semisync(rm, out);
	sb_putc(out, '}');
}
