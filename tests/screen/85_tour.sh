#!/usr/bin/env bash
# 85_tour.sh - dbtop --demo: the tour of the bundled incidents. --demo list
# names them; --demo NAME plays one; an unknown name is refused with the
# list. On the screen (no server, no client library loaded: the backends'
# directory is empty and neither libmariadb nor libpq is mapped) the
# caption line names the incident and what to look at; > and < step
# through the tour; the goldens show each incident's end at the usual
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
check "the caption line is above the key bar (and the event timeline)" \
	bash -c 'tail -3 <<<"$1" | head -2 | grep -q "^ 1/3 mariadb-commit-fsync "' _ "$(screen live)"
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

# one incident alone
start one 100 30 --demo pg-wal-writer --speed 0
check "--demo pg-wal-writer: that incident alone (1/1)" wait_for one " 1/1 pg-wal-writer  end of the tour" 15
keys one ">"
check "--demo NAME: > has no next incident" wait_for one "this is the last incident of the tour" 5
done_tests
