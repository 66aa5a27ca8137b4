/* evq variant "pairing": pairing heap in an index pool (bench only; see
 * evq_pairing.h). */
#include "core/evq.h"

#include <stdlib.h>

#include "core/log.h"

#define NIL UINT32_MAX

static inline bool before(const rc_event *a, const rc_event *b)
{
    return a->t < b->t || (a->t == b->t && a->key2 < b->key2);
}

/* Links two roots; the later one becomes the first child of the earlier.
 * Overwrites the loser's `next`, so callers read it first. */
static inline uint32_t meld(rc_evq_node *p, uint32_t a, uint32_t b)
{
    if (before(&p[b].ev, &p[a].ev)) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    p[b].next = p[a].child;
    p[a].child = b;
    return a;
}

void rc_evq_init(rc_evq *q, size_t cap)
{
    q->cap = cap < 16 ? 16 : cap;
    q->pool = rc_xmalloc(q->cap * sizeof *q->pool);
    q->n = 0;
    q->root = NIL;
    q->free_list = NIL;
    q->seq = 0;
}

void rc_evq_free(rc_evq *q)
{
    free(q->pool);
    q->pool = NULL;
    q->n = q->cap = 0;
    q->root = q->free_list = NIL;
}

/* Free nodes are either on the free list or beyond the high-water mark `hw`,
 * which equals n whenever the free list is empty (pops always free a node). */
void rc_evq_push(rc_evq *q, rc_time t, unsigned cls, uint32_t kind, uint32_t obj, uint64_t arg)
{
    RC_ASSERT(cls < 256);
    uint32_t i;
    if (q->free_list != NIL) {
        i = q->free_list;
        q->free_list = q->pool[i].next;
    } else {
        if (q->n == q->cap) {
            RC_ASSERT(q->cap < NIL / 2);
            q->cap *= 2;
            q->pool = rc_xrealloc(q->pool, q->cap * sizeof *q->pool);
        }
        i = (uint32_t)q->n;
    }
    rc_evq_node *nd = &q->pool[i];
    nd->ev = (rc_event){t, ((uint64_t)cls << 56) | (q->seq++ & ((1ULL << 56) - 1)), kind, obj, arg};
    nd->child = nd->next = NIL;
    q->root = q->root == NIL ? i : meld(q->pool, q->root, i);
    q->n++;
}

bool rc_evq_pop(rc_evq *q, rc_event *out)
{
    if (q->n == 0) return false;
    rc_evq_node *p = q->pool;
    uint32_t r = q->root;
    *out = p[r].ev;
    uint32_t c = p[r].child;
    p[r].next = q->free_list;
    q->free_list = r;
    q->n--;
    /* Pass 1: meld the children in pairs, left to right, into a list
     * (reversed, linked through `next`). */
    uint32_t acc = NIL;
    while (c != NIL) {
        uint32_t a = c, b = p[a].next;
        if (b == NIL) {
            p[a].next = acc;
            acc = a;
            break;
        }
        c = p[b].next;
        uint32_t m = meld(p, a, b);
        p[m].next = acc;
        acc = m;
    }
    /* Pass 2: meld the pairs right to left into one tree. */
    uint32_t root = NIL;
    while (acc != NIL) {
        uint32_t nx = p[acc].next;
        p[acc].next = NIL;
        root = root == NIL ? acc : meld(p, root, acc);
        acc = nx;
    }
    q->root = root;
    return true;
}
