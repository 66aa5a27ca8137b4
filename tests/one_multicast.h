/* one_multicast: a test fixture shared by the strategy and adversary tests.
 *
 * Runs one multicast from group position 0 at t = 0 on the real net, with no
 * application traffic, until the job's duration; every copy that can arrive
 * does.  The result holds per-delivery records when job->store_raw is set.
 */
#ifndef RCSIM_TESTS_ONE_MULTICAST_H
#define RCSIM_TESTS_ONE_MULTICAST_H

#include <criterion/criterion.h>

#include "core/sim.h"
#include "exp/job.h"
#include "exp/result.h"
#include "loopix/net.h"
#include "multicast/mc.h"

/* source_out (may be NULL) receives the user that sent the multicast. */
static inline void one_multicast(rc_job *job, rc_result *out, uint32_t *source_out)
{
    rc_job_resolve(job);
    rc_err err = {0};
    cr_assert_eq(rc_job_validate(job, &err), 0, "%s", err.msg);
    rc_sim sim;
    rc_sim_init(&sim, (rc_time)(job->duration_s * 1e6));
    rc_net_cfg net_cfg;
    rc_mc_cfg mc_cfg;
    rc_job_net_cfg(job, &net_cfg);
    rc_job_mc_cfg(job, &mc_cfg);
    rc_mc *mc = rc_mc_new(&sim, &mc_cfg, &net_cfg, NULL, &err);
    cr_assert_not_null(mc, "%s", err.msg);
    rc_mc_start(mc);
    uint32_t source = rc_mc_group_members(mc, 0)[0];
    rc_mc_multicast(mc, 0, source, rc_mc_payload_new(mc, 0, source));
    rc_sim_run(&sim, NULL, NULL, 0);
    rc_result_init(out);
    rc_result_gather(out, mc, job->store_raw);
    if (source_out) *source_out = source;
    rc_mc_free(mc);
    rc_sim_free(&sim);
}

#endif
