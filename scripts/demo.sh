#!/usr/bin/env bash
# make demo: the three bundled incidents live, one after another, on
# throwaway servers with bounded loads, and dbtop's screen on each,
# connected as a user that may tune (MariaDB: ALL PRIVILEGES, so SUPER /
# SYSTEM_VARIABLES_ADMIN; PostgreSQL: the superuser, for ALTER SYSTEM).
# Nothing changes a setting behind dbtop's back: the remedy is yours to
# apply with screen 5's a (the caption line says so); q quits dbtop, which
# reverts what it changed, and the next incident starts.
#   1 mariadb-commit-fsync  seed 000/002: sysbench commits, redo log on a slow
#                           disk (fsync slowed to 10 ms), innodb_flush_log_at_trx_commit=1
#   2 pg-lock-chain         seed 001: an idle-in-transaction root blocker, a chain of waiters
#   3 pg-wal-writer         seed 004: asynchronous commits, wal_writer_delay=10ms
#   DEMO_INCIDENTS="1 3"    which ones (names or numbers; default all three)
#   DEMO_SECONDS=300        how long each incident's load runs at most (dbtop
#                           gets SIGTERM 5 s after: it reverts and exits)
# At exit (q on the last, Ctrl-C, an error) every setting the demo made is
# reset and the servers stop. Without a terminal it prints batch records.
set -euo pipefail
cd "$(dirname "$0")/.."

export DBTOP_SANDBOX_DIR=${DBTOP_SANDBOX_DIR:-$(mktemp -d /tmp/dbtop-demo.XXXXXX)}
mkdir -p "$DBTOP_SANDBOX_DIR" && chmod 755 "$DBTOP_SANDBOX_DIR"
SECS=${DEMO_SECONDS:-300}
INCIDENTS=${DEMO_INCIDENTS:-1 2 3}
DBTOP=${DBTOP:-./dbtop}
pids=()
# bg CMD...: run CMD in the background in a process group of its own
bg() { setsid "$@" & pids+=($!); }
# stop_bg: end the background loads and sessions (their whole groups)
stop_bg() {
    local p
    for p in "${pids[@]}"; do kill -- -"$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    pids=()
    return 0
}
cleanup() {
    set +e
    stop_bg
    tests/sandbox.sh stop >/dev/null 2>&1 || true
    echo "== servers stopped"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

[ -r build/tests/slowsync.so ] || make -s build/tests/slowsync.so
servers=
case " $INCIDENTS " in *" 1 "* | *" mariadb-"*) servers=mariadb ;; esac
case " $INCIDENTS " in *" 2 "* | *" 3 "* | *" pg-"*) servers="$servers pg15" ;; esac
echo "== starting throwaway servers in $DBTOP_SANDBOX_DIR"
tests/sandbox.sh start $servers >/dev/null
eval "$(tests/sandbox.sh env)"
screen_ok=0
[ -t 0 ] && [ -t 1 ] && [ "${TERM:-dumb}" != dumb ] && screen_ok=1

# watch URI CAPTION: dbtop's screen until q (bounded: SIGTERM after the load)
watch() {
    if [ $screen_ok = 1 ]; then
        timeout --foreground -s TERM -k 10 $((SECS + 5)) "$DBTOP" --caption "$2" "$1" || true
    else
        "$DBTOP" --batch --count "${DEMO_RECORDS:-8}" "$1" || true
    fi
}

mariadb_commit_fsync() {
    local sql=$DBTOP_MARIADB_CLIENT
    echo "== 1/3 MariaDB commit-fsync storm: redo log on a slow disk (10 ms per fsync)"
    DBTOP_SERVER_PRELOAD=build/tests/slowsync.so DBTOP_SLOWSYNC_MS=10 DBTOP_SLOWSYNC_FILES=ib_logfile \
        tests/sandbox.sh restart mariadb >/dev/null
    $sql -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1"
    bg tests/load.sh sysbench mariadb --rate 300 --time "$SECS" --threads 8 2>/dev/null
    sleep 2
    watch "$DBTOP_MARIADB_ADMIN_URI" "1/3 commit-fsync storm. Press 5, a, y: innodb_flush_log_at_trx_commit=2 via dbtop; q reverts it"
    stop_bg
    echo "== innodb_flush_log_at_trx_commit on the server after dbtop: $($sql -N -e "SELECT @@innodb_flush_log_at_trx_commit")"
}

pg_lock_chain() {
    local psql=$DBTOP_PG15_PSQL hold=$((SECS < 60 ? SECS : 60))
    echo "== 2/3 PostgreSQL lock chain behind an idle-in-transaction session (for ${hold} s)"
    $psql -qc "DROP TABLE IF EXISTS chain; CREATE TABLE chain (id int PRIMARY KEY, v int); INSERT INTO chain SELECT g, 0 FROM generate_series(1, 10) g" 2>/dev/null
    bg tests/load.sh pgbench pg15 --rate 100 --time "$SECS" --clients 4 2>/dev/null
    # the root blocker: row 1, then idle in its transaction; a waiter that
    # holds row 2; a waiter for row 2
    bg bash -c "printf 'BEGIN;\nUPDATE chain SET v = v + 1 WHERE id = 1;\n\\\\! sleep %d\nCOMMIT;\n' $hold | $psql -q >/dev/null 2>&1"
    sleep 1
    bg bash -c "printf 'SET lock_timeout = %s;\nBEGIN;\nUPDATE chain SET v = v + 1 WHERE id = 2;\nUPDATE chain SET v = v + 1 WHERE id = 1;\nCOMMIT;\n' \"'${hold}s'\" | $psql -q >/dev/null 2>&1"
    bg $psql -qc "SET lock_timeout = '${hold}s'; UPDATE chain SET v = v + 1 WHERE id = 2" >/dev/null 2>&1
    watch "$DBTOP_PG15_ADMIN_URI" "2/3 lock chain. Press 3: the root blocker and its waiters; x ends it (y confirms); q: next"
    stop_bg
}

pg_wal_writer() {
    local psql=$DBTOP_PG15_PSQL
    echo "== 3/3 PostgreSQL WAL writer woken every 10 ms (asynchronous commits)"
    $psql -qc "ALTER SYSTEM SET synchronous_commit = off" -c "ALTER SYSTEM SET wal_writer_delay = '10ms'" -c "SELECT pg_reload_conf()" >/dev/null
    bg tests/load.sh pgbench pg15 --rate 400 --time "$SECS" --clients 8 2>/dev/null
    sleep 2
    watch "$DBTOP_PG15_ADMIN_URI" "3/3 WAL writer at 10 ms. Press 5, a, y: wal_writer_delay=1s via dbtop; q reverts it"
    stop_bg
    echo "== wal_writer_delay on the server after dbtop: $($psql -At -c "SHOW wal_writer_delay")"
    $psql -qc "ALTER SYSTEM RESET synchronous_commit" -c "ALTER SYSTEM RESET wal_writer_delay" -c "SELECT pg_reload_conf()" >/dev/null
}

for i in $INCIDENTS; do
    case $i in
    1 | mariadb-commit-fsync) mariadb_commit_fsync ;;
    2 | pg-lock-chain) pg_lock_chain ;;
    3 | pg-wal-writer) pg_wal_writer ;;
    *) echo "demo: unknown incident $i (1 2 3 or their names)" >&2; exit 2 ;;
    esac
done
echo "== the demo is over"
