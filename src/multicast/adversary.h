/* adversary: members who are online but do not do their part.
 *
 * The paper's fault model is members that are offline.  Here a fraction of
 * the users misbehave while online: round(fraction x users) of them, drawn
 * once per job by a partial Fisher-Yates shuffle on a stream of their own
 * (stream 40, so choosing them shifts no other draw of the job).  The rule
 * applies to what a member sends on someone else's behalf — payload copies it
 * forwards (including copies of a role reassigned to it), repairs it pushes
 * for anti-entropy, and the ACKs that follow a forward — never to its own
 * multicasts: as a source every member is honest.  Which of these a message
 * is, its kind says (rc_msg_kind.adv, multicast/msg.h).  The kinds of member:
 *
 *   drop      receives and delivers to itself, forwards nothing, ACKs nothing;
 *   ack-drop  forwards nothing but ACKs as if it had (the worst case for
 *             RC-FT, which trusts ACKs);
 *   delay     handles every copy `delay` late: its forwards, ACKs and repairs
 *             enter its send queue that much later (lifted to the lattice).
 *
 * Digests (anti-entropy requests) always pass: a misbehaving member still
 * wants the messages it lacks.  The layer that sends (mc) asks rc_adv_verdict
 * for every message and applies the answer; it brackets each delivery to a
 * strategy with rc_adv_receive_begin/end so that an ACK can be told apart as
 * faked (an ack-drop member withheld forwards of the same copy).
 *
 * Memory: rc_adv owns its member bitset.  A NULL rc_adv (kind none) is valid
 * everywhere and means "everyone is honest".
 */
#ifndef RCSIM_MULTICAST_ADVERSARY_H
#define RCSIM_MULTICAST_ADVERSARY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sim.h"
#include "multicast/msg.h"

typedef struct rc_adv rc_adv;

/* The registry's enum "none|drop|ack-drop|delay" in this order. */
typedef enum { RC_ADV_NONE = 0, RC_ADV_DROP = 1, RC_ADV_ACK_DROP = 2, RC_ADV_DELAY = 3 } rc_adv_kind;

typedef struct rc_adv_cfg {
    rc_adv_kind kind;
    double fraction;  /* of the users, in [0, 1] */
    rc_time delay;    /* delay kind: extra delay in microseconds, already on the lattice */
    uint64_t seed;    /* the job seed */
    uint32_t users;
} rc_adv_cfg;

/* What the adversaries withheld; mc copies it into the job's counters. */
typedef struct rc_adv_counters {
    uint64_t members;       /* misbehaving users */
    uint64_t withheld;      /* payload copies and repairs not forwarded (drop, ack-drop) */
    uint64_t acks_withheld; /* ACKs a drop member did not send */
    uint64_t acks_faked;    /* ACKs an ack-drop member sent for a copy it did not forward */
    uint64_t delayed;       /* forwards, ACKs and repairs held back by `delay` */
} rc_adv_counters;

typedef enum {
    RC_ADV_PASS = 0,     /* send now */
    RC_ADV_WITHHOLD = 1, /* do not send at all */
    RC_ADV_HOLD = 2,     /* send after rc_adv_delay */
} rc_adv_verdict;

/* NULL when cfg->kind is none (nobody misbehaves). */
rc_adv *rc_adv_new(const rc_adv_cfg *cfg);
void rc_adv_free(rc_adv *a);
bool rc_adv_is(const rc_adv *a, uint32_t user);
rc_time rc_adv_delay(const rc_adv *a);
/* `user` is about to handle a message it pulled / has handled it. */
void rc_adv_receive_begin(rc_adv *a, uint32_t user);
void rc_adv_receive_end(rc_adv *a);
/* What to do with m, which `from` is about to send and whose kind says it is
 * `role` (multicast/msg.h); counts what is withheld. */
rc_adv_verdict rc_adv_verdict_for(rc_adv *a, uint32_t from, const rc_msg *m, rc_msg_adv role);
void rc_adv_counts(const rc_adv *a, rc_adv_counters *out);

#endif
