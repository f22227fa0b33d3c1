/* test_logdev_pane.c - the rates pane's log device line: at 80 columns in
 * a short tile the line with the device's flush latency and utilisation is
 * kept, beside the server's own WAL sync; a kernel without flush counts
 * shows the write latency; tmpfs, a remote server and a recording made
 * before the line say why, and the details view lists what holds the
 * directories. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../model/model.h"
#include "../../panes/pane.h"
#include "../../panes/rates.h"
#include "../../util/util.h"
#include "tap.h"

#define GW 200
#define GH 40

static char grid[GH][GW + 1];

static void grid_put(struct canvas *cv, int y, int x, enum role r, const char *s, int ncols)
{
	(void)cv;
	(void)r;
	for (int i = 0; i < ncols && s[i] && x + i < GW; i++)
		grid[y][x + i] = s[i];
}

static const struct canvas_ops grid_ops = {.put = grid_put};

static struct canvas grid_canvas(int w, int h)
{
	for (int y = 0; y < GH; y++) {
		memset(grid[y], ' ', GW);
		grid[y][GW] = '\0';
	}
	struct canvas cv = {.ops = &grid_ops, .h = h, .w = w, .utf8 = false};
	return cv;
}

/* the first row holding text, -1: none */
static int find(int h, const char *text)
{
	for (int y = 0; y < h; y++)
		if (strstr(grid[y], text))
			return y;
	return -1;
}

static struct diskstat ds(uint64_t wr, uint64_t wticks, uint64_t io, uint64_t q, uint64_t fl, uint64_t fticks, int nf)
{
	struct diskstat d;
	memset(&d, 0, sizeof d);
	str_copy(d.name, sizeof d.name, "loop0");
	d.nfields = nf;
	d.wr_ios = wr, d.wr_ticks = wticks, d.io_ticks = io, d.time_in_queue = q, d.fl_ios = fl, d.fl_ticks = fticks;
	return d;
}

/* A PostgreSQL model with two samples: WAL syncs of 9 ms, and the device's
 * flushes of 8 ms at 43 % utilisation (nf: the kernel's field count). */
static void model_pg(struct model *m, enum logdev_state st, int nf)
{
	struct caps c;
	struct sample s;
	memset(&c, 0, sizeof c);
	c.engine = ENGINE_POSTGRESQL;
	c.flavour = FLAVOUR_POSTGRESQL;
	c.wal_stats = WAL_STAT_WAL;
	c.logdev.state = st;
	if (st == LDS_NOBLOCK)
		str_copy(c.logdev.note, sizeof c.logdev.note,
			 "WAL on tmpfs: no block device, so no device writes/s, flushes/s, write or flush latency, "
			 "queue depth or utilisation");
	if (st == LDS_REMOTE)
		str_copy(c.logdev.note, sizeof c.logdev.note,
			 "the server is at 10.0.0.5, not on this host: the log device's figures need dbtop on the server");
	c.logdev.ndirs = 1;
	str_copy(c.logdev.dirs[0].role, sizeof c.logdev.dirs[0].role, "WAL");
	str_copy(c.logdev.dirs[0].path, sizeof c.logdev.dirs[0].path, "/srv/pg/pg_wal");
	str_copy(c.logdev.dirs[0].fs, sizeof c.logdev.dirs[0].fs, "ext4");
	str_copy(c.logdev.dirs[0].dev, sizeof c.logdev.dirs[0].dev, "loop0");
	str_copy(c.logdev.dirs[0].via, sizeof c.logdev.dirs[0].via, "loop0 is a loop device on file /srv/disk.img");
	c.logdev.ndev = st == LDS_OK ? 1 : 0;
	str_copy(c.logdev.dev[0], LOGDEV_NAME, "loop0");
	model_init(m, 64);
	model_set_caps(m, &c);
	for (int i = 0; i < 2; i++) {
		memset(&s, 0, sizeof s);
		s.state = STATE_UP;
		s.mono = 100 + i;
		s.wall = 1e9 + i;
		s.conn_gen = 1;
		sample_set(&s, CTR_COMMITS, 1000 + 100 * (uint64_t)i, 1);
		sample_set(&s, CTR_FSYNCS, 1000 + 100 * (uint64_t)i, 1);
		sample_set(&s, CTR_WAL_SYNCS, 1000 + 100 * (uint64_t)i, 1);
		sample_set(&s, CTR_WAL_SYNC_NS, 1000000000ULL + 900000000ULL * (uint64_t)i, 1);
		sample_set(&s, CTR_WAL_WRITES, 1000 + 100 * (uint64_t)i, 1);
		if (st == LDS_OK) {
			s.logdev.read = true;
			s.logdev.n = 1;
			s.logdev.d[0] = i == 0 ? ds(1000, 1000, 1000, 1000, 500, 1000, nf)
					       : ds(1200, 1400, 1430, 1900, 600, 1800, nf);
		}
		model_update(m, &s);
	}
}

static void test_line(void)
{
	struct model m;
	struct pane_view v;
	struct canvas cv;
	int y;

	model_pg(&m, LDS_OK, 17);
	/* an 80x24 overview's rates tile: 6 rows */
	memset(&v, 0, sizeof v);
	cv = grid_canvas(80, 6);
	rates_pane.draw(&m, &v, &cv);
	y = find(6, "loop0 flush ms");
	CHECK(y >= 0, "80 columns, a 6-row tile: the device's flush line is kept");
	CHECK(y >= 0 && strstr(grid[y], "8.000 ms") && strstr(grid[y], "util  43%") && strstr(grid[y], "WAL sync 9.000 ms"),
	      tname("the line: flush 8 ms, util 43 %%, the server's WAL sync 9 ms (%s)", y >= 0 ? grid[y] : "-"));
	int ys = find(6, "WAL sync ms");
	CHECK(ys >= 0 && y == ys + 1, "right under the server's own WAL sync row");

	/* 120 and 200 columns: the same line, wider sparklines */
	for (int w = 120; w <= 200; w += 80) {
		memset(&v, 0, sizeof v);
		v.full = true;
		cv = grid_canvas(w, 30);
		rates_pane.draw(&m, &v, &cv);
		y = find(30, "loop0 flush ms");
		CHECK(y >= 0 && strstr(grid[y], "util  43%") && strstr(grid[y], "WAL sync 9.000 ms"),
		      tname("%d columns: the line with utilisation and the server's sync", w));
	}

	/* details: every directory and what holds it, each device's figures */
	memset(&v, 0, sizeof v);
	v.full = true;
	v.details = true;
	/* the log device's row, wherever the table puts it */
	for (v.sel = 0; v.sel < 12 && find(30, "log device  (log_devices)") < 0; v.sel++) {
		cv = grid_canvas(120, 30);
		rates_pane.draw(&m, &v, &cv);
	}
	CHECK(find(30, "log device  (log_devices)") >= 0, "details: the log device's view");
	CHECK(find(30, "loop0 is a loop device on file /srv/disk.img") >= 0, "details: the loop device's file");
	y = find(30, "loop0   ");
	CHECK(y >= 0 && strstr(grid[y], "200.0") && strstr(grid[y], "100.0") && strstr(grid[y], "8.000") &&
	      strstr(grid[y], "43%"), "details: writes/s, flushes/s, flush await, utilisation");

	/* the server down: the row says why, not "no device" */
	struct sample down;
	memset(&down, 0, sizeof down);
	down.state = STATE_DOWN;
	down.mono = 102;
	down.wall = 1e9 + 2;
	down.conn_gen = 1;
	model_update(&m, &down);
	memset(&v, 0, sizeof v);
	cv = grid_canvas(80, 6);
	rates_pane.draw(&m, &v, &cv);
	y = find(6, "not read while the server is not up");
	CHECK(y >= 0 && !strstr(grid[y], "no device"), "the server down: the log device's row says it is not read while the server is not up");
	model_free(&m);

	/* a kernel before 5.5: the write latency */
	model_pg(&m, LDS_OK, 11);
	memset(&v, 0, sizeof v);
	cv = grid_canvas(80, 6);
	rates_pane.draw(&m, &v, &cv);
	y = find(6, "loop0 write ms");
	CHECK(y >= 0 && strstr(grid[y], "2.000 ms"), "no flush counts: the write latency (400 ms / 200 writes)");
	model_free(&m);
}

static void test_why(void)
{
	struct model m;
	struct pane_view v;
	struct canvas cv;

	model_pg(&m, LDS_NOBLOCK, 17);
	memset(&v, 0, sizeof v);
	v.full = true;
	cv = grid_canvas(200, 20);
	rates_pane.draw(&m, &v, &cv);
	CHECK(find(20, "WAL on tmpfs: no block device, so no device writes/s, flushes/s, write or flush latency") >= 0,
	      "tmpfs: the line says what a tmpfs lacks");
	model_free(&m);

	model_pg(&m, LDS_REMOTE, 17);
	memset(&v, 0, sizeof v);
	cv = grid_canvas(200, 6);
	rates_pane.draw(&m, &v, &cv);
	CHECK(find(6, "need dbtop on the server") >= 0, "remote: the host figures need dbtop on the server (a tile)");
	model_free(&m);

	model_pg(&m, LDS_NONE, 17);
	memset(&v, 0, sizeof v);
	cv = grid_canvas(120, 6);
	rates_pane.draw(&m, &v, &cv);
	CHECK(find(6, "log device") < 0, "a recording made before: no line in a tile");
	v.full = true;
	cv = grid_canvas(120, 20);
	rates_pane.draw(&m, &v, &cv);
	CHECK(find(20, "not recorded in this file") >= 0, "a recording made before: the full pane says not recorded");
	model_free(&m);
}

int main(void)
{
	test_line();
	test_why();
	return tap_failed ? 1 : 0;
}
