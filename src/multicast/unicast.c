/* unicast: sequential unicast (docs/spec.md §2.2).  The source queues one copy per
 * member, in group order; recipients hand it to the app.  No state. */
#include <stdlib.h>

#include "core/log.h"
#include "multicast/mc.h"

typedef struct unicast {
    rc_mc *mc;
} unicast;

static void *uc_create(rc_mc *mc, const rc_strategy_spec *spec, const rc_mc_cfg *cfg)
{
    (void)spec;
    (void)cfg;
    unicast *u = rc_xcalloc(1, sizeof *u);
    u->mc = mc;
    return u;
}

static void uc_destroy(void *self) { free(self); }

static void uc_multicast(void *self, uint32_t group, uint32_t source, uint32_t payload)
{
    unicast *u = self;
    uint32_t n = rc_mc_group_size(u->mc, group);
    const uint32_t *mem = rc_mc_group_members(u->mc, group);
    for (uint32_t i = 0; i < n; i++) {
        if (mem[i] == source) continue;
        rc_msg m = {.type = RC_MSG_PAYLOAD, .group = group, .source = source, .role = i,
                    .sender = source, .recipient = mem[i], .payload = payload};
        rc_mc_send(u->mc, source, &m);
    }
}

static void uc_receive(void *self, uint32_t user, const rc_msg *m, bool online_label)
{
    unicast *u = self;
    rc_mc_app_deliver(u->mc, user, m->payload, online_label);
}

const rc_strategy_ops rc_unicast_ops = {
    .name = "unicast",
    .create = uc_create,
    .destroy = uc_destroy,
    .multicast = uc_multicast,
    .receive = uc_receive,
};
