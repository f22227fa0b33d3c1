# Sampled digests under load stay physical: with N sessions, no interval
# shows more than N x 1000 ms/s (+10 %), the sampler keeps at least 2 Hz,
# and the top statement's share of time agrees (within 10 points) with what
# the exact source reports for the same load. PostgreSQL: a user who reaches
# only its own database, where pg_stat_statements is loaded but not created
# (pgbench -c 32); MariaDB: a user without performance_schema access
# (sysbench, 16 threads), against events_statements_summary_by_digest.
. tests/lib.sh
tmp=$(mktemp -d)
psql=$DBTOP_PG15_PSQL
hba=$DBTOP_SANDBOX_DIR/pg15/data/pg_hba.conf
M=$DBTOP_MARIADB_CLIENT
cp "$hba" "$tmp/hba"
cleanup() {
    cp "$tmp/hba" "$hba"
    $psql -qAtc "SELECT pg_reload_conf()" >/dev/null 2>&1
    $psql -qc "DROP DATABASE IF EXISTS dbtop_nopgss" -qc "DROP ROLE IF EXISTS dbtop_app" >/dev/null 2>&1
    $M -e "DROP USER IF EXISTS 'dbtop_sb'@'%'; DROP DATABASE IF EXISTS dbtop_sb56" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

# checks over FILE for engine NAME: the bound, the pace, the share against
# EXACT (the exact share of the statement whose text starts with KEY)
checks() {
    local name=$1 f=$2 key=$3 exact=$4
    check "$name: sampled digests in every record after the first" \
        jq -se '.[1:] | length > 3 and all(.[]; .digests_sampled != null)' "$f"
    # the per-record digest list is the top 20: the shares below add them up
    local worst
    worst=$(jq -rs '[.[1:][] | select(.digests_sampled.sessions > 0) | ([.digests[]?.total_ms_per_s] | add // 0) / (1000 * .digests_sampled.sessions)] | max // "null" | if . == "null" then . else (. * 1000 | round) / 1000 end' "$f")
    if awk -v w="$worst" 'BEGIN { exit !(w != "null" && w <= 1.1) }'; then
        ok "$name: total ms/s <= 1000 x sessions seen in every record (worst $worst of the bound)"
    else
        nok "$name: total ms/s over 1000 x sessions seen: worst $worst of the bound; $(jq -c '[.digests_sampled, ([.digests[]?.total_ms_per_s] | add)]' "$f" | tr '\n' ' ')"
    fi
    local hz
    hz=$(jq -rs '[.[1:][] | .digests_sampled.hz // empty] | sort | if length == 0 then null else .[length / 2 | floor] end' "$f")
    if ge "$hz" 2; then ok "$name: the sampler's median rate $hz Hz (>= 2)"; else nok "$name: the sampler's median rate $hz Hz"; fi
    check "$name: every sampled digest carries its sample count" \
        jq -se '[.[1:][] | .digests[]?] | length > 0 and all(.[]; (.samples | type == "number") and (.calls_lower_bound | type == "boolean"))' "$f"
    check "$name: no average where calls are only a lower bound" \
        jq -se '[.[] | .digests[]? | select(.calls_lower_bound)] | all(.[]; .avg_ms == null)' "$f"
    local share
    share=$(jq -rs --arg k "$key" '[.[1:][] | .digests[]?] as $d | ([$d[] | .total_ms_per_s] | add) as $all
        | ([$d[] | select(.text | ascii_downcase | startswith($k | ascii_downcase)) | .total_ms_per_s] | add // 0) as $top
        | if $all > 0 then ($top / $all * 1000 | round) / 10 else null end' "$f")
    if awk -v a="$share" -v b="$exact" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "null" && b != "" && d <= 10) }'; then
        ok "$name: '$key' takes $share % of the sampled time, $exact % by the exact source"
    else
        nok "$name: '$key' takes $share % of the sampled time, ${exact:-?} % by the exact source"
    fi
}

# ---- PostgreSQL 15: pg_stat_statements loaded, not in this database ----
$psql -qc "DROP DATABASE IF EXISTS dbtop_nopgss" -qc "DROP ROLE IF EXISTS dbtop_app" \
    -qc "CREATE ROLE dbtop_app LOGIN PASSWORD 'apppw' IN ROLE pg_monitor" \
    -qc "CREATE DATABASE dbtop_nopgss OWNER dbtop_app" >/dev/null 2>&1
# the application's user reaches its own database only
{
    echo "host dbtop_nopgss dbtop_app 127.0.0.1/32 scram-sha-256"
    echo "host all dbtop_app 127.0.0.1/32 reject"
    cat "$tmp/hba"
} >"$hba"
$psql -qAtc "SELECT pg_reload_conf()" >/dev/null
pgb=(/usr/bin/pgbench -h "$DBTOP_PG15_SOCKET" -p "$DBTOP_PG15_PORT" -U postgres dbtop_nopgss)
"${pgb[@]}" -i -q -s 2 >"$tmp/pgbi" 2>&1
$psql -qAtc "SELECT pg_stat_statements_reset()" >/dev/null
timeout 60 "${pgb[@]}" -n -c 32 -j 2 -T 22 >"$tmp/pgb" 2>&1 &
bp=$!
sleep 3
timeout 60 "$DBTOP" --batch --count 15 --interval 1 --format json \
    "postgresql://dbtop_app:apppw@127.0.0.1:$DBTOP_PG15_PORT/dbtop_nopgss" >"$tmp/pg.json" 2>"$tmp/pg.err"
wait "$bp"
exact=$($psql -qAtc "SELECT round((100 * sum(total_exec_time) FILTER (WHERE query ILIKE 'UPDATE pgbench_branches%')
    / nullif(sum(total_exec_time), 0))::numeric, 1) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
    WHERE d.datname = 'dbtop_nopgss'")
check "pg15: the note says the extension is missing in this database only" \
    jq -se 'any(.[0].notes[]; test("loaded but not created in database dbtop_nopgss.*CREATE EXTENSION pg_stat_statements in dbtop_nopgss"))' "$tmp/pg.json"
checks pg15 "$tmp/pg.json" "UPDATE pgbench_branches" "$exact"
check "pg15: literals normalised in sampled texts" \
    jq -se '[.[] | .digests[]?] | length > 0 and all(.[]; .text | test("[0-9]{2}") | not)' "$tmp/pg.json"
check "pg15: the source says sampled and at what rate" \
    jq -se 'any(.[1:][]; .digests_source | test("^sampled pg_stat_activity at [0-9.]+ Hz$"))' "$tmp/pg.json"
check "pg15: the locks pane's source says what the sampler saw of lock waits" \
    jq -se 'any(.[1:][]; (.lock_waits_profile // "") | test("sessions sampled waiting on locks"))' "$tmp/pg.json"

# ---- MariaDB: no performance_schema access, sampled process list ----
$M -e "DROP USER IF EXISTS 'dbtop_sb'@'%'; CREATE USER 'dbtop_sb'@'%' IDENTIFIED BY 'sbpw'; GRANT PROCESS ON *.* TO 'dbtop_sb'@'%'"
sb=(sysbench oltp_read_write --db-driver=mysql --mysql-socket="$DBTOP_SANDBOX_DIR/mariadb/mysqld.sock"
    --mysql-user=dbtop_admin --mysql-password=adminpw --mysql-db=dbtop_sb56 --tables=2 --table-size=2000
    --db-ps-mode=disable)
# its own database: the sbtest1 other tests keep in dbtop_test stays theirs
$M -e "DROP DATABASE IF EXISTS dbtop_sb56; CREATE DATABASE dbtop_sb56"
"${sb[@]}" prepare >"$tmp/sbp" 2>&1
$M -e "TRUNCATE performance_schema.events_statements_summary_by_digest" 2>/dev/null
timeout 60 "${sb[@]}" --threads=16 --time=22 run >"$tmp/sb" 2>&1 &
bp=$!
sleep 3
timeout 60 "$DBTOP" --batch --count 15 --interval 1 --format json \
    "mysql://dbtop_sb:sbpw@127.0.0.1:$DBTOP_MARIADB_PORT/" >"$tmp/my.json" 2>"$tmp/my.err"
wait "$bp"
# the statement with the most time by the exact source (its first two
# words), and the share of the digests that start so
dg="FROM performance_schema.events_statements_summary_by_digest WHERE SCHEMA_NAME = 'dbtop_sb56'"
mkey=$($M -N -e "SELECT TRIM(SUBSTRING_INDEX(REPLACE(DIGEST_TEXT, '\`', ''), ' ', 2)) $dg ORDER BY SUM_TIMER_WAIT DESC LIMIT 1")
mexact=$($M -N -e "SELECT ROUND(100 * SUM(IF(REPLACE(DIGEST_TEXT, '\`', '') LIKE CONCAT('$mkey', '%'), SUM_TIMER_WAIT, 0))
    / SUM(SUM_TIMER_WAIT), 1) $dg")
checks mariadb "$tmp/my.json" "${mkey:-COMMIT}" "$mexact"
grep -q "transactions:" "$tmp/sb" || nok "mariadb: sysbench did not run: $(tail -n 3 "$tmp/sb" "$tmp/sbp" | tr '\n' ' ')"
done_tests
