/* preflight: what rank 0 checks and claims before the first job of a sweep.
 *
 * In this order, so that a refusal writes nothing:
 *   1. inputs: every job is validated as it will run (with --data-dir) and
 *      bound to the content of its trace (rc_sweep_bind):
 *      each trace is read completely, a missing, truncated, corrupt or too
 *      short one is an error naming the sweep line and the file;
 *   2. --out: its directory must exist and be writable (the message names it);
 *   3. the lock (io/lock.h) on the results, held until rc_preflight_release:
 *      a second sweep into the same --out is refused naming the holder;
 *   4. the manifest (io/manifest.h): if the results already hold jobs (a
 *      journal exists), the traces, the stored options and the build must be
 *      those the finished jobs were made with (another build only with
 *      `allow_other_build`); then the manifest is written (before any job).
 * With `dry_run` only 1, 2 and the comparison of 4 run: nothing is locked or
 * written.  Errors are RC_EXIT_USAGE (bad input, a held lock, a resume that
 * would mix) or RC_EXIT_RUNTIME, with one line in err.
 *
 * Ownership: the preflight owns the lock; the sweep is bound in place.
 */
#ifndef RCSIM_FARM_PREFLIGHT_H
#define RCSIM_FARM_PREFLIGHT_H

#include <stdbool.h>

#include "core/build.h"
#include "core/err.h"
#include "exp/sweep.h"

typedef struct rc_preflight_opts {
    const char *out;        /* results file */
    const char *data_dir;   /* --data-dir (NULL/empty: the jobs' own) */
    bool allow_other_build; /* resume with another build: each job records its own */
    bool dry_run;           /* check only */
    const rc_build_info *worker_builds; /* other builds run by workers (allowed), or NULL */
    size_t n_worker_builds;
} rc_preflight_opts;

typedef struct rc_preflight rc_preflight;

/* Runs the steps above.  On success *pf holds the lock (NULL for dry_run). */
int rc_preflight_run(rc_sweep *sw, const rc_preflight_opts *o, rc_preflight **pf, rc_err *err);

/* Releases the lock.  `refused`: the sweep was then refused as bad input
 * (a results file or journal of another sweep): the manifest is put back as
 * the preflight found it (removed if there was none), so a refusal changes
 * nothing.  NULL is fine. */
void rc_preflight_release(rc_preflight *pf, bool refused);

#endif
