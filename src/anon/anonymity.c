/* anonymity: the global passive adversary (anon/anonymity.h, docs/spec.md §10).
 *
 * The net reports each link of a packet when it decides it, often seconds
 * ahead (a real bundle's whole path when it leaves its sender).  The
 * adversary must take the events in time order, so each report becomes one
 * or two events in a heap of its own: a departure (at `sent`) and an arrival
 * (at `received`).  Events are keyed (time, phase, report number): arrivals
 * (phase 0) before departures (phase 1) at the same time, so packets leaving
 * a node in one lattice tick all take the mean of the pool after that tick's
 * arrivals (docs/spec.md §10.3); a link of zero duration (the exact model)
 * arrives inside its departure.  The heap is processed up to the current
 * time at each report: everything at an earlier time has been reported by
 * then, since the net reports a link no later than the time it starts.
 */
#include "anon/anonymity.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/rng.h"

enum { STREAM_ANON = 50 };
/* Pool entries below this probability are dropped (their share of any
 * entropy is below 1e-16 bits). */
#define PRUNE 1e-18
#define NONE32 UINT32_MAX

enum { ROLE_CLIENT = 0, ROLE_MIXING = 1, ROLE_PASS = 2 };
enum { EV_DEP = 0, EV_ARR = 1, EV_CREATE = 2, EV_END = 3 };

/* The sender estimate of packets that left an honest node between two
 * changes of its pool: shared, counted references. */
typedef struct sview {
    uint32_t refs;
    double v[]; /* per user; sums to the client-sent share of the pool */
} sview;

typedef struct pool {
    int64_t n;       /* packets held (a bundle split here counts its parts) */
    double *s;       /* per target: summed probability */
    uint32_t *act;   /* targets with s > 0 */
    uint32_t n_act;
    uint8_t *in_act;
    double *b, c;    /* sender sums = c * b (c shrinks at departures instead of b) */
    sview *snap;     /* the current mean sender estimate, NULL when stale */
} pool;

typedef struct pkt {
    uint64_t id;
    uint32_t refs;    /* queued events and split parts that still need it */
    uint32_t split;   /* parts it becomes at the last layer */
    uint32_t sender;  /* one-hot sender estimate, or NONE32 */
    sview *sv;        /* dense sender estimate, or NULL (none when both are empty) */
    uint32_t target;  /* the tracked message it carries alone (a part), or NONE32 */
    uint32_t origin;  /* a mix loop's mix */
    bool loop;
    uint32_t nt, capt;
    uint32_t *tk;
    double *tq;
} pkt;

typedef struct event {
    rc_time t;
    uint64_t seq;
    uint8_t phase, kind;
    bool exits;
    uint32_t slot, parent; /* parent: the bundle's slot for a split part, else NONE32 */
    uint32_t from, to, split;
    rc_time received;
} event;

typedef struct tracked {
    uint32_t sender, recipient, body;
    rc_time sent, pulled, left;
    double h, maxq, mass, sender_h;
    double key;     /* its sampling key: the N smallest keys are kept */
    bool exited, dropped;
} tracked;

struct rc_anon {
    rc_sim *sim;
    rc_net *net;
    uint32_t users, providers, nodes;
    uint8_t *role;
    bool *corrupt;
    uint64_t n_corrupt_mixes, n_corrupt_providers;
    pool *pools; /* per node; allocated for mixing nodes */
    bool sender_view;
    /* packets */
    pkt *slots;
    uint32_t n_slots, cap_slots, free_slot;
    uint64_t *hkey; /* open addressing, linear probing: packet id -> slot */
    uint32_t *hval;
    uint32_t hcap, hn;
    /* events */
    event *heap;
    size_t n_heap, cap_heap;
    uint64_t seq;
    /* tracked messages: every real sub-message sent in [from, until) gets a
     * uniform key; the N smallest so far are tracked (a max-heap of them) */
    gsl_rng *rng;
    rc_time from, until;
    uint32_t want;
    uint32_t *kept, n_kept;
    tracked *tg;
    uint32_t n_tg, cap_tg;
    uint64_t *bkey; /* body -> target, while the message is on its way */
    uint32_t *bval;
    uint32_t bcap, bn;
    rc_time stop;
    FILE *trace;
    char *trace_path;
    rc_anon_record *rec;
    size_t n_rec;
    rc_anon_summary sum;
};

/* ---------- small maps (u64 -> u32, linear probing, backward-shift delete) ---------- */

static uint32_t hslot(uint64_t k, uint32_t cap)
{
    return (uint32_t)((k * 0x9E3779B97F4A7C15ULL) >> 32) & (cap - 1);
}

static void map_put(uint64_t **key, uint32_t **val, uint32_t *cap, uint32_t *n, uint64_t k,
                    uint32_t v);

static void map_grow(uint64_t **key, uint32_t **val, uint32_t *cap, uint32_t *n)
{
    uint64_t *ok = *key;
    uint32_t *ov = *val, oc = *cap;
    *cap = oc ? oc * 2 : 1024;
    *key = rc_xmalloc(*cap * sizeof **key);
    *val = rc_xmalloc(*cap * sizeof **val);
    for (uint32_t i = 0; i < *cap; i++) (*key)[i] = UINT64_MAX;
    *n = 0;
    for (uint32_t i = 0; i < oc; i++)
        if (ok[i] != UINT64_MAX) map_put(key, val, cap, n, ok[i], ov[i]);
    free(ok);
    free(ov);
}

static void map_put(uint64_t **key, uint32_t **val, uint32_t *cap, uint32_t *n, uint64_t k,
                    uint32_t v)
{
    if ((*n + 1) * 2 > *cap) map_grow(key, val, cap, n);
    uint32_t i = hslot(k, *cap);
    while ((*key)[i] != UINT64_MAX && (*key)[i] != k) i = (i + 1) & (*cap - 1);
    if ((*key)[i] == UINT64_MAX) (*n)++;
    (*key)[i] = k;
    (*val)[i] = v;
}

static uint32_t map_get(const uint64_t *key, const uint32_t *val, uint32_t cap, uint64_t k)
{
    if (cap == 0) return NONE32;
    for (uint32_t i = hslot(k, cap);; i = (i + 1) & (cap - 1)) {
        if (key[i] == k) return val[i];
        if (key[i] == UINT64_MAX) return NONE32;
    }
}

static void map_del(uint64_t *key, uint32_t *val, uint32_t cap, uint32_t *n, uint64_t k)
{
    if (cap == 0) return;
    uint32_t i = hslot(k, cap);
    while (key[i] != k) {
        if (key[i] == UINT64_MAX) return;
        i = (i + 1) & (cap - 1);
    }
    (*n)--;
    for (uint32_t j = (i + 1) & (cap - 1); key[j] != UINT64_MAX; j = (j + 1) & (cap - 1)) {
        uint32_t h = hslot(key[j], cap);
        /* move j back to i when its home is not in (i, j] (cyclically) */
        if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
            key[i] = key[j];
            val[i] = val[j];
            i = j;
        }
    }
    key[i] = UINT64_MAX;
}

/* ---------- event heap ---------- */

static bool ev_before(const event *x, const event *y)
{
    if (x->t != y->t) return x->t < y->t;
    if (x->phase != y->phase) return x->phase < y->phase;
    return x->seq < y->seq;
}

static void heap_push(rc_anon *a, event e)
{
    if (a->n_heap == a->cap_heap) {
        a->cap_heap = a->cap_heap ? a->cap_heap * 2 : 4096;
        a->heap = rc_xrealloc(a->heap, a->cap_heap * sizeof *a->heap);
    }
    size_t i = a->n_heap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!ev_before(&e, &a->heap[p])) break;
        a->heap[i] = a->heap[p];
        i = p;
    }
    a->heap[i] = e;
}

static event heap_pop(rc_anon *a)
{
    event top = a->heap[0], last = a->heap[--a->n_heap];
    size_t i = 0, n = a->n_heap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && ev_before(&a->heap[c + 1], &a->heap[c])) c++;
        if (!ev_before(&a->heap[c], &last)) break;
        a->heap[i] = a->heap[c];
        i = c;
    }
    if (n > 0) a->heap[i] = last;
    return top;
}

/* ---------- packets ---------- */

static void sv_release(sview *s)
{
    if (s != NULL && --s->refs == 0) free(s);
}

static void pkt_clear(pkt *p)
{
    p->nt = 0;
    sv_release(p->sv);
    p->sv = NULL;
    p->sender = NONE32;
}

static uint32_t pkt_new(rc_anon *a, uint64_t id)
{
    uint32_t i;
    if (a->free_slot != NONE32) {
        i = a->free_slot;
        a->free_slot = a->slots[i].refs; /* free list threaded through refs */
    } else {
        if (a->n_slots == a->cap_slots) {
            a->cap_slots = a->cap_slots ? a->cap_slots * 2 : 1024;
            a->slots = rc_xrealloc(a->slots, a->cap_slots * sizeof *a->slots);
        }
        i = a->n_slots++;
        a->slots[i] = (pkt){0};
    }
    pkt *p = &a->slots[i];
    uint32_t *tk = p->tk, capt = p->capt;
    double *tq = p->tq;
    *p = (pkt){id, 0, 1, NONE32, NULL, NONE32, NONE32, false, 0, capt, tk, tq};
    map_put(&a->hkey, &a->hval, &a->hcap, &a->hn, id, i);
    return i;
}

static void pkt_unref(rc_anon *a, uint32_t i)
{
    pkt *p = &a->slots[i];
    if (--p->refs > 0) return;
    map_del(a->hkey, a->hval, a->hcap, &a->hn, p->id);
    pkt_clear(p);
    p->refs = a->free_slot;
    a->free_slot = i;
}

static void pkt_add_target(pkt *p, uint32_t k, double q)
{
    if (p->nt == p->capt) {
        p->capt = p->capt ? p->capt * 2 : 4;
        p->tk = rc_xrealloc(p->tk, p->capt * sizeof *p->tk);
        p->tq = rc_xrealloc(p->tq, p->capt * sizeof *p->tq);
    }
    p->tk[p->nt] = k;
    p->tq[p->nt] = q;
    p->nt++;
}

/* ---------- pools ---------- */

static void pool_reset(rc_anon *a, pool *q)
{
    for (uint32_t i = 0; i < q->n_act; i++) {
        q->s[q->act[i]] = 0;
        q->in_act[q->act[i]] = 0;
    }
    q->n_act = 0;
    if (a->sender_view) {
        memset(q->b, 0, a->users * sizeof *q->b);
        q->c = 1;
    }
    sv_release(q->snap);
    q->snap = NULL;
}

/* A packet's estimates join pool q as `parts` pooled packets. */
static void pool_add(rc_anon *a, pool *q, const pkt *p, uint32_t parts)
{
    for (uint32_t i = 0; i < p->nt; i++) {
        uint32_t k = p->tk[i];
        if (a->tg[k].dropped) continue;
        q->s[k] += p->tq[i];
        if (!q->in_act[k]) {
            q->in_act[k] = 1;
            q->act[q->n_act++] = k;
        }
    }
    if (a->sender_view) {
        double w = parts / q->c;
        if (p->sender != NONE32) q->b[p->sender] += w;
        else if (p->sv != NULL)
            for (uint32_t u = 0; u < a->users; u++) q->b[u] += w * p->sv->v[u];
    }
    q->n += parts;
    sv_release(q->snap);
    q->snap = NULL;
}

/* A packet leaves pool q: it takes the mean. */
static void pool_take(rc_anon *a, pool *q, pkt *p)
{
    pkt_clear(p);
    if (q->n <= 0) {
        RC_DCHECK(false, "anonymity: a packet left an empty pool");
        return;
    }
    double n = (double)q->n;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < q->n_act; i++) {
        uint32_t k = q->act[i];
        double m = q->s[k] / n;
        q->s[k] -= m;
        if (!a->tg[k].dropped) pkt_add_target(p, k, m);
        if (q->s[k] < PRUNE || a->tg[k].dropped) {
            q->s[k] = 0;
            q->in_act[k] = 0;
        } else {
            q->act[kept++] = k;
        }
    }
    q->n_act = kept;
    if (a->sender_view) {
        if (q->snap == NULL) {
            q->snap = rc_xmalloc(sizeof *q->snap + a->users * sizeof(double));
            q->snap->refs = 1;
            double f = q->c / n;
            for (uint32_t u = 0; u < a->users; u++) q->snap->v[u] = f * q->b[u];
        }
        q->snap->refs++;
        p->sv = q->snap;
        q->c *= (n - 1) / n;
        if (q->c < 1e-200 && q->n > 1) {
            for (uint32_t u = 0; u < a->users; u++) q->b[u] *= q->c;
            q->c = 1;
        }
    }
    if (--q->n == 0) pool_reset(a, q);
}

/* ---------- the observation file ---------- */

static void trace_row(rc_anon *a, char kind, uint64_t seq, uint64_t packet, uint64_t parent,
                      uint32_t from, uint32_t to, rc_time sent, rc_time received, uint32_t split,
                      bool exits, uint32_t target, bool real)
{
    if (a->trace == NULL) return;
    fprintf(a->trace, "%llu,%c,%lld,%lld,%u,%u,%lld,%lld,%u,%d,%lld,%d\n",
            (unsigned long long)seq, kind, packet == RC_WIRE_NONE ? -1LL : (long long)packet,
            parent == RC_WIRE_NONE ? -1LL : (long long)parent, from, to, (long long)sent,
            (long long)received, split, exits ? 1 : 0,
            target == NONE32 ? -1LL : (long long)target, real ? 1 : 0);
}

/* ---------- processing ---------- */

static void exit_packet(rc_anon *a, pkt *p, rc_time t)
{
    for (uint32_t i = 0; i < p->nt; i++) {
        tracked *g = &a->tg[p->tk[i]];
        double q = p->tq[i];
        if (q <= 0 || g->dropped) continue;
        g->h -= q * log2(q);
        if (q > g->maxq) g->maxq = q;
        g->mass += q;
    }
    if (p->target != NONE32) {
        tracked *g = &a->tg[p->target];
        g->exited = true;
        g->left = t;
        double h = NAN;
        if (a->sender_view) {
            h = 0;
            if (p->sv != NULL) {
                double tot = 0;
                for (uint32_t u = 0; u < a->users; u++) tot += p->sv->v[u];
                for (uint32_t u = 0; u < a->users; u++) {
                    double x = p->sv->v[u] / tot;
                    if (x > 0) h -= x * log2(x);
                }
            }
        }
        g->sender_h = h;
    }
}

static void arrive(rc_anon *a, const event *e)
{
    pkt *p = &a->slots[e->slot];
    if (p->loop && e->to == p->origin) {
        /* A mix loop back at its mix ends there: the adversary, which knows
         * the pool sizes, learns that this packet was a loop and holds no
         * tracked message.  Conditioning on that drops its probabilities;
         * the others are renormalised at the end (rc_anon_finish). */
        pkt_clear(p);
        return;
    }
    if (e->exits) {
        exit_packet(a, p, e->t);
        /* Its probabilities are spent; a mix loop goes on as a packet of no one's. */
        pkt_clear(p);
        if (!p->loop) return;
    }
    if (a->role[e->to] == ROLE_MIXING) {
        pool_add(a, &a->pools[e->to], p, e->exits ? 1 : e->split);
        pkt_clear(p);
    }
}

static void depart(rc_anon *a, const event *e)
{
    pkt *p = &a->slots[e->slot];
    uint8_t role = a->role[e->from];
    if (role == ROLE_CLIENT) {
        p->sender = e->from; /* its targets came with the carry reports */
    } else if (role == ROLE_MIXING) {
        pool_take(a, &a->pools[e->from], p);
    } else if (e->parent != NONE32) {
        /* A part of a bundle split at a node that reveals the split: the
         * bundle's estimate, its targets shared among its parts. */
        const pkt *b = &a->slots[e->parent];
        pkt_clear(p);
        for (uint32_t i = 0; i < b->nt; i++) pkt_add_target(p, b->tk[i], b->tq[i] / b->split);
        p->sender = b->sender;
        if (b->sv != NULL) {
            p->sv = b->sv;
            p->sv->refs++;
        }
    }
    if (e->parent != NONE32) pkt_unref(a, e->parent);
    if (e->received == e->t) {
        event r = *e;
        arrive(a, &r);
        pkt_unref(a, e->slot);
    } else {
        event r = *e;
        r.t = e->received;
        r.phase = 0;
        r.kind = EV_ARR;
        heap_push(a, r);
    }
}

static void process(rc_anon *a, const event *e)
{
    switch (e->kind) {
    case EV_DEP: depart(a, e); return; /* keeps its reference for the arrival */
    case EV_ARR: arrive(a, e); break;
    case EV_CREATE:
        a->slots[e->slot].origin = e->to;
        if (a->role[e->to] == ROLE_MIXING) pool_add(a, &a->pools[e->to], &a->slots[e->slot], 1);
        break;
    case EV_END: break; /* its arrival ended it (arrive) */
    }
    pkt_unref(a, e->slot);
}

/* Processes every event before `limit`. */
static void drain(rc_anon *a, rc_time limit)
{
    while (a->n_heap > 0 && a->heap[0].t < limit) {
        event e = heap_pop(a);
        process(a, &e);
    }
}

/* ---------- wire hooks ---------- */

static void on_link(void *ctx, const rc_wire_link *l)
{
    rc_anon *a = ctx;
    drain(a, a->sim->now);
    uint64_t seq = a->seq++;
    if (l->kind == RC_WIRE_PULL) {
        uint32_t k = map_get(a->bkey, a->bval, a->bcap, l->body);
        if (k != NONE32) {
            a->tg[k].pulled = l->sent;
            map_del(a->bkey, a->bval, a->bcap, &a->bn, l->body);
        }
        trace_row(a, 'P', seq, RC_WIRE_NONE, RC_WIRE_NONE, l->from, l->to, l->sent, l->received,
                  1, false, k, true);
        return;
    }
    uint32_t slot = map_get(a->hkey, a->hval, a->hcap, l->packet);
    if (slot == NONE32) slot = pkt_new(a, l->packet);
    pkt *p = &a->slots[slot];
    p->refs++;
    event e = {0};
    e.seq = seq;
    e.slot = slot;
    e.parent = NONE32;
    e.from = l->from;
    e.to = l->to;
    e.split = l->split;
    e.exits = l->exits;
    e.received = l->received;
    uint32_t target = NONE32;
    char kind = 'L';
    switch (l->kind) {
    case RC_WIRE_LINK:
        e.t = l->sent;
        e.phase = 1;
        e.kind = EV_DEP;
        if (l->split > 1) p->split = l->split;
        if (l->parent != RC_WIRE_NONE) {
            e.parent = map_get(a->hkey, a->hval, a->hcap, l->parent);
            RC_ASSERT(e.parent != NONE32);
            a->slots[e.parent].refs++;
            /* Which tracked message it carries (ground truth, for the sender view). */
            if (l->body != NONE32) {
                target = map_get(a->bkey, a->bval, a->bcap, l->body);
                p = &a->slots[slot];
                p->target = target;
            }
        }
        break;
    case RC_WIRE_CREATE:
        e.t = l->sent;
        e.phase = 0;
        e.kind = EV_CREATE;
        p->loop = true;
        kind = 'C';
        break;
    case RC_WIRE_END:
        e.t = l->received;
        e.phase = 0;
        e.kind = EV_END;
        kind = 'E';
        break;
    case RC_WIRE_PULL: break;
    }
    heap_push(a, e);
    trace_row(a, kind, seq, l->packet, l->parent, l->from, l->to, l->sent, l->received, l->split,
              l->exits, target, l->real);
}

/* The kept keys form a max-heap (kept[0] has the largest key). */
static bool key_above(const rc_anon *a, uint32_t x, uint32_t y)
{
    return a->tg[x].key > a->tg[y].key;
}

static void kept_sift_down(rc_anon *a, uint32_t i)
{
    for (;;) {
        uint32_t c = 2 * i + 1, m = i;
        if (c < a->n_kept && key_above(a, a->kept[c], a->kept[m])) m = c;
        if (c + 1 < a->n_kept && key_above(a, a->kept[c + 1], a->kept[m])) m = c + 1;
        if (m == i) return;
        uint32_t t = a->kept[i];
        a->kept[i] = a->kept[m];
        a->kept[m] = t;
        i = m;
    }
}

static void kept_push(rc_anon *a, uint32_t k)
{
    uint32_t i = a->n_kept++;
    a->kept[i] = k;
    while (i > 0 && key_above(a, a->kept[i], a->kept[(i - 1) / 2])) {
        uint32_t p = (i - 1) / 2, t = a->kept[i];
        a->kept[i] = a->kept[p];
        a->kept[p] = t;
        i = p;
    }
}

/* Room for one more target in the tables indexed by target. */
static void grow_targets(rc_anon *a)
{
    if (a->n_tg < a->cap_tg) return;
    uint32_t cap = a->cap_tg ? a->cap_tg * 2 : 1024;
    a->tg = rc_xrealloc(a->tg, cap * sizeof *a->tg);
    for (uint32_t v = 0; v < a->nodes; v++) {
        pool *q = &a->pools[v];
        if (a->role[v] != ROLE_MIXING) continue;
        q->s = rc_xrealloc(q->s, cap * sizeof *q->s);
        q->act = rc_xrealloc(q->act, cap * sizeof *q->act);
        q->in_act = rc_xrealloc(q->in_act, cap);
        memset(q->s + a->cap_tg, 0, (cap - a->cap_tg) * sizeof *q->s);
        memset(q->in_act + a->cap_tg, 0, cap - a->cap_tg);
    }
    a->cap_tg = cap;
}

/* A real sub-message left in bundle `packet`.  Sent inside the window, it
 * draws a key, and it is tracked while its key is among the N smallest: the
 * tracked messages are a uniform sample of the window's messages, chosen
 * without looking at the network (docs/spec.md §10.2).  A message whose key
 * falls out of the N smallest is dropped: its probabilities are ignored from
 * then on. */
static void on_carry(void *ctx, uint64_t packet, uint32_t body, uint32_t sender,
                     uint32_t recipient, rc_time now)
{
    rc_anon *a = ctx;
    if (now < a->from || now >= a->until || a->want == 0) return;
    double key = rc_rng_uniform(a->rng);
    if (a->n_kept == a->want && key >= a->tg[a->kept[0]].key) return;
    if (a->n_kept == a->want) {
        uint32_t out = a->kept[0];
        a->tg[out].dropped = true;
        if (a->tg[out].pulled < 0) map_del(a->bkey, a->bval, a->bcap, &a->bn, a->tg[out].body);
        a->kept[0] = a->kept[--a->n_kept];
        kept_sift_down(a, 0);
        trace_row(a, 'X', a->seq++, RC_WIRE_NONE, RC_WIRE_NONE, 0, 0, now, now, 1, false, out,
                  true);
    }
    grow_targets(a);
    uint32_t k = a->n_tg++;
    a->tg[k] = (tracked){sender, recipient, body, now, -1, -1, 0, 0, 0, NAN, key, false, false};
    kept_push(a, k);
    map_put(&a->bkey, &a->bval, &a->bcap, &a->bn, body, k);
    uint32_t slot = map_get(a->hkey, a->hval, a->hcap, packet);
    RC_ASSERT(slot != NONE32);
    pkt_add_target(&a->slots[slot], k, 1.0);
    trace_row(a, 'T', a->seq++, packet, RC_WIRE_NONE, sender, recipient, now, now, 1, false, k,
              true);
}

/* ---------- construction ---------- */

/* Marks round(f * count) of nodes first .. first+count-1 as corrupted, drawn by r. */
static uint64_t corrupt_some(rc_anon *a, gsl_rng *r, uint32_t first, uint32_t count, double f)
{
    uint32_t want = (uint32_t)llround(f * count);
    uint32_t *idx = rc_xmalloc((count ? count : 1) * sizeof *idx);
    for (uint32_t i = 0; i < count; i++) idx[i] = first + i;
    for (uint32_t i = 0; i < want; i++) {
        uint32_t j = i + rc_rng_below(r, count - i);
        uint32_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
        a->corrupt[idx[i]] = true;
    }
    free(idx);
    return want;
}

rc_anon *rc_anon_new(rc_sim *sim, rc_net *net, const rc_anon_cfg *cfg, rc_err *err)
{
    rc_anon *a = rc_xcalloc(1, sizeof *a);
    a->sim = sim;
    a->net = net;
    a->stop = sim->stop;
    a->users = rc_net_users(net);
    a->providers = rc_net_providers(net);
    a->nodes = rc_net_nodes(net);
    a->sender_view = a->users <= RC_ANON_SENDER_MAX_USERS;
    a->free_slot = NONE32;
    if (cfg->trace_path != NULL && cfg->trace_path[0] != '\0') {
        a->trace = fopen(cfg->trace_path, "w");
        if (a->trace == NULL) {
            rc_err_set(err, RC_EXIT_USAGE, "anon_trace: cannot create '%s': %s",
                       cfg->trace_path, strerror(errno));
            free(a);
            return NULL;
        }
        a->trace_path = rc_xstrdup(cfg->trace_path);
    }
    a->role = rc_xcalloc(a->nodes, 1);
    a->corrupt = rc_xcalloc(a->nodes, sizeof *a->corrupt);
    gsl_rng *r = a->rng = rc_rng_new(cfg->seed, STREAM_ANON);
    uint32_t mixes = rc_net_mix_layers(net) * rc_net_mixes_per_layer(net);
    a->sum.corrupt_mixes =
        a->n_corrupt_mixes = corrupt_some(a, r, rc_net_node_mix(net, 0, 0), mixes, cfg->corrupt_mixes);
    a->sum.corrupt_providers = a->n_corrupt_providers =
        corrupt_some(a, r, rc_net_node_provider(net, 0), a->providers, cfg->corrupt_providers);
    a->pools = rc_xcalloc(a->nodes, sizeof *a->pools);
    for (uint32_t i = 0; i < a->nodes; i++) {
        bool provider = i >= a->users && i < a->users + a->providers;
        bool mixing = i >= a->users && (!provider || rc_net_provider_mixes(net));
        a->role[i] = i < a->users ? ROLE_CLIENT : (mixing && !a->corrupt[i]) ? ROLE_MIXING : ROLE_PASS;
        if (a->role[i] != ROLE_MIXING) continue;
        pool *q = &a->pools[i];
        q->c = 1;
        if (a->sender_view) q->b = rc_xcalloc(a->users, sizeof *q->b);
    }
    /* Tracked messages: a uniform sample of the real sub-messages sent
     * between the warm-up and the cool-down (on_carry, docs/spec.md §10.2). */
    double settle = RC_ANON_SETTLE_PATHS * rc_net_hops(net) * rc_net_mean_hop_delay_s(net);
    double from = settle, until = (double)sim->stop / 1e6 - settle;
    if (until > from) {
        a->from = (rc_time)llround(from * 1e6);
        a->until = (rc_time)llround(until * 1e6);
        a->want = cfg->targets;
    } else {
        fprintf(stderr,
                "rcsim: anonymity: the run (%.0f s) is too short for a warm-up and a cool-down "
                "of %.1f s each: no message is tracked\n",
                (double)sim->stop / 1e6, settle);
    }
    a->kept = rc_xmalloc((a->want ? a->want : 1) * sizeof *a->kept);
    grow_targets(a);

    if (a->trace) {
        fprintf(a->trace, "# rcsim anon-trace 1 (docs/spec.md §10.6)\n");
        fprintf(a->trace,
                "# users=%u providers=%u mix_layers=%u mixes_per_layer=%u provider_mixes=%d "
                "stop_us=%lld\n",
                a->users, a->providers, rc_net_mix_layers(net), rc_net_mixes_per_layer(net),
                rc_net_provider_mixes(net) ? 1 : 0, (long long)a->stop);
        fprintf(a->trace, "# corrupt=");
        bool first = true;
        for (uint32_t i = 0; i < a->nodes; i++)
            if (a->corrupt[i]) {
                fprintf(a->trace, first ? "%u" : ";%u", i);
                first = false;
            }
        fprintf(a->trace, "\nrow,kind,packet,parent,from,to,sent_us,received_us,split,exits,"
                          "target,real\n");
    }
    rc_net_observe(net, (rc_net_wire){a, on_link, on_carry});
    return a;
}

/* ---------- results ---------- */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* numpy.percentile's linear rule on a sorted array. */
static double percentile(const double *v, size_t n, double q)
{
    if (n == 0) return NAN;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (pos - (double)lo) * (v[hi] - v[lo]);
}

int rc_anon_finish(rc_anon *a, rc_err *err)
{
    drain(a, a->stop);
    a->rec = rc_xcalloc(a->n_tg ? a->n_tg : 1, sizeof *a->rec);
    double *h = rc_xmalloc((a->n_tg ? a->n_tg : 1) * sizeof *h);
    double hsum = 0, minsum = 0, ssum = 0;
    for (uint32_t k = 0; k < a->n_tg; k++) {
        const tracked *g = &a->tg[k];
        if (!g->exited || g->dropped) continue;
        rc_anon_record *r = &a->rec[a->n_rec++];
        r->target = k;
        r->sender = g->sender;
        r->recipient = g->recipient;
        r->sent_s = (double)g->sent / 1e6;
        r->latency_s = g->pulled >= 0 ? (double)(g->pulled - g->sent) / 1e6 : NAN;
        /* Normalised over the probability that left the mixes (docs/spec.md §10.4):
         * -sum (q/M) log2(q/M) = h/M + log2 M. */
        r->entropy_bits = g->mass > 0 ? g->h / g->mass + log2(g->mass) : NAN;
        r->min_entropy_bits = g->maxq > 0 ? -log2(g->maxq / g->mass) : NAN;
        r->sender_entropy_bits = g->sender_h;
        r->mass = g->mass;
        h[a->n_rec - 1] = r->entropy_bits;
        hsum += r->entropy_bits;
        minsum += r->min_entropy_bits;
        ssum += g->sender_h;
    }
    size_t n = a->n_rec;
    qsort(h, n, sizeof *h, cmp_double);
    a->sum.targets = n;
    a->sum.entropy_mean_bits = n ? hsum / (double)n : NAN;
    a->sum.entropy_median_bits = percentile(h, n, 0.5);
    a->sum.entropy_p5_bits = percentile(h, n, 0.05);
    a->sum.min_entropy_mean_bits = n ? minsum / (double)n : NAN;
    a->sum.sender_entropy_mean_bits = n && a->sender_view ? ssum / (double)n : NAN;
    free(h);
    if (a->trace == NULL) return 0;
    /* The simulator's own values, beside the observations, for comparison. */
    int bad = ferror(a->trace);
    bad |= fclose(a->trace);
    a->trace = NULL;
    size_t len = strlen(a->trace_path) + 16;
    char *path = rc_xmalloc(len);
    snprintf(path, len, "%s.targets.csv", a->trace_path);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fprintf(f, "target,sender,recipient,sent_s,latency_s,entropy_bits,min_entropy_bits,"
                   "sender_entropy_bits,mass\n");
        for (size_t i = 0; i < a->n_rec; i++) {
            const rc_anon_record *r = &a->rec[i];
            fprintf(f, "%u,%u,%u,%.6f,%.17g,%.17g,%.17g,%.17g,%.17g\n", r->target, r->sender,
                    r->recipient, r->sent_s, r->latency_s, r->entropy_bits, r->min_entropy_bits,
                    r->sender_entropy_bits, r->mass);
        }
        bad |= ferror(f);
        bad |= fclose(f);
    } else {
        bad = 1;
    }
    if (bad) {
        rc_err_set(err, RC_EXIT_RUNTIME, "anon_trace: writing '%s' or '%s' failed", a->trace_path,
                   path);
        free(path);
        return RC_EXIT_RUNTIME;
    }
    free(path);
    return 0;
}

void rc_anon_summarize(const rc_anon *a, rc_anon_summary *out) { *out = a->sum; }

const rc_anon_record *rc_anon_records(const rc_anon *a, size_t *n)
{
    *n = a->n_rec;
    return a->rec;
}

void rc_anon_free(rc_anon *a)
{
    if (a == NULL) return;
    if (a->trace) fclose(a->trace);
    for (uint32_t i = 0; i < a->nodes; i++) {
        pool *q = &a->pools[i];
        free(q->s);
        free(q->act);
        free(q->in_act);
        free(q->b);
        sv_release(q->snap);
    }
    for (uint32_t i = 0; i < a->n_slots; i++) {
        sv_release(a->slots[i].sv);
        free(a->slots[i].tk);
        free(a->slots[i].tq);
    }
    free(a->pools);
    free(a->slots);
    free(a->hkey);
    free(a->hval);
    free(a->heap);
    free(a->kept);
    free(a->tg);
    if (a->rng) rc_rng_free(a->rng);
    free(a->bkey);
    free(a->bval);
    free(a->role);
    free(a->corrupt);
    free(a->rec);
    free(a->trace_path);
    free(a);
}
