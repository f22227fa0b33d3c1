/* mysql.c - MySQL / MariaDB backend (libmysqlclient / MariaDB Connector/C).
 * Every statement runs under a client read/write timeout and a server-side
 * statement time limit. */
#include "source.h"

#include <errno.h>
#include <math.h>
#include <mysql.h>
#include <mysqld_error.h>
#include <errmsg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"

#define REDO_EVENT "wait/io/file/innodb/innodb_log_file"
#define BINLOG_EVENT "wait/io/file/sql/binlog"

/* MariaDB ER_STATEMENT_TIMEOUT and MySQL ER_QUERY_TIMEOUT */
#define ERR_MARIADB_STMT_TIMEOUT 1969
#define ERR_MYSQL_QUERY_TIMEOUT 3024

struct my_priv {
	MYSQL *db;
	uint64_t last_uptime;
	uint64_t restarts;       /* bumps when Uptime goes down */
};

/* Run q; on failure fill err (and *stalled when it was a time limit).
 * Returns the result set (may be NULL for statements without one) or
 * sets *failed. Caller frees the result. */
static MYSQL_RES *my_query(struct source *src, const char *q, char *err, size_t errlen,
			   bool *failed, bool *stalled, double *ms)
{
	struct my_priv *p = src->priv;
	double t0 = clock_mono(), el;
	MYSQL_RES *res = NULL;
	int rc = mysql_real_query(p->db, q, (unsigned long)strlen(q));
	if (rc == 0)
		res = mysql_store_result(p->db);
	el = clock_mono() - t0;
	if (ms)
		*ms += el * 1000.0;
	*failed = false;
	if (rc != 0 || (!res && mysql_field_count(p->db) != 0)) {
		unsigned e = mysql_errno(p->db);
		*failed = true;
		if (stalled)
			*stalled = e == ERR_MARIADB_STMT_TIMEOUT || e == ERR_MYSQL_QUERY_TIMEOUT ||
				   ((e == CR_SERVER_LOST || e == CR_SERVER_GONE_ERROR) &&
				    el >= src->query_timeout * 0.9);
		if (stalled && *stalled)
			str_printf(err, errlen, "query exceeded %.1fs time limit (%s)",
				   src->query_timeout, mysql_error(p->db));
		else
			str_printf(err, errlen, "%s (error %u)", mysql_error(p->db), e);
	}
	return res;
}

/* Parse an unsigned integer column; false when NULL or not a number. */
static bool parse_u64(const char *s, uint64_t *out)
{
	char *e;
	unsigned long long v;
	if (!s || !*s)
		return false;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno || (*e && *e != '.'))
		return false;
	*out = v;
	return true;
}

/* Version string "10.11.6-MariaDB-..." to 101106. */
static long version_num(const char *v)
{
	long a = 0, b = 0, c = 0;
	sscanf(v, "%ld.%ld.%ld", &a, &b, &c);
	return a * 10000 + b * 100 + c;
}

static void my_close(struct source *src)
{
	struct my_priv *p = src->priv;
	if (!p)
		return;
	if (p->db)
		mysql_close(p->db);
	free(p);
	src->priv = NULL;
}

/* Probe flavour, version, performance_schema, privileges, counters. */
static int my_probe(struct source *src, char *err, size_t errlen)
{
	struct caps *c = &src->caps;
	MYSQL_RES *res;
	MYSQL_ROW row;
	bool failed;
	char e2[NOTE_LEN];

	res = my_query(src, "SELECT VERSION(), @@version_comment, @@performance_schema, @@log_bin",
		       err, errlen, &failed, NULL, NULL);
	if (failed)
		return -1;
	row = res ? mysql_fetch_row(res) : NULL;
	if (!row) {
		if (res)
			mysql_free_result(res);
		str_copy(err, errlen, "server returned no version");
		return -1;
	}
	str_copy(c->version, sizeof c->version, row[0] ? row[0] : "?");
	text_sanitize(c->version);
	c->version_num = version_num(c->version);
	c->flavour = (strstr(c->version, "MariaDB") ||
		      (row[1] && strstr(row[1], "MariaDB"))) ? FLAVOUR_MARIADB : FLAVOUR_MYSQL;
	c->perf_schema = row[2] && strcmp(row[2], "1") == 0;
	c->binlog_on = row[3] && strcmp(row[3], "1") == 0;
	mysql_free_result(res);

	/* server-side time limit for our own statements */
	if (c->flavour == FLAVOUR_MARIADB) {
		char q[96];
		str_printf(q, sizeof q, "SET SESSION max_statement_time=%.3f", src->query_timeout);
		res = my_query(src, q, e2, sizeof e2, &failed, NULL, NULL);
	} else {
		char q[96];
		str_printf(q, sizeof q, "SET SESSION max_execution_time=%ld",
			   (long)(src->query_timeout * 1000));
		res = my_query(src, q, e2, sizeof e2, &failed, NULL, NULL);
	}
	if (res)
		mysql_free_result(res);

	/* privileges of the current account */
	res = my_query(src,
		       "SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES "
		       "WHERE GRANTEE = CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(),'@',1), '''@''', "
		       "SUBSTRING_INDEX(CURRENT_USER(),'@',-1), '''')",
		       e2, sizeof e2, &failed, NULL, NULL);
	if (res) {
		while ((row = mysql_fetch_row(res))) {
			if (!row[0])
				continue;
			if (strcmp(row[0], "PROCESS") == 0)
				c->priv_process = true;
			if (strcmp(row[0], "SUPER") == 0 || strcmp(row[0], "SYSTEM_VARIABLES_ADMIN") == 0)
				c->priv_super = true;
		}
		mysql_free_result(res);
	}
	if (c->priv_super)
		c->priv_process = true;
	if (!c->priv_process)
		notes_add(&c->notes, "PROCESS privilege missing: lock and session views will be empty "
			  "(GRANT PROCESS ON *.* TO the monitoring user)");

	/* performance_schema file instruments */
	if (!c->perf_schema) {
		notes_add(&c->notes, "performance_schema is OFF: no redo/binlog sync counts or times "
			  "(set performance_schema=ON in my.cnf and restart)");
	} else {
		res = my_query(src,
			       "SELECT NAME, ENABLED, TIMED FROM performance_schema.setup_instruments "
			       "WHERE NAME IN ('" REDO_EVENT "','" BINLOG_EVENT "')",
			       e2, sizeof e2, &failed, NULL, NULL);
		if (failed) {
			notes_add(&c->notes, "performance_schema not readable (%s): "
				  "GRANT SELECT ON performance_schema.* TO the monitoring user", e2);
		} else {
			c->ps_readable = true;
			while (res && (row = mysql_fetch_row(res))) {
				bool on = row[1] && strcasecmp(row[1], "YES") == 0;
				bool timed = row[2] && strcasecmp(row[2], "YES") == 0;
				bool redo = row[0] && strcmp(row[0], REDO_EVENT) == 0;
				if (on && redo)
					c->ps_redo_file = true;
				else if (on)
					c->ps_binlog_file = true;
				if (!on || !timed)
					notes_add(&c->notes, "instrument %s is %s: UPDATE performance_schema.setup_instruments "
						  "SET ENABLED='YES', TIMED='YES' WHERE NAME='%s'",
						  row[0], on ? "not timed" : "disabled", row[0]);
			}
		}
		if (res)
			mysql_free_result(res);
	}

	res = my_query(src, "SHOW GLOBAL STATUS LIKE 'Innodb_os_log_fsyncs'", e2, sizeof e2,
		       &failed, NULL, NULL);
	if (res) {
		c->has_os_log_fsyncs = mysql_num_rows(res) > 0;
		mysql_free_result(res);
	}
	if (c->has_os_log_fsyncs)
		str_copy(c->redo_fsync_source, sizeof c->redo_fsync_source, "Innodb_os_log_fsyncs");
	else if (c->ps_redo_file)
		str_copy(c->redo_fsync_source, sizeof c->redo_fsync_source,
			 "performance_schema " REDO_EVENT " syncs");
	else {
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
			  "fsyncs_per_s counts redo syncs only", BINLOG_EVENT);
	if (c->flavour == FLAVOUR_MARIADB && c->binlog_on) {
		str_copy(c->commit_source, sizeof c->commit_source, "Binlog_commits");
	} else {
		str_copy(c->commit_source, sizeof c->commit_source, "Com_commit");
		notes_add(&c->notes, "commits_per_s counts explicit COMMIT statements (Com_commit); "
			  "autocommit transactions are not included%s",
			  c->flavour == FLAVOUR_MARIADB ? " (with log_bin=ON, Binlog_commits counts them all)" : "");
	}
	return 0;
}

static int my_connect(struct source *src, char *err, size_t errlen)
{
	struct target *t = src->tgt;
	struct my_priv *p = xcalloc(1, sizeof *p);
	unsigned ct = (unsigned)ceil(t->connect_timeout);
	unsigned rt = (unsigned)ceil(src->query_timeout);
	const char *host = t->host;
	my_bool off = 0;

	memset(&src->caps, 0, sizeof src->caps);
	src->caps.engine = ENGINE_MYSQL;
	src->priv = p;
	p->db = mysql_init(NULL);
	if (!p->db) {
		str_copy(err, errlen, "out of memory in mysql_init");
		my_close(src);
		return -1;
	}
	if (ct < 1)
		ct = 1;
	if (rt < 1)
		rt = 1;
	mysql_options(p->db, MYSQL_OPT_CONNECT_TIMEOUT, &ct);
	mysql_options(p->db, MYSQL_OPT_READ_TIMEOUT, &rt);
	mysql_options(p->db, MYSQL_OPT_WRITE_TIMEOUT, &rt);
	mysql_options(p->db, MYSQL_OPT_RECONNECT, &off);
	mysql_options(p->db, MYSQL_SET_CHARSET_NAME, "utf8mb4");
	mysql_options4(p->db, MYSQL_OPT_CONNECT_ATTR_ADD, "program_name", "dbtop");
	if (!host && t->socket)
		host = "localhost";
	if (!mysql_real_connect(p->db, host, t->user, t->password, t->database,
				(unsigned)t->port, t->socket, 0)) {
		str_printf(err, errlen, "cannot connect to %s: %s", t->label, mysql_error(p->db));
		my_close(src);
		return -1;
	}
	if (my_probe(src, err, errlen) < 0) {
		my_close(src);
		return -1;
	}
	return 0;
}

/* Status variable name -> counter. */
static const struct {
	const char *name;
	int ctr;
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
};

static int my_sample(struct source *src, struct sample *out, bool want_settings)
{
	struct my_priv *p = src->priv;
	struct caps *c = &src->caps;
	MYSQL_RES *res;
	MYSQL_ROW row;
	bool failed, stalled = false;
	uint64_t uptime = 0, v;
	size_t i;
	double t0;

	t0 = clock_mono();
	res = my_query(src,
		       "SHOW GLOBAL STATUS WHERE Variable_name IN ('Uptime','Com_commit','Com_rollback',"
		       "'Handler_commit','Innodb_os_log_fsyncs','Innodb_data_fsyncs','Innodb_log_writes',"
		       "'Innodb_os_log_written','Binlog_commits','Binlog_group_commits')",
		       out->error, sizeof out->error, &failed, &stalled, &out->query_ms);
	out->nqueries++;
	if (failed) {
		out->state = stalled ? STATE_STALLED : STATE_DOWN;
		return -1;
	}
	out->mono = (t0 + clock_mono()) / 2;
	out->wall = clock_wall();
	while (res && (row = mysql_fetch_row(res))) {
		if (!row[0] || !parse_u64(row[1], &v))
			continue;
		if (strcasecmp(row[0], "Uptime") == 0) {
			uptime = v;
			continue;
		}
		for (i = 0; i < sizeof status_map / sizeof status_map[0]; i++)
			if (strcasecmp(row[0], status_map[i].name) == 0)
				sample_set(out, status_map[i].ctr, v, 0);
	}
	if (res)
		mysql_free_result(res);
	if (uptime < p->last_uptime)
		p->restarts++;
	p->last_uptime = uptime;
	for (i = 0; i < CTR__COUNT; i++)
		out->c[i].epoch = p->restarts;

	/* redo and binlog file syncs from performance_schema */
	if (c->ps_redo_file || c->ps_binlog_file) {
		res = my_query(src,
			       "SELECT EVENT_NAME, COUNT_MISC, SUM_TIMER_MISC "
			       "FROM performance_schema.file_summary_by_event_name "
			       "WHERE EVENT_NAME IN ('" REDO_EVENT "','" BINLOG_EVENT "')",
			       out->error, sizeof out->error, &failed, &stalled, &out->query_ms);
		out->nqueries++;
		if (failed) {
			out->state = stalled ? STATE_STALLED : STATE_DOWN;
			return -1;
		}
		while (res && (row = mysql_fetch_row(res))) {
			uint64_t n, ps;
			if (!row[0] || !parse_u64(row[1], &n) || !parse_u64(row[2], &ps))
				continue;
			if (strcmp(row[0], REDO_EVENT) == 0 && c->ps_redo_file) {
				if (!c->has_os_log_fsyncs)
					sample_set(out, CTR_REDO_FSYNCS, n, p->restarts);
				sample_set(out, CTR_REDO_FSYNC_NS, ps / 1000, p->restarts);
			} else if (strcmp(row[0], BINLOG_EVENT) == 0 && c->ps_binlog_file) {
				sample_set(out, CTR_BINLOG_FSYNCS, n, p->restarts);
				sample_set(out, CTR_BINLOG_FSYNC_NS, ps / 1000, p->restarts);
			}
		}
		if (res)
			mysql_free_result(res);
	}
	/* the redo time must go with the redo count it was measured with */
	if (c->has_os_log_fsyncs)
		out->c[CTR_REDO_FSYNC_NS].present = false;
	else if (!c->ps_redo_file && out->c[CTR_DATA_FSYNCS].present)
		out->c[CTR_REDO_FSYNCS] = out->c[CTR_DATA_FSYNCS];

	/* derived generic counters */
	if (out->c[CTR_REDO_FSYNCS].present) {
		uint64_t f = out->c[CTR_REDO_FSYNCS].v;
		if (out->c[CTR_BINLOG_FSYNCS].present)
			f += out->c[CTR_BINLOG_FSYNCS].v;
		sample_set(out, CTR_FSYNCS, f, p->restarts);
	}
	if (c->flavour == FLAVOUR_MARIADB && c->binlog_on && out->c[CTR_BINLOG_COMMITS].present)
		out->c[CTR_COMMITS] = out->c[CTR_BINLOG_COMMITS];
	else if (out->c[CTR_COM_COMMIT].present)
		out->c[CTR_COMMITS] = out->c[CTR_COM_COMMIT];

	if (want_settings) {
		res = my_query(src,
			       "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_flush_log_at_trx_commit',"
			       "'sync_binlog','innodb_flush_method','innodb_doublewrite','log_bin',"
			       "'binlog_commit_wait_count','binlog_commit_wait_usec',"
			       "'binlog_group_commit_sync_delay','innodb_log_file_size')",
			       out->error, sizeof out->error, &failed, &stalled, &out->query_ms);
		out->nqueries++;
		if (failed) {
			out->state = stalled ? STATE_STALLED : STATE_DOWN;
			return -1;
		}
		while (res && (row = mysql_fetch_row(res)))
			if (row[0])
				sample_setting(out, row[0], row[1]);
		if (res)
			mysql_free_result(res);
		out->settings_fresh = true;
	}
	return 0;
}

const struct source_ops mysql_source_ops = {
	.name = "mysql",
	.connect = my_connect,
	.sample = my_sample,
	.close = my_close,
};
