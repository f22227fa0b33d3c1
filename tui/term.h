/* term.h - the terminal under the screen: curses on and off, the quit and
 * fatal signals, a terminal that went away. */
#ifndef DBTOP_TERM_H
#define DBTOP_TERM_H

#include <stdbool.h>

/* Curses on, the signal handlers, the input modes and the colours. -1
 * (said on stderr) when the terminal cannot show the screen. */
int term_start(void);
/* Leave and re-enter once, before anything is drawn: buffered output. */
void term_buffered(void);
/* Curses off (safe to call twice, and at exit). */
void term_restore(void);
/* The quit signal taken (SIGINT, SIGTERM, SIGHUP), 0: none. */
int term_signal(void);
void term_set_signal(int sig);
/* Setting changes are in force: a crash says so. */
void term_tuned(bool active);
/* The terminal went away without a SIGHUP (see term.c). */
bool term_input_gone(short revents, bool got_key, int *empty);
/* Wait (bounded) for the hang-up signal of a terminal seen gone. */
void term_await_hangup(void);

#endif
