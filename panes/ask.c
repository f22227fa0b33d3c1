/* ask.c - the confirmation box (ask.h). */
#include "ask.h"

#include <string.h>

const char *ask_title(enum pane_action act)
{
	return act == PA_TERMINATE    ? "End this session?"
	       : act == PA_CANCEL     ? "Cancel this statement?"
	       : act == PA_TUNE_APPLY ? "Change this setting?"
	       : act == PA_TUNE_KEEP  ? "Keep this change?"
				      : "Revert the changes an earlier dbtop left in force?";
}

/* The frame of cv: corners, rules, sides. */
static void ask_frame(struct canvas *cv, int w, int h)
{
	bool utf8 = cv->utf8;
	const char *hz = utf8 ? "\xe2\x94\x80" : "-", *vt = utf8 ? "\xe2\x94\x82" : "|";
	char rule[90 * 3 + 1] = "";
	for (int i = 0; i < w - 2 && i < 90; i++)
		strcat(rule, hz);
	cv_printf(cv, 0, 0, R_LABEL, "%s%s%s", utf8 ? "\xe2\x94\x8c" : "+", rule, utf8 ? "\xe2\x94\x90" : "+");
	cv_printf(cv, h - 1, 0, R_LABEL, "%s%s%s", utf8 ? "\xe2\x94\x94" : "+", rule, utf8 ? "\xe2\x94\x98" : "+");
	for (int i = 1; i < h - 1; i++) {
		cv_text(cv, i, 0, R_LABEL, vt);
		cv_text(cv, i, w - 1, R_LABEL, vt);
	}
}

void ask_draw(struct canvas *scr, const struct pane_ask *ask, bool replay)
{
	int cols = scr->w, lines = scr->h;
	int w = cols - 4 < 90 ? cols - 4 : 90, x0 = (cols - w) / 2;
	int need = wrap_rows(ask->what, w - 4) + 4, h = need < lines - 2 ? need : lines - 2, y0 = (lines - h) / 2;
	/* its rows and one above and below blanked edge to edge: nothing of
	 * the screen runs into the frame */
	struct canvas m = cv_sub(scr, y0 - 1, 0, h + 2, cols);
	for (int i = 0; i < h + 2; i++)
		cv_fill(&m, i, 0, cols, R_NORMAL);
	struct canvas cv = cv_sub(scr, y0, x0, h, w);
	ask_frame(&cv, w, h);
	struct canvas in = cv_sub(&cv, 1, 2, h - 2, w - 4);
	/* a recording has no server to act on: said before any key, not after y */
	int x = cv_text(&in, 0, 0, R_CRIT, ask_title(ask->act));
	if (replay)
		cv_text(&in, 0, x + 1, R_WARN, "(a recording: nothing will be done; live, it would ask this)");
	cv_wrap(&in, 1, 0, R_NORMAL, ask->what, in.h - 1);
	cv_text(&in, in.h - 1, 0, R_KEY,
		replay ? "any key closes: a recording cannot act" : "y: do it    any other key: no");
}
