/* role.h - what a piece of text on the screen is (a figure, a note, a
 * waiter...), never how it looks: panes draw in roles, a theme maps each
 * role to colours and attributes. */
#ifndef DBTOP_ROLE_H
#define DBTOP_ROLE_H

enum role {
	R_NORMAL,       /* default text */
	R_HEADER,       /* top header line, server up */
	R_HEADER_DOWN,  /* header when DOWN / STALLED */
	R_TITLE,        /* pane titles */
	R_LABEL,        /* row labels */
	R_VALUE,        /* figures */
	R_UNKNOWN,      /* unknown values, gaps, "why" texts */
	R_WARN,         /* worrying values */
	R_CRIT,         /* alarming values */
	R_SPARK,        /* sparklines */
	R_NOTE,         /* notes: what is missing and how to fix it */
	R_KEY,          /* key names in the key bar and help */
	R_KEYTEXT,      /* key descriptions */
	R_SELECTED,     /* selected row / focused pane title */
	R_WAITER,       /* lock waiter */
	R_BLOCKER,      /* lock blocker */
	R_BORDER,       /* pane frames */
	R__COUNT
};

#endif
