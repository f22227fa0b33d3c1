/* service.c - the incident capture's options, SIGUSR1, and the list of
 * kept incidents. See service.h. */
#include "service.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tui/incident_list.h"
#include "../util/util.h"

volatile sig_atomic_t service_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	service_usr1++;
}

void service_catch_usr1(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
}

void service_defaults(struct service_args *a)
{
	memset(a, 0, sizeof *a);
	a->before = 300;
	a->after = 120;
	a->cooldown = 300;
	a->max_mb = 1024;
	a->max_count = 200;
	a->interval = 1;
}

/* Add trigger text (where: for messages) to cfg. */
static int add_trigger(struct incident_cfg *cfg, const char *text, const char *where, char *err, size_t errlen)
{
	char why[300];
	if (cfg->ntrig == INC_TRIGGERS_MAX) {
		str_printf(err, errlen, "%s: at most %d triggers", where, INC_TRIGGERS_MAX - 2);
		return -1;
	}
	if (trigger_parse(text, &cfg->trig[cfg->ntrig], why, sizeof why) < 0) {
		char t[120];
		str_copy(t, sizeof t, text);
		text_sanitize(t);
		str_printf(err, errlen, "%s: bad trigger '%s': %s", where, t, why);
		return -1;
	}
	cfg->ntrig++;
	return 0;
}

/* --triggers FILE: one a line, # comments. */
static int read_triggers(struct incident_cfg *cfg, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[512], where[600];
	int no = 0, rc = 0;
	if (!f) {
		str_printf(err, errlen, "--triggers %s: %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof line, f)) {
		no++;
		line[strcspn(line, "\r\n#")] = '\0';
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			continue;
		str_printf(where, sizeof where, "%s:%d", path, no);
		rc = add_trigger(cfg, p, where, err, errlen);
	}
	fclose(f);
	return rc;
}

int service_config(struct incident_cfg *cfg, const struct service_args *a, const char *version, char *err,
		   size_t errlen)
{
	memset(cfg, 0, sizeof *cfg);
	str_copy(cfg->dir, sizeof cfg->dir, a->dir);
	cfg->before = a->before;
	cfg->after = a->after;
	cfg->cooldown = a->cooldown;
	cfg->max_len = 3600 + a->after;
	cfg->max_bytes = (uint64_t)(a->max_mb * 1024 * 1024);
	cfg->max_count = (unsigned)a->max_count;
	cfg->redact = a->redact;
	cfg->interval = a->interval;
	cfg->on_incident_timeout = 30;
	if (a->on_incident)
		str_copy(cfg->on_incident, sizeof cfg->on_incident, a->on_incident);
	cfg->manual = &service_usr1;
	cfg->log = stderr;
	cfg->dbtop_version = version;
	/* the defaults first: findings at warning or above, state DOWN */
	trigger_default_findings(&cfg->trig[cfg->ntrig++]);
	if (add_trigger(cfg, "down: state DOWN", "the default", err, errlen) < 0)
		return -1;
	for (int i = 0; i < a->ntrigger; i++)
		if (add_trigger(cfg, a->trigger[i], "--trigger", err, errlen) < 0)
			return -1;
	if (a->triggers_file && read_triggers(cfg, a->triggers_file, err, errlen) < 0)
		return -1;
	/* a finding trigger given ("finding ID", "findings info") replaces the
	 * default one: the findings that start an incident are then chosen */
	for (int i = 2; i < cfg->ntrig; i++)
		if (cfg->trig[i].kind == TK_FINDING || cfg->trig[i].kind == TK_FINDINGS) {
			memmove(&cfg->trig[0], &cfg->trig[1], (size_t)(cfg->ntrig - 1) * sizeof cfg->trig[0]);
			cfg->ntrig--;
			break;
		}
	return 0;
}

/* ---- the list ---- */

static void print_list(const struct incident_entry *e, int n)
{
	printf("# trigger time (UTC)\tserver\ttrigger\tbytes\tstatus\tfile\tsummary\n");
	for (int i = 0; i < n; i++) {
		char t[32] = "?";
		time_t tt = (time_t)e[i].wall;
		struct tm tm;
		if (e[i].wall > 0 && gmtime_r(&tt, &tm))
			strftime(t, sizeof t, "%Y-%m-%d %H:%M:%S", &tm);
		printf("%s\t%s\t%s\t%llu\t%s\t%s\t%s\n", t, e[i].server, e[i].trigger[0] ? e[i].trigger : "?",
		       (unsigned long long)e[i].bytes, e[i].status, e[i].path, e[i].line);
	}
}

/* Replay path with this binary on the terminal; back when it quits. */
static void replay(const char *path, const char *self)
{
	pid_t pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", self, "--replay", path, (char *)NULL);
		execlp(self, self, "--replay", path, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

int service_list(const char *dir, const char *self)
{
	struct incident_entry *e = NULL;
	char err[600];
	const char *term = getenv("TERM");
	int n = incidents_list(dir, &e, err, sizeof err), sel = 0;
	if (n < 0) {
		fprintf(stderr, "dbtop: %s\n", err);
		return 1;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || !term || !*term || strcmp(term, "dumb") == 0) {
		print_list(e, n);
		free(e);
		return 0;
	}
	while (incident_list_pick(dir, e, n, &sel) == 1) {
		replay(e[sel].path, self);
		free(e);
		e = NULL;
		if ((n = incidents_list(dir, &e, err, sizeof err)) < 0) {
			fprintf(stderr, "dbtop: %s\n", err);
			return 1;
		}
	}
	free(e);
	return 0;
}
