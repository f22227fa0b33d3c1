/* ask.h - the confirmation of a pane's action (struct pane_ask) drawn on
 * a canvas: a framed box in the middle of the screen, its title (what is
 * asked), the text (whom, what, the consequences) and the answer keys. */
#ifndef DBTOP_PANE_ASK_H
#define DBTOP_PANE_ASK_H

#include <stdbool.h>

#include "canvas.h"
#include "pane.h"

/* The question ask->act asks ("End this session?"). */
const char *ask_title(enum pane_action act);
/* The box over scr (the whole screen), its rows and one above and below
 * blanked edge to edge; replay: a recording, which cannot act (said
 * before any key). */
void ask_draw(struct canvas *scr, const struct pane_ask *ask, bool replay);

#endif
