/* Populations (issue 17, src/multicast/population.h): size distributions,
 * their errors, and groups drawn without replacement in linear memory. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "multicast/population.h"

static int parse(const char *t, uint32_t n, rc_sizedist *d, rc_err *err)
{
    *err = (rc_err){0};
    return rc_sizedist_parse(t, n, d, err);
}

Test(population, bad_distributions_are_usage_errors_with_the_reason)
{
    struct {
        const char *text, *why;
        uint32_t n;
    } bad[] = {
        {"zipf:1.5:20:100", "larger than the population", 10},  /* MIN > N */
        {"zipf:1.5:3:100", "larger than the population", 50},   /* MAX > N */
        {"zipf:1.5:10:5", "below MIN", 100},
        {"zipf:1.5:1:5", "at least 2", 100},
        {"zipf:-1:3:5", "negative", 100},
        {"zipf:1.5:3", "zipf:S:MIN:MAX", 100},
        {"lognormal:2:-0.5", "negative", 100},
        {"lognormal:2", "lognormal:MU:SIGMA", 100},
        {"lognormal:x:1", "lognormal:MU:SIGMA", 100},
        {"fixed:1", "at least 2", 100},
        {"fixed:101", "larger than the population", 100},
        {"pareto:1:2", "not one of", 100},
        {"", "not one of", 100},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc_sizedist d;
        rc_err err;
        cr_assert_eq(parse(bad[i].text, bad[i].n, &d, &err), RC_EXIT_USAGE, "'%s' accepted",
                     bad[i].text);
        cr_assert_not_null(strstr(err.msg, "group_size_dist"), "%s", err.msg);
        cr_assert_not_null(strstr(err.msg, bad[i].why), "'%s': '%s' lacks '%s'", bad[i].text,
                           err.msg, bad[i].why);
        rc_sizedist_free(&d);
    }
}

Test(population, zipf_sizes_follow_the_power_law)
{
    rc_sizedist d;
    rc_err err;
    cr_assert_eq(parse("zipf:2:2:4", 100, &d, &err), 0, "%s", err.msg);
    /* weights 1/4, 1/9, 1/16 */
    double w[3] = {1.0 / 4, 1.0 / 9, 1.0 / 16}, tot = w[0] + w[1] + w[2];
    gsl_rng *r = rc_rng_new(1, 99);
    unsigned c[3] = {0};
    const unsigned n = 200000;
    for (unsigned i = 0; i < n; i++) {
        uint32_t s = rc_sizedist_draw(&d, r);
        cr_assert(s >= 2 && s <= 4, "size %u outside 2..4", s);
        c[s - 2]++;
    }
    for (int k = 0; k < 3; k++) {
        double p = w[k] / tot, sd = sqrt(p * (1 - p) / n);
        cr_assert_lt(fabs((double)c[k] / n - p), 5 * sd, "size %d: %g vs %g", k + 2,
                     (double)c[k] / n, p);
    }
    double mean = (2 * w[0] + 3 * w[1] + 4 * w[2]) / tot;
    cr_assert_lt(fabs(rc_sizedist_mean(&d) - mean), 1e-12);
    rc_rng_free(r);
    rc_sizedist_free(&d);
}

Test(population, lognormal_sizes_are_clamped_and_have_the_right_median)
{
    rc_sizedist d;
    rc_err err;
    cr_assert_eq(parse("lognormal:3:1", 1000, &d, &err), 0, "%s", err.msg);
    gsl_rng *r = rc_rng_new(2, 99);
    const unsigned n = 100001;
    uint32_t *v = malloc(n * sizeof *v);
    double sum = 0;
    for (unsigned i = 0; i < n; i++) {
        v[i] = rc_sizedist_draw(&d, r);
        cr_assert(v[i] >= 2 && v[i] <= 1000);
        sum += v[i];
    }
    unsigned below = 0;
    for (unsigned i = 0; i < n; i++) below += v[i] <= 20; /* exp(3) = 20.09 */
    cr_assert_lt(fabs((double)below / n - 0.5), 0.01, "P(size <= 20) = %g", (double)below / n);
    cr_assert_lt(fabs(sum / n - rc_sizedist_mean(&d)) / rc_sizedist_mean(&d), 0.01,
                 "sample mean %g, computed mean %g", sum / n, rc_sizedist_mean(&d));
    free(v);
    rc_rng_free(r);
    rc_sizedist_free(&d);
}

Test(population, groups_are_samples_without_replacement_in_linear_memory)
{
    rc_sizedist d;
    rc_err err;
    cr_assert_eq(parse("zipf:1.2:2:300", 1000, &d, &err), 0, "%s", err.msg);
    gsl_rng *r = rc_rng_new(3, 10);
    rc_population *p = rc_population_new(1000, 5000, &d, r);
    cr_assert_eq(p->off[0], 0);
    cr_assert_eq(p->off[5000], p->memberships);
    uint32_t *seen = calloc(1000, sizeof *seen), *in = calloc(1000, sizeof *in);
    for (uint32_t g = 0; g < 5000; g++) {
        size_t n = p->off[g + 1] - p->off[g];
        cr_assert(n >= 2 && n <= 300, "group %u has %zu members", g, n);
        for (size_t i = p->off[g]; i < p->off[g + 1]; i++) {
            uint32_t u = p->members[i];
            cr_assert_lt(u, 1000);
            cr_assert_neq(seen[u], g + 1, "user %u twice in group %u", u, g);
            seen[u] = g + 1;
            in[u]++;
        }
    }
    /* each user is in about memberships / N groups (a binomial count) */
    double mean = (double)p->memberships / 1000;
    unsigned far = 0;
    for (uint32_t u = 0; u < 1000; u++) far += fabs(in[u] - mean) > 5 * sqrt(mean);
    cr_assert_lt(far, 3, "%u users far from %g memberships", far, mean);
    rc_population_free(p);
    rc_rng_free(r);
    /* the same stream gives the same population */
    gsl_rng *a = rc_rng_new(3, 10), *b = rc_rng_new(3, 10);
    rc_population *x = rc_population_new(1000, 50, &d, a), *y = rc_population_new(1000, 50, &d, b);
    cr_assert_eq(x->memberships, y->memberships);
    cr_assert_eq(memcmp(x->members, y->members, x->memberships * sizeof *x->members), 0);
    rc_population_free(x);
    rc_population_free(y);
    rc_rng_free(a);
    rc_rng_free(b);
    free(seen);
    free(in);
    rc_sizedist_free(&d);
}
