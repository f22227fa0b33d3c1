/* logdev.h - the block devices under the server's log directories (WAL,
 * redo, binlog, data) and their cumulative /proc/diskstats counters. The
 * map is found once per connection when dbtop runs on the database host
 * (sources/hostio.c); the counters are read once per refresh. Shared by
 * sources (writers), the model (rates), record/replay and the panes. */
#ifndef DBTOP_LOGDEV_H
#define DBTOP_LOGDEV_H

#include <stdbool.h>
#include <stdint.h>

#define LOGDIR_MAX 4      /* directories looked at */
#define LOGDEV_MAX 6      /* block devices read: each directory's, and what holds it */
#define LOGDEV_NAME 32
#define LOGDEV_NOTE 240

/* What the directories are on, as far as the host shows. */
enum logdev_state {
	LDS_NONE = 0,     /* not looked at: a recording made before it, or not yet connected */
	LDS_OK,           /* block devices found: their figures are read */
	LDS_REMOTE,       /* the server is not on this host (a TCP address that is not loopback) */
	LDS_NOBLOCK,      /* tmpfs, overlay, NFS ...: no block device, no device figures */
	LDS_ZFS,          /* ZFS: the pool's disks are not named by the mount; no per-device flush counts */
	LDS_UNSEEN,       /* the directories could not be read or are not visible here (note says why) */
	LDS__COUNT
};

/* One log directory and the device it is on. */
struct logdir {
	char role[16];          /* "WAL", "redo", "binlog", "data" */
	char path[160];         /* as the server gives it, symlinks followed when visible */
	char fs[16];            /* file system type: "ext4", "tmpfs", "zfs" ... ("": unknown) */
	char dev[LOGDEV_NAME];  /* the block device st_dev names ("": none) */
	char via[96];           /* what holds it: "sda2 on sda", "dm-0 on sdb sdc", "loop0 file /x.img" */
};

/* The directories → devices of one connection (kept with the caps). dev[0]
 * is the one the screen shows: the device the first directory's file
 * system sits on (a partition's disk); the others follow. */
struct logdev_map {
	enum logdev_state state;
	char note[LOGDEV_NOTE];          /* what is missing and why ("": nothing) */
	int ndirs;
	struct logdir dirs[LOGDIR_MAX];
	int ndev;
	char dev[LOGDEV_MAX][LOGDEV_NAME];
};

/* One device's line of /proc/diskstats: cumulative counters since boot
 * (ticks in ms). nfields: the numbers after the name (11 before Linux
 * 4.18, 15 with the discard fields, 17 with the flush fields of 5.5+);
 * 0: the device was not in the file this time. */
struct diskstat {
	char name[LOGDEV_NAME];
	int nfields;
	uint64_t rd_ios, rd_merges, rd_sectors, rd_ticks;
	uint64_t wr_ios, wr_merges, wr_sectors, wr_ticks;
	uint64_t in_flight, io_ticks, time_in_queue;
	uint64_t dc_ios, dc_merges, dc_sectors, dc_ticks;
	uint64_t fl_ios, fl_ticks;
};

/* The counters of the map's devices, one refresh. */
struct logdev_sample {
	bool read;              /* read this refresh (else not read: remote, none, a replay without them) */
	int n;
	struct diskstat d[LOGDEV_MAX];
	double at; /* monotonic s of the read (a text shared by several connections while young); not
		    * recorded: the rates are over the samples' interval */
};

#endif
