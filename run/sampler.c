/* sampler.c - the sampling worker thread and its queue. */
#include "sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/util.h"

/* Wait on the condition until monotonic time t or a change; mu held. */
static void wait_until(struct sampler *sp, double t)
{
	struct timespec ts;
	double d = t - clock_mono();
	if (d <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)d;
	ts.tv_nsec += (long)((d - (double)(long)d) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&sp->cv, &sp->mu, &ts);
}

/* The gap between the first two samples of a connection, s. */
#define FIRST_RATES_S 0.2

/* Copy the tuner's view for the screen. */
static void publish_tuning(struct sampler *sp)
{
	pthread_mutex_lock(&sp->mu);
	*sp->tv = sp->tuner->v;
	sp->tv_gen++;
	pthread_mutex_unlock(&sp->mu);
	if (write(sp->wake[1], "x", 1) < 0 && errno != EAGAIN) {
		/* the UI is gone */
	}
}

/* Run a tuning request on this thread. */
static int tune_action(struct sampler *sp, int what, long long id, const char *value, const struct tune_target *to,
		       char *msg, size_t len)
{
	int rc;
	if (!sp->tuner) {
		str_copy(msg, len, "tuning is not available here");
		return -1;
	}
	switch (what) {
	case SP_TUNE_APPLY: rc = tuner_apply_in(sp->tuner, (int)id, value, to, msg, len); break;
	case SP_TUNE_UNDO: rc = tuner_revert(sp->tuner, false, msg, len); break;
	case SP_TUNE_UNDO_ALL: rc = tuner_revert(sp->tuner, true, msg, len); break;
	case SP_TUNE_KEEP: rc = tuner_keep(sp->tuner, (unsigned)id, msg, len); break;
	case SP_TUNE_EXPIRE: rc = tuner_expire(sp->tuner, clock_mono(), msg, len); break;
	default: str_copy(msg, len, "unknown request"); rc = -1; break;
	}
	/* the SQL in it may name a role or database with any bytes: the
	 * message goes to the screen and to stderr at exit */
	text_sanitize(msg);
	publish_tuning(sp);
	/* the settings the rates pane shows: read again at the next sample,
	 * so that it and the tuning pane agree at once */
	sp->src->next_settings = 0;
	return rc < 0 ? -1 : 0;
}

/* Run an explain request on this thread and publish its outcome. */
static void explain_action(struct sampler *sp, long long id, const struct session_ident *who)
{
	struct source *src = sp->src;
	char err[NOTE_LEN] = "";
	int rc = -1;
	if (!sp->ex_plan)
		sp->ex_plan = xmalloc(SAMPLER_PLAN_MAX);
	sp->ex_plan[0] = '\0';
	if (!src->ops->explain)
		str_copy(err, sizeof err, "this source cannot explain statements");
	else if (!src->connected)
		str_copy(err, sizeof err, "not connected");
	else
		rc = src->ops->explain(src, id, who, sp->ex_plan, SAMPLER_PLAN_MAX, err, sizeof err);
	pthread_mutex_lock(&sp->mu);
	sp->ex_pending = false;
	sp->ex_rc = rc;
	str_copy(sp->ex_err, sizeof sp->ex_err, err);
	sp->ex_done = true;
	pthread_mutex_unlock(&sp->mu);
	if (write(sp->wake[1], "x", 1) < 0 && errno != EAGAIN) {
		/* the UI is gone */
	}
}

/* The worker: tick, queue, wait for the next tick. */
/* Wait (sp->mu held) until the next sample is due, or a stop, an action
 * or a probe is asked for; the sub-samples between samples are taken
 * meanwhile, outside the lock. */
static void wait_for_work(struct sampler *sp, double next, double *next_sub)
{
	while (!sp->stop && !sp->act && !sp->ex_pending && !sp->probe_wanted && !sp->self_paced &&
	       clock_mono() < next) {
		struct source *src = sp->src;
		if (src->connected && src->wants_subsample && src->ops->subsample && src->sub_hz > 0) {
			if (clock_mono() >= *next_sub) {
				/* a quick look between samples, outside the lock */
				pthread_mutex_unlock(&sp->mu);
				double every = source_subsample(src);
				pthread_mutex_lock(&sp->mu);
				*next_sub = clock_mono() + every;
				continue;
			}
			wait_until(sp, *next_sub < next ? *next_sub : next);
		} else {
			wait_until(sp, next);
		}
	}
}

/* Do the action asked for (called with sp->mu held; returns without it):
 * end or cancel a session, or a tuning step; its result for the screen,
 * and the next sample soon so the pane shows the effect. */
static void do_action(struct sampler *sp, double *next)
{
	int what = sp->act, rc = -1;
	long long id = sp->act_id;
	struct session_ident who = sp->act_who;
	char msg[NOTE_LEN], value[TUNE_VALUE_LEN];
	struct tune_target to = sp->act_to;
	str_copy(value, sizeof value, sp->act_value);
	pthread_mutex_unlock(&sp->mu);
	struct source *src = sp->src;
	if (what >= SP_TUNE_APPLY)
		rc = tune_action(sp, what, id, value, &to, msg, sizeof msg);
	else if (!src->ops->act)
		str_copy(msg, sizeof msg, "this source cannot act on sessions");
	else if (!src->connected)
		str_copy(msg, sizeof msg, "not connected: nothing was done");
	else
		rc = src->ops->act(src, what, id, &who, msg, sizeof msg);
	if (what < SP_TUNE_APPLY)
		source_locks_forget(src);   /* the sample that follows shows the effect */
	pthread_mutex_lock(&sp->mu);
	sp->act = 0;
	sp->act_rc = rc;
	str_copy(sp->act_msg, sizeof sp->act_msg, msg);
	sp->act_done = true;
	/* sample again soon so the pane shows the effect */
	*next = clock_mono() + 0.2;
	pthread_mutex_unlock(&sp->mu);
	if (write(sp->wake[1], "x", 1) < 0 && errno != EAGAIN) {
		/* the UI is gone */
	}
}

/* Take one sample into m (with the capabilities of a new connection) and
 * queue it for the screen, waiting while the queue is full; sets when the
 * next one is due. False when asked to stop meanwhile. */
static bool take_sample(struct sampler *sp, struct sampler_msg *m, double *next)
{
	double t0 = clock_mono();
	memset(m, 0, sizeof *m);
	source_tick(sp->src, &m->s);
	sp->busy_ms = (clock_mono() - t0) * 1000;
	if (sp->src->conn_gen != sp->caps_gen) {
		if (sp->tuner && sp->src->connected) {
			/* a new connection: its privileges and values */
			tuner_probe(sp->tuner);
			publish_tuning(sp);
		}
		m->has_caps = true;
		m->conn_gen = sp->src->conn_gen;
		m->caps = sp->src->caps;
		sp->caps_gen = sp->src->conn_gen;
	}
	m->end = sp->src->finished;

	pthread_mutex_lock(&sp->mu);
	while (!sp->stop && sp->len == SAMPLER_QUEUE)
		pthread_cond_wait(&sp->cv, &sp->mu);
	if (sp->stop) {
		pthread_mutex_unlock(&sp->mu);
		sample_release(&m->s);
		return false;
	}
	sp->q[(sp->head + sp->len) % SAMPLER_QUEUE] = *m;
	sp->len++;
	/* the first sample of a connection only primes the counters: the
	 * second comes soon, so the screen has rates within a blink */
	bool primed = m->s.state == STATE_UP && m->s.conn_gen != sp->primed_gen;
	if (primed)
		sp->primed_gen = m->s.conn_gen;
	/* (from the start of the first: a slow first sample, such as a
	 * whole big pg_stat_statements, does not delay the rates more) */
	*next = primed && sp->interval > FIRST_RATES_S ? t0 + FIRST_RATES_S : *next + sp->interval;
	if (*next < clock_mono())
		*next = clock_mono();
	pthread_mutex_unlock(&sp->mu);
	if (write(sp->wake[1], "x", 1) < 0 && errno != EAGAIN) {
		/* the UI is gone; nothing to tell */
	}
	return true;
}

static void *worker(void *arg)
{
	struct sampler *sp = arg;
	struct sampler_msg *m = xcalloc(1, sizeof *m);
	double next = clock_mono(), next_sub = next;

	for (;;) {
		pthread_mutex_lock(&sp->mu);
		wait_for_work(sp, next, &next_sub);
		if (sp->stop) {
			pthread_mutex_unlock(&sp->mu);
			break;
		}
		if (sp->ex_pending && !sp->act) {
			long long id = sp->ex_id;
			struct session_ident who = sp->ex_who;
			pthread_mutex_unlock(&sp->mu);
			explain_action(sp, id, &who);
			continue;
		}
		if (sp->probe_wanted && !sp->act) {
			sp->probe_wanted = false;
			pthread_mutex_unlock(&sp->mu);
			if (sp->tuner) {
				tuner_probe(sp->tuner);
				publish_tuning(sp);
			}
			continue;
		}
		if (sp->act) {
			do_action(sp, &next);
			continue;
		}
		sp->src->interval = sp->interval;   /* what --server-budget paces by */
		sp->src->want_sessions = sp->want_sessions;
		sp->src->sessions_idle = sp->sessions_idle;
		pthread_mutex_unlock(&sp->mu);
		if (!take_sample(sp, m, &next) || m->end)
			break;
		if (__atomic_load_n(&sp->src->background, __ATOMIC_RELAXED))
			next_sub = 0;   /* its one look per refresh right after the sample: no wake-up of its own */
	}
	free(m);
	return NULL;
}

int sampler_start(struct sampler *sp, struct source *src, double interval, bool self_paced,
		  struct tuner *tuner)
{
	memset(sp, 0, sizeof *sp);
	sp->tuner = tuner;
	sp->tv = xcalloc(1, sizeof *sp->tv);
	if (tuner) {
		*sp->tv = tuner->v;
		sp->tv_gen = 1;
	}
	sp->src = src;
	src->stop_flag = &sp->stop_flag;
	src->pause_flag = &sp->pause_flag;
	sp->interval = interval;
	sp->want_sessions = src->want_sessions;
	sp->sessions_idle = src->sessions_idle;
	sp->self_paced = self_paced;
	sp->caps_gen = 0;
	sp->q = xcalloc(SAMPLER_QUEUE, sizeof *sp->q);
	if (pipe2(sp->wake, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	pthread_mutex_init(&sp->mu, NULL);
	{
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&sp->cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	/* the worker inherits a mask that blocks the quit, terminal and pipe
	 * signals: they reach the UI thread, whose poll() they interrupt and
	 * whose handlers (ui.c, ncurses) act on them */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigaddset(&block, SIGPIPE);
	sigaddset(&block, SIGWINCH);
	sigaddset(&block, SIGTSTP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int rc = pthread_create(&sp->th, NULL, worker, sp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return -1;
	sp->running = true;
	return 0;
}

void sampler_pause(struct sampler *sp, bool paused)
{
	__atomic_store_n(&sp->pause_flag, paused, __ATOMIC_RELAXED); /* read by a replay's pacing */
}

void sampler_set_interval(struct sampler *sp, double interval)
{
	pthread_mutex_lock(&sp->mu);
	sp->interval = interval;
	pthread_cond_broadcast(&sp->cv);
	pthread_mutex_unlock(&sp->mu);
}

bool sampler_request(struct sampler *sp, int what, long long id, const struct session_ident *who)
{
	bool ok;
	pthread_mutex_lock(&sp->mu);
	ok = sp->act == 0;
	if (ok) {
		sp->act = what;
		sp->act_id = id;
		sp->act_who = *who;
		sp->act_done = false;
		pthread_cond_broadcast(&sp->cv);
	}
	pthread_mutex_unlock(&sp->mu);
	return ok;
}

bool sampler_tune(struct sampler *sp, int what, long long id, const char *value)
{
	return sampler_tune_in(sp, what, id, value, NULL);
}

bool sampler_tune_in(struct sampler *sp, int what, long long id, const char *value, const struct tune_target *to)
{
	bool ok;
	pthread_mutex_lock(&sp->mu);
	ok = sp->act == 0;
	if (ok) {
		sp->act = what;
		sp->act_id = id;
		str_copy(sp->act_value, sizeof sp->act_value, value ? value : "");
		memset(&sp->act_to, 0, sizeof sp->act_to);
		if (to)
			sp->act_to = *to;
		sp->act_done = false;
		pthread_cond_broadcast(&sp->cv);
	}
	pthread_mutex_unlock(&sp->mu);
	return ok;
}

void sampler_want_probe(struct sampler *sp)
{
	pthread_mutex_lock(&sp->mu);
	sp->probe_wanted = true;
	pthread_cond_broadcast(&sp->cv);
	pthread_mutex_unlock(&sp->mu);
}

bool sampler_tune_view(struct sampler *sp, unsigned *gen, struct tune_view *out)
{
	bool changed;
	pthread_mutex_lock(&sp->mu);
	changed = sp->tv_gen != *gen;
	if (changed) {
		*out = *sp->tv;
		*gen = sp->tv_gen;
	}
	pthread_mutex_unlock(&sp->mu);
	return changed;
}

void sampler_set_background(struct sampler *sp, bool background)
{
	if (sp->src)
		/* read by the worker at its next look */
		__atomic_store_n(&sp->src->background, background, __ATOMIC_RELAXED);
}

void sampler_want_sessions(struct sampler *sp, bool want, bool idle)
{
	pthread_mutex_lock(&sp->mu);
	sp->want_sessions = want; /* the source's copy is the worker's (sampler.h) */
	sp->sessions_idle = idle;
	pthread_mutex_unlock(&sp->mu);
}

bool sampler_explain_request(struct sampler *sp, long long id, const struct session_ident *who)
{
	bool ok;
	pthread_mutex_lock(&sp->mu);
	ok = !sp->ex_pending;
	if (ok) {
		sp->ex_pending = true;
		sp->ex_id = id;
		if (who)
			sp->ex_who = *who;
		else
			memset(&sp->ex_who, 0, sizeof sp->ex_who);
		sp->ex_done = false;
		pthread_cond_broadcast(&sp->cv);
	}
	pthread_mutex_unlock(&sp->mu);
	return ok;
}

bool sampler_explain_result(struct sampler *sp, int *rc, char **plan, char *err, size_t elen)
{
	bool done;
	pthread_mutex_lock(&sp->mu);
	done = sp->ex_done;
	if (done) {
		*rc = sp->ex_rc;
		*plan = sp->ex_rc == 0 ? xstrdup(sp->ex_plan ? sp->ex_plan : "") : NULL;
		str_copy(err, elen, sp->ex_err);
		sp->ex_done = false;
	}
	pthread_mutex_unlock(&sp->mu);
	return done;
}

bool sampler_busy(struct sampler *sp)
{
	bool b;
	pthread_mutex_lock(&sp->mu);
	b = sp->act != 0;
	pthread_mutex_unlock(&sp->mu);
	return b;
}

bool sampler_action_result(struct sampler *sp, int *rc, char *msg, size_t len)
{
	bool done;
	pthread_mutex_lock(&sp->mu);
	done = sp->act_done;
	if (done) {
		*rc = sp->act_rc;
		str_copy(msg, len, sp->act_msg);
		sp->act_done = false;
	}
	pthread_mutex_unlock(&sp->mu);
	return done;
}

bool sampler_pop(struct sampler *sp, struct sampler_msg *out)
{
	char buf[64];
	bool got = false;
	while (read(sp->wake[0], buf, sizeof buf) > 0)
		;
	pthread_mutex_lock(&sp->mu);
	if (sp->len > 0) {
		*out = sp->q[sp->head];
		sp->head = (sp->head + 1) % SAMPLER_QUEUE;
		sp->len--;
		got = true;
		pthread_cond_broadcast(&sp->cv);
	}
	pthread_mutex_unlock(&sp->mu);
	return got;
}

bool sampler_stop(struct sampler *sp, double max_wait)
{
	struct timespec ts;
	if (!sp->running)
		return true;
	pthread_mutex_lock(&sp->mu);
	sp->stop = true;
	__atomic_store_n(&sp->stop_flag, 1, __ATOMIC_RELAXED); /* read by the source's waits */
	pthread_cond_broadcast(&sp->cv);
	pthread_mutex_unlock(&sp->mu);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)max_wait;
	ts.tv_nsec += (long)((max_wait - (double)(long)max_wait) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	if (pthread_timedjoin_np(sp->th, NULL, &ts) != 0)
		return false;  /* still inside a query; the process exit ends it */
	sp->running = false;
	close(sp->wake[0]);
	close(sp->wake[1]);
	for (int i = 0; i < sp->len; i++)
		sample_release(&sp->q[(sp->head + i) % SAMPLER_QUEUE].s);
	free(sp->q);
	sp->q = NULL;
	free(sp->tv);
	sp->tv = NULL;
	free(sp->ex_plan);
	sp->ex_plan = NULL;
	pthread_mutex_destroy(&sp->mu);
	pthread_cond_destroy(&sp->cv);
	return true;
}
