/* hist: the latency histogram geometry and streaming moments.
 *
 * Bucket 0 is [0, 2^-10 s); each octave [2^k, 2^(k+1)) for k = -10 .. 21 is
 * split into 2^10 equal buckets (any two values in one bucket differ by less
 * than 0.1 % of either); the last bucket is [2^22 s, +inf).  The edges are
 * dyadic, so a bucket holds exactly the doubles between its edges
 * (docs/results-layout.md).  Every latency histogram of rcsim uses these
 * buckets (exp/result, multicast/poptab), so histograms add bucket by bucket
 * across layers, jobs and seeds.  rc_moments keeps count, mean, the sum of
 * squared deviations (Welford) and the extremes of a stream.  Pure functions
 * and value types; nothing allocates.
 */
#ifndef RCSIM_CORE_HIST_H
#define RCSIM_CORE_HIST_H

#include <stddef.h>
#include <stdint.h>

#define RC_HIST_SUB_BITS 10 /* 2^10 buckets per octave */
#define RC_HIST_SUB (1u << RC_HIST_SUB_BITS)
#define RC_HIST_MIN_EXP (-10) /* first octave starts at 2^-10 s */
#define RC_HIST_MAX_EXP 22    /* overflow from 2^22 s (48.5 days) */
#define RC_HIST_BINS (2 + (RC_HIST_MAX_EXP - RC_HIST_MIN_EXP) * RC_HIST_SUB) /* 32770 */

/* Bucket of a latency (NaN and negatives go to 0), and the lower edge of
 * bucket i (rc_hist_edge(RC_HIST_BINS) = +inf). */
size_t rc_hist_bin(double latency_s);
double rc_hist_edge(size_t i);

typedef struct rc_moments {
    uint64_t n;
    double mean, m2, min, max; /* m2: sum of squared deviations from the mean */
} rc_moments;

void rc_moments_add(rc_moments *m, double x);

#endif
