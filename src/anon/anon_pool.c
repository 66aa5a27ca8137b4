/* anon_pool: the sparse distributions the adversary's packets carry and the
 * pools of its mixing nodes (anon/anon_internal.h, docs/spec.md §10.3).
 *
 * A packet carries (target, probability) pairs for the tracked messages it
 * may hold, and a sender estimate: one-hot, or a shared dense vector (sview).
 * A pool keeps per-target sums with a list of the non-zero ones, and the
 * sender sums as c * b.  These are the loops every observed hop runs, so they
 * are written for speed (locals the compiler keeps in registers, blocks of 4
 * it vectorises, recycled sender vectors), each value computed in the same
 * order as before, so that results are unchanged to the bit.
 */
#include <stdlib.h>
#include <string.h>

#include "anon/anon_internal.h"

/* Dense per-user vectors are users4 long, zero past the users: the loops
 * over them run in blocks of 4, which the compiler turns into vector
 * instructions at -O2 (each element computed as before: same results). */
static void vec_scale(double *restrict y, const double *restrict x, double f, uint32_t n4)
{
    for (uint32_t u = 0; u < n4; u += 4) {
        y[u] = f * x[u];
        y[u + 1] = f * x[u + 1];
        y[u + 2] = f * x[u + 2];
        y[u + 3] = f * x[u + 3];
    }
}

static void vec_axpy(double *restrict y, const double *restrict x, double w, uint32_t n4)
{
    for (uint32_t u = 0; u < n4; u += 4) {
        y[u] += w * x[u];
        y[u + 1] += w * x[u + 1];
        y[u + 2] += w * x[u + 2];
        y[u + 3] += w * x[u + 3];
    }
}

/* A sender estimate with one reference: from the free list when it can (a
 * packet leaving a pool changed since the last one needs a fresh one, millions
 * of times a run). */
sview *rc_anon__sv_new(rc_anon *a)
{
    sview *s = a->n_sv_free > 0 ? a->sv_free[--a->n_sv_free]
                                : rc_xmalloc(sizeof *s + a->users4 * sizeof(double));
    s->refs = 1;
    return s;
}

void rc_anon__sv_release(rc_anon *a, sview *s)
{
    if (s == NULL || --s->refs > 0) return;
    if (a->n_sv_free == a->cap_sv_free) {
        a->cap_sv_free = a->cap_sv_free ? a->cap_sv_free * 2 : 1024;
        a->sv_free = rc_xrealloc(a->sv_free, a->cap_sv_free * sizeof *a->sv_free);
    }
    a->sv_free[a->n_sv_free++] = s;
}

static void pkt_forget(rc_anon *a, pkt *p)
{
    p->nt = 0;
    rc_anon__sv_release(a, p->sv);
    p->sv = NULL;
    p->sid1 = 0;
    p->sender = NONE32;
}

/* Its list is spent (it joined a pool, exited, ended): a long block goes back to
 * its class at once.  Most packets wait in pools, and each kept the block of
 * its last hop, as long as that pool's live targets: two thirds of a
 * population's memory. */
void rc_anon__pkt_clear(rc_anon *a, pkt *p)
{
    pkt_forget(a, p);
    if (p->capt > TL_PKT_KEEP) rc_anon__tl_release(a, p);
}

/* ---------- target lists ----------
 * A packet's (target, probability) list is one block: capt doubles, then capt
 * u32.  Blocks are 4 << c entries long and go back to a free list of their
 * class, not to malloc: packets leaving a pool take lists as long as its live
 * targets, millions of times a run, and malloc's bookkeeping for them was a
 * sixth of a population's run.  A class's free list holds at most
 * TL_KEEP_MIN blocks or 1/TL_KEEP_DIV of the class's blocks in use, whichever
 * is more; the rest go back to malloc. */

static unsigned tl_class(uint32_t need)
{
    unsigned c = 0;
    while ((4u << c) < need) c++;
    return c;
}

void rc_anon__tl_release(rc_anon *a, pkt *p)
{
    if (p->tq != NULL) {
        unsigned c = tl_class(p->capt);
        a->tl_used[c]--;
        uint64_t keep = a->tl_used[c] / TL_KEEP_DIV;
        if (keep < TL_KEEP_MIN) keep = TL_KEEP_MIN;
        if (a->tl_nfree[c] >= keep) {
            /* The class shrank: its blocks go back to malloc, which can give
             * their memory to the other classes (the lists are long while many
             * tracked messages are live, short later: unbounded free lists kept
             * the peak of every class at once).  One more from the list, so
             * that the list follows the class down. */
            free(p->tq);
            a->tl_bytes -= (4ull << c) * 12;
            if (a->tl_nfree[c] > keep) {
                void *b = a->tl_free[c];
                a->tl_free[c] = *(void **)b;
                a->tl_nfree[c]--;
                free(b);
                a->tl_bytes -= (4ull << c) * 12;
            }
        } else {
            *(void **)p->tq = a->tl_free[c];
            a->tl_free[c] = p->tq;
            a->tl_nfree[c]++;
        }
    }
    p->tq = NULL;
    p->tk = NULL;
    p->capt = 0;
}

void rc_anon__tl_reserve(rc_anon *a, pkt *p, uint32_t need)
{
    if (need <= p->capt) return;
    unsigned c = tl_class(need);
    RC_ASSERT(c < TL_CLASSES);
    uint32_t cap = 4u << c;
    double *b = a->tl_free[c];
    if (b != NULL) {
        a->tl_free[c] = *(void **)b;
        a->tl_nfree[c]--;
    } else {
        b = rc_xmalloc((size_t)cap * (sizeof(double) + sizeof(uint32_t)));
        a->tl_bytes += (uint64_t)cap * 12;
        if (a->tl_bytes > a->tl_peak) a->tl_peak = a->tl_bytes;
    }
    a->tl_used[c]++;
    uint32_t *k = (uint32_t *)(b + cap);
    if (p->nt > 0) {
        memcpy(b, p->tq, p->nt * sizeof *b);
        memcpy(k, p->tk, p->nt * sizeof *k);
    }
    rc_anon__tl_release(a, p);
    p->tq = b;
    p->tk = k;
    p->capt = cap;
}

void rc_anon__tl_free_all(rc_anon *a)
{
    for (unsigned c = 0; c < TL_CLASSES; c++)
        while (a->tl_free[c] != NULL) {
            void *b = a->tl_free[c];
            a->tl_free[c] = *(void **)b;
            free(b);
        }
    memset(a->tl_nfree, 0, sizeof a->tl_nfree);
}

void rc_anon__pkt_add_target(rc_anon *a, pkt *p, uint32_t k, double q)
{
    if (p->nt == p->capt) rc_anon__tl_reserve(a, p, p->nt + 1);
    p->tk[p->nt] = k;
    p->tq[p->nt] = q;
    p->nt++;
}

/* ---------- pools ---------- */

void rc_anon__pool_reset(rc_anon *a, pool *q)
{
    for (uint32_t i = 0; i < q->n_act; i++) q->pos[q->act[i]] = 0;
    q->n_act = 0;
    if (a->sender_view) {
        memset(q->b, 0, a->users4 * sizeof *q->b);
        q->c = 1;
    }
    rc_anon__sv_release(a, q->snap);
    q->snap = NULL;
}

/* A packet's estimates join pool q as `parts` pooled packets. */
void rc_anon__pool_add(rc_anon *a, pool *q, const pkt *p, uint32_t parts)
{
    for (uint32_t i = 0; i < p->nt; i++) {
        uint32_t k = p->tk[i];
        if (a->dropped[k]) continue;
        uint32_t at = q->pos[k];
        if (at == 0) {
            if (q->n_act == q->cap_act) {
                q->cap_act = q->cap_act ? q->cap_act * 2 : 16;
                q->act = rc_xrealloc(q->act, q->cap_act * sizeof *q->act);
                q->sa = rc_xrealloc(q->sa, q->cap_act * sizeof *q->sa);
            }
            at = q->pos[k] = ++q->n_act;
            q->act[at - 1] = k;
            q->sa[at - 1] = 0; /* (0 + x is x: the sum as a dense one) */
        }
        q->sa[at - 1] += p->tq[i];
    }
    if (a->sender_view) {
        double w = parts / q->c;
        if (p->sender != NONE32) q->b[p->sender] += w;
        else if (p->sv != NULL)
            vec_axpy(q->b, p->sv->v, w, a->users4);
    }
    if (a->sl != NULL) rc_anon__slog_arrive(a, (uint32_t)(q - a->pools), p, parts);
    q->n += parts;
    rc_anon__sv_release(a, q->snap);
    q->snap = NULL;
}

/* Target k left the sample: it leaves every pool at once, its sums never read
 * again, so that a departure's loop need not ask (one byte looked up per live
 * target and departure, a sixth of the loop).  The order of a pool's targets
 * is no part of any value: each target's sums and means are its own. */
void rc_anon__target_drop(rc_anon *a, uint32_t k)
{
    a->dropped[k] = 1;
    for (uint32_t v = a->users; v < a->nodes; v++) {
        if (a->role[v] != ROLE_MIXING) continue;
        pool *q = &a->pools[v];
        uint32_t at = q->pos[k];
        if (at == 0) continue;
        uint32_t last = q->n_act - 1;
        if (at - 1 != last) {
            q->act[at - 1] = q->act[last];
            q->sa[at - 1] = q->sa[last];
            q->pos[q->act[at - 1]] = at;
        }
        q->pos[k] = 0;
        q->n_act = last;
    }
}

/* A packet leaves pool q: it takes the mean. */
void rc_anon__pool_take(rc_anon *a, pool *q, pkt *p)
{
    pkt_forget(a, p); /* (its block, if any, is reused just below) */
    if (q->n <= 0) {
        RC_DCHECK(false, "anonymity: a packet left an empty pool");
        return;
    }
    if (a->sl != NULL) rc_anon__slog_depart(a, (uint32_t)(q - a->pools), q->n, p);
    double n = (double)q->n;
    uint32_t n_act = q->n_act;
    rc_anon__tl_reserve(a, p, n_act); /* (p->nt is 0: nothing to copy) */
    /* Every live target's mean goes with the packet (no target in a pool has
     * left the sample: rc_anon__target_drop), the rest stays: a loop without a
     * branch, in vector divisions (each quotient and difference as before). */
    double *restrict sa = q->sa, *restrict tq = p->tq;
    uint32_t *act = q->act, *pos = q->pos;
    if (n_act > 0) memcpy(p->tk, act, n_act * sizeof *act);
    int low = 0;
    for (uint32_t i = 0; i < n_act; i++) {
        double m = sa[i] / n, rest = sa[i] - m;
        tq[i] = m;
        sa[i] = rest;
        low |= rest < PRUNE;
    }
    /* what is left below PRUNE is dropped (at few departures) */
    uint32_t kept = low ? 0 : n_act;
    for (uint32_t i = 0; i < n_act && low; i++) {
        if (sa[i] < PRUNE) {
            pos[act[i]] = 0;
            continue;
        }
        if (kept != i) {
            act[kept] = act[i];
            pos[act[i]] = kept + 1;
            sa[kept] = sa[i];
        }
        kept++;
    }
    uint32_t nt = n_act;
    p->nt = nt;
    q->n_act = kept;
    if (a->sender_view) {
        if (q->snap == NULL) {
            q->snap = rc_anon__sv_new(a);
            vec_scale(q->snap->v, q->b, q->c / n, a->users4);
        }
        q->snap->refs++;
        p->sv = q->snap;
        q->c *= (n - 1) / n;
        if (q->c < 1e-200 && q->n > 1) {
            for (uint32_t u = 0; u < a->users4; u++) q->b[u] *= q->c;
            q->c = 1;
        }
    }
    if (--q->n == 0) rc_anon__pool_reset(a, q);
}
