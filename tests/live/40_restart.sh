# A server restart while --batch runs: "down" records, then "up" again, and
# no negative or spiking rate around the restart.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for name in mariadb pg15; do
    N=$(tr a-z A-Z <<<"$name")
    uri_var=DBTOP_${N}_URI
    "$DBTOP" --batch --count 22 --interval 1 --format json "${!uri_var}" >"$tmp/$name.json" 2>"$tmp/$name.err" &
    pid=$!
    sleep 3.5
    tests/sandbox.sh restart "$name" >"$tmp/$name.restart" 2>&1 || nok "$name restart failed: $(tail -3 "$tmp/$name.restart")"
    wait "$pid"
    rc=$?
    check "$name: dbtop kept running through the restart (exit $rc)" test "$rc" = 0
    check "$name: 22 records" test "$(wc -l <"$tmp/$name.json")" = 22
    check "$name: down records during the restart" jq -se 'any(.[]; .state == "down")' "$tmp/$name.json"
    check "$name: up before and again after" jq -se '(.[0].state == "up") and (.[-1].state == "up") and ([.[].state] | index("down")) < ([.[].state] | rindex("up"))' "$tmp/$name.json"
    check "$name: down records carry null rates and a retry note" jq -se '[.[] | select(.state == "down")] | all(.[]; ([.rates[]] | all(. == null)) and any(.notes[]; test("retrying in")))' "$tmp/$name.json"
    check "$name: no negative rate anywhere" jq -se '[.[].rates[] | select(. != null)] | all(. >= 0)' "$tmp/$name.json"
    check "$name: no spike: idle commits_per_s stays below 50" jq -se '[.[].rates.commits_per_s | select(. != null)] | all(. < 50)' "$tmp/$name.json"
    check "$name: the record after the last down one has null commits_per_s" jq -se '([.[].state] | rindex("down")) as $d | .[$d + 1].rates.commits_per_s == null' "$tmp/$name.json"
done
done_tests
