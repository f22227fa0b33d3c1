# Safe tuning on live servers, driven through the screen in tmux.
# MariaDB: under a commit load with innodb_flush_log_at_trx_commit=1 (a
# fast disk: no finding); 5, a, y sets 2 and fsyncs per commit fall by >= 40 %
# (measured by a separate batch dbtop); q restores 1; SIGHUP restores 1;
# SIGKILL leaves the journal, and the next start offers the revert and does
# it on y. PostgreSQL: synchronous_commit and wal_writer_delay round trips,
# wal_writer_delay with an ALTER SYSTEM value set before dbtop started
# (postgresql.auto.conf restored exactly). --read-only: every write key
# refused, no statement sent.
. tests/lib.sh
tui_init tune
M=$DBTOP_MARIADB_CLIENT
P=$DBTOP_PG15_PSQL
lp=
cleanup() {
    tui_stop
    $M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1" 2>/dev/null
    $P -qc "ALTER SYSTEM RESET synchronous_commit" >/dev/null 2>&1
    $P -qc "ALTER SYSTEM RESET wal_writer_delay" >/dev/null 2>&1
    $P -qc "SELECT pg_reload_conf()" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

# start URI [FLAGS]: dbtop on the screen; its pid in $tmp/pid, stderr in $tmp/err
start() {
    # (FLAGS: words)
    # shellcheck disable=SC2086
    dbtop_start 200 50 ${2:-} --interval 0.5 --connect-timeout 2 "$1"
}
# exited SECONDS: wait for dbtop to be gone (its revert, message and journal removal done)
exited() {
    local i p
    p=$(dpid)
    for ((i = 0; i < $1 * 20; i++)); do
        [ -n "$p" ] && [ -d "/proc/$p" ] || return 0
        sleep 0.05
    done
    return 1
}
myv() { $M -N -e "SELECT @@GLOBAL.$1"; }
# value_is VAR WANT SECONDS: poll the server
value_is() {
    local i
    for ((i = 0; i < $3 * 10; i++)); do
        [ "$(myv "$1")" = "$2" ] && return 0
        sleep 0.1
    done
    return 1
}
journals() { ls "$XDG_STATE_HOME/dbtop/" 2>/dev/null | grep -c journal; }
# apply ROW_DOWN SQL: on screen 5, move down ROW_DOWN rows, a, check the confirmation shows SQL, y
apply() {
    T send-keys -t s 5 g
    wait_re "^setting +now" 5 || return 1
    local i
    for ((i = 0; i < $1; i++)); do T send-keys -t s j; done
    sleep 0.3
    T send-keys -t s a
    wait_re "Change this setting\?" 3 || return 1
    T capture-pane -p -t s | unframe | tr -s ' \n' ' ' | grep -qF -- "$2" || return 1
    T send-keys -t s y
}

# ---- MariaDB ----
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1"
tests/load.sh sysbench mariadb --rate 200 --time 40 --threads 4 >/dev/null 2>&1 &
lp=$!
"$DBTOP" --batch --interval 1 --count 36 --format json "$DBTOP_MARIADB_URI" >"$tmp/mon.json" 2>/dev/null &
mon=$!
sleep 1
if start "$DBTOP_MARIADB_ADMIN_URI"; then ok "mariadb: screen up"; else nok "mariadb: screen did not come up: $(screen)"; fi
# the sandbox's disk is fast: no commit-fsync finding here (76_findings_evidence.sh
# slows the fsyncs down and follows the finding to screen 5); the row is driven by hand
sleep 6
if wait_re "commits wait on fsync" 1; then nok "mariadb fast disk: an fsync finding: $(screen)"; else ok "mariadb fast disk: no fsync finding under the commit load"; fi
t_apply=$(date +%s.%N)
if apply 0 "SET GLOBAL innodb_flush_log_at_trx_commit = 2"; then
    ok "mariadb: 5 a shows the exact SQL (SET GLOBAL innodb_flush_log_at_trx_commit = 2), the risk and the revert"
else
    nok "mariadb: confirmation without the SQL: $(screen)"
fi
check "mariadb: the confirmation names the risk and the revert" bash -c "tmux -L $sock capture-pane -p -t s | sed 's/^ *│ //; s/ *│ *\$//' | tr -s ' \n' ' ' | grep -q 'up to ~1 s of committed transactions' && tmux -L $sock capture-pane -p -t s | sed 's/^ *│ //; s/ *│ *\$//' | tr -s ' \n' ' ' | grep -q 'SET GLOBAL innodb_flush_log_at_trx_commit = 1'" || true
if value_is innodb_flush_log_at_trx_commit 2 3; then ok "mariadb: y set innodb_flush_log_at_trx_commit=2"; else nok "mariadb: value is $(myv innodb_flush_log_at_trx_commit): $(screen)"; fi
t_applied=$(date +%s.%N)
if wait_re "TUNED 1 " 3; then ok "mariadb: TUNED 1 badge in the header"; else nok "mariadb: no TUNED badge: $(screen)"; fi
jf=$(ls "$XDG_STATE_HOME"/dbtop/*.journal 2>/dev/null | head -1)
check "mariadb: the undo journal holds the previous value (1)" grep -qE "^A 1 [0-9.]+ global innodb_flush_log_at_trx_commit 1 1 2 " "$jf"
check "mariadb: the undo journal is mode 600" test "$(stat -c %a "$jf")" = 600
sleep 8
t_quit=$(date +%s.%N)
T send-keys -t s q
if value_is innodb_flush_log_at_trx_commit 1 5; then ok "mariadb: q restored innodb_flush_log_at_trx_commit=1"; else nok "mariadb: after q it is $(myv innodb_flush_log_at_trx_commit)"; fi
exited 5
check "mariadb: q said what it reverted" grep -q "reverted 1 setting change" "$tmp/err"
check "mariadb: no journal left after a clean revert" test "$(journals)" = 0
wait "$mon"
# fsyncs per commit before and after, from the separate batch dbtop
before=$(jq -s --argjson a "$t_apply" '[.[] | select(.ts < $a and .ts > $a - 7) | .rates.fsyncs_per_commit | select(. != null)] | add / length' "$tmp/mon.json")
after=$(jq -s --argjson a "$t_applied" --argjson q "$t_quit" '[.[] | select(.ts > $a + 1.5 and .ts < $q) | .rates.fsyncs_per_commit | select(. != null)] | add / length' "$tmp/mon.json")
echo "# mariadb fsyncs per commit: flush=1 $before, flush=2 $after"
check "mariadb: fsyncs per commit fell by >= 40 % ($before -> $after)" awk -v b="$before" -v a="$after" 'BEGIN { exit !(b > 0 && a <= b * 0.6) }'

# SIGHUP (the SSH session dropping) restores
if start "$DBTOP_MARIADB_ADMIN_URI" && apply 0 "innodb_flush_log_at_trx_commit = 2" && value_is innodb_flush_log_at_trx_commit 2 3; then
    ok "mariadb: applied again for the SIGHUP case"
else
    nok "mariadb: apply for SIGHUP failed: $(screen)"
fi
kill -HUP "$(dpid)"
if value_is innodb_flush_log_at_trx_commit 1 5; then ok "mariadb: kill -HUP restored innodb_flush_log_at_trx_commit=1"; else nok "mariadb: after HUP it is $(myv innodb_flush_log_at_trx_commit)"; fi
exited 5
check "mariadb: SIGHUP: no journal left" test "$(journals)" = 0

# SIGKILL: nothing is reverted then; the next start offers it
if start "$DBTOP_MARIADB_ADMIN_URI" && apply 0 "innodb_flush_log_at_trx_commit = 2" && value_is innodb_flush_log_at_trx_commit 2 3 &&
    apply 1 "SET GLOBAL sync_binlog = 0" && value_is sync_binlog 0 3; then
    ok "mariadb: two changes applied (flush=2, sync_binlog=0) for the SIGKILL case"
else
    nok "mariadb: apply for SIGKILL failed: $(screen)"
fi
kill -9 "$(dpid)"
sleep 1
check "mariadb: after SIGKILL both changes are still in force" test "$(myv innodb_flush_log_at_trx_commit)/$(myv sync_binlog)" = 2/0
check "mariadb: after SIGKILL the journal is there" test "$(journals)" = 1
start "$DBTOP_MARIADB_ADMIN_URI"
if wait_re "Revert the changes an earlier dbtop left in force" 6; then ok "mariadb: the next start shows the pending journal"; else nok "mariadb: no revert offer: $(screen)"; fi
check "mariadb: the offer lists both statements" bash -c "tmux -L $sock capture-pane -p -t s | sed 's/^ *│ //; s/ *│ *\$//' | tr -s ' \n' ' ' | grep -q 'SET GLOBAL sync_binlog = 1' && tmux -L $sock capture-pane -p -t s | sed 's/^ *│ //; s/ *│ *\$//' | tr -s ' \n' ' ' | grep -q 'SET GLOBAL innodb_flush_log_at_trx_commit = 1'"
T send-keys -t s y
if value_is innodb_flush_log_at_trx_commit 1 5 && value_is sync_binlog 1 3; then ok "mariadb: y reverted both (flush=1, sync_binlog=1)"; else nok "mariadb: after y: $(myv innodb_flush_log_at_trx_commit)/$(myv sync_binlog)"; fi
T send-keys -t s q
wait_exited 0 5
check "mariadb: journal gone after the revert and quit" test "$(journals)" = 0

# u and U
if start "$DBTOP_MARIADB_ADMIN_URI" && apply 0 "= 2" && value_is innodb_flush_log_at_trx_commit 2 3 && apply 1 "sync_binlog = 0" && value_is sync_binlog 0 3; then
    T send-keys -t s u
    if value_is sync_binlog 1 3 && [ "$(myv innodb_flush_log_at_trx_commit)" = 2 ]; then ok "mariadb: u undid the newest change only"; else nok "mariadb: u: $(myv innodb_flush_log_at_trx_commit)/$(myv sync_binlog)"; fi
    T send-keys -t s U
    if value_is innodb_flush_log_at_trx_commit 1 3; then ok "mariadb: U undid the rest"; else nok "mariadb: U: $(myv innodb_flush_log_at_trx_commit)"; fi
    if wait_re "TUNED" 1; then nok "mariadb: TUNED badge still shown"; else ok "mariadb: badge gone when nothing is changed"; fi
else
    nok "mariadb: u/U set-up failed: $(screen)"
fi
T send-keys -t s q
wait_exited 0 5
wait "$lp" 2>/dev/null
lp=

# --tune-ttl: reverted by itself
if start "$DBTOP_MARIADB_ADMIN_URI" "--tune-ttl 3s" && apply 0 "= 2" && value_is innodb_flush_log_at_trx_commit 2 3; then
    if wait_re "TUNED 1 .*reverts in" 2; then ok "mariadb --tune-ttl: the badge counts down"; else nok "mariadb --tune-ttl: no countdown: $(screen)"; fi
    if value_is innodb_flush_log_at_trx_commit 1 6; then ok "mariadb --tune-ttl 3s: reverted by itself"; else nok "mariadb --tune-ttl: still $(myv innodb_flush_log_at_trx_commit)"; fi
else
    nok "mariadb --tune-ttl set-up failed: $(screen)"
fi
T send-keys -t s q
wait_exited 0 5

# K: kept past the session, and only after its own confirmation
if start "$DBTOP_MARIADB_ADMIN_URI" && apply 0 "= 2" && value_is innodb_flush_log_at_trx_commit 2 3; then
    T send-keys -t s K
    if wait_re "Keep this change\?" 3; then ok "mariadb: K asks before keeping"; else nok "mariadb: K: $(screen)"; fi
    T send-keys -t s y
    sleep 1
    T send-keys -t s q
    wait_exited 0 5
    check "mariadb: a kept change stays after quit" test "$(myv innodb_flush_log_at_trx_commit)" = 2
    check "mariadb: nothing left to revert in the journal" test "$(journals)" = 0
else
    nok "mariadb: K set-up failed: $(screen)"
fi
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1"

# --read-only: no write reaches the server
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1"
before_stmts=$($M -N -e "SELECT IFNULL(SUM(COUNT_STAR),0) FROM performance_schema.events_statements_summary_by_digest WHERE DIGEST_TEXT LIKE 'SET GLOBAL%' OR DIGEST_TEXT LIKE 'KILL%'")
start "$DBTOP_MARIADB_ADMIN_URI" --read-only
T send-keys -t s 5 a
if wait_re "read-only" 3; then ok "mariadb --read-only: a says read-only"; else nok "mariadb --read-only: a: $(screen)"; fi
T send-keys -t s y u U 3 x y c y
sleep 1.5
after_stmts=$($M -N -e "SELECT IFNULL(SUM(COUNT_STAR),0) FROM performance_schema.events_statements_summary_by_digest WHERE DIGEST_TEXT LIKE 'SET GLOBAL%' OR DIGEST_TEXT LIKE 'KILL%'")
check "mariadb --read-only: a, y, u, U, x, c sent no SET GLOBAL or KILL ($before_stmts -> $after_stmts)" test "$before_stmts" = "$after_stmts"
check "mariadb --read-only: flush still 1" test "$(myv innodb_flush_log_at_trx_commit)" = 1
check "mariadb --read-only: no journal written" test "$(journals)" = 0
check "mariadb --read-only: the server reports the monitoring session read-only" \
    bash -c '"$1" --read-only --batch -n 1 -i 0.5 --format json "$2" | jq -e "[.notes[] | select(test(\"this session is read-only\"))] | length == 1"' _ "$DBTOP" "$DBTOP_MARIADB_URI"
T send-keys -t s q

# the monitoring user may not change settings: shown per setting, refused before any SQL
start "$DBTOP_MARIADB_URI"
T send-keys -t s 5 g
if wait_re "^innodb_flush_log_at_trx_commit +1 +2 +NO" 5; then ok "mariadb monitoring user: 'may set NO' per setting"; else nok "mariadb monitoring user: $(screen)"; fi
T send-keys -t s a
if wait_re "not allowed: innodb_flush_log_at_trx_commit needs SUPER" 3; then ok "mariadb monitoring user: a says which privilege is missing"; else nok "mariadb monitoring user: a: $(screen)"; fi
T send-keys -t s q

# ---- PostgreSQL 15 ----
auto() { cat "$($P -Atc 'SHOW data_directory')/postgresql.auto.conf" | grep -vE '^#'; }
pgv() { $P -Atc "SHOW $1"; }
$P -qc "ALTER SYSTEM RESET synchronous_commit" >/dev/null
$P -qc "ALTER SYSTEM SET wal_writer_delay = '10ms'" >/dev/null
$P -qAtc "SELECT pg_reload_conf()" >/dev/null
auto_before=$(auto)
if start "$DBTOP_PG15_ADMIN_URI"; then ok "pg15: screen up"; else nok "pg15: screen did not come up: $(screen)"; fi
if apply 0 "ALTER SYSTEM SET synchronous_commit = 'off'; SELECT pg_reload_conf()"; then ok "pg15: a shows ALTER SYSTEM + pg_reload_conf()"; else nok "pg15: confirmation: $(screen)"; fi
check "pg15: the confirmation shows the revert (RESET: no earlier line)" bash -c "tmux -L $sock capture-pane -p -t s | sed 's/^ *│ //; s/ *│ *\$//' | tr -s ' \n' ' ' | grep -q 'ALTER SYSTEM RESET synchronous_commit'" || true
sleep 1
check "pg15: synchronous_commit is off for new sessions" test "$(pgv synchronous_commit)" = off
if apply 1 "ALTER SYSTEM SET wal_writer_delay = '1s'"; then ok "pg15: wal_writer_delay 10ms -> 1s asked"; else nok "pg15: wal_writer_delay confirmation: $(screen)"; fi
check "pg15: that confirmation restores the earlier ALTER SYSTEM value" bash -c "tmux -L $sock capture-pane -p -t s | sed 's/^ *│ //; s/ *│ *\$//' | tr -s ' \n' ' ' | grep -q \"ALTER SYSTEM SET wal_writer_delay = '10ms'\"" || true
sleep 1
check "pg15: wal_writer_delay is 1s" test "$(pgv wal_writer_delay)" = 1s
check "pg15: postgresql.auto.conf holds both changes" bash -c "[ \"\$(cat \"\$(${P} -Atc 'SHOW data_directory')/postgresql.auto.conf\" | grep -c \"synchronous_commit = 'off'\\|wal_writer_delay = '1s'\")\" = 2 ]"
T send-keys -t s q
wait_exited 0 8
sleep 0.5
check "pg15: q restored synchronous_commit=on" test "$(pgv synchronous_commit)" = on
check "pg15: q restored wal_writer_delay=10ms (the earlier ALTER SYSTEM value)" test "$(pgv wal_writer_delay)" = 10ms
auto_after=$(auto)
check "pg15: postgresql.auto.conf is exactly as before dbtop" test "$auto_before" = "$auto_after"
check "pg15: no journal left" test "$(journals)" = 0

# the monitoring user (pg_monitor) may not
start "$DBTOP_PG15_URI"
T send-keys -t s 5 g
if wait_re "^synchronous_commit +on +off +NO" 5; then ok "pg15 monitoring user: 'may set NO'"; else nok "pg15 monitoring user: $(screen)"; fi
T send-keys -t s a
if wait_re "not allowed: synchronous_commit needs superuser" 3; then ok "pg15 monitoring user: a says which privilege is missing"; else nok "pg15 monitoring user: a: $(screen)"; fi
T send-keys -t s q

# --read-only on PostgreSQL
start "$DBTOP_PG15_ADMIN_URI" --read-only
T send-keys -t s 5 a
if wait_re "read-only" 3; then ok "pg15 --read-only: a says read-only"; else nok "pg15 --read-only: a: $(screen)"; fi
T send-keys -t s y U
sleep 1
check "pg15 --read-only: the server reports the monitoring session read-only" \
    bash -c '"$1" --read-only --batch -n 1 -i 0.5 --format json "$2" | jq -e "[.notes[] | select(test(\"this session is read-only\"))] | length == 1"' _ "$DBTOP" "$DBTOP_PG15_URI"
check "pg15 --read-only: nothing changed (synchronous_commit on, postgresql.auto.conf as before)" \
    bash -c '[ "$1" = on ] && [ "$2" = "$3" ]' _ "$(pgv synchronous_commit)" "$(auto)" "$auto_after"
T send-keys -t s q
done_tests
