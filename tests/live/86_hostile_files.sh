# Files dbtop writes and reads, against hostile local users and hostile
# recordings: the place for the next review's attacks on them.
#   record    --record into a path that exists (another user's file in a
#             sticky directory, a FIFO, a symlink) is refused, monitoring
#             goes on; a new file is created 0600
#   replay    batch replays of recordings whose time is hostile (a sample
#             at mono 1e12 s, NaN, or 1e6 s back) end on SIGINT / SIGTERM
#             within 1 s, and so does a slow one (--speed 0.01)
#   memory    replay of recordings whose every sample brings 3,000 new
#             digest keys: the resident size stays bounded (3x the samples,
#             not 3x the memory)
#   snapshot  w with a full disk: "snapshot not written" and no file left
. tests/lib.sh
tui_init hfiles
MKH=${MKHOSTILE:-build/tests/mkhostile}
if [ ! -x "$MKH" ] || [ tests/tools/mkhostile.c -nt "$MKH" ]; then
    make -s CI=1 "$MKH" >/dev/null 2>&1 || { nok "cannot build $MKH"; done_tests; }
fi
mnt=
cleanup() {
    tui_stop
    [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
chmod 755 "$tmp"

# ---- record: never into something that exists ----
sticky=$tmp/sticky
mkdir -m 1777 "$sticky"
runuser -u nobody -- sh -c "umask 0; : >'$sticky/planted.dbrec'; chmod 666 '$sticky/planted.dbrec'" 2>/dev/null ||
    { : >"$sticky/planted.dbrec"; chmod 666 "$sticky/planted.dbrec"; }
mkfifo -m 666 "$sticky/fifo.dbrec"
ln -s "$tmp/elsewhere.dbrec" "$sticky/link.dbrec"
for f in planted fifo link; do
    rm -f "$tmp/$f.out"
    timeout 20 "$DBTOP" -b -n 2 -i 0.5 --format json --record "$sticky/$f.dbrec" "$DBTOP_MARIADB_URI" >"$tmp/$f.out" 2>"$tmp/$f.err"
    rc=$?
    if [ "$rc" = 0 ] && [ "$(wc -l <"$tmp/$f.out")" = 2 ] && grep -qE "it exists|symbolic link" "$tmp/$f.err"; then
        ok "record into an existing $f: refused ($(grep -oE 'it exists|symbolic link' "$tmp/$f.err" | head -1)), monitoring went on"
    else
        nok "record into $f: exit $rc, $(wc -l <"$tmp/$f.out") records, $(head -c 200 "$tmp/$f.err")"
    fi
done
check "record: the planted file got nothing (0 bytes)" test ! -s "$sticky/planted.dbrec"
check "record: nothing created through the link" test ! -e "$tmp/elsewhere.dbrec"
(umask 000 && timeout 20 "$DBTOP" -b -n 1 --record "$sticky/new.dbrec" "$DBTOP_MARIADB_URI" >/dev/null 2>&1)
check "record: a new file is created 0600 under umask 000 ($(stat -c %a "$sticky/new.dbrec" 2>/dev/null))" test "$(stat -c %a "$sticky/new.dbrec" 2>/dev/null)" = 600

# ---- replay: hostile times, and signals ----
for k in huge nan back; do "$MKH" time "$tmp/$k.dbrec" "$k" || nok "mkhostile time $k"; done
# stop_after REC SIGNAL [ARGS...]: the batch replay of REC, SIGNAL 2 s in
# (past the hostile second sample); prints the seconds it took to end
# after it (99: never, killed at 5 s)
stop_after() {
    local rec=$1 sig=$2 t0
    shift 2
    "$DBTOP" --replay "$rec" -b --format json "$@" >"$tmp/stop.out" 2>&1 &
    local p=$!
    sleep 2
    ( sleep 5; kill -9 "$p" 2>/dev/null ) &
    local w=$!
    t0=$EPOCHREALTIME
    kill -"$sig" "$p" 2>/dev/null
    wait "$p" 2>/dev/null
    local rc=$?
    kill "$w" 2>/dev/null
    wait "$w" 2>/dev/null
    if [ "$rc" = 137 ]; then echo 99; else awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; fi
}
for run in "huge INT" "huge TERM" "nan INT" "nan TERM" "back INT"; do
    set -- $run
    d=$(stop_after "$tmp/$1.dbrec" "$2")
    if awk -v d="$d" 'BEGIN { exit !(d <= 1) }'; then ok "replay of the $1 time: SIG$2 ends it in $d s"; else nok "replay of the $1 time: SIG$2: $d s"; fi
done
d=$(stop_after "$tmp/back.dbrec" INT --speed 0.01)
if awk -v d="$d" 'BEGIN { exit !(d <= 1) }'; then ok "a slow replay (--speed 0.01, 100 s a sample): SIGINT ends it in $d s"; else nok "--speed 0.01: SIGINT: $d s"; fi

# ---- replay memory: bounded whatever the keys ----
"$MKH" churn "$tmp/c1.dbrec" 20 3000 && "$MKH" churn "$tmp/c3.dbrec" 60 3000 || nok "mkhostile churn"
rss() { /usr/bin/time -f '%M' "$DBTOP" --replay "$1" -b --speed 0 --format json 2>&1 >/dev/null | tail -n 1; }
r1=$(rss "$tmp/c1.dbrec") r3=$(rss "$tmp/c3.dbrec")
echo "# replay max RSS: $r1 kB for $(($(stat -c %s "$tmp/c1.dbrec") / 1048576)) MB (60,000 keys), $r3 kB for $(($(stat -c %s "$tmp/c3.dbrec") / 1048576)) MB (180,000 keys)"
if awk -v a="$r1" -v b="$r3" 'BEGIN { exit !(a > 0 && b > 0 && b <= 1.3 * a && b < 150000) }'; then
    ok "replay memory bounded: $r3 kB for 3x the keys of $r1 kB"
else
    nok "replay memory grows with the keys: $r1 kB -> $r3 kB"
fi

# ---- snapshot on a full disk ----
full=$tmp/full
mkdir -p "$full"
if mount -t tmpfs -o size=64k,mode=0700 tmpfs "$full" 2>/dev/null; then
    mnt=$full
    dd if=/dev/zero of="$full/fill" bs=4k count=64 2>/dev/null
    UP_WAIT=10 dbtop_start 120 40 --replay "$tmp/c1.dbrec" --speed 0.2 --snapshot-dir "$full"
    sleep 1
    T send-keys -t s w
    if wait_re "snapshot not written: .*No space left" 5; then ok "snapshot on a full disk: $(T capture-pane -p -t s | grep -o 'snapshot not written: .*' | sed 's/ *$//')"; else nok "snapshot on a full disk: $(screen)"; fi
    left=$(find "$full" -name 'dbtop-snapshot*' | wc -l)
    check "snapshot on a full disk: no file left ($left)" test "$left" = 0
    tui_stop
else
    ok "snapshot on a full disk # SKIP cannot mount a tmpfs (not root)"
fi
done_tests
