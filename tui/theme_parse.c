/* theme_parse.c - the pure half of themes: built-in themes, the theme file
 * parser and the theme search path. No curses here, so it is unit-tested. */
#include "theme.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

#ifndef DBTOP_DATADIR
#define DBTOP_DATADIR "/usr/local/share/dbtop"
#endif

/* theme files larger than this are refused */
#define THEME_FILE_MAX (64 * 1024)

#define BUILTIN_LIST "dark, light, mono, high-contrast"

const char *const theme_cycle[] = {"dark", "light", "mono", "high-contrast", NULL};

static const char *const role_names[R__COUNT] = {
	[R_NORMAL] = "normal",
	[R_HEADER] = "header",
	[R_HEADER_DOWN] = "header.down",
	[R_TITLE] = "title",
	[R_LABEL] = "label",
	[R_VALUE] = "value",
	[R_UNKNOWN] = "unknown",
	[R_WARN] = "warn",
	[R_CRIT] = "crit",
	[R_SPARK] = "spark",
	[R_NOTE] = "note",
	[R_KEY] = "key",
	[R_KEYTEXT] = "keytext",
	[R_SELECTED] = "selected",
	[R_WAITER] = "waiter",
	[R_BLOCKER] = "blocker",
	[R_BORDER] = "border",
};

/* older role names still found in hand-written theme files */
static const struct {
	const char *name;
	enum role r;
} role_aliases[] = {
	{"keybar.key", R_KEY},
	{"keybar.text", R_KEYTEXT},
	{"spark.warn", R_WARN},
	{"spark.bad", R_CRIT},
};

static const char *const colour_names[8] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

static const struct {
	const char *name;
	unsigned bit;
} attr_names[] = {
	{"bold", THEME_ATTR_BOLD},
	{"dim", THEME_ATTR_DIM},
	{"underline", THEME_ATTR_UNDERLINE},
	{"reverse", THEME_ATTR_REVERSE},
};

/* shorthands for the built-in tables */
#define D THEME_DEFAULT_COLOR
#define BLACK 0
#define RED 1
#define GREEN 2
#define YELLOW 3
#define BLUE 4
#define MAGENTA 5
#define CYAN 6
#define WHITE 7
#define BRIGHT 8
#define B THEME_ATTR_BOLD
#define M THEME_ATTR_DIM
#define U THEME_ATTR_UNDERLINE
#define V THEME_ATTR_REVERSE

static const struct theme_spec builtins[] = {
	{"dark", {
		[R_NORMAL] = {D, D, 0},
		[R_HEADER] = {WHITE, BLUE, B},
		[R_HEADER_DOWN] = {WHITE, RED, B},
		[R_TITLE] = {CYAN, D, B},
		[R_LABEL] = {D, D, 0},
		[R_VALUE] = {D, D, B},
		[R_UNKNOWN] = {BRIGHT + BLACK, D, 0},
		[R_WARN] = {YELLOW, D, B},
		[R_CRIT] = {RED, D, B},
		[R_SPARK] = {GREEN, D, 0},
		[R_NOTE] = {CYAN, D, 0},
		[R_KEY] = {BLACK, CYAN, 0},
		[R_KEYTEXT] = {D, D, 0},
		[R_SELECTED] = {BLACK, CYAN, 0},
		[R_WAITER] = {YELLOW, D, 0},
		[R_BLOCKER] = {RED, D, B},
		[R_BORDER] = {BLUE, D, 0},
	}},
	{"light", {
		[R_NORMAL] = {D, D, 0},
		[R_HEADER] = {WHITE, BLUE, B},
		[R_HEADER_DOWN] = {WHITE, RED, B},
		[R_TITLE] = {BLUE, D, B},
		[R_LABEL] = {D, D, 0},
		[R_VALUE] = {D, D, B},
		[R_UNKNOWN] = {D, D, M},
		[R_WARN] = {MAGENTA, D, B},
		[R_CRIT] = {RED, D, B},
		[R_SPARK] = {BLUE, D, 0},
		[R_NOTE] = {GREEN, D, 0},
		[R_KEY] = {WHITE, BLUE, 0},
		[R_KEYTEXT] = {D, D, 0},
		[R_SELECTED] = {WHITE, BLUE, 0},
		[R_WAITER] = {MAGENTA, D, 0},
		[R_BLOCKER] = {RED, D, B},
		[R_BORDER] = {BLUE, D, 0},
	}},
	{"mono", {
		[R_NORMAL] = {D, D, 0},
		[R_HEADER] = {D, D, B | V},
		[R_HEADER_DOWN] = {D, D, B | U | V},
		[R_TITLE] = {D, D, B},
		[R_LABEL] = {D, D, 0},
		[R_VALUE] = {D, D, 0},
		[R_UNKNOWN] = {D, D, M},
		[R_WARN] = {D, D, B | U},
		[R_CRIT] = {D, D, B | V},
		[R_SPARK] = {D, D, 0},
		[R_NOTE] = {D, D, 0},
		[R_KEY] = {D, D, V},
		[R_KEYTEXT] = {D, D, 0},
		[R_SELECTED] = {D, D, V},
		[R_WAITER] = {D, D, U},
		[R_BLOCKER] = {D, D, B | U},
		[R_BORDER] = {D, D, 0},
	}},
	{"high-contrast", {
		[R_NORMAL] = {D, D, 0},
		[R_HEADER] = {BRIGHT + YELLOW, BLACK, V},
		[R_HEADER_DOWN] = {BRIGHT + RED, BLACK, V},
		[R_TITLE] = {BRIGHT + CYAN, D, B},
		[R_LABEL] = {D, D, 0},
		[R_VALUE] = {BRIGHT + WHITE, D, B},
		[R_UNKNOWN] = {BRIGHT + MAGENTA, D, 0},
		[R_WARN] = {BRIGHT + YELLOW, D, B},
		[R_CRIT] = {BRIGHT + RED, D, B},
		[R_SPARK] = {BRIGHT + GREEN, D, 0},
		[R_NOTE] = {BRIGHT + CYAN, D, 0},
		[R_KEY] = {BRIGHT + CYAN, BLACK, V},
		[R_KEYTEXT] = {BRIGHT + WHITE, D, 0},
		[R_SELECTED] = {BRIGHT + WHITE, BLACK, V},
		[R_WAITER] = {BRIGHT + YELLOW, D, U},
		[R_BLOCKER] = {BRIGHT + RED, D, B | U},
		[R_BORDER] = {WHITE, D, 0},
	}},
};

#undef D
#undef BLACK
#undef RED
#undef GREEN
#undef YELLOW
#undef BLUE
#undef MAGENTA
#undef CYAN
#undef WHITE
#undef BRIGHT
#undef B
#undef M
#undef U
#undef V

/* A text range [b, e) within the theme file. */
struct span {
	const char *b, *e;
};

/* ASCII lower case of c, locale independent. */
static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* True when c is blank for the theme syntax (space, tab, CR, VT, FF). */
static bool blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Span s without leading and trailing blanks. */
static struct span trim(struct span s)
{
	while (s.b < s.e && blank((unsigned char)*s.b))
		s.b++;
	while (s.e > s.b && blank((unsigned char)s.e[-1]))
		s.e--;
	return s;
}

/* True when span s equals word, ignoring ASCII case. */
static bool span_is(struct span s, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(s.e - s.b) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower((unsigned char)s.b[i]) != lower((unsigned char)word[i]))
			return false;
	return true;
}

/* True when span s starts with prefix, ignoring ASCII case. */
static bool span_starts(struct span s, const char *prefix)
{
	size_t n = strlen(prefix);
	if ((size_t)(s.e - s.b) < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower((unsigned char)s.b[i]) != lower((unsigned char)prefix[i]))
			return false;
	return true;
}

/* First occurrence of c in span s, or NULL. */
static const char *span_chr(struct span s, char c)
{
	return s.b < s.e ? memchr(s.b, c, (size_t)(s.e - s.b)) : NULL;
}

/* Copy span s into dst for an error message: clipped, unprintable bytes
 * replaced by '?'. */
static void span_show(char *dst, size_t dstlen, struct span s)
{
	size_t n = (size_t)(s.e - s.b), max = 40, o = 0;
	bool clipped = n > max;
	if (clipped)
		n = max;
	for (size_t i = 0; i < n && o + 1 < dstlen; i++) {
		unsigned char c = (unsigned char)s.b[i];
		dst[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (clipped)
		for (int i = 0; i < 3 && o + 1 < dstlen; i++)
			dst[o++] = '.';
	if (dstlen)
		dst[o < dstlen ? o : dstlen - 1] = '\0';
}

/* Write "line N: WHAT 'TOKEN'HINT" into err (if any) and return -1. */
static int line_err(char *err, size_t errlen, int line, const char *what, struct span tok,
                    const char *hint)
{
	char shown[64];
	span_show(shown, sizeof shown, tok);
	if (err && errlen)
		str_printf(err, errlen, "line %d: %s '%s'%s", line, what, shown, hint);
	return -1;
}

/* Role named by span s (current or older name), or R__COUNT if none. */
static enum role role_lookup(struct span s)
{
	for (int r = 0; r < R__COUNT; r++)
		if (span_is(s, role_names[r]))
			return (enum role)r;
	for (size_t i = 0; i < sizeof role_aliases / sizeof role_aliases[0]; i++)
		if (span_is(s, role_aliases[i].name))
			return role_aliases[i].r;
	return R__COUNT;
}

/* Parse a colour (default, a name, bright-NAME or 0-255) into *out; 0 or -1. */
static int colour_parse(struct span s, short *out)
{
	size_t n = (size_t)(s.e - s.b);
	if (span_is(s, "default")) {
		*out = THEME_DEFAULT_COLOR;
		return 0;
	}
	if (n >= 1 && n <= 3 && strspn(s.b, "0123456789") >= n) {
		int v = 0;
		for (size_t i = 0; i < n; i++)
			v = v * 10 + (s.b[i] - '0');
		if (v > 255)
			return -1;
		*out = (short)v;
		return 0;
	}
	short base = 0;
	if (span_starts(s, "bright-")) {
		base = 8;
		s.b += strlen("bright-");
	}
	for (short c = 0; c < 8; c++)
		if (span_is(s, colour_names[c])) {
			*out = (short)(base + c);
			return 0;
		}
	return -1;
}

/* Bit of the attribute named by span s ("none" is 0), or -1 if unknown. */
static long attr_parse(struct span s)
{
	if (span_is(s, "none"))
		return 0;
	for (size_t i = 0; i < sizeof attr_names / sizeof attr_names[0]; i++)
		if (span_is(s, attr_names[i].name))
			return (long)attr_names[i].bit;
	return -1;
}

/* Parse "FG, BG[, ATTR...]" from span v into *st; 0 or -1 with err. */
static int style_parse(struct span v, int line, struct theme_style *st, char *err, size_t errlen)
{
	static const char colour_hint[] =
	    " (default, black, red, green, yellow, blue, magenta, cyan, white, "
	    "bright-<colour> or 0-255)";
	static const char attr_hint[] = " (none, or a comma list of bold, dim, underline, reverse)";
	struct theme_style r = {THEME_DEFAULT_COLOR, THEME_DEFAULT_COLOR, 0};
	int field = 0;
	const char *p = v.b;

	for (;;) {
		const char *comma = span_chr((struct span){p, v.e}, ',');
		struct span f = trim((struct span){p, comma ? comma : v.e});
		if (f.b == f.e)
			return line_err(err, errlen, line, "empty field in", v,
			                " (expected FG, BG[, ATTRS])");
		if (field < 2) {
			short c;
			if (colour_parse(f, &c) < 0)
				return line_err(err, errlen, line, "bad colour", f, colour_hint);
			if (field == 0)
				r.fg = c;
			else
				r.bg = c;
		} else {
			long a = attr_parse(f);
			if (a < 0)
				return line_err(err, errlen, line, "bad attribute", f, attr_hint);
			r.attrs |= (unsigned)a;
		}
		field++;
		if (!comma)
			break;
		p = comma + 1;
	}
	if (field < 2)
		return line_err(err, errlen, line, "missing background in", v,
		                " (expected FG, BG[, ATTRS])");
	*st = r;
	return 0;
}

/* Store the theme name from span v; 0 or -1 with err. */
static int name_parse(struct span v, int line, struct theme_spec *t, char *err, size_t errlen)
{
	size_t n = (size_t)(v.e - v.b);
	if (n >= sizeof t->name)
		return line_err(err, errlen, line, "theme name too long", v, " (at most 31 characters)");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v.b[i];
		if (c < 0x20 || c == 0x7f)
			return line_err(err, errlen, line, "control character in theme name", v, "");
	}
	memcpy(t->name, v.b, n);
	t->name[n] = '\0';
	return 0;
}

/* Parse one line (without its newline) into t; *named is set by a name line. */
static int line_parse(struct span s, int line, struct theme_spec *t, bool *named, char *err,
                      size_t errlen)
{
	const char *hash = span_chr(s, '#');
	if (hash)
		s.e = hash;
	s = trim(s);
	if (s.b == s.e)
		return 0;

	const char *eq = span_chr(s, '=');
	if (!eq)
		return line_err(err, errlen, line, "missing '=' in", s, " (expected ROLE = FG, BG[, ATTRS])");
	struct span key = trim((struct span){s.b, eq});
	struct span val = trim((struct span){eq + 1, s.e});
	if (key.b == key.e)
		return line_err(err, errlen, line, "missing role before '=' in", s, "");
	if (val.b == val.e)
		return line_err(err, errlen, line, "missing value for", key, "");

	if (span_is(key, "name")) {
		if (name_parse(val, line, t, err, errlen) < 0)
			return -1;
		*named = true;
		return 0;
	}
	enum role r = role_lookup(key);
	if (r == R__COUNT)
		return line_err(err, errlen, line, "unknown role", key,
		                " (roles: normal, header, header.down, title, label, value, unknown, "
		                "warn, crit, spark, note, key, keytext, selected, waiter, blocker, "
		                "border)");
	return style_parse(val, line, &t->role[r], err, errlen);
}

/* theme_parse, also reporting whether the text named the theme. */
static int parse_text(const char *text, struct theme_spec *out, bool *named, char *err,
                      size_t errlen)
{
	struct theme_spec t = builtins[0];
	const char *p = text ? text : "";
	int line = 1;

	*named = false;
	if (err && errlen)
		err[0] = '\0';
	if ((unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb && (unsigned char)p[2] == 0xbf)
		p += 3; /* UTF-8 byte order mark */
	for (;; line++) {
		const char *nl = strchr(p, '\n');
		struct span s = {p, nl ? nl : p + strlen(p)};
		if (line_parse(s, line, &t, named, err, errlen) < 0) {
			*out = builtins[0];
			return -1;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	*out = t;
	return 0;
}

/* The theme file name of role r, NULL when out of range. */
const char *theme_role_name(enum role r)
{
	return (int)r >= 0 && r < R__COUNT ? role_names[r] : NULL;
}

/* Parse theme text over the dark defaults; on error out is the dark theme. */
int theme_parse(const char *text, struct theme_spec *out, char *err, size_t errlen)
{
	bool named;
	return parse_text(text, out, &named, err, errlen);
}

/* Copy built-in NAME ("default" is dark) to out; unknown names give dark and -1. */
int theme_builtin(const char *name, struct theme_spec *out)
{
	struct span s = {name, name ? name + strlen(name) : NULL};
	for (size_t i = 0; name && i < sizeof builtins / sizeof builtins[0]; i++)
		if (span_is(s, builtins[i].name) || (i == 0 && span_is(s, "default"))) {
			if (out)
				*out = builtins[i];
			return 0;
		}
	if (out)
		*out = builtins[0];
	return -1;
}

/* Read at most THEME_FILE_MAX bytes of path into a new string (*text);
 * 0, or -1 with errno-style reason in err (ENOENT leaves *missing true). */
static int read_file(const char *path, char **text, bool *missing, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	*missing = false;
	*text = NULL;
	if (!f) {
		*missing = errno == ENOENT || errno == ENOTDIR;
		str_printf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	buf = xmalloc(THEME_FILE_MAX + 2);
	n = fread(buf, 1, THEME_FILE_MAX + 1, f);
	if (ferror(f)) {
		str_printf(err, errlen, "%s: %s", path, strerror(errno ? errno : EIO));
		goto fail;
	}
	if (n > THEME_FILE_MAX) {
		str_printf(err, errlen, "%s: too large (a theme file is at most %d KB)", path,
		           THEME_FILE_MAX / 1024);
		goto fail;
	}
	if (memchr(buf, '\0', n)) {
		str_printf(err, errlen, "%s: not a text file (contains NUL bytes)", path);
		goto fail;
	}
	fclose(f);
	buf[n] = '\0';
	*text = buf;
	return 0;
fail:
	fclose(f);
	free(buf);
	return -1;
}

/* Load the theme file at path into out; *missing is set when it does not
 * exist. Without a name line the theme is named after the file. */
static int load_file(const char *path, struct theme_spec *out, bool *missing, char *err,
                     size_t errlen)
{
	char *text, lerr[256];
	bool named;
	int rc;

	if (read_file(path, &text, missing, err, errlen) < 0) {
		*out = builtins[0];
		return -1;
	}
	rc = parse_text(text, out, &named, lerr, sizeof lerr);
	free(text);
	if (rc < 0) {
		str_printf(err, errlen, "%s: %s", path, lerr);
		return -1;
	}
	if (!named) {
		const char *base = strrchr(path, '/');
		size_t len;
		base = base ? base + 1 : path;
		len = strlen(base);
		if (len > 6 && strcmp(base + len - 6, ".theme") == 0)
			len -= 6;
		if (len >= sizeof out->name)
			len = sizeof out->name - 1;
		memcpy(out->name, base, len);
		out->name[len] = '\0';
		for (char *c = out->name; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
	}
	return 0;
}

/* True when name ends with ".theme" (a file name given without a directory). */
static bool has_theme_suffix(const char *name)
{
	size_t n = strlen(name);
	return n > 6 && strcmp(name + n - 6, ".theme") == 0;
}

/* Load a built-in, a theme found on the search path, or a file by path. */
int theme_load(const char *name_or_path, struct theme_spec *out, char *err, size_t errlen)
{
	char dummy[8], path[4096], shown[64];
	bool missing;
	int n;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof dummy;
	}
	err[0] = '\0';
	if (!name_or_path || !*name_or_path)
		return theme_builtin("dark", out);
	if (strchr(name_or_path, '/') || has_theme_suffix(name_or_path))
		return load_file(name_or_path, out, &missing, err, errlen);
	if (theme_builtin(name_or_path, out) == 0)
		return 0;

	const char *dir_env = getenv("DBTOP_THEME_DIR");
	const char *home = getenv("HOME");
	for (int i = 0; i < 4; i++) {
		path[0] = '\0';
		n = -1;
		if (i == 0 && dir_env && *dir_env)
			n = snprintf(path, sizeof path, "%s/%s.theme", dir_env, name_or_path);
		else if (i == 1 && home && *home)
			n = snprintf(path, sizeof path, "%s/.config/dbtop/themes/%s.theme", home,
			             name_or_path);
		else if (i == 2)
			n = snprintf(path, sizeof path, "./themes/%s.theme", name_or_path);
		else if (i == 3)
			n = snprintf(path, sizeof path, "%s/themes/%s.theme", DBTOP_DATADIR,
			             name_or_path);
		if (n < 0 || (size_t)n >= sizeof path)
			continue;
		if (load_file(path, out, &missing, err, errlen) == 0)
			return 0;
		if (!missing)
			return -1;
	}
	*out = builtins[0];
	span_show(shown, sizeof shown, (struct span){name_or_path, name_or_path + strlen(name_or_path)});
	str_printf(err, errlen, "unknown theme %s (built-ins: " BUILTIN_LIST ")", shown);
	return -1;
}
