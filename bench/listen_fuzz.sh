#!/usr/bin/env bash
# listen_fuzz.sh [SECONDS] - fuzz dbtop's --listen endpoint while it samples
# the sandbox MariaDB (tests/sandbox.sh) under a light load: random,
# malformed, huge and slow HTTP requests from bench/listen_fuzz.py for
# SECONDS (default 600), dbtop --batch --format json --listen beside them.
# Prints what was sent, how it was answered, whether dbtop crashed, and the
# largest gap between two batch records (interval 1 s). Not run by CI.
#   DBTOP=build-asan/dbtop bench/listen_fuzz.sh 600    under ASan / UBSan
# Env: DBTOP (default ./dbtop), DBTOP_LISTEN_PORT (default 38159),
# FUZZ_WORKERS (default 6), the sandbox's env (eval "$(tests/sandbox.sh env)").
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
SECONDS_RUN=${1:-600}
DBTOP=${DBTOP:-./dbtop}
PORT=${DBTOP_LISTEN_PORT:-38159}
WORKERS=${FUZZ_WORKERS:-6}
: "${DBTOP_MARIADB_URI:?run eval \"\$(tests/sandbox.sh env)\" first}"
tmp=$(mktemp -d)
dp= lp=
cleanup() {
    for p in $lp $dp; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:log_path=$tmp/asan} UBSAN_OPTIONS=print_stacktrace=1:log_path=$tmp/ubsan \
    "$DBTOP" --batch --format json --interval 1 --listen "$PORT" "$DBTOP_MARIADB_URI" >"$tmp/batch.json" 2>"$tmp/err" &
dp=$!
for ((i = 0; i < 100; i++)); do
    curl -sf "127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
tests/load.sh sysbench mariadb --rate 50 --time "$((SECONDS_RUN + 10))" --threads 2 2>"$tmp/load.log" &
lp=$!
cpu0=$(awk '{ print $14 + $15 }' "/proc/$dp/stat")
python3 bench/listen_fuzz.py "$PORT" "$SECONDS_RUN" "$WORKERS" >"$tmp/fuzz.json"
alive=yes
kill -0 "$dp" 2>/dev/null || alive=no
cpu1=$(awk '{ print $14 + $15 }' "/proc/$dp/stat" 2>/dev/null || echo "$cpu0")
rss=$(awk '/VmRSS/ { print $2 }' "/proc/$dp/status" 2>/dev/null)
kill "$lp" 2>/dev/null
kill -TERM "$dp" 2>/dev/null
wait "$dp"
rc=$?
dp=
n=$(wc -l <"$tmp/batch.json")
gap=$(jq -s '[.[].ts] | [range(1; length) as $i | .[$i] - .[$i - 1]] | max' "$tmp/batch.json")
tck=$(getconf CLK_TCK)
echo "fuzz: $SECONDS_RUN s, $WORKERS workers: $(cat "$tmp/fuzz.json")"
echo "dbtop: alive at the end: $alive, exit status after SIGTERM: $rc, RSS ${rss:-?} kB," \
    "CPU $(awk -v a="$cpu0" -v b="$cpu1" -v t="$tck" -v s="$SECONDS_RUN" 'BEGIN { printf "%.1f %%", (b - a) / t / s * 100 }')"
at=$(jq -s -r '[range(1; length) as $i | {g: (.[$i].ts - .[$i - 1].ts), q: .[$i].cost.query_ms}] | max_by(.g) |
    "its sample took \(.q) ms of queries"' "$tmp/batch.json")
late=$(jq -s '[range(1; length) as $i | .[$i].ts - .[$i - 1].ts | select(. > 1.1)] | length' "$tmp/batch.json")
echo "batch: $n records, largest gap between two: $gap s ($at); gaps over 1.1 s: $late"
if ls "$tmp"/asan* "$tmp"/ubsan* >/dev/null 2>&1; then
    echo "sanitizer reports:"
    cat "$tmp"/asan* "$tmp"/ubsan* 2>/dev/null | head -40
else
    echo "sanitizer reports: none"
fi
[ "$alive" = yes ] && [ "$rc" = 0 ]
