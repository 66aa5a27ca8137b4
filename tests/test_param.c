/* The parameter registry: defaults, parsing, range errors, canonical ids. */
#include <criterion/criterion.h>
#include <string.h>

#include "exp/job.h"
#include "exp/param.h"
#include "multicast/strategy_table.h"

Test(param, defaults_are_the_paper_values)
{
    rc_job j;
    rc_job_defaults(&j);
    cr_assert_eq(j.users, 128);
    cr_assert_float_eq(j.rate_payload, 2.0, 1e-12);
    cr_assert_float_eq(j.rate_delay, 3.0, 1e-12);
    cr_assert_float_eq(j.app_rate, 1.0 / 30.0, 1e-12);
    cr_assert_float_eq(j.duration_s, 86400.0, 1e-9);
    cr_assert_eq(j.model, RC_MODEL_EXACT);
    cr_assert_eq(j.quirks.lattice, RC_AUTO);
    rc_job_resolve(&j);
    cr_assert_eq(j.quirks.lattice, 0);
    cr_assert_eq(j.group_size, 128);
    j.model = RC_MODEL_PAPER;
    j.quirks.lattice = RC_AUTO;
    rc_job_resolve(&j);
    cr_assert_eq(j.quirks.lattice, 1);
}

Test(param, every_default_parses)
{
    size_t n;
    const rc_param_def *t = rc_param_table(&n);
    rc_job j;
    for (size_t i = 0; i < n; i++) {
        rc_err err = {0};
        cr_assert_eq(rc_param_set(&j, &t[i], t[i].def, &err), 0, "%s: %s", t[i].name, err.msg);
    }
}

Test(param, bad_values_name_the_key_and_value)
{
    rc_job j;
    rc_job_defaults(&j);
    struct {
        const char *k, *v;
    } bad[] = {{"rate_payload", "-1"}, {"users", "12x"}, {"duration", "5 parsecs"},
               {"model", "quantum"}, {"seed", "-3"}, {"users", "1"}, {"q_lattice", "maybe"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc_err err = {0};
        cr_assert_eq(rc_param_set_by_name(&j, bad[i].k, bad[i].v, &err), RC_EXIT_USAGE,
                     "%s=%s accepted", bad[i].k, bad[i].v);
        cr_assert(strstr(err.msg, bad[i].k) && strstr(err.msg, bad[i].v), "message: %s", err.msg);
    }
    rc_err err = {0};
    cr_assert_eq(rc_param_set_by_name(&j, "no_such_key", "1", &err), RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, "no_such_key"));
}

Test(param, durations_and_fractions)
{
    rc_job j;
    rc_job_defaults(&j);
    cr_assert_eq(rc_param_set_by_name(&j, "duration", "24h", NULL), 0);
    cr_assert_float_eq(j.duration_s, 86400, 1e-9);
    cr_assert_eq(rc_param_set_by_name(&j, "duration", "15m", NULL), 0);
    cr_assert_float_eq(j.duration_s, 900, 1e-9);
    cr_assert_eq(rc_param_set_by_name(&j, "app-rate", "1/30", NULL), 0);
    cr_assert_float_eq(j.app_rate, 1.0 / 30, 1e-12);
}

Test(param, validation_catches_cross_field_errors)
{
    rc_job j;
    rc_job_defaults(&j);
    j.users = 10;
    j.group_size = 11;
    rc_err err = {0};
    cr_assert_eq(rc_job_validate(&j, &err), RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, "group_size"), "%s", err.msg);
    rc_job_defaults(&j);
    strcpy(j.strategy, "rc-k0-p1");
    rc_err_clear(&err);
    cr_assert_eq(rc_job_validate(&j, &err), RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, "rc-k0-p1"), "%s", err.msg);
}

/* A run that needs no trace never looks at the data directory: a missing one (a clone
 * without traces, a stale $RCSIM_DATA_DIR) is an error only when a trace name is looked up. */
Test(param, data_dir_is_checked_only_for_a_trace_name)
{
    rc_job j;
    rc_job_defaults(&j);
    strcpy(j.data_dir, "/nonexistent-rcsim-data-dir");
    rc_err err = {0};
    cr_assert_eq(rc_job_validate(&j, &err), 0, "online: %s", err.msg);
    strcpy(j.trace, RCSIM_SOURCE_DIR "/data/synthetic/schedules_gen_synth80.txt.gz");
    cr_assert_eq(rc_job_validate(&j, &err), 0, "trace path: %s", err.msg);
    strcpy(j.trace, "gen_os15");
    cr_assert_eq(rc_job_validate(&j, &err), RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, "data_dir") && strstr(err.msg, "/nonexistent-rcsim-data-dir") &&
                  strstr(err.msg, "gen_os15"),
              "%s", err.msg);
    rc_err_clear(&err);
    strcpy(j.data_dir, RCSIM_SOURCE_DIR "/data/synthetic");
    cr_assert_eq(rc_job_validate(&j, &err), 0, "existing data_dir: %s", err.msg);
}

Test(param, job_ids_are_stable_and_sensitive)
{
    rc_job a, b;
    rc_job_defaults(&a);
    rc_job_defaults(&b);
    cr_assert_eq(rc_job_id(&a), rc_job_id(&b));
    strcpy(b.data_dir, "/elsewhere"); /* not part of the id */
    b.store_raw = true;
    cr_assert_eq(rc_job_id(&a), rc_job_id(&b));
    b.seed = 2;
    cr_assert_neq(rc_job_id(&a), rc_job_id(&b));
    /* auto quirks resolve before hashing: explicit = auto when equal */
    rc_job c = a;
    c.quirks.lattice = 0;
    cr_assert_eq(rc_job_id(&a), rc_job_id(&c));
}

Test(param, strategy_names)
{
    rc_strategy_spec s;
    cr_assert_eq(rc_strategy_parse("rc-k2-p2-ft1.5-dropoffline", &s, NULL), 0);
#define V(name) rc_strategy_param_value(&s, name)
    cr_assert_str_eq(s.family->family, "rc");
    cr_assert(V("k") == 2 && V("p") == 2 && V("ft") == 1 && V("dropoffline") == 1 &&
              V("multiplier") == 1.5);
    cr_assert_eq(rc_strategy_parse("rollercoaster-k4-p1-timeout10x-dropoffline", &s, NULL), 0);
    cr_assert(V("k") == 4 && V("p") == 1 && V("ft") == 1 && V("multiplier") == 1.0 &&
              V("dropoffline") == 1);
    cr_assert_eq(rc_strategy_parse("rollercoaster-k2-p2-notimeout", &s, NULL), 0);
    cr_assert(V("ft") == 0);
#undef V
    const char *bad[] = {"multicast", "rc-p2", "rc-k2-p0", "rc-k2-p2-ft-ft", "rc-k2-x"};
    for (size_t i = 0; i < 5; i++)
        cr_assert_neq(rc_strategy_parse(bad[i], &s, NULL), 0, "%s accepted", bad[i]);
    char buf[64];
    rc_strategy_parse("rollercoaster-k2-p2-timeout15x", &s, NULL);
    rc_strategy_format(&s, buf, sizeof buf);
    cr_assert_str_eq(buf, "rc-k2-p2-ft1.5");
}
