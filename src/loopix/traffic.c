/* traffic: what the wire carries, as a global passive observer would count it
 * (docs/spec.md §1.12): bandwidth per client, the load of every mix, the
 * departure process of clients with and without real mail, and what a
 * provider hands out per pull.
 *
 * With cover=full every packet is simulated, so every figure is a count: the
 * mix a packet visits in each layer is drawn here from a stream of its own
 * (STREAM_ROUTE; no other draw moves, so results stay identical), and every
 * client's inter-departure gaps are binned by its class: active (a group
 * member, marked by the layer above) or idle.  The class is fixed for the
 * run on purpose: splitting one client's gaps by its hidden state (holding
 * real mail or not) would condition on the bundling queue's phase, which
 * the next gap depends on, and show a difference no observer can see.  With cover=skip idle clients' cover streams are not
 * simulated (docs/spec.md §1.6), so the cover figures are their expectations
 * from the stream rates and the measured online time, and the per-mix
 * maximum and the departure process are not measured (NaN). */
#include <math.h>
#include <string.h>

#include "core/hist.h"
#include "loopix/net_internal.h"

/* Gaps are binned in the latency histogram's geometry with the time scaled
 * by 2^10: buckets start at 2^-20 s (about 1 us) and are 0.1 % wide. */
#define GAP_SCALE 1024.0

void rc_net__traffic_init(rc_net *n, uint64_t seed)
{
    traffic *t = &n->tr;
    memset(t, 0, sizeof *t);
    t->active = rc_xcalloc(n->n_users, sizeof *t->active);
    if (!n->cover_full) return;
    t->mix_in = rc_xcalloc((size_t)n->layers * n->width, sizeof *t->mix_in);
    t->rng_route = rc_rng_new(seed, STREAM_ROUTE);
    t->last_emit = rc_xmalloc(n->n_users * sizeof *t->last_emit);
    for (uint32_t i = 0; i < n->n_users; i++) t->last_emit[i] = NEVER;
    for (int c = 0; c < 2; c++) t->gaps[c] = rc_xcalloc(RC_HIST_BINS, sizeof *t->gaps[c]);
}

void rc_net__traffic_free(rc_net *n)
{
    traffic *t = &n->tr;
    free(t->mix_in);
    if (t->rng_route) rc_rng_free(t->rng_route);
    free(t->last_emit);
    free(t->active);
    for (int c = 0; c < 2; c++) free(t->gaps[c]);
}

void rc_net__traffic_route(rc_net *n, uint32_t count)
{
    traffic *t = &n->tr;
    uint32_t first = n->n_users + n->n_providers, chain = 0;
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t l = 0; l < n->layers; l++)
            t->mix_in[route_mix(n, t->rng_route, l, &chain) - first]++;
}

void rc_net__traffic_at_node(rc_net *n, uint32_t node, uint32_t count)
{
    uint32_t first = n->n_users + n->n_providers;
    if (node >= first && node - first < n->layers * n->width) n->tr.mix_in[node - first] += count;
}

void rc_net__traffic_mix_loop(rc_net *n, uint32_t mix)
{
    traffic *t = &n->tr;
    uint32_t own = mix / n->width;
    uint32_t first = n->n_users + n->n_providers;
    for (uint32_t l = 0; l < n->layers; l++)
        if (l != own) t->mix_in[loop_route_mix(n, t->rng_route, l, mix) - first]++;
    t->mix_in[mix]++; /* it comes back */
}

void rc_net_mark_active(rc_net *n, uint32_t ui)
{
    n->tr.active[ui] = 1;
    n->tr.any_active = true;
}

/* The histogram bucket a gap of client class c falls in. */
static inline uint32_t *gap_bucket(const traffic *t, int c, rc_time gap)
{
    return &t->gaps[c][rc_hist_bin((double)gap / 1e6 * GAP_SCALE)];
}

void rc_net__traffic_departure(rc_net *n, uint32_t ui, rc_time now)
{
    traffic *t = &n->tr;
    if (t->last_emit[ui] != NEVER) {
        int c = t->active[ui];
        rc_time gap = now - t->last_emit[ui];
        (*gap_bucket(t, c, gap))++;
        t->n_gaps[c]++;
        t->sum_gaps[c] += gap;
    }
    t->last_emit[ui] = now;
}

void rc_net__traffic_prefetch_departure(const rc_net *n, uint32_t ui, rc_time t)
{
    const traffic *tr = &n->tr;
    rc_time last = tr->last_emit[ui];
    if (last == NEVER || t < last) return;
    __builtin_prefetch(gap_bucket(tr, tr->active[ui], t - last), 1);
}

/* Whether client ui counts for the provider's view (the active ones, or
 * everyone when none is marked). */
static inline bool provider_view(const traffic *t, uint32_t ui)
{
    return !t->any_active || t->active[ui];
}

void rc_net__traffic_offline(rc_net *n, uint32_t ui, rc_time now)
{
    uint64_t span = (uint64_t)(now - n->users[ui].last_online_at);
    n->ctr.online_us += span;
    if (provider_view(&n->tr, ui)) n->tr.active_online_us += span;
    if (n->tr.last_emit) n->tr.last_emit[ui] = NEVER;
}

void rc_net__traffic_pull(rc_net *n, uint32_t ui, uint32_t real)
{
    traffic *t = &n->tr;
    if (!provider_view(t, ui)) return;
    t->active_pulled += real;
    if (real > 0) t->active_pulls++;
    if (real > t->pull_real_max) t->pull_real_max = real;
}

void rc_net__traffic_pull_one(rc_net *n, uint32_t ui, uint32_t taken)
{
    traffic *t = &n->tr;
    if (!provider_view(t, ui)) return;
    t->active_pulled++;
    if (taken == 1) t->active_pulls++;
    if (taken > t->pull_real_max) t->pull_real_max = taken;
}

/* Two-sample KS statistic of two histograms on the same buckets: the
 * largest gap between the empirical CDFs at a bucket edge.  Within 0.1 % of
 * a gap's length this is the statistic of the raw samples (ties in the
 * lattice model fall in one bucket, where both CDFs step together). */
static double ks_hist(const uint32_t *a, uint64_t na, const uint32_t *b, uint64_t nb)
{
    if (na == 0 || nb == 0) return NAN;
    double d = 0;
    uint64_t ca = 0, cb = 0;
    for (size_t i = 0; i < RC_HIST_BINS; i++) {
        ca += a[i];
        cb += b[i];
        double x = fabs((double)ca / (double)na - (double)cb / (double)nb);
        if (x > d) d = x;
    }
    return d;
}

/* A stream's mean firings per second: F(lambda)/tick on the lattice
 * (docs/spec.md §1.4), lambda otherwise. */
static double effective(const rc_net *n, double rate, double f)
{
    if (rate <= 0) return 0;
    return n->lattice ? f / ((double)n->tick / 1e6) : rate;
}

void rc_net_traffic_summary(const rc_net *n, rc_net_traffic *o)
{
    memset(o, 0, sizeof *o);
    const traffic *t = &n->tr;
    rc_time end = n->sim->stop;
    uint64_t online_us = n->ctr.online_us, view_us = t->active_online_us;
    for (uint32_t i = 0; i < n->n_users; i++)
        if (n->users[i].online && end > n->users[i].last_online_at) {
            uint64_t span = (uint64_t)(end - n->users[i].last_online_at);
            online_us += span;
            if (provider_view(t, i)) view_us += span;
        }
    double online_s = (double)online_us / 1e6;
    double span_s = (double)end / 1e6;
    o->counted = n->cover_full;
    o->bw_online_client_s = online_s;
    double eff_pay = effective(n, n->rate_pay, n->f_pay);
    double eff_all = eff_pay + effective(n, n->rate_drop, n->f_drop) +
                     effective(n, n->rate_loop, n->f_loop);
    double eff_mixloop = 0;
    if (n->mix_rate_loop > 0)
        eff_mixloop = n->lattice ? -expm1(-n->mix_rate_loop * (double)n->tick / 1e6) /
                                       ((double)n->tick / 1e6)
                                 : n->mix_rate_loop;
    double real = (double)n->ctr.real_packets;
    uint32_t mixes = n->layers * n->width;
    o->bw_payload_pps = online_s > 0 ? real / online_s : NAN;
    if (n->cover_full) {
        o->bw_cover_pps = online_s > 0 ? (double)n->ctr.cover_packets / online_s : NAN;
        o->bw_cover_used = n->ctr.payload_slots ? real / (double)n->ctr.payload_slots : NAN;
        uint64_t sum = 0, max = 0;
        for (uint32_t m = 0; m < mixes; m++) {
            sum += t->mix_in[m];
            if (t->mix_in[m] > max) max = t->mix_in[m];
        }
        o->bw_mix_load_mean_pps = (double)sum / mixes / span_s;
        o->bw_mix_load_max_pps = (double)max / span_s;
        o->unobs_idle_gaps = t->n_gaps[0];
        o->unobs_active_gaps = t->n_gaps[1];
        o->unobs_idle_rate_pps = t->sum_gaps[0] ? (double)t->n_gaps[0] / ((double)t->sum_gaps[0] / 1e6)
                                          : NAN;
        o->unobs_active_rate_pps =
            t->sum_gaps[1] ? (double)t->n_gaps[1] / ((double)t->sum_gaps[1] / 1e6) : NAN;
        o->unobs_ks = ks_hist(t->gaps[0], t->n_gaps[0], t->gaps[1], t->n_gaps[1]);
        o->unobs_ks_crit05 = t->n_gaps[0] && t->n_gaps[1]
                           ? 1.358 * sqrt((double)(t->n_gaps[0] + t->n_gaps[1]) /
                                          ((double)t->n_gaps[0] * (double)t->n_gaps[1]))
                           : NAN;
    } else {
        /* Expectations: every online client-second fills eff_all slots, of
         * which the real sub-messages are counted; every slot crosses one mix
         * per layer, and each mix loop visits one mix per layer. */
        o->bw_cover_pps = online_s > 0 ? eff_all - real / online_s : NAN;
        o->bw_cover_used = online_s > 0 && eff_pay > 0 ? real / (eff_pay * online_s) : NAN;
        o->bw_mix_load_mean_pps = eff_all * online_s / n->width / span_s + eff_mixloop * n->layers;
        o->bw_mix_load_max_pps = NAN;
        o->unobs_active_rate_pps = o->unobs_idle_rate_pps = o->unobs_ks = o->unobs_ks_crit05 = NAN;
    }
    double pulls = (double)view_us / (double)n->pull_period;
    o->unobs_real_per_pull_mean = pulls > 0 ? (double)t->active_pulled / pulls : NAN;
    o->unobs_real_per_pull_max = t->pull_real_max;
    o->unobs_pulls_nonempty = pulls > 0 ? (double)t->active_pulls / pulls : NAN;
}

double rc_net_planned_mix_load(const rc_net_cfg *cfg, int split, int width)
{
    double div = cfg->lambda_div > 0 ? cfg->lambda_div : 1;
    double client = (cfg->rate_payload + cfg->rate_drop + cfg->rate_loop) * split / div;
    double loops = (double)cfg->mix_layers * cfg->mix_rate_loop / div;
    return (double)cfg->users * client / width + loops;
}

int rc_net_width_for_capacity(const rc_net_cfg *cfg, int split, double capacity, int max_width)
{
    if (!isfinite(capacity) || capacity <= 0 || max_width < 1) return 0;
    double div = cfg->lambda_div > 0 ? cfg->lambda_div : 1;
    double room = capacity - (double)cfg->mix_layers * cfg->mix_rate_loop / div;
    if (!(room > 0)) return 0;
    double client = (cfg->rate_payload + cfg->rate_drop + cfg->rate_loop) * split / div;
    double guess = ceil((double)cfg->users * client / room);
    if (!(guess <= max_width)) guess = max_width; /* checked against the load below */
    int w = guess < 1 ? 1 : (int)guess;
    /* The ratio's rounding may be one off: settle on the load function itself, so
     * that the width is exactly the fewest whose planned load fits. */
    while (w > 1 && rc_net_planned_mix_load(cfg, split, w - 1) <= capacity) w--;
    while (w < max_width && rc_net_planned_mix_load(cfg, split, w) > capacity) w++;
    return rc_net_planned_mix_load(cfg, split, w) <= capacity ? w : 0;
}
