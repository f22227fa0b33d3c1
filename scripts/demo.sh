#!/usr/bin/env bash
# make demo: the five bundled incidents live, one after another, on
# throwaway servers with bounded loads, and dbtop's screen on each,
# connected as a user that may tune (MariaDB: ALL PRIVILEGES, so SUPER /
# SYSTEM_VARIABLES_ADMIN; PostgreSQL: the superuser, for ALTER SYSTEM).
# Nothing changes a setting behind dbtop's back: the remedy is yours to
# apply with screen 5's a (the caption line says so); q quits dbtop, which
# reverts what it changed, and the next incident starts.
#   1 mariadb-commit-fsync  seed 000: sysbench commits, redo log on a slow
#                           disk (fsync slowed to 10 ms), innodb_flush_log_at_trx_commit=1
#   2 mariadb-upsert-gap-lock  seed 001: the visit recorder's upserts
#                           (scripts/upsert.lua) for the first half, then the
#                           same load with the client's fix (read first)
#   3 mariadb-slap-flush    seed 002: mysqlslap at concurrency 8, back to back,
#                           on a disk whose flushes take 8 ms (scripts/slowdisk.sh;
#                           root only, else skipped with the reason)
#   4 pg-wal-writer         seed 004: asynchronous commits, wal_writer_delay=10ms
#   5 pg-lock-chain         an idle-in-transaction root blocker, a chain of waiters
#   DEMO_INCIDENTS="1 3"    which ones (names or numbers; default all five)
#   DEMO_SECONDS=300        how long each incident's load runs at most (dbtop
#                           gets SIGTERM 5 s after: it reverts and exits)
# At exit (q on the last, Ctrl-C, an error) every setting the demo made is
# reset and the servers stop. After each incident the demo reads the
# settings it or dbtop may touch back from the server and says whether they
# are as it found them. Without a terminal it prints batch records.
set -euo pipefail
cd "$(dirname "$0")/.."

export DBTOP_SANDBOX_DIR=${DBTOP_SANDBOX_DIR:-$(mktemp -d /tmp/dbtop-demo.XXXXXX)}
mkdir -p "$DBTOP_SANDBOX_DIR" && chmod 755 "$DBTOP_SANDBOX_DIR"
SECS=${DEMO_SECONDS:-300}
INCIDENTS=${DEMO_INCIDENTS:-1 2 3 4 5}
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
SLOWDISK=$DBTOP_SANDBOX_DIR/slowdisk
cleanup() {
    set +e
    stop_bg
    if [ -d "$SLOWDISK" ]; then
        DBTOP_SANDBOX_DIR=$SLOWDISK/mnt/sb tests/sandbox.sh stop >/dev/null 2>&1
        scripts/slowdisk.sh down "$SLOWDISK"
    fi
    tests/sandbox.sh stop >/dev/null 2>&1 || true
    echo "== servers stopped"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

[ -r build/tests/slowsync.so ] || make -s build/tests/slowsync.so
servers=
case " $INCIDENTS " in *" 1 "* | *" 2 "* | *" mariadb-"*) servers=mariadb ;; esac
case " $INCIDENTS " in *" 4 "* | *" 5 "* | *" pg-"*) servers="$servers pg15" ;; esac
echo "== starting throwaway servers in $DBTOP_SANDBOX_DIR"
tests/sandbox.sh start $servers >/dev/null
eval "$(tests/sandbox.sh env)"
screen_ok=0
[ -t 0 ] && [ -t 1 ] && [ "${TERM:-dumb}" != dumb ] && screen_ok=1

# watch URI CAPTION [OPTION...]: dbtop's screen until q (bounded: SIGTERM after the load)
watch() {
    if [ $screen_ok = 1 ]; then
        timeout --foreground -s TERM -k 10 $((SECS + 5)) "$DBTOP" --caption "$2" "${@:3}" "$1" || true
    else
        "$DBTOP" --batch --count "${DEMO_RECORDS:-8}" "${@:3}" "$1" || true
    fi
}

# settings_my SQL / settings_pg PSQL: the settings the incidents or dbtop's
# keys may change, as the server has them now (one line)
MY_SETTINGS="innodb_flush_log_at_trx_commit sync_binlog binlog_commit_wait_count binlog_commit_wait_usec innodb_doublewrite"
PG_SETTINGS="synchronous_commit wal_writer_delay commit_delay"
settings_my() {
    local v out=
    for v in $MY_SETTINGS; do out="$out $v=$($1 -N -e "SELECT @@GLOBAL.$v")"; done
    echo "${out# }"
}
settings_pg() {
    local v out=
    for v in $PG_SETTINGS; do out="$out $v=$($1 -At -c "SHOW $v")"; done
    echo "${out# }"
}
# as_found BEFORE AFTER: say whether the server's settings are as found
as_found() {
    if [ "$1" = "$2" ]; then
        echo "== settings read back from the server: $2 (as found)"
    else
        echo "== settings read back from the server: $2 (found: $1)"
    fi
}

mariadb_commit_fsync() {
    local sql=$DBTOP_MARIADB_CLIENT found
    found=$(settings_my "$sql")
    echo "== 1/5 seed 000: MariaDB commit-fsync storm: redo log on a slow disk (10 ms per fsync)"
    DBTOP_SERVER_PRELOAD=build/tests/slowsync.so DBTOP_SLOWSYNC_MS=10 DBTOP_SLOWSYNC_FILES=ib_logfile \
        tests/sandbox.sh restart mariadb >/dev/null
    $sql -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1"
    bg tests/load.sh sysbench mariadb --rate 300 --time "$SECS" --threads 8 2>/dev/null
    sleep 2
    watch "$DBTOP_MARIADB_ADMIN_URI" "1/5 commit-fsync storm. Press 5, a, y: innodb_flush_log_at_trx_commit=2 via dbtop; q reverts it"
    stop_bg
    echo "== innodb_flush_log_at_trx_commit on the server after dbtop: $($sql -N -e "SELECT @@innodb_flush_log_at_trx_commit")"
    as_found "$found" "$(settings_my "$sql")"
}

mariadb_upsert_gap_lock() {
    local sql=$DBTOP_MARIADB_CLIENT found half=$(((SECS + 1) / 2))
    local sb=(sysbench --db-driver=mysql --mysql-socket="$DBTOP_MARIADB_SOCKET" --mysql-user=dbtop_admin
        --mysql-password=adminpw --mysql-db=dbtop_test --mysql-ignore-errors=1213,1205 scripts/upsert.lua)
    found=$(settings_my "$sql")
    echo "== 2/5 seed 001: upserts of a visit recorder; the client's fix (read first) after ${half} s"
    "${sb[@]}" prepare >/dev/null
    bg bash -c '"$@" --threads=10 --time="$0" run >/dev/null 2>&1;
        "$@" --threads=10 --time="$0" --fix=on run >/dev/null 2>&1' "$half" "${sb[@]}"
    sleep 2
    watch "$DBTOP_MARIADB_ADMIN_URI" "2/5 upserts wait on key locks. Press 3: the lock tree; the client reads first after ${half} s; q: next" \
        --server-budget 0
    stop_bg
    "${sb[@]}" cleanup >/dev/null
    as_found "$found" "$(settings_my "$sql")"
}

mariadb_slap_flush() {
    local port=$((DBTOP_MARIADB_PORT + 1)) rc=0
    echo "== 3/5 seed 002: mysqlslap at concurrency 8 on a disk whose flushes take 8 ms"
    scripts/slowdisk.sh up "$SLOWDISK" 8 >/dev/null || rc=$?
    if [ "$rc" != 0 ]; then
        echo "== skipped: the slow disk needs root, /dev/fuse, losetup and mkfs.ext4"
        return 0
    fi
    (
        export DBTOP_SANDBOX_DIR=$SLOWDISK/mnt/sb DBTOP_MARIADB_PORT=$port
        tests/sandbox.sh start mariadb >/dev/null
        eval "$(tests/sandbox.sh env)"
        sql=$DBTOP_MARIADB_CLIENT
        found=$(settings_my "$sql")
        sb0=$($sql -N -e "SELECT @@sync_binlog")
        # the seed's server had no binary log: its syncs out of the way
        $sql -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=0"
        bg timeout "$SECS" mariadb-slap --no-defaults -S "$DBTOP_MARIADB_SOCKET" -u dbtop_admin -padminpw \
            --concurrency=8 --iterations=100000 --number-of-queries=3000 --delimiter=";" \
            --create="CREATE TABLE t1 (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(36))" \
            --query="BEGIN;INSERT INTO t1 (v) VALUES (UUID());COMMIT"
        sleep 2
        watch "$DBTOP_MARIADB_ADMIN_URI" "3/5 mysqlslap on a slow disk. Press 5, a, y: flush=2 via dbtop; [1] fsyncs per run; q reverts it"
        stop_bg
        echo "== innodb_flush_log_at_trx_commit on the server after dbtop: $($sql -N -e "SELECT @@innodb_flush_log_at_trx_commit")"
        $sql -e "SET GLOBAL sync_binlog=$sb0"
        as_found "$found" "$(settings_my "$sql")"
        tests/sandbox.sh stop >/dev/null
    )
    scripts/slowdisk.sh down "$SLOWDISK"
}

pg_lock_chain() {
    local psql=$DBTOP_PG15_PSQL hold=$((SECS < 60 ? SECS : 60)) found
    found=$(settings_pg "$psql")
    echo "== 5/5 PostgreSQL lock chain behind an idle-in-transaction session (for ${hold} s)"
    $psql -qc "DROP TABLE IF EXISTS chain; CREATE TABLE chain (id int PRIMARY KEY, v int); INSERT INTO chain SELECT g, 0 FROM generate_series(1, 10) g" 2>/dev/null
    bg tests/load.sh pgbench pg15 --rate 100 --time "$SECS" --clients 4 2>/dev/null
    # the root blocker: row 1, then idle in its transaction; a waiter that
    # holds row 2; a waiter for row 2
    bg bash -c "printf 'BEGIN;\nUPDATE chain SET v = v + 1 WHERE id = 1;\n\\\\! sleep %d\nCOMMIT;\n' $hold | $psql -q >/dev/null 2>&1"
    sleep 1
    bg bash -c "printf 'SET lock_timeout = %s;\nBEGIN;\nUPDATE chain SET v = v + 1 WHERE id = 2;\nUPDATE chain SET v = v + 1 WHERE id = 1;\nCOMMIT;\n' \"'${hold}s'\" | $psql -q >/dev/null 2>&1"
    bg $psql -qc "SET lock_timeout = '${hold}s'; UPDATE chain SET v = v + 1 WHERE id = 2" >/dev/null 2>&1
    watch "$DBTOP_PG15_ADMIN_URI" "5/5 lock chain. Press 3: the root blocker and its waiters; x ends it (y confirms); q: next"
    stop_bg
    as_found "$found" "$(settings_pg "$psql")"
}

pg_wal_writer() {
    local psql=$DBTOP_PG15_PSQL found
    found=$(settings_pg "$psql")
    echo "== 4/5 seed 004: PostgreSQL WAL writer woken every 10 ms (asynchronous commits)"
    $psql -qc "ALTER SYSTEM SET synchronous_commit = off" -c "ALTER SYSTEM SET wal_writer_delay = '10ms'" -c "SELECT pg_reload_conf()" >/dev/null
    bg tests/load.sh pgbench pg15 --rate 400 --time "$SECS" --clients 8 2>/dev/null
    sleep 2
    watch "$DBTOP_PG15_ADMIN_URI" "4/5 WAL writer at 10 ms. Press 5, a, y: wal_writer_delay=1s via dbtop; q reverts it"
    stop_bg
    echo "== wal_writer_delay on the server after dbtop: $($psql -At -c "SHOW wal_writer_delay")"
    $psql -qc "ALTER SYSTEM RESET synchronous_commit" -c "ALTER SYSTEM RESET wal_writer_delay" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 0.5   # (the reload is asynchronous)
    as_found "$found" "$(settings_pg "$psql")"
}

for i in $INCIDENTS; do
    case $i in
    1 | mariadb-commit-fsync) mariadb_commit_fsync ;;
    2 | mariadb-upsert-gap-lock) mariadb_upsert_gap_lock ;;
    3 | mariadb-slap-flush) mariadb_slap_flush ;;
    4 | pg-wal-writer) pg_wal_writer ;;
    5 | pg-lock-chain) pg_lock_chain ;;
    *) echo "demo: unknown incident $i (1 to 5 or their names)" >&2; exit 2 ;;
    esac
done
echo "== the demo is over"
