# The screen on live servers, in tmux: it comes up, sparklines move, keys are
# answered quickly even while the server is frozen, and it recovers.
. tests/lib.sh
sockbase=dbtop-live-$$
T() { tmux -L "$sock" -f /dev/null "$@"; }
stopped=()
cleanup() {
    [ ${#stopped[@]} -gt 0 ] && kill -CONT "${stopped[@]}" 2>/dev/null
    for n in mariadb pg18; do tmux -L "$sockbase-$n" kill-server 2>/dev/null; done
}
trap cleanup EXIT
export TZ=UTC LANG=C.UTF-8

# wait_for TEXT SECONDS: poll the screen; prints the ms it took
wait_for() {
    local t0 now
    t0=$(date +%s%N)
    while :; do
        if T capture-pane -p -t s 2>/dev/null | grep -qF -- "$1"; then
            now=$(date +%s%N)
            echo $(((now - t0) / 1000000))
            return 0
        fi
        now=$(date +%s%N)
        [ $(((now - t0) / 1000000)) -gt $(($2 * 1000)) ] && return 1
        sleep 0.005
    done
}

for name in mariadb pg18; do
    sock=$sockbase-$name   # a tmux server per server under test
    N=$(tr a-z A-Z <<<"$name")
    uri_var=DBTOP_${N}_URI
    T new-session -d -s s -x 120 -y 40 "$DBTOP --query-timeout 1 --connect-timeout 2 '${!uri_var}'; echo EXITED \$?; sleep 60"
    if wait_for " UP " 10 >/dev/null; then ok "$name: screen up"; else nok "$name: screen did not come up: $(T capture-pane -p -t s | head -3)"; continue; fi
    check "$name: rates pane shows commits/s" wait_for "commits/s" 5
    sleep 4
    if T capture-pane -p -t s | grep -q '[▁▂▃▄▅▆▇█]'; then ok "$name: sparklines drawn"; else nok "$name: no sparkline"; fi
    if [ "$name" = pg18 ]; then
        check "pg18: WAL rows" wait_for "WAL sync ms" 3
    else
        check "mariadb: the durability settings and what they imply" wait_for "fsyncs per commit" 3
    fi
    # the healthy server's key time is the baseline of the frozen one (same
    # run, same machine load): the larger of three tries
    base=0
    for try in 1 2 3; do
        ms=$(T send-keys -t s '?' && wait_for "dbtop keys" 3) || ms=timeout
        T send-keys -t s Escape
        [ "$ms" = timeout ] && { base=timeout; break; }
        ((ms > base)) && base=$ms
        wait_for " UP " 3 >/dev/null
    done
    if [ "$base" != timeout ] && [ "$base" -lt 1000 ]; then ok "$name: help answered (healthy server, slowest of 3: ${base} ms)"; else nok "$name: help took $base"; fi

    # freeze the server: keys still answered quickly, header says why
    main=$(tests/sandbox.sh pid "$name")
    pids=("$main" $(pgrep -P "$main" || true))
    stopped=("${pids[@]}")
    kill -STOP "${pids[@]}"
    sleep 1.3
    ms=$(T send-keys -t s '?' && wait_for "dbtop keys" 3) || ms=timeout
    # a screen that waited on the server would take the 1 s query time-out
    lim=1000
    [ "$base" != timeout ] && ((3 * base + 50 < 1000)) && lim=$((3 * base + 50))
    if [ "$ms" != timeout ] && [ "$ms" -lt "$lim" ]; then ok "$name: frozen server: key answered in ${ms} ms (limit $lim ms: 3x the healthy ${base} ms + 50, under the 1 s query time-out)"; else nok "$name: frozen server: key took $ms (limit $lim ms; healthy ${base} ms)"; fi
    T send-keys -t s Escape
    if wait_for "STALLED" 6 >/dev/null || wait_for "DOWN" 6 >/dev/null; then ok "$name: header says STALLED/DOWN while frozen"; else nok "$name: no STALLED/DOWN: $(T capture-pane -p -t s | head -2)"; fi
    kill -CONT "${pids[@]}"
    stopped=()
    if wait_for " UP " 30 >/dev/null; then ok "$name: UP again after SIGCONT"; else nok "$name: not UP again: $(T capture-pane -p -t s | head -2)"; fi
    T send-keys -t s q
    check "$name: q quits with status 0" wait_for "EXITED 0" 5
    T kill-server 2>/dev/null
done
done_tests
