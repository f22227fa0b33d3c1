/* pyjson.h - checks of JSON output with Python's json module (skipped
 * when python3 is missing), shared by the unit tests. Needs tap.h and
 * util.h included first; main sets have_python. */
#ifndef DBTOP_TEST_PYJSON_H
#define DBTOP_TEST_PYJSON_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/wait.h>

static bool have_python;

/* Run python3 code with json text on stdin; true when it exits 0. */
static inline bool py_ok(const char *json, const char *code)
{
	struct strbuf cmd;
	FILE *p;
	int st;

	sb_init(&cmd);
	sb_printf(&cmd, "python3 -c '%s' >&2", code);
	p = popen(cmd.s, "w");
	sb_free(&cmd);
	if (!p)
		return false;
	fputs(json, p);
	st = pclose(p);
	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* CHECK that python accepts json with code (skipped without python3). */
static inline void check_py(const char *json, const char *code, const char *name)
{
	if (!have_python) {
		printf("ok - %s # SKIP no python3\n", name);
		return;
	}
	CHECK(py_ok(json, code), name);
}

#endif
