#!/usr/bin/env bash
# bench/waits.sh - what dbtop's own wait-event sampler costs on PostgreSQL
# without pg_wait_sampling (the prepared statement "dbtop_waits" on
# pg_stat_activity, run --sample-hz times a second), with BENCH_SESSIONS busy
# sessions and with none. PostgreSQL 18 sandbox (no pg_wait_sampling there).
# Cases: idle server (--sample-hz 10 and 1); BENCH_SESSIONS sessions that only
# sleep (all active, CPU left idle; 10 Hz); BENCH_SESSIONS busy sessions
# alternating a 20 ms sleep and a small update (10 Hz and 1 Hz). Each is one
# `dbtop --batch --format json -i 1 -n REFRESHES+2` run, which gives:
#   client CPU % of a core over REFRESHES refreshes (/proc/PID/stat ticks, and
#   /proc/PID/schedstat in ns),
#   ms_per_sample from the JSON records (client round trip of one sample),
#   the server's execution time of the sampler statement (pg_stat_statements,
#   role dbtop_mon, reset before the run),
#   the CPU time and run-queue wait of dbtop's server backend (schedstat).
# Prints a markdown table and the verdicts against the budgets. Everything
# started here is stopped by PID on exit.
#   BENCH_SESSIONS=300 BENCH_REFRESHES=30 bench/waits.sh
set -euo pipefail
cd "$(dirname "$0")/.."

S=${BENCH_SESSIONS:-300}
R=${BENCH_REFRESHES:-30}
SETTLE=${BENCH_SETTLE:-5}
for v in S:1:1000 R:5:300 SETTLE:0:60; do
    IFS=: read -r n lo hi <<<"$v"
    case ${!n} in '' | *[!0-9]*) echo "waits.sh: $n must be an integer" >&2; exit 2 ;; esac
    ((${!n} >= lo && ${!n} <= hi)) || { echo "waits.sh: $n must be in $lo..$hi" >&2; exit 2; }
done
CPU_BUDGET=0.5   # % of a core, client, S sessions, 10 Hz
SRV_BUDGET=1.0   # ms of server time per sample

# Always a private sandbox: `tests/sandbox.sh stop` removes its directory.
export DBTOP_SANDBOX_DIR
DBTOP_SANDBOX_DIR=$(mktemp -d /tmp/dbtop-bench-ws.XXXXXX)
export DBTOP_PG18_PORT=${DBTOP_PG18_PORT:-47418}
chmod 755 "$DBTOP_SANDBOX_DIR"
tmp=$(mktemp -d /tmp/dbtop-bench-ws-tmp.XXXXXX)
chmod 755 "$tmp"

DBTOP_PID= # dbtop, while it runs
LOAD_PID=  # the bounded pgbench (its timeout wrapper), while it runs
SANDBOX_UP=0
say() { echo "waits.sh: $*" >&2; }

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    set +e
    [ -n "$DBTOP_PID" ] && kill "$DBTOP_PID" 2>/dev/null && wait "$DBTOP_PID" 2>/dev/null
    [ -n "$LOAD_PID" ] && kill "$LOAD_PID" 2>/dev/null && wait "$LOAD_PID" 2>/dev/null
    [ "$SANDBOX_UP" = 1 ] && { tests/sandbox.sh stop >/dev/null 2>&1 || say "sandbox stop failed ($DBTOP_SANDBOX_DIR)"; }
    rm -rf "$tmp"
    [ -d "$DBTOP_SANDBOX_DIR" ] && rmdir "$DBTOP_SANDBOX_DIR" 2>/dev/null
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Build; others may be editing the tree, so one retry, then the existing binary.
if ! make -s >"$tmp/make.log" 2>&1; then
    sleep 20
    if ! make -s >"$tmp/make.log" 2>&1; then
        [ -x ./dbtop ] || { cat "$tmp/make.log" >&2; exit 1; }
        say "make failed twice; measuring the existing ./dbtop"
    fi
fi

SANDBOX_UP=1
tests/sandbox.sh start pg18 >"$tmp/sandbox.log" 2>&1 || { cat "$tmp/sandbox.log" >&2; exit 1; }
eval "$(tests/sandbox.sh env)"
PSQL="$DBTOP_PG18_PSQL -q -v ON_ERROR_STOP=1 -At"
# room for the load, dbtop and the psql calls here
maxc=$($PSQL -c "SHOW max_connections")
if ((maxc < S + 50)); then
    want=$((S + 50 > 400 ? S + 50 : 400))
    $PSQL -c "ALTER SYSTEM SET max_connections = $want"
    tests/sandbox.sh restart pg18 >>"$tmp/sandbox.log" 2>&1 || { cat "$tmp/sandbox.log" >&2; exit 1; }
    eval "$(tests/sandbox.sh env)"
    maxc=$($PSQL -c "SHOW max_connections")
fi
$PSQL -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"
# the loads: pgbench tables; a script alternating a 20 ms wait with a small
# update (busy), and one that only sleeps (sleeping)
PGB=(/usr/bin/pgbench -h "$DBTOP_PG18_SOCKET" -p "$DBTOP_PG18_PORT" -U postgres)
"${PGB[@]}" -i -q -s 1 dbtop_test >"$tmp/pgbench-init.log" 2>&1 ||
    { cat "$tmp/pgbench-init.log" >&2; exit 1; }
cat >"$tmp/load.sql" <<'SQL'
\set aid random(1, 100000)
SELECT pg_sleep(0.02);
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;
SQL
echo 'SELECT pg_sleep(1);' >"$tmp/sleep.sql"
TCK=$(getconf CLK_TCK)
SAMPLER_WHERE="query LIKE '%pg_stat_activity%' AND query LIKE '%wait_event_type%' AND query LIKE '%GROUP BY%'"

# ticks PID: utime+stime of the process (threads included) into $TICKS
ticks() {
    local s a
    read -r s <"/proc/$1/stat"
    s=${s##*) }
    read -ra a <<<"$s"
    TICKS=$((a[11] + a[12]))
}
# sched PID: on-CPU and run-queue wait (ns), summed over the process's threads,
# into $ON $RQ; 0 0 when unreadable
sched() {
    local f on rq
    ON=0 RQ=0
    [ -n "$1" ] || return 0
    for f in /proc/"$1"/task/*/schedstat; do
        { read -r on rq _ <"$f"; } 2>/dev/null || continue
        ON=$((ON + on)) RQ=$((RQ + rq))
    done
}
# busy: busy and total jiffies of the whole machine into $BUSY $TOTAL
busy() {
    local cpu u n s i w q sq st
    read -r cpu u n s i w q sq st _ </proc/stat
    BUSY=$((u + n + s + q + sq + st))
    TOTAL=$((BUSY + i + w))
}
commits() { $PSQL -c "SELECT xact_commit FROM pg_stat_database WHERE datname = 'dbtop_test'"; }

# measure CASE HZ: one dbtop run; appends one tab-separated line to $tmp/rows:
# case hz cpu%(ticks) cpu%(schedstat) samples/refresh client_mean client_max
# srv_calls srv_mean srv_max backend_cpu_ms/s backend_rq_ms/s aas busy% commits/s
measure() {
    local case=$1 hz=$2 out n=0 line t0= t1= c0 c1 on0 on1 b0 tot0 bon0 bon1 brq0 brq1 bpid= x0 x1 w0 w1 stats srv aas
    out=$tmp/run-${case// /_}-$hz.json
    rm -f "$tmp/fifo"
    mkfifo "$tmp/fifo"
    $PSQL -c "SELECT pg_stat_statements_reset()" >/dev/null
    x0=$(commits)
    w0=$EPOCHREALTIME
    ./dbtop --batch --format json -i 1 -n $((R + 2)) --sample-hz "$hz" "$DBTOP_PG18_URI" \
        >"$tmp/fifo" 2>"$tmp/dbtop.err" &
    DBTOP_PID=$!
    # the window: from the first record (connected, first refresh done) to
    # record R+1, i.e. R intervals of sampling and refreshing
    while IFS= read -r line; do
        n=$((n + 1))
        printf '%s\n' "$line" >>"$out"
        if ((n == 1)); then
            bpid=$($PSQL -c "SELECT pid FROM pg_stat_activity WHERE usename = 'dbtop_mon'
                AND application_name = 'dbtop' ORDER BY backend_start DESC LIMIT 1") || bpid=
            t0=$EPOCHREALTIME; ticks "$DBTOP_PID"; c0=$TICKS; sched "$DBTOP_PID"; on0=$ON
            sched "$bpid"; bon0=$ON brq0=$RQ; busy; b0=$BUSY tot0=$TOTAL
        elif ((n == R + 1)); then
            t1=$EPOCHREALTIME; ticks "$DBTOP_PID"; c1=$TICKS; sched "$DBTOP_PID"; on1=$ON
            sched "$bpid"; bon1=$ON brq1=$RQ; busy
        fi
    done <"$tmp/fifo"
    wait "$DBTOP_PID" || { cat "$tmp/dbtop.err" >&2; say "dbtop failed ($case, $hz Hz)"; exit 1; }
    DBTOP_PID=
    w1=$EPOCHREALTIME
    x1=$(commits)
    [ -n "$t1" ] || { cat "$tmp/dbtop.err" >&2; say "dbtop printed $n records, expected $((R + 2))"; exit 1; }
    [ -n "$bpid" ] && ((bon1 > 0)) || say "$case/$hz Hz: dbtop's server backend not found, no backend figures"
    if jq -e 'select(.waits_source != "sampled")' "$out" >/dev/null; then
        say "waits_source is not \"sampled\" in $case/$hz Hz: $(jq -r .waits_source "$out" | sort | uniq -c | tr '\n' ' ')"
        exit 1
    fi
    # records 2.. : samples, mean ms per sample (per-record means weighted by
    # samples), max of the per-record means, number of records
    stats=$(jq -rs '[.[1:][] | .waits_sampler | select(.samples > 0 and .ms_per_sample != null)] as $r
        | [($r | map(.samples) | add), ($r | map(.ms_per_sample * .samples) | add) / ($r | map(.samples) | add),
           ($r | map(.ms_per_sample) | max), ($r | length)] | @tsv' "$out")
    aas=$(jq -rs '[.[1:][] | [.waits[].aas] | add // 0] | add / length' "$out")
    srv=$($PSQL -F $'\t' -c "SELECT count(*), coalesce(sum(calls), 0),
        coalesce(sum(total_exec_time) / nullif(sum(calls), 0), 'NaN'), coalesce(max(max_exec_time), 'NaN')
        FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
        WHERE r.rolname = 'dbtop_mon' AND $SAMPLER_WHERE")
    if [ "${srv%%$'\t'*}" != 1 ]; then
        say "$case/$hz Hz: ${srv%%$'\t'*} pg_stat_statements entries match the sampler statement:"
        $PSQL -c "SELECT calls, left(query, 120) FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
            WHERE r.rolname = 'dbtop_mon' AND $SAMPLER_WHERE" >&2
    fi
    awk -v c="$case" -v hz="$hz" -v t0="$t0" -v t1="$t1" -v w0="$w0" -v w1="$w1" \
        -v dc=$((c1 - c0)) -v don=$((on1 - on0)) -v tck="$TCK" -v st="$stats" -v sv="$srv" -v aas="$aas" \
        -v bon=$((bon1 - bon0)) -v brq=$((brq1 - brq0)) -v bok=$((bon1 > 0)) \
        -v db=$((BUSY - b0)) -v dtot=$((TOTAL - tot0)) -v dx=$((x1 - x0)) 'BEGIN {
            split(st, s, "\t"); split(sv, v, "\t"); dt = t1 - t0
            printf "%s\t%s\t%.3f\t%.3f\t%.2f\t%.3f\t%.3f\t%d\t%.3f\t%.3f\t%s\t%s\t%.1f\t%.0f\t%.0f\n", c, hz,
                dc * 100 / (dt * tck), don / 1e7 / dt, s[4] ? s[1] / s[4] : 0, s[2], s[3], v[2], v[3], v[4],
                bok ? sprintf("%.3f", bon / 1e6 / dt) : "n/a", bok ? sprintf("%.3f", brq / 1e6 / dt) : "n/a",
                aas, dtot ? db * 100 / dtot : 0, dx / (w1 - w0) }' >>"$tmp/rows"
    say "$case, $hz Hz: done ($(tail -1 "$tmp/rows" | cut -f3) % of a core)"
}

# load SCRIPT: start pgbench with S sessions for at most $load_t s; wait until all are connected
load() {
    say "starting pgbench ($1): $S sessions, at most $load_t s"
    timeout -k 10 $((load_t + 30)) "${PGB[@]}" -n -c "$S" -j 2 -T "$load_t" -f "$tmp/$1.sql" dbtop_test \
        >"$tmp/pgbench-$1.log" 2>&1 &
    LOAD_PID=$!
    local i conn=0
    for ((i = 0; i < 600; i++)); do
        kill -0 "$LOAD_PID" 2>/dev/null || { cat "$tmp/pgbench-$1.log" >&2; say "pgbench ended early"; exit 1; }
        conn=$($PSQL -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgbench'")
        ((conn >= S)) && break
        sleep 0.1
    done
    ((conn >= S)) || { say "only $conn of $S pgbench sessions connected"; exit 1; }
    sleep "$SETTLE"
    kill -0 "$LOAD_PID" 2>/dev/null || { cat "$tmp/pgbench-$1.log" >&2; say "pgbench ended early"; exit 1; }
}
# unload SCRIPT: check that the load ran to the end of the measurements, then stop it
unload() {
    kill -0 "$LOAD_PID" 2>/dev/null || { cat "$tmp/pgbench-$1.log" >&2; say "pgbench ended during the measurements"; exit 1; }
    kill "$LOAD_PID" 2>/dev/null || true
    wait "$LOAD_PID" 2>/dev/null || true
    LOAD_PID=
    # its server sessions end when their statement does (pg_sleep(1) at most)
    local i conn
    for ((i = 0; i < 300; i++)); do
        conn=$($PSQL -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgbench'")
        ((conn == 0)) && return 0
        sleep 0.1
    done
    say "$conn pgbench sessions still there 30 s after pgbench ended"
    exit 1
}

: >"$tmp/rows"
# idle server: only dbtop and the background processes
say "idle server: --sample-hz 10, then 1 ($((R + 2)) refreshes each)"
measure idle 10
measure idle 1
# S sessions in pg_sleep: as many rows for the sampler, CPU left to it
load_t=$((SETTLE + (R + 10) + 30))
load sleep
measure "$S sleeping" 10
unload sleep
# S busy sessions
load_t=$((SETTLE + 2 * (R + 10) + 30))
load load
measure "$S busy" 10
measure "$S busy" 1
unload load

# report
row() { awk -F'\t' -v c="$1" -v h="$2" -v f="$3" '$1 == c && $2 == h { print $f }' "$tmp/rows"; }
calc() { awk "BEGIN { printf \"$1\", ($2) }"; }
echo
echo "PostgreSQL $($PSQL -c 'SHOW server_version'), max_connections $maxc; $(nproc) cores," \
    "$(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo) RAM; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "dbtop --batch --format json -i 1 -n $((R + 2)); figures over $R refreshes; loads: pgbench -n -c $S -j 2 -f," \
    "sleeping: SELECT pg_sleep(1); busy: SELECT pg_sleep(0.02); UPDATE pgbench_accounts (random aid)"
echo
echo "| sessions | --sample-hz | samples per refresh | dbtop CPU % of a core (ticks / schedstat) | client ms/sample (mean / max) | server ms/sample (mean / max) | server calls | backend CPU ms/s | backend run-queue wait ms/s | active sessions seen | machine busy % | commits/s |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
awk -F'\t' '{ printf "| %s | %s | %.1f | %.2f / %.3f | %.3f / %.3f | %.3f / %.3f | %d | %s | %s | %.1f | %s | %s |\n",
    $1, $2, $5, $3, $4, $6, $7, $9, $10, $8, $11, $12, $13, $14, $15 }' "$tmp/rows"
echo
echo "client ms/sample: dbtop's round trip per sample (JSON waits_sampler.ms_per_sample; mean weighted by samples, max of the per-refresh means)"
echo "server ms/sample: pg_stat_statements mean_exec_time / max_exec_time of the sampler statement (role dbtop_mon, whole run)"
echo "backend: dbtop's server process (/proc/PID/schedstat), every statement dbtop sends; commits/s: dbtop_test, dbtop's own included"
B="$S busy"
for c in idle "$B"; do
    echo "sampler's share, $c (10 Hz minus 1 Hz): client $(calc %.2f "$(row "$c" 10 3) - $(row "$c" 1 3)") % of a core" \
        "(ticks), $(calc %.3f "$(row "$c" 10 4) - $(row "$c" 1 4)") % (schedstat)"
done
dn=$(calc %.3f "$(row "$B" 10 5) - $(row "$B" 1 5)")
if [ "$(row "$B" 10 11)" != n/a ] && [ "$(row "$B" 1 11)" != n/a ] && calc %d "$dn > 0" | grep -q 1; then
    echo "per sample on the server, $B (10 Hz minus 1 Hz over $dn more samples per refresh):" \
        "backend CPU $(calc %.3f "($(row "$B" 10 11) - $(row "$B" 1 11)) / $dn") ms," \
        "run-queue wait $(calc %.3f "($(row "$B" 10 12) - $(row "$B" 1 12)) / $dn") ms"
fi
cpu=$(row "$B" 10 3) srv=$(row "$B" 10 9) srvmax=$(row "$B" 10 10) cli=$(row "$B" 10 6)
if calc %d "$cpu <= $CPU_BUDGET" | grep -q 1; then v=MET; else v=MISSED; fi
echo "client CPU budget (<= $CPU_BUDGET % of a core, $B, 10 Hz): $v ($(calc %.2f "$cpu") % ticks, $(calc %.3f "$(row "$B" 10 4)") % schedstat)"
if calc %d "$srv <= $SRV_BUDGET" | grep -q 1; then v=MET; else v=MISSED; fi
echo "server time budget (<= $SRV_BUDGET ms per sample, mean, $B): $v ($(calc %.3f "$srv") ms; max $(calc %.3f "$srvmax") ms;" \
    "client round trip $(calc %.3f "$cli") ms; $S sleeping sessions: $(calc %.3f "$(row "$S sleeping" 10 9)") ms)"
