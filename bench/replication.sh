#!/usr/bin/env bash
# What the replication reads cost: a PostgreSQL 15 primary with one
# synchronous standby (started here on loopback, like tests/live/97_syncrep.sh)
# under a bounded pgbench load, dbtop in batch mode at 1 s.
#   bench/replication.sh
# Phase "standby": s1 connected and synchronous: pg_stat_replication read at
# every refresh. Phase "none": the standby stopped and synchronous_standby_names
# empty: read only with the settings (every 10 s). Prints the read's own
# server time (replication.query_ms: the server's clock before and after it),
# dbtop's whole query time per refresh and dbtop's CPU (its time on a CPU
# over the window, /proc/PID/schedstat, ns) for each phase.
# Env: BENCH_SECONDS [40] records per phase; BENCH_IDLE [100] idle sessions
# held open (pg_stat_replication joins pg_stat_activity: its size counts);
# DBTOP_PG15_PORT [45415] (+1 primary, +2 standby); DBTOP_SANDBOX_DIR.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
N=${BENCH_SECONDS:-40}
IDLE=${BENCH_IDLE:-100}
BIN=/usr/lib/postgresql/15/bin
BASE=${DBTOP_SANDBOX_DIR:-${TMPDIR:-/tmp}}/bench-repl-$$
P1=$((${DBTOP_PG15_PORT:-45415} + 1))
P2=$((${DBTOP_PG15_PORT:-45415} + 2))
as_pg() { if [ "$(id -u)" -eq 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi; }
bg=()
cleanup() {
	for p in "${bg[@]}"; do kill "$p" 2>/dev/null || true; done
	for d in standby primary; do
		[ -f "$BASE/$d/postmaster.pid" ] && as_pg "$BIN/pg_ctl" -D "$BASE/$d" -m immediate -w -t 20 stop >/dev/null 2>&1
	done
	rm -rf "$BASE"
}
trap cleanup EXIT
mkdir -p "$BASE/run"
chmod 755 "$BASE" "$BASE/run"
[ "$(id -u)" -eq 0 ] && chown postgres: "$BASE" "$BASE/run"
as_pg "$BIN/initdb" -D "$BASE/primary" -U postgres -A trust -E UTF8 --locale=C -N >/dev/null
cat >>"$BASE/primary/postgresql.conf" <<CONF
port = $P1
listen_addresses = '127.0.0.1'
unix_socket_directories = '$BASE/run'
shared_buffers = 32MB
max_connections = 200
max_wal_senders = 4
CONF
echo "host replication all 127.0.0.1/32 trust" >>"$BASE/primary/pg_hba.conf"
as_pg "$BIN/pg_ctl" -D "$BASE/primary" -l "$BASE/primary.log" -w -t 30 start >/dev/null
psql1() { timeout 30 /usr/bin/psql -X -q -v ON_ERROR_STOP=1 -h "$BASE/run" -p "$P1" -U postgres -d postgres "$@"; }
psql1 -c "CREATE TABLE t (id bigserial PRIMARY KEY, v int)" -c "CREATE ROLE mon LOGIN; GRANT pg_monitor TO mon" >/dev/null
as_pg "$BIN/pg_basebackup" -h 127.0.0.1 -p "$P1" -U postgres -D "$BASE/standby" -R -X stream >/dev/null 2>&1
sed -i "s/^port = .*/port = $P2/" "$BASE/standby/postgresql.conf"
echo "primary_conninfo = 'host=127.0.0.1 port=$P1 user=postgres application_name=s1'" >>"$BASE/standby/postgresql.auto.conf"
as_pg "$BIN/pg_ctl" -D "$BASE/standby" -l "$BASE/standby.log" -w -t 30 start >/dev/null
psql1 -c "ALTER SYSTEM SET synchronous_standby_names = 's1'" -c "SELECT pg_reload_conf()" >/dev/null
# idle sessions: pg_stat_activity's size
for ((i = 0; i < IDLE; i++)); do
	timeout $((4 * N + 60)) /usr/bin/psql -X -q -h "$BASE/run" -p "$P1" -U postgres -d postgres -c "SELECT pg_sleep($((4 * N + 50)))" >/dev/null 2>&1 &
	bg+=($!)
done
echo "INSERT INTO t (v) VALUES (1);" >"$BASE/load.sql"

# phase NAME: N records of dbtop under a 200 commits/s load; dbtop's CPU
phase() {
	timeout $((N + 20)) "$BIN/pgbench" -n -h "$BASE/run" -p "$P1" -U postgres -c 4 -R 200 -T $((N + 4)) -f "$BASE/load.sql" postgres >/dev/null 2>&1 &
	local lp=$! dp t0 t1
	./dbtop --batch --count "$N" --interval 1 --format json "postgresql://mon@127.0.0.1:$P1/postgres" >"$BASE/$1.json" 2>/dev/null &
	dp=$!
	sleep 2
	t0=$(awk '{print $1}' /proc/$dp/schedstat)
	local w0=$(date +%s.%N)
	sleep $((N - 4))
	t1=$(awk '{print $1}' /proc/$dp/schedstat)
	local w1=$(date +%s.%N)
	wait "$dp"
	wait "$lp" || true
	awk -v a="$t0" -v b="$t1" -v w0="$w0" -v w1="$w1" -v n="$1" \
		'BEGIN { printf "%-8s dbtop CPU %.3f %% (%.1f ms on CPU over %.1f s, /proc/PID/schedstat)\n", n, (b - a) / 1e9 / (w1 - w0) * 100, (b - a) / 1e6, w1 - w0 }'
	jq -rs --arg n "$1" '. as $all | ($all | [.[] | .replication.query_ms | select(. != null)] | sort) as $q |
		($all | [.[] | .cost.query_ms] | sort) as $c | $all |
		"\($n) replication reads \($q | length)/\(length): server ms median \(if ($q|length) > 0 then $q[($q|length)/2|floor] else null end) p95 \(if ($q|length) > 0 then $q[(($q|length)*0.95)|floor] else null end) max \($q | max);  dbtop query ms per refresh median \($c[(($c|length)/2)|floor]) p95 \($c[(($c|length)*0.95)|floor])"' "$BASE/$1.json"
}
for i in $(seq 1 100); do
	[ "$(psql1 -Atc "SELECT sync_state FROM pg_stat_replication")" = sync ] && break
	sleep 0.2
done
echo "PostgreSQL 15, 1 synchronous standby, $IDLE idle sessions, pgbench 200 commits/s, $N records per phase"
phase standby
psql1 -c "ALTER SYSTEM SET synchronous_standby_names = ''" -c "SELECT pg_reload_conf()" >/dev/null
as_pg "$BIN/pg_ctl" -D "$BASE/standby" -m fast -w -t 20 stop >/dev/null
phase none
