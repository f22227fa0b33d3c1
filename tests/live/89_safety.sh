# Process safety on MariaDB: a terminal that goes away without a SIGHUP
# (dbtop on a pty in its own session, the pty closed) while a change is in
# force: the change is reverted and dbtop exits; the sampler thread blocks
# the quit signals (they reach the UI thread); the crash handler restores
# the terminal once: a second fatal signal inside it (SIGABRT while endwin()
# runs) goes to the default action instead of entering it again (gdb); no
# core file and not dumpable; a hostile server's error text reaches stderr
# neutralised; a password typed as a second argument or glued to an unknown
# option is never echoed; world-writable option files (and includes) are
# ignored as by the mysql client, an explicit --defaults-file refused.
. tests/lib.sh
tui_init safety
M=$DBTOP_MARIADB_CLIENT
fake=
cleanup() {
    [ -n "$fake" ] && kill "$fake" 2>/dev/null
    tui_stop
    $M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
myv() { $M -N -e "SELECT @@GLOBAL.$1"; }
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1"
touch "$tmp/started"

# start URI: dbtop on the screen in tmux; its pid in $tmp/pid, stderr in $tmp/err
start() { UP_WAIT=15 dbtop_start 120 40 --interval 0.5 --connect-timeout 2 "$1"; }

# ---- a hang-up without SIGHUP while a change is in force ----
cat >"$tmp/hup.py" <<'EOF'
# hup.py ERRFILE CHECK_CMD WANT CMD...: CMD on a pty in a session of its
# own (the pty is not its controlling terminal: no SIGHUP reaches it when
# the pty goes); keys 5 g a y; wait until CHECK_CMD prints WANT; close the
# pty master; print "applied BOOL" and "exit RC SECONDS".
import os, pty, select, subprocess, sys, time, threading, fcntl, termios, struct
err, check, want, *cmd = sys.argv[1:]
m, s = pty.openpty()
fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 120, 0, 0))
p = subprocess.Popen(cmd, stdin=s, stdout=s, stderr=open(err, 'w'), start_new_session=True,
                     env=dict(os.environ, TERM='xterm'))
os.close(s)
out = bytearray()
stop = False
def rd():
    while not stop:
        r, _, _ = select.select([m], [], [], 0.1)
        if r:
            try:
                d = os.read(m, 65536)
            except OSError:
                return
            if not d:
                return
            out.extend(d)
th = threading.Thread(target=rd, daemon=True)
th.start()
def until(f, t):
    end = time.time() + t
    while time.time() < end:
        if f():
            return True
        time.sleep(0.1)
    return False
val = lambda: subprocess.run(check, shell=True, capture_output=True, text=True).stdout.strip()
until(lambda: b'UP' in out, 20)
time.sleep(1)
for k, pause in ((b'5', 2), (b'g', 0.5), (b'a', 1), (b'y', 0)):
    os.write(m, k)
    time.sleep(pause)
print('applied', until(lambda: val() == want, 15), flush=True)
stop = True
th.join()
t0 = time.time()
os.close(m)
try:
    rc = p.wait(30)
except subprocess.TimeoutExpired:
    rc = 'timeout'
    p.kill()
    p.wait()
print('exit', rc, round(time.time() - t0, 1), flush=True)
EOF
python3 "$tmp/hup.py" "$tmp/hup.err" "$M -N -e 'SELECT @@GLOBAL.innodb_flush_log_at_trx_commit'" 2 \
    "$DBTOP" --interval 0.5 "$DBTOP_MARIADB_ADMIN_URI" >"$tmp/hup.out" 2>&1
if grep -q "applied True" "$tmp/hup.out"; then ok "hang-up: innodb_flush_log_at_trx_commit=2 applied on a pty of its own session"; else nok "hang-up: the change was not applied: $(cat "$tmp/hup.out" "$tmp/hup.err")"; fi
read -r _ rc secs < <(grep '^exit' "$tmp/hup.out")
if [ "$rc" = 0 ]; then ok "hang-up without SIGHUP: dbtop left, exit 0, ${secs}s after the pty closed"; else nok "hang-up without SIGHUP: exit '$rc' after ${secs}s (ignored while the change was in force)"; fi
if [ "$(myv innodb_flush_log_at_trx_commit)" = 1 ]; then ok "hang-up: the change was reverted (1)"; else nok "hang-up: innodb_flush_log_at_trx_commit is $(myv innodb_flush_log_at_trx_commit)"; fi
check "hang-up: the exit message says reverted" grep -q "reverted 1 setting change" "$tmp/hup.err"
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1"
rm -rf "$XDG_STATE_HOME"

# ---- signal masks, core dumps, the crash handler ----
if start "$DBTOP_MARIADB_URI"; then ok "screen up for the signal checks"; else nok "screen did not come up: $(screen)"; fi
pid=$(dpid)
# blocked SIGHUP 1, SIGINT 2, SIGPIPE 13, SIGTERM 15 in a SigBlk mask
blocks_quit() { local m=$((16#$1)); [ $((m & 1)) = 1 ] && [ $((m >> 1 & 1)) = 1 ] && [ $((m >> 12 & 1)) = 1 ] && [ $((m >> 14 & 1)) = 1 ]; }
workers=0 main_ok=1 workers_ok=1
for t in /proc/"$pid"/task/*; do
    mask=$(awk '/^SigBlk/ {print $2}' "$t/status")
    if [ "${t##*/}" = "$pid" ]; then
        [ $((16#$mask & 0x4007)) = 0 ] || main_ok=0
    else
        workers=$((workers + 1))
        blocks_quit "$mask" || workers_ok=0
    fi
done
if [ "$workers" -ge 1 ] && [ "$workers_ok" = 1 ]; then ok "sampler thread blocks SIGHUP/SIGINT/SIGPIPE/SIGTERM ($workers worker thread)"; else nok "worker threads: $workers, masks: $(grep SigBlk /proc/"$pid"/task/*/status | tr '\n' ' ')"; fi
if [ "$main_ok" = 1 ]; then ok "the UI thread takes the quit signals (not blocked)"; else nok "UI thread blocks a quit signal: $(grep SigBlk /proc/"$pid"/status)"; fi
if awk '/^Max core file size/ {exit !($5 == 0 && $6 == 0)}' /proc/"$pid"/limits; then ok "no core file: RLIMIT_CORE 0 (soft and hard)"; else nok "core limit: $(grep 'core file' /proc/"$pid"/limits)"; fi
# gdb: one session asks the process (an inferior call), a second drives the
# signals (gdb in $tmp without core files of its own: it may abort itself)
G() { (cd "$tmp" && ulimit -c 0 && timeout 60 gdb "$@"); }
if command -v gdb >/dev/null && G -p "$pid" -batch -nx -ex 'print (int)prctl(3,0,0,0,0)' >"$tmp/gdb1.out" 2>&1 &&
    grep -q '^\$1 = ' "$tmp/gdb1.out"; then
    if grep -q '^\$1 = 0$' "$tmp/gdb1.out"; then ok "not dumpable (prctl PR_GET_DUMPABLE = 0)"; else nok "dumpable: $(grep '^\$1' "$tmp/gdb1.out")"; fi
    G -p "$pid" -batch -nx -ex 'set pagination off' -ex 'handle SIGSEGV stop nopass' \
        -ex 'handle SIGABRT stop nopass' -ex 'break endwin' -ex 'signal SIGSEGV' -ex 'signal SIGABRT' \
        -ex 'signal SIGABRT' >"$tmp/gdb.out" 2>&1
    # (gdb itself may abort on the sanitizer build's exit: the count and the exit status say it)
    hits=$(grep -c "hit Breakpoint 1," "$tmp/gdb.out")
    if wait_exited 134 5; then ok "crash: dbtop dies by the second signal (exit 134)"; else nok "crash: $(screen)"; fi
    if [ "$hits" = 1 ]; then ok "crash handler: SIGABRT inside its endwin() goes to the default action (endwin once)"; else nok "crash handler re-entered: endwin $hits times: $(grep -E 'Breakpoint|terminated|exited' "$tmp/gdb.out" | tr '\n' ' ')"; fi
else
    ok "crash handler and not dumpable # SKIP gdb cannot attach here, the checks need it ($(tail -c 200 "$tmp/gdb1.out" 2>/dev/null | tr '\n' ' '))"
fi
# a plain SIGSEGV while a change is in force: the terminal back, the message, death by the signal
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1"
if start "$DBTOP_MARIADB_ADMIN_URI"; then
    T send-keys -t s 5 g
    wait_re "^setting +now" 5
    T send-keys -t s a
    wait_re "Change this setting\?" 3 && T send-keys -t s y
    for ((i = 0; i < 100; i++)); do [ "$(myv innodb_flush_log_at_trx_commit)" = 2 ] && break; sleep 0.1; done
    kill -SEGV "$(dpid)"
    if wait_exited 139 5; then ok "SIGSEGV: dbtop dies by the signal (exit 139), no loop"; else nok "SIGSEGV: $(screen)"; fi
    check "SIGSEGV with a change in force: the message names the undo journal" grep -q "crashed while setting changes were in force" "$tmp/err"
    new_core=$(find . -maxdepth 1 -name 'core*' -newer "$tmp/started" 2>/dev/null)
    if [ -z "$new_core" ]; then ok "no core file in dbtop's working directory"; else nok "core file written: $new_core"; fi
else
    nok "screen did not come up for the SIGSEGV check: $(screen)"
fi
T kill-server 2>/dev/null
$M -e "SET GLOBAL innodb_flush_log_at_trx_commit=1"
rm -rf "$XDG_STATE_HOME"

# ---- a hostile server's error text ----
cat >"$tmp/fake.py" <<'EOF'
# A "MySQL server" that answers every connection with an error packet whose
# text carries an OSC title, a clear-screen, a C1 CSI and a BEL.
import socket, struct
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', 0))
s.listen(4)
print(s.getsockname()[1], flush=True)
msg = b"Host blocked \x1b]2;HACKED-ERR\x07 \x1b[2J\xc2\x9b31m end"
while True:
    c, _ = s.accept()
    body = b'\xff' + struct.pack('<H', 1129) + msg
    c.sendall(struct.pack('<I', len(body))[:3] + b'\x00' + body)
    c.close()
EOF
python3 "$tmp/fake.py" >"$tmp/fake.port" &
fake=$!
for ((i = 0; i < 50; i++)); do [ -s "$tmp/fake.port" ] && break; sleep 0.1; done
"$DBTOP" -b -n 1 --connect-timeout 2 "mysql://u@127.0.0.1:$(cat "$tmp/fake.port")/" >/dev/null 2>"$tmp/fake.err"
if grep -q "HACKED-ERR" "$tmp/fake.err" && ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]\|\xc2\x9b' "$tmp/fake.err"; then ok "server error text on stderr: quoted, control bytes neutralised"; else nok "server error text: $(od -c "$tmp/fake.err" | head -5 | tr '\n' ' ')"; fi
kill "$fake" 2>/dev/null
wait "$fake" 2>/dev/null
fake=

# ---- a password on the command line is never echoed ----
PW=Sekr3tPw$$
noecho() {
    local name=$1
    shift
    timeout 10 "$DBTOP" "$@" >"$tmp/u.out" 2>"$tmp/u.err"
    local rc=$?
    if [ "$rc" = 2 ] && ! grep -q "$PW" "$tmp/u.out" "$tmp/u.err"; then ok "$name: exit 2, the password not echoed ($(head -n 1 "$tmp/u.err" | cut -c1-80))"; else nok "$name: exit $rc: $(cat "$tmp/u.err" | head -c 300)"; fi
}
noecho "--password VALUE (a second target)" -b "$DBTOP_MARIADB_URI" --password "$PW"
noecho "a bare second argument" -b "$DBTOP_MARIADB_URI" "$PW"
noecho "-pPASSWORD (mysql client habit)" -b "-p$PW" "$DBTOP_MARIADB_URI"
noecho "--passwd=PASSWORD (unknown option)" -b "--passwd=$PW" "$DBTOP_MARIADB_URI"

# ---- world-writable option files ----
mkdir -p "$tmp/cnf/inc"
printf '[client]\nuser=dbtop_mon\npassword=monpw\n' >"$tmp/cnf/ww.cnf"
chmod 666 "$tmp/cnf/ww.cnf"
"$DBTOP" -b -n 1 --defaults-file "$tmp/cnf/ww.cnf" "mysql://127.0.0.1:$DBTOP_MARIADB_PORT/dbtop_test" >/dev/null 2>"$tmp/ww.err"
rc=$?
if [ "$rc" = 2 ] && grep -q "World-writable config file '$tmp/cnf/ww.cnf' is ignored" "$tmp/ww.err"; then ok "--defaults-file world-writable: refused (exit 2)"; else nok "--defaults-file world-writable: exit $rc: $(cat "$tmp/ww.err")"; fi
# the password only in an included file: a world-writable include is skipped (so the login fails)
printf '[client]\nuser=dbtop_mon\n!include %s\n' "$tmp/cnf/ww.cnf" >"$tmp/cnf/main.cnf"
chmod 600 "$tmp/cnf/main.cnf"
"$DBTOP" -b -n 1 --connect-timeout 3 --defaults-file "$tmp/cnf/main.cnf" "mysql://127.0.0.1:$DBTOP_MARIADB_PORT/dbtop_test" >/dev/null 2>"$tmp/inc.err"
rc=$?
if [ "$rc" = 1 ] && grep -q "World-writable config file '$tmp/cnf/ww.cnf' is ignored" "$tmp/inc.err" && grep -q "Access denied" "$tmp/inc.err"; then ok "a world-writable !include is ignored with the warning (its password not used)"; else nok "world-writable include: exit $rc: $(cat "$tmp/inc.err")"; fi
chmod 600 "$tmp/cnf/ww.cnf"
"$DBTOP" -b -n 1 --connect-timeout 3 --defaults-file "$tmp/cnf/main.cnf" "mysql://127.0.0.1:$DBTOP_MARIADB_PORT/dbtop_test" >/dev/null 2>"$tmp/inc2.err"
rc=$?
if [ "$rc" = 0 ] && [ ! -s "$tmp/inc2.err" ]; then ok "the same include at mode 600 is read (exit 0)"; else nok "include at 600: exit $rc: $(cat "$tmp/inc2.err")"; fi
mv "$tmp/cnf/ww.cnf" "$tmp/cnf/inc/a.cnf"
chmod 666 "$tmp/cnf/inc/a.cnf"
printf '[client]\nuser=dbtop_mon\n!includedir %s\n' "$tmp/cnf/inc" >"$tmp/cnf/main.cnf"
"$DBTOP" -b -n 1 --connect-timeout 3 --defaults-file "$tmp/cnf/main.cnf" "mysql://127.0.0.1:$DBTOP_MARIADB_PORT/dbtop_test" >/dev/null 2>"$tmp/dir.err"
if grep -q "World-writable config file '$tmp/cnf/inc/a.cnf' is ignored" "$tmp/dir.err"; then ok "a world-writable file of an !includedir is ignored with the warning"; else nok "includedir: $(cat "$tmp/dir.err")"; fi
# ~/.my.cnf world-writable: ignored, with the warning
mkdir -p "$tmp/home"
printf '[client]\nuser=dbtop_mon\npassword=monpw\n' >"$tmp/home/.my.cnf"
chmod 666 "$tmp/home/.my.cnf"
HOME=$tmp/home "$DBTOP" -b -n 1 --connect-timeout 3 "mysql://127.0.0.1:$DBTOP_MARIADB_PORT/dbtop_test" >/dev/null 2>"$tmp/home.err"
if grep -q "World-writable config file '$tmp/home/.my.cnf' is ignored" "$tmp/home.err" && grep -q "Access denied" "$tmp/home.err"; then ok "~/.my.cnf world-writable: ignored with the warning"; else nok "~/.my.cnf world-writable: $(cat "$tmp/home.err")"; fi
done_tests
