/* core/rng: the inlined MT19937 gives GSL's mt19937 output bit for bit, and
 * step tables give the same value as the function they tabulate. */
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

#include "core/rng.h"

static const unsigned long seeds[] = {0, 1, 4357, 123456789, 0xffffffffUL};

Test(rng, same_output_as_gsl_mt19937)
{
    for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++) {
        gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937), *r = gsl_rng_alloc(rc_rng_mt19937);
        gsl_rng_set(g, seeds[s]);
        gsl_rng_set(r, seeds[s]);
        for (int i = 0; i < 5000; i++) /* several refills of the 624-word block */
            cr_assert_eq(gsl_rng_get(g), rc_rng_u32(r), "seed %lu, draw %d", seeds[s], i);
        for (int i = 0; i < 2000; i++) {
            cr_assert_eq(gsl_rng_uniform(g), rc_rng_uniform(r));
            cr_assert_eq(gsl_rng_uniform_pos(g), rc_rng_uniform_pos(r));
            uint32_t n = 1 + (uint32_t)(i * 7919 % 100000);
            cr_assert_eq(gsl_rng_uniform_int(g, n), rc_rng_below(r, n));
            cr_assert_eq(gsl_rng_get(g), gsl_rng_get(r)); /* through GSL's pointers */
        }
        gsl_rng_free(g);
        gsl_rng_free(r);
    }
}

Test(rng, streams_and_gsl_functions_agree_with_gsl_mt19937)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937), *r = rc_rng_new(42, 7);
    uint64_t s = rc_rng_derive(42, 7);
    gsl_rng_set(g, (unsigned long)(s ^ (s >> 32)));
    uint32_t a[50], b[50];
    for (uint32_t i = 0; i < 50; i++) a[i] = b[i] = i;
    gsl_ran_shuffle(g, a, 50, sizeof *a);
    gsl_ran_shuffle(r, b, 50, sizeof *b);
    for (int i = 0; i < 50; i++) cr_assert_eq(a[i], b[i]);
    for (int i = 0; i < 1000; i++) {
        double mean = 0.25 + i % 7;
        cr_assert_eq(-mean * log(gsl_rng_uniform_pos(g)), rc_rng_exp(r, mean));
    }
    gsl_rng_free(g);
    rc_rng_free(r);
}

Test(rng, skip_pos_consumes_what_uniform_pos_draws)
{
    gsl_rng *a = rc_rng_new(3, 1), *b = rc_rng_new(3, 1);
    for (int i = 0; i < 3000; i++) {
        unsigned n = (unsigned)(i % 5);
        for (unsigned j = 0; j < n; j++) (void)rc_rng_uniform_pos(a);
        rc_rng_skip_pos(b, n);
        cr_assert_eq(rc_rng_u32(a), rc_rng_u32(b), "after %d skips", i);
    }
    rc_rng_free(a);
    rc_rng_free(b);
}

static int64_t geom_fn(uint32_t k, const void *g) { return (int64_t)rc_rng_geom_of(k, *(const double *)g); }

static int64_t ticks_fn(uint32_t k, const void *mu)
{
    double d = -(1.0 / *(const double *)mu) * log(k / 4294967296.0);
    int64_t us = (int64_t)floor(1000.0 * d) * 1000;
    return (us + 9999) / 10000;
}

/* Every bucket edge (and its neighbours) plus random interior points. */
static void check_steps(rc_rng_step_fn f, const void *ctx)
{
    rc_rng_steps *t = malloc(sizeof *t);
    rc_rng_steps_init(t, f, ctx);
    size_t tabulated = 0;
    for (uint32_t b = 0; b < (1u << RC_RNG_STEPS_BITS); b++) tabulated += t->v[b] >= 0;
    cr_assert_gt(tabulated, (1u << RC_RNG_STEPS_BITS) / 2, "the table holds few values");
    gsl_rng *r = rc_rng_new(11, 2);
    for (uint32_t b = 0; b < (1u << RC_RNG_STEPS_BITS); b++) {
        uint32_t first = b << (32 - RC_RNG_STEPS_BITS);
        uint32_t ks[] = {first, first + 1, first - 1, first + 0x7ffff, rc_rng_u32(r), rc_rng_u32(r)};
        for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
            uint32_t k = ks[i] ? ks[i] : 1;
            int32_t v = t->v[k >> (32 - RC_RNG_STEPS_BITS)];
            int64_t want = f(k, ctx), got = v >= 0 ? v : f(k, ctx);
            cr_assert_eq(got, want, "k=%u: table %lld, function %lld", k, (long long)got,
                         (long long)want);
        }
    }
    /* and the draw itself, against the function of the same output */
    gsl_rng *a = rc_rng_new(5, 5), *c = rc_rng_new(5, 5);
    for (int i = 0; i < 200000; i++) {
        uint32_t k;
        do k = rc_rng_u32(c);
        while (k == 0);
        cr_assert_eq(rc_rng_steps_draw(a, t), f(k, ctx));
    }
    rc_rng_free(a);
    rc_rng_free(c);
    rc_rng_free(r);
    free(t);
}

Test(rng, step_tables_equal_their_function)
{
    double gs[] = {1.0 / log1p(-0.0198), 1.0 / log1p(-0.0392), 1.0 / log1p(-0.005), 1.0 / log1p(-0.9)};
    for (size_t i = 0; i < sizeof gs / sizeof *gs; i++) check_steps(geom_fn, &gs[i]);
    double mus[] = {3.0, 0.75, 30.0};
    for (size_t i = 0; i < sizeof mus / sizeof *mus; i++) check_steps(ticks_fn, &mus[i]);
}

/* rc_round_nonneg replaces llround for microsecond draws: it must give the
 * same value, halves and the largest doubles below a half included. */
Test(rng, round_nonneg_equals_llround)
{
    const double edge[] = {0.0, 0.49999999999999994, 0.5, 1.5, 2.5, 1e-300, 0.9999999999999999,
                           4503599627370495.5, 4503599627370496.0, 9007199254740993.0,
                           1e18, 123456.5, 123456.49999999999};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        cr_assert_eq(rc_round_nonneg(edge[i]), llround(edge[i]), "x = %.17g", edge[i]);
    gsl_rng *r = rc_rng_new(7, 1);
    for (int i = 0; i < 2000000; i++) {
        double x = rc_rng_exp(r, i % 2 ? 1e6 / 3.0 : 5e4);
        cr_assert_eq(rc_round_nonneg(x), llround(x), "x = %.17g", x);
        double h = floor(x) + 0.5; /* an exact half */
        cr_assert_eq(rc_round_nonneg(h), llround(h), "x = %.17g", h);
        double below = nextafter(h, 0);
        cr_assert_eq(rc_round_nonneg(below), llround(below), "x = %.17g", below);
    }
    rc_rng_free(r);
}

/* rc_rng_shuffle_u32 stands in for gsl_ran_shuffle: the same permutation and
 * the same draws consumed, for every length from 1 (GSL's own loop runs off
 * the array at 0; ours does nothing). */
Test(rng, shuffle_u32_equals_gsl_ran_shuffle)
{
    gsl_rng *g = rc_rng_new(5, 3), *r = rc_rng_new(5, 3);
    uint32_t a[700], b[700];
    for (size_t n = 1; n <= 700; n += (n < 40 ? 1 : 37)) {
        for (uint32_t i = 0; i < 700; i++) a[i] = b[i] = i * 7919u;
        gsl_ran_shuffle(g, a, n, sizeof *a);
        rc_rng_shuffle_u32(r, b, n);
        for (size_t i = 0; i < 700; i++) cr_assert_eq(a[i], b[i], "n = %zu, i = %zu", n, i);
        cr_assert_eq(rc_rng_u32(g), rc_rng_u32(r), "n = %zu: draws consumed differ", n);
    }
    rc_rng_shuffle_u32(r, b, 0); /* nothing to shuffle: no draw */
    cr_assert_eq(rc_rng_u32(g), rc_rng_u32(r));
    rc_rng_free(g);
    rc_rng_free(r);
}
