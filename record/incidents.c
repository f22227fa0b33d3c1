/* incidents.c - the always-on capture: triggers, the incident file copied
 * from the history spool then written sample by sample, the directory's
 * limits, the program run after each incident. See incidents.h. */
#include "incidents.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../util/util.h"

extern char **environ;

/* The incident files being written in this process (several targets
 * share a directory): never removed to make room. */
#define OPEN_MAX 64
static const char *open_paths[OPEN_MAX];

static void open_note(const char *path, bool on)
{
	for (int i = 0; i < OPEN_MAX; i++)
		if (on ? !open_paths[i] : open_paths[i] == path) {
			open_paths[i] = on ? path : NULL;
			return;
		}
}

static bool is_open(const char *path)
{
	for (int i = 0; i < OPEN_MAX; i++)
		if (open_paths[i] && strcmp(open_paths[i], path) == 0)
			return true;
	return false;
}

static void say(const struct incidents *inc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct incidents *inc, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	text_sanitize(buf);
	if (inc->cfg.log) {
		fprintf(inc->cfg.log, "dbtop: %s: incidents: %s\n", inc->server, buf);
		fflush(inc->cfg.log);
	}
}

/* mkdir -p dir (new parts 0700). */
static void make_dir(const char *dir)
{
	char p[512];
	str_copy(p, sizeof p, dir);
	for (char *c = p + 1; *c; c++)
		if (*c == '/') {
			*c = '\0';
			mkdir(p, 0700);
			*c = '/';
		}
	mkdir(p, 0700);
}

int incidents_open(struct incidents *inc, const struct incident_cfg *cfg, const char *server, char *err,
		   size_t errlen)
{
	struct stat st;
	memset(inc, 0, sizeof *inc);
	inc->cfg = *cfg;
	str_copy(inc->server, sizeof inc->server, server && *server ? server : "server");
	make_dir(cfg->dir);
	if (stat(cfg->dir, &st) < 0 || !S_ISDIR(st.st_mode) || access(cfg->dir, W_OK | X_OK) < 0) {
		str_printf(err, errlen, "cannot write incidents into %s: %s", cfg->dir,
			   errno ? strerror(errno) : "not a directory");
		return -1;
	}
	struct rec_header h;
	memset(&h, 0, sizeof h);
	str_copy(h.host, sizeof h.host, inc->server);
	h.interval = cfg->interval;
	/* the window ahead of a trigger, and a few samples more */
	double keep = cfg->before + 3 * cfg->interval + 5;
	if (hist_open(&inc->hist, keep, NULL, cfg->spool_dir, &h, err, errlen) == 0)
		inc->have_hist = true;
	else
		say(inc, "no history spool (an incident file starts at its trigger): %s", err);
	events_init(&inc->ev);
	inc->ev.live = true;
	if (cfg->manual)
		inc->manual_seen = *cfg->manual;
	inc->stats.failing = false;
	return 0;
}

const struct incident_stats *incidents_stats(const struct incidents *inc)
{
	return inc ? &inc->stats : NULL;
}

void incidents_request(struct incidents *inc)
{
	inc->manual_seen--;   /* differs from the counter: the next feed triggers */
}

/* ---- the directory's limits ---- */

struct dfile {
	char name[300];
	uint64_t bytes;   /* the .dbrec and its summaries */
};

static int dfile_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dfile *)a)->name, ((const struct dfile *)b)->name);
}

/* Bytes of dir/base + ext (0: none). */
static uint64_t size_of(const char *dir, const char *base, const char *ext)
{
	char p[1024];
	struct stat st;
	str_printf(p, sizeof p, "%s/%s%s", dir, base, ext);
	return lstat(p, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

/* No control character in name (a hostile file name never reaches a terminal). */
static bool plain_name(const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* The incident files of dir, oldest first (names begin with the time). */
static size_t dir_files(const char *dir, struct dfile **out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0, cap = 0;
	*out = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		if (l < 7 || l >= sizeof(*out)->name || strcmp(de->d_name + l - 6, ".dbrec") != 0 ||
		    de->d_name[0] < '0' || de->d_name[0] > '9' || !plain_name(de->d_name))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		struct dfile *f = &(*out)[n];
		str_printf(f->name, sizeof f->name, "%.*s", (int)(l - 6), de->d_name);
		f->bytes = size_of(dir, f->name, ".dbrec") + size_of(dir, f->name, ".txt") + size_of(dir, f->name, ".json");
		n++;
	}
	closedir(d);
	if (n)
		qsort(*out, n, sizeof **out, dfile_cmp);
	return n;
}

static void remove_incident(struct incidents *inc, const char *base)
{
	static const char *const ext[] = {".dbrec", ".txt", ".json"};
	char p[1024];
	for (int i = 0; i < 3; i++) {
		str_printf(p, sizeof p, "%s/%s%s", inc->cfg.dir, base, ext[i]);
		unlink(p);
	}
	inc->stats.removed++;
}

/* Keep the directory within the limits counting extra_files more to come
 * and the file being written (whose bytes grow): the oldest others go
 * first. Sets dir_bytes / dir_count to the others that stay. */
static void enforce(struct incidents *inc, unsigned extra_files)
{
	struct dfile *f;
	size_t n = dir_files(inc->cfg.dir, &f);
	uint64_t total = 0, cur = inc->st == INC_OPEN ? inc->w.bytes : 0;
	unsigned count = extra_files;
	char p[1024];
	for (size_t i = 0; i < n; i++) {
		str_printf(p, sizeof p, "%s/%s.dbrec", inc->cfg.dir, f[i].name);
		if (strcmp(p, inc->path) == 0 && inc->st == INC_OPEN)
			f[i].bytes = 0;   /* (counted as cur) */
		total += f[i].bytes;
		count++;
	}
	for (size_t i = 0; i < n; i++) {
		bool over = (inc->cfg.max_count && count > inc->cfg.max_count) ||
			    (inc->cfg.max_bytes && total + cur > inc->cfg.max_bytes);
		if (!over)
			break;
		str_printf(p, sizeof p, "%s/%s.dbrec", inc->cfg.dir, f[i].name);
		if (is_open(p) || (inc->st == INC_OPEN && strcmp(p, inc->path) == 0))
			continue;
		remove_incident(inc, f[i].name);
		say(inc, "removed %s.dbrec (%.0f KB) to stay within the limits", f[i].name, f[i].bytes / 1024.0);
		total -= f[i].bytes;
		count--;
	}
	inc->dir_bytes = total;
	inc->dir_count = count;
	free(f);
}

/* ---- the program run after an incident ---- */

/* The environment without the passwords a client library reads. */
static char **child_env(const struct incidents *inc, const char *path, char *slots[4])
{
	size_t n = 0, k = 0;
	while (environ && environ[n])
		n++;
	char **env = xcalloc(n + 5, sizeof *env);
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "PGPASSWORD=", 11) != 0 && strncmp(environ[i], "MYSQL_PWD=", 10) != 0 &&
		    strncmp(environ[i], "DBTOP_INCIDENT_", 15) != 0)
			env[k++] = environ[i];
	slots[0] = xmalloc(700);
	str_printf(slots[0], 700, "DBTOP_INCIDENT_FILE=%s", path);
	slots[1] = xmalloc(200);
	str_printf(slots[1], 200, "DBTOP_INCIDENT_TRIGGER=%s", inc->hit.id);
	slots[2] = xmalloc(200);
	str_printf(slots[2], 200, "DBTOP_INCIDENT_SERVER=%s", inc->server);
	slots[3] = NULL;
	for (int i = 0; i < 3; i++)
		env[k++] = slots[i];
	env[k] = NULL;
	return env;
}

/* Start --on-incident PROGRAM FILE (no shell; stdin from /dev/null; no
 * descriptor of ours but stdout and stderr). */
static void run_program(struct incidents *inc, const char *path)
{
	int slot = -1;
	for (int i = 0; i < INC_CHILDREN_MAX && slot < 0; i++)
		if (!inc->child[i])
			slot = i;
	if (!inc->cfg.on_incident[0])
		return;
	if (slot < 0) {
		say(inc, "--on-incident not run for %s: %d runs are still going", path, INC_CHILDREN_MAX);
		return;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
#ifdef __GLIBC__
#if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34)
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
#endif
	char *slots[4];
	char **env = child_env(inc, path, slots);
	char *argv[] = {inc->cfg.on_incident, (char *)path, NULL};
	pid_t pid;
	int rc = posix_spawnp(&pid, inc->cfg.on_incident, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	for (int i = 0; i < 3; i++)
		free(slots[i]);
	free(env);
	if (rc != 0) {
		say(inc, "--on-incident %s could not start: %s", inc->cfg.on_incident, strerror(rc));
		return;
	}
	inc->child[slot] = pid;
	inc->child_due[slot] = clock_mono() + inc->cfg.on_incident_timeout;
	inc->child_termed[slot] = false;
	const char *b = strrchr(path, '/');
	str_copy(inc->child_file[slot], sizeof inc->child_file[slot], b ? b + 1 : path);
}

/* Reap the programs that ended (their failure logged); end those past
 * their time (SIGTERM, then SIGKILL 2 s later). */
static void reap(struct incidents *inc, bool force)
{
	for (int i = 0; i < INC_CHILDREN_MAX; i++) {
		int status;
		if (!inc->child[i])
			continue;
		pid_t r = waitpid(inc->child[i], &status, WNOHANG);
		if (r == inc->child[i]) {
			if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
				say(inc, "--on-incident %s %s failed: exit status %d", inc->cfg.on_incident,
				    inc->child_file[i], WEXITSTATUS(status));
			else if (WIFSIGNALED(status))
				say(inc, "--on-incident %s %s failed: %s%s", inc->cfg.on_incident, inc->child_file[i],
				    strsignal(WTERMSIG(status)), inc->child_termed[i] ? " (it ran past its time limit)" : "");
			inc->child[i] = 0;
			continue;
		}
		if (r < 0) {
			inc->child[i] = 0;
			continue;
		}
		if (force || clock_mono() > inc->child_due[i]) {
			kill(inc->child[i], inc->child_termed[i] || force ? SIGKILL : SIGTERM);
			if (!inc->child_termed[i])
				say(inc, "--on-incident %s %s ran past %.0f s: ended", inc->cfg.on_incident, inc->child_file[i],
				    inc->cfg.on_incident_timeout);
			inc->child_termed[i] = true;
			inc->child_due[i] = clock_mono() + 2;
		}
	}
}

/* ---- writing ---- */

/* A write failed (a full disk): the file ends where it is (readable up to
 * its last whole record), said once until a write succeeds again; the
 * sampling goes on. */
static void fail(struct incidents *inc, const char *what, double now)
{
	inc->stats.errors++;
	inc->stats.failing = true;
	if (!inc->said_failing)
		say(inc, "%s; no incident is written until a write succeeds (sampling and /metrics go on; said once)",
		    what);
	inc->said_failing = true;
	if (inc->st == INC_OPEN) {
		rec_close(&inc->w);
		open_note(inc->path, false);
		inc_sum_write(inc->sum, inc, true, "a write failed (the disk is full?): the file ends early");
		inc_sum_free(inc->sum);
		inc->sum = NULL;
		inc->st = INC_IDLE;
		inc->stats.open = false;
	}
	inc->cool_until = now + inc->cfg.cooldown;
}

/* "20261202T031205Z-db1_3306-commit-fsync" */
static void file_base(const struct incidents *inc, double wall, char *buf, size_t len)
{
	char t[32], srv[49], trig[TRIGGER_ID_LEN];
	time_t tt = (time_t)wall;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(t, sizeof t, "%Y%m%dT%H%M%SZ", &tm);
	str_copy(srv, sizeof srv, inc->server);
	str_copy(trig, sizeof trig, inc->hit.id);
	for (char *c = srv; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
		      *c == '-'))
			*c = '_';
	for (char *c = trig; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-'))
			*c = '_';
	str_printf(buf, len, "%s-%s-%s", t, srv, trig);
}

/* The sample of the window to write: its settings, when it has none, as
 * last read before it (a reader sees them from the first sample). */
static void with_settings(struct incidents *inc, size_t i, struct sample *s, struct rec_item *tmp)
{
	char err[256];
	uint64_t ss = inc->hist.e[i].settings_seq;
	long si = ss == UINT64_MAX ? -1 : hist_find_seq(&inc->hist, ss);
	if (s->settings_fresh || si < 0 || (size_t)si >= i || hist_read(&inc->hist, (size_t)si, tmp, err, sizeof err) < 0)
		return;
	s->nsettings = tmp->sample.nsettings;
	memcpy(s->settings, tmp->sample.settings, sizeof s->settings);
	s->settings_fresh = true;
	sample_release(&tmp->sample);
}

/* The first kept sample of the window: the checkpoint (digests whole) at
 * or before trigger - before. */
static size_t window_start(const struct history *h, double from)
{
	size_t k = h->n ? h->n - 1 : 0, j;
	while (k > 0 && h->e[k - 1].wall >= from)
		k--;
	for (j = k + 1; j-- > 0;)
		if (h->e[j].ckpt)
			return j;
	return k;
}

/* The kept window: from window_start to the newest sample (the
 * trigger's). 0, or -1 with err. */
static int copy_window(struct incidents *inc, double from, char *err, size_t errlen)
{
	struct history *h = &inc->hist;
	size_t k = window_start(h, from), j;
	uint32_t gen = UINT32_MAX;
	int rc = 0;
	struct rec_item *it = xmalloc(sizeof *it), *tmp = xmalloc(sizeof *tmp);
	for (j = k; j < h->n && rc == 0; j++) {
		if ((rc = hist_read(h, j, it, err, errlen)) < 0)
			break;
		if (it->sample.conn_gen != gen) {
			const struct caps *c = hist_caps(h, it->sample.conn_gen);
			gen = it->sample.conn_gen;
			if (c)
				rc = rec_write_caps(&inc->w, c, gen, err, errlen);
		}
		if (j == k)
			with_settings(inc, j, &it->sample, tmp);
		if (rc == 0)
			rc = rec_write_sample(&inc->w, &it->sample, err, errlen);
		if (j == k)
			inc->first_wall = it->sample.wall;
		inc->samples++;
		inc_sum_events(inc->sum, it->sample.events);
		sample_release(&it->sample);
	}
	free(it);
	free(tmp);
	return rc;
}

/* The incident's file: created (0600, O_EXCL), its header, the window. */
static int begin_file(struct incidents *inc, const struct model *m, const struct sample *s, char *err, size_t errlen)
{
	char base[300];
	int fd, fdj;
	file_base(inc, s->wall, base, sizeof base);
	if (files_create_pair(inc->cfg.dir, base, "dbrec", "json", &fd, &fdj, inc->path, sizeof inc->path) < 0) {
		str_printf(err, errlen, "cannot create %s: %s", inc->path, strerror(errno));
		return -1;
	}
	close(fdj);   /* (the summary replaces it) */
	struct rec_header h;
	memset(&h, 0, sizeof h);
	str_copy(h.engine, sizeof h.engine, m->have_caps ? flavour_name(m->caps.flavour) : "");
	str_copy(h.server_version, sizeof h.server_version, m->have_caps ? m->caps.version : "");
	str_copy(h.host, sizeof h.host, inc->server);
	str_copy(h.dbtop_version, sizeof h.dbtop_version, inc->cfg.dbtop_version ? inc->cfg.dbtop_version : "");
	h.interval = inc->cfg.interval;
	h.open_at = s->wall;
	str_copy(h.trigger, sizeof h.trigger, inc->hit.id);
	double from = s->wall - inc->cfg.before;
	bool window = inc->have_hist && !inc->hist.stopped && inc->hist.n;
	h.start_wall = window ? inc->hist.e[window_start(&inc->hist, from)].wall : s->wall;
	if (rec_open_write_fd(&inc->w, fd, inc->path, &h, inc->cfg.redact, err, errlen) < 0) {
		/* not even its header: nothing worth keeping */
		char pj[700];
		str_printf(pj, sizeof pj, "%.*s.json", (int)(strlen(inc->path) - 6), inc->path);
		unlink(inc->path);
		unlink(pj);
		return -1;
	}
	open_note(inc->path, true);
	inc->st = INC_OPEN;
	if (window)
		return copy_window(inc, from, err, errlen);
	/* no spool: the trigger's sample alone */
	inc->first_wall = s->wall;
	inc->samples++;
	inc_sum_events(inc->sum, s->events);
	if (m->have_caps && rec_write_caps(&inc->w, &m->caps, s->conn_gen, err, errlen) < 0)
		return -1;
	return rec_write_sample(&inc->w, s, err, errlen);
}

static void count_trigger(struct incident_stats *st, const char *id)
{
	size_t i;
	for (i = 0; i < st->n; i++)
		if (strcmp(st->c[i].trigger, id) == 0)
			break;
	if (i == st->n) {
		if (st->n == INC_COUNTS_MAX)
			i = st->n - 1;   /* (the last one counts the rest) */
		else
			st->n++;
		str_copy(st->c[i].trigger, sizeof st->c[i].trigger, id);
	}
	st->c[i].n++;
}

/* A trigger fired: a new incident (s, the trigger's sample, is the newest in the spool). */
static void begin(struct incidents *inc, const struct model *m, const struct sample *s)
{
	char err[600];
	enforce(inc, 1);
	inc->sum = inc_sum_new(inc->cfg.redact);
	inc->samples = 0;
	inc->trig_wall = s->wall;
	inc->end_wall = s->wall + inc->cfg.after;
	if (begin_file(inc, m, s, err, sizeof err) < 0) {
		fail(inc, err, s->wall);
		inc_sum_free(inc->sum);
		inc->sum = NULL;
		return;
	}
	inc_sum_model(inc->sum, m, inc->cfg.redact);
	count_trigger(&inc->stats, inc->hit.id);
	inc->stats.last_wall = s->wall;
	const char *b = strrchr(inc->path, '/');
	str_copy(inc->stats.last_file, sizeof inc->stats.last_file, b ? b + 1 : inc->path);
	str_copy(inc->stats.last_trigger, sizeof inc->stats.last_trigger, inc->hit.id);
	inc->stats.open = true;
	if (inc->said_failing)
		say(inc, "writing again");
	inc->said_failing = false;
	inc->stats.failing = false;
	say(inc, "%s: %s (%s); kept from %.0f s before it", inc->stats.last_file, inc->hit.id, inc->hit.why,
	    s->wall - inc->first_wall);
	if (inc_sum_write(inc->sum, inc, false, NULL) < 0)
		fail(inc, "cannot write the summary beside the incident file", s->wall);
}

/* The incident is over (cut: why it ended early, NULL: its window closed). */
static void finish(struct incidents *inc, double now, const char *cut)
{
	rec_close(&inc->w);
	open_note(inc->path, false);
	inc->st = INC_IDLE;
	inc->stats.open = false;
	inc->cool_until = now + inc->cfg.cooldown;
	if (inc_sum_write(inc->sum, inc, true, cut) < 0)
		fail(inc, "cannot write the summary beside the incident file", now);
	say(inc, "%s written: %llu samples, %.0f KB%s%s", inc->stats.last_file, (unsigned long long)inc->samples,
	    inc->w.bytes / 1024.0, cut ? "; " : "", cut ? cut : "");
	inc_sum_free(inc->sum);
	inc->sum = NULL;
	run_program(inc, inc->path);
	enforce(inc, 0);
}

/* One more sample of the open incident. */
static void append(struct incidents *inc, const struct model *m, const struct sample *s)
{
	char err[600];
	if (s->conn_gen != inc->gen && m->have_caps && rec_write_caps(&inc->w, &m->caps, s->conn_gen, err, sizeof err) < 0) {
		fail(inc, err, s->wall);
		return;
	}
	if (rec_write_sample(&inc->w, s, err, sizeof err) < 0) {
		fail(inc, err, s->wall);
		return;
	}
	inc->samples++;
	inc_sum_events(inc->sum, s->events);
	inc_sum_model(inc->sum, m, inc->cfg.redact);
}

/* ---- each sample ---- */

/* Evaluate every trigger (each keeps its own hold); the first that holds
 * in *hit, the others told to the summary. True when one holds. */
static bool evaluate(struct incidents *inc, const struct model *m, struct trig_hit *hit)
{
	bool any = false;
	struct trig_hit h;
	if (inc->cfg.manual && *inc->cfg.manual != inc->manual_seen) {
		inc->manual_seen = *inc->cfg.manual;
		memset(hit, 0, sizeof *hit);
		str_copy(hit->id, sizeof hit->id, "manual");
		str_copy(hit->kind, sizeof hit->kind, "manual");
		str_copy(hit->why, sizeof hit->why, "asked for (SIGUSR1): keep what happened now");
		any = true;
	}
	for (int i = 0; i < inc->cfg.ntrig; i++) {
		if (!trigger_eval(&inc->cfg.trig[i], m, &h))
			continue;
		if (!any)
			*hit = h;
		else if (inc->st == INC_OPEN && inc->sum)
			inc_sum_also(inc->sum, &h, m->last.wall);
		any = true;
	}
	if (any && inc->st == INC_OPEN && inc->sum)
		inc_sum_also(inc->sum, hit, m->last.wall);
	return any;
}

/* The events of s: its own, else derived here (the fleet's samples). */
static const struct event_list *sample_events(struct incidents *inc, const struct model *m, const struct sample *s,
					      struct event_list **own)
{
	*own = NULL;
	events_update(&inc->ev, m, s);
	struct event_list *el = events_take_interval(&inc->ev, NULL);
	if (s->events) {
		event_list_free(el);
		return s->events;
	}
	*own = el;
	return el;
}

/* A copy of el with the incident's event at the trigger. */
static struct event_list *mark(const struct incidents *inc, const struct event_list *el, double wall)
{
	struct event_list *out = xcalloc(1, sizeof *out);
	struct event e;
	for (size_t i = 0; el && i < el->n; i++)
		event_list_add(out, &el->ev[i]);
	memset(&e, 0, sizeof e);
	e.kind = EV_INCIDENT;
	e.wall = e.since = wall;
	e.severity = SEV_CRIT;
	str_copy(e.name, sizeof e.name, inc->hit.id);
	str_printf(e.detail, sizeof e.detail, "incident (%s): %s", inc->hit.id, inc->hit.why);
	text_sanitize(e.detail);
	event_list_add(out, &e);
	return out;
}

void incidents_feed(struct incidents *inc, const struct model *m, const struct sample *s)
{
	struct event_list *own, *marked = NULL;
	const struct event_list *el = sample_events(inc, m, s, &own);
	struct trig_hit hit;
	double now = s->wall;
	if (s->conn_gen != inc->gen || !inc->have_gen) {
		if (m->have_caps && inc->have_hist)
			hist_add_caps(&inc->hist, &m->caps, s->conn_gen);
	}
	bool raised = evaluate(inc, m, &hit);
	bool manual = raised && strcmp(hit.kind, "manual") == 0;
	bool start = inc->st == INC_IDLE && raised && (now >= inc->cool_until || manual);
	if (start) {
		inc->hit = hit;
		marked = mark(inc, el, now);
	}
	struct sample tmp = *s;
	tmp.events = marked ? marked : (struct event_list *)el;
	if (inc->have_hist && !inc->hist.stopped && hist_add(&inc->hist, &tmp, m) < 0)
		say(inc, "the history spool stopped (incident files start at their trigger from now on): %s", inc->hist.note);
	if (start)
		begin(inc, m, &tmp);
	else if (inc->st == INC_OPEN)
		append(inc, m, &tmp);
	inc->gen = s->conn_gen;
	inc->have_gen = true;
	if (inc->st == INC_OPEN) {
		if (raised && now + inc->cfg.after > inc->end_wall)
			inc->end_wall = now + inc->cfg.after;
		if (inc->end_wall > inc->trig_wall + inc->cfg.max_len)
			inc->end_wall = inc->trig_wall + inc->cfg.max_len;
		if (inc->cfg.max_bytes && inc->dir_bytes + inc->w.bytes > inc->cfg.max_bytes)
			enforce(inc, 0);
		if (inc->cfg.max_bytes && inc->w.bytes >= inc->cfg.max_bytes)
			finish(inc, now, "cut at --incidents-max-mb");
		else if (now >= inc->end_wall)
			finish(inc, now, NULL);
	}
	reap(inc, false);
	if (marked)
		event_list_free(marked);
	if (own)
		event_list_free(own);
}

void incidents_close(struct incidents *inc)
{
	if (inc->st == INC_OPEN)
		finish(inc, clock_wall(), "dbtop stopped before the incident's end");
	double until = clock_mono() + 2;
	for (;;) {
		bool any = false;
		reap(inc, clock_mono() > until);
		for (int i = 0; i < INC_CHILDREN_MAX; i++)
			any |= inc->child[i] != 0;
		if (!any)
			break;
		sleep_until(clock_mono() + 0.05);
	}
	if (inc->have_hist)
		hist_close(&inc->hist);
	events_free(&inc->ev);
	inc_sum_free(inc->sum);
	inc->sum = NULL;
}

/* ---- listing ---- */

static int entry_cmp(const void *a, const void *b)
{
	double x = ((const struct incident_entry *)a)->wall, y = ((const struct incident_entry *)b)->wall;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* What the summary's first two lines say (the second: status). */
static void read_summary(struct incident_entry *e, const char *dir, const char *base)
{
	char p[1024], status[300] = "";
	str_printf(p, sizeof p, "%s/%s.txt", dir, base);
	int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	str_copy(e->status, sizeof e->status, "writing");
	if (!f) {
		if (fd >= 0)
			close(fd);
		str_copy(e->line, sizeof e->line, "(no summary: dbtop stopped while writing it)");
		return;
	}
	if (fgets(e->line, sizeof e->line, f))
		e->line[strcspn(e->line, "\n")] = '\0';
	if (fgets(status, sizeof status, f))
		str_copy(e->status, sizeof e->status, strncmp(status, "status: complete", 16) == 0 ? "complete"
						     : strncmp(status, "status: cut", 11) == 0 ? "cut" : "writing");
	fclose(f);
	text_sanitize(e->line);
}

int incidents_list(const char *dir, struct incident_entry **out, char *err, size_t errlen)
{
	struct dfile *f;
	DIR *d = opendir(dir);
	if (!d) {
		str_printf(err, errlen, "cannot read %s: %s", dir, strerror(errno));
		return -1;
	}
	closedir(d);
	size_t n = dir_files(dir, &f);
	*out = n ? xcalloc(n, sizeof **out) : NULL;
	for (size_t i = 0; i < n; i++) {
		struct incident_entry *e = &(*out)[i];
		struct rec_reader rd;
		char why[256];
		str_printf(e->path, sizeof e->path, "%s/%s.dbrec", dir, f[i].name);
		e->bytes = f[i].bytes;
		if (rec_open_read(&rd, e->path, NULL, 0, why, sizeof why) == 0) {
			e->wall = rd.hdr.open_at > 0 ? rd.hdr.open_at : rd.hdr.start_wall;
			str_copy(e->server, sizeof e->server, rd.hdr.host);
			str_copy(e->trigger, sizeof e->trigger, rd.hdr.trigger);
			rec_reader_close(&rd);
		}
		text_sanitize(e->server);
		text_sanitize(e->trigger);
		read_summary(e, dir, f[i].name);
	}
	free(f);
	if (n)
		qsort(*out, n, sizeof **out, entry_cmp);
	return (int)n;
}
