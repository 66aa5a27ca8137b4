/* population: many users in many overlapping groups of different sizes.
 *
 * A population of N users holds G groups.  Each group's size is drawn from a
 * distribution given as text (rc_sizedist_parse):
 *
 *   fixed:M              every group has M members
 *   zipf:S:MIN:MAX       P(size = n) proportional to n^-S on MIN..MAX
 *   lognormal:MU:SIGMA   size = round(exp(X)), X ~ Normal(MU, SIGMA), clamped to 2..N
 *
 * and its members are a uniform sample of the users without replacement, in
 * the order drawn (the group order, docs/spec.md §3).  A user is in as many
 * groups as the draws put it in, possibly none.  Sizes first, then members,
 * all from one stream of the job (the caller's).
 *
 * Memory: the groups are stored compressed (CSR): an offset per group and one
 * array of every membership, so a population takes O(N + G + sum of sizes)
 * and never N x G.  rc_population owns both arrays.
 */
#ifndef RCSIM_MULTICAST_POPULATION_H
#define RCSIM_MULTICAST_POPULATION_H

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

typedef enum { RC_SIZEDIST_FIXED = 0, RC_SIZEDIST_ZIPF = 1, RC_SIZEDIST_LOGNORMAL = 2 } rc_sizedist_kind;

typedef struct rc_sizedist {
    rc_sizedist_kind kind;
    uint32_t users;      /* N: sizes never exceed it */
    uint32_t m;          /* fixed */
    double s;            /* zipf exponent, >= 0 */
    uint32_t min, max;   /* zipf range, 2 <= min <= max <= N */
    double mu, sigma;    /* lognormal, sigma >= 0 */
    double *cdf;         /* zipf: cumulative weights over min..max (owned) */
} rc_sizedist;

/* Parses `text` for a population of `users`.  A distribution that cannot fit
 * (MIN > N, MAX < MIN, M < 2, negative sigma, ...) is RC_EXIT_USAGE with a
 * message naming group_size_dist, the bad part and the reason.  On success
 * the caller owns out (rc_sizedist_free). */
int rc_sizedist_parse(const char *text, uint32_t users, rc_sizedist *out, rc_err *err);
void rc_sizedist_free(rc_sizedist *d);
/* One size from the distribution (always in 2..N). */
uint32_t rc_sizedist_draw(const rc_sizedist *d, gsl_rng *r);
/* The distribution's mean size (exact for fixed and zipf; for lognormal the
 * mean of the clamped, rounded law, by summation). */
double rc_sizedist_mean(const rc_sizedist *d);

typedef struct rc_population {
    uint32_t users, groups;
    size_t memberships;  /* sum of the group sizes */
    size_t *off;         /* groups + 1 offsets into members */
    uint32_t *members;   /* group g: members[off[g] .. off[g+1]), in group order */
} rc_population;

/* Draws G groups over N users: every size, then every group's members. */
rc_population *rc_population_new(uint32_t users, uint32_t groups, const rc_sizedist *d, gsl_rng *r);
void rc_population_free(rc_population *p);

#endif
