/* tap.h - a minimal test protocol shared by unit tests and tests/run.sh:
 * one "ok - NAME" or "not ok - NAME: detail" line per check; the program
 * exits 1 when any check failed. */
#ifndef DBTOP_TAP_H
#define DBTOP_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_failed;

/* A check name built with printf (valid for the next 3 calls). */
static inline const char *tname(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline const char *tname(const char *fmt, ...)
{
	static char buf[4][512];
	static int next;
	char *p = buf[next++ % 4];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p, sizeof buf[0], fmt, ap);
	va_end(ap);
	return p;
}

#define CHECK(cond, name)                                                        \
	do {                                                                     \
		if (cond) {                                                      \
			printf("ok - %s\n", name);                               \
		} else {                                                         \
			printf("not ok - %s: %s (%s:%d)\n", name, #cond, __FILE__, \
			       __LINE__);                                        \
			tap_failed++;                                            \
		}                                                                \
	} while (0)

#define CHECK_STR(got, want, name)                                               \
	do {                                                                     \
		const char *g_ = (got), *w_ = (want);                            \
		if (g_ && w_ && strcmp(g_, w_) == 0) {                           \
			printf("ok - %s\n", name);                               \
		} else {                                                         \
			printf("not ok - %s: got '%s', want '%s' (%s:%d)\n", name, \
			       g_ ? g_ : "(null)", w_ ? w_ : "(null)", __FILE__,  \
			       __LINE__);                                        \
			tap_failed++;                                            \
		}                                                                \
	} while (0)

#define CHECK_NEAR(got, want, eps, name)                                         \
	do {                                                                     \
		double g_ = (got), w_ = (want);                                  \
		if (fabs(g_ - w_) <= (eps)) {                                    \
			printf("ok - %s\n", name);                               \
		} else {                                                         \
			printf("not ok - %s: got %g, want %g (%s:%d)\n", name, g_, \
			       w_, __FILE__, __LINE__);                          \
			tap_failed++;                                            \
		}                                                                \
	} while (0)

#define TAP_DONE() (tap_failed ? 1 : 0)

#endif
