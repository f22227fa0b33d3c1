# Safe tuning you can trust with several servers and operators, on live
# servers driven through the screen in tmux:
#  1. the undo journal belongs to a server's identity: a change left on
#     server A while A is down is neither offered nor reverted on B (two
#     PostgreSQL servers by URI; two MariaDB servers, one by its socket and
#     one, started here, by address); B's own value is untouched; back on A
#     it is offered and reverted;
#  2. one MariaDB server reached as localhost (socket), 127.0.0.1:PORT and
#     through an option file: one journal, one lock, one tuner; the lock is
#     taken again after the connection is killed and dbtop reconnects;
#  3. compare, then revert: an operator's value set while dbtop holds the
#     setting (SET GLOBAL; ALTER SYSTEM) is left, and the exit message names
#     the three values;
#  4. two dbtops as different OS users: the second cannot tune while the
#     first holds a change (the server-wide lock names the holder); after
#     the first quits it can; PostgreSQL's lock holds across databases;
#  6. q while an apply is in flight (dbtop's backend stopped with SIGSTOP
#     between y and q): the exit waits, then reverts it; a full disk (a
#     small tmpfs as XDG_STATE_HOME): nothing is sent, and after space
#     returns the change is journaled whole.
. tests/lib.sh
tui_init trust
chmod 755 "$tmp"
M=$DBTOP_MARIADB_CLIENT
P15=$DBTOP_PG15_PSQL
P18=$DBTOP_PG18_PSQL
SB=$DBTOP_SANDBOX_DIR
MY2P=$((DBTOP_MARIADB_PORT + 11))
my2_pid=
user2=dbtop79u$$
full=$tmp/full
as_pg() { (cd / && runuser -u postgres -- "$@"); }
pg15_up() { "$DBTOP_PG15_BIN/pg_isready" -q -t 2 -h "$SB/pg15/run" -p "$DBTOP_PG15_PORT"; }
pg15_start() { as_pg "$DBTOP_PG15_BIN/pg_ctl" -D "$SB/pg15/data" -l "$SB/pg15/server.log" -w -t 60 start >/dev/null 2>&1; }
cleanup() {
    T kill-server 2>/dev/null
    [ -n "$my2_pid" ] && kill -CONT "$my2_pid" 2>/dev/null && kill "$my2_pid" 2>/dev/null
    pg15_up || pg15_start
    $M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1" 2>/dev/null
    for p in "$P15" "$P18"; do
        $p -qc "ALTER SYSTEM RESET synchronous_commit" >/dev/null 2>&1
        $p -qc "SELECT pg_reload_conf()" >/dev/null 2>&1
    done
    mountpoint -q "$full" && umount "$full"
    id "$user2" >/dev/null 2>&1 && userdel "$user2" 2>/dev/null
    [ -n "$my2_pid" ] && wait "$my2_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# wre SESSION ERE SECONDS: poll the screen of a session until a line matches
wre() {
    local i
    for ((i = 0; i < $3 * 20; i++)); do
        T capture-pane -p -t "=$1:" 2>/dev/null | grep -qE -- "$2" && return 0
        sleep 0.05
    done
    return 1
}
# tmux targets are exact ("=NAME:"): a bare name is tried as a window name of
# the newest session first, which another dbtop's window may match
scr() { T capture-pane -p -t "=$1:" 2>/dev/null | grep -v '^ *$' | head -c 2500 | tr '\n' '|'; }
# run SESSION TARGET [FLAGS [PREFIX]]: dbtop on a screen of its own (PREFIX: runuser/env before it);
# its pid (without PREFIX) in $tmp/SESSION.pid, stderr in $tmp/SESSION.err; waits for UP
run() {
    local target=
    [ -n "$2" ] && target="\"$2\""
    T kill-session -t "=$1" 2>/dev/null
    rm -f "$tmp/$1.err"
    T new-session -d -s "$1" -x 200 -y 50 "sh -c 'echo \$\$ >$tmp/$1.pid; exec ${4:-} $DBTOP ${3:-} --interval 0.5 --connect-timeout 2 $target 2>$tmp/$1.err'; echo EXITED \$?; sleep 60"
    wre "$1" " UP " 15
}
# quit SESSION: q, and wait for dbtop to be gone (its revert and message done)
quit() {
    T send-keys -t "=$1:" q
    wre "$1" "EXITED" 40
}
# apply SESSION ROWS FRAGMENT: screen 5, ROWS down, a, the confirmation shows FRAGMENT, y
apply() {
    T send-keys -t "=$1:" 5 g
    wre "$1" "^setting +now" 5 || return 1
    local i
    for ((i = 0; i < $2; i++)); do T send-keys -t "=$1:" j; done
    sleep 0.3
    T send-keys -t "=$1:" a
    wre "$1" "Change this setting\?" 5 || return 1
    T capture-pane -p -t "=$1:" | tr -s ' \n' ' ' | grep -qF -- "$3" || return 1
    T send-keys -t "=$1:" y
}
myv() { $M -N -e "SELECT @@GLOBAL.$1"; }
my2() { mariadb --no-defaults -S "$tmp/my2/sock" -u root -N -B "$@"; }
my2v() { my2 -e "SELECT @@GLOBAL.$1"; }
pgv() { $1 -Atc "SELECT setting FROM pg_settings WHERE name = '$2'"; }
# until SECONDS CMD...: poll a command
until_ok() {
    local i n=$1
    shift
    for ((i = 0; i < n * 10; i++)); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    return 1
}
eq() { [ "$($1 "$2")" = "$3" ]; }
eq_pg() { [ "$(pgv "$1" "$2")" = "$3" ]; }
journals() { ls "$1/dbtop/" 2>/dev/null | grep -c 'journal$'; }

# ---- 1. PostgreSQL: two servers given as URIs ----
for p in "$P15" "$P18"; do
    $p -qc "ALTER SYSTEM RESET synchronous_commit" >/dev/null
    $p -qAtc "SELECT pg_reload_conf()" >/dev/null
done
$P18 -qc "ALTER SYSTEM SET synchronous_commit = 'remote_apply'" >/dev/null
$P18 -qAtc "SELECT pg_reload_conf()" >/dev/null
if run a "$DBTOP_PG15_ADMIN_URI" && apply a 0 "ALTER SYSTEM SET synchronous_commit = 'off'" &&
    until_ok 5 eq_pg "$P15" synchronous_commit off; then
    ok "pg A (pg15 by URI): synchronous_commit=off applied"
else
    nok "pg A: apply failed: $(scr a)"
fi
check "pg A: its journal header names the server by system_identifier" \
    grep -qE "^dbtop-undo 2 postgresql:[0-9]+:$DBTOP_PG15_PORT " $XDG_STATE_HOME/dbtop/*.journal
# A goes down while dbtop runs: q cannot revert, the journal stays
as_pg "$DBTOP_PG15_BIN/pg_ctl" -D "$SB/pg15/data" -m fast -w -t 30 stop >/dev/null 2>&1
quit a
check "pg A down: q says the change could not be reverted and stays journaled" grep -q "could NOT be reverted" "$tmp/a.err"
check "pg A down: its journal is kept" test "$(journals "$XDG_STATE_HOME")" = 1
# B (pg18 by URI) with A down: not offered, not reverted
if run b "$DBTOP_PG18_ADMIN_URI"; then ok "pg B (pg18 by URI): screen up"; else nok "pg B: $(scr b)"; fi
sleep 3
if wre b "left in force|Revert the changes" 1; then nok "pg B offers A's change: $(scr b)"; else ok "pg B: A's change is not offered"; fi
quit b
check "pg B: its own synchronous_commit (remote_apply) is untouched" eq_pg "$P18" synchronous_commit remote_apply
check "pg B: A's journal is still there" test "$(journals "$XDG_STATE_HOME")" = 1
# back on A: offered and reverted
pg15_start
check "pg A back: synchronous_commit is still off there" eq_pg "$P15" synchronous_commit off
run a "$DBTOP_PG15_ADMIN_URI"
if wre a "Revert the changes an earlier dbtop left in force" 8; then ok "pg A back: the change is offered"; else nok "pg A back: no offer: $(scr a)"; fi
T send-keys -t =a: y
if until_ok 8 eq_pg "$P15" synchronous_commit on; then ok "pg A back: y reverted it (on)"; else nok "pg A back: still $(pgv "$P15" synchronous_commit)"; fi
quit a
check "pg A back: no journal left" test "$(journals "$XDG_STATE_HOME")" = 0
$P18 -qc "ALTER SYSTEM RESET synchronous_commit" >/dev/null
$P18 -qAtc "SELECT pg_reload_conf()" >/dev/null

# ---- 1. MariaDB: the sandbox one by its socket, a second one here by address ----
d=$tmp/my2
mkdir -p "$d/data" "$d/tmp"
if mariadb-install-db --no-defaults --user=root --datadir="$d/data" --skip-test-db \
    --auth-root-authentication-method=normal --innodb-log-file-size=8M >"$d/install.log" 2>&1; then
    setsid mariadbd --no-defaults --user=root --datadir="$d/data" --tmpdir="$d/tmp" --socket="$d/sock" \
        --port="$MY2P" --bind-address=127.0.0.1 --pid-file="$d/pid" --log-error="$d/error.log" \
        --skip-name-resolve --innodb-buffer-pool-size=16M --innodb-log-file-size=8M \
        --server-id=1 </dev/null >>"$d/error.log" 2>&1 &
    my2_pid=$!
fi
if [ -n "$my2_pid" ] && until_ok 60 my2 -e "SELECT 1"; then
    my2 -e "CREATE USER 'adm'@'127.0.0.1' IDENTIFIED BY 'pw'; GRANT ALL ON *.* TO 'adm'@'127.0.0.1'"
    ok "mariadb A: a second server on 127.0.0.1:$MY2P (own datadir, same server_id 1 and host name)"
else
    nok "mariadb A: the second server did not start: $(tail -3 "$d/error.log" 2>/dev/null)"
fi
URI_A="mysql://adm:pw@127.0.0.1:$MY2P/"
URI_B="mysql://dbtop_admin:adminpw@localhost/dbtop_test?socket=$DBTOP_MARIADB_SOCKET"
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=0"
if run a "$URI_A" && apply a 0 "SET GLOBAL innodb_flush_log_at_trx_commit = 2" && until_ok 5 eq my2v innodb_flush_log_at_trx_commit 2; then
    ok "mariadb A: flush=2 applied by address"
else
    nok "mariadb A: apply failed: $(scr a)"
fi
# A stops answering (SIGSTOP: down, its state kept): q cannot revert
kill -STOP "$my2_pid"
quit a
check "mariadb A down: q says the change could not be reverted" grep -q "could NOT be reverted" "$tmp/a.err"
check "mariadb A down: its journal is kept" test "$(journals "$XDG_STATE_HOME")" = 1
if run b "$URI_B"; then ok "mariadb B (sandbox, socket): screen up"; else nok "mariadb B: $(scr b)"; fi
sleep 3
if wre b "left in force|Revert the changes" 1; then nok "mariadb B offers A's change: $(scr b)"; else ok "mariadb B: A's change is not offered"; fi
quit b
check "mariadb B: its own flush (0) is untouched" eq myv innodb_flush_log_at_trx_commit 0
check "mariadb B: A's journal is still there" test "$(journals "$XDG_STATE_HOME")" = 1
kill -CONT "$my2_pid"
check "mariadb A back: flush is still 2 there" until_ok 10 eq my2v innodb_flush_log_at_trx_commit 2
run a "$URI_A"
if wre a "Revert the changes an earlier dbtop left in force" 8; then ok "mariadb A back: the change is offered"; else nok "mariadb A back: no offer: $(scr a)"; fi
T send-keys -t =a: y
if until_ok 8 eq my2v innodb_flush_log_at_trx_commit 1; then ok "mariadb A back: y reverted it (1)"; else nok "mariadb A back: still $(my2v innodb_flush_log_at_trx_commit)"; fi
quit a
check "mariadb A back: no journal left" test "$(journals "$XDG_STATE_HOME")" = 0
check "mariadb B: still 0 after all that" eq myv innodb_flush_log_at_trx_commit 0
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1"

# ---- 2. one MariaDB server three ways: one journal, one lock, one tuner ----
cat >"$tmp/my.cnf" <<EOF
[client]
user=dbtop_admin
password=adminpw
socket=$DBTOP_MARIADB_SOCKET
database=dbtop_test
EOF
chmod 600 "$tmp/my.cnf"
run a "$URI_B"
if apply a 0 "innodb_flush_log_at_trx_commit = 2" && until_ok 5 eq myv innodb_flush_log_at_trx_commit 2; then
    ok "three ways: localhost (socket) tunes flush=2"
else
    nok "three ways: apply on localhost failed: $(scr a)"
fi
# the lock lives on the sampling connection: a reconnection takes it again at once
lk() { $M -N -e "SELECT IS_USED_LOCK('dbtop.tune')"; }
id1=$(lk)
$M -e "KILL $id1" 2>/dev/null
relocked() { local v; v=$(lk); [ -n "$v" ] && [ "$v" != NULL ] && [ "$v" != "$id1" ]; }
if [ -n "$id1" ] && [ "$id1" != NULL ] && until_ok 15 relocked; then
    ok "lock: dbtop's session $id1 killed; after the reconnection session $(lk) holds dbtop.tune again"
else
    nok "lock: not taken again after the reconnection (was $id1, now $(lk))"
fi
run b "mysql://dbtop_admin:adminpw@127.0.0.1:$DBTOP_MARIADB_PORT/dbtop_test"
T send-keys -t =b: 5 g
sleep 0.5
T send-keys -t =b: j a
if wre b "another running dbtop is tuning this server" 5; then
    ok "three ways: 127.0.0.1:PORT finds the same journal, locked: tuning off"
else
    nok "three ways: 127.0.0.1 not refused: $(scr b)"
fi
T send-keys -t =b: y
sleep 1
check "three ways: 127.0.0.1 changed nothing (sync_binlog 1)" eq myv sync_binlog 1
# the second dbtop's words: the change in force is the running one's, which reverts it
if wre b "made by another dbtop that is running: it reverts them when it quits" 5 && ! scr b | grep -q "left by an earlier dbtop"; then
    ok "second dbtop: the change in force is the running dbtop's, not 'left by an earlier dbtop'"
else
    nok "second dbtop: $(scr b)"
fi
check "three ways: one journal file" test "$(journals "$XDG_STATE_HOME")" = 1
# the option file, from another state dir (another account's journal): the server lock
run c "" "--engine mysql --defaults-file $tmp/my.cnf" "env XDG_STATE_HOME=$tmp/state3"
if apply c 1 "sync_binlog = 0" && wre c "another dbtop is tuning this server \(session [0-9]+, dbtop_admin@localhost" 5; then
    ok "three ways: the option-file dbtop is refused by the server lock, which names the holder"
else
    nok "three ways: option file not refused: $(scr c)"
fi
check "three ways: the option-file dbtop changed nothing (sync_binlog 1)" eq myv sync_binlog 1
check "three ways: it wrote no journal" test "$(journals "$tmp/state3")" = 0
quit c
quit b
bmsg="$(cat "$tmp/b.err" 2>/dev/null) $(scr b)"
if grep -q "still running and reverts them when it quits" <<<"$bmsg" && ! grep -q "run dbtop against this server to revert" <<<"$bmsg"; then
    ok "second dbtop on exit: the running dbtop reverts the change (not 'run dbtop ... to revert them')"
else
    nok "second dbtop on exit said: $(head -c 600 <<<"$bmsg")"
fi
quit a
check "three ways: q reverted flush (1)" eq myv innodb_flush_log_at_trx_commit 1
check "three ways: the lock is free again" test "$($M -N -e "SELECT IS_FREE_LOCK('dbtop.tune')")" = 1

# ---- 3. compare, then revert ----
run a "$URI_B"
if apply a 0 "innodb_flush_log_at_trx_commit = 2" && until_ok 5 eq myv innodb_flush_log_at_trx_commit 2; then
    ok "operator: dbtop holds flush=2"
else
    nok "operator: apply failed: $(scr a)"
fi
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=0"
quit a
check "operator: quitting leaves the operator's 0" eq myv innodb_flush_log_at_trx_commit 0
if grep -q "innodb_flush_log_at_trx_commit is 0 now (someone set it while dbtop held 2; before dbtop: 1)" "$tmp/a.err"; then
    ok "operator: the exit message names the three values (0 now, dbtop's 2, 1 before)"
else
    nok "operator: exit message: $(cat "$tmp/a.err")"
fi
check "operator: the journal ended it as superseded and is gone" test "$(journals "$XDG_STATE_HOME")" = 0
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1"
run a "$DBTOP_PG15_ADMIN_URI"
if apply a 0 "synchronous_commit = 'off'" && until_ok 5 eq_pg "$P15" synchronous_commit off; then
    ok "operator pg: dbtop holds synchronous_commit=off"
else
    nok "operator pg: apply failed: $(scr a)"
fi
$P15 -qc "ALTER SYSTEM SET synchronous_commit = 'remote_apply'" >/dev/null
$P15 -qAtc "SELECT pg_reload_conf()" >/dev/null
quit a
sleep 0.5
check "operator pg: quitting leaves the operator's remote_apply" eq_pg "$P15" synchronous_commit remote_apply
if grep -q "synchronous_commit is remote_apply now (someone set it while dbtop held off; before dbtop: on)" "$tmp/a.err"; then
    ok "operator pg: the exit message names the three values"
else
    nok "operator pg: exit message: $(cat "$tmp/a.err")"
fi
$P15 -qc "ALTER SYSTEM RESET synchronous_commit" >/dev/null
$P15 -qAtc "SELECT pg_reload_conf()" >/dev/null

# ---- 4. two OS users on one server ----
useradd -M -d "$tmp/home2" -s /bin/sh "$user2" 2>/dev/null
mkdir -p "$tmp/home2"
chown "$user2" "$tmp/home2"
# the binary and its backends where that user can read them
cp "$DBTOP" "$tmp/dbtop"
cp "$(dirname "$DBTOP")"/dbtop-*.so "$tmp/" 2>/dev/null
chmod 755 "$tmp/dbtop" "$tmp"/dbtop-*.so 2>/dev/null
U2="runuser -u $user2 -- env HOME=$tmp/home2 XDG_STATE_HOME=$tmp/home2/state"
URI_T="mysql://dbtop_admin:adminpw@127.0.0.1:$DBTOP_MARIADB_PORT/dbtop_test"
run a "$URI_B"
apply a 0 "innodb_flush_log_at_trx_commit = 2" && until_ok 5 eq myv innodb_flush_log_at_trx_commit 2
if DBTOP=$tmp/dbtop run b "$URI_T" "" "$U2"; then ok "two users: $user2's dbtop is up"; else nok "two users: $(scr b)"; fi
if apply b 1 "sync_binlog = 0" && wre b "another dbtop is tuning this server \(session [0-9]+" 5; then
    ok "two users: the second cannot tune while the first holds a change; told who holds it"
else
    nok "two users: second not refused: $(scr b)"
fi
check "two users: nothing changed by the second (sync_binlog 1)" eq myv sync_binlog 1
quit a
check "two users: the first quit and reverted (flush 1)" eq myv innodb_flush_log_at_trx_commit 1
if apply b 1 "sync_binlog = 0" && until_ok 5 eq myv sync_binlog 0; then
    ok "two users: after the first quit, the second can tune"
else
    nok "two users: second still refused: $(scr b)"
fi
quit b
check "two users: the second's q reverted (sync_binlog 1)" eq myv sync_binlog 1
# PostgreSQL: an advisory lock is per database; the tuning lock holds across them
run a "$DBTOP_PG15_ADMIN_URI"
apply a 0 "synchronous_commit = 'off'" && until_ok 5 eq_pg "$P15" synchronous_commit off
pglk() { $P15 -Atc "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 1684174959 AND objid = 1953852773 AND granted"; }
pid1=$(pglk)
$P15 -qAtc "SELECT pg_terminate_backend($pid1)" >/dev/null 2>&1
pg_relocked() { local v; v=$(pglk); [ -n "$v" ] && [ "$v" != "$pid1" ]; }
if [ -n "$pid1" ] && until_ok 15 pg_relocked; then
    ok "pg lock: dbtop's backend $pid1 terminated; after the reconnection backend $(pglk) holds the advisory lock again"
else
    nok "pg lock: not taken again after the reconnection (was $pid1, now $(pglk))"
fi
PG_OTHERDB=${DBTOP_PG15_ADMIN_URI%/*}/postgres
if DBTOP=$tmp/dbtop run b "$PG_OTHERDB" "" "$U2" && apply b 1 "wal_writer_delay" &&
    wre b "another dbtop is tuning this server \(backend pid [0-9]+, user postgres" 5; then
    ok "two users pg: the second (database postgres) is refused while the first (dbtop_test) holds a change"
else
    nok "two users pg: not refused: $(scr b)"
fi
check "two users pg: wal_writer_delay untouched" test "$($P15 -Atc "SELECT count(*) FROM pg_file_settings WHERE name = 'wal_writer_delay' AND sourcefile LIKE '%auto.conf'")" = 0
quit b
quit a
check "two users pg: the first's q reverted (on)" until_ok 5 eq_pg "$P15" synchronous_commit on

# ---- item 6: --read-only only reads the journal: a real dbtop can still revert ----
run a "$URI_B"
if apply a 0 "innodb_flush_log_at_trx_commit = 2" && until_ok 5 eq myv innodb_flush_log_at_trx_commit 2; then
    kill -9 "$(cat "$tmp/a.pid")"
    sleep 1
fi
check "read-only: a change left by a killed dbtop (flush 2, journal kept)" \
    bash -c '[ "$1" = 2 ] && [ "$2" = 1 ]' _ "$(myv innodb_flush_log_at_trx_commit)" "$(journals "$XDG_STATE_HOME")"
jf=$(ls "$XDG_STATE_HOME"/dbtop/*.journal 2>/dev/null | head -1)
sum0=$(md5sum <"$jf")
run r "$URI_B" "--read-only"
if wre r "left by an earlier dbtop are in force.*without --read-only" 8; then ok "read-only: lists the change, does not offer it"; else nok "read-only: $(scr r)"; fi
check "read-only: the journal is not written" test "$(md5sum <"$jf")" = "$sum0"
run a "$URI_B"
if wre a "Revert the changes an earlier dbtop left in force" 8; then
    ok "read-only: a dbtop running beside it still gets the journal (no lock taken by --read-only)"
else
    nok "read-only: the journal looks locked: $(scr a)"
fi
T send-keys -t =a: y
check "read-only: ... and reverts (flush 1)" until_ok 8 eq myv innodb_flush_log_at_trx_commit 1
quit a
quit r
check "read-only: the journal is gone (removed by the writer once nothing is in force)" test "$(journals "$XDG_STATE_HOME")" = 0

# ---- 6. q while an apply is in flight ----
run a "$DBTOP_PG15_ADMIN_URI" "--query-timeout 15"
backend=$($P15 -Atc "SELECT pid FROM pg_stat_activity WHERE application_name = 'dbtop' AND usename = 'postgres'")
T send-keys -t =a: 5 g
wre a "^setting +now" 5
T send-keys -t =a: a
wre a "Change this setting\?" 5
if [ -n "$backend" ] && [ "$(echo "$backend" | wc -l)" = 1 ]; then
    kill -STOP "$backend"
    T send-keys -t =a: y
    sleep 0.3
    T send-keys -t =a: q
    if wre a "waiting for the change being applied before quitting" 5; then
        ok "in flight: q waits for the apply (dbtop's backend $backend stopped)"
    else
        nok "in flight: no wait shown: $(scr a)"
    fi
    sleep 1
    kill -CONT "$backend"
    wre a "EXITED" 40
    if grep -q "reverted 1 setting change" "$tmp/a.err" && eq_pg "$P15" synchronous_commit on; then
        ok "in flight: once the apply ended, the exit reverted it (synchronous_commit on)"
    else
        nok "in flight: $(cat "$tmp/a.err"); synchronous_commit $(pgv "$P15" synchronous_commit)"
    fi
    check "in flight: postgresql.auto.conf has no synchronous_commit line" \
        test "$($P15 -Atc "SELECT count(*) FROM pg_file_settings WHERE name = 'synchronous_commit' AND sourcefile LIKE '%auto.conf'")" = 0
    check "in flight: no journal left" test "$(journals "$XDG_STATE_HOME")" = 0
else
    nok "in flight: dbtop's backend not found ($backend)"
fi

# ---- 6. a full disk under the journal ----
mkdir -p "$full"
if mount -t tmpfs -o size=64k,mode=755 tmpfs "$full"; then
    mkdir -m 700 "$full/dbtop"
    run a "$URI_B" "" "env XDG_STATE_HOME=$full"
    dd if=/dev/zero of="$full/fill" bs=4k >/dev/null 2>&1
    sets() { $M -N -e "SELECT IFNULL(SUM(COUNT_STAR),0) FROM performance_schema.events_statements_summary_by_digest WHERE DIGEST_TEXT LIKE 'SET GLOBAL%'"; }
    s0=$(sets)
    if apply a 0 "innodb_flush_log_at_trx_commit = 2" && wre a "cannot write the undo journal.*nothing was sent" 5; then
        ok "disk full: refused, says the journal cannot be written and nothing was sent"
    else
        nok "disk full: $(scr a)"
    fi
    sleep 0.5
    check "disk full: flush still 1, no SET GLOBAL reached the server ($s0 -> $(sets))" \
        bash -c '[ "$1" = 1 ] && [ "$2" = "$3" ]' _ "$(myv innodb_flush_log_at_trx_commit)" "$s0" "$(sets)"
    rm -f "$full/fill"
    if apply a 0 "innodb_flush_log_at_trx_commit = 2" && until_ok 5 eq myv innodb_flush_log_at_trx_commit 2; then
        ok "space back: the change is applied"
    else
        nok "space back: $(scr a)"
    fi
    jf=$(ls "$full"/dbtop/*.journal 2>/dev/null | head -1)
    if [ -n "$jf" ] && [ "$(grep -c '' "$jf")" = 2 ] &&
        head -1 "$jf" | grep -qE '^dbtop-undo 2 mariadb:' &&
        sed -n 2p "$jf" | grep -qE '^A 1 [0-9.]+ global innodb_flush_log_at_trx_commit 1 1 2 [0-9]+ mariadb:.* #[0-9a-f]{8}$'; then
        ok "space back: journaled whole (header + one intact record, no torn line)"
    else
        nok "space back: journal: $(cat "$jf" 2>/dev/null | head -c 600)"
    fi
    quit a
    check "space back: q reverted (1)" eq myv innodb_flush_log_at_trx_commit 1
    umount "$full"
else
    nok "disk full: cannot mount a tmpfs (needs root)"
fi
done_tests
