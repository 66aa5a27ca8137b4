/* mix: the mixes — per-hop delays (docs/spec.md §1.6) for every message, and,
 * with cover=full, cover packets and mix loops that travel the mix layers hop
 * by hop as events (counted in mix_packets; nothing else observes them).
 * Real messages do not visit the mixes as events: a bundle's per-hop delays
 * are drawn when it leaves its sender (client.c), since no mix has a
 * capacity. */
#include <math.h>

#include "loopix/net_internal.h"

/* The lattice per-hop delay in ticks from the generator's output k:
 * docs/spec.md §1.6 floor(1000 Exp) ms, lifted to the lattice. */
static int64_t hop_ticks_of(uint32_t k, const void *ctx)
{
    const rc_net *n = ctx;
    double d = -(1.0 / n->mu) * log(k / 4294967296.0);
    rc_time ms = (rc_time)floor(1000.0 * d);
    rc_time us = ms * 1000;
    return (us + n->tick - 1) / n->tick;
}

void rc_net__hop_steps(rc_net *n)
{
    n->steps_hop = n->steps_own[3] = rc_xmalloc(sizeof *n->steps_hop);
    rc_rng_steps_init(n->steps_hop, hop_ticks_of, n);
}

/* One per-hop delay (us): on the lattice through the step table (the same
 * value as hop_ticks_of, without a log for most draws), else exact
 * microseconds. */
rc_time rc_net__hop_delay(rc_net *n)
{
    if (n->lattice) return rc_rng_steps_draw(n->rng_delay, n->steps_hop) * n->tick;
    return rc_round_nonneg(rc_rng_exp(n->rng_delay, 1.0 / n->mu) * 1e6);
}

/* A sum of independent Exp(mu) is Gamma(hops, mu): -log of a product of
 * `hops` uniforms over mu, one log per 16 hops instead of one per hop (a
 * product of 16 nonzero 32-bit uniforms is at least 2^-512: no underflow).
 * Rounded once, not per hop: the law moves by under a microsecond. */
rc_time rc_net__hops_delay(rc_net *n, unsigned hops)
{
    RC_DCHECK(!n->lattice, "hops_delay on the lattice");
    double sum = 0;
    while (hops > 0) {
        unsigned chunk = hops < 16 ? hops : 16;
        double prod = rc_rng_uniform_pos(n->rng_delay);
        for (unsigned h = 1; h < chunk; h++) prod *= rc_rng_uniform_pos(n->rng_delay);
        sum -= log(prod);
        hops -= chunk;
    }
    return rc_round_nonneg(sum / n->mu * 1e6);
}

/* ---------- cover packets through the mixes (cover=full) ---------- */

/* A cover hop's event carries the hops the packet has left in its arg, and in
 * its obj the packet's slot -- only with an observer, whose record of the
 * loop (wire.c) the slot indexes; without one a packet has no record at all
 * (NO_SLOT): with 10^5 of them in flight, reading their slots missed the
 * cache at every hop.  Neither obj nor arg orders events. */
#define NO_SLOT UINT32_MAX

static void cover_hop_schedule(rc_net *n, uint32_t pk, uint8_t hops_left, rc_time t)
{
    rc_sim_at(n->sim, t, RC_CLS_MIX, RC_EV_COVER_HOP, pk, hops_left);
}

/* A slot per observed cover packet in flight, reused once it reaches its
 * provider: a run's cover packets are counted in billions (10^4 clients reach
 * 2^32 in about a day of full cover), those in flight only in 10^5.  Which
 * slot a packet gets never orders events (the queue's keys are time, class
 * and insertion sequence), so reuse leaves every result as it was. */
static uint32_t cover_new(rc_net *n, uint8_t hops)
{
    uint32_t i;
    if (n->cpk_free != UINT32_MAX) {
        i = n->cpk_free;
        n->cpk_free = n->cpk[i].next_free;
    } else {
        if (n->n_cpk == n->cap_cpk) {
            RC_ASSERTF(n->cap_cpk < UINT32_MAX / 2, "%u cover packets in flight", n->n_cpk);
            n->cap_cpk = n->cap_cpk ? n->cap_cpk * 2 : 1024;
            n->cpk = rc_xrealloc(n->cpk, (size_t)n->cap_cpk * sizeof *n->cpk);
        }
        i = n->n_cpk++;
    }
    n->cpk[i].hops_left = hops;
    return i;
}

uint32_t rc_net__cover_send(rc_net *n, uint8_t hops, rc_time t)
{
    uint32_t i = n->wire.link != NULL ? cover_new(n, hops) : NO_SLOT;
    cover_hop_schedule(n, i, hops, t);
    return i;
}

void rc_net__on_cover_hop(void *ctx, const rc_event *ev)
{
    rc_net *n = ctx;
    uint8_t hops_left = (uint8_t)ev->arg;
    bool observed = ev->obj != NO_SLOT; /* (a slot is taken only with an observer) */
    if (hops_left == 0) { /* reached its provider: dropped or ignored */
        if (observed) {
            n->wops->loop_end(n, ev->obj, n->sim->now);
            n->cpk[ev->obj].next_free = n->cpk_free; /* its slot (and the wire's) is free now */
            n->cpk_free = ev->obj;
        }
        return;
    }
    hops_left--;
    if (observed) n->cpk[ev->obj].hops_left = hops_left; /* (the wire reads it) */
    n->ctr.mix_packets++;
    rc_time hand = n->lattice ? n->tick : 0, delay = rc_net__hop_delay(n);
    /* An unobserved cover packet is only counted and has no located path: its
     * links take link_fixed (0 with a link map; docs/spec.md §1.16). */
    rc_time at = observed ? n->wops->loop_hop(n, ev->obj, n->sim->now, delay, hand)
                                      : n->sim->now + delay + hand + n->link_fixed;
    cover_hop_schedule(n, ev->obj, hops_left, at);
}

void rc_net__on_mix_loop(void *ctx, const rc_event *ev)
{
    rc_net *n = ctx;
    /* A mix loop visits the remaining layers, a provider, the earlier layers
     * and returns: layers + 1 hops at the mix-loop delay rate. */
    if (n->wire.link != NULL) {
        n->wops->loop_start(n, ev->obj, n->sim->now); /* wire.c counts its mixes */
    } else {
        rc_net__cover_send(n, (uint8_t)(n->layers + 1), n->sim->now);
        rc_net__traffic_mix_loop(n, ev->obj);
    }
    rc_time gap = rc_round_nonneg(rc_rng_exp(n->rng_mixloop, 1e6 / n->mix_rate_loop));
    if (n->lattice) gap = ((gap + n->tick - 1) / n->tick) * n->tick;
    if (gap < 1) gap = 1;
    rc_sim_at(n->sim, n->sim->now + gap, RC_CLS_MIX, RC_EV_MIX_LOOP, ev->obj, 0);
}
