# contrib/dbtop.service (issue 35): systemd-analyze verify passes (with the
# binary under test as ExecStart and the man page it names), and its
# security check puts no setting that does not need the network above 0.2
# exposure (none near MEDIUM), the whole unit at "OK" or better; it runs
# --no-screen --read-only, and no password is on its command line.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
U=contrib/dbtop.service
check "the unit runs the service --no-screen --read-only --incidents" grep -qE '^ExecStart=\S+/dbtop --no-screen --read-only --incidents ' "$U"
check "no password in the unit or on its command line (no -p, no :pw@, no --password)" \
    bash -c "! grep -vE '^#' '$U' | grep -qiE '(:[^@/ ]+@|--password|-p[^a-z ]|PGPASSWORD=|MYSQL_PWD=)'"
if ! command -v systemd-analyze >/dev/null; then
    echo "ok - systemd-analyze # SKIP systemd-analyze is not installed here (apt-get install systemd)"
    done_tests
fi
mkdir -p "$tmp/man/man1"
cp docs/dbtop.1 "$tmp/man/man1/"
sed "s|/usr/local/bin/dbtop|$(readlink -f "$DBTOP")|" "$U" >"$tmp/dbtop.service"
if out=$(cd "$tmp" && MANPATH=$tmp/man systemd-analyze verify "$tmp/dbtop.service" 2>&1); then
    ok "systemd-analyze verify: no complaint${out:+ ($out)}"
elif grep -qiE 'system has not been booted|failed to connect to bus|Failed to initialize manager' <<<"$out"; then
    echo "ok - systemd-analyze verify # SKIP it cannot run here: $(head -c 200 <<<"$out")"
else
    nok "systemd-analyze verify: $out"
fi
if sec=$(systemd-analyze security --offline=yes "$tmp/dbtop.service" 2>&1); then
    overall=$(sed -n 's/.*Overall exposure level for dbtop.service: \([0-9.]*\) \([A-Z]*\).*/\1 \2/p' <<<"$sec")
    echo "# security: $overall; not set: $(grep '✗' <<<"$sec" | awk '{ print $2 "=" $NF }' | tr '\n' ' ')"
    check "systemd-analyze security: the unit's exposure is OK or better ($overall)" \
        awk -v v="${overall%% *}" 'BEGIN { exit !(v != "" && v + 0 < 4.0) }'
    bad=$(grep '✗' <<<"$sec" | grep -vE 'RestrictAddressFamilies|PrivateNetwork|IPAddress' | awk '$NF + 0 > 0.2 { print $2 " " $NF }')
    check "systemd-analyze security: no setting that does not need the network above 0.2 (${bad:-none})" test -z "$bad"
else
    echo "ok - systemd-analyze security # SKIP it cannot run here: $(head -c 200 <<<"$sec")"
fi
done_tests
