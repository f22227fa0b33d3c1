/* header.c - the screen's top line (header.h). */
#include "header.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "../util/util.h"

void header_uptime(double s, char *buf, size_t len)
{
	long t = (long)s;
	if (s <= 0)
		str_copy(buf, len, "?");
	else if (t >= 86400)
		str_printf(buf, len, "%ldd %02ldh", t / 86400, t % 86400 / 3600);
	else if (t >= 3600)
		str_printf(buf, len, "%ldh %02ldm", t / 3600, t % 3600 / 60);
	else
		str_printf(buf, len, "%ldm %02lds", t / 60, t % 60);
}

/* "  AT 12:34:56  -1m05s": the moment shown and how far back from now (a
 * replay: from the newest sample it has reached), appended to state. */
static void header_at(const struct header_in *in, char *state, size_t len)
{
	double oldest, newest, ago;
	char at[16];
	time_t t = (time_t)in->at_wall;
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(at, sizeof at, "%H:%M:%S", &tm);
	if (!in->hist || !hist_range(in->hist, &oldest, &newest))
		newest = in->at_wall;
	if (in->live->intervals > 0 && in->live->last.wall > newest)
		newest = in->live->last.wall; /* (the history stopped: the replay went on) */
	ago = (in->replay ? newest : in->now_wall) - in->at_wall;
	long a = ago > 0 ? (long)(ago + 0.5) : 0;
	size_t l = strlen(state);
	if (a >= 60)
		str_printf(state + l, len - l, "  AT %s  -%ldm%02lds", at, a / 60, a % 60);
	else
		str_printf(state + l, len - l, "  AT %s  -%lds", at, a);
}

void header_state(const struct header_in *in, char *state, size_t len)
{
	const struct model *m = in->m;
	const struct sample *s = &m->last;
	if (m->intervals == 0)
		str_copy(state, len, "CONNECTING");
	else if (s->state == STATE_DOWN && !in->replay && s->mono + s->retry_in <= in->now_mono)
		/* the attempt is under way (up to --connect-timeout): no new
		 * sample until it ends */
		str_copy(state, len, "DOWN - reconnecting");
	else if (s->state == STATE_DOWN)
		str_printf(state, len, "DOWN - retrying in %.0fs",
			   d_ceil(in->replay ? s->retry_in : s->mono + s->retry_in - in->now_mono));
	else if (s->state == STATE_STALLED)
		str_printf(state, len, "STALLED: query exceeded %.1fs", in->query_timeout);
	else
		str_copy(state, len, "UP");
	if (in->replay) {
		size_t l = strlen(state);
		str_printf(state + l, len - l, in->ended ? "  REPLAY ended" : "  REPLAY x%g", in->speed);
	}
	if (in->paused) {
		size_t l = strlen(state);
		str_printf(state + l, len - l, "  PAUSED");
	}
	if (in->paused && in->hist && in->at_wall > 0)
		header_at(in, state, len);
}

void header_tuned(const struct header_in *in, char *tuned, size_t len)
{
	const struct tune_view *tv = in->tv;
	tuned[0] = '\0';
	if (!tv || tv->nactive <= 0)
		return;
	double now = tv->at_wall > 0 ? tv->at_wall : in->now_wall;
	double oldest = tv->active[tv->nactive - 1].wall, age = now - oldest;
	long a = age > 0 ? (long)age : 0;
	str_printf(tuned, len, " TUNED %d %ldm%02lds ", tv->nactive, a / 60, a % 60);
	/* --tune-ttl counts on the monotonic clock (a wall clock step moves
	 * neither the revert nor this countdown) */
	double first = 0;
	for (int i = 0; i < tv->nactive; i++)
		if (tv->active[i].mono > 0 && (first == 0 || tv->active[i].mono < first))
			first = tv->active[i].mono;
	if (tv->ttl > 0 && first > 0) {
		long left = (long)(tv->ttl - (in->now_mono - first));
		size_t l = strlen(tuned);
		str_printf(tuned + l - 1, len - l + 1, ", reverts in %ldm%02lds ", left > 0 ? left / 60 : 0,
			   left > 0 ? left % 60 : 0);
	}
}

/* Which of the header's fields (engine, host, uptime, interval) fit in
 * room columns beside the right part (cost and clock, or the clock alone
 * when short: right is rewritten then), by priority: the host, the
 * engine, the right part, the interval, the uptime. Sets on[]; true when
 * the right part shows. */
static bool header_fit(const char *const fields[4], bool on[4], char *right, size_t rlen, const char *clock, int room)
{
	static const int prio[] = {1, 0, 4, 3}; /* fields[] by priority: host, engine, (clock), every, up */
	int rw = text_cols(right);
	bool show_right = false;
	for (int p = 0; p < 5; p++) {
		if (p == 2) {
			if (room < rw) {
				/* the clock alone, without the cost */
				str_printf(right, rlen, "  %s ", clock);
				rw = text_cols(right);
			}
			if (room >= rw) {
				show_right = true;
				room -= rw;
			}
			continue;
		}
		for (int i = 0; i < 4; i++) {
			int c = text_cols(fields[i]);
			if (prio[i] != p || !c || c > room)
				continue;
			on[i] = true;
			room -= c;
		}
	}
	return show_right;
}

/* The header's fields: "  MariaDB 10.11.19" (the version without the
 * distribution suffix), the host (several servers: "  [i/n] name (host)"),
 * "  up 3d 04h" (or ""), "  every 1s". */
static void header_fields(const struct header_in *in, char *eng, char *host, char *up, char *every)
{
	const struct model *m = in->m;
	char ver[32];
	str_copy(ver, sizeof ver, m->caps.version);
	ver[strspn(ver, "0123456789.")] = '\0';
	up[0] = '\0';
	if (m->last.uptime_s > 0) {
		char u2[32];
		header_uptime(m->last.uptime_s, u2, sizeof u2);
		str_printf(up, 32, "  up %s", u2);
	}
	str_printf(every, 32, "  every %gs",
		   in->replay && isfinite(m->interval_s) ? d_round(m->interval_s * 100) / 100 : in->interval);
	str_printf(eng, 64, "  %s %s", flavour_name(m->caps.flavour), ver);
	if (in->n > 1) /* several servers: the one shown, by its name */
		str_printf(host, 160, "  [%d/%d] %s (%s)", in->idx + 1, in->n, in->name, in->host);
	else
		str_printf(host, 160, "  %s", in->host);
}

void header_draw(struct canvas *cv, const struct header_in *in)
{
	const struct model *m = in->m;
	const struct sample *s = &m->last;
	int cols = cv->w;
	char right[128], state[160], up[32], clock[16], tuned[96], every[32], eng[64], host[160];
	bool bad = m->intervals > 0 && s->state != STATE_UP;
	time_t t = (time_t)(m->intervals ? s->wall : in->now_wall);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(clock, sizeof clock, "%H:%M:%S", &tm);
	header_state(in, state, sizeof state);
	header_tuned(in, tuned, sizeof tuned);
	header_fields(in, eng, host, up, every);
	str_printf(right, sizeof right, "  cost %.1fms  %s ", s->query_ms, clock);
	cv_fill(cv, 0, 0, cols, bad ? R_HEADER_DOWN : R_HEADER);
	/* the state first: it matters most, and must survive a narrow terminal */
	int x = cv_text(cv, 0, 0, R_HEADER, " dbtop ");
	x += cv_text(cv, 0, x, bad ? R_HEADER_DOWN : R_HEADER, state);
	if (tuned[0]) {
		x += cv_text(cv, 0, x, R_HEADER, " ");
		x += cv_text(cv, 0, x, R_CRIT, tuned);
	}
	/* then as many whole fields as fit, by priority: the host, the engine,
	 * the cost and clock (or the clock alone), the interval, the uptime;
	 * the host is cut (marked) only when nothing else is left beside the
	 * state */
	const char *fields[4] = {eng, host, up, every};
	bool on[4] = {false};
	bool show_right = header_fit(fields, on, right, sizeof right, clock, cols - x);
	for (int i = 0; i < 4; i++)
		if (on[i])
			x += cv_text(cv, 0, x, R_HEADER, fields[i]);
	if (!on[1] && cols - x > 8) {
		/* not even the host fits whole: its start, with the cut marked */
		char cut[200];
		str_printf(cut, sizeof cut, "  %s", in->n > 1 ? in->name : in->host);
		struct canvas hc = cv_sub(cv, 0, x, 1, cols - x);
		cv_text(&hc, 0, 0, R_HEADER, cut);
	}
	if (show_right)
		cv_text_right(cv, 0, cols, R_HEADER, right);
}

void header_too_small(struct canvas *cv, int min_w, int min_h)
{
	char t[120];
	int cols = cv->w, lines = cv->h;
	str_printf(t, sizeof t, "enlarge the terminal to %dx%d (now %dx%d); q quits", min_w, min_h, cols, lines);
	if ((int)strlen(t) > cols)
		str_printf(t, sizeof t, "enlarge the terminal to %dx%d (now %dx%d)", min_w, min_h, cols, lines);
	if ((int)strlen(t) > cols)
		str_printf(t, sizeof t, "enlarge to %dx%d; q quits", min_w, min_h);
	if ((int)strlen(t) > cols)
		str_printf(t, sizeof t, "need %dx%d", min_w, min_h);
	cv_text(cv, 0, 0, R_WARN, t);
}
