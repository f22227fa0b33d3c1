#!/usr/bin/env bash
# 80_incidents.sh - every bundled recording carries the data of the panes
# its incident is about: replayed to a fixed moment (a copy cut at that
# sample, --speed 0), each pane of the table below must show a data row,
# not its empty state ("no wait profile yet", "tuning acts on a live server
# only", no session list...). A recording made before dbtop recorded a pane
# fails here: re-record with scripts/record-incidents.sh.
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
pg-lock-chain        16 0 finding  ^!+ session [0-9]+, idle in its transaction, blocks
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
		start "$s" 160 50 --replay "$T/$inc-$n.dbrec" --speed 0
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
done_tests
