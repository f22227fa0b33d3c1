/* mysql_locks_map.h - lock waits on MySQL 8 and MariaDB 10.11: the SQL
 * that reads them and the mappers that turn its rows into a struct
 * lock_set (model/locks.h). Pure functions (no client library), so
 * recorded rows (tests/fixtures/locks-*.txt) can be tested without a
 * server.
 *
 * ---- When to run what (once per sample) ---------------------------------
 *
 * 1. The cheap gate. Lock tables are read only when something waits:
 *    - row locks: the status counter MYL_GATE_STATUS
 *      (Innodb_row_lock_current_waits) from the SHOW GLOBAL STATUS read the
 *      sample does anyway; > 0 means InnoDB row-lock waits right now.
 *    - metadata locks: run mysql_locks_mdl_count_sql(): one row, one
 *      column, a count (read it with mysql_locks_count()). MySQL 8 counts
 *      performance_schema.metadata_locks rows with LOCK_STATUS='PENDING'
 *      (a scan of the MDL instrument's rows, no server mutex held for
 *      long); MariaDB counts information_schema.PROCESSLIST rows whose
 *      STATE is LIKE 'Waiting for%metadata lock' (MariaDB's
 *      performance_schema MDL instrument is off by default).
 *    Set ls->waiting to the sum, ls->status to LOCKS_IDLE when both are 0
 *    and stop there.
 *
 * 2. Row-lock waits (gate > 0):
 *    - MySQL 8: run mysql_locks_row_sql() and call mysql_locks_map_row()
 *      for every row. One row per (requesting lock, granted blocking
 *      lock) pair; a request that waits only behind other waiting
 *      requests (e.g. a shared read queued behind a waiting exclusive
 *      request) gets one row for them instead, HELD_STATUS PENDING (a
 *      soft edge). data_lock_waits lists each waiter against every
 *      request queued ahead of it as well (n waiters on one row: n(n+1)/2
 *      pairs, which the server still builds and the query scans once);
 *      they are grouped away before any join, so the rows returned and
 *      the joins' work grow with the waiters, not their square. Columns
 *      MYL_*. It reads performance_schema.data_lock_waits + data_locks
 *      (twice) + threads + events_statements_current and
 *      information_schema.INNODB_TRX.
 *    - MariaDB: the same rows, paired on the client from one read of
 *      INNODB_LOCKS, INNODB_TRX and PROCESSLIST (mariadb_rowlocks.h).
 *      MariaDB gives every read-only transaction trx_id 0 (e.g. SELECT
 *      ... LOCK IN SHARE MODE without a write): when such a transaction
 *      blocks, every read-only transaction that holds locks (and does not
 *      wait for that very lock) is reported as a blocker, as the server's
 *      tables cannot tell them apart; its locks count as granted;
 *      repeated rows are dropped.
 *    Privileges: PROCESS (INNODB_TRX, INNODB_LOCKS, other users'
 *    PROCESSLIST rows) and SELECT on performance_schema (MySQL).
 *
 * 3. Metadata-lock waits (count > 0):
 *    - MySQL 8: run mysql_locks_mdl_sql(FLAVOUR_MYSQL, ...) and call
 *      mysql_locks_map_row() for every row (same MYL_* columns).
 *    - MariaDB: once per connection, run MARIADB_MDL_PLUGIN_SQL (one
 *      row, a count: 1 when information_schema.METADATA_LOCK_INFO exists).
 *      Then every time: run mariadb_mdl_sql(have_plugin, ...), create an
 *      accumulator with mariadb_mdl_new(have_plugin), call
 *      mariadb_mdl_map_row() for every row (columns MMD_*), and
 *      mariadb_mdl_finish() once after the last row: it pairs waiters with
 *      holders, adds the edges, writes ls->note when the holder cannot be
 *      known, and frees the accumulator.
 *      (A MariaDB server started with
 *      performance-schema-instrument='wait/lock/metadata/sql/mdl=ON' can
 *      use mysql_locks_mdl_sql(FLAVOUR_MARIADB, ...) + mysql_locks_map_row()
 *      like MySQL; locks taken before the instrument was enabled are not
 *      listed, so enabling it at run time is not enough.)
 *
 * 4. lock_set_analyse(ls); ls->status = LOCKS_READ.
 *
 * Every builder takes the server-side time limit in ms (0: none): MySQL
 * gets the optimizer hint MAX_EXECUTION_TIME(ms), MariaDB
 * SET STATEMENT max_statement_time=<s> FOR. A query that hits it fails
 * with ER_QUERY_TIMEOUT (MySQL 3024) / ER_STATEMENT_TIMEOUT (MariaDB
 * 1969): set LOCKS_TIMED_OUT. Ages (transaction age, wait time) are
 * computed on the server against NOW(6), so the client clock does not
 * matter. Builders write into buf (MYL_SQL_MAX bytes are always enough)
 * and return buf.
 */
#ifndef DBTOP_MYSQL_LOCKS_MAP_H
#define DBTOP_MYSQL_LOCKS_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/sample.h"

struct lock_set;
struct session_ident;

#define MYL_SQL_MAX 8192
#define MYL_GATE_STATUS "Innodb_row_lock_current_waits"
/* Seconds from a DATETIME column to now, on the server. */
#define MYL_AGE(col) "TIMESTAMPDIFF(MICROSECOND, " col ", NOW(6)) / 1e6"

/* Columns of mysql_locks_row_sql() and mysql_locks_mdl_sql(). W_ is the
 * waiting session, B_ the blocking one.
 *   ID        processlist id (MySQL threads.PROCESSLIST_ID, MariaDB
 *             trx_mysql_thread_id / PROCESSLIST.ID); NULL for a blocker
 *             with no client session (e.g. a recovered XA PREPARED
 *             transaction): mapped to session id 0
 *   COMMAND   Query, Sleep, ...    STATE   thread state or NULL
 *   TIME      s in that state (PROCESSLIST_TIME; MariaDB TIME_MS / 1000)
 *   TRX_AGE   s since trx_started, NULL without a transaction
 *   WAIT      s since trx_wait_started (metadata locks: the waiter's
 *             PROCESSLIST_TIME), NULL when not waiting
 *   QUERY     current statement (trx_query, else PROCESSLIST_INFO)
 *   B_LAST    the blocker's last statement (MySQL
 *             events_statements_current.SQL_TEXT; NULL on MariaDB)
 *   SCHEMA, TABLE, INDEX   the object; MariaDB row locks give SCHEMA NULL
 *             and TABLE as `db`.`table` (INNODB_LOCKS.LOCK_TABLE)
 *   LOCK_TYPE RECORD / TABLE (row locks), METADATA
 *   REQUESTED, HELD        the waiter's and the blocker's LOCK_MODE
 *             (metadata locks: LOCK_TYPE, e.g. EXCLUSIVE, SHARED_READ)
 *   LOCK_DATA, HELD_DATA   the requested / blocking lock's LOCK_DATA
 *             (metadata locks: OBJECT_TYPE when it is not TABLE)
 *   HELD_STATUS            GRANTED, or PENDING when the blocker only
 *             queues ahead with a request that conflicts (metadata locks;
 *             row locks when no granted lock blocks the request)
 * Then each session's identity (struct session_ident), optional (rows
 * recorded before them have MYL_IDENT_FIRST cells; the identity is then
 * unknown):
 *   TRX_ID, TRX_STARTED    INNODB_TRX trx_id and trx_started, NULL
 *             without a transaction
 *   QUERY_ID  MariaDB PROCESSLIST.QUERY_ID; NULL on MySQL */
enum {
	MYL_W_ID, MYL_W_USER, MYL_W_COMMAND, MYL_W_STATE, MYL_W_TIME, MYL_W_TRX_AGE,
	MYL_W_WAIT, MYL_W_QUERY,
	MYL_B_ID, MYL_B_USER, MYL_B_COMMAND, MYL_B_STATE, MYL_B_TIME, MYL_B_TRX_AGE,
	MYL_B_WAIT, MYL_B_QUERY, MYL_B_LAST,
	MYL_SCHEMA, MYL_TABLE, MYL_INDEX, MYL_LOCK_TYPE, MYL_REQUESTED, MYL_HELD,
	MYL_LOCK_DATA, MYL_HELD_DATA, MYL_HELD_STATUS,
	MYL_W_TRX_ID, MYL_W_TRX_STARTED, MYL_W_QUERY_ID,
	MYL_B_TRX_ID, MYL_B_TRX_STARTED, MYL_B_QUERY_ID,
	MYL__COUNT
};
#define MYL_IDENT_FIRST MYL_W_TRX_ID

/* The row-lock query of MySQL 8.0+ (MariaDB: mariadb_rowlocks_sql()). */
char *mysql_locks_row_sql(unsigned ms, char *buf, size_t len);

/* The metadata-lock query: every PENDING row of
 * performance_schema.metadata_locks paired with each row of another
 * thread on the same OBJECT_TYPE / OBJECT_SCHEMA / OBJECT_NAME that
 *   - is GRANTED with a type the pending one is incompatible with
 *     (mysql_mdl_conflicts(..., false): MySQL's MDL compatibility matrix
 *     for granted locks), or
 *   - is PENDING, was queued earlier (its thread's PROCESSLIST_TIME is
 *     larger, ties go to the lower THREAD_ID: an approximation, the
 *     table has no request time) and has priority over it
 *     (mysql_mdl_conflicts(..., true): the matrix for pending requests).
 *     Such edges are "soft": a SELECT queued behind an ALTER TABLE that
 *     itself waits.
 * Lock types the matrix does not know conflict with everything. */
char *mysql_locks_mdl_sql(enum flavour fl, unsigned ms, char *buf, size_t len);

/* The metadata-lock gate: one row, its first column the number of waiting
 * requests / sessions (see the top of this file), then cols (", expr, ...";
 * NULL: none). */
char *mysql_locks_mdl_count_sql(enum flavour fl, unsigned ms, const char *cols, char *buf, size_t len);

/* A count cell as returned by the count queries; false when NULL or not
 * a number. */
bool mysql_locks_count(const char *cell, unsigned *n);

/* The stamp of the waits now (src->lk_stamp_now): it changes whenever a
 * row-lock wait begins or ends, from the status counters of the refresh,
 * begun (Innodb_row_lock_waits, have_begun: read) and waiting
 * (Innodb_row_lock_current_waits): a wait that begins moves the first, one
 * that ends the second; one that ends as another begins, the first. 0
 * (not known) without the counter or while sessions wait for a metadata
 * lock (mdl_waits), which no counter follows. */
uint64_t mysql_locks_stamp(bool have_begun, uint64_t begun, uint64_t waiting, unsigned mdl_waits);

/* One row of mysql_locks_row_sql() or mysql_locks_mdl_sql(): adds (or
 * updates) the two sessions and one edge. Waiter fields: user, state,
 * state_s, trx_age_s, wait_s, current query. Blocker fields: the same,
 * its query being the current statement, else its last statement
 * (query_is_last), else none. A session's state reads
 * "idle in transaction" for COMMAND Sleep with an open transaction
 * (state_s = PROCESSLIST_TIME), "Sleep" without one, otherwise the
 * command with the thread state in brackets, e.g.
 * "Query (Waiting for table metadata lock)". The edge: object
 * schema.table.index (schema.table when there is no index), lock_type,
 * requested, held, lock_data (the requested lock's, else the blocking
 * one's), soft when HELD_STATUS is PENDING. Every string is sanitised.
 * NULL cells are fine; a row without a waiter id, with fewer than
 * MYL_IDENT_FIRST cells, or (metadata locks) with compatible lock types is
 * ignored. With the identity columns, both sessions' ident is set (known). */
void mysql_locks_map_row(struct lock_set *ls, const char *const *cell, int ncells);

/* MDL lock types, as performance_schema.metadata_locks names them
 * (METADATA_LOCK_INFO adds an MDL_ prefix, which is accepted too). */
enum mdl_type {
	MDL_T_IX, MDL_T_S, MDL_T_SH, MDL_T_SR, MDL_T_SW, MDL_T_SWLP, MDL_T_SU,
	MDL_T_SRO, MDL_T_SNW, MDL_T_SNRW, MDL_T_X, MDL_T__COUNT,
	MDL_T_UNKNOWN = -1
};
/* INTENTION_EXCLUSIVE, SHARED, ..., EXCLUSIVE; "" for MDL_T_UNKNOWN. */
const char *mysql_mdl_name(enum mdl_type t);
/* Type of a name (with or without the MDL_ prefix); MDL_T_UNKNOWN when
 * NULL or unknown. */
enum mdl_type mysql_mdl_type(const char *name);
/* True when a request of type req must wait for a lock of type other held
 * by another thread (pending == false: other is granted), or queued ahead
 * of it (pending == true). The matrices are MySQL's (sql/mdl.cc, object
 * locks; INTENTION_EXCLUSIVE as for scoped locks: compatible with itself,
 * not with SHARED or EXCLUSIVE). Unknown types conflict with everything
 * when granted and wait only behind a pending EXCLUSIVE. */
bool mysql_mdl_conflicts(enum mdl_type req, enum mdl_type other, bool pending);

/* ---- acting on the session that was seen ------------------------------------
 * x / c (sources/mysql.c my_act) end or cancel a session only while the
 * server still shows the one a sample read (struct session_ident). Both
 * builders take a session id and write SQL over information_schema
 * PROCESSLIST p LEFT JOIN INNODB_TRX x ON x.trx_mysql_thread_id = p.ID. */

/* The condition (for a WHERE after p.ID = id) that holds while the
 * session is still the one `who` describes, as session_ident_same()
 * judges it: the same transaction (trx_id and trx_started) or still none;
 * the same QUERY_ID (MariaDB, when known) for a cancel, or when the
 * transaction does not tell (none, or a read-only trx_id 0). A kill on
 * MariaDB also goes ahead on the same QUERY_ID alone: INNODB_TRX is a
 * cached copy that may lag, PROCESSLIST is read live, and no statement
 * since means no other transaction. False when who's values are not
 * plain numbers / times (nothing written then). */
bool mysql_ident_cond(const struct session_ident *who, bool cancel, bool mariadb, char *buf, size_t len);

/* The identity of session id now: one row (trx_id, trx_started, QUERY_ID
 * or NULL on MySQL), none when the session is gone. */
char *mysql_ident_sql(enum flavour fl, long long id, char *buf, size_t len);

/* ---- MariaDB metadata locks ------------------------------------------------
 * MariaDB lists waiting sessions in PROCESSLIST (STATE 'Waiting for table
 * metadata lock') but not what they wait for; the holders are known only
 * from information_schema.METADATA_LOCK_INFO (plugin metadata_lock_info,
 * granted locks only). dbtop pairs them on the client:
 *   - the tables a waiter wants are read from its statement (INFO): the
 *     names after FROM, JOIN, INTO, UPDATE, TABLE, TABLES, TRUNCATE (and ON
 *     for CREATE / DROP INDEX), comma lists and aliases included, with
 *     unqualified names in the session's current database (DB);
 *   - the requested lock type is inferred from the statement's first word
 *     (ALTER, CREATE, DROP, RENAME, TRUNCATE, OPTIMIZE, REPAIR: EXCLUSIVE;
 *     LOCK TABLES ... WRITE: SHARED_NO_READ_WRITE, else
 *     SHARED_READ_ONLY; SELECT ... FOR UPDATE and INSERT, UPDATE, DELETE,
 *     REPLACE, LOAD: SHARED_WRITE; SELECT, WITH, SHOW, DESCRIBE: SHARED_READ;
 *     anything else unknown) and the edge's lock_data says so;
 *   - a waiter waits for every holder of a table metadata lock on one of
 *     its tables whose mode conflicts (mysql_mdl_conflicts, granted), and
 *     softly for every other waiter on one of its tables that has waited
 *     longer with a request that has priority (pending matrix).
 * Without the plugin only the waiter-behind-waiter edges can be found;
 * ls->note then says "metadata-lock waits: N sessions wait; the holder is
 * unknown without the metadata_lock_info plugin (INSTALL SONAME
 * 'metadata_lock_info')". */

/* Does information_schema.METADATA_LOCK_INFO exist? One row, a count
 * (1 or 0): read with mysql_locks_count(). */
#define MARIADB_MDL_PLUGIN_SQL                                                            \
	"SELECT COUNT(*) FROM information_schema.PLUGINS WHERE PLUGIN_NAME = "            \
	"'METADATA_LOCK_INFO' AND PLUGIN_STATUS = 'ACTIVE'"

/* Columns of mariadb_mdl_sql(): KIND is 'W' for a waiting session
 * (PROCESSLIST, MODE/SCHEMA/TABLE NULL), 'H' for a held table metadata
 * lock (METADATA_LOCK_INFO; only with the plugin). ID is the processlist
 * id, TIME and TRX_AGE as MYL_*, INFO the current statement, DB the
 * current database; MODE the held lock (MDL_SHARED_READ, ...), SCHEMA and
 * TABLE the locked table. */
enum {
	MMD_KIND, MMD_ID, MMD_USER, MMD_COMMAND, MMD_STATE, MMD_TIME, MMD_TRX_AGE,
	MMD_INFO, MMD_DB, MMD_MODE, MMD_SCHEMA, MMD_TABLE,
	MMD_TRX_ID, MMD_TRX_STARTED, MMD_QUERY_ID,   /* identity, as MYL_*; optional */
	MMD__COUNT
};
#define MMD_IDENT_FIRST MMD_TRX_ID
char *mariadb_mdl_sql(bool have_plugin, unsigned ms, char *buf, size_t len);

struct mariadb_mdl;
struct mariadb_mdl *mariadb_mdl_new(bool have_plugin);
/* One row of mariadb_mdl_sql(): adds its session to ls (state as in
 * mysql_locks_map_row, wait_s = TIME for a waiter) and keeps what the
 * pairing needs. NULL cells are fine. */
void mariadb_mdl_map_row(struct mariadb_mdl *m, struct lock_set *ls, const char *const *cell,
			 int ncells);
/* Pair waiters with holders and with each other, add the edges (lock_type
 * METADATA, object schema.table), set ls->note without the plugin, and
 * free m. */
void mariadb_mdl_finish(struct mariadb_mdl *m, struct lock_set *ls);

/* The table names a statement refers to (see above), "schema.table" each,
 * db for unqualified ones (NULL: "" schema); at most max; returns how many. */
#define MYL_NAME_MAX 130         /* "schema.table" of mysql_stmt_tables */
int mysql_stmt_tables(const char *sql, const char *db, char out[][MYL_NAME_MAX], int max);
/* The metadata lock a statement waits for, inferred from its first word. */
enum mdl_type mysql_stmt_mdl(const char *sql);

#endif
