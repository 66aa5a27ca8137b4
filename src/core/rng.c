#include "core/rng.h"

#include <math.h>

#include "core/log.h"

uint64_t rc_rng_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t rc_rng_derive(uint64_t job_seed, uint64_t stream_id)
{
    return rc_rng_mix(rc_rng_mix(job_seed) ^ rc_rng_mix(stream_id * 0x2545f4914f6cdd1dULL + 1));
}

gsl_rng *rc_rng_new(uint64_t job_seed, uint64_t stream_id)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    RC_ASSERT(r != NULL);
    rc_rng_reseed(r, job_seed, stream_id);
    return r;
}

void rc_rng_reseed(gsl_rng *r, uint64_t job_seed, uint64_t stream_id)
{
    uint64_t s = rc_rng_derive(job_seed, stream_id);
    /* mt19937 takes an unsigned long seed; fold 64 bits to keep all entropy. */
    gsl_rng_set(r, (unsigned long)(s ^ (s >> 32)) ? (unsigned long)(s ^ (s >> 32)) : 1UL);
}

void rc_rng_free(gsl_rng *r) { gsl_rng_free(r); }

double rc_rng_uniform(gsl_rng *r) { return gsl_rng_uniform(r); }
double rc_rng_uniform_pos(gsl_rng *r) { return gsl_rng_uniform_pos(r); }

double rc_rng_exp(gsl_rng *r, double mean) { return -mean * log(gsl_rng_uniform_pos(r)); }

uint64_t rc_rng_geom(gsl_rng *r, double p)
{
    if (p >= 1.0) return 1;
    RC_ASSERT(p > 0.0);
    /* Inversion: P(G > k) = (1-p)^k. */
    double u = gsl_rng_uniform_pos(r);
    double g = ceil(log(u) / log1p(-p));
    if (g < 1) g = 1;
    if (g > 9e18) g = 9e18;
    return (uint64_t)g;
}

uint64_t rc_rng_geom_inv(gsl_rng *r, double inv_log1m_p)
{
    double g = ceil(log(gsl_rng_uniform_pos(r)) * inv_log1m_p);
    if (!(g >= 1)) g = 1;
    if (g > 9e18) g = 9e18;
    return (uint64_t)g;
}

uint32_t rc_rng_below(gsl_rng *r, uint32_t n)
{
    RC_ASSERT(n > 0);
    return (uint32_t)gsl_rng_uniform_int(r, n);
}
