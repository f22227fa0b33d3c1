#!/usr/bin/env bash
# scrape_cost.sh [N] - what one /metrics scrape costs dbtop: dbtop --no-screen
# --listen samples the sandbox MariaDB at 1 s; N scrapes (default 2000) over
# one keep-alive connection, as Prometheus makes them, then as many over a
# new connection each. Prints the answer's size, the time to serve (median,
# 99th percentile, client side) and dbtop's CPU per scrape (its CPU while
# scraping minus its CPU over the same time idle). Not run by CI.
# Env: DBTOP (default ./dbtop), DBTOP_LISTEN_PORT (default 38156), the
# sandbox's env (eval "$(tests/sandbox.sh env)").
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
N=${1:-2000}
DBTOP=${DBTOP:-./dbtop}
PORT=${DBTOP_LISTEN_PORT:-38156}
: "${DBTOP_MARIADB_URI:?run eval \"\$(tests/sandbox.sh env)\" first}"
"$DBTOP" --no-screen --listen "$PORT" "$DBTOP_MARIADB_URI" 2>/dev/null &
dp=$!
trap 'kill $dp 2>/dev/null; wait 2>/dev/null' EXIT
for ((i = 0; i < 100; i++)); do
    curl -sf "127.0.0.1:$PORT/metrics" | grep -q '^dbtop_up{.*} 1$' && break
    sleep 0.1
done
sleep 3
cpu() { awk '{ print $14 + $15 }' "/proc/$dp/stat"; }
tck=$(getconf CLK_TCK)
for mode in keepalive new; do
    c0=$(cpu)
    t0=$(date +%s.%N)
    out=$(python3 - "$PORT" "$N" "$mode" <<'EOF'
import http.client, sys, time
port, n, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lat, size = [], 0
c = http.client.HTTPConnection("127.0.0.1", port)
for i in range(n):
    if mode == "new":
        c = http.client.HTTPConnection("127.0.0.1", port)
    t = time.perf_counter()
    c.request("GET", "/metrics", headers={"Accept": "application/openmetrics-text; version=1.0.0"})
    r = c.getresponse()
    body = r.read()
    lat.append(time.perf_counter() - t)
    size = len(body)
    if mode == "new":
        c.close()
lat.sort()
print("%d %.3f %.3f" % (size, lat[len(lat) // 2] * 1e3, lat[int(len(lat) * 0.99)] * 1e3))
EOF
)
    t1=$(date +%s.%N)
    c1=$(cpu)
    el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    # the same time idle: what sampling alone costs
    i0=$(cpu)
    sleep "$el"
    i1=$(cpu)
    read -r size p50 p99 <<<"$out"
    awk -v m="$mode" -v n="$N" -v s="$size" -v p50="$p50" -v p99="$p99" -v el="$el" -v busy=$((c1 - c0)) \
        -v idle=$((i1 - i0)) -v t="$tck" 'BEGIN {
        printf "%s: %d scrapes in %.1f s, %d bytes each, time to serve median %.3f ms, p99 %.3f ms; dbtop CPU %.1f ms scraping vs %.1f ms idle: %.1f us per scrape\n",
            m, n, el, s, p50, p99, busy / t * 1e3, idle / t * 1e3, (busy - idle) / t * 1e6 / n }'
done
