/* incident_list.c - the list screen of `dbtop --incidents DIR`. See
 * incident_list.h. */
#include "incident_list.h"

#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../panes/canvas.h"
#include "../util/util.h"

static bool utf8_term(void)
{
	const char *l = setlocale(LC_CTYPE, NULL);
	return l && (strstr(l, "UTF-8") || strstr(l, "utf8") || strstr(l, "UTF8"));
}

/* One row: time (UTC), server, trigger, size, what the summary says. */
static void row_text(const struct incident_entry *e, char *buf, size_t len)
{
	char t[32] = "?", kb[16];
	time_t tt = (time_t)e->wall;
	struct tm tm;
	if (e->wall > 0 && gmtime_r(&tt, &tm))
		strftime(t, sizeof t, "%Y-%m-%d %H:%M:%S", &tm);
	str_printf(kb, sizeof kb, "%.0fK", e->bytes / 1024.0);
	/* the summary's line without the time and server it starts with */
	const char *what = e->line, *p = strstr(e->line, e->server[0] ? e->server : "\x01");
	if (p)
		what = p + strlen(e->server);
	while (*what == ' ')
		what++;
	str_printf(buf, len, "%-19s  %-20.20s  %-18.18s %6s%s %s", t, e->server, e->trigger[0] ? e->trigger : "?", kb,
		   strcmp(e->status, "complete") ? "*" : " ", what);
}

static void draw(const char *dir, const struct incident_entry *e, int n, int sel, int *top)
{
	char line[1200], fit[4000];
	bool u8 = utf8_term();
	int rows = LINES - 3;
	erase();
	str_printf(line, sizeof line, "dbtop incidents in %s: %d file%s, newest first (* being written or cut short)", dir, n,
		   n == 1 ? "" : "s");
	text_fit(fit, sizeof fit, line, COLS, u8);
	attron(A_BOLD);
	mvaddstr(0, 0, fit);
	attroff(A_BOLD);
	str_printf(line, sizeof line, "%-19s  %-20s  %-18s %6s  %s", "trigger time (UTC)", "server", "trigger", "size",
		   "summary");
	text_fit(fit, sizeof fit, line, COLS, u8);
	mvaddstr(1, 0, fit);
	if (rows < 1)
		return;
	if (sel < *top)
		*top = sel;
	if (sel >= *top + rows)
		*top = sel - rows + 1;
	for (int i = *top; i < n && i - *top < rows; i++) {
		row_text(&e[i], line, sizeof line);
		text_fit(fit, sizeof fit, line, COLS, u8);
		if (i == sel)
			attron(A_REVERSE);
		mvaddstr(2 + i - *top, 0, fit);
		if (i == sel)
			attroff(A_REVERSE);
	}
	if (n == 0)
		mvaddstr(2, 0, "no incident file here yet: dbtop --no-screen --incidents DIR TARGET writes them");
	text_fit(fit, sizeof fit, "Up/Down choose  Enter replay (opens at the trigger)  q quit", COLS, u8);
	attron(A_REVERSE);
	mvaddstr(LINES - 1, 0, fit);
	attroff(A_REVERSE);
	refresh();
}

int incident_list_pick(const char *dir, const struct incident_entry *e, int n, int *sel)
{
	int top = 0, rc = 0;
	setlocale(LC_ALL, "");
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	if (*sel >= n)
		*sel = n ? n - 1 : 0;
	for (;;) {
		draw(dir, e, n, *sel, &top);
		int k = getch();
		int page = LINES > 4 ? LINES - 3 : 1;
		if (k == 'q' || k == 'Q' || k == 27 || k == ERR)
			break;
		if ((k == '\n' || k == '\r' || k == KEY_ENTER) && n > 0) {
			rc = 1;
			break;
		}
		if (k == KEY_UP || k == 'k')
			*sel -= *sel > 0;
		else if (k == KEY_DOWN || k == 'j')
			*sel += *sel < n - 1;
		else if (k == KEY_PPAGE)
			*sel = *sel > page ? *sel - page : 0;
		else if (k == KEY_NPAGE)
			*sel = *sel + page < n ? *sel + page : (n ? n - 1 : 0);
		else if (k == KEY_HOME)
			*sel = 0;
		else if (k == KEY_END)
			*sel = n ? n - 1 : 0;
	}
	endwin();
	return rc;
}
