/* evq variant "heap2": binary heap (bench only, built against src/core/evq.h).  The same
 * hole-moving push and pop as the core's 4-ary heap, with two children per
 * node: twice the depth, one comparison per level on the way down. */
#include "core/evq.h"

#include <stdlib.h>

#include "core/log.h"

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
        size_t parent = (i - 1) / 2;
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
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && before(&q->heap[c + 1], &q->heap[c])) c++;
        if (!before(&q->heap[c], &last)) break;
        q->heap[i] = q->heap[c];
        i = c;
    }
    if (n > 0) q->heap[i] = last;
    return true;
}
