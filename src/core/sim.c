#include "core/sim.h"

#include <string.h>

#include "core/log.h"

/* How many places ahead the engine calls a calendar kind's prefetch with
 * each stage (index = stage): each stage's loads are in cache by the time the
 * next follows the pointers in them (docs/performance.md).  With an observer
 * on the wire an event takes several times as long, and the next four are
 * ahead enough: further, a client's record fetched twelve events ahead was
 * not in cache when its stage 1 read it six events later (docs/performance.md,
 * tenth round). */
static const uint32_t CAL_AHEAD[RC_SIM_PREFETCH_STAGES] = {3, 6, 9, 12};
static const uint32_t CAL_AHEAD_NEAR[RC_SIM_PREFETCH_STAGES] = {1, 2, 3, 4};

void rc_sim_init(rc_sim *s, rc_time stop)
{
    memset(s, 0, sizeof *s);
    rc_evq_init(&s->q, 1024);
    s->stop = stop;
    memcpy(s->cal_ahead, CAL_AHEAD, sizeof s->cal_ahead);
}

void rc_sim_free(rc_sim *s)
{
    rc_evq_free(&s->q);
    if (s->cal_kinds != 0) rc_calq_free(&s->cal);
}

void rc_sim_calendar(rc_sim *s, uint32_t kind, rc_time width, size_t buckets)
{
    RC_ASSERTF(kind > 0 && kind < RC_SIM_MAX_KINDS && s->cal_kinds == 0,
               "rc_sim_calendar: kind %u (one calendar per engine, never kind 0)", kind);
    rc_calq_init(&s->cal, width, buckets);
    s->cal_kinds = 1u << kind;
}

void rc_sim_calendar_also(rc_sim *s, uint32_t kind)
{
    RC_ASSERTF(kind > 0 && kind < RC_SIM_MAX_KINDS && s->cal_kinds != 0,
               "rc_sim_calendar_also: kind %u (after rc_sim_calendar, never kind 0)", kind);
    s->cal_kinds |= 1u << kind;
}

void rc_sim_on(rc_sim *s, uint32_t kind, rc_handler_fn fn, void *ctx)
{
    RC_ASSERTF(kind < RC_SIM_MAX_KINDS, "event kind %u is out of range (at most %d kinds)", kind,
               RC_SIM_MAX_KINDS);
    RC_ASSERTF(s->handlers[kind] == NULL,
               "event kind %u is registered twice (rc_sim_on): each kind has one handler, and "
               "each layer numbers its kinds on from the layer below (core/sim.h)", kind);
    RC_ASSERTF(fn != NULL, "event kind %u: no handler given (rc_sim_on)", kind);
    s->handlers[kind] = fn;
    s->ctx[kind] = ctx;
}

void rc_sim_on_prefetch(rc_sim *s, uint32_t kind, rc_prefetch_fn fn)
{
    RC_ASSERTF(kind < RC_SIM_MAX_KINDS && s->handlers[kind] != NULL,
               "event kind %u: a prefetch needs its handler registered first", kind);
    s->prefetch[kind] = fn;
}

void rc_sim_prefetch_near(rc_sim *s) { memcpy(s->cal_ahead, CAL_AHEAD_NEAR, sizeof s->cal_ahead); }

bool rc_sim_at_seq(rc_sim *s, rc_time t, unsigned cls, uint64_t seq, uint32_t kind, uint32_t obj,
                   uint64_t arg)
{
    RC_DCHECK(t >= s->now, "event of kind %u scheduled in the past: t=%lld now=%lld", kind,
              (long long)t, (long long)s->now);
    if (t >= s->stop) return false; /* would never run: keep the queue small */
    unsigned __int128 key = rc_evq_key(t, cls, seq);
    if (s->cal_kinds >> kind & 1) rc_calq_push(&s->cal, key, kind, obj, arg);
    else rc_evq_push_key(&s->q, key, kind, obj, arg);
    return true;
}

/* (A dropped event still takes a sequence number: only the order of the
 * numbers matters, not their gaps.) */
bool rc_sim_at(rc_sim *s, rc_time t, unsigned cls, uint32_t kind, uint32_t obj, uint64_t arg)
{
    return rc_sim_at_seq(s, t, cls, rc_sim_reserve(s), kind, obj, arg);
}

/* The next event of the heap or the calendar, whichever comes first. */
static inline bool next_event(rc_sim *s, rc_event *ev, bool *from_cal)
{
    const rc_calq_ent *c = rc_calq_peek(&s->cal);
    *from_cal = c != NULL && c->key < rc_evq_peek_key(&s->q);
    if (*from_cal) {
        *ev = (rc_event){rc_evq_key_time(c->key), (uint64_t)c->key, c->kind, c->obj, c->arg};
        rc_calq_drop(&s->cal);
        return true;
    }
    return rc_evq_pop(&s->q, ev);
}

/* One step of the loop: the bookkeeping and dispatch of event ev. */
static inline void dispatch(rc_sim *s, const rc_event *ev, rc_time *next_hook,
                            void (*hook)(void *, double), void *hook_ctx, rc_time every)
{
    RC_DCHECK(ev->t >= s->now, "time went backwards: %lld < %lld", (long long)ev->t,
              (long long)s->now);
    s->now = ev->t;
    if (hook != NULL && ev->t >= *next_hook) {
        hook(hook_ctx, (double)ev->t / (double)s->stop);
        while (*next_hook <= ev->t) *next_hook += every;
    }
    s->events++;
    /* The next event is usually the one now at the top (the handler
     * rarely schedules anything earlier): start loading its state.
     * (The heap names only its next two: they get the first stages.) */
    const rc_evq_val *next = rc_evq_peek_val(&s->q);
    if (next != NULL && s->prefetch[next->kind] != NULL)
        s->prefetch[next->kind](s->ctx[next->kind], next->obj, next->arg,
                                RC_SIM_PREFETCH_STAGES - 2);
    const rc_evq_val *after = rc_evq_peek2_val(&s->q);
    if (after != NULL && s->prefetch[after->kind] != NULL)
        s->prefetch[after->kind](s->ctx[after->kind], after->obj, after->arg,
                                 RC_SIM_PREFETCH_STAGES - 1);
}

void rc_sim_run(rc_sim *s, void (*hook)(void *, double), void *hook_ctx, rc_time every)
{
    rc_event ev;
    rc_time next_hook = every > 0 ? every : s->stop;
    if (s->cal_kinds == 0) { /* the heap alone: the loop as it was before calendars */
        while (rc_evq_pop(&s->q, &ev) && ev.t < s->stop) {
            dispatch(s, &ev, &next_hook, hook, hook_ctx, every);
            s->handlers[ev.kind](s->ctx[ev.kind], &ev);
        }
        s->now = s->stop;
        return;
    }
    bool cal_prefetch = false; /* does any calendar kind have a prefetch? */
    for (uint32_t k = 0; k < RC_SIM_MAX_KINDS; k++)
        cal_prefetch |= (s->cal_kinds >> k & 1) && s->prefetch[k] != NULL;
    bool from_cal;
    while (next_event(s, &ev, &from_cal) && ev.t < s->stop) {
        dispatch(s, &ev, &next_hook, hook, hook_ctx, every);
        /* (Only as calendar events are taken: the pipeline moves one calendar
         * event per step, and jobs where they are few pay nothing.) */
        if (from_cal && cal_prefetch)
            for (unsigned stage = 0; stage < RC_SIM_PREFETCH_STAGES; stage++) {
                const rc_calq_ent *e = rc_calq_soon(&s->cal, s->cal_ahead[stage]);
                if (e != NULL && s->prefetch[e->kind] != NULL)
                    s->prefetch[e->kind](s->ctx[e->kind], e->obj, e->arg, stage);
            }
        s->handlers[ev.kind](s->ctx[ev.kind], &ev);
    }
    s->now = s->stop;
}
