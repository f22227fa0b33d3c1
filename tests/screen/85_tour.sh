#!/usr/bin/env bash
# 85_tour.sh - dbtop --demo: the tour of the bundled incidents. --demo list
# names them; --demo NAME plays one; an unknown name is refused with the
# list. On the screen (no server, no client library loaded: the backends'
# directory is empty and neither libmariadb nor libpq is mapped) the
# caption line names the incident and what to look at; > and < step
# through the tour; Space freezes and Left / Right / Home step through the
# incident's own samples, as in a replay; the goldens show each incident's end at
# 80x24 and 120x40 (UPDATE_GOLDEN=1 rewrites tests/screen/golden/tour/*.txt:
# read them before committing). Each caption (the seed's lesson and number)
# fits 74 columns, so that its line fits 80.
set -uo pipefail
source "$(dirname "$0")/lib.bash"
need_basics
mkdir -p "$GOLDEN_DIR/tour" "$T/noplugins"

INCIDENTS="mariadb-commit-fsync mariadb-upsert-gap-lock mariadb-slap-flush pg-wal-writer pg-lock-chain"
list=$("$DBTOP" --demo list)
check "--demo list: five incidents, one line each" test "$(grep -c . <<<"$list")" = 5
i=0
for n in $INCIDENTS; do
	i=$((i + 1))
	check "--demo list names $n ($i.)" bash -c '[ "$(sed -n "$1p" <<<"$2" | cut -d" " -f1)" = "$3" ]' _ "$i" "$list" "$n"
done
check "--demo list: the seeds in order, then the PostgreSQL chain" \
	bash -c 'grep -o "^[a-z-]* *seed 00[0-9]" <<<"$0" | grep -o "00[0-9]" | tr "\n" " " | grep -qx "000 001 002 004 "' "$list"
# the captions (app/tour.c): each at most 74 columns, each incident's first
# one naming its seed
caps=$(sed -nE 's/^\t\{[0-9]+, "(.*)"\},$/\1/p' app/tour.c)
check "captions: $(grep -c . <<<"$caps") read from app/tour.c, none over 74 columns" \
	bash -c '[ "$(grep -c . <<<"$0")" -ge 25 ] && ! awk "length > 74" <<<"$0" | grep -q .' "$caps"
for seed in 000 001 002 004; do
	check "captions: one names seed $seed" grep -q "^seed $seed: " <<<"$caps"
done
"$DBTOP" --demo nosuch >/dev/null 2>"$T/err"
rc=$?
check "--demo nosuch: exit 2 with the list ($rc)" bash -c '[ "$0" = 2 ] && grep -q "no such demo incident: nosuch" "$1" && grep -q "^pg-lock-chain " "$1"' "$rc" "$T/err"
check "--demo wal --batch: that incident's records" \
	bash -c '"$0" --demo wal --batch --speed 0 --format json 2>/dev/null | head -1 | grep -q "\"engine\":\"postgresql\""' "$DBTOP"

# the start, in real time: the first caption
RUN_ENV=(DBTOP_PLUGIN_DIR="$T/noplugins")
start live 100 30 --demo
check "caption at the start: the incident and its seed's lesson" wait_for live " 1/5 mariadb-commit-fsync  seed 000: rank by total time" 10
pid=$(dbtop_pid live)
check "no client library loaded (neither libmariadb nor libpq mapped)" \
	bash -c '! grep -qE "libmariadb|libmysqlclient|libpq" "/proc/$0/maps"' "$pid"
check "the caption is above the key bar (and the event timeline), wrapped to a second row when long" \
	bash -c 'tail -4 <<<"$1" | head -3 | grep -q "^ 1/5 mariadb-commit-fsync "' _ "$(screen live)"
keys live q
tm kill-session -t live 2>/dev/null

for size in 80x24 120x40; do
	s=t${size/x/_}
	start "$s" "${size%x*}" "${size#*x}" --demo --speed 0
	i=0
	for n in $INCIDENTS; do
		i=$((i + 1))
		[ $i -gt 1 ] && keys "$s" ">"
		end="end of this incident"
		[ $i = 5 ] && end="end of the tour"
		if ! wait_for "$s" " $i/5 " 15 || ! wait_for "$s" "$end" 15; then
			nok "$size: incident $i/5 ($n) plays to its end"
			screen "$s" | tail -4 | note
			continue
		fi
		check "$size: $i/5 $n: its caption line fits the width" \
			bash -c 'tail -3 <<<"$0" | head -2 | grep -qE "^ $1/5 ($2)?  $3"' "$(screen "$s")" "$i" "$n" "$end"
		golden "$s" "tour/$n-$size"
	done
	keys "$s" ">"
	check "$size: > on the last says so" wait_for "$s" "this is the last incident of the tour" 5
	keys "$s" "<"
	check "$size: < goes back" wait_for "$s" " 4/5 " 15
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
per_second recordings/mariadb-upsert-gap-lock.dbrec >"$T/chain"
host_of() { "$DBTOP" --replay "$1" --speed 0 --batch --format json 2>/dev/null | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["host"])'; }
h1=$(host_of recordings/mariadb-commit-fsync.dbrec)
h2=$(host_of recordings/mariadb-upsert-gap-lock.dbrec)
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
	check "tour: the caption still shows while frozen" has tt " 1/5 mariadb-commit-fsync  "
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
	check "tour: > while frozen plays the next incident" wait_for tt " 2/5 mariadb-upsert-gap-lock  end of this incident" 15
	check "tour: ... playing, not frozen" bash -c '! grep -q PAUSED <<<"$1"' _ "$(line tt 0)"
	keys tt Space Home
	sleep 0.5
	keys tt Left Left Left
	sleep 0.5
	c0=$(head -1 "$T/chain" | cut -d' ' -f1)
	check "tour: Home then Left in the second incident: its own oldest sample (AT $(at tt), first $c0)" \
		test $(($(secs "$c0") - $(secs "$(at tt)"))) -le 1
	check "tour: never the previous incident's host ($h1; this one's $h2)" \
		bash -c '[ "$2" != "$3" ] && ! grep -qF "$2" <<<"$1" && grep -qF "$3" <<<"$1"' _ "$(line tt 0)" "$h1" "$h2"
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
# seed 000's captions name what the screen shows at 100x30 (issue 30: the
# demo's evidence matches its caption). claim CAPTION WHAT ERE: while the
# caption (fixed text) is up, a screen line matches ERE.
start claims 100 30 --demo mariadb-commit-fsync
claim() {
	local cap=$1 what=$2 re=$3 i
	if ! wait_for claims "$cap" 45; then
		nok "seed 000 caption '$cap': never shown"
		return
	fi
	for ((i = 0; i < 80; i++)); do
		screen claims | grep -qE -- "$re" && { ok "seed 000 caption '$cap': $what on screen"; return; }
		has claims "$cap" || break
		sleep 0.05
	done
	nok "seed 000 caption '$cap': $what not on screen while it showed"
	screen claims | note
}
claim "rank by total time: COMMIT leads [2]" "COMMIT the first digest" '^ +[0-9.]+% +[0-9.]+ +[0-9.]+ +(1[5-9]|2[0-9])\.[0-9]+ .* COMMIT *$'
claim "redo syncs take 10 ms, 2 a commit" "the redo sync estimate ~20 ms beside the device's flush" '^redo sync ms +~(1[89]|2[0-2])\.[0-9]+ ms'
check "seed 000 caption 'redo syncs take 10 ms': the device flushes in about 0.1 ms" bash -c 'grep -qE "^vda flush ms +0\.[01][0-9]+ ms" <<<"$1"' _ "$(screen claims)"
claim "the finding: commits wait on fsync" "the finding and its remedy" 'commits wait on fsync: COMMIT (1[89]|2[0-2])\.[0-9] ms -> SET GLOBAL innodb_flush_log_at_trx_commit = 2'
claim "TUNED: COMMIT falls from ~20 ms to ~1 ms" "COMMIT at ~1 ms" '^ +[0-9.]+% +[0-9.]+ +[0-9.]+ +[0-2]\.[0-9]+ .* COMMIT *$'
claim "u reverted it: innodb_flush_log_at_trx_commit = 1" "COMMIT at ~20 ms again" '^ +[0-9.]+% +[0-9.]+ +[0-9.]+ +(1[5-9]|2[0-9])\.[0-9]+ .* COMMIT *$'
tm kill-session -t claims 2>/dev/null
done_tests
