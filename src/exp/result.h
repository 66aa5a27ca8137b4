/* result: what one job produces, independent of how it was run.
 *
 * The latency distribution is kept three ways: exact summary statistics
 * (computed from every sample at the end of the job), a fixed-edge histogram
 * (10 ms bins up to 100 s, then 1 % log bins up to 1e6 s: exact for the
 * paper's 10 ms lattice and a few kB compressed), and optionally the raw
 * per-delivery latencies (job.store_raw).  "online" is the online-only subset
 * that every paper figure uses (docs/spec.md §5); "all" is every first delivery.
 *
 * Ownership: rc_result owns its arrays; rc_result_free releases them.
 * rc_result_pack/unpack give a flat byte image for MPI (the farm) and the
 * resume journal; the image starts with a layout version.
 */
#ifndef RCSIM_EXP_RESULT_H
#define RCSIM_EXP_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/hist.h"

#define RC_RESULT_LAYOUT 3 /* 2: the build that ran the job; 3: adversary counters and the
                             population section (issue 17) */

/* Histogram edges: core/hist.h (rc_hist_bin, rc_hist_edge, RC_HIST_BINS). */

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
 * itself (wall_s, sim_s, peak_rss_kb).  The field names are the output names
 * (HDF5 counter_*, --json). */
typedef struct rc_counters {
    uint64_t events;              /* engine events processed */
    uint64_t multicasts;          /* payloads created by the apps */
    uint64_t deliveries;          /* first receipts (recipient, payload) */
    uint64_t deliveries_online;   /* ... of which marked DELIVERED_ONLINE */
    uint64_t duplicates;          /* later copies (already_seen) */
    uint64_t expected_deliveries; /* recipients x payloads */
    uint64_t undelivered;         /* (recipient, payload) pairs not delivered by the end */
    uint64_t payload_packets;     /* real payload sub-messages that left a client */
    uint64_t ack_packets;         /* ACK sub-messages that left a client */
    uint64_t repair_packets;      /* reconciliation digests and pushes (issue 8) */
    uint64_t cover_packets;       /* cover sub-messages (drop/loop) that left a client */
    uint64_t bundles;             /* packets (bundles of p sub-messages) emitted */
    uint64_t reassignments;       /* RC-FT role reassignments */
    uint64_t timeouts;            /* RC-FT timeouts that fired */
    uint64_t pulls;               /* pulls that found something */
    uint64_t mix_packets;         /* packets through mixes, --cover full only */
    uint64_t joins, leaves;       /* membership changes (membership_rate > 0) */
    uint64_t repairs;             /* payloads first delivered by anti-entropy */
    /* source_offline scenario: the multicast whose source went offline */
    uint64_t so_expected, so_delivered, so_delivered_online;
    uint64_t so_latency_sum_ms, so_latency_max_ms;
    /* misbehaving members (issue 17, multicast/adversary.h) */
    uint64_t adv_members;         /* users that misbehave */
    uint64_t adv_withheld;        /* payload copies and repairs they did not forward */
    uint64_t adv_acks_withheld;   /* ACKs drop members did not send */
    uint64_t adv_acks_faked;      /* ACKs ack-drop members sent for copies they did not forward */
    uint64_t adv_delayed;         /* forwards, ACKs and repairs held back by adversary_delay */
    double wall_s;                /* wall time of the simulation */
    double sim_s;                 /* simulated span */
    uint64_t peak_rss_kb;         /* peak resident set of the process after the job */
} rc_counters;

/* Population mode (issue 17): first deliveries by the size of their group,
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

typedef struct rc_result {
    uint64_t job_id;
    char build_id[17];                /* core/build.h id of the binary that ran the job */
    char build_revision[64];          /* ... and its git revision (truncated) */
    rc_counters c;
    rc_summary online, all;
    uint32_t *hist_online, *hist_all; /* RC_HIST_BINS each */
    float *raw_online;                /* seconds, delivery order; NULL unless store_raw */
    size_t n_raw;
    rc_undelivered *undelivered;      /* up to RC_UNDELIVERED_MAX */
    size_t n_undelivered;
    /* population mode only (n_sizes = 0 and NULL arrays otherwise) */
    uint32_t n_sizes;                 /* buckets in use: sizes[0 .. n_sizes) */
    rc_size_bucket sizes[RC_SIZE_BUCKETS];
    uint32_t *user_sent;              /* per user: real sub-messages that left it */
    uint32_t *user_groups;            /* per user: groups it is in */
    size_t n_users_load;
} rc_result;

void rc_result_init(rc_result *r);   /* zeroes and allocates the histograms */
void rc_result_free(rc_result *r);


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
 * histograms, summaries and (keep_raw) the raw online array.  The engine's
 * and the run's own counters (events, sim_s, wall_s, peak_rss_kb) are the
 * caller's to set. */
typedef struct rc_mc rc_mc;
void rc_result_gather(rc_result *r, rc_mc *mc, bool keep_raw);

/* Flat image for MPI and the journal.  pack allocates *buf (free()). */
void rc_result_pack(const rc_result *r, void **buf, size_t *len);
int rc_result_unpack(rc_result *r, const void *buf, size_t len, rc_err *err);

#endif
