/* listen.c - the --listen endpoint's API (listen.h): the address checks
 * here, the HTTP server in its plugin (http.h, dbtop-http.so), loaded by
 * the first listen_start(). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "../sources/abi.h"
#include "http.h"
#include "listen.h"

/* the plugin's table, once loaded */
static const struct http_ops *http;

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

	if (!spec_allowed(spec, any, &ss, err, len))
		return NULL;
	if (!http && !(http = plugin_symbol(HTTP_PLUGIN, HTTP_OPS_SYMBOL))) {
		str_printf(err, len, "--listen %s: no HTTP server: %s", spec, plugin_error());
		return NULL;
	}
	return http->start(ss, spec, nslots, err, len);
}

void listen_publish(struct listener *l, size_t slot, const struct model *m, const char *server)
{
	listen_publish_incidents(l, slot, m, NULL, server);
}

void listen_publish_incidents(struct listener *l, size_t slot, const struct model *m, const struct incident_stats *inc,
			      const char *server)
{
	if (l)
		http->publish(l, slot, m, inc, server);
}

unsigned long listen_requests(struct listener *l)
{
	return http->requests(l);
}

void listen_stop(struct listener *l)
{
	if (l)
		http->stop(l);
}
