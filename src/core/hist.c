#include "core/hist.h"

#include <math.h>

size_t rc_hist_bin(double x)
{
    if (!(x >= ldexp(1.0, RC_HIST_MIN_EXP))) return 0; /* also NaN and negatives */
    if (x >= ldexp(1.0, RC_HIST_MAX_EXP)) return RC_HIST_BINS - 1;
    int e;
    frexp(x, &e); /* x = m 2^e, m in [0.5, 1): x is in octave k = e - 1 */
    int k = e - 1;
    /* ldexp is exact, so the sub-bucket is exact too: x * 2^(SUB_BITS-k) lies
     * in [SUB, 2 SUB). */
    size_t sub = (size_t)ldexp(x, RC_HIST_SUB_BITS - k) - RC_HIST_SUB;
    return 1 + (size_t)(k - RC_HIST_MIN_EXP) * RC_HIST_SUB + sub;
}

double rc_hist_edge(size_t i)
{
    if (i == 0) return 0.0;
    if (i >= RC_HIST_BINS) return INFINITY;
    size_t j = i - 1;
    int k = RC_HIST_MIN_EXP + (int)(j / RC_HIST_SUB);
    return ldexp((double)(RC_HIST_SUB + j % RC_HIST_SUB), k - RC_HIST_SUB_BITS);
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
