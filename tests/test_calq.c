/* The calendar queue (core/calq.h) and the engine with a calendar kind
 * (rc_sim_calendar): events must pop in exactly the heap's order, whatever
 * their times (same instant, inside the current bucket, beyond the ring's
 * span, after the calendar ran empty). */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "core/calq.h"
#include "core/evq.h"
#include "core/rng.h"
#include "core/sim.h"

/* A time a little or far ahead of now: ties, the current bucket, the ring, the overflow. */
static rc_time ahead(gsl_rng *r, rc_time now)
{
    switch (rc_rng_below(r, 6)) {
    case 0: return now;                                   /* this instant */
    case 1: return now + (rc_time)rc_rng_below(r, 8);     /* the current bucket */
    case 2: return now + (rc_time)rc_rng_below(r, 300);   /* the ring */
    case 3: return now + 1000 * (rc_time)rc_rng_below(r, 4); /* coarse: many ties */
    case 4: return now + (rc_time)rc_rng_below(r, 100000); /* beyond the ring: far ring, overflow */
    default: return now + (rc_time)rc_rng_below(r, 2000);
    }
}

/* Random pushes and pops on a calendar and a heap given the same keys: the
 * same event comes out of both every time, rc_calq_ahead names the events
 * that follow, and rc_calq_soon past the current bucket names the next one's. */
Test(calq, pops_what_the_heap_pops)
{
    uint32_t most_spares = 0; /* large bucket buffers passed on (calq.c, grow) */
    size_t most_far = 0, most_ovf = 0; /* events the far ring and the overflow held */
    size_t most_late = 0; /* events waiting apart from the current bucket's array */
    size_t soon_next = 0; /* events rc_calq_soon named in the next bucket */
    for (unsigned width = 1; width <= 256; width *= 4) {
        rc_calq c;
        rc_evq h;
        /* a short ring (one bucket at the last width): the far ring and the overflow are used */
        rc_calq_init(&c, width, width == 256 ? 1 : 16);
        rc_evq_init(&h, 4);
        gsl_rng *r = rc_rng_new(5 + width, 1);
        rc_time now = 0;
        uint32_t id = 0;
        size_t pops = 0;
        for (int round = 0; round < 200000; round++) {
            /* phases: fill, drain to empty, refill after a long gap */
            bool push = (round / 20000) % 3 == 1 ? rc_rng_below(r, 4) == 0 : rc_rng_below(r, 3) < 2;
            if (push) {
                rc_time t = ahead(r, now);
                unsigned cls = (unsigned)rc_rng_below(r, 3);
                uint64_t seq = rc_evq_reserve(&h);
                rc_evq_push_seq(&h, t, cls, seq, 0, id, (uint64_t)id * 3);
                rc_calq_push(&c, rc_evq_make_key(t, ((uint64_t)cls << 56) | seq), 0, id,
                             (uint64_t)id * 3);
                id++;
                continue;
            }
            const rc_calq_ent *e = rc_calq_peek(&c);
            rc_event ev;
            bool any = rc_evq_pop(&h, &ev);
            cr_assert_eq(e != NULL, any, "round %d: calendar %s, heap %s", round,
                         e ? "has events" : "empty", any ? "has events" : "empty");
            if (!any) {
                now += 50000; /* a gap: the next pushes land far from where the calendar stopped */
                continue;
            }
            cr_assert_eq(e->obj, ev.obj, "width %u, pop %zu: calendar gives %u, heap %u", width,
                         pops, e->obj, ev.obj);
            cr_assert_eq(rc_evq_key_time(e->key), ev.t);
            cr_assert_eq(e->arg, ev.arg);
            /* rc_calq_soon: rc_calq_ahead's event, or past the current
             * bucket one of the next bucket's, all of which pop next */
            for (uint32_t i = 1; i <= 16; i++) {
                const rc_calq_ent *soon = rc_calq_soon(&c, i), *exact = rc_calq_ahead(&c, i);
                if (exact != NULL) {
                    cr_assert_eq(soon, exact, "rc_calq_soon(%u) is not rc_calq_ahead's", i);
                } else if (soon != NULL && soon >= c.cur.a + c.head && soon < c.cur.a + c.cur.n) {
                    /* an event of the current bucket's array: only while others wait in late */
                    cr_assert_gt(rc_evq_size(&c.late), 0, "rc_calq_soon(%u) is not rc_calq_ahead's",
                                 i);
                } else if (soon != NULL) {
                    rc_time ts = rc_evq_key_time(soon->key);
                    cr_assert(ts >= c.cur_end && ts < c.cur_end + c.width,
                              "rc_calq_soon(%u) named an event at %lld, outside the next "
                              "bucket [%lld, %lld)", i, (long long)ts, (long long)c.cur_end,
                              (long long)(c.cur_end + c.width));
                    soon_next++;
                }
            }
            const rc_calq_ent *next = rc_calq_ahead(&c, 1);
            uint32_t next_obj = next ? next->obj : UINT32_MAX;
            rc_calq_drop(&c);
            const rc_calq_ent *e2 = next ? rc_calq_peek(&c) : NULL;
            if (next) cr_assert_eq(e2->obj, next_obj, "rc_calq_ahead(1) named %u, then %u popped",
                                   next_obj, e2->obj);
            now = ev.t;
            pops++;
            if (c.n_spare > most_spares) most_spares = c.n_spare;
            if (c.far_n > most_far) most_far = c.far_n;
            if (rc_evq_size(&c.late) > most_late) most_late = rc_evq_size(&c.late);
            if (rc_evq_size(&c.ovf) > most_ovf) most_ovf = rc_evq_size(&c.ovf);
        }
        cr_assert_eq(rc_calq_size(&c), rc_evq_size(&h));
        cr_assert_gt(pops, 50000);
        rc_rng_free(r);
        rc_calq_free(&c);
        rc_evq_free(&h);
    }
    cr_assert_gt(most_spares, 0, "no bucket outgrew its buffer: the spares went untested");
    cr_assert_gt(most_far, 1000, "the far ring held at most %zu events", most_far);
    cr_assert_gt(most_ovf, 1000, "the overflow held at most %zu events", most_ovf);
    cr_assert_gt(most_late, 10, "at most %zu events waited apart from the current bucket",
                 most_late);
    cr_assert_gt(soon_next, 1000, "rc_calq_soon named %zu events of the next bucket", soon_next);
}

/* Buckets of thousands of events (an observer's at 10^5 users) are dealt into
 * bins by time before they are sorted (calq.c, sort_current): the pops stay
 * the heap's, with times spread over the bucket, piled on a few instants
 * (ties broken by class and sequence) or all on one, and with widths below,
 * at and above the number of bins. */
Test(calq, large_buckets_pop_what_the_heap_pops)
{
    const rc_time widths[] = {4, 1024, 4096, (rc_time)1 << 20};
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
        for (int spread = 0; spread < 3; spread++) {
            rc_time width = widths[w];
            rc_calq c;
            rc_evq h;
            rc_calq_init(&c, width, 8);
            rc_evq_init(&h, 4);
            gsl_rng *r = rc_rng_new(11 + (unsigned long)w, (unsigned long)spread);
            rc_time now = 0;
            uint32_t id = 0;
            size_t pops = 0;
            for (int round = 0; round < 60000; round++) {
                /* bursts of pushes (thousands a bucket), then pops */
                bool push = (round / 3000) % 2 == 0 ? rc_rng_below(r, 8) != 0 : rc_rng_below(r, 8) == 0;
                if (push) {
                    rc_time d = spread == 0   ? (rc_time)rc_rng_below(r, (unsigned long)(3 * width))
                                : spread == 1 ? width / 4 * (rc_time)rc_rng_below(r, 12)
                                              : width;
                    rc_time t = now + d;
                    unsigned cls = (unsigned)rc_rng_below(r, 3);
                    uint64_t seq = rc_evq_reserve(&h);
                    rc_evq_push_seq(&h, t, cls, seq, 0, id, id);
                    rc_calq_push(&c, rc_evq_make_key(t, ((uint64_t)cls << 56) | seq), 0, id, id);
                    id++;
                    continue;
                }
                const rc_calq_ent *e = rc_calq_peek(&c);
                rc_event ev;
                bool any = rc_evq_pop(&h, &ev);
                cr_assert_eq(e != NULL, any);
                if (!any) continue;
                cr_assert_eq(e->obj, ev.obj, "width %lld, spread %d, pop %zu: calendar gives %u, heap %u",
                             (long long)width, spread, pops, e->obj, ev.obj);
                rc_calq_drop(&c);
                now = ev.t;
                pops++;
            }
            cr_assert_gt(pops, 20000);
            cr_assert_gt(c.sort_cap, 0, "width %lld, spread %d: no bucket was dealt into bins",
                         (long long)width, spread);
            rc_rng_free(r);
            rc_calq_free(&c);
            rc_evq_free(&h);
        }
}

/* The engine: a model whose handlers schedule random later events of three
 * kinds runs the same sequence of events with kind 1 in a calendar as with
 * everything in the heap. */
typedef struct trace_ctx {
    rc_sim *s;
    gsl_rng *r;
    uint64_t *log;
    size_t n, cap;
} trace_ctx;

static void traced(void *ctx, const rc_event *ev)
{
    trace_ctx *x = ctx;
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 1024;
        x->log = realloc(x->log, x->cap * sizeof *x->log);
    }
    x->log[x->n++] = (uint64_t)ev->t << 24 ^ (uint64_t)ev->kind << 20 ^ ev->obj;
    unsigned k = (unsigned)rc_rng_below(x->r, 5);
    for (unsigned i = 0; i < (k == 0 ? 2u : k == 1 ? 0u : 1u); i++) {
        uint32_t kind = 1 + (uint32_t)rc_rng_below(x->r, 3);
        rc_sim_at(x->s, ahead(x->r, ev->t), kind == 1 ? 3 : (unsigned)rc_rng_below(x->r, 7), kind,
                  (uint32_t)rc_rng_below(x->r, 1u << 20), 0);
    }
}

/* calendar: 0 = everything in the heap, 1 = kind 1 in a calendar, 2 = kinds 1
 * and 3 in one calendar (rc_sim_calendar_also) */
static trace_ctx run_model(int calendar)
{
    static rc_sim s;
    rc_sim_init(&s, 20 * 1000 * 1000);
    trace_ctx x = {&s, rc_rng_new(99, 1), NULL, 0, 0};
    if (calendar > 0) rc_sim_calendar(&s, 1, 16, 32);
    if (calendar > 1) rc_sim_calendar_also(&s, 3);
    for (uint32_t k = 1; k <= 3; k++) rc_sim_on(&s, k, traced, &x);
    for (uint32_t i = 0; i < 400; i++) rc_sim_at(&s, (rc_time)i * 7, 3, 1 + i % 3, i, 0);
    rc_sim_run(&s, NULL, NULL, 0);
    rc_rng_free(x.r);
    cr_assert_eq(s.events, x.n);
    rc_sim_free(&s);
    return x;
}

Test(calq, engine_runs_the_same_events_with_a_calendar)
{
    trace_ctx a = run_model(0);
    cr_assert_gt(a.n, 100000, "the model ran %zu events", a.n);
    for (int cal = 1; cal <= 2; cal++) {
        trace_ctx b = run_model(cal);
        cr_assert_eq(a.n, b.n, "heap-only ran %zu events, with calendar %d %zu", a.n, cal, b.n);
        for (size_t i = 0; i < a.n; i++)
            cr_assert_eq(a.log[i], b.log[i], "calendar %d: event %zu differs", cal, i);
        free(b.log);
    }
    free(a.log);
}
