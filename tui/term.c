/* term.c - the terminal under the screen: curses on and off, the quit
 * and fatal signals, a terminal that went away without a hang-up. */
#include "term.h"

#include <curses.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../util/util.h"
#include "ui.h"

/* Changes in force (for the crash message). */
static volatile sig_atomic_t tuned_active;

static volatile sig_atomic_t ui_signal;
static bool curses_on;

/* SIGINT / SIGTERM / SIGHUP: leave the loop and restore the terminal. */
static void on_quit_signal(int sig)
{
	ui_signal = sig;
}

/* A fatal signal: give the terminal back before dying. Installed with
 * SA_RESETHAND, and only the first fatal signal restores the terminal: a
 * fault inside endwin() (a corrupt heap, an abort()) goes straight to the
 * default action instead of entering this handler again. */
static void on_fatal_signal(int sig)
{
	static const char msg[] = "dbtop: crashed while setting changes were in force: they are in the undo "
				  "journal; start dbtop against the same server to revert them\n";
	static volatile sig_atomic_t in_fatal;
	if (!in_fatal) {
		in_fatal = 1;
		if (curses_on)
			endwin();
		if (tuned_active && write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
			/* nothing more to do */
		}
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Consecutive wake-ups with stdin readable and nothing to read. */
#define INPUT_EMPTY_MAX 3

/* The terminal went away without a SIGHUP reaching dbtop (a pty closed
 * whose controlling process is another, dbtop started in its own session,
 * a hang-up signal ignored by a wrapper): poll() reports POLLHUP, POLLERR
 * or POLLNVAL on stdin, or stdin is readable again and again with nothing
 * in it (read() returns 0 or EIO, getch() ERR). got_key: a key was read
 * on this wake-up; *empty counts the empty ones. */
bool term_input_gone(short revents, bool got_key, int *empty)
{
	int n = 0;
	if (revents & (POLLHUP | POLLERR | POLLNVAL))
		return true;
	if (!(revents & POLLIN) || got_key || (ioctl(STDIN_FILENO, FIONREAD, &n) == 0 && n > 0)) {
		*empty = 0;
		return false;
	}
	return ++*empty >= INPUT_EMPTY_MAX;
}

/* How long to wait for the hang-up signal after the terminal is seen gone. */
#define HANGUP_SIGNAL_WAIT 1.0

/* The terminal is gone. When it had a session, the kernel sends its
 * foreground group SIGHUP and SIGCONT as the session ends, a few
 * milliseconds after the hang-up shows on stdin: take them now, before
 * the revert, so that they interrupt none of its queries (the handlers
 * have no SA_RESTART) and no stop a debugger or sanitizer asks for while
 * dbtop exits is cancelled by the SIGCONT. Bounded: a pty of dbtop's own
 * session sends nothing. */
void term_await_hangup(void)
{
	double until = clock_mono() + HANGUP_SIGNAL_WAIT;
	while (!ui_signal && clock_mono() < until)
		poll(NULL, 0, 50);
}

void term_restore(void)
{
	if (curses_on) {
		endwin();
		curses_on = false;
	}
}

bool ui_possible(char *why, size_t len)
{
	const char *term = getenv("TERM");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		str_copy(why, len, "no terminal: use --batch for plain output");
		return false;
	}
	if (!term || !*term || strcmp(term, "dumb") == 0) {
		str_printf(why, len, "TERM=%s cannot show the screen: use --batch for plain output", term ? term : "");
		return false;
	}
	return true;
}

/* Curses on, the signal handlers, the input modes and the colours. */
int term_start(void)
{
	static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	struct sigaction sa;
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		fprintf(stderr, "dbtop: this terminal (TERM=%s) cannot show the screen: use --batch\n",
			getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	curses_on = true;
	atexit(term_restore);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_quit_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	for (int i = 0; i < (int)(sizeof fatal / sizeof fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	/* a frame is written whole: no looks for typed keys while it is
	 * (four to six polls of the terminal a frame); keys are read next */
	typeahead(-1);
	curs_set(0);
	set_escdelay(25);
	if (has_colors()) {
		start_color();
		use_default_colors();
	}
	return 0;
}

void term_buffered(void)
{
	/* ncurses (6.2 - 6.4) flushes its output after every cursor movement
	 * until the screen has once come back from endwin(): a frame became
	 * ~60 small write(2)s to the terminal instead of one. Leave and
	 * re-enter once, before anything is drawn, to get buffered output. */
	def_prog_mode();
	endwin();
	refresh();
}

int term_signal(void)
{
	return ui_signal;
}

void term_set_signal(int sig)
{
	ui_signal = sig;
}

void term_tuned(bool active)
{
	tuned_active = active;
}
