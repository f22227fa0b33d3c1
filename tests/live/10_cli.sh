# Bad input: usage errors exit 2, connection problems exit 1 with one clear
# line within the connect timeout; passwords never shown.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_exit CODE PATTERN NAME -- ARGS: exit code and a stderr pattern
expect_exit() {
    local code=$1 pat=$2 name=$3
    shift 4
    local t0 t1 rc
    t0=$(date +%s.%N)
    timeout 20 "$DBTOP" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    t1=$(date +%s.%N)
    if [ "$rc" = "$code" ] && grep -Eqi -- "$pat" "$tmp/err"; then
        ok "$name (exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}')s)"
    else
        nok "$name: exit $rc, stderr: $(head -c 300 "$tmp/err")"
    fi
}

expect_exit 2 "unknown option" "unknown option" -- --bogus "$DBTOP_MARIADB_URI"
expect_exit 2 "needs a value" "option without value" -- --batch --count
expect_exit 2 "unknown engine" "bad --engine" -- --engine oracle -h 127.0.0.1
expect_exit 2 "unknown scheme" "unknown scheme" -- redis://localhost:6379
expect_exit 2 "malformed target" "malformed target" -- just-a-word
expect_exit 2 "bad port" "bad port in URI" -- mysql://u@127.0.0.1:99999/db
expect_exit 2 "unknown URI parameter" "unknown URI parameter" -- "mysql://u@127.0.0.1/db?colour=red"
expect_exit 2 "bad value for --interval" "interval out of range" -- --interval 0.01 "$DBTOP_MARIADB_URI"
expect_exit 2 "cannot tell the engine" "engine unknown" -- -h 127.0.0.1 -u x
# several targets are allowed (tests/live/94_fleet.sh); a word typed after
# --password (which asks) is refused as a target, by its place, not shown
expect_exit 2 "target 1: malformed target" "a value after --password: no target, exit 2" -- --batch --password hunter2 "$DBTOP_MARIADB_URI"
grep -q hunter2 "$tmp/err" && nok "the value after --password shown: $(cat "$tmp/err")" || ok "the value after --password not shown"
check "--help prints usage, exit 0" bash -c "'$DBTOP' --help | grep -q '^usage: dbtop'"

# a port nothing listens on (found free now)
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
expect_exit 1 "cannot connect.*(refused|Can't connect)" "closed port mysql" -- --batch -n 1 --connect-timeout 3 "mysql://u:p@127.0.0.1:$closed/db"
expect_exit 1 "cannot connect.*refused" "closed port postgresql" -- --batch -n 1 --connect-timeout 3 "postgresql://u:p@127.0.0.1:$closed/db"
expect_exit 1 "cannot connect.*(Unknown|resolve|translate|not known)" "unknown host mysql" -- --batch -n 1 --connect-timeout 3 "mysql://u:p@no-such-host.invalid/db"
expect_exit 1 "cannot connect.*(translate|resolve|not known)" "unknown host postgresql" -- --batch -n 1 --connect-timeout 3 "postgresql://u:p@no-such-host.invalid/db"
wrong_my=${DBTOP_MARIADB_URI/:monpw@/:wrong-pw-123@}
wrong_pg=${DBTOP_PG15_URI/:monpw@/:wrong-pw-123@}
expect_exit 1 "Access denied" "wrong password mysql" -- --batch -n 1 "$wrong_my"
expect_exit 1 "password authentication failed" "wrong password postgresql" -- --batch -n 1 "$wrong_pg"
check "wrong password never echoed" bash -c "! grep -q wrong-pw-123 '$tmp/err' '$tmp/out'"
expect_exit 1 "Unknown database" "missing database mysql" -- --batch -n 1 "${DBTOP_MARIADB_ADMIN_URI%/*}/no_such_db"
expect_exit 1 "does not exist" "missing database postgresql" -- --batch -n 1 "${DBTOP_PG15_URI%/*}/no_such_db"

# the password in a URI is scrubbed from argv (what ps shows)
"$DBTOP" --batch --count 30 --format json "$DBTOP_MARIADB_URI" >"$tmp/ps.out" 2>&1 &
pid=$!
sleep 1.5
cmdline=$(tr '\0' ' ' </proc/$pid/cmdline 2>/dev/null)
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if [ -n "$cmdline" ] && ! grep -q monpw <<<"$cmdline"; then ok "password scrubbed from ps ($cmdline)"; else nok "password visible in ps: $cmdline"; fi
check "password absent from output" bash -c "! grep -q monpw '$tmp/ps.out'"
check "SIGTERM ends the run cleanly with records" grep -q '"schema":1' "$tmp/ps.out"

# libpq key=value target with password is scrubbed too
kv="host=127.0.0.1 port=$DBTOP_PG15_PORT user=dbtop_mon password=monpw dbname=dbtop_test"
"$DBTOP" --batch --count 30 "$kv" >"$tmp/kv.out" 2>&1 &
pid=$!
sleep 1.5
cmdline=$(tr '\0' ' ' </proc/$pid/cmdline 2>/dev/null)
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if [ -n "$cmdline" ] && ! grep -q monpw <<<"$cmdline"; then ok "key=value password scrubbed from ps"; else nok "key=value password visible in ps: $cmdline"; fi
check "key=value target connects" grep -q "UP" "$tmp/kv.out"

# MySQL conventions: option file [dbtop] group and MYSQL_PWD
cat >"$tmp/my.cnf" <<CNF
[client]
user = nobody
password = "wrong"
[dbtop]
user = dbtop_mon
password = "monpw"
port = $DBTOP_MARIADB_PORT
host = 127.0.0.1
CNF
check "--defaults-file [dbtop] group" bash -c "'$DBTOP' --defaults-file '$tmp/my.cnf' --engine mysql -b -n 1 --format json | jq -e '.state == \"up\"' >/dev/null"
check "MYSQL_PWD from the environment" bash -c "MYSQL_PWD=monpw HOME='$tmp' '$DBTOP' -h 127.0.0.1 -P $DBTOP_MARIADB_PORT -u dbtop_mon --engine mysql -b -n 1 --format json | jq -e '.state == \"up\"' >/dev/null"
check "unix socket with -S" bash -c "MYSQL_PWD=monpw HOME='$tmp' '$DBTOP' -S '$DBTOP_MARIADB_SOCKET' -u dbtop_mon -b -n 1 --format json | jq -e '.state == \"up\"' >/dev/null"
check "libpq environment (PGHOST/PGPORT/PGUSER/PGPASSWORD/PGDATABASE)" bash -c "PGHOST=127.0.0.1 PGPORT=$DBTOP_PG15_PORT PGUSER=dbtop_mon PGPASSWORD=monpw PGDATABASE=dbtop_test '$DBTOP' -b -n 1 --format json | jq -e '.state == \"up\"' >/dev/null"
(sleep 1; printf 'monpw\n') | script -qec "'$DBTOP' --password -h 127.0.0.1 -P $DBTOP_MARIADB_PORT -u dbtop_mon --engine mysql -b -n 1 --format json" /dev/null >"$tmp/pw.out" 2>&1
check "--password prompt connects" grep -q '"state":"up"' "$tmp/pw.out"
check "--password input not echoed" bash -c "! grep -q monpw '$tmp/pw.out'"
done_tests
