/* tour.c - the demo tour: the bundled incident recordings, and what to
 * look at while each plays (a caption track: seconds into the recording
 * -> one line). The times follow scripts/record-incidents.sh. */
#include "tour.h"

#include <string.h>

/* build/demo_rec.c (scripts/embed.sh) */
extern const unsigned char dbtop_demo_fsync[];
extern const size_t dbtop_demo_fsync_len;
extern const unsigned char dbtop_demo_chain[];
extern const size_t dbtop_demo_chain_len;
extern const unsigned char dbtop_demo_wal[];
extern const size_t dbtop_demo_wal_len;

static const struct tour_caption fsync_cap[] = {
	{0, "MariaDB, redo log on a slow disk (10 ms per fsync): [1] fsyncs/commit and commit latency"},
	{5, "COMMIT leads [2] statement digests; the finding above names the remedy"},
	{10, "[4] waits: where the commits wait; [5] tuning: the remedy, who may set it"},
	{15, "screen 5, a: innodb_flush_log_at_trx_commit = 2, applied through dbtop after a y"},
	{18, "TUNED: COMMIT in [2] falls from ~20 ms to ~1 ms at once"},
	{26, "dbtop journals each change before making it and reverts it on q, u, U, Ctrl-C"},
	{34, "u reverted it: innodb_flush_log_at_trx_commit = 1 again, COMMIT back to ~20 ms"},
	{0, NULL},
};

static const struct tour_caption chain_cap[] = {
	{0, "PostgreSQL under a light pgbench load: a session takes a row and sits idle in transaction"},
	{5, "[3] lock waits: the root blocker on top (idle in transaction), its waiters in a tree"},
	{11, "the finding names the root blocker; x on screen 3 would end it (live: here a recording)"},
	{17, "the ALTER TABLE queues behind both: every later query on the table would too"},
	{23, "the root commits: the chain drains, the waiters go on"},
	{0, NULL},
};

static const struct tour_caption wal_cap[] = {
	{0, "PostgreSQL, asynchronous commits, wal_writer_delay = 10ms: [1] WAL syncs/s"},
	{5, "the finding counts the WAL writer's flushes a second; [4] shows the syncs they cost"},
	{10, "[5] tuning: wal_writer_delay's remedy is 1s; this user may set it"},
	{15, "screen 5, a: wal_writer_delay = 1s, applied through dbtop (ALTER SYSTEM + reload)"},
	{18, "TUNED: WAL syncs/s fall; the commits do not wait for them (synchronous_commit off)"},
	{35, "u reverted it: wal_writer_delay = 10ms again, the syncs come back"},
	{0, NULL},
};

#define STOP_FSYNC {"mariadb-commit-fsync", \
	"seed 000/002: MariaDB commit-fsync storm on a slow disk; the remedy applied with a, reverted with u", \
	fsync_cap}
#define STOP_CHAIN {"pg-lock-chain", \
	"seed 001: PostgreSQL lock chain behind an idle-in-transaction root blocker", chain_cap}
#define STOP_WAL {"pg-wal-writer", \
	"seed 004: PostgreSQL WAL writer at wal_writer_delay 10ms; the remedy applied with a, reverted with u", \
	wal_cap}

const struct demo_incident demo_incidents[] = {
	{STOP_FSYNC, dbtop_demo_fsync, &dbtop_demo_fsync_len},
	{STOP_CHAIN, dbtop_demo_chain, &dbtop_demo_chain_len},
	{STOP_WAL, dbtop_demo_wal, &dbtop_demo_wal_len},
};
const size_t demo_nincidents = sizeof demo_incidents / sizeof demo_incidents[0];
const struct tour_stop demo_stops[] = {STOP_FSYNC, STOP_CHAIN, STOP_WAL};

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
		fprintf(f, "%-22s %s\n", demo_incidents[i].stop.name, demo_incidents[i].stop.title);
}
