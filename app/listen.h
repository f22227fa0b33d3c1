/* listen.h - the HTTP endpoint (--listen): /metrics (Prometheus text 0.0.4,
 * or OpenMetrics 1.0 when the client's Accept asks for it) and /healthz,
 * served by libmicrohttpd in its own thread for any number of targets.
 *
 * The endpoint never touches a model. Each target has a slot; the thread
 * that owns a target's model calls listen_publish() after each
 * model_update(): it renders the target's samples outside any lock, then
 * swaps them into the slot under the endpoint's mutex. A request copies the
 * slots' text under that mutex and sends the copy, so a slow or hostile
 * client never holds up sampling or drawing. */
#ifndef DBTOP_LISTEN_H
#define DBTOP_LISTEN_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/model.h"

struct listener;

/* Parse spec ("ADDR:PORT", ":PORT", "PORT", "[V6]:PORT"; no address means
 * 127.0.0.1; "localhost" is 127.0.0.1), refuse a non-loopback address
 * unless any, and start serving nslots targets (>= 1). NULL with the
 * reason in err on failure. */
struct listener *listen_start(const char *spec, bool any, size_t nslots, char *err, size_t len);

/* The address checks of listen_start alone (for the command line): false
 * with the reason in err. */
bool listen_spec_ok(const char *spec, bool any, char *err, size_t len);

/* Publish target slot's newest state: render m under the label server
 * (a target name or host:port, never a URI) and swap it in. Call from the
 * thread that owns m, after each model_update(); one thread per slot. */
void listen_publish(struct listener *l, size_t slot, const struct model *m, const char *server);

/* The same with the incident capture's series of the target (NULL: none). */
struct incident_stats;
void listen_publish_incidents(struct listener *l, size_t slot, const struct model *m, const struct incident_stats *inc,
			      const char *server);

/* Requests answered so far (any status). */
unsigned long listen_requests(struct listener *l);

/* Stop serving and free everything (NULL: nothing). */
void listen_stop(struct listener *l);

#endif
