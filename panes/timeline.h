/* timeline.h - the timeline row drawn on a canvas: the span of time the
 * screen can travel over, the event log's marks on it, DOWN / STALLED
 * periods as a run of #, the moment shown or the mark chosen selected.
 * What the span is and which events are marks: run/travel.h. */
#ifndef DBTOP_PANE_TIMELINE_H
#define DBTOP_PANE_TIMELINE_H

#include "../model/events.h"
#include "canvas.h"

/* One row on cv (its whole width): t0's time, the span t0..t1 with ev's
 * marks, end ("now", "end") at the right; at (wall s, 0: none) selected. */
void timeline_draw(struct canvas *cv, const struct event_log *ev, double t0, double t1, double at, const char *end);

#endif
