/* send: how strategies and services send (rc_mc_send, rc_mc_send_provider,
 * rc_mc_provider_send) and set timers (rc_mc_timer*), past the misbehaving
 * members of multicast/adversary.h, whose delayed messages this file
 * releases (mc_internal.h). */
#include <math.h>

#include "core/log.h"
#include "multicast/adversary.h"
#include "multicast/mc_internal.h"

/* A delaying member's message (obj = sender, arg = body) joins its send queue. */
static void on_adv_release(void *ctx, const rc_event *ev)
{
    rc_mc *mc = ctx;
    uint32_t body = (uint32_t)ev->arg;
    rc_net_send(mc->net, ev->obj, rc_bodies_at(&mc->bodies, body)->recipient, body);
}

void rc_mc__adversaries_new(rc_mc *mc)
{
    if (mc->cfg.adversary == RC_ADV_NONE) return;
    /* The extra delay is lifted to the lattice, like every time in the paper model. */
    rc_time tick = rc_net_tick(mc->net);
    rc_time d = (rc_time)llround(mc->cfg.adversary_delay_s * 1e6);
    if (tick > 1) d = ((d + tick - 1) / tick) * tick;
    rc_adv_cfg ac = {mc->cfg.adversary, mc->cfg.adversary_fraction, d, mc->cfg.seed, mc->n_users};
    mc->adv = rc_adv_new(&ac);
    rc_sim_on(mc->sim, RC_EV_MC_ADV_RELEASE, on_adv_release, mc);
}

/* What a misbehaving sender does with m (everyone honest: send it). */
static rc_adv_verdict verdict(rc_mc *mc, uint32_t from, const rc_msg *m)
{
    RC_DCHECK(mc->kinds.of[m->type] != NULL, "a message of kind %u, which nobody declared",
              m->type);
    if (mc->adv == NULL) return RC_ADV_PASS;
    return rc_adv_verdict_for(mc->adv, from, m, rc_msg_kind_of(&mc->kinds, m->type)->adv);
}

bool rc_mc_send(rc_mc *mc, uint32_t from, const rc_msg *m)
{
    RC_DCHECK(m->recipient < mc->n_users, "recipient %u out of range", m->recipient);
    switch (verdict(mc, from, m)) {
    case RC_ADV_PASS:
        rc_net_send(mc->net, from, m->recipient, rc_bodies_for_send(&mc->bodies, m));
        return true;
    case RC_ADV_WITHHOLD: return false;
    case RC_ADV_HOLD:
        rc_sim_at(mc->sim, mc->sim->now + rc_adv_delay(mc->adv), RC_CLS_TIMER, RC_EV_MC_ADV_RELEASE,
                  from, rc_bodies_new(&mc->bodies, m));
        return true;
    }
    return false;
}

bool rc_mc_send_provider(rc_mc *mc, uint32_t from, const rc_msg *m)
{
    switch (verdict(mc, from, m)) {
    case RC_ADV_PASS: rc_net_send_provider(mc->net, from, rc_bodies_new(&mc->bodies, m)); return true;
    case RC_ADV_WITHHOLD: return false;
    case RC_ADV_HOLD: break; /* a source is never delayed (multicast/adversary.h) */
    }
    RC_DCHECK(false, "a delaying member held a message to its provider");
    return false;
}

void rc_mc_provider_send(rc_mc *mc, uint32_t user, const rc_msg *m)
{
    RC_DCHECK(m->recipient < mc->n_users, "recipient %u out of range", m->recipient);
    rc_net_provider_send(mc->net, user, m->recipient, rc_bodies_new(&mc->bodies, m));
}

uint64_t rc_mc_timer_reserve(rc_mc *mc) { return rc_sim_reserve(mc->sim); }

bool rc_mc_timer_at(rc_mc *mc, rc_time t, uint64_t seq, uint32_t obj, uint64_t arg)
{
    return rc_sim_at_seq(mc->sim, t, RC_CLS_TIMER, seq, RC_EV_MC_TIMER, obj, arg);
}

void rc_mc_timer(rc_mc *mc, rc_time t, uint32_t obj, uint64_t arg)
{
    rc_mc_timer_at(mc, t < mc->sim->now ? mc->sim->now : t, rc_mc_timer_reserve(mc), obj, arg);
}
