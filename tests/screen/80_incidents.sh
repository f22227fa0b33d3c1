#!/usr/bin/env bash
# 80_incidents.sh - every bundled recording carries the data of the panes
# its incident is about: replayed to a fixed moment (a copy cut at that
# sample, --speed 0), each pane of the table below must show a data row,
# not its empty state ("no wait profile yet", "tuning acts on a live server
# only", no session list...). A recording made before dbtop recorded a pane
# fails here: re-record with scripts/record-incidents.sh. The seed 001 and
# 002 recordings are read at 100x30 (the others at 160x50), and their
# effects are measured: the request rate before and after the client's fix
# (seed 001), fsyncs and time per run, redo fsyncs/s and commit latency
# before and after a (seed 002), on the screen and in the replay's records.
#   INCIDENT_RECORDINGS=DIR  check the recordings in DIR instead (e.g. older ones)
set -uo pipefail
source "$(dirname "$0")/lib.bash"
need_basics
DIR=${INCIDENT_RECORDINGS:-recordings}

# incident, the sample the copy ends on, screen key, pane, what it must show (ERE)
TABLE=$(cat <<'T'
mariadb-commit-fsync 12 0 finding  ^!+ .*innodb_flush_log_at_trx_commit
mariadb-commit-fsync 12 2 digests  ^ *[0-9.]+% +[0-9.]+ +[0-9.]+ +[0-9.]+ .* COMMIT
mariadb-commit-fsync 28 1 rates    ^fsyncs/commit +0\.[0-9]+
mariadb-commit-fsync 28 4 waits    ^wait/[a-z/_]+ +[a-z]+ +[0-9.]+ +[0-9.]+%
mariadb-commit-fsync 28 5 tuning   ^innodb_flush_log_at_trx_commit +2 +1 +yes +dbtop set 2
mariadb-commit-fsync 28 5 badge    ^ dbtop UP .* TUNED 1
mariadb-commit-fsync 28 6 sessions ^sessions: [1-9][0-9]* \(
pg-lock-chain        16 0 finding  ^!+ session [0-9]+, idle in its transaction( for [0-9.]+ s)?, blocks
pg-lock-chain        16 2 digests  ^ *[0-9.]+% +[0-9.]+ .*UPDATE pgbench
pg-lock-chain        16 3 locks    ^[0-9]+ waiting +1 root blocker
pg-lock-chain        16 3 waiters  ^├ [0-9]+ waits
pg-lock-chain        16 4 waits    ^Lock:[a-z]+ +lock +[0-9.]+ +[0-9.]+%
pg-lock-chain        16 5 tuning   ^synchronous_commit +on +off +yes
pg-lock-chain        16 6 sessions ^sessions: [1-9][0-9]* \(.*waiting for lock
pg-wal-writer        12 0 finding  wal_writer_delay
pg-wal-writer        12 4 waits    ^[A-Za-z]+:[A-Za-z]+ +[a-z]+ +[0-9.]+ +[0-9.]+%
pg-wal-writer        28 1 rates    ^commits/s +[0-9]
pg-wal-writer        28 2 digests  ^ *[0-9.]+% +[0-9.]+ .*pgbench
pg-wal-writer        28 5 tuning   ^wal_writer_delay +1s +10ms +yes +dbtop set 1s
pg-wal-writer        28 5 badge    ^ dbtop UP .* TUNED 1
pg-wal-writer        28 6 sessions ^sessions: [1-9][0-9]* \(
mariadb-upsert-gap-lock 12 0 finding ^!+ (inserts wait on an upsert's lock: X,GAP <- X|upserts wait on each other: X <- X) on dbtop_test\.website\.uk_website_domain
mariadb-upsert-gap-lock 12 3 remedy  ^ +-> an application fix, no setting changes it: read first
mariadb-upsert-gap-lock 12 3 locks   ^[0-9]+ waiting +[0-9]+ root blockers?
mariadb-upsert-gap-lock 12 3 root    ^▶ [0-9]+ dbtop_admin +[A-Za-z].* blocks [0-9]+ +[A-Za-z]
mariadb-upsert-gap-lock 12 3 waiters ^├ [0-9]+ waits [0-9.]+s for [0-9]+: requested X(,GAP)?, [0-9]+ holds X$
mariadb-upsert-gap-lock 12 3 object  ^│ on dbtop_test\.website\.uk_website_domain \(RECORD '
mariadb-upsert-gap-lock 12 5 tuning  ^nothing changed by dbtop
mariadb-upsert-gap-lock 28 3 nowait  ^no session waits for a lock
mariadb-slap-flush   15 0 finding  ^!+ commits wait on fsync
mariadb-slap-flush   15 1 runs     ^s per run +[0-9.]+ s
mariadb-slap-flush   15 1 fsyncs   ^fsyncs per run +[0-9]{3,}
mariadb-slap-flush   15 1 redo     ^  redo +[0-9.]+
mariadb-slap-flush   15 1 commit   ^commit latency ms +[0-9.]+ ms
mariadb-slap-flush   15 1 device   ^loop[0-9]+ flush ms +[0-9.]+ ms
mariadb-slap-flush   28 0 badge    ^ dbtop UP .* TUNED 1
mariadb-slap-flush   28 1 fsyncs   ^fsyncs per run +[0-9]{1,2}\.[0-9]+
mariadb-slap-flush   28 1 risk     ^redo synced about once a second: up to ~1 s of commits lost on an OS crash
mariadb-slap-flush   28 5 tuning   ^innodb_flush_log_at_trx_commit +2 +1 +yes +dbtop set 2
mariadb-slap-flush   28 5 restart  ^innodb_doublewrite=ON: changed only in my\.cnf with a server restart, so no key
mariadb-slap-flush   38 1 revert   ^innodb_flush_log_at_trx_commit=1 sync_binlog=0
T
)

# shows NAME ERE: the screen has a line matching ERE
shows() { screen "$1" | grep -qE -- "$2"; }

prev=
while read -r inc n key pane re; do
	s=${inc%%-*}$n
	if [ "$inc $n" != "$prev" ]; then
		prev="$inc $n"
		tm kill-server >/dev/null 2>&1
		if ! python3 tests/screen/cutrec.py "$DIR/$inc.dbrec" "$T/$inc-$n.dbrec" "$n" >/dev/null 2>&1; then
			nok "$inc: $DIR/$inc.dbrec has $n samples"
			continue
		fi
		case $inc in
		mariadb-upsert-gap-lock | mariadb-slap-flush) start "$s" 100 30 --replay "$T/$inc-$n.dbrec" --speed 0 ;;
		*) start "$s" 160 50 --replay "$T/$inc-$n.dbrec" --speed 0 ;;
		esac
		if ! wait_for "$s" "REPLAY ended" 15; then
			nok "$inc: the replay reaches sample $n"
			continue
		fi
	fi
	keys "$s" "$key"
	if retry 5 shows "$s" "$re"; then
		ok "$inc at sample $n: screen $key shows the $pane ($re)"
	else
		nok "$inc at sample $n: screen $key shows no $pane data ($re); re-record with scripts/record-incidents.sh"
		screen "$s" | head -30 | note
	fi
done <<<"$TABLE"
tm kill-server >/dev/null 2>&1

# replay_at RECORDING SAMPLE KEY: replay a copy cut there at 100x30 and
# show that screen (key KEY); the session is called "at"
replay_at() {
	tm kill-server >/dev/null 2>&1
	python3 tests/screen/cutrec.py "$DIR/$1.dbrec" "$T/at.dbrec" "$2" >/dev/null 2>&1 &&
		start at 100 30 --replay "$T/at.dbrec" --speed 0 && wait_for at "REPLAY ended" 15 && keys at "$3" && sleep 0.5
}
# val LABEL: the value now of the rates row LABEL on screen "at"
val() { screen at | sed -nE "s/^$1 +([0-9.]+).*/\1/p" | head -1; }
ratio() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { exit !(a != "" && b != "" && b > 0 && a / b >= r) }'; }

# seed 001: the insert intention as MariaDB names it (X,GAP) against the
# upsert's X, found with the lock pane's filter
if replay_at mariadb-upsert-gap-lock 12 3; then
	keys at / && literal at "X,GAP" && keys at Enter
	if retry 5 bash -c 'tmux -L "$0" capture-pane -p -t at | grep -qE "^[├└] [0-9]+ waits [0-9.]+s for [0-9]+: requested X,GAP, [0-9]+ holds X$"' "$SOCK"; then
		ok "mariadb-upsert-gap-lock at 12, screen 3 filtered on X,GAP: requested X,GAP (the insert intention), held X"
	else
		nok "mariadb-upsert-gap-lock at 12: no X,GAP waiter under the filter"
		screen at | head -30 | note
	fi
	keys at 5
	sleep 0.5
	check "mariadb-upsert-gap-lock at 12, screen 5: no setting offered for it (no row is the finding's remedy)" \
		bash -c '! tmux -L "$0" capture-pane -p -t at | grep -q "the finding.s remedy"' "$SOCK"
else
	nok "mariadb-upsert-gap-lock: replay to sample 12"
fi

# the effects in the replay's own records (dbtop --replay --batch): the
# mean of a rate over samples [a, b)
"$DBTOP" --replay "$DIR/mariadb-upsert-gap-lock.dbrec" --speed 0 --batch --format json >"$T/upsert.jsonl" 2>/dev/null
"$DBTOP" --replay "$DIR/mariadb-slap-flush.dbrec" --speed 0 --batch --format json >"$T/slap.jsonl" 2>/dev/null
mean() {
	python3 -c '
import json, sys
v = [json.loads(l)["rates"].get(sys.argv[2]) for l in open(sys.argv[1])][int(sys.argv[3]):int(sys.argv[4])]
v = [x for x in v if x is not None]
print("%.3f" % (sum(v) / len(v)) if v else "")' "$@"
}
b=$(mean "$T/upsert.jsonl" commits_per_s 2 15)
a=$(mean "$T/upsert.jsonl" commits_per_s 18 31)
check "seed 001: requests (commits)/s with the client's fix / before: $a / $b >= 2" ratio "$a" "$b" 2
b=$(mean "$T/slap.jsonl" fsyncs_per_run 12 18)
a=$(mean "$T/slap.jsonl" fsyncs_per_run 24 33)
check "seed 002: fsyncs per run before a / after: $b / $a >= 5" ratio "$b" "$a" 5
rb=$(mean "$T/slap.jsonl" run_s 12 18)
ra=$(mean "$T/slap.jsonl" run_s 24 33)
check "seed 002: time per run before a / after: $rb / $ra s >= 1.5 (after a the runs are bound by the CPU)" ratio "$rb" "$ra" 1.5

# ... and on screen 1 at 100x30: before (15) and after (28) a
if replay_at mariadb-slap-flush 15 1; then
	f0=$(val "fsyncs per run") s0=$(val "s per run") r0=$(val "  redo") l0=$(val "commit latency ms")
	replay_at mariadb-slap-flush 28 1
	f1=$(val "fsyncs per run") s1=$(val "s per run") r1=$(val "  redo") l1=$(val "commit latency ms")
	check "seed 002 on screen: fsyncs per run $f0 -> $f1 (>= 5x fewer)" ratio "$f0" "$f1" 5
	check "seed 002 on screen: s per run $s0 -> $s1 (shorter)" ratio "$s0" "$s1" 1.5
	check "seed 002 on screen: redo fsyncs/s $r0 -> $r1 (>= 2x fewer)" ratio "$r0" "$r1" 2
	check "seed 002 on screen: commit latency $l0 -> $l1 ms (>= 2x lower)" ratio "$l0" "$l1" 2
else
	nok "mariadb-slap-flush: replay to sample 15"
fi
done_tests
