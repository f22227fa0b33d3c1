/* theme_curses.c - the curses half of themes: one colour pair per role,
 * colours folded to what the terminal has, attributes only without colour. */
#include "theme.h"

#include <curses.h>

/* curses attributes of each role under the applied theme */
static attr_t role_attr[R__COUNT];

/* the xterm RGB values of the 16 basic colours */
static const unsigned char basic_rgb[16][3] = {
	{0, 0, 0},       {205, 0, 0},     {0, 205, 0},     {205, 205, 0},
	{0, 0, 238},     {205, 0, 205},   {0, 205, 205},   {229, 229, 229},
	{127, 127, 127}, {255, 0, 0},     {0, 255, 0},     {255, 255, 0},
	{92, 92, 255},   {255, 0, 255},   {0, 255, 255},   {255, 255, 255},
};

/* RGB of colour c (0..255) in the xterm 256-colour palette. */
static void palette_rgb(int c, int rgb[3])
{
	static const int cube[6] = {0, 95, 135, 175, 215, 255};
	if (c < 16) {
		for (int i = 0; i < 3; i++)
			rgb[i] = basic_rgb[c][i];
	} else if (c < 232) {
		c -= 16;
		rgb[0] = cube[c / 36];
		rgb[1] = cube[(c / 6) % 6];
		rgb[2] = cube[c % 6];
	} else {
		rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (c - 232);
	}
}

/* The basic colour (of the first n, 8 or 16) closest to palette colour c:
 * greys go to black/white (or the greys of 16), other colours to the basic
 * colour of their dominant channels (those at 2/3 of the strongest or
 * more), bright when those channels are at full strength. */
static short nearest_basic(int c, int n)
{
	int rgb[3], mx, mn, idx = 0;
	bool bright = true;

	palette_rgb(c, rgb);
	mx = rgb[0] > rgb[1] ? rgb[0] : rgb[1];
	mx = mx > rgb[2] ? mx : rgb[2];
	mn = rgb[0] < rgb[1] ? rgb[0] : rgb[1];
	mn = mn < rgb[2] ? mn : rgb[2];
	if (mx - mn <= 32) {
		int v = (mx + mn) / 2;
		if (n < 16)
			return v < 64 ? COLOR_BLACK : COLOR_WHITE;
		return v < 64 ? 0 : v < 178 ? 8 : v < 242 ? 7 : 15;
	}
	for (int k = 0; k < 3; k++)
		if (rgb[k] * 3 >= mx * 2) {
			idx |= 1 << k;
			if (rgb[k] < 236)
				bright = false;
		}
	return (short)(n >= 16 && bright ? idx + 8 : idx);
}

/* Colour c as the terminal can show it: itself, or the nearest basic colour. */
static short fold_colour(short c)
{
	int basics = COLORS >= 16 ? 16 : 8;
	if (c < 0 || COLORS >= 256 || c < basics)
		return c;
	return nearest_basic(c, basics);
}

/* Rough brightness (0..255) of basic colour c. */
static int luma(short c)
{
	const unsigned char *p = basic_rgb[c & 15];
	return (p[0] * 3 + p[1] * 6 + p[2]) / 10;
}

/* Curses attributes for THEME_ATTR_* bits. */
static attr_t curses_attrs(unsigned a)
{
	attr_t r = A_NORMAL;
	if (a & THEME_ATTR_BOLD)
		r |= A_BOLD;
	if (a & THEME_ATTR_DIM)
		r |= A_DIM;
	if (a & THEME_ATTR_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & THEME_ATTR_REVERSE)
		r |= A_REVERSE;
	return r;
}

/* Attributes only: a role whose colours are lost gets the mono theme's
 * attributes as well, and selected and header always stand out. */
static void apply_mono(const struct theme_spec *t)
{
	struct theme_spec mono;
	theme_builtin("mono", &mono);
	for (int r = 0; r < R__COUNT; r++) {
		const struct theme_style *s = &t->role[r];
		unsigned a = s->attrs;
		if (s->fg != THEME_DEFAULT_COLOR || s->bg != THEME_DEFAULT_COLOR)
			a |= mono.role[r].attrs;
		if (r == R_SELECTED || r == R_HEADER || r == R_HEADER_DOWN)
			a |= THEME_ATTR_REVERSE;
		role_attr[r] = curses_attrs(a);
	}
}

/* Set up one colour pair per role for t, or attributes only without colour. */
void theme_apply(const struct theme_spec *t, bool no_color)
{
	bool defaults;

	if (!t)
		return;
	if (no_color || !has_colors() || COLORS < 8 || COLOR_PAIRS <= R__COUNT) {
		apply_mono(t);
		return;
	}
	defaults = use_default_colors() == OK;
	for (int r = 0; r < R__COUNT; r++) {
		const struct theme_style *s = &t->role[r];
		short fg = fold_colour(s->fg), bg = fold_colour(s->bg);
		if (!defaults) {
			/* the terminal cannot keep its own colours: assume white on black */
			if (fg < 0)
				fg = COLOR_WHITE;
			if (bg < 0)
				bg = COLOR_BLACK;
		}
		if (fg >= 0 && fg == bg && s->fg != s->bg)
			fg = luma(bg) > 128 ? COLOR_BLACK : COLOR_WHITE;
		if (init_pair((short)(r + 1), fg, bg) == ERR) {
			apply_mono(t);
			return;
		}
		role_attr[r] = COLOR_PAIR(r + 1) | curses_attrs(s->attrs);
	}
}

/* The curses attributes of role r under the last applied theme. */
int theme_attr(enum role r)
{
	return (int)r >= 0 && r < R__COUNT ? (int)role_attr[r] : (int)A_NORMAL;
}
