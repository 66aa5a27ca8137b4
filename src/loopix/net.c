#include "loopix/net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/rng.h"

/* Net event kinds. */
enum { EV_PULL = 1, EV_STREAM = 2, EV_AVAIL = 3, EV_COVER_HOP = 4, EV_MIX_LOOP = 5,
       EV_FORCE = 6 };
/* Random streams of the net (core/rng.h stream ids). */
enum { STREAM_COVER = 1, STREAM_DELAY = 2, STREAM_PHASE = 3, STREAM_MIXLOOP = 4 };

#define COVER UINT32_MAX
#define NEVER INT64_MAX

/* A ring buffer of u32 (send queue, bundling queue). */
typedef struct ring {
    uint32_t *a;
    uint32_t head, n, cap;
} ring;

static void ring_push(ring *r, uint32_t v)
{
    if (r->n == r->cap) {
        uint32_t ncap = r->cap ? r->cap * 2 : 8;
        uint32_t *na = rc_xmalloc(ncap * sizeof *na);
        for (uint32_t i = 0; i < r->n; i++) na[i] = r->a[(r->head + i) % r->cap];
        free(r->a);
        r->a = na;
        r->cap = ncap;
        r->head = 0;
    }
    r->a[(r->head + r->n) % r->cap] = v;
    r->n++;
}

static uint32_t ring_pop(ring *r)
{
    RC_ASSERT(r->n > 0);
    uint32_t v = r->a[r->head];
    r->head = (r->head + 1) % r->cap;
    r->n--;
    return v;
}

/* A postbox: the messages addressed to one client that have left their
 * sender, as a min-heap by (arrival time, sequence).  Nothing in the network
 * has a capacity, so a message's arrival time is known when its bundle leaves
 * (docs/spec.md §1.6); keeping future arrivals here instead of as events in the global
 * queue keeps that queue small.  A pull takes the entries that have arrived. */
typedef struct pentry {
    rc_time t;
    uint64_t seq;
    uint32_t sub;
} pentry;

typedef struct pbox {
    pentry *a;
    uint32_t n, cap;
} pbox;

static inline bool pe_before(const pentry *x, const pentry *y)
{
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static void pbox_push(pbox *b, pentry e)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 8;
        b->a = rc_xrealloc(b->a, b->cap * sizeof *b->a);
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

/* A real sub-message in flight: recipient, the upper layer's body handle,
 * and the time it reached the recipient's postbox. */
typedef struct sub {
    uint32_t recipient, body;
    rc_time emitted, arrived;
} sub;

typedef struct user {
    bool online, forced_offline, busy, in_stationary_reset;
    uint32_t provider, line;
    ring out;       /* real messages not yet in a bundle slot (sub indices) */
    ring wait;      /* bundling queue: sub indices or COVER */
    uint32_t wait_real;
    rc_time next_pay, next_drop, next_loop, backlog_at;
    rc_time idle_since;
    uint64_t stream_ver;
    /* pulls */
    rc_time pull_due, pull_remaining, last_online_at, pull_at;
    bool pull_scheduled;
    uint64_t pull_ver;
    pbox postbox;
    /* availability: the trace's state, and a forced-offline window */
    bool trace_on;
    rc_time force_from, force_until;
    uint32_t toggle_idx;
    uint64_t toggle_period_k;
} user;

typedef struct cover_pkt {
    uint8_t hops_left;
} cover_pkt;

struct rc_net {
    rc_sim *sim;
    rc_net_hooks hooks;
    rc_net_counters ctr;
    uint32_t n_users, layers, width;
    user *users;
    sub *subs;
    uint32_t n_subs, cap_subs, free_head; /* free list threaded through recipient */
    uint64_t postbox_seq;
    uint64_t subs_created, subs_pulled; /* message conservation (run-time check) */
    int p;
    bool lattice, frozen_pull, ingress_delay, cover_full, in_pull;
    rc_time tick;        /* lattice step (us); 1 when off */
    rc_time pull_period; /* us */
    double rate_pay, rate_drop, rate_loop, mu; /* per second, after x p and / lambda_div */
    double f_pay, f_drop, f_loop;              /* per-tick firing probabilities (lattice) */
    double g_pay, g_drop, g_loop;              /* 1/log(1-f), for geometric draws */
    double mix_rate_loop, mix_mu;
    /* idle-chain stationary law (see the header) */
    rc_time mix_time;
    double *stat_cdf;
    uint32_t stat_n;
    const rc_trace *trace;
    uint32_t trace_period_s;
    gsl_rng *rng_cover, *rng_delay, *rng_mixloop;
    cover_pkt *cpk;
    uint32_t n_cpk, cap_cpk, cpk_free;
};

/* ---------- small helpers ---------- */

static uint32_t sub_new(rc_net *n, uint32_t recipient, uint32_t body)
{
    uint32_t i;
    if (n->free_head != UINT32_MAX) {
        i = n->free_head;
        n->free_head = n->subs[i].recipient;
    } else {
        if (n->n_subs == n->cap_subs) {
            n->cap_subs = n->cap_subs ? n->cap_subs * 2 : 1024;
            n->subs = rc_xrealloc(n->subs, n->cap_subs * sizeof *n->subs);
        }
        i = n->n_subs++;
    }
    n->subs[i] = (sub){recipient, body, 0, 0};
    n->subs_created++;
    return i;
}

static void sub_free(rc_net *n, uint32_t i)
{
    n->subs[i].recipient = n->free_head;
    n->free_head = i;
}

/* Gap to a stream's next firing (us).  Lattice: a whole number of ticks,
 * Geometric(F) — exactly the law of per-tick Bernoulli trials (docs/spec.md §1.11). */
static rc_time stream_gap(rc_net *n, double rate, double f, double inv_log1m_f)
{
    if (rate <= 0) return NEVER / 4;
    if (n->lattice)
        return f >= 1 ? n->tick : (rc_time)rc_rng_geom_inv(n->rng_cover, inv_log1m_f) * n->tick;
    rc_time g = (rc_time)llround(rc_rng_exp(n->rng_cover, 1e6 / rate));
    return g < 1 ? 1 : g;
}

/* The next firings after `from` (exclusive of nothing: the first possible
 * firing is at from + one step). */
static void streams_redraw(rc_net *n, user *u, rc_time from)
{
    u->next_pay = from + stream_gap(n, n->rate_pay, n->f_pay, n->g_pay);
    u->next_drop = from + stream_gap(n, n->rate_drop, n->f_drop, n->g_drop);
    u->next_loop = from + stream_gap(n, n->rate_loop, n->f_loop, n->g_loop);
    u->backlog_at = NEVER;
}

static rc_time step(const rc_net *n) { return n->lattice ? n->tick : 1; }

static rc_time next_stream_time(const user *u)
{
    rc_time t = u->next_pay;
    if (u->next_drop < t) t = u->next_drop;
    if (u->next_loop < t) t = u->next_loop;
    if (u->backlog_at < t) t = u->backlog_at;
    return t;
}

/* One per-hop delay (us): docs/spec.md §1.6 floor(1000 Exp) ms lifted to the lattice,
 * or exact microseconds. */
static rc_time hop_delay(rc_net *n, gsl_rng *r, double mu)
{
    double d = rc_rng_exp(r, 1.0 / mu);
    if (n->lattice) {
        rc_time ms = (rc_time)floor(1000.0 * d);
        rc_time us = ms * 1000;
        return ((us + n->tick - 1) / n->tick) * n->tick;
    }
    return (rc_time)llround(d * 1e6);
}

static bool has_real(const user *u) { return u->out.n > 0 || u->wait_real > 0; }

/* ---------- cover packets through the mixes (cover=full) ---------- */

static void cover_hop_schedule(rc_net *n, uint32_t pk, rc_time t)
{
    rc_sim_at(n->sim, t, RC_CLS_MIX, EV_COVER_HOP, pk, 0);
}

static uint32_t cover_new(rc_net *n, uint8_t hops)
{
    uint32_t i;
    if (n->cpk_free != UINT32_MAX) {
        i = n->cpk_free;
        n->cpk_free = n->cpk[i].hops_left; /* reuse field as link is too small: use array */
    }
    if (n->n_cpk == n->cap_cpk) {
        n->cap_cpk = n->cap_cpk ? n->cap_cpk * 2 : 1024;
        n->cpk = rc_xrealloc(n->cpk, n->cap_cpk * sizeof *n->cpk);
    }
    i = n->n_cpk++;
    n->cpk[i].hops_left = hops;
    return i;
}

static void on_cover_hop(void *ctx, const rc_event *ev)
{
    rc_net *n = ctx;
    cover_pkt *c = &n->cpk[ev->obj];
    if (c->hops_left == 0) return; /* reached its provider: dropped or ignored */
    c->hops_left--;
    n->ctr.mix_packets++;
    rc_time d = hop_delay(n, n->rng_delay, n->mu) + (n->lattice ? n->tick : 0);
    cover_hop_schedule(n, ev->obj, n->sim->now + d);
}

static void on_mix_loop(void *ctx, const rc_event *ev)
{
    rc_net *n = ctx;
    /* A mix loop visits the remaining layers, a provider, the earlier layers
     * and returns: layers + 1 hops at the mix-loop delay rate. */
    uint32_t pk = cover_new(n, (uint8_t)(n->layers + 1));
    cover_hop_schedule(n, pk, n->sim->now);
    rc_time gap = (rc_time)llround(rc_rng_exp(n->rng_mixloop, 1e6 / n->mix_rate_loop));
    if (n->lattice) gap = ((gap + n->tick - 1) / n->tick) * n->tick;
    if (gap < 1) gap = 1;
    rc_sim_at(n->sim, n->sim->now + gap, RC_CLS_MIX, EV_MIX_LOOP, ev->obj, 0);
}

static void deliver_to_postbox(rc_net *n, uint32_t s, rc_time arrive);

/* ---------- bundles ---------- */

static void emit_bundle(rc_net *n, uint32_t ui, rc_time t)
{
    user *u = &n->users[ui];
    RC_DCHECK(u->online, "client %u sent a packet while offline at t=%lld", ui, (long long)t);
    rc_time shared = t;
    rc_time hand = n->lattice ? n->tick : 0; /* one tick of hand-off per hop (docs/spec.md §1.2) */
    shared += hand + (n->ingress_delay ? hop_delay(n, n->rng_delay, n->mu) : 0);
    for (uint32_t l = 0; l + 1 < n->layers; l++) shared += hand + hop_delay(n, n->rng_delay, n->mu);
    n->ctr.bundles++;
    for (int i = 0; i < n->p; i++) {
        uint32_t s = ring_pop(&u->wait);
        if (s == COVER) {
            n->ctr.cover_packets++;
            if (n->cover_full) {
                uint32_t pk = cover_new(n, (uint8_t)(n->layers + (n->ingress_delay ? 1 : 0)));
                cover_hop_schedule(n, pk, t + hand);
            }
            continue;
        }
        u->wait_real--;
        n->subs[s].emitted = t;
        n->hooks.sent(n->hooks.ctx, ui, n->subs[s].body, t);
        /* The last layer delays each sub-message separately, then the egress
         * provider files it in the next tick (delay 0). */
        rc_time arrive = shared + hand + hop_delay(n, n->rng_delay, n->mu) + hand;
        if (n->cover_full) n->ctr.mix_packets += n->layers;
        deliver_to_postbox(n, s, arrive);
    }
}

/* Processes the stream firings of user ui at time t (payload, drop, loop in
 * that order, docs/spec.md §1.4), then emits: at most one bundle per tick on the
 * lattice, every full bundle otherwise. */
static void stream_step(rc_net *n, uint32_t ui, rc_time t)
{
    user *u = &n->users[ui];
    if (u->next_pay == t) {
        if (u->out.n > 0) {
            ring_push(&u->wait, ring_pop(&u->out));
            u->wait_real++;
        } else {
            ring_push(&u->wait, COVER);
        }
        u->next_pay = t + stream_gap(n, n->rate_pay, n->f_pay, n->g_pay);
    }
    if (u->next_drop == t) {
        ring_push(&u->wait, COVER);
        u->next_drop = t + stream_gap(n, n->rate_drop, n->f_drop, n->g_drop);
    }
    if (u->next_loop == t) {
        ring_push(&u->wait, COVER);
        u->next_loop = t + stream_gap(n, n->rate_loop, n->f_loop, n->g_loop);
    }
    u->backlog_at = NEVER;
    if (n->lattice) {
        if (u->wait.n >= (uint32_t)n->p) emit_bundle(n, ui, t);
        if (u->wait.n >= (uint32_t)n->p) u->backlog_at = t + n->tick;
    } else {
        while (u->wait.n >= (uint32_t)n->p) emit_bundle(n, ui, t);
    }
}

/* Samples the idle bundling queue (covers only) from its stationary law. */
static void idle_reset(rc_net *n, user *u, rc_time limit)
{
    while (u->wait.n > 0) ring_pop(&u->wait);
    double x = rc_rng_uniform(n->rng_cover);
    uint32_t w = 0;
    while (w + 1 < n->stat_n && x >= n->stat_cdf[w]) w++;
    for (uint32_t i = 0; i < w; i++) ring_push(&u->wait, COVER);
    streams_redraw(n, u, limit - step(n));
    if (n->lattice && u->wait.n >= (uint32_t)n->p) u->backlog_at = limit;
}

/* Brings an idle, online user's cover streams up to `limit` (exclusive). */
static void idle_catch_up(rc_net *n, uint32_t ui, rc_time limit)
{
    user *u = &n->users[ui];
    if (u->busy || !u->online || limit <= u->idle_since) return;
    RC_DCHECK(u->wait_real == 0 && u->out.n == 0, "idle user %u holds real messages", ui);
    if (limit - u->idle_since >= n->mix_time) {
        idle_reset(n, u, limit);
    } else {
        for (rc_time t = next_stream_time(u); t < limit; t = next_stream_time(u))
            stream_step(n, ui, t);
    }
    u->idle_since = limit;
}

static void schedule_stream(rc_net *n, uint32_t ui)
{
    user *u = &n->users[ui];
    rc_sim_at(n->sim, next_stream_time(u), RC_CLS_STREAM, EV_STREAM, ui, u->stream_ver);
}

static bool wanted_online(const rc_net *n, const user *u, rc_time t);

/* The time of user ui's next availability change (NEVER without a trace). */
static rc_time next_toggle(const rc_net *n, const user *u)
{
    rc_time t = NEVER;
    if (n->trace != NULL && !u->forced_offline) {
        bool at0;
        size_t cnt;
        const uint32_t *tg = rc_trace_toggles(n->trace, u->line, &at0, &cnt);
        if (cnt > 0)
            t = ((rc_time)u->toggle_period_k * n->trace_period_s + tg[u->toggle_idx]) * 1000000;
        /* the day's wrap can flip the state too (on_avail) */
        rc_time wrap = ((rc_time)u->toggle_period_k + 1) * n->trace_period_s * 1000000;
        if (wrap < t) t = wrap;
    }
    /* a forced-offline window that has not started yet */
    if (u->force_from != NEVER && u->force_from > n->sim->now && u->force_from < t)
        t = u->force_from;
    return t;
}

static void on_stream(void *ctx, const rc_event *ev)
{
    rc_net *n = ctx;
    user *u = &n->users[ev->obj];
    if (ev->arg != u->stream_ver || !u->online) return;
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
             u->out.n > 0 && t < n->sim->stop && t < next_toggle(n, u); t = next_stream_time(u)) {
            RC_DCHECK(wanted_online(n, u, t), "client %u would send at %lld while offline", ev->obj,
                      (long long)t);
            stream_step(n, ev->obj, t);
            last = t;
        }
    }
    if (has_real(u) || n->cover_full) {
        schedule_stream(n, ev->obj);
    } else {
        u->busy = false;
        u->idle_since = last + step(n);
    }
}

void rc_net_send(rc_net *n, uint32_t ui, uint32_t recipient, uint32_t body)
{
    user *u = &n->users[ui];
    uint32_t s = sub_new(n, recipient, body);
    if (u->busy || !u->online) {
        ring_push(&u->out, s);
        return;
    }
    /* The user leaves the idle regime.  Sends made while its provider
     * delivers (a pull) can use this instant's payload slot; sends made by
     * timers or the app come after the user's turn (docs/spec.md §1.2). */
    rc_time now = n->sim->now;
    idle_catch_up(n, ui, n->in_pull ? now : now + step(n));
    ring_push(&u->out, s);
    u->busy = true;
    u->stream_ver++;
    schedule_stream(n, ui);
}

/* ---------- pulls ---------- */

static rc_time next_pull_at_or_after(const rc_net *n, const user *u, rc_time a)
{
    if (a <= u->pull_due) return u->pull_due;
    rc_time k = (a - u->pull_due + n->pull_period - 1) / n->pull_period;
    return u->pull_due + k * n->pull_period;
}

/* Makes sure an online client with mail pulls at its first pull time at or
 * after both `now` and the earliest arrival in its postbox. */
static void ensure_pull(rc_net *n, uint32_t ui, rc_time now)
{
    user *u = &n->users[ui];
    if (!u->online || u->postbox.n == 0) return;
    rc_time first = u->postbox.a[0].t > now ? u->postbox.a[0].t : now;
    rc_time at = next_pull_at_or_after(n, u, first);
    if (u->pull_scheduled && u->pull_at <= at) return;
    u->pull_ver++;
    u->pull_scheduled = true;
    u->pull_at = at;
    rc_sim_at(n->sim, at, RC_CLS_PULL, EV_PULL, ui, u->pull_ver);
}

static void deliver_to_postbox(rc_net *n, uint32_t si, rc_time arrive)
{
    sub *s = &n->subs[si];
    s->arrived = arrive;
    if (n->hooks.arrived) n->hooks.arrived(n->hooks.ctx, s->recipient, s->body, s->emitted, arrive);
    pbox_push(&n->users[s->recipient].postbox, (pentry){arrive, n->postbox_seq++, si});
    ensure_pull(n, s->recipient, n->sim->now);
}

static void on_pull(void *ctx, const rc_event *ev)
{
    rc_net *n = ctx;
    user *u = &n->users[ev->obj];
    if (ev->arg != u->pull_ver || !u->online) return;
    u->pull_scheduled = false;
    u->pull_due = ev->t + n->pull_period;
    n->ctr.pulls++;
    n->in_pull = true;
    /* Take everything that has arrived by now, in arrival order; what the
     * hooks send now arrives later. */
    while (u->postbox.n > 0 && u->postbox.a[0].t <= ev->t) {
        uint32_t si = pbox_pop(&u->postbox).sub;
        n->subs_pulled++;
        sub s = n->subs[si];
        sub_free(n, si);
        bool online_label = n->frozen_pull ? (s.arrived > ev->t - n->pull_period)
                                           : (s.arrived >= u->last_online_at);
        n->hooks.deliver(n->hooks.ctx, ev->obj, s.body, online_label, ev->t);
    }
    n->in_pull = false;
    ensure_pull(n, ev->obj, ev->t);
}

/* ---------- availability ---------- */

static void schedule_toggle(rc_net *n, uint32_t ui)
{
    user *u = &n->users[ui];
    bool at0;
    size_t cnt;
    const uint32_t *tg = rc_trace_toggles(n->trace, u->line, &at0, &cnt);
    if (cnt == 0) return;
    rc_time t = ((rc_time)u->toggle_period_k * n->trace_period_s + tg[u->toggle_idx]) * 1000000;
    rc_sim_at(n->sim, t, RC_CLS_AVAIL, EV_AVAIL, ui, 0);
}

static void go_offline(rc_net *n, uint32_t ui, rc_time t)
{
    user *u = &n->users[ui];
    if (!u->busy) idle_catch_up(n, ui, t);
    u->stream_ver++;
    u->busy = false;
    if (n->frozen_pull) u->pull_remaining = next_pull_at_or_after(n, u, t) - t;
    u->pull_ver++;
    u->pull_scheduled = false;
    u->online = false;
    n->hooks.online(n->hooks.ctx, ui, false, t);
}

static void go_online(rc_net *n, uint32_t ui, rc_time t)
{
    user *u = &n->users[ui];
    u->online = true;
    u->last_online_at = t;
    if (n->frozen_pull) u->pull_due = t + u->pull_remaining;
    /* Memoryless streams: re-drawing on wake-up is equivalent to suspending
     * them (docs/spec.md §1.11); the bundling queue kept its contents. */
    streams_redraw(n, u, t - step(n));
    if (n->lattice && u->wait.n >= (uint32_t)n->p) u->backlog_at = t;
    u->stream_ver++;
    if (has_real(u) || n->cover_full) {
        u->busy = true;
        schedule_stream(n, ui);
    } else {
        u->busy = false;
        u->idle_since = t;
    }
    ensure_pull(n, ui, t);
    n->hooks.online(n->hooks.ctx, ui, true, t);
}

/* The online state the client should have now: its trace says online and it
 * is not inside a forced-offline window. */
static bool wanted_online(const rc_net *n, const user *u, rc_time t)
{
    (void)n;
    return !u->forced_offline && u->trace_on && !(t >= u->force_from && t < u->force_until);
}

static void apply_state(rc_net *n, uint32_t ui, rc_time t)
{
    user *u = &n->users[ui];
    bool want = wanted_online(n, u, t);
    if (want && !u->online) go_online(n, ui, t);
    else if (!want && u->online) go_offline(n, ui, t);
}

static void on_avail(void *ctx, const rc_event *ev)
{
    rc_net *n = ctx;
    user *u = &n->users[ev->obj];
    bool at0;
    size_t cnt;
    rc_trace_toggles(n->trace, u->line, &at0, &cnt);
    u->trace_on = !u->trace_on;
    apply_state(n, ev->obj, ev->t);
    if (++u->toggle_idx == cnt) {
        u->toggle_idx = 0;
        u->toggle_period_k++;
        /* A line whose state at the end of the day differs from its state at
         * second 0 flips again at the wrap (docs/spec.md §4: line[(now div 1000) mod 86400]). */
        if (u->trace_on != at0) {
            rc_sim_at(n->sim, (rc_time)u->toggle_period_k * n->trace_period_s * 1000000,
                      RC_CLS_AVAIL, EV_AVAIL, ev->obj, 1);
            u->toggle_idx = 0;
        }
    }
    if (ev->arg == 0 || u->toggle_idx == 0) schedule_toggle(n, ev->obj);
}

static void on_force(void *ctx, const rc_event *ev)
{
    rc_net *n = ctx;
    apply_state(n, ev->obj, ev->t);
}

void rc_net_force_offline(rc_net *n, uint32_t ui, rc_time from, rc_time until)
{
    user *u = &n->users[ui];
    u->force_from = from;
    u->force_until = until;
    rc_sim_at(n->sim, from, RC_CLS_AVAIL, EV_FORCE, ui, 0);
    rc_sim_at(n->sim, until, RC_CLS_AVAIL, EV_FORCE, ui, 0);
}

/* ---------- construction ---------- */

/* Stationary law and mixing time of an idle user's bundling queue (covers
 * only).  Lattice: per tick A ~ sum of three Bernoulli, w += A, emit one
 * bundle if w >= p; we square the transition matrix until every start state
 * agrees to 1e-13.  Continuous: w = N mod p, uniform, and the characteristic
 * function bounds the mixing time. */
static void idle_law(rc_net *n)
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

rc_net *rc_net_new(rc_sim *sim, const rc_net_cfg *cfg, const rc_trace *trace, int split,
                   const bool *forced_offline, rc_net_hooks hooks)
{
    rc_net *n = rc_xcalloc(1, sizeof *n);
    n->sim = sim;
    n->hooks = hooks;
    n->n_users = (uint32_t)cfg->users;
    n->layers = (uint32_t)cfg->mix_layers;
    n->width = (uint32_t)cfg->mixes_per_layer;
    n->p = split;
    n->lattice = cfg->lattice;
    n->frozen_pull = cfg->frozen_pull;
    n->ingress_delay = cfg->ingress_delay;
    n->cover_full = cfg->cover_full;
    n->tick = n->lattice ? (rc_time)llround(cfg->tick_s * 1e6) : 1;
    if (n->tick < 1) n->tick = 1;
    n->pull_period = (rc_time)llround(cfg->pull_period_s * 1e6);
    double div = cfg->lambda_div;
    n->rate_pay = cfg->rate_payload * split / div;
    n->rate_drop = cfg->rate_drop * split / div;
    n->rate_loop = cfg->rate_loop * split / div;
    n->mu = cfg->rate_delay / div;
    n->mix_rate_loop = cfg->mix_rate_loop / div;
    n->mix_mu = cfg->mix_rate_loop_delay / div;
    double ts = (double)n->tick / 1e6;
    n->f_pay = -expm1(-n->rate_pay * ts);
    n->f_drop = -expm1(-n->rate_drop * ts);
    n->f_loop = -expm1(-n->rate_loop * ts);
    n->g_pay = 1.0 / log1p(-n->f_pay);
    n->g_drop = 1.0 / log1p(-n->f_drop);
    n->g_loop = 1.0 / log1p(-n->f_loop);
    n->trace = trace;
    n->trace_period_s = trace ? rc_trace_period_s(trace) : 0;
    n->rng_cover = rc_rng_new(cfg->seed, STREAM_COVER);
    n->rng_delay = rc_rng_new(cfg->seed, STREAM_DELAY);
    n->rng_mixloop = rc_rng_new(cfg->seed, STREAM_MIXLOOP);
    n->free_head = UINT32_MAX;
    n->cpk_free = UINT32_MAX;
    idle_law(n);

    gsl_rng *phase = rc_rng_new(cfg->seed, STREAM_PHASE);
    n->users = rc_xcalloc(n->n_users, sizeof *n->users);
    uint32_t upp = (uint32_t)cfg->users_per_provider;
    for (uint32_t i = 0; i < n->n_users; i++) {
        user *u = &n->users[i];
        u->provider = i / upp; /* providers filled greedily, docs/spec.md §1.1 */
        /* docs/spec.md §4: the reference hands line i to user U_i of every provider. */
        u->line = cfg->trace16 ? i % upp : i;
        u->forced_offline = forced_offline != NULL && forced_offline[i];
        /* Paper: every always-online user pulls at 1000 j (docs/spec.md §1.4); exact:
         * each client polls on its own phase. */
        u->pull_due = n->frozen_pull ? n->pull_period
                                     : (rc_time)(rc_rng_uniform(phase) * (double)n->pull_period);
        u->pull_remaining = n->pull_period;
        u->backlog_at = NEVER;
        u->force_from = u->force_until = NEVER;
    }
    rc_rng_free(phase);
    rc_sim_on(sim, EV_PULL, on_pull, n);
    rc_sim_on(sim, EV_STREAM, on_stream, n);
    rc_sim_on(sim, EV_AVAIL, on_avail, n);
    rc_sim_on(sim, EV_COVER_HOP, on_cover_hop, n);
    rc_sim_on(sim, EV_MIX_LOOP, on_mix_loop, n);
    rc_sim_on(sim, EV_FORCE, on_force, n);
    return n;
}

void rc_net_start(rc_net *n)
{
    for (uint32_t i = 0; i < n->n_users; i++) {
        user *u = &n->users[i];
        u->trace_on = n->trace == NULL || rc_trace_online_at(n->trace, u->line, 0);
        bool on = wanted_online(n, u, 0);
        u->online = on;
        u->idle_since = 0;
        streams_redraw(n, u, -step(n));
        if (!u->forced_offline && n->trace != NULL) schedule_toggle(n, i);
        if (on && n->cover_full) {
            u->busy = true;
            schedule_stream(n, i);
        }
    }
    if (n->cover_full && n->mix_rate_loop > 0)
        for (uint32_t m = 0; m < n->layers * n->width; m++)
            rc_sim_at(n->sim, 0, RC_CLS_MIX, EV_MIX_LOOP, m, 0);
}

void rc_net_free(rc_net *n)
{
    if (n == NULL) return;
    for (uint32_t i = 0; i < n->n_users; i++) {
        free(n->users[i].out.a);
        free(n->users[i].wait.a);
        free(n->users[i].postbox.a);
    }
    free(n->users);
    free(n->subs);
    free(n->cpk);
    free(n->stat_cdf);
    rc_rng_free(n->rng_cover);
    rc_rng_free(n->rng_delay);
    rc_rng_free(n->rng_mixloop);
    free(n);
}

bool rc_net_online(const rc_net *n, uint32_t ui) { return n->users[ui].online; }
uint32_t rc_net_users(const rc_net *n) { return n->n_users; }
rc_time rc_net_tick(const rc_net *n) { return n->lattice ? n->tick : 1; }

void rc_net_check_conservation(const rc_net *n)
{
    /* Every real message handed to the net was pulled by its recipient, or
     * is still queued at its sender or waiting in a postbox (possibly with a
     * future arrival time: in flight). */
    uint64_t held = rc_net_backlog(n);
    RC_DCHECK(n->subs_created == n->subs_pulled + held,
              "message conservation: %llu sent != %llu pulled + %llu held",
              (unsigned long long)n->subs_created, (unsigned long long)n->subs_pulled,
              (unsigned long long)held);
}

uint64_t rc_net_backlog(const rc_net *n)
{
    uint64_t b = 0;
    for (uint32_t i = 0; i < n->n_users; i++)
        b += n->users[i].out.n + n->users[i].wait_real + n->users[i].postbox.n;
    return b;
}

double rc_net_mean_hop_delay_s(const rc_net *n) { return 1.0 / n->mu; }
double rc_net_payload_rate(const rc_net *n) { return n->rate_pay; }
uint32_t rc_net_hops(const rc_net *n) { return n->layers + 1; }
const rc_net_counters *rc_net_counts(const rc_net *n) { return &n->ctr; }
