#include "exp/until.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "exp/job.h"

int rc_until_parse_rule(const char *text, rc_until *u, char *why, size_t n)
{
    char stat[32], what[32], op[8], extra[8];
    double x;
    int k = sscanf(text, "%31s %31s %7s %lf %7s", stat, what, op, &x, extra);
    if (k != 4 || strcmp(what, "rel_halfwidth") != 0 || strcmp(op, "<") != 0) {
        snprintf(why, n, "'%s' is not a rule like \"p99 rel_halfwidth < 0.05\"", text);
        return -1;
    }
    u->stat = -2;
    if (!strcmp(stat, "mean")) u->stat = -1;
    for (int i = 0; i < RC_SUMMARY_QUANTILES; i++)
        if (!strcmp(stat, rc_summary_q_names[i])) u->stat = i;
    if (u->stat == -2) {
        snprintf(why, n, "'%s': unknown statistic '%s' (expected mean, p1, p5, p10, p25, p50, "
                 "p75, p90, p95, p99 or p99.9 of the online latency)", text, stat);
        return -1;
    }
    if (!(x > 0 && x < 1)) {
        snprintf(why, n, "'%s': the target %g is not between 0 and 1 (a relative half-width)",
                 text, x);
        return -1;
    }
    u->target = x;
    snprintf(u->rule, sizeof u->rule, "%s rel_halfwidth < %g", stat, x);
    return 0;
}

int rc_until_set_counts(rc_until *u, long min, long max, long step, const char *name_min,
                        const char *name_max, char *why, size_t n)
{
    if (min < RC_UNTIL_MIN_SEEDS) {
        snprintf(why, n, "%s: %ld is below %d, the fewest seeds an interval is computed from "
                 "(docs/analysis.md)", name_min, min, RC_UNTIL_MIN_SEEDS);
        return -1;
    }
    if (max < min) {
        snprintf(why, n, "%s: %ld is below %s (%ld)", name_max, max, name_min, min);
        return -1;
    }
    u->min = (unsigned)min;
    u->max = (unsigned)max;
    u->step = step > 0 ? (unsigned)step : (unsigned)min;
    return 0;
}

int rc_until_from_options(const char *rule, const long counts[3], const char *const *sets,
                          size_t n_sets, rc_until *u, char *why, size_t n)
{
    static const char *const names[3] = {"--min-seeds", "--max-seeds", "--seed-step"};
    if (rule == NULL) {
        for (int i = 0; i < 3; i++)
            if (counts[i] != 0) {
                snprintf(why, n, "%s needs --until RULE", names[i]);
                return -1;
            }
        return 0;
    }
    for (size_t i = 0; i < n_sets; i++)
        if (!strncmp(sets[i], "seed=", 5)) {
            snprintf(why, n, "--until and --set %s both choose the seeds; give one", sets[i]);
            return -1;
        }
    char msg[300];
    if (rc_until_parse_rule(rule, u, msg, sizeof msg) != 0) {
        snprintf(why, n, "--until: %s", msg);
        return -1;
    }
    if (counts[1] == 0) {
        snprintf(why, n, "--until needs --max-seeds N (the most seeds a configuration gets)");
        return -1;
    }
    long min = counts[0] ? counts[0] : RC_UNTIL_MIN_SEEDS;
    if (rc_until_set_counts(u, min, counts[1], counts[2], names[0], names[1], why, n) != 0)
        return -1;
    return 1;
}

double rc_until_value(const rc_until *u, const rc_summary *online)
{
    if (online->count == 0) return NAN;
    return u->stat < 0 ? online->mean_s : online->q[u->stat];
}

/* Two-sided 95 % Student t quantiles for 1..30 degrees of freedom, then the
 * normal value: the table of the analysis (rcplot/stats.py), so that the
 * runner stops on the interval every view shows, to the last digit. */
static const double t95_table[30] = {
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

size_t rc_until_interval(const double *v, size_t n, double *est, double *lo, double *hi,
                         double *rel)
{
    double *l = rc_xmalloc((n ? n : 1) * sizeof *l);
    size_t m = 0;
    double mn = INFINITY, mx = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) continue;
        if (v[i] <= 0) { /* not a positive statistic: the analysis would not use log-t */
            free(l);
            *est = *lo = *hi = NAN;
            *rel = INFINITY;
            return 0;
        }
        l[m++] = log(v[i]);
        if (v[i] < mn) mn = v[i];
        if (v[i] > mx) mx = v[i];
    }
    *est = *lo = *hi = NAN;
    *rel = INFINITY;
    if (m > 0) {
        double lm = gsl_stats_mean(l, 1, m);
        *est = exp(lm);
        if (m < RC_UNTIL_MIN_SEEDS) {
            *lo = mn;
            *hi = mx;
        } else {
            double t = m - 1 <= 30 ? t95_table[m - 2] : 1.960;
            double half = t * gsl_stats_sd_m(l, 1, m, lm) / sqrt((double)m);
            *lo = exp(lm - half);
            *hi = exp(lm + half);
        }
        if (m >= 2) *rel = (*hi - *lo) / (2 * *est);
    }
    free(l);
    return m;
}
