/* node: the network as nodes that serve and mix (docs/spec.md §1.14, §1.15).
 *
 * Runs only when a node has a finite service rate or the mixes follow a rule
 * other than Poisson (rc_net_cfg: mix_service_rate, provider_service_rate,
 * mix_kind); otherwise a packet's whole path is drawn when it leaves its
 * sender (client.c, emit) since no node depends on another packet.  Here a
 * packet's delay at a node does: a packet travels hop by hop as events
 * (RC_EV_NODE), and each node takes its arrivals in time order:
 *   - service: a FIFO server (loopix/server.h), each packet needing a fixed
 *     processing time per sub-message it carries (node_processing_s) plus, at
 *     a node with a rate, an exponential time of mean (sub-messages) / rate;
 *     at most queue_limit packets held, drop-tail;
 *   - mixing, after service: at a mix by its rule -- poisson (an exponential
 *     delay, as the latency model), threshold and pool (hold until n + f
 *     packets are in, send n chosen uniformly, keep f; threshold is f = 0),
 *     timed (send every packet at the mix's next flush instant, phase + k T);
 *     at a provider the Poisson delay of q_ingress_delay on the way in, none
 *     on the way out.
 * The path is the observer's (docs/spec.md §10.1): a bundle, covers inside,
 * passes the sender's provider and one mix of each hop (chosen by the
 * topology from this file's stream, route_mix), splits at the L-th hop into its sub-messages,
 * each to its recipient's provider (a cover to a provider drawn uniformly),
 * where a real one is filed in the postbox; provider injections and mix loops
 * take the nodes of their paths.  Between two nodes a packet crosses the
 * link's latency (docs/spec.md §1.16) before it queues at the next.  Every
 * link is reported to an attached observer when it is decided (at its start
 * at the latest). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopix/net_internal.h"

enum { PK_BUNDLE, PK_PART, PK_INJECT, PK_LOOP };

static inline rc_time hand_of(const rc_net *n) { return n->lattice ? n->tick : 0; }
static inline uint32_t mix_node(const rc_net *n, uint32_t layer, uint32_t i)
{
    return n->n_providers + layer * n->width + i;
}
static inline bool is_provider(const rc_net *n, uint32_t x) { return x < n->n_providers; }
static inline uint32_t layer_of(const rc_net *n, uint32_t x) { return (x - n->n_providers) / n->width; }
/* wire node id of node x */
static inline uint32_t wid(const rc_net *n, uint32_t x) { return n->n_users + x; }

static uint32_t pk_new(rc_net *n)
{
    nodes *s = &n->nd;
    uint32_t i;
    if (s->free != UINT32_MAX) {
        i = s->free;
        s->free = s->pk[i].next_free;
    } else {
        if (s->n_pk == s->cap_pk) {
            s->cap_pk = s->cap_pk ? s->cap_pk * 2 : 1024;
            s->pk = rc_xrealloc(s->pk, s->cap_pk * sizeof *s->pk);
        }
        i = s->n_pk++;
    }
    s->pk[i] = (npkt){0};
    s->pk[i].recipient = s->pk[i].body = UINT32_MAX;
    return i;
}

static void pk_free(rc_net *n, uint32_t i)
{
    npkt *p = &n->nd.pk[i];
    free(p->reals);
    p->reals = NULL;
    p->next_free = n->nd.free;
    n->nd.free = i;
}

/* The packet reaches node x at t. */
static void arrive_at(rc_net *n, uint32_t pi, uint32_t x, rc_time t)
{
    n->nd.pk[pi].node = x;
    rc_sim_at(n->sim, t, RC_CLS_MIX, RC_EV_NODE, pi, 0);
}

/* Packet pi leaves its node at `sent` for node `to`: it crosses the link
 * (its latency, docs/spec.md §1.16, after the lattice's hand-over) and
 * reaches `to`, where it queues and mixes again; an attached observer is
 * shown the link (the last layer's split into `split`; `exits`: it ends a
 * path through the mixes). */
static void hop(rc_net *n, uint32_t pi, uint32_t to, rc_time sent, uint32_t split, bool exits)
{
    npkt *p = &n->nd.pk[pi];
    rc_time received = sent + hand_of(n) + link_lat(n, wid(n, p->node), wid(n, to));
    if (n->wire.link != NULL) {
        p->wl.kind = RC_WIRE_LINK;
        p->wl.from = wid(n, p->node);
        p->wl.to = wid(n, to);
        p->wl.sent = sent;
        p->wl.received = received;
        p->wl.split = split;
        p->wl.exits = exits;
        n->wire.link(n->wire.ctx, &p->wl);
        p->wl.parent = RC_WIRE_NONE;
    }
    arrive_at(n, pi, to, received);
}

/* The real messages a packet holds (for accounting). */
static uint32_t reals_of(const npkt *p)
{
    if (p->kind == PK_BUNDLE) return p->nreal;
    return (p->kind == PK_PART || p->kind == PK_INJECT) && p->body != UINT32_MAX ? 1 : 0;
}

/* ---------- where a packet goes next ---------- */

/* The mix of hop `hop` of packet p's path by the topology (docs/spec.md
 * §1.17, route_mix; a cascade's chain is drawn at hop 0 and kept in p). */
static uint32_t path_mix(rc_net *n, npkt *p, uint32_t hop)
{
    return route_mix(n, n->nd.rng, hop, &p->chain) - n->n_users;
}

/* A mix of layer `layer` for a mix loop from node `origin` (loop_route_mix,
 * as the wire's loops). */
static uint32_t loop_mix(rc_net *n, uint32_t origin, uint32_t layer)
{
    return loop_route_mix(n, n->nd.rng, layer, origin - n->n_providers) - n->n_users;
}

/* A mix loop from a mix of layer o visits layers o+1 .. L-1, a provider,
 * layers 0 .. o-1 and its own mix (docs/spec.md §1.6): its hop j (1-based). */
static uint32_t loop_next(rc_net *n, const npkt *p)
{
    uint32_t L = n->layers, o = layer_of(n, p->origin), j = p->stage + 1u;
    if (j == L + 1) return p->origin;
    uint32_t k = o + j;
    if (k < L) return loop_mix(n, p->origin, k);
    if (k == L) return rc_rng_below(n->nd.rng, n->n_providers);
    return loop_mix(n, p->origin, k - L - 1);
}

static void split_bundle(rc_net *n, uint32_t pi, rc_time dep);
static void mix_hold(rc_net *n, uint32_t pi, rc_time in);

/* Packet pi leaves its node at `leave`: on to its next node, or its end. */
static void depart(rc_net *n, uint32_t pi, rc_time leave)
{
    npkt *p = &n->nd.pk[pi];
    switch (p->kind) {
    case PK_BUNDLE:
    case PK_INJECT: {
        if (p->stage == 0 && p->kind == PK_BUNDLE) {
            /* leaving the sender's provider: what ends there ends now */
            uint32_t k = 0;
            for (uint32_t i = 0; i < p->nreal; i++) {
                if (p->reals[i].recipient == TO_PROVIDER) {
                    rc_sim_at(n->sim, leave, RC_CLS_PROVIDER, RC_EV_RELAY, p->ui, p->reals[i].body);
                    p->size--;
                } else {
                    p->reals[k++] = p->reals[i];
                }
            }
            n->nd.inflight -= p->nreal - k;
            n->subs_relayed += p->nreal - k;
            p->nreal = k;
            if (p->size == 0) {
                pk_free(n, pi);
                return;
            }
        }
        if (p->stage >= n->layers) { /* an injection leaves the last layer */
            uint32_t to = n->users[p->recipient].provider;
            p->stage++;
            /* the exit names its message, as wire.c's wire_inject_exit: the observer
             * ends the tracked message there */
            p->wl.body = p->body;
            hop(n, pi, to, leave, 1, true);
            return;
        }
        uint32_t to = path_mix(n, p, p->stage);
        uint32_t split = p->kind == PK_BUNDLE && p->stage + 1 == n->layers ? p->size : 1;
        p->stage++;
        hop(n, pi, to, leave, split, false);
        return;
    }
    case PK_PART: {
        uint32_t to = p->body != UINT32_MAX ? n->users[p->recipient].provider
                                            : rc_rng_below(n->nd.rng, n->n_providers);
        p->stage = (uint8_t)(n->layers + 1);
        hop(n, pi, to, leave, 1, true);
        return;
    }
    case PK_LOOP: {
        uint32_t to = loop_next(n, p);
        p->stage++;
        /* arriving at a provider from the last layer ends a path through the mixes */
        hop(n, pi, to, leave, 1, is_provider(n, to));
        return;
    }
    }
}

/* ---------- mixing ---------- */

/* Packet pi is in mix x's pool from `in` (after service): it leaves by the mix's rule. */
static void mix_hold(rc_net *n, uint32_t pi, rc_time in)
{
    nodes *s = &n->nd;
    uint32_t x = s->pk[pi].node;
    nnode *d = &s->node[x];
    switch (s->kind) {
    case RC_MIX_POISSON: depart(n, pi, in + rc_net__hop_delay(n)); return;
    case RC_MIX_TIMED: {
        rc_time T = s->period, at = in <= d->phase ? d->phase
                                                   : d->phase + (in - d->phase + T - 1) / T * T;
        depart(n, pi, at);
        return;
    }
    default: break;
    }
    /* threshold and pool: hold until n + f are in, send n chosen uniformly */
    if (d->nheld == d->capheld) {
        d->capheld = d->capheld ? d->capheld * 2 : 16;
        d->held = rc_xrealloc(d->held, d->capheld * sizeof *d->held);
    }
    d->held[d->nheld++] = pi;
    if (d->nheld < s->threshold + s->pool) return;
    s->flushes++;
    /* the f kept: a uniform subset (partial Fisher-Yates moves them to the end) */
    for (uint32_t k = 0; k < s->pool; k++) {
        uint32_t last = d->nheld - 1 - k, j = rc_rng_below(s->rng, last + 1);
        uint32_t t = d->held[j];
        d->held[j] = d->held[last];
        d->held[last] = t;
    }
    uint32_t go = d->nheld - s->pool;
    /* (depart may grow no pool of this node: the next node is another) */
    uint32_t *out = rc_xmalloc(go * sizeof *out);
    memcpy(out, d->held, go * sizeof *out);
    memmove(d->held, d->held + go, s->pool * sizeof *d->held);
    d->nheld = s->pool;
    for (uint32_t k = 0; k < go; k++) depart(n, out[k], in);
    free(out);
}

/* The last layer splits bundle pi, in the mix from `dep`, into its parts. */
static void split_bundle(rc_net *n, uint32_t pi, rc_time dep)
{
    npkt b = n->nd.pk[pi];
    uint64_t parent = b.wl.packet;
    uint32_t covers = b.size - b.nreal;
    for (uint32_t k = 0; k < b.size; k++) {
        uint32_t qi = pk_new(n);
        npkt *q = &n->nd.pk[qi];
        q->kind = PK_PART;
        q->t0 = b.t0;
        q->ui = b.ui;
        q->size = 1;
        q->node = b.node;
        q->stage = (uint8_t)n->layers;
        if (k >= covers) {
            q->recipient = b.reals[k - covers].recipient;
            q->body = b.reals[k - covers].body;
        }
        if (n->wire.link != NULL) {
            /* a batch mix sends the parts later: the observer needs the parent
             * only at a node that reveals the split (refused with batch mixes) */
            q->wl = (rc_wire_link){RC_WIRE_LINK, n->wire_seq++,
                                   n->nd.kind == RC_MIX_POISSON ? parent : RC_WIRE_NONE, 0, 0, 0,
                                   0, 1, q->body, b.ui, true, q->body != UINT32_MAX, false};
        }
        mix_hold(n, qi, dep);
    }
    n->nd.pk[pi].nreal = 0;
    pk_free(n, pi);
}

/* ---------- a packet at a node ---------- */

void rc_net__on_node(void *ctx, const rc_event *ev)
{
    rc_net *n = ctx;
    nodes *s = &n->nd;
    uint32_t pi = ev->obj;
    npkt *p = &s->pk[pi];
    uint32_t x = p->node;
    rc_time now = ev->t;
    bool prov = is_provider(n, x);
    if (!prov) n->ctr.mix_packets += p->size;
    if (!prov) rc_net__traffic_at_node(n, wid(n, x), p->size);
    /* service */
    double rate = prov ? s->provider_rate : s->mix_rate;
    rc_time dep = now;
    if (rate > 0 || s->proc > 0) {
        /* a fixed processing time, then (at a node of finite rate) the exponential service */
        rc_time work = s->proc * p->size;
        if (rate > 0) work += rc_round_nonneg(rc_rng_exp(s->rng_service, p->size / rate * 1e6));
        rc_time start;
        if (!rc_server_arrive(&s->node[x].srv, now, work, s->limit, &start, &dep, NULL)) {
            n->ctr.node_drops++;
            uint32_t r = reals_of(p);
            s->inflight -= r;
            n->subs_dropped += r;
            pk_free(n, pi);
            return;
        }
        uint64_t wait = (uint64_t)(start - now);
        n->ctr.node_served++;
        n->ctr.node_wait_us += wait;
        if (wait > n->ctr.node_wait_max_us) n->ctr.node_wait_max_us = wait;
        if (reals_of(p) > 0) {
            n->ctr.node_real_served++;
            n->ctr.node_real_wait_us += wait;
        }
        n->ctr.node_service_us += (uint64_t)(dep - start);
    }
    if (prov) {
        bool at_end = (p->kind == PK_PART || p->kind == PK_INJECT) && p->stage > n->layers;
        if (p->kind == PK_LOOP) {
            depart(n, pi, dep + (n->ingress_delay ? rc_net__hop_delay(n) : 0));
        } else if (at_end) {
            if (p->body != UINT32_MAX) {
                s->inflight--;
                rc_net__deliver_to_postbox(n, p->recipient, p->body, p->t0, dep);
            }
            pk_free(n, pi);
        } else {
            /* the sender's provider (bundles; an injection starts here, undelayed) */
            bool delay = p->kind == PK_BUNDLE && n->ingress_delay;
            depart(n, pi, dep + (delay ? rc_net__hop_delay(n) : 0));
        }
        return;
    }
    if (p->kind == PK_LOOP && x == p->origin && p->stage == n->layers + 1) {
        /* back at its mix */
        if (n->wire.link != NULL) {
            rc_wire_link l = {RC_WIRE_END, p->wl.packet, RC_WIRE_NONE, wid(n, x), wid(n, x), now,
                              now, 1, UINT32_MAX, UINT32_MAX, false, false, false};
            n->wire.link(n->wire.ctx, &l);
        }
        pk_free(n, pi);
        return;
    }
    /* the L-th hop splits (under free-route a mix's layer is only its number) */
    if (p->kind == PK_BUNDLE && p->stage == n->layers) split_bundle(n, pi, dep);
    else mix_hold(n, pi, dep);
}

/* ---------- entry points ---------- */

uint32_t rc_net__node_bundle(rc_net *n, uint32_t ui, rc_time t, uint32_t p, uint32_t parts, bool real)
{
    uint32_t pi = pk_new(n);
    npkt *k = &n->nd.pk[pi];
    k->kind = PK_BUNDLE;
    k->t0 = t;
    k->ui = ui;
    k->size = (uint16_t)p;
    k->node = n->users[ui].provider;
    if (n->wire.link != NULL) {
        k->wl = (rc_wire_link){RC_WIRE_LINK, n->wire_seq++, RC_WIRE_NONE, ui,
                               wid(n, k->node), t, t + hand_of(n) + link_lat(n, ui, wid(n, k->node)),
                               parts == 0 ? 0 : 1,
                               UINT32_MAX, ui, false, real, false};
        n->wire.link(n->wire.ctx, &k->wl);
    }
    return pi;
}

void rc_net__node_bundle_add(rc_net *n, uint32_t pi, const qmsg *q)
{
    npkt *k = &n->nd.pk[pi];
    k->reals = rc_xrealloc(k->reals, (k->nreal + 1) * sizeof *k->reals);
    k->reals[k->nreal++] = *q;
    n->nd.inflight++;
    if (n->wire.link != NULL && n->wire.carry != NULL && q->recipient != TO_PROVIDER)
        n->wire.carry(n->wire.ctx, k->wl.packet, q->body, k->ui, q->recipient, k->t0);
}

void rc_net__node_bundle_send(rc_net *n, uint32_t pi)
{
    npkt *k = &n->nd.pk[pi];
    arrive_at(n, pi, k->node, k->t0 + hand_of(n) + link_lat(n, k->ui, wid(n, k->node)));
}

void rc_net__node_inject(rc_net *n, uint32_t ui, uint32_t recipient, uint32_t body, rc_time t)
{
    uint32_t pi = pk_new(n);
    npkt *k = &n->nd.pk[pi];
    k->kind = PK_INJECT;
    k->t0 = t;
    k->ui = ui;
    k->size = 1;
    k->recipient = recipient;
    k->body = body;
    k->node = n->users[ui].provider;
    n->nd.inflight++;
    n->subs_created++;
    if (n->wire.link != NULL) {
        uint32_t from = wid(n, k->node);
        k->wl = (rc_wire_link){RC_WIRE_CREATE, n->wire_seq++, RC_WIRE_NONE, from, from, t, t, 1,
                               UINT32_MAX, UINT32_MAX, false, true, false};
        n->wire.link(n->wire.ctx, &k->wl);
        if (n->wire.carry) n->wire.carry(n->wire.ctx, k->wl.packet, body, ui, recipient, t);
        k->wl.body = UINT32_MAX;
        k->wl.real = true;
    }
    /* made at the provider: served there, then on through the layers */
    rc_sim_at(n->sim, t, RC_CLS_MIX, RC_EV_NODE, pi, 0);
}

void rc_net__node_on_mix_loop(void *ctx, const rc_event *ev)
{
    rc_net *n = ctx;
    uint32_t m = ev->obj, pi = pk_new(n);
    npkt *k = &n->nd.pk[pi];
    k->kind = PK_LOOP;
    k->size = 1;
    k->ui = UINT32_MAX;
    k->node = k->origin = mix_node(n, m / n->width, m % n->width);
    k->t0 = n->sim->now;
    if (n->wire.link != NULL) {
        uint32_t w = wid(n, k->node);
        k->wl = (rc_wire_link){RC_WIRE_CREATE, n->wire_seq++, RC_WIRE_NONE, w, w, k->t0, k->t0, 1,
                               UINT32_MAX, UINT32_MAX, false, false, false};
        n->wire.link(n->wire.ctx, &k->wl);
    }
    /* it leaves its mix by the mix's rule, like any packet in the pool */
    mix_hold(n, pi, k->t0);
    rc_time gap = rc_round_nonneg(rc_rng_exp(n->rng_mixloop, 1e6 / n->mix_rate_loop));
    if (n->lattice) gap = ((gap + n->tick - 1) / n->tick) * n->tick;
    if (gap < 1) gap = 1;
    rc_sim_at(n->sim, n->sim->now + gap, RC_CLS_MIX, RC_EV_MIX_LOOP, ev->obj, 0);
}

void rc_net__nodes_init(rc_net *n, const rc_net_cfg *cfg)
{
    nodes *s = &n->nd;
    s->on = true;
    s->free = UINT32_MAX;
    s->kind = cfg->mix_kind;
    s->threshold = (uint32_t)(cfg->mix_kind == RC_MIX_TIMED ? 0 : cfg->mix_threshold);
    s->pool = (uint32_t)(cfg->mix_kind == RC_MIX_POOL ? cfg->mix_pool : 0);
    s->period = (rc_time)llround(cfg->mix_period_s * 1e6);
    if (s->period < 1) s->period = 1;
    /* (a capacity is the node's, not a Loopix rate: lambda_div leaves it, as it
     * leaves the capacity that sizes the layers, docs/spec.md §1.13) */
    s->mix_rate = cfg->mix_service_rate;
    s->provider_rate = cfg->provider_service_rate;
    s->limit = (uint32_t)cfg->queue_limit;
    s->proc = (rc_time)llround(cfg->node_processing_s * 1e6);
    s->rng = rc_rng_new(cfg->seed, STREAM_NODE);
    s->rng_service = rc_rng_new(cfg->seed, STREAM_SERVICE);
    s->n_node = n->n_providers + n->layers * n->width;
    s->node = rc_xcalloc(s->n_node, sizeof *s->node);
    /* each timed mix flushes on a phase of its own */
    for (uint32_t x = 0; x < s->n_node; x++)
        s->node[x].phase = (rc_time)(rc_rng_uniform(s->rng) * (double)s->period);
}

void rc_net__nodes_free(rc_net *n)
{
    nodes *s = &n->nd;
    if (!s->on) return;
    for (uint32_t x = 0; x < s->n_node; x++) {
        rc_server_free(&s->node[x].srv);
        free(s->node[x].held);
    }
    free(s->node);
    for (uint32_t i = 0; i < s->n_pk; i++) free(s->pk[i].reals);
    free(s->pk);
    rc_rng_free(s->rng);
    rc_rng_free(s->rng_service);
}
