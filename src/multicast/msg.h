/* msg: the multicast layer's message, what strategies and services send and
 * receive (rc_mc_send, the receive ops; multicast/mc.h), and the kinds of
 * message they declare.  In the net a message is an opaque handle
 * (multicast/bodies.h); the fields are for its owner.
 *
 * Message kinds are declared, not listed here: a strategy family declares its
 * kinds in its row of the strategy table (rc_strategy_family.msg_kinds,
 * numbered 0, 1, ... in that order: rc_msg.type is the index), and a service
 * its kinds in its ops (rc_mc_service_ops, numbered from its first_type, at
 * or above RC_MSG_SERVICE_FIRST).  mc reads from the kind what to count when
 * the message leaves, what a misbehaving member does with it
 * (multicast/adversary.h) and whether it refers to a payload, and hands a
 * pulled message to the kind's owner.
 */
#ifndef RCSIM_MULTICAST_MSG_H
#define RCSIM_MULTICAST_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sim.h"

typedef struct rc_msg {
    uint8_t type;      /* the owner's kind: index into its msg_kinds (msg.h above) */
    uint8_t arm;       /* RC-FT: arm timeouts when this copy leaves the source */
    uint16_t extra;    /* strategy-defined */
    uint32_t group, source, nonce, role, sender, recipient;
    uint32_t payload;  /* payload id (rc_mc payload table) */
    uint32_t aux;      /* strategy-defined */
    rc_time t;         /* when the message was made (anti-entropy digests) */
} rc_msg;

/* The counter a message of the kind adds to when it leaves its sender
 * (multicast/counters.def). */
typedef enum {
    RC_MSG_COUNT_PAYLOAD, /* payload_packets: a copy of a payload */
    RC_MSG_COUNT_ACK,     /* ack_packets */
    RC_MSG_COUNT_REPAIR,  /* repair_packets: reconciliation (digests, repairs) */
} rc_msg_counter;

/* What a misbehaving member (multicast/adversary.h) does with it. */
typedef enum {
    RC_MSG_ADV_FORWARD, /* a copy of someone else's payload: withheld or delayed */
    RC_MSG_ADV_ACK,     /* an acknowledgement: withheld, faked or delayed */
    RC_MSG_ADV_PASS,    /* sent as it is */
} rc_msg_adv;

typedef struct rc_msg_kind {
    const char *name;       /* "payload", "ack": for help and checks */
    rc_msg_counter counter;
    rc_msg_adv adv;
    bool payload;           /* rc_msg.payload names a payload, which mc keeps while the
                               message travels (population mode) */
} rc_msg_kind;

/* Strategy kinds are 0 .. RC_MSG_SERVICE_FIRST - 1, service kinds above. */
enum { RC_MSG_SERVICE_FIRST = 128, RC_MSG_KINDS_MAX = 256 };

/* The kinds one job uses, by rc_msg.type, and who owns each (mc builds it). */
typedef struct rc_msg_kinds {
    const rc_msg_kind *of[RC_MSG_KINDS_MAX]; /* NULL: no such kind */
    int8_t service[RC_MSG_KINDS_MAX];        /* owning service's index, -1: the strategy */
} rc_msg_kinds;

void rc_msg_kinds_init(rc_msg_kinds *k);
/* Declares n kinds numbered from `first`, owned by `service` (-1: the
 * strategy); a number taken twice or past the range is a programmer error. */
void rc_msg_kinds_add(rc_msg_kinds *k, unsigned first, const rc_msg_kind *kinds, size_t n,
                      int service);
/* The kind of type t (declared: a message of an undeclared kind is a
 * programmer error, checked by rc_msg_kinds_check). */
static inline const rc_msg_kind *rc_msg_kind_of(const rc_msg_kinds *k, uint8_t t) { return k->of[t]; }
void rc_msg_kinds_check(const rc_msg_kinds *k, uint8_t t);

#endif
