/* test_batch.c - the --batch records: JSON (schema 1) and text, for
 * MariaDB and PostgreSQL models, UP and DOWN. The JSON is checked with
 * Python's json module when python3 is available. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../../model/model.h"
#include "../../panes/rates.h"
#include "../../sources/mysql_map.h"
#include "../../sources/pg_map.h"
#include "../../app/batch.h"
#include "../../util/util.h"
#include "tap.h"

#include "pyjson.h"

static bool has_ctl(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	for (; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

static char *json_of(const struct model *m, const char *host)
{
	struct strbuf b;
	sb_init(&b);
	batch_json(m, host, 20, &b);
	return b.s;
}

static char *text_of(const struct model *m, const char *host)
{
	struct strbuf b;
	sb_init(&b);
	batch_text(m, host, NULL, &b);
	return b.s;
}

/* The text form with state kept between records. */
static char *text_st(const struct model *m, const char *host, struct batch_text_state *st)
{
	struct strbuf b;
	sb_init(&b);
	batch_text(m, host, st, &b);
	return b.s;
}

/* The longest line of t in code points. */
static int widest(const char *t)
{
	int w = 0, c = 0;
	for (; *t; t++) {
		if (*t == '\n') {
			c = 0;
			continue;
		}
		if (((unsigned char)*t & 0xc0) != 0x80 && ++c > w)
			w = c;
	}
	return w;
}

/* One MariaDB status sample. */
static void maria_sample(struct sample *s, const struct caps *c, double t, uint64_t commits,
			 uint64_t groups, uint64_t com, uint64_t data_fsyncs, uint64_t binlog_n,
			 uint64_t binlog_ps)
{
	char v[32], n[32], ps[32];
	uint64_t up = 0;

	memset(s, 0, sizeof *s);
	s->state = STATE_UP;
	s->mono = t;
	s->wall = 1764400000.25 + t;
	s->conn_gen = 1;
	s->query_ms = 1.5;
	s->nqueries = 2;
	str_printf(v, sizeof v, "%llu", (unsigned long long)commits);
	mysql_map_status(s, "Binlog_commits", v, &up);
	str_printf(v, sizeof v, "%llu", (unsigned long long)groups);
	mysql_map_status(s, "Binlog_group_commits", v, &up);
	str_printf(v, sizeof v, "%llu", (unsigned long long)com);
	mysql_map_status(s, "Com_commit", v, &up);
	mysql_map_status(s, "Handler_commit", v, &up);
	mysql_map_status(s, "Com_rollback", "0", &up);
	str_printf(v, sizeof v, "%llu", (unsigned long long)data_fsyncs);
	mysql_map_status(s, "Innodb_data_fsyncs", v, &up);
	str_printf(n, sizeof n, "%llu", (unsigned long long)binlog_n);
	str_printf(ps, sizeof ps, "%llu", (unsigned long long)binlog_ps);
	mysql_map_file(s, c, MY_BINLOG_EVENT, n, ps);
	mysql_map_finish(s, c, 0);
}

static void test_mariadb(void)
{
	struct model m;
	struct caps c;
	struct sample s;
	char *j, *t;
	int i, nnull = 0;

	memset(&c, 0, sizeof c);
	mysql_caps_version(&c, "10.11.6-MariaDB\x1b]0;pwned\x07-log", "mariadb.org binary distribution",
			   "1", "1");
	mysql_caps_privilege(&c, "PROCESS");
	mysql_caps_instrument(&c, MY_BINLOG_EVENT, "YES", "YES");
	mysql_caps_finish(&c, false, NULL);
	/* a note that arrived with odd bytes (bypassing notes_add) */
	str_copy(c.notes.msg[c.notes.n++], NOTE_LEN, "raw \"quoted\" note\x02 with \x1b[31m escape");

	model_init(&m, 8);
	model_set_caps(&m, &c);
	maria_sample(&s, &c, 1.0, 5000000, 2000000, 100, 7000, 300000, 600000000000000ULL);
	model_update(&m, &s);

	j = json_of(&m, "db1:3306");
	CHECK(strncmp(j, "{\"schema\":1,", 12) == 0, "json first: starts with {\"schema\":1,");
	for (i = 0; i < M__COUNT; i++) {
		char key[80];
		str_printf(key, sizeof key, "\"%s\":null", metric_defs[i].key);
		if (model_metric_applies(&m, (enum metric_id)i) && strstr(j, key))
			nnull++;
	}
	CHECK(nnull > 10 && !strstr(j, "_per_s\":0"), "json first: every rate null after one sample");
	check_py(j, "import json,sys; d=json.load(sys.stdin); "
		    "assert all(v is None for v in d[\"rates\"].values()); assert d[\"interval_s\"] is None",
		 "json first: python sees null rates and interval");
	free(j);

	maria_sample(&s, &c, 2.0, 5000300, 2000100, 110, 7150, 300100, 600100000000000ULL);
	s.settings_fresh = true;
	sample_setting(&s, "sync_binlog", "1");
	sample_setting(&s, "innodb_flush_log_at_trx_commit", "1");
	notes_add(&s.notes, "sample note with \"quotes\" and \\ backslash");
	model_update(&m, &s);

	j = json_of(&m, "db1:3306");
	CHECK(strncmp(j, "{\"schema\":1,", 12) == 0, "json mariadb: starts with {\"schema\":1,");
	CHECK(j[strlen(j) - 1] == '}', "json mariadb: ends with } (no newline)");
	CHECK(strstr(j, "\"state\":\"up\"") != NULL, "json mariadb: state up");
	CHECK(strstr(j, "\"engine\":\"mariadb\"") != NULL, "json mariadb: engine mariadb");
	CHECK(strstr(j, "\"host\":\"db1:3306\"") != NULL, "json mariadb: host");
	CHECK(strstr(j, "\"interval_s\":1,") != NULL, "json mariadb: interval_s 1");
	CHECK(strstr(j, "\"commits_per_s\":300") != NULL, "json mariadb: commits_per_s 300");
	CHECK(strstr(j, "\"com_commit_per_s\":10") != NULL, "json mariadb: com_commit_per_s present");
	CHECK(strstr(j, "\"handler_commit_per_s\":10") != NULL, "json mariadb: handler_commit_per_s present");
	CHECK(strstr(j, "\"binlog_commits_per_group\":3") != NULL, "json mariadb: commits per group 3");
	CHECK(strstr(j, "\"binlog_fsync_avg_ms\":1") != NULL, "json mariadb: binlog avg 1 ms");
	CHECK(strstr(j, "\"redo_fsync_avg_ms\":null") != NULL, "json mariadb: unknown rate is null, not 0");
	CHECK(!strstr(j, "wal_syncs_per_s") && !strstr(j, "wal_bytes_per_s"), "json mariadb: no PostgreSQL keys");
	CHECK(strstr(j, "\"settings\":{\"sync_binlog\":\"1\",\"innodb_flush_log_at_trx_commit\":\"1\"}") != NULL,
	      "json mariadb: settings present");
	CHECK(strstr(j, "\"commits\":\"Binlog_commits\"") != NULL, "json mariadb: commit source");
	CHECK(strstr(j, "raw \\\"quoted\\\" note") != NULL, "json mariadb: quote in a note escaped");
	CHECK(strstr(j, "\\\\ backslash") != NULL, "json mariadb: backslash in a note escaped");
	CHECK(!has_ctl(j), "json mariadb: no raw control byte (note with \\x02 and ESC)");
	CHECK(!strstr(j, "pwned\x07"), "json mariadb: no BEL from the version string");
	CHECK(strstr(j, "\"cost\":{\"query_ms\":1.500,\"queries\":2,\"own_commits\":null}") != NULL,
	      "json mariadb: cost (no own commits counted: the server's count holds none)");
	check_py(j, "import json,sys; json.load(sys.stdin)", "json mariadb: parses as JSON");
	check_py(j, "import json,sys; d=json.load(sys.stdin); r=d[\"rates\"]; "
		    "assert d[\"schema\"]==1 and d[\"state\"]==\"up\" and d[\"engine\"]==\"mariadb\"; "
		    "assert r[\"commits_per_s\"]==300 and r[\"fsyncs_per_s\"]==250; "
		    "assert abs(r[\"fsyncs_per_commit\"]-250/300)<1e-5; "
		    "assert r[\"redo_fsync_avg_ms\"] is None; assert \"wal_syncs_per_s\" not in r; "
		    "assert d[\"settings\"][\"sync_binlog\"]==\"1\"; "
		    "assert any(\"\\\"quoted\\\"\" in n for n in d[\"notes\"]); "
		    "assert not any(\"\\x1b\" in n or \"\\x02\" in n for n in d[\"notes\"])",
		 "json mariadb: values as parsed by python");
	free(j);

	t = text_of(&m, "db1:3306");
	CHECK(strstr(t, "  UP") != NULL, "text mariadb: UP");
	CHECK(strstr(t, "mariadb") != NULL && strstr(t, "db1:3306") != NULL, "text mariadb: engine and host");
	CHECK(!strchr(t, '\x1b') && !strchr(t, '\x07'), "text mariadb: no raw ESC/BEL from the version");
	CHECK(!strchr(t, '\x02'), "text mariadb: no raw control byte from a note");
	CHECK(strstr(t, "commits/s") && strstr(t, "300"), "text mariadb: commits/s 300");
	CHECK(strstr(t, "settings: sync_binlog=1") != NULL, "text mariadb: settings line");
	CHECK(strstr(t, "note: ") != NULL, "text mariadb: notes");
	CHECK(!strstr(t, "WAL"), "text mariadb: no WAL rows");
	CHECK(t[strlen(t) - 1] == '\n', "text mariadb: ends with a newline");
	free(t);

	/* like top -b: the notes and the settings once, lines within 160 */
	{
		struct batch_text_state st = {.top = 5};
		char host[300];
		memset(host, 'h', 220);
		host[220] = '\0';
		char *t1 = text_st(&m, "db1:3306", &st), *t2 = text_st(&m, "db1:3306", &st);
		CHECK(strstr(t1, "note: ") && !strstr(t2, "note: "), "text state: a note printed when it appears, not again");
		CHECK(strstr(t1, "settings: ") && !strstr(t2, "settings: "), "text state: the settings once while unchanged");
		CHECK(strstr(t2, "commits/s 300") != NULL, "text state: every record has its summary line");
		free(t1);
		free(t2);
		st.nnotes = 0;
		t1 = text_st(&m, host, &st);
		CHECK(widest(t1) <= 160, "text: every line within 160 columns (a 220-character host)");
		CHECK(strstr(t1, "...\n") != NULL, "text: the cut line ends with ...");
		CHECK(strstr(t1, "note: ") != NULL, "text state: a note printed again once it was gone");
		free(t1);
		st.wide = true;
		t1 = text_st(&m, host, &st);
		CHECK(widest(t1) > 220, "text --wide: the long line whole");
		free(t1);
	}

	/* DOWN */
	memset(&s, 0, sizeof s);
	s.state = STATE_DOWN;
	s.mono = 3.0;
	s.wall = 1764400003.0;
	s.conn_gen = 1;
	s.retry_in = 2.4;
	str_copy(s.error, sizeof s.error, "Can't connect to server on 'db1' (111)");
	model_update(&m, &s);
	j = json_of(&m, "db1:3306");
	CHECK(strstr(j, "\"state\":\"down\"") != NULL, "json down: state down");
	CHECK(!strstr(j, "_per_s\":3") && strstr(j, "\"commits_per_s\":null") != NULL,
	      "json down: commits null");
	CHECK(strstr(j, "\"interval_s\":null") != NULL, "json down: interval null");
	CHECK(strstr(j, "retrying in 3s") != NULL, "json down: reason and retry in notes");
	CHECK(strstr(j, "Can't connect") != NULL, "json down: single quote kept");
	check_py(j, "import json,sys; d=json.load(sys.stdin); "
		    "assert d[\"state\"]==\"down\"; assert all(v is None for v in d[\"rates\"].values()); "
		    "assert len(d[\"rates\"])>10",
		 "json down: python sees every rate null");
	free(j);
	t = text_of(&m, "db1:3306");
	CHECK(strstr(t, "DOWN") && strstr(t, "retrying in 3s"), "text down: DOWN, retrying");
	CHECK(!strstr(t, "  UP"), "text down: not UP");
	CHECK(strstr(t, "- (down)") != NULL, "text down: rates shown as - (down)");
	free(t);

	/* STALLED */
	memset(&s, 0, sizeof s);
	s.state = STATE_STALLED;
	s.mono = 4.0;
	s.conn_gen = 1;
	str_copy(s.error, sizeof s.error, "query exceeded 2s");
	model_update(&m, &s);
	j = json_of(&m, "db1:3306");
	t = text_of(&m, "db1:3306");
	CHECK(strstr(j, "\"state\":\"stalled\"") != NULL, "json stalled: state stalled");
	CHECK(strstr(t, "STALLED") != NULL, "text stalled: STALLED");
	free(j);
	free(t);
	model_free(&m);
}

static void pg_sample(struct sample *s, const struct caps *c, double t, const char *xc,
		      const char *syncs, const char *sync_ms, uint64_t own)
{
	const char *cells[PGC__COUNT] = {0};
	memset(s, 0, sizeof *s);
	s->state = STATE_UP;
	s->mono = t;
	s->wall = 1764400000.0 + t;
	s->conn_gen = 1;
	cells[PGC_XACT_COMMIT] = xc;
	cells[PGC_XACT_ROLLBACK] = "0";
	cells[PGC_START] = "1764390000.25";
	cells[PGC_WAL_RECORDS] = "1000";
	cells[PGC_WAL_BYTES] = "4096000";
	cells[PGC_WAL_WRITE] = syncs;
	cells[PGC_WAL_WRITE_TIME] = sync_ms;
	cells[PGC_WAL_SYNC] = syncs;
	cells[PGC_WAL_SYNC_TIME] = sync_ms;
	cells[PGC_WAL_RESET] = "1764300000";
	pg_map_counters(s, c, cells, own);
}

static void test_pg(void)
{
	static const char *probe[PGP__COUNT] = {
		"17.2", "170002", "f", NULL, NULL, "", "t", "t", "off", "f", "t",
	};
	struct model m;
	struct caps c;
	struct sample s;
	char *j, *t;

	memset(&c, 0, sizeof c);
	pg_caps_probe(&c, probe);
	pg_caps_finish(&c, false);
	model_init(&m, 8);
	model_set_caps(&m, &c);
	pg_sample(&s, &c, 1.0, "1000", "500", "0", 1);
	model_update(&m, &s);
	pg_sample(&s, &c, 3.0, "1402", "900", "0", 2);
	s.settings_fresh = true;
	sample_setting(&s, "synchronous_commit", "on");
	model_update(&m, &s);

	j = json_of(&m, "/var/run/postgresql");
	CHECK(strncmp(j, "{\"schema\":1,", 12) == 0, "json pg: starts with {\"schema\":1,");
	CHECK(strstr(j, "\"engine\":\"postgresql\"") != NULL, "json pg: engine postgresql");
	CHECK(strstr(j, "\"state\":\"up\"") != NULL, "json pg: state up");
	CHECK(strstr(j, "\"interval_s\":2,") != NULL, "json pg: interval 2 s");
	CHECK(strstr(j, "\"commits_per_s\":200.5") != NULL, "json pg: commits (402-1)/2");
	CHECK(strstr(j, "\"own_commits\":1}") != NULL, "json pg: cost says the 1 own transaction left out");
	CHECK(strstr(j, "\"wal_syncs_per_s\":200") != NULL, "json pg: wal_syncs_per_s present");
	CHECK(strstr(j, "\"wal_sync_avg_ms\":null") != NULL, "json pg: sync time unknown -> null");
	CHECK(!strstr(j, "com_commit_per_s") && !strstr(j, "handler_commit_per_s") &&
	      !strstr(j, "binlog_"), "json pg: no MySQL keys");
	CHECK(strstr(j, "\"wal\":\"pg_stat_wal\"") != NULL, "json pg: WAL source");
	CHECK(strstr(j, "\"settings\":{\"synchronous_commit\":\"on\"}") != NULL, "json pg: settings");
	CHECK(strstr(j, "pg_stat_statements is not installed") != NULL, "json pg: pgss note");
	CHECK(strstr(j, "track_wal_io_timing") != NULL, "json pg: timing note");
	CHECK(!has_ctl(j), "json pg: no raw control bytes");
	check_py(j, "import json,sys; d=json.load(sys.stdin); r=d[\"rates\"]; "
		    "assert d[\"engine\"]==\"postgresql\"; assert r[\"wal_syncs_per_s\"]==200; "
		    "assert r[\"wal_sync_avg_ms\"] is None; assert \"com_commit_per_s\" not in r; "
		    "assert abs(r[\"fsyncs_per_commit\"]-200/200.5)<1e-5",
		 "json pg: values as parsed by python");
	free(j);

	t = text_of(&m, "/var/run/postgresql");
	CHECK(strstr(t, "postgresql 17.2") && strstr(t, "  UP"), "text pg: engine, version, UP");
	CHECK(strstr(t, "fsyncs/s 200") && strstr(t, "fsyncs/commit") != NULL, "text pg: the WAL syncs as fsyncs/s, fsyncs/commit in the summary line");
	CHECK(!strstr(t, "Com_commit"), "text pg: no MySQL rows");
	free(t);
	model_free(&m);
}

static void test_rates_format(void)
{
	char buf[48];
	struct rate r = {.v = NAN, .st = RATE_RESET};
	CHECK_STR(rates_format(M_COMMITS, &r, buf, sizeof buf), "- (reset)", "rates_format: reset");
	r.st = RATE_OK;
	r.v = 1234.4;
	CHECK_STR(rates_format(M_COMMITS, &r, buf, sizeof buf), "1234", "rates_format: >= 100 no decimals");
	r.v = 0.5;
	CHECK_STR(rates_format(M_WAL_SYNC_MS, &r, buf, sizeof buf), "0.500 ms", "rates_format: ms");
	r.v = 1048576;
	CHECK_STR(rates_format(M_WAL_BYTES, &r, buf, sizeof buf), "1.0M/s", "rates_format: bytes per second");
}

int main(void)
{
	have_python = system("command -v python3 >/dev/null 2>&1") == 0;
	test_mariadb();
	test_pg();
	test_rates_format();
	return TAP_DONE();
}
