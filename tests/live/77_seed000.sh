# Seed 000 as a new user meets it (issue 25): MariaDB whose fsyncs take
# 4 ms (tests/tools/slowsync.c preloaded into mariadbd), sysbench
# oltp_write_only with 16 threads, innodb_flush_log_at_trx_commit=1 and
# sync_binlog=1, once with plain statements and once with server-side
# prepared statements (which get no digest row on MariaDB): the
# commit-fsync finding fires, COMMIT (digest or sampled estimate) leads,
# none of dbtop's own statements is ranked, digests_coverage reports the
# gap of the prepared case. The same loads on the fast disk: no finding.
# Then, prepared, the remedies from screen 5 (flush=2, then sync_binlog=0
# with its risk shown): COMMIT falls and the finding clears.
. tests/lib.sh
tui_init s0
M=$DBTOP_MARIADB_CLIENT
shim=build/tests/slowsync.so
slowed=
lp=
cleanup() {
    tui_stop
    [ -n "$slowed" ] && tests/sandbox.sh restart mariadb >/dev/null 2>&1
    $M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# what dbtop itself sends (only to check that none of it is ranked)
OWN='performance_schema|information_schema|SET STATEMENT|SHOW GLOBAL|@@|CONNECTION_ID'
flat() { T capture-pane -p -t s | tr -s ' \n' ' '; }
myv() { $M -N -e "SELECT @@GLOBAL.$1"; }
value_is() {
    local i
    for ((i = 0; i < $3 * 10; i++)); do
        [ "$($1)" = "$2" ] && return 0
        sleep 0.1
    done
    return 1
}
plus() { awk -v t="$1" -v s="$2" 'BEGIN { printf "%.3f", t + s }'; }
# n_where FILE FILTER: records from the fifth on where FILTER holds / all of them
# (prepared statements are sampled once two reads of the statement summaries
# show them, paced by their server time: 3-5 s into a run on a loaded machine)
n_where() { jq -s -r ".[4:] | \"\([.[] | select($2)] | length)/\(length)\"" "$1"; }
most() { awk -v s="$1" 'BEGIN { split(s, p, "/"); exit !(p[2] > 0 && p[1] >= 0.8 * p[2]) }'; }
FIRES='[.findings[]?.id] | index("commit-fsync")'
# on a host whose CPUs are saturated (both cores held by other work) a
# sync 4-5 ms above a fast device is within what the host can add: there
# the product keeps the durability setting back, says commit-host-cpu and
# names the sync's own layer as possibly part of it (never on an idle host)
BAND='.host_load.busy == true and ([.findings[]? | select(.id == "commit-host-cpu" and (.evidence | test("slow sync layer may be part of it")))] | length > 0)'
LEADS='(.digests[0].text // "") | test("^COMMIT")'
OWNED="[.digests[]?.text | select(test(\"$OWN\"))] | length > 0"
# commit_est FILE FROM TO: mean COMMIT latency, ms: the digest's average, or
# for a sampled estimate sessions in COMMIT / commits per second
commit_est() {
    jq -s --argjson a "$2" --argjson b "$3" '[.[] | select(.ts > $a and .ts < $b) | . as $r |
        [.digests[]? | select(.text | test("^COMMIT")) |
            if .estimate then (if ($r.rates.commits_per_s // 0) > 0 then .total_ms_per_s / $r.rates.commits_per_s else null end) else .avg_ms end] |
        # no session seen in COMMIT this read (short commits): the
        # commit latency of the rates pane, pooled over the last reads
        if length > 0 then .[] elif $r.rates.commit_avg_ms_estimate then $r.rates.commit_avg_ms else null end |
        select(. != null)] | if length == 0 then null else add / length end' "$1"
}
# run NAME [--ps]: 16 threads, at most 600 transactions/s for 14 s, 10 records of dbtop --batch
run() {
    local name=$1
    shift
    $M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1"
    tests/load.sh sysbench mariadb --rate 600 --time 14 --threads 16 "$@" 2>/dev/null &
    lp=$!
    sleep 1
    "$DBTOP" --batch --count 12 --interval 1 --format json --top 10 "$DBTOP_MARIADB_URI" >"$tmp/$name.json" 2>/dev/null
    wait "$lp"
    lp=
}

[ -f "$shim" ] || make -s CI=1 "$shim" >/dev/null 2>&1
check "the slow-sync shim is built ($shim)" test -f "$shim"

# ---- the sandbox's fast disk: no finding ----
tests/sandbox.sh restart mariadb >/dev/null 2>&1   # without a shim another test may have left
for mode in plain ps; do
    run "fast-$mode" $([ $mode = ps ] && echo --ps)
    f=$(n_where "$tmp/fast-$mode.json" "$FIRES")
    echo "# fast disk, $mode: $(mean "$tmp/fast-$mode.json" '.rates.commits_per_s') commits/s, commit-fsync in $f records"
    check "fast disk, $mode statements: the load committed ($(mean "$tmp/fast-$mode.json" '.rates.commits_per_s')/s)" \
        ge "$(mean "$tmp/fast-$mode.json" '.rates.commits_per_s')" 100
    # the sandbox's disk is fast unless other work on the host makes its syncs slow (then
    # the finding is true): none in a record that, with the two before it, stayed below the
    # finding's bar (tests/lib.sh: unfounded)
    check "fast disk, $mode statements: no commit-fsync warning below the bar ($f records with it, $(slowsync "$tmp/fast-$mode.json") at or above the bar, $(unfounded "$tmp/fast-$mode.json") with it below)" \
        test "$(unfounded "$tmp/fast-$mode.json")" = 0
done

# ---- fsyncs 4 ms slower ----
slowed=1
DBTOP_SERVER_PRELOAD=$shim DBTOP_SLOWSYNC_MS=4 tests/sandbox.sh restart mariadb >/dev/null 2>&1
for mode in plain ps; do
    J=$tmp/slow-$mode.json
    run "slow-$mode" $([ $mode = ps ] && echo --ps)
    f=$(n_where "$J" "$FIRES")
    b=$(n_where "$J" "$BAND")
    fb=$(n_where "$J" "($FIRES) or ($BAND)")
    l=$(n_where "$J" "$LEADS")
    o=$(n_where "$J" "$OWNED")
    echo "# 4 ms fsyncs, $mode: $(mean "$J" '.rates.commits_per_s') commits/s, $(mean "$J" '.rates.fsyncs_per_commit') fsyncs/commit," \
        "COMMIT $(commit_est "$J" 0 1e12) ms, digests_coverage $(mean "$J" '.digests_coverage.share'), commit-fsync in $f, COMMIT first in $l," \
        "host saturated with the sync layer named in $b, server waits for a CPU $(mean "$J" '.host_load.server_cpu_wait_pct') %"
    check "4 ms fsyncs, $mode statements: commit-fsync (or, the CPUs saturated by other work, commit-host-cpu naming the sync layer) in >= 80% of the records ($f fsync, $b host)" most "$fb"
    check "4 ms fsyncs, $mode statements: COMMIT leads the digests in >= 80% of the records ($l)" most "$l"
    check "4 ms fsyncs, $mode statements: none of dbtop's own statements is ranked (in $o records)" test "${o%%/*}" = 0
done
check "plain statements: the digests cover the statements (digests_coverage.share >= 0.8)" \
    ge "$(mean "$tmp/slow-plain.json" '.digests_coverage.share')" 0.8
c=$(n_where "$tmp/slow-ps.json" '.digests_coverage.low == true and (.digests_coverage.reason // "" | test("prepared"))')
check "prepared statements: digests_coverage reports the gap and names prepared statements ($c records)" most "$c"
e=$(n_where "$tmp/slow-ps.json" '[.digests[]? | select(.estimate and (.text | test("^COMMIT")))] | length > 0')
check "prepared statements: COMMIT is a sampled estimate, labelled so ($e records)" most "$e"
worst=$(jq -s -r '[.[] | select(.digests_coverage != null and .digests_coverage.prepared_ms_per_s != null) |
    {e: ([.digests[]? | select(.estimate) | .total_ms_per_s] | add // 0), p: .digests_coverage.prepared_ms_per_s, a: .digests_coverage.age_s}] |
    max_by(.e - .p * 1.5) // {} | "the worst record: estimates \(.e // "-") ms/s, prepared \(.p // "-") ms/s, the summary \(.a // "-") s old"' "$tmp/slow-ps.json")
check "prepared statements: the estimates stay within the measured time of the prepared statements ($worst)" \
    jq -se '[.[] | select(.digests_coverage != null and .digests_coverage.prepared_ms_per_s != null) |
        ([.digests[]? | select(.estimate) | .total_ms_per_s] | add // 0) <= .digests_coverage.prepared_ms_per_s * 1.5 + 1] | all' "$tmp/slow-ps.json"

# ---- prepared, the remedies from screen 5 ----
# ask SETTING FROM TO [ROW]: 5, (ROW: Home, then Down ROW times), a: the
# confirmation changes SETTING from FROM to TO; y
ask() {
    local i
    T send-keys -t s 0
    sleep 0.3
    T send-keys -t s 5
    wait_re "^setting +now" 5 || return 1
    if [ -n "${4:-}" ]; then
        T send-keys -t s Home
        for ((i = 0; i < $4; i++)); do T send-keys -t s Down; done
        sleep 0.3
    fi
    T send-keys -t s a
    wait_re "Change this setting\?" 4 || return 1
    flat | grep -qE "SET $1 from $2 to $3([ ,.]|\$)" || return 1
    flat >"$tmp/confirm-$1"
    T send-keys -t s y
}
J=$tmp/remedy.json
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1"
tests/load.sh sysbench mariadb --rate 600 --time 40 --threads 16 --ps 2>/dev/null &
lp=$!
T new-session -d -s s -x 120 -y 40 "exec $DBTOP --interval 1 --connect-timeout 2 --record $tmp/remedy.dbrec \"$DBTOP_MARIADB_ADMIN_URI\" 2>$tmp/err"
# (on a host saturated by other work: commit-host-cpu naming the sync
# layer, checked in the recording below)
if wait_re "commits wait on fsync|commits are slow, but not from the disk" 20; then ok "prepared, 4 ms fsyncs: the finding is on screen"; else nok "prepared: no finding on screen: $(screen)"; fi
sleep 4
t1=$(date +%s.%N)
if ask innodb_flush_log_at_trx_commit 1 2; then ok "prepared: 5, a sets innodb_flush_log_at_trx_commit from 1 to 2"; else nok "prepared: a: $(screen)"; fi
value_is "myv innodb_flush_log_at_trx_commit" 2 5
t2=$(date +%s.%N)
sleep 8
t3=$(date +%s.%N)
# the finding names sync_binlog once COMMIT is still slow: its row, chosen
# here whatever the finding says at this moment (COMMIT is near the line)
if ask sync_binlog 1 0 1; then ok "prepared: then 5, a on sync_binlog sets it from 1 to 0"; else nok "prepared: second a: $(screen)"; fi
check "prepared: the sync_binlog confirmation shows its risk" grep -qiE "risk:? .*(crash|lose|lost)" "$tmp/confirm-sync_binlog"
value_is "myv sync_binlog" 0 5
t4=$(date +%s.%N)
sleep 8
t5=$(date +%s.%N)
T send-keys -t s q
if value_is "myv innodb_flush_log_at_trx_commit" 1 5 && value_is "myv sync_binlog" 1 3; then ok "prepared: q reverted both"; else nok "prepared: after q: $(myv innodb_flush_log_at_trx_commit)/$(myv sync_binlog)"; fi
kill "$lp" 2>/dev/null
wait "$lp" 2>/dev/null
lp=
"$DBTOP" --replay "$tmp/remedy.dbrec" --batch --format json --speed 0 >"$J" 2>/dev/null
hb=$(jq -rs --argjson a "$t1" "[.[] | select(.ts < \$a and ([.findings[]?.id] | index(\"commit-host-cpu\")))] | \"\([.[] | select($BAND)] | length)/\(length)\"" "$J")
check "prepared: commit-host-cpu before the remedies only on a saturated host, naming the sync layer ($hb records)" \
    test "${hb%%/*}" = "${hb##*/}"
before=$(commit_est "$J" 0 "$t1")
mid=$(commit_est "$J" "$(plus "$t2" 2.5)" "$t3")
after=$(commit_est "$J" "$(plus "$t4" 2.5)" "$t5")
echo "# prepared, 4 ms fsyncs: COMMIT (sampled estimate) flush=1 sync_binlog=1 $before ms, flush=2 $mid ms, flush=2 sync_binlog=0 $after ms"
# the two remedies take both 4 ms syncs out of each commit group: COMMIT
# falls by half, or (a host saturated by other work keeps its CPU waits in
# every commit: 13.1 -> 7.2 ms beside a CI run) by one shim delay at least
check "prepared: the COMMIT latency fell with the remedies, by half or by 4 ms at least ($before -> $mid -> $after ms)" \
    awk -v b="$before" -v a="$after" 'BEGIN { exit !(b > 0 && a != "null" && (a <= b * 0.5 || b - a >= 4)) }'
late=$(jq -s --argjson a "$t4" --argjson b "$t5" '[.[] | select(.ts > $a + 3 and .ts < $b)] | [.[] | select([.findings[]?.id] | index("commit-fsync"))] | length' "$J")
check "prepared: the finding cleared within three intervals of the second a ($late records after)" test "$late" = 0

done_tests
