# The commit-fsync finding fires on evidence, not on the durable set-up:
# MariaDB under ~300 commits/s is quiet on the sandbox's fast disk and fires
# when the server's fsyncs take 5 ms (tests/tools/slowsync.c preloaded into
# mariadbd: seed 002's slow sync) with COMMIT leading the digests; a on the
# row screen 5 opens with (the finding's) sets what the finding said, and
# the COMMIT latency falls; then the binlog sync is what is left, the
# finding moves to sync_binlog, and after that a the finding clears; with
# only the redo log synced at commit (seed 002), one a halves COMMIT.
# PostgreSQL 15 with synchronous_commit=on likewise (pgbench). The WAL
# writer incident (seed 004): the finding, screen 5's selected row and a
# name the same setting and value; no row proposes the value in force.
. tests/lib.sh
tui_init ev
M=$DBTOP_MARIADB_CLIENT
P=$DBTOP_PG15_PSQL
shim=build/tests/slowsync.so
slowed=
lp=
cleanup() {
    tui_stop
    # the servers run without the shim again
    for n in $slowed; do tests/sandbox.sh restart "$n" >/dev/null 2>&1; done
    $M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1" 2>/dev/null
    $P -qc "ALTER SYSTEM RESET synchronous_commit" -qc "ALTER SYSTEM RESET wal_writer_delay" >/dev/null 2>&1
    $P -qc "ALTER ROLE postgres RESET synchronous_commit" -qc "SELECT pg_reload_conf()" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

# start URI: dbtop on the screen (120x40)
start() { dbtop_start 120 40 --interval 1 --connect-timeout 2 "$1"; }
# flat: the screen on one line, blanks squeezed (wrapped text greps whole)
flat() { T capture-pane -p -t s | unframe | tr -s ' \n' ' '; }
# slow NAME: restart a sandbox server with its fsyncs 5 ms slower
slow() {
    slowed="$slowed $1"
    DBTOP_SERVER_PRELOAD=$shim DBTOP_SLOWSYNC_MS=5 tests/sandbox.sh restart "$1" >/dev/null 2>&1
}
# fast NAME: restart it without the shim
fast() {
    tests/sandbox.sh restart "$1" >/dev/null 2>&1
    slowed=${slowed/ $1/}
}
myv() { $M -N -e "SELECT @@GLOBAL.$1"; }
pgv() { $P -Atc "SHOW $1"; }
# value_is CMD WANT SECONDS: poll until CMD prints WANT
value_is() {
    local i
    for ((i = 0; i < $3 * 10; i++)); do
        [ "$($1)" = "$2" ] && return 0
        sleep 0.1
    done
    return 1
}
# fires FILE: records (after the first two) with commit-fsync / all of them
fires() { jq -s '.[2:] | "\([.[] | select([.findings[]?.id] | index("commit-fsync"))] | length)/\(length)"' -r "$1"; }
# a record where the host's CPUs are saturated and the product says so,
# naming the sync layer as possibly part of it (77_seed000's BAND)
BAND='.host_load.busy == true and ([.findings[]? | select(.id == "commit-host-cpu" and (.evidence | test("slow sync layer may be part of it")))] | length > 0)'
# commit_ms FILE FROM TO: mean COMMIT digest latency in records with FROM < ts < TO
# that read the digests (a paced read holds the previous one: on a busy host
# the window after a change may otherwise hold only the figures before it)
# (a read whose digests are not fresh or hold no COMMIT row: fast commits
# after the remedies, the digests read less often on a busy machine: the
# rates pane's commit latency, pooled over the last reads)
commit_ms() {
    jq -s --argjson a "$2" --argjson b "$3" '[.[] | select(.ts > $a and .ts < $b) | . as $r |
        [if .digests_fresh != false then (.digests[]? | select(.text | test("^COMMIT")) | .avg_ms | select(. != null)) else empty end] |
        if length > 0 then .[] else $r.rates.commit_avg_ms end | select(. != null)] | if length == 0 then null else add / length end' "$1"
}
# ask SETTING FROM TO: 5 (opened afresh), a at once: the confirmation
# changes SETTING from FROM to TO (the row 5 opened on); y
ask() {
    T send-keys -t s 0
    sleep 0.3
    T send-keys -t s 5
    wait_re "^setting +now" 5 || return 1
    T send-keys -t s a
    wait_re "Change this setting\?" 4 || return 1
    flat | grep -qE "SET $1 from $2 to $3([ ,.]|\$)" || return 1
    T send-keys -t s y
}
# plus T S: T + S seconds
plus() { awk -v t="$1" -v s="$2" 'BEGIN { printf "%.3f", t + s }'; }

[ -f "$shim" ] || make -s CI=1 "$shim" >/dev/null 2>&1
check "the slow-sync shim is built ($shim)" test -f "$shim"

# ---- MariaDB, fast disk: the durable set-up under load is quiet ----
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1"
tests/load.sh sysbench mariadb --rate 300 --time 12 --threads 8 2>/dev/null &
lp=$!
sleep 1
"$DBTOP" --batch --count 10 --interval 1 --format json "$DBTOP_MARIADB_URI" >"$tmp/myfast.json" 2>/dev/null
wait "$lp"
lp=
f=$(fires "$tmp/myfast.json")
c=$(mean "$tmp/myfast.json" '.rates.commits_per_s')
cm=$(commit_ms "$tmp/myfast.json" 0 1e12)
ss=$(slowsync "$tmp/myfast.json")
echo "# mariadb fast disk: $c commits/s, COMMIT avg $cm ms, $(mean "$tmp/myfast.json" '.rates.fsyncs_per_commit') fsyncs/commit, commit-fsync in $f records, at or above the bar (a sync >= 2 ms or COMMIT >= 5 ms) in $ss"
check "mariadb fast disk: the load committed >= 150/s ($c)" ge "$c" 150
# the sandbox's disk is fast unless other work on the host makes its syncs slow (then the
# finding is true): quiet in every record below the bar, and in the two before
check "mariadb fast disk, flush=1 sync_binlog=1: commit-fsync only on slow syncs or COMMITs ($f records with it, $ss at or above the bar, $(unfounded "$tmp/myfast.json") with it below)" \
    test "$(unfounded "$tmp/myfast.json")" = 0

# ---- MariaDB, fsyncs 5 ms slower ----
slow mariadb
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=1"
tests/load.sh sysbench mariadb --rate 300 --time 50 --threads 8 2>/dev/null &
lp=$!
"$DBTOP" --batch --interval 1 --count 48 --format json "$DBTOP_MARIADB_URI" >"$tmp/myslow.json" 2>/dev/null &
mon=$!
if start "$DBTOP_MARIADB_ADMIN_URI"; then ok "mariadb slow disk: screen up"; else nok "mariadb: screen did not come up: $(screen)"; fi
if wait_re "commits wait on fsync: COMMIT" 15; then ok "mariadb slow disk: the fsync finding is on screen"; else nok "mariadb slow disk: no finding: $(screen)"; fi
check "mariadb slow disk: the finding's remedy on screen is SET GLOBAL innodb_flush_log_at_trx_commit = 2" \
    bash -c "tmux -L $sock capture-pane -p -t s | grep -q 'SET GLOBAL innodb_flush_log_at_trx_commit = 2'"
sleep 7
t1=$(date +%s.%N)
if ask innodb_flush_log_at_trx_commit 1 2; then ok "mariadb: screen 5 opens on the finding's row: a sets innodb_flush_log_at_trx_commit from 1 to 2"; else nok "mariadb: a on the opened row: $(screen)"; fi
if value_is "myv innodb_flush_log_at_trx_commit" 2 5; then ok "mariadb: y set innodb_flush_log_at_trx_commit=2"; else nok "mariadb: flush is $(myv innodb_flush_log_at_trx_commit)"; fi
t2=$(date +%s.%N)
sleep 9
t3=$(date +%s.%N)
if ask sync_binlog 1 0; then ok "mariadb: then the finding names sync_binlog: 5 opens on it, a sets it from 1 to 0"; else nok "mariadb: second remedy: $(screen)"; fi
if value_is "myv sync_binlog" 0 5; then ok "mariadb: y set sync_binlog=0"; else nok "mariadb: sync_binlog is $(myv sync_binlog)"; fi
t4=$(date +%s.%N)
sleep 8
t5=$(date +%s.%N)
T send-keys -t s q
if value_is "myv innodb_flush_log_at_trx_commit" 1 5 && value_is "myv sync_binlog" 1 3; then ok "mariadb: q reverted both"; else nok "mariadb: after q: $(myv innodb_flush_log_at_trx_commit)/$(myv sync_binlog)"; fi
kill "$lp" "$mon" 2>/dev/null
wait "$lp" "$mon" 2>/dev/null
lp=
J=$tmp/myslow.json
before=$(commit_ms "$J" 0 "$t1")
mid=$(commit_ms "$J" "$(plus "$t2" 1.5)" "$t3")
after=$(commit_ms "$J" "$(plus "$t4" 1.5)" "$t5")
nb=$(jq -s --argjson a "$t1" '[.[] | select(.ts < $a)] | .[2:] | length' "$J")
fb=$(jq -s --argjson a "$t1" '[.[] | select(.ts < $a)] | .[2:] | [.[] | select([.findings[]?.id] | index("commit-fsync"))] | length' "$J")
lead=$(jq -s --argjson a "$t1" '[.[] | select(.ts < $a)] | .[2:] | [.[] | select((.digests[0].text // "") | test("^COMMIT"))] | length' "$J")
echo "# mariadb 5 ms fsyncs: $(jq -s --argjson a "$t1" '[.[] | select(.ts < $a) | .rates.commits_per_s | select(. != null)] | add / length' "$J") commits/s, $(jq -s --argjson a "$t1" '[.[] | select(.ts < $a) | .rates.fsyncs_per_commit | select(. != null)] | add / length' "$J") fsyncs/commit; COMMIT avg: flush=1 sync_binlog=1 $before ms, flush=2 $mid ms, flush=2 sync_binlog=0 $after ms"
check "mariadb slow disk: commit-fsync in >= 80% of the records before a ($fb of $nb)" awk -v a="$fb" -v b="$nb" 'BEGIN { exit !(b > 0 && a >= 0.8 * b) }'
check "mariadb slow disk: COMMIT leads the digests ($lead of $nb records)" awk -v a="$lead" -v b="$nb" 'BEGIN { exit !(b > 0 && a >= 0.8 * b) }'
check "mariadb slow disk: the JSON names the same setting and value (innodb_flush_log_at_trx_commit, 2)" \
    jq -se --argjson a "$t1" '[.[] | select(.ts < $a) | .findings[]? | select(.id == "commit-fsync")] | length > 0 and all(.[]; .setting == "innodb_flush_log_at_trx_commit" and .value == "2")' "$J"
check "mariadb: after flush=2 the finding names sync_binlog = 0" \
    jq -se --argjson a "$t2" --argjson b "$t3" '[.[] | select(.ts > $a + 2 and .ts < $b) | .findings[]? | select(.id == "commit-fsync")] | length > 0 and all(.[]; .setting == "sync_binlog" and .value == "0")' "$J"
# flush=2 takes the redo log's sync out of the commit: the server's own
# counters (Innodb_os_log_fsyncs per commit) say so exactly; the COMMIT
# latency then loses one of its two syncs: >= 35 % of an idle host's COMMIT,
# or >= 3.5 ms of it. On a host whose CPUs dbtop finds saturated the CPU
# waits beside the syncs stay (19.8 -> 14.2 ms with two CPU hogs, 28 %;
# 17.7 -> 14.4 ms under stress-ng --cpu 2, 19 %): there a cut of >= 10 %
# beside the syncs gone
rpc() { jq -s --argjson a "$2" --argjson b "$3" '[.[] | select(.ts > $a and .ts < $b) | .rates | select(.commits_per_s > 0 and .redo_fsyncs_per_s != null) | .redo_fsyncs_per_s / .commits_per_s] | if length == 0 then null else add / length end' "$1"; }
rpc_b=$(rpc "$J" 0 "$t1")
rpc_m=$(rpc "$J" "$(plus "$t2" 1.5)" "$t3")
busy=$(jq -s --argjson a "$t1" '[.[] | select(.ts < $a)] | .[2:] | [.[] | select(.host_load.busy == true)] | length' "$J")
check "mariadb: flush=2 took the redo log's sync out of the commit (redo syncs per commit $rpc_b -> $rpc_m, the server's counters)" \
    awk -v b="$rpc_b" -v a="$rpc_m" 'BEGIN { exit !(b > 0.2 && a != "null" && a <= b * 0.2) }'
check "mariadb: flush=2 cut the COMMIT latency by >= 35 % or by >= 3.5 ms; >= 10 % on a saturated host (saturated in $busy of $nb records: $before -> $mid ms)" \
    awk -v b="$before" -v a="$mid" -v s="$busy" -v n="$nb" 'BEGIN { exit !(b > 0 && a != "null" && (a <= b * 0.65 || b - a >= 3.5 || (s * 2 >= n && a <= b * 0.9))) }'
# both syncs out of the commit: half of it or more; on a saturated host the
# CPU waits beside them stay (20.0 -> 11.4 ms, 43 %, with stress-ng on both
# cores and another test run beside): a quarter there
check "mariadb: with both remedies COMMIT fell by half or more; by a quarter on a saturated host (saturated in $busy of $nb records: $before -> $after ms)" \
    awk -v b="$before" -v a="$after" -v s="$busy" -v n="$nb" 'BEGIN { exit !(b > 0 && a != "null" && (a <= b * 0.5 || (s * 2 >= n && a <= b * 0.75))) }'
late=$(jq -s --argjson a "$t4" --argjson b "$t5" '[.[] | select(.ts > $a + 3 and .ts < $b)] | [.[] | select([.findings[]?.id] | index("commit-fsync"))] | length' "$J")
check "mariadb: the finding cleared within three intervals of the second a ($late records after)" test "$late" = 0

# seed 002's set-up: only the redo log is synced at commit (sync_binlog=0)
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1, GLOBAL sync_binlog=0"
# (the load and the batch outlast the part; both are ended after q). The
# batch is the measuring instrument: it reads everything every refresh
# (--server-budget 0), since on a busy machine the paced digests and
# statement summary were not read again in the 9 s after the change
# (10.78 -> 10.49 ms from figures read before it, "0 fresh digest reads")
tests/load.sh sysbench mariadb --rate 300 --time 45 --threads 8 2>/dev/null &
lp=$!
"$DBTOP" --batch --interval 1 --count 60 --server-budget 0 --format json "$DBTOP_MARIADB_URI" >"$tmp/myredo.json" 2>/dev/null &
mon=$!
start "$DBTOP_MARIADB_ADMIN_URI" || nok "mariadb redo only: screen did not come up: $(screen)"
wait_re "commits wait on fsync: COMMIT" 15 || nok "mariadb redo only: no finding: $(screen)"
sleep 4
t1=$(date +%s.%N)
if ask innodb_flush_log_at_trx_commit 1 2; then ok "mariadb redo only (sync_binlog=0): 5 opens on innodb_flush_log_at_trx_commit, a sets it from 1 to 2"; else nok "mariadb redo only: a: $(screen)"; fi
value_is "myv innodb_flush_log_at_trx_commit" 2 5
t2=$(date +%s.%N)
sleep 9
t3=$(date +%s.%N)
T send-keys -t s q
if value_is "myv innodb_flush_log_at_trx_commit" 1 5; then ok "mariadb redo only: q reverted flush"; else nok "mariadb redo only: flush is $(myv innodb_flush_log_at_trx_commit)"; fi
kill "$lp" "$mon" 2>/dev/null
wait "$lp" "$mon" 2>/dev/null
lp=
$M -e "SET GLOBAL sync_binlog=1"
before=$(commit_ms "$tmp/myredo.json" 0 "$t1")
after=$(commit_ms "$tmp/myredo.json" "$(plus "$t2" 1.5)" "$t3")
nfresh=$(jq -s --argjson a "$(plus "$t2" 1.5)" --argjson b "$t3" '[.[] | select(.ts > $a and .ts < $b and .digests_fresh != false)] | length' "$tmp/myredo.json")
echo "# mariadb 5 ms fsyncs, sync_binlog=0: COMMIT avg flush=1 $before ms, flush=2 $after ms ($nfresh fresh digest reads after)"
fired=$(jq -s --argjson a "$t1" '[.[] | select(.ts < $a) | .findings[]? | select(.id == "commit-fsync" and .setting == "innodb_flush_log_at_trx_commit" and .value == "2")] | length' "$tmp/myredo.json")
# On a host whose CPUs are saturated by other work (the server waits for a
# CPU most of the time) a 5 ms redo sync is within what the host adds: the
# product keeps the durability setting back and says commit-host-cpu naming
# the sync layer, as 77 accepts; the remedy's cut is then no claim of its
# own to judge (a CI run beside 64 load clients: COMMIT 14.4 -> 14.3 ms)
band=$(jq -rs --argjson a "$t1" "[.[] | select(.ts < \$a)] | \"\([.[] | select($BAND)] | length)/\(length)\"" "$tmp/myredo.json")
check "mariadb redo only: commit-fsync (or, the CPUs saturated by other work, commit-host-cpu naming the sync layer) before a ($fired findings; saturated and named in $band records)" \
    test "$fired" -gt 0 -o "${band%%/*}" -gt 0
if [ "$fired" -gt 0 ]; then
    check "mariadb redo only: a on the suggested row cut the COMMIT latency by half or more ($before -> $after ms)" \
        awk -v b="$before" -v a="$after" 'BEGIN { exit !(b > 0 && a != "null" && a <= b * 0.5) }'
else
    echo "ok - mariadb redo only: a cut the COMMIT latency by half or more # SKIP the host saturated: the durability change was held back, no cut claimed ($before -> $after ms)"
fi
fast mariadb

# ---- PostgreSQL 15, synchronous_commit=on, WAL syncs 5 ms slower ----
slow pg15
$P -qc "ALTER SYSTEM RESET synchronous_commit" -qc "SELECT pg_reload_conf()" >/dev/null
check "pg15: synchronous_commit is on" test "$(pgv synchronous_commit)" = on
# pgbench latency (-R: measured from the scheduled start) less the schedule lag
lat() { awk '/^latency average/ { l = $4 } /schedule lag: avg/ { g = $6 } END { if (l == "") print "null"; else print l - g }' "$1"; }
start "$DBTOP_PG15_ADMIN_URI" || nok "pg15: screen did not come up: $(screen)"
tests/load.sh pgbench pg15 --rate 300 --time 12 --clients 8 2>"$tmp/pgb1.log" &
lp=$!
sleep 1
"$DBTOP" --batch --interval 1 --count 10 --format json "$DBTOP_PG15_URI" >"$tmp/pgslow.json" 2>/dev/null
if wait_re "commits wait on the WAL flush" 5; then ok "pg15 slow disk: the finding is on screen"; else nok "pg15 slow disk: no finding: $(screen)"; fi
wait "$lp"
f=$(fires "$tmp/pgslow.json")
echo "# pg15 5 ms WAL syncs: $(mean "$tmp/pgslow.json" '.rates.commits_per_s') commits/s, WAL sync $(mean "$tmp/pgslow.json" '.rates.wal_sync_avg_ms') ms, $(mean "$tmp/pgslow.json" '.rates.fsyncs_per_commit') syncs/commit, commit-fsync in $f records"
check "pg15 slow disk: commit-fsync in >= 80% of the records ($f)" awk -v s="$f" 'BEGIN { split(s, p, "/"); exit !(p[2] > 0 && p[1] >= 0.8 * p[2]) }'
check "pg15: the JSON names synchronous_commit = off" \
    jq -se '[.[] | .findings[]? | select(.id == "commit-fsync")] | length > 0 and all(.[]; .setting == "synchronous_commit" and .value == "off" and (.suggestion | test("ALTER SYSTEM SET synchronous_commit = .off.")))' "$tmp/pgslow.json"
# a while the finding is up
tests/load.sh pgbench pg15 --rate 300 --time 10 --clients 8 2>/dev/null &
lp=$!
wait_re "commits wait on the WAL flush" 8
if ask synchronous_commit on off; then ok "pg15: screen 5 opens on the finding's row: a sets synchronous_commit from on to off"; else nok "pg15: a: $(screen)"; fi
if value_is "pgv synchronous_commit" off 5; then ok "pg15: y set synchronous_commit=off"; else nok "pg15: synchronous_commit is $(pgv synchronous_commit)"; fi
wait "$lp"
lp=
tests/load.sh pgbench pg15 --rate 300 --time 8 --clients 8 2>"$tmp/pgb2.log"
l1=$(lat "$tmp/pgb1.log")
l2=$(lat "$tmp/pgb2.log")
echo "# pg15 pgbench transaction latency less schedule lag: on $l1 ms, off $l2 ms; tps $(awk '/^tps/ { print $3 }' "$tmp/pgb1.log") -> $(awk '/^tps/ { print $3 }' "$tmp/pgb2.log")"
check "pg15: synchronous_commit=off cut the transaction latency by half or more ($l1 -> $l2 ms)" \
    awk -v b="$l1" -v a="$l2" 'BEGIN { exit !(b != "null" && a != "null" && b > 0 && a <= b * 0.5) }'
T send-keys -t s q
if value_is "pgv synchronous_commit" on 8; then ok "pg15: q restored synchronous_commit=on"; else nok "pg15: after q it is $(pgv synchronous_commit)"; fi
fast pg15

# ---- PostgreSQL 15: the WAL writer incident (seed 004) ----
$P -qc "ALTER ROLE postgres SET synchronous_commit = off" -qc "ALTER SYSTEM SET wal_writer_delay = '10ms'" \
    -qc "SELECT pg_reload_conf()" >/dev/null
tests/load.sh pgbench pg15 --rate 300 --time 25 --clients 4 2>/dev/null &
lp=$!
start "$DBTOP_PG15_ADMIN_URI" || nok "pg15 wal writer: screen did not come up: $(screen)"
if wait_re "the WAL writer flushes" 15; then ok "pg15 async commits, wal_writer_delay=10ms: the finding is on screen"; else nok "pg15 wal writer: no finding: $(screen)"; fi
check "pg15 wal writer: the finding says ALTER SYSTEM SET wal_writer_delay = '1s'" bash -c "tmux -L $sock capture-pane -p -t s | grep -qF \"ALTER SYSTEM SET wal_writer_delay = '1s'\""
T send-keys -t s 5
wait_re "^setting +now" 5
sleep 0.5
T capture-pane -p -t s >"$tmp/s5.txt"
check "pg15 wal writer: screen 5 marks the wal_writer_delay row as the finding's remedy" grep -qE "^wal_writer_delay +10ms +1s .*the finding's remedy" "$tmp/s5.txt"
check "pg15 wal writer: no row proposes the value in force (now != a sets)" \
    awk '/^setting +now/ { on = 1; next } on && NF >= 3 && $2 != "-" && $2 != "absent" { if ($2 == $3) bad = 1 } on && NF < 3 { on = 0 } END { exit bad }' "$tmp/s5.txt"
T send-keys -t s a
wait_re "Change this setting\?" 4
if flat | grep -qF "SET wal_writer_delay from 10ms to 1s " && flat | grep -qF "ALTER SYSTEM SET wal_writer_delay = '1s'"; then
    ok "pg15 wal writer: a on the opened row asks the same: wal_writer_delay from 10ms to 1s"
else
    nok "pg15 wal writer: confirmation: $(screen)"
fi
T send-keys -t s y
if value_is "pgv wal_writer_delay" 1s 5; then ok "pg15 wal writer: y set wal_writer_delay=1s"; else nok "pg15 wal writer: it is $(pgv wal_writer_delay)"; fi
T send-keys -t s q
if value_is "pgv wal_writer_delay" 10ms 8; then ok "pg15 wal writer: q restored 10ms"; else nok "pg15 wal writer: after q it is $(pgv wal_writer_delay)"; fi
kill "$lp" 2>/dev/null
wait "$lp" 2>/dev/null
lp=
done_tests
