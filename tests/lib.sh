# lib.sh - helpers for live tests (sourced). Needs tests/sandbox.sh env.
DBTOP=${DBTOP:-./dbtop}
fails=0

ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }
# check COND-CMD... NAME: run a command, ok when it succeeds
check() {
    local name=$1
    shift
    if "$@" >/dev/null; then ok "$name"; else nok "$name"; fi
}
# Mean of a jq expression over JSON lines in a file (null values skipped).
mean() { jq -s "[.[] | $2 | select(. != null)] | if length == 0 then null else add / length end" "$1"; }
# awk float test: within A B PCT -> true when |A-B| <= B*PCT/100
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "null" && d <= b * p / 100) }'; }
# ge A B -> A >= B (floats)
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "null" && a + 0 >= b + 0) }'; }
done_tests() { exit $((fails > 0)); }
# merge_part FILE: the lines of a part run in the background (a subshell,
# whose own count is lost), its "not ok" lines counted here
merge_part() {
    cat "$1"
    fails=$((fails + $(grep -c '^not ok - ' "$1")))
}

# Screen tests in tmux: T (below, or the caller's own) drives tmux, and
# dbtop runs in a session named s.
# wait_re ERE SECONDS: poll the screen until a line matches
wait_re() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        T capture-pane -p -t s 2>/dev/null | grep -qE -- "$1" && return 0
        sleep 0.05
    done
    return 1
}
# wait_exited STATUS SECONDS: poll until the pane says "EXITED STATUS"
# (dbtop_start's runner), the terminal's wrapped lines joined: after a
# death by a signal the shell's "Aborted  sh -c '...'" line before it is as
# long as the paths in it, and "EXITED 134" may wrap
wait_exited() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        T capture-pane -p -J -t s 2>/dev/null | grep -qE -- "EXITED $1( |$)" && return 0
        sleep 0.05
    done
    return 1
}
# poll_rate TIMES_A_SECOND SECONDS CMD...: run CMD that often until it
# succeeds or SECONDS have passed
poll_rate() {
    local i n=$(($1 * $2)) d
    d=$(awk -v r="$1" 'BEGIN { printf "%.3f", 1 / r }')
    shift 2
    for ((i = 0; i < n; i++)); do
        "$@" && return 0
        sleep "$d"
    done
    return 1
}
# until_true SECONDS CMD...: poll every 0.05 s until CMD succeeds
until_true() { poll_rate 20 "$@"; }
# slow_until SECONDS CMD...: the same every 0.25 s (a CMD that starts a client)
slow_until() { poll_rate 4 "$@"; }
# unframe: stdin without a confirmation box's frame (its text rows as
# they are, so that a text wrapped in the box reads whole once joined)
unframe() { sed 's/^ *│ //; s/ *│ *$//'; }
# framed_re ERE SECONDS: poll the text inside a confirmation's frame, its
# rows joined with one space (a text wrapped in the box reads whole), for ERE
framed_re() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        T capture-pane -p -t s 2>/dev/null | sed -n 's/^.*│ \(.*[^ ]\) *│ *$/\1/p' | tr '\n' ' ' |
            grep -qE -- "$1" && return 0
        sleep 0.05
    done
    return 1
}
# screen: the non-empty lines of the screen on one line (for messages)
screen() { T capture-pane -p -t s 2>/dev/null | grep -v '^ *$' | head -c 2500 | tr '\n' '|'; }
# fresh_tmux: end the test's tmux server (T) and wait until it is gone, so
# that the next new-session does not reach a server still shutting down
# ("server exited unexpectedly")
fresh_tmux() {
    local i
    T kill-server 2>/dev/null
    for ((i = 0; i < 40; i++)); do
        T has-session 2>/dev/null || break
        sleep 0.05
    done
    sleep 0.1
}

# ---- dbtop on the screen in tmux (the live tests that drive the screen) ----
# tui_init NAME: $tmp (a new directory; the caller's cleanup removes it),
# $sock (the test's tmux socket, dbtop-NAME-PID, that T drives), a private
# XDG_STATE_HOME (the tuning journal), TZ=UTC and LANG=C.UTF-8.
tui_init() {
    tmp=$(mktemp -d)
    sock=dbtop-$1-$$
    export XDG_STATE_HOME=$tmp/state TZ=UTC LANG=C.UTF-8
}
# T ARGS...: tmux on the test's socket, without the user's configuration
T() { tmux -L "$sock" -f /dev/null "$@"; }
# tui_stop: for a cleanup: end the test's tmux server and the load process
# $lp when one was started, and wait for the test's children
tui_stop() {
    T kill-server 2>/dev/null
    [ -n "${lp:-}" ] && kill "$lp" 2>/dev/null
    wait 2>/dev/null
}
# dbtop_start W H ARGS...: a fresh tmux server (fresh_tmux) with dbtop ARGS
# in session s of W x H; its pid in $tmp/pid, its standard error in
# $tmp/err; when it ends the pane shows "EXITED <status>" for 30 s. True
# once the header says UP (within $UP_WAIT seconds, default 10).
dbtop_start() {
    local w=$1 h=$2 q= a
    shift 2
    for a in "$@"; do q+=" $(printf '%q' "$a")"; done
    fresh_tmux
    rm -f "$tmp/pid" "$tmp/err"
    T new-session -d -s s -x "$w" -y "$h" \
        "sh -c 'echo \$\$ > $tmp/pid; exec \"\$0\" \"\$@\" 2>$tmp/err' $(printf '%q' "$DBTOP")$q; echo EXITED \$?; sleep 30"
    wait_re " UP " "${UP_WAIT:-10}"
}
# dpid: the pid of the dbtop dbtop_start started
dpid() { cat "$tmp/pid" 2>/dev/null; }

# The server's own rate over exactly the span a batch run's records cover
# (a busy machine's load comes in bursts: a window from before dbtop's
# connect to after its exit is not the records' window).
# counter_series CMD OUT [PID]: one "start end count" line (the clock
# before and after CMD read the count; before PID is started), or with
# PID, lines every 0.2 s while it lives and one after
counter_series() {
    local v s
    while :; do
        s=$(date +%s.%N)
        v=$($1 2>/dev/null) && [ -n "$v" ] && echo "$s $(date +%s.%N) $v"
        [ -n "${3:-}" ] && kill -0 "$3" 2>/dev/null || break
        sleep 0.2
    done >>"$2"
    # (the last reading may have begun before PID's last read: one more)
    if [ -n "${3:-}" ]; then
        s=$(date +%s.%N)
        v=$($1 2>/dev/null) && [ -n "$v" ] && echo "$s $(date +%s.%N) $v" >>"$2"
    fi
    return 0
}
# span_rate SERIES JSON: the series' rate between the first record's
# interval start (its ts less the next record's interval) and the last
# record's ts, each end interpolated; "null" when the series does not cover it
span_rate() {
    local a b
    read -r a b < <(jq -rs '[.[].ts] | "\(.[0] - (.[1] - .[0])) \(.[-1])"' "$2")
    awk -v a="$a" -v b="$b" '
        function at(t,   i) { for (i = 2; i <= n; i++) if (T[i] >= t) return V[i-1] + (V[i] - V[i-1]) * (t - T[i-1]) / (T[i] - T[i-1]); return "x" }
        { n++; T[n] = $2; V[n] = $3 }
        END { if (n < 2 || T[1] > a || T[n] < b) { print "null"; exit } x = at(a); y = at(b); printf "%.1f", (y - x) / (b - a) }' "$1"
}
# span_bounds SERIES JSON [STALE]: "lo hi", the least and the most the
# server's counter can have grown between the reads of a batch run's first
# interval start and of its last record, from the readings around each: a
# counter the server publishes in steps (PostgreSQL's statistics, flushed by
# each backend at most once a second) leaves no room to interpolate. A
# record's ts is its read (the middle of the round trip), the last one's
# within its query time; the first interval's start within 0.1 s of its ts
# less its interval. STALE (seconds, default 0): how old a read's count may
# be (PostgreSQL 13's collector hands a backend a statistics file up to
# 0.5 s old). "null" when the readings do not cover both ends.
span_bounds() {
    local a b m
    read -r a b m < <(jq -rs '"\(.[0].ts - .[0].interval_s) \(.[-1].ts) \(.[-1].cost.query_ms / 1000 + 0.02)"' "$2")
    awk -v a="$a" -v b="$b" -v m="$m" -v st="${3:-0}" '
        # a count read in [x, y] is at least the last reading done by x, at most the first begun from y
        function lo(x,   i, v) { v = "x"; for (i = 1; i <= n; i++) if (E[i] <= x) v = V[i]; return v }
        function hi(y,   i) { for (i = 1; i <= n; i++) if (S[i] >= y) return V[i]; return "x" }
        { n++; S[n] = $1; E[n] = $2; V[n] = $3 }
        END {
            l1 = lo(a - 0.1 - st); h1 = hi(a + 0.1 + st); l2 = lo(b - m - st); h2 = hi(b + m + st)
            if (l1 == "x" || h1 == "x" || l2 == "x" || h2 == "x") { print "null"; exit }
            printf "%d %d", l2 - h1, h2 - l1 }' "$1"
}
# span_mean JSON FILTER: FILTER's mean over the records weighted by each
# record's interval (ts less the one before; the first takes the second's)
span_mean() {
    jq -s "[.[] | {t: .ts, v: ($2)}] | . as \$r | [range(0; length) | {v: \$r[.].v, d: (if . == 0 then \$r[1].t - \$r[0].t else \$r[.].t - \$r[. - 1].t end)} | select(.v != null)] |
        if length == 0 then null else (map(.v * .d) | add) / (map(.d) | add) end" "$1"
}

# The commit-fsync finding against the figures it rests on (76, 77).
# slowjq: jq's "slow" for one record: its own figures meet the finding's bar: the binlog's or
# the redo log's measured sync >= 2 ms (SYNC_SLOW_MS), or COMMIT >= 5 ms (COMMIT_SLOW_MS; the
# COMMIT digest when read, else the rates' commit latency)
slowjq='def slow: . as $r | ((.rates.binlog_fsync_avg_ms // 0) >= 2) or
    ((.rates.redo_fsync_avg_ms // 0) >= 2 and (.rates.redo_fsync_avg_ms_estimate | not)) or
    ((([.digests[]? | select(.text | test("^COMMIT")) | .avg_ms // empty] | max) // $r.rates.commit_avg_ms // 0) >= 5);'
# slowsync FILE: records (after the first two) that meet the bar / all of them
slowsync() { jq -s -r "$slowjq"' .[2:] | "\([.[] | select(slow)] | length)/\(length)"' "$1"; }
# unfounded FILE: records (after the first two) with commit-fsync although neither they nor
# the two before them met the bar (a finding is raised on 2 of 3 intervals and cleared after
# 3 quiet ones)
unfounded() {
    jq -s -r "$slowjq"' [.[]] as $all | [to_entries[] | select(.key >= 2) |
        select([.value.findings[]?.id] | index("commit-fsync")) |
        select([$all[.key - 2, .key - 1, .key] | slow] | any | not)] | length' "$1"
}
