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
    # PostgreSQL's own commit count around the run: its background workers
    # (autovacuum after the tests before) commit too, so the bound after the
    # freeze is what the server counted, not a fixed rate
    xc() { $DBTOP_PG15_PSQL -Atc "SELECT sum(xact_commit) FROM pg_stat_database" 2>/dev/null; }
    [ "$name" = pg15 ] && xc0=$(xc)
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
    # (the records as state:commits/s/dbtop's own commits, for a failure)
    recs=$(jq -rs 'map("\(.state):\(.rates.commits_per_s // "-" | if type == "number" then (. * 10 | round / 10) else . end)/\(.cost.own_commits // "-")") | join(" ")' "$tmp/$name.json")
    # no spike: MariaDB commits nothing here (under 50/s); on PostgreSQL no
    # more commits than the server counted over the run (its own second of
    # publication beside: +5)
    limit=50 most=1e9 bound="under 50/s"
    if [ "$name" = pg15 ]; then
        sleep 1.2
        xc1=$(xc)
        limit=1e9 most=$((${xc1:-0} - ${xc0:-0} + 5)) bound="the server counted $((${xc1:-0} - ${xc0:-0})) commits, dbtop's own with them"
    fi
    check "$name: no rate while frozen, none negative, no spike after ($recs; $bound)" jq -se --argjson lim "$limit" --argjson most "$most" \
        'all(.[]; (.state == "up") or ([.rates[]] | all(. == null))) and ([.[].rates.commits_per_s | select(. != null)] | all(. >= 0 and . < $lim)) and
        ([.[] | select(.state == "up") | (.rates.commits_per_s // 0) * (.interval_s // 0)] | add) <= $most' "$tmp/$name.json"
    # records kept coming during the freeze: never more than query+connect timeouts apart
    gap=$(jq -s '[range(1; length) as $i | .[$i].ts - .[$i - 1].ts] | max' "$tmp/$name.json")
    if awk -v g="$gap" 'BEGIN { exit !(g < 4.5) }'; then ok "$name: longest gap between records ${gap}s while frozen"; else nok "$name: a gap of ${gap}s between records"; fi
done
done_tests
