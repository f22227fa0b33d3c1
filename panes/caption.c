/* caption.c - the caption line (caption.h). */
#include "caption.h"

#include <string.h>

#include "../util/util.h"

void caption_tour_text(char *buf, size_t len, int at, int n, const char *name, const char *text, bool ended,
		       double speed, int cols)
{
	if (ended)
		text = at + 1 < n ? (speed > 0 ? "end of this incident: the next one follows (> now, < back, q quits)"
					       : "end of this incident: > the next one, < the previous, q quits")
				  : "end of the tour: < the previous incident, q quits";
	/* the incident's name when the line has room for it */
	bool named = (int)(strlen(name) + strlen(text)) + 8 <= cols;
	str_printf(buf, len, " %d/%d %s  %s", at + 1, n, named ? name : "", text);
}

int caption_draw(struct canvas *scr, int bottom, const char *cap)
{
	int rows = scr->h >= 20 && wrap_rows(cap, scr->w) > 1 ? 2 : 1;
	struct canvas cc = cv_sub(scr, bottom - rows, 0, rows, scr->w);
	for (int i = 0; i < rows; i++)
		cv_fill(&cc, i, 0, scr->w, R_SELECTED);
	cv_wrap(&cc, 0, 0, R_SELECTED, cap, rows);
	return rows;
}
