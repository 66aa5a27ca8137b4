/* traffic: what the wire carries (traffic.c, docs/spec.md §1.12): the mixes'
 * load, the clients' departures and gaps (unobservability) and what active
 * clients pull.  Part of the net's shared state (loopix/net_internal.h, which
 * holds a traffic in struct rc_net); nothing outside src/loopix/ includes it. */
#ifndef RCSIM_LOOPIX_TRAFFIC_H
#define RCSIM_LOOPIX_TRAFFIC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/rng.h"
#include "loopix/net.h"

/* What the wire carries (traffic.c).  The per-mix and per-departure parts
 * exist only with cover_full, when every packet is simulated: mix_in is NULL
 * otherwise. */
typedef struct traffic {
    uint64_t *mix_in;      /* per mix (layer-major): sub-messages it received */
    gsl_rng *rng_route;    /* which mix of a layer a packet visits; nothing else draws from it */
    rc_time *last_emit;    /* per user: its last bundle's departure (NEVER: none since online) */
    uint8_t *active;       /* per user: 1 if marked active (rc_net_mark_active) */
    bool any_active;
    uint32_t *gaps[2];     /* [idle, active]: gap histograms, core/hist buckets of gap x 1024 */
    uint64_t n_gaps[2];
    rc_time sum_gaps[2];
    uint64_t active_online_us;   /* online time of active users (up to their last offline) */
    uint64_t active_pulled, active_pulls; /* real messages they pulled; pulls that found some */
    uint32_t pull_real_max; /* most real messages one pull of an active user took */
} traffic;

/* ---------- traffic.c, called by the other parts ---------- */
void rc_net__traffic_init(rc_net *n, uint64_t seed);
void rc_net__traffic_free(rc_net *n);
/* `count` sub-messages enter the mixes (one of every layer each); cover_full only. */
void rc_net__traffic_route(rc_net *n, uint32_t count);
/* Mix `mix` sends a mix loop: it visits one mix of every other layer and returns. */
void rc_net__traffic_mix_loop(rc_net *n, uint32_t mix);
/* A bundle left client ui at t (cover_full only; after its entries left the queue). */
void rc_net__traffic_departure(rc_net *n, uint32_t ui, rc_time t);
/* Starts loading what a departure of client ui at about t would update: the
 * bucket of its gap (a hint: the histograms of the two classes are 256 KB). */
void rc_net__traffic_prefetch_departure(const rc_net *n, uint32_t ui, rc_time t);
/* Client ui went offline at t: its online time ends, and no gap spans the absence. */
void rc_net__traffic_offline(rc_net *n, uint32_t ui, rc_time t);
/* A pull by client ui took `real` real messages. */
void rc_net__traffic_pull(rc_net *n, uint32_t ui, uint32_t real);
/* The same sums for one message of a pull that has now taken `taken` (direct pulls). */
void rc_net__traffic_pull_one(rc_net *n, uint32_t ui, uint32_t taken);
/* The observed wire (wire.c) chose the mixes: `count` sub-messages reached wire node `node`
 * (nothing when it is not a mix). */
void rc_net__traffic_at_node(rc_net *n, uint32_t node, uint32_t count);

#endif
