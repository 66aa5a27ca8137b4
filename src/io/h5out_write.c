/* The writer: checking, creating and reopening a results file, buffering job
 * rows and failed jobs, and flushing them as one commit (io/h5out.h). */
#include "io/h5out_internal.h"

#include <errno.h>
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

const char *rc_h5out_build(void)
{
    static char text[256];
    if (text[0] == '\0')
        snprintf(text, sizeof text, "rcsim %s (%s) build %s", RCSIM_VERSION, rc_build()->revision,
                 rc_build()->id);
    return text;
}

static void set_sweep_copy(rc_h5out *h, const rc_h5out_sweep *s)
{
    free((char *)h->sweep.name);
    free((char *)h->sweep.file);
    free((char *)h->sweep.text);
    free((char *)h->sweep.shard);
    h->sweep.name = rc_xstrdup(s->name ? s->name : "");
    h->sweep.file = rc_xstrdup(s->file ? s->file : "");
    h->sweep.text = rc_xstrdup(s->text ? s->text : "");
    h->sweep.shard = rc_xstrdup(s->shard ? s->shard : "");
    h->sweep.hash = s->hash;
    h->sweep.jobs = s->jobs;
}

static const char *const run_attr[4] = {"run_effective", "run_overrides", "run_command",
                                        "run_layout"};

void rc_h5out_set_run(rc_h5out *h, const rc_h5out_run *run)
{
    const char *v[4] = {run->effective, run->overrides, run->command, run->layout};
    for (int i = 0; i < 4; i++) {
        if (v[i] == NULL) continue;
        free(h->run[i]);
        h->run[i] = rc_xstrdup(v[i]);
    }
    h->sweep_dirty = true;
}

static int write_run_attrs(hid_t f, const rc_h5out *h)
{
    for (int i = 0; i < 4; i++)
        if (h->run[i] != NULL && h5_attr_str(f, run_attr[i], h->run[i])) return 1;
    return 0;
}

static int write_sweep_attrs(hid_t f, const rc_h5out_sweep *s)
{
    return h5_attr_str(f, "sweep_name", s->name) || h5_attr_str(f, "sweep_file", s->file) ||
           h5_attr_str(f, "sweep_text", s->text) || h5_attr_u64(f, "sweep_hash", s->hash) ||
           h5_attr_u64(f, "sweep_jobs", s->jobs) || h5_attr_str(f, "shard", s->shard);
}

/* ---- checks ---- */

int rc_h5out_check(const char *path, rc_h5out_info *info, rc_err *err)
{
    h5_silence_hdf5();
    memset(info, 0, sizeof *info);
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    info->exists = true;
    hid_t f = h5_open_file(path, H5F_ACC_RDONLY);
    if (f < 0)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot be opened as HDF5 (damaged?)", path);
    h5_attr_read_str(f, "layout", info->layout, sizeof info->layout);
    h5_attr_read_str(f, "sweep_name", info->sweep_name, sizeof info->sweep_name);
    h5_attr_read_str(f, "shard", info->shard, sizeof info->shard);
    h5_attr_read_str(f, "converted_from", info->converted_from, sizeof info->converted_from);
    h5_attr_read_u64(f, "sweep_hash", &info->sweep_hash);
    int rc = 0;
    if (strcmp(info->layout, RC_H5OUT_LAYOUT_V1) == 0) {
        rc = rc_err_set(err, RC_EXIT_USAGE,
                        "%s uses the old results layout %s (one group per job); convert it "
                        "with `rcsim convert %s --out NEW.h5` (docs/results-layout.md) and run "
                        "new sweeps into another --out",
                        path, RC_H5OUT_LAYOUT_V1, path);
    } else if (strcmp(info->layout, RC_H5OUT_LAYOUT) != 0) {
        rc = rc_err_set(err, RC_EXIT_USAGE,
                        "%s: not an rcsim results file (layout attribute '%s', expected '%s'); "
                        "refusing to write into it",
                        path, info->layout, RC_H5OUT_LAYOUT);
    } else {
        hid_t t = H5Gopen2(f, "table", H5P_DEFAULT);
        if (t < 0 || h5_attr_read_u64(t, "rows", &info->rows) != 0)
            rc = rc_err_set(err, RC_EXIT_RUNTIME, "%s: /table or its row count is missing "
                            "(damaged?)", path);
        if (t >= 0) H5Gclose(t);
    }
    H5Fclose(f);
    return rc;
}

/* ---- creation ---- */

static int create_groups_and_columns(rc_h5out *h, hid_t f)
{
    hid_t t = H5Gcreate2(f, "table", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (t < 0) return -1;
    int bad = h5_attr_u64(t, "rows", 0) ||
              h5_attr_str(t, "description", "one row per finished job; every dataset in this "
                       "group is one column, indexed by job row (docs/results-layout.md)");
    for (size_t i = 0; i < h->ncol && !bad; i++) bad = h5_col_create(t, &h->col[i]);
    H5Gclose(t);
    hid_t hg = bad ? -1 : H5Gcreate2(f, "hist", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (hg < 0) return -1;
    if (!bad) {
        size_t ne = h->edges ? h->n_edges : RC_HIST_BINS + 1;
        double *e = rc_xmalloc(ne * sizeof *e);
        for (size_t i = 0; i < ne; i++) e[i] = h->edges ? h->edges[i] : rc_hist_edge(i);
        hsize_t dim = ne;
        hid_t s = H5Screate_simple(1, &dim, NULL);
        /* 32771 regular doubles: 262 kB raw, a few kB compressed. */
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, &dim);
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 9);
        hid_t d = H5Dcreate2(hg, "edges_s", H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Pclose(dcpl);
        bad = d < 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, e) < 0 ||
              h5_attr_str(d, "units", "s") ||
              h5_attr_str(d, "description", "bucket edges: bucket b holds latencies in "
                       "[edges_s[b], edges_s[b+1]); the last edge is +inf");
        if (d >= 0) H5Dclose(d);
        H5Sclose(s);
        free(e);
    }
    H5Gclose(hg);
    for (int i = 0; i < RG_COUNT && !bad; i++) {
        ragged *g = &h->rg[i];
        hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
        H5Pset_create_intermediate_group(lcpl, 1);
        hid_t gg = H5Gcreate2(f, g->path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
        H5Pclose(lcpl);
        if (gg < 0) return -1;
        bad = h5_attr_str(gg, "description", g->what) || h5_col_create(gg, &g->end);
        for (int j = 0; j < g->ncol && !bad; j++) bad = h5_col_create(gg, &g->col[j]);
        H5Gclose(gg);
    }
    if (!bad) {
        hid_t fg = H5Gcreate2(f, "failed", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        bad = fg < 0;
        if (fg >= 0) H5Gclose(fg);
    }
    return bad ? -1 : 0;
}

int h5_create_file(rc_h5out *h, rc_err *err)
{
    char why[96];
    errno = 0;
    hid_t fapl = h5_file_access();
    /* Every flush rewrites the partly filled last chunk of each ragged column;
     * without persistent free-space tracking the old copies would be lost
     * space in the file (a 24 h sweep flushed every 10 s grew to twice its
     * data).  Tracking lets later flushes reuse them. */
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_file_space_strategy(fcpl, H5F_FSPACE_STRATEGY_FSM_AGGR, 1, 1);
    hid_t f = H5Fcreate(h->path, H5F_ACC_EXCL, fcpl, fapl);
    H5Pclose(fcpl);
    H5Pclose(fapl);
    if (f < 0)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot create HDF5 file%s", h->path,
                          h5_io_reason(why, sizeof why));
    char created[32];
    h5_utc_text(h5_now_unix(), created);
    int bad = h5_attr_str(f, "layout", RC_H5OUT_LAYOUT) ||
              h5_attr_str(f, "rcsim_version", RCSIM_VERSION) ||
              h5_attr_str(f, "git_revision", RCSIM_GIT_REVISION) ||
              write_sweep_attrs(f, &h->sweep) || h5_attr_str(f, "created_utc", created) ||
              h5_attr_str(f, "build_id", rc_build()->id) ||
              h5_attr_str(f, "build_sources_sha256", rc_build()->sources_sha256) ||
              h5_attr_i64(f, "build_dirty", rc_build()->dirty) ||
              h5_attr_str(f, "build_config", rc_build()->config) ||
              (h->converted_from && h5_attr_str(f, "converted_from", h->converted_from));
    if (!bad) bad = create_groups_and_columns(h, f);
    if (H5Fclose(f) < 0) bad = 1;
    if (bad) {
        h5_io_reason(why, sizeof why);
        unlink(h->path);
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot write the file header%s", h->path,
                          why);
    }
    return 0;
}

/* ---- opening an existing file ---- */

/* Loads what the writer needs to know about an existing column (its
 * levels, its width).  Columns are not cut back here: the next flush sets
 * every column's extent to exactly the committed length plus what it
 * appends, which drops whatever a flush killed midway left beyond `rows`;
 * and a column the file predates is created then (h5_col_flush). */
static int col_reconcile(hid_t loc, column *c)
{
    htri_t e = H5Lexists(loc, c->name, H5P_DEFAULT);
    if (e < 0) return -1;
    if (e == 0) return 0;
    hid_t d = H5Dopen2(loc, c->name, H5P_DEFAULT);
    if (d < 0) return -1;
    int rc = 0;
    if (c->k == K_CODE) {
        h5_dict_free(&c->d);
        rc = h5_dict_load(&c->d, d);
    }
    if (c->k == K_TEXT) {
        hid_t t = H5Dget_type(d);
        c->width = H5Tget_size(t);
        H5Tclose(t);
    }
    H5Dclose(d);
    return rc;
}

static int read_u64_at(hid_t loc, const char *name, uint64_t index, uint64_t *v)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) return -1;
    uint64_t *p = h5_ds_get(d, H5T_NATIVE_UINT64, 8, index, 1);
    H5Dclose(d);
    if (p == NULL) return -1;
    *v = *p;
    free(p);
    return 0;
}

static herr_t collect_failed(hid_t g, const char *name, const H5L_info_t *info, void *ctx)
{
    (void)g, (void)info;
    rc_h5out *h = ctx;
    char *end;
    uint64_t id = strtoull(name, &end, 16);
    if (strlen(name) != 16 || *end != '\0') return 0;
    if (h->n_failed == h->cap_failed) {
        h->cap_failed = h->cap_failed ? 2 * h->cap_failed : 16;
        h->failed_ids = rc_xrealloc(h->failed_ids, h->cap_failed * sizeof *h->failed_ids);
    }
    h->failed_ids[h->n_failed++] = id;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Read-only, so that a reader holding the file (h5py keeps a shared lock)
 * does not stop a sweep from starting; everything that writes waits for the
 * first flush. */
static int open_existing(rc_h5out *h, rc_err *err)
{
    hid_t f = h5_open_file(h->path, H5F_ACC_RDONLY);
    if (f < 0) return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot be opened (damaged?)", h->path);
    int bad = 0;
    hid_t t = H5Gopen2(f, "table", H5P_DEFAULT);
    if (t < 0 || h5_attr_read_u64(t, "rows", &h->rows) != 0) bad = 1;
    for (size_t i = 0; i < h->ncol && !bad; i++) bad = col_reconcile(t, &h->col[i]);
    if (t >= 0) H5Gclose(t);
    for (int i = 0; i < RG_COUNT && !bad; i++) {
        ragged *g = &h->rg[i];
        g->total = 0;
        if (H5Lexists(f, g->path, H5P_DEFAULT) <= 0) continue; /* created at the next flush */
        hid_t gg = H5Gopen2(f, g->path, H5P_DEFAULT);
        if (gg < 0) {
            bad = 1;
            break;
        }
        if (h->rows > 0) bad = read_u64_at(gg, "end", h->rows - 1, &g->total);
        H5Gclose(gg);
    }
    if (!bad && H5Lexists(f, "failed", H5P_DEFAULT) > 0) {
        hid_t fg = H5Gopen2(f, "failed", H5P_DEFAULT);
        hsize_t idx = 0;
        if (fg < 0 || H5Literate(fg, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_failed, h) < 0)
            bad = 1;
        if (fg >= 0) H5Gclose(fg);
        if (h->n_failed > 1) qsort(h->failed_ids, h->n_failed, sizeof *h->failed_ids, cmp_u64);
    }
    H5Fclose(f);
    if (bad) return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot read its table (damaged?)", h->path);
    return 0;
}

rc_h5out *h5_new_writer(const char *path, const rc_h5out_sweep *sweep, size_t width)
{
    rc_h5out *h = rc_xcalloc(1, sizeof *h);
    h->path = rc_xstrdup(path);
    set_sweep_copy(h, sweep);
    if (width < 256) width = 256;
    h5_define_columns(h, width);
    h5_define_ragged(h);
    return h;
}

rc_h5out *rc_h5out_open(const char *path, const rc_h5out_sweep *sweep, size_t canonical_width,
                        rc_err *err)
{
    h5_silence_hdf5();
    rc_h5out_info info;
    if (rc_h5out_check(path, &info, err) != 0) return NULL;
    if (info.converted_from[0]) {
        rc_err_set(err, RC_EXIT_USAGE,
                   "%s was converted from %s; it keeps that layout's histogram bins and is "
                   "read-only: run sweeps into another --out",
                   path, info.converted_from);
        return NULL;
    }
    rc_h5out *h = h5_new_writer(path, sweep, canonical_width);
    int rc = info.exists ? open_existing(h, err) : h5_create_file(h, err);
    if (rc != 0) {
        rc_h5out_close(h);
        return NULL;
    }
    if (info.exists) h->sweep_dirty = true; /* the sweep may have been extended */
    return h;
}

int rc_h5out_list(rc_h5out *h, uint64_t **ids, size_t *n, rc_err *err)
{
    *ids = NULL;
    *n = 0;
    hid_t f = h5_open_file(h->path, H5F_ACC_RDONLY);
    if (f < 0) return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot be opened (damaged?)", h->path);
    hid_t d = H5Dopen2(f, "table/job_id", H5P_DEFAULT);
    uint64_t *v = d >= 0 ? h5_ds_get(d, H5T_NATIVE_UINT64, 8, 0, h->rows) : NULL;
    if (d >= 0) H5Dclose(d);
    H5Fclose(f);
    if (v == NULL) return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot read /table/job_id", h->path);
    *ids = v;
    *n = h->rows;
    return 0;
}

/* ---- adding rows ---- */

int h5_add_row(rc_h5out *h, const rc_job *job, const rc_result_view *v,
               const rc_h5out_prov *prov, const char *canonical)
{
    rc_job r = *job;
    rc_job_resolve(&r);
    char canon_buf[CANON_MAX];
    if (canonical == NULL) {
        rc_job_canonical(&r, canon_buf, sizeof canon_buf);
        canonical = canon_buf;
    }
    size_t clen = strlen(canonical) + 1;
    if (clen > h->need_width) h->need_width = clen;
    for (size_t i = 0; i < h->ncol; i++) {
        column *c = &h->col[i];
        switch (c->src) {
        case S_ID: h5_col_put(c, &v->job_id); break;
        case S_PARAM: {
            const rc_param_def *d = c->param;
            const char *base = (const char *)&r + d->offset;
            switch (c->k) {
            case K_I64: {
                int64_t x = *(const int *)base;
                h5_col_put(c, &x);
                break;
            }
            case K_U64: h5_col_put(c, base); break;
            case K_F64: h5_col_put(c, base); break;
            case K_U8: {
                uint8_t x = *(const bool *)base ? 1 : 0;
                h5_col_put(c, &x);
                break;
            }
            default: {
                char text[300];
                rc_param_format(&r, d, text, sizeof text);
                uint32_t code = h5_dict_code(&c->d, text);
                h5_col_put(c, &code);
            }
            }
            break;
        }
        case S_SUMMARY: {
            const rc_summary *s = c->which == 0 ? &v->online : &v->all;
            if (c->field == 0) {
                h5_col_put(c, &s->count);
            } else {
                double x = NAN;
                if (s->count > 0) {
                    switch (c->field) {
                    case 1: x = s->mean_s; break;
                    case 2: x = s->sd_s; break;
                    case 3: x = s->min_s; break;
                    case 4: x = s->max_s; break;
                    default: x = s->q[c->field - 5];
                    }
                }
                h5_col_put(c, &x);
            }
            break;
        }
        case S_COUNTER_U64:
        case S_COUNTER_F64: h5_col_put(c, (const char *)&v->c + c->off); break;
        case S_HOST: {
            uint32_t code = h5_dict_code(&c->d, prov->host ? prov->host : "");
            h5_col_put(c, &code);
            break;
        }
        case S_RANK: {
            int32_t x = prov->rank;
            h5_col_put(c, &x);
            break;
        }
        case S_FINISHED: h5_col_put(c, &prov->finished); break;
        case S_BUILD:
        case S_REVISION: {
            /* The build that ran the job travels in its image (exp/run.c). */
            const char *b = c->src == S_BUILD ? v->build_id : v->build_revision;
            uint32_t code = h5_dict_code(&c->d, b);
            h5_col_put(c, &code);
            break;
        }
        case S_TRACE_NAME:
        case S_TRACE_SHA: {
            uint32_t code = h5_dict_code(&c->d, c->src == S_TRACE_NAME ? r.trace_name : r.trace_sha256);
            h5_col_put(c, &code);
            break;
        }
        case S_TRACE_LINES: {
            int64_t x = r.trace_lines;
            h5_col_put(c, &x);
            break;
        }
        case S_CANON: /* below */
        case S_NONE: break;
        }
    }
    /* The canonical column buffers pointers to the texts, not width-sized
     * slots (flush_canonical lays them out at the column's width). */
    column *cc = &h->col[h->col_canon];
    if (cc->n == cc->cap) {
        cc->cap = cc->cap ? 2 * cc->cap : 256;
        cc->buf = rc_xrealloc(cc->buf, cc->cap * sizeof(char *));
    }
    ((char **)(void *)cc->buf)[cc->n++] = rc_xstrdup(canonical);
    /* ragged */
    for (int w = 0; w < 2; w++) {
        ragged *g = &h->rg[RG_HIST_ONLINE + w];
        size_t n = v->n_hist[w];
        column *b = &g->col[RGC(HIST, bucket)], *cnt = &g->col[RGC(HIST, count)];
        for (size_t i = 0; i < n; i++) {
            memcpy(h5_col_push(b), v->hist_bucket[w] + i * 2, 2);
            memcpy(h5_col_push(cnt), v->hist_count[w] + i * 4, 4);
        }
        g->pending += n;
        uint64_t end = g->total + g->pending;
        h5_col_put(&g->end, &end);
    }
    ragged *u = &h->rg[RG_UNDELIVERED];
    for (size_t i = 0; i < v->n_undelivered; i++) {
        rc_undelivered x;
        memcpy(&x, v->undelivered + i * sizeof x, sizeof x);
        h5_col_put(&u->col[RGC(UNDELIVERED, group)], &x.group);
        h5_col_put(&u->col[RGC(UNDELIVERED, nonce)], &x.nonce);
        h5_col_put(&u->col[RGC(UNDELIVERED, recipient)], &x.recipient);
    }
    u->pending += v->n_undelivered;
    uint64_t uend = u->total + u->pending;
    h5_col_put(&u->end, &uend);
    ragged *dl = &h->rg[RG_DELIVERIES];
    for (size_t i = 0; i < v->n_deliveries; i++) {
        rc_delivery x;
        memcpy(&x, v->deliveries + i * sizeof x, sizeof x);
        uint8_t on = x.online ? 1 : 0;
        h5_col_put(&dl->col[RGC(DELIVERIES, message)], &x.message);
        h5_col_put(&dl->col[RGC(DELIVERIES, group)], &x.group);
        h5_col_put(&dl->col[RGC(DELIVERIES, sender)], &x.sender);
        h5_col_put(&dl->col[RGC(DELIVERIES, recipient)], &x.recipient);
        h5_col_put(&dl->col[RGC(DELIVERIES, sent_s)], &x.sent_s);
        h5_col_put(&dl->col[RGC(DELIVERIES, delivered_s)], &x.delivered_s);
        h5_col_put(&dl->col[RGC(DELIVERIES, online)], &on);
    }
    dl->pending += v->n_deliveries;
    uint64_t dend = dl->total + dl->pending;
    h5_col_put(&dl->end, &dend);
    ragged *z = &h->rg[RG_SIZES];
    for (size_t i = 0; i < v->n_sizes; i++) {
        rc_size_bucket b;
        memcpy(&b, v->sizes + i * sizeof b, sizeof b);
        h5_col_put(&z->col[RGC(SIZES, lo)], &b.lo);
        h5_col_put(&z->col[RGC(SIZES, hi)], &b.hi);
        h5_col_put(&z->col[RGC(SIZES, groups)], &b.groups);
        h5_col_put(&z->col[RGC(SIZES, multicasts)], &b.multicasts);
        h5_col_put(&z->col[RGC(SIZES, expected)], &b.expected);
        h5_col_put(&z->col[RGC(SIZES, deliveries)], &b.deliveries);
        h5_col_put(&z->col[RGC(SIZES, undelivered)], &b.undelivered);
        h5_col_put(&z->col[RGC(SIZES, count)], &b.online.count);
        h5_col_put(&z->col[RGC(SIZES, mean)], &b.online.mean_s);
        h5_col_put(&z->col[RGC(SIZES, sd)], &b.online.sd_s);
        h5_col_put(&z->col[RGC(SIZES, min)], &b.online.min_s);
        h5_col_put(&z->col[RGC(SIZES, max)], &b.online.max_s);
        for (int k = 0; k < RC_SUMMARY_QUANTILES; k++)
            h5_col_put(&z->col[RGC(SIZES, p1) + k], &b.online.q[k]);
    }
    z->pending += v->n_sizes;
    uint64_t zend = z->total + z->pending;
    h5_col_put(&z->end, &zend);
    ragged *us = &h->rg[RG_USERS];
    for (size_t i = 0; i < v->n_users_load; i++) {
        memcpy(h5_col_push(&us->col[RGC(USERS, sent)]), v->user_sent + 4 * i, 4);
        memcpy(h5_col_push(&us->col[RGC(USERS, groups)]), v->user_groups + 4 * i, 4);
    }
    us->pending += v->n_users_load;
    uint64_t usend = us->total + us->pending;
    h5_col_put(&us->end, &usend);
    ragged *an = &h->rg[RG_ANON];
    for (size_t i = 0; i < v->n_anon_records; i++) {
        rc_anon_record x;
        memcpy(&x, v->anon_records + i * sizeof x, sizeof x);
        h5_col_put(&an->col[RGC(ANON, target)], &x.target);
        h5_col_put(&an->col[RGC(ANON, sender)], &x.sender);
        h5_col_put(&an->col[RGC(ANON, recipient)], &x.recipient);
        h5_col_put(&an->col[RGC(ANON, sent_s)], &x.sent_s);
        h5_col_put(&an->col[RGC(ANON, latency_s)], &x.latency_s);
        h5_col_put(&an->col[RGC(ANON, entropy_bits)], &x.entropy_bits);
        h5_col_put(&an->col[RGC(ANON, min_entropy_bits)], &x.min_entropy_bits);
        h5_col_put(&an->col[RGC(ANON, sender_entropy_bits)], &x.sender_entropy_bits);
        h5_col_put(&an->col[RGC(ANON, mass)], &x.mass);
    }
    an->pending += v->n_anon_records;
    uint64_t anend = an->total + an->pending;
    h5_col_put(&an->end, &anend);
    ragged *dc = &h->rg[RG_DISC];
    for (size_t i = 0; i < v->n_disc_curve; i++) {
        rc_disc_point x;
        memcpy(&x, v->disc_curve + i * sizeof x, sizeof x);
        h5_col_put(&dc->col[RGC(DISC, multicasts)], &x.multicasts);
        h5_col_put(&dc->col[RGC(DISC, time_s)], &x.time_s);
        h5_col_put(&dc->col[RGC(DISC, precision)], &x.precision);
        h5_col_put(&dc->col[RGC(DISC, recall)], &x.recall);
        h5_col_put(&dc->col[RGC(DISC, auc)], &x.auc);
        h5_col_put(&dc->col[RGC(DISC, source_top1)], &x.source_top1);
        h5_col_put(&dc->col[RGC(DISC, source_entropy_bits)], &x.source_entropy_bits);
    }
    dc->pending += v->n_disc_curve;
    uint64_t dcend = dc->total + dc->pending;
    h5_col_put(&dc->end, &dcend);
    /* Every declared column (io/h5out_ragged.def) got one value per record:
     * a column the writer does not fill would shift the file out of step. */
    for (int i = 0; i < RG_COUNT; i++)
        for (int j = 0; j < h->rg[i].ncol; j++)
            RC_ASSERTF(h->rg[i].col[j].n == h->rg[i].pending,
                       "h5out: column %s/%s has %zu values for %llu records", h->rg[i].path,
                       h->rg[i].col[j].name, h->rg[i].col[j].n,
                       (unsigned long long)h->rg[i].pending);
    h->row_ids = rc_xrealloc(h->row_ids, (h->pending + 1) * sizeof *h->row_ids);
    h->row_ids[h->pending++] = v->job_id;
    return 0;
}

int rc_h5out_add(rc_h5out *h, const rc_job *job, const void *image, size_t len,
                 const char *canonical, const rc_h5out_prov *prov, rc_err *err)
{
    rc_result_view v;
    int rc = rc_result_view_parse(&v, image, len, err);
    if (rc != 0) return rc;
    rc = h5_add_row(h, job, &v, prov, canonical);
    rc_result_view_release(&v);
    return rc;
}

void rc_h5out_add_failed(rc_h5out *h, const rc_job *job, const char *message,
                         const rc_h5out_prov *prov)
{
    if (h->n_fq == h->cap_fq) {
        h->cap_fq = h->cap_fq ? 2 * h->cap_fq : 8;
        h->fq = rc_xrealloc(h->fq, h->cap_fq * sizeof *h->fq);
    }
    failed_entry *e = &h->fq[h->n_fq++];
    e->job = *job;
    e->msg = rc_xstrdup(message ? message : "");
    e->host = rc_xstrdup(prov->host ? prov->host : "");
    e->rank = prov->rank;
    e->finished = prov->finished;
}

size_t rc_h5out_pending(const rc_h5out *h) { return h->pending + h->n_fq; }

uint64_t rc_h5out_rows(const rc_h5out *h) { return h->rows; }

void rc_h5out_set_sweep(rc_h5out *h, const rc_h5out_sweep *sweep)
{
    set_sweep_copy(h, sweep);
    h->sweep_dirty = true;
}

/* ---- /failed (few entries: one group each, attributes) ---- */

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
        case RC_PT_TRI: bad = h5_attr_i64(g, d->name, *(const int *)base); break;
        case RC_PT_U64: bad = h5_attr_u64(g, d->name, *(const uint64_t *)base); break;
        case RC_PT_DOUBLE:
        case RC_PT_DURATION: bad = h5_attr_f64(g, d->name, *(const double *)base); break;
        case RC_PT_BOOL: bad = h5_attr_u8(g, d->name, *(const bool *)base ? 1 : 0); break;
        case RC_PT_STRING:
        case RC_PT_ENUM:
            rc_param_format(resolved, d, text, sizeof text);
            bad = h5_attr_str(g, d->name, text);
            break;
        }
        if (bad) return -1;
    }
    return 0;
}

static bool failed_has(const rc_h5out *h, uint64_t id)
{
    if (h->n_failed == 0) return false;
    return bsearch(&id, h->failed_ids, h->n_failed, sizeof id, cmp_u64) != NULL;
}

static void failed_insert(rc_h5out *h, uint64_t id)
{
    if (failed_has(h, id)) return;
    if (h->n_failed == h->cap_failed) {
        h->cap_failed = h->cap_failed ? 2 * h->cap_failed : 16;
        h->failed_ids = rc_xrealloc(h->failed_ids, h->cap_failed * sizeof *h->failed_ids);
    }
    h->failed_ids[h->n_failed++] = id;
    qsort(h->failed_ids, h->n_failed, sizeof *h->failed_ids, cmp_u64);
}

static int write_failed(hid_t f, const failed_entry *e)
{
    rc_job r = e->job;
    rc_job_resolve(&r);
    char hex[17], fin[32], canon[CANON_MAX];
    rc_job_id_hex(rc_job_id(&r), hex);
    rc_job_canonical(&r, canon, sizeof canon);
    h5_utc_text(e->finished, fin);
    hid_t fg = H5Gopen2(f, "failed", H5P_DEFAULT);
    if (fg < 0) return -1;
    int bad = h5_delete_if_exists(fg, hex);
    hid_t g = bad ? -1 : H5Gcreate2(fg, hex, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) bad = 1;
    if (!bad)
        bad = write_params(g, &r) || h5_attr_str(g, "job_id", hex) || h5_attr_str(g, "canonical", canon) ||
              h5_attr_str(g, "trace_name", r.trace_name) ||
              h5_attr_str(g, "trace_sha256", r.trace_sha256) ||
              h5_attr_i64(g, "trace_lines", r.trace_lines) ||
              h5_attr_str(g, "build_id", rc_build()->id) ||
              h5_attr_str(g, "git_revision", RCSIM_GIT_REVISION) || h5_attr_str(g, "host", e->host) ||
              h5_attr_i64(g, "rank", e->rank) || h5_attr_str(g, "finished_utc", fin) ||
              h5_attr_str(g, "error", e->msg) || h5_attr_str(g, "status", "failed");
    if (g >= 0) H5Gclose(g);
    H5Gclose(fg);
    return bad ? -1 : 0;
}

/* ---- flush ---- */

/* The canonical column's pending texts, laid out at the column's width
 * (widening the column first if a text does not fit). */
static int flush_canonical(hid_t t, column *c, hsize_t start)
{
    char **texts = (char **)(void *)c->buf;
    htri_t e = H5Lexists(t, c->name, H5P_DEFAULT);
    if (e < 0 || (e == 0 && h5_col_create(t, c) != 0)) return -1;
    if (c->width < 16) c->width = 16;
    size_t need = c->width;
    for (size_t i = 0; i < c->n; i++)
        while (strlen(texts[i]) + 1 > need) need *= 2;
    if (need > c->width) {
        /* Rare (a sweep extended with longer parameter values): rewrite the
         * column at the new width. */
        hid_t d = H5Dopen2(t, c->name, H5P_DEFAULT);
        if (d < 0) return -1;
        column old = *c;
        hid_t omt = h5_kind_mtype(&old);
        char *all = h5_ds_get(d, omt, old.width, 0, start);
        H5Tclose(omt);
        H5Dclose(d);
        if (all == NULL) return -1;
        column wide = *c;
        wide.width = need;
        char *re = rc_xcalloc(start ? start : 1, need);
        for (hsize_t i = 0; i < start; i++) memcpy(re + i * need, all + i * old.width, old.width);
        free(all);
        int bad = H5Ldelete(t, c->name, H5P_DEFAULT) < 0 || h5_col_create(t, &wide);
        if (!bad) {
            hid_t d2 = H5Dopen2(t, c->name, H5P_DEFAULT);
            hid_t mt = h5_kind_mtype(&wide);
            bad = d2 < 0 || h5_ds_put(d2, mt, 0, start, re) != 0;
            H5Tclose(mt);
            if (d2 >= 0) H5Dclose(d2);
        }
        free(re);
        if (bad) return -1;
        c->width = need;
    }
    char *buf = rc_xcalloc(c->n ? c->n : 1, c->width);
    for (size_t i = 0; i < c->n; i++) memcpy(buf + i * c->width, texts[i], strlen(texts[i]));
    hid_t d = H5Dopen2(t, c->name, H5P_DEFAULT);
    hid_t mt = h5_kind_mtype(c);
    int rc = d < 0 ? -1 : h5_ds_put(d, mt, start, c->n, buf);
    H5Tclose(mt);
    if (d >= 0) H5Dclose(d);
    free(buf);
    return rc;
}

static void clear_pending(rc_h5out *h)
{
    for (size_t i = 0; i < h->ncol; i++) {
        column *c = &h->col[i];
        if (c->src == S_CANON)
            for (size_t j = 0; j < c->n; j++) free(((char **)(void *)c->buf)[j]);
        c->n = 0;
    }
    for (int i = 0; i < RG_COUNT; i++) {
        ragged *g = &h->rg[i];
        g->total += g->pending;
        g->pending = 0;
        g->end.n = 0;
        for (int j = 0; j < g->ncol; j++) g->col[j].n = 0;
    }
    h->rows += h->pending;
    h->pending = 0;
    for (size_t i = 0; i < h->n_fq; i++) {
        free(h->fq[i].msg);
        free(h->fq[i].host);
    }
    h->n_fq = 0;
}

int rc_h5out_flush(rc_h5out *h, bool *locked, rc_err *err)
{
    *locked = false;
    if (h->pending == 0 && h->n_fq == 0 && !h->sweep_dirty) return 0;
    char why[96];
    errno = 0;
    hid_t f = h5_open_file(h->path, H5F_ACC_RDWR);
    if (f < 0) {
        /* A reader holding the file keeps its lock: it still opens read-only.
         * A file that opens neither way is damaged (the store rebuilds it). */
        hid_t r = h5_open_file(h->path, H5F_ACC_RDONLY);
        if (r >= 0) H5Fclose(r);
        *locked = r >= 0;
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot open for writing (%s)", h->path,
                          r >= 0 ? "held open by another process" : "damaged?");
    }
    int bad = 0;
    hid_t t = H5Gopen2(f, "table", H5P_DEFAULT);
    if (t < 0) bad = 1;
    for (size_t i = 0; i < h->ncol && !bad; i++) {
        column *c = &h->col[i];
        bad = c->src == S_CANON ? flush_canonical(t, c, h->rows) : h5_col_flush(t, c, h->rows);
    }
    for (int i = 0; i < RG_COUNT && !bad; i++) {
        ragged *g = &h->rg[i];
        if (H5Lexists(f, g->path, H5P_DEFAULT) <= 0) {
            hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
            H5Pset_create_intermediate_group(lcpl, 1);
            hid_t gg = H5Gcreate2(f, g->path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
            H5Pclose(lcpl);
            if (gg < 0 || h5_attr_str(gg, "description", g->what)) bad = 1;
            if (gg >= 0) H5Gclose(gg);
        }
        hid_t gg = bad ? -1 : H5Gopen2(f, g->path, H5P_DEFAULT);
        if (gg < 0) {
            bad = 1;
            break;
        }
        bad = h5_col_flush(gg, &g->end, h->rows);
        for (int j = 0; j < g->ncol && !bad; j++) bad = h5_col_flush(gg, &g->col[j], g->total);
        H5Gclose(gg);
    }
    if (!bad && h->n_fq > 0 && H5Lexists(f, "failed", H5P_DEFAULT) == 0) {
        hid_t fg = H5Gcreate2(f, "failed", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (fg < 0) bad = 1;
        else H5Gclose(fg);
    }
    for (size_t i = 0; i < h->n_fq && !bad; i++) {
        rc_job r = h->fq[i].job;
        rc_job_resolve(&r);
        bad = write_failed(f, &h->fq[i]);
        if (!bad) failed_insert(h, rc_job_id(&r));
    }
    /* A job that finished now no longer counts as failed. */
    if (!bad && h->n_failed > 0) {
        hid_t fg = H5Gopen2(f, "failed", H5P_DEFAULT);
        for (size_t i = 0; i < h->pending && fg >= 0 && !bad; i++) {
            if (!failed_has(h, h->row_ids[i])) continue;
            char hex[17];
            rc_job_id_hex(h->row_ids[i], hex);
            bad = h5_delete_if_exists(fg, hex);
            uint64_t *p = bsearch(&h->row_ids[i], h->failed_ids, h->n_failed, sizeof *p, cmp_u64);
            if (p != NULL) {
                memmove(p, p + 1, (size_t)(h->failed_ids + h->n_failed - (p + 1)) * sizeof *p);
                h->n_failed--;
            }
        }
        if (fg >= 0) H5Gclose(fg);
    }
    if (!bad && h->sweep_dirty) bad = write_sweep_attrs(f, &h->sweep) || write_run_attrs(f, h);
    /* The commit mark last: a reader (and the next open) trusts `rows`. */
    if (!bad) bad = h5_attr_u64(t, "rows", h->rows + h->pending);
    if (t >= 0) H5Gclose(t);
    if (H5Fclose(f) < 0) bad = 1;
    if (bad)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: writing %zu job(s) failed%s", h->path,
                          h->pending, h5_io_reason(why, sizeof why));
    h->sweep_dirty = false;
    clear_pending(h);
    return 0;
}

void rc_h5out_close(rc_h5out *h)
{
    if (h == NULL) return;
    column *cc = h->col != NULL ? &h->col[h->col_canon] : NULL;
    if (cc != NULL)
        for (size_t j = 0; j < cc->n; j++) free(((char **)(void *)cc->buf)[j]);
    if (cc != NULL) cc->n = 0;
    for (size_t i = 0; i < h->n_fq; i++) {
        free(h->fq[i].msg);
        free(h->fq[i].host);
    }
    free(h->fq);
    h5_free_columns(h);
    free(h->row_ids);
    free(h->failed_ids);
    free(h->path);
    free((char *)h->sweep.name);
    free((char *)h->sweep.file);
    free((char *)h->sweep.text);
    free((char *)h->sweep.shard);
    for (int i = 0; i < 4; i++) free(h->run[i]);
    free(h);
}

int rc_h5out_check_dir(const char *path, rc_err *err)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL) strcpy(dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    if (access(dir, W_OK) != 0)
        return rc_err_set(err, RC_EXIT_USAGE, "directory %s is not writable (%s)", dir,
                          strerror(errno));
    return 0;
}

int rc_h5out_write_job(const char *path, const rc_job *job, const rc_result *r, rc_err *err)
{
    char tmp[4096], canon[8192];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    rc_job_canonical(job, canon, sizeof canon);
    unlink(tmp);
    rc_h5out_sweep sw = {"run", "", canon, r->job_id, 1, ""};
    rc_h5out *h = rc_h5out_open(tmp, &sw, strlen(canon) + 1, err);
    if (h == NULL) return err->code ? err->code : RC_EXIT_RUNTIME;
    char host[256] = "unknown";
    gethostname(host, sizeof host);
    rc_h5out_prov prov = {host, 0, (double)time(NULL)};
    void *image;
    size_t len;
    rc_result_pack(r, &image, &len);
    int rc = rc_h5out_add(h, job, image, len, canon, &prov, err);
    free(image);
    bool locked;
    if (rc == 0) rc = rc_h5out_flush(h, &locked, err);
    rc_h5out_close(h);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = rc_err_set(err, RC_EXIT_RUNTIME, "cannot rename %s to %s", tmp, path);
    if (rc != 0) unlink(tmp);
    return rc;
}
