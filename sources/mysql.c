/* mysql.c - MySQL / MariaDB backend (libmysqlclient / MariaDB Connector/C).
 * Every statement runs under a client read/write timeout and a server-side
 * statement time limit. */
#include "source.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <mysql.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <errmsg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

#include "../util/redact.h"
#include "../util/util.h"
#include "../model/digests.h"
#include "fallback.h"
#include "pace.h"
#include "mysql_map.h"
#include "repl_map.h"
#include "sessions_map.h"
#include "mariadb_rowlocks.h"
#include "mysql_locks_map.h"
#include "../model/locks.h"
#include "../model/waits.h"

#define TEXT_FETCH_MAX 100   /* digest texts fetched per refresh */


/* MariaDB ER_STATEMENT_TIMEOUT and MySQL ER_QUERY_TIMEOUT */
#define ERR_MARIADB_STMT_TIMEOUT 1969
#define ERR_MYSQL_QUERY_TIMEOUT 3024

#define MY_OWN_SIGS 256    /* distinct statements of dbtop's own remembered */
#define MY_CAND_MAX 4096   /* digests kept to check against dbtop's later statements */

/* A digest whose text is not (yet) one of dbtop's own: its signature's
 * hash and length, and whether the server cut the text short (the
 * signature then ends before its last word). */
struct my_cand {
	char key[200];
	uint64_t h;
	size_t len;
	bool cut;
};
#define MY_SIG_LEN 2048

/* A status row of the last read of every counter, shown again by the
 * refreshes between two such reads (my_status_paced). */
#define MY_HELD_ROWS 40
struct my_held_row {
	char name[48];
	char value[32];
};

struct my_priv {
	MYSQL *db;
	uint64_t last_uptime;
	uint64_t restarts;       /* bumps when Uptime goes down */
	char last_seen[40];      /* newest digest LAST_SEEN read, as the server prints it */
	struct strset texts;     /* digest keys whose text we have */
	struct text_cache sess_texts; /* the session list's statement texts, kept once per text */
	bool fb_on;              /* sampled digests: no performance_schema digests */
	/* the digests' gap (issue 25): server-side prepared statements have no
	 * digest row; their sessions (COMMAND Execute) are sampled instead, in
	 * fb, and added to the digest set as estimates ("s:" keys) */
	bool fill_on;
	bool fill_have_prev;
	uint64_t fill_stmts, fill_exec; /* the counters at the previous sample */
	unsigned long fill_rounds;      /* fb.rounds when the estimates were last added */
	struct pacer dg_pace;    /* digest reads (--server-budget) */
	struct fallback fb;
	struct my_hist_pick pick; /* whose latency histograms to read */
	int mdl_plugin;          /* MariaDB metadata_lock_info: -1 not probed yet, 0, 1 */
	/* dbtop's own statements, counted here rather than read from the
	 * per-thread summary (no index on MariaDB: a scan of every thread) */
	bool own_counted;        /* the server counts this connection's statements (thread instrumented) */
	uint64_t own_n;          /* statements this connection completed */
	uint64_t own_ns;         /* their round trips, ns (dbtop's clock: a bound of their server time) */
	/* reads that add up every thread or session, paced by their server
	 * time under --server-budget */
	struct pacer stmt_pace;  /* the statement summary (COMMIT latency, statement counts) */
	struct pacer mdl_pace;   /* the metadata-lock check */
	unsigned mdl_last;       /* its last count */
	double mdl_mono;         /* when it was read (monotonic s), 0: not yet */
	double mdl_ms;           /* its server time, ms */
	double waits_ms;         /* the wait summary's server time, ms */
	double waits_every;      /* s between its reads now */
	double fixed_ms;         /* server time of this refresh's unpaced reads so far, ms */
	double summary_ms;       /* server time of this refresh's summaries so far, ms (src->summary_ms) */
	char *own_sig[MY_OWN_SIGS];   /* signatures of the statements dbtop sent (my_sig) */
	size_t nown_sig;
	struct strset own_keys;  /* digest keys whose text is one of dbtop's own statements */
	struct my_cand *cand;    /* digests whose text matched none (yet): checked again when dbtop
				  * sends a statement of a new kind (the digest table outlives dbtop) */
	size_t ncand, capcand;
	struct strset own_checked; /* digest keys whose text was checked */
	struct pacer waits_pace; /* wait summary reads */
	double trx_read;         /* monotonic s of the last lock query (it reads INNODB_TRX) */
	double joined_ms;        /* server round trip of this refresh's joined read (my_read_joined) */
	/* the status read (my_read_status): every counter when due, else the
	 * LIKE reads of those of every refresh (MariaDB, log_bin ON) */
	struct pacer sum_pace; /* the read of every counter */
	double full_ms;        /* the read of every counter's round trip, ms (smoothed) */
	double like_ms;        /* the LIKE reads' round trips, ms (smoothed), 0: none yet */
	bool sum_costly;       /* the read of every counter is paced (pace_costly) */
	double uptime_mono;    /* monotonic s of last_uptime */
	/* semi-sync ON, or any of its counters above 0, at the last read of
	 * every counter: its status is read every refresh */
	bool semi_used;
	struct my_held_row held[MY_HELD_ROWS]; /* that read's rows the LIKE reads leave out */
	size_t nheld;
};

/* InnoDB refreshes the INNODB_TRX / INNODB_LOCKS cache only when no one
 * has read it for 0.1 s (trx0i_s.cc, CACHE_MIN_IDLE_TIME_US): the identity
 * check waits that long after dbtop's own lock query, so that its read
 * is fresh unless other clients read those tables more often. */
#define MY_TRX_CACHE_IDLE_S 0.12

/* The client's message, with the words for an errno it gives as a bare
 * number ("system error: 110" -> "... 110 (Connection timed out)"), in buf
 * and sanitised: the server's text may quote a user name or a statement
 * with control characters or terminal escapes in it. Returns buf. */
static const char *my_errtext(MYSQL *db, char *buf, size_t len)
{
	const char *m = mysql_error(db), *k = strstr(m, "system error: ");
	char *end;
	long e = 0;
	if (k) {
		e = strtol(k + 14, &end, 10);
		if (end == k + 14 || e > 4095)
			e = 0;
	}
	if (e > 0)
		str_printf(buf, len, "%s (%s)", m, strerror((int)e));
	else
		str_copy(buf, len, m);
	text_sanitize(buf);
	return buf;
}

/* The signature of a statement: its words (keywords and identifiers,
 * upper-cased, backquotes dropped) in order, without literals (quoted
 * strings, numbers, NULL, TRUE, FALSE), which the server's digest text
 * replaces by ? or (...). A statement dbtop sent and the digest text the
 * server made of it have the same signature (the digest text's may be cut
 * short). Writes at most len bytes to out. */
static void my_sig(const char *q, char *out, size_t len)
{
	size_t n = 0;
	out[0] = '\0';
	while (*q && n + 2 < len) {
		unsigned char ch = (unsigned char)*q;
		if (ch == '\'' || ch == '"') {
			for (q++; *q && !(*q == (char)ch && q[1] != (char)ch); q++)
				if (*q == '\\' && q[1])
					q++;
				else if (*q == (char)ch)
					q++;   /* a doubled quote */
			if (*q)
				q++;
			continue;
		}
		if (isdigit(ch)) {
			while (isalnum((unsigned char)*q) || *q == '.' || *q == '_')
				q++;
			continue;
		}
		if (isalpha(ch) || ch == '_' || ch == '$' || ch == '`' || ch >= 0x80) {
			char w[256];
			size_t k = 0;
			bool bq = ch == '`';
			if (bq)
				q++;
			while (*q && (bq ? *q != '`' : (isalnum((unsigned char)*q) || *q == '_' || *q == '$' ||
						       (unsigned char)*q >= 0x80))) {
				if (k + 1 < sizeof w)
					w[k++] = (char)toupper((unsigned char)*q);
				q++;
			}
			if (bq && *q)
				q++;
			w[k] = '\0';
			if (!k || strcmp(w, "NULL") == 0 || strcmp(w, "TRUE") == 0 || strcmp(w, "FALSE") == 0)
				continue;
			/* the server's digest spells some keywords its own way */
			if (strcmp(w, "DISTINCTROW") == 0)
				str_copy(w, sizeof w, "DISTINCT");
			n += (size_t)snprintf(out + n, len - n, "%s%s", n ? " " : "", w);
			if (n >= len)
				n = len - 1;
			continue;
		}
		q++;
	}
	out[n < len ? n : len - 1] = '\0';
}

/* True when own signature sig is the candidate c's. */
static bool my_cand_is(const struct my_cand *c, const char *sig)
{
	size_t n = strlen(sig);
	if (c->cut ? n < c->len || (sig[c->len] != ' ' && sig[c->len] != '\0') : n != c->len)
		return false;
	return hash_bytes(0, sig, c->len) == c->h;
}

/* Remember the signature of statement q as dbtop's own; digests seen
 * before with that signature become dbtop's own. */
static void my_own_note(struct my_priv *p, const char *q)
{
	char sig[MY_SIG_LEN];
	my_sig(q, sig, sizeof sig);
	for (size_t i = 0; i < p->nown_sig; i++)
		if (strcmp(p->own_sig[i], sig) == 0)
			return;
	if (p->nown_sig < MY_OWN_SIGS)
		p->own_sig[p->nown_sig++] = xstrdup(sig);
	for (size_t i = 0; i < p->ncand;) {
		if (my_cand_is(&p->cand[i], sig)) {
			strset_add(&p->own_keys, p->cand[i].key);
			p->cand[i] = p->cand[--p->ncand];
		} else {
			i++;
		}
	}
}

/* Digest key's text: dbtop's own statement (its key goes to own_keys), or
 * kept as a candidate for statements dbtop sends later. */
static void my_own_text(struct my_priv *p, const char *key, const char *text)
{
	char sig[MY_SIG_LEN];
	struct my_cand c;
	my_sig(text, sig, sizeof sig);
	size_t n = strlen(sig);
	if (!n)
		return;
	memset(&c, 0, sizeof c);
	str_copy(c.key, sizeof c.key, key);
	/* the server cuts a long digest text: all but its last (maybe cut) word */
	char *sp = strrchr(sig, ' ');
	c.cut = n >= 200 && sp;
	c.len = c.cut ? (size_t)(sp - sig) : n;
	c.h = hash_bytes(0, sig, c.len);
	for (size_t i = 0; i < p->nown_sig; i++)
		if (my_cand_is(&c, p->own_sig[i])) {
			strset_add(&p->own_keys, key);
			return;
		}
	if (p->ncand == MY_CAND_MAX)
		return;
	if (p->ncand == p->capcand) {
		p->capcand = p->capcand ? p->capcand * 2 : 64;
		p->cand = xrealloc(p->cand, p->capcand * sizeof *p->cand);
	}
	p->cand[p->ncand++] = c;
}

/* Run q; r says whether it failed (why, and whether it was the time
 * limit) and how long it took. Returns the result set (NULL for statements
 * without one, and on failure). Caller frees the result. */
static MYSQL_RES *my_query(struct source *src, const char *q, struct qres *r)
{
	struct my_priv *p = src->priv;
	double t0 = clock_mono(), el;
	MYSQL_RES *res = NULL;
	my_own_note(p, q);
	int rc = mysql_real_query(p->db, q, (unsigned long)strlen(q));
	if (rc == 0)
		res = mysql_store_result(p->db);
	el = clock_mono() - t0;
	r->ms = el * 1000.0;
	p->own_n++;
	p->own_ns += (uint64_t)(el * 1e9);
	r->failed = r->stalled = false;
	r->err[0] = '\0';
	if (rc != 0 || (!res && mysql_field_count(p->db) != 0)) {
		unsigned e = mysql_errno(p->db);
		char eb[NOTE_LEN];
		r->failed = true;
		r->stalled = e == ERR_MARIADB_STMT_TIMEOUT || e == ERR_MYSQL_QUERY_TIMEOUT ||
			     ((e == CR_SERVER_LOST || e == CR_SERVER_GONE_ERROR) && el >= src->query_timeout * 0.9);
		if (r->stalled)
			str_printf(r->err, sizeof r->err, "query exceeded %.1fs time limit (%s)", src->query_timeout,
				   my_errtext(p->db, eb, sizeof eb));
		else
			str_printf(r->err, sizeof r->err, "%s (error %u)", my_errtext(p->db, eb, sizeof eb), e);
	}
	return res;
}

/* Run q, whose result is not read. Returns 0, or -1 with the reason in
 * err. */
static int my_exec(struct source *src, const char *q, char *err, size_t errlen)
{
	struct qres qr;
	MYSQL_RES *res = my_query(src, q, &qr);
	if (res)
		mysql_free_result(res);
	if (!qr.failed)
		return 0;
	str_copy(err, errlen, qr.err);
	return -1;
}

/* Run q, a statement of the sample, counted in out; its result in *res.
 * Returns 0, or -1: the sample failed (out->error, out->state). */
static int my_sample_query(struct source *src, struct sample *out, const char *q, MYSQL_RES **res)
{
	struct qres qr;
	*res = my_query(src, q, &qr);
	qres_count(out, &qr);
	return qr.failed ? qres_fail(out, &qr) : 0;
}

/* The first n cells of a row of nf columns into cells (the rest left). */
static void my_cells(MYSQL_ROW row, unsigned nf, const char **cells, size_t n)
{
	for (size_t i = 0; i < n && i < nf; i++)
		cells[i] = row[i];
}

static void my_close(struct source *src)
{
	struct my_priv *p = src->priv;
	if (!p)
		return;
	if (p->db)
		mysql_close(p->db);
	strset_clear(&p->texts);
	text_cache_free(&p->sess_texts);
	strset_clear(&p->own_keys);
	strset_clear(&p->own_checked);
	for (size_t i = 0; i < p->nown_sig; i++)
		free(p->own_sig[i]);
	free(p->cand);
	fallback_free(&p->fb);
	mysql_hist_pick_free(&p->pick);
	free(p);
	src->priv = NULL;
}

/* The server's identity (caps.server_id / server_label): MySQL's
 * server_uuid; MariaDB has none, so server_id with the host name, port and
 * data directory. Left empty, with the reason in the label, on failure. */
static void my_identity(struct source *src)
{
	struct caps *c = &src->caps;
	bool mysql = c->flavour == FLAVOUR_MYSQL;
	char a[80], h[64], port[16], dir[200];
	struct qres qr;
	MYSQL_RES *res = my_query(src, mysql ? "SELECT @@server_uuid, @@hostname, @@port, ''"
					     : "SELECT @@server_id, @@hostname, @@port, @@datadir", &qr);
	MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
	c->server_id[0] = '\0';
	if (!row || !row[0] || !*row[0]) {
		str_printf(c->server_label, sizeof c->server_label, "the server's identity is unreadable: %s",
			   qr.failed ? qr.err : "no value");
		if (res)
			mysql_free_result(res);
		return;
	}
	str_copy(a, sizeof a, row[0]);
	str_copy(h, sizeof h, row[1] ? row[1] : "");
	str_copy(port, sizeof port, row[2] ? row[2] : "");
	str_copy(dir, sizeof dir, row[3] ? row[3] : "");
	mysql_free_result(res);
	text_sanitize(a);
	text_sanitize(h);
	text_sanitize(dir);
	if (mysql) {
		str_printf(c->server_id, sizeof c->server_id, "mysql:%s", a);
		str_printf(c->server_label, sizeof c->server_label, "MySQL %s:%s (server_uuid %s)", h, port, a);
	} else {
		char full[400];
		str_printf(full, sizeof full, "mariadb:%s:%s:%s:%s", a, h, port, dir);
		/* a long data directory: its start and a hash of the whole (two
		 * servers never share an identity by a cut-off path) */
		if (strlen(full) >= sizeof c->server_id)
			str_printf(c->server_id, sizeof c->server_id, "%.130s#%016llx", full,
				   (unsigned long long)hash_str(full));
		else
			str_copy(c->server_id, sizeof c->server_id, full);
		str_printf(c->server_label, sizeof c->server_label, "MariaDB %s:%s (server_id %s, %s)", h, port, a, dir);
	}
}

/* The log directories (caps.logdev) when the server is on this host: the
 * redo directory (innodb_log_group_home_dir, relative to datadir), the
 * binlog's (log_bin_basename) and datadir; one statement per connection. */
static void my_logdirs(struct source *src)
{
	struct my_priv *p = src->priv;
	struct caps *c = &src->caps;
	const char *hi = mysql_get_host_info(p->db);
	struct qres qr;
	if (!source_host_local(hi)) {
		char at[96];
		str_copy(at, sizeof at, hi ? hi : "?");
		at[strcspn(at, " ")] = '\0';
		source_logdev_remote(c, at);
		return;
	}
	MYSQL_RES *res = my_query(src,
				  "SELECT @@datadir, @@innodb_log_group_home_dir, @@log_bin_basename, @@hostname, "
				  "@@pid_file",
				  &qr);
	if (!res)
		res = my_query(src, "SELECT @@datadir, @@innodb_log_group_home_dir, NULL, @@hostname, @@pid_file", &qr);
	MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
	/* a forwarded port (a container's, a tunnel's) looks local: the
	 * server's host name says whether it runs here */
	char here[256] = "";
	if (row && row[3] && gethostname(here, sizeof here - 1) == 0 && here[0] && strcmp(here, row[3]) != 0) {
		char them[64];
		str_copy(them, sizeof them, row[3]);
		text_sanitize(them);
		c->logdev.state = LDS_UNSEEN;
		str_printf(c->logdev.note, sizeof c->logdev.note,
			   "the server runs on host %s, not here (%.60s): a forwarded port or another container; the log "
			   "device's figures need dbtop where the server runs", them, here);
		mysql_free_result(res);
		return;
	}
	if (!row || !row[0]) {
		c->logdev.state = LDS_UNSEEN;
		str_printf(c->logdev.note, sizeof c->logdev.note, "the server's directories are unreadable: %s",
			   qr.failed ? qr.err : "no value");
		if (res)
			mysql_free_result(res);
		return;
	}
	char data[160], redo[160], bin[160];
	str_copy(data, sizeof data, row[0]);
	/* a relative pid file is under datadir */
	if (mysql_num_fields(res) > 4 && row[4] && *row[4]) {
		if (row[4][0] == '/')
			str_copy(c->pid_file, sizeof c->pid_file, row[4]);
		else
			str_printf(c->pid_file, sizeof c->pid_file, "%s/%s", data, row[4]);
	}
	if (row[1] && row[1][0] == '/')
		str_copy(redo, sizeof redo, row[1]);
	else
		str_printf(redo, sizeof redo, "%s/%s", data, row[1] && strcmp(row[1], "./") != 0 ? row[1] : "");
	bin[0] = '\0';
	if (row[2] && *row[2]) {
		if (row[2][0] == '/')
			str_copy(bin, sizeof bin, row[2]);
		else
			str_printf(bin, sizeof bin, "%s/%s", data, row[2]);
		char *sl = strrchr(bin, '/');
		if (sl && sl != bin)
			*sl = '\0';
	}
	mysql_free_result(res);
	source_logdev_add(c, "redo", redo);
	source_logdev_add(c, "binlog", bin);
	source_logdev_add(c, "data", data);
}

/* Probe, the statement digests: the digest and histogram columns and the consumer
 * when performance_schema is readable; the notes when digests are off. */
static void my_probe_digests(struct source *src, bool readable)
{
	struct caps *c = &src->caps;
	MYSQL_RES *res;
	MYSQL_ROW row;
	struct qres qr;

	if (readable) {
		bool consumer = false;
		res = my_query(src,
			       "SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS "
			       "WHERE TABLE_SCHEMA = 'performance_schema' "
			       "AND TABLE_NAME IN ('events_statements_summary_by_digest', '" MY_HIST_TABLE "') "
			       "AND COLUMN_NAME IN ('DIGEST', 'QUANTILE_95', 'COUNT_BUCKET')",
			       &qr);
		while (res && (row = mysql_fetch_row(res)))
			mysql_caps_digest_column(c, row[0], row[1]);
		if (res)
			mysql_free_result(res);
		res = my_query(src, "SELECT ENABLED FROM performance_schema.setup_consumers "
			       "WHERE NAME = 'statements_digest'", &qr);
		if (res && (row = mysql_fetch_row(res)) && row[0] && strcasecmp(row[0], "YES") == 0)
			consumer = true;
		if (res)
			mysql_free_result(res);
		if (c->ps_digests && !consumer) {
			c->ps_digests = false;
			notes_add(&c->notes, "digests: the statements_digest consumer is off: UPDATE "
				  "performance_schema.setup_consumers SET ENABLED='YES' WHERE NAME='statements_digest'");
		}
	}
	if (!c->ps_digests)
		notes_add(&c->notes, "digests unavailable: needs performance_schema=ON (restart) and "
			  "SELECT on performance_schema.*");
	if (!c->ps_digests)
		c->ps_digest_hist = false;
}

/* Probe flavour, version, performance_schema, privileges, counters. */
static int my_probe(struct source *src, char *err, size_t errlen)
{
	struct caps *c = &src->caps;
	MYSQL_RES *res;
	MYSQL_ROW row;
	bool has_os_log_fsyncs = false;
	char q[96];
	struct qres qr, ps = {0};

	res = my_query(src, "SELECT VERSION(), @@version_comment, @@performance_schema, @@log_bin", &qr);
	if (qr.failed) {
		str_copy(err, errlen, qr.err);
		return -1;
	}
	row = res ? mysql_fetch_row(res) : NULL;
	if (!row) {
		if (res)
			mysql_free_result(res);
		str_copy(err, errlen, "server returned no version");
		return -1;
	}
	mysql_caps_version(c, row[0], row[1], row[2], row[3]);
	mysql_free_result(res);

	/* server-side time limit for our own statements */
	if (c->flavour == FLAVOUR_MARIADB)
		str_printf(q, sizeof q, "SET SESSION max_statement_time=%.3f", src->query_timeout);
	else
		str_printf(q, sizeof q, "SET SESSION max_execution_time=%ld",
			   (long)(src->query_timeout * 1000));
	res = my_query(src, q, &qr);
	if (res)
		mysql_free_result(res);

	/* privileges of the current account */
	res = my_query(src,
		       "SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES "
		       "WHERE GRANTEE = CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(),'@',1), '''@''', "
		       "SUBSTRING_INDEX(CURRENT_USER(),'@',-1), '''')",
		       &qr);
	while (res && (row = mysql_fetch_row(res)))
		mysql_caps_privilege(c, row[0]);
	if (res)
		mysql_free_result(res);

	if (c->perf_schema) {
		res = my_query(src,
			       "SELECT NAME, ENABLED, TIMED FROM performance_schema.setup_instruments "
			       "WHERE NAME IN ('" MY_REDO_EVENT "','" MY_BINLOG_EVENT "')",
			       &ps);
		while (res && (row = mysql_fetch_row(res)))
			mysql_caps_instrument(c, row[0], row[1], row[2]);
		if (res)
			mysql_free_result(res);
	}

	my_probe_digests(src, c->perf_schema && !ps.failed);
	res = my_query(src, "SHOW GLOBAL STATUS LIKE 'Innodb_os_log_fsyncs'", &qr);
	if (res) {
		has_os_log_fsyncs = mysql_num_rows(res) > 0;
		mysql_free_result(res);
	}
	mysql_caps_finish(c, has_os_log_fsyncs, ps.failed ? ps.err : NULL);
	my_identity(src);
	my_logdirs(src);
	return 0;
}

/* TLS options by --ssl-mode, for MariaDB Connector/C 3.x: a CA file makes
 * it check the chain (not the name); MYSQL_OPT_SSL_VERIFY_SERVER_CERT adds
 * the name (and refuses a server without TLS); MYSQL_OPT_SSL_ENFORCE asks
 * for TLS but, without a verification, does not refuse a server that has
 * none: my_tls_check says so after the handshake. A CA given is used in
 * every mode but DISABLED. */
static void my_tls_options(MYSQL *db, const struct target *t, enum ssl_mode m)
{
	my_bool on = 1, off = 0;

	if (m == SSL_MODE_DISABLED) {
		mysql_options(db, MYSQL_OPT_SSL_ENFORCE, &off);
		return;
	}
	if (m == SSL_MODE_PREFERRED)
		mysql_ssl_set(db, NULL, NULL, NULL, NULL, NULL);
	if (m >= SSL_MODE_REQUIRED)
		mysql_options(db, MYSQL_OPT_SSL_ENFORCE, &on);
	if (m == SSL_MODE_VERIFY_IDENTITY)
		mysql_options(db, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &on);
	if (t->ssl_ca && *t->ssl_ca)
		mysql_options(db, MYSQL_OPT_SSL_CA, t->ssl_ca);
	if (t->ssl_cert && *t->ssl_cert)
		mysql_options(db, MYSQL_OPT_SSL_CERT, t->ssl_cert);
	if (t->ssl_key && *t->ssl_key)
		mysql_options(db, MYSQL_OPT_SSL_KEY, t->ssl_key);
}

/* Connector/C reports a missing certificate file without its name: check
 * first. Returns -1 with a message in err. */
static int my_tls_files(const struct target *t, enum ssl_mode m, char *err, size_t errlen)
{
	const char *names[] = {"ssl-ca", "ssl-cert", "ssl-key"};
	const char *files[] = {t->ssl_ca, t->ssl_cert, t->ssl_key};
	size_t i;
	if (m == SSL_MODE_DISABLED)
		return 0;
	for (i = 0; i < 3; i++) {
		FILE *f;
		if (!files[i] || !*files[i])
			continue;
		f = fopen(files[i], "r");
		if (!f) {
			str_printf(err, errlen, "cannot connect to %s: cannot read %s file %s: %s", t->label,
				   names[i], files[i], strerror(errno));
			return -1;
		}
		fclose(f);
	}
	return 0;
}

/* After the connection: REQUIRED and the verify modes refuse one without
 * TLS over TCP (a Unix socket is local: no TLS there, as for libpq).
 * Returns -1 with a message in err. */
static int my_tls_check(MYSQL *db, const struct target *t, enum ssl_mode m, const char *host,
			char *err, size_t errlen)
{
	bool unix_socket = !host || strcmp(host, "localhost") == 0;
	if (m < SSL_MODE_REQUIRED || unix_socket || mysql_get_ssl_cipher(db))
		return 0;
	str_printf(err, errlen, "cannot connect to %s: the server does not offer TLS (--ssl-mode %s)", t->label,
		   target_ssl_mode_name(m, ENGINE_MYSQL));
	return -1;
}

/* --read-only: this session's transactions read only, and a note of what
 * the server says about it. Returns 0, or -1 with the reason in err. */
static int my_read_only(struct source *src, char *err, size_t errlen)
{
	struct qres qr;
	if (my_exec(src, "SET SESSION TRANSACTION READ ONLY", err, errlen) < 0)
		return -1;
	/* the server's word on it (MySQL 8 has only transaction_read_only) */
	MYSQL_RES *res = my_query(src, "SELECT @@session.transaction_read_only", &qr);
	if (qr.failed)
		res = my_query(src, "SELECT @@session.tx_read_only", &qr);
	MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
	if (row && row[0] && strcmp(row[0], "1") == 0)
		notes_add(&src->caps.notes, "--read-only: this session is read-only (SET SESSION TRANSACTION READ ONLY; "
			  "the server reports transaction_read_only=1)");
	else
		notes_add(&src->caps.notes, "--read-only: the server does not report this session read-only; dbtop "
			  "still sends no write");
	if (res)
		mysql_free_result(res);
	return 0;
}

/* Whether performance_schema counts this connection's statements (its
 * thread is instrumented): then dbtop's own count is taken off the
 * server's. Read once per connection. */
static bool my_own_counted(struct source *src)
{
	struct qres qr;
	MYSQL_RES *res = my_query(src, "SELECT INSTRUMENTED FROM performance_schema.threads "
				  "WHERE PROCESSLIST_ID = CONNECTION_ID()", &qr);
	MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
	bool yes = row && row[0] && strcasecmp(row[0], "YES") == 0;
	if (res)
		mysql_free_result(res);
	return yes;
}

static int my_connect(struct source *src, char *err, size_t errlen)
{
	struct target *t = src->tgt;
	struct my_priv *p = xcalloc(1, sizeof *p);
	p->mdl_plugin = -1;
	unsigned ct = (unsigned)d_ceil(t->connect_timeout);
	unsigned rt = (unsigned)d_ceil(src->query_timeout);
	const char *host = t->host;
	my_bool off = 0;
	enum ssl_mode tls = target_ssl_mode_effective(t);

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
	if (my_tls_files(t, tls, err, errlen) < 0) {
		my_close(src);
		return -1;
	}
	my_tls_options(p->db, t, tls);
	if (!host && t->socket)
		host = "localhost";
	if (!mysql_real_connect(p->db, host, t->user, t->password, t->database,
				(unsigned)t->port, t->socket, 0)) {
		char eb[NOTE_LEN];
		const char *m = my_errtext(p->db, eb, sizeof eb);
		/* Connector/C's word for a certificate not naming the host */
		if (tls == SSL_MODE_VERIFY_IDENTITY && strstr(m, "Validation of SSL server certificate failed"))
			str_printf(err, errlen, "cannot connect to %s: %s (VERIFY_IDENTITY: the certificate must "
				   "name the host %s)", t->label, m, host ? host : "localhost");
		else
			str_printf(err, errlen, "cannot connect to %s: %s", t->label, m);
		my_close(src);
		return -1;
	}
	if (my_tls_check(p->db, t, tls, host, err, errlen) < 0) {
		my_close(src);
		return -1;
	}
	if (my_probe(src, err, errlen) < 0) {
		my_close(src);
		return -1;
	}
	if (src->read_only && my_read_only(src, err, errlen) < 0) {
		my_close(src);
		return -1;
	}
	/* this connection's statements are dbtop's own, not the server's
	 * load (issue 25): counted as they are sent */
	if (src->caps.ps_readable)
		p->own_counted = my_own_counted(src);
	/* no statement statistics: sample the process list instead */
	p->fb_on = !src->caps.ps_digests && src->caps.priv_process;
	fallback_init(&p->fb, src->sub_hz);
	src->wants_subsample = p->fb_on;
	if (p->fb_on)
		notes_add(&src->caps.notes, "digests are sampled from the process list at up to %g Hz "
			  "(estimates; short statements are missed): performance_schema=ON gives exact figures",
			  src->sub_hz);
	return 0;
}

/* Prepared statements' share of the statements at which their sessions
 * are sampled (and below which they no longer are). */
#define FILL_ON_SHARE 0.3
#define FILL_OFF_SHARE 0.05
#define FILL_MIN_STMTS 20   /* statements per sample needed to decide */
#define FILL_MIN_ROUNDS 10  /* looks at the sessions between two sets of estimates alone */

/* Start or stop sampling the sessions that run prepared statements, from
 * this sample's statement counters. */
static void my_fill_decide(struct source *src, const struct sample *out)
{
	struct my_priv *p = src->priv;
	const struct ctr *st = &out->c[CTR_STMTS], *ex = &out->c[CTR_EXEC_STMTS];
	if (p->fb_on || !src->caps.priv_process || !st->present || !ex->present)
		return;
	/* the first sample of a connection decides on the totals since the
	 * server started (or its statistics were reset) */
	uint64_t s0 = p->fill_have_prev ? p->fill_stmts : 0, e0 = p->fill_have_prev ? p->fill_exec : 0;
	if (st->v >= s0 && ex->v >= e0) {
		double ds = (double)(st->v - s0), de = (double)(ex->v - e0);
		if (ds >= FILL_MIN_STMTS) {
			if (!p->fill_on && de >= FILL_ON_SHARE * ds) {
				p->fill_on = true;
				p->fill_rounds = 0;
				fallback_free(&p->fb);
				fallback_init(&p->fb, src->sub_hz);
			} else if (p->fill_on && de < FILL_OFF_SHARE * ds) {
				p->fill_on = false;
			}
		}
	}
	p->fill_stmts = st->v;
	p->fill_exec = ex->v;
	p->fill_have_prev = true;
	src->wants_subsample = p->fill_on;
}

/* Append the sampled prepared statements (fb) to the digest set. */
static void my_fill_add(struct my_priv *p, struct digest_set *set)
{
	char name[64];
	/* the first estimates wait for enough looks at the sessions */
	if (!p->fill_on || p->fb.rounds < (p->fill_rounds ? 1 : FILL_MIN_ROUNDS))
		return;
	p->fill_rounds = p->fb.rounds;
	str_printf(name, sizeof name, "prepared");
	struct digest_set *fs = fallback_build(&p->fb, name, clock_mono());
	if (!fs)
		return;
	for (size_t i = 0; i < fs->n; i++) {
		struct digest_row *r = digest_set_add(set);
		*r = fs->rows[i];
		fs->rows[i].text = NULL;   /* moved */
	}
	set->est_rounds = fs->rounds;
	digest_set_free(fs);
}

/* One look at the running statements for the sampled digests; the last
 * row (UNION ALL runs it last) carries the server's own time for the
 * statement in its fifth column, into src->sub_server_ms (MariaDB:
 * SYSDATE(6) is the time of the call, NOW(6) the statement's start). */
static void my_subsample(struct source *src)
{
	struct my_priv *p = src->priv;
	MYSQL_RES *res;
	MYSQL_ROW row;
	struct qres qr;
	bool maria = src->caps.flavour == FLAVOUR_MARIADB;
	if (!p || !(p->fb_on || p->fill_on))
		return;
	/* the gap's sessions run prepared statements: COMMAND Execute */
	res = my_query(src, maria
		       ? (p->fill_on ? "SELECT ID, DB, TIME_MS / 1000, INFO, NULL FROM information_schema.PROCESSLIST "
				       "WHERE COMMAND = 'Execute' AND ID <> CONNECTION_ID() AND INFO IS NOT NULL "
				       "UNION ALL SELECT NULL, NULL, NULL, NULL, "
				       "TIMESTAMPDIFF(MICROSECOND, NOW(6), SYSDATE(6)) / 1000"
				     : "SELECT ID, DB, TIME_MS / 1000, INFO, NULL FROM information_schema.PROCESSLIST "
				       "WHERE COMMAND = 'Query' AND ID <> CONNECTION_ID() AND INFO IS NOT NULL "
				       "UNION ALL SELECT NULL, NULL, NULL, NULL, "
				       "TIMESTAMPDIFF(MICROSECOND, NOW(6), SYSDATE(6)) / 1000")
		       : (p->fill_on ? "SELECT ID, DB, TIME, INFO FROM information_schema.PROCESSLIST "
				       "WHERE COMMAND = 'Execute' AND ID <> CONNECTION_ID() AND INFO IS NOT NULL"
				     : "SELECT ID, DB, TIME, INFO FROM information_schema.PROCESSLIST "
				       "WHERE COMMAND = 'Query' AND ID <> CONNECTION_ID() AND INFO IS NOT NULL"),
		       &qr);
	if (qr.failed)
		return;
	p->fb.hz = src->sub_hz;
	fallback_round(&p->fb, clock_mono());
	while (res && (row = mysql_fetch_row(res))) {
		if (maria && !row[0] && row[4])
			src->sub_server_ms = strtod(row[4], NULL);
		else
			fallback_observe(&p->fb, row[0] ? strtoull(row[0], NULL, 10) : 0, NULL,
					 row[2] ? strtod(row[2], NULL) : 0, row[1], row[3]);
	}
	if (res)
		mysql_free_result(res);
}

/* The digest rows changed since the last read (all on the first read)
 * into set. Returns 0, or -1 (sample failed). */
static int my_digest_rows(struct source *src, struct sample *out, struct digest_set *set)
{
	struct my_priv *p = src->priv;
	char q[1024], newest[40];
	MYSQL_ROW row;

	str_copy(newest, sizeof newest, p->last_seen);
	MYSQL_RES *res;
	if (my_sample_query(src, out, mysql_digest_sql(&src->caps, p->last_seen, q, sizeof q), &res) < 0)
		return -1;
	unsigned nf = res ? mysql_num_fields(res) : 0;
	while (res && (row = mysql_fetch_row(res))) {
		const char *cells[MYD__COUNT] = {0};
		my_cells(row, nf, cells, MYD__COUNT);
		mysql_map_digest(set, cells, (int)nf);
		if (row[MYD_LAST_RAW] && strcmp(row[MYD_LAST_RAW], newest) > 0)
			str_copy(newest, sizeof newest, row[MYD_LAST_RAW]);
	}
	if (res)
		mysql_free_result(res);
	str_copy(p->last_seen, sizeof p->last_seen, newest);
	return 0;
}

/* The texts of the digests of set not seen yet (bounded per refresh).
 * Returns 0, or -1 (sample failed). */
static int my_fetch_texts(struct source *src, struct sample *out, struct digest_set *set)
{
	struct my_priv *p = src->priv;
	struct strbuf in, tq;
	MYSQL_ROW row;
	size_t i, nfetch = 0;

	sb_init(&in);
	for (i = 0; i < set->n && nfetch < TEXT_FETCH_MAX; i++) {
		const char *d = strrchr(set->rows[i].key, '/');
		if (set->rows[i].text || strset_has(&p->texts, set->rows[i].key) || !d)
			continue;
		d++;
		if (strspn(d, "0123456789abcdefABCDEF") != strlen(d) || !*d)
			continue;
		sb_puts(&in, nfetch ? ",'" : "'");
		sb_puts(&in, d);
		sb_puts(&in, "'");
		nfetch++;
	}
	if (!nfetch) {
		sb_free(&in);
		return 0;
	}
	sb_init(&tq);
	sb_printf(&tq, "SELECT SCHEMA_NAME, DIGEST, DIGEST_TEXT FROM "
		  "performance_schema.events_statements_summary_by_digest WHERE DIGEST IN (%s)", in.s);
	sb_free(&in);
	MYSQL_RES *res;
	int rc = my_sample_query(src, out, tq.s, &res);
	sb_free(&tq);
	if (rc < 0)
		return -1;
	while (res && (row = mysql_fetch_row(res))) {
		char key[200];
		str_printf(key, sizeof key, "%s/%s", row[0] ? row[0] : "", row[1] ? row[1] : "(null)");
		text_sanitize(key);
		for (i = 0; i < set->n; i++)
			if (!set->rows[i].text && strcmp(set->rows[i].key, key) == 0) {
				set->rows[i].text = redact_secrets(row[2] ? row[2] : "");
				strset_add(&p->texts, key);
			}
	}
	if (res)
		mysql_free_result(res);
	return 0;
}

/* Latency histograms of the few digests of set that took the most time.
 * Returns 0 (a refusal: a note, no p95 this time), or -1 (sample failed:
 * a time limit or a client error). */
static int my_digest_hist(struct source *src, struct sample *out, struct digest_set *set)
{
	struct my_priv *p = src->priv;
	struct strbuf hq;
	MYSQL_ROW row;
	struct qres qr;
	int rc = 0;

	if (!src->caps.ps_digest_hist || mysql_hist_choose(&p->pick, set, MY_HIST_MAX) == 0)
		return 0;
	sb_init(&hq);
	if (mysql_hist_sql(set, &hq)) {
		MYSQL_RES *res = my_query(src, hq.s, &qr);
		qres_count(out, &qr);
		unsigned en = qr.failed ? mysql_errno(p->db) : 0;
		if (qr.failed && (qr.stalled || (en >= 2000 && en < 3000))) {
			rc = qres_fail(out, &qr);
		} else if (qr.failed) {
			/* the server refused the statement: no p95 this time */
			notes_add(&out->notes, "digest p95: %s", qr.err);
			for (size_t i = 0; i < set->nhist; i++)
				free(set->hist[i].b);
			set->nhist = 0;
		}
		unsigned nf = res ? mysql_num_fields(res) : 0;
		while (res && nf >= MYH__COUNT && (row = mysql_fetch_row(res))) {
			const char *cells[MYH__COUNT];
			my_cells(row, nf, cells, MYH__COUNT);
			mysql_map_hist(set, cells);
		}
		if (res)
			mysql_free_result(res);
	}
	sb_free(&hq);
	return rc;
}

/* Digest rows changed since the last read (all on the first read), with
 * the text of digests not seen before and dbtop's own marked. NULL on a
 * failed query (out->error and out->state set). */
static struct digest_set *my_digests(struct source *src, struct sample *out, bool have_lost, uint64_t lost)
{
	struct my_priv *p = src->priv;
	struct digest_set *set = xcalloc(1, sizeof *set);

	set->partial = p->last_seen[0] != '\0';
	set->have_lost = have_lost;
	set->lost = lost;
	str_copy(set->source, sizeof set->source, "performance_schema");
	if (my_digest_rows(src, out, set) < 0 || my_fetch_texts(src, out, set) < 0) {
		digest_set_free(set);
		return NULL;
	}
	for (size_t i = 0; i < set->n; i++) {
		struct digest_row *r = &set->rows[i];
		if (r->text) {
			strset_add(&p->texts, r->key);
			if (strset_add(&p->own_checked, r->key))
				my_own_text(p, r->key, r->text);
		}
		r->own = strset_has(&p->own_keys, r->key);
	}
	if (my_digest_hist(src, out, set) < 0) {
		digest_set_free(set);
		return NULL;
	}
	return set;
}

/* The refresh's performance_schema read: the redo and binlog file
 * syncs (per file class, cheap) at every refresh; the statement summary
 * and the wait summary, which add up every thread's counters, only when
 * due (my_ps_due), each followed by a mark of the server's clock so that
 * its own server time is known (MY_MARK_ROW: microseconds since the
 * statement began; UNION ALL runs its parts in order). */
#define MY_FILE_SQL                                                                                \
	"SELECT EVENT_NAME, COUNT_MISC, SUM_TIMER_MISC "                                           \
	"FROM performance_schema.file_summary_by_event_name "                                      \
	"WHERE EVENT_NAME IN ('" MY_REDO_EVENT "','" MY_BINLOG_EVENT "')"
#define MY_MARK_ROW "dbtop:t"
#define MY_MARK_SQL " UNION ALL SELECT '" MY_MARK_ROW "', TIMESTAMPDIFF(MICROSECOND, NOW(6), SYSDATE(6)), 0"
/* COMMIT and Execute rows and the total (ROLLUP) in one pass over the table */
#define MY_STMT_SUM_SQL                                                                            \
	" UNION ALL SELECT IFNULL(k, '" MY_STMTS_ROW "'), n, t FROM (SELECT IF(EVENT_NAME IN ('"   \
	MY_COMMIT_EVENT "','" MY_EXECUTE_EVENT "'), EVENT_NAME, 'dbtop:other') k, "                \
	"SUM(COUNT_STAR) n, SUM(SUM_TIMER_WAIT) t "                                                \
	"FROM performance_schema.events_statements_summary_global_by_event_name "                  \
	"GROUP BY k WITH ROLLUP) s"
/* wait events of the sessions (foreground threads: the accounts' rows;
 * background threads, whose timer and service loops wait on condition
 * variables all the time once every instrument is on, have no account)
 * that ever happened, for the waits pane (ps -> ns on reading); then the
 * consumers the summaries need (events_waits_current is not one) */
#define MY_WAITS_SQL \
	" UNION ALL SELECT CONCAT('w:', EVENT_NAME), SUM(COUNT_STAR), SUM(SUM_TIMER_WAIT) FROM " \
	"performance_schema.events_waits_summary_by_account_by_event_name WHERE `USER` IS NOT NULL " \
	"AND COUNT_STAR > 0 AND EVENT_NAME <> 'idle' GROUP BY EVENT_NAME" \
	" UNION ALL SELECT CONCAT('c:', NAME), ENABLED = 'YES', 0 FROM " \
	"performance_schema.setup_consumers WHERE NAME IN ('global_instrumentation', " \
	"'thread_instrumentation')"
/* a watched setting's row: the name follows */
#define MY_VAR_ROW "dbtop:v:"

/* What limits the wait profile: the redo-log and binlog file instruments
 * (probed at connect). */
static void my_wait_note(const struct caps *c, struct wait_set *ws)
{
	if (!c->ps_redo_file && !c->ps_binlog_file)
		str_copy(ws->note, sizeof ws->note,
			 "no redo-log or binlog file wait instrument is enabled and timed: UPDATE "
			 "performance_schema.setup_instruments SET ENABLED='YES', TIMED='YES' WHERE NAME IN "
			 "('wait/io/file/innodb/innodb_log_file','wait/io/file/sql/binlog')");
	else if (!c->ps_redo_file)
		str_copy(ws->note, sizeof ws->note,
			 "redo-log file waits: wait/io/file/innodb/innodb_log_file is not enabled and timed on this "
			 "server (MariaDB 10.8+ has no such instrument); binlog file waits are shown");
	else if (!c->ps_binlog_file && c->binlog_on)
		str_copy(ws->note, sizeof ws->note,
			 "binlog file waits: UPDATE performance_schema.setup_instruments SET ENABLED='YES', "
			 "TIMED='YES' WHERE NAME = 'wait/io/file/sql/binlog'");
}

/* Run a lock query; rows go to map (row), to the MariaDB metadata-lock
 * accumulator (mdl) or to MariaDB's row-lock one (rl). Returns 0, 1 when
 * the server refused or timed out (ls says why), -1 when the connection
 * is lost. */
static int my_lock_query(struct source *src, struct sample *out, struct lock_set *ls, const char *q,
			 struct mariadb_mdl *mdl, struct mariadb_rl *rl)
{
	struct my_priv *p = src->priv;
	struct qres qr;
	MYSQL_RES *res = my_query(src, q, &qr);
	MYSQL_ROW row;
	p->trx_read = clock_mono();
	qres_count(out, &qr);
	ls->query_ms += qr.ms;
	if (qr.failed) {
		unsigned e = mysql_errno(p->db);
		if (e == CR_SERVER_LOST || e == CR_SERVER_GONE_ERROR)
			return qres_fail(out, &qr);
		ls->status = qr.stalled ? LOCKS_TIMED_OUT : LOCKS_UNAVAILABLE;
		str_copy(ls->note, sizeof ls->note, qr.err);
		return 1;
	}
	unsigned nf = res ? mysql_num_fields(res) : 0;
	while (res && (row = mysql_fetch_row(res))) {
		if (mdl)
			mariadb_mdl_map_row(mdl, ls, (const char *const *)row, (int)nf);
		else if (rl)
			mariadb_rl_map_row(rl, (const char *const *)row, (int)nf);
		else
			mysql_locks_map_row(ls, (const char *const *)row, (int)nf);
	}
	if (res)
		mysql_free_result(res);
	return 0;
}

/* The metadata-lock check read every few refreshes: its age on the lock
 * pane (and in JSON), with why. */
static void my_mdl_age(struct source *src, struct lock_set *ls)
{
	struct my_priv *p = src->priv;
	double age = p->mdl_mono > 0 ? clock_mono() - p->mdl_mono : 0;
	if (!ls)
		return;
	if (p->mdl_mono == 0 && source_first_reads_wait(src, FIRST_LOCKS) && ls->status == LOCKS_IDLE && !ls->note[0])
		str_copy(ls->note, sizeof ls->note, "row-lock waits counted now; metadata-lock waits: " FIRST_READ_NOTE);
	ls->gate_age_s = age >= 0.5 ? age : 0;
	if (age < 0.5 || ls->note[0] || ls->status != LOCKS_IDLE)
		return;
	str_printf(ls->note, sizeof ls->note, "row-lock waits counted now; metadata-lock waits %.0f s ago: the check "
		   "looks at every session (%.1f ms of server time), so it runs every %.0f s (--server-budget)",
		   age, p->mdl_ms, p->mdl_pace.next - p->mdl_mono + 0.1);
}

/* Lock waits: the lock tables are read only when a gate (row-lock waits
 * now, sessions waiting for a metadata lock) says something waits. rl:
 * the row-lock rows of this refresh's joined read (my_read_joined), used
 * (and freed) instead of reading them again. */
static int my_read_locks(struct source *src, struct sample *out, unsigned row_waits, unsigned mdl_waits,
			 struct mariadb_rl *rl)
{
	struct my_priv *p = src->priv;
	struct caps *c = &src->caps;
	/* the server gives up at half the client's deadline: a slow lock query
	 * says so on the pane instead of failing the whole refresh */
	unsigned ms = (unsigned)(src->query_timeout * 500);
	char q[MYL_SQL_MAX];
	int rc = 0;
	double now;
	bool with_list = rl != NULL;
	struct lock_set *ls = source_locks_begin(src, out, row_waits + mdl_waits, false, &now);

	my_mdl_age(src, out->locks);
	if (!ls) {
		mariadb_rl_finish(rl, NULL);
		return 0;
	}
	if (!c->priv_process) {
		ls->status = LOCKS_UNAVAILABLE;
		str_copy(ls->note, sizeof ls->note,
			 "the lock tables need the PROCESS privilege: GRANT PROCESS ON *.* TO the monitoring user");
		mariadb_rl_finish(rl, NULL);
		return 0;
	}
	if (rl) {
		ls->query_ms += p->joined_ms; /* the graph's rows came with the session list */
		mariadb_rl_finish(rl, ls);
	} else if (row_waits && c->flavour == FLAVOUR_MARIADB) {
		rl = mariadb_rl_new();
		rc = my_lock_query(src, out, ls, mariadb_rowlocks_sql(ms, q, sizeof q), NULL, rl);
		mariadb_rl_finish(rl, rc == 0 ? ls : NULL); /* pairs what was read; frees rl */
	} else if (row_waits) {
		rc = my_lock_query(src, out, ls, mysql_locks_row_sql(ms, q, sizeof q), NULL, NULL);
	}
	if (rc == 0 && mdl_waits) {
		if (c->flavour == FLAVOUR_MYSQL) {
			rc = my_lock_query(src, out, ls, mysql_locks_mdl_sql(c->flavour, ms, q, sizeof q), NULL, NULL);
		} else {
			if (p->mdl_plugin < 0) {
				struct qres qr;
				unsigned n = 0;
				MYSQL_RES *res = my_query(src, MARIADB_MDL_PLUGIN_SQL, &qr);
				MYSQL_ROW row;
				qres_count(out, &qr);
				if (!qr.failed && res && (row = mysql_fetch_row(res)))
					mysql_locks_count(row[0], &n);
				if (res)
					mysql_free_result(res);
				p->mdl_plugin = n > 0;
			}
			struct mariadb_mdl *m = mariadb_mdl_new(p->mdl_plugin == 1);
			rc = my_lock_query(src, out, ls, mariadb_mdl_sql(p->mdl_plugin == 1, ms, q, sizeof q), m, NULL);
			mariadb_mdl_finish(m, ls);   /* pairs what was read; frees m */
		}
	}
	if (rc < 0)
		return -1;
	source_locks_end(src, ls, rc == 0, now);
	src->lk_with_list = with_list;
	if (with_list) /* the list's pace counts the statement they share */
		source_pace_joined(src, PACED_LOCKS, ls->query_ms - p->joined_ms, ls->query_ms);
	return 0;
}

/* The process list's rows into ss (its transactions from ts; joined: the
 * 'S' rows of mariadb_joined_sql); returns the sessions waiting for a
 * metadata lock on MariaDB when the list is whole, else -1. */
static int my_sessions_rows(struct source *src, struct session_set *ss, MYSQL_RES *res, const struct my_trx_set *ts,
			    bool joined)
{
	enum flavour fl = src->caps.flavour;
	unsigned nf = res ? mysql_num_fields(res) : 0, rows = 0, mdl_waits = 0;
	MYSQL_ROW row;
	ss->texts = &((struct my_priv *)src->priv)->sess_texts;
	while (res && (row = mysql_fetch_row(res))) {
		const char *cl[SMY__COUNT];
		if (joined && !mariadb_joined_session((const char *const *)row, (int)nf, cl))
			continue;
		for (int i = 0; !joined && i < SMY__COUNT; i++)
			cl[i] = i < (int)nf ? row[i] : NULL;
		sessions_my_trx_fill(ts, cl);
		rows++;
		mdl_waits += sessions_my_mdl_wait(cl, SMY__COUNT);
		/* idle ones only counted while the screen hides them */
		if (!src->sessions_idle && fl == FLAVOUR_MARIADB && sessions_my_idle(cl, SMY__COUNT)) {
			ss->idle_unread++;
			continue;
		}
		sessions_my_row(ss, fl, cl, SMY__COUNT);
	}
	text_cache_sweep(ss->texts);
	ss->texts = NULL;
	/* MariaDB: the whole process list, so its metadata-lock waits too */
	return fl == FLAVOUR_MARIADB && rows <= SESSIONS_ROW_LIMIT ? (int)mdl_waits : -1;
}

/* A session read that failed: -1 when the connection is lost, else the
 * list says why (out->sessions) and 0. */
static int my_sessions_failed(struct source *src, struct sample *out, struct qres *qr, double now)
{
	struct my_priv *p = src->priv;
	struct session_set *ss = out->sessions;
	unsigned e = mysql_errno(p->db);
	if (e == CR_SERVER_LOST || e == CR_SERVER_GONE_ERROR)
		return qres_fail(out, qr);
	ss->status = SESS_UNAVAILABLE;
	str_copy(ss->note, sizeof ss->note, qr->err);
	source_sessions_read(src, ss, ss->query_ms, now);
	return 0;
}

/* MariaDB, sessions waiting for a row lock and the session list wanted:
 * the list and the row-lock graph in one statement (mariadb_joined_sql):
 * one fill of InnoDB's transaction cache and one scan of the process list
 * serve both. The graph's rows go to *rl for my_read_locks (NULL when the
 * read failed: the graph is then read on its own); *mdl as
 * my_read_sessions. Returns -1 only when the connection is lost. */
static int my_read_joined(struct source *src, struct sample *out, int *mdl, struct mariadb_rl **rl)
{
	struct my_priv *p = src->priv;
	struct qres qr;
	char q[MYL_SQL_MAX];
	double now = clock_mono();
	struct session_set *ss = session_set_new();
	struct my_trx_set ts = {0};
	MYSQL_ROW row;
	*rl = NULL;
	out->sessions = ss;
	MYSQL_RES *res = my_query(src, mariadb_joined_sql((unsigned)(src->query_timeout * 500), q, sizeof q), &qr);
	p->trx_read = clock_mono();
	qres_count(out, &qr);
	ss->query_ms = qr.ms;
	if (qr.failed)
		return my_sessions_failed(src, out, &qr, now);
	unsigned nf = res ? mysql_num_fields(res) : 0;
	*rl = mariadb_rl_new();
	while (res && (row = mysql_fetch_row(res))) {
		const char *trx[5];
		mariadb_rl_map_row(*rl, (const char *const *)row, (int)nf);
		if (mariadb_joined_trx((const char *const *)row, (int)nf, trx))
			sessions_my_trx_add(&ts, trx, 5);
	}
	sessions_my_trx_sort(&ts);
	if (res)
		mysql_data_seek(res, 0);
	int waits = my_sessions_rows(src, ss, res, &ts, true);
	if (res)
		mysql_free_result(res);
	sessions_my_trx_free(&ts);
	sessions_my_finish(ss, FLAVOUR_MARIADB, true, src->tgt ? src->tgt->user : NULL);
	source_sessions_read(src, ss, qr.ms, now);
	p->joined_ms = qr.ms;
	*mdl = waits;
	return 0;
}

/* The session list, one statement (bounded by the session's statement
 * time limit), only while wanted; paced under --server-budget (join: read
 * now, before the lock graph); linked to the lock graph of this sample when
 * it was read; due_at: when the refresh chose its reads
 * (source_sessions_reuse). Returns -1 (sample failed) only when the
 * connection is lost. */
static int my_read_sessions(struct source *src, struct sample *out, bool busy, bool join, double due_at, int *mdl)
{
	struct my_priv *p = src->priv;
	struct caps *c = &src->caps;
	struct qres qr;
	double now = clock_mono();
	MYSQL_ROW row;

	if (!src->want_sessions) {
		source_sessions_forget(src);
		return 0;
	}
	if (!join && (out->sessions = source_sessions_reuse(src, due_at, now, busy))) {
		session_set_link_locks(out->sessions, out->locks);
		return 0;
	}
	struct session_set *ss = session_set_new();
	out->sessions = ss;
	if (c->flavour == FLAVOUR_MYSQL && !c->ps_readable) {
		ss->status = SESS_UNAVAILABLE;
		str_copy(ss->note, sizeof ss->note, "the session list needs performance_schema (ON, and SELECT on it)");
		return 0;
	}
	/* MariaDB: the transactions first (a few rows), merged into the
	 * process list's rows here rather than joined on the server */
	struct my_trx_set ts = {0};
	const char *tq = sessions_my_trx_sql(c->flavour, c->priv_process);
	double ms = 0;
	MYSQL_RES *res = NULL;
	if (tq) {
		res = my_query(src, tq, &qr);
		p->trx_read = clock_mono();
		qres_count(out, &qr);
		ms += qr.ms;
		while (res && (row = mysql_fetch_row(res)))
			sessions_my_trx_add(&ts, (const char *const *)row, (int)mysql_num_fields(res));
		if (res)
			mysql_free_result(res);
		sessions_my_trx_sort(&ts);
	}
	if (!tq || !qr.failed) {
		res = my_query(src, sessions_my_sql(c->flavour, c->priv_process), &qr);
		qres_count(out, &qr);
		ms += qr.ms;
	}
	ss->query_ms = ms;
	if (qr.failed) {
		sessions_my_trx_free(&ts);
		return my_sessions_failed(src, out, &qr, now);
	}
	int waits = my_sessions_rows(src, ss, res, &ts, false);
	if (res)
		mysql_free_result(res);
	sessions_my_trx_free(&ts);
	sessions_my_finish(ss, c->flavour, c->priv_process, src->tgt ? src->tgt->user : NULL);
	source_sessions_read(src, ss, ms, now);
	session_set_link_locks(ss, out->locks);
	if (mdl)
		*mdl = waits;
	return 0;
}

/* The plan of a session's running statement, never run here: MySQL 8
 * EXPLAIN FOR CONNECTION, MariaDB SHOW EXPLAIN FOR (both explain what
 * that connection runs now). Its statement is checked first (the kinds an
 * explain plans, one statement). */
static int my_explain(struct source *src, long long id, const struct session_ident *who, char *plan, size_t len,
		      char *err, size_t elen)
{
	struct my_priv *p = src->priv;
	struct qres qr;
	char q[160];
	MYSQL_ROW row;
	(void)who;
	plan[0] = '\0';
	if (id <= 0) {
		str_printf(err, elen, "%lld is not a connection id", id);
		return -1;
	}
	str_printf(q, sizeof q, "SELECT COMMAND, INFO FROM information_schema.PROCESSLIST WHERE ID = %lld", id);
	MYSQL_RES *res = my_query(src, q, &qr);
	if (qr.failed) {
		str_copy(err, elen, qr.err);
		return -1;
	}
	row = res ? mysql_fetch_row(res) : NULL;
	bool ok = false;
	if (!row)
		str_printf(err, elen, "session %lld has ended (or is another user's: GRANT PROCESS ON *.* TO the "
			   "monitoring user)", id);
	else if (!row[1])
		str_printf(err, elen, "session %lld runs no statement now (%s): only a running statement can be "
			   "explained", id, row[0] ? row[0] : "?");
	else
		ok = explain_text_ok(row[1], err, elen);
	if (res)
		mysql_free_result(res);
	if (!ok) {
		text_sanitize(err);
		return -1;
	}
	str_printf(q, sizeof q, src->caps.flavour == FLAVOUR_MARIADB ? "SHOW EXPLAIN FOR %lld" :
		   "EXPLAIN FOR CONNECTION %lld", id);
	res = my_query(src, q, &qr);
	if (qr.failed) {
		str_copy(err, elen, qr.err);
		if (qr.stalled && src->caps.flavour == FLAVOUR_MARIADB) {
			size_t n = strlen(err);
			str_printf(err + n, elen - n, "; the session did not answer: MariaDB answers SHOW EXPLAIN "
				   "between rows, not inside one long call or wait");
		}
		return -1;
	}
	unsigned nf = res ? mysql_num_fields(res) : 0;
	MYSQL_FIELD *f = res ? mysql_fetch_fields(res) : NULL;
	struct strbuf t;
	sb_init(&t);
	const char **names = xcalloc(nf ? nf : 1, sizeof *names);
	for (unsigned k = 0; k < nf; k++)
		names[k] = f[k].name;
	explain_table_row(&t, names, nf);
	free(names);
	while (res && (row = mysql_fetch_row(res)) && t.len < len)
		explain_table_row(&t, (const char *const *)row, nf);
	if (res)
		mysql_free_result(res);
	str_copy(plan, len, t.s ? t.s : "");
	sb_free(&t);
	(void)p;
	return 0;
}

/* The identity of session id now (for the check and the message of a
 * refused action); present false when the session is gone. -1 when the
 * read failed (err set). */
static int my_ident_now(struct source *src, long long id, struct session_ident *now, bool *present, char *err,
			size_t errlen)
{
	struct qres qr;
	char q[320];
	MYSQL_ROW row;
	memset(now, 0, sizeof *now);
	*present = false;
	MYSQL_RES *res = my_query(src, mysql_ident_sql(src->caps.flavour, id, q, sizeof q), &qr);
	if (qr.failed) {
		str_copy(err, errlen, qr.err);
		return -1;
	}
	if (res && (row = mysql_fetch_row(res))) {
		*present = true;
		now->known = true;
		if (row[0]) {
			str_copy(now->trx_id, sizeof now->trx_id, row[0]);
			str_copy(now->trx_started, sizeof now->trx_started, row[1] ? row[1] : "");
			text_sanitize(now->trx_id);
			text_sanitize(now->trx_started);
		}
		if (row[2])
			now->query_id = atoll(row[2]);
	}
	if (res)
		mysql_free_result(res);
	return 0;
}

/* Why an action was refused, into msg: what changed since the sample. */
static void my_refused(struct source *src, long long id, const struct session_ident *who, bool cancel, char *msg,
		       size_t len)
{
	struct session_ident now;
	bool present;
	char err[NOTE_LEN / 2];
	int rc = my_ident_now(src, id, &now, &present, err, sizeof err);
	source_act_refused(msg, len, id, rc < 0 ? -1 : present, who, &now, cancel, err);
}

/* MariaDB: the check (cond) and the KILL in one compound statement.
 * Returns 1 when it killed, 0 when the session was not the one cond
 * describes, -1 on failure (the reason in msg). */
static int my_act_compound(struct source *src, long long id, const char *cond, const char *kill, char *msg,
			   size_t len)
{
	struct qres qr;
	MYSQL_ROW row;
	char q[640];
	str_printf(q, sizeof q,
		   "BEGIN NOT ATOMIC IF (SELECT COUNT(*) FROM information_schema.PROCESSLIST p "
		   "LEFT JOIN information_schema.INNODB_TRX x ON x.trx_mysql_thread_id = p.ID "
		   "WHERE p.ID = %lld AND %s) = 1 THEN SET @dbtop_act = 1; %s; ELSE SET @dbtop_act = 0; "
		   "END IF; END",
		   id, cond, kill);
	if (my_exec(src, q, msg, len) < 0)
		return -1;
	MYSQL_RES *res = my_query(src, "SELECT @dbtop_act", &qr);
	bool done = !qr.failed && res && (row = mysql_fetch_row(res)) && row[0] && row[0][0] == '1';
	if (res)
		mysql_free_result(res);
	if (qr.failed) {
		str_copy(msg, len, qr.err);
		return -1;
	}
	return done;
}

/* End a session or cancel its statement, only while it is the session
 * `who` describes (mysql_ident_cond). MariaDB: the check and the KILL are
 * one compound statement, run by the server without a round trip between
 * them; a cancel with a known QUERY_ID kills that statement only (KILL
 * QUERY ID). MySQL (no compound statements outside stored programs): the
 * identity is read, compared, and the KILL follows at once: a client
 * round trip is left between them. INNODB_TRX is InnoDB's cached copy
 * (MY_TRX_CACHE_IDLE_S): on MariaDB an unchanged QUERY_ID (read live from
 * PROCESSLIST) settles it first: no statement since, so no other
 * transaction. */
static int my_act(struct source *src, int what, long long id, const struct session_ident *who, char *msg,
		  size_t len)
{
	bool present, cancel = what != SRC_ACT_TERMINATE;
	bool maria = src->caps.flavour == FLAVOUR_MARIADB;
	char cond[200], why[NOTE_LEN / 2], kill[64];
	if (src->read_only) {
		str_copy(msg, len, "--read-only: refused");
		return -1;
	}
	if (id <= 0) {
		str_printf(msg, len, "%lld is not a session id", id);
		return -1;
	}
	if (!who || !mysql_ident_cond(who, cancel, maria, cond, sizeof cond)) {
		str_printf(msg, len,
			   "session %lld: nothing was done: the sample did not show its transaction, so it cannot be "
			   "told from later work of the same connection",
			   id);
		return -1;
	}
	struct my_priv *p = src->priv;
	double idle = p->trx_read + MY_TRX_CACHE_IDLE_S;
	if (clock_mono() < idle)
		sleep_until(idle);
	bool by_query = maria && cancel && who->query_id > 0;
	session_act_sql(false, maria, !cancel, id, who, kill, sizeof kill);
	if (maria) {
		int done = my_act_compound(src, id, cond, kill, msg, len);
		if (done < 0) {
			if (by_query && strstr(msg, "nknown query id"))
				str_printf(msg, len,
					   "session %lld runs no statement now: nothing was done (the one you saw, query "
					   "id %lld, has finished)",
					   id, who->query_id);
			return -1;
		}
		if (!done) {
			my_refused(src, id, who, cancel, msg, len);
			return -1;
		}
	} else {
		struct session_ident now;
		if (my_ident_now(src, id, &now, &present, msg, len) < 0)
			return -1;
		if (!present || !session_ident_same(who, &now, present, cancel, why, sizeof why)) {
			if (!present)
				str_printf(msg, len, "session %lld has ended since: nothing was done", id);
			else
				str_printf(msg, len, "session %lld is not the one you saw: nothing was done (%s)", id, why);
			return -1;
		}
		if (my_exec(src, kill, msg, len) < 0)
			return -1;
	}
	str_printf(msg, len, "%s: done (the session you saw: %s)", kill,
		   who->trx_id[0] ? "same transaction" : "no transaction, same statement");
	return 0;
}

/* The current account's GRANTEE string as information_schema prints it. */
#define MY_GRANTEE "CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(),'@',1), '''@''', " \
	"SUBSTRING_INDEX(CURRENT_USER(),'@',-1), '''')"

static bool has_priv(const struct strbuf *privs, const char *name)
{
	char k[64];
	str_printf(k, sizeof k, "|%s|", name);
	return privs->s && strstr(privs->s, k) != NULL;
}

/* Tuning, TC_PREV: the state to restore for c->t. */
static int my_tune_prev(struct source *src, struct tune_call *c)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	struct qres qr;
	char q[256];
	if (c->t->kind == TK_MY_GLOBAL)
		str_printf(q, sizeof q, "SELECT @@GLOBAL.%s, NULL", c->t->name);
	else
		str_printf(q, sizeof q, "SELECT ENABLED, TIMED FROM performance_schema.setup_instruments "
			   "WHERE NAME = '%s'", c->t->name);
	res = my_query(src, q, &qr);
	if (qr.failed) {
		str_copy(c->err, sizeof c->err, qr.err);
		return -1;
	}
	row = res ? mysql_fetch_row(res) : NULL;
	if (!row || !row[0]) {
		str_copy(c->err, sizeof c->err, "the server returned no value");
		if (res)
			mysql_free_result(res);
		return -1;
	}
	if (c->t->kind == TK_MY_GLOBAL)
		str_copy(c->was, sizeof c->was, row[0]);
	else
		str_printf(c->was, sizeof c->was, "%s/%s", row[0], row[1] ? row[1] : "NO");
	str_copy(c->undo, sizeof c->undo, c->was);
	text_sanitize(c->was);
	mysql_free_result(res);
	return 0;
}

/* What the current account may change: global variables (SUPER or
 * SYSTEM_VARIABLES_ADMIN), the binlog's (BINLOG ADMIN too), the
 * performance_schema instruments (UPDATE on setup_instruments). */
struct my_tune_privs {
	bool set_global, binlog, ps;
};

/* The current account's privileges for tuning, from information_schema. */
static void my_tune_privs(struct source *src, struct my_tune_privs *pv)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	struct qres qr;
	struct strbuf privs;

	sb_init(&privs);
	res = my_query(src,
		       "SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = " MY_GRANTEE
		       " UNION ALL SELECT 'PS_UPDATE' FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE = "
		       MY_GRANTEE " AND TABLE_SCHEMA = 'performance_schema' AND PRIVILEGE_TYPE = 'UPDATE'"
		       " UNION ALL SELECT 'PS_UPDATE' FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE = "
		       MY_GRANTEE " AND TABLE_SCHEMA = 'performance_schema' AND TABLE_NAME = 'setup_instruments'"
		       " AND PRIVILEGE_TYPE = 'UPDATE'",
		       &qr);
	sb_putc(&privs, '|');
	while (res && (row = mysql_fetch_row(res)))
		if (row[0]) {
			sb_puts(&privs, row[0]);
			sb_putc(&privs, '|');
		}
	if (res)
		mysql_free_result(res);
	pv->set_global = has_priv(&privs, "SUPER") || has_priv(&privs, "SYSTEM_VARIABLES_ADMIN");
	pv->binlog = pv->set_global || has_priv(&privs, "BINLOG ADMIN");
	pv->ps = has_priv(&privs, "UPDATE") || has_priv(&privs, "PS_UPDATE");
	sb_free(&privs);
}

/* Tuning, TC_PROBE: values, instruments and privileges of every tunable. */
static int my_tune_probe(struct source *src, struct tune_call *c)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	struct qres qr;
	char q[512];
	enum flavour fl = src->caps.flavour;
	struct strbuf names;

	sb_init(&names);
	for (size_t i = 0; i < ntunables; i++)
		if (tunables[i].kind == TK_MY_GLOBAL && tunable_applies(&tunables[i], fl)) {
			sb_puts(&names, names.len ? ",'" : "'");
			sb_puts(&names, tunables[i].name);
			sb_putc(&names, '\'');
		}
	str_printf(q, sizeof q, "SHOW GLOBAL VARIABLES WHERE Variable_name IN (%s)", names.s ? names.s : "''");
	sb_free(&names);
	res = my_query(src, q, &qr);
	if (qr.failed) {
		str_copy(c->err, sizeof c->err, qr.err);
		return -1;
	}
	while (res && (row = mysql_fetch_row(res)))
		for (size_t i = 0; row[0] && i < ntunables; i++)
			if (tunables[i].kind == TK_MY_GLOBAL && strcmp(tunables[i].name, row[0]) == 0) {
				str_copy(c->current[i], TUNE_VALUE_LEN, row[1] ? row[1] : "");
				text_sanitize(c->current[i]);
				c->known[i] = true;
			}
	if (res)
		mysql_free_result(res);
	if (src->caps.perf_schema) {
		res = my_query(src, "SELECT NAME, ENABLED, TIMED FROM performance_schema.setup_instruments "
			       "WHERE NAME IN ('" MY_REDO_EVENT "','" MY_BINLOG_EVENT "')",
			       &qr);
		while (res && (row = mysql_fetch_row(res)))
			for (size_t i = 0; row[0] && i < ntunables; i++)
				if (tunables[i].kind == TK_MY_INSTRUMENT && strcmp(tunables[i].name, row[0]) == 0) {
					str_printf(c->current[i], TUNE_VALUE_LEN, "%s/%s", row[1] ? row[1] : "?",
						   row[2] ? row[2] : "?");
					text_sanitize(c->current[i]);
					c->known[i] = true;
				}
		if (res)
			mysql_free_result(res);
		if (qr.failed)
			str_printf(c->note, sizeof c->note, "performance_schema instruments unreadable: %s", qr.err);
	} else {
		str_copy(c->note, sizeof c->note, "performance_schema is off (performance_schema=ON in my.cnf and a "
			 "restart): its instruments cannot be switched");
	}
	struct my_tune_privs pv;
	my_tune_privs(src, &pv);
	c->err[0] = '\0';
	for (size_t i = 0; i < ntunables; i++) {
		const struct tunable *t = &tunables[i];
		if (!tunable_applies(t, fl))
			continue;
		if (c->known[i])
			str_copy(c->undo_hint[i], sizeof c->undo_hint[i], c->current[i]);
		if (t->kind == TK_MY_INSTRUMENT)
			c->allowed[i] = pv.ps && src->caps.perf_schema;
		else if (strstr(t->priv, "BINLOG"))
			c->allowed[i] = pv.binlog;
		else
			c->allowed[i] = pv.set_global;
	}
	return 0;
}

/* Tuning, TC_LOCK / TC_UNLOCK: the server-wide tuning lock (GET_LOCK is
 * counted per session: the tuner takes it once). Busy: the holder's
 * session id, and its user and host where the processlist shows them. */
static int my_tune_lock(struct source *src, struct tune_call *c)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	struct qres qr;
	if (c->what == TC_UNLOCK)
		return my_exec(src, "SELECT RELEASE_LOCK('" TUNE_LOCK_NAME "')", c->err, sizeof c->err);
	res = my_query(src, "SELECT GET_LOCK('" TUNE_LOCK_NAME "', 0)", &qr);
	if (qr.failed) {
		str_copy(c->err, sizeof c->err, qr.err);
		return -1;
	}
	row = res ? mysql_fetch_row(res) : NULL;
	c->got = row && row[0] && strcmp(row[0], "1") == 0;
	if (res)
		mysql_free_result(res);
	if (c->got)
		return 0;
	res = my_query(src,
		       "SELECT IS_USED_LOCK('" TUNE_LOCK_NAME "'), (SELECT CONCAT(USER, '@', HOST) FROM "
		       "information_schema.PROCESSLIST WHERE ID = IS_USED_LOCK('" TUNE_LOCK_NAME "'))",
		       &qr);
	row = res ? mysql_fetch_row(res) : NULL;
	if (row && row[0])
		str_printf(c->holder, sizeof c->holder, "session %s%s%s", row[0], row[1] ? ", " : "",
			   row[1] ? row[1] : "");
	else
		str_copy(c->holder, sizeof c->holder, "a session the server does not name");
	text_sanitize(c->holder);
	if (res)
		mysql_free_result(res);
	c->err[0] = '\0';
	return 0;
}

/* Tuning, TC_EXEC: run c->sql. */
static int my_tune_exec(struct source *src, struct tune_call *c)
{
	struct my_priv *p = src->priv;
	struct qres qr;
	MYSQL_RES *res = my_query(src, c->sql, &qr);
	if (res)
		mysql_free_result(res);
	if (qr.failed) {
		unsigned e = mysql_errno(p->db);
		str_copy(c->err, sizeof c->err, qr.err);
		c->unsure = qr.stalled || e == CR_SERVER_LOST || e == CR_SERVER_GONE_ERROR;
		return -1;
	}
	return 0;
}

/* Tuning: probe, read the state to restore, or run a change. */
static int my_tune(struct source *src, struct tune_call *c)
{
	static const struct tune_steps steps = {my_tune_probe, my_tune_prev, my_tune_lock, my_tune_exec};
	return source_tune(src, c, &steps);
}

/* True (with out->error and out->state set) when a privilege the probe
 * found missing (SELECT on performance_schema, PROCESS) has been granted
 * since: the caller then reconnects, and the new probe uses it. A revoked
 * one needs no check: the queries that used it fail, and the reconnection's
 * probe says what is missing. */
static bool my_privileges_granted(struct source *src, struct sample *out)
{
	const struct caps *c = &src->caps;
	const char *what = NULL;
	MYSQL_RES *res;
	MYSQL_ROW row;
	struct qres qr;

	if (c->perf_schema && !c->ps_readable) {
		res = my_query(src, "SELECT 1 FROM performance_schema.setup_consumers LIMIT 0", &qr);
		qres_count(out, &qr);
		if (res)
			mysql_free_result(res);
		if (!qr.failed)
			what = "SELECT on performance_schema";
	}
	if (!what && !c->priv_process) {
		res = my_query(src,
			       "SELECT COUNT(*) FROM information_schema.USER_PRIVILEGES "
			       "WHERE GRANTEE = CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(),'@',1), '''@''', "
			       "SUBSTRING_INDEX(CURRENT_USER(),'@',-1), '''') "
			       "AND PRIVILEGE_TYPE IN ('PROCESS', 'SUPER', 'SYSTEM_VARIABLES_ADMIN')",
			       &qr);
		qres_count(out, &qr);
		if (res && (row = mysql_fetch_row(res)) && row[0] && atol(row[0]) > 0)
			what = "PROCESS";
		if (res)
			mysql_free_result(res);
	}
	if (!what)
		return false;
	str_printf(out->error, sizeof out->error, "%s was granted: reconnecting to probe the privileges again", what);
	out->state = STATE_DOWN;
	return true;
}

/* What the status read of a refresh says beyond the sample's counters. */
struct my_status {
	bool have_lost;
	uint64_t lost;           /* Performance_schema_digest_lost */
	uint64_t row_waits;      /* Innodb_row_lock_current_waits */
	bool have_begun;
	uint64_t begun;   /* Innodb_row_lock_waits: row-lock waits begun since the start */
	double ms;        /* its round trip, ms */
	uint64_t threads; /* Threads_connected (the read of every counter) */
};

/* The refresh's status, every counter: a WHERE makes MariaDB compute
 * every variable's value, so it adds up every connection's counters
 * (Com_*, Handler_* are kept per connection): 4-7 ms with 3,000
 * connections on a server that sleeps between two reads, 1 ms with 40. */
#define MY_STATUS_SQL \
	"SHOW GLOBAL STATUS WHERE Variable_name IN ('Uptime','Com_commit','Com_rollback'," \
	"'Handler_commit','Innodb_os_log_fsyncs','Innodb_data_fsyncs','Innodb_log_writes'," \
	"'Innodb_os_log_written','Binlog_commits','Binlog_group_commits'," \
	"'Performance_schema_digest_lost','Innodb_row_lock_waits','Innodb_row_lock_time'," \
	"'Innodb_row_lock_current_waits','Slaves_connected','Com_create_db','Com_select','Com_insert'," \
	"'Com_update','Com_delete','Com_replace','Com_begin','Threads_connected') " \
	"OR Variable_name LIKE 'Rpl_semi_sync_%'"

/* The summed read is paced once it costs this share of --server-budget
 * beyond the LIKE reads (2 ms at the default 10), measured, and once the
 * connections it adds up would (MY_STATUS_SUM_MS_PER_CONN each): with a
 * few hundred connections or less it is read every time, however slow a
 * busy host makes its round trip (it costs about what the LIKE reads do:
 * 1 ms with 40). */
#define MY_STATUS_SUM_SHARE 0.2
/* What each connection adds to the summed read, ms: 3,003 connections,
 * 4-7 ms against 0.4 ms for a LIKE, on a server that slept since its last
 * read (1.1-1.3 ms back to back, its memory warm). */
#define MY_STATUS_SUM_MS_PER_CONN 0.0015
/* Weight of a refresh in src->summary_ms (the summaries' spend per
 * refresh): about the last 20 refreshes. */
#define MY_SUMMARY_ALPHA 0.05

/* A LIKE picks the variables by name before their values: one that names
 * no per-connection counter adds nothing up (0.3-0.6 ms each with 3,000
 * connections). MariaDB with log_bin=ON counts every commit in
 * Binlog_commits, so these give the counts of every refresh (commits,
 * fsyncs, redo, row-lock waits, semi-sync) and MY_STATUS_SQL, for the
 * statement counts, Handler_commit and the rollbacks, is paced under
 * --server-budget when it costs more (my_status_full). The last one only
 * while semi-sync is in use. */
static const char *const my_status_like_sql[] = {
	"SHOW GLOBAL STATUS LIKE 'Innodb_%'",
	"SHOW GLOBAL STATUS LIKE 'Binlog_%commits'",
	"SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_%'",
};

/* One status row into out (counters, replication) and st. */
static void my_status_row(struct sample *out, struct my_status *st, MYSQL_ROW row, uint64_t *uptime)
{
	if (!row[0])
		return;
	mysql_map_status(out, row[0], row[1], uptime);
	if (repl_my_status_name(row[0]))
		repl_my_status(&out->repl, row[0], row[1]);
	if (strcasecmp(row[0], "Performance_schema_digest_lost") == 0)
		st->have_lost = parse_u64(row[1], &st->lost);
	if (strcasecmp(row[0], "Innodb_row_lock_current_waits") == 0 && !parse_u64(row[1], &st->row_waits))
		st->row_waits = 0;
	if (strcasecmp(row[0], "Innodb_row_lock_waits") == 0)
		st->have_begun = parse_u64(row[1], &st->begun);
	if (strcasecmp(row[0], "Threads_connected") == 0 && !parse_u64(row[1], &st->threads))
		st->threads = 0;
}

/* Every counter this refresh (MY_STATUS_SQL), else those of every refresh
 * alone (my_status_like_sql): MariaDB with log_bin=ON under
 * --server-budget, while the summed read is not due. */
static bool my_status_full(const struct source *src, double now)
{
	const struct my_priv *p = src->priv;
	const struct caps *c = &src->caps;
	if (c->flavour != FLAVOUR_MARIADB || !c->binlog_on || !(src->budget_ms > 0))
		return true;
	return pace_due(&p->sum_pace, now, false) || pace_after_change(&p->sum_pace, src, now);
}

/* A row of the read of every counter that the LIKE reads leave out
 * (semi_used: whether they read semi-sync's). */
static bool my_status_held(const char *name, bool semi_used)
{
	return strcasecmp(name, "Slaves_connected") == 0 || strcasecmp(name, "Performance_schema_digest_lost") == 0 ||
	       (!semi_used && strncasecmp(name, "Rpl_semi_sync_", 14) == 0);
}

/* Keep a row of the read of every counter for the refreshes until the
 * next; notes whether semi-sync is in use (ON, or a counter above 0). */
static void my_status_keep(struct my_priv *p, MYSQL_ROW row, bool *semi)
{
	if (strncasecmp(row[0], "Rpl_semi_sync_", 14) == 0 && row[1] && strcmp(row[1], "0") != 0 &&
	    strcasecmp(row[1], "OFF") != 0)
		*semi = true;
	if (!my_status_held(row[0], false) || p->nheld >= MY_HELD_ROWS)
		return;
	str_copy(p->held[p->nheld].name, sizeof p->held[p->nheld].name, row[0]);
	str_copy(p->held[p->nheld].value, sizeof p->held[p->nheld].value, row[1] ? row[1] : "");
	p->nheld++;
}

/* The statements of the status read (full: MY_STATUS_SQL, else the LIKE
 * reads and the rows they leave out, as the last full read gave them)
 * into out and st. Returns 0, or -1 (sample failed). */
static int my_status_query(struct source *src, struct sample *out, struct my_status *st, bool full, uint64_t *uptime)
{
	struct my_priv *p = src->priv;
	size_t n = full ? 1 : sizeof my_status_like_sql / sizeof *my_status_like_sql - !p->semi_used;
	bool semi = false;
	if (full)
		p->nheld = 0;
	for (size_t i = 0; i < n; i++) {
		MYSQL_RES *res;
		MYSQL_ROW row;
		if (my_sample_query(src, out, full ? MY_STATUS_SQL : my_status_like_sql[i], &res) < 0)
			return -1;
		while (res && (row = mysql_fetch_row(res))) {
			my_status_row(out, st, row, uptime);
			if (full && row[0])
				my_status_keep(p, row, &semi);
		}
		if (res)
			mysql_free_result(res);
	}
	if (full)
		p->semi_used = semi;
	for (size_t i = 0; !full && i < p->nheld; i++)
		if (my_status_held(p->held[i].name, p->semi_used)) {
			char *row[2] = {p->held[i].name, p->held[i].value};
			my_status_row(out, st, row, uptime);
		}
	return 0;
}

/* After a read of every counter that took ms: the next one as --server-
 * budget allows for what it costs beyond the LIKE reads (MariaDB, log_bin
 * ON). Between two, the summed counters stand (sample.ctr_paced: the model
 * holds them, their rates cover the time between two readings and say
 * how old they are), and so do the uptime (run on) and the rows the LIKE
 * reads leave out (my_status_held). */
static void my_status_paced(struct source *src, struct sample *out, struct my_status *st, bool full, double now)
{
	struct my_priv *p = src->priv;
	const struct caps *c = &src->caps;
	if (full) {
		p->uptime_mono = now;
		/* what it costs beyond the LIKE reads (before one, taken as
		 * half of it), smoothed; paced from MY_STATUS_SUM_SHARE */
		p->full_ms = p->full_ms > 0 ? 0.7 * p->full_ms + 0.3 * st->ms : st->ms;
		double more = p->full_ms - (p->like_ms > 0 ? p->like_ms : p->full_ms / 2);
		double least = MY_STATUS_SUM_SHARE * src->budget_ms;
		bool costly = pace_costly(p->sum_costly, more, least) &&
			      (double)st->threads * MY_STATUS_SUM_MS_PER_CONN >= least;
		p->sum_costly = costly;
		if (c->flavour == FLAVOUR_MARIADB && c->binlog_on)
			pace_done(&p->sum_pace, src, now, costly ? more : 0, PACE_SHARE_SUMMARY);
		return;
	}
	/* one slow LIKE read (a stall) must not make the read of every
	 * counter look cheap beside it: read at every refresh from then on,
	 * no LIKE read would take the baseline down again */
	p->like_ms = pace_baseline(p->like_ms, st->ms, 0.2);
	out->ctr_paced = true;
	out->uptime_s = (double)p->last_uptime + (now - p->uptime_mono);
}

/* The refresh's global status: the counters into out (its time, the
 * uptime and restarts), the rest into st. Returns 0, or -1 (sample
 * failed). */
static int my_read_status(struct source *src, struct sample *out, struct my_status *st)
{
	struct my_priv *p = src->priv;
	uint64_t uptime = 0;
	double t0 = clock_mono();
	bool full = my_status_full(src, t0);
	if (my_status_query(src, out, st, full, &uptime) < 0)
		return -1;
	double now = clock_mono();
	st->ms = (now - t0) * 1000;
	out->mono = (t0 + st->ms / 2000);
	out->wall = clock_wall() - (now - out->mono); /* the wall clock at the read */
	my_status_paced(src, out, st, full, out->mono);
	if (!full)
		return 0;
	if (uptime < p->last_uptime)
		p->restarts++;
	p->last_uptime = uptime;
	out->uptime_s = (double)uptime;
	return 0;
}

/* What the refresh's performance_schema read covers: the summaries due
 * this time. */
struct my_ps_read {
	bool stmts, waits;       /* the statement / wait summary is read */
	int consumers_off;       /* of global_ / thread_instrumentation (MY_WAITS_SQL) */
	char consumer_off[64];   /* those off, "a and b" */
	uint64_t own_n, own_ns;  /* dbtop's own statements completed before it */
	double mark[3];          /* MY_MARK_ROW values, ms: after the file read, each summary */
	int nmark;
};

/* The server time of summary k (1: the first after the file read; 0: the
 * file read) from the marks, ms; < 0 when the server did not say. */
static double my_mark_ms(const struct my_ps_read *r, int k)
{
	if (k == 0)
		return r->nmark > 0 ? r->mark[0] : -1;
	return k < r->nmark && r->mark[k] >= r->mark[k - 1] ? r->mark[k] - r->mark[k - 1] : -1;
}

/* After the read: the summaries paced by their server time (a summary
 * that cost more than its share of --server-budget is read every few
 * refreshes; its rates then cover the time between, and their age is
 * shown); the wait summary never more often than PACE_SUMMARY_EVERY_S
 * after its second reading. */
static void my_ps_paced(struct source *src, const struct my_ps_read *r, double now)
{
	struct my_priv *p = src->priv;
	int k = 1;
	if (r->stmts) {
		double ms = my_mark_ms(r, k++);
		p->summary_ms += ms > 0 ? ms : 0;
		pace_done_max(&p->stmt_pace, src, now, ms > 0 ? ms : 0, PACE_SHARE_SUMMARY, PACE_MAX_SUMMARY_S);
		source_first_read_done(src, FIRST_SUMMARY, ms > 0 ? ms : 0, p->stmt_pace.reads >= 2);
	}
	if (r->waits) {
		double ms = my_mark_ms(r, k);
		source_first_read_done(src, FIRST_WAITS, ms > 0 ? ms : 0, true);
		p->waits_ms = ms;
		p->summary_ms += ms > 0 ? ms : 0;
		p->waits_every = pace_summary_read(&p->waits_pace, src, now, ms);
	}
}

/* The statements of the performance_schema read into q. */
static void my_ps_sql(struct source *src, const struct my_ps_read *r, bool quick, struct strbuf *q)
{
	sb_puts(q, MY_FILE_SQL MY_MARK_SQL);
	if (r->stmts)
		sb_puts(q, MY_STMT_SUM_SQL MY_MARK_SQL);
	if (r->waits)
		sb_puts(q, MY_WAITS_SQL MY_MARK_SQL);
	/* the watched settings, one row each (numbers: the column stays one) */
	for (int i = 0; quick && source_watched(src, i); i++)
		sb_printf(q, " UNION ALL SELECT '" MY_VAR_ROW "%s', @@global.%s, 0", source_watched(src, i),
			  source_watched(src, i));
}

/* One row of the performance_schema read. */
static void my_ps_row(struct source *src, struct sample *out, struct my_ps_read *r, MYSQL_ROW row)
{
	uint64_t wc, wps;
	if (!row[0])
		return;
	if (strncmp(row[0], "w:", 2) == 0) {
		if (out->waits && parse_u64(row[1], &wc) && parse_u64(row[2], &wps))
			wait_set_add(out->waits, row[0] + 2, wc, wps / 1000);
	} else if (strncmp(row[0], "c:", 2) == 0) {
		size_t l = strlen(r->consumer_off);
		if (row[1] && strcmp(row[1], "1") != 0 && r->consumers_off++ < 2)
			str_printf(r->consumer_off + l, sizeof r->consumer_off - l, "%s%s", l ? " and " : "",
				   row[0] + 2);
	} else if (strncmp(row[0], MY_VAR_ROW, strlen(MY_VAR_ROW)) == 0) {
		sample_setting(out, row[0] + strlen(MY_VAR_ROW), row[1]);
		out->settings_checked = true;
	} else if (strcmp(row[0], MY_MARK_ROW) == 0) {
		if (r->nmark < 3)
			r->mark[r->nmark++] = row[1] ? strtod(row[1], NULL) / 1000 : -1;
	} else {
		mysql_map_file(out, &src->caps, row[0], row[1], row[2]);
	}
}

/* dbtop's own statements beside the statement summary they are part of
 * (when the server counts them): the model takes them off its totals. */
static void my_own_counters(const struct my_priv *p, struct sample *out, const struct my_ps_read *r)
{
	if (!r->stmts || !p->own_counted || !out->c[CTR_STMTS].present)
		return;
	sample_set(out, CTR_OWN_STMTS, r->own_n, 0);
	sample_set(out, CTR_OWN_STMT_NS, r->own_ns, 0);
}

/* Redo and binlog file syncs from performance_schema at every refresh;
 * the statement summary (COMMIT latency, statement counts) and the wait
 * summary when due; when quick the watched settings (source_watched); in
 * one round trip. Returns 0, or -1 (sample failed). */
static int my_read_ps(struct source *src, struct sample *out, bool quick)
{
	struct my_priv *p = src->priv;
	double now = clock_mono();
	struct my_ps_read r = {.nmark = 0};
	MYSQL_ROW row;
	r.stmts = (pace_due(&p->stmt_pace, now, false) || pace_after_change(&p->stmt_pace, src, now)) &&
		  !source_first_reads_wait(src, FIRST_SUMMARY);
	r.waits = now >= p->waits_pace.next && !source_first_reads_wait(src, FIRST_WAITS);
	out->ctr_paced = out->ctr_paced || !r.stmts; /* or the status read's (my_status_paced) */
	r.own_n = p->own_n;
	r.own_ns = p->own_ns;
	out->waits_skipped = !r.waits;
	double q0 = out->query_ms;
	struct strbuf psq;
	sb_init(&psq);
	my_ps_sql(src, &r, quick, &psq);
	MYSQL_RES *res;
	int rc = my_sample_query(src, out, psq.s, &res);
	sb_free(&psq);
	if (rc < 0)
		return -1;
	if (r.waits) {
		out->waits = wait_set_new(WS_PERF_SCHEMA);
		my_wait_note(&src->caps, out->waits);
	}
	while (res && (row = mysql_fetch_row(res)))
		my_ps_row(src, out, &r, row);
	if (res)
		mysql_free_result(res);
	if (r.waits && r.consumers_off)
		mysql_waits_stopped(out->waits, r.consumer_off, r.consumers_off);
	my_own_counters(p, out, &r);
	my_ps_paced(src, &r, now);
	if (r.waits)
		pace_waits_note(out->waits, p->waits_every, p->waits_ms);
	double file_ms = my_mark_ms(&r, 0);
	p->fixed_ms += file_ms >= 0 ? file_ms : out->query_ms - q0;
	return 0;
}

/* The metadata-lock check (pending requests on MySQL 8, sessions in that
 * state on MariaDB: it looks at every session) into *mdl_waits, read
 * when due under --server-budget, else its last count; the lock pane says
 * how old it is. Returns 0, or -1 (sample failed). */
static int my_read_mdl(struct source *src, struct sample *out, int seen, unsigned *mdl_waits)
{
	struct my_priv *p = src->priv;
	double now = clock_mono();
	char q[MYL_SQL_MAX];
	MYSQL_ROW row;
	MYSQL_RES *res;
	if (seen >= 0) {
		/* counted by this refresh's read of the process list: no
		 * statement, and the next check a whole pace from this count */
		*mdl_waits = p->mdl_last = (unsigned)seen;
		p->mdl_mono = now;
		pace_rebase(&p->mdl_pace, now);
		return 0;
	}
	*mdl_waits = p->mdl_last;
	if ((p->mdl_mono > 0 && !pace_due(&p->mdl_pace, now, false)) || source_first_reads_wait(src, FIRST_LOCKS))
		return 0;
	mysql_locks_mdl_count_sql(src->caps.flavour, (unsigned)(src->query_timeout * 1000),
				  ", TIMESTAMPDIFF(MICROSECOND, NOW(6), SYSDATE(6))", q, sizeof q);
	double q0 = out->query_ms;
	if (my_sample_query(src, out, q, &res) < 0)
		return -1;
	double ms = out->query_ms - q0;
	*mdl_waits = 0;
	if (res && (row = mysql_fetch_row(res))) {
		if (!mysql_locks_count(row[0], mdl_waits))
			*mdl_waits = 0;
		if (mysql_num_fields(res) > 1 && row[1] && strtod(row[1], NULL) > 0)
			ms = strtod(row[1], NULL) / 1000;   /* the server's own time */
	}
	if (res)
		mysql_free_result(res);
	p->mdl_last = *mdl_waits;
	p->mdl_mono = now;
	p->mdl_ms = ms;
	p->summary_ms += ms;
	source_first_read_done(src, FIRST_LOCKS, ms, true);
	pace_done_max(&p->mdl_pace, src, now, ms, PACE_SHARE_SUMMARY, PACE_MAX_SUMMARY_S);
	return 0;
}

/* Without performance_schema, the watched settings (source_watched) as
 * one row. Returns 0, or -1 (sample failed). */
static int my_read_watched(struct source *src, struct sample *out)
{
	MYSQL_ROW row;
	struct strbuf q;
	int n = 0;
	sb_init(&q);
	for (; source_watched(src, n); n++)
		sb_printf(&q, "%s@@global.%s", n ? ", " : "SELECT ", source_watched(src, n));
	if (!n)
		return 0;
	MYSQL_RES *res;
	int rc = my_sample_query(src, out, q.s, &res);
	sb_free(&q);
	if (rc < 0)
		return -1;
	if (res && (row = mysql_fetch_row(res))) {
		for (int i = 0; i < n && (int)mysql_num_fields(res) > i; i++)
			sample_setting(out, source_watched(src, i), row[i]);
		out->settings_checked = true;
	}
	if (res)
		mysql_free_result(res);
	return 0;
}

/* The refresh's digests: sampled (no performance_schema digests), or
 * performance_schema's when due (with the sampled prepared statements),
 * else the sampled estimates alone when there are enough new looks.
 * busy: a costly lock graph was read this refresh (digests just due wait
 * one more). Returns 0, or -1 (sample failed). */
static int my_sample_digests(struct source *src, struct sample *out, bool busy, const struct my_status *st)
{
	struct my_priv *p = src->priv;
	const struct caps *c = &src->caps;
	if (!c->ps_digests && p->fb_on && p->fb.rounds > 0) {
		/* NULL: no look since the last refresh; the next set covers both */
		out->digests = fallback_build_sampled(&p->fb, "sampled process list", out->mono);
		out->digests_skipped = !out->digests;
	}
	if (!c->ps_digests)
		return 0;
	/* costly: read every few refreshes (--server-budget), and at most
	 * every PACE_BACKGROUND_S while only the fleet's row shows */
	if (!pace_due_shown(&p->dg_pace, src, clock_mono(), busy) || source_first_reads_wait(src, FIRST_DIGESTS)) {
		out->digests_skipped = true;
		if (p->fill_on && p->fb.rounds >= p->fill_rounds + FILL_MIN_ROUNDS) {
			/* the sampled estimates are cheap: at every refresh that has
			 * enough new looks at the sessions (fewer: they hold) */
			struct digest_set *es = xcalloc(1, sizeof *es);
			es->partial = es->estimates_only = true;
			str_copy(es->source, sizeof es->source, "performance_schema");
			my_fill_add(p, es);
			out->digests = es;
		}
		return 0;
	}
	double before = out->query_ms;
	out->digests = my_digests(src, out, st->have_lost, st->lost);
	if (!out->digests)
		return -1;
	my_fill_add(p, out->digests);
	double every = pace_every_shown(src, pace_done_read(&p->dg_pace, src, clock_mono(), out->query_ms - before,
							    PACED_DIGESTS));
	source_first_read_done(src, FIRST_DIGESTS, out->query_ms - before, p->dg_pace.reads >= 2);
	if (every > 0)
		str_printf(out->digests->source, sizeof out->digests->source, "performance_schema, read every %.0f s",
			   every);
	return 0;
}

/* The settings the findings read; -1 (sample failed, or a privilege
 * granted since the probe: reconnecting). */
static int my_read_settings(struct source *src, struct sample *out)
{
	MYSQL_ROW row;
	MYSQL_RES *res;
	if (my_sample_query(src, out,
			    "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_flush_log_at_trx_commit',"
			    "'sync_binlog','innodb_flush_method','innodb_doublewrite','log_bin',"
			    "'binlog_commit_wait_count','binlog_commit_wait_usec',"
			    "'binlog_group_commit_sync_delay','innodb_log_file_size') OR Variable_name LIKE "
			    "'rpl_semi_sync_master_%' OR Variable_name LIKE 'rpl_semi_sync_source_%'",
			    &res) < 0)
		return -1;
	out->repl.vars_fresh = true;
	while (res && (row = mysql_fetch_row(res)))
		if (row[0] && repl_my_var_name(row[0]))
			repl_my_var(&out->repl, row[0], row[1]);
		else if (row[0])
			sample_setting(out, row[0], row[1]);
	if (res)
		mysql_free_result(res);
	out->settings_fresh = true;
	return my_privileges_granted(src, out) ? -1 : 0;
}

static int my_sample(struct source *src, struct sample *out, bool want_settings)
{
	struct my_priv *p = src->priv;
	struct caps *c = &src->caps;
	struct my_status st = {0};
	unsigned mdl_waits = 0;
	double t0 = clock_mono();

	repl_my_begin(&out->repl, false);
	if (my_read_status(src, out, &st) < 0)
		return -1;
	p->fixed_ms = st.ms;
	p->summary_ms = 0;
	/* the settings in full every few seconds, the watched ones else */
	bool quick = !want_settings;
	if (c->ps_readable ? my_read_ps(src, out, quick) < 0 : quick && my_read_watched(src, out) < 0)
		return -1;
	/* what every refresh costs: the paced reads share what is left */
	src->fixed_ms = src->fixed_ms > 0 ? 0.8 * src->fixed_ms + 0.2 * p->fixed_ms : p->fixed_ms;
	mysql_map_finish(out, c, p->restarts);
	my_fill_decide(src, out);
	/* MariaDB: a list due now is read first. It is the whole process list,
	 * so it counts the sessions waiting for a metadata lock, and the
	 * check's own statement (it looks at every session as well: 1.0 ms a
	 * refresh with 40 sessions under sysbench) is not sent. */
	int mdl_seen = -1;
	bool maria = c->flavour == FLAVOUR_MARIADB && src->want_sessions;
	double chose = clock_mono(); /* the list's due time is judged once a refresh */
	bool early = maria && source_sessions_due(src, chose);
	/* Sessions waiting for a row lock: the graph and the session's
	 * transactions come from one InnoDB cache (filled again by a read after
	 * 0.1 s without one: MY_TRX_CACHE_IDLE_S), and the graph's statement
	 * scans the process list as the list's does. A list due (or halfway to
	 * its next read when the graph is due, or not read yet when the graph's
	 * first read comes: source_sessions_join) and the graph are one statement:
	 * 500 waiting among 2,500 sessions, 100-130 ms for both, against about
	 * 100 ms for each read apart. */
	bool joined =
		maria && c->priv_process && st.row_waits > 0 && !source_first_reads_wait(src, FIRST_LOCKS) &&
		(early || (source_locks_due(src, (unsigned)st.row_waits, chose) && source_sessions_join(src, chose)));
	struct mariadb_rl *rl = NULL;
	if (joined) {
		source_locks_forget(src); /* the graph comes with the list: read, not kept */
		if (my_read_joined(src, out, &mdl_seen, &rl) < 0)
			return -1;
	} else if (early && my_read_sessions(src, out, false, true, chose, &mdl_seen) < 0) {
		return -1;
	}
	if (my_read_mdl(src, out, mdl_seen, &mdl_waits) < 0) {
		mariadb_rl_finish(rl, NULL);
		return -1;
	}
	/* the summaries' spend per refresh, over their reads and the
	 * refreshes between (read every 10-120 s at scale) */
	src->summary_ms = (1 - MY_SUMMARY_ALPHA) * src->summary_ms + MY_SUMMARY_ALPHA * p->summary_ms;
	src->lk_stamp_now = mysql_locks_stamp(st.have_begun, st.begun, st.row_waits, mdl_waits);
	if (my_read_locks(src, out, (unsigned)st.row_waits, mdl_waits, rl) < 0)
		return -1;
	/* a costly lock graph read this refresh */
	bool busy = src->lk_last && src->lk_read >= t0;
	if (my_sample_digests(src, out, busy, &st) < 0)
		return -1;
	/* busy: a costly lock graph or a paced digest read this refresh */
	if (joined || early)
		session_set_link_locks(out->sessions, out->locks);
	else if (my_read_sessions(src, out,
				  busy || (c->ps_digests && !out->digests_skipped &&
					   p->dg_pace.next > clock_mono() + 0.5),
				  false, maria ? chose : clock_mono(), NULL) < 0)
		return -1;
	if (want_settings && my_read_settings(src, out) < 0)
		return -1;
	repl_my_finish(&out->repl);
	out->state = STATE_UP;
	return 0;
}

const struct source_ops mysql_source_ops = SOURCE_OPS("mysql", my);

#include "abi.h"
PLUGIN_ABI_DEFINE;
