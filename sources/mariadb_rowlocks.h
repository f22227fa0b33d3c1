/* mariadb_rowlocks.h - MariaDB row-lock waits paired on the client.
 *
 * The pairs of waiting and blocking locks come from one read of each
 * table: INNODB_LOCKS (the waiting requests and the locks that block
 * one), INNODB_TRX, and the PROCESSLIST rows of the sessions in a
 * transaction, in one statement (mariadb_rowlocks_sql). The pairing, on
 * InnoDB's rules, is done here: the server-side form read each table up
 * to eight times (MariaDB materialises a WITH clause's derived table at
 * every reference) and spent most of its time planning 30 derived
 * tables.
 *
 * Use: a = mariadb_rl_new(); mariadb_rl_map_row(a, cells, n) for every
 * row; mariadb_rl_finish(a, ls) once: it gives mysql_locks_map_row() one
 * MYL_* row per distinct (waiter, blocker, lock) as the server-side
 * statement did, and frees a. */
#ifndef DBTOP_MARIADB_ROWLOCKS_H
#define DBTOP_MARIADB_ROWLOCKS_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/locks.h"

/* Columns of mariadb_rowlocks_sql(): KIND, then by kind
 *   'L' INNODB_LOCKS  lock_id, lock_trx_id, lock_mode, lock_type,
 *       lock_table, lock_index, lock_space, lock_page, lock_rec, lock_data
 *   'T' INNODB_TRX    trx_id, trx_requested_lock_id, trx_mysql_thread_id,
 *       age of trx_started (s), age of trx_wait_started (s), trx_query,
 *       trx_started, trx_lock_structs, trx_state
 *   'P' PROCESSLIST   ID, USER, COMMAND, STATE, TIME_MS / 1000, INFO,
 *       QUERY_ID (the sessions with a transaction only)
 * The joined read (mariadb_joined_sql: the session list wanted while
 * sessions wait for a row lock) has every process list row instead of
 * the 'P' rows, with the session list's columns:
 *   'S' PROCESSLIST   ID, USER, HOST, DB, COMMAND, TIME, TIME_MS, STATE,
 *       INFO, QUERY_ID, ID = CONNECTION_ID() (SESSIONS_ROW_LIMIT + 1 rows
 *       at most)
 * One fill of InnoDB's transaction cache and one scan of the process
 * list serve both the graph and the list (500 waiting among 2,500
 * sessions: 100-130 ms, against 125-170 ms for the list's two
 * statements and the graph's in one refresh, about 100 ms each apart).
 * Beyond the list's limit (more sessions than SESSIONS_ROW_LIMIT) a
 * graph session without its process list row shows its transaction
 * only (no user, state or time). */
enum { MRL_KIND, MRL_C1, MRL_C2, MRL_C3, MRL_C4, MRL_C5, MRL_C6, MRL_C7, MRL_C8, MRL_C9, MRL_C10, MRL_C11, MRL__COUNT };

/* The statement, with MariaDB's time limit (ms, 0: none). */
char *mariadb_rowlocks_sql(unsigned ms, char *buf, size_t len);
/* The joined statement, the same way. */
char *mariadb_joined_sql(unsigned ms, char *buf, size_t len);
/* A 'T' row as the cells of sessions_my_trx_add (thread, trx_id, state,
 * started, age); false for a row of another kind. */
bool mariadb_joined_trx(const char *const *cell, int ncells, const char *out[5]);
/* An 'S' row as the SMY__COUNT cells of sessions_my_row (sessions_map.h);
 * false for a row of another kind. */
bool mariadb_joined_session(const char *const *cell, int ncells, const char **cl);

struct mariadb_rl;
struct mariadb_rl *mariadb_rl_new(void);
/* One row of either statement (copied; an 'S' row's statement cut at
 * LOCK_QUERY_MAX bytes, as the server cuts the 'P' rows'). */
void mariadb_rl_map_row(struct mariadb_rl *a, const char *const *cell, int ncells);
/* Pairs the rows into ls and frees a (ls NULL: frees a only). */
void mariadb_rl_finish(struct mariadb_rl *a, struct lock_set *ls);

#endif
