/* Populations (src/multicast/population.h): size distributions,
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

/* ---------- population mode, end to end ---------- */

#include "core/sim.h"
#include "exp/job.h"
#include "exp/param.h"
#include "exp/result.h"
#include "exp/run.h"
#include "loopix/net.h"
#include "multicast/mc.h"

static void pop_job(rc_job *j, const char *strategy)
{
    rc_job_defaults(j);
    j->population = 600;
    j->groups = 150;
    strcpy(j->group_size_dist, "zipf:1.3:2:120");
    strcpy(j->strategy, strategy);
    j->duration_s = 1800;
    j->check = true;
}

/* Every group's first member multicasts once at t = 0; nothing else happens. */
static void one_round(rc_job *j, rc_result *out, uint64_t *memberships)
{
    rc_job_resolve(j);
    rc_err err = {0};
    cr_assert_eq(rc_job_validate(j, &err), 0, "%s", err.msg);
    j->app_rate = 0;
    rc_sim sim;
    rc_sim_init(&sim, (rc_time)(j->duration_s * 1e6));
    rc_net_cfg net_cfg;
    rc_mc_cfg mc_cfg;
    rc_job_net_cfg(j, &net_cfg);
    rc_job_mc_cfg(j, &mc_cfg);
    rc_mc *mc = rc_mc_new(&sim, &mc_cfg, &net_cfg, NULL, &err);
    cr_assert_not_null(mc, "%s", err.msg);
    rc_mc_start(mc);
    *memberships = 0;
    for (uint32_t g = 0; g < rc_mc_groups(mc); g++) {
        uint32_t src = rc_mc_group_members(mc, g)[0];
        *memberships += rc_mc_group_size(mc, g);
        cr_assert_eq(rc_mc_group_pos(mc, g, src), 0);
        rc_mc_multicast(mc, g, src, rc_mc_payload_new(mc, g, src));
    }
    rc_sim_run(&sim, NULL, NULL, 0);
    rc_result_init(out);
    rc_result_gather(out, mc, false);
    rc_mc_free(mc);
    rc_sim_free(&sim);
}

static void check_round(const char *strategy)
{
    rc_job j;
    pop_job(&j, strategy);
    rc_result r;
    uint64_t mships;
    one_round(&j, &r, &mships);
    uint64_t expected = mships - 150;
    cr_assert_eq(r.c.expected_deliveries, expected);
    cr_assert_eq(r.c.deliveries, expected, "%s: %llu of %llu delivered", strategy,
                 (unsigned long long)r.c.deliveries, (unsigned long long)expected);
    cr_assert_eq(r.c.undelivered, 0);
    if (!strstr(strategy, "ft")) cr_assert_eq(r.c.duplicates, 0);
    /* the buckets partition the groups, the multicasts and the deliveries */
    uint64_t g = 0, m = 0, d = 0, on = 0;
    for (uint32_t i = 0; i < r.n_sizes; i++) {
        cr_assert(r.sizes[i].lo <= r.sizes[i].hi);
        g += r.sizes[i].groups, m += r.sizes[i].multicasts, d += r.sizes[i].deliveries;
        on += r.sizes[i].online.count;
    }
    cr_assert_eq(g, 150);
    cr_assert_eq(m, 150);
    cr_assert_eq(d, expected);
    cr_assert_eq(on, r.online.count);
    /* per-user load adds up */
    cr_assert_eq(r.n_users_load, 600);
    uint64_t sent = 0, groups = 0;
    for (size_t u = 0; u < 600; u++) sent += r.user_sent[u], groups += r.user_groups[u];
    cr_assert_eq(groups, mships);
    cr_assert_eq(sent, r.c.payload_packets + r.c.ack_packets, "%llu sent by users, %llu packets",
                 (unsigned long long)sent,
                 (unsigned long long)(r.c.payload_packets + r.c.ack_packets));
    /* a bigger group takes more hops: its mean latency is not below the smallest's */
    cr_assert_geq(r.sizes[r.n_sizes - 1].online.mean_s, r.sizes[0].online.mean_s);
    rc_result_free(&r);
}

Test(population, every_member_of_every_group_gets_its_message_once_unicast)
{
    check_round("unicast");
}
Test(population, every_member_of_every_group_gets_its_message_once_rc)
{
    check_round("rc-k2-p2");
}
Test(population, every_member_of_every_group_gets_its_message_once_rc_ft)
{
    check_round("rc-k2-p2-ft-dropoffline");
}

Test(population, a_full_run_accounts_for_every_delivery_and_is_deterministic)
{
    rc_job j;
    pop_job(&j, "rc-k2-p2-ft-dropoffline");
    j.adversary = 1; /* drop */
    j.adversary_fraction = 0.05;
    rc_result a, b, c;
    rc_err err = {0};
    cr_assert_eq(rc_run_job(&j, &a, NULL, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(rc_run_job(&j, &b, NULL, NULL, &err), 0, "%s", err.msg);
    cr_assert_gt(a.c.multicasts, 1000);
    cr_assert_eq(a.c.deliveries + a.c.undelivered, a.c.expected_deliveries);
    cr_assert_eq(memcmp(&a.online, &b.online, sizeof a.online), 0);
    cr_assert_eq(memcmp(a.user_sent, b.user_sent, 600 * sizeof(uint32_t)), 0);
    j.seed = 2;
    cr_assert_eq(rc_run_job(&j, &c, NULL, NULL, &err), 0, "%s", err.msg);
    cr_assert_neq(memcmp(a.user_groups, c.user_groups, 600 * sizeof(uint32_t)), 0,
                  "another seed drew the same groups");
    /* the image round-trips the population section */
    void *buf;
    size_t len;
    rc_result_pack(&a, &buf, &len);
    rc_result d;
    cr_assert_eq(rc_result_unpack(&d, buf, len, &err), 0, "%s", err.msg);
    cr_assert_eq(d.n_sizes, a.n_sizes);
    cr_assert_eq(memcmp(d.sizes, a.sizes, sizeof a.sizes), 0);
    cr_assert_eq(memcmp(d.user_sent, a.user_sent, 600 * sizeof(uint32_t)), 0);
    free(buf);
    rc_result_free(&a);
    rc_result_free(&b);
    rc_result_free(&c);
    rc_result_free(&d);
}

Test(population, bad_population_jobs_are_usage_errors)
{
    struct {
        const char *key, *value, *why;
    } bad[] = {
        {"group_size_dist", "zipf:1.5:700:800", "larger than the population"},
        {"group_size_dist", "lognormal:2:-1", "negative"},
        {"membership_rate", "0.01", "not available in population mode"},
        {"gossip_interval", "60", "not available in population mode"},
        {"source_offline", "10:10", "not available in population mode"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc_job j;
        pop_job(&j, "unicast");
        rc_err err = {0};
        cr_assert_eq(rc_param_set_by_name(&j, bad[i].key, bad[i].value, &err), 0, "%s", err.msg);
        rc_job_resolve(&j);
        cr_assert_eq(rc_job_validate(&j, &err), RC_EXIT_USAGE, "%s=%s accepted", bad[i].key,
                     bad[i].value);
        cr_assert_not_null(strstr(err.msg, bad[i].why), "%s", err.msg);
    }
    rc_job j;
    rc_job_defaults(&j);
    strcpy(j.group_size_dist, "fixed:4");
    rc_err err = {0};
    cr_assert_eq(rc_job_validate(&j, &err), RC_EXIT_USAGE, "a distribution without --population");
    rc_job_defaults(&j);
    j.population = 100;
    cr_assert_eq(rc_job_validate(&j, &err), RC_EXIT_USAGE, "--population without a distribution");
}

Test(population, mixes_scale_with_the_population_and_ids_of_old_jobs_stay)
{
    rc_job j;
    rc_job_defaults(&j);
    char buf[8192];
    rc_job_canonical(&j, buf, sizeof buf);
    cr_assert_null(strstr(buf, "population"), "%s", buf);
    j.population = 10000;
    strcpy(j.group_size_dist, "fixed:8");
    rc_job_resolve(&j);
    cr_assert_eq(j.users, 10000);
    cr_assert_eq(j.mixes_per_layer, 10, "one mix per 1,000 users per layer: %d", j.mixes_per_layer);
    cr_assert_eq(rc_job_providers(&j), 625);
}

Test(population, histogram_summaries_agree_with_exact_ones)
{
    gsl_rng *r = rc_rng_new(5, 1);
    const size_t n = 50000;
    double *v = malloc(n * sizeof *v);
    uint32_t *h = calloc(RC_HIST_BINS, sizeof *h);
    double mean = 0, m2 = 0, mn = 1e300, mx = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = rc_rng_exp(r, 8.0) + (i % 10 == 0 ? 200 * rc_rng_uniform(r) : 0);
        h[rc_hist_bin(v[i])]++;
        double d = v[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * (v[i] - mean);
        if (v[i] < mn) mn = v[i];
        if (v[i] > mx) mx = v[i];
    }
    rc_summary a, b;
    rc_summary_from_hist(&b, h, mean, m2, mn, mx);
    rc_summary_compute(&a, v, n);
    cr_assert_eq(a.count, b.count);
    cr_assert_float_eq(a.mean_s, b.mean_s, 1e-9);
    cr_assert_float_eq(a.sd_s, b.sd_s, 1e-6);
    for (int q = 0; q < RC_SUMMARY_QUANTILES; q++) {
        double tol = a.q[q] < 100 ? 0.01 : 0.01 * a.q[q];
        cr_assert_leq(fabs(a.q[q] - b.q[q]), tol, "%s: exact %g, from the histogram %g",
                      rc_summary_q_names[q], a.q[q], b.q[q]);
    }
    free(v);
    free(h);
    rc_rng_free(r);
}

Test(population, histogram_quantiles_interpolate_within_a_bin)
{
    /* 1000 samples evenly spread over one bucket: the median is its middle */
    size_t bin = rc_hist_bin(5.0);
    double lo = rc_hist_edge(bin), w = rc_hist_edge(bin + 1) - lo;
    uint32_t *h = calloc(RC_HIST_BINS, sizeof *h);
    double mean = 0, m2 = 0;
    for (int i = 0; i < 1000; i++) {
        double x = lo + w * (i + 0.5) / 1000;
        cr_assert_eq(rc_hist_bin(x), bin);
        h[bin]++;
        double d = x - mean;
        mean += d / (i + 1);
        m2 += d * (x - mean);
    }
    rc_summary s;
    rc_summary_from_hist(&s, h, mean, m2, lo + w * 0.0005, lo + w * 0.9995);
    cr_assert_lt(fabs(s.q[4] - (lo + w / 2)), w / 100, "median %.9f, middle %.9f", s.q[4],
                 lo + w / 2);
    cr_assert_lt(fabs(s.q[0] - (lo + w / 100)), w / 100, "p1 %.9f", s.q[0]);
    free(h);
}
/* p = 1: population models 2 and 3 count the busy clients' cover firings in
 * aggregate and draw hops as one sum, and model 3 schedules each copy for its
 * pull when it leaves; every copy must still arrive exactly once. */
Test(population, every_member_of_every_group_gets_its_message_once_rc_ft_p1)
{
    check_round("rc-k2-p1-ft");
}

/* The model version: auto is the newest in population mode, it is part of a
 * population job's id (results of two models never share one), and a
 * job outside population mode neither takes it nor changes its id. */
Test(population, population_model_resolves_and_names_the_job)
{
    rc_job j;
    pop_job(&j, "unicast");
    rc_job_resolve(&j);
    cr_assert_eq(j.population_model, RC_POPULATION_MODEL);
    char c2[8192], c1[8192], c0[8192];
    rc_job_canonical(&j, c2, sizeof c2);
    cr_assert(strstr(c2, "\npopulation_model=4\n") != NULL, "%s", c2);
    j.population_model = 1;
    rc_job_canonical(&j, c1, sizeof c1);
    cr_assert(strstr(c1, "\npopulation_model=1\n") != NULL);
    uint64_t id1 = rc_job_id(&j);
    pop_job(&j, "unicast");
    cr_assert_neq(rc_job_id(&j), id1, "models 1 and 4 share a job id");
    rc_net_cfg cfg;
    j.population_model = 1;
    rc_job_resolve(&j);
    rc_job_net_cfg(&j, &cfg);
    cr_assert(!cfg.aggregate_cover && !cfg.direct_pull && !cfg.direct_arrival_order);
    j.population_model = 2;
    rc_job_net_cfg(&j, &cfg);
    cr_assert(cfg.aggregate_cover && !cfg.direct_pull && !cfg.direct_arrival_order);
    j.population_model = 3;
    rc_job_net_cfg(&j, &cfg);
    cr_assert(cfg.aggregate_cover && cfg.direct_pull && !cfg.direct_arrival_order);
    j.population_model = 4;
    rc_job_net_cfg(&j, &cfg);
    cr_assert(cfg.aggregate_cover && cfg.direct_pull && cfg.direct_arrival_order);
    uint64_t id4 = rc_job_id(&j);
    j.population_model = 3;
    cr_assert_neq(rc_job_id(&j), id4, "models 3 and 4 share a job id");

    rc_job plain;
    rc_job_defaults(&plain);
    rc_job_resolve(&plain);
    cr_assert_eq(plain.population_model, 0);
    rc_job_canonical(&plain, c0, sizeof c0);
    cr_assert(strstr(c0, "population_model") == NULL, "%s", c0);
    plain.population_model = 2;
    rc_err err = {0};
    cr_assert_neq(rc_job_validate(&plain, &err), 0);
    cr_assert(strstr(err.msg, "population_model") && strstr(err.msg, "population mode"), "%s",
              err.msg);
}
