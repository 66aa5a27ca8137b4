/* The column schema of layout rcsim-results/2: the column kinds and their
 * HDF5 types, the /table columns and the ragged groups in the order they are
 * documented (docs/results-layout.md), and appending one column's pending values. */
#include "io/h5out_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "exp/param.h"

size_t h5_kind_size(const column *c)
{
    switch (c->k) {
    case K_U64: case K_I64: case K_F64: return 8;
    case K_I32: case K_U32: case K_CODE: return 4;
    case K_U16: return 2;
    case K_U8: return 1;
    case K_TEXT: return c->width;
    }
    return 0;
}

static hid_t kind_ftype(const column *c)
{
    switch (c->k) {
    case K_U64: return H5Tcopy(H5T_STD_U64LE);
    case K_I64: return H5Tcopy(H5T_STD_I64LE);
    case K_I32: return H5Tcopy(H5T_STD_I32LE);
    case K_F64: return H5Tcopy(H5T_IEEE_F64LE);
    case K_U8: return H5Tcopy(H5T_STD_U8LE);
    case K_U16: return H5Tcopy(H5T_STD_U16LE);
    case K_U32: case K_CODE: return H5Tcopy(H5T_STD_U32LE);
    case K_TEXT: {
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, c->width);
        H5Tset_strpad(t, H5T_STR_NULLPAD);
        return t;
    }
    }
    return -1;
}

hid_t h5_kind_mtype(const column *c)
{
    switch (c->k) {
    case K_U64: return H5Tcopy(H5T_NATIVE_UINT64);
    case K_I64: return H5Tcopy(H5T_NATIVE_INT64);
    case K_I32: return H5Tcopy(H5T_NATIVE_INT32);
    case K_F64: return H5Tcopy(H5T_NATIVE_DOUBLE);
    case K_U8: return H5Tcopy(H5T_NATIVE_UINT8);
    case K_U16: return H5Tcopy(H5T_NATIVE_UINT16);
    case K_U32: case K_CODE: return H5Tcopy(H5T_NATIVE_UINT32);
    case K_TEXT: return kind_ftype(c);
    }
    return -1;
}

void *h5_col_push(column *c)
{
    size_t es = h5_kind_size(c);
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->buf = rc_xrealloc(c->buf, c->cap * es);
    }
    return c->buf + es * c->n++;
}

void h5_col_put(column *c, const void *v) { memcpy(h5_col_push(c), v, h5_kind_size(c)); }

int h5_col_create(hid_t loc, const column *c)
{
    hid_t ft = kind_ftype(c);
    double nan = NAN;
    uint64_t zero = 0;
    hsize_t chunk;
    if (c->k == K_TEXT) {
        chunk = 262144 / c->width;
        if (chunk < 16) chunk = 16;
    } else {
        chunk = c->src == S_NONE && strcmp(c->name, "end") != 0 ? RAGGED_CHUNK : TABLE_CHUNK;
    }
    int rc;
    if (c->k == K_F64)
        rc = h5_create_column_ds(loc, c->name, ft, chunk, true, &nan, H5T_NATIVE_DOUBLE, c->units);
    else if (c->k == K_TEXT)
        rc = h5_create_column_ds(loc, c->name, ft, chunk, false, NULL, ft, c->units);
    else
        rc = h5_create_column_ds(loc, c->name, ft, chunk, true, &zero, H5T_NATIVE_UINT64, c->units);
    H5Tclose(ft);
    /* What a column is, so readers need no list of names: `role`, and for
     * parameters whether they are part of the job id (configurations are
     * the jobs that agree on every such parameter but the seed). */
    static const char *roles[] = {
        [S_ID] = "id", [S_PARAM] = "parameter", [S_SUMMARY] = "summary",
        [S_COUNTER_U64] = "counter", [S_COUNTER_F64] = "counter", [S_HOST] = "provenance",
        [S_RANK] = "provenance", [S_FINISHED] = "provenance", [S_BUILD] = "provenance",
        [S_REVISION] = "provenance", [S_TRACE_NAME] = "provenance",
        [S_TRACE_SHA] = "provenance", [S_TRACE_LINES] = "provenance",
        [S_CANON] = "provenance", [S_NONE] = NULL,
    };
    if (rc == 0 && roles[c->src] != NULL) {
        hid_t d = H5Dopen2(loc, c->name, H5P_DEFAULT);
        rc = d < 0 || h5_attr_str(d, "role", roles[c->src]) ||
             (c->src == S_PARAM && h5_attr_u8(d, "in_job_id", (c->param->flags & RC_PF_CANON) ? 1 : 0));
        if (d >= 0) H5Dclose(d);
    }
    /* A string column gets its dictionary with the column, not at the first
     * flush: a sweep killed before that flush (kill -9 in its first seconds)
     * would leave columns whose only value is "" without `levels` for good
     * (a resume has nothing new to add to them), and readers need it. */
    if (rc == 0 && c->k == K_CODE) {
        char none[1] = "";
        char *empty[] = {none};
        hid_t d = H5Dopen2(loc, c->name, H5P_DEFAULT);
        rc = d < 0 || (c->d.n > 0 ? h5_attr_strs(d, "levels", c->d.s, c->d.n)
                                  : h5_attr_strs(d, "levels", empty, 1));
        if (d >= 0) H5Dclose(d);
    }
    return rc;
}

/* Appends the pending values at `start` (the committed length). */
int h5_col_flush(hid_t loc, column *c, hsize_t start)
{
    htri_t e = H5Lexists(loc, c->name, H5P_DEFAULT);
    if (e < 0 || (e == 0 && h5_col_create(loc, c) != 0)) return -1;
    hid_t d = H5Dopen2(loc, c->name, H5P_DEFAULT);
    if (d < 0) return -1;
    hid_t mt = h5_kind_mtype(c);
    int rc = h5_ds_put(d, mt, start, c->n, c->buf);
    H5Tclose(mt);
    if (rc == 0 && c->k == K_CODE && c->d.dirty) {
        rc = h5_attr_strs(d, "levels", c->d.s, c->d.n);
        if (rc == 0) c->d.dirty = false;
    }
    H5Dclose(d);
    return rc;
}

const h5_counter_col h5_counter_cols[] = {
#define RC_COUNTER(name, from, type, units, json, json_key) \
    {"counter_" #name, offsetof(rc_counters, name), K_##type, units},
#include "multicast/counters.def"
};
const size_t h5_n_counters = sizeof h5_counter_cols / sizeof h5_counter_cols[0];

static const char *summary_field[5] = {"count", "mean", "sd", "min", "max"};

static column *add_col(rc_h5out *h, const char *name, kind k, source src, const char *units)
{
    h->col = rc_xrealloc(h->col, (h->ncol + 1) * sizeof *h->col);
    column *c = &h->col[h->ncol++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->k = k;
    c->src = src;
    c->units = units;
    return c;
}

/* The /table columns, in the order they are documented. */
void h5_define_columns(rc_h5out *h, size_t canonical_width)
{
    add_col(h, "job_id", K_U64, S_ID, "");
    size_t np;
    const rc_param_def *t = rc_param_table(&np);
    for (size_t i = 0; i < np; i++) {
        kind k = K_CODE;
        switch (t[i].type) {
        case RC_PT_INT:
        case RC_PT_TRI: k = K_I64; break;
        case RC_PT_U64: k = K_U64; break;
        case RC_PT_DOUBLE:
        case RC_PT_DURATION: k = K_F64; break;
        case RC_PT_BOOL: k = K_U8; break;
        case RC_PT_STRING:
        case RC_PT_ENUM: k = K_CODE; break;
        }
        add_col(h, t[i].name, k, S_PARAM, t[i].unit)->param = &t[i];
    }
    static const char *which[2] = {"online", "all"};
    for (int w = 0; w < 2; w++)
        for (int f = 0; f < 5 + RC_SUMMARY_QUANTILES; f++) {
            char name[64];
            snprintf(name, sizeof name, "%s_%s", which[w],
                     f < 5 ? summary_field[f] : rc_summary_q_names[f - 5]);
            column *c = add_col(h, name, f == 0 ? K_U64 : K_F64, S_SUMMARY, f == 0 ? "" : "s");
            c->which = w;
            c->field = f;
        }
    for (size_t i = 0; i < h5_n_counters; i++) {
        column *c = add_col(h, h5_counter_cols[i].name, h5_counter_cols[i].k,
                            h5_counter_cols[i].k == K_F64 ? S_COUNTER_F64 : S_COUNTER_U64,
                            h5_counter_cols[i].units);
        c->off = h5_counter_cols[i].off;
    }
    add_col(h, "host", K_CODE, S_HOST, "");
    add_col(h, "rank", K_I32, S_RANK, "");
    add_col(h, "finished", K_F64, S_FINISHED, "s since 1970-01-01 UTC");
    add_col(h, "build_id", K_CODE, S_BUILD, "");
    add_col(h, "git_revision", K_CODE, S_REVISION, "");
    add_col(h, "trace_name", K_CODE, S_TRACE_NAME, "");
    add_col(h, "trace_sha256", K_CODE, S_TRACE_SHA, "");
    add_col(h, "trace_lines", K_I64, S_TRACE_LINES, "");
    h->col_canon = h->ncol;
    add_col(h, "canonical", K_TEXT, S_CANON, "")->width = canonical_width;
    for (size_t i = 0; i < h->ncol; i++)
        if (h->col[i].k == K_CODE) h5_dict_code(&h->col[i].d, "");
}

const h5_ragged_decl h5_ragged_decls[] = {
#define RC_H5_RAGGED(G)
#define RC_H5_COL(G, name, K, units) {RGD_##G, #name, NULL, 1, K_##K, units},
#define RC_H5_COLS(G, name, names, n, K, units) {RGD_##G, #name, names, n, K_##K, units},
#include "io/h5out_ragged.def"
};
const size_t h5_n_ragged_decls = sizeof h5_ragged_decls / sizeof h5_ragged_decls[0];

const int h5_ragged_list[RG_COUNT] = {
    [RG_HIST_ONLINE] = RGD_HIST, [RG_HIST_ALL] = RGD_HIST, [RG_UNDELIVERED] = RGD_UNDELIVERED,
    [RG_DELIVERIES] = RGD_DELIVERIES, [RG_SIZES] = RGD_SIZES, [RG_USERS] = RGD_USERS,
    [RG_ANON] = RGD_ANON, [RG_DISC] = RGD_DISC,
};

static void rg_col(ragged *g, const char *name, kind k, const char *units)
{
    RC_ASSERTF(g->ncol < RAGGED_MAX_COLS, "h5out: more than %d columns in %s", RAGGED_MAX_COLS,
               g->path);
    column *c = &g->col[g->ncol++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->k = k;
    c->src = S_NONE;
    c->units = units;
}

/* A group's columns: its list's rows of io/h5out_ragged.def, in order. */
static void rg_declared_cols(ragged *g, int list)
{
    for (size_t i = 0; i < h5_n_ragged_decls; i++) {
        const h5_ragged_decl *d = &h5_ragged_decls[i];
        if (d->list != list) continue;
        for (int j = 0; j < d->n; j++)
            rg_col(g, d->names ? d->names[j] : d->name, d->k, d->units);
    }
}

void h5_define_ragged(rc_h5out *h)
{
    static const char *hpath[2] = {"hist/online", "hist/all"};
    for (int w = 0; w < 2; w++) {
        ragged *g = &h->rg[RG_HIST_ONLINE + w];
        g->path = hpath[w];
        g->what = w == 0 ? "latency histogram of the online deliveries, sparse: the nonzero "
                           "buckets of job row i are bucket[end[i-1]:end[i]] with counts "
                           "count[...]; bucket edges in /hist/edges_s"
                         : "latency histogram of every first delivery, sparse (as hist/online)";
    }
    ragged *u = &h->rg[RG_UNDELIVERED];
    u->path = "undelivered";
    u->what = "(recipient, payload) pairs not delivered by the end of the job, at most 1000 per "
              "job; rows of job row i are [end[i-1], end[i])";
    ragged *d = &h->rg[RG_DELIVERIES];
    d->path = "deliveries";
    d->what = "every first delivery of jobs run with store_raw; rows of job row i are "
              "[end[i-1], end[i])";
    /* Population mode (docs/beyond.md): latency by group size, and load by user. */
    ragged *z = &h->rg[RG_SIZES];
    z->path = "population/sizes";
    z->what = "population mode: first deliveries by the size of their group, one row per "
              "size bucket [lo, hi] in use (hi = 2^64-1: unbounded); online latency summary "
              "of those deliveries (NaN when count = 0); rows of job row i are "
              "[end[i-1], end[i]), none for the paper's identical groups";
    ragged *us = &h->rg[RG_USERS];
    us->path = "population/users";
    us->what = "population mode: one row per user (index order): real sub-messages that left "
               "it and groups it is in; rows of job row i are [end[i-1], end[i])";
    /* Anonymity (docs/anonymity.md, docs/spec.md §10.4): one row per tracked message. */
    ragged *an = &h->rg[RG_ANON];
    an->path = "anonymity/targets";
    an->what = "jobs run with anonymity and store_raw: one row per tracked message (its "
               "number, sender and recipient users, sending time, latency to the pull, "
               "entropy, min-entropy and sender entropy in bits, the probability that left "
               "the mixes); rows of job row i are [end[i-1], end[i])";
    /* Disclosure (docs/disclosure.md, docs/spec.md §11.3): the learning curve. */
    ragged *dc = &h->rg[RG_DISC];
    dc->path = "disclosure/curve";
    dc->what = "jobs run with disclosure and store_raw: the long-term observer's learning "
               "curve, one row per checkpoint (after every multicast of the target group up "
               "to 64, then 32 per doubling, and at the end): multicasts observed, simulated "
               "time, the membership ranking's top-m precision and recall and its AUC, the "
               "source posterior's mean top-1 and entropy (bits) over the multicasts closed "
               "so far; rows of job row i are [end[i-1], end[i])";
    for (int i = 0; i < RG_COUNT; i++) rg_declared_cols(&h->rg[i], h5_ragged_list[i]);
    for (int i = 0; i < RG_COUNT; i++) {
        column *e = &h->rg[i].end;
        memset(e, 0, sizeof *e);
        snprintf(e->name, sizeof e->name, "end");
        e->k = K_U64;
        e->src = S_NONE;
        e->units = "";
    }
}

void h5_free_columns(rc_h5out *h)
{
    for (size_t i = 0; i < h->ncol; i++) {
        free(h->col[i].buf);
        h5_dict_free(&h->col[i].d);
    }
    free(h->col);
    h->col = NULL;
    h->ncol = 0;
    for (int i = 0; i < RG_COUNT; i++) {
        free(h->rg[i].end.buf);
        for (int j = 0; j < h->rg[i].ncol; j++) free(h->rg[i].col[j].buf);
    }
}
