#!/usr/bin/env bash
# check_layers.sh [ROOT] - dbtop's sources keep to their layers. The layers,
# lowest first (docs/architecture.md says what each holds):
#
#   util  core  model  config  sources  record  tune  run  panes  tui  app
#
# Includes: every #include "..." goes to the same folder or a lower layer.
# Symbols: every .c of the layers is compiled (-O0, nm -P; the results are
# kept by content in $LAYERS_CACHE, default ROOT/build/layers, so a second
# run compiles only what changed) and
#   - a reference to a function or variable defined in a higher layer fails
#     (a local prototype cannot hide a call upward);
#   - two layers that reach each other through their references (a circle,
#     directly or through others) fail, with the references that close it;
#   - a function declared in a header of one folder and defined in another
#     fails (each layer defines what it declares: gcc -aux-info names the
#     header line).
# Names: a header's name is in one folder only (two headers of one name
#   mislead readers, #include lines and tools).
# Prints one line per fault (file, symbol, both layers) and exits 1 when
# there is any; prints "layers: N files, every include goes downward; ..."
# and exits 0 otherwise; 2 when the sources cannot be compiled. A folder not
# in the list is an error too (a new folder gets its place here first).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$(cd "$here/.." && pwd)}
cd "$root" || exit 2

LAYERS=(util core model config sources record tune run panes tui app)
declare -A rank
for i in "${!LAYERS[@]}"; do rank[${LAYERS[$i]}]=$i; done

# normpath A/B/../C: REPLY=A/C (a leading .. stays), without a process
normpath() {
	local IFS=/ part out=()
	for part in $1; do
		case $part in
		'' | .) ;;
		..) if ((${#out[@]})) && [ "${out[-1]}" != .. ]; then unset 'out[-1]'; else out+=(..); fi ;;
		*) out+=("$part") ;;
		esac
	done
	REPLY="${out[*]}"
}

bad=0 files=0
for dir in */; do
	dir=${dir%/}
	case $dir in build* | tests | bench | docs | scripts | recordings | themes) continue ;; esac
	compgen -G "$dir/*.[ch]" >/dev/null || continue
	if [ -z "${rank[$dir]+x}" ]; then
		echo "$dir/: a folder of C sources that has no layer (add it to LAYERS in scripts/check_layers.sh)"
		bad=$((bad + 1))
		continue
	fi
	for f in "$dir"/*.[ch]; do files=$((files + 1)); done
	# every include of the folder's files, "file:line:name" (one grep and
	# one sed a folder: a process per file made this slow on a busy machine)
	while IFS=: read -r f line inc; do
		# the folder the included file is in, resolved from the includer
		normpath "$dir/$inc"
		target=$REPLY
		tdir=${target%%/*}
		[ "$tdir" = "$target" ] && tdir=.
		if [ "$tdir" = "$dir" ]; then continue; fi
		if [ -z "${rank[$tdir]+x}" ]; then
			echo "$f:$line: includes \"$inc\" from outside the layers ($tdir)"
			bad=$((bad + 1))
		elif [ "${rank[$tdir]}" -gt "${rank[$dir]}" ]; then
			echo "$f:$line: includes \"$inc\": $tdir is above $dir (layers: ${LAYERS[*]})"
			bad=$((bad + 1))
		fi
	done < <(grep -H -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$dir"/*.[ch] |
		sed 's/^\([^:]*\):\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2:\3/')
done
if [ "$bad" -gt 0 ]; then
	echo "layers: $bad include(s) go upward or outside the layers"
	exit 1
fi

# --- names: one header of a name across the layers ---
declare -A hname
dup=0
for l in "${LAYERS[@]}"; do
	for f in "$l"/*.h; do
		[ -e "$f" ] || continue
		b=${f##*/}
		if [ -n "${hname[$b]+x}" ]; then
			echo "$f: a header of this name is also ${hname[$b]}: one name, one header"
			dup=$((dup + 1))
		else
			hname[$b]=$f
		fi
	done
done
if [ "$dup" -gt 0 ]; then
	echo "layers: $dup header name(s) used twice"
	exit 1
fi

# --- symbols ---
cc=${CC:-cc}
command -v "$cc" >/dev/null && command -v nm >/dev/null || {
	echo "layers: no $cc or nm to check the symbols with"
	exit 2
}
cache=${LAYERS_CACHE:-$root/build/layers}
mkdir -p "$cache" || exit 2
# the flags of the Makefile's DEP_CFLAGS (the client libraries' headers)
mycfg=$(command -v mariadb_config || command -v mysql_config)
flags="-std=c11 -D_GNU_SOURCE -O0 -w $(pkg-config --cflags ncursesw libpq libpcre2-8 libmicrohttpd 2>/dev/null) $([ -n "$mycfg" ] && "$mycfg" --include)"
srcs=()
for l in "${LAYERS[@]}"; do
	for f in "$l"/*.c; do [ -e "$f" ] && srcs+=("$f"); done
done
# what an object depends on: its file, every header of the layers, the flags
hdrs=()
for l in "${LAYERS[@]}"; do
	for f in "$l"/*.h; do [ -e "$f" ] && hdrs+=("$f"); done
done
common=$( { echo "$flags"; "$cc" --version | head -n 1; sha1sum "${hdrs[@]}"; } | sha1sum | cut -c1-40)
todo=()
declare -A key
# the cache's name of an object: its path, its content's hash, the rest's
while read -r sum f; do
	key[$f]=${f//\//_}-${sum:0:16}-${common:0:16}
	[ -s "$cache/${key[$f]}.nm" ] || todo+=("$f" "$cache/${key[$f]}")
	# an older version of the file's results goes
	for old in "$cache/${f//\//_}"-*; do
		[ -e "$old" ] && [ "${old#"$cache/${key[$f]}."}" = "$old" ] && rm -f "$old"
	done
done < <(sha1sum "${srcs[@]}")
if ((${#todo[@]})); then
	# shellcheck disable=SC2016
	printf '%s\0' "${todo[@]}" | CC=$cc FLAGS=$flags xargs -0 -n 2 -P "$(nproc 2>/dev/null || echo 2)" sh -c '
		$CC $FLAGS -aux-info "$1.aux.tmp" -c -o "$1.o" "$0" 2>"$1.err" &&
			nm -P "$1.o" >"$1.nm.tmp" && mv "$1.aux.tmp" "$1.aux" && mv "$1.nm.tmp" "$1.nm"
		rc=$?; rm -f "$1.o"; [ $rc = 0 ] && rm -f "$1.err"; exit $rc' || {
		for ((i = 1; i < ${#todo[@]}; i += 2)); do
			[ -s "${todo[i]}.err" ] && { echo "${todo[i - 1]}: does not compile:"; head -n 5 "${todo[i]}.err"; }
		done
		exit 2
	}
fi
# one line per symbol: "F file type name" (F: nm of the object of file) and
# "A header:line name" (a function declared in a header of the layers)
# (one awk over every file: f=FILE before each file's pair of results)
args=()
for f in "${srcs[@]}"; do args+=("f=$f" "$cache/${key[$f]}.nm" "$cache/${key[$f]}.aux"); done
awk '
	FILENAME ~ /\.nm$/ { print "F", f, $2, $1; next }
	# "/* model/../core/sample.h:210:NC */ extern const char *state_name (enum source_state);"
	$2 ~ /\.h:[0-9]+:[A-Z]+$/ && $2 !~ /^\// && $4 != "static" &&
	match($0, /[A-Za-z_][A-Za-z0-9_]* \(/) {
		at = $2; sub(/:[A-Z]+$/, "", at)
		# model/../core/sample.h: core/sample.h
		while (sub(/[^\/.][^\/]*\/\.\.\//, "", at)) {}
		print "A", at, substr($0, RSTART, RLENGTH - 2) }' "${args[@]}" |
	sort -u | awk -v layers="${LAYERS[*]}" -v nfiles="$files" -f "$here/check_layers.awk"
