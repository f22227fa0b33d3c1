# The MariaDB waits pane whatever performance_schema's instruments and
# consumers: under a bounded sysbench load, the sandbox's server (default
# instruments) and a server of this test started with every instrument on
# and the events_waits_current consumer on (hundreds of wait events listed)
# both list waits, and their top events agree; with the consumers the wait
# summaries need switched off, the JSON and screen 4 say why and how to fix
# it instead of an empty list.
#
# "Agree": ranked by wait time over the loaded records. The default instruments time file, table
# and lock waits only, the all-on server also mutexes and condition
# variables; over the events both time, each run's top event is among the
# other's top 3 (the binlog file and the table handler waits trade the top
# place with the host's CPU load, so the very same top is not promised).
. tests/lib.sh
tmp=$(mktemp -d)
tsock=dbtop-waitsall-$$
PORT=$((${DBTOP_MARIADB_PORT:-23306} + 1))
userarg=
[ "$(id -u)" -eq 0 ] && userarg=--user=root
spid=
cleanup() {
    tmux -L "$tsock" kill-server 2>/dev/null
    if [ -n "$spid" ]; then
        kill "$spid" 2>/dev/null
        for _ in $(seq 1 100); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$spid" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
command -v mariadbd >/dev/null || { echo "ok - 70b_waits_instruments # SKIP no MariaDB"; exit 0; }

# ---- a server with every instrument and the waits_current consumer on ----
d=$tmp/allon
mkdir -p "$d/data" "$d/tmp" "$tmp/sb/mariadb"
mariadb-install-db --no-defaults $userarg --datadir="$d/data" --skip-test-db \
    --auth-root-authentication-method=normal >"$d/install.log" 2>&1 || { nok "install: $(tail -n 3 "$d/install.log")"; done_tests; }
setsid mariadbd --no-defaults $userarg --datadir="$d/data" --tmpdir="$d/tmp" --socket="$d/sock" \
    --port="$PORT" --bind-address=127.0.0.1 --pid-file="$d/pid" --log-error="$d/error.log" \
    --performance-schema=ON --performance-schema-instrument='%=ON' \
    --performance-schema-consumer-events-waits-current=ON \
    --log-bin="$d/data/bin" --server-id=1 --sync-binlog=1 --innodb-flush-log-at-trx-commit=1 \
    --skip-name-resolve --innodb-buffer-pool-size=64M </dev/null >>"$d/error.log" 2>&1 &
spid=$!
for ((i = 0; i < 150; i++)); do
    mariadb-admin --no-defaults -S "$d/sock" -u root --connect-timeout=2 ping >/dev/null 2>&1 && break
    sleep 0.2
done
sql() { timeout 30 mariadb --no-defaults -S "$d/sock" -u root "$@"; }
sql <<'SQL' || { nok "all-on server setup: $(tail -n 3 "$d/error.log")"; done_tests; }
CREATE DATABASE dbtop_test;
CREATE USER 'dbtop_admin'@'localhost' IDENTIFIED BY 'adminpw';
GRANT ALL PRIVILEGES ON *.* TO 'dbtop_admin'@'localhost';
CREATE USER 'dbtop_mon'@'127.0.0.1' IDENTIFIED BY 'monpw';
GRANT PROCESS ON *.* TO 'dbtop_mon'@'127.0.0.1';
GRANT SELECT ON performance_schema.* TO 'dbtop_mon'@'127.0.0.1';
SQL
# tests/load.sh finds a server by its sandbox dir: this one's, for the load
ln -s "$d/sock" "$tmp/sb/mariadb/mysqld.sock"
touch "$tmp/sb/mariadb/ready"
ALLON_URI="mysql://dbtop_mon:monpw@127.0.0.1:$PORT"
n_ev=$(sql -N -e "SELECT COUNT(*) FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/%' AND ENABLED = 'YES' AND TIMED = 'YES'")
check "all-on server: every wait instrument on ($n_ev), events_waits_current on" \
    test "$(sql -N -e "SELECT ENABLED FROM performance_schema.setup_consumers WHERE NAME = 'events_waits_current'")" = YES -a "${n_ev:-0}" -gt 200

# run TAG URI SANDBOX_DIR: 12 JSON records (1 s) while a bounded sysbench
# load of 10 s runs, to $tmp/TAG.json (the wait summary is read every
# 4.5 s after its second, which follows the first: four readings, three
# intervals with rates under the load)
run() {
    local tag=$1 uri=$2 sb=$3 dp
    "$DBTOP" --batch --count 12 --interval 1 --format json "$uri" >"$tmp/$tag.json" 2>"$tmp/$tag.err" &
    dp=$!
    sleep 0.5
    DBTOP_SANDBOX_DIR=$sb tests/load.sh sysbench mariadb --rate 200 --time 10 --threads 4 2>"$tmp/$tag.load" ||
        nok "$tag: sysbench load failed: $(tail -n 2 "$tmp/$tag.load")"
    wait "$dp"
}
LOADED='[.[] | select((.rates.commits_per_s // 0) > 50)]'
# rank FILE [ONLY]: the events by wait time over the loaded records, most
# first, as "event class" lines (ONLY: a file whose events alone count)
rank() {
    jq -sr --slurpfile only "${2:-$1}" "$LOADED"' as $l | ([$only[] | .waits[]?.event] | unique) as $both
        | [$l[] | .waits[]? | select(.event as $e | $both | index($e))] | group_by(.event)
        | map({event: .[0].event, class: .[0].class, t: (map(.aas) | add)}) | sort_by(-.t) | .[] | "\(.event) \(.class)"' "$1"
}
run defaults "$DBTOP_MARIADB_URI" "$DBTOP_SANDBOX_DIR"
run allon "$ALLON_URI" "$tmp/sb"
for tag in defaults allon; do
    f=$tmp/$tag.json
    check "$tag: records under load" jq -se "$LOADED | length >= 4" "$f"
    nl=$(jq -s "$LOADED | map(select((.waits // []) | length > 0)) | length" "$f")
    if ge "$nl" 2; then ok "$tag: the waits are listed ($nl loaded records)"; else nok "$tag: waits empty under load: $(jq -sc '[.[] | [.rates.commits_per_s, .waits_note, (.waits // [] | length)]]' "$f" | head -c 600)"; fi
    check "$tag: no quiet empty pane (no waits_stopped)" jq -se 'all(.[]; .waits_stopped != true)' "$f"
done
# the background threads' waits (the timer, the service loops) are not the sessions'
check "allon: no background thread's wait listed (COND_timer, service threads)" \
    jq -se '[.[] | .waits[]? | select(.event | test("COND_timer|SERVICE_THREAD|COND_manager"))] | length == 0' "$tmp/allon.json"
# over the events both set-ups time (the defaults time no mutex or
# condition variable): each one's top event is among the other's top 3
rank "$tmp/defaults.json" >"$tmp/rank.d"
rank "$tmp/allon.json" "$tmp/defaults.json" >"$tmp/rank.a"
top_d=$(head -n 1 "$tmp/rank.d" | cut -d' ' -f1) top_a=$(head -n 1 "$tmp/rank.a" | cut -d' ' -f1)
echo "# top 3, defaults: $(head -n 3 "$tmp/rank.d" | tr '\n' ';') all on (events both time): $(head -n 3 "$tmp/rank.a" | tr '\n' ';')"
echo "# all on, every event: $(rank "$tmp/allon.json" | head -n 5 | tr '\n' ';')"
if [ -n "$top_d" ] && [ -n "$top_a" ] && head -n 3 "$tmp/rank.a" | grep -q "^$top_d " &&
    head -n 3 "$tmp/rank.d" | grep -q "^$top_a "; then
    ok "defaults and all-on agree: top events $top_d / $top_a, each in the other's top 3"
else
    nok "top events disagree: defaults $top_d, all on $top_a"
fi
# ---- the screen in the all-on set-up: 100x30, screen 4 ----
T() { tmux -L "$tsock" -f /dev/null "$@"; }
export TZ=UTC LANG=C.UTF-8
T new-session -d -s s -x 100 -y 30 "$DBTOP '$ALLON_URI'; sleep 60"
wait_re " UP " 10 || nok "all-on: screen did not come up: $(screen)"
T send-keys -t s 4
DBTOP_SANDBOX_DIR=$tmp/sb tests/load.sh sysbench mariadb --rate 200 --time 8 --threads 4 2>"$tmp/screen.load" &
lp=$!
# the wait summary's waits show from its second reading, at the refresh after its
# first when that was cheap (the last of the start's first reads), else 4.5 s
# after it: ~7-10.5 s after UP, as in 70_waits; a 10 s wait passed while
# capture-pane's time stretched its polls
if wait_re "binlog +[0-9]" 15; then ok "all-on: screen 4 lists a binlog-class wait"; else nok "all-on: no binlog wait on screen 4: $(screen)"; fi
wait "$lp" || nok "all-on screen: sysbench load failed"
T capture-pane -p -t s >"$tmp/allon.screen"

# ---- the consumers the summaries need switched off ----
sql -e "UPDATE performance_schema.setup_consumers SET ENABLED = 'NO' WHERE NAME IN ('global_instrumentation', 'thread_instrumentation')"
run off "$ALLON_URI" "$tmp/sb"
check "consumers off: JSON says the waits are not counted, and how to fix it" \
    jq -se '[.[] | select(.waits != null)] | length > 0 and all(.[]; .waits_stopped == true and (.waits_note | test("global_instrumentation.*setup_consumers SET ENABLED=.YES.")))' "$tmp/off.json"
if wait_re "no wait is being counted: consumers global_instrumentation and thread_" 8; then
    ok "consumers off: screen 4 says why, in place of an empty list"
    # the statement that restarts the counting, whole at 100 columns (wrapped)
    check "consumers off: the whole UPDATE ... WHERE NAME LIKE '%_instrumentation' on screen at 100 columns" \
        bash -c 'grep -qF "SET ENABLED='"'"'YES'"'"' WHERE NAME LIKE '"'"'%_instrumentation'"'"'" <<<"$1"' _ "$(T capture-pane -p -t s | tr -s ' \n' '  ')"
else
    nok "consumers off: screen 4: $(screen)"
fi
sql -e "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME IN ('global_instrumentation', 'thread_instrumentation')"
if [ "$fails" -gt 0 ]; then
    sed 's/^/# /' "$tmp/allon.screen"
fi
done_tests
