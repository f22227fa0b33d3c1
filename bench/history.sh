#!/usr/bin/env bash
# history.sh - what the time-travel history costs: one synthetic hour at
# 1 s (tests/tools/mkhour: 1,000 statement digests, a fifth of them moving
# each second, a lock chain for the first 10 s of every minute, settings
# every 10 s) replayed on the screen at --speed 0, 200x50, once with
# --history 0 and once with --history 60m: peak RSS (VmHWM), CPU (user +
# system) and the spool size when the hour is in; then, with the history,
# frozen: 30 x Left, 5 x PgUp and 10 x Left on the locks screen, one key
# at a time, each timed in the process from the key to its frame drawn
# (DBTOP_FRAME_STATS: steps, rebuilds). No server needed.
#   BENCH_SECONDS=3600 BENCH_DIGESTS=1000 bench/history.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
DBTOP=${DBTOP:-./dbtop}
N=${BENCH_SECONDS:-3600}
D=${BENCH_DIGESTS:-1000}
SOCK=dbtop-history-$$
tmp=$(mktemp -d)
trap 'tmux -L "$SOCK" kill-server >/dev/null 2>&1; rm -rf "$tmp"' EXIT
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
make -s CI=1 dbtop build/tests/mkhour >/dev/null || exit 1
build/tests/mkhour "$tmp/hour.dbrec" "$N" "$D" || exit 1
tm new-session -d -s ctl -x 80 -y 24 "sleep 600"
tm set -g status off >/dev/null

printf '| history | recording | peak RSS | CPU (user+sys) | spool on disk | steps | step avg ms | step max ms | rebuild avg ms | rebuild max ms |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
for hist in 0 60m; do
	name=h$$-$hist
	rm -f "$tmp/stats"
	tm new-session -d -s "$name" -x 200 -y 50 \
		"env TZ=UTC LANG=C.UTF-8 XDG_STATE_HOME=$tmp/state DBTOP_FRAME_STATS=$tmp/stats $DBTOP --replay $tmp/hour.dbrec --speed 0 --history $hist; sleep 60"
	pid=
	for _ in $(seq 50); do
		pid=$(pgrep -n -f "hour.dbrec --speed 0 --history $hist") && break
		sleep 0.1
	done
	for _ in $(seq 600); do
		tm capture-pane -p -t "$name" | head -1 | grep -q "REPLAY ended" && break
		sleep 0.2
	done
	hwm=$(awk '/VmHWM/ {print $2 " kB"}' /proc/"$pid"/status)
	cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f s", ($14 + $15) / hz}' /proc/"$pid"/stat)
	spool=0
	for f in /proc/"$pid"/fd/*; do
		case $(readlink "$f") in *dbtop-history-*) spool=$((spool + $(stat -L -c %s "$f"))) ;; esac
	done
	spool=$((spool / 2))   # (each segment is open twice: writer and reader)
	if [ "$hist" != 0 ]; then
		tm send-keys -t "$name" Space
		sleep 0.5
		for _ in $(seq 30); do tm send-keys -t "$name" Left; sleep 0.15; done
		for _ in $(seq 5); do tm send-keys -t "$name" PPage; sleep 0.3; done
		tm send-keys -t "$name" 3
		sleep 0.3
		for _ in $(seq 10); do tm send-keys -t "$name" Left; sleep 0.15; done
		hwm=$(awk '/VmHWM/ {print $2 " kB"}' /proc/"$pid"/status)
	fi
	tm send-keys -t "$name" q
	for _ in $(seq 50); do [ -s "$tmp/stats" ] && break; sleep 0.1; done
	st=$(sed -n 's/^steps \([0-9]*\) step_avg_ms \([0-9.]*\) step_max_ms \([0-9.]*\) rebuilds [0-9]* rebuild_avg_ms \([0-9.]*\) rebuild_max_ms \([0-9.]*\)/\1 | \2 | \3 | \4 | \5/p' "$tmp/stats")
	printf '| %s | %s s, %s digests | %s | %s | %s MB | %s |\n' "$hist" "$N" "$D" "$hwm" "$cpu" \
		"$(awk -v b="$spool" 'BEGIN {printf "%.1f", b / 1e6}')" "${st:-- | - | - | - | -}"
	tm kill-session -t "$name"
done
echo "recording: $(stat -c %s "$tmp/hour.dbrec" | awk '{printf "%.1f MB", $1 / 1e6}')"
