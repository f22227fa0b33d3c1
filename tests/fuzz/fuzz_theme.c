/* fuzz_theme.c - libFuzzer target for the theme file parser
 * (tui/theme_parse.c): any bytes as the text of a theme file. Checks, and
 * aborts when one breaks:
 *  - theme_parse returns 0 or -1; on -1 the theme is the built-in dark one
 *    and the message is "line N: ..." with N a line of the text, printable
 *    ASCII only (it is shown on the terminal);
 *  - on 0 every colour is -1..255, only known attribute bits are set, the
 *    name is terminated inside its array and has no control character;
 *  - writing the parsed theme back as a theme file and parsing that gives
 *    the same theme (nothing the parser accepts is misread);
 *  - theme_load on the same bytes written to NAME.theme agrees with
 *    theme_parse (a file without a name line is named after the file; a
 *    file with a NUL byte is refused).
 * Build and run: make fuzz FUZZ_TARGET=theme */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tui/theme.h"
#include "../../util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define REQUIRE(c) do { if (!(c)) { \
	fprintf(stderr, "fuzz_theme: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, #c); \
	abort(); } } while (0)

#define ALL_ATTRS (THEME_ATTR_BOLD | THEME_ATTR_DIM | THEME_ATTR_UNDERLINE | THEME_ATTR_REVERSE)

static char dir_path[64], file_path[256];

static void cleanup(void)
{
	unlink(file_path);
	rmdir(dir_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	str_copy(dir_path, sizeof dir_path, "/tmp/dbtop-fuzz-theme-XXXXXX");
	if (!mkdtemp(dir_path))
		abort();
	str_printf(file_path, sizeof file_path, "%s/fz.theme", dir_path);
	atexit(cleanup);
	return 0;
}

static bool same_theme(const struct theme_spec *a, const struct theme_spec *b)
{
	if (strcmp(a->name, b->name) != 0)
		return false;
	for (int r = 0; r < R__COUNT; r++)
		if (a->role[r].fg != b->role[r].fg || a->role[r].bg != b->role[r].bg ||
		    a->role[r].attrs != b->role[r].attrs)
			return false;
	return true;
}

static void check_err(const char *err, const char *text)
{
	long line, lines = 1;
	char *end;
	REQUIRE(memchr(err, '\0', 256) != NULL);
	REQUIRE(strncmp(err, "line ", 5) == 0);
	line = strtol(err + 5, &end, 10);
	for (const char *c = text; (c = strchr(c, '\n')); c++)
		lines++;
	REQUIRE(line >= 1 && line <= lines && *end == ':');
	for (const unsigned char *c = (const unsigned char *)err; *c; c++)
		REQUIRE(*c >= 0x20 && *c < 0x7f);
}

static void check_theme(const struct theme_spec *t)
{
	REQUIRE(memchr(t->name, '\0', sizeof t->name) != NULL);
	for (const unsigned char *c = (const unsigned char *)t->name; *c; c++)
		REQUIRE(*c >= 0x20 && *c != 0x7f);
	for (int r = 0; r < R__COUNT; r++) {
		REQUIRE(t->role[r].fg >= -1 && t->role[r].fg <= 255);
		REQUIRE(t->role[r].bg >= -1 && t->role[r].bg <= 255);
		REQUIRE((t->role[r].attrs & ~ALL_ATTRS) == 0);
	}
}

static void put_colour(struct strbuf *b, short c)
{
	if (c < 0)
		sb_puts(b, "default");
	else
		sb_printf(b, "%d", c);
}

/* t as theme file text. */
static void write_theme(const struct theme_spec *t, struct strbuf *b)
{
	static const struct {
		unsigned bit;
		const char *name;
	} attrs[] = {{THEME_ATTR_BOLD, "bold"}, {THEME_ATTR_DIM, "dim"},
		     {THEME_ATTR_UNDERLINE, "underline"}, {THEME_ATTR_REVERSE, "reverse"}};
	sb_printf(b, "# written back\nname = %s\n", t->name);
	for (int r = 0; r < R__COUNT; r++) {
		sb_printf(b, "%s = ", theme_role_name((enum role)r));
		put_colour(b, t->role[r].fg);
		sb_puts(b, ", ");
		put_colour(b, t->role[r].bg);
		if (!t->role[r].attrs)
			sb_puts(b, ", none");
		for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
			if (t->role[r].attrs & attrs[i].bit)
				sb_printf(b, ", %s", attrs[i].name);
		sb_putc(b, '\n');
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct theme_spec t, t2, t3, dark;
	char *text, err[256], err2[512];
	bool has_nul = memchr(data, '\0', size) != NULL;
	int rc, rc3;

	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	REQUIRE(theme_builtin("dark", &dark) == 0);

	memset(err, 'x', sizeof err);
	rc = theme_parse(text, &t, err, sizeof err);
	REQUIRE(rc == 0 || rc == -1);
	check_theme(&t);
	if (rc < 0) {
		check_err(err, text);
		REQUIRE(same_theme(&t, &dark));
	} else {
		struct strbuf b;
		REQUIRE(err[0] == '\0');
		sb_init(&b);
		write_theme(&t, &b);
		REQUIRE(theme_parse(b.s, &t2, err2, sizeof err2) == 0);
		REQUIRE(same_theme(&t, &t2));
		sb_free(&b);
	}
	/* no error text wanted: fine too */
	REQUIRE(theme_parse(text, &t2, NULL, 0) == rc && same_theme(&t, &t2));

	/* the same bytes as a file */
	{
		FILE *f = fopen(file_path, "wb");
		REQUIRE(f != NULL);
		REQUIRE(fwrite(data, 1, size, f) == size);
		REQUIRE(fclose(f) == 0);
		rc3 = theme_load(file_path, &t3, err2, sizeof err2);
		check_theme(&t3);
		if (has_nul || size > 64 * 1024) {
			REQUIRE(rc3 == -1 && same_theme(&t3, &dark));
		} else {
			REQUIRE(rc3 == rc);
			if (rc3 == 0) {
				/* named after the file unless a name line said */
				if (strcmp(t3.name, "fz") == 0)
					strcpy(t3.name, t.name);
				REQUIRE(same_theme(&t3, &t));
			} else {
				REQUIRE(strstr(err2, err) != NULL);
			}
		}
	}
	free(text);
	return 0;
}
