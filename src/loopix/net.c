/* net: builds one network for one job, drives its clients' availability
 * (trace toggles, forced-offline windows) and implements the rest of the
 * public API (loopix/net.h).  The actors live beside it: client.c,
 * provider.c, mix.c (loopix/net_internal.h says who does what). */
#include "loopix/net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/rng.h"
#include "loopix/linkmap.h"
#include "loopix/net_internal.h"

/* ---------- availability ---------- */

static void schedule_toggle(rc_net *n, uint32_t ui)
{
    user *u = &n->users[ui];
    bool at0;
    size_t cnt;
    const uint32_t *tg = rc_trace_toggles(n->trace, u->line, &at0, &cnt);
    if (cnt == 0) return;
    rc_time t = ((rc_time)u->toggle_period_k * n->trace_period_s + tg[u->toggle_idx]) * 1000000;
    rc_sim_at(n->sim, t, RC_CLS_AVAIL, RC_EV_AVAIL, ui, 0);
}

static void go_offline(rc_net *n, uint32_t ui, rc_time t)
{
    user *u = &n->users[ui];
    if (!u->busy) rc_net__idle_catch_up(n, ui, t);
    u->stream_ver++;
    u->busy = false;
    if (n->frozen_pull) u->pull_remaining = rc_net__next_pull_at_or_after(n, u, t) - t;
    u->pull_ver++;
    u->pull_scheduled = false;
    rc_net__traffic_offline(n, ui, t);
    set_online(n, ui, false);
    n->hooks.online(n->hooks.ctx, ui, false, t);
}

static void go_online(rc_net *n, uint32_t ui, rc_time t)
{
    user *u = &n->users[ui];
    set_online(n, ui, true);
    u->last_online_at = t;
    if (n->pslot != NULL) n->pslot[ui].last_online = t;
    if (n->frozen_pull) u->pull_due = t + u->pull_remaining;
    /* Memoryless streams: re-drawing on wake-up is equivalent to suspending
     * them (docs/spec.md §1.11); the bundling queue kept its contents. */
    rc_net__streams_redraw(n, u, t - step(n));
    if (n->lattice && u->wait_n >= (uint32_t)n->p) u->backlog_at = t;
    u->stream_ver++;
    if (has_real(u) || n->cover_full) {
        u->busy = true;
        rc_net__schedule_stream(n, ui);
    } else {
        u->busy = false;
        u->idle_since = t;
    }
    rc_net__ensure_pull(n, ui, t);
    n->hooks.online(n->hooks.ctx, ui, true, t);
}

static void apply_state(rc_net *n, uint32_t ui, rc_time t)
{
    user *u = &n->users[ui];
    bool want = wanted_online(u, t);
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
                      RC_CLS_AVAIL, RC_EV_AVAIL, ev->obj, 1);
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
    rc_sim_at(n->sim, from, RC_CLS_AVAIL, RC_EV_FORCE, ui, 0);
    rc_sim_at(n->sim, until, RC_CLS_AVAIL, RC_EV_FORCE, ui, 0);
}

/* ---------- construction ---------- */

/* A link's latency in us, lifted to ticks on the lattice (as every delay is there). */
static rc_time link_us(const rc_net *n, double s)
{
    rc_time us = (rc_time)llround(s * 1e6);
    return n->lattice ? (us + n->tick - 1) / n->tick * n->tick : us;
}

/* Links and topology (docs/spec.md §1.16, §1.17): every node's region, from
 * the map (clients in their provider's). */
static void links_new(rc_net *n, const rc_net_cfg *cfg)
{
    n->topology = cfg->topology;
    n->link_fixed = link_us(n, cfg->link_latency_s);
    const rc_linkmap *m = cfg->link_map;
    if (m == NULL) return;
    n->link_fixed = 0;
    uint32_t R = m->n_regions, mixes = n->layers * n->width;
    n->n_regions = R;
    n->region_lat = rc_xmalloc((size_t)R * R * sizeof *n->region_lat);
    for (size_t i = 0; i < (size_t)R * R; i++) n->region_lat[i] = link_us(n, m->lat_s[i]);
    n->node_region = rc_xmalloc((n->n_users + n->n_providers + mixes) * sizeof *n->node_region);
    for (uint32_t p = 0; p < n->n_providers; p++)
        n->node_region[n->n_users + p] = rc_linkmap_region(m, RC_LINKMAP_PROVIDER, p);
    for (uint32_t i = 0; i < n->n_users; i++)
        n->node_region[i] = n->node_region[n->n_users + n->users[i].provider];
    for (uint32_t x = 0; x < mixes; x++)
        n->node_region[n->n_users + n->n_providers + x] = rc_linkmap_region(m, RC_LINKMAP_MIX, x);
    n->rng_path = rc_rng_new(cfg->seed, STREAM_PATH);
}

enum { CALENDAR_MIN_USERS = 4096 }; /* clients from which pulls go to a calendar */
enum { CALENDAR_BUCKETS = 4096 };
/* Cover hops per calendar bucket that the width aims at (the width is then
 * rounded down to a power of two), and the buckets of that calendar's ring:
 * the current bucket is sorted when it comes, and a hop due inside it is
 * inserted in order, so small buckets are cheap; 16 was the fastest of
 * 4 .. 512 at 10^3 clients.  From CALENDAR_MIN_USERS clients (10^5 hops
 * pending at 10^4) the ring should hold no more than about 32 K events (1 MB,
 * half a core's L2 here): a ring of 4,096 x 16 spread its appends over more
 * memory than the cache, and one that filed most hops in the far ring first,
 * densely, ran faster; 32 x 1,024 was the fastest of 8 .. 128 per bucket x
 * 256 .. 32 K buckets at 10^4 clients (CPU time, docs/performance.md). */
enum { CALENDAR_HOPS_PER_BUCKET = 16, CALENDAR_POP_HOPS_PER_BUCKET = 32,
       CALENDAR_POP_BUCKETS = 1024 };

/* The engine's calendar (core/sim.h; events pop in the same order with or
 * without it).  Pulls are most of a population's events, each a little
 * ahead of now: a calendar of 1/64-period buckets spanning 64 periods keeps
 * them out of the heap.  Below a few thousand clients the heap fits in cache
 * and is as fast, and jobs with few pulls (--cover full) ran 4 % slower with
 * a calendar of pulls.  With --cover full most events are cover packets'
 * hops, each an exponential delay ahead, and the heap they filled was over
 * half the run: they go to a calendar whose buckets hold a few dozen events
 * each (pulls and, in a population, the clients' streams join them there). */
static void calendar_new(rc_net *n, rc_sim *sim)
{
    bool pulls = n->n_users >= CALENDAR_MIN_USERS;
    rc_time pull_width = n->pull_period / 64 > 0 ? n->pull_period / 64 : 1;
    if (!n->cover_full) {
        if (pulls) rc_sim_calendar(sim, RC_EV_PULL, pull_width, CALENDAR_BUCKETS);
        return;
    }
    /* hop events per us: a client's covers cross the layers (and the
     * ingress) and end at a provider; a mix loop crosses layers + 1 */
    double hops = ((double)n->n_users * (n->rate_pay + n->rate_drop + n->rate_loop) *
                       (n->layers + (n->ingress_delay ? 2 : 1)) +
                   (double)n->layers * n->width * n->mix_rate_loop * (n->layers + 2)) / 1e6;
    if (pulls) /* (and the clients' stream firings: 10^4 of them in a heap missed the cache) */
        hops += (double)n->n_users / (double)n->pull_period +
                (double)n->n_users * (n->rate_pay + n->rate_drop + n->rate_loop) / 1e6;
    double per = pulls ? CALENDAR_POP_HOPS_PER_BUCKET : CALENDAR_HOPS_PER_BUCKET;
    rc_time width = hops > 0 ? (rc_time)(per / hops) : pull_width;
    if (width < n->tick) width = n->tick; /* on the lattice, no bucket without an instant */
    rc_sim_calendar(sim, RC_EV_COVER_HOP, width, pulls ? CALENDAR_POP_BUCKETS : CALENDAR_BUCKETS);
    if (pulls) {
        rc_sim_calendar_also(sim, RC_EV_PULL);
        rc_sim_calendar_also(sim, RC_EV_STREAM);
    }
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
    n->aggregate = cfg->aggregate_cover;
    n->direct = cfg->direct_pull;
    n->arrival_order = cfg->direct_arrival_order;
    n->tick = n->lattice ? (rc_time)llround(cfg->tick_s * 1e6) : 1;
    if (n->tick < 1) n->tick = 1;
    n->pull_period = (rc_time)llround(cfg->pull_period_s * 1e6);
    double div = cfg->lambda_div;
    n->rate_pay = cfg->rate_payload * split / div;
    n->rate_drop = cfg->rate_drop * split / div;
    n->rate_loop = cfg->rate_loop * split / div;
    n->mu = cfg->rate_delay / div;
    n->cover_rate_us = (n->rate_drop + n->rate_loop) / 1e6;
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
    n->seed = cfg->seed;
    n->cpk_free = UINT32_MAX;
    rc_net__traffic_init(n, cfg->seed);
    rc_net__idle_law(n);
    if (n->lattice) {
        rc_net__gap_steps(n);
        rc_net__hop_steps(n);
    }

    gsl_rng *phase = rc_rng_new(cfg->seed, STREAM_PHASE);
    { /* aligned (USER_ARRAY_ALIGN): each record's hot parts are pairs of
       * cache lines that a core's adjacent-line prefetch fetches together */
        size_t bytes = ((size_t)(n->n_users ? n->n_users : 1) * sizeof *n->users);
        n->users = rc_xaligned_alloc(USER_ARRAY_ALIGN, bytes);
        memset(n->users, 0, bytes);
        n->online_of = rc_xcalloc(n->n_users ? n->n_users : 1, 1);
        for (uint32_t i = 0; i < n->n_users; i++) {
            n->users[i].postbox.a = n->users[i].postbox.inl;
            n->users[i].postbox.cap = PBOX_INLINE;
        }
    }
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
    n->n_providers = (n->n_users + upp - 1) / upp;
    n->provider_free = rc_xcalloc(n->n_providers, sizeof *n->provider_free);
    n->provider_gap = cfg->provider_rate > 0 ? 1e6 / cfg->provider_rate : 0;
    links_new(n, cfg);
    calendar_new(n, sim);
    rc_sim_on(sim, RC_EV_PULL, rc_net__on_pull, n);
    rc_sim_on_prefetch(sim, RC_EV_PULL, rc_net__prefetch_pull);
    rc_sim_on(sim, RC_EV_STREAM, rc_net__on_stream, n);
    if (n->n_users >= CALENDAR_MIN_USERS)
        rc_sim_on_prefetch(sim, RC_EV_STREAM, rc_net__prefetch_stream);
    rc_sim_on(sim, RC_EV_AVAIL, on_avail, n);
    rc_sim_on(sim, RC_EV_COVER_HOP, rc_net__on_cover_hop, n);
    /* nodes that serve or batch (node.c) take every packet hop by hop, mix loops too */
    bool nodes_on = cfg->mix_service_rate > 0 || cfg->provider_service_rate > 0 ||
                    cfg->node_processing_s > 0 || cfg->mix_kind != RC_MIX_POISSON;
    rc_sim_on(sim, RC_EV_MIX_LOOP, nodes_on ? rc_net__node_on_mix_loop : rc_net__on_mix_loop, n);
    rc_sim_on(sim, RC_EV_FORCE, on_force, n);
    if (hooks.relay != NULL) rc_sim_on(sim, RC_EV_RELAY, rc_net__on_relay, n);
    if (nodes_on) {
        RC_ASSERTF(cfg->cover_full, "nodes that serve or batch need every packet (cover full)");
        rc_net__nodes_init(n, cfg);
        rc_sim_on(sim, RC_EV_NODE, rc_net__on_node, n);
    }
    return n;
}

void rc_net_start(rc_net *n)
{
    /* Model 2's aggregate cover applies only where a cover firing can never
     * share a bundle with a real message nor be seen (client.c, flush_covers). */
    n->aggregate = n->aggregate && n->p == 1 && !n->lattice && !n->cover_full &&
                   n->wire.link == NULL && n->region_lat == NULL; /* (a map locates paths) */
    /* Model 3's direct pulls need pull instants of one phase for the whole
     * run (not the lattice's ticks, not the paper's frozen countdown), no
     * observer of each pull, and a wait for the pull that fits the event's
     * 31 bits (provider.c, direct_file). */
    n->direct = n->direct && !n->lattice && !n->frozen_pull && n->wire.link == NULL &&
                n->pull_period < (rc_time)1 << 31;
    if (n->direct && n->arrival_order) {
        /* Model 4's order within an instant (provider.c, pull_seq): the
         * arrival's place in the pull period (pull_period + 1 values) above a
         * count of the pull events filed; a period over 2^24 us (16.7 s) would
         * leave the count fewer than 32 bits, and the job takes model 2's path
         * (the same order, without the speed). */
        unsigned bits = 0;
        while (((rc_time)1 << bits) <= n->pull_period) bits++;
        n->seq_shift = 56 - bits;
        n->direct = n->seq_shift >= 32;
    }
    n->arrival_order = n->arrival_order && n->direct;
    if (n->direct) {
        /* aligned: a slot never straddles two cache lines (one prefetch brings it) */
        size_t bytes = ((size_t)n->n_users * sizeof *n->pslot + 63) / 64 * 64;
        n->pslot = rc_xaligned_alloc(64, bytes);
        for (uint32_t i = 0; i < n->n_users; i++)
            n->pslot[i] = (pslot){n->users[i].pull_due, n->users[i].last_online_at, NEVER, 0};
    }
    for (uint32_t i = 0; i < n->n_users; i++) {
        user *u = &n->users[i];
        u->trace_on = n->trace == NULL || rc_trace_online_at(n->trace, u->line, 0);
        bool on = wanted_online(u, 0);
        set_online(n, i, on);
        u->idle_since = 0;
        rc_net__streams_redraw(n, u, -step(n));
        if (!u->forced_offline && n->trace != NULL) schedule_toggle(n, i);
        if (on && n->cover_full) {
            u->busy = true;
            rc_net__schedule_stream(n, i);
        }
    }
    if (n->cover_full && n->mix_rate_loop > 0)
        for (uint32_t m = 0; m < n->layers * n->width; m++)
            rc_sim_at(n->sim, 0, RC_CLS_MIX, RC_EV_MIX_LOOP, m, 0);
}

void rc_net_free(rc_net *n)
{
    if (n == NULL) return;
    for (uint32_t i = 0; i < n->n_users; i++) {
        free(n->users[i].out.a);
        free(n->users[i].wait.a);
        if (n->users[i].postbox.a != n->users[i].postbox.inl) free(n->users[i].postbox.a);
    }
    free(n->users);
    free(n->online_of);
    free(n->pslot);
    free(n->cpk);
    rc_net__traffic_free(n);
    rc_net__nodes_free(n);
    free(n->provider_free);
    free(n->stat_cdf);
    for (int i = 0; i < 4; i++) free(n->steps_own[i]);
    rc_rng_free(n->rng_cover);
    rc_rng_free(n->rng_delay);
    rc_rng_free(n->rng_mixloop);
    if (n->rng_wire) rc_rng_free(n->rng_wire);
    if (n->rng_path) rc_rng_free(n->rng_path);
    free(n->region_lat);
    free(n->node_region);
    free(n->wloop);
    free(n);
}

bool rc_net_online(const rc_net *n, uint32_t ui) { return n->online_of[ui]; }
uint32_t rc_net_users(const rc_net *n) { return n->n_users; }
rc_time rc_net_tick(const rc_net *n) { return n->lattice ? n->tick : 1; }

void rc_net_check_conservation(const rc_net *n)
{
    /* Every real message handed to the net was pulled by its recipient,
     * ended at its sender's provider, or is still queued at its sender or
     * waiting in a postbox (possibly with a future arrival time: in flight)
     * or, with direct pulls, for the pull it is scheduled for. */
    uint64_t held = rc_net_backlog(n);
    RC_DCHECK(n->subs_created == n->subs_pulled + n->subs_relayed + n->subs_dropped + held,
              "message conservation: %llu sent != %llu pulled + %llu relayed + %llu dropped + "
              "%llu held",
              (unsigned long long)n->subs_created, (unsigned long long)n->subs_pulled,
              (unsigned long long)n->subs_relayed, (unsigned long long)n->subs_dropped,
              (unsigned long long)held);
}

uint64_t rc_net_backlog(const rc_net *n)
{
    uint64_t b = n->direct_held + n->nd.inflight;
    for (uint32_t i = 0; i < n->n_users; i++)
        b += n->users[i].out.n + n->users[i].wait.n + n->users[i].postbox.n;
    return b;
}

void rc_net_provider_send(rc_net *n, uint32_t ui, uint32_t recipient, uint32_t body)
{
    rc_time t = rc_net__provider_slot(n, ui);
    if (n->nd.on) rc_net__node_inject(n, ui, recipient, body, t);
    else rc_net__provider_inject(n, ui, recipient, body, t);
}

double rc_net_mean_hop_delay_s(const rc_net *n) { return 1.0 / n->mu; }
double rc_net_payload_rate(const rc_net *n) { return n->rate_pay; }
uint32_t rc_net_hops(const rc_net *n) { return n->layers + 1; }
double rc_net_path_link_latency_s(const rc_net *n)
{
    rc_time longest = n->link_fixed;
    if (n->region_lat != NULL)
        for (size_t i = 0; i < (size_t)n->n_regions * n->n_regions; i++)
            if (n->region_lat[i] > longest) longest = n->region_lat[i];
    return (double)(n->layers + 3) * (double)longest / 1e6;
}
const rc_net_counters *rc_net_counts(const rc_net *n) { return &n->ctr; }
