#!/usr/bin/env bash
# The backends are plugins that share struct sample, struct source and the
# ops table with the binary (sources/abi.h): a plugin built from another
# commit is refused at load with both ABI stamps named, and dbtop exits as
# when a plugin is missing (status 1, one line); the plugin built with the
# binary is taken. No server: the target is a closed port.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/other" "$tmp/none" "$tmp/same"
cc=${CC:-cc}
target=postgresql://u@127.0.0.1:1/db
# run DIR: dbtop with its plugins looked up in DIR first
run() { DBTOP_PLUGIN_DIR=$1 timeout 20 "$DBTOP" --batch --count 1 "$target" >"$tmp/out" 2>"$tmp/err"; }

# the PostgreSQL backend as another commit builds it
if ! $cc -std=c11 -D_GNU_SOURCE '-DDBTOP_ABI_STAMP="0123456789ab"' $(pkg-config --cflags libpq) -fPIC -shared \
    -o "$tmp/other/dbtop-pg.so" sources/pg.c $(pkg-config --libs libpq) 2>"$tmp/cc.err"; then
    nok "the plugin of another commit builds: $(head -c 300 "$tmp/cc.err")"
    done_tests
fi
run "$tmp/other"
rc=$?
re="^dbtop: no backend for this engine: plugin refused: its ABI stamp 1:0123456789ab:[0-9]+:[0-9]+:[0-9]+ is not this dbtop's 1:([0-9a-f]{12}(-dirty)?|unknown):[0-9]+:[0-9]+:[0-9]+: $tmp/other/dbtop-pg.so$"
if [ "$rc" = 1 ] && grep -Eq -- "$re" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ]; then
    ok "a plugin of another commit is refused, exit 1, both stamps named: $(cut -c1-200 "$tmp/err")"
else
    nok "a plugin of another commit: exit $rc, stderr: $(head -c 400 "$tmp/err")"
fi

# a plugin from before the stamps: its ops table and no stamp
printf 'const char pg_source_ops[4096];\n' >"$tmp/none.c"
$cc -fPIC -shared -o "$tmp/none/dbtop-pg.so" "$tmp/none.c"
run "$tmp/none"
rc=$?
if [ "$rc" = 1 ] && grep -Eq "plugin refused: its ABI stamp none is not this dbtop's 1:.*: $tmp/none/dbtop-pg.so$" "$tmp/err"; then
    ok "a plugin without a stamp is refused, exit 1: $(cut -c1-120 "$tmp/err")"
else
    nok "a plugin without a stamp: exit $rc, stderr: $(head -c 400 "$tmp/err")"
fi

# the plugin built with the binary: taken, dbtop goes on to connect
cp "$(dirname "$DBTOP")/dbtop-pg.so" "$tmp/same/"
run "$tmp/same"
rc=$?
if [ "$rc" = 1 ] && grep -q "cannot connect to 127.0.0.1:1" "$tmp/err" && ! grep -q "plugin refused" "$tmp/err"; then
    ok "the plugin built with the binary is taken (dbtop goes on to connect: $(cut -c1-60 "$tmp/err"))"
else
    nok "the plugin built with the binary: exit $rc, stderr: $(head -c 400 "$tmp/err")"
fi
done_tests
