/* evq variant "heap4b": 4-ary heap with 128-bit keys and a branch-light pop
 * (bench only, built against src/core/evq.h).
 *
 * Why: in the engine the queue holds 30-3000 events (it fits in L1/L2), so
 * its cost is instructions and mispredicted branches, not cache misses.  The
 * core's before() is two compares and two branches per key; here each key is
 * formed as one unsigned 128-bit number (time with its sign bit flipped, so
 * the unsigned order is the signed order, above key2) and compared once, and
 * the 4-child minimum is a small tournament the compiler turns into cmovs. */
#include "core/evq.h"

#include <stdlib.h>

#include "core/log.h"

#define ARITY 4

typedef unsigned __int128 key128;

static inline key128 key(const rc_event *e)
{
    return ((key128)((uint64_t)e->t ^ (1ULL << 63)) << 64) | e->key2;
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
    key128 k = key(&ev);
    size_t i = q->n++;
    while (i > 0) {
        size_t parent = (i - 1) / ARITY;
        if (k >= key(&q->heap[parent])) break;
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
    key128 klast = key(&last);
    size_t n = q->n, i = 0;
    rc_event *h = q->heap;
    for (;;) {
        size_t first = i * ARITY + 1;
        if (first >= n) break;
        size_t best;
        key128 kb;
        if (first + ARITY <= n) {
            /* all four children exist: tournament of two pairs, no branches
             * on the keys (the ternaries compile to conditional moves) */
            key128 k0 = key(&h[first]), k1 = key(&h[first + 1]);
            key128 k2 = key(&h[first + 2]), k3 = key(&h[first + 3]);
            size_t a = k1 < k0 ? first + 1 : first;
            key128 ka = k1 < k0 ? k1 : k0;
            size_t b = k3 < k2 ? first + 3 : first + 2;
            key128 kc = k3 < k2 ? k3 : k2;
            best = kc < ka ? b : a;
            kb = kc < ka ? kc : ka;
        } else {
            best = first;
            kb = key(&h[first]);
            for (size_t c = first + 1; c < n; c++) {
                key128 kc = key(&h[c]);
                if (kc < kb) {
                    kb = kc;
                    best = c;
                }
            }
        }
        if (kb >= klast) break;
        h[i] = h[best];
        i = best;
    }
    if (n > 0) h[i] = last;
    return true;
}
