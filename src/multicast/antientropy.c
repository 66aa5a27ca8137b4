#include "multicast/antientropy.h"

#include <math.h>
#include <stdlib.h>

#include "core/log.h"
#include "core/rng.h"
#include "loopix/net.h"
#include "multicast/events.h"
#include "multicast/mc.h"
#include "multicast/services.h"

enum { STREAM_AE = 30 };
enum { DIGEST_FIRST = 0, DIGEST_REPLY = 1 };

/* Its kinds of message, numbered from AE_DIGEST (rc_mc_service_ops.first_type).
 * Digests ask for messages: a misbehaving member still sends them; a repair is
 * a copy of someone's payload like a forward. */
enum { AE_DIGEST = RC_MSG_SERVICE_FIRST, AE_REPAIR };
static const rc_msg_kind kinds[] = {
    {"digest", RC_MSG_COUNT_REPAIR, RC_MSG_ADV_PASS, false},
    {"repair", RC_MSG_COUNT_REPAIR, RC_MSG_ADV_FORWARD, true},
};

typedef struct rc_ae {
    rc_mc *mc;
    rc_sim *sim;
    const rc_mc_cfg *cfg;
    gsl_rng *rng;
    uint32_t users, groups;
} rc_ae;

static void *ae_create(rc_mc *mc, rc_sim *sim, const rc_mc_cfg *cfg)
{
    if (cfg->ae_interval_s <= 0) return NULL;
    rc_ae *ae = rc_xcalloc(1, sizeof *ae);
    ae->mc = mc;
    ae->sim = sim;
    ae->cfg = cfg;
    ae->rng = rc_rng_new(cfg->seed, STREAM_AE);
    ae->users = rc_mc_users(mc);
    ae->groups = rc_mc_groups(mc);
    return ae;
}

static void ae_destroy(void *self)
{
    rc_ae *ae = self;
    rc_rng_free(ae->rng);
    free(ae);
}

static rc_time gap(rc_ae *ae)
{
    rc_time g = (rc_time)llround(rc_rng_exp(ae->rng, ae->cfg->ae_interval_s * 1e6));
    rc_time tick = rc_mc_tick(ae->mc);
    if (tick > 1) g = ((g + tick - 1) / tick) * tick;
    return g < 1 ? 1 : g;
}

/* One timer per (user, group): obj = group * users + user. */
static void on_round(void *ctx, const rc_event *ev)
{
    rc_ae *ae = ctx;
    uint32_t g = ev->obj / ae->users, u = ev->obj % ae->users;
    rc_sim_at(ae->sim, ev->t + gap(ae), RC_CLS_TIMER, RC_EV_AE_ROUND, ev->obj, 0);
    if (!rc_mc_online(ae->mc, u)) return;
    uint32_t n = rc_mc_group_size(ae->mc, g);
    if (rc_mc_group_pos(ae->mc, g, u) < 0 || n < 2) return;
    const uint32_t *mem = rc_mc_group_members(ae->mc, g);
    uint32_t peer;
    do peer = mem[rc_rng_below(ae->rng, n)];
    while (peer == u);
    rc_msg m = {.type = AE_DIGEST, .extra = DIGEST_FIRST, .group = g, .source = u,
                .sender = u, .recipient = peer, .t = ev->t};
    rc_mc_send(ae->mc, u, &m);
}

static void ae_start(void *self)
{
    rc_ae *ae = self;
    rc_sim_on(ae->sim, RC_EV_AE_ROUND, on_round, ae);
    for (uint32_t g = 0; g < ae->groups; g++)
        for (uint32_t u = 0; u < ae->users; u++)
            if (rc_mc_group_pos(ae->mc, g, u) >= 0 || ae->cfg->membership_rate > 0)
                rc_sim_at(ae->sim, gap(ae), RC_CLS_TIMER, RC_EV_AE_ROUND, g * ae->users + u, 0);
}

static bool had(const rc_ae *ae, uint32_t user, uint32_t p, double at_s)
{
    double d = rc_mc_delivered_at(ae->mc, user, p);
    return d >= 0 && d <= at_s;
}

static void ae_receive(void *self, uint32_t user, const rc_msg *m, bool online_label)
{
    rc_ae *ae = self;
    if (m->type == AE_REPAIR) {
        if (rc_mc_app_deliver(ae->mc, user, m->payload, online_label))
            rc_mc_counts(ae->mc)->repairs++;
        return;
    }
    /* A digest from m->sender describing its set at m->t. */
    double now_s = (double)rc_mc_now(ae->mc) / 1e6, digest_s = (double)m->t / 1e6;
    double from_s = now_s - ae->cfg->ae_window_s;
    uint32_t np;
    const uint32_t *ids = rc_mc_group_payloads(ae->mc, m->group, &np);
    int pushed = 0;
    bool they_have_more = false;
    for (uint32_t i = np; i-- > 0;) {
        uint32_t p = ids[i];
        if ((double)rc_mc_payload_created(ae->mc, p) / 1e6 < from_s) break;
        bool mine = had(ae, user, p, now_s), theirs = had(ae, m->sender, p, digest_s);
        if (mine && !theirs && pushed < ae->cfg->ae_push_max) {
            rc_msg r = {.type = AE_REPAIR, .group = m->group,
                        .source = rc_mc_payload_source(ae->mc, p), .sender = user,
                        .recipient = m->sender, .payload = p, .t = rc_mc_now(ae->mc)};
            rc_mc_send(ae->mc, user, &r);
            pushed++;
        } else if (theirs && !mine) {
            they_have_more = true;
        }
    }
    if (they_have_more && m->extra == DIGEST_FIRST) {
        rc_msg d = {.type = AE_DIGEST, .extra = DIGEST_REPLY, .group = m->group,
                    .source = user, .sender = user, .recipient = m->sender,
                    .t = rc_mc_now(ae->mc)};
        rc_mc_send(ae->mc, user, &d);
    }
}

const rc_mc_service_ops rc_antientropy_ops = {
    .name = "antientropy",
    .create = ae_create,
    .start = ae_start,
    .destroy = ae_destroy,
    .receive = ae_receive,
    .msg_kinds = kinds,
    .n_msg_kinds = sizeof kinds / sizeof kinds[0],
    .first_type = AE_DIGEST,
    .delivery_times = true,
};
