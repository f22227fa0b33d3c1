/* What the durability settings in force imply, per engine: the fsyncs a
 * commit waits for and what a crash can lose. */
#ifndef DBTOP_DURABILITY_H
#define DBTOP_DURABILITY_H

#include <stdbool.h>

#include "sample.h"

/* A setting's value in force, or NULL (ctx: the caller's). */
typedef const char *(*durability_get_fn)(const void *ctx, const char *name);

/* Up to max lines of 160 bytes, crit[i] when a line says data can be
 * lost; returns how many (0 when the settings were not read). */
int durability_lines(enum engine engine, durability_get_fn get, const void *ctx, char lines[][160], bool *crit,
		     int max);

#endif
