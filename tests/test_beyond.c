/* Beyond the paper: anti-entropy repairs the case the paper leaves
 * open, and groups can change membership during a run. */
#include <criterion/criterion.h>
#include <string.h>

#include "exp/job.h"
#include "exp/run.h"
#include "multicast/mc.h"

static rc_result run(rc_job *j)
{
    rc_result r;
    rc_err err = {0};
    cr_assert_eq(rc_run_job(j, &r, NULL, NULL, &err), 0, "%s", err.msg);
    return r;
}

static void scenario(rc_job *j, double ae_interval_s)
{
    rc_job_defaults(j);
    j->users = 64;
    j->duration_s = 6 * 3600;
    j->seed = 5;
    strcpy(j->strategy, "rc-k2-p2-ft-dropoffline");
    /* The sender of the first multicast after 1 h goes offline for 3 h right
     * after its first copy has left. */
    strcpy(j->source_offline, "3600:10800");
    j->gossip_interval_s = ae_interval_s;
}

Test(beyond, source_offline_leaves_the_group_waiting_without_reconciliation)
{
    rc_job j;
    scenario(&j, 0);
    rc_result r = run(&j);
    cr_assert_eq(r.c.so_expected, 63);
    cr_assert_eq(r.c.repair_packets, 0);
    /* most members only get it when the source is back, 3 h later */
    cr_assert_gt(r.c.so_latency_max_ms, 10800 * 1000ULL, "max %llu ms",
                 (unsigned long long)r.c.so_latency_max_ms);
    rc_result_free(&r);
}

Test(beyond, reconciliation_repairs_the_source_offline_case)
{
    rc_job j;
    scenario(&j, 30);
    rc_result r = run(&j);
    cr_assert_eq(r.c.so_delivered, r.c.so_expected, "%llu of %llu got the message",
                 (unsigned long long)r.c.so_delivered, (unsigned long long)r.c.so_expected);
    cr_assert_lt(r.c.so_latency_max_ms, 1800 * 1000ULL, "max %llu ms",
                 (unsigned long long)r.c.so_latency_max_ms);
    cr_assert_gt(r.c.repairs, 0, "no payload was delivered by a repair");
    cr_assert_gt(r.c.repair_packets, r.c.repairs, "digests cost packets too");
    rc_result_free(&r);
}

Test(beyond, reconciliation_costs_nothing_in_latency_when_all_is_well)
{
    rc_job a, b;
    scenario(&a, 0);
    scenario(&b, 120);
    a.source_offline[0] = b.source_offline[0] = '\0';
    rc_result ra = run(&a), rb = run(&b);
    cr_assert_eq(ra.c.repairs, 0);
    /* repairs can only win a race; the median barely moves */
    cr_assert(rb.online.q[4] <= ra.online.q[4] * 1.05, "median %g vs %g", rb.online.q[4],
              ra.online.q[4]);
    rc_result_free(&ra);
    rc_result_free(&rb);
}

Test(beyond, membership_changes_deliver_to_members_at_send_time)
{
    const char *names[] = {"unicast", "rc-k2-p2", "rc-k1-p1-ft"};
    for (int s = 0; s < 3; s++) {
        rc_job j;
        rc_job_defaults(&j);
        j.users = 64;
        j.group_size = 32;
        j.duration_s = 6 * 3600;
        j.membership_rate = 0.01; /* a join or leave every 100 s on average */
        strcpy(j.strategy, names[s]);
        rc_result r = run(&j);
        uint64_t changes = r.c.joins + r.c.leaves;
        cr_assert(changes > 150 && changes < 290, "%s: %llu membership changes in 6 h", names[s],
                  (unsigned long long)changes);
        cr_assert_gt(r.c.joins, 0);
        cr_assert_gt(r.c.leaves, 0);
        /* everyone is online: all expected deliveries happen except those
         * censored at the end of the run */
        cr_assert_eq(r.c.deliveries + r.c.undelivered, r.c.expected_deliveries,
                     "%s: %llu + %llu != %llu", names[s], (unsigned long long)r.c.deliveries,
                     (unsigned long long)r.c.undelivered,
                     (unsigned long long)r.c.expected_deliveries);
        cr_assert_lt(r.c.undelivered, 200, "%s: %llu undelivered", names[s],
                     (unsigned long long)r.c.undelivered);
        rc_result_free(&r);
    }
}

/* The scenario options are parsed in one place (exp/job.c): validation reports
 * a bad one naming it, and the multicast layer gets the parsed values. */
Test(beyond, scenario_options_are_parsed_once_for_the_multicast_layer)
{
    rc_job j;
    scenario(&j, 0);
    strcpy(j.offline_members, "3,5");
    rc_err err = {0};
    cr_assert_eq(rc_job_validate(&j, &err), 0, "%s", err.msg);
    rc_mc_cfg c;
    rc_job_mc_cfg(&j, &c);
    cr_assert_eq(c.n_offline, 2);
    cr_assert_eq(c.offline_members[0], 3);
    cr_assert_eq(c.offline_members[1], 5);
    cr_assert(c.source_offline);
    cr_assert_eq(c.source_offline_at_s, 3600.0);
    cr_assert_eq(c.source_offline_for_s, 10800.0);

    const char *bad_offline[] = {"3;5", "x", "-1", "64"};
    for (size_t i = 0; i < sizeof bad_offline / sizeof *bad_offline; i++) {
        rc_err e = {0};
        strcpy(j.offline_members, bad_offline[i]);
        cr_assert_eq(rc_job_validate(&j, &e), RC_EXIT_USAGE, "'%s' passed", bad_offline[i]);
        cr_assert(strstr(e.msg, "offline_members") && strstr(e.msg, bad_offline[i]), "%s", e.msg);
    }
    strcpy(j.offline_members, "");
    const char *bad_so[] = {"3600", "3600:0", "-1:5", "1:2:3"};
    for (size_t i = 0; i < sizeof bad_so / sizeof *bad_so; i++) {
        rc_err e = {0};
        strcpy(j.source_offline, bad_so[i]);
        cr_assert_eq(rc_job_validate(&j, &e), RC_EXIT_USAGE, "'%s' passed", bad_so[i]);
        cr_assert(strstr(e.msg, "source_offline") && strstr(e.msg, bad_so[i]), "%s", e.msg);
    }
    strcpy(j.source_offline, "");
    rc_job_mc_cfg(&j, &c);
    cr_assert_eq(c.n_offline, 0);
    cr_assert(!c.source_offline);
}
