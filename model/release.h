/* release.h - freeing what a sample owns. The sets a sample carries
 * (digests, lock waits, wait profile, sessions, events) are the model's
 * types, so the model frees them, not core/sample.h that only names them. */
#ifndef DBTOP_MODEL_RELEASE_H
#define DBTOP_MODEL_RELEASE_H

#include "../core/sample.h"

/* Free what the sample owns (digests, lock waits, wait profile, sessions,
 * tuning view, events) and clear the pointers: one place for every consumer. */
void sample_release(struct sample *s);

#endif
