# Lock waits on live servers: who waits for whom, on what, with which lock
# modes; chain roots and depths; nothing queried while nothing waits; a
# deadlock and a terminated root leave no stale edge.
#
# Sessions (tests/sessions.sh) stay idle in their open transactions for at
# most 15 s; waiters carry a lock wait limit of 20 s. Every process started
# here is killed by PID in the trap, and every server session started here
# is ended (KILL / pg_terminate_backend) after its scenario.
. tests/lib.sh
. tests/sessions.sh
tmp=$(mktemp -d)
parts=()
trap '[ ${#parts[@]} -gt 0 ] && kill "${parts[@]}" 2>/dev/null; sessions_kill; rm -rf "$tmp"' EXIT

M=$DBTOP_MARIADB_CLIENT
my_kill() { $M -e "KILL $1"; }
my_waits() { $M -N -e "SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_current_waits'" | cut -f2; }
# run_dbtop URI OUT COUNT: bounded batch run, JSON records in OUT
run_dbtop() {
    timeout 30 "$DBTOP" -b -n "$3" -i 0.5 --format json "$1" >"$2" 2>"$2.err"
}
# edge NAME FILE FILTER [jq args...]: ok when some record has an edge
# matching FILTER; on failure show what the records said
edge() {
    local name=$1 f=$2 filter=$3
    shift 3
    if jq -se "$@" "any(.[]; any(.locks[]?; $filter))" "$f" >/dev/null 2>&1; then
        ok "$name"
    else
        nok "$name; the last record with edges (else the last one) said: $(jq -sc '(map(select((.locks | length) > 0)) | last) // last | {locks_status, locks_waiting, locks_note, locks}' "$f" 2>&1 | head -c 1500)"
    fi
}
# digest count of statements that read the InnoDB lock tables
lockq_count() {
    $M -N -e "SELECT IFNULL(SUM(COUNT_STAR), 0) FROM performance_schema.events_statements_summary_by_digest WHERE DIGEST_TEXT LIKE '%information\\_schema%INNODB\\_LOCK%'"
}

# ---- PostgreSQL 15 and 18 ----
# pg_case NAME: every case on one server. The two servers run side by
# side and beside MariaDB's cases below, each with its own scratch
# directory and sessions (ended here; each idles 15 s at most); their lines
# follow MariaDB's.
pg_case() {
    local name=$1
    tmp=$tmp/$name
    mkdir -p "$tmp"
    N_=$(tr a-z A-Z <<<"$name")
    uri_var=DBTOP_${N_}_URI psql_var=DBTOP_${N_}_PSQL
    uri=${!uri_var}
    psql=${!psql_var}
    P="$psql -At"
    pg_kill() { $psql -Atc "SELECT pg_terminate_backend($1)"; }
    pg_waits() { $psql -Atc "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"; }
    PW="SET lock_timeout = '20s';"
    $psql -q >/dev/null <<'SQL'
DROP TABLE IF EXISTS lk_row, lk_tab, lk_chain;
CREATE TABLE lk_row (id int PRIMARY KEY, v int);
INSERT INTO lk_row SELECT g, 0 FROM generate_series(1, 3) g;
CREATE TABLE lk_tab (id int PRIMARY KEY, v int);
INSERT INTO lk_tab SELECT g, 0 FROM generate_series(1, 3) g;
CREATE TABLE lk_chain (id int PRIMARY KEY, v int);
INSERT INTO lk_chain SELECT g, 0 FROM generate_series(1, 3) g;
SQL

    # row lock: B's UPDATE waits for A's transaction; then A is terminated
    # (pg_cancel_backend would not end an idle transaction) and its pid
    # must leave the records within 3 of them
    sess pa 15 "$P" "SELECT pg_backend_pid();" "BEGIN;" "UPDATE lk_row SET v = v + 1 WHERE id = 1;"
    getid pa
    sleep 1.2
    sess pb 15 "$P" "SELECT pg_backend_pid();" "$PW" "UPDATE lk_row SET v = v + 10 WHERE id = 1;"
    getid pb
    waits_reach pg_waits 1 || echo "# $name: no row lock wait started" >&2
    A=${sid[pa]} B=${sid[pb]}
    "$DBTOP" -b -n 9 -i 0.5 --format json "$uri" >"$tmp/$name.row.json" 2>"$tmp/$name.row.err" &
    dp=$!
    for ((i = 0; i < 60; i++)); do
        [ "$(jq -c --argjson a "$A" 'select(any(.locks[]?; .blocker.id == $a))' "$tmp/$name.row.json" 2>/dev/null | wc -l)" -ge 2 ] && break
        sleep 0.1
    done
    seen=$(wc -l <"$tmp/$name.row.json")
    pg_kill "$A" >/dev/null
    bwait "$dp" 20
    edge "$name: row lock: $B waits for $A: transactionid, requested ShareLock, blocking ExclusiveLock" "$tmp/$name.row.json" \
        '.waiter.id == $b and .blocker.id == $a and .lock_type == "transactionid" and .requested == "ShareLock" and .blocking == "ExclusiveLock" and .soft == false and .root == $a and .depth == 1' \
        --argjson a "$A" --argjson b "$B"
    edge "$name: row lock: blocker idle in transaction (>= 1 s old), its last statement" "$tmp/$name.row.json" \
        '.blocker.id == $a and (.blocker.state | startswith("idle in transaction")) and .blocker.trx_age_s >= 1 and .blocker.user == "postgres" and (.blocker.query | test("UPDATE lk_row")) and .blocker.query_is_last == true and (.waiter.query | test("v \\+ 10"))' \
        --argjson a "$A"
    check "$name: terminated root $A gone from the records within 3 of them (terminated after record $seen of 9)" \
        jq -se --argjson a "$A" --argjson k "$((seen + 2))" '.[:$k] | any(.[]; any(.locks[]?; .blocker.id == $a))' "$tmp/$name.row.json"
    check "$name: ... and no later record names it" \
        jq -se --argjson a "$A" --argjson k "$((seen + 2))" 'length == 9 and (.[$k:] | length > 0 and all(.[]; all(.locks[]?; .waiter.id != $a and .blocker.id != $a and .root != $a)))' "$tmp/$name.row.json"
    check "$name: back to idle (nothing waits, no edge) once the root is gone" \
        jq -se '.[-1] | .locks_status == "idle" and .locks_waiting == 0 and .locks == []' "$tmp/$name.row.json"
    endsess pg_kill pb pa
    waits_none pg_waits

    # LOCK TABLE ... ACCESS EXCLUSIVE (B) behind A's ROW EXCLUSIVE, reader C
    # queued behind B: C's lock does not conflict with A's, only with B's
    # queued request (a soft edge)
    sess ta 12 "$P" "SELECT pg_backend_pid();" "BEGIN;" "UPDATE lk_tab SET v = v WHERE id = 1;"
    getid ta
    sleep 0.5
    sess tb 12 "$P" "SELECT pg_backend_pid();" "$PW" "BEGIN;" "LOCK TABLE lk_tab IN ACCESS EXCLUSIVE MODE;"
    getid tb
    waits_reach pg_waits 1
    sess tc 1 "$P" "SELECT pg_backend_pid();" "$PW" "SELECT count(*) FROM lk_tab;"
    getid tc
    waits_reach pg_waits 2 || echo "# $name: the lock queue did not form" >&2
    run_dbtop "$uri" "$tmp/$name.tab.json" 3
    A=${sid[ta]} B=${sid[tb]} C=${sid[tc]}
    edge "$name: LOCK TABLE: $B waits for $A: relation lk_tab, AccessExclusiveLock vs RowExclusiveLock, hard" "$tmp/$name.tab.json" \
        '.waiter.id == $b and .blocker.id == $a and .lock_type == "relation" and (.object | test("lk_tab")) and .requested == "AccessExclusiveLock" and .blocking == "RowExclusiveLock" and .soft == false' \
        --argjson a "$A" --argjson b "$B"
    edge "$name: LOCK TABLE: reader $C queued behind $B: a soft edge, depth 2 below root $A" "$tmp/$name.tab.json" \
        '.waiter.id == $c and .blocker.id == $b and .soft == true and .requested == "AccessShareLock" and .root == $a and .depth == 2' \
        --argjson a "$A" --argjson b "$B" --argjson c "$C"
    check "$name: LOCK TABLE: 2 waiting; the reader's only edges are soft (AccessShareLock does not conflict with A's RowExclusiveLock)" \
        jq -se --argjson c "$C" 'any(.[]; .locks_waiting == 2 and any(.locks[]; .waiter.id == $c)) and all(.[]; all(.locks[]?; .waiter.id != $c or .soft == true))' "$tmp/$name.tab.json"
    # the lock gate: pg_locks for a role in pg_monitor; a role without it
    # sees only its own sessions' waits, so it counts them from each
    # session's wait (none of the two waiters is its own)
    gq="SELECT coalesce(sum(calls) FILTER (WHERE query LIKE '%FROM pg_locks WHERE NOT granted)%'), 0) || ' ' || coalesce(sum(calls) FILTER (WHERE query LIKE '%backend_wait_event_type(b) = %' AND query LIKE '%clock_timestamp%'), 0) FROM pg_stat_statements"
    read -r gl0 gs0 <<<"$($psql -Atc "$gq" 2>/dev/null || echo 0 0)"
    run_dbtop "$uri" "$tmp/$name.gate.json" 5
    read -r gl1 gs1 <<<"$($psql -Atc "$gq" 2>/dev/null || echo 0 0)"
    check "$name: the lock gate from pg_locks ($((gl1 - gl0)) reads) counts as the server's view: locks_waiting 2 in every record ($(jq -sc 'map(.locks_waiting)' "$tmp/$name.gate.json" 2>&1))" \
        jq -se --argjson l "$((gl1 - gl0))" '$l >= 1 and length == 5 and all(.[]; .locks_waiting == 2)' "$tmp/$name.gate.json"
    $psql -qc "DROP ROLE IF EXISTS lk_plain; CREATE ROLE lk_plain LOGIN PASSWORD 'plainpw'" >/dev/null 2>&1
    plain_uri=$(printf '%s' "$uri" | sed 's|//[^@]*@|//lk_plain:plainpw@|')
    run_dbtop "$plain_uri" "$tmp/$name.plain.json" 4
    read -r gl2 gs2 <<<"$($psql -Atc "$gq" 2>/dev/null || echo 0 0)"
    check "$name: a role without pg_monitor counts from each session's wait ($((gs2 - gs1)) reads, $((gl2 - gl1)) from pg_locks): its own, none ($(jq -sc 'map(.locks_waiting)' "$tmp/$name.plain.json" 2>&1))" \
        jq -se --argjson l "$((gl2 - gl1))" --argjson s "$((gs2 - gs1))" '$l == 0 and $s >= 1 and length == 4 and all(.[]; .locks_waiting == 0)' "$tmp/$name.plain.json"
    $psql -qc "DROP ROLE IF EXISTS lk_plain" >/dev/null 2>&1
    endsess pg_kill tc tb ta
    waits_none pg_waits

    # a chain of three on two rows: C -> B -> A
    sess ca 12 "$P" "SELECT pg_backend_pid();" "BEGIN;" "UPDATE lk_chain SET v = v + 1 WHERE id = 1;"
    getid ca
    sess cb 12 "$P" "SELECT pg_backend_pid();" "$PW" "BEGIN;" "UPDATE lk_chain SET v = v + 1 WHERE id = 2;" "UPDATE lk_chain SET v = v + 1 WHERE id = 1;"
    getid cb
    waits_reach pg_waits 1
    sess cc 1 "$P" "SELECT pg_backend_pid();" "$PW" "UPDATE lk_chain SET v = v + 1 WHERE id = 2;"
    getid cc
    waits_reach pg_waits 2 || echo "# $name: the chain did not form" >&2
    run_dbtop "$uri" "$tmp/$name.chain.json" 3
    A=${sid[ca]} B=${sid[cb]} C=${sid[cc]}
    edge "$name: chain: $B waits for root $A at depth 1" "$tmp/$name.chain.json" \
        '.waiter.id == $b and .blocker.id == $a and .root == $a and .depth == 1' --argjson a "$A" --argjson b "$B"
    edge "$name: chain: $C waits for $B at depth 2 below root $A" "$tmp/$name.chain.json" \
        '.waiter.id == $c and .blocker.id == $b and .root == $a and .depth == 2 and .lock_type == "transactionid"' \
        --argjson a "$A" --argjson b "$B" --argjson c "$C"
    endsess pg_kill cc cb ca
    waits_none pg_waits
}
for name in pg15 pg18; do
    pg_case "$name" >"$tmp/part.$name" 2>&1 &
    parts+=($!)
done

# ---- MariaDB: nothing waits -> "idle", lock tables not queried ----
$M -e "DROP TABLE IF EXISTS website, lk_range, lk_chain, lk_dead;
CREATE TABLE website (id CHAR(36) PRIMARY KEY, domain VARCHAR(100), hits INT, UNIQUE KEY uk_website_domain (domain)) ENGINE=InnoDB;
CREATE TABLE lk_range (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
INSERT INTO lk_range VALUES (10, 1), (20, 2), (30, 3), (40, 4);
CREATE TABLE lk_chain (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
INSERT INTO lk_chain VALUES (1, 0), (2, 0), (3, 0);
CREATE TABLE lk_dead (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
INSERT INTO lk_dead VALUES (1, 0), (2, 0);"
LW="SET SESSION innodb_lock_wait_timeout = 20, lock_wait_timeout = 20;"
q0=$(lockq_count)
run_dbtop "$DBTOP_MARIADB_URI" "$tmp/idle.json" 5
q1=$(lockq_count)
check "mariadb: nothing waits: 5 records, locks_status idle, locks_waiting 0, no edge" \
    jq -se 'length == 5 and all(.[]; .locks_status == "idle" and .locks_waiting == 0 and .locks == [])' "$tmp/idle.json"
if [ -n "$q0" ] && [ "$q0" = "$q1" ]; then ok "mariadb: nothing waits: no INNODB_LOCK* query sent ($q0 before and after)"; else nok "mariadb: nothing waits: INNODB_LOCK* statements went from $q0 to $q1"; fi

# ---- (a) two upserts of the same new unique domain ----
# A inserts a.example and stays idle in its transaction; B's upsert finds
# the duplicate and asks for X on A's uncommitted index record: MariaDB
# reports requested X, held X, on uk_website_domain 'a.example'.
UPS="INSERT INTO website VALUES (UUID(), 'a.example', 1) ON DUPLICATE KEY UPDATE hits = hits + 1;"
sess ua 12 "$M -n -N" "SELECT CONNECTION_ID(); BEGIN; $UPS"
getid ua
sleep 1.2
sess ub 1 "$M -n -N" "SELECT CONNECTION_ID(); $LW $UPS"
getid ub
waits_reach my_waits 1 || echo "# (a): no row lock wait started" >&2
run_dbtop "$DBTOP_MARIADB_URI" "$tmp/a.json" 3
q2=$(lockq_count)
A=${sid[ua]} B=${sid[ub]}
check "mariadb (a): locks_status read, locks_waiting 1" jq -se 'any(.[]; .locks_status == "read" and .locks_waiting == 1)' "$tmp/a.json"
edge "mariadb (a): upsert $B waits for $A on dbtop_test.website.uk_website_domain, requested X, blocking X" "$tmp/a.json" \
    '.waiter.id == $b and .blocker.id == $a and .object == "dbtop_test.website.uk_website_domain" and .requested == "X" and .blocking == "X" and (.lock_data | test("a\\.example"))' \
    --argjson a "$A" --argjson b "$B"
edge "mariadb (a): blocker idle (Sleep) in a transaction >= 1 s old, waiter's statement and wait time" "$tmp/a.json" \
    '.blocker.id == $a and (.blocker.state | test("^(Sleep|idle)"; "i")) and .blocker.trx_age_s >= 1 and .blocker.user == "dbtop_admin" and (.waiter.query | test("^INSERT INTO website")) and .waiter.wait_s >= 0' \
    --argjson a "$A"
edge "mariadb (a): root $A, depth 1, not a cycle, not soft" "$tmp/a.json" \
    '.waiter.id == $b and .root == $a and .depth == 1 and .cycle == false and .soft == false' --argjson a "$A" --argjson b "$B"
if [ "$q2" -gt "$q1" ] 2>/dev/null; then ok "mariadb (a): lock tables read while a session waits ($q1 -> $q2 INNODB_LOCK* statements)"; else nok "mariadb (a): INNODB_LOCK* statements $q1 -> $q2 while a session waited"; fi
endsess my_kill ub ua
waits_none my_waits

# ---- (b) a range SELECT ... FOR UPDATE left open, an INSERT into its gap ----
# MariaDB shows the insert intention as X,GAP on the next key (30), held X.
# The holder runs SELECT SLEEP (an active blocker, unlike (a)).
sess ra 12 "$M -n -N" "SELECT CONNECTION_ID(); BEGIN; SELECT * FROM lk_range WHERE id BETWEEN 15 AND 25 FOR UPDATE; SELECT SLEEP(10);"
getid ra
sleep 0.5
sess rb 1 "$M -n -N" "SELECT CONNECTION_ID(); $LW INSERT INTO lk_range VALUES (22, 9);"
getid rb
waits_reach my_waits 1 || echo "# (b): no row lock wait started" >&2
run_dbtop "$DBTOP_MARIADB_URI" "$tmp/b.json" 3
A=${sid[ra]} B=${sid[rb]}
edge "mariadb (b): INSERT $B into the gap waits for $A: requested X,GAP, blocking X on dbtop_test.lk_range.PRIMARY" "$tmp/b.json" \
    '.waiter.id == $b and .blocker.id == $a and .object == "dbtop_test.lk_range.PRIMARY" and .requested == "X,GAP" and .blocking == "X" and .lock_data == "30"' \
    --argjson a "$A" --argjson b "$B"
edge "mariadb (b): the active blocker's running statement (SELECT SLEEP), not idle" "$tmp/b.json" \
    '.blocker.id == $a and (.blocker.query | test("SLEEP")) and .blocker.query_is_last == false and (.blocker.state | test("^(Sleep|idle)"; "i") | not) and .blocker.trx_age_s >= 0.4' \
    --argjson a "$A"
endsess my_kill rb ra
waits_none my_waits

# ---- (c) a chain of three: C -> B -> A ----
sess ca 12 "$M -n -N" "SELECT CONNECTION_ID(); BEGIN; UPDATE lk_chain SET v = v + 1 WHERE id = 1;"
getid ca
sess cb 6 "$M -n -N" "SELECT CONNECTION_ID(); $LW BEGIN; UPDATE lk_chain SET v = v + 1 WHERE id = 2; UPDATE lk_chain SET v = v + 1 WHERE id = 1;"
getid cb
waits_reach my_waits 1
sess cc 1 "$M -n -N" "SELECT CONNECTION_ID(); $LW UPDATE lk_chain SET v = v + 1 WHERE id = 2;"
getid cc
waits_reach my_waits 2 || echo "# (c): the chain did not form" >&2
run_dbtop "$DBTOP_MARIADB_URI" "$tmp/c.json" 3
A=${sid[ca]} B=${sid[cb]} C=${sid[cc]}
edge "mariadb (c): B $B waits for root $A at depth 1" "$tmp/c.json" \
    '.waiter.id == $b and .blocker.id == $a and .root == $a and .depth == 1' --argjson a "$A" --argjson b "$B"
edge "mariadb (c): C $C waits for B $B at depth 2 below root $A" "$tmp/c.json" \
    '.waiter.id == $c and .blocker.id == $b and .root == $a and .depth == 2 and .object == "dbtop_test.lk_chain.PRIMARY"' \
    --argjson a "$A" --argjson b "$B" --argjson c "$C"
check "mariadb (c): locks_waiting 2 and no cycle" jq -se 'any(.[]; .locks_waiting == 2 and (.locks | length) == 2 and all(.locks[]; .cycle == false))' "$tmp/c.json"
endsess my_kill cc cb ca
waits_none my_waits

# ---- (d) a deadlock ----
# A locks row 1 then row 2, B row 2 then row 1, B 1.5 s later: A waits
# for B for about 1.5 s (a plain edge), then B's request closes the cycle
# and InnoDB's deadlock detector rolls one of them back at once, so no
# cycle lasts long enough to be sampled: dbtop must simply go on, and the
# records after it go back to "idle".
waits_none my_waits
"$DBTOP" -b -n 12 -i 0.5 --format json "$DBTOP_MARIADB_URI" >"$tmp/d.json" 2>"$tmp/d.err" &
dp=$!
sleep 0.8
sess da 8 "$M -n -N" "SELECT CONNECTION_ID(); $LW BEGIN; UPDATE lk_dead SET v = 1 WHERE id = 1; SELECT SLEEP(1); UPDATE lk_dead SET v = 1 WHERE id = 2;"
sess db 8 "$M -n -N" "SELECT CONNECTION_ID(); $LW BEGIN; UPDATE lk_dead SET v = 2 WHERE id = 2; SELECT SLEEP(2.5); UPDATE lk_dead SET v = 2 WHERE id = 1;"
getid da
getid db
bwait "$dp" 20
rc=$?
if grep -q 1213 "$tmp/da.out" "$tmp/db.out"; then ok "mariadb (d): the deadlock happened (ERROR 1213 in one session)"; else nok "mariadb (d): no deadlock error: $(cat "$tmp/da.out" "$tmp/db.out" | tr '\n' ' ')"; fi
if [ "$rc" = 0 ] && [ "$(jq -s length "$tmp/d.json")" = 12 ]; then ok "mariadb (d): dbtop went on through the deadlock (12 records, status 0)"; else nok "mariadb (d): dbtop status $rc, $(wc -l <"$tmp/d.json") records: $(head -c 300 "$tmp/d.err")"; fi
edge "mariadb (d): the wait before the deadlock was seen (${sid[da]} waits for ${sid[db]})" "$tmp/d.json" \
    '.waiter.id == $a and .blocker.id == $b and .object == "dbtop_test.lk_dead.PRIMARY"' --argjson a "${sid[da]}" --argjson b "${sid[db]}"
check "mariadb (d): back to idle after the deadlock (last 2 records)" jq -se '.[-2:] | length == 2 and all(.[]; .locks_status == "idle" and .locks == [] and .state == "up")' "$tmp/d.json"
endsess my_kill da db

# ---- (e) a metadata-lock wait: an ALTER TABLE behind an open transaction ----
# The gate counts it. Without a session list its own statement looks at
# every session; with one read in the refresh (--sessions), the list (the
# whole process list) counts it, and that statement is not sent.
my_mdl() { $M -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for%metadata lock'"; }
mdlq_count() {
    $M -N -e "SELECT IFNULL(SUM(COUNT_STAR), 0) FROM performance_schema.events_statements_summary_by_digest WHERE DIGEST_TEXT LIKE '%COUNT ( * ) , TIMESTAMPDIFF%PROCESSLIST%'"
}
sess ma 14 "$M -n -N" "SELECT CONNECTION_ID(); BEGIN; SELECT COUNT(*) FROM lk_range;"
getid ma
sleep 0.5
sess mb 1 "$M -n -N" "SELECT CONNECTION_ID(); $LW ALTER TABLE lk_range ADD COLUMN w INT;"
getid mb
waits_reach my_mdl 1 || echo "# (e): no metadata-lock wait started: $(cat "$tmp/mb.out" | tr '\n' ' ')" >&2
m0=$(mdlq_count)
run_dbtop "$DBTOP_MARIADB_URI" "$tmp/e.json" 3
m1=$(mdlq_count)
timeout 30 "$DBTOP" -b -n 4 -i 0.5 --sessions --format json "$DBTOP_MARIADB_URI" >"$tmp/e2.json" 2>"$tmp/e2.err"
m2=$(mdlq_count)
check "mariadb (e): an ALTER TABLE waiting for a metadata lock: locks_waiting 1 in every record (the check's statement)" \
    jq -se 'length == 3 and all(.[]; .locks_waiting == 1)' "$tmp/e.json"
if [ "$m1" -gt "$m0" ] 2>/dev/null; then ok "mariadb (e): without a session list the metadata-lock check was sent ($m0 -> $m1)"; else nok "mariadb (e): metadata-lock check statements $m0 -> $m1 without a session list"; fi
check "mariadb (e): --sessions: locks_waiting 1 in every record, the ALTER listed waiting for its metadata lock" \
    jq -se --argjson b "${sid[mb]:--1}" 'length == 4 and all(.[]; .locks_waiting == 1) and any(.[]; any(.sessions[]?; .id == $b and (.wait | test("metadata lock"))))' "$tmp/e2.json"
kept=$(jq -s '[.[] | select((.sessions_age_s // 0) > 0)] | length' "$tmp/e2.json")
if [ "$((m2 - m1))" -le "${kept:-0}" ] 2>/dev/null; then
    ok "mariadb (e): --sessions: the check's statement sent only where the list was not read ($((m2 - m1)) sent, $kept of 4 records with a kept list)"
else
    nok "mariadb (e): --sessions: $((m2 - m1)) metadata-lock check statements for $kept records with a kept list: $(head -c 300 "$tmp/e2.err")"
fi
endsess my_kill mb ma
waits_none my_mdl

# the PostgreSQL cases, run beside
wait "${parts[@]}"
for name in pg15 pg18; do
    merge_part "$tmp/part.$name"
done
done_tests
