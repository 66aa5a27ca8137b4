/* rcsim convert: layout rcsim-results/1 (one group per job) -> a read-only v2
 * file that keeps its v1 histogram bins. */
#include "io/h5out_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "exp/param.h"

typedef struct v1_ctx {
    rc_h5out *h;
    hid_t jobs;
    size_t n, raw;
    double *edges;
    size_t n_edges;
    rc_err *err;
    int rc;
} v1_ctx;

static double parse_utc(const char *text)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (sscanf(text, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec) != 6)
        return NAN;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (double)timegm(&tm);
}

static int v1_summary(hid_t g, const char *name, rc_summary *s)
{
    double v[15];
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0) return -1;
    int rc = h5_ds_length(d) == 15 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 ? 0 : -1;
    H5Dclose(d);
    if (rc != 0) return -1;
    s->count = (uint64_t)v[0];
    s->mean_s = v[1], s->sd_s = v[2], s->min_s = v[3], s->max_s = v[4];
    for (int i = 0; i < RC_SUMMARY_QUANTILES; i++) s->q[i] = v[5 + i];
    return 0;
}

/* The nonzero bins of a v1 histogram as (uint16 bucket, uint32 count) arrays. */
static int v1_hist(hid_t g, const char *name, size_t nbins, unsigned char **b, unsigned char **c,
                   size_t *n)
{
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0 || h5_ds_length(d) != (int64_t)nbins) {
        if (d >= 0) H5Dclose(d);
        return -1;
    }
    uint32_t *h = rc_xmalloc(nbins * sizeof *h);
    int rc = H5Dread(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, h) >= 0 ? 0 : -1;
    H5Dclose(d);
    *n = 0;
    *b = rc_xmalloc(nbins * 2 + 1);
    *c = rc_xmalloc(nbins * 4 + 1);
    for (size_t i = 0; rc == 0 && i < nbins; i++) {
        if (h[i] == 0) continue;
        uint16_t bi = (uint16_t)i;
        memcpy(*b + 2 * *n, &bi, 2);
        memcpy(*c + 4 * *n, &h[i], 4);
        (*n)++;
    }
    free(h);
    return rc;
}

static int v1_job(hid_t jg, const char *name, rc_job *job, rc_result_view *v, rc_h5out_prov *prov,
                  char *host, char *build, char *canon, size_t nbins, unsigned char *hb[2],
                  unsigned char *hc[2], unsigned char **und, size_t *raw)
{
    rc_job_defaults(job);
    size_t np;
    const rc_param_def *t = rc_param_table(&np);
    for (size_t i = 0; i < np; i++) {
        const rc_param_def *d = &t[i];
        if (H5Aexists(jg, d->name) <= 0) continue;
        char *base = (char *)job + d->offset;
        hid_t a = H5Aopen(jg, d->name, H5P_DEFAULT);
        int bad = 0;
        switch (d->type) {
        case RC_PT_INT:
        case RC_PT_TRI: {
            int64_t x;
            bad = H5Aread(a, H5T_NATIVE_INT64, &x) < 0;
            *(int *)base = (int)x;
            break;
        }
        case RC_PT_U64: bad = H5Aread(a, H5T_NATIVE_UINT64, base) < 0; break;
        case RC_PT_DOUBLE:
        case RC_PT_DURATION: bad = H5Aread(a, H5T_NATIVE_DOUBLE, base) < 0; break;
        case RC_PT_BOOL: {
            uint8_t x;
            bad = H5Aread(a, H5T_NATIVE_UINT8, &x) < 0;
            *(bool *)base = x != 0;
            break;
        }
        case RC_PT_STRING:
        case RC_PT_ENUM: {
            char text[512];
            H5Aclose(a);
            a = -1;
            h5_attr_read_str(jg, d->name, text, sizeof text);
            bad = rc_param_set(job, d, text, &(rc_err){0}) != 0;
            break;
        }
        }
        if (a >= 0) H5Aclose(a);
        if (bad) return -1;
    }
    memset(v, 0, sizeof *v);
    char hex[32];
    if (h5_attr_read_str(jg, "job_id", hex, sizeof hex) != 0) snprintf(hex, sizeof hex, "%s", name);
    v->job_id = strtoull(hex, NULL, 16);
    for (size_t i = 0; i < h5_n_counters; i++) {
        char *dst = (char *)&v->c + h5_counter_cols[i].off;
        if (h5_counter_cols[i].k == K_F64) {
            if (h5_attr_read_f64(jg, h5_counter_cols[i].name, (double *)(void *)dst) != 0)
                *(double *)(void *)dst = NAN;
        } else {
            h5_attr_read_u64(jg, h5_counter_cols[i].name, (uint64_t *)(void *)dst);
        }
    }
    if (v1_summary(jg, "summary_online", &v->online) || v1_summary(jg, "summary_all", &v->all))
        return -1;
    static const char *hn[2] = {"hist_online", "hist_all"};
    for (int w = 0; w < 2; w++)
        if (v1_hist(jg, hn[w], nbins, &hb[w], &hc[w], &v->n_hist[w]) != 0) return -1;
    for (int w = 0; w < 2; w++) {
        v->hist_bucket[w] = hb[w];
        v->hist_count[w] = hc[w];
    }
    if (H5Lexists(jg, "undelivered", H5P_DEFAULT) > 0) {
        hid_t d = H5Dopen2(jg, "undelivered", H5P_DEFAULT);
        hid_t s = H5Dget_space(d);
        hsize_t dims[2] = {0, 0};
        if (H5Sget_simple_extent_ndims(s) == 2) H5Sget_simple_extent_dims(s, dims, NULL);
        H5Sclose(s);
        if (dims[1] == 3 && dims[0] > 0 && dims[0] <= RC_UNDELIVERED_MAX) {
            *und = rc_xmalloc(dims[0] * sizeof(rc_undelivered));
            if (H5Dread(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, *und) >= 0) {
                v->n_undelivered = dims[0];
                v->undelivered = *und;
            }
        }
        H5Dclose(d);
    }
    if (H5Lexists(jg, "latency_online_s", H5P_DEFAULT) > 0) (*raw)++;
    char fin[64], rev[64], build_id[17];
    h5_attr_read_str(jg, "host", host, 256);
    int64_t rank = 0;
    if (H5Aexists(jg, "rank") > 0) {
        hid_t a = H5Aopen(jg, "rank", H5P_DEFAULT);
        H5Aread(a, H5T_NATIVE_INT64, &rank);
        H5Aclose(a);
    }
    h5_attr_read_str(jg, "finished_utc", fin, sizeof fin);
    h5_attr_read_str(jg, "git_revision", rev, sizeof rev);
    h5_attr_read_str(jg, "build_id", build_id, sizeof build_id); /* absent before builds had ids */
    h5_attr_read_str(jg, "trace_name", job->trace_name, sizeof job->trace_name);
    h5_attr_read_str(jg, "trace_sha256", job->trace_sha256, sizeof job->trace_sha256);
    if (H5Aexists(jg, "trace_lines") > 0) {
        int64_t tl = 0;
        hid_t a = H5Aopen(jg, "trace_lines", H5P_DEFAULT);
        H5Aread(a, H5T_NATIVE_INT64, &tl);
        H5Aclose(a);
        job->trace_lines = (uint32_t)tl;
    }
    (void)build;
    h5_attr_read_str(jg, "canonical", canon, CANON_MAX);
    prov->host = host;
    prov->rank = (int)rank;
    prov->finished = parse_utc(fin);
    snprintf(v->build_id, sizeof v->build_id, "%.16s", build_id);
    snprintf(v->build_revision, sizeof v->build_revision, "%.63s", rev);
    return 0;
}

static herr_t v1_visit(hid_t g, const char *name, const H5L_info_t *info, void *ctx)
{
    (void)info;
    v1_ctx *c = ctx;
    hid_t jg = H5Gopen2(g, name, H5P_DEFAULT);
    if (jg < 0) return 0;
    char status[16];
    if (h5_attr_read_str(jg, "status", status, sizeof status) != 0 || strcmp(status, "ok") != 0) {
        H5Gclose(jg);
        return 0; /* a partial or failed job: not a result */
    }
    rc_job job;
    rc_result_view v;
    rc_h5out_prov prov;
    char host[256], build[256];
    char *canon = rc_xcalloc(1, CANON_MAX);
    unsigned char *hb[2] = {NULL, NULL}, *hc[2] = {NULL, NULL}, *und = NULL;
    int rc = v1_job(jg, name, &job, &v, &prov, host, build, canon, c->n_edges - 1, hb, hc, &und,
                    &c->raw);
    H5Gclose(jg);
    if (rc == 0) {
        h5_add_row(c->h, &job, &v, &prov, canon);
        c->n++;
        bool locked;
        if (c->h->pending >= TABLE_CHUNK) rc = rc_h5out_flush(c->h, &locked, c->err);
        if (rc != 0) c->rc = rc;
    } else {
        c->rc = rc_err_set(c->err, RC_EXIT_RUNTIME, "job %s: cannot read it as a %s job group",
                           name, RC_H5OUT_LAYOUT_V1);
    }
    for (int w = 0; w < 2; w++) {
        free(hb[w]);
        free(hc[w]);
    }
    free(und);
    free(canon);
    return c->rc != 0 ? -1 : 0;
}

int rc_h5out_convert_v1(const char *in, const char *out, size_t *n, rc_err *err)
{
    h5_silence_hdf5();
    *n = 0;
    struct stat st;
    if (stat(out, &st) == 0)
        return rc_err_set(err, RC_EXIT_USAGE, "%s exists; convert writes a new file", out);
    hid_t f = h5_open_file(in, H5F_ACC_RDONLY);
    if (f < 0) return rc_err_set(err, RC_EXIT_USAGE, "%s: cannot be opened as HDF5", in);
    char layout[64];
    h5_attr_read_str(f, "layout", layout, sizeof layout);
    if (strcmp(layout, RC_H5OUT_LAYOUT_V1) != 0) {
        H5Fclose(f);
        return rc_err_set(err, RC_EXIT_USAGE, "%s: layout '%s', expected '%s'", in, layout,
                          RC_H5OUT_LAYOUT_V1);
    }
    v1_ctx c = {.err = err};
    hid_t e = H5Dopen2(f, "hist_edges_s", H5P_DEFAULT);
    int64_t ne = e >= 0 ? h5_ds_length(e) : -1;
    if (ne < 2 || ne > 65537) {
        if (e >= 0) H5Dclose(e);
        H5Fclose(f);
        return rc_err_set(err, RC_EXIT_USAGE, "%s: no usable /hist_edges_s", in);
    }
    c.edges = h5_ds_get(e, H5T_NATIVE_DOUBLE, 8, 0, (hsize_t)ne);
    c.n_edges = (size_t)ne;
    H5Dclose(e);
    rc_h5out_sweep sw = {0};
    char *name = h5_attr_read_str_dup(f, "sweep_name"), *file = h5_attr_read_str_dup(f, "sweep_file"),
         *text = h5_attr_read_str_dup(f, "sweep_text");
    sw.name = name, sw.file = file, sw.text = text, sw.shard = "";
    h5_attr_read_u64(f, "sweep_hash", &sw.hash);
    c.jobs = H5Gopen2(f, "jobs", H5P_DEFAULT);
    if (c.jobs >= 0) {
        H5G_info_t gi;
        if (H5Gget_info(c.jobs, &gi) >= 0) sw.jobs = gi.nlinks;
    }
    rc_h5out *h = h5_new_writer(out, &sw, 2048);
    h->edges = c.edges;
    h->n_edges = c.n_edges;
    h->converted_from = RC_H5OUT_LAYOUT_V1;
    c.h = h;
    int rc = h5_create_file(h, err);
    if (rc == 0 && c.jobs >= 0) {
        hsize_t idx = 0;
        H5Literate(c.jobs, H5_INDEX_NAME, H5_ITER_INC, &idx, v1_visit, &c);
        rc = c.rc;
    }
    bool locked;
    if (rc == 0) rc = rc_h5out_flush(h, &locked, err);
    if (c.jobs >= 0) H5Gclose(c.jobs);
    H5Fclose(f);
    rc_h5out_close(h);
    free(c.edges);
    free(name);
    free(file);
    free(text);
    if (rc != 0) {
        unlink(out);
        return rc;
    }
    *n = c.n;
    if (c.raw > 0)
        fprintf(stderr, "rcsim convert: note: %zu job(s) had raw online latencies "
                "(latency_online_s); layout 2 keeps per-delivery records instead, which %s "
                "files do not have, so they were not converted\n", c.raw, RC_H5OUT_LAYOUT_V1);
    return 0;
}
