# Statement digests on live servers: a cheap statement run thousands of
# times outranks a rare slow one by total time; calls add up to what the
# workload sent; an explicit COMMIT shows up as a digest of its own.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# total JQ-FILTER FILE: sum over records of per-second values x the window
# they cover, for digests whose text matches REGEX ($3) -> the count or ms
# in the whole run. A record whose digests were not read (digests_fresh
# false: reads paced by --server-budget) repeats an earlier read's rates
# and is left out; a read's window covers the records it skipped.
total() {
    jq -s --arg re "$3" "[.[] | select(.digests_fresh != false) | (.digests_window_s // .interval_s) as \$iv | (.digests // [])[] | select(.text | test(\$re; \"i\")) | (.$1 // 0) * \$iv] | add // 0" "$2"
}

# start_dbtop FILE URI: dbtop in the background (its pid in $dp), writing
# records to FILE until stop_dbtop; returns once the first record (rates
# known) is out, so that the workload that follows is watched whole
start_dbtop() {
    local f=$1 uri=$2
    shift 2
    "$DBTOP" --batch --count 600 --interval 1 --top 100 --format json "$@" "$uri" >"$f" 2>"$f.err" &
    dp=$!
    local i
    for ((i = 0; i < 600; i++)); do
        [ -s "$f" ] && return 0
        kill -0 "$dp" 2>/dev/null || return 1
        sleep 0.1
    done
}
# stop_dbtop FILE: after the workload, wait for two more records of which
# the last read the digests (its window covers the end of the workload),
# then stop dbtop (SIGTERM: it finishes the record it is writing)
stop_dbtop() {
    local n0 i
    n0=$(wc -l <"$1")
    for ((i = 0; i < 600; i++)); do
        if [ "$(wc -l <"$1")" -ge $((n0 + 2)) ] && tail -n 1 "$1" | jq -e '.digests_fresh != false' >/dev/null 2>&1; then
            break
        fi
        sleep 0.1
    done
    kill -TERM "$dp" 2>/dev/null
    wait "$dp"
}

# counts NAME FILE SENT SLOW-RE SLOW-MS: the cheap statement's calls add up
# to the SENT ones (6000 when pgbench said nothing), it outranks the rare
# slow one (more than SLOW-MS in all) by total time, and the 200 explicit
# COMMITs have a digest of their own
counts() {
    local name=$1 f=$2 sent=$3 calls cheap slow commits
    calls=$(total calls_per_s "$f" '^SELECT count')
    if within "$calls" "${sent:-6000}" 10; then ok "$name: cheap statement calls add up to $calls of ${sent:-?} sent"; else nok "$name: cheap statement calls $calls, sent ${sent:-?}"; fi
    cheap=$(total total_ms_per_s "$f" '^SELECT count')
    slow=$(total total_ms_per_s "$f" "$4")
    if awk -v a="$cheap" -v b="$slow" -v m="$5" 'BEGIN { exit !(a > b && b > m) }'; then ok "$name: the cheap statement ($cheap ms) outranks the rare slow one ($slow ms) by total time"; else nok "$name: cheap $cheap ms vs slow $slow ms"; fi
    commits=$(total calls_per_s "$f" '^COMMIT')
    if within "$commits" 200 10; then ok "$name: the explicit COMMIT digest ($commits of 200)"; else nok "$name: COMMIT digest calls $commits of 200"; fi
}

# o in the TUI: dbtop's own statements marked * in the ranking, the others not
TM() { tmux -L "$tsock" -f /dev/null "$@"; }
# own_tui NAME URI: screen 2 without, then with dbtop's own statements (a
# tmux server of its own: the engines' parts run side by side)
own_tui() {
    local name=$1 uri=$2 i scr before after tsock=dbtop-own55-$1-$$
    TM new-session -d -s o -x 100 -y 30 "TERM=xterm-256color $DBTOP --no-config --interval 1 '$uri'"
    sleep 1
    TM send-keys -t o 2
    for ((i = 0; i < 100; i++)); do
        TM capture-pane -p -t o | grep -q 'per interval' && break
        sleep 0.1
    done
    sleep 3
    before=$(TM capture-pane -p -t o)
    TM send-keys -t o o
    after=""
    for ((i = 0; i < 100; i++)); do
        scr=$(TM capture-pane -p -t o)
        if grep -q "own statements shown" <<<"$scr" && grep -qE ' \*(SELECT|WITH|SET|SHOW)' <<<"$scr"; then
            after=$scr
            break
        fi
        sleep 0.1
    done
    TM kill-server 2>/dev/null
    printf '%s\n' "$before" >"$tmp/own-$name-before.txt"
    printf '%s\n' "$after" >"$tmp/own-$name-after.txt"
    if ! grep -qE ' \*[A-Z]' <<<"$before" && [ -n "$after" ] && ! grep -qE '\*(UPDATE|INSERT|BEGIN|END|COMMIT)' <<<"$after"; then
        ok "$name: o shows dbtop's own statements marked * ($(grep -cE ' \*[A-Z]' <<<"$after") rows); none before o, no client statement marked"
    else
        nok "$name: o: before $(grep -cE ' \*[A-Z]' <<<"$before") marked rows; after: ${after:+$(grep -cE ' \*[A-Z]' <<<"$after") marked}${after:-no marked row}"
        sed 's/^/#   /' "$tmp/own-$name-after.txt" "$tmp/own-$name-before.txt" | head -70
    fi
}

# ---- MariaDB, a part run beside PostgreSQL's ----
M=$DBTOP_MARIADB_CLIENT
my_part() {
    $M -e "CREATE TABLE IF NOT EXISTS dg_t (id INT PRIMARY KEY, v INT); INSERT IGNORE INTO dg_t SELECT seq, seq FROM seq_1_to_1000"
    N=8000
    {
        for i in $(seq $N); do echo "SELECT COUNT(*) FROM dg_t WHERE id BETWEEN $((i % 900 + 1)) AND $((i % 900 + 60));"; done
        for i in $(seq 200); do echo "BEGIN; UPDATE dg_t SET v = v + 1 WHERE id = $i; COMMIT;"; done
    } >"$tmp/my.sql"
    start_dbtop "$tmp/my.json" "$DBTOP_MARIADB_URI"
    ( $M -e "SELECT SLEEP(0.1)" >/dev/null ) &
    sp=$!
    $M <"$tmp/my.sql" >/dev/null
    wait "$sp"
    stop_dbtop "$tmp/my.json"
    counts mariadb "$tmp/my.json" "$N" SLEEP 90
    check "mariadb: digest fields and share" jq -se '[.[] | .digests[]?] | length > 0 and all(.[]; (.id | type == "string") and (.schema | type == "string") and (.text | length <= 200) and .calls_per_s >= 0 and .share >= 0 and .share <= 1.0001)' "$tmp/my.json"
    check "mariadb: no negative or spiking digest rate" jq -se '[.[] | .digests[]? | .calls_per_s] | all(. >= 0 and . < 100000)' "$tmp/my.json"

    $M -e "CREATE USER IF NOT EXISTS 'dbtop_nops'@'%' IDENTIFIED BY 'nopspw'; GRANT PROCESS ON *.* TO 'dbtop_nops'@'%'"
    ( for i in $(seq 15); do $M -e "SELECT SLEEP(0.2), 'zz-literal'" >/dev/null; done ) &
    lp=$!
    "$DBTOP" --batch --count 4 --format json "mysql://dbtop_nops:nopspw@127.0.0.1:$DBTOP_MARIADB_PORT/" >"$tmp/nops.json" 2>/dev/null
    wait "$lp"
    check "mariadb without performance_schema access: digests sampled from the process list" jq -se 'any(.[]; any(.digests[]?; (.text | test("SLEEP")) and .total_ms_per_s > 300))' "$tmp/nops.json"
    check "mariadb sampled digests: no literal" jq -se 'all(.[]; all(.digests[]?; (.text | test("zz-literal") | not)))' "$tmp/nops.json"
    $M -e "DROP USER 'dbtop_nops'@'%'"
    own_tui mariadb "$DBTOP_MARIADB_URI"
}

# ---- PostgreSQL 15 and 18 (side by side): pgbench scripts with known counts ----
printf '\\set id random(1, 900)\nSELECT count(*) FROM dg_t WHERE id BETWEEN :id AND :id + 60;\n' >"$tmp/cheap.sql"
printf 'BEGIN;\nUPDATE dg_t SET v = v + 1 WHERE id = 7;\nCOMMIT;\n' >"$tmp/commit.sql"
pg_counts() {
    local name=$1 N_ uri_var psql_var sock_var port_var psql pgb sp sent
    N_=$(tr a-z A-Z <<<"$name")
    uri_var=DBTOP_${N_}_URI psql_var=DBTOP_${N_}_PSQL sock_var=DBTOP_${N_}_SOCKET port_var=DBTOP_${N_}_PORT
    psql=${!psql_var}
    $psql -qc "DROP TABLE IF EXISTS dg_t; CREATE TABLE dg_t (id int PRIMARY KEY, v int); INSERT INTO dg_t SELECT g, g FROM generate_series(1, 1000) g" >/dev/null
    start_dbtop "$tmp/$name.json" "${!uri_var}"
    pgb=(/usr/bin/pgbench -n -h "${!sock_var}" -p "${!port_var}" -U postgres dbtop_test)
    ( $psql -qc "SELECT pg_sleep(0.03)" >/dev/null ) &
    sp=$!
    "${pgb[@]}" -f "$tmp/cheap.sql" -t 4000 -c 2 -j 2 >"$tmp/$name.cheap" 2>&1
    "${pgb[@]}" -f "$tmp/commit.sql" -t 100 -c 2 -j 2 >"$tmp/$name.commit" 2>&1
    wait "$sp"
    stop_dbtop "$tmp/$name.json"
    sent=$(awk '/number of transactions actually processed/ { split($NF, a, "/"); print a[1] }' "$tmp/$name.cheap")
    counts "$name" "$tmp/$name.json" "$sent" pg_sleep 25
    check "$name: digests come from pg_stat_statements" jq -se 'any(.[]; (.digests | length) > 0)' "$tmp/$name.json"
}

# ---- paced digest reads (a tiny --server-budget): the records between two
# reads repeat the last one's rates; adding up by digests_window_s over the
# records that read still gives what ran (the read comes at its 30 s limit:
# a part of its own, on PostgreSQL 18 after its counts) ----
paced_reads() {
    local name=$1 N_ uri_var sock_var port_var sent calls stale
    N_=$(tr a-z A-Z <<<"$name")
    uri_var=DBTOP_${N_}_URI sock_var=DBTOP_${N_}_SOCKET port_var=DBTOP_${N_}_PORT
    start_dbtop "$tmp/paced.json" "${!uri_var}" --server-budget 0.05
    /usr/bin/pgbench -n -h "${!sock_var}" -p "${!port_var}" -U postgres dbtop_test -f "$tmp/cheap.sql" -t 3000 -c 2 -j 2 >"$tmp/paced.pgb" 2>&1
    stop_dbtop "$tmp/paced.json"
    sent=$(awk '/number of transactions actually processed/ { split($NF, a, "/"); print a[1] }' "$tmp/paced.pgb")
    calls=$(total calls_per_s "$tmp/paced.json" '^SELECT count')
    stale=$(jq -s '[.[] | select(.digests_fresh == false)] | length' "$tmp/paced.json")
    if [ "${stale:-0}" -gt 0 ] && within "$calls" "${sent:-6000}" 10; then
        ok "$name paced reads ($stale records repeat a read): calls add up to $calls of ${sent:-?} sent"
    else
        nok "$name paced reads: $stale records repeat a read; calls $calls, sent ${sent:-?}"
    fi
}

my_part >"$tmp/part.my" 2>&1 &
parts=($!)
{ pg_counts pg18; paced_reads pg18; } >"$tmp/part.pg18" 2>&1 &
parts+=($!)
pg_counts pg15

# ---- pg_stat_statements loaded but not created in the connected database:
# read in a database that has it (the sampled fallback: 56_sampled_bound.sh) ----
$DBTOP_PG15_PSQL -qc "DROP DATABASE IF EXISTS dbtop_bare" -qc "CREATE DATABASE dbtop_bare" >/dev/null 2>&1
( for i in $(seq 15); do psql -X -h "$DBTOP_PG15_SOCKET" -p "$DBTOP_PG15_PORT" -U postgres dbtop_bare -qc "SELECT pg_sleep(0.2), 4242" >/dev/null; done ) &
lp=$!
"$DBTOP" --batch --count 4 --format json "${DBTOP_PG15_URI%/*}/dbtop_bare" >"$tmp/bare.json" 2>/dev/null
wait "$lp"
check "pg15, extension in another database: its pg_stat_statements is read there" jq -se 'any(.[]; (.digests_source | test("^pg_stat_statements .* in postgres")) and any(.digests[]?; (.text | test("pg_sleep")) and .calls_per_s > 0 and .avg_ms > 150))' "$tmp/bare.json"
check "pg15, extension in another database: literals normalised" jq -se 'all(.[]; all(.digests[]?; (.text | test("4242") | not)))' "$tmp/bare.json"
check "pg15, extension in another database: a note says where it is read and how to have it here" jq -se 'any(.[0].notes[]; test("loaded but not created in database dbtop_bare: its statistics are read in database postgres.*CREATE EXTENSION pg_stat_statements in dbtop_bare"))' "$tmp/bare.json"
$DBTOP_PG15_PSQL -qc "DROP DATABASE dbtop_bare" >/dev/null 2>&1

# ---- dbtop's own statements: out of the ranking and the total on
# PostgreSQL 15 under pgbench (its entries are those of dbtop's role, which
# no client here uses); o shows them marked * on both engines ----
$DBTOP_PG15_PSQL -qAtc "SELECT pg_stat_statements_reset()" >/dev/null
own_user=${DBTOP_PG15_URI#*//}
own_user=${own_user%%[:@]*}
own_oid=$($DBTOP_PG15_PSQL -qAtc "SELECT oid FROM pg_roles WHERE rolname = '$own_user'")
start_dbtop "$tmp/own.json" "$DBTOP_PG15_URI" --sessions
# the load runs until dbtop has read the digests afresh 6 times: the
# default --server-budget paces the read by its cost, and on a slow host
# it comes every few seconds (at most 10 runs of 4 s)
fresh_reads() { jq -s '[.[] | select(.digests_fresh)] | length' "$1" 2>/dev/null || echo 0; }
for ((i = 0; i < 10; i++)); do
    tests/load.sh pgbench pg15 --rate 150 --time 4 --clients 2 2>>"$tmp/own.pgb"
    [ "$i" -ge 1 ] && [ "$(fresh_reads "$tmp/own.json")" -ge 6 ] && break
done
stop_dbtop "$tmp/own.json"
dbtop_rows=$(jq -s --arg u "$own_oid:" '[.[] | .digests[]? | select(.id | startswith($u))] | length' "$tmp/own.json")
all_rows=$(jq -s '[.[] | .digests[]?] | length' "$tmp/own.json")
own_ms=$(jq -s '[.[] | .digests_own_ms_per_s // 0] | add' "$tmp/own.json")
dbtop_entries=$($DBTOP_PG15_PSQL -qAtc "SELECT count(*) FROM pg_stat_statements WHERE userid = $own_oid")
if [ "$dbtop_rows" = 0 ] && [ "${dbtop_entries:-0}" -ge 8 ] && [ "$all_rows" -gt 0 ]; then
    ok "pg15 under pgbench: none of dbtop's $dbtop_entries statements in the ranking ($all_rows rows, none of role $own_oid)"
else
    nok "pg15 under pgbench: $dbtop_rows of $all_rows ranked rows are dbtop's (role $own_oid, $dbtop_entries entries)"
fi
check "pg15 under pgbench: the clients' statements ranked (pgbench's UPDATE, BEGIN and END: transaction control is never dbtop's)" \
    jq -se 'any(.[]; any(.digests[]?; .text | test("^UPDATE pgbench_accounts"))) and any(.[]; any(.digests[]?; .text == "END"))' "$tmp/own.json"
# the total leaves them out: the shares of every row add up to 1 (--top 100 lists them all)
sums=$(jq -sc '[.[] | select(.digests_fresh and ((.digests // []) | length) > 0 and ((.digests // []) | length) < 100) | ([.digests[].share] | add * 10000 | round / 10000)]' "$tmp/own.json")
if jq -e 'length > 3 and all(.[]; . > 0.99 and . < 1.01)' <<<"$sums" >/dev/null && awk -v m="$own_ms" 'BEGIN { exit !(m > 0) }'; then
    ok "pg15 under pgbench: the total is the clients' (shares add up to 1 in $(jq length <<<"$sums") fresh reads), dbtop's own time beside it ($(printf %.1f "$own_ms") ms/s summed over the records)"
else
    nok "pg15 under pgbench: the shares of the fresh reads add up to $sums (of $(fresh_reads "$tmp/own.json") fresh reads); dbtop's own time $own_ms ms/s summed"
fi

tests/load.sh pgbench pg15 --rate 50 --time 8 --clients 1 2>/dev/null &
lp=$!
own_tui pg15 "$DBTOP_PG15_URI"
wait "$lp"

# the parts run beside
wait "${parts[@]}"
merge_part "$tmp/part.pg18"
merge_part "$tmp/part.my"

done_tests
