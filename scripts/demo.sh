#!/usr/bin/env bash
# make demo: throwaway MariaDB and PostgreSQL 15 servers, a bounded commit
# load, and dbtop's batch view of it. Seed incident 000/002 in small: two
# fsyncs per commit, then innodb_flush_log_at_trx_commit=2 halves them.
set -euo pipefail
cd "$(dirname "$0")/.."

export DBTOP_SANDBOX_DIR=${DBTOP_SANDBOX_DIR:-$(mktemp -d /tmp/dbtop-demo.XXXXXX)}
chmod 755 "$DBTOP_SANDBOX_DIR"
export DBTOP_SANDBOX_SERVERS="mariadb pg15"
N=${DEMO_RECORDS:-6}
trap 'tests/sandbox.sh stop >/dev/null 2>&1 || true' EXIT INT TERM

echo "== starting throwaway servers in $DBTOP_SANDBOX_DIR"
tests/sandbox.sh start mariadb pg15
eval "$(tests/sandbox.sh env)"

echo "== MariaDB: sysbench oltp_write_only at 200 tx/s, innodb_flush_log_at_trx_commit=1, sync_binlog=1"
tests/load.sh sysbench mariadb --rate 200 --time $((2 * N + 12)) --threads 4 2>/dev/null &
load=$!
sleep 3
./dbtop --batch --count "$N" --interval 1 "$DBTOP_MARIADB_URI"
echo "== SET GLOBAL innodb_flush_log_at_trx_commit=2 (risk: up to ~1 s of commits lost on an OS crash)"
$DBTOP_MARIADB_CLIENT -e "SET GLOBAL innodb_flush_log_at_trx_commit=2"
./dbtop --batch --count "$N" --interval 1 "$DBTOP_MARIADB_URI"
$DBTOP_MARIADB_CLIENT -e "SET GLOBAL innodb_flush_log_at_trx_commit=1"
wait "$load" || true

echo "== PostgreSQL 15: pgbench at 200 tx/s"
tests/load.sh pgbench pg15 --rate 200 --time $((N + 6)) --clients 4 2>/dev/null &
load=$!
sleep 3
./dbtop --batch --count "$N" --interval 1 "$DBTOP_PG15_URI"
wait "$load" || true
echo "== done; servers stopped"
