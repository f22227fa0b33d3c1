/* host_rates.h - the host's CPU pressure beside the server per interval,
 * from two readings (core/hostload.h): the kernel's CPU pressure, the run
 * queue against the cores, and how long the server's own tasks waited for
 * a CPU each time they ran. It tells a commit that waits on the disk from
 * one that waits for a CPU above the disk (model/findings.c). Pure. */
#ifndef DBTOP_MODEL_HOSTLOAD_H
#define DBTOP_MODEL_HOSTLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/hostload.h"

/* The server waits for a CPU when its tasks spend at least half of the
 * time they want a CPU waiting for one (a 2-core host with the server,
 * its 16 clients and a test run beside it: 65-77 %; with stress-ng on
 * both cores as well: 66-97 %), and want at least a tenth of a core, run
 * and wait together (an idle server's few wake-ups give any share; a
 * starved server runs little because it waits: at 97 % waiting, 0.05
 * cores run are 1.7 cores wanted) (docs/screen.md "Findings") */
#define HOST_WAIT_BUSY_PCT 50.0
#define HOST_CPU_MIN_CORES 0.1
/* without the server's tasks (not readable): the kernel's CPU pressure
 * and a run queue above the cores */
#define HOST_PSI_BUSY_PCT 50.0

/* One interval. A figure is NaN when unknown. */
struct host_view {
	bool seen;           /* a sample carried host figures */
	bool ok;             /* this interval's figures are there */
	const char *why;     /* when not ok */
	double cpu_some_pct; /* share of the interval in which some runnable task waited for a CPU (PSI) */
	double run_queue;    /* runnable tasks now besides dbtop's reader */
	int ncpu;
	double load1;
	int srv_tasks;       /* server tasks read */
	double srv_cpu;      /* their CPU use, in cores */
	double srv_wait_ms;  /* their wait for a CPU each time one ran */
	double srv_wait_pct; /* their wait as a share of their run + wait */
	char srv_why[96];    /* the server's tasks not read: why */
};

/* The interval dt (s) from prev (NULL or not read: the first) to cur
 * (NULL: the server not up; not read: not on this host or not recorded): the samples' interval, also for a reading
 * shared by several connections (a few ms from the sample's own time):
 * a recording keeps the readings, not their times, and its replay shows
 * what the screen showed. */
void host_view_update(struct host_view *v, const struct hostload_sample *prev, const struct hostload_sample *cur,
		      double dt);
/* The server's tasks wait for a CPU (or, their waits unknown, the host
 * is under CPU pressure with more runnable tasks than cores). */
/* The cores the server's tasks wanted this interval: run + wait (NaN when
 * unknown). */
double host_view_wanted(const struct host_view *v);
bool host_view_busy(const struct host_view *v);
/* The same with the thresholds (the server's wait share, the kernel's
 * pressure) times f: a margin around the boundary. */
bool host_view_busy_by(const struct host_view *v, double f);
/* The host itself under CPU pressure (the kernel's PSI "some" share) with
 * more runnable tasks than cores, whatever the server's tasks wait: its
 * clients may be starved. */
bool host_view_pressured(const struct host_view *v);
/* "CPU pressure 85%, run queue 6 on 2 cores, the server's threads wait
 * 2.1 ms for a CPU each time they run (48 read)" into buf. */
void host_view_text(const struct host_view *v, char *buf, size_t len);

#endif
