/* journal.c - the undo journal of tuning changes (see journal.h). */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/util.h"

#define JOURNAL_BYTES_MAX (1 << 20)
/* The longest line read back (a record's fields, escaped, fit with room
 * to spare: a longer one is never written) */
#define JOURNAL_LINE_MAX 4096

const char *jstate_name(enum jstate s)
{
	switch (s) {
	case JS_ACTIVE: return "active";
	case JS_REVERTED: return "reverted";
	case JS_KEPT: return "kept";
	case JS_FAILED: return "failed";
	case JS_SUPERSEDED: return "superseded";
	}
	return "?";
}

static int jstate_parse(const char *s)
{
	if (strcmp(s, "reverted") == 0)
		return JS_REVERTED;
	if (strcmp(s, "kept") == 0)
		return JS_KEPT;
	if (strcmp(s, "failed") == 0)
		return JS_FAILED;
	if (strcmp(s, "superseded") == 0)
		return JS_SUPERSEDED;
	return -1;
}

static uint32_t fnv32(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

/* One field: bytes outside [A-Za-z0-9._/:+-] as %XX; empty as "~". */
static void put_field(struct strbuf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	sb_putc(b, ' ');
	if (!*s) {
		sb_putc(b, '~');
		return;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("._/:+-", c)) {
			sb_putc(b, (char)c);
		} else {
			sb_putc(b, '%');
			sb_putc(b, hex[c >> 4]);
			sb_putc(b, hex[c & 15]);
		}
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode field tok into out (len bytes); false when malformed or too long. */
static bool get_field(const char *tok, char *out, size_t len)
{
	size_t o = 0;
	if (strcmp(tok, "~") == 0) {
		out[0] = '\0';
		return true;
	}
	for (const char *p = tok; *p; p++) {
		int c = (unsigned char)*p;
		if (c == '%') {
			int h = hexval(p[1]), l = h < 0 ? -1 : hexval(p[2]);
			if (h < 0 || l < 0)
				return false;
			c = h * 16 + l;
			p += 2;
		}
		if (c == 0 || o + 1 >= len)
			return false;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return true;
}

int journal_parse_line(const char *line, struct jentry *e, enum jstate *st)
{
	char buf[JOURNAL_LINE_MAX], *tok[13], *save = NULL, *p;
	int nt = 0;
	size_t n = strlen(line);
	const char *hash = strstr(line, " #");
	unsigned long sum;
	char *end;
	if (n == 0 || n >= sizeof buf || !hash)
		return 0;
	sum = strtoul(hash + 2, &end, 16);
	if (end == hash + 2 || (*end && *end != '\n') || sum != fnv32(line, (size_t)(hash - line)))
		return 0;
	memcpy(buf, line, (size_t)(hash - line));
	buf[hash - line] = '\0';
	for (p = strtok_r(buf, " ", &save); p && nt < 13; p = strtok_r(NULL, " ", &save))
		tok[nt++] = p;
	/* 9 fields: version 1 (no server); 11: version 2; 12: version 2 for a
	 * role or a database (its name last) */
	if ((nt == 9 || nt == 11 || nt == 12) && strcmp(tok[0], "A") == 0) {
		memset(e, 0, sizeof *e);
		e->seq = (unsigned)strtoul(tok[1], &end, 10);
		if (*end || !e->seq)
			return 0;
		e->wall = strtod(tok[2], &end);
		if (*end)
			return 0;
		e->kind = tune_kind_parse(tok[3]);
		if (!e->kind || !get_field(tok[4], e->name, sizeof e->name) ||
		    !get_field(tok[5], e->undo, sizeof e->undo) || !get_field(tok[6], e->was, sizeof e->was) ||
		    !get_field(tok[7], e->val, sizeof e->val))
			return 0;
		/* tok[8] is the owner's pid: informative */
		if (nt >= 11 && (!get_field(tok[9], e->sid, sizeof e->sid) || !e->sid[0] ||
				 !get_field(tok[10], e->slabel, sizeof e->slabel)))
			return 0;
		/* a target with a scoped kind, never without */
		if ((nt == 12) != tune_kind_scoped(e->kind) ||
		    (nt == 12 && (!get_field(tok[11], e->target, sizeof e->target) || !e->target[0])))
			return 0;
		e->state = JS_ACTIVE;
		return 'A';
	}
	if ((nt == 3 || nt == 4) && strcmp(tok[0], "E") == 0) {
		int s = jstate_parse(tok[2]);
		memset(e, 0, sizeof *e);
		e->seq = (unsigned)strtoul(tok[1], &end, 10);
		if (*end || !e->seq || s < 0 || (nt == 4) != (s == JS_SUPERSEDED))
			return 0;
		if (nt == 4 && !get_field(tok[3], e->now, sizeof e->now))
			return 0;
		*st = (enum jstate)s;
		return 'E';
	}
	return 0;
}

/* Drop the finished entries from the table (the file keeps them). */
static void compact(struct journal *j)
{
	int k = 0;
	for (int i = 0; i < j->n; i++)
		if (j->e[i].state == JS_ACTIVE)
			j->e[k++] = j->e[i];
	j->n = k;
}

/* The header line: version, and for version 2 the server. false when it
 * is not one. */
static bool parse_header(struct journal *j, const char *line, char *hsid, size_t hlen)
{
	char buf[JOURNAL_LINE_MAX], *tok[4], *save = NULL, *p;
	int nt = 0;
	hsid[0] = '\0';
	if (strncmp(line, "dbtop-undo 1", 12) == 0 && (line[12] == ' ' || !line[12])) {
		j->version = 1;
		if (line[12] && !get_field(line + 13, j->label, sizeof j->label))
			j->label[0] = '\0';
		return true;
	}
	if (strncmp(line, "dbtop-undo 2 ", 13) != 0 || strlen(line) >= sizeof buf)
		return false;
	str_copy(buf, sizeof buf, line);
	for (p = strtok_r(buf, " ", &save); p && nt < 4; p = strtok_r(NULL, " ", &save))
		tok[nt++] = p;
	if (nt != 4 || !get_field(tok[2], hsid, hlen) || !get_field(tok[3], j->label, sizeof j->label))
		return false;
	j->version = 2;
	return true;
}

/* Fold the file's text into j; the server id of its header into hsid. */
static void journal_load(struct journal *j, char *text, char *hsid, size_t hlen)
{
	char *save = NULL, *line;
	bool first = true;
	size_t len = strlen(text);
	/* a torn last line (a crash, an older dbtop): the next record starts afresh */
	j->need_nl = len > 0 && text[len - 1] != '\n';
	hsid[0] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct jentry e;
		enum jstate st = JS_ACTIVE;
		if (first && strncmp(line, "dbtop-undo ", 11) == 0) {
			first = false;
			if (!parse_header(j, line, hsid, hlen))
				j->damaged++;
			continue;
		}
		first = false;
		int k = journal_parse_line(line, &e, &st);
		if (k == 'A') {
			if (j->n >= JOURNAL_MAX)
				compact(j);
			if (j->n < JOURNAL_MAX)
				j->e[j->n++] = e;
			else
				j->damaged++;
			if (e.seq >= j->next_seq)
				j->next_seq = e.seq + 1;
		} else if (k == 'E') {
			for (int i = 0; i < j->n; i++)
				if (j->e[i].seq == e.seq) {
					j->e[i].state = st;
					str_copy(j->e[i].now, sizeof j->e[i].now, e.now);
				}
		} else {
			j->damaged++;
		}
	}
	compact(j);
}

/* Make dir and its parents (0700 for the ones created). */
static int make_dirs(const char *dir, char *err, size_t errlen)
{
	char tmp[512];
	str_copy(tmp, sizeof tmp, dir);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) < 0 && errno != EEXIST) {
			str_printf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
			return -1;
		}
		*p = '/';
	}
	if (mkdir(tmp, 0700) < 0 && errno != EEXIST) {
		str_printf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	struct stat st;
	if (lstat(tmp, &st) < 0 || !S_ISDIR(st.st_mode)) {
		str_printf(err, errlen, "%s is not a directory (a symlink is refused)", tmp);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		str_printf(err, errlen, "%s belongs to another user", tmp);
		return -1;
	}
	return 0;
}

int journal_path(const char *key, char *path, size_t len, char *err, size_t errlen)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char dir[400];
	if (xdg && xdg[0] == '/')
		str_printf(dir, sizeof dir, "%s/dbtop", xdg);
	else if (home && home[0] == '/')
		str_printf(dir, sizeof dir, "%s/.local/state/dbtop", home);
	else {
		str_copy(err, errlen, "neither XDG_STATE_HOME nor HOME is set: no place for the undo journal");
		return -1;
	}
	uint32_t h1 = fnv32(key, strlen(key)), h2 = fnv32(dir, strlen(dir)) ^ h1 * 31u;
	str_printf(path, len, "%s/undo-%08x%08x.journal", dir, h1, h2);
	return 0;
}

/* Check the open file: a regular file of ours, not writable by others. */
static int check_fd(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		str_printf(err, errlen, "%s is not a regular file", path);
		return -1;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		str_printf(err, errlen, "%s belongs to another user or is writable by others: refused", path);
		return -1;
	}
	return 0;
}

void journal_clear(struct journal *j)
{
	memset(j, 0, offsetof(struct journal, e));
	j->fd = -1;
}

int journal_open(struct journal *j, const char *path, const char *sid, const char *label, bool read_only,
		 char *err, size_t errlen)
{
	char hsid[JOURNAL_ID_LEN];
	journal_clear(j);
	j->next_seq = 1;
	j->read_only = read_only;
	str_copy(j->path, sizeof j->path, path);
	str_copy(j->sid, sizeof j->sid, sid ? sid : "");
	str_copy(j->label, sizeof j->label, label ? label : "");
	int fd = open(path, (read_only ? O_RDONLY : O_RDWR | O_APPEND) | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		str_printf(err, errlen, "cannot open the undo journal %s: %s%s", path, strerror(errno),
			   errno == ELOOP ? " (a symlink is refused)" : "");
		return -1;
	}
	if (check_fd(fd, path, err, errlen) < 0) {
		close(fd);
		return -1;
	}
	j->fd = fd;
	int busy = !read_only && flock(fd, LOCK_EX | LOCK_NB) < 0;
	j->locked = !read_only && !busy;
	char *text = xmalloc(JOURNAL_BYTES_MAX + 1);
	ssize_t got = pread(fd, text, JOURNAL_BYTES_MAX, 0);
	text[got > 0 ? got : 0] = '\0';
	journal_load(j, text, hsid, sizeof hsid);
	free(text);
	if (j->version == 2 && j->sid[0] && strcmp(hsid, j->sid) != 0) {
		/* the same name for another server: never mixed */
		str_printf(err, errlen, "the undo journal %s belongs to another server (%s): refused", path, j->label);
		close(fd);
		j->fd = -1;
		j->locked = false;
		j->n = 0;
		return -1;
	}
	if (!read_only && j->version == 2 && label && label[0])
		str_copy(j->label, sizeof j->label, label);
	if (busy) {
		str_printf(err, errlen, "another running dbtop is tuning this server (its undo journal %s is locked)", path);
		return 1;
	}
	return 0;
}

/* Write all of buf at the end of the file and fsync it; on any failure
 * (disk full: a short write) cut the file back to its length before, so
 * no torn line is left for the next record to join (when even that fails,
 * the next record starts on a new line). 0, or -1 with errno's text. */
static int append(struct journal *j, const char *buf, size_t len, char *why, size_t wlen)
{
	off_t before = lseek(j->fd, 0, SEEK_END);
	ssize_t w = write(j->fd, buf, len);
	if (w < 0)
		str_copy(why, wlen, strerror(errno));
	else if (w < (ssize_t)len)
		str_printf(why, wlen, "short write, %zd of %zu bytes (disk full?)", w, len);
	else if (fsync(j->fd) < 0)
		str_printf(why, wlen, "fsync: %s", strerror(errno));
	else
		return 0;
	if (w > 0 && (before < 0 || ftruncate(j->fd, before) < 0 || fsync(j->fd) < 0))
		j->need_nl = true;
	return -1;
}

/* Write one line with its checksum and fsync. */
static int put_line(struct journal *j, struct strbuf *b, char *err, size_t errlen)
{
	char sum[16], why[120];
	str_printf(sum, sizeof sum, " #%08x\n", fnv32(b->s, b->len));
	sb_puts(b, sum);
	if (j->need_nl) {
		/* after a torn line that could not be cut off: a line of its own */
		if (append(j, "\n", 1, why, sizeof why) < 0) {
			str_printf(err, errlen, "cannot write the undo journal %s: %s", j->path, why);
			return -1;
		}
		j->need_nl = false;
	}
	if (append(j, b->s, b->len, why, sizeof why) < 0) {
		str_printf(err, errlen, "cannot write the undo journal %s: %s", j->path, why);
		return -1;
	}
	return 0;
}

/* Open (create) the file for writing, locked. */
static int journal_create(struct journal *j, char *err, size_t errlen)
{
	char dir[512];
	struct stat st, st2;
	if (j->read_only) {
		str_copy(err, errlen, "the undo journal is open for reading only (--read-only)");
		return -1;
	}
	str_copy(dir, sizeof dir, j->path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (j->fd >= 0) {
		/* still the file at the path? (another dbtop may have removed it) */
		if (j->locked && fstat(j->fd, &st) == 0 && lstat(j->path, &st2) == 0 && st.st_ino == st2.st_ino &&
		    st.st_dev == st2.st_dev)
			goto header;   /* its header may be missing still (a full disk) */
		if (!j->locked) {
			str_printf(err, errlen, "another running dbtop is tuning this server (%s is locked)", j->path);
			return -1;
		}
		close(j->fd);
		j->fd = -1;
	}
	if (make_dirs(dir, err, errlen) < 0)
		return -1;
	int fd = open(j->path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		str_printf(err, errlen, "cannot create the undo journal %s: %s%s", j->path, strerror(errno),
			   errno == ELOOP ? " (a symlink is refused)" : "");
		return -1;
	}
	if (check_fd(fd, j->path, err, errlen) < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (!err[0])
			str_printf(err, errlen, "another running dbtop is tuning this server (%s is locked)", j->path);
		close(fd);
		return -1;
	}
	j->fd = fd;
	j->locked = true;
header:
	if (fstat(j->fd, &st) == 0 && st.st_size == 0) {
		struct strbuf b;
		char why[120];
		sb_init(&b);
		sb_puts(&b, "dbtop-undo 2");
		put_field(&b, j->sid);
		put_field(&b, j->label);
		sb_putc(&b, '\n');
		j->need_nl = false;
		int rc = append(j, b.s, b.len, why, sizeof why);
		sb_free(&b);
		int dfd = rc == 0 ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		if (rc < 0) {
			str_printf(err, errlen, "cannot write the undo journal %s: %s", j->path, why);
			return -1;
		}
		j->version = 2;
	}
	return 0;
}

int journal_begin(struct journal *j, struct jentry *e, char *err, size_t errlen)
{
	struct strbuf b;
	char num[64];
	err[0] = '\0';
	if (j->n >= JOURNAL_MAX)
		compact(j);
	if (j->n >= JOURNAL_MAX) {
		str_copy(err, errlen, "the undo journal is full: revert (U) before more changes");
		return -1;
	}
	if (!tune_value_safe(e->name) || !e->kind) {
		str_copy(err, errlen, "refused: not a setting dbtop knows");
		return -1;
	}
	if (tune_kind_scoped(e->kind) != (e->target[0] != '\0')) {
		str_copy(err, errlen, "refused: a role's or a database's change names it, and only such a change");
		return -1;
	}
	if (journal_create(j, err, errlen) < 0)
		return -1;
	e->seq = j->next_seq;
	e->state = JS_ACTIVE;
	sb_init(&b);
	str_printf(num, sizeof num, "A %u %.3f %s", e->seq, e->wall, tune_kind_name(e->kind));
	sb_puts(&b, num);
	put_field(&b, e->name);
	put_field(&b, e->undo);
	put_field(&b, e->was);
	put_field(&b, e->val);
	str_printf(num, sizeof num, " %ld", (long)getpid());
	sb_puts(&b, num);
	put_field(&b, e->sid[0] ? e->sid : j->sid);
	put_field(&b, e->slabel[0] ? e->slabel : j->label);
	if (tune_kind_scoped(e->kind))
		put_field(&b, e->target);
	if (b.len + 16 >= JOURNAL_LINE_MAX) {
		/* it could not be read back: never written */
		sb_free(&b);
		str_copy(err, errlen, "the journal record would be too long to read back");
		return -1;
	}
	int rc = put_line(j, &b, err, errlen);
	sb_free(&b);
	if (rc < 0)
		return -1;
	j->next_seq++;
	if (!e->sid[0])
		str_copy(e->sid, sizeof e->sid, j->sid);
	if (!e->slabel[0])
		str_copy(e->slabel, sizeof e->slabel, j->label);
	j->e[j->n++] = *e;
	return 0;
}

int journal_end_value(struct journal *j, unsigned seq, enum jstate st, const char *now, char *err, size_t errlen)
{
	struct strbuf b;
	char line[64];
	err[0] = '\0';
	if (journal_create(j, err, errlen) < 0)
		return -1;
	sb_init(&b);
	str_printf(line, sizeof line, "E %u %s", seq, jstate_name(st));
	sb_puts(&b, line);
	if (st == JS_SUPERSEDED)
		put_field(&b, now ? now : "");
	int rc = put_line(j, &b, err, errlen);
	sb_free(&b);
	if (rc < 0)
		return -1;
	for (int i = 0; i < j->n; i++)
		if (j->e[i].seq == seq) {
			j->e[i].state = st;
			str_copy(j->e[i].now, sizeof j->e[i].now, st == JS_SUPERSEDED && now ? now : "");
		}
	return 0;
}

int journal_end(struct journal *j, unsigned seq, enum jstate st, char *err, size_t errlen)
{
	return journal_end_value(j, seq, st, NULL, err, errlen);
}

int journal_active(const struct journal *j, int *idx, int max)
{
	int k = 0;
	for (int i = j->n - 1; i >= 0 && k < max; i--)
		if (j->e[i].state == JS_ACTIVE)
			idx[k++] = i;
	return k;
}

void journal_close(struct journal *j)
{
	int idx[1];
	if (j->fd < 0)
		return;
	if (j->locked && !j->read_only && journal_active(j, idx, 1) == 0 && j->damaged == 0) {
		struct stat st, st2;
		/* remove it only while it is still ours at that path */
		if (fstat(j->fd, &st) == 0 && lstat(j->path, &st2) == 0 && st.st_ino == st2.st_ino)
			unlink(j->path);
	}
	close(j->fd);
	j->fd = -1;
	j->locked = false;
}
