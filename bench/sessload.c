/* sessload.c - hold many sessions open on one server from one process, for
 * bench/sessions.sh: TOTAL connections, of which ACTIVE run short bounded
 * statements in a loop (each in its own thread: a sleep of 0.1-0.5 s, or a
 * cheap catalogue count, alternately), TRX sit idle inside a transaction that
 * wrote one row, and the rest stay idle. Everything is bounded: the process
 * ends after SECONDS (or on SIGTERM / SIGINT), rolls back, closes every
 * connection and exits; each session also carries a server-side timeout
 * (PostgreSQL idle_session_timeout / idle_in_transaction_session_timeout,
 * MariaDB wait_timeout / idle_transaction_timeout) in case the process dies.
 *
 *   sessload pg      -n TOTAL -a ACTIVE -t TRX -s SECONDS -c CONNINFO
 *   sessload mariadb -n TOTAL -a ACTIVE -t TRX -s SECONDS -S SOCKET -u USER -p PW -d DB
 *
 * Prints "connected N" on stdout once all sessions are open (or as many as
 * the server accepted, with the first error on stderr), then "done" at the end.
 * Built by bench/sessions.sh: cc -O2 -pthread sessload.c -lpq -lmariadb. */
#define _GNU_SOURCE
#include <errno.h>
#include <libpq-fe.h>
#include <mysql.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_sig;
static atomic_int stop_flag;
static int is_pg;
static int total, nactive, ntrx, seconds = 60;
static const char *conninfo, *my_sock, *my_user = "root", *my_pw = "", *my_db = "dbtop_test";
static atomic_long stmts;

static void on_sig(int s)
{
	(void)s;
	stop_sig = 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A PostgreSQL session with the server-side bounds set at start-up. */
static PGconn *pg_open(void)
{
	char ci[1024];
	PGconn *c;

	snprintf(ci, sizeof ci, "%s application_name=sessload options='-c idle_session_timeout=%ds "
		 "-c idle_in_transaction_session_timeout=%ds -c statement_timeout=5s'",
		 conninfo, seconds + 60, seconds + 60);
	c = PQconnectdb(ci);
	if (PQstatus(c) != CONNECTION_OK) {
		fprintf(stderr, "sessload: %s", PQerrorMessage(c));
		PQfinish(c);
		return NULL;
	}
	return c;
}

/* A MariaDB session with the server-side bounds as its init command. */
static MYSQL *my_open(void)
{
	char init[256];
	MYSQL *m = mysql_init(NULL);
	unsigned to = 10;

	if (!m)
		return NULL;
	snprintf(init, sizeof init, "SET SESSION wait_timeout = %d, idle_transaction_timeout = %d, "
		 "max_statement_time = 5", seconds + 60, seconds + 60);
	mysql_options(m, MYSQL_INIT_COMMAND, init);
	mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &to);
	if (!mysql_real_connect(m, NULL, my_user, my_pw, my_db, 0, my_sock, 0)) {
		fprintf(stderr, "sessload: %s\n", mysql_error(m));
		mysql_close(m);
		return NULL;
	}
	return m;
}

/* Run one statement, discard its result; 0 on success. */
static int run(void *conn, const char *sql)
{
	if (is_pg) {
		PGresult *r = PQexec(conn, sql);
		int ok = PQresultStatus(r) == PGRES_TUPLES_OK || PQresultStatus(r) == PGRES_COMMAND_OK;
		if (!ok)
			fprintf(stderr, "sessload: %s: %s", sql, PQerrorMessage(conn));
		PQclear(r);
		atomic_fetch_add(&stmts, 1);
		return ok ? 0 : -1;
	}
	if (mysql_query(conn, sql)) {
		fprintf(stderr, "sessload: %s: %s\n", sql, mysql_error(conn));
		return -1;
	}
	MYSQL_RES *res = mysql_store_result(conn);
	if (res)
		mysql_free_result(res);
	atomic_fetch_add(&stmts, 1);
	return 0;
}

static void close_conn(void *c)
{
	if (!c)
		return;
	if (is_pg)
		PQfinish(c);
	else
		mysql_close(c);
}

/* An active session: bounded statements until told to stop. */
static void *active_main(void *arg)
{
	void *c = arg;
	unsigned seed = (unsigned)(uintptr_t)arg;
	char sql[128];
	int k = 0;

	if (!is_pg)
		mysql_thread_init();
	while (!atomic_load(&stop_flag)) {
		double s = 0.1 + (rand_r(&seed) % 5) / 10.0;
		if (k++ % 2 == 0)
			snprintf(sql, sizeof sql, is_pg ? "SELECT pg_sleep(%.1f)" : "SELECT SLEEP(%.1f)", s);
		else
			snprintf(sql, sizeof sql, is_pg ? "SELECT count(*) FROM pg_class" :
				 "SELECT COUNT(*) FROM information_schema.SCHEMATA");
		if (run(c, sql)) {
			usleep(200000);
			continue;
		}
	}
	if (!is_pg)
		mysql_thread_end();
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: sessload pg|mariadb -n TOTAL -a ACTIVE -t TRX -s SECONDS "
		"(-c CONNINFO | -S SOCKET -u USER -p PW -d DB)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	void **conns;
	pthread_t *th;
	int opt, n = 0, i, nth = 0;
	double deadline;

	if (argc < 2)
		usage();
	is_pg = !strcmp(argv[1], "pg");
	if (!is_pg && strcmp(argv[1], "mariadb"))
		usage();
	optind = 2;
	while ((opt = getopt(argc, argv, "n:a:t:s:c:S:u:p:d:")) != -1) {
		switch (opt) {
		case 'n': total = atoi(optarg); break;
		case 'a': nactive = atoi(optarg); break;
		case 't': ntrx = atoi(optarg); break;
		case 's': seconds = atoi(optarg); break;
		case 'c': conninfo = optarg; break;
		case 'S': my_sock = optarg; break;
		case 'u': my_user = optarg; break;
		case 'p': my_pw = optarg; break;
		case 'd': my_db = optarg; break;
		default: usage();
		}
	}
	if (total < 1 || total > 20000 || nactive < 0 || ntrx < 0 || nactive + ntrx > total ||
	    seconds < 1 || seconds > 3600 || (is_pg && !conninfo) || (!is_pg && !my_sock))
		usage();
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);
	signal(SIGHUP, on_sig);
	signal(SIGPIPE, SIG_IGN);
	if (!is_pg && mysql_library_init(0, NULL, NULL))
		return 1;
	deadline = now_s() + seconds;
	conns = calloc(total, sizeof *conns);
	th = calloc(nactive ? nactive : 1, sizeof *th);
	if (!conns || !th)
		return 1;

	/* the table the idle-in-transaction sessions write one row each to */
	for (i = 0; i < total && !stop_sig && now_s() < deadline; i++) {
		conns[i] = is_pg ? (void *)pg_open() : (void *)my_open();
		if (!conns[i])
			break;
		n++;
		if (i == 0) {
			run(conns[0], is_pg ? "CREATE TABLE IF NOT EXISTS bench_sessload (id int PRIMARY KEY)" :
			    "CREATE TABLE IF NOT EXISTS bench_sessload (id INT PRIMARY KEY) ENGINE=InnoDB");
			run(conns[0], "DELETE FROM bench_sessload");
		}
		if (i >= 1 && i <= ntrx) {
			char sql[96];
			run(conns[i], "BEGIN");
			snprintf(sql, sizeof sql, "INSERT INTO bench_sessload VALUES (%d)", i);
			run(conns[i], sql);
		} else if (i > ntrx && i <= ntrx + nactive) {
			if (pthread_create(&th[nth], NULL, active_main, conns[i]) == 0)
				nth++;
		}
	}
	printf("connected %d\n", n);
	fflush(stdout);
	while (!stop_sig && now_s() < deadline)
		usleep(100000);
	atomic_store(&stop_flag, 1);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	for (i = 1; i <= ntrx && i < n; i++)
		run(conns[i], "ROLLBACK");
	for (i = 0; i < n; i++)
		close_conn(conns[i]);
	free(conns);
	free(th);
	if (!is_pg)
		mysql_library_end();
	printf("done %ld statements\n", atomic_load(&stmts));
	return n == total ? 0 : 1;
}
