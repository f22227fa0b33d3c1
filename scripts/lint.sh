#!/usr/bin/env bash
# `make lint`: the product code (not the tests) read without running it by
# three tools; any finding fails (exit 1), a tool missing too (exit 2).
#   scripts/lint.sh              every .c of the product folders
#   scripts/lint.sh FILE.c ...   those files only (tests/lint.sh plants bugs so)
# Env: LINT_CFLAGS  the compiler's -std/-D/-I flags (the Makefile passes them)
#      LINT_JOBS    parallel jobs (2)      LINT_DIR  scratch folder (build-lint)
#
# 1. cppcheck (warning, performance, portability, information: a stale
#    suppression is a finding too).
# 2. scan-build: the clang static analyzer's default checkers, each file
#    compiled through the Makefile's own rule.
# 3. clang-tidy: the checks of .clang-tidy (bugprone-*, cert-*, less those
#    that only flag this code's idioms; the file says why for each).
# A false positive is suppressed where it is reported, with its reason:
#   cppcheck:   /* cppcheck-suppress ID ; why */ on the line above
#   analyzer:   assert(what it cannot see);   /* lint: why */
#   clang-tidy: /* NOLINT(check): why */ at the end of the line
# Each finding prints as FILE:LINE: ... [tool check]; the last line is
# "lint: N findings (cppcheck A, scan-build B, clang-tidy C) in F files, S s, CPU C s".
set -uo pipefail
cd "$(dirname "$0")/.."

DIRS="app config core model panes record run sources tui tune util"
jobs=${LINT_JOBS:-2}
dir=${LINT_DIR:-build-lint}
cflags=${LINT_CFLAGS:--std=c11 -D_GNU_SOURCE}
if [ $# -gt 0 ]; then
    files=("$@")
else
    # shellcheck disable=SC2086
    mapfile -t files < <(find $DIRS -name '*.c' | LC_ALL=C sort)
fi
for t in cppcheck scan-build clang-tidy; do
    command -v "$t" >/dev/null 2>&1 || { echo "lint: $t not found (scripts/deps.sh installs it)" >&2; exit 2; }
done
rm -rf "$dir"
mkdir -p "$dir"
t0=$(date +%s)

# cppcheck: one line per finding
cppcheck_run() {
    # shellcheck disable=SC2086
    cppcheck --enable=warning,performance,portability,information --std=c11 -D_GNU_SOURCE \
        --inline-suppr --quiet -j "$jobs" --template='{file}:{line}: {severity}: {message} [cppcheck {id}]' \
        "${files[@]}" >"$dir/cppcheck.log" 2>&1
    grep -E '^[^ ]+:[0-9]+: .*\[cppcheck [A-Za-z0-9_]+\]$' "$dir/cppcheck.log"
}

# scan-build over the Makefile's object rule (gcc compiles, clang analyzes);
# CI= so that a compiler warning is the build's concern, not this one's
scan_run() {
    local objs=() f
    for f in "${files[@]}"; do objs+=("$dir/obj/${f%.c}.o"); done
    scan-build -o "$dir/scan" --status-bugs make -B -j "$jobs" --no-print-directory CI= CFLAGS=-O0 \
        BUILD="$dir/obj" "${objs[@]}" >"$dir/scan-build.log" 2>&1
    grep -E '^[^ ]+:[0-9]+:[0-9]+: warning: .* \[[a-z]+\.[A-Za-z.]+\]$' "$dir/scan-build.log" |
        sed -E 's/ \[([a-z]+\.[A-Za-z.]+)\]$/ [scan-build \1]/' | LC_ALL=C sort -u
    # a file that did not compile was not analyzed: a finding too
    if grep -q '^make: \*\*\*' "$dir/scan-build.log"; then
        grep -E ': error: ' "$dir/scan-build.log" | head -n 5 >&2
        echo "$dir/scan-build.log:1: the build failed: not every file was analyzed [scan-build build]"
    fi
}

# clang-tidy, the checks of .clang-tidy; a compiler error in its parse counts
tidy_run() {
    # shellcheck disable=SC2086
    printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} clang-tidy -quiet {} -- $cflags >"$dir/clang-tidy.log" 2>&1
    grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): .* \[[a-z0-9.,-]+\]$' "$dir/clang-tidy.log" |
        sed -E "s|^$PWD/||; s/ \[([a-z0-9.,-]+)\]$/ [clang-tidy \1]/" | LC_ALL=C sort -u
}

# a tool's time: wall clock and CPU (user + system of everything it ran; on a
# busy machine the wall clock says little, the CPU time what it costs)
TIMEFORMAT='%R %U %S'
total=0 counts= cpu_all=0
for tool in cppcheck scan-build clang-tidy; do
    case $tool in
    cppcheck) { time found=$(cppcheck_run); } 2>"$dir/time" ;;
    scan-build) { time found=$(scan_run); } 2>"$dir/time" ;;
    clang-tidy) { time found=$(tidy_run); } 2>"$dir/time" ;;
    esac
    head -n -1 "$dir/time" >&2   # what the tool said on stderr; the time is the last line
    read -r wall usr sys < <(tail -n 1 "$dir/time")
    cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.0f", u + s }')
    cpu_all=$((cpu_all + cpu))
    n=0
    [ -n "$found" ] && n=$(wc -l <<<"$found") && echo "$found"
    echo "lint: $tool: $n findings (${wall%.*} s, CPU $cpu s)"
    total=$((total + n))
    counts="$counts${counts:+, }$tool $n"
done
echo "lint: $total findings ($counts) in ${#files[@]} files, $(($(date +%s) - t0)) s, CPU $cpu_all s"
[ "$total" = 0 ]
