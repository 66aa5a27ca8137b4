#include "exp/result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "loopix/net.h"
#include "multicast/mc.h"
#include "multicast/poptab.h"

const double rc_summary_q[RC_SUMMARY_QUANTILES] = {0.01, 0.05, 0.10, 0.25, 0.50,
                                                   0.75, 0.90, 0.95, 0.99, 0.999};
const char *const rc_summary_q_names[RC_SUMMARY_QUANTILES] = {
    "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.9"};


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
    free(r->user_sent);
    free(r->user_groups);
    memset(r, 0, sizeof *r);
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

/* The value of the sample of 0-based rank k, the samples of its bin taken as
 * evenly spread over the bin. */
static double hist_rank(const uint32_t *hist, const uint64_t *cum, double k, double min, double max)
{
    size_t lo = 0, hi = RC_HIST_BINS - 1;
    while (lo < hi) { /* first bin whose cumulative count exceeds k */
        size_t mid = lo + (hi - lo) / 2;
        if ((double)cum[mid] > k) hi = mid;
        else lo = mid + 1;
    }
    double before = (double)(cum[lo] - hist[lo]);
    double a = rc_hist_edge(lo), b = lo + 1 < RC_HIST_BINS ? rc_hist_edge(lo + 1) : max;
    if (!isfinite(b) || b > max) b = max;
    if (a < min) a = min;
    if (b < a) b = a;
    return a + (k - before + 0.5) / (double)hist[lo] * (b - a);
}

void rc_summary_from_hist(rc_summary *s, const uint32_t *hist, double mean, double m2,
                          double min, double max)
{
    memset(s, 0, sizeof *s);
    uint64_t *cum = rc_xmalloc(RC_HIST_BINS * sizeof *cum), n = 0;
    for (size_t i = 0; i < RC_HIST_BINS; i++) cum[i] = n += hist[i];
    s->count = n;
    if (n == 0) {
        s->mean_s = s->sd_s = s->min_s = s->max_s = NAN;
        for (int i = 0; i < RC_SUMMARY_QUANTILES; i++) s->q[i] = NAN;
        free(cum);
        return;
    }
    s->mean_s = mean;
    s->sd_s = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0;
    s->min_s = min;
    s->max_s = max;
    for (int i = 0; i < RC_SUMMARY_QUANTILES; i++) {
        /* numpy.percentile's linear rule on the estimated order statistics */
        double h = (double)(n - 1) * rc_summary_q[i], lo = floor(h);
        double hi = lo + 1 < (double)n ? lo + 1 : lo;
        double vlo = hist_rank(hist, cum, lo, min, max), vhi = hist_rank(hist, cum, hi, min, max);
        s->q[i] = vlo + (h - lo) * (vhi - vlo);
    }
    free(cum);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* mean, p50, p90, p99 and max of v (n > 0), sorting a copy */
static void u32_stats(const uint32_t *v, size_t n, double out[5])
{
    uint32_t *s = rc_xmalloc(n * sizeof *s);
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_u32);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += s[i];
    static const double q[3] = {0.5, 0.9, 0.99};
    out[0] = sum / (double)n;
    for (int k = 0; k < 3; k++) {
        double h = (double)(n - 1) * q[k];
        size_t lo = (size_t)floor(h), hi = lo + 1 < n ? lo + 1 : lo;
        out[1 + k] = s[lo] + (h - (double)lo) * ((double)s[hi] - s[lo]);
    }
    out[4] = s[n - 1];
    free(s);
}

void rc_result_load_summary(const rc_result *r, rc_load_summary *o)
{
    memset(o, 0, sizeof *o);
    size_t n = r->n_users_load;
    if (n == 0) return;
    o->users = n;
    double a[5], b[5];
    u32_stats(r->user_sent, n, a);
    u32_stats(r->user_groups, n, b);
    o->sent_mean = a[0], o->sent_p50 = a[1], o->sent_p90 = a[2], o->sent_p99 = a[3];
    o->sent_max = a[4];
    o->groups_mean = b[0], o->groups_p50 = b[1], o->groups_p90 = b[2], o->groups_max = b[4];
    for (size_t i = 0; i < n; i++) o->without_group += r->user_groups[i] == 0;
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

/* Population mode: histograms and moments instead of samples (no raw
 * latencies), the size buckets and the per-user load. */
_Static_assert(RC_SIZE_BUCKETS == RC_POPTAB_BUCKETS, "size bucket counts differ");
static void gather_population(rc_result *r, const rc_poptab *pt)
{
    rc_moments m;
    const uint32_t *h = rc_poptab_hist(pt, false, &m);
    memcpy(r->hist_all, h, RC_HIST_BINS * sizeof *h);
    rc_summary_from_hist(&r->all, h, m.mean, m.m2, m.min, m.max);
    h = rc_poptab_hist(pt, true, &m);
    memcpy(r->hist_online, h, RC_HIST_BINS * sizeof *h);
    rc_summary_from_hist(&r->online, h, m.mean, m.m2, m.min, m.max);
    static const uint32_t empty[RC_HIST_BINS];
    r->n_sizes = 0;
    for (unsigned i = 0; i < RC_POPTAB_BUCKETS; i++) {
        rc_poptab_bucket b;
        if (!rc_poptab_bucket_get(pt, i, &b)) continue;
        rc_size_bucket *s = &r->sizes[r->n_sizes++];
        *s = (rc_size_bucket){b.lo, b.hi, b.groups, b.multicasts, b.expected, b.deliveries,
                              b.undelivered, {0}};
        rc_summary_from_hist(&s->online, b.hist_online ? b.hist_online : empty, b.online.mean,
                             b.online.m2, b.online.min, b.online.max);
    }
    size_t n = rc_poptab_users(pt);
    r->n_users_load = n;
    r->user_sent = rc_xmalloc((n ? n : 1) * sizeof(uint32_t));
    r->user_groups = rc_xmalloc((n ? n : 1) * sizeof(uint32_t));
    memcpy(r->user_sent, rc_poptab_user_sent(pt), n * sizeof(uint32_t));
    for (size_t u = 0; u < n; u++) r->user_groups[u] = rc_poptab_user_groups(pt, (uint32_t)u);
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
    c->adv_members = m->adv_members;
    c->adv_withheld = m->adv_withheld;
    c->adv_acks_withheld = m->adv_acks_withheld;
    c->adv_acks_faked = m->adv_acks_faked;
    c->adv_delayed = m->adv_delayed;
    const rc_net_counters *n = rc_net_counts(rc_mc_net(mc));
    c->bundles = n->bundles;
    c->cover_packets = n->cover_packets;
    c->pulls = n->pulls;
    c->mix_packets = n->mix_packets;

    const rc_poptab *pt = rc_mc_poptab(mc);
    if (pt != NULL) {
        gather_population(r, pt);
        return;
    }
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
    uint64_t n_sizes, n_users_load;
    rc_size_bucket sizes[RC_SIZE_BUCKETS];
} image_head;

void rc_result_pack(const rc_result *r, void **buf, size_t *len)
{
    size_t hist = (size_t)RC_HIST_BINS * sizeof(uint32_t);
    size_t load = r->n_users_load * 2 * sizeof(uint32_t);
    size_t n = sizeof(image_head) + 2 * hist + r->n_raw * sizeof(float) +
               r->n_undelivered * sizeof(rc_undelivered) + load;
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
    h.n_sizes = r->n_sizes;
    h.n_users_load = r->n_users_load;
    memcpy(h.sizes, r->sizes, sizeof h.sizes);
    size_t off = 0;
    memcpy(p + off, &h, sizeof h), off += sizeof h;
    memcpy(p + off, r->hist_online, hist), off += hist;
    memcpy(p + off, r->hist_all, hist), off += hist;
    if (r->n_raw) memcpy(p + off, r->raw_online, r->n_raw * sizeof(float));
    off += r->n_raw * sizeof(float);
    if (r->n_undelivered)
        memcpy(p + off, r->undelivered, r->n_undelivered * sizeof(rc_undelivered));
    off += r->n_undelivered * sizeof(rc_undelivered);
    if (r->n_users_load) {
        memcpy(p + off, r->user_sent, r->n_users_load * sizeof(uint32_t));
        off += r->n_users_load * sizeof(uint32_t);
        memcpy(p + off, r->user_groups, r->n_users_load * sizeof(uint32_t));
    }
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
    if (h.n_sizes > RC_SIZE_BUCKETS || h.n_users_load > ((size_t)1 << 30))
        return rc_err_set(err, RC_EXIT_RUNTIME, "result image: bad population section");
    size_t need = sizeof h + 2 * hist + h.n_raw * sizeof(float) +
                  h.n_undelivered * sizeof(rc_undelivered) + h.n_users_load * 2 * sizeof(uint32_t);
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
    off += h.n_undelivered * sizeof(rc_undelivered);
    r->n_sizes = (uint32_t)h.n_sizes;
    memcpy(r->sizes, h.sizes, sizeof r->sizes);
    r->n_users_load = h.n_users_load;
    if (h.n_users_load) {
        r->user_sent = rc_xmalloc(h.n_users_load * sizeof(uint32_t));
        r->user_groups = rc_xmalloc(h.n_users_load * sizeof(uint32_t));
        memcpy(r->user_sent, p + off, h.n_users_load * sizeof(uint32_t));
        off += h.n_users_load * sizeof(uint32_t);
        memcpy(r->user_groups, p + off, h.n_users_load * sizeof(uint32_t));
    }
    return 0;
}
