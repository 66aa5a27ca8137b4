/* result: what one job produces, independent of how it was run.
 *
 * The latency distribution is kept three ways: exact summary statistics
 * (computed from every sample at the end of the job; these are the numbers
 * the analysis reports), a log-bucketed histogram for distributions and
 * plots, and optionally (job.store_raw) one record per first delivery.
 * "online" is the online-only subset that every paper figure uses
 * (docs/spec.md §5); "all" is every first delivery.
 *
 * Histogram geometry (core/hist.h, docs/results-layout.md): bucket 0 is [0, 2^-10 s);
 * each octave [2^k, 2^(k+1)) for k = -10 .. 21 is split into 1024 equal
 * buckets (width 2^(k-10), so any two values in one bucket differ by less
 * than 2^-10 = 0.098 % of either: every quantile read from the histogram is
 * within 0.1 % of the exact one from 1 ms to 48 days); the last bucket is
 * [2^22 s, +inf).  The edges are dyadic, so a bucket holds exactly the
 * doubles between its edges, and every multiple of 2 s up to 4096 s is an
 * edge (the 2 s bins of Figs 15/16 rebin exactly).
 *
 * Ownership: rc_result owns its arrays; rc_result_free releases them.
 * rc_result_pack gives the compact byte image that workers send over MPI
 * and the journal stores (histograms as sparse (bucket, count) pairs);
 * rc_result_view_parse reads one without copying; the image starts with a
 * magic and a layout version.
 */
#ifndef RCSIM_EXP_RESULT_H
#define RCSIM_EXP_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anon/anonymity.h"
#include "anon/disclosure.h"
#include "core/err.h"
#include "core/hist.h"

#define RC_RESULT_LAYOUT 8 /* 2: the build that ran the job; 3: compact image (sparse buckets);
                             4: adversary counters and the population section;
                             5: anonymity, bandwidth and unobservability;
                             6: nodes' service (node_*); 7: disclosure;
                             8: disclosure's learning curve (store_raw) */

/* Histogram geometry: core/hist.h (RC_HIST_BINS, rc_hist_bin, rc_hist_edge). */

/* Which quantiles the summary holds, in this order. */
#define RC_SUMMARY_QUANTILES 10
extern const double rc_summary_q[RC_SUMMARY_QUANTILES]; /* 0.01 0.05 0.10 0.25 0.50 0.75 0.90 0.95 0.99 0.999 */
extern const char *const rc_summary_q_names[RC_SUMMARY_QUANTILES]; /* "p1","p5",... */

typedef struct rc_summary {
    uint64_t count;
    double mean_s, sd_s, min_s, max_s;
    double q[RC_SUMMARY_QUANTILES]; /* linear interpolation like numpy.percentile */
} rc_summary;

/* The job's counters, gathered from the layers that count them: the engine
 * (events), the network (rc_net_counters: bundles, cover_packets, pulls,
 * mix_packets), the multicast layer (rc_mc_counters: the rest) and the run
 * itself (wall_s, sim_s, peak_rss_kb): every row of multicast/counters.def, in
 * its order.  The field names are the output names (HDF5 counter_*, --json). */
typedef struct rc_counters {
#define RC_COUNTER(name, from, type, units, json, json_key) RC_COUNTER_CTYPE_##type name;
#define RC_COUNTER_CTYPE_U64 uint64_t
#define RC_COUNTER_CTYPE_F64 double
#include "multicast/counters.def"
#undef RC_COUNTER_CTYPE_U64
#undef RC_COUNTER_CTYPE_F64
} rc_counters;

/* Population mode: first deliveries by the size of their group,
 * in buckets of sizes [2^b, 2^(b+1)) for b = 1 .. RC_SIZE_BUCKETS. */
#define RC_SIZE_BUCKETS 20
typedef struct rc_size_bucket {
    uint64_t lo, hi;              /* group sizes lo..hi */
    uint64_t groups, multicasts;  /* groups of these sizes, and their multicasts */
    uint64_t expected, deliveries, undelivered;
    rc_summary online;            /* online-only latency of these deliveries */
} rc_size_bucket;

typedef struct rc_undelivered {
    uint32_t group, nonce, recipient; /* recipient = user index */
} rc_undelivered;

#define RC_UNDELIVERED_MAX 1000 /* the list is capped; the counter is not */

/* One first delivery (store_raw): every one, online-labelled or not. */
typedef struct rc_delivery {
    uint32_t message;   /* payload id (nonce), unique within the job */
    uint32_t group;
    uint32_t sender;    /* user index of the multicast's source */
    uint32_t recipient; /* user index */
    double sent_s;      /* creation time of the multicast, simulated seconds */
    double delivered_s; /* time of the first copy's pull */
    uint32_t online;    /* 1 if it counts as delivered online (docs/spec.md §5) */
    uint32_t pad;
} rc_delivery;

typedef struct rc_result {
    uint64_t job_id;
    char build_id[17];                /* core/build.h id of the binary that ran the job */
    char build_revision[64];          /* ... and its git revision (truncated) */
    rc_counters c;
    rc_summary online, all;
    uint32_t *hist_online, *hist_all; /* RC_HIST_BINS each */
    rc_delivery *deliveries;          /* delivery order; NULL unless store_raw */
    size_t n_deliveries;
    rc_undelivered *undelivered;      /* up to RC_UNDELIVERED_MAX */
    size_t n_undelivered;
    /* population mode only (n_sizes = 0 and NULL arrays otherwise) */
    uint32_t n_sizes;                 /* buckets in use: sizes[0 .. n_sizes) */
    rc_size_bucket sizes[RC_SIZE_BUCKETS];
    uint32_t *user_sent;              /* per user: real sub-messages that left it */
    uint32_t *user_groups;            /* per user: groups it is in */
    size_t n_users_load;
    /* --anonymity on with store_raw: one record per tracked message (NULL otherwise) */
    rc_anon_record *anon_records;
    size_t n_anon_records;
    /* --disclosure on with store_raw: the learning curve (NULL otherwise) */
    rc_disc_point *disc_curve;
    size_t n_disc_curve;
} rc_result;

void rc_result_init(rc_result *r);   /* zeroes and allocates the histograms */
void rc_result_free(rc_result *r);


/* Quantile q in [0, 1] read from a histogram the way analysis/rcplot/stats.py
 * hist_quantile does (numpy's linear rule on ranks, samples taken as evenly
 * spread in their bucket); NaN for an empty histogram. */
double rc_hist_quantile(const uint32_t *hist, double q);

/* Summary from a sample array (sorted in place). */
void rc_summary_compute(rc_summary *s, double *samples, size_t n);
/* Summary from a histogram (RC_HIST_BINS) and the exact moments of its samples
 * (mean, and m2 = the sum of squared deviations, as Welford keeps them):
 * count, mean, sd, min and max exact; quantiles interpolated within a bin
 * (the samples of a bin taken as evenly spread, clipped to [min, max]). */
void rc_summary_from_hist(rc_summary *s, const uint32_t *hist, double mean, double m2,
                          double min, double max);

/* Population mode: the per-user load in a few numbers (zeros otherwise). */
typedef struct rc_load_summary {
    uint64_t users, without_group;
    double sent_mean, sent_p50, sent_p90, sent_p99, sent_max;       /* sub-messages sent */
    double groups_mean, groups_p50, groups_p90, groups_max;         /* memberships */
} rc_load_summary;
void rc_result_load_summary(const rc_result *r, rc_load_summary *out);

/* Gathers a finished job's model outputs into r (rc_result_init'ed by the
 * caller): ends the multicast layer's run (rc_mc_finish), keeps the first
 * RC_UNDELIVERED_MAX undelivered pairs, copies the network's and the
 * multicast layer's counters into r->c, and turns the latency samples into
 * histograms, summaries and (keep_raw) the per-delivery records.  The engine's
 * and the run's own counters (events, sim_s, wall_s, peak_rss_kb) are the
 * caller's to set. */
typedef struct rc_mc rc_mc;
void rc_result_gather(rc_result *r, rc_mc *mc, bool keep_raw);

/* Compact image for MPI and the journal.  pack allocates *buf (free()). */
void rc_result_pack(const rc_result *r, void **buf, size_t *len);

/* Replaces an image of 1 kB or more by its zlib-compressed form when that is
 * smaller (workers do this: a 24 h job's histograms shrink 3-4 times, and
 * the journal stores what the worker sent).  Readers accept both forms. */
void rc_result_deflate(void **buf, size_t *len);
int rc_result_unpack(rc_result *r, const void *buf, size_t len, rc_err *err);

/* A parsed image, pointing into the caller's buffer (valid while it is) or,
 * for a compressed image, into memory the view owns: release every parsed
 * view with rc_result_view_release.  The arrays may be unaligned: copy them
 * with memcpy. */
typedef struct rc_result_view {
    uint64_t job_id;
    char build_id[17];
    char build_revision[64];
    rc_counters c;
    rc_summary online, all;
    size_t n_hist[2];                   /* nonzero buckets: [0] online, [1] all */
    const unsigned char *hist_bucket[2]; /* uint16_t[n_hist] ascending */
    const unsigned char *hist_count[2];  /* uint32_t[n_hist] */
    size_t n_undelivered;
    const unsigned char *undelivered;   /* rc_undelivered[n_undelivered] */
    size_t n_deliveries;
    const unsigned char *deliveries;    /* rc_delivery[n_deliveries] */
    size_t n_sizes;                     /* population mode: buckets in use */
    const unsigned char *sizes;         /* rc_size_bucket[n_sizes] */
    size_t n_users_load;                /* population mode: users */
    const unsigned char *user_sent;     /* uint32_t[n_users_load] */
    const unsigned char *user_groups;   /* uint32_t[n_users_load] */
    size_t n_anon_records;
    const unsigned char *anon_records;  /* rc_anon_record[n_anon_records] */
    size_t n_disc_curve;
    const unsigned char *disc_curve;    /* rc_disc_point[n_disc_curve] */
    void *owned;                        /* the inflated image, if it was compressed */
} rc_result_view;

int rc_result_view_parse(rc_result_view *v, const void *buf, size_t len, rc_err *err);
void rc_result_view_release(rc_result_view *v);

/* The image of a view (e.g. one assembled from a results file's columns). */
void rc_result_pack_view(const rc_result_view *v, void **buf, size_t *len);

#endif
