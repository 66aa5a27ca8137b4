/* Event queue and engine: order, tie-breaking, determinism. */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>

#include "core/evq.h"
#include "core/rng.h"
#include "core/sim.h"

Test(evq, pops_in_time_order_with_many_events)
{
    rc_evq q;
    rc_evq_init(&q, 4);
    gsl_rng *r = rc_rng_new(7, 1);
    for (uint32_t i = 0; i < 20000; i++)
        rc_evq_push(&q, (rc_time)rc_rng_below(r, 1000), 0, 0, i, 0);
    rc_event prev = {0}, ev;
    size_t n = 0;
    while (rc_evq_pop(&q, &ev)) {
        if (n > 0) {
            cr_assert(ev.t >= prev.t, "time went back: %lld after %lld", (long long)ev.t,
                      (long long)prev.t);
            if (ev.t == prev.t)
                cr_assert(ev.obj > prev.obj, "same-time events not FIFO: %u after %u", ev.obj,
                          prev.obj);
        }
        prev = ev;
        n++;
    }
    cr_assert_eq(n, 20000);
    rc_rng_free(r);
    rc_evq_free(&q);
}

Test(evq, same_time_orders_by_class_then_fifo)
{
    rc_evq q;
    rc_evq_init(&q, 16);
    rc_evq_push(&q, 10, 3, 0, 1, 0);
    rc_evq_push(&q, 10, 1, 0, 2, 0);
    rc_evq_push(&q, 10, 3, 0, 3, 0);
    rc_evq_push(&q, 10, 0, 0, 4, 0);
    rc_evq_push(&q, 5, 6, 0, 5, 0);
    uint32_t want[] = {5, 4, 2, 1, 3};
    rc_event ev;
    for (int i = 0; i < 5; i++) {
        cr_assert(rc_evq_pop(&q, &ev));
        cr_assert_eq(ev.obj, want[i], "position %d: got %u want %u", i, ev.obj, want[i]);
    }
    cr_assert_not(rc_evq_pop(&q, &ev));
    rc_evq_free(&q);
}

static int hits;
static rc_time last_seen;
static void count_handler(void *ctx, const rc_event *ev)
{
    rc_sim *s = ctx;
    cr_assert(ev->t >= last_seen);
    last_seen = ev->t;
    hits++;
    if (ev->arg < 5) rc_sim_at(s, ev->t + 100, 0, 0, 0, ev->arg + 1);
}

/* Events pushed late with a reserved sequence number pop exactly where they
 * would have had they been pushed at reservation (what RC-FT's runs of
 * timeouts rely on for identical results). */
Test(evq, reserved_pushes_pop_as_if_pushed_at_reservation)
{
    enum { N = 5000 };
    rc_evq now, late;
    rc_evq_init(&now, 4);
    rc_evq_init(&late, 4);
    gsl_rng *r = rc_rng_new(11, 1);
    struct { rc_time t; unsigned cls; uint64_t seq; } held[N];
    size_t n_held = 0;
    for (uint32_t i = 0; i < N; i++) {
        rc_time t = (rc_time)rc_rng_below(r, 50); /* many ties */
        unsigned cls = (unsigned)rc_rng_below(r, 3);
        rc_evq_push(&now, t, cls, 0, i, 0);
        if (rc_rng_below(r, 2)) {
            held[n_held].t = t;
            held[n_held].cls = cls;
            held[n_held].seq = rc_evq_reserve(&late);
            held[n_held++].seq |= (uint64_t)i << 32; /* remember i */
        } else {
            rc_evq_push(&late, t, cls, 0, i, 0);
        }
    }
    /* push the held ones in reverse, long after their reservation */
    for (size_t j = n_held; j-- > 0;)
        rc_evq_push_seq(&late, held[j].t, held[j].cls, held[j].seq & 0xffffffffu, 0,
                        (uint32_t)(held[j].seq >> 32), 0);
    cr_assert(n_held > N / 3);
    rc_event a, b;
    size_t n = 0;
    while (rc_evq_pop(&now, &a)) {
        cr_assert(rc_evq_pop(&late, &b));
        cr_assert_eq(a.obj, b.obj, "pop %zu: event %u, expected %u", n, b.obj, a.obj);
        cr_assert_eq(a.t, b.t);
        n++;
    }
    cr_assert_not(rc_evq_pop(&late, &b));
    cr_assert_eq(n, N);
    rc_rng_free(r);
    rc_evq_free(&now);
    rc_evq_free(&late);
}

Test(sim, runs_until_stop_and_drops_later_events)
{
    rc_sim s;
    rc_sim_init(&s, 350);
    rc_sim_on(&s, 0, count_handler, &s);
    hits = 0;
    last_seen = 0;
    rc_sim_at(&s, 0, 0, 0, 0, 0);
    rc_sim_run(&s, NULL, NULL, 0);
    cr_assert_eq(hits, 4, "events at 0,100,200,300 run, 400 is past stop; got %d", hits);
    cr_assert_eq(s.events, 4);
    cr_assert_eq(s.now, 350);
    rc_sim_free(&s);
}

Test(rng, streams_are_independent_of_each_other_and_reproducible)
{
    gsl_rng *a = rc_rng_new(42, 1), *b = rc_rng_new(42, 1), *c = rc_rng_new(42, 2),
            *d = rc_rng_new(43, 1);
    int same_ab = 0, same_ac = 0, same_ad = 0;
    for (int i = 0; i < 1000; i++) {
        unsigned long x = gsl_rng_get(a), y = gsl_rng_get(b), z = gsl_rng_get(c),
                      w = gsl_rng_get(d);
        same_ab += x == y;
        same_ac += x == z;
        same_ad += x == w;
    }
    cr_assert_eq(same_ab, 1000, "same (seed, stream) must give the same draws");
    cr_assert_lt(same_ac, 5, "different streams must differ");
    cr_assert_lt(same_ad, 5, "different seeds must differ");
    rc_rng_free(a);
    rc_rng_free(b);
    rc_rng_free(c);
    rc_rng_free(d);
}

Test(rng, geometric_has_the_bernoulli_law)
{
    gsl_rng *r = rc_rng_new(1, 9);
    double p = 0.0198, sum = 0;
    int n = 200000, ones = 0;
    for (int i = 0; i < n; i++) {
        uint64_t g = rc_rng_geom(r, p);
        cr_assert(g >= 1);
        sum += (double)g;
        ones += g == 1;
    }
    double mean = sum / n, want = 1 / p, sd = sqrt((1 - p) / (p * p) / n);
    cr_assert(fabs(mean - want) < 5 * sd, "mean %g, want %g +- %g", mean, want, 5 * sd);
    double f1 = (double)ones / n;
    cr_assert(fabs(f1 - p) < 5 * sqrt(p * (1 - p) / n), "P(G=1) %g, want %g", f1, p);
    rc_rng_free(r);
}
