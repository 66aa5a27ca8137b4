/* wire: what a global passive observer sees of the net (loopix/net.h, "the
 * wire"; docs/spec.md §10).  Runs only when an observer is attached
 * (rc_net_observe); then every bundle is routed node by node — the sender's
 * provider, one mix of each layer chosen uniformly, the last layer splitting
 * the bundle into its sub-messages, each to its provider — and the covers of
 * a bundle travel inside it, as they do on a real wire.  A bundle takes the
 * one path every bundle takes (client.c, emit), which reports each of its
 * links here, with the delays that path draws (WAY_WIRE); a provider's
 * injection (provider.c, rc_net_provider_send) and mix loops (mix.c) report
 * each hop here too.  The choice of mixes
 * and of a cover's destination provider comes from a stream of its own, since
 * nothing in the model depends on it (docs/spec.md §1.1). */
#include "loopix/net_internal.h"


uint32_t rc_net_providers(const rc_net *n) { return n->n_providers; }
uint32_t rc_net_mix_layers(const rc_net *n) { return n->layers; }
uint32_t rc_net_mixes_per_layer(const rc_net *n) { return n->width; }
uint32_t rc_net_node_provider(const rc_net *n, uint32_t provider) { return n->n_users + provider; }
uint32_t rc_net_node_mix(const rc_net *n, uint32_t layer, uint32_t index)
{
    return n->n_users + n->n_providers + layer * n->width + index;
}
uint32_t rc_net_nodes(const rc_net *n) { return n->n_users + n->n_providers + n->layers * n->width; }
bool rc_net_provider_mixes(const rc_net *n) { return n->ingress_delay; }
bool rc_net_observed(const rc_net *n) { return n->wire.link != NULL; }

rc_time rc_net_link_latency(const rc_net *n, uint32_t from, uint32_t to)
{
    return link_lat(n, from, to);
}
rc_topology rc_net_topology(const rc_net *n) { return n->topology; }

static void report(rc_net *n, rc_wire_kind kind, uint64_t id, uint32_t from, uint32_t to,
                   rc_time sent, rc_time received, bool whole)
{
    rc_wire_link l = {kind, id, RC_WIRE_NONE, from, to, sent, received, 1, UINT32_MAX,
                      UINT32_MAX, false, false, whole};
    n->wire.link(n->wire.ctx, &l);
}

/* ---------- bundles (client.c's emit walks them, WAY_WIRE) ---------- */

/* A bundle of client ui leaves at t for its provider; `parts` of its entries
 * go on through the mixes (none: every entry ends at the provider); `real`:
 * it carries a real one.  *l becomes the bundle as it travels. */
static void wire_bundle_enter(rc_net *n, uint32_t ui, rc_time t, uint32_t parts, bool real,
                              rc_wire_link *l)
{
    rc_time hand = n->lattice ? n->tick : 0;
    uint32_t prov = provider_node(n, ui);
    *l = (rc_wire_link){RC_WIRE_LINK, n->wire_seq++, RC_WIRE_NONE, ui,
                        prov, t, t + hand + link_lat(n, ui, prov),
                        parts == 0 ? 0 : 1, UINT32_MAX, ui, false, real, true};
    n->wire.link(n->wire.ctx, l);
}

/* Packet l (a bundle, or a provider's injection) leaves its node at `sent`
 * for mix `to` (its hop `hop`; the caller drew it, route_mix), arriving at
 * `received`; the last hop's mix splits it into `split`; `load`: the
 * sub-messages' bytes it carries. */
static void wire_hop(rc_net *n, rc_wire_link *l, uint32_t to, uint32_t hop, rc_time sent,
                     rc_time received, uint32_t split, uint32_t load)
{
    l->from = l->to;
    l->to = to;
    l->sent = sent;
    l->received = received;
    if (hop + 1 == n->layers) l->split = split;
    n->wire.link(n->wire.ctx, l);
    rc_net__traffic_at_node(n, l->to, load);
}

/* A sub-message of bundle l (emitted at t) leaves the last layer at `sent`:
 * real message q for its recipient's provider, or a cover (q NULL) for a
 * provider drawn at random. */
static void wire_bundle_part(rc_net *n, const rc_wire_link *l, rc_time t, rc_time sent,
                             const qmsg *q)
{
    rc_time hand = n->lattice ? n->tick : 0;
    if (q != NULL && n->wire.carry)
        n->wire.carry(n->wire.ctx, l->packet, q->body, l->sender, q->recipient, t);
    rc_wire_link part = {RC_WIRE_LINK, n->wire_seq++, l->packet, l->to, 0, sent, sent + hand, 1,
                         UINT32_MAX, l->sender, true, false, true};
    if (q != NULL) {
        part.to = rc_net_node_provider(n, n->users[q->recipient].provider);
        part.body = q->body;
        part.real = true;
    } else {
        part.to = rc_net_node_provider(n, rc_rng_below(n->rng_wire, n->n_providers));
    }
    part.received += link_lat(n, part.from, part.to);
    n->wire.link(n->wire.ctx, &part);
}

/* ---------- mix loops ---------- */

/* A mix of layer `layer` for a mix loop from node `origin` (loop_route_mix). */
static uint32_t loop_mix(rc_net *n, uint32_t origin, uint32_t layer)
{
    return loop_route_mix(n, n->rng_wire, layer, origin - (n->n_users + n->n_providers));
}

/* A loop from a mix of layer `o` visits layers o+1 .. L-1, a provider, layers
 * 0 .. o-1 and its own mix (docs/spec.md §1.6): hop j (1-based) goes to ... */
static uint32_t loop_next(rc_net *n, const wire_loop *w, uint32_t hops_left)
{
    uint32_t L = n->layers;
    uint32_t origin_layer = (w->origin - n->n_users - n->n_providers) / n->width;
    uint32_t j = L + 1 - hops_left; /* hops_left already counts this hop off */
    if (j == L + 1) return w->origin;
    uint32_t k = origin_layer + j;
    if (k < L) return loop_mix(n, w->origin, k);
    if (k == L) return rc_net_node_provider(n, rc_rng_below(n->rng_wire, n->n_providers));
    return loop_mix(n, w->origin, k - L - 1);
}

static void wire_loop_start(rc_net *n, uint32_t m, rc_time t)
{
    uint32_t pk = rc_net__cover_send(n, (uint8_t)(n->layers + 1), t);
    if (pk >= n->cap_wloop) {
        uint32_t cap = n->cap_wloop ? n->cap_wloop : 1024;
        while (cap <= pk) cap *= 2;
        n->wloop = rc_xrealloc(n->wloop, cap * sizeof *n->wloop);
        n->cap_wloop = cap;
    }
    uint32_t node = rc_net_node_mix(n, m / n->width, m % n->width);
    n->wloop[pk] = (wire_loop){n->wire_seq++, node, node};
    report(n, RC_WIRE_CREATE, n->wloop[pk].id, node, node, t, t, false);
}

static rc_time wire_loop_hop(rc_net *n, uint32_t pk, rc_time now, rc_time delay, rc_time hand)
{
    wire_loop *w = &n->wloop[pk];
    uint32_t next = loop_next(n, w, n->cpk[pk].hops_left);
    rc_wire_link l = {RC_WIRE_LINK, w->id, RC_WIRE_NONE, w->node, next, now + delay,
                      now + delay + hand + link_lat(n, w->node, next), 1, UINT32_MAX,
                      UINT32_MAX, false, false, false};
    /* Arriving at a provider from the last layer ends a path through the mixes. */
    l.exits = next >= n->n_users && next < n->n_users + n->n_providers;
    n->wire.link(n->wire.ctx, &l);
    rc_net__traffic_at_node(n, next, 1);
    w->node = next;
    return l.received;
}

static void wire_loop_end(rc_net *n, uint32_t pk, rc_time now)
{
    const wire_loop *w = &n->wloop[pk];
    report(n, RC_WIRE_END, w->id, w->node, w->node, now, now, false);
}

/* ---------- provider injections (provider.c's rc_net_provider_send) ---------- */

/* A packet the provider of client ui makes for a strategy (body, for
 * recipient) at t: it appears in the provider's pool, may be tracked, and
 * goes through every layer (wire_hop) without a split.  *l becomes the packet
 * as it travels. */
static void wire_inject_enter(rc_net *n, uint32_t ui, uint32_t recipient, uint32_t body,
                              rc_time t, rc_wire_link *l)
{
    uint32_t from = rc_net_node_provider(n, n->users[ui].provider);
    uint64_t id = n->wire_seq++;
    report(n, RC_WIRE_CREATE, id, from, from, t, t, true);
    if (n->wire.carry) n->wire.carry(n->wire.ctx, id, body, ui, recipient, t);
    *l = (rc_wire_link){RC_WIRE_LINK, id, RC_WIRE_NONE, from, from, t, 0, 1, UINT32_MAX,
                        UINT32_MAX, false, true, true};
}

/* ... and leaves the last layer at `sent` for its recipient's provider. */
static void wire_inject_exit(rc_net *n, rc_wire_link *l, uint32_t recipient, uint32_t body,
                             rc_time sent, rc_time received)
{
    l->from = l->to;
    l->to = rc_net_node_provider(n, n->users[recipient].provider);
    l->sent = sent;
    l->received = received;
    l->body = body;
    l->exits = true;
    n->wire.link(n->wire.ctx, l);
}

/* A pull at `now` hands over what the provider held a link's latency
 * earlier (provider.c, rc_net__deliver_to_postbox): the answer leaves then. */
static void wire_pull(rc_net *n, uint32_t ui, uint32_t body, rc_time now)
{
    uint32_t prov = provider_node(n, ui);
    rc_wire_link l = {RC_WIRE_PULL, RC_WIRE_NONE, RC_WIRE_NONE, prov, ui,
                      now - link_lat(n, prov, ui), now, 1, body, UINT32_MAX, false, true, false};
    n->wire.link(n->wire.ctx, &l);
}

void rc_net_observe(rc_net *n, rc_net_wire wire)
{
    RC_ASSERT(n->cover_full && n->wire.link == NULL && wire.link != NULL);
    static const wire_ops ops = {wire_bundle_enter, wire_bundle_part, wire_hop,
                                 wire_inject_enter, wire_inject_exit, wire_loop_start,
                                 wire_loop_hop,     wire_loop_end,    wire_pull};
    n->wire = wire;
    n->wops = &ops;
    n->rng_wire = rc_rng_new(n->seed, STREAM_WIRE);
    rc_sim_prefetch_near(n->sim);
}
