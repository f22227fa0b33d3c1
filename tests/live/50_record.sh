# Record 30 s of live MariaDB and PostgreSQL under load, replay it, and get
# the same JSON records byte for byte; passwords never reach the file.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# record NAME: 30 s of NAME under its load, then the replay's checks (both
# servers at once: each its own load, dbtop and files; the lines of each
# follow in turn)
record() {
    local name=$1 N uri_var lp
    N=$(tr a-z A-Z <<<"$name")
    uri_var=DBTOP_${N}_URI
    if [ "$name" = mariadb ]; then
        tests/load.sh sysbench mariadb --rate 200 --time 36 --threads 4 2>/dev/null &
    else
        tests/load.sh pgbench pg15 --rate 200 --time 36 --clients 4 2>/dev/null &
    fi
    lp=$!
    sleep 2
    "$DBTOP" --batch --count 30 --interval 1 --format json --record "$tmp/$name.dbrec" "${!uri_var}" \
        >"$tmp/$name.live.json" 2>"$tmp/$name.err"
    wait "$lp"
    check "$name: 30 live records" test "$(wc -l <"$tmp/$name.live.json")" = 30
    check "$name: recording is mode 0600" test "$(stat -c %a "$tmp/$name.dbrec")" = 600
    "$DBTOP" --replay "$tmp/$name.dbrec" --speed 0 --format json >"$tmp/$name.replay.json" 2>"$tmp/$name.rerr"
    if cmp -s "$tmp/$name.live.json" "$tmp/$name.replay.json"; then
        ok "$name: replay reproduces the 30 live JSON records byte for byte ($(stat -c %s "$tmp/$name.dbrec") bytes recorded)"
    else
        nok "$name: replay differs: $(python3 tests/tools/jsondiff.py "$tmp/$name.live.json" "$tmp/$name.replay.json" | head -n 8 | cut -c1-300 | tr '\n' ';')"
    fi
    check "$name: replay reports what it read" grep -q "end of recording: .* records read" "$tmp/$name.rerr"
    check "$name: the monitor password is not in the recording" bash -c "! grep -aq monpw '$tmp/$name.dbrec'"
}
record mariadb >"$tmp/part.mariadb" 2>&1 &
p1=$!
record pg15 >"$tmp/part.pg15" 2>&1 &
p2=$!
wait "$p1" "$p2"
for name in mariadb pg15; do
    merge_part "$tmp/part.$name"
done

# pacing: 30 records at --speed 10 take about 3 s; --from skips the start
t0=$(date +%s.%N)
"$DBTOP" --replay "$tmp/pg15.dbrec" --speed 10 --format json >"$tmp/speed.json" 2>/dev/null
el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
if awk -v e="$el" 'BEGIN { exit !(e > 2.0 && e < 6.0) }'; then ok "--speed 10 replays 30 s in ${el}s"; else nok "--speed 10 took ${el}s"; fi
"$DBTOP" --replay "$tmp/pg15.dbrec" --speed 0 --from 20 --format json >"$tmp/from.json" 2>/dev/null
n=$(wc -l <"$tmp/from.json")
check "--from 20 starts 20 s in ($n records)" test "$n" -ge 9 -a "$n" -le 12
check "--from 20: the first record shown has its rate (history replayed)" jq -se '.[0].rates.commits_per_s != null' "$tmp/from.json"
check "--count with --replay" test "$("$DBTOP" --replay "$tmp/pg15.dbrec" --speed 0 --count 5 --format json 2>/dev/null | wc -l)" = 5

# an admin password in the target never reaches the file
"$DBTOP" --batch --count 2 --record "$tmp/admin.dbrec" "$DBTOP_MARIADB_ADMIN_URI" >/dev/null 2>&1
check "admin password absent from its recording" bash -c "! grep -aq adminpw '$tmp/admin.dbrec'"
# --redact: no literal of the workload's statements in the file
$DBTOP_MARIADB_CLIENT -e "CREATE TABLE IF NOT EXISTS dbtop_test.redact_t (id int primary key, v varchar(40))" 2>/dev/null
( for i in 1 2 3 4 5 6; do
    $DBTOP_MARIADB_CLIENT -e "INSERT INTO dbtop_test.redact_t VALUES (987650 + $i, 'zz-secret-literal-4711') ON DUPLICATE KEY UPDATE v = 'zz-secret-literal-4711'" 2>/dev/null
    sleep 0.4
  done ) &
"$DBTOP" --batch --count 3 --redact --record "$tmp/redact.dbrec" "$DBTOP_MARIADB_URI" >/dev/null 2>&1
wait
check "--redact: no workload literal in the recording" bash -c "! grep -aqE 'zz-secret-literal-4711|98765[0-9]' '$tmp/redact.dbrec'"

# a recording is always a new file: /dev/full (a path that exists) is
# refused, and the monitoring goes on (a disk that fills up while recording:
# 85_faults on a small tmpfs)
"$DBTOP" --batch --count 2 --format json --record /dev/full "$DBTOP_PG15_URI" >"$tmp/full.json" 2>"$tmp/full.err"
rc=$?
check "recording to /dev/full: monitoring goes on (exit $rc, 2 records)" test "$rc" = 0 -a "$(wc -l <"$tmp/full.json")" = 2
check "recording to /dev/full: refused, says why" grep -q "cannot create recording /dev/full: it exists" "$tmp/full.err"

# the bundled incident replays with no server and no file
env -i PATH=/usr/bin:/bin "$DBTOP" --demo --speed 0 --format json >"$tmp/demo.json" 2>"$tmp/demo.err"
check "--demo replays the bundled recording without a server" jq -se 'length >= 20 and all(.[]; .schema == 1) and any(.[]; .rates.fsyncs_per_commit != null)' "$tmp/demo.json"
# bad recordings: a clear message, exit 1, no crash
: >"$tmp/empty.dbrec"
printf 'hello, not a recording\n' >"$tmp/text.dbrec"
for f in "$tmp/empty.dbrec" "$tmp/text.dbrec" "$tmp/missing.dbrec"; do
    "$DBTOP" --replay "$f" --batch >/dev/null 2>"$tmp/bad.err"
    rc=$?
    if [ "$rc" = 1 ] && grep -Eq "not a dbtop recording|cannot open|shorter" "$tmp/bad.err"; then
        ok "replay of $(basename "$f"): exit 1, $(head -c 80 "$tmp/bad.err")"
    else
        nok "replay of $(basename "$f"): exit $rc, $(head -c 200 "$tmp/bad.err")"
    fi
done
# a recording cut in its last record still replays its whole records
size=$(stat -c %s "$tmp/pg15.dbrec")
head -c $((size - 7)) "$tmp/pg15.dbrec" >"$tmp/cut.dbrec"
"$DBTOP" --replay "$tmp/cut.dbrec" --speed 0 --format json >"$tmp/cut.json" 2>"$tmp/cut.err"
check "cut recording: 29 of 30 records replay" test "$(wc -l <"$tmp/cut.json")" = 29
check "cut recording: the cut is reported" grep -q "cut off" "$tmp/cut.err"
done_tests
