#!/usr/bin/env bash
# Record the bundled incident recordings (recordings/*.dbrec) from real
# throwaway servers with scripted, bounded loads. Run again after a change of
# what dbtop samples: `scripts/record-incidents.sh [NAME...]`.
#   mariadb-commit-fsync  seed 000: commit storm with the redo log on a slow disk
#                         (its syncs take 10 ms: tests/tools/slowsync.c preloaded
#                         into mariadbd), innodb_flush_log_at_trx_commit=1 and
#                         sync_binlog=1; innodb_flush_log_at_trx_commit=2 halfway
#   pg-lock-chain         seed 001 shape on PostgreSQL: an idle-in-transaction
#                         root blocker, a chain of row-lock waiters, a table lock
#   pg-wal-writer         seed 004: asynchronous commits with wal_writer_delay
#                         10ms -> 200ms -> 2000ms
set -euo pipefail
cd "$(dirname "$0")/.."

export DBTOP_SANDBOX_DIR=${DBTOP_SANDBOX_DIR:-$(mktemp -d /tmp/dbtop-rec.XXXXXX)}
chmod 755 "$DBTOP_SANDBOX_DIR"
trap 'tests/sandbox.sh stop >/dev/null 2>&1 || true' EXIT INT TERM
names=${*:-mariadb-commit-fsync pg-lock-chain pg-wal-writer}
[ -x ./dbtop ] || make -s dbtop
[ -r build/tests/slowsync.so ] || make -s build/tests/slowsync.so
servers=
case " $names " in *" mariadb-"*) servers=mariadb ;; esac
case " $names " in *" pg-"*) servers="$servers pg15" ;; esac
tests/sandbox.sh start $servers >/dev/null
eval "$(tests/sandbox.sh env)"
bg=()

# record NAME URI SECONDS: dbtop --batch into recordings/NAME.dbrec
record() {
    ./dbtop --batch --count "$3" --interval 1 --format json --record "recordings/$1.dbrec" "$2" \
        >"$DBTOP_SANDBOX_DIR/$1.json"
    echo "recorded recordings/$1.dbrec ($(stat -c %s "recordings/$1.dbrec") bytes, $3 s)"
}

mariadb_commit_fsync() {
    local sql=$DBTOP_MARIADB_CLIENT
    # seed 000: the redo log (ib_logfile*) syncs slowly, the binlog does not
    DBTOP_SERVER_PRELOAD=build/tests/slowsync.so DBTOP_SLOWSYNC_MS=10 DBTOP_SLOWSYNC_FILES=ib_logfile \
        tests/sandbox.sh restart mariadb >/dev/null
    $sql -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1"
    tests/load.sh sysbench mariadb --rate 300 --time 44 --threads 8 2>/dev/null &
    bg+=($!)
    sleep 2
    record mariadb-commit-fsync "$DBTOP_MARIADB_URI" 40 &
    local rp=$!
    sleep 20
    $sql -e "SET GLOBAL innodb_flush_log_at_trx_commit=2"
    wait "$rp"
    $sql -e "SET GLOBAL innodb_flush_log_at_trx_commit=1"
    wait "${bg[@]}" || true
    bg=()
    tests/sandbox.sh restart mariadb >/dev/null # without the shim
}

pg_lock_chain() {
    local psql=$DBTOP_PG15_PSQL
    $psql -qc "DROP TABLE IF EXISTS chain; CREATE TABLE chain (id int PRIMARY KEY, v int); INSERT INTO chain SELECT g, 0 FROM generate_series(1, 10) g"
    tests/load.sh pgbench pg15 --rate 100 --time 34 --clients 4 2>/dev/null &
    bg+=($!)
    sleep 2
    record pg-lock-chain "$DBTOP_PG15_URI" 30 &
    local rp=$!
    sleep 3
    # root blocker: takes row 1, then sits idle in transaction for 18 s
    printf 'BEGIN;\nUPDATE chain SET v = v + 1 WHERE id = 1;\n\\! sleep 18\nCOMMIT;\n' | $psql -q >/dev/null &
    bg+=($!)
    sleep 2
    # waiter 1 holds row 2 and waits for row 1
    printf 'BEGIN;\nUPDATE chain SET v = v + 1 WHERE id = 2;\nUPDATE chain SET v = v + 1 WHERE id = 1;\nCOMMIT;\n' | $psql -q >/dev/null &
    bg+=($!)
    sleep 1
    # waiter 2 waits for row 2; a DDL waits for the table
    $psql -qc "UPDATE chain SET v = v + 1 WHERE id = 2" >/dev/null &
    bg+=($!)
    $psql -qc "SET lock_timeout = '20s'; ALTER TABLE chain ADD COLUMN IF NOT EXISTS note text" >/dev/null 2>&1 &
    bg+=($!)
    wait "$rp"
    wait "${bg[@]}" || true
    bg=()
}

pg_wal_writer() {
    local psql=$DBTOP_PG15_PSQL
    $psql -qc "ALTER SYSTEM SET synchronous_commit = off" -c "ALTER SYSTEM SET wal_writer_delay = '10ms'" -c "SELECT pg_reload_conf()" >/dev/null
    tests/load.sh pgbench pg15 --rate 400 --time 49 --clients 8 2>/dev/null &
    bg+=($!)
    sleep 2
    record pg-wal-writer "$DBTOP_PG15_URI" 45 &
    local rp=$!
    sleep 15
    $psql -qc "ALTER SYSTEM SET wal_writer_delay = '200ms'" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 15
    $psql -qc "ALTER SYSTEM SET wal_writer_delay = '2000ms'" -c "SELECT pg_reload_conf()" >/dev/null
    wait "$rp"
    $psql -qc "ALTER SYSTEM RESET synchronous_commit" -c "ALTER SYSTEM RESET wal_writer_delay" -c "SELECT pg_reload_conf()" >/dev/null
    wait "${bg[@]}" || true
    bg=()
}

for n in $names; do
    case $n in
    mariadb-commit-fsync) mariadb_commit_fsync ;;
    pg-lock-chain) pg_lock_chain ;;
    pg-wal-writer) pg_wal_writer ;;
    *) echo "unknown recording $n" >&2; exit 2 ;;
    esac
done
