/* A node's finite service (loopix/server.h, docs/spec.md §1.14) against queueing
 * theory: Poisson arrivals at rate lambda into a FIFO server with exponential
 * service at rate mu is M/M/1 (mean sojourn 1/(mu - lambda); an arrival finds n
 * packets with probability (1 - rho) rho^n, by PASTA), and with room for K
 * packets M/M/1/K (an arrival is dropped with probability
 * (1 - rho) rho^K / (1 - rho^(K+1))).
 *
 * Tolerances come from the run length: the estimates are means over one long
 * run, whose samples are correlated, so the standard error is measured by batch
 * means (B batches of consecutive arrivals; their means are close to
 * independent when a batch is much longer than the queue's relaxation time) and
 * the assertion allows 5 standard errors.  For the mean sojourn the batch
 * estimate is also checked against the asymptotic variance of M/M/1's time-
 * average number in system, 2 rho (1 + rho) / (1 - rho)^4 per unit of 1/mu
 * (Whitt 1989), through Little's law. */
#include <criterion/criterion.h>
#include <math.h>

#include "core/rng.h"
#include "loopix/server.h"

#define BATCHES 50

typedef struct run {
    double sojourn[BATCHES], wait[BATCHES], drop[BATCHES];
    double seen[BATCHES][6]; /* share of arrivals that found n = 0..5 */
    double T;                /* simulated time (s) */
} run;

/* N arrivals at rate lam (per second) into a server of rate mu, limit K (0 = none). */
static void simulate(run *r, double lam, double mu, uint32_t K, long N, uint64_t seed)
{
    gsl_rng *a = rc_rng_new(seed, 1), *s = rc_rng_new(seed, 2);
    rc_server srv = {0};
    double t = 0;
    long per = N / BATCHES;
    for (int b = 0; b < BATCHES; b++) {
        double soj = 0, wt = 0, drops = 0, seen[6] = {0};
        long served = 0;
        for (long i = 0; i < per; i++) {
            t += rc_rng_exp(a, 1e6 / lam);
            rc_time now = (rc_time)llround(t);
            rc_time work = rc_round_nonneg(rc_rng_exp(s, 1e6 / mu)), start, leave;
            uint32_t held;
            bool ok = rc_server_arrive(&srv, now, work, K, &start, &leave, &held);
            if (held < 6) seen[held] += 1;
            if (!ok) {
                drops += 1;
                continue;
            }
            served++;
            soj += (double)(leave - now) / 1e6;
            wt += (double)(start - now) / 1e6;
        }
        r->sojourn[b] = soj / (double)served;
        r->wait[b] = wt / (double)served;
        r->drop[b] = drops / (double)per;
        for (int k = 0; k < 6; k++) r->seen[b][k] = seen[k] / (double)per;
    }
    r->T = t / 1e6;
    rc_server_free(&srv);
    rc_rng_free(a);
    rc_rng_free(s);
}

/* Mean and standard error (batch means) of x[0 .. BATCHES-1]. */
static void batch_stats(const double *x, size_t stride, double *mean, double *se)
{
    double m = 0, v = 0;
    for (int b = 0; b < BATCHES; b++) m += x[b * stride];
    m /= BATCHES;
    for (int b = 0; b < BATCHES; b++) v += (x[b * stride] - m) * (x[b * stride] - m);
    *mean = m;
    *se = sqrt(v / (BATCHES - 1) / BATCHES);
}

Test(node_service, mm1_mean_sojourn_and_wait)
{
    double lam = 100, mu = 200, rho = lam / mu;
    static run r;
    simulate(&r, lam, mu, 0, 2000000, 7);
    double m, se;
    batch_stats(r.sojourn, 1, &m, &se);
    double want = 1 / (mu - lam);
    /* the run's own standard error, and the one M/M/1's asymptotic variance gives */
    double se_theory = sqrt(2 * rho * (1 + rho) / pow(1 - rho, 4) / mu / r.T) / lam;
    cr_assert(se < 2 * se_theory && se > se_theory / 2, "batch SE %g vs theory %g", se,
              se_theory);
    cr_assert(fabs(m - want) < 5 * se_theory, "mean sojourn %.6f s, M/M/1 %.6f s (SE %.2g)", m,
              want, se_theory);
    batch_stats(r.wait, 1, &m, &se);
    cr_assert(fabs(m - rho / (mu - lam)) < 5 * se, "mean wait %.6f s, M/M/1 %.6f s (SE %.2g)", m,
              rho / (mu - lam), se);
}

Test(node_service, mm1_queue_length_an_arrival_sees)
{
    double lam = 150, mu = 200, rho = lam / mu;
    static run r;
    simulate(&r, lam, mu, 0, 2000000, 11);
    for (int k = 0; k < 6; k++) {
        double m, se;
        batch_stats(&r.seen[0][k], 6, &m, &se);
        double want = (1 - rho) * pow(rho, k);
        cr_assert(fabs(m - want) < 5 * se, "P(an arrival finds %d) = %.5f, M/M/1 %.5f (SE %.2g)",
                  k, m, want, se);
    }
}

Test(node_service, mm1k_drop_probability)
{
    /* above and below saturation */
    double cases[][3] = {{180, 200, 3}, {300, 200, 5}, {100, 200, 1}};
    for (int c = 0; c < 3; c++) {
        double lam = cases[c][0], mu = cases[c][1], rho = lam / mu;
        int K = (int)cases[c][2];
        static run r;
        simulate(&r, lam, mu, (uint32_t)K, 1000000, 13 + (uint64_t)c);
        double m, se;
        batch_stats(r.drop, 1, &m, &se);
        double want = (1 - rho) * pow(rho, K) / (1 - pow(rho, K + 1));
        cr_assert(fabs(m - want) < 5 * se, "K = %d, rho = %.2f: drops %.5f, M/M/1/K %.5f (SE %.2g)",
                  K, rho, m, want, se);
    }
}

Test(node_service, fifo_and_drop_tail_by_hand)
{
    rc_server s = {0};
    rc_time st, lv;
    uint32_t held;
    /* 10 us of work each, arriving at 0, 1, 2: served one after the other */
    cr_assert(rc_server_arrive(&s, 0, 10, 2, &st, &lv, &held));
    cr_assert(st == 0 && lv == 10 && held == 0);
    cr_assert(rc_server_arrive(&s, 1, 10, 2, &st, &lv, &held));
    cr_assert(st == 10 && lv == 20 && held == 1);
    /* the node holds 2: a third is dropped, and changes nothing */
    cr_assert(!rc_server_arrive(&s, 2, 10, 2, &st, &lv, &held));
    cr_assert(held == 2);
    /* at 10 the first has left (a packet leaving at `now` has left) */
    cr_assert(rc_server_arrive(&s, 10, 5, 2, &st, &lv, &held));
    cr_assert(st == 20 && lv == 25 && held == 1);
    /* an idle server starts at once */
    cr_assert(rc_server_arrive(&s, 100, 0, 2, &st, &lv, &held));
    cr_assert(st == 100 && lv == 100 && held == 0);
    rc_server_free(&s);
}
