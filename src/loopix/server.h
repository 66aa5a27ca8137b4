/* server: one node's finite service (docs/spec.md §1.14): a single server that
 * takes packets in the order they arrive (FIFO), with room for at most `limit`
 * packets in the node (the one in service included; 0 = no limit), and drops
 * an arriving packet that finds it full (drop-tail).  The caller draws each
 * packet's service time; the server only keeps the departure times of the
 * packets it holds, so a packet's departure is known when it arrives.
 * Arrivals must come in time order (node.c takes them as events). */
#ifndef RCSIM_LOOPIX_SERVER_H
#define RCSIM_LOOPIX_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sim.h"

typedef struct rc_server {
    rc_time *dep;        /* departure times of the packets held, oldest first (a ring) */
    uint32_t head, n, cap;
    rc_time busy_until;  /* when the last packet accepted leaves the server */
} rc_server;

/* A packet arrives at `now` needing `service` of work.  Returns false when
 * the node holds `limit` packets (dropped: nothing changes); else *start and
 * *leave are when its service starts and ends.  *held (may be NULL) is the
 * number of packets the node held when it arrived (the queue length an
 * arrival sees). */
bool rc_server_arrive(rc_server *s, rc_time now, rc_time service, uint32_t limit,
                      rc_time *start, rc_time *leave, uint32_t *held);
void rc_server_free(rc_server *s);

#endif
