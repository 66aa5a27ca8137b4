/* sweep_until: `rcsim sweep` of a sweep file with `seeds: {min, max, until}`:
 * rounds of the farm, each on the jobs exp/until.h chooses from the finished
 * ones in the journal, then the rule's outcome recorded in the results file. */
#ifndef RCSIM_CLI_SWEEP_UNTIL_H
#define RCSIM_CLI_SWEEP_UNTIL_H

#include <mpi.h>

#include "farm/farm.h"

/* Collective.  Rank 0 passes the sweep (others NULL); a sweep without the
 * rule is one plain rc_farm_run.  Returns this rank's exit code (farm/farm.h);
 * --shard with a rule is RC_EXIT_USAGE (a shard cannot see the other
 * shards' seeds of a configuration). */
int rc_sweep_until_run(MPI_Comm comm, const rc_sweep *sw, rc_farm_opts *o, rc_farm_stats *st,
                       rc_err *err);

#endif
