/* targets.c - several targets: the list of TARGET arguments and of a
 * --targets file. */
#include "targets.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

void fleet_init(struct fleet_list *l)
{
	memset(l, 0, sizeof *l);
}

void fleet_free(struct fleet_list *l)
{
	for (int i = 0; i < l->n; i++)
		secret_free(l->e[i].spec);
	l->n = 0;
}

bool fleet_name_ok(const char *s, size_t len)
{
	if (len == 0 || len >= FLEET_NAME_LEN || !isalnum((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return false;
	return true;
}

/* "line N" or "argument N" of an entry, for messages. */
static void where(const struct fleet_list *l, int line, char *buf, size_t len)
{
	if (line > 0)
		str_printf(buf, len, "%s:%d", l->path[0] ? l->path : "targets", line);
	else
		str_copy(buf, len, "the command line");
}

int fleet_add(struct fleet_list *l, const char *name, const char *spec, int line, char *err, size_t len)
{
	char here[300], there[300];
	where(l, line, here, sizeof here);
	if (l->n >= FLEET_MAX) {
		str_printf(err, len, "%s: more than %d targets: one dbtop watches at most %d (run another for the rest)",
			   here, FLEET_MAX, FLEET_MAX);
		return -1;
	}
	for (int i = 0; i < l->n; i++) {
		where(l, l->e[i].line, there, sizeof there);
		if (name && l->e[i].named && strcmp(l->e[i].name, name) == 0) {
			str_printf(err, len, "%s: the name '%s' is given twice (also at %s)", here, name, there);
			return -1;
		}
		if (strcmp(l->e[i].spec, spec) == 0) {
			str_printf(err, len, "%s: the same target twice (also at %s)", here, there);
			return -1;
		}
	}
	struct fleet_entry *e = &l->e[l->n++];
	memset(e, 0, sizeof *e);
	e->spec = xstrdup(spec);
	e->line = line;
	e->named = name != NULL;
	if (name)
		str_copy(e->name, sizeof e->name, name);
	return 0;
}

/* Is s (n bytes) a libpq connection keyword? Then `KEY=...` starts a
 * key=value target (password=a== host=h), never NAME=TARGET. */
static bool libpq_keyword(const char *s, size_t n)
{
	static const char *const kw[] = {
		"host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth",
		"channel_binding", "connect_timeout", "client_encoding", "options", "application_name",
		"fallback_application_name", "keepalives", "keepalives_idle", "keepalives_interval",
		"keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode", "sslnegotiation",
		"requiressl", "sslcompression", "sslcert", "sslkey", "sslcertmode", "sslpassword", "sslrootcert",
		"sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version",
		"ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation", "service",
		"target_session_attrs", "load_balance_hosts", NULL};
	for (int i = 0; kw[i]; i++)
		if (strlen(kw[i]) == n && strncmp(s, kw[i], n) == 0)
			return true;
	return false;
}

/* Does s (n bytes) start like a target of its own: a scheme:// or a
 * key=value word? */
static bool looks_like_target(const char *s, size_t n)
{
	size_t w = 0;
	while (w < n && !isspace((unsigned char)s[w]))
		w++;
	for (size_t i = 0; i + 2 < w; i++)
		if (s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/')
			return true;
	const char *eq = memchr(s, '=', w);
	return eq && eq > s;
}

int fleet_split_line(const char *line, const char **name, size_t *nlen, const char **spec, size_t *slen,
		     char *err, size_t len)
{
	const char *s = line, *e;
	*name = NULL;
	*nlen = 0;
	while (isspace((unsigned char)*s))
		s++;
	/* a comment: '#' first on the line or after a blank (a '#' inside a
	 * URI, such as in a password, stays) */
	for (e = s; *e && *e != '\n' && *e != '\r'; e++)
		if (*e == '#' && (e == s || isspace((unsigned char)e[-1])))
			break;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (e == s)
		return 0;
	const char *eq = memchr(s, '=', (size_t)(e - s));
	if (eq) {
		const char *ne = eq, *v = eq + 1;
		while (ne > s && isspace((unsigned char)ne[-1]))
			ne--;
		while (v < e && isspace((unsigned char)*v))
			v++;
		/* a word without the characters of a URI before it */
		bool word = ne > s;
		for (const char *p = s; p < ne; p++)
			word &= !isspace((unsigned char)*p) && !strchr(":/?@&", *p);
		if (word && v == e) {
			str_copy(err, len, "NAME = with no target after it");
			return -1;
		}
		if (word && !libpq_keyword(s, (size_t)(ne - s)) && looks_like_target(v, (size_t)(e - v))) {
			if (!fleet_name_ok(s, (size_t)(ne - s))) {
				/* the name as a terminal may show it (an escape
				 * sequence in it becomes '?') */
				char shown[64];
				str_printf(shown, sizeof shown, "%.*s", (int)(ne - s) < 60 ? (int)(ne - s) : 60, s);
				str_printf(err, len, "bad name '%s' (1 to %d letters, digits, '_', '.' or '-')",
					   text_sanitize(shown), FLEET_NAME_LEN - 1);
				return -1;
			}
			*name = s;
			*nlen = (size_t)(ne - s);
			s = v;
		}
	}
	if (memchr(s, ' ', (size_t)(e - s)) && !memchr(s, '=', (size_t)(e - s))) {
		str_copy(err, len, "not a target: a URI (mysql://, postgresql://, ...) or key=value words, "
			 "optionally after NAME =");
		return -1;
	}
	*spec = s;
	*slen = (size_t)(e - s);
	return 1;
}

int fleet_parse_text(struct fleet_list *l, const char *text, const char *path, char *err, size_t len)
{
	char why[200], name[FLEET_NAME_LEN];
	int lineno = 0;
	str_copy(l->path, sizeof l->path, path);
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
		const char *nm, *sp;
		size_t nlen, slen;
		lineno++;
		size_t ll = (size_t)(end - p);
		char *line = xmalloc(ll + 1);
		memcpy(line, p, ll);
		line[ll] = '\0';
		int rc = fleet_split_line(line, &nm, &nlen, &sp, &slen, why, sizeof why);
		if (rc < 0) {
			str_printf(err, len, "%s:%d: %s", path, lineno, why);
			secret_free(line);
			return -1;
		}
		if (rc > 0) {
			char *spec = xmalloc(slen + 1);
			memcpy(spec, sp, slen);
			spec[slen] = '\0';
			if (nm)
				str_printf(name, sizeof name, "%.*s", (int)nlen, nm);
			rc = fleet_add(l, nm ? name : NULL, spec, lineno, err, len);
			secret_free(spec);
			if (rc < 0) {
				secret_free(line);
				return -1;
			}
		}
		secret_free(line);
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* A targets file this size is not a list of targets. */
#define FLEET_FILE_MAX (1 << 20)

int fleet_read_file(struct fleet_list *l, const char *path, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		str_printf(err, len, "--targets %s: %s", path, strerror(errno));
		return -1;
	}
	char *buf = xmalloc(FLEET_FILE_MAX + 1);
	size_t n = fread(buf, 1, FLEET_FILE_MAX + 1, f);
	bool bad = ferror(f);
	fclose(f);
	if (bad || n > FLEET_FILE_MAX) {
		str_printf(err, len, "--targets %s: %s", path, bad ? "cannot be read" : "larger than 1 MiB");
		secret_free(buf);
		return -1;
	}
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		str_printf(err, len, "--targets %s: not a text file", path);
		secret_free(buf);
		return -1;
	}
	int rc = fleet_parse_text(l, buf, path, err, len);
	secret_free(buf);
	return rc;
}
