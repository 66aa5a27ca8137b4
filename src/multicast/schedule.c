#include "multicast/schedule.h"

#include "core/log.h"

uint32_t rc_sched_rounds(uint32_t n, uint32_t k)
{
    uint32_t t = 0;
    uint64_t known = 1;
    while (known < n) {
        known *= (uint64_t)k + 1;
        t++;
    }
    return t;
}

static uint64_t power(uint32_t k, uint32_t t)
{
    uint64_t p = 1;
    for (uint32_t i = 0; i < t; i++) {
        p *= (uint64_t)k + 1;
        if (p > UINT32_MAX) return (uint64_t)UINT32_MAX + 1;
    }
    return p;
}

uint32_t rc_sched_round_sends(uint32_t n, uint32_t k, uint32_t t)
{
    uint64_t P = power(k, t);
    if (P >= n) return 0;
    uint64_t w = (uint64_t)k * P;
    return (uint32_t)(w < n - P ? w : n - P);
}

size_t rc_sched_round_pairs(uint32_t n, uint32_t k, uint32_t t, uint32_t (*out)[2], size_t cap)
{
    uint32_t w = rc_sched_round_sends(n, k, t);
    uint32_t P = (uint32_t)power(k, t);
    size_t m = 0;
    for (uint32_t idx = 0; idx < w && m < cap; idx++, m++) {
        out[m][0] = idx / k;
        out[m][1] = P + idx;
    }
    return m;
}

uint32_t rc_sched_parent(uint32_t k, uint32_t r)
{
    RC_ASSERT(r >= 1);
    uint64_t P = 1;
    while (P * (k + 1) <= r) P *= (uint64_t)k + 1;
    return (uint32_t)((r - P) / k);
}

size_t rc_sched_children(uint32_t n, uint32_t k, uint32_t r, uint32_t *out, size_t cap)
{
    size_t m = 0;
    for (uint64_t P = 1; P < n; P *= (uint64_t)k + 1) {
        if (r >= P) continue;
        for (uint32_t j = 0; j < k; j++) {
            uint64_t c = P + (uint64_t)r * k + j;
            if (c >= n) break;
            if (m < cap) out[m] = (uint32_t)c;
            m++;
        }
    }
    return m;
}

size_t rc_sched_child_count(uint32_t n, uint32_t k, uint32_t r)
{
    return rc_sched_children(n, k, r, NULL, 0);
}

static void preorder(uint32_t n, uint32_t k, uint32_t r, uint32_t *out, size_t cap, size_t *m)
{
    for (uint64_t P = 1; P < n; P *= (uint64_t)k + 1) {
        if (r >= P) continue;
        for (uint32_t j = 0; j < k; j++) {
            uint64_t c = P + (uint64_t)r * k + j;
            if (c >= n) break;
            if (*m < cap) out[*m] = (uint32_t)c;
            (*m)++;
            preorder(n, k, (uint32_t)c, out, cap, m);
        }
    }
}

size_t rc_sched_descendants(uint32_t n, uint32_t k, uint32_t r, uint32_t *out, size_t cap)
{
    size_t m = 0;
    preorder(n, k, r, out, cap, &m);
    return m;
}

uint32_t rc_sched_depth(uint32_t k, uint32_t r)
{
    uint32_t d = 0;
    while (r != 0) {
        r = rc_sched_parent(k, r);
        d++;
    }
    return d;
}

double rc_sched_estimate_ms(uint32_t n, uint32_t k, uint32_t root, uint32_t c, double t_msg,
                            double t_queue)
{
    double est = t_msg;
    for (uint32_t v = c;; v = rc_sched_parent(k, v)) {
        est += t_msg + t_queue * (1.0 + (double)rc_sched_child_count(n, k, v));
        if (v == root || v == 0) break;
    }
    return est;
}
