/* slurm_gen: the SLURM batch-script generator behind `rcsim slurm`
 * (docs/slurm.md is the manual).
 *
 * Owns turning a sweep file plus allocation choices into ready-to-submit
 * sbatch scripts: the documented templates slurm/rcsim-sweep.sbatch.in and
 * slurm/rcsim-merge.sbatch.in, embedded at build time
 * (slurm/embed-template.cmake), with their {{NAME}} placeholders filled in;
 * the header comment (command line, sweep hash, job count, cost estimate,
 * partition facts); the sizing of --ntasks from what the partition offers
 * (slurm/partition.h) and the refusal of requests that could never start.
 *
 * Two shapes:
 *  - one MPI job (default): `rcsim sweep FILE --out OUT` on every task of the
 *    allocation; it survives the time limit (SIGTERM LEAD seconds before it,
 *    results saved, exit 3) and requeues itself until the sweep is complete;
 *  - an array job (`array` = N > 0): task I runs the single-rank shard
 *    `rcsim sweep FILE --shard I/N --out PARTS/part-I.h5` (same SIGTERM and
 *    requeue logic per task), plus a second script, the merge job
 *    `rcsim merge PARTS/part-0.h5 ... --out OUT`, to be submitted with
 *    --dependency=afterok on the array job.
 * Paths in the scripts are absolute (binary, sweep file, results, logs), so
 * they can be submitted from anywhere.  The sweep file is loaded and
 * validated first; bad input writes nothing.
 *
 * Errors: user errors (bad option values, a bad sweep file, a request the
 * partition cannot satisfy) return RC_EXIT_USAGE with the reason in `err`;
 * failing to write a script returns RC_EXIT_RUNTIME.  Notes and warnings (the
 * submit command, an unreachable SLURM, a partition that is down) go to
 * stderr as "rcsim slurm: ..." lines.  Memory: everything allocated is freed
 * before returning.
 */
#ifndef RCSIM_SLURM_SLURM_GEN_H
#define RCSIM_SLURM_SLURM_GEN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

#define RC_SLURM_DEFAULT_LEAD_S 300L
#define RC_SLURM_MAX_LEAD_S 65535L /* SLURM stores the signal time in 16 bits */
#define RC_SLURM_DEFAULT_MAX_REQUEUES 50L
/* --ntasks cap per node when the partition cannot be asked. */
#define RC_SLURM_TASKS_PER_NODE_DEFAULT 16L

typedef struct rc_slurm_opts {
    const char *out;       /* results file; NULL: SWEEPNAME.h5 in the current directory */
    const char *script;    /* where to write; NULL or "-": stdout (not with array) */
    const char *time, *partition, *account, *job_name, *log, *data_dir; /* NULL: not given */
    const char *launcher;  /* "srun" or "mpirun" */
    long nodes, ntasks, cpus; /* ntasks 0: choose (jobs + 1, capped by the partition) */
    long lead, max_requeues;
    double grace, progress;
    bool have_grace, have_progress, requeue;
    const char **sets;     /* --set KEY=VALUE overrides, validated and passed on */
    size_t n_sets;
    const struct rc_until *until; /* --until: seeds chosen by a rule (exp/until.h), or NULL */
    long array;            /* 0: one MPI job; N > 0: array job of N shards + merge job */
    bool check_partition;  /* ask scontrol/sinfo what the partition offers */
    int argc;              /* the generating command line, quoted in the header */
    char **argv;
} rc_slurm_opts;

/* Defaults: srun, 1 node, 1 CPU per task, lead 300 s, requeue (at most 50
 * times), partition check on, no array. */
void rc_slurm_opts_init(rc_slurm_opts *o);

/* Writes the script(s) for sweep file `file`; returns 0 or an exit code with
 * the reason in err. */
int rc_slurm_generate(const rc_slurm_opts *o, const char *file, rc_err *err);

#endif
