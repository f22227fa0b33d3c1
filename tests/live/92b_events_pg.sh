# The event log on a live PostgreSQL 15: another client turns
# synchronous_commit off (ALTER SYSTEM + pg_reload_conf()) and back while
# dbtop watches at 1 s; the records' "events" list both changes, each
# within one interval of the truth (the durability settings are read at
# every refresh, inside its one statement), with since one interval before;
# the record of the change carries the new value in its settings.
#
# Every process started here is killed by PID in the trap; the setting is
# put back.
. tests/lib.sh
tmp=$(mktemp -d)
P=${DBTOP_PG15_PSQL:-}
bp=
cleanup() {
    [ -n "$P" ] && $P -qc "ALTER SYSTEM RESET synchronous_commit" -c "SELECT pg_reload_conf()" >/dev/null 2>&1
    [ -n "$bp" ] && kill "$bp" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
if [ -z "${DBTOP_PG15_URI:-}" ] || [ -z "$P" ]; then
    nok "pg15 sandbox server missing"
    done_tests
    exit
fi
now() { date +%s.%N; }
SET_TOL=${SET_TOL:-0.5}
t_start=$(now)
sc() { $P -qc "ALTER SYSTEM $1" -c "SELECT pg_reload_conf()" >/dev/null; }
sc "RESET synchronous_commit"

timeout 60 "$DBTOP" -b -n 40 -i 1 --format json "$DBTOP_PG15_URI" >"$tmp/b.json" 2>"$tmp/b.err" &
bp=$!
# the first full reading of the settings
for ((i = 0; i < 150; i++)); do
    jq -e 'select(.settings.synchronous_commit == "on")' "$tmp/b.json" >/dev/null 2>&1 && break
    sleep 0.1
done
sleep 2.3
sc "SET synchronous_commit = off"
t_off=$(now)
sleep 4
sc "RESET synchronous_commit"
t_on=$(now)
for ((i = 0; i < 100; i++)); do
    jq -e 'select(any(.events[]?; .kind == "setting" and .new == "on"))' "$tmp/b.json" >/dev/null 2>&1 && break
    sleep 0.1
done
kill "$bp" 2>/dev/null
wait "$bp" 2>/dev/null
bp=
jq -c '.events[]?' "$tmp/b.json" >"$tmp/ev.json"
echo "# truth: off $t_off, on $t_on; events: $(jq -c '[.kind, .name, .new, .since, .ts]' "$tmp/ev.json" | tr '\n' ' ' | head -c 600)"
setting_ok() {
    local c=$1 t=$2
    [ -n "$c" ] && awk -v s="$(jq -r .since <<<"$c")" -v ts="$(jq -r .ts <<<"$c")" -v t="$t" -v tol="$SET_TOL" \
        'BEGIN { exit !(s - tol <= t && t <= ts + tol && ts - t <= 1 + tol && ts - s <= 1 + tol) }'
}
off() { jq -r --argjson t "$2" '"\(.ts - $t | . * 100 | round / 100) s after the truth, since \(.ts - .since | . * 100 | round / 100) s before"' <<<"$1"; }
c=$(jq -c 'select(.kind == "setting" and .name == "synchronous_commit" and .old == "on" and .new == "off")' "$tmp/ev.json" | head -1)
if setting_ok "$c" "$t_off" && jq -e '.by == "other"' <<<"$c" >/dev/null; then
    ok "pg15: synchronous_commit on -> off by another client within one interval: $(off "$c" "$t_off")"
else
    nok "pg15: synchronous_commit off at $t_off: $c"
fi
c=$(jq -c 'select(.kind == "setting" and .name == "synchronous_commit" and .old == "off" and .new == "on")' "$tmp/ev.json" | head -1)
if setting_ok "$c" "$t_on"; then ok "pg15: and back off -> on: $(off "$c" "$t_on")"; else nok "pg15: synchronous_commit on at $t_on: $c"; fi
check "pg15: the record of the change carries synchronous_commit=off and the other settings" \
    jq -se 'map(select(any(.events[]?; .kind == "setting" and .new == "off"))) | length == 1 and
        (.[0].settings | .synchronous_commit == "off" and has("wal_writer_delay") and has("fsync") and has("wal_level"))' "$tmp/b.json"
check "pg15: every record up" jq -se 'length >= 5 and all(.[]; .state == "up")' "$tmp/b.json"
echo "# took $(awk -v a="$t_start" -v b="$(now)" 'BEGIN{printf "%.0f", b-a}') s"
done_tests
