/* forecast.h - what a remedy of the tuning table should do, from what dbtop
 * measured in the same minute (the model's rates), and whether it did: the
 * forecast is a range per figure (COMMIT latency, syncs per second) with the
 * figures it used, or "no forecast: <what is missing>"; the outcome is the
 * same figures measured after a settle time, against that range. The rules
 * are a table keyed by the tunables' forecast rule (core/tunables.h). Pure:
 * no curses, no database. */
#ifndef DBTOP_FORECAST_H
#define DBTOP_FORECAST_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/sample.h"
#include "../core/tunables.h"

struct model;

#define FC_ITEMS 2
#define FC_TEXT_LEN 400
#define FC_WINDOW_S 60.0       /* the figures before: the intervals of the last minute */
#define FC_SETTLE_INTERVALS 3  /* after a change is seen: not measured (the change settles) */
#define FC_MEASURE_INTERVALS 5 /* then measured over this many */
/* ... by the figures read after the settling only: a figure read every few
 * refreshes (a paced summary) is measured by its reads that cover only
 * time after it, waited for up to this long */
#define FC_MEASURE_MAX_S 60.0

/* One forecast figure: a metric (enum metric_id), its value before, the
 * range it should fall in after. */
struct fc_item {
	int metric;
	double before, lo, hi;
};

struct forecast {
	bool ok; /* a forecast (else text says what is missing) */
	int n;
	struct fc_item it[FC_ITEMS];
	char text[FC_TEXT_LEN]; /* "COMMIT 20.2 ms -> 0-15.8 ms (...)" or "no forecast: ..." */
};

/* The forecast of setting t from its value now to value to, from the
 * model's figures of the last minute. */
void forecast_make(const struct model *m, const struct tunable *t, const char *to, struct forecast *fc);

enum fc_state {
	FCO_NONE = 0,
	FCO_SETTLING,  /* the change seen, the settle time not over */
	FCO_MEASURING, /* measuring the intervals after */
	FCO_MET,       /* every figure inside its range */
	FCO_MISSED,    /* a figure outside */
	FCO_UNKNOWN,   /* no forecast, or a figure not measured after */
};

/* The newest change of a forecast setting the model saw, its forecast and
 * its outcome. */
struct fc_outcome {
	enum fc_state state;
	char name[64], from[TUNE_VALUE_LEN], to[TUNE_VALUE_LEN];
	int scope; /* TK_PG_ROLE / TK_PG_DATABASE: the change was one role's or database's own
				* value (pg_db_role_setting), for target; 0: the server's */
	char target[64];
	double wall;           /* the sample that saw the change */
	unsigned long seen;    /* model interval that saw it */
	unsigned long decided; /* model interval the outcome was decided (0: not yet) */
	struct forecast fc;
	double after[FC_ITEMS];               /* measured after (NaN: not measured) */
	double settled_mono;                  /* the settling's end: what is measured covers only time after it */
	double sum[FC_ITEMS], span[FC_ITEMS]; /* each figure x the seconds it covers, and their sum */
	char text[FC_TEXT_LEN];               /* "forecast met: ..." / "forecast missed: ..." / why not */
};

/* The model's settings (before sample s is taken in) against s's reading:
 * a setting of the table changed to its remedy starts an outcome (the
 * forecast from the intervals before; a role's or a database's own value
 * set to it starts one with no forecast: only its new sessions take it,
 * and how many come is not known); each interval after moves it on:
 * FC_SETTLE_INTERVALS settle, the next FC_MEASURE_INTERVALS are measured
 * (each figure by its values that cover only time after the settling,
 * weighted by the time they cover; a paced one waited for up to
 * FC_MEASURE_MAX_S) and judged. Called by model_update, after the rates of
 * s. */
void forecast_track(struct model *m, const struct sample *s);
/* Compare measured figures with the forecast: FCO_MET, FCO_MISSED or
 * FCO_UNKNOWN (a figure not measured), with the text. */
enum fc_state forecast_judge(const struct forecast *fc, const double *after, char *text, size_t len);
const char *fc_state_name(enum fc_state s);

struct strbuf;
/* The JSON member ,"tuning":{"outcome":...} (null when no change was seen). */
void forecast_json(const struct fc_outcome *o, struct strbuf *out);
/* The same with, when m read them (PostgreSQL), "scoped":[{"setting",
 * "scope" (role / database),"scope_name","value"}]: the roles' and the
 * databases' own values of the narrow settings (pg_db_role_setting). */
void forecast_json_scoped(const struct fc_outcome *o, const struct model *m, struct strbuf *out);

#endif
