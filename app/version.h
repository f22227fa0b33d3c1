/* version.h - what this build is: the release (the file VERSION) and the
 * commit it was built from (build/version.c, written by scripts/version.sh
 * at each build), and the versions of the interfaces CHANGELOG.md tracks. */
#ifndef DBTOP_VERSION_H
#define DBTOP_VERSION_H

#include <stdio.h>

extern const char dbtop_version[]; /* "0.1.0" */
extern const char dbtop_commit[];  /* "1a2b3c4d5e6f", with "-dirty" when built from changed files; "unknown" */
#define DBTOP_VERSION dbtop_version

/* The metric names of /metrics (docs/metrics.md): bumped when a name or a
 * label is renamed or removed (adding one is not a change of set). */
#define METRICS_NAMES_VERSION 1

/* `dbtop --version`: two lines, e.g.
 *   dbtop 0.1.0 (commit 1a2b3c4d5e6f)
 *   batch JSON schema 1, recording format 1.0, metric names 1 */
void version_print(FILE *out);

#endif
