/* tour.c - the demo tour: the bundled incident recordings, and what to
 * look at while each plays (a caption track: seconds into the recording
 * -> one line). The times follow scripts/record-incidents.sh. */
#include "tour.h"

#include <string.h>

/* build/demo_rec.c (scripts/embed.sh) */
extern const unsigned char dbtop_demo_fsync[];
extern const size_t dbtop_demo_fsync_len;
extern const unsigned char dbtop_demo_upsert[];
extern const size_t dbtop_demo_upsert_len;
extern const unsigned char dbtop_demo_slap[];
extern const size_t dbtop_demo_slap_len;
extern const unsigned char dbtop_demo_chain[];
extern const size_t dbtop_demo_chain_len;
extern const unsigned char dbtop_demo_wal[];
extern const size_t dbtop_demo_wal_len;

/* Each caption: the seed's lesson and number, and where on the screen to
 * see it, in at most 73 columns (" 2/5   caption" fits 80; 85_tour checks). */
static const struct tour_caption fsync_cap[] = {
	{0, "seed 000: rank by total time: COMMIT leads [2] digests, not a query"},
	{5, "redo syncs take 10 ms: [1] redo sync ~11, device 0.1; COMMIT ~2 syncs"},
	{10, "the finding: commits wait on fsync; remedy flush_log_at_trx_commit = 2"},
	{15, "screen 5, a: innodb_flush_log_at_trx_commit = 2 through dbtop, after a y"},
	{18, "TUNED: COMMIT falls from ~20 ms to ~1 ms (seed 000: 20.7 -> 1.47 ms)"},
	{26, "dbtop journals each change first and reverts it on q, u, U, Ctrl-C"},
	{34, "u reverted it: innodb_flush_log_at_trx_commit = 1, COMMIT ~20 ms again"},
	{0, NULL},
};

static const struct tour_caption upsert_cap[] = {
	{0, "seed 001: each visit upserts its website with a fresh UUID, 10 clients"},
	{4, "[3] lock tree: requested vs held lock on table.index, the root blocker"},
	{8, "the finding: upserts wait on one key's X lock: X <- X or X,GAP <- X"},
	{12, "its remedy is an application fix (read first), no setting to change"},
	{16, "the client fixed: read first, upsert only when missing or changed"},
	{20, "[1] commits/s = requests/s: the line steps up (seed 001: 559 -> 1,724)"},
	{26, "no lock waits left; COMMIT leads [2] now: the next wait is the sync"},
	{0, NULL},
};

static const struct tour_caption slap_cap[] = {
	{0, "seed 002: mysqlslap -c 8 on a disk whose flushes take ~9 ms (ZFS-like)"},
	{5, "[1] loop0 flush ms: the device itself is slow, the server agrees"},
	{10, "fsyncs per run, s per run: runs counted by mysqlslap's CREATE DATABASE"},
	{15, "screen 5, a: innodb_flush_log_at_trx_commit = 2 (doublewrite: restart)"},
	{18, "risk: up to ~1 s of commits on an OS crash; fsyncs per run fall ~20x"},
	{24, "seed 002: 5.0 -> 0.15 s and 2,128 -> 204 fsyncs per run; here [1]"},
	{32, "u reverted it: flush = 1 again, the runs slow down"},
	{0, NULL},
};

static const struct tour_caption chain_cap[] = {
	{0, "PostgreSQL, light pgbench load: a session takes a row, idles in its trx"},
	{5, "[3] lock waits: the root blocker on top (idle in transaction), a tree"},
	{11, "the finding names the root blocker; x on screen 3 would end it (live)"},
	{17, "screen 3: the ALTER TABLE waits on all three; so would every later query"},
	{21, "the root commits: the chain drains; [2] its waiters end after ~15 s"},
	{0, NULL},
};

static const struct tour_caption wal_cap[] = {
	{0, "seed 004: asynchronous commits, wal_writer_delay = 10ms: [1] fsyncs/s"},
	{5, "the finding counts the WAL writer's flushes a second; [4] their syncs"},
	{10, "[5] tuning: wal_writer_delay's remedy is 1s; this user may set it"},
	{15, "screen 5, a: wal_writer_delay = 1s through dbtop (ALTER SYSTEM + reload)"},
	{18, "TUNED: [1] fsyncs/s fall (seed 004: wal_sync 44,758 -> 2,501 at 200 ms)"},
	{34, "u reverted it: wal_writer_delay = 10ms again, the syncs come back"},
	{0, NULL},
};

#define STOP_FSYNC {"mariadb-commit-fsync", \
	"seed 000: MariaDB commits wait on a slow redo sync; flush=2 applied with a, reverted with u", \
	fsync_cap}
#define STOP_UPSERT {"mariadb-upsert-gap-lock", \
	"seed 001: upserts wait on each other's key locks; then the client reads first", upsert_cap}
#define STOP_SLAP {"mariadb-slap-flush", \
	"seed 002: mysqlslap on a disk with slow flushes; fsyncs per run before and after a", slap_cap}
#define STOP_WAL {"pg-wal-writer", \
	"seed 004: PostgreSQL WAL writer at wal_writer_delay 10ms; the remedy applied with a", wal_cap}
#define STOP_CHAIN {"pg-lock-chain", \
	"PostgreSQL lock chain behind an idle-in-transaction root blocker", chain_cap}

const struct demo_incident demo_incidents[] = {
	{STOP_FSYNC, dbtop_demo_fsync, &dbtop_demo_fsync_len},
	{STOP_UPSERT, dbtop_demo_upsert, &dbtop_demo_upsert_len},
	{STOP_SLAP, dbtop_demo_slap, &dbtop_demo_slap_len},
	{STOP_WAL, dbtop_demo_wal, &dbtop_demo_wal_len},
	{STOP_CHAIN, dbtop_demo_chain, &dbtop_demo_chain_len},
};
const size_t demo_nincidents = sizeof demo_incidents / sizeof demo_incidents[0];
const struct tour_stop demo_stops[] = {STOP_FSYNC, STOP_UPSERT, STOP_SLAP, STOP_WAL, STOP_CHAIN};

int demo_find(const char *name)
{
	int found = -1;
	for (size_t i = 0; i < demo_nincidents; i++) {
		if (strcmp(demo_incidents[i].stop.name, name) == 0)
			return (int)i;
		if (name[0] && strstr(demo_incidents[i].stop.name, name)) {
			if (found >= 0)
				return -1;   /* names more than one */
			found = (int)i;
		}
	}
	return found;
}

void demo_list(FILE *f)
{
	for (size_t i = 0; i < demo_nincidents; i++)
		fprintf(f, "%-24s %s\n", demo_incidents[i].stop.name, demo_incidents[i].stop.title);
}
