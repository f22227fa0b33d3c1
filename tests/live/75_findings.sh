# Findings on live servers, against reproductions of the seed incidents:
# the durable MariaDB set-up on a fast disk is no finding, an idle root blocker
# (PostgreSQL), the WAL writer flushing far more often than asynchronous
# commits need (PostgreSQL, wal_writer_delay 10ms). Each must fire with its
# evidence, and go quiet when the cause is gone.
. tests/lib.sh
tmp=$(mktemp -d)
. tests/sessions.sh
P=$DBTOP_PG15_PSQL
cleanup() {
    sessions_kill
    $DBTOP_MARIADB_CLIENT -e "SET GLOBAL innodb_flush_log_at_trx_commit=1" 2>/dev/null
    $P -qc "ALTER SYSTEM RESET wal_writer_delay" >/dev/null 2>&1
    $P -qc "ALTER ROLE postgres RESET synchronous_commit" >/dev/null 2>&1
    $P -qc "SELECT pg_reload_conf()" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

# ids FILE: the finding ids of every record, one line per record
ids() { jq -c '[.findings[]?.id]' "$1"; }

# ---- MariaDB: the durable set-up on a fast disk is no finding (issue 16 item 10) ----
# (76_findings_evidence.sh makes the fsyncs slow and sees it fire)
$DBTOP_MARIADB_CLIENT -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1"
tests/load.sh sysbench mariadb --rate 200 --time 8 --threads 4 2>/dev/null &
lp=$!
sleep 2
"$DBTOP" --batch --count 5 --interval 1 --format json "$DBTOP_MARIADB_URI" >"$tmp/my1.json" 2>/dev/null
wait "$lp"
n1=$(ids "$tmp/my1.json" | grep -c commit-fsync)
echo "# mariadb fast disk: COMMIT avg $(jq -s '[.[] | .digests[]? | select(.text | test("^COMMIT")) | .avg_ms | select(. != null)] | if length == 0 then null else add / length end' "$tmp/my1.json") ms, $(mean "$tmp/my1.json" '.rates.fsyncs_per_commit') fsyncs/commit"
check "mariadb flush=1 sync_binlog=1 under commits on a fast disk: commit-fsync quiet ($n1 of 5 records)" test "$n1" -eq 0

# ---- PostgreSQL 15: an idle root blocker ----
$P -qc "SET client_min_messages = warning; DROP TABLE IF EXISTS fd_t; CREATE TABLE fd_t (id int PRIMARY KEY, v int); INSERT INTO fd_t VALUES (1, 0)" >/dev/null
PGC="$P -qAt"
# the blocker idles 10 s before the watch: on a host whose CPUs are busy
# (a client there may itself wait seconds for a CPU) the bar is 10 s and
# the finding a warning that says the CPUs are busy; critical otherwise
sess a 30 "$PGC" "SELECT pg_backend_pid();" "BEGIN;" "UPDATE fd_t SET v = v + 1 WHERE id = 1;"
getid a
sess b 30 "$PGC" "SELECT pg_backend_pid();" "SET lock_timeout = '25s';" "UPDATE fd_t SET v = v + 1 WHERE id = 1;"
getid b
sleep 10
"$DBTOP" --batch --count 3 --interval 1 --format json "$DBTOP_PG15_URI" >"$tmp/pg1.json" 2>/dev/null
BUSY='(.host_load.busy == true or ((.host_load.cpu_pressure_pct // 0) >= 50 and (.host_load.run_queue // 0) > (.host_load.cpus // 99)))'
echo "# pg15 idle blocker: $(jq -sc "[.[] | {busy: $BUSY, ib: [.findings[]? | select(.id == \"idle-root-blocker\") | .severity]}]" "$tmp/pg1.json")"
check "pg15: idle-root-blocker fires on the session idle in its transaction (${sid[a]}): critical, or on a busy host a warning that says the CPUs are busy" \
    jq -se --arg a "${sid[a]}" "[.[] | $BUSY as \$busy | .findings[]? | select(.id == \"idle-root-blocker\") | . + {busy: \$busy}] | length > 0 and all(.[]; (.summary | test(\"session \" + \$a)) and (.severity == \"critical\" or (.busy and .severity == \"warning\" and (.evidence | test(\"CPUs are busy\")))))" "$tmp/pg1.json"
$P -qAtc "SELECT pg_terminate_backend(${sid[a]})" >/dev/null
sleep 1.5
"$DBTOP" --batch --count 2 --interval 1 --format json "$DBTOP_PG15_URI" >"$tmp/pg2.json" 2>/dev/null
check "pg15: quiet once the blocker is gone" bash -c '! grep -q idle-root-blocker "$1"' _ "$tmp/pg2.json"
sessions_kill

# ---- PostgreSQL 15: WAL writer flushing often for asynchronous commits (seed 004) ----
$P -qc "ALTER ROLE postgres SET synchronous_commit = off" >/dev/null
$P -qc "ALTER SYSTEM SET wal_writer_delay = '10ms'" >/dev/null
$P -qc "SELECT pg_reload_conf()" >/dev/null
tests/load.sh pgbench pg15 --rate 300 --time 12 --clients 4 2>/dev/null &
lp=$!
sleep 2
"$DBTOP" --batch --count 4 --interval 1 --format json "$DBTOP_PG15_URI" >"$tmp/pg3.json" 2>/dev/null
$P -qc "ALTER SYSTEM SET wal_writer_delay = '1000ms'" >/dev/null
$P -qc "SELECT pg_reload_conf()" >/dev/null
sleep 1
"$DBTOP" --batch --count 4 --interval 1 --format json "$DBTOP_PG15_URI" >"$tmp/pg4.json" 2>/dev/null
wait "$lp"
w1=$(ids "$tmp/pg3.json" | grep -c wal-writer-busy)
check "pg15 async commits, wal_writer_delay=10ms: wal-writer-busy fires ($w1 of 4)" test "$w1" -ge 2
check "pg15: its evidence gives the syncs and the delay" \
    jq -se '[.[] | .findings[]? | select(.id == "wal-writer-busy")] | length > 0 and all(.[]; (.evidence | test("WAL syncs/s")) and (.evidence | test("wal_writer_delay=10ms")))' "$tmp/pg3.json"
check "pg15: its remedy is the wal_writer_delay row's: 1s, with the row's SQL" \
    jq -se '[.[] | .findings[]? | select(.id == "wal-writer-busy")] | length > 0 and all(.[]; .setting == "wal_writer_delay" and .value == "1s" and (.suggestion | test("ALTER SYSTEM SET wal_writer_delay = .1s.; SELECT pg_reload_conf")))' "$tmp/pg3.json"
w2=$(ids "$tmp/pg4.json" | tail -n 2 | grep -c wal-writer-busy)
check "pg15 wal_writer_delay=1000ms: quiet ($w2 of the last 2)" test "$w2" -eq 0
check "findings JSON: every finding has id, severity, summary, evidence, suggestion" \
    jq -se '[.[] | .findings[]?] | all(.[]; (.id | type == "string") and (.severity | IN("info", "warning", "critical")) and (.summary | length > 0) and (.evidence | length > 0) and (.suggestion | length > 0))' \
    "$tmp/pg1.json" "$tmp/pg3.json"
done_tests
