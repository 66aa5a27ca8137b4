#include "multicast/population.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/rng.h"

/* Splits "a:b:c" into at most `max` fields (copied into buf); returns the count. */
static int split(const char *text, char *buf, size_t n, char **field, int max)
{
    snprintf(buf, n, "%s", text);
    int k = 0;
    char *p = buf;
    while (k < max) {
        field[k++] = p;
        char *c = strchr(p, ':');
        if (c == NULL) return k;
        *c = '\0';
        p = c + 1;
    }
    return k + 1; /* too many */
}

static int number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

static int count(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v < 0 || v > UINT32_MAX) return -1;
    *out = (uint32_t)v;
    return 0;
}

#define USAGE "fixed:M, zipf:S:MIN:MAX or lognormal:MU:SIGMA"

int rc_sizedist_parse(const char *text, uint32_t users, rc_sizedist *d, rc_err *err)
{
    memset(d, 0, sizeof *d);
    d->users = users;
    char buf[256], *f[5];
    if (strlen(text) >= sizeof buf)
        return rc_err_set(err, RC_EXIT_USAGE, "group_size_dist: value is too long");
    int n = split(text, buf, sizeof buf, f, 4);
    if (n >= 1 && strcmp(f[0], "fixed") == 0) {
        d->kind = RC_SIZEDIST_FIXED;
        if (n != 2 || count(f[1], &d->m) != 0)
            return rc_err_set(err, RC_EXIT_USAGE, "group_size_dist: '%s' must be fixed:M", text);
        if (d->m < 2)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "group_size_dist: '%s': a group needs at least 2 members", text);
        if (d->m > users)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "group_size_dist: '%s': M = %u is larger than the population "
                              "(N = %u)",
                              text, d->m, users);
        return 0;
    }
    if (n >= 1 && strcmp(f[0], "zipf") == 0) {
        d->kind = RC_SIZEDIST_ZIPF;
        if (n != 4 || number(f[1], &d->s) != 0 || count(f[2], &d->min) != 0 ||
            count(f[3], &d->max) != 0)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "group_size_dist: '%s' must be zipf:S:MIN:MAX (S a number, MIN and "
                              "MAX whole numbers)",
                              text);
        if (d->s < 0)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "group_size_dist: '%s': the exponent S = %g must not be negative",
                              text, d->s);
        if (d->min < 2)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "group_size_dist: '%s': MIN = %u, but a group needs at least 2 "
                              "members",
                              text, d->min);
        if (d->min > users)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "group_size_dist: '%s': MIN = %u is larger than the population "
                              "(N = %u)",
                              text, d->min, users);
        if (d->max < d->min)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "group_size_dist: '%s': MAX = %u is below MIN = %u", text, d->max,
                              d->min);
        if (d->max > users)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "group_size_dist: '%s': MAX = %u is larger than the population "
                              "(N = %u)",
                              text, d->max, users);
        size_t k = (size_t)(d->max - d->min) + 1;
        d->cdf = rc_xmalloc(k * sizeof *d->cdf);
        double acc = 0;
        for (size_t i = 0; i < k; i++) {
            acc += pow((double)(d->min + i), -d->s);
            d->cdf[i] = acc;
        }
        return 0;
    }
    if (n >= 1 && strcmp(f[0], "lognormal") == 0) {
        d->kind = RC_SIZEDIST_LOGNORMAL;
        if (n != 3 || number(f[1], &d->mu) != 0 || number(f[2], &d->sigma) != 0)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "group_size_dist: '%s' must be lognormal:MU:SIGMA (numbers)", text);
        if (d->sigma < 0)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "group_size_dist: '%s': SIGMA = %g must not be negative", text,
                              d->sigma);
        if (users < 2)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "group_size_dist: '%s': a population of %u cannot hold a group",
                              text, users);
        if (d->mu > log((double)UINT32_MAX))
            return rc_err_set(err, RC_EXIT_USAGE,
                              "group_size_dist: '%s': MU = %g puts the median group above 2^32",
                              text, d->mu);
        return 0;
    }
    return rc_err_set(err, RC_EXIT_USAGE, "group_size_dist: '%s' is not one of " USAGE, text);
}

void rc_sizedist_free(rc_sizedist *d)
{
    if (d == NULL) return;
    free(d->cdf);
    d->cdf = NULL;
}

static uint32_t clamp_size(double x, uint32_t users)
{
    if (!(x >= 2)) return 2;
    if (x >= (double)users) return users;
    return (uint32_t)x;
}

uint32_t rc_sizedist_draw(const rc_sizedist *d, gsl_rng *r)
{
    switch (d->kind) {
    case RC_SIZEDIST_FIXED: return d->m;
    case RC_SIZEDIST_ZIPF: {
        size_t k = (size_t)(d->max - d->min) + 1;
        double u = rc_rng_uniform(r) * d->cdf[k - 1];
        /* the first size whose cumulative weight exceeds u */
        size_t lo = 0, hi = k - 1;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (d->cdf[mid] > u) hi = mid;
            else lo = mid + 1;
        }
        return d->min + (uint32_t)lo;
    }
    case RC_SIZEDIST_LOGNORMAL:
        return clamp_size(nearbyint(exp(d->mu + d->sigma * gsl_ran_ugaussian(r))), d->users);
    }
    return 2;
}

double rc_sizedist_mean(const rc_sizedist *d)
{
    switch (d->kind) {
    case RC_SIZEDIST_FIXED: return d->m;
    case RC_SIZEDIST_ZIPF: {
        size_t k = (size_t)(d->max - d->min) + 1;
        double sum = 0;
        for (size_t i = 0; i < k; i++) sum += (double)(d->min + i) * pow((double)(d->min + i), -d->s);
        return sum / d->cdf[k - 1];
    }
    case RC_SIZEDIST_LOGNORMAL: {
        if (d->sigma == 0) return clamp_size(nearbyint(exp(d->mu)), d->users);
        /* P(size = n) for 2 < n < N is P(n - 1/2 <= exp X < n + 1/2); the ends take the
         * clamped tails.  Summed until the remaining mass is negligible. */
        double mean = 0, prev = 0;
        for (uint32_t n = 2; n <= d->users; n++) {
            double hi = n == d->users ? 1.0
                                      : gsl_cdf_ugaussian_P((log(n + 0.5) - d->mu) / d->sigma);
            mean += n * (hi - prev);
            prev = hi;
            if (1.0 - hi < 1e-12) break;
        }
        return mean;
    }
    }
    return 0;
}

rc_population *rc_population_new(uint32_t users, uint32_t groups, const rc_sizedist *d, gsl_rng *r)
{
    rc_population *p = rc_xcalloc(1, sizeof *p);
    p->users = users;
    p->groups = groups;
    p->off = rc_xmalloc(((size_t)groups + 1) * sizeof *p->off);
    p->off[0] = 0;
    for (uint32_t g = 0; g < groups; g++) p->off[g + 1] = p->off[g] + rc_sizedist_draw(d, r);
    p->memberships = p->off[groups];
    p->members = rc_xmalloc((p->memberships ? p->memberships : 1) * sizeof *p->members);
    /* A partial Fisher-Yates shuffle per group on one running permutation: the
     * first n entries after n swaps are a uniform ordered sample whatever the
     * permutation was before, so nothing needs undoing and a group costs O(n). */
    uint32_t *perm = rc_xmalloc((size_t)users * sizeof *perm);
    for (uint32_t i = 0; i < users; i++) perm[i] = i;
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t n = (uint32_t)(p->off[g + 1] - p->off[g]);
        uint32_t *out = &p->members[p->off[g]];
        for (uint32_t i = 0; i < n; i++) {
            uint32_t j = i + rc_rng_below(r, users - i);
            uint32_t t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
            out[i] = perm[i];
        }
    }
    free(perm);
    return p;
}

void rc_population_free(rc_population *p)
{
    if (p == NULL) return;
    free(p->off);
    free(p->members);
    free(p);
}
