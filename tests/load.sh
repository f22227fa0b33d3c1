#!/usr/bin/env bash
# Bounded load against the sandbox servers of tests/sandbox.sh (never anything else).
#   tests/load.sh pgbench NAME --rate R --time T [--clients C]     NAME: pg15 pg18 pg13
#   tests/load.sh sysbench mariadb --rate R --time T [--threads C] [--ps]   --ps: server-side prepared statements
#   tests/load.sh commits mariadb --rate R --time T                  one autocommit INSERT per commit
# The load tool's summary goes to stderr; exit status is non-zero if the tool fails.
set -euo pipefail

DIR=${DBTOP_SANDBOX_DIR:-${TMPDIR:-/tmp}/dbtop-sandbox}
MAX_TIME=3600 MAX_RATE=100000 MAX_CLIENTS=256

# Print an error and exit 1.
die() { echo "load: $*" >&2; exit 1; }

# Check that $2 is an integer in 1..$3 (named $1).
check_int() {
    case $2 in '' | *[!0-9]*) die "$1 must be a positive integer, got '$2'" ;; esac
    (($2 >= 1 && $2 <= $3)) || die "$1 must be in 1..$3, got $2"
}

# Time-bounded pgbench run over the unix socket as postgres; tables initialised once.
run_pgbench() {
    local name=$1 sock=$DIR/$1/run port jobs rc=0
    port=$(cat "$DIR/$name/port")
    local pgb=(/usr/bin/pgbench -h "$sock" -p "$port" -U postgres)
    if [ "$(/usr/bin/psql -X -At -h "$sock" -p "$port" -U postgres -d dbtop_test \
        -c "SELECT to_regclass('public.pgbench_history') IS NOT NULL")" != t ]; then
        "${pgb[@]}" -i -q -s 1 dbtop_test >"$DIR/$name/pgbench-init.log" 2>&1 ||
            { tail -n 20 "$DIR/$name/pgbench-init.log" >&2; die "pgbench -i failed on $name"; }
    fi
    jobs=$((CLIENTS < 2 ? CLIENTS : 2))
    timeout -k 10 $((TIME + 60)) "${pgb[@]}" -R "$RATE" -T "$TIME" -c "$CLIENTS" \
        -j "$jobs" -n dbtop_test >&2 || rc=$?
    [ "$rc" = 0 ] || die "pgbench failed on $name (exit $rc)"
}

# Client options for MariaDB: admin user over the sandbox socket.
MARIADB_OPTS=()
mariadb_opts() {
    MARIADB_OPTS=(--no-defaults -S "$DIR/mariadb/mysqld.sock" -u dbtop_admin -padminpw dbtop_test)
}

# Time-bounded sysbench oltp_write_only run; the table is prepared once. Plain
# text statements (no server-side prepare), or with --ps server-side prepared
# statements (sysbench's default, as Connector/J and Go's database/sql send them).
run_sysbench() {
    local rc=0 n
    mariadb_opts
    local sb=(sysbench oltp_write_only --db-driver=mysql --mysql-socket="$DIR/mariadb/mysqld.sock"
        --mysql-user=dbtop_admin --mysql-password=adminpw --mysql-db=dbtop_test
        --tables=1 --table-size=10000 --db-ps-mode="$PS_MODE")
    n=$(mariadb "${MARIADB_OPTS[@]}" -N -e "SELECT COUNT(*) FROM sbtest1" 2>/dev/null) || n=0
    if [ "$n" != 10000 ]; then
        "${sb[@]}" cleanup >/dev/null 2>&1 || true
        "${sb[@]}" prepare >/dev/null 2>&1 || die "sysbench prepare failed"
    fi
    # --events caps the count at twice what the rate allows in the time given.
    timeout -k 10 $((TIME + 60)) "${sb[@]}" --rate="$RATE" --time="$TIME" \
        --threads="$CLIENTS" --events=$((RATE * TIME * 2 + 100)) run >&2 || rc=$?
    [ "$rc" = 0 ] || die "sysbench failed (exit $rc)"
}

# Paced autocommit INSERTs through one client: at most RATE*TIME commits, at most TIME+5 s.
run_commits() {
    local rc=0
    mariadb_opts
    mariadb "${MARIADB_OPTS[@]}" -e "CREATE TABLE IF NOT EXISTS load_commits
        (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT, ts TIMESTAMP(6) DEFAULT CURRENT_TIMESTAMP(6))
        ENGINE=InnoDB" || die "cannot create dbtop_test.load_commits"
    {
        local total=$((RATE * TIME)) sent=0 due t0 now el
        t0=${EPOCHREALTIME/./}
        echo "SET autocommit=1;"
        while ((sent < total)); do
            now=${EPOCHREALTIME/./}
            el=$((now - t0))
            ((el < (TIME + 5) * 1000000)) || break
            due=$((el * RATE / 1000000))
            ((due > total)) && due=$total
            while ((sent < due)); do
                echo "INSERT INTO load_commits (v) VALUES ($sent);"
                sent=$((sent + 1))
            done
            sleep 0.01
        done
        el=$((${EPOCHREALTIME/./} - t0))
        echo "commits: $sent INSERT commits sent in $((el / 1000)) ms" \
            "($((sent * 1000000 / (el > 0 ? el : 1)))/s, target $RATE/s)" >&2
    } | timeout -k 10 $((TIME + 60)) mariadb "${MARIADB_OPTS[@]}" || rc=$?
    [ "$rc" = 0 ] || die "commit load failed (exit $rc)"
}

MODE=${1:-} NAME=${2:-}
[ $# -ge 2 ] || die "usage: $0 pgbench NAME|sysbench mariadb|commits mariadb --rate R --time T [--clients C]"
shift 2
RATE="" TIME="" CLIENTS=4 PS_MODE=disable
while [ $# -gt 0 ]; do
    case $1 in --ps) ;; --*) [ $# -ge 2 ] || die "$1 needs a value" ;; esac
    case $1 in
    --rate) RATE=${2:-}; shift 2 ;;
    --time) TIME=${2:-}; shift 2 ;;
    --clients | --threads) CLIENTS=${2:-}; shift 2 ;;
    --ps) PS_MODE=auto; shift ;;
    *) die "unknown option '$1'" ;;
    esac
done
check_int --rate "$RATE" "$MAX_RATE"
check_int --time "$TIME" "$MAX_TIME"
check_int --clients "$CLIENTS" "$MAX_CLIENTS"
[ -f "$DIR/$NAME/ready" ] || die "server '$NAME' is not started in $DIR (tests/sandbox.sh start $NAME)"

case $MODE:$NAME in
pgbench:pg15 | pgbench:pg18 | pgbench:pg13) run_pgbench "$NAME" ;;
sysbench:mariadb) run_sysbench ;;
commits:mariadb) run_commits ;;
*) die "unsupported: $MODE $NAME" ;;
esac
