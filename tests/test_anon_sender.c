/* The sender view and unlinkability on a case computed by hand (src/anon/anon_sender.c,
 * docs/spec.md §10.4): two clients, two honest pools, a handful of arrivals and
 * departures fed to the pools directly, read both ways (dense vectors and the log read
 * backward), against the posteriors worked out in docs/spec.md §10.4.  White-box: it
 * builds the observer's state itself, which no other code outside src/anon/ does. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "anon/anon_internal.h"

enum { U0 = 0, U1 = 1, P = 2, Q = 3, NODES = 4 };

typedef struct fixture {
    rc_sim sim;
    rc_anon a;
    uint8_t role[NODES];
    pool pools[NODES];
    uint8_t dropped[1];
    tracked tg[48];
    exit_sums xs[48];
} fixture;

static void setup(fixture *f, bool dense)
{
    memset(f, 0, sizeof *f);
    rc_anon *a = &f->a;
    a->sim = &f->sim;
    a->users = 2;
    a->users4 = 4;
    a->nodes = NODES;
    a->role = f->role;
    a->pools = f->pools;
    a->dropped = f->dropped;
    a->tg = f->tg;
    a->xs = f->xs;
    f->role[U0] = f->role[U1] = ROLE_CLIENT;
    f->role[P] = f->role[Q] = ROLE_MIXING;
    a->sender_view = dense;
    for (int v = P; v <= Q; v++) {
        f->pools[v].c = 1;
        if (dense) f->pools[v].b = calloc(4, sizeof(double));
    }
    if (!dense) rc_anon__slog_new(a, (rc_time)1000 * 1000000);
}

static void teardown(fixture *f)
{
    rc_anon *a = &f->a;
    for (int v = P; v <= Q; v++) {
        rc_anon__sv_release(a, f->pools[v].snap);
        free(f->pools[v].b);
    }
    for (uint32_t i = 0; i < a->n_sv_free; i++) free(a->sv_free[i]);
    free(a->sv_free);
    rc_anon__slog_free(a);
}

static pkt client(uint32_t u)
{
    pkt p = {0};
    p.sender = u;
    return p;
}

static pkt nothing(void)
{
    pkt p = {0};
    p.sender = NONE32;
    return p;
}

static void add(fixture *f, uint32_t node, const pkt *p, uint32_t parts)
{
    f->sim.now += 1000;
    rc_anon__pool_add(&f->a, &f->pools[node], p, parts);
}

static void take(fixture *f, uint32_t node, pkt *p)
{
    f->sim.now += 1000;
    *p = nothing();
    rc_anon__pool_take(&f->a, &f->pools[node], p);
}

/* The exit of `p` for message k, of `sender` challenged against `partner`; read
 * at once when `now`, else at the next flush. */
static void exit_k(fixture *f, const pkt *p, uint32_t k, uint32_t sender, uint32_t partner,
                   bool now)
{
    f->tg[k] = (tracked){0};
    f->tg[k].sender = sender;
    f->tg[k].partner = partner;
    rc_anon__sender_exit(&f->a, p, k);
    if (now) rc_anon__slog_flush(&f->a);
}

static double exit_h(fixture *f, const pkt *p, uint32_t sender, uint32_t partner, double *eps)
{
    exit_k(f, p, 0, sender, partner, true);
    *eps = f->tg[0].eps;
    return f->tg[0].sender_h;
}

/* Exits k < n, of packet ex[k % n_pk] for message k, read one at a time and
 * then all n at one flush (the log mode reads SL_LANES at a time in one pass
 * over the log, a sweep taking the lane of one that stopped, and those that
 * find every lane busy in a later pass): each value the same to the bit.
 * Returns the passes the reading together took (0 with dense vectors);
 * *longest, unless NULL, the longest sweep read one at a time. */
static uint64_t exits_read_together_as_alone(fixture *f, const pkt *const *ex, uint32_t n_pk,
                                             uint32_t n, uint64_t *longest)
{
    double alone_h[48], alone_eps[48];
    cr_assert(n <= sizeof alone_h / sizeof *alone_h);
    for (uint32_t k = 0; k < n; k++) {
        exit_k(f, ex[k % n_pk], k, k % 2 ? U1 : U0, k % 2 ? U0 : U1, true);
        alone_h[k] = f->tg[k].sender_h;
        alone_eps[k] = f->tg[k].eps;
    }
    if (longest != NULL) *longest = f->a.sl->longest;
    for (uint32_t k = 0; k < n; k++)
        exit_k(f, ex[k % n_pk], k, k % 2 ? U1 : U0, k % 2 ? U0 : U1, false);
    uint64_t passes = f->a.sl != NULL ? f->a.sl->passes : 0;
    rc_anon__slog_flush(&f->a);
    for (uint32_t k = 0; k < n; k++) {
        cr_assert(memcmp(&f->tg[k].sender_h, &alone_h[k], sizeof(double)) == 0,
                  "exit %u: H %.17g read together, %.17g alone", k, f->tg[k].sender_h, alone_h[k]);
        cr_assert(memcmp(&f->tg[k].eps, &alone_eps[k], sizeof(double)) == 0,
                  "exit %u: eps %.17g read together, %.17g alone", k, f->tg[k].eps, alone_eps[k]);
    }
    return f->a.sl != NULL ? f->a.sl->passes - passes : 0;
}

/* wide: every x of the log but 0 is kept aside, as the values too wide for a
 * word's field are (anon_sender.c) */
static void the_case(bool dense, bool wide)
{
    fixture f;
    setup(&f, dense);
    if (wide) f.a.sl->xesc = 1;
    pkt c0 = client(U0), c1 = client(U1), none = nothing();
    pkt x1, x2, x3, x4, x5, x6, y, z;
    double eps, h;
    const double h23 = log2(3) - 2.0 / 3; /* H(2/3, 1/3) */
    /* P holds two packets of client 0 and one of client 1: its mean is (2/3, 1/3). */
    add(&f, P, &c0, 1);
    add(&f, P, &c1, 1);
    add(&f, P, &c0, 1);
    take(&f, P, &x1);
    h = exit_h(&f, &x1, U0, U1, &eps);
    cr_assert_float_eq(h, h23, 1e-12, "x1: H %.17g", h);
    cr_assert_float_eq(eps, log(2), 1e-12, "x1: eps %.17g", eps);
    /* A departure removes exactly the mean: the next one takes it too. */
    take(&f, P, &x2);
    h = exit_h(&f, &x2, U0, U1, &eps);
    cr_assert_float_eq(h, h23, 1e-12);
    cr_assert_float_eq(eps, log(2), 1e-12);
    /* One packet left, worth (2/3, 1/3); client 1 adds one: (2/3, 4/3) over 2. */
    add(&f, P, &c1, 1);
    take(&f, P, &x3);
    h = exit_h(&f, &x3, U1, U0, &eps);
    cr_assert_float_eq(h, h23, 1e-12);
    cr_assert_float_eq(eps, log(2), 1e-12, "x3: eps %.17g", eps);
    /* Through a second pool: x1 (2/3, 1/3) and a packet of client 1 -> (1/3, 2/3). */
    add(&f, Q, &x1, 1);
    add(&f, Q, &c1, 1);
    take(&f, Q, &y);
    h = exit_h(&f, &y, U1, U0, &eps);
    cr_assert_float_eq(h, h23, 1e-12, "y: H %.17g", h);
    cr_assert_float_eq(eps, log(2), 1e-12, "y: eps %.17g", eps);
    /* A packet of no one's (a mix loop) halves the client share, not the ratio. */
    add(&f, Q, &none, 1);
    take(&f, Q, &z);
    h = exit_h(&f, &z, U0, U1, &eps);
    cr_assert_float_eq(h, h23, 1e-12, "z: H %.17g", h);
    cr_assert_float_eq(eps, log(2), 1e-12);
    /* P empties; then client 0 alone: the exit names it (0 bits), client 1 is
     * impossible (infinite epsilon: counts towards delta). */
    take(&f, P, &x4);
    add(&f, P, &c0, 1);
    take(&f, P, &x5);
    h = exit_h(&f, &x5, U0, U1, &eps);
    cr_assert_float_eq(h, 0, 1e-12);
    cr_assert(isinf(eps), "x5: eps %g", eps);
    /* A bundle of 2 parts from x3 (1/3, 2/3) and one packet of client 0:
     * (2/3 + 1, 4/3) over 3 -> (5/9, 4/9). */
    add(&f, P, &x3, 2);
    add(&f, P, &c0, 1);
    take(&f, P, &x6);
    h = exit_h(&f, &x6, U0, U1, &eps);
    double e = -(5.0 / 9 * log2(5.0 / 9) + 4.0 / 9 * log2(4.0 / 9));
    cr_assert_float_eq(h, e, 1e-12, "x6: H %.17g", h);
    cr_assert_float_eq(eps, log(5.0 / 4), 1e-12, "x6: eps %.17g", eps);
    /* No estimate at all: nothing known, epsilon not measured. */
    h = exit_h(&f, &none, U0, U1, &eps);
    cr_assert_float_eq(h, 0, 1e-12);
    cr_assert(isnan(eps));
    /* The exits read together give each the value it had alone, to the bit:
     * more exits than lanes, many from one departure. */
    const pkt *ex[] = {&x1, &x2, &x3, &y, &z, &x5, &x6, &x1, &y, &x6, &x3};
    _Static_assert(44 > SL_LANES && 44 <= sizeof f.tg / sizeof *f.tg, "more exits than lanes");
    uint64_t passes = exits_read_together_as_alone(&f, ex, sizeof ex / sizeof *ex, 44, NULL);
    if (!dense) cr_assert_geq(passes, 2, "44 exits in %u lanes: a second pass", SL_LANES);
    pkt *held[] = {&x1, &x2, &x3, &x4, &x5, &x6, &y, &z};
    for (size_t i = 0; i < sizeof held / sizeof *held; i++) rc_anon__pkt_clear(&f.a, held[i]);
    teardown(&f);
}

Test(anon_sender, dense_vectors_give_the_hand_computed_posteriors) { the_case(true, false); }

/* A log of some 6,000 entries through two pools of about 9 packets, with 40
 * exits spread along it, 144 entries apart: each sweep stops at its own
 * checkpoint (every 1,024 entries it reads) and fewer than SL_LANES overlap,
 * so the 40 are read in one pass, stopped sweeps' lanes taken again by later
 * ones.  Each exit's value equals the one it had read alone, to the bit. */
Test(anon_sender, sweeps_taking_freed_lanes_give_each_exit_its_value_alone)
{
    fixture f;
    setup(&f, false);
    pkt c0 = client(U0), c1 = client(U1), out[40];
    uint32_t n_out = 0;
    for (int k = 0; k < 8; k++) {
        add(&f, P, k % 3 ? &c0 : &c1, 1);
        add(&f, Q, k % 2 ? &c1 : &c0, 1);
    }
    for (uint32_t step = 0; step < 1500; step++) {
        pkt m, o;
        add(&f, P, step % 3 ? &c0 : &c1, 1);
        take(&f, P, &m);
        add(&f, Q, &m, 1);
        take(&f, Q, &o);
        if (step % 36 == 35 && n_out < 40) out[n_out++] = o;
    }
    cr_assert_eq(n_out, 40);
    const pkt *ex[40];
    for (uint32_t k = 0; k < n_out; k++) ex[k] = &out[k];
    uint64_t longest;
    uint64_t passes = exits_read_together_as_alone(&f, ex, n_out, n_out, &longest);
    for (uint32_t k = 0; k < n_out; k++)
        cr_assert(f.tg[k].sender_h > 0 && isfinite(f.tg[k].sender_h), "exit %u alone: H %g", k,
                  f.tg[k].sender_h);
    cr_assert_eq(passes, 1, "40 sweeps, fewer than %u at once: one pass", SL_LANES);
    cr_assert_lt(longest, 36 * 4 * (SL_LANES - 1), "sweeps of %llu entries overlap %u lanes",
                 (unsigned long long)longest, SL_LANES);
    teardown(&f);
}

Test(anon_sender, the_log_read_backward_gives_the_hand_computed_posteriors)
{
    the_case(false, false);
}

Test(anon_sender, the_log_with_every_value_kept_aside_gives_the_same_posteriors)
{
    the_case(false, true);
}

/* A long random run of arrivals and departures in the two pools, with exits read
 * every few steps: more entries than the log's first allocation, and a keep of 20
 * steps, so that the log drops entries (and values kept aside) several times and
 * some means are older than the log.  Returns the exits' H and epsilon in order. */
enum { LR_STEPS = 150000, LR_HELD = 8, LR_BATCH = 10 };
static size_t long_run(bool wide, double *h, double *eps, uint64_t *wide_all, size_t *wide_now,
                       uint64_t *base)
{
    fixture f;
    setup(&f, false);
    rc_anon *a = &f.a;
    a->sl->keep = 20 * 1000;
    if (wide) a->sl->xesc = 1;
    pkt held[LR_HELD];
    for (int i = 0; i < LR_HELD; i++) held[i] = nothing();
    pkt c[2] = {client(U0), client(U1)}, none = nothing();
    uint64_t x = 12345;
    size_t n_exit = 0;
    uint32_t in_batch = 0;
    for (uint32_t step = 0; step < LR_STEPS; step++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(x >> 33);
        uint32_t node = r & 1 ? P : Q;
        if (f.pools[node].n < 2 || r % 3 == 0) {
            uint32_t src = (r >> 4) % 8, parts = (r >> 8) % 5 == 0 ? 2 : 1;
            const pkt *p = src < 3 ? &c[src % 2] : src < 7 ? &held[(r >> 12) % LR_HELD] : &none;
            add(&f, node, p, parts);
        } else {
            take(&f, node, &held[(r >> 12) % LR_HELD]);
        }
        if (step % 7 == 0) {
            exit_k(&f, &held[(r >> 16) % LR_HELD], in_batch, (r >> 20) & 1, ((r >> 20) & 1) ^ 1,
                   false);
            if (++in_batch == LR_BATCH) {
                rc_anon__slog_flush(a);
                for (uint32_t k = 0; k < in_batch; k++, n_exit++) {
                    h[n_exit] = f.tg[k].sender_h;
                    eps[n_exit] = f.tg[k].eps;
                }
                in_batch = 0;
            }
        }
    }
    *wide_all = a->sl->n_wide_all;
    *wide_now = a->sl->n_wide;
    *base = a->sl->base;
    teardown(&f);
    return n_exit;
}

Test(anon_sender, values_kept_aside_are_read_back_across_the_logs_drops)
{
    static double h0[LR_STEPS / 7 + 1], e0[LR_STEPS / 7 + 1], h1[LR_STEPS / 7 + 1],
        e1[LR_STEPS / 7 + 1];
    uint64_t all0, all1, base0, base1;
    size_t now0, now1;
    size_t n0 = long_run(false, h0, e0, &all0, &now0, &base0);
    size_t n1 = long_run(true, h1, e1, &all1, &now1, &base1);
    cr_assert_eq(n0, n1);
    cr_assert_gt(n0, 20000);
    cr_assert_eq(all0, 0, "no value is too wide for 29 bits here");
    cr_assert_gt(all1, LR_STEPS / 2, "kept aside: %llu", (unsigned long long)all1);
    cr_assert_gt(base1, 0, "the log dropped entries");
    cr_assert_eq(base0, base1);
    cr_assert_lt(now1, all1 / 2, "values kept aside go with their entries (%zu of %llu)", now1,
                 (unsigned long long)all1);
    size_t lost = 0, nan = 0;
    for (size_t i = 0; i < n0; i++) {
        cr_assert(memcmp(&h0[i], &h1[i], sizeof(double)) == 0, "exit %zu: H %.17g / %.17g", i,
                  h0[i], h1[i]);
        cr_assert(memcmp(&e0[i], &e1[i], sizeof(double)) == 0, "exit %zu: eps %.17g / %.17g", i,
                  e0[i], e1[i]);
        nan += isnan(h0[i]);
        lost += h0[i] > 0;
    }
    cr_assert_eq(nan, 0);
    cr_assert_gt(lost, n0 / 4, "most exits say something about their sender (%zu)", lost);
}

/* A class of target-list blocks keeps at most max(TL_KEEP_MIN, in use / TL_KEEP_DIV)
 * free blocks (anon_pool.c): a burst of long lists does not stay allocated once it
 * is over. */
Test(anon_sender, target_list_free_blocks_are_capped)
{
    fixture f;
    setup(&f, true);
    rc_anon *a = &f.a;
    enum { N = 1000 };
    static pkt p[N];
    memset(p, 0, sizeof p);
    for (int i = 0; i < N; i++) rc_anon__tl_reserve(a, &p[i], 100); /* class of 128 */
    unsigned c = 5;
    cr_assert_eq(4u << c, 128u);
    cr_assert_eq(a->tl_used[c], (uint64_t)N);
    /* half released: a quarter of the 500 still in use may stay free */
    for (int i = 0; i < N / 2; i++) rc_anon__tl_release(a, &p[i]);
    cr_assert_eq(a->tl_used[c], (uint64_t)N / 2);
    cr_assert_leq(a->tl_nfree[c], (uint64_t)(N / 2) / TL_KEEP_DIV, "free %llu",
                  (unsigned long long)a->tl_nfree[c]);
    /* all released: TL_KEEP_MIN stay */
    for (int i = N / 2; i < N; i++) rc_anon__tl_release(a, &p[i]);
    cr_assert_eq(a->tl_used[c], 0);
    cr_assert_leq(a->tl_nfree[c], (uint64_t)TL_KEEP_MIN, "free %llu",
                  (unsigned long long)a->tl_nfree[c]);
    cr_assert_geq(a->tl_nfree[c], (uint64_t)TL_KEEP_MIN);
    /* and they are reused */
    rc_anon__tl_reserve(a, &p[0], 100);
    cr_assert_eq(a->tl_nfree[c], (uint64_t)TL_KEEP_MIN - 1);
    rc_anon__tl_release(a, &p[0]);
    rc_anon__tl_free_all(a);
    teardown(&f);
}

/* A packet whose list is spent (here: it joined a pool) gives a block longer than
 * TL_PKT_KEEP back at once, so that packets waiting in pools hold no lists; the pool's
 * compact per-target sums are the dense ones (anon_pool.c): targets 0 and 2 of three,
 * two packets, then a departure takes every live target's mean and keeps the rest. */
Test(anon_sender, spent_lists_go_back_and_pool_sums_are_exact)
{
    fixture f;
    setup(&f, true);
    rc_anon *a = &f.a;
    uint8_t dropped[3] = {0};
    uint32_t pos[3] = {0}, pos_q[3] = {0};
    a->dropped = dropped;
    pool *q = &f.pools[P];
    q->pos = pos;
    f.pools[Q].pos = pos_q;
    pkt x = client(U0), y = client(U1), out = {0};
    out.sender = NONE32;
    rc_anon__tl_reserve(a, &x, 100); /* a long block: it must go back */
    rc_anon__pkt_add_target(a, &x, 2, 0.75);
    rc_anon__pkt_add_target(a, &y, 0, 0.5);
    rc_anon__pkt_add_target(a, &y, 2, 0.125);
    uint64_t used = a->tl_used[5];
    cr_assert_eq(used, 1);
    rc_anon__pool_add(a, q, &x, 1);
    rc_anon__pkt_clear(a, &x);
    cr_assert_eq(x.capt, 0, "a spent long list stays with its packet (%u)", x.capt);
    cr_assert_eq(a->tl_used[5], 0);
    rc_anon__pool_add(a, q, &y, 1);
    rc_anon__pkt_clear(a, &y);
    cr_assert_eq(y.capt, 4, "a short block stays with its packet");
    cr_assert_eq(q->n_act, 2);
    cr_assert_eq(pos[1], 0);
    cr_assert_eq(q->act[pos[2] - 1], 2);
    cr_assert(q->sa[pos[2] - 1] == 0.75 + 0.125);
    cr_assert(q->sa[pos[0] - 1] == 0.5);
    rc_anon__pool_take(a, q, &out);
    cr_assert_eq(out.nt, 2);
    for (uint32_t i = 0; i < out.nt; i++) {
        double s = pkt_tk(&out)[i] == 2 ? 0.875 : 0.5;
        cr_assert(out.tq[i] == s / 2, "target %u: %.17g", pkt_tk(&out)[i], out.tq[i]);
        cr_assert(q->sa[pos[pkt_tk(&out)[i]] - 1] == s - s / 2);
    }
    /* target 2 leaves the sample: it leaves the pool at once (target 0, the last,
     * takes its place), and the next departure carries target 0 alone */
    cr_assert_eq(pos[2], 1, "target 2 first");
    rc_anon__target_drop(a, 2);
    cr_assert_eq(dropped[2], 1);
    cr_assert_eq(pos[2], 0);
    cr_assert_eq(pos_q[2], 0);
    cr_assert_eq(q->n_act, 1);
    cr_assert_eq(pos[0], 1);
    cr_assert_eq(q->act[0], 0);
    cr_assert(q->sa[0] == 0.25);
    rc_anon__pool_take(a, q, &out);
    cr_assert_eq(out.nt, 1);
    cr_assert_eq(pkt_tk(&out)[0], 0);
    cr_assert(out.tq[0] == 0.25);
    cr_assert_eq(q->n_act, 0); /* (the pool is empty: reset) */
    cr_assert_eq(pos[0], 0);
    rc_anon__pkt_clear(a, &out);
    rc_anon__tl_release(a, &out);
    rc_anon__tl_release(a, &y);
    free(q->act);
    free(q->sa);
    rc_anon__tl_free_all(a);
    teardown(&f);
}

/* A departure whose arrival is inside it passes its mean on at once
 * (rc_anon__pool_pass: into the next pool, or out of the mixes) instead of
 * through a list in the packet: the same sums, bit for bit, as the list's
 * path (rc_anon__pool_take, then rc_anon__pool_add or rc_anon__exit_targets),
 * over departures in a row (where a target's mean repeats and its log2 is
 * taken from the pool's last one), a target pruned, and one that left the
 * sample. */
enum { NK = 40 };
typedef struct pass_side {
    fixture f;
    tracked tg[NK];
    exit_sums xs[NK];
    uint8_t dropped[NK];
    uint32_t pos_p[NK], pos_q[NK];
} pass_side;

static void pass_setup(pass_side *s)
{
    setup(&s->f, true);
    rc_anon *a = &s->f.a;
    memset(s->tg, 0, sizeof s->tg);
    memset(s->xs, 0, sizeof s->xs);
    memset(s->dropped, 0, sizeof s->dropped);
    memset(s->pos_p, 0, sizeof s->pos_p);
    memset(s->pos_q, 0, sizeof s->pos_q);
    a->tg = s->tg;
    a->xs = s->xs;
    a->dropped = s->dropped;
    s->f.pools[P].pos = s->pos_p;
    s->f.pools[Q].pos = s->pos_q;
    /* the same pools on both sides: 7 packets in P, 3 in Q, sums from a fixed
     * sequence; target 5's sum in P is pruned at the first departure */
    uint64_t x = 12345;
    for (uint32_t v = P; v <= Q; v++) {
        uint32_t parts = v == P ? 7 : 3;
        for (uint32_t j = 0; j < parts; j++) {
            pkt p = client(j % 2);
            for (uint32_t k = 0; k < NK; k++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                if (j > 0 && (x >> 60) % 3 == 0) continue; /* (packet 0 carries every one) */
                double q = (double)(x >> 11) / 9007199254740992.0 / 50;
                if (v == P && k == 5) q = j == 0 ? 1.1e-14 : 0;
                if (q > 0) rc_anon__pkt_add_target(a, &p, k, q);
            }
            rc_anon__pool_add(a, &s->f.pools[v], &p, 1);
            rc_anon__pkt_clear(a, &p);
            rc_anon__tl_release(a, &p);
        }
    }
}

static void pass_step(pass_side *s, bool fused, int to)
{
    rc_anon *a = &s->f.a;
    pkt out = nothing();
    pool *p = &s->f.pools[P], *q = &s->f.pools[Q];
    if (fused) {
        rc_anon__pool_pass(a, p, &out, to, to == TAKE_POOL ? q : NULL);
        cr_assert_eq(out.nt, 0, "no list left in the packet");
        /* the arrival, as arrive() does it: the pool takes the packet, with
         * nothing left in its list */
        if (to == TAKE_POOL) rc_anon__pool_add(a, q, &out, 1);
    } else {
        rc_anon__pool_take(a, p, &out);
        if (to == TAKE_POOL) rc_anon__pool_add(a, q, &out, 1);
        else rc_anon__exit_targets(a, pkt_tk(&out), out.tq, out.nt);
    }
    rc_anon__pkt_clear(a, &out);
    rc_anon__tl_release(a, &out);
    rc_anon__sv_release(a, out.sv);
}

static void pass_free(pass_side *s)
{
    for (uint32_t v = P; v <= Q; v++) {
        free(s->f.pools[v].act);
        free(s->f.pools[v].sa);
        free(s->f.pools[v].lq);
        free(s->f.pools[v].lx);
    }
    rc_anon__tl_free_all(&s->f.a);
    teardown(&s->f);
}

static void pass_same(const pass_side *l, const pass_side *r, const char *when)
{
    for (uint32_t v = P; v <= Q; v++) {
        const pool *a = &l->f.pools[v], *b = &r->f.pools[v];
        cr_assert_eq(a->n, b->n, "%s: pool %u holds %lld / %lld", when, v, (long long)a->n,
                     (long long)b->n);
        cr_assert_eq(a->n_act, b->n_act, "%s: pool %u: %u / %u live", when, v, a->n_act,
                     b->n_act);
        for (uint32_t i = 0; i < a->n_act; i++) {
            cr_assert_eq(a->act[i], b->act[i], "%s: pool %u's order", when, v);
            cr_assert(memcmp(&a->sa[i], &b->sa[i], sizeof(double)) == 0,
                      "%s: pool %u target %u: %.17g / %.17g", when, v, a->act[i], a->sa[i],
                      b->sa[i]);
        }
    }
    for (uint32_t k = 0; k < NK; k++) {
        const exit_sums *a = &l->xs[k], *b = &r->xs[k];
        cr_assert(memcmp(&a->h, &b->h, sizeof a->h) == 0 &&
                      memcmp(&a->maxq, &b->maxq, sizeof a->maxq) == 0 &&
                      memcmp(&a->mass, &b->mass, sizeof a->mass) == 0,
                  "%s: target %u: h %.17g / %.17g, maxq %.17g / %.17g, mass %.17g / %.17g", when,
                  k, a->h, b->h, a->maxq, b->maxq, a->mass, b->mass);
    }
}

Test(anon_sender, a_mean_passed_on_at_once_is_the_lists)
{
    static pass_side l, r;
    pass_setup(&l);
    pass_setup(&r);
    pass_same(&l, &r, "set up");
    cr_assert_eq(l.f.pools[P].n_act, NK, "every target in P");
    static const int steps[] = {TAKE_EXIT, TAKE_EXIT, TAKE_EXIT, TAKE_POOL, -1,
                                TAKE_POOL, TAKE_EXIT, TAKE_EXIT};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        if (steps[i] < 0) {
            /* target 9 leaves the sample (on both sides) */
            l.tg[9].dropped = r.tg[9].dropped = true;
            rc_anon__target_drop(&l.f.a, 9);
            rc_anon__target_drop(&r.f.a, 9);
            continue;
        }
        pass_step(&l, false, steps[i]);
        pass_step(&r, true, steps[i]);
        char when[32];
        snprintf(when, sizeof when, "step %zu", i);
        pass_same(&l, &r, when);
        if (i == 0) cr_assert_eq(l.f.pools[P].n_act, NK - 1, "target 5 pruned");
    }
    cr_assert(l.xs[0].mass > 0 && l.xs[0].h > 0, "the exits counted");
    pass_free(&l);
    pass_free(&r);
}

/* A departure's quotients by FMA (anon_pool.c, rc_anon__quotients) are the
 * divisions' bit for bit, sums and flags too: 10^7 quotients of sums from
 * 10^-40 to 1 (log-uniform, and mantissas of all ones) by pool sizes up to
 * 2^40 (uniform in log, and 2^k - 1, 2^k, 2^k + 1), in blocks long enough for
 * the vector body and with a tail. */
Test(anon_sender, quotients_by_fma_are_the_divisions, .timeout = 120)
{
    if (!rc_anon__quotients_fma_runs())
        cr_skip_test("this processor has no AVX2 and FMA: the quotients are divisions only");
    gsl_rng *r = rc_rng_new(11, 0);
    enum { B = 67, BLOCKS = 10000000 / B };
    double s1[B], s2[B], q1[B], q2[B];
    uint64_t not_rn = 0; /* quotients where RN(s * RN(1/n)) alone is not RN(s/n) */
    for (int blk = 0; blk < BLOCKS; blk++) {
        double n;
        unsigned k = 1 + (unsigned)rc_rng_below(r, 40);
        switch (blk % 4) {
        case 0: n = (double)((1ull << k) - 1); break;
        case 1: n = ldexp(1, (int)k) + (blk % 8 == 1 ? 1 : 0); break;
        default: n = floor(exp2(40 * gsl_rng_uniform(r))) + 1; break;
        }
        for (int i = 0; i < B; i++) {
            double s = exp2(-40 * 3.3219 * gsl_rng_uniform(r)); /* 10^-40 .. 1 */
            if (i % 5 == 0) s = nextafter(ldexp(1, -(int)rc_rng_below(r, 130)), 0);
            s1[i] = s2[i] = s;
            not_rn += s * (1 / n) != s / n;
        }
        int low1 = rc_anon__quotients(false, s1, q1, B, n);
        int low2 = rc_anon__quotients(true, s2, q2, B, n);
        cr_assert_eq(low1, low2, "block %d: the pruning flag", blk);
        for (int i = 0; i < B; i++) {
            cr_assert(memcmp(&q1[i], &q2[i], sizeof q1[i]) == 0,
                      "%.17g / %.17g: division %.17g, FMA %.17g", s2[i] + q2[i], n, q1[i], q2[i]);
            cr_assert(memcmp(&s1[i], &s2[i], sizeof s1[i]) == 0, "the sum left by %.17g", n);
        }
    }
    /* the test has teeth: a plain product by the reciprocal differs often */
    cr_assert_gt(not_rn, 100000u, "only %llu products by 1/n differ from the quotient",
                 (unsigned long long)not_rn);
    rc_rng_free(r);
}
