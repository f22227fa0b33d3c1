# PostgreSQL 15: pg_reload_conf() also applies edits of the configuration
# files that nobody reloaded yet. With work_mem = '7MB' appended to
# postgresql.conf (4MB in force) and pg_hba.conf touched, screen 5 and the
# confirmation of a name both; n changes nothing; y applies the change and,
# as warned, work_mem 7MB with it; a new edit is named in the revert's
# confirmation too; q reverts dbtop's change (and applies that edit). An unknown
# parameter in postgresql.conf: the confirmation says a reload applies none
# of the files' settings; a bad pg_hba.conf line is named. A monitoring role: the pane says the files could
# not be checked. The confirmation says server-wide, postgresql.auto.conf
# and the restart. postgresql.conf and pg_hba.conf are restored.
. tests/lib.sh
tui_init pending
P=$DBTOP_PG15_PSQL
conf=$($P -Atc "SHOW config_file")
hba=$($P -Atc "SHOW hba_file")
cp -p "$conf" "$tmp/postgresql.conf.orig"
cp -p "$hba" "$tmp/pg_hba.conf.orig"
cleanup() {
    tui_stop
    # restore the files in place (owner and mode kept), then make them the ones in force
    [ -s "$tmp/postgresql.conf.orig" ] && cat "$tmp/postgresql.conf.orig" >"$conf"
    [ -s "$tmp/pg_hba.conf.orig" ] && cat "$tmp/pg_hba.conf.orig" >"$hba"
    $P -qc "ALTER SYSTEM RESET synchronous_commit" >/dev/null 2>&1
    $P -qc "SELECT pg_reload_conf()" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
pgv() { $P -Atc "SHOW $1"; }
# value_is NAME WANT SECONDS: poll a new session's value
value_is() {
    local i
    for ((i = 0; i < $3 * 10; i++)); do
        [ "$(pgv "$1")" = "$2" ] && return 0
        sleep 0.1
    done
    return 1
}
start() { UP_WAIT=15 dbtop_start "${2:-200}" "${3:-50}" --interval 0.5 --connect-timeout 2 "$1"; }
# the confirmation box on one line
flat() { T capture-pane -p -t s | unframe | tr -s ' \n' ' '; }

$P -qc "ALTER SYSTEM RESET synchronous_commit" -qc "SELECT pg_reload_conf()" >/dev/null
value_is synchronous_commit on 5
before=$(pgv work_mem)
printf "work_mem = '7MB'   # an edit nobody reloaded\n" >>"$conf"
sleep 1.1   # pg_stat_file() gives whole seconds: later than the reload above
touch "$hba"
if [ "$before" = 4MB ] && [ "$(pgv work_mem)" = 4MB ]; then ok "pending edit written: work_mem 7MB in postgresql.conf, 4MB in force"; else nok "work_mem before: $before now $(pgv work_mem)"; fi

if start "$DBTOP_PG15_ADMIN_URI"; then ok "screen up (superuser)"; else nok "screen: $(screen)"; fi
T send-keys -t s 5 g
if wait_re "work_mem = '7MB' \(postgresql.conf:[0-9]+; now 4MB\)" 8; then ok "screen 5 names the pending edit, its line and the value in force"; else nok "screen 5: $(screen)"; fi
if wait_re "pg_hba.conf changed after the configuration was last loaded" 2; then ok "screen 5: pg_hba.conf edited after the last load"; else nok "screen 5 hba: $(screen)"; fi
T send-keys -t s a
if wait_re "Change this setting\?" 3; then
    f=$(flat)
    case $f in *"WARNING: pg_reload_conf() rereads every configuration file"*"work_mem = '7MB'"*) ok "confirmation: WARNING, the reload also applies work_mem = '7MB'" ;; *) nok "confirmation without the warning: $f" ;; esac
    case $f in *"server-wide until dbtop reverts it"*"postgresql.auto.conf: it survives a server restart until dbtop reverts it"*) ok "confirmation: server-wide, postgresql.auto.conf, survives a restart" ;; *) nok "confirmation wording: $f" ;; esac
    case $f in *"for this dbtop session only"*) nok "confirmation still says 'for this dbtop session only'" ;; *) ok "confirmation: no 'for this dbtop session only'" ;; esac
else
    nok "no confirmation: $(screen)"
fi
T send-keys -t s n
sleep 1
if [ "$(pgv synchronous_commit)" = on ] && [ "$(pgv work_mem)" = 4MB ]; then ok "n: nothing applied (synchronous_commit on, work_mem 4MB)"; else nok "n: synchronous_commit $(pgv synchronous_commit), work_mem $(pgv work_mem)"; fi
T send-keys -t s a
wait_re "Change this setting\?" 3 && T send-keys -t s y
if value_is synchronous_commit off 10; then ok "y: synchronous_commit off"; else nok "y: synchronous_commit $(pgv synchronous_commit): $(screen)"; fi
if value_is work_mem 7MB 5; then ok "y: as warned, the pending work_mem 7MB came into force with the reload"; else nok "y: work_mem $(pgv work_mem)"; fi
# the change published on the screen (the apply and its probe are done) before anything else
wait_re "TUNED 1 " 15 || nok "no TUNED badge after y: $(screen)"
if ! wait_re "hold more than this change" 1; then ok "screen 5: nothing pending once reloaded (dbtop's own line in postgresql.auto.conf not named)"; else nok "screen 5 after the reload: $(screen)"; fi
# the revert reloads too: its confirmation warns the same way
mwm=$(pgv maintenance_work_mem)
printf "maintenance_work_mem = '99MB'\n" >>"$conf"
if wait_re "maintenance_work_mem = '99MB'" 12; then ok "screen 5 picks up a new pending edit while a change is in force"; else nok "new pending edit not shown: $(screen)"; fi
T send-keys -t s a
if wait_re "REVERT dbtop's change" 3; then
    case $(flat) in *"WARNING: pg_reload_conf() rereads"*"maintenance_work_mem = '99MB'"*) ok "revert confirmation: the same warning" ;; *) nok "revert confirmation without the warning: $(flat)" ;; esac
else
    nok "no revert confirmation: $(screen)"
fi
T send-keys -t s n
T send-keys -t s q
if wait_exited 0 10; then ok "q: exit 0"; else nok "q: $(screen)"; fi
if [ "$mwm" != 99MB ] && [ "$(pgv maintenance_work_mem)" = 99MB ]; then ok "q: the revert's reload applied the pending maintenance_work_mem too (as warned)"; else nok "maintenance_work_mem $mwm -> $(pgv maintenance_work_mem)"; fi
if [ "$(pgv synchronous_commit)" = on ]; then ok "q: dbtop's change reverted (on)"; else nok "q: synchronous_commit $(pgv synchronous_commit)"; fi

# an error that makes a reload apply nothing, and one in pg_hba.conf
printf "bogus_setting_dbtop = 1\n" >>"$conf"
printf "host all all 127.0.0.2/32 bogusmethod\n" >>"$hba"
start "$DBTOP_PG15_ADMIN_URI" 120 40
T send-keys -t s 5 g
wait_re "^synchronous_commit" 8
sleep 0.5
T send-keys -t s a
if wait_re "Change this setting\?" 3; then
    f=$(flat)
    case $f in *"bogus_setting_dbtop = '1': unrecognized configuration parameter"*) ok "confirmation names the error line" ;; *) nok "error line not named: $f" ;; esac
    case $f in *"applies NONE of their settings"*"not take effect"*) ok "confirmation: a reload would apply nothing, the change would not take effect" ;; *) nok "no 'NONE': $f" ;; esac
    case $f in *"pg_hba.conf line "[0-9]*": invalid authentication method"*"keeps the old rules"*) ok "confirmation names the pg_hba.conf error (pg_hba_file_rules)" ;; *) nok "no pg_hba.conf error: $f" ;; esac
else
    nok "no confirmation (error case): $(screen)"
fi
T send-keys -t s n
T send-keys -t s q
wait_exited 0 10
cat "$tmp/postgresql.conf.orig" >"$conf"
cat "$tmp/pg_hba.conf.orig" >"$hba"
$P -qc "SELECT pg_reload_conf()" >/dev/null

# a monitoring role cannot read the files: the pane says so
start "$DBTOP_PG15_URI" 120 40
T send-keys -t s 5
if wait_re "could not be checked" 8; then ok "monitoring role: screen 5 says the files could not be checked"; else nok "monitoring role: $(screen)"; fi
T send-keys -t s q
wait_exited 0 10
done_tests
