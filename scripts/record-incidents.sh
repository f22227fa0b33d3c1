#!/usr/bin/env bash
# Record the bundled incident recordings (recordings/*.dbrec) from real
# throwaway servers with scripted, bounded loads. Run again after a change of
# what dbtop samples: `scripts/record-incidents.sh [NAME...]`.
#   mariadb-commit-fsync  seed 000: commit storm with the redo log on a slow disk
#                         (its syncs take 10 ms: tests/tools/slowsync.c preloaded
#                         into mariadbd), innodb_flush_log_at_trx_commit=1 and
#                         sync_binlog=1; 16 s in, innodb_flush_log_at_trx_commit=2
#                         applied with dbtop's tuning key (screen 5, a), u reverts
#                         it at 34 s
#   mariadb-upsert-gap-lock  seed 001: the visit recorder (scripts/upsert.lua,
#                         sysbench, 10 clients): upserts with a fresh UUID of
#                         existing websites and pages wait on each other's
#                         key locks; 16 s in, the same load with the seed's
#                         fix in the client (read first, upsert only when
#                         missing or changed); the lock graph read every
#                         second (--server-budget 0)
#   mariadb-slap-flush    seed 002: MariaDB on a disk whose flushes take 8 ms
#                         (scripts/slowdisk.sh: a loop device on a FUSE file,
#                         the device itself slow), mariadb-slap runs at
#                         concurrency 8 back to back, sync_binlog=0 (the
#                         seed's server had no binary log); 16 s in,
#                         innodb_flush_log_at_trx_commit=2 with screen 5's a,
#                         u reverts it at 32 s
#   pg-lock-chain         an idle-in-transaction
#                         root blocker, a chain of row-lock waiters, a table lock
#   pg-wal-writer         seed 004: asynchronous commits with wal_writer_delay
#                         10ms; 16 s in the remedy (1s) applied with screen 5's a,
#                         u reverts it at 35 s
# Each is recorded by dbtop's screen in a detached tmux (every pane's data),
# connected as a user that may tune; about 4 minutes in all.
set -euo pipefail
cd "$(dirname "$0")/.."

export DBTOP_SANDBOX_DIR=${DBTOP_SANDBOX_DIR:-$(mktemp -d /tmp/dbtop-rec.XXXXXX)}
mkdir -p "$DBTOP_SANDBOX_DIR" && chmod 755 "$DBTOP_SANDBOX_DIR"
names=${*:-mariadb-commit-fsync mariadb-upsert-gap-lock mariadb-slap-flush pg-wal-writer pg-lock-chain}
# DBTOP: the binary to record with (its backends next to it)
DBTOP=${DBTOP:-./dbtop}
[ -x "$DBTOP" ] || make -s dbtop
[ -r build/tests/slowsync.so ] || make -s build/tests/slowsync.so
servers=
case " $names " in *" mariadb-"*) servers=mariadb ;; esac
case " $names " in *" pg-"*) servers="$servers pg15" ;; esac
tests/sandbox.sh start $servers >/dev/null
eval "$(tests/sandbox.sh env)"
bg=()

# The recordings are made by dbtop's screen (in a detached tmux of 120x40),
# so that they carry what the screen has: the session list and the tuning
# screen besides the rates, digests, lock graph and wait profile; and the
# remedy is applied the way a user applies it, with screen 5's key a.
TMUX_SOCK=dbtop-rec-$$
tm() { tmux -L "$TMUX_SOCK" "$@"; }
trap 'tm kill-server >/dev/null 2>&1 || true; tests/sandbox.sh stop >/dev/null 2>&1 || true' EXIT INT TERM

# rec_start NAME URI [OPTION...]: dbtop's screen recording recordings/NAME.dbrec
rec_start() {
    rm -f "recordings/$1.dbrec"
    tm kill-session -t rec >/dev/null 2>&1 || true
    tm new-session -d -s rec -x 120 -y 40 "$DBTOP --record recordings/$1.dbrec ${*:3} '$2' 2>$DBTOP_SANDBOX_DIR/$1.err"
    REC_T0=$(date +%s)
}
# at SECONDS: wait until SECONDS after rec_start
at() { local left=$((REC_T0 + $1 - $(date +%s))); [ "$left" -le 0 ] || sleep "$left"; }
# keys KEY...: type them into the screen, one by one
keys() { for k in "$@"; do tm send-keys -t rec "$k"; sleep 0.5; done; }
# screen_has TEXT: the screen shows TEXT now
screen_has() { tm capture-pane -p -t rec | grep -qF -- "$1"; }
# rec_stop NAME: q (dbtop reverts what it changed), wait for the end
rec_stop() {
    keys q
    for _ in $(seq 1 40); do tm has-session -t rec 2>/dev/null || break; sleep 0.25; done
    tm kill-session -t rec >/dev/null 2>&1 || true
    chmod 644 "recordings/$1.dbrec"
    echo "recorded recordings/$1.dbrec ($(stat -c %s "recordings/$1.dbrec") bytes, $(($(date +%s) - REC_T0)) s)"
}
# tune: screen 5 opens on the finding's remedy; a applies it after y
tune() {
    keys 5 a
    screen_has "y does it" || { echo "record: the tuning question did not show" >&2; tm capture-pane -p -t rec >&2; return 1; }
    keys y
    sleep 2
    screen_has "TUNED" || { echo "record: the remedy was not applied" >&2; tm capture-pane -p -t rec >&2; return 1; }
    keys 0
}

mariadb_commit_fsync() {
    local sql=$DBTOP_MARIADB_CLIENT
    # seed 000/002: the redo log (ib_logfile*) syncs slowly, the binlog does not
    DBTOP_SERVER_PRELOAD=build/tests/slowsync.so DBTOP_SLOWSYNC_MS=10 DBTOP_SLOWSYNC_FILES=ib_logfile \
        tests/sandbox.sh restart mariadb >/dev/null
    $sql -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1"
    tests/load.sh sysbench mariadb --rate 300 --time 46 --threads 8 2>/dev/null &
    bg+=($!)
    sleep 2
    # a user that may tune (SUPER / SYSTEM_VARIABLES_ADMIN)
    rec_start mariadb-commit-fsync "$DBTOP_MARIADB_ADMIN_URI"
    # the storm, then the remedy through screen 5 (innodb_flush_log_at_trx_commit=2),
    # then u reverts it near the end
    at 16
    tune
    at 34
    keys u
    at 40
    rec_stop mariadb-commit-fsync
    [ "$($sql -N -e "SELECT @@innodb_flush_log_at_trx_commit")" = 1 ] ||
        { echo "record: innodb_flush_log_at_trx_commit was not reverted" >&2; exit 1; }
    wait "${bg[@]}" || true
    bg=()
    tests/sandbox.sh restart mariadb >/dev/null # without the shim
}

# seed 001: sysbench with scripts/upsert.lua (the visit recorder)
upsert_sb() {
    sysbench --db-driver=mysql --mysql-socket="$DBTOP_SANDBOX_DIR/mariadb/mysqld.sock" --mysql-user=dbtop_admin \
        --mysql-password=adminpw --mysql-db=dbtop_test --mysql-ignore-errors=1213,1205 scripts/upsert.lua "$@"
}

mariadb_upsert_gap_lock() {
    local log=$DBTOP_SANDBOX_DIR/upsert
    upsert_sb prepare >/dev/null
    # the service as it was: every visit upserts its website and page
    upsert_sb --threads=10 --time=18 run >"$log-before.txt" 2>&1 &
    bg+=($!)
    sleep 2
    rec_start mariadb-upsert-gap-lock "$DBTOP_MARIADB_ADMIN_URI" --server-budget 0
    wait "${bg[@]}" || true
    bg=()
    # the same load with the seed's fix in the client: read first
    upsert_sb --threads=10 --time=16 --fix=on run >"$log-after.txt" 2>&1 &
    bg+=($!)
    at 32
    rec_stop mariadb-upsert-gap-lock
    wait "${bg[@]}" || true
    bg=()
    echo "  sysbench's own count: $(grep -h 'transactions:' "$log-before.txt" | tr -s ' ') before," \
        "$(grep -h 'transactions:' "$log-after.txt" | tr -s ' ') after"
    upsert_sb cleanup >/dev/null
}

# seed 002: MariaDB on the slow disk (its own sandbox, port + 1)
SLOW_MS=${SLOW_MS:-8}
mariadb_slap_flush() {
    local sd=$DBTOP_SANDBOX_DIR/slowdisk port=$((DBTOP_MARIADB_PORT + 1))
    scripts/slowdisk.sh up "$sd" "$SLOW_MS" >/dev/null
    # shellcheck disable=SC2064 # $sd now
    trap "tm kill-server >/dev/null 2>&1 || true; DBTOP_SANDBOX_DIR=$sd/mnt/sb tests/sandbox.sh stop >/dev/null 2>&1 || true; scripts/slowdisk.sh down $sd; tests/sandbox.sh stop >/dev/null 2>&1 || true" EXIT INT TERM
    (
        export DBTOP_SANDBOX_DIR=$sd/mnt/sb DBTOP_MARIADB_PORT=$port
        tests/sandbox.sh start mariadb >/dev/null
        eval "$(tests/sandbox.sh env)"
        local sql=$DBTOP_MARIADB_CLIENT sb0
        sb0=$($sql -N -e "SELECT @@sync_binlog")
        $sql -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=0"
        timeout 48 mariadb-slap --no-defaults -S "$DBTOP_MARIADB_SOCKET" -u dbtop_admin -padminpw --concurrency=8 \
            --iterations=500 --number-of-queries=3000 --delimiter=";" \
            --create="CREATE TABLE t1 (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(36))" \
            --query="BEGIN;INSERT INTO t1 (v) VALUES (UUID());COMMIT" >"$DBTOP_SANDBOX_DIR/slap.txt" 2>&1 &
        sleep 2
        rec_start mariadb-slap-flush "$DBTOP_MARIADB_ADMIN_URI"
        at 16
        tune
        at 32
        keys u
        at 40
        rec_stop mariadb-slap-flush
        [ "$($sql -N -e "SELECT @@innodb_flush_log_at_trx_commit")" = 1 ] ||
            { echo "record: innodb_flush_log_at_trx_commit was not reverted" >&2; exit 1; }
        $sql -e "SET GLOBAL sync_binlog=$sb0"
        wait || true
        tests/sandbox.sh stop >/dev/null
    )
    scripts/slowdisk.sh down "$sd"
    trap 'tm kill-server >/dev/null 2>&1 || true; tests/sandbox.sh stop >/dev/null 2>&1 || true' EXIT INT TERM
}

pg_lock_chain() {
    local psql=$DBTOP_PG15_PSQL
    $psql -qc "DROP TABLE IF EXISTS chain; CREATE TABLE chain (id int PRIMARY KEY, v int); INSERT INTO chain SELECT g, 0 FROM generate_series(1, 10) g"
    tests/load.sh pgbench pg15 --rate 100 --time 34 --clients 4 2>/dev/null &
    bg+=($!)
    sleep 2
    rec_start pg-lock-chain "$DBTOP_PG15_ADMIN_URI"
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
    sleep 1   # (the DDL queues behind that waiter, not ahead of it)
    $psql -qc "SET lock_timeout = '20s'; ALTER TABLE chain ADD COLUMN IF NOT EXISTS note text" >/dev/null 2>&1 &
    bg+=($!)
    at 31
    rec_stop pg-lock-chain
    wait "${bg[@]}" || true
    bg=()
}

pg_wal_writer() {
    local psql=$DBTOP_PG15_PSQL
    # the incident: asynchronous commits flushed by a WAL writer woken every 10 ms
    $psql -qc "ALTER SYSTEM SET synchronous_commit = off" -c "ALTER SYSTEM SET wal_writer_delay = '10ms'" -c "SELECT pg_reload_conf()" >/dev/null
    tests/load.sh pgbench pg15 --rate 400 --time 44 --clients 8 2>/dev/null &
    bg+=($!)
    sleep 2
    rec_start pg-wal-writer "$DBTOP_PG15_ADMIN_URI"
    # the remedy through screen 5 (wal_writer_delay 1s), reverted by u near the end
    at 16
    tune
    at 35
    keys u
    at 40
    rec_stop pg-wal-writer
    [ "$($psql -At -c "SHOW wal_writer_delay")" = 10ms ] ||
        { echo "record: wal_writer_delay was not reverted" >&2; exit 1; }
    $psql -qc "ALTER SYSTEM RESET synchronous_commit" -c "ALTER SYSTEM RESET wal_writer_delay" -c "SELECT pg_reload_conf()" >/dev/null
    wait "${bg[@]}" || true
    bg=()
}

for n in $names; do
    case $n in
    mariadb-commit-fsync) mariadb_commit_fsync ;;
    mariadb-upsert-gap-lock) mariadb_upsert_gap_lock ;;
    mariadb-slap-flush) mariadb_slap_flush ;;
    pg-lock-chain) pg_lock_chain ;;
    pg-wal-writer) pg_wal_writer ;;
    *) echo "unknown recording $n" >&2; exit 2 ;;
    esac
done
