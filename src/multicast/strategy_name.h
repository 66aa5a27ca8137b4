/* strategy_name: parses the strategy names users type (issue 3 item 5).
 *
 *   unicast                      sequential unicast (docs/spec.md §2.2)
 *   rc-kK-pP                     Rollercoaster, branching K, parallelism P, timeouts off
 *   rc-kK-pP-ft                  ... fault tolerant, timeout multiplier 1.0
 *   rc-kK-pP-ftM                 ... multiplier M (e.g. -ft1.5)
 *   ...-dropoffline              recipients that got a copy "offline" neither forward nor ACK
 *
 * The reference's long names are accepted too: rollercoaster-kK-pP[-notimeout|
 * -timeoutNNx][-dropoffline] (timeoutNNx = multiplier NN/10).
 */
#ifndef RCSIM_MULTICAST_STRATEGY_NAME_H
#define RCSIM_MULTICAST_STRATEGY_NAME_H

#include <stdbool.h>

#include "core/err.h"

typedef enum { RC_STRAT_UNICAST = 0, RC_STRAT_ROLLERCOASTER = 1 } rc_strategy_kind;

typedef struct rc_strategy_spec {
    rc_strategy_kind kind;
    int k;              /* branching factor (RC) */
    int p;              /* parallelism: sub-messages per packet (1 for unicast) */
    bool timeouts;      /* RC-FT */
    double multiplier;  /* timeout multiplier */
    bool drop_offline;
} rc_strategy_spec;

int rc_strategy_parse(const char *name, rc_strategy_spec *out, rc_err *err);

/* Canonical short name (rc-k2-p2-ft-dropoffline) into buf. */
void rc_strategy_format(const rc_strategy_spec *s, char *buf, unsigned n);

#endif
