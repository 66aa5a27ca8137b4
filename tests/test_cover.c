/* --cover full (every cover packet routed through the mixes, no idle-stream
 * skipping) and the default skip mode are the same model: their latency
 * distributions must agree.  Two-sample Kolmogorov–Smirnov tests on
 * independent per-run statistics across seeds (samples within one run are
 * correlated, so pooling them would overstate the evidence). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp/job.h"
#include "exp/run.h"

#define SEEDS 16

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Two-sample KS statistic D. */
static double ks2(double *a, size_t n, double *b, size_t m)
{
    qsort(a, n, sizeof *a, cmp);
    qsort(b, m, sizeof *b, cmp);
    size_t i = 0, j = 0;
    double d = 0;
    while (i < n && j < m) {
        double x = a[i] <= b[j] ? a[i] : b[j];
        while (i < n && a[i] <= x) i++;
        while (j < m && b[j] <= x) j++;
        double diff = fabs((double)i / n - (double)j / m);
        if (diff > d) d = diff;
    }
    return d;
}

static void run_modes(const char *strategy, rc_model model, int p_cover_full, double *mean,
                      double *median, double *p90, uint64_t *mix_packets)
{
    for (int s = 0; s < SEEDS; s++) {
        rc_job j;
        rc_job_defaults(&j);
        j.users = 16;
        j.duration_s = 3600;
        j.app_rate = 0.2; /* more traffic per simulated second: shorter runs */
        j.model = model;
        j.cover = p_cover_full ? RC_COVER_FULL : RC_COVER_SKIP;
        j.seed = 1000 + (uint64_t)s;
        strcpy(j.strategy, strategy);
        rc_result r;
        rc_err err = {0};
        cr_assert_eq(rc_run_job(&j, &r, NULL, NULL, &err), 0, "%s", err.msg);
        mean[s] = r.online.mean_s;
        median[s] = r.online.q[4];
        p90[s] = r.online.q[6];
        *mix_packets += r.c.mix_packets;
        rc_result_free(&r);
    }
}

static void compare(const char *strategy, rc_model model)
{
    double m0[SEEDS], d0[SEEDS], q0[SEEDS], m1[SEEDS], d1[SEEDS], q1[SEEDS];
    uint64_t mix0 = 0, mix1 = 0;
    run_modes(strategy, model, 0, m0, d0, q0, &mix0);
    run_modes(strategy, model, 1, m1, d1, q1, &mix1);
    cr_assert_eq(mix0, 0, "skip mode routed cover packets");
    cr_assert_gt(mix1, 0, "full mode routed no cover packets");
    /* critical value at alpha = 0.001 for n = m = 16: 1.95 * sqrt(2/16) */
    double crit = 1.95 * sqrt(2.0 / SEEDS);
    double dm = ks2(m0, SEEDS, m1, SEEDS), dd = ks2(d0, SEEDS, d1, SEEDS),
           dq = ks2(q0, SEEDS, q1, SEEDS);
    cr_expect_lt(dm, crit, "%s: KS D of per-run means %.3f >= %.3f", strategy, dm, crit);
    cr_expect_lt(dd, crit, "%s: KS D of per-run medians %.3f >= %.3f", strategy, dd, crit);
    cr_expect_lt(dq, crit, "%s: KS D of per-run p90 %.3f >= %.3f", strategy, dq, crit);
}

Test(cover, full_and_skip_agree_unicast_paper) { compare("unicast", RC_MODEL_PAPER); }
Test(cover, full_and_skip_agree_rc_k2_p2_paper) { compare("rc-k2-p2", RC_MODEL_PAPER); }
Test(cover, full_and_skip_agree_rc_k4_p4_exact) { compare("rc-k4-p4", RC_MODEL_EXACT); }
