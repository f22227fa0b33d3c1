/* host_read.h - the host's CPU pressure beside the server (core/hostload.h):
 * finding the server's process once per connection and reading the
 * pressure, the run queue and the server tasks' CPU waits once per
 * refresh, one reading shared by the connections to the same server. The parsers are pure (tests/unit/test_hostload.c); the readers
 * take a proc root ("" or NULL: /proc) so tests can point them at a copy. */
#ifndef DBTOP_SOURCES_HOSTLOAD_H
#define DBTOP_SOURCES_HOSTLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "../core/hostload.h"

#define HOSTLOAD_FDS_MAX 64

/* One server task between two readings. */
struct hostload_task {
	int tid;
	uint64_t run, delay, slices;
};

/* One reading of the host (pressure, run queue, load) and of one
 * server's tasks, shared by the connections to that server
 * (host_read.c): the fleet's targets on one server read its tasks' files
 * once per refresh, not once each. */
struct hostload_srv;

/* What the driver keeps for one connection. */
struct hostload_state {
	int pid;     /* the server's main process; 0: not found (why says so) */
	int threads; /* 1: the tasks are pid's threads (MySQL / MariaDB); 0: its child processes (PostgreSQL) */
	char why[160];
	int nprev;
	struct hostload_task prev[HOSTLOAD_TASKS_MAX];
	uint64_t run, delay, slices; /* cumulative since the connection */
	/* the shared reading it takes (of its server, or of the host alone
	 * when its server is not found), and the monotonic s of the one it
	 * took last: a later refresh takes only a newer one */
	struct hostload_srv *srv;
	double at;
};

/* "some avg10=.. avg60=.. avg300=.. total=N" (the first line of
 * /proc/pressure/cpu): N into *us. Returns 0, or -1 when it is not there. */
int hostload_parse_psi(const char *text, uint64_t *us);
/* "procs_running N" of /proc/stat. Returns 0 or -1. */
int hostload_parse_running(const char *text, uint32_t *n);
/* The first figure of /proc/loadavg x 100. Returns 0 or -1. */
int hostload_parse_loadavg(const char *text, uint32_t *x100);
/* /proc/loadavg's runnable tasks (its fourth field, "4/99": 4), the
 * kernel's same count as /proc/stat's procs_running, in a file of a
 * line instead of one of a line per CPU and interrupt. 0 or -1. */
int hostload_parse_loadavg_running(const char *text, uint32_t *n);
/* "RUN_NS DELAY_NS SLICES" of a task's schedstat. Returns 0 or -1. */
int hostload_parse_schedstat(const char *text, uint64_t *run, uint64_t *delay, uint64_t *slices);
/* Add the tasks of this reading (cur, n) to the cumulative sums: each
 * task also in st->prev adds what it did in between (a task that went
 * back, a reused id, adds nothing); then cur becomes st->prev. */
void hostload_account(struct hostload_state *st, const struct hostload_task *cur, int n);

/* Find the server (st starts again: hostload_close() it first when it
 * keeps files): MySQL / MariaDB from its pid file (@@pid_file), checked
 * to be a mariadbd / mysqld process; PostgreSQL from dbtop's own backend
 * (pg_backend_pid()): its parent, the postmaster. On failure st->pid is 0
 * and st->why says why. */
void hostload_find_mysql(struct hostload_state *st, const char *procroot, const char *pid_file);
void hostload_find_pg(struct hostload_state *st, const char *procroot, long backend_pid);

/* Let go of the shared reading (a connection's end; st stays usable):
 * the server tasks' files it kept open are closed with the last
 * connection that shared them. */
void hostload_close(struct hostload_state *st);
/* The files kept open by every shared reading of the process. */
int hostload_open_files(void);
/* The tasks' schedstat files kept open for st's server (its shared
 * reading's: read again with pread at 0 each refresh, no path walk, at
 * most HOSTLOAD_FDS_MAX a server and a quarter of the process's file
 * limit over all; the rest are opened each time). */
int hostload_kept_files(const struct hostload_state *st);
/* How many times st's shared reading read the files (tests). */
unsigned hostload_readings(const struct hostload_state *st);

/* One refresh into out: the host's figures always (out->read), the server
 * tasks' when st->pid is found. The reading of the same server (or of the
 * host, for st->pid 0) that another connection made less than max_age s
 * ago and after st's last is taken instead of reading the files again
 * (0: always read); out->at says when it was made. Each st adds its own
 * cumulative sums from it (hostload_account). st NULL: the host's figures,
 * read now. Returns 0, or -1 when nothing was read. */
int hostload_read(struct hostload_state *st, const char *procroot, double max_age, struct hostload_sample *out);

#endif
