/* calq: a calendar queue (bucketed by time) for the events of one kind that
 * are many and always scheduled a little ahead of now -- a population's pulls
 * (94 % of the events, 10^4-10^6 pending, and the heap's cache
 * misses were a quarter of the run).
 *
 * Keys are the event queue's (core/evq.h): (time, class << 56 | sequence), so
 * an event pops from here exactly where it would have popped from the heap;
 * the engine (core/sim.c) takes whichever of the two has the smaller next key.
 * Time is cut into buckets `width` us wide; a ring of `buckets` of them covers
 * the near future, unsorted (a push appends), and later events wait in an
 * overflow heap (a sender's queue can reach minutes ahead).  The current
 * bucket is sorted when it becomes current; what is pushed into it afterwards
 * is inserted in order.  Events beyond the ring wait in a second, coarser
 * ring of `buckets` far buckets, each half the ring's span wide and as
 * unsorted, and move into the ring as a whole when it reaches them (a busy
 * client's look-ahead files a message minutes ahead: in a heap, 10^6 of them
 * cost a third of a population's run); only events beyond the far
 * ring go to an overflow heap.  Because the current bucket
 * is sorted, the next events are known several ahead (rc_calq_ahead; rc_calq_soon
 * looks into the next bucket too), so their state can be fetched from memory
 * long before it is needed.  An event pushed into the current bucket
 * that would move more than CALQ_LATE_MOVE later events to keep it sorted
 * waits instead in a small heap of its own (`late`), and the earliest of the
 * two is popped: a busy bucket holds thousands of events, and an event due
 * now moved all of them (an observer of 10^5 clients spent a sixth of its
 * run moving them).
 */
#ifndef RCSIM_CORE_CALQ_H
#define RCSIM_CORE_CALQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/evq.h"

typedef struct rc_calq_ent {
    unsigned __int128 key; /* the event queue's key (core/evq.h rc_evq_key) */
    uint64_t arg;
    uint32_t obj;
    uint32_t kind;         /* the engine's event kind (core/sim.h); free for other users */
} rc_calq_ent;

typedef struct rc_calq_bucket {
    rc_calq_ent *a;
    uint32_t n, cap;
} rc_calq_bucket;

typedef struct rc_calq {
    rc_calq_bucket cur;    /* sorted: cur.a[head .. cur.n) are the earliest events */
    uint32_t head;
    rc_time cur_end;       /* cur holds every event before this; the ring starts here */
    rc_time width;         /* a power of two */
    unsigned shift;        /* log2(width) */
    rc_calq_bucket *ring;  /* bucket (t / width) % nb holds [cur_end, cur_end + nb * width) */
    size_t nb, ring_n;
    /* far bucket k (slot k & (nb - 1)) holds the events in [k, k + 1) x
     * far_width for k in [far_next, far_next + nb); the ring reaches
     * far_next x far_width (far_width = half the ring's span) */
    rc_calq_bucket *far;
    uint64_t far_next;
    unsigned far_shift;    /* log2(far_width) */
    size_t far_n;
    rc_evq ovf;            /* events beyond the far ring, by time */
    size_t n;
    /* Large bucket buffers given back by drained buckets, for the next bucket
     * that outgrows its small one (calq.c, grow): a stack of at most SPARES. */
    rc_calq_bucket *spare;
    uint32_t n_spare;
    /* events of the current bucket kept out of its array (calq.c,
     * insert_current), all before cur_end; the event rc_calq_peek returned
     * came from here when from_late, copied into late_ent */
    rc_evq late;
    rc_calq_ent late_ent;
    bool from_late;
    rc_calq_ent *sort_tmp; /* where a large bucket is dealt into bins (calq.c, sort_current) */
    uint32_t sort_cap;
} rc_calq;

/* Inserting into the current bucket moves at most this many events. */
enum { CALQ_LATE_MOVE = 32 };

void rc_calq_init(rc_calq *q, rc_time width, size_t buckets);
void rc_calq_free(rc_calq *q);
void rc_calq_push(rc_calq *q, unsigned __int128 key, uint32_t kind, uint32_t obj, uint64_t arg);
const rc_calq_ent *rc_calq__peek_slow(rc_calq *q);
/* The earliest event, or NULL when empty (it stays in the queue).  (Inline:
 * it is called once an event, and nearly always finds the current bucket's
 * next with nothing in `late`.) */
static inline const rc_calq_ent *rc_calq_peek(rc_calq *q)
{
    if (q->head < q->cur.n && rc_evq_size(&q->late) == 0) {
        q->from_late = false;
        return &q->cur.a[q->head];
    }
    return rc_calq__peek_slow(q);
}
void rc_calq__drop_late(rc_calq *q);
/* Removes the earliest event (after rc_calq_peek returned it). */
static inline void rc_calq_drop(rc_calq *q)
{
    if (q->from_late) rc_calq__drop_late(q);
    else q->head++;
    q->n--;
}
/* The event i places after the earliest, if the current bucket's array holds
 * it and every event before it (NULL otherwise: one may wait in `late`). */
static inline const rc_calq_ent *rc_calq_ahead(const rc_calq *q, uint32_t i)
{
    uint32_t k = q->head + i;
    if (k >= q->cur.n) return NULL;
    if (rc_evq_size(&q->late) > 0 && !(q->cur.a[k].key < rc_evq_peek_key(&q->late))) return NULL;
    return &q->cur.a[k];
}
/* A hint for prefetching: rc_calq_ahead's event; with events waiting in
 * `late`, the current bucket's i-th after its array's earliest (which comes
 * soon, if not exactly i places on); or past the current bucket's
 * end, an event of the next bucket, unsorted (whose events all come next, in
 * some order: with buckets of a few dozen events, the first events of each
 * would otherwise be named only a few places ahead, too late for their state
 * to arrive).  NULL does not mean there is none. */
static inline const rc_calq_ent *rc_calq_soon(const rc_calq *q, uint32_t i)
{
    uint32_t k = q->head + i;
    if (k < q->cur.n) return &q->cur.a[k];
    k -= q->cur.n;
    const rc_calq_bucket *b = &q->ring[((uint64_t)q->cur_end >> q->shift) & (q->nb - 1)];
    return k < b->n ? &b->a[k] : NULL;
}
static inline size_t rc_calq_size(const rc_calq *q) { return q->n; }

#endif
