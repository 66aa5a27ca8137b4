/* Reading a v2 results file back row by row (rcsim merge). */
#include "io/h5out_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "exp/param.h"

#define TEXT_BLOCK 1024

struct rc_h5in {
    char *path;
    rc_h5out_info info;
    char *sweep_text, *sweep_file;
    uint64_t sweep_jobs;
    hid_t file;
    rc_h5out *defs;   /* column definitions; buffers hold the whole columns */
    size_t text_block;  /* block of canonical texts in text_buf, or SIZE_MAX */
    char *text_buf;
    char *canon;        /* the current row's text */
    unsigned char *und, *dlv, *anon, *disc; /* the current row's records */
    unsigned char sizes[RC_SIZE_BUCKETS * sizeof(rc_size_bucket)];
};

static int load_column(hid_t loc, column *c, uint64_t n)
{
    htri_t e = H5Lexists(loc, c->name, H5P_DEFAULT);
    if (e < 0) return -1;
    if (c->k == K_CODE) h5_dict_free(&c->d);
    if (e == 0) {
        /* A column the file predates: its fill value. */
        c->buf = rc_xcalloc(n ? n : 1, h5_kind_size(c));
        if (c->k == K_F64)
            for (uint64_t i = 0; i < n; i++) ((double *)(void *)c->buf)[i] = NAN;
        if (c->k == K_CODE) h5_dict_code(&c->d, "");
        c->n = n;
        return 0;
    }
    hid_t d = H5Dopen2(loc, c->name, H5P_DEFAULT);
    if (d < 0) return -1;
    int rc = 0;
    if (c->k == K_CODE) rc = h5_dict_load(&c->d, d);
    if (c->k == K_TEXT) {
        hid_t t = H5Dget_type(d);
        c->width = H5Tget_size(t);
        H5Tclose(t);
    } else if (rc == 0) {
        hid_t mt = h5_kind_mtype(c);
        c->buf = h5_ds_get(d, mt, h5_kind_size(c), 0, n);
        H5Tclose(mt);
        if (c->buf == NULL) rc = -1;
        c->n = n;
    }
    H5Dclose(d);
    return rc;
}

static uint64_t u64_at(const column *c, uint64_t i) { return ((const uint64_t *)(void *)c->buf)[i]; }

rc_h5in *rc_h5in_open(const char *path, rc_err *err)
{
    h5_silence_hdf5();
    rc_h5out_info info;
    if (rc_h5out_check(path, &info, err) != 0) return NULL;
    if (!info.exists) {
        rc_err_set(err, RC_EXIT_USAGE, "%s: no such file", path);
        return NULL;
    }
    if (info.converted_from[0]) {
        rc_err_set(err, RC_EXIT_USAGE, "%s was converted from %s (its histograms use that "
                   "layout's bins); it can be read, not merged", path, info.converted_from);
        return NULL;
    }
    rc_h5in *in = rc_xcalloc(1, sizeof *in);
    in->path = rc_xstrdup(path);
    in->info = info;
    in->text_block = SIZE_MAX;
    in->file = h5_open_file(path, H5F_ACC_RDONLY);
    rc_h5out_sweep none = {0};
    in->defs = h5_new_writer(path, &none, 256);
    int bad = in->file < 0;
    if (!bad) {
        in->sweep_text = h5_attr_read_str_dup(in->file, "sweep_text");
        in->sweep_file = h5_attr_read_str_dup(in->file, "sweep_file");
        h5_attr_read_u64(in->file, "sweep_jobs", &in->sweep_jobs);
        hid_t t = H5Gopen2(in->file, "table", H5P_DEFAULT);
        bad = t < 0;
        for (size_t i = 0; i < in->defs->ncol && !bad; i++)
            bad = load_column(t, &in->defs->col[i], info.rows);
        if (t >= 0) H5Gclose(t);
        for (int i = 0; i < RG_COUNT && !bad; i++) {
            ragged *g = &in->defs->rg[i];
            const char *top = i == RG_ANON ? "anonymity" : i == RG_DISC ? "disclosure" : "population";
            if (i >= RG_SIZES && H5Lexists(in->file, top, H5P_DEFAULT) <= 0) {
                /* a file from before population mode (or anonymity, or disclosure's
                 * curve): no rows in these groups */
                bad = load_column(in->file, &g->end, info.rows);
                for (int j = 0; j < g->ncol && !bad; j++) bad = load_column(in->file, &g->col[j], 0);
                continue;
            }
            hid_t gg = H5Gopen2(in->file, g->path, H5P_DEFAULT);
            if (gg < 0) {
                bad = 1;
                break;
            }
            bad = load_column(gg, &g->end, info.rows);
            g->total = !bad && info.rows ? u64_at(&g->end, info.rows - 1) : 0;
            for (int j = 0; j < g->ncol && !bad; j++) bad = load_column(gg, &g->col[j], g->total);
            H5Gclose(gg);
        }
    }
    if (bad) {
        rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot read its table (damaged?)", path);
        rc_h5in_close(in);
        return NULL;
    }
    return in;
}

const rc_h5out_info *rc_h5in_info(const rc_h5in *in) { return &in->info; }
const char *rc_h5in_sweep_text(const rc_h5in *in) { return in->sweep_text; }
const char *rc_h5in_sweep_file(const rc_h5in *in) { return in->sweep_file; }
uint64_t rc_h5in_sweep_jobs(const rc_h5in *in) { return in->sweep_jobs; }

static const char *code_text(const column *c, uint64_t row)
{
    uint32_t code = ((const uint32_t *)(void *)c->buf)[row];
    return code < c->d.n ? c->d.s[code] : "";
}

/* The job's parameters from its row (the values as stored, already resolved). */
static int row_job(const rc_h5out *defs, uint64_t row, rc_job *job)
{
    rc_job_defaults(job);
    for (size_t i = 0; i < defs->ncol; i++) {
        const column *c = &defs->col[i];
        /* The trace's identity is part of the job (and of its id), not a parameter. */
        if (c->src == S_TRACE_NAME)
            snprintf(job->trace_name, sizeof job->trace_name, "%s", code_text(c, row));
        if (c->src == S_TRACE_SHA)
            snprintf(job->trace_sha256, sizeof job->trace_sha256, "%s", code_text(c, row));
        if (c->src == S_TRACE_LINES)
            job->trace_lines = (uint32_t)((const int64_t *)(void *)c->buf)[row];
        if (c->src != S_PARAM) continue;
        const rc_param_def *d = c->param;
        char *base = (char *)job + d->offset;
        switch (c->k) {
        case K_I64: *(int *)base = (int)((const int64_t *)(void *)c->buf)[row]; break;
        case K_U64: *(uint64_t *)base = u64_at(c, row); break;
        case K_F64: *(double *)base = ((const double *)(void *)c->buf)[row]; break;
        case K_U8: *(bool *)base = c->buf[row] != 0; break;
        default: {
            const char *text = code_text(c, row);
            if (d->type == RC_PT_STRING) {
                snprintf(base, d->size, "%s", text);
            } else {
                /* enum: index of the text in "a|b|c" */
                int idx = 0, found = -1;
                size_t len = strlen(text);
                for (const char *p = d->choices; p && *p; idx++) {
                    const char *bar = strchr(p, '|');
                    size_t n = bar ? (size_t)(bar - p) : strlen(p);
                    if (n == len && strncmp(p, text, n) == 0) found = idx;
                    if (!bar) break;
                    p = bar + 1;
                }
                if (found < 0) return -1;
                *(int *)base = found;
            }
        }
        }
    }
    return 0;
}

int rc_h5in_row(rc_h5in *in, size_t row, uint64_t *job_id, const char **canonical,
                rc_h5out_prov *prov, void **image, size_t *len, rc_err *err)
{
    (void)err;
    RC_ASSERT(row < in->info.rows);
    rc_h5out *d = in->defs;
    rc_result_view v;
    memset(&v, 0, sizeof v);
    memset(prov, 0, sizeof *prov);
    for (size_t i = 0; i < d->ncol; i++) {
        const column *c = &d->col[i];
        switch (c->src) {
        case S_ID: v.job_id = u64_at(c, row); break;
        case S_SUMMARY: {
            rc_summary *s = c->which == 0 ? &v.online : &v.all;
            if (c->field == 0) {
                s->count = u64_at(c, row);
            } else {
                double x = ((const double *)(void *)c->buf)[row];
                switch (c->field) {
                case 1: s->mean_s = x; break;
                case 2: s->sd_s = x; break;
                case 3: s->min_s = x; break;
                case 4: s->max_s = x; break;
                default: s->q[c->field - 5] = x;
                }
            }
            break;
        }
        case S_COUNTER_U64:
        case S_COUNTER_F64: memcpy((char *)&v.c + c->off, c->buf + 8 * row, 8); break;
        case S_HOST: prov->host = code_text(c, row); break;
        case S_RANK: prov->rank = ((const int32_t *)(void *)c->buf)[row]; break;
        case S_FINISHED: prov->finished = ((const double *)(void *)c->buf)[row]; break;
        case S_BUILD: snprintf(v.build_id, sizeof v.build_id, "%s", code_text(c, row)); break;
        case S_REVISION:
            snprintf(v.build_revision, sizeof v.build_revision, "%s", code_text(c, row));
            break;
        default: break;
        }
    }
    /* A summary of no samples is stored as NaN; the image held the same. */
    for (int w = 0; w < 2; w++) {
        ragged *g = &d->rg[RG_HIST_ONLINE + w];
        uint64_t a = row ? u64_at(&g->end, row - 1) : 0, b = u64_at(&g->end, row);
        v.n_hist[w] = b - a;
        v.hist_bucket[w] = g->col[RGC(HIST, bucket)].buf + 2 * a;
        v.hist_count[w] = g->col[RGC(HIST, count)].buf + 4 * a;
    }
    ragged *u = &d->rg[RG_UNDELIVERED];
    uint64_t ua = row ? u64_at(&u->end, row - 1) : 0, ub = u64_at(&u->end, row);
    free(in->und);
    in->und = rc_xmalloc((ub - ua + 1) * sizeof(rc_undelivered));
    for (uint64_t i = ua; i < ub; i++) {
        rc_undelivered x;
        memcpy(&x.group, u->col[RGC(UNDELIVERED, group)].buf + 4 * i, 4);
        memcpy(&x.nonce, u->col[RGC(UNDELIVERED, nonce)].buf + 4 * i, 4);
        memcpy(&x.recipient, u->col[RGC(UNDELIVERED, recipient)].buf + 4 * i, 4);
        memcpy(in->und + (i - ua) * sizeof x, &x, sizeof x);
    }
    v.n_undelivered = ub - ua;
    v.undelivered = in->und;
    ragged *dl = &d->rg[RG_DELIVERIES];
    uint64_t da = row ? u64_at(&dl->end, row - 1) : 0, db = u64_at(&dl->end, row);
    free(in->dlv);
    in->dlv = rc_xmalloc((db - da + 1) * sizeof(rc_delivery));
    for (uint64_t i = da; i < db; i++) {
        rc_delivery x;
        memset(&x, 0, sizeof x);
        memcpy(&x.message, dl->col[RGC(DELIVERIES, message)].buf + 4 * i, 4);
        memcpy(&x.group, dl->col[RGC(DELIVERIES, group)].buf + 4 * i, 4);
        memcpy(&x.sender, dl->col[RGC(DELIVERIES, sender)].buf + 4 * i, 4);
        memcpy(&x.recipient, dl->col[RGC(DELIVERIES, recipient)].buf + 4 * i, 4);
        memcpy(&x.sent_s, dl->col[RGC(DELIVERIES, sent_s)].buf + 8 * i, 8);
        memcpy(&x.delivered_s, dl->col[RGC(DELIVERIES, delivered_s)].buf + 8 * i, 8);
        x.online = dl->col[RGC(DELIVERIES, online)].buf[i];
        memcpy(in->dlv + (i - da) * sizeof x, &x, sizeof x);
    }
    v.n_deliveries = db - da;
    v.deliveries = in->dlv;
    ragged *z = &d->rg[RG_SIZES];
    uint64_t za = row ? u64_at(&z->end, row - 1) : 0, zb = u64_at(&z->end, row);
    if (zb - za > RC_SIZE_BUCKETS)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: row %zu has %llu size buckets", in->path,
                          row, (unsigned long long)(zb - za));
    for (uint64_t i = za; i < zb; i++) {
        rc_size_bucket b;
        memset(&b, 0, sizeof b);
#define ZGET(field, name) memcpy(&b.field, z->col[RGC(SIZES, name)].buf + 8 * i, 8)
        ZGET(lo, lo);
        ZGET(hi, hi);
        ZGET(groups, groups);
        ZGET(multicasts, multicasts);
        ZGET(expected, expected);
        ZGET(deliveries, deliveries);
        ZGET(undelivered, undelivered);
        ZGET(online.count, count);
        ZGET(online.mean_s, mean);
        ZGET(online.sd_s, sd);
        ZGET(online.min_s, min);
        ZGET(online.max_s, max);
#undef ZGET
        for (int k = 0; k < RC_SUMMARY_QUANTILES; k++)
            memcpy(&b.online.q[k], z->col[RGC(SIZES, p1) + k].buf + 8 * i, 8);
        memcpy(in->sizes + (i - za) * sizeof b, &b, sizeof b);
    }
    v.n_sizes = zb - za;
    v.sizes = in->sizes;
    ragged *us = &d->rg[RG_USERS];
    uint64_t ua2 = row ? u64_at(&us->end, row - 1) : 0, ub2 = u64_at(&us->end, row);
    v.n_users_load = ub2 - ua2;
    v.user_sent = us->col[RGC(USERS, sent)].buf + 4 * ua2;
    v.user_groups = us->col[RGC(USERS, groups)].buf + 4 * ua2;
    ragged *an = &d->rg[RG_ANON];
    uint64_t aa = row ? u64_at(&an->end, row - 1) : 0, ab = u64_at(&an->end, row);
    free(in->anon);
    in->anon = rc_xmalloc((ab - aa + 1) * sizeof(rc_anon_record));
    for (uint64_t i = aa; i < ab; i++) {
        rc_anon_record x;
        memset(&x, 0, sizeof x);
#define AGET(name, size) memcpy(&x.name, an->col[RGC(ANON, name)].buf + (size) * i, size)
        AGET(target, 4);
        AGET(sender, 4);
        AGET(recipient, 4);
        AGET(sent_s, 8);
        AGET(latency_s, 8);
        AGET(entropy_bits, 8);
        AGET(min_entropy_bits, 8);
        AGET(sender_entropy_bits, 8);
        AGET(mass, 8);
#undef AGET
        memcpy(in->anon + (i - aa) * sizeof x, &x, sizeof x);
    }
    v.n_anon_records = ab - aa;
    v.anon_records = in->anon;
    ragged *dc = &d->rg[RG_DISC];
    uint64_t ca = row ? u64_at(&dc->end, row - 1) : 0, cb = u64_at(&dc->end, row);
    free(in->disc);
    in->disc = rc_xmalloc((cb - ca + 1) * sizeof(rc_disc_point));
    for (uint64_t i = ca; i < cb; i++) {
        rc_disc_point x;
        memset(&x, 0, sizeof x);
#define CGET(name, size) memcpy(&x.name, dc->col[RGC(DISC, name)].buf + (size) * i, size)
        CGET(multicasts, 4);
        CGET(time_s, 8);
        CGET(precision, 8);
        CGET(recall, 8);
        CGET(auc, 8);
        CGET(source_top1, 8);
        CGET(source_entropy_bits, 8);
#undef CGET
        memcpy(in->disc + (i - ca) * sizeof x, &x, sizeof x);
    }
    v.n_disc_curve = cb - ca;
    v.disc_curve = in->disc;
    /* canonical text, read in blocks */
    column *cc = &d->col[d->col_canon];
    size_t block = row / TEXT_BLOCK;
    if (block != in->text_block) {
        free(in->text_buf);
        in->text_buf = NULL;
        hsize_t start = (hsize_t)block * TEXT_BLOCK, cnt = in->info.rows - start;
        if (cnt > TEXT_BLOCK) cnt = TEXT_BLOCK;
        hid_t ds = H5Dopen2(in->file, "table/canonical", H5P_DEFAULT);
        hid_t mt = h5_kind_mtype(cc);
        in->text_buf = ds >= 0 ? h5_ds_get(ds, mt, cc->width, start, cnt) : NULL;
        H5Tclose(mt);
        if (ds >= 0) H5Dclose(ds);
        if (in->text_buf == NULL)
            return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot read /table/canonical", in->path);
        in->text_block = block;
    }
    free(in->canon);
    in->canon = rc_xcalloc(1, cc->width + 1);
    memcpy(in->canon, in->text_buf + (row % TEXT_BLOCK) * cc->width, cc->width);
    *canonical = in->canon;
    *job_id = v.job_id;
    rc_result_pack_view(&v, image, len);
    return 0;
}

void rc_h5in_close(rc_h5in *in)
{
    if (in == NULL) return;
    if (in->file >= 0) H5Fclose(in->file);
    rc_h5out_close(in->defs);
    free(in->path);
    free(in->sweep_text);
    free(in->sweep_file);
    free(in->text_buf);
    free(in->canon);
    free(in->und);
    free(in->dlv);
    free(in->anon);
    free(in->disc);
    free(in);
}

int rc_h5out_add_from(rc_h5out *h, rc_h5in *in, size_t row, uint64_t *job_id, rc_err *err)
{
    const char *canon;
    rc_h5out_prov prov;
    void *image;
    size_t len;
    int rc = rc_h5in_row(in, row, job_id, &canon, &prov, &image, &len, err);
    if (rc != 0) return rc;
    rc_job job;
    if (row_job(in->defs, row, &job) != 0) {
        free(image);
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: row %zu has a parameter value this build "
                          "does not know", in->path, row);
    }
    rc_result_view v;
    rc = rc_result_view_parse(&v, image, len, err);
    if (rc == 0) rc = h5_add_row(h, &job, &v, &prov, canon);
    rc_result_view_release(&v);
    free(image);
    return rc;
}
