#!/usr/bin/env bash
# make demo: throwaway MariaDB and PostgreSQL 15 servers with a bounded
# background load, and dbtop's screen on them. Seed incidents 000/002 in
# small: two fsyncs per commit; press the tuning hint shown below in another
# terminal (or wait: halfway through, the demo itself switches
# innodb_flush_log_at_trx_commit to 2) and watch fsyncs per commit halve.
#   DEMO_ENGINE=postgresql  watch PostgreSQL instead
#   DEMO_SECONDS=600        how long the load runs (bounded)
# Without a terminal it prints batch text records instead.
set -euo pipefail
cd "$(dirname "$0")/.."

export DBTOP_SANDBOX_DIR=${DBTOP_SANDBOX_DIR:-$(mktemp -d /tmp/dbtop-demo.XXXXXX)}
chmod 755 "$DBTOP_SANDBOX_DIR"
SECS=${DEMO_SECONDS:-600}
ENGINE=${DEMO_ENGINE:-mariadb}
pids=()
cleanup() {
    [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
    tests/sandbox.sh stop >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

echo "== starting throwaway servers in $DBTOP_SANDBOX_DIR"
tests/sandbox.sh start mariadb pg15
eval "$(tests/sandbox.sh env)"

if [ "$ENGINE" = postgresql ]; then
    uri=$DBTOP_PG15_URI
    tests/load.sh pgbench pg15 --rate 300 --time "$SECS" --clients 8 2>/dev/null &
    pids+=($!)
else
    uri=$DBTOP_MARIADB_URI
    tests/load.sh sysbench mariadb --rate 300 --time "$SECS" --threads 8 2>/dev/null &
    pids+=($!)
    # halfway through the first minute: the seed's remedy, reverted at the end
    ( sleep 30 && $DBTOP_MARIADB_CLIENT -e "SET GLOBAL innodb_flush_log_at_trx_commit=2" ) &
    pids+=($!)
fi
sleep 2
if [ -t 0 ] && [ -t 1 ] && [ "${TERM:-dumb}" != dumb ]; then
    echo "== dbtop on $ENGINE under load (q quits; 30 s in, innodb_flush_log_at_trx_commit=2 halves fsyncs/commit)"
    sleep 1
    ./dbtop "$uri" || true
else
    echo "== no terminal: batch text records instead of the screen"
    ./dbtop --batch --count "${DEMO_RECORDS:-8}" "$uri"
fi
echo "== stopping the load and the servers"
