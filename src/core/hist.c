#include "core/hist.h"

#include <math.h>

#define LOG_RATIO 1.01
#define LINEAR_TOP 100.0

size_t rc_hist_bin(double x)
{
    if (!(x >= 0)) return 0;
    if (x < LINEAR_TOP) {
        /* Latencies on the 10 ms lattice sit exactly on edges: nudge up. */
        size_t b = (size_t)floor(x * 100.0 + 1e-7);
        return b < RC_HIST_LINEAR_BINS ? b : RC_HIST_LINEAR_BINS - 1;
    }
    double k = floor(log(x / LINEAR_TOP) / log(LOG_RATIO) + 1e-12);
    if (k >= RC_HIST_LOG_BINS) return RC_HIST_BINS - 1;
    return RC_HIST_LINEAR_BINS + (size_t)k;
}

double rc_hist_edge(size_t i)
{
    if (i <= RC_HIST_LINEAR_BINS) return (double)i / 100.0;
    if (i >= RC_HIST_BINS) return INFINITY;
    return LINEAR_TOP * pow(LOG_RATIO, (double)(i - RC_HIST_LINEAR_BINS));
}

void rc_moments_add(rc_moments *m, double x)
{
    m->n++;
    double d = x - m->mean;
    m->mean += d / (double)m->n;
    m->m2 += d * (x - m->mean);
    if (m->n == 1 || x < m->min) m->min = x;
    if (m->n == 1 || x > m->max) m->max = x;
}
