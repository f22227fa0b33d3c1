# The locks screen on live servers, in tmux: a row-lock wait shows up on
# screen 3; k asks for a confirmation naming the root blocker and the
# statement that ends it; n leaves it alone; k then y ends it; with
# --read-only k does nothing but say so.
# dbtop runs as the admin user here: ending another user's session needs
# privileges the monitoring user does not have.
. tests/lib.sh
. tests/sessions.sh
tmp=$(mktemp -d)
sockbase=dbtop-locks-$$
T() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() {
    for n in mariadb pg15; do
        tmux -L "$sockbase-$n" kill-server 2>/dev/null
        tmux -L "$sockbase-$n-ro" kill-server 2>/dev/null
    done
    sessions_kill
    rm -rf "$tmp"
}
trap cleanup EXIT
export TZ=UTC LANG=C.UTF-8

# gone ID SECONDS: poll until session ID has left the server's session list
gone() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        [ "$(present "$1")" = 0 ] && return 0
        sleep 0.05
    done
    return 1
}

for name in mariadb pg15; do
    if [ "$name" = mariadb ]; then
        M=$DBTOP_MARIADB_CLIENT
        uri=$DBTOP_MARIADB_ADMIN_URI
        C="$M -n -N"
        ID="SELECT CONNECTION_ID();"
        LW="SET SESSION innodb_lock_wait_timeout = 20;"
        KILLWORD=KILL
        $M -e "DROP TABLE IF EXISTS lk_tui; CREATE TABLE lk_tui (id INT PRIMARY KEY, v INT) ENGINE=InnoDB; INSERT INTO lk_tui VALUES (1, 0), (2, 0)"
        present() { $M -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = $1"; }
        endid() { $M -e "KILL $1"; }
    else
        psql=$DBTOP_PG15_PSQL
        uri=$DBTOP_PG15_ADMIN_URI
        C="$psql -At"
        ID="SELECT pg_backend_pid();"
        LW="SET lock_timeout = '20s';"
        KILLWORD=pg_terminate_backend
        $psql -qc "DROP TABLE IF EXISTS lk_tui" -qc "CREATE TABLE lk_tui (id int PRIMARY KEY, v int)" -qc "INSERT INTO lk_tui VALUES (1, 0), (2, 0)" >/dev/null 2>&1
        present() { $psql -Atc "SELECT count(*) FROM pg_stat_activity WHERE pid = $1"; }
        endid() { $psql -Atc "SELECT pg_terminate_backend($1)"; }
    fi

    for mode in rw ro; do
        sock=$sockbase-$name
        flags=
        [ $mode = ro ] && sock=$sockbase-$name-ro flags=--read-only
        sess a 15 "$C" "$ID" "BEGIN;" "UPDATE lk_tui SET v = v + 1 WHERE id = 1;"
        getid a
        sess b 15 "$C" "$ID" "$LW" "UPDATE lk_tui SET v = v + 2 WHERE id = 1;"
        getid b
        A=${sid[a]} B=${sid[b]}
        T new-session -d -s s -x 200 -y 50 "$DBTOP $flags --interval 0.5 --connect-timeout 2 '$uri'; echo EXITED \$?; sleep 30"
        if ! wait_re " UP " 10; then
            nok "$name $mode: screen did not come up: $(screen)"
            T kill-server 2>/dev/null
            endsess endid b a
            continue
        fi
        T send-keys -t s 3
        if wait_re "[├└\`|]-? ?$B .*requested" 5; then ok "$name $mode: screen 3 shows waiter $B and what it requested"; else nok "$name $mode: no waiter $B with 'requested' on screen 3: $(screen)"; fi
        T send-keys -t s k
        if [ $mode = rw ]; then
            if wait_re "$KILLWORD ?\(?$A\)?" 3 && wait_re "session $A" 1; then ok "$name: k asks for a confirmation naming root $A and $KILLWORD"; else nok "$name: no confirmation naming $A and $KILLWORD: $(screen)"; fi
            T send-keys -t s n
            if wait_re "not done" 3; then ok "$name: n: 'not done'"; else nok "$name: n did not say 'not done': $(screen)"; fi
            sleep 1
            if [ "$(present "$A")" = 1 ]; then ok "$name: n: blocker $A still there"; else nok "$name: n: blocker $A is gone"; fi
            T send-keys -t s k
            if wait_re "session $A" 3; then
                T send-keys -t s y
                if gone "$A" 3; then ok "$name: k y: blocker $A gone within 3 s"; else nok "$name: k y: blocker $A still there after 3 s: $(screen)"; fi
            else
                nok "$name: second k: no confirmation: $(screen)"
            fi
        else
            if wait_re "read-only" 3; then ok "$name --read-only: k says read-only"; else nok "$name --read-only: k did not say read-only: $(screen)"; fi
            T send-keys -t s y
            sleep 1.5
            if [ "$(present "$A")" = 1 ] && ! T capture-pane -p -t s | grep -qE "End this session|ending session"; then ok "$name --read-only: nothing killed, no confirmation asked"; else nok "$name --read-only: blocker $A present: $(present "$A"); screen: $(screen)"; fi
        fi
        T send-keys -t s q
        check "$name $mode: q quits with status 0" wait_re "EXITED 0" 5
        T kill-server 2>/dev/null
        endsess endid b a
    done
done
done_tests
