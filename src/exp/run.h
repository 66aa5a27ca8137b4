/* run: runs one job to completion on this thread.  The only entry point the
 * CLI and the farm need; it knows jobs and results, not protocol details.
 *
 * Deterministic: the result depends only on the resolved job (and on the
 * trace file contents), never on the rank, the process or the time.
 */
#ifndef RCSIM_EXP_RUN_H
#define RCSIM_EXP_RUN_H

#include "core/err.h"
#include "exp/job.h"
#include "exp/result.h"

/* Optional progress hook, called about once per simulated hour with the
 * fraction done. */
typedef void (*rc_run_progress_fn)(void *ctx, double fraction);

/* Runs `job` (resolved and validated inside) and fills `out` (initialised
 * inside; the caller frees with rc_result_free).  Returns 0, or an exit code
 * with `err` set (bad input such as an unreadable trace). */
int rc_run_job(const rc_job *job, rc_result *out, rc_run_progress_fn progress, void *ctx,
               rc_err *err);
/* How many jobs this process ran a second time because the anonymity sample's
 * look-ahead missed (docs/spec.md §10.2; the second run has the full sample). */
uint64_t rc_run_anon_reruns(void);

/* Loads the traces the jobs name into this process's trace cache
 * (rc_trace_id_get), ignoring errors: a job reports its own when it runs.
 * The farm calls it before forking a chunk's process, so that the children
 * find the traces loaded instead of each reading them again. */
void rc_run_warm(const rc_job *jobs, size_t n);

#endif
