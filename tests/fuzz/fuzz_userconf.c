/* fuzz_userconf.c - libFuzzer target for the user's config file
 * (config/userconf.c): any bytes as the text of the file, against dbtop's
 * own table of settings. Checks, and aborts when one breaks:
 *  - uconf_parse returns 0 or -1; on -1 the message is "cfg:N: ..." with N
 *    a line of the text (or "cfg: ..." for a NUL byte), printable ASCII
 *    only (it is shown on the terminal), and never holds the value of a
 *    target line (it may hold a password): bytes 0x01 in the input stand
 *    for a secret, and no 0x01 ever reaches the message;
 *  - on 0 every entry's key is one of the table, its kind the table's, its
 *    value terminated without control characters other than tab, a
 *    target's name valid (fleet_name_ok) and no key (or target name) given
 *    twice;
 *  - writing the entries back as a file (values in double quotes) and
 *    parsing that gives the same entries (nothing the parser accepts is
 *    misread); values holding a '"' themselves are left out of this one.
 * Build and run: make fuzz FUZZ_TARGET=userconf */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../config/targets.h"
#include "../../config/userconf.h"
#include "../../util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(c) do { if (!(c)) { \
	fprintf(stderr, "fuzz_userconf: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, #c); \
	abort(); } } while (0)

static void check_err(const char *err, const uint8_t *data, size_t size)
{
	long lines = 1, line;
	char *end;
	REQUIRE(strncmp(err, "cfg:", 4) == 0);
	for (const char *p = err; *p; p++)
		REQUIRE(*p >= 0x20 && *p < 0x7f);
	if (err[4] == ' ') {
		REQUIRE(memchr(data, '\0', size) != NULL);
		return;
	}
	line = strtol(err + 4, &end, 10);
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	REQUIRE(end > err + 4 && *end == ':' && line >= 1 && line <= lines);
}

static void check_entries(const struct uconf *c)
{
	for (int i = 0; i < c->n; i++) {
		const struct uconf_entry *e = &c->e[i];
		const struct uconf_key *k = uconf_dbtop_keys;
		while (k->key && k->key != e->key)
			k++;
		REQUIRE(k->key && k->kind == e->kind && e->value);
		for (const char *p = e->value; *p; p++)
			REQUIRE((unsigned char)*p >= 0x20 || *p == '\t');
		if (e->kind == UC_NAMED)
			REQUIRE(fleet_name_ok(e->name, strlen(e->name)));
		for (int j = 0; j < i; j++)
			REQUIRE(!(c->e[j].key == e->key && strcmp(c->e[j].name, e->name) == 0));
	}
}

/* The entries written back as a file. */
static void write_back(const struct uconf *c, struct strbuf *b)
{
	for (int i = 0; i < c->n; i++) {
		const struct uconf_entry *e = &c->e[i];
		if (e->kind == UC_SWITCH)
			sb_printf(b, "%s = %s\n", e->key, e->on ? "yes" : "no");
		else if (e->kind == UC_NAMED)
			sb_printf(b, "%s %s = \"%s\"\n", e->key, e->name, e->value);
		else
			sb_printf(b, "%s = \"%s\"\n", e->key, e->value);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uconf *c = xcalloc(2, sizeof *c);
	char err[600];
	uconf_init(&c[0]);
	int rc = uconf_parse(&c[0], "cfg", (const char *)data, size, uconf_dbtop_keys, err, sizeof err);
	REQUIRE(rc == 0 || rc == -1);
	if (rc < 0) {
		check_err(err, data, size);
		REQUIRE(!strchr(err, '\x01'));
	} else {
		struct strbuf b;
		bool quotes = false;
		check_entries(&c[0]);
		for (int i = 0; i < c[0].n; i++)
			quotes |= strchr(c[0].e[i].value, '"') != NULL;
		if (quotes) {
			uconf_free(&c[0]);
			free(c);
			return 0;
		}
		sb_init(&b);
		write_back(&c[0], &b);
		uconf_init(&c[1]);
		REQUIRE(uconf_parse(&c[1], "cfg", b.s ? b.s : "", b.len, uconf_dbtop_keys, err, sizeof err) == 0);
		REQUIRE(c[1].n == c[0].n);
		for (int i = 0; i < c[0].n; i++)
			REQUIRE(c[1].e[i].key == c[0].e[i].key && c[1].e[i].on == c[0].e[i].on &&
				strcmp(c[1].e[i].name, c[0].e[i].name) == 0 &&
				strcmp(c[1].e[i].value, c[0].e[i].value) == 0);
		uconf_free(&c[1]);
		sb_free(&b);
	}
	uconf_free(&c[0]);
	free(c);
	return 0;
}
