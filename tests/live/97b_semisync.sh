# MariaDB semi-synchronous replication (built into the server since 10.3): a
# primary with rpl_semi_sync_master_enabled and a replica with
# rpl_semi_sync_slave_enabled, both started here on loopback (MASTER_USE_GTID);
# under a bounded insert load dbtop shows the status ON, 1 client and the
# acknowledged commits growing; with semi-sync switched off, a note says so.
# The monitoring user has no privilege at all: the status and variables
# need none.
. tests/lib.sh
BASE=${DBTOP_SANDBOX_DIR:-${TMPDIR:-/tmp}/dbtop-sandbox}/semisync-$$
P1=$((${DBTOP_MARIADB_PORT:-23306} + 1))
P2=$((${DBTOP_MARIADB_PORT:-23306} + 2))
userarg=
[ "$(id -u)" -eq 0 ] && userarg=--user=root
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for i in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$BASE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
command -v mariadbd >/dev/null || { echo "ok - 97b_semisync # SKIP no MariaDB"; exit 0; }

# start NAME PORT ID ARGS...: install and start one server
start() {
	local d=$BASE/$1 port=$2 id=$3 i
	shift 3
	mkdir -p "$d/data" "$d/tmp"
	mariadb-install-db --no-defaults $userarg --datadir="$d/data" --skip-test-db \
		--auth-root-authentication-method=normal >"$d/install.log" 2>&1 || return 1
	setsid mariadbd --no-defaults $userarg --datadir="$d/data" --tmpdir="$d/tmp" --socket="$d/sock" \
		--port="$port" --bind-address=127.0.0.1 --pid-file="$d/pid" --log-error="$d/error.log" \
		--server-id="$id" --log-bin="$d/data/bin" --skip-name-resolve --innodb-buffer-pool-size=32M \
		--performance-schema=OFF "$@" </dev/null >>"$d/error.log" 2>&1 &
	pids+=($!)
	for ((i = 0; i < 150; i++)); do
		mariadb-admin --no-defaults -S "$d/sock" -u root --connect-timeout=2 ping >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}
sql() { local n=$1; shift; timeout 30 mariadb --no-defaults -S "$BASE/$n/sock" -u root "$@"; }

start primary "$P1" 1 --rpl-semi-sync-master-enabled=ON --rpl-semi-sync-master-timeout=3000 ||
	{ nok "primary start: $(tail -n 3 "$BASE/primary/error.log")"; done_tests; }
start replica "$P2" 2 --rpl-semi-sync-slave-enabled=ON ||
	{ nok "replica start: $(tail -n 3 "$BASE/replica/error.log")"; done_tests; }
sql primary <<'SQL'
CREATE USER 'repl'@'127.0.0.1' IDENTIFIED BY 'replpw';
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1';
CREATE USER 'mon'@'127.0.0.1' IDENTIFIED BY 'monpw';
CREATE DATABASE d;
CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=InnoDB;
SQL
sql replica -e "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$P1, MASTER_USER='repl', MASTER_PASSWORD='replpw', MASTER_USE_GTID=slave_pos; START SLAVE"
for i in $(seq 1 100); do
	[ "$(sql primary -N -e "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_clients'" | cut -f2)" = 1 ] && break
	sleep 0.2
done
URI="mysql://mon:monpw@127.0.0.1:$P1"

# 1. enabled, one semi-sync replica, a bounded insert load (1500 commits, 30 s at most)
for i in $(seq 1 1500); do echo "INSERT INTO d.t (v) VALUES ($i);"; done >"$BASE/load.sql"
"$DBTOP" --batch --count 8 --interval 1 --format json "$URI" >"$BASE/on.json" 2>"$BASE/on.err" &
dp=$!
sleep 1.5
sql primary <"$BASE/load.sql" &
lp=$!
wait "$dp"
wait "$lp"
check "semi-sync status ON, enabled, 1 client" \
	jq -se 'any(.[]; .replication.kind == "semi-sync" and .replication.status == "ON" and .replication.enabled == true and .replication.clients == 1)' "$BASE/on.json"
check "acknowledged commits grow under the load" \
	jq -se '([.[] | .replication.yes_tx // empty] | (last - first) > 100) and any(.[]; (.replication.yes_tx_per_s // 0) > 10)' "$BASE/on.json"
check "an ack wait per commit is measured" jq -se 'any(.[]; (.replication.avg_wait_ms // 0) > 0)' "$BASE/on.json"
check "timeout and wait point read" \
	jq -se 'any(.[]; .replication.timeout_ms == 3000 and .replication.wait_point == "AFTER_COMMIT")' "$BASE/on.json"
"$DBTOP" --batch --count 2 --interval 1 --format text --wide "$URI" >"$BASE/on.txt" 2>/dev/null
check "the text says semi-sync ON, 1 client" grep -q 'semi-sync ON: 1 client' "$BASE/on.txt"

# 2. switched off: the note
sql primary -e "SET GLOBAL rpl_semi_sync_master_enabled = OFF"
"$DBTOP" --batch --count 2 --interval 1 --format text --wide "$URI" >"$BASE/off.txt" 2>/dev/null
"$DBTOP" --batch --count 2 --interval 1 --format json "$URI" >"$BASE/off.json" 2>/dev/null
check "off: the note says semi-sync off, the replica asynchronous" grep -q 'semi-sync off (rpl_semi_sync_master_enabled=OFF): 1 replica connected asynchronously' "$BASE/off.txt"
check "off: JSON enabled false, status OFF" \
	jq -se 'any(.[]; .replication.enabled == false and .replication.status == "OFF" and .replication.replicas_connected == 1)' "$BASE/off.json"
if [ "$fails" -gt 0 ]; then
	jq -c .replication "$BASE/on.json" | sed 's/^/# /'
	grep -i semi "$BASE/on.txt" "$BASE/off.txt" | sed 's/^/# /'
fi
done_tests
