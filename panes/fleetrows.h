/* fleetrows.h - the fleet screen's parts around its table (fleet.h): a
 * target's row read from its pipeline, and the header line (how many
 * servers and in what state, the interval, the clock). */
#ifndef DBTOP_PANE_FLEETROWS_H
#define DBTOP_PANE_FLEETROWS_H

#include <stdbool.h>

#include "../run/target.h"
#include "canvas.h"
#include "fleet.h"

/* Row r of target t (index idx): no sample for 2 intervals plus its
 * source's time limit (and a second) while UP makes it STALLED, unless
 * frozen (a replay or a paused screen); now: wall s. */
void fleet_row_of(struct fleet_row *r, int idx, const struct target_run *t, double interval, bool frozen, double now);

/* The fleet's header on row 0 of cv from its n rows: "FLEET n servers: u
 * UP, d DOWN, s STALLED, c CONNECTING", and at the right, when it fits,
 * the interval, PAUSED and the clock (now: wall s). */
void fleet_header_draw(struct canvas *cv, const struct fleet_row *rows, int n, double interval, bool paused,
		       double now);

#endif
