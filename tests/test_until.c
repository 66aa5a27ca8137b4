/* exp/until: the stopping rule's interval equals the analysis's (rcplot/stats.py
 * seed_interval with positive=True; the expected numbers were printed by it), and
 * rules are parsed or refused. */
#include <criterion/criterion.h>
#include <math.h>

#include "exp/until.h"

static void expect(const double *v, size_t n, size_t used, double est, double lo, double hi,
                   double rel)
{
    double e, l, h, r;
    cr_assert_eq(rc_until_interval(v, n, &e, &l, &h, &r), used);
    cr_assert_float_eq(e, est, 1e-12 * est);
    cr_assert_float_eq(l, lo, 1e-12 * lo);
    cr_assert_float_eq(h, hi, 1e-12 * hi);
    cr_assert_float_eq(r, rel, 1e-12 * rel);
}

Test(until, log_t_interval_equals_the_analysis)
{
    double v[] = {5.1, 4.8, 6.3, 5.5, 4.9, 7.2, NAN};
    expect(v, 7, 6, 5.571949925509131, 4.711972322834366, 6.588881225368893,
           0.1684247819548582);
}

Test(until, range_below_five_seeds_and_normal_beyond_thirty)
{
    double three[] = {2.0, 3.0, 4.5};
    expect(three, 3, 3, 3.0000000000000004, 2.0, 4.5, 0.41666666666666663);
    double many[35];
    for (int i = 0; i < 35; i++) many[i] = 1 + 0.01 * ((i * 37) % 23);
    expect(many, 35, 35, 1.104257074207444, 1.081971878728272, 1.1270012741647444,
           0.020389000210295816);
}

Test(until, no_interval_from_one_value_or_a_non_positive_one)
{
    double e, l, h, r;
    double one[] = {3.0};
    rc_until_interval(one, 1, &e, &l, &h, &r);
    cr_assert(isinf(r));
    double neg[] = {3.0, 2.0, 4.0, 3.5, 3.1, -1.0};
    rc_until_interval(neg, 6, &e, &l, &h, &r);
    cr_assert(isinf(r));
}

Test(until, rules)
{
    rc_until u;
    char why[300];
    cr_assert_eq(rc_until_parse_rule("p99 rel_halfwidth < 0.05", &u, why, sizeof why), 0);
    cr_assert_eq(u.stat, 8);
    cr_assert_float_eq(u.target, 0.05, 1e-15);
    cr_assert_eq(rc_until_parse_rule("  mean   rel_halfwidth <  0.1 ", &u, why, sizeof why), 0);
    cr_assert_eq(u.stat, -1);
    cr_assert_str_eq(u.rule, "mean rel_halfwidth < 0.1");
    cr_assert_eq(rc_until_parse_rule("p99.9 rel_halfwidth < 0.2", &u, why, sizeof why), 0);
    cr_assert_eq(u.stat, 9);
    const char *bad[] = {"p98 rel_halfwidth < 0.05", "p99 rel_halfwidth <= 0.05",
                         "p99 rel_halfwidth < 0", "p99 rel_halfwidth < 1",
                         "p99 rel_halfwidth < 0.05 and more", "p99", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_neq(rc_until_parse_rule(bad[i], &u, why, sizeof why), 0, "%s", bad[i]);
    rc_summary s = {.count = 0};
    cr_assert(isnan(rc_until_value(&u, &s)));
}
