/* userconf.h - the user's config file ($XDG_CONFIG_HOME/dbtop/config,
 * else ~/.config/dbtop/config; --config FILE, --no-config): defaults for
 * the command line, one setting a line.
 *
 *   # comment (first on a line, or after a blank)
 *   interval = 2            a setting with a value
 *   ascii                   a switch (or "ascii = yes|no")
 *   target db1 = mysql://monitor@db1/     a target by name: `dbtop db1`
 *
 * The keys a file may use and what they take are the caller's (a table):
 * this file only reads the syntax and refuses a bad line with "FILE:LINE:
 * why". A target's text is never put in a message (it may hold a
 * password). Curses-free, server-free: unit tests and a fuzz target. */
#ifndef DBTOP_USERCONF_H
#define DBTOP_USERCONF_H

#include <stdbool.h>
#include <stddef.h>

#define UCONF_MAX 256          /* settings a file may hold */
#define UCONF_NAME_LEN 48      /* a target's name, NUL included (as FLEET_NAME_LEN) */
#define UCONF_FILE_MAX (1 << 20) /* bytes read at most */

enum uconf_kind {
	UC_VALUE = 1,   /* key = value */
	UC_SWITCH,      /* key, or key = yes|no|on|off|true|false|1|0 */
	UC_NAMED,       /* key NAME = value (a target by name) */
};

struct uconf_key {
	const char *key;       /* "interval" (NULL ends the table) */
	enum uconf_kind kind;
};

struct uconf_entry {
	const char *key;       /* the table's key */
	enum uconf_kind kind;
	char name[UCONF_NAME_LEN]; /* UC_NAMED: the name */
	char *value;           /* owned; "" for a switch; UC_NAMED: secret */
	bool on;               /* UC_SWITCH: its state */
	int line;
};

struct uconf {
	char path[512];        /* as given, for messages */
	struct uconf_entry e[UCONF_MAX];
	int n;
};

void uconf_init(struct uconf *c);
void uconf_free(struct uconf *c);

/* Parse text (len bytes: NUL bytes are refused) against keys; path names
 * the file in messages. 0, or -1 at the first bad line with
 * "PATH:LINE: why" in err (entries before it are kept). */
int uconf_parse(struct uconf *c, const char *path, const char *text, size_t len, const struct uconf_key *keys,
		char *err, size_t errlen);

/* Read and parse the file at path. A missing file is 1 (nothing read)
 * when missing_ok, else -1 like any error ("PATH: why"). */
int uconf_read(struct uconf *c, const char *path, bool missing_ok, const struct uconf_key *keys, char *err,
	       size_t errlen);

/* The default path: $XDG_CONFIG_HOME/dbtop/config, else
 * $HOME/.config/dbtop/config; "" when neither is set. */
void uconf_default_path(char *buf, size_t len);

/* The settings dbtop's config file takes: the command line's long
 * options that make sense as defaults (interval, theme, server-budget,
 * ...), "target NAME = TARGET", "screen = N|NAME" (the screen on start)
 * and "hide = PANE.COLUMN, ..." (columns left out). */
extern const struct uconf_key uconf_dbtop_keys[];

/* The entry of target name, or NULL. */
const struct uconf_entry *uconf_target(const struct uconf *c, const char *key, const char *name);

#endif
