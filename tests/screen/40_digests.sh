#!/usr/bin/env bash
# 40_digests.sh - the statement digests pane on a recording: ranking by total
# time, sort, interval / cumulative, filter, the detail view, and Esc back.
set -uo pipefail
source "$(dirname "$0")/lib.bash"
need_basics

PGWAL=recordings/pg-wal-writer.dbrec
MARIADB=recordings/mariadb-commit-fsync.dbrec

start g 140 36 --replay "$PGWAL" --speed 0
if ! wait_for g "REPLAY ended" 15; then
	nok "pg replay reaches its end"
	done_tests
fi
keys g 2
check "screen 2: the digests pane, its source and sort" wait_for g "pg_stat_statements 1.10  per interval" 5
check "screen 2: column heads" has g "ms/s   calls/s   avg ms    rows/s     hit/s    read/s schema"
# the first data row (row 4) is the statement with the most time per second
# (polled: on a loaded machine the heads can reach the screen before the rows)
row4_has() { line g 4 | grep -qE -- "$1"; }
retry 5 row4_has '^ +[0-9.]+%'
first=$(line g 4)
check "screen 2: a pgbench update (branches or accounts) ranks first by total time" grep -qE "UPDATE pgbench_(branches|accounts)" <<<"$first"
check "screen 2: shares are percentages" grep -qE '^ +[0-9.]+%' <<<"$first"
keys g s
check "s: sorted by calls" wait_for g "sort: calls" 3
keys g s s s
check "s cycles back to total time" wait_for g "sort: total time" 3
keys g d
check "d: cumulative since first seen" wait_for g "since first seen (d: per interval)" 3
check "d: cumulative column heads" has g "total ms     calls"
keys g d
check "d again: per interval" wait_for g "per interval (d: cumulative)" 3
keys g / 
literal g "pgbench_accounts"
keys g Enter
check "filter: the title shows the pattern and the row count" wait_for g "filter /pgbench_accounts/ (" 3
rows=$(screen g | grep -cE '^ +[0-9.]+% .*(UPDATE|SELECT|INSERT|END|BEGIN)')
acc=$(screen g | grep -cE '^ +[0-9.]+% .*pgbench_accounts')
check "filter: only matching statements are listed ($acc of $rows)" test "$rows" -ge 1 -a "$rows" = "$acc"
keys g Enter
check "Enter: the detail view of the selected statement" wait_for g "digest " 3
check "detail: the full text" has g "pgbench_accounts"
check "detail: every counter, since first seen and per second" has g "since first seen per second now"
check "detail: shared blocks and WAL bytes (PostgreSQL)" bash -c 'grep -q "shared blocks hit" <<<"$1" && grep -q "WAL bytes" <<<"$1"' _ "$(screen g)"
check "detail: its own sparkline of total ms/s" bash -c 'grep -q "total ms/s" <<<"$1" && grep -q "[▁▂▃▄▅▆▇█]" <<<"$1"' _ "$(screen g)"
keys g Escape
check "Esc: back to the list" wait_for g "filter /pgbench_accounts/" 3
keys g / C-u Enter
keys g q
check "q quits" wait_for g "EXITED 0" 5

# MariaDB: lock time and rows examined columns, performance_schema source
start m 140 36 --replay "$MARIADB" --speed 0
if wait_for m "REPLAY ended" 15; then
	keys m 2
	check "mariadb: performance_schema digests" wait_for m "performance_schema  per interval" 5
	check "mariadb: lock ms/s and rows examined columns" has m "lock ms/s    exam/s"
	check "mariadb: the COMMIT digest ranks first by total time (seed 000)" grep -q "COMMIT" <<<"$(line m 4)"
	keys m q
	check "mariadb: q quits" wait_for m "EXITED 0" 5
else
	nok "mariadb replay reaches its end"
fi
done_tests
