/* canvas.c - clipping, sanitising and sparklines on top of a canvas. */
#include "canvas.h"

#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "../util/util.h"

struct canvas cv_sub(const struct canvas *cv, int y, int x, int h, int w)
{
	struct canvas s = *cv;
	if (y < 0)
		y = 0;
	if (x < 0)
		x = 0;
	if (y > cv->h)
		y = cv->h;
	if (x > cv->w)
		x = cv->w;
	s.y0 = cv->y0 + y;
	s.x0 = cv->x0 + x;
	s.h = h < 0 ? 0 : (h > cv->h - y ? cv->h - y : h);
	s.w = w < 0 ? 0 : (w > cv->w - x ? cv->w - x : w);
	return s;
}

/* Columns of one code point (wide CJK = 2, combining = 0). */
static int cp_cols(wchar_t wc)
{
	int c = wcwidth(wc);
	return c < 0 ? 1 : c;
}

int text_cols(const char *s)
{
	mbstate_t st;
	int cols = 0;
	memset(&st, 0, sizeof st);
	while (*s) {
		wchar_t wc;
		if ((unsigned char)*s < 0x80) {
			/* ASCII: one column (a control counts as the '?' it becomes) */
			cols++;
			s++;
			continue;
		}
		size_t n = mbrtowc(&wc, s, MB_CUR_MAX, &st);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			memset(&st, 0, sizeof st);
			n = 1;
			wc = '?';
		}
		cols += cp_cols(wc);
		s += n;
	}
	return cols;
}

int text_code_points(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Cut s (in place) to at most maxcols columns; returns the columns kept.
 * *cut (when not NULL) says whether a character had to be left out. */
static int clip_cols_at(char *s, int maxcols, bool *cut)
{
	mbstate_t st;
	int cols = 0;
	char *p = s;
	memset(&st, 0, sizeof st);
	while (*p) {
		wchar_t wc;
		if ((unsigned char)*p < 0x80) {
			/* ASCII: one column, as wcwidth (or its -1 for a control) says */
			if (cols + 1 > maxcols)
				break;
			cols++;
			p++;
			continue;
		}
		size_t n = mbrtowc(&wc, p, MB_CUR_MAX, &st);
		int c;
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			memset(&st, 0, sizeof st);
			*p = '?';  /* not valid in this locale: never sent raw */
			n = 1;
			wc = '?';
		}
		c = cp_cols(wc);
		if (cols + c > maxcols)
			break;
		cols += c;
		p += n;
	}
	if (cut)
		*cut = *p != '\0';
	*p = '\0';
	return cols;
}

static int clip_cols(char *s, int maxcols)
{
	return clip_cols_at(s, maxcols, NULL);
}

/* The cut mark: "…" (one column), or "..." without UTF-8. */
static const char *cut_mark(const struct canvas *cv, int *cols)
{
	*cols = cv->utf8 ? 1 : 3;
	return cv->utf8 ? "\xe2\x80\xa6" : "...";
}

/* True when s holds something other than blanks. */
static bool has_ink(const char *s)
{
	for (; *s; s++)
		if (*s != ' ')
			return true;
	return false;
}

/* Draw s clipped to the room; *cut says whether visible text was left out. */
static int text_clip(struct canvas *cv, int y, int x, enum role r, const char *s, bool *cutp)
{
	char stack[512], *buf = stack;
	size_t len;
	int cols;
	*cutp = false;
	/* the common case: what fits is printable ASCII, which sanitising
	 * leaves alone and which takes one column a byte */
	int room = cv->w - x;
	const unsigned char *u = (const unsigned char *)s;
	int k = 0;
	while (k < room && u[k] >= 0x20 && u[k] < 0x7f)
		k++;
	if (!u[k] || (k == room && k < (int)sizeof stack)) {
		*cutp = u[k] && has_ink(s + k);
		if (k > 0) {
			const char *t = s;
			if (u[k]) {
				memcpy(stack, s, (size_t)k);
				stack[k] = '\0';
				t = stack;
			}
			cv->ops->put(cv, cv->y0 + y, cv->x0 + x, r, t, k);
		}
		return k;
	}
	len = strlen(s);
	if (len >= sizeof stack) {
		/* a long text never needs more than 4 bytes per visible column */
		size_t keep = (size_t)(cv->w - x) * 4 + 4;
		if (len > keep)
			len = keep;
	}
	/* Sanitise a little more than can show first: a prefix that ends
	 * before an ASCII byte (never part of a UTF-8 sequence) sanitises to a
	 * prefix of the whole, so when it already fills the room the result
	 * is the same as from the whole text. */
	size_t part = (size_t)room + 8;
	while (part < len && u[part] >= 0x80)
		part++;
	if (part < len && part < sizeof stack) {
		bool cut;
		memcpy(stack, s, part);
		stack[part] = '\0';
		text_sanitize(stack);
		cols = clip_cols_at(stack, room, &cut);
		if (cut) {
			*cutp = true;
			if (cols > 0)
				cv->ops->put(cv, cv->y0 + y, cv->x0 + x, r, stack, cols);
			return cols;
		}
	}
	if (len >= sizeof stack)
		buf = xmalloc(len + 1);
	memcpy(buf, s, len);
	buf[len] = '\0';
	text_sanitize(buf);
	bool cut;
	cols = clip_cols_at(buf, cv->w - x, &cut);
	*cutp = cut;
	if (cols > 0)
		cv->ops->put(cv, cv->y0 + y, cv->x0 + x, r, buf, cols);
	if (buf != stack)
		free(buf);
	return cols;
}

int cv_text(struct canvas *cv, int y, int x, enum role r, const char *s)
{
	bool cut = false;
	int cols, mc;
	const char *mark;
	if (y < 0 || y >= cv->h || x < 0 || x >= cv->w || !s)
		return 0;
	cols = text_clip(cv, y, x, r, s, &cut);
	if (!cut)
		return cols;
	/* a cut shows: the mark over the last columns drawn */
	mark = cut_mark(cv, &mc);
	if (mc > cv->w - x)
		return cols;
	cv->ops->put(cv, cv->y0 + y, cv->x0 + cv->w - mc, r, mark, mc);
	return cols;
}

int cv_printf(struct canvas *cv, int y, int x, enum role r, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return cv_text(cv, y, x, r, buf);
}

int cv_text_right(struct canvas *cv, int y, int x_end, enum role r, const char *s)
{
	int c = text_cols(s);
	int x = x_end - c;
	if (x < 0)
		x = 0;
	return cv_text(cv, y, x, r, s);
}

void cv_fill(struct canvas *cv, int y, int x, int w, enum role r)
{
	char buf[1024];
	if (w > (int)sizeof buf - 1)
		w = (int)sizeof buf - 1;
	if (w <= 0)
		return;
	memset(buf, ' ', (size_t)w);
	/* cppcheck-suppress arrayIndexOutOfBoundsCond ; w was clamped to sizeof buf - 1 above */
	buf[w] = '\0';
	cv_text(cv, y, x, r, buf);
}

void cv_rule(struct canvas *cv, int y, int x, int w, enum role r)
{
	char buf[4096];
	size_t n = 0;
	const char *unit = cv->utf8 ? "\xe2\x94\x80" : "-";   /* ─ */
	size_t ul = strlen(unit);
	while (w-- > 0 && n + ul < sizeof buf) {
		memcpy(buf + n, unit, ul);
		n += ul;
	}
	buf[n] = '\0';
	cv_text(cv, y, x, r, buf);
}

void cv_spark(struct canvas *cv, int y, int x, int width, const struct ring *hist,
	      double hi, enum role r)
{
	static const char *const blocks[8] = {
		"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
		"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88",
	};
	static const char ascii[] = "_.-=+*#@";
	char buf[4096];
	size_t n = 0;
	int i;
	if (width <= 0)
		return;
	if (width > 1000)
		width = 1000;
	if (hi <= 0) {
		for (i = 0; i < width; i++) {
			double v = ring_get(hist, (size_t)i);
			if (isfinite(v) && v > hi)
				hi = v;
		}
	}
	for (i = width - 1; i >= 0; i--) {
		double v = ring_get(hist, (size_t)i);
		if (!isfinite(v)) {
			buf[n++] = ' ';
			continue;
		}
		int lvl = hi > 0 ? (int)floor(v / hi * 7.999) : 0;
		if (lvl < 0)
			lvl = 0;
		if (lvl > 7)
			lvl = 7;
		if (cv->utf8) {
			memcpy(buf + n, blocks[lvl], 3);
			n += 3;
		} else {
			buf[n++] = ascii[lvl];
		}
	}
	buf[n] = '\0';
	if (cv->utf8 && y >= 0 && y < cv->h && x >= 0 && x < cv->w) {
		/* only blocks and spaces: nothing to sanitise; cut at the room
		 * with the columns the locale gives each block, as cv_text would */
		int bw[8], room = cv->w - x, cols = 0;
		size_t k = 0;
		bool known = true;
		for (i = 0; i < 8 && known; i++) {
			mbstate_t st;
			wchar_t wc;
			memset(&st, 0, sizeof st);
			known = mbrtowc(&wc, blocks[i], MB_CUR_MAX, &st) == 3;
			bw[i] = known ? cp_cols(wc) : 0;
		}
		if (known) {
			while (buf[k]) {
				int c = 1;
				size_t step = 1;
				if (buf[k] != ' ') {
					c = bw[(unsigned char)buf[k + 2] - 0x81];
					step = 3;
				}
				if (cols + c > room)
					break;
				cols += c;
				k += step;
			}
			buf[k] = '\0';
			if (cols > 0)
				cv->ops->put(cv, cv->y0 + y, cv->x0 + x, r, buf, cols);
			return;
		}
	}
	cv_text(cv, y, x, r, buf);
}

/* Bytes of p that fit in w columns, cut at a space when there is one. */
static int wrap_cut(const char *p, int w)
{
	char buf[1024];
	int len = (int)strlen(p), cut;
	if (text_cols(p) <= w)
		return len;
	str_printf(buf, sizeof buf, "%s", p);
	clip_cols(buf, w);
	cut = (int)strlen(buf);
	int k = cut;
	while (k > 0 && p[k] != ' ')
		k--;
	return k > 0 ? k : (cut > 0 ? cut : 1);
}

int cv_wrap(struct canvas *cv, int y, int x, enum role r, const char *text, int maxy)
{
	int w = cv->w - x;
	const char *p = text;
	if (maxy > cv->h)
		maxy = cv->h;
	if (w < 8)
		return y + (cv_text(cv, y, x, r, text) > 0);
	while (*p && y < maxy) {
		int cut = wrap_cut(p, w);
		char line[1024];
		if (y == maxy - 1 && p[cut]) {
			/* the last row: the rest, cut with the mark */
			cv_text(cv, y++, x, r, p);
			break;
		}
		str_printf(line, sizeof line, "%.*s", cut, p);
		cv_text(cv, y++, x, r, line);
		p += cut;
		while (*p == ' ')
			p++;
	}
	return y;
}

int wrap_rows(const char *text, int w)
{
	const char *p = text;
	int n = 0;
	if (w < 8)
		return 1;
	while (*p) {
		p += wrap_cut(p, w);
		while (*p == ' ')
			p++;
		n++;
	}
	return n ? n : 1;
}

void text_fit(char *out, size_t len, const char *s, int w, bool utf8)
{
	bool cut;
	int mc = utf8 ? 1 : 3;
	str_copy(out, len, s ? s : "");
	text_sanitize(out);
	if (w <= 0) {
		out[0] = '\0';
		return;
	}
	if (text_cols(out) <= w)
		return;
	clip_cols_at(out, w > mc ? w - mc : w, &cut);
	if (w > mc && strlen(out) + 4 < len)
		strcat(out, utf8 ? "\xe2\x80\xa6" : "...");
}

void text_pad(char *out, size_t len, const char *s, int w, bool right, bool utf8)
{
	char t[512];
	text_fit(t, sizeof t, s, w, utf8);
	int pad = w - text_cols(t);
	if (pad < 0)
		pad = 0;
	if (right)
		str_printf(out, len, "%*s%s", pad, "", t);
	else
		str_printf(out, len, "%s%*s", t, pad, "");
}
