/* replay.c - a main() for the fuzz targets without libFuzzer: feeds every
 * file of each directory given (tests/fuzz/corpus/NAME/) to the target's
 * LLVMFuzzerTestOneInput, once, in name order, so that any compiler (and
 * the sanitizer build) replays the corpora in `make check`. A target
 * aborts when one of its checks breaks; a clean pass prints one line
 *   ok - fuzz NAME: N inputs of DIR replayed
 * per directory; an unreadable or empty directory is "not ok", and a
 * check that aborts names the input it broke on. */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static const char *target_name;
static char current[4096];   /* the input being fed */

/* SIGABRT (a target's check broke): say which input, then die by it. */
static void on_abort(int sig)
{
	char msg[4300];
	int n = snprintf(msg, sizeof msg, "\nnot ok - fuzz %s: aborted on %s\n", target_name, current);

	if (n > 0 && write(1, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1) < 0)
		n = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The whole file at path in a malloc'd buffer (*len bytes); NULL when it
 * cannot be read. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap ? cap * 2 : 4096);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap = cap ? cap * 2 : 4096;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Feed every regular file of dir to the target; the number fed, -1 when
 * the directory or a file of it cannot be read. */
static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int fed = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
			if (!nn)
				abort();
			names = nn;
		}
		if (!(names[n++] = strdup(e->d_name)))
			abort();
	}
	closedir(d);
	qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		uint8_t *buf;
		size_t len = 0;

		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (!(buf = slurp(path, &len))) {
			printf("not ok - fuzz: %s cannot be read\n", path);
			fed = -1;
			break;
		}
		snprintf(current, sizeof current, "%s", path);
		fflush(stdout);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		fed++;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return fed;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int bad = 0;

	if (strncmp(name, "fuzz_", 5) == 0)
		name += 5;
	target_name = name;
	signal(SIGABRT, on_abort);
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR...\n", argv[0]);
		return 2;
	}
	/* (the directories as given: an initializer may rewrite argv) */
	char **given = calloc((size_t)argc, sizeof *given);
	if (!given)
		abort();
	memcpy(given, argv, (size_t)argc * sizeof *given);
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		int fed = replay_dir(argv[i]);
		if (fed > 0) {
			printf("ok - fuzz %s: %d inputs of %s replayed\n", name, fed, given[i]);
		} else {
			printf("not ok - fuzz %s: %s: %s\n", name, given[i],
			       fed < 0 ? "cannot be read" : "no input in it");
			bad = 1;
		}
	}
	free(given);
	return bad;
}
