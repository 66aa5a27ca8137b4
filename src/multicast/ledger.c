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

static bool bit_get(const uint8_t *set, uint64_t i) { return (set[i / 8] >> (i % 8)) & 1; }
static void bit_set(uint8_t *set, uint64_t i) { set[i / 8] |= (uint8_t)(1u << (i % 8)); }

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Ascending, so the end-of-run walk reports the misses of a payload in user
 * order, as the bitset over users did. */
static void sort_ids(uint32_t *v, uint32_t n)
{
    if (n > 32) {
        qsort(v, n, sizeof *v, cmp_u32);
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = v[i], j = i;
        for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
        v[j] = x;
    }
}

/* user's index in payload p's run of expected recipients, or -1. */
static int64_t expected_index(const rc_mc *mc, uint32_t p, uint32_t user)
{
    const rc_mc_precord *r = &mc->prec[p];
    const uint32_t *v = &mc->exp_ids.v[r->off];
    uint32_t lo = 0, hi = r->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid] < user) lo = mid + 1;
        else hi = mid;
    }
    return lo < r->n && v[lo] == user ? (int64_t)lo : -1;
}

static bool extra_has(const rc_mc *mc, uint32_t p, uint32_t user)
{
    for (uint32_t x = mc->prec[p].extra; x; x = mc->extras.v[x - 1].next)
        if (mc->extras.v[x - 1].user == user) return true;
    return false;
}

void rc_mc__ledger_init(rc_mc *mc)
{
    if (mc->pt) return;
    mc->group_payloads = rc_xcalloc(mc->n_groups, sizeof(rc_mc_u32vec));
}

void rc_mc__ledger_free(rc_mc *mc)
{
    if (mc->group_payloads)
        for (uint32_t g = 0; g < mc->n_groups; g++) rc_mc_u32vec_free(&mc->group_payloads[g]);
    free(mc->group_payloads);
    free(mc->payloads);
    free(mc->prec);
    rc_mc_u32vec_free(&mc->exp_ids);
    free(mc->got);
    rc_mc_extravec_free(&mc->extras);
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
        mc->prec = rc_xrealloc(mc->prec, mc->cap_payloads * sizeof *mc->prec);
        if (mc->svc.keep_dtime)
            mc->dtime = rc_xrealloc(mc->dtime,
                                    (size_t)mc->cap_payloads * mc->n_users * sizeof(float));
    }
    uint32_t id = mc->n_payloads++;
    mc->payloads[id] = (rc_mc_payload){group, source, mc->sim->now};
    const uint32_t *mem = rc_mc_group_members(mc, group);
    uint64_t off = mc->exp_ids.n;
    for (uint32_t i = 0; i < mc->size[group]; i++)
        if (mem[i] != source) rc_mc_u32vec_push(&mc->exp_ids, mem[i]);
    uint32_t n = (uint32_t)(mc->exp_ids.n - off);
    sort_ids(&mc->exp_ids.v[off], n);
    mc->prec[id] = (rc_mc_precord){.off = off, .n = n, .extra = 0};
    if (mc->exp_ids.n > mc->got_cap) { /* new bits start clear */
        size_t cap = mc->got_cap ? mc->got_cap : 8192;
        while (cap < mc->exp_ids.n) cap *= 2;
        mc->got = rc_xrealloc(mc->got, cap / 8);
        memset(&mc->got[mc->got_cap / 8], 0, (cap - mc->got_cap) / 8);
        mc->got_cap = cap;
    }
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
    int64_t i = expected_index(mc, p, user);
    return i >= 0 ? bit_get(mc->got, mc->prec[p].off + (uint64_t)i) : extra_has(mc, p, user);
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
    rc_mc_precord *r = &mc->prec[p];
    int64_t i = expected_index(mc, p, user);
    if (i >= 0 ? bit_get(mc->got, r->off + (uint64_t)i) : extra_has(mc, p, user)) {
        mc->ctr.duplicates++;
        return false;
    }
    if (i >= 0) {
        bit_set(mc->got, r->off + (uint64_t)i);
    } else {
        rc_mc_extravec_push(&mc->extras, (rc_mc_extra){.user = user, .next = r->extra});
        r->extra = (uint32_t)mc->extras.n;
        mc->extra_deliveries++;
    }
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
    return mc->prec[p].n;
}

/* Every expected (recipient, payload) pair without a first copy by the end
 * (the data are right-censored there). */
uint64_t rc_mc__ledger_undelivered(rc_mc *mc, rc_mc_missed_fn missed, void *ctx)
{
    if (mc->pt) return rc_poptab_finish(mc->pt, missed, ctx);
    uint64_t undelivered = 0;
    for (uint32_t p = 0; p < mc->n_payloads; p++) {
        const rc_mc_precord *r = &mc->prec[p];
        for (uint32_t i = 0; i < r->n; i++) {
            if (bit_get(mc->got, r->off + i)) continue;
            undelivered++;
            if (missed) missed(ctx, mc->payloads[p].group, p, mc->exp_ids.v[r->off + i]);
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
