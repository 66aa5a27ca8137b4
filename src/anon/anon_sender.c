/* anon_sender: what a tracked message's exit tells the adversary about its
 * sender, and the sender view above the dense limit (anon/anon_internal.h,
 * docs/spec.md §10.3-§10.4).
 *
 * Up to RC_ANON_SENDER_MAX_USERS users every packet carries a dense sender
 * estimate (anon_pool.c).  Above it that costs O(users) per hop, since after
 * one honest mix a packet's estimate is its pool's mean and covers nearly
 * every user.  The estimates are linear in the client packets, though, and
 * only the exits of tracked messages are ever read, so the log mode computes
 * each of those backward instead (reverse-mode, like an adjoint):
 *
 *  - forward, every change of an honest pool is logged (16 bytes): an arrival
 *    of `parts` pooled packets carrying one client's packet, a departure's
 *    mean (by the departure's place in the log) or nothing; a departure with the
 *    number n of packets its pool held.  A packet carries the index of the
 *    departure whose mean it took (through corrupted nodes too).
 *  - at a tracked message's exit, the log is read backward from the departure
 *    its packet carries.  Per pool, G is the weight the exit's estimate puts
 *    on the pool's summed contents B at that point of the log.  Forward, a
 *    departure takes B/n and leaves B (n-1)/n; an arrival adds parts * est.
 *    So, backward: at a departure with weight alpha on its mean,
 *    G <- G (n-1)/n + alpha/n; at an arrival, its estimate gets weight
 *    G * parts: a client gains it, a departure's alpha gains it, and
 *    "nothing" (mix loops) takes it out.  The weights reaching the clients
 *    are exactly the dense estimate (the same sums in another order).
 *  - a sweep stops when all but 1e-13 of the weight has reached clients or
 *    nothing; the log keeps 1.5 warm-ups of history, which the weight does not
 *    outlive by more than ~1e-13 (the share a message leaves after the
 *    warm-up, docs/spec.md §10.2); what would be left at the log's start is
 *    measured (slog.max_unresolved).
 *
 * Memory: 8 bytes per pool event kept (a bundle's k parts are k entries;
 * a mean is named by its distance back), for `keep` of pool events, at most
 * twice that between trims; a ring of alphas longer than the longest such
 * distance; 12 bytes per user and 8 per node of scratch.  Time: each tracked
 * exit reads the pool events of about one warm-up.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anon/anon_internal.h"

/* A checkpoint every this many entries. */
#define SL_CHECK 4096
/* A sweep stops when less than this share of the weight is left unplaced. */
#define SL_TOL 1e-13

static rc_time slog_now(const rc_anon *a) { return a->sim->now; }

void rc_anon__slog_new(rc_anon *a, rc_time keep)
{
    RC_ASSERT(a->nodes < (1u << 30));
    slog *s = rc_xcalloc(1, sizeof *s);
    s->keep = keep;
    s->g = rc_xcalloc((size_t)(a->nodes ? a->nodes : 1) * SL_LANES, sizeof *s->g);
    s->r = rc_xcalloc((size_t)(a->users ? a->users : 1) * SL_LANES, sizeof *s->r);
    s->touched = rc_xmalloc((size_t)(a->users ? a->users : 1) * SL_LANES * sizeof *s->touched);
    s->mixing = rc_xmalloc((a->nodes ? a->nodes : 1) * sizeof *s->mixing);
    for (uint32_t v = 0; v < a->nodes; v++)
        if (a->role[v] == ROLE_MIXING) s->mixing[s->n_mixing++] = v;
    a->sl = s;
}

void rc_anon__slog_free(rc_anon *a)
{
    slog *s = a->sl;
    if (s == NULL) return;
    free(s->e);
    free(s->pend);
    free(s->alpha);
    free(s->ck_t);
    free(s->ck_i);
    free(s->g);
    free(s->r);
    free(s->touched);
    free(s->mixing);
    free(s);
    a->sl = NULL;
}

/* Drops the entries older than `keep` when that frees at least half the log
 * (amortised O(1) an entry); else the log doubles. */
static void slog_room(rc_anon *a)
{
    slog *s = a->sl;
    rc_time cut = slog_now(a) - s->keep;
    size_t c = 0;
    while (c < s->ck_n && s->ck_t[c] < cut) c++;
    /* the entries before checkpoint c-1 were all logged at or before its time */
    uint64_t drop = c > 0 ? s->ck_i[c - 1] - s->base : 0;
    if (drop > 0 && drop >= s->n / 2) {
        rc_anon__slog_flush(a); /* the waiting exits read what the log holds now */
        memmove(s->e, s->e + drop, (s->n - drop) * sizeof *s->e);
        s->n -= drop;
        s->base += drop;
        memmove(s->ck_t, s->ck_t + (c - 1), (s->ck_n - (c - 1)) * sizeof *s->ck_t);
        memmove(s->ck_i, s->ck_i + (c - 1), (s->ck_n - (c - 1)) * sizeof *s->ck_i);
        s->ck_n -= c - 1;
        return;
    }
    s->cap = s->cap ? s->cap * 2 : 1 << 16;
    s->e = rc_xrealloc(s->e, s->cap * sizeof *s->e);
}

static uint64_t slog_put(rc_anon *a, uint32_t node, uint32_t kind, uint32_t x)
{
    slog *s = a->sl;
    if (s->n == s->cap) slog_room(a);
    uint64_t gi = s->base + s->n;
    if (gi % SL_CHECK == 0) {
        if (s->ck_n == s->ck_cap) {
            s->ck_cap = s->ck_cap ? s->ck_cap * 2 : 256;
            s->ck_t = rc_xrealloc(s->ck_t, s->ck_cap * sizeof *s->ck_t);
            s->ck_i = rc_xrealloc(s->ck_i, s->ck_cap * sizeof *s->ck_i);
        }
        s->ck_t[s->ck_n] = slog_now(a);
        s->ck_i[s->ck_n++] = gi;
    }
    s->e[s->n++] = (slog_e){node << 2 | kind, x};
    if (s->n > s->peak_n) s->peak_n = s->n;
    return gi;
}

void rc_anon__slog_arrive(rc_anon *a, uint32_t node, const pkt *p, uint32_t parts)
{
    slog *s = a->sl;
    /* k parts with the same estimate add k times it: k entries */
    for (uint32_t k = 0; k < parts; k++) {
        if (p->sender != NONE32) {
            slog_put(a, node, SL_USER, p->sender);
        } else if (p->sid1 != 0) {
            uint64_t back = s->base + s->n - (p->sid1 - 1);
            if (back > UINT32_MAX || p->sid1 - 1 < s->base) back = 0; /* older than the log */
            if (back > s->max_back) s->max_back = back;
            slog_put(a, node, SL_SNAP, (uint32_t)back);
        } else {
            slog_put(a, node, SL_NONE, 0);
        }
    }
}

void rc_anon__slog_depart(rc_anon *a, uint32_t node, int64_t n, pkt *p)
{
    RC_ASSERT(n > 0 && n <= UINT32_MAX);
    p->sid1 = slog_put(a, node, SL_DEP, (uint32_t)n) + 1;
}

/* One sweep of a pass: lane `lane` from departure `sid` (or none). */
typedef struct lane_st {
    uint64_t sid;
    size_t pi; /* its exit in s->pend */
    double placed, lost, done, comp;
} lane_st;

static void lane_finish(rc_anon *a, lane_st *L, uint32_t j, size_t i);

/* Adds c to the lane's compensated (Kahan) sum of what is placed or lost. */
static inline void lane_done_add(lane_st *l, double c)
{
    double y = c - l->comp, t = l->done + y;
    l->comp = (t - l->done) - y;
    l->done = t;
}

/* One backward pass over the log for up to SL_LANES sweeps, lanes sorted by
 * sid, highest first.  Each lane computes exactly what a sweep of its own
 * would, in the same order (its entries from its departure down, its own
 * stopping point): the lanes only share the reading of the log, and their
 * loop-carried sums (the compensated `done` above all) interleave instead of
 * waiting on each other. */
static void sweep_pass(rc_anon *a, lane_st *L, uint32_t nl)
{
    slog *s = a->sl;
    const size_t mask = s->alpha_len - 1;
    const slog_e *e = s->e;
    double *alpha = s->alpha, *g = s->g, *r = s->r;
    const uint64_t base = s->base;
    uint32_t act[SL_LANES], n_act = 0, next = 0;
    size_t i = (size_t)(L[0].sid - base);
    s->passes++;
    for (;;) {
        s->read++;
        while (next < nl && L[next].sid - base == i) {
            alpha[((base + i) & mask) * SL_LANES + next] = 1;
            act[n_act++] = next++;
        }
        const slog_e *x = &e[i];
        uint32_t kind = x->nk & 3, node = x->nk >> 2;
        double *gn = &g[(size_t)node * SL_LANES];
        if (kind == SL_DEP) {
            double *al = &alpha[((base + i) & mask) * SL_LANES];
            double n = (double)x->x, f = (n - 1) / n;
            for (uint32_t q = 0; q < n_act; q++) {
                uint32_t j = act[q];
                if (al[j] != 0 || gn[j] != 0) {
                    gn[j] = gn[j] * f + al[j] / n;
                    al[j] = 0;
                }
            }
        } else if (kind == SL_USER) {
            uint32_t u = x->x;
            double *ru = &r[(size_t)u * SL_LANES];
            for (uint32_t q = 0; q < n_act; q++) {
                uint32_t j = act[q];
                double c = gn[j];
                if (c == 0) continue;
                lane_st *l = &L[j];
                lane_done_add(l, c);
                if (ru[j] == 0) s->touched[(size_t)j * a->users + s->n_touched[j]++] = u;
                ru[j] += c;
                l->placed += c;
            }
        } else if (kind == SL_SNAP && x->x != 0 && x->x <= i) {
            double *al = &alpha[((base + i - x->x) & mask) * SL_LANES];
            for (uint32_t q = 0; q < n_act; q++) {
                uint32_t j = act[q];
                double c = gn[j];
                if (c != 0) al[j] += c;
            }
        } else {
            /* nothing (a mix loop's), or a mean older than the log */
            bool lost = kind == SL_SNAP;
            for (uint32_t q = 0; q < n_act; q++) {
                uint32_t j = act[q];
                double c = gn[j];
                if (c == 0) continue;
                lane_st *l = &L[j];
                lane_done_add(l, c);
                if (lost) l->lost += c;
            }
        }
        /* a lane stops when all but SL_TOL is placed (looked at every 1024
         * entries it visited), or at the log's start */
        for (uint32_t q = 0; q < n_act;) {
            uint32_t j = act[q];
            uint64_t visited = L[j].sid - base - i + 1;
            if (((visited & 1023) == 0 && 1 - L[j].done < SL_TOL) || i == 0) {
                s->swept += visited;
                lane_finish(a, L, j, i);
                act[q] = act[--n_act];
            } else {
                q++;
            }
        }
        if (n_act == 0) {
            if (next == nl) break;
            i = (size_t)(L[next].sid - base); /* (nothing to do in between) */
        } else {
            i--;
        }
    }
}

/* |ln(p0/p1)| (docs/spec.md §10.4): INFINITY when one side is impossible,
 * NaN when both are (the exit says nothing of this pair). */
static double eps_of(double ps, double pp);

/* Lane j stopped at entry i: its exit's entropy and epsilon, and its scratch
 * back to zero. */
static void lane_finish(rc_anon *a, lane_st *L, uint32_t j, size_t i)
{
    slog *s = a->sl;
    lane_st *l = &L[j];
    const size_t mask = s->alpha_len - 1;
    const uint64_t base = s->base;
    /* what did not reach a client or nothing: the truncation's share */
    double left = 1 - l->done + l->lost;
    if (left > s->max_unresolved) s->max_unresolved = left;
    /* the ring (live weights sit within max_back below i), and the pools' weights */
    for (uint64_t k = 0; k <= s->max_back && k <= i; k++)
        s->alpha[((base + i - k) & mask) * SL_LANES + j] = 0;
    for (uint32_t k = 0; k < s->n_mixing; k++) s->g[(size_t)s->mixing[k] * SL_LANES + j] = 0;
    struct slog_exit *x = &s->pend[l->pi];
    tracked *g = &a->tg[x->k];
    double tot = l->placed, h = 0;
    uint32_t *touched = &s->touched[(size_t)j * a->users];
    for (uint32_t k = 0; k < s->n_touched[j] && tot > 0; k++) {
        double v = s->r[(size_t)touched[k] * SL_LANES + j] / tot;
        if (v > 0) h -= v * log2(v);
    }
    x->eps = tot > 0 ? eps_of(s->r[(size_t)g->sender * SL_LANES + j],
                              s->r[(size_t)g->partner * SL_LANES + j])
                     : NAN;
    x->h = h;
    for (uint32_t k = 0; k < s->n_touched[j]; k++)
        s->r[(size_t)touched[k] * SL_LANES + j] = 0;
    s->n_touched[j] = 0;
}

static int cmp_lane(const void *x, const void *y)
{
    const lane_st *p = x, *q = y;
    return (p->sid < q->sid) - (p->sid > q->sid);
}

void rc_anon__slog_flush(rc_anon *a)
{
    slog *s = a->sl;
    if (s == NULL || s->n_pend == 0) return;
    /* The ring of means' weights outgrows the longest distance back. */
    if (s->alpha_len <= s->max_back) {
        size_t len = 1024;
        while (len <= s->max_back) len *= 2;
        free(s->alpha);
        s->alpha = rc_xcalloc(len * SL_LANES, sizeof *s->alpha);
        s->alpha_len = len;
    }
    /* The sweeps by departure, latest first, read in groups of SL_LANES: the
     * members of a group start close together and read mostly the same entries. */
    lane_st *L = rc_xmalloc(s->n_pend * sizeof *L);
    size_t nl = 0;
    for (size_t pi = 0; pi < s->n_pend; pi++) {
        struct slog_exit *x = &s->pend[pi];
        const tracked *g = &a->tg[x->k];
        x->h = NAN;
        x->eps = NAN;
        /* (left out of the sample since its exit: never reported, not read) */
        if (g->dropped) continue;
        s->sweeps++;
        if (x->sid < s->base) {
            s->max_unresolved = 1; /* older than the log: nothing known (not seen in practice) */
            x->h = 0;
            continue;
        }
        L[nl++] = (lane_st){x->sid, pi, 0, 0, 0, 0};
    }
    qsort(L, nl, sizeof *L, cmp_lane);
    for (size_t i = 0; i < nl; i += SL_LANES)
        sweep_pass(a, L + i, (uint32_t)(nl - i < SL_LANES ? nl - i : SL_LANES));
    free(L);
    /* in exit order, as if each had been read at its exit */
    for (size_t pi = 0; pi < s->n_pend; pi++) {
        const struct slog_exit *x = &s->pend[pi];
        tracked *g = &a->tg[x->k];
        if (g->dropped) continue;
        g->sender_h = x->h;
        g->eps = x->eps;
    }
    s->n_pend = 0;
}

static double eps_of(double ps, double pp)
{
    if (ps > 0 && pp > 0) return fabs(log(ps / pp));
    if (ps > 0 || pp > 0) return INFINITY;
    return NAN;
}

void rc_anon__sender_exit(rc_anon *a, const pkt *p, uint32_t k)
{
    tracked *g = &a->tg[k];
    double h = 0;
    g->eps = NAN;
    if (a->sender_view) {
        if (p->sv != NULL) {
            double tot = 0;
            for (uint32_t u = 0; u < a->users; u++) tot += p->sv->v[u];
            /* (no client's share at all: nothing to be unsure about, 0 bits) */
            for (uint32_t u = 0; u < a->users && tot > 0; u++) {
                double x = p->sv->v[u] / tot;
                if (x > 0) h -= x * log2(x);
            }
            if (tot > 0) g->eps = eps_of(p->sv->v[g->sender], p->sv->v[g->partner]);
        } else if (p->sender != NONE32) {
            g->eps = eps_of(p->sender == g->sender, p->sender == g->partner);
        }
        g->sender_h = h;
        return;
    }
    if (a->sl == NULL || g->dropped) { /* (left out of the sample: not read) */
        g->sender_h = NAN;
        return;
    }
    if (p->sid1 == 0) {
        if (p->sender != NONE32) g->eps = eps_of(p->sender == g->sender, p->sender == g->partner);
        g->sender_h = 0;
        return;
    }
    /* Read later, many in one pass (rc_anon__slog_flush): before the log drops
     * anything, so the entries read are those the log held at the exit. */
    slog *s = a->sl;
    g->sender_h = NAN;
    if (s->n_pend == s->cap_pend) {
        s->cap_pend = s->cap_pend ? s->cap_pend * 2 : 256;
        s->pend = rc_xrealloc(s->pend, s->cap_pend * sizeof *s->pend);
    }
    s->pend[s->n_pend++] = (struct slog_exit){p->sid1 - 1, k, NAN, NAN};
}
