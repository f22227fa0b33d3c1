/* test_hostio.c - the log device: /proc/diskstats lines of old and new
 * kernels, a device gone from the file, the /sys walk on a fake tree
 * (partition -> disk, device-mapper and md -> slaves, loop -> its file),
 * the directories -> devices of a real temporary directory, and the
 * figures per interval (await, utilisation, queue, wrap and reset). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../../model/logdev_rates.h"
#include "../../sources/hostio.h"
#include "../../sources/source.h"
#include "../../util/util.h"
#include "tap.h"

static void test_parse_line(void)
{
	struct diskstat d;
	/* Linux before 4.18: 11 numbers (14 fields) */
	CHECK(hostio_parse_line("   8       0 sda 100 2 800 50 200 3 1600 400 1 300 450", &d) == 0 && d.nfields == 11 &&
	      d.wr_ios == 200 && d.wr_ticks == 400 && d.io_ticks == 300 && d.time_in_queue == 450 && d.fl_ios == 0,
	      "14 fields: reads, writes, in flight, io and queue time");
	/* 4.18+: discard fields (18 fields) */
	CHECK(hostio_parse_line("8 1 sda1 1 0 8 1 2 0 16 3 0 4 5 6 7 8 9", &d) == 0 && d.nfields == 15 &&
	      d.dc_ios == 6 && d.dc_ticks == 9 && d.fl_ios == 0, "18 fields: discards, no flush counts");
	/* 5.5+: flush fields (20 fields) */
	CHECK(hostio_parse_line("   7       0 loop0 134 0 2788 23 18 71 8970 6 0 20 32 2 0 131074 0 5 1", &d) == 0 &&
	      d.nfields == 17 && d.wr_ios == 18 && d.fl_ios == 5 && d.fl_ticks == 1 && strcmp(d.name, "loop0") == 0,
	      "20 fields: flushes and their time");
	CHECK(hostio_parse_line("8 0 sda 1 2 3", &d) < 0, "a short line is not a device");
	CHECK(hostio_parse_line("garbage", &d) < 0, "garbage is not a device");
	CHECK(hostio_parse_line("", &d) < 0, "an empty line is not a device");
	CHECK(hostio_parse_line("8 0 sda 18446744073709551615 0 0 0 1 0 0 0 0 0 0", &d) == 0 &&
	      d.rd_ios == UINT64_MAX, "a 64-bit counter at its top");
}

static void test_parse_file(void)
{
	struct logdev_map m;
	struct logdev_sample s;
	memset(&m, 0, sizeof m);
	m.ndev = 3;
	str_copy(m.dev[0], LOGDEV_NAME, "dm-0");
	str_copy(m.dev[1], LOGDEV_NAME, "sdb");
	str_copy(m.dev[2], LOGDEV_NAME, "nvme0n1");
	const char *text = "   8      16 sdb 1 0 8 1 20 0 160 30 0 25 31 0 0 0 0 4 2\n"
			   "   8      17 sdb1 1 0 8 1 20 0 160 30 0 25 31 0 0 0 0 4 2\n"
			   " 253       0 dm-0 0 0 0 0 10 0 80 90 2 50 95 0 0 0 0 3 6\n";
	hostio_parse(text, &m, &s);
	CHECK(s.read && s.n == 3, "every device of the map has a slot");
	CHECK(strcmp(s.d[0].name, "dm-0") == 0 && s.d[0].nfields == 17 && s.d[0].wr_ios == 10 && s.d[0].in_flight == 2,
	      "dm-0 read from its line");
	CHECK(s.d[1].nfields == 17 && s.d[1].wr_ios == 20, "sdb read, not its partition sdb1");
	CHECK(strcmp(s.d[2].name, "nvme0n1") == 0 && s.d[2].nfields == 0, "a device gone from the file: nfields 0");
	hostio_parse("", &m, &s);
	CHECK(s.read && s.d[0].nfields == 0, "an empty file: every device gone");
}

/* ---- a fake sysfs ---- */

static char root[256];

static void mkdirs(const char *rel)
{
	char p[512], *s;
	str_printf(p, sizeof p, "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
	char p[512];
	str_printf(p, sizeof p, "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void link_to(const char *rel, const char *target)
{
	char p[512];
	str_printf(p, sizeof p, "%s/%s", root, rel);
	if (symlink(target, p) < 0)
		perror(p);
}

/* A block device under devices/<bus>/block/[disk/]name, with its
 * class/block link. */
static void dev(const char *bus, const char *disk, const char *name)
{
	char rel[256], tgt[256];
	if (disk)
		str_printf(rel, sizeof rel, "devices/%s/block/%s/%s", bus, disk, name);
	else
		str_printf(rel, sizeof rel, "devices/%s/block/%s", bus, name);
	mkdirs(rel);
	str_printf(tgt, sizeof tgt, "../../%s", rel);
	str_printf(rel, sizeof rel, "class/block/%s", name);
	link_to(rel, tgt);
	if (disk) {
		str_printf(rel, sizeof rel, "devices/%s/block/%s/%s/partition", bus, disk, name);
		put(rel, "1\n");
	}
}

static void slave(const char *holder, const char *name)
{
	char rel[256];
	str_printf(rel, sizeof rel, "devices/virtual/block/%s/slaves", holder);
	mkdirs(rel);
	str_printf(rel, sizeof rel, "devices/virtual/block/%s/slaves/%s", holder, name);
	put(rel, "");
}

static void test_walk(void)
{
	char out[LOGDEV_MAX][LOGDEV_NAME], via[200];
	int n;
	str_printf(root, sizeof root, "/tmp/dbtop-sysfs-%d", (int)getpid());
	mkdir(root, 0755);
	mkdirs("class/block");
	mkdirs("dev/block");
	dev("pci0", NULL, "sda");
	dev("pci0", "sda", "sda2");
	dev("pci0", NULL, "sdb");
	dev("pci0", "sdb", "sdb1");
	dev("pci0", NULL, "sdc");
	dev("pci0", NULL, "sdd");
	dev("virtual", NULL, "loop0");
	mkdirs("devices/virtual/block/loop0/loop");
	put("devices/virtual/block/loop0/loop/backing_file", "/srv/disk.img\n");
	dev("virtual", NULL, "dm-0");
	slave("dm-0", "sdb1");
	slave("dm-0", "loop0");
	dev("virtual", NULL, "md0");
	slave("md0", "sdd");
	slave("md0", "sdc");
	link_to("dev/block/8:2", "../../devices/pci0/block/sda/sda2");

	char name[LOGDEV_NAME];
	CHECK(hostio_dev_name(root, 8, 2, name, sizeof name) == 0 && strcmp(name, "sda2") == 0,
	      "major:minor 8:2 names sda2");
	CHECK(hostio_dev_name(root, 9, 9, name, sizeof name) < 0, "an unknown major:minor is not a block device");

	n = hostio_walk(root, "sda2", out, LOGDEV_MAX, via, sizeof via);
	CHECK(n == 1 && strcmp(out[0], "sda") == 0, "a partition: its disk");
	CHECK_STR(via, "sda2 on sda", "the partition's walk says so");

	n = hostio_walk(root, "dm-0", out, LOGDEV_MAX, via, sizeof via);
	CHECK(n == 3 && strcmp(out[0], "dm-0") == 0 && strcmp(out[1], "loop0") == 0 && strcmp(out[2], "sdb") == 0,
	      "device-mapper: itself first, then its slaves (a partition slave to its disk)");
	CHECK(strstr(via, "dm-0 on loop0 sdb1") && strstr(via, "loop0 is a loop device on file /srv/disk.img") &&
	      strstr(via, "sdb1 on sdb"), "the dm walk names its slaves and the loop device's file");

	n = hostio_walk(root, "md0", out, LOGDEV_MAX, via, sizeof via);
	CHECK(n == 3 && strcmp(out[0], "md0") == 0 && strcmp(out[1], "sdc") == 0 && strcmp(out[2], "sdd") == 0,
	      "md: itself, then its members in order");
	CHECK_STR(via, "md0 on sdc sdd", "the md walk names its members");

	n = hostio_walk(root, "loop0", out, LOGDEV_MAX, via, sizeof via);
	CHECK(n == 1 && strcmp(out[0], "loop0") == 0 && strstr(via, "/srv/disk.img"), "a loop device: its file");

	n = hostio_walk(root, "sdq", out, LOGDEV_MAX, via, sizeof via);
	CHECK(n == 1 && strcmp(out[0], "sdq") == 0 && via[0] == '\0', "a device sysfs lacks: itself, nothing more");

	/* a cycle in a damaged tree ends */
	slave("md0", "md0");
	n = hostio_walk(root, "md0", out, LOGDEV_MAX, via, sizeof via);
	CHECK(n >= 1 && n <= LOGDEV_MAX, "a slave cycle ends");

	/* directories -> devices: a real directory whose st_dev the fake tree names */
	char dir[300], rel[64], tgt[128];
	struct stat st;
	str_printf(dir, sizeof dir, "%s/data", root);
	mkdir(dir, 0755);
	if (stat(dir, &st) == 0) {
		str_printf(rel, sizeof rel, "dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
		str_copy(tgt, sizeof tgt, "../../devices/virtual/block/dm-0");
		link_to(rel, tgt);
	}
	struct logdev_map m;
	memset(&m, 0, sizeof m);
	m.ndirs = 2;
	str_copy(m.dirs[0].role, sizeof m.dirs[0].role, "WAL");
	str_printf(m.dirs[0].path, sizeof m.dirs[0].path, "%s/data/../data", root);
	str_copy(m.dirs[1].role, sizeof m.dirs[1].role, "data");
	str_printf(m.dirs[1].path, sizeof m.dirs[1].path, "%s/absent", root);
	hostio_resolve(&m, root);
	bool block_fs = strcmp(m.dirs[0].fs, "tmpfs") != 0 && strcmp(m.dirs[0].fs, "overlay") != 0;
	if (block_fs) {
		CHECK(m.state == LDS_OK && strcmp(m.dirs[0].dev, "dm-0") == 0 && m.ndev == 3 &&
		      strcmp(m.dev[0], "dm-0") == 0, "a directory on dm-0: the map holds dm-0 and its slaves");
		CHECK(strcmp(m.dirs[0].path, dir) == 0, "the path is resolved (symlinks, ..)");
	} else {
		CHECK(m.state == LDS_NOBLOCK && strstr(m.note, "no block device"), "a temporary directory on tmpfs");
	}
	CHECK(strstr(m.note, "not visible here") || !block_fs, "a directory that is not there: the note says so");

	/* /proc/diskstats from a fake /proc */
	char proc[300];
	str_printf(proc, sizeof proc, "%s/proc", root);
	mkdirs("proc");
	put("proc/diskstats", " 253 0 dm-0 0 0 0 0 10 0 80 90 2 50 95 0 0 0 0 3 6\n");
	struct logdev_sample s;
	CHECK(hostio_read(&m, proc, 0, NULL, &s) == 0 && s.read, "a fake /proc/diskstats is read");
	CHECK(!block_fs || (s.d[0].nfields == 17 && s.d[0].fl_ticks == 6 && s.d[1].nfields == 0),
	      "its device read, the others gone");
	CHECK(hostio_read(&m, "/nonexistent-proc", 0, NULL, &s) < 0 && !s.read, "no /proc/diskstats: not read");

	/* two connections on this host: one read of the file per refresh */
	double ta = 0, tb = 0;
	struct logdev_sample sa, sb;
	unsigned r0 = hostio_readings();
	CHECK(hostio_read(&m, proc, 10, &ta, &sa) == 0 && hostio_readings() == r0 + 1 && sa.at > 0 && ta == sa.at,
	      "the first connection reads /proc/diskstats");
	put("proc/diskstats", " 253 0 dm-0 0 0 0 0 20 0 80 90 2 50 95 0 0 0 0 3 6\n");
	CHECK(hostio_read(&m, proc, 10, &tb, &sb) == 0 && hostio_readings() == r0 + 1 && sb.at == sa.at &&
		      (!block_fs || sb.d[0].wr_ios == 10),
	      "the second within the window: the same text, not read again");
	CHECK(hostio_read(&m, proc, 10, &ta, &sa) == 0 && hostio_readings() == r0 + 2 && sa.at > sb.at &&
		      (!block_fs || sa.d[0].wr_ios == 20),
	      "the first again: it parsed that text already, so the file is read again");
	usleep(20000);
	CHECK(hostio_read(&m, proc, 0.01, &tb, &sb) == 0 && hostio_readings() == r0 + 3,
	      "a text older than the window: read again");

	char cmd[400];
	str_printf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", root);
}

static struct diskstat ds(uint64_t wr, uint64_t wticks, uint64_t io, uint64_t q, uint64_t fl, uint64_t fticks, int nf)
{
	struct diskstat d;
	memset(&d, 0, sizeof d);
	str_copy(d.name, sizeof d.name, "sda");
	d.nfields = nf;
	d.wr_ios = wr, d.wr_sectors = wr * 8, d.wr_ticks = wticks, d.io_ticks = io, d.time_in_queue = q;
	d.fl_ios = fl, d.fl_ticks = fticks;
	return d;
}

static void test_derive(void)
{
	struct logdev_rates r;
	struct diskstat a = ds(1000, 500, 10000, 20000, 100, 300, 17);
	struct diskstat b = ds(1200, 900, 10500, 21500, 150, 700, 17);
	CHECK(logdev_derive(&a, &b, 2.0, &r) && r.ok, "two readings 2 s apart");
	CHECK_NEAR(r.writes_s, 100, 1e-9, "writes/s: 200 writes in 2 s");
	CHECK_NEAR(r.wkb_s, 400, 1e-9, "KiB/s: 1600 sectors of 512 B in 2 s");
	CHECK_NEAR(r.w_await_ms, 2, 1e-9, "write await: 400 ms over 200 writes");
	CHECK_NEAR(r.flushes_s, 25, 1e-9, "flushes/s: 50 in 2 s");
	CHECK_NEAR(r.f_await_ms, 8, 1e-9, "flush await: 400 ms over 50 flushes");
	CHECK_NEAR(r.util_pct, 25, 1e-9, "utilisation: 500 ms busy of 2000");
	CHECK_NEAR(r.queue, 0.75, 1e-9, "queue depth: 1500 ms of request time in 2000 ms");

	struct diskstat idle = a;
	CHECK(logdev_derive(&a, &idle, 1.0, &r) && r.ok && isnan(r.w_await_ms) && isnan(r.f_await_ms) &&
	      r.writes_s == 0 && r.util_pct == 0, "an idle interval: rates 0, awaits undefined");

	struct diskstat old_a = ds(1000, 500, 10000, 20000, 0, 0, 11), old_b = ds(1100, 600, 10100, 20100, 0, 0, 11);
	CHECK(logdev_derive(&old_a, &old_b, 1.0, &r) && !r.has_flush && isnan(r.flushes_s) && isnan(r.f_await_ms) &&
	      fabs(r.w_await_ms - 1) < 1e-9, "a kernel before 5.5: no flush figures, write await still there");

	struct diskstat over = ds(1000, 500, 10000, 20000, 100, 300, 17), over_b = ds(1000, 500, 13000, 20000, 100, 300, 17);
	CHECK(logdev_derive(&over, &over_b, 2.0, &r) && r.util_pct == 100, "utilisation is at most 100 %");

	/* 32-bit counters wrap */
	bool reset = false;
	CHECK(logdev_delta(UINT32_MAX - 9, 20, &reset) == 30 && !reset, "a 32-bit counter that wrapped is unwrapped");
	reset = false;
	logdev_delta(5000000000ULL, 10, &reset);
	CHECK(reset, "a 64-bit counter that went back is a reset");
	struct diskstat wa = ds(UINT32_MAX - 99, 1000, 5000, 5000, 10, 10, 17), wb = ds(100, 1400, 5500, 5600, 10, 10, 17);
	wb.wr_sectors = wa.wr_sectors + 1600;
	CHECK(logdev_derive(&wa, &wb, 1.0, &r) && fabs(r.writes_s - 200) < 1e-9, "writes across a 32-bit wrap");
	struct diskstat ra = ds(5000000000ULL, 900000, 900000, 900000, 10, 10, 17), rb = ds(10, 5, 5, 5, 1, 1, 17);
	CHECK(!logdev_derive(&ra, &rb, 1.0, &r) && r.why && strstr(r.why, "went back"),
	      "counters that went back (device re-created): no figures, and why");

	struct diskstat za = a, zb = b;
	str_copy(za.name, sizeof za.name, "zd0");
	str_copy(zb.name, sizeof zb.name, "zd0");
	CHECK(logdev_derive(&za, &zb, 2.0, &r) && !r.has_flush && isnan(r.f_await_ms) && fabs(r.w_await_ms - 2) < 1e-9,
	      "a ZFS volume (zd0): no flush figures (ZFS counts none), the write latency instead");

	struct diskstat gone = b;
	gone.nfields = 0;
	CHECK(!logdev_derive(&a, &gone, 1.0, &r) && strstr(r.why, "not in"), "a device gone: no figures, and why");
	CHECK(!logdev_derive(NULL, &b, 1.0, &r) && strstr(r.why, "first"), "the first reading: no figures yet");

	/* the view: per interval, history of the shown device */
	struct logdev_view v;
	struct logdev_sample s1, s2;
	memset(&s1, 0, sizeof s1);
	memset(&s2, 0, sizeof s2);
	s1.read = s2.read = true;
	s1.n = s2.n = 1;
	s1.d[0] = a;
	s2.d[0] = b;
	logdev_view_init(&v, 8);
	logdev_view_update(&v, NULL, &s1, NAN);
	CHECK(v.seen && v.n == 1 && !v.cur[0].ok && isnan(ring_get(&v.flush_ms, 0)), "the view's first interval: none");
	logdev_view_update(&v, &s1, &s2, 2.0);
	CHECK(v.cur[0].ok && fabs(ring_get(&v.flush_ms, 0) - 8) < 1e-9 && fabs(ring_get(&v.util, 0) - 25) < 1e-9,
	      "the view's history: flush await and utilisation");
	s1.at = 10;
	s2.at = 14;
	logdev_view_update(&v, &s1, &s2, 2.0);
	CHECK(fabs(ring_get(&v.util, 0) - 25) < 1e-9 && fabs(ring_get(&v.flush_ms, 0) - 8) < 1e-9,
	      "readings that say when they were read (4 s apart): the rates over the 2 s interval, as a replay");
	logdev_view_update(&v, &s2, NULL, 1.0);
	CHECK(v.n == 0 && isnan(ring_get(&v.util, 0)), "a sample without counters: a gap");
	logdev_view_free(&v);
}

/* Which servers are on this host: sockets and loopback, not other addresses. */
static void test_local(void)
{
	CHECK(source_host_local(NULL) && source_host_local("") && source_host_local("/var/run/postgresql"),
	      "local: the default socket and a socket directory");
	CHECK(source_host_local("localhost") && source_host_local("Localhost via UNIX socket") &&
	      source_host_local("127.0.0.1 via TCP/IP") && source_host_local("127.0.0.1") && source_host_local("::1"),
	      "local: localhost, the MySQL client's host info, loopback addresses");
	CHECK(!source_host_local("10.0.0.5") && !source_host_local("db1.example.com via TCP/IP") &&
	      !source_host_local("127.example.com") && !source_host_local("localhostile"),
	      "remote: other addresses and names (127.example.com is not loopback)");
	struct caps c;
	memset(&c, 0, sizeof c);
	source_logdev_remote(&c, "10.0.0.5");
	CHECK(c.logdev.state == LDS_REMOTE && strstr(c.logdev.note, "need dbtop on the server"),
	      "a remote server: the note says the host figures need dbtop on the server");
}

int main(void)
{
	test_local();
	test_parse_line();
	test_parse_file();
	test_walk();
	test_derive();
	return tap_failed ? 1 : 0;
}
