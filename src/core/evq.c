/* The pending-event set: a binary heap with 128-bit keys and a branch-free
 * child choice (the "heap2b" of the event-queue study, docs/performance.md).
 *
 * Why: the queue holds 30-3000 events in the real jobs, so a pop costs
 * instructions and mispredicted branches, not cache misses.  The binary heap
 * needs the fewest comparisons per level; each comparison here is one unsigned
 * 128-bit compare (time with its sign bit flipped above key2), the smaller
 * child is picked arithmetically (c += right < left), and a maximal sentinel
 * record kept at heap[n] makes the missing right child of the last parent
 * lose without a bounds branch. */
#include "core/evq.h"

#include <stdlib.h>

#include "core/log.h"

typedef unsigned __int128 key128;

static inline key128 key(const rc_event *e)
{
    return ((key128)((uint64_t)e->t ^ (1ULL << 63)) << 64) | e->key2;
}

static const rc_event sentinel = {INT64_MAX, UINT64_MAX, 0, 0, 0};

void rc_evq_init(rc_evq *q, size_t cap)
{
    q->cap = cap < 16 ? 16 : cap;
    q->heap = rc_xmalloc(q->cap * sizeof *q->heap);
    q->n = 0;
    q->seq = 0;
    q->heap[0] = sentinel;
}

void rc_evq_free(rc_evq *q)
{
    free(q->heap);
    q->heap = NULL;
    q->n = q->cap = 0;
}

uint64_t rc_evq_reserve(rc_evq *q) { return q->seq++ & ((1ULL << 56) - 1); }

void rc_evq_push_seq(rc_evq *q, rc_time t, unsigned cls, uint64_t seq, uint32_t kind,
                     uint32_t obj, uint64_t arg)
{
    RC_ASSERT(cls < 256 && seq < (1ULL << 56));
    if (q->n + 1 >= q->cap) { /* room for the sentinel at heap[n] */
        q->cap *= 2;
        q->heap = rc_xrealloc(q->heap, q->cap * sizeof *q->heap);
    }
    rc_event ev = {t, ((uint64_t)cls << 56) | seq, kind, obj, arg};
    key128 k = key(&ev);
    size_t i = q->n++;
    q->heap[q->n] = sentinel;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (k >= key(&q->heap[parent])) break;
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = ev;
}

void rc_evq_push(rc_evq *q, rc_time t, unsigned cls, uint32_t kind, uint32_t obj, uint64_t arg)
{
    rc_evq_push_seq(q, t, cls, rc_evq_reserve(q), kind, obj, arg);
}

/* Moves `rec` down from position i of the n-event heap h (h[n] is the
 * sentinel) to where it belongs, and stores it there. */
static inline void sift_down(rc_event *h, size_t n, size_t i, rc_event rec)
{
    key128 k = key(&rec);
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        c += key(&h[c + 1]) < key(&h[c]);
        if (key(&h[c]) >= k) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = rec;
}

bool rc_evq_pop(rc_evq *q, rc_event *out)
{
    if (q->n == 0) return false;
    rc_event *h = q->heap;
    *out = h[0];
    size_t n = --q->n;
    rc_event last = h[n];
    h[n] = sentinel; /* also covers the right child of the last parent */
    if (n > 0) sift_down(h, n, 0, last);
    return true;
}
