# make demo (scripts/demo.sh), its first incident shortened: throwaway
# servers of its own (ports +7 of the sandbox's), the commit-fsync storm on
# a slow redo disk; the caption names the keys; 5, a, y applies
# innodb_flush_log_at_trx_commit=2 through dbtop (TUNED, the server says
# 2) and the rates show it (redo fsyncs/s and commit latency fall); q
# reverts it (the demo reads @@innodb_flush_log_at_trx_commit on the
# server: 1) and the demo stops its servers. Nothing else set the value:
# before the key it is 1 on the server.
. tests/lib.sh
tui_init demo
dir=$(mktemp -d /tmp/dbtop-demo-test.XXXXXX)
mport=$((${DBTOP_MARIADB_PORT:-23306} + 7))
pport=$((${DBTOP_PG15_PORT:-25415} + 7))
cleanup() {
    T kill-server 2>/dev/null
    DBTOP_SANDBOX_DIR=$dir tests/sandbox.sh stop >/dev/null 2>&1
    rm -rf "$tmp" "$dir"
}
trap cleanup EXIT
t0=$(date +%s)
M() { /usr/bin/mariadb --no-defaults -S "$dir/mariadb/mysqld.sock" -u dbtop_admin -padminpw -N -e "$1" 2>/dev/null; }
# row NAME: the rates pane's value now of the row NAME (first number)
row() { T capture-pane -p -t s | sed -nE "s/^$1 +([0-9.]+).*/\1/p" | head -1; }
# row_within NAME SECONDS: the row's value, waiting up to SECONDS for it (the
# COMMIT latency of prepared statements is an estimate from the sessions
# sampled in COMMIT: a refresh whose reads caught none has no row)
row_within() {
    local i v
    for ((i = 0; i < $2 * 4; i++)); do
        v=$(row "$1")
        [ -n "$v" ] && { echo "$v"; return 0; }
        sleep 0.25
    done
}
# settle NAME SECONDS: the row's value after SECONDS more of the screen
settle() { sleep "$2"; row "$1"; }

fresh_tmux
T new-session -d -s s -x 120 -y 40 \
    "DEMO_INCIDENTS=1 DEMO_SECONDS=60 DBTOP_SANDBOX_DIR=$dir DBTOP_MARIADB_PORT=$mport DBTOP_PG15_PORT=$pport \
     DBTOP=$(printf '%q' "$DBTOP") scripts/demo.sh; echo DEMO-EXITED \$?; sleep 60"
if ! wait_re "Press 5, a, y: innodb_flush_log_at_trx_commit=2 via dbtop" 90; then
    nok "demo: dbtop's screen with the caption comes up: $(screen)"
    done_tests
fi
ok "demo: the caption says which keys apply the remedy"
check "demo: dbtop connects as a user that may tune (screen 5: may set yes)" \
    bash -c 'sleep 3; tmux -L "$0" -f /dev/null send-keys -t s 5; sleep 1; tmux -L "$0" -f /dev/null capture-pane -p -t s | grep -qE "^innodb_flush_log_at_trx_commit +1 +2 +yes"' "$sock"
T send-keys -t s 1
check "demo: nothing set the remedy behind dbtop's back (the server says 1)" test "$(M 'SELECT @@innodb_flush_log_at_trx_commit')" = 1
wait_re "^commit latency ms +[0-9]" 20
redo0=$(settle '  redo' 6)
lat0=$(row_within 'commit latency ms' 10)
T send-keys -t s 5 a
if framed_re "SET innodb_flush_log_at_trx_commit from 1 to 2" 10; then
    T send-keys -t s y
else
    nok "demo: a asks before setting innodb_flush_log_at_trx_commit = 2: $(screen)"
fi
check "demo: a, y applies the remedy (TUNED in the header)" wait_re " TUNED 1 " 15
check "demo: the server has innodb_flush_log_at_trx_commit = 2" test "$(M 'SELECT @@innodb_flush_log_at_trx_commit')" = 2
T send-keys -t s 1
redo1=$(settle '  redo' 8)
lat1=$(row_within 'commit latency ms' 10)
check "demo: redo fsyncs/s fall with the remedy ($redo0 -> $redo1)" \
    awk -v a="$redo0" -v b="$redo1" 'BEGIN { exit !(a != "" && b != "" && a + 0 >= 20 && b + 0 <= a / 4) }'
check "demo: commit latency falls with the remedy ($lat0 -> $lat1 ms)" \
    awk -v a="$lat0" -v b="$lat1" 'BEGIN { exit !(a != "" && b != "" && b + 0 <= a / 2) }'
T send-keys -t s q
check "demo: q reverts it (the demo reads 1 on the server)" \
    wait_re "innodb_flush_log_at_trx_commit on the server after dbtop: 1$" 30
check "demo: the demo ends and stops its servers" wait_re "^DEMO-EXITED 0" 60
check "demo: no server of the demo is left running" \
    bash -c '! pgrep -f -- "$0/" >/dev/null' "$dir"
echo "# 93_demo: $(($(date +%s) - t0)) s"
done_tests
