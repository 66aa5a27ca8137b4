/* exec: runs one job for the farm, optionally isolated in a forked child.
 *
 * Isolation exists because a sweep is thousands of jobs and one crash (a
 * segfault, an RC_ASSERT abort, the OOM killer) must cost one job, not the
 * MPI job: with `isolate`, the job runs in a fork()ed child that packs its
 * result (rc_result_pack) into a pipe and _exit()s; the parent reads the
 * image and reaps the child, turning a signal or a torn image into a failed
 * job with a message.  The child never touches MPI, HDF5 or the journal.
 * Without `isolate` the job runs in this process (cheaper by one fork, and
 * what debuggers want).
 *
 * Ownership: on success *out->image is malloc'ed (free()); on failure
 * out->msg holds one line.  While waiting for an isolated child, `tick` (if
 * not NULL) is called about every `tick_s` seconds; a non-zero return kills
 * the child and the job is reported as abandoned.
 */
#ifndef RCSIM_FARM_EXEC_H
#define RCSIM_FARM_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exp/job.h"

typedef int (*rc_exec_tick_fn)(void *ctx);

typedef struct rc_exec_out {
    int status;       /* 0 ok; else an exit code (1 runtime, 2 bad input), or -1 abandoned */
    void *image;      /* rc_result_pack image when status == 0 */
    size_t len;
    uint64_t events;  /* engine events, for events/s */
    double wall_s;    /* wall time of the simulation */
    char msg[512];    /* why it failed */
} rc_exec_out;

void rc_exec_job(const rc_job *job, bool isolate, rc_exec_tick_fn tick, void *ctx, double tick_s,
                 rc_exec_out *out);

#endif
