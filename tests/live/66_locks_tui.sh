# The locks screen on live servers, in tmux: a row-lock wait shows up on
# screen 3; x asks for a confirmation naming the root blocker and the
# statement that ends it; n leaves it alone; the waiter selected (Down), c
# then y cancels its statement and leaves its blocker alone; x then y on
# the root ends it; the selection follows the root chosen (g) when a root
# blocking more sessions takes the top of the tree, and x then still names
# the one chosen; on the overview x and c do nothing; with --read-only x
# does nothing but say so.
# dbtop runs as the admin user here: ending another user's session needs
# privileges the monitoring user does not have.
. tests/lib.sh
. tests/sessions.sh
tui_init locks
sockbase=$sock
cleanup() {
    for n in mariadb pg15; do
        tmux -L "$sockbase-$n" kill-server 2>/dev/null
        tmux -L "$sockbase-$n-ro" kill-server 2>/dev/null
    done
    sessions_kill
    rm -rf "$tmp"
}
trap cleanup EXIT
# waitfile FILE ERE SECONDS: poll FILE for ERE
waitfile() {
    local i
    for ((i = 0; i < $3 * 20; i++)); do
        grep -qE -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# root_line ID: the screen line of root ID's row in the tree, or 0
root_line() {
    T capture-pane -p -t s 2>/dev/null | grep -nE "^ *(▶|>)[⟳@]? ?$1 " | head -n 1 | cut -d: -f1 | grep . || echo 0
}
# above ID1 ID2 SECONDS: poll until root ID1 is drawn above root ID2
above() {
    local i a b
    for ((i = 0; i < $3 * 20; i++)); do
        a=$(root_line "$1") b=$(root_line "$2")
        [ "$a" -gt 0 ] && [ "$b" -gt "$a" ] && return 0
        sleep 0.05
    done
    return 1
}

# lockwait ID SECONDS: poll until the server shows session ID waiting on a
# lock (a client started on a busy machine may take seconds to get there:
# the screen is given its time from then)
waiting_now() { [ "$(waits "$1")" = 1 ]; }
lockwait() { slow_until "$2" waiting_now "$1"; }

# gone ID SECONDS: poll until session ID has left the server's session list
gone_now() { [ "$(present "$1")" = 0 ]; }
gone() { until_true "$2" gone_now "$1"; }

for name in mariadb pg15; do
    if [ "$name" = mariadb ]; then
        M=$DBTOP_MARIADB_CLIENT
        uri=$DBTOP_MARIADB_ADMIN_URI
        C="$M -n -N"
        ID="SELECT CONNECTION_ID();"
        LW="SET SESSION innodb_lock_wait_timeout = 45;"
        KILLWORD=KILL
        CANCELWORD="KILL QUERY (ID )?[0-9]+"
        CANCELLED="Query execution was interrupted|interrupted"
        $M -e "DROP TABLE IF EXISTS lk_tui; CREATE TABLE lk_tui (id INT PRIMARY KEY, v INT) ENGINE=InnoDB; INSERT INTO lk_tui VALUES (1, 0), (2, 0)"
        present() { $M -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = $1"; }
        waits() { $M -N -e "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = $1 AND trx_state = 'LOCK WAIT'"; }
        endid() { $M -e "KILL $1"; }
    else
        psql=$DBTOP_PG15_PSQL
        uri=$DBTOP_PG15_ADMIN_URI
        C="$psql -At"
        ID="SELECT pg_backend_pid();"
        LW="SET lock_timeout = '45s';"
        KILLWORD=pg_terminate_backend
        CANCELWORD="pg_cancel_backend"
        CANCELLED="canceling statement due to user request"
        $psql -qc "DROP TABLE IF EXISTS lk_tui" -qc "CREATE TABLE lk_tui (id int PRIMARY KEY, v int)" -qc "INSERT INTO lk_tui VALUES (1, 0), (2, 0)" >/dev/null 2>&1
        present() { $psql -Atc "SELECT count(*) FROM pg_stat_activity WHERE pid = $1"; }
        waits() { $psql -Atc "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'"; }
        endid() { $psql -Atc "SELECT pg_terminate_backend($1)"; }
    fi

    for mode in rw ro; do
        sock=$sockbase-$name
        flags=
        [ $mode = ro ] && sock=$sockbase-$name-ro flags=--read-only
        # the screen's samples, to read back: its first frame's lock count
        [ $mode = ro ] && flags="$flags --record $tmp/$name-first.dbrec"
        sess a 40 "$C" "$ID" "BEGIN;" "UPDATE lk_tui SET v = v + 1 WHERE id = 1;"
        getid a
        sess b 40 "$C" "$ID" "$LW" "UPDATE lk_tui SET v = v + 2 WHERE id = 1;"
        getid b
        A=${sid[a]} B=${sid[b]}
        lockwait "$B" 20 || echo "# $name $mode: the server did not show $B waiting within 20 s"
        # shellcheck disable=SC2086
        if ! dbtop_start 200 50 $flags --interval 0.5 --connect-timeout 2 "$uri"; then
            nok "$name $mode: screen did not come up: $(screen)"
            T kill-server 2>/dev/null
            endsess endid b a
            continue
        fi
        T send-keys -t s 3
        if wait_re "[├└\`|]-? ?$B .*requested" 5; then ok "$name $mode: screen 3 shows waiter $B and what it requested"; else nok "$name $mode: no waiter $B with 'requested' on screen 3: $(screen)"; fi
        T send-keys -t s x
        if [ $mode = rw ]; then
            if framed_re "session $A .*$KILLWORD ?\(?$A\)?" 3; then ok "$name: x asks for a confirmation naming root $A and $KILLWORD"; else nok "$name: no confirmation naming $A and $KILLWORD: $(screen)"; fi
            T send-keys -t s n
            if wait_re "not done" 3; then ok "$name: n: 'not done'"; else nok "$name: n did not say 'not done': $(screen)"; fi
            sleep 1
            if [ "$(present "$A")" = 1 ]; then ok "$name: n: blocker $A still there"; else nok "$name: n: blocker $A is gone"; fi
            # the overview: the locks tile focused, j j k x c ask nothing
            T send-keys -t s 0
            T send-keys -t s Tab Tab j j k x
            if wait_re "x does nothing here" 3; then ok "$name: overview: x does nothing (says where it works)"; else nok "$name: overview: x: $(screen)"; fi
            T send-keys -t s c
            sleep 1
            if ! T capture-pane -p -t s | grep -qE "End this session|Cancel this statement" && [ "$(present "$A")" = 1 ] && [ "$(present "$B")" = 1 ]; then
                ok "$name: overview: x and c asked nothing, ended nothing"
            else
                nok "$name: overview: a confirmation or a session gone: $(screen)"
            fi
            # the waiter selected (one row down from its root): c y cancels
            # its statement; its blocker stays
            T send-keys -t s 3 g j c
            if framed_re "CANCEL the statement of session $B .*$CANCELWORD" 3; then
                ok "$name: c on the selected waiter asks to cancel $B ($CANCELWORD), not its root $A"
                T send-keys -t s y
                if waitfile "$tmp/b.out" "$CANCELLED" 5; then ok "$name: c y: the waiter's statement was cancelled ($(grep -m1 -oE "$CANCELLED" "$tmp/b.out"))"; else nok "$name: c y: no cancellation in the waiter's output: $(tail -c 300 "$tmp/b.out")"; fi
                sleep 1
                if [ "$(present "$A")" = 1 ]; then ok "$name: c y on the waiter: its blocker $A untouched"; else nok "$name: c y on the waiter: blocker $A is gone"; fi
            else
                nok "$name: c on the selected waiter: no confirmation naming $B: $(screen)"
            fi
            # a new waiter; x y on the root ends it
            sess b2 40 "$C" "$ID" "$LW" "UPDATE lk_tui SET v = v + 3 WHERE id = 1;"
            getid b2
            lockwait "${sid[b2]}" 20 || echo "# $name: the server did not show ${sid[b2]} waiting within 20 s"
            T send-keys -t s g
            if wait_re "${sid[b2]} .*requested" 8; then
                T send-keys -t s g x
                if framed_re "END session $A " 3; then
                    T send-keys -t s y
                    if gone "$A" 3; then ok "$name: x y: blocker $A gone within 3 s"; else nok "$name: x y: blocker $A still there after 3 s: $(screen)"; fi
                    # the event log has both of dbtop's actions, as it has its setting changes
                    T send-keys -t s 7
                    if wait_re "session end +session $A ended by dbtop" 3 && wait_re "cancelled +session $B had its statement cancelled by dbtop" 1; then
                        ok "$name: the event log lists the session ended and the statement cancelled by dbtop"
                    else
                        nok "$name: the event log lacks dbtop's x / c: $(screen)"
                    fi
                    T send-keys -t s 3
                else
                    nok "$name: second x: no confirmation: $(screen)"
                fi
            else
                nok "$name: the new waiter ${sid[b2]} is not on screen 3: $(screen)"
            fi
            endsess endid b2
            # the selection follows the session, not the row: g on the only
            # root (c, blocking d), its identity seen (x n); then e, blocking
            # two, takes the top of the tree; x still names c
            sess c 20 "$C" "$ID" "BEGIN;" "UPDATE lk_tui SET v = v + 1 WHERE id = 2;"
            getid c
            sess d 20 "$C" "$ID" "$LW" "UPDATE lk_tui SET v = v + 2 WHERE id = 2;"
            getid d
            C1=${sid[c]}
            T send-keys -t s 3
            if wait_re "${sid[d]} .*requested" 8 && T send-keys -t s g x && framed_re "END session $C1 " 3; then
                T send-keys -t s n
                wait_re "not done" 3
                sess e 20 "$C" "$ID" "BEGIN;" "UPDATE lk_tui SET v = v + 1 WHERE id = 1;"
                getid e
                sess f 20 "$C" "$ID" "$LW" "UPDATE lk_tui SET v = v + 2 WHERE id = 1;"
                sess h 20 "$C" "$ID" "$LW" "UPDATE lk_tui SET v = v + 3 WHERE id = 1;"
                getid f
                getid h
                if above "${sid[e]}" "$C1" 10; then
                    ok "$name: root ${sid[e]} (blocking 2) drawn above root $C1 (blocking 1), lines $(root_line "${sid[e]}") < $(root_line "$C1")"
                    T send-keys -t s x
                    if framed_re "END session $C1 " 3; then
                        ok "$name: the tree reordered: x still names $C1, the root chosen, not ${sid[e]} now on top"
                    else
                        nok "$name: after the reorder x does not name $C1: $(screen)"
                    fi
                    T send-keys -t s n
                    wait_re "not done" 3
                else
                    nok "$name: root ${sid[e]} never drawn above $C1: $(screen)"
                fi
                if [ "$(present "$C1")" = 1 ] && [ "$(present "${sid[e]}")" = 1 ]; then ok "$name: n: both roots still there"; else nok "$name: a root is gone after n"; fi
            else
                nok "$name: root $C1 with waiter ${sid[d]}: no confirmation naming it after g x: $(screen)"
            fi
            endsess endid h f e d c
        else
            if wait_re "read-only" 3; then ok "$name --read-only: x says read-only"; else nok "$name --read-only: x did not say read-only: $(screen)"; fi
            T send-keys -t s y
            sleep 1.5
            if [ "$(present "$A")" = 1 ] && ! T capture-pane -p -t s | grep -qE "End this session|ending session"; then ok "$name --read-only: nothing killed, no confirmation asked"; else nok "$name --read-only: blocker $A present: $(present "$A"); screen: $(screen)"; fi
        fi
        T send-keys -t s q
        check "$name $mode: q quits with status 0" wait_exited 0 5
        T kill-server 2>/dev/null
        endsess endid b a
    done
    # the first frame first: PostgreSQL's gate (a scan of every session)
    # waits with the graph, and says so (null, not 0); the next sample
    # counts the waiter. MariaDB counts row-lock waits from its status. (A
    # record needs two samples: the replay's first is the first frame's.)
    "$DBTOP" --replay "$tmp/$name-first.dbrec" --speed 0 --batch --format json >"$tmp/$name-first.json" 2>/dev/null
    if [ "$name" = pg15 ]; then
        check "$name: the screen's first frame leaves the lock count out (pending, null: $(jq -sc '[.[:3][] | .locks_waiting]' "$tmp/$name-first.json" 2>&1)); the next sample counts the waiter" \
            jq -se 'length >= 2 and .[0].locks_status == "pending" and .[0].locks_waiting == null and any(.[1:][]; .locks_waiting >= 1)' "$tmp/$name-first.json"
    else
        check "$name: the screen's first sample counts the waiter already ($(jq -sc '[.[:3][] | .locks_waiting]' "$tmp/$name-first.json" 2>&1))" \
            jq -se 'length >= 1 and .[0].locks_waiting >= 1' "$tmp/$name-first.json"
    fi
done
done_tests
