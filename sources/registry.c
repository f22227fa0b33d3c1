/* registry.c - the backend for each engine. */
#include "source.h"

const struct source_ops *source_ops_for(enum engine e)
{
	switch (e) {
	case ENGINE_MYSQL: return &mysql_source_ops;
	case ENGINE_POSTGRESQL: return &pg_source_ops;
	default: return NULL;
	}
}
