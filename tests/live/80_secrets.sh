# Passwords never show: not on the screen, in a recording (raw bytes and
# `strings`), in JSON or text batch output, in an error message, nor in
# /proc/PID/cmdline. Checked for every way of giving one (mysql:// and
# postgres:// URIs, a URI ?password=, a libpq password=..., the --password
# prompt on a terminal, MYSQL_PWD, PGPASSWORD, ~/.my.cnf, --defaults-file,
# ~/.pgpass, PGPASSFILE), with a plain password and one that needs
# %-escapes, and for wrong passwords (at start and on a reconnect).
. tests/lib.sh
tmp=$(mktemp -d)
# the HOME of the run scripts (each lane of probes below has its own)
home=$tmp/home
mkdir -p "$home"
chmod 700 "$home"
sock=${DBTOP_TMUX_SOCKET:-dbtop-secrets-$$}
T() { tmux -L "$sock" -f /dev/null "$@"; }
export TZ=UTC LANG=C.UTF-8

PW1='Sekr3t-pw_9931'
PW2='Zq8@pw:x/y?#%&=+ Ul7'              # needs %-escapes in a URI, quotes elsewhere
PW2_URI='Zq8%40pw%3Ax%2Fy%3F%23%25%26%3D%2B%20Ul7'
BAD='Wr0ng-pw_7713'                      # a wrong password, never accepted
OTHER='0ther-pw_5550'                    # set while a monitor runs, to make it fail
U1=dbtop_sec1 U2=dbtop_sec2
MYP=$DBTOP_MARIADB_PORT PGP=$DBTOP_PG15_PORT
PGSQL="$DBTOP_PG15_PSQL -q -v ON_ERROR_STOP=1"

# SQL that sets or shows a password runs unrecorded by the server's own
# statement statistics, so that dbtop has no statement text to show it from
my_sql() { $DBTOP_MARIADB_CLIENT -e "UPDATE performance_schema.threads SET INSTRUMENTED = 'NO' WHERE PROCESSLIST_ID = CONNECTION_ID(); $1"; }
pg_sql() { printf 'SET pg_stat_statements.track_utility = off;\n%s\n' "$1" | $PGSQL >/dev/null; }
drop_users() {
    my_sql "DROP USER IF EXISTS '$U1'@'%', '$U1'@'localhost', '$U2'@'%', '$U2'@'localhost'" 2>/dev/null
    pg_sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename IN ('$U1', '$U2');
DROP ROLE IF EXISTS $U1; DROP ROLE IF EXISTS $U2;" 2>/dev/null
}
cleanup() {
    T kill-server 2>/dev/null
    drop_users
    rm -rf "$tmp"
}
trap cleanup EXIT

drop_users
for u in "$U1:$PW1" "$U2:$PW2"; do
    n=${u%%:*} p=${u#*:}
    my_sql "CREATE USER '$n'@'%' IDENTIFIED BY '$p'; CREATE USER '$n'@'localhost' IDENTIFIED BY '$p';
GRANT PROCESS ON *.* TO '$n'@'%', '$n'@'localhost';
GRANT SELECT ON performance_schema.* TO '$n'@'%', '$n'@'localhost';" ||
        { nok "create MariaDB user $n"; done_tests; }
    pg_sql "CREATE ROLE $n LOGIN PASSWORD '$p' IN ROLE pg_monitor;" || { nok "create PostgreSQL role $n"; done_tests; }
done
ok "MariaDB users and PostgreSQL roles with the test passwords created"

# leaked FILE...: true when a password (any form of any of them) is in a file
leaked() {
    grep -aqF -e "$PW1" -e "$PW2" -e "$PW2_URI" -e "Zq8@pw" -e "Zq8%40pw" -e "x/y?#%&=+" \
        -e "$BAD" -e "Sekr3t" "$@" 2>/dev/null
}
not_leaked() { ! leaked "$@"; }
# the detector itself finds every form, alone in a file or inside binary bytes
n=0
for f in "$PW1" "$PW2" "$PW2_URI" "$BAD"; do
    printf '\001\002%s\003' "$f" >"$tmp/probe.bin"
    leaked "$tmp/probe.bin" && strings -a -n 4 "$tmp/probe.bin" | leaked - && n=$((n + 1))
done
check "the leak detector finds each password form ($n of 4)" test "$n" = 4
# clean_rec FILE: a recording exists, is 0600 and has no password in its
# bytes nor in its printable strings
clean_rec() {
    [ -s "$1" ] && [ "$(stat -c %a "$1")" = 600 ] && ! leaked "$1" && ! strings -a -n 4 "$1" | leaked -
}
# clean_cmdline PID: /proc/PID/cmdline (read while dbtop runs) shows no password
clean_cmdline() {
    local c
    c=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) || return 1
    [ -n "$c" ] && ! leaked - <<<"$c"
}

# A run script: private HOME, no inherited PG* / MYSQL_* settings, then
# ENV (VAR=VALUE words, array `envs`) and dbtop ARGS. Mode exec: dbtop
# replaces the shell (its pid is the script's); mode screen: the pane
# then shows "EXITED <status>".
mkrun() {
    local f=$1 mode=$2 e
    shift 2
    {
        echo 'unset PGPASSWORD PGPASSFILE PGHOST PGPORT PGUSER PGDATABASE PGSERVICE PGSERVICEFILE'
        echo 'unset MYSQL_PWD MYSQL_HOST MYSQL_TCP_PORT MYSQL_UNIX_PORT NO_COLOR'
        echo "export HOME=$(printf %q "$home") TZ=UTC LANG=C.UTF-8"
        for e in "${envs[@]}"; do echo "export ${e%%=*}=$(printf %q "${e#*=}")"; done
        if [ "$mode" = exec ]; then
            printf 'exec %q' "$DBTOP"
            [ $# -gt 0 ] && printf ' %q' "$@"
            echo
        else
            printf '%q' "$DBTOP"
            [ $# -gt 0 ] && printf ' %q' "$@"
            echo
            echo 'echo "EXITED $?"; sleep 120'
        fi
    } >"$f"
}

# wait_for SESSION TEXT SECONDS: poll the pane until TEXT shows
wait_for() {
    local i
    for ((i = 0; i < $3 * 20; i++)); do
        T capture-pane -p -t "$1" 2>/dev/null | grep -qF -- "$2" && return 0
        sleep 0.05
    done
    return 1
}
# dbtop_pid SESSION: the dbtop process of the pane (its session leader is the pane's shell)
dbtop_pid() { pgrep -s "$(T display -p -t "$1" '#{pane_pid}')" -x dbtop | head -1; }
# wait_dbtop PID: until PID has become dbtop (the run script exec'd it)
wait_dbtop() {
    local i
    for ((i = 0; i < 100; i++)); do
        [ "$(cat "/proc/$1/comm" 2>/dev/null)" = dbtop ] && return 0
        sleep 0.02
    done
    return 1
}
# type_password SESSION PW: answer the prompt. dbtop prints "Password: "
# before it turns the terminal's echo off, so keys sent the instant the
# prompt shows can still be echoed: type a moment later, as a person does.
type_password() {
    wait_for "$1" "Password:" 10 || return 1
    sleep 0.5
    T send-keys -t "$1" -l "$2"
    T send-keys -t "$1" Enter
}

# probe NAME PROMPT_PW ARGS...: the way of giving a password described by
# `envs`, the home files in place and ARGS, in batch (JSON with a
# recording, then text) and on the screen (with a recording); PROMPT_PW is
# typed at the --password prompt ("" when there is none).
probe() {
    local name=$1 ppw=$2 pid d=$tmp/$1 n
    shift 2
    mkdir -p "$d"
    # batch, JSON, recording: cmdline read while it runs
    mkrun "$d/json.sh" exec -b -n 3 -i 0.5 --format json --record "$d/batch.dbrec" "$@"
    if [ -n "$ppw" ]; then
        T new-session -d -s "$name-j" -x 120 -y 30 "bash $d/json.sh >$d/json.out 2>$d/json.err; echo EXITED; sleep 120"
        type_password "$name-j" "$ppw" || nok "$name: no password prompt in batch mode"
        sleep 0.3
        pid=$(dbtop_pid "$name-j")
    else
        bash "$d/json.sh" >"$d/json.out" 2>"$d/json.err" &
        pid=$!
        wait_dbtop "$pid"
        sleep 0.7
    fi
    if [ -n "$pid" ] && clean_cmdline "$pid"; then ok "$name: /proc/PID/cmdline without the password (batch)"; else nok "$name: cmdline: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"; fi
    if [ -n "$ppw" ]; then
        wait_for "$name-j" EXITED 15
        T capture-pane -p -t "$name-j" -S - >"$d/json.pane"
        if grep -q "Password:" "$d/json.pane" && ! leaked "$d/json.pane"; then ok "$name: prompt does not echo the password"; else nok "$name: prompt pane: $(head -c 300 "$d/json.pane")"; fi
        T kill-session -t "$name-j"
    else
        wait "$pid"
    fi
    if jq -se 'length == 3 and all(.[]; .state == "up")' "$d/json.out" >/dev/null 2>&1; then
        ok "$name: connects (3 JSON records, state up)"
    else
        nok "$name: no connection: $(head -c 300 "$d/json.err") $(head -c 200 "$d/json.out")"
    fi
    check "$name: JSON output and stderr without the password" not_leaked "$d/json.out" "$d/json.err"
    check "$name: batch recording 0600, no password in its bytes or strings" clean_rec "$d/batch.dbrec"
    # batch, text
    mkrun "$d/text.sh" exec -b -n 1 "$@"
    if [ -n "$ppw" ]; then
        T new-session -d -s "$name-t" -x 120 -y 30 "bash $d/text.sh >$d/text.out 2>$d/text.err; echo EXITED; sleep 120"
        type_password "$name-t" "$ppw"
        wait_for "$name-t" EXITED 15
        T kill-session -t "$name-t"
    else
        bash "$d/text.sh" >"$d/text.out" 2>"$d/text.err"
    fi
    if grep -q " UP" "$d/text.out" && ! leaked "$d/text.out" "$d/text.err"; then ok "$name: text output up, without the password"; else nok "$name: text: $(head -c 300 "$d/text.out" "$d/text.err")"; fi
    # the screen: every screen and the help, captured while it runs
    mkrun "$d/screen.sh" screen --record "$d/screen.dbrec" "$@"
    T new-session -d -s "$name-s" -x 150 -y 45 "bash $d/screen.sh 2>$d/screen.err"
    [ -n "$ppw" ] && type_password "$name-s" "$ppw"
    if wait_for "$name-s" " UP " 15; then
        sleep 1.2
        pid=$(dbtop_pid "$name-s")
        if [ -n "$pid" ] && clean_cmdline "$pid"; then ok "$name: /proc/PID/cmdline without the password (screen)"; else nok "$name: screen cmdline: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"; fi
        : >"$d/screens"
        for k in 0 1 2 3 4 5 '?'; do
            T send-keys -t "$name-s" "$k"
            sleep 0.25
            T capture-pane -p -t "$name-s" >>"$d/screens"
            [ "$k" = '?' ] && T send-keys -t "$name-s" Escape
        done
        T capture-pane -p -t "$name-s" -S - >>"$d/screens"
        n=$(grep -c "dbtop keys\|fsync / commit" "$d/screens")
        if [ "$n" -ge 2 ] && ! leaked "$d/screens"; then ok "$name: screens 0-5 and help without the password"; else nok "$name: screen ($n panes seen): $(grep -aF -e Sekr3t -e Zq8 "$d/screens" | head -3)"; fi
        T send-keys -t "$name-s" q
        wait_for "$name-s" "EXITED" 5
        check "$name: screen recording 0600, no password in its bytes or strings" clean_rec "$d/screen.dbrec"
        check "$name: screen stderr without the password" not_leaked "$d/screen.err"
    else
        nok "$name: screen did not come up: $(T capture-pane -p -t "$name-s" | grep -v '^$' | head -3) $(head -c 200 "$d/screen.err")"
    fi
    T kill-session -t "$name-s" 2>/dev/null
    rm -f "$home/.my.cnf" "$home/.pgpass"
}

# The probes run in three lanes at once (each its own HOME, sessions and
# files; they wait on dbtop and tmux, not on the CPU); a lane's lines
# follow in order, its "not ok" lines counted here.
# lane NAME: a private HOME for the lane's probes
lane() {
    home=$tmp/home-$1
    mkdir -p "$home"
    chmod 700 "$home"
}
# ---- MySQL / MariaDB ----
(
    lane my
    envs=()
    probe my-uri "" "mysql://$U1:$PW1@127.0.0.1:$MYP/"
    probe my-uri-escaped "" "mariadb://$U2:$PW2_URI@127.0.0.1:$MYP/"
    probe my-prompt "$PW2" --password -h 127.0.0.1 -P "$MYP" -u "$U2" --engine mysql
    envs=("MYSQL_PWD=$PW1")
    probe my-MYSQL_PWD "" -h 127.0.0.1 -P "$MYP" -u "$U1" --engine mysql
    envs=()
    printf '[client]\nuser = %s\npassword = "%s"\nhost = 127.0.0.1\nport = %s\n' "$U2" "$PW2" "$MYP" >"$home/.my.cnf"
    probe my-home-mycnf "" --engine mysql
    printf '[client]\nuser = nobody\npassword = "%s"\n[dbtop]\nuser = %s\npassword = %s\nhost = 127.0.0.1\nport = %s\n' "$BAD" "$U1" "$PW1" "$MYP" >"$tmp/defaults.cnf"
    probe my-defaults-file "" --defaults-file "$tmp/defaults.cnf" --engine mysql
) >"$tmp/lane.my" 2>&1 &
lanes=($!)

# ---- PostgreSQL ----
(
    lane pg1
    envs=()
    probe pg-uri "" "postgres://$U1:$PW1@127.0.0.1:$PGP/dbtop_test"
    probe pg-uri-escaped "" "postgresql://$U2:$PW2_URI@127.0.0.1:$PGP/dbtop_test"
    probe pg-uri-param "" "postgresql://$U2@127.0.0.1:$PGP/dbtop_test?sslmode=disable&password=$PW2_URI"
    probe pg-conninfo "" "host=127.0.0.1 port=$PGP user=$U1 password=$PW1 dbname=dbtop_test"
    probe pg-conninfo-quoted "" "host=127.0.0.1 port=$PGP user=$U2 password='$PW2' dbname=dbtop_test"
) >"$tmp/lane.pg1" 2>&1 &
lanes+=($!)
(
    lane pg2
    envs=()
    probe pg-prompt "$PW2" --password -h 127.0.0.1 -P "$PGP" -u "$U2" -d dbtop_test --engine postgresql
    envs=("PGPASSWORD=$PW1" PGHOST=127.0.0.1 "PGPORT=$PGP" "PGUSER=$U1" PGDATABASE=dbtop_test)
    probe pg-PGPASSWORD ""
    envs=()
    printf '127.0.0.1:%s:*:%s:%s\n' "$PGP" "$U2" "${PW2//:/\\:}" >"$home/.pgpass"
    chmod 600 "$home/.pgpass"
    probe pg-home-pgpass "" "host=127.0.0.1 port=$PGP user=$U2 dbname=dbtop_test"
    printf '127.0.0.1:%s:*:%s:%s\n' "$PGP" "$U1" "$PW1" >"$tmp/passfile"
    chmod 600 "$tmp/passfile"
    envs=("PGPASSFILE=$tmp/passfile")
    probe pg-PGPASSFILE "" -h 127.0.0.1 -P "$PGP" -u "$U1" -d dbtop_test --engine postgresql
) >"$tmp/lane.pg2" 2>&1 &
lanes+=($!)
wait "${lanes[@]}"
for l in my pg1 pg2; do
    merge_part "$tmp/lane.$l"
done
home=$tmp/home
envs=()

# ---- wrong passwords at start: exit 1, the server's reason, no password ----
# wrong NAME PATTERN ARGS...: batch and screen
wrong() {
    local name=$1 pat=$2 d=$tmp/wrong-$1 rc
    shift 2
    mkdir -p "$d"
    mkrun "$d/b.sh" exec -b -n 1 --format json "$@"
    timeout 20 bash "$d/b.sh" >"$d/out" 2>"$d/err"
    rc=$?
    if [ "$rc" = 1 ] && grep -Eq "$pat" "$d/err" && ! leaked "$d/out" "$d/err"; then
        ok "wrong password, $name: exit 1, '$(head -c 110 "$d/err")', no password"
    else
        nok "wrong password, $name: exit $rc: $(head -c 300 "$d/err")"
    fi
    mkrun "$d/s.sh" screen "$@"
    T new-session -d -s "w-$name" -x 200 -y 30 "bash $d/s.sh"
    if wait_for "w-$name" "EXITED 1" 15 && T capture-pane -p -t "w-$name" | grep -Eq "$pat" &&
        ! T capture-pane -p -t "w-$name" -S - | leaked -; then
        ok "wrong password, $name: the screen shows the reason, no password"
    else
        nok "wrong password, $name: screen: $(T capture-pane -p -t "w-$name" | grep -v '^$' | head -3)"
    fi
    T kill-session -t "w-$name" 2>/dev/null
}
envs=()
wrong my-uri "Access denied" "mysql://$U1:$BAD@127.0.0.1:$MYP/"
envs=("MYSQL_PWD=$BAD")
wrong my-MYSQL_PWD "Access denied" -h 127.0.0.1 -P "$MYP" -u "$U1" --engine mysql
envs=()
printf '[dbtop]\nuser = %s\npassword = %s\nhost = 127.0.0.1\nport = %s\n' "$U1" "$BAD" "$MYP" >"$tmp/wrong.cnf"
wrong my-defaults-file "Access denied" --defaults-file "$tmp/wrong.cnf" --engine mysql
wrong pg-uri "password authentication failed" "postgresql://$U1:$BAD@127.0.0.1:$PGP/dbtop_test"
wrong pg-conninfo "password authentication failed" "host=127.0.0.1 port=$PGP user=$U1 password=$BAD dbname=dbtop_test"
envs=("PGPASSWORD=$BAD" PGHOST=127.0.0.1 "PGPORT=$PGP" "PGUSER=$U1" PGDATABASE=dbtop_test)
wrong pg-PGPASSWORD "password authentication failed"
envs=()

# ---- malformed PostgreSQL URIs: libpq would quote the URI or the password ----
for u in "postgresql://$U1:$PW1%zz@127.0.0.1:$PGP/dbtop_test" "postgresql://$U1:$PW1%00@127.0.0.1:$PGP/dbtop_test" \
    "postgresql://$U1:$PW1@[::1:$PGP/dbtop_test" "postgresql://$U1:$PW1@[]:$PGP/dbtop_test" \
    "postgresql://$U1:$PW1@[::1]x/dbtop_test" "postgresql://$U2:$PW2@127.0.0.1:$PGP/dbtop_test"; do
    timeout 20 "$DBTOP" -b -n 1 "$u" >"$tmp/mal.out" 2>"$tmp/mal.err"
    rc=$?
    if [ "$rc" != 0 ] && [ -s "$tmp/mal.err" ] && ! leaked "$tmp/mal.out" "$tmp/mal.err"; then
        ok "malformed URI refused without the password (exit $rc: $(head -1 "$tmp/mal.err" | head -c 90))"
    else
        nok "malformed URI: exit $rc: $(head -c 300 "$tmp/mal.err")"
    fi
done

# ---- a password that stops working while dbtop runs: DOWN, with the reason ----
# down NAME PATTERN ARGS...
down() {
    local name=$1 pat=$2 d=$tmp/down-$1
    shift 2
    mkdir -p "$d"
    mkrun "$d/s.sh" screen --connect-timeout 2 --record "$d/rec.dbrec" "$@"
    T new-session -d -s "d-$name" -x 200 -y 40 "bash $d/s.sh 2>$d/err"
    if ! wait_for "d-$name" " UP " 15; then
        nok "$name: screen did not come up"
        T kill-session -t "d-$name"
        return
    fi
    sleep 1.5
    if [ "${name%%-*}" = my ]; then
        my_sql "ALTER USER '$U1'@'%' IDENTIFIED BY '$OTHER'; ALTER USER '$U1'@'localhost' IDENTIFIED BY '$OTHER';"
        for id in $($DBTOP_MARIADB_CLIENT -N -e "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = '$U1'"); do
            $DBTOP_MARIADB_CLIENT -e "KILL $id" 2>/dev/null
        done
    else
        pg_sql "ALTER ROLE $U1 PASSWORD '$OTHER'; SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '$U1';"
    fi
    if wait_for "d-$name" "$pat" 20; then
        T capture-pane -p -t "d-$name" >"$d/screen"
        if grep -q "DOWN" "$d/screen" && ! leaked "$d/screen"; then ok "$name: DOWN on a refused reconnect, reason shown without the password"; else nok "$name: DOWN screen: $(grep -a -e DOWN -e Sekr3t "$d/screen" | head -2)"; fi
    else
        nok "$name: no '$pat' on the screen: $(T capture-pane -p -t "d-$name" | head -3)"
    fi
    if [ "${name%%-*}" = my ]; then
        my_sql "ALTER USER '$U1'@'%' IDENTIFIED BY '$PW1'; ALTER USER '$U1'@'localhost' IDENTIFIED BY '$PW1';"
    else
        pg_sql "ALTER ROLE $U1 PASSWORD '$PW1';"
    fi
    if wait_for "d-$name" " UP " 40; then ok "$name: UP again once the password is restored"; else nok "$name: not UP again: $(T capture-pane -p -t "d-$name" | head -2)"; fi
    T send-keys -t "d-$name" q
    wait_for "d-$name" "EXITED" 5
    check "$name: the recording holds the failure but no password" clean_rec "$d/rec.dbrec"
    check "$name: the recording has the reason" grep -aq "$pat" "$d/rec.dbrec"
    T kill-session -t "d-$name" 2>/dev/null
}
down my-reconnect "Access denied" "mysql://$U1:$PW1@127.0.0.1:$MYP/"
down pg-reconnect "password authentication failed" "postgresql://$U1:$PW1@127.0.0.1:$PGP/dbtop_test"

# ---- recordings: 0600 under umask 000, never through a symbolic link ----
rm -f "$tmp/u0.dbrec"
(umask 000 && "$DBTOP" -b -n 1 --record "$tmp/u0.dbrec" "$DBTOP_PG15_URI" >/dev/null 2>&1)
check "--record under umask 000 creates the file 0600 ($(stat -c %a "$tmp/u0.dbrec" 2>/dev/null))" test "$(stat -c %a "$tmp/u0.dbrec" 2>/dev/null)" = 600
printf 'precious\n' >"$tmp/precious"
chmod 644 "$tmp/precious"
ln -s "$tmp/precious" "$tmp/link.dbrec"
"$DBTOP" -b -n 1 --format json --record "$tmp/link.dbrec" "$DBTOP_PG15_URI" >"$tmp/link.out" 2>"$tmp/link.err"
rc=$?
check "--record to a symlink: refused with a clear message ($(head -c 120 "$tmp/link.err"))" grep -q "symbolic link" "$tmp/link.err"
check "--record to a symlink: the file it points to is untouched" test "$(cat "$tmp/precious")" = precious -a "$(stat -c %a "$tmp/precious")" = 644
check "--record to a symlink: monitoring goes on (exit $rc)" jq -e '.state == "up"' "$tmp/link.out"
ln -s "$tmp/nowhere.dbrec" "$tmp/dangling.dbrec"
"$DBTOP" -b -n 1 --record "$tmp/dangling.dbrec" "$DBTOP_MARIADB_URI" >/dev/null 2>"$tmp/dangling.err"
check "--record to a dangling symlink: refused with a clear message" grep -q "symbolic link" "$tmp/dangling.err"
check "--record to a dangling symlink: nothing created where it points" test ! -e "$tmp/nowhere.dbrec"

# ---- command-line mistakes: the usage error quotes the argument scrubbed ----
todo_echo() {
    local name=$1
    shift
    timeout 10 "$DBTOP" "$@" >"$tmp/todo.out" 2>"$tmp/todo.err"
    if leaked "$tmp/todo.out" "$tmp/todo.err"; then
        nok "$name: the usage error echoes the password"
    else
        ok "$name: usage error without the password"
    fi
}
todo_echo "--password=VALUE" -b "--password=$PW1" -h 127.0.0.1
todo_echo "two targets" -b "mysql://$U1:$PW1@127.0.0.1:$MYP/" "postgresql://$U1:$PW1@127.0.0.1:$PGP/dbtop_test"
todo_echo "a target with --replay" --replay "$tmp/none.dbrec" "mysql://$U1:$PW1@127.0.0.1:$MYP/"
done_tests
