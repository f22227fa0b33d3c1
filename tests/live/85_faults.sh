# Faults while dbtop runs, with figures: each check prints what it measured.
#   1 a frozen server (SIGSTOP, 30 s) under the screen: key latency, STALLED,
#     back UP after SIGCONT with no rate spike (a parallel batch run)
#   2 a server restart: DOWN with a countdown, reconnect time, history kept
#   3 connections exhausted (a per-user / per-role limit): at start and when
#     reconnecting, a clear reason, no crash
#   4 the monitoring user losing privileges, then dropped: the records say
#     why, the JSON stays valid, and it recovers once the grants are back
#   5 the database dbtop is connected to dropped
#   6 a network partition to a PostgreSQL in its own network namespace (run
#     beside 2-5: nothing of it is on the sandbox's servers)
#   7 a full disk while recording, on the screen and in batch
# MariaDB and PostgreSQL 15 of tests/sandbox.sh (6: a throwaway server).
# Every background process is bounded in count and time and ended by PID;
# every user, database, namespace and mount made here goes in the EXIT trap.
. tests/lib.sh
tmp=$(mktemp -d /tmp/dbtop-faults.XXXXXX)
sock=faults-$$
T() { tmux -L "$sock" -f /dev/null "$@"; }
export LANG=C.UTF-8 TZ=UTC
M=$DBTOP_MARIADB_CLIENT
P="$DBTOP_PG15_PSQL -q"
NS=dbtopf$$ VA=dbtfa$$ VB=dbtfb$$ NSD=
mounts=()
bgpids=()

cleanup() {
    local f
    for f in "$tmp"/stopped.*; do [ -e "$f" ] && kill -CONT $(cat "$f") 2>/dev/null; done
    T kill-server 2>/dev/null
    for f in "$tmp"/bg.*; do [ -e "$f" ] && kill $(cat "$f") 2>/dev/null; done
    [ ${#bgpids[@]} -gt 0 ] && kill "${bgpids[@]}" 2>/dev/null
    wait 2>/dev/null
    $M -e "DROP USER IF EXISTS flt_lim@'%', flt_mon@'%'; DROP DATABASE IF EXISTS flt_scratch;
        DROP TABLE IF EXISTS dbtop_test.flt_load" >/dev/null 2>&1
    $P -c "DROP TABLE IF EXISTS flt_load" -c "DROP DATABASE IF EXISTS flt_scratch WITH (FORCE)" \
        -c "DROP ROLE IF EXISTS flt_lim" -c "DROP ROLE IF EXISTS flt_mon" >/dev/null 2>&1
    if [ -n "$NSD" ] && [ -f "$NSD/data/postmaster.pid" ]; then
        kill -QUIT "$(head -1 "$NSD/data/postmaster.pid")" 2>/dev/null
        sleep 0.5
    fi
    ip link del "$VA" 2>/dev/null
    ip netns del "$NS" 2>/dev/null
    for f in "${mounts[@]}"; do umount "$f" 2>/dev/null || umount -l "$f" 2>/dev/null; done
    [ -n "$NSD" ] && rm -rf "$NSD"
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- helpers ---------------------------------------------------------------

# a pipe nobody writes to: read -t on it sleeps without a fork
exec {slp}<> <(:)
nap() { read -r -t "$1" -u "$slp" _; }
now_us() { echo "${EPOCHREALTIME/./}"; }
# us2ms MICROSECONDS -> "12.3"
us2ms() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }
# secs_since MICROSECONDS -> "3.2"
secs_since() { local d=$(($(now_us) - $1)); printf '%d.%d' $((d / 1000000)) $((d % 1000000 / 100000)); }
bg() { echo "$1" >"$tmp/bg.$2"; }
unbg() { kill "$(cat "$tmp/bg.$1" 2>/dev/null)" 2>/dev/null; rm -f "$tmp/bg.$1"; }
upper() { tr a-z A-Z <<<"$1"; }
uri_of() { local v="DBTOP_$(upper "$1")_$2"; echo "${!v}"; }

# wait_scr SESSION ERE SECONDS: poll the screen (every 50 ms) until a line matches
wait_scr() {
    local end=$(($(now_us) + $3 * 1000000))
    while (($(now_us) < end)); do
        T capture-pane -p -t "$1" 2>/dev/null | grep -qE -- "$2" && return 0
        nap 0.05
    done
    return 1
}
scr() { T capture-pane -p -t "$1" 2>/dev/null | grep -v '^ *$' | head -c 1500 | tr '\n' '|'; }
# wait_json FILE JQ-COND SECONDS: poll until the JSON lines satisfy JQ-COND (-s)
wait_json() {
    local end=$(($(now_us) + $3 * 1000000))
    while (($(now_us) < end)); do
        jq -se "$2" "$1" >/dev/null 2>&1 && return 0
        nap 0.1
    done
    return 1
}
# the header's clock (the newest sample's time)
hdr_clock() { T capture-pane -p -t "$1" | head -1 | grep -Eo '[0-9]{2}:[0-9]{2}:[0-9]{2} *$' | tr -d ' '; }
is_ov() { grep -q '\[2\] statement digests' <<<"$1"; }
# key_latency SESSION: toggle overview <-> rates (keys 0 / 1) and poll the
# screen every ~5 ms until the change shows. Sets KL (ms, or "timeout")
# and KSCR (the screen then).
key_latency() {
    local s=$1 k t0 t1 cur
    cur=$(T capture-pane -p -t "$s")
    if is_ov "$cur"; then k=1; else k=0; fi
    t0=$(now_us)
    T send-keys -t "$s" "$k"
    while :; do
        cur=$(T capture-pane -p -t "$s")
        t1=$(now_us)
        if [ "$k" = 1 ]; then is_ov "$cur" || break; else is_ov "$cur" && break; fi
        if ((t1 - t0 > 3000000)); then KL=timeout KSCR=$cur; return; fi
        nap 0.005
    done
    KL=$(us2ms $((t1 - t0)))
    KSCR=$cur
}
# watch_keys SESSION SECONDS OUT: for SECONDS, one key about every second
# (latency to OUT.lat) and the screen's first lines every 0.1 s (OUT.hdr)
watch_keys() {
    local s=$1 end=$(($(now_us) + $2 * 1000000)) next=0 now
    while now=$(now_us); ((now < end)); do
        if ((now >= next)); then
            key_latency "$s"
            echo "$KL" >>"$3.lat"
            head -n 3 <<<"$KSCR" >>"$3.hdr"
            next=$((now + 1000000))
        else
            T capture-pane -p -t "$s" | head -n 3 >>"$3.hdr"
            nap 0.1
        fi
    done
}
# latency_stats FILE -> "N MAX MEDIAN TIMEOUTS"
latency_stats() {
    grep -c timeout "$1" | tr '\n' ' '
    grep -v timeout "$1" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print 0, "-", "-"; exit }
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print NR, v[NR], m }'
}
# check_keys LABEL FILE BASEFILE: >= 10 keys, none lost; no key as slow as
# the 1 s query time-out plus the screen's own time (the healthy median: a
# screen that waited on the server would take at least that; beside
# stress-ng and a test run a healthy key took 500 ms); the median within 2x (+25 ms) of the same screen's median
# while the server was healthy, measured in the same run (BASEFILE), so a
# busy machine moves both sides
check_keys() {
    local to n mx md bto bn bmx bmd lim mlim
    read -r to n mx md < <(latency_stats "$2")
    read -r bto bn bmx bmd < <(latency_stats "$3")
    if [ "$bn" -lt 3 ]; then
        nok "$1: no baseline (healthy server): $bn keys answered, $bto not"
        return
    fi
    lim=$(awk -v b="$bmd" 'BEGIN { printf "%.1f", 2 * b + 25 }')
    mlim=$(awk -v b="$bmd" 'BEGIN { printf "%.1f", 1000 + b }')
    if [ "$to" = 0 ] && [ "$n" -ge 10 ] && awk -v m="$mx" -v d="$md" -v l="$lim" -v ml="$mlim" 'BEGIN { exit !(m < ml && d <= l) }'; then
        ok "$1: max key latency $mx ms, median $md ms over $n keys (healthy server, same run: median $bmd ms, max $bmx ms over $bn keys; limits: max < $mlim ms, median <= $lim ms)"
    else
        nok "$1: max key latency $mx ms, median $md ms over $n keys, $to keys not answered within 3 s (healthy server, same run: median $bmd ms, max $bmx ms over $bn keys; limits: max < $mlim ms, median <= $lim ms)"
    fi
}
# a dbtop screen in tmux session $1 (160x45) with the rest as arguments
screen_start() {
    local s=$1 a q=
    shift
    for a in "$@"; do q="$q '$a'"; done
    T new-session -d -s "$s" -x 160 -y 45 "$DBTOP $q 2>$tmp/$s.stderr; echo EXITED \$?; sleep 120"
}
# load_start NAME SECONDS: paced commits, one INSERT then a 40 ms sleep on
# the server, so a frozen server delays it and it never catches up in a
# burst; at most 20 statements per second of SECONDS, killed at SECONDS + 5
load_start() {
    local n=$(($2 * 20)) i
    if [ "$1" = mariadb ]; then
        $M -e "CREATE TABLE IF NOT EXISTS flt_load (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=InnoDB"
        for ((i = 0; i < n; i++)); do echo "INSERT INTO flt_load (v) VALUES ($i); DO SLEEP(0.04);"; done >"$tmp/load.$1.sql"
        timeout -k 2 $(($2 + 5)) $M <"$tmp/load.$1.sql" >/dev/null 2>&1 &
    else
        $P -c "CREATE TABLE IF NOT EXISTS flt_load (id bigserial PRIMARY KEY, v int)" >/dev/null 2>&1
        for ((i = 0; i < n; i++)); do echo "INSERT INTO flt_load (v) VALUES ($i); SELECT pg_sleep(0.04);"; done >"$tmp/load.$1.sql"
        timeout -k 2 $(($2 + 5)) $P -o /dev/null <"$tmp/load.$1.sql" >/dev/null 2>&1 &
    fi
    bg $! "load.$1"
}
# server_pids NAME: the server's main process and its children (dbtop's backends too)
server_pids() {
    local main
    main=$(tests/sandbox.sh pid "$1") || return 1
    echo "$main" $(pgrep -P "$main")
}
# accepting NAME: the server answers a TCP connection (as dbtop makes them)
accepting() {
    if [ "$1" = mariadb ]; then
        mariadb-admin --no-defaults -h 127.0.0.1 -P "$DBTOP_MARIADB_PORT" -u dbtop_mon -pmonpw \
            --connect-timeout=1 ping >/dev/null 2>&1
    else
        pg_isready -q -t 1 -h 127.0.0.1 -p "$DBTOP_PG15_PORT"
    fi
}
# a batch dbtop ended by SIGTERM exits 0 (or 143 if the signal came before its handler)
exit_ok() { [ "$1" = 0 ] || [ "$1" = 143 ]; }
# counted_down "VALUES": a DOWN countdown value followed by a smaller one
counted_down() { awk -v d="$1" 'BEGIN { n = split(d, a, " "); for (i = 2; i <= n; i++) if (a[i] + 0 < a[i - 1] + 0) exit 0; exit 1 }'; }

# ---- 1: frozen server under the screen --------------------------------------

freeze() {
    local name=$1 uri s=frz-$1 j=$tmp/frz.$1.json t0 tc pids rec tup res
    uri=$(uri_of "$name" URI)
    load_start "$name" 75
    "$DBTOP" --batch --count 80 --interval 1 --query-timeout 1 --connect-timeout 2 --format json \
        "$uri" >"$j" 2>"$tmp/frz.$1.err" &
    bg $! "frzb.$1"
    screen_start "$s" --interval 1 --query-timeout 1 --connect-timeout 2 "$uri"
    if ! wait_scr "$s" ' UP ' 10 || ! wait_json "$j" '[.[] | select(.state == "up" and (.rates.commits_per_s // 0) > 1)] | length >= 4' 15; then
        nok "$name frozen: no steady load before the freeze: $(scr "$s"); $(tail -c 300 "$j")"
        return
    fi
    watch_keys "$s" 6 "$tmp/base.$name"
    pids=$(server_pids "$name") || { nok "$name frozen: no server pid"; return; }
    echo "$pids" >"$tmp/stopped.$name"
    t0=$(now_us)
    kill -STOP $pids
    watch_keys "$s" 30 "$tmp/frz.$name"
    kill -CONT $pids
    tc=$(now_us)
    rm -f "$tmp/stopped.$name"
    check_keys "$name frozen 30 s" "$tmp/frz.$name.lat" "$tmp/base.$name.lat"
    local stl
    stl=$(grep -Eo 'STALLED: query exceeded [0-9.]+s' "$tmp/frz.$name.hdr" | head -1)
    if [ -n "$stl" ]; then
        ok "$name frozen: the header showed '$stl' ($(grep -c 'dbtop STALLED' "$tmp/frz.$name.hdr") looks), then $(grep -Eo 'dbtop DOWN - retrying in [0-9]+s' "$tmp/frz.$name.hdr" | sort -u | wc -l) distinct 'DOWN - retrying in Ns'"
    else
        nok "$name frozen: the header never showed 'STALLED: query exceeded': $(sort "$tmp/frz.$name.hdr" | uniq -c | sort -rn | head -5 | tr '\n' '|')"
    fi
    grep -Eq '^(STALLED|DOWN): .*(time limit|timeout|timed out|system error: 110)' "$tmp/frz.$name.hdr" &&
        ok "$name frozen: the reason line names the time-out: $(grep -Eo '^(STALLED|DOWN): .*(time limit|timeout|timed out|system error: 110)[^|]{0,20}' "$tmp/frz.$name.hdr" | sort | uniq -c | sort -rn | head -2 | sed 's/^ *//' | tr '\n' ';')" ||
        nok "$name frozen: no reason line naming the time-out: $(grep -E '^(STALLED|DOWN)' "$tmp/frz.$name.hdr" | sort -u | head -3 | tr '\n' '|')"
    if wait_scr "$s" ' dbtop UP ' 40; then
        tup=$(secs_since "$tc")
        ok "$name frozen: back UP on the screen ${tup}s after SIGCONT"
    else
        nok "$name frozen: not UP 40 s after SIGCONT: $(scr "$s")"
    fi
    # a few records after the reconnection for the spike check
    local tcs t0s
    tcs=$(awk -v t="$tc" 'BEGIN { printf "%.3f", t / 1e6 }')
    t0s=$(awk -v t="$t0" 'BEGIN { printf "%.3f", t / 1e6 }')
    wait_json "$j" "[.[] | select(.ts > $tcs and .state == \"up\")] | length >= 4" 15
    unbg "frzb.$name"
    unbg "load.$name"
    check "$name frozen: the screen's dbtop is still running" test -z "$(T capture-pane -p -t "$s" | grep EXITED)"
    T kill-session -t "$s" 2>/dev/null
    check "$name frozen: batch JSON valid throughout ($(wc -l <"$j") records)" jq -se 'length > 10' "$j"
    res=$(jq -sr --argjson t0 "$t0s" --argjson tc "$tcs" '
        def steady(k): [.[] | select(.ts < $t0 and .state == "up") | .rates[k] | select(. != null)] | .[-4:] | add / length;
        def after(k): [.[] | select(.ts > $tc and .state == "up") | .rates[k] | select(. != null)] | max;
        ([.[] | select(.ts > $tc and .state == "up")][0].rates.commits_per_s) as $first |
        [steady("commits_per_s"), after("commits_per_s"), steady("fsyncs_per_s"), after("fsyncs_per_s"), $first,
         ([.[] | select(.ts > $t0 and .ts < $tc) | .state] | group_by(.) | map("\(.[0])x\(length)") | join(","))]
        | map(if type == "number" then (. * 10 | round / 10) else . end) | map(tostring) | join(" ")' "$j")
    local sc ac sf af first states
    read -r sc ac sf af first states <<<"$res"
    echo "# $name frozen: batch records during the freeze: $states"
    if awk -v s="$sc" -v a="$ac" -v S="$sf" -v A="$af" 'BEGIN { exit !(s > 0 && a != "null" && a + 0 <= 3 * s && (A == "null" || A + 0 <= 3 * S)) }'; then
        ok "$name after SIGCONT: no spike: commits/s at most $ac (steady $sc before), fsyncs/s at most $af (steady $sf); first interval after: $first"
    else
        nok "$name after SIGCONT: commits/s up to $ac (steady $sc), fsyncs/s up to $af (steady $sf): over 3x or no data"
    fi
    if [ "$first" = null ] || awk -v f="$first" -v s="$sc" 'BEGIN { exit !(f + 0 <= 3 * s) }'; then
        ok "$name after SIGCONT: the first interval after is $first (null or normal)"
    else
        nok "$name after SIGCONT: the first interval after is $first"
    fi
}

# both servers frozen at once (each with its own screen, batch run and load)
freeze mariadb >"$tmp/part.frz.mariadb" 2>&1 &
fp1=$!
nap 0.7
freeze pg15 >"$tmp/part.frz.pg15" 2>&1 &
fp2=$!
wait $fp1 $fp2
merge_part "$tmp/part.frz.mariadb"
merge_part "$tmp/part.frz.pg15"

# ---- 6: network partition (PostgreSQL in its own network namespace) --------

partition() {
    local net=10.231.$((RANDOM % 200 + 20)) bin=${DBTOP_PG15_BIN:-/usr/lib/postgresql/15/bin} s=net j=$tmp/net.json uri tc tl
    if ! ip netns add "$NS" 2>"$tmp/ns.err"; then
        ok "network partition # SKIP ip netns add failed: $(head -c 200 "$tmp/ns.err" | tr '\n' ' ')"
        return
    fi
    ip link add "$VA" type veth peer name "$VB" &&
        ip link set "$VB" netns "$NS" &&
        ip addr add "$net.1/24" dev "$VA" && ip link set "$VA" up &&
        ip netns exec "$NS" ip addr add "$net.2/24" dev "$VB" &&
        ip netns exec "$NS" ip link set "$VB" up &&
        ip netns exec "$NS" ip link set lo up || { nok "network partition: veth set-up failed"; return; }
    chown postgres: "$NSD"
    chmod 755 "$NSD"
    if ! runuser -u postgres -- "$bin/initdb" -D "$NSD/data" -U postgres --auth-local=trust --auth-host=trust \
        -N -E UTF8 --locale=C >"$NSD/initdb.log" 2>&1; then
        nok "network partition: initdb failed: $(tail -3 "$NSD/initdb.log")"
        return
    fi
    echo "host all all $net.0/24 trust" >>"$NSD/data/pg_hba.conf"
    if ! ip netns exec "$NS" runuser -u postgres -- "$bin/pg_ctl" -D "$NSD/data" -l "$NSD/server.log" -w -t 30 \
        -o "-c listen_addresses=$net.2 -c port=5432 -k $NSD -c shared_buffers=16MB -c max_connections=20 -c fsync=off" \
        start >/dev/null 2>&1; then
        nok "network partition: the namespace's server did not start: $(tail -3 "$NSD/server.log")"
        return
    fi
    uri="postgresql://postgres@$net.2:5432/postgres"
    "$DBTOP" --batch --count 120 --interval 0.5 --query-timeout 1 --connect-timeout 2 --format json "$uri" >"$j" 2>/dev/null &
    bg $! netb
    screen_start "$s" --interval 0.5 --query-timeout 1 --connect-timeout 2 "$uri"
    if ! wait_scr "$s" ' UP ' 10; then
        nok "network partition: the screen did not come up on $net.2: $(scr "$s")"
        return
    fi
    ok "network partition: dbtop UP on $net.2:5432 in namespace $NS over veth"
    watch_keys "$s" 6 "$tmp/netbase"
    ip netns exec "$NS" ip link set "$VB" down
    tc=$(now_us)
    watch_keys "$s" 20 "$tmp/net"
    ip netns exec "$NS" ip link set "$VB" up
    tl=$(now_us)
    check_keys "network partition 20 s" "$tmp/net.lat" "$tmp/netbase.lat"
    local st
    st=$(grep -Eo '^(STALLED|DOWN): [^|]*' "$tmp/net.hdr" | sed 's/retrying in [0-9]*s/retrying in Ns/' | sort | uniq -c | sort -rn | head -3 | sed 's/^ *//' | tr '\n' ';')
    if grep -Eq 'dbtop (STALLED|DOWN)' "$tmp/net.hdr" && grep -Eq '^(STALLED|DOWN): .*(time limit|timeout|timed out)' "$tmp/net.hdr"; then
        ok "network partition: the screen says why: $(grep -Eo 'dbtop (STALLED: query exceeded [0-9.]+s|DOWN)' "$tmp/net.hdr" | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')- $st"
    else
        nok "network partition: no STALLED/DOWN with a time-out reason: $(sort -u "$tmp/net.hdr" | head -5 | tr '\n' '|')"
    fi
    if wait_scr "$s" ' dbtop UP ' 40; then
        ok "network partition: UP again $(secs_since "$tl")s after the link came back"
    else
        nok "network partition: not UP 40 s after the link came back: $(scr "$s")"
    fi
    local tcs tls
    tcs=$(awk -v t="$tc" 'BEGIN { printf "%.3f", t / 1e6 }')
    tls=$(awk -v t="$tl" 'BEGIN { printf "%.3f", t / 1e6 }')
    wait_json "$j" "[.[] | select(.ts > $tls and .state == \"up\")] | length >= 2" 10
    unbg netb
    echo "# partition batch states: $(jq -sr --argjson a "$tcs" --argjson b "$tls" '[.[] | select(.ts > $a and .ts < $b) | .state] | group_by(.) | map("\(.[0])x\(length)") | join(",")' "$j"); reasons: $(jq -sr --argjson a "$tcs" '[.[] | select(.ts > $a and .state != "up") | .notes[0] | sub("retrying in [0-9]+s"; "retrying in Ns")] | unique | join(" / ")' "$j" | head -c 400)"
    check "network partition: batch records stalled/down during the cut, up after, JSON valid" \
        jq -se --argjson a "$tcs" --argjson b "$tls" 'any(.[]; .ts > $a and .ts < $b and .state != "up") and .[-1].state == "up" and all(.[]; .schema == 1)' "$j"
    check "network partition: the screen's dbtop is still running" test -z "$(T capture-pane -p -t "$s" | grep EXITED)"
    T kill-session -t "$s" 2>/dev/null
}
# 6 runs beside 2-5: its server is its own, in its own namespace; its
# directory is made here, for the cleanup of this shell
NSD=$(mktemp -d /tmp/dbtop-faults-ns.XXXXXX)
partition >"$tmp/part.net" 2>&1 &
np=$!

# ---- 2: restart -------------------------------------------------------------

for name in mariadb pg15; do
    uri=$(uri_of "$name" URI)
    s=rst-$name j=$tmp/rst.$name.json
    load_start "$name" 4
    "$DBTOP" --batch --count 100 --interval 0.5 --connect-timeout 2 --format json "$uri" >"$j" 2>/dev/null &
    bg $! rstb
    screen_start "$s" --interval 0.5 --connect-timeout 2 "$uri"
    wait_scr "$s" ' UP ' 10 && T send-keys -t "$s" 1
    # the load ends before the restart: a max above 0 afterwards is history
    wait_json "$j" '[.[] | select((.rates.commits_per_s // 0) > 1)] | length >= 3' 10
    unbg "load.$name"
    wait_scr "$s" '^commits/s ' 3
    before=$(T capture-pane -p -t "$s" | grep '^commits/s ' | head -1)
    # killed: every process of the server; restarted (tests/sandbox.sh restart)
    # once the header has counted down a retry of 2 s or more, or after 10 s
    pids=$(server_pids "$name")
    kill -KILL $pids
    t0=$(now_us)
    tsrv= tui= downs= rp=
    end=$((t0 + 45000000))
    seen_down=0 refused=0
    while (($(now_us) < end)); do
        h=$(T capture-pane -p -t "$s" | head -1)
        if [[ $h =~ DOWN\ -\ retrying\ in\ ([0-9]+)s ]]; then
            seen_down=1
            [ "${downs##* }" = "${BASH_REMATCH[1]}" ] || downs="$downs ${BASH_REMATCH[1]}"
        fi
        if [ -z "$rp" ] && { counted_down "$downs" || (($(now_us) - t0 > 10000000)); }; then
            tests/sandbox.sh restart "$name" >"$tmp/rst.$name.log" 2>&1 &
            rp=$!
            bg $rp rst
            trs=$(now_us)
        fi
        if [ -n "$rp" ] && [ -z "$tsrv" ]; then
            if accepting "$name"; then
                [ "$refused" = 1 ] && tsrv=$(now_us)
            else
                refused=1
            fi
        fi
        [ -n "$rp" ] && [ -z "$tui" ] && [[ $h == *" dbtop UP "* ]] && tui=$(now_us)
        [ -n "$tsrv" ] && [ -n "$tui" ] && break
        nap 0.05
    done
    wait "$rp"
    rrc=$?
    rm -f "$tmp/bg.rst"
    check "$name restart: sandbox restart succeeded (exit $rrc)" test "$rrc" = 0
    # a countdown: within the DOWN values seen, one followed by a smaller one
    if [ "$seen_down" = 1 ] && counted_down "$downs"; then
        ok "$name restart: the header showed 'DOWN - retrying in Ns' counting down:$downs"
    else
        nok "$name restart: no DOWN countdown on the header (values seen:${downs:- none})"
    fi
    if [ -n "$tsrv" ] && [ -n "$tui" ]; then
        d=$((tui - tsrv))
        ((d < 0)) && d=0
        if ((d < 8000000)); then
            ok "$name restart: reconnected $(us2ms $d) ms after the server accepted connections again (killed, restarted $(us2ms $((trs - t0))) ms later, server up $(us2ms $((tsrv - trs))) ms after that)"
        else
            nok "$name restart: reconnected only $(us2ms $d) ms after the server was back"
        fi
    else
        nok "$name restart: server back: ${tsrv:-never}, screen UP: ${tui:-never}: $(scr "$s")"
    fi
    nap 1.2
    after=$(T capture-pane -p -t "$s" | grep '^commits/s ' | head -1)
    echo "# $name before: $before"
    echo "# $name after:  $after"
    # the sparkline cells and the max from before the restart are still there
    bmx=$(awk '{ print $(NF - 1) }' <<<"$before")
    mx=$(awk '{ print $(NF - 1) }' <<<"$after")
    # (cells are counted, not compared glyph by glyph: a larger rate after
    # the restart rescales every cell drawn before it)
    bsp=$(grep -o '[▁▂▃▄▅▆▇█]' <<<"$before" | wc -l)
    asp=$(grep -o '[▁▂▃▄▅▆▇█]' <<<"$after" | wc -l)
    if ((bsp > 0 && asp >= bsp)) && awk -v m="$mx" -v b="$bmx" 'BEGIN { exit !(m + 0 > 1 && m + 0 >= b + 0) }'; then
        ok "$name restart: history kept on the screen: commits/s max $mx (before: $bmx), $asp sparkline cells (before: $bsp)"
    else
        nok "$name restart: history lost: commits/s line after the restart: $after"
    fi
    wait_json "$j" '.[-1].state == "up" and ([.[].state] | index("down")) != null and ([.[].state] | rindex("up")) > ([.[].state] | index("down"))' 10
    unbg rstb
    check "$name restart: one batch run holds records before ($(jq -s '[.[] | select(.state == "up")] | length' "$j") up), during ($(jq -s '[.[] | select(.state == "down")] | length' "$j") down) and after" \
        jq -se '.[0].state == "up" and any(.[]; .state == "down") and ([.[].state] | rindex("up")) > ([.[].state] | index("down"))' "$j"
    check "$name restart: the screen's dbtop is still running" test -z "$(T capture-pane -p -t "$s" | grep EXITED)"
    T kill-session -t "$s" 2>/dev/null
done

# ---- 3: connections exhausted ----------------------------------------------

for name in mariadb pg15; do
    j=$tmp/lim.$name.json
    if [ "$name" = mariadb ]; then
        $M -e "DROP USER IF EXISTS flt_lim@'%'; CREATE USER flt_lim@'%' IDENTIFIED BY 'limpw';
            GRANT PROCESS ON *.* TO flt_lim@'%'; GRANT SELECT ON performance_schema.* TO flt_lim@'%';
            GRANT SELECT ON dbtop_test.* TO flt_lim@'%'"
        uri="mysql://flt_lim:limpw@127.0.0.1:$DBTOP_MARIADB_PORT/dbtop_test"
        hold() { timeout -k 1 12 mariadb --no-defaults -h 127.0.0.1 -P "$DBTOP_MARIADB_PORT" -u flt_lim -plimpw -e "SELECT SLEEP(10)" >/dev/null 2>&1; }
        held() { [ "$($M -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'flt_lim' AND INFO LIKE 'SELECT SLEEP%'")" = 1 ]; }
        limit() { $M -e "ALTER USER flt_lim@'%' WITH MAX_USER_CONNECTIONS $1"; }
        unlimit() { limit 0; }
        kill_dbtop() { $M -N -e "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'flt_lim' AND COALESCE(INFO, '') NOT LIKE 'SELECT SLEEP%'" | while read -r id; do $M -e "KILL $id"; done; }
        kill_holder() { $M -N -e "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'flt_lim' AND INFO LIKE 'SELECT SLEEP%'" | while read -r id; do $M -e "KILL $id"; done; }
        word='max_user_connections'
    else
        $P -c "DROP ROLE IF EXISTS flt_lim" -c "CREATE ROLE flt_lim LOGIN PASSWORD 'limpw'" -c "GRANT pg_monitor TO flt_lim" 2>/dev/null
        uri="postgresql://flt_lim:limpw@127.0.0.1:$DBTOP_PG15_PORT/dbtop_test"
        hold() { PGPASSWORD=limpw timeout -k 1 12 psql -X -h 127.0.0.1 -p "$DBTOP_PG15_PORT" -U flt_lim -d dbtop_test -c "SELECT pg_sleep(10)" >/dev/null 2>&1; }
        held() { [ "$($P -At -c "SELECT count(*) FROM pg_stat_activity WHERE usename = 'flt_lim' AND query LIKE 'SELECT pg_sleep%'")" = 1 ]; }
        limit() { $P -c "ALTER ROLE flt_lim CONNECTION LIMIT $1"; }
        unlimit() { limit -1; }
        kill_dbtop() { $P -At -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'flt_lim' AND application_name = 'dbtop'" >/dev/null; }
        kill_holder() { $P -At -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'flt_lim' AND query LIKE 'SELECT pg_sleep%'" >/dev/null; }
        word='too many connections for role'
    fi
    "$DBTOP" --batch --count 30 --interval 0.5 --connect-timeout 2 --format json "$uri" >"$j" 2>"$tmp/lim.$name.err" &
    dp=$!
    bg $dp limb
    wait_json "$j" 'length >= 2 and .[-1].state == "up"' 10
    # MariaDB counts a user's connections from when a limit exists: set it before the holder comes
    [ "$name" = mariadb ] && limit 1
    hold &
    hp=$!
    bg $hp hold
    for ((i = 0; i < 40; i++)); do held && break; nap 0.05; done
    [ "$name" = pg15 ] && limit 1
    t0=$(now_us)
    "$DBTOP" --batch --count 1 --connect-timeout 2 --format json "$uri" >"$tmp/lim.$name.start" 2>&1
    rc=$?
    msg=$(head -c 300 "$tmp/lim.$name.start")
    if [ "$rc" = 1 ] && grep -q "$word" "$tmp/lim.$name.start"; then
        ok "$name connections exhausted: dbtop started then exits 1 in $(secs_since "$t0")s: $msg"
    else
        nok "$name connections exhausted: dbtop started then: exit $rc: $msg"
    fi
    kill_dbtop
    if wait_json "$j" "any(.[]; .state == \"down\" and any(.notes[]; test(\"$word\")))" 8; then
        ok "$name connections exhausted: reconnecting dbtop says why: $(jq -sr "[.[] | select(.state == \"down\") | .notes[0] | select(test(\"$word\"))][0]" "$j" | head -c 200)"
    else
        nok "$name connections exhausted: no down record naming '$word': $(jq -sc '[.[] | [.state, .notes[0]]] | .[-3:]' "$j" | head -c 400)"
    fi
    kill_holder
    kill "$hp" 2>/dev/null
    wait "$hp" 2>/dev/null
    rm -f "$tmp/bg.hold"
    unlimit >/dev/null
    t0=$(now_us)
    if wait_json "$j" '([.[].state] | rindex("down")) as $d | $d != null and ([.[].state] | rindex("up")) > $d' 10; then
        ok "$name connections exhausted: up again once a slot is free (within $(secs_since "$t0")s)"
    else
        nok "$name connections exhausted: not up again: $(jq -sc '[.[] | .state] | .[-5:]' "$j")"
    fi
    kill "$dp" 2>/dev/null
    wait "$dp"
    rc=$?
    rm -f "$tmp/bg.limb"
    if exit_ok "$rc" && jq -se 'length > 3' "$j" >/dev/null; then
        ok "$name connections exhausted: no crash (exit $rc after SIGTERM), $(wc -l <"$j") valid JSON records"
    else
        nok "$name connections exhausted: exit $rc or invalid JSON"
    fi
done

# ---- 4: privileges revoked, user dropped -----------------------------------

for name in mariadb pg15; do
    j=$tmp/usr.$name.json
    if [ "$name" = mariadb ]; then
        mkuser() {
            $M -e "CREATE USER flt_mon@'%' IDENTIFIED BY 'fltpw'; GRANT PROCESS ON *.* TO flt_mon@'%';
                GRANT SELECT ON performance_schema.* TO flt_mon@'%'; GRANT SELECT ON dbtop_test.* TO flt_mon@'%'"
        }
        $M -e "DROP USER IF EXISTS flt_mon@'%'"
        uri="mysql://flt_mon:fltpw@127.0.0.1:$DBTOP_MARIADB_PORT/dbtop_test"
        revoke() { $M -e "REVOKE SELECT ON performance_schema.* FROM flt_mon@'%'; REVOKE PROCESS ON *.* FROM flt_mon@'%'"; }
        regrant() { $M -e "GRANT PROCESS ON *.* TO flt_mon@'%'; GRANT SELECT ON performance_schema.* TO flt_mon@'%'"; }
        dropuser() {
            $M -e "DROP USER flt_mon@'%'"
            $M -N -e "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'flt_mon'" | while read -r id; do $M -e "KILL $id"; done
        }
        why='PROCESS privilege missing|not readable|denied'
        gone='Access denied'
    else
        mkuser() { $P -c "CREATE ROLE flt_mon LOGIN PASSWORD 'fltpw'" -c "GRANT pg_monitor TO flt_mon"; }
        $P -c "DROP ROLE IF EXISTS flt_mon" 2>/dev/null
        uri="postgresql://flt_mon:fltpw@127.0.0.1:$DBTOP_PG15_PORT/dbtop_test"
        revoke() { $P -c "REVOKE pg_monitor FROM flt_mon"; }
        regrant() { $P -c "GRANT pg_monitor TO flt_mon"; }
        dropuser() {
            # dbtop's backend, found while the role still has a name
            local bp
            bp=$($P -At -c "SELECT string_agg(pid::text, ',') FROM pg_stat_activity WHERE usename = 'flt_mon'")
            if $P -c "DROP ROLE flt_mon" 2>"$tmp/usr.drop.err"; then
                echo "# pg15: DROP ROLE of the connected role allowed (it owns nothing); ending its session $bp"
                $P -At -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid IN (${bp:-0})" >/dev/null
            else
                echo "# pg15: DROP ROLE refused while connected: $(head -c 200 "$tmp/usr.drop.err"); ending the session first"
                $P -At -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid IN (${bp:-0})" -c "DROP ROLE flt_mon" >/dev/null
            fi
        }
        why='lacks pg_monitor|permission denied|privileges of'
        gone='does not exist|authentication failed'
    fi
    mkuser
    "$DBTOP" --batch --count 120 --interval 0.5 --connect-timeout 2 --format json "$uri" >"$j" 2>"$tmp/usr.$name.err" &
    dp=$!
    bg $dp usrb
    wait_json "$j" 'length >= 2 and .[-1].state == "up"' 10
    n0=$(wc -l <"$j")
    revoke
    t0=$(now_us)
    # then running on with less: up records whose notes say what is missing
    if wait_json "$j" ".[$n0:] | any(.[]; .state == \"up\" and any(.notes[]; test(\"$why\")))" 15; then
        ok "$name privileges revoked: after $(secs_since "$t0")s up again with less, the records say why: $(jq -sr ".[$n0:] | [.[] | select(.state == \"up\") | .notes[] | select(test(\"$why\"))][0]" "$j" | head -c 220)"
        echo "# $name privileges revoked: records since: $(jq -sr ".[$n0:] | [.[] | .state] | group_by(.) | map(\"\(.[0])x\(length)\") | join(\",\")" "$j"); first down reason: $(jq -sr ".[$n0:] | [.[] | select(.state != \"up\") | .notes[0]][0]" "$j" | head -c 200)"
    else
        nok "$name privileges revoked: no up record says what is missing within 15 s: $(jq -sc "[.[$n0:][] | [.state, .notes]] | .[-2:]" "$j" | head -c 500)"
    fi
    n1=$(wc -l <"$j")
    regrant
    t0=$(now_us)
    if wait_json "$j" ".[$n1:] | any(.[]; .state == \"up\" and all(.notes[]; test(\"$why\") | not) and .digests != null)" 15; then
        ok "$name grants restored: recovered after $(secs_since "$t0")s (notes clear, digests back)"
    else
        nok "$name grants restored: not recovered within 15 s: $(jq -sc '.[-1] | [.state, .notes, (.digests | length)]' "$j" | head -c 400)"
    fi
    n2=$(wc -l <"$j")
    dropuser
    t0=$(now_us)
    if wait_json "$j" ".[$n2:] | any(.[]; .state == \"down\" and any(.notes[]; test(\"$gone\")))" 10; then
        ok "$name user dropped: down records say why after $(secs_since "$t0")s: $(jq -sr ".[$n2:] | [.[] | select(.state == \"down\") | .notes[0] | select(test(\"$gone\"))][0]" "$j" | head -c 220)"
    else
        nok "$name user dropped: no down record naming the cause: $(jq -sc "[.[$n2:][] | [.state, .notes[0]]] | .[-2:]" "$j" | head -c 400)"
    fi
    nap 1.5
    mkuser
    t0=$(now_us)
    if wait_json "$j" "([.[].state] | rindex(\"down\")) as \$d | \$d != null and \$d >= $n2 and ([.[].state] | rindex(\"up\")) > \$d" 20; then
        ok "$name user re-created: up again within $(secs_since "$t0")s"
    else
        nok "$name user re-created: not up again: $(jq -sc '[.[] | .state] | .[-5:]' "$j")"
    fi
    kill "$dp" 2>/dev/null
    wait "$dp"
    rc=$?
    rm -f "$tmp/bg.usrb"
    if exit_ok "$rc" && jq -se 'all(.[]; .schema == 1)' "$j" >/dev/null; then
        ok "$name user faults: no crash (exit $rc after SIGTERM), $(wc -l <"$j") valid JSON records"
    else
        nok "$name user faults: exit $rc or invalid JSON: $(head -c 300 "$tmp/usr.$name.err")"
    fi
done

# ---- 5: database dropped ----------------------------------------------------

for name in mariadb pg15; do
    j=$tmp/db.$name.json
    if [ "$name" = mariadb ]; then
        mkdb() { $M -e "CREATE DATABASE flt_scratch; GRANT SELECT ON flt_scratch.* TO dbtop_mon@'%'"; }
        $M -e "DROP DATABASE IF EXISTS flt_scratch"
        uri="mysql://dbtop_mon:monpw@127.0.0.1:$DBTOP_MARIADB_PORT/flt_scratch"
        # MariaDB leaves the session connected (no current database): end it to make dbtop reconnect
        dropdb() {
            $M -e "DROP DATABASE flt_scratch"
            sleep 1
            $M -N -e "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'dbtop_mon'" | while read -r id; do $M -e "KILL $id"; done
        }
        gone='Unknown database'
    else
        mkdb() { $P -c "CREATE DATABASE flt_scratch"; }
        $P -c "DROP DATABASE IF EXISTS flt_scratch WITH (FORCE)" 2>/dev/null
        uri="postgresql://dbtop_mon:monpw@127.0.0.1:$DBTOP_PG15_PORT/flt_scratch"
        dropdb() { $P -c "DROP DATABASE flt_scratch WITH (FORCE)"; }
        gone='does not exist'
    fi
    mkdb
    "$DBTOP" --batch --count 60 --interval 0.5 --connect-timeout 2 --format json "$uri" >"$j" 2>/dev/null &
    dp=$!
    bg $dp dbb
    wait_json "$j" 'length >= 2 and .[-1].state == "up"' 10
    n0=$(wc -l <"$j")
    dropdb
    t0=$(now_us)
    if wait_json "$j" ".[$n0:] | any(.[]; .state == \"down\" and any(.notes[]; test(\"$gone\")))" 10; then
        ok "$name database dropped: down after $(secs_since "$t0")s, saying: $(jq -sr ".[$n0:] | [.[] | select(.state == \"down\") | .notes[0] | select(test(\"$gone\"))][0]" "$j" | head -c 200)"
    else
        nok "$name database dropped: no down record naming it: $(jq -sc "[.[$n0:][] | [.state, .notes[0]]] | .[-2:]" "$j" | head -c 400)"
    fi
    mkdb
    t0=$(now_us)
    if wait_json "$j" "([.[].state] | rindex(\"down\")) as \$d | \$d != null and ([.[].state] | rindex(\"up\")) > \$d" 15; then
        ok "$name database re-created: up again within $(secs_since "$t0")s"
    else
        nok "$name database re-created: not up again: $(jq -sc '[.[] | .state] | .[-5:]' "$j")"
    fi
    kill "$dp" 2>/dev/null
    wait "$dp"
    rc=$?
    rm -f "$tmp/bg.dbb"
    if exit_ok "$rc" && jq -se 'all(.[]; .schema == 1)' "$j" >/dev/null; then
        ok "$name database dropped: no crash (exit $rc after SIGTERM), $(wc -l <"$j") valid JSON records"
    else
        nok "$name database dropped: exit $rc or invalid JSON"
    fi
    $P -c "DROP DATABASE IF EXISTS flt_scratch WITH (FORCE)" >/dev/null 2>&1
    $M -e "DROP DATABASE IF EXISTS flt_scratch" >/dev/null 2>&1
done

# the network partition (6), run beside 2-5
wait "$np"
merge_part "$tmp/part.net"

# ---- 7: disk full while recording ------------------------------------------

for name in mariadb pg15; do
    uri=$(uri_of "$name" URI)
    for mode in batch screen; do
        d=$tmp/full.$name.$mode
        mkdir -p "$d"
        if ! mount -t tmpfs -o size=64k,mode=0700 tmpfs "$d" 2>"$tmp/mount.err"; then
            nok "$name disk full ($mode): cannot mount a tmpfs: $(head -c 200 "$tmp/mount.err")"
            continue
        fi
        mounts+=("$d")
    done
    "$DBTOP" --batch --count 40 --interval 0.25 --format json --record "$tmp/full.$name.batch/x.dbrec" "$uri" \
        >"$tmp/full.$name.json" 2>"$tmp/full.$name.err" &
    bp=$!
    bg $bp fullb
    s=full-$name
    screen_start "$s" --interval 0.25 --record "$tmp/full.$name.screen/x.dbrec" "$uri"
    if wait_scr "$s" 'recording stopped: ' 20; then
        msg=$(T capture-pane -p -t "$s" | grep -o 'recording stopped: .*' | head -1 | sed 's/ *$//')
        c1=$(hdr_clock "$s")
        c2=$c1
        for ((i = 0; i < 60; i++)); do
            nap 0.1
            c2=$(hdr_clock "$s")
            [ "$c2" != "$c1" ] && T capture-pane -p -t "$s" | head -1 | grep -q ' dbtop UP ' && break
        done
        if [ "$c2" != "$c1" ] && [ -n "$c2" ]; then
            ok "$name disk full (screen): '$msg'; still UP and refreshing (header clock $c1 -> $c2)"
        else
            nok "$name disk full (screen): '$msg' but the screen stopped refreshing: $(scr "$s")"
        fi
    else
        nok "$name disk full (screen): no 'recording stopped' message: $(scr "$s")"
    fi
    T send-keys -t "$s" q
    check "$name disk full (screen): q quits with status 0" wait_scr "$s" 'EXITED 0' 5
    T kill-session -t "$s" 2>/dev/null
    timeout 30 tail --pid="$bp" -f /dev/null
    wait "$bp"
    rc=$?
    rm -f "$tmp/bg.fullb"
    stop=$(grep -o 'recording stopped: .*' "$tmp/full.$name.err" | head -1)
    if [ "$rc" = 0 ] && [ -n "$stop" ] && [ "$(wc -l <"$tmp/full.$name.json")" = 40 ] && jq -se 'all(.[]; .state == "up")' "$tmp/full.$name.json" >/dev/null; then
        ok "$name disk full (batch): '$stop'; all 40 records printed, up (exit $rc)"
    else
        nok "$name disk full (batch): exit $rc, $(wc -l <"$tmp/full.$name.json") records, stderr: $(head -c 300 "$tmp/full.$name.err")"
    fi
    for mode in batch screen; do
        f=$tmp/full.$name.$mode/x.dbrec
        "$DBTOP" --replay "$f" --batch --speed 0 --format json >"$tmp/rp.$name.$mode.json" 2>"$tmp/rp.$name.$mode.err"
        rc=$?
        ended=$(grep -o 'end of recording: .*' "$tmp/rp.$name.$mode.err" | head -1)
        if [ "$rc" = 0 ] && [ -n "$ended" ] && jq -se 'length >= 1 and all(.[]; .schema == 1)' "$tmp/rp.$name.$mode.json" >/dev/null; then
            ok "$name disk full ($mode): the recording ($(stat -c %s "$f") bytes) replays: $(wc -l <"$tmp/rp.$name.$mode.json") records; '$ended'"
        else
            nok "$name disk full ($mode): replay exit $rc: $(head -c 300 "$tmp/rp.$name.$mode.err")"
        fi
    done
done
done_tests
