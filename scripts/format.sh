#!/usr/bin/env bash
# format.sh check|fix [BASE]: the product's C code (app config core model panes
# record run sources tui tune util) against .clang-format, on the lines changed
# since BASE only, so that code written before the rule stays as it was and
# every change after it is in the one format (docs/development.md).
#   check   print the diff clang-format would make; exit 1 if there is one
#   fix     make it (the working tree's files, changed lines only)
# BASE (argument or FORMAT_BASE): default, the commit that added .clang-format.
# "Changed": a line of the working tree whose last change (git blame) is a
# commit made on top of BASE (BASE's descendants, merges included) or not
# committed yet; untracked files are not looked at (git add them first). On a fresh clone
# BASE is in the history; a shallow clone or a tree without .git has nothing
# to compare with: said, exit 0 (a tarball is not a change). Whole files:
# `clang-format-14 -i FILE`; never the whole tree (every branch would conflict).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
DIRS=(app config core model panes record run sources tui tune util)
CF=$(command -v clang-format-14 || command -v clang-format || true)
GCF=$(command -v git-clang-format-14 || command -v git-clang-format || true)
if [ -z "$CF" ] || [ -z "$GCF" ]; then
    echo "format: clang-format 14 not found (scripts/deps.sh installs it)" >&2
    exit 2
fi
case $("$CF" --version) in
*"version 14."*) ;;
*) echo "format: $("$CF" --version) is not clang-format 14: another version formats differently" >&2; exit 2 ;;
esac
if ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "format: no git repository here: no changed lines to $mode"
    exit 0
fi
base=${2:-${FORMAT_BASE:-$(git log --diff-filter=A --format=%H -- .clang-format | tail -n 1)}}
if [ -z "$base" ] || ! git cat-file -e "$base^{commit}" 2>/dev/null; then
    echo "format: the commit that added .clang-format is not in this history (shallow clone?): nothing to $mode"
    exit 0
fi
short=$(git rev-parse --short=12 "$base")
# the commits made on top of the rule (and the rule's own): a line whose last
# change (git blame) is one of them, or not committed yet, is checked; lines
# of branches forked before the rule and merged after it are not, until a
# commit made on top of the rule touches them
allowed=$(mktemp)
trap 'rm -f "$allowed"' EXIT
{ git rev-parse "$base"; git rev-list --ancestry-path "$base..HEAD"; echo 0000000000000000000000000000000000000000; } >"$allowed"
# the changed lines of FILE as clang-format --lines=A:B arguments
line_args() {
    git blame --porcelain -- "$1" 2>/dev/null | awk -v list="$allowed" '
        BEGIN { while ((getline c < list) > 0) ok[c] = 1 }
        /^[0-9a-f]{40} [0-9]+ [0-9]+/ { if (ok[$1]) print "--lines=" $3 ":" $3 }'
}
# A file whose content and changed lines passed before (same clang-format,
# same .clang-format) passes without running clang-format again (~0.2 s a
# file): FORMAT_CACHE, default build/format-cache, one small file per path
# holding the lines it passed with
cache=${FORMAT_CACHE:-build/format-cache}
mkdir -p "$cache" 2>/dev/null || cache=
common=$({ "$CF" --version; cat .clang-format; } | sha1sum | cut -c1-16)
files=()
for f in $(git diff --name-only "$base" -- "${DIRS[@]}" | grep -E '\.[ch]$'); do
    [ -f "$f" ] && files+=("$f")
done
declare -A sum=()
if [ ${#files[@]} -gt 0 ]; then
    while read -r s f; do sum[$f]=${s:0:16}; done < <(sha1sum "${files[@]}")
fi
bad=0
for f in "${files[@]}"; do
    mapfile -t args < <(line_args "$f")
    [ ${#args[@]} -gt 0 ] || continue
    key=
    if [ -n "$cache" ]; then
        key=$cache/${f//\//_}-${sum[$f]}-$common
        [ -f "$key" ] && [ "$(<"$key")" = "${args[*]}" ] && continue
    fi
    if [ "$mode" = fix ]; then
        "$CF" -i --style=file "${args[@]}" "$f"
        continue
    elif ! d=$("$CF" --style=file "${args[@]}" "$f" | diff -u --label "a/$f" --label "b/$f" "$f" -); then
        echo "$d"
        bad=1
        continue
    fi
    if [ -n "$key" ]; then
        rm -f "$cache/${f//\//_}"-*
        printf '%s' "${args[*]}" >"$key"
    fi
done
case $mode in
check)
    if [ $bad = 0 ]; then
        echo "format: the lines changed since $short are formatted"
        exit 0
    fi
    echo "format: lines changed since $short differ from .clang-format (above); make format fixes them"
    exit 1
    ;;
fix) ;;
*)
    echo "usage: scripts/format.sh check|fix [BASE]" >&2
    exit 2
    ;;
esac
