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
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

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
        memcpy(k, pkt_tk(p), p->nt * sizeof *k);
    }
    rc_anon__tl_release(a, p);
    p->tq = b;
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
    pkt_tk(p)[p->nt] = k;
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

/* Pairs (tk[i], tq[i]) join pool q's per-target sums, in their order (a new
 * target goes to the end of the pool's list); those left out of the sample are
 * skipped, unless `live` says none is (a pool's own targets, which
 * rc_anon__target_drop takes out of every pool when they leave). */
static inline void pool_add_targets(rc_anon *a, pool *q, const uint32_t *tk, const double *tq,
                                    uint32_t nt, bool live)
{
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t k = tk[i];
        if (!live && a->dropped[k]) continue;
        uint32_t at = q->pos[k];
        if (at == 0) {
            if (q->n_act == q->cap_act) {
                q->cap_act = q->cap_act ? q->cap_act * 2 : 16;
                q->act = rc_xrealloc(q->act, q->cap_act * sizeof *q->act);
                q->sa = rc_xrealloc(q->sa, q->cap_act * sizeof *q->sa);
                if (q->lq != NULL) {
                    q->lq = rc_xrealloc(q->lq, q->cap_act * sizeof *q->lq);
                    q->lx = rc_xrealloc(q->lx, q->cap_act * sizeof *q->lx);
                }
            }
            at = q->pos[k] = ++q->n_act;
            q->act[at - 1] = k;
            q->sa[at - 1] = 0; /* (0 + x is x: the sum as a dense one) */
            if (q->lq != NULL) q->lq[at - 1] = 0;
        }
        q->sa[at - 1] += tq[i];
    }
}

/* A packet's estimates join pool q as `parts` pooled packets. */
void rc_anon__pool_add(rc_anon *a, pool *q, const pkt *p, uint32_t parts)
{
    pool_add_targets(a, q, pkt_tk(p), p->tq, p->nt, false);
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
            if (q->lq != NULL) {
                q->lq[at - 1] = q->lq[last];
                q->lx[at - 1] = q->lx[last];
            }
            q->pos[q->act[at - 1]] = at;
        }
        q->pos[k] = 0;
        q->n_act = last;
    }
}

void rc_anon__exit_targets(rc_anon *a, const uint32_t *tk, const double *tq, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        double q = tq[i];
        if (q <= 0 || a->tg[tk[i]].dropped) continue;
        exit_sums *g = &a->xs[tk[i]];
        g->h -= q * log2(q);
        if (q > g->maxq) g->maxq = q;
        g->mass += q;
    }
}

/* rc_anon__exit_targets for the means tq of pool q's live targets (in act's
 * order), with q * log2(q) taken from the pool's last one (lq, lx) when q is
 * bit for bit the same: the same value, half the calls to log2.  Which half
 * follows no pattern, so the targets that need a log2 are listed first
 * (without a branch), their log2 taken in a loop of their own, and the sums
 * then added in act's order as before: the same values in the same order,
 * with no mispredicted branch per target. */
static void exit_pool_targets(rc_anon *a, pool *q, const double *tq)
{
    uint32_t n_act = q->n_act;
    if (q->lq == NULL && q->cap_act > 0) {
        q->lq = rc_xcalloc(q->cap_act, sizeof *q->lq);
        q->lx = rc_xcalloc(q->cap_act, sizeof *q->lx);
    }
    if (n_act > a->exit_cap) {
        a->exit_cap = n_act > 2 * a->exit_cap ? n_act : 2 * a->exit_cap;
        free(a->exit_idx);
        a->exit_idx = rc_xmalloc(a->exit_cap * sizeof *a->exit_idx);
    }
    const uint32_t *act = q->act;
    double *restrict lq = q->lq, *restrict lx = q->lx;
    uint32_t *restrict idx = a->exit_idx, n_new = 0, i = 0;
    for (; i + 2 <= n_act; i += 2) { /* (two compares in one, as in rc_anon__pool_pass) */
        v2d t2 = ld2(tq + i);
        v2l need = (t2 > zero2) & (t2 != ld2(lq + i));
        idx[n_new] = i;
        n_new += (uint32_t)(need[0] & 1);
        idx[n_new] = i + 1;
        n_new += (uint32_t)(need[1] & 1);
    }
    for (; i < n_act; i++) {
        idx[n_new] = i;
        n_new += tq[i] > 0 && tq[i] != lq[i];
    }
    for (uint32_t j = 0; j < n_new; j++) {
        uint32_t t = idx[j];
        double m = tq[t];
        lq[t] = m;
        lx[t] = m * log2(m);
    }
    for (i = 0; i < n_act; i++) {
        double m = tq[i];
        if (m <= 0) continue; /* (no target in a pool is dropped: rc_anon__target_drop) */
        exit_sums *g = &a->xs[act[i]];
        g->h -= lx[i];
        if (m > g->maxq) g->maxq = m;
        g->mass += m;
    }
}

/* ---------- a departure's quotients ----------
 * m = s / n and s - m for every live target of the pool: the division was a
 * fifth of the observer's own loops (2 cycles a quotient however wide the
 * vector).  Where the processor has AVX2 and FMA the quotient is computed
 * with multiplications instead, to the same bits (Markstein's theorem: with
 * y = RN(1/n) and q within one ulp of s/n, r = s - n q is exact in an FMA and
 * RN(q + r y) is RN(s/n)).  q0 = RN(s y) can be up to 1.5 ulp off, so one
 * such step first brings it within one ulp (its error is then half an ulp
 * plus r y's, some 2^-52 of an ulp), and a second gives RN(s/n).  No value is
 * near the subnormals, where the residual would not be exact (a sum is at
 * least PRUNE over a few pools' sizes).  `tests/test_anon_sender.c` compares
 * the two on 10^7 quotients, and a run with --check compares every one. */

#if defined(__x86_64__) && defined(__GNUC__)
#define QUOT_X86 1
#else
#define QUOT_X86 0
#endif

/* the sums from `from` on */
static int quotients_div(double *restrict sa, double *restrict tq, uint32_t from,
                         uint32_t n_act, double n)
{
    /* two targets at a time in vector divisions (each quotient and
     * difference as the scalar code's; GCC left the scalar loop scalar) */
    const v2d vn = {n, n}, vprune = {PRUNE, PRUNE};
    v2l vlow = {0, 0};
    uint32_t i2 = from;
    for (; i2 + 2 <= n_act; i2 += 2) {
        v2d s2 = ld2(sa + i2), m2 = s2 / vn, rest2 = s2 - m2;
        st2(tq + i2, m2);
        st2(sa + i2, rest2);
        vlow |= rest2 < vprune;
    }
    int low = (vlow[0] | vlow[1]) != 0;
    for (; i2 < n_act; i2++) {
        double m = sa[i2] / n, rest = sa[i2] - m;
        tq[i2] = m;
        sa[i2] = rest;
        low |= rest < PRUNE;
    }
    return low;
}

#if QUOT_X86
__attribute__((target("avx2,fma"))) static int quotients_fma(double *restrict sa,
                                                            double *restrict tq, uint32_t n_act,
                                                            double n)
{
    const __m256d minus_n = _mm256_set1_pd(-n), y = _mm256_set1_pd(1.0 / n),
                  prune = _mm256_set1_pd(PRUNE);
    __m256d low = _mm256_setzero_pd();
    uint32_t i = 0;
    for (; i + 4 <= n_act; i += 4) {
        __m256d s = _mm256_loadu_pd(sa + i);
        __m256d q = _mm256_mul_pd(s, y);
        q = _mm256_fmadd_pd(_mm256_fmadd_pd(minus_n, q, s), y, q); /* within one ulp */
        q = _mm256_fmadd_pd(_mm256_fmadd_pd(minus_n, q, s), y, q); /* RN(s / n) */
        __m256d rest = _mm256_sub_pd(s, q);
        _mm256_storeu_pd(tq + i, q);
        _mm256_storeu_pd(sa + i, rest);
        low = _mm256_or_pd(low, _mm256_cmp_pd(rest, prune, _CMP_LT_OQ));
    }
    int any = _mm256_movemask_pd(low) != 0;
    return quotients_div(sa, tq, i, n_act, n) | any; /* (the last few) */
}
#endif

bool rc_anon__quotients_fma_runs(void)
{
#if QUOT_X86
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

int rc_anon__quotients(bool fma, double *sa, double *tq, uint32_t n_act, double n)
{
#if QUOT_X86
    if (fma && rc_check_enabled) { /* each quotient against the division */
        for (uint32_t i = 0; i < n_act; i++) {
            double s4[4] = {sa[i], sa[i], sa[i], sa[i]}, q4[4]; /* (the vector body's) */
            quotients_fma(s4, q4, 4, n);
            RC_DCHECK(q4[0] == sa[i] / n && s4[0] == sa[i] - sa[i] / n,
                      "anonymity: %.17g / %.17g by FMA is %.17g, not %.17g", sa[i], n, q4[0],
                      sa[i] / n);
        }
    }
    if (fma) return quotients_fma(sa, tq, n_act, n);
#else
    (void)fma;
#endif
    return quotients_div(sa, tq, 0, n_act, n);
}

/* A packet leaves pool q: it takes the mean. */
void rc_anon__pool_take(rc_anon *a, pool *q, pkt *p) { rc_anon__pool_pass(a, q, p, TAKE_KEEP, NULL); }

/* A packet leaves pool q with its mean, which goes where `to` says.  The list
 * a packet took was its pool's live targets, copied at every departure into a
 * block of its own and read once more at the next pool or the exit; with its
 * arrival inside its departure (no link delay) that next use is done here from
 * the means, pair by pair in the list's order (the same operations in the
 * same order: only the copy is gone). */
void rc_anon__pool_pass(rc_anon *a, pool *q, pkt *p, int to, pool *dest)
{
    pkt_forget(a, p); /* (its block, if any, is reused just below) */
    if (q->n <= 0) {
        RC_DCHECK(false, "anonymity: a packet left an empty pool");
        return;
    }
    if (a->sl != NULL) rc_anon__slog_depart(a, (uint32_t)(q - a->pools), q->n, p);
    double n = (double)q->n;
    uint32_t n_act = q->n_act;
    double *restrict sa = q->sa, *restrict tq;
    uint32_t *act = q->act, *pos = q->pos;
    if (to == TAKE_KEEP) {
        rc_anon__tl_reserve(a, p, n_act); /* (p->nt is 0: nothing to copy) */
        tq = p->tq;
        if (n_act > 0) memcpy(pkt_tk(p), act, n_act * sizeof *act);
    } else {
        if (n_act > a->take_cap) {
            a->take_cap = n_act > 2 * a->take_cap ? n_act : 2 * a->take_cap;
            free(a->take_q);
            a->take_q = rc_xmalloc(a->take_cap * sizeof *a->take_q);
        }
        tq = a->take_q;
    }
    /* Every live target's mean goes with the packet (no target in a pool has
     * left the sample: rc_anon__target_drop), the rest stays: a loop without a
     * branch. */
    int low = rc_anon__quotients(a->quot_fma, sa, tq, n_act, n);
    /* the list's next use, in its order (act's, before the compaction below) */
    if (to == TAKE_EXIT) exit_pool_targets(a, q, tq);
    else if (to == TAKE_POOL) pool_add_targets(a, dest, act, tq, n_act, true);
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
            if (q->lq != NULL) {
                q->lq[kept] = q->lq[i];
                q->lx[kept] = q->lx[i];
            }
        }
        kept++;
    }
    p->nt = to == TAKE_KEEP ? n_act : 0;
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
