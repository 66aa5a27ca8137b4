/* h5out: write a job, read it back with the HDF5 API; refuse foreign files. */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exp/job.h"
#include "exp/result.h"
#include "io/h5out.h"

static char path[256];

static void setup(void)
{
    snprintf(path, sizeof path, "/tmp/rcsim-test-h5out-%d.h5", (int)getpid());
    unlink(path);
}
static void teardown(void) { unlink(path); }

TestSuite(h5out, .init = setup, .fini = teardown);

static const rc_h5out_sweep sweep_a = {"alpha", "alpha.yaml", "name: alpha\n", 0xaaaa};
static const rc_h5out_sweep sweep_b = {"beta", "beta.yaml", "name: beta\n", 0xbbbb};

static void make_job(rc_job *job, rc_result *r)
{
    rc_job_defaults(job);
    job->users = 48;
    job->seed = 7;
    snprintf(job->strategy, sizeof job->strategy, "rc-k2-p2");
    job->model = RC_MODEL_PAPER;
    rc_job_resolve(job);
    rc_result_init(r);
    r->job_id = rc_job_id(job);
    r->c.events = 123456;
    r->c.deliveries = 77;
    r->c.reassignments = 3;
    r->c.wall_s = 2.0;
    r->online.count = 5;
    r->online.mean_s = 1.5;
    r->online.q[4] = 1.25; /* p50 */
    r->hist_online[3] = 11;
    r->hist_all[RC_HIST_BINS - 1] = 2;
    r->n_raw = 4;
    r->raw_online = malloc(4 * sizeof(float));
    for (int i = 0; i < 4; i++) r->raw_online[i] = 0.5f * (float)i;
    r->n_undelivered = 2;
    r->undelivered = calloc(2, sizeof *r->undelivered);
    r->undelivered[1] = (rc_undelivered){1, 2, 3};
}

static void read_attr(hid_t loc, const char *name, hid_t type, void *out)
{
    cr_assert(H5Aexists(loc, name) > 0, "attribute %s missing", name);
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    cr_assert_geq(H5Aread(a, type, out), 0, "reading %s", name);
    H5Aclose(a);
}

static void read_str(hid_t loc, const char *name, char *buf, size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char *p = NULL;
    read_attr(loc, name, t, &p);
    snprintf(buf, n, "%s", p);
    H5free_memory(p);
    H5Tclose(t);
}

static void write_one(rc_h5out *h, rc_job *job, rc_result *r)
{
    rc_err err = {0};
    rc_h5out_prov prov = {"hostA", 2, 1.7e9};
    cr_assert_eq(rc_h5out_begin(h, &err), 0, "%s", err.msg);
    cr_assert_eq(rc_h5out_write_job(h, job, r, &prov, &err), 0, "%s", err.msg);
    cr_assert_eq(rc_h5out_end(h, &err), 0, "%s", err.msg);
}

Test(h5out, round_trip_attributes_and_datasets)
{
    rc_job job;
    rc_result r;
    make_job(&job, &r);
    rc_err err = {0};
    rc_h5out *h = rc_h5out_open(path, &sweep_a, &err);
    cr_assert_not_null(h, "%s", err.msg);
    write_one(h, &job, &r);
    uint64_t *ids;
    size_t n;
    cr_assert_eq(rc_h5out_list(h, &ids, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 1);
    cr_assert_eq(ids[0], r.job_id);
    free(ids);
    cr_assert_eq(rc_h5out_close(h, &err), 0);

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    char s[256];
    read_str(f, "layout", s, sizeof s);
    cr_assert_str_eq(s, "rcsim-results/1");
    read_str(f, "sweep_name", s, sizeof s);
    cr_assert_str_eq(s, "alpha");
    uint64_t hash;
    read_attr(f, "sweep_hash", H5T_NATIVE_UINT64, &hash);
    cr_assert_eq(hash, 0xaaaa);
    hid_t e = H5Dopen2(f, "hist_edges_s", H5P_DEFAULT);
    cr_assert_eq(H5Sget_simple_extent_npoints(H5Dget_space(e)), RC_HIST_BINS + 1);
    H5Dclose(e);

    char hex[17], gname[64];
    rc_job_id_hex(r.job_id, hex);
    snprintf(gname, sizeof gname, "jobs/%s", hex);
    hid_t g = H5Gopen2(f, gname, H5P_DEFAULT);
    cr_assert_geq(g, 0, "group %s", gname);
    int64_t users, q_lattice, rank;
    uint64_t seed, events, reass;
    read_attr(g, "users", H5T_NATIVE_INT64, &users);
    cr_assert_eq(users, 48);
    read_attr(g, "seed", H5T_NATIVE_UINT64, &seed);
    cr_assert_eq(seed, 7);
    read_attr(g, "q_lattice", H5T_NATIVE_INT64, &q_lattice);
    cr_assert_eq(q_lattice, 1, "paper model resolves q_lattice to 1, got %lld", (long long)q_lattice);
    read_str(g, "strategy", s, sizeof s);
    cr_assert_str_eq(s, "rc-k2-p2");
    read_str(g, "model", s, sizeof s);
    cr_assert_str_eq(s, "paper");
    read_str(g, "status", s, sizeof s);
    cr_assert_str_eq(s, "ok");
    read_str(g, "host", s, sizeof s);
    cr_assert_str_eq(s, "hostA");
    read_attr(g, "rank", H5T_NATIVE_INT64, &rank);
    cr_assert_eq(rank, 2);
    read_str(g, "job_id", s, sizeof s);
    cr_assert_str_eq(s, hex);
    read_attr(g, "counter_events", H5T_NATIVE_UINT64, &events);
    cr_assert_eq(events, 123456);
    read_attr(g, "counter_reassignments", H5T_NATIVE_UINT64, &reass);
    cr_assert_eq(reass, 3);

    double sum[15];
    hid_t d = H5Dopen2(g, "summary_online", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, sum);
    H5Dclose(d);
    cr_assert_eq(sum[0], 5);
    cr_assert_float_eq(sum[1], 1.5, 1e-12);
    cr_assert_float_eq(sum[9], 1.25, 1e-12, "p50 at index 9, got %g", sum[9]);
    d = H5Dopen2(g, "summary_all", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, sum);
    H5Dclose(d);
    cr_assert_eq(sum[0], 0);
    cr_assert(isnan(sum[1]), "empty summary has NaN mean");

    uint32_t *hist = calloc(RC_HIST_BINS, sizeof *hist);
    d = H5Dopen2(g, "hist_online", H5P_DEFAULT);
    hid_t dcpl = H5Dget_create_plist(d);
    cr_assert_eq(H5Pget_layout(dcpl), H5D_CHUNKED);
    cr_assert_geq(H5Pget_nfilters(dcpl), 2, "shuffle + deflate");
    H5Pclose(dcpl);
    H5Dread(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, hist);
    H5Dclose(d);
    cr_assert_eq(hist[3], 11);
    d = H5Dopen2(g, "hist_all", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, hist);
    H5Dclose(d);
    cr_assert_eq(hist[RC_HIST_BINS - 1], 2);
    free(hist);

    float raw[4];
    d = H5Dopen2(g, "latency_online_s", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw);
    H5Dclose(d);
    cr_assert_float_eq(raw[3], 1.5f, 1e-6);
    uint32_t und[2][3];
    d = H5Dopen2(g, "undelivered", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, und);
    H5Dclose(d);
    cr_assert_eq(und[1][0], 1);
    cr_assert_eq(und[1][2], 3);
    H5Gclose(g);
    H5Fclose(f);
    rc_result_free(&r);
}

Test(h5out, reopen_appends_and_rewrite_replaces)
{
    rc_job job;
    rc_result r;
    make_job(&job, &r);
    rc_err err = {0};
    rc_h5out *h = rc_h5out_open(path, &sweep_a, &err);
    write_one(h, &job, &r);
    rc_h5out_close(h, NULL);
    h = rc_h5out_open(path, &sweep_a, &err);
    cr_assert_not_null(h, "reopen of the same sweep: %s", err.msg);
    write_one(h, &job, &r); /* same id again: replaced, not duplicated */
    rc_job job2 = job;
    job2.seed = 8;
    rc_result r2;
    make_job(&job2, &r2);
    job2.seed = 8;
    r2.job_id = rc_job_id(&job2);
    write_one(h, &job2, &r2);
    uint64_t *ids;
    size_t n;
    cr_assert_eq(rc_h5out_list(h, &ids, &n, &err), 0);
    cr_assert_eq(n, 2, "jobs listed: %zu", n);
    free(ids);
    rc_h5out_close(h, NULL);
    rc_result_free(&r);
    rc_result_free(&r2);
}

Test(h5out, refuses_a_file_of_another_sweep_untouched)
{
    rc_err err = {0};
    rc_h5out *h = rc_h5out_open(path, &sweep_a, &err);
    cr_assert_not_null(h);
    rc_h5out_close(h, NULL);
    struct stat before, after;
    stat(path, &before);
    h = rc_h5out_open(path, &sweep_b, &err);
    cr_assert_null(h);
    cr_assert_eq(err.code, RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, "belongs to sweep 'alpha'") != NULL, "message: %s", err.msg);
    cr_assert(strstr(err.msg, "not 'beta'") != NULL, "message: %s", err.msg);
    stat(path, &after);
    cr_assert_eq(before.st_size, after.st_size);
    cr_assert_eq(before.st_mtime, after.st_mtime);
}

Test(h5out, refuses_a_foreign_layout)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 6);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "layout", t, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, "other!");
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
    H5Fclose(f);
    rc_err err = {0};
    rc_h5out *h = rc_h5out_open(path, &sweep_a, &err);
    cr_assert_null(h);
    cr_assert_eq(err.code, RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, "not an rcsim results file") != NULL, "message: %s", err.msg);
    cr_assert_eq(rc_h5out_check(path, &sweep_a, &err), RC_EXIT_USAGE);
}

Test(h5out, damaged_file_is_a_runtime_error)
{
    FILE *f = fopen(path, "wb");
    fputs("not hdf5", f);
    fclose(f);
    rc_err err = {0};
    cr_assert_eq(rc_h5out_check(path, &sweep_a, &err), RC_EXIT_RUNTIME, "%s", err.msg);
}
