/* pyrandom: CPython-compatible MT19937, shuffle and sample (see pyrandom.h). */
#include "core/pyrandom.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "core/log.h"

enum { MT_N = 624, MT_M = 397 };

static void mt_init(rc_pyrandom *g, uint32_t seed)
{
    g->s[0] = seed;
    for (int i = 1; i < MT_N; i++)
        g->s[i] = 1812433253u * (g->s[i - 1] ^ (g->s[i - 1] >> 30)) + (uint32_t)i;
    g->i = MT_N;
}

static void mt_init_by_array(rc_pyrandom *g, const uint32_t *key, int len)
{
    mt_init(g, 19650218u);
    int i = 1, j = 0;
    for (int k = MT_N > len ? MT_N : len; k > 0; k--) {
        g->s[i] = (g->s[i] ^ ((g->s[i - 1] ^ (g->s[i - 1] >> 30)) * 1664525u)) + key[j] +
                  (uint32_t)j;
        i++, j++;
        if (i >= MT_N) g->s[0] = g->s[MT_N - 1], i = 1;
        if (j >= len) j = 0;
    }
    for (int k = MT_N - 1; k > 0; k--) {
        g->s[i] = (g->s[i] ^ ((g->s[i - 1] ^ (g->s[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= MT_N) g->s[0] = g->s[MT_N - 1], i = 1;
    }
    g->s[0] = 0x80000000u;
}

static uint32_t mt_next(rc_pyrandom *g)
{
    if (g->i >= MT_N) {
        for (int k = 0; k < MT_N; k++) {
            uint32_t y = (g->s[k] & 0x80000000u) | (g->s[(k + 1) % MT_N] & 0x7fffffffu);
            g->s[k] = g->s[(k + MT_M) % MT_N] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
        }
        g->i = 0;
    }
    uint32_t y = g->s[g->i++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

void rc_pyrandom_seed(rc_pyrandom *g, uint32_t seed)
{
    mt_init_by_array(g, &seed, 1);
}

static uint32_t bit_length(uint32_t m)
{
    uint32_t b = 0;
    while (m) b++, m >>= 1;
    return b;
}

uint32_t rc_pyrandom_below(rc_pyrandom *g, uint32_t n)
{
    uint32_t b = bit_length(n);
    uint32_t r = mt_next(g) >> (32 - b);
    while (r >= n) r = mt_next(g) >> (32 - b);
    return r;
}

void rc_pyrandom_shuffle(uint32_t seed, uint32_t *v, size_t n)
{
    rc_pyrandom g;
    rc_pyrandom_seed(&g, seed);
    for (size_t i = n; i-- > 1;) {
        uint32_t j = rc_pyrandom_below(&g, (uint32_t)(i + 1));
        uint32_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

void rc_pyrandom_shuffle_plan(uint32_t seed, size_t n, uint32_t *plan)
{
    rc_pyrandom g;
    rc_pyrandom_seed(&g, seed);
    for (size_t i = n; i-- > 1;) plan[n - 1 - i] = rc_pyrandom_below(&g, (uint32_t)(i + 1));
}

void rc_pyrandom_shuffle_apply(const uint32_t *plan, uint32_t *v, size_t n)
{
    for (size_t i = n; i-- > 1;) {
        uint32_t j = plan[n - 1 - i];
        uint32_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* CPython picks a method by size: a shrinking pool when n is at most
 * 21 + 4^ceil(log4(3k)) (k > 5), else rejection against a set. */
void rc_pyrandom_sample(rc_pyrandom *g, uint32_t n, uint32_t k, uint32_t *out)
{
    RC_ASSERT(k <= n);
    double setsize = 21;
    if (k > 5) setsize += pow(4.0, ceil(log(3.0 * k) / log(4.0)));
    if (n <= setsize) {
        uint32_t *pool = rc_xmalloc((n ? n : 1) * sizeof *pool);
        for (uint32_t i = 0; i < n; i++) pool[i] = i;
        for (uint32_t i = 0; i < k; i++) {
            uint32_t j = rc_pyrandom_below(g, n - i);
            out[i] = pool[j];
            pool[j] = pool[n - i - 1];
        }
        free(pool);
    } else {
        bool *taken = rc_xcalloc(n, sizeof *taken);
        for (uint32_t i = 0; i < k; i++) {
            uint32_t j = rc_pyrandom_below(g, n);
            while (taken[j]) j = rc_pyrandom_below(g, n);
            taken[j] = true;
            out[i] = j;
        }
        free(taken);
    }
}
