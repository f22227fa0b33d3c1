/* hostload.h - the host's CPU pressure beside the server, read by the
 * driver once per refresh when the server runs on this host
 * (sources/host_read.c): the kernel's pressure stall figure for the CPU
 * (/proc/pressure/cpu, Linux 4.20+ with PSI), the run queue against the
 * cores (/proc/stat, /proc/loadavg), and how long the server's own threads
 * waited for a CPU each time they ran (/proc/PID/task/TID/schedstat).
 * Shared by sources (writer), the model (rates), record/replay and the
 * panes. */
#ifndef DBTOP_HOSTLOAD_H
#define DBTOP_HOSTLOAD_H

#include <stdbool.h>
#include <stdint.h>

/* server threads / processes read per refresh: the oldest first (a
 * server's own workers: the log writer, the WAL writer, the first
 * connections); the sample says how many were read */
#define HOSTLOAD_TASKS_MAX 128

/* One refresh. The server figures are cumulative since the connection:
 * the sum over the server's tasks of what each ran, waited and was
 * scheduled between two readings (a task seen once adds nothing), so they
 * only grow and their difference is the interval's. */
struct hostload_sample {
	bool read;                /* read this refresh (else: remote, a replay without them) */
	bool has_psi;             /* /proc/pressure/cpu was there */
	uint64_t psi_cpu_some_us; /* cumulative µs in which some runnable task waited for a CPU */
	uint32_t procs_running;   /* runnable tasks now, dbtop's reader included */
	uint32_t ncpu;            /* online CPUs */
	uint32_t load1_x100;      /* 1-minute load average x 100 */
	uint32_t srv_tasks;       /* server tasks read this refresh (0: none found or readable) */
	uint64_t srv_run_ns;      /* the server tasks' CPU time */
	uint64_t srv_delay_ns;    /* their time runnable but waiting for a CPU */
	uint64_t srv_slices;      /* the times they were put on a CPU */
	char srv_why[96];         /* srv_tasks 0: why (not recorded: a replay says so) */
	double at;                /* monotonic s of the reading (several connections to one server share
				   * one while it is young: sources/host_read.c); not recorded: the
				   * rates are over the samples' interval */
};

#endif
