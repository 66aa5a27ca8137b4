/* hist: the fixed-edge latency histogram geometry and streaming moments.
 *
 * Edges (seconds): [0, 0.01, ..., 100.0] linear (10,000 bins of 10 ms, exact
 * for the paper's lattice), then log bins of ratio 1.01 up to >= 1e6 s, then
 * one overflow bin.  Every latency histogram of rcsim uses these edges, so
 * histograms add bin by bin across layers, jobs and seeds.  rc_moments keeps
 * count, mean, the sum of squared deviations (Welford) and the extremes of a
 * stream.  Pure functions and value types; nothing allocates.
 */
#ifndef RCSIM_CORE_HIST_H
#define RCSIM_CORE_HIST_H

#include <stddef.h>
#include <stdint.h>

#define RC_HIST_LINEAR_BINS 10000
#define RC_HIST_LOG_BINS 926
#define RC_HIST_BINS (RC_HIST_LINEAR_BINS + RC_HIST_LOG_BINS + 1)

/* Bin of a latency, and the lower edge of bin i (edge RC_HIST_BINS-1 is the
 * overflow's lower edge; edge RC_HIST_BINS is +inf). */
size_t rc_hist_bin(double latency_s);
double rc_hist_edge(size_t i);

typedef struct rc_moments {
    uint64_t n;
    double mean, m2, min, max; /* m2: sum of squared deviations from the mean */
} rc_moments;

void rc_moments_add(rc_moments *m, double x);

#endif
