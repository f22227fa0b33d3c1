/* registry.c - the backend for each engine, loaded on first use from its
 * shared object (dbtop-pg.so, dbtop-mysql.so), so that a session maps only
 * the client library it needs. Looked up in $DBTOP_PLUGIN_DIR, beside the
 * binary, then in the installed library directory. */
#include "source.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/util.h"

#ifndef DBTOP_LIBDIR
#define DBTOP_LIBDIR "/usr/local/lib/dbtop"
#endif

static char load_error[512];

/* dlopen file from the search path and return its symbol sym, or NULL. */
static const struct source_ops *load(const char *file, const char *sym)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	const char *dirs[3];
	ssize_t n;
	int i, nd = 0;
	void *h;
	const char *env_dir = getenv("DBTOP_PLUGIN_DIR");

	if (env_dir && *env_dir)
		dirs[nd++] = env_dir;
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			dirs[nd++] = exe;
		}
	}
	dirs[nd++] = DBTOP_LIBDIR;
	load_error[0] = '\0';
	for (i = 0; i < nd; i++) {
		str_printf(path, sizeof path, "%s/%s", dirs[i], file);
		if (access(path, R_OK) != 0)
			continue;
		/* libpq maps GnuTLS through libldap; its load-time initialiser
		 * costs 0.7 MB resident for nothing, since libldap initialises
		 * GnuTLS itself before any LDAP TLS use */
		setenv("GNUTLS_NO_IMPLICIT_INIT", "1", 0);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			str_printf(load_error, sizeof load_error, "cannot load %s: %s", path, dlerror());
			return NULL;
		}
		const struct source_ops *ops = dlsym(h, sym);
		if (!ops)
			str_printf(load_error, sizeof load_error, "%s has no %s", path, sym);
		return ops;
	}
	str_printf(load_error, sizeof load_error, "%s not found (looked in %s%s%s%s%s)", file,
		   dirs[0], nd > 1 ? ", " : "", nd > 1 ? dirs[1] : "", nd > 2 ? ", " : "", nd > 2 ? dirs[2] : "");
	return NULL;
}

const struct source_ops *source_ops_for(enum engine e)
{
	static const struct source_ops *my, *pg;
	switch (e) {
	case ENGINE_MYSQL:
		if (!my)
			my = load("dbtop-mysql.so", "mysql_source_ops");
		return my;
	case ENGINE_POSTGRESQL:
		if (!pg)
			pg = load("dbtop-pg.so", "pg_source_ops");
		return pg;
	default:
		str_copy(load_error, sizeof load_error, "unknown engine");
		return NULL;
	}
}

const char *source_ops_error(void)
{
	return load_error;
}
