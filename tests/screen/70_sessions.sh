#!/usr/bin/env bash
# 70_sessions.sh - the sessions screen (6) and its tile on a recording with
# session lists (build/tests/mksessrec: 50 idle, 10 active, 1 idle in
# transaction holding a row lock, 3 waiting for it, 4 background, dbtop's
# own): goldens of the overview, screen 6 and a session's details at 80x24
# and 120x40, held to the layout rules of check_screens.py; idle and
# background hidden by default and shown by i and b (exactly the idle
# ones); the waiting rows name their blocker; s / r sort and reverse; the
# digest and lock links (S); Enter details; x / c ask and, on a recording,
# do nothing; --read-only refuses; e says a recording cannot be explained.
# UPDATE_GOLDEN=1 rewrites tests/screen/golden/sessions/*.txt.
set -uo pipefail
source "$(dirname "$0")/lib.bash"
need_basics
GOLDEN_DIR=${GOLDEN_ROOT:-$GOLDEN_DIR}

MKREC=${MKSESSREC:-build/tests/mksessrec}
if [ ! -x "$MKREC" ] || [ tests/tools/mksessrec.c -nt "$MKREC" ]; then
	if ! make --no-print-directory CI=1 "$MKREC" >"$T/make.log" 2>&1; then
		nok "$MKREC builds"
		note <"$T/make.log"
		done_tests
	fi
fi
REC=$T/sessions.dbrec
if "$MKREC" "$REC" 2>"$T/mk.err"; then ok "mksessrec writes the recording"; else nok "mksessrec: $(cat "$T/mk.err")"; done_tests; fi

# ids NAME: the ids of the rows on screen 6 (first column, numbers only)
ids() { screen "$1" | awk 'NR > 2 && $1 ~ /^[0-9]+\*?$/ { print $1 }'; }
# idle_rows NAME: rows of the 50 idle sessions (1000-1049)
idle_rows() { ids "$1" | awk '$1 >= 1000 && $1 < 1050' | wc -l; }
on6() { screen "$1" | grep -q '^\[6\] sessions'; }

mkdir -p "$GOLDEN_DIR/sessions"
for size in 80x24 120x40; do
	w=${size%x*} h=${size#*x} s=s$w
	start "$s" "$w" "$h" --replay "$REC" --speed 0
	if ! wait_for "$s" "REPLAY ended" 15; then
		nok "$size: the replay reaches its end"
		screen "$s" | note
		continue
	fi
	check "$size overview: the sessions tile with its summary" \
		grep -qF "sessions: 68 (10 active, 3 waiting for lock, 1 idle in transaction, 50 idle hid" <<<"$(screen "$s")"
	golden "$s" "sessions/sess-overview-$size"
	keys "$s" 6
	if ! retry 5 on6 "$s"; then
		nok "$size: screen 6 comes up"
		continue
	fi
	sleep 0.2
	golden "$s" "sessions/sess-sessions-$size"
	check "$size: the idle ones hidden by default (none of 1000-1049 shown)" test "$(idle_rows "$s")" = 0
	check "$size: the 3 waiting rows name their blocker (4242 once, 5001 twice)" \
		bash -c '[ "$(grep -c "⟵ 4242" <<<"$1")" = 1 ] && [ "$(grep -c "⟵ 5001" <<<"$1")" = 2 ]' _ "$(screen "$s")"
	check "$size: the lock waits first (state sort)" test "$(ids "$s" | head -1)" = 5001
	check "$size: the statement keeps 30 columns and ends in the cut mark" \
		bash -c 'l=$(grep "^5001 " <<<"$1"); h=$(grep " statement$" <<<"$1"); x=${h%%statement}; [ $(('"$w"' - ${#x})) -ge 30 ] && [[ $l == *… ]]' _ "$(screen "$s")"
	# Enter on the holder: its details (Down to 4242, the last row)
	keys "$s" G Enter
	if wait_for "$s" "session 4242" 5; then
		golden "$s" "sessions/sessd-sessions-$size"
	else
		nok "$size: Enter shows the details of 4242"
		screen "$s" | note
	fi
	keys "$s" Escape
	tm kill-session -t "$s" 2>/dev/null
done
python3 tests/screen/check_screens.py "$GOLDEN_DIR"/sessions/*.txt | grep -v '^ok' | note
if python3 tests/screen/check_screens.py "$GOLDEN_DIR"/sessions/*.txt >/dev/null; then
	ok "the sessions goldens keep the layout rules (check_screens.py)"
else
	nok "the sessions goldens keep the layout rules (check_screens.py)"
fi

start k 120 40 --replay "$REC" --speed 0
wait_for k "REPLAY ended" 15 || nok "keys: the replay reaches its end"
keys k 6
retry 5 on6 k
# i: exactly the 50 idle ones more; i again: none
n0=$(ids k | wc -l)
keys k i
retry 5 bash -c '[ "$(screen k | grep -c "^1[0-9][0-9][0-9] ")" -gt 0 ]' 2>/dev/null
sleep 0.3
n1=$(ids k | wc -l)
# the rows shown are cut by the height: the title says the count
rows1=$(screen k | sed -nE 's/^\[6\] sessions.* ([0-9]+) of ([0-9]+) rows.*/\2/p')
check "i shows the idle ones: 14 -> 64 rows ($n0 shown before, title says ${rows1:-?})" test "${rows1:-0}" = 64
keys k i
sleep 0.3
check "i again hides exactly them ($(idle_rows k) idle rows shown)" test "$(idle_rows k)" = 0
keys k b
sleep 0.3
check "b shows the 4 server processes and dbtop's own connection (6000*)" \
	bash -c 'grep -q "checkpointer" <<<"$1" && grep -q "^6000\*" <<<"$1"' _ "$(screen k)"
keys k b
# s: the next column (blocker), r: reversed
keys k s
if wait_for k "sort: blocker" 5; then ok "s: sorted by the blocker column"; else nok "s: sorted by blocker"; fi
check "sorted by blocker: the waiters first (5002 5003 behind 5001, 5001 behind 4242)" \
	test "$(ids k | head -3 | tr '\n' ' ')" = "5001 5002 5003 "
keys k r
if wait_for k "sort: blocker reversed" 5; then ok "r: reversed"; else nok "r: reversed"; fi
check "reversed: the waiters in the other order" test "$(ids k | head -3 | tr '\n' ' ')" = "5002 5003 5001 "
keys k r
for _ in 1 2 3 4 5 6 7 8 9; do keys k s; done
if wait_for k "sort: state" 5; then ok "s ten times: back to the state sort"; else nok "s ten times: back to state"; fi
# x: the confirmation, then nothing on a recording
keys k x
if wait_for k "End this session?" 5 && grep -q "pg_terminate_backend(5001)" <<<"$(screen k)"; then
	ok "x: the confirmation names pg_terminate_backend(5001)"
else
	nok "x: the confirmation"
	screen k | note
fi
keys k y
if wait_for k "this is a recording: ending a session needs a live server" 5; then ok "y on a recording: nothing is done, and it says so"; else nok "y on a recording"; fi
keys k e
if wait_for k "no plan: explain asks a live server" 5; then ok "e on a recording: says why there is no plan"; else nok "e on a recording"; fi
# S on screen 3: the root blocker's details on screen 6
keys k 3
sleep 0.3
keys k g S
if wait_for k "session 4242  user batch" 5 && retry 5 on6 k; then ok "S on a lock-tree row: its session's details on screen 6"; else nok "S on the lock tree"; screen k | note; fi
tm kill-session -t k 2>/dev/null

# --read-only: x refused before any confirmation
start r 100 30 --replay "$REC" --speed 0 --read-only
wait_for r "REPLAY ended" 15
keys r 6
retry 5 on6 r
keys r x
if wait_for r "read-only session (--read-only): no kill or cancel" 5 && ! grep -q "End this session?" <<<"$(screen r)"; then
	ok "--read-only: x refused, no confirmation"
else
	nok "--read-only: x refused"
fi
tm kill-session -t r 2>/dev/null

# a recording without session lists (the bundled one without fields 28-30,
# as a dbtop before them wrote it): no tile on the overview, and screen 6 says why
python3 tests/screen/striprec.py recordings/pg-wal-writer.dbrec "$T/nosessions.dbrec" 28 29 30
start o 100 30 --replay "$T/nosessions.dbrec" --speed 0
wait_for o "REPLAY ended" 15
check "no session lists in the recording: no sessions tile" bash -c '! grep -q "^\[6\]" <<<"$1"' _ "$(screen o)"
keys o 6
if wait_for o "no session list in this sample" 5; then ok "screen 6 says why there is no list"; else nok "screen 6 without lists"; screen o | note; fi
tm kill-session -t o 2>/dev/null
done_tests
