/* The calendar queue of core/calq.h.  With fw = far_width = nb * width / 2
 * and F = far_next, the invariants:
 *   cur holds every queued event before cur_end, sorted from cur.a[head];
 *   ring bucket (t >> shift) & (nb - 1) holds, unsorted, that bucket's events
 *     in [cur_end, F x fw), where F = cur_end / fw + LEAD, LEAD = 2 (so the
 *     ring reaches between half its span and its whole span ahead, and no
 *     two of its times share a bucket; a one-bucket ring has fw = width and
 *     LEAD = 1);
 *   far bucket k & (nb - 1) holds, unsorted, the events in [k x fw, (k + 1) x fw)
 *     for k in [F, F + nb);
 *   the overflow heap holds the rest (at or after (F + nb) x fw).
 * cur_end is a multiple of width, hence fw is one of it too. */
#include "core/calq.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"

typedef unsigned __int128 key128;

static unsigned log2_of(rc_time w)
{
    unsigned s = 0;
    while (((rc_time)1 << (s + 1)) <= w) s++;
    return s;
}

void rc_calq_init(rc_calq *q, rc_time width, size_t buckets)
{
    memset(q, 0, sizeof *q);
    RC_ASSERTF(width >= 1 && buckets >= 1, "calendar queue: width %lld, %zu buckets",
               (long long)width, buckets);
    q->shift = log2_of(width); /* widths are powers of two: a shift per push, not a division */
    q->width = (rc_time)1 << q->shift;
    size_t nb = 1;
    while (nb < buckets) nb *= 2;
    q->nb = nb;
    q->ring = rc_xcalloc(nb, sizeof *q->ring);
    q->far = rc_xcalloc(nb, sizeof *q->far);
    q->far_shift = q->shift + log2_of((rc_time)nb) - (nb > 1 ? 1 : 0);
    q->far_next = nb > 1 ? 2 : 1; /* cur_end = 0: far_next = lead (below) */
    rc_evq_init(&q->ovf, 16);
    rc_evq_init(&q->late, 16);
}

void rc_calq_free(rc_calq *q)
{
    if (q->ring != NULL)
        for (size_t i = 0; i < q->nb; i++) {
            free(q->ring[i].a);
            free(q->far[i].a);
        }
    free(q->ring);
    free(q->far);
    free(q->cur.a);
    for (uint32_t i = 0; i < q->n_spare; i++) free(q->spare[i].a);
    free(q->spare);
    free(q->sort_tmp);
    rc_evq_free(&q->ovf);
    rc_evq_free(&q->late);
    memset(q, 0, sizeof *q);
}

enum { KEEP_CAP = 64 }; /* entries: a bucket buffer kept for reuse */
enum { SPARES = 64 };   /* large buffers kept for the buckets that will need them */

/* A bucket outgrows its buffer.  Past KEEP_CAP it takes a spare large buffer
 * if there is one: a busy calendar (10^5 clients' pulls, hundreds of events a
 * bucket) would otherwise regrow every bucket by doubling, a realloc and a
 * copy at each step (5 % of a population's time). */
static void grow(rc_calq *q, rc_calq_bucket *b)
{
    if (b->cap >= KEEP_CAP && q->n_spare > 0 && q->spare[q->n_spare - 1].cap > b->cap) {
        rc_calq_bucket s = q->spare[--q->n_spare];
        memcpy(s.a, b->a, (size_t)b->n * sizeof *b->a);
        free(b->a);
        b->a = s.a;
        b->cap = s.cap;
        return;
    }
    b->cap = b->cap ? b->cap * 2 : 8;
    b->a = rc_xrealloc(b->a, (size_t)b->cap * sizeof *b->a);
}

/* A drained large buffer: kept as a spare, or freed when SPARES are kept. */
static void give_back(rc_calq *q, rc_calq_bucket old)
{
    if (q->n_spare == SPARES) {
        free(old.a);
        return;
    }
    if (q->spare == NULL) q->spare = rc_xmalloc(SPARES * sizeof *q->spare);
    old.n = 0;
    q->spare[q->n_spare++] = old;
}

static void append(rc_calq *q, rc_calq_bucket *b, const rc_calq_ent *e)
{
    if (b->n == b->cap) grow(q, b);
    b->a[b->n++] = *e;
}

/* An event given by its fields is written field by field: copied whole from a
 * struct just built on the stack, its 16-byte halves would be read back from
 * narrower stores, which the core cannot forward (a stall of a dozen cycles
 * at every push). */
static inline void set_ent(rc_calq_ent *d, key128 key, uint32_t kind, uint32_t obj, uint64_t arg)
{
    d->key = key;
    d->arg = arg;
    d->obj = obj;
    d->kind = kind;
}

static inline void append_new(rc_calq *q, rc_calq_bucket *b, key128 key, uint32_t kind,
                              uint32_t obj, uint64_t arg)
{
    if (b->n == b->cap) grow(q, b);
    set_ent(&b->a[b->n++], key, kind, obj, arg);
}

static inline size_t bucket_of(const rc_calq *q, rc_time t)
{
    return (size_t)((uint64_t)t >> q->shift) & (q->nb - 1);
}

/* The far bucket of time t; the ring ends where far bucket far_next begins. */
static inline uint64_t far_of(const rc_calq *q, rc_time t) { return (uint64_t)t >> q->far_shift; }

/* LEAD of the invariants: far_next = cur_end / fw + lead. */
static inline uint64_t lead(const rc_calq *q) { return q->nb > 1 ? 2 : 1; }

/* Files an event at or after cur_end where the invariants put it: the ring,
 * the far ring or the overflow. */
static inline void place(rc_calq *q, key128 key, uint32_t kind, uint32_t obj, uint64_t arg,
                         rc_time t)
{
    uint64_t k = far_of(q, t);
    if (k < q->far_next) {
        append_new(q, &q->ring[bucket_of(q, t)], key, kind, obj, arg);
        q->ring_n++;
    } else if (k < q->far_next + q->nb) {
        append_new(q, &q->far[k & (q->nb - 1)], key, kind, obj, arg);
        q->far_n++;
    } else {
        rc_evq_push_key(&q->ovf, key, kind, obj, arg);
    }
}

/* The far ring (far_next just moved) now reaches further: the overflow's
 * events inside it move there, or into the ring. */
static void take_overflow(rc_calq *q)
{
    rc_time end = (rc_time)((q->far_next + q->nb) << q->far_shift);
    while (rc_evq_size(&q->ovf) > 0 && rc_evq_key_time(rc_evq_peek_key(&q->ovf)) < end) {
        rc_event ev;
        rc_evq_pop(&q->ovf, &ev);
        place(q, rc_evq_make_key(ev.t, ev.key2), ev.kind, ev.obj, ev.arg, ev.t);
    }
}

/* The ring now reaches far bucket far_next: its events move into the ring,
 * and the far ring reaches one bucket further, into what the overflow may hold. */
static void take_far(rc_calq *q)
{
    rc_calq_bucket *f = &q->far[q->far_next & (q->nb - 1)];
    for (uint32_t i = 0; i < f->n; i++) {
        rc_time t = rc_evq_key_time(f->a[i].key);
        append(q, &q->ring[bucket_of(q, t)], &f->a[i]);
    }
    q->ring_n += f->n;
    q->far_n -= f->n;
    f->n = 0;
    if (f->cap > KEEP_CAP) { /* the slot now waits for bucket far_next + nb: its peak's memory is not kept */
        free(f->a);
        *f = (rc_calq_bucket){0};
    }
    q->far_next++;
    take_overflow(q);
}

/* Inserts into the sorted current bucket. */
static void insert_current(rc_calq *q, key128 key, uint32_t kind, uint32_t obj, uint64_t arg)
{
    rc_calq_bucket *c = &q->cur;
    uint32_t lo = q->head, hi = c->n; /* first entry with a larger key */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->a[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    if (lo == q->head && q->head > 0) { /* a new earliest: the slot before is free */
        set_ent(&c->a[--q->head], key, kind, obj, arg);
        return;
    }
    if (c->n - lo > CALQ_LATE_MOVE) { /* due well before the bucket's end: it waits apart */
        rc_evq_push_key(&q->late, key, kind, obj, arg);
        return;
    }
    if (c->n == c->cap) {
        if (q->head > 0) { /* reuse the popped slots first */
            memmove(c->a, c->a + q->head, (size_t)(c->n - q->head) * sizeof *c->a);
            c->n -= q->head;
            lo -= q->head;
            q->head = 0;
        } else {
            c->cap = c->cap ? c->cap * 2 : 8;
            c->a = rc_xrealloc(c->a, (size_t)c->cap * sizeof *c->a);
        }
    }
    memmove(c->a + lo + 1, c->a + lo, (size_t)(c->n - lo) * sizeof *c->a);
    set_ent(&c->a[lo], key, kind, obj, arg);
    c->n++;
}

void rc_calq_push(rc_calq *q, unsigned __int128 key, uint32_t kind, uint32_t obj, uint64_t arg)
{
    rc_time t = rc_evq_key_time(key);
    q->n++;
    RC_DCHECK(t >= 0, "calendar event at a negative time %lld", (long long)t);
    if (t < q->cur_end) insert_current(q, key, kind, obj, arg);
    else place(q, key, kind, obj, arg, t);
}

/* Sorts a[0 .. n) by key in place: quicksort (median of three) down to short
 * runs, then one insertion sort.  No allocation (glibc's qsort mallocs a merge
 * buffer) and no comparator calls. */
static void insertion_sort(rc_calq_ent *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        rc_calq_ent e = a[i];
        size_t j = i;
        for (; j > 0 && a[j - 1].key > e.key; j--) a[j] = a[j - 1];
        a[j] = e;
    }
}

static inline void swap_ent(rc_calq_ent *x, rc_calq_ent *y)
{
    rc_calq_ent t = *x;
    *x = *y;
    *y = t;
}

static void quick_runs(rc_calq_ent *a, size_t n)
{
    while (n > 24) {
        size_t m = n / 2;
        if (a[m].key < a[0].key) swap_ent(&a[m], &a[0]);
        if (a[n - 1].key < a[0].key) swap_ent(&a[n - 1], &a[0]);
        if (a[n - 1].key < a[m].key) swap_ent(&a[n - 1], &a[m]);
        key128 pivot = a[m].key;
        size_t i = 0, j = n - 1;
        for (;;) { /* Hoare partition; keys are distinct */
            while (a[i].key < pivot) i++;
            while (a[j].key > pivot) j--;
            if (i >= j) break;
            swap_ent(&a[i], &a[j]);
            i++;
            j--;
        }
        /* [0, j] <= pivot <= [j + 1, n): recurse into the smaller part */
        size_t left = j + 1;
        if (left < n - left) {
            quick_runs(a, left);
            a += left;
            n -= left;
        } else {
            quick_runs(a + left, n - left);
            n = left;
        }
    }
}

/* A bucket this large is first dealt into SORT_BINS bins by its events'
 * times (the bucket is one window of `width`, so the bins follow in time
 * order), each bin then sorted by key: two passes over the bucket where a
 * quicksort of thousands of 32-byte entries took a dozen (an observer's 1 ms
 * buckets hold 3,000 to 5,000 at 10^5 users).  The order is the same: keys
 * are unique. */
enum { SORT_BIN_BITS = 10, SORT_BINS = 1 << SORT_BIN_BITS, SORT_BINNED_MIN = 256 };

static void sort_current(rc_calq *q, rc_calq_bucket *c)
{
    uint32_t n = c->n;
    if (n >= SORT_BINNED_MIN) {
        /* log2 of the bins used (fewer than SORT_BINS when the width is) */
        unsigned bbits = q->shift < SORT_BIN_BITS ? q->shift : SORT_BIN_BITS;
        unsigned bshift = q->shift - bbits;
        uint32_t nbins = 1u << bbits, mask = nbins - 1;
        uint32_t start[SORT_BINS + 1];
        memset(start, 0, (nbins + 1) * sizeof *start);
        for (uint32_t i = 0; i < n; i++)
            start[((uint64_t)rc_evq_key_time(c->a[i].key) >> bshift & mask) + 1]++;
        for (uint32_t b = 0; b < nbins; b++) start[b + 1] += start[b];
        if (q->sort_cap < n) {
            free(q->sort_tmp);
            q->sort_cap = c->cap;
            q->sort_tmp = rc_xmalloc((size_t)q->sort_cap * sizeof *q->sort_tmp);
        }
        rc_calq_ent *t = q->sort_tmp;
        uint32_t at[SORT_BINS];
        memcpy(at, start, nbins * sizeof *at);
        for (uint32_t i = 0; i < n; i++)
            t[at[(uint64_t)rc_evq_key_time(c->a[i].key) >> bshift & mask]++] = c->a[i];
        for (uint32_t b = 0; b < nbins; b++)
            if (start[b + 1] - start[b] > 1) quick_runs(t + start[b], start[b + 1] - start[b]);
        memcpy(c->a, t, (size_t)n * sizeof *t);
    } else {
        quick_runs(c->a, n);
    }
    insertion_sort(c->a, n); /* (the short runs quick_runs leaves unsorted, inside their bins) */
}

/* The ring is empty: jumps to the earliest far bucket that holds events, or
 * else to the overflow's earliest event. */
static void jump(rc_calq *q)
{
    if (q->far_n > 0) {
        uint64_t k = q->far_next;
        while (q->far[k & (q->nb - 1)].n == 0) k++;
        /* where the ring takes bucket k in (advance: cur_end / fw + lead > k) */
        q->cur_end = (rc_time)((k + 1 - lead(q)) << q->far_shift);
        q->far_next = k;
        take_far(q);
        return;
    }
    rc_time first = rc_evq_key_time(rc_evq_peek_key(&q->ovf));
    q->cur_end = (rc_time)(((uint64_t)first >> q->shift) << q->shift);
    q->far_next = far_of(q, q->cur_end) + lead(q);
    take_overflow(q);
}

/* Starts loading a ring bucket's events (at most PREFETCH_LINES cache
 * lines of them): they were appended over a ring's span of time, and by the
 * time their bucket is sorted (and the engine reads ahead into it,
 * rc_calq_soon) they are long out of cache.  Called for the bucket after the
 * next as a bucket becomes current: a bucket's time ahead. */
enum { PREFETCH_LINES = 16 };
static inline void prefetch_bucket(const rc_calq_bucket *b)
{
    const char *p = (const char *)b->a, *end = (const char *)(b->a + b->n);
    if (b->n == 0) return;
    p = (const char *)((uintptr_t)p & ~(uintptr_t)63);
    for (unsigned i = 0; i < PREFETCH_LINES && p < end; i++, p += 64) __builtin_prefetch(p);
}

/* The current bucket is used up and events remain: makes the next non-empty
 * bucket current. */
static void advance(rc_calq *q)
{
    q->cur.n = 0;
    q->head = 0;
    for (;;) {
        if (q->ring_n == 0) {
            jump(q);
            continue;
        }
        rc_calq_bucket *b = &q->ring[bucket_of(q, q->cur_end)];
        q->cur_end += q->width;
        bool found = b->n > 0;
        if (found) {
            /* The bucket's buffer becomes the current one; the emptied current
             * one goes back to the bucket only if it is small: a bucket is
             * refilled a ring's span later, and keeping every bucket's largest
             * buffer would hold memory for nb of them at their peak. */
            rc_calq_bucket old = q->cur;
            q->cur = *b;
            if (old.cap <= KEEP_CAP) {
                *b = old;
            } else {
                give_back(q, old);
                *b = (rc_calq_bucket){0};
            }
            b->n = 0;
            q->ring_n -= q->cur.n;
        }
        /* the ring now reaches one bucket further: at a far bucket's start, all of it */
        if (far_of(q, q->cur_end) + lead(q) > q->far_next) take_far(q);
        if (found) {
            prefetch_bucket(&q->ring[bucket_of(q, q->cur_end + q->width)]);
            sort_current(q, &q->cur);
            return;
        }
    }
}

/* The earliest event: the current bucket's array's or late's, whichever is
 * earlier (every event of late is before cur_end, so the bucket is only left
 * when both are empty). */
const rc_calq_ent *rc_calq__peek_slow(rc_calq *q)
{
    bool any_late = rc_evq_size(&q->late) > 0;
    q->from_late = false;
    if (q->head < q->cur.n) {
        if (!any_late || q->cur.a[q->head].key < rc_evq_peek_key(&q->late))
            return &q->cur.a[q->head];
    } else if (!any_late) {
        if (q->n == 0) return NULL;
        advance(q);
        return &q->cur.a[q->head];
    }
    const rc_evq_val *v = rc_evq_peek_val(&q->late);
    q->late_ent = (rc_calq_ent){rc_evq_peek_key(&q->late), v->arg, v->obj, v->kind};
    q->from_late = true;
    return &q->late_ent;
}

void rc_calq__drop_late(rc_calq *q)
{
    rc_event ev;
    rc_evq_pop(&q->late, &ev);
    q->from_late = false;
}
