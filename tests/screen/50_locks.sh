#!/usr/bin/env bash
# 50_locks.sh - the lock-wait pane on a recording of a PostgreSQL lock chain:
# the tree (root blocker idle in transaction, waiters indented, requested vs
# held lock), the kill confirmation declined and accepted (x), cancelling
# the selected waiter (c), no kill from the overview, details, filter,
# --read-only and --ascii.
set -uo pipefail
source "$(dirname "$0")/lib.bash"
need_basics

CHAIN=recordings/pg-lock-chain.dbrec

# the text inside the frame, its rows joined with single spaces
box_text() {
	screen "$1" | sed -n 's/^.*│ \(.*[^ ]\) *│ *$/\1/p' | tr '\n' ' '
}

# Start NAME on the recording a few seconds before the chain forms, open
# the locks screen, wait for the whole chain and pause there.
chain_at() {
	local name=$1
	shift
	start "$name" 160 30 "$@" --replay "$CHAIN" --from 8 --speed 1
	wait_for "$name" "REPLAY" 10 || return 1
	keys "$name" 3
	wait_for "$name" "3 waiting  1 root blocker" 15 || return 1
	keys "$name" Space
	wait_for "$name" "PAUSED" 3
}

if ! chain_at l; then
	nok "locks: the recorded chain shows on screen 3"
	screen l | note
	done_tests
fi
scr=$(screen l)
root=$(grep -m1 '▶' <<<"$scr")
rootpid=$(grep -oE '▶ [0-9]+' <<<"$root" | grep -oE '[0-9]+')
check "tree: the root blocker first, idle in transaction, with its last statement" \
	grep -qE '^▶ [0-9]+ postgres  idle in transaction [0-9.]+s  trx [0-9.]+s  blocks 3  last: UPDATE chain' <<<"$root"
check "tree: a direct waiter, a sentence naming its blocker: requested ShareLock, the root holds ExclusiveLock" \
	grep -qE "^├ [0-9]+ waits [0-9.]+s for $rootpid: requested ShareLock, $rootpid holds ExclusiveLock" <<<"$scr"
check "tree: at 160 columns its object and statement wrap under it, beside the guide" \
	bash -c 'grep -A1 -E "^├ [0-9]+ waits [0-9.]+s for $2:" <<<"$1" | grep -qE "^│ on transaction [0-9]+ on chain \(transactionid ctid .*postgres: UPDATE chain"' _ "$scr" "$rootpid"
check "tree: the second waiter indented one level deeper" \
	grep -qE '^│ ├ [0-9]+ waits [0-9.]+s for [0-9]+: requested ShareLock, [0-9]+ holds ExclusiveLock' <<<"$scr"
check "tree: the last waiter of the root closes its guide (└), deeper ones hang off │" \
	grep -qE '^└ [0-9]+ waits ' <<<"$scr"
check "tree: the ALTER TABLE waits for AccessExclusiveLock against RowExclusiveLock on the table" \
	bash -c 'grep -qE "[├└] [0-9]+ waits [0-9.]+s for [0-9]+: requested AccessExclusiveLock, [0-9]+ holds RowExclusiveLock" <<<"$1" &&
		grep -qE "on chain \(relation\)  postgres: SET lock_timeout" <<<"$1"' _ "$scr"
check "tree: a waiter reached twice is expanded once" grep -q '\[shown above\]' <<<"$scr"
check "history line: waiting sessions and lock wait time sparklines" \
	bash -c 'grep -qE "^waiting +[▁▂▃▄▅▆▇█ ]+ +lock wait ms/s" <<<"$1"' _ "$scr"

# x: the confirmation names the root and the SQL; n declines
keys l x
check "x: a confirmation naming the root's session and pg_terminate_backend" \
	wait_for l "END session $rootpid (user postgres, idle in transaction" 3
check "x: the confirmation says what happens to the transaction" has l "pg_terminate_backend($rootpid)? Its open transaction is rolled back."
check "x: the confirmation shows its statement" grep -qF "Statement: UPDATE chain SET v = v + 1 WHERE id = 1" <<<"$(box_text l)"
# the box clears what is under it: its frame and a blank margin around it
box_ok() {
	local LC_ALL=C.UTF-8
	local -a r
	local i top=-1 bot=-1 x0=-1 l
	mapfile -t r < <(screen "$1")
	for i in "${!r[@]}"; do
		l=${r[$i]%%┌*}
		[ $top -lt 0 ] && [ "$l" != "${r[$i]}" ] && top=$i x0=${#l}
		[[ ${r[$i]} == *└─* ]] && bot=$i
	done
	[ $top -gt 0 ] && [ $bot -gt $top ] && [ $x0 -gt 0 ] || return 1
	# the column left of the frame and the rows above and below it blank
	for ((i = top - 1; i <= bot + 1; i++)); do
		[ "${r[$i]:$((x0 - 1)):1}" = " " ] || [ -z "${r[$i]:$((x0 - 1)):1}" ] || return 2
	done
	l=${r[$((top - 1))]:$x0:60}${r[$((bot + 1))]:$x0:60}
	[ -z "${l// /}" ] || return 3
}
check "x: the confirmation framed, a blank margin around it (nothing of the screen touches it)" box_ok l
keys l n
check "n: declined, the session is left alone" wait_for l "not done: session $rootpid left alone" 3
check "n: the root is still listed" has l "▶ $rootpid "

# the selected waiter, not its root: the ALTER TABLE at the end of the tree
wpid=$(screen l | sed -nE 's/^[^0-9]*([0-9]+) .*AccessExclusiveLock.*/\1/p' | head -1)
keys l G
keys l c
if [ -n "$wpid" ] && wait_for l "CANCEL the statement of session $wpid" 3; then
	ok "c on the selected waiter $wpid: its statement, not the root's"
	check "c on the waiter: pg_cancel_backend($wpid), its transaction stays open" has l "pg_cancel_backend($wpid)? Its transaction stays open."
	check "c on the waiter: the session it waits for is left alone" grep -qE "Session [0-9]+, which it waits for, is left alone." <<<"$(box_text l)"
else
	nok "c on the selected waiter ${wpid:-?}: no confirmation naming it"
	screen l | note
fi
keys l n
wait_for l "not done: session" 3
keys l g
# c, then y: a recording cannot act; the screen says so, nothing breaks
keys l c
check "c: the cancel confirmation names pg_cancel_backend" wait_for l "pg_cancel_backend($rootpid)? Its transaction stays open." 3
keys l y
check "y on a recording: told that the source cannot act" wait_for l "this is a recording: cancelling a statement needs a live server" 3

# Enter: details of the selected row (the root)
keys l Enter
check "Enter: details of the root: how many it blocks" wait_for l "root blocker: 3 sessions wait on it, directly or not" 3
check "details: each lock it blocks, requested vs held" has l "blocks "
check "details: its last statement, in full" has l "last statement:"
keys l Escape
check "Esc: back to the tree" wait_for l "3 waiting  1 root blocker" 3

# filter: only the ALTER TABLE rows
keys l /
literal l "ALTER TABLE"
keys l Enter
sleep 0.3
scr=$(screen l)
check "filter: the ALTER TABLE rows stay" grep -q "requested AccessExclusiveLock" <<<"$scr"
check "filter: the row-lock waiters are gone" bash -c '! grep -q "requested ShareLock" <<<"$1"' _ "$scr"

# the overview: the locks pane focused, j j k x c: nothing asked, nothing done
keys l 0
wait_for l "[5] safe tuning" 3
keys l Tab Tab j j k x
check "overview: x opens no confirmation; it says where it works" wait_for l "x does nothing here; it works on: screen 3" 3
keys l c
sleep 0.3
check "overview: c opens no confirmation either" bash -c '! grep -qE "End this session|Cancel this statement" <<<"$1"' _ "$(screen l)"
keys l q
check "q quits" wait_for l "EXITED 0" 5

# --read-only: x refuses, no confirmation
if chain_at r --read-only; then
	keys r x
	check "--read-only: x refuses and says why" wait_for r "read-only session (--read-only): no kill or cancel" 3
	check "--read-only: no confirmation opened" bash -c '! grep -q "End this session?" <<<"$1"' _ "$(screen r)"
	keys r q
else
	nok "--read-only: the chain shows"
fi

# --ascii: no Unicode arrows or tree lines
if chain_at a --ascii; then
	scr=$(screen a)
	check "--ascii: the tree in ASCII" grep -qE '^>[0-9 ]' <<<"$scr"
	check "--ascii: guides as |- and \`-" grep -qE '^\|- [0-9]+ waits .* requested ShareLock, [0-9]+ holds ExclusiveLock' <<<"$scr"
	check "--ascii: no Unicode on the locks screen" bash -c '! LC_ALL=C grep -q "[^ -~]" <<<"$1"' _ "$scr"
	keys a q
else
	nok "--ascii: the chain shows"
fi
done_tests
