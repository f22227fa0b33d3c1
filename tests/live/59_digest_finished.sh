# Statement statistics add a call's whole time when it finishes: N sessions
# each running a 6 s statement finish in one interval, and that interval
# must not claim more than N x 1000 ms/s for it (a call cannot spend more
# than the interval inside the interval). The row is marked bounded, its
# average stays the true ~6000 ms, its raw time is in total_ms_finished.
# PostgreSQL 15 (pg_stat_statements) and MariaDB (performance_schema
# events_statements_summary_by_digest) share the path.
. tests/lib.sh
tmp=$(mktemp -d)
dps=()
trap 'for p in "${dps[@]}"; do kill -TERM "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
N=4

# served NAME: the server's own count of the sleeps' calls (its statement
# statistics: a call counts when it ends)
served() {
    local v
    case $1 in
    pg15) v=$($DBTOP_PG15_PSQL -Atc "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query LIKE 'SELECT pg_sleep(%'") ;;
    *) v=$($DBTOP_MARIADB_CLIENT -N -e "SELECT coalesce(sum(COUNT_STAR), 0) FROM performance_schema.events_statements_summary_by_digest WHERE DIGEST_TEXT LIKE 'SELECT %SLEEP%'") ;;
    esac
    echo "${v:-0}"
}

# run NAME URI SECS CMD...: dbtop (JSON and text, 1 s interval) watching
# N sessions that each run CMD (a SECS-second sleep); stops two records
# with fresh digests after the sessions ended (<= 30 s)
run() {
    local name=$1 uri=$2 secs=$3 i
    shift 3
    "$DBTOP" --batch --count 120 --interval 1 --top 50 --format json "$uri" >"$tmp/$name.json" 2>"$tmp/$name.err" &
    local dj=$!
    "$DBTOP" --batch --count 120 --interval 1 --top 50 --format text "$uri" >"$tmp/$name.txt" 2>/dev/null &
    local dt=$!
    dps=("$dj" "$dt")
    for ((i = 0; i < 300; i++)); do
        [ -s "$tmp/$name.json" ] && break
        sleep 0.1
    done
    local ps=() c0
    c0=$(served "$name")
    for ((i = 0; i < N; i++)); do
        timeout $((secs + 30)) "$@" >/dev/null 2>&1 &
        ps+=($!)
    done
    wait "${ps[@]}"
    echo $(($(served "$name") - c0)) >"$tmp/$name.ran"
    # two records with a fresh set of digests after the sessions ended
    # (on a busy server the digests are read less often: paced)
    local n0
    n0=$(wc -l <"$tmp/$name.json")
    for ((i = 0; i < 300; i++)); do
        [ "$(tail -n +$((n0 + 1)) "$tmp/$name.json" | jq -s '[.[] | select(.digests_fresh != false)] | length' 2>/dev/null)" -ge 2 ] 2>/dev/null && break
        sleep 0.1
    done
    # the text run reads its digests on its own pace (a busy host paces
    # them): it is given until it has shown the finished sleeps (<= 30 s)
    for ((i = 0; i < 300; i++)); do
        grep -Eq "stmt +<=[0-9.]+ ms/s .*$RE" "$tmp/$name.txt" && break
        sleep 0.1
    done
    kill -TERM "$dj" "$dt" 2>/dev/null
    wait "$dj" "$dt"
    dps=()
}

# verify NAME REGEX SECS: the records where the sleeps finished
verify() {
    local name=$1 re=$2 ms=$(($3 * 1000)) f="$tmp/$1.json"
    local rows
    rows=$(jq -c --arg re "$re" 'select(.digests_fresh != false) | .digests[]? | select((.text | test($re; "i")) and .calls_per_s > 0) | {calls: (.calls_per_s * 1000 | round / 1000), ms: .total_ms_per_s, avg: .avg_ms, b: .time_bounded, raw: .total_ms_finished}' "$f" | tr '\n' ' ')
    [ -n "$rows" ] || { nok "$name: no interval shows the sleeps finishing"; return; }
    local calls
    calls=$(jq -s --arg re "$re" '[.[] | select(.digests_fresh != false) | (.digests_window_s // .interval_s) as $iv | .digests[]? | select(.text | test($re; "i")) | .calls_per_s * $iv] | add // 0 | round' "$f")
    # as many as the server counted (a session of the N that could not run
    # its sleep on a busy host is not dbtop's to show)
    local ran
    ran=$(cat "$tmp/$name.ran" 2>/dev/null || echo "$N")
    if [ "$calls" = "$ran" ] && [ "$ran" -ge 1 ]; then ok "$name: the $ran sleeps the server counted ($N started) finish in the records ($rows)"; else nok "$name: $calls calls seen, the server counted $ran ($N started): $rows"; fi
    check "$name: every interval where they finish shows <= $N x 1000 ms/s and <= 1000 ms/s per call finished" \
        jq -se --arg re "$re" --argjson n "$N" '[.[] | select(.digests_fresh != false) | (.digests_window_s // .interval_s) as $iv | .digests[]? | select((.text | test($re; "i")) and .calls_per_s > 0) | select(.total_ms_per_s > $n * 1000 + 0.5 or .total_ms_per_s > (.calls_per_s * $iv | round) * 1000 + 0.5)] | length == 0' "$f"
    check "$name: those rows are marked time_bounded, raw time in total_ms_finished (calls x avg)" \
        jq -se --arg re "$re" '[.[] | select(.digests_fresh != false) | .digests[]? | select((.text | test($re; "i")) and .calls_per_s > 0)] | length > 0 and all(.[]; .time_bounded == true and .total_ms_finished > .total_ms_per_s)' "$f"
    check "$name: avg stays the true ~$ms ms" \
        jq -se --arg re "$re" --argjson ms "$ms" '[.[] | .digests[]? | select((.text | test($re; "i")) and .calls_per_s > 0) | .avg_ms] | length > 0 and all(.[]; . >= $ms * 0.98 and . <= $ms * 1.15)' "$f"
    check "$name: no other row carries the member" \
        jq -se --arg re "$re" '[.[] | .digests[]? | select(.time_bounded and (.text | test($re; "i") | not))] | length == 0' "$f"
    check "$name: the table total never above $N x 1000 + the rest" \
        jq -se --argjson n "$N" 'all(.[]; ([.digests[]? | .total_ms_per_s] | add // 0) <= $n * 1000 + 2000)' "$f"
    if grep -Eq "stmt +<=[0-9.]+ ms/s .*$re" "$tmp/$name.txt"; then
        ok "$name: text record marks it: $(grep -E "stmt +<=[0-9.]+ ms/s .*$re" "$tmp/$name.txt" | head -1 | sed 's/^ *//')"
    else
        nok "$name: no <= mark in the text record: $(grep -E "$re" "$tmp/$name.txt" | head -3 | tr '\n' '|')"
    fi
}

RE=pg_sleep
run pg15 "$DBTOP_PG15_URI" 6 $DBTOP_PG15_PSQL -qc "SELECT pg_sleep(6)"
verify pg15 "$RE" 6
RE=SLEEP
run mariadb "$DBTOP_MARIADB_URI" 4 $DBTOP_MARIADB_CLIENT -e "SELECT SLEEP(4)"
verify mariadb "$RE" 4
done_tests
