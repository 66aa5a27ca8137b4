/* h5out: write rows, read them back with the plain HDF5 API; commit mark,
 * append, widen, refusals, the v1 converter and reading rows back. */
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
#include "io/h5out_internal.h"

static char path[256], path2[256];

static void setup(void)
{
    snprintf(path, sizeof path, "/tmp/rcsim-test-h5out-%d.h5", (int)getpid());
    snprintf(path2, sizeof path2, "/tmp/rcsim-test-h5out-%d-b.h5", (int)getpid());
    unlink(path);
    unlink(path2);
}
static void teardown(void)
{
    unlink(path);
    unlink(path2);
}

TestSuite(h5out, .init = setup, .fini = teardown);

static const rc_h5out_sweep sweep_a = {"alpha", "alpha.yaml", "name: alpha\n", 0xaaaa, 2, ""};

static void make_job(rc_job *job, rc_result *r, uint64_t seed)
{
    rc_job_defaults(job);
    job->users = 48;
    job->seed = seed;
    snprintf(job->strategy, sizeof job->strategy, "rc-k2-p2");
    job->model = RC_MODEL_PAPER;
    snprintf(job->trace_name, sizeof job->trace_name, "gen_os15");
    snprintf(job->trace_sha256, sizeof job->trace_sha256, "ab12");
    job->trace_lines = 512;
    rc_job_resolve(job);
    rc_result_init(r);
    r->job_id = rc_job_id(job);
    snprintf(r->build_id, sizeof r->build_id, "0123456789abcdef");
    snprintf(r->build_revision, sizeof r->build_revision, "v1-test");
    r->c.events = 123456;
    r->c.deliveries = 77;
    r->c.reassignments = 3;
    r->c.wall_s = 2.0;
    r->online.count = 5;
    r->online.mean_s = 1.5;
    r->online.q[4] = 1.25; /* p50 */
    rc_summary_compute(&r->all, NULL, 0); /* no samples: NaN, as a job reports it */
    r->hist_online[3] = 11;
    r->hist_online[4000] = 1;
    r->hist_all[RC_HIST_BINS - 1] = 2;
    r->n_deliveries = 2;
    r->deliveries = calloc(2, sizeof *r->deliveries);
    r->deliveries[1] = (rc_delivery){.message = 4, .group = 0, .sender = 1, .recipient = 2,
                                     .sent_s = 10.0, .delivered_s = 12.5, .online = 0};
    r->n_undelivered = 2;
    r->undelivered = calloc(2, sizeof *r->undelivered);
    r->undelivered[1] = (rc_undelivered){1, 2, 3};
}

static void add_one(rc_h5out *h, rc_job *job, rc_result *r)
{
    rc_err err = {0};
    rc_h5out_prov prov = {"hostA", 2, 1.7e9};
    void *img;
    size_t len;
    rc_result_pack(r, &img, &len);
    cr_assert_eq(rc_h5out_add(h, job, img, len, NULL, &prov, &err), 0, "%s", err.msg);
    free(img);
}

static void flush_ok(rc_h5out *h)
{
    rc_err err = {0};
    bool locked;
    cr_assert_eq(rc_h5out_flush(h, &locked, &err), 0, "%s", err.msg);
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

/* Element `i` of a 1-D dataset as a double (numeric columns). */
static double col_at(hid_t f, const char *name, hsize_t i)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    cr_assert_geq(d, 0, "dataset %s missing", name);
    hid_t fs = H5Dget_space(d);
    hsize_t one = 1;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &i, NULL, &one, NULL);
    hid_t ms = H5Screate_simple(1, &one, NULL);
    double v = NAN;
    cr_assert_geq(H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, &v), 0, "%s", name);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    return v;
}

static hsize_t col_len(hid_t f, const char *name)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    cr_assert_geq(d, 0, "dataset %s missing", name);
    hid_t s = H5Dget_space(d);
    hsize_t n;
    H5Sget_simple_extent_dims(s, &n, NULL);
    H5Sclose(s);
    H5Dclose(d);
    return n;
}

/* The level behind code column `name` at row i. */
static void level_at(hid_t f, const char *name, hsize_t i, char *out, size_t n)
{
    uint32_t code = (uint32_t)col_at(f, name, i);
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    hid_t a = H5Aopen(d, "levels", H5P_DEFAULT);
    hid_t s = H5Aget_space(a);
    hssize_t nl = H5Sget_simple_extent_npoints(s);
    cr_assert_lt((hssize_t)code, nl, "%s: code %u of %lld levels", name, code, (long long)nl);
    char **v = calloc((size_t)nl, sizeof *v);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Aread(a, t, v);
    snprintf(out, n, "%s", v[code]);
    H5Dvlen_reclaim(t, s, H5P_DEFAULT, v);
    free(v);
    H5Tclose(t);
    H5Sclose(s);
    H5Aclose(a);
    H5Dclose(d);
}

Test(h5out, columns_hold_parameters_results_and_provenance)
{
    rc_job job;
    rc_result r;
    make_job(&job, &r, 7);
    rc_err err = {0};
    rc_h5out *h = rc_h5out_open(path, &sweep_a, 1024, &err);
    cr_assert_not_null(h, "%s", err.msg);
    add_one(h, &job, &r);
    cr_assert_eq(rc_h5out_pending(h), 1);
    flush_ok(h);
    cr_assert_eq(rc_h5out_pending(h), 0);
    uint64_t *ids;
    size_t n;
    cr_assert_eq(rc_h5out_list(h, &ids, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 1);
    cr_assert_eq(ids[0], r.job_id);
    free(ids);
    rc_h5out_close(h);

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    char s[256];
    read_str(f, "layout", s, sizeof s);
    cr_assert_str_eq(s, "rcsim-results/2");
    read_str(f, "sweep_name", s, sizeof s);
    cr_assert_str_eq(s, "alpha");
    uint64_t u;
    read_attr(f, "sweep_hash", H5T_NATIVE_UINT64, &u);
    cr_assert_eq(u, 0xaaaa);
    hid_t t = H5Gopen2(f, "table", H5P_DEFAULT);
    read_attr(t, "rows", H5T_NATIVE_UINT64, &u);
    cr_assert_eq(u, 1);
    H5Gclose(t);
    cr_assert_eq(col_len(f, "hist/edges_s"), RC_HIST_BINS + 1);

    uint64_t id;
    hid_t d = H5Dopen2(f, "table/job_id", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &id);
    H5Dclose(d);
    cr_assert_eq(id, r.job_id);
    cr_assert_eq(col_at(f, "table/users", 0), 48);
    cr_assert_eq(col_at(f, "table/seed", 0), 7);
    cr_assert_eq(col_at(f, "table/q_lattice", 0), 1, "paper model resolves q_lattice to 1");
    level_at(f, "table/strategy", 0, s, sizeof s);
    cr_assert_str_eq(s, "rc-k2-p2");
    level_at(f, "table/model", 0, s, sizeof s);
    cr_assert_str_eq(s, "paper");
    level_at(f, "table/host", 0, s, sizeof s);
    cr_assert_str_eq(s, "hostA");
    level_at(f, "table/trace_name", 0, s, sizeof s);
    cr_assert_str_eq(s, "gen_os15");
    level_at(f, "table/trace_sha256", 0, s, sizeof s);
    cr_assert_str_eq(s, "ab12");
    cr_assert_eq(col_at(f, "table/trace_lines", 0), 512);
    level_at(f, "table/build_id", 0, s, sizeof s);
    cr_assert_str_eq(s, "0123456789abcdef");
    level_at(f, "table/git_revision", 0, s, sizeof s);
    cr_assert_str_eq(s, "v1-test");
    cr_assert_eq(col_at(f, "table/rank", 0), 2);
    cr_assert_eq(col_at(f, "table/counter_events", 0), 123456);
    cr_assert_eq(col_at(f, "table/counter_reassignments", 0), 3);
    cr_assert_eq(col_at(f, "table/counter_wall_s", 0), 2.0);
    cr_assert_eq(col_at(f, "table/online_count", 0), 5);
    cr_assert_eq(col_at(f, "table/online_mean", 0), 1.5);
    cr_assert_eq(col_at(f, "table/online_p50", 0), 1.25);
    cr_assert_eq(col_at(f, "table/all_count", 0), 0);
    cr_assert(isnan(col_at(f, "table/all_mean", 0)), "an empty summary is NaN");
    /* No attribute or column is written twice. */
    cr_assert(H5Lexists(f, "table/wall_s", H5P_DEFAULT) == 0);
    cr_assert(H5Lexists(f, "table/events", H5P_DEFAULT) == 0);
    cr_assert(H5Lexists(f, "table/peak_rss_kb", H5P_DEFAULT) == 0);
    /* units */
    d = H5Dopen2(f, "table/online_p99", H5P_DEFAULT);
    read_str(d, "units", s, sizeof s);
    cr_assert_str_eq(s, "s");
    hid_t dcpl = H5Dget_create_plist(d);
    cr_assert_eq(H5Pget_layout(dcpl), H5D_CHUNKED);
    cr_assert_geq(H5Pget_nfilters(dcpl), 2, "shuffle + deflate");
    H5Pclose(dcpl);
    H5Dclose(d);
    /* canonical text */
    d = H5Dopen2(f, "table/canonical", H5P_DEFAULT);
    hid_t ty = H5Dget_type(d);
    size_t w = H5Tget_size(ty);
    char *canon = calloc(1, w + 1);
    H5Dread(d, ty, H5S_ALL, H5S_ALL, H5P_DEFAULT, canon);
    H5Tclose(ty);
    H5Dclose(d);
    char want[8192];
    rc_job_canonical(&job, want, sizeof want);
    cr_assert_str_eq(canon, want);
    free(canon);
    /* sparse histograms, undelivered, deliveries */
    cr_assert_eq(col_len(f, "hist/online/bucket"), 2);
    cr_assert_eq(col_at(f, "hist/online/end", 0), 2);
    cr_assert_eq(col_at(f, "hist/online/bucket", 0), 3);
    cr_assert_eq(col_at(f, "hist/online/count", 0), 11);
    cr_assert_eq(col_at(f, "hist/online/bucket", 1), 4000);
    cr_assert_eq(col_at(f, "hist/all/bucket", 0), RC_HIST_BINS - 1);
    cr_assert_eq(col_at(f, "hist/all/count", 0), 2);
    cr_assert_eq(col_at(f, "undelivered/end", 0), 2);
    cr_assert_eq(col_at(f, "undelivered/recipient", 1), 3);
    cr_assert_eq(col_at(f, "deliveries/end", 0), 2);
    cr_assert_eq(col_at(f, "deliveries/recipient", 1), 2);
    cr_assert_eq(col_at(f, "deliveries/delivered_s", 1), 12.5);
    cr_assert_eq(col_at(f, "deliveries/online", 1), 0);
    H5Fclose(f);
    rc_result_free(&r);
}

Test(h5out, reopen_appends_and_cuts_an_uncommitted_tail)
{
    rc_job job;
    rc_result r;
    make_job(&job, &r, 1);
    rc_err err = {0};
    rc_h5out *h = rc_h5out_open(path, &sweep_a, 1024, &err);
    add_one(h, &job, &r);
    flush_ok(h);
    rc_h5out_close(h);
    /* A flush killed midway: columns longer than the commit mark. */
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "table/seed", H5P_DEFAULT);
    hsize_t three = 3;
    H5Dset_extent(d, &three);
    H5Dclose(d);
    H5Fclose(f);
    h = rc_h5out_open(path, &sweep_a, 1024, &err);
    cr_assert_not_null(h, "reopen: %s", err.msg);
    uint64_t *ids;
    size_t n;
    cr_assert_eq(rc_h5out_list(h, &ids, &n, &err), 0);
    cr_assert_eq(n, 1, "committed rows only: %zu", n);
    free(ids);
    rc_job job2;
    rc_result r2;
    make_job(&job2, &r2, 2);
    add_one(h, &job2, &r2);
    flush_ok(h);
    rc_h5out_close(h);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_eq(col_len(f, "table/seed"), 2);
    cr_assert_eq(col_at(f, "table/seed", 1), 2);
    cr_assert_eq(col_len(f, "hist/online/bucket"), 4);
    cr_assert_eq(col_at(f, "hist/online/end", 1), 4);
    H5Fclose(f);
    rc_result_free(&r);
    rc_result_free(&r2);
}

Test(h5out, canonical_column_widens_for_a_longer_text)
{
    rc_job job;
    rc_result r;
    make_job(&job, &r, 1);
    rc_err err = {0};
    rc_h5out *h = rc_h5out_open(path, &sweep_a, 256, &err);
    add_one(h, &job, &r); /* ~660 bytes into a 256-byte column */
    flush_ok(h);
    rc_h5out_close(h);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "table/canonical", H5P_DEFAULT);
    hid_t ty = H5Dget_type(d);
    size_t w = H5Tget_size(ty);
    char *canon = calloc(1, w + 1);
    H5Dread(d, ty, H5S_ALL, H5S_ALL, H5P_DEFAULT, canon);
    char want[8192];
    rc_job_canonical(&job, want, sizeof want);
    cr_assert_str_eq(canon, want, "widened to %zu", w);
    free(canon);
    H5Tclose(ty);
    H5Dclose(d);
    H5Fclose(f);
    rc_result_free(&r);
}

Test(h5out, rows_read_back_as_the_same_images)
{
    rc_job job;
    rc_result r;
    make_job(&job, &r, 3);
    /* a disclosure curve of two points: the reader rebuilds them in order */
    r.n_disc_curve = 2;
    r.disc_curve = calloc(2, sizeof *r.disc_curve);
    r.disc_curve[0] = (rc_disc_point){.multicasts = 1, .time_s = 10, .precision = 0.125,
                                      .recall = 0.125, .auc = 0.5, .source_top1 = NAN,
                                      .source_entropy_bits = NAN};
    r.disc_curve[1] = (rc_disc_point){.multicasts = 2, .time_s = 20, .precision = 0.25,
                                      .recall = 0.25, .auc = 0.625, .source_top1 = 0.5,
                                      .source_entropy_bits = 3};
    rc_err err = {0};
    rc_h5out *h = rc_h5out_open(path, &sweep_a, 1024, &err);
    add_one(h, &job, &r);
    flush_ok(h);
    rc_h5out_close(h);
    rc_h5in *in = rc_h5in_open(path, &err);
    cr_assert_not_null(in, "%s", err.msg);
    cr_assert_eq(rc_h5in_info(in)->rows, 1);
    uint64_t id;
    const char *canon;
    rc_h5out_prov prov;
    void *img;
    size_t len;
    cr_assert_eq(rc_h5in_row(in, 0, &id, &canon, &prov, &img, &len, &err), 0, "%s", err.msg);
    void *want;
    size_t wlen;
    rc_result_pack(&r, &want, &wlen);
    cr_assert_eq(len, wlen);
    cr_assert_eq(memcmp(img, want, len), 0, "the image read back differs");
    cr_assert_str_eq(prov.host, "hostA");
    cr_assert_str_eq(prov.host, "hostA");
    free(img);
    free(want);
    /* and into a second file, unchanged */
    rc_h5out *h2 = rc_h5out_open(path2, &sweep_a, 1024, &err);
    cr_assert_eq(rc_h5out_add_from(h2, in, 0, &id, &err), 0, "%s", err.msg);
    flush_ok(h2);
    rc_h5out_close(h2);
    rc_h5in_close(in);
    rc_h5in *in2 = rc_h5in_open(path2, &err);
    cr_assert_not_null(in2, "%s", err.msg);
    cr_assert_eq(rc_h5in_row(in2, 0, &id, &canon, &prov, &img, &len, &err), 0);
    cr_assert_eq(id, r.job_id);
    free(img);
    rc_h5in_close(in2);
    rc_result_free(&r);
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
    rc_h5out *h = rc_h5out_open(path, &sweep_a, 1024, &err);
    cr_assert_null(h);
    cr_assert_eq(err.code, RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, "not an rcsim results file") != NULL, "message: %s", err.msg);
}

Test(h5out, damaged_file_is_a_runtime_error)
{
    FILE *f = fopen(path, "wb");
    fputs("not hdf5", f);
    fclose(f);
    rc_err err = {0};
    rc_h5out_info info;
    cr_assert_eq(rc_h5out_check(path, &info, &err), RC_EXIT_RUNTIME, "%s", err.msg);
}

/* A minimal file of layout 1 (one group per job), as the old writer made it. */
static void write_v1(const char *p, const rc_job *job, uint64_t id)
{
    hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t vs = H5Tcopy(H5T_C_S1);
    H5Tset_size(vs, H5T_VARIABLE);
    hid_t sc = H5Screate(H5S_SCALAR);
#define STR_ATTR(loc, name, val)                                                            \
    do {                                                                                    \
        const char *v_ = (val);                                                             \
        hid_t a_ = H5Acreate2(loc, name, vs, sc, H5P_DEFAULT, H5P_DEFAULT);                 \
        H5Awrite(a_, vs, &v_);                                                              \
        H5Aclose(a_);                                                                       \
    } while (0)
    STR_ATTR(f, "layout", "rcsim-results/1");
    STR_ATTR(f, "sweep_name", "old");
    STR_ATTR(f, "sweep_text", "name: old\n");
    double edges[11];
    for (int i = 0; i < 10; i++) edges[i] = i;
    edges[10] = INFINITY;
    hsize_t ne = 11, nb = 10, fifteen = 15;
    hid_t es = H5Screate_simple(1, &ne, NULL);
    hid_t e = H5Dcreate2(f, "hist_edges_s", H5T_IEEE_F64LE, es, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(e, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, edges);
    H5Dclose(e);
    hid_t jobs = H5Gcreate2(f, "jobs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    char hex[17], canon[8192];
    rc_job_id_hex(id, hex);
    rc_job_canonical(job, canon, sizeof canon);
    hid_t g = H5Gcreate2(jobs, hex, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    STR_ATTR(g, "status", "ok");
    STR_ATTR(g, "job_id", hex);
    STR_ATTR(g, "canonical", canon);
    STR_ATTR(g, "strategy", "rc-k2-p2");
    STR_ATTR(g, "model", "paper");
    STR_ATTR(g, "host", "oldhost");
    STR_ATTR(g, "finished_utc", "2026-01-02T03:04:05Z");
    int64_t users = 48;
    hid_t a = H5Acreate2(g, "users", H5T_STD_I64LE, sc, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT64, &users);
    H5Aclose(a);
    uint64_t ev = 999;
    a = H5Acreate2(g, "counter_events", H5T_STD_U64LE, sc, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_UINT64, &ev);
    H5Aclose(a);
    double sum[15] = {3, 4.5, 0.1, 4, 5, 4, 4, 4, 4, 4.5, 5, 5, 5, 5, 5};
    hid_t ss = H5Screate_simple(1, &fifteen, NULL);
    for (int k = 0; k < 2; k++) {
        hid_t d = H5Dcreate2(g, k ? "summary_all" : "summary_online", H5T_IEEE_F64LE, ss,
                             H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, sum);
        H5Dclose(d);
    }
    uint32_t hist[10] = {0, 0, 0, 0, 2, 1, 0, 0, 0, 0};
    hid_t hs = H5Screate_simple(1, &nb, NULL);
    for (int k = 0; k < 2; k++) {
        hid_t d = H5Dcreate2(g, k ? "hist_all" : "hist_online", H5T_STD_U32LE, hs, H5P_DEFAULT,
                             H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, hist);
        H5Dclose(d);
    }
    H5Sclose(hs);
    H5Sclose(ss);
    H5Sclose(es);
    H5Gclose(g);
    H5Gclose(jobs);
    H5Sclose(sc);
    H5Tclose(vs);
    H5Fclose(f);
#undef STR_ATTR
}

Test(h5out, v1_files_are_refused_naming_the_converter_and_convert)
{
    rc_job job;
    rc_result r;
    make_job(&job, &r, 5);
    write_v1(path, &job, r.job_id);
    rc_err err = {0};
    rc_h5out *h = rc_h5out_open(path, &sweep_a, 1024, &err);
    cr_assert_null(h);
    cr_assert_eq(err.code, RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, "rcsim convert") != NULL, "message: %s", err.msg);
    size_t n = 0;
    rc_err_clear(&err);
    cr_assert_eq(rc_h5out_convert_v1(path, path2, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 1);
    hid_t f = H5Fopen(path2, H5F_ACC_RDONLY, H5P_DEFAULT);
    char s[256];
    read_str(f, "converted_from", s, sizeof s);
    cr_assert_str_eq(s, "rcsim-results/1");
    cr_assert_eq(col_len(f, "hist/edges_s"), 11, "the v1 bins are kept");
    cr_assert_eq(col_at(f, "table/users", 0), 48);
    cr_assert_eq(col_at(f, "table/counter_events", 0), 999);
    cr_assert_eq(col_at(f, "table/online_p50", 0), 4.5);
    cr_assert_eq(col_at(f, "hist/online/bucket", 0), 4);
    cr_assert_eq(col_at(f, "hist/online/count", 1), 1);
    level_at(f, "table/host", 0, s, sizeof s);
    cr_assert_str_eq(s, "oldhost");
    level_at(f, "table/model", 0, s, sizeof s);
    cr_assert_str_eq(s, "paper");
    H5Fclose(f);
    /* A converted file is read-only for sweeps. */
    h = rc_h5out_open(path2, &sweep_a, 1024, &err);
    cr_assert_eq(err.code, RC_EXIT_USAGE);
    cr_assert_null(h);
    cr_assert(strstr(err.msg, "converted") != NULL, "message: %s", err.msg);
    /* Converting onto an existing file is refused. */
    rc_err_clear(&err);
    cr_assert_eq(rc_h5out_convert_v1(path, path2, &n, &err), RC_EXIT_USAGE);
    rc_result_free(&r);
}

/* The ragged groups of a written file hold exactly the columns declared in
 * io/h5out_ragged.def, in the declared HDF5 types, and each column named X
 * holds the record's field X (values below are all different, so a writer
 * that fills columns by position in the wrong order fails here). */
struct want {
    const char *path, *name;
    double v;
};
static const struct want wants[] = {
    {"hist/online", "bucket", 3}, {"hist/online", "count", 11},
    {"hist/all", "bucket", 5}, {"hist/all", "count", 13},
    {"undelivered", "group", 21}, {"undelivered", "nonce", 22}, {"undelivered", "recipient", 23},
    {"deliveries", "message", 31}, {"deliveries", "group", 32}, {"deliveries", "sender", 33},
    {"deliveries", "recipient", 34}, {"deliveries", "sent_s", 35.5},
    {"deliveries", "delivered_s", 36.5}, {"deliveries", "online", 1},
    {"population/sizes", "lo", 41}, {"population/sizes", "hi", 42},
    {"population/sizes", "groups", 43}, {"population/sizes", "multicasts", 44},
    {"population/sizes", "expected", 45}, {"population/sizes", "deliveries", 46},
    {"population/sizes", "undelivered", 47}, {"population/sizes", "count", 48},
    {"population/sizes", "mean", 49.5}, {"population/sizes", "sd", 50.5},
    {"population/sizes", "min", 51.5}, {"population/sizes", "max", 52.5},
    {"population/users", "sent", 61}, {"population/users", "groups", 62},
    {"anonymity/targets", "target", 71}, {"anonymity/targets", "sender", 72},
    {"anonymity/targets", "recipient", 73}, {"anonymity/targets", "sent_s", 74.5},
    {"anonymity/targets", "latency_s", 75.5}, {"anonymity/targets", "entropy_bits", 76.5},
    {"anonymity/targets", "min_entropy_bits", 77.5},
    {"anonymity/targets", "sender_entropy_bits", 78.5}, {"anonymity/targets", "mass", 79.5},
    {"disclosure/curve", "multicasts", 81}, {"disclosure/curve", "time_s", 82.5},
    {"disclosure/curve", "precision", 83.5}, {"disclosure/curve", "recall", 84.5},
    {"disclosure/curve", "auc", 85.5}, {"disclosure/curve", "source_top1", 86.5},
    {"disclosure/curve", "source_entropy_bits", 87.5},
};

static double want_of(const char *gpath, const char *name)
{
    for (size_t i = 0; i < sizeof wants / sizeof wants[0]; i++)
        if (strcmp(wants[i].path, gpath) == 0 && strcmp(wants[i].name, name) == 0)
            return wants[i].v;
    for (int k = 0; k < RC_SUMMARY_QUANTILES; k++) /* population/sizes p1 ... */
        if (strcmp(gpath, "population/sizes") == 0 && strcmp(name, rc_summary_q_names[k]) == 0)
            return 90 + k;
    cr_assert_fail("column %s/%s is declared but not known to this test", gpath, name);
    return NAN;
}

static size_t kind_bytes(kind k)
{
    switch (k) {
    case K_U8: return 1;
    case K_U16: return 2;
    case K_U32: return 4;
    default: return 8;
    }
}

Test(h5out, ragged_columns_are_the_declared_ones_each_holding_its_field)
{
    rc_job job;
    rc_result r;
    make_job(&job, &r, 9);
    memset(r.hist_online, 0, RC_HIST_BINS * sizeof *r.hist_online);
    memset(r.hist_all, 0, RC_HIST_BINS * sizeof *r.hist_all);
    r.hist_online[3] = 11;
    r.hist_all[5] = 13;
    r.n_undelivered = 1;
    r.undelivered[0] = (rc_undelivered){21, 22, 23};
    r.n_deliveries = 1;
    r.deliveries[0] = (rc_delivery){.message = 31, .group = 32, .sender = 33, .recipient = 34,
                                    .sent_s = 35.5, .delivered_s = 36.5, .online = 1};
    r.n_sizes = 1;
    rc_size_bucket *b = &r.sizes[0];
    *b = (rc_size_bucket){.lo = 41, .hi = 42, .groups = 43, .multicasts = 44, .expected = 45,
                          .deliveries = 46, .undelivered = 47};
    b->online.count = 48;
    b->online.mean_s = 49.5;
    b->online.sd_s = 50.5;
    b->online.min_s = 51.5;
    b->online.max_s = 52.5;
    for (int k = 0; k < RC_SUMMARY_QUANTILES; k++) b->online.q[k] = 90 + k;
    r.n_users_load = 1;
    r.user_sent = malloc(sizeof *r.user_sent);
    r.user_groups = malloc(sizeof *r.user_groups);
    r.user_sent[0] = 61;
    r.user_groups[0] = 62;
    r.n_anon_records = 1;
    r.anon_records = calloc(1, sizeof *r.anon_records);
    *r.anon_records = (rc_anon_record){.target = 71, .sender = 72, .recipient = 73,
                                       .sent_s = 74.5, .latency_s = 75.5, .entropy_bits = 76.5,
                                       .min_entropy_bits = 77.5, .sender_entropy_bits = 78.5,
                                       .mass = 79.5};
    r.n_disc_curve = 1;
    r.disc_curve = calloc(1, sizeof *r.disc_curve);
    *r.disc_curve = (rc_disc_point){.multicasts = 81, .time_s = 82.5, .precision = 83.5,
                                    .recall = 84.5, .auc = 85.5, .source_top1 = 86.5,
                                    .source_entropy_bits = 87.5};
    rc_err err = {0};
    rc_h5out *h = rc_h5out_open(path, &sweep_a, 1024, &err);
    cr_assert_not_null(h, "%s", err.msg);
    add_one(h, &job, &r);
    flush_ok(h);
    rc_h5out_close(h);
    rc_result_free(&r);

    static const char *paths[] = {"hist/online", "hist/all", "undelivered", "deliveries",
                                  "population/sizes", "population/users", "anonymity/targets",
                                  "disclosure/curve"};
    static const int lists[] = {RGD_HIST, RGD_HIST, RGD_UNDELIVERED, RGD_DELIVERIES,
                                RGD_SIZES, RGD_USERS, RGD_ANON, RGD_DISC};
    size_t seen = 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    for (size_t g = 0; g < sizeof paths / sizeof paths[0]; g++) {
        hid_t gg = H5Gopen2(f, paths[g], H5P_DEFAULT);
        cr_assert_geq(gg, 0, "group %s missing", paths[g]);
        size_t ncol = 0;
        for (size_t i = 0; i < h5_n_ragged_decls; i++) {
            const h5_ragged_decl *d = &h5_ragged_decls[i];
            if (d->list != lists[g]) continue;
            for (int j = 0; j < d->n; j++) {
                const char *name = d->names ? d->names[j] : d->name;
                char full[128];
                snprintf(full, sizeof full, "%s/%s", paths[g], name);
                cr_assert_eq(col_len(f, full), 1, "%s: one record", full);
                hid_t ds = H5Dopen2(f, full, H5P_DEFAULT);
                hid_t t = H5Dget_type(ds);
                cr_assert_eq(H5Tget_size(t), kind_bytes(d->k), "%s: declared type", full);
                cr_assert_eq(H5Tget_class(t), d->k == K_F64 ? H5T_FLOAT : H5T_INTEGER, "%s", full);
                H5Tclose(t);
                H5Dclose(ds);
                double v = col_at(f, full, 0);
                cr_assert_eq(v, want_of(paths[g], name), "%s holds %g", full, v);
                ncol++;
            }
        }
        H5G_info_t info;
        cr_assert_geq(H5Gget_info(gg, &info), 0);
        cr_assert_eq(info.nlinks, ncol + 1, "%s: %zu datasets, declared %zu and end",
                     paths[g], (size_t)info.nlinks, ncol);
        seen += ncol;
        H5Gclose(gg);
    }
    H5Fclose(f);
    /* every expectation above is a declared column */
    cr_assert_eq(seen, sizeof wants / sizeof wants[0] + RC_SUMMARY_QUANTILES);
}
