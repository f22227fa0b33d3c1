#!/usr/bin/env bash
# 90_first_look.sh - what a newcomer meets first, each at the size it was
# seen: the command line's errors (two lines), --help in 80 columns, the
# config file; on the tour: a one-row digests tile keeps its heads while a
# finding shows (80x24), captions wrapped rather than cut (80x24), the
# event log's heads without overlap (100x30), x in a replay saying at once
# that nothing will be done (100x30), the digests sorted by rows showing
# rows (80x24), no 0.000 AAS rows on the waits screen (100x30), the lock
# tree wrapped rather than cut in the 200x50 overview, the WAL caption
# saying what the finding says, `i` on a replay's sessions saying why no
# idle session is listed; y copying the selected statement with OSC 52
# (tmux set-clipboard on, show-buffer); the fleet's top wait at 120x40.
# No server: recordings, and targets on closed ports.
set -uo pipefail
source "$(dirname "$0")/lib.bash"
need_basics
D=$T/dbtop

# ---- the command line ----
err2() {   # err2 NAME PATTERN ARGS...: exit 2, exactly two lines on stderr, the first matching
	local name=$1 pat=$2 rc
	shift 2
	HOME=$T/home "$D" "$@" >/dev/null 2>"$T/err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 2 ] && head -1 "$T/err" | grep -qE -- "$pat" &&
		sed -n 2p "$T/err" | grep -q -- "--help\|--no-config"; then
		ok "$name: two lines, exit 2 ($(head -1 "$T/err"))"
	else
		nok "$name: exit $rc, stderr: $(head -c 400 "$T/err" | tr '\n' '|')"
	fi
}
err2 "unknown option" "unknown option '--bogus'" --bogus
err2 "-h without a value asks for --help" "did you mean --help\?" -h
err2 "nothing to connect to" "no server to watch" 
err2 "a bad value" "bad value for --interval: '0.01'" -i 0.01 mysql://u@127.0.0.1/
help=$(HOME=$T/home "$D" --help)
check "--help fits 80 columns" bash -c '! awk "length(\$0) > 80 { exit 1 }" <<<"$1" >/dev/null; awk "length(\$0) > 80 { bad = 1 } END { exit bad }" <<<"$1"' _ "$help"

# the config file: defaults, a bad line by FILE:LINE, --no-config
mkdir -p "$T/home/.config/dbtop"
cfg=$T/home/.config/dbtop/config
printf 'interval = 2\n\nscreen = digests\nthemes = dark\n' >"$cfg"
err2 "config: an unknown setting by FILE:LINE" "config:4: unknown setting 'themes'" --demo
printf 'interval = 0.1\n' >"$cfg"
err2 "config: a bad value by FILE:LINE" "config:1: bad value for --interval: '0.1'" --demo
check "--no-config: the bad file is not read" bash -c 'HOME=$1 "$0" --no-config --demo list >/dev/null' "$D" "$T/home"
printf 'target db1 = mysql://monitor:hunter2@127.0.0.1:1/\n' >"$cfg"
HOME=$T/home DBTOP_PLUGIN_DIR=$ROOT "$D" -b -n 1 --connect-timeout 2 db1 >/dev/null 2>"$T/err"
if grep -q "cannot connect to 127.0.0.1:1" "$T/err" && ! grep -q hunter2 "$T/err"; then
	ok "config: a target by name connects to its URI, its password never shown"
else
	nok "config: a target by name: $(head -c 300 "$T/err")"
fi
printf 'screen = digests\nhide = digests.schema\n' >"$cfg"
start cfg 100 30 --demo
if wait_for cfg "[2] statement digests" 10 && wait_for cfg "avg ms" 10; then
	ok "config: screen = digests opens on screen 2"
	check "config: hide = digests.schema leaves the schema column out" bash -c '! grep -q "schema  *statement" <<<"$1"' _ "$(screen cfg)"
else
	nok "config: screen = digests: $(screen cfg | head -3 | tr '\n' '|')"
fi
tm kill-session -t cfg
rm -f "$cfg"

# ---- 80x24: the first incident ----
start s80 80 24 --demo
if wait_for s80 "seed 000: rank by total time" 20; then
	scr=$(screen s80)
	if grep -qE "^!+ " <<<"$scr"; then
		check "80x24: the one-row digests tile names its figures (share, ms/s, calls/s) beside COMMIT" \
			grep -qE "^ +[0-9.]+% share +[0-9.k]+ ms/s +[0-9.k]+ calls/s .*COMMIT" <<<"$scr"
	else
		ok "80x24: no finding on screen at this moment # SKIP the tile shape depends on it"
	fi
	capt=$(tail -3 <<<"$scr" | head -2 | tr '\n' ' ')
	check "80x24: the caption wraps to a second row, whole ($capt)" \
		grep -q "COMMIT leads \[2\] digests, not a query" <<<"$capt"
	check "80x24: the caption is not cut" bash -c '! tail -3 <<<"$1" | head -2 | grep -q "…"' _ "$scr"
else
	nok "80x24: the first caption never came: $(screen s80 | tail -4 | tr '\n' '|')"
fi
keys s80 2 s s s
sleep 0.5
check "80x24: digests sorted by rows show rows/s" bash -c 'grep -q "sort: rows" <<<"$1" && grep -q "rows/s" <<<"$1"' _ "$(screen s80)"
tm kill-session -t s80

# ---- 100x30 ----
start s100 100 30 --demo
wait_for s100 "COMMIT leads" 20
keys s100 4
sleep 1.2
scr=$(screen s100)
check "100x30 waits: no row of 0.000 AAS" bash -c '! grep -qE "^[a-zA-Z/:_]+ +[a-z]+ +0\.000 " <<<"$1"' _ "$scr"
# (from the recording's second interval of waits on: wait for it)
check "100x30 waits: the events left out are counted" wait_for s100 "under 0.001 AAS not listed" 8
keys s100 7
sleep 0.5
head3=$(line s100 2)
check "100x30 event log: the heads and the legend apart ($head3)" \
	bash -c 'grep -qE "^time +kind +what \(newest first\)( {2,}F finding .*# down)? *$" <<<"$1"' _ "$head3"
# OSC 52: y on screen 2 copies the selected statement; tmux keeps it
tm set -g set-clipboard on
keys s100 2 g
sleep 0.5
want=$(screen s100 | sed -nE 's/^ +[0-9.]+% +[0-9.k]+ +[0-9.k]+ +[0-9.k]+ +dbtop_test +(.*)$/\1/p' | head -1)
tm delete-buffer 2>/dev/null
keys s100 y
if wait_for s100 "by OSC 52 (some terminals need it on" 5; then
	buf=$(tm show-buffer 2>/dev/null)
	if [ -n "$buf" ] && [[ $buf == "${want%…}"* ]]; then
		ok "y: the selected statement is in tmux's buffer by OSC 52 ('$buf')"
	else
		nok "y: tmux's buffer '$buf', the selected row '$want'"
	fi
else
	nok "y: no message about the copy: $(screen s100 | tail -2 | tr '\n' '|')"
fi
tm kill-session -t s100

# the lock chain: x in a replay, the tree at 200x50, idle sessions on a replay
start chain 100 30 --demo pg-lock-chain
if wait_for chain "blocks 3" 25; then
	keys chain 3
	sleep 0.5
	keys chain x
	if wait_for chain "End this session?" 5; then
		scr=$(screen chain)
		check "100x30 x in a replay: said at once that nothing will be done" grep -q "a recording: nothing will be done" <<<"$scr"
		check "100x30 x in a replay: no 'y: do it'" bash -c '! grep -q "y: do it" <<<"$1" && grep -q "any key closes: a recording cannot act" <<<"$1"' _ "$scr"
	else
		nok "100x30 x in a replay: no confirmation: $(screen chain | head -5 | tr '\n' '|')"
	fi
	keys chain n 6 i
	check "100x30 i on a replay's sessions: says the idle ones are not in the recording" wait_for chain "idle (not in the recording)" 5
else
	nok "the lock chain never showed: $(screen chain | head -5 | tr '\n' '|')"
fi
tm kill-session -t chain
start c200 200 50 --demo pg-lock-chain
if wait_for c200 "blocks 3" 25; then
	sleep 1.5
	scr=$(screen c200)
	check "200x50: the lock tree wraps its waiters (the object on a row of its own)" \
		grep -qE "│[│ ]+ on transaction [0-9]+ on chain" <<<"$scr"
	check "200x50: no waiter row of the tree cut short" bash -c '! grep -qE "[├└] [0-9]+ waits .*…$" <<<"$1"' _ "$scr"
else
	nok "200x50: the lock chain never showed"
fi
tm kill-session -t c200

# the WAL writer: the caption says what the finding counts
start wal 100 30 --demo pg-wal-writer
if wait_for wal "the finding counts the WAL writer's flushes a second" 20; then
	check "100x30 WAL caption: no figure of its own (the finding's: flushes N times a second)" \
		bash -c '! grep -q "100 times a second" <<<"$1"' _ "$(screen wal)"
else
	nok "the WAL caption: $(screen wal | tail -3 | tr '\n' '|')"
fi
tm kill-session -t wal

# ---- 120x40: the fleet of two (closed ports: DOWN rows), the top wait column ----
p1=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
start fleet 120 40 "mysql://u@127.0.0.1:$p1/" "postgresql://u@127.0.0.1:$p1/db" --connect-timeout 1
if wait_for fleet "FLEET 2 servers" 10; then
	check "120x40 fleet: the top wait column" grep -q "TOP WAIT (AAS)" <<<"$(screen fleet)"
else
	nok "120x40 fleet: $(screen fleet | head -3 | tr '\n' '|')"
fi
tm kill-session -t fleet
done_tests
