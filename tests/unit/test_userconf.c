/* test_userconf.c - the user's config file (config/userconf.c): settings,
 * switches, targets by name, comments, and every bad line refused with
 * FILE:LINE and without the target's text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../config/userconf.h"
#include "../../util/util.h"
#include "tap.h"

static const struct uconf_key keys[] = {
	{"interval", UC_VALUE}, {"theme", UC_VALUE}, {"ascii", UC_SWITCH}, {"read-only", UC_SWITCH},
	{"server-budget", UC_VALUE}, {"target", UC_NAMED}, {"hide", UC_VALUE}, {NULL, 0},
};

static char err[512];

static int parse(struct uconf *c, const char *text)
{
	uconf_init(c);
	err[0] = '\0';
	return uconf_parse(c, "cfg", text, strlen(text), keys, err, sizeof err);
}

static void test_good(void)
{
	struct uconf c;
	int rc = parse(&c, "# defaults\n"
			   "interval = 2\n"
			   "  theme=light   # a comment after a blank\n"
			   "ascii\n"
			   "read_only = no\r\n"
			   "\n"
			   "target db1 = mysql://monitor:pa#ss@db1/   # the '#' in the password stays\n"
			   "target pg.2 = \"host=/run/postgresql dbname=app\"\n"
			   "SERVER-BUDGET = 5");
	CHECK(rc == 0, tname("a good file parses (%s)", err));
	CHECK(c.n == 7, tname("seven settings (%d)", c.n));
	CHECK(c.n > 1 && strcmp(c.e[0].key, "interval") == 0 && strcmp(c.e[0].value, "2") == 0 && c.e[0].line == 2,
	      "interval = 2 at line 2");
	CHECK(c.n > 1 && strcmp(c.e[1].value, "light") == 0, "a comment after a blank is left out of the value");
	CHECK(c.n > 2 && c.e[2].kind == UC_SWITCH && c.e[2].on, "a switch alone is on");
	CHECK(c.n > 3 && strcmp(c.e[3].key, "read-only") == 0 && !c.e[3].on, "read_only = no: '_' reads as '-', off");
	const struct uconf_entry *t = uconf_target(&c, "target", "db1");
	CHECK(t && strcmp(t->value, "mysql://monitor:pa#ss@db1/") == 0, "target by name, '#' inside kept");
	t = uconf_target(&c, "target", "pg.2");
	CHECK(t && strcmp(t->value, "host=/run/postgresql dbname=app") == 0, "a quoted value loses its quotes");
	CHECK(uconf_target(&c, "target", "db3") == NULL, "an unknown name is no target");
	CHECK(c.n > 6 && strcmp(c.e[6].key, "server-budget") == 0 && strcmp(c.e[6].value, "5") == 0,
	      "keys are case-insensitive; last line without a newline");
	uconf_free(&c);
}

/* text must be refused with "cfg:LINE: ..." containing want, and never
 * show secret (NULL: no secret in it). */
static void refused(const char *text, int line, const char *want, const char *secret)
{
	struct uconf c;
	char prefix[32];
	int rc = parse(&c, text);
	str_printf(prefix, sizeof prefix, "cfg:%d: ", line);
	CHECK(rc < 0 && strncmp(err, prefix, strlen(prefix)) == 0 && strstr(err, want),
	      tname("refused at line %d: %s (got: %s)", line, want, err));
	if (secret)
		CHECK(!strstr(err, secret), tname("the message does not show the target's text (%s)", err));
	uconf_free(&c);
}

static void test_bad(void)
{
	refused("interval = 1\nintervall = 2\n", 2, "unknown setting 'intervall'", NULL);
	refused("= 2\n", 1, "not a setting", NULL);
	refused("interval\n", 1, "'interval' needs a value", NULL);
	refused("interval =\n", 1, "'interval' needs a value", NULL);
	refused("\n\ninterval 2\n", 3, "expected '='", NULL);
	refused("ascii = maybe\n", 1, "'ascii' is a switch", NULL);
	refused("theme = dark\n# x\ntheme = light\n", 3, "'theme' is given twice (also at line 1)", NULL);
	refused("target = mysql://u:hunter2@h/\n", 1, "needs a name", "hunter2");
	refused("target db/1 = mysql://u:hunter2@h/\n", 1, "a name is", "hunter2");
	refused("target db1\n", 1, "'target db1' needs a target", NULL);
	refused("target db1 = mysql://u:hunter2@a/\ntarget db1 = mysql://u:hunter2@b/\n", 2,
		"the target 'db1' is given twice (also at line 1)", "hunter2");
	refused("theme = da\x1b[2Jrk\n", 1, "a control character", NULL);
	refused("interval = 2\n\x1b[31mred\n", 2, "not a setting", NULL);
	/* the unknown key is cut and holds key characters only: safe to print */
	refused("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = 1\n", 1, "unknown setting", NULL);
	struct uconf c;
	uconf_init(&c);
	CHECK(uconf_parse(&c, "cfg", "interval = 1\0x", 14, keys, err, sizeof err) < 0 && strstr(err, "NUL"),
	      "a NUL byte: not a text file");
	uconf_free(&c);
}

static void test_files(void)
{
	char dir[] = "/tmp/dbtop-uconf-XXXXXX", path[300], def[600];
	struct uconf c;
	CHECK(mkdtemp(dir) != NULL, "temp dir");
	str_printf(path, sizeof path, "%s/config", dir);
	uconf_init(&c);
	CHECK(uconf_read(&c, path, true, keys, err, sizeof err) == 1, "a missing default file: nothing read");
	CHECK(uconf_read(&c, path, false, keys, err, sizeof err) < 0 && strstr(err, "No such file"),
	      tname("a missing --config FILE: an error (%s)", err));
	FILE *f = fopen(path, "w");
	fputs("interval = 3\nbogus = 1\n", f);
	fclose(f);
	CHECK(uconf_read(&c, path, true, keys, err, sizeof err) < 0 && strstr(err, "/config:2: unknown setting 'bogus'"),
	      tname("a bad line of a file: PATH:LINE (%s)", err));
	uconf_free(&c);
	CHECK(uconf_read(&c, dir, false, keys, err, sizeof err) < 0 && strstr(err, "not a regular file"),
	      tname("a directory is refused (%s)", err));
	setenv("XDG_CONFIG_HOME", dir, 1);
	uconf_default_path(def, sizeof def);
	CHECK(strcmp(def + strlen(dir), "/dbtop/config") == 0, "default: $XDG_CONFIG_HOME/dbtop/config");
	setenv("XDG_CONFIG_HOME", "relative", 1);
	setenv("HOME", "/home/someone", 1);
	uconf_default_path(def, sizeof def);
	CHECK(strcmp(def, "/home/someone/.config/dbtop/config") == 0,
	      "a relative XDG_CONFIG_HOME is ignored (XDG): ~/.config/dbtop/config");
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	test_good();
	test_bad();
	test_files();
	return tap_failed ? 1 : 0;
}
