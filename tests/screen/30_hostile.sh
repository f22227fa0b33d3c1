#!/usr/bin/env bash
# 30_hostile.sh - text from the server never reaches the terminal as
# control sequences. build/tests/mkrec writes a recording whose version,
# host label, notes, sources, settings and error text hold OSC title and
# clipboard sequences, clear-screen and cursor moves, bracketed paste, C1
# controls, DEL, invalid UTF-8, bidi marks, a NUL cut and 100 KB fields.
# dbtop replays it in tmux while pipe-pane logs every byte it writes; the
# log must hold none of those sequences, the screen shows them neutralised,
# the window title is untouched, and dbtop still answers keys.
set -uo pipefail
source "$(dirname "$0")/lib.bash"
need_basics

MKREC=${MKREC:-build/tests/mkrec}
if [ ! -x "$MKREC" ] || [ tests/tools/mkrec.c -nt "$MKREC" ]; then
	if ! make --no-print-directory CI=1 "$MKREC" >"$T/make.log" 2>&1; then
		nok "$MKREC builds"
		note <"$T/make.log"
		done_tests
	fi
fi
REC=$T/hostile.dbrec
if "$MKREC" "$REC" 2>"$T/mkrec.err"; then ok "mkrec writes the hostile recording"; else nok "mkrec writes the hostile recording: $(cat "$T/mkrec.err")"; done_tests; fi
check "the recording holds the raw OSC sequence (the test is meaningful)" \
	bash -c 'LC_ALL=C grep -qaF $'"'"'\e]0;pwned\a'"'"' "$1"' _ "$REC"
check "the recording holds the 100 KB fields" test "$(wc -c <"$REC")" -gt 300000
check "mkrec without a file name: usage, status 2" bash -c '"$1" 2>/dev/null; test $? = 2' _ "$MKREC"

# ---- batch output (also goes to terminals) ----
if "$DBTOP" --replay "$REC" --batch --speed 0 >"$T/batch.txt" 2>"$T/batch.err"; then
	ok "batch replay of the hostile recording: exit status 0"
else
	nok "batch replay of the hostile recording: exit status $?"
	note <"$T/batch.err"
fi
check "batch text: no ESC, BEL, DEL, C1 or invalid bytes" \
	bash -c '! LC_ALL=C grep -qa $'"'"'[\x01-\x08\x0b-\x1f\x7f\xff\xfe]'"'"' "$1" && ! LC_ALL=C grep -qaF $'"'"'\xc2\x9b'"'"' "$1"' _ "$T/batch.txt"
check "batch text: the neutralised OSC is printed as ?]0;pwned?" grep -qF '?]0;pwned?' "$T/batch.txt"
check "batch text: nothing after the NUL cut" bash -c '! grep -q HIDDEN-AFTER-NUL "$1"' _ "$T/batch.txt"
check "batch text: the text before the NUL is kept" grep -q 'VISIBLE-BEFORE-NUL' "$T/batch.txt"
"$DBTOP" --replay "$REC" --batch --format json --speed 0 >"$T/batch.json" 2>/dev/null
if command -v python3 >/dev/null; then
	check "batch json: every line parses, no raw control characters" python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1], "rb"):
    assert not any(b < 0x20 or b == 0x7f for b in line.rstrip(b"\n")), "control byte"
    json.loads(line.decode("utf-8"))
    n += 1
assert n >= 5, n
' "$T/batch.json"
fi

# ---- control: this tmux takes OSC titles, so an unchanged title means something ----
tm new-session -d -s canary -x 40 -y 5 "printf '\\033]2;canary-title\\007'; exec sleep 3600"
for _ in $(seq 50); do
	[ "$(pane canary '#{pane_title}')" = canary-title ] && break
	sleep 0.05
done
check "control: an OSC title sequence does set the tmux pane title" test "$(pane canary '#{pane_title}')" = canary-title
tm kill-session -t canary

# ---- the screen ----
start h 100 30 --go --replay "$REC" --speed 0
tm select-pane -t h -T dbtop-hostile-title
tm set -w -t h automatic-rename off >/dev/null
tm set -w -t h allow-rename on >/dev/null
tm set -p -t h allow-set-title on >/dev/null 2>&1
tm rename-window -t h hostile-win
tm pipe-pane -t h -o "cat >> $(printf '%q' "$T/raw.log")"
go h
if ! wait_for h "REPLAY ended" 15; then
	nok "the hostile replay reaches its end on the screen"
	screen h | note
	done_tests
fi
ok "the hostile replay reaches its end on the screen"
sleep 0.3
check "header: DOWN with the retry countdown" grep -q '^ dbtop DOWN - retrying in 4s  REPLAY ended' <<<"$(line h 0)"
# The host label neutralised: every control byte, each invalid byte, the C1
# CSI (2 bytes) and the right-to-left mark one '?' each. At 100 columns it
# does not fit whole: its end is shown behind a mark.
HOST_SAN='db?]0;pwned??[2J?[10;10H?[200~?????end:3306'
HHDR=("DOWN - retrying in 4s  REPLAY ended" "mariadb 10.11.6" "$HOST_SAN" "" "every 1s" "cost 0.0ms  19:00:07")
want=$(header_expect 100 1 "${HHDR[@]}")
if [ "$(line h 0)" = "$want" ]; then
	ok "header: the host label neutralised and whole (it goes before the engine), the clock at the right"
else
	nok "header: got '$(line h 0)', want '$want'"
fi
check "header: the version as its number only, or left out for the host" bash -c '! grep -qE "10\.11\.6[^ ]" <<<"$1"' _ "$(line h 0)"
# the C1 CSI and the right-to-left mark one '?' each, the raw 0x9b byte too
got_err=$(line h 1)
want='DOWN: lost ?]0;pwned? ?[2J ?[10;10H ?[200~ ?2J ? ? ?? ?x ERR-BEFORE-NUL'
if [ "$got_err" = "$want" ]; then
	ok "the DOWN error text neutralised, cut at its NUL"
else
	nok "the DOWN error text: got '$got_err', want '$want'"
fi
check "settings: sync_binlog value neutralised" has h "sync_binlog=1?]0;pwned??[2J -> 1 fsync per commit"
check "settings: innodb_flush_method value neutralised" has h "innodb_flush_method=O_DIRECT?[10;10H?[200~???  innodb_doublewrite=ON??]52;c;cHduZWQ=?"
keys h 1
wait_for h "note: n6" 5
for n in 'note: n1 OSC ?]0;pwned? title ?]2;pwned?\ st ?]52;c;cHduZWQ=? clip' \
	'note: n2 CSI ?[2J clear ?[10;10H moved' \
	'note: n3 paste ?[200~echo pwned?[201~ done' \
	'note: n4 C1 ?31m red ?2J raw' \
	'note: n6 VISIBLE-BEFORE-NUL'; do
	if screen h | grep -qxF -- "$n"; then ok "screen 1: '$n'"; else nok "screen 1: '$n' not shown as such"; fi
done
n5=$(screen h | grep '^note: n5')
if [ "$n5" = 'note: n5 del ? bad ?? rlm ?x rlo ?abc end' ]; then
	ok "screen 1: DEL, each invalid byte and each bidi mark as one ?"
else
	nok "screen 1: DEL / invalid UTF-8 / bidi note: got '$n5'"
fi
# The long note (kept to NOTE_LEN - 1 bytes when read) wraps whole:
# "note: LONGNOTE", then rows of the neutralised pieces cut at the width (no
# space to wrap at), full rows but the last, every stored byte shown.
note_len=$(sed -n 's/^#define NOTE_LEN \([0-9][0-9]*\).*/\1/p' core/sample.h)
want_len=$((${note_len:-0} - 1 - 9))   # "LONGNOTE " is 9 bytes
mapfile -t rows < <(screen h)
ln=-1
for i in "${!rows[@]}"; do [ "${rows[$i]}" = "note: LONGNOTE" ] && ln=$i; done
end=$((ln + 1))   # the rows of the pieces: ln+1 .. end-1
# (row 28 is the timeline, 29 the key bar)
while [ "$ln" -ge 0 ] && [ $end -lt 28 ] && [ -n "${rows[$end]}" ]; do end=$((end + 1)); done
piece='?]0;pwned??[2JLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL'
long= full=1
for ((i = ln + 1; i < end; i++)); do
	long+=${rows[$i]}
	[ ${#rows[$i]} = 100 ] || [ $i = $((end - 1)) ] || full=0
done
rest=$long
while [[ -n $rest && $rest == "$piece"* ]]; do rest=${rest#"$piece"}; done
if [ "$ln" -ge 0 ] && [ ${#long} = "$want_len" ] && [ $full = 1 ] && [[ $piece == "$rest"* ]]; then
	ok "screen 1: the 100 KB note neutralised, wrapped at the width over $((end - ln - 1)) rows below 'note: LONGNOTE', all $want_len stored characters"
else
	nok "screen 1: the 100 KB note: 'note: LONGNOTE' on row $ln, then ${#long} characters (want $want_len): '$long'"
	screen h | note
fi
check "nothing after a NUL is ever shown" bash -c '! grep -q "HIDDEN-AFTER-NUL" <<<"$1"' _ "$(screen h)"
keys h Enter
if wait_for h "commits from Binlog_commits?]2;pwned?\?[200~" 5; then ok "details: the commit source neutralised"; else nok "details: the commit source neutralised"; screen h | head -6 | note; fi
keys h Escape j j Enter
if wait_for h "redo syncs from Innodb_os_log_fsyncs?]0;pwned??[10;10H" 5; then ok "details: the redo source neutralised"; else nok "details: the redo source neutralised"; screen h | head -6 | note; fi
keys h Escape Escape
tm resize-window -t h -x 200 -y 50
if wait_for h "0-7 Screens" 5; then
	sleep 0.2
	if [ "$(line h 0)" = "$(header_expect 200 1 "${HHDR[@]}")" ] && grep -qF "  $HOST_SAN  " <<<"$(line h 0)"; then
		ok "200 columns: the whole host label, neutralised ($HOST_SAN)"
	else
		nok "200 columns: the whole host label, neutralised: got '$(line h 0)', want '$(header_expect 200 1 "${HHDR[@]}")'"
	fi
else
	nok "200x50: the key bar"
fi
tm resize-window -t h -x 100 -y 30
wait_for h "q Quit" 5
check "the pane title is untouched" test "$(pane h '#{pane_title}')" = dbtop-hostile-title
check "the window name is untouched" test "$(pane h '#{window_name}')" = hostile-win
check "dbtop still runs" alive h
keys h '?'
if wait_for h "dbtop keys" 5; then ok "dbtop answers keys: ? shows the help"; else nok "dbtop answers keys: ? shows the help"; fi
keys h x
if wait_gone h "dbtop keys" 5; then ok "a key closes the help"; else nok "a key closes the help"; fi
keys h q
if wait_for h "EXITED 0" 5; then ok "q: exit status 0"; else nok "q: exit status 0"; screen h | note; fi
check "after quitting: the alternate screen is left" test "$(pane h '#{alternate_on}')" = 0
check "after quitting: the pane title is still untouched" test "$(pane h '#{pane_title}')" = dbtop-hostile-title
tm pipe-pane -t h
sleep 0.2

# ---- every byte dbtop wrote ----
check "the raw output was logged" test -s "$T/raw.log"
clear_cap=$(tput -T "$TERM_IN_PANE" clear 2>/dev/null | od -An -c | tr -d ' \n')
if ! command -v python3 >/dev/null; then
	nok "python3 is installed (scripts/deps.sh installs it) to read the raw log"
	done_tests
fi
py_out=$(python3 - "$T/raw.log" "$clear_cap" <<'EOF'
import re, sys
b = open(sys.argv[1], "rb").read()
clear_has_2j = "[2J" in sys.argv[2]

def res(name, good, why=""):
    print(("ok - " if good else "not ok - ") + name + ("" if good else ": " + why))

def absent(name, needle):
    n = b.count(needle)
    res(name, n == 0, "%d found" % n)

absent("raw log: no OSC (ESC ]) at all", b"\x1b]")
res("raw log: no 'pwned' inside an OSC string", re.search(rb"\x1b\][^\x07\x1b]*pwned", b) is None, "found")
absent("raw log: no DCS string (ESC P)", b"\x1bP")
for name, intro in (("APC", b"\x1b_"), ("PM", b"\x1b^"), ("SOS", b"\x1bX")):
    absent("raw log: no %s string" % name, intro)
absent("raw log: no tmux window-name sequence (ESC k)", b"\x1bk")
n2j = b.count(b"\x1b[2J")
res("raw log: no ESC [2J beyond the terminal's own clear", n2j == 0 or clear_has_2j, "%d found" % n2j)
absent("raw log: no ESC [2J followed by the note's text", b"\x1b[2J clear")
absent("raw log: no ESC [10;10H followed by the note's text", b"\x1b[10;10H moved")
absent("raw log: no bracketed paste start ESC [200~", b"\x1b[200~")
absent("raw log: no bracketed paste end ESC [201~", b"\x1b[201~")
absent("raw log: no C1 CSI as UTF-8 (C2 9B)", b"\xc2\x9b")
text = b.decode("utf-8", "surrogateescape")
stray = [c for c in text if "\udc80" <= c <= "\udcff"]
res("raw log: valid UTF-8 (no stray byte such as a raw 0x9b)", not stray,
    "%d stray bytes: %s" % (len(stray), sorted({hex(ord(c) - 0xdc00) for c in stray})))
c1 = [c for c in text if "\x80" <= c <= "\x9f"]
res("raw log: no C1 control characters", not c1, "%d found" % len(c1))
absent("raw log: no 0xff 0xfe bytes", b"\xff\xfe")
absent("raw log: no 0xff byte", b"\xff")
absent("raw log: no DEL", b"\x7f")
absent("raw log: no BEL", b"\x07")
absent("raw log: no NUL", b"\x00")
absent("raw log: nothing after a NUL cut", b"HIDDEN-AFTER-NUL")
# every ESC starts a sequence curses sends: CSI, charset, keypad, index, save/restore
bad = [m.group(0) for m in re.finditer(rb"\x1b(?!\[|[()][0-9A-Za-z]|[=>M78])..?", b, re.S)]
res("raw log: every ESC starts a CSI or a curses mode sequence", not bad, repr(bad[:5]))
# SO / SI: curses' own charset shifts (sgr0 of tmux-256color ends in SI)
other_c0 = sorted({c for c in b if c < 0x20 and c not in (0x1b, 0x0d, 0x0a, 0x08, 0x09, 0x0e, 0x0f)})
res("raw log: no other C0 control bytes (only ESC CR LF BS TAB SO SI)", not other_c0, repr(other_c0))
bidi = sum(text.count(c) for c in "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
res("raw log: no bidi controls (U+061C, U+200E/F, U+202A..E, U+2066..9)", bidi == 0, "%d found" % bidi)
EOF
)
echo "$py_out"
fails=$((fails + $(grep -c '^not ok' <<<"$py_out")))

# ---- a non-UTF-8 locale: the output is 7-bit ----
RUN_ENV=(LANG=C)
start hc 100 30 --go --replay "$REC" --speed 0
tm pipe-pane -t hc -o "cat >> $(printf '%q' "$T/raw-c.log")"
go hc
if wait_for hc "REPLAY ended" 15; then
	keys hc 1
	wait_for hc "note: n6" 5
	check "LANG=C: DEL, each invalid byte and each bidi mark become one ?" grep -qxF 'note: n5 del ? bad ?? rlm ?x rlo ?abc end' <<<"$(screen hc)"
	if [ "$(line hc 0)" = "$(header_expect 100 0 "${HHDR[@]}")" ]; then
		ok "LANG=C: the shortened host label is marked with '~'"
	else
		nok "LANG=C: header: got '$(line hc 0)', want '$(header_expect 100 0 "${HHDR[@]}")'"
	fi
	keys hc q
	wait_for hc "EXITED" 5
	tm pipe-pane -t hc
	sleep 0.2
	check "LANG=C: every byte written is 7-bit" bash -c '! LC_ALL=C grep -qa $'"'"'[\x80-\xff]'"'"' "$1"' _ "$T/raw-c.log"
	check "LANG=C: no OSC" bash -c '! LC_ALL=C grep -qaF $'"'"'\e]'"'"' "$1"' _ "$T/raw-c.log"
else
	nok "LANG=C: the hostile replay reaches its end"
fi

done_tests
