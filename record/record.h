/* record.h - the recording format: an append-only file of length-prefixed,
 * checksummed records holding raw samples and capabilities, so that replay
 * recomputes everything with the current model. Format: docs/recording.md.
 * No database headers. Functions returning int give 0 on success, -1 with
 * a message in err. */
#ifndef DBTOP_RECORD_H
#define DBTOP_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../sources/source.h"

#define REC_MAGIC "DBTOPREC"
#define REC_MAJOR 1
#define REC_MINOR 0
#define REC_SYNC 0x52544244u    /* "DBTR" little-endian, starts every record */
#define REC_MAX_PAYLOAD (32u << 20) /* bytes; a larger length means corruption */

enum rec_type {
	REC_HEADER = 1,
	REC_CAPS = 2,
	REC_SAMPLE = 3,
};

struct rec_header {
	char engine[16];          /* "mariadb", "mysql", "postgresql" */
	char server_version[64];
	char host[128];           /* label, never a password */
	char dbtop_version[32];
	double start_wall;        /* s since the epoch */
	double interval;          /* s */
	bool redacted;
	double open_at;           /* a replay opens here (s since the epoch; 0: at the start): an incident's trigger */
	char trigger[64];         /* an incident's trigger id ("": not an incident file) */
};

struct rec_dgmap;  /* what the recorder last wrote per digest */

struct recorder {
	FILE *f;
	bool redact;
	char path[512];
	uint64_t records, bytes;
	struct rec_dgmap *dg;     /* digest rows written, for change-only writing */
	uint32_t dg_gen;          /* connection the map belongs to */
	bool dg_whole;            /* out: the last sample's digests were written whole (no row left out) */
};

/* Create path (mode 0600, truncated) and write the file and record headers. */
int rec_open_write(struct recorder *r, const char *path, const struct rec_header *h,
		   bool redact, char *err, size_t errlen);
/* The same on an open descriptor (taken over; path names it in messages). */
int rec_open_write_fd(struct recorder *r, int fd, const char *path, const struct rec_header *h,
		      bool redact, char *err, size_t errlen);
/* Write the next sample's digest rows whole, texts too, as after a
 * connection: a reader may start there (history checkpoints). */
void rec_write_whole(struct recorder *r);
/* Append the capabilities of connection conn_gen. */
int rec_write_caps(struct recorder *r, const struct caps *c, uint32_t conn_gen,
		   char *err, size_t errlen);
/* Append one sample. Free text is redacted first when the recorder says so. */
int rec_write_sample(struct recorder *r, const struct sample *s, char *err, size_t errlen);
/* Flush and close; safe on a closed recorder. */
void rec_close(struct recorder *r);

struct rec_reader {
	FILE *f;
	bool own;                 /* close f in rec_reader_close */
	uint16_t major, minor;
	struct rec_header hdr;
	bool have_hdr;
	uint64_t records;         /* whole records read */
	uint64_t corrupt;         /* records skipped (bad checksum / framing) */
	uint64_t skipped_bytes;   /* bytes passed over while resynchronising */
	uint64_t unknown;         /* records of a type this version ignores */
	bool truncated;           /* the file ends inside a record */
	bool maybe_cut;           /* a record ran past the end; decided later */
	uint64_t offset;          /* bytes consumed so far */
	unsigned char *buf;       /* one payload, grown up to REC_MAX_PAYLOAD */
	size_t cap;
};

/* What rec_next returns. */
struct rec_item {
	enum rec_type type;
	uint32_t conn_gen;        /* REC_CAPS */
	struct caps caps;         /* REC_CAPS */
	struct sample sample;     /* REC_SAMPLE */
};

/* Open a recording from a file (path) or from memory (buf/len, not copied;
 * path NULL). Reads and checks the file header and the HEADER record.
 * Fails on another format or a newer major version. */
int rec_open_read(struct rec_reader *rd, const char *path, const void *buf, size_t len,
		  char *err, size_t errlen);
/* The same on an open descriptor (taken over). */
int rec_open_read_fd(struct rec_reader *rd, int fd, char *err, size_t errlen);
/* Go on reading at offset, the start of a record. 0 or -1. */
int rec_reader_seek(struct rec_reader *rd, uint64_t offset);
/* Next CAPS or SAMPLE record into it: 1, or 0 at the end (whole file read,
 * or cut off: see rd->truncated). Damaged records are skipped and counted. */
int rec_next(struct rec_reader *rd, struct rec_item *it);
/* One line saying what was read and what was skipped. */
void rec_reader_summary(const struct rec_reader *rd, char *buf, size_t len);
void rec_reader_close(struct rec_reader *rd);

/* CRC-32 (IEEE 802.3) of n bytes, continuing from crc (start with 0). */
uint32_t rec_crc32(uint32_t crc, const void *p, size_t n);

#endif
