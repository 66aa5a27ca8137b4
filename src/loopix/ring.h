/* ring: a client's message queues (client.c): the real messages of its send
 * queue and of its bundling queue, each a ring buffer of qmsg.  Part of the
 * net's shared state (loopix/net_internal.h); nothing outside src/loopix/
 * includes it. */
#ifndef RCSIM_LOOPIX_RING_H
#define RCSIM_LOOPIX_RING_H

#include <stdint.h>
#include <stdlib.h>

#include "core/log.h"

/* A real message in a client's queues: its recipient (TO_PROVIDER: it ends
 * at the sender's own provider, rc_net_send_provider), the upper layer's body
 * handle, and in the bundling queue its position there (positions count from
 * wait_head, mod 2^32; unused in the send queue).  The queues hold the
 * message itself, not an index of a record elsewhere: draining a long send
 * queue then reads the queue in order and no record of its own (docs/performance.md). */
typedef struct qmsg {
    uint32_t recipient, body, pos;
} qmsg;

#define TO_PROVIDER UINT32_MAX

/* A ring buffer of qmsg (send queue, bundling queue); cap is 0 or a power of
 * two, so positions wrap with a mask. */
typedef struct ring {
    qmsg *a;
    uint32_t head, n, cap;
} ring;

static inline void ring_push(ring *r, qmsg v)
{
    if (r->n == r->cap) {
        uint32_t ncap = r->cap ? r->cap * 2 : 8;
        qmsg *na = rc_xmalloc(ncap * sizeof *na);
        for (uint32_t i = 0; i < r->n; i++) na[i] = r->a[(r->head + i) & (r->cap - 1)];
        free(r->a);
        r->a = na;
        r->cap = ncap;
        r->head = 0;
    }
    r->a[(r->head + r->n) & (r->cap - 1)] = v;
    r->n++;
}

/* The i-th entry from the head (i < n). */
static inline const qmsg *ring_at(const ring *r, uint32_t i)
{
    return &r->a[(r->head + i) & (r->cap - 1)];
}

/* A ring that drains gives back a long buffer: a group's source queues a copy
 * per member at once, and 10^5 clients each keeping the longest queue they
 * ever had would hold more memory than the messages in flight (docs/performance.md). */
#define RING_KEEP 64

static inline qmsg ring_pop(ring *r)
{
    RC_ASSERT(r->n > 0);
    qmsg v = r->a[r->head];
    r->head = (r->head + 1) & (r->cap - 1);
    if (--r->n == 0 && r->cap > RING_KEEP) {
        free(r->a);
        *r = (ring){NULL, 0, 0, 0};
    }
    return v;
}

#endif
