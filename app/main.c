/* main.c - command line, connection set-up and the sampling loop. */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <termios.h>
#include <unistd.h>

#include "../config/targets.h"
#include "../config/userconf.h"
#include "../panes/pane.h"
#include "../model/digests.h"
#include "../model/events.h"
#include "../model/model.h"
#include "../record/record.h"
#include "../sources/source.h"
#include "../tune/tuner.h"
#include "../util/util.h"
#include "batch.h"
#include "tour.h"
#include "../run/sampler.h"
#include "../run/target.h"
#include "listen.h"
#include "metrics.h"
#include "service.h"
#include "version.h"
#include "../tui/ui.h"

#define HISTORY_SECONDS 900.0   /* history kept, s */
#define HISTORY_MIN 600         /* intervals kept at least */
#define HISTORY_DEFAULT 3600.0  /* --history, s */

struct opts {
	bool batch;
	long count;               /* records to print; <= 0: until interrupted */
	double interval;          /* s */
	bool json;
	bool ask_password;
	double query_timeout;     /* s */
	double server_budget;     /* --server-budget, ms per refresh */
	const char *record;       /* --record FILE */
	bool redact;
	const char *replay;       /* --replay FILE */
	bool demo;
	const char *demo_name;    /* --demo NAME: that incident alone; "list": list them */
	int demo_at;              /* the incident playing (demo_incidents[]) */
	double speed;             /* replay speed, 0: no waiting */
	double from;              /* replay start offset, s */
	const char *theme;        /* --theme NAME|PATH */
	const char *caption;      /* --caption TEXT */
	int top;                  /* --top N digests per record; -1: 20 in JSON, 5 in text */
	bool wide;                /* --wide: text lines not cut at 160 columns */
	double sample_hz;         /* --sample-hz */
	bool ascii;               /* --ascii */
	bool read_only;           /* --read-only */
	double tune_ttl;          /* --tune-ttl, s; 0: until quit */
	double history;           /* --history, s kept for time travel; 0: none */
	bool sessions;            /* --sessions: every session in each batch record */
	long long explain_id;     /* --explain ID: print that session's plan and exit; 0: none */
	const char *snapshot_dir; /* --snapshot-dir DIR: where w writes; NULL: the current directory */
	const char *targets;      /* --targets FILE */
	struct fleet_list fleet;  /* several targets (TARGET... or --targets): n > 1 */
	const char *listen;       /* --listen [ADDR:]PORT: the /metrics endpoint */
	bool listen_any;          /* --listen-any: a non-loopback address allowed */
	bool no_screen;           /* --no-screen: sample for the endpoint only (no screen, no records) */
	struct service_args inc;  /* --incidents DIR and its options (inc.dir NULL: none) */
	bool inc_opts;            /* an incident option was given */
	bool have_target;         /* a TARGET, --targets or -h / -P / -S / -d was given */
	bool list_incidents;      /* --incidents DIR alone: list them */
	struct uconf cfg;         /* the config file's settings (targets by name) */
	int screen;               /* config "screen": the screen on start (0 the overview) */
	unsigned hide[SCREEN_MAX + 1]; /* config "hide": columns left out, per screen (pane_view.hide) */
};


static volatile sig_atomic_t stop_requested;

/* The arguments as parsed (options point into them until exit); argv
 * itself is scrubbed of passwords. */
static char **args;

/* SIGINT/SIGTERM/SIGHUP: finish the current record and exit. */
static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage_incidents(FILE *f);

/* --help: every option, within 79 columns (docs/options.md and the man
 * page say the same: scripts/check_docs.sh compares them). */
static void usage(FILE *f)
{
	fputs("usage: dbtop [options] [TARGET...]\n"
	      "Where a MySQL, MariaDB or PostgreSQL server is waiting, live (top-like).\n"
	      "  dbtop --demo                        a tour of recorded incidents, no server\n"
	      "  dbtop mysql://monitor@db1/          MySQL / MariaDB (socket: ?socket=PATH)\n"
	      "  dbtop postgresql://monitor@db2/app  PostgreSQL (any libpq URI or key=value)\n"
	      "  dbtop db1 db2                       targets named in the config file\n"
	      "Several TARGETs (at most 64) open the fleet screen. Keys: ? on the screen.\n"
	      "connection:\n"
	      "  -h, --host HOST          server host (-h is not help: that is --help)\n"
	      "  -P, --port PORT          server port\n"
	      "  -u, --user USER          user name\n"
	      "  -S, --socket PATH        MySQL socket file / PostgreSQL socket directory\n"
	      "  -d, --database DB        database\n"
	      "      --engine ENGINE      mysql or postgresql, when the target does not say\n"
	      "      --password           ask for the password (no echo)\n"
	      "      --defaults-file FILE MySQL option file to read instead of ~/.my.cnf\n"
	      "      --targets FILE       several targets, one a line: NAME = TARGET\n"
	      "      --connect-timeout S  connection time limit (default 5)\n"
	      "      --query-timeout S    time limit of each query (default 2)\n"
	      "      --server-budget MS   server time per refresh the costly reads may\n"
	      "                           average (default 10; 0: read all every refresh)\n"
	      "      --ssl-mode MODE      DISABLED, PREFERRED, REQUIRED, VERIFY_CA,\n"
	      "                           VERIFY_IDENTITY (or libpq's sslmode names)\n"
	      "      --ssl-ca FILE        CA certificate of the server's (alone: VERIFY_CA)\n"
	      "      --ssl-cert FILE      client certificate\n"
	      "      --ssl-key FILE       client certificate's private key\n"
	      "screen:\n"
	      "  -i, --interval S         refresh interval, 0.25 to 60 s (default 1)\n"
	      "      --theme NAME|PATH    dark (default), light, mono, high-contrast, a file\n"
	      "      --ascii              no Unicode block or line characters\n"
	      "      --read-only          never act on the server (no kill, cancel, tuning)\n"
	      "      --tune-ttl DURATION  revert each setting change after DURATION (15m)\n"
	      "      --history DURATION   kept to step back through (default 60m; 0: none)\n"
	      "      --snapshot-dir DIR   where w writes its snapshots (default: here)\n"
	      "      --caption TEXT       a line of TEXT above the key bar\n"
	      "batch (no screen, like top -b):\n"
	      "  -b, --batch              print one record per interval\n"
	      "  -n, --count N            print N records, then exit\n"
	      "      --format json|text   record format (default text; json implies -b)\n"
	      "      --top N              statement digests per record (20 JSON, 5 text)\n"
	      "      --wide               text lines are not cut at 160 columns\n"
	      "      --sessions           every session of the server in each record\n"
	      "      --sample-hz N        session samples per second without statement\n"
	      "                           statistics on the server (default 10)\n"
	      "      --explain ID         print the plan of session ID's statement, exit\n"
	      "metrics endpoint:\n"
	      "      --listen [ADDR:]PORT serve /metrics and /healthz (ADDR: 127.0.0.1)\n"
	      "      --listen-any         allow a non-loopback ADDR (no authentication)\n"
	      "      --no-screen          with --listen or --incidents: no screen and no\n"
	      "                           records, until a signal (a service)\n",
	      f);
	usage_incidents(f);
	fputs("record and replay:\n"
	      "      --record FILE        write every raw sample to FILE (mode 0600)\n"
	      "      --redact             replace literals in recorded text with ?\n"
	      "      --replay FILE        show a recording instead of a server\n"
	      "      --speed X            replay speed (default 1; 0: no waiting)\n"
	      "      --from S             start S seconds into the recording\n"
	      "      --demo [NAME|list]   the bundled incidents (> next, < previous)\n"
	      "config file ($XDG_CONFIG_HOME/dbtop/config, else ~/.config/dbtop/config):\n"
	      "      --config FILE        read FILE instead\n"
	      "      --no-config          read none\n"
	      "      --help               this help (man dbtop: everything)\n"
	      "      --version            the version, the commit built, the interface\n"
	      "                           versions (JSON, recordings, metric names)\n",
	      f);
}

/* The incident capture's part of --help (docs/incidents.md). */
static void usage_incidents(FILE *f)
{
	fputs("incident capture (docs/incidents.md):\n"
	      "      --incidents DIR      with --no-screen (or -b) and a server: an incident\n"
	      "                           file (a recording) into DIR when a trigger fires;\n"
	      "                           alone: list the incidents in DIR (Enter replays)\n"
	      "      --before DURATION    kept ahead of the trigger (default 5m)\n"
	      "      --after DURATION     kept after the last trigger held (default 2m)\n"
	      "      --cooldown DURATION  no new incident this long after one (default 5m)\n"
	      "      --trigger EXPR       also a trigger: 'commit latency > 10ms for 5s',\n"
	      "                           'lock waiters >= 3', 'wait class IO > 2 AAS',\n"
	      "                           'state STALLED', 'finding ID' (repeatable)\n"
	      "      --triggers FILE      triggers, one a line\n"
	      "      --incidents-max-mb N incident files kept at most, MB (default 1024)\n"
	      "      --incidents-max-count N\n"
	      "                           incident files kept at most (default 200)\n"
	      "      --on-incident PROGRAM\n"
	      "                           run PROGRAM FILE when an incident file is complete\n",
	      f);
}

/* Where the option being applied comes from: NULL the command line, else
 * "FILE:LINE" of the config file (said before each error). */
static const char *arg_origin;

/* "dbtop: " and the config file's place when the value came from there. */
static void err_prefix(void)
{
	fprintf(stderr, "dbtop: %s%s", arg_origin ? arg_origin : "", arg_origin ? ": " : "");
}

/* The second line of a usage error (the first said what is wrong). */
static void usage_hint(void)
{
	if (arg_origin)   /* the config file's */
		fputs("Fix the file, or start dbtop with --no-config (man dbtop: CONFIGURATION).\n", stderr);
	else
		fputs("Try 'dbtop --help' for the options, or 'dbtop --demo' for a tour.\n", stderr);
}

/* --explain ID: the plan of one session's statement on stdout (never
 * run: see ops->explain), or why not on stderr; the exit status 0 / 1. */
static int explain_and_exit(struct source *src, long long id)
{
	char err[NOTE_LEN] = "";
	char *plan = xmalloc(65536);
	int rc = -1;
	if (!src->ops->explain)
		str_copy(err, sizeof err, "this source cannot explain statements (a recording?)");
	else
		rc = src->ops->explain(src, id, NULL, plan, 65536, err, sizeof err);
	if (rc == 0)
		fputs(plan, stdout);
	else
		fprintf(stderr, "dbtop: explain %lld: %s\n", id, text_sanitize(err));
	free(plan);
	source_close(src);
	return rc == 0 ? 0 : 1;
}

/* Print "what 'arg'" about the command line and exit 2: two lines, the
 * error and where to look. */
static void die_usage(const char *what, const char *arg)
{
	/* the argument may carry a password (--password=..., a second URI) */
	char *c = xstrdup(arg);
	target_scrub_arg(c);
	err_prefix();
	fprintf(stderr, "%s '%s'\n", what, c);
	free(c);
	usage_hint();
	exit(2);
}

/* A value out of range or malformed: the error and where to look; exit 2. */
static void die_value(const char *name, const char *s, const char *expected)
{
	char *c = xstrdup(s);
	err_prefix();
	fprintf(stderr, "bad value for %s: '%s' (expected %s)\n", name, text_sanitize(c), expected);
	free(c);
	usage_hint();
	exit(2);
}

/* Parse a positive number option or exit 2. */
static double num_arg(const char *name, const char *s, double lo, double hi)
{
	char *e, range[80];
	double v = strtod(s, &e);
	if (e == s || *e || !(v >= lo && v <= hi)) {
		str_printf(range, sizeof range, "%g to %g", lo, hi);
		die_value(name, s, range);
	}
	return v;
}

/* Set *slot to a file name option's value, or exit 2 when it is empty. */
static void file_arg(const char *name, const char *s, char **slot)
{
	if (!*s)
		die_value(name, s, "a file name");
	free(*slot);
	*slot = xstrdup(s);
}

/* Parse a duration ("90", "90s", "15m", "1h") or exit 2. */
static double duration_arg(const char *name, const char *s)
{
	char *e;
	double v = strtod(s, &e), mult = 1;
	if (e != s && *e && !e[1]) {
		mult = *e == 's' ? 1 : *e == 'm' ? 60 : *e == 'h' ? 3600 : 0;
		e++;
	}
	if (e == s || *e || mult == 0 || !(v * mult >= 1 && v * mult <= 7 * 86400))
		die_value(name, s, "1s to 7d, e.g. 90s, 15m, 1h");
	return v * mult;
}

/* Read a password from the terminal without echo. Returns a new string. */
static char *prompt_password(void)
{
	FILE *tty = fopen("/dev/tty", "r+");
	struct termios old, quiet;
	char buf[512];
	size_t n;
	FILE *in = tty ? tty : stdin;
	FILE *out = tty ? tty : stderr;
	bool restore = false;

	/* echo off before the prompt: nothing typed early is shown */
	if (tcgetattr(fileno(in), &old) == 0) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		restore = tcsetattr(fileno(in), TCSANOW, &quiet) == 0;
	}
	fputs("Password: ", out);
	fflush(out);
	if (!fgets(buf, sizeof buf, in))
		buf[0] = '\0';
	if (restore)
		tcsetattr(fileno(in), TCSADRAIN, &old);
	fputs("\n", out);
	if (tty)
		fclose(tty);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	char *p = xstrdup(buf);
	memset(buf, 0, sizeof buf);
	return p;
}

enum {
	OPT_ENGINE = 1000, OPT_PASSWORD, OPT_DEFAULTS_FILE, OPT_CONNECT_TIMEOUT,
	OPT_QUERY_TIMEOUT, OPT_FORMAT, OPT_WIDE, OPT_HELP, OPT_VERSION, OPT_RECORD, OPT_REDACT,
	OPT_REPLAY, OPT_SPEED, OPT_FROM, OPT_DEMO, OPT_THEME, OPT_CAPTION, OPT_ASCII, OPT_TOP, OPT_SAMPLE_HZ, OPT_READ_ONLY,
	OPT_TUNE_TTL, OPT_HISTORY, OPT_SSL_MODE, OPT_SSL_CA, OPT_SSL_CERT, OPT_SSL_KEY, OPT_SERVER_BUDGET,
	OPT_SESSIONS, OPT_EXPLAIN, OPT_SNAPSHOT_DIR, OPT_TARGETS, OPT_LISTEN, OPT_LISTEN_ANY, OPT_NO_SCREEN,
	OPT_INCIDENTS, OPT_BEFORE, OPT_AFTER, OPT_COOLDOWN, OPT_TRIGGER, OPT_TRIGGERS, OPT_INC_MAX_MB,
	OPT_INC_MAX_COUNT, OPT_ON_INCIDENT, OPT_CONFIG, OPT_NO_CONFIG,
};

static const struct option long_opts[] = {
	{"host", required_argument, NULL, 'h'},
	{"port", required_argument, NULL, 'P'},
	{"user", required_argument, NULL, 'u'},
	{"socket", required_argument, NULL, 'S'},
	{"database", required_argument, NULL, 'd'},
	{"engine", required_argument, NULL, OPT_ENGINE},
	{"password", no_argument, NULL, OPT_PASSWORD},
	{"defaults-file", required_argument, NULL, OPT_DEFAULTS_FILE},
	{"connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT},
	{"query-timeout", required_argument, NULL, OPT_QUERY_TIMEOUT},
	{"server-budget", required_argument, NULL, OPT_SERVER_BUDGET},
	{"ssl-mode", required_argument, NULL, OPT_SSL_MODE},
	{"ssl-ca", required_argument, NULL, OPT_SSL_CA},
	{"ssl-cert", required_argument, NULL, OPT_SSL_CERT},
	{"ssl-key", required_argument, NULL, OPT_SSL_KEY},
	{"batch", no_argument, NULL, 'b'},
	{"count", required_argument, NULL, 'n'},
	{"interval", required_argument, NULL, 'i'},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"wide", no_argument, NULL, OPT_WIDE},
	{"record", required_argument, NULL, OPT_RECORD},
	{"redact", no_argument, NULL, OPT_REDACT},
	{"replay", required_argument, NULL, OPT_REPLAY},
	{"speed", required_argument, NULL, OPT_SPEED},
	{"from", required_argument, NULL, OPT_FROM},
	{"demo", no_argument, NULL, OPT_DEMO},
	{"theme", required_argument, NULL, OPT_THEME},
	{"caption", required_argument, NULL, OPT_CAPTION},
	{"ascii", no_argument, NULL, OPT_ASCII},
	{"read-only", no_argument, NULL, OPT_READ_ONLY},
	{"tune-ttl", required_argument, NULL, OPT_TUNE_TTL},
	{"history", required_argument, NULL, OPT_HISTORY},
	{"snapshot-dir", required_argument, NULL, OPT_SNAPSHOT_DIR},
	{"top", required_argument, NULL, OPT_TOP},
	{"sample-hz", required_argument, NULL, OPT_SAMPLE_HZ},
	{"sessions", no_argument, NULL, OPT_SESSIONS},
	{"explain", required_argument, NULL, OPT_EXPLAIN},
	{"targets", required_argument, NULL, OPT_TARGETS},
	{"listen", required_argument, NULL, OPT_LISTEN},
	{"listen-any", no_argument, NULL, OPT_LISTEN_ANY},
	{"no-screen", no_argument, NULL, OPT_NO_SCREEN},
	{"incidents", required_argument, NULL, OPT_INCIDENTS},
	{"before", required_argument, NULL, OPT_BEFORE},
	{"after", required_argument, NULL, OPT_AFTER},
	{"cooldown", required_argument, NULL, OPT_COOLDOWN},
	{"trigger", required_argument, NULL, OPT_TRIGGER},
	{"triggers", required_argument, NULL, OPT_TRIGGERS},
	{"incidents-max-mb", required_argument, NULL, OPT_INC_MAX_MB},
	{"incidents-max-count", required_argument, NULL, OPT_INC_MAX_COUNT},
	{"on-incident", required_argument, NULL, OPT_ON_INCIDENT},
	{"config", required_argument, NULL, OPT_CONFIG},
	{"no-config", no_argument, NULL, OPT_NO_CONFIG},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};

/* An option of the incident capture: true when c is one. */
static bool incident_opt(int c, struct opts *o)
{
	struct service_args *a = &o->inc;
	switch (c) {
	case OPT_INCIDENTS:
		if (!*optarg)
			die_usage("--incidents needs a directory:", "--incidents");
		a->dir = optarg;
		return true;
	case OPT_BEFORE: a->before = duration_arg("--before", optarg); break;
	case OPT_AFTER: a->after = duration_arg("--after", optarg); break;
	case OPT_COOLDOWN:
		a->cooldown = strspn(optarg, "0") == strlen(optarg) ? 0 : duration_arg("--cooldown", optarg);
		break;
	case OPT_TRIGGER:
		if (a->ntrigger == SERVICE_TRIGGER_ARGS)
			die_usage("too many --trigger (use --triggers FILE):", "--trigger");
		a->trigger[a->ntrigger++] = optarg;
		break;
	case OPT_TRIGGERS: a->triggers_file = optarg; break;
	case OPT_INC_MAX_MB: a->max_mb = num_arg("--incidents-max-mb", optarg, 0, 1e7); break;
	case OPT_INC_MAX_COUNT: a->max_count = (long)num_arg("--incidents-max-count", optarg, 0, 1e6); break;
	case OPT_ON_INCIDENT:
		if (!*optarg)
			die_usage("--on-incident needs a program:", "--on-incident");
		a->on_incident = optarg;
		break;
	default: return false;
	}
	o->inc_opts = true;
	return true;
}

/* An option of the connection (the target): true when c is one. */
static bool connection_opt(int c, struct opts *o, struct target *t)
{
	switch (c) {
	case 'h': free(t->host); t->host = xstrdup(optarg); break;
	case 'P': t->port = (int)num_arg("--port", optarg, 1, 65535); break;
	case 'u': free(t->user); t->user = xstrdup(optarg); break;
	case 'S': free(t->socket); t->socket = xstrdup(optarg); break;
	case 'd': free(t->database); t->database = xstrdup(optarg); break;
	case OPT_ENGINE:
		if (strcmp(optarg, "mysql") == 0 || strcmp(optarg, "mariadb") == 0)
			t->engine = ENGINE_MYSQL;
		else if (strcmp(optarg, "postgresql") == 0 || strcmp(optarg, "postgres") == 0)
			t->engine = ENGINE_POSTGRESQL;
		else
			die_usage("unknown engine (use mysql or postgresql):", optarg);
		break;
	case OPT_PASSWORD: o->ask_password = true; break;
	case OPT_DEFAULTS_FILE: free(t->defaults_file); t->defaults_file = xstrdup(optarg); break;
	case OPT_CONNECT_TIMEOUT:
		t->connect_timeout = num_arg("--connect-timeout", optarg, 0.1, 3600);
		break;
	case OPT_QUERY_TIMEOUT:
		o->query_timeout = num_arg("--query-timeout", optarg, 0.1, 3600);
		break;
	case OPT_SSL_MODE:
		t->ssl_mode = target_ssl_mode_parse(optarg);
		if (t->ssl_mode == SSL_MODE_BAD)
			die_usage("unknown --ssl-mode (use DISABLED, PREFERRED, REQUIRED, VERIFY_CA or "
				  "VERIFY_IDENTITY):", optarg);
		break;
	case OPT_SSL_CA: file_arg("--ssl-ca", optarg, &t->ssl_ca); break;
	case OPT_SSL_CERT: file_arg("--ssl-cert", optarg, &t->ssl_cert); break;
	case OPT_SSL_KEY: file_arg("--ssl-key", optarg, &t->ssl_key); break;
	default: return false;
	}
	return true;
}

/* Several targets (TARGET... or --targets FILE): the list read, each one
 * parsed once to refuse a bad one before any connection (by its line or
 * argument, never by its text: it may hold a password), and the options
 * that take one server refused. */
static void check_fleet_args(int argc, char **argv, struct opts *o, struct target *t)
{
	char err[NOTE_LEN + 300];
	fleet_init(&o->fleet);
	if (o->replay || o->demo)
		die_usage("a replay takes no TARGET:", o->targets ? "--targets" : argv[optind]);
	for (int i = optind; i < argc; i++) {
		/* NAME=URI names a target on the command line too */
		const char *nm, *sp;
		size_t nlen, slen;
		char name[FLEET_NAME_LEN], *spec = NULL;
		char why[200];
		if (fleet_split_line(argv[i], &nm, &nlen, &sp, &slen, why, sizeof why) == 1 && nm) {
			str_printf(name, sizeof name, "%.*s", (int)nlen, nm);
			spec = xstrndup(sp, slen);
		}
		/* cppcheck-suppress legacyUninitvar ; name is read only when spec is set, and then written */
		if (fleet_add(&o->fleet, spec ? name : NULL, spec ? spec : argv[i], 0, err, sizeof err) < 0) {
			fprintf(stderr, "dbtop: %s\n", err);
			exit(2);
		}
		secret_free(spec);
	}
	if (o->targets && fleet_read_file(&o->fleet, o->targets, err, sizeof err) < 0) {
		fprintf(stderr, "dbtop: %s\n", err);
		exit(2);
	}
	if (o->fleet.n == 0) {
		fprintf(stderr, "dbtop: --targets %s names no target\n", o->targets);
		exit(2);
	}
	if (o->fleet.n == 1) {
		/* one target: as if given alone (no fleet screen) */
		if (target_parse(t, o->fleet.e[0].spec, err, sizeof err) < 0 ||
		    target_guess_engine(t, err, sizeof err) < 0) {
			fprintf(stderr, "dbtop: %s:%d: %s\n", o->targets, o->fleet.e[0].line, err);
			exit(2);
		}
		if (!o->batch && o->json)
			o->batch = true;
		return;
	}
	if (t->host || t->port || t->socket || t->database)
		die_usage("with several targets each one names its server: -h, -P, -S and -d take one server:",
			  t->host ? "-h" : t->port ? "-P" : t->socket ? "-S" : "-d");
	if (o->record && o->fleet.n > 1)
		die_usage("--record writes one server's samples: with several targets run one dbtop per server "
			  "to record:", "--record");
	if (o->explain_id && o->fleet.n > 1)
		die_usage("--explain asks one server: give one target with", "--explain");
	for (int i = 0; i < o->fleet.n; i++) {
		struct target one;
		char where[300];
		const struct fleet_entry *e = &o->fleet.e[i];
		target_init(&one);
		if (e->line)
			str_printf(where, sizeof where, "%s:%d", o->targets, e->line);
		else
			str_printf(where, sizeof where, "target %d", i + 1);
		if (target_parse(&one, e->spec, err, sizeof err) < 0 || target_guess_engine(&one, err, sizeof err) < 0) {
			fprintf(stderr, "dbtop: %s: %s%s\n", where, err,
				o->ask_password && !e->line ? " (--password takes no value: it asks for one)" : "");
			target_free(&one);
			exit(2);
		}
		target_free(&one);
	}
	if (!o->batch && o->json)
		o->batch = true;
}

/* After the options: the one target (or none for a replay) parsed, the
 * engine known, the options that exclude each other refused. */
static void check_args(int argc, char **argv, struct opts *o, struct target *t)
{
	char err[NOTE_LEN];

	if (o->targets || optind < argc - 1) {
		check_fleet_args(argc, argv, o, t);
		return;
	}
	if (o->replay || o->demo) {
		if (o->replay && o->demo)
			die_usage("--demo and --replay exclude each other:", "--demo");
		if (o->demo && optind < argc)
			o->demo_name = argv[optind];
		else if (optind < argc)
			die_usage("a replay takes no TARGET:", argv[optind]);
		if (o->record)
			die_usage("--record needs a live server, not", o->demo ? "--demo" : "--replay");
		if (!o->batch && o->json)
			o->batch = true;
		return;
	}
	const char *spec = optind < argc ? argv[optind] : NULL;
	char *named = NULL;
	if (spec) {
		/* NAME=URI: one target by its name (the name shows only on a fleet) */
		const char *nm, *sp;
		size_t nlen, slen;
		char why[200];
		if (fleet_split_line(spec, &nm, &nlen, &sp, &slen, why, sizeof why) == 1 && nm)
			spec = named = xstrndup(sp, slen);
	}
	int prc = spec ? target_parse(t, spec, err, sizeof err) : 0;
	secret_free(named);
	if (prc < 0) {
		fprintf(stderr, "dbtop: %s\n", err);
		usage_hint();
		exit(2);
	}
	if (target_guess_engine(t, err, sizeof err) < 0) {
		if (!spec && !t->host && !t->port && !t->socket)
			str_copy(err, sizeof err, "no server to watch: give one, e.g. dbtop mysql://USER@HOST/ or "
				 "dbtop postgresql://USER@HOST/DB");
		fprintf(stderr, "dbtop: %s\n", err);
		usage_hint();
		exit(2);
	}
	if (!o->batch && o->json)
		o->batch = true;
}

/* --incidents DIR: alone, the list; with a server, the capture, which
 * runs beside --no-screen or --batch (not the screen: it keeps its own
 * history). The other incident options need it. */
static void check_incident_args(struct opts *o)
{
	if (o->inc_opts && !o->inc.dir)
		die_usage("the incident options need --incidents DIR:", "--before/--after/--trigger/...");
	if (!o->inc.dir)
		return;
	if (!o->no_screen && !o->batch && !o->json)
		die_usage("--incidents DIR with a server runs with --no-screen (a service) or --batch; alone it lists "
			  "the incidents in DIR:", "--incidents");
	/* the triggers parsed now: a bad one is said before any connection */
	struct incident_cfg *cfg = xmalloc(sizeof *cfg);
	char err[700];
	if (service_config(cfg, &o->inc, DBTOP_VERSION, err, sizeof err) < 0) {
		fprintf(stderr, "dbtop: %s\n", err);
		usage_hint();
		exit(2);
	}
	free(cfg);
}

/* The endpoint's options: --listen-any and --no-screen need --listen;
 * --no-screen excludes --batch (it is the batch loop without records). */
static void check_listen_args(struct opts *o)
{
	char err[NOTE_LEN];

	if (o->listen_any && !o->listen)
		die_usage("--listen-any needs --listen [ADDR:]PORT:", "--listen-any");
	if (o->no_screen && !o->listen && !o->inc.dir)
		die_usage("--no-screen needs --listen [ADDR:]PORT or --incidents DIR (else there is nothing to do):",
			  "--no-screen");
	if (o->no_screen && (o->batch || o->json))
		die_usage("--no-screen and --batch exclude each other (--batch with --listen prints records and "
			  "serves):", "--no-screen");
	if (o->no_screen)
		o->batch = true;
	if (o->listen && !listen_spec_ok(o->listen, o->listen_any, err, sizeof err)) {
		fprintf(stderr, "dbtop: %s\n", err);
		usage_hint();
		exit(2);
	}
}

/* An option that is neither the connection's nor one of the checks' (c
 * as getopt_long gives it, its value in optarg): true when c is one. */
static bool apply_opt(int c, struct opts *o)
{
	switch (c) {
	case 'b': o->batch = true; break;
	case 'n': o->count = (long)num_arg("--count", optarg, 1, 1e12); break;
	case 'i': o->interval = num_arg("--interval", optarg, 0.25, 60); break;
	case OPT_FORMAT:
		if (strcmp(optarg, "json") != 0 && strcmp(optarg, "text") != 0)
			die_usage("unknown format (use json or text):", optarg);
		o->json = strcmp(optarg, "json") == 0;
		break;
	case OPT_WIDE: o->wide = true; break;
	case OPT_RECORD: o->record = optarg; break;
	case OPT_REDACT: o->redact = true; break;
	case OPT_REPLAY: o->replay = optarg; break;
	case OPT_SPEED: o->speed = num_arg("--speed", optarg, 0, 1000); break;
	case OPT_FROM: o->from = num_arg("--from", optarg, 0, 1e9); break;
	case OPT_DEMO: o->demo = true; break;
	case OPT_THEME: o->theme = optarg; break;
	case OPT_CAPTION: o->caption = optarg; break;
	case OPT_ASCII: o->ascii = true; break;
	case OPT_READ_ONLY: o->read_only = true; break;
	case OPT_SNAPSHOT_DIR: o->snapshot_dir = optarg; break;
	case OPT_SESSIONS: o->sessions = true; break;
	case OPT_TARGETS: o->targets = optarg; break;
	case OPT_LISTEN: o->listen = optarg; break;
	case OPT_LISTEN_ANY: o->listen_any = true; break;
	case OPT_NO_SCREEN: o->no_screen = true; break;
	case OPT_EXPLAIN: o->explain_id = (long long)num_arg("--explain", optarg, 1, 9.2e18); break;
	case OPT_TUNE_TTL: o->tune_ttl = duration_arg("--tune-ttl", optarg); break;
	case OPT_HISTORY: o->history = strspn(optarg, "0") == strlen(optarg) ? 0 : duration_arg("--history", optarg); break;
	case OPT_TOP: o->top = (int)num_arg("--top", optarg, 0, 10000); break;
	case OPT_SAMPLE_HZ: o->sample_hz = num_arg("--sample-hz", optarg, 0.5, 100); break;
	case OPT_SERVER_BUDGET: o->server_budget = num_arg("--server-budget", optarg, 0, 1e6); break;
	case OPT_CONFIG: case OPT_NO_CONFIG: break;   /* read before the others (read_config) */
	case OPT_HELP: usage(stdout); exit(0);
	case OPT_VERSION: version_print(stdout); exit(0);
	default: return false;
	}
	return true;
}

/* A command-line option getopt_long refused (c: ':' no value, '?'
 * unknown): two lines on stderr, exit 2. */
static void bad_opt(int c, char **argv)
{
	/* the option only, never a value glued to it ("-pSECRET",
	 * "--passwd=SECRET"): a short one by its letter */
	char name[64];
	if (optopt > 0 && optopt < 128)
		str_printf(name, sizeof name, "-%c", optopt);
	else
		str_printf(name, sizeof name, "%.*s", (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
	if (c == ':' && optopt == 'h') {
		/* MySQL's -h is the host; a user asking for help gets it said */
		fputs("dbtop: option -h needs a host (did you mean --help?)\n", stderr);
		usage_hint();
		exit(2);
	}
	die_usage(c == ':' ? "option needs a value:" : "unknown option", c == ':' ? argv[optind - 1] : name);
}

/* --config FILE / --no-config, looked for before the other options (the
 * file gives their defaults). NULL: the default path ("" with
 * --no-config). */
static const char *config_arg(int argc, char **argv)
{
	const char *path = NULL;
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--no-config") == 0)
			path = "";
		else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (strncmp(argv[i], "--config=", 9) == 0)
			path = argv[i] + 9;
	}
	return path;
}


/* "hide = digests.rows, sessions.client": each column's bit set in
 * o->hide[] or exit 2. */
static void config_hide(const char *list, struct opts *o)
{
	char *copy = xstrdup(list), *save = NULL;
	for (char *w = strtok_r(copy, ", \t", &save); w; w = strtok_r(NULL, ", \t", &save)) {
		char *dot = strchr(w, '.');
		int bit = -1, screen = 0;
		if (dot) {
			*dot = '\0';
			screen = strcmp(w, "digests") == 0    ? PANE_SCREEN(digests)
				 : strcmp(w, "sessions") == 0 ? PANE_SCREEN(sessions)
							      : 0;
			bit = screen == PANE_SCREEN(digests)    ? digests_column(dot + 1)
			      : screen == PANE_SCREEN(sessions) ? sessions_column(dot + 1)
								: -1;
			*dot = '.';
		}
		if (bit < 0)
			die_value("hide", w, "digests.COLUMN or sessions.COLUMN: digests share, calls, avg, p95, rows, "
				  "hit, read, lock, exam, schema; sessions user, db, client, state, blocker, wait, time, trx");
		o->hide[screen] |= 1u << bit;
	}
	free(copy);
}

/* A setting of the config file that is no option: screen, hide (target
 * lines are read when the command line names them). */
static void config_setting(const struct uconf_entry *e, struct opts *o)
{
	if (strcmp(e->key, "screen") == 0) {
		char *end;
		long n = strtol(e->value, &end, 10);
		o->screen = -1;
		/* the screen names: "overview" (0), then the panes' (panes/pane_list.h) */
		for (int i = 0; i <= SCREEN_MAX; i++)
			if (strcmp(e->value, i ? pane_list[i - 1].name : "overview") == 0 ||
			    (end != e->value && !*end && n == i))
				o->screen = i;
		if (o->screen < 0)
			die_value("screen", e->value, "0 to 7, or overview, rates, digests, locks, waits, tuning, "
				  "sessions, events");
	} else if (strcmp(e->key, "hide") == 0) {
		config_hide(e->value, o);
	}
}

/* The TARGET words that name a target of the config file ("dbtop db1")
 * become NAME=TARGET (the text stays out of ps: these are dbtop's own
 * copies of the arguments). */
static void config_targets(int argc, char **argv, struct opts *o)
{
	for (int i = optind; i < argc; i++) {
		const struct uconf_entry *e = uconf_target(&o->cfg, "target", argv[i]);
		if (!e)
			continue;
		size_t n = strlen(e->name) + strlen(e->value) + 2;
		char *named = xmalloc(n);
		str_printf(named, n, "%s=%s", e->name, e->value);
		argv[i] = named;   /* the one it replaces is args[]' own: kept until exit */
	}
}

/* The user's config file read into cfg and applied as defaults: each
 * setting through the same code as its option, an error naming FILE:LINE
 * (exit 2). A missing default file is no error. */
static void read_config(int argc, char **argv, struct opts *o, struct target *t)
{
	const char *given = config_arg(argc, argv);
	char def[600], err[700], where[600];
	uconf_init(&o->cfg);
	if (given && !*given)
		return;
	if (!given)
		uconf_default_path(def, sizeof def);
	const char *path = given ? given : def;
	if (!*path)
		return;
	if (uconf_read(&o->cfg, path, given == NULL, uconf_dbtop_keys, err, sizeof err) < 0) {
		fprintf(stderr, "dbtop: %s\n", text_sanitize(err));
		fputs("Fix the file, or start dbtop with --no-config (man dbtop: CONFIGURATION).\n", stderr);
		exit(2);
	}
	for (int i = 0; i < o->cfg.n; i++) {
		const struct uconf_entry *e = &o->cfg.e[i];
		const struct option *lo = long_opts;
		str_printf(where, sizeof where, "%s:%d", path, e->line);
		arg_origin = where;
		while (lo->name && strcmp(lo->name, e->key) != 0)
			lo++;
		if (!lo->name) {
			config_setting(e, o);   /* the file's own: screen, hide, target */
			continue;
		}
		if (e->kind == UC_SWITCH && !e->on)
			continue;
		/* a switch's option reads no value; never NULL all the same */
		static char no_value[1];
		optarg = e->kind == UC_SWITCH || !e->value ? no_value : e->value;
		if (!connection_opt(lo->val, o, t))
			apply_opt(lo->val, o);
	}
	arg_origin = NULL;
}

static void parse_args(int argc, char **argv, struct opts *o, struct target *t)
{
	int c;

	o->count = 0;
	o->interval = 1.0;
	o->query_timeout = 2.0;
	o->server_budget = 10;
	o->speed = 1.0;
	o->history = HISTORY_DEFAULT;
	o->top = -1;
	o->sample_hz = 10;
	service_defaults(&o->inc);
	read_config(argc, argv, o, t);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h:P:u:S:d:bn:i:", long_opts, NULL)) != -1) {
		if (!connection_opt(c, o, t) && !incident_opt(c, o) && !apply_opt(c, o))
			bad_opt(c, argv);
	}
	config_targets(argc, argv, o);
	o->have_target = o->targets || optind < argc || t->host || t->port || t->socket || t->database;
	if (o->inc.dir && !o->have_target && !o->replay && !o->demo && !o->no_screen && !o->batch && !o->json &&
	    !o->listen) {
		/* --incidents DIR alone: the list */
		if (o->inc.ntrigger || o->inc.triggers_file || o->inc.on_incident)
			die_usage("listing incidents takes no capture option: give a server to capture,", "--trigger");
		o->list_incidents = true;
		return;
	}
	check_args(argc, argv, o, t);
	check_incident_args(o);
	check_listen_args(o);
	o->inc.interval = o->interval;
	o->inc.redact = o->redact;
}

/* Open the recording once the server is known; NULL-safe errors go to stderr. */
static bool start_recording(struct recorder *rec, const struct opts *o, const struct source *src,
			    const char *host)
{
	struct rec_header h;
	char err[NOTE_LEN];
	memset(&h, 0, sizeof h);
	str_copy(h.engine, sizeof h.engine, flavour_name(src->caps.flavour));
	str_copy(h.server_version, sizeof h.server_version, src->caps.version);
	str_copy(h.host, sizeof h.host, host);
	str_copy(h.dbtop_version, sizeof h.dbtop_version, DBTOP_VERSION);
	h.start_wall = src->start_wall;
	h.interval = o->interval;
	if (rec_open_write(rec, o->record, &h, o->redact, err, sizeof err) < 0) {
		fprintf(stderr, "dbtop: %s\n", err);
		return false;
	}
	return true;
}

/* The checks of the target before any connection: MySQL option files,
 * VERIFY_CA's CA, the password prompt, the label. 0, or the exit status
 * (said on stderr). */
static int prepare_target(struct target *t, const struct opts *o, bool replaying)
{
	char err[NOTE_LEN];
	if (t->engine == ENGINE_MYSQL && target_apply_mysql_defaults(t, err, sizeof err) < 0) {
		fprintf(stderr, "dbtop: %s\n", err);
		return 2;
	}
	if (t->engine == ENGINE_MYSQL && !replaying && target_ssl_mode_effective(t) == SSL_MODE_VERIFY_CA &&
	    !(t->ssl_ca && *t->ssl_ca)) {
		/* MariaDB Connector/C checks the chain alone only against a CA given */
		fprintf(stderr, "dbtop: --ssl-mode VERIFY_CA needs --ssl-ca FILE (or ssl-ca in an option file): "
			"the CA certificate that signed the server's\n");
		return 2;
	}
	if (o->ask_password && !replaying) {
		secret_free(t->password);
		t->password = prompt_password();
	}
	target_make_label(t);
	return 0;
}

/* The source: a recording (the file, or the bundled one) or a server. */
static void init_source(struct source *src, struct replay_cfg *rcfg, const struct opts *o,
			struct target *t, bool replaying)
{
	if (replaying) {
		assert(rcfg); /* lint: only the server path (the fleet's) passes none */
		rcfg->path = o->replay;
		if (o->demo) {
			rcfg->buf = demo_incidents[o->demo_at].rec;
			rcfg->len = *demo_incidents[o->demo_at].len;
		}
		rcfg->speed = o->speed;
		rcfg->from = o->from;
		source_init(src, &replay_source_ops, t, o->query_timeout);
		src->arg = rcfg;
	} else {
		source_init(src, source_ops_for(t->engine), t, o->query_timeout);
	}
	src->sub_hz = o->sample_hz;
	src->budget_ms = o->server_budget;
	src->interval = o->interval;
	src->read_only = o->read_only;
	src->want_sessions = o->batch && o->sessions;
	src->sessions_idle = true;   /* --sessions lists every session */
	/* the screen: the first frame shows the rates, the costly first reads
	 * follow (a batch record is whole from the first) */
	src->stage_first = !o->batch && !o->no_screen;
}

/* The tuner with its undo journal; --batch says what an earlier dbtop left
 * in force. */
static struct tuner *start_tuner(struct source *src, const struct opts *o, const struct target *t,
				 bool replaying)
{
	struct tuner *tuner = xcalloc(1, sizeof *tuner);
	/* the journal is keyed by the server's own identity (caps); an older
	 * dbtop keyed it by the address: that one is only listed */
	char key[700];
	str_printf(key, sizeof key, "%s|%s|%d|%s|%s", engine_name(t->engine), t->host ? t->host : "",
		   t->port, t->socket ? t->socket : "", t->pg_conninfo && !t->host ? "conninfo" : "");
	/* --batch never changes or reverts a setting: it reads the journal
	 * only, so a dbtop on a terminal can still revert */
	tuner_init(tuner, src, replaying ? NULL : key, o->read_only || o->batch, o->tune_ttl);
	if (!replaying && tuner->v.orphans > 0 && o->batch)
		fprintf(stderr, "dbtop: %d setting change(s) left in force by an earlier dbtop (undo journal %s): "
			"start dbtop on a terminal against this server to revert them\n",
			tuner->v.orphans, tuner->v.path);
	for (int i = 0; !replaying && o->batch && i < tuner->v.nforeign; i++) {
		const struct jentry *e = &tuner->v.foreign[i];
		fprintf(stderr, "dbtop: not this server's, left alone: %s = %s (was %s) set on %s\n", e->name, e->val,
			e->was, e->slabel);
	}
	return tuner;
}

/* The incident capture of the target called server (--incidents with a
 * server), or NULL with the reason on stderr. */
static struct incidents *start_incidents(const struct opts *o, const char *server)
{
	struct incident_cfg cfg;
	char err[700];
	struct incidents *inc = xcalloc(1, sizeof *inc);
	if (service_config(&cfg, &o->inc, DBTOP_VERSION, err, sizeof err) < 0 ||
	    incidents_open(inc, &cfg, server, err, sizeof err) < 0) {
		fprintf(stderr, "dbtop: %s\n", err);
		free(inc);
		return NULL;
	}
	service_catch_usr1();
	return inc;
}

static void stop_incidents(struct incidents *inc, int n)
{
	for (int i = 0; inc && i < n; i++)
		incidents_close(&inc[i]);
	free(inc);
}

/* What a run (the screen or the batch loop) works with. */
struct run {
	const struct opts *o;
	struct source *src;
	struct model *m;
	struct recorder *rec;
	bool *recording;
	const char *host;
	bool replaying;
	struct tuner *tuner;
	double start_mono;
	struct listener *ls;      /* --listen, or NULL */
	struct incidents *inc;    /* --incidents with a server, or NULL */
};

/* The endpoint's hook after each ingest of the one target (arg: the run). */
static void batch_publish(const void *arg, const struct target_run *t)
{
	const struct run *r = arg;
	listen_publish_incidents(r->ls, 0, t->m, incidents_stats(r->inc), r->host);
}

/* Write the record of the model's newest interval to stdout; false when
 * stdout closed. */
static bool batch_print(const struct run *r, const struct target_run *t, struct batch_text_state *txt,
			struct strbuf *out)
{
	const struct opts *o = r->o;
	out->len = 0;
	if (o->json)
		batch_json_events(t->m, r->host, o->top < 0 ? 20 : o->top, o->sessions, &t->ev, t->ev_from, ULONG_MAX,
				  out);
	else
		batch_text(t->m, r->host, txt, out);
	if (!o->json && o->sessions)
		batch_text_sessions(t->m, out);
	sb_putc(out, '\n');
	return fwrite(out->s, 1, out->len, stdout) == out->len && fflush(stdout) == 0;
}

/* --batch: one record per interval on stdout until --count, a signal, the
 * end of the recording or a closed stdout. */
static void batch_loop(const struct run *r)
{
	const struct opts *o = r->o;
	struct batch_text_state txt = {.wide = o->wide, .top = o->top < 0 ? 5 : o->top};
	struct strbuf out;
	struct sample s;
	struct target_run t;
	long printed = 0;

	sb_init(&out);
	/* batch mode changes no setting: an observed change is another's */
	target_run_init(&t, "", r->host, r->src, r->m, !r->replaying);
	t.rec = r->rec;
	t.recording = *r->recording;
	t.inc = r->inc;
	t.publish = batch_publish;
	t.publish_arg = r;
	/* a replay's pacing waits inside source_tick: a signal ends the wait */
	r->src->stop_flag = &stop_requested;
	double next = clock_mono(), trim = 0;
	for (;;) {
		heap_trim_due(&trim, clock_mono());
		source_tick(r->src, &s);
		if (r->src->finished) {
			sample_release(&s);
			break;
		}
		if (target_ingest(&t, &s, target_new_caps(&t), r->src->conn_gen, true))
			fprintf(stderr, "dbtop: %s\n", t.note);
		sample_release(&s);
		/* the first sample only primes the counters */
		if (o->no_screen)
			printed++;
		else if (r->m->intervals > 1 && s.wall >= r->src->start_wall + o->from) {
			if (!batch_print(r, &t, &txt, &out))
				break;
			printed++;
		}
		if (stop_requested || (o->count > 0 && printed >= o->count))
			break;
		if (r->replaying)
			continue;  /* the recording sets the pace */
		next += o->interval;
		if (next < clock_mono())
			next = clock_mono();
		source_idle(r->src, next, &stop_requested);
		if (stop_requested)
			break;
	}
	*r->recording = t.recording;
	target_run_free(&t);
	sb_free(&out);
}

/* --batch and --no-screen: the batch loop, with the incident capture
 * when --incidents is given; the exit status. */
static int run_batch(struct run *r)
{
	if (r->o->inc.dir && !(r->inc = start_incidents(r->o, metrics_label_safe(r->host, r->host))))
		return 1;
	batch_loop(r);
	stop_incidents(r->inc, 1);
	r->inc = NULL;
	return 0;
}

/* The demo tour's switch: the same source and model reopened on another
 * bundled incident. */
struct tour_run {
	const struct run *r;
	struct replay_cfg *rcfg;
	struct target *t;
	size_t hist;
	struct history *kept;    /* the incident's samples for time travel, or NULL */
};

/* What a history spool's header says about source src (host: shown as). */
static void hist_header(struct rec_header *h, const struct source *src, const char *host, double interval)
{
	memset(h, 0, sizeof *h);
	str_copy(h->engine, sizeof h->engine, flavour_name(src->caps.flavour));
	str_copy(h->host, sizeof h->host, host);
	str_copy(h->dbtop_version, sizeof h->dbtop_version, DBTOP_VERSION);
	h->start_wall = src->start_wall;
	h->interval = interval;
}

static int tour_open(void *ctx, int i)
{
	struct tour_run *tr = ctx;
	struct opts o = *tr->r->o;
	char err[NOTE_LEN];
	o.demo_at = i;
	source_close(tr->r->src);
	init_source(tr->r->src, tr->rcfg, &o, tr->t, true);
	if (source_open(tr->r->src, err, sizeof err) < 0)
		return -1;
	model_free(tr->r->m);
	model_init(tr->r->m, tr->hist);
	if (tr->kept) {
		/* each incident its own history: stepping back never reaches the previous one */
		struct rec_header h;
		hist_header(&h, tr->r->src, tr->r->host, o.interval);
		if (hist_restart(tr->kept, &h, err, sizeof err) < 0)
			fprintf(stderr, "dbtop: no history kept: %s\n", err);
	}
	return 0;
}

/* The screen's snapshot (w): the batch record of the moment shown. */
static void snapshot_json(const struct model *m, const char *host, const struct event_log *ev, unsigned long ev_from,
			  unsigned long ev_to, struct strbuf *out)
{
	batch_json_events(m, host, 20, m->sessions != NULL, ev, ev_from, ev_to, out);
}

/* The screen's hook after each model update of target slot (named name):
 * publish to the endpoint. */
static void publish_update(const void *arg, int slot, const char *name, const struct model *m)
{
	const struct run *r = arg;
	listen_publish(r->ls, (size_t)slot, m, name);
}

/* The screen until it quits; its exit status. *worker_running: a query
 * still runs in the sampler thread. tr: the demo tour, or NULL. */
static int run_screen(const struct run *r, bool *worker_running, struct tour_run *tr)
{
	const struct opts *o = r->o;
	struct ui_opts uo = {
		.interval = o->interval, .theme = o->theme, .ascii = o->ascii,
		.replay = r->replaying, .speed = o->speed, .host = r->host,
		.rec = *r->recording ? r->rec : NULL, .read_only = o->read_only,
		.tuner = r->replaying ? NULL : r->tuner, .start_mono = r->start_mono,
		.caption = o->caption, .screen = o->screen, .hide = o->hide,
		.snapshot_dir = o->snapshot_dir, .snapshot_json = snapshot_json,
		.on_update = r->ls ? publish_update : NULL, .on_update_arg = r,
	};
	if (tr) {
		/* --demo NAME: that incident alone; else all, from the first */
		uo.tour = o->demo_name ? &demo_stops[o->demo_at] : demo_stops;
		uo.tour_n = o->demo_name ? 1 : (int)demo_nincidents;
		uo.tour_at = 0;
		uo.tour_open = tour_open;
		uo.tour_ctx = tr;
	}
	struct history hist;
	if (o->history > 0) {
		/* the samples kept for time travel: in the recording when there is
		 * one, else in a private spool (what fails is said, not fatal); the
		 * tour's spool starts again with each incident (tour_open) */
		struct rec_header h;
		char err[NOTE_LEN];
		hist_header(&h, r->src, r->host, o->interval);
		if (hist_open(&hist, o->history, tr ? NULL : uo.rec, NULL, &h, err, sizeof err) == 0)
			uo.hist = &hist;
		else
			fprintf(stderr, "dbtop: no history kept: %s\n", err);
		if (tr && uo.hist)
			/* cppcheck-suppress autoVariables ; cleared below before hist goes out of scope */
			tr->kept = &hist;
	}
	int status = ui_run(r->src, r->m, &uo);
	if (tr)
		tr->kept = NULL; /* hist ends with this function */
	if (uo.hist && !uo.worker_running)
		hist_close(&hist);
	if (uo.exit_msg[0])   /* it may quote a server's error text */
		fprintf(stderr, "dbtop: %s\n", text_sanitize(uo.exit_msg));
	*worker_running = uo.worker_running;
	return status;
}

/* ---- several targets ---- */

/* One server of several: its target, source, model and tuner. */
struct watched {
	char name[FLEET_NAME_LEN];
	struct target t;
	struct source src;
	struct model m;
	struct tuner *tuner;
	struct target_run run; /* the fleet batch's pipeline (events, incidents, endpoint) */
	struct listener *ls;   /* --listen, or NULL */
	const struct opts *o;
	bool opened;             /* connected at the start */
	char err[NOTE_LEN];      /* why not */
};

/* Duplicate s into *slot when the target has none of its own. */
static void inherit_str(char **slot, const char *s)
{
	if (!*slot && s)
		*slot = xstrdup(s);
}

/* The flags that apply to every target of several (user, option file,
 * TLS, time limit, engine): what the target's own text does not say. */
static void target_inherit(struct target *d, const struct target *s)
{
	if (d->engine == ENGINE_UNKNOWN)
		d->engine = s->engine;
	inherit_str(&d->user, s->user);
	inherit_str(&d->defaults_file, s->defaults_file);
	inherit_str(&d->ssl_ca, s->ssl_ca);
	inherit_str(&d->ssl_cert, s->ssl_cert);
	inherit_str(&d->ssl_key, s->ssl_key);
	if (d->ssl_mode == SSL_MODE_UNSET)
		d->ssl_mode = s->ssl_mode;
	d->connect_timeout = s->connect_timeout;
}

/* Each target's first connection and its tuner, on a thread of its own:
 * a server that does not answer delays the start by --connect-timeout at
 * most, whatever the number of targets. */
static void *open_one(void *arg)
{
	struct watched *w = arg;
	if (source_open(&w->src, w->err, sizeof w->err) == 0)
		w->opened = true;
	w->tuner = start_tuner(&w->src, w->o, &w->t, false);
	return NULL;
}

/* Names: given, else the target's label; a label twice gets "#2", ... */
static void fleet_names(struct watched *w, int n)
{
	for (int i = 0; i < n; i++) {
		if (w[i].name[0])
			continue;
		str_copy(w[i].name, sizeof w[i].name, w[i].t.label);
		for (int k = 2;; k++) {
			bool taken = false;
			for (int j = 0; j < n && !taken; j++)
				taken = j != i && strcmp(w[j].name, w[i].name) == 0;
			if (!taken)
				break;
			str_printf(w[i].name, sizeof w[i].name, "%.40s#%d", w[i].t.label, k);
		}
	}
}

/* The targets parsed, prepared and opened (in parallel); 0 or the exit
 * status (said on stderr). tmpl: the flags given for all of them. */
static int fleet_setup(struct watched *w, int n, const struct opts *o, struct target *tmpl)
{
	char err[NOTE_LEN];
	char *typed = NULL;
	if (o->ask_password)
		typed = prompt_password();   /* once, for every target that names none */
	for (int i = 0; i < n; i++) {
		const struct fleet_entry *e = &o->fleet.e[i];
		struct watched *x = &w[i];
		x->o = o;
		target_init(&x->t);
		str_copy(x->name, sizeof x->name, e->named ? e->name : "");
		target_parse(&x->t, e->spec, err, sizeof err);   /* checked in check_fleet_args */
		target_inherit(&x->t, tmpl);
		target_guess_engine(&x->t, err, sizeof err);
		if (x->t.engine == ENGINE_MYSQL && target_apply_mysql_defaults(&x->t, err, sizeof err) < 0) {
			fprintf(stderr, "dbtop: %s: %s\n", x->name[0] ? x->name : "a target", err);
			secret_free(typed);
			return 2;
		}
		if (typed && !x->t.password)
			x->t.password = xstrdup(typed);
		target_make_label(&x->t);
		init_source(&x->src, NULL, o, &x->t, false);
		x->src.retry_each_interval = true;
	}
	secret_free(typed);
	fleet_names(w, n);
	pthread_t *th = xcalloc((size_t)n, sizeof *th);
	bool *started = xcalloc((size_t)n, sizeof *started);
	for (int i = 0; i < n; i++)
		started[i] = pthread_create(&th[i], NULL, open_one, &w[i]) == 0;
	for (int i = 0; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			open_one(&w[i]);
	}
	free(th);
	free(started);
	for (int i = 0; i < n; i++) {
		size_t hist = (size_t)d_ceil(HISTORY_SECONDS / o->interval);
		model_init(&w[i].m, hist < HISTORY_MIN ? HISTORY_MIN : hist);
		if (!w[i].opened && o->batch)
			fprintf(stderr, "dbtop: %s: DOWN at the start, retrying: %s\n", w[i].name, w[i].err);
	}
	return 0;
}

/* Append one batch record of a target of several: JSON with the
 * "server" member first, text with "[NAME] " before every line. */
static void fleet_record(const struct watched *w, struct batch_text_state *txt, struct strbuf *out)
{
	const struct opts *o = w->o;
	struct strbuf rec;
	sb_init(&rec);
	if (o->json) {
		batch_json_events(&w->m, w->t.label, o->top < 0 ? 20 : o->top, o->sessions, &w->run.ev, w->run.ev_from,
				  ULONG_MAX, &rec);
		sb_puts(out, "{\"server\":");
		json_str(out, w->name);
		sb_putc(out, ',');
		sb_puts(out, rec.s + 1);   /* the record without its '{' */
		sb_putc(out, '\n');
	} else {
		batch_text(&w->m, w->t.label, txt, &rec);
		if (o->sessions)
			batch_text_sessions(&w->m, &rec);
		for (const char *p = rec.s; p && *p;) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			sb_printf(out, "[%s] %.*s\n", w->name, (int)len, p);
			p = nl ? nl + 1 : p + len;
		}
	}
	sb_free(&rec);
}

/* The fleet batch's hook after each ingest of a target (arg: its watched). */
static void fleet_batch_publish(const void *arg, const struct target_run *t)
{
	const struct watched *w = arg;
	if (w->ls)
		listen_publish_incidents(w->ls, (size_t)t->slot, t->m, t->inc ? incidents_stats(t->inc) : NULL,
					 metrics_label_safe(w->name, w->t.label));
}

/* Each target's pipeline and sampler thread; false when one cannot start. */
static bool fleet_batch_start(struct watched *w, int n, struct sampler *sp, struct listener *ls, struct incidents *inc)
{
	double origin = clock_mono();
	for (int i = 0; i < n; i++) {
		struct target_run *t = &w[i].run;
		/* batch mode changes no setting: an observed change is another's */
		target_run_init(t, w[i].name, w[i].t.label, &w[i].src, &w[i].m, true);
		t->slot = i;
		t->inc = inc ? &inc[i] : NULL;
		w[i].ls = ls;
		t->publish = fleet_batch_publish;
		t->publish_arg = &w[i];
		w[i].src.background = true; /* several targets: one look per refresh each */
		if (sampler_start(&sp[i], &w[i].src, w[i].o->interval, false, NULL) < 0) {
			fprintf(stderr, "dbtop: cannot start the sampler of %s: %s\n", w[i].name, strerror(errno));
			return false;
		}
		sampler_align(&sp[i], origin); /* the targets refresh together */
	}
	return true;
}

/* Ingest what target w's sampler queued and append its records to out. */
static void fleet_batch_take(struct watched *w, struct sampler *sp, struct batch_text_state *txt, long *printed,
			     struct sampler_msg *msg, struct strbuf *out)
{
	const struct opts *o = w->o;
	while (sampler_pop(sp, msg)) {
		target_ingest(&w->run, &msg->s, msg->has_caps ? &msg->caps : NULL, msg->conn_gen, true);
		sample_release(&msg->s);
		if (o->no_screen || w->m.intervals <= 1 || (o->count > 0 && *printed >= o->count))
			continue;
		fleet_record(w, txt, out);
		(*printed)++;
	}
}

/* --batch with several targets: each one sampled by its own worker (a
 * sampler, as on the screen), a record per target as each sample comes;
 * --count N records of every target. */
static void fleet_batch(struct watched *w, int n, const struct opts *o, struct listener *ls, struct incidents *inc)
{
	struct sampler *sp = xcalloc((size_t)n, sizeof *sp);
	struct batch_text_state *txt = xcalloc((size_t)n, sizeof *txt);
	struct sampler_msg *msg = xmalloc(sizeof *msg);
	struct pollfd pf[FLEET_MAX];
	long printed[FLEET_MAX] = {0};
	struct strbuf out;
	sb_init(&out);
	for (int i = 0; i < n; i++)
		txt[i] = (struct batch_text_state){.wide = o->wide, .top = o->top < 0 ? 5 : o->top};
	bool done = !fleet_batch_start(w, n, sp, ls, inc);
	double trim = 0;
	while (!done && !stop_requested) {
		heap_trim_due(&trim, clock_mono());
		for (int i = 0; i < n; i++)
			pf[i] = (struct pollfd){.fd = sp[i].wake[0], .events = POLLIN};
		int pr = poll(pf, (nfds_t)n, 500);
		if (pr < 0 && errno != EINTR)
			break;
		bool all = o->count > 0;
		out.len = 0;
		/* the targets whose worker queued a sample (it wakes the pipe
		 * after each); their records written together */
		for (int i = 0; i < n; i++) {
			if (pr > 0 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				fleet_batch_take(&w[i], &sp[i], &txt[i], &printed[i], msg, &out);
			all &= printed[i] >= o->count;
		}
		if (out.len && (fwrite(out.s, 1, out.len, stdout) != out.len || fflush(stdout) != 0))
			break;
		if (all)
			break;
	}
	for (int i = 0; i < n; i++) {
		if (sp[i].running && !sampler_stop(&sp[i], 0.5))
			w[i].src.connected = false;   /* still inside a query: the exit ends it */
		target_run_free(&w[i].run);
	}
	free(msg);
	free(txt);
	free(sp);
	sb_free(&out);
}

/* The fleet screen's hook after each model update of target slot: publish
 * it to the endpoint (arg: the listener) under its name. */
static void fleet_publish(const void *arg, int slot, const char *name, const struct model *m)
{
	char alt[32];
	const char *label = metrics_label_safe(name, NULL);
	if (!label) {
		str_printf(alt, sizeof alt, "target%d", slot + 1);
		label = alt;
	}
	listen_publish((struct listener *)arg, (size_t)slot, m, label);
}

/* Several targets: set up, the fleet screen or the batch records, and the
 * exit status. tmpl: the flags given for all of them. */
static int run_fleet(const struct opts *o, struct target *tmpl, double start_mono)
{
	int n = o->fleet.n, status;
	char err[NOTE_LEN];
	/* every worker reads into its own malloc arena, which keeps what a
	 * read freed: blocks of 64 KB and more (query results, digest sets)
	 * go back to the system when freed (about -0.3 MiB per target) */
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
	mallopt(M_TRIM_THRESHOLD, 128 * 1024); /* the default again (keep_big_blocks raised it) */
	/* the workers refresh together (sampler_align): with an arena each
	 * (up to 8 a core) every arena keeps its peak; two arenas for all of
	 * them hold 3-5 MiB less over 20 targets at no measured CPU cost */
	mallopt(M_ARENA_MAX, 2);
	struct watched *w = xcalloc((size_t)n, sizeof *w);
	if (!o->batch && !ui_possible(err, sizeof err)) {
		fprintf(stderr, "dbtop: %s\n", err);
		free(w);
		return 1;
	}
	/* the endpoint first: a port in use is said before any connection */
	struct listener *ls = NULL;
	if (o->listen && !(ls = listen_start(o->listen, o->listen_any, (size_t)n, err, sizeof err))) {
		fprintf(stderr, "dbtop: %s\n", err);
		free(w);
		return 1;
	}
	if ((status = fleet_setup(w, n, o, tmpl)) != 0) {
		listen_stop(ls);
		return status;
	}
	bool worker_running = false;
	if (o->batch || o->no_screen) {
		struct incidents *inc = o->inc.dir ? xcalloc((size_t)n, sizeof *inc) : NULL;
		for (int i = 0; inc && i < n; i++) {
			struct incidents *one = start_incidents(o, metrics_label_safe(w[i].name, w[i].t.label));
			if (!one) {
				stop_incidents(inc, i);
				listen_stop(ls);
				return 1;
			}
			inc[i] = *one;
			free(one);
		}
		fleet_batch(w, n, o, ls, inc);
		stop_incidents(inc, inc ? n : 0);
	} else {
		struct ui_target *ut = xcalloc((size_t)n, sizeof *ut);
		for (int i = 0; i < n; i++)
			ut[i] = (struct ui_target){.name = w[i].name, .host = w[i].t.label, .src = &w[i].src,
						   .m = &w[i].m, .tuner = w[i].tuner};
		struct ui_opts uo = {
			.interval = o->interval, .theme = o->theme, .ascii = o->ascii, .host = w[0].t.label,
			.read_only = o->read_only, .start_mono = start_mono, .hide = o->hide,
			.on_update = ls ? fleet_publish : NULL, .on_update_arg = ls,
		};
		status = ui_run_targets(ut, n, &uo);
		if (uo.exit_msg[0])
			fprintf(stderr, "dbtop: %s\n", text_sanitize(uo.exit_msg));
		worker_running = uo.worker_running;
		free(ut);
	}
	if (worker_running)
		return status;   /* a query still runs in a sampler thread: the exit ends it */
	listen_stop(ls);
	for (int i = 0; i < n; i++) {
		tuner_close(w[i].tuner);
		free(w[i].tuner);
		source_close(&w[i].src);
		model_free(&w[i].m);
		target_free(&w[i].t);
	}
	free(w);
	return status;
}

/* The memory holds passwords (given, typed, read from option files, or
 * by libpq from .pgpass) and query texts with their literals, whatever
 * the flags: no core file, and no ptrace or /proc/PID/mem by other
 * processes of the user. */
static void protect_memory(void)
{
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	struct rlimit no_core = {0, 0};
	setrlimit(RLIMIT_CORE, &no_core);
}

/* The big blocks of a large server's reads (10,000 digest rows: 4.8 MB a
 * whole read, the result they come from) from the heap, and kept there
 * between reads, instead of fresh pages from the kernel each time (a page
 * fault per 4 KB: 20 % of the client CPU at 10,000 digests). Up to 16 MB;
 * a small server never allocates blocks that big. */
static void keep_big_blocks(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 16 << 20);
	mallopt(M_TRIM_THRESHOLD, 16 << 20);
#endif
}

/* --demo NAME: list the incidents (0), or pick one (-1: go on), or say
 * there is no such one (2). */
static int demo_choose(struct opts *o)
{
	char name[64];
	if (strcmp(o->demo_name, "list") == 0) {
		demo_list(stdout);
		return 0;
	}
	if ((o->demo_at = demo_find(o->demo_name)) >= 0)
		return -1;
	str_copy(name, sizeof name, o->demo_name);
	fprintf(stderr, "dbtop: no such demo incident: %s; there are:\n", text_sanitize(name));
	demo_list(stderr);
	return 2;
}

/* SIGINT / SIGTERM / SIGHUP end the run in order; a closed pipe and a
 * file size limit fail the write (EPIPE, EFBIG: the spool stops, not dbtop). */
static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

/* One target (a server, a recording or the demo): the endpoint, the
 * source, the tuner, the recording, then the screen or the batch loop;
 * the exit status. */
static int run_single(struct opts *o, struct target *t, double start_mono)
{
	struct source src;
	struct model m;
	struct recorder rec = {0};
	struct replay_cfg rcfg = {0};
	bool recording = false, replaying = o->replay || o->demo;
	char err[NOTE_LEN];
	int status;

	/* the endpoint first: a port in use is said before any connection */
	struct listener *ls = NULL;
	if (o->listen && !(ls = listen_start(o->listen, o->listen_any, 1, err, sizeof err))) {
		fprintf(stderr, "dbtop: %s\n", err);
		return 1;
	}
	catch_signals();
	init_source(&src, &rcfg, o, t, replaying);
	/* a screen that cannot start is said before any connection */
	if ((!o->batch && !o->explain_id && !ui_possible(err, sizeof err)) || source_open(&src, err, sizeof err) < 0) {
		fprintf(stderr, "dbtop: %s\n", err);
		listen_stop(ls);
		return 1;
	}
	const char *host = replaying ? rcfg.host : t->label;
	if (o->explain_id) {
		listen_stop(ls);
		return explain_and_exit(&src, o->explain_id);
	}
	struct tuner *tuner = start_tuner(&src, o, t, replaying);
	if (o->record)
		recording = start_recording(&rec, o, &src, host);
	/* the sparklines reach back as far as the history kept for time travel */
	size_t hist = (size_t)d_ceil((o->history > HISTORY_SECONDS && !o->batch ? o->history : HISTORY_SECONDS) /
				     o->interval);
	model_init(&m, hist < HISTORY_MIN ? HISTORY_MIN : hist);

	struct run r = {.o = o,
			.src = &src,
			.m = &m,
			.rec = &rec,
			.recording = &recording,
			.host = host,
			.replaying = replaying,
			.tuner = tuner,
			.start_mono = start_mono,
			.ls = ls};
	if (!o->batch) {
		bool worker_running;
		struct tour_run tr = {.r = &r, .rcfg = &rcfg, .t = t, .hist = hist < HISTORY_MIN ? HISTORY_MIN : hist};
		status = run_screen(&r, &worker_running, o->demo ? &tr : NULL);
		if (worker_running) {
			/* a query still runs in the sampler thread: leave everything it
			 * may touch alone (the target too); exiting ends it */
			if (recording)
				rec_close(&rec);
			listen_stop(ls);
			exit(status);
		}
	} else {
		status = run_batch(&r);
	}
	listen_stop(ls);
	if (replaying && src.finished)
		fprintf(stderr, "dbtop: end of recording: %s\n", rcfg.summary);
	if (recording)
		rec_close(&rec);
	tuner_close(tuner);
	free(tuner);
	source_close(&src);
	model_free(&m);
	return status;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	struct target t;
	int status = 0;

	double start_mono = clock_mono();
	protect_memory();
	keep_big_blocks();
	/* parse a copy and scrub the arguments ps shows at once: a password
	 * never stays there, not even until a usage error */
	args = xcalloc((size_t)argc + 1, sizeof *args);
	for (int i = 0; i < argc; i++) {
		args[i] = xstrdup(argv[i]);
		target_scrub_arg(argv[i]);
	}
	target_init(&t);
	parse_args(argc, args, &o, &t);
	if (o.list_incidents)
		return service_list(o.inc.dir, argv[0]); /* --incidents DIR alone */
	if (o.demo_name && (status = demo_choose(&o)) >= 0)
		return status;
	if (o.fleet.n > 1) {
		catch_signals();
		status = run_fleet(&o, &t, start_mono);
		fleet_free(&o.fleet);
		target_free(&t);
		return status;
	}
	if ((status = prepare_target(&t, &o, o.replay || o.demo)) == 0)
		status = run_single(&o, &t, start_mono);
	target_free(&t);
	return status;
}
