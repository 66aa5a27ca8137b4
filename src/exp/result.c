#include "exp/result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "loopix/net.h"
#include "multicast/mc.h"

const double rc_summary_q[RC_SUMMARY_QUANTILES] = {0.01, 0.05, 0.10, 0.25, 0.50,
                                                   0.75, 0.90, 0.95, 0.99, 0.999};
const char *const rc_summary_q_names[RC_SUMMARY_QUANTILES] = {
    "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.9"};

#define LOG_RATIO 1.01
#define LINEAR_TOP 100.0

void rc_result_init(rc_result *r)
{
    memset(r, 0, sizeof *r);
    r->hist_online = rc_xcalloc(RC_HIST_BINS, sizeof(uint32_t));
    r->hist_all = rc_xcalloc(RC_HIST_BINS, sizeof(uint32_t));
}

void rc_result_free(rc_result *r)
{
    free(r->hist_online);
    free(r->hist_all);
    free(r->raw_online);
    free(r->undelivered);
    memset(r, 0, sizeof *r);
}

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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Latencies are non-negative, and non-negative IEEE doubles order like their
 * bit patterns as unsigned integers: an LSD radix sort (4 passes of 16 bits,
 * skipping passes where every key has the same digit) sorts millions of
 * samples several times faster than qsort.  Falls back to qsort otherwise. */
static void sort_latencies(double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(v[i] >= 0)) {
            qsort(v, n, sizeof *v, cmp_double);
            return;
        }
    if (n < 4096) {
        qsort(v, n, sizeof *v, cmp_double);
        return;
    }
    uint64_t *a = (uint64_t *)(void *)v;
    uint64_t *tmp = rc_xmalloc(n * sizeof *tmp);
    size_t *count = rc_xmalloc(65536 * sizeof *count);
    uint64_t *src = a, *dst = tmp;
    for (int pass = 0; pass < 4; pass++) {
        int shift = 16 * pass;
        memset(count, 0, 65536 * sizeof *count);
        for (size_t i = 0; i < n; i++) count[(src[i] >> shift) & 0xffff]++;
        if (count[(src[0] >> shift) & 0xffff] == n) continue;
        size_t sum = 0;
        for (size_t d = 0; d < 65536; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) dst[count[(src[i] >> shift) & 0xffff]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
    free(tmp);
    free(count);
}

void rc_summary_compute(rc_summary *s, double *v, size_t n)
{
    memset(s, 0, sizeof *s);
    s->count = n;
    if (n == 0) {
        s->mean_s = s->sd_s = s->min_s = s->max_s = NAN;
        for (int i = 0; i < RC_SUMMARY_QUANTILES; i++) s->q[i] = NAN;
        return;
    }
    sort_latencies(v, n);
    /* Welford for a stable variance over millions of samples. */
    double mean = 0, m2 = 0;
    for (size_t i = 0; i < n; i++) {
        double d = v[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * (v[i] - mean);
    }
    s->mean_s = mean;
    s->sd_s = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0;
    s->min_s = v[0];
    s->max_s = v[n - 1];
    for (int i = 0; i < RC_SUMMARY_QUANTILES; i++) {
        /* numpy.percentile's default (linear): h = (n-1) q. */
        double h = (double)(n - 1) * rc_summary_q[i];
        size_t lo = (size_t)floor(h);
        size_t hi = lo + 1 < n ? lo + 1 : lo;
        s->q[i] = v[lo] + (h - (double)lo) * (v[hi] - v[lo]);
    }
}

/* ---------- gathering a job's outputs ---------- */

static void note_missed(void *ctx, uint32_t group, uint32_t payload, uint32_t recipient)
{
    rc_result *r = ctx;
    if (r->n_undelivered >= RC_UNDELIVERED_MAX) return;
    if (r->undelivered == NULL)
        r->undelivered = rc_xmalloc(RC_UNDELIVERED_MAX * sizeof *r->undelivered);
    r->undelivered[r->n_undelivered++] = (rc_undelivered){group, payload, recipient};
}

void rc_result_gather(rc_result *r, rc_mc *mc, bool keep_raw)
{
    rc_mc_finish(mc, note_missed, r);
    const rc_mc_counters *m = rc_mc_counts(mc);
    rc_counters *c = &r->c;
    c->multicasts = m->multicasts;
    c->deliveries = m->deliveries;
    c->deliveries_online = m->deliveries_online;
    c->duplicates = m->duplicates;
    c->expected_deliveries = m->expected_deliveries;
    c->undelivered = m->undelivered;
    c->payload_packets = m->payload_packets;
    c->ack_packets = m->ack_packets;
    c->repair_packets = m->repair_packets;
    c->reassignments = m->reassignments;
    c->timeouts = m->timeouts;
    c->joins = m->joins;
    c->leaves = m->leaves;
    c->repairs = m->repairs;
    c->so_expected = m->so_expected;
    c->so_delivered = m->so_delivered;
    c->so_delivered_online = m->so_delivered_online;
    c->so_latency_sum_ms = m->so_latency_sum_ms;
    c->so_latency_max_ms = m->so_latency_max_ms;
    const rc_net_counters *n = rc_net_counts(rc_mc_net(mc));
    c->bundles = n->bundles;
    c->cover_packets = n->cover_packets;
    c->pulls = n->pulls;
    c->mix_packets = n->mix_packets;

    size_t n_all, n_online;
    double *all = rc_mc_latencies(mc, false, &n_all);
    double *online = rc_mc_latencies(mc, true, &n_online);
    /* Raw samples keep delivery order: copy them before the summaries sort. */
    if (keep_raw) {
        r->n_raw = n_online;
        r->raw_online = rc_xmalloc((r->n_raw ? r->n_raw : 1) * sizeof(float));
        for (size_t i = 0; i < r->n_raw; i++) r->raw_online[i] = (float)online[i];
    }
    for (size_t i = 0; i < n_all; i++) r->hist_all[rc_hist_bin(all[i])]++;
    for (size_t i = 0; i < n_online; i++) r->hist_online[rc_hist_bin(online[i])]++;
    rc_summary_compute(&r->all, all, n_all);
    rc_summary_compute(&r->online, online, n_online);
}

/* ---------- flat image ---------- */

#define MAGIC 0x53524352u /* "RCRS" */

typedef struct image_head {
    uint32_t magic, layout;
    uint64_t job_id;
    char build_id[24]; /* 17 used; 24 keeps the next fields 8-aligned */
    char build_revision[64];
    rc_counters c;
    rc_summary online, all;
    uint64_t n_raw, n_undelivered;
} image_head;

void rc_result_pack(const rc_result *r, void **buf, size_t *len)
{
    size_t hist = (size_t)RC_HIST_BINS * sizeof(uint32_t);
    size_t n = sizeof(image_head) + 2 * hist + r->n_raw * sizeof(float) +
               r->n_undelivered * sizeof(rc_undelivered);
    unsigned char *p = rc_xmalloc(n);
    image_head h;
    memset(&h, 0, sizeof h);
    h.magic = MAGIC;
    h.layout = RC_RESULT_LAYOUT;
    h.job_id = r->job_id;
    memcpy(h.build_id, r->build_id, sizeof r->build_id);
    memcpy(h.build_revision, r->build_revision, sizeof r->build_revision);
    h.c = r->c;
    h.online = r->online;
    h.all = r->all;
    h.n_raw = r->n_raw;
    h.n_undelivered = r->n_undelivered;
    size_t off = 0;
    memcpy(p + off, &h, sizeof h), off += sizeof h;
    memcpy(p + off, r->hist_online, hist), off += hist;
    memcpy(p + off, r->hist_all, hist), off += hist;
    if (r->n_raw) memcpy(p + off, r->raw_online, r->n_raw * sizeof(float));
    off += r->n_raw * sizeof(float);
    if (r->n_undelivered)
        memcpy(p + off, r->undelivered, r->n_undelivered * sizeof(rc_undelivered));
    *buf = p;
    *len = n;
}

int rc_result_unpack(rc_result *r, const void *buf, size_t len, rc_err *err)
{
    const unsigned char *p = buf;
    image_head h;
    size_t hist = (size_t)RC_HIST_BINS * sizeof(uint32_t);
    if (len < sizeof h) return rc_err_set(err, RC_EXIT_RUNTIME, "result image too short");
    memcpy(&h, p, sizeof h);
    if (h.magic != MAGIC || h.layout != RC_RESULT_LAYOUT)
        return rc_err_set(err, RC_EXIT_RUNTIME, "result image has layout %u, expected %u",
                          h.layout, RC_RESULT_LAYOUT);
    size_t need = sizeof h + 2 * hist + h.n_raw * sizeof(float) +
                  h.n_undelivered * sizeof(rc_undelivered);
    if (len != need || h.n_undelivered > RC_UNDELIVERED_MAX)
        return rc_err_set(err, RC_EXIT_RUNTIME, "result image has %zu bytes, expected %zu", len,
                          need);
    rc_result_init(r);
    r->job_id = h.job_id;
    memcpy(r->build_id, h.build_id, sizeof r->build_id);
    r->build_id[sizeof r->build_id - 1] = '\0';
    memcpy(r->build_revision, h.build_revision, sizeof r->build_revision);
    r->build_revision[sizeof r->build_revision - 1] = '\0';
    r->c = h.c;
    r->online = h.online;
    r->all = h.all;
    size_t off = sizeof h;
    memcpy(r->hist_online, p + off, hist), off += hist;
    memcpy(r->hist_all, p + off, hist), off += hist;
    r->n_raw = h.n_raw;
    if (h.n_raw) {
        r->raw_online = rc_xmalloc(h.n_raw * sizeof(float));
        memcpy(r->raw_online, p + off, h.n_raw * sizeof(float));
    }
    off += h.n_raw * sizeof(float);
    r->n_undelivered = h.n_undelivered;
    if (h.n_undelivered) {
        r->undelivered = rc_xmalloc(RC_UNDELIVERED_MAX * sizeof(rc_undelivered));
        memcpy(r->undelivered, p + off, h.n_undelivered * sizeof(rc_undelivered));
    }
    return 0;
}
