/* targets.h - several targets: the TARGET arguments and --targets FILE (one
 * target a line, '#' comments, blank lines, "NAME = TARGET" names). Only
 * the text of each target is kept here; target_parse() reads it later,
 * each target on its own. Nothing here prints a target's text: it may
 * hold a password. */
#ifndef DBTOP_TARGETS_H
#define DBTOP_TARGETS_H

#include <stdbool.h>
#include <stddef.h>

#define FLEET_MAX 64          /* targets one dbtop watches at most */
#define FLEET_NAME_LEN 48     /* a name's bytes, NUL included */

struct fleet_entry {
	char name[FLEET_NAME_LEN]; /* "" until named (a NAME = line, or later the label) */
	char *spec;                /* the target as written (owned; secret: never printed) */
	int line;                  /* line of --targets FILE, 0: the command line */
	bool named;                /* the name was given */
};

struct fleet_list {
	struct fleet_entry e[FLEET_MAX];
	int n;
	char path[256];            /* --targets FILE of the entries with a line, "" none */
};

void fleet_init(struct fleet_list *l);
void fleet_free(struct fleet_list *l);

/* A valid name: 1 to FLEET_NAME_LEN - 1 of [A-Za-z0-9_.-], starting with
 * a letter or digit. */
bool fleet_name_ok(const char *s, size_t len);

/* Add one target (name NULL: unnamed); line 0 for the command line.
 * -1 with the reason in err: too many (more than FLEET_MAX), a duplicate
 * name or the same target twice (naming both lines). */
int fleet_add(struct fleet_list *l, const char *name, const char *spec, int line, char *err, size_t len);

/* Split one line of a targets file: *name (NULL when unnamed; not
 * terminated: *nlen bytes) and the target (*spec, *slen bytes), comments
 * and surrounding blanks removed. The named form is NAME = TARGET where
 * TARGET is a URI (scheme://) or a key=value string whose first word has
 * its '=' (no blank around it): "host = /tmp" stays an unnamed libpq
 * string. Returns 1 with a target, 0 for a blank or comment line, -1 on a
 * bad line (why in err). */
int fleet_split_line(const char *line, const char **name, size_t *nlen, const char **spec, size_t *slen,
		     char *err, size_t len);

/* Read the targets of text (a --targets file's contents) into l; path
 * names the file in errors ("FILE:LINE: ..."). -1 at the first bad line. */
int fleet_parse_text(struct fleet_list *l, const char *text, const char *path, char *err, size_t len);

/* Read --targets FILE. -1 with the reason (also an unreadable file). */
int fleet_read_file(struct fleet_list *l, const char *path, char *err, size_t len);

#endif
