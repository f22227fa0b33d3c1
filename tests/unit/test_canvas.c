/* test_canvas.c - the cut mark of the canvas: a text cut at the edge ends
 * in "…" ("..." without UTF-8), a text that fits or only loses blanks does
 * not; text_fit / text_pad for table cells; cv_wrap marks the rest it could
 * not show. A text grid stands in for the screen. */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "../../panes/canvas.h"
#include "tap.h"

#define GW 40
#define GH 6

static char grid[GH][GW * 4 + 1];

/* Cells as UTF-8 strings per row: each put writes its text at column x
 * (the tests draw ASCII and "…" only: one column a character). */
static void grid_put(struct canvas *cv, int y, int x, enum role r, const char *s, int ncols)
{
	char row[GW * 4 + 1] = "";
	const char *p = grid[y];
	int col = 0;
	(void)cv;
	(void)r;
	(void)ncols;
	/* copy the first x columns, then s, then what follows its columns */
	size_t o = 0;
	while (*p && col < x) {
		size_t n = ((unsigned char)*p & 0xe0) == 0xe0 ? 3 : 1;
		memcpy(row + o, p, n);
		o += n;
		p += n;
		col++;
	}
	while (col < x) {
		row[o++] = ' ';
		col++;
	}
	strcpy(row + o, s);
	o += strlen(s);
	for (const char *q = s; *q; q += ((unsigned char)*q & 0xe0) == 0xe0 ? 3 : 1)
		col++;
	int c = 0;
	p = grid[y];
	while (*p && c < col) {
		p += ((unsigned char)*p & 0xe0) == 0xe0 ? 3 : 1;
		c++;
	}
	strcpy(row + o, p);
	strcpy(grid[y], row);
}

static const struct canvas_ops grid_ops = {.put = grid_put};

static struct canvas grid_canvas(int w, bool utf8)
{
	memset(grid, 0, sizeof grid);
	struct canvas cv = {.ops = &grid_ops, .h = GH, .w = w, .utf8 = utf8};
	return cv;
}

int main(void)
{
	char buf[256];
	setlocale(LC_ALL, "C.UTF-8");

	struct canvas cv = grid_canvas(10, true);
	cv_text(&cv, 0, 0, R_NORMAL, "short");
	CHECK_STR(grid[0], "short", "a text that fits is drawn as it is");
	cv_text(&cv, 1, 0, R_NORMAL, "0123456789");
	CHECK_STR(grid[1], "0123456789", "a text that fills the width exactly is not marked");
	cv_text(&cv, 2, 0, R_NORMAL, "0123456789abc");
	CHECK_STR(grid[2], "012345678\u2026", "a cut text ends in the mark, in its last column");
	cv_text(&cv, 3, 0, R_NORMAL, "0123456789     ");
	CHECK_STR(grid[3], "0123456789", "only blanks left out: no mark");
	cv_text(&cv, 4, 4, R_NORMAL, "abcdefghij");
	CHECK_STR(grid[4], "    abcde\u2026", "a cut from a column: the mark at the canvas edge");
	cv_text(&cv, 5, 0, R_NORMAL, "caf\u00e9 na\u00efve text");
	CHECK(strstr(grid[5], "\u2026") != NULL, "a cut UTF-8 text is marked too");

	cv = grid_canvas(10, false);
	cv_text(&cv, 0, 0, R_NORMAL, "0123456789abc");
	CHECK_STR(grid[0], "0123456...", "without UTF-8 (--ascii) the mark is ...");

	text_fit(buf, sizeof buf, "innodb_flush_log_at_trx_commit", 12, true);
	CHECK_STR(buf, "innodb_flus\u2026", "text_fit: cut to 12 columns with the mark");
	text_fit(buf, sizeof buf, "sync_binlog", 12, true);
	CHECK_STR(buf, "sync_binlog", "text_fit: a text that fits is kept");
	text_fit(buf, sizeof buf, "innodb_flush_log_at_trx_commit", 12, false);
	CHECK_STR(buf, "innodb_fl...", "text_fit without UTF-8");
	text_pad(buf, sizeof buf, "4.2", 6, true, true);
	CHECK_STR(buf, "   4.2", "text_pad right-aligns a number");
	text_pad(buf, sizeof buf, "dbtop_test_schema", 8, false, true);
	CHECK_STR(buf, "dbtop_t\u2026", "text_pad cuts a long cell with the mark");

	cv = grid_canvas(20, true);
	int y = cv_wrap(&cv, 0, 0, R_NORMAL, "one two three four five six seven eight nine ten eleven twelve", 2);
	CHECK(y == 2, "cv_wrap stops at maxy");
	CHECK_STR(grid[0], "one two three four", "cv_wrap breaks at a space");
	CHECK(strstr(grid[1], "\u2026") != NULL, tname("cv_wrap marks the rest it cannot show ('%s')", grid[1]));
	y = cv_wrap(&cv, 3, 0, R_NORMAL, "short words", 5);
	CHECK(y == 4 && strcmp(grid[3], "short words") == 0, "cv_wrap: a text that fits takes one row, unmarked");
	return TAP_DONE();
}
