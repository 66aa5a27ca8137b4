/* The pending-event set: a 4-ary heap with 128-bit keys kept apart from the
 * rest of the records, laid out so that a node's four children share one
 * cache line.
 *
 * Why: in the paper's jobs the queue holds 30-3000 events and fits in L1/L2,
 * but in population mode it holds 10^4-10^6 (a pull per client
 * with mail) and a pop was a quarter of the run, nearly all of it waiting for
 * memory: the binary heap of 32-byte records touched one or two new cache
 * lines on each of its ~16 levels.  Here a level is one line (4 keys of 16
 * bytes, aligned) and there are half as many levels; the handler fields
 * (kind, obj, arg) sit in a parallel array that sifting only moves, so their
 * loads do not lie on the chain of comparisons.  Each comparison is one
 * unsigned 128-bit compare (time with its sign bit flipped above key2), and
 * maximal sentinel keys at key[n .. n+3] make missing children lose without
 * a bounds branch. */
#include "core/evq.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"

typedef unsigned __int128 key128;

#define ARITY 4
#define LINE 64
/* key[0] sits 3 slots into a line, so the children 4i+1 .. 4i+4 of every node
 * start on a line boundary. */
#define KEY_SHIFT 3
#define SENTINELS ARITY

static const key128 KEY_MAX = ~(key128)0;

/* Allocates room for cap events plus the sentinels, keys aligned as above. */
static void grow(rc_evq *q, size_t cap)
{
    size_t bytes = (cap + SENTINELS + KEY_SHIFT) * sizeof(key128);
    bytes = (bytes + LINE - 1) / LINE * LINE;
    void *mem = rc_xaligned_alloc(LINE, bytes);
    key128 *key = (key128 *)mem + KEY_SHIFT;
    if (q->key != NULL) memcpy(key, q->key, (q->n + SENTINELS) * sizeof *key);
    free(q->key_mem);
    q->key_mem = mem;
    q->key = key;
    q->val = rc_xrealloc(q->val, cap * sizeof *q->val);
    q->cap = cap;
}

void rc_evq_init(rc_evq *q, size_t cap)
{
    memset(q, 0, sizeof *q);
    grow(q, cap < 16 ? 16 : cap);
    for (size_t i = 0; i < SENTINELS; i++) q->key[i] = KEY_MAX;
}

void rc_evq_free(rc_evq *q)
{
    free(q->key_mem);
    free(q->val);
    memset(q, 0, sizeof *q);
}

uint64_t rc_evq_reserve(rc_evq *q) { return q->seq++ & ((1ULL << 56) - 1); }

key128 rc_evq_key(rc_time t, unsigned cls, uint64_t seq)
{
    RC_ASSERT(cls < 256 && seq < (1ULL << 56));
    return rc_evq_make_key(t, ((uint64_t)cls << 56) | seq);
}

void rc_evq_push_seq(rc_evq *q, rc_time t, unsigned cls, uint64_t seq, uint32_t kind,
                     uint32_t obj, uint64_t arg)
{
    rc_evq_push_key(q, rc_evq_key(t, cls, seq), kind, obj, arg);
}

void rc_evq_push_key(rc_evq *q, key128 k, uint32_t kind, uint32_t obj, uint64_t arg)
{
    if (q->n == q->cap) grow(q, q->cap * 2);
    key128 *key = q->key;
    rc_evq_val *val = q->val;
    size_t i = q->n++;
    key[q->n + SENTINELS - 1] = KEY_MAX;
    while (i > 0) {
        size_t parent = (i - 1) / ARITY;
        if (k >= key[parent]) break;
        key[i] = key[parent];
        val[i] = val[parent];
        i = parent;
    }
    key[i] = k;
    val[i] = (rc_evq_val){kind, obj, arg};
}

void rc_evq_push(rc_evq *q, rc_time t, unsigned cls, uint32_t kind, uint32_t obj, uint64_t arg)
{
    rc_evq_push_seq(q, t, cls, rc_evq_reserve(q), kind, obj, arg);
}

bool rc_evq_pop(rc_evq *q, rc_event *out)
{
    if (q->n == 0) return false;
    key128 *key = q->key;
    rc_evq_val *val = q->val;
    *out = (rc_event){rc_evq_key_time(key[0]), (uint64_t)key[0],
                      val[0].kind, val[0].obj, val[0].arg};
    size_t n = --q->n;
    key128 k = key[n];
    rc_evq_val v = val[n];
    key[n] = KEY_MAX; /* a sentinel now; also covers missing children below */
    if (n == 0) return true;
    size_t i = 0;
    for (;;) {
        size_t c = ARITY * i + 1;
        if (c >= n) break;
        /* the smallest of the four (sentinels lose) */
        size_t a = c + (key[c + 1] < key[c]);
        size_t b = c + 2 + (key[c + 3] < key[c + 2]);
        size_t m = key[b] < key[a] ? b : a;
        if (key[m] >= k) break;
        key[i] = key[m];
        val[i] = val[m];
        i = m;
    }
    key[i] = k;
    val[i] = v;
    return true;
}
