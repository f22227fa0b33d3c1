# x / c act only on the session that was seen. Between the confirmation and
# y the session changes; y then does nothing and the screen says why:
#  - MariaDB and PostgreSQL: the root blocker commits and begins another
#    transaction (a pooled connection doing other work);
#  - PostgreSQL: the backend ends and a new one gets its pid. Pids are
#    reused for real: a private PostgreSQL server runs in a PID namespace
#    of its own, where writing ns_last_pid makes the next backend take the
#    freed pid (needs root; skipped otherwise).
#  - c: the root blocker's statement ends and the next begins: refused.
# And the positive cases: x y still ends the session that was seen, c y
# cancels the statement seen (the session stays).
. tests/lib.sh
. tests/sessions.sh
tui_init kid
chmod 755 "$tmp"   # the postgres user reaches the namespaced server's files
sockbase=$sock
nspid=
cleanup() {
    for n in mariadb pg15 mariadb-c pg15-c pgns; do tmux -L "$sockbase-$n" kill-server 2>/dev/null; done
    if [ -n "$nspid" ]; then
        # the namespace's pid 1 stops the server and leaves; killing it
        # (the fallback) ends every process of the namespace
        timeout 5 sh -c 'echo stop >"$1"' sh "$tmp/ns.ctl"
        timeout 25 tail --pid="$nspid" -f /dev/null
        kill "$nspid" 2>/dev/null
        wait "$nspid" 2>/dev/null
    fi
    sessions_kill
    rm -rf "$tmp"
}
trap cleanup EXIT

# gone ID SECONDS: poll until session ID has left the server's session list
gone() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        [ "$(present "$1")" = 0 ] && return 0
        sleep 0.05
    done
    return 1
}
# say NAME SQL...: more statements for a running session
say() {
    local n=$1
    shift
    printf '%s\n' "$@" >"$tmp/$n.in"
}
# start_dbtop NAME TARGET: dbtop (tmux socket NAME) up, on screen 3 (locks)
start_dbtop() {
    sock=$sockbase-$1
    dbtop_start 200 50 --interval 0.5 --connect-timeout 2 "$2" && T send-keys -t s 3
}
# joined_re ERE SECONDS: poll the screen, its lines trimmed and joined
# with one space (a wrapped confirmation reads as one text), for ERE
joined_re() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        # (and the text inside a confirmation's frame, its rows joined)
        { T capture-pane -p -t s 2>/dev/null | sed 's/^ *//; s/ *$//' | tr '\n' ' '
          echo; T capture-pane -p -t s 2>/dev/null | sed -n 's/^.*│ \(.*[^ ]\) *│ *$/\1/p' | tr '\n' ' '; } |
            grep -qE -- "$1" && return 0
        sleep 0.05
    done
    return 1
}
# ask KEY ID WHAT: press KEY on screen 3 until the confirmation names ID
# and the identity it checks (WHAT: a regex)
ask() {
    T send-keys -t s "$1"
    joined_re "session $2 is still the one shown \\($3" 5
}

# ---- the same connection, another transaction ------------------------------

for name in mariadb pg15; do
    if [ "$name" = mariadb ]; then
        M=$DBTOP_MARIADB_CLIENT
        uri=$DBTOP_MARIADB_ADMIN_URI
        C="$M -n -N"
        ID="SELECT CONNECTION_ID();"
        LW="SET SESSION innodb_lock_wait_timeout = 20;"
        $M -e "DROP TABLE IF EXISTS kid; CREATE TABLE kid (id INT PRIMARY KEY, v INT) ENGINE=InnoDB; INSERT INTO kid VALUES (1, 0), (2, 0), (3, 0)"
        present() { $M -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = $1"; }
        endid() { $M -e "KILL $1"; }
        # the session's transaction now: "trx_id trx_started", "" for none.
        # InnoDB refreshes INNODB_TRX only after 0.1 s without readers:
        # polled faster, it would show (to dbtop too) a stale copy
        trx() { $M -N -e "SELECT CONCAT(trx_id, ' ', trx_started) FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = $1"; }
        TRXRE="transaction [0-9]+ begun [0-9-]+ [0-9:]+ \\(or no statement since query id [0-9]+\\)\\)"
    else
        psql=$DBTOP_PG15_PSQL
        uri=$DBTOP_PG15_ADMIN_URI
        C="$psql -At"
        ID="SELECT pg_backend_pid();"
        LW="SET lock_timeout = '20s';"
        $psql -qc "DROP TABLE IF EXISTS kid" -qc "CREATE TABLE kid (id int PRIMARY KEY, v int)" -qc "INSERT INTO kid VALUES (1, 0), (2, 0), (3, 0)" >/dev/null 2>&1
        present() { $psql -Atc "SELECT count(*) FROM pg_stat_activity WHERE pid = $1"; }
        endid() { $psql -Atc "SELECT pg_terminate_backend($1)"; }
        trx() { $psql -Atc "SELECT xact_start FROM pg_stat_activity WHERE pid = $1 AND xact_start IS NOT NULL"; }
        TRXRE="started [0-9-]+ [0-9:.]+, transaction begun [0-9-]+ [0-9:.]+\\)"
    fi
    sess a 20 "$C" "$ID" "BEGIN;" "UPDATE kid SET v = v + 1 WHERE id = 1;"
    getid a
    sess b 20 "$C" "$ID" "$LW" "UPDATE kid SET v = v + 2 WHERE id = 1;"
    getid b
    A=${sid[a]} B=${sid[b]}
    if ! start_dbtop "$name" "$uri" || ! wait_re "[├└\`|]-? ?$B .*requested" 8; then
        nok "$name: no wait of $B on screen 3: $(screen)"
        T kill-server 2>/dev/null
        endsess endid b a
        continue
    fi
    slow_until 5 eval '[ -n "$(trx "$A")" ]'
    t1=$(trx "$A")
    if ask x "$A" "$TRXRE"; then ok "$name: x: the confirmation names $A and the transaction it checks"; else nok "$name: x: no confirmation with the identity: $(screen)"; fi
    # between the prompt and y: A commits (B gets its row and ends its
    # statement) and begins another transaction
    say a "COMMIT;" "BEGIN;" "UPDATE kid SET v = v + 1 WHERE id = 2;"
    if slow_until 5 eval '[ -n "$(trx "$A")" ] && [ "$(trx "$A")" != "$t1" ]'; then
        ok "$name: $A began another transaction before y ($t1 -> $(trx "$A"))"
    else
        nok "$name: $A did not begin another transaction: $(trx "$A")"
    fi
    t2=$(trx "$A")
    sleep 0.3
    T send-keys -t s y
    if wait_re "session $A is not the one you saw: nothing was done" 5; then
        ok "$name: y: refused: $(T capture-pane -p -t s | grep -oE "session $A is not the one you saw: nothing was done.*" | sed 's/ *$//')"
    else
        nok "$name: y: no refusal on the screen: $(screen)"
    fi
    if wait_re "another transaction" 1; then ok "$name: the screen says it began another transaction"; else nok "$name: the reason is not on the screen: $(screen)"; fi
    if [ "$(present "$A")" = 1 ] && [ "$(trx "$A")" = "$t2" ]; then ok "$name: $A and its new transaction are left alone"; else nok "$name: $A present $(present "$A"), transaction '$(trx "$A")' (was '$t2')"; fi
    # the positive case: a new waiter on A's new row lock; x y ends A
    sess c 20 "$C" "$ID" "$LW" "UPDATE kid SET v = v + 3 WHERE id = 2;"
    getid c
    if wait_re "[├└\`|]-? ?${sid[c]} .*requested" 8 && ask x "$A" "$TRXRE"; then
        T send-keys -t s y
        if gone "$A" 5; then ok "$name: x y on the session seen: $A ended"; else nok "$name: x y: $A still there: $(screen)"; fi
        if wait_re "done \(the session you saw" 3; then ok "$name: the screen says it was the session seen"; else nok "$name: no 'done' message: $(screen)"; fi
    else
        nok "$name: no confirmation for the second chain: $(screen)"
    fi
    T send-keys -t s q
    check "$name: q quits with status 0" wait_exited 0 5
    T kill-server 2>/dev/null
    endsess endid c b a
done

# ---- c: the statement seen -----------------------------------------------------
# A holds a row and runs a short sleep, then a long one; c is asked during
# the short one and answered during the long one: refused. c during the
# long one cancels it; A stays, in its transaction.

for name in mariadb pg15; do
    if [ "$name" = mariadb ]; then
        M=$DBTOP_MARIADB_CLIENT
        uri=$DBTOP_MARIADB_ADMIN_URI
        C="$M -n -N --force"   # the client goes on after its statement is cancelled
        ID="SELECT CONNECTION_ID();"
        LW="SET SESSION innodb_lock_wait_timeout = 20;"
        SLEEP=SLEEP
        present() { $M -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = $1"; }
        endid() { $M -e "KILL $1"; }
        running() { $M -N -e "SELECT COALESCE(INFO, '') FROM information_schema.PROCESSLIST WHERE ID = $1"; }
    else
        psql=$DBTOP_PG15_PSQL
        uri=$DBTOP_PG15_ADMIN_URI
        C="$psql -At"
        ID="SELECT pg_backend_pid();"
        LW="SET lock_timeout = '20s';"
        SLEEP=pg_sleep
        present() { $psql -Atc "SELECT count(*) FROM pg_stat_activity WHERE pid = $1"; }
        endid() { $psql -Atc "SELECT pg_terminate_backend($1)"; }
        running() { $psql -Atc "SELECT CASE WHEN state = 'active' THEN query ELSE '' END FROM pg_stat_activity WHERE pid = $1"; }
    fi
    sess a 20 "$C" "$ID" "BEGIN;" "UPDATE kid SET v = v + 1 WHERE id = 3;" "SELECT $SLEEP(4);" "SELECT $SLEEP(15);"
    getid a
    sess b 20 "$C" "$ID" "$LW" "UPDATE kid SET v = v + 2 WHERE id = 3;"
    getid b
    A=${sid[a]} B=${sid[b]}
    if start_dbtop "$name-c" "$uri" && wait_re "[├└\`|]-? ?$B .*requested" 8 && wait_re "$SLEEP\(4\)" 3 &&
        [ "$(running "$A")" = "SELECT $SLEEP(4);" -o "$(running "$A")" = "SELECT $SLEEP(4)" ] && ask c "$A" "[^)]*statement"; then
        ok "$name c: the confirmation names $A and the statement it checks"
    else
        nok "$name c: no confirmation during $SLEEP(4): running '$(running "$A")': $(screen)"
    fi
    if slow_until 8 eval 'case "$(running "$A")" in *"$SLEEP(15)"*) true ;; *) false ;; esac'; then
        ok "$name c: $A runs its next statement before y"
    else
        nok "$name c: $A did not move on: '$(running "$A")'"
    fi
    sleep 0.3
    T send-keys -t s y
    if wait_re "session $A (is not the one you saw|runs no statement now): nothing was done" 5; then
        ok "$name c y: refused: $(T capture-pane -p -t s | grep -oE "session $A [^(]*nothing was done.*" | sed 's/ *$//' | head -1)"
    else
        nok "$name c y: no refusal: $(screen)"
    fi
    if case "$(running "$A")" in *"$SLEEP(15)"*) true ;; *) false ;; esac; then ok "$name c: the statement $A runs now was left alone"; else nok "$name c: $A now runs '$(running "$A")'"; fi
    sleep 0.6
    if ask c "$A" "[^)]*statement"; then
        T send-keys -t s y
        if slow_until 4 eval '[ -z "$(running "$A")" ]' && [ "$(present "$A")" = 1 ]; then
            ok "$name c y on the statement seen: cancelled, session $A stays: $(T capture-pane -p -t s | grep -oE "[A-Za-z_ ]+\([0-9]+\): done|KILL QUERY ID [0-9]+: done" | head -1)"
        else
            nok "$name c y: $A present $(present "$A"), running '$(running "$A")': $(screen)"
        fi
    else
        nok "$name c: no second confirmation: $(screen)"
    fi
    T send-keys -t s q
    check "$name c: q quits with status 0" wait_exited 0 5
    T kill-server 2>/dev/null
    endsess endid b a
done

# ---- PostgreSQL: the pid reused by a new backend ----------------------------

if [ "$(id -u)" != 0 ] || ! unshare --pid --fork --mount-proc true 2>/dev/null; then
    ok "pg pid reuse # SKIP a PID namespace needs root here"
    done_tests
fi
pgbin=$DBTOP_PG15_BIN
ns=$tmp/pgns
mkdir -p "$ns" && chown postgres "$ns" && chmod 700 "$ns"
if ! runuser -u postgres -- "$pgbin/initdb" -D "$ns/data" -U postgres --auth=trust -E UTF8 >"$tmp/initdb.log" 2>&1; then
    nok "pg pid reuse: initdb failed: $(tail -3 "$tmp/initdb.log")"
    done_tests
fi
mkfifo "$tmp/ns.ctl" "$tmp/ns.ack"
chmod 666 "$tmp/ns.ctl"
# pid 1 of the namespace: starts the server, then takes orders:
#   reuse P  wait for pid P to be free, make it the next pid (ns_last_pid)
#   stop     stop the server and leave (the namespace ends with it)
cat >"$tmp/ns.sh" <<'EOF'
ns=$1 pgbin=$2 ctl=$3 ack=$4
runuser -u postgres -- "$pgbin/pg_ctl" -D "$ns/data" -l "$ns/server.log" -w -t 30 start \
    -o "-c listen_addresses='' -k $ns -c autovacuum=off -c max_worker_processes=2" >/dev/null 2>&1
echo started >"$ack"
while :; do
    read -r cmd arg <"$ctl" || continue
    case $cmd in
    reuse)
        for ((i = 0; i < 100 && $(ls -d /proc/"$arg" 2>/dev/null | wc -l) > 0; i++)); do sleep 0.05; done
        echo $((arg - 1)) >/proc/sys/kernel/ns_last_pid && echo ready >"$ack" || echo failed >"$ack"
        ;;
    stop)
        runuser -u postgres -- "$pgbin/pg_ctl" -D "$ns/data" -m fast -w -t 20 stop >/dev/null 2>&1
        exit 0
        ;;
    esac
done
EOF
unshare --pid --fork --mount-proc bash "$tmp/ns.sh" "$ns" "$pgbin" "$tmp/ns.ctl" "$tmp/ns.ack" &
nspid=$!
if [ "$(timeout 40 cat "$tmp/ns.ack")" != started ]; then
    nok "pg pid reuse: the namespaced server did not start: $(tail -3 "$ns/server.log" 2>/dev/null)"
    done_tests
fi
psql="/usr/bin/psql -X -h $ns -U postgres postgres"
C="$psql -At"
$psql -qc "CREATE TABLE kid (id int PRIMARY KEY, v int)" -qc "INSERT INTO kid VALUES (1, 0), (2, 0)" >/dev/null 2>&1
present() { $psql -Atc "SELECT count(*) FROM pg_stat_activity WHERE pid = $1"; }
endid() { $psql -Atc "SELECT pg_terminate_backend($1)"; }
started() { $psql -Atc "SELECT backend_start FROM pg_stat_activity WHERE pid = $1"; }
sess a 20 "$C" "SELECT pg_backend_pid();" "BEGIN;" "UPDATE kid SET v = v + 1 WHERE id = 1;"
getid a
sess b 20 "$C" "SELECT pg_backend_pid();" "SET lock_timeout = '20s';" "UPDATE kid SET v = v + 2 WHERE id = 1;"
getid b
A=${sid[a]} B=${sid[b]}
s1=$(started "$A")
if start_dbtop pgns "host=$ns user=postgres dbname=postgres" && wait_re "[├└\`|]-? ?$B .*requested" 8 &&
    ask x "$A" "started [0-9-]+ [0-9:.]+, transaction begun"; then
    ok "pg pid reuse: x: the confirmation names pid $A and its start"
else
    nok "pg pid reuse: no confirmation for $A: $(screen)"
fi
# between the prompt and y: A ends; a new backend takes its pid (a few
# tries: another fork of the server may take it first)
endsess endid a
reused=
for try in 1 2 3 4 5; do
    timeout 10 sh -c 'echo "reuse $1" >"$2"' sh "$A" "$tmp/ns.ctl"
    ack=$(timeout 10 cat "$tmp/ns.ack")
    if [ "$ack" = failed ] && [ "$try" = 1 ]; then
        ok "pg pid reuse # SKIP ns_last_pid cannot be written here"
        T send-keys -t s q
        endsess endid b
        done_tests
    fi
    [ "$ack" = ready ] || break
    sess n 20 "$C" "SELECT pg_backend_pid();" "BEGIN;" "UPDATE kid SET v = v + 1 WHERE id = 2;"
    getid n
    if [ "${sid[n]}" = "$A" ]; then
        reused=$try
        break
    fi
    endsess endid n
done
if [ -n "$reused" ]; then
    ok "pg pid reuse: a new backend got pid $A (try $reused; started $(started "$A"), the one seen $s1)"
else
    nok "pg pid reuse: no new backend got pid $A in 5 tries (last: ${sid[n]})"
fi
s2=$(started "$A")
T send-keys -t s y
if wait_re "session $A is not the one you saw: nothing was done" 5 && joined_re "it started at $(date -u -d "$s2" '+%F %T')\\.[0-9]+ \\(the one you saw at $(date -u -d "$s1" '+%F %T')" 1; then
    ok "pg pid reuse: y: refused: $(T capture-pane -p -t s | grep -oE "session $A is not the one you saw: nothing was done.*" | sed 's/ *$//')"
else
    nok "pg pid reuse: y: no refusal on the screen: $(screen)"
fi
if [ -n "$reused" ] && [ "$(started "$A")" = "$s2" ]; then ok "pg pid reuse: the new backend $A is left alone"; else nok "pg pid reuse: the new backend $A: '$(started "$A")' (was '$s2')"; fi
# the positive case on the new backend: a waiter, x y ends it
sess c 20 "$C" "SELECT pg_backend_pid();" "SET lock_timeout = '20s';" "UPDATE kid SET v = v + 3 WHERE id = 2;"
getid c
if wait_re "[├└\`|]-? ?${sid[c]} .*requested" 8 && ask x "$A" "started [0-9-]+ [0-9:.]+, transaction begun"; then
    T send-keys -t s y
    if gone "$A" 5; then ok "pg pid reuse: x y on the backend now seen: $A ended"; else nok "pg pid reuse: x y: $A still there: $(screen)"; fi
else
    nok "pg pid reuse: no confirmation for the new chain: $(screen)"
fi
T send-keys -t s q
check "pg pid reuse: q quits with status 0" wait_exited 0 5
T kill-server 2>/dev/null
endsess endid c b n
done_tests
