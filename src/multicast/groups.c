/* groups: group membership for mc (mc_internal.h): the paper's groups drawn
 * at creation (or population mode's, from multicast/poptab.h), membership
 * changes while the run goes (membership_rate), and the accessors of mc.h. */
#include <math.h>
#include <stdlib.h>

#include "core/log.h"
#include "core/pyrandom.h"
#include "core/rng.h"
#include "multicast/mc_internal.h"
#include "multicast/poptab.h"

/* Population mode: the groups are drawn by rc_poptab. */
static int new_population(rc_mc *mc, rc_err *err)
{
    mc->pt = rc_poptab_new(mc->n_users, mc->n_groups, mc->cfg.group_size_dist, mc->cfg.seed,
                           RC_MC_STREAM_GROUPS, err);
    if (mc->pt == NULL) return RC_EXIT_USAGE; /* err set by rc_poptab_new */
    mc->size = rc_xmalloc(mc->n_groups * sizeof(uint32_t));
    for (uint32_t g = 0; g < mc->n_groups; g++) mc->size[g] = rc_poptab_size(mc->pt, g);
    return 0;
}

int rc_mc__groups_new(rc_mc *mc, rc_err *err)
{
    const rc_mc_cfg *cfg = &mc->cfg;
    mc->rng_members = rc_rng_new(cfg->seed, RC_MC_STREAM_MEMBERS);
    if (cfg->population > 0) return new_population(mc, err);
    /* Groups: each a random sample of the users in sampled order, drawn in
     * turn from one stream (docs/spec.md §3); the seed-0 quirk fixes that stream. */
    uint32_t m = mc->n_users, gs = (uint32_t)cfg->group_size;
    mc->members = rc_xmalloc((size_t)mc->n_groups * m * sizeof(uint32_t));
    mc->pos = rc_xmalloc((size_t)mc->n_groups * m * sizeof(int32_t));
    mc->size = rc_xmalloc(mc->n_groups * sizeof(uint32_t));
    /* Paper: the reference's own groups, random.Random(0).sample(users, gs)
     * per group in turn (users in provider order, as rcsim numbers them). */
    gsl_rng *gr = cfg->seed0_groups ? NULL : rc_rng_new(cfg->seed, RC_MC_STREAM_GROUPS);
    rc_pyrandom py;
    rc_pyrandom_seed(&py, 0);
    uint32_t *perm = rc_xmalloc(m * sizeof(uint32_t));
    for (uint32_t g = 0; g < mc->n_groups; g++) {
        if (gr == NULL) {
            rc_pyrandom_sample(&py, m, gs, perm);
        } else {
            for (uint32_t i = 0; i < m; i++) perm[i] = i;
            for (uint32_t i = 0; i < gs; i++) {
                uint32_t j = i + rc_rng_below(gr, m - i);
                uint32_t t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
        }
        for (uint32_t i = 0; i < m; i++) mc->pos[(size_t)g * m + i] = -1;
        for (uint32_t i = 0; i < gs; i++) {
            mc->members[(size_t)g * m + i] = perm[i];
            mc->pos[(size_t)g * m + perm[i]] = (int32_t)i;
        }
        mc->size[g] = gs;
    }
    free(perm);
    if (gr) rc_rng_free(gr);
    return 0;
}

void rc_mc__groups_free(rc_mc *mc)
{
    rc_poptab_free(mc->pt);
    free(mc->members);
    free(mc->pos);
    free(mc->size);
    if (mc->rng_members) rc_rng_free(mc->rng_members);
}

/* ---------- membership changes ---------- */

static rc_time member_gap(rc_mc *mc)
{
    rc_time tick = rc_net_tick(mc->net);
    double rate = mc->cfg.membership_rate;
    if (tick > 1) {
        double f = -expm1(-rate * (double)tick / 1e6);
        return (rc_time)rc_rng_geom(mc->rng_members, f) * tick;
    }
    rc_time g = (rc_time)llround(rc_rng_exp(mc->rng_members, 1e6 / rate));
    return g < 1 ? 1 : g;
}

/* A join or a leave, with equal odds (a group keeps at least 2 members and
 * joins need a non-member).  The joiner goes to the end of the group order;
 * a leaver's later members move up. */
static void on_membership(void *ctx, const rc_event *ev)
{
    rc_mc *mc = ctx;
    uint32_t g = ev->obj;
    rc_sim_at(mc->sim, ev->t + member_gap(mc), RC_CLS_APP, RC_EV_MC_MEMBERSHIP, g, 0);
    uint32_t *mem = &mc->members[(size_t)g * mc->n_users];
    int32_t *pos = &mc->pos[(size_t)g * mc->n_users];
    uint32_t n = mc->size[g];
    bool join = rc_rng_uniform(mc->rng_members) < 0.5;
    if (n >= mc->n_users) join = false;
    if (n <= 2) join = true;
    if (join) {
        uint32_t pick = rc_rng_below(mc->rng_members, mc->n_users - n), u = 0;
        for (u = 0; u < mc->n_users; u++)
            if (pos[u] < 0 && pick-- == 0) break;
        mem[n] = u;
        pos[u] = (int32_t)n;
        mc->size[g] = n + 1;
        mc->ctr.joins++;
    } else {
        uint32_t i = rc_rng_below(mc->rng_members, n);
        pos[mem[i]] = -1;
        for (uint32_t j = i; j + 1 < n; j++) {
            mem[j] = mem[j + 1];
            pos[mem[j]] = (int32_t)j;
        }
        mc->size[g] = n - 1;
        mc->ctr.leaves++;
    }
}

void rc_mc__groups_attach(rc_mc *mc)
{
    /* Group members are the active clients of the unobservability figures
     * (docs/spec.md §1.12); membership as it is at the start. */
    for (uint32_t g = 0; g < mc->n_groups; g++) {
        const uint32_t *mem = rc_mc_group_members(mc, g);
        for (uint32_t i = 0; i < mc->size[g]; i++) rc_net_mark_active(mc->net, mem[i]);
    }
    rc_sim_on(mc->sim, RC_EV_MC_MEMBERSHIP, on_membership, mc);
}

void rc_mc__groups_start(rc_mc *mc)
{
    if (mc->cfg.membership_rate > 0)
        for (uint32_t g = 0; g < mc->n_groups; g++)
            rc_sim_at(mc->sim, member_gap(mc), RC_CLS_APP, RC_EV_MC_MEMBERSHIP, g, 0);
}

/* ---------- accessors (mc.h) ---------- */

uint32_t rc_mc_groups(const rc_mc *mc) { return mc->n_groups; }
uint32_t rc_mc_group_size(const rc_mc *mc, uint32_t g) { return mc->size[g]; }
const uint32_t *rc_mc_group_members(const rc_mc *mc, uint32_t g)
{
    if (mc->pt) return rc_poptab_members(mc->pt, g);
    return &mc->members[(size_t)g * mc->n_users];
}
int32_t rc_mc_group_pos(const rc_mc *mc, uint32_t g, uint32_t user)
{
    if (mc->pt) return rc_poptab_pos(mc->pt, g, user);
    return mc->pos[(size_t)g * mc->n_users + user];
}
bool rc_mc_population(const rc_mc *mc) { return mc->pt != NULL; }
size_t rc_mc_slots(const rc_mc *mc)
{
    return mc->pt ? rc_poptab_slots(mc->pt) : (size_t)mc->n_groups * mc->n_users;
}
size_t rc_mc_slot(const rc_mc *mc, uint32_t g, uint32_t user)
{
    return mc->pt ? rc_poptab_slot(mc->pt, g, user) : (size_t)g * mc->n_users + user;
}
const rc_poptab *rc_mc_poptab(const rc_mc *mc) { return mc->pt; }
