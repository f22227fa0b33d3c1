/* test_target.c - connection targets: mysql:// / mariadb:// URIs, PostgreSQL
 * URIs and key=value strings, engine guessing, MySQL option files and
 * environment precedence, password scrubbing and display labels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../config/dsn.h"
#include "../../util/util.h"
#include "tap.h"

static char tmpdir[256];
static char err[256];

/* Parse spec into a fresh target t; returns target_parse's result. */
static int parse(struct target *t, const char *spec)
{
	target_init(t);
	err[0] = '\0';
	return target_parse(t, spec, err, sizeof err);
}

static int streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* Create (or replace) the file path with text. */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		printf("not ok - cannot write %s\n", path);
		tap_failed++;
		return;
	}
	fputs(text, f);
	fclose(f);
}

static void path_in(char *buf, size_t len, const char *name)
{
	str_printf(buf, len, "%s/%s", tmpdir, name);
}

static void clear_env(void)
{
	unsetenv("MYSQL_PWD");
	unsetenv("MYSQL_HOST");
	unsetenv("MYSQL_TCP_PORT");
	unsetenv("MYSQL_UNIX_PORT");
	unsetenv("PGHOST");
	unsetenv("PGSERVICE");
	unsetenv("PGDATABASE");
}

static void test_mysql_uri(void)
{
	struct target t;

	CHECK(parse(&t, "mysql://u:p@h:3307/db") == 0, "uri: mysql://u:p@h:3307/db parses");
	CHECK(t.engine == ENGINE_MYSQL, "uri: mysql:// -> ENGINE_MYSQL");
	CHECK(streq(t.user, "u") && streq(t.password, "p"), "uri: user and password");
	CHECK(streq(t.host, "h") && t.port == 3307, "uri: host and port");
	CHECK(streq(t.database, "db"), "uri: database");
	target_free(&t);

	CHECK(parse(&t, "mariadb://maria@db.example.com") == 0 && t.engine == ENGINE_MYSQL &&
	      streq(t.user, "maria") && streq(t.host, "db.example.com") && t.port == 0 && !t.password &&
	      !t.database, "uri: mariadb:// without port, password or database");
	target_free(&t);

	CHECK(parse(&t, "mariadb://u:pw@h/") == 0 && !t.database, "uri: trailing slash, no database");
	target_free(&t);

	CHECK(parse(&t, "mysql://u:p%40ss@h/db") == 0 && streq(t.password, "p@ss"),
	      "uri: password p%40ss decodes to p@ss");
	target_free(&t);
	CHECK(parse(&t, "mysql://us%65r:a%3Ab@h") == 0 && streq(t.user, "user") && streq(t.password, "a:b"),
	      "uri: %-encoded user, ':' in password encoded as %3A");
	target_free(&t);
	CHECK(parse(&t, "mysql://u:a:b@h") == 0 && streq(t.user, "u") && streq(t.password, "a:b"),
	      "uri: raw ':' in password after the first one");
	target_free(&t);

	CHECK(parse(&t, "mysql://u@[::1]:3306/db") == 0 && streq(t.host, "::1") && t.port == 3306,
	      "uri: IPv6 [::1]:3306");
	target_free(&t);
	CHECK(parse(&t, "mysql://[fe80::1]/x") == 0 && streq(t.host, "fe80::1") && t.port == 0,
	      "uri: IPv6 without port");
	target_free(&t);
	CHECK(parse(&t, "mysql://[::1/db") == -1, "uri: unterminated [ -> -1");
	target_free(&t);

	CHECK(parse(&t, "mysql://root@localhost/db?socket=/tmp/x.sock") == 0 &&
	      streq(t.socket, "/tmp/x.sock") && streq(t.host, "localhost") && streq(t.database, "db"),
	      "uri: ?socket=");
	target_free(&t);
	CHECK(parse(&t, "mysql://root@/db?socket=%2Frun%2Fmysqld%2Fmysqld.sock") == 0 && !t.host &&
	      streq(t.socket, "/run/mysqld/mysqld.sock") && streq(t.user, "root"),
	      "uri: empty host with %-encoded socket");
	target_free(&t);
	CHECK(parse(&t, "mysql://h/db?connect_timeout=3") == 0 && t.connect_timeout == 3.0,
	      "uri: ?connect_timeout=3");
	target_free(&t);
	CHECK(parse(&t, "mysql://h/db?socket=/s.sock&connect_timeout=2.5") == 0 &&
	      t.connect_timeout == 2.5 && streq(t.socket, "/s.sock"), "uri: two parameters");
	target_free(&t);

	CHECK(parse(&t, "mysql://h/db?sslmode=required") == -1 && strstr(err, "sslmode"),
	      "uri: unknown parameter -> -1 naming it");
	target_free(&t);
	CHECK(parse(&t, "mysql://h/db?connect_timeout=0") == -1, "uri: connect_timeout=0 -> -1");
	target_free(&t);
	CHECK(parse(&t, "mysql://h/db?connect_timeout=abc") == -1, "uri: connect_timeout=abc -> -1");
	target_free(&t);
	CHECK(parse(&t, "mysql://h/db?socket") == -1, "uri: parameter without value -> -1");
	target_free(&t);
	CHECK(parse(&t, "mysql://h:0/db") == -1, "uri: port 0 -> -1");
	target_free(&t);
	CHECK(parse(&t, "mysql://h:70000/db") == -1, "uri: port 70000 -> -1");
	target_free(&t);
	CHECK(parse(&t, "mysql://h:abc/db") == -1, "uri: port abc -> -1");
	target_free(&t);
	CHECK(parse(&t, "mysql://h:/db") == -1, "uri: empty port -> -1");
	target_free(&t);
	CHECK(parse(&t, "mysql://h:65535") == 0 && t.port == 65535, "uri: port 65535 accepted");
	target_free(&t);
	CHECK(parse(&t, "mysql://u:p%4@h/db") == -1, "uri: truncated %-escape -> -1");
	target_free(&t);
	CHECK(parse(&t, "mysql://u:p%zz@h/db") == -1, "uri: non-hex %-escape -> -1");
	target_free(&t);
	CHECK(parse(&t, "mysql://u:p%00x@h/db") == -1, "uri: %00 -> -1");
	target_free(&t);
	CHECK(parse(&t, "mysql://h/a%2Fb") == -1, "uri: '/' in database -> -1");
	target_free(&t);

	CHECK(parse(&t, "redis://x") == -1 && strstr(err, "scheme"), "parse: unknown scheme redis:// -> -1");
	target_free(&t);
	CHECK(parse(&t, "just some garbage") == -1, "parse: plain garbage -> -1");
	target_free(&t);
	CHECK(parse(&t, "") == -1, "parse: empty target -> -1");
	target_free(&t);

	/* direct call */
	target_init(&t);
	CHECK(target_parse_mysql_uri(&t, "postgres://h/db", err, sizeof err) == -1,
	      "target_parse_mysql_uri: rejects postgres://");
	CHECK(target_parse_mysql_uri(&t, "mariadb://x:1/y", err, sizeof err) == 0 && t.port == 1,
	      "target_parse_mysql_uri: mariadb:// accepted");
	target_free(&t);

	/* flags first: fields already set are kept */
	target_init(&t);
	t.user = xstrdup("flaguser");
	t.password = xstrdup("flagpw");
	t.port = 4000;
	CHECK(target_parse(&t, "mysql://uriuser:uripw@urihost:3307/uridb", err, sizeof err) == 0,
	      "flags: URI parses over pre-set fields");
	CHECK(streq(t.user, "flaguser"), "flags: pre-set user survives a URI user");
	CHECK(streq(t.password, "flagpw"), "flags: pre-set password survives a URI password");
	CHECK(t.port == 4000, "flags: pre-set port survives a URI port");
	CHECK(streq(t.host, "urihost") && streq(t.database, "uridb"), "flags: unset fields taken from URI");
	target_free(&t);

	target_init(&t);
	t.engine = ENGINE_POSTGRESQL;
	CHECK(target_parse(&t, "mysql://h/db", err, sizeof err) == -1,
	      "flags: --engine postgresql contradicts mysql:// -> -1");
	target_free(&t);
	target_init(&t);
	t.engine = ENGINE_MYSQL;
	CHECK(target_parse(&t, "postgresql://h/db", err, sizeof err) == -1,
	      "flags: --engine mysql contradicts postgresql:// -> -1");
	target_free(&t);
	target_init(&t);
	t.engine = ENGINE_MYSQL;
	CHECK(target_parse(&t, "mysql://h/db", err, sizeof err) == 0, "flags: --engine mysql with mysql:// ok");
	target_free(&t);
}

static void test_pg_targets(void)
{
	struct target t;

	CHECK(parse(&t, "postgres://u:pw@h:5433/app") == 0 && t.engine == ENGINE_POSTGRESQL &&
	      streq(t.pg_conninfo, "postgres://u:pw@h:5433/app"), "pg: postgres:// kept as conninfo");
	target_free(&t);
	CHECK(parse(&t, "postgresql://h/app?sslmode=disable") == 0 && t.engine == ENGINE_POSTGRESQL &&
	      streq(t.pg_conninfo, "postgresql://h/app?sslmode=disable"), "pg: postgresql:// kept as conninfo");
	target_free(&t);
	CHECK(parse(&t, "host=/tmp port=5432 dbname=x") == 0 && t.engine == ENGINE_POSTGRESQL &&
	      streq(t.pg_conninfo, "host=/tmp port=5432 dbname=x"), "pg: libpq key=value string");
	target_free(&t);
	CHECK(parse(&t, "dbname = x") == 0 && t.engine == ENGINE_POSTGRESQL, "pg: key = value with spaces");
	target_free(&t);

	/* URIs libpq would reject by quoting the URI or the password: refused
	 * here, and the message quotes nothing */
	{
		static const char *const bad[] = {
			"postgresql://u:Sekr3t%zz@h/db", "postgresql://u:Sekr3t%0@h/db",
			"postgresql://u:Sekr3t%00x@h/db", "postgres://u:Sekr3t@[::1/db",
			"postgresql://u:Sekr3t@[]:5432/db", "postgresql://u:Sekr3t@[::1]x/db",
			"postgresql://u:Sek@r3t@h/db", "postgresql://u:Sekr3t@h:5432@x/db",
			"postgresql://u:Sekr3t@h1,[::1/db", "postgresql://h/db?password=Sekr3t%g1",
		};
		static const char *const good[] = {
			"postgresql://u:p%40ss@[::1]:5432,h2:5433/db?sslmode=disable",
			"postgresql:///db?host=%2Ftmp&password=Sekr%2F3t", "postgresql://",
			"postgresql://[fe80::1%25eth0]/db", "postgres://u@h,h2/db",
		};
		char n2[200];
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			int rc = parse(&t, bad[i]);
			str_printf(n2, sizeof n2, "pg: %s refused, message without the password ('%s')", bad[i], err);
			CHECK(rc == -1 && err[0] && !strstr(err, "Sekr") && !strstr(err, "r3t"), n2);
			target_free(&t);
		}
		for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
			str_printf(n2, sizeof n2, "pg: %s accepted", good[i]);
			CHECK(parse(&t, good[i]) == 0 && t.engine == ENGINE_POSTGRESQL, n2);
			target_free(&t);
		}
	}
}

static void test_guess(void)
{
	struct target t;

	clear_env();
	target_init(&t);
	t.port = 3306;
	CHECK(target_guess_engine(&t, err, sizeof err) == 0 && t.engine == ENGINE_MYSQL,
	      "guess: port 3306 -> mysql");
	target_free(&t);
	target_init(&t);
	t.port = 5432;
	CHECK(target_guess_engine(&t, err, sizeof err) == 0 && t.engine == ENGINE_POSTGRESQL,
	      "guess: port 5432 -> postgresql");
	target_free(&t);
	target_init(&t);
	t.socket = xstrdup("/run/mysqld/mysqld.sock");
	CHECK(target_guess_engine(&t, err, sizeof err) == 0 && t.engine == ENGINE_MYSQL,
	      "guess: /run/mysqld/mysqld.sock -> mysql");
	target_free(&t);
	target_init(&t);
	t.socket = xstrdup("/var/run/postgresql/.s.PGSQL.5432");
	CHECK(target_guess_engine(&t, err, sizeof err) == 0 && t.engine == ENGINE_POSTGRESQL,
	      "guess: .s.PGSQL socket -> postgresql");
	target_free(&t);
	target_init(&t);
	CHECK(target_guess_engine(&t, err, sizeof err) == -1 && t.engine == ENGINE_UNKNOWN && err[0],
	      "guess: nothing to go by -> -1 with a message");
	target_free(&t);
	setenv("PGHOST", "/tmp", 1);
	target_init(&t);
	CHECK(target_guess_engine(&t, err, sizeof err) == 0 && t.engine == ENGINE_POSTGRESQL,
	      "guess: PGHOST set -> postgresql");
	target_free(&t);
	unsetenv("PGHOST");
	setenv("PGDATABASE", "app", 1);
	target_init(&t);
	CHECK(target_guess_engine(&t, err, sizeof err) == 0 && t.engine == ENGINE_POSTGRESQL,
	      "guess: PGDATABASE set -> postgresql");
	target_free(&t);
	unsetenv("PGDATABASE");
	target_init(&t);
	t.engine = ENGINE_MYSQL;
	t.port = 5432;
	CHECK(target_guess_engine(&t, err, sizeof err) == 0 && t.engine == ENGINE_MYSQL,
	      "guess: an engine already set is kept");
	target_free(&t);
}

static void test_option_files(void)
{
	struct target t;
	char main_cnf[512], inc_cnf[512], dir[512], p[600], spec[700];

	clear_env();
	path_in(main_cnf, sizeof main_cnf, "main.cnf");
	path_in(inc_cnf, sizeof inc_cnf, "inc.cnf");
	path_in(dir, sizeof dir, "conf.d");
	mkdir(dir, 0700);

	write_file(inc_cnf, "[client]\nsocket = /tmp/included.sock\n");
	str_printf(p, sizeof p, "%s/10-a.cnf", dir);
	write_file(p, "[client]\ndatabase = fromdir\n");
	str_printf(p, sizeof p, "%s/20-b.txt", dir);
	write_file(p, "[client]\nuser = fromtxt\nport = 9999\n");
	str_printf(p, sizeof p, "%s/30-c.cnf", dir);
	write_file(p, "[mysqld]\nport = 9998\n[client]\nhost = dirhost\n");

	str_printf(spec, sizeof spec,
		   "# leading comment\n"
		   "; another comment\n"
		   "[mysqld]\n"
		   "user = serveruser\n"
		   "port = 1111\n"
		   "[client]\n"
		   "user = clientuser\n"
		   "password = \"se cret\\\\x\\\"q\"\n"
		   "port=3307\n"
		   "default-character-set = utf8mb4\n"
		   "ssl_mode = DISABLED\n"
		   "skip-auto-rehash\n"
		   "!include %s\n"
		   "!includedir %s\n"
		   "[dbtop]\n"
		   "user = dbtopuser   # trailing comment\n",
		   inc_cnf, dir);
	write_file(main_cnf, spec);

	target_init(&t);
	CHECK(target_read_option_file(&t, main_cnf, false, err, sizeof err) == 0, "optfile: reads");
	CHECK(streq(t.user, "dbtopuser"), "optfile: [dbtop] after [client] wins, trailing # comment cut");
	CHECK(streq(t.password, "se cret\\x\"q"), "optfile: quoted value with space and escapes");
	CHECK(t.port == 3307, "optfile: port=3307 kept: [mysqld] port and a non-.cnf file in the dir ignored");
	CHECK(streq(t.socket, "/tmp/included.sock"), "optfile: !include read");
	CHECK(streq(t.database, "fromdir"), "optfile: !includedir reads *.cnf");
	CHECK(streq(t.host, "dirhost"), "optfile: !includedir reads every .cnf, [mysqld] in it ignored");
	target_free(&t);

	/* keep_set */
	target_init(&t);
	t.user = xstrdup("kept");
	t.port = 4444;
	CHECK(target_read_option_file(&t, main_cnf, true, err, sizeof err) == 0 && streq(t.user, "kept") &&
	      t.port == 4444 && streq(t.socket, "/tmp/included.sock"),
	      "optfile: keep_set keeps caller's fields, fills the others");
	target_free(&t);

	target_init(&t);
	path_in(p, sizeof p, "does-not-exist.cnf");
	CHECK(target_read_option_file(&t, p, false, err, sizeof err) == -1 && strstr(err, "does-not-exist"),
	      "optfile: missing file -> -1 naming it");
	target_free(&t);

	/* quoting and comments */
	path_in(p, sizeof p, "quotes.cnf");
	write_file(p, "[client]\r\n"
		      "user = 'single quoted'\r\n"
		      "host = \"a#b\"\r\n"
		      "password = 'x\\ty'\r\n");
	target_init(&t);
	CHECK(target_read_option_file(&t, p, false, err, sizeof err) == 0, "optfile: CRLF file reads");
	CHECK(streq(t.user, "single quoted"), "optfile: single-quoted value");
	CHECK(streq(t.host, "a#b"), "optfile: '#' inside quotes kept");
	CHECK(streq(t.password, "x\ty"), "optfile: \\t escape in quotes");
	target_free(&t);

	path_in(p, sizeof p, "qcomment.cnf");
	write_file(p, "[client]\npassword = \"se cret\"   # the password\n");
	target_init(&t);
	target_read_option_file(&t, p, false, err, sizeof err);
	CHECK_STR(t.password, "se cret", "optfile: quoted value followed by a # comment");
	target_free(&t);

	/* [dbtop] wins over [client] whatever their order in the file */
	path_in(p, sizeof p, "order.cnf");
	write_file(p, "[dbtop]\nuser = fromdbtop\n[client]\nuser = fromclient\nhost = clienthost\n");
	target_init(&t);
	t.defaults_file = xstrdup(p);
	CHECK(target_apply_mysql_defaults(&t, err, sizeof err) == 0, "defaults: --defaults-file read");
	CHECK(streq(t.host, "clienthost"), "defaults: [client] value used when [dbtop] lacks it");
	CHECK_STR(t.user, "fromdbtop", "defaults: [dbtop] wins over a later [client]");
	target_free(&t);

	/* ~/.my.cnf via HOME */
	write_file(p, "[client]\nuser = homeuser\n[dbtop]\npassword = homepw\n");
	{
		char home_cnf[600];
		str_printf(home_cnf, sizeof home_cnf, "%s/.my.cnf", tmpdir);
		write_file(home_cnf, "[client]\nuser = homeuser\n[dbtop]\npassword = homepw\n[mysql]\nhost = nothere\n");
		setenv("HOME", tmpdir, 1);
		target_init(&t);
		CHECK(target_apply_mysql_defaults(&t, err, sizeof err) == 0, "defaults: ~/.my.cnf read via HOME");
		CHECK(streq(t.user, "homeuser") && streq(t.password, "homepw"),
		      "defaults: [client] and [dbtop] of ~/.my.cnf");
		CHECK(!streq(t.host, "nothere"), "defaults: [mysql] group ignored");
		target_free(&t);
		unlink(home_cnf);
	}

	target_init(&t);
	path_in(p, sizeof p, "missing-defaults.cnf");
	t.defaults_file = xstrdup(p);
	CHECK(target_apply_mysql_defaults(&t, err, sizeof err) == -1, "defaults: missing --defaults-file -> -1");
	target_free(&t);

	/* precedence: URI/flag > option file > environment */
	path_in(p, sizeof p, "prec.cnf");
	write_file(p, "[client]\nuser = fileuser\npassword = filepw\nhost = filehost\nport = 3310\n");
	setenv("MYSQL_PWD", "envpw", 1);
	setenv("MYSQL_HOST", "envhost", 1);
	setenv("MYSQL_TCP_PORT", "3999", 1);
	setenv("MYSQL_UNIX_PORT", "/tmp/env.sock", 1);
	target_init(&t);
	t.defaults_file = xstrdup(p);
	CHECK(target_parse(&t, "mysql://uriuser@/db", err, sizeof err) == 0, "precedence: URI parses");
	CHECK(target_apply_mysql_defaults(&t, err, sizeof err) == 0, "precedence: defaults applied");
	CHECK(streq(t.user, "uriuser"), "precedence: URI user beats option file");
	CHECK(streq(t.password, "filepw"), "precedence: option file password beats MYSQL_PWD");
	CHECK(streq(t.host, "filehost"), "precedence: option file host beats MYSQL_HOST");
	CHECK(t.port == 3310, "precedence: option file port beats MYSQL_TCP_PORT");
	CHECK(streq(t.socket, "/tmp/env.sock"), "precedence: MYSQL_UNIX_PORT fills an unset socket");
	target_free(&t);

	path_in(p, sizeof p, "empty.cnf");
	write_file(p, "");
	target_init(&t);
	t.defaults_file = xstrdup(p);
	t.password = xstrdup("flagpw");
	CHECK(target_apply_mysql_defaults(&t, err, sizeof err) == 0, "env: defaults with empty file");
	CHECK(streq(t.password, "flagpw"), "env: flag password beats MYSQL_PWD");
	CHECK(streq(t.host, "envhost"), "env: MYSQL_HOST used when nothing else");
	CHECK(t.port == 3999, "env: MYSQL_TCP_PORT used when nothing else");
	target_free(&t);

	clear_env();
	target_init(&t);
	t.defaults_file = xstrdup(p);
	CHECK(target_apply_mysql_defaults(&t, err, sizeof err) == 0 && !t.password && !t.host && t.port == 0,
	      "env: unset environment leaves fields unset");
	target_free(&t);
}

/* TLS: --ssl-mode names, mysql:// ?ssl-mode=&ssl-ca=, option file keys
 * and their precedence. */
static void test_ssl(void)
{
	struct target t;
	char p[600];
	static const struct {
		const char *in;
		enum ssl_mode want;
	} modes[] = {
		{"DISABLED", SSL_MODE_DISABLED}, {"disable", SSL_MODE_DISABLED},
		{"PREFERRED", SSL_MODE_PREFERRED}, {"prefer", SSL_MODE_PREFERRED},
		{"Required", SSL_MODE_REQUIRED}, {"require", SSL_MODE_REQUIRED},
		{"VERIFY_CA", SSL_MODE_VERIFY_CA}, {"verify-ca", SSL_MODE_VERIFY_CA},
		{"VERIFY_IDENTITY", SSL_MODE_VERIFY_IDENTITY}, {"verify-identity", SSL_MODE_VERIFY_IDENTITY},
		{"verify-full", SSL_MODE_VERIFY_IDENTITY}, {"VERIFY_FULL", SSL_MODE_VERIFY_IDENTITY},
		{"", SSL_MODE_BAD}, {"allow", SSL_MODE_BAD}, {"verify", SSL_MODE_BAD},
		{"REQUIRED ", SSL_MODE_BAD}, {"verify_ca_and_then_some_more_text", SSL_MODE_BAD},
	};
	size_t i;
	int good = 0;

	clear_env();
	for (i = 0; i < sizeof modes / sizeof modes[0]; i++)
		good += target_ssl_mode_parse(modes[i].in) == modes[i].want;
	CHECK(good == (int)(sizeof modes / sizeof modes[0]),
	      "ssl-mode: MySQL and libpq names in any case, '-' or '_'; others refused");
	CHECK(target_ssl_mode_parse(NULL) == SSL_MODE_BAD, "ssl-mode: NULL refused");
	CHECK(streq(target_ssl_mode_name(SSL_MODE_VERIFY_IDENTITY, ENGINE_POSTGRESQL), "verify-full") &&
	      streq(target_ssl_mode_name(SSL_MODE_VERIFY_IDENTITY, ENGINE_MYSQL), "VERIFY_IDENTITY") &&
	      streq(target_ssl_mode_name(SSL_MODE_DISABLED, ENGINE_POSTGRESQL), "disable") &&
	      streq(target_ssl_mode_name(SSL_MODE_VERIFY_CA, ENGINE_POSTGRESQL), "verify-ca") &&
	      !target_ssl_mode_name(SSL_MODE_UNSET, ENGINE_MYSQL),
	      "ssl-mode: names per engine (libpq's sslmode values for PostgreSQL)");

	target_init(&t);
	CHECK(target_ssl_mode_effective(&t) == SSL_MODE_UNSET, "ssl-mode: unset by default (library default)");
	t.ssl_ca = xstrdup("/ca.pem");
	CHECK(target_ssl_mode_effective(&t) == SSL_MODE_VERIFY_CA, "ssl-mode: a CA alone means VERIFY_CA");
	t.ssl_mode = SSL_MODE_REQUIRED;
	CHECK(target_ssl_mode_effective(&t) == SSL_MODE_REQUIRED, "ssl-mode: a mode given wins over the CA rule");
	target_free(&t);

	CHECK(parse(&t, "mysql://u@h/db?ssl-mode=verify_identity&ssl-ca=/etc/c%20a.pem&ssl_cert=/c.pem"
		  "&ssl-key=/k.pem") == 0 &&
	      t.ssl_mode == SSL_MODE_VERIFY_IDENTITY && streq(t.ssl_ca, "/etc/c a.pem") &&
	      streq(t.ssl_cert, "/c.pem") && streq(t.ssl_key, "/k.pem") && streq(t.database, "db"),
	      "mysql URI: ?ssl-mode=, ssl-ca (%-decoded), ssl_cert, ssl-key");
	target_free(&t);
	CHECK(parse(&t, "mysql://u@h/?ssl_mode=REQUIRED") == 0 && t.ssl_mode == SSL_MODE_REQUIRED,
	      "mysql URI: ?ssl_mode= also");
	target_free(&t);
	CHECK(parse(&t, "mysql://u:pw@h/?ssl-mode=sometimes") == -1 && strstr(err, "ssl-mode") &&
	      !strstr(err, "sometimes") && !strstr(err, "pw"),
	      "mysql URI: bad ssl-mode refused, nothing quoted");
	target_free(&t);
	CHECK(parse(&t, "mysql://u@h/?ssl-ca=") == -1 && strstr(err, "empty ssl-ca"), "mysql URI: empty ssl-ca refused");
	target_free(&t);
	CHECK(parse(&t, "mysql://u@h/?ssl-ca=%zz") == -1, "mysql URI: bad %-escape in ssl-ca refused");
	target_free(&t);
	target_init(&t);
	t.ssl_mode = SSL_MODE_DISABLED;
	t.ssl_ca = xstrdup("/flag.pem");
	CHECK(target_parse(&t, "mysql://h/?ssl-mode=REQUIRED&ssl-ca=/uri.pem", err, sizeof err) == 0 &&
	      t.ssl_mode == SSL_MODE_DISABLED && streq(t.ssl_ca, "/flag.pem"),
	      "mysql URI: flags given before are kept (ssl-mode, ssl-ca)");
	target_free(&t);
	CHECK(parse(&t, "mysql://h/?sslmode=REQUIRED") == -1 && strstr(err, "ssl-mode"),
	      "mysql URI: unknown parameter message lists ssl-mode");
	target_free(&t);

	/* option files: [client] ssl-mode / ssl-ca, [dbtop] wins, flags win */
	path_in(p, sizeof p, "ssl.cnf");
	write_file(p, "[client]\nssl-mode = VERIFY_IDENTITY\nssl-ca = /client-ca.pem\nssl_cert = /cert.pem\n"
		      "ssl-key = \"/key file.pem\"\n[mysqld]\nssl-ca = /server-ca.pem\n");
	target_init(&t);
	t.defaults_file = xstrdup(p);
	CHECK(target_apply_mysql_defaults(&t, err, sizeof err) == 0 && t.ssl_mode == SSL_MODE_VERIFY_IDENTITY &&
	      streq(t.ssl_ca, "/client-ca.pem") && streq(t.ssl_cert, "/cert.pem") && streq(t.ssl_key, "/key file.pem"),
	      "optfile: [client] ssl-mode, ssl-ca, ssl_cert, ssl-key read; [mysqld] ignored");
	target_free(&t);
	target_init(&t);
	t.defaults_file = xstrdup(p);
	t.ssl_mode = SSL_MODE_REQUIRED;
	t.ssl_ca = xstrdup("/flag-ca.pem");
	CHECK(target_apply_mysql_defaults(&t, err, sizeof err) == 0 && t.ssl_mode == SSL_MODE_REQUIRED &&
	      streq(t.ssl_ca, "/flag-ca.pem") && streq(t.ssl_cert, "/cert.pem"),
	      "optfile: --ssl-mode and --ssl-ca beat the option file");
	target_free(&t);

	write_file(p, "[client]\nssl-mode = sometimes\n[dbtop]\nssl-mode = REQUIRED\n");
	target_init(&t);
	t.defaults_file = xstrdup(p);
	CHECK(target_apply_mysql_defaults(&t, err, sizeof err) == 0 && t.ssl_mode == SSL_MODE_REQUIRED,
	      "optfile: [dbtop] ssl-mode wins over a bad [client] one");
	target_free(&t);
	write_file(p, "[client]\nssl-mode = sometimes\n");
	target_init(&t);
	t.defaults_file = xstrdup(p);
	CHECK(target_apply_mysql_defaults(&t, err, sizeof err) == -1 && strstr(err, "ssl-mode"),
	      "optfile: a bad ssl-mode is refused");
	target_free(&t);
	target_init(&t);
	t.defaults_file = xstrdup(p);
	t.ssl_mode = SSL_MODE_PREFERRED;
	CHECK(target_apply_mysql_defaults(&t, err, sizeof err) == 0 && t.ssl_mode == SSL_MODE_PREFERRED,
	      "optfile: a bad ssl-mode does not matter when --ssl-mode is given");
	target_free(&t);
	unlink(p);
}

/* Scrub a copy of in; check result and that secret is gone. */
static void check_scrub(const char *in, const char *want, const char *secret, const char *name)
{
	char buf[256], n2[200];
	bool r;
	str_copy(buf, sizeof buf, in);
	r = target_scrub_arg(buf);
	CHECK_STR(buf, want, name);
	str_printf(n2, sizeof n2, "%s (returns true, secret gone)", name);
	CHECK(r && !strstr(buf, secret) && strlen(buf) == strlen(in), n2);
}

static void test_scrub(void)
{
	char buf[128];

	check_scrub("mysql://u:secret@h/db", "mysql://u:******@h/db", "secret", "scrub: mysql URI password");
	check_scrub("postgresql://u:secret@h/db?password=x2&sslmode=disable",
		    "postgresql://u:******@h/db?password=**&sslmode=disable", "secret",
		    "scrub: pg URI userinfo and ?password=");
	check_scrub("postgresql://u@h/db?sslmode=disable&password=hunter2",
		    "postgresql://u@h/db?sslmode=disable&password=*******", "hunter2",
		    "scrub: pg URI &password=");
	check_scrub("host=h password=secret user=u", "host=h password=****** user=u", "secret",
		    "scrub: libpq password=");
	check_scrub("host=h password='se cret' user=u", "host=h password='*******' user=u", "se cret",
		    "scrub: libpq quoted password");
	check_scrub("password = secret", "password = ******", "secret", "scrub: libpq password with spaces");
	check_scrub("host=h password=se\\ cret user=u", "host=h password=******** user=u", "cret",
		    "scrub: libpq unquoted password with an escaped space");
	check_scrub("host=h password='se\\'cret' user=u", "host=h password='********' user=u", "cret",
		    "scrub: libpq quoted password with an escaped quote");
	check_scrub("postgresql://u@h/db?pass%77ord=hunter2", "postgresql://u@h/db?pass%77ord=*******", "hunter2",
		    "scrub: pg URI %-encoded password keyword");
	check_scrub("postgresql://u:p%40ss@h/db", "postgresql://u:******@h/db", "p%40ss",
		    "scrub: pg URI %-escaped password");
	/* NAME=TARGET: the target after a name is scrubbed as one */
	check_scrub("pg3=password=X2sec host=h", "pg3=password=***** host=h", "X2sec", "scrub: NAME= then password first");
	check_scrub("my_1=mysql://adm:X3sec@127.0.0.1:13306/", "my_1=mysql://adm:*****@127.0.0.1:13306/", "X3sec",
		    "scrub: NAME= then a mysql URI");
	check_scrub("pg1=postgresql://postgres:X1sec@h/db", "pg1=postgresql://postgres:*****@h/db", "X1sec",
		    "scrub: NAME= then a pg URI");
	check_scrub("pg.a-1 = postgresql://u:X4sec@h", "pg.a-1 = postgresql://u:*****@h", "X4sec",
		    "scrub: NAME = TARGET with blanks");
	check_scrub("pg2=host=h password=X5sec", "pg2=host=h password=*****", "X5sec",
		    "scrub: NAME= then key=value");
	check_scrub("password=SECRET6== host=h", "password=********* host=h", "SECRET6",
		    "scrub: password first, '=' in its value");
	check_scrub("--password=Sekr3t", "--password=******", "Sekr3t", "scrub: --password=VALUE");
	check_scrub("--pass=Sekr3t", "--pass=******", "Sekr3t", "scrub: --pass=VALUE (abbreviation)");

	str_copy(buf, sizeof buf, "mysql://u@h/db");
	CHECK(!target_scrub_arg(buf) && strcmp(buf, "mysql://u@h/db") == 0, "scrub: URI without password unchanged");
	str_copy(buf, sizeof buf, "host=h user=u dbname=password");
	CHECK(!target_scrub_arg(buf) && strcmp(buf, "host=h user=u dbname=password") == 0,
	      "scrub: 'password' as a value is not a keyword");
	str_copy(buf, sizeof buf, "--interval=2");
	CHECK(!target_scrub_arg(buf) && strcmp(buf, "--interval=2") == 0, "scrub: unrelated arg unchanged");
}

static void test_label(void)
{
	struct target t;

	clear_env();
	target_init(&t);
	t.engine = ENGINE_MYSQL;
	t.host = xstrdup("db1");
	t.port = 3307;
	target_make_label(&t);
	CHECK_STR(t.label, "db1:3307", "label: mysql host:port");
	target_free(&t);

	target_init(&t);
	t.engine = ENGINE_MYSQL;
	t.host = xstrdup("localhost");
	t.socket = xstrdup("/run/mysqld/mysqld.sock");
	target_make_label(&t);
	CHECK_STR(t.label, "/run/mysqld/mysqld.sock", "label: mysql localhost socket");
	target_free(&t);

	target_init(&t);
	t.engine = ENGINE_MYSQL;
	target_make_label(&t);
	CHECK_STR(t.label, "localhost", "label: mysql default");
	target_free(&t);

	CHECK(parse(&t, "postgresql://u:secret@pg.example.com:5433/app?sslmode=disable") == 0,
	      "label: pg URI parses");
	target_make_label(&t);
	CHECK_STR(t.label, "pg.example.com:5433", "label: pg URI host:port");
	CHECK(!strstr(t.label, "secret"), "label: pg URI has no password");
	target_free(&t);

	CHECK(parse(&t, "host=/tmp port=5432 dbname=x") == 0, "label: libpq string parses");
	target_make_label(&t);
	CHECK_STR(t.label, "/tmp:5432", "label: libpq host= and port=");
	target_free(&t);

	CHECK(parse(&t, "password=ghost=xyz host=db") == 0, "label: libpq string with tricky password parses");
	target_make_label(&t);
	CHECK(!strstr(t.label, "xyz"), "label: no password bytes from a password containing 'host='");
	CHECK_STR(t.label, "db", "label: host= found as a keyword, not inside a value");
	target_free(&t);

	CHECK(parse(&t, "mysql://u:secret@h\x1b[2J/db") == 0, "label: URI with ESC in host parses");
	target_make_label(&t);
	CHECK(!strchr(t.label, '\x1b'), "label: sanitised");
	target_free(&t);
}

/* World-writable option files are not read (the mysql client ignores them
 * with a warning): alone, through !include and through !includedir. */
static void test_world_writable(void)
{
	struct target t;
	char ww[512], top[512], dir[512], indir[600], spec[1400];

	clear_env();
	path_in(ww, sizeof ww, "ww.cnf");
	path_in(top, sizeof top, "ww-top.cnf");
	path_in(dir, sizeof dir, "ww.d");
	mkdir(dir, 0700);
	str_printf(indir, sizeof indir, "%s/ww-dir.cnf", dir);
	write_file(ww, "[client]\npassword = evil\nhost = evil.example\n");
	write_file(indir, "[client]\nuser = eviluser\n");
	chmod(ww, 0666);
	chmod(indir, 0666);

	target_init(&t);
	CHECK(target_read_option_file(&t, ww, false, err, sizeof err) == OPTION_FILE_UNSAFE,
	      "world-writable: the file alone -> OPTION_FILE_UNSAFE");
	CHECK(strstr(err, "World-writable config file") && strstr(err, "ww.cnf") && strstr(err, "is ignored"),
	      "world-writable: the mysql client's warning, naming the file");
	CHECK(!t.password && !t.host, "world-writable: nothing read from it");
	target_free(&t);

	str_printf(spec, sizeof spec, "[client]\nuser = gooduser\n!include %s\n!includedir %s\nport = 3310\n", ww, dir);
	write_file(top, spec);
	chmod(top, 0600);
	target_init(&t);
	CHECK(target_read_option_file(&t, top, false, err, sizeof err) == 0, "world-writable: a safe file including them reads");
	CHECK(!t.password && !t.host, "world-writable: an !include of one is skipped");
	CHECK(streq(t.user, "gooduser"), "world-writable: an !includedir file is skipped");
	CHECK(t.port == 3310, "world-writable: the lines after the includes are read");
	target_free(&t);

	/* --defaults-file: refused */
	target_init(&t);
	t.defaults_file = xstrdup(ww);
	CHECK(target_apply_mysql_defaults(&t, err, sizeof err) == -1 && strstr(err, "World-writable") &&
	      strstr(err, "--defaults-file refused"), "world-writable --defaults-file: refused with the reason");
	target_free(&t);

	/* the same file, no longer world-writable: read */
	chmod(ww, 0644);
	target_init(&t);
	CHECK(target_read_option_file(&t, ww, false, err, sizeof err) == 0 && streq(t.password, "evil"),
	      "world-writable: read again once chmod o-w");
	target_free(&t);

	unlink(ww);
	unlink(top);
	unlink(indir);
	rmdir(dir);
}

/* Remove tmpdir and what the test put there. */
static void cleanup(void)
{
	static const char *files[] = {
		"main.cnf", "inc.cnf", "conf.d/10-a.cnf", "conf.d/20-b.txt", "conf.d/30-c.cnf",
		"quotes.cnf", "qcomment.cnf", "order.cnf", "prec.cnf", "empty.cnf", ".my.cnf",
	};
	char p[600];
	size_t i;
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		path_in(p, sizeof p, files[i]);
		unlink(p);
	}
	path_in(p, sizeof p, "conf.d");
	rmdir(p);
	rmdir(tmpdir);
}

int main(void)
{
	str_copy(tmpdir, sizeof tmpdir, "/tmp/dbtop-test-target-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		printf("not ok - mkdtemp\n");
		return 1;
	}
	test_mysql_uri();
	test_pg_targets();
	test_guess();
	test_option_files();
	test_world_writable();
	test_ssl();
	test_scrub();
	test_label();
	cleanup();
	return TAP_DONE();
}
