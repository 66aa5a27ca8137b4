/* Unit tests of exp/sweep: sweep-file parsing, expansion order, ids, errors,
 * the experiment files, the cost model, and `rcsim plan` end to end. */
#include <criterion/criterion.h>
#include <math.h>
#include <criterion/parameterized.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "exp/cost.h"
#include "exp/job.h"
#include "exp/param.h"
#include "exp/sweep.h"

#define DATA RCSIM_SOURCE_DIR "/tests/data/sweeps/"
#define EXPERIMENTS RCSIM_SOURCE_DIR "/experiments/"

static rc_sweep *load_ok(const char *path, const char *const *ov, size_t n)
{
    rc_err err = {0};
    rc_sweep *s = rc_sweep_load(path, ov, n, &err);
    cr_assert_not_null(s, "loading %s failed: %s", path, err.msg);
    cr_assert_eq(err.code, 0);
    return s;
}

static void expect_job(const rc_job *j, int users, const char *strategy, uint64_t seed)
{
    cr_expect_eq(j->users, users, "users %d != %d", j->users, users);
    cr_expect_str_eq(j->strategy, strategy);
    cr_expect_eq(j->seed, seed, "seed %llu != %llu", (unsigned long long)j->seed,
                 (unsigned long long)seed);
}

Test(sweep, order_last_axis_fastest_seeds_innermost)
{
    rc_sweep *s = load_ok(DATA "good-order.yaml", NULL, 0);
    cr_assert_eq(rc_sweep_count(s), 12, "%zu jobs", rc_sweep_count(s));
    cr_expect_str_eq(rc_sweep_name(s), "good-order");
    const char *strat[] = {"unicast", "rc-k2-p2", "rc-k1-p1"};
    for (size_t i = 0; i < 12; i++) {
        const rc_job *j = rc_sweep_job(s, i);
        expect_job(j, i < 6 ? 32 : 64, strat[(i / 2) % 3], i % 2 + 1);
        /* defaults applied, resolved: paper model turns the quirks on */
        cr_expect_eq(j->model, RC_MODEL_PAPER);
        cr_expect_eq(j->quirks.lattice, 1);
        cr_expect_float_eq(j->duration_s, 600.0, 1e-9);
        cr_expect_eq(j->group_size, j->users, "group_size resolved to the population");
        cr_expect_eq(rc_sweep_job_id(s, i), rc_job_id(j));
    }
    cr_assert_eq(rc_sweep_axis_count(s), 3);
    cr_expect_str_eq(rc_sweep_axis_name(s, 0), "users");
    cr_expect_eq(rc_sweep_axis_size(s, 0), 2);
    cr_expect_str_eq(rc_sweep_axis_name(s, 1), "strategy");
    cr_expect_eq(rc_sweep_axis_size(s, 1), 3);
    cr_expect_str_eq(rc_sweep_axis_name(s, 2), "seed");
    cr_expect_eq(rc_sweep_axis_size(s, 2), 2);
    rc_sweep_free(s);
}

Test(sweep, file_text_and_path_kept_for_provenance)
{
    rc_sweep *s = load_ok(DATA "good-seeds-list.yaml", NULL, 0);
    cr_expect_str_eq(rc_sweep_path(s), DATA "good-seeds-list.yaml");
    cr_expect(strstr(rc_sweep_text(s), "seeds: [7, 3, 9]") != NULL);
    cr_expect_str_eq(rc_sweep_description(s), "explicit seeds keep their order");
    rc_sweep_free(s);
}

Test(sweep, seeds_list_keeps_order_count_means_one_to_n)
{
    rc_sweep *s = load_ok(DATA "good-seeds-list.yaml", NULL, 0);
    cr_assert_eq(rc_sweep_count(s), 3);
    uint64_t want[] = {7, 3, 9};
    for (size_t i = 0; i < 3; i++) cr_expect_eq(rc_sweep_job(s, i)->seed, want[i]);
    rc_sweep_free(s);

    s = load_ok(EXPERIMENTS "fig5.yaml", NULL, 0);
    for (size_t i = 0; i < 3; i++) cr_expect_eq(rc_sweep_job(s, i)->seed, i + 1);
    rc_sweep_free(s);
}

Test(sweep, minimal_file_is_one_job_with_registry_defaults)
{
    rc_sweep *s = load_ok(DATA "good-minimal.yaml", NULL, 0);
    cr_assert_eq(rc_sweep_count(s), 1);
    rc_job d;
    rc_job_defaults(&d);
    rc_job_resolve(&d);
    cr_expect_eq(rc_sweep_job_id(s, 0), rc_job_id(&d));
    cr_expect_eq(rc_sweep_axis_count(s), 0);
    rc_sweep_free(s);
}

Test(sweep, zip_varies_together_and_include_adds_jobs)
{
    rc_sweep *s = load_ok(DATA "good-zip-include.yaml", NULL, 0);
    /* users 2 x zip 2 x seeds 2, then include 1 x seeds 2 and one with its own seed */
    cr_assert_eq(rc_sweep_count(s), 11, "%zu jobs", rc_sweep_count(s));
    for (size_t i = 0; i < 8; i++) {
        const rc_job *j = rc_sweep_job(s, i);
        bool rc = (i / 2) % 2 == 1;
        expect_job(j, i < 4 ? 32 : 64, rc ? "rc-k2-p2" : "unicast", i % 2 + 1);
        cr_expect_float_eq(j->lambda_div, rc ? 2.0 : 1.0, 1e-12);
    }
    expect_job(rc_sweep_job(s, 8), 128, "rc-k1-p1", 1);
    expect_job(rc_sweep_job(s, 9), 128, "rc-k1-p1", 2);
    expect_job(rc_sweep_job(s, 10), 16, "unicast", 42);
    cr_expect_float_eq(rc_sweep_job(s, 10)->duration_s, 600.0, 1e-9, "defaults apply to includes");
    cr_assert_eq(rc_sweep_axis_count(s), 3);
    cr_expect_str_eq(rc_sweep_axis_name(s, 1), "zip(strategy,lambda_div)");
    rc_sweep_free(s);
}

Test(sweep, overrides_apply_last_and_collapse_axes)
{
    const char *ov[] = {"duration=1h", "users=64", "seed=5", "q_lattice=off"};
    rc_sweep *s = load_ok(DATA "good-order.yaml", ov, 4);
    cr_assert_eq(rc_sweep_count(s), 3, "users and seeds collapse: %zu jobs", rc_sweep_count(s));
    for (size_t i = 0; i < 3; i++) {
        const rc_job *j = rc_sweep_job(s, i);
        cr_expect_eq(j->users, 64);
        cr_expect_eq(j->seed, 5);
        cr_expect_float_eq(j->duration_s, 3600.0, 1e-9);
        cr_expect_eq(j->quirks.lattice, 0, "an explicit quirk switch beats the model");
    }
    cr_expect_eq(rc_sweep_axis_count(s), 1);
    rc_sweep_free(s);
}

Test(sweep, bad_override_is_an_error)
{
    const char *bad[][1] = {{"userz=3"}, {"users=abc"}, {"users"}, {"strategy=rc-k0-p1"}};
    const char *want[] = {"userz", "users", "users", "rc-k0-p1"};
    for (size_t i = 0; i < 4; i++) {
        rc_err err = {0};
        rc_sweep *s = rc_sweep_load(DATA "good-order.yaml", bad[i], 1, &err);
        cr_expect_null(s, "override %s accepted", bad[i][0]);
        rc_sweep_free(s);
        cr_expect_eq(err.code, RC_EXIT_USAGE);
        cr_expect(strstr(err.msg, want[i]) != NULL, "message '%s' lacks '%s'", err.msg, want[i]);
    }
}

Test(sweep, ids_are_stable_and_seed_sensitive)
{
    rc_sweep *a = load_ok(DATA "good-order.yaml", NULL, 0);
    rc_sweep *b = load_ok(DATA "good-order.yaml", NULL, 0);
    for (size_t i = 0; i < rc_sweep_count(a); i++)
        cr_expect_eq(rc_sweep_job_id(a, i), rc_sweep_job_id(b, i));
    cr_expect_eq(rc_sweep_hash(a), rc_sweep_hash(b));
    /* jobs 0 and 1 differ only in the seed */
    cr_expect_neq(rc_sweep_job_id(a, 0), rc_sweep_job_id(a, 1));
    rc_job j = *rc_sweep_job(a, 0);
    j.seed = 2;
    cr_expect_eq(rc_job_id(&j), rc_sweep_job_id(a, 1));

    /* the same set of jobs written differently: same ids, same hash (it is over sorted ids) */
    rc_sweep *c = load_ok(DATA "good-order-swapped.yaml", NULL, 0);
    cr_assert_eq(rc_sweep_count(c), rc_sweep_count(a));
    cr_expect_eq(rc_sweep_hash(c), rc_sweep_hash(a));
    /* swapped: strategy rc-k1-p1 first, users 64 first, seed 2 first */
    cr_expect_eq(rc_sweep_job_id(c, 0), rc_sweep_job_id(a, 11));
    cr_expect_neq(rc_sweep_hash(c), 0);
    rc_sweep_free(a);
    rc_sweep_free(b);
    rc_sweep_free(c);
}

Test(sweep, same_run_in_two_figures_has_one_id)
{
    rc_sweep *f5 = load_ok(EXPERIMENTS "fig5.yaml", NULL, 0);
    rc_sweep *f15 = load_ok(EXPERIMENTS "fig15.yaml", NULL, 0);
    size_t shared = 0;
    for (size_t i = 0; i < rc_sweep_count(f15); i++)
        for (size_t k = 0; k < rc_sweep_count(f5); k++)
            if (rc_sweep_job_id(f15, i) == rc_sweep_job_id(f5, k)) shared++;
    cr_expect_eq(shared, rc_sweep_count(f15), "every fig15 job is a fig5 job (%zu of %zu)",
                 shared, rc_sweep_count(f15));
    rc_sweep_free(f5);
    rc_sweep_free(f15);
}

/* Expected job counts of the experiment files (docs/spec.md §6 x seeds). */
static const struct {
    const char *file;
    size_t jobs;
} experiments[] = {
    {"fig5.yaml", 7 * 3 * 3},       {"fig6.yaml", 2 * 3 * 4 * 3},  {"fig7.yaml", 5 * 2 * 3 * 3},
    {"fig8.yaml", 6 * 2 * 3 * 3},   {"fig9.yaml", 5 * 9 * 10},      {"fig14.yaml", 3 * 5 * 9 * 10},
    {"fig15.yaml", 4 * 3 * 3},      {"fig16.yaml", 3 * 4 * 10},     {"quick.yaml", 3 * 2 * 2},
    {"ci-small.yaml", 2 * 2 * 2},   {"reconcile.yaml", 2 * 2 * 4 * 3}, {"membership.yaml", 4 * 3 * 2 * 3},
    {"means-spread.yaml", 3 * 2 * 3 * 20}, {"readme-example.yaml", 5 * 3 * 3},
    {"adversary.yaml", 2 * 2 * 3 * 6 * 4 * 2}, {"misses-spread.yaml", 49 * 30},
    {"unobservability.yaml", 2 * 2 * 5}, {"trilemma.yaml", 2 * 4 * 3 * 3 * 5},
    {"trilemma-fanout.yaml", 2 * 4 * 3 * 3 * 1}, {"population-model.yaml", 3 * 3 * 30},
    {"population-model-ft.yaml", 3 * 2 * 30}, {"population-model-ft-10k.yaml", 3 * 10},
    {"deployment.yaml", 4 * 4 * 2 * 3}, {"disclosure.yaml", 4 * 3 * 6 * 3},
    {"network.yaml", 4 * 2 * 3}, {"network-rules.yaml", 3 * 4 * 3},
};

Test(sweep, every_experiment_file_loads_with_expected_jobs)
{
    glob_t g;
    cr_assert_eq(glob(EXPERIMENTS "*.yaml", 0, NULL, &g), 0);
    size_t n_exp = sizeof experiments / sizeof experiments[0];
    cr_expect_eq(g.gl_pathc, n_exp, "%zu experiment files, %zu expected here", g.gl_pathc,
                 n_exp);
    for (size_t f = 0; f < g.gl_pathc; f++) {
        rc_sweep *s = load_ok(g.gl_pathv[f], NULL, 0);
        const char *base = strrchr(g.gl_pathv[f], '/') + 1;
        bool known = false;
        for (size_t e = 0; e < n_exp; e++) {
            if (strcmp(experiments[e].file, base) != 0) continue;
            known = true;
            cr_expect_eq(rc_sweep_count(s), experiments[e].jobs, "%s: %zu jobs, expected %zu",
                         base, rc_sweep_count(s), experiments[e].jobs);
        }
        cr_expect(known, "%s has no expected job count in this test", base);
        for (size_t i = 0; i < rc_sweep_count(s); i++) {
            const rc_job *j = rc_sweep_job(s, i);
            /* the paper's figures (and the quick/CI sweeps) use the paper model */
            if (!strncmp(base, "fig", 3) || !strcmp(base, "quick.yaml"))
                cr_expect_eq(j->model, RC_MODEL_PAPER, "%s job %zu: model paper", base, i);
            if (!strncmp(base, "fig", 3))
                cr_expect_float_eq(j->duration_s, 86400.0, 1e-9, "%s: 24 h", base);
        }
        rc_sweep_free(s);
    }
    globfree(&g);
}

static size_t count_where(const rc_sweep *s, const char *key, const char *val)
{
    const rc_param_def *d = rc_param_find(key);
    cr_assert_not_null(d);
    size_t n = 0;
    for (size_t i = 0; i < rc_sweep_count(s); i++) {
        char buf[300];
        rc_param_format(rc_sweep_job(s, i), d, buf, sizeof buf);
        if (!strcmp(buf, val)) n++;
    }
    return n;
}

Test(sweep, experiment_files_match_the_paper_configurations)
{
    rc_sweep *s = load_ok(EXPERIMENTS "fig9.yaml", NULL, 0);
    cr_expect_eq(count_where(s, "trace", "gen_os15"), rc_sweep_count(s), "fig9 is 80 %% only");
    cr_expect_eq(count_where(s, "strategy", "rc-k16-p16-ft-dropoffline"), 5 * 10);
    cr_expect_eq(count_where(s, "lambda_div", "16"), 9 * 10);
    cr_expect_eq(count_where(s, "users", "128"), rc_sweep_count(s));
    rc_sweep_free(s);

    s = load_ok(EXPERIMENTS "fig14.yaml", NULL, 0);
    cr_expect_eq(count_where(s, "trace", "online"), 5 * 9 * 10);
    cr_expect_eq(count_where(s, "trace", "gen_os10"), 5 * 9 * 10);
    cr_expect_eq(count_where(s, "trace", "gen_os15"), 0, "the 80 %% panel is fig9.yaml");
    cr_expect_eq(count_where(s, "strategy", "rc-k8-p1-ft-dropoffline"), 3 * 5 * 10);
    rc_sweep_free(s);

    s = load_ok(EXPERIMENTS "fig7.yaml", NULL, 0);
    cr_expect_eq(count_where(s, "groups", "16"), 2 * 3 * 3);
    cr_expect_eq(count_where(s, "group_size", "128"), rc_sweep_count(s));
    rc_sweep_free(s);

    s = load_ok(EXPERIMENTS "fig8.yaml", NULL, 0);
    cr_expect_eq(count_where(s, "burst", "32"), 2 * 3 * 3);
    cr_expect_eq(count_where(s, "trace", "gen_os15"), 6 * 3 * 3);
    rc_sweep_free(s);

    s = load_ok(EXPERIMENTS "fig16.yaml", NULL, 0);
    cr_expect_eq(count_where(s, "strategy", "rc-k2-p2-ft"), 3 * 10);
    cr_expect_eq(count_where(s, "trace", "online"), 0);
    rc_sweep_free(s);

    s = load_ok(EXPERIMENTS "fig6.yaml", NULL, 0);
    cr_expect_eq(count_where(s, "users", "256"), 3 * 4 * 3);
    cr_expect_eq(count_where(s, "strategy", "rc-k1-p1-ft-dropoffline"), 2 * 3 * 3);
    rc_sweep_free(s);

    s = load_ok(EXPERIMENTS "quick.yaml", NULL, 0);
    cr_expect_eq(count_where(s, "trace", "online"), rc_sweep_count(s), "quick needs no traces");
    rc_sweep_free(s);
}

/* Bad files: the message names the file, the line and the key. */
typedef struct bad_case {
    char file[40];
    int line;
    char key[40];
} bad_case;

ParameterizedTestParameters(sweep, bad_files)
{
    static bad_case cases[] = {
        {"bad-unknown-key.yaml", 4, "userz"},
        {"bad-unknown-top.yaml", 4, "axis"},
        {"bad-value.yaml", 6, "abc"},
        {"bad-range.yaml", 4, "heavy_fraction"},
        {"bad-empty-axis.yaml", 6, "strategy"},
        {"bad-duplicate-axis.yaml", 7, "duplicate axis 'users'"},
        {"bad-duplicate-key.yaml", 5, "duration"},
        {"bad-nonlist-axis.yaml", 6, "strategy"},
        {"bad-syntax.yaml", 6, "YAML syntax error"},
        {"bad-group-size.yaml", 7, "group_size"},
        {"bad-k0.yaml", 8, "rc-k0-p1"},
        {"bad-duplicate-job.yaml", 9, "same job"},
        {"bad-missing-name.yaml", 1, "name"},
        {"bad-seeds.yaml", 2, "seeds"},
        {"bad-zip-axis.yaml", 6, "strategy"},
        {"bad-not-axis.yaml", 3, "data_dir"},
    };
    return cr_make_param_array(bad_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(bad_case *c, sweep, bad_files)
{
    char path[512], where[96];
    snprintf(path, sizeof path, DATA "%s", c->file);
    rc_err err = {0};
    rc_sweep *s = rc_sweep_load(path, NULL, 0, &err);
    cr_assert_null(s, "%s loaded", c->file);
    cr_expect_eq(err.code, RC_EXIT_USAGE);
    snprintf(where, sizeof where, "%s:%d: ", c->file, c->line);
    cr_expect(strstr(err.msg, where) != NULL, "message '%s' lacks '%s'", err.msg, where);
    cr_expect(strstr(err.msg, c->key) != NULL, "message '%s' lacks '%s'", err.msg, c->key);
}

Test(sweep, every_other_test_sweep_file_loads)
{
    glob_t g;
    cr_assert_eq(glob(DATA "*.yaml", 0, NULL, &g), 0);
    size_t good = 0;
    for (size_t f = 0; f < g.gl_pathc; f++) {
        if (!strncmp(strrchr(g.gl_pathv[f], '/') + 1, "bad-", 4)) continue;
        rc_sweep *s = load_ok(g.gl_pathv[f], NULL, 0);
        cr_expect_gt(rc_sweep_count(s), 0);
        rc_sweep_free(s);
        good++;
    }
    cr_expect_geq(good, 5);
    globfree(&g);
}

Test(sweep, every_bad_file_is_covered)
{
    glob_t g;
    cr_assert_eq(glob(DATA "bad-*.yaml", 0, NULL, &g), 0);
    cr_expect_eq(g.gl_pathc, 16, "add new bad files to the bad_files cases");
    globfree(&g);
}

Test(sweep, missing_file_is_a_usage_error)
{
    rc_err err = {0};
    cr_expect_null(rc_sweep_load(DATA "no-such-file.yaml", NULL, 0, &err));
    cr_expect_eq(err.code, RC_EXIT_USAGE);
    cr_expect(strstr(err.msg, "no-such-file.yaml") != NULL, "%s", err.msg);
}

Test(sweep, cost_model_grows_with_the_work)
{
    rc_job base;
    rc_job_defaults(&base);
    base.model = RC_MODEL_PAPER;
    double c0 = rc_job_cost_estimate(&base);
    cr_assert(c0 > 0);
    rc_job j = base;
    j.users = 256;
    cr_expect_gt(rc_job_cost_estimate(&j), c0, "more users cost more");
    j = base;
    j.duration_s /= 2;
    cr_expect_lt(rc_job_cost_estimate(&j), c0 * 0.6, "half the span costs about half");
    j = base;
    strcpy(j.strategy, "rc-k16-p16-ft-dropoffline");
    cr_expect_gt(rc_job_cost_estimate(&j), 2 * c0, "RC copies + ACKs at p = 16 cost more");
    double p16 = rc_job_cost_estimate(&j);
    j.lambda_div = 16;
    cr_expect_geq(rc_job_cost_estimate(&j), p16, "lambda/16: same traffic, fewer slots");
    j = base;
    j.groups = 16;
    cr_expect_gt(rc_job_cost_estimate(&j), 10 * c0, "the work follows the real traffic");
    j = base;
    j.burst = 32;
    cr_expect_gt(rc_job_cost_estimate(&j), c0);
    j = base;
    j.cover = RC_COVER_FULL;
    cr_expect_gt(rc_job_cost_estimate(&j), c0);
}

/* The estimate of a population job (zipf groups of 3..200, RC-FT, --cover
 * full): observed tracking `targets` messages of `group` (NULL: all), or not
 * observed (0). */
static double group_cost(uint32_t users, int targets, double duration_s, const char *group)
{
    rc_job j;
    rc_job_defaults(&j);
    j.model = RC_MODEL_EXACT;
    j.population = users;
    j.groups = users / 5;
    strcpy(j.group_size_dist, "zipf:1.5:3:200");
    strcpy(j.strategy, "rc-k2-p2-ft-dropoffline");
    j.duration_s = duration_s;
    j.cover = RC_COVER_FULL;
    j.anonymity = targets > 0;
    if (targets > 0) j.anon_targets = targets;
    if (group != NULL) strcpy(j.anon_group, group);
    return rc_job_cost_estimate(&j);
}

static double population_cost(uint32_t users, int targets, double duration_s)
{
    return group_cost(users, targets, duration_s, NULL);
}

/* --cover full's routing: linear in the sub-messages a bundle splits into at
 * the last layer (measured 1.2, 2.65, 5.1 and 9.6 CPU s an hour at 128 users
 * for p = 1, 2, 4, 8), a little dearer a hop in larger networks. */
Test(sweep, cost_model_routes_cover_by_the_bundles_parts)
{
    rc_job j;
    rc_job_defaults(&j);
    j.model = RC_MODEL_EXACT;
    j.duration_s = 3600;
    j.cover = RC_COVER_FULL;
    double c[4];
    const char *names[4] = {"rc-k2-p1", "rc-k2-p2", "rc-k4-p4", "rc-k8-p8"};
    for (int i = 0; i < 4; i++) {
        strcpy(j.strategy, names[i]);
        c[i] = rc_job_cost_estimate(&j);
    }
    for (int i = 1; i < 4; i++)
        cr_expect(c[i] > 1.8 * c[i - 1] && c[i] < 2.2 * c[i - 1], "%s %g against %s %g",
                  names[i], c[i], names[i - 1], c[i - 1]);
    /* ten times the users: ten times the hops, each 1.1-1.3 times dearer */
    strcpy(j.strategy, "rc-k2-p2");
    double small = rc_job_cost_estimate(&j);
    j.users = 1280;
    double large = rc_job_cost_estimate(&j);
    cr_expect(large > 11 * small && large < 13 * small, "%g against %g", large, small);
}

/* The observer's cost (src/exp/cost.c, fitted to jobs of 10^4 and 10^5 users
 * tracking 1 to 1,000 messages: docs/performance.md, fourteenth round). */
Test(sweep, cost_model_counts_the_observer_and_its_tracked_messages)
{
    double cover = population_cost(10000, 0, 60);
    double c1 = population_cost(10000, 1, 60), c100 = population_cost(10000, 100, 60);
    double c1000 = population_cost(10000, 1000, 60);
    /* measured: 1.23-1.25x with one tracked message, 4.9-5.9x with 1,000 */
    cr_expect(c1 > 1.15 * cover && c1 < 1.35 * cover, "the observer alone: %g against %g", c1,
              cover);
    cr_expect(c1000 > 4 * cover && c1000 < 7 * cover, "1,000 tracked: %g against %g", c1000,
              cover);
    cr_expect(c100 > c1 && c100 < c1000);
    /* ten times the users: each tracked message follows ten times the traffic */
    double c1000_5 = population_cost(100000, 1000, 60);
    cr_expect(c1000_5 > 8 * c1000 && c1000_5 < 14 * c1000, "%g against %g", c1000_5, c1000);
    cr_expect(c1000_5 > 4 * population_cost(100000, 0, 60));
    /* a span within the warm-up and cool-down tracks nothing: the observer alone */
    double short_1000 = population_cost(10000, 1000, 20);
    cr_expect_float_eq(population_cost(10000, 1, 20), short_1000, 1e-12);
    cr_expect(short_1000 < 1.35 * population_cost(10000, 0, 20));
    /* tracked messages are capped by the candidates: one small group's few */
    cr_expect_lt(group_cost(10000, 1000000, 60, "size:3"), group_cost(10000, 1000000, 60, NULL) / 5,
                 "a group of 3 has few messages to track");
}

/* `rcsim plan` end to end through the real binary. */
static int run(const char *cmd, char *out, size_t n)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t got = fread(out, 1, n - 1, p);
    out[got] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(plan, prints_jobs_axes_and_estimate)
{
    static char out[1 << 16];
    int rc = run(RCSIM_BINARY " plan " EXPERIMENTS "fig5.yaml --workers 8 2>&1", out, sizeof out);
    cr_assert_eq(rc, 0, "rc %d: %s", rc, out);
    cr_expect(strstr(out, "fig5") != NULL, "%s", out);
    cr_expect(strstr(out, "63 = users 7 x strategy 3 x seed 3") != NULL, "%s", out);
    cr_expect(strstr(out, "CPU-s") != NULL, "%s", out);
    cr_expect(strstr(out, "8 workers") != NULL, "%s", out);
}

Test(plan, list_and_set)
{
    static char out[1 << 16];
    int rc = run(RCSIM_BINARY " plan --list " EXPERIMENTS "quick.yaml --set users=32 2>&1", out,
                 sizeof out);
    cr_assert_eq(rc, 0, "rc %d: %s", rc, out);
    cr_expect(strstr(out, "jobs:      4 =") != NULL, "%s", out);
    cr_expect(strstr(out, "strategy=rc-k2-p2 seed=2") != NULL, "%s", out);
    cr_expect(strstr(out, "users=") == NULL, "users no longer varies: %s", out);
}

Test(plan, json_is_one_object)
{
    static char out[1 << 16];
    int rc = run(RCSIM_BINARY " plan --json --list " EXPERIMENTS "ci-small.yaml", out, sizeof out);
    cr_assert_eq(rc, 0, "rc %d: %s", rc, out);
    cr_expect_eq(out[0], '{');
    cr_expect(strstr(out, "\"jobs\": 8") != NULL, "%s", out);
    cr_expect(strstr(out, "\"name\": \"ci-small\"") != NULL, "%s", out);
    cr_expect(strstr(out, "\"index\": 7") != NULL, "%s", out);
}

Test(plan, bad_file_exits_2_with_the_error_on_stderr)
{
    static char out[1 << 14];
    int rc = run(RCSIM_BINARY " plan " DATA "bad-k0.yaml 2>&1 >/dev/null", out, sizeof out);
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "bad-k0.yaml:8:") != NULL, "%s", out);
    rc = run(RCSIM_BINARY " plan --help", out, sizeof out);
    cr_expect_eq(rc, 0);
    cr_expect(strstr(out, "usage: rcsim plan") != NULL, "%s", out);
    rc = run(RCSIM_BINARY " plan 2>&1", out, sizeof out);
    cr_expect_eq(rc, 2);
}

/* A population job's groups have the distribution's sizes: its estimate is
 * that of the same groups of the mean size (fixed:8 here), not of groups as
 * large as the whole population (rc_job_group_size's answer when group_size
 * is 0), which overestimated such jobs hundreds of times over. */
Test(sweep, cost_model_sizes_population_groups_by_their_distribution)
{
    rc_job pop;
    rc_job_defaults(&pop);
    pop.population = 2000;
    pop.users = 2000;
    pop.groups = 400;
    strcpy(pop.group_size_dist, "fixed:8");
    rc_job same = pop;
    same.population = 0;
    same.group_size_dist[0] = '\0';
    same.group_size = 8;
    double a = rc_job_cost_estimate(&pop), b = rc_job_cost_estimate(&same);
    cr_expect(fabs(a - b) <= 1e-9 * b, "population job %g s, the same groups of 8 %g s", a, b);
}
