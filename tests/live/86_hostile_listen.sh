# Hostile clients of --listen, a local user's reach: the place for the next
# review's attacks on the endpoint. dbtop --batch --listen on MariaDB
# (interval 0.5 s):
#   deadline  one request trickling a header a second (never idle long
#             enough for an idle timeout) is cut within the total-time
#             deadline (5 s + the watch's 0.2 s)
#   trickle   32, then 200, such connections held open from 127.0.0.1:
#             scrapes from another loopback address (127.0.0.2) are answered
#             within 2 s all along (a limit per address), and the batch
#             records keep their pace (gaps against those before, same run)
# Port: DBTOP_LISTEN_PORT + 7.
. tests/lib.sh
LPORT=$((${DBTOP_LISTEN_PORT:-38150} + 7))
tmp=$(mktemp -d)
dp=
cleanup() {
    [ -n "$dp" ] && kill "$dp" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

"$DBTOP" --batch --format json -i 0.5 --count 200 --listen "127.0.0.1:$LPORT" "$DBTOP_MARIADB_URI" >"$tmp/batch.json" 2>"$tmp/err" &
dp=$!
for ((i = 0; i < 100; i++)); do
    curl -sf -m 2 --interface 127.0.0.2 "127.0.0.1:$LPORT/metrics" >/dev/null && break
    sleep 0.1
done
[ "$i" -lt 100 ] || nok "the endpoint never answered: $(head -c 300 "$tmp/err")"
sleep 1.5
t_base=$(date +%s.%N)

# trickle N SECONDS: N connections from 127.0.0.1, each sending a request
# line and then a header line every second for SECONDS; prints when each
# closed ("closed AFTER") or "open" at the end, and how many were held
cat >"$tmp/trickle.py" <<'EOF'
import socket, sys, time
port, n, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
t0 = time.time()
live = []
for i in range(n):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        s.setblocking(False)
        live.append(s)
    except Exception:
        pass
print("held", len(live), flush=True)
closed = []
k = 0
while live and time.time() - t0 < secs:
    time.sleep(1)
    k += 1
    for s in list(live):
        try:
            d = s.recv(100)
            gone = d == b""
        except BlockingIOError:
            gone = False
        except Exception:
            gone = True
        if not gone:
            try:
                s.sendall(b"X-Trickle-%d: x\r\n" % k)
            except Exception:
                gone = True
        if gone:
            closed.append(time.time() - t0)
            live.remove(s)
            s.close()
for c in closed:
    print("closed %.1f" % c)
print("open", len(live))
EOF
# scrapes SECONDS: scrape from 127.0.0.2 every 0.5 s for SECONDS; the
# slowest time (s), or "fail" when one failed
scrapes() {
    local end t worst=0 i
    end=$(awk -v s="$1" 'BEGIN { srand(); print srand() + s }')
    for ((i = 0; i < $1 * 2; i++)); do
        t=$(curl -s -o /dev/null -m 5 -w '%{http_code} %{time_total}' --interface 127.0.0.2 "127.0.0.1:$LPORT/metrics")
        case $t in 200\ *) worst=$(awk -v a="$worst" -v b="${t#* }" 'BEGIN { print (b > a ? b : a) }') ;; *) echo "fail ($t)"; return ;; esac
        sleep 0.5
    done
    echo "$worst"
}

# deadline: one trickling request
python3 "$tmp/trickle.py" "$LPORT" 1 12 >"$tmp/one.log" 2>&1
c=$(sed -n 's/^closed //p' "$tmp/one.log" | head -n 1)
if [ -n "$c" ] && awk -v c="$c" 'BEGIN { exit !(c <= 7) }'; then ok "deadline: a request trickling a header a second is cut after ${c} s (deadline 5 s)"; else nok "deadline: the trickling request was not cut in 12 s: $(tr '\n' ' ' <"$tmp/one.log")"; fi

for n in 32 200; do
    t_start=$(date +%s.%N)
    python3 "$tmp/trickle.py" "$LPORT" "$n" 7 >"$tmp/t$n.log" 2>&1 &
    tp=$!
    sleep 1
    w=$(scrapes 5)
    wait "$tp"
    t_end=$(date +%s.%N)
    echo "# trickle $n: $(tr '\n' ' ' <"$tmp/t$n.log" | head -c 300); slowest scrape from 127.0.0.2: $w s"
    if [ "$w" != "${w#fail}" ] || ! awk -v w="$w" 'BEGIN { exit !(w <= 2) }'; then nok "trickle $n: a scrape from 127.0.0.2 took $w (limit 2 s)"; else ok "trickle $n: 10 scrapes from 127.0.0.2 answered, the slowest in $w s"; fi
    echo "$t_start $t_end" >>"$tmp/windows"
done

kill "$dp" 2>/dev/null
wait "$dp" 2>/dev/null
dp=
# sampling pace: the largest gap between records during the attacks against
# the largest before them
read -r base att < <(jq -rs --argjson b "$t_base" --slurpfile w <(awk '{ print "[" $1 "," $2 "]" }' "$tmp/windows") '
    [.[].ts] as $ts | [range(1; $ts | length) | {t: $ts[.], g: ($ts[.] - $ts[. - 1])}] as $gaps |
    ([$gaps[] | select(.t <= $b) | .g] | max) as $base |
    ([$gaps[] | . as $x | select(any($w[]; $x.t >= .[0] and $x.t <= .[1] + 0.5)) | .g] | max) as $att |
    "\($base) \($att)"' "$tmp/batch.json")
echo "# largest gap between records: $base s before, $att s during the attacks (interval 0.5 s)"
if [ "$base" != null ] && [ "$att" != null ] && awk -v a="$att" -v b="$base" 'BEGIN { exit !(a <= 2 * b + 0.5) }'; then
    ok "sampling pace unchanged under the trickle ($att s largest gap, $base s before)"
else
    nok "sampling gaps under the trickle: $att s, before $base s"
fi
done_tests
