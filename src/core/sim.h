/* sim: the model-agnostic discrete-event engine.
 *
 * A model registers handlers by event kind and schedules events; rc_sim_run
 * pops events in (time, class, FIFO) order and dispatches them until the
 * queue is empty or the next event is at or after the stop time.  The engine
 * knows nothing about mix networks.  Time never goes backwards and nothing
 * may be scheduled in the past (checked with RC_DCHECK).
 */
#ifndef RCSIM_CORE_SIM_H
#define RCSIM_CORE_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/calq.h"
#include "core/evq.h"

/* Same-time event classes: events at one instant pop in this order (docs/spec.md
 * §1.2): mixes < providers < availability < pulls < client streams < strategy
 * timers < apps.  The class is the second key of the event queue. */
enum { RC_CLS_MIX = 0, RC_CLS_PROVIDER = 1, RC_CLS_AVAIL = 2, RC_CLS_PULL = 3, RC_CLS_STREAM = 4,
       RC_CLS_TIMER = 5, RC_CLS_APP = 6 };

/* Event kinds: each names one handler (rc_sim_on).  The engine knows no
 * layer's kinds: each layer that has events declares them in its own header,
 * numbered on from the end of the kinds of the layer below it (the lowest from
 * RC_SIM_KIND_FIRST), and asserts that its end is at most RC_SIM_MAX_KINDS; so
 * no two layers take the same number.  Kind 0 is never an event's (it stands
 * for "no calendar kind").  A kind only picks the handler: it takes no part
 * in the order of events. */
#define RC_SIM_KIND_FIRST 1
#define RC_SIM_MAX_KINDS 32

typedef void (*rc_handler_fn)(void *ctx, const rc_event *ev);
/* Starts loading what the handler of an event with this obj will touch
 * (__builtin_prefetch only: it must not change any state), in stages: the
 * engine calls it with the event's obj and arg, with stage
 * RC_SIM_PREFETCH_STAGES - 1 for an event several
 * places ahead (load its record), then with each lower stage as the event
 * comes nearer (follow the pointers the previous stage brought into cache),
 * 0 last.  A chain of dependent loads is then fetched one link per stage. */
enum { RC_SIM_PREFETCH_STAGES = 4 };
typedef void (*rc_prefetch_fn)(void *ctx, uint32_t obj, uint64_t arg, unsigned ahead);

typedef struct rc_sim {
    rc_evq q;
    rc_calq cal;        /* the events of the calendar kinds (rc_sim_calendar), if any */
    uint32_t cal_kinds; /* bit k: kind k goes to the calendar; 0: no calendar */
    rc_time now;
    rc_time stop;
    uint64_t events;
    rc_handler_fn handlers[RC_SIM_MAX_KINDS];
    void *ctx[RC_SIM_MAX_KINDS];
    rc_prefetch_fn prefetch[RC_SIM_MAX_KINDS];
    /* how many places ahead each prefetch stage looks (index = stage) */
    uint32_t cal_ahead[RC_SIM_PREFETCH_STAGES];
} rc_sim;

void rc_sim_init(rc_sim *s, rc_time stop);
void rc_sim_free(rc_sim *s);
/* Registers the handler of events of `kind` (declared by its layer).  A kind
 * has one handler: registering a kind already taken is a programming error and
 * aborts, naming the kind (it would silently take the other layer's events). */
void rc_sim_on(rc_sim *s, uint32_t kind, rc_handler_fn fn, void *ctx);
/* Registers a prefetch for events of `kind` (after rc_sim_on, same ctx): the
 * engine calls it for the next two events in the queue (for a calendar kind:
 * for the events a few places ahead) while the current one is handled, so
 * that in large populations the next event's state is on its way from memory.
 * Optional; it cannot change results. */
void rc_sim_on_prefetch(rc_sim *s, uint32_t kind, rc_prefetch_fn fn);
/* The handlers do much besides the engine's own work (an observer follows
 * every packet the events send): each event takes microseconds, so the
 * calendar's prefetches look fewer places ahead (what they fetched a dozen
 * events ahead was often not in cache any more when read).  Timing only. */
void rc_sim_prefetch_near(rc_sim *s);
/* Keeps the events of `kind` in a calendar queue of `buckets` buckets `width`
 * us wide (rounded down to a power of two) instead of the heap (core/calq.h):
 * for the kinds that are most of the events and are always scheduled a little
 * ahead (a population's pulls, cover packets' hops).  Events pop in the same
 * order either way; the calendar's sorted current bucket also lets the engine
 * prefetch the state of its events several ahead.  Call once, before
 * scheduling any event of the kind; rc_sim_calendar_also adds another kind to
 * the same calendar (its width should then suit the kinds' events together). */
void rc_sim_calendar(rc_sim *s, uint32_t kind, rc_time width, size_t buckets);
void rc_sim_calendar_also(rc_sim *s, uint32_t kind);
/* Schedules an event; false (and nothing queued) when t is at or after the
 * stop time, where it could never run. */
bool rc_sim_at(rc_sim *s, rc_time t, unsigned cls, uint32_t kind, uint32_t obj, uint64_t arg);
/* Deferred scheduling (core/evq.h rc_evq_reserve): reserve the order
 * position now, schedule later (at the latest when the event is due); false
 * when t is at or after the stop time. */
static inline uint64_t rc_sim_reserve(rc_sim *s) { return rc_evq_reserve(&s->q); }
bool rc_sim_at_seq(rc_sim *s, rc_time t, unsigned cls, uint64_t seq, uint32_t kind, uint32_t obj,
                   uint64_t arg);
/* Runs until the queue is empty or the next event is at >= stop.  The optional
 * hook is called every `every` of simulated time with the fraction done. */
void rc_sim_run(rc_sim *s, void (*hook)(void *, double), void *hook_ctx, rc_time every);

#endif
