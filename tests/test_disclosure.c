/* The long-term observer's estimators (src/anon/disclosure.c, docs/spec.md §11):
 * the ranking metrics on cases by hand; planted cases with a known answer; and the
 * textbook statistical disclosure attack against a threshold mix with uniform
 * background traffic, whose rounds are generated here and fed to the observer
 * directly, against the closed-form number of rounds (docs/spec.md §11.4). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "anon/disclosure.h"
#include "core/rng.h"

Test(disclosure, auc_and_top_m_by_hand)
{
    double s[4] = {3, 2, 2, 1}, work[4];
    bool mem[4] = {true, false, true, false};
    /* pairs (member, non-member): 3>2, 3>1, 2=2 (1/2), 2>1 */
    cr_assert_float_eq(rc_disc_auc(s, mem, 4), 3.5 / 4, 1e-12);
    /* top 2: user 0 for sure, then one of the two tied at 2 (one a member) */
    cr_assert_float_eq(rc_disc_top_m_precision(s, mem, 4, 2, work), 0.75, 1e-12);
    double flat[4] = {0, 0, 0, 0};
    cr_assert_float_eq(rc_disc_auc(flat, mem, 4), 0.5, 1e-12);
    cr_assert_float_eq(rc_disc_top_m_precision(flat, mem, 4, 2, work), 0.5, 1e-12);
}

/* n users on one provider (corrupted or not), all online from 0. */
static rc_disc *make(uint32_t n, double corrupt, rc_time window)
{
    uint32_t *prov = calloc(n, sizeof *prov);
    rc_disc_cfg cfg = {1, n, 1, prov, corrupt, window};
    rc_disc *d = rc_disc_new(&cfg);
    free(prov);
    return d;
}

static void start_all_online(rc_disc *d, uint32_t n)
{
    bool *on = malloc(n * sizeof *on);
    for (uint32_t u = 0; u < n; u++) on[u] = true;
    rc_disc_start(d, on);
    free(on);
}

/* Planted: members 0 and 1 receive a copy one second after each multicast of
 * the other; users 2..9 receive at random times far from the windows. */
Test(disclosure, planted_membership_and_source)
{
    enum { N = 10 };
    rc_disc *d = make(N, 1.0, 5000000);
    rc_disc_member(d, 0);
    rc_disc_member(d, 1);
    start_all_online(d, N);
    for (int k = 0; k < 40; k++) {
        rc_time t = (rc_time)k * 100000000; /* every 100 s */
        uint32_t src = (uint32_t)(k % 2);
        rc_disc_multicast(d, src, t);
        rc_disc_arrived(d, 1 - src, t + 1000000);
        rc_disc_arrived(d, 2 + (uint32_t)(k % 8), t + 50000000);
    }
    rc_disc_summary s;
    rc_disc_finish(d, (rc_time)40 * 100000000, &s);
    cr_assert_eq(s.multicasts, 40);
    cr_assert_eq(s.corrupt_providers, 1);
    cr_assert_float_eq(s.membership_auc, 1.0, 1e-12);
    cr_assert_float_eq(s.membership_precision, 1.0, 1e-12);
    cr_assert_float_eq(s.membership_recall, 1.0, 1e-12);
    /* member 0 first receives in the second multicast's window */
    cr_assert_float_eq(s.multicasts_to_90, 2.0, 1e-12);
    /* the source is the member that received nothing: learned after a few */
    cr_assert_gt(s.source_top1, 0.9, "top1 %g", s.source_top1);
    size_t nc;
    const rc_disc_point *c = rc_disc_curve(d, &nc);
    cr_assert_geq(nc, 40);
    cr_assert_eq(c[nc - 1].multicasts, 40);
    rc_disc_free(d);
}

/* Nothing observed (no corrupted provider, everyone always online): every
 * score ties, so the AUC is 1/2 and the top m hold m/n members in expectation;
 * a fan-out request seen by a corrupted provider settles its multicast's source. */
Test(disclosure, blind_and_fanout)
{
    enum { N = 20 };
    rc_disc *d = make(N, 0.0, 5000000);
    for (uint32_t u = 0; u < 4; u++) rc_disc_member(d, u);
    start_all_online(d, N);
    for (int k = 0; k < 10; k++) {
        rc_time t = (rc_time)k * 10000000;
        rc_disc_multicast(d, (uint32_t)k % 4, t);
        for (uint32_t u = 0; u < N; u++) rc_disc_arrived(d, u, t + 1000 * u);
    }
    rc_disc_summary s;
    rc_disc_finish(d, 100000000, &s);
    cr_assert_float_eq(s.membership_auc, 0.5, 1e-12);
    cr_assert_float_eq(s.membership_precision, 4.0 / N, 1e-12);
    cr_assert(isnan(s.multicasts_to_90));
    cr_assert_float_eq(s.source_top1, 0.25, 1e-12);
    cr_assert_float_eq(s.source_entropy_bits, 2.0, 1e-12);
    rc_disc_free(d);

    d = make(N, 1.0, 5000000);
    for (uint32_t u = 0; u < 4; u++) rc_disc_member(d, u);
    start_all_online(d, N);
    for (int k = 0; k < 10; k++) {
        rc_time t = (rc_time)k * 10000000;
        rc_disc_multicast(d, (uint32_t)k % 4, t);
        /* the request reaches the provider after the window for the last few */
        rc_disc_relay(d, (uint32_t)k % 4, t + (k < 7 ? 1000 : 7000000));
    }
    rc_disc_finish(d, 100000000, &s);
    cr_assert_float_eq(s.source_top1, 1.0, 1e-12);
    cr_assert_float_eq(s.source_entropy_bits, 0.0, 1e-12);
    cr_assert_float_eq(s.membership_precision, 1.0, 1e-12); /* the request lists the members */
    rc_disc_free(d);
}

/* ---------- the textbook statistical disclosure attack ----------
 *
 * A threshold mix of batch b over N recipients: in Alice's rounds she sends
 * one message to one of her m contacts (uniform) and b-1 other senders one
 * each to uniform recipients; every other round is b background messages.
 * The adversary sees each round's recipients and knows Alice's rounds (the
 * triggers).  Mathewson and Dingledine (2004, §2) give the rounds of Alice's
 * after which the contacts stand l standard deviations above the others:
 *   t = [ m l ( sqrt(s2) + sqrt(s2 + (m-1)/m^2) ) ]^2,  s2 = (N-1)/N^2 (b-1)
 * (derived in docs/spec.md §11.4); at l = 2 the top m should be the contacts. */
static double closed_form(double N, double m, double b, double l)
{
    double s2 = (N - 1) / (N * N) * (b - 1);
    double x = m * l * (sqrt(s2) + sqrt(s2 + (m - 1) / (m * m)));
    return x * x;
}

/* Rounds 1 s apart, Alice's every other one; returns multicasts_to_90 and the
 * precision after `early` of Alice's rounds. */
static double textbook(uint64_t seed, uint32_t N, uint32_t m, uint32_t b, uint32_t rounds,
                       uint32_t early, double *prec_early)
{
    rc_disc *d = make(N + 1, 1.0, 500000); /* user N is Alice */
    for (uint32_t i = 0; i < m; i++) rc_disc_member(d, i); /* her contacts: 0 .. m-1 */
    start_all_online(d, N + 1);
    gsl_rng *r = rc_rng_new(seed, 7);
    rc_time t = 0;
    for (uint32_t k = 0; k < rounds; k++) {
        /* Alice's round */
        rc_disc_multicast(d, N, t);
        rc_disc_arrived(d, rc_rng_below(r, m), t + 1);
        for (uint32_t j = 1; j < b; j++) rc_disc_arrived(d, rc_rng_below(r, N), t + 1);
        t += 1000000;
        /* a round without her */
        for (uint32_t j = 0; j < b; j++) rc_disc_arrived(d, rc_rng_below(r, N), t + 1);
        t += 1000000;
    }
    rc_disc_summary s;
    rc_disc_finish(d, t, &s);
    size_t nc;
    const rc_disc_point *c = rc_disc_curve(d, &nc);
    *prec_early = NAN;
    for (size_t i = 0; i < nc; i++)
        if (c[i].multicasts <= early) *prec_early = c[i].precision;
    rc_rng_free(r);
    rc_disc_free(d);
    return s.multicasts_to_90;
}

Test(disclosure, textbook_sda_within_the_closed_form)
{
    const uint32_t N = 200, m = 10, b = 20;
    double tstar = closed_form(N, m, b, 2.0); /* 217 rounds */
    cr_assert(tstar > 200 && tstar < 230, "t* = %g", tstar);
    int reached = 0;
    double early_sum = 0;
    const int seeds = 20;
    for (int sd = 1; sd <= seeds; sd++) {
        double pe;
        double to90 = textbook((uint64_t)sd, N, m, b, (uint32_t)(2 * tstar), (uint32_t)(tstar / 8), &pe);
        if (!isnan(to90) && to90 <= tstar) reached++;
        early_sum += pe;
    }
    /* Within t* in (nearly) every trial, and far from it an eighth of the way. */
    cr_assert_geq(reached, seeds - 1, "reached 0.9 within t* = %.0f in %d of %d", tstar, reached,
                  seeds);
    cr_assert_lt(early_sum / seeds, 0.75, "precision after t*/8: %g", early_sum / seeds);
}
