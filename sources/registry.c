/* registry.c - the backend for each engine, loaded on first use from its
 * shared object (dbtop-pg.so, dbtop-mysql.so), so that a session maps only
 * the client library it needs; the --listen endpoint's HTTP server
 * (dbtop-http.so) is found the same way. Looked up in $DBTOP_PLUGIN_DIR, beside the
 * binary, then in the installed library directory. */
#include "source.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi.h"
#include "../util/util.h"

#ifndef DBTOP_LIBDIR
#define DBTOP_LIBDIR "/usr/local/lib/dbtop"
#endif

static char load_error[1024];

/* A stamp as "version:commit:sizes", e.g. "1:c4f90ca1b2c3:9712:1408:64". */
static void abi_text(char *buf, size_t len, const struct plugin_abi *a)
{
	str_printf(buf, len, "%u:%.*s:%u:%u:%u", a->version, (int)sizeof a->commit, a->commit, a->sample_size,
		   a->source_size, a->ops_size);
}

/* The plugin at path (opened as h) was built from the same commit and
 * with the same layouts as this binary (abi.h); if not, load_error names
 * both stamps, then the path (the caller's message may be cut short:
 * source_open() is given NOTE_LEN bytes). */
static bool abi_accepted(void *h, const char *path)
{
	static const struct plugin_abi own = PLUGIN_ABI_INIT;
	const struct plugin_abi *a = dlsym(h, PLUGIN_ABI_SYMBOL);
	char mine[96], theirs[96] = "none";

	if (a && a->version == own.version && strncmp(a->commit, own.commit, sizeof own.commit) == 0 &&
	    a->sample_size == own.sample_size && a->source_size == own.source_size && a->ops_size == own.ops_size)
		return true;
	abi_text(mine, sizeof mine, &own);
	if (a && a->version == own.version)
		abi_text(theirs, sizeof theirs, a);
	else if (a)
		str_printf(theirs, sizeof theirs, "%u", a->version);
	str_printf(load_error, sizeof load_error, "plugin refused: its ABI stamp %s is not this dbtop's %s: %s", theirs,
		   mine, path);
	return false;
}

const void *plugin_symbol(const char *file, const char *sym)
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
		if (!abi_accepted(h, path)) {
			dlclose(h);
			return NULL;
		}
		const void *p = dlsym(h, sym);
		if (!p)
			str_printf(load_error, sizeof load_error, "%s has no %s", path, sym);
		return p;
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
			my = plugin_symbol("dbtop-mysql.so", "mysql_source_ops");
		return my;
	case ENGINE_POSTGRESQL:
		if (!pg)
			pg = plugin_symbol("dbtop-pg.so", "pg_source_ops");
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

const char *plugin_error(void)
{
	return load_error;
}
