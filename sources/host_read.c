/* host_read.c - the host's CPU pressure beside the server. See host_read.h. */
#include "host_read.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../util/util.h"

/* schedstat files kept open by every shared reading (__atomic) */
static int kept_files;

/* A task's schedstat file kept open between refreshes. */
struct hostload_fd {
	int tid, fd;
};

/* The shared reading of one server (its main process pid, threads or
 * children) or of the host alone (pid 0), under proc root root: the
 * connections to that server take it while it is younger than their
 * max_age (hostload_read). On the list srvs while a connection has it. */
struct hostload_srv {
	struct hostload_srv *next;
	char *root;
	int pid, threads, refs;
	pthread_mutex_t mu;
	double at;      /* monotonic s of the reading; 0: none yet */
	unsigned reads; /* readings made */
	int ntask;      /* tasks read; -1: the server's process ended */
	bool host_ok;   /* the host's figures were read */
	bool has_psi;
	uint64_t psi_cpu_some_us;
	uint32_t procs_running, ncpu, load1_x100;
	struct hostload_task cur[HOSTLOAD_TASKS_MAX];
	int ids[HOSTLOAD_TASKS_MAX]; /* the tasks listed (task_list) */
	int nids;
	double ids_at; /* monotonic s of that list; 0: list again */
	int nfd;
	struct hostload_fd fds[HOSTLOAD_FDS_MAX];
	/* the host's pressure and load files and the server's list of
	 * children, kept open (file_reread; -1: not open) */
	int psi_fd, load_fd, kids_fd;
};

static pthread_mutex_t srvs_mu = PTHREAD_MUTEX_INITIALIZER;
static struct hostload_srv *srvs;

static const char *proc_of(const char *root)
{
	return root && *root ? root : "/proc";
}

/* A small file into buf (at most len - 1 bytes, NUL-terminated). Returns
 * the length or -1. */
static ssize_t slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = 0, r;
	if (fd < 0)
		return -1;
	while ((size_t)n < len - 1) {
		r = read(fd, buf + n, len - 1 - (size_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	return n;
}

int hostload_parse_psi(const char *text, uint64_t *us)
{
	const char *t;
	char *end;
	if (!text || strncmp(text, "some ", 5) != 0)
		return -1;
	t = strstr(text, "total=");
	if (!t || (strchr(text, '\n') && t > strchr(text, '\n')))
		return -1;
	t += 6;
	if (!isdigit((unsigned char)*t))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(t, &end, 10);
	if (errno || end == t)
		return -1;
	*us = v;
	return 0;
}

int hostload_parse_running(const char *text, uint32_t *n)
{
	const char *p = text;
	while (p && *p) {
		if (strncmp(p, "procs_running ", 14) == 0) {
			char *end;
			unsigned long v = strtoul(p + 14, &end, 10);
			if (end == p + 14 || v > UINT32_MAX)
				return -1;
			*n = (uint32_t)v;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int hostload_parse_loadavg(const char *text, uint32_t *x100)
{
	char *end;
	if (!text || !isdigit((unsigned char)*text))
		return -1;
	double v = strtod(text, &end);
	if (end == text || !(v >= 0) || v > 4e7)
		return -1;
	*x100 = (uint32_t)(v * 100 + 0.5);
	return 0;
}

int hostload_parse_loadavg_running(const char *text, uint32_t *n)
{
	const char *p = text;
	for (int f = 0; f < 3 && p; f++) {
		p = strchr(p, ' ');
		if (p)
			p += strspn(p, " ");
	}
	if (!p || !isdigit((unsigned char)*p))
		return -1;
	char *end;
	unsigned long v = strtoul(p, &end, 10);
	if (*end != '/' || v > UINT32_MAX)
		return -1;
	*n = (uint32_t)v;
	return 0;
}

/* The processors online (sysconf reads /sys each time): looked at again
 * every ONLINE_CPUS_S, whichever target's thread asks. */
#define ONLINE_CPUS_S 10
static long online_cpus(void)
{
	static long n, at;
	long now = (long)clock_mono(), was = __atomic_load_n(&at, __ATOMIC_RELAXED);
	long v = __atomic_load_n(&n, __ATOMIC_RELAXED);
	if (v > 0 && now - was < ONLINE_CPUS_S)
		return v;
	v = sysconf(_SC_NPROCESSORS_ONLN);
	__atomic_store_n(&n, v, __ATOMIC_RELAXED);
	__atomic_store_n(&at, now, __ATOMIC_RELAXED);
	return v;
}

int hostload_parse_schedstat(const char *text, uint64_t *run, uint64_t *delay, uint64_t *slices)
{
	unsigned long long a, b, c;
	if (!text || sscanf(text, "%llu %llu %llu", &a, &b, &c) != 3)
		return -1;
	*run = a;
	*delay = b;
	*slices = c;
	return 0;
}

void hostload_account(struct hostload_state *st, const struct hostload_task *cur, int n)
{
	for (int i = 0; i < n; i++) {
		const struct hostload_task *c = &cur[i];
		for (int k = 0; k < st->nprev; k++) {
			const struct hostload_task *p = &st->prev[k];
			if (p->tid != c->tid)
				continue;
			/* the same id counting back: another task took it */
			if (c->run >= p->run && c->delay >= p->delay && c->slices >= p->slices) {
				st->run += c->run - p->run;
				st->delay += c->delay - p->delay;
				st->slices += c->slices - p->slices;
			}
			break;
		}
	}
	if (n > HOSTLOAD_TASKS_MAX)
		n = HOSTLOAD_TASKS_MAX;
	memcpy(st->prev, cur, (size_t)n * sizeof *cur);
	st->nprev = n;
}

/* The command name of a process ("" when unreadable). */
static void comm_of(const char *procroot, long pid, char *out, size_t len)
{
	char path[PATH_MAX];
	str_printf(path, sizeof path, "%s/%ld/comm", proc_of(procroot), pid);
	if (slurp(path, out, len) < 0)
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

int hostload_open_files(void)
{
	return __atomic_load_n(&kept_files, __ATOMIC_RELAXED);
}

/* A file kept open in e closed. */
static void fd_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The files of e's process closed (its last connection let go, or its
 * process ended). */
static void srv_close_files(struct hostload_srv *e)
{
	for (int i = 0; i < e->nfd; i++)
		close(e->fds[i].fd);
	__atomic_sub_fetch(&kept_files, e->nfd, __ATOMIC_RELAXED);
	e->nfd = 0;
	fd_close(&e->kids_fd);
}

void hostload_close(struct hostload_state *st)
{
	struct hostload_srv *e = st->srv;
	if (!e)
		return;
	st->srv = NULL;
	st->at = 0;
	pthread_mutex_lock(&srvs_mu);
	bool last = --e->refs == 0;
	if (last)
		for (struct hostload_srv **pp = &srvs; *pp; pp = &(*pp)->next)
			if (*pp == e) {
				*pp = e->next;
				break;
			}
	pthread_mutex_unlock(&srvs_mu);
	if (!last)
		return;
	srv_close_files(e);
	fd_close(&e->psi_fd);
	fd_close(&e->load_fd);
	pthread_mutex_destroy(&e->mu);
	free(e->root);
	free(e);
}

int hostload_kept_files(const struct hostload_state *st)
{
	return st->srv ? st->srv->nfd : 0;
}

unsigned hostload_readings(const struct hostload_state *st)
{
	return st->srv ? st->srv->reads : 0;
}

/* The shared reading of st's server (of the host when it has none) under
 * root, found or made. */
static struct hostload_srv *srv_attach(struct hostload_state *st, const char *root)
{
	int pid = st->pid > 0 ? st->pid : 0, threads = pid ? st->threads : 0;
	struct hostload_srv *e;
	pthread_mutex_lock(&srvs_mu);
	for (e = srvs; e; e = e->next)
		if (e->pid == pid && e->threads == threads && e->ntask >= 0 && strcmp(e->root, root) == 0)
			break;
	if (!e) {
		e = xcalloc(1, sizeof *e);
		e->root = xstrdup(root);
		e->pid = pid;
		e->threads = threads;
		e->psi_fd = e->load_fd = e->kids_fd = -1;
		pthread_mutex_init(&e->mu, NULL);
		e->next = srvs;
		srvs = e;
	}
	e->refs++;
	pthread_mutex_unlock(&srvs_mu);
	st->srv = e;
	st->at = 0;
	return e;
}

/* (a state found again lets go of its earlier server's reading first) */
static void st_reset(struct hostload_state *st)
{
	hostload_close(st);
	memset(st, 0, sizeof *st);
}

/* May one more schedstat file stay open? A quarter of the soft file
 * limit over the process (the fleet's connections and their sockets
 * keep the rest). */
static bool keep_budget(void)
{
	static int limit = -1;
	int l = __atomic_load_n(&limit, __ATOMIC_RELAXED);
	if (l < 0) {
		struct rlimit r;
		l = getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY ? (int)(r.rlim_cur / 4) : 256;
		__atomic_store_n(&limit, l, __ATOMIC_RELAXED);
	}
	if (__atomic_add_fetch(&kept_files, 1, __ATOMIC_RELAXED) <= l)
		return true;
	__atomic_sub_fetch(&kept_files, 1, __ATOMIC_RELAXED);
	return false;
}

/* A task's schedstat into buf (NUL-terminated): from its file kept open in
 * e (hint: where to look first), else opened at path and kept in kept[]
 * while room and budget allow, else read whole and closed. The file kept
 * for the task moves to kept[*nkept]. Returns the length or -1. */
static ssize_t task_stat(struct hostload_srv *e, int tid, const char *path, char *buf, size_t len,
			 struct hostload_fd *kept, int *nkept, int *hint)
{
	for (int k = 0; k < e->nfd; k++) {
		int i = (*hint + k) % e->nfd;
		if (e->fds[i].tid != tid || e->fds[i].fd < 0)
			continue;
		*hint = i + 1;
		int fd = e->fds[i].fd;
		e->fds[i].fd = -1;
		ssize_t r = pread(fd, buf, len - 1, 0);
		if (r > 0) {
			buf[r] = '\0';
			kept[(*nkept)++] = (struct hostload_fd){tid, fd};
			return r;
		}
		close(fd);
		__atomic_sub_fetch(&kept_files, 1, __ATOMIC_RELAXED);
		break;
	}
	if (*nkept >= HOSTLOAD_FDS_MAX || !keep_budget())
		return slurp(path, buf, len);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r = fd < 0 ? -1 : pread(fd, buf, len - 1, 0);
	if (r <= 0) {
		if (fd >= 0)
			close(fd);
		__atomic_sub_fetch(&kept_files, 1, __ATOMIC_RELAXED);
		return -1;
	}
	buf[r] = '\0';
	kept[(*nkept)++] = (struct hostload_fd){tid, fd};
	return r;
}

/* The files of tasks gone since the last reading are closed; kept[] (the
 * files of this reading's tasks) becomes e's. */
static void keep_files(struct hostload_srv *e, const struct hostload_fd *kept, int nkept)
{
	for (int i = 0; i < e->nfd; i++)
		if (e->fds[i].fd >= 0) {
			close(e->fds[i].fd);
			__atomic_sub_fetch(&kept_files, 1, __ATOMIC_RELAXED);
		}
	memcpy(e->fds, kept, (size_t)nkept * sizeof *kept);
	e->nfd = nkept;
}

void hostload_find_mysql(struct hostload_state *st, const char *procroot, const char *pid_file)
{
	char buf[64], comm[32];
	st_reset(st);
	st->threads = 1;
	if (!pid_file || !*pid_file) {
		str_copy(st->why, sizeof st->why, "the server named no pid file (@@pid_file)");
		return;
	}
	if (slurp(pid_file, buf, sizeof buf) <= 0) {
		str_printf(st->why, sizeof st->why, "its pid file is not readable here (%s): %.80s", strerror(errno),
			   pid_file);
		text_sanitize(st->why);
		return;
	}
	char *end;
	long pid = strtol(buf, &end, 10);
	if (end == buf || pid <= 0 || pid > INT_MAX) {
		str_copy(st->why, sizeof st->why, "its pid file holds no process id");
		return;
	}
	comm_of(procroot, pid, comm, sizeof comm);
	if (strcmp(comm, "mariadbd") != 0 && strcmp(comm, "mysqld") != 0) {
		str_printf(st->why, sizeof st->why, "process %ld of its pid file is not mariadbd / mysqld here (%s)",
			   pid, comm[0] ? comm : "gone");
		text_sanitize(st->why);
		return;
	}
	st->pid = (int)pid;
}

void hostload_find_pg(struct hostload_state *st, const char *procroot, long backend_pid)
{
	char path[PATH_MAX], buf[2048], comm[32];
	st_reset(st);
	st->threads = 0;
	if (backend_pid <= 0) {
		str_copy(st->why, sizeof st->why, "dbtop's backend gave no process id");
		return;
	}
	comm_of(procroot, backend_pid, comm, sizeof comm);
	if (strncmp(comm, "postgres", 8) != 0) {
		str_printf(st->why, sizeof st->why,
			   "dbtop's backend (process %ld) is not a postgres process here: the "
			   "server runs in another process namespace",
			   backend_pid);
		return;
	}
	str_printf(path, sizeof path, "%s/%ld/status", proc_of(procroot), backend_pid);
	if (slurp(path, buf, sizeof buf) <= 0) {
		str_copy(st->why, sizeof st->why, "dbtop's backend's /proc status is not readable");
		return;
	}
	const char *pp = strstr(buf, "\nPPid:");
	long ppid = pp ? strtol(pp + 6, NULL, 10) : 0;
	comm_of(procroot, ppid, comm, sizeof comm);
	if (ppid <= 1 || ppid > INT_MAX ||
	    (strncmp(comm, "postgres", 8) != 0 && strncmp(comm, "postmaster", 10) != 0)) {
		str_copy(st->why, sizeof st->why, "the postmaster (dbtop's backend's parent) was not found");
		return;
	}
	st->pid = (int)ppid;
}

/* A full list of the server's tasks (HOSTLOAD_TASKS_MAX: it has more
 * than are read) is kept this long. Its tasks are the oldest (the kernel
 * lists a process's children and threads oldest first), so it changes
 * only when one of them ends, and a task gone lists them again at the
 * next refresh. Listing them is not free: the kernel walks the children
 * list (PostgreSQL with 2,500 backends: 7-8 % of dbtop's CPU when they
 * were listed at every refresh). A list that is not full (every task
 * read) is listed at every refresh, so that a new task counts at once. */
#define TASK_LIST_KEEP_S 5.0

/* The ids of the server's tasks: pid's threads, or its children (the
 * first max). */
static int task_ids(struct hostload_srv *e, int *ids, int max)
{
	char path[PATH_MAX];
	int n = 0;
	if (e->threads) {
		str_printf(path, sizeof path, "%s/%d/task", e->root, e->pid);
		DIR *d = opendir(path);
		struct dirent *de;
		if (!d)
			return -1;
		while ((de = readdir(d)) && n < max) {
			char *end;
			long t = strtol(de->d_name, &end, 10);
			if (*end == '\0' && t > 0 && t <= INT_MAX)
				ids[n++] = (int)t;
		}
		closedir(d);
		return n;
	}
	/* room for max ids of up to 11 characters and their spaces: the
	 * kernel makes only as much of the list as is read */
	char buf[HOSTLOAD_TASKS_MAX * 12 + 1];
	str_printf(path, sizeof path, "%s/%d/task/%d/children", e->root, e->pid, e->pid);
	long len = file_reread(&e->kids_fd, path, buf, sizeof buf);
	if (len == 0) {
		/* no children, or the process gone: its kept file then reads
		 * empty, and only opening the path again tells */
		fd_close(&e->kids_fd);
		len = file_reread(&e->kids_fd, path, buf, sizeof buf);
	}
	if (len < 0)
		return -1;
	if ((size_t)len == sizeof buf - 1) {
		/* cut: the last id may be a part of one */
		char *sp = strrchr(buf, ' ');
		*(sp ? sp : buf) = '\0';
	}
	for (char *p = buf; *p && n < max;) {
		char *end;
		long t = strtol(p, &end, 10);
		if (end == p)
			break;
		if (t > 0 && t <= INT_MAX)
			ids[n++] = (int)t;
		p = end;
	}
	return n;
}

/* The host's figures under root into e: the pressure, the load and run
 * queue, the CPUs online. */
static void read_host(struct hostload_srv *e, const char *root)
{
	char path[PATH_MAX], buf[4096];
	e->has_psi = e->host_ok = false;
	e->psi_cpu_some_us = 0;
	e->procs_running = e->load1_x100 = 0;
	str_printf(path, sizeof path, "%s/pressure/cpu", root);
	if (file_reread(&e->psi_fd, path, buf, sizeof buf) > 0 && hostload_parse_psi(buf, &e->psi_cpu_some_us) == 0)
		e->has_psi = true;
	str_printf(path, sizeof path, "%s/loadavg", root);
	bool running = false;
	if (file_reread(&e->load_fd, path, buf, sizeof buf) > 0) {
		(void)hostload_parse_loadavg(buf, &e->load1_x100);
		running = hostload_parse_loadavg_running(buf, &e->procs_running) == 0;
	}
	if (!running) {
		/* procs_running is near the end of /proc/stat: read it whole */
		char *big = xmalloc(65536);
		str_printf(path, sizeof path, "%s/stat", root);
		if (slurp(path, big, 65536) > 0)
			(void)hostload_parse_running(big, &e->procs_running);
		free(big);
	}
	long nc = online_cpus();
	e->ncpu = nc > 0 ? (uint32_t)nc : 0;
	e->host_ok = e->has_psi || e->procs_running || e->load1_x100;
}

/* The server's tasks listed into e->ids (kept: TASK_LIST_KEEP_S), their
 * count or -1 (the server's process ended). */
static int task_list(struct hostload_srv *e, double now)
{
	if (e->ids_at > 0 && e->nids == HOSTLOAD_TASKS_MAX && now - e->ids_at < TASK_LIST_KEEP_S)
		return e->nids;
	int n = task_ids(e, e->ids, HOSTLOAD_TASKS_MAX);
	e->nids = n < 0 ? 0 : n;
	e->ids_at = n < 0 ? 0 : now;
	return n;
}

/* The server's tasks into e->cur (e->ntask; -1: its process ended). */
static void read_tasks(struct hostload_srv *e, double now)
{
	char path[PATH_MAX], buf[256];
	int n = task_list(e, now), k = 0, nkept = 0, hint = 0;
	const int *ids = e->ids;
	bool kept_list = n > 0 && e->ids_at != now; /* not listed just now */
	struct hostload_fd kept[HOSTLOAD_FDS_MAX];
	for (int i = 0; i < n; i++) {
		if (e->threads)
			str_printf(path, sizeof path, "%s/%d/task/%d/schedstat", e->root, e->pid, ids[i]);
		else
			str_printf(path, sizeof path, "%s/%d/schedstat", e->root, ids[i]);
		if (task_stat(e, ids[i], path, buf, sizeof buf, kept, &nkept, &hint) <= 0) {
			e->ids_at = 0; /* a task gone: list them again at the next refresh */
			continue;
		}
		e->cur[k].tid = ids[i];
		if (hostload_parse_schedstat(buf, &e->cur[k].run, &e->cur[k].delay, &e->cur[k].slices) == 0)
			k++;
	}
	keep_files(e, kept, nkept);
	if (kept_list && k == 0) {
		/* every task of the kept list gone (a restart?): list them now */
		e->ids_at = 0;
		read_tasks(e, now);
		return;
	}
	e->ntask = n < 0 ? -1 : k;
	if (n < 0)
		srv_close_files(e);
}

/* e read again (its lock held) unless its reading is younger than max_age
 * at now and newer than the one st took last. */
static void srv_refresh(struct hostload_srv *e, const struct hostload_state *st, double max_age, double now)
{
	if (e->at > 0 && e->at > st->at && now - e->at < max_age)
		return;
	read_host(e, e->root);
	if (e->host_ok && e->pid > 0 && e->ntask >= 0)
		read_tasks(e, now);
	e->at = now;
	e->reads++;
}

/* The host's figures of e into out. */
static void host_out(const struct hostload_srv *e, struct hostload_sample *out)
{
	out->has_psi = e->has_psi;
	out->psi_cpu_some_us = e->psi_cpu_some_us;
	out->procs_running = e->procs_running;
	out->load1_x100 = e->load1_x100;
	out->ncpu = e->ncpu;
	out->read = true;
	out->at = e->at;
}

int hostload_read(struct hostload_state *st, const char *procroot, double max_age, struct hostload_sample *out)
{
	memset(out, 0, sizeof *out);
	if (!st) {
		struct hostload_srv e = {.psi_fd = -1, .load_fd = -1, .kids_fd = -1};
		read_host(&e, proc_of(procroot));
		fd_close(&e.psi_fd);
		fd_close(&e.load_fd);
		if (!e.host_ok)
			return -1;
		host_out(&e, out);
		out->at = clock_mono();
		return 0;
	}
	struct hostload_srv *e = st->srv ? st->srv : srv_attach(st, proc_of(procroot));
	pthread_mutex_lock(&e->mu);
	srv_refresh(e, st, max_age, clock_mono());
	if (!e->host_ok) {
		pthread_mutex_unlock(&e->mu);
		return -1;
	}
	host_out(e, out);
	st->at = e->at;
	bool ended = st->pid > 0 && e->ntask < 0;
	if (st->pid > 0 && !ended) {
		hostload_account(st, e->cur, e->ntask);
		out->srv_tasks = (uint32_t)e->ntask;
		out->srv_run_ns = st->run;
		out->srv_delay_ns = st->delay;
		out->srv_slices = st->slices;
	}
	pthread_mutex_unlock(&e->mu);
	if (ended) {
		/* the next refresh takes the host's reading alone */
		hostload_close(st);
		str_copy(st->why, sizeof st->why, "the server's process ended (a restart)");
		st->pid = 0;
	}
	if (st->pid <= 0)
		str_copy(out->srv_why, sizeof out->srv_why,
			 st->why[0] ? st->why : "the server's process was not found");
	return 0;
}
