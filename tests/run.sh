#!/usr/bin/env bash
# Test runner: the layer check, unit binaries, fuzz corpora, then screen and
# live tests against the sandbox servers.
#   tests/run.sh unit BIN...   layers, unit tests and fuzz corpora only
#   tests/run.sh all BIN...    + screen + live (starts and always stops the sandbox;
#                              the checks of the tree and the screen tests run
#                              beside the unit and live ones)
#   tests/run.sh screen        layers and screen tests only
# A BIN named fuzz_NAME is a fuzz target's corpus replayer (tests/fuzz/replay.c):
# it is run on tests/fuzz/corpus/NAME/. DBTOP_LIVE="20_mariadb 30_postgres ..."
# runs only those live tests (default: every tests/live/*.sh).
# Every test prints "ok - NAME", "ok - NAME # SKIP why" or "not ok - NAME: why";
# a skip is counted apart from the passes. The last lines are the reasons of
# the skips, "N skipped", and "N passed, N failed". Exit status 1 when
# anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

mode=${1:-all}
shift || true
out=$(mktemp -d)
passed=0 failed=0 skipped=0
: >"$out/skips"
trap 'rm -rf "$out"' EXIT

# a skipped check: "ok - NAME # SKIP why" (the marker in any case)
SKIP_RE='^ok - .*# [Ss][Kk][Ii][Pp]( |$)'
# The checks of the source tree (layers, sizes, lint's planted bugs, format,
# version, docs) do not run the binary: DBTOP_STATIC=0 leaves them out (make
# check-asan, which runs after make check on the same tree)
static_check() { [ "${DBTOP_STATIC:-1}" != 0 ]; }

# Run one test command, echo its lines, count ok / ok # SKIP / not ok.
run_one() {
    local name=$1 log=$out/$(basename "$1").log
    shift
    echo "# $name"
    local t0=$SECONDS
    "$@" >"$log" 2>&1
    local rc=$?
    cat "$log"
    echo "# $name took $((SECONDS - t0)) s"
    echo "$((SECONDS - t0)) $name" >>"$out/times"
    local p f s
    p=$(grep -c '^ok - ' "$log")
    s=$(grep -cE "$SKIP_RE" "$log")
    p=$((p - s))
    grep -E "$SKIP_RE" "$log" | sed "s|^ok - |$name: |" >>"$out/skips"
    f=$(grep -c '^not ok - ' "$log")
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
        echo "not ok - $name exited with status $rc"
        f=1
    fi
    if [ "$p" = 0 ] && [ "$f" = 0 ] && [ "$s" = 0 ]; then
        echo "not ok - $name ran no check"
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
}

# the layering rule (docs/architecture.md): includes go only downward; and
# the check must catch an upward include planted in a copy of the tree
layers_test() {
    local t
    if msg=$(scripts/check_layers.sh .); then echo "ok - $msg"; else echo "$msg"; echo "not ok - an include goes upward"; fi
    t=$(mktemp -d)
    cp -r util core model config sources record tune run panes tui app "$t"/
    printf '#include "../tui/ui.h"\n' >>"$t/model/ring.c"
    msg=$(scripts/check_layers.sh "$t")
    if [ $? = 1 ] && grep -q '^model/ring.c:[0-9]*: includes "../tui/ui.h": tui is above model' <<<"$msg"; then
        echo "ok - layers: a planted upward include (model/ring.c -> tui/ui.h) is caught"
    else
        echo "not ok - layers: the planted upward include was not caught: $msg"
    fi
    # the symbols (nm): a call upward through a local prototype, and a
    # circle between two layers (config calls nothing of the model; the
    # sources call the model). The copies share the tree's compiled results,
    # so only the planted file is compiled again.
    local LAYERS_CACHE=$PWD/build/layers
    export LAYERS_CACHE
    cp model/ring.c "$t/model/ring.c"
    printf '%s\n' 'int target_planted(void);' 'void target_init(void *t);' \
        'int target_planted(void) { target_init(0); return 0; }' >>"$t/model/ring.c"
    msg=$(scripts/check_layers.sh "$t")
    if [ $? = 1 ] && grep -q '^model/ring.c: calls target_init(), defined in config/dsn.c: config is above model$' <<<"$msg" &&
        ! grep -q '^circle' <<<"$msg"; then
        echo "ok - layers: a planted upward call (model/ring.c -> target_init() of config/dsn.c) is caught"
    else
        echo "not ok - layers: the planted upward call was not caught (or a circle was seen): $msg"
    fi
    cp model/ring.c "$t/model/ring.c"
    printf '%s\n' '_Bool source_host_local(const char *host);' 'int ring_planted(void);' \
        'int ring_planted(void) { return source_host_local("x"); }' >>"$t/model/ring.c"
    msg=$(scripts/check_layers.sh "$t")
    if [ $? = 1 ] && grep -q '^circle between layers model <-> sources: model -> sources: model/ring.c calls source_host_local() of sources/source.c; sources -> model: ' <<<"$msg"; then
        echo "ok - layers: a planted circle (model/ring.c -> source_host_local() -> the model) is caught: $(grep '^circle' <<<"$msg" | cut -c1-160)"
    else
        echo "not ok - layers: the planted circle was not caught: $msg"
    fi
    # a function declared at a line of core/sample.h (a #line directive:
    # gcc -aux-info then names that header line, and no header changes, so
    # nothing else is compiled again) and defined in sources/
    cp model/ring.c "$t/model/ring.c"
    cp sources/source.c "$t/sources/source.c"
    printf '%s\n' '#line 900 "sources/../core/sample.h"' 'int planted_decl(void);' \
        '#line 2000 "sources/source.c"' 'int planted_decl(void) { return 0; }' >>"$t/sources/source.c"
    msg=$(scripts/check_layers.sh "$t")
    if [ $? = 1 ] && grep -q '^core/sample.h:900: declares planted_decl(), defined in sources/source.c: core/ defines what it declares$' <<<"$msg"; then
        echo "ok - layers: a planted function declared in core/sample.h and defined in sources/source.c is caught"
    else
        echo "not ok - layers: the function declared in core/ and defined in sources/ was not caught: $msg"
    fi
    cp sources/source.c "$t/sources/source.c"
    # two headers of one name
    : >"$t/panes/sample.h"
    msg=$(scripts/check_layers.sh "$t")
    if [ $? = 1 ] && grep -q '^panes/sample.h: a header of this name is also core/sample.h' <<<"$msg"; then
        echo "ok - layers: a planted second sample.h (panes/ beside core/) is caught"
    else
        echo "not ok - layers: the second header named sample.h was not caught: $msg"
    fi
    rm -rf "$t"
}

# no function over 80 lines outside the tests (docs/architecture.md)
sizes_test() {
    local msg
    if msg=$(python3 scripts/function_sizes.py --max 80 --top 3); then
        echo "ok - function sizes: $(tail -n 1 <<<"$msg"); the longest: $(sed -n 2p <<<"$msg" | tr -s ' ')"
    else
        echo "$msg"
        echo "not ok - function sizes: a function is over 80 lines"
    fi
}

# the checks of the source tree: the layers, the function sizes; make lint
# fails on a planted bug of each kind (in a copy of the tree), the format
# check on a badly formatted changed line (in a clone); --version, the
# changelog and the commit of a build without .git; the options of --help,
# getopt's table, the man page and docs/options.md agree, the man page
# names every key of the key table, README.md <= 250 lines
static_checks() {
    static_check || return 0
    run_one "layers" layers_test
    run_one "function sizes" sizes_test
    run_one "tests/lint/planted.sh" bash tests/lint/planted.sh
    run_one "tests/lint/format.sh" bash tests/lint/format.sh
    run_one "tests/version.sh" bash tests/version.sh
    run_one "docs" scripts/check_docs.sh
}

# screen tests: the real binary in tmux, on recordings (no server needed)
screen_tests() {
    [ -n "${DBTOP_SCREEN:-}" ] && echo "# screen tests of this run (DBTOP_SCREEN): $DBTOP_SCREEN"
    for t in tests/screen/*.sh; do
        [ -e "$t" ] || continue
        # DBTOP_SCREEN="10_screens ...": only those (default: every one)
        if [ -n "${DBTOP_SCREEN:-}" ] && [ "$DBTOP_SCREEN" != all ] &&
            ! [[ " $DBTOP_SCREEN " == *" $(basename "$t" .sh) "* ]]; then
            continue
        fi
        run_one "$t" bash "$t"
    done
}
# In mode all the servers start while the unit tests run, and the checks
# of the source tree and the screen tests run beside the unit and live
# tests: they wait on tmux, replays and the compiler, the live tests on
# servers and timers, and every check of either holds on a busy machine
# (two CPU hogs); their lines and counts follow the live tests'
screen_pid= sandbox_pid=
if [ "$mode" = all ]; then
    export DBTOP_SANDBOX_DIR=${DBTOP_SANDBOX_DIR:-$(mktemp -d /tmp/dbtop-sandbox.XXXXXX)}
    chmod 755 "$DBTOP_SANDBOX_DIR"
    trap 'tests/sandbox.sh stop >/dev/null 2>&1; rm -rf "$out"' EXIT
    trap 'exit 130' INT TERM
    tests/sandbox.sh start >"$out/sandbox.log" 2>&1 &
    sandbox_pid=$!
    (
        passed=0 failed=0 skipped=0
        static_checks
        screen_tests
        echo "$passed $failed $skipped" >"$out/screen.counts"
    ) >"$out/screen.out" 2>&1 &
    screen_pid=$!
    echo "# the checks of the source tree and the screen tests: beside the unit and live tests (their lines follow them)"
else
    static_checks
fi

for bin in "$@"; do
    case $(basename "$bin") in
    fuzz_*)
        t=$(basename "$bin")
        run_one "$bin" "$bin" "tests/fuzz/corpus/${t#fuzz_}"
        ;;
    *) run_one "$bin" "$bin" ;;
    esac
done
[ "$mode" = screen ] && screen_tests

if [ "$mode" = all ]; then
    if wait "$sandbox_pid"; then
        echo "ok - sandbox servers started"
        passed=$((passed + 1))
        eval "$(tests/sandbox.sh env)"
        live=()
        if [ -n "${DBTOP_LIVE:-}" ] && [ "${DBTOP_LIVE}" != all ]; then
            for n in $DBTOP_LIVE; do
                if [ -f "tests/live/$n.sh" ]; then
                    live+=("tests/live/$n.sh")
                else
                    echo "not ok - DBTOP_LIVE names $n: there is no tests/live/$n.sh"
                    failed=$((failed + 1))
                fi
            done
            echo "# live tests of this run (DBTOP_LIVE): $DBTOP_LIVE"
        else
            live=(tests/live/*.sh)
        fi
        for t in "${live[@]}"; do
            run_one "$t" bash "$t"
        done
    else
        cat "$out/sandbox.log"
        echo "not ok - sandbox servers did not start"
        failed=$((failed + 1))
    fi
    tests/sandbox.sh stop >/dev/null 2>&1 || true
fi
if [ -n "$screen_pid" ]; then
    wait "$screen_pid"
    cat "$out/screen.out"
    if read -r p f s <"$out/screen.counts" 2>/dev/null; then
        passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
    else
        echo "not ok - the screen tests did not end with their counts"
        failed=$((failed + 1))
    fi
fi

# where the run's time went: the ten slowest
sort -rn "$out/times" 2>/dev/null | head -10 | sed 's/^\([0-9]*\) \(.*\)/# slowest: \2 \1 s/'
echo "# the whole run took $SECONDS s"
sed 's/^/# skipped: /' "$out/skips"
echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
