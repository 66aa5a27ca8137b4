/* rng: per-job random streams (GSL).
 *
 * Every random draw of a job comes from a stream identified by (job seed,
 * stream id).  The GSL seed of a stream is splitmix64(seed ^ mix(stream id)),
 * so adding a stream never shifts another, and a job's draws do not depend on
 * which process runs it.  Generator: GSL's mt19937 (gsl_rng_mt19937).
 */
#ifndef RCSIM_CORE_RNG_H
#define RCSIM_CORE_RNG_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

/* The documented seed derivation (stored with results as provenance). */
uint64_t rc_rng_derive(uint64_t job_seed, uint64_t stream_id);
uint64_t rc_rng_mix(uint64_t x); /* splitmix64 finaliser */

gsl_rng *rc_rng_new(uint64_t job_seed, uint64_t stream_id);
void rc_rng_reseed(gsl_rng *r, uint64_t job_seed, uint64_t stream_id);
void rc_rng_free(gsl_rng *r);

/* Draws.  rc_rng_exp: mean `mean`; rc_rng_geom: number of Bernoulli(p) trials
 * up to and including the first success (>= 1); rc_rng_below: uniform in [0,n). */
double rc_rng_uniform(gsl_rng *r);          /* [0,1) */
double rc_rng_uniform_pos(gsl_rng *r);      /* (0,1) */
double rc_rng_exp(gsl_rng *r, double mean);
uint64_t rc_rng_geom(gsl_rng *r, double p);
/* The same law with 1/log(1-p) precomputed by the caller (hot paths). */
uint64_t rc_rng_geom_inv(gsl_rng *r, double inv_log1m_p);
uint32_t rc_rng_below(gsl_rng *r, uint32_t n);

#endif
