/* wire_ops: how the parts of the net reach the observed wire (wire.c), and
 * what wire.c keeps of a mix loop.  Part of the net's shared state
 * (loopix/net_internal.h); nothing outside src/loopix/ includes it. */
#ifndef RCSIM_LOOPIX_WIRE_OPS_H
#define RCSIM_LOOPIX_WIRE_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "loopix/net.h"
#include "loopix/ring.h"

/* What the wire (wire.c) keeps of a mix loop, beside its cover_pkt. */
typedef struct wire_loop {
    uint64_t id;   /* wire id */
    uint32_t node; /* where it is */
    uint32_t origin;
} wire_loop;

/* The wire (wire.c), reached through this table: mix.c, which wire.c calls
 * (mix loops' cover packets, per-hop delays), must not call it by name
 * (tests/check_structure.sh), and client.c and provider.c reach it the same
 * way, so that every part meets the wire one way.  Set by rc_net_observe;
 * used only when n->wire.link is set. */
typedef struct wire_ops {
    /* client.c's emit walks a bundle, its covers included, node by node
     * (WAY_WIRE): it leaves client ui at t (the link to its provider; *l is
     * then the bundle as it travels), reaches a mix of each layer in turn
     * (hop, below), and its sub-messages leave the last one (q NULL: a cover) */
    void (*bundle_enter)(rc_net *n, uint32_t ui, rc_time t, uint32_t parts, bool real,
                         rc_wire_link *l);
    void (*bundle_part)(rc_net *n, const rc_wire_link *l, rc_time t, rc_time sent,
                        const qmsg *q);
    /* packet l (a bundle or an injection) reaches mix `to` (node id), its hop
     * `hop` through the mixes; the last hop's mix splits it into `split`;
     * `load`: the sub-messages' bytes it carries */
    void (*hop)(rc_net *n, rc_wire_link *l, uint32_t to, uint32_t hop, rc_time sent,
                rc_time received, uint32_t split, uint32_t load);
    /* provider.c's rc_net_provider_send: user ui's provider makes a packet
     * (body, for recipient) at t, which then hops every layer (hop) and
     * leaves the last for the recipient's provider (inject_exit) */
    void (*inject_enter)(rc_net *n, uint32_t ui, uint32_t recipient, uint32_t body, rc_time t,
                         rc_wire_link *l);
    void (*inject_exit)(rc_net *n, rc_wire_link *l, uint32_t recipient, uint32_t body,
                        rc_time sent, rc_time received);
    /* a mix loop starts at mix index m (layer-major) at t */
    void (*loop_start)(rc_net *n, uint32_t m, rc_time t);
    /* mix loop pk, now at its node, leaves after `delay` and arrives `hand`
     * and its link's latency later: returns when */
    rc_time (*loop_hop)(rc_net *n, uint32_t pk, rc_time now, rc_time delay, rc_time hand);
    /* mix loop pk is back at its mix */
    void (*loop_end)(rc_net *n, uint32_t pk, rc_time now);
    void (*pull)(rc_net *n, uint32_t ui, uint32_t body, rc_time now);
} wire_ops;

#endif
