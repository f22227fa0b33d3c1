/* source.c - the generic connection driver (reconnect, back-off, settings
 * cadence) and sample helpers. Knows nothing about any one engine. */
#include "source.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hostio.h"
#include "host_read.h"
#include "../model/digests.h"
#include "../model/locks.h"
#include "../model/waits.h"
#include "../util/util.h"

#define BACKOFF_MIN 1.0   /* s */
#define BACKOFF_MAX 30.0  /* s */

void qres_count(struct sample *out, const struct qres *r)
{
	out->query_ms += r->ms;
	out->nqueries++;
}

int qres_fail(struct sample *out, const struct qres *r)
{
	str_copy(out->error, sizeof out->error, r->err);
	out->state = r->stalled ? STATE_STALLED : STATE_DOWN;
	return -1;
}

int source_tune(struct source *src, struct tune_call *c, const struct tune_steps *t)
{
	if (c->what == TC_PROBE)
		return t->probe(src, c);
	if (c->what == TC_PREV)
		return t->prev(src, c);
	if (src->read_only) {
		str_copy(c->err, sizeof c->err, "--read-only: refused");
		return -1;
	}
	if (c->what == TC_LOCK || c->what == TC_UNLOCK)
		return t->lock(src, c);
	return t->exec(src, c);
}

void source_act_refused(char *msg, size_t len, long long id, int present, const struct session_ident *who,
			const struct session_ident *now, bool cancel, const char *err)
{
	char why[NOTE_LEN / 2];
	if (present < 0)
		str_printf(msg, len, "session %lld may not be the one you saw: nothing was done (%s)", id, err);
	else if (!present)
		str_printf(msg, len, "session %lld has ended since: nothing was done", id);
	else if (session_ident_same(who, now, true, cancel, why, sizeof why))
		str_printf(msg, len, "session %lld changed while it was checked: nothing was done", id);
	else
		str_printf(msg, len, "session %lld is not the one you saw: nothing was done (%s)", id, why);
}

void source_init(struct source *src, const struct source_ops *ops, struct target *t,
		 double query_timeout)
{
	memset(src, 0, sizeof *src);
	src->ops = ops;
	src->tgt = t;
	src->query_timeout = query_timeout;
	src->sub_hz = 10;
	src->backoff = BACKOFF_MIN;
	src->settings_every = 10.0;
}

int source_open(struct source *src, char *err, size_t errlen)
{
	if (!src->ops) {
		str_printf(err, errlen, "no backend for this engine: %s", source_ops_error());
		return -1;
	}
	if (src->ops->connect(src, err, errlen) < 0) {
		text_sanitize(err);
		return -1;
	}
	src->connected = true;
	src->conn_gen++;
	src->conn_samples = 0;
	source_first_reads_begin(src);
	/* the devices under the log directories, once per connection */
	src->host_io = false;
	if (src->caps.logdev.state == LDS_NONE && src->caps.logdev.ndirs > 0) {
		hostio_resolve(&src->caps.logdev, NULL);
		src->host_io = src->caps.logdev.state == LDS_OK;
	}
	/* the host's CPU beside it: where the server is known to run here */
	src->host_load = false;
	if (src->caps.logdev.state == LDS_OK || src->caps.logdev.state == LDS_NOBLOCK ||
	    src->caps.logdev.state == LDS_ZFS || src->caps.backend_pid > 0) {
		hostload_close(&src->hl);
		if (src->caps.engine == ENGINE_POSTGRESQL)
			hostload_find_pg(&src->hl, NULL, src->caps.backend_pid);
		else
			hostload_find_mysql(&src->hl, NULL, src->caps.pid_file);
		src->host_load = true;
	}
	src->next_settings = 0;
	src->nset_last = 0;   /* read in full first */
	if (!src->start_wall)
		src->start_wall = clock_wall();
	return 0;
}

/* Note a failure, close the connection and schedule the next attempt. */
static void source_fail(struct source *src, double now)
{
	if (src->connected)
		src->ops->close(src);
	src->connected = false;
	hostload_close(&src->hl);
	src->next_try = now + src->backoff;
	src->backoff = src->backoff * 2 < BACKOFF_MAX ? src->backoff * 2 : BACKOFF_MAX;
	if (src->retry_each_interval) {
		/* a refused connection costs the server nothing: the next
		 * interval tries again */
		src->next_try = now + (src->interval > 0 ? src->interval : BACKOFF_MIN) * 0.9;
		src->backoff = BACKOFF_MIN;
	}
}

const char *source_watched(const struct source *src, int i)
{
	for (int k = 0; k < src->nset_last; k++) {
		const char *n = src->set_last[k].name;
		if (!setting_watched(n) || n[strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_")])
			continue;
		if (i-- == 0)
			return n;
	}
	return NULL;
}

/* True when a value in set differs from the last read's (src->set_last). */
static bool settings_differ(const struct source *src, const struct setting *set, int n)
{
	for (int i = 0; i < n; i++)
		for (int k = 0; k < src->nset_last; k++)
			if (strcmp(src->set_last[k].name, set[i].name) == 0 &&
			    strcmp(src->set_last[k].value, set[i].value) != 0)
				return true;
	return false;
}

/* After a refresh: a full read becomes the last one; watched settings read
 * alone that differ from it update it, and the sample then carries all
 * the settings (settings_fresh) so that everything sees the change at
 * once; unchanged ones leave the sample without settings. A value found
 * changed either way is noted (src->changed_mono, pace_after_change). */
static void source_settings_merge(struct source *src, struct sample *out, double now)
{
	bool changed = false;
	if (out->settings_fresh) {
		if (settings_differ(src, out->settings, out->nsettings))
			src->changed_mono = now;
		src->nset_last = out->nsettings;
		memcpy(src->set_last, out->settings, sizeof out->settings[0] * (size_t)out->nsettings);
		return;
	}
	if (!out->settings_checked)
		return;
	for (int i = 0; i < out->nsettings; i++)
		for (int k = 0; k < src->nset_last; k++)
			if (strcmp(src->set_last[k].name, out->settings[i].name) == 0 &&
			    strcmp(src->set_last[k].value, out->settings[i].value) != 0) {
				str_copy(src->set_last[k].value, sizeof src->set_last[k].value, out->settings[i].value);
				changed = true;
			}
	out->nsettings = 0;
	memset(out->settings, 0, sizeof out->settings);
	if (changed) {
		src->changed_mono = now;
		out->nsettings = src->nset_last;
		memcpy(out->settings, src->set_last, sizeof out->settings[0] * (size_t)src->nset_last);
		out->settings_fresh = true;
	}
}

void source_tick(struct source *src, struct sample *out)
{
	double now = clock_mono();
	char err[NOTE_LEN];
	bool want_settings;
	int rc;

	memset(out, 0, sizeof *out);
	out->mono = now;
	out->wall = clock_wall();
	if (!src->connected) {
		if (now < src->next_try) {
			out->state = STATE_DOWN;
			out->retry_in = src->next_try - now;
			out->conn_gen = src->conn_gen;
			str_copy(out->error, sizeof out->error, src->last_error);
			return;
		}
		if (source_open(src, err, sizeof err) < 0) {
			str_copy(src->last_error, sizeof src->last_error, err);
			source_fail(src, now);
			out->state = STATE_DOWN;
			out->retry_in = src->next_try - now;
			out->conn_gen = src->conn_gen;
			str_copy(out->error, sizeof out->error, err);
			return;
		}
	}
	want_settings = now >= src->next_settings;
	out->conn_gen = src->conn_gen;
	rc = src->ops->sample(src, out, want_settings);
	if (rc > 0) {
		src->finished = true;
		return;
	}
	if (rc < 0) {
		text_sanitize(out->error);
		str_copy(src->last_error, sizeof src->last_error, out->error);
		if (out->state != STATE_STALLED)
			out->state = STATE_DOWN;
		source_fail(src, now);
		out->retry_in = src->next_try - now;
		return;
	}
	src->backoff = BACKOFF_MIN;
	src->conn_samples++;
	source_first_reads_next(src);
	src->last_error[0] = '\0';
	/* the host's files: one reading shared by the targets on this host
	 * (on one server), taken while younger than half an interval */
	double share_s = (src->interval > 0 ? src->interval : 1) / 2;
	if (src->host_io)
		hostio_read(&src->caps.logdev, NULL, share_s, &src->io_at, &out->logdev);
	if (src->host_load)
		hostload_read(&src->hl, NULL, share_s, &out->host);
	if (out->settings_fresh)
		src->next_settings = now + src->settings_every;
	source_settings_merge(src, out, now);
}

/* Samples a rank's turn lasts at most (two readings, and one more that a
 * read's pacing may take to come due). */
#define FIRST_TURN_MAX 3
/* A first reading of the turn's rank at most this part of the budget ends
 * its turn although its rates need a second: that one costs about the
 * same, and the next rank's first reading beside it stays within one
 * costly read a refresh. */
#define FIRST_CHEAP_SHARE 0.25

/* The rank whose turn it is (the lowest still to come; not the session
 * list while no screen shows it: its turn comes when one does), or
 * FIRST__COUNT. */
static unsigned first_turn(const struct source *src)
{
	for (unsigned r = 0; r < FIRST__COUNT; r++)
		if ((src->first_pending & (1u << r)) && (r != FIRST_SESSIONS || src->want_sessions))
			return r;
	return FIRST__COUNT;
}

bool source_first_reads_wait(const struct source *src, unsigned rank)
{
	assert(rank < FIRST__COUNT);
	if (!src->stage_first)
		return false;
	/* samples 0 and 1 give the first rates */
	if (src->conn_samples < 2)
		return true;
	if (!(src->first_pending & (1u << rank)))
		return false; /* its start is over: paced as any read */
	return rank != first_turn(src) || (src->first_paid >= 0 && src->first_paid != (int)rank);
}

void source_first_reads_begin(struct source *src)
{
	src->first_pending = (1u << FIRST__COUNT) - 1;
	src->first_paid = -1;
	src->first_turn_samples = 0;
	src->first_turn_read = src->first_turn_new = false;
}

void source_first_read_done(struct source *src, unsigned rank, double ms, bool complete)
{
	assert(rank < FIRST__COUNT);
	if (!src->stage_first || !(src->first_pending & (1u << rank)))
		return;
	/* a read over the budget (any, without one) pays for the refresh, on
	 * the turn's behalf: a rank reads out of turn only with the turn's own
	 * statement (MariaDB's session list with the lock graph) */
	unsigned turn = first_turn(src);
	if (ms > src->budget_ms && src->first_paid < 0)
		src->first_paid = (int)turn;
	if (rank == turn)
		src->first_turn_read = true;
	if (!complete && !(rank == turn && ms <= src->budget_ms * FIRST_CHEAP_SHARE))
		return;
	src->first_pending &= ~(1u << rank);
	src->first_turn_samples = 0;
	src->first_turn_read = false;
	src->first_turn_new = true;
}

void source_first_reads_next(struct source *src)
{
	unsigned turn = first_turn(src);
	/* the sample just taken gave the first rates: no turn in it */
	if (src->stage_first && src->conn_samples > 2 && turn < FIRST__COUNT &&
	    !(src->first_turn_new && !src->first_turn_read)) {
		/* a turn begun in this sample without a read counts from the next */
		src->first_turn_samples++;
		if (!src->first_turn_read || src->first_turn_samples >= FIRST_TURN_MAX) {
			src->first_pending &= ~(1u << turn);
			src->first_turn_samples = 0;
		}
	}
	assert(src->first_turn_samples < FIRST_TURN_MAX);
	src->first_paid = -1;
	src->first_turn_read = src->first_turn_new = false;
}

void source_close(struct source *src)
{
	if (src->connected && src->ops)
		src->ops->close(src);
	src->connected = false;
	hostload_close(&src->hl);
	lock_set_free(src->lk_last);
	src->lk_last = NULL;
	source_sessions_forget(src);
}

void source_idle(struct source *src, double until, volatile int *stop)
{
	double next_sub = clock_mono();
	while (!(stop && *stop)) {
		double now = clock_mono();
		if (now >= until)
			return;
		if (src->connected && src->wants_subsample && src->ops->subsample && src->sub_hz > 0) {
			if (now >= next_sub)
				next_sub = now + source_subsample(src);
			sleep_until(next_sub < until ? next_sub : until);
		} else {
			sleep_until(until);
		}
	}
}

bool source_host_local(const char *host)
{
	if (!host || !*host || host[0] == '/')
		return true;
	if (strncasecmp(host, "localhost", 9) == 0 && (host[9] == '\0' || host[9] == ' '))
		return true;
	if (strstr(host, "via UNIX socket"))
		return true;
	size_t n = strcspn(host, " ");
	if (strncmp(host, "127.", 4) == 0)
		return strspn(host, "0123456789.") == n;
	return (n == 3 && strncmp(host, "::1", 3) == 0) || (n == 5 && strncmp(host, "[::1]", 5) == 0);
}

void source_logdev_remote(struct caps *c, const char *at)
{
	c->logdev.state = LDS_REMOTE;
	str_printf(c->logdev.note, sizeof c->logdev.note,
		   "the server is at %s, not on this host: the log device's figures need dbtop on the server", at);
}

void source_logdev_add(struct caps *c, const char *role, const char *path)
{
	struct logdev_map *m = &c->logdev;
	if (!path || !*path || m->ndirs >= LOGDIR_MAX)
		return;
	for (int i = 0; i < m->ndirs; i++)
		if (strcmp(m->dirs[i].path, path) == 0)
			return;
	struct logdir *d = &m->dirs[m->ndirs++];
	memset(d, 0, sizeof *d);
	str_copy(d->role, sizeof d->role, role);
	str_copy(d->path, sizeof d->path, path);
	text_sanitize(d->path);
}
