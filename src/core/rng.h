/* rng: per-job random streams.
 *
 * Every random draw of a job comes from a stream identified by (job seed,
 * stream id).  The GSL seed of a stream is splitmix64(seed ^ mix(stream id)),
 * so adding a stream never shifts another, and a job's draws do not depend on
 * which process runs it.  Generator: MT19937 with GSL's seeding
 * (gsl_rng_mt19937), implemented here as a GSL generator type whose state
 * layout we own, so that the hot draws (core/rng-inl.h) are inlined instead of
 * going through GSL's function pointers.  Its output is bit-identical to
 * gsl_rng_mt19937 (tests/test_rng.c), and GSL's own functions (gsl_ran_shuffle,
 * gsl_rng_uniform_int, ...) accept these streams unchanged.
 *
 * Streams are owned by whoever called rc_rng_new (rc_rng_free).
 */
#ifndef RCSIM_CORE_RNG_H
#define RCSIM_CORE_RNG_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

/* The documented seed derivation (stored with results as provenance). */
uint64_t rc_rng_derive(uint64_t job_seed, uint64_t stream_id);
uint64_t rc_rng_mix(uint64_t x); /* splitmix64 finaliser */

/* The generator type of every stream (GSL's mt19937, our state layout). */
extern const gsl_rng_type *rc_rng_mt19937;

gsl_rng *rc_rng_new(uint64_t job_seed, uint64_t stream_id);
/* r must come from rc_rng_new. */
void rc_rng_reseed(gsl_rng *r, uint64_t job_seed, uint64_t stream_id);
void rc_rng_free(gsl_rng *r);

/* Draws (static inline, core/rng-inl.h; r must come from rc_rng_new):
 *   rc_rng_u32(r)            the generator's next 32-bit output
 *   rc_rng_uniform(r)        [0,1), as gsl_rng_uniform
 *   rc_rng_uniform_pos(r)    (0,1), as gsl_rng_uniform_pos
 *   rc_rng_exp(r, mean)      exponential with mean `mean`, by inversion
 *   rc_round_nonneg(x)       llround(x) for x >= 0, inline (draws in microseconds)
 *   rc_rng_geom_inv(r, g)    geometric (trials up to and including the first
 *                            success, >= 1) with g = 1/log(1-p) precomputed
 *   rc_rng_skip_pos(r, n)    consumes what n rc_rng_uniform_pos draws would,
 *                            without computing them (draws nobody observes)
 *   rc_rng_steps_draw(r, t)  a monotone function of one rc_rng_uniform_pos
 *                            draw, through a table (rc_rng_steps below) */
uint64_t rc_rng_geom(gsl_rng *r, double p); /* geometric, p in (0,1] */
uint32_t rc_rng_below(gsl_rng *r, uint32_t n); /* uniform in [0,n), as gsl_rng_uniform_int */
/* Shuffles a[0..n) as gsl_ran_shuffle(r, a, n, sizeof *a) does, draw for draw
 * and swap for swap, without GSL's byte-wise swap and per-draw calls through
 * the generator type (a population's sender choice shuffles every member). */
void rc_rng_shuffle_u32(gsl_rng *r, uint32_t *a, size_t n);

/* A step function of one uniform_pos draw, tabulated.
 *
 * Many draws of the lattice model are integers computed from u = k / 2^32 (k
 * the generator's nonzero 32-bit output) by a function F that is monotone in
 * k: a geometric gap ceil(log(u) / log(1-p)), a per-hop delay rounded to ticks.
 * The table splits the k range into 2^RC_RNG_STEPS_BITS buckets and stores F's
 * value for each bucket on which F is constant (F(first k) == F(last k), which
 * for a monotone F means every k of the bucket); a draw whose bucket is not
 * constant calls F itself.  The result is therefore F(k), bit for bit, for
 * every k, without a `log` for most draws.  F is monotone when it is built
 * from log(u) by monotone operations (multiplying by a constant, floor, ceil,
 * clamping): consecutive k differ in log(u) by at least 2^-32, far more than
 * log's error (< 1 ulp <= 2^-48 for |log u| < 23), so the computed log is
 * strictly increasing in k too.  F's values must lie in [0, INT32_MAX) to be
 * tabulated (others fall back to F). */
#define RC_RNG_STEPS_BITS 12
typedef int64_t (*rc_rng_step_fn)(uint32_t k, const void *ctx);
typedef struct rc_rng_steps {
    int32_t v[1u << RC_RNG_STEPS_BITS]; /* F on the bucket, or -1: call f */
    rc_rng_step_fn f;
    const void *ctx;
} rc_rng_steps;

/* Fills t for F = f(., ctx); ctx must outlive t. */
void rc_rng_steps_init(rc_rng_steps *t, rc_rng_step_fn f, const void *ctx);

#include "core/rng-inl.h"

#endif
