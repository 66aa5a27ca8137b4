/* speed: the benchmark harness behind `rcsim bench` (docs/performance.md).  It is
 * part of the binary, so it lives in src/; the benchmarks and measuring scripts that
 * are not (queue and results-file benchmarks, identity checks, fits) are in bench/.
 *
 * Owns the fixed list of benchmark configurations (names are the keys that
 * bench/compare.py matches on), running each repeat of a job in a fork()ed
 * child so that its peak RSS and CPU time are its own, the sweep-throughput
 * measurement (`mpirun -np W+1 rcsim sweep` on many small jobs, through this
 * same executable found via /proc/self/exe), and the outputs: the table on
 * stdout, progress on stderr, and the --json file with the provenance
 * (version, revision, host, date, CPU model, load average) that comparisons
 * need.  The command line is parsed by cli/cmd_bench.c; this module never
 * looks at argv.
 *
 * Errors: a configuration whose trace is absent is skipped with a note; a job
 * that fails or crashes, or a sweep that does not finish, makes the result
 * RC_EXIT_RUNTIME after the table is printed; an --only that matches nothing
 * is RC_EXIT_USAGE.  Memory: fixed arrays only; forked children _exit.
 */
#ifndef RCSIM_SPEED_SPEED_H
#define RCSIM_SPEED_SPEED_H

#include <stdbool.h>

#define RC_SPEED_MAX_REPEAT 99
#define RC_SPEED_MAX_NP 8
/* The launcher of the throughput sweeps (Debian's Open MPI); skipped when absent. */
#define RC_SPEED_MPIRUN "/usr/bin/mpirun"

typedef struct rc_speed_opts {
    bool quick;                       /* 2 h simulated, the --quick subset, 20 sweep jobs */
    bool quiet;                       /* no progress lines on stderr */
    bool no_sweep;                    /* skip the sweep throughput measurement */
    const char *json;                 /* also write the results here (NULL: no JSON) */
    int repeat;                       /* repeats per configuration and sweep; < 0: default */
    int np_list[RC_SPEED_MAX_NP];     /* worker counts of the throughput runs */
    int n_np;
    int sweep_jobs;                   /* jobs in the throughput sweep; < 0: default */
    const char *data_dir;             /* trace directory (NULL: $RCSIM_DATA_DIR) */
    const char *only;                 /* only configurations whose name contains this */
} rc_speed_opts;

/* Defaults: repeat and sweep_jobs unset (-1, resolved by --quick), workers 1,2. */
void rc_speed_opts_init(rc_speed_opts *o);

/* Runs the suite and prints it; returns the process exit code (0, 1 or 2). */
int rc_speed_run(const rc_speed_opts *o);

#endif
