/* rates.h - the fsync / commit rates pane: which figures it shows, in what
 * order, and how each is formatted. Used by the text batch output now and
 * by the screen. No curses or database headers. */
#ifndef DBTOP_PANE_RATES_H
#define DBTOP_PANE_RATES_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/model.h"

struct rates_row {
	enum metric_id metric;
	const char *label;
};

extern const struct rates_row rates_rows[];
extern const size_t rates_nrows;

/* The label of metric id (rates_rows), or its JSON key when it has none. */
const char *rates_label(enum metric_id id);

/* Format r for metric id with its unit into buf ("-" plus the reason when
 * unknown, e.g. "- (reset)"). Returns buf. */
char *rates_format(enum metric_id id, const struct rate *r, char *buf, size_t len);

/* Why the log device's figures are missing (not recorded, a remote
 * server, tmpfs, ZFS ...: what they lack), or NULL when they are there. */
const char *rates_logdev_why(const struct model *m);

/* The server's own sync latency shown beside the device's (name: its short
 * name, "WAL sync", "redo sync" ...); M__COUNT: none. */
enum metric_id rates_server_sync(const struct model *m, const char **name);

#endif

/* What the durability settings in force imply, one line each (e.g.
 * "innodb_flush_log_at_trx_commit=1 sync_binlog=1 -> 2 fsyncs per commit").
 * Returns the number of lines written into lines[max][len]; crit[i] is set
 * when line i describes a real risk of data loss. */
int rates_implications(const struct model *m, char lines[][160], bool *crit, int max);
/* The replication lines alone (part of rates_implications): each
 * standby's lags, or semi-sync's figures; none when nothing replicates. */
int rates_replication(const struct model *m, char lines[][160], bool *crit, int max);
