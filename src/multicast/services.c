/* The services that run beside every strategy (rc_mc_service_ops, multicast/mc.h). */
#include "multicast/antientropy.h"
#include "multicast/mc.h"

const rc_mc_service_ops *const rc_mc_services[] = {&rc_antientropy_ops, NULL};
