#!/usr/bin/env bash
# frames.sh - frame render time of the screen on the bundled recordings at
# 200x50 and 80x24: each recording replayed at --speed 4 in a private tmux
# (one frame per recorded sample and per second), once on the overview and
# once on the locks screen, with DBTOP_FRAME_STATS; prints frames, average
# and maximum render time per run. No server needed. DBTOP=path measures
# another build. Target: <= 1 ms average at both sizes.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
DBTOP=${DBTOP:-./dbtop}
SOCK=dbtop-frames-$$
tmp=$(mktemp -d)
trap 'tmux -L "$SOCK" kill-server >/dev/null 2>&1; rm -rf "$tmp"' EXIT
tm() { tmux -L "$SOCK" "$@"; }
tm -f /dev/null new-session -d -s ctl -x 80 -y 24 "sleep 600"
tm set -g status off >/dev/null

printf '| recording | size | screen | frames | avg ms | max ms |\n| --- | --- | --- | --- | --- | --- |\n'
for rec in recordings/*.dbrec; do
	for size in 200x50 80x24; do
		for scr in 0 3; do
			name=r$$-$scr-${size/x/_}
			rm -f "$tmp/stats"
			tm new-session -d -s "$name" -x "${size%x*}" -y "${size#*x}" \
				"env TZ=UTC LANG=C.UTF-8 DBTOP_FRAME_STATS=$tmp/stats $DBTOP --replay $rec --speed 4; sleep 60"
			sleep 0.5
			tm send-keys -t "$name" "$scr"
			for _ in $(seq 1 300); do
				tm capture-pane -p -t "$name" | grep -q "REPLAY ended" && break
				sleep 0.1
			done
			tm send-keys -t "$name" q
			for _ in $(seq 1 50); do
				[ -s "$tmp/stats" ] && break
				sleep 0.1
			done
			tm kill-session -t "$name" 2>/dev/null
			awk -v r="$(basename "$rec" .dbrec)" -v s="$size" -v c="$([ $scr = 0 ] && echo overview || echo locks)" \
				'{ for (i = 1; i < NF; i++) v[$i] = $(i + 1) }
				 END { printf "| %s | %s | %s | %d | %.3f | %.3f |\n", r, s, c, v["frames"], v["avg_ms"], v["max_ms"] }' \
				"$tmp/stats" 2>/dev/null || echo "| $(basename "$rec" .dbrec) | $size | $scr | n/a | | |"
		done
	done
done
