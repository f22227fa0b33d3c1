#!/usr/bin/env bash
# 20_terminal.sh - dbtop and the terminal: sizes and resizes, terminals that
# cannot show the screen, --ascii, NO_COLOR, themes and theme files, and
# the terminal given back on SIGTERM / SIGHUP / Ctrl-C.
set -uo pipefail
source "$(dirname "$0")/lib.bash"
need_basics

MARIADB=recordings/mariadb-commit-fsync.dbrec

# restored NAME WHAT: the pane shows dbtop's exit and a sane terminal
restored() {
	local name=$1 what=$2 el
	el=$(exit_line "$name")
	check "$what: the tty is back in canonical mode with echo" grep -q 'MODES icanon echo' <<<"$el"
	check "$what: the alternate screen is left" test "$(pane "$name" '#{alternate_on}')" = 0
	check "$what: the cursor is visible again" test "$(pane "$name" '#{cursor_flag}')" = 1
	check "$what: keypad transmit mode is off" test "$(pane "$name" '#{keypad_flag}')" = 0
	check "$what: no dbtop frame left on the shell screen" \
		bash -c '! grep -qE "q Quit|\[1\] fsync|REPLAY" <<<"$1"' _ "$(screen "$name")"
}

# non_ascii NAME: the lines of the screen with bytes outside printable ASCII
non_ascii() { screen "$1" | LC_ALL=C grep -n '[^ -~]'; }

# ---- sizes ----
# the rates at the smallest size: the recording without its lock graph and
# session lists (SAMPLE fields 18-20, 25, 28-30), whose waiters would take
# the rows first
python3 tests/screen/striprec.py "$MARIADB" "$T/nolocks.dbrec" 18 19 20 25 28 29 30
start r 100 30 --replay "$T/nolocks.dbrec" --speed 0
if ! wait_for r "REPLAY ended" 15; then
	nok "replay reaches its end at 100x30"
	done_tests
fi
ok "replay reaches its end at 100x30"
# too small: the longest message that fits of "enlarge the terminal to
# 50x12 (now WxH); q quits", "enlarge the terminal to 50x12 (now WxH)",
# "enlarge to 50x12; q quits", "need 50x12"
tm resize-window -t r -x 20 -y 8
if wait_for r "need 50x12" 5; then ok "20x8: 'need 50x12' (the longest message that fits)"; else nok "20x8: 'need 50x12' (the longest message that fits)"; screen r | note; fi
sleep 0.3
check "20x8: the message alone on the first line" test "$(line r 0)" = "need 50x12"
other=$(screen r | tail -n +2 | grep -c .)
if [ "$other" = 0 ]; then ok "20x8: nothing else on the screen"; else nok "20x8: $other other lines are not blank"; screen r | note; fi
check "20x8: the pane is 20x8" test "$(pane r '#{pane_width}x#{pane_height}')" = 20x8
check "20x8: dbtop still runs" alive r
tm resize-window -t r -x 100 -y 30
if wait_for r "[5] safe tuning" 5 && wait_for r "q Quit" 5; then ok "back to 100x30: the full screen again"; else nok "back to 100x30: the full screen again"; fi
sleep 0.3
# (its own golden: without session lists the overview differs from 10_screens' one)
golden r mariadb-nosessions-overview-100x30 "${MARIADB_OVERVIEW_100x30[@]}"
for m in "49x12|enlarge the terminal to 50x12 (now 49x12)" \
	"50x11|enlarge the terminal to 50x12 (now 50x11); q quits" \
	"41x12|enlarge the terminal to 50x12 (now 41x12)" \
	"40x12|enlarge to 50x12; q quits" \
	"25x12|enlarge to 50x12; q quits" \
	"24x12|need 50x12"; do
	sz=${m%%|*} want=${m#*|}
	tm resize-window -t r -x "${sz%x*}" -y "${sz#*x}"
	wait_line r 0 "$want" 5
	sleep 0.3   # 25x12 shows the message of 40x12 again: let the redraw land
	if [ "$(line r 0)" = "$want" ] && [ -z "$(screen r | tail -n +2 | grep .)" ]; then
		ok "$sz: too small, the first line says '$want' and nothing else is shown"
	else
		nok "$sz: want '$want' alone on the first line, got '$(line r 0)'"
		screen r | note
	fi
done
tm resize-window -t r -x 50 -y 12
if wait_for r "q Quit" 5 && wait_gone r "enlarge" 5; then ok "50x12 exactly: the full screen"; else nok "50x12 exactly: the full screen"; screen r | note; fi
sleep 0.3
check "50x12: header with state" grep -q '^ dbtop UP  REPLAY ended' <<<"$(line r 0)"
# the header: the host whole before the engine and version; no room for
# cost and clock
if [ "$(line r 0)" = "$(header_expect 50 1 "${MARIADB_HDR[@]}")" ]; then
	ok "50x12 header: the host whole, then the fields that fit by priority, no cost and clock"
else
	nok "50x12 header: got '$(line r 0)', want '$(header_expect 50 1 "${MARIADB_HDR[@]}")'"
fi
check "50x12 key bar: the whole entries that fit, none cut" test "$(line r 11)" = "$(keybar_expect 50)"
check "50x12: the rates tile" grep -qE '^\[1\] fsync / commit rates  4 of [0-9]+ rows$' <<<"$(screen r | grep -m1 '^\[')"
# too short for every pane's minimum: the rates keep their key rows, the
# others their titles
for t in "commits/s" "fsyncs/s" "fsyncs/commit" "redo sync ms"; do
	check "50x12: the key rate row '$t'" grep -q "^$t  " <<<"$(screen r)"
done
for t in "[2] statement digests" "[3] lock waits" "[4] WAL / redo waits" "[5] safe tuning"; do
	check "50x12: the title '$t'" grep -qF "$t" <<<"$(screen r)"
done
golden r mariadb-overview-50x12 1-11
tm resize-window -t r -x 200 -y 50
if wait_for r "0-7 Screens" 5; then ok "200x50: the whole key bar"; else nok "200x50: the whole key bar"; fi
sleep 0.3
check "200x50: the key bar has every entry" test "$(line r 49)" = "$(keybar_expect 200)"
check "200x50: the header has every field whole, cost and clock at the right" \
	test "$(line r 0)" = "$(header_expect 200 1 "${MARIADB_HDR[@]}")"
# the demo's end has a long wait profile: a second column holds it rather
# than cutting it; the rates pane is first, at the left, either way
check "200x50: the rates pane first, at the left (a second column only where one would cut a pane)" \
	grep -q '^\[1\] fsync / commit rates *\($\|│\)' <<<"$(screen r | grep -m1 '^\[')"
golden r mariadb-overview-200x50 "${MARIADB_OVERVIEW_200x50[@]}"
# odd sizes in a row must not crash it
for sz in 1x1 10x2 2x30 300x3 80x1 1x80 100x30; do
	tm resize-window -t r -x "${sz%x*}" -y "${sz#*x}"
	sleep 0.15
done
if wait_for r "[5] safe tuning" 5 && alive r; then ok "resizes through 1x1, 10x2, 2x30, 300x3, 80x1, 1x80: still running, full screen at 100x30"; else nok "resizes through odd sizes: dbtop gone or screen wrong"; screen r | note; fi
tm resize-window -t r -x 20 -y 8
wait_for r "need 50x12" 5
keys r q
if wait_for r "EXITED" 5; then ok "q quits while the terminal is too small"; else nok "q quits while the terminal is too small"; fi
check "q at 20x8: exit status 0" grep -q '^EXITED 0 ' <<<"$(exit_line r)"
tm resize-window -t r -x 100 -y 30
sleep 0.2
restored r "q at 20x8"
tm kill-session -t r

# ---- terminals that cannot show the screen ----
RUN_ENV=(TERM=dumb)
start dumb 100 30 --demo
if wait_for dumb "EXITED" 10; then
	el=$(exit_line dumb)
	check "TERM=dumb: exits non-zero" bash -c '! grep -q "^EXITED 0 " <<<"$1"' _ "$el"
	check "TERM=dumb: the message points at --batch" grep -q 'dbtop: TERM=dumb cannot show the screen: use --batch' <<<"$(screen dumb)"
	check "TERM=dumb: no alternate screen" test "$(pane dumb '#{alternate_on}')" = 0
else
	nok "TERM=dumb: dbtop --demo exits"
fi
RUN_ENV=(TERM=)
start noterm 100 30 --demo
if wait_for noterm "EXITED" 10; then
	check "TERM empty: exits non-zero and points at --batch" \
		bash -c '! grep -q "^EXITED 0 " <<<"$1" && grep -q -- "--batch" <<<"$1"' _ "$(screen noterm)"
else
	nok "TERM empty: dbtop --demo exits"
fi
RUN_ENV=(TERM=no-such-terminal-type)
start unk 100 30 --demo
if wait_for unk "EXITED" 10; then
	check "unknown TERM: exits non-zero, names the TERM and --batch" \
		bash -c '! grep -q "^EXITED 0 " <<<"$1" && grep -q "TERM=no-such-terminal-type.*--batch" <<<"$1"' _ "$(screen unk)"
	restored unk "unknown TERM"
else
	nok "unknown TERM: dbtop --demo exits"
fi
tm kill-session -t dumb
tm kill-session -t noterm
tm kill-session -t unk

"$DBTOP" --demo </dev/null >"$T/x" 2>"$T/err"
rc=$?
check "no terminal (</dev/null >file): exits non-zero" test "$rc" != 0
check "no terminal: the message points at --batch" grep -q -- "use --batch" "$T/err"
check "no terminal: nothing written to stdout" test ! -s "$T/x"
RUN_STDOUT=$T/out
start tostdout 100 30 --demo
if wait_for tostdout "EXITED" 10; then
	check "stdout to a file, stdin a terminal: exits non-zero and points at --batch" \
		bash -c '! grep -q "^EXITED 0 " <<<"$1" && grep -q -- "--batch" <<<"$1"' _ "$(screen tostdout)"
	check "stdout to a file: no escape sequences in the file" test ! -s "$T/out"
else
	nok "stdout to a file: dbtop --demo exits"
fi
tm kill-session -t tostdout

# ---- --ascii and non-UTF-8 locales ----
start asc 100 30 --demo --speed 0 --ascii
if wait_for asc "REPLAY ended" 15; then
	sleep 0.2
	bad=$(non_ascii asc)
	if [ -z "$bad" ]; then ok "--ascii: overview is plain ASCII (no block characters)"; else nok "--ascii: non-ASCII on the overview"; note <<<"$bad"; fi
	check "--ascii: sparklines still drawn" grep -qE '^commits/s +[0-9][0-9.]* +[-_.=+*#@]{20,}' <<<"$(screen asc)"
	keys asc 1 Enter
	wait_for asc "commits/s  (commits_per_s)" 5
	sleep 0.2
	bad=$(non_ascii asc)
	if [ -z "$bad" ]; then ok "--ascii: details graph is plain ASCII"; else nok "--ascii: non-ASCII in the details graph"; note <<<"$bad"; fi
	check "--ascii: the details graph uses #" grep -q '########' <<<"$(screen asc)"
	keys asc Escape '?'
	wait_for asc "dbtop keys" 5
	check "--ascii: help is plain ASCII" test -z "$(non_ascii asc)"
else
	nok "--ascii: replay reaches its end"
fi
tm kill-session -t asc
RUN_ENV=(LANG=C)
start lc 100 30 --demo --speed 0
if wait_for lc "REPLAY ended" 15; then
	sleep 0.2
	bad=$(non_ascii lc)
	if [ -z "$bad" ]; then ok "LANG=C: no UTF-8 on the screen (automatic --ascii)"; else nok "LANG=C: UTF-8 on the screen"; note <<<"$bad"; fi
else
	nok "LANG=C: replay reaches its end"
fi
tm kill-session -t lc

# ---- NO_COLOR ----
RUN_ENV=(NO_COLOR=1)
start nc 100 30 --demo --speed 0
if wait_for nc "REPLAY ended" 15; then
	sleep 0.2
	cc=$(screen_e nc | colour_codes)
	if [ -z "$cc" ]; then ok "NO_COLOR=1: no colour SGR codes (3x 4x 9x 10x 38;5 48;5)"; else nok "NO_COLOR=1: colour codes on the screen: $(tr '\n' ' ' <<<"$cc")"; fi
	check "NO_COLOR=1: attributes still mark the header and focus (reverse)" grep -q 7 <<<"$(screen_e nc | attr_codes)"
	check "NO_COLOR=1: the header is reverse video" grep -q '7' <<<"$(line_e nc 0 | style_of)"
	keys nc t
	if wait_for nc "theme light (NO_COLOR: attributes only)" 5; then ok "NO_COLOR=1: t says attributes only"; else nok "NO_COLOR=1: t says attributes only"; fi
	sleep 0.2
	check "NO_COLOR=1: still no colours after t" test -z "$(screen_e nc | colour_codes)"
	keys nc 1 Enter
	wait_for nc "commits/s  (commits_per_s)" 5
	check "NO_COLOR=1: no colours in details" test -z "$(screen_e nc | colour_codes)"
else
	nok "NO_COLOR=1: replay reaches its end"
fi
tm kill-session -t nc

# ---- themes ----
start dark 100 30 --demo --speed 0
wait_for dark "REPLAY ended" 15
sleep 0.2
# colours as set: the resets ncurses sends depend on what was drawn before
norm_e() { sed -e 's/\x1b\[0m//g; s/\x1b\[39m//g; s/\x1b\[49m//g'; }
# rows_e SESSION: rows 0-28 with their attributes, each captured alone (a
# whole-screen capture carries the style from the end of one row, blanks
# included, into the next: a row then starts with fewer codes when the
# blanks before it were painted by an earlier frame)
rows_e() {
	local y
	for ((y = 0; y < 29; y++)); do line_e "$1" "$y" | sed $'s/\\(\e\\[[0-9;]*m\\)*$//'; done | norm_e
}
dark_e=$(rows_e dark)
# looks_dark SESSION: the first 29 rows match dark's, polled for up to 3 s (a
# sanitizer build may still be drawing the frame after the text has appeared)
looks_dark() {
	local i
	for i in $(seq 1 15); do
		[ "$(rows_e "$1")" = "$dark_e" ] && return 0
		sleep 0.2
	done
	return 1
}
check "dark (default): colours used" test -n "$(colour_codes <<<"$dark_e")"
tm kill-session -t dark
for th in light mono high-contrast; do
	start "th-$th" 100 30 --demo --speed 0 --theme "$th"
	if wait_for "th-$th" "REPLAY ended" 15; then
		sleep 0.2
		ok "--theme $th starts"
		check "--theme $th: no theme message" bash -c '! grep -q "theme:" <<<"$1"' _ "$(screen "th-$th")"
		e=$(rows_e "th-$th")
		check "--theme $th: looks different from dark" test "$e" != "$dark_e"
		[ "$th" = mono ] && check "--theme mono: no colours" test -z "$(colour_codes <<<"$e")"
		keys "th-$th" t
		case $th in light) nx=mono ;; mono) nx=high-contrast ;; high-contrast) nx=dark ;; esac
		if wait_for "th-$th" "theme $nx" 5; then ok "--theme $th: t goes on to $nx"; else nok "--theme $th: t goes on to $nx"; fi
	else
		nok "--theme $th starts"
	fi
	tm kill-session -t "th-$th"
done
start th-missing 100 30 --demo --speed 0 --theme /nonexistent
if wait_for th-missing "REPLAY ended" 15 && wait_for th-missing "theme:" 3; then
	msg=$(line th-missing 29)
	check "--theme /nonexistent: the message names the file" grep -qF "/nonexistent" <<<"$msg"
	check "--theme /nonexistent: the message says it falls back to dark" grep -qF "using dark" <<<"$msg"
	check "--theme /nonexistent: looks like dark" looks_dark th-missing
else
	nok "--theme /nonexistent: starts with a message"
	screen th-missing | note
fi
tm kill-session -t th-missing
printf '# a theme with a mistake on line 3\nname = broken\nvalue = purple, default\n' >"$T/broken.theme"
start th-bad 100 30 --demo --speed 0 --theme "$T/broken.theme"
if wait_for th-bad "REPLAY ended" 15 && wait_for th-bad "theme:" 3; then
	msg=$(line th-bad 29)
	check "bad theme file: the message names the file" grep -qF "broken.theme" <<<"$msg"
	check "bad theme file: the message says 'line 3'" grep -qF "line 3" <<<"$msg"
	check "bad theme file: the message says what is wrong ('purple')" grep -qF "purple" <<<"$msg"
	check "bad theme file: falls back to dark" looks_dark th-bad
else
	nok "bad theme file: starts with a message"
	screen th-bad | note
fi
tm kill-session -t th-bad
printf 'name = custom\nheader = black, yellow, bold\n' >"$T/custom.theme"
start th-good 100 30 --demo --speed 0 --theme "$T/custom.theme"
if wait_for th-good "REPLAY ended" 15; then
	sleep 0.2
	check "theme file: no message" bash -c '! grep -q "theme:" <<<"$1"' _ "$(screen th-good)"
	check "theme file: the header takes its colours (black on yellow)" grep -qE '(30|38;5;0)m.*(43|48;5;3)m|43m.*30m' <<<"$(line_e th-good 0 | style_of)"
else
	nok "theme file: starts"
fi
tm kill-session -t th-good

# ---- signals and Ctrl-C give the terminal back ----
for sig in TERM HUP; do
	start "sig$sig" 100 30 --demo --speed 0
	if wait_for "sig$sig" "REPLAY ended" 15; then
		kill -"$sig" "$(dbtop_pid "sig$sig")"
		if wait_for "sig$sig" "EXITED" 5; then ok "SIG$sig: dbtop exits"; else nok "SIG$sig: dbtop exits"; fi
		restored "sig$sig" "SIG$sig"
	else
		nok "SIG$sig: replay reaches its end"
	fi
	tm kill-session -t "sig$sig"
done
# while the replay still runs (the worker thread sleeping between samples)
start sigrun 100 30 --demo
if wait_for sigrun "REPLAY x1" 10; then
	kill -TERM "$(dbtop_pid sigrun)"
	if wait_for sigrun "EXITED" 5; then ok "SIGTERM during a running replay: exits"; else nok "SIGTERM during a running replay: exits"; fi
	restored sigrun "SIGTERM mid-replay"
else
	nok "a replay at --speed 1 shows 'REPLAY x1'"
	screen sigrun | note
fi
tm kill-session -t sigrun
start ctrlc 100 30 --demo
if wait_for ctrlc "REPLAY x1" 10; then
	keys ctrlc C-c
	if wait_for ctrlc "EXITED" 5; then ok "Ctrl-C: dbtop exits"; else nok "Ctrl-C: dbtop exits"; fi
	restored ctrlc "Ctrl-C"
else
	nok "Ctrl-C: the replay starts"
	screen ctrlc | note
fi
tm kill-session -t ctrlc

done_tests
