/* help.c - the help screen (help.h). */
#include "help.h"

#include <string.h>

#include "../util/util.h"
#include "keys.h"

/* text from row y, column x of cv, wrapped at spaces to the width left;
 * rows outside cv are clipped (y may be negative), none is cut short.
 * Returns the next row. (The key table's texts are ASCII.) */
static int help_wrap(struct canvas *cv, int y, int x, enum role r, const char *text)
{
	int w = cv->w - x > 8 ? cv->w - x : 8;
	while (*text) {
		int n = (int)strlen(text), cut = n;
		if (n > w) {
			for (cut = w; cut > 0 && text[cut] != ' '; cut--)
				;
			if (cut == 0)
				cut = w;
		}
		char line[256];
		str_printf(line, sizeof line, "%.*s", cut, text);
		cv_text(cv, y++, x, r, line);
		text += cut;
		while (*text == ' ')
			text++;
	}
	return y;
}

/* Help rows from row y of cv (rows outside it are clipped: y may be
 * negative when scrolled) for the bindings of this screen (mine) or of
 * the others; returns the next row. */
static int help_section(const struct help_in *in, struct canvas *cv, int y, bool mine)
{
	static const char *const heads[] = {"on this screen", "on other screens"};
	char where[64], title[96];
	bool any = false;
	for (size_t i = 0; i < key_nbinds; i++) {
		const struct key_bind *b = &key_binds[i];
		if (!!(b->where & KW_SCREEN(in->screen)) != mine || (!in->several && key_fleet_only(b)))
			continue;
		if (!any) {
			if (in->screen == 0 || !mine)
				str_copy(title, sizeof title, heads[!mine]);
			else if (in->screen == SCREEN_FLEET)
				str_printf(title, sizeof title, "%s (the fleet)", heads[0]);
			else
				str_printf(title, sizeof title, "%s (%d %s)", heads[0], in->screen, in->title);
			y++; /* a blank row before the section */
			cv_text(cv, y++, 1, R_TITLE, title);
			any = true;
		}
		key_where_text(b, where, sizeof where);
		cv_text(cv, y, 1, R_KEY, b->name);
		cv_text(cv, y, 12, R_LABEL, where);
		y = help_wrap(cv, y, 28, R_KEYTEXT, b->help);
	}
	return y;
}

int help_draw(struct canvas *scr, const struct help_in *in, int *rows, int *shown)
{
	int cols = scr->w, lines = scr->h;
	int w = cols - 2 < 100 ? cols - 2 : 100, body = lines - 3, x0 = (cols - w) / 2, top = in->top;
	struct canvas under = cv_sub(scr, 1, 0, lines - 1, cols);
	/* blank every row under the box edge to edge, the key bar too */
	for (int i = 0; i < lines - 1; i++)
		cv_fill(&under, i, 0, cols, R_NORMAL);
	/* count the rows on a canvas that shows none */
	struct canvas none = cv_sub(scr, 1, x0, 0, w);
	int total = help_section(in, &none, help_section(in, &none, 1, true), false);
	if (top > total - body)
		top = total - body;
	if (top < 0)
		top = 0;
	*rows = total;
	*shown = body;
	struct canvas box = cv_sub(scr, 1, x0, body, w);
	cv_text(&box, -top, 1, R_TITLE, "dbtop keys");
	help_section(in, &box, help_section(in, &box, 1 - top, true), false);
	struct canvas tail = cv_sub(scr, 1 + body, x0, 1, w);
	cv_text(&tail, 0, 1, R_UNKNOWN, "unknown values show as '-' with the reason, never as 0");
	struct canvas foot = cv_sub(scr, lines - 1, 0, 1, cols);
	char f[160];
	str_printf(f, sizeof f, "help %d-%d of %d  j k Up Down PgUp PgDn scroll  any other key closes", top + 1,
		   top + body < total ? top + body : total, total);
	cv_text(&foot, 0, 0, R_KEYTEXT, f);
	return top;
}
