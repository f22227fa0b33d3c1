#!/usr/bin/env bash
# 85_tour.sh - dbtop --demo: the tour of the bundled incidents. --demo list
# names them; --demo NAME plays one; an unknown name is refused with the
# list. On the screen (no server, no client library loaded: the backends'
# directory is empty and neither libmariadb nor libpq is mapped) the
# caption line names the incident and what to look at; > and < step
# through the tour; Space freezes and Left / Right / Home step through the
# incident's own samples, as in a replay; the goldens show each incident's end at the usual
# recording sizes, 100x30 and 120x40 (UPDATE_GOLDEN=1 rewrites
# tests/screen/golden/tour/*.txt: read them before committing).
set -uo pipefail
source "$(dirname "$0")/lib.bash"
need_basics
mkdir -p "$GOLDEN_DIR/tour" "$T/noplugins"

list=$("$DBTOP" --demo list)
check "--demo list: three incidents" test "$(grep -c . <<<"$list")" = 3
for n in mariadb-commit-fsync pg-lock-chain pg-wal-writer; do
	check "--demo list names $n" grep -q "^$n " <<<"$list"
done
"$DBTOP" --demo nosuch >/dev/null 2>"$T/err"
rc=$?
check "--demo nosuch: exit 2 with the list ($rc)" bash -c '[ "$0" = 2 ] && grep -q "no such demo incident: nosuch" "$1" && grep -q "^pg-lock-chain " "$1"' "$rc" "$T/err"
check "--demo wal --batch: that incident's records" \
	bash -c '"$0" --demo wal --batch --speed 0 --format json 2>/dev/null | head -1 | grep -q "\"engine\":\"postgresql\""' "$DBTOP"

# the start, in real time: the first caption
RUN_ENV=(DBTOP_PLUGIN_DIR="$T/noplugins")
start live 100 30 --demo
check "caption at the start: the incident and what to look at" wait_for live " 1/3 mariadb-commit-fsync  MariaDB, redo log on a slow disk" 10
pid=$(dbtop_pid live)
check "no client library loaded (neither libmariadb nor libpq mapped)" \
	bash -c '! grep -qE "libmariadb|libmysqlclient|libpq" "/proc/$0/maps"' "$pid"
check "the caption is above the key bar (and the event timeline), wrapped to a second row when long" \
	bash -c 'tail -4 <<<"$1" | head -3 | grep -q "^ 1/3 mariadb-commit-fsync " &&
		tail -4 <<<"$1" | head -3 | tr "\n" " " | grep -q "slow disk (10 ms per fsync): \[1\] fsyncs/commit and commit latency"' _ "$(screen live)"
keys live q
tm kill-session -t live 2>/dev/null

for size in 100x30 120x40; do
	s=t${size/x/_}
	start "$s" "${size%x*}" "${size#*x}" --demo --speed 0
	if ! wait_for "$s" "end of this incident: > the next one" 15; then
		nok "$size: the first incident ends"
		continue
	fi
	golden "$s" "tour/mariadb-commit-fsync-$size"
	keys "$s" ">"
	check "$size: > plays the next incident" wait_for "$s" " 2/3 pg-lock-chain  end of this incident" 15
	golden "$s" "tour/pg-lock-chain-$size"
	keys "$s" ">"
	check "$size: > again: the last" wait_for "$s" " 3/3 pg-wal-writer  end of the tour: < the previous incident, q quits" 15
	golden "$s" "tour/pg-wal-writer-$size"
	keys "$s" ">"
	check "$size: > on the last says so" wait_for "$s" "this is the last incident of the tour" 5
	keys "$s" "<"
	check "$size: < goes back" wait_for "$s" " 2/3 pg-lock-chain  end of this incident" 15
	keys "$s" 5 a
	check "$size: a on a recording shows what it would run" wait_for "$s" "y does it" 5
	keys "$s" y
	check "$size: y: this is a recording, nothing done" wait_for "$s" "this is a recording: changing a setting needs a live server" 5
	keys "$s" u
	check "$size: u on a recording: this is a recording" wait_for "$s" "this is a recording: reverting a setting needs a live server" 5
	keys "$s" q
	check "$size: q quits the tour" wait_for "$s" "EXITED 0" 5
	tm kill-session -t "$s" 2>/dev/null
done

# time travel in the tour, as in a replay: each incident its own history
# (checked against the batch JSON of the same recording at that second)
per_second() {
	"$DBTOP" --replay "$1" --speed 0 --batch --format json 2>/dev/null | python3 -c '
import json, sys, time
for l in sys.stdin:
    r = json.loads(l)
    c = r["rates"]["commits_per_s"]
    print(time.strftime("%H:%M:%S", time.gmtime(int(r["ts"]))), "%.0f" % c if c >= 99.995 else "%.2f" % c)
'
}
per_second recordings/mariadb-commit-fsync.dbrec >"$T/fsync"
per_second recordings/pg-lock-chain.dbrec >"$T/chain"
at() { line "$1" 0 | grep -oE 'AT [0-9]{2}:[0-9]{2}:[0-9]{2}' | cut -c4-; }
secs() { date -u -d "1970-01-01 $1" +%s; }
exp_of() { awk -v t="$2" '$1 == t { print $2 }' "$1"; }
commits() { screen "$1" | sed -nE 's/^commits\/s +([0-9.]+) .*/\1/p' | head -1; }
start tt 120 40 --demo --speed 0
if wait_for tt "end of this incident: > the next one" 15; then
	keys tt Space
	wait_for tt " AT " 5
	a0=$(at tt)
	check "tour: space freezes at the incident's newest sample (AT $a0)" test "$a0" = "$(tail -1 "$T/fsync" | cut -d' ' -f1)"
	check "tour: the caption still shows while frozen" has tt " 1/3 mariadb-commit-fsync  "
	keys tt Left Left Left Left Left
	wait_for tt "\-5s" 5
	a1=$(at tt)
	check "tour: 5 x Left: AT $a1, five seconds back" test $(($(secs "$a0") - $(secs "$a1"))) = 5
	want=$(exp_of "$T/fsync" "$a1")
	got=$(commits tt)
	check "tour: rates at $a1: commits/s $got on screen, $want in the JSON of that moment" test -n "$want" -a "$got" = "$want"
	keys tt Right
	wait_for tt "\-4s" 5
	check "tour: Right: one interval forward (AT $(at tt))" test $(($(secs "$(at tt)") - $(secs "$a1"))) = 1
	keys tt Home
	sleep 0.5
	check "tour: Home: the incident's oldest sample (AT $(at tt))" \
		test $(($(secs "$(head -1 "$T/fsync" | cut -d' ' -f1)") - $(secs "$(at tt)"))) -le 1
	keys tt Space
	check "tour: space plays again" wait_gone tt "PAUSED" 5
	keys tt Space
	wait_for tt " AT " 5
	keys tt ">"
	check "tour: > while frozen plays the next incident" wait_for tt " 2/3 pg-lock-chain  end of this incident" 15
	check "tour: ... playing, not frozen" bash -c '! grep -q PAUSED <<<"$1"' _ "$(line tt 0)"
	keys tt Space Home
	sleep 0.5
	keys tt Left Left Left
	sleep 0.5
	c0=$(head -1 "$T/chain" | cut -d' ' -f1)
	check "tour: Home then Left in the second incident: its own oldest sample (AT $(at tt), first $c0)" \
		test $(($(secs "$c0") - $(secs "$(at tt)"))) -le 1
	check "tour: never the previous incident's engine or host" \
		bash -c '! grep -qE "mariadb|:34130" <<<"$1" && grep -q "postgresql" <<<"$1"' _ "$(line tt 0)"
	keys tt q
else
	nok "tour: the first incident ends"
fi
tm kill-session -t tt 2>/dev/null

# one incident alone
start one 100 30 --demo pg-wal-writer --speed 0
check "--demo pg-wal-writer: that incident alone (1/1)" wait_for one " 1/1 pg-wal-writer  end of the tour" 15
keys one ">"
check "--demo NAME: > has no next incident" wait_for one "this is the last incident of the tour" 5
done_tests
