#include "io/h5out.h"

#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/build.h"
#include "core/log.h"
#include "core/version.h"
#include "exp/param.h"

#define PARTIAL_PREFIX ".partial-"
#define SUMMARY_LEN (5 + RC_SUMMARY_QUANTILES)

struct rc_h5out {
    char *path;
    rc_h5out_sweep sweep; /* owned copies of the strings */
    hid_t file;           /* H5I_INVALID_HID outside begin/end */
};

/* ---- small HDF5 helpers; each returns 0 or -1 (the caller words the error) ---- */

static int attr_write(hid_t loc, const char *name, hid_t type, hid_t space, const void *buf)
{
    if (H5Aexists(loc, name) > 0 && H5Adelete(loc, name) < 0) return -1;
    hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) return -1;
    herr_t st = H5Awrite(a, type, buf);
    H5Aclose(a);
    return st < 0 ? -1 : 0;
}

static int attr_scalar(hid_t loc, const char *name, hid_t type, const void *v)
{
    hid_t s = H5Screate(H5S_SCALAR);
    int rc = attr_write(loc, name, type, s, v);
    H5Sclose(s);
    return rc;
}

static hid_t vlen_str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

/* Variable-length UTF-8 strings: h5py reads them as str, and their bytes live
 * in the global heap, so a long sweep text does not hit the 64 kB limit of
 * compact attribute storage. */
static int attr_str(hid_t loc, const char *name, const char *value)
{
    hid_t t = vlen_str_type();
    const char *p = value != NULL ? value : "";
    int rc = attr_scalar(loc, name, t, &p);
    H5Tclose(t);
    return rc;
}

static int attr_i64(hid_t loc, const char *name, int64_t v)
{
    return attr_scalar(loc, name, H5T_NATIVE_INT64, &v);
}
static int attr_u64(hid_t loc, const char *name, uint64_t v)
{
    return attr_scalar(loc, name, H5T_NATIVE_UINT64, &v);
}
static int attr_f64(hid_t loc, const char *name, double v)
{
    return attr_scalar(loc, name, H5T_NATIVE_DOUBLE, &v);
}
static int attr_u8(hid_t loc, const char *name, uint8_t v)
{
    return attr_scalar(loc, name, H5T_NATIVE_UINT8, &v);
}

/* Reads a string attribute of any string type into buf; -1 if absent or not a string. */
static int attr_read_str(hid_t loc, const char *name, char *buf, size_t n)
{
    buf[0] = '\0';
    if (H5Aexists(loc, name) <= 0) return -1;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t ft = H5Aget_type(a);
    int rc = -1;
    if (H5Tget_class(ft) == H5T_STRING) {
        if (H5Tis_variable_str(ft) > 0) {
            hid_t mt = vlen_str_type();
            char *p = NULL;
            if (H5Aread(a, mt, &p) >= 0 && p != NULL) {
                snprintf(buf, n, "%s", p);
                H5free_memory(p);
                rc = 0;
            }
            H5Tclose(mt);
        } else {
            size_t sz = H5Tget_size(ft);
            char *tmp = calloc(1, sz + 1);
            if (tmp != NULL && H5Aread(a, ft, tmp) >= 0) {
                snprintf(buf, n, "%s", tmp);
                rc = 0;
            }
            free(tmp);
        }
    }
    H5Tclose(ft);
    H5Aclose(a);
    return rc;
}

static int attr_read_u64(hid_t loc, const char *name, uint64_t *v)
{
    if (H5Aexists(loc, name) <= 0) return -1;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return -1;
    herr_t st = H5Aread(a, H5T_NATIVE_UINT64, v);
    H5Aclose(a);
    return st < 0 ? -1 : 0;
}

static void utc_text(double t, char out[32])
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static double now_unix(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A 1-D (or 2-D) dataset; chunked with shuffle+deflate when it has data, so
 * sparse histograms (mostly zero bins) compress to a few kB. */
static int write_dataset(hid_t loc, const char *name, hid_t mtype, hid_t ftype, int rank,
                         const hsize_t *dims, const void *data)
{
    hid_t space = H5Screate_simple(rank, dims, NULL);
    if (space < 0) return -1;
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t total = 1;
    for (int i = 0; i < rank; i++) total *= dims[i];
    if (total > 0) {
        hsize_t chunk[2];
        for (int i = 0; i < rank; i++) chunk[i] = dims[i];
        /* Chunks of at most 64 Ki elements along the first axis. */
        if (chunk[0] > 65536) chunk[0] = 65536;
        H5Pset_chunk(dcpl, rank, chunk);
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 4);
    }
    hid_t d = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int rc = -1;
    if (d >= 0) {
        rc = (total == 0 || H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0) ? 0 : -1;
        H5Dclose(d);
    }
    H5Pclose(dcpl);
    H5Sclose(space);
    return rc;
}

static int write_summary(hid_t g, const char *name, const rc_summary *s)
{
    double v[SUMMARY_LEN];
    v[0] = (double)s->count;
    if (s->count == 0) {
        for (int i = 1; i < SUMMARY_LEN; i++) v[i] = NAN;
    } else {
        v[1] = s->mean_s, v[2] = s->sd_s, v[3] = s->min_s, v[4] = s->max_s;
        for (int i = 0; i < RC_SUMMARY_QUANTILES; i++) v[5 + i] = s->q[i];
    }
    hsize_t dim = SUMMARY_LEN;
    hid_t space = H5Screate_simple(1, &dim, NULL);
    hid_t d = H5Dcreate2(g, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = -1;
    if (d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) {
        static const char *base[5] = {"count", "mean", "sd", "min", "max"};
        const char *names[SUMMARY_LEN];
        for (int i = 0; i < 5; i++) names[i] = base[i];
        for (int i = 0; i < RC_SUMMARY_QUANTILES; i++) names[5 + i] = rc_summary_q_names[i];
        hid_t t = vlen_str_type();
        rc = attr_write(d, "names", t, space, names);
        H5Tclose(t);
    }
    if (d >= 0) H5Dclose(d);
    H5Sclose(space);
    return rc;
}

/* ---- file-level operations ---- */

static void silence_hdf5(void)
{
    /* No library teardown at exit (must precede the first HDF5 call, so it
     * comes first here).  HDF5 1.10.8 leaves a half-destroyed file object in
     * its ID table when H5Fclose fails to flush (e.g. "No space left on
     * device"), and H5_term_library then segfaults on it in H5F__close_cb
     * (HDFFV-11052, fixed upstream after 1.10.8).  We close every file
     * ourselves, so the atexit teardown only frees memory. */
    H5dont_atexit();
    /* Our messages name the file and what failed; HDF5's stack dumps would
     * bury them.  Set once per process (the setting is global). */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

int rc_h5out_check(const char *path, const rc_h5out_sweep *sweep, rc_err *err)
{
    silence_hdf5();
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot be opened as HDF5 (damaged?)", path);
    char layout[128], name[256];
    uint64_t hash = 0;
    int rc = 0;
    if (attr_read_str(f, "layout", layout, sizeof layout) != 0 ||
        strcmp(layout, RC_H5OUT_LAYOUT) != 0) {
        rc = rc_err_set(err, RC_EXIT_USAGE,
                        "%s: not an rcsim results file (layout attribute '%s', expected '%s'); "
                        "refusing to write into it",
                        path, layout, RC_H5OUT_LAYOUT);
    } else if (attr_read_u64(f, "sweep_hash", &hash) != 0) {
        rc = rc_err_set(err, RC_EXIT_USAGE, "%s: results file has no sweep_hash attribute", path);
    } else if (hash != sweep->hash) {
        attr_read_str(f, "sweep_name", name, sizeof name);
        rc = rc_err_set(err, RC_EXIT_USAGE,
                        "results file %s belongs to sweep '%s' (hash %016" PRIx64
                        "), not '%s' (hash %016" PRIx64 "); choose another --out",
                        path, name, hash, sweep->name, sweep->hash);
    }
    H5Fclose(f);
    return rc;
}

/* ": No space left on device" (or another storage failure) when the HDF5
 * call that just failed left one in errno, else "".  Only errnos that mean
 * the storage failed: the library's own probing (stat of a missing file)
 * leaves others behind that would mislead.  Callers zero errno first. */
static const char *io_reason(char *buf, size_t len)
{
    int e = errno;
    buf[0] = '\0';
    if (e == ENOSPC || e == EDQUOT || e == EIO || e == EROFS || e == EFBIG)
        snprintf(buf, len, ": %s", strerror(e));
    return buf;
}

static int create_file(rc_h5out *h, rc_err *err)
{
    char why[96];
    errno = 0;
    hid_t f = H5Fcreate(h->path, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot create HDF5 file%s", h->path,
                          io_reason(why, sizeof why));
    char created[32];
    utc_text(now_unix(), created);
    int bad = attr_str(f, "layout", RC_H5OUT_LAYOUT) || attr_str(f, "rcsim_version", RCSIM_VERSION) ||
              attr_str(f, "git_revision", RCSIM_GIT_REVISION) ||
              attr_str(f, "sweep_name", h->sweep.name) ||
              attr_str(f, "sweep_file", h->sweep.file) ||
              attr_str(f, "sweep_text", h->sweep.text) ||
              attr_u64(f, "sweep_hash", h->sweep.hash) || attr_str(f, "created_utc", created) ||
              attr_str(f, "build_id", rc_build()->id) ||
              attr_str(f, "build_sources_sha256", rc_build()->sources_sha256) ||
              attr_i64(f, "build_dirty", rc_build()->dirty) ||
              attr_str(f, "build_config", rc_build()->config);
    if (!bad) {
        double *edges = rc_xmalloc((RC_HIST_BINS + 1) * sizeof *edges);
        for (size_t i = 0; i < RC_HIST_BINS; i++) edges[i] = rc_hist_edge(i);
        edges[RC_HIST_BINS] = INFINITY;
        hsize_t dim = RC_HIST_BINS + 1;
        bad = write_dataset(f, "hist_edges_s", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, &dim, edges);
        free(edges);
    }
    if (!bad) {
        hid_t g = H5Gcreate2(f, "jobs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t g2 = H5Gcreate2(f, "failed", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        bad = g < 0 || g2 < 0;
        if (g >= 0) H5Gclose(g);
        if (g2 >= 0) H5Gclose(g2);
    }
    if (H5Fclose(f) < 0) bad = 1;
    if (bad) {
        io_reason(why, sizeof why);
        unlink(h->path);
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot write the file header%s", h->path,
                          why);
    }
    return 0;
}

typedef struct name_list {
    char **names;
    size_t n, cap;
} name_list;

static herr_t collect_name(hid_t g, const char *name, const H5L_info_t *info, void *ctx)
{
    (void)g, (void)info;
    name_list *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->names = rc_xrealloc(l->names, l->cap * sizeof *l->names);
    }
    l->names[l->n++] = rc_xstrdup(name);
    return 0;
}

static void name_list_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->names[i]);
    free(l->names);
}

static int list_group(hid_t f, const char *group, name_list *l)
{
    memset(l, 0, sizeof *l);
    hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
    if (g < 0) return -1;
    hsize_t idx = 0;
    herr_t st = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_name, l);
    H5Gclose(g);
    return st < 0 ? -1 : 0;
}

rc_h5out *rc_h5out_open(const char *path, const rc_h5out_sweep *sweep, rc_err *err)
{
    silence_hdf5();
    int rc = rc_h5out_check(path, sweep, err);
    if (rc != 0) return NULL;
    rc_h5out *h = rc_xcalloc(1, sizeof *h);
    h->path = rc_xstrdup(path);
    h->sweep.name = rc_xstrdup(sweep->name ? sweep->name : "");
    h->sweep.file = rc_xstrdup(sweep->file ? sweep->file : "");
    h->sweep.text = rc_xstrdup(sweep->text ? sweep->text : "");
    h->sweep.hash = sweep->hash;
    h->file = H5I_INVALID_HID;
    struct stat st;
    if (stat(path, &st) != 0) {
        if (create_file(h, err) != 0) goto fail;
        return h;
    }
    /* Remove jobs left half-built by a writer killed mid-batch. */
    if (rc_h5out_begin(h, err) != 0) goto fail;
    name_list l;
    if (list_group(h->file, "jobs", &l) != 0) {
        name_list_free(&l);
        rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot list /jobs (damaged?)", path);
        goto fail;
    }
    for (size_t i = 0; i < l.n; i++)
        if (strncmp(l.names[i], PARTIAL_PREFIX, strlen(PARTIAL_PREFIX)) == 0) {
            hid_t g = H5Gopen2(h->file, "jobs", H5P_DEFAULT);
            if (g >= 0) {
                H5Ldelete(g, l.names[i], H5P_DEFAULT);
                H5Gclose(g);
            }
        }
    name_list_free(&l);
    if (rc_h5out_end(h, err) != 0) goto fail;
    return h;
fail:
    rc_h5out_close(h, NULL);
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int rc_h5out_list(rc_h5out *h, uint64_t **ids, size_t *n, rc_err *err)
{
    *ids = NULL;
    *n = 0;
    int opened_here = h->file < 0;
    if (opened_here) {
        h->file = H5Fopen(h->path, H5F_ACC_RDONLY, H5P_DEFAULT);
        if (h->file < 0)
            return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot be opened (damaged?)", h->path);
    }
    name_list l;
    int rc = 0;
    if (list_group(h->file, "jobs", &l) != 0) {
        rc = rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot list /jobs (damaged?)", h->path);
    } else {
        *ids = rc_xmalloc((l.n ? l.n : 1) * sizeof **ids);
        hid_t g = H5Gopen2(h->file, "jobs", H5P_DEFAULT);
        for (size_t i = 0; i < l.n; i++) {
            char *end;
            if (strlen(l.names[i]) != 16) continue;
            uint64_t id = strtoull(l.names[i], &end, 16);
            if (*end != '\0') continue;
            /* A job counts only if its group is readable and complete. */
            hid_t jg = H5Gopen2(g, l.names[i], H5P_DEFAULT);
            char status[16];
            int ok = jg >= 0 && attr_read_str(jg, "status", status, sizeof status) == 0 &&
                     strcmp(status, "ok") == 0;
            if (jg >= 0) H5Gclose(jg);
            if (ok) (*ids)[(*n)++] = id;
        }
        if (g >= 0) H5Gclose(g);
        qsort(*ids, *n, sizeof **ids, cmp_u64);
    }
    name_list_free(&l);
    if (opened_here) {
        H5Fclose(h->file);
        h->file = H5I_INVALID_HID;
    }
    return rc;
}

int rc_h5out_begin(rc_h5out *h, rc_err *err)
{
    RC_ASSERT(h->file < 0);
    /* A reader (h5py) holding the file makes HDF5's file lock refuse us; wait
     * a little, then give up for this batch (the journal keeps the data). */
    for (int attempt = 0; attempt < 10; attempt++) {
        h->file = H5Fopen(h->path, H5F_ACC_RDWR, H5P_DEFAULT);
        if (h->file >= 0) return 0;
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot open for writing (locked or damaged)",
                      h->path);
}

int rc_h5out_end(rc_h5out *h, rc_err *err)
{
    if (h->file < 0) return 0;
    char why[96];
    errno = 0; /* io_reason: the close flushes the batch, so it sees a full disk */
    herr_t st = H5Fclose(h->file);
    h->file = H5I_INVALID_HID;
    if (st < 0)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: closing failed%s", h->path,
                          io_reason(why, sizeof why));
    return 0;
}

static int write_params(hid_t g, const rc_job *resolved)
{
    size_t n;
    const rc_param_def *t = rc_param_table(&n);
    for (size_t i = 0; i < n; i++) {
        const rc_param_def *d = &t[i];
        const char *base = (const char *)resolved + d->offset;
        char text[300];
        int bad = 0;
        switch (d->type) {
        case RC_PT_INT:
        case RC_PT_TRI: bad = attr_i64(g, d->name, *(const int *)base); break;
        case RC_PT_U64: bad = attr_u64(g, d->name, *(const uint64_t *)base); break;
        case RC_PT_DOUBLE:
        case RC_PT_DURATION: bad = attr_f64(g, d->name, *(const double *)base); break;
        case RC_PT_BOOL: bad = attr_u8(g, d->name, *(const bool *)base ? 1 : 0); break;
        case RC_PT_STRING:
        case RC_PT_ENUM:
            rc_param_format(resolved, d, text, sizeof text);
            bad = attr_str(g, d->name, text);
            break;
        }
        if (bad) return -1;
    }
    return 0;
}

/* `build_id`/`revision`: the build that ran the job (from its result), or this
 * binary's for a failed job. */
static int write_common(hid_t g, const rc_job *job, const rc_h5out_prov *prov,
                        const char *build_id, const char *revision)
{
    rc_job r = *job;
    rc_job_resolve(&r);
    char hex[17], fin[32], canon[8192];
    rc_job_id_hex(rc_job_id(&r), hex);
    rc_job_canonical(&r, canon, sizeof canon);
    utc_text(prov->finished, fin);
    return write_params(g, &r) || attr_str(g, "job_id", hex) || attr_str(g, "canonical", canon) ||
           attr_str(g, "trace_name", r.trace_name) || attr_str(g, "trace_sha256", r.trace_sha256) ||
           attr_i64(g, "trace_lines", r.trace_lines) ||
           attr_str(g, "rcsim_version", RCSIM_VERSION) || attr_str(g, "git_revision", revision) ||
           attr_str(g, "build_id", build_id) || attr_str(g, "host", prov->host) ||
           attr_i64(g, "rank", prov->rank) || attr_str(g, "finished_utc", fin);
}

/* Field table for the counters so the attribute list follows rc_counters. */
#define COUNTER(f) {"counter_" #f, offsetof(rc_counters, f)}
static const struct {
    const char *name;
    size_t off;
} counter_fields[] = {
    COUNTER(events),          COUNTER(multicasts),     COUNTER(deliveries),
    COUNTER(deliveries_online), COUNTER(duplicates),   COUNTER(expected_deliveries),
    COUNTER(undelivered),     COUNTER(payload_packets), COUNTER(ack_packets),
    COUNTER(repair_packets),  COUNTER(cover_packets),  COUNTER(bundles),
    COUNTER(reassignments),   COUNTER(timeouts),       COUNTER(pulls),
    COUNTER(mix_packets),     COUNTER(peak_rss_kb),    COUNTER(joins),
    COUNTER(leaves),          COUNTER(repairs),        COUNTER(so_expected),
    COUNTER(so_delivered),    COUNTER(so_delivered_online), COUNTER(so_latency_sum_ms),
    COUNTER(so_latency_max_ms), COUNTER(adv_members),  COUNTER(adv_withheld),
    COUNTER(adv_acks_withheld), COUNTER(adv_acks_faked), COUNTER(adv_delayed),
};

/* Population mode (docs/results-layout.md): latency by group size and load by user. */
#define BUCKET_COLS (7 + SUMMARY_LEN)
static int write_population(hid_t g, const rc_result *r)
{
    double *v = rc_xmalloc((size_t)r->n_sizes * BUCKET_COLS * sizeof *v);
    for (uint32_t i = 0; i < r->n_sizes; i++) {
        const rc_size_bucket *b = &r->sizes[i];
        double *row = &v[(size_t)i * BUCKET_COLS];
        row[0] = (double)b->lo, row[1] = b->hi == UINT64_MAX ? INFINITY : (double)b->hi;
        row[2] = (double)b->groups, row[3] = (double)b->multicasts, row[4] = (double)b->expected;
        row[5] = (double)b->deliveries, row[6] = (double)b->undelivered;
        row[7] = (double)b->online.count;
        bool none = b->online.count == 0;
        row[8] = none ? NAN : b->online.mean_s, row[9] = none ? NAN : b->online.sd_s;
        row[10] = none ? NAN : b->online.min_s, row[11] = none ? NAN : b->online.max_s;
        for (int q = 0; q < RC_SUMMARY_QUANTILES; q++) row[12 + q] = none ? NAN : b->online.q[q];
    }
    hsize_t dims[2] = {r->n_sizes, BUCKET_COLS};
    int bad = write_dataset(g, "size_buckets", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 2, dims, v);
    free(v);
    if (!bad) {
        static const char *base[12] = {"lo", "hi", "groups", "multicasts", "expected",
                                       "deliveries", "undelivered", "count", "mean", "sd",
                                       "min", "max"};
        const char *names[BUCKET_COLS];
        for (int i = 0; i < 12; i++) names[i] = base[i];
        for (int i = 0; i < RC_SUMMARY_QUANTILES; i++) names[12 + i] = rc_summary_q_names[i];
        hid_t d = H5Dopen2(g, "size_buckets", H5P_DEFAULT);
        hsize_t nn = BUCKET_COLS;
        hid_t space = H5Screate_simple(1, &nn, NULL), t = vlen_str_type();
        bad = d < 0 || attr_write(d, "names", t, space, names);
        H5Tclose(t);
        H5Sclose(space);
        if (d >= 0) H5Dclose(d);
    }
    hsize_t n = r->n_users_load;
    if (!bad) bad = write_dataset(g, "user_sent", H5T_NATIVE_UINT32, H5T_STD_U32LE, 1, &n,
                                  r->user_sent) ||
                    write_dataset(g, "user_groups", H5T_NATIVE_UINT32, H5T_STD_U32LE, 1, &n,
                                  r->user_groups);
    rc_load_summary ls;
    rc_result_load_summary(r, &ls);
    if (!bad) bad = attr_f64(g, "load_sent_mean", ls.sent_mean) ||
                    attr_f64(g, "load_sent_p99", ls.sent_p99) ||
                    attr_f64(g, "load_sent_max", ls.sent_max) ||
                    attr_f64(g, "load_groups_mean", ls.groups_mean) ||
                    attr_f64(g, "load_groups_max", ls.groups_max) ||
                    attr_u64(g, "load_users_without_group", ls.without_group);
    return bad;
}

static int delete_if_exists(hid_t loc, const char *name)
{
    htri_t e = H5Lexists(loc, name, H5P_DEFAULT);
    if (e < 0) return -1;
    if (e > 0 && H5Ldelete(loc, name, H5P_DEFAULT) < 0) return -1;
    return 0;
}

int rc_h5out_write_job(rc_h5out *h, const rc_job *job, const rc_result *r,
                       const rc_h5out_prov *prov, rc_err *err)
{
    RC_ASSERT(h->file >= 0);
    char hex[17], tmp[64], why[96];
    errno = 0;
    rc_job_id_hex(r->job_id, hex);
    snprintf(tmp, sizeof tmp, PARTIAL_PREFIX "%s", hex);
    hid_t jobs = H5Gopen2(h->file, "jobs", H5P_DEFAULT);
    if (jobs < 0) return rc_err_set(err, RC_EXIT_RUNTIME, "%s: /jobs is missing", h->path);
    int bad = delete_if_exists(jobs, tmp);
    hid_t g = bad ? -1 : H5Gcreate2(jobs, tmp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) bad = 1;
    if (!bad) bad = write_common(g, job, prov, r->build_id, r->build_revision);
    if (!bad) {
        const rc_counters *c = &r->c;
        for (size_t i = 0; i < sizeof counter_fields / sizeof counter_fields[0] && !bad; i++)
            bad = attr_u64(g, counter_fields[i].name,
                           *(const uint64_t *)((const char *)c + counter_fields[i].off));
        double eps = c->wall_s > 0 ? (double)c->events / c->wall_s : 0;
        bad = bad || attr_f64(g, "counter_wall_s", c->wall_s) ||
              attr_f64(g, "counter_sim_s", c->sim_s) || attr_f64(g, "wall_s", c->wall_s) ||
              attr_u64(g, "events", c->events) || attr_f64(g, "events_per_s", eps) ||
              attr_u64(g, "peak_rss_kb", c->peak_rss_kb);
    }
    if (!bad) bad = write_summary(g, "summary_online", &r->online) ||
                    write_summary(g, "summary_all", &r->all);
    hsize_t hb = RC_HIST_BINS;
    if (!bad) bad = write_dataset(g, "hist_online", H5T_NATIVE_UINT32, H5T_STD_U32LE, 1, &hb,
                                  r->hist_online) ||
                    write_dataset(g, "hist_all", H5T_NATIVE_UINT32, H5T_STD_U32LE, 1, &hb,
                                  r->hist_all);
    if (!bad && r->raw_online != NULL) {
        hsize_t n = r->n_raw;
        bad = write_dataset(g, "latency_online_s", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, 1, &n,
                            r->raw_online);
    }
    if (!bad) {
        uint32_t *u = rc_xmalloc((r->n_undelivered ? r->n_undelivered : 1) * 3 * sizeof *u);
        for (size_t i = 0; i < r->n_undelivered; i++) {
            u[3 * i] = r->undelivered[i].group;
            u[3 * i + 1] = r->undelivered[i].nonce;
            u[3 * i + 2] = r->undelivered[i].recipient;
        }
        hsize_t dims[2] = {r->n_undelivered, 3};
        bad = write_dataset(g, "undelivered", H5T_NATIVE_UINT32, H5T_STD_U32LE, 2, dims, u);
        free(u);
    }
    if (!bad && r->n_sizes > 0) bad = write_population(g, r);
    /* status last: a group cut short by a crash has no status = "ok". */
    if (!bad) bad = attr_str(g, "status", "ok");
    if (g >= 0) H5Gclose(g);
    /* Publish under the real name only now that the group is complete. */
    if (!bad) bad = delete_if_exists(jobs, hex) ||
                    H5Lmove(jobs, tmp, jobs, hex, H5P_DEFAULT, H5P_DEFAULT) < 0;
    H5Gclose(jobs);
    if (!bad) {
        hid_t fg = H5Gopen2(h->file, "failed", H5P_DEFAULT);
        if (fg >= 0) {
            bad = delete_if_exists(fg, hex);
            H5Gclose(fg);
        }
    }
    if (bad)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: writing job %s failed%s", h->path, hex,
                          io_reason(why, sizeof why));
    return 0;
}

int rc_h5out_write_failed(rc_h5out *h, const rc_job *job, const char *message,
                          const rc_h5out_prov *prov, rc_err *err)
{
    RC_ASSERT(h->file >= 0);
    char hex[17];
    rc_job_id_hex(rc_job_id(job), hex);
    hid_t fg = H5Gopen2(h->file, "failed", H5P_DEFAULT);
    if (fg < 0) fg = H5Gcreate2(h->file, "failed", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (fg < 0) return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot create /failed", h->path);
    int bad = delete_if_exists(fg, hex);
    hid_t g = bad ? -1 : H5Gcreate2(fg, hex, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) bad = 1;
    if (!bad) bad = write_common(g, job, prov, rc_build()->id, RCSIM_GIT_REVISION) ||
                    attr_str(g, "error", message) ||
                    attr_str(g, "status", "failed");
    if (g >= 0) H5Gclose(g);
    H5Gclose(fg);
    if (bad)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: recording failed job %s failed", h->path,
                          hex);
    return 0;
}

int rc_h5out_close(rc_h5out *h, rc_err *err)
{
    if (h == NULL) return 0;
    int rc = rc_h5out_end(h, err);
    free(h->path);
    free((char *)h->sweep.name);
    free((char *)h->sweep.file);
    free((char *)h->sweep.text);
    free(h);
    return rc;
}
