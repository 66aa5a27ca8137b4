/* Tests of trace/synth: statistics of known traces, determinism of the
 * generator for a seed, and the statistics of generated traces against the
 * model's targets (explicit tolerances, see each test). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/avail.h"
#include "trace/synth.h"

static char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rcsim-test-synth-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(synth, .init = make_tmpdir, .fini = remove_tmpdir);

static rc_trace *generate(const rc_synth_model *m, size_t n, uint64_t seed, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    rc_err err = {0};
    cr_assert_eq(rc_synth_write(m, n, seed, path, &err), 0, "%s", err.msg);
    rc_trace *t = rc_trace_load(path, n, &err);
    cr_assert_not_null(t, "%s", err.msg);
    return t;
}

Test(synth, stats_of_a_known_trace)
{
    /* Offline runs: line 0 "0011 0000 11" -> 2 (len 2, 4); line 1 -> 1 (len 1);
     * line 2 all online -> 0.  Pooled lengths {1,2,4}: median 2. */
    const char *text = "0011000011\n1111111110\n1111111111\n";
    rc_err err = {0};
    rc_trace *t = rc_trace_parse("known", text, strlen(text), 0, &err);
    cr_assert_not_null(t, "%s", err.msg);
    rc_trace_stats s;
    rc_synth_stats(t, &s);
    cr_assert_eq(s.lines, 3);
    cr_assert_eq(s.period_s, 10);
    cr_assert_float_eq(s.mean_online, (0.4 + 0.9 + 1.0) / 3, 1e-12);
    cr_assert_float_eq(s.first16_online, s.mean_online, 1e-12);
    cr_assert_float_eq(s.gaps_per_line, 1.0, 1e-12);
    cr_assert_float_eq(s.gap_median_s, 2.0, 1e-12);
    rc_trace_free(t);

    /* An even number of gaps: the median is the mean of the middle two. */
    const char *text2 = "0110001\n";
    t = rc_trace_parse("even", text2, strlen(text2), 0, &err);
    cr_assert_not_null(t);
    rc_synth_stats(t, &s);
    cr_assert_float_eq(s.gap_median_s, 2.0, 1e-12);
    cr_assert_float_eq(s.gaps_per_line, 2.0, 1e-12);
    rc_trace_free(t);
}

static bool same_trace(const rc_trace *a, const rc_trace *b)
{
    if (rc_trace_lines(a) != rc_trace_lines(b) || rc_trace_period_s(a) != rc_trace_period_s(b))
        return false;
    for (size_t l = 0; l < rc_trace_lines(a); l++) {
        bool oa, ob;
        size_t na, nb;
        const uint32_t *ta = rc_trace_toggles(a, l, &oa, &na);
        const uint32_t *tb = rc_trace_toggles(b, l, &ob, &nb);
        if (oa != ob || na != nb || (na && memcmp(ta, tb, na * sizeof *ta))) return false;
    }
    return true;
}

Test(synth, deterministic_for_a_seed)
{
    rc_synth_model m;
    rc_synth_default(&m);
    m.period_s = 7200;
    m.gaps = 2;
    m.gap_median_s = 200;
    rc_trace *a = generate(&m, 40, 42, "a.txt.gz");
    rc_trace *b = generate(&m, 40, 42, "b.txt.gz");
    rc_trace *c = generate(&m, 40, 43, "c.txt.gz");
    cr_assert(same_trace(a, b), "same seed gave different traces");
    cr_assert_not(same_trace(a, c), "different seeds gave the same trace");
    rc_trace_free(a);
    rc_trace_free(b);
    rc_trace_free(c);
}

/* 400 lines of a day.  Tolerances come from the spread over lines: the
 * per-line online fraction has sd ~0.3, so the mean of 400 has sd ~0.015
 * (tolerance 0.05, > 3 sd); the gap count and pooled median (thousands of
 * gaps) are within a few percent, plus the model's small bias (docs/traces.md),
 * so 15 %. */
Test(synth, statistics_match_targets)
{
    rc_synth_model m;
    rc_synth_default(&m);
    m.online = 0.7;
    m.gaps = 5;
    m.gap_median_s = 1200;
    m.concentration = 3;
    rc_trace *t = generate(&m, 400, 5, "stats.txt.gz");
    rc_trace_stats s;
    rc_synth_stats(t, &s);
    cr_assert_eq(s.lines, 400);
    cr_assert_eq(s.period_s, 86400);
    cr_assert_float_eq(s.mean_online, 0.7, 0.05, "online %.4f", s.mean_online);
    cr_assert_float_eq(s.gaps_per_line, 5, 0.75, "gaps %.3f", s.gaps_per_line);
    cr_assert_float_eq(s.gap_median_s, 1200, 180, "gap median %.1f", s.gap_median_s);
    /* Heterogeneity: Beta(2.1, 0.9) has sd 0.23; lines must differ a lot. */
    cr_assert_gt(s.online_sd, 0.15, "per-line sd %.3f", s.online_sd);
    rc_trace_free(t);
}

Test(synth, homogeneous_lines_when_concentration_is_zero)
{
    /* ~20 cycles a day with sigma_off ~0.86: only the within-line sampling
     * spread remains without the Beta, and the Beta adds a lot to it. */
    rc_synth_model m;
    rc_synth_default(&m);
    m.online = 0.8;
    m.gaps = 20;
    m.gap_median_s = 600;
    m.sigma_on = 0.5;
    m.concentration = 0;
    rc_trace *t = generate(&m, 100, 9, "homog.txt.gz");
    rc_trace_stats s0;
    rc_synth_stats(t, &s0);
    rc_trace_free(t);
    m.concentration = 3;
    t = generate(&m, 100, 9, "hetero.txt.gz");
    rc_trace_stats s3;
    rc_synth_stats(t, &s3);
    rc_trace_free(t);
    cr_assert_float_eq(s0.mean_online, 0.8, 0.02, "online %.4f", s0.mean_online);
    cr_assert_lt(s0.online_sd, 0.1, "per-line sd %.3f", s0.online_sd);
    cr_assert_gt(s3.online_sd, s0.online_sd + 0.08, "sd %.3f (K=3) vs %.3f (K=0)", s3.online_sd,
                 s0.online_sd);
}

Test(synth, fit_reproduces_the_statistics)
{
    rc_trace_stats s = {.lines = 500, .period_s = 86400, .mean_online = 0.65,
                        .first16_online = 0.64, .online_sd = 0.25, .gaps_per_line = 6.2,
                        .gap_median_s = 1398, .on_log_sd = 1.8};
    rc_synth_model m;
    rc_synth_fit(&s, &m);
    cr_assert_eq(m.period_s, 86400);
    cr_assert_float_eq(m.online, 0.65, 1e-12);
    cr_assert_float_eq(m.gaps, 6.2, 1e-12);
    cr_assert_float_eq(m.gap_median_s, 1398, 1e-12);
    /* Beta moments: var = mu(1-mu)/(K+1). */
    cr_assert_float_eq(0.65 * 0.35 / (m.concentration + 1), 0.0625, 1e-9);
    rc_err err = {0};
    cr_assert_eq(rc_synth_check(&m, &err), 0, "%s", err.msg);
    cr_assert_gt(rc_synth_sigma_off(&m), 1.0);
}

Test(synth, check_rejects_bad_models)
{
    rc_synth_model m;
    rc_err err = {0};
    rc_synth_default(&m);
    m.online = 1.2;
    cr_assert_eq(rc_synth_check(&m, &err), RC_EXIT_USAGE);
    cr_assert_not_null(strstr(err.msg, "1.2"), "%s", err.msg);

    rc_synth_default(&m);
    m.gaps = 0.1; /* fewer than the leading offline runs alone */
    rc_err_clear(&err);
    cr_assert_eq(rc_synth_check(&m, &err), RC_EXIT_USAGE);

    rc_synth_default(&m);
    m.gaps = 200; /* 200 gaps of median 1400 s cannot fit in 35 % of a day */
    rc_err_clear(&err);
    cr_assert_eq(rc_synth_check(&m, &err), RC_EXIT_USAGE);
    cr_assert_not_null(strstr(err.msg, "too many"), "%s", err.msg);

    rc_synth_default(&m);
    m.gap_median_s = 0;
    rc_err_clear(&err);
    cr_assert_eq(rc_synth_check(&m, &err), RC_EXIT_USAGE);
    rc_err_clear(&err);
    rc_synth_default(&m);
    cr_assert_eq(rc_synth_write(&m, 1, 1, "/nonexistent-dir/x.txt.gz", &err), RC_EXIT_RUNTIME);
}
