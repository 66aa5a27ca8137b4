/* provider: postboxes and pulls (docs/spec.md §1.4, §1.7).  A message that
 * left its sender is filed at once in its recipient's postbox with its
 * arrival time (a min-heap of future arrivals: nothing in the network has a
 * capacity, so the arrival time is known when the bundle leaves).  An online
 * client with mail pulls at its first pull time after the earliest arrival
 * and hands everything that has arrived to the layer above (deliver hook),
 * labelled ONLINE or OFFLINE. */
#include <math.h>
#include <string.h>

#include "loopix/net_internal.h"

/* ---------- postbox heap ---------- */

static inline bool pe_before(const pentry *x, const pentry *y)
{
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static void pbox_push(pbox *b, pentry e)
{
    if (b->n == b->cap) {
        uint32_t ncap = b->cap < 8 ? 8 : b->cap * 2;
        if (b->a == b->inl) {
            b->a = memcpy(rc_xmalloc(ncap * sizeof *b->a), b->inl, b->n * sizeof *b->a);
        } else {
            b->a = rc_xrealloc(b->a, ncap * sizeof *b->a);
        }
        b->cap = ncap;
    }
    uint32_t i = b->n++;
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!pe_before(&e, &b->a[parent])) break;
        b->a[i] = b->a[parent];
        i = parent;
    }
    b->a[i] = e;
}

static pentry pbox_pop(pbox *b)
{
    pentry top = b->a[0], last = b->a[--b->n];
    uint32_t i = 0, n = b->n;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && pe_before(&b->a[c + 1], &b->a[c])) c++;
        if (!pe_before(&b->a[c], &last)) break;
        b->a[i] = b->a[c];
        i = c;
    }
    if (n > 0) b->a[i] = last;
    return top;
}

/* ---------- pulls ---------- */

rc_time rc_net__next_pull_at_or_after(const rc_net *n, const user *u, rc_time a)
{
    return grid_at_or_after(u->pull_due, n->pull_period, a);
}

/* Population model 4: the sequence of a pull-class event, its order among
 * the events of its instant (core/evq.h), instead of the engine's count.
 * `rank` is 0 for a pull of the postbox, else pull_period minus how long
 * before the pull its message arrived (1 .. pull_period): a client's postbox
 * pull first (what it holds arrived before this pull period: on_direct), then
 * its direct messages in the order they arrived, and in the order they were
 * filed when they arrived together (the count below the rank), as model 2's
 * postbox hands them over.  Two clients that pull at the same instant have
 * their events interleaved by arrival, where model 2 takes one client's pull
 * after the other's in the order the pulls were scheduled: which of two
 * clients goes first at one instant changes only which of the same draws
 * each gets. */
static uint64_t pull_seq(rc_net *n, rc_time rank)
{
    RC_ASSERTF(n->seq_next < (uint64_t)1 << n->seq_shift,
               "population model 4: more than 2^%u pull events in one job (pull period %lld "
               "us); population model 2 (--population-model 2) has no such limit",
               n->seq_shift, (long long)n->pull_period);
    return (uint64_t)rank << n->seq_shift | n->seq_next++;
}

/* Files a pull-class event for client `ui` at `at`: in model 4 at its place
 * `rank` among the events of its instant (pull_seq), else in the engine's order. */
static void pull_at(rc_net *n, rc_time at, rc_time rank, uint32_t ui, uint64_t arg)
{
    if (n->arrival_order)
        rc_sim_at_seq(n->sim, at, RC_CLS_PULL, pull_seq(n, rank), RC_EV_PULL, ui, arg);
    else
        rc_sim_at(n->sim, at, RC_CLS_PULL, RC_EV_PULL, ui, arg);
}

/* Makes sure an online client with mail pulls at its first pull time at or
 * after both `now` and the earliest arrival in its postbox. */
void rc_net__ensure_pull(rc_net *n, uint32_t ui, rc_time now)
{
    user *u = &n->users[ui];
    if (!u->online || u->postbox.n == 0) return;
    rc_time first = u->postbox.a[0].t > now ? u->postbox.a[0].t : now;
    rc_time at = rc_net__next_pull_at_or_after(n, u, first);
    if (u->pull_scheduled && u->pull_at <= at) return;
    u->pull_ver++;
    u->pull_scheduled = true;
    u->pull_at = at;
    pull_at(n, at, 0, ui, u->pull_ver);
}

/* ---------- population model 3: messages scheduled for their pull ---------- */

/* With direct pulls (rc_net_cfg.direct_pull) a client's pull instants are
 * grid + k x pull_period for the whole run: a pull sets the next one a period
 * on, and coming online only waits for the next instant of the same phase
 * (rc_net__next_pull_at_or_after).  So the pull that takes a message is known
 * when the message leaves its sender, if the recipient stays online from the
 * message's arrival until then: the message becomes an event at that pull,
 * and neither filing it nor taking it touches the recipient's record (at 10^5
 * clients a cache miss each).  The event checks that the recipient
 * did stay online; if not, the message goes to the postbox as in model 2. */
static void direct_file(rc_net *n, uint32_t r, uint32_t body, rc_time arrive)
{
    rc_time at = grid_at_or_after(n->pslot[r].grid, n->pull_period, arrive);
    RC_DCHECK(at >= n->sim->now && at - arrive < n->pull_period, "direct pull at %lld for %lld",
              (long long)at, (long long)arrive);
    n->direct_held++; /* (beyond the stop the event is not kept: it stays in flight) */
    uint64_t arg = DIRECT_BIT | (uint64_t)(at - arrive) << 32 | body;
    pull_at(n, at, n->pull_period - (at - arrive), r, arg);
}

/* Counts one message taken by client ui's pull at t: with direct pulls a
 * pull's messages are taken by several events of the same instant. */
static void take_one(rc_net *n, uint32_t ui, rc_time t)
{
    pslot *s = &n->pslot[ui];
    if (s->last_pull != t) {
        s->last_pull = t;
        s->taken = 0;
        n->ctr.pulls++;
    }
    rc_net__traffic_pull_one(n, ui, ++s->taken);
}

static void on_direct(rc_net *n, const rc_event *ev)
{
    uint32_t r = ev->obj, body = (uint32_t)ev->arg;
    rc_time arrive = ev->t - (rc_time)((ev->arg & ~DIRECT_BIT) >> 32);
    n->direct_held--;
    bool online_label = n->pslot[r].last_online <= arrive;
    if (!n->online_of[r] || (!online_label && !n->arrival_order)) {
        /* offline at some time since it arrived: it waits for a pull after
         * the client is back, labelled by its arrival, as in model 2 */
        pbox_push(&n->users[r].postbox, (pentry){arrive, n->postbox_seq++, body});
        rc_net__ensure_pull(n, r, ev->t);
        return;
    }
    /* Model 4 also takes now, labelled OFFLINE, a message whose client went
     * away and came back since it arrived: the client came back within this
     * pull period, so model 2 takes it at this pull, in its arrival's place
     * (pull_seq), after what the postbox held (which arrived in an earlier
     * period).  Through the postbox it would come after the postbox's pull
     * of this instant, which may already have run. */
    take_one(n, r, ev->t);
    n->subs_pulled++;
    n->in_pull = true;
    n->hooks.deliver(n->hooks.ctx, r, body, online_label, ev->t); /* ONLINE: arrived online */
    n->in_pull = false;
}

/* ---------- filing ---------- */

void rc_net__deliver_to_postbox(rc_net *n, uint32_t recipient, uint32_t body, rc_time emitted,
                                rc_time arrive)
{
    if (n->hooks.arrived) n->hooks.arrived(n->hooks.ctx, recipient, body, emitted, arrive);
    /* A pull's answer crosses the link from the provider to the client: a
     * pull at instant t takes what its provider held at t minus that link's
     * latency (docs/spec.md §1.16), so the entry is filed as ready then. */
    arrive += n->region_lat ? link_lat(n, provider_node(n, recipient), recipient) : n->link_fixed;
    if (n->direct) {
        direct_file(n, recipient, body, arrive);
        return;
    }
    pbox_push(&n->users[recipient].postbox, (pentry){arrive, n->postbox_seq++, body});
    rc_net__ensure_pull(n, recipient, n->sim->now);
}

/* A pull's loads in the engine's stages (core/sim.h): the client's
 * filed-and-pulled lines and the layer above's per-user index; the first
 * postbox entry (when the postbox spilled out of the record) and the layer
 * above's per-user state; the first message's body; what the body points to. */
void rc_net__prefetch_pull(void *ctx, uint32_t ui, uint64_t arg, unsigned stage)
{
    const rc_net *n = ctx;
    if (arg & DIRECT_BIT) {
        /* A direct message names its body: no record of the net lies between
         * the event and the layer above's state. */
        uint32_t body = (uint32_t)arg;
        switch (stage) {
        case 3:
            __builtin_prefetch(&n->pslot[ui], 1);
            if (n->hooks.prefetch_user) n->hooks.prefetch_user(n->hooks.ctx, ui, 1);
            if (n->hooks.prefetch) n->hooks.prefetch(n->hooks.ctx, body, 1);
            return;
        case 2:
            if (n->hooks.prefetch_user) n->hooks.prefetch_user(n->hooks.ctx, ui, 0);
            return;
        case 1:
            if (n->hooks.prefetch) n->hooks.prefetch(n->hooks.ctx, body, 0);
            return;
        default:
            return;
        }
    }
    const user *u = &n->users[ui];
    switch (stage) {
    case 3:
        __builtin_prefetch(u);
        __builtin_prefetch((const char *)u + USER_ALIGN);
        if (n->hooks.prefetch_user) n->hooks.prefetch_user(n->hooks.ctx, ui, 1);
        return;
    case 2:
        if (u->postbox.n > 0 && u->postbox.a != u->postbox.inl) __builtin_prefetch(u->postbox.a);
        if (n->hooks.prefetch_user) n->hooks.prefetch_user(n->hooks.ctx, ui, 0);
        return;
    default:
        if (u->postbox.n > 0 && n->hooks.prefetch)
            n->hooks.prefetch(n->hooks.ctx, u->postbox.a[0].body, stage);
        return;
    }
}

void rc_net__on_pull(void *ctx, const rc_event *ev)
{
    rc_net *n = ctx;
    if (ev->arg & DIRECT_BIT) {
        on_direct(n, ev);
        return;
    }
    user *u = &n->users[ev->obj];
    if (ev->arg != u->pull_ver || !u->online) return;
    u->pull_scheduled = false;
    u->pull_due = ev->t + n->pull_period;
    if (!n->direct) n->ctr.pulls++; /* (with direct pulls: take_one) */
    n->in_pull = true;
    /* Take everything that has arrived by now, in arrival order; what the
     * hooks send now arrives later. */
    uint32_t taken = 0;
    while (u->postbox.n > 0 && u->postbox.a[0].t <= ev->t) {
        pentry e = pbox_pop(&u->postbox);
        n->subs_pulled++;
        taken++;
        if (n->direct) take_one(n, ev->obj, ev->t);
        if (n->wire.link != NULL) n->wops->pull(n, ev->obj, e.body, ev->t);
        bool online_label = n->frozen_pull ? (e.t > ev->t - n->pull_period)
                                           : (e.t >= u->last_online_at);
        n->hooks.deliver(n->hooks.ctx, ev->obj, e.body, online_label, ev->t);
    }
    n->in_pull = false;
    if (!n->direct) rc_net__traffic_pull(n, ev->obj, taken);
    rc_net__ensure_pull(n, ev->obj, ev->t);
}

/* ---------- providers acting for a strategy ---------- */

/* A message a client sent to its own provider (rc_net_send_provider) is
 * there now (obj = the sender, arg = the body). */
void rc_net__on_relay(void *ctx, const rc_event *ev)
{
    rc_net *n = ctx;
    n->hooks.relay(n->hooks.ctx, ev->obj, (uint32_t)ev->arg);
}

/* The provider sends its injections one after the other, provider_gap apart
 * (none with an unlimited rate): the instant of the next free injection slot
 * of client ui's provider, from now.  On the lattice the slot is lifted to a
 * tick. */
rc_time rc_net__provider_slot(rc_net *n, uint32_t ui)
{
    rc_time now = n->sim->now, t = now;
    if (n->provider_gap > 0) {
        double *free_at = &n->provider_free[n->users[ui].provider];
        double slot = *free_at > (double)now ? *free_at : (double)now;
        *free_at = slot + n->provider_gap;
        t = (rc_time)ceil(slot);
        if (n->lattice) t = ((t + n->tick - 1) / n->tick) * n->tick;
    }
    return t;
}

/* An injection leaving at t makes every mix layer's hop, as the packets of
 * client.c's bundles do after their ingress, and is filed in the recipient's
 * postbox. */
void rc_net__provider_inject(rc_net *n, uint32_t ui, uint32_t recipient, uint32_t body, rc_time t)
{
    rc_time hand = n->lattice ? n->tick : 0, dep = t;
    n->subs_created++;
    bool observed = n->wire.link != NULL;
    rc_wire_link wl; /* observed: the packet as the observer sees it travel (wire.c) */
    if (observed) n->wops->inject_enter(n, ui, recipient, body, t, &wl);
    /* its path's mixes: located only when observed or with a link map (client.c, emit) */
    bool located = observed || n->region_lat != NULL;
    uint32_t node = located ? provider_node(n, ui) : 0, chain = 0;
    for (uint32_t l = 0; l < n->layers; l++) {
        uint32_t mix = observed       ? route_mix(n, n->rng_wire, l, &chain)
                       : n->region_lat ? route_mix(n, n->rng_path, l, &chain)
                                      : 0;
        rc_time at = dep + hand + link_lat(n, node, mix);
        if (observed) n->wops->hop(n, &wl, mix, l, dep, at, 1, 1);
        dep = at + rc_net__hop_delay(n);
        node = mix;
    }
    rc_time arrive =
        dep + hand + (located ? link_lat(n, node, provider_node(n, recipient)) : n->link_fixed);
    if (observed) n->wops->inject_exit(n, &wl, recipient, body, dep, arrive);
    /* the mixes' load (not a client's: no bw_payload); wire.c counts the mixes it chose */
    else if (n->cover_full) rc_net__traffic_route(n, 1);
    if (n->cover_full) n->ctr.mix_packets += n->layers;
    rc_net__deliver_to_postbox(n, recipient, body, t, arrive);
}
