/* unicast: sequential unicast (docs/spec.md §2.2).  The source queues one copy per
 * member, in group order; recipients hand it to the app.  No state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "multicast/mc.h"

/* Its one kind of message. */
enum { UC_PAYLOAD };
static const rc_msg_kind kinds[] = {
    [UC_PAYLOAD] = {"payload", RC_MSG_COUNT_PAYLOAD, RC_MSG_ADV_FORWARD, true},
};

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
        rc_msg m = {.type = UC_PAYLOAD, .group = group, .source = source, .role = i,
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

/* ---------- the table row (multicast/strategy_table.h) ---------- */

static int uc_parse(const char *name, rc_strategy_spec *out, rc_err *err)
{
    (void)out;
    (void)err;
    return strcmp(name, "unicast") == 0 ? 0 : RC_STRATEGY_NOT_MINE;
}

static void uc_format(const rc_strategy_spec *s, char *buf, size_t n)
{
    (void)s;
    snprintf(buf, n, "unicast");
}

/* One copy per recipient, each through the sender's payload slots. */
static void uc_cost(const rc_strategy_spec *s, rc_strategy_cost *c)
{
    (void)s;
    c->client_copies_per_recipient = 1.0;
}

const rc_strategy_family rc_unicast_family = {
    .family = "unicast",
    .pattern = "unicast",
    .summary = "one copy per member from the sender (§2.2)",
    .help = "  unicast              sequential unicast: the sender queues one copy per member\n"
            "                       on its own send queue, in group order (docs/spec.md §2.2)\n",
    .params = NULL,
    .n_params = 0,
    .parse = uc_parse,
    .format = uc_format,
    .cost = uc_cost,
    .ops = &rc_unicast_ops,
    .msg_kinds = kinds,
    .n_msg_kinds = sizeof kinds / sizeof kinds[0],
};
