/* The exact model's ledger (src/multicast/ledger.c): a payload's expected
 * recipients are a run of user ids with one bit each and first copies to
 * anyone else a per-payload list.  What it must answer the same as the
 * bitsets over all users it replaced: who has a payload, which copy is a
 * first, and the misses at the end, in payload then user order. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim.h"
#include "exp/job.h"
#include "loopix/net.h"
#include "multicast/mc.h"

enum { USERS = 96, GROUPS = 6, SIZE = 40, PAYLOADS = 4 };

typedef struct miss {
    uint32_t group, payload, recipient;
} miss;

typedef struct misses {
    miss v[PAYLOADS * SIZE];
    uint32_t n;
} misses;

static void note(void *ctx, uint32_t group, uint32_t payload, uint32_t recipient)
{
    misses *m = ctx;
    cr_assert_lt(m->n, PAYLOADS * SIZE);
    m->v[m->n++] = (miss){group, payload, recipient};
}

static rc_mc *new_mc(rc_sim *sim)
{
    rc_job j;
    rc_job_defaults(&j);
    j.users = USERS;
    j.groups = GROUPS;
    j.group_size = SIZE; /* above 32: the run is sorted by qsort, not insertion */
    j.duration_s = 60;
    rc_job_resolve(&j);
    rc_err err = {0};
    cr_assert_eq(rc_job_validate(&j, &err), 0, "%s", err.msg);
    rc_sim_init(sim, (rc_time)(j.duration_s * 1e6));
    rc_net_cfg net_cfg;
    rc_mc_cfg mc_cfg;
    rc_job_net_cfg(&j, &net_cfg);
    rc_job_mc_cfg(&j, &mc_cfg);
    rc_mc *mc = rc_mc_new(sim, &mc_cfg, &net_cfg, NULL, &err);
    cr_assert_not_null(mc, "%s", err.msg);
    rc_mc_start(mc);
    return mc;
}

static uint32_t non_member(const rc_mc *mc, uint32_t g, uint32_t after)
{
    for (uint32_t u = after; u < USERS; u++)
        if (rc_mc_group_pos(mc, g, u) < 0) return u;
    cr_assert_fail("no non-member of group %u from %u", g, after);
    return 0;
}

Test(ledger, first_copies_of_members_and_of_others_and_the_misses_in_user_order)
{
    rc_sim sim;
    rc_mc *mc = new_mc(&sim);
    /* two payloads of group 0 from different sources, one each of groups 1, 2 */
    const uint32_t pg[PAYLOADS] = {0, 0, 1, 2};
    uint32_t src[PAYLOADS], id[PAYLOADS];
    for (uint32_t i = 0; i < PAYLOADS; i++) {
        const uint32_t *mem = rc_mc_group_members(mc, pg[i]);
        src[i] = mem[i == 1 ? SIZE - 1 : 0];
        id[i] = rc_mc_payload_new(mc, pg[i], src[i]);
        cr_assert_eq(id[i], i);
        cr_assert_eq(rc_mc_payload_group(mc, id[i]), pg[i]);
        cr_assert_eq(rc_mc_payload_source(mc, id[i]), src[i]);
    }
    for (uint32_t i = 0; i < PAYLOADS; i++)
        for (uint32_t u = 0; u < USERS; u++)
            cr_assert_not(rc_mc_app_has(mc, u, id[i]), "user %u has payload %u at creation", u, i);

    /* Payload 0: every other member in group order (not user order) gets it,
     * twice; payload 1 of the same group must not see those bits. */
    const uint32_t *mem0 = rc_mc_group_members(mc, 0);
    uint32_t firsts = 0;
    for (uint32_t k = 0; k < SIZE; k += 2) {
        uint32_t u = mem0[k];
        if (u == src[0]) continue;
        cr_assert(rc_mc_app_deliver(mc, u, id[0], true), "first copy to member %u", u);
        cr_assert_not(rc_mc_app_deliver(mc, u, id[0], true), "second copy to member %u", u);
        cr_assert(rc_mc_app_has(mc, u, id[0]));
        if (u != src[1]) cr_assert_not(rc_mc_app_has(mc, u, id[1]), "member %u", u);
        firsts++;
    }
    /* Payload 2: two users outside group 1 get first copies (extras), one of
     * them twice; a third outsider still has nothing. */
    uint32_t x1 = non_member(mc, 1, 0), x2 = non_member(mc, 1, x1 + 1),
             x3 = non_member(mc, 1, x2 + 1);
    cr_assert(rc_mc_app_deliver(mc, x1, id[2], false));
    cr_assert(rc_mc_app_deliver(mc, x2, id[2], true));
    cr_assert_not(rc_mc_app_deliver(mc, x1, id[2], true), "second copy to outsider %u", x1);
    cr_assert(rc_mc_app_has(mc, x1, id[2]));
    cr_assert(rc_mc_app_has(mc, x2, id[2]));
    cr_assert_not(rc_mc_app_has(mc, x3, id[2]));
    /* Payload 3: its source's own copy is unexpected (an extra), everyone else
     * misses it. */
    cr_assert(rc_mc_app_deliver(mc, src[3], id[3], true));
    cr_assert_not(rc_mc_app_deliver(mc, src[3], id[3], true));

    rc_mc_counters *c = rc_mc_counts(mc);
    cr_assert_eq(c->deliveries, firsts + 3);
    cr_assert_eq(c->duplicates, firsts + 2);
    cr_assert_eq(c->expected_deliveries, PAYLOADS * (SIZE - 1));

    /* The misses: payload by payload, each in ascending user order, exactly
     * the expected members (not the source) without a first copy. */
    misses m = {0};
    rc_mc_finish(mc, note, &m);
    uint32_t k = 0;
    for (uint32_t i = 0; i < PAYLOADS; i++) {
        for (uint32_t u = 0; u < USERS; u++) {
            bool expected = rc_mc_group_pos(mc, pg[i], u) >= 0 && u != src[i];
            bool got = rc_mc_app_has(mc, u, id[i]);
            if (!expected || got) continue;
            cr_assert_lt(k, m.n, "missing miss (%u, %u)", i, u);
            cr_assert_eq(m.v[k].payload, id[i], "miss %u: payload %u, not %u", k, m.v[k].payload, i);
            cr_assert_eq(m.v[k].recipient, u, "miss %u of payload %u: user %u, not %u", k, i,
                         m.v[k].recipient, u);
            cr_assert_eq(m.v[k].group, pg[i]);
            k++;
        }
    }
    cr_assert_eq(m.n, k, "%u misses reported, %u expected", m.n, k);
    cr_assert_eq(m.n, PAYLOADS * (SIZE - 1) - firsts);
    cr_assert_eq(c->undelivered, m.n);
    rc_mc_free(mc);
    rc_sim_free(&sim);
}
