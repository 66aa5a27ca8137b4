/* nonce_perm: CPython-compatible shuffle (see nonce_perm.h).
 *
 * MT19937 as published by Matsumoto and Nishimura (init_genrand,
 * init_by_array, genrand_int32); CPython seeds an int key k < 2^32 with
 * init_by_array({k}, 1), draws getrandbits(b) for b <= 32 as
 * genrand_int32() >> (32 - b), and shuffles with
 *   for i = n-1 .. 1: j = randbelow(i + 1); swap(v[i], v[j])
 * where randbelow(m) draws b = bit_length(m) bits until the value is < m.
 */
#include "multicast/nonce_perm.h"

enum { MT_N = 624, MT_M = 397 };

typedef struct mt {
    uint32_t s[MT_N];
    int i;
} mt;

static void mt_init(mt *g, uint32_t seed)
{
    g->s[0] = seed;
    for (int i = 1; i < MT_N; i++)
        g->s[i] = 1812433253u * (g->s[i - 1] ^ (g->s[i - 1] >> 30)) + (uint32_t)i;
    g->i = MT_N;
}

static void mt_init_by_array(mt *g, const uint32_t *key, int len)
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

static uint32_t mt_next(mt *g)
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

static uint32_t bit_length(uint32_t m)
{
    uint32_t b = 0;
    while (m) b++, m >>= 1;
    return b;
}

/* CPython's _randbelow_with_getrandbits for 1 <= m < 2^32. */
static uint32_t randbelow(mt *g, uint32_t m)
{
    uint32_t b = bit_length(m);
    uint32_t r = mt_next(g) >> (32 - b);
    while (r >= m) r = mt_next(g) >> (32 - b);
    return r;
}

void rc_nonce_shuffle(uint32_t seed, uint32_t *v, size_t n)
{
    mt g;
    mt_init_by_array(&g, &seed, 1);
    for (size_t i = n; i-- > 1;) {
        uint32_t j = randbelow(&g, (uint32_t)(i + 1));
        uint32_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}
