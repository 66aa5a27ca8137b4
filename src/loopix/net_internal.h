/* net_internal: what the parts of the Loopix net share; nothing outside
 * src/loopix/ includes it.
 *
 * The net is one object (struct rc_net) holding one record per client
 * (user).  Its code is split along Loopix's actors:
 *   client.c    send queue, payload and cover streams, bundling, the idle regime
 *   provider.c  postboxes and pulls
 *   mix.c       per-hop delays; cover packets and mix loops through the mixes
 *   net.c       construction, availability (trace toggles, forced-offline
 *               windows, going on- and offline) and the public API
 * A function one part calls in another is named rc_net__<verb> and declared
 * here; everything else stays static in its file.  Small helpers that the hot
 * paths of several parts use are static inline below, and so are the
 * availability predicates: net.c drives the actors, and they read a client's
 * availability from its record instead of calling back into net.c, so calls
 * between the files never go round in a circle (tests/check_structure.sh).
 *
 * Ownership: rc_net owns the users (their queues), the postbox heaps and the
 * cover packet records; rc_net_free releases all.
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

/* Random streams of the net (core/rng.h stream ids). */
enum { STREAM_COVER = 1, STREAM_DELAY = 2, STREAM_PHASE = 3, STREAM_MIXLOOP = 4, STREAM_WIRE = 5,
       STREAM_ROUTE = 6 };

#define NEVER INT64_MAX

/* A real message in a client's queues: its recipient (TO_PROVIDER: it ends
 * at the sender's own provider, rc_net_send_provider), the upper layer's body
 * handle, and in the bundling queue its position there (positions count from
 * wait_head, mod 2^32; unused in the send queue).  The queues hold the
 * message itself, not an index of a record elsewhere: draining a long send
 * queue then reads the queue in order and no record of its own (issue 28). */
typedef struct qmsg {
    uint32_t recipient, body, pos;
} qmsg;

#define TO_PROVIDER UINT32_MAX

/* A ring buffer of qmsg (send queue, bundling queue); cap is 0 or a power of
 * two, so positions wrap with a mask. */
typedef struct ring {
    qmsg *a;
    uint32_t head, n, cap;
} ring;

static inline void ring_push(ring *r, qmsg v)
{
    if (r->n == r->cap) {
        uint32_t ncap = r->cap ? r->cap * 2 : 8;
        qmsg *na = rc_xmalloc(ncap * sizeof *na);
        for (uint32_t i = 0; i < r->n; i++) na[i] = r->a[(r->head + i) & (r->cap - 1)];
        free(r->a);
        r->a = na;
        r->cap = ncap;
        r->head = 0;
    }
    r->a[(r->head + r->n) & (r->cap - 1)] = v;
    r->n++;
}

/* The i-th entry from the head (i < n). */
static inline const qmsg *ring_at(const ring *r, uint32_t i)
{
    return &r->a[(r->head + i) & (r->cap - 1)];
}

/* A ring that drains gives back a long buffer: a group's source queues a copy
 * per member at once, and 10^5 clients each keeping the longest queue they
 * ever had would hold more memory than the messages in flight (issue 28). */
#define RING_KEEP 64

static inline qmsg ring_pop(ring *r)
{
    RC_ASSERT(r->n > 0);
    qmsg v = r->a[r->head];
    r->head = (r->head + 1) & (r->cap - 1);
    if (--r->n == 0 && r->cap > RING_KEEP) {
        free(r->a);
        *r = (ring){NULL, 0, 0, 0};
    }
    return v;
}

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
 * (provider.c) and its availability (net.c).  What a delivery touches -- the
 * postbox and the pull state, read when a message is filed and when it is
 * pulled -- comes first and the record is aligned to a cache line, so filing
 * and pulling cost two adjacent lines of the record (issue 28: with 10^5 clients every
 * delivery finds its recipient's record out of cache). */
#define USER_ALIGN 64
typedef struct user {
    /* filed and pulled: the first two cache lines */
    _Alignas(USER_ALIGN) pbox postbox;
    bool online, pull_scheduled;
    bool forced_offline, busy, in_stationary_reset;
    rc_time pull_due, pull_at, last_online_at;
    uint64_t pull_ver;
    /* the rest */
    uint32_t provider, line;
    ring out;       /* real messages not yet in a bundle slot */
    /* Bundling queue: wait_n entries, covers and real messages in firing
     * order.  Covers are only counted; a real message is kept with its
     * position in the queue (qmsg.pos), so a bundle of p entries costs O(its
     * real messages), not O(p) queue operations (at p = 16 most entries are
     * covers). */
    uint32_t wait_n, wait_head;
    ring wait; /* the real entries of the bundling queue */
    rc_time next_pay, next_drop, next_loop, backlog_at;
    rc_time idle_since;
    /* aggregate cover (rc_net_cfg.aggregate_cover): the drop and loop firings
     * after this instant are not counted yet */
    rc_time cover_from;
    uint64_t stream_ver;
    rc_time pull_remaining;
    /* availability: the trace's state, and a forced-offline window */
    bool trace_on;
    rc_time force_from, force_until;
    uint32_t toggle_idx;
    uint64_t toggle_period_k;
} user;
_Static_assert(offsetof(user, pull_ver) + sizeof(uint64_t) <= 2 * USER_ALIGN,
               "the filed-and-pulled fields fit two cache lines");

/* Population model 3 (rc_net_cfg.direct_pull): what a message scheduled
 * straight for its recipient's pull reads of the recipient, in an array of its
 * own (32 bytes a client, two to a cache line, against the record's 320): its
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

typedef struct cover_pkt {
    uint8_t hops_left;
} cover_pkt;

/* What the wire (wire.c) keeps of a mix loop, beside its cover_pkt. */
typedef struct wire_loop {
    uint64_t id;   /* wire id */
    uint32_t node; /* where it is */
    uint32_t origin;
} wire_loop;

/* The wire (wire.c), reached through this table so that the actors it
 * observes (client.c, mix.c, provider.c), which it also calls, do not call it
 * by name (tests/check_structure.sh).  Set by rc_net_observe. */
typedef struct wire_ops {
    /* client.c's emit walks a bundle, its covers included, node by node
     * (WAY_WIRE): it leaves client ui at t (the link to its provider; *l is
     * then the bundle as it travels) ... */
    void (*bundle_enter)(rc_net *n, uint32_t ui, rc_time t, uint32_t parts, bool real,
                         rc_wire_link *l);
    /* ... it reaches a mix of each layer in turn ... */
    void (*bundle_hop)(rc_net *n, rc_wire_link *l, uint32_t layer, rc_time sent,
                       rc_time received, uint32_t parts);
    /* ... and its sub-messages leave the last one (q NULL: a cover) */
    void (*bundle_part)(rc_net *n, const rc_wire_link *l, rc_time t, rc_time sent,
                        const qmsg *q);
    /* a mix loop starts at mix index m (layer-major) at t */
    void (*loop_start)(rc_net *n, uint32_t m, rc_time t);
    /* mix loop pk, now at its node, leaves after `delay` and arrives `hand` later */
    void (*loop_hop)(rc_net *n, uint32_t pk, rc_time now, rc_time delay, rc_time hand);
    /* mix loop pk is back at its mix */
    void (*loop_end)(rc_net *n, uint32_t pk, rc_time now);
    void (*pull)(rc_net *n, uint32_t ui, uint32_t body, rc_time now);
    /* rc_net_provider_send's packet (body, for recipient, from user ui's provider),
     * leaving at t: routes and reports it; returns its arrival at the recipient's provider */
    rc_time (*provider_send)(rc_net *n, uint32_t ui, uint32_t recipient, uint32_t body, rc_time t);
} wire_ops;

struct rc_net {
    rc_sim *sim;
    rc_net_hooks hooks;
    rc_net_counters ctr;
    uint32_t n_users, layers, width;
    user *users;
    /* per user: its record's `online`, kept beside the records too: choosing a
     * multicast's sender reads every member's (rc_net_online), one byte each
     * here instead of a cache line of each member's record (issue 28) */
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

/* mix.c */
/* One per-hop delay of a message (rng_delay, rate mu). */
rc_time rc_net__hop_delay(rc_net *n);
/* The sum of `hops` per-hop delays as one Gamma(hops, mu) draw (continuous
 * time only: population model 2, client.c). */
rc_time rc_net__hops_delay(rc_net *n, unsigned hops);
/* Builds steps_hop (lattice). */
void rc_net__hop_steps(rc_net *n);
/* A cover packet enters the mixes at time t and makes `hops` hops; returns its index. */
uint32_t rc_net__cover_send(rc_net *n, uint8_t hops, rc_time t);
void rc_net__on_cover_hop(void *ctx, const rc_event *ev); /* RC_EV_COVER_HOP */
void rc_net__on_mix_loop(void *ctx, const rc_event *ev);  /* RC_EV_MIX_LOOP */

/* traffic.c (docs/spec.md §1.12) */
void rc_net__traffic_init(rc_net *n, uint64_t seed);
void rc_net__traffic_free(rc_net *n);
/* `count` sub-messages enter the mixes (one of every layer each); cover_full only. */
void rc_net__traffic_route(rc_net *n, uint32_t count);
/* Mix `mix` sends a mix loop: it visits one mix of every other layer and returns. */
void rc_net__traffic_mix_loop(rc_net *n, uint32_t mix);
/* A bundle left client ui at t (cover_full only; after its entries left the queue). */
void rc_net__traffic_departure(rc_net *n, uint32_t ui, rc_time t);
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
