/* hooks: the net's calls into mc (rc_net_hooks, loopix/net.h) and the
 * strategy timers' events, each turned into a call of the strategy's ops or
 * of the service that owns the message's type (mc_internal.h). */
#include "core/log.h"
#include "multicast/adversary.h"
#include "multicast/mc_internal.h"
#include "multicast/poptab.h"

static void hook_sent(void *ctx, uint32_t user, uint32_t body, rc_time now)
{
    rc_mc *mc = ctx;
    if (rc_bodies_is_compact(body)) { /* a payload copy; population mode: no scenario, no sent op */
        RC_DCHECK(mc->bodies.compact && mc->so.state != 1,
                  "compact body %x outside population mode", body);
        rc_poptab_sent(mc->pt, user);
        mc->ctr.payload_packets++;
        return;
    }
    const rc_msg *m = rc_bodies_at(&mc->bodies, body);
    if (mc->pt) rc_poptab_sent(mc->pt, user);
    const rc_msg_kind *k = rc_msg_kind_of(&mc->kinds, m->type);
    switch (k->counter) {
    case RC_MSG_COUNT_PAYLOAD: mc->ctr.payload_packets++; break;
    case RC_MSG_COUNT_ACK: mc->ctr.ack_packets++; break;
    case RC_MSG_COUNT_REPAIR: mc->ctr.repair_packets++; break;
    }
    if (mc->so.state == 1 && k->counter == RC_MSG_COUNT_PAYLOAD)
        rc_mc__scenario_sent(mc, user, m, now);
    if (mc->ops->sent && mc->kinds.service[m->type] < 0) /* not a service's */
        mc->ops->sent(mc->strategy, user, m, now);
}

static void hook_deliver(void *ctx, uint32_t user, uint32_t body, bool online_label, rc_time now)
{
    (void)now;
    rc_mc *mc = ctx;
    rc_msg m = rc_bodies_msg(&mc->bodies, body, user);
    rc_bodies_release(&mc->bodies, body);
    RC_DCHECK(m.recipient == user, "message for %u pulled by %u", m.recipient, user);
    rc_adv_receive_begin(mc->adv, user);
    int s = mc->kinds.service[m.type];
    if (s >= 0)
        rc_mc_services_receive(&mc->svc, s, user, &m, online_label);
    else
        mc->ops->receive(mc->strategy, user, &m, online_label);
    rc_adv_receive_end(mc->adv);
    /* after the strategy: it may still have used the payload */
    if (mc->pt && rc_msg_kind_of(&mc->kinds, m.type)->payload) rc_poptab_unref(mc->pt, m.payload);
}

/* A message a user sent to its own provider (rc_mc_send_provider) is there. */
static void hook_relay(void *ctx, uint32_t user, uint32_t body)
{
    rc_mc *mc = ctx;
    RC_DCHECK(!rc_bodies_is_compact(body), "compact body %x sent to a provider", body);
    if (mc->tap.relay) mc->tap.relay(mc->tap.ctx, user, body, mc->sim->now);
    rc_msg m = *rc_bodies_at(&mc->bodies, body);
    rc_bodies_release(&mc->bodies, body);
    RC_DCHECK(mc->ops->relay != NULL, "strategy %s sent to a provider without a relay op",
              mc->ops->name);
    mc->ops->relay(mc->strategy, user, &m);
    if (mc->pt && rc_msg_kind_of(&mc->kinds, m.type)->payload) rc_poptab_unref(mc->pt, m.payload);
}

static void hook_prefetch(void *ctx, uint32_t body, unsigned stage)
{
    const rc_mc *mc = ctx;
    rc_bodies_prefetch(&mc->bodies, body, stage);
}

static void hook_prefetch_user(void *ctx, uint32_t user, unsigned ahead)
{
    const rc_mc *mc = ctx;
    if (mc->pt) rc_poptab_prefetch_user(mc->pt, user, ahead);
}

static void hook_online(void *ctx, uint32_t user, bool online, rc_time now)
{
    rc_mc *mc = ctx;
    if (mc->tap.online) mc->tap.online(mc->tap.ctx, user, online, now);
    if (mc->ops->online) mc->ops->online(mc->strategy, user, online);
}

/* A real sub-message reached `user`'s postbox: only an observer above wants it. */
static void hook_arrived(void *ctx, uint32_t user, uint32_t body, rc_time emitted, rc_time now)
{
    rc_mc *mc = ctx;
    if (mc->tap.arrived) mc->tap.arrived(mc->tap.ctx, user, body, emitted, now);
}

static void on_timer(void *ctx, const rc_event *ev)
{
    rc_mc *mc = ctx;
    mc->ops->timer(mc->strategy, ev->obj, ev->arg);
}

rc_net_hooks rc_mc__net_hooks(rc_mc *mc)
{
    return (rc_net_hooks){mc, hook_sent, hook_deliver, hook_online, hook_arrived, hook_prefetch,
                          hook_relay, hook_prefetch_user};
}

void rc_mc__hooks_attach(rc_mc *mc) { rc_sim_on(mc->sim, RC_EV_MC_TIMER, on_timer, mc); }
