/* provider_fanout: the trusted-provider baseline (docs/spec.md §2.6).  The
 * source sends one packet, through its own payload stream, to its own
 * provider; the provider, which knows the group, injects one copy per other
 * member into the mix network as a normal Loopix packet (at most
 * provider_rate a second, loopix/net.h); members pull their copies from
 * their postboxes as usual.  Fast, since the source's queue holds one packet
 * per multicast instead of one per member, but the provider learns the group
 * and who multicasts to it: the design Rollercoaster avoids.  No state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "multicast/mc.h"

/* Its one kind of message: the source's packet to its provider and the
 * provider's copies alike. */
enum { PF_PAYLOAD };
static const rc_msg_kind kinds[] = {
    [PF_PAYLOAD] = {"payload", RC_MSG_COUNT_PAYLOAD, RC_MSG_ADV_FORWARD, true},
};

typedef struct fanout {
    rc_mc *mc;
} fanout;

static void *pf_create(rc_mc *mc, const rc_strategy_spec *spec, const rc_mc_cfg *cfg)
{
    (void)spec;
    (void)cfg;
    fanout *f = rc_xcalloc(1, sizeof *f);
    f->mc = mc;
    return f;
}

static void pf_destroy(void *self) { free(self); }

static void pf_multicast(void *self, uint32_t group, uint32_t source, uint32_t payload)
{
    fanout *f = self;
    rc_msg m = {.type = PF_PAYLOAD, .group = group, .source = source, .sender = source,
                .recipient = source, .payload = payload};
    rc_mc_send_provider(f->mc, source, &m);
}

/* The source's packet is at its provider: one copy per member but the source,
 * in group order, to the members of the group as it is now. */
static void pf_relay(void *self, uint32_t user, const rc_msg *m)
{
    fanout *f = self;
    uint32_t n = rc_mc_group_size(f->mc, m->group);
    const uint32_t *mem = rc_mc_group_members(f->mc, m->group);
    for (uint32_t i = 0; i < n; i++) {
        if (mem[i] == m->source) continue;
        rc_msg c = *m;
        c.role = i;
        c.recipient = mem[i];
        rc_mc_provider_send(f->mc, user, &c);
    }
}

static void pf_receive(void *self, uint32_t user, const rc_msg *m, bool online_label)
{
    fanout *f = self;
    rc_mc_app_deliver(f->mc, user, m->payload, online_label);
}

const rc_strategy_ops rc_provider_fanout_ops = {
    .name = "provider-fanout",
    .create = pf_create,
    .destroy = pf_destroy,
    .multicast = pf_multicast,
    .receive = pf_receive,
    .relay = pf_relay,
};

/* ---------- the table row (multicast/strategy_table.h) ---------- */

static int pf_parse(const char *name, rc_strategy_spec *out, rc_err *err)
{
    (void)out;
    (void)err;
    return strcmp(name, "provider-fanout") == 0 ? 0 : RC_STRATEGY_NOT_MINE;
}

static void pf_format(const rc_strategy_spec *s, char *buf, size_t n)
{
    (void)s;
    snprintf(buf, n, "provider-fanout");
}

/* One packet from the source (a payload slot), then one provider-injected
 * copy per recipient (no client slot). */
static void pf_cost(const rc_strategy_spec *s, rc_strategy_cost *c)
{
    (void)s;
    c->client_copies_per_multicast = 1.0;
    c->provider_copies_per_recipient = 1.0;
}

const rc_strategy_family rc_provider_fanout_family = {
    .family = "provider-fanout",
    .pattern = "provider-fanout",
    .summary = "the sender's provider sends the copies (§2.6)",
    .help =
        "  provider-fanout      the sender sends one packet, through its payload stream, to\n"
        "                       its own provider; the provider, which knows the group,\n"
        "                       injects one copy per member into the mixes as a normal\n"
        "                       Loopix packet, --provider-rate a second (default 0 =\n"
        "                       unlimited); members pull them as usual.  A baseline: fast,\n"
        "                       but the provider learns the group (docs/spec.md §2.6)\n",
    .params = NULL,
    .n_params = 0,
    .parse = pf_parse,
    .format = pf_format,
    .cost = pf_cost,
    .ops = &rc_provider_fanout_ops,
    .msg_kinds = kinds,
    .n_msg_kinds = sizeof kinds / sizeof kinds[0],
};
