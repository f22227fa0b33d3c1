/* dsn.c - connection targets: URIs, libpq strings, MySQL option files
 * and environment. No database headers: pure string work, unit-tested. */
#include "dsn.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../util/util.h"

#define INCLUDE_DEPTH_MAX 8

void target_init(struct target *t)
{
	memset(t, 0, sizeof *t);
	t->connect_timeout = 5.0;
}

void target_free(struct target *t)
{
	free(t->host);
	free(t->user);
	secret_free(t->password);
	free(t->socket);
	free(t->database);
	secret_free(t->pg_conninfo);
	free(t->defaults_file);
	free(t->ssl_ca);
	free(t->ssl_cert);
	free(t->ssl_key);
	target_init(t);
}

/* Replace *slot with a copy of v unless keep and *slot is already set. */
static void set_field(char **slot, const char *v, bool keep, bool secret)
{
	if (keep && *slot)
		return;
	if (secret)
		secret_free(*slot);
	else
		free(*slot);
	*slot = xstrdup(v);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Percent-decode s[0..n) into a new string; NULL on a bad escape or NUL. */
static char *pct_decode(const char *s, size_t n)
{
	char *d = xmalloc(n + 1), *o = d;
	size_t i;
	for (i = 0; i < n; i++) {
		if (s[i] == '%') {
			int hi, lo;
			if (i + 2 >= n) {
				free(d);
				return NULL;
			}
			hi = hexval((unsigned char)s[i + 1]);
			lo = hi < 0 ? -1 : hexval((unsigned char)s[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
				free(d);
				return NULL;
			}
			*o++ = (char)(hi * 16 + lo);
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return d;
}

/* Parse a decimal port 1..65535; -1 when invalid. */
static int parse_port(const char *s, size_t n)
{
	long v = 0;
	size_t i;
	if (n == 0 || n > 5)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v >= 1 && v <= 65535 ? (int)v : -1;
}

enum ssl_mode target_ssl_mode_parse(const char *s)
{
	static const struct {
		const char *name;
		enum ssl_mode m;
	} names[] = {
		{"disabled", SSL_MODE_DISABLED}, {"disable", SSL_MODE_DISABLED},
		{"preferred", SSL_MODE_PREFERRED}, {"prefer", SSL_MODE_PREFERRED},
		{"required", SSL_MODE_REQUIRED}, {"require", SSL_MODE_REQUIRED},
		{"verify_ca", SSL_MODE_VERIFY_CA},
		{"verify_identity", SSL_MODE_VERIFY_IDENTITY}, {"verify_full", SSL_MODE_VERIFY_IDENTITY},
	};
	char low[24];
	size_t i, n = s ? strlen(s) : 0;
	if (n == 0 || n >= sizeof low)
		return SSL_MODE_BAD;
	for (i = 0; i <= n; i++)
		low[i] = s[i] == '-' ? '_' : (char)tolower((unsigned char)s[i]);
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(low, names[i].name) == 0)
			return names[i].m;
	return SSL_MODE_BAD;
}

const char *target_ssl_mode_name(enum ssl_mode m, enum engine e)
{
	bool pg = e == ENGINE_POSTGRESQL;
	switch (m) {
	case SSL_MODE_DISABLED: return pg ? "disable" : "DISABLED";
	case SSL_MODE_PREFERRED: return pg ? "prefer" : "PREFERRED";
	case SSL_MODE_REQUIRED: return pg ? "require" : "REQUIRED";
	case SSL_MODE_VERIFY_CA: return pg ? "verify-ca" : "VERIFY_CA";
	case SSL_MODE_VERIFY_IDENTITY: return pg ? "verify-full" : "VERIFY_IDENTITY";
	default: return NULL;
	}
}

enum ssl_mode target_ssl_mode_effective(const struct target *t)
{
	if (t->ssl_mode != SSL_MODE_UNSET)
		return t->ssl_mode;
	return t->ssl_ca && *t->ssl_ca ? SSL_MODE_VERIFY_CA : SSL_MODE_UNSET;
}

/* Decode s[0..n) into *slot unless already set; -1 on a bad escape. */
static int set_decoded(char **slot, const char *s, size_t n, bool secret)
{
	char *v = pct_decode(s, n);
	if (!v)
		return -1;
	if (*slot) {
		if (secret)
			secret_free(v);
		else
			free(v);
		return 0;
	}
	*slot = v;
	return 0;
}

/* "bad %-escape in URI"; -1. */
static int bad_escape(char *err, size_t errlen)
{
	str_printf(err, errlen, "bad %%-escape in URI");
	return -1;
}

/* host[:port] of a URI's authority, p..hostend; host may be [v6]. 0 or -1. */
static int uri_host_port(struct target *t, const char *p, const char *hostend, char *err, size_t errlen)
{
	const char *hs = p, *he, *portp = NULL;
	if (*p == '[') {
		he = memchr(p, ']', (size_t)(hostend - p));
		if (!he) {
			str_printf(err, errlen, "unterminated [ in host");
			return -1;
		}
		hs = p + 1;
		if (he + 1 < hostend) {
			if (he[1] != ':') {
				str_printf(err, errlen, "junk after ] in host");
				return -1;
			}
			portp = he + 2;
		}
	} else {
		he = memchr(p, ':', (size_t)(hostend - p));
		if (he)
			portp = he + 1;
		else
			he = hostend;
	}
	if (he > hs && set_decoded(&t->host, hs, (size_t)(he - hs), false) < 0)
		return bad_escape(err, errlen);
	if (portp) {
		int port = parse_port(portp, (size_t)(hostend - portp));
		if (port < 0) {
			str_printf(err, errlen, "bad port in URI");
			return -1;
		}
		if (!t->port)
			t->port = port;
	}
	return 0;
}

/* One query parameter of a mysql:// URI: k..pe, the value after eq. 0 or -1. */
static int uri_param(struct target *t, const char *k, const char *eq, const char *pe, char *err, size_t errlen)
{
	size_t kl = (size_t)(eq - k);
	char key[16];
	if (kl < sizeof key) {
		/* ssl-mode or ssl_mode, as in option files */
		for (size_t i = 0; i < kl; i++)
			key[i] = k[i] == '-' ? '_' : k[i];
		key[kl] = '\0';
	} else {
		key[0] = '\0';
	}
	if (strcmp(key, "ssl_mode") == 0) {
		char *v = pct_decode(eq + 1, (size_t)(pe - eq - 1));
		enum ssl_mode m = target_ssl_mode_parse(v);
		free(v);
		if (m == SSL_MODE_BAD) {
			str_printf(err, errlen, "bad ssl-mode in URI (use DISABLED, PREFERRED, REQUIRED, "
				   "VERIFY_CA or VERIFY_IDENTITY)");
			return -1;
		}
		if (t->ssl_mode == SSL_MODE_UNSET)
			t->ssl_mode = m;
	} else if (strcmp(key, "ssl_ca") == 0 || strcmp(key, "ssl_cert") == 0 ||
		   strcmp(key, "ssl_key") == 0) {
		char **slot = strcmp(key, "ssl_ca") == 0 ? &t->ssl_ca
			: strcmp(key, "ssl_cert") == 0 ? &t->ssl_cert : &t->ssl_key;
		if (pe == eq + 1) {
			str_printf(err, errlen, "empty %.*s in URI", (int)kl, k);
			return -1;
		}
		if (set_decoded(slot, eq + 1, (size_t)(pe - eq - 1), false) < 0)
			return bad_escape(err, errlen);
	} else if (kl == 6 && strncmp(k, "socket", 6) == 0) {
		if (set_decoded(&t->socket, eq + 1, (size_t)(pe - eq - 1), false) < 0)
			return bad_escape(err, errlen);
	} else if (kl == 15 && strncmp(k, "connect_timeout", 15) == 0) {
		char *v = pct_decode(eq + 1, (size_t)(pe - eq - 1));
		char *e2;
		double d = v ? strtod(v, &e2) : -1;
		if (!v || *e2 || d <= 0 || d > 3600) {
			free(v);
			str_printf(err, errlen, "bad connect_timeout in URI");
			return -1;
		}
		free(v);
		t->connect_timeout = d;
	} else {
		str_printf(err, errlen, "unknown URI parameter '%.*s' (known: socket, connect_timeout, "
			   "ssl-mode, ssl-ca, ssl-cert, ssl-key)",
			   (int)(kl > 40 ? 40 : kl), k);
		return -1;
	}
	return 0;
}

int target_parse_mysql_uri(struct target *t, const char *uri, char *err, size_t errlen)
{
	const char *p, *end, *at, *hostend, *q;
	size_t len;

	if (strncmp(uri, "mysql://", 8) == 0)
		p = uri + 8;
	else if (strncmp(uri, "mariadb://", 10) == 0)
		p = uri + 10;
	else {
		str_printf(err, errlen, "not a mysql:// or mariadb:// URI");
		return -1;
	}
	t->engine = ENGINE_MYSQL;
	len = strlen(p);
	end = p + len;
	q = strchr(p, '?');
	if (q)
		end = q;
	/* authority ends at the first '/' (or '?' / end) */
	hostend = memchr(p, '/', (size_t)(end - p));
	if (!hostend)
		hostend = end;
	at = NULL;
	for (const char *c = p; c < hostend; c++)
		if (*c == '@')
			at = c;
	if (at) {
		const char *colon = memchr(p, ':', (size_t)(at - p));
		const char *uend = colon ? colon : at;
		if (uend > p && set_decoded(&t->user, p, (size_t)(uend - p), false) < 0)
			return bad_escape(err, errlen);
		if (colon && set_decoded(&t->password, colon + 1,
					 (size_t)(at - colon - 1), true) < 0)
			return bad_escape(err, errlen);
		p = at + 1;
	}
	if (p < hostend && uri_host_port(t, p, hostend, err, errlen) < 0)
		return -1;
	if (hostend < end && hostend + 1 < end &&
	    set_decoded(&t->database, hostend + 1, (size_t)(end - hostend - 1), false) < 0)
		return bad_escape(err, errlen);
	if (t->database && strchr(t->database, '/')) {
		str_printf(err, errlen, "bad database name in URI");
		return -1;
	}
	/* query parameters */
	while (q && *q) {
		const char *k = q + 1, *amp = strchr(k, '&'), *eq;
		const char *pe = amp ? amp : k + strlen(k);
		q = amp;
		if (pe == k)
			continue;
		eq = memchr(k, '=', (size_t)(pe - k));
		if (!eq) {
			str_printf(err, errlen, "URI parameter without a value");
			return -1;
		}
		if (uri_param(t, k, eq, pe, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* True if spec looks like a libpq key=value connection string. */
static bool is_pg_kv(const char *spec)
{
	const char *eq = strchr(spec, '=');
	const char *p;
	if (!eq || eq == spec)
		return false;
	for (p = spec; p < eq; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_' || isspace((unsigned char)*p)))
			return false;
	return true;
}

/* The syntax errors of a PostgreSQL URI that libpq would report by quoting
 * the URI or the password itself: caught here with a message that quotes
 * nothing. Follows libpq's reading: the user info ends at the first '@'
 * (before any '/'), hosts are comma-separated, [v6] bracketed. */
static int pg_uri_check(const char *uri, char *err, size_t errlen)
{
	const char *p = strstr(uri, "://") + 3, *s;

	for (s = p; *s; s++) {
		int hi, lo;
		if (*s != '%')
			continue;
		hi = hexval((unsigned char)s[1]);
		lo = hi < 0 ? -1 : hexval((unsigned char)s[2]);
		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
			return bad_escape(err, errlen);
		s += 2;
	}
	s = p + strcspn(p, "@/");
	if (*s == '@')
		p = s + 1;
	for (;;) {
		if (*p == '[') {
			const char *e = strchr(p + 1, ']');
			if (!e) {
				str_printf(err, errlen, "unterminated [ in host");
				return -1;
			}
			if (e == p + 1) {
				str_printf(err, errlen, "empty [] host in URI");
				return -1;
			}
			p = e + 1;
			if (*p && !strchr(":/?,", *p)) {
				str_printf(err, errlen, "junk after ] in host");
				return -1;
			}
		}
		p += strcspn(p, ":/?,@");
		if (*p == '@') {
			str_printf(err, errlen, "unescaped @ in the host part of the URI (write an @ in the user name or password as %%40)");
			return -1;
		}
		if (*p == ':')
			p += 1 + strcspn(p + 1, "/?,@");
		if (*p == '@') {
			str_printf(err, errlen, "unescaped @ in the port part of the URI (write an @ in the user name or password as %%40)");
			return -1;
		}
		if (*p != ',')
			return 0;
		p++;
	}
}

int target_parse(struct target *t, const char *spec, char *err, size_t errlen)
{
	if (!spec || !*spec) {
		str_printf(err, errlen, "empty target");
		return -1;
	}
	if (strncmp(spec, "mysql://", 8) == 0 || strncmp(spec, "mariadb://", 10) == 0) {
		if (t->engine == ENGINE_POSTGRESQL) {
			str_printf(err, errlen, "--engine postgresql contradicts a mysql:// target");
			return -1;
		}
		return target_parse_mysql_uri(t, spec, err, errlen);
	}
	if (strncmp(spec, "postgres://", 11) == 0 || strncmp(spec, "postgresql://", 13) == 0 ||
	    is_pg_kv(spec)) {
		if (t->engine == ENGINE_MYSQL) {
			str_printf(err, errlen, "--engine mysql contradicts a PostgreSQL target");
			return -1;
		}
		if (strstr(spec, "://") && pg_uri_check(spec, err, errlen) < 0)
			return -1;
		t->engine = ENGINE_POSTGRESQL;
		set_field(&t->pg_conninfo, spec, false, true);
		return 0;
	}
	if (strstr(spec, "://")) {
		str_printf(err, errlen, "unknown scheme (use mysql://, mariadb://, postgres:// or postgresql://)");
		return -1;
	}
	str_printf(err, errlen, "malformed target (expected a URI or a libpq key=value string)");
	return -1;
}

int target_guess_engine(struct target *t, char *err, size_t errlen)
{
	if (t->engine != ENGINE_UNKNOWN)
		return 0;
	if (t->port == 3306 || t->port == 3307) {
		t->engine = ENGINE_MYSQL;
		return 0;
	}
	if (t->port == 5432) {
		t->engine = ENGINE_POSTGRESQL;
		return 0;
	}
	if (t->socket) {
		if (strstr(t->socket, ".sock") || strstr(t->socket, "mysql") ||
		    strstr(t->socket, "mariadb")) {
			t->engine = ENGINE_MYSQL;
			return 0;
		}
		if (strstr(t->socket, "postgres") || strstr(t->socket, ".s.PGSQL")) {
			t->engine = ENGINE_POSTGRESQL;
			return 0;
		}
	}
	if (getenv("PGSERVICE") || getenv("PGHOST") || getenv("PGDATABASE")) {
		t->engine = ENGINE_POSTGRESQL;
		return 0;
	}
	str_printf(err, errlen, "cannot tell the engine: give a mysql:// or postgresql:// target, or --engine mysql|postgresql");
	return -1;
}

/* Trim spaces at both ends of s in place; returns the new start. */
static char *trim(char *s)
{
	char *e;
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Value of an option line: a quoted value loses its quotes (backslash
 * escapes undone) and whatever follows the closing quote; an unquoted one
 * ends at a '#' comment. Works in place. */
static char *unquote(char *v)
{
	char q = v[0], *o, *p;
	if (q == '"' || q == '\'') {
		for (p = o = v + 1; *p && *p != q; p++) {
			if (*p == '\\' && p[1]) {
				p++;
				switch (*p) {
				case 'n': *o++ = '\n'; break;
				case 't': *o++ = '\t'; break;
				case 's': *o++ = ' '; break;
				default: *o++ = *p;
				}
			} else {
				*o++ = *p;
			}
		}
		if (*p == q) {
			*o = '\0';
			return v + 1;
		}
		/* no closing quote: take the line as it is */
	}
	p = strchr(v, '#');
	if (p)
		*p = '\0';
	return trim(v);
}

static int read_option_file_depth(struct target *t, const char *path, const char *group,
				  char *err, size_t errlen, int depth);

/* Read every *.cnf file of dir (sorted) as an option file. */
static void read_option_dir(struct target *t, const char *dir, const char *group, int depth)
{
	struct dirent **list = NULL;
	int n = scandir(dir, &list, NULL, alphasort), i;
	char err[NOTE_LEN];
	for (i = 0; i < n; i++) {
		const char *nm = list[i]->d_name;
		size_t l = strlen(nm);
		if (l > 4 && strcmp(nm + l - 4, ".cnf") == 0) {
			char path[4096];
			str_printf(path, sizeof path, "%s/%s", dir, nm);
			read_option_file_depth(t, path, group, err, sizeof err, depth + 1);
		}
		free(list[i]);
	}
	free(list);
}

/* Apply one key=value of an interesting group to t. */
static void apply_option(struct target *t, char *key, char *val, bool keep_set)
{
	char *k;
	for (k = key; *k; k++)
		if (*k == '-')
			*k = '_';
	if (strcmp(key, "user") == 0)
		set_field(&t->user, val, keep_set, false);
	else if (strcmp(key, "password") == 0)
		set_field(&t->password, val, keep_set, true);
	else if (strcmp(key, "host") == 0)
		set_field(&t->host, val, keep_set, false);
	else if (strcmp(key, "socket") == 0)
		set_field(&t->socket, val, keep_set, false);
	else if (strcmp(key, "database") == 0)
		set_field(&t->database, val, keep_set, false);
	else if (strcmp(key, "port") == 0) {
		int port = parse_port(val, strlen(val));
		if (port > 0 && !(keep_set && t->port))
			t->port = port;
	} else if (strcmp(key, "ssl_mode") == 0) {
		/* a bad value is kept as such: refused once the files are read */
		if (!(keep_set && t->ssl_mode != SSL_MODE_UNSET))
			t->ssl_mode = target_ssl_mode_parse(val);
	} else if (strcmp(key, "ssl_ca") == 0 && *val)
		set_field(&t->ssl_ca, val, keep_set, false);
	else if (strcmp(key, "ssl_cert") == 0 && *val)
		set_field(&t->ssl_cert, val, keep_set, false);
	else if (strcmp(key, "ssl_key") == 0 && *val)
		set_field(&t->ssl_key, val, keep_set, false);
}

/* Read the options of one [group] of path (and its includes) into t,
 * replacing what t has. */
static int read_option_file_depth(struct target *t, const char *path, const char *group,
				  char *err, size_t errlen, int depth)
{
	FILE *f;
	char line[4096];
	bool in_group = false;

	if (depth > INCLUDE_DEPTH_MAX)
		return 0;
	f = fopen(path, "r");
	if (!f) {
		str_printf(err, errlen, "cannot read option file %s: %s", path, strerror(errno));
		return -1;
	}
	/* as the mysql client: anyone could have put a host or a password in
	 * a world-writable file (checked on the file opened, not the name) */
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IWOTH)) {
		fclose(f);
		str_printf(err, errlen, "World-writable config file '%s' is ignored", path);
		text_sanitize(err);
		/* an include: its caller goes on with the rest (said once,
		 * on the first of the two passes) */
		if (depth > 0 && strcmp(group, "client") == 0)
			fprintf(stderr, "dbtop: %s\n", err);
		return OPTION_FILE_UNSAFE;
	}
	while (fgets(line, sizeof line, f)) {
		char *s = trim(line), *eq;
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '!') {
			if (strncmp(s, "!includedir", 11) == 0 && isspace((unsigned char)s[11]))
				read_option_dir(t, trim(s + 11), group, depth);
			else if (strncmp(s, "!include", 8) == 0 && isspace((unsigned char)s[8])) {
				char e2[NOTE_LEN];
				read_option_file_depth(t, trim(s + 8), group, e2, sizeof e2, depth + 1);
			}
			continue;
		}
		if (*s == '[') {
			char *e = strchr(s, ']');
			if (e) {
				*e = '\0';
				s = trim(s + 1);
				in_group = strcmp(s, group) == 0;
			}
			continue;
		}
		if (!in_group)
			continue;
		eq = strchr(s, '=');
		if (!eq)
			continue; /* boolean options do not concern us */
		*eq = '\0';
		apply_option(t, trim(s), unquote(trim(eq + 1)), false);
	}
	fclose(f);
	return 0;
}

/* Copy the fields set in src into dst; keep: leave dst's set fields alone. */
static void merge_target(struct target *dst, const struct target *src, bool keep)
{
	if (src->user)
		set_field(&dst->user, src->user, keep, false);
	if (src->password)
		set_field(&dst->password, src->password, keep, true);
	if (src->host)
		set_field(&dst->host, src->host, keep, false);
	if (src->socket)
		set_field(&dst->socket, src->socket, keep, false);
	if (src->database)
		set_field(&dst->database, src->database, keep, false);
	if (src->port && !(keep && dst->port))
		dst->port = src->port;
	if (src->ssl_mode != SSL_MODE_UNSET && !(keep && dst->ssl_mode != SSL_MODE_UNSET))
		dst->ssl_mode = src->ssl_mode;
	if (src->ssl_ca)
		set_field(&dst->ssl_ca, src->ssl_ca, keep, false);
	if (src->ssl_cert)
		set_field(&dst->ssl_cert, src->ssl_cert, keep, false);
	if (src->ssl_key)
		set_field(&dst->ssl_key, src->ssl_key, keep, false);
}

int target_read_option_file(struct target *t, const char *path, bool keep_set,
			    char *err, size_t errlen)
{
	struct target f;
	int rc;
	/* [dbtop] wins over [client], wherever each stands in the file */
	target_init(&f);
	rc = read_option_file_depth(&f, path, "client", err, errlen, 0);
	if (rc == 0)
		rc = read_option_file_depth(&f, path, "dbtop", err, errlen, 0);
	if (rc == 0)
		merge_target(t, &f, keep_set);
	target_free(&f);
	return rc;
}

int target_apply_mysql_defaults(struct target *t, char *err, size_t errlen)
{
	const char *e;
	struct target f;

	/* option files in order (a later file wins), then merged under what
	 * the URI and flags said */
	target_init(&f);
	if (t->defaults_file) {
		int rc = target_read_option_file(&f, t->defaults_file, false, err, errlen);
		if (rc < 0) {
			if (rc == OPTION_FILE_UNSAFE) {
				size_t l = strlen(err);
				str_printf(err + l, errlen - l, ": --defaults-file refused (chmod o-w it)");
			}
			target_free(&f);
			return -1;
		}
	} else {
		char path[4096];
		const char *home = getenv("HOME");
		const char *files[3] = {"/etc/my.cnf", "/etc/mysql/my.cnf", NULL};
		if (home) {
			str_printf(path, sizeof path, "%s/.my.cnf", home);
			files[2] = path;
		}
		for (int i = 0; i < 3; i++) {
			char e2[NOTE_LEN];
			/* a file that is not there is no error; an unsafe one is
			 * skipped with the mysql client's warning */
			if (files[i] && target_read_option_file(&f, files[i], false, e2, sizeof e2) == OPTION_FILE_UNSAFE)
				fprintf(stderr, "dbtop: %s\n", e2);
		}
	}
	merge_target(t, &f, true);
	target_free(&f);
	if (t->ssl_mode == SSL_MODE_BAD) {
		str_printf(err, errlen, "bad ssl-mode in an option file (use DISABLED, PREFERRED, REQUIRED, "
			   "VERIFY_CA or VERIFY_IDENTITY)");
		return -1;
	}
	/* environment: lowest precedence */
	if ((e = getenv("MYSQL_PWD")) && *e)
		set_field(&t->password, e, true, true);
	if ((e = getenv("MYSQL_HOST")) && *e)
		set_field(&t->host, e, true, false);
	if ((e = getenv("MYSQL_UNIX_PORT")) && *e)
		set_field(&t->socket, e, true, false);
	if ((e = getenv("MYSQL_TCP_PORT")) && *e && !t->port) {
		int port = parse_port(e, strlen(e));
		if (port > 0)
			t->port = port;
	}
	return 0;
}

/* Value of keyword key in a libpq key=value string, following its quoting
 * rules ('...' with backslash escapes); the last one, as for libpq, when
 * the key comes more than once. Returns false when absent. */
static bool conninfo_get(const char *ci, const char *key, char *out, size_t len)
{
	const char *p = ci;
	bool found = false;
	while (*p) {
		const char *k;
		size_t kl, n = 0;
		bool match;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		k = p;
		while (*p && *p != '=' && !isspace((unsigned char)*p))
			p++;
		kl = (size_t)(p - k);
		while (isspace((unsigned char)*p))
			p++;
		if (*p != '=')
			return found; /* malformed: libpq will say so */
		p++;
		while (isspace((unsigned char)*p))
			p++;
		match = kl == strlen(key) && strncmp(k, key, kl) == 0;
		if (*p == '\'') {
			for (p++; *p && *p != '\''; p++) {
				if (*p == '\\' && p[1])
					p++;
				if (match && n + 1 < len)
					out[n++] = *p;
			}
			if (*p)
				p++;
		} else {
			for (; *p && !isspace((unsigned char)*p); p++) {
				if (*p == '\\' && p[1])
					p++;
				if (match && n + 1 < len)
					out[n++] = *p;
			}
		}
		if (match) {
			out[n] = '\0';
			found = true;
		}
	}
	return found;
}

void target_make_label(struct target *t)
{
	/* an empty host or socket is no host or socket: libpq ignores empty
	 * values, MySQL's client library takes its default */
	bool has_host = t->host && *t->host, has_socket = t->socket && *t->socket;
	if (t->engine == ENGINE_POSTGRESQL && !has_host && !has_socket) {
		const char *svc = getenv("PGSERVICE"), *h = getenv("PGHOST");
		if (t->pg_conninfo) {
			/* host part of the URI / host= keyword, without secrets (a
			 * "://" inside a key=value string, say in its password,
			 * does not make it a URI) */
			const char *ci = t->pg_conninfo;
			const char *p = strncmp(ci, "postgresql://", 13) == 0 || strncmp(ci, "postgres://", 11) == 0
				? strstr(ci, "://") : NULL;
			if (p) {
				/* libpq: the user info ends at the first '@'
				 * before any '/' (a '?' does not end it) */
				const char *s = p + 3, *at, *end;
				at = memchr(s, '@', strcspn(s, "/"));
				if (at)
					s = at + 1;
				end = s + strcspn(s, "/?");
				if (end > s) {
					str_printf(t->label, sizeof t->label, "%.*s", (int)(end - s), s);
					text_sanitize(t->label);
					return;
				}
			} else {
				char host[96], port[16];
				if ((conninfo_get(t->pg_conninfo, "host", host, sizeof host) && *host) ||
				    (conninfo_get(t->pg_conninfo, "hostaddr", host, sizeof host) && *host)) {
					if (conninfo_get(t->pg_conninfo, "port", port, sizeof port))
						str_printf(t->label, sizeof t->label, "%s:%s", host, port);
					else
						str_copy(t->label, sizeof t->label, host);
					text_sanitize(t->label);
					return;
				}
			}
		}
		str_copy(t->label, sizeof t->label, svc ? svc : h ? h : "local");
		text_sanitize(t->label);
		return;
	}
	if (has_host && (!has_socket || t->engine == ENGINE_POSTGRESQL || strcmp(t->host, "localhost") != 0)) {
		if (t->port)
			str_printf(t->label, sizeof t->label, "%s:%d", t->host, t->port);
		else
			str_copy(t->label, sizeof t->label, t->host);
	} else if (has_socket) {
		str_copy(t->label, sizeof t->label, t->socket);
	} else {
		str_copy(t->label, sizeof t->label, "localhost");
	}
	text_sanitize(t->label);
}

/* Blank n bytes at p with '*' (keeping the argument's length). */
static void blank(char *p, size_t n)
{
	memset(p, '*', n);
}

/* True if s[0..n), percent-decoded, is the keyword "password". */
static bool is_password_key(const char *s, size_t n)
{
	char *k = pct_decode(s, n);
	bool r = k && strcmp(k, "password") == 0;
	free(k);
	return r;
}

/* The password of a URI argument (p: after "scheme://"), in its user
 * info and in ?password=...; true when one was blanked. */
static bool scrub_uri(char *arg, char *p)
{
	bool done = false;
	/* the user info ends where each reader ends it: a mysql:// URI
	 * at the last '@' before any '/' or '?', a PostgreSQL one (as
	 * libpq reads it) at the first '@' before any '/' */
	bool pg = strncmp(arg, "postgres://", 11) == 0 || strncmp(arg, "postgresql://", 13) == 0;
	char *end = p + strcspn(p, pg ? "/" : "/?"), *at = NULL;
	for (char *c = p; c < end && !(pg && at); c++)
		if (*c == '@')
			at = c;
	if (at) {
		char *colon = memchr(p, ':', (size_t)(at - p));
		if (colon && at > colon + 1) {
			blank(colon + 1, (size_t)(at - colon - 1));
			done = true;
		}
	}
	/* ?password=... in a libpq URI (the keyword may be %-encoded);
	 * the query comes after the user info (a '?' inside it is
	 * not one, and blanking there would move its end) */
	for (p = strchr(at ? at + 1 : arg, '?'); p && *p; p = strchr(p + 1, '&')) {
		char *k = p + 1, *eq = k + strcspn(k, "=&");
		if (*eq == '=' && is_password_key(k, (size_t)(eq - k))) {
			char *v = eq + 1;
			size_t n = strcspn(v, "&");
			if (n) {
				blank(v, n);
				done = true;
			}
		}
	}
	return done;
}

/* The value at v of a libpq key=value pair: 'quoted' or up to white
 * space, with backslash escapes; true when it was not empty (blanked). */
static bool scrub_value(char *v)
{
	char *e;
	if (*v == '\'') {
		e = v + 1;
		while (*e && *e != '\'') {
			if (*e == '\\' && e[1])
				e++;
			e++;
		}
		if (e > v + 1) {
			blank(v + 1, (size_t)(e - v - 1));
			return true;
		}
		return false;
	}
	e = v;
	while (*e && !isspace((unsigned char)*e)) {
		if (*e == '\\' && e[1])
			e++;
		e++;
	}
	if (e > v) {
		blank(v, (size_t)(e - v));
		return true;
	}
	return false;
}

static bool scrub_spec(char *arg);

bool target_scrub_arg(char *arg)
{
	char *p;
	bool done = false;
	/* --password=VALUE (or an abbreviation of it): a value the option does
	 * not take, but one that must not show */
	if (strncmp(arg, "--pa", 4) == 0 && (p = strchr(arg, '=')) &&
	    strncmp(arg + 2, "password", (size_t)(p - arg - 2)) == 0) {
		if (p[1]) {
			blank(p + 1, strlen(p + 1));
			done = true;
		}
		return done;
	}
	done = scrub_spec(arg);
	/* NAME=TARGET (NAME = TARGET): the target after the name too */
	p = arg + strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");
	if (p > arg) {
		p += strspn(p, " \t");
		if (*p == '=') {
			p++;
			p += strspn(p, " \t");
			done |= scrub_spec(p);
		}
	}
	return done;
}

/* target_scrub_arg's scrub of one target's text: a URI, or libpq
 * key=value words. */
static bool scrub_spec(char *arg)
{
	char *p;
	bool done = false;
	/* a URI: scheme:// at the start (a "://" inside a key=value string,
	 * say in its password, does not make it one) */
	p = arg + strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
	if (p > arg && strncmp(p, "://", 3) == 0)
		return scrub_uri(arg, p + 3);
	/* libpq key=value: password=secret, password='sec ret' or password=sec\ ret */
	for (p = arg; (p = strstr(p, "password")); p += 8) {
		char *v = p + 8;
		/* a keyword starts the string, follows white space or (for
		 * libpq) directly the closing quote of the value before */
		if (p != arg && !isspace((unsigned char)p[-1]) && p[-1] != '\'')
			continue;
		while (isspace((unsigned char)*v))
			v++;
		if (*v != '=')
			continue;
		v++;
		while (isspace((unsigned char)*v))
			v++;
		if (scrub_value(v))
			done = true;
	}
	return done;
}
