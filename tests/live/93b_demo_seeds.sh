#!/usr/bin/env bash
# make demo's seed 001 and 002 incidents (scripts/demo.sh, DEMO_INCIDENTS="2 3"),
# shortened and without a terminal (batch records instead of the screen):
# throwaway servers of their own (ports +8 of the sandbox's; seed 002's
# MariaDB on the slow disk, port +9). Seed 001: the upserts wait on each
# other's key locks on website.uk_website_domain (the records' lock waits).
# Seed 002: mysqlslap's runs are counted (runs_per_s) on the slow disk,
# whose device flushes are slow. After each the demo reads the settings
# back from the server: as it found them; nothing is left running or
# mounted. Without root (the slow disk) seed 002 is skipped, said so.
. tests/lib.sh
dir=$(mktemp -d /tmp/dbtop-demo-seeds.XXXXXX)
chmod 755 "$dir"
out=$(mktemp /tmp/dbtop-demo-seeds-out.XXXXXX)
mport=$((${DBTOP_MARIADB_PORT:-23306} + 8))
pport=$((${DBTOP_PG15_PORT:-25415} + 8))
cleanup() {
    DBTOP_SANDBOX_DIR=$dir/slowdisk/mnt/sb tests/sandbox.sh stop >/dev/null 2>&1
    scripts/slowdisk.sh down "$dir/slowdisk" 2>/dev/null
    DBTOP_SANDBOX_DIR=$dir tests/sandbox.sh stop >/dev/null 2>&1
    rm -rf "$dir" "$out"
}
trap cleanup EXIT
t0=$(date +%s)
DEMO_INCIDENTS="2 3" DEMO_SECONDS=24 DEMO_RECORDS=14 DBTOP_SANDBOX_DIR=$dir DBTOP_MARIADB_PORT=$mport \
    DBTOP_PG15_PORT=$pport DBTOP="$DBTOP" timeout 300 scripts/demo.sh >"$out" 2>&1 </dev/null
rc=$?
check "demo seeds: exits 0 ($rc)" test "$rc" = 0
check "demo seeds: seed 001 played" grep -q "^== 2/5 seed 001: " "$out"
check "demo seeds: seed 001's records show upserts waiting on website.uk_website_domain" \
    grep -qE "uk_website_domain" "$out"
check "demo seeds: seed 001: the finding names the locks as the server does" \
    grep -qE "(inserts wait on an upsert's lock: X,GAP <- X|upserts wait on each other: X <- X)" "$out"
if grep -q "^== skipped: the slow disk" "$out"; then
    echo "ok - demo seeds: seed 002 # SKIP $(grep '^== skipped' "$out")"
else
    check "demo seeds: seed 002 played" grep -q "^== 3/5 seed 002: " "$out"
    check "demo seeds: seed 002's records count mysqlslap's runs (s per run)" grep -qE "s per run [0-9.]+ s" "$out"
    check "demo seeds: seed 002 on the slow disk: the loop device's flushes in the records" grep -qE "log device loop[0-9]+: flush [0-9.]+ ms" "$out"
    check "demo seeds: seed 002: innodb_flush_log_at_trx_commit is 1 after dbtop" \
        grep -q "innodb_flush_log_at_trx_commit on the server after dbtop: 1$" "$out"
fi
n=$(grep -c "^== settings read back from the server: .* (as found)$" "$out")
want=2
grep -q "^== skipped: the slow disk" "$out" && want=1
check "demo seeds: the settings read back as found after each ($n of $want)" test "$n" = "$want"
check "demo seeds: no setting left otherwise" bash -c '! grep -q "(found: " "$0"' "$out"
check "demo seeds: the servers stop, the slow disk is gone" \
    bash -c '! pgrep -f -- "$0/" >/dev/null && ! grep -q "$0" /proc/mounts' "$dir"
[ "$fails" = 0 ] || sed 's/^/# /' "$out" | tail -40
echo "# 93b_demo_seeds: $(($(date +%s) - t0)) s"
done_tests
