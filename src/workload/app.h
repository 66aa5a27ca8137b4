/* app: the interactive group application of the paper (docs/spec.md §3).
 *
 * One app per group fires group events at a Poisson rate (per group, not per
 * member); at each event it picks a sender among the members online at that
 * moment (shuffled, then a weighted choice: heavy users — the first
 * heavy_fraction of the group order — weigh heavy_weight, others 1), and the
 * sender starts `burst` multicasts back to back, each a new payload created
 * now.  On the lattice the event stream is a Bernoulli trial per tick.
 */
#ifndef RCSIM_WORKLOAD_APP_H
#define RCSIM_WORKLOAD_APP_H

#include "core/sim.h"
#include "multicast/events.h"
#include "multicast/mc.h"

typedef struct rc_app rc_app;

/* The workload's event kind (core/sim.h), numbered on from the multicast
 * layer's: an app's next group event. */
enum { RC_EV_APP = RC_MC_KINDS_END, RC_APP_KINDS_END };
_Static_assert(RC_APP_KINDS_END <= RC_SIM_MAX_KINDS, "the workload's event kinds fit the engine");

/* What the application reads of a job (exp/ fills it). */
typedef struct rc_app_cfg {
    uint64_t seed;
    double app_rate;       /* group events per second, per group (<= 0: none) */
    int burst;             /* multicasts per app event */
    double heavy_fraction; /* first floor(f*|G|) members in group order are heavy */
    double heavy_weight;   /* their weight in the sender choice */
} rc_app_cfg;

/* cfg is copied. */
rc_app *rc_app_new(rc_sim *sim, rc_mc *mc, const rc_app_cfg *cfg);
void rc_app_start(rc_app *a);
void rc_app_free(rc_app *a);

#endif
