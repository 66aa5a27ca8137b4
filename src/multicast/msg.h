/* msg: the multicast layer's message, what strategies and services send and
 * receive (rc_mc_send, the receive ops; multicast/mc.h).  In the net it is an
 * opaque handle (multicast/bodies.h); the fields are for the strategy.
 */
#ifndef RCSIM_MULTICAST_MSG_H
#define RCSIM_MULTICAST_MSG_H

#include <stdint.h>

#include "core/sim.h"

typedef enum { RC_MSG_PAYLOAD = 0, RC_MSG_ACK = 1, RC_MSG_DIGEST = 2, RC_MSG_REPAIR = 3 } rc_msg_type;
#define RC_MSG_TYPES 4

typedef struct rc_msg {
    uint8_t type;      /* rc_msg_type */
    uint8_t arm;       /* RC-FT: arm timeouts when this copy leaves the source */
    uint16_t extra;    /* strategy-defined */
    uint32_t group, source, nonce, role, sender, recipient;
    uint32_t payload;  /* payload id (rc_mc payload table) */
    uint32_t aux;      /* strategy-defined */
    rc_time t;         /* when the message was made (anti-entropy digests) */
} rc_msg;

#endif
