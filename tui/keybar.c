/* keybar.c - the key bar (help.h). */
#include <string.h>

#include "../util/util.h"
#include "help.h"
#include "keys.h"

/* The filter prompt: the pattern, a cursor, its error or the keys. */
static void keybar_filter(struct canvas *cv, const struct keybar_in *in)
{
	int x = cv_text(cv, 0, 0, R_KEY, "filter /");
	x += cv_text(cv, 0, x, R_NORMAL, in->fbuf);
	x += cv_text(cv, 0, x, R_SELECTED, " ");
	if (in->ferr && in->ferr[0])
		cv_text(cv, 0, x + 2, R_CRIT, in->ferr);
	else
		cv_text(cv, 0, x + 2, R_KEYTEXT, "Enter apply  Esc cancel");
}

void keybar_draw(struct canvas *cv, const struct keybar_in *in)
{
	int x = 0, cols = cv->w;
	if (in->filtering) {
		keybar_filter(cv, in);
		return;
	}
	if (in->asking) {
		/* a confirmation is open: its answer, not an older message */
		cv_text(cv, 0, 0, R_KEY, "y");
		cv_text(cv, 0, 1, R_KEYTEXT, " does it, any other key declines");
		return;
	}
	if (in->msg && in->msg[0]) {
		cv_text(cv, 0, 0, R_NOTE, in->msg);
		return;
	}
	/* the bindings of this screen that have a bar label, whole ones only */
	for (size_t i = 0; i < key_nbinds && x < cols; i++) {
		const struct key_bind *b = &key_binds[i];
		if (!b->bar || !(b->where & KW_SCREEN(in->screen)) || (!in->several && key_fleet_only(b)))
			continue;
		const char *sp = strchr(b->bar, ' ');
		char k[16];
		str_printf(k, sizeof k, "%.*s", (int)(sp - b->bar), b->bar);
		if (x + text_cols(b->bar) > cols)
			break;
		x += cv_text(cv, 0, x, R_KEY, k);
		x += cv_text(cv, 0, x, R_KEYTEXT, sp);
		x += cv_text(cv, 0, x, R_KEYTEXT, "  ");
	}
}
