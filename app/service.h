/* service.h - dbtop as an unattended service (docs/incidents.md): the
 * incident capture's options made into its configuration, SIGUSR1 ("keep
 * what happened now"), and `dbtop --incidents DIR`, the list of the kept
 * incidents (a screen on a terminal, Enter replays one; a printed list
 * otherwise). */
#ifndef DBTOP_SERVICE_H
#define DBTOP_SERVICE_H

#include <signal.h>
#include <stdbool.h>

#include "../record/incidents.h"

#define SERVICE_TRIGGER_ARGS 16

/* The command line's incident options. */
struct service_args {
	const char *dir;                 /* --incidents DIR */
	double before, after, cooldown;  /* s */
	double max_mb;                   /* --incidents-max-mb, 0: no limit */
	long max_count;                  /* --incidents-max-count, 0: no limit */
	const char *trigger[SERVICE_TRIGGER_ARGS];   /* --trigger EXPR */
	int ntrigger;
	const char *triggers_file;       /* --triggers FILE */
	const char *on_incident;         /* --on-incident PROGRAM */
	bool redact;
	double interval;
};

/* SIGUSR1 bumps this (the capture's cfg.manual points at it). */
extern volatile sig_atomic_t service_usr1;

/* Defaults of the incident options (before parsing). */
void service_defaults(struct service_args *a);
/* The capture's configuration: the default triggers (findings at warning
 * or above, state DOWN) and the ones given. 0, or -1 with err (a trigger
 * that does not parse, with its line). */
int service_config(struct incident_cfg *cfg, const struct service_args *a, const char *version, char *err,
		   size_t errlen);
/* Catch SIGUSR1 (only while a capture runs: elsewhere it keeps its
 * default action). */
void service_catch_usr1(void);
/* dbtop --incidents DIR: the list; its exit status. self: argv[0] (a
 * replay runs the same binary). */
int service_list(const char *dir, const char *self);

#endif
