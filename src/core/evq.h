/* evq: the pending-event set of the discrete-event engine.
 *
 * A 4-ary min-heap keyed by (time, key2), where key2 = (priority class << 56) |
 * insertion sequence.  Events at the same time are therefore ordered by class
 * (the model's same-time order, e.g. docs/spec.md §1.2: mixes < providers <
 * users < apps) and then FIFO — never by pointer or by heap accident, so runs
 * are deterministic and do not depend on the queue's structure.  The heap
 * owns two parallel arrays grown geometrically (no allocation per event): the
 * 16-byte keys, which sifting reads, and the 16-byte rest of each record,
 * which it only moves; maximal sentinel keys follow the last event.
 */
#ifndef RCSIM_CORE_EVQ_H
#define RCSIM_CORE_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int64_t rc_time; /* simulated time in microseconds */

typedef struct rc_event {
    rc_time t;
    uint64_t key2;  /* class << 56 | sequence */
    uint32_t kind;  /* handler index */
    uint32_t obj;   /* handler-defined (user, group, message index, ...) */
    uint64_t arg;   /* handler-defined (version counter, ...) */
} rc_event;

/* The part of a record that sifting moves but never reads. */
typedef struct rc_evq_val {
    uint32_t kind, obj;
    uint64_t arg;
} rc_evq_val;

typedef struct rc_evq {
    unsigned __int128 *key; /* (time with its sign bit flipped) << 64 | key2 */
    rc_evq_val *val;
    void *key_mem;          /* the allocation key points into (aligned) */
    size_t n, cap;
    uint64_t seq;
} rc_evq;

void rc_evq_init(rc_evq *q, size_t initial_capacity);
void rc_evq_free(rc_evq *q);
void rc_evq_push(rc_evq *q, rc_time t, unsigned cls, uint32_t kind, uint32_t obj, uint64_t arg);
/* Deferred pushes.  rc_evq_reserve takes the insertion sequence number a
 * push made now would get; rc_evq_push_seq pushes later with it.  The event
 * then pops exactly where it would have had it been pushed at reservation, so
 * a model can keep events that are certain to come later (a sorted run of
 * timeouts, say) out of the queue until they are next, without changing the
 * order of anything. */
uint64_t rc_evq_reserve(rc_evq *q);
void rc_evq_push_seq(rc_evq *q, rc_time t, unsigned cls, uint64_t seq, uint32_t kind,
                     uint32_t obj, uint64_t arg);
/* The key of an event at t of class cls (< 256) with insertion sequence seq
 * (< 2^56), checked; rc_evq_push_seq pushes with it, and so does the engine's
 * calendar (core/calq.h), so an event has one key whichever queue holds it. */
unsigned __int128 rc_evq_key(rc_time t, unsigned cls, uint64_t seq);
void rc_evq_push_key(rc_evq *q, unsigned __int128 key, uint32_t kind, uint32_t obj, uint64_t arg);
/* The key an event's order is decided by: (time with its sign bit flipped) << 64 | key2,
 * compared as one unsigned number (core/calq.h keeps its events in the same order). */
static inline unsigned __int128 rc_evq_make_key(rc_time t, uint64_t key2)
{
    return ((unsigned __int128)((uint64_t)t ^ (1ULL << 63)) << 64) | key2;
}
static inline rc_time rc_evq_key_time(unsigned __int128 key)
{
    return (rc_time)((uint64_t)(key >> 64) ^ (1ULL << 63));
}
/* The earliest event's key; all ones when empty. */
static inline unsigned __int128 rc_evq_peek_key(const rc_evq *q) { return q->key[0]; }
/* Removes the earliest event into *out; false when empty. */
bool rc_evq_pop(rc_evq *q, rc_event *out);
static inline size_t rc_evq_size(const rc_evq *q) { return q->n; }
/* The earliest event's handler fields (kind, obj, arg), without removing it;
 * NULL when empty (for prefetching its state). */
static inline const rc_evq_val *rc_evq_peek_val(const rc_evq *q)
{
    return q->n ? &q->val[0] : NULL;
}
/* The same for the event after the earliest (the least of the root's
 * children; they share one cache line); NULL with fewer than two events. */
static inline const rc_evq_val *rc_evq_peek2_val(const rc_evq *q)
{
    if (q->n < 2) return NULL;
    const unsigned __int128 *k = q->key;
    size_t a = 1 + (k[2] < k[1]), b = 3 + (k[4] < k[3]); /* sentinels lose */
    return &q->val[k[b] < k[a] ? b : a];
}

#endif
