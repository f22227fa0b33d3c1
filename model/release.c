/* release.c - what a sample owns, freed. See release.h. */
#include "release.h"

#include <stdlib.h>

#include "digests.h"
#include "events.h"
#include "locks.h"
#include "sessions.h"
#include "waits.h"

void sample_release(struct sample *s)
{
	digest_set_free(s->digests);
	lock_set_free(s->locks);
	wait_set_free(s->waits);
	session_set_free(s->sessions);
	free(s->tuning);
	s->tuning = NULL;
	event_list_free(s->events);
	s->events = NULL;
	s->digests = NULL;
	s->locks = NULL;
	s->waits = NULL;
	s->sessions = NULL;
}
