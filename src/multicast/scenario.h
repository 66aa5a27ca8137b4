/* scenario: the scenario hooks of tests and studies, in dense mode only
 * (rc_job_validate refuses them in population mode):
 *   offline_members  group-0 positions forced offline the whole run
 *   source_offline   "AT:FOR" seconds: the sender of the first multicast at
 *                    or after AT goes offline for FOR seconds right after its
 *                    first copy of that multicast has left; the so_* counters
 *                    follow that multicast (multicast/counters.def)
 * mc calls these at creation, at each send, payload creation and first
 * delivery, and at the end.  The state lives in rc_mc (mc_internal.h).
 */
#ifndef RCSIM_MULTICAST_SCENARIO_H
#define RCSIM_MULTICAST_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/sim.h"
#include "multicast/msg.h"

typedef struct rc_mc rc_mc;

typedef struct rc_mc_scenario {
    double at_s, for_s;
    int state;       /* 0 waiting, 1 armed (payload), 2 done or not asked for */
    uint32_t payload;
} rc_mc_scenario;

/* Applies the scenario options of mc's cfg (parsed and checked by exp/,
 * from the job's text options) once the groups are drawn.  Returns NULL or a
 * users-long array, true for a user forced offline (the caller frees it). */
bool *rc_mc__scenario_new(rc_mc *mc);
/* No scenario at all (population mode). */
void rc_mc__scenario_off(rc_mc *mc);
/* m, a payload copy (RC_MSG_COUNT_PAYLOAD), left `user` at `now` (call only
 * while state == 1). */
void rc_mc__scenario_sent(rc_mc *mc, uint32_t user, const rc_msg *m, rc_time now);
/* Payload p was created now. */
void rc_mc__scenario_created(rc_mc *mc, uint32_t p);
/* First delivery of p after lat seconds. */
void rc_mc__scenario_delivered(rc_mc *mc, uint32_t p, double lat, bool online_label);
/* End of run (dense mode): the chosen multicast into *p, if there is one
 * (mc counts its expected recipients: so_expected). */
bool rc_mc__scenario_chosen(const rc_mc *mc, uint32_t *p);

#endif
