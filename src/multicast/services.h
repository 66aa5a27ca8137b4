/* services: what runs beside the strategy, whatever the strategy (today
 * anti-entropy, multicast/antientropy.h).  A service declares its own message
 * kinds (multicast/msg.h),
 * schedules its own events and reaches the groups through the API of
 * multicast/mc.h, like a strategy.  mc creates, starts, feeds and frees every
 * service of rc_mc_services through these ops and never calls one by name;
 * services.c holds the table and that dispatch.
 */
#ifndef RCSIM_MULTICAST_SERVICES_H
#define RCSIM_MULTICAST_SERVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sim.h"
#include "multicast/msg.h"

typedef struct rc_mc rc_mc;
typedef struct rc_mc_cfg rc_mc_cfg;

typedef struct rc_mc_service_ops {
    const char *name;
    /* NULL when `cfg` does not enable the service; `cfg` outlives it. */
    void *(*create)(rc_mc *mc, rc_sim *sim, const rc_mc_cfg *cfg);
    void (*start)(void *self); /* after the network has started */
    void (*destroy)(void *self);
    /* `user` pulled `m`, a message of one of the service's kinds. */
    void (*receive)(void *self, uint32_t user, const rc_msg *m, bool online_label);
    /* Its message kinds, numbered first_type, first_type + 1, ... (at or above
     * RC_MSG_SERVICE_FIRST; two services' numbers must not overlap). */
    const rc_msg_kind *msg_kinds;
    size_t n_msg_kinds;
    unsigned first_type;
    bool delivery_times; /* it reads rc_mc_delivered_at, so mc keeps the times */
} rc_mc_service_ops;

/* The services, NULL-terminated, in the order they are created. */
extern const rc_mc_service_ops *const rc_mc_services[];

/* Services beside the strategy one job can enable. */
#define RC_MC_MAX_SERVICES 4

/* The services one job runs (in rc_mc). */
typedef struct rc_mc_services_state {
    const rc_mc_service_ops *ops[RC_MC_MAX_SERVICES];
    void *self[RC_MC_MAX_SERVICES];
    int n;
    bool keep_dtime; /* a service reads rc_mc_delivered_at */
} rc_mc_services_state;

/* Creates the services cfg enables, in table order, and declares their
 * message kinds in `kinds`. */
void rc_mc_services_create(rc_mc_services_state *s, rc_msg_kinds *kinds, rc_mc *mc, rc_sim *sim,
                           const rc_mc_cfg *cfg);
void rc_mc_services_start(rc_mc_services_state *s);
void rc_mc_services_destroy(rc_mc_services_state *s);
/* Hands m to the service `i` (rc_msg_kinds.service). */
static inline void rc_mc_services_receive(rc_mc_services_state *s, int i, uint32_t user,
                                          const rc_msg *m, bool online_label)
{
    s->ops[i]->receive(s->self[i], user, m, online_label);
}

#endif
