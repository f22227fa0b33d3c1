# sessions.sh - background client sessions holding and waiting for locks,
# for live tests (sourced after lib.sh; needs $tmp, a scratch dir).
#
# A session is a client process fed through a FIFO: its statements, then a
# bounded `sleep` during which it stays idle (in its open transaction, if
# any); then the client sees end of input, disconnects and the server rolls
# back. Only the processes started here are ever killed, by PID.
declare -A wpid cpid sid
# sessions_kill: end every process started by sess (for the EXIT trap)
sessions_kill() {
    local n
    for n in "${!wpid[@]}"; do kill "${wpid[$n]}" 2>/dev/null; done
    for n in "${!cpid[@]}"; do kill "${cpid[$n]}" 2>/dev/null; done
    wait 2>/dev/null
}
# sess NAME SECONDS CLIENT SQL...: a session reading SQL (one line per
# argument), then idle for SECONDS (<= 90) before its input ends. Its first
# statement must print its session id.
sess() {
    local name=$1 secs=$2 client=$3
    shift 3
    rm -f "$tmp/$name.in" "$tmp/$name.out"
    unset "sid[$name]"
    mkfifo "$tmp/$name.in"
    $client <"$tmp/$name.in" >"$tmp/$name.out" 2>&1 &
    cpid[$name]=$!
    (printf '%s\n' "$@"; exec sleep "$secs") >"$tmp/$name.in" &
    wpid[$name]=$!
}
# getid NAME: wait (<= 5 s) for the session's id, store it in sid[NAME]
getid() {
    local i v
    for ((i = 0; i < 100; i++)); do
        v=$(head -n 1 "$tmp/$1.out" 2>/dev/null)
        case $v in '' | *[!0-9]*) sleep 0.05 ;; *) sid[$1]=$v; return 0 ;; esac
    done
    echo "# session $1 gave no id: $(head -c 300 "$tmp/$1.out")" >&2
    sid[$1]=-1
    return 1
}
# endsess KILLCMD NAME...: end sessions: server side first (KILLCMD ID),
# then the processes started for them
endsess() {
    local kc=$1 n
    shift
    for n in "$@"; do
        [ "${sid[$n]:--1}" -gt 0 ] && $kc "${sid[$n]}" >/dev/null 2>&1
        kill "${wpid[$n]}" "${cpid[$n]}" 2>/dev/null
        wait "${wpid[$n]}" "${cpid[$n]}" 2>/dev/null
        unset "wpid[$n]" "cpid[$n]"
    done
}
# waits_reach COUNT-CMD N: poll (<= 5 s) until COUNT-CMD prints >= N
waits_reach() {
    local i
    for ((i = 0; i < 100; i++)); do
        [ "$($1 2>/dev/null)" -ge "$2" ] 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}
# waits_none COUNT-CMD: poll (<= 10 s) until COUNT-CMD prints 0
waits_none() {
    local i
    for ((i = 0; i < 200; i++)); do
        [ "$($1 2>/dev/null)" = 0 ] && return 0
        sleep 0.05
    done
    echo "# lock waits left over: $($1)" >&2
    return 1
}
# bwait PID SECONDS: wait for a background dbtop, killing it after SECONDS;
# its exit status
bwait() {
    timeout "$2" tail --pid="$1" -f /dev/null
    kill "$1" 2>/dev/null
    wait "$1"
}
