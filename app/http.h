/* http.h - the --listen endpoint's HTTP server (http.c), a plugin of its
 * own: dbtop-http.so links libmicrohttpd, and listen.c loads it (through
 * the plugin search of sources/registry.c, with its ABI stamp) only when
 * --listen is given. A session without the endpoint maps neither
 * libmicrohttpd nor the TLS libraries it pulls in, and does not run their
 * start-up (0.4 MB of private memory on MariaDB; on PostgreSQL libpq maps
 * GnuTLS anyway, through libldap). */
#ifndef DBTOP_HTTP_H
#define DBTOP_HTTP_H

#include <stddef.h>
#include <sys/socket.h>

#include "../model/model.h"

struct listener;
struct incident_stats;

/* What listen.h's functions call once the plugin is loaded (listen.h says
 * what each does). */
struct http_ops {
	/* serve nslots targets on ss (spec: the address as given, for the
	 * message); NULL with the reason in err. ss by value: nothing of the
	 * caller's is kept */
	struct listener *(*start)(struct sockaddr_storage ss, const char *spec, size_t nslots, char *err, size_t len);
	void (*publish)(struct listener *l, size_t slot, const struct model *m, const struct incident_stats *inc,
			const char *server);
	unsigned long (*requests)(struct listener *l);
	void (*stop)(struct listener *l);
};

#define HTTP_PLUGIN "dbtop-http.so"
#define HTTP_OPS_SYMBOL "dbtop_http_ops"
extern const struct http_ops dbtop_http_ops;

#endif
