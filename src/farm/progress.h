/* progress: rank 0's progress report for a sweep, printed without stalling
 * the workers (they never wait for it).
 *
 * Jobs done/total, failed, jobs/s, events/s and an ETA.  The ETA weights
 * jobs by rc_job_cost_estimate, because the farm hands out the expensive jobs
 * first and a job-count ETA would be far too pessimistic early on.  On a
 * terminal the line is rewritten in place (\r) at most twice a second;
 * otherwise (a log file, SLURM output) one plain line is printed every
 * `interval_s` seconds.  rc_progress_tick only formats when a line is due,
 * so the master can call it on every loop iteration without stalling.
 */
#ifndef RCSIM_FARM_PROGRESS_H
#define RCSIM_FARM_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct rc_progress {
    size_t total, skipped;     /* jobs in the sweep; already done before this run */
    size_t done, failed;       /* finished in this run */
    uint64_t events;           /* engine events of the jobs finished in this run */
    double cost_total, cost_done; /* estimates of the jobs to run / run so far */
    double start, last;        /* monotonic seconds */
    double interval_s;
    int tty;                   /* stderr is a terminal */
    int live;                  /* a \r line is on screen */
} rc_progress;

double rc_progress_now(void); /* monotonic seconds */
void rc_progress_init(rc_progress *p, size_t total, size_t skipped, double cost_total,
                      double interval_s);
/* Prints if a line is due (or if `force`); `inflight` = jobs running now. */
void rc_progress_tick(rc_progress *p, int inflight, int force);
/* Ends a live line so later messages start on a fresh line. */
void rc_progress_break(rc_progress *p);

#endif
