/* Event queue and engine: order, tie-breaking, determinism. */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Interleaved pushes (always later than the last pop) and pops on a large
 * queue (the 4-ary heap's growth, its sentinels and partial last node),
 * checked against the (time, class, seq) order; peek and peek2 must name the
 * next two events. */
Test(evq, interleaved_large_queue_keeps_order_and_peeks_the_next_two)
{
    rc_evq q;
    rc_evq_init(&q, 4);
    gsl_rng *r = rc_rng_new(11, 1);
    uint32_t id = 0;
    size_t popped = 0;
    rc_time now = 0;
    rc_event prev = {0}, ev;
    for (int round = 0; round < 200000; round++) {
        unsigned k = (unsigned)rc_rng_below(r, 3); /* 0, 1: push; 2: pop */
        if (k < 2) {
            rc_time t = now + 1 + (rc_time)rc_rng_below(r, 5000);
            rc_evq_push(&q, t, (unsigned)rc_rng_below(r, 4), 1, id++, 0);
            continue;
        }
        const rc_evq_val *p1 = rc_evq_peek_val(&q), *p2 = rc_evq_peek2_val(&q);
        uint32_t want1 = p1 ? p1->obj : UINT32_MAX, want2 = p2 ? p2->obj : UINT32_MAX;
        if (!rc_evq_pop(&q, &ev)) {
            cr_assert_null(p1);
            continue;
        }
        cr_assert_eq(ev.obj, want1, "peek named %u, pop gave %u", want1, ev.obj);
        if (popped > 0)
            cr_assert(ev.t > prev.t || (ev.t == prev.t && ev.key2 > prev.key2),
                      "order broken at pop %zu", popped);
        prev = ev;
        now = ev.t;
        popped++;
        rc_event ev2;
        if (want2 != UINT32_MAX) { /* the next pop is what peek2 named */
            cr_assert(rc_evq_pop(&q, &ev2));
            cr_assert_eq(ev2.obj, want2, "peek2 named %u, pop gave %u", want2, ev2.obj);
            cr_assert(ev2.t > prev.t || (ev2.t == prev.t && ev2.key2 > prev.key2));
            prev = ev2;
            now = ev2.t;
            popped++;
        }
    }
    while (rc_evq_pop(&q, &ev)) {
        cr_assert(ev.t > prev.t || (ev.t == prev.t && ev.key2 > prev.key2));
        prev = ev;
        popped++;
    }
    cr_assert_eq(popped, id);
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

static void other_handler(void *ctx, const rc_event *ev)
{
    (void)ctx;
    (void)ev;
}

/* Runs `fn` in a child with stderr into a pipe; returns the signal that ended
 * it (0 if it exited) and what it wrote in msg. */
static int in_child(void (*fn)(void), char *msg, size_t n)
{
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        fn();
        _exit(0);
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < n && (r = read(fd[0], msg + got, n - 1 - got)) > 0) got += (size_t)r;
    msg[got] = '\0';
    close(fd[0]);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

static void register_kind_3_twice(void)
{
    rc_sim s;
    rc_sim_init(&s, 10);
    rc_sim_on(&s, 3, count_handler, &s);
    rc_sim_on(&s, 3, other_handler, NULL); /* must not replace the first */
}

static void register_two_kinds(void)
{
    rc_sim s;
    rc_sim_init(&s, 10);
    rc_sim_on(&s, RC_SIM_KIND_FIRST, count_handler, &s);
    rc_sim_on(&s, RC_SIM_KIND_FIRST + 1, other_handler, NULL);
    rc_sim_free(&s);
}

Test(sim, on_refuses_a_kind_already_taken)
{
    char msg[1024];
    int sig = in_child(register_kind_3_twice, msg, sizeof msg);
    cr_assert_eq(sig, SIGABRT, "a second handler for a taken kind must abort (signal %d)", sig);
    cr_assert(strstr(msg, "event kind 3 is registered twice") != NULL, "message: %s", msg);
    cr_assert_eq(in_child(register_two_kinds, msg, sizeof msg), 0, "two kinds: %s", msg);
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
