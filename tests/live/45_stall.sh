# A frozen server (SIGSTOP): queries hit their time limit, the record says
# "stalled" within the limit, and after SIGCONT it is back "up" with no spike.
. tests/lib.sh
tmp=$(mktemp -d)
stopped=()
cleanup() {
    [ ${#stopped[@]} -gt 0 ] && kill -CONT "${stopped[@]}" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

for name in mariadb pg15; do
    N=$(tr a-z A-Z <<<"$name")
    uri_var=DBTOP_${N}_URI
    "$DBTOP" --batch --count 16 --interval 1 --query-timeout 1 --connect-timeout 2 --format json \
        "${!uri_var}" >"$tmp/$name.json" 2>"$tmp/$name.err" &
    dp=$!
    sleep 2.5
    # the server's processes, dbtop's backend included: main one and children
    main=$(tests/sandbox.sh pid "$name")
    pids=("$main" $(pgrep -P "$main" || true))
    stopped=("${pids[@]}")
    kill -STOP "${pids[@]}"
    t0=$(date +%s.%N)
    sleep 5
    kill -CONT "${pids[@]}"
    stopped=()
    wait "$dp"
    rc=$?
    check "$name: dbtop survived the freeze (exit $rc)" test "$rc" = 0
    check "$name: a stalled record names the time limit" jq -se 'any(.[]; .state == "stalled" and any(.notes[]; test("time limit")))' "$tmp/$name.json"
    check "$name: back up after SIGCONT" jq -se '.[-1].state == "up" and .[-1].rates.commits_per_s != null' "$tmp/$name.json"
    check "$name: no rate while frozen, none negative, no spike after" jq -se 'all(.[]; (.state == "up") or ([.rates[]] | all(. == null))) and ([.[].rates.commits_per_s | select(. != null)] | all(. >= 0 and . < 50))' "$tmp/$name.json"
    # records kept coming during the freeze: never more than query+connect timeouts apart
    gap=$(jq -s '[range(1; length) as $i | .[$i].ts - .[$i - 1].ts] | max' "$tmp/$name.json")
    if awk -v g="$gap" 'BEGIN { exit !(g < 4.5) }'; then ok "$name: longest gap between records ${gap}s while frozen"; else nok "$name: a gap of ${gap}s between records"; fi
done
done_tests
