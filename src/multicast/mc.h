/* mc: the multicast layer — groups, payloads, message bodies and the latency
 * metric — between the Loopix net (below) and a strategy (plugged in by name).
 *
 * Strategies see only this API and the rc_strategy_ops vtable: they send
 * typed messages (rc_msg) from a user, receive them when a user pulls,
 * learn when a message left its sender, set timers, and hand payloads to the
 * application (rc_mc_app_deliver records the latency, docs/spec.md §5).
 * Memory: mc owns groups, payloads and bodies; rc_mc_free releases all.
 * The message is multicast/msg.h; the services beside a strategy are
 * multicast/services.h; how the layer's files divide the work,
 * multicast/mc_internal.h.
 */
#ifndef RCSIM_MULTICAST_MC_H
#define RCSIM_MULTICAST_MC_H

#include <gsl/gsl_rng.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/sim.h"
#include "multicast/adversary.h"
#include "multicast/msg.h"
#include "multicast/strategy_table.h"
#include "trace/avail.h"

typedef struct rc_mc rc_mc;
typedef struct rc_net rc_net;
typedef struct rc_net_cfg rc_net_cfg;

/* What the multicast layer (mc, the strategies, anti-entropy) reads of a job;
 * exp/ fills it.  Quirk switches are resolved: 0 or 1. */
enum { RC_MC_OFFLINE_MAX = 64 }; /* positions in offline_members */

typedef struct rc_mc_cfg {
    uint64_t seed;
    int users, groups, group_size; /* group_size resolved (never 0) */
    char strategy[64];             /* e.g. "unicast", "rc-k2-p2-ft" (multicast/strategy_table.h) */
    double rc_base_delay_factor;   /* docs/spec.md §2.4: factor 2 in t_msg */
    bool seed0_groups;  /* §9.1.7: the reference's groups (Python Random(0).sample) */
    bool arm_once;      /* §9.1.5: RC-FT arms timeouts only for the source's first sends */
    bool acks_always;   /* §9.1.6: ACKs are sent even when timeouts are off */
    bool nonce0_plain;  /* §9.1.8: a source's first multicast (nonce 0) is not shuffled */
    bool nonce_perm;    /* §2.3.2: receivers shuffled by CPython's Random(nonce) alone */
    /* scenario hooks used by tests and studies (multicast/scenario.h), read
     * from the job's offline_members and source_offline by exp/ */
    uint32_t n_offline;
    uint32_t offline_members[RC_MC_OFFLINE_MAX]; /* group-0 positions forced offline all run */
    bool source_offline; /* the sender of the first multicast at or after AT goes offline */
    double source_offline_at_s, source_offline_for_s; /* AT, and for how long */
    /* anti-entropy reconciliation (antientropy.h): mean time between a member's rounds
     * (0 disables), payloads pushed per repair, span a digest covers (s); the job's
     * parameters gossip_interval, gossip_push_max and gossip_window */
    double ae_interval_s;
    int ae_push_max;
    double ae_window_s;
    double membership_rate; /* join/leave events per second per group; 0: static groups */
    /* misbehaving members (adversary.h): kind, fraction of the users, delay (s) */
    rc_adv_kind adversary;
    double adversary_fraction, adversary_delay_s;
    /* population mode (poptab.h): N = users; 0 = the paper's identical groups */
    int population;
    char group_size_dist[64];
    bool record_deliveries; /* keep one rc_mc_delivery per first delivery (store_raw) */
} rc_mc_cfg;

/* What the multicast layer counts (mc, strategies and anti-entropy add to
 * it through rc_mc_counts): the rows of multicast/counters.def counted by MC;
 * exp/result copies it into the job's result under the same names. */
typedef struct rc_mc_counters {
#define RC_COUNTER(name, from, type, units, json, json_key) RC_MC_COUNTER_##from(name)
#define RC_MC_COUNTER_MC(name) uint64_t name;
#define RC_MC_COUNTER_ENGINE(name)
#define RC_MC_COUNTER_NET(name)
#define RC_MC_COUNTER_RUN(name)
#define RC_MC_COUNTER_TRAFFIC(name)
#define RC_MC_COUNTER_ANON(name)
#include "multicast/counters.def"
#undef RC_MC_COUNTER_MC
#undef RC_MC_COUNTER_ENGINE
#undef RC_MC_COUNTER_NET
#undef RC_MC_COUNTER_RUN
#undef RC_MC_COUNTER_TRAFFIC
#undef RC_MC_COUNTER_ANON
} rc_mc_counters;

/* A strategy's behaviour; its family's row in the strategy table
 * (multicast/strategy_table.h) points to it. */
struct rc_strategy_ops {
    const char *name; /* the family's key (rc_strategy_family.family) */
    void *(*create)(rc_mc *mc, const rc_strategy_spec *spec, const rc_mc_cfg *cfg);
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
    void (*finish)(void *self, rc_mc_counters *c);
    /* `m`, which `user` sent to its own provider (rc_mc_send_provider),
     * reached the provider at rc_mc_now (optional; the provider acts for the
     * strategy, e.g. with rc_mc_provider_send). */
    void (*relay)(void *self, uint32_t user, const rc_msg *m);
};

/* Group membership. */
uint32_t rc_mc_groups(const rc_mc *mc);
uint32_t rc_mc_group_size(const rc_mc *mc, uint32_t g);
const uint32_t *rc_mc_group_members(const rc_mc *mc, uint32_t g); /* group order */
int32_t rc_mc_group_pos(const rc_mc *mc, uint32_t g, uint32_t user); /* -1 if not a member */
/* Population mode (multicast/poptab.h): membership is static and
 * (group, member) pairs are numbered 0 .. rc_mc_slots-1 by rc_mc_slot, so
 * per-member state is sized by the memberships, not groups x users.  In the
 * paper's mode the slot of (g, u) is g x users + u. */
bool rc_mc_population(const rc_mc *mc);
/* The group of the message behind a body handle the net carries. */
uint32_t rc_mc_body_group(const rc_mc *mc, uint32_t body);
/* The user that sent the message behind a body handle (UINT32_MAX for a
 * population-mode copy, whose body names only its payload). */
uint32_t rc_mc_body_sender(const rc_mc *mc, uint32_t body);
size_t rc_mc_slots(const rc_mc *mc);
size_t rc_mc_slot(const rc_mc *mc, uint32_t g, uint32_t user);
/* In population mode a payload's record is reused once nothing refers to it:
 * mc counts the message bodies in flight; a strategy that keeps a payload id
 * beyond its messages (a session) holds it.  No-ops otherwise. */
void rc_mc_payload_hold(rc_mc *mc, uint32_t p);
void rc_mc_payload_release(rc_mc *mc, uint32_t p);

/* Time, availability, randomness, environment. */
rc_time rc_mc_now(const rc_mc *mc);
rc_time rc_mc_tick(const rc_mc *mc);
bool rc_mc_online(const rc_mc *mc, uint32_t user);
gsl_rng *rc_mc_rng(rc_mc *mc); /* the strategy's own stream */
uint64_t rc_mc_seed(const rc_mc *mc);
rc_mc_counters *rc_mc_counts(rc_mc *mc);
double rc_mc_mean_hop_delay_s(const rc_mc *mc);
double rc_mc_payload_rate(const rc_mc *mc);
uint32_t rc_mc_hops(const rc_mc *mc); /* mix layers + 1 (docs/spec.md §2.4) */
double rc_mc_path_link_latency_s(const rc_mc *mc); /* rc_net_path_link_latency_s */

/* Sends m from user `from` (m->recipient must be set).  False when it will
 * never leave (a misbehaving member withholds it, multicast/adversary.h). */
bool rc_mc_send(rc_mc *mc, uint32_t from, const rc_msg *m);
/* Sends m from user `from` to its own provider, through its send queue and
 * payload stream like any message; the strategy's relay op gets it there.
 * False as for rc_mc_send. */
bool rc_mc_send_provider(rc_mc *mc, uint32_t from, const rc_msg *m);
/* The provider of `user` sends m (to m->recipient) into the mixes now, as a
 * normal Loopix packet (at most provider_rate a second, loopix/net.h). */
void rc_mc_provider_send(rc_mc *mc, uint32_t user, const rc_msg *m);
/* Timer for the strategy at time t (class: strategy timers). */
void rc_mc_timer(rc_mc *mc, rc_time t, uint32_t obj, uint64_t arg);
/* A timer set in two steps (core/sim.h rc_sim_reserve): reserve its place in
 * the order when it is armed, schedule it any time before it is due.  It
 * fires exactly where rc_mc_timer at reservation would have fired it.  False
 * when t is at or after the end of the run. */
uint64_t rc_mc_timer_reserve(rc_mc *mc);
bool rc_mc_timer_at(rc_mc *mc, rc_time t, uint64_t seq, uint32_t obj, uint64_t arg);

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

/* An observer of the layer above (the long-term adversary, anon/disclosure.h,
 * wired by exp/run.c): what it may see, each call optional.  `online`: a user
 * went on- or offline; `arrived`: a real sub-message, sent at `emitted`,
 * reached `user`'s postbox; `relay`: a message `user` sent to its own provider got there;
 * `multicast`: a payload of `group` from `source` enters the strategy now. */
typedef struct rc_mc_tap {
    void *ctx;
    void (*online)(void *ctx, uint32_t user, bool online, rc_time now);
    void (*arrived)(void *ctx, uint32_t user, uint32_t body, rc_time emitted, rc_time now);
    void (*relay)(void *ctx, uint32_t user, uint32_t body, rc_time now);
    void (*multicast)(void *ctx, uint32_t group, uint32_t source, rc_time now);
} rc_mc_tap;
/* Before rc_mc_start. */
void rc_mc_set_tap(rc_mc *mc, const rc_mc_tap *tap);

/* Lifecycle (used by exp/run.c).  mc builds the net below it from net_cfg;
 * mc keeps a copy of cfg, so the caller need not keep either.  Returns NULL
 * with err set on a bad strategy name or size distribution. */
rc_mc *rc_mc_new(rc_sim *sim, const rc_mc_cfg *cfg, const rc_net_cfg *net_cfg,
                 const rc_trace *trace, rc_err *err);
void rc_mc_start(rc_mc *mc);
void rc_mc_free(rc_mc *mc);
/* Asks the strategy to multicast a new payload (the app calls this). */
void rc_mc_multicast(rc_mc *mc, uint32_t group, uint32_t source, uint32_t payload);

/* End of run: lets the strategy add its counters, counts the expected
 * (recipient, payload) pairs without a first copy (the data are
 * right-censored there), calling `missed` (may be NULL) for each in payload
 * order, and checks the delivery and message accounting.  Call once. */
typedef void (*rc_mc_missed_fn)(void *ctx, uint32_t group, uint32_t payload, uint32_t recipient);
void rc_mc_finish(rc_mc *mc, rc_mc_missed_fn missed, void *ctx);
/* Latencies (s) of first deliveries in delivery order: every one, or the
 * ONLINE-labelled subset (docs/spec.md §5).  The array stays mc's; the caller
 * may reorder it (exp/result sorts it for the quantiles). */
double *rc_mc_latencies(rc_mc *mc, bool online_only, size_t *n);
/* Population mode: the tables that hold the latencies (as histograms) and the
 * per-user load instead (multicast/poptab.h); NULL otherwise. */
typedef struct rc_poptab rc_poptab;
const rc_poptab *rc_mc_poptab(const rc_mc *mc);
/* With cfg.record_deliveries: every first delivery, online-labelled or not, in
 * delivery order (the array stays mc's). */
typedef struct rc_mc_delivery {
    uint32_t payload, group, source, recipient;
    rc_time created, delivered;
    uint32_t online; /* 1 if it counted as delivered online */
} rc_mc_delivery;
const rc_mc_delivery *rc_mc_deliveries(const rc_mc *mc, size_t *n);
rc_net *rc_mc_net(rc_mc *mc);

#endif
