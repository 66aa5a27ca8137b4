/* pyrandom: CPython's random module, bit for bit, for the draws of the
 * reference simulator that shape its published numbers.
 *
 * The reference (Python) seeds these with fixed integers, so they are the
 * same in every run whatever rcsim's job seed:
 *  - the group order: random.Random(0).sample(users, gs), once per group
 *    (docs/spec.md §3 "create_scenario", §9.1.7);
 *  - a message's receiver order: random.Random(nonce).shuffle(receivers)
 *    (docs/spec.md §2.3.2): every source's j-th message gets the same positional
 *    permutation.
 * MT19937 as published by Matsumoto and Nishimura (init_genrand,
 * init_by_array, genrand_int32); CPython seeds an int k < 2^32 with
 * init_by_array({k}, 1) and draws randbelow(n) as getrandbits(bit_length(n))
 * with rejection.  Tested against CPython's output (tests/test_schedule.c).
 */
#ifndef RCSIM_CORE_PYRANDOM_H
#define RCSIM_CORE_PYRANDOM_H

#include <stddef.h>
#include <stdint.h>

typedef struct rc_pyrandom {
    uint32_t s[624];
    int i;
} rc_pyrandom;

/* random.Random(seed) for 0 <= seed < 2^32. */
void rc_pyrandom_seed(rc_pyrandom *g, uint32_t seed);

/* random.Random._randbelow(n), 1 <= n < 2^32. */
uint32_t rc_pyrandom_below(rc_pyrandom *g, uint32_t n);

/* random.Random(seed).shuffle(v) on v[0..n). */
void rc_pyrandom_shuffle(uint32_t seed, uint32_t *v, size_t n);

/* The same shuffle as a plan: the n - 1 swap positions it draws (for
 * i = n-1 down to 1, v[i] swaps with v[plan[n-1-i]]), and applying a plan.
 * A caller that shuffles many arrays of one size with the same seed (every
 * source's j-th message) computes the plan once: seeding MT19937 costs
 * about as much as 600 draws. */
void rc_pyrandom_shuffle_plan(uint32_t seed, size_t n, uint32_t *plan);
void rc_pyrandom_shuffle_apply(const uint32_t *plan, uint32_t *v, size_t n);

/* g.sample(range(n), k) into out[0..k): the population is 0..n-1 (k <= n). */
void rc_pyrandom_sample(rc_pyrandom *g, uint32_t n, uint32_t k, uint32_t *out);

#endif
