/* triggers.h - what starts an incident (docs/incidents.md): a finding in
 * force, a threshold on the model held for a while ("commit latency > 10ms
 * for 5s", "lock waiters >= 3", "state DOWN", "wait class IO > 2 AAS"),
 * given on the command line or in a file, one a line. Evaluated on the
 * model after each sample; no curses, no database headers. */
#ifndef DBTOP_TRIGGERS_H
#define DBTOP_TRIGGERS_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/model.h"

#define TRIGGER_ID_LEN 48

enum trig_kind {
	TK_FINDINGS,      /* any finding in force at severity arg or above: the id is the finding's */
	TK_FINDING,       /* finding `finding` in force (any severity) */
	TK_STATE,         /* the connection's state is arg (enum source_state); arg -1: not UP */
	TK_METRIC,        /* metric_defs[arg] of the newest interval */
	TK_LOCK_WAITERS,  /* sessions waiting on a lock */
	TK_WAIT_CLASS,    /* average active sessions waiting in wait class arg */
};

enum trig_op { TO_GT, TO_GE, TO_LT, TO_LE, TO_EQ };

struct trigger {
	char id[TRIGGER_ID_LEN];  /* names the files and the metric's label: "commit-latency" */
	char text[160];           /* as given (sanitised) */
	enum trig_kind kind;
	int arg;
	char finding[TRIGGER_ID_LEN];
	enum trig_op op;
	double value;             /* in the unit shown (ms for latencies, AAS, sessions, /s) */
	double hold;              /* s the condition must hold ("for 5s"); 0: at once */
	double since;             /* wall time it has held since; 0: it does not hold */
};

/* What a trigger that holds says. */
struct trig_hit {
	char id[TRIGGER_ID_LEN];  /* the trigger's, or the finding's for TK_FINDINGS */
	char kind[16];            /* "finding", "threshold", "down", "manual" */
	char why[240];            /* "commit latency 23.1 ms > 10 ms for 5 s" */
};

/* Parse one trigger ("[NAME:] CONDITION [for DURATION]"). 0, or -1 with
 * the reason in err. */
int trigger_parse(const char *text, struct trigger *t, char *err, size_t errlen);
/* The default: any finding at warning or above. */
void trigger_default_findings(struct trigger *t);
/* Evaluate t on m (after model_update of its newest sample): true when it
 * holds (and has held for its DURATION); hit says what. */
bool trigger_eval(struct trigger *t, const struct model *m, struct trig_hit *hit);
/* The current value t looks at (NaN: not known now), for messages and tests. */
double trigger_value(const struct trigger *t, const struct model *m);

#endif
