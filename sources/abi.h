/* abi.h - the stamp a plugin (dbtop-mysql.so, dbtop-pg.so, dbtop-http.so)
 * and the binary that loads it must share. A plugin shares struct sample, struct
 * source and the ops table with the binary, compiled into both: a plugin
 * built from another commit may lay them out otherwise and write past a
 * field. Each plugin exports its stamp (PLUGIN_ABI_DEFINE); registry.c
 * compares it with its own before it takes the plugin's ops table and
 * refuses a plugin whose stamp differs, naming both. */
#ifndef DBTOP_ABI_H
#define DBTOP_ABI_H

#include "source.h"

/* Raised by hand when the contract between binary and plugin changes in
 * a way the sizes below do not show (a field's meaning, an op's rules). */
#define DBTOP_ABI_VERSION 1

/* The commit built (scripts/version.sh: 12 hex digits, "-dirty" when the
 * tree differed from it): the Makefile passes it to the plugins and to
 * registry.c through $(BUILD)/abi_stamp.h, rewritten when it changes. */
#ifndef DBTOP_ABI_STAMP
#define DBTOP_ABI_STAMP "unknown"
#endif

/* The layout of this struct never changes: version first, then the rest. */
struct plugin_abi {
	unsigned version;     /* DBTOP_ABI_VERSION */
	char commit[48];      /* DBTOP_ABI_STAMP */
	unsigned sample_size; /* sizeof (struct sample) */
	unsigned source_size; /* sizeof (struct source) */
	unsigned ops_size;    /* sizeof (struct source_ops) */
};

#define PLUGIN_ABI_INIT \
	{ \
		DBTOP_ABI_VERSION, DBTOP_ABI_STAMP, (unsigned)sizeof(struct sample), (unsigned)sizeof(struct source), \
			(unsigned)sizeof(struct source_ops) \
	}

/* dlopen file (a plugin: dbtop-pg.so, dbtop-mysql.so, dbtop-http.so) from
 * the plugin search path (registry.c), refuse it unless its stamp is this
 * binary's, and return its symbol sym; NULL with the reason in
 * plugin_error(). */
const void *plugin_symbol(const char *file, const char *sym);
const char *plugin_error(void);

/* The symbol each plugin exports, looked up with dlsym before its ops. */
#define PLUGIN_ABI_SYMBOL "dbtop_plugin_abi"
extern const struct plugin_abi dbtop_plugin_abi;
#define PLUGIN_ABI_DEFINE const struct plugin_abi dbtop_plugin_abi = PLUGIN_ABI_INIT

#endif
