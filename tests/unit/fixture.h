/* fixture.h - the loader of recorded result fixtures (tests/fixtures/,
 * format in tests/fixtures/README), shared by the unit tests. Needs tap.h
 * and util.h included first. */
#ifndef DBTOP_TEST_FIXTURE_H
#define DBTOP_TEST_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FX_MAXSEC 32
#define FX_MAXCELLS 32

struct fx_row {
	int n;
	char *cell[FX_MAXCELLS]; /* NULL for \N */
	char *block;             /* the line the cells point into */
};

struct fx_sec {
	char name[64];
	int nrows;
	struct fx_row *rows;
};

struct fx {
	char file[128];
	int nsec;
	struct fx_sec sec[FX_MAXSEC];
};

/* Open fixture name: from $DBTOP_FIXTURES, else tests/fixtures next to
 * this source file (relative to the repository root), else next to the
 * binary (build/tests/ -> tests/fixtures). path gets the last tried. */
static inline FILE *fx_open(const char *name, char *path, size_t len)
{
	const char *env = getenv("DBTOP_FIXTURES");
	const char *src = __FILE__, *slash = strrchr(src, '/');
	char exe[1024];
	ssize_t n;
	FILE *fp;

	if (env && *env) {
		str_printf(path, len, "%s/%s", env, name);
		return fopen(path, "r");
	}
	if (slash)
		str_printf(path, len, "%.*s/../fixtures/%s", (int)(slash - src), src, name);
	else
		str_printf(path, len, "../fixtures/%s", name);
	if ((fp = fopen(path, "r")))
		return fp;
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		char *d;
		exe[n] = '\0';
		if ((d = strrchr(exe, '/')))
			*d = '\0';
		str_printf(path, len, "%s/../../tests/fixtures/%s", exe, name);
		return fopen(path, "r");
	}
	return NULL;
}

/* Undo the cell escapes in place; returns NULL for \N. */
static inline char *fx_cell(char *s)
{
	char *o = s, *p;
	if (strcmp(s, "\\N") == 0)
		return NULL;
	for (p = s; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			*o++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return s;
}

/* Load fixture file name into f; false (and a failed check) when it
 * cannot be read. */
static inline bool fx_load(struct fx *f, const char *name)
{
	char path[1024], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *fp;
	struct fx_sec *cur = NULL;

	memset(f, 0, sizeof *f);
	str_copy(f->file, sizeof f->file, name);
	fp = fx_open(name, path, sizeof path);
	if (!fp) {
		printf("not ok - fixture %s: cannot open %s (set DBTOP_FIXTURES)\n", name, path);
		tap_failed++;
		return false;
	}
	while ((n = getline(&line, &cap, fp)) >= 0) {
		struct fx_row *r;
		char *p, *tab;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0 || line[0] == '#')
			continue;
		if (line[0] == '@') {
			if (f->nsec == FX_MAXSEC)
				break;
			cur = &f->sec[f->nsec++];
			str_copy(cur->name, sizeof cur->name, line + 1);
			continue;
		}
		if (!cur)
			continue;
		cur->rows = xrealloc(cur->rows, (size_t)(cur->nrows + 1) * sizeof *cur->rows);
		r = &cur->rows[cur->nrows++];
		memset(r, 0, sizeof *r);
		p = r->block = xstrdup(line);
		for (;;) {
			tab = strchr(p, '\t');
			if (tab)
				*tab = '\0';
			if (r->n < FX_MAXCELLS)
				r->cell[r->n++] = fx_cell(p);
			if (!tab)
				break;
			p = tab + 1;
		}
	}
	free(line);
	fclose(fp);
	return true;
}

/* Free everything fx_load allocated. */
static inline void fx_free(struct fx *f)
{
	int i, j;
	for (i = 0; i < f->nsec; i++) {
		for (j = 0; j < f->sec[i].nrows; j++)
			free(f->sec[i].rows[j].block);
		free(f->sec[i].rows);
	}
	memset(f, 0, sizeof *f);
}

static inline const struct fx_sec *fx_sec(const struct fx *f, const char *name)
{
	int i;
	for (i = 0; i < f->nsec; i++)
		if (strcmp(f->sec[i].name, name) == 0)
			return &f->sec[i];
	return NULL;
}

/* Section "base.n". */
static inline const struct fx_sec *fx_secn(const struct fx *f, const char *base, int n)
{
	char name[64];
	str_printf(name, sizeof name, "%s.%d", base, n);
	return fx_sec(f, name);
}

#endif
