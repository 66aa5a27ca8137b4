/* events: the multicast layer's event kinds (core/sim.h), numbered on from the
 * net's (loopix/net.h; the anonymity layer between them has none); the layers
 * above number on from RC_MC_KINDS_END. */
#ifndef RCSIM_MULTICAST_EVENTS_H
#define RCSIM_MULTICAST_EVENTS_H

#include "core/sim.h"
#include "loopix/net.h"

enum {
    RC_EV_MC_TIMER = RC_NET_KINDS_END, /* a strategy's timer (send.c, hooks.c) */
    RC_EV_MC_MEMBERSHIP,  /* a group's next join or leave (groups.c) */
    RC_EV_MC_ADV_RELEASE, /* the adversary releases a held message (send.c) */
    RC_EV_AE_ROUND,       /* an anti-entropy round of one member (antientropy.c) */
    RC_MC_KINDS_END
};
_Static_assert(RC_MC_KINDS_END <= RC_SIM_MAX_KINDS, "the multicast event kinds fit the engine");

#endif
