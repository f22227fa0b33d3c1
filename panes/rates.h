/* rates.h - the fsync / commit rates pane: which figures it shows, in what
 * order, and how each is formatted. Used by the text batch output now and
 * by the screen. No curses or database headers. */
#ifndef DBTOP_PANE_RATES_H
#define DBTOP_PANE_RATES_H

#include <stddef.h>

#include "../model/model.h"

struct rates_row {
	enum metric_id metric;
	const char *label;
};

extern const struct rates_row rates_rows[];
extern const size_t rates_nrows;

/* Format r for metric id with its unit into buf ("-" plus the reason when
 * unknown, e.g. "- (reset)"). Returns buf. */
char *rates_format(enum metric_id id, const struct rate *r, char *buf, size_t len);

#endif
