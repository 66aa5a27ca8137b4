/* rng-inl: the hot draws of core/rng.h, inlined.  Include core/rng.h, not this.
 *
 * The state is MT19937's 624 words plus an index, exactly as GSL keeps it;
 * rc_rng__refill (rng.c) regenerates the block when it is used up. */
#ifndef RCSIM_CORE_RNG_INL_H
#define RCSIM_CORE_RNG_INL_H

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>

#define RC_MT_N 624

typedef struct rc_rng_mt {
    uint32_t i;
    uint32_t s[RC_MT_N];
} rc_rng_mt;

void rc_rng__refill(rc_rng_mt *m);

/* The next untempered word (tempering is a bijection with 0 -> 0, so "is
 * zero" can be asked of the untempered word). */
static inline uint32_t rc_rng__raw(gsl_rng *r)
{
    rc_rng_mt *m = (rc_rng_mt *)r->state;
    if (__builtin_expect(m->i >= RC_MT_N, 0)) rc_rng__refill(m);
    return m->s[m->i++];
}

static inline uint32_t rc_rng__temper(uint32_t y)
{
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

static inline uint32_t rc_rng_u32(gsl_rng *r) { return rc_rng__temper(rc_rng__raw(r)); }

/* The nonzero output behind one uniform_pos draw. */
static inline uint32_t rc_rng__u32_pos(gsl_rng *r)
{
    uint32_t k;
    do k = rc_rng_u32(r);
    while (k == 0);
    return k;
}

static inline double rc_rng_uniform(gsl_rng *r) { return rc_rng_u32(r) / 4294967296.0; }
static inline double rc_rng_uniform_pos(gsl_rng *r) { return rc_rng__u32_pos(r) / 4294967296.0; }

static inline void rc_rng_skip_pos(gsl_rng *r, unsigned n)
{
    for (unsigned j = 0; j < n; j++)
        while (rc_rng__raw(r) == 0) {
        }
}

static inline double rc_rng_exp(gsl_rng *r, double mean)
{
    return -mean * log(rc_rng_uniform_pos(r));
}

/* llround(x) for x >= 0 (finite, below 2^63), without the libm call: the
 * same value for every such x.  Below 2^52, x - trunc(x) is exact, and a
 * half rounds up, away from zero, as llround does; from 2^52 on x is whole.
 * (An exponential draw in microseconds is rounded so, per hop and per firing
 * of every stream.) */
static inline int64_t rc_round_nonneg(double x)
{
    int64_t i = (int64_t)x;
    return i + (x - (double)i >= 0.5);
}

/* The geometric law from one nonzero output k (shared by the draw and by the
 * step tables built on it, so that both compute the same expression). */
static inline uint64_t rc_rng_geom_of(uint32_t k, double inv_log1m_p)
{
    double g = ceil(log(k / 4294967296.0) * inv_log1m_p);
    if (!(g >= 1)) g = 1;
    if (g > 9e18) g = 9e18;
    return (uint64_t)g;
}

static inline uint64_t rc_rng_geom_inv(gsl_rng *r, double inv_log1m_p)
{
    return rc_rng_geom_of(rc_rng__u32_pos(r), inv_log1m_p);
}

static inline int64_t rc_rng_steps_draw(gsl_rng *r, const struct rc_rng_steps *t)
{
    uint32_t k = rc_rng__u32_pos(r);
    int32_t v = t->v[k >> (32 - RC_RNG_STEPS_BITS)];
    return __builtin_expect(v >= 0, 1) ? v : t->f(k, t->ctx);
}

#endif
