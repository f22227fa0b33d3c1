/* version.c - `dbtop --version`. */
#include "version.h"

#include "../record/record.h"
#include "batch.h"

void version_print(FILE *out)
{
	fprintf(out, "dbtop %s (commit %s)\n", dbtop_version, dbtop_commit);
	fprintf(out, "batch JSON schema %d, recording format %d.%d, metric names %d\n", BATCH_SCHEMA, REC_MAJOR,
		REC_MINOR, METRICS_NAMES_VERSION);
}
