/* hostio.c - the log directories' block devices (a walk of /sys) and their
 * /proc/diskstats counters. See hostio.h. */
#include "hostio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../util/util.h"

int hostio_parse_line(const char *line, struct diskstat *d)
{
	unsigned maj, min;
	int off = 0, n = 0;
	char name[LOGDEV_NAME];
	uint64_t v[17];
	const char *p;

	if (sscanf(line, " %u %u %31s%n", &maj, &min, name, &off) != 3)
		return -1;
	p = line + off;
	while (n < 17) {
		char *end;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		errno = 0;
		v[n] = strtoull(p, &end, 10);
		if (errno || end == p)
			break;
		p = end;
		n++;
	}
	if (n < 11)
		return -1;
	memset(d, 0, sizeof *d);
	str_copy(d->name, sizeof d->name, name);
	d->nfields = n >= 17 ? 17 : n >= 15 ? 15 : 11;
	d->rd_ios = v[0], d->rd_merges = v[1], d->rd_sectors = v[2], d->rd_ticks = v[3];
	d->wr_ios = v[4], d->wr_merges = v[5], d->wr_sectors = v[6], d->wr_ticks = v[7];
	d->in_flight = v[8], d->io_ticks = v[9], d->time_in_queue = v[10];
	if (d->nfields >= 15)
		d->dc_ios = v[11], d->dc_merges = v[12], d->dc_sectors = v[13], d->dc_ticks = v[14];
	if (d->nfields >= 17)
		d->fl_ios = v[15], d->fl_ticks = v[16];
	return 0;
}

void hostio_parse(const char *text, const struct logdev_map *m, struct logdev_sample *out)
{
	const char *p = text;
	int i, n = m->ndev < LOGDEV_MAX ? m->ndev : LOGDEV_MAX;

	memset(out, 0, sizeof *out);
	out->n = n;
	for (i = 0; i < n; i++)
		str_copy(out->d[i].name, sizeof out->d[i].name, m->dev[i]);
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		char line[512];
		struct diskstat d;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len >= sizeof line)
			len = sizeof line - 1;
		memcpy(line, p, len);
		line[len] = '\0';
		p = nl ? nl + 1 : NULL;
		if (hostio_parse_line(line, &d) < 0)
			continue;
		for (i = 0; i < n; i++)
			if (out->d[i].nfields == 0 && strcmp(out->d[i].name, d.name) == 0)
				out->d[i] = d;
	}
	out->read = true;
}

static const char *root_or(const char *root, const char *dflt)
{
	return root && *root ? root : dflt;
}

int hostio_dev_name(const char *sysroot, unsigned maj, unsigned min, char *name, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	str_printf(path, sizeof path, "%s/dev/block/%u:%u", root_or(sysroot, "/sys"), maj, min);
	n = readlink(path, target, sizeof target - 1);
	if (n <= 0)
		return -1;
	target[n] = '\0';
	const char *b = strrchr(target, '/');
	str_copy(name, len, b ? b + 1 : target);
	return 0;
}

/* Read the first line of a small file into buf (newline dropped); false
 * when it cannot be read. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok = false;
	if (!f)
		return false;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ok = true;
	}
	fclose(f);
	return ok;
}

/* The disk of partition name (its parent in sysfs), into disk; false when
 * name is not a partition. */
static bool part_disk(const char *sysroot, const char *name, char *disk, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct stat st;
	ssize_t n;
	str_printf(path, sizeof path, "%s/class/block/%s/partition", sysroot, name);
	if (stat(path, &st) < 0)
		return false;
	str_printf(path, sizeof path, "%s/class/block/%s", sysroot, name);
	n = readlink(path, target, sizeof target - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	char *b = strrchr(target, '/');
	if (!b)
		return false;
	*b = '\0';
	b = strrchr(target, '/');
	str_copy(disk, len, b ? b + 1 : target);
	return disk[0] != '\0';
}

static bool have(char out[][LOGDEV_NAME], int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(out[i], name) == 0)
			return true;
	return false;
}

/* Append to via without overrunning it. */
static void via_add(char *via, size_t vlen, const char *s)
{
	size_t l = strlen(via);
	if (l < vlen)
		str_copy(via + l, vlen - l, s);
}

/* Walk device name (depth: guard against loops in a damaged tree). */
static int walk(const char *sysroot, const char *name, char out[][LOGDEV_NAME], int n, int max, char *via,
		size_t vlen, int depth)
{
	char disk[LOGDEV_NAME], path[PATH_MAX], buf[PATH_MAX];
	DIR *dir;
	struct dirent *e;
	int before;

	if (depth > 8 || n >= max)
		return n;
	if (part_disk(sysroot, name, disk, sizeof disk)) {
		str_printf(buf, sizeof buf, "%s on %s", name, disk);
		via_add(via, vlen, via[0] ? ", " : "");
		via_add(via, vlen, buf);
		name = disk;
	}
	if (!have(out, n, name))
		str_copy(out[n++], LOGDEV_NAME, name);
	str_printf(path, sizeof path, "%s/class/block/%s/loop/backing_file", sysroot, name);
	if (read_line(path, buf, sizeof buf)) {
		char t[PATH_MAX + 64];
		str_printf(t, sizeof t, "%s%s is a loop device on file %s", via[0] ? ", " : "", name, buf);
		via_add(via, vlen, t);
	}
	str_printf(path, sizeof path, "%s/class/block/%s/slaves", sysroot, name);
	dir = opendir(path);
	if (!dir)
		return n;
	before = n;
	char slaves[LOGDEV_MAX][LOGDEV_NAME];
	int ns = 0;
	while ((e = readdir(dir)) && ns < LOGDEV_MAX) {
		if (e->d_name[0] == '.')
			continue;
		str_copy(slaves[ns++], LOGDEV_NAME, e->d_name);
	}
	closedir(dir);
	/* readdir's order is the file system's: sort for a stable walk */
	for (int a = 1; a < ns; a++)
		for (int b = a; b > 0 && strcmp(slaves[b - 1], slaves[b]) > 0; b--) {
			char t[LOGDEV_NAME];
			memcpy(t, slaves[b], LOGDEV_NAME);
			memcpy(slaves[b], slaves[b - 1], LOGDEV_NAME);
			memcpy(slaves[b - 1], t, LOGDEV_NAME);
		}
	if (ns) {
		str_printf(buf, sizeof buf, "%s%s on", via[0] ? ", " : "", name);
		via_add(via, vlen, buf);
		for (int i = 0; i < ns; i++) {
			via_add(via, vlen, " ");
			via_add(via, vlen, slaves[i]);
		}
	}
	for (int i = 0; i < ns; i++)
		n = walk(sysroot, slaves[i], out, n, max, via, vlen, depth + 1);
	(void)before;
	return n;
}

int hostio_walk(const char *sysroot, const char *name, char out[][LOGDEV_NAME], int max, char *via, size_t vlen)
{
	if (vlen)
		via[0] = '\0';
	return walk(root_or(sysroot, "/sys"), name, out, 0, max, via, vlen, 0);
}

/* File system magic numbers (statfs f_type) dbtop names. */
static const struct {
	unsigned long magic;
	const char *name;
	enum logdev_state st;   /* LDS_OK: on a block device */
} fs_types[] = {
	{0xEF53, "ext4", LDS_OK},
	{0x58465342, "xfs", LDS_OK},
	{0x9123683E, "btrfs", LDS_OK},
	{0xF2F52010, "f2fs", LDS_OK},
	{0x01021994, "tmpfs", LDS_NOBLOCK},
	{0x858458F6, "ramfs", LDS_NOBLOCK},
	{0x794C7630, "overlay", LDS_NOBLOCK},
	{0x6969, "nfs", LDS_NOBLOCK},
	{0xFE534D42, "smb", LDS_NOBLOCK},
	{0x65735546, "fuse", LDS_NOBLOCK},
	{0x2FC12FC1, "zfs", LDS_ZFS},
};

#define LACKS "no device writes/s, flushes/s, write or flush latency, queue depth or utilisation"

/* One directory: its file system and device; the state it implies, why
 * into why. */
static enum logdev_state resolve_dir(struct logdir *d, const char *sysroot, char *why, size_t wlen)
{
	struct stat st;
	struct statfs sf;
	char real[PATH_MAX];
	enum logdev_state fst = LDS_OK;
	why[0] = '\0';
	if (realpath(d->path, real))
		str_copy(d->path, sizeof d->path, real);
	if (stat(d->path, &st) < 0) {
		str_printf(why, wlen, "%s directory %s is not visible here (%s): is the server in another container?",
			   d->role, d->path, strerror(errno));
		return LDS_UNSEEN;
	}
	if (statfs(d->path, &sf) == 0) {
		for (size_t i = 0; i < sizeof fs_types / sizeof fs_types[0]; i++)
			if ((unsigned long)sf.f_type == fs_types[i].magic) {
				str_copy(d->fs, sizeof d->fs, fs_types[i].name);
				fst = fs_types[i].st;
			}
	}
	if (fst == LDS_NOBLOCK) {
		str_printf(why, wlen, "%s on %s: no block device, so " LACKS, d->role, d->fs);
		return fst;
	}
	if (fst == LDS_ZFS) {
		str_printf(why, wlen, "%s on ZFS: the pool's disks are not named by the mount and the kernel counts no "
			   "per-device flushes for it (zpool iostat -l shows them)", d->role);
		return fst;
	}
	if (hostio_dev_name(sysroot, major(st.st_dev), minor(st.st_dev), d->dev, sizeof d->dev) < 0) {
		str_printf(why, wlen, "%s on %s: device %u:%u is not a block device in sysfs (a %s subvolume?): " LACKS,
			   d->role, d->fs[0] ? d->fs : "an unknown file system", major(st.st_dev), minor(st.st_dev),
			   d->fs[0] ? d->fs : "btrfs");
		return LDS_UNSEEN;
	}
	return LDS_OK;
}

void hostio_resolve(struct logdev_map *m, const char *sysroot)
{
	enum logdev_state first_bad = LDS_NONE;
	bool any = false;
	sysroot = root_or(sysroot, "/sys");
	m->ndev = 0;
	m->note[0] = '\0';
	for (int i = 0; i < m->ndirs && i < LOGDIR_MAX; i++) {
		struct logdir *d = &m->dirs[i];
		char why[LOGDEV_NOTE];
		enum logdev_state st = resolve_dir(d, sysroot, why, sizeof why);
		if (st != LDS_OK) {
			if (first_bad == LDS_NONE)
				first_bad = st;
			if (!m->note[0])
				str_copy(m->note, sizeof m->note, why);
			continue;
		}
		char devs[LOGDEV_MAX][LOGDEV_NAME];
		int n = hostio_walk(sysroot, d->dev, devs, LOGDEV_MAX, d->via, sizeof d->via);
		for (int k = 0; k < n && m->ndev < LOGDEV_MAX; k++)
			if (!have(m->dev, m->ndev, devs[k]))
				str_copy(m->dev[m->ndev++], LOGDEV_NAME, devs[k]);
		if (strncmp(d->dev, "zd", 2) == 0 && !m->note[0])
			str_printf(m->note, sizeof m->note, "%s is a ZFS volume: the kernel counts no flushes for it", d->dev);
		any = true;
	}
	if (any)
		m->state = LDS_OK;
	else if (first_bad != LDS_NONE)
		m->state = first_bad;
	else {
		m->state = LDS_UNSEEN;
		if (!m->note[0])
			str_copy(m->note, sizeof m->note, "the server named no log directory");
	}
}

/* The text of /proc/diskstats read last, shared by the connections whose
 * log devices are on this host (one read per refresh, not one each). */
static struct {
	pthread_mutex_t mu;
	char *root, *text;
	size_t cap;
	double at;      /* monotonic s it was read; 0: never */
	unsigned reads; /* reads of the file */
	int fd;         /* the file kept open under root (file_reread); -1: not open */
} ds = {.mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

/* path read whole into ds.text (its lock held), the buffer grown until
 * the text fits. Returns 0 or -1. */
static int ds_read(const char *path)
{
	for (;;) {
		if (ds.cap == 0) {
			ds.cap = 16384;
			ds.text = xrealloc(ds.text, ds.cap);
		}
		long n = file_reread(&ds.fd, path, ds.text, ds.cap);
		if (n < 0)
			return -1;
		if ((size_t)n < ds.cap - 1)
			return 0;
		ds.cap *= 2;
		ds.text = xrealloc(ds.text, ds.cap);
	}
}

int hostio_read(const struct logdev_map *m, const char *procroot, double max_age, double *taken,
		struct logdev_sample *out)
{
	char path[PATH_MAX];
	const char *root = root_or(procroot, "/proc");
	int rc = 0;
	out->read = false;
	pthread_mutex_lock(&ds.mu);
	double now = clock_mono(), after = taken ? *taken : 0;
	if (!(ds.at > 0 && ds.at > after && now - ds.at < max_age && strcmp(ds.root, root) == 0)) {
		if (ds.root && strcmp(ds.root, root) != 0 && ds.fd >= 0) {
			close(ds.fd); /* another root: its own file */
			ds.fd = -1;
		}
		free(ds.root);
		ds.root = xstrdup(root);
		ds.reads++;
		str_printf(path, sizeof path, "%s/diskstats", root);
		rc = ds_read(path);
		ds.at = rc == 0 ? now : 0;
	}
	if (rc == 0) {
		hostio_parse(ds.text, m, out);
		out->at = ds.at;
		if (taken)
			*taken = ds.at;
	}
	pthread_mutex_unlock(&ds.mu);
	return rc;
}

unsigned hostio_readings(void)
{
	pthread_mutex_lock(&ds.mu);
	unsigned n = ds.reads;
	pthread_mutex_unlock(&ds.mu);
	return n;
}
