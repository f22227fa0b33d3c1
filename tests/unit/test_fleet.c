/* test_fleet.c - several targets: --targets files (comments, names, bad
 * lines with their line numbers, duplicates, the limit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../config/targets.h"
#include "../../util/util.h"
#include "tap.h"

static char err[400];

/* Parse text into a fresh list; returns fleet_parse_text's result. */
static int parse(struct fleet_list *l, const char *text)
{
	fleet_free(l);
	fleet_init(l);
	err[0] = '\0';
	return fleet_parse_text(l, text, "t.conf", err, sizeof err);
}

int main(void)
{
	struct fleet_list l;
	fleet_init(&l);

	CHECK(parse(&l, "") == 0 && l.n == 0, tname("empty file: no target"));
	CHECK(parse(&l, "# only a comment\n\n   \n\t# another\n") == 0 && l.n == 0, tname("comments and blank lines"));
	CHECK(parse(&l, "mysql://monitor@db1:3306/\n"
		     "pg15 = postgresql://monitor@db2:5432/app   # the app's primary\n"
		     "  host=/run/postgresql dbname=x port=5433\n"
		     "old = host=/tmp port=5434 user=me\n"
		     "host = /tmp port=5435\n") == 0 && l.n == 5, tname("five targets (%s)", err));
	CHECK(!l.e[0].named && strcmp(l.e[0].spec, "mysql://monitor@db1:3306/") == 0 && l.e[0].line == 1, tname("unnamed URI kept as written, line 1"));
	CHECK(l.e[1].named && strcmp(l.e[1].name, "pg15") == 0 &&
	   strcmp(l.e[1].spec, "postgresql://monitor@db2:5432/app") == 0 && l.e[1].line == 2, tname("NAME = URI, trailing comment dropped"));
	CHECK(!l.e[2].named && strcmp(l.e[2].spec, "host=/run/postgresql dbname=x port=5433") == 0, tname("unnamed key=value string"));
	CHECK(l.e[3].named && strcmp(l.e[3].name, "old") == 0 && strcmp(l.e[3].spec, "host=/tmp port=5434 user=me") == 0, tname("NAME = key=value string"));
	CHECK(!l.e[4].named && strcmp(l.e[4].spec, "host = /tmp port=5435") == 0, tname("'host = /tmp ...' is a libpq string, not a name"));
	/* a libpq keyword is never a NAME: a password with '=' in it stays in its target */
	CHECK(parse(&l, "password=SECRET6== host=h port=5 user=u\n") == 0 && l.n == 1 && !l.e[0].named &&
	   strcmp(l.e[0].spec, "password=SECRET6== host=h port=5 user=u") == 0, tname("'password=a== host=...' is a libpq string, not NAME=password (%s)", err));
	CHECK(parse(&l, "pw = password=SECRET7== host=h\n") == 0 && l.n == 1 && l.e[0].named &&
	   strcmp(l.e[0].spec, "password=SECRET7== host=h") == 0, tname("NAME = password=... keeps the whole target"));
	CHECK(parse(&l, "a\x1b[31m = mysql://h/\n") < 0 && !strchr(err, '\x1b') && strstr(err, "bad name 'a?[31m'"),
	   tname("a bad name's escape sequence is not echoed (%s)", err));
	CHECK(parse(&l, "mysql://u:p#w@h/?ssl-mode=REQUIRED&connect_timeout=3\n") == 0 && l.n == 1 && !l.e[0].named &&
	   strcmp(l.e[0].spec, "mysql://u:p#w@h/?ssl-mode=REQUIRED&connect_timeout=3") == 0, tname("a '#' inside a URI and '=' in its query stay"));
	CHECK(parse(&l, "a = mysql://h1/\r\nb = mysql://h2/\r\n") == 0 && l.n == 2 && strcmp(l.e[1].spec, "mysql://h2/") == 0, tname("CRLF line ends"));

	/* bad lines name the file and the line, never the target's text */
	CHECK(parse(&l, "mysql://h1/\n\nmy!db = mysql://u:secret@h2/\n") < 0 && strstr(err, "t.conf:3:") &&
	   !strstr(err, "secret"), tname("bad name: line 3 (%s)", err));
	CHECK(parse(&l, "\n\nx = \n") < 0 && strstr(err, "t.conf:3:"), tname("NAME = without a target: line 3 (%s)", err));
	CHECK(parse(&l, "a = mysql://h1/\nmysql://u:secret@h2/ extra words\n") < 0 && strstr(err, "t.conf:2:") &&
	   !strstr(err, "secret"), tname("words that are no target: line 2 (%s)", err));
	CHECK(parse(&l, "db = mysql://h1/\n# x\ndb = mysql://h2/\n") < 0 && strstr(err, "t.conf:3:") &&
	   strstr(err, "t.conf:1") && strstr(err, "'db'"), tname("duplicate name: both lines (%s)", err));
	CHECK(parse(&l, "mysql://u:secret@h1/\na = mysql://u:secret@h1/\n") < 0 && strstr(err, "t.conf:2:") &&
	   strstr(err, "same target") && !strstr(err, "secret"), tname("the same target twice (%s)", err));

	/* the limit */
	struct strbuf b;
	sb_init(&b);
	for (int i = 0; i < FLEET_MAX; i++)
		sb_printf(&b, "s%d = mysql://h%d/\n", i, i);
	CHECK(parse(&l, b.s) == 0 && l.n == FLEET_MAX, tname("%d targets accepted", FLEET_MAX));
	sb_printf(&b, "# a comment\nlast = mysql://hlast/\n");
	CHECK(parse(&l, b.s) < 0 && strstr(err, "t.conf:66:") && strstr(err, "at most 64"), tname("target %d refused at its line (%s)", FLEET_MAX + 1, err));
	sb_free(&b);

	/* the command line: no file, no line */
	fleet_free(&l);
	fleet_init(&l);
	CHECK(fleet_add(&l, NULL, "mysql://h/", 0, err, sizeof err) == 0 &&
	   fleet_add(&l, NULL, "mysql://h/", 0, err, sizeof err) < 0 && strstr(err, "command line"), tname("the same TARGET argument twice (%s)", err));

	CHECK(fleet_name_ok("db-1.prod_a", 11) && !fleet_name_ok("-x", 2) && !fleet_name_ok("a b", 3) &&
	   !fleet_name_ok("", 0), tname("name characters"));
	CHECK(fleet_read_file(&l, "/nonexistent/targets", err, sizeof err) < 0 && strstr(err, "/nonexistent/targets"), tname("unreadable file named (%s)", err));
	fleet_free(&l);
	return TAP_DONE();
}
