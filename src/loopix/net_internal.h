/* net_internal: what the parts of the net share; nothing outside src/loopix/
 * includes it (nor the three headers it gathers).
 *
 * The net is one object (struct rc_net) holding one record per client
 * (user).  Its code is split along Loopix's actors, with two observers:
 *   client.c    send queue, payload and cover streams, the one path every
 *               bundle takes (emit), the idle regime
 *   provider.c  postboxes and pulls, relays, provider injections
 *   mix.c       per-hop delays; cover packets and mix loops through the mixes
 *   net.c       construction, availability (trace toggles, forced-offline
 *               windows, going on- and offline) and the public API
 *   traffic.c   what the wire carries: mix load, departures and gaps, pulls
 *               of active clients (--cover full; docs/spec.md §1.12)
 *   node.c      nodes that serve (finite capacity) and mix by a rule
 *               other than Poisson: packets hop by hop as events
 *   wire.c      the observed wire: every link reported to an attached
 *               observer (rc_net_observe; docs/spec.md §10)
 * The shared state, one concept a header:
 *   loopix/ring.h      a client's message queues (qmsg ring buffers)
 *   loopix/traffic.h   traffic.c's sums (struct traffic) and its entry points
 *   loopix/wire_ops.h  the table through which the parts reach wire.c
 *   this header        the client record (postbox, pull state, queues,
 *                      streams, availability), struct rc_net, the small
 *                      helpers and availability predicates several parts
 *                      read, and what client.c, provider.c and mix.c call in
 *                      one another
 * A function one part calls in another is named rc_net__<verb> and declared
 * here (traffic.c's in loopix/traffic.h); everything else stays static in
 * its file.  Small helpers that the hot paths of several parts use are
 * static inline, and so are the availability predicates: net.c drives the
 * actors, and they read a client's availability from its record instead of
 * calling back into net.c, so calls between the files never go round in a
 * circle (tests/check_structure.sh).
 *
 * Ownership: rc_net owns the users (their queues), the postbox heaps and the
 * observed cover packets' records; rc_net_free releases all.
 */
#ifndef RCSIM_LOOPIX_NET_INTERNAL_H
#define RCSIM_LOOPIX_NET_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/log.h"
#include "core/rng.h"
#include "loopix/net.h"
#include "loopix/ring.h"
#include "loopix/server.h"
#include "loopix/traffic.h"
#include "loopix/wire_ops.h"

/* Random streams of the net (core/rng.h stream ids). */
enum { STREAM_COVER = 1, STREAM_DELAY = 2, STREAM_PHASE = 3, STREAM_MIXLOOP = 4, STREAM_WIRE = 5,
       STREAM_ROUTE = 6, STREAM_NODE = 7, STREAM_SERVICE = 8,
       STREAM_PATH = 9 };

#define NEVER INT64_MAX

/* A postbox: the messages addressed to one client that have left their
 * sender, as a min-heap by (arrival time, sequence).  Nothing in the network
 * has a capacity, so a message's arrival time is known when its bundle leaves
 * (docs/spec.md §1.6); keeping future arrivals here instead of as events in the global
 * queue keeps that queue small.  A pull takes the entries that have arrived.
 * An entry holds all a pull needs (arrival time, body): a pull touches no
 * record of the net that was last used seconds earlier (in saturated runs, a
 * cache miss each). */
typedef struct pentry {
    rc_time t; /* arrival */
    uint64_t seq;
    uint32_t body;
} pentry;

/* Most postboxes hold one or two messages at a time (a pull takes about
 * 1.3 in population mode), so the first PBOX_INLINE entries live in the
 * client's record, on the line a pull reads anyway; a longer postbox moves to
 * the heap (a stays pointing at inl until then). */
#define PBOX_INLINE 2
typedef struct pbox {
    pentry *a; /* inl, or an allocation once cap > PBOX_INLINE */
    uint32_t n, cap;
    pentry inl[PBOX_INLINE];
} pbox;

/* One client: its sending side (client.c), its pulls and postbox
 * (provider.c) and its availability (net.c), in 256 bytes, aligned to
 * USER_ALIGN (the array to USER_ARRAY_ALIGN).  What a delivery touches -- the
 * postbox and the pull state, read when a message is filed and when it is
 * pulled -- comes first, so filing and pulling cost two adjacent lines of the
 * record (with 10^5 clients every delivery finds its recipient's record out of
 * cache).  What a stream firing touches -- the streams' next firings and both
 * queues -- is the next two lines, the record's second aligned 128 bytes
 * (a stream firing in a population of 10^4 clients read three lines of 64
 * beside its availability, each a cache miss; rc_net__prefetch_stream now
 * fetches the two). */
#define USER_ALIGN 64
#define USER_ARRAY_ALIGN 128
typedef struct user {
    /* filed and pulled: the first two cache lines */
    _Alignas(USER_ALIGN) pbox postbox;
    bool online, pull_scheduled;
    bool forced_offline, busy, in_stationary_reset;
    bool trace_on;  /* availability: the trace's state */
    rc_time pull_due, pull_at, last_online_at;
    uint64_t pull_ver;
    uint32_t provider, line;
    rc_time idle_since;
    rc_time pull_remaining;
    /* the streams: the third and fourth lines */
    _Alignas(USER_ALIGN) uint64_t stream_ver;
    rc_time next_pay, next_drop, next_loop, backlog_at;
    /* Bundling queue: wait_n entries, covers and real messages in firing
     * order.  Covers are only counted; a real message is kept with its
     * position in the queue (qmsg.pos), so a bundle of p entries costs O(its
     * real messages), not O(p) queue operations (at p = 16 most entries are
     * covers). */
    uint32_t wait_n, wait_head;
    ring wait; /* the real entries of the bundling queue */
    ring out;  /* real messages not yet in a bundle slot */
    /* aggregate cover (rc_net_cfg.aggregate_cover): the drop and loop firings
     * after this instant are not counted yet */
    rc_time cover_from;
    /* the rest: availability (a forced-offline window, the trace's next toggle) */
    rc_time force_from, force_until;
    uint32_t toggle_idx, toggle_period_k;
} user;
_Static_assert(offsetof(user, pull_ver) + sizeof(uint64_t) <= 2 * USER_ALIGN,
               "the filed-and-pulled fields fit two cache lines");
_Static_assert(offsetof(user, stream_ver) == 2 * USER_ALIGN &&
                   offsetof(user, cover_from) + sizeof(rc_time) <= 4 * USER_ALIGN,
               "the stream fields are the record's second 128 bytes");
_Static_assert(sizeof(user) == 4 * USER_ALIGN, "a record is four cache lines");

/* Population model 3 (rc_net_cfg.direct_pull): what a message scheduled
 * straight for its recipient's pull reads of the recipient, in an array of its
 * own (32 bytes a client, two to a cache line, against the record's 256): its
 * pull phase when the message leaves, and when it is taken, whether the
 * recipient stayed online since the arrival and whether this is a new pull. */
typedef struct pslot {
    _Alignas(32) rc_time grid; /* one of its pull instants: they are grid + k x pull_period */
    rc_time last_online;       /* the record's last_online_at */
    rc_time last_pull;         /* the instant of its last pull (NEVER: none yet) */
    uint32_t taken;            /* real messages that pull has taken so far */
} pslot;
_Static_assert(sizeof(pslot) == 32, "two pull slots to a cache line");

/* A direct message's event (kind RC_EV_PULL, obj = recipient) carries in its
 * arg this bit, its body, and how long before the pull it arrived. */
#define DIRECT_BIT (1ULL << 63)

typedef struct cover_pkt {
    uint32_t next_free; /* while the slot is free: the next free slot */
    uint8_t hops_left;
} cover_pkt;

/* ---------- nodes that serve and mix (node.c) ---------- */

/* A packet travelling hop by hop (node.c): a bundle (its real entries in
 * `reals`, its covers only counted in `size`), one of its parts after the
 * last layer's split, a provider's injection, or a mix loop. */
typedef struct npkt {
    rc_time t0;        /* when it left its sender (or was made) */
    uint32_t ui;       /* the sending client (UINT32_MAX: a mix loop) */
    uint32_t node;     /* the node it is at or on its way to (providers, then mixes) */
    uint32_t origin;   /* a mix loop's mix */
    uint32_t chain;    /* a cascade's chain (route_mix), drawn at hop 0 */
    uint8_t kind;      /* node.c's PK_ */
    uint8_t stage;     /* hops made after its first node */
    uint16_t size;     /* sub-messages it carries */
    uint32_t recipient, body; /* a part or injection: the real message (body UINT32_MAX: a cover) */
    uint32_t nreal;    /* a bundle: its real entries */
    qmsg *reals;
    uint32_t next_free;
    rc_wire_link wl;   /* with an observer: the packet as it travels */
} npkt;

/* One node (providers 0 .. n_providers-1, then the mixes layer by layer). */
typedef struct nnode {
    rc_server srv;     /* finite service */
    uint32_t *held, nheld, capheld; /* threshold and pool mixes: the packets in */
    rc_time phase;     /* timed mixes: its flush instants are phase + k x period */
} nnode;

typedef struct nodes {
    bool on;           /* packets go hop by hop through the nodes */
    int kind;          /* RC_MIX_ */
    uint32_t threshold, pool, limit;
    rc_time period;
    double mix_rate, provider_rate; /* sub-messages per second; 0 = infinite */
    rc_time proc;      /* fixed processing per sub-message (us; 0 = none) */
    nnode *node;
    uint32_t n_node;
    npkt *pk;
    uint32_t n_pk, cap_pk, free;
    uint64_t inflight; /* real messages inside packets in the nodes */
    uint64_t flushes;
    gsl_rng *rng, *rng_service; /* mixes of a path, pools, phases; service times */
} nodes;

struct rc_net {
    rc_sim *sim;
    rc_net_hooks hooks;
    rc_net_counters ctr;
    uint32_t n_users, layers, width;
    user *users;
    /* per user: its record's `online`, kept beside the records too: choosing a
     * multicast's sender reads every member's (rc_net_online), one byte each
     * here instead of a cache line of each member's record */
    uint8_t *online_of;
    uint64_t postbox_seq;
    uint64_t subs_created, subs_pulled; /* message conservation (run-time check) */
    uint64_t subs_relayed;              /* ... ended at their sender's provider */
    /* Provider injections (rc_net_provider_send): per provider, when its next
     * injection slot is free (us, continuous); the gap between slots (us, 0 =
     * unlimited). */
    double *provider_free;
    double provider_gap;
    uint32_t n_providers;
    int p;
    bool lattice, frozen_pull, ingress_delay, cover_full, in_pull;
    /* cfg.aggregate_cover, narrowed at rc_net_start to where it applies:
     * busy clients simulate their payload stream only (client.c) */
    bool aggregate;
    double cover_rate_us; /* drop + loop firings per microsecond (aggregate) */
    /* cfg.direct_pull, narrowed at rc_net_start to where it applies (provider.c) */
    bool direct;
    pslot *pslot;         /* per client, with direct; NULL otherwise */
    uint64_t direct_held; /* direct messages scheduled and not yet taken (in flight) */
    /* Model 4 (cfg.direct_arrival_order, with direct): the pull-class events
     * carry their own order within an instant (provider.c, pull_seq): the
     * arrival in the high bits, from bit seq_shift up, and below it a count of
     * the events filed, seq_next, which must stay under 1 << seq_shift. */
    bool arrival_order;
    unsigned seq_shift;
    uint64_t seq_next;
    rc_time tick;        /* lattice step (us); 1 when off */
    rc_time pull_period; /* us */
    double rate_pay, rate_drop, rate_loop, mu; /* per second, after x p and / lambda_div */
    double f_pay, f_drop, f_loop;              /* per-tick firing probabilities (lattice) */
    double g_pay, g_drop, g_loop;              /* 1/log(1-f), for geometric draws */
    double mix_rate_loop, mix_mu;
    /* idle-chain stationary law (client.c, rc_net__idle_law) */
    rc_time mix_time;
    double *stat_cdf;
    uint32_t stat_n;
    const rc_trace *trace;
    uint32_t trace_period_s;
    gsl_rng *rng_cover, *rng_delay, *rng_mixloop;
    /* Lattice only: the stream gaps (in ticks) and the per-hop delay (in
     * ticks) as step tables of their draws (core/rng.h); equal laws share a
     * table.  NULL when the law is not drawn through a table. */
    rc_rng_steps *steps_pay, *steps_drop, *steps_loop, *steps_hop;
    rc_rng_steps *steps_own[4]; /* what rc_net_free releases */
    traffic tr;
    cover_pkt *cpk;
    uint32_t n_cpk, cap_cpk, cpk_free;
    /* The wire (wire.c): wire.link is NULL unless an observer is attached. */
    rc_net_wire wire;
    const wire_ops *wops;
    uint64_t seed;
    gsl_rng *rng_wire; /* mixes of each path, cover destinations */
    uint64_t wire_seq;
    wire_loop *wloop; /* per cover packet (mix loops), cap_wloop entries */
    uint32_t cap_wloop;
    nodes nd;              /* node.c */
    uint64_t subs_dropped; /* real messages a full node dropped */
    /* Links (docs/spec.md §1.16) and topology (§1.17).  link_fixed: every
     * link's latency (us) without a map; with one, region_lat (n_regions
     * squared, us, row = from) by node_region (per node id).  A path's mixes
     * matter to latency only with a map: then unobserved paths draw them from
     * rng_path (observed ones from rng_wire, as always). */
    rc_time link_fixed;
    rc_time *region_lat;
    uint32_t *node_region;
    uint32_t n_regions;
    rc_topology topology;
    gsl_rng *rng_path;
};

/* ---------- small helpers ---------- */

static inline void set_online(rc_net *n, uint32_t ui, bool on)
{
    n->users[ui].online = on;
    n->online_of[ui] = on;
}

static inline rc_time step(const rc_net *n) { return n->lattice ? n->tick : 1; }

static inline bool has_real(const user *u) { return u->out.n > 0 || u->wait.n > 0; }

/* Covers ahead of the first real entry of the bundling queue (all of it when
 * none is real). */
static inline uint32_t covers_ahead(const user *u)
{
    return u->wait.n > 0 ? ring_at(&u->wait, 0)->pos - u->wait_head : u->wait_n;
}

/* The first instant of base + k x period (k >= 0) at or after a: a client's
 * pulls lie on such a grid (provider.c). */
static inline rc_time grid_at_or_after(rc_time base, rc_time period, rc_time a)
{
    if (a <= base) return base;
    return base + (a - base + period - 1) / period * period;
}

/* The latency of the link from node a to node b (us). */
static inline rc_time link_lat(const rc_net *n, uint32_t a, uint32_t b)
{
    if (n->region_lat == NULL) return n->link_fixed;
    return n->region_lat[(size_t)n->node_region[a] * n->n_regions + n->node_region[b]];
}

static inline uint32_t provider_node(const rc_net *n, uint32_t ui)
{
    return n->n_users + n->users[ui].provider;
}

/* The mix (node id) at hop `hop` (0 .. layers-1) of a path through the
 * mixes, drawn from r by the topology: stratified, one of layer hop's mixes;
 * cascade, mix *chain of layer hop, the chain drawn at hop 0; free-route, any
 * mix.  Stratified draws exactly what the wire always drew. */
static inline uint32_t route_mix(const rc_net *n, gsl_rng *r, uint32_t hop, uint32_t *chain)
{
    uint32_t first = n->n_users + n->n_providers;
    switch (n->topology) {
    case RC_TOPO_CASCADE:
        if (hop == 0) *chain = rc_rng_below(r, n->width);
        return first + hop * n->width + *chain;
    case RC_TOPO_FREE_ROUTE:
        return first + rc_rng_below(r, n->layers * n->width);
    default:
        return first + hop * n->width + rc_rng_below(r, n->width);
    }
}

/* The mix of layer `layer` for a mix loop from mix `own` (counted over the
 * layers from 0), a node id as route_mix's, drawn from r: stratified, any of
 * that layer's; cascade, own's chain; free-route, any mix but own.  A loop is
 * home when it reaches its own mix (docs/spec.md §1.6), so under free-route it
 * must not pass through it on the way: the observer would end it there and
 * then see it leave a pool it never entered.  The wire (wire.c), the serving
 * nodes (node.c) and the counted loops (traffic.c) all route loops here. */
static inline uint32_t loop_route_mix(const rc_net *n, gsl_rng *r, uint32_t layer, uint32_t own)
{
    uint32_t first = n->n_users + n->n_providers;
    switch (n->topology) {
    case RC_TOPO_CASCADE:
        return first + layer * n->width + own % n->width;
    case RC_TOPO_FREE_ROUTE: {
        uint32_t m = rc_rng_below(r, n->layers * n->width - 1);
        return first + (m >= own ? m + 1 : m);
    }
    default:
        return first + layer * n->width + rc_rng_below(r, n->width);
    }
}

/* ---------- availability, read by net.c (which drives it) and client.c ---------- */

/* The time of the client's next availability change (NEVER without one);
 * bounds a busy client's look-ahead. */
static inline rc_time next_toggle(const rc_net *n, const user *u)
{
    rc_time t = NEVER;
    if (n->trace != NULL && !u->forced_offline) {
        bool at0;
        size_t cnt;
        const uint32_t *tg = rc_trace_toggles(n->trace, u->line, &at0, &cnt);
        if (cnt > 0)
            t = ((rc_time)u->toggle_period_k * n->trace_period_s + tg[u->toggle_idx]) * 1000000;
        /* the day's wrap can flip the state too (net.c, on_avail) */
        rc_time wrap = ((rc_time)u->toggle_period_k + 1) * n->trace_period_s * 1000000;
        if (wrap < t) t = wrap;
    }
    /* a forced-offline window that has not started yet */
    if (u->force_from != NEVER && u->force_from > n->sim->now && u->force_from < t)
        t = u->force_from;
    return t;
}

/* The online state the client should have at t: its trace says online and no
 * forced-offline window covers t. */
static inline bool wanted_online(const user *u, rc_time t)
{
    return !u->forced_offline && u->trace_on && !(t >= u->force_from && t < u->force_until);
}

/* ---------- across the parts ---------- */

/* client.c */
/* Redraws the three streams' next firings after `from`. */
void rc_net__streams_redraw(rc_net *n, user *u, rc_time from);
void rc_net__schedule_stream(rc_net *n, uint32_t ui);
/* Brings an idle, online client's cover streams up to `limit` (exclusive). */
void rc_net__idle_catch_up(rc_net *n, uint32_t ui, rc_time limit);
/* Computes the idle chain's stationary law and mixing time (at construction). */
void rc_net__idle_law(rc_net *n);
/* Builds the stream-gap step tables (lattice). */
void rc_net__gap_steps(rc_net *n);
void rc_net__on_stream(void *ctx, const rc_event *ev); /* RC_EV_STREAM */
void rc_net__prefetch_stream(void *ctx, uint32_t ui, uint64_t arg, unsigned stage); /* its rc_sim prefetch */

/* provider.c */
rc_time rc_net__next_pull_at_or_after(const rc_net *n, const user *u, rc_time a);
/* Schedules a pull if an online client has mail and none is due early enough. */
void rc_net__ensure_pull(rc_net *n, uint32_t ui, rc_time now);
/* Files a real message (body, for recipient, which left its sender at
 * `emitted`) in the recipient's postbox, arriving at `arrive`. */
void rc_net__deliver_to_postbox(rc_net *n, uint32_t recipient, uint32_t body, rc_time emitted,
                                rc_time arrive);
void rc_net__on_pull(void *ctx, const rc_event *ev); /* RC_EV_PULL */
void rc_net__prefetch_pull(void *ctx, uint32_t ui, uint64_t arg, unsigned stage); /* its rc_sim prefetch */
void rc_net__on_relay(void *ctx, const rc_event *ev); /* RC_EV_RELAY */

/* provider.c: the instant of client ui's provider's next injection slot
 * (provider_rate), and an injection's hops when no node serves or batches */
rc_time rc_net__provider_slot(rc_net *n, uint32_t ui);
void rc_net__provider_inject(rc_net *n, uint32_t ui, uint32_t recipient, uint32_t body, rc_time t);

/* node.c (only with n->nd.on) */
void rc_net__nodes_init(rc_net *n, const rc_net_cfg *cfg);
void rc_net__nodes_free(rc_net *n);
/* A bundle of p sub-messages leaves client ui at t (`parts` of them go on
 * through the mixes, `real`: one is real); returns the packet, to which
 * client.c adds its real entries (node_bundle_add) before sending it. */
uint32_t rc_net__node_bundle(rc_net *n, uint32_t ui, rc_time t, uint32_t p, uint32_t parts,
                             bool real);
void rc_net__node_bundle_add(rc_net *n, uint32_t pk, const qmsg *q);
void rc_net__node_bundle_send(rc_net *n, uint32_t pk);
/* Client ui's provider makes an injection (body, for recipient) at t. */
void rc_net__node_inject(rc_net *n, uint32_t ui, uint32_t recipient, uint32_t body, rc_time t);
void rc_net__on_node(void *ctx, const rc_event *ev);          /* RC_EV_NODE */
void rc_net__node_on_mix_loop(void *ctx, const rc_event *ev); /* RC_EV_MIX_LOOP with nodes */

/* mix.c */
/* One per-hop delay of a message (rng_delay, rate mu). */
rc_time rc_net__hop_delay(rc_net *n);
/* The sum of `hops` per-hop delays as one Gamma(hops, mu) draw (continuous
 * time only: population model 2, client.c). */
rc_time rc_net__hops_delay(rc_net *n, unsigned hops);
/* Builds steps_hop (lattice). */
void rc_net__hop_steps(rc_net *n);
/* A cover packet enters the mixes at time t and makes `hops` hops; returns
 * its slot in cpk (with an observer; UINT32_MAX, none, without one). */
uint32_t rc_net__cover_send(rc_net *n, uint8_t hops, rc_time t);
void rc_net__on_cover_hop(void *ctx, const rc_event *ev); /* RC_EV_COVER_HOP */
void rc_net__on_mix_loop(void *ctx, const rc_event *ev);  /* RC_EV_MIX_LOOP */




#endif
