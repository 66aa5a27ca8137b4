/* evq: the pending-event set of the discrete-event engine.
 *
 * A binary min-heap of plain event records keyed by (time, key2), where key2 =
 * (priority class << 56) | insertion sequence.  Events at the same time are
 * therefore ordered by class (the model's same-time order, e.g. docs/spec.md §1.2:
 * mixes < providers < users < apps) and then FIFO — never by pointer or by
 * heap accident, so runs are deterministic.  Records are values; the heap
 * owns one array grown geometrically (no allocation per event), with a
 * maximal sentinel record after the last event.
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

typedef struct rc_evq {
    rc_event *heap;
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
/* Removes the earliest event into *out; false when empty. */
bool rc_evq_pop(rc_evq *q, rc_event *out);
static inline size_t rc_evq_size(const rc_evq *q) { return q->n; }
static inline const rc_event *rc_evq_peek(const rc_evq *q) { return q->n ? &q->heap[0] : NULL; }

#endif
