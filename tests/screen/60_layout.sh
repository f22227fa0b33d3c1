#!/usr/bin/env bash
# 60_layout.sh - golden screens of every bundled recording at the sizes
# people use (80x24, 100x30, 120x40, 160x50, 200x50): the overview and
# screens 1-5, each replayed at --speed 0 to a fixed moment (the lock chain
# while it stands; the others at their end), so that a screen is the same
# at every run. check_screens.py then holds every golden to the layout
# rules (a pane with data shows a data row, the statement keeps 30 columns
# at 80 wide, every cut shows its mark, no blank lines while a pane is cut,
# a border between columns). At 80x24, 120x40 and 200x50 the overview is
# also compared part by part (header, each tile, key bar: golden/tiles/),
# so that a failure names its tile. UPDATE_GOLDEN=1 rewrites
# tests/screen/golden/layout/*.txt and tiles/*.txt: read them before committing.
set -uo pipefail
source "$(dirname "$0")/lib.bash"
need_basics
# GOLDEN_ROOT: take (UPDATE_GOLDEN=1) or compare the goldens elsewhere, e.g.
# to hold another build's screens to the rules
GOLDEN_DIR=${GOLDEN_ROOT:-$GOLDEN_DIR}

SIZES="80x24 100x30 120x40 160x50 200x50"
SCREENS=(overview rates digests locks waits tuning sessions events)
# the sizes whose overview is also compared tile by tile (golden/tiles/)
TILE_SIZES="80x24 120x40 200x50"
# recording, the sample its copy ends on (0: the whole recording), and
# sizes of its own (160x40: one column would cut the lock chain's panes,
# so the overview takes two, with the border)
RECS=("mariadb-commit-fsync 0" "pg-lock-chain 16 160x40" "pg-wal-writer 0")

# only_title NAME N: screen N alone is up (its title, no other pane's)
only_title() {
	local s
	s=$(screen "$1")
	grep -q "^\[$2\] " <<<"$s" && ! grep -E '(^|│)\[[1-5]\] ' <<<"$s" | grep -qv "^\[$2\] "
}

mkdir -p "$GOLDEN_DIR/layout"
t0=$(date +%s)
for r in "${RECS[@]}"; do
	read -r rec n extra <<<"$r"
	file=recordings/$rec.dbrec
	if [ "$n" != 0 ]; then
		file=$T/$rec-$n.dbrec
		if ! python3 tests/screen/cutrec.py "recordings/$rec.dbrec" "$file" "$n"; then
			nok "$rec: a copy ending on sample $n"
			continue
		fi
	fi
	for size in $SIZES $extra; do
		s=${rec%%-*}${size/x/_}
		start "$s" "${size%x*}" "${size#*x}" --replay "$file" --speed 0
		if ! wait_for "$s" "REPLAY ended" 15; then
			nok "$rec $size: the replay reaches its end"
			screen "$s" | note
			continue
		fi
		golden "$s" "layout/$rec-overview-$size"
		case " $TILE_SIZES " in
		*" $size "*) golden_tiles "$s" "tiles/$rec-overview-$size" "overview $rec $size" ;;
		esac
		for k in 1 2 3 4 5 7; do
			keys "$s" "$k"
			if ! retry 5 only_title "$s" "$k"; then
				nok "$rec $size: screen $k comes up"
				continue
			fi
			golden "$s" "layout/$rec-${SCREENS[$k]}-$size"
		done
		tm kill-session -t "$s" 2>/dev/null
	done
done
echo "# goldens taken in $(($(date +%s) - t0)) s"

# Tab and z on the lock chain: the focused pane grows
# shown NAME N: the rows pane N's title says it shows ("4 of 10 rows" -> 4;
# the whole: "all")
shown() { screen "$1" | sed -nE "s/^\[$2\] [^│]*  ([0-9]+) of [0-9]+ rows.*/\1/p; /^\[$2\] [^│0-9]*\$/s/.*/all/p" | head -1; }
# (without its wait profile and session lists, SAMPLE fields 21, 22, 24,
# 28-30: with them every pane holds data and no row is spare at 100x30)
python3 tests/screen/striprec.py "$T/pg-lock-chain-16.dbrec" "$T/chain-lean.dbrec" 21 22 24 28 29 30
start t 100 30 --replay "$T/chain-lean.dbrec" --speed 0
if wait_for t "REPLAY ended" 15; then
	before=$(shown t 2)
	keys t Tab
	sleep 0.3
	after=$(shown t 2)
	check "100x30, Tab: the focused digests pane gets the spare rows first ($before -> $after rows)" \
		bash -c '[ "$1" = all ] || [ "$1" -gt "$2" ]' _ "$after" "$before"
else
	nok "Tab: the lock chain replay reaches its end"
fi
start z 80 24 --replay "$T/chain-lean.dbrec" --speed 0
if wait_for z "REPLAY ended" 15; then
	keys z Tab Tab z
	check "80x24, z: the locks pane zoomed" wait_for z "[3] lock waits  zoomed (z)" 3
	check "80x24, z: all six tree rows on the screen" test "$(screen z | grep -cE '^(▶|├|└|│)')" -ge 6
	check "80x24, z: the other panes keep a line each" \
		bash -c 'grep -qE "^commits/s " <<<"$1" && grep -q "UPDATE pgbench" <<<"$1" && grep -qE "tuning acts on a live server only|none of the [0-9]+ settings changed by dbtop" <<<"$1"' _ "$(screen z)"
	keys z z
	check "80x24, z again: the rows shared by need (the tree 3 of 6 again)" wait_for z "[3] lock waits  3 of 6 rows" 3
else
	nok "z: the lock chain replay reaches its end"
fi

while IFS= read -r l; do
	case $l in
	"ok - "*) ok "layout rule ${l#ok - }" ;;
	"not ok - "*) nok "layout rule ${l#not ok - }" ;;
	esac
done < <(python3 tests/screen/check_screens.py "$GOLDEN_DIR"/layout/*.txt)
done_tests
