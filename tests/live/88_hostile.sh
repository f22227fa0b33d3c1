# Hostile text from live servers never reaches the terminal as control
# sequences. On MariaDB and PostgreSQL 15: statement digests whose
# identifiers carry an OSC title, SGR colour, clear-screen, bracketed paste,
# C1 CSI, a cursor report request and a right-to-left override; a lock
# waiter whose 1 MB statement carries them; a blocker whose user name (and,
# on PostgreSQL, application_name) carries an OSC title; an error message
# quoting a database name with an OSC title. dbtop runs on the screen in
# tmux with pipe-pane logging every byte it writes: none of the sequences
# may be in the log, the window title must stay, keys must still work; the
# batch JSON of the same server stays valid.
. tests/lib.sh
. tests/sessions.sh
tmp=$(mktemp -d)
sock=dbtop-hostile-$$
M=$DBTOP_MARIADB_CLIENT
P=$DBTOP_PG15_PSQL
T() { tmux -L "$sock" -f /dev/null "$@"; }
ESC=$'\e' BEL=$'\a'
HU=$'hx\e]2;HACKED-USER\a'   # a user / role name with an OSC title
parts=()
cleanup() {
    local n
    for n in mariadb pg15; do tmux -L "$sock-$n" -f /dev/null kill-server 2>/dev/null; done
    [ ${#parts[@]} -gt 0 ] && kill "${parts[@]}" 2>/dev/null
    sessions_kill
    $M -e "DROP USER IF EXISTS '$HU'@'%'; DROP TABLE IF EXISTS hx" 2>/dev/null
    $P -qc "DROP TABLE IF EXISTS hx" >/dev/null 2>&1
    $P -qc "DROP ROLE IF EXISTS \"$HU\"" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
export LANG=C.UTF-8

# the payloads, each with a marker: the raw sequence must never be in the log
declare -A RAW=(
    [osc]="${ESC}]2;HACKED-TITLE${BEL}"
    [sgr]="${ESC}[38;5;196mREDPAY"
    [clear]="${ESC}[2J${ESC}[HCLRPAY"
    [paste]="${ESC}[200~PASTEPAY${ESC}[201~"
    [c1]=$'\xc2\x9b'"31mC1PAY"
    [dsr]="${ESC}[6nDSRPAY"
    [user]="${ESC}]2;HACKED-USER${BEL}"
    [db]="${ESC}]2;HACKED-DB${BEL}"
)
ALIAS="${RAW[osc]}${RAW[sgr]}${RAW[clear]}${RAW[paste]}${RAW[c1]}${RAW[dsr]}"$'\xe2\x80\xaeRTLPAY'
BIG=$(head -c 1048576 /dev/zero | tr '\0' x)

# raw_clean NAME LOG: none of the payloads' raw sequences in the bytes written
raw_clean() {
    local k bad=
    for k in "${!RAW[@]}"; do
        LC_ALL=C grep -qaF -- "${RAW[$k]}" "$2" && bad+="$k "
    done
    LC_ALL=C grep -qa $'\a' "$2" && bad+="BEL "
    LC_ALL=C grep -qaF $'\xe2\x80\xae' "$2" && bad+="RLO "
    if [ -z "$bad" ]; then ok "$1: no payload sequence, BEL or bidi override in the $(wc -c <"$2") bytes written"; else nok "$1: raw sequences reached the terminal: $bad"; fi
}
# watch NAME URI: dbtop on the screen with every byte logged
watch() {
    T kill-server 2>/dev/null
    sleep 0.2
    : >"$tmp/$1.raw"
    T new-session -d -s s -x 160 -y 45 "sleep 0.5; $DBTOP --interval 0.5 \"$2\"; sleep 20"
    T select-pane -t s -T dbtop-title-kept
    T set -w -t s allow-rename on >/dev/null
    T set -p -t s allow-set-title on >/dev/null 2>&1
    T pipe-pane -t s -o "cat >> $tmp/$1.raw"
    wait_re " UP " 10
}
# title_kept NAME [RAW]: the pane's title is still the one set above; when
# the pane has already closed (dbtop ended on the error and the window went
# with it), no title-setting sequence (OSC 0 / 2, screen's ESC k) is in the
# bytes the terminal got (RAW)
title_kept() {
    local t
    if t=$(T display -p -t s '#{pane_title}' 2>/dev/null); then
        check "$1: the pane title is untouched" test "$t" = dbtop-title-kept
    elif [ -n "${2:-}" ]; then
        check "$1: the pane title is untouched (the pane closed: no title sequence in the $(wc -c <"$2") bytes it got)" \
            bash -c '! LC_ALL=C grep -qaP "\x1b\](0|2);|\x1bk" "$1"' _ "$2"
    else
        nok "$1: the pane title is untouched: the pane closed"
    fi
}

# hostile NAME: the whole case on one server. The two servers' cases run
# side by side, each with its own tmux server, scratch directory and
# sessions (ended here; each idles 15 s at most); their lines follow in
# turn.
hostile() {
    local name=$1
    sock=$sock-$name
    tmp=$tmp/$name
    mkdir -p "$tmp"
    if [ $name = mariadb ]; then
        $M -e "DROP USER IF EXISTS '$HU'@'%'; CREATE USER '$HU'@'%' IDENTIFIED BY 'hxpw'; GRANT ALL ON dbtop_test.* TO '$HU'@'%';
               DROP TABLE IF EXISTS hx; CREATE TABLE hx (id INT PRIMARY KEY, v LONGTEXT) ENGINE=InnoDB; INSERT INTO hx VALUES (1, '')"
        hostile_my() { $M -e "SELECT $1 AS \`$ALIAS\`"; }
        HOSTILE=hostile_my
        for i in 1 2 3; do $HOSTILE $i >/dev/null; done
        HC="mariadb --no-defaults -S $DBTOP_MARIADB_SOCKET -u $HU -phxpw dbtop_test -n -N"
        WC="$M -n -N"
        ID="SELECT CONNECTION_ID();"
        LW="SET SESSION innodb_lock_wait_timeout = 20;"
        uri=$DBTOP_MARIADB_ADMIN_URI
        baddb="mysql://dbtop_mon:monpw@127.0.0.1:$DBTOP_MARIADB_PORT/${RAW[db]}"
        endid() { $M -e "KILL $1"; }
    else
        $P -qc "DROP TABLE IF EXISTS hx" -qc "CREATE TABLE hx (id int PRIMARY KEY, v text)" -qc "INSERT INTO hx VALUES (1, '')" >/dev/null 2>&1
        $P -qc "DROP ROLE IF EXISTS \"$HU\"" >/dev/null 2>&1
        $P -qc "CREATE ROLE \"$HU\" LOGIN PASSWORD 'hxpw'" -qc "GRANT ALL ON hx TO \"$HU\"" >/dev/null
        hostile_pg() { $P -qc "SET client_min_messages = error" -qc "SELECT $1 AS \"$ALIAS\""; }
        HOSTILE=hostile_pg
        for i in 1 2 3; do $HOSTILE $i >/dev/null; done
        HC="env PGAPPNAME=${RAW[osc]}app PGPASSWORD=hxpw psql -X -qAt -h 127.0.0.1 -p $DBTOP_PG15_PORT -U $HU dbtop_test"
        WC="$P -qAt"
        ID="SELECT pg_backend_pid();"
        LW="SET lock_timeout = '20s';"
        uri=$DBTOP_PG15_ADMIN_URI
        baddb="host=127.0.0.1 port=$DBTOP_PG15_PORT user=dbtop_mon password=monpw dbname=${RAW[db]}"
        endid() { $P -qAtc "SELECT pg_terminate_backend($1)" >/dev/null; }
    fi
    # the blocker: the hostile user, idle in its transaction; the waiter: a 1 MB statement with every payload
    sess a 15 "$HC" "$ID" "BEGIN;" "UPDATE hx SET v = 'held' WHERE id = 1;"
    getid a
    sess b 15 "$WC" "$ID" "$LW" "UPDATE hx SET v = '$ALIAS $BIG' WHERE id = 1;"
    getid b
    if watch $name "$uri"; then ok "$name: screen up with hostile sessions"; else nok "$name: screen: $(screen)"; fi
    # the hostile statement runs until its digest shows (at most 12 times, a
    # second apart): the digests' first two readings, which an interval's
    # calls need, come after the lock graph's reads, whenever the machine
    # lets them
    T send-keys -t s 2
    local shown=false
    for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
        $HOSTILE "$i" >/dev/null 2>&1
        if wait_re "HACKED-TITLE|REDPAY" 1; then shown=true; break; fi
    done
    $shown && ok "$name: the hostile digest is on screen 2 (neutralised)" || nok "$name: hostile digest not shown: $(screen)"
    T send-keys -t s / "PAST" Enter
    sleep 0.3
    T send-keys -t s Enter
    sleep 0.8
    T send-keys -t s Escape / Enter 3
    if wait_re "HACKED-USER|REDPAY" 6; then ok "$name: the lock screen shows the hostile user / statement (neutralised)"; else nok "$name: lock screen: $(screen)"; fi
    T send-keys -t s Enter
    sleep 0.8
    T send-keys -t s Escape 1
    if wait_re "^\[1\] fsync" 3; then ok "$name: keys still answered after the hostile text"; else nok "$name: keys: $(screen)"; fi
    title_kept "$name"
    T send-keys -t s q
    sleep 0.5
    raw_clean "$name screen" "$tmp/$name.raw"
    # batch JSON of the same server while the hostile statement runs: valid, no raw control bytes
    for i in 1 2 3 4 5 6; do $HOSTILE "$i" >/dev/null 2>&1; sleep 0.3; done &
    "$DBTOP" --batch --count 4 --interval 0.5 --format json --top 50 "$uri" >"$tmp/$name.json" 2>"$tmp/$name.err"
    wait $!
    check "$name batch: JSON valid, no raw control bytes, the hostile digest included" python3 -c '
import json, sys
found = False
for line in open(sys.argv[1], "rb"):
    assert not any(b < 0x20 or b == 0x7f for b in line.rstrip(b"\n")), "control byte"
    r = json.loads(line.decode("utf-8"))
    for d in r.get("digests", []):
        if "PASTEPAY" in d.get("text", ""):
            found = True
            assert "\x1b" not in d["text"] and "\x07" not in d["text"]
assert found, "hostile digest not in the JSON"
' "$tmp/$name.json"
    "$DBTOP" --batch --count 2 --interval 0.5 "$uri" >"$tmp/$name.txt" 2>&1
    raw_clean "$name batch text" "$tmp/$name.txt"
    endsess endid b a
    # an error message quoting a hostile database name, on the screen's terminal
    watch ${name}-err "$baddb"
    sleep 2
    raw_clean "$name connection error" "$tmp/${name}-err.raw"
    check "$name connection error: names the database, neutralised" bash -c "LC_ALL=C grep -qa 'HACKED-DB' '$tmp/${name}-err.raw'"
    title_kept "$name error" "$tmp/${name}-err.raw"
    T kill-server 2>/dev/null
}
for name in mariadb pg15; do
    hostile "$name" >"$tmp/part.$name" 2>&1 &
    parts+=($!)
done
wait "${parts[@]}"
for name in mariadb pg15; do
    merge_part "$tmp/part.$name"
done
done_tests
