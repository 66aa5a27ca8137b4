/* result: histogram geometry and quantile accuracy, compact images. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exp/result.h"

Test(result, bucket_edges_are_dyadic_and_contain_their_values)
{
    cr_assert_eq(RC_HIST_BINS, 32770);
    cr_assert_eq(rc_hist_edge(0), 0.0);
    cr_assert_eq(rc_hist_edge(1), ldexp(1, RC_HIST_MIN_EXP));
    cr_assert_eq(rc_hist_edge(RC_HIST_BINS - 1), ldexp(1, RC_HIST_MAX_EXP));
    cr_assert(isinf(rc_hist_edge(RC_HIST_BINS)));
    for (size_t i = 1; i < RC_HIST_BINS - 1; i++) {
        double lo = rc_hist_edge(i), hi = rc_hist_edge(i + 1);
        cr_assert_lt(lo, hi);
        /* Every bucket is narrower than 2^-10 of its lower edge. */
        cr_assert_leq((hi - lo) / lo, ldexp(1, -RC_HIST_SUB_BITS) + 1e-15, "bucket %zu", i);
        cr_assert_eq(rc_hist_bin(lo), i, "lower edge of %zu in %zu", i, rc_hist_bin(lo));
        cr_assert_eq(rc_hist_bin(nextafter(hi, 0)), i, "just below the upper edge of %zu", i);
    }
    cr_assert_eq(rc_hist_bin(-1.0), 0);
    cr_assert_eq(rc_hist_bin(NAN), 0);
    cr_assert_eq(rc_hist_bin(1e-6), 0);
    cr_assert_eq(rc_hist_bin(INFINITY), RC_HIST_BINS - 1);
    cr_assert_eq(rc_hist_bin(1e9), RC_HIST_BINS - 1);
}

Test(result, every_two_seconds_up_to_4096_is_an_edge)
{
    /* Figs 15/16 rebin onto 2 s bins (analysis/rcplot/figures.py): exact. */
    for (int s = 2; s <= 4096; s += 2) {
        size_t b = rc_hist_bin((double)s);
        cr_assert_eq(rc_hist_edge(b), (double)s, "%d s is not an edge", s);
    }
    /* The paper's 10 ms lattice in microseconds: a latency of n us is
     * computed as n / 1e6 and lands on the right side of 2 s. */
    cr_assert_lt(rc_hist_edge(rc_hist_bin(1999999 / 1e6)), 2.0);
    cr_assert_eq(rc_hist_edge(rc_hist_bin(2000000 / 1e6)), 2.0);
}

/* Samples with a log-normal body whose exact p1 and p99 are near 1 s and
 * 1e4 s: the quantiles the analysis reports, read from the histogram the
 * way analysis/rcplot/stats.py reads them, are within 0.1 % of the exact
 * ones (numpy.percentile's linear rule, rc_summary_compute). */
static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}

static void check_accuracy(size_t n, uint64_t seed)
{
    double *v = malloc(n * sizeof *v);
    uint32_t *h = calloc(RC_HIST_BINS, sizeof *h);
    uint64_t s = seed;
    /* log-normal: log10 v ~ N(2, (2/2.326)^2), so p1 ~ 1 s and p99 ~ 1e4 s */
    for (size_t i = 0; i < n; i++) {
        double u1 = ((double)lcg(&s) + 1) / 9007199254740993.0;
        double u2 = (double)lcg(&s) / 9007199254740992.0;
        double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
        v[i] = pow(10.0, 2.0 + z * 2.0 / 2.326);
        h[rc_hist_bin(v[i])]++;
    }
    rc_summary sum;
    rc_summary_compute(&sum, v, n);
    if (n >= 10000) {
        cr_assert(sum.q[0] > 0.8 && sum.q[0] < 1.25, "p1 = %g s, want about 1 s", sum.q[0]);
        cr_assert(sum.q[8] > 8e3 && sum.q[8] < 1.25e4, "p99 = %g s, want about 1e4 s", sum.q[8]);
    }
    for (int q = 0; q < RC_SUMMARY_QUANTILES; q++) {
        double exact = sum.q[q], est = rc_hist_quantile(h, rc_summary_q[q]);
        double rel = fabs(est - exact) / exact;
        cr_assert_leq(rel, 1e-3, "n=%zu %s: histogram %.9g vs exact %.9g (%.4f %%)", n,
                      rc_summary_q_names[q], est, exact, 100 * rel);
    }
    free(v);
    free(h);
}

Test(result, histogram_quantiles_within_a_tenth_of_a_percent)
{
    check_accuracy(101, 1);
    check_accuracy(10007, 2);
    check_accuracy(1000003, 3);
}

Test(result, image_is_compact_and_round_trips)
{
    rc_result r;
    rc_result_init(&r);
    r.job_id = 0x1122334455667788ULL;
    r.c.events = 42;
    r.c.wall_s = 0.5;
    r.online.count = 3;
    r.online.q[4] = 1.25;
    r.hist_online[5] = 2;
    r.hist_online[RC_HIST_BINS - 1] = 1;
    r.hist_all[7] = 9;
    r.n_undelivered = 1;
    r.undelivered = calloc(RC_UNDELIVERED_MAX, sizeof *r.undelivered);
    r.undelivered[0] = (rc_undelivered){4, 5, 6};
    r.n_deliveries = 2;
    r.deliveries = calloc(2, sizeof *r.deliveries);
    r.deliveries[1] = (rc_delivery){.message = 7, .group = 1, .sender = 2, .recipient = 3,
                                    .sent_s = 1.5, .delivered_s = 9.25, .online = 1};
    r.n_anon_records = 1;
    r.anon_records = calloc(1, sizeof *r.anon_records);
    r.anon_records[0] = (rc_anon_record){.target = 3, .sender = 1, .recipient = 2,
                                         .entropy_bits = 7.25, .sender_entropy_bits = NAN};
    r.n_disc_curve = 1;
    r.disc_curve = calloc(1, sizeof *r.disc_curve);
    r.disc_curve[0] = (rc_disc_point){.multicasts = 12, .time_s = 60.5, .precision = 0.25,
                                      .recall = 0.25, .auc = 0.75, .source_top1 = NAN,
                                      .source_entropy_bits = 3.5};
    void *buf;
    size_t len;
    rc_result_pack(&r, &buf, &len);
    /* Three nonzero buckets: 6 bytes each, not two 131 kB dense arrays (the
     * header, with every counter and both summaries, is most of it; the
     * anonymity record is 64 bytes, the bandwidth and unobservability counters 136,
     * the disclosure counters 64, a point of its curve 56). */
    cr_assert_lt(len, 1260, "image of %zu bytes", len);
    rc_result_view v;
    rc_err err = {0};
    cr_assert_eq(rc_result_view_parse(&v, buf, len, &err), 0, "%s", err.msg);
    cr_assert_eq(v.n_hist[0], 2);
    cr_assert_eq(v.n_hist[1], 1);
    void *buf2;
    size_t len2;
    rc_result_pack_view(&v, &buf2, &len2);
    cr_assert_eq(len2, len);
    cr_assert_eq(memcmp(buf, buf2, len), 0, "a view packs back to the same bytes");
    rc_result b;
    cr_assert_eq(rc_result_unpack(&b, buf, len, &err), 0, "%s", err.msg);
    cr_assert_eq(b.job_id, r.job_id);
    cr_assert_eq(memcmp(b.hist_online, r.hist_online, RC_HIST_BINS * sizeof(uint32_t)), 0);
    cr_assert_eq(memcmp(b.hist_all, r.hist_all, RC_HIST_BINS * sizeof(uint32_t)), 0);
    cr_assert_eq(b.n_deliveries, 2);
    cr_assert_eq(b.deliveries[1].recipient, 3);
    cr_assert_eq(b.deliveries[1].delivered_s, 9.25);
    cr_assert_eq(b.undelivered[0].recipient, 6);
    cr_assert_eq(b.n_anon_records, 1);
    cr_assert_eq(b.anon_records[0].target, 3);
    cr_assert_eq(b.anon_records[0].entropy_bits, 7.25);
    cr_assert(isnan(b.anon_records[0].sender_entropy_bits));
    cr_assert_eq(b.n_disc_curve, 1);
    cr_assert_eq(b.disc_curve[0].multicasts, 12);
    cr_assert_eq(b.disc_curve[0].auc, 0.75);
    cr_assert_eq(b.disc_curve[0].source_entropy_bits, 3.5);
    cr_assert(isnan(b.disc_curve[0].source_top1));
    cr_assert_neq(rc_result_unpack(&b, buf, len - 1, &err), 0, "a truncated image must fail");
    free(buf);
    free(buf2);
    rc_result_free(&r);
    rc_result_free(&b);
}

Test(result, compressed_images_parse_like_plain_ones)
{
    rc_result r;
    rc_result_init(&r);
    r.job_id = 42;
    r.online.count = 5000;
    for (size_t i = 0; i < 3000; i++) r.hist_online[rc_hist_bin(1.0 + 0.01 * (double)i)] += 1 + i % 3;
    r.n_deliveries = 500;
    r.deliveries = calloc(500, sizeof *r.deliveries);
    for (uint32_t i = 0; i < 500; i++)
        r.deliveries[i] = (rc_delivery){.message = i / 10, .recipient = i % 10, .sent_s = i,
                                        .delivered_s = i + 2.5, .online = i & 1};
    void *plain, *z;
    size_t lp, lz;
    rc_result_pack(&r, &plain, &lp);
    rc_result_pack(&r, &z, &lz);
    rc_result_deflate(&z, &lz);
    cr_assert_lt(lz, lp / 2, "compressed %zu of %zu bytes", lz, lp);
    rc_result a, b;
    rc_err err = {0};
    cr_assert_eq(rc_result_unpack(&a, plain, lp, &err), 0, "%s", err.msg);
    cr_assert_eq(rc_result_unpack(&b, z, lz, &err), 0, "%s", err.msg);
    cr_assert_eq(memcmp(a.hist_online, b.hist_online, RC_HIST_BINS * sizeof(uint32_t)), 0);
    cr_assert_eq(memcmp(a.deliveries, b.deliveries, 500 * sizeof(rc_delivery)), 0);
    cr_assert_eq(a.online.count, b.online.count);
    ((unsigned char *)z)[lz / 2] ^= 0x55;
    cr_assert_neq(rc_result_unpack(&b, z, lz, &err), 0, "a damaged compressed image must fail");
    /* Small images stay as they are. */
    rc_result s;
    rc_result_init(&s);
    void *small;
    size_t ls, ls0;
    rc_result_pack(&s, &small, &ls);
    ls0 = ls;
    rc_result_deflate(&small, &ls);
    cr_assert_eq(ls, ls0);
    free(plain);
    free(z);
    free(small);
    rc_result_free(&r);
    rc_result_free(&a);
    rc_result_free(&b);
    rc_result_free(&s);
}
