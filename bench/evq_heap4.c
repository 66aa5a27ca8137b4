/* evq variant "heap4": the engine's queue before issue 18, a 4-ary heap with a
 * two-branch compare (bench only, built against src/core/evq.h). */
#include "core/evq.h"

#include <stdlib.h>

#include "core/log.h"

/* A 4-ary heap: half the depth of a binary heap and the four children share a
 * cache line or two, which matters because pops dominate the engine's cost. */
#define ARITY 4

static inline bool before(const rc_event *a, const rc_event *b)
{
    return a->t < b->t || (a->t == b->t && a->key2 < b->key2);
}

void rc_evq_init(rc_evq *q, size_t cap)
{
    q->cap = cap < 16 ? 16 : cap;
    q->heap = rc_xmalloc(q->cap * sizeof *q->heap);
    q->n = 0;
    q->seq = 0;
}

void rc_evq_free(rc_evq *q)
{
    free(q->heap);
    q->heap = NULL;
    q->n = q->cap = 0;
}

void rc_evq_push(rc_evq *q, rc_time t, unsigned cls, uint32_t kind, uint32_t obj, uint64_t arg)
{
    RC_ASSERT(cls < 256);
    if (q->n == q->cap) {
        q->cap *= 2;
        q->heap = rc_xrealloc(q->heap, q->cap * sizeof *q->heap);
    }
    rc_event ev = {t, ((uint64_t)cls << 56) | (q->seq++ & ((1ULL << 56) - 1)), kind, obj, arg};
    size_t i = q->n++;
    while (i > 0) {
        size_t parent = (i - 1) / ARITY;
        if (!before(&ev, &q->heap[parent])) break;
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = ev;
}

bool rc_evq_pop(rc_evq *q, rc_event *out)
{
    if (q->n == 0) return false;
    *out = q->heap[0];
    rc_event last = q->heap[--q->n];
    size_t n = q->n, i = 0;
    for (;;) {
        size_t first = i * ARITY + 1;
        if (first >= n) break;
        size_t best = first, end = first + ARITY < n ? first + ARITY : n;
        for (size_t c = first + 1; c < end; c++)
            if (before(&q->heap[c], &q->heap[best])) best = c;
        if (!before(&q->heap[best], &last)) break;
        q->heap[i] = q->heap[best];
        i = best;
    }
    if (n > 0) q->heap[i] = last;
    return true;
}
