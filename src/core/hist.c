#include "core/hist.h"

#include <math.h>
#include <string.h>

size_t rc_hist_bin(double x)
{
    if (!(x >= 0x1p-10)) return 0; /* 2^RC_HIST_MIN_EXP; also NaN and negatives */
    if (x >= 0x1p22) return RC_HIST_BINS - 1; /* 2^RC_HIST_MAX_EXP */
    /* x is a normal double in [2^k, 2^(k+1)) with k = biased exponent - 1023,
     * and its sub-bucket floor((x / 2^k - 1) 2^SUB_BITS) is the top SUB_BITS
     * bits of the mantissa: both are read off the bit pattern, which is the
     * same bucket frexp and ldexp give, without two libm calls per sample
     * (they were 3-6 % of a paper job). */
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint64_t top = bits >> (52 - RC_HIST_SUB_BITS); /* biased exponent, then SUB_BITS */
    return 1 + (size_t)(top - ((uint64_t)(1023 + RC_HIST_MIN_EXP) << RC_HIST_SUB_BITS));
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
