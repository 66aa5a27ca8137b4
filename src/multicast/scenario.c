/* scenario: offline_members and source_offline (scenario.h). */
#include "multicast/scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/log.h"
#include "multicast/mc_internal.h"

static int parse_offline(const rc_mc *mc, bool *forced)
{
    const char *p = mc->cfg.offline_members;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || (uint32_t)v >= mc->size[0]) return -1;
        forced[mc->members[v]] = true;
        p = (*end == ',') ? end + 1 : end;
    }
    return 0;
}

int rc_mc__scenario_new(rc_mc *mc, bool **forced, rc_err *err)
{
    const rc_mc_cfg *cfg = &mc->cfg;
    *forced = NULL;
    if (cfg->offline_members[0] != '\0') {
        *forced = rc_xcalloc(mc->n_users, sizeof(bool));
        if (parse_offline(mc, *forced) != 0) {
            free(*forced);
            *forced = NULL;
            return rc_err_set(err, RC_EXIT_USAGE, "offline_members: bad list '%s'",
                              cfg->offline_members);
        }
    }
    if (cfg->source_offline[0] != '\0' &&
        sscanf(cfg->source_offline, "%lf:%lf", &mc->so.at_s, &mc->so.for_s) == 2)
        mc->so.state = 0;
    else
        mc->so.state = 2;
    return 0;
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
    if (mc->so.state == 0 && mc->cfg.source_offline[0] != '\0' &&
        (double)mc->sim->now >= mc->so.at_s * 1e6) {
        mc->so.state = 1;
        mc->so.payload = p;
    }
}

void rc_mc__scenario_delivered(rc_mc *mc, uint32_t p, double lat, bool online_label)
{
    if (mc->so.state != 0 && mc->cfg.source_offline[0] != '\0' && p == mc->so.payload) {
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
    return mc->so.state != 0 && mc->cfg.source_offline[0] != '\0' && mc->so.payload < mc->n_payloads;
}
