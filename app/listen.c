/* listen.c - the --listen endpoint on libmicrohttpd. libmicrohttpd parses
 * the requests (a parser exposed to any local process, fuzzed upstream)
 * and enforces the limits: a bounded number of connections, a time limit
 * per connection (slow clients are dropped), a memory limit per
 * connection that bounds the request line and headers. Its one thread
 * polls every connection without blocking; the handler only copies the
 * published text under the mutex. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "listen.h"
#include "metrics.h"

#define LISTEN_CONNECTIONS 32          /* at once; more are refused */
#define LISTEN_TIMEOUT_S 5             /* a connection idle this long is closed */
#define LISTEN_CONN_MEMORY (16 * 1024) /* request line + headers per connection */

struct slot {
	struct metrics_text pub;   /* under mu: what a request sends */
	struct metrics_text work;  /* the owner's: rendered outside the lock */
	bool published;
};

struct listener {
	struct MHD_Daemon *d;
	pthread_mutex_t mu;
	size_t n;
	struct slot *slots;
	unsigned long requests;    /* under mu */
};

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

/* True for 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104. */
static bool is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
	if (IN6_IS_ADDR_LOOPBACK(a))
		return true;
	return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
}

/* spec -> address; false with the reason in err. */
static bool parse_spec(const char *spec, struct sockaddr_storage *ss, char *err, size_t len)
{
	char host[64] = "127.0.0.1";
	const char *port = spec, *colon = strrchr(spec, ':');
	char *end;
	long p;

	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');
		if (!close || close[1] != ':' || (size_t)(close - spec - 1) >= sizeof host) {
			str_printf(err, len, "--listen: expected [IPV6]:PORT");
			return false;
		}
		memcpy(host, spec + 1, (size_t)(close - spec - 1));
		host[close - spec - 1] = '\0';
		port = close + 2;
	} else if (colon) {
		if ((size_t)(colon - spec) >= sizeof host) {
			str_printf(err, len, "--listen: address too long");
			return false;
		}
		if (colon > spec) {
			memcpy(host, spec, (size_t)(colon - spec));
			host[colon - spec] = '\0';
		}
		port = colon + 1;
	}
	errno = 0;
	p = strtol(port, &end, 10);
	if (!*port || *end || errno || p < 1 || p > 65535) {
		str_printf(err, len, "--listen: expected [ADDR:]PORT with a port 1-65535");
		return false;
	}
	if (strcasecmp(host, "localhost") == 0)
		str_copy(host, sizeof host, "127.0.0.1");
	memset(ss, 0, sizeof *ss);
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)p);
	} else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)p);
	} else {
		str_printf(err, len, "--listen: not a numeric IP address (or localhost)");
		return false;
	}
	return true;
}

/* True when spec is an address the endpoint may serve on. */
static bool spec_allowed(const char *spec, bool any, struct sockaddr_storage *ss, char *err, size_t len)
{
	if (!parse_spec(spec, ss, err, len))
		return false;
	if (!any && !is_loopback(ss)) {
		str_printf(err, len, "--listen: %s is not a loopback address; the endpoint has no "
			   "authentication: add --listen-any to serve it beyond this machine", spec);
		return false;
	}
	return true;
}

bool listen_spec_ok(const char *spec, bool any, char *err, size_t len)
{
	struct sockaddr_storage ss;
	return spec_allowed(spec, any, &ss, err, len);
}

struct listener *listen_start(const char *spec, bool any, size_t nslots, char *err, size_t len)
{
	struct sockaddr_storage ss;
	struct listener *l;
	sigset_t all, old;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;

	if (!spec_allowed(spec, any, &ss, err, len))
		return NULL;
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
	/* the server's thread takes no signal: the main thread handles them */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	l->d = MHD_start_daemon(flags, 0, NULL, NULL, handle, l,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)LISTEN_CONNECTIONS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)LISTEN_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)LISTEN_CONN_MEMORY,
				MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)16,
				MHD_OPTION_END);
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!l->d) {
		str_printf(err, len, "--listen %s: cannot serve there (%s)", spec,
			   e ? strerror(e) : "address in use or not available");
		listen_stop(l);
		return NULL;
	}
	return l;
}

void listen_publish(struct listener *l, size_t slot, const struct model *m, const char *server)
{
	listen_publish_incidents(l, slot, m, NULL, server);
}

void listen_publish_incidents(struct listener *l, size_t slot, const struct model *m, const struct incident_stats *inc,
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

unsigned long listen_requests(struct listener *l)
{
	unsigned long n;
	pthread_mutex_lock(&l->mu);
	n = l->requests;
	pthread_mutex_unlock(&l->mu);
	return n;
}

void listen_stop(struct listener *l)
{
	if (!l)
		return;
	if (l->d)
		MHD_stop_daemon(l->d);
	for (size_t i = 0; i < l->n; i++) {
		metrics_text_free(&l->slots[i].pub);
		metrics_text_free(&l->slots[i].work);
	}
	free(l->slots);
	pthread_mutex_destroy(&l->mu);
	free(l);
}
