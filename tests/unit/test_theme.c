/* test_theme.c - the pure half of themes: built-ins, the theme file parser
 * and its error messages, the shipped theme files (themes/NAME.theme) files and the search
 * path of theme_load. Run from the repository root. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../tui/theme.h"
#include "../../util/util.h"
#include "tap.h"

static char tmpdir[256];

/* True when a and b have the same name and styles. */
static bool same_theme(const struct theme_spec *a, const struct theme_spec *b)
{
	if (strcmp(a->name, b->name) != 0)
		return false;
	for (int r = 0; r < R__COUNT; r++)
		if (a->role[r].fg != b->role[r].fg || a->role[r].bg != b->role[r].bg ||
		    a->role[r].attrs != b->role[r].attrs)
			return false;
	return true;
}

/* True when two styles look the same. */
static bool same_style(struct theme_style a, struct theme_style b)
{
	return a.fg == b.fg && a.bg == b.bg && a.attrs == b.attrs;
}

/* True when needle occurs in hay. */
static bool has(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

/* Write text to dir/name; returns the path in a static buffer. */
static const char *write_file(const char *dir, const char *name, const char *text)
{
	static char path[512];
	FILE *f;
	str_printf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	return path;
}

/* Read a whole (small) file into a new string, or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;
	if (!f)
		return NULL;
	buf = xmalloc(1 << 17);
	n = fread(buf, 1, (1 << 17) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Parse one "ROLE = value" line; returns the rc and the style of role r. */
static int parse_one(const char *value, struct theme_style *st, char *err, size_t errlen)
{
	char text[256];
	struct theme_spec t;
	int rc;
	str_printf(text, sizeof text, "note = %s\n", value);
	rc = theme_parse(text, &t, err, errlen);
	*st = t.role[R_NOTE];
	return rc;
}

/* Every built-in loads, by theme_builtin and theme_load, and the cycle
 * lists exactly the four. */
static void test_builtins(void)
{
	static const char *const names[] = {"dark", "light", "mono", "high-contrast"};
	struct theme_spec t, u;
	char err[256], msg[128];

	for (int i = 0; i < 4; i++) {
		str_printf(msg, sizeof msg, "builtin %s loads", names[i]);
		CHECK(theme_builtin(names[i], &t) == 0 && strcmp(t.name, names[i]) == 0, msg);
		str_printf(msg, sizeof msg, "theme_load %s is the built-in", names[i]);
		CHECK(theme_load(names[i], &u, err, sizeof err) == 0 && same_theme(&t, &u), msg);
		str_printf(msg, sizeof msg, "theme_cycle[%d] is %s", i, names[i]);
		CHECK(theme_cycle[i] && strcmp(theme_cycle[i], names[i]) == 0, msg);
	}
	CHECK(theme_cycle[4] == NULL, "theme_cycle is NULL-terminated after 4");
	CHECK(theme_builtin("nope", &t) == -1, "unknown builtin is -1");
	CHECK(strcmp(t.name, "dark") == 0, "unknown builtin leaves dark in out");
	CHECK(theme_builtin("default", &t) == 0 && strcmp(t.name, "dark") == 0,
	      "builtin default is dark");
	CHECK(theme_load(NULL, &t, err, sizeof err) == 0 && strcmp(t.name, "dark") == 0,
	      "theme_load NULL is dark");
	CHECK(theme_load("", &t, err, sizeof err) == 0 && strcmp(t.name, "dark") == 0,
	      "theme_load empty is dark");
}

/* Role names: unique, round trip through the parser, NULL out of range. */
static void test_role_names(void)
{
	struct theme_spec t;
	char text[128], err[256], msg[128];
	bool unique = true, all = true;

	for (int r = 0; r < R__COUNT; r++) {
		const char *n = theme_role_name((enum role)r);
		if (!n) {
			all = false;
			continue;
		}
		for (int q = 0; q < r; q++)
			if (theme_role_name((enum role)q) && strcmp(n, theme_role_name((enum role)q)) == 0)
				unique = false;
		str_printf(text, sizeof text, "%s = 201, 17, underline\n", n);
		str_printf(msg, sizeof msg, "role %s parses", n);
		CHECK(theme_parse(text, &t, err, sizeof err) == 0 && t.role[r].fg == 201 &&
		          t.role[r].bg == 17 && t.role[r].attrs == THEME_ATTR_UNDERLINE,
		      msg);
	}
	CHECK(all, "every role has a name");
	CHECK(unique, "role names are unique");
	CHECK_STR(theme_role_name(R_HEADER_DOWN), "header.down", "R_HEADER_DOWN is header.down");
	CHECK_STR(theme_role_name(R_KEYTEXT), "keytext", "R_KEYTEXT is keytext");
	CHECK(theme_role_name(R__COUNT) == NULL, "R__COUNT has no name");
}

/* Each shipped theme files (themes/NAME.theme) parses and equals the built-in it names. */
static void test_shipped_files(void)
{
	DIR *d = opendir("themes");
	struct dirent *e;
	int files = 0;
	char msg[256], err[256], path[512];
	bool seen[4] = {false, false, false, false};

	CHECK(d != NULL, "themes/ directory opens (run from the repository root)");
	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		struct theme_spec t, b;
		char *text;
		int rc;
		if (n <= 6 || strcmp(e->d_name + n - 6, ".theme") != 0)
			continue;
		files++;
		str_printf(path, sizeof path, "themes/%s", e->d_name);
		text = slurp(path);
		rc = text ? theme_parse(text, &t, err, sizeof err) : -1;
		str_printf(msg, sizeof msg, "%s parses (%s)", path, rc ? err : "ok");
		CHECK(rc == 0, msg);
		str_printf(msg, sizeof msg, "%s names a built-in (%s)", path, t.name);
		CHECK(rc == 0 && theme_builtin(t.name, &b) == 0, msg);
		str_printf(msg, sizeof msg, "%s equals built-in %s", path, t.name);
		CHECK(rc == 0 && same_theme(&t, &b), msg);
		str_printf(msg, sizeof msg, "%s names every role", path);
		{
			/* a file naming every role does not depend on the defaults */
			bool every = true;
			for (int r = 0; text && r < R__COUNT; r++) {
				char key[64];
				str_printf(key, sizeof key, "\n%s ", theme_role_name((enum role)r));
				if (!has(text, key))
					every = false;
			}
			CHECK(every, msg);
		}
		str_printf(msg, sizeof msg, "%s theme_load by path", path);
		CHECK(theme_load(path, &t, err, sizeof err) == 0 && same_theme(&t, &b), msg);
		for (int i = 0; i < 4; i++)
			if (strcmp(t.name, theme_cycle[i]) == 0)
				seen[i] = true;
		free(text);
	}
	closedir(d);
	CHECK(files >= 4, "at least four shipped theme files");
	CHECK(seen[0] && seen[1] && seen[2] && seen[3], "a shipped file for every built-in");
}

/* Colours: names, bright-X, numbers 0..255, default; 256 and junk fail. */
static void test_colours(void)
{
	static const char *const names[8] = {"black", "red",     "green", "yellow",
	                                     "blue",  "magenta", "cyan",  "white"};
	struct theme_style st;
	char v[64], err[256], msg[128];

	for (int c = 0; c < 8; c++) {
		str_printf(v, sizeof v, "%s, default", names[c]);
		str_printf(msg, sizeof msg, "colour %s is %d", names[c], c);
		CHECK(parse_one(v, &st, err, sizeof err) == 0 && st.fg == c && st.bg == -1, msg);
		str_printf(v, sizeof v, "default, bright-%s", names[c]);
		str_printf(msg, sizeof msg, "colour bright-%s is %d", names[c], c + 8);
		CHECK(parse_one(v, &st, err, sizeof err) == 0 && st.fg == -1 && st.bg == c + 8, msg);
	}
	CHECK(parse_one("0, 255", &st, err, sizeof err) == 0 && st.fg == 0 && st.bg == 255,
	      "numbers 0 and 255");
	CHECK(parse_one("17, 231", &st, err, sizeof err) == 0 && st.fg == 17 && st.bg == 231,
	      "numbers 17 and 231");
	{
		bool all = true;
		for (int c = 0; c <= 255; c++) {
			str_printf(v, sizeof v, "%d, %d", c, 255 - c);
			if (parse_one(v, &st, err, sizeof err) != 0 || st.fg != c || st.bg != 255 - c)
				all = false;
		}
		CHECK(all, "every number 0..255 parses");
	}
	CHECK(parse_one("RED, Bright-Blue", &st, err, sizeof err) == 0 && st.fg == 1 && st.bg == 12,
	      "colour names ignore case");
	CHECK(parse_one("default, default", &st, err, sizeof err) == 0 && st.fg == -1 &&
	          st.bg == -1 && st.attrs == 0,
	      "default, default has no attributes");
	CHECK(parse_one("256, default", &st, err, sizeof err) == -1, "256 is an error");
	CHECK(has(err, "line 1") && has(err, "bad colour") && has(err, "'256'"),
	      "256 error names line, problem and value");
	CHECK(parse_one("red, 1000", &st, err, sizeof err) == -1, "1000 is an error");
	CHECK(parse_one("-1, red", &st, err, sizeof err) == -1, "-1 is an error");
	CHECK(parse_one("orange, red", &st, err, sizeof err) == -1 && has(err, "'orange'"),
	      "unknown colour name is an error");
	CHECK(parse_one("bright-, red", &st, err, sizeof err) == -1, "bare bright- is an error");
	CHECK(parse_one("bright-default, red", &st, err, sizeof err) == -1,
	      "bright-default is an error");
	CHECK(parse_one("12x, red", &st, err, sizeof err) == -1, "12x is an error");
	CHECK(parse_one("red", &st, err, sizeof err) == -1 && has(err, "line 1"),
	      "a missing background is an error");
	CHECK(parse_one("red, , bold", &st, err, sizeof err) == -1 && has(err, "empty field"),
	      "an empty field is an error");
}

/* Attribute lists: none, single, several, optional, unknown. */
static void test_attrs(void)
{
	struct theme_style st;
	char err[256];

	CHECK(parse_one("red, blue", &st, err, sizeof err) == 0 && st.attrs == 0,
	      "attributes are optional");
	CHECK(parse_one("red, blue, none", &st, err, sizeof err) == 0 && st.attrs == 0,
	      "none is no attributes");
	CHECK(parse_one("red, blue, bold", &st, err, sizeof err) == 0 &&
	          st.attrs == THEME_ATTR_BOLD,
	      "bold");
	CHECK(parse_one("red, blue, dim", &st, err, sizeof err) == 0 && st.attrs == THEME_ATTR_DIM,
	      "dim");
	CHECK(parse_one("red, blue, underline", &st, err, sizeof err) == 0 &&
	          st.attrs == THEME_ATTR_UNDERLINE,
	      "underline");
	CHECK(parse_one("red, blue, reverse", &st, err, sizeof err) == 0 &&
	          st.attrs == THEME_ATTR_REVERSE,
	      "reverse");
	CHECK(parse_one("red, blue, bold, underline", &st, err, sizeof err) == 0 &&
	          st.attrs == (THEME_ATTR_BOLD | THEME_ATTR_UNDERLINE),
	      "bold, underline");
	CHECK(parse_one("red,blue,reverse,dim,bold,underline", &st, err, sizeof err) == 0 &&
	          st.attrs == (THEME_ATTR_BOLD | THEME_ATTR_DIM | THEME_ATTR_UNDERLINE |
	                       THEME_ATTR_REVERSE),
	      "all four without spaces");
	CHECK(parse_one("red, blue, BOLD", &st, err, sizeof err) == 0 &&
	          st.attrs == THEME_ATTR_BOLD,
	      "attributes ignore case");
	CHECK(parse_one("red, blue, blink", &st, err, sizeof err) == -1 &&
	          has(err, "bad attribute") && has(err, "'blink'"),
	      "unknown attribute is an error naming it");
	CHECK(parse_one("red, blue, bold underline", &st, err, sizeof err) == -1,
	      "attributes need commas");
	CHECK(parse_one("red, blue, bold,", &st, err, sizeof err) == -1,
	      "a trailing comma is an error");
}

/* Line syntax: comments, blanks, CRLF, whitespace, errors with line numbers. */
static void test_syntax(void)
{
	struct theme_spec t, dark;
	char err[256];

	theme_builtin("dark", &dark);
	CHECK(theme_parse("", &t, err, sizeof err) == 0 && same_theme(&t, &dark),
	      "empty text is the dark theme");
	CHECK(theme_parse("# only a comment\n\n   \n\t\n", &t, err, sizeof err) == 0 &&
	          same_theme(&t, &dark),
	      "comments and blank lines only is the dark theme");
	CHECK(theme_parse("name = mine\r\nwarn = blue, default, bold\r\n# c\r\n\r\n", &t, err,
	                  sizeof err) == 0 &&
	          strcmp(t.name, "mine") == 0 && t.role[R_WARN].fg == 4 &&
	          t.role[R_WARN].attrs == THEME_ATTR_BOLD,
	      "CRLF line ends");
	CHECK(theme_parse("  \t crit\t=\t 9 ,  0 ,bold ,  reverse \t\n", &t, err, sizeof err) == 0 &&
	          t.role[R_CRIT].fg == 9 && t.role[R_CRIT].bg == 0 &&
	          t.role[R_CRIT].attrs == (THEME_ATTR_BOLD | THEME_ATTR_REVERSE),
	      "whitespace tolerant");
	CHECK(theme_parse("crit = red, default # trailing comment\n", &t, err, sizeof err) == 0 &&
	          t.role[R_CRIT].fg == 1 && t.role[R_CRIT].attrs == 0,
	      "trailing comment");
	CHECK(theme_parse("title = green, default", &t, err, sizeof err) == 0 &&
	          t.role[R_TITLE].fg == 2,
	      "last line without a newline");
	CHECK(theme_parse("\xef\xbb\xbftitle = green, default\n", &t, err, sizeof err) == 0 &&
	          t.role[R_TITLE].fg == 2,
	      "UTF-8 byte order mark");
	CHECK(theme_parse("title = green, default\ntitle = blue, default\n", &t, err, sizeof err) ==
	              0 &&
	          t.role[R_TITLE].fg == 4,
	      "a later line wins");
	CHECK(theme_parse("name = x\nspark = magenta, default\n", &t, err, sizeof err) == 0 &&
	          same_style(t.role[R_WARN], dark.role[R_WARN]) &&
	          same_style(t.role[R_HEADER], dark.role[R_HEADER]) && t.role[R_SPARK].fg == 5,
	      "roles not named keep the dark values");

	CHECK(theme_parse("# 1\n\n# 3\nname = x\n\nvalue = red, default\nbogus = red, default\n", &t,
	                  err, sizeof err) == -1,
	      "unknown role on line 7 fails");
	CHECK(has(err, "line 7:") && has(err, "unknown role") && has(err, "'bogus'"),
	      "unknown role error says line 7 and names the role");
	CHECK(same_theme(&t, &dark), "a failed parse leaves the dark theme in out");
	CHECK(theme_parse("\n\n\n\n\n\nvalue = red, default, sparkly\n", &t, err, sizeof err) ==
	              -1 &&
	          has(err, "line 7:") && has(err, "sparkly"),
	      "bad attribute on line 7 says line 7");
	CHECK(theme_parse("name = x\nvalue red default\n", &t, err, sizeof err) == -1 &&
	          has(err, "line 2:") && has(err, "missing '='"),
	      "missing '=' names line 2");
	CHECK(theme_parse("= red, default\n", &t, err, sizeof err) == -1 && has(err, "line 1:"),
	      "missing key is an error");
	CHECK(theme_parse("value =\n", &t, err, sizeof err) == -1 && has(err, "missing value"),
	      "missing value is an error");
	CHECK(theme_parse("name = \n", &t, err, sizeof err) == -1, "empty name is an error");
	CHECK(theme_parse("name = 0123456789012345678901234567890123\n", &t, err, sizeof err) == -1 &&
	          has(err, "too long"),
	      "a name over 31 characters is an error");
	CHECK(theme_parse("x\n\nvalue = \x1b[31m, default\n", &t, err, sizeof err) == -1 &&
	          has(err, "line 1:"),
	      "the first bad line is reported");
	CHECK(theme_parse("value = \x1b[31m, default\n", &t, err, sizeof err) == -1 &&
	          !strchr(err, '\x1b'),
	      "control characters are not echoed in errors");
	CHECK(theme_parse("value = red\n", &t, NULL, 0) == -1, "NULL err is allowed");
	{
		char small[8];
		CHECK(theme_parse("bogus = red, red\n", &t, small, sizeof small) == -1 &&
		          strlen(small) == sizeof small - 1,
		      "a short err buffer is truncated, not overflowed");
	}
}

/* The older role names of hand-written files map to the new roles. */
static void test_aliases(void)
{
	struct theme_spec t;
	char err[256];
	int rc = theme_parse("keybar.key = 1, 2\nkeybar.text = 3, 4\nspark.warn = 5, 6\n"
	                     "spark.bad = 7, 8\n",
	                     &t, err, sizeof err);
	CHECK(rc == 0, "older role names parse");
	CHECK(t.role[R_KEY].fg == 1 && t.role[R_KEY].bg == 2, "keybar.key is key");
	CHECK(t.role[R_KEYTEXT].fg == 3 && t.role[R_KEYTEXT].bg == 4, "keybar.text is keytext");
	CHECK(t.role[R_WARN].fg == 5 && t.role[R_WARN].bg == 6, "spark.warn is warn");
	CHECK(t.role[R_CRIT].fg == 7 && t.role[R_CRIT].bg == 8, "spark.bad is crit");
	CHECK(theme_parse("Header.Down = red, blue\n", &t, err, sizeof err) == 0 &&
	          t.role[R_HEADER_DOWN].fg == 1,
	      "role names ignore case");
	CHECK(theme_parse("header_down = red, blue\n", &t, err, sizeof err) == -1 &&
	          has(err, "unknown role"),
	      "header_down (enum spelling) is not a role");
}

/* The built-ins keep roles apart where it matters. */
static void test_builtin_contrast(void)
{
	char msg[128];
	struct theme_spec t;

	for (int i = 0; theme_cycle[i]; i++) {
		const struct theme_style *r;
		theme_builtin(theme_cycle[i], &t);
		r = t.role;
		str_printf(msg, sizeof msg, "%s: selected differs from normal", t.name);
		CHECK(!same_style(r[R_SELECTED], r[R_NORMAL]), msg);
		str_printf(msg, sizeof msg, "%s: header differs from normal", t.name);
		CHECK(!same_style(r[R_HEADER], r[R_NORMAL]), msg);
		str_printf(msg, sizeof msg, "%s: header.down differs from header", t.name);
		CHECK(!same_style(r[R_HEADER_DOWN], r[R_HEADER]), msg);
		str_printf(msg, sizeof msg, "%s: warn, crit and value differ", t.name);
		CHECK(!same_style(r[R_WARN], r[R_CRIT]) && !same_style(r[R_WARN], r[R_VALUE]) &&
		          !same_style(r[R_CRIT], r[R_VALUE]),
		      msg);
		str_printf(msg, sizeof msg, "%s: waiter differs from blocker", t.name);
		CHECK(!same_style(r[R_WAITER], r[R_BLOCKER]), msg);
		str_printf(msg, sizeof msg, "%s: warn and crit use no background (sparklines)",
		           t.name);
		CHECK(r[R_WARN].bg == -1 && r[R_CRIT].bg == -1 && r[R_SPARK].bg == -1 &&
		          !(r[R_WARN].attrs & THEME_ATTR_REVERSE) &&
		          !(r[R_SPARK].attrs & THEME_ATTR_REVERSE),
		      msg);
	}

	theme_builtin("mono", &t);
	{
		bool colourless = true;
		for (int r = 0; r < R__COUNT; r++)
			if (t.role[r].fg != -1 || t.role[r].bg != -1)
				colourless = false;
		CHECK(colourless, "mono: no colours at all");
	}
	CHECK(t.role[R_SELECTED].attrs & (THEME_ATTR_REVERSE | THEME_ATTR_BOLD),
	      "mono: selected is reverse or bold");
	CHECK(t.role[R_HEADER].attrs & (THEME_ATTR_REVERSE | THEME_ATTR_BOLD),
	      "mono: header is reverse or bold");
	CHECK(t.role[R_HEADER_DOWN].attrs & THEME_ATTR_REVERSE, "mono: header.down is reverse");

	theme_builtin("light", &t);
	{
		bool readable = true;
		for (int r = 0; r < R__COUNT; r++) {
			short fg = t.role[r].fg;
			if (t.role[r].bg == -1 && (fg == 3 || fg == 7 || fg == 11 || fg == 15))
				readable = false;
		}
		CHECK(readable, "light: no white or yellow text on the default background");
	}

	theme_builtin("high-contrast", &t);
	CHECK(t.role[R_SELECTED].attrs & THEME_ATTR_REVERSE, "high-contrast: selected is reverse");
	CHECK(t.role[R_HEADER].attrs & THEME_ATTR_REVERSE, "high-contrast: header is reverse");
	CHECK(t.role[R_WARN].fg >= 8 && t.role[R_CRIT].fg >= 8 &&
	          (t.role[R_CRIT].attrs & THEME_ATTR_BOLD),
	      "high-contrast: bright bold warn and crit");
}

/* theme_load: unknown names, paths, the search path and its order. */
static void test_load(void)
{
	struct theme_spec t, dark;
	char err[512], dir1[300], dir2[300], home[300], path[600];
	const char *p;

	theme_builtin("dark", &dark);

	memset(&t, 0x5a, sizeof t);
	CHECK(theme_load("no-such-theme-xyz", &t, err, sizeof err) == -1,
	      "unknown theme name is -1");
	CHECK(has(err, "unknown theme no-such-theme-xyz") &&
	          has(err, "built-ins: dark, light, mono, high-contrast"),
	      "unknown theme error lists the built-ins");
	CHECK(same_theme(&t, &dark), "unknown theme leaves the dark theme in out");

	/* a path */
	p = write_file(tmpdir, "mine.theme", "# mine\nname = mine\ncrit = 196, default, bold\n");
	CHECK(theme_load(p, &t, err, sizeof err) == 0 && strcmp(t.name, "mine") == 0 &&
	          t.role[R_CRIT].fg == 196,
	      "theme_load with a path");
	p = write_file(tmpdir, "noname.theme", "crit = 160, default\n");
	CHECK(theme_load(p, &t, err, sizeof err) == 0 && strcmp(t.name, "noname") == 0 &&
	          t.role[R_CRIT].fg == 160,
	      "a file without a name line is named after the file");
	p = write_file(tmpdir, "bad.theme", "name = bad\n\n\nwarn = red, default\n\n\nwarn = pink, red\n");
	memset(&t, 0x5a, sizeof t);
	CHECK(theme_load(p, &t, err, sizeof err) == -1, "a bad file fails");
	str_printf(path, sizeof path, "%s: line 7: bad colour 'pink'", p);
	CHECK(has(err, path), "a bad file's error names file and line 7");
	CHECK(same_theme(&t, &dark), "a bad file leaves the dark theme in out");
	str_printf(path, sizeof path, "%s/absent.theme", tmpdir);
	CHECK(theme_load(path, &t, err, sizeof err) == -1 && has(err, path) &&
	          same_theme(&t, &dark),
	      "a missing path fails naming the path");
	CHECK(theme_load(tmpdir, &t, err, sizeof err) == -1 && has(err, tmpdir),
	      "a directory fails");
	{
		char *big = xmalloc(70 * 1024 + 1);
		memset(big, '#', 70 * 1024);
		big[70 * 1024] = '\0';
		p = write_file(tmpdir, "big.theme", big);
		free(big);
		CHECK(theme_load(p, &t, err, sizeof err) == -1 && has(err, "too large"),
		      "a file over 64 KB is refused");
	}
	{
		FILE *f;
		str_printf(path, sizeof path, "%s/nul.theme", tmpdir);
		f = fopen(path, "wb");
		if (f) {
			fwrite("name = x\n\0warn = red, red\n", 1, 26, f);
			fclose(f);
		}
		CHECK(theme_load(path, &t, err, sizeof err) == -1 && has(err, "NUL"),
		      "a file with NUL bytes is refused");
	}

	/* the search path: $DBTOP_THEME_DIR, then ~/.config/dbtop/themes */
	str_printf(dir1, sizeof dir1, "%s/envdir", tmpdir);
	str_printf(home, sizeof home, "%s/home", tmpdir);
	str_printf(dir2, sizeof dir2, "%s/home/.config/dbtop/themes", tmpdir);
	mkdir(dir1, 0700);
	str_printf(path, sizeof path, "%s/home", tmpdir);
	mkdir(path, 0700);
	str_printf(path, sizeof path, "%s/home/.config", tmpdir);
	mkdir(path, 0700);
	str_printf(path, sizeof path, "%s/home/.config/dbtop", tmpdir);
	mkdir(path, 0700);
	mkdir(dir2, 0700);
	write_file(dir1, "ocean.theme", "name = ocean\nborder = 24, default\n");
	write_file(dir2, "ocean.theme", "name = ocean-home\nborder = 25, default\n");
	write_file(dir2, "forest.theme", "border = 22, default, dim\n");
	write_file(dir1, "broken.theme", "\n\nborder = 22\n");
	write_file(dir1, "dark.theme", "name = not-the-builtin\n");
	setenv("HOME", home, 1);

	setenv("DBTOP_THEME_DIR", dir1, 1);
	CHECK(theme_load("ocean", &t, err, sizeof err) == 0 && strcmp(t.name, "ocean") == 0 &&
	          t.role[R_BORDER].fg == 24,
	      "DBTOP_THEME_DIR is searched first");
	CHECK(theme_load("forest", &t, err, sizeof err) == 0 && strcmp(t.name, "forest") == 0 &&
	          t.role[R_BORDER].fg == 22 && t.role[R_BORDER].attrs == THEME_ATTR_DIM,
	      "~/.config/dbtop/themes is searched next");
	CHECK(theme_load("broken", &t, err, sizeof err) == -1 && has(err, "broken.theme: line 3:") &&
	          same_theme(&t, &dark),
	      "a broken file on the search path names file and line");
	CHECK(theme_load("dark", &t, err, sizeof err) == 0 && same_theme(&t, &dark),
	      "a built-in name wins over a file of that name");
	unsetenv("DBTOP_THEME_DIR");
	CHECK(theme_load("ocean", &t, err, sizeof err) == 0 &&
	          strcmp(t.name, "ocean-home") == 0 && t.role[R_BORDER].fg == 25,
	      "without DBTOP_THEME_DIR the home theme is found");
	setenv("DBTOP_THEME_DIR", "", 1);
	CHECK(theme_load("forest", &t, err, sizeof err) == 0 && strcmp(t.name, "forest") == 0,
	      "an empty DBTOP_THEME_DIR is skipped");
	unsetenv("DBTOP_THEME_DIR");

	/* ./themes/NAME.theme (the test runs from the repository root) */
	theme_builtin("light", &dark);
	CHECK(theme_load("default", &t, err, sizeof err) == 0 && strcmp(t.name, "dark") == 0,
	      "default loads the dark theme");
	CHECK(theme_load("themes/light.theme", &t, err, sizeof err) == 0 && same_theme(&t, &dark),
	      "a relative path loads directly");
	CHECK(theme_load("no-such-theme-xyz", &t, NULL, 0) == -1, "NULL err is allowed");
}

/* Remove the scratch directory tree. */
static void cleanup(void)
{
	char cmd[400];
	if (!tmpdir[0])
		return;
	str_printf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

/* Run every check with HOME and the theme directory pointed at a scratch dir. */
int main(void)
{
	const char *base = getenv("TMPDIR");
	str_printf(tmpdir, sizeof tmpdir, "%s/dbtop-theme-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	/* the user's own themes must not change the results */
	unsetenv("DBTOP_THEME_DIR");
	setenv("HOME", tmpdir, 1);

	test_builtins();
	test_role_names();
	test_shipped_files();
	test_colours();
	test_attrs();
	test_syntax();
	test_aliases();
	test_builtin_contrast();
	test_load();
	cleanup();
	return TAP_DONE();
}
