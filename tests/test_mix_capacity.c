/* Mixes sized with the load (docs/spec.md §1.13): the planned load of a mix, the
 * width a capacity gives (the fewest mixes per layer whose planned load fits), and the
 * job-level option: `--mixes-per-layer auto` with `--mix-capacity C`, its parsing, job
 * ids, validation and the width the network is built with. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "exp/job.h"
#include "exp/param.h"
#include "loopix/net.h"

static rc_net_cfg paper_rates(int users)
{
    rc_net_cfg c;
    memset(&c, 0, sizeof c);
    c.users = users;
    c.mix_layers = 3;
    c.rate_payload = c.rate_drop = c.rate_loop = 2;
    c.mix_rate_loop = 2;
    c.lambda_div = 1;
    return c;
}

Test(mix_capacity, planned_load_is_clients_over_width_plus_loops)
{
    rc_net_cfg c = paper_rates(128);
    /* 128 clients x 6 /s over 3 mixes, plus 3 layers x 2 loops /s */
    cr_assert_float_eq(rc_net_planned_mix_load(&c, 1, 3), 128 * 6 / 3.0 + 6, 1e-9);
    /* p multiplies the client streams (sub-messages), not the mixes' loops */
    cr_assert_float_eq(rc_net_planned_mix_load(&c, 2, 3), 128 * 12 / 3.0 + 6, 1e-9);
    /* lambda_div divides both */
    c.lambda_div = 4;
    cr_assert_float_eq(rc_net_planned_mix_load(&c, 2, 3), (128 * 12 / 3.0 + 6) / 4, 1e-9);
}

Test(mix_capacity, width_is_the_fewest_that_fits)
{
    rc_net_cfg c = paper_rates(1000);
    /* 6,000 /s through each layer, 294 /s of room per mix: 20.4 -> 21 */
    cr_assert_eq(rc_net_width_for_capacity(&c, 1, 300, 1 << 16), 21);
    c.users = 128;
    cr_assert_eq(rc_net_width_for_capacity(&c, 1, 300, 1 << 16), 3);
    /* the boundary: 147 clients fill 3 mixes to exactly 294 + 6 = 300 */
    c.users = 147;
    cr_assert_float_eq(rc_net_planned_mix_load(&c, 1, 3), 300, 0);
    cr_assert_eq(rc_net_width_for_capacity(&c, 1, 300, 1 << 16), 3);
    cr_assert_eq(rc_net_width_for_capacity(&c, 1, 299.999, 1 << 16), 4);
    /* a network that carries almost nothing still has one mix per layer */
    c.users = 2;
    cr_assert_eq(rc_net_width_for_capacity(&c, 1, 1e9, 1 << 16), 1);
    /* the study's populations at 300 /s, p = 1 and p = 2 */
    int users[] = {128, 1000, 10000, 100000};
    int want1[] = {3, 21, 205, 2041}, want2[] = {6, 41, 409, 4082};
    for (int i = 0; i < 4; i++) {
        c.users = users[i];
        cr_assert_eq(rc_net_width_for_capacity(&c, 1, 300, 1 << 16), want1[i], "%d users",
                     users[i]);
        cr_assert_eq(rc_net_width_for_capacity(&c, 2, 300, 1 << 16), want2[i], "%d users",
                     users[i]);
    }
}

/* Over many configurations: the width's load fits and one mix fewer would not. */
Test(mix_capacity, width_property_over_configurations)
{
    const double caps[] = {6.5, 7, 50, 262, 300, 1000, 12345.6, 1e6};
    const int users[] = {2, 16, 128, 129, 1000, 4096, 65536, 1 << 20};
    const double divs[] = {1, 2, 16};
    for (size_t a = 0; a < sizeof caps / sizeof *caps; a++)
        for (size_t b = 0; b < sizeof users / sizeof *users; b++)
            for (size_t d = 0; d < sizeof divs / sizeof *divs; d++)
                for (int p = 1; p <= 16; p *= 2) {
                    rc_net_cfg c = paper_rates(users[b]);
                    c.lambda_div = divs[d];
                    int w = rc_net_width_for_capacity(&c, p, caps[a], 1 << 30);
                    cr_assert_gt(w, 0, "cap %g users %d p %d", caps[a], users[b], p);
                    cr_assert_leq(rc_net_planned_mix_load(&c, p, w), caps[a]);
                    if (w > 1)
                        cr_assert_gt(rc_net_planned_mix_load(&c, p, w - 1), caps[a],
                                     "cap %g users %d p %d: %d is not the fewest", caps[a],
                                     users[b], p, w);
                }
}

Test(mix_capacity, no_width_fits)
{
    rc_net_cfg c = paper_rates(1000);
    /* the loops alone fill a mix: 3 layers x 2 /s */
    cr_assert_eq(rc_net_width_for_capacity(&c, 1, 6, 1 << 16), 0);
    cr_assert_eq(rc_net_width_for_capacity(&c, 1, 5, 1 << 16), 0);
    cr_assert_eq(rc_net_width_for_capacity(&c, 1, 0, 1 << 16), 0);
    cr_assert_eq(rc_net_width_for_capacity(&c, 1, -300, 1 << 16), 0);
    cr_assert_eq(rc_net_width_for_capacity(&c, 1, NAN, 1 << 16), 0);
    cr_assert_eq(rc_net_width_for_capacity(&c, 1, INFINITY, 1 << 16), 0);
    /* more than the largest width allowed */
    cr_assert_eq(rc_net_width_for_capacity(&c, 1, 300, 20), 0);
    cr_assert_eq(rc_net_width_for_capacity(&c, 1, 300, 21), 21);
}

static int check(rc_job *j, rc_err *err)
{
    rc_job_resolve(j);
    rc_err_clear(err);
    return rc_job_validate(j, err);
}

Test(mix_capacity, auto_parses_formats_and_enters_the_id_only_when_used)
{
    rc_job def, j;
    rc_job_defaults(&def);
    rc_job_defaults(&j);
    char text[4096];
    rc_job_canonical(&def, text, sizeof text);
    cr_assert(strstr(text, "mixes_per_layer=3\n") != NULL, "%s", text);
    cr_assert(strstr(text, "mix_capacity") == NULL, "the default is not in the id: %s", text);
    rc_err err = {0};
    cr_assert_eq(rc_param_set_by_name(&j, "mixes-per-layer", "auto", &err), 0, "%s", err.msg);
    cr_assert_eq(j.mixes_per_layer, RC_MIXES_AUTO);
    cr_assert_eq(rc_param_set_by_name(&j, "mix_capacity", "300", &err), 0, "%s", err.msg);
    char v[32];
    rc_param_format(&j, rc_param_find("mixes_per_layer"), v, sizeof v);
    cr_assert_str_eq(v, "auto");
    rc_job_canonical(&j, text, sizeof text);
    cr_assert(strstr(text, "mixes_per_layer=auto\n") && strstr(text, "mix_capacity=300\n"), "%s",
              text);
    cr_assert_neq(rc_job_id(&j), rc_job_id(&def));
    cr_assert_eq(check(&j, &err), 0, "%s", err.msg);
    cr_assert_eq(rc_job_mixes_per_layer(&j), 3);
    rc_net_cfg nc;
    rc_job_net_cfg(&j, &nc);
    cr_assert_eq(nc.mixes_per_layer, 3);
    /* the width follows the users and the strategy's p */
    j.users = 1000;
    rc_job_net_cfg(&j, &nc);
    cr_assert_eq(nc.mixes_per_layer, 21);
    strcpy(j.strategy, "rc-k2-p2-ft");
    cr_assert_eq(rc_job_mixes_per_layer(&j), 41);
    /* a number still means that number */
    cr_assert_eq(rc_param_set_by_name(&def, "mixes_per_layer", "7", &err), 0);
    cr_assert_eq(rc_job_mixes_per_layer(&def), 7);
}

Test(mix_capacity, bad_combinations_are_refused)
{
    rc_job j;
    rc_err err = {0};
    /* auto without a capacity */
    rc_job_defaults(&j);
    j.mixes_per_layer = RC_MIXES_AUTO;
    cr_assert_eq(check(&j, &err), RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, "mixes_per_layer") && strstr(err.msg, "capacity"), "%s", err.msg);
    /* a capacity without auto does nothing: refused, naming it */
    rc_job_defaults(&j);
    j.mix_capacity = 300;
    cr_assert_eq(check(&j, &err), RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, "mix_capacity") && strstr(err.msg, "300"), "%s", err.msg);
    /* a capacity the mixes' own loops fill */
    rc_job_defaults(&j);
    j.mixes_per_layer = RC_MIXES_AUTO;
    j.mix_capacity = 6;
    cr_assert_eq(check(&j, &err), RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, "mix_capacity") && strstr(err.msg, "loops"), "%s", err.msg);
    /* ... which lambda_div relieves */
    j.lambda_div = 2;
    cr_assert_eq(check(&j, &err), 0, "%s", err.msg);
    /* more mixes than a layer may have */
    rc_job_defaults(&j);
    j.users = 1 << 20;
    j.mixes_per_layer = RC_MIXES_AUTO;
    j.mix_capacity = 6.01;
    cr_assert_eq(check(&j, &err), RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, "mix_capacity") && strstr(err.msg, "65536"), "%s", err.msg);
    /* the values themselves */
    const char *bad[][2] = {{"mix_capacity", "-1"}, {"mix_capacity", "nan"},
                            {"mix_capacity", "inf"}, {"mixes_per_layer", "0"},
                            {"mixes_per_layer", "automatic"}, {"mixes_per_layer", "-3"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc_err_clear(&err);
        cr_assert_eq(rc_param_set_by_name(&j, bad[i][0], bad[i][1], &err), RC_EXIT_USAGE,
                     "%s=%s accepted", bad[i][0], bad[i][1]);
        cr_assert(strstr(err.msg, bad[i][0]) && strstr(err.msg, bad[i][1]), "%s", err.msg);
    }
}

/* In population mode a width given as a number keeps the one-mix-per-1,000-users floor;
 * auto replaces it by the capacity's width. */
Test(mix_capacity, population_floor_applies_to_numbers_only)
{
    rc_job j;
    rc_err err = {0};
    rc_job_defaults(&j);
    j.population = 10000;
    j.groups = 100;
    strcpy(j.group_size_dist, "zipf:1.5:3:200");
    rc_job fixed = j;
    cr_assert_eq(check(&fixed, &err), 0, "%s", err.msg);
    cr_assert_eq(rc_job_mixes_per_layer(&fixed), 10);
    j.mixes_per_layer = RC_MIXES_AUTO;
    j.mix_capacity = 300;
    cr_assert_eq(check(&j, &err), 0, "%s", err.msg);
    cr_assert_eq(j.mixes_per_layer, RC_MIXES_AUTO, "resolve keeps auto");
    cr_assert_eq(rc_job_mixes_per_layer(&j), 205);
    rc_job again = j;
    rc_job_resolve(&again);
    cr_assert_eq(rc_job_id(&again), rc_job_id(&j), "resolve is idempotent");
}
