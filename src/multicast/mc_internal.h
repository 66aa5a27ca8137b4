/* mc_internal: the state of one multicast layer (struct rc_mc) and what the
 * files implementing multicast/mc.h share.  Nothing outside those files
 * includes it; strategies and services see only mc.h.
 *
 * Each part of struct rc_mc is written by the one file named beside it; the
 * others only read it:
 *   mc.c        lifecycle (new, start, finish, free), environment accessors
 *   groups.c    group membership: the draw, membership changes, accessors
 *   ledger.c    payloads and first deliveries: expected and delivered sets,
 *               latency samples, delivery records, end-of-run accounting
 *   bodies.c    message bodies and their handles in the net (bodies.h)
 *   hooks.c     the net's hooks: a message left, was pulled, reached a
 *               provider; a user went on- or offline -> strategy or service
 *   send.c      sending wrappers, strategy timers, a delaying member's release
 *   scenario.c  the scenario hooks offline_members and source_offline
 *   services.c  the services beside the strategy: table, creation, dispatch
 * Memory: rc_mc owns every part; rc_mc_free releases them through each
 * file's *_free.
 */
#ifndef RCSIM_MULTICAST_MC_INTERNAL_H
#define RCSIM_MULTICAST_MC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/vec.h"
#include "loopix/net.h"
#include "multicast/bodies.h"
#include "multicast/events.h"
#include "multicast/mc.h"
#include "multicast/scenario.h"
#include "multicast/services.h"

/* Random streams of the layer (core/rng.h: seeded from (job seed, stream)). */
enum { RC_MC_STREAM_GROUPS = 10, RC_MC_STREAM_STRATEGY = 11, RC_MC_STREAM_MEMBERS = 12 };

typedef struct rc_mc_payload {
    uint32_t group, source;
    rc_time created;
} rc_mc_payload;

RC_VEC_DEFINE(rc_mc_dsamples, double, 4096)
/* record_deliveries (store_raw): the first deliveries, in delivery order. */
RC_VEC_DEFINE(rc_mc_dlvvec, rc_mc_delivery, 4096)
RC_VEC_DEFINE(rc_mc_u32vec, uint32_t, 256)

/* ledger.c: a payload's expected recipients are exp_ids[off .. off + n) and
 * its unexpected first copies the list from extras[extra - 1] (0: none). */
typedef struct rc_mc_precord {
    uint64_t off;
    uint32_t n, extra;
} rc_mc_precord;
typedef struct rc_mc_extra {
    uint32_t user, next; /* next: index + 1 of the payload's next one, or 0 */
} rc_mc_extra;
RC_VEC_DEFINE(rc_mc_extravec, rc_mc_extra, 64)

typedef struct rc_poptab rc_poptab;
typedef struct rc_adv rc_adv;

struct rc_mc {
    /* mc.c */
    rc_sim *sim;
    rc_mc_cfg cfg;
    rc_net *net;
    rc_mc_counters ctr; /* every file adds to its own rows */
    uint32_t n_users, n_groups;
    const rc_strategy_ops *ops;
    void *strategy;
    gsl_rng *rng_strategy;
    rc_strategy_spec spec;
    rc_mc_tap tap; /* an observer above (rc_mc_set_tap); its functions NULL when none */
    /* groups.c.  Population mode (multicast/poptab.h): groups, payloads,
     * latencies and load live in pt instead of the dense tables (members,
     * pos, the ledger's sets and samples), which stay NULL/empty; size is
     * filled in both modes. */
    uint32_t *members;     /* n_groups x n_users (capacity), group order */
    uint32_t *size;        /* current size of each group */
    int32_t *pos;          /* n_groups x users: position or -1 */
    gsl_rng *rng_members;
    rc_poptab *pt;
    /* ledger.c: per payload, its expected recipients (the members when it
     * was created, but the source) as a run of user ids in ascending order in
     * exp_ids, with one bit each in got (set when the first copy arrives);
     * first copies to anyone else go to a per-payload list in extras.  So a
     * payload costs its group's size, not the users (a day at 10^4 users was
     * two bitsets of 1,250 bytes a multicast: docs/performance.md). */
    rc_mc_payload *payloads;
    rc_mc_precord *prec;   /* per payload: where its run and its extras are */
    rc_mc_u32vec exp_ids;  /* the runs, payload after payload */
    uint8_t *got;          /* one bit per exp_ids entry */
    size_t got_cap;        /* bits allocated in got */
    rc_mc_extravec extras; /* unexpected first copies: (user, next) lists */
    float *dtime;          /* a service reads delivery times: payload x users (s), or -1 */
    uint32_t n_payloads, cap_payloads;
    rc_mc_u32vec *group_payloads; /* payload ids per group, creation order */
    rc_mc_dsamples lat_all, lat_online;
    rc_mc_dlvvec raw;
    uint64_t extra_deliveries; /* first copies to users that were not expected */
    /* bodies.c; the kinds of message (the strategy's and the services'),
     * declared by mc.c and services.c */
    rc_bodies bodies;
    rc_msg_kinds kinds;
    /* services.c */
    rc_mc_services_state svc;
    /* send.c: misbehaving members; NULL when everyone is honest */
    rc_adv *adv;
    /* scenario.c */
    rc_mc_scenario so;
};

/* groups.c: draws the groups (both modes) and, in population mode, the
 * tables in pt; RC_EXIT_USAGE with err set on a bad size distribution. */
int rc_mc__groups_new(rc_mc *mc, rc_err *err);
/* Marks the members the net's active clients and registers the membership
 * handler (before the strategy is created). */
void rc_mc__groups_attach(rc_mc *mc);
/* Schedules the first membership change of every group (rc_mc_start). */
void rc_mc__groups_start(rc_mc *mc);
void rc_mc__groups_free(rc_mc *mc);

/* ledger.c */
void rc_mc__ledger_init(rc_mc *mc);
uint64_t rc_mc__ledger_undelivered(rc_mc *mc, rc_mc_missed_fn missed, void *ctx);
/* Expected recipients of payload p (dense mode). */
uint64_t rc_mc__ledger_expected(const rc_mc *mc, uint32_t p);
void rc_mc__ledger_free(rc_mc *mc);

/* hooks.c: the net's hooks into this mc. */
rc_net_hooks rc_mc__net_hooks(rc_mc *mc);
/* Registers the strategy-timer handler. */
void rc_mc__hooks_attach(rc_mc *mc);

/* send.c: creates the misbehaving members (cfg.adversary) once the net is up. */
void rc_mc__adversaries_new(rc_mc *mc);

#endif
