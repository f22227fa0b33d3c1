# The sessions screen (6) live on MariaDB and PostgreSQL 15, with 10 idle
# sessions, 3 active (sleeping SELECTs), a transaction holding a row lock
# and 2 sessions waiting for it:
#  - the screen lists them: the waiters as "waiting for lock" naming their
#    blocker, the holder "idle in transaction", the sleepers "active";
#  - idle hidden by default; i shows exactly the idle ones (every one of
#    the 10, and no row added that is not idle), i again hides them;
#  - s walks every column and r reverses it; by id the rows ascend, reversed
#    they descend;
#  - the selection stays on the same session while rows move above it (the
#    shortest time in state first; two new sessions come in on top);
#  - c cancels the selected session's statement (it stays), x ends the
#    selected session; the identity guard refuses when the session began
#    another transaction between the confirmation and y;
#  - --read-only: x is refused before anything is asked or sent.
# Every client is started here and ended by PID; every session sleeps at
# most 90 s (the holder and the sleepers; the others 20 s).
. tests/lib.sh
. tests/sessions.sh
tmp=$(mktemp -d)
sockbase=dbtop-s58-$$
T() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() {
    for n in mariadb pg15 mariadb-ro pg15-ro; do tmux -L "$sockbase-$n" kill-server 2>/dev/null; done
    sessions_kill
    rm -rf "$tmp"
}
trap cleanup EXIT
export TZ=UTC LANG=C.UTF-8
t0=$(date +%s)

screen() { T capture-pane -p -t s 2>/dev/null; }
# wait_re ERE SECONDS: poll the screen for ERE
wait_re() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        screen | grep -qE -- "$1" && return 0
        sleep 0.05
    done
    return 1
}
# joined_re ERE SECONDS: the same on the screen's lines trimmed and joined
# (and the confirmation frame's rows joined)
joined_re() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        { screen | sed 's/^ *//; s/ *$//' | tr '\n' ' '
          echo; screen | sed -n 's/^.*│ \(.*[^ ]\) *│ *$/\1/p' | tr '\n' ' '; } | grep -qE -- "$1" && return 0
        sleep 0.05
    done
    return 1
}
# ids: the ids of the rows shown (the first column of the table)
ids() { screen | awk 'NR > 3 && $1 ~ /^[0-9]+$/ { print $1 }'; }
# row ID: the row of session ID
row() { screen | awk -v id="$1" '$1 == id'; }
# filter PATTERN: / (the prompt starts with the pattern in force: erased)
# PATTERN Enter
filter() {
    T send-keys -t s /
    for _ in $(seq 24); do T send-keys -t s BSpace; done
    T send-keys -t s -l "$1"
    T send-keys -t s Enter
}
say() { local n=$1; shift; printf '%s\n' "$@" >"$tmp/$n.in"; }

for name in mariadb pg15; do
    if [ "$name" = mariadb ]; then
        M=$DBTOP_MARIADB_CLIENT
        uri=$DBTOP_MARIADB_ADMIN_URI
        C="$M -n -N --force"
        ID="SELECT CONNECTION_ID();"
        LW="SET SESSION innodb_lock_wait_timeout = 20;"
        SLEEP="SELECT SLEEP(90);"
        $M -e "DROP TABLE IF EXISTS s58; CREATE TABLE s58 (id INT PRIMARY KEY, v INT) ENGINE=InnoDB; INSERT INTO s58 VALUES (1, 0), (2, 0), (3, 0)"
        present() { $M -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = $1"; }
        running() { $M -N -e "SELECT COALESCE(INFO, '') FROM information_schema.PROCESSLIST WHERE ID = $1"; }
        endid() { $M -e "KILL $1"; }
        trx() { $M -N -e "SELECT CONCAT(trx_id, ' ', trx_started) FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = $1"; }
    else
        P=$DBTOP_PG15_PSQL
        uri=$DBTOP_PG15_ADMIN_URI
        C="$P -At"
        ID="SELECT pg_backend_pid();"
        LW="SET lock_timeout = '20s';"
        SLEEP="SELECT pg_sleep(90);"
        $P -qc "DROP TABLE IF EXISTS s58" -qc "CREATE TABLE s58 (id int PRIMARY KEY, v int)" -qc "INSERT INTO s58 VALUES (1, 0), (2, 0), (3, 0)" >/dev/null 2>&1
        present() { $P -Atc "SELECT count(*) FROM pg_stat_activity WHERE pid = $1"; }
        running() { $P -Atc "SELECT CASE WHEN state = 'active' THEN query ELSE '' END FROM pg_stat_activity WHERE pid = $1"; }
        endid() { $P -Atc "SELECT pg_terminate_backend($1)"; }
        trx() { $P -Atc "SELECT xact_start FROM pg_stat_activity WHERE pid = $1 AND xact_start IS NOT NULL"; }
    fi
    names=()
    for k in 0 1 2 3 4 5 6 7 8 9; do sess i$k 20 "$C" "$ID"; names+=(i$k); done
    for k in 0 1 2; do sess a$k 90 "$C" "$ID" "$SLEEP"; names+=(a$k); done
    # the holder lives through every step up to the guard and the x after it (on
    # a busy machine those steps took over 20 s: it left by itself, and the
    # guard found no session to refuse)
    sess h 90 "$C" "$ID" "BEGIN;" "UPDATE s58 SET v = v + 1 WHERE id = 1;"
    getid h
    for k in 0 1; do sess w$k 20 "$C" "$ID" "$LW" "UPDATE s58 SET v = v + 1 WHERE id = 1;"; names+=(w$k); done
    names+=(h)
    for n in "${names[@]}"; do getid "$n"; done
    H=${sid[h]}
    sock=$sockbase-$name
    T new-session -d -s s -x 200 -y 50 "$DBTOP --interval 0.5 --connect-timeout 2 '$uri'; echo EXITED \$?; sleep 30"
    wait_re " UP " 10 && T send-keys -t s 6
    if wait_re "^ *${sid[w0]} .*⟵ " 10 && wait_re "^ *${sid[w1]} .*⟵ " 5; then ok "$name: screen 6 lists the 2 waiters naming a blocker"; else nok "$name: waiters: $(screen | head -20)"; fi
    w0=$(row "${sid[w0]}")
    if grep -q "waiting for lock" <<<"$w0" && grep -qE "⟵ ($H|${sid[w1]})" <<<"$w0"; then ok "$name: waiter ${sid[w0]}: $(sed 's/  */ /g' <<<"$w0" | cut -c1-90)"; else nok "$name: waiter row: $w0"; fi
    check "$name: the holder $H is idle in transaction" grep -q "idle in transaction" <<<"$(row "$H")"
    check "$name: the 3 sleepers are active" bash -c '[ "$(grep -c " active " <<<"$1")" -ge 3 ]' _ "$(for k in 0 1 2; do row "${sid[a$k]}"; done)"
    # hide idle: none of the 10 before; i: all 10, and only idle rows added
    before=$(ids | sort)
    nidle=0
    for k in 0 1 2 3 4 5 6 7 8 9; do grep -qx "${sid[i$k]}" <<<"$before" && nidle=$((nidle + 1)); done
    check "$name: idle hidden by default ($nidle of 10 shown)" test "$nidle" = 0
    T send-keys -t s i
    slow_until 5 eval '[ -n "$(row "${sid[i9]}")" ]'
    sleep 0.6
    after=$(ids | sort)
    added=$(comm -13 <(echo "$before") <(echo "$after"))
    nshown=0
    for k in 0 1 2 3 4 5 6 7 8 9; do grep -qx "${sid[i$k]}" <<<"$added" && nshown=$((nshown + 1)); done
    notidle=$(for id in $added; do row "$id"; done | grep -vcE "^ *[0-9]+ .* idle ")
    if [ "$nshown" = 10 ] && [ "$notidle" = 0 ]; then ok "$name: i shows the 10 idle sessions, every row added is idle ($(wc -w <<<"$added") added)"; else nok "$name: i: $nshown of 10 shown, $notidle added rows not idle"; fi
    T send-keys -t s i
    sleep 0.6
    n=0
    for k in 0 1 2 3 4 5 6 7 8 9; do [ -n "$(row "${sid[i$k]}")" ] && n=$((n + 1)); done
    check "$name: i again hides them ($n shown)" test "$n" = 0
    # s through every column, r on each
    seen=0
    for col in blocker wait "time in state" "transaction age" statement id user database client state; do
        T send-keys -t s s
        wait_re "^sort: $col \(" 3 || continue
        T send-keys -t s r
        wait_re "^sort: $col reversed" 3 && seen=$((seen + 1))
        if [ "$col" = id ]; then
            a=$(ids); T send-keys -t s r; wait_re "^sort: id \(" 3; sleep 0.6; b=$(ids)
            if [ "$(echo "$b")" = "$(sort -n <<<"$b")" ] && [ "$(echo "$a")" = "$(sort -rn <<<"$a")" ] && [ -n "$a" ]; then
                ok "$name: by id ascending, reversed descending ($(wc -l <<<"$b") rows)"
            else
                nok "$name: id sort: $(tr '\n' ' ' <<<"$b") / reversed $(tr '\n' ' ' <<<"$a")"
            fi
            continue
        fi
        T send-keys -t s r
    done
    check "$name: s walks the 10 columns, r reverses each ($seen of 10)" test "$seen" = 10
    # the selection follows: shortest time first, select the third row, two
    # new sessions come in above it
    for _ in 1 2 3; do T send-keys -t s s; done
    wait_re "^sort: time in state \(" 3 && T send-keys -t s r
    wait_re "^sort: time in state reversed" 3
    sleep 0.6
    T send-keys -t s g Down Down Enter
    wait_re "^session [0-9]+ " 3
    X=$(screen | sed -nE 's/^session ([0-9]+) .*/\1/p' | head -1)
    T send-keys -t s Escape
    sess n0 20 "$C" "$ID" "$SLEEP"; sess n1 20 "$C" "$ID" "$SLEEP"
    getid n0; getid n1
    slow_until 6 eval '[ -n "$(row "${sid[n1]}")" ] && [ -n "$(row "${sid[n0]}")" ]'
    sleep 1.2   # two more refreshes
    order=$(ids)
    above=$(awk -v x="$X" -v a="${sid[n0]}" -v b="${sid[n1]}" '$1 == a || $1 == b { n++ } $1 == x { print n + 0; exit }' <<<"$order")
    check "$name: the two new sessions are listed above $X (${above:-0} of 2)" test "${above:-0}" = 2
    T send-keys -t s Enter
    wait_re "^session [0-9]+ " 3
    Y=$(screen | sed -nE 's/^session ([0-9]+) .*/\1/p' | head -1)
    if [ -n "$X" ] && [ "$X" = "$Y" ]; then ok "$name: the selection stayed on session $X while ${sid[n0]} and ${sid[n1]} came in above"; else nok "$name: selected $X, then $Y"; fi
    T send-keys -t s Escape
    # c on a sleeper: its statement cancelled, the session stays
    A=${sid[a0]}
    filter "^$A\$"
    wait_re "filter /\\^$A\\$/ \(1 rows\)" 5
    T send-keys -t s c
    if joined_re "CANCEL the statement of session $A .*session $A is still the one shown" 5; then
        T send-keys -t s y
        if slow_until 8 eval '! running "$A" | grep -qi sleep'; then ok "$name: c y: the statement of $A cancelled"; else nok "$name: c y: $A still runs $(running "$A")"; fi
        check "$name: c: $A stays" test "$(present "$A")" = 1
    else
        nok "$name: c: no confirmation: $(screen | tail -15)"
    fi
    # the identity guard: x asked on the holder, which then commits and
    # begins another transaction; y does nothing
    t1=$(trx "$H")
    filter "^$H\$"
    wait_re "filter /\\^$H\\$/ \(1 rows\)" 5
    T send-keys -t s x
    if joined_re "END session $H .*session $H is still the one shown" 5; then
        say h "COMMIT;" "BEGIN;" "UPDATE s58 SET v = v + 1 WHERE id = 3;"
        slow_until 5 eval '[ -n "$(trx "$H")" ] && [ "$(trx "$H")" != "$t1" ]'
        sleep 0.3
        T send-keys -t s y
        if wait_re "session $H is not the one you saw: nothing was done" 6; then ok "$name: x y after $H began another transaction: refused"; else nok "$name: guard: $(screen | tail -3)"; fi
        check "$name: $H is left alone" test "$(present "$H")" = 1
    else
        nok "$name: x: no confirmation: $(screen | tail -15)"
    fi
    # x on the same session now, as it is: ended
    sleep 1.2
    T send-keys -t s x
    if joined_re "END session $H .*session $H is still the one shown" 5; then
        T send-keys -t s y
        if slow_until 8 eval '[ "$(present "$H")" = 0 ]'; then ok "$name: x y: session $H ended"; else nok "$name: x y: $H still there"; fi
    else
        nok "$name: x (second): no confirmation: $(screen | tail -15)"
    fi
    # m on two sleepers, x: one confirmation, both ended
    B1=${sid[a1]} B2=${sid[a2]}
    filter "^($B1|$B2)\$"
    wait_re "\(2 rows\)" 5
    T send-keys -t s g m Down m x
    if joined_re "END 2 tagged sessions .*$B1 .*$B2|END 2 tagged sessions .*$B2 .*$B1" 5; then
        T send-keys -t s y
        if slow_until 8 eval '[ "$(present "$B1")" = 0 ] && [ "$(present "$B2")" = 0 ]'; then ok "$name: m m x y: both tagged sessions ended ($B1, $B2)"; else nok "$name: tagged: $B1 present $(present "$B1"), $B2 $(present "$B2")"; fi
        # a KILL whose answer comes after the time limit (a starved host: the
        # compound statement reads PROCESSLIST and INNODB_TRX first) cannot be
        # counted as done; the screen then says the time limit was the reason
        if wait_re "ended 2 of 2 tagged sessions" 5; then
            ok "$name: the screen says both were ended"
        elif wait_re "ended 1 of 2 tagged sessions .*last: query exceeded [0-9.]+s time limit" 1; then
            ok "$name: the screen says one was ended and the other's KILL had no answer within the time limit (both gone: checked above)"
        else
            nok "$name: tagged message: $(screen | tail -1)"
        fi
    else
        nok "$name: m m x: no confirmation for both: $(screen | tail -15)"
    fi
    T send-keys -t s q
    wait_exited 0 5 && ok "$name: q quits with status 0" || nok "$name: q: $(screen | tail -2)"
    T kill-server 2>/dev/null
    # --read-only: x refused, nothing asked
    sock=$sockbase-$name-ro
    T new-session -d -s s -x 160 -y 40 "$DBTOP --read-only --interval 0.5 --connect-timeout 2 '$uri'; echo EXITED \$?; sleep 30"
    wait_re " UP " 10 && T send-keys -t s 6
    sess r0 20 "$C" "$ID" "$SLEEP"
    getid r0
    A=${sid[r0]}
    wait_re "^ *$A " 8
    filter "^$A\$"
    wait_re "filter /\\^$A\\$/ \(1 rows\)" 5
    T send-keys -t s x
    if wait_re "read-only session \(--read-only\): no kill or cancel" 5 && ! screen | grep -q "End this session"; then
        ok "$name: --read-only: x refused, no confirmation"
    else
        nok "$name: --read-only: $(screen | tail -3)"
    fi
    if [ "$(present "$A")" = 1 ] && running "$A" | grep -qi sleep; then ok "$name: --read-only: $A untouched, still sleeping"; else nok "$name: --read-only: $A present $(present "$A"), running '$(running "$A")'"; fi
    T kill-server 2>/dev/null
    endsess endid "${names[@]}" n0 n1 r0
done
echo "# 58_sessions_tui took $(($(date +%s) - t0)) s"
