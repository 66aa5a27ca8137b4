/* client: a Loopix client's sending side (docs/spec.md §1.4, §1.11).
 * Payload, drop and loop streams fire at Poisson times (per-tick Bernoulli
 * trials on the lattice); a payload firing moves the head of the send queue
 * into the bundling queue (or a cover when it is empty), drop and loop
 * firings add covers, and every p entries leave as one bundle, whose per-hop
 * delays are drawn here and whose real messages go straight to their
 * recipients' postboxes (provider.c).  Busy clients (real messages queued)
 * run their firings ahead; idle ones are caught up only when they become
 * busy, from the idle chain's stationary law when the gap is long
 * (docs/architecture.md, "Idle clients"). */
#include <math.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "loopix/net_internal.h"

/* ---------- streams ---------- */

/* Gap to a stream's next firing (us).  Lattice: a whole number of ticks,
 * Geometric(F) — exactly the law of per-tick Bernoulli trials (docs/spec.md §1.11),
 * drawn through the stream's step table. */
static rc_time stream_gap(rc_net *n, double rate, double f, const rc_rng_steps *steps)
{
    if (rate <= 0) return NEVER / 4;
    if (n->lattice) return f >= 1 ? n->tick : rc_rng_steps_draw(n->rng_cover, steps) * n->tick;
    rc_time g = rc_round_nonneg(rc_rng_exp(n->rng_cover, 1e6 / rate));
    return g < 1 ? 1 : g;
}

static int64_t geom_of(uint32_t k, const void *inv_log1m_f)
{
    return (int64_t)rc_rng_geom_of(k, *(const double *)inv_log1m_f);
}

void rc_net__gap_steps(rc_net *n)
{
    const double *g[3] = {&n->g_pay, &n->g_drop, &n->g_loop};
    rc_rng_steps **t[3] = {&n->steps_pay, &n->steps_drop, &n->steps_loop};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < i && *t[i] == NULL; j++)
            if (*g[j] == *g[i]) *t[i] = *t[j];
        if (*t[i] == NULL) {
            *t[i] = n->steps_own[i] = rc_xmalloc(sizeof **t[i]);
            rc_rng_steps_init(*t[i], geom_of, g[i]);
        }
    }
}

/* The next firings after `from` (exclusive of nothing: the first possible
 * firing is at from + one step). */
void rc_net__streams_redraw(rc_net *n, user *u, rc_time from)
{
    u->next_pay = from + stream_gap(n, n->rate_pay, n->f_pay, n->steps_pay);
    u->backlog_at = NEVER;
    if (n->aggregate) { /* drop and loop counted in aggregate (flush_covers) */
        u->next_drop = u->next_loop = NEVER;
        u->cover_from = from;
        return;
    }
    u->next_drop = from + stream_gap(n, n->rate_drop, n->f_drop, n->steps_drop);
    u->next_loop = from + stream_gap(n, n->rate_loop, n->f_loop, n->steps_loop);
}

static rc_time next_stream_time(const user *u)
{
    rc_time t = u->next_pay;
    if (u->next_drop < t) t = u->next_drop;
    if (u->next_loop < t) t = u->next_loop;
    if (u->backlog_at < t) t = u->backlog_at;
    return t;
}

/* ---------- bundles ---------- */

/* Population model 2 (rc_net_cfg.aggregate_cover): with p = 1 in continuous
 * time every firing leaves at once as its own bundle, so a drop or loop
 * firing never takes a real message's slot nor delays one; all they change
 * is the counters.  Their firings over a stretch of time are Poisson with
 * mean (lambda_D + lambda_L) x its length, so the stretch since cover_from
 * is counted with one draw when a busy client's run of firings ends
 * (rc_net__on_stream), instead of drawing every firing: two exponential draws
 * and two bundles less per real message. */
static void flush_covers(rc_net *n, user *u, rc_time upto)
{
    if (upto <= u->cover_from) return;
    double mean = n->cover_rate_us * (double)(upto - u->cover_from);
    unsigned k = gsl_ran_poisson(n->rng_cover, mean);
    n->ctr.bundles += k;
    n->ctr.cover_packets += k;
    u->cover_from = upto;
}

/* Real entries of the bundle about to leave that end at the sender's provider
 * (rc_net_send_provider). */
static uint32_t relayed_in_bundle(const user *u, uint32_t p)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < u->wait.n && ring_at(&u->wait, i)->pos - u->wait_head < p; i++)
        k += ring_at(&u->wait, i)->recipient == TO_PROVIDER;
    return k;
}

/* How a bundle's sub-messages cross the mixes.  One walk (emit) sends every
 * bundle; it takes one of three ways, fixed for the run:
 *   WAY_HOPS  hop by hop: the shared hops (the sender's provider, then every
 *             layer but the last) once for the bundle, the last layer for each
 *             sub-message; with cover_full its covers go on as cover packets
 *             of their own (mix.c);
 *   WAY_WIRE  the same delays, drawn in the same order, with the observer
 *             (wire.c) shown every link: the mixes of the path, and the covers
 *             riding inside the bundle to the last layer, as on a real wire;
 *   WAY_SUM   population model 2 (p = 1, continuous time): a sub-message's
 *             whole path as one sum (rc_net__hops_delay);
 *   WAY_NODES nodes that serve or batch (node.c): the bundle, covers inside,
 *             goes to its provider as a packet that travels hop by hop;
 *             nothing is drawn here. */
enum way { WAY_HOPS, WAY_WIRE, WAY_SUM, WAY_NODES };

/* Sends the bundle at the head of user ui's bundling queue at t, the way
 * `way`.  Inlined into each caller below with `way` a constant, so each way
 * compiles to its own straight path. */
static inline __attribute__((always_inline)) void emit(rc_net *n, uint32_t ui, rc_time t,
                                                       const enum way way)
{
    user *u = &n->users[ui];
    rc_time hand = n->lattice ? n->tick : 0; /* one tick of hand-off per hop (docs/spec.md §1.2) */
    /* (p is 1 under WAY_SUM: a constant lets that path drop the loop) */
    uint32_t p = way == WAY_SUM ? 1 : (uint32_t)n->p;
    RC_DCHECK(p == (uint32_t)n->p, "population model 2 with p = %d", n->p);
    bool any_real = covers_ahead(u) < p;
    /* at_provider: when it has left the sender's provider; at_last: when it
     * reaches the last layer, which delays each sub-message separately */
    rc_time at_provider = t, at_last = t;
    /* the link to the sender's provider (docs/spec.md §1.16), and the last
     * mix of the path (a node id; located only with a link map or a wire) */
    uint32_t last_mix = 0;
    rc_time up = n->region_lat ? link_lat(n, ui, provider_node(n, ui)) : n->link_fixed;
    rc_wire_link wl; /* WAY_WIRE: the bundle as the observer sees it travel */
    uint32_t pk = 0; /* WAY_NODES: the bundle's packet (node.c) */
    if (way == WAY_NODES)
        pk = rc_net__node_bundle(n, ui, t, p, p - relayed_in_bundle(u, p), any_real);
    else if (way != WAY_SUM) {
        /* WAY_WIRE: what goes on through the mixes (none, split 0, when every
         * entry ends at the provider); its path is drawn for covers too */
        uint32_t parts = way == WAY_WIRE ? p - relayed_in_bundle(u, p) : 0;
        if (way == WAY_WIRE) n->wops->bundle_enter(n, ui, t, parts, any_real, &wl);
        if (way == WAY_WIRE || any_real)
            at_provider = t + hand + up + (n->ingress_delay ? rc_net__hop_delay(n) : 0);
        if (way == WAY_WIRE ? parts > 0 : any_real) {
            rc_time dep = at_provider;
            uint32_t node = 0, chain = 0;
            if (way == WAY_WIRE || n->region_lat) node = provider_node(n, ui);
            for (uint32_t layer = 0; layer < n->layers; layer++) {
                uint32_t mix = way == WAY_WIRE ? route_mix(n, n->rng_wire, layer, &chain)
                               : n->region_lat ? route_mix(n, n->rng_path, layer, &chain)
                                               : 0;
                at_last = dep + hand + link_lat(n, node, mix);
                if (way == WAY_WIRE) n->wops->hop(n, &wl, mix, layer, dep, at_last, parts, p);
                if (layer + 1 < n->layers) dep = at_last + rc_net__hop_delay(n);
                node = mix;
            }
            last_mix = node;
        } else if (way == WAY_HOPS) {
            /* Nobody observes an all-cover bundle's path: consume its delay
             * draws (the stream stays where it would be) without computing them. */
            rc_rng_skip_pos(n->rng_delay, (n->ingress_delay ? 1u : 0u) + n->layers - 1);
        }
    }
    n->ctr.bundles++;
    for (uint32_t left = p; left > 0;) {
        /* the covers before the next real entry, in one step */
        uint32_t covers = covers_ahead(u) < left ? covers_ahead(u) : left;
        if (covers > 0) {
            u->wait_head += covers;
            u->wait_n -= covers;
            left -= covers;
            n->ctr.cover_packets += covers;
            if (way == WAY_NODES) continue; /* counted in the packet's size */
            if (way == WAY_WIRE) {
                n->ctr.mix_packets += covers * n->layers;
                for (uint32_t c = 0; c < covers; c++)
                    n->wops->bundle_part(n, &wl, t, at_last + rc_net__hop_delay(n), NULL);
            } else if (way == WAY_HOPS && n->cover_full) {
                rc_net__traffic_route(n, covers);
                for (uint32_t c = 0; c < covers; c++)
                    rc_net__cover_send(n, (uint8_t)(n->layers + (n->ingress_delay ? 1 : 0)),
                                       t + hand + up);
            } /* (WAY_SUM: nobody observes its path: no delay is drawn) */
            continue;
        }
        u->wait_head++;
        u->wait_n--;
        left--;
        qmsg q = ring_pop(&u->wait);
        n->hooks.sent(n->hooks.ctx, ui, q.body, t);
        n->ctr.real_packets++; /* a real packet on the client's link, wherever it ends */
        if (way == WAY_NODES) {
            rc_net__node_bundle_add(n, pk, &q); /* (a relay is counted at its provider) */
            continue;
        }
        if (q.recipient == TO_PROVIDER) {
            /* Ends at the provider (provider.c): the strategy acts there, at
             * that time (an event, so providers serve in time order). */
            n->subs_relayed++;
            if (way == WAY_SUM) at_provider = t + up + (n->ingress_delay ? rc_net__hops_delay(n, 1) : 0);
            rc_sim_at(n->sim, at_provider, RC_CLS_PROVIDER, RC_EV_RELAY, ui, q.body);
            continue;
        }
        rc_time arrive;
        if (way == WAY_SUM) {
            /* (no link map here: rc_net_start; layers + 2 links of link_fixed) */
            arrive = t + rc_net__hops_delay(n, (n->ingress_delay ? 1u : 0u) + n->layers) +
                     (rc_time)(n->layers + 2) * n->link_fixed;
        } else {
            /* the last layer's delay, then the egress provider files it in
             * the next tick (delay 0), after the link from the last mix */
            rc_time leave = at_last + rc_net__hop_delay(n);
            arrive = leave + hand +
                     (n->region_lat ? link_lat(n, last_mix, provider_node(n, q.recipient))
                                    : n->link_fixed);
            if (way == WAY_WIRE) n->wops->bundle_part(n, &wl, t, leave, &q);
            if (n->cover_full) {
                n->ctr.mix_packets += n->layers;
                if (way == WAY_HOPS) rc_net__traffic_route(n, 1);
            }
        }
        rc_net__deliver_to_postbox(n, q.recipient, q.body, t, arrive);
    }
    if (way == WAY_NODES) rc_net__node_bundle_send(n, pk);
    if (way != WAY_SUM && n->cover_full) rc_net__traffic_departure(n, ui, t);
}

static void emit_bundle(rc_net *n, uint32_t ui, rc_time t)
{
    RC_DCHECK(n->users[ui].online, "client %u sent a packet while offline at t=%lld", ui,
              (long long)t);
    if (n->aggregate) emit(n, ui, t, WAY_SUM);
    else if (n->nd.on) emit(n, ui, t, WAY_NODES);
    else if (n->wire.link != NULL) emit(n, ui, t, WAY_WIRE);
    else emit(n, ui, t, WAY_HOPS);
}

enum { PREFETCH_BODY = 4, PREFETCH_RECIPIENT = 4, PREFETCH_POSTBOX = 2 };

/* Processes the stream firings of user ui at time t (payload, drop, loop in
 * that order, docs/spec.md §1.4), then emits: at most one bundle per tick on the
 * lattice, every full bundle otherwise. */
static void stream_step(rc_net *n, uint32_t ui, rc_time t)
{
    user *u = &n->users[ui];
    if (u->next_pay == t) {
        n->ctr.payload_slots++;
        if (u->out.n > 0) {
            qmsg q = ring_pop(&u->out);
            q.pos = u->wait_head + u->wait_n;
            ring_push(&u->wait, q);
            u->wait_n++;
            /* A long send queue is drained firing by firing (the look-ahead in
             * rc_net__on_stream): fetch the bodies of the messages a few
             * payload firings ahead before they are needed ... */
            if (u->out.n > PREFETCH_BODY && n->hooks.prefetch)
                n->hooks.prefetch(n->hooks.ctx, ring_at(&u->out, PREFETCH_BODY)->body,
                                  RC_NET_PREFETCH_SEND);
            /* ... and the recipients' filed-and-pulled lines (provider.c files the
             * message there when its bundle leaves, a firing or two from now). */
            if (u->out.n > PREFETCH_RECIPIENT) {
                uint32_t r = ring_at(&u->out, PREFETCH_RECIPIENT)->recipient;
                if (r != TO_PROVIDER) {
                    if (n->direct) { /* filing reads only the recipient's pull slot */
                        __builtin_prefetch(&n->pslot[r]);
                    } else {
                        __builtin_prefetch(&n->users[r], 1);
                        __builtin_prefetch((const char *)&n->users[r] + USER_ALIGN, 1);
                    }
                }
            }
            /* (and, once its record is in, the root and the end of a spilled
             * postbox: the message is pushed at the end, and filing reads the root) */
            if (u->out.n > PREFETCH_POSTBOX && !n->direct) {
                uint32_t r = ring_at(&u->out, PREFETCH_POSTBOX)->recipient;
                const pbox *b = r != TO_PROVIDER ? &n->users[r].postbox : NULL;
                if (b != NULL && b->a != b->inl && b->n > 0) {
                    __builtin_prefetch(b->a, 1);
                    __builtin_prefetch(&b->a[(b->n - 1) / 2], 1);
                }
            }
        } else {
            u->wait_n++; /* a cover */
        }
        u->next_pay = t + stream_gap(n, n->rate_pay, n->f_pay, n->steps_pay);
    }
    if (u->next_drop == t) {
        u->wait_n++;
        u->next_drop = t + stream_gap(n, n->rate_drop, n->f_drop, n->steps_drop);
    }
    if (u->next_loop == t) {
        u->wait_n++;
        u->next_loop = t + stream_gap(n, n->rate_loop, n->f_loop, n->steps_loop);
    }
    u->backlog_at = NEVER;
    if (n->lattice) {
        if (u->wait_n >= (uint32_t)n->p) emit_bundle(n, ui, t);
        if (u->wait_n >= (uint32_t)n->p) u->backlog_at = t + n->tick;
    } else {
        while (u->wait_n >= (uint32_t)n->p) emit_bundle(n, ui, t);
    }
}

/* ---------- idle clients ---------- */

/* Samples the idle bundling queue (covers only) from its stationary law. */
static void idle_reset(rc_net *n, user *u, rc_time limit)
{
    RC_DCHECK(u->wait.n == 0, "idle user holds real messages");
    double x = rc_rng_uniform(n->rng_cover);
    uint32_t w = 0;
    while (w + 1 < n->stat_n && x >= n->stat_cdf[w]) w++;
    u->wait_n = w;
    rc_net__streams_redraw(n, u, limit - step(n));
    if (n->lattice && u->wait_n >= (uint32_t)n->p) u->backlog_at = limit;
}

/* Brings an idle, online user's cover streams up to `limit` (exclusive). */
void rc_net__idle_catch_up(rc_net *n, uint32_t ui, rc_time limit)
{
    user *u = &n->users[ui];
    if (u->busy || !u->online || limit <= u->idle_since) return;
    RC_DCHECK(u->wait.n == 0 && u->out.n == 0, "idle user %u holds real messages", ui);
    if (limit - u->idle_since >= n->mix_time) {
        idle_reset(n, u, limit);
    } else {
        for (rc_time t = next_stream_time(u); t < limit; t = next_stream_time(u))
            stream_step(n, ui, t);
    }
    u->idle_since = limit;
}

/* ---------- stream events and sends ---------- */

void rc_net__schedule_stream(rc_net *n, uint32_t ui)
{
    user *u = &n->users[ui];
    rc_sim_at(n->sim, next_stream_time(u), RC_CLS_STREAM, RC_EV_STREAM, ui, u->stream_ver);
}

/* A stream firing's loads in the engine's stages (core/sim.h): the record's
 * stream lines (user) and, with cover_full, the client's last departure
 * (traffic.c); then the heads of its queues, which a firing moves, and the
 * bucket of its departure's gap.  Only in
 * populations (net.c, calendar_new): with fewer clients the records stay in
 * cache. */
void rc_net__prefetch_stream(void *ctx, uint32_t ui, uint64_t arg, unsigned stage)
{
    (void)arg;
    const rc_net *n = ctx;
    const user *u = &n->users[ui];
    switch (stage) {
    case 3:
        __builtin_prefetch(&u->stream_ver, 1);
        __builtin_prefetch((const char *)&u->stream_ver + USER_ALIGN, 1);
        if (n->tr.last_emit != NULL) __builtin_prefetch(&n->tr.last_emit[ui], 1);
        /* observed, the bundle's first link names the client's provider, on
         * the record's second line (wire.c, wire_bundle_enter: a miss at
         * nearly every firing, 3 % of a 10^5-client job) */
        if (n->wire.link != NULL) __builtin_prefetch(&u->provider);
        return;
    case 1:
        if (u->out.n > 0) __builtin_prefetch(ring_at(&u->out, 0));
        if (u->wait.n > 0) __builtin_prefetch(ring_at(&u->wait, 0));
        /* (its departure, should the firing send a bundle: the gap's bucket
         * as of now, a few events before the firing) */
        if (n->tr.last_emit != NULL) rc_net__traffic_prefetch_departure(n, ui, n->sim->now);
        return;
    default:
        return;
    }
}

void rc_net__on_stream(void *ctx, const rc_event *ev)
{
    rc_net *n = ctx;
    user *u = &n->users[ev->obj];
    /* (online from online_of: the record's own flag is on a line the stream
     * firing would not read otherwise) */
    if (ev->arg != u->stream_ver || !n->online_of[ev->obj]) return;
    stream_step(n, ev->obj, ev->t);
    rc_time last = ev->t;
    /* Look ahead: while real messages wait in the send queue, nothing another
     * event can do changes this client's next firings or what they carry
     * (later sends join the queue behind them), so process the firings up to
     * the moment the queue drains without going through the event queue.
     * Bounded by the client's next availability change and the end. */
    /* (The bound is re-read each step: a hook may force the client offline.) */
    if (!n->cover_full) {
        for (rc_time t = next_stream_time(u);
             u->out.n > 0 && t < n->sim->stop && t < next_toggle(n, u);
             t = next_stream_time(u)) {
            RC_DCHECK(wanted_online(u, t), "client %u would send at %lld while offline",
                      ev->obj, (long long)t);
            stream_step(n, ev->obj, t);
            last = t;
        }
    }
    if (n->aggregate) {
        /* Model 1 steps every firing before the bound while messages wait, so a
         * look-ahead cut short by the end or an availability change counts the
         * covers up to there; one that drained the queue, up to its last firing. */
        rc_time upto = last;
        if (u->out.n > 0) {
            rc_time toggle = next_toggle(n, u);
            rc_time bound = toggle < n->sim->stop ? toggle : n->sim->stop;
            if (bound - step(n) > upto) upto = bound - step(n);
        }
        flush_covers(n, u, upto);
    }
    if (has_real(u) || n->cover_full) {
        rc_net__schedule_stream(n, ev->obj);
    } else {
        u->busy = false;
        u->idle_since = last + step(n);
    }
}

void rc_net_send_provider(rc_net *n, uint32_t ui, uint32_t body)
{
    rc_net_send(n, ui, TO_PROVIDER, body);
}

void rc_net_send(rc_net *n, uint32_t ui, uint32_t recipient, uint32_t body)
{
    user *u = &n->users[ui];
    qmsg q = {recipient, body, 0};
    n->subs_created++;
    if (u->busy || !u->online) {
        ring_push(&u->out, q);
        return;
    }
    /* The user leaves the idle regime.  Sends made while its provider
     * delivers (a pull) can use this instant's payload slot; sends made by
     * timers or the app come after the user's turn (docs/spec.md §1.2). */
    rc_time now = n->sim->now;
    rc_net__idle_catch_up(n, ui, n->in_pull ? now : now + step(n));
    ring_push(&u->out, q);
    u->busy = true;
    u->stream_ver++;
    rc_net__schedule_stream(n, ui);
}

/* ---------- the idle chain (at construction) ---------- */

/* Stationary law and mixing time of an idle user's bundling queue (covers
 * only).  Lattice: per tick A ~ sum of three Bernoulli, w += A, emit one
 * bundle if w >= p; we square the transition matrix until every start state
 * agrees to 1e-13.  Continuous: w = N mod p, uniform, and the characteristic
 * function bounds the mixing time. */
void rc_net__idle_law(rc_net *n)
{
    if (n->cover_full) {
        n->mix_time = NEVER;
        n->stat_n = 1;
        n->stat_cdf = rc_xmalloc(sizeof(double));
        n->stat_cdf[0] = 1.0;
        return;
    }
    int p = n->p;
    if (!n->lattice) {
        n->stat_n = (uint32_t)p;
        n->stat_cdf = rc_xmalloc((size_t)p * sizeof(double));
        for (int i = 0; i < p; i++) n->stat_cdf[i] = (double)(i + 1) / p;
        double lam = n->rate_pay + n->rate_drop + n->rate_loop;
        if (p == 1) n->mix_time = 0;
        else n->mix_time = (rc_time)ceil(30.0 / (lam * (1 - cos(2 * M_PI / p))) * 1e6);
        return;
    }
    uint32_t W = (uint32_t)p + 48;
    double pa[4] = {0};
    double f[3] = {n->f_pay, n->f_drop, n->f_loop};
    for (int mask = 0; mask < 8; mask++) {
        double pr = 1;
        int c = 0;
        for (int b = 0; b < 3; b++) {
            if (mask & (1 << b)) pr *= f[b], c++;
            else pr *= 1 - f[b];
        }
        pa[c] += pr;
    }
    double *P = rc_xcalloc((size_t)W * W, sizeof(double));
    double *Q = rc_xcalloc((size_t)W * W, sizeof(double));
    for (uint32_t w = 0; w < W; w++)
        for (int a = 0; a <= 3; a++) {
            uint32_t x = w + (uint32_t)a;
            if (x >= (uint32_t)p) x -= (uint32_t)p;
            if (x >= W) x = W - 1;
            P[w * W + x] += pa[a];
        }
    rc_time ticks = 1;
    for (int it = 0; it < 60; it++) {
        double worst = 0;
        for (uint32_t r = 1; r < W; r++) {
            double d = 0;
            for (uint32_t c = 0; c < W; c++) d += fabs(P[r * W + c] - P[c]);
            if (d > worst) worst = d;
        }
        if (worst < 1e-13) break;
        memset(Q, 0, (size_t)W * W * sizeof(double));
        for (uint32_t r = 0; r < W; r++)
            for (uint32_t k = 0; k < W; k++) {
                double a = P[r * W + k];
                if (a == 0) continue;
                for (uint32_t c = 0; c < W; c++) Q[r * W + c] += a * P[k * W + c];
            }
        double *tmp = P;
        P = Q;
        Q = tmp;
        ticks *= 2;
    }
    n->stat_n = W;
    n->stat_cdf = rc_xmalloc(W * sizeof(double));
    double acc = 0;
    for (uint32_t c = 0; c < W; c++) n->stat_cdf[c] = (acc += P[c]);
    n->stat_cdf[W - 1] = 1.0;
    n->mix_time = ticks * n->tick;
    free(P);
    free(Q);
}
