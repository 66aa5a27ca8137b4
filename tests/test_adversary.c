/* Misbehaving members (src/multicast/adversary.h): who is chosen,
 * what each kind withholds, what RC-FT and anti-entropy make of it, and that
 * the default leaves every job as it was. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/sim.h"
#include "exp/job.h"
#include "exp/param.h"
#include "exp/run.h"
#include "multicast/adversary.h"
#include "loopix/net.h"
#include "multicast/mc.h"
#include "one_multicast.h"

/* ---------- helpers ---------- */

/* A k=1 group of 7 in the paper model: nonce 0 keeps group order, so tree
 * position = group position (source 0; 0->1, 0->2, 1->3, 0->4, 1->5, 2->6).
 * Position 1 has the subtree {3, 5}, both leaves. */
static void base7(rc_job *job, const char *strategy)
{
    rc_job_defaults(job);
    job->users = 7;
    job->app_rate = 0;
    job->duration_s = 3600;
    job->model = RC_MODEL_PAPER;
    strcpy(job->strategy, strategy);
}

static rc_adv *adv_of(const rc_job *job)
{
    rc_adv_cfg c = {(rc_adv_kind)job->adversary, job->adversary_fraction, 0, job->seed,
                    (uint32_t)job->users};
    return rc_adv_new(&c);
}

/* Group position -> user for the job's group 0. */
static uint32_t user_at(const rc_job *job, uint32_t pos)
{
    rc_job j = *job;
    rc_job_resolve(&j);
    rc_sim sim;
    rc_sim_init(&sim, 1);
    rc_err err = {0};
    rc_net_cfg net_cfg;
    rc_mc_cfg mc_cfg;
    rc_job_net_cfg(&j, &net_cfg);
    rc_job_mc_cfg(&j, &mc_cfg);
    rc_mc *mc = rc_mc_new(&sim, &mc_cfg, &net_cfg, NULL, &err);
    cr_assert_not_null(mc, "%s", err.msg);
    uint32_t u = rc_mc_group_members(mc, 0)[pos];
    rc_mc_free(mc);
    rc_sim_free(&sim);
    return u;
}

/* The adversaries are the seed's choice: pick the first seed whose single
 * adversary (1 of 7) stands at group position `pos`. */
static void put_adversary_at(rc_job *job, rc_adv_kind kind, uint32_t pos)
{
    job->adversary = kind;
    job->adversary_fraction = 1.0 / 7;
    uint32_t want = user_at(job, pos);
    for (uint64_t seed = 1; seed < 1000; seed++) {
        job->seed = seed;
        rc_adv *a = adv_of(job);
        bool hit = rc_adv_is(a, want);
        rc_adv_free(a);
        if (hit) return;
    }
    cr_assert_fail("no seed below 1000 puts the adversary at position %u", pos);
}

static bool missed(const rc_job *job, const rc_result *r, uint32_t pos)
{
    uint32_t u = user_at(job, pos);
    for (size_t i = 0; i < r->n_undelivered; i++)
        if (r->undelivered[i].recipient == u) return true;
    return false;
}

static rc_result run(const rc_job *j)
{
    rc_result r;
    rc_err err = {0};
    cr_assert_eq(rc_run_job(j, &r, NULL, NULL, &err), 0, "%s", err.msg);
    return r;
}

/* ---------- choice ---------- */

Test(adversary, the_seed_chooses_round_f_times_m_members)
{
    rc_job j;
    rc_job_defaults(&j);
    j.users = 128;
    j.adversary = RC_ADV_DROP;
    j.adversary_fraction = 0.1;
    rc_adv *a = adv_of(&j), *b = adv_of(&j);
    j.seed = 2;
    rc_adv *c = adv_of(&j);
    uint32_t na = 0, same_ab = 0, same_ac = 0;
    for (uint32_t u = 0; u < 128; u++) {
        na += rc_adv_is(a, u);
        same_ab += rc_adv_is(a, u) == rc_adv_is(b, u);
        same_ac += rc_adv_is(a, u) && rc_adv_is(c, u);
    }
    cr_assert_eq(na, 13, "round(0.1 x 128) = 13 adversaries, got %u", na);
    cr_assert_eq(same_ab, 128, "the same seed must choose the same members");
    cr_assert_lt(same_ac, 13, "another seed chose exactly the same %u members", same_ac);
    rc_adv_counters k;
    rc_adv_counts(a, &k);
    cr_assert_eq(k.members, 13);
    rc_adv_free(a);
    rc_adv_free(b);
    rc_adv_free(c);
    j.adversary = RC_ADV_NONE;
    cr_assert_null(adv_of(&j), "kind none must mean nobody misbehaves");
}

/* ---------- defaults ---------- */

Test(adversary, defaults_keep_the_canonical_text_and_results)
{
    rc_job j;
    rc_job_defaults(&j);
    char buf[8192];
    rc_job_canonical(&j, buf, sizeof buf);
    cr_assert_null(strstr(buf, "adversary"), "a default job's id must not change:\n%s", buf);
    j.users = 32;
    j.duration_s = 1800;
    strcpy(j.strategy, "rc-k2-p2-ft");
    rc_result a = run(&j);
    /* drop with nobody chosen: a different job, the same simulation */
    j.adversary = RC_ADV_DROP;
    rc_job_canonical(&j, buf, sizeof buf);
    cr_assert_not_null(strstr(buf, "adversary=drop\n"), "%s", buf);
    rc_result b = run(&j);
    cr_assert_neq(a.job_id, b.job_id);
    cr_assert_eq(b.c.adv_members, 0);
    cr_assert_eq(memcmp(&a.online, &b.online, sizeof a.online), 0,
                 "no adversary chosen, yet the latencies changed");
    cr_assert_eq(a.c.events, b.c.events);
    rc_result_free(&a);
    rc_result_free(&b);
}

Test(adversary, bad_combinations_are_usage_errors)
{
    rc_job j;
    rc_job_defaults(&j);
    rc_err err = {0};
    j.adversary_fraction = 0.1;
    cr_assert_eq(rc_job_validate(&j, &err), RC_EXIT_USAGE);
    cr_assert_not_null(strstr(err.msg, "adversary_fraction"), "%s", err.msg);
    j.adversary = RC_ADV_DELAY;
    j.adversary_delay_s = 0;
    err = (rc_err){0};
    cr_assert_eq(rc_job_validate(&j, &err), RC_EXIT_USAGE);
    cr_assert_not_null(strstr(err.msg, "adversary_delay"), "%s", err.msg);
    err = (rc_err){0};
    cr_assert_eq(rc_param_set_by_name(&j, "adversary", "lazy", &err), RC_EXIT_USAGE);
    err = (rc_err){0};
    cr_assert_eq(rc_param_set_by_name(&j, "adversary-fraction", "1.5", &err), RC_EXIT_USAGE);
    err = (rc_err){0};
    cr_assert_eq(rc_param_set_by_name(&j, "adversary", "ack-drop", &err), 0, "%s", err.msg);
    cr_assert_eq(j.adversary, RC_ADV_ACK_DROP);
}

/* ---------- behaviour on one multicast ---------- */

Test(adversary, drop_stops_the_tree_at_the_adversary_without_ft)
{
    rc_job j;
    base7(&j, "rc-k1-p1");
    put_adversary_at(&j, RC_ADV_DROP, 1);
    rc_result r;
    one_multicast(&j, &r, NULL);
    /* it received (and delivered to itself) but its subtree {3, 5} did not */
    cr_assert_eq(r.c.undelivered, 2, "%llu undelivered, want positions 3 and 5",
                 (unsigned long long)r.c.undelivered);
    cr_assert(missed(&j, &r, 3) && missed(&j, &r, 5) && !missed(&j, &r, 1));
    cr_assert_eq(r.c.adv_withheld, 2);
    cr_assert_eq(r.c.adv_acks_withheld, 1, "paper model ACKs always; the drop member's is withheld");
    /* copies that left: source -> 1, 2, 4 and 2 -> 6 */
    cr_assert_eq(r.c.payload_packets, 4, "%llu payload packets", (unsigned long long)r.c.payload_packets);
    rc_result_free(&r);
}

Test(adversary, drop_is_detected_by_ft_which_reassigns_the_role)
{
    rc_job j;
    base7(&j, "rc-k1-p1-ft");
    put_adversary_at(&j, RC_ADV_DROP, 1);
    rc_result r;
    one_multicast(&j, &r, NULL);
    cr_assert_eq(r.c.undelivered, 0, "%llu undelivered", (unsigned long long)r.c.undelivered);
    cr_assert_geq(r.c.reassignments, 1);
    cr_assert_geq(r.c.adv_acks_withheld, 1);
    rc_result_free(&r);
}

Test(adversary, ack_drop_fools_ft_which_does_not_reassign)
{
    rc_job j;
    base7(&j, "rc-k1-p1-ft");
    put_adversary_at(&j, RC_ADV_ACK_DROP, 1);
    rc_result r;
    one_multicast(&j, &r, NULL);
    /* The fake ACK clears the adversary's own timeout; its children are
     * leaves, whose timeouts are not retried (docs/spec.md §2.4). */
    cr_assert_eq(r.c.reassignments, 0, "%llu reassignments", (unsigned long long)r.c.reassignments);
    cr_assert_eq(r.c.undelivered, 2);
    cr_assert(missed(&j, &r, 3) && missed(&j, &r, 5));
    cr_assert_eq(r.c.adv_acks_faked, 1);
    cr_assert_eq(r.c.adv_withheld, 2);
    cr_assert_eq(r.c.timeouts, 2, "the two leaves' timeouts fire: %llu",
                 (unsigned long long)r.c.timeouts);
    rc_result_free(&r);
}

Test(adversary, anti_entropy_recovers_what_ack_drop_withheld)
{
    rc_job j;
    base7(&j, "rc-k1-p1-ft");
    put_adversary_at(&j, RC_ADV_ACK_DROP, 1);
    j.gossip_interval_s = 30;
    rc_result r;
    one_multicast(&j, &r, NULL);
    cr_assert_eq(r.c.undelivered, 0, "%llu undelivered with anti-entropy",
                 (unsigned long long)r.c.undelivered);
    cr_assert_geq(r.c.repairs, 2, "positions 3 and 5 must be repaired: %llu",
                  (unsigned long long)r.c.repairs);
    rc_result_free(&r);
}

Test(adversary, delay_holds_the_subtree_back_by_d)
{
    rc_job j;
    base7(&j, "rc-k1-p1");
    put_adversary_at(&j, RC_ADV_DELAY, 1);
    j.adversary_delay_s = 600;
    rc_result r;
    one_multicast(&j, &r, NULL);
    cr_assert_eq(r.c.undelivered, 0);
    /* forwards to 3 and 5, and the ACK (paper model), each held 600 s */
    cr_assert_eq(r.c.adv_delayed, 3, "%llu delayed", (unsigned long long)r.c.adv_delayed);
    uint64_t late = 0, early = 0;
    for (size_t b = 0; b < RC_HIST_BINS; b++) {
        if (rc_hist_edge(b) >= 500) late += r.hist_all[b];
        else if (b + 1 < RC_HIST_BINS && rc_hist_edge(b + 1) <= 100) early += r.hist_all[b];
    }
    cr_assert_eq(late, 2, "%llu deliveries after 500 s, want the subtree of 1",
                 (unsigned long long)late);
    cr_assert_eq(early, 4, "%llu deliveries within 100 s", (unsigned long long)early);
    cr_assert_geq(r.all.max_s, 600, "the last delivery came after %g s", r.all.max_s);
    rc_result_free(&r);
}

Test(adversary, a_source_is_honest_even_when_everyone_misbehaves)
{
    rc_job j;
    base7(&j, "rc-k1-p1");
    j.adversary = RC_ADV_DROP;
    j.adversary_fraction = 1;
    rc_result r;
    one_multicast(&j, &r, NULL);
    /* the source's own copies reach 1, 2 and 4; nobody forwards */
    cr_assert_eq(r.c.deliveries, 3, "%llu deliveries", (unsigned long long)r.c.deliveries);
    cr_assert_eq(r.c.adv_members, 7);
    cr_assert_eq(r.c.adv_withheld, 3, "1 withholds 3 and 5, 2 withholds 6: %llu",
                 (unsigned long long)r.c.adv_withheld);
    rc_result_free(&r);
}

/* ---------- whole runs ---------- */

Test(adversary, unicast_has_nothing_to_withhold)
{
    rc_job j;
    rc_job_defaults(&j);
    j.users = 32;
    j.duration_s = 1800;
    rc_result a = run(&j);
    j.adversary = RC_ADV_DROP;
    j.adversary_fraction = 0.5;
    rc_result b = run(&j);
    cr_assert_eq(b.c.adv_members, 16);
    cr_assert_eq(b.c.adv_withheld, 0);
    cr_assert_eq(memcmp(&a.online, &b.online, sizeof a.online), 0,
                 "unicast latencies changed with adversaries");
    rc_result_free(&a);
    rc_result_free(&b);
}

Test(adversary, losses_grow_with_the_fraction_without_ft)
{
    /* RC without timeouts, online: each withholding member costs its subtree,
     * so losses rise with f and what is lost is at least what was withheld. */
    rc_job j;
    rc_job_defaults(&j);
    j.users = 64;
    j.duration_s = 3600;
    strcpy(j.strategy, "rc-k2-p2");
    j.adversary = RC_ADV_DROP;
    uint64_t prev = 0;
    double fs[] = {0.05, 0.2, 0.5};
    for (int i = 0; i < 3; i++) {
        j.adversary_fraction = fs[i];
        rc_result r = run(&j);
        cr_assert_geq(r.c.undelivered, r.c.adv_withheld, "f=%g: %llu lost < %llu withheld", fs[i],
                      (unsigned long long)r.c.undelivered, (unsigned long long)r.c.adv_withheld);
        cr_assert_gt(r.c.undelivered, prev, "f=%g: %llu lost, not more than %llu", fs[i],
                     (unsigned long long)r.c.undelivered, (unsigned long long)prev);
        prev = r.c.undelivered;
        rc_result_free(&r);
    }
}
