#include "workload/app.h"

#include <math.h>
#include <stdlib.h>

#include "core/log.h"
#include "core/rng.h"

enum { STREAM_APP = 20 };

struct rc_app {
    rc_sim *sim;
    rc_mc *mc;
    rc_app_cfg cfg;
    gsl_rng *rng;
    rc_time tick;
    double f;          /* per-tick event probability (lattice) */
    double heavy_fraction;
    uint32_t *cand;
    double *weights;
};

static rc_time app_gap(rc_app *a)
{
    if (a->tick > 1) return (rc_time)rc_rng_geom(a->rng, a->f) * a->tick;
    rc_time g = rc_round_nonneg(rc_rng_exp(a->rng, 1e6 / a->cfg.app_rate));
    return g < 1 ? 1 : g;
}

static void on_app(void *ctx, const rc_event *ev)
{
    rc_app *a = ctx;
    uint32_t g = ev->obj;
    rc_sim_at(a->sim, ev->t + app_gap(a), RC_CLS_APP, RC_EV_APP, g, 0);
    uint32_t n = rc_mc_group_size(a->mc, g);
    const uint32_t *mem = rc_mc_group_members(a->mc, g);
    /* heavy users: the first floor(f |G|) members in (current) group order */
    uint32_t heavy = (uint32_t)floor(a->cfg.heavy_fraction * n + 1e-9);
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i++)
        if (rc_mc_online(a->mc, mem[i])) a->cand[c++] = i; /* group positions, group order */
    if (c == 0) return;
    rc_rng_shuffle_u32(a->rng, a->cand, c);
    double total = 0;
    for (uint32_t i = 0; i < c; i++) {
        a->weights[i] = a->cand[i] < heavy ? a->cfg.heavy_weight : 1.0;
        total += a->weights[i];
    }
    /* Cumulative-sum choice: the first member where the remainder drops to <= 0. */
    double r = rc_rng_uniform(a->rng) * total;
    uint32_t pick = c - 1;
    for (uint32_t i = 0; i < c; i++) {
        r -= a->weights[i];
        if (r <= 0) {
            pick = i;
            break;
        }
    }
    uint32_t sender = mem[a->cand[pick]];
    for (int b = 0; b < a->cfg.burst; b++)
        rc_mc_multicast(a->mc, g, sender, rc_mc_payload_new(a->mc, g, sender));
}

rc_app *rc_app_new(rc_sim *sim, rc_mc *mc, const rc_app_cfg *cfg)
{
    rc_app *a = rc_xcalloc(1, sizeof *a);
    a->sim = sim;
    a->mc = mc;
    a->cfg = *cfg;
    a->rng = rc_rng_new(cfg->seed, STREAM_APP);
    a->tick = rc_mc_tick(mc);
    a->f = -expm1(-cfg->app_rate * (double)a->tick / 1e6);
    uint32_t n = rc_mc_users(mc);
    a->cand = rc_xmalloc(n * sizeof(uint32_t));
    a->weights = rc_xmalloc(n * sizeof(double));
    rc_sim_on(sim, RC_EV_APP, on_app, a);
    return a;
}

void rc_app_start(rc_app *a)
{
    if (a->cfg.app_rate <= 0) return;
    /* The first trial is at t = 0 (lattice) or the first arrival (continuous). */
    rc_time base = a->tick > 1 ? -a->tick : 0;
    for (uint32_t g = 0; g < rc_mc_groups(a->mc); g++)
        rc_sim_at(a->sim, base + app_gap(a), RC_CLS_APP, RC_EV_APP, g, 0);
}

void rc_app_free(rc_app *a)
{
    if (a == NULL) return;
    rc_rng_free(a->rng);
    free(a->cand);
    free(a->weights);
    free(a);
}
