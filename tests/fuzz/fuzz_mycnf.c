/* fuzz_mycnf.c - libFuzzer target for the MySQL option file reader
 * (config/dsn.c: target_read_option_file, the ~/.my.cnf and
 * --defaults-file parser with its [client] / [dbtop] groups, quoting and
 * !include / !includedir). The reader takes a path, so each input is
 * written to a file first. The fuzzer works in a directory of its own
 * holding a few option files to include (one includes itself, to reach
 * the depth limit); inputs that would include by a path with a '/' are
 * skipped, so that nothing outside that directory is read.
 * Checks, and aborts when one breaks:
 *  - the file reads (0); the fields it sets are terminated strings, the
 *    port is 0 or 1..65535, nothing else of the target changes;
 *  - keep_set: fields set before stay as they were; without it, the
 *    file's values replace them and unset fields stay;
 *  - precedence: after any text, a [dbtop] value appended wins, and a
 *    [client] one appended counts unless a [dbtop] line said otherwise;
 *  - the display label is terminal-safe and never shows the password
 *    (unless the host, socket or port says the same).
 * Build and run: make fuzz FUZZ_TARGET=mycnf */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../config/dsn.h"
#include "../../util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define REQUIRE(c) do { if (!(c)) { \
	fprintf(stderr, "fuzz_mycnf: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, #c); \
	abort(); } } while (0)

static char input_path[256];

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	REQUIRE(f != NULL);
	REQUIRE(fwrite(p, 1, n, f) == n);
	REQUIRE(fclose(f) == 0);
}

/* The fuzzer's directory: DIR/box (the working directory, with the files
 * an input may include) and DIR/input.txt (not a .cnf: an !includedir ..
 * must not read the input into itself). */
/* The paths libFuzzer reads after this (corpus directories, inputs to
 * run, the artifact prefix) made absolute before the chdir. */
static void absolute_args(int argc, char **argv)
{
	static const char *const opts[] = {"-artifact_prefix=", "-exact_artifact_path=", "-dict="};
	char cwd[4096];
	if (!getcwd(cwd, sizeof cwd))
		abort();
	for (int i = 1; i < argc; i++) {
		const char *pre = "", *path = argv[i];
		struct strbuf b;
		if (argv[i][0] == '-') {
			path = NULL;
			for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
				if (strncmp(argv[i], opts[k], strlen(opts[k])) == 0) {
					pre = opts[k];
					path = argv[i] + strlen(opts[k]);
				}
			if (!path)
				continue;
		}
		if (path[0] == '/' || path[0] == '\0')
			continue;
		sb_init(&b);
		sb_printf(&b, "%s%s/%s", pre, cwd, path);
		argv[i] = b.s;  /* lives as long as the process */
	}
}

static char dir[] = "/tmp/dbtop-fuzz-mycnf-XXXXXX";

/* The fuzzer's directory goes at a normal exit. */
static void cleanup(void)
{
	static const char *const files[] = {"box/inc.cnf", "box/inc2.cnf", "box/loop.cnf",
		"box/conf.d/10-a.cnf", "box/conf.d/20-b.cnf", "box/conf.d/notes.txt", "input.txt"};
	char p[512];
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		str_printf(p, sizeof p, "%s/%s", dir, files[i]);
		unlink(p);
	}
	str_printf(p, sizeof p, "%s/box/conf.d", dir);
	rmdir(p);
	str_printf(p, sizeof p, "%s/box", dir);
	rmdir(p);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char box[256];
	absolute_args(*argc, *argv);
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	str_printf(input_path, sizeof input_path, "%s/input.txt", dir);
	str_printf(box, sizeof box, "%s/box", dir);
	if (mkdir(box, 0700) < 0 || chdir(box) < 0 || mkdir("conf.d", 0700) < 0)
		abort();
	write_file("inc.cnf", "[client]\nuser = incuser\nport=3307\n!include inc2.cnf\n", 52);
	write_file("inc2.cnf", "[dbtop]\nhost = inc2host # comment\n", 34);
	write_file("loop.cnf", "[client]\n!include loop.cnf\npassword=\"loop pw\"\n", 46);
	write_file("conf.d/10-a.cnf", "[client]\nsocket=/run/a.sock\n", 28);
	write_file("conf.d/20-b.cnf", "[dbtop]\ndatabase='b db'\n", 24);
	write_file("conf.d/notes.txt", "[client]\nuser=never\n", 20);
	/* the label reads no environment for MySQL; keep the run the same */
	unsetenv("PGSERVICE");
	unsetenv("PGHOST");
	return 0;
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static void check_fields(const struct target *t)
{
	/* strlen: terminated and in bounds (ASan) */
	if (t->host)
		(void)strlen(t->host);
	if (t->user)
		(void)strlen(t->user);
	if (t->password)
		(void)strlen(t->password);
	if (t->socket)
		(void)strlen(t->socket);
	if (t->database)
		(void)strlen(t->database);
	REQUIRE(t->port >= 0 && t->port <= 65535);
	REQUIRE(t->pg_conninfo == NULL && t->defaults_file == NULL);
	REQUIRE(t->connect_timeout == 5.0);
}

static bool is_clean(const char *s)
{
	char *c = xstrdup(s);
	bool same = strcmp(text_sanitize(c), s) == 0;
	free(c);
	return same;
}

static int read_text(struct target *t, const char *text, size_t n, bool keep)
{
	char err[256];
	write_file(input_path, text, n);
	err[0] = '\0';
	return target_read_option_file(t, input_path, keep, err, sizeof err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct target fresh, pre, keep;
	char *more;
	static const char tail[] = "\n[client]\nhost=zzclient\n[dbtop]\nuser = zzdbtop\nport=4321\n";

	/* includes only of the fuzzer's own files */
	if (memmem(data, size, "!include", 8) && memchr(data, '/', size))
		return 0;

	target_init(&fresh);
	REQUIRE(read_text(&fresh, (const char *)data, size, false) == 0);
	check_fields(&fresh);

	/* keep_set leaves set fields alone; otherwise the file's replace them */
	target_init(&pre);
	pre.user = xstrdup("flaguser");
	pre.password = xstrdup("flagpw");
	pre.port = 4242;
	REQUIRE(read_text(&pre, (const char *)data, size, true) == 0);
	check_fields(&pre);
	REQUIRE(str_eq(pre.user, "flaguser") && str_eq(pre.password, "flagpw") && pre.port == 4242);
	REQUIRE(str_eq(pre.host, fresh.host) && str_eq(pre.socket, fresh.socket) &&
		str_eq(pre.database, fresh.database));
	target_free(&pre);

	target_init(&keep);
	keep.user = xstrdup("flaguser");
	keep.port = 4242;
	REQUIRE(read_text(&keep, (const char *)data, size, false) == 0);
	REQUIRE(str_eq(keep.user, fresh.user ? fresh.user : "flaguser"));
	REQUIRE(keep.port == (fresh.port ? fresh.port : 4242));
	REQUIRE(str_eq(keep.password, fresh.password) && str_eq(keep.host, fresh.host));
	target_free(&keep);

	/* [dbtop] wins over [client], wherever each stands */
	more = xmalloc(size + sizeof tail);
	memcpy(more, data, size);
	memcpy(more + size, tail, sizeof tail);
	target_init(&pre);
	REQUIRE(read_text(&pre, more, size + sizeof tail - 1, false) == 0);
	check_fields(&pre);
	REQUIRE(str_eq(pre.user, "zzdbtop") && pre.port == 4321);
	REQUIRE(pre.host && (strcmp(pre.host, "zzclient") == 0 || str_eq(pre.host, fresh.host)));
	REQUIRE(str_eq(pre.password, fresh.password) && str_eq(pre.socket, fresh.socket));
	target_free(&pre);
	free(more);

	/* the label */
	fresh.engine = ENGINE_MYSQL;
	target_make_label(&fresh);
	REQUIRE(memchr(fresh.label, '\0', sizeof fresh.label) != NULL);
	REQUIRE(fresh.label[0] != '\0' && is_clean(fresh.label));
	if (fresh.password && *fresh.password && strstr(fresh.label, fresh.password)) {
		/* only when what the label is made of says the same */
		struct strbuf src;
		sb_init(&src);
		sb_printf(&src, "%s:%d|%s|localhost", fresh.host ? fresh.host : "", fresh.port,
			  fresh.socket ? fresh.socket : "");
		REQUIRE(strstr(src.s, fresh.password) != NULL);
		sb_free(&src);
	}
	target_free(&fresh);
	return 0;
}
