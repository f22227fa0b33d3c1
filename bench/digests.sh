#!/usr/bin/env bash
# bench/digests.sh - what one refresh costs dbtop and the server when the
# server tracks thousands of distinct statement digests (PostgreSQL 15 with
# 10,000 pg_stat_statements entries; MariaDB with its default digest table
# of 5,000, full). Prints, per engine: dbtop CPU per refresh (ms) and the
# time its queries took per refresh (ms, first refresh and steady state).
#   BENCH_DIGESTS=10000 BENCH_REFRESHES=20 bench/digests.sh
set -euo pipefail
cd "$(dirname "$0")/.."

N=${BENCH_DIGESTS:-10000}
R=${BENCH_REFRESHES:-20}
export DBTOP_SANDBOX_DIR=${DBTOP_SANDBOX_DIR:-$(mktemp -d /tmp/dbtop-bench-dg.XXXXXX)}
export DBTOP_MARIADB_PORT=${DBTOP_MARIADB_PORT:-44306} DBTOP_PG15_PORT=${DBTOP_PG15_PORT:-44415}
chmod 755 "$DBTOP_SANDBOX_DIR"
trap 'tests/sandbox.sh stop >/dev/null 2>&1 || true' EXIT INT TERM
make -s dbtop >/dev/null
tests/sandbox.sh start mariadb pg15 >/dev/null 2>&1
eval "$(tests/sandbox.sh env)"

tables=$(( (N + 99) / 100 ))
# PostgreSQL: room for N entries, then N distinct statements (table x column)
$DBTOP_PG15_PSQL -qc "ALTER SYSTEM SET pg_stat_statements.max = $((N + 2000))" >/dev/null
tests/sandbox.sh restart pg15 >/dev/null 2>&1
eval "$(tests/sandbox.sh env)"
{
    for ((t = 0; t < tables; t++)); do
        cols=$(for ((c = 0; c < 100; c++)); do printf 'c%d int,' "$c"; done)
        echo "CREATE TABLE IF NOT EXISTS bt$t (${cols%,});"
    done
    echo "SELECT pg_stat_statements_reset();"
    for ((i = 0; i < N; i++)); do echo "SELECT c$((i % 100)) FROM bt$((i / 100));"; done
} | $DBTOP_PG15_PSQL -q >/dev/null
pg_entries=$($DBTOP_PG15_PSQL -Atc "SELECT count(*) FROM pg_stat_statements")

# MariaDB: fill the digest table the same way
M=$DBTOP_MARIADB_CLIENT
my_size=$($M -N -e "SELECT @@performance_schema_digests_size")
{
    for ((t = 0; t < tables; t++)); do
        cols=$(for ((c = 0; c < 100; c++)); do printf 'c%d int,' "$c"; done)
        echo "CREATE TABLE IF NOT EXISTS bt$t (${cols%,});"
    done
    echo "TRUNCATE performance_schema.events_statements_summary_by_digest;"
    for ((i = 0; i < N; i++)); do echo "SELECT c$((i % 100)) FROM bt$((i / 100));"; done
} | $M >/dev/null
my_entries=$($M -N -e "SELECT COUNT(*) FROM performance_schema.events_statements_summary_by_digest")

# measure NAME URI ENTRIES: dbtop --batch for R refreshes
measure() {
    local name=$1 uri=$2 entries=$3 out t0 t1 cpu
    out=$(mktemp)
    /usr/bin/time -f "%U %S" -o "$out.time" ./dbtop --batch --count "$R" --interval 1 --top 20 \
        --format json "$uri" >"$out" 2>/dev/null
    read -r u s <"$out.time"
    cpu=$(awk -v u="$u" -v s="$s" -v r="$R" 'BEGIN { printf "%.2f", (u + s) * 1000 / (r + 1) }')
    first=$(head -1 "$out" | jq '.cost.query_ms')
    steady=$(jq -s '[.[1:][] | .cost.query_ms] | add / length' "$out")
    worst=$(jq -s '[.[1:][] | .cost.query_ms] | max' "$out")
    shown=$(tail -1 "$out" | jq '.digests | length')
    printf '%-10s %8s %10s %16s %18s %16s %8s\n' "$name" "$entries" "$cpu" \
        "$(printf '%.2f' "$first")" "$(printf '%.2f' "$steady")" "$(printf '%.2f' "$worst")" "$shown"
    rm -f "$out" "$out.time"
}

printf '%-10s %8s %10s %16s %18s %16s %8s\n' engine digests "cpu ms/ref" "query ms (1st)" "query ms (steady)" "query ms (max)" shown
measure postgresql "$DBTOP_PG15_URI" "$pg_entries"
measure mariadb "$DBTOP_MARIADB_URI" "$my_entries (size $my_size)"
echo "cpu ms/ref: dbtop user+system CPU per refresh over $R refreshes at 1 s (first refresh included)"
echo "query ms: time dbtop's queries took per refresh, as dbtop measured it (client side, round trips included)"
