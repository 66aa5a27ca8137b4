/* partition: what a SLURM partition offers, asked of the cluster at hand.
 *
 * `rcsim slurm` uses this to size its scripts and to refuse a request that
 * can never start: SLURM does not reject an sbatch whose --ntasks exceeds the
 * partition's CPUs, it leaves the job pending forever (Reason=PartitionConfig).
 * The facts come from `scontrol show partition -o` (limits, totals, default
 * partition, state), `sinfo -h -o "%R %c"` (CPUs per node) and
 * `scontrol show config` (MaxArraySize), run through /bin/sh with fixed
 * command lines (no user text reaches the shell) and bounded by `timeout` so
 * that an unreachable controller costs seconds, not minutes.  Tests put stub
 * `scontrol`/`sinfo` programs first on PATH.
 *
 * Nothing here is fatal: when SLURM cannot be asked (tools absent, no
 * configuration, controller down) the query says so and why, and the
 * generator falls back to its documented defaults.  No allocation escapes.
 */
#ifndef RCSIM_SLURM_PARTITION_H
#define RCSIM_SLURM_PARTITION_H

#include <stdbool.h>
#include <stddef.h>

#define RC_SLURM_UNLIMITED (-1L)

typedef struct rc_slurm_partition {
    char name[128];
    bool is_default;      /* Default=YES: what sbatch uses without --partition */
    char state[32];       /* UP, DOWN, DRAIN, INACTIVE */
    long total_cpus;      /* TotalCPUs */
    long total_nodes;     /* TotalNodes */
    long cpus_per_node;   /* CPUs of the smallest node (sinfo %c); 0 when unknown */
    bool cpus_vary;       /* nodes have different CPU counts ("2+" in sinfo) */
    long max_nodes;       /* MaxNodes per job, or RC_SLURM_UNLIMITED */
    long max_cpus_per_node; /* MaxCPUsPerNode, or RC_SLURM_UNLIMITED */
    long max_time_s;      /* MaxTime in seconds, or RC_SLURM_UNLIMITED */
    char max_time[32];    /* MaxTime as SLURM prints it */
} rc_slurm_partition;

typedef enum {
    RC_SLURM_PART_OK = 0,    /* *p filled in */
    RC_SLURM_PART_UNKNOWN,   /* SLURM could not be asked; `why` says why */
    RC_SLURM_PART_NO_SUCH,   /* SLURM answered, but has no such partition; `why` lists them */
} rc_slurm_part_status;

/* Looks up partition `name`, or the default partition when `name` is NULL.
 * `why` (may be NULL) receives one line for the UNKNOWN and NO_SUCH cases. */
rc_slurm_part_status rc_slurm_partition_query(const char *name, rc_slurm_partition *p, char *why,
                                              size_t why_n);

/* The cluster's MaxArraySize (array indices must be below it), or -1 when
 * SLURM cannot be asked. */
long rc_slurm_max_array_size(void);

/* Parses a SLURM time (MIN, MIN:SEC, H:M:S, D-H, D-H:M, D-H:M:S, or
 * INFINITE/UNLIMITED as RC_SLURM_UNLIMITED) into seconds; returns 0, or -1 if
 * `text` is not one (or is zero). */
int rc_slurm_parse_time(const char *text, long *seconds);

#endif
