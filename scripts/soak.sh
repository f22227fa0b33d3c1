#!/usr/bin/env bash
# Soak: dbtop on the screen (in tmux, all panes live) against MariaDB and
# PostgreSQL 15 at a 0.25 s interval for SOAK_SECONDS (default 1800) under
# a bounded load, with a short lock chain every minute so the locks pane
# has work. Samples each dbtop's RSS and open file descriptors every
# SOAK_EVERY seconds (default 60) and prints start / end / max, then
# "N passed, N failed" (RSS growth over the last two thirds <= 1 MB, no
# fd growth, screen still UP and answering keys at the end).
#   make soak                          30 minutes
#   SOAK_SECONDS=120 DBTOP=build-asan/dbtop scripts/soak.sh   a short run under ASan
# Starts its own sandbox (ports 57xxx, its own directory) and stops it.
set -uo pipefail
cd "$(dirname "$0")/.."
SECS=${SOAK_SECONDS:-1800}
EVERY=${SOAK_EVERY:-60}
DBTOP=${DBTOP:-./dbtop}
export DBTOP_SANDBOX_DIR=${SOAK_SANDBOX_DIR:-$(mktemp -d /tmp/dbtop-soak.XXXXXX)}
export DBTOP_MARIADB_PORT=57306 DBTOP_PG15_PORT=57415 DBTOP_PG18_PORT=57418 DBTOP_PG13_PORT=57413
sock=dbtop-soak-$$
T() { tmux -L "$sock" -f /dev/null "$@"; }
passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
nok() { echo "not ok - $*"; failed=$((failed + 1)); }
pids=()
cleanup() {
    T kill-server 2>/dev/null
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    bash tests/sandbox.sh stop >/dev/null 2>&1
    rm -rf "$DBTOP_SANDBOX_DIR"
}
trap cleanup EXIT INT TERM

bash tests/sandbox.sh start mariadb pg15 >/dev/null || { echo "soak: the sandbox did not start"; exit 1; }
eval "$(bash tests/sandbox.sh env)"
tmp=$DBTOP_SANDBOX_DIR/soak
mkdir -p "$tmp"

# the load: bounded in rate and time (the whole soak plus a margin)
tests/load.sh pgbench pg15 --rate 50 --time $((SECS + 30)) --clients 4 2>"$tmp/pgbench.log" &
pids+=($!)
tests/load.sh sysbench mariadb --rate 50 --time $((SECS + 30)) --threads 4 2>"$tmp/sysbench.log" &
pids+=($!)
# a short lock chain every minute (each session bounded to 8 s)
$DBTOP_MARIADB_CLIENT -e "CREATE TABLE IF NOT EXISTS soak_lk (id INT PRIMARY KEY, v INT) ENGINE=InnoDB; INSERT IGNORE INTO soak_lk VALUES (1, 0)"
$DBTOP_PG15_PSQL -qc "CREATE TABLE IF NOT EXISTS soak_lk (id int PRIMARY KEY, v int)" -qc "INSERT INTO soak_lk VALUES (1, 0) ON CONFLICT DO NOTHING" >/dev/null
(
    end=$((SECONDS + SECS))
    while ((SECONDS < end)); do
        (printf 'BEGIN;\nUPDATE soak_lk SET v = v + 1 WHERE id = 1;\nSELECT SLEEP(6);\nCOMMIT;\n') | timeout 10 $DBTOP_MARIADB_CLIENT >/dev/null 2>&1 &
        (printf 'BEGIN;\nUPDATE soak_lk SET v = v + 1 WHERE id = 1;\nSELECT pg_sleep(6);\nCOMMIT;\n') | timeout 10 $DBTOP_PG15_PSQL -q >/dev/null 2>&1 &
        sleep 1
        (printf 'SET SESSION innodb_lock_wait_timeout = 8;\nUPDATE soak_lk SET v = v + 2 WHERE id = 1;\n') | timeout 10 $DBTOP_MARIADB_CLIENT >/dev/null 2>&1 &
        (printf "SET lock_timeout = '8s';\nUPDATE soak_lk SET v = v + 2 WHERE id = 1;\n") | timeout 10 $DBTOP_PG15_PSQL -q >/dev/null 2>&1 &
        wait
        sleep 50
    done
) &
pids+=($!)

# the two screens, 200x50, every pane on the overview
T new-session -d -s my -x 200 -y 50 "sh -c 'echo \$\$ > $tmp/my.pid; exec $DBTOP -i 0.25 \"$DBTOP_MARIADB_ADMIN_URI\" 2>$tmp/my.err'; echo EXITED \$? >> $tmp/my.err; sleep 600"
T new-session -d -s pg -x 200 -y 50 "sh -c 'echo \$\$ > $tmp/pg.pid; exec $DBTOP -i 0.25 \"$DBTOP_PG15_ADMIN_URI\" 2>$tmp/pg.err'; echo EXITED \$? >> $tmp/pg.err; sleep 600"
sleep 3
mp=$(cat "$tmp/my.pid") pp=$(cat "$tmp/pg.pid")
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
# (empty when unreadable: dbtop is not dumpable, so only root reads its fd list)
fds() { [ -r "/proc/$1/fd" ] && ls "/proc/$1/fd" 2>/dev/null | wc -l; }
printf '# %6s %10s %8s %10s %8s\n' t_s my_rss_kB my_fds pg_rss_kB pg_fds
start=$SECONDS
declare -a T_S MYR MYF PGR PGF
while :; do
    el=$((SECONDS - start))
    T_S+=("$el") MYR+=("$(rss "$mp")") MYF+=("$(fds "$mp")") PGR+=("$(rss "$pp")") PGF+=("$(fds "$pp")")
    i=$((${#T_S[@]} - 1))
    printf '# %6s %10s %8s %10s %8s\n' "$el" "${MYR[$i]}" "${MYF[$i]}" "${PGR[$i]}" "${PGF[$i]}"
    ((el >= SECS)) && break
    sleep "$EVERY"
done
n=${#T_S[@]}
third=$((n / 3))
# ASan keeps freed memory in quarantine: its RSS says nothing about leaks
asan=0
ldd "$DBTOP" 2>/dev/null | grep -q libasan && asan=1
for e in my pg; do
    if [ $e = my ]; then r=("${MYR[@]}") f=("${MYF[@]}") p=$mp; else r=("${PGR[@]}") f=("${PGF[@]}") p=$pp; fi
    max=0
    for v in "${r[@]}"; do ((${v:-0} > max)) && max=${v:-0}; done
    echo "# $e: RSS start ${r[0]} kB, after warm-up ${r[$third]} kB, end ${r[$((n - 1))]} kB, max $max kB; fds start ${f[0]}, end ${f[$((n - 1))]}"
    if [ $asan = 1 ]; then
        echo "# $e: RSS not judged under ASan (its quarantine holds freed memory); leaks are reported at exit"
    elif [ -n "${r[$((n - 1))]}" ] && ((r[n - 1] - r[third] <= 1024)); then
        ok "$e: RSS flat after warm-up (${r[$third]} -> ${r[$((n - 1))]} kB over $((T_S[n - 1] - T_S[third])) s)"
    else
        nok "$e: RSS grew (${r[$third]} -> ${r[$((n - 1))]} kB) or dbtop is gone"
    fi
    if [ -n "${f[$((n - 1))]}" ] && ((f[n - 1] <= f[0])); then ok "$e: no file descriptor growth (${f[0]} -> ${f[$((n - 1))]})"; else nok "$e: fds ${f[0]} -> ${f[$((n - 1))]}"; fi
    if T capture-pane -p -t $e | grep -q " UP "; then ok "$e: still UP on the screen after $SECS s"; else nok "$e: not UP at the end: $(T capture-pane -p -t $e | head -3)"; fi
    T send-keys -t $e 3
    sleep 0.5
    if T capture-pane -p -t $e | grep -q "^\[3\] lock waits"; then ok "$e: answers keys at the end"; else nok "$e: no answer to a key at the end"; fi
    T send-keys -t $e q
done
sleep 2
for e in my pg; do
    if grep -q "EXITED 0" "$tmp/$e.err" && ! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error" "$tmp/$e.err"; then
        ok "$e: quit with status 0, no sanitizer report"
    else
        nok "$e: exit / sanitizer: $(head -c 600 "$tmp/$e.err")"
    fi
done
# a short batch run of each engine under valgrind (when installed)
if command -v valgrind >/dev/null && [ $asan = 0 ]; then
    for e in MARIADB PG15; do
        uri_var=DBTOP_${e}_ADMIN_URI
        valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=3 --log-file="$tmp/vg-$e.log" \
            "$DBTOP" --batch -n 12 -i 0.25 --format json "${!uri_var}" >/dev/null 2>&1
        rc=$?
        summary=$(grep -o "ERROR SUMMARY: [0-9]* errors" "$tmp/vg-$e.log" | tail -1)
        lost=$(grep -o "definitely lost: [0-9,]* bytes" "$tmp/vg-$e.log" | tail -1)
        if [ $rc = 0 ] && [ "$summary" = "ERROR SUMMARY: 0 errors" ]; then
            ok "$e: valgrind batch run clean ($summary, ${lost:-no leak summary})"
        else
            nok "$e: valgrind (exit $rc): $summary ${lost:-}; see the log"
            grep -A12 "^==[0-9]*== [A-Z]" "$tmp/vg-$e.log" | head -40
        fi
    done
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
