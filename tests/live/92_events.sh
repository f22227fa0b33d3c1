# The event log on a live MariaDB: a lock chain and an
# innodb_flush_log_at_trx_commit change happen and end while dbtop watches
# in batch mode and on the screen; the batch records' "events" and the
# screen's event log (7) list both, with times within one interval of the
# truth recorded here (the durability settings are read at every refresh:
# the setting's event says the change fell between the refresh before and
# its own, the truth lies there, and the event comes within one interval
# of it, plus SET_TOL s for a loaded machine); Enter lands on the chain;
# w writes a 0600 snapshot
# naming the chain's root, without a password; dbtop's own change (screen
# 5: a) and its undo (u) are listed as dbtop's, each once.
#
# Sessions stay idle in their transactions for at most 15 s; every process
# started here is killed by PID in the trap, every server session ended,
# the setting put back.
. tests/lib.sh
. tests/sessions.sh
tui_init events
M=$DBTOP_MARIADB_CLIENT
bp=
cleanup() {
    $M -e "SET GLOBAL innodb_flush_log_at_trx_commit = 1" 2>/dev/null
    sessions_kill
    [ -n "$bp" ] && kill "$bp" 2>/dev/null
    tui_stop
    rm -rf "$tmp"
}
trap cleanup EXIT
now() { date +%s.%N; }
my_waits() { $M -N -e "SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_current_waits'" | cut -f2; }
hms() { date -u -d "@${1%.*}" +%H:%M:%S; }
t_start=$(now)

$M -e "SET GLOBAL innodb_flush_log_at_trx_commit = 1;
DROP TABLE IF EXISTS ev_chain; CREATE TABLE ev_chain (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
INSERT INTO ev_chain VALUES (1, 0), (2, 0);"
mkdir -p "$tmp/snap"
chmod 700 "$tmp/snap"

# the screen (100x30: the timeline row shows) and a batch run, both at 1 s,
# every read at every refresh (--server-budget 0): on a busy machine the
# graph's read takes 60-70 ms, and the budget's pacing would read it once
# in 25 s, too seldom to see a 6 s chain last (tests/live/90_budget.sh
# tests the pacing)
UP_WAIT=20 dbtop_start 100 30 -i 1 --server-budget 0 --snapshot-dir "$tmp/snap" "$DBTOP_MARIADB_ADMIN_URI" ||
    nok "the screen came up: $(screen)"
timeout 80 "$DBTOP" -b -n 40 -i 1 --server-budget 0 --format json --record "$tmp/r.dbrec" "$DBTOP_MARIADB_URI" >"$tmp/b.json" 2>"$tmp/b.err" &
bp=$!
sleep 4

# ---- the lock chain: ca holds row 1 idle in its transaction, cb waits ----
sess ca 15 "$M -n -N" "SELECT CONNECTION_ID(); BEGIN; UPDATE ev_chain SET v = v + 1 WHERE id = 1;"
getid ca
sess cb 12 "$M -n -N" "SELECT CONNECTION_ID(); SET SESSION innodb_lock_wait_timeout = 20; BEGIN; UPDATE ev_chain SET v = v + 1 WHERE id = 1;"
getid cb
waits_reach my_waits 1 || nok "the waiter waits"
t_chain=$(now)
# ---- the setting changes (someone else: this client) ----
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit = 2"
t_set=$(now)
sleep 6
$M -e "KILL ${sid[ca]}"
t_end=$(now)
endsess "true" ca cb
sleep 9
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit = 1"
t_back=$(now)
echo "# truth: chain $(hms $t_chain) ($t_chain) ended $t_end; setting 1->2 $t_set, 2->1 $t_back"

# ---- batch: wait for the revert to be read (<= 12 s), then stop ----
for ((i = 0; i < 150; i++)); do
    jq -e 'select(any(.events[]?; .kind == "setting" and .new == "1"))' "$tmp/b.json" >/dev/null 2>&1 && break
    sleep 0.1
done
kill "$bp" 2>/dev/null
wait "$bp" 2>/dev/null
bp=
ev() { jq -c '.events[]?' "$tmp/b.json"; }
ev >"$tmp/ev.json"
echo "# batch events: $(jq -c '[.kind, .ts, .root // .name, .new // .waiters]' "$tmp/ev.json" | tr '\n' ' ' | head -c 900)"
# within A B TOL: |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; }
c=$(jq -c --argjson r "${sid[ca]}" 'select(.kind == "lock chain" and .root == $r)' "$tmp/ev.json" | head -1)
ts=$(jq -r '.ts' <<<"$c" 2>/dev/null)
if [ -n "$c" ] && near "$ts" "$t_chain" 1.2 && jq -e '.user == "dbtop_admin" and .waiters >= 1 and (.root as $r | .detail | startswith("root blocker \($r) (dbtop_admin, idle in transaction"))' <<<"$c" >/dev/null; then
    ok "batch: the lock chain with its root blocker ${sid[ca]}, user, state and waiters, $(awk -v a="$ts" -v b="$t_chain" 'BEGIN{printf "%+.2f", a-b}') s from the truth"
else
    nok "batch: lock chain of ${sid[ca]} near $t_chain: $c"
fi
c=$(jq -c --argjson r "${sid[ca]}" 'select(.kind == "chain ended" and .root == $r)' "$tmp/ev.json" | head -1)
ts=$(jq -r '.ts' <<<"$c" 2>/dev/null)
if [ -n "$c" ] && near "$ts" "$t_end" 1.2; then
    ok "batch: the chain's end, $(awk -v a="$ts" -v b="$t_end" 'BEGIN{printf "%+.2f", a-b}') s from the kill"
else
    nok "batch: chain ended near $t_end: $c"
fi
# the durability settings are read at every refresh (-i 1): the truth lies
# between the refresh before (since) and the event's (ts), ts is within one
# interval of it and since one interval before ts (SET_TOL: the load's
# delay of a refresh; the truth is taken after the SET returned)
SET_TOL=${SET_TOL:-0.5}
setting_ok() {
    local c=$1 t=$2
    local s ts
    s=$(jq -r '.since' <<<"$c" 2>/dev/null)
    ts=$(jq -r '.ts' <<<"$c" 2>/dev/null)
    [ -n "$c" ] && awk -v s="$s" -v ts="$ts" -v t="$t" -v tol="$SET_TOL" \
        'BEGIN { exit !(s - tol <= t && t <= ts + tol && ts - t <= 1 + tol && ts - s <= 1 + tol) }'
}
setting_off() { jq -r --argjson t "$2" '"\(.ts - $t | . * 100 | round / 100) s after the truth, since \(.ts - .since | . * 100 | round / 100) s before"' <<<"$1"; }
c=$(jq -c 'select(.kind == "setting" and .name == "innodb_flush_log_at_trx_commit" and .old == "1" and .new == "2")' "$tmp/ev.json" | head -1)
if setting_ok "$c" "$t_set" && jq -e '.by == "other"' <<<"$c" >/dev/null; then
    ok "batch: innodb_flush_log_at_trx_commit 1 -> 2 by another client within one interval: $(setting_off "$c" "$t_set")"
else
    nok "batch: the setting change at $t_set: $c"
fi
c=$(jq -c 'select(.kind == "setting" and .name == "innodb_flush_log_at_trx_commit" and .old == "2" and .new == "1")' "$tmp/ev.json" | head -1)
if setting_ok "$c" "$t_back"; then ok "batch: and back 2 -> 1: $(setting_off "$c" "$t_back")"; else nok "batch: the change back at $t_back: $c"; fi
check "batch: each event in one record only (the interval's)" \
    jq -se '[.[] | .events[]?] | length == (map(tojson) | unique | length)' "$tmp/b.json"

# the recording keeps them: its replay prints the same events (who changed
# the setting included, which a replay could not tell by itself)
"$DBTOP" --replay "$tmp/r.dbrec" --batch --format json --speed 0 2>/dev/null | jq -c '.events[]?' >"$tmp/rev.json"
n1=$(wc -l <"$tmp/ev.json") n2=$(wc -l <"$tmp/rev.json")
n=$((n1 < n2 ? n1 : n2))   # the run was stopped: one side may hold one more record
if [ "$n" -ge 4 ] && cmp -s <(head -n "$n" "$tmp/ev.json") <(head -n "$n" "$tmp/rev.json") &&
    head -n "$n" "$tmp/rev.json" | grep -q '"by":"other"'; then
    ok "replay of the recording: the same $n events (SAMPLE field 31), \"by\":\"other\" kept"
else
    nok "replay of the recording: events differ: $(diff "$tmp/ev.json" "$tmp/rev.json" | head -c 600)"
fi

# ---- the screen: the event log lists both ----
T send-keys -t s 7
wait_re "innodb_flush_log_at_trx_commit 2 -> 1" 15 || nok "screen: the revert listed: $(screen)"
scr=$(T capture-pane -p -t s)
line=$(grep -E "lock chain +root blocker ${sid[ca]} " <<<"$scr" | head -1)
tc=$(awk '{print $1}' <<<"$line")
t0=$(hms "$t_chain")
if [ -n "$line" ] && near "$(date -u -d "$(date -u +%F) $tc" +%s 2>/dev/null)" "${t_chain%.*}" 2; then
    ok "screen: the event log lists the chain of ${sid[ca]} at $tc (truth $t0)"
else
    nok "screen: chain of ${sid[ca]} near $t0: $(screen)"
fi
line=$(grep -E "setting +innodb_flush_log_at_trx_commit 1 -> 2" <<<"$scr" | head -1)
ts=$(date -u -d "$(date -u +%F) $(awk '{print $1}' <<<"$line")" +%s 2>/dev/null)
# the screen shows whole seconds: one more of slack
t_set_hms=$(awk '{print $1}' <<<"$line")
if [ -n "$line" ] && awk -v ts="$ts" -v t="$t_set" -v tol="$SET_TOL" 'BEGIN { exit !(ts >= t - 1 && ts - t <= 1 + tol + 1) }'; then
    ok "screen: the event log lists the setting change at $(awk '{print $1}' <<<"$line") (truth $(hms $t_set)), within one interval"
else
    nok "screen: the setting change near $(hms $t_set): $(screen)"
fi
grep -q "0-7 Screens" <<<"$scr" && ok "screen: the key bar offers 0-7" || nok "screen: key bar: $(screen)"
grep -qE '^[0-9]{2}:[0-9]{2}:[0-9]{2} .*L.* now$' <<<"$scr" && ok "screen: the timeline marks the chain (L)" ||
    nok "screen: the timeline: $(screen)"

# Enter on the chain travels there: frozen at its moment, the overview's
# lock pane shows the chain with its root blocker
T send-keys -t s / "lock chain +root blocker ${sid[ca]} " Enter
sleep 0.3
T send-keys -t s Enter
if wait_re " AT $tc " 5 && wait_re "^. ${sid[ca]} dbtop_admin +idle in transaction" 3; then
    ok "screen: Enter on the chain lands on it: AT $tc, the lock pane shows root blocker ${sid[ca]}"
else
    nok "screen: Enter on the chain (AT $tc): $(screen)"
fi

# w: the snapshot
T send-keys -t s w
wait_re "snapshot: .*dbtop-snapshot-" 5 || nok "screen: w says where: $(screen)"
f=$(ls "$tmp"/snap/dbtop-snapshot-*.txt 2>/dev/null | head -1)
j=${f%.txt}.json
if [ -n "$f" ] && [ "$(stat -c %a "$f")" = 600 ] && [ "$(stat -c %a "$j")" = 600 ]; then
    ok "w: $(basename "$f") and .json, mode 0600"
else
    nok "w: snapshot files: $(ls -l "$tmp/snap")"
fi
if grep -q " AT $tc " "$f" 2>/dev/null && grep -qE "^. ${sid[ca]} dbtop_admin" "$f" && ! grep -q $'\e' "$f" &&
    jq -e --argjson r "${sid[ca]}" --argjson t "${t_chain%.*}" '.schema == 1 and .engine == "mariadb" and
        (.ts - $t | fabs) <= 2 and any(.locks[]; .root == $r)' "$j" >/dev/null 2>&1; then
    ok "w: the text shows the moment (AT $tc) and the chain's root (no escape sequence); the JSON is that moment's record with the chain"
else
    nok "w: snapshot content: $(head -c 600 "$f" 2>/dev/null)"
fi
if ! grep -qE 'monpw|adminpw' "$f" "$j"; then ok "w: no password in either file"; else nok "w: a password in the snapshot"; fi
# the / prompt opens with the filter in force: BSpace it away first
clear_filter() { T send-keys -t s /; for ((i = 0; i < 40; i++)); do T send-keys -t s BSpace; done; }
# Enter on the setting change lands on it: the settings line of that moment
T send-keys -t s 7
clear_filter
T send-keys -t s "innodb_flush_log_at_trx_commit 1 -> 2" Enter
sleep 0.3
T send-keys -t s Enter
# (screen 1, the rates in full, shows the settings line of that moment)
if [ -n "$t_set_hms" ] && wait_re " AT $t_set_hms " 5 && T send-keys -t s 1 &&
    wait_re "innodb_flush_log_at_trx_commit=2 sync_binlog=" 3 && wait_re " AT $t_set_hms " 1; then
    ok "screen: Enter on the setting change lands on it: AT $t_set_hms, the settings line (screen 1) says innodb_flush_log_at_trx_commit=2"
else
    nok "screen: Enter on the setting change (AT $t_set_hms): $(screen)"
fi
T send-keys -t s 7
clear_filter
T send-keys -t s Enter Escape
# dbtop's own change (screen 5: a, y) and its undo (u): logged as dbtop's,
# the observation of each not logged again
T send-keys -t s Escape Space 5   # live again: frozen, nothing acts on the server
wait_re "innodb_flush_log_at_trx_commit +1 +2 +yes" 10 || nok "screen 5: the remedy row: $(screen)"
T send-keys -t s a
framed_re "SET GLOBAL innodb_flush_log_at_trx_commit = 2" 5 && T send-keys -t s y
wait_re "innodb_flush_log_at_trx_commit +2 +" 10 || nok "screen 5: applied: $(screen)"
sleep 11   # a settings reading sees it
T send-keys -t s u
sleep 11
T send-keys -t s 7
clear_filter
T send-keys -t s "by dbtop|dbtop reverted" Enter
if wait_re "innodb_flush_log_at_trx_commit 2 -> 1 \(dbtop reverted its change\)" 5 &&
    wait_re "innodb_flush_log_at_trx_commit 1 -> 2 \(by dbtop\)" 1; then
    ok "screen: dbtop's own change and its revert, marked as dbtop's"
else
    nok "screen: dbtop's own change: $(screen)"
fi
clear_filter
T send-keys -t s Enter
sleep 0.3
n=$(T capture-pane -p -t s | grep -cE "innodb_flush_log_at_trx_commit [12] -> [12] \(")
[ "$n" = 4 ] && ok "screen: 4 changes of the setting listed (2 by another client, 2 by dbtop), none twice" ||
    nok "screen: $n changes listed: $(screen)"
echo "# took $(awk -v a="$t_start" -v b="$(now)" 'BEGIN{printf "%.0f", b-a}') s"
done_tests
