#include "exp/result.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

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
    /* not measured unless the job ran with --anonymity on */
    r->c.anon_entropy_mean_bits = r->c.anon_entropy_median_bits = r->c.anon_entropy_p5_bits = NAN;
    r->c.anon_min_entropy_mean_bits = r->c.anon_sender_entropy_mean_bits = NAN;
    r->c.anon_eps_mean = r->c.anon_eps_p95 = r->c.anon_delta = NAN;
    r->c.disclosure_membership_auc = r->c.disclosure_membership_precision = NAN;
    r->c.disclosure_membership_recall = r->c.disclosure_multicasts_to_90 = NAN;
    r->c.disclosure_source_top1 = r->c.disclosure_source_entropy_bits = NAN;
}

void rc_result_free(rc_result *r)
{
    free(r->hist_online);
    free(r->hist_all);
    free(r->deliveries);
    free(r->undelivered);
    free(r->user_sent);
    free(r->user_groups);
    free(r->anon_records);
    free(r->disc_curve);
    memset(r, 0, sizeof *r);
}

/* Value of the sample of 0-based rank k, the samples of its bucket taken as
 * evenly spread in it (analysis/rcplot/stats.py _sample_estimate). */
static double rank_estimate(const uint32_t *h, double k)
{
    double cum = 0;
    size_t i = 0;
    for (; i < RC_HIST_BINS; i++) {
        if (h[i] == 0) continue;
        if (cum + h[i] > k) break;
        cum += h[i];
    }
    if (i == RC_HIST_BINS) {
        while (i > 0 && h[i - 1] == 0) i--; /* k beyond the last sample: the last bucket */
        i = i > 0 ? i - 1 : 0;
        cum -= h[i];
    }
    double lo = rc_hist_edge(i), hi = rc_hist_edge(i + 1);
    if (!isfinite(hi)) return lo;
    double frac = (k - cum + 0.5) / h[i];
    frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
    return lo + frac * (hi - lo);
}

double rc_hist_quantile(const uint32_t *h, double q)
{
    double n = 0;
    for (size_t i = 0; i < RC_HIST_BINS; i++) n += h[i];
    if (n <= 0) return NAN;
    double r = q * (n - 1), f = floor(r);
    double v0 = rank_estimate(h, f);
    if (r == f) return v0;
    return v0 + (r - f) * (rank_estimate(h, f + 1) - v0);
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

/* rc_net_counters and rc_net_traffic (loopix/net.h, which cannot read the
 * table above it) mirror the NET and TRAFFIC rows of multicast/counters.def,
 * which rc_result_gather copies by name.  Checked here at compile time: every
 * such row is a field of the struct's reported part (the fields before
 * real_packets, before counted) and of the row's type, and that part holds
 * exactly as many 8-byte fields as there are rows; so neither side can gain a
 * counter the other lacks. */
#define ROW_TYPE_U64 uint64_t
#define ROW_TYPE_F64 double
#define OF_TYPE(s, name, type) _Generic(((s *)0)->name, ROW_TYPE_##type: 1, default: 0)
#define MIRRORS(s, end, name, type)                                                            \
    _Static_assert(offsetof(s, name) < offsetof(s, end) && OF_TYPE(s, name, type),            \
                   "counters.def row " #name ": not a reported field of " #s " of its type");
#define RC_COUNTER(name, from, type, units, json, json_key) MIRROR_##from(name, type)
#define MIRROR_NET(name, type) MIRRORS(rc_net_counters, real_packets, name, type)
#define MIRROR_TRAFFIC(name, type) MIRRORS(rc_net_traffic, counted, name, type)
#define MIRROR_MC(name, type)
#define MIRROR_ANON(name, type)
#define MIRROR_ENGINE(name, type)
#define MIRROR_RUN(name, type)
#include "multicast/counters.def"
#define RC_COUNTER(name, from, type, units, json, json_key) COUNT_##from
#define COUNT_NET +1
#define COUNT_TRAFFIC
#define COUNT_MC
#define COUNT_ANON
#define COUNT_ENGINE
#define COUNT_RUN
enum { NET_ROWS = 0
#include "multicast/counters.def"
};
#undef COUNT_NET
#undef COUNT_TRAFFIC
#define COUNT_NET
#define COUNT_TRAFFIC +1
#define RC_COUNTER(name, from, type, units, json, json_key) COUNT_##from
enum { TRAFFIC_ROWS = 0
#include "multicast/counters.def"
};
_Static_assert(offsetof(rc_net_counters, real_packets) == NET_ROWS * sizeof(uint64_t),
               "rc_net_counters reports a field that is no NET row of multicast/counters.def");
_Static_assert(offsetof(rc_net_traffic, counted) == TRAFFIC_ROWS * sizeof(double),
               "rc_net_traffic reports a field that is no TRAFFIC row of multicast/counters.def");
#undef COUNT_NET
#undef COUNT_TRAFFIC
#undef COUNT_MC
#undef COUNT_ANON
#undef COUNT_ENGINE
#undef COUNT_RUN
#undef MIRROR_NET
#undef MIRROR_TRAFFIC
#undef MIRROR_MC
#undef MIRROR_ANON
#undef MIRROR_ENGINE
#undef MIRROR_RUN
#undef MIRRORS
#undef OF_TYPE
#undef ROW_TYPE_U64
#undef ROW_TYPE_F64

void rc_result_gather(rc_result *r, rc_mc *mc, bool keep_raw)
{
    rc_mc_finish(mc, note_missed, r);
    const rc_mc_counters *m = rc_mc_counts(mc);
    const rc_net_counters *n = rc_net_counts(rc_mc_net(mc));
    rc_counters *c = &r->c;
    rc_net_traffic t; /* the TRAFFIC rows (loopix/traffic.c, docs/spec.md §1.12) */
    rc_net_traffic_summary(rc_mc_net(mc), &t);
    /* The engine's and the run's rows are filled by rc_run_job. */
#define RC_COUNTER(name, from, type, units, json, json_key) GATHER_##from(name)
#define GATHER_MC(name) c->name = m->name;
#define GATHER_NET(name) c->name = n->name;
#define GATHER_TRAFFIC(name) c->name = t.name;
#define GATHER_ANON(name)
#define GATHER_ENGINE(name)
#define GATHER_RUN(name)
#include "multicast/counters.def"
#undef GATHER_MC
#undef GATHER_NET
#undef GATHER_TRAFFIC
#undef GATHER_ANON
#undef GATHER_ENGINE
#undef GATHER_RUN

    const rc_poptab *pt = rc_mc_poptab(mc);
    if (pt != NULL) {
        gather_population(r, pt);
        return;
    }
    size_t n_all, n_online;
    double *all = rc_mc_latencies(mc, false, &n_all);
    double *online = rc_mc_latencies(mc, true, &n_online);
    if (keep_raw) {
        /* Every first delivery, online or not, in delivery order. */
        size_t nd;
        const rc_mc_delivery *d = rc_mc_deliveries(mc, &nd);
        r->n_deliveries = nd;
        r->deliveries = rc_xcalloc(nd ? nd : 1, sizeof *r->deliveries);
        for (size_t i = 0; i < nd; i++)
            r->deliveries[i] = (rc_delivery){
                .message = d[i].payload,
                .group = d[i].group,
                .sender = d[i].source,
                .recipient = d[i].recipient,
                .sent_s = (double)d[i].created / 1e6,
                .delivered_s = (double)d[i].delivered / 1e6,
                .online = d[i].online,
            };
    }
    for (size_t i = 0; i < n_all; i++) r->hist_all[rc_hist_bin(all[i])]++;
    rc_summary_compute(&r->all, all, n_all);
    if (n_online == n_all) {
        /* The online samples are the subsequence of all samples labelled
         * online, so equal counts mean equal arrays (every job without a
         * trace): bin and sort them once. */
        memcpy(r->hist_online, r->hist_all, RC_HIST_BINS * sizeof *r->hist_all);
        r->online = r->all;
        return;
    }
    for (size_t i = 0; i < n_online; i++) r->hist_online[rc_hist_bin(online[i])]++;
    rc_summary_compute(&r->online, online, n_online);
}

/* ---------- compact image ---------- */

#define MAGIC 0x32524352u  /* "RCR2" */
#define ZMAGIC 0x325a4352u /* "RCZ2": zlib-compressed image follows */

typedef struct zhead {
    uint32_t magic, layout;
    uint64_t raw_len;
} zhead;

typedef struct image_head {
    uint32_t magic, layout;
    uint64_t job_id;
    char build_id[24]; /* 17 used; 24 keeps the next fields 8-aligned */
    char build_revision[64];
    rc_counters c;
    rc_summary online, all;
    uint32_t n_hist_online, n_hist_all;
    uint32_t n_undelivered, n_deliveries;
    uint32_t n_sizes, n_users_load; /* population mode */
    uint32_t n_anon_records;        /* anonymity */
    uint32_t n_disc_curve;          /* disclosure */
} image_head;

/* Before zlib, each region of an image is laid out the way it compresses:
 * bucket numbers as differences (mostly 1), then every region byte-shuffled
 * by its element size (byte k of every element together, like HDF5's
 * shuffle filter: the high bytes of counts and the constant fields of
 * delivery records become long runs).  Measured on 24 h paper jobs: a third
 * of plain zlib's size.  The transform is its own inverse's mirror below. */
enum { N_REGIONS = 11 };

static void image_regions(const image_head *h, size_t esize[N_REGIONS], size_t count[N_REGIONS])
{
    esize[0] = 2, count[0] = h->n_hist_online; /* buckets (deltas) */
    esize[1] = 4, count[1] = h->n_hist_online; /* counts */
    esize[2] = 2, count[2] = h->n_hist_all;
    esize[3] = 4, count[3] = h->n_hist_all;
    esize[4] = sizeof(rc_undelivered), count[4] = h->n_undelivered;
    esize[5] = sizeof(rc_delivery), count[5] = h->n_deliveries;
    esize[6] = sizeof(rc_size_bucket), count[6] = h->n_sizes;
    esize[7] = 4, count[7] = h->n_users_load; /* user_sent */
    esize[8] = 4, count[8] = h->n_users_load; /* user_groups */
    esize[9] = sizeof(rc_anon_record), count[9] = h->n_anon_records;
    esize[10] = sizeof(rc_disc_point), count[10] = h->n_disc_curve;
}

static void shuffle(unsigned char *dst, const unsigned char *src, size_t es, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < es; b++) dst[b * n + i] = src[i * es + b];
}

static void unshuffle(unsigned char *dst, const unsigned char *src, size_t es, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < es; b++) dst[i * es + b] = src[b * n + i];
}

/* forward = 1: raw -> transformed; 0: transformed -> raw.  Same length. */
static void transform(unsigned char *dst, const unsigned char *src, size_t len, int forward)
{
    image_head h;
    memcpy(&h, src, sizeof h);
    memcpy(dst, src, sizeof h);
    size_t es[N_REGIONS], n[N_REGIONS], off = sizeof h;
    image_regions(&h, es, n);
    for (int r = 0; r < N_REGIONS; r++) {
        size_t bytes = es[r] * n[r];
        RC_ASSERT(off + bytes <= len);
        if (r == 0 || r == 2) {
            /* uint16 buckets, ascending: differences, shuffled */
            uint16_t *tmp = rc_xmalloc(bytes ? bytes : 1);
            if (forward) {
                uint16_t prev = 0;
                for (size_t i = 0; i < n[r]; i++) {
                    uint16_t b;
                    memcpy(&b, src + off + 2 * i, 2);
                    tmp[i] = (uint16_t)(b - prev);
                    prev = b;
                }
                shuffle(dst + off, (unsigned char *)tmp, 2, n[r]);
            } else {
                unshuffle((unsigned char *)tmp, src + off, 2, n[r]);
                uint16_t prev = 0;
                for (size_t i = 0; i < n[r]; i++) {
                    prev = (uint16_t)(prev + tmp[i]);
                    memcpy(dst + off + 2 * i, &prev, 2);
                }
            }
            free(tmp);
        } else if (forward) {
            shuffle(dst + off, src + off, es[r], n[r]);
        } else {
            unshuffle(dst + off, src + off, es[r], n[r]);
        }
        off += bytes;
    }
    RC_ASSERT(off == len);
}

void rc_result_deflate(void **buf, size_t *len)
{
    if (*len < 1024) return;
    rc_result_view v;
    if (rc_result_view_parse(&v, *buf, *len, NULL) != 0 || v.owned != NULL) {
        rc_result_view_release(&v);
        return; /* not a plain image: leave it */
    }
    unsigned char *t = rc_xmalloc(*len);
    transform(t, *buf, *len, 1);
    uLongf cap = compressBound((uLong)*len);
    unsigned char *z = rc_xmalloc(sizeof(zhead) + cap);
    /* Level 1: after the transform, higher levels gain little and cost more. */
    int ok = compress2(z + sizeof(zhead), &cap, t, (uLong)*len, 1) == Z_OK &&
             sizeof(zhead) + cap < *len;
    free(t);
    if (!ok) {
        free(z);
        return;
    }
    zhead h = {ZMAGIC, RC_RESULT_LAYOUT, *len};
    memcpy(z, &h, sizeof h);
    free(*buf);
    *buf = z;
    *len = sizeof(zhead) + cap;
}

static size_t nonzero(const uint32_t *h)
{
    size_t n = 0;
    for (size_t i = 0; i < RC_HIST_BINS; i++) n += h[i] != 0;
    return n;
}

/* Buckets (uint16) then counts (uint32) of the nonzero buckets, ascending. */
static void put_hist(unsigned char *p, const uint32_t *h, size_t n)
{
    unsigned char *cp = p + n * sizeof(uint16_t);
    for (size_t i = 0; i < RC_HIST_BINS; i++) {
        if (h[i] == 0) continue;
        uint16_t b = (uint16_t)i;
        memcpy(p, &b, sizeof b), p += sizeof b;
        memcpy(cp, &h[i], sizeof h[i]), cp += sizeof h[i];
    }
}

/* The image is the one of the result's view: its histograms made sparse, every
 * other section pointing at the result's own arrays. */
void rc_result_pack(const rc_result *r, void **buf, size_t *len)
{
    _Static_assert(RC_HIST_BINS <= 65536, "bucket indices are uint16");
    const size_t pair = sizeof(uint16_t) + sizeof(uint32_t);
    rc_result_view v;
    memset(&v, 0, sizeof v);
    v.job_id = r->job_id;
    memcpy(v.build_id, r->build_id, sizeof v.build_id);
    memcpy(v.build_revision, r->build_revision, sizeof v.build_revision);
    v.c = r->c;
    v.online = r->online;
    v.all = r->all;
    v.n_hist[0] = nonzero(r->hist_online);
    v.n_hist[1] = nonzero(r->hist_all);
    unsigned char *sparse = rc_xmalloc((v.n_hist[0] + v.n_hist[1]) * pair + 1);
    put_hist(sparse, r->hist_online, v.n_hist[0]);
    put_hist(sparse + v.n_hist[0] * pair, r->hist_all, v.n_hist[1]);
    for (int k = 0; k < 2; k++) {
        unsigned char *at = sparse + (k ? v.n_hist[0] * pair : 0);
        v.hist_bucket[k] = at;
        v.hist_count[k] = at + v.n_hist[k] * sizeof(uint16_t);
    }
    v.n_undelivered = r->n_undelivered;
    v.undelivered = (const unsigned char *)r->undelivered;
    v.n_deliveries = r->n_deliveries;
    v.deliveries = (const unsigned char *)r->deliveries;
    v.n_sizes = r->n_sizes;
    v.sizes = (const unsigned char *)r->sizes;
    v.n_users_load = r->n_users_load;
    v.user_sent = (const unsigned char *)r->user_sent;
    v.user_groups = (const unsigned char *)r->user_groups;
    v.n_anon_records = r->n_anon_records;
    v.anon_records = (const unsigned char *)r->anon_records;
    v.n_disc_curve = r->n_disc_curve;
    v.disc_curve = (const unsigned char *)r->disc_curve;
    rc_result_pack_view(&v, buf, len);
    free(sparse);
}

void rc_result_pack_view(const rc_result_view *v, void **buf, size_t *len)
{
    size_t pair = sizeof(uint16_t) + sizeof(uint32_t);
    size_t n = sizeof(image_head) + (v->n_hist[0] + v->n_hist[1]) * pair +
               v->n_undelivered * sizeof(rc_undelivered) + v->n_deliveries * sizeof(rc_delivery) +
               v->n_sizes * sizeof(rc_size_bucket) + v->n_users_load * 2 * sizeof(uint32_t) +
               v->n_anon_records * sizeof(rc_anon_record) + v->n_disc_curve * sizeof(rc_disc_point);
    unsigned char *p = rc_xmalloc(n), *q = p;
    image_head h;
    memset(&h, 0, sizeof h);
    h.magic = MAGIC;
    h.layout = RC_RESULT_LAYOUT;
    h.job_id = v->job_id;
    memcpy(h.build_id, v->build_id, sizeof v->build_id);
    memcpy(h.build_revision, v->build_revision, sizeof v->build_revision);
    h.c = v->c;
    h.online = v->online;
    h.all = v->all;
    h.n_hist_online = (uint32_t)v->n_hist[0];
    h.n_hist_all = (uint32_t)v->n_hist[1];
    h.n_undelivered = (uint32_t)v->n_undelivered;
    h.n_deliveries = (uint32_t)v->n_deliveries;
    h.n_sizes = (uint32_t)v->n_sizes;
    h.n_users_load = (uint32_t)v->n_users_load;
    h.n_anon_records = (uint32_t)v->n_anon_records;
    h.n_disc_curve = (uint32_t)v->n_disc_curve;
    memcpy(q, &h, sizeof h), q += sizeof h;
    for (int k = 0; k < 2; k++) {
        if (v->n_hist[k]) {
            memcpy(q, v->hist_bucket[k], v->n_hist[k] * sizeof(uint16_t));
            memcpy(q + v->n_hist[k] * sizeof(uint16_t), v->hist_count[k],
                   v->n_hist[k] * sizeof(uint32_t));
        }
        q += v->n_hist[k] * pair;
    }
    if (v->n_undelivered) memcpy(q, v->undelivered, v->n_undelivered * sizeof(rc_undelivered));
    q += v->n_undelivered * sizeof(rc_undelivered);
    if (v->n_deliveries) memcpy(q, v->deliveries, v->n_deliveries * sizeof(rc_delivery));
    q += v->n_deliveries * sizeof(rc_delivery);
    if (v->n_sizes) memcpy(q, v->sizes, v->n_sizes * sizeof(rc_size_bucket));
    q += v->n_sizes * sizeof(rc_size_bucket);
    if (v->n_users_load) {
        memcpy(q, v->user_sent, v->n_users_load * sizeof(uint32_t));
        memcpy(q + v->n_users_load * sizeof(uint32_t), v->user_groups,
               v->n_users_load * sizeof(uint32_t));
    }
    q += v->n_users_load * 2 * sizeof(uint32_t);
    if (v->n_anon_records)
        memcpy(q, v->anon_records, v->n_anon_records * sizeof(rc_anon_record));
    q += v->n_anon_records * sizeof(rc_anon_record);
    if (v->n_disc_curve) memcpy(q, v->disc_curve, v->n_disc_curve * sizeof(rc_disc_point));
    *buf = p;
    *len = n;
}

void rc_result_view_release(rc_result_view *v)
{
    free(v->owned);
    v->owned = NULL;
}

int rc_result_view_parse(rc_result_view *v, const void *buf, size_t len, rc_err *err)
{
    const unsigned char *p = buf;
    image_head h;
    memset(v, 0, sizeof *v);
    uint32_t magic = 0;
    if (len >= sizeof magic) memcpy(&magic, p, sizeof magic);
    if (magic == ZMAGIC) {
        zhead z;
        if (len < sizeof z) return rc_err_set(err, RC_EXIT_RUNTIME, "result image too short");
        memcpy(&z, p, sizeof z);
        /* Bounded like the journal's records: a flipped length is damage. */
        if (z.layout != RC_RESULT_LAYOUT || z.raw_len > ((uint64_t)1 << 30))
            return rc_err_set(err, RC_EXIT_RUNTIME, "compressed result image is damaged");
        unsigned char *t = rc_xmalloc(z.raw_len ? z.raw_len : 1);
        uLongf got = (uLongf)z.raw_len;
        if (uncompress(t, &got, p + sizeof z, (uLong)(len - sizeof z)) != Z_OK ||
            got != z.raw_len || got < sizeof h) {
            free(t);
            return rc_err_set(err, RC_EXIT_RUNTIME, "compressed result image is damaged");
        }
        /* The head is stored as is: check it bounds the regions before undoing
         * the transform. */
        memcpy(&h, t, sizeof h);
        size_t es[N_REGIONS], n[N_REGIONS], need = sizeof h;
        image_regions(&h, es, n);
        for (int r = 0; r < N_REGIONS; r++) need += es[r] * n[r];
        if (h.magic != MAGIC || need != got) {
            free(t);
            return rc_err_set(err, RC_EXIT_RUNTIME, "compressed result image is damaged");
        }
        unsigned char *raw = rc_xmalloc(got);
        transform(raw, t, got, 0);
        free(t);
        int rc = rc_result_view_parse(v, raw, got, err);
        if (rc != 0) {
            free(raw);
            return rc;
        }
        v->owned = raw;
        return 0;
    }
    if (len < sizeof h) return rc_err_set(err, RC_EXIT_RUNTIME, "result image too short");
    memcpy(&h, p, sizeof h);
    if (h.magic != MAGIC || h.layout != RC_RESULT_LAYOUT)
        return rc_err_set(err, RC_EXIT_RUNTIME, "result image has layout %u, expected %u",
                          h.magic == MAGIC ? h.layout : 0u, RC_RESULT_LAYOUT);
    size_t pair = sizeof(uint16_t) + sizeof(uint32_t);
    size_t need = sizeof h + ((size_t)h.n_hist_online + h.n_hist_all) * pair +
                  (size_t)h.n_undelivered * sizeof(rc_undelivered) +
                  (size_t)h.n_deliveries * sizeof(rc_delivery) +
                  (size_t)h.n_sizes * sizeof(rc_size_bucket) +
                  (size_t)h.n_users_load * 2 * sizeof(uint32_t) +
                  (size_t)h.n_anon_records * sizeof(rc_anon_record) +
                  (size_t)h.n_disc_curve * sizeof(rc_disc_point);
    if (len != need || h.n_undelivered > RC_UNDELIVERED_MAX || h.n_hist_online > RC_HIST_BINS ||
        h.n_hist_all > RC_HIST_BINS || h.n_sizes > RC_SIZE_BUCKETS)
        return rc_err_set(err, RC_EXIT_RUNTIME, "result image has %zu bytes, expected %zu", len,
                          need);
    v->job_id = h.job_id;
    memcpy(v->build_id, h.build_id, sizeof v->build_id);
    v->build_id[sizeof v->build_id - 1] = '\0';
    memcpy(v->build_revision, h.build_revision, sizeof v->build_revision);
    v->build_revision[sizeof v->build_revision - 1] = '\0';
    v->c = h.c;
    v->online = h.online;
    v->all = h.all;
    v->n_hist[0] = h.n_hist_online;
    v->n_hist[1] = h.n_hist_all;
    p += sizeof h;
    for (int k = 0; k < 2; k++) {
        v->hist_bucket[k] = p;
        p += v->n_hist[k] * sizeof(uint16_t);
        v->hist_count[k] = p;
        p += v->n_hist[k] * sizeof(uint32_t);
    }
    v->n_undelivered = h.n_undelivered;
    v->undelivered = p;
    p += v->n_undelivered * sizeof(rc_undelivered);
    v->n_deliveries = h.n_deliveries;
    v->deliveries = p;
    p += v->n_deliveries * sizeof(rc_delivery);
    v->n_sizes = h.n_sizes;
    v->sizes = p;
    p += v->n_sizes * sizeof(rc_size_bucket);
    v->n_users_load = h.n_users_load;
    v->user_sent = p;
    p += v->n_users_load * sizeof(uint32_t);
    v->user_groups = p;
    p += v->n_users_load * sizeof(uint32_t);
    v->n_anon_records = h.n_anon_records;
    v->anon_records = p;
    p += v->n_anon_records * sizeof(rc_anon_record);
    v->n_disc_curve = h.n_disc_curve;
    v->disc_curve = p;
    return 0;
}

int rc_result_unpack(rc_result *r, const void *buf, size_t len, rc_err *err)
{
    rc_result_view v;
    int rc = rc_result_view_parse(&v, buf, len, err);
    if (rc != 0) return rc;
    rc_result_init(r);
    r->job_id = v.job_id;
    memcpy(r->build_id, v.build_id, sizeof r->build_id);
    memcpy(r->build_revision, v.build_revision, sizeof r->build_revision);
    r->c = v.c;
    r->online = v.online;
    r->all = v.all;
    uint32_t *dst[2] = {r->hist_online, r->hist_all};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < v.n_hist[k]; i++) {
            uint16_t b;
            uint32_t c;
            memcpy(&b, v.hist_bucket[k] + i * sizeof b, sizeof b);
            memcpy(&c, v.hist_count[k] + i * sizeof c, sizeof c);
            dst[k][b] = c;
        }
    r->n_undelivered = v.n_undelivered;
    if (v.n_undelivered) {
        r->undelivered = rc_xmalloc(RC_UNDELIVERED_MAX * sizeof(rc_undelivered));
        memcpy(r->undelivered, v.undelivered, v.n_undelivered * sizeof(rc_undelivered));
    }
    r->n_deliveries = v.n_deliveries;
    if (v.n_deliveries) {
        r->deliveries = rc_xmalloc(v.n_deliveries * sizeof(rc_delivery));
        memcpy(r->deliveries, v.deliveries, v.n_deliveries * sizeof(rc_delivery));
    }
    r->n_sizes = (uint32_t)v.n_sizes;
    if (v.n_sizes) memcpy(r->sizes, v.sizes, v.n_sizes * sizeof(rc_size_bucket));
    r->n_users_load = v.n_users_load;
    if (v.n_users_load) {
        r->user_sent = rc_xmalloc(v.n_users_load * sizeof(uint32_t));
        r->user_groups = rc_xmalloc(v.n_users_load * sizeof(uint32_t));
        memcpy(r->user_sent, v.user_sent, v.n_users_load * sizeof(uint32_t));
        memcpy(r->user_groups, v.user_groups, v.n_users_load * sizeof(uint32_t));
    }
    r->n_anon_records = v.n_anon_records;
    if (v.n_anon_records) {
        r->anon_records = rc_xmalloc(v.n_anon_records * sizeof(rc_anon_record));
        memcpy(r->anon_records, v.anon_records, v.n_anon_records * sizeof(rc_anon_record));
    }
    r->n_disc_curve = v.n_disc_curve;
    if (v.n_disc_curve) {
        r->disc_curve = rc_xmalloc(v.n_disc_curve * sizeof(rc_disc_point));
        memcpy(r->disc_curve, v.disc_curve, v.n_disc_curve * sizeof(rc_disc_point));
    }
    rc_result_view_release(&v);
    return 0;
}
