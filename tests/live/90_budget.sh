# --server-budget on live servers: with a budget too small for any lock
# read, the lock graph is read once and then shown from that read, aged,
# with a note (and the server sees one lock-table statement, not one per
# refresh); with --server-budget 0 it is read on every refresh; a paced
# graph never outlives the wait (the root ended: idle at once).
#
# Sessions (tests/sessions.sh) stay idle in their open transactions for at
# most 15 s; waiters carry a lock wait limit of 20 s. Every process started
# here is killed by PID in the trap; every server session started here is
# ended after its scenario.
. tests/lib.sh
. tests/sessions.sh
tmp=$(mktemp -d)
trap 'sessions_kill; rm -rf "$tmp"' EXIT

# budget NAME URI COUNTER KILL WAITS: one engine, sessions A (root) and B
# (waiting) made by the caller's start_pair
budget() {
    local name=$1 uri=$2 counter=$3 kill=$4 waits=$5 q0 q1 q2 q3
    start_pair
    waits_reach "$waits" 1 || echo "# $name: no lock wait started" >&2
    A=${sid[a]} B=${sid[b]}

    q0=$($counter)
    timeout 30 "$DBTOP" -b -n 6 -i 0.5 --format json --server-budget 0.01 "$uri" >"$tmp/$name.paced.json" 2>"$tmp/$name.paced.err"
    q1=$($counter)
    check "$name: --server-budget 0.01: 6 records, all with the edge $B -> $A" \
        jq -se --argjson a "$A" --argjson b "$B" 'length == 6 and all(.[]; .locks_status == "read" and any(.locks[]; .waiter.id == $b and .blocker.id == $a))' "$tmp/$name.paced.json"
    check "$name: ... the graph is an earlier read: locks_age_s grows, the note says how old and why" \
        jq -se '[.[] | .locks_age_s // 0] as $g | ($g | map(select(. > 0)) | length) >= 5 and ($g[-1] > $g[1]) and all(.[1:][]; .locks_note | test("^graph from [0-9]+ s ago: it takes .* ms of server time to read, so it is read every [0-9]+ s( while no lock wait begins or ends)? \\(--server-budget\\)"))' "$tmp/$name.paced.json"
    # MySQL / MariaDB: no wait began or ended since the read (the status
    # counters), its root idle in its transaction: up to 120 s between reads
    [ "$name" = mariadb ] && check "$name: ... the pile-up has not moved: read every 120 s while no lock wait begins or ends" \
        jq -se 'all(.[1:][]; .locks_note | test("read every 120 s while no lock wait begins or ends"))' "$tmp/$name.paced.json"
    check "$name: ... and the times run on between reads (blocker transaction age, wait)" \
        jq -se --argjson a "$A" '[.[] | .locks[] | select(.blocker.id == $a)] | (.[-1].blocker.trx_age_s > .[1].blocker.trx_age_s + 1) and (.[-1].waiter.wait_s > .[1].waiter.wait_s + 1)' "$tmp/$name.paced.json"
    if [ -n "$q0" ] && [ $((q1 - q0)) -ge 1 ] && [ $((q1 - q0)) -le 2 ]; then
        ok "$name: ... the server saw $((q1 - q0)) lock-table statement(s) for 7 samples"
    else
        nok "$name: ... lock-table statements went from $q0 to $q1 for 7 samples (1 expected)"
    fi

    timeout 30 "$DBTOP" -b -n 4 -i 0.5 --format json --server-budget 0 "$uri" >"$tmp/$name.every.json" 2>"$tmp/$name.every.err"
    q2=$($counter)
    check "$name: --server-budget 0: read on every refresh (no locks_age_s, no note)" \
        jq -se 'length == 4 and all(.[]; .locks_status == "read" and .locks_age_s == null and .locks_note == null and (.locks | length) >= 1)' "$tmp/$name.every.json"
    if [ $((q2 - q1)) -ge 4 ]; then ok "$name: ... $((q2 - q1)) lock-table statements for 5 samples"; else nok "$name: ... lock-table statements $q1 -> $q2 for 5 samples"; fi

    # the root ends while a paced graph is shown: nothing waits, so idle at once
    "$DBTOP" -b -n 8 -i 0.5 --format json --server-budget 0.01 "$uri" >"$tmp/$name.end.json" 2>"$tmp/$name.end.err" &
    local dp=$! i seen
    for ((i = 0; i < 60; i++)); do
        [ "$(jq -c 'select(.locks_age_s != null)' "$tmp/$name.end.json" 2>/dev/null | wc -l)" -ge 1 ] && break
        sleep 0.1
    done
    seen=$(wc -l <"$tmp/$name.end.json")
    $kill "$A" >/dev/null
    bwait "$dp" 20
    check "$name: root $A ended after record $seen of 8 (paced): gone within 3 records, idle at the end" \
        jq -se --argjson a "$A" --argjson k "$((seen + 3))" 'length == 8 and (.[$k:] | length > 0 and all(.[]; all(.locks[]?; .blocker.id != $a))) and (.[-1] | .locks_status == "idle" and .locks == [] and .locks_age_s == null)' "$tmp/$name.end.json"
    q3=$($counter)
    endsess "$kill" b a
    waits_none "$waits"
    [ -s "$tmp/$name.paced.err" ] && echo "# $name stderr: $(head -c 300 "$tmp/$name.paced.err")" >&2
    return 0
}

# ---- MariaDB ----
M=$DBTOP_MARIADB_CLIENT
my_kill() { $M -e "KILL $1"; }
my_waits() { $M -N -e "SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_current_waits'" | cut -f2; }
my_lockreads() {
    $M -N -e "SELECT IFNULL(SUM(COUNT_STAR), 0) FROM performance_schema.events_statements_summary_by_digest
        WHERE DIGEST_TEXT LIKE '%INNODB\\_LOCKS%' AND DIGEST_TEXT NOT LIKE '%events\\_statements%'"
}
$M -e "DROP TABLE IF EXISTS bg_row; CREATE TABLE bg_row (id INT PRIMARY KEY, v INT) ENGINE=InnoDB; INSERT INTO bg_row VALUES (1, 0), (2, 0);"
start_pair() {
    sess a 15 "$M -n -N" "SELECT CONNECTION_ID(); BEGIN; UPDATE bg_row SET v = v + 1 WHERE id = 1;"
    getid a
    sleep 1.2
    sess b 15 "$M -n -N" "SELECT CONNECTION_ID(); SET SESSION innodb_lock_wait_timeout = 20; UPDATE bg_row SET v = v + 10 WHERE id = 1;"
    getid b
}
budget mariadb "$DBTOP_MARIADB_URI" my_lockreads my_kill my_waits

# ---- PostgreSQL 15 ----
psql=$DBTOP_PG15_PSQL
pg_kill() { $psql -Atc "SELECT pg_terminate_backend($1)"; }
pg_waits() { $psql -Atc "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"; }
pg_lockreads() {
    $psql -Atc "SELECT coalesce(sum(s.calls), 0) FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
        WHERE r.rolname = 'dbtop_mon' AND s.query LIKE '%FROM pg_locks k%'"
}
$psql -q >/dev/null <<'SQL'
DROP TABLE IF EXISTS bg_row;
CREATE TABLE bg_row (id int PRIMARY KEY, v int);
INSERT INTO bg_row VALUES (1, 0), (2, 0);
SQL
start_pair() {
    sess a 15 "$psql -At" "SELECT pg_backend_pid();" "BEGIN;" "UPDATE bg_row SET v = v + 1 WHERE id = 1;"
    getid a
    sleep 1.2
    sess b 15 "$psql -At" "SELECT pg_backend_pid();" "SET lock_timeout = '20s';" "UPDATE bg_row SET v = v + 10 WHERE id = 1;"
    getid b
}
budget pg15 "$DBTOP_PG15_URI" pg_lockreads pg_kill pg_waits

done_tests
