# TLS: --ssl-mode / --ssl-ca (and mysql:// ?ssl-mode=&ssl-ca=, option file
# ssl-mode / ssl-ca) against a private MariaDB and a private PostgreSQL
# started here with a certificate signed by a test CA for 127.0.0.1 and
# localhost (the shared sandbox servers are only connected to, never
# changed). REQUIRED / require and the verify modes connect, and the server
# sees dbtop's own session over TLS; a wrong CA, a host the certificate
# does not name, or a server without TLS fail with exit 1 and one line
# naming the problem within --connect-timeout, never showing the password;
# DISABLED connects without TLS where the server allows it.
# Env: DBTOP_TLS_MARIADB_PORT (56306), DBTOP_TLS_PG_PORT (56515).
. tests/lib.sh
tmp=$(mktemp -d /tmp/dbtop-tls.XXXXXX)
chmod 755 "$tmp"
MYP=${DBTOP_TLS_MARIADB_PORT:-56306}
PGP=${DBTOP_TLS_PG_PORT:-56515}
PGBIN=${DBTOP_PG15_BIN:-/usr/lib/postgresql/15/bin}
# a port in use (by something else) is replaced by a free one
busy() { timeout 1 bash -c ": </dev/tcp/127.0.0.1/$1" 2>/dev/null; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
busy "$MYP" && MYP=$(free_port)
busy "$PGP" && PGP=$(free_port)
PW='Tls-pw_4471'                       # never in any output
IS_ROOT=0
[ "$(id -u)" -eq 0 ] && IS_ROOT=1
as_pg() { if [ "$IS_ROOT" = 1 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi; }
my_pid=

cleanup() {
    local i
    if [ -n "$my_pid" ]; then
        kill -TERM "$my_pid" 2>/dev/null
        for ((i = 0; i < 200; i++)); do kill -0 "$my_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$my_pid" 2>/dev/null
    fi
    [ -f "$tmp/pg/data/postmaster.pid" ] &&
        as_pg "$PGBIN/pg_ctl" -D "$tmp/pg/data" -m immediate -w -t 20 stop >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

# a private HOME and no inherited client settings
export HOME=$tmp/home TZ=UTC LANG=C.UTF-8
mkdir -p "$HOME"
unset PGPASSWORD PGPASSFILE PGHOST PGPORT PGUSER PGDATABASE PGSERVICE PGSERVICEFILE PGSSLMODE PGSSLROOTCERT
unset PGREQUIRESSL MYSQL_PWD MYSQL_HOST MYSQL_TCP_PORT MYSQL_UNIX_PORT

# --- certificates: a CA, a server certificate it signs for 127.0.0.1 and
# localhost, and an unrelated second CA
c=$tmp/certs
mkdir -p "$c"
{
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=dbtop test CA" \
        -keyout "$c/ca.key" -out "$c/ca.pem" &&
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=dbtop other CA" \
            -keyout "$c/other.key" -out "$c/other.pem" &&
        openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
            -keyout "$c/server.key" -out "$c/server.csr" &&
        printf '%s\n' 'subjectAltName=IP:127.0.0.1,DNS:localhost' 'basicConstraints=CA:FALSE' \
            'keyUsage=digitalSignature,keyEncipherment' 'extendedKeyUsage=serverAuth' >"$c/ext.cnf" &&
        openssl x509 -req -in "$c/server.csr" -CA "$c/ca.pem" -CAkey "$c/ca.key" -CAcreateserial \
            -days 2 -extfile "$c/ext.cnf" -out "$c/server.pem"
} >"$tmp/openssl.log" 2>&1
if openssl verify -CAfile "$c/ca.pem" "$c/server.pem" >/dev/null 2>&1 &&
    ! openssl verify -CAfile "$c/other.pem" "$c/server.pem" >/dev/null 2>&1; then
    ok "certificates: test CA signs the server's (127.0.0.1, localhost); the other CA does not"
else
    nok "certificates: $(tail -3 "$tmp/openssl.log")"
    done_tests
fi
chmod 644 "$c"/*.pem
chmod 600 "$c"/*.key

# --- private MariaDB with TLS: tls_mon must use TLS, plain_mon may not
start_mariadb() {
    local d=$tmp/my userarg= i
    [ "$IS_ROOT" = 1 ] && userarg=--user=root
    mkdir -p "$d/data" "$d/tmp"
    mariadb-install-db --no-defaults $userarg --datadir="$d/data" --skip-test-db \
        --auth-root-authentication-method=normal --innodb-log-file-size=8M >"$d/install.log" 2>&1 ||
        return 1
    setsid mariadbd --no-defaults $userarg --datadir="$d/data" --tmpdir="$d/tmp" --socket="$d/sock" \
        --port="$MYP" --bind-address=127.0.0.1,127.0.0.2 --pid-file="$d/pid" --log-error="$d/error.log" \
        --skip-name-resolve --performance-schema=ON --innodb-buffer-pool-size=16M \
        --innodb-log-file-size=8M --ssl-cert="$c/server.pem" --ssl-key="$c/server.key" \
        --ssl-ca="$c/ca.pem" </dev/null >>"$d/error.log" 2>&1 &
    my_pid=$!
    for ((i = 0; i < 150; i++)); do
        kill -0 "$my_pid" 2>/dev/null || return 1
        mariadb-admin --no-defaults -S "$d/sock" -u root --connect-timeout=2 ping >/dev/null 2>&1 && break
        sleep 0.2
    done
    my_root -e "CREATE USER 'tls_mon'@'%' IDENTIFIED BY '$PW' REQUIRE SSL;
CREATE USER 'plain_mon'@'%' IDENTIFIED BY '$PW';
GRANT PROCESS ON *.* TO 'tls_mon'@'%', 'plain_mon'@'%';
GRANT SELECT ON performance_schema.* TO 'tls_mon'@'%', 'plain_mon'@'%';" 2>>"$d/error.log"
}
my_root() { mariadb --no-defaults -S "$tmp/my/sock" -u root -N -B "$@"; }

# --- private PostgreSQL with ssl=on: hostssl for everyone, and a
# hostnossl line for plain_mon only
start_pg() {
    local d=$tmp/pg
    mkdir -p "$d/run"
    cp "$c/server.pem" "$c/server.key" "$d/"
    echo "$PW" >"$d/pwfile"
    [ "$IS_ROOT" = 1 ] && chown -R postgres: "$d"
    chmod 755 "$d" "$d/run"
    chmod 600 "$d/server.key"
    as_pg "$PGBIN/initdb" -D "$d/data" -U postgres --pwfile="$d/pwfile" -E UTF8 --locale=C \
        --auth-local=trust --auth-host=scram-sha-256 -N >"$d/initdb.log" 2>&1 || return 1
    {
        echo "port = $PGP"
        echo "listen_addresses = '127.0.0.1,127.0.0.2'"
        echo "unix_socket_directories = '$d/run'"
        echo "shared_buffers = 16MB"
        echo "ssl = on"
        echo "ssl_cert_file = '$d/server.pem'"
        echo "ssl_key_file = '$d/server.key'"
    } >>"$d/data/postgresql.conf"
    {
        echo "local all all trust"
        echo "hostssl all all 127.0.0.1/32 scram-sha-256"
        echo "hostssl all all 127.0.0.2/32 scram-sha-256"
        echo "hostnossl all plain_mon 127.0.0.1/32 scram-sha-256"
    } >"$d/data/pg_hba.conf"
    as_pg "$PGBIN/pg_ctl" -D "$d/data" -l "$d/server.log" -w -t 60 start >/dev/null 2>&1 || return 1
    pg_root -c "CREATE ROLE tls_mon LOGIN PASSWORD '$PW' IN ROLE pg_monitor;
CREATE ROLE plain_mon LOGIN PASSWORD '$PW' IN ROLE pg_monitor;" >/dev/null 2>>"$d/server.log"
}
pg_root() { /usr/bin/psql -X -q -A -t -v ON_ERROR_STOP=1 -h "$tmp/pg/run" -p "$PGP" -U postgres -d postgres "$@"; }

if start_mariadb; then
    ok "private MariaDB with TLS up on 127.0.0.1:$MYP"
else
    nok "private MariaDB did not start: $(tail -5 "$tmp/my/error.log" "$tmp/my/install.log" 2>/dev/null)"
    done_tests
fi
if start_pg; then
    ok "private PostgreSQL with ssl=on up on 127.0.0.1:$PGP"
else
    nok "private PostgreSQL did not start: $(tail -5 "$tmp/pg/initdb.log" "$tmp/pg/server.log" 2>/dev/null)"
    done_tests
fi
MY=mysql://tls_mon:$PW@127.0.0.1:$MYP/
MYPLAIN=mysql://plain_mon:$PW@127.0.0.1:$MYP/
PG=postgresql://tls_mon:$PW@127.0.0.1:$PGP/postgres
PGPLAIN=postgresql://plain_mon:$PW@127.0.0.1:$PGP/postgres
# the second loopback address: the certificate does not name it
second=1
timeout 2 bash -c ": </dev/tcp/127.0.0.2/$MYP" 2>/dev/null && timeout 2 bash -c ": </dev/tcp/127.0.0.2/$PGP" 2>/dev/null ||
    second=0

# What the server says of dbtop's own session while it runs: SSL/TLS or
# TCP/IP (MariaDB: performance_schema.threads of the session whose
# program_name is dbtop), t or f (PostgreSQL: pg_stat_ssl).
session_tls() {
    if [ "$1" = my ]; then
        my_root -e "SELECT t.CONNECTION_TYPE FROM performance_schema.threads t
JOIN performance_schema.session_connect_attrs a ON a.PROCESSLIST_ID = t.PROCESSLIST_ID
WHERE a.ATTR_NAME = 'program_name' AND a.ATTR_VALUE = 'dbtop'" 2>/dev/null | head -1
    else
        pg_root -c "SELECT ssl FROM pg_stat_ssl JOIN pg_stat_activity USING (pid)
WHERE application_name = 'dbtop'" 2>/dev/null | head -1
    fi
}

# connects ENGINE WANT NAME -- ARGS: dbtop exits 0 after 2 JSON records
# with the server up, and the server saw its session as WANT (SSL/TLS,
# TCP/IP, t or f)
connects() {
    local eng=$1 want=$2 name=$3 pid seen= i rc n
    shift 4
    "$DBTOP" --batch --count 2 --interval 0.5 --format json --connect-timeout 3 "$@" \
        >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    for ((i = 0; i < 100; i++)); do
        seen=$(session_tls "$eng")
        [ -n "$seen" ] && break
        sleep 0.05
    done
    wait "$pid"
    rc=$?
    n=$(jq -s '[.[] | select(.state == "up")] | length' "$tmp/out" 2>/dev/null)
    if [ "$rc" = 0 ] && [ "$n" = 2 ] && [ "$seen" = "$want" ] && ! grep -qF "$PW" "$tmp/out" "$tmp/err"; then
        ok "$name (server: $seen)"
    else
        nok "$name: exit $rc, $n records up, server saw '$seen' (want $want), stderr: $(head -c 300 "$tmp/err")"
    fi
}

# fails CODE PATTERN NAME -- ARGS: exit CODE within the connect timeout
# (3 s), stderr one line matching PATTERN, no password anywhere
fails() {
    local code=$1 pat=$2 name=$3 t0 t1 rc el lines
    shift 4
    t0=$(date +%s.%N)
    timeout 20 "$DBTOP" --batch --count 2 --interval 0.5 --format json --connect-timeout 3 "$@" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    t1=$(date +%s.%N)
    el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    lines=$(wc -l <"$tmp/err")
    [ "$code" = 2 ] && lines=$(grep -c '^dbtop: ' "$tmp/err") # the usage follows
    if [ "$rc" = "$code" ] && [ "$lines" = 1 ] && grep -Eq -- "$pat" "$tmp/err" && [ ! -s "$tmp/out" ] &&
        awk -v e="$el" 'BEGIN { exit !(e < 3.5) }' && ! grep -qF "$PW" "$tmp/err"; then
        ok "$name (exit $rc, ${el}s): $(head -1 "$tmp/err")"
    else
        nok "$name: exit $rc after ${el}s, $lines line(s): $(head -c 300 "$tmp/err")"
    fi
}

# --- MariaDB
accepts0=$(my_root -e "SHOW GLOBAL STATUS LIKE 'Ssl_accepts'" | cut -f2)
connects my SSL/TLS "mariadb: --ssl-mode REQUIRED connects over TLS" -- --ssl-mode REQUIRED "$MY"
accepts1=$(my_root -e "SHOW GLOBAL STATUS LIKE 'Ssl_accepts'" | cut -f2)
check "mariadb: Ssl_accepts went up ($accepts0 -> $accepts1)" test "${accepts1:-0}" -gt "${accepts0:-0}"
connects my SSL/TLS "mariadb: --ssl-mode PREFERRED uses TLS the server offers" -- --ssl-mode PREFERRED "$MY"
connects my SSL/TLS "mariadb: --ssl-mode VERIFY_CA with the right CA" -- --ssl-mode VERIFY_CA --ssl-ca "$c/ca.pem" "$MY"
connects my SSL/TLS "mariadb: --ssl-mode VERIFY_IDENTITY with the right CA, 127.0.0.1 in the SAN" -- \
    --ssl-mode VERIFY_IDENTITY --ssl-ca "$c/ca.pem" "$MY"
fails 1 "cannot connect to 127.0.0.1:$MYP: .*certificate" "mariadb: VERIFY_CA with the wrong CA" -- \
    --ssl-mode VERIFY_CA --ssl-ca "$c/other.pem" "$MY"
fails 1 "cannot connect to 127.0.0.1:$MYP: .*certificate" "mariadb: VERIFY_IDENTITY with the wrong CA" -- \
    --ssl-mode VERIFY_IDENTITY --ssl-ca "$c/other.pem" "$MY"
fails 1 "cannot connect.*certificate" "mariadb: --ssl-ca alone means VERIFY_CA (wrong CA refused)" -- \
    --ssl-ca "$c/other.pem" "$MYPLAIN"
if [ "$second" = 1 ]; then
    fails 1 "certificate.*name the host 127.0.0.2" "mariadb: VERIFY_IDENTITY to 127.0.0.2, not in the certificate" -- \
        --ssl-mode VERIFY_IDENTITY --ssl-ca "$c/ca.pem" "mysql://tls_mon:$PW@127.0.0.2:$MYP/"
    connects my SSL/TLS "mariadb: VERIFY_CA to 127.0.0.2 (the name is not checked)" -- \
        --ssl-mode VERIFY_CA --ssl-ca "$c/ca.pem" "mysql://tls_mon:$PW@127.0.0.2:$MYP/"
else
    ok "mariadb: 127.0.0.2 checks # SKIP 127.0.0.2 not reachable"
fi
connects my TCP/IP "mariadb: --ssl-mode DISABLED connects without TLS" -- --ssl-mode DISABLED "$MYPLAIN"
fails 1 "cannot connect.*Access denied" "mariadb: DISABLED for a user that must use TLS is refused" -- \
    --ssl-mode DISABLED "$MY"
connects my SSL/TLS "mariadb: mysql:// ?ssl-mode=VERIFY_IDENTITY&ssl-ca=" -- \
    "$MY?ssl-mode=VERIFY_IDENTITY&ssl-ca=$c/ca.pem"
printf '[client]\nssl-mode = VERIFY_CA\nssl-ca = %s\n' "$c/ca.pem" >"$tmp/good.cnf"
printf '[client]\nssl-mode = VERIFY_CA\nssl-ca = %s\n' "$c/other.pem" >"$tmp/bad.cnf"
connects my SSL/TLS "mariadb: option file ssl-mode / ssl-ca" -- --defaults-file "$tmp/good.cnf" "$MY"
fails 1 "cannot connect.*certificate" "mariadb: option file with the wrong CA" -- --defaults-file "$tmp/bad.cnf" "$MY"
connects my SSL/TLS "mariadb: --ssl-ca beats the option file's" -- --defaults-file "$tmp/bad.cnf" --ssl-ca "$c/ca.pem" "$MY"
if [ -n "${DBTOP_MARIADB_URI:-}" ]; then
    fails 1 "does not offer TLS \(--ssl-mode REQUIRED\)" "mariadb: REQUIRED against the sandbox server without TLS" -- \
        --ssl-mode REQUIRED "$DBTOP_MARIADB_URI"
fi
fails 2 "VERIFY_CA needs --ssl-ca" "mariadb: VERIFY_CA without a CA is a usage error" -- --ssl-mode VERIFY_CA "$MY"
fails 1 "cannot read ssl-ca file .*no-such.pem" "mariadb: a missing CA file is named" -- \
    --ssl-mode REQUIRED --ssl-ca "$tmp/no-such.pem" "$MY"
fails 2 "unknown --ssl-mode" "bad --ssl-mode is a usage error" -- --ssl-mode sometimes "$MY"
fails 2 "bad ssl-mode in URI" "bad ?ssl-mode= is a usage error" -- "$MY?ssl-mode=sometimes"
printf '[client]\nssl-mode = sometimes\n' >"$tmp/worse.cnf"
fails 2 "bad ssl-mode in an option file" "bad option file ssl-mode is a usage error" -- --defaults-file "$tmp/worse.cnf" "$MY"

# --- PostgreSQL: the same flags as sslmode / sslrootcert
connects pg t "postgresql: --ssl-mode REQUIRED connects over TLS" -- --ssl-mode REQUIRED "$PG"
connects pg t "postgresql: --ssl-mode require (libpq name) too" -- --ssl-mode require "$PG"
connects pg t "postgresql: --ssl-mode VERIFY_CA with the right CA" -- --ssl-mode VERIFY_CA --ssl-ca "$c/ca.pem" "$PG"
connects pg t "postgresql: --ssl-mode verify-full with the right CA, 127.0.0.1 in the SAN" -- \
    --ssl-mode verify-full --ssl-ca "$c/ca.pem" "$PG"
fails 1 "cannot connect to 127.0.0.1:$PGP: .*certificate" "postgresql: verify-ca with the wrong CA" -- \
    --ssl-mode verify-ca --ssl-ca "$c/other.pem" "$PG"
fails 1 "cannot connect to 127.0.0.1:$PGP: .*certificate" "postgresql: VERIFY_IDENTITY with the wrong CA" -- \
    --ssl-mode VERIFY_IDENTITY --ssl-ca "$c/other.pem" "$PG"
# plain_mon may connect without TLS: with libpq's default prefer a failed
# certificate would quietly fall back to no TLS
fails 1 "cannot connect.*certificate" "postgresql: --ssl-ca alone means verify-ca (no fallback to plain)" -- \
    --ssl-ca "$c/other.pem" "$PGPLAIN"
if [ "$second" = 1 ]; then
    fails 1 "certificate .*does not match host name \"127.0.0.2\"" "postgresql: verify-full to 127.0.0.2, not in the certificate" -- \
        --ssl-mode verify-full --ssl-ca "$c/ca.pem" "postgresql://tls_mon:$PW@127.0.0.2:$PGP/postgres"
    connects pg t "postgresql: verify-ca to 127.0.0.2 (the name is not checked)" -- \
        --ssl-mode verify-ca --ssl-ca "$c/ca.pem" "postgresql://tls_mon:$PW@127.0.0.2:$PGP/postgres"
    fails 1 "does not match host name \"127.0.0.2\"" "postgresql: --ssl-ca alone keeps the URI's sslmode=verify-full" -- \
        --ssl-ca "$c/ca.pem" "postgresql://tls_mon:$PW@127.0.0.2:$PGP/postgres?sslmode=verify-full"
else
    ok "postgresql: 127.0.0.2 checks # SKIP 127.0.0.2 not reachable"
fi
connects pg f "postgresql: --ssl-mode DISABLED connects without TLS" -- --ssl-mode DISABLED "$PGPLAIN"
fails 1 "cannot connect.*no encryption" "postgresql: disable where pg_hba says hostssl is refused" -- \
    --ssl-mode disable "$PG"
connects pg t "postgresql: URI ?sslmode=verify-full&sslrootcert= (libpq's own)" -- \
    "$PG?sslmode=verify-full&sslrootcert=$c/ca.pem"
connects pg t "postgresql: --ssl-mode beats the URI's sslmode" -- --ssl-mode require "$PGPLAIN?sslmode=disable"
connects pg t "postgresql: --ssl-ca with the URI's sslmode=verify-full" -- --ssl-ca "$c/ca.pem" "$PG?sslmode=verify-full"
if [ -n "${DBTOP_PG15_URI:-}" ]; then
    fails 1 "cannot connect.*does not support SSL" "postgresql: require against the sandbox server without TLS" -- \
        --ssl-mode require "$DBTOP_PG15_URI"
fi
fails 1 "cannot connect.*root certificate file .*no-such.pem" "postgresql: a missing CA file is named" -- \
    --ssl-ca "$tmp/no-such.pem" "$PG"

done_tests
