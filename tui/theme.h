/* theme.h - colour themes: semantic roles mapped to colours and attributes.
 * The parsing half is pure (no curses) and unit-tested; theme_apply() and
 * theme_attr() are the curses half. */
#ifndef DBTOP_THEME_H
#define DBTOP_THEME_H

#include <stdbool.h>
#include <stddef.h>

#include "../panes/role.h"

#define THEME_DEFAULT_COLOR (-1)
#define THEME_ATTR_BOLD 1u
#define THEME_ATTR_DIM 2u
#define THEME_ATTR_UNDERLINE 4u
#define THEME_ATTR_REVERSE 8u

struct theme_style {
	short fg, bg;     /* -1 default, 0..255 */
	unsigned attrs;   /* THEME_ATTR_* */
};

struct theme_spec {
	char name[32];
	struct theme_style role[R__COUNT];
};

/* Role name as written in theme files ("header", "spark", ...); NULL if none. */
const char *theme_role_name(enum role r);

/* Parse theme file text into out, starting from the built-in default (roles
 * the file does not name keep their default). Returns 0, or -1 with
 * "line N: what is wrong" in err. */
int theme_parse(const char *text, struct theme_spec *out, char *err, size_t errlen);

/* Built-in themes: "dark" (default), "light", "mono", "high-contrast".
 * Returns -1 for an unknown name. */
int theme_builtin(const char *name, struct theme_spec *out);

/* Load NAME (a built-in, or themes/NAME.theme from the search path:
 * $DBTOP_THEME_DIR, ~/.config/dbtop/themes, ./themes, DATADIR/themes) or a
 * PATH (contains '/'). On failure out holds the default theme and err says
 * why (file and line). */
int theme_load(const char *name_or_path, struct theme_spec *out, char *err, size_t errlen);

/* Names of the themes the t key cycles through, NULL-terminated. */
extern const char *const theme_cycle[];

/* curses half: set up colour pairs for t (after initscr/start_color).
 * no_color (NO_COLOR set, or a terminal without colours): attributes only.
 * Colours above the terminal's COLORS are mapped to the nearest of 8/16. */
void theme_apply(const struct theme_spec *t, bool no_color);
/* The curses attributes (pair + attrs) of role r under the applied theme. */
int theme_attr(enum role r);

#endif
