/* store: rank 0's sink for finished jobs: the resume journal plus the HDF5
 * results table, and the resume logic that reconciles the two at start.
 *
 * Opening (docs/running-sweeps.md, "Resume and crash model"):
 *   1. the results file is checked: another layout (a v1 file, a foreign
 *      file, a converted file) or a shard of another slice is refused with
 *      RC_EXIT_USAGE and left untouched;
 *   2. the journal <out>.journal is read (a torn last record is dropped and
 *      reported); its job ids are the done set;
 *   3. every finished job (journal and table) must be a job of this run's
 *      sweep: a sweep file extended with seeds or axis values keeps its
 *      finished jobs, while one whose change alters their meaning (a default,
 *      the model, a trace: their ids change) is refused with RC_EXIT_USAGE,
 *      naming the parameters that differ;
 *   4. a table that HDF5 cannot read, or that holds jobs the journal lacks,
 *      is moved aside (<out>.damaged-<time>) and rebuilt from the journal;
 *      journal jobs the table lacks are added from the journal.
 *
 * While running: rc_store_add buffers a result in the journal (group
 * commit, io/journal.h); rc_store_step commits the journal when due, moves
 * committed results into the table's column buffers (a memcpy each), and
 * flushes the table to disk when the buffered rows fill the table's last
 * chunk (RC_H5OUT_CHUNK_ROWS: no partly filled chunk is rewritten, which is
 * what keeps a fast sweep's master cheap) or are RC_STORE_FLUSH_S old.  A job counts as done once its journal record is committed.
 * Closing commits and flushes; if a reader holds the file it waits up to
 * `lock_wait_s`, then leaves the journal as the source of truth and warns
 * how to write the table (that is not an error).
 *
 * Ownership: the store copies images it queues; the sweep must outlive it.
 */
#ifndef RCSIM_FARM_STORE_H
#define RCSIM_FARM_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "exp/sweep.h"
#include "io/journal.h"

#define RC_STORE_FLUSH_S 10.0

typedef struct rc_store rc_store;

typedef struct rc_store_opts {
    const char *out;          /* results file; the journal is <out>.journal */
    const bool *in_run;       /* jobs of this run (a shard), NULL = every job */
    const char *shard;        /* "I/N" or "" */
    double lock_wait_s;       /* bounded wait for a reader at the end */
    const char *overrides, *command, *layout; /* provenance (io/h5out.h), may be NULL */
} rc_store_opts;

/* Fills done[i] (one flag per sweep job) from the journal without changing
 * any file, applying the checks of steps 1-3: for --dry-run. */
int rc_store_scan(const rc_store_opts *o, const rc_sweep *sw, bool *done, rc_journal_scan *scan,
                  rc_err *err);

/* Opens (and repairs) as described above; done[] as for rc_store_scan. */
rc_store *rc_store_open(const rc_store_opts *o, const rc_sweep *sw, bool *done, rc_err *err);

/* A finished job: buffered in the journal; durable after the next commit.
 * `canonical` is the job's canonical text (formatted by the worker; NULL:
 * the store formats it). */
void rc_store_add(rc_store *s, size_t index, const void *image, size_t len,
                  const char *canonical, const rc_journal_meta *meta);

/* A failed job: recorded under /failed at the next flush (not in the journal). */
void rc_store_failed(rc_store *s, size_t index, const char *msg, const rc_journal_meta *meta);

/* Housekeeping: commits the journal when due (or `force`), then writes the
 * table when due (or `force`).  A table held by a reader is retried later.
 * Returns non-zero on a runtime error (a full disk). */
int rc_store_step(rc_store *s, bool force, rc_err *err);

/* Jobs of this run whose journal record is committed. */
size_t rc_store_done(const rc_store *s);

/* Journal commits (write + fsync) so far in this run. */
size_t rc_store_commits(const rc_store *s);

/* Final commit and flush (with the bounded wait for a reader), then frees
 * the store (NULL is fine). */
int rc_store_close(rc_store *s, rc_err *err);

/* Canonical-text width for a new results file of these jobs. */
size_t rc_store_canonical_width(const rc_sweep *sw);

#endif
