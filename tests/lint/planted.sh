#!/usr/bin/env bash
# make lint must fail on a bug of each kind it is there for: a copy of the
# tree (never the tree itself) gets one planted bug at a time in
# model/ring.c, and scripts/lint.sh runs on that file alone (seconds, not
# the whole product's minutes). First the file as it is: no finding, so a
# failure below is the planted bug's. Each check names the tools that caught it.
set -uo pipefail
cd "$(dirname "$0")/../.."
for t in cppcheck scan-build clang-tidy; do
    if ! command -v "$t" >/dev/null 2>&1; then
        echo "ok - lint planted bugs # SKIP $t not installed (scripts/deps.sh installs it)"
        exit 0
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r Makefile .clang-tidy scripts app config core model panes record run sources tui tune util "$tmp"/
orig=$(cat model/ring.c)
lint() { (cd "$tmp" && LINT_DIR="$tmp/build-lint" scripts/lint.sh model/ring.c) >"$tmp/out" 2>&1; }

if lint; then
    echo "ok - lint: model/ring.c as it is has no finding ($(tail -n 1 "$tmp/out"))"
else
    cat "$tmp/out"
    echo "not ok - lint: model/ring.c as it is has findings: the planted checks below prove nothing"
fi

# plant NAME CODE: CODE appended to ring.c; its line marked /* HERE */ must be
# named by at least one tool and make lint fail
plant() {
    local name=$1 code=$2 n line tools
    n=$(wc -l <<<"$orig")
    line=$((n + $(grep -n 'HERE' <<<"$code" | cut -d: -f1)))
    printf '%s\n%s\n' "$orig" "$code" >"$tmp/model/ring.c"
    if lint; then
        cat "$tmp/out"
        echo "not ok - lint: a planted $name (model/ring.c:$line) passes make lint"
        return
    fi
    tools=$(grep -E "^model/ring.c:$line:" "$tmp/out" | sed -nE 's/.*\[([a-z-]+) ([^]]+)\]$/\1 \2/p' |
        sort -u | paste -sd, - | sed 's/,/, /g')
    if [ -n "$tools" ]; then
        echo "ok - lint: a planted $name (model/ring.c:$line) fails make lint: $tools"
    else
        cat "$tmp/out"
        echo "not ok - lint: a planted $name failed make lint, but no finding names model/ring.c:$line"
    fi
}

plant "uninitialised read" '
double ring_planted(const struct ring *r);
double ring_planted(const struct ring *r)
{
	double sum;
	for (size_t i = 0; i < r->len; i++)
		sum += ring_get(r, i);   /* HERE */
	return sum;
}'

plant "null dereference" '
double ring_planted(const struct ring *r, size_t i);
double ring_planted(const struct ring *r, size_t i)
{
	const double *v = i < r->len ? &r->v[i] : NULL;
	return *v;   /* HERE */
}'

plant "out-of-bounds write" '
void ring_planted(struct ring *r);
void ring_planted(struct ring *r)
{
	double last[8];
	for (size_t i = 0; i <= 8; i++)
		last[i] = ring_get(r, i);   /* HERE */
	r->v[0] = last[7];
}'

plant "signal handler calling printf" '
#include <signal.h>
#include <stdio.h>
void ring_planted(void);
static void on_term(int sig)
{
	printf("signal %d\n", sig);   /* HERE */
}
void ring_planted(void)
{
	signal(SIGTERM, on_term);
}'
