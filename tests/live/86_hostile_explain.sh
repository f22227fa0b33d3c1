# Hostile statement text against --explain (PostgreSQL 15): the place for
# the next review's explain attacks. An unprivileged login role (the
# attacker) leaves statements in pg_stat_activity; dbtop explains them
# connected as the superuser postgres; a superuser session (the victim)
# sleeps. Whatever the text, explain runs none of it: the victim lives, no
# `actual time` (EXPLAIN ANALYZE) is ever printed, and dbtop answers with
# a plan or a refusal that says why.
#   cr        a carriage return ends a -- comment for PostgreSQL, turning
#             the text into ANALYZE SELECT pg_terminate_backend(...)
#   immutable an IMMUTABLE function the planner folds, that terminates the
#             victim when it runs as anyone but its owner
#   reset     the same after set_config('role', 'none'): SET ROLE is no
#             boundary for code run in a superuser's session
#   domain    a volatile function in a domain's CHECK, run by the input
#             of a composite literal at parse time
#   stable    a STABLE function in a WHERE clause, run by the planner's
#             selectivity estimate
#   xml       table_to_xml (a STABLE built-in running SQL) over a view
#             that calls set_config('role') and pg_terminate_backend, in
#             the text and (xmlview) in a view the text reads
# Plans are made as the session's own role: a table the attacker may not
# read is not planned for it; a dbtop role that may not act as the
# session's role is refused with the reason.
. tests/lib.sh
tmp=$(mktemp -d)
P=$DBTOP_PG15_PSQL
ADMIN=$DBTOP_PG15_ADMIN_URI
ATK=dbtop_atk86
VIC=dbtop86victim
sock=$DBTOP_PG15_SOCKET port=$(sed -n 's/.*-p \([0-9]*\).*/\1/p' <<<"$P")
AP="psql -X -h $sock -p $port -U $ATK dbtop_test"
declare -a kids
cleanup() {
    $P -Atc "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name LIKE 'dbtop86%'" >/dev/null 2>&1
    local k
    for k in "${kids[@]}"; do kill "$k" 2>/dev/null; done
    wait 2>/dev/null
    $P -qc "DROP SCHEMA IF EXISTS evil86 CASCADE; DROP TABLE IF EXISTS secret86, t86; DROP OWNED BY $ATK; DROP ROLE IF EXISTS $ATK" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

$P -qc "DROP SCHEMA IF EXISTS evil86 CASCADE; DROP TABLE IF EXISTS secret86, t86" >/dev/null 2>&1
$P -qc "DROP OWNED BY $ATK" >/dev/null 2>&1
$P -qc "DROP ROLE IF EXISTS $ATK" >/dev/null 2>&1
$P -qc "CREATE ROLE $ATK LOGIN; CREATE SCHEMA evil86 AUTHORIZATION $ATK;
CREATE TABLE secret86 (id int); CREATE TABLE t86 (id int); INSERT INTO t86 SELECT generate_series(1, 1000); ANALYZE t86;
GRANT SELECT ON t86 TO $ATK" >/dev/null || nok "setup: the attacker role"

# count of live sessions with application_name $1
alive() { $P -Atc "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$1'"; }
# poll_for APP: wait (<= 5 s) for a session named APP
poll_for() {
    local i
    for ((i = 0; i < 100; i++)); do [ "$(alive "$1")" -ge 1 ] && return 0; sleep 0.05; done
    return 1
}
# victim: a fresh superuser session sleeping 60 s
victim() {
    $P -Atc "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '$VIC'" >/dev/null
    PGAPPNAME=$VIC $P -qc "SELECT pg_sleep(60)" >/dev/null 2>&1 &
    kids+=($!)
    poll_for $VIC || echo "# no victim session" >&2
}
# attacker NAME TEXT: the attacker's session sends TEXT as it is (psql -c
# sends a -c string untouched), then stays connected; its pid in $apid
attacker() {
    PGAPPNAME=dbtop86$1 $AP -c "$2" -c '\! sleep 25' >"$tmp/$1.out" 2>&1 &
    kids+=($!)
    local i
    apid=
    for ((i = 0; i < 100; i++)); do
        apid=$($P -Atc "SELECT pid FROM pg_stat_activity WHERE application_name = 'dbtop86$1' AND query <> ''")
        [ -n "$apid" ] && break
        sleep 0.05
    done
}
# attack NAME TEXT [URI]: the victim, the attacker's TEXT, dbtop --explain
# of it (as postgres unless URI): no ANALYZE, the victim alive, an answer
attack() {
    local name=$1 text=$2 uri=${3:-$ADMIN} out t0 t1
    victim
    attacker "$name" "$text"
    t0=$(date +%s.%N)
    out=$(timeout 20 "$DBTOP" --explain "${apid:-0}" "$uri" 2>&1)
    t1=$(date +%s.%N)
    sleep 0.3
    echo "$out" >"$tmp/$name.explain"
    if grep -qiE 'actual time|Execution Time' <<<"$out"; then nok "$name: dbtop ran EXPLAIN ANALYZE: $(head -c 300 <<<"$out")"; else ok "$name: no EXPLAIN ANALYZE"; fi
    if [ "$(alive $VIC)" = 1 ]; then ok "$name: the superuser victim session lives"; else nok "$name: the victim was terminated by dbtop's explain"; fi
    echo "# $name: dbtop --explain said ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f s", b - a }')): $(head -c 300 <<<"$out" | tr '\n' '|')"
    $P -Atc "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'dbtop86$name'" >/dev/null
}
TERM_VIC="PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '$VIC'"

# the statement of an honest session is planned, as its own role
attacker plain "SELECT count(*) FROM t86 WHERE id < 10"
out=$(timeout 20 "$DBTOP" --explain "${apid:-0}" "$ADMIN" 2>&1)
if grep -q 'on t86' <<<"$out"; then ok "plain: a SELECT of the attacker role is planned"; else nok "plain: explain said $(head -c 300 <<<"$out")"; fi
out=$(timeout 20 "$DBTOP" --read-only --explain "${apid:-0}" "$ADMIN" 2>&1)
if grep -q 'on t86' <<<"$out"; then ok "plain: planned under --read-only too (a read-only session takes no catalog lock)"; else nok "plain --read-only: $(head -c 300 <<<"$out")"; fi
attacker secret "SELECT * FROM secret86"
out=$(timeout 20 "$DBTOP" --explain "${apid:-0}" "$ADMIN" 2>&1)
if grep -q 'permission denied for table secret86' <<<"$out" && ! grep -q 'on secret86' <<<"$out"; then ok "as its role: a table the session may not read is not planned for it: $(head -n 1 <<<"$out")"; else nok "secret: planned with dbtop's rights, not the session's: $(head -c 300 <<<"$out")"; fi
attacker mon "SELECT count(*) FROM t86 WHERE id < 10"
out=$(timeout 20 "$DBTOP" --explain "${apid:-0}" "$DBTOP_PG15_URI" 2>&1)
if grep -q "may not act as $ATK" <<<"$out"; then ok "a dbtop role that may not act as the session's is refused: $(head -n 1 <<<"$out")"; else nok "mon: explain said $(head -c 300 <<<"$out")"; fi

# 1. the carriage return
attack cr $'-- x\rANALYZE SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = \''"$VIC"$'\' /*\nSELECT 1 */'
# 2. code folded at plan time, as the issue found it and after RESET ROLE
$AP -qc "CREATE FUNCTION evil86.f() RETURNS int IMMUTABLE LANGUAGE plpgsql AS \$\$
BEGIN IF current_user <> '$ATK' THEN $TERM_VIC; END IF; RETURN 1; END \$\$;
CREATE FUNCTION evil86.g() RETURNS int IMMUTABLE LANGUAGE plpgsql AS \$\$
BEGIN PERFORM set_config('role', 'none', false); IF current_user <> '$ATK' THEN $TERM_VIC; END IF; RETURN 1; END \$\$;" || nok "setup: the attacker's functions"
attack immutable "SELECT evil86.f(), pg_sleep(30)"
attack reset "SELECT evil86.g(), pg_sleep(30)"
$AP -qc "DROP FUNCTION evil86.f(); DROP FUNCTION evil86.g()"
# 3. a volatile function run by a domain's CHECK on a composite literal
$AP -qc "CREATE FUNCTION evil86.v(int) RETURNS bool LANGUAGE plpgsql AS \$\$
BEGIN RESET ROLE; IF current_user <> '$ATK' THEN $TERM_VIC; END IF; RETURN true; END \$\$;
CREATE DOMAIN evil86.d AS int CHECK (evil86.v(VALUE)); CREATE TYPE evil86.c AS (x evil86.d);" || nok "setup: the domain"
attack domain "SELECT '(1)'::evil86.c, pg_sleep(30)"
$AP -qc "DROP TYPE evil86.c; DROP DOMAIN evil86.d; DROP FUNCTION evil86.v(int)"
# 4. a STABLE function the planner runs to estimate a WHERE clause
$AP -qc "CREATE FUNCTION evil86.s() RETURNS int STABLE LANGUAGE plpgsql AS \$\$
BEGIN PERFORM set_config('role', 'none', false); IF current_user <> '$ATK' THEN $TERM_VIC; END IF; RETURN 5; END \$\$;" || nok "setup: the stable function"
attack stable "SELECT count(*) FROM t86 WHERE id < evil86.s() AND (SELECT true FROM pg_sleep(30))"
$AP -qc "DROP FUNCTION evil86.s()"
# 5. a STABLE built-in that runs SQL: table_to_xml over the attacker's view
$AP -qc "CREATE VIEW evil86.w AS SELECT set_config('role', 'none', true) AS r, pg_terminate_backend(pid) AS t
FROM pg_stat_activity WHERE application_name = '$VIC'" || nok "setup: the view"
$AP -qc "CREATE VIEW evil86.x AS SELECT id FROM t86 WHERE id::text = table_to_xml('evil86.w', true, false, '')::text" || nok "setup: the xml view"
attack xmlview "SELECT count(*), pg_sleep(30) FROM evil86.x"
attack xml "SELECT count(*) FROM t86 WHERE id::text = table_to_xml('evil86.w', true, false, '')::text AND (SELECT true FROM pg_sleep(30))"
done_tests
