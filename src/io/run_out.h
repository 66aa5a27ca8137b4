/* run_out: where `rcsim run --out FILE` may write (docs/reliability.md).
 *
 * `rcsim run` writes a results file of one job (rc_h5out_write_job) and
 * replaces FILE whole, so an existing FILE is replaced only when it is a
 * previous `rcsim run` results file (layout 2, sweep "run", one row) of the
 * same job (the run is deterministic: same id, same results), or of another
 * job with `force`.  Never, not even with `force`: a sweep's results file
 * (FILE.journal or FILE.manifest.json exists, or its sweep is not "run" or
 * holds more than one job), a file whose lock a sweep holds, a file that is
 * not HDF5 or not a results file of this layout, anything but a regular file.
 * A symbolic link is followed to its target (io/lock.h rc_lock_canonical);
 * the lock FILE.lock is held from the check to the end of the write, so no
 * sweep can start on FILE meanwhile.
 *
 * Errors are RC_EXIT_USAGE with the reason (the message names FILE).
 */
#ifndef RCSIM_IO_RUN_OUT_H
#define RCSIM_IO_RUN_OUT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "io/lock.h"

typedef struct rc_run_out {
    char *path;    /* the file to write (the link's target for a link; malloc'ed) */
    rc_lock *lock; /* held until rc_run_out_release */
} rc_run_out;

/* Checks `out` for a run of job `job_id` and takes its lock; 0 and *ro
 * filled, or an error (nothing taken). */
int rc_run_out_claim(const char *out, uint64_t job_id, bool force, rc_run_out *ro, rc_err *err);

/* Releases the lock and frees the path (a zeroed rc_run_out is fine). */
void rc_run_out_release(rc_run_out *ro);

#endif
