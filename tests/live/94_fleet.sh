# Several targets at once: dbtop watching MariaDB, PostgreSQL 15 and 18 in
# --batch JSON and on the fleet screen (tmux) while PostgreSQL 18 is
# stopped and started again: each state shows within two intervals, and
# the other two servers keep their pace (no gap over two intervals in their
# records while the third is down). Then Enter / Esc / n / p / F / s / on
# the fleet screen. --targets parsing errors on the command line.
. tests/lib.sh
tui_init fleet
cleanup() {
    [ -n "${mpid:-}" ] && kill -CONT "$mpid" 2>/dev/null
    $DBTOP_MARIADB_CLIENT -e "SET GLOBAL innodb_flush_log_at_trx_commit = 1" 2>/dev/null
    tui_stop
    [ -n "${bp:-}" ] && kill "$bp" 2>/dev/null
    # pg18 is up again whatever happened
    tests/sandbox.sh start pg18 >/dev/null 2>&1
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
IV=1   # the interval, s

cat >"$tmp/targets" <<EOT
# the three sandbox servers
maria = $DBTOP_MARIADB_URI
pg15  = $DBTOP_PG15_URI   # with pg_wait_sampling
pg18 = $DBTOP_PG18_URI

EOT
chmod 600 "$tmp/targets"

# ---- the command line ----
out=$("$DBTOP" --targets "$tmp/targets" -h 127.0.0.1 -b -n 1 2>&1)
[ $? -eq 2 ] && grep -q 'each one names its server' <<<"$out" && ok "several targets: -h refused (exit 2)" ||
    nok "several targets: -h not refused: $out"
out=$("$DBTOP" --targets "$tmp/targets" --record "$tmp/x.dbrec" -b -n 1 2>&1)
[ $? -eq 2 ] && grep -q 'one dbtop per server' <<<"$out" && [ ! -e "$tmp/x.dbrec" ] &&
    ok "several targets: --record refused (exit 2), nothing written" || nok "--record with several targets: $out"
printf 'a = mysql://u:secret@h1/\nb = postgresql://u:secret@h2/\na = mysql://u:secret@h3/\n' >"$tmp/dup"
out=$("$DBTOP" --targets "$tmp/dup" -b -n 1 2>&1)
[ $? -eq 2 ] && grep -q "dup:3: the name 'a' is given twice (also at .*dup:1)" <<<"$out" && ! grep -q secret <<<"$out" &&
    ok "duplicate name refused with both lines, no password shown" || nok "duplicate name: $out"
printf 'mysql://h1/\nnot a target at all\n' >"$tmp/bad"
out=$("$DBTOP" --targets "$tmp/bad" -b -n 1 2>&1)
[ $? -eq 2 ] && grep -q 'bad:2:' <<<"$out" && ok "bad line named by its number" || nok "bad line: $out"
out=$(DBTOP_X=1 "$DBTOP" -b -n 1 "$DBTOP_MARIADB_URI" "$DBTOP_MARIADB_URI" 2>&1)
[ $? -eq 2 ] && grep -q 'same target twice' <<<"$out" && ! grep -q monpw <<<"$out" &&
    ok "the same TARGET twice refused, no password shown" || nok "same target twice: $out"

# ---- batch JSON and the fleet screen, together ----
LIM=(--query-timeout 1 --connect-timeout 2)
timeout 80 "$DBTOP" --targets "$tmp/targets" -i $IV "${LIM[@]}" --format json >"$tmp/b.json" 2>"$tmp/b.err" &
bp=$!
FPORT=${DBTOP_FLEET_LISTEN_PORT:-38140}
UP_WAIT=20 dbtop_start 120 40 --targets "$tmp/targets" -i $IV "${LIM[@]}" --listen "127.0.0.1:$FPORT"
if wait_re 'FLEET 3 servers: 3 UP' 20; then ok "fleet screen first, 3 UP"; else nok "fleet screen: $(screen)"; fi
for n in maria pg15 pg18; do
    if wait_re "^$n +(MariaDB|PostgreSQL) [0-9.]+ +UP " 10; then ok "fleet row $n: engine, version, UP"; else nok "fleet row $n: $(screen)"; fi
done
T capture-pane -p -t s | grep -q 'SERVER.*STATE.*COMMIT/S.*FS/C.*LATENCY.*LOCK.*FINDING' &&
    ok "fleet columns" || nok "fleet columns: $(screen)"
# batch: a record of each server, each with its "server" member
for i in $(seq 1 100); do
    [ "$(jq -r .server "$tmp/b.json" 2>/dev/null | sort -u | tr '\n' ' ')" = "maria pg15 pg18 " ] && break
    sleep 0.1
done
[ "$(jq -r .server "$tmp/b.json" | sort -u | tr '\n' ' ')" = "maria pg15 pg18 " ] &&
    ok "batch: records of maria, pg15 and pg18 with a server member" || nok "batch servers: $(jq -r .server "$tmp/b.json" | sort | uniq -c | tr '\n' ' ')"
[ "$(jq -r 'select(.server=="pg18") | .engine' "$tmp/b.json" | head -1)" = postgresql ] &&
    [ "$(jq -r 'select(.server=="maria") | .engine' "$tmp/b.json" | head -1)" = mariadb ] &&
    ok "batch: each server's record its own engine" || nok "batch engines"
# the endpoint beside the fleet screen: one slot per server, each under its name
for i in $(seq 1 100); do
    [ "$(curl -sf "127.0.0.1:$FPORT/metrics" 2>/dev/null | grep -c '^dbtop_up{server="\(maria\|pg15\|pg18\)"} 1$')" = 3 ] && break
    sleep 0.1
done
[ "$i" -lt 100 ] && ok "--listen beside the fleet: dbtop_up 1 for maria, pg15 and pg18" ||
    nok "--listen with the fleet: $(curl -sf "127.0.0.1:$FPORT/metrics" 2>&1 | grep '^dbtop_up' | tr '\n' ' ')"
# a setting changed on maria (by this client) while the batch runs: an
# event of maria's records only
$DBTOP_MARIADB_CLIENT -e "SET GLOBAL innodb_flush_log_at_trx_commit = 1"
sleep 1.5
$DBTOP_MARIADB_CLIENT -e "SET GLOBAL innodb_flush_log_at_trx_commit = 2"
sleep 2.5
$DBTOP_MARIADB_CLIENT -e "SET GLOBAL innodb_flush_log_at_trx_commit = 1"

# ---- stop pg18 ----
tests/sandbox.sh halt pg18 >/dev/null 2>&1
t_down=$(date +%s.%N)
if wait_re '^pg18 .* DOWN ' 10; then
    dt=$(awk -v a="$(date +%s.%N)" -v b="$t_down" 'BEGIN { printf "%.2f", a - b }')
    if awk -v d="$dt" -v i=$IV 'BEGIN { exit !(d <= 2 * i + 0.5) }'; then ok "screen: pg18 DOWN ${dt}s after it stopped (<= 2 intervals)"
    else nok "screen: pg18 DOWN only after ${dt}s"; fi
else
    nok "screen: pg18 never DOWN: $(screen)"
fi
T capture-pane -p -t s | grep -qE '^pg18 .* DOWN +for [0-9]+s: .*(connect|refused|terminat|closed)' &&
    ok "screen: the reason beside DOWN" || nok "screen: no reason: $(T capture-pane -p -t s | grep '^pg18')"
T capture-pane -p -t s | grep -q 'FLEET 3 servers: 2 UP, 1 DOWN' && ok "fleet header: 2 UP, 1 DOWN" || nok "header: $(screen)"
m=$(curl -sf "127.0.0.1:$FPORT/metrics" 2>/dev/null)
grep -q '^dbtop_up{server="pg18"} 0$' <<<"$m" && grep -q '^dbtop_up{server="pg15"} 1$' <<<"$m" &&
    ! grep -q '^dbtop_commits_total{server="pg18"}' <<<"$m" &&
    ok "/metrics: pg18 dbtop_up 0 without its counters, pg15 still 1" ||
    nok "/metrics while pg18 is down: $(grep -E '^dbtop_(up|commits_total)' <<<"$m" | tr '\n' ' ')"
sleep 6   # pg18 stays down a while
T capture-pane -p -t s | grep -qE '^(maria|pg15) .* UP ' && ok "screen: the other two still UP" || nok "others: $(screen)"

# ---- start it again ----
tests/sandbox.sh start pg18 >/dev/null 2>&1
t_up=$(date +%s.%N)
if wait_re '^pg18 .* UP ' 10; then
    dt=$(awk -v a="$(date +%s.%N)" -v b="$t_up" 'BEGIN { printf "%.2f", a - b }')
    if awk -v d="$dt" -v i=$IV 'BEGIN { exit !(d <= 2 * i + 0.5) }'; then ok "screen: pg18 UP again ${dt}s after its start (<= 2 intervals)"
    else nok "screen: pg18 UP only after ${dt}s"; fi
else
    nok "screen: pg18 never UP again: $(screen)"
fi
sleep 3

# batch: pg18 down then up, each within two intervals; the others on time
jq -c 'select(.server=="pg18") | [.ts, .state]' "$tmp/b.json" >"$tmp/pg18.ts"
first_down=$(jq -r 'select(.[1]=="down") | .[0]' "$tmp/pg18.ts" | head -1)
up_after=$(jq -r --argjson d "${first_down:-0}" 'select(.[1]=="up" and .[0] > $d) | .[0]' "$tmp/pg18.ts" | head -1)
td=$(awk -v t="$t_down" 'BEGIN { printf "%.3f", t }')
tu=$(awk -v t="$t_up" 'BEGIN { printf "%.3f", t }')
if [ -n "$first_down" ] && awk -v a="$first_down" -v b="$td" -v i=$IV 'BEGIN { exit !(a - b <= 2 * i + 0.5) }'; then
    ok "batch: pg18 down $(awk -v a="$first_down" -v b="$td" 'BEGIN { printf "%.2f", a - b }')s after it stopped"
else
    nok "batch: pg18 down record at ${first_down:-none} (stopped at $td)"
fi
if [ -n "$up_after" ] && awk -v a="$up_after" -v b="$tu" -v i=$IV 'BEGIN { exit !(a - b <= 2 * i + 0.5) }'; then
    ok "batch: pg18 up $(awk -v a="$up_after" -v b="$tu" 'BEGIN { printf "%.2f", a - b }')s after its start"
else
    nok "batch: pg18 up record at ${up_after:-none} (started at $tu)"
fi
# each target's events in its own records, as a single target's batch
setev() { jq -c --arg n "$1" 'select(.server==$n) | .events[]? | select(.kind=="setting" and .name=="innodb_flush_log_at_trx_commit")' "$tmp/b.json"; }
if setev maria | jq -se 'any(.[]; .old=="1" and .new=="2" and .by=="other") and any(.[]; .old=="2" and .new=="1")' >/dev/null &&
    [ -z "$(setev pg15)$(setev pg18)" ]; then
    ok "batch: maria's records carry its setting change 1 -> 2 -> 1 in \"events\", pg15's and pg18's do not"
else
    nok "batch: maria's setting events: $(setev maria | tr '\n' ' ') pg15/pg18: $(setev pg15)$(setev pg18)"
fi
kinds() { jq -r --arg n "$1" 'select(.server==$n) | .events[]? | .kind' "$tmp/b.json" | sort -u | tr '\n' ' '; }
if grep -qw down <<<"$(kinds pg18)" && grep -qw up <<<"$(kinds pg18)" && ! grep -qw down <<<"$(kinds pg15)"; then
    ok "batch: pg18's records carry its down and up events, pg15's no down (pg18: $(kinds pg18))"
else
    nok "batch: down/up events: pg18 $(kinds pg18), pg15 $(kinds pg15)"
fi
for n in maria pg15; do
    gap=$(jq -r --arg n $n 'select(.server==$n) | .ts' "$tmp/b.json" |
        awk -v from="$td" -v to="$tu" 'NR > 1 && $1 >= from - 1 && prev <= to + 1 { g = $1 - prev; if (g > m) m = g } { prev = $1 } END { printf "%.2f", m }')
    cnt=$(jq -r --arg n $n --argjson a "$td" --argjson b "$tu" 'select(.server==$n and .ts >= $a and .ts <= $b) | .state' "$tmp/b.json" | grep -c up)
    if awk -v g="$gap" -v i=$IV 'BEGIN { exit !(g > 0 && g <= 2 * i) }' && [ "$cnt" -ge 5 ]; then
        ok "batch: $n on time while pg18 was down (largest gap ${gap}s, $cnt records up)"
    else
        nok "batch: $n gap ${gap}s, $cnt up records while pg18 was down"
    fi
done

# ---- MariaDB frozen (SIGSTOP): STALLED, the others on time ----
mpid=$(tests/sandbox.sh pid mariadb)
kill -STOP "$mpid"
t_stall=$(date +%s.%N)
if wait_re '^maria .* STALLED ' 10; then
    dt=$(awk -v a="$(date +%s.%N)" -v b="$t_stall" 'BEGIN { printf "%.2f", a - b }')
    # the query time limit (1 s) plus the interval at most
    if awk -v d="$dt" -v i=$IV 'BEGIN { exit !(d <= 1 + i + 0.5) }'; then ok "screen: maria STALLED ${dt}s after it froze (time limit 1 s + 1 interval)"
    else nok "screen: maria STALLED only after ${dt}s"; fi
else
    nok "screen: maria never STALLED: $(screen)"
fi
T capture-pane -p -t s | grep -qE '^maria .* STALLED +for [0-9]+s: .*time limit' && ok "screen: the reason beside STALLED" ||
    nok "screen: STALLED reason: $(T capture-pane -p -t s | grep '^maria')"
sleep 3
kill -CONT "$mpid"
t_cont=$(date +%s.%N)
mpid=
if wait_re '^maria .* UP ' 10; then ok "screen: maria UP again $(awk -v a="$(date +%s.%N)" -v b="$t_cont" 'BEGIN { printf "%.2f", a - b }')s after it resumed"
else nok "screen: maria not UP again: $(screen)"; fi
ts=$(awk -v t="$t_stall" 'BEGIN { printf "%.3f", t }')
tc=$(awk -v t="$t_cont" 'BEGIN { printf "%.3f", t }')
for n in pg15 pg18; do
    gap=$(jq -r --arg n $n 'select(.server==$n) | .ts' "$tmp/b.json" |
        awk -v from="$ts" -v to="$tc" 'NR > 1 && $1 >= from - 1 && prev <= to + 1 { g = $1 - prev; if (g > m) m = g } { prev = $1 } END { printf "%.2f", m }')
    if awk -v g="$gap" -v i=$IV 'BEGIN { exit !(g > 0 && g <= 2 * i) }'; then ok "batch: $n on time while maria was frozen (largest gap ${gap}s)"
    else nok "batch: $n gap ${gap}s while maria was frozen"; fi
done
stalled=$(jq -r --argjson a "$ts" 'select(.server=="maria" and .ts >= $a and .state=="stalled") | .ts' "$tmp/b.json" | head -1)
[ -n "$stalled" ] && ok "batch: maria stalled $(awk -v a="$stalled" -v b="$ts" 'BEGIN { printf "%.2f", a - b }')s after it froze" ||
    nok "batch: no stalled record of maria"

# ---- keys ----
T send-keys -t s Home Down Enter
wait_re '\[2/3\] pg15 \(127\.0\.0\.1:' 5 && ok "Enter on the 2nd row: pg15's overview, named in the header" || nok "Enter: $(screen)"
T send-keys -t s 2
wait_re '^pg_stat_statements [0-9.]+(, read every [0-9]+ s)?  per interval' 5 &&
    ok "2: pg15 opened shows its digests (pg_stat_statements, $(T capture-pane -p -t s | grep -o 'read every [0-9]* s' || echo 'every refresh'))" ||
    nok "2 on pg15: $(screen)"
T send-keys -t s 0
T send-keys -t s n
wait_re '\[3/3\] pg18 \(' 5 && ok "n: the next server (pg18)" || nok "n: $(screen)"
T send-keys -t s n
wait_re '\[1/3\] maria \(' 5 && ok "n wraps to the first (maria)" || nok "n wrap: $(screen)"
T send-keys -t s p
wait_re '\[3/3\] pg18 \(' 5 && ok "p: the previous server (pg18)" || nok "p: $(screen)"
T send-keys -t s 3
wait_re '^\[3\] lock waits' 5 && ok "3: pg18's lock screen" || nok "3: $(screen)"
T send-keys -t s p
wait_re '\[2/3\] pg15 \(' 5 && T capture-pane -p -t s | grep -q '^\[3\] lock waits' &&
    ok "p on screen 3: pg15's screen 3" || nok "p on 3: $(screen)"
T send-keys -t s Escape
wait_re '\[2/3\] pg15' 5 && ! T capture-pane -p -t s | grep -q 'FLEET' && ok "Esc on a pane: pg15's overview" || nok "Esc 1: $(screen)"
T send-keys -t s Escape
wait_re 'FLEET 3 servers' 5 && ok "Esc on the overview: the fleet" || nok "Esc 2: $(screen)"
T send-keys -t s Enter
wait_re '\[2/3\] pg15' 5 && ok "the fleet kept pg15's row selected" || nok "selection kept: $(screen)"
T send-keys -t s F
wait_re 'FLEET 3 servers' 5 && ok "F: the fleet" || nok "F: $(screen)"
T send-keys -t s / 'pg1' Enter
if wait_re 'filter /pg1/: 2 of 3' 5 && ! T capture-pane -p -t s | grep -q '^maria '; then ok "/pg1: maria filtered out"; else nok "filter: $(screen)"; fi
T send-keys -t s / C-u BSpace BSpace BSpace Enter
wait_re '^maria ' 5 && ok "empty filter: every server" || nok "filter cleared: $(screen)"
T send-keys -t s s
wait_re 'sorted worst first' 5 && ok "s: sorted worst first" || nok "s: $(screen)"
T send-keys -t s q
for i in $(seq 1 60); do grep -q EXITED < <(T capture-pane -p -t s) && break; sleep 0.1; done
T capture-pane -p -t s | grep -q 'EXITED 0' && ok "q: exit 0" || nok "q: $(screen) $(cat "$tmp/err")"

# the pacing check below takes the gaps after the second digest read of
# pg15 in the records (one in the first record, then one each 10 s or
# more): the batch runs until there are three or its own time is up
for i in $(seq 1 300); do
    [ "$(jq -r 'select(.server=="pg15" and .digests_fresh) | .ts' "$tmp/b.json" 2>/dev/null | wc -l)" -ge 3 ] && break
    kill -0 "$bp" 2>/dev/null || break
    sleep 0.1
done
kill "$bp" 2>/dev/null
wait "$bp" 2>/dev/null
bp=

# a target in the background reads its digests at most every 10 s (its
# row's figures from every refresh's counters): pg15 on the fleet screen
# and in the batch; its digest source says so; the record rates every time.
# Read once the batch has ended: its whole file (three reads take over
# 20 s, and longer on a busy host)
fr=$(jq -r 'select(.server=="pg15" and .digests_fresh) | .ts' "$tmp/b.json" |
    awk 'NR > 2 { g = $1 - p; if (m == "" || g < m) m = g } { p = $1 } END { printf "%.1f", m == "" ? -1 : m }')
nrec=$(jq -r 'select(.server=="pg15") | .ts' "$tmp/b.json" | wc -l)
span=$(jq -r 'select(.server=="pg15") | .ts' "$tmp/b.json" | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%.0f", b - a }')
nfr=$(jq -r 'select(.server=="pg15" and .digests_fresh) | .ts' "$tmp/b.json" | wc -l)
nc=$(jq -r 'select(.server=="pg15") | .rates.commits_per_s | numbers' "$tmp/b.json" | wc -l)
src=$(jq -r 'select(.server=="pg15" and .digests_fresh) | .digests_source' "$tmp/b.json" | tail -1)
if awk -v g="$fr" 'BEGIN { exit !(g >= 9.5) }' && grep -qE 'read every ([1-9][0-9]|[1-9][0-9][0-9]) s' <<<"$src" &&
    [ "$nc" -ge $((nrec - 2)) ]; then
    ok "batch: pg15's digests read ${fr}s apart at least (\"$src\", $nfr reads over ${span}s), commits in $nc of $nrec records"
else
    nok "batch: pg15's digests ${fr}s apart (\"$src\", $nfr reads over ${span}s), commits in $nc of $nrec records"
fi

# ---- tuning acts on the server shown, with its own journal ----
cp "$tmp/err" "$tmp/err1"
M="$DBTOP_MARIADB_CLIENT"
myv() { $M -N -e "SELECT @@GLOBAL.$1"; }
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1"
printf 'maria = %s\npg15 = %s\n' "$DBTOP_MARIADB_ADMIN_URI" "$DBTOP_PG15_ADMIN_URI" >"$tmp/admin"
chmod 600 "$tmp/admin"
UP_WAIT=20 dbtop_start 120 40 --targets "$tmp/admin" -i $IV
wait_re 'FLEET 2 servers: 2 UP' 20 || nok "admin fleet: $(screen)"
T send-keys -t s Home Enter
wait_re '\[1/2\] maria' 5 || nok "admin fleet Enter: $(screen)"
T send-keys -t s 5 g
if wait_re "^setting +now" 5; then
    T send-keys -t s a
    if wait_re "Change this setting\?" 5 && T capture-pane -p -t s | unframe | tr -s ' \n' ' ' | grep -qF 'SET GLOBAL innodb_flush_log_at_trx_commit = 2'; then
        T send-keys -t s y
        for i in $(seq 1 50); do [ "$(myv innodb_flush_log_at_trx_commit)" = 2 ] && break; sleep 0.1; done
        [ "$(myv innodb_flush_log_at_trx_commit)" = 2 ] && ok "tuning on maria's screen 5: innodb_flush_log_at_trx_commit=2" ||
            nok "tuning: value $(myv innodb_flush_log_at_trx_commit)"
        wait_re 'TUNED 1 .*\[1/2\] maria' 5 && ok "maria's header: TUNED 1" || nok "no TUNED on maria: $(screen)"
        T send-keys -t s n
        if wait_re '\[2/2\] pg15' 5 && ! T capture-pane -p -t s | head -1 | grep -q TUNED; then ok "n: pg15's header without maria's TUNED"
        else nok "pg15 header: $(T capture-pane -p -t s | head -1)"; fi
        nj=$(ls "$XDG_STATE_HOME"/dbtop/*.journal 2>/dev/null | wc -l)
        [ "$nj" = 1 ] && ok "one undo journal: maria's only" || nok "$nj journals"
    else
        nok "tuning: no confirmation with the SQL: $(screen)"
    fi
else
    nok "tuning: screen 5 not shown: $(screen)"
fi
T send-keys -t s q
for i in $(seq 1 80); do grep -q EXITED < <(T capture-pane -p -t s) && break; sleep 0.1; done
[ "$(myv innodb_flush_log_at_trx_commit)" = 1 ] && grep -q 'maria: reverted 1 setting change' "$tmp/err" &&
    ok "q reverted maria's change, named: $(head -c 120 "$tmp/err")" || nok "after q: $(myv innodb_flush_log_at_trx_commit), $(cat "$tmp/err")"
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1"
grep -q monpw "$tmp/b.json" "$tmp/b.err" "$tmp/err1" && nok "a password in the output" || ok "no password in any output"
grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$tmp/b.err" "$tmp/err1" "$tmp/err" &&
    nok "a sanitizer report: $(grep -hE 'Sanitizer|runtime error' "$tmp/b.err" "$tmp/err1" "$tmp/err" | head -3)" || ok "no sanitizer report"
done_tests
