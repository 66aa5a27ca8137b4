/* farm: runs a sweep's jobs across MPI ranks and stores the results.
 *
 * Rank 0 is the master: it resumes from the journal (farm/store.h), hands
 * out the remaining jobs most-expensive-first (rc_job_cost_estimate) in
 * chunks sized by guided self-scheduling (a chunk is at most a share of the
 * remaining estimated work per worker, capped at RC_FARM_CHUNK_S; long jobs
 * go one by one) to workers that ask for them, journals the results (group
 * commit) and writes them to the HDF5 table in batches, prints progress, and
 * handles SIGTERM and SIGINT (stop handing out chunks, wait up to `grace_s`
 * for running ones, save, return RC_EXIT_TERMINATED).  Ranks > 0 are workers
 * running chunks through farm/exec.h (one forked child per chunk unless
 * `isolate` is off) and ignoring SIGTERM/SIGINT so that results in progress
 * are still delivered.  With one rank the master runs the chunks itself.
 *
 * A shard (`shard_count` > 0) runs only the jobs whose id modulo
 * shard_count is shard_index: a deterministic slice that does not move
 * when a sweep is extended (rcsim sweep --shard, rcsim merge).
 *
 * rc_farm_run is collective over `comm` (dup'ed inside).  Exit codes: 0 all
 * jobs done, 1 some jobs failed (or a runtime error), 2 bad input (foreign
 * results file, ...; nothing touched), 3 stopped by a signal with results
 * saved.  If the grace period runs out with jobs still running, rank 0 saves
 * and closes everything and then calls MPI_Abort(comm, 3).
 */
#ifndef RCSIM_FARM_FARM_H
#define RCSIM_FARM_FARM_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "exp/sweep.h"

/* Most estimated seconds of work in one chunk.  A chunk is one forked child,
 * whose first job maps its memory afresh; 8 s (rather than 2 s) saved 3-4 %
 * of the CPU of a Fig. 14 sweep (docs/performance.md, "Session 5").  A kill -9
 * of the whole sweep redoes at most one chunk per worker. */
#define RC_FARM_CHUNK_S 8.0

typedef struct rc_farm_opts {
    const char *out;      /* results file; the journal is <out>.journal */
    unsigned shard_index, shard_count; /* shard_count 0: the whole sweep */
    double lock_wait_s;   /* wait for a reader holding the file at the end (default 60) */
    const char *data_dir; /* if not NULL/empty: data_dir for every job */
    double progress_s;    /* plain progress line period (default 10) */
    double grace_s;       /* wait for running jobs after SIGTERM (default 60) */
    bool isolate;         /* run each job in a forked child (default true) */
    bool retry_failed;    /* give failed jobs one more try at the end of this run */
    bool dry_run;         /* print what would run; touch nothing */
    /* If not NULL: one flag per sweep job, only these are jobs of this run
     * (a round of `seeds: {until}`, exp/until.h); combines with a shard. */
    const bool *subset;
    int verbose;          /* 1: one line per finished job */
    /* Provenance stored in the results file (io/h5out.h run_*); may be NULL. */
    const char *overrides; /* the --set options, one a line */
    const char *command;   /* the command line */
    const char *layout;    /* ranks and hosts (rc_farm_check_builds) */
} rc_farm_opts;

typedef struct rc_farm_stats {
    size_t total;   /* jobs in the sweep (or the shard) */
    size_t skipped; /* already done before this run (journal) */
    size_t run;     /* finished successfully in this run */
    size_t failed;  /* failed in this run (after retries) */
    size_t left;    /* not run (stopped by a signal) */
    double wall_s;
    int workers;
    bool terminated;
} rc_farm_stats;

/* What a rank says about the binary it runs (core/build.h), with where it runs. */
typedef struct rc_farm_build {
    char id[17];
    char revision[64];
    int dirty;
    char sources_sha256[65];
    char config[512];
    char host[64];
    int rank;
} rc_farm_build;

/* Collective over `comm`, before anything is written: every rank reports its
 * build to rank 0, which compares each with its own.  A worker running another
 * build (an MPMD launch, another module on a node's PATH) would store rows of
 * its build under a manifest naming the master's, so it is refused
 * (RC_EXIT_USAGE, naming rank, host and both builds) unless `allow`.  On rank 0
 * *others (malloc'ed, *n_others entries, one per distinct foreign build) lists
 * the builds to record beside the master's; other ranks get NULL, 0.  Returns
 * the same status on every rank.  *layout (rank 0, malloc'ed): the ranks and
 * their hosts, e.g. "3 ranks: 0 (master) on vm, 1-2 on vm". */
int rc_farm_check_builds(MPI_Comm comm, bool allow, rc_farm_build **others, size_t *n_others,
                         char **layout, rc_err *err);

/* Installs the rank's signal handling (master: flag; workers: ignore).
 * Called by rc_farm_run; exposed so callers can install it early. */
void rc_farm_signals(int rank);

/* Marks the jobs of shard `index` of `count` (job id modulo count). */
void rc_farm_shard(const rc_sweep *sw, unsigned index, unsigned count, bool *in_shard);

/* `sw` is only needed (and only read) on rank 0; other ranks may pass NULL.
 * Returns the exit code of this rank; err is set on rank 0. */
int rc_farm_run(MPI_Comm comm, const rc_sweep *sw, const rc_farm_opts *o, rc_farm_stats *st,
                rc_err *err);

#endif
