/* fleet.h - the fleet screen: one row per server watched (name, engine
 * and version, state with its reason, commits/s, fsyncs per commit, the
 * commit or sync latency, lock waiters, the top wait event, the most
 * severe finding), sortable and filterable, drawn on a canvas. */
#ifndef DBTOP_PANE_FLEET_H
#define DBTOP_PANE_FLEET_H

#include <stdbool.h>

#include "../model/findings.h"
#include "../model/model.h"
#include "canvas.h"
#include "pane.h"

/* What a row shows of one server, read from its model. */
struct fleet_row {
	int idx;                 /* the target's index */
	char name[48];
	char host[128];          /* the target's label (host:port, socket, service) */
	char engine[48];         /* "MariaDB 10.11.6", "" before the first connection */
	char state[16];          /* CONNECTING, UP, DOWN, STALLED */
	bool bad;                /* DOWN or STALLED */
	char reason[300];        /* why DOWN / STALLED, "" when UP */
	double for_s;            /* s in this state (DOWN / STALLED), < 0: unknown */
	struct rate commits, fpc, lat;
	const char *lat_kind;    /* what it is: "commit", "wal" (sync), "redo", "binlog" (fsync); NULL */
	int waiting;             /* sessions waiting on a lock, -1 unknown */
	char wait[64];           /* top wait event (not idle), "" none */
	double wait_aas;
	bool has_finding;
	enum finding_severity sev;
	char finding[200];       /* "!! summary" of the most severe */
};

/* Sort orders of the fleet (pane_view.sort), s cycles them. */
enum fleet_sort {
	FS_GIVEN = 0,            /* the order the targets were given in */
	FS_WORST,                /* DOWN / STALLED first, then by finding severity */
	FS_NAME,
	FS_COMMITS,              /* commits/s, highest first */
	FS_FPC,                  /* fsyncs per commit, highest first */
	FS_LATENCY,              /* commit or sync latency, highest first */
	FS_WAITING,              /* lock waiters, most first */
	FS__COUNT
};
const char *fleet_sort_name(int sort);

/* Fill r for target idx named name (label host) from its model; since: wall s its
 * DOWN / STALLED spell began (0: unknown); stale_s: no sample for this
 * long makes the row STALLED (0: never); now: wall s. */
void fleet_row_fill(struct fleet_row *r, int idx, const char *name, const char *host, const struct model *m,
		    double since, double stale_s, double now);

/* The rows v's filter lets through, in v->sort's order, into order[]
 * (n slots); returns how many. */
int fleet_order(const struct fleet_row *rows, int n, const struct pane_view *v, const struct fleet_row **order);

/* The identity of row i of order[] (ctx) for pane_follow / pane_target:
 * its server (idx), whatever its place. */
void fleet_row_key(const void *ctx, int i, char *out, size_t len);

/* Draw rows (n of them; filtered by v's filter, sorted by v->sort) into
 * cv with a column heading and, at the bottom, the selected server's
 * reason or finding in full. The selection follows its server across
 * re-sorts (pane_follow). Sets v->nrows, v->nshown and v->sel_id (the
 * selected row's idx, -1 none). */
void fleet_draw(const struct fleet_row *rows, int n, struct pane_view *v, struct canvas *cv);

#endif
