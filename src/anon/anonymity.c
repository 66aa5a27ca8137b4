/* anonymity: the global passive adversary (anon/anonymity.h, docs/spec.md §10).
 *
 * The net reports each link of a packet when it decides it, often seconds
 * ahead (a real bundle's whole path when it leaves its sender).  The
 * adversary must take the events in time order, so each report becomes one
 * or two events: a departure (at `sent`) and an arrival (at `received`).
 * Each event goes into the queue (a calendar queue, core/calq.h) when it is
 * reported; a packet's own events rise in key along its way (enqueue).
 * Events are keyed (time, phase, report number): arrivals
 * (phase 0) before departures (phase 1) at the same time, so packets leaving
 * a node in one lattice tick all take the mean of the pool after that tick's
 * arrivals (docs/spec.md §10.3); a link of zero duration (the exact model)
 * arrives inside its departure.  The queue is processed up to the current
 * time at each report: everything at an earlier time has been reported by
 * then, since the net reports a link no later than the time it starts.
 */
#include "anon/anonymity.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "anon/anon_internal.h"

enum { STREAM_ANON = 50, STREAM_ANON_PAIR = 51 };
/* Keys above this many times N over the expected number of candidates are
 * never tracked (on_carry). */
#define KEY_MARGIN 8.0
/* The sample known ahead (on_carry).  Until AHEAD_BINS_MIN of the window's
 * AHEAD_BINS equal bins of time are behind and AHEAD_RATE_MIN candidates (or
 * N, if more) have come, the window is assumed to bring E over AHEAD_EARLY
 * candidates, where E (the warm-up's rate over the window) is at least
 * AHEAD_MIN times N and the warm-up brought AHEAD_RATE_MIN, else none (few
 * messages are left out then, and the warm-up's rate says little: a target
 * group's one multicast in it made E twice what came).  After, the bins say
 * how far to trust the window's own rate (ahead_bins_behind): the rest is
 * assumed to bring its share at the rate so far, less a decline the bins
 * show going on, over AHEAD_MARGIN_MIN, less four deviations of a count as
 * dispersed as theirs and four of the rate's own estimate (with three, 2 of
 * 24 varied jobs missed).  A steady rate is trusted nearly as it is; a
 * clumped one (bursts, one target group's multicasts) or a falling one
 * (availability traces) is not, and a few seconds of one multicast's
 * sub-messages, which look steady, are kept from being taken for the
 * window's rate by the least count.  (The rule before, the rate so far over
 * 1.5 less four Poisson deviations from the 1,024th candidate on, missed in
 * such jobs, and followed a fifth more messages than it kept in steady ones:
 * docs/performance.md, "thirteenth round".) */
#define AHEAD_EARLY 2.0
#define AHEAD_MIN 4.0
#define AHEAD_BINS_MIN 16
#define AHEAD_RATE_MIN 1024
#define AHEAD_MARGIN_MIN 1.05
/* A free packet slot keeps target lists up to this long for its next packet. */
#define SLOT_KEEP_TARGETS 64

/* A node's role.  A client's is known from its number, with no read of the
 * per-node table: the clients are most of it, and a link's client is a cache
 * miss at 10^5 users. */
static inline uint8_t role_of(const rc_anon *a, uint32_t v)
{
    return v < a->users ? ROLE_CLIENT : a->role[v];
}

/* ---------- events ---------- */

static uint32_t ev_new(rc_anon *a)
{
    if (a->free_ev != NONE32) {
        uint32_t i = a->free_ev;
        a->free_ev = a->ev[i].split;
        /* The list is a stack: below its top lie records freed long ago, and
         * reading the next one's link missed the cache at most reports. */
        if (a->free_ev != NONE32) __builtin_prefetch(&a->ev[a->free_ev], 1);
        return i;
    }
    if (a->n_ev == a->cap_ev) {
        a->cap_ev = a->cap_ev ? a->cap_ev * 2 : 4096;
        a->ev = rc_xrealloc(a->ev, a->cap_ev * sizeof *a->ev);
    }
    return a->n_ev++;
}

static void ev_free(rc_anon *a, uint32_t i)
{
    a->ev[i].split = a->free_ev;
    a->free_ev = i;
}

/* The queue's width and ring: 1 ms buckets over a quarter of a second, then
 * the far ring's buckets of 128 ms over half a minute (a mix's mean delay is a
 * third of a second).  Keys are unique, so any correct priority queue pops the
 * same order: this one replaced a binary heap whose cache misses were a
 * quarter of a population's run.  A ring of 4,096 buckets (4 s) spread the
 * pushes over thousands of bucket ends, each a cache miss at 10^5 users; with
 * 256, the pushes due beyond the ring (over half) append to a few dozen far
 * buckets, whose ends stay cached, and a far bucket is dealt out to the ring
 * as a whole (docs/performance.md,
 * ninth round). */
#define Q_WIDTH_US 1024
#define Q_BUCKETS 256

/* An event's key: its time, then arrivals (phase 0) before departures, then
 * the report number. */
static inline unsigned __int128 ev_key(const event *e)
{
    return rc_evq_make_key(e->t, (uint64_t)(e->phase ? 1 : 0) << 63 | e->seq);
}

/* Event e, its record i, into the queue: its kind and exit flag as the
 * entry's kind, its packet and parent as its argument. */
static void q_push(rc_anon *a, uint32_t i, const event *e)
{
    rc_calq_push(&a->q, ev_key(e),
                 (uint32_t)e->kind | (uint32_t)e->exits << 2 |
                     (e->slot == NONE32 ? EV_SLOTLESS : 0),
                 i, (uint64_t)e->parent << 32 | e->slot);
}

/* ---------- packets ---------- */

/* A packet's first report.  Only a packet that may be reported again after
 * other packets' reports (a mix loop, a packet of the node-level mixes) goes
 * into the map: a packet the wire reports whole (l->whole: a bundle's links,
 * then its parts naming it as their parent and the carry of a real one) is
 * found as the packet last reported (last_id) or the last new one that is not
 * a part (root_id), with no map insert and delete missing the cache at every
 * packet.  Its id is new (the net numbers it as it reports it): an id seen
 * before here would mean the wire broke that promise, and the run stops. */
static uint32_t pkt_new(rc_anon *a, uint64_t id, bool whole, bool part)
{
    RC_ASSERTF(!whole || id >= a->id_end, "anonymity: packet %llu reported whole twice",
               (unsigned long long)id);
    uint32_t i;
    if (a->free_slot != NONE32) {
        i = a->free_slot;
        a->free_slot = a->slots[i].refs; /* free list threaded through refs */
        /* (a stack, as the events' free list: ev_new) */
        if (a->free_slot != NONE32) __builtin_prefetch(&a->slots[a->free_slot], 1);
    } else {
        if (a->n_slots == a->cap_slots) {
            a->cap_slots = a->cap_slots ? a->cap_slots * 2 : 1024;
            /* each slot in one cache line (drain fetches one at every event) */
            pkt *grown = rc_xaligned_alloc(64, a->cap_slots * sizeof *a->slots);
            if (a->n_slots > 0) memcpy(grown, a->slots, a->n_slots * sizeof *a->slots);
            free(a->slots);
            a->slots = grown;
        }
        i = a->n_slots++;
        a->slots[i] = (pkt){0};
    }
    pkt *p = &a->slots[i];
    uint32_t capt = p->capt;
    double *tq = p->tq;
    *p = (pkt){.id = id, .split = 1, .sender = NONE32, .target = NONE32, .origin = NONE32,
               .mapped = !whole, .capt = capt, .tq = tq};
    if (!whole) rc_anon__map_put(&a->hkey, &a->hval, &a->hcap, &a->hn, id, i);
    if (id >= a->id_end) a->id_end = id + 1;
    a->last_id = id;
    a->last_slot = i;
    if (!part) {
        a->root_id = id;
        a->root_slot = i;
    }
    return i;
}

/* The slot of a packet seen before, or NONE32 (pkt_new says where it is found). */
static uint32_t pkt_find(rc_anon *a, uint64_t id)
{
    if (id == a->last_id) return a->last_slot;
    if (id == a->root_id) return a->root_slot;
    if (id >= a->id_end) return NONE32; /* never seen: no need to probe */
    uint32_t slot = rc_anon__map_get(a->hkey, a->hval, a->hcap, id);
    if (slot != NONE32) {
        a->last_id = id;
        a->last_slot = slot;
    }
    return slot;
}

static void pkt_unref(rc_anon *a, uint32_t i)
{
    pkt *p = &a->slots[i];
    if (--p->refs > 0) return;
    if (p->loop && !p->home) return; /* (it comes back: its next report finds it) */
    if (p->mapped) rc_anon__map_del(a->hkey, a->hval, a->hcap, &a->hn, p->id);
    if (p->id == a->last_id) a->last_id = UINT64_MAX;
    if (p->id == a->root_id) a->root_id = UINT64_MAX;
    rc_anon__pkt_clear(a, p);
    if (p->capt > SLOT_KEEP_TARGETS) {
        /* A free slot keeps no large lists: every slot would otherwise hold
         * the most targets any packet it ever was carried (GiBs at 10,000
         * users), where only the packets in flight need theirs. */
        rc_anon__tl_release(a, p);
    }
    p->refs = a->free_slot;
    a->free_slot = i;
}


/* ---------- the observation file ---------- */

static void trace_row(rc_anon *a, char kind, uint64_t seq, uint64_t packet, uint64_t parent,
                      uint32_t from, uint32_t to, rc_time sent, rc_time received, uint32_t split,
                      bool exits, uint32_t target, bool real)
{
    if (a->trace == NULL) return;
    fprintf(a->trace, "%llu,%c,%lld,%lld,%u,%u,%lld,%lld,%u,%d,%lld,%d\n",
            (unsigned long long)seq, kind, packet == RC_WIRE_NONE ? -1LL : (long long)packet,
            parent == RC_WIRE_NONE ? -1LL : (long long)parent, from, to, (long long)sent,
            (long long)received, split, exits ? 1 : 0,
            target == NONE32 ? -1LL : (long long)target, real ? 1 : 0);
}

/* ---------- processing ---------- */

static void exit_packet(rc_anon *a, pkt *p, rc_time t)
{
    rc_anon__exit_targets(a, pkt_tk(p), p->tq, p->nt);
    if (p->target != NONE32) {
        tracked *g = &a->tg[p->target];
        g->exited = true;
        g->left = t;
        if (!g->ghost) rc_anon__sender_exit(a, p, p->target);
    }
}

static void arrive(rc_anon *a, const event *e, pkt *p)
{
    if (e->split == 0) {
        /* Every sub-message in it was for this provider (a strategy's relay):
         * the packet ends here, as the adversary sees. */
        rc_anon__pkt_clear(a, p);
        return;
    }
    if (p->loop && e->to == p->origin) {
        /* A mix loop back at its mix ends there: the adversary, which knows
         * the pool sizes, learns that this packet was a loop and holds no
         * tracked message.  Conditioning on that drops its probabilities;
         * the others are renormalised at the end (rc_anon_finish). */
        p->home = true;
        rc_anon__pkt_clear(a, p);
        return;
    }
    if (e->exits) {
        exit_packet(a, p, e->t);
        /* Its probabilities are spent; a mix loop goes on as a packet of no one's. */
        rc_anon__pkt_clear(a, p);
        if (!p->loop) return;
    }
    if (role_of(a, e->to) == ROLE_MIXING) {
        rc_anon__pool_add(a, &a->pools[e->to], p, e->exits ? 1 : e->split);
        rc_anon__pkt_clear(a, p);
    }
}

static void depart(rc_anon *a, const event *e, pkt *p)
{
    uint8_t role = role_of(a, e->from);
    if (role == ROLE_CLIENT) {
        p->sender = e->from; /* its targets came with the carry reports */
    } else if (role == ROLE_MIXING) {
        /* Its arrival is inside its departure (no link delay): what arrive()
         * does with its list is done as it takes the pool's mean, with no list
         * copied; but not into the pool it leaves, nor when a node that mixes
         * nothing passes the list on. */
        int to = TAKE_KEEP;
        pool *dest = NULL;
        if (e->received == e->t) {
            if (e->split == 0 || (p->loop && e->to == p->origin)) to = TAKE_DROP;
            else if (e->exits) to = TAKE_EXIT;
            else if (role_of(a, e->to) == ROLE_MIXING && e->to != e->from) {
                to = TAKE_POOL;
                dest = &a->pools[e->to];
            }
        }
        rc_anon__pool_pass(a, &a->pools[e->from], p, to, dest);
    } else if (e->parent != NONE32) {
        /* A part of a bundle split at a node that reveals the split: the
         * bundle's estimate, its targets shared among its parts. */
        const pkt *b = &a->slots[e->parent];
        rc_anon__pkt_clear(a, p);
        const uint32_t *btk = pkt_tk(b);
        for (uint32_t i = 0; i < b->nt; i++) rc_anon__pkt_add_target(a, p, btk[i], b->tq[i] / b->split);
        p->sender = b->sender;
        p->sid1 = b->sid1;
        if (b->sv != NULL) {
            p->sv = b->sv;
            p->sv->refs++;
        }
    }
    if (e->parent != NONE32) pkt_unref(a, e->parent);
    if (e->received == e->t) arrive(a, e, p);
}

/* Event e goes into the queue at once, with a record of its own.  A
 * packet's events come in the order of its way, each at or after the one
 * before (a link leaves no earlier than the last one arrived), and reported
 * later, so their keys rise in that order: the queue pops them in it, as it
 * pops every key in order, with no packet's events waiting behind each other. */
static void enqueue(rc_anon *a, const event *e)
{
#ifdef RCSIM_ANON_CHECK_ORDER
    if (e->slot != NONE32) {
        pkt *p = &a->slots[e->slot];
        unsigned __int128 k = ev_key(e);
        RC_ASSERTF(k > p->last_key, "anonymity: packet %llu's events out of order",
                   (unsigned long long)p->id);
        p->last_key = k;
    }
#endif
    RC_ASSERTF(e->received >= e->t && e->received - e->t <= UINT32_MAX,
               "anonymity: a link of %lld us", (long long)(e->received - e->t));
    uint32_t i = ev_new(a);
    a->ev[i] = (ev_rec){e->from, e->to, (uint32_t)(e->received - e->t), e->split};
    q_push(a, i, e);
}

/* The event of queue entry c (its record: obj; c is a copy, as the queue
 * moves its entries). */
static void process(rc_anon *a, const rc_calq_ent *c)
{
    uint32_t i = c->obj;
    const ev_rec *r = &a->ev[i];
    uint64_t low = (uint64_t)c->key;
    event e = {.t = rc_evq_key_time(c->key), .seq = low & ~(1ULL << 63),
               .slot = (uint32_t)c->arg, .parent = (uint32_t)(c->arg >> 32),
               .from = r->from, .to = r->to, .split = r->split,
               .phase = (uint8_t)(low >> 63), .kind = (uint8_t)(c->kind & 3),
               .exits = (c->kind >> 2) & 1};
    e.received = e.t + r->lat;
    pkt *p;
    if (c->kind & EV_SLOTLESS) {
        /* a part with no slot (on_part): it lives for this event only */
        p = &a->part;
        *p = (pkt){.split = 1, .sender = NONE32, .target = r->split, .origin = NONE32,
                   .capt = p->capt, .tq = p->tq};
        e.split = 1;
    } else {
        p = &a->slots[e.slot];
    }
    switch (e.kind) {
    case EV_DEP:
        depart(a, &e, p);
        if (e.received != e.t) {
            /* The same record becomes the packet's arrival. */
            a->ev[i].lat = 0;
            event arr = e;
            arr.t = e.received;
            arr.phase = 0;
            arr.kind = EV_ARR;
            q_push(a, i, &arr);
            return; /* keeps its reference for the arrival */
        }
        break;
    case EV_ARR: arrive(a, &e, p); break;
    case EV_CREATE:
        a->slots[e.slot].origin = e.to;
        if (role_of(a, e.to) == ROLE_MIXING) rc_anon__pool_add(a, &a->pools[e.to], &a->slots[e.slot], 1);
        break;
    }
    ev_free(a, i);
    if (e.slot != NONE32) pkt_unref(a, e.slot);
}

/* Starts loading a record: a packet slot is one cache line, an event record
 * a quarter of one; a prefetch of the first byte alone once left the fields
 * further in to miss when read, when records straddled lines. */
static inline void prefetch_record(const void *r) { __builtin_prefetch(r); }

/* How many events ahead drain fetches an event's record, its packet and a
 * part's bundle (all named by the queue's entry), by which time they have
 * arrived. */
enum { DRAIN_FAR = 6 };

void rc_anon__drain(rc_anon *a, rc_time limit)
{
    for (;;) {
        const rc_calq_ent *c = rc_calq_peek(&a->q);
        if (c == NULL || rc_evq_key_time(c->key) >= limit) break;
        rc_calq_ent cur = *c;
        rc_calq_drop(&a->q);
        /* The next events and their packets are far apart in memory and
         * usually not cached: fetch them while this one is processed. */
        const rc_calq_ent *n = rc_calq_soon(&a->q, DRAIN_FAR);
        if (n != NULL) {
            prefetch_record(&a->ev[n->obj]);
            uint32_t slot = (uint32_t)n->arg;
            if (slot != NONE32) prefetch_record(&a->slots[slot]);
            /* a split part's bundle, which its departure unreferences */
            uint32_t par = (uint32_t)(n->arg >> 32);
            if (par != NONE32) prefetch_record(&a->slots[par]);
        }
        process(a, &cur);
    }
}

/* ---------- wire hooks ---------- */

/* A link's departure that changes nothing the adversary holds but the
 * packet's sender, named here instead (depart): from a client, when the
 * packet has nothing pending (its first link), or from a node that mixes
 * nothing.  For a packet the wire reports whole (no mix loop) that is no
 * bundle's part. */
static bool quiet_departure(rc_anon *a, pkt *p, const rc_wire_link *l)
{
    uint8_t role = role_of(a, l->from);
    if (role == ROLE_PASS) return true;
    if (role != ROLE_CLIENT || p->refs != 1) return false;
    p->sender = l->from;
    return true;
}

/* ... and an arrival that changes nothing either (arrive): not the end of
 * the packet's way, not its exit, not into a pool. */
static bool quiet_arrival(const rc_anon *a, const rc_wire_link *l)
{
    return l->split != 0 && !l->exits && role_of(a, l->to) != ROLE_MIXING;
}

/* A bundle's part leaving a node that mixes for its provider at once, its
 * way's end: it takes the pool's mean and exits in one event (depart, then
 * arrive), and no later report names it, so it takes no packet slot; its
 * record keeps the tracked message it carries alone (process). */
static void on_part(rc_anon *a, const rc_wire_link *l, uint64_t seq)
{
    RC_ASSERT(pkt_find(a, l->parent) != NONE32);
    uint32_t target = NONE32;
    if (l->body != NONE32) target = rc_anon__map_get(a->bkey, a->bval, a->bcap, l->body);
    event e = {.t = l->sent, .received = l->received, .seq = seq, .slot = NONE32,
               .parent = NONE32, .from = l->from, .to = l->to, .split = target, .phase = 1,
               .kind = EV_DEP, .exits = true};
    enqueue(a, &e);
    trace_row(a, 'L', seq, l->packet, l->parent, l->from, l->to, l->sent, l->received, l->split,
              l->exits, target, l->real);
}

static void on_link(void *ctx, const rc_wire_link *l)
{
    rc_anon *a = ctx;
    rc_anon__drain(a, a->sim->now);
    uint64_t seq = a->seq++;
    if (l->kind == RC_WIRE_PULL) {
        uint32_t k = rc_anon__map_get(a->bkey, a->bval, a->bcap, l->body);
        if (k != NONE32) {
            a->tg[k].pulled = l->received; /* at the client (a link after the provider) */
            rc_anon__map_del(a->bkey, a->bval, a->bcap, &a->bn, l->body);
        }
        trace_row(a, 'P', seq, RC_WIRE_NONE, RC_WIRE_NONE, l->from, l->to, l->sent, l->received,
                  1, false, k, true);
        return;
    }
    if (l->kind == RC_WIRE_END) {
        /* A mix loop ends as its last link arrives (a report at that instant,
         * after the link's): the arrival did all there is to do (arrive). */
        trace_row(a, 'E', seq, l->packet, l->parent, l->from, l->to, l->sent, l->received,
                  l->split, l->exits, NONE32, l->real);
        return;
    }
    if (l->kind == RC_WIRE_LINK && l->whole && l->parent != RC_WIRE_NONE && l->exits &&
        l->split == 1 && l->received == l->sent && role_of(a, l->from) == ROLE_MIXING) {
        on_part(a, l, seq);
        return;
    }
    uint32_t slot = pkt_find(a, l->packet);
    if (slot == NONE32) slot = pkt_new(a, l->packet, l->whole, l->parent != RC_WIRE_NONE);
    pkt *p = &a->slots[slot];
    p->refs++;
    event e;
    memset(&e, 0, sizeof e);
    e.seq = seq;
    e.slot = slot;
    e.parent = NONE32;
    e.from = l->from;
    e.to = l->to;
    e.split = l->split;
    e.exits = l->exits;
    e.received = l->received;
    uint32_t target = NONE32;
    char kind = 'L';
    switch (l->kind) {
    case RC_WIRE_LINK:
        e.t = l->sent;
        e.phase = 1;
        e.kind = EV_DEP;
        if (l->split > 1) p->split = l->split;
        if (l->parent != RC_WIRE_NONE) {
            uint32_t parent = pkt_find(a, l->parent);
            RC_ASSERT(parent != NONE32);
            /* A part leaving a node that mixes takes the pool's mean and never
             * reads its bundle (depart): only a part of a split the node
             * reveals keeps the bundle for its departure. */
            if (role_of(a, l->from) != ROLE_MIXING) {
                e.parent = parent;
                a->slots[parent].refs++;
            }
        }
        /* Which tracked message it carries alone (ground truth, for the sender view). */
        if (l->body != NONE32) {
            target = rc_anon__map_get(a->bkey, a->bval, a->bcap, l->body);
            p = &a->slots[slot];
            p->target = target;
        }
        if (l->whole && l->parent == RC_WIRE_NONE && quiet_departure(a, p, l)) {
            /* Nothing happens at its departure: the record waits for its
             * arrival under the key the arrival would have had (process), or,
             * when nothing happens there either, there is no record. */
            if (quiet_arrival(a, l)) {
                p->refs--;
                trace_row(a, kind, seq, l->packet, l->parent, l->from, l->to, l->sent,
                          l->received, l->split, l->exits, target, l->real);
                return;
            }
            e.t = l->received;
            e.phase = l->received == l->sent ? 1 : 0;
            e.kind = EV_ARR;
        }
        break;
    case RC_WIRE_CREATE:
        e.t = l->sent;
        e.phase = 0;
        e.kind = EV_CREATE;
        /* a mix's loop; at a provider, a packet it makes for a strategy */
        p->loop = l->from >= a->users + a->providers;
        kind = 'C';
        break;
    case RC_WIRE_END: /* (above) */
    case RC_WIRE_PULL: break;
    }
    enqueue(a, &e);
    trace_row(a, kind, seq, l->packet, l->parent, l->from, l->to, l->sent, l->received, l->split,
              l->exits, target, l->real);
}

/* The kept keys form a max-heap (kept[0] has the largest key). */
static bool key_above(const rc_anon *a, uint32_t x, uint32_t y)
{
    return a->tg[x].key > a->tg[y].key;
}

static void kept_sift_down(rc_anon *a, uint32_t i)
{
    for (;;) {
        uint32_t c = 2 * i + 1, m = i;
        if (c < a->n_kept && key_above(a, a->kept[c], a->kept[m])) m = c;
        if (c + 1 < a->n_kept && key_above(a, a->kept[c + 1], a->kept[m])) m = c + 1;
        if (m == i) return;
        uint32_t t = a->kept[i];
        a->kept[i] = a->kept[m];
        a->kept[m] = t;
        i = m;
    }
}

static void kept_push(rc_anon *a, uint32_t k)
{
    uint32_t i = a->n_kept++;
    a->kept[i] = k;
    while (i > 0 && key_above(a, a->kept[i], a->kept[(i - 1) / 2])) {
        uint32_t p = (i - 1) / 2, t = a->kept[i];
        a->kept[i] = a->kept[p];
        a->kept[p] = t;
        i = p;
    }
}

/* Room for one more target in the tables indexed by target. */
static void grow_targets(rc_anon *a)
{
    if (a->n_tg < a->cap_tg) return;
    uint32_t cap = a->cap_tg ? a->cap_tg * 2 : 1024;
    a->tg = rc_xrealloc(a->tg, cap * sizeof *a->tg);
    a->xs = rc_xrealloc(a->xs, cap * sizeof *a->xs);
    a->dropped = rc_xrealloc(a->dropped, cap);
    memset(a->dropped + a->cap_tg, 0, cap - a->cap_tg);
    for (uint32_t v = 0; v < a->nodes; v++) {
        pool *q = &a->pools[v];
        if (a->role[v] != ROLE_MIXING) continue;
        q->pos = rc_xrealloc(q->pos, cap * sizeof *q->pos);
        memset(q->pos + a->cap_tg, 0, (cap - a->cap_tg) * sizeof *q->pos);
    }
    a->cap_tg = cap;
}

/* The keys drawn ahead: a max-heap of the N smallest (ahead_heap[0] the largest). */
static void ahead_sift_down(double *h, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t c = 2 * i + 1, m = i;
        if (c < n && h[c] > h[m]) m = c;
        if (c + 1 < n && h[c + 1] > h[m]) m = c + 1;
        if (m == i) return;
        double t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void ahead_push(rc_anon *a, double key)
{
    double *h = a->ahead_heap;
    if (a->ahead_nh == a->want) {
        if (key >= h[0]) return;
        h[0] = key;
        ahead_sift_down(h, a->ahead_nh, 0);
        return;
    }
    uint32_t i = a->ahead_nh++;
    h[i] = key;
    while (i > 0 && h[i] > h[(i - 1) / 2]) {
        uint32_t p = (i - 1) / 2;
        double t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

/* The window's bin of time `now` (AHEAD_BINS of them; now < until). */
static uint32_t ahead_bin_of(const rc_anon *a, rc_time now)
{
    uint32_t j = (uint32_t)((double)(now - a->from) / (double)(a->until - a->from) * AHEAD_BINS);
    return j < AHEAD_BINS ? j : AHEAD_BINS - 1;
}

/* What the bins before bin `done` say of the rest of the window: their
 * candidates, the dispersion of their counts (variance over mean, of single
 * bins and of runs of 4, 16 and 64, the largest of those with 8 runs behind:
 * a clumped or wavering rate is over Poisson's 1 at some scale), and the
 * share by which a decline they show (their second half below their first)
 * would bring the rest's mean below theirs if it went on. */
static void ahead_bins_behind(rc_anon *a, uint32_t done)
{
    const uint64_t *bin = a->ahead_bin;
    a->ahead_done = done;
    a->ahead_sum = 0;
    if (done < AHEAD_BINS_MIN) return;
    uint32_t h = done / 2;
    uint64_t sum = 0, first = 0, second = 0;
    for (uint32_t j = 0; j < done; j++) {
        sum += bin[j];
        if (j < h) first += bin[j];
        if (j >= done - h) second += bin[j];
    }
    if (sum == 0) return;
    double disp = 1, run[AHEAD_BINS];
    for (uint32_t k = 1; k <= 64 && done / k >= 8; k *= 4) {
        uint32_t runs = done / k, at = done - runs * k; /* the latest runs */
        for (uint32_t r = 0; r < runs; r++) {
            run[r] = 0;
            for (uint32_t j = 0; j < k; j++) run[r] += (double)bin[at + r * k + j];
        }
        double mu = gsl_stats_mean(run, 1, runs);
        double d = mu > 0 ? gsl_stats_variance_m(run, 1, runs, mu) / mu : 0;
        if (d > disp) disp = d;
    }
    /* the halves' means are done / 2 bins apart; kept up, the slope takes
     * slope * AHEAD_BINS / 2 off the rest's mean against the mean so far */
    double mean = (double)sum / done;
    double slope = first > second ? (double)(first - second) / h / ((double)done / 2) : 0;
    a->ahead_decline = slope * AHEAD_BINS / 2 / mean;
    a->ahead_disp = disp;
    a->ahead_sum = sum;
}

/* Draws ahead up to the candidates the window is now assumed to bring at
 * least: those it brought and what the bins behind say of the rest (early
 * on, the warm-up's E over AHEAD_EARLY; the rules above); `now` is in bin
 * `done`.  The assumption only grows: what it left out stays out. */
static void ahead_extend(rc_anon *a, rc_time now, uint32_t done)
{
    double assumed;
    if (done != a->ahead_done) ahead_bins_behind(a, done);
    uint64_t enough = a->want > AHEAD_RATE_MIN ? a->want : AHEAD_RATE_MIN;
    if (a->ahead_sum > 0 && a->n_cand >= enough && now > a->from) {
        double rest = (double)a->n_cand * (double)(a->until - now) / (double)(now - a->from);
        double disp = a->ahead_disp;
        double more = rest * (1 - a->ahead_decline) / AHEAD_MARGIN_MIN - 4 * sqrt(disp * rest) -
                      4 * rest * sqrt(disp / (double)a->ahead_sum);
        assumed = (double)a->n_cand + (more > 0 ? more : 0);
    } else {
        assumed = a->ahead_expect >= AHEAD_MIN * a->want && a->warm_count >= AHEAD_RATE_MIN
                      ? a->ahead_expect / AHEAD_EARLY
                      : 0;
    }
    assumed *= a->ahead_over;
    if (assumed > 4e9) assumed = 4e9;
    while ((double)a->ahead_n < assumed) {
        ahead_push(a, rc_rng_uniform(a->ahead));
        a->ahead_n++;
    }
}

/* A real sub-message left in bundle `packet`.  Sent inside the window, it
 * draws a key, and it is tracked while its key is among the N smallest: the
 * tracked messages are a uniform sample of the window's messages, chosen
 * without looking at the network (docs/spec.md §10.2).  A message whose key
 * falls out of the N smallest is dropped: its probabilities are ignored from
 * then on.
 *
 * Most messages the sample holds at their sending are dropped later (two
 * thirds at 3,000 users), and following them was most of the observer's work.
 * So the keys are also drawn ahead, from a copy of the stream: if N of the
 * keys of the candidates the window is sure to bring are below a message's,
 * it will be dropped, and it is a ghost from the start (held in the sample as
 * before, its probabilities not followed).  What the window is "sure" to
 * bring is an assumption (ahead_extend), checked at the end: a ghost the final
 * sample measures is a miss (rc_anon_sample_missed), and the job runs again
 * without looking ahead.  Every measured message's values are its own sums'
 * (no target's value depends on another's), so they are the same either way. */
static void on_carry(void *ctx, uint64_t packet, uint32_t body, uint32_t sender,
                     uint32_t recipient, rc_time now)
{
    rc_anon *a = ctx;
    /* (a target group: the others' messages are no candidates, nor counted
     * in the warm-up's rate) */
    if (a->candidate != NULL && !a->candidate(a->candidate_ctx, body)) return;
    if (now < a->from) {
        a->warm_count++;
        return;
    }
    if (now >= a->until || a->want == 0) return;
    if (a->key_max < 0) {
        /* At the first candidate: the real traffic of the warm-up, extended
         * over the window, says how many candidates to expect. */
        double expect = (double)a->warm_count * (double)(a->until - a->from) / (double)a->from;
        a->key_max = expect > 0 ? KEY_MARGIN * a->want / expect : 1;
        if (!a->ahead_off) {
            a->ahead = gsl_rng_clone(a->rng); /* its next key is this candidate's */
            a->ahead_heap = rc_xmalloc(a->want * sizeof *a->ahead_heap);
            a->ahead_expect = expect;
        }
    }
    uint32_t bin = ahead_bin_of(a, now);
    if (a->ahead != NULL) ahead_extend(a, now, bin);
    double key = rc_rng_uniform(a->rng);
    a->n_cand++;
    a->ahead_bin[bin]++;
    if (key >= a->key_max) return;
    if (a->n_kept == a->want && key >= a->tg[a->kept[0]].key) return;
    if (a->n_kept == a->want) {
        uint32_t out = a->kept[0];
        a->tg[out].dropped = true;
        if (a->tg[out].ghost) a->dropped[out] = 1; /* (in no pool) */
        else rc_anon__target_drop(a, out);
        if (a->tg[out].pulled < 0)
            rc_anon__map_del(a->bkey, a->bval, a->bcap, &a->bn, a->tg[out].body);
        a->kept[0] = a->kept[--a->n_kept];
        kept_sift_down(a, 0);
        trace_row(a, 'X', a->seq++, RC_WIRE_NONE, RC_WIRE_NONE, 0, 0, now, now, 1, false, out,
                  true);
    }
    grow_targets(a);
    uint32_t k = a->n_tg++;
    /* the other challenge sender: uniform over the other users (docs/spec.md §10.4) */
    uint32_t partner = (uint32_t)rc_rng_below(a->pair_rng, a->users - 1);
    if (partner >= sender) partner++;
    /* (its own key may be among those drawn ahead, the largest of the N
     * smallest itself: only a key above them is sure to be left out) */
    bool ghost = a->ahead != NULL && a->ahead_nh == a->want && key > a->ahead_heap[0];
    a->xs[k] = (exit_sums){0, 0, 0};
    a->tg[k] = (tracked){sender, recipient, body, now, -1, -1, NAN, key, false, false,
                         partner, NAN, ghost};
    a->n_ghost += ghost;
    kept_push(a, k);
    rc_anon__map_put(&a->bkey, &a->bval, &a->bcap, &a->bn, body, k);
    if (!ghost) {
        uint32_t slot = pkt_find(a, packet);
        RC_ASSERT(slot != NONE32);
        rc_anon__pkt_add_target(a, &a->slots[slot], k, 1.0);
    }
    trace_row(a, 'T', a->seq++, packet, RC_WIRE_NONE, sender, recipient, now, now, 1, false, k,
              true);
}

/* ---------- construction ---------- */

/* Marks round(f * count) of nodes first .. first+count-1 as corrupted, drawn by r. */
static uint64_t corrupt_some(rc_anon *a, gsl_rng *r, uint32_t first, uint32_t count, double f)
{
    uint32_t want = (uint32_t)llround(f * count);
    uint32_t *idx = rc_xmalloc((count ? count : 1) * sizeof *idx);
    for (uint32_t i = 0; i < count; i++) idx[i] = first + i;
    for (uint32_t i = 0; i < want; i++) {
        uint32_t j = i + rc_rng_below(r, count - i);
        uint32_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
        a->corrupt[idx[i]] = true;
    }
    free(idx);
    return want;
}

rc_anon *rc_anon_new(rc_sim *sim, rc_net *net, const rc_anon_cfg *cfg, rc_err *err)
{
    rc_anon *a = rc_xcalloc(1, sizeof *a);
    a->sim = sim;
    a->net = net;
    a->stop = sim->stop;
    a->users = rc_net_users(net);
    a->providers = rc_net_providers(net);
    a->nodes = rc_net_nodes(net);
    a->sender_view = cfg->sender == RC_ANON_SENDER_DENSE ||
                     (cfg->sender == RC_ANON_SENDER_AUTO && a->users <= RC_ANON_SENDER_MAX_USERS);
    a->users4 = (a->users + 3) / 4 * 4;
    a->free_slot = NONE32;
    a->free_ev = NONE32;
    a->last_id = UINT64_MAX;
    a->root_id = UINT64_MAX;
    a->candidate = cfg->candidate;
    a->candidate_ctx = cfg->candidate_ctx;
    a->ahead_off = cfg->no_lookahead;
    a->ahead_over = 1;
    /* RCSIM_ANON_LOOKAHEAD=off follows every message the sample holds (the
     * slow way, to compare); a number x >= 1 assumes x times the candidates,
     * which makes the look-ahead miss (tests of the run again). */
    const char *la = getenv("RCSIM_ANON_LOOKAHEAD");
    if (la != NULL && la[0] != '\0') {
        char *end;
        double x = strtod(la, &end);
        if (strcmp(la, "off") == 0) {
            a->ahead_off = true;
        } else if (*end == '\0' && x >= 1 && x <= 1e6) {
            a->ahead_over = x;
        } else {
            rc_err_set(err, RC_EXIT_USAGE,
                       "RCSIM_ANON_LOOKAHEAD: '%s' is neither 'off' nor a number from 1 to 1e6", la);
            free(a);
            return NULL;
        }
    }
    if (!rc_anon__sweep_isa_env(a, err)) {
        free(a);
        return NULL;
    }
    a->quot_fma = a->sweep_isa != SWEEP_BASE && rc_anon__quotients_fma_runs();
    if (cfg->trace_path != NULL && cfg->trace_path[0] != '\0') {
        a->trace = fopen(cfg->trace_path, "w");
        if (a->trace == NULL) {
            rc_err_set(err, RC_EXIT_USAGE, "anon_trace: cannot create '%s': %s",
                       cfg->trace_path, strerror(errno));
            free(a);
            return NULL;
        }
        a->trace_path = rc_xstrdup(cfg->trace_path);
    }
    rc_calq_init(&a->q, Q_WIDTH_US, Q_BUCKETS);
    a->role = rc_xcalloc(a->nodes, 1);
    a->corrupt = rc_xcalloc(a->nodes, sizeof *a->corrupt);
    gsl_rng *r = a->rng = rc_rng_new(cfg->seed, STREAM_ANON);
    a->pair_rng = rc_rng_new(cfg->seed, STREAM_ANON_PAIR);
    uint32_t mixes = rc_net_mix_layers(net) * rc_net_mixes_per_layer(net);
    a->sum.corrupt_mixes =
        a->n_corrupt_mixes = corrupt_some(a, r, rc_net_node_mix(net, 0, 0), mixes, cfg->corrupt_mixes);
    a->sum.corrupt_providers = a->n_corrupt_providers =
        corrupt_some(a, r, rc_net_node_provider(net, 0), a->providers, cfg->corrupt_providers);
    a->pools = rc_xcalloc(a->nodes, sizeof *a->pools);
    for (uint32_t i = 0; i < a->nodes; i++) {
        bool provider = i >= a->users && i < a->users + a->providers;
        bool mixing = i >= a->users && (!provider || rc_net_provider_mixes(net));
        a->role[i] = i < a->users ? ROLE_CLIENT : (mixing && !a->corrupt[i]) ? ROLE_MIXING : ROLE_PASS;
        if (a->role[i] != ROLE_MIXING) continue;
        pool *q = &a->pools[i];
        q->c = 1;
        if (a->sender_view) q->b = rc_xcalloc(a->users4 ? a->users4 : 1, sizeof *q->b);
    }
    /* Tracked messages: a uniform sample of the real sub-messages sent
     * between the warm-up and the cool-down (on_carry, docs/spec.md §10.2). */
    double settle = RC_ANON_SETTLE_PATHS * rc_net_hops(net) * rc_net_mean_hop_delay_s(net);
    double from = settle, until = (double)sim->stop / 1e6 - settle;
    if (until > from) {
        a->from = (rc_time)llround(from * 1e6);
        a->key_max = -1;
        a->until = (rc_time)llround(until * 1e6);
        a->want = cfg->targets;
    } else {
        fprintf(stderr,
                "rcsim: anonymity: the run (%.0f s) is too short for a warm-up and a cool-down "
                "of %.1f s each: no message is tracked\n",
                (double)sim->stop / 1e6, settle);
    }
    a->kept = rc_xmalloc((a->want ? a->want : 1) * sizeof *a->kept);
    grow_targets(a);
    /* The sender log keeps 1.5 warm-ups (anon_sender.c). */
    if (!a->sender_view) rc_anon__slog_new(a, (rc_time)llround(1.5 * settle * 1e6));

    if (a->trace) {
        fprintf(a->trace, "# rcsim anon-trace 1 (docs/spec.md §10.6)\n");
        fprintf(a->trace,
                "# users=%u providers=%u mix_layers=%u mixes_per_layer=%u provider_mixes=%d "
                "stop_us=%lld\n",
                a->users, a->providers, rc_net_mix_layers(net), rc_net_mixes_per_layer(net),
                rc_net_provider_mixes(net) ? 1 : 0, (long long)a->stop);
        fprintf(a->trace, "# corrupt=");
        bool first = true;
        for (uint32_t i = 0; i < a->nodes; i++)
            if (a->corrupt[i]) {
                fprintf(a->trace, first ? "%u" : ";%u", i);
                first = false;
            }
        fprintf(a->trace, "\nrow,kind,packet,parent,from,to,sent_us,received_us,split,exits,"
                          "target,real\n");
    }
    rc_net_observe(net, (rc_net_wire){a, on_link, on_carry});
    return a;
}

void rc_anon_free(rc_anon *a)
{
    if (a == NULL) return;
    if (a->trace) fclose(a->trace);
    for (uint32_t i = 0; i < a->nodes; i++) {
        pool *q = &a->pools[i];
        free(q->sa);
        free(q->lq);
        free(q->lx);
        free(q->act);
        free(q->pos);
        free(q->b);
        rc_anon__sv_release(a, q->snap);
    }
    rc_anon__sv_release(a, a->part.sv);
    rc_anon__tl_release(a, &a->part);
    for (uint32_t i = 0; i < a->n_slots; i++) {
        rc_anon__sv_release(a, a->slots[i].sv);
        rc_anon__tl_release(a, &a->slots[i]);
    }
    rc_anon__tl_free_all(a);
    free(a->take_q);
    free(a->exit_idx);
    for (uint32_t i = 0; i < a->n_sv_free; i++) free(a->sv_free[i]);
    free(a->sv_free);
    free(a->pools);
    free(a->slots);
    free(a->hkey);
    free(a->hval);
    rc_calq_free(&a->q);
    free(a->ev);
    free(a->dropped);
    free(a->kept);
    free(a->tg);
    free(a->xs);
    if (a->rng) rc_rng_free(a->rng);
    if (a->pair_rng) rc_rng_free(a->pair_rng);
    if (a->ahead) gsl_rng_free(a->ahead);
    free(a->ahead_heap);
    rc_anon__slog_free(a);
    free(a->bkey);
    free(a->bval);
    free(a->role);
    free(a->corrupt);
    free(a->rec);
    free(a->trace_path);
    free(a);
}
