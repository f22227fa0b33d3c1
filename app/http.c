/* http.c - the --listen endpoint's HTTP server on libmicrohttpd, built as
 * a plugin of its own (dbtop-http.so, http.h): listen.c loads it only when
 * --listen is given. libmicrohttpd parses
 * the requests (a parser exposed to any local process, fuzzed upstream)
 * and enforces the limits: a bounded number of connections in all and from
 * one address, an idle time limit per connection, a memory limit per
 * connection that bounds the request line and headers; a watch of ours
 * cuts a request that takes too long in all (a slow trickle). Its one thread
 * polls every connection without blocking; the handler only copies the
 * published text under the mutex. */
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "../sources/abi.h"
#include "http.h"
#include "metrics.h"

#define LISTEN_CONNECTIONS 32          /* at once; more are refused */
#define LISTEN_PER_ADDRESS 8           /* at once from one address; more are refused */
#define LISTEN_TIMEOUT_S 5             /* a connection idle this long is closed */
#define LISTEN_DEADLINE_S 5.0          /* a request not answered this long after it began is cut */
#define LISTEN_WATCH_MS 200            /* how often the deadlines are looked at */
#define LISTEN_CONN_MEMORY (16 * 1024) /* request line + headers per connection */

/* A connection open now: its socket and when its current request began
 * (its opening, or the end of the request before it). */
struct conn_rec {
	struct MHD_Connection *c; /* NULL: a free record */
	int fd;
	double since;
	bool cut;
};

/* The watch over the connections: a request that takes longer than
 * LISTEN_DEADLINE_S in all (a slow client trickling a header a second
 * never stays idle long enough for libmicrohttpd's timeout) has its
 * socket shut down, and libmicrohttpd closes it. */
struct watch {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	bool running, stop;
	struct conn_rec conns[LISTEN_CONNECTIONS + 8];
};

struct slot {
	struct metrics_text pub;  /* under mu: what a request sends */
	struct metrics_text work; /* the owner's: rendered outside the lock */
	bool published;
};

struct listener {
	struct MHD_Daemon *d;
	pthread_mutex_t mu;
	size_t n;
	struct slot *slots;
	unsigned long requests; /* under mu */
	struct watch w;
};

/* libmicrohttpd's connection notices: a record per open connection. Its
 * thread calls this before it closes the socket, so the watch, under the
 * same mutex, never shuts a socket that is no longer this connection's. */
static void on_connection(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_ConnectionNotificationCode code)
{
	struct watch *w = cls;
	pthread_mutex_lock(&w->mu);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		for (size_t i = 0; ci && i < sizeof w->conns / sizeof w->conns[0]; i++)
			if (!w->conns[i].c) {
				w->conns[i] = (struct conn_rec){c, ci->connect_fd, clock_mono(), false};
				*ctx = &w->conns[i];
				break;
			}
	} else if (*ctx) {
		((struct conn_rec *)*ctx)->c = NULL;
		*ctx = NULL;
	}
	pthread_mutex_unlock(&w->mu);
}

/* A request answered: the connection's next one starts its own clock. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct watch *w = cls;
	double now = clock_mono();
	(void)con_cls;
	(void)toe;
	pthread_mutex_lock(&w->mu);
	for (size_t i = 0; i < sizeof w->conns / sizeof w->conns[0]; i++)
		if (w->conns[i].c == c)
			w->conns[i].since = now;
	pthread_mutex_unlock(&w->mu);
}

/* The watch's thread: every LISTEN_WATCH_MS, shut down the sockets of
 * requests past their deadline. */
static void *watch_run(void *arg)
{
	struct watch *w = arg;
	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += LISTEN_WATCH_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->cv, &w->mu, &ts);
		double now = clock_mono();
		for (size_t i = 0; i < sizeof w->conns / sizeof w->conns[0]; i++) {
			struct conn_rec *r = &w->conns[i];
			if (r->c && !r->cut && now - r->since > LISTEN_DEADLINE_S) {
				shutdown(r->fd, SHUT_RDWR);
				r->cut = true;
			}
		}
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Queue a small static response. */
static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* True when the Accept header asks for OpenMetrics. */
static bool wants_openmetrics(struct MHD_Connection *c)
{
	const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	return a && strcasestr(a, "application/openmetrics-text") != NULL;
}

/* /metrics: the slots' text, copied under the mutex. */
static enum MHD_Result reply_metrics(struct listener *l, struct MHD_Connection *c)
{
	const struct metrics_text **t = xcalloc(l->n, sizeof *t);
	bool om = wants_openmetrics(c);
	struct MHD_Response *r;
	struct strbuf out;
	enum MHD_Result ret;
	size_t i;

	sb_init(&out);
	pthread_mutex_lock(&l->mu);
	for (i = 0; i < l->n; i++)
		t[i] = l->slots[i].published ? &l->slots[i].pub : NULL;
	metrics_expose(t, l->n, om, &out);
	pthread_mutex_unlock(&l->mu);
	free(t);
	r = MHD_create_response_from_buffer(out.len, out.s, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		sb_free(&out);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				   : "text/plain; version=0.0.4; charset=utf-8");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* Every request: answered at once, from its request line and headers (no
 * request has a body worth reading). */
static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_len, void **con_cls)
{
	struct listener *l = cls;
	(void)version;
	(void)upload;
	(void)upload_len;
	(void)con_cls;
	pthread_mutex_lock(&l->mu);
	l->requests++;
	pthread_mutex_unlock(&l->mu);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (strcmp(url, "/metrics") == 0)
		return reply_metrics(l, c);
	if (strcmp(url, "/healthz") == 0)
		return reply_text(c, MHD_HTTP_OK, "ok\n");
	return reply_text(c, MHD_HTTP_NOT_FOUND, "not found: /metrics or /healthz\n");
}

static void http_stop(struct listener *l);

static struct listener *http_start(struct sockaddr_storage ss, const char *spec, size_t nslots, char *err, size_t len)
{
	struct listener *l;
	sigset_t all, old;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;

	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	l = xcalloc(1, sizeof *l);
	pthread_mutex_init(&l->mu, NULL);
	l->n = nslots ? nslots : 1;
	l->slots = xcalloc(l->n, sizeof *l->slots);
	for (size_t i = 0; i < l->n; i++) {
		metrics_text_init(&l->slots[i].pub);
		metrics_text_init(&l->slots[i].work);
	}
	pthread_mutex_init(&l->w.mu, NULL);
	pthread_cond_init(&l->w.cv, NULL);
	/* the server's threads take no signal: the main thread handles them */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	l->d = MHD_start_daemon(flags, 0, NULL, NULL, handle, l, MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)LISTEN_CONNECTIONS,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)LISTEN_PER_ADDRESS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)LISTEN_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)LISTEN_CONN_MEMORY,
				MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)16, MHD_OPTION_NOTIFY_CONNECTION,
				on_connection, &l->w, MHD_OPTION_NOTIFY_COMPLETED, on_completed, &l->w, MHD_OPTION_END);
	int e = errno;
	if (l->d)
		l->w.running = pthread_create(&l->w.th, NULL, watch_run, &l->w) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!l->d) {
		str_printf(err, len, "--listen %s: cannot serve there (%s)", spec,
			   e ? strerror(e) : "address in use or not available");
		http_stop(l);
		return NULL;
	}
	return l;
}

static void http_publish(struct listener *l, size_t slot, const struct model *m, const struct incident_stats *inc,
			 const char *server)
{
	struct slot *s;
	struct metrics_text tmp;
	if (!l || slot >= l->n)
		return;
	s = &l->slots[slot];
	metrics_render_incidents(m, inc, server, &s->work);
	pthread_mutex_lock(&l->mu);
	tmp = s->pub;
	s->pub = s->work;
	s->work = tmp;
	s->published = true;
	pthread_mutex_unlock(&l->mu);
}

static unsigned long http_requests(struct listener *l)
{
	unsigned long n;
	pthread_mutex_lock(&l->mu);
	n = l->requests;
	pthread_mutex_unlock(&l->mu);
	return n;
}

static void http_stop(struct listener *l)
{
	if (!l)
		return;
	if (l->w.running) {
		pthread_mutex_lock(&l->w.mu);
		l->w.stop = true;
		pthread_cond_signal(&l->w.cv);
		pthread_mutex_unlock(&l->w.mu);
		pthread_join(l->w.th, NULL);
	}
	if (l->d)
		MHD_stop_daemon(l->d);
	pthread_mutex_destroy(&l->w.mu);
	pthread_cond_destroy(&l->w.cv);
	for (size_t i = 0; i < l->n; i++) {
		metrics_text_free(&l->slots[i].pub);
		metrics_text_free(&l->slots[i].work);
	}
	free(l->slots);
	pthread_mutex_destroy(&l->mu);
	free(l);
}

const struct http_ops dbtop_http_ops = {http_start, http_publish, http_requests, http_stop};
PLUGIN_ABI_DEFINE;
