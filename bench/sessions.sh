#!/usr/bin/env bash
# bench/sessions.sh - the session read at 2,500 sessions: its server time per refresh and the
# client's CPU and RSS, dbtop against pg_activity (PostgreSQL 15) and innotop (MariaDB) on the
# same load, one tool after another, each at a 1 s refresh.
#   bench/sessions.sh                     2,500 sessions, 60 s per tool, twice
#   DBTOP=/path/to/dbtop bench/sessions.sh   another build (its backends next to it)
# Load (bench/sessload.c, built here; one process holding every connection): BENCH_SESSIONS
# sessions, of which BENCH_ACTIVE run bounded statements in a loop (a 0.1-0.5 s sleep or a
# catalogue count, alternately), BENCH_TRX sit idle in a transaction that wrote a row, the rest
# idle. max_connections is raised on the throwaway bench servers only.
# dbtop is measured with its sessions showing: on the sessions screen (key BENCH_DBTOP_KEY) when
# its binary has one, else `--batch --format json --sessions`; a binary without `--sessions` is
# measured as `--batch --format json` (a baseline with no session read). The report says which.
# Server time per refresh: the tool's statements in pg_stat_statements (execution + planning,
# its own role) / performance_schema (its own user; the session read by digest text), read once
# a second during the window by one poller connection; each 1 s delta is one refresh.
# Prints a markdown table (and writes it to BENCH_OUT when set). Starts its own sandbox and
# stops everything it started, by PID, also after an error or Ctrl-C.
# Env knobs (defaults in brackets):
#   BENCH_SESSIONS [2500] BENCH_ACTIVE [50] BENCH_TRX [5]    the load
#   BENCH_WAITERS [500]  more sessions, waiting on one row that a root session holds idle in its
#                        transaction (pgbench / mariadb-slap; 0: none)
#   BENCH_SECONDS [60]   window per tool (10..600)   BENCH_WARMUP [5]   s before the window
#   BENCH_REPEAT [2]     rounds (each round: every tool once, per engine)
#   BENCH_ENGINES ["pg15 mariadb"]
#   DBTOP [./dbtop]      dbtop binary (./dbtop is rebuilt with make first)
#   BENCH_DBTOP_MODE [auto]  auto | screen | batch | baseline (see above)
#   BENCH_DBTOP_KEY [6]  the sessions screen's key
#   BENCH_INNOTOP_MODE [Q]   innotop's mode (Q: the query list, its session view)
#   BENCH_DBTOP_B []     another dbtop build, measured as shipped after DBTOP in each round on
#                        the same load (before / after); BENCH_DBTOP_B_LABEL [B] names it
#   BENCH_BUDGET0 [1]    also measure dbtop with --server-budget 0 (the session list read on
#                        every refresh, as the peers do; by default a read that costs more than
#                        half the 10 ms budget is done every few refreshes)
#   The session read, by statement text (a regex; PostgreSQL: pg_stat_statements.query,
#   MariaDB: performance_schema digest text):
#   BENCH_PG_SESS_RE ['pg_stat_activity']  peers: every statement that reads the session list
#   BENCH_MY_SESS_RE ['PROCESSLIST']
#   BENCH_PG_DBTOP_RE ['pg_stat_activity a ORDER BY a\.pid|WITH a AS \(SELECT \* FROM pg_stat_activity\)']
#                        dbtop: its one session statement (before and after it became one scan
#                        with the lock count)
#   BENCH_MY_DBTOP_RE ['PROCESSLIST.{1,8}p.{1,3}(ORDER BY|LEFT JOIN|LIMIT)|INNODB_TRX.{1,3}x.{0,2}$']
#                        (the process list, and its transactions read apart since they are no
#                        longer joined on the server)
#   BENCH_PERF [1]       perf profile of dbtop's last window per engine (when perf exists)
#   BENCH_OUT []         also write the markdown report there
#   DBTOP_PG15_PORT [48415] DBTOP_MARIADB_PORT [48306]   sandbox ports
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

S=${BENCH_SESSIONS:-2500}
ACTIVE=${BENCH_ACTIVE:-50}
TRX=${BENCH_TRX:-5}
WAITERS=${BENCH_WAITERS:-500}
DURATION=${BENCH_SECONDS:-60}
WARMUP=${BENCH_WARMUP:-5}
REPEAT=${BENCH_REPEAT:-2}
ENGINES=${BENCH_ENGINES:-"pg15 mariadb"}
DBTOP_BIN=${DBTOP:-./dbtop}
MODE=${BENCH_DBTOP_MODE:-auto}
KEY=${BENCH_DBTOP_KEY:-6}
INNOTOP_MODE=${BENCH_INNOTOP_MODE:-Q}
PG_SESS_RE=${BENCH_PG_SESS_RE:-pg_stat_activity}
MY_SESS_RE=${BENCH_MY_SESS_RE:-PROCESSLIST}
PG_DBTOP_RE=${BENCH_PG_DBTOP_RE:-'pg_stat_activity a ORDER BY a\.pid|WITH a AS \(SELECT \* FROM pg_stat_activity\)'}
MY_DBTOP_RE=${BENCH_MY_DBTOP_RE:-'PROCESSLIST.{1,8}p.{1,3}(ORDER BY|LEFT JOIN|LIMIT)|INNODB_TRX.{1,3}x.{0,2}$'}
BUDGET0=${BENCH_BUDGET0:-1}
DBTOP_B=${BENCH_DBTOP_B:-}
DBTOP_B_LABEL=${BENCH_DBTOP_B_LABEL:-B}
PERF=${BENCH_PERF:-1}
OUT_MD=${BENCH_OUT:-}
export DBTOP_PG15_PORT=${DBTOP_PG15_PORT:-48415} DBTOP_MARIADB_PORT=${DBTOP_MARIADB_PORT:-48306}
export DBTOP_PG18_PORT=${DBTOP_PG18_PORT:-48418} DBTOP_PG13_PORT=${DBTOP_PG13_PORT:-48413}
PEER_PW=benchpw
CLK_TCK=$(getconf CLK_TCK)

die() { echo "sessions.sh: $*" >&2; exit 1; }
say() { echo "sessions.sh: $(date -u +%H:%M:%S) $*" >&2; }
check_int() {
    case $2 in '' | *[!0-9]*) die "$1 must be a non-negative integer, got '$2'" ;; esac
    (($2 >= $3 && $2 <= $4)) || die "$1 must be in $3..$4, got $2"
}
check_int BENCH_SESSIONS "$S" 10 10000
check_int BENCH_ACTIVE "$ACTIVE" 0 500
check_int BENCH_TRX "$TRX" 0 500
((ACTIVE + TRX < S)) || die "BENCH_ACTIVE + BENCH_TRX must be below BENCH_SESSIONS"
check_int BENCH_SECONDS "$DURATION" 10 600
check_int BENCH_WARMUP "$WARMUP" 1 60
check_int BENCH_REPEAT "$REPEAT" 1 5
case $MODE in auto | screen | batch | baseline) ;; *) die "BENCH_DBTOP_MODE: auto, screen, batch or baseline" ;; esac
for e in $ENGINES; do case $e in pg15 | mariadb) ;; *) die "unknown engine $e" ;; esac; done

# ---------------------------------------------------------------- installation

# The peers and what the load client builds with, from Debian, when dpkg lacks one.
install_deps() {
    local p missing=""
    for p in pg-activity mariadb-client libdbd-mariadb-perl libterm-readkey-perl tmux jq \
        postgresql-client-15 libpq-dev libmariadb-dev gcc procps; do
        [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    [ "$(id -u)" -eq 0 ] || die "not root: cannot install$missing"
    say "installing$missing"
    # shellcheck disable=SC2086 # word-split on purpose
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null 2>&1 || {
        apt-get update -qq >/dev/null 2>&1 || true
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null || die "apt-get install$missing failed"
    }
}

# ---------------------------------------------------------------- cleanup

TMP='' TOOL_PID='' LOAD_PID='' POLL_PID='' SANDBOX_UP=0 WAIT_PIDS='' ROOT_FD=
descendants() {
    local k
    for k in $(pgrep -P "$1" 2>/dev/null || true); do echo "$k"; descendants "$k"; done
}
proc_state() {
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    s=${s##*) }
    echo "${s%% *}"
}
alive() { [ -n "$1" ] && [ -d "/proc/$1" ] && [ "$(proc_state "$1")" != Z ]; }
# TERM pid $1 and its descendants, wait up to $2 s, then KILL what is left.
kill_tree() {
    local pids p i left
    pids="$1 $(descendants "$1" | tr '\n' ' ')"
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    for ((i = 0; i < $2 * 10; i++)); do
        left=
        for p in $pids; do alive "$p" && left="$left $p"; done
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null || true
}
tm() { tmux -S "$TMP/tmux.sock" -f /dev/null "$@"; }
cleanup() {
    local rc=$?
    trap - EXIT INT TERM HUP
    set +e
    [ -n "$TOOL_PID" ] && kill_tree "$TOOL_PID" 3
    [ -n "$POLL_PID" ] && kill_tree "$POLL_PID" 3
    [ -n "$TMP" ] && [ -S "$TMP/tmux.sock" ] && tm kill-server 2>/dev/null
    [ -n "$LOAD_PID" ] && kill_tree "$LOAD_PID" 20
    stop_waiters
    [ "$SANDBOX_UP" = 1 ] && { tests/sandbox.sh stop >/dev/null 2>&1 || say "sandbox stop failed ($DBTOP_SANDBOX_DIR)"; }
    [ -n "$TMP" ] && rm -rf "$TMP"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---------------------------------------------------------------- servers

pgq() {
    PGCONNECT_TIMEOUT=5 psql -X -At -q -v ON_ERROR_STOP=1 -h "$DBTOP_PG15_SOCKET" \
        -p "$DBTOP_PG15_PORT" -U postgres -d dbtop_test -c "$1"
}
myq() { mariadb --no-defaults --connect-timeout=5 -N -B -S "$DBTOP_MARIADB_SOCKET" -u root -e "$1"; }

# Raise max_connections (bench server only), peer logins, statement timing with planning.
prepare_server() {
    case $1 in
    pg15)
        pgq "ALTER SYSTEM SET max_connections = $((S + WAITERS + 100))" >/dev/null
        pgq "ALTER SYSTEM SET pg_stat_statements.track_planning = on" >/dev/null
        tests/sandbox.sh restart pg15 >>"$TMP/sandbox.log" 2>&1 || { tail "$TMP/sandbox.log" >&2; die "pg15 restart failed"; }
        eval "$(tests/sandbox.sh env)"
        pgq "DO \$\$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'bench_pg_activity') THEN
             CREATE ROLE bench_pg_activity LOGIN PASSWORD '$PEER_PW' IN ROLE pg_monitor; END IF; END \$\$" >/dev/null
        ;;
    mariadb)
        myq "SET GLOBAL max_connections = $((S + WAITERS + 100));
             CREATE USER IF NOT EXISTS 'bench_innotop'@'localhost' IDENTIFIED BY '$PEER_PW';
             GRANT ALL PRIVILEGES ON *.* TO 'bench_innotop'@'localhost';"
        ;;
    esac
}

# Start the load on $1 and wait until every session is connected (at most 300 s).
start_load() {
    local hold=$2 i n
    rm -f "$TMP/load.out"
    case $1 in
    pg15)
        timeout -k 10 $((hold + 30)) "$TMP/sessload" pg -n "$S" -a "$ACTIVE" -t "$TRX" -s "$hold" \
            -c "host=$DBTOP_PG15_SOCKET port=$DBTOP_PG15_PORT user=postgres dbname=dbtop_test" \
            >"$TMP/load.out" 2>"$TMP/load.err" &
        ;;
    mariadb)
        timeout -k 10 $((hold + 30)) "$TMP/sessload" mariadb -n "$S" -a "$ACTIVE" -t "$TRX" -s "$hold" \
            -S "$DBTOP_MARIADB_SOCKET" -u dbtop_admin -p adminpw -d dbtop_test \
            >"$TMP/load.out" 2>"$TMP/load.err" &
        ;;
    esac
    LOAD_PID=$!
    for ((i = 0; i < 3000; i++)); do
        grep -q '^connected' "$TMP/load.out" 2>/dev/null && break
        alive "$LOAD_PID" || break
        sleep 0.1
    done
    n=$(awk '/^connected/ { print $2 }' "$TMP/load.out" 2>/dev/null)
    [ -n "$n" ] || { head -c 500 "$TMP/load.err" >&2; die "the load did not connect on $1"; }
    [ "$n" = "$S" ] || say "only $n of $S sessions connected on $1: $(head -n 1 "$TMP/load.err")"
    sleep 3
}

# WAITERS sessions waiting on one row (table bench_wait) that a root session holds idle in its
# transaction, on $1 for at most $2 s (bounded on the server too: lock_timeout /
# innodb_lock_wait_timeout, idle_in_transaction_session_timeout / idle_transaction_timeout);
# waits until they all wait (at most 120 s).
start_waiters() {
    local hold=$2 i n=0
    [ "$WAITERS" -gt 0 ] || return 0
    rm -f "$TMP/root.in"
    mkfifo "$TMP/root.in"
    case $1 in
    pg15)
        pgq "DROP TABLE IF EXISTS bench_wait; CREATE TABLE bench_wait (id int PRIMARY KEY, v int); INSERT INTO bench_wait VALUES (1, 0)"
        PGOPTIONS="-c idle_in_transaction_session_timeout=${hold}s" timeout -k 5 "$hold" psql -X -q -h "$DBTOP_PG15_SOCKET" \
            -p "$DBTOP_PG15_PORT" -U postgres -d dbtop_test <"$TMP/root.in" >/dev/null 2>&1 &
        WAIT_PIDS="$!"
        exec {ROOT_FD}>"$TMP/root.in"
        printf 'BEGIN;\nUPDATE bench_wait SET v = v + 1 WHERE id = 1;\n' >&"$ROOT_FD"
        echo 'UPDATE bench_wait SET v = v + 1 WHERE id = 1;' >"$TMP/wait.sql"
        PGOPTIONS="-c lock_timeout=${hold}s" timeout -k 5 "$hold" pgbench -n -h "$DBTOP_PG15_SOCKET" -p "$DBTOP_PG15_PORT" \
            -U postgres -c "$WAITERS" -j 2 -T "$hold" -f "$TMP/wait.sql" dbtop_test >"$TMP/wait.log" 2>&1 &
        WAIT_PIDS="$WAIT_PIDS $!"
        ;;
    mariadb)
        myq "DROP TABLE IF EXISTS dbtop_test.bench_wait; CREATE TABLE dbtop_test.bench_wait (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
             INSERT INTO dbtop_test.bench_wait VALUES (1, 0)"
        timeout -k 5 "$hold" mariadb --no-defaults -N -B -S "$DBTOP_MARIADB_SOCKET" -u root dbtop_test \
            --init-command="SET SESSION idle_transaction_timeout = $hold" <"$TMP/root.in" >/dev/null 2>&1 &
        WAIT_PIDS="$!"
        exec {ROOT_FD}>"$TMP/root.in"
        printf 'BEGIN;\nUPDATE bench_wait SET v = v + 1 WHERE id = 1;\n' >&"$ROOT_FD"
        timeout -k 5 "$hold" mariadb-slap --no-defaults -S "$DBTOP_MARIADB_SOCKET" -u root --create-schema=dbtop_test \
            --no-drop --concurrency="$WAITERS" --iterations=1 --init-command="SET SESSION innodb_lock_wait_timeout = $hold" \
            --query="UPDATE bench_wait SET v = v + 1 WHERE id = 1" >"$TMP/wait.log" 2>&1 &
        WAIT_PIDS="$WAIT_PIDS $!"
        ;;
    esac
    for ((i = 0; i < 480; i++)); do
        case $1 in
        pg15) n=$(pgq "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'" 2>/dev/null) || n=0 ;;
        mariadb) n=$(myq "SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_current_waits'" 2>/dev/null | cut -f2) || n=0 ;;
        esac
        [ "${n:-0}" -ge "$WAITERS" ] 2>/dev/null && break
        sleep 0.25
    done
    say "$1: $n sessions waiting on one row"
}

stop_waiters() {
    local p
    [ -n "$ROOT_FD" ] && { eval "exec $ROOT_FD>&-"; ROOT_FD=; }
    for p in $WAIT_PIDS; do kill_tree "$p" 10; done
    for p in $WAIT_PIDS; do wait "$p" 2>/dev/null || true; done
    WAIT_PIDS=
}

stop_load() {
    [ -n "$LOAD_PID" ] && kill_tree "$LOAD_PID" 30
    wait "$LOAD_PID" 2>/dev/null || true
    LOAD_PID=
}

# "total active idle_in_trx" client sessions seen by the server right now.
session_mix() {
    case $1 in
    pg15) pgq "SELECT count(*) || ' ' || count(*) FILTER (WHERE state = 'active') || ' ' ||
                      count(*) FILTER (WHERE state = 'idle in transaction')
               FROM pg_stat_activity WHERE backend_type = 'client backend'" ;;
    mariadb) myq "SELECT CONCAT(COUNT(*), ' ', SUM(COMMAND NOT IN ('Sleep', 'Daemon')), ' ',
                         (SELECT COUNT(*) FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p
                            ON p.ID = t.trx_mysql_thread_id WHERE p.COMMAND = 'Sleep'))
                  FROM information_schema.PROCESSLIST WHERE COMMAND <> 'Daemon'" ;;
    esac
}

reset_stats() {
    case $1 in
    pg15) pgq "SELECT pg_stat_statements_reset()" >/dev/null ;;
    mariadb) myq "TRUNCATE TABLE performance_schema.events_statements_summary_by_digest;
                  TRUNCATE TABLE performance_schema.events_statements_summary_by_user_by_event_name" ;;
    esac
}

# Poll the tool's cumulative server time once a second for $3 s into file $4:
# "epoch sess_calls sess_ms all_calls all_ms". One client connection, one process.
start_poller() {
    local engine=$1 login=$2 n=$3 out=$4 re=$5 i
    case $engine in
    pg15)
        for ((i = 0; i <= n; i++)); do
            echo "SELECT extract(epoch FROM clock_timestamp()),
                  coalesce(sum(calls) FILTER (WHERE query ~* '$re'), 0),
                  coalesce(sum(total_exec_time + total_plan_time) FILTER (WHERE query ~* '$re'), 0),
                  coalesce(sum(calls), 0), coalesce(sum(total_exec_time + total_plan_time), 0)
                  FROM pg_stat_statements WHERE userid = '$login'::regrole;"
            [ "$i" = "$n" ] || echo "SELECT pg_sleep(1 - extract(epoch FROM clock_timestamp())::numeric % 1) \\g /dev/null"
        done >"$TMP/poll.sql"
        timeout -k 5 $((n + 30)) psql -X -At -F ' ' -q -h "$DBTOP_PG15_SOCKET" -p "$DBTOP_PG15_PORT" \
            -U postgres -d dbtop_test -f "$TMP/poll.sql" >"$out" 2>"$out.err" &
        ;;
    mariadb)
        for ((i = 0; i <= n; i++)); do
            echo "SELECT UNIX_TIMESTAMP(NOW(6)),
                  (SELECT COALESCE(SUM(COUNT_STAR), 0) FROM performance_schema.events_statements_summary_by_digest AS bench_poll
                    WHERE DIGEST_TEXT RLIKE '$re'),
                  (SELECT COALESCE(SUM(SUM_TIMER_WAIT), 0) / 1e9 FROM performance_schema.events_statements_summary_by_digest AS bench_poll
                    WHERE DIGEST_TEXT RLIKE '$re'),
                  (SELECT COALESCE(SUM(COUNT_STAR), 0) FROM performance_schema.events_statements_summary_by_user_by_event_name AS bench_poll
                    WHERE USER = '$login'),
                  (SELECT COALESCE(SUM(SUM_TIMER_WAIT), 0) / 1e9 FROM performance_schema.events_statements_summary_by_user_by_event_name AS bench_poll
                    WHERE USER = '$login');"
            [ "$i" = "$n" ] || echo "DO SLEEP(1 - MICROSECOND(NOW(6)) / 1e6);"
        done >"$TMP/poll.sql"
        timeout -k 5 $((n + 30)) mariadb --no-defaults -N -B -S "$DBTOP_MARIADB_SOCKET" -u root \
            <"$TMP/poll.sql" >"$out" 2>"$out.err" &
        ;;
    esac
    POLL_PID=$!
}

# The tool's statements, costliest first (PostgreSQL: its role; MariaDB: digests that are not
# the load's or the poller's, which includes every tool that ran in the window, i.e. this one).
breakdown() {
    case $1 in
    pg15) pgq "SELECT calls, round((total_exec_time + total_plan_time)::numeric, 1), round(max_exec_time::numeric, 2),
                      left(regexp_replace(query, '\\s+', ' ', 'g'), 90)
               FROM pg_stat_statements WHERE userid = '$2'::regrole
               ORDER BY total_exec_time + total_plan_time DESC LIMIT 8" ;;
    mariadb) myq "SELECT COUNT_STAR, ROUND(SUM_TIMER_WAIT / 1e9, 1), ROUND(MAX_TIMER_WAIT / 1e9, 2),
                         LEFT(REGEXP_REPLACE(DIGEST_TEXT, '\\\\s+', ' '), 90)
                  FROM performance_schema.events_statements_summary_by_digest
                  WHERE DIGEST_TEXT NOT RLIKE 'bench_poll|SLEEP|SCHEMATA|bench_sessload|^SET (?!STATEMENT)|^(BEGIN|ROLLBACK)'
                    AND DIGEST_TEXT IS NOT NULL
                  ORDER BY SUM_TIMER_WAIT DESC LIMIT 8" ;;
    esac | awk -F '\t|[|]' '{ printf "  %6s calls %9s ms (max %7s ms)  %s\n", $1, $2, $3, $4 }'
}

# ---------------------------------------------------------------- processes

tree_ticks() {
    local p s f sum=0
    for p in $1 $(descendants "$1"); do
        s=$(cat "/proc/$p/stat" 2>/dev/null) || continue
        s=${s##*) }
        read -ra f <<<"$s"
        sum=$((sum + f[11] + f[12] + f[13] + f[14]))
    done
    echo "$sum"
}
tree_hwm_kb() {
    local p v sum=0
    for p in $1 $(descendants "$1"); do
        v=$(awk '/^VmHWM:/ {print $2}' "/proc/$p/status" 2>/dev/null) || continue
        sum=$((sum + ${v:-0}))
    done
    echo "$sum"
}
machine_jiffies() {
    local _c u n s i w q sq st
    read -r _c u n s i w q sq st _ </proc/stat
    echo "$((u + n + s + q + sq + st)) $((u + n + s + i + w + q + sq + st))"
}
calc() { awk "BEGIN { printf \"$1\", ($2) }"; }

# Start "$@" in detached tmux session $1 (200x50), output to $TMP/$1.out when OUTFILE=1;
# set TOOL_PID after 1 s.
start_tool() {
    local sess=$1 pane i
    shift
    tm new-session -d -s "$sess" -x 200 -y 50 \
        env HOME="$TMP/home" LC_ALL=C.UTF-8 PGPASSWORD="$PEER_PW" OUTFILE="${OUTFILE:-}" \
        bash "$TMP/runner.sh" "$TMP/$sess.exit" "$TMP/$sess.out" "$@"
    TOOL_PID=
    for ((i = 0; i < 30; i++)); do
        [ -z "$TOOL_PID" ] || break
        sleep 0.1
        pane=$(tm display -p -t "$sess" '#{pane_pid}' 2>/dev/null) || continue
        TOOL_PID=$(pgrep -P "$pane" | head -n 1 || true)
    done
    [ -n "$TOOL_PID" ] || die "$sess did not start"
}
stop_tool() {
    local sess=$1 i
    if alive "$TOOL_PID"; then
        tm send-keys -t "$sess" q 2>/dev/null || true
        for ((i = 0; i < 30; i++)); do alive "$TOOL_PID" || break; sleep 0.1; done
    fi
    alive "$TOOL_PID" && kill_tree "$TOOL_PID" 5
    tm kill-session -t "$sess" 2>/dev/null || true
    TOOL_PID=
}
screen_of() { tm capture-pane -p -t "$1" 2>/dev/null | sed 's/[[:space:]]*$//' | grep -v '^$' | head -n "${2:-8}" | cut -c1-160 || true; }

# ---------------------------------------------------------------- measuring

ROWS=() NOTES=() DETAILS=()
declare -A PERF_LABEL=()

# avg / median / max of the per-interval deltas of column $2 (cumulative ms) of poll file $1
# over the intervals of the window; "n/a" without data.
interval_stats() {
    awk -v c="$2" 'NF >= 5 { v[n++] = $c }
        END {
            if (n < 2) { print "n/a"; exit }
            for (i = 1; i < n; i++) d[i - 1] = v[i] - v[i - 1]
            m = n - 1; s = 0; mx = d[0]
            for (i = 0; i < m; i++) { s += d[i]; if (d[i] > mx) mx = d[i] }
            asort(d)
            med = (m % 2) ? d[(m + 1) / 2] : (d[m / 2] + d[m / 2 + 1]) / 2
            printf "%.2f / %.2f / %.2f", s / m, med, mx
        }' "$1"
}
# Delta of column $2 between the first and the last line of poll file $1.
poll_delta() { awk -v c="$2" 'NF >= 5 { if (!n++) a = $c; b = $c } END { print n ? b - a : "n/a" }' "$1"; }

# measure ROUND ENGINE LABEL LOGIN SESSION-READ-REGEX TMUX-SESSION CMD...
measure() {
    local round=$1 engine=$2 label=$3 login=$4 re=$5 sess=$6
    shift 6
    say "round $round, $engine: $label ($DURATION s)"
    local mix
    mix=$(session_mix "$engine" | tr -d '\r')
    reset_stats "$engine"
    start_tool "$sess" "$@"
    sleep "$WARMUP"
    if [ "$sess" = dbtop ] && [ "$DBTOP_HOW" = screen ]; then
        tm send-keys -t "$sess" "$KEY"
        sleep 2
    fi
    alive "$TOOL_PID" || {
        NOTES+=("round $round, $engine, $label: exited during the warm-up: $(screen_of "$sess" 3 | tr '\n' ' ') $(head -c 300 "$TMP/$sess.out" 2>/dev/null)")
        stop_tool "$sess"
        return 0
    }
    local up0 up1 c0 c1 t0 t1 m0 m1 hwm k died=0 poll=$TMP/poll-$round-$engine-$sess
    up0=$(cut -d' ' -f1-3 /proc/loadavg)
    start_poller "$engine" "$login" "$DURATION" "$poll" "$re"
    sleep 0.5
    m0=$(machine_jiffies) t0=$EPOCHREALTIME c0=$(tree_ticks "$TOOL_PID")
    local perf_pid=
    if [ "$PERF" = 1 ] && [ "$sess" = dbtop ] && [ "$round" = "$REPEAT" ] && command -v perf >/dev/null; then
        perf record -q -F 499 -g -p "$TOOL_PID" -o "$TMP/perf-$engine.data" -- sleep "$DURATION" >/dev/null 2>&1 &
        perf_pid=$!
        PERF_LABEL[$engine]=$label
    fi
    for ((k = 0; k < DURATION * 10; k++)); do
        sleep 0.1
        if ((k % 10 == 9)) && ! alive "$TOOL_PID"; then died=1; break; fi
    done
    c1=$(tree_ticks "$TOOL_PID") t1=$EPOCHREALTIME m1=$(machine_jiffies)
    hwm=$(tree_hwm_kb "$TOOL_PID")
    up1=$(cut -d' ' -f1-3 /proc/loadavg)
    [ -n "$perf_pid" ] && wait "$perf_pid" 2>/dev/null
    wait "$POLL_PID" 2>/dev/null || true
    POLL_PID=
    local screen
    screen=$(screen_of "$sess" 6)
    local win cpu rss busy a0 b0 a1 b1 sess_ms all_ms sess_calls all_calls
    win=$(calc %.3f "${t1/./} / 1e6 - ${t0/./} / 1e6")
    cpu=$(calc %.2f "100 * ($c1 - $c0) / ($win * $CLK_TCK)")
    rss=$(calc %.1f "$hwm / 1024")
    read -r a0 b0 <<<"$m0"
    read -r a1 b1 <<<"$m1"
    busy=$(calc %.0f "100 * ($a1 - $a0) / ($b1 - $b0)")
    sess_ms=$(interval_stats "$poll" 3)
    all_ms=$(interval_stats "$poll" 5)
    sess_calls=$(poll_delta "$poll" 2)
    local per_read
    per_read=$(awk -v c="$sess_calls" -v m="$(poll_delta "$poll" 3)" 'BEGIN { print (c > 0) ? sprintf("%.2f", m / c) : "n/a" }')
    all_calls=$(poll_delta "$poll" 4)
    [ "$died" = 1 ] && { cpu="$cpu (exited)"; NOTES+=("round $round, $engine, $label exited during the window"); }
    [ -s "$poll.err" ] && NOTES+=("round $round, $engine, $label: poller: $(head -c 200 "$poll.err")")
    ROWS+=("| $round | $engine | $label | $sess_ms | $sess_calls | $per_read | $all_ms | $all_calls | $cpu | $rss | $mix | $busy | $up0 → $up1 |")
    DETAILS+=("round $round, $engine, $label: statements of its login, costliest first (calls, total ms, max ms, text):"
        "$(breakdown "$engine" "$login")"
        "  screen at the end of the window:" "$(sed 's/^/    /' <<<"$screen")")
    if [ "$sess" = dbtop ] && [ -s "$TMP/$sess.out" ] && [ "$DBTOP_HOW" != screen ]; then
        DETAILS+=("  dbtop's own JSON: $(jq -rs '"\(length) records; cost.query_ms avg \(([.[].cost.query_ms] | add / length * 100 | round) / 100); sessions per record \(([.[] | (.sessions // []) | length] | max))"' "$TMP/$sess.out" 2>/dev/null || echo '(unreadable)')")
    fi
    stop_tool "$sess"
}

# The top of dbtop's profile on engine $1 (perf report of the last window).
profile() {
    [ -s "$TMP/perf-$1.data" ] || return 0
    echo "dbtop perf profile on $1 (${PERF_LABEL[$1]}, last round, self time, entries >= 2 %):"
    perf report -q -i "$TMP/perf-$1.data" --no-children --sort dso,symbol --percent-limit 2 --stdio 2>/dev/null |
        grep -E '^ +[0-9]' | head -12 | sed 's/^ */  /; s/ *$//' || true
}

# ---------------------------------------------------------------- main

install_deps
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dbtop-bench-sessions.XXXXXX")
chmod 755 "$TMP"
mkdir -p "$TMP/home"
export DBTOP_SANDBOX_DIR=$TMP/sandbox
mkdir -p "$DBTOP_SANDBOX_DIR"
chmod 755 "$DBTOP_SANDBOX_DIR"
cat >"$TMP/runner.sh" <<'EOF'
# Pane runner: the tool is this shell's child; its output to a file when OUTFILE=1.
f=$1 o=$2
shift 2
if [ "$OUTFILE" = 1 ]; then "$@" >"$o" 2>"$o.err"; else "$@"; fi
echo $? >"$f"
exec sleep 600
EOF
ulimit -n 16384 2>/dev/null || true

# shellcheck disable=SC2046 # the flags are words on purpose
cc -O2 -pthread $(pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql) \
    $(mariadb_config --cflags 2>/dev/null || echo -I/usr/include/mariadb) \
    bench/sessload.c -o "$TMP/sessload" -lpq $(mariadb_config --libs 2>/dev/null || echo -lmariadb) ||
    die "cannot build bench/sessload.c"
if [ "$DBTOP_BIN" = ./dbtop ]; then
    make -s dbtop >"$TMP/make.log" 2>&1 || { tail "$TMP/make.log" >&2; [ -x ./dbtop ] || die "make failed"; say "make failed: measuring the existing ./dbtop"; }
fi
[ -x "$DBTOP_BIN" ] || die "no dbtop at $DBTOP_BIN"

# What dbtop can show of the sessions decides how it is measured.
HAS_SESSIONS=0
"$DBTOP_BIN" --help 2>&1 | grep -- '--sessions' >/dev/null && HAS_SESSIONS=1   # no -q: an early exit of grep would fail the pipe (SIGPIPE)
case $MODE in
auto) if [ "$HAS_SESSIONS" = 1 ]; then DBTOP_HOW=screen; else DBTOP_HOW=baseline; fi ;;
*) DBTOP_HOW=$MODE ;;
esac
[ "$DBTOP_HOW" = baseline ] || [ "$HAS_SESSIONS" = 1 ] || die "$DBTOP_BIN has no --sessions: use BENCH_DBTOP_MODE=baseline"

SANDBOX_UP=1
# shellcheck disable=SC2086
tests/sandbox.sh start $ENGINES >"$TMP/sandbox.log" 2>&1 || { tail "$TMP/sandbox.log" >&2; die "sandbox start failed"; }
eval "$(tests/sandbox.sh env)"

# A screen must show the sessions after the key, else batch --sessions is measured instead.
# $1 engine, $2 URI
check_screen() {
    local before scr
    OUTFILE='' start_tool dbtop "$DBTOP_BIN" "$2"
    sleep 3
    before=$(screen_of dbtop 3)
    tm send-keys -t dbtop "$KEY"
    sleep 3
    scr=$(screen_of dbtop 3)
    stop_tool dbtop
    if [ "$scr" != "$before" ] && grep -qi 'session' <<<"$scr"; then return 0; fi
    NOTES+=("$1: key $KEY did not show a sessions screen (top lines: $(head -n 2 <<<"$scr" | tr '\n' ' ')); measured batch --sessions instead")
    return 1
}

HOLD=$((REPEAT * 3 * (WARMUP + DURATION + 25) + 300))
for engine in $ENGINES; do
    prepare_server "$engine"
    say "$engine: starting $S sessions ($ACTIVE active, $TRX idle in transaction) for at most $HOLD s"
    start_load "$engine" "$HOLD"
    start_waiters "$engine" "$HOLD"
    say "$engine: sessions (total active idle-in-trx): $(session_mix "$engine")"
    case $engine in
    pg15)
        URI="postgresql://dbtop_mon@/dbtop_test?host=$DBTOP_PG15_SOCKET&port=$DBTOP_PG15_PORT"
        DRE=$PG_DBTOP_RE
        PEER=(pg_activity bench_pg_activity "$PG_SESS_RE" pg_activity pg_activity -h "$DBTOP_PG15_SOCKET"
            -p "$DBTOP_PG15_PORT" -U bench_pg_activity -d dbtop_test --refresh 1)
        ;;
    mariadb)
        URI="mysql://dbtop_mon:monpw@localhost/dbtop_test?socket=$DBTOP_MARIADB_SOCKET"
        DRE=$MY_DBTOP_RE
        PEER=("innotop -m $INNOTOP_MODE" bench_innotop "$MY_SESS_RE" innotop innotop -S "$DBTOP_MARIADB_SOCKET"
            -u bench_innotop -p "$PEER_PW" -d 1 -m "$INNOTOP_MODE")
        ;;
    esac
    how=$DBTOP_HOW
    if [ "$how" = screen ] && ! check_screen "$engine" "$URI"; then how="batch"; fi
    budgets=("")
    [ "$BUDGET0" = 1 ] && [ "$how" != baseline ] && budgets+=(0)
    for ((round = 1; round <= REPEAT; round++)); do
        DBTOP_HOW=$how
        for b in "${budgets[@]}"; do
            opt=() tag=
            [ -n "$b" ] && opt=(--server-budget "$b") tag=", --server-budget $b"
            case $how in
            screen) OUTFILE='' measure "$round" "$engine" "dbtop (sessions screen$tag)" dbtop_mon "$DRE" dbtop \
                "$DBTOP_BIN" -i 1 "${opt[@]}" "$URI" ;;
            batch) OUTFILE=1 measure "$round" "$engine" "dbtop --batch --sessions$tag" dbtop_mon "$DRE" dbtop \
                "$DBTOP_BIN" --batch --format json --sessions -i 1 "${opt[@]}" "$URI" ;;
            baseline) OUTFILE=1 measure "$round" "$engine" "dbtop --batch (no session read)" dbtop_mon "$DRE" dbtop \
                "$DBTOP_BIN" --batch --format json -i 1 "$URI" ;;
            esac
        done
        if [ -n "$DBTOP_B" ]; then
            # another build on the same load, as shipped (before / after)
            case $how in
            screen) OUTFILE='' measure "$round" "$engine" "dbtop $DBTOP_B_LABEL (sessions screen)" dbtop_mon "$DRE" dbtop \
                "$DBTOP_B" -i 1 "$URI" ;;
            *) OUTFILE=1 measure "$round" "$engine" "dbtop $DBTOP_B_LABEL --batch --sessions" dbtop_mon "$DRE" dbtop \
                "$DBTOP_B" --batch --format json --sessions -i 1 "$URI" ;;
            esac
        fi
        OUTFILE='' measure "$round" "$engine" "${PEER[@]}"
    done
    DETAILS+=("$(profile "$engine")")
    stop_waiters
    stop_load
done

{
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores, $(uname -r); dbtop: \`$DBTOP_BIN\` ($("$DBTOP_BIN" --version 2>/dev/null | head -n 1)),"
    echo "pg_activity $(pg_activity --version 2>/dev/null | awk '{ print $2 }'), innotop $(innotop --version 2>/dev/null | awk '{ print $NF }' | head -n 1);"
    echo "load: $S sessions ($ACTIVE active looping a 0.1-0.5 s sleep or a catalogue count, $TRX idle in transaction, the rest idle), one client process; $WAITERS more waiting on one row; $DURATION s window per tool after $WARMUP s, 1 s refresh, $REPEAT rounds."
    echo
    echo "| round | server | tool | session read: server ms per refresh (avg / median / max) | session-read statements in the window | server ms per session-read statement | all its statements: server ms per refresh (avg / median / max) | all statements | client CPU % of a core | peak RSS MB | sessions (total active idle-in-trx) | machine busy % | load average (start → end) |"
    echo "| --- | --- | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: | --- |"
    printf '%s\n' "${ROWS[@]}"
    if [ ${#NOTES[@]} -gt 0 ]; then echo; printf -- '- %s\n' "${NOTES[@]}"; fi
    echo
    echo '```'
    printf '%s\n' "${DETAILS[@]}"
    echo '```'
} | tee "${OUT_MD:-/dev/null}"
