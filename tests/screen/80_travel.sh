#!/bin/bash
# 80_travel.sh - time travel on a bundled recording: space freezes, Left /
# Right step one interval, [ ] a minute, Home the oldest, End live; the
# header says the moment (AT HH:MM:SS -age) and the panes show that
# moment's numbers (checked against the batch JSON of the same recording);
# a step forward in a running replay reads the next sample, and nothing is
# skipped or repeated after resuming.
. "$(dirname "$0")/lib.bash"

CHAIN=recordings/pg-lock-chain.dbrec
# per second of the recording (UTC): commits/s and the waiters' count
"$DBTOP" --replay "$CHAIN" --speed 0 --batch --format json 2>/dev/null | python3 -c '
import json, sys, time
for l in sys.stdin:
    r = json.loads(l)
    w = {e["waiter"]["id"] for e in r.get("locks") or []}
    roots = {e["root"] for e in r.get("locks") or []}
    c = r["rates"]["commits_per_s"]
    # as the screen prints it: 3 significant digits from 100 on
    print(time.strftime("%H:%M:%S", time.gmtime(int(r["ts"]))), "%.0f" % c if c >= 99.995 else "%.2f" % c, len(w),
          ",".join(str(x) for x in sorted(roots)) or "-")
' >"$T/exp"
nrec=$(wc -l <"$T/exp")
hasnt() { ! has "$@"; }
at() { line "$1" 0 | grep -oE 'AT [0-9]{2}:[0-9]{2}:[0-9]{2}' | cut -c4-; }
secs() { date -u -d "1970-01-01 $1" +%s; }
exp_of() { awk -v t="$1" -v f="$2" '$1 == t { print $f }' "$T/exp"; }
commits() { screen "$1" | sed -nE 's/^commits\/s +([0-9.]+) .*/\1/p' | head -1; }

start tr 120 40 --replay "$CHAIN" --speed 0
if ! wait_for tr "REPLAY ended" 20; then
	nok "the replay reaches its end"
	screen tr | note
	done_tests
fi
keys tr Space
wait_for tr " AT " 5
a0=$(at tr)
check "space: the header says PAUSED and the moment, AT $a0 -0s" grep -qE "PAUSED  AT $a0  -0s" <<<"$(line tr 0)"
check "frozen at the newest sample: AT $a0 is the recording's last second" test "$a0" = "$(tail -1 "$T/exp" | cut -d' ' -f1)"
check "the clock at the right shows the same moment" grep -qE "$a0 *$" <<<"$(line tr 0)"
keys tr Left Left Left Left Left Left Left Left Left Left
wait_for tr "\-10s" 5
a1=$(at tr)
check "10 x Left: AT $a1, ten seconds back, -10s" test $(($(secs "$a0") - $(secs "$a1"))) = 10
want=$(exp_of "$a1" 2)
got=$(commits tr)
check "rates at $a1: commits/s $got on screen, $want in the JSON of that moment" test "$got" = "$want"
keys tr 3
wait_for tr "root blocker" 5
nw=$(exp_of "$a1" 3)
root=$(exp_of "$a1" 4)
check "locks at $a1: '$nw waiting  1 root blocker' as the JSON has it" has tr "$nw waiting  1 root blocker"
check "locks at $a1: the root blocker $root first" grep -qE "^▶ $root " <<<"$(screen tr)"
keys tr x
check "x on a past moment: refused, End goes live first" wait_for tr "not at the moment shown: End goes live first" 3
keys tr Right
wait_for tr "\-9s" 5
a2=$(at tr)
check "Right: one interval forward (AT $a2, -9s)" test $(($(secs "$a2") - $(secs "$a1"))) = 1
# forward to the end of the chain: the graph empties as it did
for _ in $(seq 20); do
	[ "$(exp_of "$(at tr)" 3)" = 0 ] && break
	keys tr Right
	sleep 0.1
done
a3=$(at tr)
check "after the chain ended (AT $a3) the lock graph is empty, as in the JSON" hasnt tr "root blocker"
keys tr Home
sleep 0.5
a4=$(at tr)
check "Home: the oldest sample kept (AT $a4, the recording's first second or the one before)" \
	test $(($(secs "$(head -1 "$T/exp" | cut -d' ' -f1)") - $(secs "$a4"))) -le 1
keys tr ']'
sleep 0.5
check "]: a minute forward, at most the newest (AT $(at tr))" test "$(at tr)" = "$a0"
keys tr '['
sleep 0.5
check "[: a minute back, at least the oldest (AT $(at tr))" test "$(at tr)" = "$a4"
keys tr 1 End
if wait_gone tr "PAUSED" 5; then ok "End: live again (PAUSED gone)"; else nok "End: live again"; fi
check "live: no AT in the header" hasnt tr " AT "
keys tr q
wait_for tr "EXITED" 5
tm kill-session -t tr

# ---- the event log on a replay: the recording's events, Enter lands on one ----
FSYNC=recordings/mariadb-commit-fsync.dbrec
"$DBTOP" --replay "$FSYNC" --speed 0 --batch --format json 2>/dev/null |
	jq -r '.events[]? | "\(.ts | floor | strftime("%H:%M:%S")) \(.kind)"' >"$T/ev.exp"
start ev 120 40 --replay "$FSYNC" --speed 0
if wait_for ev "REPLAY ended" 20; then
	keys ev 7
	wait_for ev "event log" 5
	got=$(screen ev | sed -nE 's/^([0-9]{2}:[0-9]{2}:[0-9]{2})  ([a-z][a-z ]*[a-z]) {2,}.*/\1 \2/p' | tac)
	n=$(wc -l <"$T/ev.exp")
	check "the event log lists the recording's $n events (time and kind as in its JSON)" \
		test "$n" -ge 5 -a "$got" = "$(cat "$T/ev.exp")"
	ts=$(awk '$2 == "setting" { print $1; exit }' "$T/ev.exp")
	keys ev / "setting .*1 -> 2" Enter   # (not the forecast event of that change)
	sleep 0.3
	keys ev Enter
	check "Enter on the setting change lands on it: AT $ts" wait_for ev "PAUSED  AT $ts " 5
	check "... the settings line of that moment: innodb_flush_log_at_trx_commit=2" \
		has ev "innodb_flush_log_at_trx_commit=2 sync_binlog=1 -> 1 fsync per commit"
	keys ev 7 /
	for _ in $(seq 20); do keys ev BSpace; done
	keys ev Enter
	# the finding's clearing (the recording's committing lock chains last
	# under the events' 3 s and are no events)
	tc=$("$DBTOP" --replay "$FSYNC" --speed 0 --batch --format json 2>/dev/null |
		jq -rs '[.[] | .events[]? | select(.kind == "cleared")][0] | .ts | floor | strftime("%H:%M:%S")')
	keys ev / "commit-fsync: no longer" Enter
	sleep 0.3
	keys ev Enter
	check "Enter on the finding's clearing lands on it: AT $tc" wait_for ev "PAUSED  AT $tc " 5
else
	nok "the commit-fsync replay reaches its end"
	screen ev | note
fi
keys ev q
wait_for ev "EXITED" 5
tm kill-session -t ev

# ---- a running replay: freeze, step forward (reads the next sample), back, resume ----
RUN_ENV=(DBTOP_FRAME_STATS="$T/travel.frames")
start rp 120 40 --replay "$CHAIN" --speed 1
flowing() { screen "$1" | grep -qE '^commits/s +[0-9]'; }
if wait_for rp "REPLAY x1" 10 && retry 10 flowing rp; then
	keys rp Space
	wait_for rp " AT " 5
	c0=$(at rp)
	keys rp Right
	sleep 1
	c1=$(at rp)
	keys rp Right
	sleep 1
	c2=$(at rp)
	check "frozen replay: Right reads the next sample ($c0 -> $c1 -> $c2)" \
		test $(($(secs "$c1") - $(secs "$c0"))) = 1 -a $(($(secs "$c2") - $(secs "$c1"))) = 1
	keys rp Left Left
	sleep 0.5
	check "Left Left: back at $c0" test "$(at rp)" = "$c0"
	check "the replay clock stands still while frozen (REPLAY x1  PAUSED)" grep -q 'REPLAY x1  PAUSED' <<<"$(line rp 0)"
	sleep 5
	check "5 s later still at $c0" test "$(at rp)" = "$c0"
	keys rp Space
	wait_gone rp "PAUSED" 5
	if wait_for rp "REPLAY ended" 40; then
		keys rp q
		wait_for rp "EXITED" 5
		got=$(sed -n 's/.* samples \([0-9]*\).*/\1/p' "$T/travel.frames" 2>/dev/null)
		if [ -n "$got" ] && [ "$got" = "$((nrec + 1))" ]; then
			ok "freeze, steps, resume: all $got samples of the recording reached the screen, none skipped or repeated"
		else
			nok "freeze, steps, resume: ${got:-?} samples reached the screen of $((nrec + 1))"
		fi
		steps=$(sed -n 's/.*step_max_ms \([0-9.]*\).*/\1/p' "$T/travel.frames")
		check "the frame stats count the steps (slowest, with the reads on: ${steps:-?} ms)" test -n "$steps"
	else
		nok "the resumed replay reaches its end"
	fi
else
	nok "a replay at --speed 1 runs"
	screen rp | note
fi

# ---- ] in a running replay reads on a minute at once (a seek, as --from) ----
MKHOUR=${MKHOUR:-build/tests/mkhour}
if [ ! -x "$MKHOUR" ] || [ tests/tools/mkhour.c -nt "$MKHOUR" ]; then
	make --no-print-directory CI=1 "$MKHOUR" >"$T/make.log" 2>&1 || { nok "$MKHOUR builds"; note <"$T/make.log"; }
fi
if "$MKHOUR" "$T/five.dbrec" 300 20; then
	start sk 120 40 --replay "$T/five.dbrec" --speed 1 --from 10
	if wait_for sk "REPLAY x1" 10 && retry 10 flowing sk; then
		keys sk Space
		wait_for sk " AT " 5
		s0=$(at sk)
		keys sk ']'
		for _ in $(seq 50); do [ "$(at sk)" != "$s0" ] && break; sleep 0.1; done
		s1=$(at sk)
		d=$(($(secs "$s1") - $(secs "$s0")))
		check "frozen replay, ]: a minute on at once ($s0 -> $s1, +${d}s), read without waiting" test "$d" -ge 59 -a "$d" -le 61
		check "after the seek: still frozen, the replay clock stopped" grep -q 'REPLAY x1  PAUSED' <<<"$(line sk 0)"
		keys sk '['
		sleep 0.5
		check "[: back a minute to $s0 (kept)" test "$(at sk)" = "$s0"
		keys sk Space
		wait_gone sk "PAUSED" 5
		sleep 2.5
		keys sk Space
		wait_for sk " AT " 5
		s2=$(at sk)
		d=$(($(secs "$s2") - $(secs "$s1")))
		check "resumed after the seek: the replay goes on from there ($s1 -> $s2, +${d}s)" test "$d" -ge 1 -a "$d" -le 5
	else
		nok "the five-minute replay runs"
		screen sk | note
	fi
	keys sk q
else
	nok "$MKHOUR writes a five-minute recording"
fi

# ---- a full disk (a 40 KiB file size limit): the history stops with a note, nothing else ----
real=$DBTOP
printf '#!/bin/sh\nulimit -f 40\nexec %q "$@"\n' "$real" >"$T/limited"
chmod +x "$T/limited"
DBTOP=$T/limited start fd 160 40 --replay "$CHAIN" --speed 4
if wait_for fd "history stopped" 20; then
	check "a full disk: 'history stopped, what it kept stays: File too large' on screen" has fd "history stopped, what it kept stays: File too large"
	check "a full disk: the note says the screen and sampling go on" has fd "(the screen and"
	if wait_for fd "REPLAY ended" 30; then ok "a full disk: the replay goes on to its end"; else nok "a full disk: the replay stopped"; fi
	keys fd Space Home
	wait_for fd " AT " 5
	check "a full disk: what was kept is still there to travel to (Home: AT $(at fd))" \
		test "$(at fd)" = "$(head -1 "$T/exp" | cut -d' ' -f1)" -o "$(at fd)" = "$(date -u -d "@$(($(secs "$(head -1 "$T/exp" | cut -d' ' -f1)") - 1))" +%T)"
	keys fd q
	check "a full disk: dbtop exits 0" wait_for fd "EXITED 0" 5
else
	nok "a full disk: no note on screen"
	screen fd | note
fi
DBTOP=$real
done_tests
