#!/usr/bin/env bash
# check_docs.sh - the options and keys as the program has them against
# what the documentation says, so that neither can drift:
#   - the long options of `dbtop --help`, of the option table in
#     app/main.c (what getopt accepts), of the man page (docs/dbtop.1: its
#     entries outside KEYS and EXAMPLES) and of the options reference
#     (docs/options.md) are the same set: an option missing from one of them
#     is named;
#   - every key of the screen's key table (tui/keys.c) has an entry in the
#     man page's KEYS section;
#   - README.md is at most 250 lines and --help fits 80 columns.
# Prints "ok - ..." / "not ok - ..." lines (tests/run.sh counts them).
# The check checks itself: an option row taken out of a copy of
# docs/options.md and a key entry out of a copy of the man page must be
# named as missing (DOCS_OPTIONS / DOCS_MAN point it at the copies).
# DBTOP: the binary (default ./dbtop). Usage: scripts/check_docs.sh [ROOT]
set -uo pipefail
root=${1:-.}
DBTOP=${DBTOP:-./dbtop}
cd "$root" || exit 2
OPTIONS_MD=${DOCS_OPTIONS:-docs/options.md}
MAN=${DOCS_MAN:-docs/dbtop.1}
fails=0
ok() { echo "ok - docs: $*"; }
nok() { echo "not ok - docs: $*"; fails=$((fails + 1)); }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

if [ ! -x "$DBTOP" ]; then
    nok "no binary $DBTOP to ask for --help (make first)"
    exit 1
fi
# --help: the option column only (two to six blanks, an optional -X, then --name)
"$DBTOP" --help >"$t/help.txt"
sed -nE 's/^ {2,6}(-[A-Za-z], )?(--[a-z][a-z0-9-]*).*/\2/p' "$t/help.txt" | sort -u >"$t/help"
# what getopt accepts: the long_opts table of app/main.c
sed -n '/^static const struct option long_opts\[\]/,/^};/p' app/main.c |
    sed -nE 's/^[[:space:]]*\{"([a-z][a-z0-9-]*)",.*/--\1/p' | sort -u >"$t/table"
# the man page: the line after each .TP in a section whose name ends in OPTIONS
awk '/^\.SH/ { opt = ($0 !~ /^\.SH (KEYS|EXAMPLES)/) } opt && tp { print } { tp = ($0 == ".TP") }' "$MAN" |
    sed 's/\\-/-/g' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u >"$t/man"
# the reference: the first cell of each table row of docs/options.md
grep -E '^\| `-' "$OPTIONS_MD" | cut -d'|' -f2 | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u >"$t/ref"

n=$(wc -l <"$t/table")
[ "$n" -ge 10 ] || nok "only $n options read from app/main.c's long_opts: the check reads nothing"
for f in help man ref; do
    case $f in help) what="dbtop --help" ;; man) what="$MAN" ;; ref) what="$OPTIONS_MD" ;; esac
    missing=$(comm -23 "$t/table" "$t/$f" | tr '\n' ' ')
    extra=$(comm -13 "$t/table" "$t/$f" | tr '\n' ' ')
    if [ -z "$missing$extra" ]; then
        ok "$what names the $n options getopt accepts"
    else
        [ -n "$missing" ] && nok "$what lacks: $missing"
        [ -n "$extra" ] && nok "$what names options dbtop does not take: $extra"
    fi
done

wide=$(awk 'length($0) > 80 { print NR": "length($0) }' "$t/help.txt" | head -3 | tr '\n' ' ')
[ -z "$wide" ] && ok "--help fits 80 columns ($(wc -l <"$t/help.txt") lines)" || nok "--help lines over 80 columns: $wide"

# keys: every name of the key table (its "name" field, split at blanks)
# among the words of the man page's KEYS entries
sed -nE 's/.*(true|false), "([^"]+)", ("[^"]*"|NULL),.*/\2/p' tui/keys.c | tr ' ' '\n' | grep -v '^$' |
    sort -u >"$t/keys"
awk '/^\.SH/ { k = ($0 ~ /^\.SH KEYS/) } k && tp { print } { tp = ($0 == ".TP") }' "$MAN" |
    sed -E 's/\\-/-/g; s/^\.B[RI]? //; s/"[^"]*"/ /g; s/\\f[BRI]//g' | tr ' ' '\n' | grep -v '^$' | sort -u >"$t/mankeys"
nk=$(wc -l <"$t/keys")
kmissing=$(comm -23 "$t/keys" "$t/mankeys" | tr '\n' ' ')
if [ "$nk" -lt 20 ]; then
    nok "only $nk key names read from tui/keys.c: the check reads nothing"
elif [ -z "$kmissing" ]; then
    ok "the man page's KEYS name all $nk keys of the key table"
else
    nok "the man page's KEYS lack keys of the key table: $kmissing"
fi

# the planted omissions must be caught
if [ -z "${DOCS_OPTIONS:-}${DOCS_MAN:-}" ]; then
    grep -v '^| `--wide`' docs/options.md >"$t/options.md"
    awk '/^\.B w$/ && tp { skip = 1 } skip && /^\.TP$/ && ++n == 1 { skip = 0 } !skip { print } { tp = ($0 == ".TP") }' \
        docs/dbtop.1 >"$t/dbtop.1"
    out=$(DOCS_OPTIONS=$t/options.md DOCS_MAN=$t/dbtop.1 "$0" . 2>&1)
    if grep -qE "^not ok - docs: .*options.md lacks: (.* )?--wide( |$)" <<<"$out"; then
        ok "an option row taken out of a copy of docs/options.md is caught (--wide)"
    else
        nok "an option taken out of docs/options.md was not caught: $(tr '\n' '|' <<<"$out")"
    fi
    if grep -q "KEYS lack keys of the key table: w *$" <<<"$out"; then
        ok "a key taken out of a copy of the man page is caught (w)"
    else
        nok "a key taken out of the man page was not caught: $(grep KEYS <<<"$out")"
    fi
fi

lines=$(wc -l <README.md)
[ "$lines" -le 250 ] && ok "README.md is $lines lines (at most 250)" || nok "README.md is $lines lines (more than 250)"
exit $((fails > 0))
