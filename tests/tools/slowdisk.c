/* slowdisk.c - a disk whose flushes are slow, for a loop device: a one-file
 * FUSE file system (spoken to /dev/fuse directly, no libfuse) that serves
 * BACKING as MNT/disk.img and makes every fsync of it take MS milliseconds
 * (the backing file's own sync is skipped: it is a throwaway), as a ZFS pool's synchronous
 * writes through its intent log do (seed 002). A loop device on MNT/disk.img
 * then flushes that slowly for everyone on it: /proc/diskstats counts the
 * device's flushes and their time, and a server on a file system on it waits
 * as long in its own syncs: the device and the server agree (unlike the
 * LD_PRELOAD shim slowsync.c, which delays the server after the device has
 * finished). Reads and writes pass through at the backing file's speed.
 *
 *   slowdisk BACKING MNT MS     mount, serve until unmounted (umount MNT)
 *
 * Root only (mount(2) of a fuse file system). Stays in the foreground; the
 * caller puts it in the background and unmounts MNT to end it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define FILE_NAME "disk.img"
#define MAX_WRITE (128 * 1024)
#define BUF_SIZE (MAX_WRITE + 64 * 1024)
#define WORKERS 4

static int dev_fd = -1, back_fd = -1;
static long delay_ns;

static void fill_attr(struct fuse_attr *a, uint64_t ino)
{
	struct stat st;
	memset(a, 0, sizeof *a);
	a->ino = ino;
	a->blksize = 4096;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
		return;
	}
	if (fstat(back_fd, &st) == 0) {
		a->size = (uint64_t)st.st_size;
		a->blocks = (uint64_t)st.st_blocks;
	}
	a->mode = S_IFREG | 0600;
	a->nlink = 1;
}

/* Send a reply: the header, then n bytes of payload (err: -errno or 0). */
static void reply(uint64_t unique, int err, const void *payload, size_t n)
{
	struct fuse_out_header h = {.len = (uint32_t)(sizeof h + (err ? 0 : n)), .error = err, .unique = unique};
	struct iovec v[2] = {{&h, sizeof h}, {(void *)payload, err ? 0 : n}};
	if (writev(dev_fd, v, 2) < 0 && errno != ENOENT)
		perror("slowdisk: write /dev/fuse");
}

static void do_init(uint64_t unique, const struct fuse_init_in *in)
{
	struct fuse_init_out o;
	memset(&o, 0, sizeof o);
	o.major = FUSE_KERNEL_VERSION;
	o.minor = FUSE_KERNEL_MINOR_VERSION;
	o.max_readahead = in->max_readahead;
	o.flags = in->flags & (FUSE_BIG_WRITES | FUSE_MAX_PAGES);
	o.max_background = 16;
	o.congestion_threshold = 12;
	o.max_write = MAX_WRITE;
	o.time_gran = 1;
	o.max_pages = MAX_WRITE / 4096;
	reply(unique, 0, &o, sizeof o);
}

static void do_entry(uint64_t unique, const char *name)
{
	struct fuse_entry_out e;
	if (strcmp(name, FILE_NAME) != 0) {
		reply(unique, -ENOENT, NULL, 0);
		return;
	}
	memset(&e, 0, sizeof e);
	e.nodeid = 2;
	e.generation = 1;
	e.entry_valid = 1;
	e.attr_valid = 1;
	fill_attr(&e.attr, 2);
	reply(unique, 0, &e, sizeof e);
}

static void do_read(uint64_t unique, const struct fuse_read_in *in)
{
	static __thread char data[BUF_SIZE];
	size_t n = in->size < sizeof data ? in->size : sizeof data;
	ssize_t r = pread(back_fd, data, n, (off_t)in->offset);
	if (r < 0)
		reply(unique, -errno, NULL, 0);
	else
		reply(unique, 0, data, (size_t)r);
}

static void do_write(uint64_t unique, const struct fuse_write_in *in)
{
	struct fuse_write_out o = {0};
	ssize_t r = pwrite(back_fd, (const char *)(in + 1), in->size, (off_t)in->offset);
	if (r < 0) {
		reply(unique, -errno, NULL, 0);
		return;
	}
	o.size = (uint32_t)r;
	reply(unique, 0, &o, sizeof o);
}

/* The slow part: a flush takes the delay. (The backing file's own sync is
 * left out: it is a throwaway, and the delay alone is the disk's speed.) */
static void do_fsync(uint64_t unique)
{
	struct timespec ts = {.tv_sec = delay_ns / 1000000000L, .tv_nsec = delay_ns % 1000000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	reply(unique, 0, NULL, 0);
}

/* One request; false when the file system is gone. */
static int handle(char *buf, ssize_t len)
{
	const struct fuse_in_header *h = (const struct fuse_in_header *)buf;
	const void *arg = buf + sizeof *h;
	struct fuse_attr_out ao;
	struct fuse_open_out oo;
	struct fuse_statfs_out so;
	if (len < (ssize_t)sizeof *h)
		return 1;
	switch (h->opcode) {
	case FUSE_INIT:
		do_init(h->unique, arg);
		break;
	case FUSE_LOOKUP:
		do_entry(h->unique, arg);
		break;
	case FUSE_GETATTR:
	case FUSE_SETATTR:
		memset(&ao, 0, sizeof ao);
		ao.attr_valid = 1;
		fill_attr(&ao.attr, h->nodeid);
		reply(h->unique, 0, &ao, sizeof ao);
		break;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		memset(&oo, 0, sizeof oo);
		reply(h->unique, 0, &oo, sizeof oo);
		break;
	case FUSE_READ:
		do_read(h->unique, arg);
		break;
	case FUSE_WRITE:
		do_write(h->unique, arg);
		break;
	case FUSE_FSYNC:
		do_fsync(h->unique);
		break;
	case FUSE_STATFS:
		memset(&so, 0, sizeof so);
		so.st.bsize = so.st.frsize = 4096;
		so.st.namelen = 255;
		reply(h->unique, 0, &so, sizeof so);
		break;
	case FUSE_FLUSH:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_ACCESS:
	case FUSE_FSYNCDIR:
		reply(h->unique, 0, NULL, 0);
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		break;   /* no reply */
	case FUSE_DESTROY:
		reply(h->unique, 0, NULL, 0);
		return 0;
	default:
		reply(h->unique, -ENOSYS, NULL, 0);
	}
	return 1;
}

static void *worker(void *unused)
{
	static __thread char buf[BUF_SIZE];
	(void)unused;
	for (;;) {
		ssize_t n = read(dev_fd, buf, sizeof buf);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == ENOENT)
				continue;
			if (errno != ENODEV)
				perror("slowdisk: read /dev/fuse");
			exit(0);   /* unmounted */
		}
		if (!handle(buf, n))
			exit(0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char opts[160];
	if (argc != 4) {
		fprintf(stderr, "usage: slowdisk BACKING MNT MS\n");
		return 2;
	}
	double ms = strtod(argv[3], NULL);
	if (!(ms >= 0 && ms <= 1000)) {
		fprintf(stderr, "slowdisk: MS between 0 and 1000\n");
		return 2;
	}
	delay_ns = (long)(ms * 1e6);
	back_fd = open(argv[1], O_RDWR);
	dev_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (back_fd < 0 || dev_fd < 0) {
		perror(back_fd < 0 ? argv[1] : "/dev/fuse");
		return 1;
	}
	snprintf(opts, sizeof opts, "fd=%d,rootmode=40755,user_id=0,group_id=0,allow_other", dev_fd);
	if (mount("slowdisk", argv[2], "fuse.slowdisk", MS_NOSUID | MS_NODEV, opts) < 0) {
		perror("slowdisk: mount");
		return 1;
	}
	pthread_t t[WORKERS];
	for (int i = 1; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	worker(NULL);
	return 0;
}
