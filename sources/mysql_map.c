/* mysql_map.c - MySQL / MariaDB rows to caps and counters. */
#include "mysql_map.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../model/digests.h"
#include "../model/waits.h"
#include "../util/util.h"

bool parse_u64(const char *s, uint64_t *out)
{
	char *e;
	unsigned long long v;
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno || e == s || (*e && *e != '.'))
		return false;
	*out = v;
	return true;
}

/* Version string "10.11.6-MariaDB-..." to 101106. */
static long version_num(const char *v)
{
	long a = 0, b = 0, c = 0;
	if (sscanf(v, "%ld.%ld.%ld", &a, &b, &c) < 1)
		return 0;
	return a * 10000 + b * 100 + c;
}

void mysql_caps_version(struct caps *c, const char *version, const char *comment,
			const char *perf_schema, const char *log_bin)
{
	c->engine = ENGINE_MYSQL;
	str_copy(c->version, sizeof c->version, version ? version : "?");
	text_sanitize(c->version);
	c->version_num = version_num(c->version);
	c->flavour = (strstr(c->version, "MariaDB") || (comment && strstr(comment, "MariaDB")))
		     ? FLAVOUR_MARIADB : FLAVOUR_MYSQL;
	c->perf_schema = perf_schema && strcmp(perf_schema, "1") == 0;
	c->binlog_on = log_bin && strcmp(log_bin, "1") == 0;
}

void mysql_caps_privilege(struct caps *c, const char *priv)
{
	if (!priv)
		return;
	if (strcmp(priv, "PROCESS") == 0)
		c->priv_process = true;
	if (strcmp(priv, "SUPER") == 0 || strcmp(priv, "SYSTEM_VARIABLES_ADMIN") == 0) {
		c->priv_super = true;
		c->priv_process = true;
	}
}

void mysql_caps_instrument(struct caps *c, const char *name, const char *enabled,
			   const char *timed)
{
	bool on = enabled && strcasecmp(enabled, "YES") == 0;
	bool tm = timed && strcasecmp(timed, "YES") == 0;
	if (!name)
		return;
	if (strcmp(name, MY_REDO_EVENT) == 0)
		c->ps_redo_file = on;
	else if (strcmp(name, MY_BINLOG_EVENT) == 0)
		c->ps_binlog_file = on;
	else
		return;
	if (!on || !tm)
		notes_add(&c->notes, "instrument %s is %s: UPDATE performance_schema.setup_instruments "
			  "SET ENABLED='YES', TIMED='YES' WHERE NAME='%s'",
			  name, on ? "not timed" : "disabled", name);
}

void mysql_caps_finish(struct caps *c, bool has_os_log_fsyncs, const char *ps_error)
{
	c->has_os_log_fsyncs = has_os_log_fsyncs;
	c->ps_readable = c->perf_schema && !ps_error;
	if (!c->priv_process)
		notes_add(&c->notes, "PROCESS privilege missing: lock and session views will be empty "
			  "(GRANT PROCESS ON *.* TO the monitoring user)");
	if (!c->perf_schema)
		notes_add(&c->notes, "performance_schema is OFF: no binlog sync counts or sync times "
			  "(set performance_schema=ON in my.cnf and restart)");
	else if (ps_error)
		notes_add(&c->notes, "performance_schema not readable (%s): "
			  "GRANT SELECT ON performance_schema.* TO the monitoring user", ps_error);
	if (!c->ps_readable) {
		c->ps_redo_file = false;
		c->ps_binlog_file = false;
	}
	if (has_os_log_fsyncs) {
		str_copy(c->redo_fsync_source, sizeof c->redo_fsync_source, "Innodb_os_log_fsyncs");
	} else if (c->ps_redo_file) {
		str_copy(c->redo_fsync_source, sizeof c->redo_fsync_source,
			 "performance_schema " MY_REDO_EVENT " syncs");
	} else {
		/* MariaDB 10.8+: no redo sync counter and no redo file
		 * instrument; redo syncs are counted in Innodb_data_fsyncs */
		str_copy(c->redo_fsync_source, sizeof c->redo_fsync_source,
			 "Innodb_data_fsyncs (redo and data-file syncs)");
		notes_add(&c->notes, "redo fsyncs: this server has neither Innodb_os_log_fsyncs nor a "
			  "performance_schema redo-log file instrument; redo syncs are taken from "
			  "Innodb_data_fsyncs, which also counts data-file syncs");
	}
	if (c->binlog_on && !c->ps_binlog_file)
		notes_add(&c->notes, "binlog syncs unavailable (needs performance_schema with %s): "
			  "fsyncs_per_s counts redo syncs only", MY_BINLOG_EVENT);
	if (c->flavour == FLAVOUR_MARIADB && c->binlog_on) {
		str_copy(c->commit_source, sizeof c->commit_source, "Binlog_commits");
	} else {
		str_copy(c->commit_source, sizeof c->commit_source, "Com_commit");
		notes_add(&c->notes, "commits_per_s counts explicit COMMIT statements (Com_commit); "
			  "autocommit transactions are not included%s",
			  c->flavour == FLAVOUR_MARIADB ? " (with log_bin=ON, Binlog_commits counts them all)" : "");
	}
}

/* Status variable name -> counter. */
static const struct {
	const char *name;
	enum ctr_id ctr;
} status_map[] = {
	{"Com_commit", CTR_COM_COMMIT},
	{"Com_rollback", CTR_ROLLBACKS},
	{"Handler_commit", CTR_HANDLER_COMMIT},
	{"Innodb_os_log_fsyncs", CTR_REDO_FSYNCS},
	{"Innodb_data_fsyncs", CTR_DATA_FSYNCS},
	{"Innodb_log_writes", CTR_REDO_WRITES},
	{"Innodb_os_log_written", CTR_REDO_BYTES},
	{"Binlog_commits", CTR_BINLOG_COMMITS},
	{"Binlog_group_commits", CTR_BINLOG_GROUP_COMMITS},
	{"Innodb_row_lock_waits", CTR_ROW_LOCK_WAITS},
	{"Innodb_row_lock_time", CTR_ROW_LOCK_TIME_MS},
	{"Com_create_db", CTR_CREATE_DB},
	{"Com_select", CTR_COM_SELECT},
	{"Com_insert", CTR_COM_INSERT},
	{"Com_update", CTR_COM_UPDATE},
	{"Com_delete", CTR_COM_DELETE},
	{"Com_replace", CTR_COM_REPLACE},
	{"Com_begin", CTR_COM_BEGIN},
};

void mysql_map_status(struct sample *out, const char *name, const char *value,
		      uint64_t *uptime)
{
	uint64_t v;
	size_t i;
	if (!name || !parse_u64(value, &v))
		return;
	if (strcasecmp(name, "Uptime") == 0) {
		*uptime = v;
		return;
	}
	for (i = 0; i < sizeof status_map / sizeof status_map[0]; i++)
		if (strcasecmp(name, status_map[i].name) == 0)
			sample_set(out, status_map[i].ctr, v, 0);
}

void mysql_map_file(struct sample *out, const struct caps *c, const char *event,
		    const char *count_misc, const char *sum_timer_misc)
{
	uint64_t n, ps;
	if (!event || !parse_u64(count_misc, &n) || !parse_u64(sum_timer_misc, &ps))
		return;
	if (strcmp(event, MY_REDO_EVENT) == 0 && c->ps_redo_file) {
		if (!c->has_os_log_fsyncs) {
			sample_set(out, CTR_REDO_FSYNCS, n, 0);
			sample_set(out, CTR_REDO_FSYNC_NS, ps / 1000, 0);
		}
	} else if (strcmp(event, MY_BINLOG_EVENT) == 0 && c->ps_binlog_file) {
		sample_set(out, CTR_BINLOG_FSYNCS, n, 0);
		sample_set(out, CTR_BINLOG_FSYNC_NS, ps / 1000, 0);
	} else if (strcmp(event, MY_COMMIT_EVENT) == 0 && c->ps_readable) {
		sample_set(out, CTR_COMMIT_STMTS, n, 0);
		sample_set(out, CTR_COMMIT_NS, ps / 1000, 0);
	} else if (strcmp(event, MY_EXECUTE_EVENT) == 0 && c->ps_readable) {
		sample_set(out, CTR_EXEC_STMTS, n, 0);
		sample_set(out, CTR_EXEC_NS, ps / 1000, 0);
	} else if (strcmp(event, MY_STMTS_ROW) == 0 && c->ps_readable) {
		sample_set(out, CTR_STMTS, n, 0);
		sample_set(out, CTR_STMT_NS, ps / 1000, 0);
	} else if (strcmp(event, MY_OWN_STMTS_ROW) == 0 && c->ps_readable) {
		sample_set(out, CTR_OWN_STMTS, n, 0);
		sample_set(out, CTR_OWN_STMT_NS, ps / 1000, 0);
	}
}

void mysql_map_finish(struct sample *out, const struct caps *c, uint64_t epoch)
{
	int i;
	if (!c->has_os_log_fsyncs && !c->ps_redo_file && out->c[CTR_DATA_FSYNCS].present)
		out->c[CTR_REDO_FSYNCS] = out->c[CTR_DATA_FSYNCS];
	if (out->c[CTR_REDO_FSYNCS].present) {
		uint64_t f = out->c[CTR_REDO_FSYNCS].v;
		if (out->c[CTR_BINLOG_FSYNCS].present)
			f += out->c[CTR_BINLOG_FSYNCS].v;
		sample_set(out, CTR_FSYNCS, f, 0);
	}
	if (c->flavour == FLAVOUR_MARIADB && c->binlog_on && out->c[CTR_BINLOG_COMMITS].present)
		out->c[CTR_COMMITS] = out->c[CTR_BINLOG_COMMITS];
	else if (out->c[CTR_COM_COMMIT].present)
		out->c[CTR_COMMITS] = out->c[CTR_COM_COMMIT];
	for (i = 0; i < CTR__COUNT; i++)
		out->c[i].epoch = epoch;
}

/* True when s looks like a timestamp the server printed. */
static bool ts_ok(const char *s)
{
	if (!*s || strlen(s) > 30)
		return false;
	for (; *s; s++)
		if (!strchr("0123456789-: .", *s))
			return false;
	return true;
}

char *mysql_digest_sql(const struct caps *c, const char *since, char *buf, size_t len)
{
	char where[96] = "";
	if (since && ts_ok(since))
		str_printf(where, sizeof where, " WHERE LAST_SEEN >= '%s'", since);
	str_printf(buf, len,
		   "SELECT SCHEMA_NAME, DIGEST, COUNT_STAR, SUM_TIMER_WAIT, SUM_LOCK_TIME, SUM_ERRORS, "
		   "SUM_ROWS_SENT + SUM_ROWS_AFFECTED, SUM_ROWS_EXAMINED, UNIX_TIMESTAMP(FIRST_SEEN), "
		   "UNIX_TIMESTAMP(LAST_SEEN), LAST_SEEN%s "
		   "FROM performance_schema.events_statements_summary_by_digest%s",
		   c->ps_digest_p95 ? ", QUANTILE_95" : "", where);
	return buf;
}

void mysql_map_digest(struct digest_set *set, const char *const cell[MYD__COUNT], int ncells)
{
	static const int map[][2] = {
		{MYD_COUNT, DG_CALLS}, {MYD_TIMER, DG_TOTAL_NS}, {MYD_LOCK, DG_LOCK_NS},
		{MYD_ERRORS, DG_ERRORS}, {MYD_ROWS, DG_ROWS}, {MYD_EXAMINED, DG_ROWS_EXAMINED},
	};
	struct digest_row *r = digest_set_add(set);
	uint64_t v;
	size_t i;
	const char *digest = cell[MYD_DIGEST];
	str_printf(r->key, sizeof r->key, "%s/%s", cell[MYD_SCHEMA] ? cell[MYD_SCHEMA] : "",
		   digest ? digest : "(null)");
	str_copy(r->schema, sizeof r->schema, cell[MYD_SCHEMA] ? cell[MYD_SCHEMA] : "");
	text_sanitize(r->schema);
	text_sanitize(r->key);
	if (!digest)
		r->text = xstrdup("(statements not tracked: the digest table is full; "
				  "raise performance_schema_digests_size)");
	for (i = 0; i < sizeof map / sizeof map[0]; i++) {
		if (!parse_u64(cell[map[i][0]], &v))
			continue;
		/* picoseconds -> ns for the time counters */
		if (map[i][1] == DG_TOTAL_NS || map[i][1] == DG_LOCK_NS)
			v /= 1000;
		r->c[map[i][1]] = v;
		r->have |= 1u << map[i][1];
	}
	if (cell[MYD_FIRST]) {
		r->first_seen = strtod(cell[MYD_FIRST], NULL);
		r->epoch = (uint64_t)d_llround(r->first_seen * 1000);
	}
	if (cell[MYD_LAST])
		r->last_seen = strtod(cell[MYD_LAST], NULL);
	if (ncells > MYD_P95 && parse_u64(cell[MYD_P95], &v))
		r->p95_ms = (double)v / 1e9;
}

void mysql_caps_digest_column(struct caps *c, const char *table, const char *column)
{
	if (!table || !column)
		return;
	if (strcasecmp(table, "events_statements_summary_by_digest") == 0) {
		if (strcasecmp(column, "DIGEST") == 0)
			c->ps_digests = true;
		else if (strcasecmp(column, "QUANTILE_95") == 0)
			c->ps_digest_p95 = true;
	} else if (strcasecmp(table, MY_HIST_TABLE) == 0 && strcasecmp(column, "COUNT_BUCKET") == 0) {
		c->ps_digest_hist = true;
	}
}

/* The digest part of a row key "schema/digest" when the row can have a
 * histogram read: hex digits (not the NULL-digest overflow row) and a
 * schema that goes into a string literal as it is. NULL otherwise. */
static const char *hist_digest(const char *key)
{
	const char *d = strrchr(key, '/');
	if (!d || !d[1] || strspn(d + 1, "0123456789abcdefABCDEF") != strlen(d + 1))
		return NULL;
	if (strcspn(key, "'\\") < (size_t)(d - key))
		return NULL;
	return d + 1;
}

void mysql_hist_pick_free(struct my_hist_pick *p)
{
	hmap_free(&p->ns);
	memset(p, 0, sizeof *p);
}

size_t mysql_hist_choose(struct my_hist_pick *p, struct digest_set *set, size_t max)
{
	uint64_t *top_ns = max ? xcalloc(max, sizeof *top_ns) : NULL;
	size_t *top_row = max ? xcalloc(max, sizeof *top_row) : NULL;
	size_t i, got = 0;

	for (i = 0; i < set->n; i++) {
		const struct digest_row *r = &set->rows[i];
		uint64_t ns = r->c[DG_TOTAL_NS], d, *was;
		bool added;
		size_t j;
		if (!(r->have >> DG_TOTAL_NS & 1))
			continue;
		if (!p->ns.val_size)
			hmap_init(&p->ns, true, sizeof(uint64_t), 256);
		was = hmap_put_u64(&p->ns, hash_str(r->key), &added);
		/* new to us, or reset: all its time is recent */
		d = !added && ns >= *was ? ns - *was : ns;
		*was = ns;
		if (d == 0 || !hist_digest(r->key))
			continue;
		/* insertion into the top max (ties: key order) */
		j = got < max ? got : max;
		while (j > 0 && (top_ns[j - 1] < d ||
				 (top_ns[j - 1] == d && strcmp(set->rows[top_row[j - 1]].key, r->key) > 0))) {
			if (j < max) {
				top_ns[j] = top_ns[j - 1];
				top_row[j] = top_row[j - 1];
			}
			j--;
		}
		if (j < max) {
			top_ns[j] = d;
			top_row[j] = i;
			if (got < max)
				got++;
		}
	}
	for (i = 0; i < got; i++)
		if (!digest_set_hist(set, set->rows[top_row[i]].key))
			digest_set_add_hist(set, set->rows[top_row[i]].key);
	free(top_ns);
	free(top_row);
	return got;
}

bool mysql_hist_sql(const struct digest_set *set, struct strbuf *b)
{
	size_t i, n = 0;
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
	for (i = 0; i < set->nhist; i++) {
		const char *key = set->hist[i].key, *d = hist_digest(key);
		if (!d)
			continue;
		/* one indexed lookup per digest: (SCHEMA_NAME, DIGEST) is the
		 * leading part of the table's key */
		sb_puts(b, n++ ? " UNION ALL " : "");
		sb_puts(b, "SELECT SCHEMA_NAME, DIGEST, BUCKET_NUMBER, BUCKET_TIMER_HIGH, COUNT_BUCKET "
			   "FROM performance_schema." MY_HIST_TABLE " WHERE SCHEMA_NAME ");
		if (d - 1 == key)
			sb_puts(b, "IS NULL");
		else
			sb_printf(b, "= '%.*s'", (int)(d - 1 - key), key);
		sb_printf(b, " AND DIGEST = '%s' AND COUNT_BUCKET > 0", d);
	}
	return n > 0;
}

void mysql_map_hist(struct digest_set *set, const char *const cell[MYH__COUNT])
{
	char key[200];
	struct dg_hist *h;
	uint64_t num, high, count;
	if (!cell[MYH_DIGEST] || !parse_u64(cell[MYH_BUCKET], &num) || num > UINT32_MAX ||
	    !parse_u64(cell[MYH_HIGH], &high) || !parse_u64(cell[MYH_COUNT], &count))
		return;
	str_printf(key, sizeof key, "%s/%s", cell[MYH_SCHEMA] ? cell[MYH_SCHEMA] : "", cell[MYH_DIGEST]);
	text_sanitize(key);
	h = digest_set_hist(set, key);
	if (h && count > 0)
		dg_hist_add(h, (uint32_t)num, high, count);
}

void mysql_waits_stopped(struct wait_set *ws, const char *off, int n)
{
	if (!ws || n <= 0)
		return;
	str_printf(ws->note, sizeof ws->note,
		   WAIT_NOTE_STOPPED "consumer%s %s %s off: UPDATE performance_schema.setup_consumers "
				     "SET ENABLED='YES' WHERE NAME LIKE '%%_instrumentation'",
		   n > 1 ? "s" : "", off && *off ? off : "?", n > 1 ? "are" : "is");
}
