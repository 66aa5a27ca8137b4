/* exec: runs a chunk of jobs for the farm, optionally isolated in a forked child.
 *
 * Isolation exists because a sweep is thousands of jobs and one crash (a
 * segfault, an RC_ASSERT abort, the OOM killer) must cost one job, not the
 * MPI job: with `isolate`, the chunk runs in one fork()ed child that runs its
 * jobs one after the other and streams each result (a frame: status, events,
 * wall time, then the rc_result_pack image or the error message) into a
 * pipe, then _exit()s.  The parent reads the frames as they come; if the
 * child dies, the job it was running is failed with a message (signal or
 * exit code) and a new child runs the rest of the chunk.  One fork per chunk
 * instead of per job is what makes tiny jobs cheap (docs/performance.md).
 * The child never touches MPI, HDF5 or the journal (docs/running-sweeps.md,
 * "Forking after MPI_Init").  Without `isolate` the jobs run in this process
 * (no fork at all: for tiny jobs, debuggers, and networks where forking an
 * MPI process is not allowed).
 *
 * Ownership: each rc_exec_out handed to `done` is valid only during the call
 * (its image is freed after).  While waiting for an isolated child, `tick`
 * (if not NULL) is called about every `tick_s` seconds; a non-zero return
 * kills the child and the chunk's unfinished jobs are reported as abandoned
 * (status -1).
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

/* Called once per job of the chunk, in order, as each finishes. */
typedef void (*rc_exec_done_fn)(void *ctx, size_t i, rc_exec_out *out);

void rc_exec_chunk(const rc_job *jobs, size_t n, bool isolate, rc_exec_tick_fn tick, void *tctx,
                   double tick_s, rc_exec_done_fn done, void *dctx);

#endif
