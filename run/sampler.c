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

/* The gap between the first two samples of a connection, s: the first
 * rates within a blink, over no less than the server's counters need
 * (caps_counters_lag_s: PostgreSQL's come once a second). */
#define FIRST_RATES_S 0.2
static double first_rates_gap(const struct caps *c)
{
	double lag = caps_counters_lag_s(c);
	return lag > FIRST_RATES_S ? lag : FIRST_RATES_S;
}

static void wake_ui(struct sampler *sp);

/* Copy the tuner's view for the screen. */
static void publish_tuning(struct sampler *sp)
{
	pthread_mutex_lock(&sp->mu);
	tune_view_copy(sp->tv, &sp->tuner->v);
	sp->tv_gen++;
	pthread_mutex_unlock(&sp->mu);
	wake_ui(sp);
}

/* Tell the screen's loop (it polls wake[0]). */
static void wake_ui(struct sampler *sp)
{
	if (write(sp->wake[1], "x", 1) < 0 && errno != EAGAIN) {
		/* the UI is gone */
	}
}

/* Run a tuning command on this thread. */
static int tune_action(struct sampler *sp, const struct target_cmd *c, char *msg, size_t len)
{
	int rc;
	if (!sp->tuner) {
		str_copy(msg, len, "tuning is not available here");
		return -1;
	}
	switch (c->kind) {
	case CMD_TUNE_APPLY:
		rc = tuner_apply_in(sp->tuner, c->arg.apply.idx, c->arg.apply.value, &c->arg.apply.to, msg, len);
		break;
	case CMD_TUNE_UNDO: rc = tuner_revert(sp->tuner, false, msg, len); break;
	case CMD_TUNE_UNDO_ALL: rc = tuner_revert(sp->tuner, true, msg, len); break;
	case CMD_TUNE_KEEP: rc = tuner_keep(sp->tuner, c->arg.seq, msg, len); break;
	case CMD_TUNE_EXPIRE: rc = tuner_expire(sp->tuner, clock_mono(), msg, len); break;
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

/* Run an explain on this thread into r. */
static void explain_action(struct sampler *sp, const struct target_cmd *c, struct target_result *r)
{
	struct source *src = sp->src;
	if (!sp->ex_plan)
		sp->ex_plan = xmalloc(SAMPLER_PLAN_MAX);
	sp->ex_plan[0] = '\0';
	if (!src->ops->explain)
		str_copy(r->msg, sizeof r->msg, "this source cannot explain statements");
	else if (!src->connected)
		str_copy(r->msg, sizeof r->msg, "not connected");
	else
		r->rc = src->ops->explain(src, c->arg.session.id, &c->arg.session.who, sp->ex_plan, SAMPLER_PLAN_MAX,
					  r->msg, sizeof r->msg);
	if (r->rc == 0)
		r->plan = xstrdup(sp->ex_plan);
}

/* Wait (sp->mu held) until the next sample is due, or a stop or a
 * command; the sub-samples between samples are taken meanwhile, outside
 * the lock. */
static void wait_for_work(struct sampler *sp, double next, double *next_sub)
{
	while (!sp->stop && !sp->ncmd && !sp->self_paced && clock_mono() < next) {
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

/* Keep result r for the screen (mu held): the oldest is dropped when
 * the ring is full. */
static void put_result(struct sampler *sp, const struct target_result *r)
{
	if (sp->nres == TARGET_CMDQ) {
		free(sp->res[sp->res_head].plan);
		sp->res_head = (sp->res_head + 1) % TARGET_CMDQ;
		sp->nres--;
	}
	sp->res[(sp->res_head + sp->nres) % TARGET_CMDQ] = *r;
	sp->nres++;
}

/* An action on the server: end or cancel a session, or a tuning step,
 * into r. */
static void server_action(struct sampler *sp, const struct target_cmd *c, struct target_result *r)
{
	struct source *src = sp->src;
	if (c->kind != CMD_KILL && c->kind != CMD_CANCEL) {
		r->rc = tune_action(sp, c, r->msg, sizeof r->msg);
		return;
	}
	if (!src->ops->act)
		str_copy(r->msg, sizeof r->msg, "this source cannot act on sessions");
	else if (!src->connected)
		str_copy(r->msg, sizeof r->msg, "not connected: nothing was done");
	else
		r->rc = src->ops->act(src, c->kind == CMD_KILL ? SRC_ACT_TERMINATE : SRC_ACT_CANCEL, c->arg.session.id,
				      &c->arg.session.who, r->msg, sizeof r->msg);
	source_locks_forget(src); /* the sample that follows shows the effect */
}

/* Take the oldest command and run it (called with sp->mu held; returns
 * without it); an action's or an explain's result for the screen, and
 * after an action the next sample soon so the pane shows the effect. */
static void do_command(struct sampler *sp, double *next)
{
	struct target_cmd c = sp->cmd[sp->cmd_head];
	sp->cmd_head = (sp->cmd_head + 1) % TARGET_CMDQ;
	sp->ncmd--;
	pthread_mutex_unlock(&sp->mu);
	struct target_result r = {.kind = c.kind, .rc = -1};
	bool action = (CMD_ACTIONS & CMD_BIT(c.kind)) != 0;
	if (c.kind == CMD_KILL || c.kind == CMD_CANCEL || c.kind == CMD_EXPLAIN)
		r.id = c.arg.session.id;
	switch (c.kind) {
	case CMD_EXPLAIN: explain_action(sp, &c, &r); break;
	case CMD_PROBE:
		if (sp->tuner) {
			tuner_probe(sp->tuner);
			publish_tuning(sp);
		}
		return;
	case CMD_SESSIONS_WANTED:
		/* the source's copy the backends read: written on this thread only */
		sp->src->want_sessions = c.arg.sessions.want;
		sp->src->sessions_idle = c.arg.sessions.idle;
		return;
	case CMD_BACKGROUND: __atomic_store_n(&sp->src->background, c.arg.background, __ATOMIC_RELAXED); return;
	default:
		if (!action)
			return;
		server_action(sp, &c, &r);
		break;
	}
	pthread_mutex_lock(&sp->mu);
	put_result(sp, &r);
	if (action) {
		sp->act_busy = false;
		/* sample again soon so the pane shows the effect (no sooner
		 * than the server's counters allow a rate: PostgreSQL's is
		 * then the next refresh) */
		double gap = first_rates_gap(&sp->src->caps);
		if (gap < sp->interval)
			*next = clock_mono() + gap;
	} else {
		sp->ex_busy = false;
	}
	pthread_mutex_unlock(&sp->mu);
	wake_ui(sp);
}

/* next moved to the nearest refresh of the shared grid (sampler_align):
 * the targets of a fleet sample together, so the screen draws one frame
 * a refresh and the targets on one server share one reading of its host
 * files. Once on the grid, next + interval stays on it. */
static double on_grid(const struct sampler *sp, double next)
{
	if (!(sp->grid > 0) || !(sp->interval > 0))
		return next;
	return sp->grid + floor((next - sp->grid) / sp->interval + 0.5) * sp->interval;
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
	double gap = first_rates_gap(&sp->src->caps);
	*next = primed && sp->interval > gap ? t0 + gap : on_grid(sp, *next + sp->interval);
	if (*next < clock_mono())
		*next = clock_mono();
	pthread_mutex_unlock(&sp->mu);
	wake_ui(sp);
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
		if (sp->ncmd) {
			do_command(sp, &next);
			continue;
		}
		sp->src->interval = sp->interval;   /* what --server-budget paces by */
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
	sp->self_paced = self_paced;
	sp->caps_gen = 0;
	sp->q = xcalloc(SAMPLER_QUEUE, sizeof *sp->q);
	sp->cmd = xcalloc(TARGET_CMDQ, sizeof *sp->cmd);
	sp->res = xcalloc(TARGET_CMDQ, sizeof *sp->res);
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

void sampler_align(struct sampler *sp, double origin)
{
	pthread_mutex_lock(&sp->mu);
	sp->grid = origin;
	pthread_mutex_unlock(&sp->mu);
}

void sampler_set_interval(struct sampler *sp, double interval)
{
	pthread_mutex_lock(&sp->mu);
	sp->interval = interval;
	pthread_cond_broadcast(&sp->cv);
	pthread_mutex_unlock(&sp->mu);
}

/* A queued command of kind k (mu held), or NULL. */
static struct target_cmd *queued(struct sampler *sp, enum target_cmd_kind k)
{
	for (int i = 0; i < sp->ncmd; i++) {
		struct target_cmd *c = &sp->cmd[(sp->cmd_head + i) % TARGET_CMDQ];
		if (c->kind == k)
			return c;
	}
	return NULL;
}

/* Is command c refused now (mu held)? Else *join: the queued command it
 * joins (the newest arguments win), or NULL: it is queued. */
static bool refused(struct sampler *sp, const struct target_cmd *c, struct target_cmd **join)
{
	*join = NULL;
	if (c->kind <= CMD_NONE || c->kind >= CMD_KINDS)
		return true;
	if ((CMD_ACTIONS & CMD_BIT(c->kind)) && sp->act_busy)
		return true; /* one action at a time */
	if (c->kind == CMD_EXPLAIN && sp->ex_busy)
		return true;
	if (c->kind == CMD_PROBE || c->kind == CMD_SESSIONS_WANTED || c->kind == CMD_BACKGROUND)
		*join = queued(sp, c->kind);
	return !*join && sp->ncmd == TARGET_CMDQ;
}

bool sampler_send(struct sampler *sp, const struct target_cmd *c)
{
	struct target_cmd *join;
	pthread_mutex_lock(&sp->mu);
	bool ok = !refused(sp, c, &join);
	if (ok && join) {
		*join = *c;
	} else if (ok) {
		sp->cmd[(sp->cmd_head + sp->ncmd) % TARGET_CMDQ] = *c;
		sp->ncmd++;
		sp->act_busy |= (CMD_ACTIONS & CMD_BIT(c->kind)) != 0;
		sp->ex_busy |= c->kind == CMD_EXPLAIN;
		pthread_cond_broadcast(&sp->cv);
	}
	pthread_mutex_unlock(&sp->mu);
	return ok;
}

bool sampler_take(struct sampler *sp, unsigned kinds, struct target_result *out)
{
	bool got = false;
	pthread_mutex_lock(&sp->mu);
	for (int i = 0; i < sp->nres && !got; i++) {
		int k = (sp->res_head + i) % TARGET_CMDQ;
		if (!(kinds & CMD_BIT(sp->res[k].kind)))
			continue;
		*out = sp->res[k];
		/* the ones after it move up one */
		for (int j = i; j + 1 < sp->nres; j++)
			sp->res[(sp->res_head + j) % TARGET_CMDQ] = sp->res[(sp->res_head + j + 1) % TARGET_CMDQ];
		sp->nres--;
		got = true;
	}
	pthread_mutex_unlock(&sp->mu);
	return got;
}

bool sampler_tune_view(struct sampler *sp, unsigned *gen, struct tune_view *out)
{
	bool changed;
	pthread_mutex_lock(&sp->mu);
	changed = sp->tv_gen != *gen;
	if (changed) {
		tune_view_copy(out, sp->tv);
		*gen = sp->tv_gen;
	}
	pthread_mutex_unlock(&sp->mu);
	return changed;
}

bool sampler_busy(struct sampler *sp)
{
	bool b;
	pthread_mutex_lock(&sp->mu);
	b = sp->act_busy;
	pthread_mutex_unlock(&sp->mu);
	return b;
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
		/* room again for a sampler waiting on a full queue (the one wait
		 * a pop ends: waking it between samples costs a switch) */
		if (sp->len-- == SAMPLER_QUEUE)
			pthread_cond_broadcast(&sp->cv);
		got = true;
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
	for (int i = 0; i < sp->nres; i++)
		free(sp->res[(sp->res_head + i) % TARGET_CMDQ].plan);
	free(sp->res);
	sp->res = NULL;
	free(sp->cmd);
	sp->cmd = NULL;
	pthread_mutex_destroy(&sp->mu);
	pthread_cond_destroy(&sp->cv);
	return true;
}
