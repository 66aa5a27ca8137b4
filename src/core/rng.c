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

/* ---------- the generator type: MT19937 as GSL seeds and runs it ---------- */

enum { MT_M = 397 };

static uint32_t mt_twist(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t y = (a & 0x80000000u) | (b & 0x7fffffffu);
    return c ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
}

void rc_rng__refill(rc_rng_mt *m)
{
    uint32_t *s = m->s;
    int k = 0;
    for (; k < RC_MT_N - MT_M; k++) s[k] = mt_twist(s[k], s[k + 1], s[k + MT_M]);
    for (; k < RC_MT_N - 1; k++) s[k] = mt_twist(s[k], s[k + 1], s[k + MT_M - RC_MT_N]);
    s[RC_MT_N - 1] = mt_twist(s[RC_MT_N - 1], s[0], s[MT_M - 1]);
    m->i = 0;
}

/* GSL's mt19937 seeding (the 2002 initialisation; 0 means 4357). */
static void mt_set(void *state, unsigned long seed)
{
    rc_rng_mt *m = state;
    uint32_t s = seed == 0 ? 4357u : (uint32_t)(seed & 0xffffffffUL);
    m->s[0] = s;
    for (uint32_t i = 1; i < RC_MT_N; i++)
        m->s[i] = 1812433253u * (m->s[i - 1] ^ (m->s[i - 1] >> 30)) + i;
    m->i = RC_MT_N;
}

static unsigned long mt_get(void *state)
{
    rc_rng_mt *m = state;
    if (m->i >= RC_MT_N) rc_rng__refill(m);
    return rc_rng__temper(m->s[m->i++]);
}
static double mt_get_double(void *state) { return mt_get(state) / 4294967296.0; }

static const gsl_rng_type mt_type = {"rc-mt19937", 0xffffffffUL, 0, sizeof(rc_rng_mt),
                                     mt_set, mt_get, mt_get_double};
const gsl_rng_type *rc_rng_mt19937 = &mt_type;

/* ---------- streams ---------- */

gsl_rng *rc_rng_new(uint64_t job_seed, uint64_t stream_id)
{
    gsl_rng *r = gsl_rng_alloc(rc_rng_mt19937);
    RC_ASSERT(r != NULL);
    rc_rng_reseed(r, job_seed, stream_id);
    return r;
}

void rc_rng_reseed(gsl_rng *r, uint64_t job_seed, uint64_t stream_id)
{
    RC_ASSERT(r->type == rc_rng_mt19937);
    uint64_t s = rc_rng_derive(job_seed, stream_id);
    /* mt19937 takes an unsigned long seed; fold 64 bits to keep all entropy. */
    gsl_rng_set(r, (unsigned long)(s ^ (s >> 32)) ? (unsigned long)(s ^ (s >> 32)) : 1UL);
}

void rc_rng_free(gsl_rng *r) { gsl_rng_free(r); }

uint64_t rc_rng_geom(gsl_rng *r, double p)
{
    if (p >= 1.0) return 1;
    RC_ASSERT(p > 0.0);
    /* Inversion: P(G > k) = (1-p)^k. */
    double u = rc_rng_uniform_pos(r);
    double g = ceil(log(u) / log1p(-p));
    if (g < 1) g = 1;
    if (g > 9e18) g = 9e18;
    return (uint64_t)g;
}

uint32_t rc_rng_below(gsl_rng *r, uint32_t n)
{
    RC_ASSERT(n > 0);
    /* gsl_rng_uniform_int for a generator with range 2^32 - 1. */
    uint32_t scale = 0xffffffffu / n, k;
    do k = rc_rng_u32(r) / scale;
    while (k >= n);
    return k;
}

void rc_rng_shuffle_u32(gsl_rng *r, uint32_t *a, size_t n)
{
    /* GSL's loop: for i = n-1 down to 1, swap a[i] with a[gsl_rng_uniform_int(r, i+1)] */
    RC_ASSERT(n <= UINT32_MAX);
    for (size_t i = n > 0 ? n - 1 : 0; i > 0; i--) {
        uint32_t j = rc_rng_below(r, (uint32_t)(i + 1)), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* ---------- step tables ---------- */

void rc_rng_steps_init(rc_rng_steps *t, rc_rng_step_fn f, const void *ctx)
{
    t->f = f;
    t->ctx = ctx;
    const unsigned shift = 32 - RC_RNG_STEPS_BITS;
    for (uint32_t b = 0; b < (1u << RC_RNG_STEPS_BITS); b++) {
        uint32_t first = b << shift, last = first | ((1u << shift) - 1);
        if (first == 0) first = 1; /* uniform_pos never yields k = 0 */
        int64_t a = f(first, ctx), z = f(last, ctx);
        t->v[b] = (a == z && a >= 0 && a < INT32_MAX) ? (int32_t)a : -1;
    }
}
