/* antientropy: hash-based reconciliation between group members (issue 8; the
 * paper's future work).
 *
 * Every member, while online, reconciles with a random other member of each
 * of its groups at Poisson times (mean gossip_interval): it sends a DIGEST —
 * in a real system a hash of the set of message ids it holds for the group
 * (over the payloads of the last gossip_window), here the set itself, taken
 * when the digest is made.  The receiver compares: it pushes up to
 * gossip_push_max payloads the sender lacks (REPAIR messages), and if the
 * sender holds payloads it lacks, it answers once with its own digest so the
 * sender pushes those.  Digests and repairs are ordinary packets: they queue
 * in the send buffer and travel the mix network like any message.
 * Works beside any strategy; disabled when gossip_interval is 0.
 */
#ifndef RCSIM_MULTICAST_ANTIENTROPY_H
#define RCSIM_MULTICAST_ANTIENTROPY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sim.h"

typedef struct rc_mc rc_mc;
typedef struct rc_mc_cfg rc_mc_cfg;
typedef struct rc_msg rc_msg;
typedef struct rc_ae rc_ae;

/* Reads the gossip_* and membership_rate fields of cfg, which must outlive the
 * rc_ae.  Returns NULL when disabled; the API accepts NULL. */
rc_ae *rc_ae_new(rc_mc *mc, rc_sim *sim, const rc_mc_cfg *cfg);
void rc_ae_start(rc_ae *ae);
void rc_ae_free(rc_ae *ae);
bool rc_ae_enabled(const rc_ae *ae);
/* A DIGEST or REPAIR message was pulled by `user`. */
void rc_ae_receive(rc_ae *ae, uint32_t user, const rc_msg *m, bool online_label);

#endif
