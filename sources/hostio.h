/* hostio.h - the host side of the log devices: which block devices hold
 * the server's log directories (a walk of /sys), and their counters (one
 * read of /proc/diskstats per refresh). Every read of /proc and /sys for
 * them is here; the parsing is pure and unit-tested on fake trees. */
#ifndef DBTOP_HOSTIO_H
#define DBTOP_HOSTIO_H

#include <stddef.h>

#include "../core/logdev.h"

/* One line of /proc/diskstats ("major minor name" and 11, 15 or 17
 * numbers) into d. Returns 0, or -1 when the line is not one. */
int hostio_parse_line(const char *line, struct diskstat *d);

/* The map's devices from the whole text of /proc/diskstats, parsed once,
 * into out (out->d[i] for m->dev[i]; a device absent from the text gets
 * nfields 0). Sets out->read. */
void hostio_parse(const char *text, const struct logdev_map *m, struct logdev_sample *out);

/* The block device major:minor names under sysroot ("/sys" when NULL or
 * ""): its name into name. Returns 0, or -1 when sysfs has no such device. */
int hostio_dev_name(const char *sysroot, unsigned maj, unsigned min, char *name, size_t len);

/* The devices that hold block device name: a partition's disk, the slaves
 * of a device-mapper or md device (each followed in turn), the device
 * itself otherwise; into out (at most max, the shown one first), with what
 * the walk saw in via ("sda2 on sda", "dm-0 on loop0 loop1", "loop0 file
 * /x.img"). Returns how many. */
int hostio_walk(const char *sysroot, const char *name, char out[][LOGDEV_NAME], int max, char *via, size_t vlen);

/* m->dirs[0..ndirs) have their paths: stat each, name its file system
 * and block device, walk the device, and set m->dev, m->state and m->note.
 * sysroot as above. */
void hostio_resolve(struct logdev_map *m, const char *sysroot);

/* Read procroot/diskstats ("/proc" when NULL or "") once and parse the
 * map's devices into out. The text another connection read less than
 * max_age s ago, and after *taken (the monotonic s of the text this caller
 * parsed last; taken NULL: any), is parsed instead of reading the file
 * again (max_age 0: always read); *taken and out->at become its time.
 * Returns 0, or -1 (out->read false) when it cannot be read. */
int hostio_read(const struct logdev_map *m, const char *procroot, double max_age, double *taken,
		struct logdev_sample *out);
/* How many times hostio_read read the file (tests). */
unsigned hostio_readings(void);

#endif
