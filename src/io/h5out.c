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

/* Rows per chunk of a table column: a flush rewrites at most one partly
 * filled chunk per column, so the chunk bounds that cost (docs/performance.md). */
#define TABLE_CHUNK RC_H5OUT_CHUNK_ROWS
/* Elements per chunk of the ragged (per-delivery, per-bucket) columns. */
#define RAGGED_CHUNK 65536
#define DEFLATE_LEVEL 1
#define CANON_MAX 8192

/* ======================================================================
 * Small HDF5 helpers; each returns 0 or -1 (the caller words the error).
 * ====================================================================== */

static hid_t vlen_str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

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

static int attr_strs(hid_t loc, const char *name, char *const *values, size_t n)
{
    hid_t t = vlen_str_type();
    hsize_t dim = n;
    hid_t s = H5Screate_simple(1, &dim, NULL);
    int rc = attr_write(loc, name, t, s, values);
    H5Sclose(s);
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
            H5Tset_cset(mt, H5Tget_cset(ft)); /* HDF5 converts no cset into another */
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

/* A string attribute of any length, malloc'ed ("" if absent). */
static char *attr_read_str_dup(hid_t loc, const char *name)
{
    if (H5Aexists(loc, name) <= 0) return rc_xstrdup("");
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t ft = a >= 0 ? H5Aget_type(a) : -1;
    char *out = NULL;
    if (ft >= 0 && H5Tget_class(ft) == H5T_STRING) {
        if (H5Tis_variable_str(ft) > 0) {
            hid_t mt = vlen_str_type();
            H5Tset_cset(mt, H5Tget_cset(ft));
            char *p = NULL;
            if (H5Aread(a, mt, &p) >= 0 && p != NULL) {
                out = rc_xstrdup(p);
                H5free_memory(p);
            }
            H5Tclose(mt);
        } else {
            size_t sz = H5Tget_size(ft);
            out = rc_xcalloc(1, sz + 1);
            if (H5Aread(a, ft, out) < 0) out[0] = '\0';
        }
    }
    if (ft >= 0) H5Tclose(ft);
    if (a >= 0) H5Aclose(a);
    return out != NULL ? out : rc_xstrdup("");
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

static int attr_read_f64(hid_t loc, const char *name, double *v)
{
    if (H5Aexists(loc, name) <= 0) return -1;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return -1;
    herr_t st = H5Aread(a, H5T_NATIVE_DOUBLE, v);
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

/* Files are written in the HDF5 1.10 format: its extensible-array chunk
 * index makes appending to a column of a million rows O(1). */
static hid_t file_access(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110);
    return fapl;
}

static hid_t open_file(const char *path, unsigned flags)
{
    hid_t fapl = file_access();
    hid_t f = H5Fopen(path, flags, fapl);
    H5Pclose(fapl);
    return f;
}

/* An empty extendible 1-D dataset, chunked and compressed, with a fill
 * value (so a column added to an existing file reads as "absent"). */
static int create_column_ds(hid_t loc, const char *name, hid_t ftype, hsize_t chunk, bool shuffle,
                            const void *fill, hid_t fill_type, const char *units)
{
    hsize_t zero = 0, unl = H5S_UNLIMITED;
    hid_t space = H5Screate_simple(1, &zero, &unl);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    if (shuffle) H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, DEFLATE_LEVEL);
    if (fill != NULL) H5Pset_fill_value(dcpl, fill_type, fill);
    hid_t d = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int rc = d < 0 ? -1 : 0;
    if (rc == 0 && units != NULL) rc = attr_str(d, "units", units);
    if (d >= 0) H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    return rc;
}

static int64_t ds_length(hid_t d)
{
    hid_t s = H5Dget_space(d);
    if (s < 0) return -1;
    hsize_t n = 0;
    int rank = H5Sget_simple_extent_ndims(s);
    if (rank == 1) H5Sget_simple_extent_dims(s, &n, NULL);
    H5Sclose(s);
    return rank == 1 ? (int64_t)n : -1;
}

/* Writes buf[0..count) at [start, start+count), setting the extent to exactly
 * start+count (a retried flush overwrites what a failed one left). */
static int ds_put(hid_t d, hid_t mtype, hsize_t start, hsize_t count, const void *buf)
{
    hsize_t total = start + count;
    if (H5Dset_extent(d, &total) < 0) return -1;
    if (count == 0) return 0;
    hid_t fs = H5Dget_space(d);
    if (fs < 0) return -1;
    int rc = H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ? -1 : 0;
    hid_t ms = H5Screate_simple(1, &count, NULL);
    if (rc == 0 && H5Dwrite(d, mtype, ms, fs, H5P_DEFAULT, buf) < 0) rc = -1;
    H5Sclose(ms);
    H5Sclose(fs);
    return rc;
}

/* Reads [start, start+count) into a malloc'ed buffer of elements of `esize`. */
static void *ds_get(hid_t d, hid_t mtype, size_t esize, hsize_t start, hsize_t count)
{
    void *buf = rc_xmalloc(count ? count * esize : 1);
    if (count == 0) return buf;
    hid_t fs = H5Dget_space(d);
    int bad = fs < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0;
    hid_t ms = H5Screate_simple(1, &count, NULL);
    if (!bad && H5Dread(d, mtype, ms, fs, H5P_DEFAULT, buf) < 0) bad = 1;
    H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    if (bad) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int delete_if_exists(hid_t loc, const char *name)
{
    htri_t e = H5Lexists(loc, name, H5P_DEFAULT);
    if (e < 0) return -1;
    if (e > 0 && H5Ldelete(loc, name, H5P_DEFAULT) < 0) return -1;
    return 0;
}

/* ======================================================================
 * Dictionaries: string columns are stored as uint32 codes into a `levels`
 * attribute (reading a million fixed-width strings costs seconds in h5py;
 * codes cost milliseconds).  Level 0 is always "".
 * ====================================================================== */

typedef struct dict {
    char **s;
    size_t n, cap;
    uint32_t *slot; /* open addressing: code + 1, 0 = empty */
    size_t nslot;
    bool dirty;     /* levels changed since the last write */
} dict;

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void dict_rehash(dict *d)
{
    free(d->slot);
    d->nslot = d->nslot ? 2 * d->nslot : 64;
    d->slot = rc_xcalloc(d->nslot, sizeof *d->slot);
    for (size_t i = 0; i < d->n; i++) {
        size_t k = fnv(d->s[i]) & (d->nslot - 1);
        while (d->slot[k] != 0) k = (k + 1) & (d->nslot - 1);
        d->slot[k] = (uint32_t)i + 1;
    }
}

static uint32_t dict_code(dict *d, const char *s)
{
    if (2 * (d->n + 1) > d->nslot) dict_rehash(d);
    size_t k = fnv(s) & (d->nslot - 1);
    while (d->slot[k] != 0) {
        if (strcmp(d->s[d->slot[k] - 1], s) == 0) return d->slot[k] - 1;
        k = (k + 1) & (d->nslot - 1);
    }
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 16;
        d->s = rc_xrealloc(d->s, d->cap * sizeof *d->s);
    }
    d->s[d->n] = rc_xstrdup(s);
    d->slot[k] = (uint32_t)d->n + 1;
    d->dirty = true;
    return (uint32_t)d->n++;
}

static void dict_free(dict *d)
{
    for (size_t i = 0; i < d->n; i++) free(d->s[i]);
    free(d->s);
    free(d->slot);
    memset(d, 0, sizeof *d);
}

/* Reads a column's `levels` attribute into a fresh dict (level 0 = ""). */
static int dict_load(dict *d, hid_t ds)
{
    memset(d, 0, sizeof *d);
    int rc = 0;
    if (H5Aexists(ds, "levels") > 0) {
        hid_t a = H5Aopen(ds, "levels", H5P_DEFAULT);
        hid_t s = a >= 0 ? H5Aget_space(a) : -1;
        hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
        if (n < 0) {
            rc = -1;
        } else {
            char **v = rc_xcalloc((size_t)n + 1, sizeof *v);
            hid_t t = vlen_str_type();
            if (H5Aread(a, t, v) < 0) {
                rc = -1;
            } else {
                for (hssize_t i = 0; i < n; i++) {
                    /* Codes are positions: insert in order, keeping duplicates
                     * (there are none in files we wrote) at their position. */
                    if (d->n == d->cap) {
                        d->cap = d->cap ? 2 * d->cap : 16;
                        d->s = rc_xrealloc(d->s, d->cap * sizeof *d->s);
                    }
                    d->s[d->n++] = rc_xstrdup(v[i] ? v[i] : "");
                }
                H5Dvlen_reclaim(t, s, H5P_DEFAULT, v);
            }
            H5Tclose(t);
            free(v);
        }
        if (s >= 0) H5Sclose(s);
        if (a >= 0) H5Aclose(a);
    }
    if (rc == 0 && d->n == 0) dict_code(d, "");
    d->nslot = 0;
    dict_rehash(d);
    while (2 * d->n > d->nslot) dict_rehash(d);
    d->dirty = false;
    return rc;
}

/* ======================================================================
 * Columns
 * ====================================================================== */

typedef enum { K_U64, K_I64, K_I32, K_F64, K_U8, K_U16, K_U32, K_CODE, K_TEXT } kind;

typedef enum {
    S_ID, S_PARAM, S_SUMMARY, S_COUNTER_U64, S_COUNTER_F64,
    S_HOST, S_RANK, S_FINISHED, S_BUILD, S_REVISION, S_TRACE_NAME, S_TRACE_SHA, S_TRACE_LINES,
    S_CANON, S_NONE
} source;

typedef struct column {
    char name[64];
    kind k;
    source src;
    const char *units;
    const rc_param_def *param; /* S_PARAM */
    int which, field;          /* S_SUMMARY: 0 online / 1 all; 0 count, 1 mean, ... */
    size_t off;                /* S_COUNTER_*: offset in rc_counters */
    size_t width;              /* K_TEXT */
    unsigned char *buf;        /* pending values */
    size_t n, cap;
    dict d;                    /* K_CODE */
} column;

static size_t kind_size(const column *c)
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

static hid_t kind_mtype(const column *c)
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

static void *col_push(column *c)
{
    size_t es = kind_size(c);
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->buf = rc_xrealloc(c->buf, c->cap * es);
    }
    return c->buf + es * c->n++;
}

static void col_put(column *c, const void *v) { memcpy(col_push(c), v, kind_size(c)); }

static int col_create(hid_t loc, const column *c)
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
        rc = create_column_ds(loc, c->name, ft, chunk, true, &nan, H5T_NATIVE_DOUBLE, c->units);
    else if (c->k == K_TEXT)
        rc = create_column_ds(loc, c->name, ft, chunk, false, NULL, ft, c->units);
    else
        rc = create_column_ds(loc, c->name, ft, chunk, true, &zero, H5T_NATIVE_UINT64, c->units);
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
        rc = d < 0 || attr_str(d, "role", roles[c->src]) ||
             (c->src == S_PARAM && attr_u8(d, "in_job_id", (c->param->flags & RC_PF_CANON) ? 1 : 0));
        if (d >= 0) H5Dclose(d);
    }
    return rc;
}

/* Appends the pending values at `start` (the committed length). */
static int col_flush(hid_t loc, column *c, hsize_t start)
{
    htri_t e = H5Lexists(loc, c->name, H5P_DEFAULT);
    if (e < 0 || (e == 0 && col_create(loc, c) != 0)) return -1;
    hid_t d = H5Dopen2(loc, c->name, H5P_DEFAULT);
    if (d < 0) return -1;
    hid_t mt = kind_mtype(c);
    int rc = ds_put(d, mt, start, c->n, c->buf);
    H5Tclose(mt);
    if (rc == 0 && c->k == K_CODE && c->d.dirty) {
        rc = attr_strs(d, "levels", c->d.s, c->d.n);
        if (rc == 0) c->d.dirty = false;
    }
    H5Dclose(d);
    return rc;
}

/* A group of ragged columns: `end` (uint64 per job row: the end of the
 * row's slice in the data columns) and the data columns. */
#define RAGGED_MAX_COLS 24
typedef struct ragged {
    const char *path;
    const char *what; /* attribute `description` */
    column end;
    column col[RAGGED_MAX_COLS];
    int ncol;
    uint64_t total;    /* committed elements */
    uint64_t pending;  /* buffered elements */
} ragged;

enum { RG_HIST_ONLINE, RG_HIST_ALL, RG_UNDELIVERED, RG_DELIVERIES, RG_SIZES, RG_USERS, RG_COUNT };

/* ======================================================================
 * The writer
 * ====================================================================== */

typedef struct failed_entry {
    rc_job job;
    char *msg;
    char *host;
    int rank;
    double finished;
} failed_entry;

struct rc_h5out {
    char *path;
    rc_h5out_sweep sweep; /* owned copies of the strings */
    bool sweep_dirty;
    column *col;          /* the /table columns */
    size_t ncol;
    size_t col_canon;     /* index of the canonical column */
    ragged rg[RG_COUNT];
    uint64_t rows;        /* committed rows */
    size_t pending;       /* buffered rows */
    size_t need_width;    /* longest canonical text buffered (+1) */
    uint64_t *failed_ids; /* ids under /failed, sorted */
    size_t n_failed, cap_failed;
    failed_entry *fq;     /* buffered failed jobs */
    size_t n_fq, cap_fq;
    uint64_t *row_ids;    /* ids of the buffered rows */
    const double *edges;  /* non-NULL only while creating a converted file */
    size_t n_edges;
    const char *converted_from;
};

const char *rc_h5out_build(void)
{
    static char text[256];
    if (text[0] == '\0')
        snprintf(text, sizeof text, "rcsim %s (%s) build %s", RCSIM_VERSION, rc_build()->revision,
                 rc_build()->id);
    return text;
}

#define COUNTER(f, k, u) {"counter_" #f, offsetof(rc_counters, f), k, u}
static const struct {
    const char *name;
    size_t off;
    kind k;
    const char *units;
} counter_cols[] = {
    COUNTER(events, K_U64, ""),           COUNTER(multicasts, K_U64, ""),
    COUNTER(deliveries, K_U64, ""),       COUNTER(deliveries_online, K_U64, ""),
    COUNTER(duplicates, K_U64, ""),       COUNTER(expected_deliveries, K_U64, ""),
    COUNTER(undelivered, K_U64, ""),      COUNTER(payload_packets, K_U64, ""),
    COUNTER(ack_packets, K_U64, ""),      COUNTER(repair_packets, K_U64, ""),
    COUNTER(cover_packets, K_U64, ""),    COUNTER(bundles, K_U64, ""),
    COUNTER(reassignments, K_U64, ""),    COUNTER(timeouts, K_U64, ""),
    COUNTER(pulls, K_U64, ""),            COUNTER(mix_packets, K_U64, ""),
    COUNTER(joins, K_U64, ""),            COUNTER(leaves, K_U64, ""),
    COUNTER(repairs, K_U64, ""),          COUNTER(so_expected, K_U64, ""),
    COUNTER(so_delivered, K_U64, ""),     COUNTER(so_delivered_online, K_U64, ""),
    COUNTER(so_latency_sum_ms, K_U64, "ms"), COUNTER(so_latency_max_ms, K_U64, "ms"),
    COUNTER(adv_members, K_U64, ""),      COUNTER(adv_withheld, K_U64, ""),
    COUNTER(adv_acks_withheld, K_U64, ""), COUNTER(adv_acks_faked, K_U64, ""),
    COUNTER(adv_delayed, K_U64, ""),
    COUNTER(wall_s, K_F64, "s"),          COUNTER(sim_s, K_F64, "s"),
    COUNTER(peak_rss_kb, K_U64, "KiB"),
};
#define N_COUNTERS (sizeof counter_cols / sizeof counter_cols[0])

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
static void define_columns(rc_h5out *h, size_t canonical_width)
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
    for (size_t i = 0; i < N_COUNTERS; i++) {
        column *c = add_col(h, counter_cols[i].name, counter_cols[i].k,
                            counter_cols[i].k == K_F64 ? S_COUNTER_F64 : S_COUNTER_U64,
                            counter_cols[i].units);
        c->off = counter_cols[i].off;
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
        if (h->col[i].k == K_CODE) dict_code(&h->col[i].d, "");
}

static void rg_col(ragged *g, const char *name, kind k, const char *units)
{
    column *c = &g->col[g->ncol++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->k = k;
    c->src = S_NONE;
    c->units = units;
}

static void define_ragged(rc_h5out *h)
{
    static const char *hpath[2] = {"hist/online", "hist/all"};
    for (int w = 0; w < 2; w++) {
        ragged *g = &h->rg[RG_HIST_ONLINE + w];
        g->path = hpath[w];
        g->what = w == 0 ? "latency histogram of the online deliveries, sparse: the nonzero "
                           "buckets of job row i are bucket[end[i-1]:end[i]] with counts "
                           "count[...]; bucket edges in /hist/edges_s"
                         : "latency histogram of every first delivery, sparse (as hist/online)";
        rg_col(g, "bucket", K_U16, "");
        rg_col(g, "count", K_U32, "");
    }
    ragged *u = &h->rg[RG_UNDELIVERED];
    u->path = "undelivered";
    u->what = "(recipient, payload) pairs not delivered by the end of the job, at most 1000 per "
              "job; rows of job row i are [end[i-1], end[i])";
    rg_col(u, "group", K_U32, "");
    rg_col(u, "nonce", K_U32, "");
    rg_col(u, "recipient", K_U32, "");
    ragged *d = &h->rg[RG_DELIVERIES];
    d->path = "deliveries";
    d->what = "every first delivery of jobs run with store_raw; rows of job row i are "
              "[end[i-1], end[i])";
    rg_col(d, "message", K_U32, "");
    rg_col(d, "group", K_U32, "");
    rg_col(d, "sender", K_U32, "");
    rg_col(d, "recipient", K_U32, "");
    rg_col(d, "sent_s", K_F64, "s");
    rg_col(d, "delivered_s", K_F64, "s");
    rg_col(d, "online", K_U8, "");
    /* Population mode (issue 17): latency by group size, and load by user. */
    ragged *z = &h->rg[RG_SIZES];
    z->path = "population/sizes";
    z->what = "population mode: first deliveries by the size of their group, one row per "
              "size bucket [lo, hi] in use (hi = 2^64-1: unbounded); online latency summary "
              "of those deliveries (NaN when count = 0); rows of job row i are "
              "[end[i-1], end[i]), none for the paper's identical groups";
    static const char *zu64[8] = {"lo", "hi", "groups", "multicasts", "expected",
                                  "deliveries", "undelivered", "count"};
    for (int i = 0; i < 8; i++) rg_col(z, zu64[i], K_U64, "");
    for (int i = 1; i < 5; i++) rg_col(z, summary_field[i], K_F64, "s");
    for (int i = 0; i < RC_SUMMARY_QUANTILES; i++) rg_col(z, rc_summary_q_names[i], K_F64, "s");
    ragged *us = &h->rg[RG_USERS];
    us->path = "population/users";
    us->what = "population mode: one row per user (index order): real sub-messages that left "
               "it and groups it is in; rows of job row i are [end[i-1], end[i])";
    rg_col(us, "sent", K_U32, "");
    rg_col(us, "groups", K_U32, "");
    for (int i = 0; i < RG_COUNT; i++) {
        column *e = &h->rg[i].end;
        memset(e, 0, sizeof *e);
        snprintf(e->name, sizeof e->name, "end");
        e->k = K_U64;
        e->src = S_NONE;
        e->units = "";
    }
}

static void free_columns(rc_h5out *h)
{
    for (size_t i = 0; i < h->ncol; i++) {
        free(h->col[i].buf);
        dict_free(&h->col[i].d);
    }
    free(h->col);
    h->col = NULL;
    h->ncol = 0;
    for (int i = 0; i < RG_COUNT; i++) {
        free(h->rg[i].end.buf);
        for (int j = 0; j < h->rg[i].ncol; j++) free(h->rg[i].col[j].buf);
    }
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

static int write_sweep_attrs(hid_t f, const rc_h5out_sweep *s)
{
    return attr_str(f, "sweep_name", s->name) || attr_str(f, "sweep_file", s->file) ||
           attr_str(f, "sweep_text", s->text) || attr_u64(f, "sweep_hash", s->hash) ||
           attr_u64(f, "sweep_jobs", s->jobs) || attr_str(f, "shard", s->shard);
}

/* ---- checks ---- */

int rc_h5out_check(const char *path, rc_h5out_info *info, rc_err *err)
{
    silence_hdf5();
    memset(info, 0, sizeof *info);
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    info->exists = true;
    hid_t f = open_file(path, H5F_ACC_RDONLY);
    if (f < 0)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot be opened as HDF5 (damaged?)", path);
    attr_read_str(f, "layout", info->layout, sizeof info->layout);
    attr_read_str(f, "sweep_name", info->sweep_name, sizeof info->sweep_name);
    attr_read_str(f, "shard", info->shard, sizeof info->shard);
    attr_read_str(f, "converted_from", info->converted_from, sizeof info->converted_from);
    attr_read_u64(f, "sweep_hash", &info->sweep_hash);
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
        if (t < 0 || attr_read_u64(t, "rows", &info->rows) != 0)
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
    int bad = attr_u64(t, "rows", 0) ||
              attr_str(t, "description", "one row per finished job; every dataset in this "
                       "group is one column, indexed by job row (docs/results-layout.md)");
    for (size_t i = 0; i < h->ncol && !bad; i++) bad = col_create(t, &h->col[i]);
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
              attr_str(d, "units", "s") ||
              attr_str(d, "description", "bucket edges: bucket b holds latencies in "
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
        bad = attr_str(gg, "description", g->what) || col_create(gg, &g->end);
        for (int j = 0; j < g->ncol && !bad; j++) bad = col_create(gg, &g->col[j]);
        H5Gclose(gg);
    }
    if (!bad) {
        hid_t fg = H5Gcreate2(f, "failed", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        bad = fg < 0;
        if (fg >= 0) H5Gclose(fg);
    }
    return bad ? -1 : 0;
}

static int create_file(rc_h5out *h, rc_err *err)
{
    char why[96];
    errno = 0;
    hid_t fapl = file_access();
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
                          io_reason(why, sizeof why));
    char created[32];
    utc_text(now_unix(), created);
    int bad = attr_str(f, "layout", RC_H5OUT_LAYOUT) ||
              attr_str(f, "rcsim_version", RCSIM_VERSION) ||
              attr_str(f, "git_revision", RCSIM_GIT_REVISION) ||
              write_sweep_attrs(f, &h->sweep) || attr_str(f, "created_utc", created) ||
              attr_str(f, "build_id", rc_build()->id) ||
              attr_str(f, "build_sources_sha256", rc_build()->sources_sha256) ||
              attr_i64(f, "build_dirty", rc_build()->dirty) ||
              attr_str(f, "build_config", rc_build()->config) ||
              (h->converted_from && attr_str(f, "converted_from", h->converted_from));
    if (!bad) bad = create_groups_and_columns(h, f);
    if (H5Fclose(f) < 0) bad = 1;
    if (bad) {
        io_reason(why, sizeof why);
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
 * and a column the file predates is created then (col_flush). */
static int col_reconcile(hid_t loc, column *c)
{
    htri_t e = H5Lexists(loc, c->name, H5P_DEFAULT);
    if (e < 0) return -1;
    if (e == 0) return 0;
    hid_t d = H5Dopen2(loc, c->name, H5P_DEFAULT);
    if (d < 0) return -1;
    int rc = 0;
    if (c->k == K_CODE) {
        dict_free(&c->d);
        rc = dict_load(&c->d, d);
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
    uint64_t *p = ds_get(d, H5T_NATIVE_UINT64, 8, index, 1);
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
    hid_t f = open_file(h->path, H5F_ACC_RDONLY);
    if (f < 0) return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot be opened (damaged?)", h->path);
    int bad = 0;
    hid_t t = H5Gopen2(f, "table", H5P_DEFAULT);
    if (t < 0 || attr_read_u64(t, "rows", &h->rows) != 0) bad = 1;
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

static rc_h5out *new_writer(const char *path, const rc_h5out_sweep *sweep, size_t width)
{
    rc_h5out *h = rc_xcalloc(1, sizeof *h);
    h->path = rc_xstrdup(path);
    set_sweep_copy(h, sweep);
    if (width < 256) width = 256;
    define_columns(h, width);
    define_ragged(h);
    return h;
}

rc_h5out *rc_h5out_open(const char *path, const rc_h5out_sweep *sweep, size_t canonical_width,
                        rc_err *err)
{
    silence_hdf5();
    rc_h5out_info info;
    if (rc_h5out_check(path, &info, err) != 0) return NULL;
    if (info.converted_from[0]) {
        rc_err_set(err, RC_EXIT_USAGE,
                   "%s was converted from %s; it keeps that layout's histogram bins and is "
                   "read-only: run sweeps into another --out",
                   path, info.converted_from);
        return NULL;
    }
    rc_h5out *h = new_writer(path, sweep, canonical_width);
    int rc = info.exists ? open_existing(h, err) : create_file(h, err);
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
    hid_t f = open_file(h->path, H5F_ACC_RDONLY);
    if (f < 0) return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot be opened (damaged?)", h->path);
    hid_t d = H5Dopen2(f, "table/job_id", H5P_DEFAULT);
    uint64_t *v = d >= 0 ? ds_get(d, H5T_NATIVE_UINT64, 8, 0, h->rows) : NULL;
    if (d >= 0) H5Dclose(d);
    H5Fclose(f);
    if (v == NULL) return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot read /table/job_id", h->path);
    *ids = v;
    *n = h->rows;
    return 0;
}

/* ---- adding rows ---- */

static int add_row(rc_h5out *h, const rc_job *job, const rc_result_view *v,
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
        case S_ID: col_put(c, &v->job_id); break;
        case S_PARAM: {
            const rc_param_def *d = c->param;
            const char *base = (const char *)&r + d->offset;
            switch (c->k) {
            case K_I64: {
                int64_t x = *(const int *)base;
                col_put(c, &x);
                break;
            }
            case K_U64: col_put(c, base); break;
            case K_F64: col_put(c, base); break;
            case K_U8: {
                uint8_t x = *(const bool *)base ? 1 : 0;
                col_put(c, &x);
                break;
            }
            default: {
                char text[300];
                rc_param_format(&r, d, text, sizeof text);
                uint32_t code = dict_code(&c->d, text);
                col_put(c, &code);
            }
            }
            break;
        }
        case S_SUMMARY: {
            const rc_summary *s = c->which == 0 ? &v->online : &v->all;
            if (c->field == 0) {
                col_put(c, &s->count);
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
                col_put(c, &x);
            }
            break;
        }
        case S_COUNTER_U64:
        case S_COUNTER_F64: col_put(c, (const char *)&v->c + c->off); break;
        case S_HOST: {
            uint32_t code = dict_code(&c->d, prov->host ? prov->host : "");
            col_put(c, &code);
            break;
        }
        case S_RANK: {
            int32_t x = prov->rank;
            col_put(c, &x);
            break;
        }
        case S_FINISHED: col_put(c, &prov->finished); break;
        case S_BUILD:
        case S_REVISION: {
            /* The build that ran the job travels in its image (exp/run.c). */
            const char *b = c->src == S_BUILD ? v->build_id : v->build_revision;
            uint32_t code = dict_code(&c->d, b);
            col_put(c, &code);
            break;
        }
        case S_TRACE_NAME:
        case S_TRACE_SHA: {
            uint32_t code = dict_code(&c->d, c->src == S_TRACE_NAME ? r.trace_name : r.trace_sha256);
            col_put(c, &code);
            break;
        }
        case S_TRACE_LINES: {
            int64_t x = r.trace_lines;
            col_put(c, &x);
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
        column *b = &g->col[0], *cnt = &g->col[1];
        for (size_t i = 0; i < n; i++) {
            memcpy(col_push(b), v->hist_bucket[w] + i * 2, 2);
            memcpy(col_push(cnt), v->hist_count[w] + i * 4, 4);
        }
        g->pending += n;
        uint64_t end = g->total + g->pending;
        col_put(&g->end, &end);
    }
    ragged *u = &h->rg[RG_UNDELIVERED];
    for (size_t i = 0; i < v->n_undelivered; i++) {
        rc_undelivered x;
        memcpy(&x, v->undelivered + i * sizeof x, sizeof x);
        col_put(&u->col[0], &x.group);
        col_put(&u->col[1], &x.nonce);
        col_put(&u->col[2], &x.recipient);
    }
    u->pending += v->n_undelivered;
    uint64_t uend = u->total + u->pending;
    col_put(&u->end, &uend);
    ragged *dl = &h->rg[RG_DELIVERIES];
    for (size_t i = 0; i < v->n_deliveries; i++) {
        rc_delivery x;
        memcpy(&x, v->deliveries + i * sizeof x, sizeof x);
        uint8_t on = x.online ? 1 : 0;
        col_put(&dl->col[0], &x.message);
        col_put(&dl->col[1], &x.group);
        col_put(&dl->col[2], &x.sender);
        col_put(&dl->col[3], &x.recipient);
        col_put(&dl->col[4], &x.sent_s);
        col_put(&dl->col[5], &x.delivered_s);
        col_put(&dl->col[6], &on);
    }
    dl->pending += v->n_deliveries;
    uint64_t dend = dl->total + dl->pending;
    col_put(&dl->end, &dend);
    ragged *z = &h->rg[RG_SIZES];
    for (size_t i = 0; i < v->n_sizes; i++) {
        rc_size_bucket b;
        memcpy(&b, v->sizes + i * sizeof b, sizeof b);
        uint64_t zu[8] = {b.lo, b.hi, b.groups, b.multicasts, b.expected,
                          b.deliveries, b.undelivered, b.online.count};
        for (int k = 0; k < 8; k++) col_put(&z->col[k], &zu[k]);
        double f[4] = {b.online.mean_s, b.online.sd_s, b.online.min_s, b.online.max_s};
        for (int k = 0; k < 4; k++) col_put(&z->col[8 + k], &f[k]);
        for (int k = 0; k < RC_SUMMARY_QUANTILES; k++) col_put(&z->col[12 + k], &b.online.q[k]);
    }
    z->pending += v->n_sizes;
    uint64_t zend = z->total + z->pending;
    col_put(&z->end, &zend);
    ragged *us = &h->rg[RG_USERS];
    for (size_t i = 0; i < v->n_users_load; i++) {
        memcpy(col_push(&us->col[0]), v->user_sent + 4 * i, 4);
        memcpy(col_push(&us->col[1]), v->user_groups + 4 * i, 4);
    }
    us->pending += v->n_users_load;
    uint64_t usend = us->total + us->pending;
    col_put(&us->end, &usend);
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
    rc = add_row(h, job, &v, prov, canonical);
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
    utc_text(e->finished, fin);
    hid_t fg = H5Gopen2(f, "failed", H5P_DEFAULT);
    if (fg < 0) return -1;
    int bad = delete_if_exists(fg, hex);
    hid_t g = bad ? -1 : H5Gcreate2(fg, hex, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) bad = 1;
    if (!bad)
        bad = write_params(g, &r) || attr_str(g, "job_id", hex) || attr_str(g, "canonical", canon) ||
              attr_str(g, "trace_name", r.trace_name) ||
              attr_str(g, "trace_sha256", r.trace_sha256) ||
              attr_i64(g, "trace_lines", r.trace_lines) ||
              attr_str(g, "build_id", rc_build()->id) ||
              attr_str(g, "git_revision", RCSIM_GIT_REVISION) || attr_str(g, "host", e->host) ||
              attr_i64(g, "rank", e->rank) || attr_str(g, "finished_utc", fin) ||
              attr_str(g, "error", e->msg) || attr_str(g, "status", "failed");
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
    if (e < 0 || (e == 0 && col_create(t, c) != 0)) return -1;
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
        hid_t omt = kind_mtype(&old);
        char *all = ds_get(d, omt, old.width, 0, start);
        H5Tclose(omt);
        H5Dclose(d);
        if (all == NULL) return -1;
        column wide = *c;
        wide.width = need;
        char *re = rc_xcalloc(start ? start : 1, need);
        for (hsize_t i = 0; i < start; i++) memcpy(re + i * need, all + i * old.width, old.width);
        free(all);
        int bad = H5Ldelete(t, c->name, H5P_DEFAULT) < 0 || col_create(t, &wide);
        if (!bad) {
            hid_t d2 = H5Dopen2(t, c->name, H5P_DEFAULT);
            hid_t mt = kind_mtype(&wide);
            bad = d2 < 0 || ds_put(d2, mt, 0, start, re) != 0;
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
    hid_t mt = kind_mtype(c);
    int rc = d < 0 ? -1 : ds_put(d, mt, start, c->n, buf);
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
    hid_t f = open_file(h->path, H5F_ACC_RDWR);
    if (f < 0) {
        /* A reader holding the file keeps its lock: it still opens read-only.
         * A file that opens neither way is damaged (the store rebuilds it). */
        hid_t r = open_file(h->path, H5F_ACC_RDONLY);
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
        bad = c->src == S_CANON ? flush_canonical(t, c, h->rows) : col_flush(t, c, h->rows);
    }
    for (int i = 0; i < RG_COUNT && !bad; i++) {
        ragged *g = &h->rg[i];
        if (H5Lexists(f, g->path, H5P_DEFAULT) <= 0) {
            hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
            H5Pset_create_intermediate_group(lcpl, 1);
            hid_t gg = H5Gcreate2(f, g->path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
            H5Pclose(lcpl);
            if (gg < 0 || attr_str(gg, "description", g->what)) bad = 1;
            if (gg >= 0) H5Gclose(gg);
        }
        hid_t gg = bad ? -1 : H5Gopen2(f, g->path, H5P_DEFAULT);
        if (gg < 0) {
            bad = 1;
            break;
        }
        bad = col_flush(gg, &g->end, h->rows);
        for (int j = 0; j < g->ncol && !bad; j++) bad = col_flush(gg, &g->col[j], g->total);
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
            bad = delete_if_exists(fg, hex);
            uint64_t *p = bsearch(&h->row_ids[i], h->failed_ids, h->n_failed, sizeof *p, cmp_u64);
            if (p != NULL) {
                memmove(p, p + 1, (size_t)(h->failed_ids + h->n_failed - (p + 1)) * sizeof *p);
                h->n_failed--;
            }
        }
        if (fg >= 0) H5Gclose(fg);
    }
    if (!bad && h->sweep_dirty) bad = write_sweep_attrs(f, &h->sweep);
    /* The commit mark last: a reader (and the next open) trusts `rows`. */
    if (!bad) bad = attr_u64(t, "rows", h->rows + h->pending);
    if (t >= 0) H5Gclose(t);
    if (H5Fclose(f) < 0) bad = 1;
    if (bad)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: writing %zu job(s) failed%s", h->path,
                          h->pending, io_reason(why, sizeof why));
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
    free_columns(h);
    free(h->row_ids);
    free(h->failed_ids);
    free(h->path);
    free((char *)h->sweep.name);
    free((char *)h->sweep.file);
    free((char *)h->sweep.text);
    free((char *)h->sweep.shard);
    free(h);
}

/* ======================================================================
 * Reading a v2 file back (rcsim merge)
 * ====================================================================== */

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
    unsigned char *und, *dlv; /* the current row's records */
    unsigned char sizes[RC_SIZE_BUCKETS * sizeof(rc_size_bucket)];
};

static int load_column(hid_t loc, column *c, uint64_t n)
{
    htri_t e = H5Lexists(loc, c->name, H5P_DEFAULT);
    if (e < 0) return -1;
    if (c->k == K_CODE) dict_free(&c->d);
    if (e == 0) {
        /* A column the file predates: its fill value. */
        c->buf = rc_xcalloc(n ? n : 1, kind_size(c));
        if (c->k == K_F64)
            for (uint64_t i = 0; i < n; i++) ((double *)(void *)c->buf)[i] = NAN;
        if (c->k == K_CODE) dict_code(&c->d, "");
        c->n = n;
        return 0;
    }
    hid_t d = H5Dopen2(loc, c->name, H5P_DEFAULT);
    if (d < 0) return -1;
    int rc = 0;
    if (c->k == K_CODE) rc = dict_load(&c->d, d);
    if (c->k == K_TEXT) {
        hid_t t = H5Dget_type(d);
        c->width = H5Tget_size(t);
        H5Tclose(t);
    } else if (rc == 0) {
        hid_t mt = kind_mtype(c);
        c->buf = ds_get(d, mt, kind_size(c), 0, n);
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
    silence_hdf5();
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
    in->file = open_file(path, H5F_ACC_RDONLY);
    rc_h5out_sweep none = {0};
    in->defs = new_writer(path, &none, 256);
    int bad = in->file < 0;
    if (!bad) {
        in->sweep_text = attr_read_str_dup(in->file, "sweep_text");
        in->sweep_file = attr_read_str_dup(in->file, "sweep_file");
        attr_read_u64(in->file, "sweep_jobs", &in->sweep_jobs);
        hid_t t = H5Gopen2(in->file, "table", H5P_DEFAULT);
        bad = t < 0;
        for (size_t i = 0; i < in->defs->ncol && !bad; i++)
            bad = load_column(t, &in->defs->col[i], info.rows);
        if (t >= 0) H5Gclose(t);
        for (int i = 0; i < RG_COUNT && !bad; i++) {
            ragged *g = &in->defs->rg[i];
            if (i >= RG_SIZES && H5Lexists(in->file, "population", H5P_DEFAULT) <= 0) {
                /* a file from before population mode: no rows in these groups */
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
        v.hist_bucket[w] = g->col[0].buf + 2 * a;
        v.hist_count[w] = g->col[1].buf + 4 * a;
    }
    ragged *u = &d->rg[RG_UNDELIVERED];
    uint64_t ua = row ? u64_at(&u->end, row - 1) : 0, ub = u64_at(&u->end, row);
    free(in->und);
    in->und = rc_xmalloc((ub - ua + 1) * sizeof(rc_undelivered));
    for (uint64_t i = ua; i < ub; i++) {
        rc_undelivered x;
        memcpy(&x.group, u->col[0].buf + 4 * i, 4);
        memcpy(&x.nonce, u->col[1].buf + 4 * i, 4);
        memcpy(&x.recipient, u->col[2].buf + 4 * i, 4);
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
        memcpy(&x.message, dl->col[0].buf + 4 * i, 4);
        memcpy(&x.group, dl->col[1].buf + 4 * i, 4);
        memcpy(&x.sender, dl->col[2].buf + 4 * i, 4);
        memcpy(&x.recipient, dl->col[3].buf + 4 * i, 4);
        memcpy(&x.sent_s, dl->col[4].buf + 8 * i, 8);
        memcpy(&x.delivered_s, dl->col[5].buf + 8 * i, 8);
        x.online = dl->col[6].buf[i];
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
        uint64_t *zu[8] = {&b.lo, &b.hi, &b.groups, &b.multicasts, &b.expected,
                           &b.deliveries, &b.undelivered, &b.online.count};
        for (int k = 0; k < 8; k++) memcpy(zu[k], z->col[k].buf + 8 * i, 8);
        double *f[4] = {&b.online.mean_s, &b.online.sd_s, &b.online.min_s, &b.online.max_s};
        for (int k = 0; k < 4; k++) memcpy(f[k], z->col[8 + k].buf + 8 * i, 8);
        for (int k = 0; k < RC_SUMMARY_QUANTILES; k++)
            memcpy(&b.online.q[k], z->col[12 + k].buf + 8 * i, 8);
        memcpy(in->sizes + (i - za) * sizeof b, &b, sizeof b);
    }
    v.n_sizes = zb - za;
    v.sizes = in->sizes;
    ragged *us = &d->rg[RG_USERS];
    uint64_t ua2 = row ? u64_at(&us->end, row - 1) : 0, ub2 = u64_at(&us->end, row);
    v.n_users_load = ub2 - ua2;
    v.user_sent = us->col[0].buf + 4 * ua2;
    v.user_groups = us->col[1].buf + 4 * ua2;
    /* canonical text, read in blocks */
    column *cc = &d->col[d->col_canon];
    size_t block = row / TEXT_BLOCK;
    if (block != in->text_block) {
        free(in->text_buf);
        in->text_buf = NULL;
        hsize_t start = (hsize_t)block * TEXT_BLOCK, cnt = in->info.rows - start;
        if (cnt > TEXT_BLOCK) cnt = TEXT_BLOCK;
        hid_t ds = H5Dopen2(in->file, "table/canonical", H5P_DEFAULT);
        hid_t mt = kind_mtype(cc);
        in->text_buf = ds >= 0 ? ds_get(ds, mt, cc->width, start, cnt) : NULL;
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
    if (rc == 0) rc = add_row(h, &job, &v, &prov, canon);
    rc_result_view_release(&v);
    free(image);
    return rc;
}

/* ======================================================================
 * rcsim convert: layout rcsim-results/1 -> a read-only v2 file
 * ====================================================================== */

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
    int rc = ds_length(d) == 15 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 ? 0 : -1;
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
    if (d < 0 || ds_length(d) != (int64_t)nbins) {
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
            attr_read_str(jg, d->name, text, sizeof text);
            bad = rc_param_set(job, d, text, &(rc_err){0}) != 0;
            break;
        }
        }
        if (a >= 0) H5Aclose(a);
        if (bad) return -1;
    }
    memset(v, 0, sizeof *v);
    char hex[32];
    if (attr_read_str(jg, "job_id", hex, sizeof hex) != 0) snprintf(hex, sizeof hex, "%s", name);
    v->job_id = strtoull(hex, NULL, 16);
    for (size_t i = 0; i < N_COUNTERS; i++) {
        char *dst = (char *)&v->c + counter_cols[i].off;
        if (counter_cols[i].k == K_F64) {
            if (attr_read_f64(jg, counter_cols[i].name, (double *)(void *)dst) != 0)
                *(double *)(void *)dst = NAN;
        } else {
            attr_read_u64(jg, counter_cols[i].name, (uint64_t *)(void *)dst);
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
    attr_read_str(jg, "host", host, 256);
    int64_t rank = 0;
    if (H5Aexists(jg, "rank") > 0) {
        hid_t a = H5Aopen(jg, "rank", H5P_DEFAULT);
        H5Aread(a, H5T_NATIVE_INT64, &rank);
        H5Aclose(a);
    }
    attr_read_str(jg, "finished_utc", fin, sizeof fin);
    attr_read_str(jg, "git_revision", rev, sizeof rev);
    attr_read_str(jg, "build_id", build_id, sizeof build_id); /* absent before builds had ids */
    attr_read_str(jg, "trace_name", job->trace_name, sizeof job->trace_name);
    attr_read_str(jg, "trace_sha256", job->trace_sha256, sizeof job->trace_sha256);
    if (H5Aexists(jg, "trace_lines") > 0) {
        int64_t tl = 0;
        hid_t a = H5Aopen(jg, "trace_lines", H5P_DEFAULT);
        H5Aread(a, H5T_NATIVE_INT64, &tl);
        H5Aclose(a);
        job->trace_lines = (uint32_t)tl;
    }
    (void)build;
    attr_read_str(jg, "canonical", canon, CANON_MAX);
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
    if (attr_read_str(jg, "status", status, sizeof status) != 0 || strcmp(status, "ok") != 0) {
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
        add_row(c->h, &job, &v, &prov, canon);
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
    silence_hdf5();
    *n = 0;
    struct stat st;
    if (stat(out, &st) == 0)
        return rc_err_set(err, RC_EXIT_USAGE, "%s exists; convert writes a new file", out);
    hid_t f = open_file(in, H5F_ACC_RDONLY);
    if (f < 0) return rc_err_set(err, RC_EXIT_USAGE, "%s: cannot be opened as HDF5", in);
    char layout[64];
    attr_read_str(f, "layout", layout, sizeof layout);
    if (strcmp(layout, RC_H5OUT_LAYOUT_V1) != 0) {
        H5Fclose(f);
        return rc_err_set(err, RC_EXIT_USAGE, "%s: layout '%s', expected '%s'", in, layout,
                          RC_H5OUT_LAYOUT_V1);
    }
    v1_ctx c = {.err = err};
    hid_t e = H5Dopen2(f, "hist_edges_s", H5P_DEFAULT);
    int64_t ne = e >= 0 ? ds_length(e) : -1;
    if (ne < 2 || ne > 65537) {
        if (e >= 0) H5Dclose(e);
        H5Fclose(f);
        return rc_err_set(err, RC_EXIT_USAGE, "%s: no usable /hist_edges_s", in);
    }
    c.edges = ds_get(e, H5T_NATIVE_DOUBLE, 8, 0, (hsize_t)ne);
    c.n_edges = (size_t)ne;
    H5Dclose(e);
    rc_h5out_sweep sw = {0};
    char *name = attr_read_str_dup(f, "sweep_name"), *file = attr_read_str_dup(f, "sweep_file"),
         *text = attr_read_str_dup(f, "sweep_text");
    sw.name = name, sw.file = file, sw.text = text, sw.shard = "";
    attr_read_u64(f, "sweep_hash", &sw.hash);
    c.jobs = H5Gopen2(f, "jobs", H5P_DEFAULT);
    if (c.jobs >= 0) {
        H5G_info_t gi;
        if (H5Gget_info(c.jobs, &gi) >= 0) sw.jobs = gi.nlinks;
    }
    rc_h5out *h = new_writer(out, &sw, 2048);
    h->edges = c.edges;
    h->n_edges = c.n_edges;
    h->converted_from = RC_H5OUT_LAYOUT_V1;
    c.h = h;
    int rc = create_file(h, err);
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
