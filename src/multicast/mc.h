/* mc: the multicast layer — groups, payloads, message bodies and the latency
 * metric — between the Loopix net (below) and a strategy (plugged in by name).
 *
 * Strategies see only this API and the rc_strategy_ops vtable: they send
 * typed messages (rc_msg) from a user, receive them when a user pulls,
 * learn when a message left its sender, set timers, and hand payloads to the
 * application (rc_mc_app_deliver records the latency, docs/spec.md §5).
 * Memory: mc owns groups, payloads and bodies; rc_mc_free releases all.
 */
#ifndef RCSIM_MULTICAST_MC_H
#define RCSIM_MULTICAST_MC_H

#include <gsl/gsl_rng.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/sim.h"
#include "exp/job.h"
#include "exp/result.h"
#include "multicast/strategy_name.h"

typedef struct rc_mc rc_mc;
typedef struct rc_net rc_net;

typedef enum { RC_MSG_PAYLOAD = 0, RC_MSG_ACK = 1, RC_MSG_DIGEST = 2, RC_MSG_REPAIR = 3 } rc_msg_type;

typedef struct rc_msg {
    uint8_t type;      /* rc_msg_type */
    uint8_t arm;       /* RC-FT: arm timeouts when this copy leaves the source */
    uint16_t extra;    /* strategy-defined */
    uint32_t group, source, nonce, role, sender, recipient;
    uint32_t payload;  /* payload id (rc_mc payload table) */
    uint32_t aux;      /* strategy-defined */
    rc_time t;         /* when the message was made (anti-entropy digests) */
} rc_msg;

typedef struct rc_strategy_ops {
    const char *name;
    void *(*create)(rc_mc *mc, const rc_strategy_spec *spec, const rc_job *job);
    void (*destroy)(void *self);
    /* The app asks `source` to multicast `payload` in `group`. */
    void (*multicast)(void *self, uint32_t group, uint32_t source, uint32_t payload);
    /* `user` pulled `m`; online_label as docs/spec.md §1.7. */
    void (*receive)(void *self, uint32_t user, const rc_msg *m, bool online_label);
    /* `m` left `user` in a bundle at time t (optional).  t may be later than
     * rc_mc_now: the net processes a busy client's queue ahead of the clock. */
    void (*sent)(void *self, uint32_t user, const rc_msg *m, rc_time t);
    /* A timer set with rc_mc_timer fired (optional). */
    void (*timer)(void *self, uint32_t obj, uint64_t arg);
    /* `user` went on- or offline (optional). */
    void (*online)(void *self, uint32_t user, bool online);
    /* End of run: add strategy counters (optional). */
    void (*finish)(void *self, rc_counters *c);
} rc_strategy_ops;

extern const rc_strategy_ops rc_unicast_ops;
extern const rc_strategy_ops rc_rollercoaster_ops;

/* Group membership. */
uint32_t rc_mc_groups(const rc_mc *mc);
uint32_t rc_mc_group_size(const rc_mc *mc, uint32_t g);
const uint32_t *rc_mc_group_members(const rc_mc *mc, uint32_t g); /* group order */
int32_t rc_mc_group_pos(const rc_mc *mc, uint32_t g, uint32_t user); /* -1 if not a member */

/* Time, availability, randomness, environment. */
rc_time rc_mc_now(const rc_mc *mc);
rc_time rc_mc_tick(const rc_mc *mc);
bool rc_mc_online(const rc_mc *mc, uint32_t user);
gsl_rng *rc_mc_rng(rc_mc *mc); /* the strategy's own stream */
uint64_t rc_mc_seed(const rc_mc *mc);
const rc_job *rc_mc_job(const rc_mc *mc);
rc_counters *rc_mc_counters(rc_mc *mc);
double rc_mc_mean_hop_delay_s(const rc_mc *mc);
double rc_mc_payload_rate(const rc_mc *mc);

/* Sends m from user `from` (m->recipient must be set). */
void rc_mc_send(rc_mc *mc, uint32_t from, const rc_msg *m);
/* Timer for the strategy at time t (class: strategy timers). */
void rc_mc_timer(rc_mc *mc, rc_time t, uint32_t obj, uint64_t arg);

/* Payloads: creation by the app, and delivery to a recipient's app. */
uint32_t rc_mc_payload_new(rc_mc *mc, uint32_t group, uint32_t source);
uint32_t rc_mc_payload_group(const rc_mc *mc, uint32_t payload);
uint32_t rc_mc_payload_source(const rc_mc *mc, uint32_t payload);
rc_time rc_mc_payload_created(const rc_mc *mc, uint32_t payload);
/* Records a first delivery (latency sample) or a duplicate.  Returns true
 * when this was the first copy for (user, payload). */
bool rc_mc_app_deliver(rc_mc *mc, uint32_t user, uint32_t payload, bool online_label);
bool rc_mc_app_has(const rc_mc *mc, uint32_t user, uint32_t payload);
uint32_t rc_mc_payloads(const rc_mc *mc);
uint32_t rc_mc_users(const rc_mc *mc);
/* Payload ids of a group in creation order. */
const uint32_t *rc_mc_group_payloads(const rc_mc *mc, uint32_t g, uint32_t *n);
/* Anti-entropy only: when `user` got payload p (seconds), or -1. */
double rc_mc_delivered_at(const rc_mc *mc, uint32_t user, uint32_t p);

/* Lifecycle (used by exp/run.c).  mc builds the net below it. */
#include "trace/avail.h"
rc_mc *rc_mc_new(rc_sim *sim, const rc_job *job, const rc_trace *trace, rc_err *err);
void rc_mc_start(rc_mc *mc);
void rc_mc_free(rc_mc *mc);
/* Asks the strategy to multicast a new payload (the app calls this). */
void rc_mc_multicast(rc_mc *mc, uint32_t group, uint32_t source, uint32_t payload);
/* End of run: fills latency samples, counters and the undelivered list. */
void rc_mc_collect(rc_mc *mc, rc_result *out);
rc_net *rc_mc_net(rc_mc *mc);

#endif
