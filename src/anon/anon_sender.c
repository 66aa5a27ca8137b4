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
 *  - forward, every change of an honest pool is logged (4 bytes): an arrival
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
 * Memory: 4 bytes per pool event kept (a bundle's k parts are k entries;
 * a mean is named by its distance back), for `keep` of pool events, at most
 * twice that between trims; a ring of alphas longer than the longest such
 * distance; 384 bytes per user and 256 per honest mixing node of scratch
 * (SL_LANES = 32 sweeps at once).  Time: each tracked exit reads the pool
 * events of about one warm-up.
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

/* x86-64 with GCC or Clang: the sweeps are also compiled for AVX2 and
 * AVX-512 (sweep_pass_body), chosen at run time. */
#if defined(__x86_64__) && defined(__GNUC__)
#define SWEEP_X86 1
#else
#define SWEEP_X86 0
#endif

static bool isa_runs(uint8_t isa)
{
    switch (isa) {
    case SWEEP_BASE: return true;
#if SWEEP_X86
    case SWEEP_AVX2: return __builtin_cpu_supports("avx2");
    case SWEEP_AVX512: return __builtin_cpu_supports("avx512f");
#endif
    default: return false;
    }
}

static uint8_t isa_pick(uint8_t isa)
{
    if (isa != SWEEP_AUTO) return isa;
    return isa_runs(SWEEP_AVX512) ? SWEEP_AVX512 : isa_runs(SWEEP_AVX2) ? SWEEP_AVX2 : SWEEP_BASE;
}

static const char *const isa_names[] = {"auto", "base", "avx2", "avx512"};

bool rc_anon__sweep_isa_env(rc_anon *a, rc_err *err)
{
    const char *name = getenv("RCSIM_ANON_ISA");
    if (name == NULL || name[0] == '\0') return true;
    for (uint8_t k = 0; k < 4; k++)
        if (strcmp(name, isa_names[k]) == 0 && (k == SWEEP_AUTO || isa_runs(k))) {
            a->sweep_isa = k;
            return true;
        }
    rc_err_set(err, RC_EXIT_USAGE,
               "RCSIM_ANON_ISA: '%s' is not one of auto, base, avx2, avx512 that this processor "
               "runs (it runs %s)",
               name, isa_names[isa_pick(SWEEP_AUTO)]);
    return false;
}

const char *rc_anon__sweep_isa_name(uint8_t isa) { return isa_names[isa_pick(isa)]; }

void rc_anon__slog_new(rc_anon *a, rc_time keep)
{
    RC_ASSERT(a->nodes < (1u << 28));
    slog *s = rc_xcalloc(1, sizeof *s);
    s->keep = keep;
    s->closest = UINT64_MAX;
    s->isa = isa_pick(a->sweep_isa);
    s->mix_of = rc_xmalloc((a->nodes ? a->nodes : 1) * sizeof *s->mix_of);
    for (uint32_t v = 0; v < a->nodes; v++) {
        s->mix_of[v] = s->n_mixing;
        if (a->role[v] == ROLE_MIXING) s->n_mixing++;
    }
    /* m takes the bits of the largest place; x the rest (at 10^5 users, 13 and
     * 17: every client fits, and the pools' sizes and the distances back) */
    uint32_t mbits = 0;
    while (mbits < 28 && (s->n_mixing > 1 ? s->n_mixing - 1 : 0) >> mbits != 0) mbits++;
    s->xshift = 2 + mbits;
    s->xesc = (uint32_t)((1ull << (32 - s->xshift)) - 1);
    /* zeroed by hand rather than calloc'd: dense, and read at random (25 MB
     * at 10^5 users), they get huge pages as the other such tables do
     * (core/log.c) */
    size_t ng = (size_t)(s->n_mixing ? s->n_mixing : 1) * SL_LANES;
    size_t nr = (size_t)(a->users ? a->users : 1) * SL_LANES;
    s->g = memset(rc_xmalloc(ng * sizeof *s->g), 0, ng * sizeof *s->g);
    s->r = memset(rc_xmalloc(nr * sizeof *s->r), 0, nr * sizeof *s->r);
    s->touched = rc_xmalloc((size_t)(a->users ? a->users : 1) * SL_LANES * sizeof *s->touched);
    a->sl = s;
}

void rc_anon__slog_free(rc_anon *a)
{
    slog *s = a->sl;
    if (s == NULL) return;
    free(s->e);
    free(s->wide_i);
    free(s->wide_x);
    free(s->pend);
    free(s->alpha);
    free(s->ck_t);
    free(s->ck_i);
    free(s->g);
    free(s->r);
    free(s->touched);
    free(s->mix_of);
    free(s);
    a->sl = NULL;
}

/* The x of word w, entry gi of the log. */
static uint32_t slog_wide(const slog *s, uint64_t gi)
{
    size_t lo = 0, hi = s->n_wide;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->wide_i[mid] < gi) lo = mid + 1;
        else hi = mid;
    }
    RC_ASSERT(lo < s->n_wide && s->wide_i[lo] == gi);
    return s->wide_x[lo];
}

static inline uint32_t slog_x(const slog *s, slog_e w, uint64_t gi)
{
    uint32_t x = w >> s->xshift;
    return x == s->xesc ? slog_wide(s, gi) : x;
}

/* Drops the entries older than `keep` when that frees at least half the log
 * (amortised O(1) an entry); else the log doubles.  (When the log drops
 * entries, and so what a sweep can reach, is part of the results: a smaller
 * word changed none of it.) */
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
        size_t w = 0;
        while (w < s->n_wide && s->wide_i[w] < s->base) w++;
        if (w > 0) {
            memmove(s->wide_i, s->wide_i + w, (s->n_wide - w) * sizeof *s->wide_i);
            memmove(s->wide_x, s->wide_x + w, (s->n_wide - w) * sizeof *s->wide_x);
            s->n_wide -= w;
        }
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
    if (x >= s->xesc) {
        if (s->n_wide == s->cap_wide) {
            s->cap_wide = s->cap_wide ? s->cap_wide * 2 : 256;
            s->wide_i = rc_xrealloc(s->wide_i, s->cap_wide * sizeof *s->wide_i);
            s->wide_x = rc_xrealloc(s->wide_x, s->cap_wide * sizeof *s->wide_x);
        }
        s->wide_i[s->n_wide] = gi;
        s->wide_x[s->n_wide++] = x;
        s->n_wide_all++;
        x = s->xesc;
    }
    s->e[s->n++] = x << s->xshift | s->mix_of[node] << 2 | kind;
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
    double placed, lost, done;
} lane_st;

static void lane_finish(rc_anon *a, lane_st *l, uint32_t j, size_t i);

/* The lanes' values as one vector of SL_LANES doubles (GCC's and Clang's
 * vector types: each element computed as the scalar code would, IEEE
 * operations one by one, never contracted in ISO C mode).  A pass is bound by
 * the latency of its chains (a pool's weight feeds a departure's mean, which
 * feeds the pool it left), not by how many operations it issues: more lanes
 * a pass give each chain step more independent work (of 8, 16, 32 and 64
 * lanes, 32 ran fastest: docs/performance.md, "seventh round").
 * The same source is compiled for the baseline ISA (two doubles an
 * instruction), for AVX2 (four) and for AVX-512 (eight), and the widest the
 * processor runs is used (isa_pick): the same operations on the same values,
 * so the same bits (tests compare them, RCSIM_ANON_ISA). */
_Static_assert(SL_LANES <= 64, "a lane mask fits 64 bits");
/* (the helpers below take and give vectors by value: always inlined, so no
 * call's ABI depends on the ISA, which is what GCC warns of, at the file's end) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
typedef double vlane __attribute__((vector_size(8 * SL_LANES)));
typedef long long vmask __attribute__((vector_size(8 * SL_LANES)));
static inline __attribute__((always_inline)) vlane ldl(const double *p)
{
    vlane v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline __attribute__((always_inline)) void stl(double *p, vlane v) { memcpy(p, &v, sizeof v); }
/* m ? x : y, per element (m: all ones or zeros) */
static inline __attribute__((always_inline)) vlane sell(vmask m, vlane x, vlane y)
{
    return (vlane)(((vmask)x & m) | ((vmask)y & ~m));
}

/* x != 0 per lane, compared two lanes at a time: GCC 12 lowers a comparison
 * of the whole vector element by element (a scalar compare, a flag and a move
 * per lane: the pass's code was five times as long), but a two-lane one to
 * one vector compare whatever the ISA.  The same IEEE comparisons (and
 * x == 0 is exactly its complement, NaN included). */
static inline __attribute__((always_inline)) vmask lane_ne0(vlane x)
{
    vmask m;
    for (int k = 0; k < SL_LANES; k += 2) {
        v2d p;
        memcpy(&p, (const char *)&x + 8 * k, sizeof p);
        v2l r = p != zero2;
        memcpy((char *)&m + 8 * k, &r, sizeof r);
    }
    return m;
}

/* The lanes where m is set, as bits (lane j: bit j), folded in halves (a
 * vector operation a step; copied out lane by lane, GCC looped over the 32). */
typedef long long vhalf __attribute__((vector_size(4 * SL_LANES)));
typedef long long vquarter __attribute__((vector_size(2 * SL_LANES)));
_Static_assert(SL_LANES == 32, "lane_bits folds 32 lanes");
static inline __attribute__((always_inline)) uint64_t lane_bits(vmask m)
{
#define P4(j) 1ll << (j), 1ll << ((j) + 1), 1ll << ((j) + 2), 1ll << ((j) + 3)
    static const vmask pow2 = {P4(0), P4(4), P4(8), P4(12), P4(16), P4(20), P4(24), P4(28)};
#undef P4
    m &= pow2;
    vhalf h0, h1;
    memcpy(&h0, &m, sizeof h0);
    memcpy(&h1, (const char *)&m + sizeof h0, sizeof h1);
    h0 |= h1;
    vquarter q0, q1;
    memcpy(&q0, &h0, sizeof q0);
    memcpy(&q1, (const char *)&h0 + sizeof q0, sizeof q1);
    q0 |= q1;
    /* 8 elements left: or them as scalars (a tree, not a chain) */
    return (uint64_t)(((q0[0] | q0[1]) | (q0[2] | q0[3])) | ((q0[4] | q0[5]) | (q0[6] | q0[7])));
}

/* One backward pass over the log for the sweeps L[0..nl), sorted by sid,
 * highest first, in SL_LANES lanes: a sweep takes a free lane when the pass
 * reaches its departure, and one that finds every lane busy waits for the
 * next pass (they are moved to L's front, in order, and counted in the value
 * returned).  So a lane freed by a sweep that stopped early is taken by the
 * next sweep down rather than idling to the end of a group of SL_LANES.
 * Each lane computes exactly what a sweep of its own would, in the same order
 * (its entries from its departure down, its own stopping point): the lanes
 * only share the reading of the log, and their loop-carried sums (the
 * compensated `done` above all) interleave instead of waiting on each other.
 *
 * Each entry's update is one vector operation over all SL_LANES lanes, with
 * no branch per lane: a lane that is not reading (not started, stopped, or
 * none) has zero weights everywhere (the scratch is zero between sweeps), and
 * on zeros every update is exact (0 * f + 0 / n is 0, x + 0 is x for the
 * non-negative weights) or is not taken (the compensated sums and the users
 * touched move only where the weight is not zero, as before). */
static inline __attribute__((always_inline)) size_t sweep_pass_body(rc_anon *a, lane_st *L,
                                                                     size_t nl)
{
    slog *s = a->sl;
    const size_t mask = s->alpha_len - 1;
    const slog_e *e = s->e;
    double *restrict alpha = s->alpha, *restrict g = s->g, *restrict r = s->r;
    const uint64_t base = s->base;
    const uint32_t xshift = s->xshift, xesc = s->xesc, mmask = (1u << (xshift - 2)) - 1;
    /* the lanes' compensated sums of what is placed or lost, and their parts */
    vlane done = {0}, comp = {0}, placed = {0}, lost = {0};
    /* zeros the compiler cannot see as such: it copies them with vector
     * stores, where it made a memset of the alphas below a `rep stos`, a
     * tenth of the sweeps' time at 10^5 users */
    vlane zero = {0};
    __asm__("" : "+m"(zero));
    /* a lane looks at its sum every 1024 entries it visited: next at ck[j];
     * nck: the latest of them over the lanes reading */
    int64_t ck[SL_LANES], nck = -1;
    bool on[SL_LANES] = {false};
    lane_st lane[SL_LANES]; /* the sweep each lane reads */
    uint32_t n_act = 0;
    size_t next = 0, n_wait = 0;
    size_t i = (size_t)(L[0].sid - base);
    s->passes++;
    for (;;) {
        s->read++;
        for (; next < nl && L[next].sid - base == i; next++) {
            if (n_act == SL_LANES) { /* (n_wait <= next: the order is kept) */
                L[n_wait++] = L[next];
                continue;
            }
            uint32_t j = 0;
            while (on[j]) j++;
            lane[j] = L[next];
            alpha[((base + i) & mask) * SL_LANES + j] = 1;
            done[j] = comp[j] = placed[j] = lost[j] = 0;
            ck[j] = (int64_t)i - 1023;
            if (ck[j] > nck) nck = ck[j];
            on[j] = true;
            n_act++;
        }
        /* the client of an entry a little further down: its weights are far
         * apart in memory (all of its row's lines: at 10^5 users the rows
         * are 25 MB, and fetching the first line alone cost 8 % of the job) */
        if (i >= 16) {
            slog_e w = e[i - 16];
            if ((w & 3) == SL_USER && w >> xshift != xesc)
                for (size_t k = 0; k < SL_LANES; k += 8) /* (a line holds 8 lanes) */
                    __builtin_prefetch(&r[(size_t)(w >> xshift) * SL_LANES + k]);
        }
        const slog_e w = e[i];
        const uint32_t kind = w & 3;
        double *restrict gn = &g[(size_t)((w >> 2) & mmask) * SL_LANES];
        if (kind == SL_DEP) {
            double *restrict al = &alpha[((base + i) & mask) * SL_LANES];
            double n = (double)slog_x(s, w, base + i), f = (n - 1) / n;
            stl(gn, ldl(gn) * f + ldl(al) / n);
            stl(al, zero);
        } else if (kind == SL_USER) {
            uint32_t u = slog_x(s, w, base + i);
            double *restrict ru = &r[(size_t)u * SL_LANES];
            vlane c = ldl(gn), rr = ldl(ru);
            vmask any = lane_ne0(c);
            /* the compensated (Kahan) sum */
            vlane y = c - comp, t = done + y, cj = (t - done) - y;
            vmask fr = any & ~lane_ne0(rr);
            uint64_t fresh = lane_bits(fr);
            done = sell(any, t, done);
            comp = sell(any, cj, comp);
            stl(ru, rr + c);
            placed += c;
            for (; fresh != 0; fresh &= fresh - 1) {
                uint32_t j = (uint32_t)__builtin_ctzll(fresh);
                s->touched[(size_t)j * a->users + s->n_touched[j]++] = u;
            }
        } else if (kind == SL_SNAP && (w >> xshift) != 0 && slog_x(s, w, base + i) <= i) {
            double *restrict al = &alpha[((base + i - slog_x(s, w, base + i)) & mask) * SL_LANES];
            stl(al, ldl(al) + ldl(gn));
        } else {
            /* nothing (a mix loop's), or a mean older than the log */
            vlane c = ldl(gn);
            vmask any = lane_ne0(c);
            vlane y = c - comp, t = done + y, cj = (t - done) - y;
            done = sell(any, t, done);
            comp = sell(any, cj, comp);
            if (kind == SL_SNAP) lost += c;
        }
        /* a lane stops when all but SL_TOL is placed (looked at every 1024
         * entries it visited), or at the log's start */
        if ((int64_t)i == nck || i == 0) {
            nck = -1;
            for (uint32_t j = 0; j < SL_LANES; j++) {
                if (!on[j]) continue;
                if (i == 0 || (ck[j] == (int64_t)i && 1 - done[j] < SL_TOL)) {
                    lane_st *l = &lane[j];
                    s->swept += l->sid - base - i + 1;
                    if (l->sid - base - i + 1 > s->longest) s->longest = l->sid - base - i + 1;
                    if (i < s->closest) s->closest = i;
                    l->placed = placed[j];
                    l->lost = lost[j];
                    l->done = done[j];
                    lane_finish(a, l, j, i);
                    on[j] = false;
                    n_act--;
                    continue;
                }
                if (ck[j] == (int64_t)i) ck[j] -= 1024;
                if (ck[j] > nck) nck = ck[j];
            }
        }
        if (n_act == 0) {
            if (next == nl) break;
            i = (size_t)(L[next].sid - base); /* (nothing to do in between) */
        } else {
            i--;
        }
    }
    return n_wait;
}

static size_t sweep_pass_base(rc_anon *a, lane_st *L, size_t nl)
{
    return sweep_pass_body(a, L, nl);
}
#if SWEEP_X86
__attribute__((target("avx2"))) static size_t sweep_pass_avx2(rc_anon *a, lane_st *L, size_t nl)
{
    return sweep_pass_body(a, L, nl);
}
__attribute__((target("avx512f"))) static size_t sweep_pass_avx512(rc_anon *a, lane_st *L,
                                                                    size_t nl)
{
    return sweep_pass_body(a, L, nl);
}
#endif

/* |ln(p0/p1)| (docs/spec.md §10.4): INFINITY when one side is impossible,
 * NaN when both are (the exit says nothing of this pair). */
static double eps_of(double ps, double pp);

/* Sweep l, in lane j, stopped at entry i: its exit's entropy and epsilon,
 * and the lane's scratch back to zero. */
static void lane_finish(rc_anon *a, lane_st *l, uint32_t j, size_t i)
{
    slog *s = a->sl;
    const size_t mask = s->alpha_len - 1;
    const uint64_t base = s->base;
    /* what did not reach a client or nothing: the truncation's share */
    double left = 1 - l->done + l->lost;
    if (left > s->max_unresolved) s->max_unresolved = left;
    /* the ring (live weights sit within max_back below i), and the pools' weights */
    for (uint64_t k = 0; k <= s->max_back && k <= i; k++)
        s->alpha[((base + i - k) & mask) * SL_LANES + j] = 0;
    for (uint32_t k = 0; k < s->n_mixing; k++) s->g[(size_t)k * SL_LANES + j] = 0;
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
    /* The sweeps by departure, latest first, read in passes of SL_LANES lanes
     * (sweep_pass_body): sweeps that start close together read mostly the
     * same entries. */
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
        L[nl++] = (lane_st){x->sid, pi, 0, 0, 0};
    }
    qsort(L, nl, sizeof *L, cmp_lane);
    while (nl > 0) {
        switch (s->isa) {
#if SWEEP_X86
        case SWEEP_AVX512: nl = sweep_pass_avx512(a, L, nl); break;
        case SWEEP_AVX2: nl = sweep_pass_avx2(a, L, nl); break;
#endif
        default: nl = sweep_pass_base(a, L, nl); break;
        }
    }
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
