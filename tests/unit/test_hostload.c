/* test_hostload.c - the host's CPU beside the server: the /proc parsers,
 * the per-task sums across readings (a task gone, a reused id), the
 * server found on a fake /proc tree, one reading shared by the
 * connections to a server, the figures per interval and what counts as a
 * busy host; and one reading of this machine's /proc. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../model/host_rates.h"
#include "../../sources/host_read.h"
#include "../../util/util.h"
#include "tap.h"

static void test_parsers(void)
{
	uint64_t us = 0, a = 0, b = 0, c = 0;
	uint32_t n = 0, l = 0;
	CHECK(hostload_parse_psi("some avg10=64.75 avg60=45.29 avg300=14.59 total=54282879\nfull avg10=0.00 avg60=0.00 "
				 "avg300=0.00 total=0\n", &us) == 0 && us == 54282879,
	      "PSI: the some line's total");
	CHECK(hostload_parse_psi("full avg10=0.00 total=12\n", &us) < 0, "PSI: no some line: not read");
	CHECK(hostload_parse_psi("some avg10=1.00\nfull total=5\n", &us) < 0, "PSI: a total on the full line only: not read");
	CHECK(hostload_parse_psi("some total=x", &us) < 0, "PSI: a total that is no number: not read");
	CHECK(hostload_parse_running("cpu  1 2 3\nintr 5 6\nctxt 9\nprocs_running 4\nprocs_blocked 0\n", &n) == 0 && n == 4,
	      "/proc/stat: procs_running");
	CHECK(hostload_parse_running("cpu  1 2 3\n", &n) < 0, "/proc/stat without procs_running: not read");
	CHECK(hostload_parse_loadavg("2.77 0.96 0.34 4/99 7572\n", &l) == 0 && l == 277, "/proc/loadavg: 2.77 -> 277");
	CHECK(hostload_parse_loadavg("-1 0 0", &l) < 0, "/proc/loadavg: a negative load: not read");
	CHECK(hostload_parse_loadavg_running("2.77 0.96 0.34 4/99 7572\n", &n) == 0 && n == 4,
	      "/proc/loadavg: 4 runnable of 99");
	CHECK(hostload_parse_loadavg_running("2.77 0.96 0.34\n", &n) < 0 &&
		      hostload_parse_loadavg_running("2.77 0.96 0.34 x/99 1\n", &n) < 0,
	      "/proc/loadavg without its runnable count: not read");
	CHECK(hostload_parse_schedstat("5519799 4498212 3\n", &a, &b, &c) == 0 && a == 5519799 && b == 4498212 && c == 3,
	      "schedstat: run, delay, slices");
	CHECK(hostload_parse_schedstat("12 13\n", &a, &b, &c) < 0, "schedstat with two figures: not read");
}

static void test_account(void)
{
	struct hostload_state st;
	memset(&st, 0, sizeof st);
	struct hostload_task r1[] = {{10, 1000, 500, 10}, {11, 2000, 0, 5}};
	hostload_account(&st, r1, 2);
	CHECK(st.run == 0 && st.delay == 0 && st.slices == 0, "the first reading adds nothing");
	struct hostload_task r2[] = {{10, 1600, 900, 14}, {12, 99999, 99999, 99}};
	hostload_account(&st, r2, 2);
	CHECK(st.run == 600 && st.delay == 400 && st.slices == 4,
	      "task 10 adds what it did in between; 11 gone adds nothing; 12 new adds nothing");
	struct hostload_task r3[] = {{10, 100, 50, 1}, {12, 100999, 100999, 100}};
	hostload_account(&st, r3, 2);
	CHECK(st.run == 1600 && st.delay == 1400 && st.slices == 5,
	      "id 10 counting back (another task took it) adds nothing; 12 adds its interval");
}

/* a fake /proc: process PID with comm, status, threads and children */
static void put(const char *dir, const char *rel, const char *text)
{
	char path[512];
	str_printf(path, sizeof path, "%s/%s", dir, rel);
	char *sl = strrchr(path, '/');
	*sl = '\0';
	char cmd[600];
	str_printf(cmd, sizeof cmd, "mkdir -p '%s'", path);
	if (system(cmd) != 0)
		return;
	*sl = '/';
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A /proc copy in a new directory root (a mkdtemp template) with a
 * MariaDB server 4242 of two threads (their schedstat lines), its pid file
 * (path in pidf), the CPU pressure's total and loadavg. False when the
 * directory cannot be made. */
static bool fake_server(char *root, char *pidf, size_t len, const char *t1, const char *t2, const char *psi_total,
			const char *loadavg)
{
	char psi[160];
	if (!mkdtemp(root)) {
		CHECK(0, "a temporary directory");
		return false;
	}
	str_printf(pidf, len, "%s/mysqld.pid", root);
	put(root, "mysqld.pid", "4242\n");
	put(root, "4242/comm", "mariadbd\n");
	put(root, "4242/task/4242/schedstat", t1);
	put(root, "4242/task/4250/schedstat", t2);
	str_printf(psi, sizeof psi, "some avg10=0.00 avg60=0.00 avg300=0.00 total=%s\n", psi_total);
	put(root, "pressure/cpu", psi);
	put(root, "loadavg", loadavg);
	return true;
}

/* The fake /proc's end. */
static void fake_remove(const char *root)
{
	char cmd[600];
	str_printf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		CHECK(0, "cleanup");
}

static void test_fake_proc(void)
{
	char root[] = "/tmp/dbtop-hostload.XXXXXX", pidf[600];
	if (!fake_server(root, pidf, sizeof pidf, "1000000 0 10\n", "3000000 1000000 20\n", "1000000",
			 "1.50 1.00 0.50 3/90 1\n"))
		return;
	put(root, "stat", "cpu 1 2\nprocs_running 7\n");
	struct hostload_state st;
	struct hostload_sample s1, s2;
	memset(&st, 0, sizeof st);
	hostload_find_mysql(&st, root, pidf);
	CHECK(st.pid == 4242 && st.threads == 1, "MariaDB: the pid file's process, a mariadbd");
	CHECK(hostload_read(&st, root, 0, &s1) == 0 && s1.read && s1.has_psi && s1.procs_running == 3 &&
		      s1.load1_x100 == 150 && s1.srv_tasks == 2,
	      "the first reading: PSI, run queue (loadavg's, not /proc/stat's), load and two threads");
	put(root, "4242/task/4250/schedstat", "5000000 4000000 30\n");
	put(root, "4242/task/4242/schedstat", "1500000 0 12\n");
	put(root, "pressure/cpu", "some avg10=10.00 avg60=1.00 avg300=0.10 total=1700000\n");
	CHECK(hostload_read(&st, root, 0, &s2) == 0 && s2.srv_run_ns == 2500000 && s2.srv_delay_ns == 3000000 &&
		      s2.srv_slices == 12,
	      "the second reading: the threads' run, delay and slices in between");
	CHECK(hostload_kept_files(&st) == 2 && hostload_open_files() == 2,
	      "the two threads' schedstat files stay open between readings (read again at 0)");
	{
		char cmd[700];
		str_printf(cmd, sizeof cmd, "rm -rf '%s/4242/task/4250'", root);
		CHECK(system(cmd) == 0, "thread 4250 ends");
	}
	put(root, "4242/task/4242/schedstat", "1600000 0 13\n");
	struct hostload_sample s3;
	CHECK(hostload_read(&st, root, 0, &s3) == 0 && s3.srv_tasks == 1 && hostload_kept_files(&st) == 1 && hostload_open_files() == 1,
	      "a thread gone: its file closed, the other's kept");
	CHECK(s3.srv_run_ns == 2600000 && s3.srv_slices == 13, "... and the one left still counts (0.1 ms, 1 slice more)");
	hostload_close(&st);
	CHECK(hostload_kept_files(&st) == 0 && hostload_open_files() == 0, "the connection's end closes them");
	struct host_view v;
	memset(&v, 0, sizeof v);
	host_view_update(&v, NULL, &s1, 1);
	CHECK(v.seen && !v.ok && v.why && strstr(v.why, "first"), "one reading: seen, no interval yet");
	/* the rates are over the samples' interval, whenever the readings were
	 * made (a recording keeps no reading's time: its replay must show the
	 * same) */
	s1.at = 100;
	s2.at = 102;
	host_view_update(&v, &s1, &s2, 1.0);
	CHECK(v.ok && fabs(v.cpu_some_pct - 70) < 1e-9,
	      "readings made 2 s apart in a 1 s interval: PSI 0.7 s of the 1 s interval, 70% (as its replay)");
	s1.at = s2.at = 0;
	host_view_update(&v, &s1, &s2, 1.0);
	CHECK(v.ok && fabs(v.cpu_some_pct - 70) < 1e-9 && v.run_queue == 2 && v.ncpu > 0,
	      "PSI 0.7 s of 1 s: 70% (a reading without its time: the interval)");
	CHECK(fabs(v.srv_wait_ms - 0.25) < 1e-9 && fabs(v.srv_wait_pct - 3000000.0 / 5500000 * 100) < 1e-9 &&
		      fabs(v.srv_cpu - 0.0025) < 1e-9,
	      "the server's wait: 3 ms over 12 runs = 0.25 ms, 55% of run + wait, 0.0025 cores");
	CHECK(!host_view_busy(&v), "0.0025 cores are not a busy server, whatever the share");
	v.srv_cpu = 0.5;
	CHECK(host_view_busy(&v), "55% waiting on 0.5 cores: busy");
	v.srv_wait_pct = 20;
	CHECK(!host_view_busy(&v), "20% waiting: not busy");
	v.srv_cpu = 0.05;
	v.srv_wait_pct = 97;
	CHECK(host_view_busy(&v) && fabs(host_view_wanted(&v) - 0.05 / 0.03) < 1e-9,
	      "a starved server: 0.05 cores run at 97% waiting are 1.7 cores wanted: busy");
	v.srv_wait_pct = v.srv_cpu = v.srv_wait_ms = NAN;
	v.ncpu = 2;
	v.run_queue = 6;
	v.cpu_some_pct = 85;
	CHECK(host_view_busy(&v), "the server's tasks unread: PSI 85% and 6 runnable on 2 cores: busy");
	v.run_queue = 1;
	CHECK(!host_view_busy(&v), "PSI 85% but 1 runnable on 2 cores: not busy");
	char t[240];
	v.run_queue = 6;
	host_view_text(&v, t, sizeof t);
	CHECK_STR(t, "CPU pressure 85%, run queue 6 on 2 cores", "the host in words");

	/* a pid file naming another program, a missing one */
	put(root, "4242/comm", "bash\n");
	hostload_find_mysql(&st, root, pidf);
	CHECK(st.pid == 0 && strstr(st.why, "not mariadbd"), "a pid file's process that is not the server: not used");
	hostload_find_mysql(&st, root, "/nonexistent/x.pid");
	CHECK(st.pid == 0 && strstr(st.why, "not readable"), "an unreadable pid file: said");
	CHECK(hostload_read(&st, root, 0, &s1) == 0 && s1.read && s1.srv_tasks == 0,
	      "no server process: the host's figures still");
	CHECK(strstr(s1.srv_why, "not readable"), "... and why the server's threads were not read");
	host_view_update(&v, &s1, &s1, 1.0);
	CHECK(strstr(v.srv_why, "not readable"), "the view carries the reason to the screen and JSON");
	host_view_update(&v, &s1, NULL, 1.0);
	CHECK(v.seen && !v.ok && v.why && strstr(v.why, "not up") && !strstr(v.why, "host"),
	      "the server down or stalled: not read while it is not up (not: not on this host)");
	struct hostload_sample remote = {.read = false};
	host_view_update(&v, &s1, &remote, 1.0);
	CHECK(!v.ok && v.why && strstr(v.why, "not on this host"), "a reading not made: not on this host");

	/* PostgreSQL: the backend's parent and its children */
	put(root, "777/comm", "postgres\n");
	put(root, "777/status", "Name:\tpostgres\nPPid:\t700\n");
	put(root, "700/comm", "postgres\n");
	put(root, "700/task/700/children", "701 777 702 ");
	put(root, "701/schedstat", "100 10 1\n");
	put(root, "777/schedstat", "200 20 2\n");
	put(root, "702/schedstat", "300 30 3\n");
	hostload_find_pg(&st, root, 777);
	CHECK(st.pid == 700 && st.threads == 0, "PostgreSQL: the postmaster, dbtop's backend's parent");
	CHECK(hostload_read(&st, root, 0, &s1) == 0 && s1.srv_tasks == 3, "PostgreSQL: its three children read");
	CHECK(hostload_kept_files(&st) == 3, "their three files kept open for the next refresh");
	put(root, "701/schedstat", "400 40 4\n");
	put(root, "700/task/700/children", "701 ");
	CHECK(hostload_read(&st, root, 0, &s2) == 0 && s2.srv_tasks == 1 && s2.srv_run_ns - s1.srv_run_ns == 300 &&
		      s2.srv_slices - s1.srv_slices == 3,
	      "a kept file read again gives the task's new figures");
	CHECK(hostload_kept_files(&st) == 1, "the files of the tasks that ended are closed");
	/* the postmaster ends: its list, kept open, reads empty (as /proc's
	 * does for a process gone), and its path is gone */
	put(root, "700/task/700/children", "");
	{
		char cmd[700];
		str_printf(cmd, sizeof cmd, "rm -rf '%s/700'", root);
		CHECK(system(cmd) == 0, "PostgreSQL: the postmaster's process ends");
	}
	CHECK(hostload_read(&st, root, 0, &s2) == 0 && s2.srv_tasks == 0 && strstr(s2.srv_why, "ended"),
	      tname("PostgreSQL: its kept list of children reads empty: its path opened again, the end said (%s)",
		    s2.srv_why));
	hostload_close(&st);
	CHECK(hostload_kept_files(&st) == 0, "hostload_close: none left open");
	put(root, "700/comm", "postgres\n");

	/* more children than are read: the first HOSTLOAD_TASKS_MAX, their
	 * list kept (TASK_LIST_KEEP_S) until one of them ends */
	{
		char list[4096] = "", name[64];
		size_t at = 0;
		for (int i = 0; i < 200; i++) {
			at += str_printf(list + at, sizeof list - at, "%d ", 2000 + i);
			str_printf(name, sizeof name, "%d/schedstat", 2000 + i);
			put(root, name, "1000 100 1\n");
		}
		put(root, "700/task/700/children", list);
		hostload_find_pg(&st, root, 777);
		CHECK(hostload_read(&st, root, 0, &s1) == 0 && s1.srv_tasks == HOSTLOAD_TASKS_MAX,
		      "200 children: the first 128 read");
		put(root, "700/task/700/children", "2000 ");
		CHECK(hostload_read(&st, root, 0, &s2) == 0 && s2.srv_tasks == HOSTLOAD_TASKS_MAX,
		      "a full list is kept: the next refresh reads the same 128 without listing them");
		char gone[700];
		str_printf(gone, sizeof gone, "rm -f '%s/2100/schedstat'", root);
		CHECK(system(gone) == 0, "child 2100 ends (its file not kept open: beyond the 64 kept)");
		CHECK(hostload_read(&st, root, 0, &s2) == 0 && s2.srv_tasks == HOSTLOAD_TASKS_MAX - 1,
		      "a kept task gone: the others still read");
		CHECK(hostload_read(&st, root, 0, &s2) == 0 && s2.srv_tasks == 1,
		      "... and the next refresh lists them again (now one child)");
		hostload_close(&st);
		/* a list longer than is read is cut at an id's end: 139 ids too
		 * big for a pid (11 characters each), then 1234567 cut short */
		at = 0;
		for (int i = 0; i < 139; i++)
			at += str_printf(list + at, sizeof list - at, "2147483648 ");
		str_printf(list + at, sizeof list - at, "1234567 2000 ");
		put(root, "700/task/700/children", list);
		put(root, "123456/schedstat", "1000 100 1\n");
		hostload_find_pg(&st, root, 777);
		CHECK(hostload_read(&st, root, 0, &s1) == 0 && s1.srv_tasks == 0,
		      "a list cut within an id: the part of it is not taken for a task (123456)");
		hostload_close(&st);
	}
	hostload_find_pg(&st, root, 999);
	CHECK(st.pid == 0 && strstr(st.why, "another process namespace"), "a backend pid not here: said why");
	fake_remove(root);
}

/* Two connections to one server (the fleet's databases on one PostgreSQL,
 * its connections to one MariaDB): one reading of the host and of the
 * server's tasks per refresh, taken by both, each with its own sums. */
static void test_shared(void)
{
	char root[] = "/tmp/dbtop-hlshare.XXXXXX", pidf[600];
	if (!fake_server(root, pidf, sizeof pidf, "1000 0 10\n", "3000 1000 20\n", "5000", "0.50 0.40 0.30 2/90 1\n"))
		return;
	struct hostload_state a, b;
	struct hostload_sample a1, b1, a2, b2, b3;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	hostload_find_mysql(&a, root, pidf);
	hostload_find_mysql(&b, root, pidf);
	CHECK(hostload_read(&a, root, 10, &a1) == 0 && a1.srv_tasks == 2 && hostload_readings(&a) == 1,
	      "the first connection reads the files");
	/* what the files say now is not what the second one is given */
	put(root, "4242/task/4250/schedstat", "3500 1200 22\n");
	put(root, "pressure/cpu", "some avg10=0.00 avg60=0.00 avg300=0.00 total=9000\n");
	CHECK(hostload_read(&b, root, 10, &b1) == 0 && hostload_readings(&b) == 1 && b1.srv_tasks == 2 &&
		      b1.psi_cpu_some_us == 5000 && b1.at == a1.at,
	      "the second, within the window: the same reading, the files not read again");
	CHECK(hostload_open_files() == 2 && hostload_kept_files(&a) == 2 && hostload_kept_files(&b) == 2,
	      "one set of kept files for the two (2 tasks, not 4)");
	CHECK(hostload_read(&a, root, 10, &a2) == 0 && hostload_readings(&a) == 2 && a2.psi_cpu_some_us == 9000 &&
		      a2.at > a1.at,
	      "the first again: it took that reading already, so the files are read again");
	CHECK(a2.srv_run_ns == 500 && a2.srv_delay_ns == 200 && a2.srv_slices == 2,
	      "... its sums: what task 4250 did in between (500 ns run, 200 ns waited, 2 slices)");
	CHECK(hostload_read(&b, root, 10, &b2) == 0 && hostload_readings(&b) == 2 && b2.at == a2.at &&
		      b2.srv_run_ns == 500 && b2.srv_delay_ns == 200 && b2.srv_slices == 2,
	      "the second takes the newer reading: the same sums, from its own previous one");
	put(root, "4242/task/4242/schedstat", "1300 0 11\n");
	usleep(20000);
	CHECK(hostload_read(&b, root, 0.01, &b3) == 0 && hostload_readings(&b) == 3 && b3.srv_run_ns == 800 &&
		      b3.srv_slices == 3,
	      "a reading older than the window: read again (task 4242's 300 ns more)");
	hostload_close(&a);
	CHECK(hostload_open_files() == 2 && hostload_kept_files(&b) == 2,
	      "one connection's end: the files stay open for the other");
	struct hostload_state h1, h2;
	struct hostload_sample s;
	memset(&h1, 0, sizeof h1);
	memset(&h2, 0, sizeof h2);
	hostload_find_mysql(&h1, root, "/nonexistent/x.pid");
	hostload_find_mysql(&h2, root, "/nonexistent/y.pid");
	CHECK(hostload_read(&h1, root, 10, &s) == 0 && hostload_read(&h2, root, 10, &s) == 0 &&
		      hostload_readings(&h2) == 1 && s.read && s.srv_tasks == 0 && strstr(s.srv_why, "not readable"),
	      "two connections whose server is not found: one reading of the host for both");
	CHECK(hostload_readings(&b) == 3, "... apart from the server's own");
	hostload_close(&h1);
	hostload_close(&h2);
	/* the server ends: the connection says so and goes on with the host */
	char cmd[700];
	str_printf(cmd, sizeof cmd, "rm -rf '%s/4242'", root);
	CHECK(system(cmd) == 0, "the server's process ends");
	CHECK(hostload_read(&b, root, 0, &b3) == 0 && b3.srv_tasks == 0 && strstr(b3.srv_why, "ended") && b.pid == 0,
	      "its process gone: said, not read again");
	CHECK(hostload_open_files() == 0, "its files closed");
	CHECK(hostload_read(&b, root, 0, &b3) == 0 && b3.read && strstr(b3.srv_why, "ended"),
	      "the next refresh: the host's figures and the reason");
	hostload_close(&b);
	fake_remove(root);
}

static void test_this_host(void)
{
	struct hostload_sample s;
	CHECK(hostload_read(NULL, NULL, 0, &s) == 0 && s.read && s.ncpu > 0 && s.procs_running >= 1,
	      "this machine's /proc: read, at least one CPU and one runnable task (this one)");
	/* this process as the server: its thread's schedstat kept open and
	 * read again at 0 gives the kernel's new figures, not the first ones */
	struct hostload_state st;
	memset(&st, 0, sizeof st);
	st.pid = (int)getpid();
	st.threads = 1;
	struct hostload_sample a, b;
	CHECK(hostload_read(&st, NULL, 0, &a) == 0 && a.srv_tasks >= 1 && hostload_kept_files(&st) >= 1, "this process's thread: read, kept open");
	volatile double x = 0;
	for (long i = 0; i < 20000000; i++)
		x += (double)i * 1e-9;
	CHECK(hostload_read(&st, NULL, 0, &b) == 0 && b.srv_run_ns > a.srv_run_ns && b.srv_slices >= a.srv_slices,
	      tname("read again at 0 from the kept file: its run time grew (%.2f ms) after a busy loop",
		    (double)(b.srv_run_ns - a.srv_run_ns) / 1e6));
	hostload_close(&st);
}

int main(void)
{
	test_parsers();
	test_account();
	test_fake_proc();
	test_shared();
	test_this_host();
	return tap_failed ? 1 : 0;
}
