# Forecast against outcome on MariaDB (issue 36): fsyncs made 4 ms slower by
# the shim (tests/tools/slowsync.c) on one log only, sysbench
# oltp_write_only with 16 threads, innodb_flush_log_at_trx_commit=1 and
# sync_binlog=1; a dbtop --batch watching while the remedy flush=2 is set
# (by the client: the model follows any change of a screen-5 setting to its
# remedy, dbtop's or not).
# 1. the redo log slow (seed 000): the redo sync leaves COMMIT, redo fsyncs
#    fall: tuning.outcome says met.
# 2. the binlog slow, its file instrument off (dbtop cannot time the binlog
#    sync, so the redo sync is estimated from the whole COMMIT: a wrong
#    diagnosis): flush=2 takes out only the fast redo sync, COMMIT does not
#    fall as forecast: tuning.outcome says missed, with both figures.
# 3. both logs slow (seed 000 with both syncs): flush=2, then sync_binlog=0
#    once the first outcome is in: each remedy's outcome is met, each
#    logged once.
# 4. PostgreSQL 15, the WAL writer (seed 004): synchronous_commit=off and
#    wal_writer_delay=10ms under pgbench; wal_writer_delay=1s set under a
#    watching dbtop --batch: WAL syncs/s fall to about one a second, the
#    outcome is met. It runs beside case 1 (its own server, load and dbtop).
# No timing is asserted: each run compares its own figures before and after.
. tests/lib.sh
tmp=$(mktemp -d)
M=$DBTOP_MARIADB_CLIENT
P=$DBTOP_PG15_PSQL
shim=build/tests/slowsync.so
slowed=
lp=
pgp=
cleanup() {
    [ -n "$lp" ] && kill "$lp" 2>/dev/null
    [ -n "$pgp" ] && kill "$pgp" 2>/dev/null
    [ -f "$tmp/pg.pids" ] && kill $(cat "$tmp/pg.pids") 2>/dev/null
    [ -n "$slowed" ] && tests/sandbox.sh restart mariadb >/dev/null 2>&1
    $M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1" 2>/dev/null
    $P -qc "ALTER SYSTEM RESET synchronous_commit" -qc "ALTER SYSTEM RESET wal_writer_delay" \
        -qc "SELECT pg_reload_conf()" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

instrument() {
    $M -e "UPDATE performance_schema.setup_instruments SET ENABLED='$1', TIMED='$1' WHERE NAME='wait/io/file/sql/binlog'"
}
# run NAME FILES INSTRUMENT [SECOND]: the shim on FILES ("": every file),
# the binlog instrument YES / NO; 53 s of load, 42 records of dbtop
# --batch, flush=2 set after 12 s; SECOND: sync_binlog=0 set 12 s later
# (its outcome needs 8 intervals after the change is seen: 34 records
# ended too soon for it on a busy host)
run() {
    slowed=1
    DBTOP_SERVER_PRELOAD=$shim DBTOP_SLOWSYNC_MS=4 DBTOP_SLOWSYNC_FILES=$2 tests/sandbox.sh restart mariadb >/dev/null 2>&1
    $M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1"
    instrument "$3"
    tests/load.sh sysbench mariadb --rate 600 --time 53 --threads 16 2>/dev/null &
    lp=$!
    sleep 1
    "$DBTOP" --batch --count 42 --interval 1 --format json "$DBTOP_MARIADB_URI" >"$tmp/$1.json" 2>/dev/null &
    local mon=$!
    sleep 12
    $M -e "SET GLOBAL innodb_flush_log_at_trx_commit=2"
    if [ -n "${4:-}" ]; then
        sleep 12
        $M -e "SET GLOBAL sync_binlog=0"
    fi
    wait "$mon"
    kill "$lp" 2>/dev/null
    wait "$lp" 2>/dev/null
    lp=
    $M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1"
}
# outcome FILE: the last record's tuning.outcome
outcome() { jq -s -c '[.[] | .tuning.outcome | select(. != null)] | last' "$1"; }

[ -f "$shim" ] || make -s CI=1 "$shim" >/dev/null 2>&1
check "the slow-sync shim is built ($shim)" test -f "$shim"

# 4. PostgreSQL, beside the MariaDB runs (its own server, load and dbtop;
# the pids in $tmp/pg.pids for the cleanup; its lines follow theirs)
pg_part() {
    $P -qc "ALTER SYSTEM SET synchronous_commit = off" -qc "ALTER SYSTEM SET wal_writer_delay = '10ms'" \
        -qc "SELECT pg_reload_conf()" >/dev/null
    tests/load.sh pgbench pg15 --rate 300 --time 45 --clients 4 2>/dev/null &
    plp=$!
    echo "$plp" >"$tmp/pg.pids"
    sleep 1
    "$DBTOP" --batch --count 34 --interval 1 --format json "$DBTOP_PG15_URI" >"$tmp/pg.json" 2>/dev/null &
    mon=$!
    echo "$mon" >>"$tmp/pg.pids"
    sleep 10
    $P -qc "ALTER SYSTEM SET wal_writer_delay = '1s'" -qc "SELECT pg_reload_conf()" >/dev/null
    wait "$mon"
    kill "$plp" 2>/dev/null
    wait "$plp" 2>/dev/null
    $P -qc "ALTER SYSTEM RESET synchronous_commit" -qc "ALTER SYSTEM RESET wal_writer_delay" -qc "SELECT pg_reload_conf()" >/dev/null
    o=$(outcome "$tmp/pg.json")
    echo "# pg15 async commits, wal_writer_delay 10ms -> 1s: $o"
    check "pg15: the outcome is of wal_writer_delay 10ms -> 1s" \
        jq -e '.setting == "wal_writer_delay" and .from == "10ms" and .to == "1s" and (has("scope") | not)' <<<"$o"
    check "pg15: a forecast of the WAL syncs was made ($(jq -r .forecast <<<"$o"))" \
        jq -e '.figures | length == 1 and .[0].metric == "wal_syncs_per_s"' <<<"$o"
    check "pg15: the outcome is met ($(jq -r .text <<<"$o"))" jq -e '.state == "met"' <<<"$o"
    check "pg15: WAL syncs/s fell (before > after, both measured)" \
        jq -e '.figures[0].after != null and .figures[0].before > .figures[0].after' <<<"$o"
    n=$(jq -s '[.[] | .events[]? | select(.kind == "forecast")] | length' "$tmp/pg.json")
    check "pg15: the outcome logged once as a forecast event ($n)" test "$n" = 1
}
pg_part >"$tmp/pg.out" 2>&1 &
pgp=$!

run redo ib_logfile YES
o=$(outcome "$tmp/redo.json")
echo "# redo log 4 ms slower, flush=2: $o"
check "redo slow: the outcome is of innodb_flush_log_at_trx_commit 1 -> 2" \
    jq -e '.setting == "innodb_flush_log_at_trx_commit" and .from == "1" and .to == "2"' <<<"$o"
check "redo slow: a forecast was made ($(jq -r .forecast <<<"$o"))" jq -e '.figures | length == 2' <<<"$o"
check "redo slow: the outcome is met ($(jq -r .text <<<"$o"))" jq -e '.state == "met"' <<<"$o"
check "redo slow: COMMIT fell (before > after, both measured)" \
    jq -e '.figures[0].metric == "commit_avg_ms" and .figures[0].after != null and .figures[0].before > .figures[0].after' <<<"$o"
n=$(jq -s '[.[] | .events[]? | select(.kind == "forecast")] | length' "$tmp/redo.json")
check "redo slow: the outcome logged once as a forecast event ($n)" test "$n" = 1

run binlog mariadb-bin NO
o=$(outcome "$tmp/binlog.json")
echo "# binlog 4 ms slower, its instrument off, flush=2: $o"
check "binlog slow: a forecast was made ($(jq -r .forecast <<<"$o"))" jq -e '.figures | length == 2' <<<"$o"
# The wrong diagnosis shows as a COMMIT that does not fall as forecast. On a
# busy host the redo fsync taken out of every commit also frees CPU time, and
# COMMIT may fall by some of it: an outcome within 5 % of the forecast's top
# is too close to call (the 78b run beside a CI run: 9.8 -> 8.8 ms against at
# most 8.8), said with its figures instead of judged.
# On a host dbtop finds busy the premise does not hold: the redo sync is
# itself stretched by the waits for a CPU (3.7-4.2 ms beside stress-ng
# on both cores, against 1.8 ms), and its 300 syncs a second taken out free
# CPU time for the rest of COMMIT (18.3 -> 11.5 ms against at most 16.2):
# a met outcome there is skipped with its figures, never passed.
busy=$(jq -s '[.[] | select(.host_load.busy)] | length' "$tmp/binlog.json")
nrec=$(jq -s length "$tmp/binlog.json")
if jq -e '.state == "met" and .figures[0].metric == "commit_avg_ms" and .figures[0].after != null and
        .figures[0].after >= 0.95 * .figures[0].hi' <<<"$o" >/dev/null; then
    echo "ok - binlog slow, flush=2 applied: the outcome is missed # SKIP COMMIT at the edge of its range, too close to call: $(jq -r .text <<<"$o")"
    echo "ok - binlog slow: the COMMIT figure is the one outside its range # SKIP as above"
elif jq -e '.state == "met"' <<<"$o" >/dev/null && [ $((busy * 2)) -ge "$nrec" ]; then
    echo "ok - binlog slow, flush=2 applied: the outcome is missed # SKIP the host was busy in $busy of $nrec records, where the redo sync is not the fast one the case needs: $(jq -r .text <<<"$o")"
    echo "ok - binlog slow: the COMMIT figure is the one outside its range # SKIP as above"
else
    check "binlog slow, flush=2 applied: the outcome is missed ($(jq -r .text <<<"$o"))" jq -e '.state == "missed"' <<<"$o"
    check "binlog slow: the COMMIT figure is the one outside its range" \
        jq -e '.figures[0].metric == "commit_avg_ms" and .figures[0].after > .figures[0].hi' <<<"$o"
fi
instrument YES

run both "" YES second
ev=$(jq -s -c '[.[] | .events[]? | select(.kind == "forecast")]' "$tmp/both.json")
echo "# both logs 4 ms slower, flush=2 then sync_binlog=0: $(jq -r '.[] | .detail' <<<"$ev")"
check "both slow: one forecast event for each remedy, flush first" \
    jq -e 'length == 2 and .[0].setting == "innodb_flush_log_at_trx_commit" and .[1].setting == "sync_binlog"' <<<"$ev"
# With both logs slow the commits still queue on the binlog's sync after
# flush=2. On a host dbtop finds busy (the run beside stress-ng on both
# cores: COMMIT 17.5 -> 16.2 ms against at most 14.6) that queue and the
# CPU waits keep most of the time the redo sync took, so there a COMMIT
# outside its range is accepted when COMMIT still fell and the redo syncs
# fell as forecast; the forecast's own miss is left in the message.
busy=$(jq -s '[.[] | select(.host_load.busy)] | length' "$tmp/both.json")
nrec=$(jq -s length "$tmp/both.json")
if jq -e '.[0].outcome == "met"' <<<"$ev" >/dev/null; then
    ok "both slow: flush=2's outcome is met ($(jq -r '.[0].detail' <<<"$ev"))"
elif [ $((busy * 2)) -ge "$nrec" ]; then
    check "both slow: flush=2's outcome is met, or on a host dbtop finds busy ($busy of $nrec records) COMMIT fell and the redo syncs as forecast ($(jq -r '.[0].detail' <<<"$ev"))" \
        jq -e '.[0].detail | test("redo fsyncs/s [0-9.]+ -> [0-9.]+ \\(forecast [0-9.]+-[0-9.]+\\)") and (capture("COMMIT (?<a>[0-9.]+) -> (?<b>[0-9.]+)") | (.b | tonumber) < (.a | tonumber))' <<<"$ev"
else
    nok "both slow: flush=2's outcome is met (busy in $busy of $nrec records: $(jq -r '.[0].detail' <<<"$ev"))"
fi
check "both slow: then sync_binlog=0's outcome is met" jq -e '.[1].outcome == "met"' <<<"$ev"

# PostgreSQL's part (4), run beside the first MariaDB run
wait "$pgp"
pgp=
merge_part "$tmp/pg.out"

done_tests
