/* until_plan: which seeds each configuration of a `seeds: until` sweep runs next, replayed
 * from the finished jobs only (docs/sweep-format.md, "Seeds until narrow"), and the outcome line
 * recorded in the results.  Kept apart from until.c (the rule and its interval), which the
 * sweep file's reader calls, so that the reader does not depend on the sweep it builds. */
#include "exp/until.h"
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/log.h"
#include "exp/job.h"
#include "exp/sweep.h"

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
