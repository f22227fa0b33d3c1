/* pane.c - what every pane shares: the PCRE2 filter and row clamping. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "pane.h"

#include <pcre2.h>
#include <string.h>

#include "../util/util.h"

bool pane_filter_match(const struct pane_view *v, const char *text)
{
	pcre2_match_data *md;
	int rc;
	if (!v->filter)
		return true;
	md = pcre2_match_data_create_from_pattern(v->filter, NULL);
	if (!md)
		return true;
	rc = pcre2_match(v->filter, (PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	return rc >= 0;
}

int pane_filter_set(struct pane_view *v, const char *pattern, char *err, size_t errlen)
{
	pcre2_code *re;
	int ec;
	PCRE2_SIZE off;
	if (!pattern || !*pattern) {
		pane_filter_free(v);
		return 0;
	}
	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
			   PCRE2_CASELESS | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &ec, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(ec, msg, sizeof msg);
		str_printf(err, errlen, "bad pattern at offset %zu: %s", (size_t)off, (char *)msg);
		return -1;
	}
	pane_filter_free(v);
	v->filter = re;
	str_copy(v->filter_text, sizeof v->filter_text, pattern);
	text_sanitize(v->filter_text);
	return 0;
}

void pane_filter_free(struct pane_view *v)
{
	if (v->filter)
		pcre2_code_free(v->filter);
	v->filter = NULL;
	v->filter_text[0] = '\0';
}

void pane_clamp(struct pane_view *v, int nrows, int visible)
{
	if (v->sel >= nrows)
		v->sel = nrows - 1;
	if (v->sel < 0)
		v->sel = 0;
	if (visible < 1)
		visible = 1;
	if (v->top > v->sel)
		v->top = v->sel;
	if (v->sel >= v->top + visible)
		v->top = v->sel - visible + 1;
	if (v->top > nrows - visible)
		v->top = nrows - visible;
	if (v->top < 0)
		v->top = 0;
}
