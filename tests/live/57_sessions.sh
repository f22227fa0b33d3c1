# The session list (--sessions) on MariaDB, PostgreSQL 15 and 18: with 50
# idle, 10 active (sleeping SELECTs), 1 transaction holding a row lock and
# 3 UPDATEs waiting for it, the counts per class of dbtop's record match
# SHOW PROCESSLIST + INNODB_TRX / pg_stat_activity read while dbtop runs;
# the waiters name their blocker; --explain ID shows the plan of a running
# SELECT; a DELETE explained deletes nothing; a statement with $1 is
# refused on PostgreSQL 15 with the reason and planned on 18
# (GENERIC_PLAN).
#
# Every session sleeps at most 20 s and waits for a lock at most 25 s;
# every client process started here is killed by PID, every server
# session ended (KILL / pg_terminate_backend by application_name) at the
# end of its engine's part and in the EXIT trap.
. tests/lib.sh
tmp=$(mktemp -d)
declare -a kids
declare -A sid
M=$DBTOP_MARIADB_CLIENT
APP=dbtop57
cleanup_pg() {
    local P=$1
    [ -n "$P" ] && $P -Atc "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '$APP'" >/dev/null 2>&1
    [ -n "$P" ] && $P -qc "DROP TABLE IF EXISTS s57, l57, d57; DROP ROLE IF EXISTS app57" >/dev/null 2>&1
}
cleanup_my() {
    local id
    for id in "${my_ids[@]}"; do $M -e "KILL $id" >/dev/null 2>&1; done
    my_ids=()
}
kill_kids() {
    local p
    for p in "${kids[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    kids=()
}
trap 'cleanup_my; cleanup_pg "$DBTOP_PG15_PSQL"; cleanup_pg "$DBTOP_PG18_PSQL"; kill_kids; rm -rf "$tmp"' EXIT
declare -a my_ids

# sess NAME SECONDS CLIENT SQL...: a client reading SQL lines from a FIFO,
# then idle for SECONDS before its input ends; its first line of output is
# its session id
sess() {
    local name=$1 secs=$2 client=$3
    shift 3
    mkfifo "$tmp/$name.in"
    $client <"$tmp/$name.in" >"$tmp/$name.out" 2>&1 &
    kids+=($!)
    (printf '%s\n' "$@"; exec sleep "$secs") >"$tmp/$name.in" &
    kids+=($!)
}
# getid NAME: its session id (<= 10 s) into sid[NAME]
getid() {
    local i v
    for ((i = 0; i < 200; i++)); do
        v=$(head -n 1 "$tmp/$1.out" 2>/dev/null)
        case $v in '' | *[!0-9]*) sleep 0.05 ;; *) sid[$1]=$v; return 0 ;; esac
    done
    sid[$1]=-1
    echo "# session $1 gave no id: $(head -c 300 "$tmp/$1.out")" >&2
    return 1
}
# poll CMD VALUE: until CMD prints VALUE or more (<= 10 s)
poll() {
    local i
    for ((i = 0; i < 200; i++)); do
        [ "$($1 2>/dev/null)" -ge "$2" ] 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}
# run_dbtop URI OUT REFCMD: dbtop --sessions (2 records, 0.5 s apart) in the
# background; REFCMD runs once dbtop's first record is out (the server's own
# view, in the same second); its output in OUT.ref
run_dbtop() {
    local i
    timeout 40 "$DBTOP" -b -n 2 -i 0.5 --sessions --format json "$1" >"$2" 2>"$2.err" &
    local dp=$!
    for ((i = 0; i < 400; i++)); do
        [ -s "$2" ] && break
        sleep 0.05
    done
    $3 >"$2.ref" 2>&1
    wait $dp
}
# counts FILE: active lock_wait idle_in_trx idle of the last record, dbtop's
# own connections left out (self, or application_name dbtop)
counts() {
    jq -r 'def n(c): [.sessions[] | select(.self | not) | select(.app != "dbtop") | select(.class == c)] | length;
        "\(n("active")) \(n("waiting for lock")) \(n("idle in transaction")) \(n("idle"))"' "$1" | tail -n 1
}

# ---------------- MariaDB ----------------
$M -e "DROP TABLE IF EXISTS s57, l57, d57;
CREATE TABLE s57 (id INT PRIMARY KEY, v INT) ENGINE=InnoDB; INSERT INTO s57 SELECT seq, 0 FROM seq_1_to_100;
CREATE TABLE l57 (id INT PRIMARY KEY, v INT) ENGINE=InnoDB; INSERT INTO l57 VALUES (1, 0);
CREATE TABLE d57 (id INT PRIMARY KEY, v INT) ENGINE=InnoDB; INSERT INTO d57 SELECT seq, 0 FROM seq_1_to_100;"
for ((k = 0; k < 50; k++)); do sess mi$k 20 "$M -n -N" "SELECT CONNECTION_ID();"; done
for ((k = 0; k < 10; k++)); do sess ma$k 20 "$M -n -N" "SELECT CONNECTION_ID();" "SELECT COUNT(*) FROM s57 WHERE SLEEP(0.2) = 0;"; done
sess mh 20 "$M -n -N" "SELECT CONNECTION_ID();" "BEGIN;" "UPDATE l57 SET v = v + 1 WHERE id = 1;"
getid mh
for ((k = 0; k < 3; k++)); do sess mw$k 1 "$M -n -N" "SELECT CONNECTION_ID();" "SET SESSION innodb_lock_wait_timeout = 25;" "UPDATE l57 SET v = v + 1 WHERE id = 1;"; done
sess md 1 "$M -n -N" "SELECT CONNECTION_ID();" "DELETE FROM d57 WHERE id > 0 AND SLEEP(0.2) = 1;"
for n in mh md $(seq -f 'mi%g' 0 49) $(seq -f 'ma%g' 0 9) $(seq -f 'mw%g' 0 2); do getid $n; my_ids+=(${sid[$n]}); done
my_waits() { $M -N -e "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'"; }
my_running() { $M -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'dbtop_admin' AND COMMAND = 'Query' AND INFO LIKE '%SLEEP(%' AND ID <> CONNECTION_ID()"; }
poll my_waits 3 || echo "# mariadb: $(my_waits) lock waits" >&2
poll my_running 11 || echo "# mariadb: $(my_running) sleeping statements" >&2
# SHOW PROCESSLIST (and INNODB_TRX for transactions and their lock waits)
# as the server's own view: active lock_wait idle_in_trx idle, dbtop's and
# this query's own connections left out
my_ref() {
    $M -N -e "SHOW FULL PROCESSLIST; SELECT 'TRX', trx_mysql_thread_id, trx_state FROM information_schema.INNODB_TRX" |
        awk -F'\t' '$1 == "TRX" { trx[$2] = $3; next }
            { id[NR] = $1; user[NR] = $2; cmd[NR] = $5; info[NR] = $8; state[NR] = $7 }
            END { for (i in id) {
                u = user[i]; c = cmd[i]
                if (u == "dbtop_mon" || u == "system user" || u == "event_scheduler" || c == "Daemon" || info[i] ~ /^SHOW FULL PROCESSLIST/) continue
                if ((id[i] in trx) && trx[id[i]] == "LOCK WAIT" || state[i] ~ /^Waiting for .*lock/) w++
                else if (c == "Sleep" && (id[i] in trx)) t++
                else if (c == "Sleep") s++
                else a++ }
              printf "%d %d %d %d\n", a, w, t, s }'
}
# the server's count of dbtop's session and lock statements (digests): the
# joined read (the graph's tables and every process list row, its HOST
# column), the list's own transaction read
my_stmts() {
    $M -N -e "SELECT COALESCE(SUM(IF(DIGEST_TEXT LIKE '%INNODB_LOCKS%' AND DIGEST_TEXT LIKE '%\`p\` . \`HOST\`%', COUNT_STAR, 0)), 0),
        COALESCE(SUM(IF(DIGEST_TEXT LIKE 'SELECT \`x\` . \`trx_mysql_thread_id\`%', COUNT_STAR, 0)), 0)
        FROM performance_schema.events_statements_summary_by_digest" | tr '\t' ' '
}
stmts0=$(my_stmts)
run_dbtop "$DBTOP_MARIADB_URI" "$tmp/my.json" my_ref
stmts1=$(my_stmts)
ref=$(cat "$tmp/my.json.ref") got=$(counts "$tmp/my.json")
check "mariadb: 2 records with sessions_status ok" jq -se 'length == 2 and all(.[]; .sessions_status == "ok")' "$tmp/my.json"
if [ "$ref" = "11 3 1 50" ]; then ok "mariadb: SHOW PROCESSLIST: 11 active, 3 waiting, 1 idle in transaction, 50 idle"; else nok "mariadb: SHOW PROCESSLIST said active/waiting/idle-in-trx/idle $ref, want 11 3 1 50"; fi
if [ "$got" = "$ref" ]; then ok "mariadb: dbtop's classes match SHOW PROCESSLIST ($got)"; else nok "mariadb: dbtop said $got, SHOW PROCESSLIST $ref"; fi
H=${sid[mh]}
check "mariadb: the 3 waiters name their blocker $H (from the lock graph)" \
    jq -se --argjson h "$H" 'last | [.sessions[] | select(.class == "waiting for lock")] | length == 3 and all(.[]; .blocked_by == $h and .blockers == 1)' "$tmp/my.json"
# sessions wait for a row lock: the list and the graph are one statement
read -r j0 t0 <<<"$stmts0"
read -r j1 t1 <<<"$stmts1"
if [ -n "$j1" ] && [ $((j1 - j0)) -ge 1 ] && [ $((t1 - t0)) -eq 0 ]; then
    ok "mariadb: the list and the lock graph read in one statement ($((j1 - j0)) reads, no transaction read of its own)"
else
    nok "mariadb: joined reads $j0 -> $j1, the list's own transaction reads $t0 -> $t1 (want 1 or more, and none)"
fi
check "mariadb: the holder is idle in transaction, its UPDATE its last statement" \
    jq -se --argjson h "$H" 'last | .sessions[] | select(.id == $h) | .class == "idle in transaction" and .trx_age_s >= 0 and .client == "localhost"' "$tmp/my.json"
echo "# mariadb: session read $(jq -s 'last | .sessions_query_ms' "$tmp/my.json") ms for $(jq -s 'last | .sessions_count.total' "$tmp/my.json") sessions"
A=${sid[ma0]}
plan=$(timeout 20 "$DBTOP" --explain "$A" "$DBTOP_MARIADB_URI" 2>&1)
if grep -q 's57' <<<"$plan" && grep -q 'select_type' <<<"$plan"; then ok "mariadb: explain of running SELECT $A shows its plan (SHOW EXPLAIN FOR)"; else nok "mariadb: explain $A said: $(head -c 400 <<<"$plan")"; fi
before=$($M -N -e "SELECT COUNT(*) FROM d57")
D=${sid[md]}
plan=$(timeout 20 "$DBTOP" --explain "$D" "$DBTOP_MARIADB_URI" 2>&1)
after=$($M -N -e "SELECT COUNT(*) FROM d57")
if grep -q 'd57' <<<"$plan" && [ "$before" = 100 ] && [ "$after" = 100 ]; then ok "mariadb: a running DELETE explained: plan shown, rows $before before, $after after"; else nok "mariadb: DELETE explain said $(head -c 300 <<<"$plan"); rows $before -> $after"; fi
I=${sid[mi0]}
if ! msg=$(timeout 20 "$DBTOP" --explain "$I" "$DBTOP_MARIADB_URI" 2>&1) && grep -q 'runs no statement' <<<"$msg"; then ok "mariadb: an idle session is not explained: $msg"; else nok "mariadb: explain of idle $I said: $msg"; fi
cleanup_my
kill_kids

# ---------------- PostgreSQL ----------------
# pg_part NAME PSQL URI VERSION
pg_part() {
    local N=$1 P=$2 U=$3 V=$4 k
    local C="env PGAPPNAME=$APP $P -At -U app57"
    # explain plans as the session's role (app57: dbtop_mon is a member,
    # as docs/explain.md advises); that role may delete from d57, and still
    # nothing is deleted
    $P -qc "DROP TABLE IF EXISTS s57, l57, d57;" >/dev/null 2>&1
    $P -qc "DROP ROLE IF EXISTS app57;" >/dev/null 2>&1
    $P -qc "CREATE ROLE app57 LOGIN; GRANT app57 TO dbtop_mon;
CREATE TABLE s57 (id int PRIMARY KEY, v int); INSERT INTO s57 VALUES (1, 0);
CREATE TABLE l57 (id int PRIMARY KEY, v int); INSERT INTO l57 VALUES (1, 0);
CREATE TABLE d57 (id int PRIMARY KEY, v int); INSERT INTO d57 VALUES (1, 0), (2, 0), (3, 0);
GRANT SELECT, UPDATE ON s57, l57 TO app57; GRANT SELECT, DELETE ON d57 TO app57;" >/dev/null 2>&1
    for ((k = 0; k < 50; k++)); do sess ${N}i$k 20 "$C" "SELECT pg_backend_pid();"; done
    for ((k = 0; k < 10; k++)); do sess ${N}a$k 20 "$C" "SELECT pg_backend_pid();" "SELECT count(*) FROM s57 WHERE (SELECT true FROM pg_sleep(20));"; done
    sess ${N}h 20 "$C" "SELECT pg_backend_pid();" "BEGIN;" "UPDATE l57 SET v = v + 1 WHERE id = 1;"
    getid ${N}h
    for ((k = 0; k < 3; k++)); do sess ${N}w$k 1 "$C" "SELECT pg_backend_pid();" "SET lock_timeout = '25s';" "UPDATE l57 SET v = v + 1 WHERE id = 1;"; done
    sess ${N}d 1 "$C" "SELECT pg_backend_pid();" "DELETE FROM d57 WHERE id = (SELECT 0 FROM pg_sleep(20));"
    # a statement with a parameter ($1): pgbench's extended protocol
    printf '\\set id 1\nSELECT count(*) FROM s57 WHERE id = :id AND (SELECT true FROM pg_sleep(20));\n' >"$tmp/$N.bench"
    local sock port
    sock=$(sed -n 's/.*-h \([^ ]*\).*/\1/p' <<<"$P") port=$(sed -n 's/.*-p \([0-9]*\).*/\1/p' <<<"$P")
    PGAPPNAME=$APP timeout 30 pgbench -n -M extended -t 1 -c 1 -f "$tmp/$N.bench" -h "$sock" -p "$port" -U app57 dbtop_test >/dev/null 2>&1 &
    kids+=($!)
    for n in ${N}d $(seq -f "${N}i%g" 0 49) $(seq -f "${N}a%g" 0 9) $(seq -f "${N}w%g" 0 2); do getid $n; done
    pg_waits() { $P -Atc "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$APP' AND wait_event_type = 'Lock'"; }
    pg_running() { $P -Atc "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$APP' AND state = 'active' AND query LIKE '%pg_sleep(20)%'"; }
    poll pg_waits 3 || echo "# $N: $(pg_waits) lock waits" >&2
    poll pg_running 12 || echo "# $N: $(pg_running) sleeping statements" >&2
    pg_ref() {
        $P -Atc "SELECT concat_ws(' ', count(*) FILTER (WHERE state = 'active' AND wait_event_type IS DISTINCT FROM 'Lock'),
            count(*) FILTER (WHERE state = 'active' AND wait_event_type = 'Lock'),
            count(*) FILTER (WHERE state LIKE 'idle in transaction%'), count(*) FILTER (WHERE state = 'idle'))
            FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND application_name <> 'dbtop'"
    }
    run_dbtop "$U" "$tmp/$N.json" pg_ref
    local ref got
    ref=$(cat "$tmp/$N.json.ref") got=$(counts "$tmp/$N.json")
    check "$N: 2 records with sessions_status ok" jq -se 'length == 2 and all(.[]; .sessions_status == "ok")' "$tmp/$N.json"
    if [ "$ref" = "12 3 1 50" ]; then ok "$N: pg_stat_activity: 12 active, 3 waiting, 1 idle in transaction, 50 idle"; else nok "$N: pg_stat_activity said $ref, want 12 3 1 50"; fi
    if [ "$got" = "$ref" ]; then ok "$N: dbtop's classes match pg_stat_activity ($got)"; else nok "$N: dbtop said $got, pg_stat_activity $ref"; fi
    local H=${sid[${N}h]}
    # the first waiter waits for the holder's transaction, the others queue
    # behind it for the row (its tuple lock, which the first holds): each
    # names the one session holding what it waits for, not the requests
    # queued ahead of it as well (as pg_blocking_pids would: 1, 2 and 3)
    check "$N: the 3 waiters each name the one holder of what they wait for: $H, or the waiter ahead that holds the row's lock and waits for $H" \
        jq -se --argjson h "$H" 'last | [.sessions[] | select(.class == "waiting for lock")] as $w | ($w | map(.id)) as $ids |
            ($w | length) == 3 and all($w[]; (.blocked_by == $h or (.blocked_by as $b | $ids | index($b))) and .blockers == 1 and (.wait | test("^Lock:")))
            and ([$w[] | select(.blocked_by == $h)] | length) == 1
            and ([$w[] | select(.blocked_by != $h)] | map(.blocked_by) | unique | length) <= 1' "$tmp/$N.json"
    check "$N: the holder is idle in transaction over a socket, its UPDATE the last statement" \
        jq -se --argjson h "$H" 'last | .sessions[] | select(.id == $h) | .class == "idle in transaction" and .client == "[local]" and .query_is_last and (.query | test("UPDATE l57"))' "$tmp/$N.json"
    check "$N: background processes listed as such" jq -se 'last | any(.sessions[]; .class == "background" and .type == "checkpointer")' "$tmp/$N.json"
    echo "# $N: session read $(jq -s 'last | .sessions_query_ms' "$tmp/$N.json") ms for $(jq -s 'last | .sessions_count.total' "$tmp/$N.json") sessions"
    local A=${sid[${N}a0]} plan msg before after
    plan=$(timeout 20 "$DBTOP" --explain "$A" "$U" 2>&1)
    if grep -q 'on s57' <<<"$plan"; then ok "$N: explain of running SELECT $A shows its plan"; else nok "$N: explain $A said: $(head -c 400 <<<"$plan")"; fi
    before=$($P -Atc "SELECT count(*) FROM d57")
    plan=$(timeout 20 "$DBTOP" --explain "${sid[${N}d]}" "$U" 2>&1)
    after=$($P -Atc "SELECT count(*) FROM d57")
    if grep -q 'Delete on d57' <<<"$plan" && [ "$before" = 3 ] && [ "$after" = 3 ]; then ok "$N: a running DELETE explained: plan shown, rows $before before, $after after"; else nok "$N: DELETE explain said $(head -c 300 <<<"$plan"); rows $before -> $after"; fi
    local B
    B=$($P -Atc "SELECT pid FROM pg_stat_activity WHERE application_name = '$APP' AND query LIKE '%= \$1%' LIMIT 1")
    msg=$(timeout 20 "$DBTOP" --explain "${B:-0}" "$U" 2>&1)
    if [ "$V" -lt 16 ]; then
        if grep -q "PostgreSQL $V cannot plan a statement with parameters (\$1) without their values; GENERIC_PLAN needs 16" <<<"$msg"; then ok "$N: a statement with \$1 is refused: $msg"; else nok "$N: explain of \$1 statement ${B:-none} said: $msg"; fi
    else
        if grep -q 'on s57' <<<"$msg"; then ok "$N: a statement with \$1 is planned with GENERIC_PLAN"; else nok "$N: explain of \$1 statement ${B:-none} said: $(head -c 400 <<<"$msg")"; fi
    fi
    # --read-only changes nothing about explain (it runs nothing)
    plan=$(timeout 20 "$DBTOP" --read-only --explain "$A" "$U" 2>&1)
    if grep -q 'on s57' <<<"$plan"; then ok "$N: explain under --read-only"; else nok "$N: explain --read-only said: $(head -c 300 <<<"$plan")"; fi
    # a statement other than SELECT / INSERT / UPDATE / DELETE / MERGE
    sess ${N}o 1 "$C" "SELECT pg_backend_pid();" "DO \$\$ BEGIN PERFORM pg_sleep(20); END \$\$;"
    getid ${N}o
    pg_do() { $P -Atc "SELECT count(*) FROM pg_stat_activity WHERE pid = ${sid[${N}o]} AND state = 'active'"; }
    poll pg_do 1
    msg=$(timeout 20 "$DBTOP" --explain "${sid[${N}o]}" "$U" 2>&1)
    if grep -q 'DO statements are not explained' <<<"$msg"; then ok "$N: a DO block is refused: $msg"; else nok "$N: explain of a DO block said: $msg"; fi
    # --server-budget: a read costlier than its share is reused, aged, between reads
    timeout 30 "$DBTOP" -b -n 4 -i 0.5 --sessions --server-budget 0.2 --format json "$U" >"$tmp/$N.budget.json" 2>/dev/null
    if jq -se 'length == 4 and any(.[]; .sessions_age_s > 0 and (.sessions_note | test("list from .* s ago: it takes .* ms of server time to read, so it is read every [0-9]+ s \\(--server-budget\\)"))) and all(.[]; .sessions_status == "ok")' "$tmp/$N.budget.json" >/dev/null; then
        ok "$N: under a tight --server-budget the list is reused between reads, its age said"
    else
        nok "$N: --server-budget 0.2: $(jq -c '{sessions_status, sessions_age_s, sessions_note}' "$tmp/$N.budget.json" 2>&1 | head -c 600)"
    fi
    cleanup_pg "$P"
    kill_kids
}
pg_part pg15 "$DBTOP_PG15_PSQL" "$DBTOP_PG15_URI" 15
if [ -n "$DBTOP_PG18_URI" ]; then
    pg_part pg18 "$DBTOP_PG18_PSQL" "$DBTOP_PG18_URI" 18
else
    echo "# PostgreSQL 18 not in the sandbox: skipped"
fi
done_tests
