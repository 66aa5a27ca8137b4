/* mc: the multicast layer's lifecycle and environment (multicast/mc.h).  The
 * other parts of the layer live in the files mc_internal.h maps. */
#include "multicast/mc.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/rng.h"
#include "multicast/adversary.h"
#include "multicast/mc_internal.h"
#include "multicast/poptab.h"

/* The net, the handlers, the adversaries, the strategy and the services. */
static void finish_new(rc_mc *mc, const rc_net_cfg *net_cfg, const rc_trace *trace,
                       const bool *forced)
{
    mc->net = rc_net_new(mc->sim, net_cfg, trace, rc_strategy_split(&mc->spec), forced,
                         rc_mc__net_hooks(mc));
    rc_mc__groups_attach(mc);
    rc_mc__hooks_attach(mc);
    rc_mc__adversaries_new(mc);
    mc->strategy = mc->ops->create(mc, &mc->spec, &mc->cfg);
    rc_mc_services_create(&mc->svc, &mc->kinds, mc, mc->sim, &mc->cfg);
}

rc_mc *rc_mc_new(rc_sim *sim, const rc_mc_cfg *cfg, const rc_net_cfg *net_cfg,
                 const rc_trace *trace, rc_err *err)
{
    rc_mc *mc = rc_xcalloc(1, sizeof *mc);
    mc->sim = sim;
    mc->cfg = *cfg;
    if (rc_strategy_parse(cfg->strategy, &mc->spec, err) != 0) {
        free(mc);
        return NULL;
    }
    mc->ops = mc->spec.family->ops;
    RC_DCHECK(strcmp(mc->ops->name, mc->spec.family->family) == 0,
              "strategy family %s runs the ops of %s", mc->spec.family->family, mc->ops->name);
    mc->n_users = (uint32_t)cfg->users;
    mc->n_groups = (uint32_t)cfg->groups;
    if (rc_mc__groups_new(mc, err) != 0) {
        rc_mc_free(mc);
        return NULL;
    }
    const rc_strategy_family *f = mc->spec.family;
    rc_msg_kinds_init(&mc->kinds);
    rc_msg_kinds_add(&mc->kinds, 0, f->msg_kinds, f->n_msg_kinds, -1);
    rc_bodies_init(&mc->bodies, mc->pt, &mc->kinds);
    rc_mc__ledger_init(mc);
    mc->rng_strategy = rc_rng_new(cfg->seed, RC_MC_STREAM_STRATEGY);
    bool *forced = NULL;
    if (mc->pt)
        rc_mc__scenario_off(mc); /* rc_job_validate allows none in population mode */
    else
        forced = rc_mc__scenario_new(mc);
    finish_new(mc, net_cfg, trace, forced);
    free(forced);
    return mc;
}

/* The kind whose copies may travel as compact handles (multicast/bodies.h):
 * the family's first payload copy. */
static bool compact_type(const rc_strategy_family *f, uint8_t *type)
{
    for (size_t i = 0; i < f->n_msg_kinds; i++)
        if (f->msg_kinds[i].counter == RC_MSG_COUNT_PAYLOAD && f->msg_kinds[i].payload) {
            *type = (uint8_t)i;
            return true;
        }
    return false;
}

void rc_mc_start(rc_mc *mc)
{
    /* Whether the job allows compact handles is fixed once an observer, if
     * any, is attached: before rc_net_start (loopix/net.h). */
    mc->bodies.compact = mc->pt != NULL && mc->ops->sent == NULL && !rc_net_observed(mc->net) &&
                         compact_type(mc->spec.family, &mc->bodies.compact_type);
    rc_net_start(mc->net);
    rc_mc_services_start(&mc->svc);
    rc_mc__groups_start(mc);
}

void rc_mc_free(rc_mc *mc)
{
    if (mc == NULL) return;
    if (mc->strategy) mc->ops->destroy(mc->strategy);
    rc_mc_services_destroy(&mc->svc);
    rc_adv_free(mc->adv);
    rc_net_free(mc->net);
    rc_mc__ledger_free(mc);
    rc_bodies_free(&mc->bodies);
    rc_mc__groups_free(mc);
    if (mc->rng_strategy) rc_rng_free(mc->rng_strategy);
    free(mc);
}

/* ---------- environment (mc.h) ---------- */

uint32_t rc_mc_users(const rc_mc *mc) { return mc->n_users; }

uint32_t rc_mc_body_group(const rc_mc *mc, uint32_t body)
{
    if (rc_bodies_is_compact(body)) return rc_poptab_payload_group(mc->pt, body & ~RC_BODY_COMPACT);
    return rc_bodies_at(&mc->bodies, body)->group;
}
uint32_t rc_mc_body_sender(const rc_mc *mc, uint32_t body)
{
    if (rc_bodies_is_compact(body)) return UINT32_MAX;
    return rc_bodies_at(&mc->bodies, body)->sender;
}
rc_time rc_mc_now(const rc_mc *mc) { return mc->sim->now; }
rc_time rc_mc_tick(const rc_mc *mc) { return rc_net_tick(mc->net); }
bool rc_mc_online(const rc_mc *mc, uint32_t user) { return rc_net_online(mc->net, user); }
gsl_rng *rc_mc_rng(rc_mc *mc) { return mc->rng_strategy; }
uint64_t rc_mc_seed(const rc_mc *mc) { return mc->cfg.seed; }
rc_mc_counters *rc_mc_counts(rc_mc *mc) { return &mc->ctr; }
double rc_mc_mean_hop_delay_s(const rc_mc *mc) { return rc_net_mean_hop_delay_s(mc->net); }
double rc_mc_payload_rate(const rc_mc *mc) { return rc_net_payload_rate(mc->net); }
uint32_t rc_mc_hops(const rc_mc *mc) { return rc_net_hops(mc->net); }
double rc_mc_path_link_latency_s(const rc_mc *mc) { return rc_net_path_link_latency_s(mc->net); }
rc_net *rc_mc_net(rc_mc *mc) { return mc->net; }

void rc_mc_set_tap(rc_mc *mc, const rc_mc_tap *tap) { mc->tap = *tap; }

void rc_mc_multicast(rc_mc *mc, uint32_t group, uint32_t source, uint32_t p)
{
    if (mc->tap.multicast) mc->tap.multicast(mc->tap.ctx, group, source, mc->sim->now);
    mc->ops->multicast(mc->strategy, group, source, p);
}

static void collect_adversaries(rc_mc *mc)
{
    rc_adv_counters ac;
    rc_adv_counts(mc->adv, &ac);
    mc->ctr.adv_members = ac.members;
    mc->ctr.adv_withheld = ac.withheld;
    mc->ctr.adv_acks_withheld = ac.acks_withheld;
    mc->ctr.adv_acks_faked = ac.acks_faked;
    mc->ctr.adv_delayed = ac.delayed;
}

void rc_mc_finish(rc_mc *mc, rc_mc_missed_fn missed, void *ctx)
{
    if (mc->ops->finish) mc->ops->finish(mc->strategy, &mc->ctr);
    collect_adversaries(mc);
    mc->ctr.undelivered = rc_mc__ledger_undelivered(mc, missed, ctx);
    rc_net_check_conservation(mc->net);
    /* Every expected (recipient, payload) pair is delivered or undelivered. */
    RC_DCHECK(mc->ctr.deliveries - mc->extra_deliveries + mc->ctr.undelivered ==
                  mc->ctr.expected_deliveries,
              "delivery accounting: %llu delivered (%llu unexpected) + %llu undelivered != %llu "
              "expected",
              (unsigned long long)mc->ctr.deliveries, (unsigned long long)mc->extra_deliveries,
              (unsigned long long)mc->ctr.undelivered,
              (unsigned long long)mc->ctr.expected_deliveries);
    uint32_t so;
    if (mc->pt == NULL && rc_mc__scenario_chosen(mc, &so))
        mc->ctr.so_expected = rc_mc__ledger_expected(mc, so);
}
