/* Tests of trace/trace_id and the job side of trace identity (exp/job.h): canonical
 * names, the SHA-256 of the decompressed text, one id for every spelling of a file, another
 * for another content, and a bound job refusing a changed file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "exp/job.h"
#include "exp/result.h"
#include "exp/run.h"
#include "trace/avail.h"
#include "trace/trace_id.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/rcsim-test-traceid-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(trace_id, .init = setup, .fini = teardown);

/* 16 lines of 8 seconds; `flip` changes line 0's first second. */
static void write_trace(const char *path, int flip)
{
    char lines[16][9];
    const char *p[16];
    for (int i = 0; i < 16; i++) {
        snprintf(lines[i], sizeof lines[i], "%s", i % 2 ? "00111111" : "11110011");
        p[i] = lines[i];
    }
    if (flip) lines[0][0] = '0';
    rc_err err = {0};
    cr_assert_eq(rc_trace_write(path, p, 16, &err), 0, "%s", err.msg);
}

Test(trace_id, canonical_names)
{
    struct {
        const char *path, *name;
    } c[] = {
        {"/data/schedules_gen_os15.txt.gz", "gen_os15"},
        {"schedules_gen_os15.txt.gz", "gen_os15"},
        {"rel/dir/synth.txt.gz", "synth"},
        {"/x/t.gz", "t"},
        {"/x/plain", "plain"},
        {"/x/schedules_.txt.gz", "schedules_"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char out[64];
        rc_trace_id_name(c[i].path, out, sizeof out);
        cr_expect_str_eq(out, c[i].name, "%s -> %s, want %s", c[i].path, out, c[i].name);
    }
}

Test(trace_id, sha256_is_of_the_decompressed_text)
{
    /* python3 -c 'import hashlib; print(hashlib.sha256(b"0011\n1100\n").hexdigest())' */
    static const char text[] = "0011\n1100\n";
    rc_err err = {0};
    rc_trace *t = rc_trace_parse("mem", text, sizeof text - 1, 0, &err);
    cr_assert_not_null(t, "%s", err.msg);
    char hex[65];
    rc_trace_sha256(t, hex);
    cr_expect_str_eq(hex, "e548394fd045a908b2851bc1bb7d52e2604539ed40175ed6746cf494dc6bf17d");
    rc_trace_free(t);
}

Test(trace_id, every_spelling_one_job_id_other_content_another)
{
    char a[200], b[240], sub[200];
    snprintf(sub, sizeof sub, "%s/b", dir);
    cr_assert_eq(mkdir(sub, 0755), 0);
    snprintf(a, sizeof a, "%s/schedules_gen_tiny.txt.gz", dir);
    snprintf(b, sizeof b, "%s/schedules_gen_tiny.txt.gz", sub);
    write_trace(a, 0);
    write_trace(b, 1);
    const char *spellings[] = {"tiny", "gen_tiny", "schedules_gen_tiny.txt.gz", a};
    uint64_t first = 0;
    for (size_t i = 0; i < 4; i++) {
        rc_job job;
        rc_job_defaults(&job);
        job.users = 16;
        snprintf(job.trace, sizeof job.trace, "%s", spellings[i]);
        uint64_t unbound = rc_job_id(&job);
        rc_trace_id id;
        rc_err err = {0};
        rc_trace *t = rc_trace_id_load(job.trace, dir, 16, &id, &err);
        cr_assert_not_null(t, "%s: %s", spellings[i], err.msg);
        rc_trace_free(t);
        cr_expect_str_eq(id.name, "gen_tiny");
        cr_expect_eq(id.lines, 16);
        cr_expect_str_eq(id.path, a);
        rc_job_bind_trace(&job, &id);
        uint64_t bound = rc_job_id(&job);
        cr_expect_neq(bound, unbound, "binding must change the id (%s)", spellings[i]);
        if (i == 0) first = bound;
        cr_expect_eq(bound, first, "%s gives id %016llx, tiny %016llx", spellings[i],
                     (unsigned long long)bound, (unsigned long long)first);
    }
    rc_job job;
    rc_job_defaults(&job);
    job.users = 16;
    snprintf(job.trace, sizeof job.trace, "tiny");
    rc_trace_id id;
    rc_err err = {0};
    rc_trace *t = rc_trace_id_load(job.trace, sub, 16, &id, &err);
    cr_assert_not_null(t, "%s", err.msg);
    rc_trace_free(t);
    rc_job_bind_trace(&job, &id);
    cr_expect_neq(rc_job_id(&job), first, "another content under the same name, same id");
}

Test(trace_id, bound_job_refuses_a_changed_file)
{
    char a[200];
    snprintf(a, sizeof a, "%s/t.txt.gz", dir);
    write_trace(a, 0);
    rc_job job;
    rc_job_defaults(&job);
    job.users = 16;
    job.duration_s = 60;
    snprintf(job.trace, sizeof job.trace, "%s", a);
    rc_trace_id id;
    rc_err err = {0};
    rc_trace *t = rc_trace_id_load(job.trace, "", 16, &id, &err);
    cr_assert_not_null(t, "%s", err.msg);
    rc_trace_free(t);
    rc_job_bind_trace(&job, &id);
    rc_result r;
    cr_assert_eq(rc_run_job(&job, &r, NULL, NULL, &err), 0, "%s", err.msg);
    cr_expect_eq(r.job_id, rc_job_id(&job), "the result names the bound job");
    cr_expect_eq(strlen(r.build_id), 16, "build id '%s'", r.build_id);
    rc_result_free(&r);

    write_trace(a, 1); /* the file changes after binding */
    rc_err e2 = {0};
    /* A status of its own, so a sweep stops at the first such job (farm/farm.c). */
    cr_assert_eq(rc_run_job(&job, &r, NULL, NULL, &e2), RC_JOB_TRACE_CHANGED);
    cr_expect(strstr(e2.msg, "the file changed") != NULL, "%s", e2.msg);
    cr_expect(strstr(e2.msg, id.sha256) != NULL, "message lacks the bound sha: %s", e2.msg);
}

Test(trace_id, cache_reuses_a_trace_only_while_the_file_is_unchanged)
{
    char a[200];
    snprintf(a, sizeof a, "%s/c.txt.gz", dir);
    write_trace(a, 0);
    rc_trace_id id1, id2, id3;
    rc_err err = {0};
    const rc_trace *t1 = rc_trace_id_get(a, "", 16, &id1, &err);
    cr_assert_not_null(t1, "%s", err.msg);
    const rc_trace *t2 = rc_trace_id_get(a, "", 16, &id2, &err);
    cr_expect_eq(t1, t2, "an unchanged file was loaded again");
    cr_expect_str_eq(id1.sha256, id2.sha256);
    cr_expect_eq(id2.lines, 16);
    /* Rewritten at once (same size, same second): the bytes differ, so the
     * trace is read again and carries the new content. */
    write_trace(a, 1);
    const rc_trace *t3 = rc_trace_id_get(a, "", 16, &id3, &err);
    cr_assert_not_null(t3, "%s", err.msg);
    cr_expect_str_neq(id3.sha256, id1.sha256, "a changed file was served from the cache");
    bool at0;
    size_t n;
    rc_trace_toggles(t3, 0, &at0, &n);
    cr_expect(!at0, "line 0 of the new content starts offline");
    /* More lines than the file has: the full load reports it, as before. */
    rc_err e2 = {0};
    cr_expect_null(rc_trace_id_get(a, "", 17, &id3, &e2));
    cr_expect_eq(e2.code, RC_EXIT_USAGE, "%s", e2.msg);
}

/* rc_run_job gives the process's run-time checks back on every return path,
 * failures inside the job included (docs/reliability.md, "Run-time invariants"):
 * a job with check=true that fails after validation (its bound trace changed,
 * a path through run_resolved that returns early) leaves rc_check_enabled as
 * it found it, so the next job of the same process (a chunk, a --no-fork
 * worker) runs with the setting it asked for. */
Test(trace_id, a_failed_checked_job_gives_the_checks_back)
{
    char a[200];
    snprintf(a, sizeof a, "%s/c.txt.gz", dir);
    write_trace(a, 0);
    rc_job job;
    rc_job_defaults(&job);
    job.users = 16;
    job.duration_s = 60;
    job.check = true;
    snprintf(job.trace, sizeof job.trace, "%s", a);
    rc_trace_id id;
    rc_err err = {0};
    rc_trace *t = rc_trace_id_load(job.trace, "", 16, &id, &err);
    cr_assert_not_null(t, "%s", err.msg);
    rc_trace_free(t);
    rc_job_bind_trace(&job, &id);
    write_trace(a, 1);
    for (int before = 0; before < 2; before++) {
        rc_check_enabled = before;
        rc_result r;
        rc_err e2 = {0};
        cr_assert_eq(rc_run_job(&job, &r, NULL, NULL, &e2), RC_JOB_TRACE_CHANGED, "%s", e2.msg);
        cr_expect_eq(rc_check_enabled, (bool)before, "checks %d before the failed job, %d after",
                     before, rc_check_enabled);
    }
    rc_check_enabled = false;
    /* And after a job that runs to its end. */
    write_trace(a, 0);
    rc_result r;
    cr_assert_eq(rc_run_job(&job, &r, NULL, NULL, &err), 0, "%s", err.msg);
    rc_result_free(&r);
    cr_expect_eq(rc_check_enabled, false, "a checked job left the checks on");
}
