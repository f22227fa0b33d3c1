# lib.bash - helpers for the screen tests (sourced; not a test itself: the
# runner only runs tests/screen/*.sh). The real binary runs in tmux on a
# private server (-L dbtop-test-PID) that is killed on exit, on recordings,
# so no database server is needed.
#
#   start NAME W H [--go] ARGS...   run dbtop ARGS in a new W x H session;
#                                    the pane ends with "EXITED <status> MODES
#                                    <tty modes>" and stays open.
#                                    --go: wait for `go NAME` before starting
#                                    (to attach pipe-pane first).
#   env for the run: TZ=UTC LANG=C.UTF-8, NO_COLOR and LC_* unset, HOME
#   private; RUN_ENV=(VAR=VALUE ...) adds to it for the next start, and
#   RUN_STDOUT=FILE sends that run's standard output to FILE.
#   wait_for NAME TEXT [SECONDS]     poll the screen until TEXT is on it
#   wait_gone NAME TEXT [SECONDS]    poll until TEXT is no longer on it
#   wait_line NAME N TEXT [SECONDS]  poll until line N starts with TEXT
#   screen NAME / screen_e NAME      the screen (text / with attributes)
#   line NAME N / line_e NAME N      one screen line (0-based), alone
#   golden NAME FILE [SPEC...]       compare the screen (or parts of it,
#                                    see part) to golden/FILE.txt;
#                                    UPDATE_GOLDEN=1 rewrites the file
#   dbtop_pid NAME                   the pid of the dbtop process
#   pane NAME FORMAT                 a tmux format of the pane

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
DBTOP=${DBTOP:-./dbtop}
GOLDEN_DIR=$ROOT/tests/screen/golden
# (the pid alone is not unique enough on a shared machine: pids wrap at
# 32768, and a test killed without its cleanup leaves its tmux server, with
# sessions of the same names, on the socket the next test of that pid
# would join)
SOCK=dbtop-test-$$-$RANDOM$RANDOM
T=$(mktemp -d "${TMPDIR:-/tmp}/dbtop-screen.XXXXXX")
mkdir -p "$T/home"
fails=0
RUN_ENV=()
RUN_STDOUT=

ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }
# check NAME CMD...: ok when the command succeeds
check() {
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$name"; else nok "$name"; fi
}
done_tests() { exit $((fails > 0)); }
# a note for the reader of the log; not counted by the runner
note() { sed 's/^/# /'; }

tm() { tmux -L "$SOCK" "$@"; }

cleanup() {
	local sock
	sock=$(tmux -L "$SOCK" display -p '#{socket_path}' 2>/dev/null)
	tmux -L "$SOCK" kill-server >/dev/null 2>&1
	[ -n "$sock" ] && rm -f "$sock"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Preconditions: tmux, the binary, a UTF-8 locale. Exits when missing.
need_basics() {
	if ! command -v tmux >/dev/null; then
		nok "tmux is installed (scripts/deps.sh installs it)"
		exit 1
	fi
	if [ ! -x "$DBTOP" ]; then
		nok "$DBTOP is built (make CI=1)"
		exit 1
	fi
	# run a private copy: a rebuild during the tests must not swap the binary
	# under them (retried: the copy may catch a link in progress)
	local i
	for i in 1 2 3 4 5; do
		if cp "$DBTOP" "$T/dbtop" 2>/dev/null && "$T/dbtop" --version >/dev/null 2>&1; then
			break
		fi
		sleep 1
	done
	if ! "$T/dbtop" --version >/dev/null 2>&1; then
		nok "$DBTOP runs (--version)"
		exit 1
	fi
	DBTOP=$T/dbtop
	# the server keeps a control session so that test sessions come and go
	tm -f /dev/null new-session -d -s ctl -x 80 -y 24 "sleep 3600" || {
		nok "a private tmux server starts"
		exit 1
	}
	local term=tmux-256color
	infocmp "$term" >/dev/null 2>&1 || term=screen-256color
	tm set -g default-terminal "$term" >/dev/null
	tm set -g history-limit 0 >/dev/null
	tm set -g status off >/dev/null
	TERM_IN_PANE=$term
}

# start NAME W H [--go] ARGS...
start() {
	local name=$1 w=$2 h=$3 go=0 q a
	shift 3
	if [ "${1:-}" = --go ]; then
		go=1
		shift
	fi
	q=
	for a in "$@"; do q+=" $(printf '%q' "$a")"; done
	local envq=
	for a in "${RUN_ENV[@]}"; do envq+=" $(printf '%q' "$a")"; done
	RUN_ENV=()
	local redir=
	[ -n "$RUN_STDOUT" ] && redir=" >$(printf '%q' "$RUN_STDOUT")"
	RUN_STDOUT=
	rm -f "$T/$name.pid" "$T/$name.go"
	cat >"$T/$name.run" <<EOF
cd $(printf '%q' "$ROOT") || exit 1
if [ $go = 1 ]; then
	i=0
	while [ ! -e $(printf '%q' "$T/$name.go") ] && [ \$i -lt 300 ]; do sleep 0.02; i=\$((i + 1)); done
fi
( echo \$BASHPID > $(printf '%q' "$T/$name.pid")
  exec env -u NO_COLOR -u LC_ALL -u LC_CTYPE -u LC_MESSAGES -u DBTOP_THEME_DIR -u DBTOP_FRAME_STATS \\
	HOME=$(printf '%q' "$T/home") TZ=UTC LANG=C.UTF-8$envq $(printf '%q' "$DBTOP")$q$redir )
rc=\$?
echo "EXITED \$rc MODES \$(stty -a | tr ' ;' '\n\n' | grep -E '^-?(icanon|echo)\$' | tr '\n' ' ')"
exec sleep 3600
EOF
	tm new-session -d -s "$name" -x "$w" -y "$h" "bash $(printf '%q' "$T/$name.run")"
}

go() { : >"$T/$1.go"; }

screen() { tm capture-pane -p -t "$1"; }
# with attributes; the SGR codes ending a line style nothing and vary with
# the paint history, so they are dropped
screen_e() { tm capture-pane -p -e -t "$1" | sed $'s/\\(\e\\[[0-9;]*m\\)*$//'; }
line() { tm capture-pane -p -t "$1" -S "$2" -E "$2"; }
line_e() { tm capture-pane -p -e -t "$1" -S "$2" -E "$2"; }
pane() { tm display -p -t "$1" "$2"; }

# wait_for NAME TEXT [SECONDS]: true once TEXT (fixed string) is on screen
wait_for() {
	local name=$1 text=$2 secs=${3:-10} i n
	n=$((secs * 20))
	for ((i = 0; i < n; i++)); do
		screen "$name" 2>/dev/null | grep -qF -- "$text" && return 0
		sleep 0.05
	done
	return 1
}

# wait_line NAME N TEXT [SECONDS]: true once line N (0-based) starts with TEXT
wait_line() {
	local name=$1 n=$2 text=$3 secs=${4:-10} i k
	k=$((secs * 20))
	for ((i = 0; i < k; i++)); do
		[[ "$(line "$name" "$n" 2>/dev/null)" == "$text"* ]] && return 0
		sleep 0.05
	done
	return 1
}

# wait_gone NAME TEXT [SECONDS]
wait_gone() {
	local name=$1 text=$2 secs=${3:-10} i n
	n=$((secs * 20))
	for ((i = 0; i < n; i++)); do
		screen "$name" 2>/dev/null | grep -qF -- "$text" || return 0
		sleep 0.05
	done
	return 1
}

# retry SECONDS CMD...: true once CMD succeeds (polled every 0.05 s)
retry() {
	local n=$(($1 * 20)) i
	shift
	for ((i = 0; i < n; i++)); do
		"$@" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# keys NAME KEY...: send keys (tmux key names)
keys() {
	local name=$1
	shift
	tm send-keys -t "$name" "$@"
}

# literal NAME TEXT: type TEXT as is
literal() { tm send-keys -t "$1" -l -- "$2"; }

dbtop_pid() { cat "$T/$1.pid" 2>/dev/null; }

# alive NAME: the dbtop of the session is still running
alive() {
	local pid
	pid=$(dbtop_pid "$1")
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && ! screen "$1" | grep -q '^EXITED '
}

# The exit line of a session, once it is there ("EXITED 0 MODES icanon echo").
exit_line() { screen "$1" | grep -m1 '^EXITED '; }

# has NAME TEXT: TEXT is on the screen now
has() { screen "$1" | grep -qF -- "$2"; }

# Save a screen for the reader of a failure; echoes the path.
keep() {
	local d=${TMPDIR:-/tmp}/dbtop-screen-actual
	mkdir -p "$d"
	cat >"$d/$1"
	echo "$d/$1"
}

# part NAME SPEC...: parts of the screen, each SPEC "Y0-Y1" (lines, 0-based,
# whole width) or "Y0-Y1@X0+W" (W columns from X0); trailing blanks dropped
part() {
	local name=$1 spec y0 y1 x0 w y l
	local -a lines
	shift
	mapfile -t lines < <(screen "$name")
	for spec in "$@"; do
		y0=${spec%%-*}
		y1=${spec#*-}
		y1=${y1%%@*}
		x0=0 w=100000
		if [[ $spec == *@* ]]; then
			x0=${spec#*@}
			w=${x0#*+}
			x0=${x0%+*}
		fi
		for ((y = y0; y <= y1; y++)); do
			l=${lines[$y]:-}
			l=${l:$x0:$w}
			printf '%s\n' "${l%"${l##*[! ]}"}"
		done
	done
}

# golden NAME FILE [SPEC...]: the screen (or the parts SPEC... name, see
# part) equals tests/screen/golden/FILE.txt
golden() {
	local name=$1 file=$GOLDEN_DIR/$2.txt got
	shift 2
	if [ $# -gt 0 ]; then
		got=$(LC_ALL=C.UTF-8 part "$name" "$@")
	else
		got=$(screen "$name")
	fi
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
		mkdir -p "$GOLDEN_DIR"
		printf '%s\n' "$got" >"$file"
		ok "golden $(basename "$file" .txt) (rewritten)"
		return
	fi
	if [ ! -f "$file" ]; then
		nok "golden $(basename "$file" .txt): $file missing (UPDATE_GOLDEN=1 writes it)"
		return
	fi
	if [ "$(cat "$file")" = "$got" ]; then
		ok "golden $(basename "$file" .txt)"
	else
		local kept
		kept=$(printf '%s\n' "$got" | keep "$(basename "$file")")
		nok "golden $(basename "$file" .txt): the screen differs (got $kept)"
		diff -u "$file" "$kept" | head -40 | note
	fi
}

# golden_tiles NAME FILE WHAT: the overview on screen NAME cut into its
# parts (the rows above the tiles, each tile [1]-[5] with its place, the key
# bar; check_screens.py --tiles), each part compared to its section of
# tests/screen/golden/FILE.txt: one ok / not ok per part, named by WHAT
# and the part. UPDATE_GOLDEN=1 rewrites the file.
golden_tiles() {
	local name=$1 file=$GOLDEN_DIR/$2.txt what=$3 w l
	w=$(pane "$name" '#{pane_width}')
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
		mkdir -p "$(dirname "$file")"
		screen "$name" | python3 "$ROOT/tests/screen/check_screens.py" --tiles "$w" >"$file"
		ok "golden $2 (rewritten)"
		return
	fi
	if [ ! -f "$file" ]; then
		nok "golden $2: $file missing (UPDATE_GOLDEN=1 writes it)"
		return
	fi
	while IFS= read -r l; do
		case $l in
		"ok - "*) ok "$what: ${l#ok - }" ;;
		"not ok - "*) nok "$what: ${l#not ok - }" ;;
		*) echo "$l" ;;
		esac
	done < <(screen "$name" | python3 "$ROOT/tests/screen/check_screens.py" --tiles "$w" "$file")
}

# The header fields of recordings/mariadb-commit-fsync.dbrec at its end, for
# header_expect (state, engine and version, host, uptime, interval, cost and
# clock); they change when the recording is made again.
MARIADB_HDR=("UP  REPLAY ended" "mariadb 10.11.19" "127.0.0.1:34130" "up 0m 41s" "every 1s" "cost 8.4ms  21:15:23")

# These overview goldens of 10_screens.sh and 20_terminal.sh hold the
# header, the rates tile and the key bar; every tile of the overview is
# held by golden_tiles in 60_layout.sh (golden/tiles/, at 80x24, 120x40
# and 200x50, every bundled recording).
OVERVIEW_100x30=(0-16 29)
OVERVIEW_80x24=(0-10 23)
# The MariaDB recording without row 8 (commit latency ms, "- (undefined)"):
# its value runs into its label (see glued_rows in 10_screens.sh).
MARIADB_OVERVIEW_100x30=(0-7 9-16 29)
MARIADB_OVERVIEW_200x50=(0-0 1-7@0+110 9-48@0+110 49-49)

# Screens 2-5: number, pane name, title.
PANES_2_5=("2 digests statement digests" "3 locks lock waits" "4 waits WAL / redo waits" "5 tuning safe tuning")

# The SGR escape sequences a line starts with (its first cell's style).
style_of() { grep -o $'^\(\e\[[0-9;]*m\)*' | head -1; }

# Colour parameters (3x 4x 9x 10x 38 48) among the SGR codes of stdin.
colour_codes() {
	grep -o $'\e\[[0-9;]*m' | sed $'s/^\e\\[//; s/m$//' | tr ';' '\n' |
		grep -E '^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$' | sort | uniq -c
}

# Attribute parameters (1 bold, 2 dim, 4 underline, 7 reverse) in stdin.
attr_codes() {
	grep -o $'\e\[[0-9;]*m' | sed $'s/^\e\\[//; s/m$//' | tr ';' '\n' |
		grep -E '^[1247]$' | sort -u | tr '\n' ' '
}

# The key table of tui/keys.c: "NAME<TAB>BAR<TAB>SCREENS<TAB>HELP" a line,
# in table order; BAR "-" when none; SCREENS the screens (0 the overview)
# where the binding applies, e.g. "012". The bindings of the fleet (several
# targets: KW_FLEET, F, n, p) are left out: these screens have one target.
key_table() {
	python3 - tui/keys.c <<'PY'
import re, sys
src = open(sys.argv[1]).read()
body = src[src.index('key_binds[] = {'):]
body = body[:body.index('\n};')]
# what the table takes from the list of panes (panes/pane_list.h): a pane's
# screen by name, the number keys' name, key bar and help
panes = re.findall(r'X\((\w+), (\d+), "([^"]*)", \w+\)', open('panes/pane_list.h').read())
last = panes[-1][1]
body = re.sub(r'KW_PANE\((\w+)\)', lambda m: 'KW_SCREEN(%s)' % dict((n, s) for n, s, _ in panes)[m.group(1)], body)
body = body.replace('screens_name', '"0-%s"' % last).replace('screens_bar', '"0-%s Screens"' % last)
body = body.replace('PANE_SCREENS_HELP', '"0 overview%s"' % ''.join(', %s %s' % (s, l) for _, s, l in panes))
for m in re.finditer(r'\{\{.*?\}, (KA_\w+), [^,]+, ([^,]+), (true|false), ((?:"(?:[^"\\]|\\.)*"\s*)+|NULL), ((?:"(?:[^"\\]|\\.)*"\s*)+|NULL),\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\}', body, re.S):
    lit = lambda t: 'NULL' if t.strip() == 'NULL' else ''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', t)).replace('\\"', '"')
    where = m.group(2).strip()
    # the fleet's own bindings and F / n / p show only with several
    # targets: not on these screens (one target each)
    if where == 'KW_FLEET' or m.group(1) in ('KA_FLEET', 'KA_NEXT_SERVER', 'KA_PREV_SERVER', 'KA_FLEET_SORT'):
        continue
    if where == 'KW_EVERY':
        where = 'KW_ALL'
    scr = ''
    for s in range(6):
        if where == 'KW_ALL' or (s == 0 and 'KW_OVERVIEW' in where) or 'KW_SCREEN(%d)' % s in where:
            scr += str(s)
    bar = lit(m.group(5))
    print('%s\t%s\t%s\t%s' % (lit(m.group(4)), '-' if bar == 'NULL' else bar, scr, lit(m.group(6))))
PY
}

# key_where KEY: where the binding KEY works, as the message of a key
# pressed elsewhere says it (tui/keys.c key_where_text): "everywhere", or
# the overview and the screens, e.g. "overview, 1, 2" or "screen 3".
key_where() {
	key_table | awk -F'\t' -v k="$1" '$1 == k {
		if ($3 == "012345") { print "everywhere"; next }
		out = ""
		for (i = 1; i <= length($3); i++) {
			s = substr($3, i, 1)
			if (s == "0") w = "overview"; else w = (out == "" ? "screen " : "") s
			out = out (out == "" ? "" : ", ") w
		}
		print out
	}'
}

# The key bar's entries of screen S (default 0, the overview): "KEY LABEL"
# a line, in table order.
global_key_bars() {
	key_table | awk -F'\t' -v s="${1:-0}" '$2 != "-" && index($3, s) { print $2 }'
}

# keybar_expect COLS [SCREEN]: the key bar of a COLS-wide terminal: the
# entries "KEY LABEL" of the screen in table order, two spaces apart, as
# many whole ones as fit.
keybar_expect() {
	local LC_ALL=C.UTF-8
	local cols=$1 e out= x=0
	while IFS= read -r e; do
		((x + ${#e} > cols)) && break
		out+="$e  "
		x=$((x + ${#e} + 2))
	done < <(global_key_bars "${2:-0}")
	printf '%s\n' "${out%"${out##*[! ]}"}"
}

# header_expect COLS UTF8 STATE ENGINE_VERSION HOST UP EVERY RIGHT: the
# header line of a COLS-wide terminal: " dbtop STATE", then the fields that
# fit whole, chosen by priority (host, engine and version, "  RIGHT " or
# when it does not fit the clock alone (RIGHT's last word), interval,
# uptime) and shown in the order engine, host, uptime, interval; RIGHT at
# the right end. A host that does not fit whole: its start, cut with the
# mark ("…", or "..." when UTF8 is 0), when more than 8 columns are left.
# Trailing blanks dropped, as tmux captures them.
header_expect() {
	local LC_ALL=C.UTF-8
	local cols=$1 utf8=$2 state=$3 eng=$4 host=$5 up=$6 every=$7 right="  $8 "
	local out=" dbtop $state" room p i f show_right=0 mark=… h keep
	local -a fields=("$eng" "$host" "$up" "$every") on=(0 0 0 0) prio=(1 0 4 3)
	[ "$utf8" = 1 ] || mark=...
	room=$((cols - ${#out}))
	for p in 0 1 2 3 4; do
		if [ $p = 2 ]; then
			((room < ${#right})) && right="  ${8##* } "
			if ((room >= ${#right})); then
				show_right=1
				room=$((room - ${#right}))
			fi
			continue
		fi
		for i in 0 1 2 3; do
			[ "${prio[$i]}" = $p ] && [ -n "${fields[$i]}" ] || continue
			f="  ${fields[$i]}"
			if ((${#f} <= room)); then
				on[$i]=1
				room=$((room - ${#f}))
			fi
		done
	done
	for i in 0 1 2 3; do
		[ "${on[$i]}" = 1 ] && out+="  ${fields[$i]}"
	done
	if [ "${on[1]}" = 0 ] && ((cols - ${#out} > 8)); then
		h="  $host"
		if ((${#h} > cols - ${#out})); then
			keep=$((cols - ${#out} - ${#mark}))
			h="${h:0:$keep}$mark"
		fi
		out+=$h
	fi
	if [ $show_right = 1 ]; then
		printf '%s%*s%s\n' "$out" $((cols - ${#out} - ${#right})) "" "${right% }"
	else
		printf '%s\n' "$out"
	fi
}

# shown_wrapped NAME TEXT: TEXT is on the screen from the first column of a
# row, whole, wrapped at spaces onto the rows below (one space of TEXT lost
# at each wrap, nothing else)
shown_wrapped() {
	local LC_ALL=C.UTF-8
	local text=$2 i j acc
	local -a rows
	mapfile -t rows < <(screen "$1")
	for i in "${!rows[@]}"; do
		[[ ${rows[$i]} == "${text:0:20}"* ]] || continue
		acc=${rows[$i]%"${rows[$i]##*[! ]}"}
		for ((j = i + 1; ${#acc} < ${#text} && j < ${#rows[@]}; j++)); do
			[[ $text == "$acc "* ]] || break
			acc+=" ${rows[$j]%"${rows[$j]##*[! ]}"}"
		done
		[ "$acc" = "$text" ] && return 0
	done
	return 1
}
