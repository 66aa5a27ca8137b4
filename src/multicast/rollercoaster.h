/* rollercoaster: the Rollercoaster family's parameters, shared by its name
 * grammar (rollercoaster_name.c, the table row) and the strategy itself
 * (rollercoaster.c).  Nothing else includes it. */
#ifndef RCSIM_MULTICAST_ROLLERCOASTER_H
#define RCSIM_MULTICAST_ROLLERCOASTER_H

#include <stdbool.h>

#include "multicast/strategy_table.h"

/* Its kinds of message (rc_rollercoaster_family.msg_kinds, rc_msg.type). */
enum { RC_RCM_PAYLOAD, RC_RCM_ACK, RC_RCM_COUNT };

/* The family's parameters (its struct in rc_strategy_spec). */
typedef struct rc_rc_params {
    int k;              /* branching factor */
    int p;              /* parallelism: sub-messages per packet */
    bool timeouts;      /* RC-FT */
    double multiplier;  /* timeout multiplier */
    bool drop_offline;
} rc_rc_params;

void rc_rc_params_of(const rc_strategy_spec *s, rc_rc_params *out);

/* The strategy (rollercoaster.c), which the row (rollercoaster_name.c) points to. */
extern const rc_strategy_ops rc_rollercoaster_ops;

#endif
