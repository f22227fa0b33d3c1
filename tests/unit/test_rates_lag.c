/* test_rates_lag.c - counters a server publishes late: PostgreSQL's
 * sessions publish their commit and WAL counters at most once a second, so
 * the screen's first rates wait 1 s there (0.2 s on MariaDB and MySQL,
 * whose counters are summed at each read), the rates pane says why until
 * then, and says that rates over a shorter refresh are rough; MariaDB's
 * pane says neither. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../model/model.h"
#include "../../panes/pane.h"
#include "../../panes/rates.h"
#include "../../util/util.h"
#include "tap.h"

#define GW 120
#define GH 30
#include "grid.h"

/* The rates pane of m drawn whole at 120x30; true when a row holds text. */
static bool drawn_with(struct model *m, const char *text)
{
	struct pane_view v;
	memset(&v, 0, sizeof v);
	v.full = true;
	struct canvas cv = grid(GW, GH);
	rates_pane.draw(m, &v, &cv);
	for (int y = 0; y < GH; y++)
		if (strstr(cells[y], text))
			return true;
	return false;
}

/* A model of engine e with n samples dt s apart, 100 commits each. */
static void model_n(struct model *m, enum engine e, int n, double dt)
{
	struct caps c;
	struct sample s;
	memset(&c, 0, sizeof c);
	c.engine = e;
	c.flavour = e == ENGINE_POSTGRESQL ? FLAVOUR_POSTGRESQL : FLAVOUR_MARIADB;
	model_init(m, 64);
	model_set_caps(m, &c);
	for (int i = 0; i < n; i++) {
		memset(&s, 0, sizeof s);
		s.state = STATE_UP;
		s.mono = 100 + i * dt;
		s.wall = 1e9 + i * dt;
		s.conn_gen = 1;
		sample_set(&s, CTR_COMMITS, 1000 + 100 * (uint64_t)i, 1);
		model_update(m, &s);
	}
}

static void test_lag(void)
{
	struct caps c;
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_POSTGRESQL;
	CHECK(caps_counters_lag_s(&c) == 1.0, "PostgreSQL: its counters may be 1 s late");
	c.engine = ENGINE_MYSQL;
	CHECK(caps_counters_lag_s(&c) == 0, "MySQL / MariaDB: summed at each read");
}

static void test_pane(void)
{
	struct model m;
	const char *first = "first rates in 1 s: the server publishes these counters once a second";
	const char *rough = "rates every 0.5 s are rough: the server publishes these counters once a second (+ for 1 s)";

	model_n(&m, ENGINE_POSTGRESQL, 1, 1);
	CHECK(drawn_with(&m, first), "PostgreSQL, one sample: the pane says the first rates come in 1 s");
	model_free(&m);

	model_n(&m, ENGINE_POSTGRESQL, 2, 1);
	CHECK(drawn_with(&m, "commits/s") && !drawn_with(&m, first) && !drawn_with(&m, "are rough"),
	      "PostgreSQL, rates over 1 s: neither line");
	model_free(&m);

	model_n(&m, ENGINE_POSTGRESQL, 3, 0.5);
	CHECK(drawn_with(&m, rough), "PostgreSQL every 0.5 s: the rates are said to be rough");
	model_free(&m);

	model_n(&m, ENGINE_MYSQL, 1, 1);
	CHECK(!drawn_with(&m, "first rates in"), "MariaDB, one sample: no such line (0.2 s is true there)");
	model_free(&m);
	model_n(&m, ENGINE_MYSQL, 3, 0.25);
	CHECK(!drawn_with(&m, "are rough"), "MariaDB every 0.25 s: not rough");
	model_free(&m);
}

int main(void)
{
	test_lag();
	test_pane();
	return TAP_DONE();
}
