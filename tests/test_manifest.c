/* Tests of io/manifest: round trip through the JSON file and the resume rules (another
 * trace behind a name, other stored options, another build with and without permission). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/manifest.h"

static char out[256];

static void setup(void)
{
    snprintf(out, sizeof out, "/tmp/rcsim-test-manifest-%d.h5", (int)getpid());
}

static void teardown(void)
{
    char *p = rc_manifest_path(out);
    unlink(p);
    free(p);
}

TestSuite(manifest, .init = setup, .fini = teardown);

static rc_trace_id tid(const char *name, const char *path, char sha, uint32_t lines)
{
    rc_trace_id id;
    memset(&id, 0, sizeof id);
    snprintf(id.name, sizeof id.name, "%s", name);
    snprintf(id.path, sizeof id.path, "%s", path);
    memset(id.sha256, sha, 64);
    id.lines = lines;
    return id;
}

static const rc_build_info build_a = {"aaaaaaaaaaaaaaaa", "v1", 0, "11", 10, "cfg"};
static const rc_build_info build_b = {"bbbbbbbbbbbbbbbb", "v1-dirty", 1, "22", 10, "cfg"};

static void make(rc_manifest *m, const rc_build_info *b, const char *stored, char sha)
{
    rc_manifest_init(m);
    snprintf(m->sweep_name, sizeof m->sweep_name, "s");
    m->sweep_hash = 0x1234;
    snprintf(m->stored, sizeof m->stored, "%s", stored);
    rc_manifest_add_build(m, b);
    rc_trace_id id = tid("gen_os15", sha == 'a' ? "/A/schedules_gen_os15.txt.gz"
                                                : "/B/schedules_gen_os15.txt.gz", sha, 546);
    rc_manifest_add_trace(m, "os15", &id);
}

Test(manifest, round_trip)
{
    rc_manifest m, r;
    make(&m, &build_a, "store_raw=false", 'a');
    rc_err err = {0};
    cr_assert_eq(rc_manifest_write(out, &m, &err), 0, "%s", err.msg);
    bool found = false;
    cr_assert_eq(rc_manifest_read(out, &r, &found, &err), 0, "%s", err.msg);
    cr_assert(found);
    cr_expect_str_eq(r.stored, "store_raw=false");
    cr_expect_eq(r.sweep_hash, 0x1234);
    cr_assert_eq(r.n_builds, 1);
    cr_expect_str_eq(r.builds[0].id, build_a.id);
    cr_expect_eq(r.builds[0].dirty, 0);
    cr_assert_eq(r.n_traces, 1);
    cr_expect_str_eq(r.traces[0].written, "os15");
    cr_expect_str_eq(r.traces[0].id.sha256, m.traces[0].id.sha256);
    cr_expect_eq(r.traces[0].id.lines, 546);
    cr_expect_eq(rc_manifest_check(&r, &m, out, false, &err), 0, "%s", err.msg);
    rc_manifest_free(&m);
    rc_manifest_free(&r);
}

Test(manifest, absent_file_is_not_found)
{
    rc_manifest r;
    bool found = true;
    rc_err err = {0};
    cr_assert_eq(rc_manifest_read(out, &r, &found, &err), 0);
    cr_expect(!found);
}

Test(manifest, another_trace_behind_the_name_is_refused_naming_both)
{
    rc_manifest old, now;
    make(&old, &build_a, "store_raw=false", 'a');
    make(&now, &build_a, "store_raw=false", 'b');
    rc_err err = {0};
    cr_assert_eq(rc_manifest_check(&old, &now, out, false, &err), 2);
    cr_expect(strstr(err.msg, "/A/schedules_gen_os15.txt.gz") && strstr(err.msg, "/B/"),
              "%s", err.msg);
    cr_expect(strstr(err.msg, old.traces[0].id.sha256) && strstr(err.msg, now.traces[0].id.sha256),
              "%s", err.msg);
    /* A new trace (a sweep extended by a trace axis value) is not a conflict. */
    rc_manifest ext;
    make(&ext, &build_a, "store_raw=false", 'a');
    rc_trace_id other = tid("gen_os10", "/A/schedules_gen_os10.txt.gz", 'c', 510);
    rc_manifest_add_trace(&ext, "os10", &other);
    rc_err e2 = {0};
    cr_expect_eq(rc_manifest_check(&old, &ext, out, false, &e2), 0, "%s", e2.msg);
    rc_manifest_merge(&old, &ext);
    cr_expect_eq(old.n_traces, 2);
    rc_manifest_free(&old);
    rc_manifest_free(&now);
    rc_manifest_free(&ext);
}

Test(manifest, stored_options_and_builds)
{
    rc_manifest old, raw, other;
    make(&old, &build_a, "store_raw=false", 'a');
    make(&raw, &build_a, "store_raw=true", 'a');
    make(&other, &build_b, "store_raw=false", 'a');
    rc_err err = {0};
    cr_expect_eq(rc_manifest_check(&old, &raw, out, true, &err), 2);
    cr_expect(strstr(err.msg, "store_raw=false") && strstr(err.msg, "store_raw=true"), "%s",
              err.msg);
    rc_err e2 = {0};
    cr_expect_eq(rc_manifest_check(&old, &other, out, false, &e2), 2);
    cr_expect(strstr(e2.msg, build_a.id) && strstr(e2.msg, build_b.id), "%s", e2.msg);
    cr_expect(strstr(e2.msg, "--allow-other-build") != NULL, "%s", e2.msg);
    rc_err e3 = {0};
    cr_expect_eq(rc_manifest_check(&old, &other, out, true, &e3), 0, "%s", e3.msg);
    rc_manifest_merge(&old, &other);
    cr_assert_eq(old.n_builds, 2);
    cr_expect_str_eq(old.builds[1].id, build_b.id);
    /* Once recorded, the other build resumes without permission. */
    rc_err e4 = {0};
    cr_expect_eq(rc_manifest_check(&old, &other, out, false, &e4), 0, "%s", e4.msg);
    rc_manifest_free(&old);
    rc_manifest_free(&raw);
    rc_manifest_free(&other);
}
