/* pg_map.c - PostgreSQL rows to caps and counters. */
#include "pg_map.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../model/digests.h"
#include "../model/waits.h"
#include "../util/util.h"

/* True for a "t" boolean cell. */
static bool cell_true(const char *v)
{
	return v && v[0] == 't';
}

/* Digits [. digits] times scale (1, or a power of ten up to 1e9) exactly,
 * rounded half up, into *out: the usual shape of a counter or a time in
 * ms, without strtod (thousands of cells per digest read). False for any
 * other shape (signs, exponents, NaN, too many digits). */
static bool cell_u64_fast(const char *s, double scale, uint64_t *out)
{
	uint64_t v = 0, pow = 1;
	int k = 0;
	const char *p = s;
	while (pow < 1000000000ull && (double)pow < scale)
		pow *= 10, k++;
	if ((double)pow != scale || *p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX / 10 - 9) / pow)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	v *= pow;
	if (*p == '.') {
		uint64_t f = pow;
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (f > 1) {
				f /= 10;
				v += (uint64_t)(*p - '0') * f;
			} else if (f == 1) {
				v += *p >= '5';   /* the first digit past the scale rounds */
				f = 0;
			}
		}
	}
	if (*p)
		return false;
	*out = v;
	return true;
}

/* Parse a non-negative number (integer, numeric or float) times scale. */
static bool cell_u64(const char *s, double scale, uint64_t *out)
{
	char *e;
	double d;
	if (!s)
		return false;
	if (cell_u64_fast(s, scale, out))
		return true;
	d = strtod(s, &e);
	if (e == s || *e || d < 0 || !isfinite(d))
		return false;
	*out = (uint64_t)d_llround(d * scale);
	return true;
}

void pg_caps_probe(struct caps *c, const char *const cell[PGP__COUNT])
{
	const char *v;
	c->engine = ENGINE_POSTGRESQL;
	c->flavour = FLAVOUR_POSTGRESQL;
	str_copy(c->version, sizeof c->version, cell[PGP_VERSION] ? cell[PGP_VERSION] : "?");
	text_sanitize(c->version);
	c->version_num = cell[PGP_VERSION_NUM] ? atol(cell[PGP_VERSION_NUM]) : 0;
	c->in_recovery = cell_true(cell[PGP_IN_RECOVERY]);
	c->pgss_version = 0;
	if ((v = cell[PGP_PGSS])) {
		int maj = 0, min = 0;
		sscanf(v, "%d.%d", &maj, &min);
		c->pgss_version = maj * 100 + min;
	}
	c->pg_wait_sampling = cell[PGP_PGWS] != NULL;
	c->pgss_loaded = (v = cell[PGP_PRELOAD]) && strstr(v, "pg_stat_statements");
	c->pgss_db[0] = '\0';
	/* loaded but not created here: the backend says where it reads it */
	if (!c->pgss_version && !c->pgss_loaded)
		notes_add(&c->notes, "pg_stat_statements is not installed: add it to shared_preload_libraries "
			  "(restart) and CREATE EXTENSION pg_stat_statements in this database");
	c->track_wal_io_timing = (v = cell[PGP_TRACK_WAL_IO]) && strcmp(v, "on") == 0;
	c->superuser = cell_true(cell[PGP_SUPER]);
	c->pg_monitor = c->superuser || cell_true(cell[PGP_MONITOR]);
	c->wal_stats = cell_true(cell[PGP_HAS_WAL_SYNC]) ? WAL_STAT_WAL : WAL_LSN;
}

void pg_caps_finish(struct caps *c, bool io_has_wal)
{
	if (c->wal_stats != WAL_STAT_WAL && io_has_wal)
		c->wal_stats = WAL_STAT_IO;   /* PG18+: WAL I/O moved to pg_stat_io */
	if (c->wal_stats == WAL_LSN)
		notes_add(&c->notes, "this server has no WAL write/sync statistics (pg_stat_wal appeared in "
			  "PostgreSQL 14): WAL bytes/s come from LSN differences, WAL syncs are unknown");
	else if (!c->track_wal_io_timing)
		notes_add(&c->notes, "WAL write/sync times need track_wal_io_timing=on "
			  "(ALTER SYSTEM SET track_wal_io_timing = on; SELECT pg_reload_conf())");
	if (!c->pg_monitor)
		notes_add(&c->notes, "role lacks pg_monitor: other sessions' queries and some statistics "
			  "are hidden (GRANT pg_monitor TO the monitoring role)");
}

#define PG_DB_SUBQ \
	"(SELECT sum(xact_commit) AS xc, sum(xact_rollback) AS xr, " \
	"sum(extract(epoch FROM stats_reset)) AS rst FROM pg_stat_database) d"

const char *pg_counters_sql(const struct caps *c)
{
	switch (c->wal_stats) {
	case WAL_STAT_WAL:
		return "SELECT d.xc, d.xr, d.rst, extract(epoch FROM pg_postmaster_start_time()), "
		       "w.wal_records, w.wal_fpi, w.wal_bytes, w.wal_buffers_full, w.wal_write, "
		       "w.wal_write_time, w.wal_sync, w.wal_sync_time, extract(epoch FROM w.stats_reset) "
		       "FROM " PG_DB_SUBQ ", pg_stat_wal w";
	case WAL_STAT_IO:
		return "SELECT d.xc, d.xr, d.rst, extract(epoch FROM pg_postmaster_start_time()), "
		       "w.wal_records, w.wal_fpi, w.wal_bytes, w.wal_buffers_full, i.writes, "
		       "i.write_time, i.fsyncs, i.fsync_time, "
		       "extract(epoch FROM w.stats_reset) + coalesce(i.rst, 0) "
		       "FROM " PG_DB_SUBQ ", pg_stat_wal w, "
		       "(SELECT sum(writes) AS writes, sum(write_time) AS write_time, sum(fsyncs) AS fsyncs, "
		       " sum(fsync_time) AS fsync_time, sum(extract(epoch FROM stats_reset)) AS rst "
		       " FROM pg_stat_io WHERE object = 'wal' AND context = 'normal') i";
	default:
		return "SELECT d.xc, d.xr, d.rst, extract(epoch FROM pg_postmaster_start_time()), "
		       "NULL, NULL, CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() "
		       "ELSE pg_current_wal_lsn() END - '0/0'::pg_lsn "
		       "FROM " PG_DB_SUBQ;
	}
}

void pg_map_counters(struct sample *out, const struct caps *c, const char *const cell[PGC__COUNT],
		     uint64_t own_xacts)
{
	static const int cols[][2] = {
		{PGC_WAL_RECORDS, CTR_WAL_RECORDS}, {PGC_WAL_FPI, CTR_WAL_FPI},
		{PGC_WAL_BYTES, CTR_WAL_BYTES}, {PGC_WAL_BUFFERS_FULL, CTR_WAL_BUFFERS_FULL},
		{PGC_WAL_WRITE, CTR_WAL_WRITES}, {PGC_WAL_SYNC, CTR_WAL_SYNCS},
	};
	uint64_t v, start_epoch, db_epoch, wal_epoch;
	size_t i;

	/* reset markers: postmaster start, and the stats_reset stamps (ms) */
	start_epoch = cell_u64(cell[PGC_START], 1000, &v) ? v : 0;
	if (start_epoch && out->wall > (double)start_epoch / 1000)
		out->uptime_s = out->wall - (double)start_epoch / 1000;
	db_epoch = start_epoch ^ (cell_u64(cell[PGC_DB_RESET], 1000, &v) ? v : 0);
	if (cell_u64(cell[PGC_XACT_COMMIT], 1, &v))
		sample_set(out, CTR_COMMITS, v, db_epoch);
	sample_set(out, CTR_OWN_COMMITS, own_xacts, db_epoch);
	if (cell_u64(cell[PGC_XACT_ROLLBACK], 1, &v))
		sample_set(out, CTR_ROLLBACKS, v, db_epoch);
	if (c->wal_stats == WAL_LSN) {
		if (cell_u64(cell[PGC_WAL_BYTES], 1, &v))
			sample_set(out, CTR_WAL_BYTES, v, start_epoch);
		return;
	}
	wal_epoch = start_epoch ^ (cell_u64(cell[PGC_WAL_RESET], 1000, &v) ? v : 0);
	for (i = 0; i < sizeof cols / sizeof cols[0]; i++)
		if (cell_u64(cell[cols[i][0]], 1, &v))
			sample_set(out, cols[i][1], v, wal_epoch);
	if (c->track_wal_io_timing) {
		/* ms (float8) -> ns */
		if (cell_u64(cell[PGC_WAL_WRITE_TIME], 1e6, &v))
			sample_set(out, CTR_WAL_WRITE_NS, v, wal_epoch);
		if (cell_u64(cell[PGC_WAL_SYNC_TIME], 1e6, &v))
			sample_set(out, CTR_WAL_SYNC_NS, v, wal_epoch);
	}
	if (out->c[CTR_WAL_SYNCS].present)
		out->c[CTR_FSYNCS] = out->c[CTR_WAL_SYNCS];
}

const char *pg_digest_sql(const struct caps *c)
{
	int v = c->pgss_version;
	if (!v)
		return NULL;
	if (v >= 111)
		return "SELECT s.userid, s.dbid, s.queryid, s.toplevel, s.calls, s.total_exec_time, "
		       "s.total_plan_time, s.rows, s.shared_blks_hit, s.shared_blks_read, s.wal_bytes, "
		       "extract(epoch FROM s.stats_since), d.datname "
		       "FROM pg_stat_statements(false) s LEFT JOIN pg_database d ON d.oid = s.dbid "
		       "WHERE s.queryid IS NOT NULL";
	if (v >= 109)
		return "SELECT s.userid, s.dbid, s.queryid, s.toplevel, s.calls, s.total_exec_time, "
		       "s.total_plan_time, s.rows, s.shared_blks_hit, s.shared_blks_read, s.wal_bytes, "
		       "NULL, d.datname "
		       "FROM pg_stat_statements(false) s LEFT JOIN pg_database d ON d.oid = s.dbid "
		       "WHERE s.queryid IS NOT NULL";
	if (v >= 108)
		return "SELECT s.userid, s.dbid, s.queryid, true, s.calls, s.total_exec_time, "
		       "s.total_plan_time, s.rows, s.shared_blks_hit, s.shared_blks_read, s.wal_bytes, "
		       "NULL, d.datname "
		       "FROM pg_stat_statements(false) s LEFT JOIN pg_database d ON d.oid = s.dbid "
		       "WHERE s.queryid IS NOT NULL";
	return "SELECT s.userid, s.dbid, s.queryid, true, s.calls, s.total_time, 0, s.rows, "
	       "s.shared_blks_hit, s.shared_blks_read, NULL, NULL, d.datname "
	       "FROM pg_stat_statements(false) s LEFT JOIN pg_database d ON d.oid = s.dbid "
	       "WHERE s.queryid IS NOT NULL";
}

char *pg_digest_text_sql(const struct caps *c, const char *const *ids, size_t n, char *buf, size_t len)
{
	size_t i, off;
	/* one array constant: the statement is one digest of its own however
	 * many ids it asks for (an IN list of each length would be another) */
	off = str_printf(buf, len, "SELECT userid, dbid, queryid, %s, query FROM pg_stat_statements(true) "
			 "WHERE queryid = ANY ('{", c->pgss_version >= 109 ? "toplevel" : "true");
	size_t good = 0;
	for (i = 0; i < n && off + 32 < len; i++) {
		const char *id = ids[i], *digits;
		if (!id)
			continue;
		digits = id + (*id == '-');
		if (!*digits || strspn(digits, "0123456789") != strlen(digits))
			continue;
		off += str_printf(buf + off, len - off, "%s%s", buf[off - 1] == '{' ? "" : ",", id);
		good++;
	}
	str_printf(buf + off, len - off, "}'::bigint[])");
	return good ? buf : NULL;
}

void pg_digest_key(char *key, size_t len, const char *userid, const char *dbid, const char *queryid,
		   const char *toplevel)
{
	const char *part[3] = {userid, dbid, queryid};
	size_t n = 0;
	bool plain = true;
	/* "user:db:query:t|f" by hand: one per row of every digest read */
	for (int i = 0; i < 3; i++) {
		for (const char *c = part[i] ? part[i] : ""; *c && n + 6 < len; c++) {
			plain = plain && ((*c >= '0' && *c <= '9') || *c == '-');
			key[n++] = *c;
		}
		key[n++] = ':';
	}
	key[n++] = toplevel && toplevel[0] == 'f' ? 'f' : 't';
	key[n] = '\0';
	if (!plain)   /* ids are numbers: anything else is cleaned */
		text_sanitize(key);
}

void pg_map_digest(struct digest_set *set, const char *const cell[PGD__COUNT])
{
	struct digest_row *r = digest_set_add(set);
	uint64_t v, plan = 0;
	bool have_plan;
	pg_digest_key(r->key, sizeof r->key, cell[PGD_USERID], cell[PGD_DBID], cell[PGD_QUERYID],
		      cell[PGD_TOPLEVEL]);
	str_copy(r->schema, sizeof r->schema, cell[PGD_DATNAME] ? cell[PGD_DATNAME] : "");
	text_sanitize(r->schema);
	if (cell_u64(cell[PGD_CALLS], 1, &v)) {
		r->c[DG_CALLS] = v;
		r->have |= 1u << DG_CALLS;
	}
	have_plan = cell_u64(cell[PGD_PLAN_MS], 1e6, &plan);
	if (have_plan) {
		r->c[DG_PLAN_NS] = plan;
		r->have |= 1u << DG_PLAN_NS;
	}
	if (cell_u64(cell[PGD_EXEC_MS], 1e6, &v)) {
		r->c[DG_TOTAL_NS] = v + plan;   /* execution + planning */
		r->have |= 1u << DG_TOTAL_NS;
	}
	if (cell_u64(cell[PGD_ROWS], 1, &v)) {
		r->c[DG_ROWS] = v;
		r->have |= 1u << DG_ROWS;
	}
	if (cell_u64(cell[PGD_HIT], 1, &v)) {
		r->c[DG_BLKS_HIT] = v;
		r->have |= 1u << DG_BLKS_HIT;
	}
	if (cell_u64(cell[PGD_READ], 1, &v)) {
		r->c[DG_BLKS_READ] = v;
		r->have |= 1u << DG_BLKS_READ;
	}
	if (cell_u64(cell[PGD_WAL], 1, &v)) {
		r->c[DG_WAL_BYTES] = v;
		r->have |= 1u << DG_WAL_BYTES;
	}
	if (cell[PGD_SINCE]) {
		r->first_seen = strtod(cell[PGD_SINCE], NULL);
		r->epoch = (uint64_t)d_llround(r->first_seen * 1000);
	}
}

/* The hash of cells [from, to) of a digest row (NULL apart from ""). */
static uint64_t cells_hash(uint64_t h, const char *const cell[PGD__COUNT], int from, int to)
{
	for (int k = from; k < to; k++)
		h = cell[k] ? hash_words(h, cell[k], strlen(cell[k])) : hash_words(h + 1, "", 0);
	return h;
}

void pg_changes_init(struct pg_changes *c)
{
	memset(c, 0, sizeof *c);
	hmap_init(&c->ix, true, sizeof(uint32_t), 1024);
	c->head = UINT32_MAX;
}

void pg_changes_free(struct pg_changes *c)
{
	hmap_free(&c->ix);
	free(c->seen);
	memset(c, 0, sizeof *c);
}

void pg_changes_begin(struct pg_changes *c)
{
	c->reads++;
	c->prev = UINT32_MAX;
	c->predicted = c->head;
	c->rows = c->again = 0;
}

/* The entry of the digest with key hash kh: where the last read's order
 * predicts, else by its hash; added when new. */
static struct pg_seen *seen_find(struct pg_changes *c, uint64_t kh)
{
	bool added;
	if (c->predicted < c->n && c->seen[c->predicted].kh == kh)
		return &c->seen[c->predicted];
	uint32_t *ix = hmap_put_u64(&c->ix, kh, &added);
	if (!added)
		return &c->seen[*ix];
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		c->seen = xrealloc(c->seen, c->cap * sizeof *c->seen);
	}
	*ix = (uint32_t)c->n;
	c->seen[c->n] = (struct pg_seen){.kh = kh, .calls = UINT64_MAX, .next = UINT32_MAX};
	return &c->seen[c->n++];
}

unsigned pg_changes_row(struct pg_changes *c, const char *const cell[PGD__COUNT])
{
	struct pg_seen *sn = seen_find(c, cells_hash(HASH_SEED, cell, PGD_USERID, PGD_CALLS));
	uint32_t ix = (uint32_t)(sn - c->seen);
	uint64_t fp = cells_hash(cells_hash(HASH_SEED, cell, PGD_CALLS, PGD_ROWS), cell, PGD_SINCE, PGD_DATNAME);
	uint64_t calls = cell[PGD_CALLS] ? strtoull(cell[PGD_CALLS], NULL, 10) : 0;
	bool listed = sn->calls != UINT64_MAX && sn->read + 1 == c->reads; /* by the last read */
	unsigned pick = (!listed || sn->fp != fp ? PG_PICK_KEEP : 0) |
			(sn->calls != calls && (sn->calls != UINT64_MAX || c->reads > 1) ? PG_PICK_MOVED : 0);
	c->again += listed;
	c->rows++;
	c->predicted = sn->next;
	if (c->prev == UINT32_MAX)
		c->head = ix;
	else
		c->seen[c->prev].next = ix;
	c->prev = ix;
	sn->calls = calls;
	sn->fp = fp;
	sn->read = c->reads;
	return pick;
}

bool pg_changes_end(struct pg_changes *c)
{
	if (c->prev == UINT32_MAX)
		c->head = UINT32_MAX;
	else
		c->seen[c->prev].next = UINT32_MAX;
	bool whole = c->reads <= 1 || c->again < c->listed;
	c->listed = c->rows;
	return whole;
}

void pg_pending_sql(struct strbuf *q, bool hba_rules, bool stat_file)
{
	/* the last line of a parameter is the one a reload applies; the value
	 * in force is compared only where the files decide it (a command-line
	 * or session value hides them; postmaster parameters wait for a
	 * restart and show as errors) */
	sb_puts(q, "WITH f AS (SELECT * FROM pg_show_all_file_settings()), "
		   "l AS (SELECT DISTINCT ON (lower(name)) * FROM f WHERE name IS NOT NULL "
		   "ORDER BY lower(name), seqno DESC) "
		   "SELECT 'e', sourcefile, sourceline, name, setting, NULL, NULL, NULL, NULL, error FROM f "
		   "WHERE error IS NOT NULL "
		   "UNION ALL SELECT 'v', l.sourcefile, l.sourceline, s.name, l.setting, s.setting, s.unit, s.vartype, "
		   "current_setting(s.name), NULL FROM l JOIN pg_settings s ON lower(s.name) = lower(l.name) "
		   "WHERE l.error IS NULL AND s.context <> 'postmaster' "
		   "AND s.source IN ('default', 'configuration file', 'environment variable') "
		   "UNION ALL SELECT 'r', s.sourcefile, s.sourceline, s.name, NULL, s.setting, s.unit, s.vartype, "
		   "current_setting(s.name), s.boot_val FROM pg_settings s WHERE s.source = 'configuration file' "
		   "AND s.context <> 'postmaster' AND NOT EXISTS (SELECT 1 FROM l WHERE lower(l.name) = lower(s.name)) "
		   "UNION ALL SELECT 'a', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
		   "(count(*) FILTER (WHERE applied))::text FROM f");
	if (hba_rules)
		sb_puts(q, " UNION ALL SELECT 'h', NULL, line_number, NULL, NULL, NULL, NULL, NULL, NULL, error "
			   "FROM pg_hba_file_rules WHERE error IS NOT NULL");
	/* (whole seconds: an edit in the second of the last load is not seen) */
	if (stat_file)
		sb_puts(q, " UNION ALL SELECT 'm', s.setting, NULL, s.name, NULL, NULL, NULL, NULL, NULL, NULL "
			   "FROM pg_settings s WHERE s.name IN ('hba_file', 'ident_file') "
			   "AND (pg_stat_file(s.setting, true)).modification > pg_conf_load_time()");
}

/* Factor of a unit name to its base (bytes or microseconds); kind 'm'
 * memory, 't' time. 0 when not a unit (PostgreSQL's names, case-sensitive). */
static double unit_factor(const char *u, size_t n, char *kind)
{
	static const struct {
		const char *name;
		double f;
		char kind;
	} units[] = {
		{"B", 1, 'm'}, {"kB", 1024.0, 'm'}, {"MB", 1048576.0, 'm'}, {"GB", 1073741824.0, 'm'},
		{"TB", 1099511627776.0, 'm'}, {"us", 1, 't'}, {"ms", 1e3, 't'}, {"s", 1e6, 't'},
		{"min", 6e7, 't'}, {"h", 3.6e9, 't'}, {"d", 8.64e10, 't'},
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strlen(units[i].name) == n && strncmp(units[i].name, u, n) == 0) {
			*kind = units[i].kind;
			return units[i].f;
		}
	return 0;
}

/* A number with an optional unit ("7MB", "1.5 s", "0x10") in base units
 * (bytes, microseconds; or the plain number when unit is 0). */
static bool number_in(const char *s, double *out, char *kind)
{
	char *end;
	double v;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return false;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		v = (double)strtoll(s, &end, 16);
	else
		v = strtod(s, &end);
	if (end == s || !isfinite(v))
		return false;
	while (*end == ' ' || *end == '\t')
		end++;
	size_t n = strlen(end);
	while (n && (end[n - 1] == ' ' || end[n - 1] == '\t'))
		n--;
	*kind = 0;
	if (n) {
		double f = unit_factor(end, n, kind);
		if (f == 0)
			return false;
		v *= f;
	}
	*out = v;
	return true;
}

/* PostgreSQL's boolean spellings (parse_bool): 1 true, 0 false, -1 none. */
static int pg_bool(const char *s)
{
	static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
	size_t n = strlen(s);
	if (n == 0)
		return -1;
	if (strcmp(s, "1") == 0)
		return 1;
	if (strcmp(s, "0") == 0)
		return 0;
	for (int i = 0; i < 3; i++) {
		/* "o" alone says neither on nor off */
		size_t min = i == 2 ? 2 : 1;
		if (n >= min && n <= strlen(yes[i]) && strncasecmp(s, yes[i], n) == 0)
			return 1;
		if (n >= min && n <= strlen(no[i]) && strncasecmp(s, no[i], n) == 0)
			return 0;
	}
	return -1;
}

bool pg_setting_same(const char *file, const char *now, const char *unit, const char *type)
{
	if (!file || !now)
		return false;
	if (type && strcmp(type, "bool") == 0) {
		int a = pg_bool(file), b = pg_bool(now);
		return a >= 0 && a == b;
	}
	if (type && (strcmp(type, "integer") == 0 || strcmp(type, "real") == 0)) {
		double a, b, base = 1, mult = 1;
		char ka, kb, kbase = 0;
		if (!number_in(file, &a, &ka) || !number_in(now, &b, &kb) || kb)
			return false;
		if (unit && *unit) {
			/* "8kB", "16MB", "ms": an optional count, then the unit */
			char *end;
			mult = strtod(unit, &end);
			if (end == unit)
				mult = 1;
			base = unit_factor(end, strlen(end), &kbase);
			if (base == 0)
				return false;
			base *= mult;
		}
		if (ka && ka != kbase)
			return false;
		/* a file value without a unit is in the parameter's unit */
		if (ka)
			a /= base;
		if (strcmp(type, "integer") == 0)   /* PostgreSQL rounds to the unit */
			return (long long)(a < 0 ? a - 0.5 : a + 0.5) == (long long)(b < 0 ? b - 0.5 : b + 0.5);
		return fabs(a - b) <= 1e-9 * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-12;
	}
	/* enums that take boolean spellings (synchronous_commit = true is on) */
	if (type && strcmp(type, "enum") == 0 && pg_bool(file) >= 0 && pg_bool(file) == pg_bool(now))
		return true;
	/* enums, and strings such as DateStyle, are read whatever their case (a
	 * change of case alone in a path-like string goes unseen) */
	return strcasecmp(file, now) == 0;
}

/* The file name of a path. */
static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "?";
}

/* At most this many items are named; the rest are counted. */
#define PENDING_ITEMS 4

void pg_pending_note(char *out, size_t len, const char *const (*rows)[PGF__COUNT], int nrows)
{
	struct strbuf b;
	int items = 0, errors = 0;
	bool none_applied = false;
	sb_init(&b);
	for (int i = 0; i < nrows; i++) {
		const char *const *c = rows[i];
		const char *k = c[PGF_KIND] ? c[PGF_KIND] : "";
		char item[400];
		item[0] = '\0';
		switch (k[0]) {
		case 'e':
			errors++;
			if (c[PGF_NAME])
				str_printf(item, sizeof item, "%s:%s %s = '%s': %s", base_name(c[PGF_FILE]),
					   c[PGF_LINE] ? c[PGF_LINE] : "?", c[PGF_NAME], c[PGF_VALUE] ? c[PGF_VALUE] : "",
					   c[PGF_ERROR]);
			else
				str_printf(item, sizeof item, "%s:%s: %s", base_name(c[PGF_FILE]),
					   c[PGF_LINE] ? c[PGF_LINE] : "?", c[PGF_ERROR]);
			break;
		case 'v':
			if (!pg_setting_same(c[PGF_VALUE], c[PGF_NOW], c[PGF_UNIT], c[PGF_TYPE]))
				str_printf(item, sizeof item, "%s = '%s' (%s:%s; now %s)", c[PGF_NAME],
					   c[PGF_VALUE] ? c[PGF_VALUE] : "", base_name(c[PGF_FILE]),
					   c[PGF_LINE] ? c[PGF_LINE] : "?", c[PGF_SHOW] ? c[PGF_SHOW] : "?");
			break;
		case 'r':
			str_printf(item, sizeof item, "%s: its line is gone from the files (now %s; a reload resets it to "
				   "%s)", c[PGF_NAME], c[PGF_SHOW] ? c[PGF_SHOW] : "?",
				   c[PGF_ERROR] ? c[PGF_ERROR] : "the default");
			break;
		case 'h':
			errors++;
			str_printf(item, sizeof item, "pg_hba.conf line %s: %s (a reload keeps the old rules)",
				   c[PGF_LINE] ? c[PGF_LINE] : "?", c[PGF_ERROR] ? c[PGF_ERROR] : "error");
			break;
		case 'm':
			str_printf(item, sizeof item, "%s changed after the configuration was last loaded: a reload "
				   "applies its edits", base_name(c[PGF_FILE]));
			break;
		case 'a':
			none_applied = c[PGF_ERROR] && strcmp(c[PGF_ERROR], "0") == 0;
			break;
		default:
			break;
		}
		if (!item[0])
			continue;
		if (items < PENDING_ITEMS) {
			if (items)
				sb_puts(&b, "; ");
			sb_puts(&b, item);
		}
		items++;
	}
	out[0] = '\0';
	if (!items) {
		sb_free(&b);
		return;
	}
	if (items > PENDING_ITEMS)
		sb_printf(&b, "; and %d more", items - PENDING_ITEMS);
	if (errors && none_applied)
		str_printf(out, len, "while the configuration files have this error a reload applies NONE of their "
			   "settings: the change would be written to postgresql.auto.conf but not take effect: %s", b.s);
	else
		str_printf(out, len, "pg_reload_conf() rereads every configuration file, and they hold more than this "
			   "change: %s", b.s);
	text_sanitize(out);
	sb_free(&b);
}

/* ---- dbtop's own statements ---- */

/* The end of the comment, string or quoted name that starts at q (q
 * itself when none starts there). */
static const char *pg_skip_quoted(const char *q, const char *end)
{
	if (q + 1 < end && q[0] == '-' && q[1] == '-') {
		while (q < end && *q != '\n')
			q++;
		return q;
	}
	if (q + 1 < end && q[0] == '/' && q[1] == '*') {
		int depth = 0; /* PostgreSQL's comments nest */
		while (q < end) {
			if (q + 1 < end && q[0] == '/' && q[1] == '*') {
				depth++;
				q += 2;
			} else if (q + 1 < end && q[0] == '*' && q[1] == '/') {
				q += 2;
				if (--depth == 0)
					return q;
			} else {
				q++;
			}
		}
		return q;
	}
	if (*q == '\'' || *q == '"') {
		char ch = *q++;
		while (q < end) {
			if (*q == ch && q + 1 < end && q[1] == ch)
				q += 2; /* a doubled quote */
			else if (*q++ == ch)
				break;
		}
		return q;
	}
	return q;
}

static bool pg_word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
	       c >= 0x80;
}

/* Append c to the signature out (n bytes so far, at most len). */
static void pg_sig_put(char *out, size_t *n, size_t len, char c)
{
	if (*n + 1 < len)
		out[(*n)++] = c;
	out[*n] = '\0';
}

/* The signature of q[0..qlen) into out (at most len bytes): the text as
 * pg_stat_statements writes it, in one spelling: literals and parameters
 * as ? (a list of them as one: PostgreSQL 18 writes an IN list of
 * constants as one), words upper-cased, no comments, no blanks but one
 * between two words, no minus sign (the server's constant takes it).
 * Returns the count of words. */
static unsigned pg_sig_words(const char *q, size_t qlen, char *out, size_t len)
{
	const char *end = q + qlen;
	size_t n = 0;
	unsigned words = 0;
	out[0] = '\0';
	while (q < end && n + 2 < len) {
		const char *nq = pg_skip_quoted(q, end), *w = q;
		if (nq != q && *q != '"') {
			q = nq;
			if (*w != '\'')
				continue; /* a comment */
		} else if (nq == q && (*q == '$' || (*q >= '0' && *q <= '9'))) {
			/* a parameter ($1) or a number */
			for (q++; q < end && (pg_word_char((unsigned char)*q) || *q == '.'); q++)
				;
		} else if (nq == q && !pg_word_char((unsigned char)*q)) {
			char c = *q++;
			if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '-')
				pg_sig_put(out, &n, len, c);
			continue;
		} else {
			if (nq != q)
				q = nq; /* a quoted name: a word, as written */
			else
				while (q < end && pg_word_char((unsigned char)*q))
					q++;
			size_t k = (size_t)(q - w);
			bool lit = (k == 4 && (strncasecmp(w, "NULL", 4) == 0 || strncasecmp(w, "TRUE", 4) == 0)) ||
				   (k == 5 && strncasecmp(w, "FALSE", 5) == 0);
			if (!lit) {
				if (n &&
				    (pg_word_char((unsigned char)out[n - 1]) || out[n - 1] == '?' || out[n - 1] == '"'))
					pg_sig_put(out, &n, len, ' ');
				for (size_t i = 0; i < k; i++)
					pg_sig_put(out, &n, len,
						   (char)(*w != '"' && w[i] >= 'a' && w[i] <= 'z' ? w[i] - 'a' + 'A'
												  : w[i]));
				words++;
				if (k == 7 && strncasecmp(w, "EXTRACT", 7) == 0) {
					/* extract(epoch FROM x): the server writes the field as $n */
					const char *a = q;
					while (a < end && (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r'))
						a++;
					if (a < end && *a == '(') {
						for (a++;
						     a < end && (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r');
						     a++)
							;
						if (a < end && *a != '$' && !(*a >= '0' && *a <= '9') &&
						    pg_word_char((unsigned char)*a)) {
							pg_sig_put(out, &n, len, '(');
							pg_sig_put(out, &n, len, '?');
							while (a < end && pg_word_char((unsigned char)*a))
								a++;
							q = a;
						}
					}
				}
				continue;
			}
		}
		/* a literal: ?, and a list of them one ? */
		if (n && out[n - 1] == '?')
			continue;
		if (n >= 2 && out[n - 1] == ',' && out[n - 2] == '?') {
			out[--n] = '\0';
			continue;
		}
		if (n && (pg_word_char((unsigned char)out[n - 1]) || out[n - 1] == '"'))
			pg_sig_put(out, &n, len, ' ');
		pg_sig_put(out, &n, len, '?');
	}
	return words;
}

#define PG_SIG_LEN 8192

uint64_t pg_stmt_sig(const char *q, size_t len)
{
	char *w = xmalloc(PG_SIG_LEN);
	unsigned n = pg_sig_words(q, len, w, PG_SIG_LEN);
	/* bare transaction control: the clients' is the same entry */
	static const char *const bare[] = {"BEGIN",         "COMMIT",
					   "END",           "ROLLBACK",
					   "ABORT",         "START TRANSACTION",
					   "BEGIN WORK",    "BEGIN TRANSACTION",
					   "COMMIT WORK",   "COMMIT TRANSACTION",
					   "END WORK",      "END TRANSACTION",
					   "ROLLBACK WORK", "ROLLBACK TRANSACTION",
					   "ABORT WORK",    "ABORT TRANSACTION"};
	bool skip = !n;
	for (size_t i = 0; !skip && n <= 2 && i < sizeof bare / sizeof bare[0]; i++)
		skip = strcmp(w, bare[i]) == 0;
	uint64_t h = skip ? 0 : hash_str(w);
	free(w);
	return skip ? 0 : h ? h : 1;
}

bool pg_own_has(const struct pg_own *o, const char *key)
{
	return strset_has(&o->keys, key);
}

void pg_own_sent(struct pg_own *o, const char *q)
{
	if (!o->sent.u64)
		hmap_init(&o->sent, true, 1, 64);
	const char *end = q + strlen(q), *s = q;
	while (s < end) {
		/* one statement: up to a ';' outside comments and quotes */
		const char *e = s;
		while (e < end && *e != ';') {
			const char *n = pg_skip_quoted(e, end);
			e = n != e ? n : e + 1;
		}
		uint64_t sig = pg_stmt_sig(s, (size_t)(e - s));
		bool added = false;
		if (sig)
			hmap_put_u64(&o->sent, sig, &added);
		if (added)
			/* a kind not sent before: the texts seen before it */
			for (size_t i = 0; i < o->ncand;) {
				if (o->cand[i].sig == sig) {
					strset_add(&o->keys, o->cand[i].key);
					o->cand[i] = o->cand[--o->ncand];
				} else {
					i++;
				}
			}
		s = e + (e < end);
	}
}

bool pg_own_text(struct pg_own *o, const char *key, const char *text)
{
	uint64_t sig = text ? pg_stmt_sig(text, strlen(text)) : 0;
	if (!sig)
		return false;
	if (o->sent.u64 && hmap_get_u64(&o->sent, sig)) {
		strset_add(&o->keys, key);
		return true;
	}
	if (o->ncand < PG_OWN_CAND_MAX) {
		if (o->ncand == o->capcand) {
			o->capcand = o->capcand ? o->capcand * 2 : 64;
			o->cand = xrealloc(o->cand, o->capcand * sizeof *o->cand);
		}
		struct pg_own_cand *c = &o->cand[o->ncand++];
		str_copy(c->key, sizeof c->key, key);
		c->sig = sig;
	}
	return false;
}

void pg_own_free(struct pg_own *o)
{
	hmap_free(&o->sent);
	strset_clear(&o->keys);
	free(o->cand);
	memset(o, 0, sizeof *o);
}

/* The statements dbtop sent to PostgreSQL up to version 0.x, as
 * pg_stat_statements wrote them, for the recordings made then (their
 * digests carry no own flag). A text matches an entry when their
 * signatures are the same, or, for an entry ending in "...", when the
 * text's starts with the entry's (the first words of a long statement,
 * enough to tell it from a client's). */
static const char *const pg_own_old[] = {
	"SELECT s.userid, s.dbid, s.queryid, s.toplevel, s.calls, s.total_exec_time, s.total_plan_time, "
	"s.rows, s.shared_blks_hit, s.shared_blks_read, s.wal_bytes, $1, d.datname FROM pg_stat_statements($2) s...",
	"SELECT s.userid, s.dbid, s.queryid, $1, s.calls, s.total_exec_time, s.total_plan_time, s.rows, "
	"s.shared_blks_hit, s.shared_blks_read, s.wal_bytes, $2, d.datname FROM pg_stat_statements($3) s...",
	"SELECT s.userid, s.dbid, s.queryid, $1, s.calls, s.total_time, $2, s.rows, s.shared_blks_hit, "
	"s.shared_blks_read, $3, $4, d.datname FROM pg_stat_statements($5) s...",
	"SELECT dealloc FROM pg_stat_statements_info",
	"SELECT d.xc, d.xr, d.rst, extract($1 FROM pg_postmaster_start_time())...",
	"SELECT (extract($1 FROM clock_timestamp() - statement_timestamp()) * $2)::float8",
	"WITH a AS (SELECT * FROM pg_stat_activity) (SELECT a.pid, a.usename, a.datname, host(a.client_addr), "
	"a.client_port, a.application_name, a.backend_type, a.state...",
	"WITH RECURSIVE a AS MATERIALIZED ( SELECT pid, datid, datname, usename, state, backend_type, leader_pid, "
	"state_change, xact_start, backend_start, query_start...",
	"SET LOCAL statement_timeout = 1000",
	"WITH f AS (SELECT * FROM pg_show_all_file_settings()), l AS (SELECT DISTINCT ON (lower(name)) * FROM f "
	"WHERE name IS NOT NULL ORDER BY lower(name), seqno DESC)...",
	"SELECT name, current_setting(name), $1, (SELECT f.setting FROM pg_file_settings f WHERE f.name = s.name...",
	"SELECT current_setting($1), (SELECT setting FROM pg_file_settings WHERE name = $2 AND sourcefile LIKE $3...",
	"SELECT has_function_privilege($1, $2), has_table_privilege($3, $4) AND has_function_privilege($5, $6), "
	"has_function_privilege($7, $8)",
	"SELECT coalesce(event_type || $1 || event, $2), sum(count), current_setting($3) FROM pg_wait_sampling_profile...",
	"SELECT coalesce(wait_event_type || $1 || wait_event, $2), count(*), $3::float8 FROM pg_stat_activity...",
	"SELECT userid, dbid, queryid, toplevel, query FROM pg_stat_statements($1) WHERE queryid = ANY ($2::bigint[])",
	"SELECT userid, dbid, queryid, $1, query FROM pg_stat_statements($2) WHERE queryid = ANY ($3::bigint[])",
	"SELECT pg_has_role(current_user, $1, $2)",
	"SELECT name, current_setting(name) FROM pg_settings WHERE name IN ($1...",
	"SELECT pg_reload_conf()",
	"SELECT pg_try_advisory_lock($1, $2)",
	"SELECT pg_advisory_unlock($1, $2)",
	"SELECT l.pid, a.usename, a.client_addr, a.datname FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
	"WHERE l.locktype = $1 AND l.classid = $2...",
	"SELECT current_setting($1), current_setting($2)::int, pg_is_in_recovery()...",
};

bool pg_own_recorded(const char *text)
{
	char t[2048], e[1024];
	if (!text || !*text)
		return false;
	pg_sig_words(text, strlen(text), t, sizeof t);
	for (size_t i = 0; i < sizeof pg_own_old / sizeof pg_own_old[0]; i++) {
		size_t l = strlen(pg_own_old[i]);
		bool prefix = l > 3 && strcmp(pg_own_old[i] + l - 3, "...") == 0;
		pg_sig_words(pg_own_old[i], prefix ? l - 3 : l, e, sizeof e);
		if (prefix ? strncmp(t, e, strlen(e)) == 0 : strcmp(t, e) == 0)
			return true;
	}
	return false;
}

void pg_map_profile_row(struct wait_set *ws, const char *const *cell, double clock[2])
{
	if (!cell[PGW_EVENT]) {
		if (cell[PGW_CLOCK])
			clock[clock[0] < 0 ? 0 : 1] = atof(cell[PGW_CLOCK]);
		return;
	}
	if (cell[PGW_PERIOD] && atof(cell[PGW_PERIOD]) > 0)
		ws->period_ms = atof(cell[PGW_PERIOD]);
	wait_set_add(ws, cell[PGW_EVENT], cell[PGW_COUNT] ? strtoull(cell[PGW_COUNT], NULL, 10) : 0, 0);
}

double pg_profile_ms(const double clock[2])
{
	return clock[0] >= 0 && clock[1] >= clock[0] ? clock[1] - clock[0] : 0;
}
