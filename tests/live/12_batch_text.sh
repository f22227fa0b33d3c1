# The text form of --batch, like top -b: per interval one summary line,
# the findings, the top digests, the lock chains; every line within 160
# columns unless --wide; the settings and a note printed when they appear
# or change, not every interval. On the bundled recordings and live.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LANG=C.UTF-8

# widest FILE: the longest line in characters
widest() { LC_ALL=C.UTF-8 awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$1"; }
# summaries FILE: the records' summary lines (they start with the date)
summaries() { grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}  ' "$1"; }

for rec in recordings/*.dbrec; do
    n=$(basename "$rec" .dbrec)
    "$DBTOP" --replay "$rec" --speed 0 --batch >"$tmp/$n.txt" 2>/dev/null
    "$DBTOP" --replay "$rec" --speed 0 --batch --format json >"$tmp/$n.json" 2>/dev/null
    "$DBTOP" --replay "$rec" --speed 0 --batch --wide >"$tmp/$n.wide" 2>/dev/null
    recs=$(wc -l <"$tmp/$n.json")
    w=$(widest "$tmp/$n.txt")
    if [ "$w" -le 160 ]; then ok "$n: every text line within 160 columns (widest $w)"; else nok "$n: a line of $w columns: $(awk 'length($0) > 160' "$tmp/$n.txt" | head -1)"; fi
    check "$n: one summary line per record ($recs)" test "$(summaries "$tmp/$n.txt")" = "$recs"
    check "$n: a record per interval is blank-line separated" test "$(grep -c '^$' "$tmp/$n.txt")" = "$recs"
    # each note at most once while it stays (these recordings keep theirs)
    rep=$(grep -E '^  note: ' "$tmp/$n.txt" | sort | uniq -d | head -1)
    if [ -z "$rep" ]; then ok "$n: no note repeated ($(grep -c '^  note: ' "$tmp/$n.txt") printed for $recs records)"; else nok "$n: note printed again while unchanged: $rep"; fi
    # the settings: once, then again at each change (as the JSON records have them)
    changes=$(jq -c '.settings' "$tmp/$n.json" | uniq | grep -vc '^{}$')
    got=$(grep -c '^  settings: ' "$tmp/$n.txt")
    if [ "$got" = "$changes" ]; then ok "$n: the settings printed when they appear or change ($got times for $recs records)"; else nok "$n: the settings printed $got times, changed $changes times"; fi
    ww=$(widest "$tmp/$n.wide")
    if [ "$w" -lt 160 ] || [ "$ww" -gt 160 ]; then ok "$n: --wide leaves long lines whole (widest $ww)"; else nok "$n: --wide still cut at $ww"; fi
done
check "pg-lock-chain: the lock chain in the text" grep -q '^    root [0-9]* postgres idle in transaction' "$tmp/pg-lock-chain.txt"
check "pg-lock-chain: each waiter names its blocker" grep -qE '^      [0-9]+ waits [0-9.]+s for [0-9]+: requested ShareLock' "$tmp/pg-lock-chain.txt"
check "pg-lock-chain: the finding with what to do" grep -q '^  !! idle-root-blocker: .* -> end it with x on screen 3' "$tmp/pg-lock-chain.txt"
check "mariadb-commit-fsync: the top statements with their text" grep -qE '^  stmt +[0-9.]+ ms/s +[0-9.]+ calls/s .*UPDATE `sbtest1`' "$tmp/mariadb-commit-fsync.txt"

# live: a few intervals of each server, with a little load
for name in mariadb pg15; do
    N=$(tr a-z A-Z <<<"$name")
    uri_var=DBTOP_${N}_URI
    [ -n "${!uri_var:-}" ] || continue
    if [ "$name" = mariadb ]; then
        tests/load.sh sysbench mariadb --rate 100 --time 6 --threads 2 >/dev/null 2>&1 &
    else
        tests/load.sh pgbench pg15 --rate 100 --time 6 --clients 2 >/dev/null 2>&1 &
    fi
    lp=$!
    sleep 1
    "$DBTOP" --batch --count 4 --interval 1 "${!uri_var}" >"$tmp/$name.live" 2>"$tmp/$name.err"
    wait "$lp"
    w=$(widest "$tmp/$name.live")
    check "$name live: 4 summary lines, state UP" test "$(grep -cE '^[0-9-]{10} [0-9:]{8}  .*  UP  ' "$tmp/$name.live")" = 4
    if [ "$w" -le 160 ]; then ok "$name live: every line within 160 columns (widest $w)"; else nok "$name live: a line of $w columns"; fi
    check "$name live: the commit rate in the summary line" grep -qE '  commits/s [0-9]' "$tmp/$name.live"
done
done_tests
