/* fleetrows.c - the fleet screen's rows and header (fleetrows.h). */
#include "fleetrows.h"

#include <string.h>
#include <time.h>

#include "../sources/source.h"
#include "../util/util.h"

void fleet_row_of(struct fleet_row *r, int idx, const struct target_run *t, double interval, bool frozen, double now)
{
	/* no sample for this long while UP: a query has not come back */
	double stale = frozen ? 0 : 2 * interval + t->src->query_timeout + 1;
	fleet_row_fill(r, idx, t->name, t->host, t->m, t->down_since_set ? t->down_since : 0, stale, now);
}

void fleet_header_draw(struct canvas *cv, const struct fleet_row *rows, int n, double interval, bool paused, double now)
{
	int up = 0, bad = 0, down = 0, cols = cv->w;
	char t[200], clock[16];
	time_t tnow = (time_t)now;
	struct tm tm;
	for (int i = 0; i < n; i++) {
		up += strcmp(rows[i].state, "UP") == 0;
		bad += rows[i].bad;
		down += rows[i].bad && strcmp(rows[i].state, "DOWN") == 0;
	}
	localtime_r(&tnow, &tm);
	strftime(clock, sizeof clock, "%H:%M:%S", &tm);
	cv_fill(cv, 0, 0, cols, bad ? R_HEADER_DOWN : R_HEADER);
	int x = cv_text(cv, 0, 0, R_HEADER, " dbtop ");
	str_printf(t, sizeof t, "FLEET %d servers: %d UP", n, up);
	x += cv_text(cv, 0, x, R_HEADER, t);
	if (down) {
		str_printf(t, sizeof t, ", %d DOWN", down);
		x += cv_text(cv, 0, x, R_HEADER_DOWN, t);
	}
	if (bad > down) {
		str_printf(t, sizeof t, ", %d STALLED", bad - down);
		x += cv_text(cv, 0, x, R_HEADER_DOWN, t);
	}
	if (up + bad < n) {
		str_printf(t, sizeof t, ", %d CONNECTING", n - up - bad);
		x += cv_text(cv, 0, x, R_HEADER, t);
	}
	str_printf(t, sizeof t, "  every %gs%s  %s ", interval, paused ? "  PAUSED" : "", clock);
	if (x + text_cols(t) <= cols)
		cv_text_right(cv, 0, cols, R_HEADER, t);
}
