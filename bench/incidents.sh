#!/usr/bin/env bash
# incidents.sh - what the incident capture costs (issue 35, acceptance 6):
# on an idle server, side by side for the same BENCH_SECONDS (default 60)
# at -i 1, the same build:
#   screen   dbtop on the screen (tmux 120x40, the default 60 min history)
#   service  dbtop --no-screen --incidents DIR --listen PORT (one incident
#            asked for with SIGUSR1 halfway: its writing is in the figures)
#   endpoint dbtop --no-screen --listen PORT (no capture: what it adds)
# CPU (user + system, /proc/PID/stat) from 5 s after the start to the end,
# peak and current RSS, the spool and incident bytes; ratios to the
# screen. Runs on both engines (mariadb, pg15) of the test sandbox: with
# `eval "$(tests/sandbox.sh env)"` done it uses that one, else it starts
# its own in a temporary directory and stops it at the end.
#   BENCH_SECONDS=60 bench/incidents.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
DBTOP=${DBTOP:-./dbtop}
S=${BENCH_SECONDS:-60}
tmp=$(mktemp -d)
SOCK=dbtop-incbench-$$
own_sandbox=
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	tmux -L "$SOCK" kill-server >/dev/null 2>&1
	[ -n "$own_sandbox" ] && tests/sandbox.sh stop >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
make -s CI=1 dbtop >/dev/null || exit 1
if [ -z "${DBTOP_MARIADB_URI:-}" ]; then
	export DBTOP_SANDBOX_DIR=$tmp/sandbox DBTOP_MARIADB_PORT=${BENCH_MARIADB_PORT:-43336} DBTOP_PG15_PORT=${BENCH_PG15_PORT:-45435}
	own_sandbox=1
	tests/sandbox.sh start mariadb pg15 >"$tmp/sandbox.log" 2>&1 || { tail "$tmp/sandbox.log"; exit 1; }
	eval "$(tests/sandbox.sh env)"
fi
LPORT=${BENCH_LISTEN_PORT:-${DBTOP_LISTEN_PORT:-50999}}
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$1/stat"; }
kb() { awk -v k="$2" '$1 == k":" { print $2 }' "/proc/$1/status"; }

printf '| engine | run | CPU s (%ss) | CPU %% | peak RSS kB | RSS kB | on disk kB | CPU vs screen | peak RSS vs screen |\n' "$S"
printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
for eng in mariadb pg15; do
	uv=DBTOP_$(tr a-z A-Z <<<"$eng")_URI
	uri=${!uv}
	mkdir -p "$tmp/$eng/inc" "$tmp/$eng/state-scr" "$tmp/$eng/state-svc" "$tmp/$eng/state-end"
	tm new-session -d -s "scr-$eng" -x 120 -y 40 \
		"echo \$\$ >$tmp/$eng/scr.pid; exec env TZ=UTC LANG=C.UTF-8 XDG_STATE_HOME=$tmp/$eng/state-scr $DBTOP -i 1 '$uri'"
	XDG_STATE_HOME=$tmp/$eng/state-svc "$DBTOP" --no-screen -i 1 --incidents "$tmp/$eng/inc" --listen "$LPORT" \
		--before 30s --after 10s "$uri" 2>"$tmp/$eng/svc.err" &
	svc=$!
	XDG_STATE_HOME=$tmp/$eng/state-end "$DBTOP" --no-screen -i 1 --listen "$((LPORT + 1))" "$uri" 2>"$tmp/$eng/end.err" &
	end=$!
	pids+=("$svc" "$end")
	sleep 1
	scr=$(cat "$tmp/$eng/scr.pid")
	sleep 4
	declare -A c0
	for r in scr svc end; do c0[$r]=$(cpu_s "${!r}"); done
	sleep $((S / 2))
	kill -USR1 "$svc"
	sleep $((S - S / 2))
	declare -A c1 hwm rss disk
	for r in scr svc end; do
		c1[$r]=$(cpu_s "${!r}")
		hwm[$r]=$(kb "${!r}" VmHWM)
		rss[$r]=$(kb "${!r}" VmRSS)
		d=0
		for f in /proc/"${!r}"/fd/*; do
			case $(readlink "$f") in *dbtop-history-*) d=$((d + $(stat -L -c %s "$f"))) ;; esac
		done
		disk[$r]=$(((d / 2) / 1024))   # (each spool segment is open twice)
	done
	disk[svc]=$((disk[svc] + $(du -sk "$tmp/$eng/inc" | cut -f1)))
	for r in scr svc end; do
		name=$([ $r = scr ] && echo screen || { [ $r = svc ] && echo "service (capture)" || echo "endpoint only"; })
		cpu=$(awk -v a="${c0[$r]}" -v b="${c1[$r]}" 'BEGIN { printf "%.2f", b - a }')
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$eng" "$name" "$cpu" \
			"$(awk -v c="$cpu" -v s="$S" 'BEGIN { printf "%.2f", c / s * 100 }')" "${hwm[$r]}" "${rss[$r]}" "${disk[$r]}" \
			"$(awk -v a="$cpu" -v b="$(awk -v a="${c0[scr]}" -v b="${c1[scr]}" 'BEGIN { print b - a }')" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
			"$(awk -v a="${hwm[$r]}" -v b="${hwm[scr]}" 'BEGIN { printf "%.2f", a / b }')"
	done
	echo "| $eng | incidents written | $(ls "$tmp/$eng/inc"/*.dbrec 2>/dev/null | wc -l) | | | | | | |"
	kill "$svc" "$end" 2>/dev/null
	wait "$svc" "$end" 2>/dev/null
	tm kill-session -t "scr-$eng" 2>/dev/null
	unset c0 c1 hwm rss disk
done
