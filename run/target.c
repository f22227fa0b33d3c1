/* target.c - one server's pipeline: a sample into the model, the event
 * log, the recording or history, the incident capture and the endpoint. */
#include "target.h"

#include <string.h>

#include "../util/util.h"

void target_run_init(struct target_run *t, const char *name, const char *host, struct source *src, struct model *m,
		     bool live)
{
	memset(t, 0, sizeof *t);
	t->name = name ? name : "";
	t->host = host;
	t->src = src;
	t->m = m;
	events_init(&t->ev);
	t->ev.live = live;
}

void target_run_restart(struct target_run *t, bool live)
{
	events_free(&t->ev);
	events_init(&t->ev);
	t->ev.live = live;
	t->ev_from = 0;
	t->ev_start = 0;
}

void target_run_free(struct target_run *t)
{
	events_free(&t->ev);
}

const struct caps *target_new_caps(const struct target_run *t)
{
	return t->src->conn_gen != t->caps_gen ? &t->src->caps : NULL;
}

/* Say what stopped (the newest note wins): why, then what goes on. */
static void note(struct target_run *t, enum target_note kind, const char *why, const char *goes_on)
{
	t->note_kind = kind;
	str_printf(t->note, sizeof t->note, "%s%s%s", kind == TN_RECORDING ? "recording stopped: " : "", why, goes_on);
}

/* The recording stops (goes_on: what the message adds). */
static void stop_recording(struct target_run *t, const char *why, const char *goes_on)
{
	t->recording = false;
	rec_close(t->rec);
	note(t, TN_RECORDING, why, goes_on);
}

/* (the history writes a shared recording itself) */
void target_caps(struct target_run *t, const struct caps *caps, uint32_t conn_gen)
{
	char err[NOTE_LEN];
	model_set_caps(t->m, caps);
	t->caps_gen = conn_gen;
	if (t->hist)
		hist_add_caps(t->hist, caps, conn_gen);
	if (t->recording && !(t->hist && t->hist->shared) &&
	    rec_write_caps(t->rec, caps, conn_gen, err, sizeof err) < 0)
		stop_recording(t, err, "");
}

/* The interval's events (derived, or a recording's) into the sample, so
 * the history and the recording keep them. */
static void ingest_events(struct target_run *t, struct sample *s)
{
	events_update(&t->ev, t->m, s);
	struct event_list *el = events_take_interval(&t->ev, &t->ev_from);
	if (!s->events)
		s->events = el;
	else
		event_list_free(el);
	if (!t->ev_start)
		t->ev_start = s->wall;
}

/* The sample kept: in the history (which writes a --record recording
 * once), else in the recording. */
static void ingest_record(struct target_run *t, const struct sample *s)
{
	char err[NOTE_LEN];
	struct history *h = t->hist;
	if (h) {
		bool was = h->stopped;
		if (hist_add(h, s, t->m) < 0 && !was)
			note(t, TN_HISTORY, h->note, " (the screen and sampling go on)");
		if (h->shared && h->stopped && t->recording) {
			t->recording = false;
			note(t, TN_RECORDING, h->note, " (monitoring goes on)");
		}
	} else if (t->recording && rec_write_sample(t->rec, s, err, sizeof err) < 0) {
		stop_recording(t, err, " (monitoring goes on)");
	}
}

/* Note when a DOWN / STALLED spell began (the fleet says for how long). */
static void note_state(struct target_run *t)
{
	const struct sample *s = &t->m->last;
	if (s->state == STATE_UP || t->m->intervals == 0) {
		t->down_since_set = false;
	} else if (!t->down_since_set) {
		t->down_since_set = true;
		t->down_since = s->wall;
	}
}

bool target_ingest(struct target_run *t, struct sample *s, const struct caps *caps, uint32_t conn_gen, bool fold)
{
	t->note_kind = TN_NONE;
	t->note[0] = '\0';
	if (caps)
		target_caps(t, caps, conn_gen);
	if (fold) /* the findings of the sample are m->findings from here on */
		model_update(t->m, s);
	ingest_events(t, s);
	ingest_record(t, s);
	if (t->inc) /* the incident capture (docs/incidents.md) */
		incidents_feed(t->inc, t->m, s);
	note_state(t);
	if (t->publish && fold)
		t->publish(t->publish_arg, t);
	return t->note_kind != TN_NONE;
}
