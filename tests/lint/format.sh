#!/usr/bin/env bash
# make format-check fails on a changed line that is not in .clang-format's
# style and passes on lines written before the rule; make format fixes it.
# Works in a local clone of this checkout's HEAD (never in the tree itself).
set -uo pipefail
cd "$(dirname "$0")/../.."
if ! command -v clang-format-14 >/dev/null 2>&1 || ! command -v git-clang-format-14 >/dev/null 2>&1; then
    echo "ok - format # SKIP clang-format 14 not installed (scripts/deps.sh installs it)"
    exit 0
fi
if ! git rev-parse HEAD >/dev/null 2>&1 || [ -z "$(git log --diff-filter=A --format=%H -- .clang-format)" ]; then
    echo "ok - format # SKIP not a git checkout with the commit that added .clang-format"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the clone shares the tree's results (a file and its lines that passed
# pass again without clang-format; the planted file's content is new)
mkdir -p build/format-cache 2>/dev/null && export FORMAT_CACHE=$PWD/build/format-cache
git clone -q --no-hardlinks . "$tmp/c" 2>/dev/null || git clone -q . "$tmp/c"
cd "$tmp/c" || exit 1
git -c advice.detachedHead=false checkout -q "$(git -C "$OLDPWD" rev-parse HEAD)"

if out=$(scripts/format.sh check 2>&1); then
    echo "ok - format: HEAD's changed lines pass ($out)"
else
    echo "$out"
    echo "not ok - format: HEAD's changed lines are not formatted (make format)"
fi
# app/listen.c has lines written before the rule that clang-format would
# change: they are left alone, only the new function is checked
f=app/listen.c
full=$(clang-format-14 --style=file "$f" | diff "$f" - | grep -c '^<')
printf '\nint listen_planted(int a,int b);\nint listen_planted(int a,int b){ return a+b; }\n' >>"$f"
if out=$(scripts/format.sh check 2>&1); then
    echo "not ok - format: a badly formatted new function in $f passes the check"
elif grep -q '^+int listen_planted(int a, int b)$' <<<"$out" &&
    [ "$(grep -E '^-([^-]|$)' <<<"$out" | grep -vc planted)" = 0 ]; then
    echo "ok - format: a badly formatted new function in $f fails the check, which shows only its lines" \
        "(a full reformat of the file would change $full lines written before the rule)"
else
    echo "$out"
    echo "not ok - format: the check failed but not on the changed lines alone"
fi
scripts/format.sh fix >/dev/null 2>&1
if out=$(scripts/format.sh check 2>&1) && grep -q '^int listen_planted(int a, int b)$' "$f" &&
    [ "$(clang-format-14 --style=file "$f" | diff "$f" - | grep -c '^<')" = "$full" ]; then
    echo "ok - format: make format fixes it and only it ($out)"
else
    echo "$out"
    echo "not ok - format: make format did not fix the new function, or changed other lines"
fi
