/* watch.c - the targets the screen watches (watch.h). */
#include "watch.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../record/history.h"

static void say(const struct watch *w, double hold, const char *msg)
{
	if (w->say)
		w->say(w->say_arg, hold, msg);
}

/* A target's hook after each ingest that updated its model, the live
 * model (frozen screen or not): the watch's on_update. */
static void publish_update(const void *arg, const struct target_run *t)
{
	const struct watch *w = arg;
	w->on_update(w->on_update_arg, t->slot, t->name[0] ? t->name : t->host, t->m);
}

void watch_init(struct watch *w, const struct watch_spec *spec, int n, struct history *hist, bool replay,
		bool read_only)
{
	memset(w, 0, sizeof *w);
	w->ntg = n;
	w->replay = replay;
	w->read_only = read_only;
	w->tg = xcalloc((size_t)n, sizeof *w->tg);
	for (int i = 0; i < n; i++) {
		struct watch_tgt *t = &w->tg[i];
		target_run_init(&t->run, spec[i].name, spec[i].host ? spec[i].host : "", spec[i].src, spec[i].m,
				!replay);
		t->run.slot = i;
		t->run.tuner = spec[i].tuner;
		t->run.rec = spec[i].rec;
		t->run.recording = t->run.rec != NULL;
		t->run.hist = n == 1 ? hist : NULL; /* the history (time travel) is kept with one target only */
		t->run.publish_arg = w;
	}
}

int watch_start(struct watch *w, double interval, int *started)
{
	*started = 0;
	double origin = clock_mono();
	for (int i = 0; i < w->ntg; i++) {
		struct watch_tgt *t = &w->tg[i];
		t->run.publish = w->on_update ? publish_update : NULL;
		if (sampler_start(&t->sp, t->run.src, interval, w->replay, t->run.tuner) < 0)
			return -1;
		(*started)++;
		if (w->ntg > 1 && !w->replay)
			sampler_align(&t->sp, origin); /* the fleet refreshes together: one frame a refresh */
		sampler_tune_view(&t->sp, &t->tc.tv_gen, &t->tc.tv);
	}
	return 0;
}

bool watch_stop(struct watch *w)
{
	bool joined = true;
	for (int i = 0; i < w->ntg; i++)
		if (!sampler_stop(&w->tg[i].sp, i == 0 ? 0.5 : 0.1)) {
			w->tg[i].run.src->connected = false;
			joined = false;
		}
	return joined;
}

void watch_free(struct watch *w)
{
	for (int i = 0; i < w->ntg; i++) {
		w->tg[i].run.src->stop_flag = NULL;
		w->tg[i].run.src->pause_flag = NULL;
		target_run_free(&w->tg[i].run);
	}
	free(w->tg);
	w->tg = NULL;
}

/* The end of a replay's samples: a seek past it lands on the last one.
 * True when a seek was pulling. */
static bool take_end(struct watch *w)
{
	if (w->tour_end)
		*w->tour_end = clock_mono();
	return travel_end(w->tr);
}

/* What the screen adds before target t ingests s: the tuning screen as it
 * is now (recorded with the sample) or as recorded (a replay), and a
 * screen frozen on the newest sample kept shown as the live model moves
 * on. */
static void take_prepare(struct watch *w, struct watch_tgt *t, struct sample *s)
{
	if (t->run.recording && t->run.tuner) {
		sampler_tune_view(&t->sp, &t->tc.tv_gen, &t->tc.tv);
		s->tuning = xmalloc(sizeof *s->tuning);
		tune_view_snap(&t->tc.tv, s->tuning);
	}
	if (t->run.hist) {
		const char *m = travel_follow(w->tr);
		if (m)
			say(w, 0, m);
	}
	if (w->replay && s->tuning)
		tune_view_from_snap(s->tuning, s->wall, &t->tc.tv);
}

/* Ingest one message of t's worker; true when a replay's end pulled. */
static bool take_one(struct watch *w, struct watch_tgt *t, struct sampler_msg *msg)
{
	if (msg->end) {
		if (msg->has_caps)
			target_caps(&t->run, &msg->caps, msg->conn_gen);
		return take_end(w);
	}
	take_prepare(w, t, &msg->s);
	/* (no history: a live pause drops the samples, as it always did) */
	if (target_ingest(&t->run, &msg->s, msg->has_caps ? &msg->caps : NULL, msg->conn_gen,
			  t->run.hist || !w->tr->paused))
		/* (the history's end is said once: it stays a while) */
		say(w, t->run.note_kind == TN_HISTORY ? 30 : 0, t->run.note);
	return false;
}

/* Apply the samples target t's worker has queued (to its own model,
 * through its pipeline). */
static bool take_target(struct watch *w, struct watch_tgt *t)
{
	struct sampler_msg *msg = xmalloc(sizeof *msg);
	bool any = false, pulled = false;
	/* a paused replay: the samples wait in the queue, none is dropped;
	 * a step forward takes them one by one */
	while (travel_takes(w->tr) && sampler_pop(&t->sp, msg)) {
		any = true;
		bool end = msg->end;
		pulled |= take_one(w, t, msg);
		sample_release(&msg->s);
		if (!end && travel_pulling(w->tr)) {
			pulled = true;
			if (travel_pulled_one(w->tr))
				break;
		}
	}
	free(msg);
	const char *said = pulled && t->run.hist ? travel_pull_done(w->tr) : NULL;
	if (said)
		say(w, 0, said);
	return any;
}

bool watch_take(struct watch *w)
{
	bool any = false;
	for (int i = 0; i < w->ntg; i++)
		any |= take_target(w, &w->tg[i]);
	return any;
}

bool watch_results(struct watch *w, const struct watch_tgt *shown)
{
	bool any = false;
	for (int i = 0; i < w->ntg; i++) {
		struct watch_tgt *t = &w->tg[i];
		struct target_result r;
		char line[NOTE_LEN + 160], done[400];
		if (!sampler_take(&t->sp, CMD_ACTIONS, &r))
			continue;
		/* the server it was done on is named when another one shows */
		str_printf(line, sizeof line, "%s%s%s%s", t != shown ? t->run.name : "", t != shown ? ": " : "",
			   r.rc == 0 || strncmp(r.msg, "failed", 6) == 0 || strstr(r.msg, "nothing was done")
				   ? ""
				   : "failed: ",
			   r.msg);
		say(w, 10, line); /* what was (not) done stays a while */
		if (sessact_result(&t->sa, &t->sp, &t->run.ev, r.rc, r.msg, done, sizeof done))
			say(w, 10, done); /* the tagged sessions: how many were done */
		any = true;
	}
	return any;
}

bool watch_plans(struct watch *w)
{
	bool any = false;
	for (int i = 0; i < w->ntg; i++) {
		struct watch_tgt *t = &w->tg[i];
		struct target_result r;
		if (!t->plan.pending || !sampler_take(&t->sp, CMD_BIT(CMD_EXPLAIN), &r))
			continue;
		t->plan.pending = false;
		t->plan.ok = r.rc == 0 && r.plan;
		str_copy(t->plan.text, sizeof t->plan.text,
			 t->plan.ok ? r.plan
			 : r.msg[0] ? r.msg
				    : "the server gave no plan");
		free(r.plan);
		any = true;
	}
	return any;
}

void watch_sessions(struct watch *w, const struct watch_tgt *shown, bool shows, bool idle, bool fleet)
{
	for (int i = 0; i < w->ntg; i++) {
		struct watch_tgt *t = &w->tg[i];
		bool want = shows && t == shown; /* only the shown target's list is read */
		bool bg = w->ntg > 1 && (fleet || t != shown);
		if (bg != t->background) {
			struct target_cmd c = {.kind = CMD_BACKGROUND, .arg.background = bg};
			if (sampler_send(&t->sp, &c))
				t->background = bg;
		}
		if (want == t->sessions_wanted && idle == t->sessions_idle)
			continue;
		t->sessions_wanted = want;
		t->sessions_idle = idle;
		if (!w->replay)
			sampler_send(&t->sp, &(struct target_cmd){.kind = CMD_SESSIONS_WANTED,
								  .arg.sessions = {.want = want, .idle = idle}});
	}
}

bool watch_explain(struct watch *w, struct watch_tgt *t, long long id, const struct session_ident *who, char *out,
		   size_t len)
{
	struct target_cmd c = {.kind = CMD_EXPLAIN};
	if (w->replay) {
		str_copy(out, len, "no plan: explain asks a live server (this is a recording)");
		return false;
	}
	if (t->plan.pending) {
		str_printf(out, len, "a plan is still being asked for (session %lld)", t->plan.id);
		return false;
	}
	c.arg.session.id = id;
	if (who)
		c.arg.session.who = *who;
	if (!sampler_send(&t->sp, &c)) {
		str_copy(out, len, "a plan is still being asked for: try again");
		return false;
	}
	t->plan.id = id;
	t->plan.ok = false;
	t->plan.pending = true;
	t->plan.text[0] = '\0';
	str_printf(out, len, "explaining the statement of session %lld ...", id);
	return true;
}

bool watch_tune(struct watch_tgt *t, enum target_cmd_kind kind, long long id, const char *value,
		const struct tune_target *to)
{
	struct target_cmd c = {.kind = kind};
	if (kind == CMD_TUNE_APPLY) {
		c.arg.apply.idx = (int)id;
		str_copy(c.arg.apply.value, sizeof c.arg.apply.value, value ? value : "");
		if (to)
			c.arg.apply.to = *to;
	} else if (kind == CMD_TUNE_KEEP) {
		c.arg.seq = (unsigned)id;
	}
	return sampler_send(&t->sp, &c);
}

/* The changes an earlier dbtop left in force on t: said (read-only, or
 * no tuning here) or asked in out (a revert on y). */
static void ask_orphans(struct watch *w, struct watch_tgt *t, struct watch_ask *out)
{
	const struct tune_view *tv = &t->tc.tv;
	char line[400];
	t->tc.orphans_asked = true;
	if (w->read_only || !tv->available) {
		str_printf(line, sizeof line,
			   "%d setting change(s) left by an earlier dbtop are in force (screen 5): %s", tv->orphans,
			   w->read_only ? "run dbtop without --read-only to revert them" : tv->why);
		say(w, 0, line);
		return;
	}
	struct strbuf b;
	sb_init(&b);
	tunectl_orphans_text(&t->tc, w->tr->m, &b);
	t->tc.foreign_told = true;
	out->orphans = true;
	str_copy(out->text, sizeof out->text, b.s);
	text_sanitize(out->text);
	sb_free(&b);
}

void watch_tuning(struct watch *w, struct watch_tgt *shown, bool askable, bool tuning, struct watch_ask *out)
{
	double now = clock_mono();
	memset(out, 0, sizeof *out);
	if (w->replay) /* a recorded view: nothing here is in force */
		return;
	for (int k = 0; k < w->ntg; k++) {
		struct watch_tgt *t = &w->tg[k];
		out->changed |= tunectl_poll(&t->tc, &t->sp, &t->run.ev, now);
		out->active += t->tc.tv.nactive > 0;
	}
	if (!shown->tc.orphans_asked && shown->tc.tv.orphans > 0 && askable) {
		ask_orphans(w, shown, out);
		out->changed = true;
	}
	if (!shown->tc.foreign_told && shown->tc.tv.nforeign > 0 && !out->orphans && askable) {
		/* never offered for a revert here: named with their server */
		const struct jentry *e = &shown->tc.tv.foreign[0];
		char line[600];
		shown->tc.foreign_told = true;
		str_printf(line, sizeof line, "not reverted here (screen 5): %s = %s (was %s) set on %s%s", e->name,
			   e->val, e->was, e->slabel, shown->tc.tv.nforeign > 1 ? ", ..." : "");
		say(w, 0, line);
		out->changed = true;
	}
	tunectl_probe(&shown->tc, &shown->sp, tuning || shown->run.recording, now);
}

/* The waiter of one target's revert at exit. */
struct exit_wait {
	struct watch *w;
	struct watch_tgt *t;
	void (*show)(void *arg, struct watch_tgt *t, const char *msg);
	void *arg;
};

static void exit_show(void *arg, const char *msg)
{
	struct exit_wait *x = arg;
	x->show(x->arg, x->t, msg);
}

static void exit_take(void *arg)
{
	struct exit_wait *x = arg;
	watch_take(x->w);
}

void watch_revert_on_exit(struct watch *w, void (*show)(void *arg, struct watch_tgt *t, const char *msg), void *arg,
			  char *out, size_t len)
{
	if (w->replay) /* the recorded changes are not this dbtop's */
		return;
	for (int i = 0; i < w->ntg; i++) {
		struct watch_tgt *t = &w->tg[i];
		struct exit_wait x = {.w = w, .t = t, .show = show, .arg = arg};
		const struct tunectl_waiter wt = {.show = exit_show, .take = exit_take, .arg = &x};
		char one[1200];
		one[0] = '\0';
		tunectl_revert_at_exit(&t->tc, &t->sp, t->run.src->query_timeout, w->read_only, &wt, one, sizeof one);
		if (!one[0])
			continue;
		size_t l = strlen(out);
		if (w->ntg == 1)
			str_copy(out, len, one);
		else
			str_printf(out + l, len - l, "%s%s: %s", l ? "; " : "", t->run.name, one);
	}
}

void watch_snapshot(const struct watch *w, const struct watch_tgt *t, const struct model *m, const char *dir,
		    const struct strbuf *screen, watch_json_fn json, char *msg, size_t len)
{
	char stamp[48], txt[600], err[160] = "";
	struct strbuf sj;
	time_t wall = (time_t)(m->intervals ? m->last.wall : clock_wall());
	struct tm tm;
	if (!localtime_r(&wall, &tm) || !strftime(stamp, sizeof stamp, "dbtop-snapshot-%Y%m%d-%H%M%S", &tm))
		str_copy(stamp, sizeof stamp, "dbtop-snapshot");
	sb_init(&sj);
	if (json) {
		/* the events of the interval shown: live, the newest interval's */
		unsigned long from = t->run.ev_from, to = ULONG_MAX;
		if (m != w->tr->live)
			events_between(&t->run.ev, m->last.wall - (isfinite(m->interval_s) ? m->interval_s : 0),
				       m->last.wall, &from, &to);
		json(m, t->run.host, &t->run.ev, from, to, &sj);
	}
	sb_putc(&sj, '\n');
	if (files_write_pair(dir, stamp, "txt", "json", screen->s, screen->len, sj.s, sj.len, txt, sizeof txt, err,
			     sizeof err) < 0)
		str_printf(msg, len, "snapshot not written: %s", err);
	else
		str_printf(msg, len, "snapshot: %s and .json written (mode 0600)", txt);
	sb_free(&sj);
}

void watch_frame_stats(const char *path, const struct watch_frames *f, const struct travel *tr)
{
	FILE *fp;
	if (!path || !*path || !f->frames)
		return;
	fp = fopen(path, "w");
	if (!fp)
		return;
	fprintf(fp, "frames %lu size %dx%d avg_ms %.4f max_ms %.4f first_full_ms %.1f samples %lu\n", f->frames,
		f->cols, f->lines, f->total / (double)f->frames * 1000, f->max * 1000,
		f->first_full >= 0 ? f->first_full * 1000 : -1.0, tr->live->intervals);
	if (tr->steps)
		fprintf(fp,
			"steps %lu step_avg_ms %.4f step_max_ms %.4f rebuilds %lu rebuild_avg_ms %.4f rebuild_max_ms %.4f\n",
			tr->steps, tr->step_total / (double)tr->steps * 1000, tr->step_max * 1000, tr->rebuilds,
			tr->rebuilds ? tr->rebuild_total / (double)tr->rebuilds * 1000 : 0, tr->rebuild_max * 1000);
	fclose(fp);
}
