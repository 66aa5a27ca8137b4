/* The strategy table (multicast/strategy_table.h): every family's row is
 * consistent, names round-trip, errors name every pattern, the cost terms are
 * the families' own. */
#include <criterion/criterion.h>
#include <string.h>

#include "multicast/mc.h"
#include "multicast/strategy_table.h"

Test(strategy_table, every_row_is_consistent)
{
    size_t n;
    const rc_strategy_family *const *f = rc_strategy_families(&n);
    cr_assert_geq(n, 2);
    for (size_t i = 0; i < n; i++) {
        cr_assert_not_null(f[i]->ops, "%s: no ops", f[i]->family);
        cr_assert_str_eq(f[i]->ops->name, f[i]->family, "family %s runs ops named %s",
                         f[i]->family, f[i]->ops->name);
        cr_assert(f[i]->ops->create && f[i]->ops->destroy && f[i]->ops->multicast &&
                      f[i]->ops->receive,
                  "%s: a required op is missing", f[i]->family);
        cr_assert(f[i]->parse && f[i]->format && f[i]->cost, "%s: incomplete row", f[i]->family);
        cr_assert(f[i]->n_params <= RC_STRATEGY_PARAMS_MAX);
        cr_assert_eq(rc_strategy_family_find(f[i]->family), f[i]);
        cr_assert(strlen(f[i]->help) > 0 && f[i]->help[strlen(f[i]->help) - 1] == '\n',
                  "%s: help must end in a newline", f[i]->family);
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(f[i]->family, f[j]->family, "family %s listed twice", f[i]->family);
    }
    cr_assert_null(rc_strategy_family_find("no-such-family"));
}

Test(strategy_table, names_round_trip_through_the_canonical_form)
{
    const char *given[] = {"unicast", "rc-k2-p2", "rc-k2", "rc-k2-p2-ft1.5-dropoffline",
                           "rollercoaster-k4-p1-timeout10x"};
    const char *canon[] = {"unicast", "rc-k2-p2", "rc-k2-p1", "rc-k2-p2-ft1.5-dropoffline",
                           "rc-k4-p1-ft"};
    const char *family[] = {"unicast", "rc", "rc", "rc", "rc"};
    for (size_t i = 0; i < sizeof given / sizeof *given; i++) {
        rc_strategy_spec s, t;
        rc_err err = {0};
        cr_assert_eq(rc_strategy_parse(given[i], &s, &err), 0, "%s: %s", given[i], err.msg);
        cr_assert_str_eq(s.family->family, family[i]);
        char buf[128];
        rc_strategy_format(&s, buf, sizeof buf);
        cr_assert_str_eq(buf, canon[i]);
        cr_assert_eq(rc_strategy_parse(buf, &t, &err), 0);
        cr_assert_eq(t.family, s.family);
        cr_assert_eq(memcmp(t.v, s.v, sizeof s.v), 0, "%s: parameters change on re-parsing", buf);
    }
}

Test(strategy_table, unknown_names_list_every_pattern)
{
    rc_strategy_spec s;
    rc_err err = {0};
    cr_assert_eq(rc_strategy_parse("multicast", &s, &err), RC_EXIT_USAGE);
    size_t n;
    const rc_strategy_family *const *f = rc_strategy_families(&n);
    for (size_t i = 0; i < n; i++)
        cr_assert(strstr(err.msg, f[i]->pattern), "error '%s' lacks %s", err.msg, f[i]->pattern);
    /* a malformed name of a known family says what is wrong with it */
    rc_err err2 = {0};
    cr_assert_eq(rc_strategy_parse("rc-k2-p0", &s, &err2), RC_EXIT_USAGE);
    cr_assert(strstr(err2.msg, "p must be an integer"), "%s", err2.msg);
}

Test(strategy_table, families_state_their_own_cost_terms)
{
    struct {
        const char *name;
        double client_r, client_m, provider_r, timeouts;
        int p;
    } want[] = {
        {"unicast", 1, 0, 0, 0, 1},
        {"rc-k2-p2", 2, 0, 0, 0, 2},
        {"rc-k4-p8-ft-dropoffline", 2, 0, 0, 1, 8},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        rc_strategy_spec s;
        cr_assert_eq(rc_strategy_parse(want[i].name, &s, NULL), 0);
        rc_strategy_cost c;
        rc_strategy_cost_of(&s, &c);
        cr_assert(c.client_copies_per_recipient == want[i].client_r &&
                      c.client_copies_per_multicast == want[i].client_m &&
                      c.provider_copies_per_recipient == want[i].provider_r &&
                      c.timeouts_per_member == want[i].timeouts && c.p == want[i].p,
                  "%s: cost terms %g %g %g %g p=%d", want[i].name, c.client_copies_per_recipient,
                  c.client_copies_per_multicast, c.provider_copies_per_recipient,
                  c.timeouts_per_member, c.p);
        cr_assert_eq(rc_strategy_split(&s), want[i].p);
    }
}
