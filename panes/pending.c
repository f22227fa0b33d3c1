/* pending.c - panes whose data collection is not built yet: they say so,
 * what they will show, and whether this server has what they will need. */
#include <stdio.h>
#include <string.h>

#include "../util/util.h"
#include "pane.h"

/* Draw the "not built yet" text of a pane and its data source status. */
static void pending(struct canvas *cv, const char *what, const char *need_ok, const char *need_missing,
		    bool have)
{
	cv_text(cv, 0, 0, R_UNKNOWN, "not built yet in this version of dbtop.");
	cv_printf(cv, 1, 0, R_LABEL, "will show: %s", what);
	cv_text(cv, 2, 0, have ? R_NOTE : R_WARN, have ? need_ok : need_missing);
}

static void tuning_draw(const struct model *m, struct pane_view *v, struct canvas *cv)
{
	v->nrows = 0;
	pending(cv, "keys that apply a remedy for this session only, with the risk, a confirmation and an undo journal",
		"this user may change server settings",
		"this user cannot change server settings (needs SUPER / SYSTEM_VARIABLES_ADMIN / superuser)",
		m->caps.priv_super || m->caps.superuser);
}

const struct pane_ops tuning_pane = {.name = "tuning", .title = "safe tuning", .draw = tuning_draw, .min_h = 4};
