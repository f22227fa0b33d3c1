#!/usr/bin/env bash
# check_layers.sh [ROOT] - every #include "..." in dbtop's sources goes to the
# same folder or a lower layer. The layers, lowest first (docs/architecture.md
# says what each holds):
#
#   util  core  model  config  sources  record  tune  run  panes  tui  app
#
# Prints one line per include that goes upward (file:line, what it includes,
# both layers) and exits 1 when there is any; prints "layers: N files, every
# include goes downward" and exits 0 otherwise. A folder not in the list is an
# error too (a new folder gets its place here first).
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
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
	for f in "$dir"/*.[ch]; do
		files=$((files + 1))
		while IFS=: read -r line inc; do
			# the folder the included file is in, resolved from the includer
			# (in the shell: a process per include made this slow on a busy
			# machine)
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
		done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
			sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
	done
done
if [ "$bad" -gt 0 ]; then
	echo "layers: $bad include(s) go upward or outside the layers"
	exit 1
fi
echo "layers: $files files, every include goes downward"
