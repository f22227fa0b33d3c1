#!/usr/bin/env bash
# dbtop watching 20 targets at once: its CPU and memory per target.
#   bench/fleet.sh
# Needs the sandbox's MariaDB, PostgreSQL 15 and 18 (tests/sandbox.sh start mariadb pg15
# pg18; eval "$(tests/sandbox.sh env)"). Makes 20 targets on them: 7 databases on each
# PostgreSQL (dbtop_test, postgres and fleet_b1..b5, created here and dropped at the end)
# and 6 connections to MariaDB (one per target, as for 6 servers), each sampled by its
# own worker. Runs, for BENCH_SECONDS each after BENCH_WARMUP seconds:
#   1. dbtop --batch --format json with the one target dbtop_test on PostgreSQL 15 (the base)
#   2. dbtop --batch --format json with the 20 targets
#   3. dbtop on the fleet screen (tmux, 200x50) with the 20 targets
#   4. dbtop's screen (tmux, 200x50) with the one target: the screen's base
# and reads utime + stime (/proc/PID/stat) over the window and VmRSS / VmHWM at its end
# (/proc/PID/status). Also: records per target and the largest gap between two records
# of one target (the batch run), against the interval. Prints a markdown table and the RSS
# per target beyond the first: each 20-target run against the one-target run of its mode.
# Env: BENCH_SECONDS [60] (10..600), BENCH_WARMUP [5], BENCH_INTERVAL [1], DBTOP [./dbtop].
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SECS=${BENCH_SECONDS:-60} WARM=${BENCH_WARMUP:-5} IV=${BENCH_INTERVAL:-1} DBTOP=${DBTOP:-./dbtop}
CLK_TCK=$(getconf CLK_TCK)
die() { echo "fleet: $*" >&2; exit 1; }
say() { echo "fleet: $*" >&2; }
[ -n "${DBTOP_PG15_URI:-}" ] && [ -n "${DBTOP_PG18_URI:-}" ] && [ -n "${DBTOP_MARIADB_URI:-}" ] ||
    die 'needs the sandbox: eval "$(tests/sandbox.sh env)" with mariadb, pg15 and pg18 started'
tmp=$(mktemp -d)
sock=dbtop-fleet-bench-$$
bp=
cleanup() {
    [ -n "$bp" ] && kill "$bp" 2>/dev/null
    tmux -L "$sock" kill-server 2>/dev/null || true
    for v in PG15 PG18; do
        psql=DBTOP_${v}_PSQL
        for i in 1 2 3 4 5; do ${!psql} -qc "DROP DATABASE IF EXISTS fleet_b$i" >/dev/null 2>&1 || true; done
    done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

# the targets
{
    for v in PG15 PG18; do
        uri=DBTOP_${v}_URI psql=DBTOP_${v}_PSQL
        base=${!uri%/*}
        for i in 1 2 3 4 5; do ${!psql} -qc "CREATE DATABASE fleet_b$i" >/dev/null 2>&1 || true; done
        n=$(tr A-Z a-z <<<"$v")
        echo "$n-dbtop_test = $base/dbtop_test"
        echo "$n-postgres = $base/postgres"
        for i in 1 2 3 4 5; do echo "$n-b$i = $base/fleet_b$i"; done
    done
    for i in 1 2 3 4 5 6; do echo "maria-$i = ${DBTOP_MARIADB_URI}?connect_timeout=$((4 + i))"; done
} >"$tmp/targets"
chmod 600 "$tmp/targets"
[ "$(grep -c = "$tmp/targets")" -eq 20 ] || die "expected 20 targets"

# cpu_ticks PID: utime + stime
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# measure PID: "cpu_percent rss_kib hwm_kib" over the window
measure() {
    local pid=$1 c0 c1 t0 t1
    sleep "$WARM"
    c0=$(cpu_ticks "$pid") t0=$(date +%s.%N)
    sleep "$SECS"
    c1=$(cpu_ticks "$pid") t1=$(date +%s.%N)
    awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$CLK_TCK" \
        -v rss="$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")" \
        -v hwm="$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")" \
        'BEGIN { printf "%.2f %d %d\n", (c1 - c0) / hz / (t1 - t0) * 100, rss, hwm }'
}

row() { # NAME TARGETS "cpu rss hwm"
    set -- "$1" "$2" $3
    awk -v n="$1" -v k="$2" -v c="$3" -v r="$4" -v h="$5" 'BEGIN {
        printf "| %s | %d | %.2f %% | %.3f %% | %.1f MiB | %.1f MiB | %.0f KiB |\n", n, k, c, c / k, r / 1024, h / 1024, r / k }'
}

say "1/4: one target, --batch, ${SECS}s"
"$DBTOP" -b --format json -i "$IV" "${DBTOP_PG15_URI}" >"$tmp/one.json" 2>"$tmp/one.err" &
bp=$!
one=$(measure $bp)
kill $bp; wait $bp 2>/dev/null || true; bp=

say "2/4: 20 targets, --batch, ${SECS}s"
"$DBTOP" -b --format json -i "$IV" --targets "$tmp/targets" >"$tmp/fleet.json" 2>"$tmp/fleet.err" &
bp=$!
t_start=$(date +%s.%N)
batch=$(measure $bp)
kill $bp; wait $bp 2>/dev/null || true; bp=

say "3/4: 20 targets, the fleet screen (200x50), ${SECS}s"
tmux -L "$sock" -f /dev/null new-session -d -s s -x 200 -y 50 \
    "sh -c 'echo \$\$ > $tmp/pid; exec $DBTOP -i $IV --targets $tmp/targets 2>$tmp/tui.err'"
sleep 0.5
tui=$(measure "$(cat "$tmp/pid")")
tmux -L "$sock" -f /dev/null capture-pane -p -t s >"$tmp/screen.txt"
tmux -L "$sock" -f /dev/null send-keys -t s q
sleep 1
tmux -L "$sock" kill-server 2>/dev/null || true

say "4/4: one target, the screen (200x50), ${SECS}s"
rm -f "$tmp/pid"
tmux -L "$sock" -f /dev/null new-session -d -s s -x 200 -y 50 \
    "sh -c 'echo \$\$ > $tmp/pid; exec $DBTOP -i $IV ${DBTOP_PG15_URI} 2>$tmp/tui1.err'"
sleep 0.5
tui1=$(measure "$(cat "$tmp/pid")")
tmux -L "$sock" -f /dev/null send-keys -t s q
sleep 1

# records per target and the largest gap in the batch run (after the warm-up)
gaps=$(jq -r --argjson t0 "$(awk -v t="$t_start" -v w="$WARM" 'BEGIN { printf "%.3f", t + w }')" \
    'select(.ts >= $t0) | "\(.server) \(.ts) \(.state)"' "$tmp/fleet.json" |
    awk '{ n[$1]++; if ($3 != "up") bad[$1]++; if (($1 in p) && $2 - p[$1] > g) { g = $2 - p[$1]; gs = $1 } p[$1] = $2 }
         END { min = 1e9; max = 0; for (k in n) { if (n[k] < min) min = n[k]; if (n[k] > max) max = n[k]; b += bad[k] }
               printf "%d targets, %d to %d records each, %d not up, largest gap %.2f s (%s)", length(n), min, max, b, g, gs }')

echo
echo "dbtop $("$DBTOP" --version | cut -d' ' -f2), interval ${IV}s, ${SECS}s window after ${WARM}s, $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "| run | targets | dbtop CPU | CPU per target | RSS | RSS peak | RSS per target |"
echo "|---|---|---|---|---|---|---|"
row "one target, --batch" 1 "$one"
row "20 targets, --batch" 20 "$batch"
row "20 targets, fleet screen 200x50" 20 "$tui"
row "one target, screen 200x50" 1 "$tui1"
echo
beyond() { # ONE TWENTY: RSS per target beyond the first, KiB
    set -- $1 $2
    awk -v a="$2" -v b="$5" 'BEGIN { printf "%.0f KiB (%.2f MiB)", (b - a) / 19, (b - a) / 19 / 1024 }'
}
echo "RSS per target beyond the first: --batch $(beyond "$one" "$batch"), screen $(beyond "$tui1" "$tui")."
echo
echo "Batch run: $gaps."
echo
echo "Fleet screen at the end of the window:"
echo
echo '```'
head -26 "$tmp/screen.txt"
echo '```'
