/* batch.h - the batch record (JSON lines contract, schema 1) and the text
 * form of the same record. */
#ifndef DBTOP_BATCH_H
#define DBTOP_BATCH_H

#include "../model/model.h"
#include "../util/util.h"

#define BATCH_SCHEMA 1

/* Append one JSON record (no newline) for the model's newest interval,
 * with the top n statement digests by total time. */
void batch_json(const struct model *m, const char *host, int top, struct strbuf *out);
/* Append the text form of the same record (ends with a newline). */
void batch_text(const struct model *m, const char *host, struct strbuf *out);

#endif
