/* Bandwidth and unobservability accounting (loopix/traffic.c, docs/spec.md §1.12),
 * through the whole job (exp/run): the counts must agree with the configured
 * stream rates, with the multicast layer's own packet counters and with each
 * other, in both cover modes and both models. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "exp/job.h"
#include "exp/run.h"

static rc_result run(const char *strategy, rc_model model, bool full, double app_rate,
                     double lambda_div, int users, double duration_s)
{
    rc_job j;
    rc_job_defaults(&j);
    j.users = users;
    j.group_size = users - users / 5; /* a fifth of the users are in no group: idle */
    j.duration_s = duration_s;
    j.app_rate = app_rate;
    j.model = model;
    j.lambda_div = lambda_div;
    j.cover = full ? RC_COVER_FULL : RC_COVER_SKIP;
    j.seed = 7;
    strcpy(j.strategy, strategy);
    rc_result r;
    rc_err err = {0};
    cr_assert_eq(rc_run_job(&j, &r, NULL, NULL, &err), 0, "%s", err.msg);
    return r;
}

/* |x - want| within `sd` standard deviations of a Poisson count of mean
 * want * exposure (x is a rate over `exposure`). */
static void near_poisson(double x, double want, double exposure, double sd, const char *what)
{
    double tol = sd * sqrt(want / exposure);
    cr_assert(fabs(x - want) <= tol, "%s: %.5f, expected %.5f +- %.5f", what, x, want, tol);
}

/* The paper's lattice: a stream of rate lambda fires F(lambda)/tick per second. */
static double lattice_rate(double lambda) { return -expm1(-lambda * 0.01) / 0.01; }

/* Without traffic every slot is cover: the measured cover rate is the
 * configured one (6 /s x p / lambda_div), the payload rate 0; every mix
 * receives its share of the clients' sub-messages plus the mix loops. */
Test(traffic, cover_rate_is_the_configured_rate_without_traffic)
{
    rc_result r = run("rc-k2-p2", RC_MODEL_EXACT, true, 0, 2, 32, 1800);
    double exposure = r.c.bw_online_client_s;
    cr_assert_float_eq(exposure, 32 * 1800.0, 1e-6);
    cr_assert_eq(r.c.bw_payload_pps, 0);
    near_poisson(r.c.bw_cover_pps, 6.0 * 2 / 2, exposure, 5, "cover pps");
    cr_assert_eq(r.c.bw_cover_used, 0);
    /* 9 mixes; each of 3 layers carries every sub-message once; mix loops
     * (lambda_M / 2 = 1 /s per mix) visit one mix per layer */
    double want_mix = 6.0 * 32 / 3 + 1.0 * 3;
    near_poisson(r.c.bw_mix_load_mean_pps, want_mix, 9 * 1800.0, 8, "mix load mean");
    cr_assert_geq(r.c.bw_mix_load_max_pps, r.c.bw_mix_load_mean_pps);
    cr_assert_lt(r.c.bw_mix_load_max_pps, want_mix * 1.05, "max mix load %.2f",
                 r.c.bw_mix_load_max_pps);
    cr_assert_float_eq(r.c.bw_bytes_per_client_s, r.c.bw_cover_pps * 2048, 1e-6);
    /* members and idle users leave at the bundle rate 6/2 /s */
    cr_assert_gt(r.c.unobs_active_gaps, 3 * r.c.unobs_idle_gaps);
    near_poisson(r.c.unobs_idle_rate_pps, 3.0, (double)r.c.unobs_idle_gaps / 3, 5, "idle rate");
    near_poisson(r.c.unobs_active_rate_pps, 3.0, (double)r.c.unobs_active_gaps / 3, 5,
                 "active rate");
    cr_assert_eq(r.c.unobs_real_per_pull_mean, 0);
    cr_assert_eq(r.c.unobs_real_per_pull_max, 0);
    rc_result_free(&r);
}

/* With traffic: the payload rate is what the multicast layer counted, the
 * payload and cover rates fill the configured slots, and the real share of
 * the payload slots is the payload rate over the payload stream's rate. */
static void with_traffic(const char *strategy, rc_model model, bool full, int p)
{
    rc_result r = run(strategy, model, full, 0.2, 1, 32, 1800);
    double exposure = r.c.bw_online_client_s;
    uint64_t real = r.c.payload_packets + r.c.ack_packets + r.c.repair_packets;
    cr_assert_gt(real, 1000, "%s: %llu real packets", strategy, (unsigned long long)real);
    cr_assert_float_eq(r.c.bw_payload_pps * exposure, (double)real, 1e-6 * (double)real,
                       "%s: payload pps x online time %.1f != %llu sub-messages", strategy,
                       r.c.bw_payload_pps * exposure, (unsigned long long)real);
    double per = model == RC_MODEL_PAPER ? 3 * lattice_rate(2.0 * p) : 6.0 * p;
    double pay = model == RC_MODEL_PAPER ? lattice_rate(2.0 * p) : 2.0 * p;
    near_poisson(r.c.bw_payload_pps + r.c.bw_cover_pps, per, exposure, 5, "all slots");
    cr_assert_float_eq(r.c.bw_cover_used, r.c.bw_payload_pps / pay, 0.02 * r.c.bw_cover_used,
                       "%s: cover_used %.4f, payload pps / payload rate %.4f", strategy,
                       r.c.bw_cover_used, r.c.bw_payload_pps / pay);
    /* a provider hands out every real message (but those still in flight) to
     * the members (26 of 32 users, always online: 26 pulls a second) */
    cr_assert_float_eq(r.c.bw_online_client_s, 32 * 1800.0, 1e-6);
    double pulled = r.c.unobs_real_per_pull_mean * 26 * 1800.0;
    cr_assert(pulled <= (double)real + 1e-6 && pulled >= 0.97 * (double)real,
              "%s: %.0f pulled of %llu sent", strategy, pulled, (unsigned long long)real);
    cr_assert_geq(r.c.unobs_real_per_pull_max, 1);
    if (full) {
        /* counted, and the count matches the slots the streams fired */
        near_poisson((double)r.c.payload_slots / exposure, pay, exposure, 5, "payload slots");
        cr_assert_gt(r.c.unobs_active_gaps, 100, "%s", strategy);
        cr_assert_gt(r.c.unobs_idle_gaps, 100, "%s", strategy);
        /* Loopix's claim: a member's departure process is an idle user's
         * (tolerances: about 5 sd) */
        double bundles = per / p;
        near_poisson(r.c.unobs_idle_rate_pps, bundles,
                     (double)r.c.unobs_idle_gaps / bundles, 5, "idle rate");
        near_poisson(r.c.unobs_active_rate_pps, bundles,
                     (double)r.c.unobs_active_gaps / bundles, 5, "active rate");
        cr_assert_lt(r.c.unobs_ks, 1.4 * r.c.unobs_ks_crit05, "%s: KS %.4f (5 %% crit %.4f)",
                     strategy, r.c.unobs_ks, r.c.unobs_ks_crit05);
        cr_assert_geq(r.c.bw_mix_load_max_pps, r.c.bw_mix_load_mean_pps);
    } else {
        cr_assert(isnan(r.c.unobs_ks) && isnan(r.c.bw_mix_load_max_pps));
    }
    rc_result_free(&r);
}

Test(traffic, unicast_exact_full) { with_traffic("unicast", RC_MODEL_EXACT, true, 1); }
Test(traffic, rc_paper_full) { with_traffic("rc-k2-p2-ft", RC_MODEL_PAPER, true, 2); }
Test(traffic, rc_exact_skip) { with_traffic("rc-k4-p4", RC_MODEL_EXACT, false, 4); }
Test(traffic, unicast_paper_skip) { with_traffic("unicast", RC_MODEL_PAPER, false, 1); }

/* Skip and full are one model: the bandwidth figures agree (the skip mode's
 * cover figures are expectations, the full mode's counts). */
Test(traffic, skip_and_full_agree)
{
    rc_result a = run("rc-k2-p2", RC_MODEL_EXACT, false, 0.2, 1, 32, 1800);
    rc_result b = run("rc-k2-p2", RC_MODEL_EXACT, true, 0.2, 1, 32, 1800);
    double exposure = a.c.bw_online_client_s;
    near_poisson(b.c.bw_cover_pps, a.c.bw_cover_pps, exposure, 6, "cover pps, full vs skip");
    near_poisson(b.c.bw_mix_load_mean_pps, a.c.bw_mix_load_mean_pps, 9 * 1800.0, 8,
                 "mix load, full vs skip");
    rc_result_free(&a);
    rc_result_free(&b);
}

/* Online time follows the trace: an availability trace lowers it, and the
 * per-client rates stay per online second. */
Test(traffic, online_time_follows_forced_offline)
{
    rc_job j;
    rc_job_defaults(&j);
    j.users = 16;
    j.duration_s = 600;
    j.app_rate = 0;
    j.cover = RC_COVER_FULL;
    strcpy(j.offline_members, "0,1,2,3");
    rc_result r;
    rc_err err = {0};
    cr_assert_eq(rc_run_job(&j, &r, NULL, NULL, &err), 0, "%s", err.msg);
    cr_assert_float_eq(r.c.bw_online_client_s, 12 * 600.0, 1e-6);
    near_poisson(r.c.bw_cover_pps, 6.0, r.c.bw_online_client_s, 5, "cover pps");
    rc_result_free(&r);
}

/* 32 users (26 in the group), 15 min, --cover full, with or without the
 * observed wire (--anonymity on, 20 tracked messages). */
static rc_result run_full(const char *strategy, bool observed)
{
    rc_job j;
    rc_job_defaults(&j);
    j.users = 32;
    j.group_size = 26;
    j.duration_s = 900;
    j.app_rate = 0.2;
    j.cover = RC_COVER_FULL;
    j.anonymity = observed;
    j.anon_targets = 20;
    strcpy(j.strategy, strategy);
    rc_result r;
    rc_err err = {0};
    cr_assert_eq(rc_run_job(&j, &r, NULL, NULL, &err), 0, "%s", err.msg);
    return r;
}

/* With the adversary observing (--anonymity on), the wire routes every
 * bundle with its covers inside and chooses the mixes itself (loopix/wire.c);
 * the accounting follows it and must tell the same story as --cover full. */
Test(traffic, observed_wire_counts_like_cover_full)
{
    rc_result r[2];
    for (int w = 0; w < 2; w++) r[w] = run_full("rc-k2-p2", w == 1);
    double exposure = r[0].c.bw_online_client_s;
    cr_assert_float_eq(r[1].c.bw_online_client_s, exposure, 1e-9);
    /* the streams are the same draws: the slot counts agree exactly */
    cr_assert_eq(r[1].c.payload_slots, r[0].c.payload_slots);
    cr_assert_float_eq(r[1].c.bw_cover_pps + r[1].c.bw_payload_pps,
                       r[0].c.bw_cover_pps + r[0].c.bw_payload_pps, 1e-9);
    near_poisson(r[1].c.bw_mix_load_mean_pps, r[0].c.bw_mix_load_mean_pps, 9 * 900.0, 6,
                 "mix load, observed vs full");
    cr_assert_geq(r[1].c.bw_mix_load_max_pps, r[1].c.bw_mix_load_mean_pps);
    cr_assert_lt(r[1].c.bw_mix_load_max_pps, 1.05 * r[1].c.bw_mix_load_mean_pps);
    cr_assert_eq(r[1].c.unobs_active_gaps, r[0].c.unobs_active_gaps);
    cr_assert_eq(r[1].c.unobs_idle_gaps, r[0].c.unobs_idle_gaps);
    cr_assert_gt(r[1].c.unobs_idle_gaps, 1000);
    for (int w = 0; w < 2; w++) rc_result_free(&r[w]);
}

/* Provider fan-out: the source's one packet to its own provider is a real
 * packet on its link like any other, counted with or without the observed wire
 * (it once counted as neither real nor cover: bw_payload_pps read 0). */
Test(traffic, provider_fanout_counts_the_sources_packet)
{
    for (int w = 0; w < 2; w++) {
        rc_result r = run_full("provider-fanout", w == 1);
        double sent = r.c.bw_payload_pps * r.c.bw_online_client_s;
        cr_assert_gt(r.c.multicasts, 100);
        /* one packet a multicast; a few may still wait in a send queue at the end */
        cr_assert(sent <= (double)r.c.multicasts + 1e-6 && sent >= 0.97 * (double)r.c.multicasts,
                  "anonymity %d: %.1f real packets for %llu multicasts", w, sent,
                  (unsigned long long)r.c.multicasts);
        cr_assert_gt(r.c.bw_cover_used, 0);
        rc_result_free(&r);
    }
}
