/* evq (bench variant "pairing"): a pairing heap behind the core/evq.h API.
 *
 * Nodes live in one pool array (indices, not pointers, so the pool can grow
 * by realloc) with a free list: no allocation per event once the pool has
 * grown.  Push is O(1) (one link with the root); pop is the standard two-pass
 * pairing of the root's children, amortised O(log n).  Order: (time,
 * class << 56 | sequence), as in src/core/evq.h.  Bench only (see
 * bench/bench.cmake).
 */
#ifndef RCSIM_CORE_EVQ_H
#define RCSIM_CORE_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int64_t rc_time;

typedef struct rc_event {
    rc_time t;
    uint64_t key2;
    uint32_t kind;
    uint32_t obj;
    uint64_t arg;
} rc_event;

typedef struct rc_evq_node {
    rc_event ev;
    uint32_t child, next; /* first child; next sibling (or next free node) */
} rc_evq_node;

typedef struct rc_evq {
    rc_evq_node *pool;
    size_t n, cap;
    uint32_t root, free_list;
    uint64_t seq;
} rc_evq;

void rc_evq_init(rc_evq *q, size_t initial_capacity);
void rc_evq_free(rc_evq *q);
void rc_evq_push(rc_evq *q, rc_time t, unsigned cls, uint32_t kind, uint32_t obj, uint64_t arg);
bool rc_evq_pop(rc_evq *q, rc_event *out);
static inline size_t rc_evq_size(const rc_evq *q) { return q->n; }
static inline const rc_event *rc_evq_peek(const rc_evq *q)
{
    return q->n ? &q->pool[q->root].ev : NULL;
}

#endif
