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
    s->g = rc_xcalloc(a->nodes ? a->nodes : 1, sizeof *s->g);
    s->r = rc_xcalloc(a->users ? a->users : 1, sizeof *s->r);
    s->touched = rc_xmalloc((a->users ? a->users : 1) * sizeof *s->touched);
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

/* The backward sweep from departure `sid`: leaves the weights of the clients
 * in s->r (the users in s->touched) and returns the weight that reached
 * them. */
static double sweep(rc_anon *a, uint64_t sid)
{
    slog *s = a->sl;
    s->n_touched = 0;
    s->sweeps++;
    if (sid < s->base) {
        s->max_unresolved = 1; /* older than the log: nothing known (not seen in practice) */
        return 0;
    }
    /* The weights of departures' means live in a ring longer than any
     * distance from an arrival back to its departure, so two live ones never
     * share a slot. */
    if (s->alpha_len <= s->max_back) {
        size_t len = 1024;
        while (len <= s->max_back) len *= 2;
        free(s->alpha);
        s->alpha = rc_xcalloc(len, sizeof *s->alpha);
        s->alpha_len = len;
    }
    const size_t mask = s->alpha_len - 1;
    size_t i = (size_t)(sid - s->base);
    /* weight placed on clients, on nothing, and older than the log; `done` sums all three
     * with Kahan's compensation, so that 1 - done is accurate to ~1e-16 after millions of
     * small additions (plain sums drift by ~1e-13 and a sweep would never stop early) */
    double placed = 0, gone = 0, lost = 0, done = 0, comp = 0;
    const slog_e *e = s->e;
    double *alpha = s->alpha, *g = s->g, *r = s->r;
    const uint64_t base = s->base;
    alpha[(base + i) & mask] = 1;
    size_t visited = 0;
    for (;;) {
        const slog_e *x = &e[i];
        uint32_t kind = x->nk & 3, node = x->nk >> 2;
        if (kind == SL_DEP) {
            double *al = &alpha[(base + i) & mask], gv = g[node];
            if (*al != 0 || gv != 0) {
                double n = (double)x->x;
                g[node] = gv * ((n - 1) / n) + *al / n;
                *al = 0;
            }
        } else {
            double c = g[node];
            if (c != 0) {
                if (kind != SL_SNAP || x->x == 0 || x->x > i) {
                    double y = c - comp, t = done + y;
                    comp = (t - done) - y;
                    done = t;
                }
                if (kind == SL_USER) {
                    uint32_t u = x->x;
                    if (r[u] == 0) s->touched[s->n_touched++] = u;
                    r[u] += c;
                    placed += c;
                } else if (kind == SL_NONE) {
                    gone += c;
                } else if (x->x != 0 && x->x <= i) {
                    alpha[(base + i - x->x) & mask] += c;
                } else {
                    lost += c;
                }
            }
        }
        visited++;
        if (((visited & 1023) == 0 && 1 - done < SL_TOL) || i == 0) break;
        i--;
    }
    s->swept += visited;
    /* what did not reach a client or nothing: the truncation's share */
    double left = 1 - done + lost;
    if (left > s->max_unresolved) s->max_unresolved = left;
    /* scratch back to zero: the ring (live weights sit within max_back below i),
     * and the pools' weights */
    for (uint64_t k = 0; k <= s->max_back && k <= i; k++) alpha[(base + i - k) & mask] = 0;
    for (uint32_t k = 0; k < s->n_mixing; k++) g[s->mixing[k]] = 0;
    return placed;
}

/* |ln(p0/p1)| (docs/spec.md §10.4): INFINITY when one side is impossible,
 * NaN when both are (the exit says nothing of this pair). */
static double eps_of(double ps, double pp)
{
    if (ps > 0 && pp > 0) return fabs(log(ps / pp));
    if (ps > 0 || pp > 0) return INFINITY;
    return NAN;
}

double rc_anon__sender_exit(rc_anon *a, const pkt *p, tracked *g)
{
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
        return h;
    }
    if (a->sl == NULL || g->dropped) return NAN; /* (left out of the sample: not read) */
    if (p->sid1 == 0) {
        if (p->sender != NONE32) g->eps = eps_of(p->sender == g->sender, p->sender == g->partner);
        return 0;
    }
    slog *s = a->sl;
    double tot = sweep(a, p->sid1 - 1);
    for (uint32_t k = 0; k < s->n_touched && tot > 0; k++) {
        double x = s->r[s->touched[k]] / tot;
        if (x > 0) h -= x * log2(x);
    }
    if (tot > 0) g->eps = eps_of(s->r[g->sender], s->r[g->partner]);
    for (uint32_t k = 0; k < s->n_touched; k++) s->r[s->touched[k]] = 0;
    return h;
}
