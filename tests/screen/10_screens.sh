#!/usr/bin/env bash
# 10_screens.sh - the screens and keys of dbtop on the bundled recordings,
# replayed at --speed 0 in tmux (100x30 and 80x24): golden screens of the
# overview, the rates screen, details and help, then every global key.
# UPDATE_GOLDEN=1 rewrites tests/screen/golden/*.txt (inspect them first).
set -uo pipefail
source "$(dirname "$0")/lib.bash"
need_basics

MARIADB=recordings/mariadb-commit-fsync.dbrec
PGWAL=recordings/pg-wal-writer.dbrec

# Row labels of the rates pane (panes/rates.c pane_rows).
RATE_LABELS='commits/s|fsyncs/s|redo|binlog|WAL writes/s|fsyncs/commit|commit latency ms|redo sync ms|binlog sync ms|WAL sync ms|WAL write ms|redo bytes/s|WAL bytes/s|WAL bytes/commit|commits/group|WAL buffers full/s|rollbacks/s'
# rate_rows NAME: the labels of the rate rows on the screen, one a line
rate_rows() {
	screen "$1" | sed -nE "s#^ {0,2}($RATE_LABELS)  +[-~0-9].*#\1#p"
}
# glued_rows NAME: the rate rows whose value touches the label, one a line
glued_rows() {
	screen "$1" | grep -E "^ {0,2}($RATE_LABELS)[^ ]"
}

# The help box of a COLS-wide terminal: "X0 W" (W = min(COLS-2, 100),
# centred); it covers rows 1..LINES-2.
help_box() {
	local w=$(($1 - 2 < 100 ? $1 - 2 : 100))
	echo "$((($1 - w) / 2)) $w"
}

# help_pages NAME LINES FILE: every row of the open help, scrolled with
# PgDn from the top to the end, into FILE (one row a line, by its number in
# the help: "help A-B of N" under the box says which rows show).
help_pages() {
	local name=$1 lines=$2 file=$3 foot a b n i prev=
	local -a scr
	: >"$file.rows"
	for _ in $(seq 30); do
		mapfile -t scr < <(screen "$name")
		foot=${scr[$((lines - 1))]}
		[[ $foot =~ ^help\ ([0-9]+)-([0-9]+)\ of\ ([0-9]+) ]] || return 1
		a=${BASH_REMATCH[1]} b=${BASH_REMATCH[2]} n=${BASH_REMATCH[3]}
		for ((i = 0; i <= b - a; i++)); do
			printf '%d\t%s\n' $((a + i)) "${scr[$((1 + i))]}" >>"$file.rows"
		done
		((b >= n)) && break
		prev=$foot
		keys "$name" NPage
		for _ in $(seq 40); do
			[ "$(line "$name" $((lines - 1)))" != "$prev" ] && break
			sleep 0.05
		done
	done
	sort -n -u -k1,1 "$file.rows" | cut -f2- >"$file"
	# (row 1 of the help is the first line of the file)
}

# help_check FILE X0 W: every binding of the key table in the help rows of
# FILE (box columns X0..X0+W-1): its name at box column 1, where it applies
# at 12, its whole description from 28 (wrapped rows blank before it).
# Prints "ok N" or what is wrong.
help_check() {
	key_table >"$1.keys"
	python3 - "$1" "$1.keys" "$2" "$3" <<'PY'
import sys
rows = [r.rstrip('\n') for r in open(sys.argv[1], encoding='utf-8')]
x0, w = int(sys.argv[3]), int(sys.argv[4])
box = [r[x0:x0 + w].rstrip() for r in rows]
bad, n = [], 0
for line in open(sys.argv[2], encoding='utf-8'):
    name, bar, scr, text = line.rstrip('\n').split('\t')
    n += 1
    found = False
    for i, r in enumerate(box):
        if not (r.startswith(' ' + name + ' ') and r[1 + len(name):12].strip() == '' and len(r) > 28):
            continue
        # (at least two blanks between where it applies and the text)
        if r[28] == ' ' or r[26:28] != '  ':
            continue
        d = r[28:]
        for r2 in box[i + 1:]:
            if r2[:28].strip() or len(r2) <= 28 or r2[28] == ' ':
                break
            d += ' ' + r2[28:]
        if d == text:
            found = True
            break
    if not found:
        bad.append(name)
print('ok %d' % n if not bad else 'missing or not whole: ' + ', '.join(bad))
PY
}

# check_help NAME COLS LINES WHAT: the help of a COLS x LINES terminal on
# the overview: every binding of the key table with its whole description,
# reached by scrolling; 'dbtop keys' on the first row, this screen's
# bindings before the others', the closing line on the last row of the box,
# the header kept, the screen under the box blanked.
check_help() {
	local LC_ALL=C.UTF-8
	local name=$1 cols=$2 lines=$3 what=$4 x0 w r n
	read -r x0 w < <(help_box "$cols")
	n=$(key_table | wc -l)
	if [ "$n" -lt 20 ]; then
		nok "$what: cannot read key_binds from tui/keys.c"
		return
	fi
	local -a scr box
	local i l
	mapfile -t scr < <(screen "$name")
	for i in "${!scr[@]}"; do
		l=${scr[$i]:$((x0 + 1)):$((w - 1))}
		box[$i]=${l%"${l##*[! ]}"}
	done
	check "$what help: 'dbtop keys' on the first row of the box (row 1, box column 1)" \
		test "${box[1]}" = "dbtop keys"
	check "$what help: the closing line on the last row of the box (row $((lines - 2)))" \
		test "${box[$((lines - 2))]}" = "unknown values show as '-' with the reason, never as 0"
	check "$what help: the header stays visible above the box" grep -q '^ dbtop UP' <<<"${scr[0]}"
	check "$what help: under it how to scroll and close" \
		grep -qE '^help 1-[0-9]+ of [0-9]+  j k Up Down PgUp PgDn scroll  any other key closes' <<<"${scr[$((lines - 1))]}"
	check "$what help: nothing of the screen beside the box" \
		test -z "$(for ((i = 1; i < lines - 1; i++)); do printf '%s' "${scr[$i]:0:$x0}"; done | tr -d ' ')"
	if ! help_pages "$name" "$lines" "$T/help-$cols"; then
		nok "$what help: no 'help A-B of N' line under the box"
		return
	fi
	r=$(help_check "$T/help-$cols" "$x0" "$w")
	if [ "$r" = "ok $n" ]; then
		ok "$what help: every binding ($n) with where it applies and its whole description, scrolled with PgDn"
	else
		nok "$what help: $r"
		note <"$T/help-$cols"
	fi
	check "$what help: this screen's bindings first, then the others'" \
		bash -c 'a=$(grep -n "^ *on this screen" "$1" | cut -d: -f1); b=$(grep -n "^ *on other screens" "$1" | cut -d: -f1); [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]' _ "$T/help-$cols"
	keys "$name" Home
	wait_for "$name" "dbtop keys" 3
}

# ---- MariaDB, 100x30: overview, focus, help, rates, details, filter, keys ----
# (the recording without its lock graph, SAMPLE fields 18-20 and 25: the
# sysbench threads' brief row-lock waits at its end would take rows from
# the panes these checks read; 50_locks and 60_layout show lock graphs)
python3 tests/screen/striprec.py "$MARIADB" "$T/mariadb-nolocks.dbrec" 18 19 20 25
start m 100 30 --replay "$T/mariadb-nolocks.dbrec" --speed 0
if ! wait_for m "REPLAY ended" 15; then
	nok "mariadb replay reaches its end on the screen"
	screen m | note
	done_tests
fi
ok "mariadb replay reaches its end on the screen"
golden m mariadb-overview-100x30 "${MARIADB_OVERVIEW_100x30[@]}"
# the header: state, engine and version, host, uptime (no room left for
# the interval); cost and the recorded clock (TZ=UTC) at the right
hdr=$(line m 0)
if [ "$hdr" = "$(header_expect 100 1 "${MARIADB_HDR[@]}")" ]; then
	ok "overview header at 100 columns: the fields that fit whole, cost and the recorded clock (TZ=UTC) at the right"
else
	nok "overview header at 100 columns: got '$hdr', want '$(header_expect 100 1 "${MARIADB_HDR[@]}")'"
fi
glued=$(glued_rows m)
if [ -z "$glued" ]; then
	ok "overview: a blank between every rate label and its value"
else
	nok "overview: a rate value runs into its label: $(tr '\n' '|' <<<"$glued")"
fi
for t in "[1] fsync / commit rates" "[2] statement digests" "[3] lock waits" "[4] WAL / redo waits" "[5] safe tuning"; do
	check "overview tiles: '$t'" has m "$t"
done
check "overview key bar starts with 'q Quit  ? Help'" grep -q '^q Quit  ? Help  space Pause' <<<"$(line m 29)"
check "key bar at 100 columns: the whole entries that fit, none cut (up to '$(keybar_expect 100 | sed 's/.*  //')')" \
	test "$(line m 29)" = "$(keybar_expect 100)"

# Tab moves the focus: the focused title takes the selected style (the
# focused pane gets the spare rows first, so the titles move: found anew)
# title_style NAME N: the style of pane N's title row
title_style() {
	local r
	r=$(screen "$1" | grep -n "^\[$2\] " | cut -d: -f1)
	[ -n "$r" ] && line_e "$1" $((r - 1)) | style_of
}
s1=$(title_style m 1)
s2=$(title_style m 2)
check "focused and unfocused tile titles look different" test "$s1" != "$s2"
keys m Tab
sleep 0.3
check "Tab: tile [2] gets the focused title style" test "$(title_style m 2)" = "$s1"
check "Tab: tile [1] loses it" test "$(title_style m 1)" = "$s2"
keys m Enter
if wait_line m 1 "[2] statement digests" 5; then
	ok "Enter on the focused tile [2] opens screen 2"
else
	nok "Enter on the focused tile [2] opens screen 2"
fi
keys m Escape
wait_for m "[5] safe tuning" 5
check "Esc returns to the overview, focus kept on [2]" test "$(title_style m 2)" = "$s1"
keys m BTab BTab
sleep 0.3
check "Shift-Tab twice from [2]: tile [6] focused (the recording has session lists)" test "$(title_style m 6)" = "$s1"
keys m Tab
sleep 0.3
check "Tab from [6] wraps to [1]" test "$(title_style m 1)" = "$s1"

# s: the rates pane sorts; a pane without order says so
keys m s
if wait_for m "rates sorted by name" 5; then ok "s on rates: 'rates sorted by name'"; else nok "s on rates: 'rates sorted by name'"; fi
sorted=$(rate_rows m)
check "s: the rows are now in name order" test "$sorted" = "$(LC_ALL=C sort <<<"$sorted")"
check "s: more than 3 rows to sort" test "$(grep -c . <<<"$sorted")" -gt 3
keys m s
if wait_for m "rates in table order" 5; then ok "s again: 'rates in table order'"; else nok "s again: 'rates in table order'"; fi
check "s again: commits/s first again" test "$(rate_rows m | head -1)" = "commits/s"
# s where no pane sorts (screens 3, 4): nothing happens, and the message
# says where s works (from the key table)
s_where=$(key_where s | grep -m1 overview)   # (the binding the message names first)
for n in 3 4; do
	keys m "$n"
	wait_line m 1 "[$n] " 5
	keys m s
	if [ -n "$s_where" ] && wait_for m "s does nothing here; it works on: $s_where" 5; then
		ok "s on screen $n: 's does nothing here; it works on: $s_where'"
	else
		nok "s on screen $n: 's does nothing here; it works on: ${s_where:-?}' not shown: $(line m 29)"
	fi
done
# s on screen 5: the scope of the selected remedy (MariaDB: the server only)
keys m 5
wait_line m 1 "[5] " 5
keys m s
if wait_for m "scope server only (the engine has no narrower scope)" 5; then
	ok "s on screen 5: the scope of the selected remedy (server only on MariaDB)"
else
	nok "s on screen 5: no scope said: $(line m 29)"
fi
keys m 0
wait_for m "q Quit" 8
# the sort message goes after 4 s: the key bar is back before the help
keys m 0
wait_for m "q Quit" 8

# help: every global key of tui/ui.c, then any key closes it
keys m '?'
if wait_for m "dbtop keys" 5; then ok "? opens the help"; else nok "? opens the help"; fi
# the help box: rows 1..LINES-2, min(COLS-2, 100) columns, centred
read -r bx bw < <(help_box 100)
golden m mariadb-help-100x30 "1-28@$bx+$bw"
check_help m 100 30 "100x30"
keys m x
if wait_gone m "dbtop keys" 5; then ok "any key (x) closes the help"; else nok "any key (x) closes the help"; fi
check "x did nothing else (still the overview)" has m "[5] safe tuning"
keys m '?'
wait_for m "dbtop keys" 5
keys m q
if wait_gone m "dbtop keys" 5; then ok "q closes the help"; else nok "q closes the help"; fi
sleep 0.5
check "q on the help does not quit dbtop" bash -c '! grep -q "^EXITED" <<<"$1"' _ "$(screen m)"
keys m h
if wait_for m "dbtop keys" 5; then ok "h opens the help too"; else nok "h opens the help too"; fi
keys m Escape
if wait_gone m "dbtop keys" 5; then ok "Esc closes the help"; else nok "Esc closes the help"; fi

# screen 1: the rates full screen, details of a row, back
keys m 1
wait_for m "note: redo fsyncs" 5
golden m mariadb-rates-100x30 0-7 9-29   # row 8: see glued_rows
check "screen 1: a blank between every rate label and its value" test -z "$(glued_rows m)"
check "screen 1: connection notes under the rates" has m "note: redo fsyncs: this server has neither"
# the note says where redo syncs come from instead: shown whole, wrapped
REDO_NOTE="note: redo fsyncs: this server has neither Innodb_os_log_fsyncs nor a performance_schema redo-log file instrument; redo syncs are taken from Innodb_data_fsyncs, which also counts data-file syncs"
if shown_wrapped m "$REDO_NOTE"; then
	ok "screen 1: the connection note is shown whole, wrapped at spaces"
else
	nok "screen 1 (100x30): the connection note is not shown whole and wrapped at spaces ('$(screen m | grep -A3 '^note:' | tr '\n' '|')'), although $(screen m | grep -c '^$') rows are empty"
fi
keys m Enter
if wait_for m "commits/s  (commits_per_s)" 5; then ok "Enter on the first rate row opens its details"; else nok "Enter on the first rate row opens its details"; fi
golden m mariadb-details-100x30
check "details: definition and source" grep -q "transactions committed per second" <<<"$(screen m)"
check "details: commits source line" has m "commits from Binlog_commits"
keys m Escape
if wait_for m "                           now last" 5 && [ "$(screen m | grep -m1 '^\[1\] ')" = "[1] fsync / commit rates" ]; then
	ok "Esc closes the details, back to the rates list"
else
	nok "Esc closes the details, back to the rates list"
fi
keys m j Enter
if wait_for m "fsyncs/s  (fsyncs_per_s)" 5; then ok "j then Enter: details of the second row (fsyncs/s)"; else nok "j then Enter: details of the second row (fsyncs/s)"; fi
keys m Escape k Escape
if wait_for m "[5] safe tuning" 5; then ok "Esc twice: back to the overview"; else nok "Esc twice: back to the overview"; fi

# screens 2-5: their title, and no "not built yet" placeholder left
for p in "${PANES_2_5[@]}"; do
	read -r n pname t <<<"$p"
	keys m "$n"
	wait_line m 1 "[$n] $t" 5
	if [ "$(line m 1 | cut -c1-$((${#t} + 4)))" = "[$n] $t" ] && ! has m "not built yet"; then
		ok "screen $n: '[$n] $t' (built: no placeholder text)"
	else
		nok "screen $n: '[$n] $t' (built: no placeholder text)"
		screen m | head -4 | note
	fi
done
keys m 0
wait_for m "[5] safe tuning" 5

# filter on the rates screen
keys m 1 /
if wait_for m "filter /   Enter apply  Esc cancel" 5; then ok "/ opens the filter prompt"; else nok "/ opens the filter prompt"; fi
literal m fsync
wait_for m "filter /fsync " 5
keys m Enter
wait_for m "filter /fsync/ on rates" 5
first=$(screen m)
shown=$(rate_rows m)
nshown=$(printf '%s\n' "$shown" | grep -c .)
bad=$(printf '%s\n' "$shown" | grep -vE '^(fsyncs/s|redo|binlog|fsyncs/commit|redo sync ms|binlog sync ms)$' | tr '\n' ' ')
if [ "$nshown" -ge 1 ] && [ -z "$bad" ]; then
	ok "filter fsync: only matching rows ($nshown: $(printf '%s\n' "$shown" | tr '\n' ',' | sed 's/,$//'))"
else
	nok "filter fsync: rows not matching shown: '$bad'"
fi
check "filter fsync: commits/s, rollbacks/s, redo bytes/s are gone" \
	bash -c '! grep -qE "^(commits/s|rollbacks/s|redo bytes/s|commits/group) " <<<"$1"' _ "$first"
title=$(printf '%s\n' "$first" | grep -m1 '^\[1\] ')
check "filter: the title shows the filter" grep -qF "[1] fsync / commit rates  filter /fsync/" <<<"$title"
# the row count in the title must be the one drawn in the same frame
n_title=$(sed -n 's/.*filter \/fsync\/ (\([0-9]*\) rows).*/\1/p' <<<"$title")
if [ "$n_title" = "$nshown" ]; then
	ok "filter: the title's row count matches the rows shown on the first frame ($nshown)"
else
	nok "filter: the title says ($n_title rows) while $nshown rows are shown (first frame after Enter)"
	printf '%s\n' "$first" | head -9 | note
fi
wait_for m "filter /fsync/ ($nshown rows)" 5
# the message 'filter /fsync/ on rates' holds the bottom row for a while:
# the golden is the screen once the key bar is back
wait_line m 29 "q Quit" 8
golden m mariadb-filter-100x30
# a bad pattern: error inline, prompt kept
keys m /
wait_for m "filter /fsync " 5
keys m BSpace BSpace BSpace BSpace BSpace
literal m '('
keys m Enter
if wait_for m "bad pattern" 5; then ok "filter '(': the error is shown inline"; else nok "filter '(': the error is shown inline"; fi
check "filter '(': the prompt stays open with the pattern" grep -q '^filter /(  .*missing closing parenthesis' <<<"$(line m 29)"
keys m Escape
if wait_gone m "filter /(" 5; then ok "Esc cancels the prompt"; else nok "Esc cancels the prompt"; fi
check "Esc kept the applied filter /fsync/" has m "filter /fsync/ ($nshown rows)"
check "Esc kept screen 1" test "$(screen m | grep -m1 '^\[1\] ' | cut -c1-24)" = "[1] fsync / commit rates"
keys m / BSpace BSpace BSpace BSpace BSpace Enter
if wait_for m "filter cleared" 5; then ok "an empty filter clears it ('filter cleared')"; else nok "an empty filter clears it ('filter cleared')"; fi
check "cleared: commits/s back" grep -qx "commits/s" <<<"$(rate_rows m)"
check "cleared: title without filter" test "$(screen m | grep -m1 '^\[1\] ')" = "[1] fsync / commit rates"

# pause
keys m Space
if wait_for m "PAUSED" 5; then ok "space: PAUSED in the header"; else nok "space: PAUSED in the header"; fi
check "space: 'paused: data frozen, the replay clock stopped (space resumes)'" has m "paused: data frozen, the replay clock stopped (space resumes)"
keys m Space
if wait_gone m "PAUSED" 5; then ok "space again: PAUSED gone"; else nok "space again: PAUSED gone"; fi
check "space again: 'resumed'" has m "resumed"

# + and - in a replay
keys m +
if wait_for m "replay: the recording sets the pace (--speed)" 5; then ok "+ in replay: the recording sets the pace"; else nok "+ in replay: the recording sets the pace"; fi
keys m Escape
wait_gone m "replay: the recording sets the pace" 5
keys m -
if wait_for m "replay: the recording sets the pace (--speed)" 5; then ok "- in replay: the recording sets the pace"; else nok "- in replay: the recording sets the pace"; fi
# the interval has room in the header at 200 columns
tm resize-window -t m -x 200 -y 50
if wait_for m "  every 1s  " 5 && grep -q '^ dbtop .*  every 1s  ' <<<"$(line m 0)"; then
	ok "+/-: the header interval unchanged (every 1s, at 200 columns)"
else
	nok "+/-: the header interval unchanged (every 1s, at 200 columns): '$(line m 0)'"
fi
tm resize-window -t m -x 100 -y 30
# back at 100 columns once the header is drawn for them again
header_100() { [ "$(line m 0)" = "$(header_expect 100 1 "${MARIADB_HDR[@]}")" ]; }
retry 5 header_100

# themes: t cycles dark -> light -> mono -> high-contrast -> dark
keys m Escape 0
wait_for m "[5] safe tuning" 5
dark_e=$(screen_e m | head -29)
dark_txt=$(screen m | head -29)
declare -A th_e
for th in light mono high-contrast dark; do
	keys m t
	if wait_for m "theme $th" 5; then ok "t: 'theme $th'"; else nok "t: 'theme $th'"; fi
	sleep 0.2
	th_e[$th]=$(screen_e m | head -29)
	check "t ($th): the text of the screen is unchanged" test "$(screen m | head -29)" = "$dark_txt"
done
check "dark uses colours" test -n "$(colour_codes <<<"$dark_e")"
check "mono uses no colours" test -z "$(colour_codes <<<"${th_e[mono]}")"
check "mono uses reverse and bold" grep -q "1 .*7" <<<"$(attr_codes <<<"${th_e[mono]}")"
check "mono looks different from dark" test "${th_e[mono]}" != "$dark_e"
check "light looks different from dark" test "${th_e[light]}" != "$dark_e"
check "high-contrast looks different from dark" test "${th_e[high-contrast]}" != "$dark_e"
check "after a full cycle: dark again, same attributes" test "${th_e[dark]}" = "$dark_e"

# q quits and gives the terminal back
keys m q
if wait_for m "EXITED" 5; then ok "q quits"; else nok "q quits"; fi
check "q: exit status 0" grep -q '^EXITED 0 ' <<<"$(exit_line m)"
check "q: the tty is back in canonical mode with echo" grep -q 'MODES icanon echo' <<<"$(exit_line m)"
check "q: the alternate screen is left" test "$(pane m '#{alternate_on}')" = 0
check "q: the cursor is visible again" test "$(pane m '#{cursor_flag}')" = 1
check "q: keypad transmit mode is off" test "$(pane m '#{keypad_flag}')" = 0
check "q: no dbtop frame left on the shell screen" \
	bash -c '! grep -qE "q Quit|\[1\] fsync|REPLAY ended" <<<"$1"' _ "$(screen m)"
check "q: the replay summary is printed" has m "dbtop: end of recording: 43 records read"
tm kill-session -t m

# ---- PostgreSQL WAL writer, 100x30 ----
start p 100 30 --replay "$PGWAL" --speed 0
if wait_for p "REPLAY ended" 15; then
	ok "pg replay reaches its end on the screen"
	golden p pg-wal-overview-100x30 "${OVERVIEW_100x30[@]}"
	PG_SYNC_IMP="synchronous_commit=off wal_writer_delay=10ms -> commits return before their WAL is flushed: up to ~3 x 10ms of commits lost on a crash (no corruption)"
	check "pg overview: the synchronous_commit implication whole, wrapped at spaces (or the rates tile says it shows part of its rows)" \
		bash -c 'grep -qE "^\[1\] fsync / commit rates  [0-9]+ of [0-9]+ rows" <<<"$1"' _ "$(screen p)"
	check "pg: WAL rows" has p "WAL sync ms"
	keys p 1
	wait_for p "wal_sync_method=fdatasync" 5
	golden p pg-wal-rates-100x30
	# what a crash can lose is the point of the line: whole, wrapped
	if shown_wrapped p "$PG_SYNC_IMP"; then
		ok "pg screen 1: the synchronous_commit=off implication is shown whole, wrapped at spaces"
	else
		nok "pg screen 1 (100x30): the synchronous_commit=off implication is not shown whole and wrapped ('$(screen p | grep -A2 '^synchronous_commit' | tr '\n' '|')')"
	fi
else
	nok "pg replay reaches its end on the screen"
fi
tm kill-session -t p

# ---- 80x24 ----
start m8 80 24 --replay "$MARIADB" --speed 0
if wait_for m8 "REPLAY ended" 15; then
	ok "mariadb 80x24 reaches its end"
	golden m8 mariadb-overview-80x24 "${OVERVIEW_80x24[@]}"
	hdr=$(line m8 0)
	# fields whole or not at all, by priority: the host never cut
	if [ "$hdr" = "$(header_expect 80 1 "${MARIADB_HDR[@]}")" ]; then
		ok "80x24 header: whole fields by priority, the host whole, the clock kept"
	else
		nok "80x24 header: got '$hdr', want '$(header_expect 80 1 "${MARIADB_HDR[@]}")'"
	fi
	host=$(sed -n 's/^ dbtop UP  REPLAY ended  mariadb 10\.11\.19  \([^ ]*\).*/\1/p' <<<"$hdr")
	case $host in
	127.0.0.1:34130) ok "80x24 header: the host label is whole ('$host')" ;;
	…?*)
		if [[ 127.0.0.1:34130 == *"${host#…}" ]]; then
			ok "80x24 header: the host label shortened from the left, marked ('$host')"
		else
			nok "80x24 header: '$host' is not the end of 127.0.0.1:34130 behind a mark"
		fi
		;;
	*) nok "80x24 header: host 127.0.0.1:34130 shown as '$host' (cut without a mark, or missing): '$hdr'" ;;
	esac
	check "80x24 header: state and clock kept" grep -q "^ dbtop UP  REPLAY ended .*${MARIADB_HDR[5]##* } *\$" <<<"$hdr"
	check "80x24 key bar: the whole entries that fit, none cut" test "$(line m8 23)" = "$(keybar_expect 80)"
	# the demo's end (the remedy reverted) has digests that want the rows
	# too: the implication is whole or its start is shown, cut behind a mark
	# (screen 1 below shows it whole)
	# (or, with all six panes holding data, the tile says it shows part of its rows)
	if shown_wrapped m8 "innodb_flush_log_at_trx_commit=1 sync_binlog=1 -> 2 fsyncs per commit" ||
		screen m8 | grep -q '^innodb_flush_log_at_trx_commit=1 sync_binlog=1.*…$' ||
		screen m8 | grep -qE '^\[1\] fsync / commit rates  [0-9]+ of [0-9]+ rows'; then
		ok "80x24 overview: the redo implication whole, or its start cut behind a mark"
	else
		nok "80x24 overview: the redo implication neither whole nor marked as cut"
	fi
	keys m8 1
	wait_for m8 "note: redo fsyncs" 5
	# the rates and the implications above the notes; the notes apart
	golden m8 mariadb-rates-80x24 0-7 9-17 23   # row 8: see glued_rows
	check "80x24 screen 1: the implications whole, wrapped at spaces" \
		shown_wrapped m8 "innodb_flush_log_at_trx_commit=1 sync_binlog=1 -> 2 fsyncs per commit"
	if shown_wrapped m8 "$REDO_NOTE"; then
		ok "80x24 screen 1: the connection note is shown whole, wrapped at spaces"
	else
		nok "80x24 screen 1: the connection note is not shown whole: '$(screen m8 | sed -n '/^note:/,$p' | head -4 | tr '\n' '|')', while $(screen m8 | grep -c '^$') rows are empty"
	fi
	keys m8 '?'
	wait_for m8 "dbtop keys" 5
	# descriptions too long for the box go on over the next rows
	read -r bx bw < <(help_box 80)
	golden m8 mariadb-help-80x24 "1-22@$bx+$bw"
	check_help m8 80 24 "80x24"
	keys m8 q
	if wait_gone m8 "dbtop keys" 5; then ok "q closes the help (80x24)"; else nok "q closes the help (80x24)"; fi
	keys m8 q
	if wait_for m8 "EXITED 0" 5; then ok "q after the help quits (80x24)"; else nok "q after the help quits (80x24)"; fi
else
	nok "mariadb 80x24 reaches its end"
fi
tm kill-session -t m8

start p8 80 24 --replay "$PGWAL" --speed 0
if wait_for p8 "REPLAY ended" 15; then
	ok "pg 80x24 reaches its end"
	golden p8 pg-wal-overview-80x24 "${OVERVIEW_80x24[@]}"
	check "pg 80x24 overview: the synchronous_commit implication whole, wrapped at spaces (or the tile says it shows part of its rows)" \
		bash -c 'grep -qE "^\[1\] fsync / commit rates  [0-9]+ of [0-9]+ rows" <<<"$1"' _ "$(screen p8)"
else
	nok "pg 80x24 reaches its end"
fi
tm kill-session -t p8

# ---- pause while the replay runs in real time: the data freeze ----
# clock NAME: the sample time at the right of the header
clock() { line "$1" 0 | grep -oE '[0-9]{2}:[0-9]{2}:[0-9]{2} *$' | tr -d ' '; }
start live 100 30 --demo --speed 1
# samples flow once commits/s has a value
flowing() { screen "$1" | grep -qE '^commits/s +[0-9]'; }
if wait_for live "REPLAY x1" 10 && retry 10 flowing live; then
	keys live Space
	wait_for live "PAUSED" 5
	c0=$(clock live)
	sleep 5.2
	c1=$(clock live)
	check "pause during a replay: PAUSED with REPLAY x1" grep -q 'REPLAY x1  PAUSED' <<<"$(line live 0)"
	if [ -n "$c0" ] && [ "$c0" = "$c1" ]; then ok "pause: the sample clock stays at $c0 for 5 s"; else nok "pause: the sample clock moved from '$c0' to '$c1'"; fi
	keys live Space
	moved=0
	for _ in $(seq 60); do
		c2=$(clock live)
		[ -n "$c2" ] && [ "$c2" != "$c1" ] && moved=1 && break
		sleep 0.05
	done
	if [ $moved = 1 ]; then ok "resume: the sample clock moves on ($c1 -> $c2)"; else nok "resume: the sample clock stays at $c1"; fi
	# the replay clock stood still: the next record is the one after c1
	# (1 s later in the recording), not the ones of the 5 s paused
	d=$(($(date -u -d "1970-01-01 $c2" +%s) - $(date -u -d "1970-01-01 $c1" +%s)))
	if [ "$moved" = 1 ] && [ "$d" -ge 1 ] && [ "$d" -le 2 ]; then
		ok "resume after a 5 s pause: the replay goes on from there ($c1 -> $c2, +${d}s of recording)"
	else
		nok "resume after a 5 s pause: the recording jumped from $c1 to $c2 (+${d:-?}s): records skipped"
	fi
	keys live q
	wait_for live "EXITED" 5
else
	nok "a replay at --speed 1 runs (REPLAY x1)"
	screen live | note
fi
tm kill-session -t live

# ---- a 5 s pause in a replay skips no record: every one reaches the model ----
nrec=$("$DBTOP" --replay "$MARIADB" --speed 0 --batch --format json 2>/dev/null | wc -l)
RUN_ENV=(DBTOP_FRAME_STATS="$T/pause.frames")
start pz 100 30 --replay "$MARIADB" --speed 4
if wait_for pz "REPLAY x4" 10 && retry 10 flowing pz; then
	keys pz Space
	wait_for pz "PAUSED" 5
	sleep 5
	keys pz Space
	wait_gone pz "PAUSED" 5
	if wait_for pz "REPLAY ended" 30; then
		keys pz q
		wait_for pz "EXITED" 5
		got=$(sed -n 's/.* samples \([0-9]*\).*/\1/p' "$T/pause.frames" 2>/dev/null)
		# (the batch prints from the second sample: the first primes the rates)
		if [ -n "$got" ] && [ "$got" = "$((nrec + 1))" ]; then
			ok "pause 5 s at --speed 4, resume: all $got records of the recording reached the screen, none skipped"
		else
			nok "pause 5 s at --speed 4, resume: ${got:-?} records reached the screen of $((nrec + 1))"
		fi
	else
		nok "the paused and resumed replay reaches its end"
	fi
else
	nok "a replay at --speed 4 runs (REPLAY x4)"
	screen pz | note
fi
tm kill-session -t pz

done_tests
