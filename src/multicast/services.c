/* services: the table of services beside every strategy, and their creation
 * and lifecycle for one job (services.h). */
#include "multicast/services.h"

#include "core/log.h"
#include "multicast/antientropy.h"

const rc_mc_service_ops *const rc_mc_services[] = {&rc_antientropy_ops, NULL};

void rc_mc_services_create(rc_mc_services_state *s, rc_msg_kinds *kinds, rc_mc *mc, rc_sim *sim,
                           const rc_mc_cfg *cfg)
{
    for (const rc_mc_service_ops *const *o = rc_mc_services; *o != NULL; o++) {
        void *self = (*o)->create(mc, sim, cfg);
        if (self == NULL) continue;
        RC_ASSERTF(s->n < RC_MC_MAX_SERVICES, "more than %d services", RC_MC_MAX_SERVICES);
        rc_msg_kinds_add(kinds, (*o)->first_type, (*o)->msg_kinds, (*o)->n_msg_kinds, s->n);
        s->keep_dtime |= (*o)->delivery_times;
        s->ops[s->n] = *o;
        s->self[s->n++] = self;
    }
}

void rc_mc_services_start(rc_mc_services_state *s)
{
    for (int i = 0; i < s->n; i++) s->ops[i]->start(s->self[i]);
}

void rc_mc_services_destroy(rc_mc_services_state *s)
{
    for (int i = 0; i < s->n; i++) s->ops[i]->destroy(s->self[i]);
    s->n = 0;
}
