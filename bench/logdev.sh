#!/usr/bin/env bash
# logdev.sh - the cost of the log device's figures per refresh: one read of
# /proc/diskstats, parsed once, and the interval's derivation, timed in
# process with clock_gettime over many iterations (the share of one CPU at a
# 1 s refresh is that time / 1 s). It reads no server table: no server time.
# Usage: bench/logdev.sh [iterations]   (after make)
set -eu
cd "$(dirname "$0")/.."
n=${1:-20000}
make -s CI=1 build/sources/hostio.o build/model/logdev_rates.o build/model/ring.o build/util/util.o >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/b.c" <<'C'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sources/hostio.h"
#include "model/logdev_rates.h"
#include "util/util.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), lines = 0;
	struct logdev_map m;
	struct logdev_sample a, b;
	struct logdev_rates r;
	memset(&m, 0, sizeof m);
	/* the first and the last device of the file: the parse walks it all */
	FILE *f = fopen("/proc/diskstats", "r");
	char line[512], first[64] = "", last[64] = "";
	while (f && fgets(line, sizeof line, f)) {
		struct diskstat d;
		if (hostio_parse_line(line, &d) == 0) {
			if (!first[0])
				str_copy(first, sizeof first, d.name);
			str_copy(last, sizeof last, d.name);
			lines++;
		}
	}
	if (f)
		fclose(f);
	m.ndev = 2;
	str_copy(m.dev[0], LOGDEV_NAME, last);
	str_copy(m.dev[1], LOGDEV_NAME, first);
	hostio_read(&m, NULL, &a);
	double t0 = now();
	for (int i = 0; i < n; i++) {
		hostio_read(&m, NULL, &b);
		logdev_derive(&a.d[0], &b.d[0], 1.0, &r);
		logdev_derive(&a.d[1], &b.d[1], 1.0, &r);
		a = b;
	}
	double per = (now() - t0) / n;
	printf("/proc/diskstats: %d devices; %d refreshes: %.1f us per refresh (read + parse + derive) = %.4f %% of one CPU at 1 s\n",
	       lines, n, per * 1e6, per * 100);
	return 0;
}
C
cc -O2 -std=c11 -D_GNU_SOURCE -I. -o "$tmp/b" "$tmp/b.c" build/sources/hostio.o build/model/logdev_rates.o build/model/ring.o \
    build/util/util.o -lm
"$tmp/b" "$n"
