/* pane_list.c - the list of pane_list.h as a table. */
#include "pane_list.h"

#include <string.h>

#include "pane.h"

#define PANE_ROW_(name, screen, label, tile) {#name, &name##_pane, screen, label, tile},
const struct pane_entry pane_list[NPANES] = {PANE_LIST(PANE_ROW_)};
#undef PANE_ROW_

int pane_index_of(const char *name)
{
	for (int i = 0; name && i < NPANES; i++)
		if (strcmp(pane_list[i].name, name) == 0)
			return i;
	return -1;
}
