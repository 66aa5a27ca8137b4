/* Faithfulness: paper-mode 24 h runs against the paper's published numbers
 * (docs/spec.md §6) within the tolerances of docs/spec.md §9.3.  Deterministic for the fixed
 * seeds, so these cannot flake; each costs about a second.  The suite paper_numbers_traces
 * needs the artefact's traces in $RCSIM_DATA_DIR: ctest runs it apart, as
 * unit_paper_numbers_traces, skipped without them (tests/need_real_traces.sh). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exp/job.h"
#include "exp/run.h"

static rc_result run(const char *strategy, int users, const char *trace, uint64_t seed)
{
    rc_job j;
    rc_job_defaults(&j);
    j.model = RC_MODEL_PAPER;
    j.users = users;
    j.seed = seed;
    strcpy(j.strategy, strategy);
    strcpy(j.trace, trace); /* a name is looked up in $RCSIM_DATA_DIR */
    rc_result r;
    rc_err err = {0};
    cr_assert_eq(rc_run_job(&j, &r, NULL, NULL, &err), 0, "%s", err.msg);
    return r;
}

static void within(const char *what, double got, double want, double rel, double abs_tol)
{
    double tol = fmax(rel * want, abs_tol);
    cr_expect(fabs(got - want) <= tol, "%s: %.3f vs paper %.3f (tolerance %.3f)", what, got, want,
              tol);
}

/* Fig 5 / paper text, m=128 online: unicast mean 34.9, p90 60.8, p99 75.6;
 * RC k=p=2 mean 7.0, p90 9.9, p99 12.3. */
Test(paper_numbers, fig5_m128_online)
{
    rc_result u = run("unicast", 128, "online", 1);
    within("unicast mean", u.online.mean_s, 34.9, 0.03, 0.3);
    within("unicast median", u.online.q[4], 34.5, 0.03, 0.3);
    within("unicast p90", u.online.q[6], 60.8, 0.03, 0.3);
    within("unicast p99", u.online.q[8], 75.6, 0.05, 0);
    within("unicast p1", u.online.q[0], 2.5, 0.05, 0.15);
    rc_result r = run("rc-k2-p2", 128, "online", 1);
    within("rc k=p=2 mean", r.online.mean_s, 7.0, 0.03, 0.1);
    within("rc k=p=2 median", r.online.q[4], 7.1, 0.03, 0.3);
    within("rc k=p=2 p90", r.online.q[6], 9.9, 0.03, 0.3);
    within("rc k=p=2 p99", r.online.q[8], 12.3, 0.05, 0);
    rc_result r1 = run("rc-k1-p1", 128, "online", 1);
    within("rc k=p=1 median", r1.online.q[4], 9.9, 0.03, 0.3);
    within("rc k=p=1 p99", r1.online.q[8], 18.4, 0.05, 0);
    rc_result_free(&u);
    rc_result_free(&r);
    rc_result_free(&r1);
}

Test(paper_numbers_traces, fig6_m128_os10_fault_tolerance)
{
    const char *dir = getenv("RCSIM_DATA_DIR");
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/schedules_gen_os10.txt.gz", dir ? dir : ".");
    if (dir == NULL || stat(path, &st) != 0)
        cr_skip_test("real traces not found: run scripts/get-traces.sh and set RCSIM_DATA_DIR");
    /* 65 % online: RC-FT k=p=2 1.9/5.9/8.5/14.9/21.9; k=p=1 median 12.4. */
    rc_result f2 = run("rc-k2-p2-ft-dropoffline", 128, "gen_os10", 1);
    within("ft k=p=2 median", f2.online.q[4], 8.5, 0.05, 0);
    within("ft k=p=2 p75", f2.online.q[5], 14.9, 0.05, 0);
    within("ft k=p=2 p99", f2.online.q[8], 21.9, 0.5, 0);
    cr_expect_gt(f2.c.reassignments, 0);
    rc_result f1 = run("rc-k1-p1-ft-dropoffline", 128, "gen_os10", 1);
    within("ft k=p=1 median", f1.online.q[4], 12.4, 0.05, 0);
    /* RC without timeouts explodes: p75 in the thousands of seconds. */
    rc_result nf = run("rc-k2-p2", 128, "gen_os10", 1);
    cr_expect_gt(nf.online.q[5], 1000, "RC without FT p75 %.1f s", nf.online.q[5]);
    cr_expect_gt(nf.online.q[8], 30888 / 1.5);
    rc_result_free(&f2);
    rc_result_free(&f1);
    rc_result_free(&nf);
}
