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

# Screen tests in tmux: the caller defines T (its tmux command) and runs
# dbtop in a session named s.
# wait_re ERE SECONDS: poll the screen until a line matches
wait_re() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        T capture-pane -p -t s 2>/dev/null | grep -qE -- "$1" && return 0
        sleep 0.05
    done
    return 1
}
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
