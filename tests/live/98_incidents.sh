# The incident capture (issue 35, docs/incidents.md): dbtop --no-screen
# --incidents DIR with nobody watching.
#  A. MariaDB under a sysbench load (sync_binlog=1, the redo log left to
#     innodb_flush_log_at_trx_commit=2); the binary log's syncs 20 ms slower
#     for 20 s in the middle (tests/tools/slowsync.c, switched by a file;
#     switched off they return at once: a fast disk whatever the host does):
#     exactly one incident file; its replay opens at the trigger, shows the
#     commit-fsync finding, COMMIT on top, and the seconds before the
#     slowdown; the summary names the trigger and its evidence; /metrics
#     counts it and names the file.
#  B. PostgreSQL: an idle-in-transaction root blocker and two waiters: an
#     incident whose summary names the root blocker.
#  C. The same server stopped for 10 s: a DOWN incident, written although
#     the server gave no sample meanwhile.
#  D. --incidents-max-mb 1: the oldest files go first, the newest is whole.
#  E. A full disk (a small tmpfs): sampling and /metrics go on, the error
#     is said once.
#  F. kill -9 while an incident is being written: it replays up to its
#     last whole record.
# Short windows (-i 0.5, --before / --after of seconds) keep it near 3 min.
# DBTOP_98_PARTS="A B" runs those parts only (C needs B's service).
. tests/lib.sh
. tests/sessions.sh
tmp=$(mktemp -d)
M=$DBTOP_MARIADB_CLIENT
P15="$DBTOP_PG15_PSQL -At"
LPORT=${DBTOP_LISTEN_PORT:-38160}   # (95_metrics uses 38150-38153)
shim=build/tests/slowsync.so
switch=${DBTOP_SANDBOX_DIR:-${TMPDIR:-/tmp}/dbtop-sandbox}/slowsync-on
svc= lp= mnt= pa=
export XDG_STATE_HOME=$tmp/state TZ=UTC
cleanup() {
    [ -n "$svc" ] && kill "$svc" 2>/dev/null
    [ -n "$lp" ] && kill "$lp" 2>/dev/null
    sessions_kill
    rm -f "$switch"
    [ -n "$pa" ] && kill "$pa" 2>/dev/null
    [ -f "$tmp/A.pids" ] && kill $(cat "$tmp/A.pids") 2>/dev/null
    [ -e "$tmp/A.slowed" ] && tests/sandbox.sh restart mariadb >/dev/null 2>&1
    $M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1" 2>/dev/null
    tests/sandbox.sh status >/dev/null 2>&1 || tests/sandbox.sh start pg15 >/dev/null 2>&1
    [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
    wait 2>/dev/null
    [ -n "${DBTOP_KEEP_TMP:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
T0=$(date +%s)
# service NAME URI ARGS...: dbtop --no-screen --incidents $tmp/NAME in the background ($svc)
service() {
    local name=$1 uri=$2
    shift 2
    mkdir -p "$tmp/$name"
    "$DBTOP" --no-screen --incidents "$tmp/$name" -i 0.5 "$@" "$uri" 2>"$tmp/$name.err" &
    svc=$!
}
# stop_service: SIGTERM, wait (<= 10 s)
stop_service() {
    kill -TERM "$svc" 2>/dev/null
    timeout 10 tail --pid="$svc" -f /dev/null
    wait "$svc" 2>/dev/null
    svc=
}
metrics() { curl -s "127.0.0.1:$LPORT/metrics"; }
# files DIR: the incident files in DIR
files() { ls "$1"/*.dbrec 2>/dev/null; }
# wait_for SECONDS CMD...: poll until CMD succeeds
wait_for() {
    local i
    for ((i = 0; i < $1 * 10; i++)); do
        "${@:2}" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    return 1
}
nfiles_is() { [ "$(files "$1" | wc -l)" = "$2" ]; }
status_is() { grep -q "^status: $2" "${1%.dbrec}.txt"; }
replay_json() { "$DBTOP" --replay "$1" --batch --format json --speed 0 2>"$2.err" >"$2"; }

part() { [[ " ${DBTOP_98_PARTS:-A B C D E} " == *" $1 "* ]]; }

# ---- the command line, before any connection ----
"$DBTOP" --no-screen --incidents "$tmp/cli" --trigger 'lock waiters >= nope' mysql://u@127.0.0.1:1/ >/dev/null 2>"$tmp/cli.err"
check "a bad --trigger: exit 2 before any connection, the reason named" \
    bash -c "[ $? = 2 ] && grep -q 'bad trigger .lock waiters >= nope.: a number' '$tmp/cli.err' && ! grep -qi connect '$tmp/cli.err'"
"$DBTOP" --incidents "$tmp/cli" mysql://u@127.0.0.1:1/ >/dev/null 2>"$tmp/cli.err"
check "--incidents with a server but no --no-screen / --batch: exit 2 (the screen keeps its own history)" \
    bash -c "[ $? = 2 ] && grep -q 'runs with --no-screen' '$tmp/cli.err'"
mkdir -p "$tmp/empty"
check "--incidents DIR alone, not a terminal: the list's header, no file yet" \
    bash -c "[ \"\$(\"$DBTOP\" --incidents '$tmp/empty' </dev/null)\" = \"\$(printf '# trigger time (UTC)\\tserver\\ttrigger\\tbytes\\tstatus\\tfile\\tsummary')\" ]"

# ---- A. MariaDB: 20 s of slow syncs in the middle of a load ----
# (run beside B-F, which are PostgreSQL's: its own service, /metrics port
# and processes, whose pids it leaves in $tmp/A.pids for the cleanup; its
# lines follow F's)
partA() {
    LPORT=$((LPORT + 1))
    [ -f "$shim" ] || make -s CI=1 "$shim" >/dev/null 2>&1
    check "the slow-sync shim is built ($shim)" test -f "$shim"
    rm -f "$switch"
    # (the finding rests on the binary log's sync time, which performance_schema
    # measures: a CPU-starved host slows COMMIT but not that, so the baseline
    # stays clear of it on a busy machine)
    DBTOP_SERVER_PRELOAD=$shim DBTOP_SLOWSYNC_MS=20 DBTOP_SLOWSYNC_FILES="mariadb-bin" DBTOP_SLOWSYNC_SWITCH=$switch \
        DBTOP_SLOWSYNC_FAST_OFF=1 \
        tests/sandbox.sh restart mariadb >/dev/null 2>&1
    $M -e "SET GLOBAL innodb_flush_log_at_trx_commit=2, GLOBAL sync_binlog=1"
    tA=$(date +%s)
    # (the load first: its first seconds are not the steady state the test compares with)
    tests/load.sh sysbench mariadb --rate 150 --time 56 --threads 4 2>/dev/null &
    lp=$!
    echo "$lp" >>"$tmp/A.pids"
    sleep 4
    service A "$DBTOP_MARIADB_URI" --before 15s --after 6s --cooldown 60s --listen "$LPORT" --trigger 'finding commit-fsync'
    echo "$svc" >>"$tmp/A.pids"
    sleep 16
    slow_from=$(date +%s.%N)
    touch "$switch"
    sleep 20
    rm -f "$switch"
    slow_to=$(date +%s.%N)
    wait_for 25 status_is "$(files "$tmp/A" | head -n 1)" complete
    metrics >"$tmp/A.metrics"
    wait "$lp"
    lp=
    stop_service
    A=$(files "$tmp/A" | head -n 1)
    echo "# A: slow syncs from $slow_from to $slow_to; files: $(files "$tmp/A" | xargs -n1 basename 2>/dev/null | tr '\n' ' ')"
    echo "# A: service log: $(tr '\n' '|' <"$tmp/A.err" | head -c 1500)"
    check "A: exactly one incident file" nfiles_is "$tmp/A" 1
    check "A: its name carries the time, the server and the trigger (commit-fsync)" \
        bash -c "basename '$A' | grep -qE '^[0-9]{8}T[0-9]{6}Z-127\.0\.0\.1_$DBTOP_MARIADB_PORT-commit-fsync\.dbrec$'"
    check "A: the file and its summaries are mode 0600" \
        bash -c "[ \"\$(stat -c %a '$A' '${A%.dbrec}.txt' '${A%.dbrec}.json' | sort -u)\" = 600 ]"
    replay_json "$A" "$tmp/A.json"
    J=$tmp/A.json
    trig=$(jq -s '[.[] | .events[]? | select(.kind == "incident") | .ts] | first' "$J")
    echo "# A: trigger at $trig; replay: $(jq -s length "$J") records; $(cat "$J.err")"
    check "A: the replay holds the trigger's event (kind incident, trigger commit-fsync)" \
        jq -se 'any(.[]; any(.events[]?; .kind == "incident" and .trigger == "commit-fsync"))' "$J"
    # COMMIT's average latency (ms) over the records of FROM..TO
    commit_ms() {
        jq -s --argjson a "$2" --argjson b "$3" '[.[] | select(.ts > $a and .ts < $b) | .digests[]? |
            select((.text // "") | test("^COMMIT")) | .avg_ms | select(. != null)] | if length == 0 then null else add / length end' "$1"
    }
    base_ms=$(commit_ms "$J" 0 "$slow_from")
    slow_ms=$(commit_ms "$J" "$(awk -v t="$slow_from" 'BEGIN { printf "%.3f", t + 3 }')" "$slow_to")
    echo "# A: COMMIT $base_ms ms before the slowdown, $slow_ms ms during it; load average $(cut -d' ' -f1-3 /proc/loadavg)"
    check "A: COMMIT during the slowdown >= 2x the same run's baseline ($base_ms -> $slow_ms ms)" \
        awk -v a="$base_ms" -v b="$slow_ms" 'BEGIN { exit !(a != "null" && b != "null" && b >= 2 * a) }'
    check "A: the trigger falls inside the slow period" \
        awk -v t="$trig" -v a="$slow_from" -v b="$slow_to" 'BEGIN { exit !(t != "null" && t >= a && t <= b + 1) }'
    check "A: the replay shows the finding at the trigger and through the slowdown" \
        jq -se --argjson t "$trig" --argjson a "$slow_from" --argjson b "$slow_to" 'any(.[]; .ts == $t and any(.findings[]?; .id == "commit-fsync")) and
            ([.[] | select(.ts > $a + 3 and .ts < $b)] | length > 0 and (map(select(any(.findings[]?; .id == "commit-fsync"))) | length) >= 0.8 * length)' "$J"
    l=$(jq -s -r --argjson a "$slow_from" --argjson b "$slow_to" '[.[] | select(.ts >= $a + 3 and .ts <= $b)] | "\([.[] | select((.digests[0].text // "") | test("^COMMIT"))] | length)/\(length)"' "$J")
    check "A: COMMIT leads the digests in >= 80% of the records of the slowdown ($l)" \
        awk -v s="$l" 'BEGIN { split(s, p, "/"); exit !(p[2] > 0 && p[1] >= 0.8 * p[2]) }'
    b=$(jq -s --argjson a "$slow_from" '[.[] | select(.ts < $a)] | length' "$J")
    check "A: the seconds before the slowdown are in it ($b records before it, >= 8), without the finding" \
        jq -se --argjson a "$slow_from" '([.[] | select(.ts < $a)] | length >= 8) and all(.[] | select(.ts < $a - 1); all(.findings[]?; .id != "commit-fsync"))' "$J"
    S=${A%.dbrec}.json
    check "A: the summary names the trigger and its evidence (COMMIT ... ms, fsyncs)" \
        jq -e '.trigger.id == "commit-fsync" and .trigger.kind == "finding" and .status == "complete" and
            any(.findings[]; .id == "commit-fsync" and (.evidence | test("COMMIT avg [0-9.]+ ms.*binlog sync [0-9.]+ ms")))' "$S"
    check "A: the summary's top statement is COMMIT" jq -e '.top_digests[0].text | test("^COMMIT")' "$S"
    check "A: the summary's first line: time, server, trigger" \
        bash -c "head -n 1 '${A%.dbrec}.txt' | grep -qE '^[0-9-]{10} [0-9:]{8} UTC  127\.0\.0\.1:$DBTOP_MARIADB_PORT  commit-fsync: '"
    check "A: /metrics: dbtop_incidents_total{trigger=commit-fsync} 1" \
        grep -qE "^dbtop_incidents_total\{server=\"127\.0\.0\.1:$DBTOP_MARIADB_PORT\",trigger=\"commit-fsync\"\} 1$" "$tmp/A.metrics"
    check "A: /metrics: the last incident's time names its file" \
        grep -qE "^dbtop_last_incident_timestamp_seconds\{server=\"[^\"]+\",trigger=\"commit-fsync\",file=\"$(basename "$A" | sed 's/\./\\./g')\"\} [0-9.e+]+$" "$tmp/A.metrics"
    l=$("$DBTOP" --incidents "$tmp/A" | tail -n +2)
    check "A: dbtop --incidents DIR lists it (time, server, trigger, status, file, summary)" \
        bash -c "[ \"\$(wc -l <<<'$l')\" = 1 ] && awk -F'\t' '{ exit !(\$3 == \"commit-fsync\" && \$5 == \"complete\" && \$6 == \"$A\" && \$7 ~ /commit-fsync: /) }' <<<'$l'"
    tests/sandbox.sh restart mariadb >/dev/null 2>&1
    rm -f "$tmp/A.slowed"
    echo "# A took $(($(date +%s) - tA)) s"
}
if part A; then
    touch "$tmp/A.slowed"
    partA >"$tmp/A.out" 2>&1 &
    pa=$!
fi

# ---- B. PostgreSQL: a lock chain under an idle-in-transaction root ----
if part B; then
tB=$(date +%s)
$P15 -q -c "DROP TABLE IF EXISTS lk_inc; CREATE TABLE lk_inc (id int PRIMARY KEY, v int); INSERT INTO lk_inc VALUES (1, 0);" >/dev/null
up() { metrics | grep -q '^dbtop_up{.*} 1$'; }
service B "$DBTOP_PG15_URI" --before 8s --after 4s --cooldown 1s --listen "$LPORT"
wait_for 10 up || echo "# B: dbtop not up: $(cat "$tmp/B.err")"
sleep 3
sess pa 14 "$P15" "SELECT pg_backend_pid();" "BEGIN;" "UPDATE lk_inc SET v = v + 1 WHERE id = 1;"
getid pa
sleep 1
pg_waits() { $P15 -c "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"; }
sess pb 16 "$P15" "SELECT pg_backend_pid();" "SET lock_timeout = '15s';" "UPDATE lk_inc SET v = v + 10 WHERE id = 1;"
getid pb
waits_reach pg_waits 1 || echo "# B: the first waiter does not wait"
sess pc 16 "$P15" "SELECT pg_backend_pid();" "SET lock_timeout = '15s';" "UPDATE lk_inc SET v = v + 100 WHERE id = 1;"
getid pc
wait_for 30 bash -c "ls '$tmp/B'/*.dbrec >/dev/null 2>&1 && grep -q '^status: complete' '$tmp/B'/*.txt"
endsess true pa pb pc
B=$(files "$tmp/B" | head -n 1)
echo "# B: root ${sid[pa]}, waiters ${sid[pb]} ${sid[pc]}; files: $(files "$tmp/B" | xargs -n1 basename 2>/dev/null | tr '\n' ' ')"
check "B: one incident file, its trigger idle-root-blocker" \
    bash -c "[ \"\$(ls '$tmp/B'/*.dbrec | wc -l)\" = 1 ] && basename '$B' | grep -q -- '-idle-root-blocker\.dbrec$'"
echo "# B: the summary's lock roots: $(jq -c '.lock_roots' "${B%.dbrec}.json" | head -c 600)"
check "B: the summary names the root blocker ${sid[pa]}: idle in transaction, its statement, blocking" \
    jq -e --argjson a "${sid[pa]}" 'any(.lock_roots[]; .session == $a and (.state | startswith("idle in transaction")) and .blocked >= 1 and ((.statement // "") | test("UPDATE lk_inc")))' "${B%.dbrec}.json"
check "B: the summary's text says it" grep -qE "^  session ${sid[pa]} \(user postgres, idle in transaction" "${B%.dbrec}.txt"
replay_json "$B" "$tmp/B.json"
check "B: the replay shows the chain (${sid[pb]} waits for ${sid[pa]}, the root)" \
    jq -se --argjson a "${sid[pa]}" --argjson b "${sid[pb]}" 'any(.[]; any(.locks[]?; .waiter.id == $b and .blocker.id == $a and .root == $a))' "$tmp/B.json"
echo "# B took $(($(date +%s) - tB)) s"
fi

# ---- C. the same server stopped for 10 s ----
if part C; then
tC=$(date +%s)
tests/sandbox.sh halt pg15 >/dev/null 2>&1
down_at=$(date +%s.%N)
sleep 10
tests/sandbox.sh start pg15 >/dev/null 2>&1
up_at=$(date +%s.%N)
wait_for 50 bash -c "ls '$tmp/B'/*-down.dbrec >/dev/null 2>&1 && grep -q '^status: complete' '$tmp/B'/*-down.txt"
stop_service
C=$(ls "$tmp/B"/*-down.dbrec 2>/dev/null | head -n 1)
echo "# C: stopped $down_at, started $up_at; files: $(files "$tmp/B" | xargs -n1 basename 2>/dev/null | tr '\n' ' ')"
check "C: a DOWN incident file" test -f "$C"
echo "# C: the summary's DOWN periods: $(jq -c '.down' "${C%.dbrec}.json" 2>&1 | head -c 600)"
# (the period: from the stop to the first reconnection after the start,
# which the reconnection backoff, 1 s doubling to 30 s, may put late)
check "C: its summary has the DOWN period (from the stop to after the start) and the trigger state DOWN" \
    jq -e --argjson a "$down_at" --argjson b "$up_at" '.trigger.id == "down" and .trigger.kind == "state" and
        any(.down[]; .restart == false and .to_ts != null and .to_ts - .from_ts >= 8 and .from_ts >= $a - 1 and
            .from_ts <= $a + 8 and .to_ts >= $b - 1 and .to_ts <= $b + 31)' "${C%.dbrec}.json"
replay_json "$C" "$tmp/C.json"
check "C: the replay has the DOWN samples (no data from the server meanwhile) and the samples before it" \
    jq -se '([.[] | select(.state == "down")] | length >= 10) and (.[0].state == "up")' "$tmp/C.json"
echo "# C took $(($(date +%s) - tC)) s"
fi
[ -n "$svc" ] && stop_service

# ---- D. the directory's limit: 1 MB, the oldest go first ----
if part D; then
tD=$(date +%s)
mkdir -p "$tmp/D"
for d in 20200101 20200102 20200103; do
    head -c 409600 /dev/zero >"$tmp/D/${d}T000000Z-old-manual.dbrec"
    echo "$d old" >"$tmp/D/${d}T000000Z-old-manual.txt"
done
wait_for 20 bash -c "$P15 -c 'SELECT 1' >/dev/null"
service D "$DBTOP_PG15_URI" --before 5s --after 2s --cooldown 0 --incidents-max-mb 1
sleep 4
kill -USR1 "$svc"
wait_for 15 bash -c "ls '$tmp/D'/2*-manual.txt | grep -v 2020 | xargs grep -q '^status: complete'"
N=$(ls "$tmp/D"/*.dbrec | grep -v /2020 | head -n 1)
echo "# D: $(ls -s "$tmp/D" | tr '\n' ' ')"
check "D: the oldest went first (20200101 removed, 20200102 and 20200103 kept)" \
    bash -c "! [ -e '$tmp/D/20200101T000000Z-old-manual.dbrec' ] && ! [ -e '$tmp/D/20200101T000000Z-old-manual.txt' ] && [ -e '$tmp/D/20200102T000000Z-old-manual.dbrec' ] && [ -e '$tmp/D/20200103T000000Z-old-manual.dbrec' ]"
check "D: the directory is within 1 MB" bash -c "[ \$(du -cb '$tmp/D'/*.dbrec '$tmp/D'/*.txt '$tmp/D'/*.json 2>/dev/null | tail -n 1 | cut -f1) -le 1048576 ]"
replay_json "$N" "$tmp/D.json"
check "D: the newest is whole (its replay reads every record, nothing cut off)" \
    bash -c "[ \$(jq -s length '$tmp/D.json') -ge 8 ] && grep -q 'records read' '$tmp/D.json.err' && ! grep -qiE 'cut off|damaged' '$tmp/D.json.err'"

# ---- F. kill -9 while an incident is being written ----
# (a service of its own whose incident lasts: --after 30s)
stop_service
service D "$DBTOP_PG15_URI" --before 5s --after 30s --cooldown 0 --incidents-max-mb 1
sleep 3
kill -USR1 "$svc"
wait_for 20 bash -c "grep -l '^status: being written' '$tmp/D'/*.txt | grep -q ."
sleep 1.5
F=$(grep -l '^status: being written' "$tmp/D"/*.txt | head -n 1)
F=${F%.txt}.dbrec
kill -9 "$svc"
wait "$svc" 2>/dev/null
svc=
replay_json "$F" "$tmp/F.json"
echo "# F: $(basename "$F"): $(stat -c %s "$F") bytes; $(cat "$tmp/F.json.err")"
check "F: killed while writing: the file replays (records, the trigger's event)" \
    jq -se 'length >= 4 and any(.[]; any(.events[]?; .kind == "incident" and .trigger == "manual"))' "$tmp/F.json"
cp "$F" "$tmp/cut.dbrec"
truncate -s -7 "$tmp/cut.dbrec"
replay_json "$tmp/cut.dbrec" "$tmp/cut.json"
check "F: cut inside its last record: replays up to the last whole one and says it was cut off" \
    bash -c "[ \$(jq -s length '$tmp/cut.json') -ge \$((\$(jq -s length '$tmp/F.json') - 1)) ] && grep -qi 'cut off' '$tmp/cut.json.err'"
check "F: the list shows it as still being written" bash -c "[ -n '$F' ] && \"$DBTOP\" --incidents '$tmp/D' | grep -F '$F' | cut -f5 | grep -qx writing"
echo "# D and F took $(($(date +%s) - tD)) s"
fi

# ---- E. a full disk ----
if part E; then
tE=$(date +%s)
mkdir -p "$tmp/full"
if mount -t tmpfs -o size=96k,mode=0700 tmpfs "$tmp/full" 2>"$tmp/mount.err"; then
    mnt=$tmp/full
    service full "$DBTOP_PG15_URI" --before 20s --after 30s --cooldown 0 --listen "$LPORT"
    sleep 8
    kill -USR1 "$svc"
    wait_for 15 grep -q 'no incident is written until' "$tmp/full.err"
    kill -USR1 "$svc"
    sleep 2
    s1=$(metrics | sed -n 's/^dbtop_samples_total{[^}]*} //p')
    sleep 2
    metrics >"$tmp/E.metrics"
    s2=$(sed -n 's/^dbtop_samples_total{[^}]*} //p' "$tmp/E.metrics")
    kill -USR1 "$svc"
    sleep 1.5
    stop_service
    echo "# E: samples $s1 -> $s2; log: $(tr '\n' '|' <"$tmp/full.err" | head -c 800)"
    check "E: the full disk is said once ($(grep -c 'no incident is written until' "$tmp/full.err") lines after three triggers)" \
        test "$(grep -c 'no incident is written until' "$tmp/full.err")" = 1
    check "E: sampling goes on (dbtop_samples_total $s1 -> $s2 in 2 s) and the server is up" \
        bash -c "[ -n '$s1' ] && [ -n '$s2' ] && awk -v a='$s1' -v b='$s2' 'BEGIN { exit !(b >= a + 2) }' && grep -q '^dbtop_up{.*} 1$' '$tmp/E.metrics'"
    check "E: /metrics says so: write errors >= 1, dbtop_incidents_failing 1" \
        bash -c "grep -qE '^dbtop_incident_write_errors_total\{[^}]*\} [1-9]' '$tmp/E.metrics' && grep -qE '^dbtop_incidents_failing\{[^}]*\} 1$' '$tmp/E.metrics'"
    umount "$mnt" && mnt=
else
    echo "ok - E: a full disk # SKIP cannot mount a tmpfs here: $(head -c 200 "$tmp/mount.err")"
fi
echo "# E took $(($(date +%s) - tE)) s"
fi
if [ -n "$pa" ]; then
    wait "$pa"
    pa=
    merge_part "$tmp/A.out"
fi
echo "# the whole test took $(($(date +%s) - T0)) s"

done_tests
