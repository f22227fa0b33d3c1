/* userconf.c - the user's config file: "key = value" lines (userconf.h). */
#include "userconf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/util.h"
#include "targets.h"

const struct uconf_key uconf_dbtop_keys[] = {
	/* the options (same names, same values) */
	{"interval", UC_VALUE}, {"theme", UC_VALUE}, {"ascii", UC_SWITCH}, {"read-only", UC_SWITCH},
	{"server-budget", UC_VALUE}, {"query-timeout", UC_VALUE}, {"connect-timeout", UC_VALUE},
	{"sample-hz", UC_VALUE}, {"tune-ttl", UC_VALUE}, {"history", UC_VALUE}, {"snapshot-dir", UC_VALUE},
	{"top", UC_VALUE}, {"wide", UC_SWITCH}, {"format", UC_VALUE}, {"user", UC_VALUE},
	{"defaults-file", UC_VALUE}, {"engine", UC_VALUE}, {"ssl-mode", UC_VALUE}, {"ssl-ca", UC_VALUE},
	{"ssl-cert", UC_VALUE}, {"ssl-key", UC_VALUE},
	/* the file's own */
	{"target", UC_NAMED}, {"screen", UC_VALUE}, {"hide", UC_VALUE},
	{NULL, 0},
};

void uconf_init(struct uconf *c)
{
	memset(c, 0, sizeof *c);
}

void uconf_free(struct uconf *c)
{
	for (int i = 0; i < c->n; i++)
		secret_free(c->e[i].value);
	c->n = 0;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* The key of the table spelled s (n bytes; '_' reads as '-'), or NULL. */
static const struct uconf_key *find_key(const struct uconf_key *keys, const char *s, size_t n)
{
	char k[64];
	if (n == 0 || n >= sizeof k)
		return NULL;
	for (size_t i = 0; i < n; i++)
		k[i] = s[i] == '_' ? '-' : (char)tolower((unsigned char)s[i]);
	k[n] = '\0';
	for (const struct uconf_key *u = keys; u->key; u++)
		if (strcmp(u->key, k) == 0)
			return u;
	return NULL;
}

/* The end of the value in [s, e): before a '#' that follows a blank
 * (outside double quotes), then before trailing blanks. */
static const char *value_end(const char *s, const char *e)
{
	bool quoted = false;
	for (const char *p = s; p < e; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == '#' && !quoted && p > s && is_blank(p[-1])) {
			e = p;
			break;
		}
	}
	while (e > s && is_blank(e[-1]))
		e--;
	return e;
}

/* yes / no in a switch's value: 1, 0, or -1 for neither. */
static int switch_value(const char *v)
{
	static const char *const yes[] = {"yes", "on", "true", "1"}, *const no[] = {"no", "off", "false", "0"};
	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return 1;
		if (strcasecmp(v, no[i]) == 0)
			return 0;
	}
	return -1;
}

/* One line's state while it is read. */
struct uline {
	const char *p, *end;   /* the rest of the line */
	const struct uconf_key *k;
	char name[UCONF_NAME_LEN];
	char *value;
	bool has_value;
};

/* The NAME of "target NAME = ...": why not in err. */
static int read_name(struct uline *l, char *err, size_t errlen)
{
	const char *s = l->p;
	while (l->p < l->end && !is_blank(*l->p) && *l->p != '=')
		l->p++;
	size_t n = (size_t)(l->p - s);
	if (n == 0) {
		str_printf(err, errlen, "'%s' needs a name: %s NAME = TARGET", l->k->key, l->k->key);
		return -1;
	}
	if (!fleet_name_ok(s, n)) {
		str_printf(err, errlen, "a name is 1 to %d letters, digits, '_', '.' or '-', starting with a letter "
			   "or digit", UCONF_NAME_LEN - 1);
		return -1;
	}
	str_printf(l->name, sizeof l->name, "%.*s", (int)n, s);
	while (l->p < l->end && is_blank(*l->p))
		l->p++;
	return 0;
}

/* After the key (and name): "= value" or nothing. */
static int read_value(struct uline *l, char *err, size_t errlen)
{
	if (l->p < l->end && *l->p != '=') {
		str_printf(err, errlen, "expected '=' after '%s' (%s = VALUE)", l->k->key, l->k->key);
		return -1;
	}
	if (l->p == l->end)
		return 0;
	const char *s = l->p + 1;
	while (s < l->end && is_blank(*s))
		s++;
	const char *e = value_end(s, l->end);
	if (e - s >= 2 && *s == '"' && e[-1] == '"') {
		s++;
		e--;
	}
	for (const char *q = s; q < e; q++)
		if ((unsigned char)*q < 0x20 && *q != '\t') {
			str_printf(err, errlen, "a control character in the value of '%s'", l->k->key);
			return -1;
		}
	l->value = xstrndup(s, (size_t)(e - s));
	l->has_value = true;
	return 0;
}

/* Is the entry of l given already? Its line, or 0. */
static int given_before(const struct uconf *c, const struct uline *l)
{
	for (int i = 0; i < c->n; i++)
		if (c->e[i].key == l->k->key && (l->k->kind != UC_NAMED || strcmp(c->e[i].name, l->name) == 0))
			return c->e[i].line;
	return 0;
}

/* The checks of a whole line: what its kind needs, given once. */
static int check_line(const struct uconf *c, struct uline *l, bool *on, char *err, size_t errlen)
{
	const char *key = l->k->key;
	int before = given_before(c, l);
	*on = true;
	if (before) {
		if (l->k->kind == UC_NAMED)
			str_printf(err, errlen, "the %s '%s' is given twice (also at line %d)", key, l->name, before);
		else
			str_printf(err, errlen, "'%s' is given twice (also at line %d)", key, before);
		return -1;
	}
	if (l->k->kind == UC_SWITCH) {
		int v = l->has_value ? switch_value(l->value) : 1;
		if (v < 0) {
			str_printf(err, errlen, "'%s' is a switch: '%s' alone, or '%s = yes' or 'no'", key, key, key);
			return -1;
		}
		*on = v == 1;
		return 0;
	}
	if (!l->has_value || !l->value[0]) {
		if (l->k->kind == UC_NAMED)
			str_printf(err, errlen, "'%s %s' needs a target: %s %s = TARGET", key, l->name, key, l->name);
		else
			str_printf(err, errlen, "'%s' needs a value: %s = VALUE", key, key);
		return -1;
	}
	return 0;
}

/* Read one line [p, end) into c: 0 (also a blank or a comment) or -1
 * with why in err (no "PATH:LINE: "). */
static int parse_line(struct uconf *c, const char *p, const char *end, int lineno, const struct uconf_key *keys,
		      char *err, size_t errlen)
{
	struct uline l = {.p = p, .end = end};
	while (l.p < end && is_blank(*l.p))
		l.p++;
	if (l.p == end || *l.p == '#')
		return 0;
	const char *ks = l.p;
	while (l.p < end && (isalnum((unsigned char)*l.p) || *l.p == '-' || *l.p == '_'))
		l.p++;
	if (!(l.k = find_key(keys, ks, (size_t)(l.p - ks)))) {
		if (l.p == ks)
			str_copy(err, errlen, "not a setting: expected KEY = VALUE (or # for a comment)");
		else
			str_printf(err, errlen, "unknown setting '%.*s'", (int)(l.p - ks < 40 ? l.p - ks : 40), ks);
		return -1;
	}
	while (l.p < end && is_blank(*l.p))
		l.p++;
	bool on;
	int rc = (l.k->kind == UC_NAMED && read_name(&l, err, errlen) < 0) || read_value(&l, err, errlen) < 0 ||
			 check_line(c, &l, &on, err, errlen) < 0 ? -1 : 0;
	if (rc == 0 && c->n >= UCONF_MAX) {
		str_printf(err, errlen, "more than %d settings", UCONF_MAX);
		rc = -1;
	}
	if (rc < 0) {
		secret_free(l.value);
		return -1;
	}
	if (l.k->kind == UC_SWITCH) {   /* its state is e->on */
		secret_free(l.value);
		l.value = NULL;
	}
	struct uconf_entry *e = &c->e[c->n++];
	*e = (struct uconf_entry){.key = l.k->key, .kind = l.k->kind, .value = l.value ? l.value : xstrdup(""),
				  .on = on, .line = lineno};
	str_copy(e->name, sizeof e->name, l.name);
	return 0;
}

int uconf_parse(struct uconf *c, const char *path, const char *text, size_t len, const struct uconf_key *keys,
		char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	int lineno = 0;
	str_copy(c->path, sizeof c->path, path);
	if (memchr(text, '\0', len)) {
		str_printf(err, errlen, "%s: not a text file (a NUL byte)", path);
		return -1;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char why[300];
		lineno++;
		if (le > p && le[-1] == '\r')
			le--;
		if (parse_line(c, p, le, lineno, keys, why, sizeof why) < 0) {
			str_printf(err, errlen, "%s:%d: %s", path, lineno, why);
			return -1;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

int uconf_read(struct uconf *c, const char *path, bool missing_ok, const struct uconf_key *keys, char *err,
	       size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st = {0};
	if (fd < 0) {
		if (errno == ENOENT && missing_ok)
			return 1;
		str_printf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	errno = 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > UCONF_FILE_MAX) {
		str_printf(err, errlen, "%s: %s", path, errno && !S_ISREG(st.st_mode) ? strerror(errno)
						       : !S_ISREG(st.st_mode) ? "not a regular file"
									      : "larger than 1 MB: not a config file");
		close(fd);
		return -1;
	}
	char *buf = xmalloc((size_t)st.st_size + 1);
	size_t got = 0;
	ssize_t r;
	while (got < (size_t)st.st_size && (r = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)r;
	close(fd);
	buf[got] = '\0';
	int rc = uconf_parse(c, path, buf, got, keys, err, errlen);
	secret_free(buf);
	return rc;
}

void uconf_default_path(char *buf, size_t len)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	if (x && x[0] == '/')
		str_printf(buf, len, "%s/dbtop/config", x);
	else if (h && h[0])
		str_printf(buf, len, "%s/.config/dbtop/config", h);
	else
		buf[0] = '\0';
}

const struct uconf_entry *uconf_target(const struct uconf *c, const char *key, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (c->e[i].kind == UC_NAMED && strcmp(c->e[i].key, key) == 0 && strcmp(c->e[i].name, name) == 0)
			return &c->e[i];
	return NULL;
}
