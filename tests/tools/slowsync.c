/* slowsync.c - an LD_PRELOAD shim that makes a database server's syncs slow,
 * the way a slow disk does (seed 002: MariaDB on ZFS, seconds per commit).
 * fsync, fdatasync and sync_file_range sleep DBTOP_SLOWSYNC_MS milliseconds
 * (default 5, fractions allowed, at most 1000) after the real call, in the
 * processes named in DBTOP_SLOWSYNC_PROCS (default "mariadbd mysqld
 * postgres"; any other process that inherits the environment, a pg_ctl or a
 * shell, is left alone). DBTOP_SLOWSYNC_FILES, when set, limits the delay to
 * the files whose path contains one of its words (e.g. "ib_logfile": only
 * the redo log is slow, as in seed 000). DBTOP_SLOWSYNC_SWITCH, when set, names a
 * file: the delay applies only while it exists (a slow disk switched on and
 * off under a running server); with DBTOP_SLOWSYNC_FAST_OFF=1 as well, the
 * syncs of the slowed files return at once while it does not (a disk with
 * a write cache: a fast baseline whatever the host's disk is doing). Built as build/tests/slowsync.so; the sandbox
 * starts a server with it when DBTOP_SERVER_PRELOAD names it. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char *program_invocation_short_name;

int fsync(int fd);
int fdatasync(int fd);
int sync_file_range(int fd, long long off, long long n, unsigned int flags);

static long delay_ns = -1;   /* -1: not decided yet, 0: this process is left alone */

/* The delay for this process, decided once. */
static long delay(void)
{
	if (delay_ns >= 0)
		return delay_ns;
	const char *procs = getenv("DBTOP_SLOWSYNC_PROCS"), *ms = getenv("DBTOP_SLOWSYNC_MS");
	const char *me = program_invocation_short_name;
	char list[256];
	long d = 0;
	strncpy(list, procs && *procs ? procs : "mariadbd mysqld postgres", sizeof list - 1);
	list[sizeof list - 1] = '\0';
	for (char *save = NULL, *w = strtok_r(list, " ,", &save); w; w = strtok_r(NULL, " ,", &save))
		if (me && strcmp(w, me) == 0) {
			double v = ms && *ms ? strtod(ms, NULL) : 5.0;
			if (v > 1000)
				v = 1000;
			d = v > 0 ? (long)(v * 1e6) : 0;
			break;
		}
	delay_ns = d;
	return d;
}

/* True if fd's file is one DBTOP_SLOWSYNC_FILES names (or it is not set). */
static int slow_file(int fd)
{
	const char *files = getenv("DBTOP_SLOWSYNC_FILES");
	char link[64], path[4096], list[256];
	if (!files || !*files)
		return 1;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	strncpy(list, files, sizeof list - 1);
	list[sizeof list - 1] = '\0';
	for (char *save = NULL, *w = strtok_r(list, " ,", &save); w; w = strtok_r(NULL, " ,", &save))
		if (strstr(path, w))
			return 1;
	return 0;
}

/* True unless DBTOP_SLOWSYNC_SWITCH names a file that does not exist. */
static int switched_on(void)
{
	const char *sw = getenv("DBTOP_SLOWSYNC_SWITCH");
	return !sw || !*sw || access(sw, F_OK) == 0;
}

/* True when this sync of fd is skipped: switched off, fast-off asked, one
 * of the slowed files of a slowed process. */
static int skip_sync(int fd)
{
	const char *f = getenv("DBTOP_SLOWSYNC_FAST_OFF");
	return f && *f == '1' && delay() > 0 && !switched_on() && slow_file(fd);
}

/* Sleep the delay for a sync of fd, keeping errno (the caller reads the real call's). */
static void slow(int fd)
{
	long d = delay();
	int e = errno;
	if (d > 0 && (!switched_on() || !slow_file(fd)))
		d = 0;
	struct timespec ts = {d / 1000000000L, d % 1000000000L};
	while (d > 0 && nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	errno = e;
}

int fsync(int fd)
{
	static int (*real)(int);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "fsync");
	if (skip_sync(fd))
		return 0;
	int rc = real(fd);
	slow(fd);
	return rc;
}

int fdatasync(int fd)
{
	static int (*real)(int);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "fdatasync");
	if (skip_sync(fd))
		return 0;
	int rc = real(fd);
	slow(fd);
	return rc;
}

int sync_file_range(int fd, long long off, long long n, unsigned int flags)
{
	static int (*real)(int, long long, long long, unsigned int);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "sync_file_range");
	int rc = real(fd, off, n, flags);
	/* only the waiting kind is a sync (SYNC_FILE_RANGE_WAIT_AFTER = 4) */
	if (flags & 4)
		slow(fd);
	return rc;
}
