/* repl_map.c - replication rows to struct repl. */
#include "repl_map.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"

/* pg_stat_get_wal_senders() itself rather than the pg_stat_replication
 * view: the view joins every backend's pg_stat_activity row, which costs
 * the server in proportion to its sessions; here only the walsenders'
 * own rows are looked up (application_name, client address). */
#define PG_REPL_SQL_HEAD                                                                          \
	"SELECT a.application_name, CASE WHEN a.client_port = -1 THEN 'local' ELSE host(a.client_addr) END, " \
	"w.state, w.sync_state, pg_wal_lsn_diff(p.lsn, w.sent_lsn)::bigint, "                     \
	"pg_wal_lsn_diff(p.lsn, w.write_lsn)::bigint, pg_wal_lsn_diff(p.lsn, w.flush_lsn)::bigint, " \
	"pg_wal_lsn_diff(p.lsn, w.replay_lsn)::bigint, (extract(epoch FROM w.write_lag) * 1000)::float8, " \
	"(extract(epoch FROM w.flush_lag) * 1000)::float8, (extract(epoch FROM w.replay_lag) * 1000)::float8, "
#define PG_REPL_SQL_TAIL                                                                          \
	" FROM pg_stat_get_wal_senders() w LEFT JOIN LATERAL pg_stat_get_activity(w.pid) a ON true, " \
	"(SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_receive_lsn() "                     \
	"ELSE pg_current_wal_lsn() END AS lsn) p "                                                  \
	"ORDER BY w.sync_state IN ('sync', 'quorum') DESC NULLS LAST, a.application_name LIMIT 64"

const char *pg_repl_sql(const struct caps *c)
{
	if (c->version_num >= 120000)
		return PG_REPL_SQL_HEAD "extract(epoch FROM clock_timestamp() - w.reply_time)::float8" PG_REPL_SQL_TAIL;
	return PG_REPL_SQL_HEAD "NULL::float8" PG_REPL_SQL_TAIL;
}

void repl_pg_begin(struct repl *r)
{
	memset(r, 0, sizeof *r);
	r->kind = REPL_PG;
	r->query_ms = -1;
	r->ss_status = -1;
	r->enabled = -1;
	r->timeout_ms = r->wait_count = -1;
}

static int64_t cell_i64(const char *v)
{
	char *e;
	if (!v || !*v)
		return -1;
	errno = 0;
	long long x = strtoll(v, &e, 10);
	if (errno || e == v)
		return -1;
	return x < 0 ? 0 : x;   /* a standby ahead of a just-read position: caught up */
}

static double cell_f64(const char *v)
{
	char *e;
	if (!v || !*v)
		return NAN;
	double x = strtod(v, &e);
	return e == v || !isfinite(x) ? NAN : x < 0 ? 0 : x;
}

void repl_pg_row(struct repl *r, const char *const cell[PGR__COUNT])
{
	/* without pg_monitor (pg_read_all_stats) a walsender shows its pid and
	 * name, every other column NULL */
	if (!cell[PGR_STATE] && !cell[PGR_SYNC])
		r->hidden = true;
	if (r->n >= REPL_MAX) {
		r->more++;
		return;
	}
	struct repl_standby *s = &r->s[r->n++];
	str_copy(s->name, sizeof s->name, cell[PGR_NAME] ? cell[PGR_NAME] : "");
	str_copy(s->addr, sizeof s->addr, cell[PGR_ADDR] ? cell[PGR_ADDR] : "");
	str_copy(s->state, sizeof s->state, cell[PGR_STATE] ? cell[PGR_STATE] : "");
	str_copy(s->sync_state, sizeof s->sync_state, cell[PGR_SYNC] ? cell[PGR_SYNC] : "");
	text_sanitize(s->name);
	text_sanitize(s->addr);
	text_sanitize(s->state);
	text_sanitize(s->sync_state);
	s->sent_b = cell_i64(cell[PGR_SENT]);
	s->write_b = cell_i64(cell[PGR_WRITE]);
	s->flush_b = cell_i64(cell[PGR_FLUSH]);
	s->replay_b = cell_i64(cell[PGR_REPLAY]);
	s->write_ms = cell_f64(cell[PGR_WRITE_LAG]);
	s->flush_ms = cell_f64(cell[PGR_FLUSH_LAG]);
	s->replay_ms = cell_f64(cell[PGR_REPLAY_LAG]);
	s->reply_s = cell_f64(cell[PGR_REPLY]);
}

void repl_my_begin(struct repl *r, bool vars)
{
	memset(r, 0, sizeof *r);
	r->query_ms = -1;
	r->ss_status = -1;
	r->enabled = -1;
	r->timeout_ms = r->wait_count = -1;
	r->vars_fresh = vars;
}

/* The part of a semi-sync name after its master/source prefix, or NULL;
 * *source: the MySQL 8.0.26+ spelling. */
static const char *ss_suffix(const char *name, const char *master, const char *source, bool *is_source)
{
	size_t lm = strlen(master), ls = strlen(source);
	if (!name)
		return NULL;
	if (strncasecmp(name, master, lm) == 0) {
		*is_source = false;
		return name + lm;
	}
	if (strncasecmp(name, source, ls) == 0) {
		*is_source = true;
		return name + ls;
	}
	return NULL;
}

bool repl_my_status_name(const char *name)
{
	bool src;
	return name && (strcasecmp(name, "Slaves_connected") == 0 ||
			ss_suffix(name, "Rpl_semi_sync_master_", "Rpl_semi_sync_source_", &src));
}

bool repl_my_var_name(const char *name)
{
	bool src;
	return ss_suffix(name, "rpl_semi_sync_master_", "rpl_semi_sync_source_", &src) != NULL;
}

static const struct {
	const char *suffix;
	enum ss_id id;
} ss_status_names[] = {
	{"clients", SS_CLIENTS},
	{"wait_sessions", SS_WAIT_SESSIONS},
	{"yes_tx", SS_YES_TX},
	{"no_tx", SS_NO_TX},
	{"tx_waits", SS_TX_WAITS},
	{"tx_wait_time", SS_TX_WAIT_US},
	{"net_waits", SS_NET_WAITS},
	{"net_wait_time", SS_NET_WAIT_US},
	{"tx_avg_wait_time", SS_TX_AVG_US},
	{"net_avg_wait_time", SS_NET_AVG_US},
	{"no_times", SS_NO_TIMES},
};

static bool parse_uint(const char *s, uint64_t *out)
{
	char *e;
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &e, 10);
	if (errno || e == s || (*e && *e != '.'))
		return false;
	*out = v;
	return true;
}

static int on_off(const char *v)
{
	if (!v)
		return -1;
	if (strcasecmp(v, "ON") == 0 || strcmp(v, "1") == 0)
		return 1;
	if (strcasecmp(v, "OFF") == 0 || strcmp(v, "0") == 0)
		return 0;
	return -1;
}

void repl_my_status(struct repl *r, const char *name, const char *value)
{
	uint64_t v;
	bool src = false;
	if (name && strcasecmp(name, "Slaves_connected") == 0) {
		if (parse_uint(value, &v)) {
			r->ss[SS_REPLICAS] = v;
			r->ss_have |= 1u << SS_REPLICAS;
		}
		return;
	}
	const char *suf = ss_suffix(name, "Rpl_semi_sync_master_", "Rpl_semi_sync_source_", &src);
	if (!suf)
		return;
	if (src)
		r->ss_source = true;
	r->kind = REPL_SEMISYNC;
	if (strcasecmp(suf, "status") == 0) {
		r->ss_status = on_off(value);
		return;
	}
	for (size_t i = 0; i < sizeof ss_status_names / sizeof ss_status_names[0]; i++)
		if (strcasecmp(suf, ss_status_names[i].suffix) == 0 && parse_uint(value, &v)) {
			r->ss[ss_status_names[i].id] = v;
			r->ss_have |= 1u << ss_status_names[i].id;
		}
}

void repl_my_var(struct repl *r, const char *name, const char *value)
{
	bool src = false;
	uint64_t v;
	const char *suf = ss_suffix(name, "rpl_semi_sync_master_", "rpl_semi_sync_source_", &src);
	if (!suf)
		return;
	if (src)
		r->ss_source = true;
	r->kind = REPL_SEMISYNC;
	if (strcasecmp(suf, "enabled") == 0)
		r->enabled = on_off(value);
	else if (strcasecmp(suf, "timeout") == 0 && parse_uint(value, &v))
		r->timeout_ms = (int64_t)v;
	else if (strcasecmp(suf, "wait_for_replica_count") == 0 && parse_uint(value, &v))
		r->wait_count = (int64_t)v;
	else if (strcasecmp(suf, "wait_for_slave_count") == 0 && parse_uint(value, &v))
		r->wait_count = (int64_t)v;
	else if (strcasecmp(suf, "wait_point") == 0 && value) {
		str_copy(r->wait_point, sizeof r->wait_point, value);
		text_sanitize(r->wait_point);
	}
}

void repl_my_finish(struct repl *r)
{
	/* Slaves_connected alone (MariaDB always has semi-sync built in; a
	 * server without it has no Rpl_semi_sync rows): nothing to show */
	if (r->kind != REPL_SEMISYNC)
		memset(r, 0, sizeof *r);
}
