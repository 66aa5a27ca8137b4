/* ledger: payloads and their first deliveries for mc (mc_internal.h): the
 * payload records, who was expected and who got each one, delivery times for
 * the services that read them, the latency samples (docs/spec.md §5), the
 * per-delivery records (store_raw) and the end-of-run count of what was
 * never delivered.  In population mode poptab keeps all of it instead
 * (multicast/poptab.h) and a payload's record lives while something refers
 * to it (rc_mc_payload_hold/release). */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "multicast/mc_internal.h"
#include "multicast/poptab.h"

static bool bit_get(const uint8_t *set, uint32_t i) { return (set[i / 8] >> (i % 8)) & 1; }
static void bit_set(uint8_t *set, uint32_t i) { set[i / 8] |= (uint8_t)(1u << (i % 8)); }

void rc_mc__ledger_init(rc_mc *mc)
{
    if (mc->pt) return;
    mc->group_payloads = rc_xcalloc(mc->n_groups, sizeof(rc_mc_u32vec));
    mc->bytes_per = (mc->n_users + 7) / 8;
}

void rc_mc__ledger_free(rc_mc *mc)
{
    if (mc->group_payloads)
        for (uint32_t g = 0; g < mc->n_groups; g++) rc_mc_u32vec_free(&mc->group_payloads[g]);
    free(mc->group_payloads);
    free(mc->payloads);
    free(mc->expected);
    free(mc->delivered);
    free(mc->dtime);
    rc_mc_dsamples_free(&mc->lat_all);
    rc_mc_dsamples_free(&mc->lat_online);
    rc_mc_dlvvec_free(&mc->raw);
}

uint32_t rc_mc_payload_new(rc_mc *mc, uint32_t group, uint32_t source)
{
    if (mc->pt) {
        mc->ctr.multicasts++;
        mc->ctr.expected_deliveries += mc->size[group] - 1;
        return rc_poptab_payload_new(mc->pt, group, source, mc->sim->now);
    }
    if (mc->n_payloads == mc->cap_payloads) {
        mc->cap_payloads = mc->cap_payloads ? mc->cap_payloads * 2 : 1024;
        mc->payloads = rc_xrealloc(mc->payloads, mc->cap_payloads * sizeof *mc->payloads);
        mc->expected = rc_xrealloc(mc->expected, (size_t)mc->cap_payloads * mc->bytes_per);
        mc->delivered = rc_xrealloc(mc->delivered, (size_t)mc->cap_payloads * mc->bytes_per);
        if (mc->svc.keep_dtime)
            mc->dtime = rc_xrealloc(mc->dtime,
                                    (size_t)mc->cap_payloads * mc->n_users * sizeof(float));
    }
    uint32_t id = mc->n_payloads++;
    mc->payloads[id] = (rc_mc_payload){group, source, mc->sim->now};
    uint8_t *exp = &mc->expected[(size_t)id * mc->bytes_per];
    memset(exp, 0, mc->bytes_per);
    memset(&mc->delivered[(size_t)id * mc->bytes_per], 0, mc->bytes_per);
    const uint32_t *mem = rc_mc_group_members(mc, group);
    for (uint32_t i = 0; i < mc->size[group]; i++)
        if (mem[i] != source) bit_set(exp, mem[i]);
    if (mc->dtime) {
        float *d = &mc->dtime[(size_t)id * mc->n_users];
        for (uint32_t u = 0; u < mc->n_users; u++) d[u] = -1.0f;
        d[source] = (float)((double)mc->sim->now / 1e6);
    }
    rc_mc_u32vec_push(&mc->group_payloads[group], id);
    mc->ctr.multicasts++;
    mc->ctr.expected_deliveries += mc->size[group] - 1;
    rc_mc__scenario_created(mc, id);
    return id;
}

uint32_t rc_mc_payload_group(const rc_mc *mc, uint32_t p)
{
    return mc->pt ? rc_poptab_payload_group(mc->pt, p) : mc->payloads[p].group;
}
uint32_t rc_mc_payload_source(const rc_mc *mc, uint32_t p)
{
    return mc->pt ? rc_poptab_payload_source(mc->pt, p) : mc->payloads[p].source;
}
rc_time rc_mc_payload_created(const rc_mc *mc, uint32_t p)
{
    return mc->pt ? rc_poptab_payload_created(mc->pt, p) : mc->payloads[p].created;
}
uint32_t rc_mc_payloads(const rc_mc *mc) { return mc->n_payloads; }

void rc_mc_payload_hold(rc_mc *mc, uint32_t p)
{
    if (mc->pt) rc_poptab_ref(mc->pt, p);
}
void rc_mc_payload_release(rc_mc *mc, uint32_t p)
{
    if (mc->pt) rc_poptab_unref(mc->pt, p);
}

const uint32_t *rc_mc_group_payloads(const rc_mc *mc, uint32_t g, uint32_t *n)
{
    RC_ASSERT(mc->pt == NULL); /* anti-entropy only; not in population mode */
    *n = (uint32_t)mc->group_payloads[g].n;
    return mc->group_payloads[g].v;
}

double rc_mc_delivered_at(const rc_mc *mc, uint32_t user, uint32_t p)
{
    RC_ASSERT(mc->dtime != NULL);
    return mc->dtime[(size_t)p * mc->n_users + user];
}

bool rc_mc_app_has(const rc_mc *mc, uint32_t user, uint32_t p)
{
    if (mc->pt) return rc_poptab_has(mc->pt, p, user);
    return bit_get(&mc->delivered[(size_t)p * mc->bytes_per], user);
}

bool rc_mc_app_deliver(rc_mc *mc, uint32_t user, uint32_t p, bool online_label)
{
    if (mc->pt) {
        double lat = (double)(mc->sim->now - rc_poptab_payload_created(mc->pt, p)) / 1e6;
        if (!rc_poptab_deliver(mc->pt, p, user, lat, online_label)) {
            mc->ctr.duplicates++;
            return false;
        }
        mc->ctr.deliveries++;
        mc->ctr.deliveries_online += online_label;
        return true;
    }
    uint8_t *set = &mc->delivered[(size_t)p * mc->bytes_per];
    if (bit_get(set, user)) {
        mc->ctr.duplicates++;
        return false;
    }
    bit_set(set, user);
    if (!bit_get(&mc->expected[(size_t)p * mc->bytes_per], user)) mc->extra_deliveries++;
    if (mc->dtime) mc->dtime[(size_t)p * mc->n_users + user] = (float)((double)mc->sim->now / 1e6);
    /* docs/spec.md §5: first copy only; latency from creation to the pull. */
    double lat = (double)(mc->sim->now - mc->payloads[p].created) / 1e6;
    rc_mc__scenario_delivered(mc, p, lat, online_label);
    mc->ctr.deliveries++;
    rc_mc_dsamples_push(&mc->lat_all, lat);
    if (online_label) {
        mc->ctr.deliveries_online++;
        rc_mc_dsamples_push(&mc->lat_online, lat);
    }
    if (mc->cfg.record_deliveries) {
        rc_mc_dlvvec_push(&mc->raw, (rc_mc_delivery){
            .payload = p,
            .group = mc->payloads[p].group,
            .source = mc->payloads[p].source,
            .recipient = user,
            .created = mc->payloads[p].created,
            .delivered = mc->sim->now,
            .online = online_label ? 1 : 0,
        });
    }
    return true;
}

uint64_t rc_mc__ledger_expected(const rc_mc *mc, uint32_t p)
{
    const uint8_t *exp = &mc->expected[(size_t)p * mc->bytes_per];
    uint64_t e = 0;
    for (uint32_t b = 0; b < mc->bytes_per; b++) e += (uint64_t)__builtin_popcount(exp[b]);
    return e;
}

/* Every expected (recipient, payload) pair without a first copy by the end
 * (the data are right-censored there). */
uint64_t rc_mc__ledger_undelivered(rc_mc *mc, rc_mc_missed_fn missed, void *ctx)
{
    if (mc->pt) return rc_poptab_finish(mc->pt, missed, ctx);
    uint64_t undelivered = 0;
    for (uint32_t p = 0; p < mc->n_payloads; p++) {
        const uint8_t *exp = &mc->expected[(size_t)p * mc->bytes_per];
        const uint8_t *got = &mc->delivered[(size_t)p * mc->bytes_per];
        for (uint32_t b = 0; b < mc->bytes_per; b++) {
            uint8_t miss = (uint8_t)(exp[b] & ~got[b]);
            while (miss) {
                uint32_t u = b * 8 + (uint32_t)__builtin_ctz(miss);
                miss &= (uint8_t)(miss - 1);
                undelivered++;
                if (missed) missed(ctx, mc->payloads[p].group, p, u);
            }
        }
    }
    return undelivered;
}

const rc_mc_delivery *rc_mc_deliveries(const rc_mc *mc, size_t *n)
{
    *n = mc->raw.n;
    return mc->raw.v;
}

double *rc_mc_latencies(rc_mc *mc, bool online_only, size_t *n)
{
    rc_mc_dsamples *d = online_only ? &mc->lat_online : &mc->lat_all;
    *n = d->n;
    return d->v;
}
