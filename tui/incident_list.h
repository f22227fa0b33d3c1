/* incident_list.h - the list screen of `dbtop --incidents DIR`: one row
 * per incident file (time, server, trigger, size, the summary's first
 * line), newest first; Up / Down choose, Enter replays the chosen one,
 * q or Esc quits. */
#ifndef DBTOP_INCIDENT_LIST_H
#define DBTOP_INCIDENT_LIST_H

#include "../record/incidents.h"

/* Show the list with row *sel chosen (the caller keeps it between two
 * replays) until Enter (returns 1, *sel the row) or q (returns 0). The
 * terminal is left as it was. */
int incident_list_pick(const char *dir, const struct incident_entry *e, int n, int *sel);

#endif
