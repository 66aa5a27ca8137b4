/* scenario: offline_members and source_offline (scenario.h). */
#include "multicast/scenario.h"

#include <math.h>
#include <stdlib.h>

#include "core/log.h"
#include "multicast/mc_internal.h"

bool *rc_mc__scenario_new(rc_mc *mc)
{
    const rc_mc_cfg *cfg = &mc->cfg;
    mc->so.at_s = cfg->source_offline_at_s;
    mc->so.for_s = cfg->source_offline_for_s;
    mc->so.state = cfg->source_offline ? 0 : 2;
    if (cfg->n_offline == 0) return NULL;
    bool *forced = rc_xcalloc(mc->n_users, sizeof(bool));
    for (uint32_t i = 0; i < cfg->n_offline; i++) {
        uint32_t pos = cfg->offline_members[i];
        /* exp/ checked the positions against the group size (rc_job_validate) */
        RC_ASSERTF(pos < mc->size[0], "offline_members: position %u in a group of %u", pos,
                   mc->size[0]);
        forced[mc->members[pos]] = true;
    }
    return forced;
}

void rc_mc__scenario_off(rc_mc *mc) { mc->so.state = 2; }

/* The source goes offline right after its first copy of the chosen multicast
 * has left. */
void rc_mc__scenario_sent(rc_mc *mc, uint32_t user, const rc_msg *m, rc_time now)
{
    if (m->payload == mc->so.payload && user == m->source) {
        mc->so.state = 2;
        rc_time from = now + rc_net_tick(mc->net);
        rc_net_force_offline(mc->net, user, from, from + (rc_time)llround(mc->so.for_s * 1e6));
    }
}

void rc_mc__scenario_created(rc_mc *mc, uint32_t p)
{
    if (mc->so.state == 0 && mc->cfg.source_offline &&
        (double)mc->sim->now >= mc->so.at_s * 1e6) {
        mc->so.state = 1;
        mc->so.payload = p;
    }
}

void rc_mc__scenario_delivered(rc_mc *mc, uint32_t p, double lat, bool online_label)
{
    if (mc->so.state != 0 && mc->cfg.source_offline && p == mc->so.payload) {
        uint64_t ms = (uint64_t)llround(lat * 1000);
        mc->ctr.so_delivered++;
        mc->ctr.so_delivered_online += online_label;
        mc->ctr.so_latency_sum_ms += ms;
        if (ms > mc->ctr.so_latency_max_ms) mc->ctr.so_latency_max_ms = ms;
    }
}

bool rc_mc__scenario_chosen(const rc_mc *mc, uint32_t *p)
{
    *p = mc->so.payload;
    return mc->so.state != 0 && mc->cfg.source_offline && mc->so.payload < mc->n_payloads;
}
