#!/usr/bin/env bash
# dbtop --version: the release in VERSION and in CHANGELOG.md's newest release
# heading, the commit the binary was built from, the interface versions the
# changelog states; and where the commit comes from when there is no .git
# (scripts/version.sh, the Makefile's build/version.c): a `make dist`
# tarball names its commit, a plain copy says "unknown", a copy unpacked
# inside another repository does not take that repository's commit.
set -uo pipefail
cd "$(dirname "$0")/.."
DBTOP=${DBTOP:-./dbtop}
ok() { echo "ok - version: $*"; }
nok() { echo "not ok - version: $*"; }

ver=$(sed -n 1p VERSION)
rel=$(sed -nE 's/^## \[([0-9]+\.[0-9]+\.[0-9]+)\] - [0-9]{4}-[0-9]{2}-[0-9]{2}$/\1/p' CHANGELOG.md | head -n 1)
if [[ $ver =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] && [ "$ver" = "$rel" ]; then
    ok "VERSION $ver is CHANGELOG.md's newest release"
else
    nok "VERSION '$ver' and CHANGELOG.md's newest release '$rel' differ (or are not X.Y.Z)"
fi
grep -q '^## \[Unreleased\]$' CHANGELOG.md && ok "CHANGELOG.md has its Unreleased section" ||
    nok "CHANGELOG.md has no '## [Unreleased]' section"

if [ ! -x "$DBTOP" ]; then
    echo "ok - version: dbtop --version # SKIP $DBTOP is not built"
else
    out=$("$DBTOP" --version 2>&1)
    l1=$(sed -n 1p <<<"$out") l2=$(sed -n 2p <<<"$out")
    re='^dbtop ([0-9]+\.[0-9]+\.[0-9]+) \(commit ([0-9a-f]{12}(-dirty)?|unknown)\)$'
    if [[ $l1 =~ $re ]] && [ "${BASH_REMATCH[1]}" = "$ver" ]; then
        ok "'$l1'"
        built=${BASH_REMATCH[2]}
        head=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
        if [ "${built%-dirty}" = "$head" ]; then
            ok "the commit is this checkout's HEAD ($head)"
        elif [ "$built" != unknown ] && git merge-base --is-ancestor "${built%-dirty}" HEAD 2>/dev/null; then
            # tests/run.sh screen without make after a commit (make check rebuilds first)
            echo "ok - version: the commit is HEAD # SKIP dbtop was built at $built, before HEAD $head: make rebuilds it"
        else
            nok "dbtop says commit $built, this checkout is at $head (rebuild: make)"
        fi
    else
        nok "first line '$l1' is not 'dbtop $ver (commit HEX12)'"
    fi
    # each interface version is the newest release's or an Unreleased entry's
    top=$(awk '/^## \[/ { n++ } n >= 1 && n <= 2' CHANGELOG.md)
    re2='^batch JSON schema ([0-9]+), recording format ([0-9]+\.[0-9]+), metric names ([0-9]+)$'
    if [[ $l2 =~ $re2 ]]; then
        miss=
        for k in "batch JSON schema ${BASH_REMATCH[1]}" "recording format ${BASH_REMATCH[2]}" "metric names ${BASH_REMATCH[3]}"; do
            grep -qF "$k" <<<"$top" || miss="$miss${miss:+, }$k"
        done
        [ -z "$miss" ] && ok "'$l2', as CHANGELOG.md states" ||
            nok "CHANGELOG.md's Unreleased and newest release sections do not state: $miss"
    else
        nok "second line '$l2' does not give the interface versions"
    fi
fi

# without .git: a `git archive` tarball (make dist) and a plain copy
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if head=$(git rev-parse --short=12 HEAD 2>/dev/null) && git diff --quiet HEAD -- COMMIT .gitattributes; then
    git archive --prefix=dist/ HEAD | tar -x -C "$tmp"
    got=$(make -s -C "$tmp/dist" BUILD="$tmp/b1" "$tmp/b1/version.c" >/dev/null 2>&1 &&
        sed -n 's/^const char dbtop_commit\[\] = "\(.*\)";$/\1/p' "$tmp/b1/version.c")
    [ "$got" = "$head" ] && ok "a git archive tarball's build names its commit ($got)" ||
        nok "a git archive tarball's build names commit '$got', not $head"
    printf '$Format:%%H$\n' >"$tmp/dist/COMMIT"
    got=$("$tmp/dist/scripts/version.sh")
    [ "$got" = "$ver unknown" ] && ok "a copy without .git or COMMIT: '$got'" ||
        nok "a copy without .git or COMMIT says '$got', not '$ver unknown'"
    git init -q "$tmp" && git -C "$tmp" -c user.name=t -c user.email=t@t commit -q --allow-empty -m outer
    got=$("$tmp/dist/scripts/version.sh")
    [ "$got" = "$ver unknown" ] && ok "unpacked inside another repository: '$got', not that repository's commit" ||
        nok "unpacked inside another repository it says '$got'"
else
    echo "ok - version: the tarball's commit # SKIP not a git checkout, or COMMIT / .gitattributes changed"
fi
