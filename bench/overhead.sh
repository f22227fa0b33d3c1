#!/usr/bin/env bash
# Client and server overhead of dbtop against peer monitors, under the same bounded load.
#   bench/overhead.sh
# Installs the peers (pg_activity, pg_top, innotop, mytop) if missing, starts a throwaway
# sandbox (MariaDB + PostgreSQL 15, tests/sandbox.sh) in its own temp dir, runs pgbench and
# sysbench against it for the whole run, then measures each tool in turn for BENCH_SECONDS
# at a 1 s refresh, each in its own detached 200x50 tmux session. Prints a table and writes
# it as markdown to bench/last-run.md. Everything it started is stopped on exit.
# Env knobs (defaults in brackets):
#   BENCH_SECONDS [30]      measured window per tool, 5..600 s
#   BENCH_WARMUP [3]        seconds between a tool's start and the window, 1..60
#   BENCH_TOOLS             tools in run order
#                           ["dbtop:pg15 pg_activity pg_top dbtop:mariadb innotop mytop"]
#   DBTOP_CMD [./dbtop]     dbtop command; the target URI is appended (fallback: + --batch)
#   BENCH_PG_RATE [1000]    pgbench -R on pg15     BENCH_PG_CLIENTS [32]  pgbench -c
#   BENCH_MY_RATE [200]     sysbench --rate        BENCH_MY_THREADS [32]  sysbench --threads
#   BENCH_SETTLE [5]        seconds of load before the first tool starts
#   BENCH_INNOTOP_MODE []   innotop -m MODE (empty: innotop's default, the dashboard)
#   BENCH_TRANSPORT [socket] how every tool connects: socket (unix sockets, as on the
#                           database host; no password exchange) or tcp (127.0.0.1 with
#                           password authentication: SCRAM-SHA-256 on PostgreSQL)
#   BENCH_OUT [bench/last-run.md]  markdown report ("-" for none)
#   DBTOP_MARIADB_PORT [43306] DBTOP_PG15_PORT [45415]  sandbox ports (away from test defaults)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

DURATION=${BENCH_SECONDS:-30}
WARMUP=${BENCH_WARMUP:-3}
TOOLS=${BENCH_TOOLS:-"dbtop:pg15 pg_activity pg_top dbtop:mariadb innotop mytop"}
DBTOP_CMD=${DBTOP_CMD:-./dbtop}
PG_RATE=${BENCH_PG_RATE:-1000} PG_CLIENTS=${BENCH_PG_CLIENTS:-32}
MY_RATE=${BENCH_MY_RATE:-200} MY_THREADS=${BENCH_MY_THREADS:-32}
SETTLE=${BENCH_SETTLE:-5}
INNOTOP_MODE=${BENCH_INNOTOP_MODE:-}
OUT_MD=${BENCH_OUT:-bench/last-run.md}
TRANSPORT=${BENCH_TRANSPORT:-socket}
export DBTOP_MARIADB_PORT=${DBTOP_MARIADB_PORT:-43306}
export DBTOP_PG15_PORT=${DBTOP_PG15_PORT:-45415}
export DBTOP_PG18_PORT=${DBTOP_PG18_PORT:-45418} DBTOP_PG13_PORT=${DBTOP_PG13_PORT:-45413}
PEER_PW=benchpw
CLK_TCK=$(getconf CLK_TCK)
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# Print an error and exit 1 (the EXIT trap cleans up).
die() { echo "overhead: $*" >&2; exit 1; }
# Progress on stderr; the table goes to stdout.
say() { echo "overhead: $*" >&2; }

# Check that $2 is an integer in $3..$4 (named $1).
check_int() {
    case $2 in '' | *[!0-9]*) die "$1 must be a non-negative integer, got '$2'" ;; esac
    (($2 >= $3 && $2 <= $4)) || die "$1 must be in $3..$4, got $2"
}
check_int BENCH_SECONDS "$DURATION" 5 600
case $TRANSPORT in socket | tcp) ;; *) die "BENCH_TRANSPORT must be socket or tcp, got '$TRANSPORT'" ;; esac
check_int BENCH_WARMUP "$WARMUP" 1 60
check_int BENCH_SETTLE "$SETTLE" 0 120
check_int BENCH_PG_RATE "$PG_RATE" 1 100000
check_int BENCH_PG_CLIENTS "$PG_CLIENTS" 1 256
check_int BENCH_MY_RATE "$MY_RATE" 1 100000
check_int BENCH_MY_THREADS "$MY_THREADS" 1 256
for t in $TOOLS; do
    case $t in dbtop:pg15 | dbtop:mariadb | pg_activity | pg_top | innotop | mytop) ;;
    *) die "unknown tool '$t' in BENCH_TOOLS" ;;
    esac
done

# ---------------------------------------------------------------- installation

# Install the Debian packages that dpkg does not report as installed (quiet when none).
# Debian 12 has no mytop package: mytop and innotop both ship in mariadb-client, whose
# Perl drivers are only Recommends, hence listed here.
install_peers() {
    local pkgs="pg-activity pgtop mariadb-client libdbd-mariadb-perl libterm-readkey-perl
        tmux sysbench postgresql-client-15 procps" p missing="" log
    for p in $pkgs; do
        [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
            missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    [ -z "$SUDO" ] || command -v sudo >/dev/null 2>&1 || die "not root and no sudo: cannot install$missing"
    say "installing$missing"
    log=$(mktemp "${TMPDIR:-/tmp}/dbtop-bench-apt.XXXXXX")
    # shellcheck disable=SC2086 # word-split on purpose
    if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >"$log" 2>&1; then
        $SUDO apt-get update -qq >>"$log" 2>&1 || true
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >>"$log" 2>&1 ||
            { tail -n 20 "$log" >&2; rm -f "$log"; die "apt-get install$missing failed"; }
    fi
    rm -f "$log"
}

# The sandbox servers come from scripts/deps.sh (idempotent); run it only when one is missing.
install_servers() {
    if ! command -v mariadbd >/dev/null 2>&1 || [ ! -x /usr/lib/postgresql/15/bin/postgres ] ||
        [ ! -e /usr/lib/postgresql/15/lib/pg_wait_sampling.so ] || ! command -v pgbench >/dev/null 2>&1; then
        say "installing the sandbox servers (scripts/deps.sh)"
        scripts/deps.sh
    fi
}

# Build dbtop when the default command is used; another edit in progress may break the build
# for a moment, so retry twice a minute apart, then fall back to an existing binary.
build_dbtop() {
    local i
    [ "$DBTOP_CMD" = ./dbtop ] || return 0
    for i in 1 2 3; do
        make -s >"$TMP/make.log" 2>&1 && return 0
        [ "$i" = 3 ] || { say "make failed (attempt $i), retrying in 60 s"; sleep 60; }
    done
    [ -x ./dbtop ] || { tail -n 20 "$TMP/make.log" >&2; die "make failed and there is no ./dbtop"; }
    say "make failed 3 times; measuring the existing ./dbtop"
}

# ---------------------------------------------------------------- cleanup

TMP=
TMUX_SOCK=
LOAD_PIDS=()
TOOL_PID=
SANDBOX_UP=0

# All descendants of pid $1 (not $1 itself), one per line.
descendants() {
    local kids k
    kids=$(pgrep -P "$1" 2>/dev/null || true)
    for k in $kids; do
        echo "$k"
        descendants "$k"
    done
}

# TERM pid $1 and its descendants, wait up to $2 s, then KILL what is left.
kill_tree() {
    local pids p i left
    pids="$1 $(descendants "$1" | tr '\n' ' ')"
    # shellcheck disable=SC2086 # word-split on purpose
    kill -TERM $pids 2>/dev/null || true
    for ((i = 0; i < $2 * 10; i++)); do
        left=
        for p in $pids; do [ -d "/proc/$p" ] && [ "$(proc_state "$p")" != Z ] && left="$left $p"; done
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null || true
}

# State letter of pid $1 (empty if gone).
proc_state() {
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    s=${s##*) }
    echo "${s%% *}"
}

cleanup() {
    local rc=$? p
    trap - EXIT INT TERM
    set +e
    [ -n "$TOOL_PID" ] && kill_tree "$TOOL_PID" 3
    [ -n "$TMUX_SOCK" ] && [ -S "$TMUX_SOCK" ] && tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
    for p in "${LOAD_PIDS[@]}"; do kill_tree "$p" 10; done
    for p in "${LOAD_PIDS[@]}"; do wait "$p" 2>/dev/null; done
    if [ "$SANDBOX_UP" = 1 ]; then
        tests/sandbox.sh stop 2>/dev/null || say "sandbox stop failed (dir $DBTOP_SANDBOX_DIR)"
    fi
    [ -n "$TMP" ] && rm -rf "$TMP"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---------------------------------------------------------------- servers

# SQL on pg15 as postgres over the socket, unaligned output.
pgq() {
    PGCONNECT_TIMEOUT=5 psql -X -At -q -v ON_ERROR_STOP=1 -h "$DBTOP_PG15_SOCKET" \
        -p "$DBTOP_PG15_PORT" -U postgres -d dbtop_test -c "$1"
}
# SQL on MariaDB as root over the socket, tab-separated, no header.
myq() {
    mariadb --no-defaults --connect-timeout=5 -N -B -S "$DBTOP_MARIADB_SOCKET" -u root -e "$1"
}

# Own login per peer so the server-side counters can be told apart from the load (which
# runs as the admin users) and from dbtop (monitor users). PostgreSQL peers get pg_monitor,
# like the monitor user; MariaDB peers get the admin user's privileges (innotop runs SHOW
# ENGINE INNODB STATUS and SHOW SLAVE STATUS, beyond the monitor user's grants).
create_logins() {
    pgq "CREATE ROLE bench_pg_activity LOGIN PASSWORD '$PEER_PW' IN ROLE pg_monitor" >/dev/null
    pgq "CREATE ROLE bench_pg_top LOGIN PASSWORD '$PEER_PW' IN ROLE pg_monitor" >/dev/null
    # Connections per role are counted from the server log (pg_top reconnects every refresh).
    pgq "ALTER SYSTEM SET log_connections = on" >/dev/null
    pgq "SELECT pg_reload_conf()" >/dev/null
    myq "CREATE USER IF NOT EXISTS 'bench_innotop'@'%' IDENTIFIED BY '$PEER_PW';
         GRANT ALL PRIVILEGES ON *.* TO 'bench_innotop'@'%';
         CREATE USER IF NOT EXISTS 'bench_mytop'@'%' IDENTIFIED BY '$PEER_PW';
         GRANT ALL PRIVILEGES ON *.* TO 'bench_mytop'@'%';
         CREATE USER IF NOT EXISTS 'bench_innotop'@'localhost' IDENTIFIED BY '$PEER_PW';
         GRANT ALL PRIVILEGES ON *.* TO 'bench_innotop'@'localhost';
         CREATE USER IF NOT EXISTS 'bench_mytop'@'localhost' IDENTIFIED BY '$PEER_PW';
         GRANT ALL PRIVILEGES ON *.* TO 'bench_mytop'@'localhost';"
}

# Start the bounded loads in the background; they run past the last window and are
# stopped by PID at the end. Tables are prepared first by a 1-second run of each.
start_loads() {
    local n total
    n=$(wc -w <<<"$TOOLS")
    total=$((n * (WARMUP + DURATION + 15) + 2 * (WARMUP + 5) + SETTLE + 60))
    ((total <= 3600)) || total=3600
    say "preparing load tables"
    tests/load.sh pgbench pg15 --rate 1 --time 1 --clients 1 >"$TMP/load-init.log" 2>&1 ||
        { tail -n 20 "$TMP/load-init.log" >&2; die "pgbench init failed"; }
    tests/load.sh sysbench mariadb --rate 1 --time 1 --threads 1 >>"$TMP/load-init.log" 2>&1 ||
        { tail -n 20 "$TMP/load-init.log" >&2; die "sysbench prepare failed"; }
    say "load: pgbench -c $PG_CLIENTS -R $PG_RATE, sysbench oltp_write_only --threads $MY_THREADS --rate $MY_RATE, at most $total s"
    tests/load.sh pgbench pg15 --rate "$PG_RATE" --time "$total" --clients "$PG_CLIENTS" \
        >"$TMP/load-pg.log" 2>&1 &
    LOAD_PIDS+=($!)
    tests/load.sh sysbench mariadb --rate "$MY_RATE" --time "$total" --threads "$MY_THREADS" \
        >"$TMP/load-my.log" 2>&1 &
    LOAD_PIDS+=($!)
    sleep "$SETTLE"
    loads_alive || { tail -n 5 "$TMP"/load-*.log >&2; die "a load stopped early"; }
}

# True if both loads are still running.
loads_alive() {
    local p
    for p in "${LOAD_PIDS[@]}"; do [ -d "/proc/$p" ] && [ "$(proc_state "$p")" != Z ] || return 1; done
}

# Reset the server-side statement counters of server $1.
reset_server_stats() {
    case $1 in
    pg15) pgq "SELECT pg_stat_statements_reset()" >/dev/null ;;
    mariadb) myq "TRUNCATE TABLE performance_schema.events_statements_summary_by_user_by_event_name" ;;
    esac
}

# Server-side snapshot for login $2 on server $1: "statements exec_ms connections load_commits".
server_snap() {
    local server=$1 login=$2 stm conns commits off
    case $server in
    pg15)
        stm=$(pgq "SELECT coalesce(sum(calls), 0) || ' ' || coalesce(sum(total_exec_time), 0)
                   FROM pg_stat_statements WHERE userid = '$login'::regrole") || stm="? ?"
        commits=$(pgq "SELECT xact_commit FROM pg_stat_database WHERE datname = 'dbtop_test'") || commits='?'
        off=$(stat -c %s "$DBTOP_SANDBOX_DIR/pg15/server.log" 2>/dev/null) || off=0
        conns=$off # a log offset; connection lines are counted from it by conn_delta
        ;;
    mariadb)
        stm=$(myq "SELECT CONCAT(COALESCE(SUM(COUNT_STAR), 0), ' ', COALESCE(SUM(SUM_TIMER_WAIT), 0) / 1e9)
                   FROM performance_schema.events_statements_summary_by_user_by_event_name
                   WHERE USER = '$login'") || stm="? ?"
        conns=$(myq "SELECT COALESCE(SUM(TOTAL_CONNECTIONS), 0) FROM performance_schema.users
                     WHERE USER = '$login'") || conns='?'
        commits=$(myq "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS
                       WHERE VARIABLE_NAME = 'COM_COMMIT'") || commits='?'
        ;;
    esac
    echo "$stm $conns $commits"
}

# Connections opened by login $2 on server $1 between snapshot values $3 and $4.
conn_delta() {
    case $1 in
    pg15)
        tail -c +$(($3 + 1)) "$DBTOP_SANDBOX_DIR/pg15/server.log" 2>/dev/null | head -c $(($4 - $3)) |
            grep -c "connection authorized: user=$2 " || true
        ;;
    mariadb)
        case $3$4 in *'?'*) echo '?' ;; *) echo $(($4 - $3)) ;; esac
        ;;
    esac
}

# ---------------------------------------------------------------- processes

# Pid of the process tree's root plus all its descendants.
tree_of() { echo "$1"; descendants "$1"; }

# Sum of utime+stime+cutime+cstime (clock ticks) over the tree of pid $1. Threads are in
# their process's fields; reaped children are in the parent's cutime/cstime.
tree_ticks() {
    local p s f sum=0
    for p in $(tree_of "$1"); do
        s=$(cat "/proc/$p/stat" 2>/dev/null) || continue
        s=${s##*) }
        read -ra f <<<"$s"
        sum=$((sum + f[11] + f[12] + f[13] + f[14]))
    done
    echo "$sum"
}

# utime+stime (clock ticks) of pid $1 alone (0 if gone).
proc_ticks() {
    local s f
    s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
    s=${s##*) }
    read -ra f <<<"$s"
    echo $((f[11] + f[12]))
}

# Sum of VmHWM (kB) over the tree of pid $1.
tree_hwm_kb() {
    local p v sum=0
    for p in $(tree_of "$1"); do
        v=$(awk '/^VmHWM:/ {print $2}' "/proc/$p/status" 2>/dev/null) || continue
        sum=$((sum + ${v:-0}))
    done
    echo "$sum"
}

# Sum of the private (anonymous) memory, kB, over the tree of pid $1 at this
# moment (/proc/PID/smaps_rollup "Anonymous": heap, stacks, the libraries'
# written pages; not the shared library pages that VmHWM counts).
tree_anon_kb() {
    local p v sum=0
    for p in $(tree_of "$1"); do
        v=$(awk '/^Anonymous:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null) || continue
        sum=$((sum + ${v:-0}))
    done
    echo "$sum"
}

# "busy total" jiffies of the whole machine from /proc/stat.
machine_jiffies() {
    local _c u n s i w q sq st
    read -r _c u n s i w q sq st _ </proc/stat
    echo "$((u + n + s + q + sq + st)) $((u + n + s + i + w + q + sq + st))"
}

# True if pid $1 exists and is not a zombie.
alive() { [ -n "$1" ] && [ -d "/proc/$1" ] && [ "$(proc_state "$1")" != Z ]; }

tm() { tmux -S "$TMUX_SOCK" -f /dev/null "$@"; }

# Start "$@" in detached tmux session $1 (200x50) through the pane runner; after the
# warm-up set TOOL_PID to the runner's child (empty if it has exited).
start_in_tmux() {
    local sess=$1 pane
    shift
    rm -f "$TMP/exit-$sess"
    tm new-session -d -s "$sess" -x 200 -y 50 \
        env HOME="$TMP/home" LC_ALL=C.UTF-8 PGCONNECT_TIMEOUT=5 PGPASSWORD="$PEER_PW" \
        bash "$TMP/runner.sh" "$TMP/exit-$sess" "$@"
    sleep "$WARMUP"
    pane=$(tm display -p -t "$sess" '#{pane_pid}')
    TOOL_PID=$(pgrep -P "$pane" | head -n 1 || true)
    # Once the tool has exited the runner writes its status and execs sleep.
    [ -e "$TMP/exit-$sess" ] && TOOL_PID=
    return 0
}

# Quit the tool of session $1 ('q', as a user would), then end the session and any leftover.
stop_tmux() {
    local sess=$1 i
    if alive "$TOOL_PID"; then
        tm send-keys -t "$sess" q 2>/dev/null || true
        for ((i = 0; i < 30; i++)); do alive "$TOOL_PID" || break; sleep 0.1; done
    fi
    tm kill-session -t "$sess" 2>/dev/null || true
    [ -n "$TOOL_PID" ] && alive "$TOOL_PID" && kill_tree "$TOOL_PID" 5
    TOOL_PID=
}

# Screen of session $1; retried briefly because a tool may be between clear and redraw.
capture_screen() {
    local scr i
    for ((i = 0; i < 10; i++)); do
        scr=$(tm capture-pane -p -t "$1" 2>/dev/null || true)
        [ -n "${scr//[[:space:]]/}" ] && break
        sleep 0.2
    done
    printf '%s' "$scr"
}

# Last non-empty line of the screen of session $1 (for error notes).
last_screen_line() {
    capture_screen "$1" | grep -v '^[[:space:]]*$' | tail -n 1 | cut -c1-120 || true
}

# ---------------------------------------------------------------- results

ROW_TOOL=() ROW_SERVER=() ROW_CPU=() ROW_RSS=() ROW_STMT=() ROW_MS=() ROW_CONN=()
ROW_BUSY=() ROW_LOADTPS=() ROW_TMUXCPU=() ROW_SCREEN=() ROW_PROCS=() ROW_PRIV=()
FOOTNOTES=()

# Set variable $1 to the footnote marker of text $2 (identical texts share a number).
fn_set() {
    local i
    for i in "${!FOOTNOTES[@]}"; do
        [ "${FOOTNOTES[$i]}" = "$2" ] && { printf -v "$1" '[%d]' $((i + 1)); return; }
    done
    FOOTNOTES+=("$2")
    printf -v "$1" '[%d]' "${#FOOTNOTES[@]}"
}

# awk arithmetic: calc FORMAT EXPR
calc() { awk "BEGIN { printf \"$1\", ($2) }"; }

# Measure one tool. $1 label, $2 server, $3 login for server counters, $4 session name,
# rest: command. For dbtop, DBTOP_FALLBACK holds the --batch command.
measure() {
    local label=$1 server=$2 login=$3 sess=$4 reason='' alt m
    shift 4
    say "measuring $label on $server ($DURATION s)"
    reset_server_stats "$server"
    start_in_tmux "$sess" "$@"
    if [ "$sess" = dbtop-pg15 ] || [ "$sess" = dbtop-mariadb ]; then
        alt=$(tm display -p -t "$sess" '#{alternate_on}' 2>/dev/null || echo 0)
        if [ -z "$TOOL_PID" ]; then
            reason="\`$*\` exited within ${WARMUP} s (exit $(cat "$TMP/exit-$sess" 2>/dev/null || echo ?): $(last_screen_line "$sess")); measured \`${DBTOP_FALLBACK[*]}\` instead"
        elif [ "$alt" != 1 ]; then
            reason="\`$*\` did not switch to a full screen (no screen mode yet); measured \`${DBTOP_FALLBACK[*]}\` instead"
        fi
        if [ -n "$reason" ]; then
            say "dbtop screen mode unavailable, falling back to --batch"
            stop_tmux "$sess"
            label="dbtop (batch)"
            reset_server_stats "$server"
            start_in_tmux "$sess" "${DBTOP_FALLBACK[@]}"
            fn_set m "$reason"
            label="$label$m"
        fi
    fi
    local i=${#ROW_TOOL[@]}
    ROW_TOOL[i]=$label ROW_SERVER[i]=$server
    ROW_CPU[i]=n/a ROW_RSS[i]=n/a ROW_STMT[i]=n/a ROW_MS[i]=n/a ROW_CONN[i]=n/a
    ROW_BUSY[i]=n/a ROW_LOADTPS[i]=n/a ROW_TMUXCPU[i]=n/a ROW_PROCS[i]=- ROW_PRIV[i]=n/a
    if [ -z "$TOOL_PID" ]; then
        fn_set m "$label did not start or exited within the ${WARMUP} s warm-up (exit $(cat "$TMP/exit-$sess" 2>/dev/null || echo ?)): $(last_screen_line "$sess")"
        ROW_CPU[i]=n/a$m ROW_RSS[i]=n/a$m ROW_STMT[i]=n/a$m ROW_MS[i]=n/a$m
        ROW_SCREEN[i]=$(capture_screen "$sess")
        stop_tmux "$sess"
        return 0
    fi
    local tmux_pid s0 s1 c0 c1 t0 t1 m0 m1 x0 x1 died=0 hwm k p
    tmux_pid=$(tm display -p -t "$sess" '#{pid}')
    s0=$(server_snap "$server" "$login")
    m0=$(machine_jiffies)
    x0=$(proc_ticks "$tmux_pid")
    t0=$EPOCHREALTIME
    c0=$(tree_ticks "$TOOL_PID")
    ROW_PROCS[i]=$(for p in $(tree_of "$TOOL_PID"); do cat "/proc/$p/comm" 2>/dev/null; done | paste -sd, -)
    for ((k = 0; k < DURATION * 10; k++)); do
        sleep 0.1
        if ((k % 10 == 9)) && ! alive "$TOOL_PID"; then died=1; break; fi
    done
    c1=$(tree_ticks "$TOOL_PID")
    t1=$EPOCHREALTIME
    hwm=$(tree_hwm_kb "$TOOL_PID")
    ROW_PRIV[i]=$(calc %.1f "$(tree_anon_kb "$TOOL_PID") / 1024")
    x1=$(proc_ticks "$tmux_pid")
    m1=$(machine_jiffies)
    s1=$(server_snap "$server" "$login")
    ROW_SCREEN[i]=$(capture_screen "$sess")
    loads_alive || { fn_set m "the load had already stopped during this window"; ROW_SERVER[i]=$server$m; }
    local win
    win=$(calc %.3f "${t1/./} / 1e6 - ${t0/./} / 1e6")
    if [ "$died" = 1 ] || ! alive "$TOOL_PID"; then
        fn_set m "$label exited during the window: $(last_screen_line "$sess")"
        ROW_CPU[i]=n/a$m ROW_RSS[i]=n/a$m
    else
        ROW_CPU[i]=$(calc %.2f "100 * ($c1 - $c0) / ($win * $CLK_TCK)")
        ROW_RSS[i]=$(calc %.1f "$hwm / 1024")
    fi
    ROW_TMUXCPU[i]=$(calc %.2f "100 * ($x1 - $x0) / ($win * $CLK_TCK)")
    local a0 a1 b0 b1
    read -r a0 b0 <<<"$m0"
    read -r a1 b1 <<<"$m1"
    ROW_BUSY[i]=$(calc %.0f "($b1 - $b0) > 0 ? 100 * ($a1 - $a0) / ($b1 - $b0) : 0")
    local n0 e0 k0 l0 n1 e1 k1 l1 conns
    read -r n0 e0 k0 l0 <<<"$s0"
    read -r n1 e1 k1 l1 <<<"$s1"
    case "$n0$e0$n1$e1" in
    *'?'*)
        fn_set m "server counters could not be read"
        ROW_STMT[i]=n/a$m ROW_MS[i]=n/a$m
        ;;
    *)
        ROW_STMT[i]=$(calc %.1f "($n1 - $n0) / $win")
        ROW_MS[i]=$(calc %.2f "($e1 - $e0) / $win")
        if [ "$n1" = "$n0" ]; then
            fn_set m "no statement from $label's login ($login) reached the server: it did not work (see its screen below)"
            ROW_STMT[i]=${ROW_STMT[i]}$m
        fi
        ;;
    esac
    case "$l0$l1" in *'?'*) ;; *) ROW_LOADTPS[i]=$(calc %.0f "($l1 - $l0) / $win") ;; esac
    conns=$(conn_delta "$server" "$login" "$k0" "$k1")
    ROW_CONN[i]=$conns
    if [ "$conns" != '?' ] && ((conns > 1)); then
        fn_set m "$label opened $conns new connections in the window ($(calc %.1f "$conns / $win")/s): backend/thread start-up and authentication are not in its statements or server ms/s"
        ROW_TOOL[i]=${ROW_TOOL[i]}$m
    fi
    stop_tmux "$sess"
}

# Column widths of the rows of array names given, printed as an aligned text table.
print_text_table() {
    local -a hdr=("tool" "server" "CPU % of a core" "peak RSS MB" "statements/s" "server ms/s" "dbtop/peer (CPU, RSS)")
    local -a w=() cells
    local r c line
    for c in "${!hdr[@]}"; do w[c]=${#hdr[c]}; done
    for r in "${!TABLE_ROWS[@]}"; do
        IFS=$'\t' read -ra cells <<<"${TABLE_ROWS[r]}"
        for c in "${!cells[@]}"; do ((${#cells[c]} > w[c])) && w[c]=${#cells[c]}; done
    done
    line=
    for c in "${!hdr[@]}"; do line+=$(printf "%-${w[c]}s  " "${hdr[c]}"); done
    line=${line%"${line##*[! ]}"}
    echo "$line"
    line=
    for c in "${!hdr[@]}"; do line+=$(printf "%s  " "$(printf '%*s' "${w[c]}" '' | tr ' ' -)"); done
    echo "${line%  }"
    for r in "${!TABLE_ROWS[@]}"; do
        IFS=$'\t' read -ra cells <<<"${TABLE_ROWS[r]}"
        line=
        for c in "${!hdr[@]}"; do
            if ((c >= 2 && c <= 5)); then
                line+=$(printf "%${w[c]}s  " "${cells[c]:-}")
            else
                line+=$(printf "%-${w[c]}s  " "${cells[c]:-}")
            fi
        done
        line=${line%"${line##*[! ]}"}
        echo "$line"
    done
}

# The numeric part of a cell (empty if n/a).
num() { case $1 in n/a*) ;; *) echo "${1%%\[*}" ;; esac; }

# Build TABLE_ROWS (tab-separated cells) with the ratio column against dbtop on the same server.
build_rows() {
    local i j dcpu drss pcpu prss ratio found
    TABLE_ROWS=()
    for i in "${!ROW_TOOL[@]}"; do
        ratio=-
        case ${ROW_TOOL[i]} in
        dbtop*) ;;
        *)
            dcpu='' drss='' found=0
            for j in "${!ROW_TOOL[@]}"; do
                case ${ROW_TOOL[j]} in dbtop*) ;; *) continue ;; esac
                [ "${ROW_SERVER[j]%%\[*}" = "${ROW_SERVER[i]%%\[*}" ] || continue
                dcpu=$(num "${ROW_CPU[j]}") drss=$(num "${ROW_RSS[j]}") found=1
            done
            pcpu=$(num "${ROW_CPU[i]}") prss=$(num "${ROW_RSS[i]}")
            local rc=n/a rr=n/a m=''
            [ "$found" = 1 ] || fn_set m "no dbtop row for ${ROW_SERVER[i]%%\[*} in this run (BENCH_TOOLS)"
            rc=n/a$m rr=n/a$m
            if [ -n "$dcpu" ] && [ -n "$pcpu" ]; then
                rc=$(calc %s "$pcpu > 0 ? sprintf(\"%.2fx\", $dcpu / $pcpu) : \"n/a (peer 0)\"")
            fi
            [ -n "$drss" ] && [ -n "$prss" ] && rr=$(calc %.2fx "$drss / $prss")
            ratio="CPU $rc, RSS $rr"
            ;;
        esac
        TABLE_ROWS+=("${ROW_TOOL[i]}"$'\t'"${ROW_SERVER[i]}"$'\t'"${ROW_CPU[i]}"$'\t'"${ROW_RSS[i]}"$'\t'"${ROW_STMT[i]}"$'\t'"${ROW_MS[i]}"$'\t'"$ratio")
    done
}

# Version line of each tool and server for the report.
versions() {
    local v
    v=$("${DBTOP_ARGV[@]}" --version 2>/dev/null | head -n 1) || v="? (${DBTOP_ARGV[*]} --version failed)"
    echo "- dbtop: $v (\`${DBTOP_ARGV[*]}\`)"
    echo "- pg_activity: $(pg_activity --version 2>/dev/null | head -n 1) (Debian $(dpkg-query -W -f='${Version}' pg-activity 2>/dev/null))"
    echo "- pg_top: $(pg_top --version 2>/dev/null | head -n 1) (Debian pgtop $(dpkg-query -W -f='${Version}' pgtop 2>/dev/null))"
    echo "- innotop: $(innotop --version 2>/dev/null | head -n 1) (Debian mariadb-client $(dpkg-query -W -f='${Version}' mariadb-client 2>/dev/null))"
    # shellcheck disable=SC2016 # a literal $ in the pattern
    echo "- mytop: $(sed -n 's/^\$main::VERSION = "\(.*\)";/\1/p' "$(command -v mytop)" | head -n 1) (Debian mariadb-client)"
    echo "- servers: PostgreSQL $(pgq 'SHOW server_version' 2>/dev/null), MariaDB $(myq 'SELECT VERSION()' 2>/dev/null)"
    echo "- load: pgbench $(pgbench --version 2>/dev/null | sed 's/^pgbench (PostgreSQL) //'), $(sysbench --version 2>/dev/null)"
}

# Write the markdown report to $OUT_MD.
write_markdown() {
    local r c cells f i
    {
        echo "# dbtop overhead: last run"
        echo
        echo "Written by \`bench/overhead.sh\` (see bench/README.md for the method)."
        echo
        echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
        echo "- machine: nproc $(nproc), kernel $(uname -r), $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
        echo "- window: $DURATION s per tool after a $WARMUP s warm-up, 1 s refresh, tools one after another, each in a detached 200x50 tmux session"
        echo "- transport: $TRANSPORT (every tool)"
        echo "- load (whole run): pgbench -c $PG_CLIENTS -R $PG_RATE on pg15; sysbench oltp_write_only --threads $MY_THREADS --rate $MY_RATE on mariadb"
        versions
        echo
        echo "| tool | server | CPU % of a core | peak RSS MB | statements/s | server ms/s | dbtop/peer (CPU, RSS) |"
        echo "| --- | --- | ---: | ---: | ---: | ---: | --- |"
        for r in "${!TABLE_ROWS[@]}"; do
            IFS=$'\t' read -ra cells <<<"${TABLE_ROWS[r]}"
            printf '|'
            for c in "${cells[@]}"; do printf ' %s |' "$c"; done
            echo
        done
        if [ ${#FOOTNOTES[@]} -gt 0 ]; then
            echo
            for f in "${!FOOTNOTES[@]}"; do echo "$((f + 1)). ${FOOTNOTES[f]}"; done
        fi
        echo
        echo "Conditions during each window (noise check):"
        echo
        echo "| tool | server | measured processes | private MB at the end (smaps_rollup Anonymous) | machine CPU busy % | load commits/s | tmux server CPU % | new connections |"
        echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"
        for i in "${!ROW_TOOL[@]}"; do
            echo "| ${ROW_TOOL[i]} | ${ROW_SERVER[i]} | ${ROW_PROCS[i]} | ${ROW_PRIV[i]} | ${ROW_BUSY[i]} | ${ROW_LOADTPS[i]} | ${ROW_TMUXCPU[i]} | ${ROW_CONN[i]} |"
        done
        echo
        echo "First lines of each tool's screen at the end of its window:"
        for i in "${!ROW_TOOL[@]}"; do
            echo
            echo "<details><summary>${ROW_TOOL[i]} on ${ROW_SERVER[i]}</summary>"
            echo
            echo '```'
            printf '%s\n' "${ROW_SCREEN[i]:-}" | sed 's/[[:space:]]*$//' | { grep -v '^$' || echo '(blank)'; } |
                head -n 12 | cut -c1-200 || true
            echo '```'
            echo
            echo "</details>"
        done
    } >"$OUT_MD.tmp"
    mv "$OUT_MD.tmp" "$OUT_MD"
}

# ---------------------------------------------------------------- main

install_peers
install_servers
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dbtop-bench.XXXXXX")
chmod 755 "$TMP" # the postgres user must reach the sandbox inside
mkdir -p "$TMP/home"
TMUX_SOCK=$TMP/tmux.sock
export DBTOP_SANDBOX_DIR=$TMP/sandbox
cat >"$TMP/runner.sh" <<'EOF'
# Pane runner: run the tool as a child of the pane's process, keep the screen after it exits.
f=$1
shift
"$@"
echo $? >"$f"
exec sleep 600
EOF
build_dbtop
read -ra DBTOP_ARGV <<<"$DBTOP_CMD"

SANDBOX_UP=1
tests/sandbox.sh start mariadb pg15
eval "$(tests/sandbox.sh env)"
create_logins
start_loads

# Where each tool connects (BENCH_TRANSPORT).
if [ "$TRANSPORT" = socket ]; then
    PG_URI="postgresql://dbtop_mon@/dbtop_test?host=$DBTOP_PG15_SOCKET&port=$DBTOP_PG15_PORT"
    MY_URI="mysql://dbtop_mon:monpw@localhost/dbtop_test?socket=$DBTOP_MARIADB_SOCKET"
    PG_WHERE=(-h "$DBTOP_PG15_SOCKET" -p "$DBTOP_PG15_PORT")
    MY_WHERE=(-S "$DBTOP_MARIADB_SOCKET")
else
    PG_URI=$DBTOP_PG15_URI MY_URI=$DBTOP_MARIADB_URI
    PG_WHERE=(-h 127.0.0.1 -p "$DBTOP_PG15_PORT")
    MY_WHERE=(-h 127.0.0.1 -P "$DBTOP_MARIADB_PORT")
fi
say "transport: $TRANSPORT"

for t in $TOOLS; do
    case $t in
    dbtop:pg15)
        DBTOP_FALLBACK=("${DBTOP_ARGV[@]}" --batch "$PG_URI")
        measure dbtop pg15 dbtop_mon dbtop-pg15 "${DBTOP_ARGV[@]}" "$PG_URI"
        ;;
    dbtop:mariadb)
        DBTOP_FALLBACK=("${DBTOP_ARGV[@]}" --batch "$MY_URI")
        measure dbtop mariadb dbtop_mon dbtop-mariadb "${DBTOP_ARGV[@]}" "$MY_URI"
        ;;
    pg_activity)
        measure pg_activity pg15 bench_pg_activity pg_activity \
            pg_activity "${PG_WHERE[@]}" -U bench_pg_activity -d dbtop_test --refresh 1
        ;;
    pg_top)
        measure pg_top pg15 bench_pg_top pg_top \
            pg_top "${PG_WHERE[@]}" -U bench_pg_top -d dbtop_test -s 1
        ;;
    innotop)
        mode=()
        [ -n "$INNOTOP_MODE" ] && mode=(-m "$INNOTOP_MODE")
        measure innotop mariadb bench_innotop innotop \
            innotop "${MY_WHERE[@]}" -u bench_innotop -p "$PEER_PW" -d 1 "${mode[@]}"
        ;;
    mytop)
        measure mytop mariadb bench_mytop mytop \
            mytop "${MY_WHERE[@]}" -u bench_mytop -p "$PEER_PW" -d dbtop_test -s 1
        ;;
    esac
done

build_rows
echo
print_text_table
if [ ${#FOOTNOTES[@]} -gt 0 ]; then
    echo
    for f in "${!FOOTNOTES[@]}"; do echo "[$((f + 1))] ${FOOTNOTES[f]}"; done
fi
if [ "$OUT_MD" != - ]; then
    write_markdown
    say "wrote $OUT_MD"
fi
