# Passwords and escape sequences in command lines and targets files: the
# place for the next review's attacks on them.
#   ps        every form of target with a password, named or not (URI,
#             key=value, NAME= prefix, NAME = with blanks, password first):
#             /proc/PID/cmdline shows none of them while dbtop runs
#   file      a targets-file line `password=SECRET== host=...` (a libpq
#             string, not NAME=password) and one libpq cannot parse (an
#             unquoted password with a blank): no password on stderr, in the
#             batch JSON, on /metrics or on the fleet screen
#   escapes   a bad name with an escape sequence in a targets file: the
#             message on stderr carries no ESC byte
# Port: DBTOP_LISTEN_PORT + 8.
. tests/lib.sh
tui_init hargs
LPORT=$((${DBTOP_LISTEN_PORT:-38150} + 8))
PGP=$(sed -n 's/.*:\([0-9]*\)\/.*/\1/p' <<<"$DBTOP_PG15_URI")
MYP=$(sed -n 's/.*:\([0-9]*\)\/.*/\1/p' <<<"$DBTOP_MARIADB_URI")
bp=
cleanup() {
    [ -n "$bp" ] && kill "$bp" 2>/dev/null
    tui_stop
    rm -rf "$tmp"
}
trap cleanup EXIT

# ---- ps: every form on the command line ----
H="host=127.0.0.1 port=$PGP dbname=dbtop_test"
"$DBTOP" -b -i 0.5 -n 6 --connect-timeout 2 \
    "pg3=password=X2sec $H user=u3" \
    "my_1=mysql://u4:X3sec@127.0.0.1:$MYP/" \
    "pg1=postgresql://u1:X1sec@127.0.0.1:$PGP/dbtop_test" \
    "pg2=$H user=u2 password=X4sec" \
    "password=X5sec $H user=u5" \
    "pg.6 = postgresql://u6:X6sec@127.0.0.1:$PGP/dbtop_test" \
    "mysql://u7:X7sec@127.0.0.1:$MYP/" \
    "postgresql://u8:X8sec@127.0.0.1:$PGP/dbtop_test" >"$tmp/ps.out" 2>"$tmp/ps.err" &
bp=$!
sleep 1.5
if [ -r "/proc/$bp/cmdline" ]; then
    cl=$(tr '\0' ' ' <"/proc/$bp/cmdline")
    left=$(grep -oE 'X[0-9]sec' <<<"$cl" | tr '\n' ' ')
    if [ -z "$left" ]; then ok "ps: no password in the command line of 8 targets (URI, key=value, NAME=, NAME = , password first)"; else nok "ps: passwords in /proc/PID/cmdline: $left ($cl)"; fi
else
    nok "ps: dbtop ended before its command line was read: $(head -c 300 "$tmp/ps.err")"
fi
wait "$bp" 2>/dev/null
bp=
if grep -qE 'X[0-9]sec' "$tmp/ps.out" "$tmp/ps.err"; then nok "ps: a password in dbtop's output: $(grep -ohE '.{0,60}X[0-9]sec.{0,20}' "$tmp/ps.out" "$tmp/ps.err" | head -3)"; else ok "ps: no password in dbtop's output or messages ($(wc -c <"$tmp/ps.err") bytes of messages)"; fi

# ---- a targets file with passwords on its lines ----
cat >"$tmp/targets" <<EOF
password=SECRET6== $H user=dbtop_mon
pg9 = $H user=dbtop_mon password=ab SECRET7 connect_timeout=2
EOF
timeout 20 "$DBTOP" -b --format json -i 0.5 -n 3 --connect-timeout 2 --targets "$tmp/targets" --listen "127.0.0.1:$LPORT" \
    >"$tmp/file.json" 2>"$tmp/file.err" &
bp=$!
for ((i = 0; i < 60; i++)); do
    curl -sf -m 2 "127.0.0.1:$LPORT/metrics" >"$tmp/metrics.txt" 2>/dev/null && grep -q '^dbtop_up' "$tmp/metrics.txt" && break
    sleep 0.1
done
wait "$bp" 2>/dev/null
bp=
echo "# targets file: $(head -c 300 "$tmp/file.err" | tr '\n' '|')"
check "file: the 'password=...== host=...' line is one libpq target, not NAME=password" \
    bash -c "! grep -q '\"server\": *\"password\"' '$tmp/file.json' && ! grep -q \"'password'\" '$tmp/file.err'"
for f in file.err file.json metrics.txt; do
    if [ -s "$tmp/$f" ] && ! grep -qE 'SECRET[67]' "$tmp/$f"; then ok "file: no password in $f ($(wc -c <"$tmp/$f") bytes)"; else nok "file: $f: $(grep -ohE '.{0,80}SECRET[67].{0,20}' "$tmp/$f" | head -2)$([ -s "$tmp/$f" ] || echo empty)"; fi
done
UP_WAIT=1 dbtop_start 120 30 --connect-timeout 2 --targets "$tmp/targets"
wait_re 'DOWN' 15
sleep 1
T capture-pane -p -t s >"$tmp/screen.txt"
if grep -q DOWN "$tmp/screen.txt" && ! grep -qE 'SECRET[67]' "$tmp/screen.txt" "$tmp/err"; then ok "file: the fleet screen's DOWN rows carry no password"; else nok "fleet screen: $(grep -E 'SECRET|DOWN' "$tmp/screen.txt" | head -3)"; fi
tui_stop

# ---- escape sequences from a targets file never reach stderr ----
printf 'a\033[31mRED = mysql://h/\n' >"$tmp/esc.targets"
"$DBTOP" -b -n 1 --targets "$tmp/esc.targets" >/dev/null 2>"$tmp/esc.err"
if grep -q 'bad name' "$tmp/esc.err" && ! LC_ALL=C grep -q $'\033' "$tmp/esc.err"; then ok "escapes: a bad name is shown without its escape sequence: $(head -c 100 "$tmp/esc.err")"; else nok "escapes: stderr: $(od -c "$tmp/esc.err" | head -3)"; fi
done_tests
