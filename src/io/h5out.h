/* h5out: the rank-0 serial HDF5 writer and reader of results files, layout
 * "rcsim-results/2" (docs/results-layout.md).
 *
 * One file holds one sweep as a columnar table: /table has one extendible,
 * chunked, compressed dataset per column (job id, every job parameter, the
 * summary statistics, the counters, provenance), all indexed by job row;
 * ragged per-job data (sparse latency histograms, undelivered pairs and the
 * optional per-delivery records) live in groups whose `end` column gives each
 * row's slice.  Rows are appended, never rewritten.
 *
 * The writer is a buffer: rc_h5out_add copies one job's values into column
 * buffers in memory (no HDF5 call), rc_h5out_flush opens the file, appends
 * every buffered row to every column, records the new row count as the
 * commit mark (/table attribute `rows`) and closes the file again.  Outside a
 * flush the file is closed, complete and readable by h5py.  A writer killed
 * mid-flush can leave columns longer than `rows` (cut back on the next open)
 * or, HDF5 1.10 having no journaling, a file that no longer opens; the
 * journal (io/journal.h) is what makes that recoverable (farm/store.h).
 *
 * Files of layout "rcsim-results/1" (one group per job) are refused with a
 * message naming the converter; rc_h5out_convert_v1 (rcsim convert) turns one
 * into a read-only v2 file that keeps its v1 histogram bins.
 *
 * Errors are user-tier (rc_err: RC_EXIT_USAGE for a file that is not ours to
 * write, else RC_EXIT_RUNTIME); HDF5's own error printing is switched off.
 * The writer owns copies of everything it is given.
 */
#ifndef RCSIM_IO_H5OUT_H
#define RCSIM_IO_H5OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "exp/job.h"
#include "exp/result.h"

#define RC_H5OUT_LAYOUT "rcsim-results/2"
/* Rows per chunk of a table column.  A flush that ends on a multiple of it
 * rewrites no partly filled chunk (farm/store.c flushes that way). */
#define RC_H5OUT_CHUNK_ROWS 4096
#define RC_H5OUT_LAYOUT_V1 "rcsim-results/1"

typedef struct rc_h5out rc_h5out;

/* The sweep a results file belongs to (root attributes; updated when a sweep
 * is extended). */
typedef struct rc_h5out_sweep {
    const char *name;
    const char *file;  /* path of the sweep file */
    const char *text;  /* its bytes */
    uint64_t hash;     /* rc_sweep_hash of the whole sweep */
    uint64_t jobs;     /* jobs in the sweep */
    const char *shard; /* "I/N" for a shard file, else "" */
} rc_h5out_sweep;

/* Where and when a job ran (provenance columns; the build that ran it comes
 * with its result image, the trace's identity with the job). */
typedef struct rc_h5out_prov {
    const char *host;
    int rank;
    double finished; /* Unix time, seconds */
} rc_h5out_prov;

/* What a file says about itself (rc_h5out_check, rc_h5in_info). */
typedef struct rc_h5out_info {
    bool exists;
    char layout[64];
    char sweep_name[256];
    char shard[32];
    char converted_from[64]; /* "" unless written by rcsim convert */
    uint64_t sweep_hash;
    uint64_t rows;
} rc_h5out_info;

/* This binary's build identity, e.g. "rcsim 0.1.0 (0da66a9) build 1f2e...". */
const char *rc_h5out_build(void);

/* Checks an existing file without modifying it.  0 with info->exists = false
 * if there is no file; 0 for a v2 file (info filled); RC_EXIT_USAGE for a v1
 * file (naming `rcsim convert`) or a non-rcsim HDF5 file; RC_EXIT_RUNTIME if
 * HDF5 cannot open it at all (damaged). */
int rc_h5out_check(const char *path, rc_h5out_info *info, rc_err *err);

/* Creates the file, or opens an existing v2 file (rc_h5out_check first;
 * a converted file is refused with RC_EXIT_USAGE) and cuts columns back to
 * the committed rows.  Leaves the file closed.
 * `canonical_width`: the width of the canonical-text column for a new file
 * (it grows later if a longer text arrives). */
rc_h5out *rc_h5out_open(const char *path, const rc_h5out_sweep *sweep, size_t canonical_width,
                        rc_err *err);

/* Job ids of the committed rows, in row order (malloc'ed; *n may be 0). */
int rc_h5out_list(rc_h5out *h, uint64_t **ids, size_t *n, rc_err *err);

/* Buffers one finished job: `job` is its (unresolved or resolved)
 * description, `image` its rc_result_pack image, `canonical` its canonical
 * text (NULL: formatted here, about 20 us).  No file access.  Returns
 * RC_EXIT_RUNTIME for an image that does not parse. */
int rc_h5out_add(rc_h5out *h, const rc_job *job, const void *image, size_t len,
                 const char *canonical, const rc_h5out_prov *prov, rc_err *err);

/* Buffers a failed job for /failed/<id> (parameters, message, provenance);
 * a later successful row of the same id removes it. */
void rc_h5out_add_failed(rc_h5out *h, const rc_job *job, const char *message,
                         const rc_h5out_prov *prov);

/* Rows (and failed entries) buffered and not yet written. */
size_t rc_h5out_pending(const rc_h5out *h);

/* Rows written (the commit mark). */
uint64_t rc_h5out_rows(const rc_h5out *h);

/* What the run writing the file ran (root attributes, written at the next
 * flush and replaced by each run that writes the file): run_effective (the
 * parameters after --set, exp/sweep.h rc_sweep_effective), run_overrides (the
 * --set options, one a line), run_command (the command line), run_layout
 * (ranks and hosts).  NULL fields are left as they are. */
typedef struct rc_h5out_run {
    const char *effective, *overrides, *command, *layout;
} rc_h5out_run;
void rc_h5out_set_run(rc_h5out *h, const rc_h5out_run *run);

/* Updates the sweep attributes at the next flush (a sweep extended). */
void rc_h5out_set_sweep(rc_h5out *h, const rc_h5out_sweep *sweep);

/* Writes everything buffered: open, append, commit, close.  If the file
 * cannot be opened for writing (a reader holds it, or it is damaged),
 * returns RC_EXIT_RUNTIME with *locked = true and keeps the buffer; other
 * failures (a full disk) return RC_EXIT_RUNTIME with *locked = false. */
int rc_h5out_flush(rc_h5out *h, bool *locked, rc_err *err);

/* Frees the writer; whatever is still buffered is dropped (it is in the
 * journal).  NULL is fine. */
void rc_h5out_close(rc_h5out *h);

/* ---- one job (rcsim run --out) ---- */

/* Whether a results file can be created at `path`, checked before a job runs:
 * 0, or RC_EXIT_USAGE with "directory DIR is not writable (REASON)". */
int rc_h5out_check_dir(const char *path, rc_err *err);

/* Writes one job's result as a one-job results file: to PATH.tmp first,
 * renamed into place only when complete, so a failure leaves no partial file.
 * Provenance: this host, rank 0, now. */
int rc_h5out_write_job(const char *path, const rc_job *job, const rc_result *r, rc_err *err);

/* ---- reading a v2 file back as result images (rcsim merge) ---- */

typedef struct rc_h5in rc_h5in;

rc_h5in *rc_h5in_open(const char *path, rc_err *err);
const rc_h5out_info *rc_h5in_info(const rc_h5in *in);
const char *rc_h5in_sweep_text(const rc_h5in *in);
const char *rc_h5in_sweep_file(const rc_h5in *in);
uint64_t rc_h5in_sweep_jobs(const rc_h5in *in);

/* Row `row` as job id, canonical text, provenance (strings owned by `in`,
 * valid until the next call) and a malloc'ed result image. */
int rc_h5in_row(rc_h5in *in, size_t row, uint64_t *job_id, const char **canonical,
                rc_h5out_prov *prov, void **image, size_t *len, rc_err *err);
void rc_h5in_close(rc_h5in *in);

/* Buffers row `row` of `in` in `h` as it was: parameters, canonical text,
 * provenance and results (rcsim merge).  *job_id is the row's job. */
int rc_h5out_add_from(rc_h5out *h, rc_h5in *in, size_t row, uint64_t *job_id, rc_err *err);

/* Writes (or replaces) the string attribute `name` on the root group of the
 * closed results file `path` (the stopping rule of `seeds: {until}`).
 * RC_EXIT_RUNTIME when the file cannot be opened or written. */
int rc_h5out_note(const char *path, const char *name, const char *text, rc_err *err);

/* ---- old layout ---- */

/* rcsim convert: writes a v2 file at `out` (which must not exist) with every
 * job of the v1 file `in`; the v1 histogram bins are kept (their edges in
 * /hist/edges_s) and the file is marked converted_from = rcsim-results/1,
 * which sweeps refuse to append to.  Returns the jobs converted in *n. */
int rc_h5out_convert_v1(const char *in, const char *out, size_t *n, rc_err *err);

#endif
