/* evq (bench variant "heap2b"): a binary min-heap with 128-bit keys, a
 * sentinel and a branch-free choice of child, behind the core/evq.h API.
 *
 * Built only into the bench executables (bench/bench.cmake installs this file
 * as core/evq.h in a variant include directory), so the real engine can be
 * measured with another pending-event set without touching src/core/evq.c.
 * Same contract as src/core/evq.h: order by (time, class << 56 | sequence),
 * records are values in one array grown geometrically.
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

typedef struct rc_evq {
    rc_event *heap;
    size_t n, cap;
    uint64_t seq;
} rc_evq;

void rc_evq_init(rc_evq *q, size_t initial_capacity);
void rc_evq_free(rc_evq *q);
void rc_evq_push(rc_evq *q, rc_time t, unsigned cls, uint32_t kind, uint32_t obj, uint64_t arg);
bool rc_evq_pop(rc_evq *q, rc_event *out);
static inline size_t rc_evq_size(const rc_evq *q) { return q->n; }
static inline const rc_event *rc_evq_peek(const rc_evq *q) { return q->n ? &q->heap[0] : NULL; }

#endif
