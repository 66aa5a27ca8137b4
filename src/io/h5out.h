/* h5out: the rank-0 serial HDF5 writer of a results file (docs/results-layout.md).
 *
 * One results file holds one sweep.  rc_h5out_open creates it (root
 * attributes, hist_edges_s, /jobs) or, for an existing file, checks that its
 * layout attribute is "rcsim-results/1" and that its sweep_hash is this
 * sweep's, refusing it otherwise with a message naming both sweeps.
 *
 * Crash model: HDF5 1.10 has no journaling, so a process killed while the
 * library holds dirty metadata can leave a file that no longer opens.  The
 * writer therefore keeps the file closed between batches: rc_h5out_begin
 * opens it, writes go in, rc_h5out_end closes it (which flushes everything).
 * Outside begin/end the file on disk is complete and readable by h5py, and
 * not locked.  Each job is built under /jobs/.partial-<id> and renamed to
 * /jobs/<id> only when complete, so a surviving file never shows a
 * half-written job under its real name; leftovers are removed on open.  The
 * journal (io/journal.h) is what makes a lost or damaged file recoverable.
 *
 * Errors are user-tier (rc_err, RC_EXIT_USAGE for a foreign file, else
 * RC_EXIT_RUNTIME); the HDF5 library's own error stack printing is switched
 * off so messages are ours.  The writer owns its copies of the metadata.
 */
#ifndef RCSIM_IO_H5OUT_H
#define RCSIM_IO_H5OUT_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "exp/job.h"
#include "exp/result.h"

#define RC_H5OUT_LAYOUT "rcsim-results/1"

typedef struct rc_h5out rc_h5out;

/* The sweep a results file belongs to. */
typedef struct rc_h5out_sweep {
    const char *name;
    const char *file; /* path of the sweep file */
    const char *text; /* its bytes */
    uint64_t hash;    /* rc_sweep_hash */
} rc_h5out_sweep;

/* Where a job ran (provenance attributes). */
typedef struct rc_h5out_prov {
    const char *host;
    int rank;
    double finished; /* Unix time, seconds */
} rc_h5out_prov;

/* Checks an existing file without modifying it: 0 if it is absent or
 * belongs to `sweep`; RC_EXIT_USAGE if it is foreign (layout or sweep);
 * RC_EXIT_RUNTIME if it cannot be opened as HDF5 at all (damaged).  The
 * caller decides what a damaged file means (the farm rebuilds it). */
int rc_h5out_check(const char *path, const rc_h5out_sweep *sweep, rc_err *err);

/* Creates or opens (after the checks above) and leaves the file closed.
 * Removes leftover partial job groups. */
rc_h5out *rc_h5out_open(const char *path, const rc_h5out_sweep *sweep, rc_err *err);

/* Sorted ids of the jobs the file holds (malloc'ed array; *n may be 0). */
int rc_h5out_list(rc_h5out *h, uint64_t **ids, size_t *n, rc_err *err);

/* Batch bracket: open the file for writing / close it (flushing). */
int rc_h5out_begin(rc_h5out *h, rc_err *err);
int rc_h5out_end(rc_h5out *h, rc_err *err);

/* Writes /jobs/<id> for a finished job (inside begin/end).  An existing group
 * of the same id is replaced (a rewrite from the journal).  Also removes a
 * /failed/<id> entry left by an earlier failed attempt. */
int rc_h5out_write_job(rc_h5out *h, const rc_job *job, const rc_result *r,
                       const rc_h5out_prov *prov, rc_err *err);

/* Records a failed job under /failed/<id> (parameters, message, provenance). */
int rc_h5out_write_failed(rc_h5out *h, const rc_job *job, const char *message,
                          const rc_h5out_prov *prov, rc_err *err);

/* Frees the writer (ending a batch that is still open). */
int rc_h5out_close(rc_h5out *h, rc_err *err);

#endif
