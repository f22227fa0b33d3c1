#!/usr/bin/env bash
# bench/locks.sh - what the locks pane costs dbtop and the server with 500
# sessions waiting for one row, and with nothing waiting (PostgreSQL 15 and
# MariaDB). Per engine:
#   idle     dbtop --batch with nothing waiting: CPU per refresh, locks_status,
#            and the lock-table statements its login sent (server counters);
#   waiters  one root session holds a row lock, BENCH_WAITERS sessions wait for
#            that row (pgbench / mariadb-slap); dbtop --batch as above, then the
#            screen in a detached 200x50 tmux session on the locks screen (`3`),
#            with DBTOP_FRAME_STATS; then everything is released and dbtop must
#            read "idle" again.
# Prints a markdown table. Everything started here is stopped by PID on exit.
#   BENCH_WAITERS=500 BENCH_REFRESHES=10 BENCH_TUI_SECONDS=10 bench/locks.sh
set -euo pipefail
cd "$(dirname "$0")/.."

W=${BENCH_WAITERS:-500}
R=${BENCH_REFRESHES:-10}
TUI_S=${BENCH_TUI_SECONDS:-10}
HOLD=${BENCH_HOLD:-150} # upper bound (s) of every lock held or waited for, and of each load
ENGINES=${BENCH_ENGINES:-"pg15 mariadb"}
DIAG_T=${BENCH_DIAG_TIMEOUT:-10} # PostgreSQL: one more screen run with this --query-timeout (0: none)
for v in W:1:2000 R:2:60 TUI_S:2:120 HOLD:60:600 DIAG_T:0:60; do
    IFS=: read -r n lo hi <<<"$v"
    case ${!n} in '' | *[!0-9]*) echo "locks.sh: $n must be an integer" >&2; exit 2 ;; esac
    ((${!n} >= lo && ${!n} <= hi)) || { echo "locks.sh: $n must be in $lo..$hi" >&2; exit 2; }
done
export DBTOP_SANDBOX_DIR=${DBTOP_SANDBOX_DIR:-$(mktemp -d /tmp/dbtop-bench-lk.XXXXXX)}
export DBTOP_MARIADB_PORT=${DBTOP_MARIADB_PORT:-46306} DBTOP_PG15_PORT=${DBTOP_PG15_PORT:-46415}
chmod 755 "$DBTOP_SANDBOX_DIR"
tmp=$(mktemp -d /tmp/dbtop-bench-lk-tmp.XXXXXX)
mkdir -p "$tmp/home"

PIDS=()      # every background process started here (killed by PID on exit)
ROOT_FD=     # write end of the root session's input
TUI_PID=     # dbtop on the screen, while it runs
SANDBOX_UP=0
say() { echo "locks.sh: $*" >&2; }
tm() { tmux -S "$tmp/tmux.sock" -f /dev/null "$@"; }

cleanup() {
    local rc=$? p
    trap - EXIT INT TERM
    set +e
    [ -n "$ROOT_FD" ] && eval "exec $ROOT_FD>&-"
    [ -n "$TUI_PID" ] && kill "$TUI_PID" 2>/dev/null
    [ -S "$tmp/tmux.sock" ] && tm kill-server 2>/dev/null
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
    [ "$SANDBOX_UP" = 1 ] && { tests/sandbox.sh stop >/dev/null 2>&1 || say "sandbox stop failed ($DBTOP_SANDBOX_DIR)"; }
    rm -rf "$tmp"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Build; others may be editing the tree, so one retry, then the existing binary.
if ! make -s dbtop >"$tmp/make.log" 2>&1; then
    sleep 20
    if ! make -s dbtop >"$tmp/make.log" 2>&1; then
        [ -x ./dbtop ] || { cat "$tmp/make.log" >&2; exit 1; }
        say "make failed twice; measuring the existing ./dbtop"
    fi
fi
SANDBOX_UP=1
# shellcheck disable=SC2086 # a list of names
tests/sandbox.sh start $ENGINES >"$tmp/sandbox.log" 2>&1 || { cat "$tmp/sandbox.log" >&2; exit 1; }
eval "$(tests/sandbox.sh env)"

# ---- measurement helpers -------------------------------------------------------

# batch NAME URI COUNT: dbtop --batch JSON records in $tmp/NAME.json, its CPU
# (user+system s, from wait4's rusage, 1 ms resolution) in $tmp/NAME.cpu.
# `timeout` bounds a frozen dbtop; its own CPU is included (about 1 ms).
batch() {
    local TIMEFORMAT='%3U %3S' u s
    { time timeout -k 5 $(($3 * 3 + 30)) ./dbtop --batch --format json -n "$3" -i 1 "$2" \
        >"$tmp/$1.json" 2>"$tmp/$1.err"; } 2>"$tmp/$1.time" || say "$1: dbtop exited $? ($(head -c 300 "$tmp/$1.err"))"
    read -r u s <"$tmp/$1.time"
    awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f\n", u + s }' >"$tmp/$1.cpu"
}
# ms per refresh of a CPU figure in seconds (COUNT records = COUNT + 1 samples)
per_refresh() { awk -v c="$1" -v n="$2" 'BEGIN { printf "%.2f", c * 1000 / (n + 1) }'; }
# jq over the records of run NAME (slurped)
jqr() { jq -rs "$2" "$tmp/$1.json"; }
# "idle 10" / "read 9, null 1": locks_status of every record, counted
statuses() { jqr "$1" '[.[] | .locks_status // "null"] | group_by(.) | map("\(.[0]) \(length)") | join(", ")'; }
states() { jqr "$1" '[.[] | .state] | group_by(.) | map("\(.[0]) \(length)") | join(", ")'; }
# said NAME BASE: the notes and locks_note of run NAME that run BASE did not
# have, each with the number of records that had it
said() {
    jq -rs --slurpfile b "$tmp/$2.json" '([$b[] | .notes[]?] | unique) as $base
        | [.[] | (.notes[]?, .locks_note // empty) | select(. as $n | $base | index($n) | not)]
        | group_by(.) | map("\"\(.[0])\" x\(length)") | join("; ")
        | if . == "" then "nothing" else . end' "$tmp/$1.json"
}
# the lines of a captured screen between its title line and the tree (the
# pane's header, notes and the DOWN / STALLED reason; not the advice lines), joined
header() {
    sed -n '2,6p' "$tmp/$1" 2>/dev/null | sed 's/[[:space:]]*$//' | grep -v -e '^$' -e '^waiting ' -e '▶' -e '└' -e '^!!' -e '^ *->' |
        paste -sd '|' | sed 's/|/ \/ /g' || true
}
query_ms() { jqr "$1" '[.[] | .cost.query_ms] | add / length | . * 100 | round / 100'; }

# pid of the dbtop process of tmux session $1 (the pane runs env, which execs it)
pane_dbtop() {
    local p c
    p=$(tm display -p -t "$1" '#{pane_pid}' 2>/dev/null) || return 0
    for c in $p $(pgrep -P "$p" || true); do
        [ "$(cat "/proc/$c/comm" 2>/dev/null)" = dbtop ] && { echo "$c"; return 0; }
    done
}
ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# "tid:state:wchan ..." of every thread of pid $1
wchans() {
    local t out=
    for t in /proc/"$1"/task/*; do
        out="$out ${t##*/}:$(awk '{ sub(/.*\) /, ""); print $1 }' "$t/stat" 2>/dev/null):$(cat "$t/wchan" 2>/dev/null)"
    done
    echo "${out# }"
}
# true if pid $1 exists and is not a zombie (stat read once: a process reaped
# meanwhile is not alive)
alive() {
    local st
    [ -n "$1" ] && st=$(cat "/proc/$1/stat" 2>/dev/null) && [ -n "$st" ] || return 1
    st=${st##*) }
    [ "${st%% *}" != Z ]
}

# screen NAME URI [OPTION...]: dbtop's screen at 200x50 on the locks screen for TUI_S s.
# Sets FRAMES (frames avg_ms max_ms, or "n/a ...") and TUI_CPU (ms of CPU per
# second of the window, from /proc/PID/stat, 10 ms ticks); the screen's first
# lines go to $tmp/NAME.screen.
screen() {
    local name=$1 uri=$2 c0 c1 t0 t1 i hz slow=
    shift 2
    hz=$(getconf CLK_TCK)
    rm -f "$tmp/$name.frames"
    tm new-session -d -s "$name" -x 200 -y 50 env HOME="$tmp/home" LC_ALL=C.UTF-8 \
        DBTOP_FRAME_STATS="$tmp/$name.frames" ./dbtop -i 1 "$@" "$uri"
    for ((i = 0; i < 50; i++)); do TUI_PID=$(pane_dbtop "$name"); [ -n "$TUI_PID" ] && break; sleep 0.1; done
    FRAMES="n/a (dbtop did not start)" TUI_CPU=n/a
    [ -n "$TUI_PID" ] || { tm kill-session -t "$name" 2>/dev/null || true; return 0; }
    tm send-keys -t "$name" 3
    c0=$(ticks "$TUI_PID") t0=$(date +%s.%N)
    sleep "$TUI_S"
    c1=$(ticks "$TUI_PID") t1=$(date +%s.%N)
    tm capture-pane -p -t "$name" >"$tmp/$name.screen" 2>/dev/null || true
    tm send-keys -t "$name" q
    for ((i = 0; i < 150; i++)); do
        alive "$TUI_PID" || break
        ((i == 20)) && slow="$(wchans "$TUI_PID")"
        sleep 0.1
    done
    ((i > 20)) && NOTES+=("$name: dbtop took $((i / 10)).$((i % 10)) s to exit after q (threads 2 s after q: $slow)")
    if alive "$TUI_PID"; then
        say "$name: dbtop still running 15 s after q; killing pid $TUI_PID"
        kill "$TUI_PID" 2>/dev/null || true
        FRAMES="n/a (did not exit on q)"
    fi
    tm kill-session -t "$name" 2>/dev/null || true
    TUI_CPU=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" -v t0="$t0" -v t1="$t1" \
        'BEGIN { printf "%.1f", (b - a) * 1000 / hz / (t1 - t0) }')
    TUI_PID=
    if [ -s "$tmp/$name.frames" ]; then
        FRAMES=$(awk '{ for (i = 1; i < NF; i++) v[$i] = $(i + 1) }
            END { printf "%d %.2f %.2f", v["frames"], v["avg_ms"], v["max_ms"] }' "$tmp/$name.frames")
    elif [ "$FRAMES" = "n/a (dbtop did not start)" ]; then
        FRAMES="n/a (no frame stats written)"
    fi
}

# wait_for CMD OP N SECONDS: poll until CMD prints a number OP N (ge: >=, eq: ==),
# at most SECONDS; prints the last value
wait_for() {
    local i v=
    for ((i = 0; i < $4 * 4; i++)); do
        v=$($1 2>/dev/null || true)
        case $v in '' | *[!0-9]*) ;; *)
            case $2 in ge) ((v >= $3)) && break ;; eq) ((v == $3)) && break ;; esac ;;
        esac
        sleep 0.25
    done
    echo "${v:-?}"
}

# root_start CLIENT...: a session reading SQL from a FIFO whose write end this
# script holds (ROOT_FD); it ends at most HOLD s later (timeout), or when
# ROOT_FD is closed (end of input: the client disconnects).
root_start() {
    rm -f "$tmp/root.in" "$tmp/root.out"
    mkfifo "$tmp/root.in"
    timeout -k 5 "$HOLD" "$@" <"$tmp/root.in" >"$tmp/root.out" 2>&1 &
    PIDS+=($!)
    ROOT_PID=$!
    exec {ROOT_FD}>"$tmp/root.in"
}
root_send() { printf '%s\n' "$@" >&"$ROOT_FD"; }
root_end() {
    root_send "$@"
    eval "exec $ROOT_FD>&-"
    ROOT_FD=
    timeout 20 tail --pid="$ROOT_PID" -f /dev/null || kill "$ROOT_PID" 2>/dev/null || true
    wait "$ROOT_PID" 2>/dev/null || true
}
root_id() {
    local i v
    for ((i = 0; i < 100; i++)); do
        v=$(head -n 1 "$tmp/root.out" 2>/dev/null)
        case $v in '' | *[!0-9]*) sleep 0.05 ;; *) echo "$v"; return 0 ;; esac
    done
    echo "?"
}
# stop_pid PID SECONDS: wait for a load to end by itself, else SIGTERM it
stop_pid() {
    timeout "$2" tail --pid="$1" -f /dev/null || kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

# ---- per engine ------------------------------------------------------------------

ROWS=()   # table rows
SCREENS=() # what the screen showed
NOTES=()

# row NAME ENGINE CASE WAITING SENT [BASE_CPU]: a table row for batch run NAME;
# BASE_CPU (s): the idle run's, for the lock cost per refresh
row() {
    local name=$1 eng=$2 case=$3 waiting=$4 sent=$5 base=${6:-} cpu lc edges
    cpu="$(per_refresh "$(cat "$tmp/$name.cpu")" "$R") ($(cat "$tmp/$name.cpu") s)"
    lc=-
    [ -n "$base" ] && lc=$(awk -v a="$(cat "$tmp/$name.cpu")" -v b="$base" -v n="$R" \
        'BEGIN { printf "%.2f", (a - b) * 1000 / (n + 1) }')
    [ -n "$base" ] && [ "$(jqr "$name" 'map(select(.locks_status == "read")) | length')" = 0 ] &&
        lc="$lc (no lock read)"
    # shellcheck disable=SC2016 # jq text
    edges=$(jqr "$name" '
        [.[] | select(.locks_status == "read")] as $r
        | if ($r | length) == 0 then "-" else ($r[-1] | "\(.locks | length) edges, \([.locks[].waiter.id] | unique | length) waiters, waiting \(.locks_waiting), roots \([.locks[].root] | unique | map(tostring) | join(" "))" + (if .locks_note then "; note: " + .locks_note else "" end)) end')
    ROWS+=("| $eng | $case | $waiting | $(statuses "$name") | $(states "$name") | $sent | $cpu | $lc | $(query_ms "$name") | $edges |")
}

pg_case() {
    local P=$DBTOP_PG15_PSQL uri=$DBTOP_PG15_URI q0 q1 q2 reached rid pgb base fr
    # lock-table statements of the monitoring login (pg_stat_statements counts a
    # statement when it completes)
    pgq() {
        $P -Atc "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
            WHERE userid = 'dbtop_mon'::regrole
              AND (query LIKE '%pg\\_locks%' OR query LIKE '%pg\\_blocking\\_pids%')"
    }
    pgw() { $P -Atc "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"; }
    $P -qc "ALTER SYSTEM SET max_connections = $((W + 100))" >/dev/null
    tests/sandbox.sh restart pg15 >>"$tmp/sandbox.log" 2>&1
    $P -qc "SET client_min_messages = warning; DROP TABLE IF EXISTS t; CREATE TABLE t (id int PRIMARY KEY, v bigint NOT NULL DEFAULT 0);
        INSERT INTO t VALUES (1, 0);" >/dev/null

    say "pg15: idle baseline ($R refreshes)"
    q0=$(pgq)
    batch pg-idle "$uri" "$R"
    q1=$(pgq)
    base=$(cat "$tmp/pg-idle.cpu")
    row pg-idle "PostgreSQL 15" "idle" "$(pgw)" "$((q1 - q0))"
    screen pg-idle-tui "$uri"
    fr=$FRAMES
    SCREENS+=("| PostgreSQL 15 | idle | $fr | $TUI_CPU |")

    say "pg15: $W sessions waiting for one row"
    # shellcheck disable=SC2086 # a command line
    root_start $P -X -q -At -v ON_ERROR_STOP=1
    root_send "SELECT pg_backend_pid();" "SET idle_in_transaction_session_timeout = '${HOLD}s';" \
        "BEGIN;" "UPDATE t SET v = v + 1 WHERE id = 1;"
    rid=$(root_id)
    echo 'UPDATE t SET v = v + 1 WHERE id = 1;' >"$tmp/waiter.sql"
    PGOPTIONS="-c lock_timeout=${HOLD}s" timeout -k 5 "$HOLD" pgbench -h "$DBTOP_PG15_SOCKET" \
        -p "$DBTOP_PG15_PORT" -U postgres -n -c "$W" -j 2 -T "$HOLD" -f "$tmp/waiter.sql" dbtop_test \
        >"$tmp/pgbench.log" 2>&1 &
    pgb=$!
    PIDS+=("$pgb")
    reached=$(wait_for pgw ge "$W" 60)
    q1=$(pgq)
    batch pg-wait "$uri" "$R"
    q2=$(pgq)
    row pg-wait "PostgreSQL 15" "$W waiters" "$reached (root $rid)" "$((q2 - q1))" "$base"
    screen pg-wait-tui "$uri"
    SCREENS+=("| PostgreSQL 15 | $W waiters | $FRAMES | $TUI_CPU |")
    cp "$tmp/pg-wait-tui.screen" "$tmp/pg.screen" 2>/dev/null || true
    if [ "$DIAG_T" -gt 0 ]; then
        screen pg-wait-diag "$uri" --query-timeout "$DIAG_T"
        SCREENS+=("| PostgreSQL 15 | $W waiters, --query-timeout $DIAG_T | $FRAMES | $TUI_CPU |")
        NOTES+=("PostgreSQL 15, $W waiters, --query-timeout $DIAG_T: the screen's header: $(header pg-wait-diag.screen)")
    fi
    NOTES+=("PostgreSQL 15, $W waiters: pg_blocking_pids() gives $($P -Atc "SELECT coalesce(sum(cardinality(pg_blocking_pids(pid))), 0)
        FROM pg_stat_activity WHERE wait_event_type = 'Lock'") (waiter, blocker) pairs now; JSON record $(jqr pg-wait 'map(tojson | length) | add / length | floor') bytes on average; dbtop said: $(said pg-wait pg-idle); the screen's header: $(header pg.screen)")

    say "pg15: release (COMMIT the root, stop pgbench)"
    root_end "COMMIT;"
    kill "$pgb" 2>/dev/null || true
    wait "$pgb" 2>/dev/null || true
    NOTES+=("PostgreSQL 15: after release, waiting sessions $(wait_for pgw eq 0 60); dbtop then: $(batch pg-after "$uri" 3; statuses pg-after)")
}

my_case() {
    local M=$DBTOP_MARIADB_CLIENT uri=$DBTOP_MARIADB_URI q0 q1 q2 reached rid slap base myname
    # statements that read information_schema.INNODB_LOCKS / INNODB_LOCK_WAITS
    # (`_` escaped: innodb_lock_wait_timeout must not match)
    myq() {
        $M -N -e "SELECT IFNULL(SUM(COUNT_STAR), 0) FROM performance_schema.events_statements_summary_by_digest
            WHERE DIGEST_TEXT LIKE '%information\\_schema%INNODB\\_LOCK%'"
    }
    myw() { $M -N -e "SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_current_waits'" | cut -f2; }
    $M -e "SET GLOBAL max_connections = $((W + 100));
        DROP TABLE IF EXISTS t; CREATE TABLE t (id INT PRIMARY KEY, v BIGINT NOT NULL DEFAULT 0) ENGINE=InnoDB;
        INSERT INTO t VALUES (1, 0);"
    myname="MariaDB $($M -N -e "SELECT SUBSTRING_INDEX(VERSION(), '-', 1)")"

    say "mariadb: idle baseline ($R refreshes)"
    q0=$(myq)
    batch my-idle "$uri" "$R"
    q1=$(myq)
    base=$(cat "$tmp/my-idle.cpu")
    row my-idle "$myname" "idle" "$(myw)" "$((q1 - q0))"
    screen my-idle-tui "$uri"
    SCREENS+=("| $myname | idle | $FRAMES | $TUI_CPU |")

    say "mariadb: $W sessions waiting for one row"
    # shellcheck disable=SC2086 # a command line
    root_start $M -n -N
    root_send "SELECT CONNECTION_ID();" "SET SESSION idle_transaction_timeout = $HOLD;" \
        "BEGIN;" "UPDATE t SET v = v + 1 WHERE id = 1;"
    rid=$(root_id)
    timeout -k 5 "$HOLD" mariadb-slap --no-defaults -S "$DBTOP_MARIADB_SOCKET" -u dbtop_admin -padminpw \
        --create-schema=dbtop_test --no-drop --concurrency="$W" --iterations=1 \
        --init-command="SET SESSION innodb_lock_wait_timeout = $HOLD" \
        --query="UPDATE t SET v = v + 1 WHERE id = 1" >"$tmp/slap.log" 2>&1 &
    slap=$!
    PIDS+=("$slap")
    reached=$(wait_for myw ge "$W" 60)
    q1=$(myq)
    batch my-wait "$uri" "$R"
    q2=$(myq)
    row my-wait "$myname" "$W waiters" "$reached (root $rid)" "$((q2 - q1))" "$base"
    screen my-wait-tui "$uri"
    SCREENS+=("| $myname | $W waiters | $FRAMES | $TUI_CPU |")
    cp "$tmp/my-wait-tui.screen" "$tmp/my.screen" 2>/dev/null || true
    NOTES+=("MariaDB, $W waiters: information_schema.INNODB_LOCK_WAITS has $($M -N -e "SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS") rows now; JSON record $(jqr my-wait 'map(tojson | length) | add / length | floor') bytes on average; dbtop said: $(said my-wait my-idle); the screen's header: $(header my.screen)")

    say "mariadb: release (COMMIT the root; each waiter then runs its UPDATE and mariadb-slap ends)"
    root_end "COMMIT;"
    stop_pid "$slap" 60
    NOTES+=("MariaDB: after release, Innodb_row_lock_current_waits $(wait_for myw eq 0 60); dbtop then: $(batch my-after "$uri" 3; statuses my-after)")
}

for e in $ENGINES; do
    case $e in pg15) pg_case ;; mariadb) my_case ;; *) say "unknown engine $e" ;; esac
done

# ---- report ----------------------------------------------------------------------
mem=$(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo)
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores ($cpu), $mem RAM, Linux $(uname -r)"
echo "dbtop --batch --format json -n $R -i 1 (CPU per refresh = user+system / $((R + 1)) samples, start-up included)"
echo
echo "| engine | case | sessions waiting (root id) | locks_status | state | lock-table statements sent | dbtop CPU ms/refresh (total) | lock cost ms/refresh | query ms/refresh | last lock read |"
echo "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |"
printf '%s\n' "${ROWS[@]}"
echo
echo "Screen, 200x50, locks screen (\`3\`) for $TUI_S s (DBTOP_FRAME_STATS: frames since start-up):"
echo
echo "| engine | case | frames, avg ms, max ms | dbtop CPU ms per second |"
echo "| --- | --- | --- | ---: |"
printf '%s\n' "${SCREENS[@]}"
echo
printf -- '- %s\n' "${NOTES[@]}"
for f in pg my; do
    [ -s "$tmp/$f.screen" ] || continue
    echo
    echo "Screen with $W waiters ($f), first lines:"
    echo '```'
    awk 'NF && n++ < 14' "$tmp/$f.screen" | cut -c1-160
    echo '```'
done
