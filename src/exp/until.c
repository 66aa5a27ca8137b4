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

typedef struct keyed {
    uint64_t key;
    size_t index;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_first(const void *a, const void *b)
{
    const rc_until_config *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

rc_until_config *rc_until_plan(const rc_until *u, const rc_sweep *sw, const bool *done,
                               const double *value, bool *active, size_t *n_out)
{
    size_t n = rc_sweep_count(sw);
    /* A configuration is a job without its seed: jobs with equal ids at seed 0. */
    keyed *k = rc_xmalloc((n ? n : 1) * sizeof *k);
    for (size_t i = 0; i < n; i++) {
        rc_job j = *rc_sweep_job(sw, i);
        j.seed = 0;
        k[i] = (keyed){rc_job_id(&j), i};
        active[i] = false;
    }
    qsort(k, n, sizeof *k, cmp_keyed);
    rc_until_config *cs = rc_xcalloc(n ? n : 1, sizeof *cs);
    double *vals = rc_xmalloc((u->max ? u->max : 1) * sizeof *vals);
    size_t nc = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && k[b].key == k[a].key) b++;
        /* k[a..b): one configuration's jobs in sweep (seed list) order. */
        size_t have = b - a, want = have < u->min ? have : u->min;
        rc_until_config *c = &cs[nc++];
        *c = (rc_until_config){.first = k[a].index, .est = NAN, .rel = NAN};
        for (;;) {
            bool all = true;
            for (size_t s = 0; s < want; s++) all = all && done[k[a + s].index];
            if (!all) {
                c->state = RC_UNTIL_RUNNING;
                break;
            }
            double lo, hi;
            for (size_t s = 0; s < want; s++) vals[s] = value[k[a + s].index];
            rc_until_interval(vals, want, &c->est, &lo, &hi, &c->rel);
            if (c->rel < u->target) {
                c->state = RC_UNTIL_NARROW;
                break;
            }
            if (want >= have) {
                c->state = RC_UNTIL_MAX;
                break;
            }
            want = want + u->step < have ? want + u->step : have;
        }
        c->seeds = want;
        for (size_t s = 0; s < want; s++) active[k[a + s].index] = true;
        a = b;
    }
    free(vals);
    free(k);
    qsort(cs, nc, sizeof *cs, cmp_first);
    *n_out = nc;
    return cs;
}

char *rc_until_report(const rc_until *u, const rc_sweep *sw, const rc_until_config *c, size_t n)
{
    (void)u;
    static const char *const state[] = {"running", "narrow", "max"};
    size_t cap = 128 + n * 128, used = 0;
    char *s = rc_xmalloc(cap);
    s[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char hex[17];
        rc_job_id_hex(rc_sweep_job_id(sw, c[i].first), hex);
        used += (size_t)snprintf(s + used, cap - used,
                                 "%s seeds=%zu estimate=%.9g rel_halfwidth=%.9g stopped=%s\n", hex,
                                 c[i].seeds, c[i].est, c[i].rel, state[c[i].state]);
    }
    return s;
}
