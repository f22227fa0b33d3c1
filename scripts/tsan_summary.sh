#!/usr/bin/env bash
# tsan_summary.sh DIR - the ThreadSanitizer reports that `make check-tsan`
# collected in DIR (TSAN_OPTIONS log_path=DIR/tsan: one file per process
# that reported): each distinct report once, by its kind and the top frame
# of each stack ("data race: ui_travel_to tui/ui.c:1778 | replay_sample
# record/replay.c:95"), with how many times it was seen and one file to
# read. Exits 1 when there is any report, 0 and "tsan: no report" otherwise.
set -uo pipefail
dir=${1:?usage: tsan_summary.sh DIR}
shopt -s nullglob
files=("$dir"/tsan*)
if [ ${#files[@]} -eq 0 ]; then
	echo "tsan: no report"
	exit 0
fi
awk '
function flush() {
	if (kind != "") {
		key = kind ": " (frames != "" ? frames : first)
		if (!(key in seen)) { order[n++] = key; where[key] = FILENAME }
		seen[key]++
	}
	kind = ""; frames = ""; first = ""; want = 0
}
/^WARNING: ThreadSanitizer: / {
	flush()
	kind = $0; sub(/^WARNING: ThreadSanitizer: /, "", kind); sub(/ \(pid=[0-9]+\)$/, "", kind)
	next
}
# the stacks of the accesses ("  Read of size 1 at ... by thread T1:",
# "  Previous write ..."); not where a thread was made or a block allocated
kind != "" && /^  [A-Z].* of size [0-9]+ at / && !/^  Location/ { want = 1; next }
kind != "" && /^  [A-Z]/ { want = 0; next }
kind != "" && /^    #0 / && (want || first == "") {
	sub(/^.*\/(\.\.\/)*/, "", $3)
	if (first == "") first = $2 " " $3
	if (want) frames = frames (frames == "" ? "" : " | ") $2 " " $3
	want = 0; next
}
/^SUMMARY: ThreadSanitizer/ { flush() }
END {
	flush()
	for (i = 0; i < n; i++) printf "%4d x %s (%s)\n", seen[order[i]], order[i], where[order[i]]
	printf "tsan: %d distinct report(s) in %d file(s)\n", n, ARGC - 1
}' "${files[@]}"
exit 1
