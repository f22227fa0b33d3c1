/* tour.h - the incidents bundled into the binary for --demo: their
 * recordings (build/demo_rec.c, from recordings/) and caption tracks. */
#ifndef DBTOP_TOUR_H
#define DBTOP_TOUR_H

#include <stddef.h>
#include <stdio.h>

#include "../tui/ui.h"

struct demo_incident {
	struct tour_stop stop;        /* name, title, captions */
	const unsigned char *rec;     /* the recording's bytes */
	const size_t *len;
};

extern const struct demo_incident demo_incidents[];
extern const size_t demo_nincidents;
/* The tour's stops, in demo_incidents[] order. */
extern const struct tour_stop demo_stops[];

/* The incident called name (its full name, or a part of it that names
 * one incident only: "fsync", "lock", "wal"), or -1. */
int demo_find(const char *name);
/* One line per incident: its name and what happens (--demo list). */
void demo_list(FILE *f);

#endif
