#!/usr/bin/env bash
# bench/scale.sh - dbtop on a big server: BENCH_DIGESTS distinct statement
# digests (10,000), BENCH_SESSIONS connected sessions of a pooled load
# (2,000) and BENCH_WAITERS sessions waiting on one row lock (500), all at
# once, on PostgreSQL 15 and MariaDB. Per engine it prints: dbtop CPU per
# refresh and the server time of its queries per refresh (--batch, 1 s),
# frame render time at 200x50 with every pane on the overview, the time from
# start to the first frame with rates, peak RSS, and (with perf installed)
# the top functions of a perf profile of the batch run; and the floors: the
# server's own time of one read of each view every such read needs at this
# scale (MariaDB's transaction cache timed as the waiters queue, in steps).
#   bench/scale.sh                        the full scale
#   BENCH_DIGESTS=1000 BENCH_SESSIONS=200 BENCH_WAITERS=50 bench/scale.sh   a quick look
#   BENCH_KEEP=DIR keeps the JSON records and frame statistics and the screen run's server log in DIR
# Starts its own sandbox (ports 47xxx) and stops everything it started, by PID.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${BENCH_DIGESTS:-10000}
S=${BENCH_SESSIONS:-2000}
W=${BENCH_WAITERS:-500}
R=${BENCH_REFRESHES:-20}
HOLD=${BENCH_HOLD:-240}   # upper bound (s) of every session and load started here
ENGINES=${BENCH_ENGINES:-"pg15 mariadb"}
export DBTOP_SANDBOX_DIR=${DBTOP_SANDBOX_DIR:-$(mktemp -d /tmp/dbtop-bench-scale.XXXXXX)}
export DBTOP_MARIADB_PORT=${DBTOP_MARIADB_PORT:-47306} DBTOP_PG15_PORT=${DBTOP_PG15_PORT:-47415}
export DBTOP_PG18_PORT=47418 DBTOP_PG13_PORT=47413
chmod 755 "$DBTOP_SANDBOX_DIR"
tmp=$(mktemp -d /tmp/dbtop-bench-scale-tmp.XXXXXX)
ulimit -n 16384 2>/dev/null || true
PIDS=()
ROOT_FD=
say() { echo "scale.sh: $*" >&2; }
tm() { tmux -S "$tmp/tmux.sock" -f /dev/null "$@"; }
cleanup() {
    local rc=$? p
    trap - EXIT INT TERM
    set +e
    [ -n "$ROOT_FD" ] && eval "exec $ROOT_FD>&-"
    [ -S "$tmp/tmux.sock" ] && tm kill-server 2>/dev/null
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
    tests/sandbox.sh stop >/dev/null 2>&1
    if [ -n "${BENCH_KEEP:-}" ]; then mkdir -p "$BENCH_KEEP" && cp "$tmp"/*.json "$tmp"/*.frames "$tmp"/*-tui.log "$BENCH_KEEP"/ 2>/dev/null; fi
    rm -rf "$tmp"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

make -s dbtop >/dev/null
tests/sandbox.sh start $ENGINES >"$tmp/sandbox.log" 2>&1 || { cat "$tmp/sandbox.log" >&2; exit 1; }
eval "$(tests/sandbox.sh env)"

# ---- helpers ----
# batch NAME URI: R refreshes of --batch JSON; CPU s in $tmp/NAME.cpu, peak RSS kB in $tmp/NAME.rss
batch() {
    /usr/bin/time -f "%U %S %M" -o "$tmp/$1.time" timeout -k 5 $((R * 4 + 60)) ./dbtop --batch --format json \
        -n "$R" -i 1 "$2" >"$tmp/$1.json" 2>"$tmp/$1.err" || say "$1: dbtop exited $?: $(head -c 300 "$tmp/$1.err")"
    awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/$1.time" >"$tmp/$1.cpu"
    awk '{ print $3 }' "$tmp/$1.time" >"$tmp/$1.rss"
}
# screen NAME URI: the overview at 200x50 for 8 s; "frames avg max first_full" in $tmp/NAME.frames
screen() {
    rm -f "$tmp/$1.frames"
    rm -f "$tmp/$1.dbrec"
    tm new-session -d -s "$1" -x 200 -y 50 env LC_ALL=C.UTF-8 DBTOP_FRAME_STATS="$tmp/$1.frames" ./dbtop -i 1 \
        --record "$tmp/$1.dbrec" "$2"
    sleep "${BENCH_SCREEN_SECONDS:-12}"
    tm capture-pane -p -t "$1" >"$tmp/$1.screen" 2>/dev/null || true
    tm send-keys -t "$1" q
    sleep 2
    tm kill-session -t "$1" 2>/dev/null || true
}
# start_ms NAME: the screen run's refreshes in its first 10 s (from its recording, replayed
# as JSON): the time its queries took, per refresh (the client's clock: an upper bound of the
# server's time), and the largest
start_ms() {
    timeout 60 ./dbtop --replay "$tmp/$1.dbrec" --speed 0 --batch --format json 2>/dev/null |
        jq -rs 'def r: . * 10 | round / 10 | tostring;
            (.[0].ts) as $t0 | [.[] | select(.ts - $t0 <= 10) | .cost.query_ms] |
            (map(r) | join(" ")) + " (max " + (max | r) + ")"' 2>/dev/null || echo "n/a"
}
# pg_start_log FILE: the statements of the server log's duration lines in
# the first 10 s after the first: "+s ms what", what the statement's first
# words (counters, lock graph, digests, sessions, ...)
pg_start_log() {
    grep -a 'duration: ' "$1" | sed -E 's/^[0-9-]+ ([0-9:.]+) [A-Z]+ \[[0-9]+\] LOG: +duration: ([0-9.]+) ms +[a-z]+[^:]*: (.{0,48}).*/\1|\2|\3/' |
        awk -F'|' '{ split($1, t, ":"); s = t[1] * 3600 + t[2] * 60 + t[3]; if (NR == 1) s0 = s
            if (s - s0 <= 10) { gsub(/ +/, " ", $3); printf "%s+%.2fs %.1f ms %s", (NR > 1 ? "; " : ""), s - s0, $2, $3 } }'
}
# floor_pg SQL...: the server's own time (EXPLAIN ANALYZE's execution time,
# no per-node timing) of each statement, median of 7, each 0.2 s apart:
# what a read of that view costs at this scale, whatever else the read does
floor_pg() {
    local q i
    for q in "$@"; do
        for ((i = 0; i < 7; i++)); do
            $DBTOP_PG15_PSQL -X -Atc "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) $q" | awk '/Execution Time/ { print $3 }'
            sleep 0.2
        done | sort -n | awk -v q="$q" 'NR == 4 { printf "%s %.1f ms", q, $1 }'
        echo
    done | paste -sd';' | sed 's/;/; /g'
}
# floor_my SQL...: as floor_pg on MariaDB (the client's timer over the
# socket, 1 ms steps); 0.2 s apart, so that InnoDB's transaction cache,
# reused for 0.1 s after a read, is filled again for each
floor_my() {
    local q i
    for q in "$@"; do
        for ((i = 0; i < 7; i++)); do printf '%s;\nDO SLEEP(0.2);\n' "$q"; done | $DBTOP_MARIADB_CLIENT -vvv 2>&1 |
            grep -o 'in set ([0-9.]* sec)' | tr -dc '0-9.\n' | sort -n | awk -v q="$q" 'NR == 4 { printf "%s %.0f ms\n", q, $1 * 1000 }'
    done | paste -sd';' | sed 's/;/; /g'
}
frames() {
    awk '{ for (i = 1; i < NF; i++) v[$i] = $(i + 1) }
        END { printf "%s frames, avg %.2f ms, max %.2f ms | %.0f ms", v["frames"], v["avg_ms"], v["max_ms"], v["first_full_ms"] }' \
        "$tmp/$1.frames" 2>/dev/null || echo "n/a | n/a"
}
# profile NAME URI: the top functions of a perf profile of a batch run
profile() {
    command -v perf >/dev/null || { echo "perf not installed"; return 0; }
    perf record -q -F 1999 -o "$tmp/$1.perf" -- ./dbtop --batch --format json -n "$R" -i 1 "$2" >/dev/null 2>&1 || true
    perf report -q -i "$tmp/$1.perf" -g none --sort dso,symbol --percent-limit 2 --stdio 2>/dev/null |
        grep -E '^ +[0-9]' | head -12 | sed 's/^ */  /; s/ *$//'
}
# wait_for CMD N SECONDS: poll until CMD prints a number >= N; prints it
wait_for() {
    local i v=
    for ((i = 0; i < $3 * 4; i++)); do
        v=$($1 2>/dev/null || true)
        case $v in '' | *[!0-9]*) ;; *) ((v >= $2)) && break ;; esac
        sleep 0.25
    done
    echo "${v:-?}"
}
root_start() {
    rm -f "$tmp/root.in" "$tmp/root.out"
    mkfifo "$tmp/root.in"
    timeout -k 5 "$HOLD" "$@" <"$tmp/root.in" >"$tmp/root.out" 2>&1 &
    PIDS+=($!)
    exec {ROOT_FD}>"$tmp/root.in"
}
root_send() { printf '%s\n' "$@" >&"$ROOT_FD"; }
root_end() {
    root_send "$@"
    eval "exec $ROOT_FD>&-"
    ROOT_FD=
}
# server time per refresh: the start (the first 2 records: whole first reads)
# apart, then the steady state after them (average, median, max)
stat_ms() {
    jq -rs 'def r: . * 10 | round / 10 | tostring;
        ([.[:2][] | .cost.query_ms] | map(r) | join(" + ")) as $start |
        [.[2:][] | .cost.query_ms] | sort | (add / length | r) + " avg, " + (.[length / 2 | floor] | r) + " median, " + (max | r) + " max (start: " + $start + ")"' "$tmp/$1.json"
}
per_refresh() { awk -v c="$(cat "$tmp/$1.cpu")" -v n="$R" 'BEGIN { printf "%.2f", c * 1000 / (n + 1) }'; }
ROWS=() PROFILES=() STARTS=()
row() {
    ROWS+=("| $1 | $2 | $(per_refresh "$3") | $(stat_ms "$3") | $(frames "$4") | $(awk '{ printf "%.1f", $1 / 1024 }' "$tmp/$3.rss") | $5 |")
    STARTS+=("$1, the screen's refreshes in its first 10 s, query ms each: $(start_ms "$4")")
}
digest_sql() {
    local tables=$(((N + 99) / 100)) t c i cols
    for ((t = 0; t < tables; t++)); do
        cols=$(for ((c = 0; c < 100; c++)); do printf 'c%d int,' "$c"; done)
        echo "CREATE TABLE IF NOT EXISTS bt$t (${cols%,});"
    done
    echo "$1"
    for ((i = 0; i < N; i++)); do echo "SELECT c$((i % 100)) FROM bt$((i / 100));"; done
}

pg_case() {
    local P=$DBTOP_PG15_PSQL uri=$DBTOP_PG15_URI conns waiting
    $P -qc "ALTER SYSTEM SET max_connections = $((S + W + 100))" >/dev/null
    $P -qc "ALTER SYSTEM SET pg_stat_statements.max = $((N + 2000))" >/dev/null
    tests/sandbox.sh restart pg15 >>"$tmp/sandbox.log" 2>&1
    eval "$(tests/sandbox.sh env)"
    digest_sql "SELECT pg_stat_statements_reset();" | $P -q >/dev/null
    $P -qc "SET client_min_messages = warning; DROP TABLE IF EXISTS t; CREATE TABLE t (id int PRIMARY KEY, v bigint NOT NULL DEFAULT 0); INSERT INTO t VALUES (1, 0)" >/dev/null
    /usr/bin/pgbench -h "$DBTOP_PG15_SOCKET" -p "$DBTOP_PG15_PORT" -U postgres -i -q -s 1 dbtop_test >/dev/null 2>&1
    say "pg15: $S pooled sessions"
    timeout -k 5 "$HOLD" /usr/bin/pgbench -h "$DBTOP_PG15_SOCKET" -p "$DBTOP_PG15_PORT" -U postgres -n -S \
        -c "$S" -j 8 -R 200 -T "$HOLD" dbtop_test >"$tmp/pgbench-pool.log" 2>&1 &
    PIDS+=($!)
    say "pg15: $W sessions waiting on one row"
    root_start $P -X -q -At
    root_send "BEGIN;" "UPDATE t SET v = v + 1 WHERE id = 1;"
    echo 'UPDATE t SET v = v + 1 WHERE id = 1;' >"$tmp/waiter.sql"
    PGOPTIONS="-c lock_timeout=${HOLD}s" timeout -k 5 "$HOLD" /usr/bin/pgbench -h "$DBTOP_PG15_SOCKET" \
        -p "$DBTOP_PG15_PORT" -U postgres -n -c "$W" -j 2 -T "$HOLD" -f "$tmp/waiter.sql" dbtop_test \
        >"$tmp/pgbench-wait.log" 2>&1 &
    PIDS+=($!)
    pgw() { $P -Atc "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"; }
    waiting=$(wait_for pgw "$W" 90)
    conns=$($P -Atc "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'")
    say "pg15: $conns client sessions, $waiting waiting; measuring"
    # the lock gate (sessions waiting on a lock, read every refresh): its
    # two forms (pg_locks' requests not granted, which dbtop uses first for
    # a role in pg_monitor, and the per-backend function) against the
    # pg_stat_activity view, 7 times each in turn in one session (psql's
    # clock), the medians
    local gl="SELECT count(*) FROM pg_locks WHERE NOT granted;"
    local gv="SELECT count(*) FILTER (WHERE wait_event_type = 'Lock') FROM pg_stat_activity;"
    local gf="SELECT count(*) FROM pg_stat_get_backend_idset() b WHERE pg_stat_get_backend_wait_event_type(b) = 'Lock';"
    STARTS+=("PostgreSQL 15, the lock gate at this scale, median of 7 (psql's clock): $(for i in 1 2 3 4 5 6 7; do printf '%s\n' '\timing on'; echo "$gl"; echo "$gf"; echo "$gv"; done |
        $P -At 2>&1 | awk '/^Time:/ { k = n++ % 3; if (k == 0) l[++nl] = $2; else if (k == 1) f[++nf] = $2; else v[++nv] = $2 }
            function med(a, n,  i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
            END { printf "pg_locks %.2f ms, the function %.2f ms, the view %.2f ms", med(l, nl), med(f, nf), med(v, nv) }')")
    STARTS+=("PostgreSQL 15, the floor: the server's own time of one read of each view at this scale, median of 7: $(floor_pg \
        "SELECT count(*) FROM pg_stat_activity" "SELECT count(*) FROM pg_locks" \
        "SELECT count(*) FROM pg_stat_statements(false)" "SELECT count(*) FROM pg_stat_statements(true)")")
    batch pg "$uri"
    # the server's own time of each of dbtop's statements while the screen
    # starts (log_min_duration_statement for dbtop's role alone)
    local log=$DBTOP_SANDBOX_DIR/pg15/server.log from
    from=$(($(wc -l <"$log") + 1))
    $P -qc "ALTER ROLE dbtop_mon SET log_min_duration_statement = 0" >/dev/null
    screen pg-tui "$uri"
    $P -qc "ALTER ROLE dbtop_mon RESET log_min_duration_statement" >/dev/null
    tail -n +"$from" "$log" >"$tmp/pg-tui.log"
    STARTS+=("PostgreSQL 15, the screen's statements in its first 10 s, the server's own ms each (the log's duration): $(pg_start_log "$tmp/pg-tui.log")")
    row "PostgreSQL 15" "$($P -Atc 'SELECT count(*) FROM pg_stat_statements') digests, $conns sessions, $waiting waiting" pg pg-tui \
        "$(jq -rs '.[-1] | "\(.locks_status), \(.locks | length) edges; \(.digests | length) digests shown"' "$tmp/pg.json")"
    PROFILES+=("PostgreSQL 15 (perf, $R refreshes at this scale):" "$(profile pg-perf "$uri")")
    root_end "COMMIT;"
}

my_case() {
    local M=$DBTOP_MARIADB_CLIENT uri=$DBTOP_MARIADB_URI conns waiting k
    $M -e "SET GLOBAL max_connections = $((S + W + 100))"
    digest_sql "TRUNCATE performance_schema.events_statements_summary_by_digest;" | $M >/dev/null
    $M -e "DROP TABLE IF EXISTS t; CREATE TABLE t (id INT PRIMARY KEY, v BIGINT NOT NULL DEFAULT 0) ENGINE=InnoDB; INSERT INTO t VALUES (1, 0)"
    local sb=(sysbench oltp_point_select --db-driver=mysql --mysql-socket="$DBTOP_MARIADB_SOCKET"
        --mysql-user=dbtop_admin --mysql-password=adminpw --mysql-db=dbtop_test --tables=1 --table-size=10000)
    "${sb[@]}" prepare >/dev/null 2>&1 || true
    say "mariadb: $S pooled sessions"
    timeout -k 5 "$HOLD" "${sb[@]}" --threads="$S" --rate=200 --time="$HOLD" --events=$((200 * HOLD + 100)) run \
        >"$tmp/sysbench.log" 2>&1 &
    PIDS+=($!)
    say "mariadb: $W sessions waiting on one row"
    root_start $M -n -N
    root_send "BEGIN;" "UPDATE t SET v = v + 1 WHERE id = 1;" "SELECT 'held';"
    # the row held before anyone queues for it (else the first waiters
    # update it and leave)
    for ((k = 0; k < 120; k++)); do grep -qs held "$tmp/root.out" && break; sleep 0.25; done
    myw() { $M -N -e "SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_current_waits'" | cut -f2; }
    # the waiters in four steps, InnoDB's transaction cache timed at each
    # (its fill, which every read of INNODB_TRX or INNODB_LOCKS makes,
    # grows faster than the waiters on one row)
    local n=0 sweep=()
    for ((k = 1; k <= 4; k++)); do
        local add=$((W * k / 4 - n))
        ((add > 0)) || continue
        timeout -k 5 "$HOLD" mariadb-slap --no-defaults -S "$DBTOP_MARIADB_SOCKET" -u dbtop_admin -padminpw \
            --create-schema=dbtop_test --no-drop --concurrency="$add" --iterations=1 \
            --init-command="SET SESSION innodb_lock_wait_timeout = $HOLD" \
            --query="UPDATE t SET v = v + 1 WHERE id = 1" >>"$tmp/slap.log" 2>&1 &
        PIDS+=($!)
        n=$((n + add))
        waiting=$(wait_for myw "$n" 60)
        sweep+=("$waiting waiting: $(floor_my "SELECT COUNT(*) FROM information_schema.INNODB_TRX" | sed 's/^.* \([0-9]* ms\)$/\1/')")
    done
    STARTS+=("MariaDB, InnoDB's transaction cache (one read of INNODB_TRX, median of 7) as sessions queue on one row: $(printf '%s\n' "${sweep[@]}" | paste -sd';' | sed 's/;/; /g')")
    conns=$($M -N -e "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'THREADS_CONNECTED'")
    say "mariadb: $conns sessions, $waiting waiting; measuring"
    STARTS+=("MariaDB, the floor: one read of each table at this scale, median of 7 (the client's clock): $(floor_my \
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST" "SELECT COUNT(*) FROM information_schema.INNODB_TRX" \
        "SHOW ENGINE INNODB STATUS")")
    batch my "$uri"
    screen my-tui "$uri"
    row "MariaDB" "$($M -N -e 'SELECT COUNT(*) FROM performance_schema.events_statements_summary_by_digest') digests, $conns sessions, $waiting waiting" my my-tui \
        "$(jq -rs '.[-1] | "\(.locks_status), \(.locks | length) edges; \(.digests | length) digests shown"' "$tmp/my.json")"
    PROFILES+=("MariaDB (perf, $R refreshes at this scale):" "$(profile my-perf "$uri")")
    root_end "COMMIT;"
}

for e in $ENGINES; do
    case $e in pg15) pg_case ;; mariadb) my_case ;; *) say "unknown engine $e" ;; esac
done

echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo) RAM; scale: $N digests, $S pooled sessions, $W lock waiters"
echo
echo "| engine | server | dbtop CPU ms/refresh | server query ms/refresh | frames at 200x50 (overview) | first full frame | peak RSS MB (batch) | last record |"
echo "| --- | --- | ---: | --- | --- | ---: | ---: | --- |"
printf '%s\n' "${ROWS[@]}"
echo
printf '%s\n\n' "${STARTS[@]}"
printf '%s\n' "${PROFILES[@]}"
