/* test_pending.c - what a PostgreSQL pg_reload_conf() would apply besides
 * dbtop's change: configuration-file values compared with the values in
 * force as PostgreSQL reads them (units, booleans, case), and the remark
 * built from the rows of the pending query. */
#include <stdio.h>
#include <string.h>

#include "../../sources/pg_map.h"
#include "../../util/util.h"
#include "tap.h"

static void test_same(void)
{
	/* memory: the file's unit against pg_settings' base unit */
	CHECK(pg_setting_same("4MB", "4096", "kB", "integer"), "same: 4MB = 4096 kB");
	CHECK(!pg_setting_same("7MB", "4096", "kB", "integer"), "same: 7MB != 4096 kB");
	CHECK(pg_setting_same("128MB", "16384", "8kB", "integer"), "same: 128MB = 16384 x 8kB");
	CHECK(pg_setting_same("16384", "16384", "8kB", "integer"), "same: no unit in the file: the parameter's unit");
	CHECK(pg_setting_same("1GB", "1024", "MB", "integer"), "same: 1GB = 1024 MB");
	CHECK(pg_setting_same(" 1 GB ", "1024", "MB", "integer"), "same: blanks around and before the unit");
	CHECK(!pg_setting_same("1gb", "1024", "MB", "integer"), "same: units are case-sensitive (1gb is not a value)");
	/* time */
	CHECK(pg_setting_same("200ms", "200", "ms", "integer"), "same: 200ms = 200 ms");
	CHECK(pg_setting_same("1s", "1000", "ms", "integer"), "same: 1s = 1000 ms");
	CHECK(!pg_setting_same("1s", "200", "ms", "integer"), "same: 1s != 200 ms");
	CHECK(pg_setting_same("1min", "60", "s", "integer"), "same: 1min = 60 s");
	CHECK(pg_setting_same("1.5s", "1500", "ms", "integer"), "same: 1.5s = 1500 ms (fractions)");
	CHECK(!pg_setting_same("5MB", "5", "s", "integer"), "same: a memory unit on a time parameter is not the value");
	CHECK(pg_setting_same("0x10", "16", NULL, "integer"), "same: hexadecimal integer");
	CHECK(pg_setting_same("0.5", "0.5", NULL, "real"), "same: real");
	CHECK(!pg_setting_same("0.25", "0.5", NULL, "real"), "same: real differs");
	/* booleans, PostgreSQL's spellings */
	CHECK(pg_setting_same("true", "on", NULL, "bool"), "same: true = on");
	CHECK(pg_setting_same("1", "on", NULL, "bool"), "same: 1 = on");
	CHECK(pg_setting_same("OFF", "off", NULL, "bool"), "same: OFF = off");
	CHECK(pg_setting_same("ye", "on", NULL, "bool"), "same: a prefix of yes");
	CHECK(!pg_setting_same("o", "on", NULL, "bool"), "same: 'o' is neither on nor off");
	CHECK(!pg_setting_same("off", "on", NULL, "bool"), "same: off != on");
	/* enums and strings */
	CHECK(pg_setting_same("ON", "on", NULL, "enum"), "same: enum case");
	CHECK(!pg_setting_same("remote_apply", "on", NULL, "enum"), "same: enum differs");
	CHECK(pg_setting_same("true", "on", NULL, "enum"), "same: an enum given a boolean spelling (synchronous_commit)");
	CHECK(!pg_setting_same("true", "off", NULL, "enum"), "same: ... and a different one");
	CHECK(pg_setting_same("iso, mdy", "ISO, MDY", NULL, "string"), "same: DateStyle written in lower case");
	CHECK(!pg_setting_same("'$user', public", "\"$user\", public", NULL, "string"), "same: strings differ");
	CHECK(!pg_setting_same(NULL, "on", NULL, "bool") && !pg_setting_same("on", NULL, NULL, "bool"),
	      "same: NULL is never the same");
}

/* Rows as pg_pending_sql() returns them. */
static void test_note(void)
{
	char out[TUNE_PENDING_LEN];
	const char *none[][PGF__COUNT] = {
		{"v", "/d/postgresql.conf", "12", "work_mem", "4MB", "4096", "kB", "integer", "4MB", NULL},
		{"v", "/d/postgresql.auto.conf", "3", "synchronous_commit", "off", "off", NULL, "enum", "off", NULL},
		{"a", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "20"},
	};
	pg_pending_note(out, sizeof out, (const char *const (*)[PGF__COUNT])none, 3);
	CHECK_STR(out, "", "note: the files say what is in force: nothing to say");

	const char *pend[][PGF__COUNT] = {
		{"v", "/d/postgresql.conf", "827", "work_mem", "7MB", "4096", "kB", "integer", "4MB", NULL},
		{"v", "/d/postgresql.conf", "12", "fsync", "on", "on", NULL, "bool", "on", NULL},
		{"r", "/d/postgresql.conf", "40", "TimeZone", NULL, "Etc/UTC", NULL, "string", "Etc/UTC", "GMT"},
		{"m", "/d/pg_hba.conf", NULL, "hba_file", NULL, NULL, NULL, NULL, NULL, NULL},
		{"a", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "20"},
	};
	pg_pending_note(out, sizeof out, (const char *const (*)[PGF__COUNT])pend, 5);
	CHECK(strstr(out, "pg_reload_conf()") != NULL, "note: says the reload applies them");
	CHECK(strstr(out, "work_mem = '7MB' (postgresql.conf:827; now 4MB)") != NULL, "note: a pending value, where, and now");
	CHECK(strstr(out, "fsync") == NULL, "note: a value in force is not named");
	CHECK(strstr(out, "TimeZone: its line is gone") && strstr(out, "resets it to GMT"), "note: a removed line");
	CHECK(strstr(out, "pg_hba.conf changed after the configuration was last loaded") != NULL, "note: pg_hba.conf edited");
	CHECK(strstr(out, "NONE") == NULL, "note: no error: nothing about a reload applying none");

	const char *bad[][PGF__COUNT] = {
		{"e", "/d/postgresql.conf", "829", "bogus_x", "1", NULL, NULL, NULL, NULL, "unrecognized configuration parameter"},
		{"e", "/d/postgresql.conf", "830", NULL, NULL, NULL, NULL, NULL, NULL, "syntax error"},
		{"h", NULL, "93", NULL, NULL, NULL, NULL, NULL, NULL, "invalid authentication method \"bogus\""},
		{"a", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "0"},
	};
	pg_pending_note(out, sizeof out, (const char *const (*)[PGF__COUNT])bad, 4);
	CHECK(strstr(out, "postgresql.conf:829 bogus_x = '1': unrecognized configuration parameter") != NULL,
	      "note: an error line, its file, line and PostgreSQL's words");
	CHECK(strstr(out, "postgresql.conf:830: syntax error") != NULL, "note: a syntax error without a name");
	CHECK(strstr(out, "pg_hba.conf line 93") && strstr(out, "keeps the old rules"), "note: a pg_hba.conf error");
	CHECK(strstr(out, "NONE") && strstr(out, "not take effect"), "note: none applied: the change would not take effect");

	/* many: the first few named, the rest counted; hostile text neutralised */
	const char *many[8][PGF__COUNT];
	for (int i = 0; i < 8; i++) {
		const char *row[PGF__COUNT] = {"v", "/d/postgresql.conf", "1", "work_mem", "9MB", "4096", "kB", "integer",
					       "4MB", NULL};
		memcpy(many[i], row, sizeof row);
	}
	many[0][PGF_VALUE] = "\x1b]2;HACKED\x07";
	many[0][PGF_TYPE] = "string";
	pg_pending_note(out, sizeof out, (const char *const (*)[PGF__COUNT])many, 8);
	CHECK(strstr(out, "and 4 more") != NULL, "note: 4 named, 4 more counted");
	CHECK(!strchr(out, '\x1b') && !strchr(out, '\x07'), "note: control characters neutralised");
	char small[40];
	pg_pending_note(small, sizeof small, (const char *const (*)[PGF__COUNT])pend, 5);
	CHECK(strlen(small) == sizeof small - 1, "note: cut to the buffer");
}

int main(void)
{
	test_same();
	test_note();
	return TAP_DONE();
}
