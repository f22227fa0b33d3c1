/* fuzz_record.c - libFuzzer target for the recording reader: any bytes as
 * an in-memory recording, read to the end, summarised, closed. Checks the
 * reader's invariants (strings terminated inside their arrays, counts in
 * range, offsets inside the input) and traps when one breaks.
 * Build and run: make fuzz FUZZ_TARGET=record */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../model/digests.h"
#include "../../model/locks.h"
#include "../../model/waits.h"
#include "../../record/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(c) do { if (!(c)) __builtin_trap(); } while (0)

/* s is a string that ends inside its array of n bytes. */
#define TERMINATED(s) REQUIRE(memchr((s), '\0', sizeof(s)) != NULL)

static void check_notes(const struct notes *n)
{
	int i;
	REQUIRE(n->n >= 0 && n->n <= NOTES_MAX);
	for (i = 0; i < n->n; i++)
		TERMINATED(n->msg[i]);
}

static void check_caps(const struct caps *c)
{
	TERMINATED(c->version);
	TERMINATED(c->redo_fsync_source);
	TERMINATED(c->commit_source);
	REQUIRE(c->engine <= ENGINE_POSTGRESQL);
	REQUIRE(c->flavour <= FLAVOUR_POSTGRESQL);
	REQUIRE(c->wal_stats <= WAL_STAT_IO);
	check_notes(&c->notes);
}

static void check_sample(const struct sample *s)
{
	int i;
	size_t r;
	REQUIRE(s->state <= STATE_STALLED);
	TERMINATED(s->error);
	REQUIRE(s->nsettings >= 0 && s->nsettings <= SETTINGS_MAX);
	for (i = 0; i < s->nsettings; i++) {
		TERMINATED(s->settings[i].name);
		TERMINATED(s->settings[i].value);
	}
	check_notes(&s->notes);
	if (s->digests) {
		const struct digest_set *d = s->digests;
		REQUIRE(d->n <= d->cap);
		TERMINATED(d->source);
		for (r = 0; r < d->n; r++) {
			TERMINATED(d->rows[r].key);
			TERMINATED(d->rows[r].schema);
			REQUIRE(d->rows[r].have < (1u << DG__COUNT));
			if (d->rows[r].text)
				(void)strlen(d->rows[r].text);  /* ASan: terminated and in bounds */
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rec_item it;  /* large: not on the stack */
	struct rec_reader rd;
	char err[256], sum[512];
	uint64_t items = 0;

	err[0] = '\0';
	if (rec_open_read(&rd, NULL, data, size, err, sizeof err) < 0) {
		REQUIRE(err[0] != '\0');
		return 0;
	}
	REQUIRE(rd.have_hdr && rd.major == REC_MAJOR);
	TERMINATED(rd.hdr.engine);
	TERMINATED(rd.hdr.server_version);
	TERMINATED(rd.hdr.host);
	TERMINATED(rd.hdr.dbtop_version);
	while (rec_next(&rd, &it) == 1) {
		items++;
		REQUIRE(it.type == REC_CAPS || it.type == REC_SAMPLE);
		if (it.type == REC_CAPS)
			check_caps(&it.caps);
		else
			check_sample(&it.sample);
		digest_set_free(it.sample.digests);
		it.sample.digests = NULL;
		lock_set_free(it.sample.locks);
		it.sample.locks = NULL;
		wait_set_free(it.sample.waits);
		it.sample.waits = NULL;
		REQUIRE(items < size);  /* every record takes at least 13 bytes */
	}
	REQUIRE(rd.offset <= size);
	REQUIRE(rd.skipped_bytes <= size);
	REQUIRE(rd.records >= 1 + items);
	rec_reader_summary(&rd, sum, sizeof sum);
	REQUIRE(strlen(sum) < sizeof sum && strstr(sum, "records read") != NULL);
	if (rd.corrupt)
		REQUIRE(strstr(sum, "damaged") != NULL);
	rec_reader_close(&rd);
	REQUIRE(rd.f == NULL && rd.buf == NULL);
	return 0;
}
