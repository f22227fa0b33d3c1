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
# fits 73 columns, so that its line fits 80; at 100x30 each caption that
# claims a figure or something visible has it on screen while it shows (the
# five incidents played at once).
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
# the captions (app/tour.c): each at most 73 columns (" 1/5   " before
# it), each incident's first one naming its seed
caps=$(sed -nE 's/^\t\{[0-9]+, "(.*)"\},$/\1/p' app/tour.c)
check "captions: $(grep -c . <<<"$caps") read from app/tour.c, none over 73 columns" \
	bash -c '[ "$(grep -c . <<<"$0")" -ge 25 ] && ! awk "length > 73" <<<"$0" | grep -q .' "$caps"
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
# Each caption names what the screen shows at 100x30 while it is up (issue
# 30: the demo's evidence matches its caption). claim S CAP WHAT TEST...:
# once the caption CAP (a fixed string) shows in session S (named after its
# incident), its screen is polled while CAP is up until one capture holding
# CAP passes every TEST: ERE (a line matches), !ERE (no line matches), ~ERE
# (the screen joined into one line by spaces: what wraps or spans rows,
# back-references across rows), @FUNC (FUNC reads the screen on stdin).
claim_holds() {
	local scr=$1 t re l hit
	shift
	local -a rows
	mapfile -t rows <<<"$scr"
	for t; do
		case $t in
		@*) "${t#@}" <<<"$scr" || return 1 ;;
		\~*)
			re=${t#\~}
			[[ ${rows[*]} =~ $re ]] || return 1
			;;
		!*)
			re=${t#!}
			for l in "${rows[@]}"; do [[ $l =~ $re ]] && return 1; done
			;;
		*)
			hit=0
			for l in "${rows[@]}"; do [[ $l =~ $t ]] && hit=1 && break; done
			[ $hit = 1 ] || return 1
			;;
		esac
	done
	return 0
}
claim() {
	local s=$1 cap=$2 what=$3 scr last='' i
	shift 3
	# the caption within 45 s, then as long as it shows (60 s at most)
	for ((i = 0; i < 600; i++)); do
		scr=$(screen "$s" 2>/dev/null)
		if [[ $scr == *"$cap"* ]]; then
			last=$scr
			claim_holds "$scr" "$@" && { ok "$s caption '$cap': $what on screen"; return 0; }
		elif [ -n "$last" ] || [ $i -ge 450 ]; then
			break
		fi
		sleep 0.1
	done
	if [ -z "$last" ]; then
		nok "$s caption '$cap': never shown"
		screen "$s" | note
	else
		nok "$s caption '$cap': $what not on screen while it showed"
		note <<<"$last"
	fi
	return 1
}
# claim_key S CAP KEY: once CAP shows, press KEY (to look where it points)
claim_key() { wait_for "$1" "$2" 45 && keys "$1" "$3"; }
# rowv LABEL: [1]'s row LABEL on stdin as "NOW MIN MAX AVG" (an estimate's ~ dropped)
rowv() {
	awk -v l="$1" 'index($0, l " ") == 1 {
		s = substr($0, length(l) + 1); gsub(/~/, "", s); n = split(s, f, " ")
		print f[1], f[n - 2], f[n - 1], f[n]; exit }'
}
# cmp_rows "LABEL" "LABEL2" AWK: AWK holds over a b c d (LABEL now min max avg) and e f g h (LABEL2's)
cmp_rows() {
	local s
	s=$(cat)
	printf '%s %s\n' "$(rowv "$1" <<<"$s")" "$(rowv "$2" <<<"$s")" |
		awk "NF == 8 { split(\$0, v, \" \"); a = v[1]; b = v[2]; c = v[3]; d = v[4]; e = v[5]; f = v[6]; g = v[7]; h = v[8]; exit !($3) } { exit 1 }"
}
# the line steps up: now at least twice the average of what [1] holds
steps_up() { cmp_rows "commits/s" "commits/s" "a >= 2 * d"; }
# the device slow (5 ms and more) and the server's sync no faster
slow_device() { cmp_rows "loop0 flush ms" "redo sync ms" "a >= 5 && e >= a"; }
# fsyncs per run ~20x below their high
per_run_20x() { cmp_rows "fsyncs per run" "fsyncs per run" "a > 0 && c >= 15 * a"; }
# this recording's own before and after: s per run halved or better, fsyncs per run a tenth
slap_here() { cmp_rows "s per run" "fsyncs per run" "a > 0 && c >= 2 * a && e > 0 && g >= 10 * e"; }
# the runs slow down again: s and fsyncs per run above their low
runs_slow() { cmp_rows "s per run" "fsyncs per run" "a >= 1.5 * b && e >= 4 * f"; }
# the WAL syncs: tens a second, ten times fewer when tuned, back after u
many_syncs() { cmp_rows "fsyncs/s" "fsyncs/s" "a >= 50"; }
syncs_fall() { cmp_rows "fsyncs/s" "fsyncs/s" "c >= 10 * a"; }
syncs_back() { cmp_rows "fsyncs/s" "fsyncs/s" "b > 0 && a >= 10 * b"; }
# the finding's count of the WAL writer's flushes a second is [1]'s fsyncs/s
finding_counts() {
	local s n
	s=$(cat)
	n=$(sed -nE 's/^! the WAL writer flushes ([0-9]+) times a second.*/\1/p' <<<"$s")
	[ -n "$n" ] && cmp_rows "fsyncs/s" "fsyncs/s" "a - $n <= 2 && $n - a <= 2" <<<"$s"
}
DIGEST='^ +[0-9.]+% +(≤)?[0-9.]+ +[0-9.]+'
COMMIT_20MS=$DIGEST' +(1[5-9]|2[0-9])\.[0-9]+ .* COMMIT *$'
TUNED='^ dbtop .* TUNED 1 '

claims_fsync() {
	local s=mariadb-commit-fsync
	claim $s "rank by total time: COMMIT leads [2]" "COMMIT the first digest" "$COMMIT_20MS"
	claim $s "redo syncs take 10 ms: [1] redo sync ~11" \
		"the redo sync estimate ~11 ms (10 ms and the write) beside the device's flush in ~0.1 ms, COMMIT ~20 ms: two syncs" \
		'^redo sync ms +~1[01]\.[0-9]+ ms' '^vda flush ms +0\.[01][0-9]+ ms' "$COMMIT_20MS"
	claim $s "the finding: commits wait on fsync" "the finding and its remedy" \
		'commits wait on fsync: COMMIT (1[89]|2[0-2])\.[0-9] ms -> SET GLOBAL innodb_flush_log_at_trx_commit = 2'
	claim $s "TUNED: COMMIT falls from ~20 ms to ~1 ms" "COMMIT at ~1 ms" "$DIGEST"' +[0-2]\.[0-9]+ .* COMMIT *$'
	claim $s "u reverted it: innodb_flush_log_at_trx_commit = 1" "COMMIT at ~20 ms again" "$COMMIT_20MS"
}
# commit_leads: [2]'s first row (the stdin screen's first digest row) is COMMIT
commit_leads() { grep -E "$DIGEST" | head -n 1 | grep -qE ' COMMIT *$'; }
claims_upsert() {
	local s=mariadb-upsert-gap-lock
	claim $s "seed 001: each visit upserts its website" "the website upsert in [2], 10 sessions" \
		"$DIGEST"'.* dbtop_test +INSERT INTO `website` \( ID ' '^sessions: 10 \('
	claim $s "[3] lock tree: requested vs held lock on table.index" \
		"a tree: the root blocker, a waiter's requested and held modes on dbtop_test.website.uk_website_domain" \
		'^[0-9]+ waiting +[0-9]+ root blockers?' \
		'~▶ ([0-9]+) dbtop_admin .* blocks [0-9]+ .* ├ [0-9]+ waits [0-9.]+s for \1: requested X(,GAP)?, \1 holds X +on dbtop_test\.website\.uk_website_domain '
	claim $s "the finding: upserts wait on one key's X lock" "the finding: X <- X (or X,GAP <- X) on the unique key" \
		"^! (upserts wait on each other: X|inserts wait on an upsert's lock: X,GAP) <- X on dbtop_test\.website\.uk_website_domain"
	claim $s "its remedy is an application fix (read first)" "the finding's application fix, no setting" \
		'~-> an application fix, no setting changes it: read first '
	claim $s "the client fixed: read first, upsert only" "the read first in [2], no upsert there" \
		"$DIGEST"'.* dbtop_test +SELECT ID , `favicon_url` FROM' '!INSERT INTO `website`'
	claim $s "[1] commits/s = requests/s: the line steps up" "commits/s at twice the average of its history in [1]" @steps_up
	claim $s "no lock waits left; COMMIT leads [2] now" "no lock wait, COMMIT the first digest, no setting changed" \
		'^no session waits for a lock' '^sessions: [0-9]+ \([0-9]+ active, 0 waiting for lock' \
		@commit_leads \
		'^none of the [0-9]+ settings changed by dbtop' '!change in force' "!$TUNED"
}
claims_slap() {
	local s=mariadb-slap-flush
	claim $s "seed 002: mysqlslap -c 8 on a disk whose flushes take ~9 ms" "8 sessions committing, loop0's flush ~9 ms" \
		'^loop0 flush ms +(8\.[5-9]|9\.[0-9]|10\.[0-4])[0-9]* ms' '^sessions: [0-9]+ \(8 active' 'mysqlslap +COMMIT *$'
	claim $s "[1] loop0 flush ms: the device itself is slow, the server agrees" \
		"loop0's flush >= 5 ms, the redo sync no less, the finding" @slow_device '^! commits wait on fsync: COMMIT '
	claim $s "fsyncs per run, s per run: runs counted" "s per run and fsyncs per run" \
		'^s per run +[0-9.]+ s ' '^fsyncs per run +[0-9.]+ '
	claim_key $s "screen 5, a: innodb_flush_log_at_trx_commit = 2" 5
	claim $s "screen 5, a: innodb_flush_log_at_trx_commit = 2 (doublewrite: restart)" \
		"screen 5: the remedy 1 -> 2, what a runs, innodb_doublewrite only with a restart" \
		"^innodb_flush_log_at_trx_commit +1 +2 +yes +<- the finding's remedy" \
		'^a runs: SET GLOBAL innodb_flush_log_at_trx_commit = 2$' \
		'~innodb_doublewrite=ON: changed only in my\.cnf with a server restart'
	claim $s "risk: up to ~1 s of commits on an OS crash" "screen 5: TUNED, the value 2 set by dbtop, the risk of ~1 s" \
		"$TUNED" '^innodb_flush_log_at_trx_commit +2 +1 +yes +dbtop set 2 ' \
		'~risk: .* an OS crash or power loss can lose up to ~1 s of committed transactions'
	keys $s Escape
	claim $s "risk: up to ~1 s of commits on an OS crash; fsyncs per run fall ~20x" \
		"fsyncs per run 15x and more below their high" "$TUNED" @per_run_20x
	claim $s "seed 002: 5.0 -> 0.15 s and 2,128 -> 204 fsyncs per run; here [1]" \
		"s per run halved, fsyncs per run a tenth of their high" "$TUNED" @slap_here
	claim $s "u reverted it: flush = 1 again, the runs slow down" "no change in force, the finding back, s and fsyncs per run up" \
		"!$TUNED" '!change in force' '^! commits wait on fsync: COMMIT [0-9.]+ ms -> SET GLOBAL innodb_flush_log_at_trx_commit = 2 ' \
		@runs_slow
	keys $s 5
	claim $s "u reverted it: flush = 1 again" "screen 5: innodb_flush_log_at_trx_commit 1" \
		"^innodb_flush_log_at_trx_commit +1 +2 +yes +<- the finding's remedy"
}
claims_wal() {
	local s=pg-wal-writer
	claim $s "seed 004: asynchronous commits, wal_writer_delay = 10ms: [1] fsyncs/s" \
		"the settings line, tens of fsyncs/s" \
		'^synchronous_commit=off wal_writer_delay=10ms -> commits return before their WAL is flushed' @many_syncs
	claim $s "the finding counts the WAL writer's flushes a second; [4] their syncs" \
		"the finding's flushes a second = [1]'s fsyncs/s, IO:WALSync in [4]" @finding_counts '^IO:WALSync +wal '
	claim $s "[5] tuning: wal_writer_delay's remedy is 1s; this user may set it" "[5]: 10ms -> 1s, may set, the remedy" \
		"^wal_writer_delay +10ms +1s +yes +<- the finding's remedy"
	claim $s "screen 5, a: wal_writer_delay = 1s through dbtop (ALTER SYSTEM + reload)" "the remedy's ALTER SYSTEM and reload" \
		"~-> ALTER SYSTEM SET wal_writer_delay = '1s'; SELECT pg_reload_conf\(\) \(screen 5, a;"
	claim $s "screen 5, a: wal_writer_delay = 1s through dbtop" "TUNED, one change in force" "$TUNED" '^1 change in force' '!^none of the [0-9]+ settings changed'
	claim $s "TUNED: [1] fsyncs/s fall" "TUNED, wal_writer_delay=1s, fsyncs/s a tenth of their high" \
		"$TUNED" '^synchronous_commit=off wal_writer_delay=1s ' @syncs_fall
	claim $s "u reverted it: wal_writer_delay = 10ms again, the syncs come back" \
		"wal_writer_delay 10ms, no change in force, fsyncs/s ten times their low" \
		"!$TUNED" '!change in force' '(^synchronous_commit=off wal_writer_delay=10ms |^wal_writer_delay +10ms +1s +yes )' @syncs_back
}
claims_chain() {
	local s=pg-lock-chain
	claim $s "PostgreSQL, light pgbench load: a session takes a row, idles in its trx" \
		"pgbench's statements, a session idle in its transaction after an UPDATE" \
		"$DIGEST"'.* dbtop_test +UPDATE pgbench_' 'idle in trx .* last: UPDATE chain SET' \
		'^sessions: [0-9]+ \(.*, 1 idle in transaction'
	claim $s "[3] lock waits: the root blocker on top (idle in transaction), a tree" \
		"a tree: the root idle in transaction, a waiter on it (ShareLock <- ExclusiveLock)" \
		'^[0-9]+ waiting +1 root blocker' \
		'~▶ ([0-9]+) postgres +idle in transaction [0-9.]+s .* blocks [0-9]+ .* ├ [0-9]+ waits [0-9.]+s for \1: requested ShareLock, \1 holds ExclusiveLock '
	claim $s "the finding names the root blocker; x on screen 3 would end it" "the finding naming the tree's root, x on screen 3" \
		'~!! session ([0-9]+), idle in its transaction for [0-9.]+ s, blocks 3 sessions .*-> end it with x on screen 3 .*▶ \1 postgres +idle in transaction '
	claim_key $s "screen 3: the ALTER TABLE waits on all three" 3
	claim $s "screen 3: the ALTER TABLE waits on all three" "screen 3: the ALTER TABLE's AccessExclusiveLock waiting on three sessions" \
		'~ALTER TABLE chain ADD COLUMN' \
		'~ ([0-9]+) waits [0-9.]+s for [0-9]+: requested AccessExclusiveLock, [0-9]+ holds RowExclusiveLock .* \1 waits [0-9.]+s for [0-9]+: requested AccessExclusiveLock, [0-9]+ holds RowExclusiveLock .* \1 waits [0-9.]+s for [0-9]+: requested AccessExclusiveLock, '
	keys $s Escape
	claim $s "the root commits: the chain drains; [2] its waiters end after ~15 s" \
		"no waiter, no tree, the chain's statements ending in [2] after ~15 s" \
		'^sessions: [0-9]+ \([0-9]+ active, 0 waiting for lock' '!^▶ ' '!idle in transaction' \
		"$DIGEST"' +1[45]\.[0-9]k .* (UPDATE chain SET|ALTER TABLE chain)'
}
# the five play at once, each checked by its own poller
declare -A CLAIMS=([mariadb-commit-fsync]=claims_fsync [mariadb-upsert-gap-lock]=claims_upsert
	[mariadb-slap-flush]=claims_slap [pg-wal-writer]=claims_wal [pg-lock-chain]=claims_chain)
for n in $INCIDENTS; do
	start "$n" 100 30 --demo "$n"
	"${CLAIMS[$n]}" >"$T/claims-$n" 2>&1 &
done
wait
for n in $INCIDENTS; do
	cat "$T/claims-$n"
	fails=$((fails + $(grep -c '^not ok - ' "$T/claims-$n")))
	tm kill-session -t "$n" 2>/dev/null
done
done_tests
