/* store: rank 0's sink for finished jobs: the resume journal plus the HDF5
 * results file, and the resume logic that reconciles the two at start.
 *
 * Opening (docs/running-sweeps.md, "Resume and crash model"):
 *   1. the journal <out>.journal is read (a torn last record is dropped and
 *      reported); its job ids are the done set;
 *   2. the results file is checked: a foreign one (other layout or sweep) is
 *      refused with RC_EXIT_USAGE and left untouched; one that HDF5 cannot
 *      open or list is renamed aside (<out>.damaged-<time>) and rebuilt;
 *   3. journal jobs missing from the file are (re)written from the journal.
 * A result is appended (and fsync'ed) to the journal as soon as it arrives;
 * HDF5 writes are batched (a batch starts at most every RC_STORE_FLUSH_S),
 * each batch opening and closing the file so it is complete on disk between
 * batches.
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

#define RC_STORE_FLUSH_S 2.0

typedef struct rc_store rc_store;

/* Fills done[i] (one flag per sweep job) from the journal without changing
 * any file: for --dry-run and for open. */
int rc_store_scan(const char *out, const rc_sweep *sw, bool *done, rc_journal_scan *scan,
                  rc_err *err);

/* Opens (and repairs) as described above; done[] as for rc_store_scan. */
rc_store *rc_store_open(const char *out, const rc_sweep *sw, bool *done, rc_err *err);

/* A finished job: journal first (durable on return), HDF5 later. */
int rc_store_add(rc_store *s, size_t index, const void *image, size_t len,
                 const rc_journal_meta *meta, rc_err *err);

/* A failed job: recorded under /failed in the next batch (not in the journal). */
void rc_store_failed(rc_store *s, size_t index, const char *msg, const rc_journal_meta *meta);

/* Incremental HDF5 writing, so the master never stalls its workers for a
 * whole batch: rc_store_step opens a batch when one is due (`force`, the
 * flush interval passed, or a long queue), writes ONE queued job per call,
 * and closes the file when the queue is drained.  rc_store_busy says a batch
 * is open (call step again soon).  A file locked by a reader is retried at
 * the next interval.  rc_store_flush loops step until nothing is queued. */
int rc_store_step(rc_store *s, bool force, rc_err *err);
bool rc_store_busy(const rc_store *s);
int rc_store_flush(rc_store *s, bool force, rc_err *err);

/* Final flush and close (NULL is fine). */
int rc_store_close(rc_store *s, rc_err *err);

#endif
