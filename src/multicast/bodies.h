/* bodies: the message bodies of the multicast layer and their 32-bit handles
 * in the net (loopix/ carries opaque handles, loopix/net.h).
 *
 * A handle mostly indexes a copy of the rc_msg in a growable table whose free
 * slots form a list.  In population mode a payload copy that says nothing its
 * payload record and its recipient do not say -- unicast's copies: the
 * payload's group and source, sent by the source, role = the recipient's
 * position in the group, every other field 0 -- is sent as a compact handle
 * (of the strategy's first kind counted as a payload copy, compact_type)
 * instead, RC_BODY_COMPACT | payload id, with no record: its send and its pull
 * then touch no body, and no body is taken from or returned to the free list.
 * rc_bodies_msg rebuilds the identical rc_msg from it.  Not with an observer
 * on the wire, which tells messages apart by their handles, nor with a
 * strategy that watches its sends (the sent op reads the whole message, which
 * the sent hook cannot rebuild without the recipient): mc decides at start.
 *
 * In population mode every body of a message whose kind refers to a payload
 * (rc_msg_kind.payload) holds a
 * reference to its payload (multicast/poptab.h); mc drops it after the pull.
 * Memory: the table is the rc_bodies' own (rc_bodies_free).
 */
#ifndef RCSIM_MULTICAST_BODIES_H
#define RCSIM_MULTICAST_BODIES_H

#include <stdbool.h>
#include <stdint.h>

#include "multicast/msg.h"

typedef struct rc_poptab rc_poptab;

#define RC_BODY_COMPACT 0x80000000u

typedef struct rc_bodies {
    rc_msg *v;
    uint32_t n, cap, free_head; /* free_head: UINT32_MAX when no slot is free */
    rc_poptab *pt;              /* population mode, else NULL */
    const rc_msg_kinds *kinds;  /* which kinds refer to a payload */
    bool compact;               /* copies of kind compact_type may travel as compact handles */
    uint8_t compact_type;
} rc_bodies;

void rc_bodies_init(rc_bodies *b, rc_poptab *pt, const rc_msg_kinds *kinds);
void rc_bodies_free(rc_bodies *b);

static inline bool rc_bodies_is_compact(uint32_t body) { return (body & RC_BODY_COMPACT) != 0; }

/* A body record for m (never compact). */
uint32_t rc_bodies_new(rc_bodies *b, const rc_msg *m);
/* The handle of m for rc_net_send: compact when rc_bodies_msg rebuilds m exactly. */
uint32_t rc_bodies_for_send(rc_bodies *b, const rc_msg *m);
/* The record behind a handle that is not compact. */
static inline const rc_msg *rc_bodies_at(const rc_bodies *b, uint32_t body) { return &b->v[body]; }
/* The message behind a handle, for its recipient (rebuilt if compact). */
rc_msg rc_bodies_msg(const rc_bodies *b, uint32_t body, uint32_t recipient);
/* Returns the body's record to the free list (nothing for a compact handle). */
void rc_bodies_release(rc_bodies *b, uint32_t body);
/* The net's prefetch hint (rc_net_hooks.prefetch) for a handle. */
void rc_bodies_prefetch(const rc_bodies *b, uint32_t body, unsigned stage);

#endif
