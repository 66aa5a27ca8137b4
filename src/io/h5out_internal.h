/* What the files of the results-file code (io/h5out_*.c) share: the column
 * and ragged-group types, the writer's state, and each file's entry points.
 * Internal to io/; the public API is io/h5out.h. */
#ifndef RCSIM_IO_H5OUT_INTERNAL_H
#define RCSIM_IO_H5OUT_INTERNAL_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exp/param.h"
#include "io/h5out.h"

/* Rows per chunk of a table column: a flush rewrites at most one partly
 * filled chunk per column, so the chunk bounds that cost (docs/performance.md). */
#define TABLE_CHUNK RC_H5OUT_CHUNK_ROWS
/* Elements per chunk of the ragged (per-delivery, per-bucket) columns. */
#define RAGGED_CHUNK 65536
#define DEFLATE_LEVEL 1
#define CANON_MAX 8192

/* ---- HDF5 helpers (h5out_util.c) ---- */

hid_t h5_vlen_str_type(void);
int h5_attr_str(hid_t loc, const char *name, const char *value);
int h5_attr_strs(hid_t loc, const char *name, char *const *values, size_t n);
int h5_attr_i64(hid_t loc, const char *name, int64_t v);
int h5_attr_u64(hid_t loc, const char *name, uint64_t v);
int h5_attr_f64(hid_t loc, const char *name, double v);
int h5_attr_u8(hid_t loc, const char *name, uint8_t v);
int h5_attr_read_str(hid_t loc, const char *name, char *buf, size_t n);
char *h5_attr_read_str_dup(hid_t loc, const char *name);
int h5_attr_read_u64(hid_t loc, const char *name, uint64_t *v);
int h5_attr_read_f64(hid_t loc, const char *name, double *v);
void h5_utc_text(double t, char out[32]);
double h5_now_unix(void);
void h5_silence_hdf5(void);
const char *h5_io_reason(char *buf, size_t len);
hid_t h5_file_access(void);
hid_t h5_open_file(const char *path, unsigned flags);
int h5_create_column_ds(hid_t loc, const char *name, hid_t ftype, hsize_t chunk, bool shuffle,
                        const void *fill, hid_t fill_type, const char *units);
int64_t h5_ds_length(hid_t d);
int h5_ds_put(hid_t d, hid_t mtype, hsize_t start, hsize_t count, const void *buf);
void *h5_ds_get(hid_t d, hid_t mtype, size_t esize, hsize_t start, hsize_t count);
int h5_delete_if_exists(hid_t loc, const char *name);

/* ---- dictionaries (h5out_dict.c) ---- */

typedef struct dict {
    char **s;
    size_t n, cap;
    uint32_t *slot; /* open addressing: code + 1, 0 = empty */
    size_t nslot;
    bool dirty;     /* levels changed since the last write */
} dict;

uint32_t h5_dict_code(dict *d, const char *s);
void h5_dict_free(dict *d);
int h5_dict_load(dict *d, hid_t ds);

/* ---- columns and the schema (h5out_schema.c) ---- */

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

enum { RG_HIST_ONLINE, RG_HIST_ALL, RG_UNDELIVERED, RG_DELIVERIES, RG_SIZES, RG_USERS, RG_ANON,
       RG_DISC, RG_COUNT };

/* The declared column lists (io/h5out_ragged.def): RGD_G names list G, and
 * RGC(G, name) is the index of column `name` in g->col of a group of list G,
 * so that the writer and the reader name columns instead of counting them. */
enum {
#define RC_H5_RAGGED(G) RGD_##G,
#define RC_H5_COL(G, name, K, units)
#define RC_H5_COLS(G, name, names, n, K, units)
#include "io/h5out_ragged.def"
    RGD_COUNT
};
enum {
#define RC_H5_RAGGED(G) RGX_##G##_begin_,
#define RC_H5_COL(G, name, K, units) RGX_##G##_##name,
#define RC_H5_COLS(G, name, names, n, K, units) \
    RGX_##G##_##name, RGX_##G##_##name##_last_ = RGX_##G##_##name + (n) - 1,
#include "io/h5out_ragged.def"
};
#define RGC(G, name) (RGX_##G##_##name - RGX_##G##_begin_ - 1)

/* One row of io/h5out_ragged.def: n columns (names[0 .. n), or just `name`). */
typedef struct h5_ragged_decl {
    int list; /* RGD_* */
    const char *name;
    const char *const *names;
    int n;
    kind k;
    const char *units;
} h5_ragged_decl;
extern const h5_ragged_decl h5_ragged_decls[];
extern const size_t h5_n_ragged_decls;
/* The declared list of each group (RG_* -> RGD_*). */
extern const int h5_ragged_list[RG_COUNT];

typedef struct h5_counter_col {
    const char *name;
    size_t off;
    kind k;
    const char *units;
} h5_counter_col;
/* The counter columns, in rc_counters order. */
extern const h5_counter_col h5_counter_cols[];
extern const size_t h5_n_counters;

size_t h5_kind_size(const column *c);
hid_t h5_kind_mtype(const column *c);
void *h5_col_push(column *c);
void h5_col_put(column *c, const void *v);
int h5_col_create(hid_t loc, const column *c);
int h5_col_flush(hid_t loc, column *c, hsize_t start);

/* ---- the writer (h5out_write.c) ---- */

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
    char *run[4];         /* rc_h5out_run, owned copies (NULL: not set) */
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

void h5_define_columns(rc_h5out *h, size_t canonical_width);
void h5_define_ragged(rc_h5out *h);
void h5_free_columns(rc_h5out *h);
int h5_create_file(rc_h5out *h, rc_err *err);
rc_h5out *h5_new_writer(const char *path, const rc_h5out_sweep *sweep, size_t width);
int h5_add_row(rc_h5out *h, const rc_job *job, const rc_result_view *v,
               const rc_h5out_prov *prov, const char *canonical);

#endif
